//! Every experiment file shipped in `experiments/` validates, those of `experiments/learn/`
//! as learning experiments (a typo in a shipped file would otherwise surface only when
//! someone runs it).

use std::path::{Path, PathBuf};
use tetris_lab::tune::experiment::Experiment;

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            toml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_shipped_experiment_validates() {
    let mut files = Vec::new();
    toml_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments"), &mut files);
    files.sort();
    let mut valid = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("expected_time"), "{} does not state its expected time", path.display());
        // Learning experiments are `learn`'s (checked by tests/learn_cli.rs).
        if path.ancestors().any(|p| p.ends_with("experiments/learn")) {
            tetris_lab::learn::Settings::parse(&text).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            continue;
        }
        let experiment = Experiment::load(path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        // An [etetris] table is what makes an experiment tune E-Tetris: the shipped ones
        // name no preset.
        if experiment.file.etetris.is_some() {
            assert_eq!(experiment.file.preset, None, "{}: [etetris] needs no preset", path.display());
        }
        valid += 1;
    }
    // quickstart, five published campaigns (two cross-entropy, one E-Tetris), the six
    // compared, and the cluster throughput.
    assert!(valid >= 14, "only {valid} experiment files found");
    Experiment::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/quickstart.toml")).unwrap();
}
