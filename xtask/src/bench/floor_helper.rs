//! The bench's parse-only floor, a program of its own (not a module of xtask): `cargo xtask bench` writes it to
//! `target/bench/parse-floor/` with kubesmith's syn, proc-macro2 (span-locations) and allocator and builds it in
//! the release profile (`bench/floor.rs`). `parse-floor DIR RUNS THREADS` reads every `.rs` file below DIR and
//! tokenizes it (`proc_macro2::TokenStream`) or parses it (`syn::parse_file`), one warm-up and RUNS timed runs
//! per pass, and prints `<pass> <threads> <wall ns> <cpu ns>` per run (cpu: this process' user + sys).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn rust_files(dir: &Path, out: &mut Vec<(u64, PathBuf)>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((e.metadata().map(|m| m.len()).unwrap_or(0), p));
        }
    }
}

/// User + sys time of this process (all its threads), in ns (`/proc/self/stat`, USER_HZ = 100).
fn cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 2..]);
    let fields: Vec<u64> = rest.split_whitespace().map(|f| f.parse().unwrap_or(0)).collect();
    // utime and stime are fields 14 and 15 (1-based), the rest starting at field 3
    (fields.get(11).unwrap_or(&0) + fields.get(12).unwrap_or(&0)) * 10_000_000
}

/// Reads and tokenizes or parses every file, the largest first, on `threads` threads (new ones each run, so
/// proc-macro2's per-thread source map starts empty as in a new process).
fn pass(files: &[PathBuf], parse: bool, threads: usize) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| -> Result<(), String> {
                    while let Some(file) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let text = std::fs::read_to_string(file)
                            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                        if parse {
                            let tree = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
                            std::hint::black_box(tree);
                        } else {
                            let tokens: proc_macro2::TokenStream =
                                text.parse().map_err(|e| format!("{}: {e}", file.display()))?;
                            std::hint::black_box(tokens);
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|_| Err("a parse thread panicked".into())))
    })
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(Ok(runs)), Some(Ok(threads))) =
        (args.first(), args.get(1).map(|r| r.parse::<usize>()), args.get(2).map(|t| t.parse::<usize>()))
    else {
        eprintln!("usage: parse-floor DIR RUNS THREADS");
        return std::process::ExitCode::from(2);
    };
    let mut found = Vec::new();
    rust_files(Path::new(dir), &mut found);
    if found.is_empty() {
        eprintln!("error: no .rs file below {dir}");
        return std::process::ExitCode::FAILURE;
    }
    found.sort_by(|a, b| b.cmp(a));
    let files: Vec<PathBuf> = found.into_iter().map(|(_, p)| p).collect();
    let mut passes = vec![("tokenize", false, 1), ("parse", true, 1)];
    if threads > 1 {
        passes.push(("parse", true, threads));
    }
    for (name, parse, threads) in passes {
        for run in 0..=runs {
            let (cpu, t) = (cpu_ns(), Instant::now());
            if let Err(e) = pass(&files, parse, threads) {
                eprintln!("error: {e}");
                return std::process::ExitCode::FAILURE;
            }
            let (wall, cpu) = (t.elapsed().as_nanos(), cpu_ns() - cpu);
            if run > 0 {
                println!("{name} {threads} {wall} {cpu}");
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
