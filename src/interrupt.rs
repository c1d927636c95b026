//! Ctrl-C (SIGINT) and SIGTERM: they end kubesmith at once while it only reads and plans, and wait while
//! [`crate::apply`] writes, which then rolls back (or, once every file is staged, finishes) and ends with 130.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGINT, SIGTERM};

/// The exit code of a command ended by a signal, as shells report SIGINT.
pub const EXIT_CODE: u8 = 130;

struct Flags {
    /// True outside [`Critical`]: a signal then ends the process at once.
    may_exit: Arc<AtomicBool>,
    /// Set by a signal that arrived inside [`Critical`].
    pending: Arc<AtomicBool>,
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Installs the handlers (once; later calls do nothing). Until then the signals keep their default action.
pub fn install() {
    FLAGS.get_or_init(|| {
        let flags = Flags { may_exit: Arc::new(AtomicBool::new(true)), pending: Arc::new(AtomicBool::new(false)) };
        for signal in [SIGINT, SIGTERM] {
            // Registered first, so a signal inside the critical section is recorded before the shutdown check.
            let _ = signal_hook::flag::register(signal, Arc::clone(&flags.pending));
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                i32::from(EXIT_CODE),
                Arc::clone(&flags.may_exit),
            );
        }
        flags
    });
}

/// Whether a signal arrived inside a critical section (the command should stop).
pub fn pending() -> bool {
    FLAGS.get().is_some_and(|f| f.pending.load(Ordering::SeqCst))
}

/// While alive, a signal does not end the process: it is recorded for [`pending`]. Nests.
pub struct Critical {
    was: bool,
}

impl Critical {
    /// Enters the critical section.
    pub fn enter() -> Self {
        let was = FLAGS.get().is_some_and(|f| f.may_exit.swap(false, Ordering::SeqCst));
        Self { was }
    }
}

impl Drop for Critical {
    fn drop(&mut self) {
        if let Some(f) = FLAGS.get()
            && self.was
        {
            f.may_exit.store(true, Ordering::SeqCst);
        }
    }
}

/// The error of a command a signal stopped; `run_cli` exits with [`EXIT_CODE`] for it.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;
