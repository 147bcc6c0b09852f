//! The progress bars long commands show on stderr (hidden when stderr is not a terminal):
//! finished items out of the total, live pieces per second, and an ETA; one look for all.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The bar's line before the first item is finished: no ETA yet (a rate of 0 items would
/// give "0s", which would be false).
const WITHOUT_ETA: &str = "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} {prefix} {msg}";
const WITH_ETA: &str = "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} {prefix} {msg} (eta {eta})";

/// How long the first item may take before [`with_progress_noting`] prints its note.
const SLOW_START: Duration = Duration::from_secs(10);

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("valid template").progress_chars("=> ")
}

/// A bar of `length` `unit`s (`pieces`, `jumps`) with a message after it, for work that
/// reports its own progress; hidden unless `show` (and stderr is a terminal).
pub fn counting_bar(length: u64, unit: &str, show: bool) -> ProgressBar {
    let bar = if show {
        ProgressBar::new(length)
    } else {
        ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::hidden())
    };
    bar.set_style(style(&format!("{{elapsed_precise}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit}, {{msg}}")));
    bar
}

/// A bar of `length` `unit`s (a campaign's budget: `pieces`, `games`, `generations`) with a
/// message, which the caller advances; its ETA shows once [`show_eta`] says a first step
/// has been measured.
pub fn budget_bar(length: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    bar.set_style(style(WITHOUT_ETA));
    bar.set_prefix(unit.to_string());
    bar
}

/// Adds the ETA to a [`budget_bar`] (after its first step: before, the rate is unknown).
pub fn show_eta(bar: &ProgressBar) {
    bar.set_style(style(WITH_ETA));
}

/// Runs `work` with a bar labelled `label` of `length` items. `work` gets a pieces counter
/// to add to (the bar's message shows its rate) and the bar to advance; with `by_pieces`
/// the bar follows the pieces counter instead.
pub fn with_progress<T>(
    label: &str,
    length: u64,
    by_pieces: bool,
    work: impl FnOnce(&AtomicU64, &ProgressBar) -> T,
) -> T {
    with_progress_noting(label, length, by_pieces, None, work)
}

/// [`with_progress`], printing `slow_note` above the bar once if no item is finished after
/// ten seconds (say why the wait can be long, and how to shorten it).
pub fn with_progress_noting<T>(
    label: &str,
    length: u64,
    by_pieces: bool,
    slow_note: Option<String>,
    work: impl FnOnce(&AtomicU64, &ProgressBar) -> T,
) -> T {
    let bar = ProgressBar::new(length);
    bar.set_style(style(if by_pieces { WITH_ETA } else { WITHOUT_ETA }));
    bar.set_prefix(label.to_string());
    let pieces = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let ticker = {
        let (bar, pieces, done) = (bar.clone(), pieces.clone(), done.clone());
        std::thread::spawn(move || {
            let (mut with_eta, mut noted) = (by_pieces, slow_note.is_none());
            while !done.load(Ordering::Relaxed) {
                let p = pieces.load(Ordering::Relaxed);
                if by_pieces {
                    bar.set_position(p.min(length));
                } else if !with_eta && bar.position() > 0 {
                    bar.set_style(style(WITH_ETA));
                    with_eta = true;
                }
                if !noted && bar.position() == 0 && start.elapsed() >= SLOW_START {
                    bar.println(slow_note.as_deref().unwrap_or_default());
                    noted = true;
                }
                let rate = p as f64 / start.elapsed().as_secs_f64().max(1e-9);
                bar.set_message(format!("{p} pieces, {rate:.0} pieces/s"));
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let result = work(&pieces, &bar);
    done.store(true, Ordering::Relaxed);
    let _ = ticker.join();
    bar.finish_and_clear();
    result
}
