//! `docs/guide.md` is a transcript: every `$ kubesmith ...` line of its ```console blocks runs, in order, in one
//! fresh folder named `memcached-operator`; its ```diff blocks are applied to the files they name where they stand
//! (the edits the guide asks the reader to make); and each command's output (stdout and stderr merged, as a
//! terminal shows them) must match the lines under it (snapbox: `[..]` matches the rest of a line, `...` on a
//! line of its own any lines). A `? failed` line after a command expects a non-zero exit; without it the command
//! must succeed. ```sh blocks are only shown. `cargo xtask bless` (`KUBESMITH_BLESS`) rewrites the outputs in
//! the guide, keeping the elisions that still match.

use std::path::Path;

use snapbox::{Assert, Data, Redactions};

use crate::support::{blessing, repo_root};

/// One fenced block of the guide: its info string, and the byte range of its body (between the fences).
struct Block {
    lang: String,
    body: std::ops::Range<usize>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut open: Option<(String, usize)> = None;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let trimmed = line.trim_end();
        match &open {
            None if trimmed.starts_with("```") => open = Some((trimmed[3..].trim().to_string(), pos)),
            Some((lang, body)) if trimmed == "```" => {
                out.push(Block { lang: lang.clone(), body: *body..start });
                open = None;
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "docs/guide.md: a fenced block is not closed");
    out
}

/// A command of a console block with its expected exit and output.
struct Step {
    line: String,
    fails: bool,
    expected: String,
}

fn steps(body: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for line in body.lines() {
        if line.starts_with("$ ") {
            out.push(Step { line: line.to_string(), fails: false, expected: String::new() });
            continue;
        }
        let step = out.last_mut().expect("a ```console block of docs/guide.md starts with a `$ ` line");
        if step.expected.is_empty() && line == "? failed" {
            step.fails = true;
        } else {
            step.expected.push_str(line);
            step.expected.push('\n');
        }
    }
    out
}

fn render(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        out.push_str(&s.line);
        out.push('\n');
        if s.fails {
            out.push_str("? failed\n");
        }
        out.push_str(&s.expected);
    }
    out
}

/// The words of a command line: split at spaces, with '…' and "…" quoting.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, ' ') => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(quote.is_none(), "unclosed quote in `{line}`");
    out.extend(word);
    out
}

/// Applies a unified diff (`--- a/PATH`, `+++ b/PATH`, hunks) with `git apply`, as a reader would: a hunk whose
/// header miscounts its lines (a corrupt patch) or whose lines are not in the file fails the transcript.
fn apply_diff(dir: &Path, diff: &str) {
    use std::io::Write;
    let path =
        diff.lines().next().and_then(|l| l.strip_prefix("--- a/")).expect("a ```diff block starts with `--- a/PATH`");
    let mut child = std::process::Command::new("git")
        .args(["apply", "--whitespace=nowarn", "-"])
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    let mut text = diff.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "docs/guide.md's edit of {path} does not apply with `git apply`:\n{}{}\n--- the edit:\n{diff}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn golden_guide_transcript() {
    let guide_path = repo_root().join("docs/guide.md");
    let guide = std::fs::read_to_string(&guide_path).expect("docs/guide.md");
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    let mut redactions = Redactions::new();
    redactions.insert("[ROOT]", parent.path().to_path_buf()).unwrap();
    let assert = Assert::new().redact_with(redactions);

    let mut rewritten = String::new();
    let mut copied = 0;
    let mut failures = Vec::new();
    let mut ran = 0;
    for block in blocks(&guide) {
        let body = &guide[block.body.clone()];
        match block.lang.as_str() {
            "diff" => apply_diff(&dir, body),
            "console" => {
                let mut steps = steps(body);
                for step in &mut steps {
                    let argv = words(&step.line[2..]);
                    assert_eq!(argv[0], "kubesmith", "docs/guide.md runs only kubesmith: `{}`", step.line);
                    let output = snapbox::cmd::Command::new(snapbox::cmd::cargo_bin!("kubesmith"))
                        .args(&argv[1..])
                        .current_dir(&dir)
                        .env("NO_COLOR", "1")
                        .env("SOURCE_DATE_EPOCH", "1767225600")
                        .env_remove("CLICOLOR_FORCE")
                        .env_remove("RUST_LOG")
                        .env_remove("KUBESMITH_NO_CACHE")
                        .stderr_to_stdout()
                        .output()
                        .expect("kubesmith runs");
                    ran += 1;
                    let actual = String::from_utf8_lossy(&output.stdout).into_owned();
                    let (actual, expected) = assert.normalize(Data::text(actual), Data::text(step.expected.clone()));
                    let (actual, expected) = (actual.render().unwrap(), expected.render().unwrap());
                    let failed = !output.status.success();
                    if actual != expected || failed != step.fails {
                        let diff = Assert::new()
                            .try_eq(Some(&"actual"), Data::text(actual.clone()), Data::text(expected))
                            .err()
                            .map_or_else(String::new, |e| e.to_string());
                        let mut report = format!("`{}`", step.line);
                        if failed != step.fails {
                            let want = if step.fails { "a failure (`? failed`)" } else { "success" };
                            report.push_str(&format!(" exited with {} (the guide expects {want})", output.status));
                        }
                        if !diff.is_empty() {
                            report.push_str(&format!(": its output differs\n{diff}"));
                        }
                        failures.push(report);
                    }
                    step.fails = failed;
                    step.expected = actual;
                }
                rewritten.push_str(&guide[copied..block.body.start]);
                rewritten.push_str(&render(&steps));
                copied = block.body.end;
            }
            _ => {}
        }
    }
    rewritten.push_str(&guide[copied..]);
    assert!(ran > 10, "docs/guide.md has too few commands ({ran}): is it still the guide?");
    if blessing() {
        if rewritten != guide {
            std::fs::write(&guide_path, rewritten).unwrap();
        }
        return;
    }
    assert!(
        failures.is_empty(),
        "docs/guide.md no longer shows what kubesmith does:\n\n{}\n\nIf the change is intended, rewrite the guide's \
         outputs with `cargo xtask bless` (or `KUBESMITH_BLESS=1 cargo test --test it golden_guide`), review \
         `git diff docs/guide.md` and make its prose agree.",
        failures.join("\n\n")
    );
    // The project the guide leaves passes its own tests (against a real API server too, with KUBEBUILDER_ASSETS).
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: not building the guide's project");
        return;
    }
    std::fs::copy(repo_root().join("tests/e2e/operator.Cargo.lock"), dir.join("Cargo.lock")).expect("the e2e lock");
    let started = std::time::Instant::now();
    let out = std::process::Command::new(env!("CARGO"))
        .args(["test", "--locked", "--all-targets"]) // no doctests in the shared target: see e2e::build_lint_test
        .current_dir(&dir)
        .envs(crate::e2e::shared_build_env())
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    eprintln!("guide: the guide's project's `cargo test` took {:.1}s", started.elapsed().as_secs_f64());
    assert!(
        out.status.success(),
        "the project docs/guide.md leaves fails its own `cargo test`:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
