//! `tetris-lab list`: every rule set, feature, preset and policy with one line each.

use anyhow::Result;
use std::io::Write;

pub fn run() -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "Rule sets:")?;
    for r in crate::rules::REGISTRY {
        writeln!(out, "  {:<26} {}", r.name, r.summary)?;
    }
    writeln!(out, "\nFeatures:")?;
    for f in crate::features::REGISTRY {
        writeln!(out, "  {:<26} {}", f.name, f.summary)?;
    }
    writeln!(out, "\nPresets:")?;
    for p in crate::presets::REGISTRY {
        writeln!(
            out,
            "  {:<26} {} [rules {}, policy {}]",
            p.name,
            p.summary,
            p.rule_set,
            crate::policy::kind_name(p.policy)
        )?;
    }
    let (name, summary) = (
        crate::presets::ETETRIS,
        "the E-Tetris contest evaluator with the contest solver's beam search over the known 10,000-piece sequence",
    );
    writeln!(
        out,
        "  {name:<26} {summary} [rules etetris, `tetris-lab etetris solve`; tuned by experiments with an [{name}] table, \
         weights {}]",
        crate::tune::etetris_objective::weight_names().join(", ")
    )?;
    writeln!(out, "\nPolicies:")?;
    for (name, _, summary) in crate::policy::REGISTRY {
        writeln!(out, "  {:<26} {}", name, summary)?;
    }
    writeln!(out, "\nLearners (`tetris-lab learn`):")?;
    for l in crate::learn::REGISTRY {
        writeln!(out, "  {:<26} {} [{}]", l.name, l.summary, l.source)?;
    }
    Ok(())
}
