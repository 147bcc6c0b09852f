//! Records the commit the binary is built from, with `-dirty` when tracked files differ
//! from it, so that every run's manifest names the code that produced it (read at run
//! time, git would describe whatever folder the binary happens to run in).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    // Rebuild the stamp when the commit, the index or any source changes.
    // Only this crate is built again when the stamp changes; the others' sources count too.
    for path in ["src", "crates", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        for path in ["HEAD", "index", "refs", "packed-refs"] {
            println!("cargo:rerun-if-changed={git_dir}/{path}");
        }
    }
    let hash = match git(&["rev-parse", "HEAD"]) {
        Some(hash) if !hash.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_none_or(|s| !s.is_empty());
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=TETRIS_LAB_GIT_HASH={hash}");
}
