//! The documentation cannot go stale: every `console` block of `README.md` and `docs/*.md`
//! runs, and what it shows must be what the program prints.
//!
//! A line `$ COMMAND` runs with `sh -c` in the page's sandbox, a temporary folder holding
//! copies of the repository's `data/`, `experiments/` and `weights/` and an empty `docs/`,
//! with `tetris-lab` first on the PATH (`cargo run --release -- ` reads as `tetris-lab `).
//! The blocks of a page run in order in one sandbox. The lines after a command are its
//! output, stdout and stderr merged as a terminal shows them, matched exactly but for
//! `[..]` (any text within a line) and a line `...` (any lines). A command must exit 0,
//! unless its output shows an `error:` line; then it must fail. `results/NAME/<run-id>`
//! in a command is the newest folder in `results/NAME`.
//!
//! A block marked `<!-- long: why -->` on the line before its fence takes minutes: the
//! suite lists it and skips it, and `scripts/check-docs` (this file's ignored test) runs
//! it with everything else. Pictures a page's commands draw into `docs/` must be the
//! repository's, byte for byte (`TETRIS_LAB_REDRAW=1` copies them there instead), and
//! every picture in `docs/` must be drawn by some block. Links between pages must land.
//! With `TETRIS_LAB_DOCS_ACCEPT=1`, a shown output with no `...` line (but a first one) is
//! rewritten in its page, line for line against the printed output's last lines: each
//! shown line that still matches stays as it is (its `[..]` kept), the others take the
//! printed line; review the diff.

mod common;

use common::copy_tree;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

/// One `$` line of a console block and the output shown under it.
#[derive(Debug, Clone)]
struct Shown {
    page: String,
    line: usize,
    command: String,
    expected: Vec<String>,
    /// Why the block is long (run only by `scripts/check-docs`), if it is.
    long: Option<String>,
    /// The page's line number of the first output line, and the block's indent.
    output_line: usize,
    indent: usize,
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, then the pages of docs/ in name order.
fn pages() -> Vec<PathBuf> {
    let root = repository();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut all = vec![root.join("README.md")];
    all.extend(docs);
    all
}

fn page_name(path: &Path) -> String {
    path.strip_prefix(repository()).unwrap_or(path).display().to_string()
}

/// A fenced block: (info string, first line number, lines, the `long` reason, indent).
type Block = (String, usize, Vec<String>, Option<String>, usize);

/// The fenced blocks of a page.
fn fenced_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        let trimmed = lines[index].trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = lines[index].len() - trimmed.len();
            let long = index
                .checked_sub(1)
                .and_then(|before| lines[before].trim().strip_prefix("<!-- long:"))
                .map(|rest| rest.trim_end_matches("-->").trim().to_string());
            let start = index + 1;
            let mut body = Vec::new();
            index += 1;
            while index < lines.len() && !lines[index].trim_start().starts_with("```") {
                let line = lines[index];
                body.push(if line.len() >= indent && line[..indent].trim().is_empty() {
                    line[indent..].to_string()
                } else {
                    line.trim_start().to_string()
                });
                index += 1;
            }
            blocks.push((info.trim().to_string(), start + 1, body, long, indent));
        }
        index += 1;
    }
    blocks
}

/// Every command a page shows in its console blocks, with its output.
fn shown_commands(path: &Path) -> Vec<Shown> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut shown: Vec<Shown> = Vec::new();
    for (info, first_line, body, long, indent) in fenced_blocks(&text) {
        if info != "console" {
            continue;
        }
        let mut lines = body.iter().enumerate().peekable();
        while let Some((offset, line)) = lines.next() {
            if let Some(command) = line.strip_prefix("$ ") {
                let mut command = command.to_string();
                while command.ends_with('\\') {
                    command.pop();
                    match lines.next() {
                        Some((_, more)) => command.push_str(more.trim_start()),
                        None => break,
                    }
                }
                shown.push(Shown {
                    page: page_name(path),
                    line: first_line + offset,
                    command,
                    expected: Vec::new(),
                    long: long.clone(),
                    output_line: 0,
                    indent,
                });
            } else {
                let Some(last) = shown.last_mut().filter(|s| s.line >= first_line) else {
                    panic!("{}:{}: console block output before any `$ ` command", page_name(path), first_line + offset);
                };
                if last.expected.is_empty() {
                    last.output_line = first_line + offset;
                }
                last.expected.push(line.clone());
            }
        }
    }
    for s in &mut shown {
        while s.expected.last().is_some_and(|l| l.trim().is_empty()) {
            s.expected.pop();
        }
    }
    shown
}

