//! Numbers as the tables and pictures print them.

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

/// A figure with one decimal below 100, none above, in millions from 10 million on
/// (`35.0 M`: the 10x20 figures are known to a few percent at best) and in billions from
/// a billion on (`8.8 G`).
pub fn figure_text(value: f64) -> String {
    if value.abs() >= 1e9 {
        return format!("{} G", group(value / 1e9, 1));
    }
    if value.abs() >= 10_000_000.0 {
        return format!("{} M", group(value / 1e6, 1));
    }
    group(value, if value.abs() < 100.0 { 1 } else { 0 })
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
