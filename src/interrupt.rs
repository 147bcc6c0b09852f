//! Ctrl-C as a request to stop, for every long command: the first press sets one
//! process-wide flag that the command's loop reads at its next safe point (after the piece,
//! window or generation in progress, its files saved); a second press exits at once (code
//! 130), leaving whatever was saved last, unless the command stops so soon that it has no
//! use for one. One handler for the whole process, as the
//! `ctrlc` crate allows only one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static STOP: AtomicBool = AtomicBool::new(false);

/// What the first press prints, and what the second prints before exiting (`None`: the
/// second does nothing); the first caller's, as a process runs one command.
type Messages = (&'static str, Option<&'static str>);
static MESSAGES: OnceLock<Messages> = OnceLock::new();

/// Installs the handler (once per process; later calls only return the flag) and returns
/// the flag the first Ctrl-C sets. `first` is printed on the first press (say where the
/// command stops). With `second`, a second press prints it and exits at once with code 130
/// (an exit that skips the clean-up of files being written, so a command that stops
/// within moments passes `None` and later presses do nothing).
pub fn stop_on_ctrl_c(first: &'static str, second: Option<&'static str>) -> &'static AtomicBool {
    if MESSAGES.set((first, second)).is_ok() {
        // A handler set elsewhere (a host program) is left in place: then Ctrl-C does what it says.
        let _ = ctrlc::set_handler(|| {
            let (first, second) = MESSAGES.get().copied().unwrap_or(("", None));
            if !STOP.swap(true, Ordering::SeqCst) {
                eprintln!("\n{first}");
            } else if let Some(second) = second {
                eprintln!("\n{second}");
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