/// Whether one shown line matches one printed line (`[..]`: any text within the line).
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() || !actual.ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the shown lines match the printed ones (a line `...`: any lines, none included).
fn output_matches(expected: &[String], actual: &[&str]) -> bool {
    let (e, a) = (expected.len(), actual.len());
    // reachable[i][j]: expected[i..] can match actual[j..]; filled from the end.
    let mut reachable = vec![vec![false; a + 1]; e + 1];
    reachable[e][a] = true;
    for i in (0..e).rev() {
        for j in (0..=a).rev() {
            reachable[i][j] = if expected[i] == "..." {
                reachable[i + 1][j] || (j < a && reachable[i][j + 1])
            } else {
                j < a && line_matches(expected[i].trim_end(), actual[j]) && reachable[i + 1][j + 1]
            };
        }
    }
    reachable[0][0]
}

/// A sandbox laid out like the repository root, with the binary's folder for the PATH.
fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["data", "experiments", "weights"] {
        copy_tree(&repository().join(folder), &dir.path().join(folder));
    }
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_tetris-lab"));
    (dir, binary.parent().unwrap().to_path_buf())
}

/// The command as the shell runs it: `cargo run --release -- ` as `tetris-lab `, and every
/// `results/NAME/<run-id>` as the newest folder in `results/NAME`.
fn resolved(command: &str, sandbox: &Path) -> String {
    let mut command = match command.strip_prefix("cargo run --release -- ") {
        Some(rest) => format!("tetris-lab {rest}"),
        None => command.to_string(),
    };
    while let Some(at) = command.find("/<run-id>") {
        let start = command[..at].rfind([' ', '=', ':']).map_or(0, |i| i + 1);
        let parent = sandbox.join(&command[start..at]);
        let newest = std::fs::read_dir(&parent)
            .unwrap_or_else(|e| panic!("{command}: no run folder in {}: {e}", parent.display()))
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .max()
            .unwrap_or_else(|| panic!("{command}: no run folder in {}", parent.display()));
        command.replace_range(at + 1..at + "/<run-id>".len(), &newest);
    }
    command
}

/// Runs one command in the sandbox: its merged output and whether it exited 0.
fn run(command: &str, sandbox: &Path, bin: &Path) -> (String, bool) {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut child = Process::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(sandbox)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let deadline = Instant::now() + Duration::from_secs(3600);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{command}: still running after an hour");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let bytes = reader.join().unwrap();
    (String::from_utf8_lossy(&bytes).into_owned(), status.success())
}

/// Runs a page's commands (the long ones too when `with_long`); the failures, one
/// paragraph each.
fn check_page(page: &Path, with_long: bool) -> Vec<String> {
    let (dir, bin) = sandbox();
    let mut failures = Vec::new();
    let accept = std::env::var_os("TETRIS_LAB_DOCS_ACCEPT").is_some();
    let mut rewrites: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for shown in shown_commands(page) {
        if shown.long.is_some() && !with_long {
            continue;
        }
        let command = resolved(&shown.command, dir.path());
        let (output, success) = run(&command, dir.path(), &bin);
        let actual: Vec<&str> = output.lines().map(str::trim_end).collect();
        let mut actual = actual;
        while actual.last().is_some_and(|l| l.is_empty()) {
            actual.pop();
        }
        let wants_error = shown.expected.iter().any(|l| l.starts_with("error:"));
        let matches = shown.expected.is_empty() || output_matches(&shown.expected, &actual);
        // A leading `...` stays, and the lines after it are taken as the printed output's last.
        let skipped = usize::from(shown.expected.first().is_some_and(|l| l == "..."));
        let tail = &shown.expected[skipped..];
        if !matches && accept && tail.len() <= actual.len() && !tail.iter().any(|l| l == "...") {
            let printed = &actual[actual.len() - tail.len()..];
            let merged = tail
                .iter()
                .zip(printed)
                .map(|(e, a)| if line_matches(e.trim_end(), a) { e.clone() } else { a.to_string() })
                .collect();
            rewrites.push((shown.output_line + skipped, shown.indent, merged));
        }
        if !matches || success == wants_error {
            failures.push(format!(
                "{}:{}: `{}` {}\n--- shown\n{}\n--- printed\n{}\n",
                shown.page,
                shown.line,
                shown.command,
                if success == wants_error {
                    if success {
                        "succeeded where an error is shown"
                    } else {
                        "failed"
                    }
                } else {
                    "printed something else"
                },
                shown.expected.join("\n"),
                actual.join("\n")
            ));
        }
    }
    if !rewrites.is_empty() {
        let text = std::fs::read_to_string(page).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        for (first, indent, merged) in rewrites {
            for (i, line) in merged.into_iter().enumerate() {
                lines[first - 1 + i] = if line.is_empty() { line } else { format!("{}{line}", " ".repeat(indent)) };
            }
        }
        std::fs::write(page, lines.join("\n") + "\n").unwrap();
    }
    failures.extend(compare_pictures(dir.path()));
    failures
}

