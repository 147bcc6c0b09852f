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
            anyhow::anyhow!("line {line}, column {column}: {message}{suggestion}")
        }
        None => anyhow::anyhow!("{message}{suggestion}"),
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

#[cfg(test)]
mod tests {
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
