//! What kubesmith says about its work: the file changes of a plan, notes, warnings, errors and the progress of
//! long steps, at the level `-q`/`-v` chose, with coloured labels when the stream is a terminal and `NO_COLOR` is
//! unset (anstream decides).
//! A command's own product (YAML, a completion script, the marker reference, a validation report) is printed by
//! the command and is not affected.
//!
//! `-v` adds every planned operation and timings. [`product`] prints a command's product where a reader that stopped
//! early (`| head`) is no error (the completion script, the marker reference). [`Progress`] is a long step (the
//! compiled fallback's build, `make bundle`'s CRD check, an envtest download): a line before and after with the time
//! taken, an indicatif spinner or byte bar on a terminal, nothing under `-q`.
//!
//! **Invariant:** no other module prints file changes, notes, warnings or errors.

use std::fmt::Display;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anstyle::{AnsiColor, Style};

/// How much to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Errors only (`-q`).
    Quiet,
    /// File changes, notes and warnings.
    Normal,
    /// Also every planned operation and timings (`-v`).
    Verbose,
}

static LEVEL: OnceLock<Level> = OnceLock::new();
static START: OnceLock<Instant> = OnceLock::new();

/// Sets the level and starts the clock; the first call wins.
pub fn init(level: Level) {
    let _ = LEVEL.set(level);
    let _ = START.set(Instant::now());
}

/// The level set by [`init`] (normal before it).
pub fn level() -> Level {
    LEVEL.get().copied().unwrap_or(Level::Normal)
}

/// Time since [`init`].
pub fn elapsed() -> Duration {
    START.get().map(Instant::elapsed).unwrap_or_default()
}

/// `12.3 ms`.
pub fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn style(label: &str) -> Style {
    let color = match label {
        "create" => AnsiColor::Green,
        "update" | "overwrite" => AnsiColor::Yellow,
        "remove" | "error" => AnsiColor::Red,
        "warning" => AnsiColor::Yellow,
        "unchanged" => return Style::new().dimmed(),
        _ => AnsiColor::Cyan,
    };
    let style = Style::new().fg_color(Some(color.into()));
    if matches!(label, "error" | "warning") { style.bold() } else { style }
}

/// `label` padded to `width`, coloured (anstream strips the colour where it does not belong).
fn label(label: &str, width: usize) -> String {
    let style = style(label);
    format!("{style}{label}{style:#}{}", " ".repeat(width.saturating_sub(label.len())))
}

/// A line whose leading `warning:`/`note:`/`error:` gets its label's colour.
fn labelled(text: &str) -> String {
    for word in ["warning", "note", "error"] {
        if let Some(rest) = text.strip_prefix(word).and_then(|r| r.strip_prefix(':')) {
            return format!("{}:{rest}", label(word, 0));
        }
    }
    text.to_string()
}

/// One file change (`create    src/main.rs`) on stdout, unless quiet.
pub fn change(verb: &str, path: &Path) {
    if level() >= Level::Normal {
        anstream::println!("{} {}", label(verb, 9), path.display());
    }
}

/// One planned operation, indented, on stdout, only when verbose.
pub fn planned(verb: &str, path: &Path) {
    if level() >= Level::Verbose {
        anstream::println!("  {} {}", label(verb, 9), path.display());
    }
}

/// A line of information on stdout (a note, next steps, a summary), unless quiet.
pub fn info(text: impl Display) {
    if level() >= Level::Normal {
        anstream::println!("{}", labelled(&text.to_string()));
    }
}

/// A line on stdout only when verbose (timings, unchanged files).
pub fn detail(text: impl Display) {
    if level() >= Level::Verbose {
        anstream::println!("{}", labelled(&text.to_string()));
    }
}

/// A warning or note on stderr, unless quiet.
pub fn warn(text: impl Display) {
    if level() >= Level::Normal {
        anstream::eprintln!("{}", labelled(&text.to_string()));
    }
}

/// Progress of a command whose stdout is its product (`envtest use -p path`: downloading ...) on stderr, unless
/// quiet.
pub fn status(text: impl Display) {
    if level() >= Level::Normal {
        anstream::eprintln!("{}", labelled(&text.to_string()));
    }
}

