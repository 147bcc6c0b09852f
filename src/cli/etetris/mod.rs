//! `tetris-lab etetris ...`: the E-Tetris contest game's commands, one file each (solve,
//! replay, sequence, polish, splice, versus, bench), and the flags several of them share
//! (the search's refinements, the weights' jitter, the move set). The work is the
//! library's ([`crate::etetris`]); these files read arguments, call it and print.

use super::Ended;
use crate::etetris::records::bridge::Aim;
use crate::etetris::solver::{MoveSet, Refinements};
use crate::etetris::weights::Weights;
use crate::interrupt::stop_on_ctrl_c;
use anyhow::Result;
use clap::builder::{PossibleValuesParser, TypedValueParser};

pub mod bench;
pub mod polish;
pub mod replay;
pub mod sequence;
pub mod solve;
pub mod splice;
pub mod versus;

#[derive(clap::Args, Debug)]
#[command(arg_required_else_help = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: EtetrisCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum EtetrisCommand {
    /// Solve E-Tetris with the beam search and write the record.
    Solve(solve::Args),
    /// Replay an E-Tetris record and print its pieces and score (--watch draws it).
    Replay(replay::Args),
    /// Print the contest's fixed piece sequence.
    Sequence(sequence::Args),
    /// Improve a record window by window (the second stage of a two-stage search).
    Polish(polish::Args),
    /// Recombine records: the best game through their boards, changing record where two meet.
    Splice(splice::Args),
    /// Compare two searches (weights and refinements) beyond chance, over paired jitters.
    Versus(versus::Args),
    /// Time the beam solver at several beam widths and thread counts.
    Bench(bench::Args),
}

pub fn run(args: Args) -> Result<Ended> {
    // Those with no point to stop at and go on from end at once on Ctrl-C, SIGTERM or
    // SIGHUP; the others stop where the same command can continue ([`install_ctrl_c`]).
    if matches!(args.command, EtetrisCommand::Replay(_) | EtetrisCommand::Sequence(_) | EtetrisCommand::Bench(_)) {
        crate::interrupt::exit_on_ctrl_c("stopped: no output file of this command was written".into());
    }
    match args.command {
        EtetrisCommand::Solve(args) => solve::run(args),
        EtetrisCommand::Replay(args) => replay::run(args).map(|()| Ended::Finished),
        EtetrisCommand::Sequence(args) => sequence::run(args).map(|()| Ended::Finished),
        EtetrisCommand::Polish(args) => polish::run(args),
        EtetrisCommand::Splice(args) => splice::run(args),
        EtetrisCommand::Versus(args) => versus::run(args),
        EtetrisCommand::Bench(args) => bench::run(args).map(|()| Ended::Finished),
    }
}

/// `--moves`: a [`MoveSet`] by its name.
/// The `--weights` help of the commands that search with a weights file: the keys, from
/// [`crate::etetris::weights::TERMS`] (the long help says what each weighs).
fn weights_help() -> String {
    format!(
        "Evaluator weights (TOML: {}) [default: the contest solver's published weights]",
        crate::etetris::weights::keys_summary()
    )
}

fn weights_long_help() -> String {
    format!("{}.\n\n{}", weights_help(), crate::etetris::weights::keys_explained())
}

fn moves_parser() -> impl TypedValueParser<Value = MoveSet> {
    PossibleValuesParser::new(MoveSet::ALL.map(MoveSet::name))
        .map(|name| MoveSet::from_name(&name).expect("one of the names listed"))
}

/// `--aim`: an [`Aim`] by its name.
fn aim_parser() -> impl TypedValueParser<Value = Aim> {
    PossibleValuesParser::new(Aim::ALL.map(Aim::name))
        .map(|name| Aim::from_name(&name).expect("one of the names listed"))
}

/// The flags of [`SearchArgs`] and [`JitterArgs`], which `solve` and `polish` share: with
/// their own settings, what `--resume` reads back, so each conflicts with `--resume`.
const SEARCH_SETTINGS: [&str; 9] = [
    "lookahead",
    "children_per_parent",
    "lookahead_blend",
    "endgame",
    "second_ply",
    "phase_quota",
    "phase_pool",
    "jitter",
    "jitter_percent",
];

