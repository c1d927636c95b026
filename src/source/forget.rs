//! Whether this process leaks the syntax trees it parsed instead of freeing them: set once by the `kubesmith`
//! binary, read by every reader of the sources (the CRD generator, RBAC inference).

use std::sync::atomic::{AtomicBool, Ordering};

static FORGET_TREES: AtomicBool = AtomicBool::new(false);

/// Makes readers of the sources leak their syntax trees (the CRD generator's crate index, RBAC inference's parsed
/// program) instead of freeing them, for a process that exits soon after: the `kubesmith` binary sets it
/// (`run_cli`), where freeing the trees one by one is CPU time spent just before the OS reclaims the memory anyway.
/// A reader may free a large set of trees all the same when what comes after reuses its memory. A long-running
/// process must not set it.
pub fn forget_trees_when_done() {
    FORGET_TREES.store(true, Ordering::Relaxed);
}

/// Whether [`forget_trees_when_done`] was called.
pub(crate) fn forgets_trees() -> bool {
    FORGET_TREES.load(Ordering::Relaxed)
}
