//! Formats the Rust files of a plan with `rustfmt`, so scaffolded code is `cargo fmt` clean whatever names it holds:
//! one `rustfmt` process for all the files of a plan, with the configuration `rustfmt` would use on standard input.
//!
//! `rustfmt` costs ~20 ms a process before it formats anything (~30 ms through the rustup proxy), so the files are
//! written to a private temporary folder and formatted by one `rustfmt <files>` run. Run on files, `rustfmt` differs
//! from its standard-input mode (`format`, one process a text) in two ways, both handled so that the bytes are the
//! same:
//!
//! - **Configuration.** On standard input it looks for `.rustfmt.toml`/`rustfmt.toml` from the working folder
//!   upward, then in the home and configuration folders; on a file, from the file's folder. `Settings::resolve`
//!   finds the working folder's file and passes it with `--config-path`; when there is none, `rustfmt`'s own search
//!   from the temporary folder reaches the same home and configuration folders, unless a folder above the temporary
//!   one holds a configuration (checked; then every file goes through standard input).
//! - **Modules.** On a file it also formats the out-of-line modules the file declares, and fails when one is
//!   missing. Each file that declares such modules gets a folder of its own holding empty files where its
//!   `mod name;` declarations lead (`child_modules`); the others sit in the temporary folder itself, under names
//!   no `mod` declaration can lead to. A file whose modules cannot be placed (a `#[path]` attribute, which could
//!   lead out of the folder) goes through standard input.
//!
//! When the batch fails (a file `rustfmt` cannot parse), each file is formatted again on its own through standard
//! input, so one broken file neither stops the others nor changes them. Texts kubesmith knows are formatted
//! (`formatted`: templates rendered with short names, edits that keep a file clean) are not formatted again when no
//! configuration file can apply; under `formatted::AUDIT_VAR` they are, and a change is an error.
//!
//! **Invariant:** the bytes are those of `rustfmt --edition 2024` on standard input, file by file (unit tests compare
//! both); without `rustfmt` the plan is applied as rendered, with a note.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::plan::Plan;

/// The edition scaffolded crates use.
const EDITION: &str = "2024";

/// The configuration file names `rustfmt` looks for in a folder, in its order.
const CONFIG_FILES: [&str; 2] = [".rustfmt.toml", "rustfmt.toml"];

/// The name of a file of the batch (in its own folder, or after its number): not a Rust identifier, so no `mod`
/// declaration leads to it.
const BATCH_FILE: &str = "kubesmith-input.rs";

/// Formats every `.rs` file the plan writes. Without a working `rustfmt` the files are kept as rendered and a
/// note tells the user to run `cargo fmt`; a file `rustfmt` refuses is kept as planned, with a note naming it.
pub fn format_plan(plan: &mut Plan) -> Result<()> {
    // Each Rust file with whether it is known clean (a new file's text must lead back to a clean rendering).
    let files: Vec<(PathBuf, String, bool)> = plan
        .ops()
        .iter()
        .filter(|op| op.path.extension().is_some_and(|e| e == "rs") && !plan.verbatim.contains(&op.path))
        .filter_map(|op| {
            let text = op.contents.clone()?;
            let clean = crate::formatted::is_clean(&text, op.action != crate::plan::Action::Edit);
            Some((op.path.clone(), text, clean))
        })
        .collect();
    if files.is_empty() {
        return Ok(());
    }
    let settings = Settings::resolve(None);
    if settings.default_style && crate::formatted::auditing() && audit(plan, &files, &settings)? {
        return Ok(());
    }
    let rust: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter(|(_, _, clean)| !(settings.default_style && *clean))
        .map(|(path, text, _)| (path, text))
        .collect();
    let names: Vec<String> = rust.iter().map(|(path, _)| path.display().to_string()).collect();
    crate::output::detail(format_args!("{} Rust file(s) to format with rustfmt: {}", rust.len(), names.join(", ")));
    if rust.is_empty() {
        return Ok(());
    }
    let texts: Vec<&str> = rust.iter().map(|(_, text)| text.as_str()).collect();
    match format_with(&texts, &settings) {
        Err(Unavailable(why)) => {
            plan.notes.push(format!("note: rustfmt is not available ({why}); run `cargo fmt` in the project"));
        }
        Ok(results) => {
            for ((path, _), result) in rust.iter().zip(results) {
                match result {
                    Ok(formatted) => plan.replace_contents(path, formatted),
                    Err(why) => plan.notes.push(cannot_format(path, &why)),
                }
            }
        }
    }
    Ok(())
}

