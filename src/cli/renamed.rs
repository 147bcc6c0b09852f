//! The commands and flags of earlier versions, named with their new form when a command
//! line uses them (clap's nearest spelling would mislead: `--results` is not `--resume`).

/// Commands of earlier versions and their new form.
const MOVED_COMMANDS: &[(&str, &str)] = &[
    ("solve", "etetris solve"),
    ("replay", "etetris replay"),
    ("sequence", "etetris sequence"),
    ("polish", "etetris polish"),
    ("splice", "etetris splice"),
    ("versus", "etetris versus"),
];

/// Flags of earlier versions and their new names: (the command, the old flag, the new one).
const RENAMED_FLAGS: &[(&str, &str, &str)] = &[
    ("tune", "--results", "--out"),
    ("compare", "--results", "--out"),
    ("reproduce", "--results", "--out"),
    ("plot", "--out", "--image"),
    ("etetris sequence", "-n", "--max-pieces"),
    ("etetris sequence", "--count", "--max-pieces"),
    ("etetris bench", "--threads", "--thread-counts"),
];

/// For a command or flag of an earlier version, the line that names its new form instead of
/// clap's guess (`--results` is not `--resume`).
pub(crate) fn hint(error: &clap::Error, arguments: &[String]) -> Option<String> {
    use clap::error::{ContextKind, ErrorKind};
    let first = arguments.first()?;
    if let Some((old, new)) = MOVED_COMMANDS.iter().find(|(old, _)| old == first) {
        if error.kind() == ErrorKind::InvalidSubcommand {
            return Some(format!("the command `{old}` is now `tetris-lab {new}`"));
        }
    }
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let given = error.get(ContextKind::InvalidArg)?.to_string();
    let flag = given.split('=').next().unwrap_or(&given);
    let command = match arguments.get(1) {
        Some(second) if first == "etetris" => format!("etetris {second}"),
        _ => first.clone(),
    };
    let (_, old, new) = RENAMED_FLAGS.iter().find(|(c, old, _)| *c == command && *old == flag)?;
    Some(format!("`{command} {old}` is now `{command} {new}`"))
}
