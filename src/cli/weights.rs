//! `tetris-lab weights PRESET`: a preset's published weights as a weights file, to edit and
//! play (`play --weights`), or to start an experiment's `[weights]` from.

use anyhow::Result;
use clap::Args as ClapArgs;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// A preset of `tetris-lab list` (or `etetris`, the contest evaluator).
    pub preset: String,
}

pub fn run(args: Args) -> Result<()> {
    print!("{}", weights_file(&args.preset)?);
    Ok(())
}

/// The text of the weights file: comments saying what it is and how to use it, then the
/// weights in the form `play --weights` (or `solve --weights`) reads.
pub fn weights_file(preset: &str) -> Result<String> {
    if preset == crate::presets::ETETRIS {
        let weights = crate::etetris::weights::Weights::default();
        return Ok(format!(
            "# The E-Tetris contest solver's published weights (the beam keeps the boards with the\n\
             # smallest key; see docs/etetris.md). Search with them: tetris-lab etetris solve --weights FILE\n{}",
            weights.to_toml()
        ));
    }
    let found = crate::presets::find(preset)?;
    let evaluator = found.evaluator()?;
    let mut text = format!(
        "# Published weights of preset {preset}: {}.\n\
         # Play them: tetris-lab play --preset {preset} --weights FILE (every feature of the preset, no other).\n\
         preset = \"{preset}\"\n\n[weights]\n",
        found.summary
    );
    for (name, weight) in evaluator.feature_names().iter().zip(evaluator.weights()) {
        text += &format!("{name} = {weight:?}\n");
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_presets_file_reads_back_to_its_weights() {
        for preset in crate::presets::REGISTRY {
            let text = weights_file(preset.name).unwrap();
            let evaluator = preset.evaluator().unwrap();
            let read =
                crate::eval::parse_weights(&text, &evaluator.feature_names(), |name| preset.check_weights_preset(name))
                    .unwrap_or_else(|e| panic!("{}: {e:#}", preset.name));
            assert_eq!(read, evaluator.weights(), "{}", preset.name);
        }
        let text = weights_file("etetris").unwrap();
        let read = crate::etetris::weights::Weights::from_toml(&text).unwrap();
        assert_eq!(read, crate::etetris::weights::Weights::default());
        assert!(weights_file("bctss").unwrap_err().to_string().contains("did you mean \"bcts\""));
    }
}