/// `format_plan` under `formatted::AUDIT_VAR`: formats every file, and fails when `rustfmt` changes a text
/// `formatted` calls clean (an edit's only when `rustfmt` leaves the text the edit started from unchanged).
/// `false` when `rustfmt` cannot run: `format_plan` then goes on as without the audit.
fn audit(plan: &mut Plan, rust: &[(PathBuf, String, bool)], settings: &Settings) -> Result<bool> {
    let roots: Vec<Option<String>> = rust
        .iter()
        .map(|(_, text, clean)| match crate::formatted::origin(text) {
            Some(crate::formatted::Origin::EditOf(_)) if *clean => Some(crate::formatted::root(text)),
            _ => None,
        })
        .collect();
    let mut texts: Vec<&str> = rust.iter().map(|(_, text, _)| text.as_str()).collect();
    texts.extend(roots.iter().flatten().map(String::as_str));
    let Ok(results) = format_with(&texts, settings) else { return Ok(false) };
    let (results, root_results) = results.split_at(rust.len());
    let mut root_results = root_results.iter();
    for (((path, text, clean), result), root) in rust.iter().zip(results).zip(&roots) {
        let root_clean = match root {
            Some(root) => root_results.next().is_some_and(|r| r.as_ref().is_ok_and(|f| f == root)),
            None => true,
        };
        let formatted = match result {
            Ok(formatted) => formatted,
            Err(why) => {
                plan.notes.push(cannot_format(path, why));
                continue;
            }
        };
        anyhow::ensure!(
            !(*clean && root_clean && formatted != text),
            "internal error ({}): {} is written as rendered, as rustfmt clean, but rustfmt changes it:\n{}",
            crate::formatted::AUDIT_VAR,
            path.display(),
            first_difference(text, formatted)
        );
        plan.replace_contents(path, formatted.clone());
    }
    Ok(true)
}

/// The note for a file `rustfmt` refuses.
fn cannot_format(path: &Path, why: &str) -> String {
    format!(
        "note: rustfmt cannot format {} ({why}); it is written unformatted: fix it, then run `cargo fmt` in the project",
        path.display()
    )
}

/// The first line where `a` and `b` differ, as `- a` / `+ b`, numbered.
fn first_difference(a: &str, b: &str) -> String {
    let (mut left, mut right) = (a.lines(), b.lines());
    for n in 1.. {
        match (left.next(), right.next()) {
            (None, None) => break,
            (x, y) if x == y => continue,
            (x, y) => return format!("line {n}:\n- {}\n+ {}", x.unwrap_or("<end>"), y.unwrap_or("<end>")),
        }
    }
    "the line ends differ".into()
}

/// `rustfmt` could not be run, or could not format the text.
#[derive(Debug)]
pub struct Unavailable(pub String);

/// One text of [`format_all`]: formatted, or why `rustfmt` refused it.
pub type FileResult = std::result::Result<String, String>;

/// Formats one Rust source text through `rustfmt` on standard input.
#[cfg(test)]
pub fn format(text: &str) -> std::result::Result<String, Unavailable> {
    format_in(None, text)
}

