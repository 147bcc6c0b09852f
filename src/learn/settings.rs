//! A learning experiment file (TOML): which learner, on which board, for how many
//! iterations, how each iteration's policy is scored, and the learner's own `[options]`
//! (read by the learner's file). Checked whole before the first sample.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The most iterations a run may ask for (each iteration is at least one game).
pub const MAX_ITERATIONS: u64 = 100_000;
/// The most games that score a policy.
pub const MAX_GAMES: u64 = 1_000_000;

/// A published point of a learning curve, drawn beside the measured ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// Samples (calls of the game model) at that point; none where the paper does not
    /// say (the level is then drawn as a line across).
    pub samples: Option<f64>,
    /// Mean rows per game there.
    pub rows: f64,
    /// Where it is published ("JMLR15 Fig. 8d").
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// One line: what the experiment reproduces.
    #[serde(default)]
    pub description: String,
    /// How long it takes here, and on what.
    #[serde(default)]
    pub expected_time: String,
    /// A learner of [`super::REGISTRY`].
    pub learner: String,
    /// A research rule set (uniform pieces, no preview), default `simplified`.
    #[serde(default = "default_rules")]
    pub rules: String,
    /// `WxH`, default 10x10.
    #[serde(default = "default_board")]
    pub board: String,
    /// The master seed: the run is a function of it.
    pub seed: u64,
    pub iterations: u64,
    /// Games that score each iteration's policy (the same games every iteration).
    #[serde(default = "default_evaluation_games")]
    pub evaluation_games: u64,
    /// Unseen games that score the final policy.
    #[serde(default = "default_held_out_games")]
    pub held_out_games: u64,
    /// A piece cap for the scoring games (none by default).
    pub max_pieces: Option<u64>,
    /// Repetitions of a study, unless `--runs` says.
    pub runs: Option<u64>,
    /// The published points of the curve.
    #[serde(default)]
    pub published: Vec<Published>,
    /// The learner's own settings.
    #[serde(default)]
    pub options: toml::Table,
}

fn default_rules() -> String {
    crate::rules::RESEARCH.into()
}
fn default_board() -> String {
    "10x10".into()
}
fn default_evaluation_games() -> u64 {
    200
}
fn default_held_out_games() -> u64 {
    1000
}

impl Settings {
    /// Reads and checks an experiment file; errors name the file.
    pub fn load(path: &Path) -> Result<Settings> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        Settings::parse(&text).with_context(|| format!("{}", path.display()))
    }

    /// Parses and checks an experiment's text.
    pub fn parse(text: &str) -> Result<Settings> {
        let settings: Settings = toml::from_str(text).map_err(|e| crate::names::explain_toml_error(text, &e))?;
        settings.check()?;
        Ok(settings)
    }

    /// The board's width and height.
    pub fn size(&self) -> Result<(usize, usize)> {
        let size = crate::board::parse_size(&self.board).map_err(|e| anyhow::anyhow!("board: {e}"))?;
        crate::board::Board::check_size(size.0, size.1).context("board")?;
        Ok(size)
    }

    /// The game the learner plays.
    pub fn world(&self) -> Result<super::World> {
        let rules = crate::rules::build(&self.rules, Some(self.size()?)).context("rules")?;
        super::World::new(rules).context("rules")
    }

    /// Checks every field, and the learner's options by building its first state.
    pub fn check(&self) -> Result<()> {
        let entry = super::find(&self.learner).context("learner")?;
        self.world()?;
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            bail!("iterations must be 1 to {MAX_ITERATIONS}, found {}", self.iterations);
        }
        for (field, games) in [("evaluation_games", self.evaluation_games), ("held_out_games", self.held_out_games)] {
            if !(1..=MAX_GAMES).contains(&games) {
                bail!("{field} must be 1 to {MAX_GAMES}, found {games}");
            }
        }
        if self.max_pieces == Some(0) {
            bail!("max_pieces must be at least 1");
        }
        if let Some(runs) = self.runs {
            crate::tune::experiment::check_runs(runs).context("runs")?;
        }
        for point in &self.published {
            let samples = point.samples.unwrap_or(0.0);
            if !(samples >= 0.0 && point.rows >= 0.0 && samples.is_finite() && point.rows.is_finite()) {
                bail!("published: samples and rows must be finite and at least 0 ({})", point.source);
            }
        }
        (entry.check)(self).with_context(|| format!("options of learner {}", self.learner))
    }

    /// The learner's `[options]` as its own type (unknown keys refused).
    pub fn options<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        T::deserialize(toml::Value::Table(self.options.clone())).map_err(|e| anyhow::anyhow!("{}", e.message().trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "learner = \"lambda-pi\"\nseed = 1\niterations = 3\n";

    #[test]
    fn a_file_is_checked_whole() {
        let settings = Settings::parse(GOOD).unwrap();
        assert_eq!((settings.size().unwrap(), settings.evaluation_games), ((10, 10), 200));
        let error = |text: &str| format!("{:#}", Settings::parse(text).unwrap_err());
        assert!(error(&GOOD.replace("lambda-pi", "lambda-po")).contains("did you mean"));
        assert!(error(&format!("{GOOD}boards = \"10x10\"")).contains("unknown field `boards`"));
        assert!(error(&GOOD.replace("= 3", "= 0")).contains("iterations must be 1"));
        assert!(error(&format!("{GOOD}board = \"10x99\"")).contains("board"));
        assert!(error(&format!("{GOOD}[options]\nlambdda = 0.5")).contains("unknown field `lambdda`"));
        assert!(error(&format!("{GOOD}rules = \"simplifed\"")).contains("did you mean"));
        assert!(error(&format!("{GOOD}rules = \"guideline\"\nboard = \"10x40\""))
            .contains("rules: learners play the research game"));
        let rules = Settings::parse(&format!("{GOOD}rules = \"simplified-lines-after-overflow\""));
        assert_eq!(rules.unwrap().world().unwrap().rules.name(), "simplified-lines-after-overflow");
    }
}
