//! kubesmith: scaffold, generate and package Kubernetes operators written in Rust with kube-rs.

pub mod apply;
pub mod builtin;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod crd;
pub mod docs;
pub mod edit;
pub mod envtest;
pub mod formatted;
pub mod git;
pub mod grafana;
pub mod helm;
pub mod interrupt;
pub mod markers;
pub mod names;
pub mod olm;
pub mod output;
pub mod parallel;
pub mod plan;
pub mod project;
pub mod rbac;
pub mod render;
pub mod runtime_source;
pub mod rustfmt;
pub mod source;
pub mod webhook;
pub mod yaml;

use std::process::ExitCode;

use clap::Parser;

/// Entry point used by the binary: parses arguments, runs the command, maps errors to exit codes
/// (0 ok, 1 failure, 2 usage).
pub fn run_cli() -> ExitCode {
    let cli = cli::Cli::parse();
    output::init(match (cli.quiet, cli.verbose) {
        (true, _) => output::Level::Quiet,
        (_, true) => output::Level::Verbose,
        _ => output::Level::Normal,
    });
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            output::error(format_args!("cannot read the current folder: {e}"));
            return ExitCode::FAILURE;
        }
    };
    // The process exits right after the command: the CRD generator's crate index is left to the OS.
    source::forget::forget_trees_when_done();
    interrupt::install();
    match commands::run(cli, &cwd) {
        Ok(()) if interrupt::pending() => {
            output::error("interrupted once every file above was written: the change is complete");
            ExitCode::from(interrupt::EXIT_CODE)
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<interrupt::Interrupted>().is_some() || interrupt::pending() => {
            output::error(format_args!("{err:#}"));
            ExitCode::from(interrupt::EXIT_CODE)
        }
        Err(err) => {
            output::error(format_args!("{err:#}"));
            if err.downcast_ref::<commands::UsageError>().is_some() { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
