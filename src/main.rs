//! The `kubesmith` binary: parses the command line and maps the outcome to an exit code.
fn main() -> std::process::ExitCode {
    kubesmith::run_cli()
}
