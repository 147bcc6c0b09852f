//! Every command the README shows runs as written, from a folder laid out like the
//! repository root (a copy of `data/`, `experiments/` and `weights/`, nothing beside it). Commands
//! that take minutes run with a smaller budget, and the few that cannot run here (MPI,
//! usage templates, hour-long campaigns) are listed with the reason. A README command that
//! this file does not list fails the test, and so does a listed command the README no
//! longer shows: the two cannot drift apart.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Why the splices of the repository's earlier records are not run here.
const HISTORY: &str =
    "its records come from the repository's history (`git show`), which the test's copy does not hold; \
                       tests/weights.rs replays the record they make";

/// Why the rounds of bridges over the fifteen more records are not run here.
const MORE_RECORDS: &str = "besides the history's records it splices games of searches and polish passes the README \
                            shows before it (hours of CPU) and of earlier rounds; tests/weights.rs replays the record \
                            they make";

/// Why the rounds of "Detours and chained bridges" are not run here.
const LANDS_ON_HISTORY: &str = "its bridges land on the history's sixteen records (`git show`), which the test's copy \
                                does not hold; tests/weights.rs replays the record the rounds make";

/// What to do with one README command.
enum Action {
    /// Run it as written.
    Run,
    /// Run these arguments instead (a smaller budget, or a placeholder filled in).
    RunAs(&'static str),
    /// Not run here, for this reason.
    Skip(&'static str),
}
use Action::{Run, RunAs, Skip};

/// Every command of the README (after `tetris-lab`, `cargo run --release --` or
/// `target/release/tetris-lab`; comments and extra spaces removed), in any order. They run
/// in the README's order. `<run-id>` is the quick start's run folder.
/// The README's `B`: the four earlier beam-10,000 records of `data/etetris/` that the
/// bridges of "Bridges all along the game" may land on, as the shell expands `$B`.
macro_rules! landing_records {
    () => {
        "data/etetris/k10000-1426884.txt data/etetris/k10000-1427634.txt data/etetris/k10000-1428598.txt data/etetris/k10000-1428858.txt"
    };
}

const CASES: &[(&str, Action)] = &[
    // Quick start and the subcommands.
    ("tune", Run),
    ("play --preset bcts --board 10x10 --games 200", RunAs("play --preset bcts --board 10x10 --games 20")),
    (
        "play --preset dellacherie-simplified --board 10x10 --weights results/quickstart/<run-id>/best.toml",
        RunAs("play --preset dellacherie-simplified --board 10x10 --weights results/quickstart/<run-id>/best.toml --games 20"),
    ),
    ("play --preset P [--games N] [--seed S] [--board WxH] [--max-pieces M]", Skip("usage template")),
    ("play --preset dellacherie-simplified --board 10x10 --games 200 --threads 2", Run),
    ("list", Run),
    ("features --preset bcts data/boards.txt", Run),
    ("best --preset dellacherie-simplified --piece I data/boards.txt", Run),
    // Watching games.
    ("watch --preset P [--weights FILE] [--rules NAME] [--board WxH] [--seed S] [--game I]", Skip("usage template")),
    ("watch --replay FILE", Skip("usage template")),
    ("replay RECORD --watch", Skip("usage template")),
    ("watch --preset bcts --seed 1", RunAs("watch --preset bcts --seed 1 --max-pieces 30 --delay-ms 0")),
    (
        "watch --preset dellacherie-simplified --board 10x10 --weights results/quickstart/<run-id>/best.toml --game 3",
        RunAs("watch --preset dellacherie-simplified --board 10x10 --weights results/quickstart/<run-id>/best.toml --game 3 --max-pieces 300 --delay-ms 0"),
    ),
    ("play --preset bcts --board 10x10 --games 10 --seed 3 --trace game.trace --game 2", Run),
    ("watch --replay game.trace --delay-ms 0", Run),
    (
        "replay weights/etetris-best-record.txt --watch",
        RunAs("replay weights/etetris-best-record.txt --watch --delay-ms 0 --max-pieces 30"),
    ),
    (
        "watch --preset bcts --seed 1 --max-pieces 80 --delay-ms 0 --gif docs/watch-bcts.gif",
        RunAs("watch --preset bcts --seed 1 --max-pieces 80 --delay-ms 0 --gif watch-bcts.gif"),
    ),
    (
        "replay weights/etetris-best-record.txt --max-pieces 80 --gif docs/watch-etetris.gif",
        RunAs("replay weights/etetris-best-record.txt --max-pieces 80 --gif watch-etetris.gif"),
    ),
    // E-Tetris.
    ("sequence etetris -n 3", Run),
    ("replay data/etetris/published_1378178.txt", Run),
    ("replay data/etetris/k30000-1427648.txt --breakdown", Run),
    ("replay data/etetris/published_1378178.txt --breakdown", Run),
    ("replay data/etetris/k10000-1427634.txt --breakdown", Run),
    ("solve --beam 15 --pieces 400 --record weak.txt", Run),
    ("polish weak.txt --moves full --beam 50 --window 60 --stride 30 --record part.txt --max-windows 4", Run),
    ("polish --resume part.txt", Run),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --record spliced.txt",
        Run,
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --moves full \
         --weights weights/etetris-full.toml --record bridged.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 100 --moves full \
             --weights weights/etetris-full.toml --record bridged.txt",
        ),
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --every 80 --moves full \
         --weights weights/etetris-full.toml --record every.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 50 --every 2000 --moves full \
             --weights weights/etetris-full.toml --record every.txt",
        ),
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --detours 10 --chain \
         --moves full --weights weights/etetris-full.toml --record detours.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 50 --detours 500 --chain \
             --moves full --weights weights/etetris-full.toml --record detours.txt",
        ),
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --detours 10 --chain \
         --aim game --moves full --weights weights/etetris-full.toml --record aimed.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 50 --detours 500 --chain \
             --aim game --moves full --weights weights/etetris-full.toml --record aimed.txt",
        ),
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --detours 10 --lead 30 \
         --chain --aim game --moves full --weights weights/etetris-full.toml --record led.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 50 --detours 500 --lead 30 \
             --chain --aim game --moves full --weights weights/etetris-full.toml --record led.txt",
        ),
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --carry --guide 3 \
         --lookahead 2 --phase-quota 50 --moves full --weights weights/etetris-full.toml --record carried.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 20 --carry --guide 3 \
             --phase-quota 50 --moves full --weights weights/etetris-full.toml --record carried.txt",
        ),
    ),
    (
        "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 1000 --carry --within 2000..4000 \
         --guide 3 --lookahead 2 --phase-quota 50 --moves full --weights weights/etetris-full.toml --record region.txt",
        RunAs(
            "splice data/etetris/k10000-1427634.txt data/etetris/k10000-1426884.txt --bridge --beam 20 --carry --within 2000..4000 \
             --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full.toml --record region.txt",
        ),
    ),
    ("solve --moves full --beam 300 --pieces 2000 --record r.txt --stop-after 800", Run),
    ("solve --resume r.txt.checkpoint", Run),
    (
        "sequence etetris -n 10000 | awk '$1 == \"I\" { if (p) { n++; a += NR - p == 1; b += NR - p <= 4 } p = NR } END { print n, a, b }'",
        Skip("a pipe into awk: its count is checked by tests/weights.rs"),
    ),
    ("solve --beam 1000 --record k1000.txt", RunAs("solve --beam 1000 --record k1000.txt --pieces 800")),
    ("replay k1000.txt", Run),
    ("solve --moves full --beam 300", RunAs("solve --moves full --beam 300 --pieces 400")),
    (
        "bench etetris --beams 100,300,1000 --threads 1,2",
        RunAs("bench etetris --beams 100,300 --threads 1,2 --pieces 200"),
    ),
    ("bench etetris", RunAs("bench etetris --beams 30 --threads 1 --pieces 200")),
    ("bench etetris --beams 100,300,1000,3000", RunAs("bench etetris --beams 100 --threads 1 --pieces 200")),
    ("versus A B", Skip("usage template")),
    (
        "versus weights/etetris-full.toml weights/etetris-full-overflow.toml --moves full --beam 1000",
        RunAs("versus weights/etetris-full.toml weights/etetris-full-overflow.toml --moves full --beam 30 --pieces 300 --jitters 2"),
    ),
    (
        "versus weights/etetris-full.toml \"weights/etetris-full.toml --phase-quota 50\" --moves full --beam 3000",
        RunAs("versus weights/etetris-full.toml \"weights/etetris-full.toml --phase-quota 50\" --moves full --beam 30 --pieces 300 --jitters 2"),
    ),
    ("solve --beam 1000 --threads 1", RunAs("solve --beam 30 --threads 1 --pieces 200")),
    ("solve --moves full --beam K --threads 2", RunAs("solve --moves full --beam 50 --threads 2 --pieces 200")),
    ("bench simulator", RunAs("bench simulator --seconds 0.05 --games 4 --max-pieces 500")),
    // The guideline game.
    (
        "play --preset pygame-lee --games 20 --seed 1 --csv pygame-lee.csv",
        RunAs("play --preset pygame-lee --games 2 --seed 1 --csv pygame-lee.csv --max-pieces 40"),
    ),
    ("watch --preset pygame-lee --seed 7 --level 15", RunAs("watch --preset pygame-lee --seed 7 --level 15 --max-pieces 20 --delay-ms 0")),
    ("watch --preset pygame-lee --seed 1 --level 18 --max-pieces 60 --delay-ms 0 --frames game.frames", Run),
    ("watch --replay game.frames --delay-ms 20", RunAs("watch --replay game.frames --delay-ms 0")),
    ("best --preset pygame-lee --piece I --preview O data/boards.txt", Run),
    (
        "play --preset pygame-lee --games 20 --seed 1 --threads 2 --csv pygame-lee-20.csv",
        RunAs("play --preset pygame-lee --games 2 --seed 1 --threads 2 --csv pygame-lee-20.csv --max-pieces 40"),
    ),
    (
        "play --preset pygame-lee-gravity-first --games 20 --seed 1 --threads 2 --csv gravity-first-20.csv",
        RunAs("play --preset pygame-lee-gravity-first --games 2 --seed 1 --threads 2 --csv gravity-first-20.csv --max-pieces 40"),
    ),
    ("tune experiments/cross-entropy-pygame-lee.toml", Skip("about a minute; tests/experiments.rs checks the file")),
    // Tuning.
    ("tune experiments/pso-el-tetris.toml", Skip("up to half an hour; tests/experiments.rs checks the file")),
    (
        "tune experiments/compare/*.toml",
        RunAs("tune experiments/compare/random.toml experiments/compare/cross-entropy.toml"),
    ),
    ("tune --resume results/quickstart/<run-id>", Run),
    ("plot results/compare-*/* --out compare.png", Run),
    ("play --preset P --weights best.toml", RunAs("play --preset dellacherie-simplified --board 10x10 --weights results/quickstart/<run-id>/best.toml --games 20")),
    ("solve --weights best.toml", Skip("needs an E-Tetris campaign's best.toml (minutes); tests/tune.rs plays one")),
    ("solve --beam K --weights FILE", Skip("usage template")),
    ("solve --beam 1000 --weights best.toml", Skip("needs an E-Tetris campaign's best.toml (minutes); tests/tune.rs plays one")),
    ("tune experiments/etetris-nelder-mead.toml", Skip("9 minutes; tests/experiments.rs checks the file")),
    ("tune experiments/etetris-cmaes.toml", Skip("5 minutes; tests/experiments.rs checks the file")),
    (
        "solve --moves full --beam 3000 --weights weights/etetris-full.toml",
        RunAs("solve --moves full --beam 30 --weights weights/etetris-full.toml --pieces 300"),
    ),
    ("replay weights/etetris-best-record.txt", Run),
    (
        "solve --moves full --beam 1000 --threads 1 --weights weights/etetris-full.toml --jitter 1",
        RunAs("solve --moves full --beam 30 --threads 1 --weights weights/etetris-full.toml --jitter 1 --pieces 300"),
    ),
    (
        "solve --moves full --beam 3000 --weights weights/etetris-full.toml --lookahead 2",
        RunAs("solve --moves full --beam 30 --weights weights/etetris-full.toml --lookahead 2 --pieces 300"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --endgame 25",
        RunAs("solve --moves full --beam 30 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --pieces 300"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
             --pieces 300",
        ),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
         --phase-quota 20",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
             --phase-quota 20 --pieces 300",
        ),
    ),
    (
        "polish results/etetris-full-k10000.txt --moves full --beam 10000 --weights weights/etetris-full.toml \
         --window 100 --guide 10 --record pass1.txt",
        // The README's input is the record's first stage (16 minutes of `solve` above); the shipped record stands in.
        RunAs(
            "polish weights/etetris-best-record.txt --moves full --beam 10 --weights weights/etetris-full.toml \
             --window 100 --guide 10 --record pass1.txt",
        ),
    ),
    (
        "polish pass1.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 200 --stride 100 \
         --guide 10 --record pass2.txt",
        RunAs(
            "polish pass1.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 200 --stride 100 \
             --guide 10 --record pass2.txt",
        ),
    ),
    (
        "polish pass2.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 300 --stride 150 \
         --guide 10 --threads 1 --record pass3.txt",
        RunAs(
            "polish pass2.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 300 --stride 150 \
             --guide 10 --threads 1 --record pass3.txt",
        ),
    ),
    (
        "polish pass3.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --stride 50 \
         --guide 30 --record pass4.txt",
        RunAs(
            "polish pass3.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --stride 50 \
             --guide 30 --record pass4.txt",
        ),
    ),
    (
        "polish pass4.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 \
         --lookahead 2 --second-ply 2 --record pass5.txt",
        RunAs(
            "polish pass4.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 \
             --lookahead 2 --second-ply 2 --record pass5.txt",
        ),
    ),
    (
        "polish pass5.txt --moves full --beam 10000 --weights weights/etetris-full.toml --from 50 --window 100 \
         --guide 10 --lookahead 2 --second-ply 2 --record pass6.txt",
        RunAs(
            "polish pass5.txt --moves full --beam 10 --weights weights/etetris-full.toml --from 50 --window 100 \
             --guide 10 --lookahead 2 --second-ply 2 --record pass6.txt",
        ),
    ),
    (
        "polish pass6.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 200 --stride 100 \
         --guide 10 --lookahead 2 --second-ply 2 --record pass7.txt",
        RunAs(
            "polish pass6.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 200 --stride 100 \
             --guide 10 --lookahead 2 --second-ply 2 --record pass7.txt",
        ),
    ),
    ("replay weights/etetris-best-record-k10000.txt", Run),
    (
        "solve --moves full --beam 30000 --weights weights/etetris-full.toml --threads 2 --record k30000-plain.txt",
        RunAs("solve --moves full --beam 30 --weights weights/etetris-full.toml --threads 2 --pieces 300 --record k30000-plain.txt"),
    ),
    (
        "solve --moves full --beam 30000 --weights weights/etetris-full.toml --threads 2 --lookahead 2 --endgame 25 \
         --second-ply 2 --phase-quota 20 --record k30000.txt",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full.toml --threads 2 --lookahead 2 --endgame 25 \
             --second-ply 2 --phase-quota 20 --pieces 300 --record k30000.txt",
        ),
    ),
    (
        "polish k30000.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 \
         --threads 1 --record k30000-pass1.txt",
        RunAs(
            "polish k30000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 \
             --threads 1 --record k30000-pass1.txt",
        ),
    ),
    (
        "polish k30000-pass1.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 200 \
         --stride 100 --guide 10 --threads 1 --record k30000-pass2.txt",
        RunAs(
            "polish k30000-pass1.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 200 \
             --stride 100 --guide 10 --threads 1 --record k30000-pass2.txt",
        ),
    ),
    (
        "polish k30000-pass2.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 \
         --guide 10 --lookahead 2 --second-ply 2 --threads 1 --record k30000-pass3.txt",
        RunAs(
            "polish k30000-pass2.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 \
             --guide 10 --lookahead 2 --second-ply 2 --threads 1 --record k30000-pass3.txt",
        ),
    ),
    // The overflow term.
    (
        "solve --moves full --beam 3000 --threads 1 --weights weights/etetris-full-overflow.toml",
        RunAs("solve --moves full --beam 30 --threads 1 --weights weights/etetris-full-overflow.toml --pieces 300"),
    ),
    (
        "solve --moves full --beam 1000 --threads 1 --weights weights/etetris-full-overflow.toml --jitter 1",
        RunAs("solve --moves full --beam 30 --threads 1 --weights weights/etetris-full-overflow.toml --jitter 1 --pieces 300"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full-overflow.toml --lookahead 2 --endgame 25 \
         --second-ply 2 --phase-quota 20",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full-overflow.toml --lookahead 2 --endgame 25 \
             --second-ply 2 --phase-quota 20 --pieces 300",
        ),
    ),
    (
        "polish data/etetris/k10000-1426884.txt --moves full --beam 10000 \
         --weights weights/etetris-full-overflow.toml --window 100 --guide 10 --record overflow-pass.txt",
        RunAs(
            "polish data/etetris/k10000-1426884.txt --moves full --beam 10 \
             --weights weights/etetris-full-overflow.toml --window 100 --guide 10 --record overflow-pass.txt",
        ),
    ),
    // Splicing records: the history's records are not in the test's copy.
    (
        "splice best-20cfb7e.txt best-24f58c0.txt best-4b8bdfa.txt best-61597d6.txt best-64be3f4.txt best-693ba6e.txt best-9740da1.txt best-abbbfe7.txt best-ad19426.txt best-e8b2352.txt best-fb6b82e.txt k10000-1a84ed3.txt k10000-2d7625a.txt k10000-bb61b63.txt k10000-c617908.txt k10000-d957241.txt --record history.txt",
        Skip(HISTORY),
    ),
    (
        "polish history.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 1 \
         --record history-pass1.txt",
        RunAs("polish weights/etetris-best-record-k10000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 1 --record history-pass1.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full-overflow.toml --lookahead 2 --endgame 25 --second-ply 2 \
         --phase-quota 20 --phase-pool 3 --threads 2 --record ovf-q20-p3.txt",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full-overflow.toml --lookahead 2 --endgame 25 --second-ply 2 \
             --phase-quota 20 --phase-pool 3 --threads 2 --record ovf-q20-p3.txt --pieces 300",
        ),
    ),
    (
        "polish ovf-q20-p3.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 1 \
         --record ovf-q20-p3-p1.txt",
        RunAs("polish ovf-q20-p3.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 1 --record ovf-q20-p3-p1.txt"),
    ),
    (
        "polish ovf-q20-p3-p1.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 200 --stride 100 --guide 10 \
         --threads 1 --record ovf-q20-p3-p2.txt",
        RunAs("polish ovf-q20-p3-p1.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 200 --stride 100 --guide 10 --threads 1 --record ovf-q20-p3-p2.txt"),
    ),
    (
        "splice history-pass1.txt best-20cfb7e.txt best-24f58c0.txt best-4b8bdfa.txt best-61597d6.txt best-64be3f4.txt best-693ba6e.txt best-9740da1.txt best-abbbfe7.txt best-ad19426.txt best-e8b2352.txt best-fb6b82e.txt k10000-1a84ed3.txt k10000-2d7625a.txt k10000-bb61b63.txt k10000-c617908.txt k10000-d957241.txt ovf-q20-p3.txt ovf-q20-p3-p1.txt ovf-q20-p3-p2.txt --record spliced.txt",
        Skip(HISTORY),
    ),
    (
        "polish bridged3.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 2",
        RunAs("polish weights/etetris-best-record-k10000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 2 --record bridged3-pass1.txt"),
    ),
    (
        "splice $R --bridge --beam 10000 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record bridged1.txt",
        Skip(HISTORY),
    ),
    (
        "splice $R bridged1.txt --bridge --beam 10000 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record bridged2.txt",
        Skip(HISTORY),
    ),
    (
        "splice $R bridged1.txt bridged2.txt --bridge --beam 10000 --window 160 --moves full --weights weights/etetris-full.toml --threads 2 --record bridged3.txt",
        Skip(HISTORY),
    ),
    (
        "splice $R bridged1.txt bridged2.txt bridged3.txt --bridge --beam 10000 --window 320 --moves full --weights weights/etetris-full.toml --threads 2 --record bridged4.txt",
        Skip(HISTORY),
    ),
    (
        "splice $R bridged1.txt bridged2.txt bridged3.txt $P --bridge --beam 10000 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record more1.txt",
        Skip(MORE_RECORDS),
    ),
    (
        "splice $R bridged1.txt bridged2.txt bridged3.txt $P more1.txt --bridge --beam 10000 --window 80 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record more2.txt",
        Skip(MORE_RECORDS),
    ),
    (
        "splice $R bridged1.txt bridged2.txt bridged3.txt $P more1.txt more2.txt --bridge --beam 10000 --window 160 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record more3.txt",
        Skip(MORE_RECORDS),
    ),
    (
        "splice $R bridged1.txt bridged2.txt bridged3.txt $P more1.txt more2.txt more3.txt --bridge --beam 10000 --window 80 --lookahead 2 --second-ply 2 --moves full --weights weights/etetris-full.toml --threads 2 --record more4.txt",
        Skip(MORE_RECORDS),
    ),
    (
        "splice $R bridged1.txt bridged2.txt bridged3.txt $P more1.txt more2.txt more3.txt more4.txt --bridge --beam 10000 --window 320 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record more5.txt",
        Skip(MORE_RECORDS),
    ),
    (
        "polish spliced.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 1 \
         --record spliced-pass1.txt",
        RunAs("polish weights/etetris-best-record-k10000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --threads 1 --record spliced-pass1.txt"),
    ),
    ("splice data/etetris/k10000-1428598.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    (
        "solve --moves full --beam 10000 --weights cmaes-ovf.toml --lookahead 2 --endgame 25 --second-ply 2 --phase-quota 20 \
         --phase-pool 3 --threads 1",
        Skip("its weights file is described in the text, not shipped (a measurement that gained nothing); 30 CPU-minutes"),
    ),
    ("splice data/etetris/k10000-1428858.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    (
        "polish more5.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --lookahead 2 \
         --second-ply 2 --threads 2 --record more5-pass1.txt",
        RunAs("polish weights/etetris-best-record-k10000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --lookahead 2 --second-ply 2 --threads 2 --record more5-pass1.txt"),
    ),
    ("splice data/etetris/k10000-1429054.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    (
        "splice data/etetris/k10000-1429054.txt $B --bridge --beam 10000 --every 80 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record along1.txt",
        RunAs(concat!("splice data/etetris/k10000-1429054.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record along1.txt")),
    ),
    (
        "splice along1.txt $B --bridge --beam 10000 --every 60 --window 60 --moves full --weights weights/etetris-full.toml --threads 2 --record along2.txt",
        RunAs(concat!("splice along1.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 60 --moves full --weights weights/etetris-full.toml --threads 2 --record along2.txt")),
    ),
    (
        "splice along2.txt $B --bridge --beam 10000 --every 70 --window 140 --moves full --weights weights/etetris-full.toml --threads 2 --record along3.txt",
        RunAs(concat!("splice along2.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 140 --moves full --weights weights/etetris-full.toml --threads 2 --record along3.txt")),
    ),
    (
        "splice along3.txt $B --bridge --beam 10000 --every 50 --window 50 --moves full --weights weights/etetris-full.toml --threads 2 --record along4.txt",
        RunAs(concat!("splice along3.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 50 --moves full --weights weights/etetris-full.toml --threads 2 --record along4.txt")),
    ),
    (
        "splice along4.txt $B --bridge --beam 10000 --every 30 --window 60 --moves full --weights weights/etetris-full.toml --threads 2 --record along5.txt",
        RunAs(concat!("splice along4.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 60 --moves full --weights weights/etetris-full.toml --threads 2 --record along5.txt")),
    ),
    (
        "splice along5.txt $B --bridge --beam 10000 --every 110 --window 220 --moves full --weights weights/etetris-full.toml --threads 2 --record along6.txt",
        RunAs(concat!("splice along5.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 220 --moves full --weights weights/etetris-full.toml --threads 2 --record along6.txt")),
    ),
    (
        "splice along6.txt $B --bridge --beam 10000 --every 75 --window 150 --moves full --weights weights/etetris-full.toml --threads 2 --record along7.txt",
        RunAs(concat!("splice along6.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 150 --moves full --weights weights/etetris-full.toml --threads 2 --record along7.txt")),
    ),
    (
        "splice along7.txt $B --bridge --beam 10000 --every 45 --window 90 --moves full --weights weights/etetris-full.toml --threads 2 --record along8.txt",
        RunAs(concat!("splice along7.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 90 --moves full --weights weights/etetris-full.toml --threads 2 --record along8.txt")),
    ),
    (
        "splice along8.txt $B --bridge --beam 10000 --every 35 --window 70 --moves full --weights weights/etetris-full.toml --threads 2 --record along9.txt",
        RunAs(concat!("splice along8.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 70 --moves full --weights weights/etetris-full.toml --threads 2 --record along9.txt")),
    ),
    (
        "splice along9.txt $B --bridge --beam 10000 --window 160 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record along10.txt",
        RunAs(concat!("splice along9.txt ", landing_records!(), " --bridge --beam 50 --window 160 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record along10.txt")),
    ),
    (
        "splice along10.txt $B --bridge --beam 10000 --every 80 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record along11.txt",
        RunAs(concat!("splice along10.txt ", landing_records!(), " --bridge --beam 50 --every 2000 --window 80 --moves full --weights weights/etetris-full.toml --threads 2 --record along11.txt")),
    ),
    ("splice along11.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 11 --threads 2 --record j11.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 11 --threads 2 --record j11.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 12 --threads 2 --record j12.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 12 --threads 2 --record j12.txt"),
    ),
    (
        "splice along11.txt $B j11.txt j12.txt --bridge --beam 10000 --window 160 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record landed.txt",
        RunAs(concat!("splice along11.txt ", landing_records!(), " j11.txt j12.txt --bridge --beam 50 --window 160 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record landed.txt")),
    ),
    ("splice landed.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    ("splice data/etetris/k10000-1429842.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 17 --threads 2 --record j17.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 17 --threads 2 --record j17.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 18 --threads 2 --record j18.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 18 --threads 2 --record j18.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 19 --threads 2 --record j19.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 19 --threads 2 --record j19.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 20 --threads 2 --record j20.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 20 --threads 2 --record j20.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 21 --threads 2 --record j21.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 21 --threads 2 --record j21.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 22 --threads 2 --record j22.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 22 --threads 2 --record j22.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 23 --threads 2 --record j23.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 23 --threads 2 --record j23.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 24 --threads 2 --record j24.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 24 --threads 2 --record j24.txt"),
    ),
    ("splice data/etetris/k10000-1429842.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H --bridge --beam 10000 --detours 7 --window 120 --lookahead 2 --chain --guide 3 --moves full --weights weights/etetris-full.toml --threads 2 --record back1.txt", Skip(LANDS_ON_HISTORY)),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 50 --jitter 31 --threads 2 --record p31.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 50 --jitter 31 --threads 2 --record p31.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 50 --jitter 32 --threads 2 --record p32.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 50 --jitter 32 --threads 2 --record p32.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 50 --jitter 33 --threads 2 --record p33.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 50 --jitter 33 --threads 2 --record p33.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 50 --jitter 34 --threads 2 --record p34.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 50 --jitter 34 --threads 2 --record p34.txt"),
    ),
    ("splice back1.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt --bridge --beam 10000 --detours 10 --window 120 --lookahead 2 --chain --guide 0 --moves full --weights weights/etetris-full.toml --threads 2 --record back2.txt", Skip(LANDS_ON_HISTORY)),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 30 --jitter 41 --threads 2 --record q30a.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 30 --jitter 41 --threads 2 --record q30a.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 70 --jitter 41 --threads 2 --record q70a.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 70 --jitter 41 --threads 2 --record q70a.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --phase-quota 30 --jitter 44 --threads 2 --record q30-44.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --phase-quota 30 --jitter 44 --threads 2 --record q30-44.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 30 --jitter 41 --threads 2 --record l30a.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 30 --jitter 41 --threads 2 --record l30a.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 50 --jitter 41 --threads 2 --record l50a.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 50 --jitter 41 --threads 2 --record l50a.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 30 --jitter 42 --threads 2 --record l30b.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 30 --jitter 42 --threads 2 --record l30b.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 20 --jitter 41 --threads 2 --record l20a.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --lookahead 2 --phase-quota 20 --jitter 41 --threads 2 --record l20a.txt"),
    ),
    ("splice data/etetris/k10000-1429888.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 2 --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full.toml --threads 2 --record carried1.txt", Skip(LANDS_ON_HISTORY)),
    ("splice carried1.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 2 --guide 10 --phase-quota 50 --moves full --weights weights/etetris-full.toml --threads 2 --record carried2.txt", Skip(LANDS_ON_HISTORY)),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full-four-terms.toml --lookahead 2 --phase-quota 30 --threads 2 --record f30.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full-four-terms.toml --lookahead 2 --phase-quota 30 --threads 2 --record f30.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full-four-terms.toml --lookahead 2 --phase-quota 50 --threads 2 --record f50.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full-four-terms.toml --lookahead 2 --phase-quota 50 --threads 2 --record f50.txt"),
    ),
    ("splice data/etetris/k10000-1429928.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 2 --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full-four-terms.toml --threads 2 --record carried3.txt", Skip(LANDS_ON_HISTORY)),
    ("splice data/etetris/k10000-1429936.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 3 --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full-four-terms.toml --threads 2 --record carried4.txt", Skip(LANDS_ON_HISTORY)),
    ("splice data/etetris/k10000-1429940.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 4 --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full-four-terms.toml --threads 2 --record carried5.txt", Skip(LANDS_ON_HISTORY)),
    ("splice data/etetris/k10000-1429952.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 5 --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full-four-terms.toml --threads 2 --record carried6.txt", Skip(LANDS_ON_HISTORY)),
    ("splice data/etetris/k10000-1430014.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt j17.txt j18.txt j19.txt j20.txt j21.txt j22.txt j23.txt j24.txt $H p31.txt p32.txt p33.txt p34.txt q30a.txt q70a.txt q30-44.txt l30a.txt l50a.txt l30b.txt l20a.txt --bridge --beam 10000 --carry --lookahead 6 --guide 3 --phase-quota 50 --moves full --weights weights/etetris-full-four-terms.toml --threads 2 --record carried7.txt", Skip(LANDS_ON_HISTORY)),
    (
        "splice data/etetris/k10000-1429054.txt $B --bridge --beam 10000 --carry --guide 3 --lookahead 2 --moves full --weights weights/etetris-full.toml --threads 2 --record x1054.txt",
        RunAs(concat!("splice data/etetris/k10000-1429054.txt ", landing_records!(), " --bridge --beam 20 --carry --guide 3 --moves full --weights weights/etetris-full.toml --threads 2 --record x1054.txt")),
    ),
    ("splice data/etetris/k10000-1429888.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    ("splice data/etetris/k10000-1429928.txt data/etetris/k30000-1427648.txt --record best.txt", Run),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 13 --threads 2 --record j13.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 13 --threads 2 --record j13.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 14 --threads 2 --record j14.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 14 --threads 2 --record j14.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 15 --threads 2 --record j15.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 15 --threads 2 --record j15.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 16 --threads 2 --record j16.txt",
        RunAs("solve --moves full --beam 100 --weights weights/etetris-full.toml --jitter 16 --threads 2 --record j16.txt"),
    ),
    ("splice data/etetris/k10000-1429612.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt $H --bridge --beam 10000 --detours 10 --window 120 --lookahead 2 --chain --moves full --weights weights/etetris-full.toml --threads 2 --record detours1.txt", Skip(LANDS_ON_HISTORY)),
    ("splice detours1.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt $H --bridge --beam 10000 --detours 7 --window 120 --lookahead 2 --chain --moves full --weights weights/etetris-full.toml --threads 2 --record detours2.txt", Skip(LANDS_ON_HISTORY)),
    ("splice detours2.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt $H --bridge --beam 10000 --detours 8 --window 100 --lookahead 2 --chain --moves full --weights weights/etetris-full.toml --threads 2 --record detours3.txt", Skip(LANDS_ON_HISTORY)),
    ("splice detours3.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt $H --bridge --beam 10000 --detours 10 --window 120 --lookahead 2 --chain --guide 0 --moves full --weights weights/etetris-full.toml --threads 2 --record detours4.txt", Skip(LANDS_ON_HISTORY)),
    ("splice detours4.txt $B data/etetris/k10000-1429054.txt j11.txt j12.txt j13.txt j14.txt j15.txt j16.txt $H --bridge --beam 10000 --detours 7 --window 120 --lookahead 2 --chain --guide 0 --moves full --weights weights/etetris-full.toml --threads 2 --record detours5.txt", Skip(LANDS_ON_HISTORY)),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
         --phase-quota 20 --phase-pool 3 --threads 2 --record k10000-pool3.txt",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
             --phase-quota 20 --phase-pool 3 --threads 2 --record k10000-pool3.txt --pieces 300",
        ),
    ),
    (
        "polish k10000-pool3.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 \
         --record pool3-pass1.txt",
        RunAs("polish weights/etetris-best-record-k10000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --record pool3-pass1.txt"),
    ),
    (
        "polish pool3-pass1.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 200 --stride 100 --guide 10 \
         --record pool3-pass2.txt",
        RunAs("polish pool3-pass1.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 200 --stride 100 --guide 10 --record pool3-pass2.txt"),
    ),
    (
        "polish pool3-pass2.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --lookahead 2 --second-ply 2 \
         --record pool3-pass3.txt",
        RunAs("polish pool3-pass2.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --lookahead 2 --second-ply 2 --record pool3-pass3.txt"),
    ),
    (
        "polish pool3-pass3.txt --moves full --beam 10000 --weights weights/etetris-full.toml --from 50 --window 100 --guide 10 --lookahead 2 --second-ply 2 \
         --record pool3-pass4.txt",
        RunAs("polish pool3-pass3.txt --moves full --beam 10 --weights weights/etetris-full.toml --from 50 --window 100 --guide 10 --lookahead 2 --second-ply 2 --record pool3-pass4.txt"),
    ),
    (
        "solve --moves full --beam 10000 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
         --phase-quota 20 --phase-pool 6 --threads 2 --record k10000-pool6.txt",
        RunAs(
            "solve --moves full --beam 30 --weights weights/etetris-full.toml --lookahead 2 --endgame 25 --second-ply 2 \
             --phase-quota 20 --phase-pool 6 --threads 2 --record k10000-pool6.txt --pieces 300",
        ),
    ),
    (
        "polish k10000-pool6.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 \
         --record pool6-pass1.txt",
        RunAs("polish weights/etetris-best-record-k10000.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --record pool6-pass1.txt"),
    ),
    (
        "polish pool6-pass1.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 200 --stride 100 --guide 10 \
         --record pool6-pass2.txt",
        RunAs("polish pool6-pass1.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 200 --stride 100 --guide 10 --record pool6-pass2.txt"),
    ),
    (
        "polish pool6-pass2.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --lookahead 2 --second-ply 2 \
         --record pool6-pass3.txt",
        RunAs("polish pool6-pass2.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --lookahead 2 --second-ply 2 --record pool6-pass3.txt"),
    ),
    (
        "polish pool6-pass3.txt --moves full --beam 10000 --weights weights/etetris-full.toml --from 50 --window 100 --guide 10 --lookahead 2 --second-ply 2 \
         --record pool6-pass4.txt",
        RunAs("polish pool6-pass3.txt --moves full --beam 10 --weights weights/etetris-full.toml --from 50 --window 100 --guide 10 --lookahead 2 --second-ply 2 --record pool6-pass4.txt"),
    ),
    (
        "polish pool6-pass4.txt --moves full --beam 10000 --weights weights/etetris-full.toml --from 50 --window 200 --stride 100 --guide 10 \
         --record pool6-pass5.txt",
        RunAs("polish pool6-pass4.txt --moves full --beam 10 --weights weights/etetris-full.toml --from 50 --window 200 --stride 100 --guide 10 --record pool6-pass5.txt"),
    ),
    (
        "polish pool6-pass5.txt --moves full --beam 10000 --weights weights/etetris-full-overflow.toml --window 100 --guide 10 \
         --record pool6-pass6.txt",
        RunAs("polish pool6-pass5.txt --moves full --beam 10 --weights weights/etetris-full-overflow.toml --window 100 --guide 10 --record pool6-pass6.txt"),
    ),
    (
        "polish pool6-pass6.txt --moves full --beam 10000 --weights weights/etetris-full.toml --window 100 --guide 10 --phase-quota 20 --phase-pool 4 \
         --record pool6-pass7.txt",
        RunAs("polish pool6-pass6.txt --moves full --beam 10 --weights weights/etetris-full.toml --window 100 --guide 10 --phase-quota 20 --phase-pool 4 --record pool6-pass7.txt"),
    ),
    (
        "polish pool6-pass6.txt --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 3 --jitter-percent 2 --window 200 --stride 100 --guide 10 \
         --record jitter-pass1.txt",
        RunAs("polish pool6-pass6.txt --moves full --beam 10 --weights weights/etetris-full.toml --jitter 3 --jitter-percent 2 --window 200 --stride 100 --guide 10 --record jitter-pass1.txt"),
    ),
    (
        "polish jitter-pass1.txt --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 1 --jitter-percent 2 --from 50 --window 100 --guide 10 \
         --record jitter-pass2.txt",
        RunAs("polish jitter-pass1.txt --moves full --beam 10 --weights weights/etetris-full.toml --jitter 1 --jitter-percent 2 --from 50 --window 100 --guide 10 --record jitter-pass2.txt"),
    ),
    (
        "polish jitter-pass2.txt --moves full --beam 10000 --weights weights/etetris-full.toml --jitter 10 --jitter-percent 3 --window 100 --guide 10 \
         --record jitter-pass3.txt",
        RunAs("polish jitter-pass2.txt --moves full --beam 10 --weights weights/etetris-full.toml --jitter 10 --jitter-percent 3 --window 100 --guide 10 --record jitter-pass3.txt"),
    ),
    (
        "polish data/etetris/published_1378178.txt --moves full --beam 1000 --weights weights/etetris-full.toml \
         --guide 10 --threads 1",
        RunAs(
            "polish data/etetris/published_1378178.txt --moves full --beam 10 --weights weights/etetris-full.toml \
             --guide 10 --threads 1",
        ),
    ),
    ("solve --moves full --beam 300 --threads 1 --weights FILE", Skip("usage template")),
    ("tune experiments/etetris-full-cmaes.toml --threads 1", Skip("8 CPU-minutes; tests/experiments.rs checks the file")),
    ("tune experiments/etetris-full-jitter-cmaes.toml", Skip("4.5 CPU-hours; tests/experiments.rs checks the file")),
    (
        "plot results/etetris-full-cmaes/<run> --out docs/etetris-full-tuning.png",
        Skip("needs the full-move E-Tetris campaign above"),
    ),
    (
        "plot results/etetris-nelder-mead/<run> results/etetris-cmaes/<run> --out etetris.png",
        Skip("needs the two E-Tetris campaigns above"),
    ),
    // Clusters.
    ("mpirun -n 8 --bind-to none target/release/tetris-lab tune experiments/cross-entropy-szita-lorincz.toml", Skip("needs Open MPI and hours; tests/mpi.rs runs mpirun")),
    ("mpirun -n 8 --bind-to none target/release/tetris-lab tune --resume results/cross-entropy-szita-lorincz/<run-id>", Skip("needs Open MPI; tests/mpi.rs resumes under mpirun")),
    ("mpirun --bind-to none tetris-lab tune experiments/cross-entropy-szita-lorincz.toml --threads \"$SLURM_CPUS_PER_TASK\"", Skip("a Slurm job script")),
    ("mpirun --allow-run-as-root -n 2 target/release/tetris-lab tune --runs 4 experiments/compare/nelder-mead.toml --threads 1", Skip("needs Open MPI; tests/mpi.rs runs a study under mpirun")),
    ("mpirun -n N tetris-lab tune --runs R EXP...", Skip("a pattern in prose; tests/mpi.rs runs a study under mpirun")),
    ("mpirun -n N tetris-lab tune --runs R ...", Skip("a pattern in prose; tests/mpi.rs runs a study under mpirun")),
    (
        "mpirun --bind-to none -n 2 target/release/tetris-lab tune experiments/etetris-nelder-mead.toml --threads 2",
        Skip("needs Open MPI and 7 minutes; tests/mpi.rs runs mpirun"),
    ),
    ("mpirun --allow-run-as-root --oversubscribe -n 2 target/release/tetris-lab tune experiments/cluster-throughput.toml --threads 1", Skip("needs Open MPI; tests/mpi.rs runs mpirun")),
    // Studies.
    ("tune --runs 10 experiments/compare/*.toml", Skip("6 minutes; tests/study.rs runs smaller studies")),
    ("tune --runs 10", Skip("2.5 minutes; tests/study.rs runs smaller studies")),
    // Reproduce.
    ("reproduce [PRESET ...] [--quick | --full] [--threads T] [--seed S] [--out DIR]", Skip("usage template")),
    ("reproduce --quick", RunAs("reproduce --quick --games 2 --heights 4..6")),
    ("reproduce --resume DIR [--threads T]", Skip("usage template")),
    (
        "extrapolate SOURCE... --to H [--from L] [--through T] [--preset P] [--row N[,M]] [--metric rows|pieces]",
        Skip("usage template"),
    ),
    (
        "extrapolate results/reproduce/<run>/games.csv --preset P --row R,F --to H --from 8 --through T",
        Skip("usage template"),
    ),
    (
        "extrapolate games.csv 10x20=F --preset bcts --row 5,6 --to 20",
        Skip("needs a --full run's folder and a play CSV; tests/reproduce_cli.rs runs extrapolate on both kinds"),
    ),
    (
        "extrapolate results/reproduce/<run>/games.csv --preset bcts --row 6 --to 20",
        Skip("needs a quick run's folder; tests/reproduce_cli.rs runs extrapolate on a reproduce run's games"),
    ),
    (
        "extrapolate results/reproduce/<run>/games.csv --preset bcts --row 6 --to 14 --through 12",
        Skip("needs a quick run's folder; tests/reproduce_cli.rs runs extrapolate on a reproduce run's games"),
    ),
    ("play --preset bcts --board 10x12 --games 2000 --seed 1212", RunAs("play --preset bcts --board 10x12 --games 2 --seed 1212 --max-pieces 2000")),
    ("play --preset bcts --board 10x17 --games 50 --seed 1017 --threads 2", RunAs("play --preset bcts --board 10x17 --games 2 --seed 1017 --threads 2 --max-pieces 2000")),
    ("play --preset bcts --rules simplified-lines-after-overflow --board 10x16 --games 100 --seed 1016 --threads 1", RunAs("play --preset bcts --rules simplified-lines-after-overflow --board 10x16 --games 2 --seed 1016 --threads 1 --max-pieces 2000")),
    ("play --preset bcts --board 10x20 --games 20 --seed 1 --threads 2", RunAs("play --preset bcts --board 10x20 --games 2 --seed 1 --threads 2 --max-pieces 2000")),
    ("play --preset bcts --board 10x20 --games 20 --seed 2 --threads 2", RunAs("play --preset bcts --board 10x20 --games 2 --seed 2 --threads 2 --max-pieces 2000")),
    ("play --preset bcts-mdptetris --board 8x12 --seed 1 --games 1 --trace game.trace", Run),
    ("reproduce --full dellacherie-simplified bcts --threads 2", RunAs("reproduce --full dellacherie-simplified bcts --threads 2 --games 2 --heights 4..6 --board 10x8")),
    ("reproduce --resume DIR", Skip("needs a stopped run; tests/reproduce_cli.rs kills one and resumes it")),
];

