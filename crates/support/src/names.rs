//! Name lookups with "did you mean" suggestions, shared by every registry.

/// The error for an unknown `kind` called `name`, suggesting the closest known name.
pub fn unknown<'a>(kind: &str, name: &str, known: impl Iterator<Item = &'a str>) -> anyhow::Error {
    let known: Vec<&str> = known.collect();
    match closest(name, &known) {
        Some(best) => anyhow::anyhow!("unknown {kind} {name:?} (did you mean {best:?}?)"),
        None => anyhow::anyhow!("unknown {kind} {name:?}; known: {}", known.join(", ")),
    }
}

/// The known name closest to `name` (Jaro-Winkler), if any is reasonably close.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(&name.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// One line: where in the file, what is wrong, and the closest known name for an unknown
/// key or value.
pub fn explain_toml_error(text: &str, error: &toml::de::Error) -> anyhow::Error {
    // toml's messages may span lines ("invalid string\nexpected ..."): one line here.
    let mut message = error.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    // serde names its own machinery for a tagged enum given as a plain value
    // (`optimizer = "cmaes"`): say what the file should hold instead.
    if let Some(at) = message.find("expected internally tagged enum") {
        message.truncate(at);
        message.push_str("expected a table with a `kind` key (e.g. [optimizer] then kind = \"cmaes\")");
    }
    let suggestion = suggest(&message).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
    match error.span() {
        Some(span) => {
            // The text up to the error, cut at a character boundary.
            let end = (0..=span.start.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let before = &text[..end];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
            match key_in_table(text, line, &message) {
                Some((line, key)) => anyhow::anyhow!("line {line}: field `{key}`: {message}{suggestion}"),
                None => anyhow::anyhow!("line {line}, column {column}: {message}{suggestion}"),
            }
        }
        None => anyhow::anyhow!("{message}{suggestion}"),
    }
}

/// Where toml places an error at a table's header (`line`, 1-based), the line and key inside
/// that table the message is about: serde reads the fields of an internally tagged enum
/// (`[optimizer]` with its `kind`) from a copy of the table that has lost their places, so
/// "unknown field `x`" or "invalid value: integer `-3`" would otherwise name neither. The
/// key is the unknown field, or the only key of the table whose value is the one the
/// message quotes; `None` when the error is not at a header or no single key fits.
fn key_in_table(text: &str, line: usize, message: &str) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.get(line - 1)?.trim_start();
    if !header.starts_with('[') {
        return None;
    }
    let unknown = message.split_once("unknown field `").and_then(|(_, rest)| rest.split_once('`')).map(|(key, _)| key);
    let quoted = quoted_value(message);
    if unknown.is_none() && quoted.is_none() {
        return None;
    }
    let mut matches =
        lines.iter().enumerate().skip(line).take_while(|(_, text)| !text.trim_start().starts_with('[')).filter_map(
            |(index, text)| {
                // One `key = value` line read as a TOML document of its own (comments and all).
                let table: toml::Table = toml::from_str(text).ok()?;
                let (key, value) = table.into_iter().next()?;
                let fits = match (unknown, &quoted) {
                    (Some(unknown), _) => key == unknown,
                    (None, Some(quoted)) => same_value(&value, quoted),
                    (None, None) => false,
                };
                fits.then_some((index + 1, key))
            },
        );
    let first = matches.next()?;
    matches.next().is_none().then_some(first)
}

/// The value serde quotes in "invalid type: integer `-3`, expected ..." (or "invalid
/// value: ..."): integer, floating point, string or boolean.
fn quoted_value(message: &str) -> Option<toml::Value> {
    let rest = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "))?;
    if let Some(rest) = rest.strip_prefix("string \"") {
        return rest.split_once("\", expected").map(|(text, _)| toml::Value::String(text.to_string()));
    }
    let (kind, rest) = rest.split_once(" `").filter(|(kind, _)| !kind.contains(','))?;
    let (literal, _) = rest.split_once('`')?;
    match kind {
        "integer" => literal.parse().ok().map(toml::Value::Integer),
        "floating point" => literal.to_lowercase().parse().ok().map(toml::Value::Float),
        "boolean" => literal.parse().ok().map(toml::Value::Boolean),
        _ => None,
    }
}