/// A step that may take a while (a cargo build, a download, a check of every CRD): said on stderr before it starts
/// and, when it ends, with how long it took. On a terminal a spinner ticks meanwhile (a bar with bytes for a
/// download of known size), and the two lines become one; elsewhere they are plain lines; nothing under `-q`.
pub struct Progress {
    what: String,
    started: Instant,
    bar: Option<indicatif::ProgressBar>,
    shown: bool,
}

impl Progress {
    /// Starts a step: `what` says what it does (`building the compiled fallback's harness ...`).
    pub fn start(what: impl Display) -> Self {
        Self::with_bar(what.to_string(), None)
    }

    /// Starts a download of `total` bytes (when known): [`Progress::advance`] moves its bar.
    pub fn bytes(what: impl Display, total: Option<u64>) -> Self {
        Self::with_bar(what.to_string(), Some(total))
    }

    fn with_bar(what: String, bytes: Option<Option<u64>>) -> Self {
        use std::io::IsTerminal as _;
        let shown = level() >= Level::Normal;
        let bar = (shown && std::io::stderr().is_terminal()).then(|| {
            let bar = match bytes {
                Some(Some(total)) => indicatif::ProgressBar::new(total).with_style(
                    indicatif::ProgressStyle::with_template("{spinner} {msg} {bar:30} {bytes}/{total_bytes} ({eta})")
                        .expect("a valid template"),
                ),
                Some(None) => indicatif::ProgressBar::no_length().with_style(
                    indicatif::ProgressStyle::with_template("{spinner} {msg} {bytes} ({elapsed})")
                        .expect("a valid template"),
                ),
                None => indicatif::ProgressBar::new_spinner().with_style(
                    indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"),
                ),
            };
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.set_message(what.clone());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        if shown && bar.is_none() {
            anstream::eprintln!("{what} ...");
        }
        Self { what, started: Instant::now(), bar, shown }
    }

    /// `n` more bytes arrived.
    pub fn advance(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// `done` of about `total` (0: unknown) `units` are finished (crates of a build): the spinner says so; off a
    /// terminal, a line at each further quarter of `total`, so a long step in a log shows it moves.
    pub fn count(&self, done: usize, total: usize, units: &str) {
        let of = if total > done { format!(" of ~{total}") } else { String::new() };
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} ({done}{of} {units})", self.what));
        } else if self.shown && total > 0 {
            let quarter = |n: usize| n * 4 / total;
            if done <= total && quarter(done) > quarter(done - 1) {
                anstream::eprintln!("  {done}{of} {units} done ({:.0} s)", self.started.elapsed().as_secs_f64());
            }
        }
    }

    /// The step ended well: says so, with the time it took.
    pub fn finish(mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.shown {
            anstream::eprintln!("{}: done in {:.1} s", self.what, self.started.elapsed().as_secs_f64());
        }
        self.shown = false;
    }
}

impl Drop for Progress {
    /// A step left without [`Progress::finish`] (it failed): the spinner goes; the error says the rest.
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A command's product (a completion script, the marker reference) on stdout, at every level. A reader that
/// stopped early (`kubesmith completion bash | head`) is no failure: the rest is dropped.
pub fn product(bytes: &[u8], what: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(bytes).and_then(|()| std::io::stdout().lock().flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other.map_err(|e| anyhow::anyhow!("cannot write {what} to stdout: {e}"))?),
    }
}

/// An error on stderr, always: `error: <message>`.
pub fn error(message: impl Display) {
    anstream::eprintln!("{}: {message}", label("error", 0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_padded_after_the_colour() {
        let l = label("create", 9);
        assert!(l.starts_with("\x1b["), "{l:?}");
        assert!(l.ends_with("create\x1b[0m   "), "{l:?}");
    }

    #[test]
    fn only_a_leading_label_is_coloured() {
        assert_eq!(labelled("next: run make"), "next: run make");
        assert!(labelled("warning: x").ends_with("warning\x1b[0m: x"));
    }
}
