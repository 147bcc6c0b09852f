//! Ctrl-C as a request to stop, for every long command: the first press sets one
//! process-wide flag that the command's loop reads at its next safe point (after the piece,
//! window or generation in progress, its files saved); a second press exits at once (code
//! 130), leaving whatever was saved last and removing the temporaries of files still being
//! written ([`writing`]), unless the command stops so soon that it has no use for one. A
//! command with no safe point worth waiting for exits on the first press
//! ([`exit_on_ctrl_c`]). One handler for the whole process, as the `ctrlc` crate allows only
//! one. SIGTERM (what `kill`, `timeout`, a cluster scheduler or a shutdown sends) and SIGHUP
//! (a closed terminal) are handled as Ctrl-C is, at the same safe points: only `kill -9`,
//! which nothing can catch, stops a command without its clean-up.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

static STOP: AtomicBool = AtomicBool::new(false);
/// The signal last received (0: none yet), so that messages name it.
static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// What stopped the command, in the words its messages use: "Ctrl-C" (SIGINT), "SIGTERM" or
/// "SIGHUP" (before any signal: "Ctrl-C").
pub fn signal_name() -> &'static str {
    #[cfg(unix)]
    match LAST_SIGNAL.load(Ordering::SeqCst) {
        libc::SIGTERM => return "SIGTERM",
        libc::SIGHUP => return "SIGHUP",
        _ => {}
    }
    "Ctrl-C"
}

/// A message written for Ctrl-C, in the words of the signal received.
fn in_words_of_signal(message: &str) -> String {
    message.replace("Ctrl-C", signal_name())
}

/// What a press does: the first caller's, as a process runs one command.
enum OnPress {
    /// The first press sets the flag and prints the first message; a second prints the
    /// second and exits (`None`: it does nothing).
    Stop(&'static str, Option<&'static str>),
    /// The first press prints the message and exits.
    Exit(String),
}
static ON_PRESS: OnceLock<OnPress> = OnceLock::new();

/// The exit code of a command stopped by Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells
/// report it).
pub const INTERRUPTED_EXIT_CODE: i32 = 130;

/// Prints `message` and exits with code 130, removing the temporaries of files being
/// written first (held until the exit: a file being renamed into place finishes first, and
/// no new temporary is made after the clean-up).
fn exit_interrupted(message: &str) -> ! {
    eprintln!("\n{}", in_words_of_signal(message));
    let mut pending = pending();
    remove_all(&mut pending);
    std::process::exit(INTERRUPTED_EXIT_CODE);
}

/// Installs the handler (once per process; later calls only return the flag) and returns
/// the flag the first Ctrl-C sets. `first` is printed on the first press (say where the
/// command stops). With `second`, a second press prints it and exits at once with code 130
/// (removing the temporaries of files being written, see [`writing`]; a command that
/// stops within moments passes `None`, and later presses do nothing).
pub fn stop_on_ctrl_c(first: &'static str, second: Option<&'static str>) -> &'static AtomicBool {
    install(OnPress::Stop(first, second));
    &STOP
}

/// Installs the handler (once per process) so that Ctrl-C prints `message` and exits at once
/// with code 130, removing the temporaries of files being written: for a command with no
/// safe point worth waiting for (`reproduce`, whose games can take hours and whose ledger
/// already holds every finished one).
pub fn exit_on_ctrl_c(message: String) {
    install(OnPress::Exit(message));
}

fn install(on_press: OnPress) {
    if ON_PRESS.set(on_press).is_ok() {
        // A SIGTERM handler set elsewhere (rank 0 of an MPI run says how to resume and
        // exits when mpirun ends the job) keeps SIGTERM: it is put back below.
        #[cfg(unix)]
        let foreign_terminate = installed_handler(libc::SIGTERM);
        // A handler set elsewhere (a host program) is left in place: then Ctrl-C does what it says.
        let _ = ctrlc::set_handler(|| match ON_PRESS.get() {
            Some(OnPress::Exit(message)) => exit_interrupted(message),
            Some(&OnPress::Stop(first, second)) => {
                if !STOP.swap(true, Ordering::SeqCst) {
                    eprintln!("\n{}", in_words_of_signal(first));
                } else if let Some(second) = second {
                    exit_interrupted(second);
                }
            }
            None => {}
        });
        #[cfg(unix)]
        if let Some(action) = foreign_terminate {
            // SAFETY: restoring a disposition read from the kernel a moment ago.
            unsafe { libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut()) };
        }
        #[cfg(unix)]
        for (slot, signal) in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP].into_iter().enumerate() {
            if !(signal == libc::SIGTERM && foreign_terminate.is_some()) {
                record_before(slot, signal);
            }
        }
    }
}

/// The handlers [`record`] passes each signal on to (those `ctrlc` installed), by slot:
/// SIGINT, SIGTERM, SIGHUP.
#[cfg(unix)]
static PASSED_ON: [OnceLock<libc::sigaction>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];