/// `own` settings and [`SEARCH_SETTINGS`]: what a `--resume` conflicts with.
fn resume_conflicts(own: &[&'static str]) -> Vec<&'static str> {
    own.iter().chain(&SEARCH_SETTINGS).copied().collect()
}

/// `--jitter SEED [--jitter-percent P]` (shared by `solve`, `polish` and `splice --bridge`).
#[derive(clap::Args, Debug)]
pub struct JitterArgs {
    /// Jitter the weights: every term but cells times 1 + u x JITTER_PERCENT / 100, u
    /// uniform in [-1, 1) drawn from this seed (0: off, the weights as given). Searches
    /// with nearby weights play other games: their spread measures chance.
    #[arg(long, default_value_t = 0)]
    pub jitter: u64,
    /// With --jitter: the largest change of a weight, in percent [default: 1].
    #[arg(long)]
    pub jitter_percent: Option<f64>,
}

impl JitterArgs {
    /// Checks the two flags and jitters `weights` as they say, printing the weights used
    /// on stderr (nothing when `--jitter` is 0).
    pub fn apply(&self, weights: &mut Weights) -> Result<()> {
        crate::etetris::runs::jitter(weights, self.jitter, self.jitter_percent)
    }
}

/// The opt-in refinements of the search (`solve`, `polish`, `splice --bridge` and each
/// side of `versus`): the command line's form of [`Refinements`], converted by
/// [`SearchArgs::refinements`] alone.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// Rank the best-valued LOOKAHEAD x beam new boards by their best placement of the
    /// next piece before the cut (0: off, the contest solver's cut).
    #[arg(long, default_value_t = 0)]
    pub lookahead: usize,
    /// Keep at most this many boards grown from one parent, then fill the beam in key
    /// order (0: off, the contest solver's cut).
    #[arg(long, default_value_t = 0)]
    pub children_per_parent: usize,
    /// With --lookahead: rank the pool by (100 - P)% of the lookahead value plus P% of
    /// the board's own value (0: off, the lookahead value alone).
    #[arg(long, default_value_t = 0)]
    pub lookahead_blend: u32,
    /// Over the last N pieces, weigh the board less against the score, down to
    /// 1 / (N + 1) of its weight at the last piece (0: off, the same weights throughout).
    #[arg(long, default_value_t = 0)]
    pub endgame: usize,
    /// With --lookahead: follow each pooled board's best N placements of the next piece
    /// with the piece after, and rank the board by the best value two pieces on (0: off).
    #[arg(long, default_value_t = 0)]
    pub second_ply: usize,
    /// Keep at most this percentage of the beam from boards of one phase (the same cell
    /// count: the same rows cleared so far), then fill the beam in key order (0: off).
    #[arg(long, default_value_t = 0)]
    pub phase_quota: u32,
    /// With --phase-quota: the cut chooses from the best-valued PHASE_POOL x beam new boards
    /// [default: 2].
    #[arg(long, value_parser = positive_count)]
    pub phase_pool: Option<usize>,
}

/// A count of 1 or more (`--phase-pool 0` would name no pool: leave the flag out for the
/// default).
fn positive_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave the flag out for the default, 2)".into()),
        Ok(count) => Ok(count),
        Err(e) => Err(e.to_string()),
    }
}

impl SearchArgs {
    /// The refinements, checked (each named by its flag).
    pub fn refinements(&self) -> Result<Refinements> {
        let refinements = Refinements {
            lookahead: self.lookahead,
            children_per_parent: self.children_per_parent,
            lookahead_blend: self.lookahead_blend,
            endgame: self.endgame,
            second_ply: self.second_ply,
            phase_quota: self.phase_quota,
            phase_pool: self.phase_pool.unwrap_or(0),
        };
        refinements.check(|field| format!("--{}", field.replace('_', "-")))?;
        Ok(refinements)
    }
}

/// Makes Ctrl-C set [`crate::interrupt::stop_flag`]: `solve` then saves its state after the
/// piece being placed, `polish` stops after the window being searched, `splice` after the
/// jump being searched, `versus` saves its searches in progress, and each returns
/// [`Ended::Interrupted`] ready to continue. A second Ctrl-C exits at once, the last saved
/// files kept.
fn install_ctrl_c() {
    stop_on_ctrl_c(
        "Ctrl-C: stopping where the same command can continue (press again to exit at once)",
        Some("second Ctrl-C: exiting now (what was last saved stays)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that every flag of `command` but the `allowed` ones conflicts with
    /// `--resume` (`conflicts`): a flag added that `--resume` reads back and does not refuse
    /// would be silently ignored by a resume.
    pub(super) fn assert_resume_refuses_all(command: clap::Command, allowed: &[&str], conflicts: &[&str]) {
        for argument in command.get_arguments() {
            let id = argument.get_id().as_str();
            assert!(allowed.contains(&id) || conflicts.contains(&id), "--resume does not refuse {id}");
        }
    }

    #[test]
    fn every_refinement_has_its_flag() {
        // `SearchArgs` repeats the refinements' fields as flags: a refinement added to one
        // and not the other fails.
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            search: SearchArgs,
        }
        let fields: Vec<(&str, u64)> = Refinements::default().named().iter().map(|(name, _)| *name).zip(2..).collect();
        let mut arguments = vec!["search".to_string()];
        for (name, value) in &fields {
            arguments.push(format!("--{}", name.replace('_', "-")));
            arguments.push(value.to_string());
        }
        let parsed = <Wrapper as clap::Parser>::try_parse_from(&arguments).unwrap_or_else(|e| panic!("{e}"));
        let carried = serde_json::to_value(parsed.search.refinements().unwrap()).unwrap();
        assert_eq!(carried.as_object().unwrap().len(), fields.len(), "named() lists every field");
        for (name, value) in &fields {
            assert_eq!(carried[name], *value, "{name}");
        }
    }

    #[test]
    fn the_move_sets_and_aims_parse_by_name() {
        for moves in MoveSet::ALL {
            assert_eq!(moves_parser().parse_ref(&clap::Command::new("t"), None, moves.name().as_ref()).unwrap(), moves);
        }
        for aim in Aim::ALL {
            assert_eq!(aim_parser().parse_ref(&clap::Command::new("t"), None, aim.name().as_ref()).unwrap(), aim);
        }
    }
}
