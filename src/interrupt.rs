//! Ctrl-C as a request to stop, for every long command: the first press sets one
//! process-wide flag that the command's loop reads at its next safe point (after the piece,
//! window or generation in progress, its files saved); a second press exits at once (code
//! 130), leaving whatever was saved last. One handler for the whole process, as the
//! `ctrlc` crate allows only one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static STOP: AtomicBool = AtomicBool::new(false);

/// What the first and the second press print (the first caller's, as a process runs one
/// command).
static MESSAGES: OnceLock<(&'static str, &'static str)> = OnceLock::new();

/// Installs the handler (once per process; later calls only return the flag) and returns
/// the flag the first Ctrl-C sets. `first` is printed on the first press (say where the
/// command stops), `second` on the second, before exiting with code 130; an empty message
/// prints nothing.
pub fn stop_on_ctrl_c(first: &'static str, second: &'static str) -> &'static AtomicBool {
    if MESSAGES.set((first, second)).is_ok() {
        // A handler set elsewhere (a host program) is left in place: then Ctrl-C does what it says.
        let _ = ctrlc::set_handler(|| {
            let (first, second) = MESSAGES.get().copied().unwrap_or(("", ""));
            let again = STOP.swap(true, Ordering::SeqCst);
            let message = if again { second } else { first };
            if !message.is_empty() {
                eprintln!("\n{message}");
            }
            if again {
                std::process::exit(130);
            }
        });
    }
    &STOP
}

/// The flag the first Ctrl-C sets, without installing the handler (a library loop reads
/// it; only a command that promises to stop cleanly installs the handler).
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}
