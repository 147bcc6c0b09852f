//! The workspace's modules are layered (docs/architecture.md): a top-level module may use
//! only modules of lower layers. Cargo keeps each crate to the crates it depends on; this
//! test keeps the order within them. Read from the code itself: every `crate::` path outside
//! comments and outside `#[cfg(test)]` modules (unit tests may check a low layer against
//! a preset) is an edge, and an edge to the same or a higher layer fails, naming the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, from the ground up. Modules of one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    &["piece", "names", "limits", "interrupt", "checksum"],
    &["support"],
    &["board", "randomizer"],
    &["placement"],
    &["features"],
    &["eval"],
    &["guideline"],
    &["rules"],
    &["policy"],
    &["sim"],
    &["presets"],
    &["report", "etetris"],
    &["reproduce", "tune", "benchmark", "view", "sessions"],
    &["compare", "learn"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The code without comments (line, block and doc comments) and string literals, so that
/// a doc link or a message naming a module is not an edge.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        match (chars[i], next) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            ('"', _) => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A character literal such as '"' or '{' (not a lifetime: those have no closing quote).
            ('\'', _) if chars.get(i + 2) == Some(&'\'') || (next == Some('\\') && chars.get(i + 3) == Some(&'\'')) => {
                i += if next == Some('\\') { 4 } else { 3 };
                out.push_str("' '");
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The code without its `#[cfg(test)]` items (the attribute and the braced block after it).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(open) = after.find(['{', ';']) else {
            rest = "";
            break;
        };
        if after.as_bytes()[open] == b';' {
            rest = &after[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = after.len();
        for (k, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules a piece of code names through `crate::`, including the groups of
/// `use crate::{a::X, b}`.
fn used_modules(code: &str) -> Vec<String> {
    let mut used = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            // `tetris_lab_crate::` or the like: not this crate's root.
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let close = group.find('}').unwrap_or(group.len());
            for item in group[..close].split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    used.push(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                used.push(name);
            }
        }
    }
    used
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `src` folders of the workspace's crates: this one's, then those of `crates/`. A
/// crate's `crate::` paths name its own modules and those it re-exports from the crates it
/// depends on (Cargo keeps it from using any other), so one order covers them all.
fn source_folders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("src")];
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(root.join("crates")).unwrap().map(|e| e.unwrap().path().join("src")).collect();
    crates.sort();
    folders.extend(crates);
    folders
}

/// Every edge `(module, used module) -> files` of the library's code.
fn edges() -> BTreeMap<(String, String), Vec<String>> {
    let mut files = Vec::new();
    for src in source_folders() {
        let mut own = Vec::new();
        rust_files(&src, &mut own);
        files.extend(own.into_iter().map(|file| (src.clone(), file)));
    }
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (src, file) in files {
        let relative = file.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let code = without_tests(&code_only(&std::fs::read_to_string(&file).unwrap()));
        for used in used_modules(&code) {
            if used != module {
                edges.entry((module.clone(), used)).or_default().push(relative.clone());
            }
        }
    }
    edges
}

#[test]
fn every_module_uses_only_lower_layers() {
    let edges = edges();
    assert!(edges.contains_key(&("sim".into(), "rules".into())), "the reader finds no edge sim -> rules: {edges:?}");
    let mut upward = Vec::new();
    for ((from, to), files) in &edges {
        let (Some(from_layer), Some(to_layer)) = (layer_of(from), layer_of(to)) else {
            upward.push(format!("{from} -> {to}: a module missing from LAYERS ({files:?})"));
            continue;
        };
        if to_layer >= from_layer {
            upward.push(format!("{from} (layer {from_layer}) -> {to} (layer {to_layer}) in {files:?}"));
        }
    }
    assert!(upward.is_empty(), "edges to the same or a higher layer:\n{}", upward.join("\n"));
}

#[test]
fn every_top_level_module_has_a_layer() {
    let libs: Vec<String> =
        source_folders().iter().map(|src| std::fs::read_to_string(src.join("lib.rs")).unwrap()).collect();
    let modules: Vec<&str> = libs
        .iter()
        .flat_map(|lib| lib.lines())
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(modules.len() > 20, "{modules:?}");
    for module in modules {
        assert!(layer_of(module).is_some(), "module {module} is in no layer of LAYERS (docs/architecture.md)");
    }
}

#[test]
fn the_reader_sees_code_and_skips_comments_strings_and_tests() {
    let text = r#"
//! A doc link to [`crate::cli`] is no edge.
use crate::{board::Board, rules};
use crate::sim::play_game;
fn f() { let _ = "crate::tune in a string"; let _ = '"'; crate::policy::build(); }
/* crate::report in a block comment */
#[cfg(test)]
mod tests {
    use crate::presets;
}
fn g() { crate::eval::Evaluator::new(); }
"#;
    let used = used_modules(&without_tests(&code_only(text)));
    assert_eq!(used, ["board", "rules", "sim", "policy", "eval"]);
}