/// Prefixes that make a line or a code span a command of this program.
const PREFIXES: [&str; 3] = ["cargo run --release -- ", "target/release/tetris-lab ", "tetris-lab "];

/// The commands of a README text, in order, without prefixes and comments, each once.
fn readme_commands(text: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut add = |line: &str| {
        let line = line.split(" # ").next().unwrap_or("");
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        let command = if line.starts_with("mpirun ") && line.contains("tetris-lab ") {
            Some(line.clone())
        } else {
            PREFIXES.iter().find_map(|p| line.strip_prefix(p).map(str::to_string))
        };
        if let Some(command) = command.filter(|c| !c.starts_with("·")) {
            if !commands.contains(&command) {
                commands.push(command);
            }
        }
    };
    let mut in_block: Option<String> = None;
    let mut pending = String::new();
    // Prose is read a paragraph at a time: a code span may wrap onto the next line.
    let mut paragraph = String::new();
    let spans = |paragraph: &mut String, add: &mut dyn FnMut(&str)| {
        for (i, span) in paragraph.split('`').enumerate() {
            if i % 2 == 1 {
                add(span);
            }
        }
        paragraph.clear();
    };
    for line in text.lines() {
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            spans(&mut paragraph, &mut add);
            in_block = if in_block.is_some() { None } else { Some(fence.trim().to_string()) };
            continue;
        }
        match &in_block {
            // Output shown as text, TOML and the like hold no commands.
            Some(kind) if kind.is_empty() || kind == "sh" || kind == "console" => {
                let line = line.trim().strip_prefix("$ ").unwrap_or(line.trim());
                pending.push_str(line);
                if pending.ends_with('\\') {
                    pending.pop();
                    pending.push(' ');
                } else {
                    add(&pending);
                    pending.clear();
                }
            }
            Some(_) => {}
            None if line.trim().is_empty() => spans(&mut paragraph, &mut add),
            None => {
                paragraph.push_str(line);
                paragraph.push(' ');
            }
        }
    }
    spans(&mut paragraph, &mut add);
    commands
}