/// The pictures a page drew against the repository's (or copied there to redraw them).
fn compare_pictures(sandbox: &Path) -> Vec<String> {
    let redraw = std::env::var_os("TETRIS_LAB_REDRAW").is_some();
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(sandbox.join("docs")).unwrap() {
        let drawn = entry.unwrap().path();
        let name = drawn.file_name().unwrap().to_string_lossy().into_owned();
        let kept = repository().join("docs").join(&name);
        if redraw {
            std::fs::copy(&drawn, &kept).unwrap();
        } else if !kept.exists() {
            failures.push(format!("docs/{name} is drawn by a page but not in the repository (TETRIS_LAB_REDRAW=1)"));
        } else if std::fs::read(&kept).unwrap() != std::fs::read(&drawn).unwrap() {
            failures.push(format!(
                "docs/{name} is not what its command draws now: redraw it with TETRIS_LAB_REDRAW=1 scripts/check-docs"
            ));
        }
    }
    failures
}

fn check_all(with_long: bool) {
    // `TETRIS_LAB_DOCS_PAGES=README.md,docs/studies.md` checks only those pages.
    let only: Option<Vec<String>> =
        std::env::var("TETRIS_LAB_DOCS_PAGES").ok().map(|list| list.split(',').map(|p| p.trim().to_string()).collect());
    let pages: Vec<PathBuf> =
        pages().into_iter().filter(|p| only.as_ref().is_none_or(|only| only.contains(&page_name(p)))).collect();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = pages.iter().map(|page| scope.spawn(move || check_page(page, with_long))).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} shown outputs differ:\n\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn console_blocks_print_what_they_show() {
    let long: Vec<Shown> = pages().iter().flat_map(|p| shown_commands(p)).filter(|s| s.long.is_some()).collect();
    for shown in &long {
        eprintln!(
            "checked by scripts/check-docs only: {}:{} `{}` ({})",
            shown.page,
            shown.line,
            shown.command,
            shown.long.as_deref().unwrap()
        );
    }
    check_all(false);
}

/// Every block, the long ones included: `scripts/check-docs` (an hour or more).
#[test]
#[ignore]
fn every_console_block_prints_what_it_shows() {
    check_all(true);
}

#[test]
fn every_picture_is_drawn_by_a_shown_command_and_shown() {
    let commands: Vec<String> = pages().iter().flat_map(|p| shown_commands(p)).map(|s| s.command).collect();
    let texts: Vec<String> = pages().iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    for entry in std::fs::read_dir(repository().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            continue;
        }
        let target = format!("docs/{name}");
        assert!(commands.iter().any(|c| c.contains(&target)), "no console block draws {target}");
        assert!(texts.iter().any(|t| t.contains(&name)), "no page shows {target}");
    }
}

/// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn links_between_pages_land() {
    let mut anchors: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let mut in_fence = false;
        let mut found = Vec::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_fence = !in_fence;
            } else if !in_fence && line.starts_with('#') {
                found.push(anchor(line.trim_start_matches('#').replace('`', "").as_str()));
            }
        }
        anchors.insert(page.canonicalize().unwrap(), found);
    }
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if target.starts_with("http") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let resolved = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            let Ok(resolved) = resolved.canonicalize() else {
                broken.push(format!("{}: {target}: no such file", page_name(&page)));
                continue;
            };
            if !fragment.is_empty() {
                match anchors.get(&resolved) {
                    Some(list) if list.iter().any(|a| a == fragment) => {}
                    Some(_) => broken.push(format!("{}: {target}: no such heading", page_name(&page))),
                    None => {
                        broken.push(format!("{}: {target}: a heading in a page that is not checked", page_name(&page)))
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_matcher_matches_what_it_should_and_nothing_else() {
    let lines = |t: &str| t.lines().map(String::from).collect::<Vec<_>>();
    assert!(output_matches(&lines("a\nb [..] d\n...\nz"), &["a", "b c d", "x", "y", "z"]));
    assert!(output_matches(&lines("...\nz"), &["z"]));
    assert!(!output_matches(&lines("a\nb"), &["a", "b", "c"]));
    assert!(!output_matches(&lines("a [..] b"), &["a b"]));
    assert!(line_matches("[..]", ""));
    assert!(line_matches("x[..]y[..]z", "x1y2y3z"));
    assert!(!line_matches("x[..]y[..]z", "x1z"));
    assert!(!output_matches(&lines("mean 2496.9"), &["mean 2616.9"]));
}

#[test]
fn the_readme_is_a_guide_of_at_most_600_lines_without_workshop_words() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    assert!(readme.lines().count() <= 600, "README.md has {} lines", readme.lines().count());
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap().to_lowercase();
        for word in ["moonshot", "the seed's", "seed 001", "the spec ", "issue #"] {
            assert!(!text.contains(word), "{} says {word:?}", page_name(&page));
        }
    }
}