/// [`format`] with `rustfmt` working in `dir` (where it looks for its configuration), else in the working folder.
fn format_in(dir: Option<&Path>, text: &str) -> std::result::Result<String, Unavailable> {
    let run = || -> Result<String> {
        let mut cmd = Command::new(rustfmt_program());
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd
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

/// Formats every text as [`format`] would, through as few `rustfmt` processes as possible (one, unless a file
/// fails). `Err` when `rustfmt` cannot be run at all; otherwise one result per text, in order: the formatted text,
/// or why `rustfmt` refused it.
pub fn format_all(texts: &[&str]) -> std::result::Result<Vec<FileResult>, Unavailable> {
    format_with(texts, &Settings::resolve(None))
}

fn format_with(texts: &[&str], settings: &Settings) -> std::result::Result<Vec<FileResult>, Unavailable> {
    let mut results: Vec<Option<FileResult>> = vec![None; texts.len()];
    // Whether rustfmt has formatted something in this run: a failure is then the file's, not rustfmt's.
    let mut works = false;
    if texts.len() > 1 && !matches!(settings.batch, Batch::Never) {
        let batchable: Vec<(usize, Vec<PathBuf>)> =
            texts.iter().enumerate().filter_map(|(i, text)| Some((i, child_modules(text)?))).collect();
        if batchable.len() > 1
            && let Some(formatted) = format_batch(texts, &batchable, settings)
        {
            for ((i, _), text) in batchable.iter().zip(formatted) {
                results[*i] = Some(Ok(text));
            }
            works = true;
        }
    }
    for (i, result) in results.iter_mut().enumerate().filter(|(_, r)| r.is_none()) {
        *result = Some(match format_in(settings.dir.as_deref(), texts[i]) {
            Ok(text) => {
                works = true;
                Ok(text)
            }
            Err(Unavailable(why)) => {
                if !works {
                    // Tell "rustfmt does not work" (the plan stays as rendered) from "rustfmt refuses this file".
                    format_in(settings.dir.as_deref(), "")?;
                    works = true;
                }
                Err(why)
            }
        });
    }
    Ok(results.into_iter().map(|r| r.expect("every text has a result")).collect())
}

/// Formats the `batchable` texts (index, child modules) with one `rustfmt` run on files in a private temporary
/// folder; `None` when that cannot be done or `rustfmt` fails (each file then goes through standard input).
fn format_batch(texts: &[&str], batchable: &[(usize, Vec<PathBuf>)], settings: &Settings) -> Option<Vec<String>> {
    let dir = TempDir::new().ok()?;
    let config = match &settings.batch {
        Batch::Config(file) => Some(file.as_path()),
        // rustfmt searches from each file's folder upward before the home and configuration folders: a
        // configuration above the temporary folder (and not above the working folder) would be a stray one.
        Batch::Search if find_config_upward(dir.path()).ok()?.is_some() => return None,
        Batch::Search => None,
        Batch::Never => return None,
    };
    // Every file operation counts on a busy disk: a file that declares no module sits in the folder itself.
    let mut files = Vec::with_capacity(batchable.len());
    for (n, (i, children)) in batchable.iter().enumerate() {
        let file = if children.is_empty() {
            dir.path().join(format!("{n}-{BATCH_FILE}"))
        } else {
            let folder = dir.path().join(n.to_string());
            std::fs::create_dir(&folder).ok()?;
            let mut made = std::collections::BTreeSet::new();
            for child in children {
                let child = folder.join(child);
                let parent = child.parent()?;
                if parent != folder && made.insert(parent.to_path_buf()) {
                    std::fs::create_dir_all(parent).ok()?;
                }
                std::fs::write(&child, "").ok()?;
            }
            folder.join(BATCH_FILE)
        };
        std::fs::write(&file, texts[*i]).ok()?;
        files.push(file);
    }
    let mut cmd = Command::new(rustfmt_program());
    cmd.args(["--edition", EDITION, "--quiet"]);
    if let Some(config) = config {
        cmd.arg("--config-path").arg(config);
    }
    // Its messages are not kept: on failure each file runs again on its own, with its own message.
    let status = cmd.args(&files).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status().ok()?;
    if !status.success() {
        return None;
    }
    files.iter().map(|f| std::fs::read_to_string(f).ok()).collect()
}

/// The program: `$RUSTFMT`, else `rustfmt` on the `PATH`.
fn rustfmt_program() -> String {
    std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into())
}

/// Which configuration `rustfmt` uses on standard input in the working folder, and how a batch gets the same.
struct Settings {
    /// The folder `rustfmt` works in on standard input; `None`: kubesmith's working folder.
    dir: Option<PathBuf>,
    batch: Batch,
    /// No configuration file can apply (none from the working folder upward, none in the home or configuration
    /// folders): `rustfmt`'s defaults.
    default_style: bool,
}

enum Batch {
    /// The working folder or one above it holds this configuration file: passed with `--config-path`.
    Config(PathBuf),
    /// None there: `rustfmt`'s own search goes on to the home and configuration folders.
    Search,
    /// The search failed (as it would in `rustfmt`): every file through standard input, which reports it.
    Never,
}

impl Settings {
    /// The settings of `rustfmt` working in `dir` (`None`: kubesmith's working folder).
    fn resolve(dir: Option<PathBuf>) -> Settings {
        let found = match &dir {
            Some(dir) => find_config_upward(dir),
            None => std::env::current_dir().and_then(|cwd| find_config_upward(&cwd)),
        };
        let (batch, default_style) = match found {
            Ok(Some(file)) => (Batch::Config(file), false),
            Ok(None) => (Batch::Search, !user_config_may_exist()),
            Err(_) => (Batch::Never, false),
        };
        Settings { dir, batch, default_style }
    }
}

/// The nearest `.rustfmt.toml`/`rustfmt.toml` file in `start` or a folder above it, as `rustfmt` finds it.
fn find_config_upward(start: &Path) -> std::io::Result<Option<PathBuf>> {
    let mut dir = std::fs::canonicalize(start)?;
    loop {
        if let Some(file) = config_in(&dir)? {
            return Ok(Some(file));
        }
        if !dir.pop() {
            return Ok(None);
        }
    }
}

fn config_in(dir: &Path) -> std::io::Result<Option<PathBuf>> {
    for name in CONFIG_FILES {
        let file = dir.join(name);
        match std::fs::metadata(&file) {
            Ok(meta) if meta.is_file() => return Ok(Some(file)),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Whether a configuration file may sit where `rustfmt` looks after the folders above the input: the home folder
/// and the `rustfmt` folder of the user's configuration folder. Every place some platform uses is checked, so a
/// `false` is certain.
fn user_config_may_exist() -> bool {
    #[allow(deprecated)] // `home_dir` is deprecated before Rust 1.87 (this crate supports 1.85).
    let mut homes: Vec<PathBuf> = std::env::home_dir()
        .into_iter()
        .chain(["HOME", "USERPROFILE"].iter().filter_map(std::env::var_os).map(PathBuf::from))
        .filter(|h| !h.as_os_str().is_empty())
        .collect();
    homes.sort();
    homes.dedup();
    let mut dirs: Vec<PathBuf> = homes.clone();
    for home in &homes {
        dirs.push(home.join(".config/rustfmt"));
        dirs.push(home.join("Library/Application Support/rustfmt"));
    }
    for var in ["XDG_CONFIG_HOME", "APPDATA"] {
        if let Some(base) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            dirs.push(PathBuf::from(base).join("rustfmt"));
        }
    }
    dirs.iter().any(|d| CONFIG_FILES.iter().any(|name| d.join(name).exists()))
}

/// Where `rustfmt`, given `text` as a file, looks for the out-of-line modules it declares (relative to the file's
/// folder): `name.rs` for each `mod name;`, below `outer/` inside `mod outer { .. }`. A declaration in any other
/// braces (a fn body, `cfg_if!`) counts as the enclosing module's; an extra empty file costs nothing. `None` when
/// the file cannot be formatted in a batch: a `path` in an attribute (`#[path]` may lead anywhere, and `rustfmt`
/// writes what it formats), or braces that do not balance.
fn child_modules(text: &str) -> Option<Vec<PathBuf>> {
    if path_assignment(text) {
        return None;
    }
    let b = text.as_bytes();
    let mut found = Vec::new();
    // One entry per open brace: the inline module it opens, if it does.
    let mut open: Vec<Option<&str>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(end) = skip_literal(b, i) {
            i = end;
            continue;
        }
        match b[i] {
            b'{' => open.push(None),
            b'}' => {
                open.pop()?;
            }
            b'#' => {
                let mut k = skip_space(b, i + 1);
                if b.get(k) == Some(&b'!') {
                    k = skip_space(b, k + 1);
                }
                if b.get(k) == Some(&b'[') && attribute_mentions_path(b, k)? {
                    return None;
                }
            }
            c if is_ident_start(c) && (i == 0 || !is_ident_byte(b[i - 1])) => {
                let end = ident_end(b, i);
                if &text[i..end] == "mod" {
                    let name_at = skip_space(b, end);
                    let name_end = ident_end(b, name_at);
                    if name_end > name_at {
                        let name = &text[name_at..name_end];
                        let name = name.strip_prefix("r#").unwrap_or(name);
                        let after = skip_space(b, name_end);
                        match b.get(after) {
                            Some(b';') => {
                                let dir: PathBuf = open.iter().flatten().collect();
                                found.push(dir.join(format!("{name}.rs")));
                            }
                            Some(b'{') => {
                                open.push(Some(name));
                                i = after + 1;
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    open.is_empty().then_some(found)
}

use crate::source::lex::{is_ident_byte, skip_literal};

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// The end of the identifier (raw ones included) starting at `i`; `i` when none starts there.
fn ident_end(b: &[u8], i: usize) -> usize {
    if !b.get(i).is_some_and(|&c| is_ident_start(c)) {
        return i;
    }
    let mut k = i;
    if b[i] == b'r' && b.get(i + 1) == Some(&b'#') && b.get(i + 2).is_some_and(|&c| is_ident_start(c)) {
        k += 2;
    }
    while b.get(k).is_some_and(|&c| is_ident_byte(c)) {
        k += 1;
    }
    k
}

/// The first byte from `i` on that is neither white space nor inside a comment.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i] == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            i = skip_literal(b, i).unwrap_or(b.len());
        } else {
            break;
        }
    }
    i
}

/// Whether the attribute whose `[` is at `open` holds the identifier `path`; `None` when it does not close.
fn attribute_mentions_path(b: &[u8], open: usize) -> Option<bool> {
    let mut depth = 0usize;
    let mut i = open;
    let mut mentions = false;
    while i < b.len() {
        if let Some(end) = skip_literal(b, i) {
            i = end;
            continue;
        }
        match b[i] {
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(mentions);
                }
            }
            c if is_ident_start(c) && !is_ident_byte(b[i - 1]) => {
                let end = ident_end(b, i);
                mentions |= &b[i..end] == b"path";
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A second, purely textual guard against `#[path]`: `path` then `=` (not `==`, `=>`) right after `[`, `(` or `,`
/// (white space between), wherever it is — an attribute the scan above might have misread included.
fn path_assignment(text: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices("path").any(|(at, _)| {
        let before = b[..at].iter().rev().find(|c| !c.is_ascii_whitespace());
        let after = skip_ascii_space(b, at + 4);
        matches!(before, Some(b'[' | b'(' | b','))
            && b.get(after) == Some(&b'=')
            && !matches!(b.get(after + 1), Some(b'=' | b'>'))
    })
}

fn skip_ascii_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// A folder only this process uses (mode 0700 on Unix), removed with everything in it when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let mut last = None;
        for attempt in 0..16u32 {
            let dir = base.join(format!("kubesmith-rustfmt-{}-{nanos:08x}-{attempt}", std::process::id()));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&dir) {
                Ok(()) => return Ok(TempDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.expect("at least one attempt"))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether rustfmt runs here; the tests that need it say so and pass without it.
    fn rustfmt_works() -> bool {
        match format("") {
            Ok(_) => true,
            Err(Unavailable(why)) => {
                eprintln!("rustfmt unavailable here: {why}");
                false
            }
        }
    }

    /// Settings for `rustfmt` working in a fresh folder below the system's temporary folder.
    fn settings_in(dir: &Path) -> Settings {
        Settings::resolve(Some(dir.to_path_buf()))
    }

    const TEXTS: [&str; 8] = [
        "fn  main( ){let x=1;}",
        "pub mod api;\npub mod   controller;\n\nfn main(){}\n",
        "mod outer {\n    mod inner;\n  fn f(){}\n}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        "//! Already formatted.\n\npub fn f() -> u32 {\n    1\n}\n",
        "fn f() { let value = some_function_with_a_long_name(first_argument, second_argument, third_argument, fourth); }",
        "fn a() {}\r\nfn b( ) {}\r\n",
        "use std::io;\nuse std::fmt;\nuse crate::b;\nuse crate::a;\n",
        "cfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        mod unix;\n    } else {\n        mod other;\n    }\n}\n",
    ];

    #[test]
    fn formats_when_available() {
        match format("fn  main( ){let x=1;}") {
            Ok(out) => assert_eq!(out, "fn main() {\n    let x = 1;\n}\n"),
            Err(Unavailable(why)) => eprintln!("rustfmt unavailable here: {why}"),
        }
    }

    #[test]
    fn child_modules_are_found_where_rustfmt_looks() {
        let text = "//! mod doc;\npub mod api;\npub(crate) mod r#type;\n// mod commented;\n/* mod block; */\n\
                    const S: &str = \"mod in_string;\";\nconst C: char = '{';\n#[cfg(test)]\nmod tests {\n    \
                    mod fixtures;\n    mod deeper { mod leaf; }\n    fn f() { let c = '}'; }\n}\n\
                    fn g<'a>(x: &'a str) { mod local; }\nlet path = 1;\nmod\n  spaced\n  ;\n";
        let found = child_modules(text).expect("no path attribute, balanced braces");
        let found: Vec<String> = found.iter().map(|p| p.to_string_lossy().replace('\\', "/")).collect();
        assert_eq!(found, ["api.rs", "type.rs", "tests/fixtures.rs", "tests/deeper/leaf.rs", "local.rs", "spaced.rs"]);
        assert_eq!(child_modules("fn main() {}\n"), Some(Vec::new()));
    }

    #[test]
    fn files_whose_modules_may_lead_anywhere_are_not_batched() {
        for text in [
            "#[path = \"../outside.rs\"]\nmod outside;\n",
            "#[cfg_attr(unix, path = \"/etc/x.rs\")]\nmod x;\n",
            "#[ /* comment */ path = \"x.rs\"]\nmod x;\n",
            "mod a {\n    #![path = \"x\"]\n    mod b;\n}\n",
            "fn f() {\n",
            "fn f() }\n",
        ] {
            assert_eq!(child_modules(text), None, "{text}");
        }
    }

    #[test]
    fn a_batch_formats_like_standard_input() {
        if !rustfmt_works() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let settings = settings_in(dir.path());
        assert!(matches!(settings.batch, Batch::Search), "no configuration in a fresh temporary folder");
        let batchable: Vec<(usize, Vec<PathBuf>)> =
            TEXTS.iter().enumerate().map(|(i, t)| (i, child_modules(t).unwrap())).collect();
        let batch = format_batch(&TEXTS, &batchable, &settings).expect("the batch formats every file");
        for (text, formatted) in TEXTS.iter().zip(&batch) {
            let alone = format_in(Some(dir.path()), text).unwrap();
            assert_eq!(formatted, &alone, "batch and standard input differ on {text:?}");
        }
        assert_ne!(batch[0], TEXTS[0], "the first text needs formatting");
        assert_eq!(batch[3], TEXTS[3], "formatted text stays");
        // format_with takes the batch when it can, with the same result.
        let all: Vec<String> = format_with(&TEXTS, &settings).unwrap().into_iter().map(Result::unwrap).collect();
        assert_eq!(all, batch);
    }

    #[test]
    fn a_file_rustfmt_refuses_leaves_the_others_formatted() {
        if !rustfmt_works() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let texts = ["fn  a( ){}", "fn broken( {", "#[path = \"x.rs\"]\nmod x;\nfn  c( ){}", "fn  d( ){}"];
        let results = format_with(&texts, &settings_in(dir.path())).unwrap();
        assert_eq!(results[0].as_deref(), Ok("fn a() {}\n"));
        let refused = results[1].as_ref().unwrap_err();
        assert!(refused.starts_with("rustfmt failed: error"), "{refused}");
        // Formatted on its own (rustfmt on standard input does not look for `x.rs`).
        assert_eq!(results[2].as_deref(), Ok("#[path = \"x.rs\"]\nmod x;\nfn c() {}\n"));
        assert_eq!(results[3].as_deref(), Ok("fn d() {}\n"));
    }

    #[test]
    fn the_working_folders_configuration_applies_to_the_batch() {
        if !rustfmt_works() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rustfmt.toml"), "hard_tabs = true\n").unwrap();
        let work = dir.path().join("project/src");
        std::fs::create_dir_all(&work).unwrap();
        let settings = settings_in(&work);
        assert!(matches!(&settings.batch, Batch::Config(f) if f.ends_with("rustfmt.toml")));
        assert!(!settings.default_style);
        let texts = ["fn  main( ){let x=1;}", "mod a;\nfn f(){ if true { g(); } }"];
        let results = format_with(&texts, &settings).unwrap();
        assert_eq!(results[0].as_deref(), Ok("fn main() {\n\tlet x = 1;\n}\n"));
        for (text, result) in texts.iter().zip(&results) {
            assert_eq!(result.as_ref().unwrap(), &format_in(Some(&work), text).unwrap());
        }
    }

    /// `format_plan` leaves Rust templates without expressions as they are (under rustfmt's defaults): they must be
    /// rustfmt clean.
    #[test]
    fn plain_rust_templates_are_rustfmt_clean() {
        if !rustfmt_works() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let settings = settings_in(dir.path());
        assert!(matches!(settings.batch, Batch::Search), "no configuration in a fresh temporary folder");
        let templates = crate::render::plain_rust_templates();
        assert!(templates.len() >= 3, "init's webhook, metrics and health modules are plain templates");
        let texts: Vec<&str> = templates.iter().map(|(_, t)| *t).collect();
        for ((path, text), result) in templates.iter().zip(format_with(&texts, &settings).unwrap()) {
            let formatted = result.unwrap_or_else(|e| panic!("rustfmt refuses template {path}: {e}"));
            assert!(
                formatted == *text,
                "template {path} is not rustfmt clean: run `rustfmt --edition 2024 --config-path /dev/null` \
                 on a copy and take its layout"
            );
        }
    }
}
