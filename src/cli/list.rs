//! `tetris-lab list`: every rule set, feature, preset and policy with one line each.

use anyhow::Result;

pub fn run() -> Result<()> {
    println!("Rule sets:");
    for r in crate::rules::REGISTRY {
        println!("  {:<26} {}", r.name, r.summary);
    }
    println!("\nFeatures:");
    for f in crate::features::REGISTRY {
        println!("  {:<26} {}", f.name, f.summary);
    }
    println!("\nPresets:");
    for p in crate::eval::presets::REGISTRY {
        println!(
            "  {:<26} {} [rules {}, policy {}]",
            p.name,
            p.summary,
            p.rule_set,
            crate::policy::kind_name(p.policy)
        );
    }
    println!("\nPolicies:");
    for (name, _, summary) in crate::policy::REGISTRY {
        println!("  {:<26} {}", name, summary);
    }
    Ok(())
}