/// The words of a command as a shell splits them: at spaces, except inside double quotes
/// (`versus A "B --lookahead 2"` passes B and its flags as one argument), quotes removed.
fn words(text: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in text.chars() {
        match c {
            '"' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quotes in {text:?}");
    if started {
        words.push(word);
    }
    words
}

/// Expands `*` in the path arguments the way a shell would (sorted matches; a pattern
/// that matches nothing is an error here, where a shell would pass it on).
fn expand(argument: &str, root: &Path) -> Vec<String> {
    if !argument.contains('*') {
        return vec![argument.to_string()];
    }
    let mut matches = vec![PathBuf::new()];
    for component in argument.split('/') {
        let mut next = Vec::new();
        for base in &matches {
            if !component.contains('*') {
                next.push(base.join(component));
                continue;
            }
            let (head, tail) = component.split_once('*').expect("a star");
            let Ok(entries) = std::fs::read_dir(root.join(base)) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with(head) && name.ends_with(tail) && name.len() >= head.len() + tail.len() {
                    next.push(base.join(name));
                }
            }
        }
        matches = next;
    }
    matches.sort();
    assert!(!matches.is_empty(), "{argument} matches nothing");
    matches.into_iter().map(|p| p.to_string_lossy().into_owned()).collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs one command in `root` with a time limit; its output on failure.
fn run_in(root: &Path, arguments: &[String], limit: Duration) -> Result<(), String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tetris-lab"))
        .args(arguments)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    // Drain the pipes on threads so a chatty command cannot block on a full pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).ok();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).ok();
        text
    });
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{status}\nstdout:\n{out}\nstderr:\n{err}"))
    }
}

