//! A comparison's outputs: the text report, every pair as CSV, the manifest's fields.

use super::{Ending, Mode, Outcome, Setup, Sides};
use crate::report::paired::{Decision, Estimate};
use crate::support::atomic_file::AtomicFile;
use crate::support::stats::Summary;
use crate::support::text::group;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// `writeln!` into a String, which cannot fail.
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The mode in words, for the header line and the manifest.
pub fn describe_mode(setup: &Setup) -> String {
    match setup.mode {
        Mode::Fixed { pairs } => format!("{} pairs", group(pairs as f64, 0)),
        Mode::Sequential { test, max_pairs } => format!(
            "sequential: B at least {}% better (alpha {}) against no better (beta {}), at most {} pairs",
            test.gain * 100.0,
            test.alpha,
            test.beta,
            group(max_pairs as f64, 0)
        ),
    }
}

/// What a finished comparison says, as `compare` prints it: pairs, both means, the ratio and
/// the difference with their intervals, and the test's verdict.
pub fn report(setup: &Setup, sides: &Sides, outcome: &Outcome) -> String {
    let mut out = String::new();
    let fitness = setup.fitness.as_str();
    let quantity = setup.fitness.quantity(sides.a.rules.frame_rules().is_none());
    let values = |b_side: bool| {
        outcome.pairs.iter().map(|p| setup.fitness.of(if b_side { &p.b } else { &p.a })).collect::<Vec<f64>>()
    };
    let e = Estimate::of(&outcome.sums);
    let correlation = outcome.sums.correlation();
    outln!(
        out,
        "pairs      {} ({} games, {} pieces)  correlation of A's and B's games {}",
        group(e.pairs as f64, 0),
        group(2.0 * e.pairs as f64, 0),
        group(outcome.pieces() as f64, 0),
        if correlation.is_nan() { "n/a".to_string() } else { format!("{correlation:.2}") }
    );
    for (name, b_side) in [("A", false), ("B", true)] {
        let s = Summary::of(&values(b_side), quantity);
        outln!(
            out,
            "{name}          mean {:.1} {fitness}  95% interval [{:.1}, {:.1}] ({})",
            s.mean,
            s.low_95,
            s.high_95,
            quantity.interval_method()
        );
    }
    outln!(out, "B / A      {:.3}  95% interval [{:.3}, {:.3}] (delta method, t)", e.ratio, e.ratio_low, e.ratio_high);
    outln!(
        out,
        "B - A      mean {:+.1} {fitness}  95% interval [{:+.1}, {:+.1}] (t)  paired t-test p {}",
        e.difference,
        e.difference_low,
        e.difference_high,
        p_text(e.p_value)
    );
    let Mode::Sequential { test, max_pairs } = setup.mode else {
        return out;
    };
    let (low, high) = test.bounds();
    let llr = outcome.llr.last().copied().unwrap_or(0.0);
    let gain = test.gain * 100.0;
    match outcome.ending {
        Ending::Decided(Decision::Better) => outln!(
            out,
            "test       B is at least {gain}% better: LLR {} reached the upper bound {high:.2} after {} pairs \
             (chance of this when B is no better: alpha {})",
            llr_text(llr),
            group(e.pairs as f64, 0),
            test.alpha
        ),
        Ending::Decided(Decision::NoBetter) => outln!(
            out,
            "test       B is no better: LLR {} reached the lower bound {low:.2} after {} pairs \
             (chance of this when B is {gain}% better: beta {})",
            llr_text(llr),
            group(e.pairs as f64, 0),
            test.beta
        ),
        _ => outln!(
            out,
            "test       undecided after {} pairs (the budget, --max-pairs): LLR {} between {low:.2} and {high:.2}",
            group(max_pairs as f64, 0),
            llr_text(llr)
        ),
    }
    let fixed = test.fixed_size_pairs(&outcome.sums);
    if fixed.is_finite() {
        outln!(
            out,
            "           a fixed-size test with the same error rates needs about {} pairs at this spread",
            group(fixed, 0)
        );
    }
    out
}

/// `= 0.0123`, `< 0.0001` or `n/a` (after "p").
fn p_text(p: f64) -> String {
    if p.is_nan() {
        "n/a".into()
    } else if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("= {p:.4}")
    }
}

fn llr_text(llr: f64) -> String {
    if llr.is_infinite() {
        if llr > 0.0 { "+inf (every pair differs alike)" } else { "-inf (every pair alike)" }.into()
    } else {
        format!("{llr:.2}")
    }
}

/// Every pair in order: its seeds, both games' values, the difference, the test statistic.
pub fn write_pairs(path: &Path, setup: &Setup, sides: &Sides, outcome: &Outcome) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    let w = file.writer();
    let context = || format!("cannot write {}", path.display());
    writeln!(w, "pair,seed_a,seed_b,a,b,difference,llr").with_context(context)?;
    for (i, pair) in outcome.pairs.iter().enumerate() {
        let (seed_a, seed_b) = super::pair_seeds(setup, sides, i as u64);
        let (a, b) = (setup.fitness.of(&pair.a), setup.fitness.of(&pair.b));
        let llr = outcome.llr.get(i).map(|x| x.to_string()).unwrap_or_default();
        writeln!(w, "{i},{seed_a},{seed_b},{a},{b},{},{llr}", b - a).with_context(context)?;
    }
    file.commit()
}

/// The manifest's fields of a finished comparison: its estimate and result.
pub fn result_fields(outcome: &Outcome, seconds: f64) -> serde_json::Value {
    let e = Estimate::of(&outcome.sums);
    let ending = match outcome.ending {
        Ending::Fixed => "fixed",
        Ending::Decided(d) => d.as_str(),
        Ending::Budget => "undecided",
    };
    serde_json::json!({
        "pairs": e.pairs,
        "correlation": outcome.sums.correlation(),
        "pieces": outcome.pieces(),
        "mean_a": e.mean_a,
        "mean_b": e.mean_b,
        "ratio": [e.ratio, e.ratio_low, e.ratio_high],
        "difference": [e.difference, e.difference_low, e.difference_high],
        "p_value": e.p_value,
        "result": ending,
        "seconds": seconds,
    })
}

/// The manifest's fields that say what is compared.
pub fn setup_fields(setup: &Setup, sides: &Sides) -> serde_json::Value {
    let rules = sides.a.rules.as_ref();
    serde_json::json!({
        "master_seed": setup.seed,
        "a": setup.a.describe(),
        "b": setup.b.describe(),
        "rule_set": rules.name(),
        "rule_set_version": rules.version(),
        "rules": rules.describe(),
        "fitness": setup.fitness.as_str(),
        "mode": describe_mode(setup),
    })
}
