//! Work spread over the machine's cores: an order-keeping map over independent items, on scoped threads that each
//! take the next item not taken yet. The result is the sequential one, item for item; with fewer items than make threads worth starting, it is the
//! sequential loop itself.
//!
//! One thread per core; `KUBESMITH_THREADS` overrides ([`threads`]; `1` is the sequential path); under 8 items the
//! calling thread works alone. `make manifests` renders each CRD through it (description truncation, size and
//! pruning notes, YAML text, the old file's read), reads a large crate's texts and works out their facts with it,
//! and `apply` stages a plan's files with it; `tests/it/make_manifests_parallel.rs` compares the files and messages
//! of 1 and 2 threads byte for byte. Syntax trees (`syn`, `proc_macro2`'s fallback tokens) are not `Send`:
//! a thread that parses keeps its trees (see `crd::partition`).

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Fewer items than this run on the calling thread: starting a thread (~20 µs) costs more than it saves.
const MIN_PARALLEL: usize = 8;

/// `items` mapped by `f`, in order, on up to as many threads as the machine has cores (`KUBESMITH_THREADS`
/// overrides: `1` is the sequential path). A panic in `f` is resumed on the caller.
pub fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = threads().min(items.len() / (MIN_PARALLEL / 2).max(1)).max(1);
    if threads == 1 || items.len() < MIN_PARALLEL {
        return items.into_iter().map(f).collect();
    }
    let len = items.len();
    // Each thread takes the next item not taken yet, so a few large items (a crate's largest files) do not leave
    // one thread working through its share while the others wait.
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|item| Mutex::new(Some(item))).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = slots.get(at) else { break };
            // Each index is handed out once: the lock is never waited for, and it is released before `f` runs.
            let taken = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(item) = taken {
                done.push((at, f(item)));
            }
        }
        done
    };
    let mut out: Vec<Option<R>> = std::iter::repeat_with(|| None).take(len).collect();
    std::thread::scope(|s| {
        let work = &work;
        let handles: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        // The calling thread works too.
        let mine = work();
        let theirs = handles.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        for (at, r) in std::iter::once(mine).chain(theirs).flatten() {
            out[at] = Some(r);
        }
    });
    out.into_iter().map(|r| r.expect("every item is taken once")).collect()
}

/// How many threads [`map`] uses: `KUBESMITH_THREADS` when set to a positive number, else the available cores.
pub fn threads() -> usize {
    if let Some(n) = std::env::var("KUBESMITH_THREADS").ok().and_then(|v| v.parse::<NonZeroUsize>().ok()) {
        return n.get();
    }
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_order_of_the_sequential_map() {
        let items: Vec<usize> = (0..1000).collect();
        let expected: Vec<String> = items.iter().map(|i| format!("<{i}>")).collect();
        assert_eq!(map(items, |i| format!("<{i}>")), expected);
        // Few items: the calling thread alone.
        let here = std::thread::current().id();
        assert!(map(vec![1, 2, 3], |_| std::thread::current().id()).iter().all(|id| *id == here));
    }

    #[test]
    fn a_slow_item_does_not_hold_up_the_items_after_it() {
        if threads() < 2 {
            return;
        }
        // The first item waits for every other one: it finishes only if the other threads take the items after
        // it while it waits (a thread given a fixed share starting with it would take them only after it).
        let others = AtomicUsize::new(0);
        let items: Vec<usize> = (0..64).collect();
        let start = std::time::Instant::now();
        let out = map(items, |i| {
            if i > 0 {
                others.fetch_add(1, Ordering::SeqCst);
                return true;
            }
            while others.load(Ordering::SeqCst) < 63 {
                if start.elapsed() > std::time::Duration::from_secs(20) {
                    return false;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            true
        });
        assert!(out[0], "the first item waited 20 s for the others");
        assert_eq!(out.len(), 64);
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| map((0..100).collect(), |i: i32| assert!(i != 77, "boom")));
        assert!(caught.is_err());
    }
}