#[test]
fn the_readme_lists_only_commands_this_file_knows() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let commands = readme_commands(&readme);
    let unknown: Vec<&String> = commands.iter().filter(|c| !CASES.iter().any(|(k, _)| k == c)).collect();
    assert!(unknown.is_empty(), "README commands with no case in tests/readme.rs: {unknown:#?}");
    let stale: Vec<&str> = CASES.iter().map(|(k, _)| *k).filter(|k| !commands.iter().any(|c| c == k)).collect();
    assert!(stale.is_empty(), "cases of tests/readme.rs the README no longer shows: {stale:#?}");
}

#[test]
fn every_readme_command_runs_from_a_fresh_repository_root() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repository.join("README.md")).unwrap();
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("tetris-lab");
    for folder in ["data", "experiments", "weights"] {
        copy_tree(&repository.join(folder), &root.join(folder));
    }
    let mut failures = Vec::new();
    for command in readme_commands(&readme) {
        let Some((_, action)) = CASES.iter().find(|(k, _)| *k == command) else { continue };
        let text = match action {
            Run => command.as_str(),
            RunAs(replacement) => replacement,
            Skip(reason) => {
                println!("not run: `{command}`: {reason}");
                continue;
            }
        };
        let text = if text.contains("<run-id>") {
            let runs = expand("results/quickstart/*", &root);
            let run = runs.first().expect("the quick start ran before");
            let id = Path::new(run).file_name().unwrap().to_string_lossy().into_owned();
            text.replace("<run-id>", &id)
        } else {
            text.to_string()
        };
        let arguments: Vec<String> = words(&text).iter().flat_map(|a| expand(a, &root)).collect();
        if let Err(error) = run_in(&root, &arguments, Duration::from_secs(120)) {
            failures.push(format!("`{command}` (ran `{}`): {error}", arguments.join(" ")));
        }
    }
    assert!(failures.is_empty(), "README commands that failed:\n{}", failures.join("\n\n"));
    // What the commands say they wrote is there.
    for written in ["k1000.txt", "game.frames", "pygame-lee.csv", "compare.png"] {
        assert!(root.join(written).is_file(), "{written} was not written");
    }
}

#[test]
fn the_readmes_landing_records_are_the_ones_the_cases_run() {
    // The cases spell `$B` through `landing_records!`; an edit of the README's `B` alone
    // would leave them running the old list.
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().filter(|line| line.starts_with("B=")).collect();
    assert_eq!(lines, [concat!("B=\"", landing_records!(), "\"")], "the README's B= lines");
}

#[test]
fn commands_are_found_in_blocks_spans_and_continued_lines() {
    let text = "Run `tetris-lab list` or\n```sh\n$ tetris-lab play --preset a \\\n   --games 2   # two\ncargo run --release -- tune\n```\n```text\ntetris-lab watch · x\n```\n";
    assert_eq!(readme_commands(text), ["list", "play --preset a --games 2", "tune"]);
}

#[test]
fn words_are_split_as_a_shell_splits_them() {
    assert_eq!(
        words(r#"versus  a.toml "b.toml --lookahead 2" --beam 30"#),
        ["versus", "a.toml", "b.toml --lookahead 2", "--beam", "30"]
    );
    assert_eq!(words(r#"x "" y"#), ["x", "", "y"]);
}