/// Puts [`record`] in front of `signal`'s handler, so that the signal's number is known
/// when the handler's thread runs.
#[cfg(unix)]
fn record_before(slot: usize, signal: libc::c_int) {
    let Some(handler) = installed_handler(signal) else { return };
    if PASSED_ON[slot].set(handler).is_err() {
        return;
    }
    // SAFETY: a plain C struct filled in before use; `record` only stores an atomic and
    // calls the handler that was installed, both safe in a signal handler.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = record as *const () as usize;
        action.sa_mask = handler.sa_mask;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

#[cfg(unix)]
extern "C" fn record(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    LAST_SIGNAL.store(signal, Ordering::SeqCst);
    let slot = match signal {
        libc::SIGINT => 0,
        libc::SIGTERM => 1,
        _ => 2,
    };
    if let Some(handler) = PASSED_ON[slot].get() {
        // SAFETY: the handler installed for this signal before `record`, called as its
        // flags say it takes its arguments.
        unsafe {
            if handler.sa_flags & libc::SA_SIGINFO != 0 {
                let call: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(handler.sa_sigaction);
                call(signal, info, context);
            } else {
                let call: extern "C" fn(libc::c_int) = std::mem::transmute(handler.sa_sigaction);
                call(signal);
            }
        }
    }
}

/// The action of `signal` when it is a handler of this process's own (not the default, not
/// ignored).
#[cfg(unix)]
fn installed_handler(signal: libc::c_int) -> Option<libc::sigaction> {
    // SAFETY: a query (no new action) into a zeroed sigaction, a plain C struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut action) != 0 {
            return None;
        }
        (action.sa_sigaction != libc::SIG_DFL && action.sa_sigaction != libc::SIG_IGN).then_some(action)
    }
}

/// The flag the first Ctrl-C sets, without installing the handler (a library loop reads
/// it; only a command that promises to stop cleanly installs the handler).
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// Temporary files being written, which an exit on the second press removes (it skips the
/// destructors that would otherwise).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the list leaves it usable: it is only a list of paths.
    PENDING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every file of the list (those already gone are skipped) and empties it.
fn remove_all(paths: &mut Vec<PathBuf>) {
    for path in paths.drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

/// Whether `path` is a temporary this process is writing (registered by [`writing`]).
pub fn is_being_written(path: &Path) -> bool {
    pending().iter().any(|p| p == path)
}

/// Makes a temporary file with `make` and registers its path (`path_of`) with the exit held
/// off in between, so that a second Ctrl-C, which exits without running destructors,
/// removes it rather than leaving it beside its target. The [`Writing`] forgets it again.
pub fn writing<T, E>(make: impl FnOnce() -> Result<T, E>, path_of: impl Fn(&T) -> &Path) -> Result<(T, Writing), E> {
    let mut pending = pending();
    let made = make()?;
    let temporary = path_of(&made).to_path_buf();
    pending.push(temporary.clone());
    Ok((made, Writing { temporary }))
}

/// A registered temporary: [`Writing::finish`] runs its last step (the rename into place,
/// or the removal) with the exit held off, then forgets it; dropping it only forgets it.
pub struct Writing {
    temporary: PathBuf,
}

impl Writing {
    /// Runs `last_step` while a second Ctrl-C waits, so the exit sees the file either
    /// still temporary (and removes it) or already renamed (and leaves it), never between.
    pub fn finish<T>(self, last_step: impl FnOnce() -> T) -> T {
        let mut pending = pending();
        let result = last_step();
        pending.retain(|path| path != &self.temporary);
        result
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        pending().retain(|path| path != &self.temporary);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_is_registered_until_finished_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let make = |name: &str| {
            let path = dir.path().join(name);
            writing(|| std::fs::write(&path, "x").map(|_| path.clone()), |path| path.as_path()).unwrap()
        };
        let (first, writing_first) = make("first.partial");
        let (second, writing_second) = make("second.partial");
        assert!(is_being_written(&first) && is_being_written(&second));
        let renamed = dir.path().join("first");
        writing_first.finish(|| std::fs::rename(&first, &renamed)).unwrap();
        assert!(!is_being_written(&first) && is_being_written(&second));
        drop(writing_second);
        assert!(!is_being_written(&second));
        // A temporary that could not be made is not registered.
        let failed = writing(|| Err::<PathBuf, _>("no room"), |path| path.as_path());
        assert_eq!(failed.err(), Some("no room"));
    }

    #[test]
    fn the_exit_removes_every_registered_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths: Vec<PathBuf> =
            ["a.partial", "b.partial", "gone.partial"].iter().map(|n| dir.path().join(n)).collect();
        std::fs::write(&paths[0], "a").unwrap();
        std::fs::write(&paths[1], "b").unwrap();
        std::fs::write(dir.path().join("kept.csv"), "kept").unwrap();
        remove_all(&mut paths);
        assert!(paths.is_empty());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["kept.csv"]);
    }
}
