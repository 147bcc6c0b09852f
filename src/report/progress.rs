//! The progress bar every long command shows on stderr (hidden when stderr is not a
//! terminal): finished items out of the total, live pieces per second, and an ETA.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs `work` with a bar labelled `label` of `length` items. `work` gets a pieces counter
/// to add to (the bar's message shows its rate) and the bar to advance; with `by_pieces`
/// the bar follows the pieces counter instead.
pub fn with_progress<T>(
    label: &str,
    length: u64,
    by_pieces: bool,
    work: impl FnOnce(&AtomicU64, &ProgressBar) -> T,
) -> T {
    let bar = ProgressBar::new(length);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {prefix} {msg} (eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    let pieces = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let ticker = {
        let (bar, pieces, done) = (bar.clone(), pieces.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let p = pieces.load(Ordering::Relaxed);
                if by_pieces {
                    bar.set_position(p.min(length));
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
