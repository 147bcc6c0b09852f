//! The checksum the saved states carry (`solve`'s search states, tuning checkpoints), so
//! that a damaged, cut or hand-edited file is refused rather than resumed from.

/// 64-bit FNV-1a: catches a damaged, cut or edited file (not an attacker, who can
/// recompute it).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The checksum of a saved state read as JSON: FNV-1a of its compact JSON (keys sorted)
/// without the `checksum` key, in hex.
pub fn json_checksum(state: &serde_json::Value) -> String {
    let mut body = state.clone();
    if let Some(fields) = body.as_object_mut() {
        fields.remove("checksum");
    }
    let text = serde_json::to_vec(&body).expect("JSON of a JSON value");
    format!("{:016x}", fnv1a(&text))
}

/// `state` (a JSON object) with its checksum under the key `checksum`.
pub fn seal(mut state: serde_json::Value) -> serde_json::Value {
    let checksum = json_checksum(&state);
    if let Some(fields) = state.as_object_mut() {
        fields.insert("checksum".into(), checksum.into());
    }
    state
}

/// Whether a sealed state's stored checksum matches (`None`: it has none).
pub fn seal_matches(state: &serde_json::Value) -> Option<bool> {
    state.get("checksum").and_then(serde_json::Value::as_str).map(|stored| stored == json_checksum(state))
}

/// Refuses a sealed state read from `path` (`what` names its kind: "checkpoint") whose
/// checksum does not match or is missing, or whose `format` is neither `current` nor
/// `unsealed` (the format written before checksums, whose contents the caller checks).
pub fn check_seal(
    state: &serde_json::Value,
    current: u32,
    unsealed: u32,
    what: &str,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let format = state.get("format").and_then(serde_json::Value::as_u64);
    match (format, seal_matches(state)) {
        (Some(f), _) if f == u64::from(unsealed) => Ok(()),
        (Some(f), Some(true)) if f == u64::from(current) => Ok(()),
        (Some(f), Some(false)) if f == u64::from(current) => {
            anyhow::bail!("{}: the checksum does not match: the {what} is damaged or was edited", path.display())
        }
        (Some(f), None) if f == u64::from(current) => {
            anyhow::bail!("{}: no checksum (a format {current} {what} has one)", path.display())
        }
        (Some(f), _) => anyhow::bail!("{}: {what} format {f} is not {current}", path.display()),
        (None, _) => anyhow::bail!("{}: no format: not a {what} this program wrote", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_state_is_refused_once_edited() {
        let sealed = seal(serde_json::json!({ "format": 2, "weights": [1.5, -2.0] }));
        assert_eq!(seal_matches(&sealed), Some(true));
        let mut edited = sealed.clone();
        edited["weights"][1] = (-2.5).into();
        assert_eq!(seal_matches(&edited), Some(false));
        assert_eq!(seal_matches(&serde_json::json!({ "format": 2 })), None);
        let path = std::path::Path::new("x.json");
        assert!(check_seal(&sealed, 2, 1, "checkpoint", path).is_ok());
        let error = |state: &serde_json::Value| check_seal(state, 2, 1, "checkpoint", path).unwrap_err().to_string();
        assert!(error(&edited).contains("the checksum does not match: the checkpoint is damaged"));
        assert!(error(&serde_json::json!({ "format": 2 })).contains("no checksum (a format 2 checkpoint has one)"));
        assert!(error(&serde_json::json!({ "format": 7 })).contains("checkpoint format 7 is not 2"));
        assert!(check_seal(&serde_json::json!({ "format": 1 }), 2, 1, "checkpoint", path).is_ok());
    }

    #[test]
    fn known_values() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