/// Whether a value read from the file is the one serde quotes (NaN equal to NaN).
fn same_value(value: &toml::Value, quoted: &toml::Value) -> bool {
    match (value, quoted) {
        (toml::Value::Float(a), toml::Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
        (toml::Value::Float(a), toml::Value::Integer(b)) | (toml::Value::Integer(b), toml::Value::Float(a)) => {
            *a == *b as f64
        }
        _ => value == quoted,
    }
}

/// From serde's "unknown field `x`, expected one of `a`, `b`" (or "unknown variant"), the
/// expected name closest to `x`.
fn suggest(message: &str) -> Option<String> {
    let rest = message.split_once("unknown field `").or_else(|| message.split_once("unknown variant `"))?.1;
    let (unknown, rest) = rest.split_once('`')?;
    let expected = rest.split_once("expected")?.1;
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    closest(unknown, &known).map(str::to_string)
}

/// A piece of user input quoted in an error line: whole when short, else its start, its
/// end and its length, so that a megabyte token does not become a megabyte line.
pub struct Quoted<'a>(pub &'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const LONGEST: usize = 60;
        const START: usize = 28;
        const END: usize = 20;
        let length = self.0.chars().count();
        if length <= LONGEST {
            write!(f, "{:?}", self.0)
        } else {
            let start: String = self.0.chars().take(START).collect();
            let end: String = self.0.chars().skip(length - END).collect();
            write!(f, "{:?} ({length} characters)", format!("{start}...{end}"))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_input_is_quoted_short() {
        assert_eq!(super::Quoted("L3").to_string(), "\"L3\"");
        let long = "X".repeat(1_000_000);
        let shown = super::Quoted(&long).to_string();
        assert!(shown.len() < 80 && shown.ends_with("XXX\" (1000000 characters)"), "{shown}");
        let name = format!("{}.manifest.json", "b".repeat(244));
        assert!(super::Quoted(&name).to_string().contains("...bbbbbb.manifest.json\""));
    }

    #[test]
    fn errors_of_a_tagged_table_name_the_line_and_key() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(tag = "kind", deny_unknown_fields)]
        #[allow(dead_code)]
        enum Optimizer {
            #[serde(rename = "cmaes")]
            Cmaes { population: usize, sigma: Option<f64> },
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct File {
            seed: u64,
            optimizer: Optimizer,
        }
        let explain = |text: &str| {
            let error = toml::from_str::<File>(text).unwrap_err();
            super::explain_toml_error(text, &error).to_string()
        };
        let text = "seed = 1\n[optimizer]\nkind = \"cmaes\"\npopulation = -3   # vectors\n";
        let message = explain(text);
        assert!(message.starts_with("line 4: field `population`: invalid value: integer `-3`"), "{message}");
        let message = explain("seed = 1\n[optimizer]\nkind = \"cmaes\"\npopulation = 3\npopulaton = 4\n");
        assert!(message.starts_with("line 5: field `populaton`: unknown field"), "{message}");
        assert!(message.ends_with("(did you mean `population`?)"), "{message}");
        let message = explain("seed = 1\n[optimizer]\nkind = \"cmaes\"\npopulation = \"ten\"\n");
        assert!(message.starts_with("line 4: field `population`: invalid type: string \"ten\""), "{message}");
        let message = explain("seed = 1\n[optimizer]\nkind = \"cmaes\"\npopulation = 3\nsigma = true\n");
        assert!(message.starts_with("line 5: field `sigma`: invalid type: boolean `true`"), "{message}");
        // Two keys with the quoted value: no guess, the table's line as toml gives it.
        let message = explain("seed = 1\n[optimizer]\nkind = \"cmaes\"\npopulation = -3\nsigma = -3\n");
        assert!(message.starts_with("line 2, column 1:"), "{message}");
        // An error toml places on its value is left as it is.
        let message = explain("seed = nan\n[optimizer]\nkind = \"cmaes\"\npopulation = 3\n");
        assert!(message.starts_with("line 1, column 8:"), "{message}");
    }

    #[test]
    fn suggests_close_names() {
        let e = super::unknown("preset", "delacherie", ["dellacherie", "bcts", "lee"].into_iter());
        assert!(e.to_string().contains("did you mean \"dellacherie\""), "{e}");
        let e = super::unknown("preset", "zzzz", ["bcts", "lee"].into_iter());
        assert!(e.to_string().contains("known: bcts, lee"), "{e}");
    }

    #[test]
    fn a_tagged_enum_given_as_a_plain_value_asks_for_a_table_with_a_kind() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(tag = "kind")]
        #[allow(dead_code)]
        enum Spec {
            A { size: u32 },
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct File {
            optimizer: Spec,
        }
        let text = "optimizer = \"cmaes\"\n";
        let error = toml::from_str::<File>(text).unwrap_err();
        let e = super::explain_toml_error(text, &error).to_string();
        assert!(
            e.starts_with("line 1, column 13: invalid type: string \"cmaes\", expected a table with a `kind` key"),
            "{e}"
        );
        assert!(!e.contains("internally tagged"), "{e}");
    }
}
