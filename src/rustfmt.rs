//! Formats the Rust files of a plan with `rustfmt`, so scaffolded code is `cargo fmt` clean whatever names it holds.

use std::io::Write;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::plan::Plan;

/// The edition scaffolded crates use.
const EDITION: &str = "2024";

/// Formats every `.rs` file the plan writes. Without a working `rustfmt` the files are kept as rendered and a
/// note tells the user to run `cargo fmt`.
pub fn format_plan(plan: &mut Plan) -> Result<()> {
    let rust: Vec<_> = plan
        .ops()
        .iter()
        .filter(|op| op.path.extension().is_some_and(|e| e == "rs") && !plan.verbatim.contains(&op.path))
        .filter_map(|op| Some((op.path.clone(), op.contents.clone()?)))
        .collect();
    for (path, text) in rust {
        match format(&text) {
            Ok(formatted) => plan.replace_contents(&path, formatted),
            Err(Unavailable(why)) => {
                plan.notes.push(format!("note: rustfmt is not available ({why}); run `cargo fmt` in the project"));
                return Ok(());
            }
        }
    }
    Ok(())
}

/// `rustfmt` could not be run, or could not format the text.
#[derive(Debug)]
pub struct Unavailable(pub String);

/// Formats one Rust source text through `rustfmt` on standard input.
pub fn format(text: &str) -> std::result::Result<String, Unavailable> {
    let run = || -> Result<String> {
        let mut child = Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into()))
            .args(["--edition", EDITION, "--emit", "stdout", "--quiet"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start rustfmt")?;
        child.stdin.take().context("rustfmt has no stdin")?.write_all(text.as_bytes())?;
        let out = child.wait_with_output()?;
        if !out.status.success() {
            anyhow::bail!("rustfmt failed: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(String::from_utf8(out.stdout)?)
    };
    run().map_err(|e| Unavailable(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_when_available() {
        match format("fn  main( ){let x=1;}") {
            Ok(out) => assert_eq!(out, "fn main() {\n    let x = 1;\n}\n"),
            Err(Unavailable(why)) => eprintln!("rustfmt unavailable here: {why}"),
        }
    }
}
