//! Numbers as the tables print them, and the font pictures are drawn with.

/// `1234567.8` -> `1,234,568` (with `decimals` after the point).
pub fn group(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    let text = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) = text.split_once('.').map(|(w, f)| (w, Some(f))).unwrap_or((&text, None));
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if value < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') { "-" } else { "" };
    match fraction {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// Integers without a decimal point; reals to 12 significant digits, which keeps every
/// digit the weights carry and drops the noise of floating-point sums
/// (`-780.5400000000001` prints as `-780.54`).
pub fn format_number(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.is_finite() {
        let rounded: f64 = format!("{v:.11e}").parse().expect("a formatted float reads back");
        format!("{rounded}")
    } else {
        format!("{v}")
    }
}

/// Registers DejaVu Sans and Sans Mono (bundled by the `dejavu` crate) as plotters' "sans-serif", once:
/// every picture the program draws (plots, game pictures) uses it, whatever fonts the
/// machine has. Sans Mono is "monospace", for game pictures' columns.
pub fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use plotters::style::FontStyle;
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
        let _ = plotters::style::register_font("monospace", FontStyle::Normal, dejavu::sans_mono::regular());
        let _ = plotters::style::register_font("monospace", FontStyle::Bold, dejavu::sans_mono::bold());
    });
}
