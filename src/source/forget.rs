//! How the `kubesmith` binary's process treats its memory, set once by the binary and read by every reader of the
//! sources (the CRD generator, RBAC inference): whether it leaks the syntax trees it parsed instead of freeing them,
//! and whether it faults its memory in small pages.

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

/// Has the rest of the binary's run fault its memory in 4 KiB pages, not transparent huge pages, for a large crate
/// (the CRD reader says which), called before its texts are read. The allocator asks for huge pages,
/// where one touched byte makes 2 MiB resident: a large crate's parts free their trees and the next part's reuse
/// them, but in huge pages that memory stays resident many times over. Turned off before the texts are read rather
/// than once the crate was split, peak RSS fell from ~147 to ~140 MiB on the wide bench corpus and from ~96.5 to
/// ~95 MiB on the 5.7 MB kopium subset (issue 45). A small crate keeps them: 100 scaffolded kinds fault seven times
/// less often with them and run a tenth faster. Only the binary ([`forget_trees_when_done`]) changes it, for its
/// own process; elsewhere, and where it fails, nothing.
pub(crate) fn small_pages() {
    #[cfg(target_os = "linux")]
    if forgets_trees() {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}
