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

#[cfg(test)]
mod tests {
    #[test]
    fn suggests_close_names() {
        let e = super::unknown("preset", "delacherie", ["dellacherie", "bcts", "lee"].into_iter());
        assert!(e.to_string().contains("did you mean \"dellacherie\""), "{e}");
        let e = super::unknown("preset", "zzzz", ["bcts", "lee"].into_iter());
        assert!(e.to_string().contains("known: bcts, lee"), "{e}");
    }
}
