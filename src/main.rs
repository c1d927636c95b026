//! The `kubesmith` binary: parses the command line and maps the outcome to an exit code.

/// mimalloc: `make manifests` allocates in many small pieces (syntax trees, JSON schemas, YAML text), where the
/// system allocator spent a quarter of its instructions. Its v2 (`Cargo.toml`): on the wide bench corpus v3 kept
/// 125–148 MB resident where v2 keeps 96–101 MB, at the same speed.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kubesmith::run_cli()
}
