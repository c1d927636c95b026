//! kubesmith: scaffold, generate and package Kubernetes operators written in Rust with kube-rs.
//!
//! [`run_cli`] parses, sets the output level, marks the process as short-lived for the CRD generator
//! (`source::forget::forget_trees_when_done`), installs the signal handling ([`interrupt::install`]), runs the
//! command and maps its outcome to an exit code: 0 ok, 1 failure, 2 usage (`usage::UsageError` and clap's own usage
//! errors), 130 interrupted.

pub(crate) mod apply;
pub(crate) mod builtin;
pub mod cli;
pub(crate) mod clock;
pub(crate) mod commands;
pub mod crd;
pub mod docs;
pub(crate) mod edit;
pub(crate) mod envtest;
pub(crate) mod formatted;
pub(crate) mod git;
pub(crate) mod grafana;
pub(crate) mod helm;
pub(crate) mod interrupt;
pub(crate) mod kustomize;
pub mod markers;
pub(crate) mod names;
pub mod olm;
pub(crate) mod ops;
pub(crate) mod output;
pub(crate) mod parallel;
pub(crate) mod plan;
pub mod project;
pub mod rbac;
pub(crate) mod render;
pub(crate) mod runtime_source;
pub(crate) mod rustfmt;
pub mod source;
pub(crate) mod usage;
pub(crate) mod webhook;
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
            if err.downcast_ref::<usage::UsageError>().is_some() { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
