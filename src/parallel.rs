//! Work spread over the machine's cores: an order-keeping map over independent items, on scoped threads. The
//! result is the sequential one, item for item; with fewer items than make threads worth starting, it is the
//! sequential loop itself.
//!
//! One thread per core; `KUBESMITH_THREADS` overrides ([`threads`]; `1` is the sequential path); under 8 items the
//! calling thread works alone. `make manifests` renders each CRD through it (description truncation, size and
//! pruning notes, YAML text, the old file's read), reads a large crate's texts and works out their facts with it,
//! and `apply` stages a plan's files with it; `tests/it/make_manifests_parallel.rs` compares the files and messages
//! of 1 and 2 threads byte for byte. Syntax trees (`syn`, `proc_macro2`'s fallback tokens) are not `Send`:
//! a thread that parses keeps its trees (see `crd::partition`).

use std::num::NonZeroUsize;

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
    let chunk = len.div_ceil(threads);
    let mut chunks: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut items = items.into_iter();
    for _ in 0..threads {
        chunks.push(items.by_ref().take(chunk).collect());
    }
    let f = &f;
    let mut out = Vec::with_capacity(len);
    std::thread::scope(|s| {
        let mut chunks = chunks.into_iter();
        // The first chunk runs here, the others on their own threads.
        let first = chunks.next().unwrap_or_default();
        let handles: Vec<_> = chunks.map(|c| s.spawn(move || c.into_iter().map(f).collect::<Vec<R>>())).collect();
        out.extend(first.into_iter().map(f));
        for h in handles {
            match h.join() {
                Ok(part) => out.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    out
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
    fn a_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| map((0..100).collect(), |i: i32| assert!(i != 77, "boom")));
        assert!(caught.is_err());
    }
}
