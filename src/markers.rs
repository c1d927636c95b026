//! Marker comments (`// +kubebuilder:rbac:groups=apps,...`): scanner, argument parser and the registry.
//!
//! A marker is a `//` or `///` comment line whose text starts with `+` (`// +name`, `// +name=value`,
//! `// +name:arg=value,arg2=value2`). Markers under the `kubebuilder:`, `kubesmith:`, `operator-sdk:` and
//! `k8s:` prefixes, and the bare names kubesmith knows (`+optional`, `+listType=map`, ...), are checked
//! against [`registry()`]: an unknown name or argument is an error with `file:line`, never silently
//! ignored. Any other `// +something` comment is an ordinary comment.
//!
//! [`registry()`] is the one list of every marker (name, target, arguments with types and meanings, section,
//! example); [`reference`](mod@reference) renders it as text, Markdown and JSON (`kubesmith markers`); its
//! Markdown, opening with `guide.md` (placement and order rules), is `docs/markers.md` (golden: `cargo xtask bless`).
//! The CRD generator takes its CRD-level markers from the registry's `Section::Crd`. **Invariant:** a known prefix
//! misspelled (`kubebuidler:`, `Kubebuilder:`; `k8s:` only up to case) is an error like an unknown name, and a `,`
//! inside a list argument (`verbs=list,watch`) is explained as such.

pub mod reference;
mod registry;
mod value;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use crate::names::closest;
use crate::names::edit_distance;
pub use registry::{ArgDef, ArgType, MarkerDef, MarkerTarget, Section, is_crd_marker, lookup, registry};
pub use value::MarkerValue;

use value::Cursor;

/// Name prefixes whose markers must all be known.
pub const CHECKED_PREFIXES: &[&str] = &["kubebuilder:", "kubesmith:", "operator-sdk:", "k8s:"];

/// One marker found in a source file.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Registered marker name without `+` (e.g. `kubebuilder:rbac`, `kubebuilder:validation:Minimum`).
    pub name: String,
    /// Arguments by name; the anonymous value (`+name=value`) is stored under `""`.
    pub args: BTreeMap<String, MarkerValue>,
    /// File the marker was read from.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: usize,
}

impl Marker {
    /// The argument `name` (`""` for the anonymous value).
    pub fn arg(&self, name: &str) -> Option<&MarkerValue> {
        self.args.get(name)
    }

    /// The anonymous value of a `+name=value` marker.
    pub fn value(&self) -> Option<&MarkerValue> {
        self.args.get("")
    }

    /// The argument `name` as a string, when it is one.
    pub fn string(&self, name: &str) -> Option<&str> {
        self.args.get(name).and_then(MarkerValue::as_str)
    }

    /// The argument `name` as a list of strings (empty when absent).
    pub fn strings(&self, name: &str) -> Vec<String> {
        self.args.get(name).map(MarkerValue::to_string_list).unwrap_or_default()
    }

    /// `path:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
}

/// One problem with a marker, at `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerDiagnostic {
    /// File of the marker.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong (without the location).
    pub message: String,
}

impl fmt::Display for MarkerDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// Every marker problem found in one scan (at least one), one per line when displayed.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerError {
    /// The problems, in source order.
    pub diagnostics: Vec<MarkerDiagnostic>,
    /// The markers of the same file that did parse (so one bad marker does not hide the others).
    pub found: Vec<Marker>,
}

impl fmt::Display for MarkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for MarkerError {}

/// Finds and parses every marker in `text` (the contents of `path`).
///
/// Returns all errors of the file at once when any marker is unknown or malformed.
pub fn scan(path: &Path, text: &str) -> Result<Vec<Marker>, MarkerError> {
    let mut markers = Vec::new();
    let mut diagnostics = Vec::new();
    // Line numbers are counted only up to the lines that hold a marker.
    let (mut line_no, mut counted) = (1usize, 0usize);
    for (start, line) in plus_lines(text) {
        let Some(body) = marker_text(line) else {
            continue;
        };
        line_no += text.as_bytes()[counted..start].iter().filter(|&&b| b == b'\n').count();
        counted = start;
        match parse_marker(body) {
            Ok(Some((name, args))) => markers.push(Marker { name, args, file: path.to_path_buf(), line: line_no }),
            Ok(None) => {}
            Err(message) => diagnostics.push(MarkerDiagnostic { file: path.to_path_buf(), line: line_no, message }),
        }
    }
    if diagnostics.is_empty() { Ok(markers) } else { Err(MarkerError { diagnostics, found: markers }) }
}

/// The lines of `text` (as [`str::lines`] splits them) that contain a `+`, with the offset where each starts:
/// the only lines that can hold a marker. Jumping from `+` to `+` instead of looking at every line keeps
/// scanning crates of many controllers cheap.
fn plus_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut from = 0usize;
    std::iter::from_fn(move || {
        let plus = from + text.get(from..)?.find('+')?;
        let start = text[..plus].rfind('\n').map_or(0, |i| i + 1);
        let end = text[plus..].find('\n').map_or(text.len(), |i| plus + i);
        from = end + 1;
        let line = &text[start..end];
        Some((start, line.strip_suffix('\r').unwrap_or(line)))
    })
}

/// The marker text after `+` when `line` is a `//` or `///` comment starting with `+` (not `//!`).
pub fn marker_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let rest = if let Some(r) = t.strip_prefix("///") {
        if r.starts_with('/') {
            return None;
        }
        r
    } else if t.starts_with("//!") {
        return None;
    } else {
        t.strip_prefix("//")?
    };
    let body = rest.trim_start().strip_prefix('+')?;
    Some(body.trim_end())
}

/// Whether a marker name (text before `=`) is one kubesmith must know.
fn is_checked(name: &str) -> bool {
    CHECKED_PREFIXES.iter().any(|p| name.starts_with(p)) || (!name.contains(':') && lookup(name).is_some())
}

/// Parses one marker body (the text after `+`).
///
/// `Ok(None)`: not a kubesmith marker (an ordinary `// +comment`). `Err`: the message, without location.
#[allow(clippy::type_complexity)]
pub fn parse_marker(body: &str) -> Result<Option<(String, BTreeMap<String, MarkerValue>)>, String> {
    let (name, rest) = match body.split_once('=') {
        Some((n, r)) => (n.trim(), Some(r)),
        None => (body.trim(), None),
    };
    if !is_checked(name) {
        return match misspelled_prefix(name) {
            Some(message) => Err(message),
            None => Ok(None),
        };
    }

    // `+kubesmith:scaffold:<what>`-style markers with a free suffix.
    for def in registry().iter().filter(|d| d.open_suffix) {
        let Some(suffix) = name.strip_prefix(def.name.as_str()) else {
            continue;
        };
        let suffix = match suffix.strip_prefix(':') {
            Some(s) if !s.is_empty() => s,
            _ if suffix.is_empty() => {
                return Err(format!("marker `+{}` needs a name: `+{}:<what>`", def.name, def.name));
            }
            _ => continue,
        };
        if rest.is_some() {
            return Err(format!("marker `+{}:{suffix}` takes no value", def.name));
        }
        let mut args = BTreeMap::new();
        args.insert("what".to_string(), MarkerValue::String(suffix.to_string()));
        return Ok(Some((def.name.clone(), args)));
    }

    if let Some(def) = lookup(name) {
        return parse_args(def, None, rest).map(|args| Some((def.name.clone(), args)));
    }
    if let Some((head, tail)) = name.rsplit_once(':')
        && let Some(def) = lookup(head)
    {
        return parse_args(def, Some(tail.trim()), rest).map(|args| Some((def.name.clone(), args)));
    }
    Err(unknown_marker(name))
}

/// The error for a marker whose prefix is a checked one misspelled (`+kubebuidler:rbac`, `+Kubebuilder:...`),
/// which would otherwise pass as an ordinary comment. Short prefixes (`k8s:`) are matched only up to case.
fn misspelled_prefix(name: &str) -> Option<String> {
    let (head, tail) = name.split_once(':')?;
    let prefix = CHECKED_PREFIXES
        .iter()
        .map(|p| p.trim_end_matches(':'))
        .find(|p| head.eq_ignore_ascii_case(p) || (p.len() >= 6 && edit_distance(&head.to_lowercase(), p) <= 2))?;
    let fixed = format!("{prefix}:{tail}");
    let known = match lookup(&fixed) {
        Some(def) => Some(def.name.clone()),
        None => fixed.rsplit_once(':').and_then(|(head, _)| lookup(head)).map(|def| def.name.clone()),
    };
    let suggestion = known.unwrap_or_else(|| format!("{prefix}:..."));
    Some(format!("unknown marker prefix `{head}:`; did you mean `+{suggestion}`?"))
}

fn unknown_marker(name: &str) -> String {
    let names = registry().iter().map(|d| d.name.as_str());
    let mut best = closest(name, names.clone()).map(|(s, d)| (name, s, d));
    if let Some((head, _)) = name.rsplit_once(':')
        && let Some((s, d)) = closest(head, names)
        && best.is_none_or(|(_, _, bd)| d < bd)
    {
        best = Some((head, s, d));
    }
    match best {
        Some((shown, suggestion, _)) => {
            format!("unknown marker `+{shown}`; did you mean `+{suggestion}`?")
        }
        None => format!("unknown marker `+{name}` (run `kubesmith markers` for the list of known markers)"),
    }
}

fn parse_args(
    def: &MarkerDef,
    first_arg: Option<&str>,
    rest: Option<&str>,
) -> Result<BTreeMap<String, MarkerValue>, String> {
    let m = &def.name;
    let mut args = BTreeMap::new();

    if def.args.is_empty() {
        if let Some(a) = first_arg {
            return Err(format!("marker `+{m}`: unknown argument `{a}` (the marker takes no arguments)"));
        }
        if rest.is_some() {
            return Err(format!("marker `+{m}` takes no value"));
        }
        return Ok(args);
    }

    if def.is_anonymous() {
        let a = &def.args[0];
        if let Some(arg) = first_arg {
            return Err(format!("marker `+{m}`: unknown argument `{arg}` (usage: `{}`)", def.usage()));
        }
        match rest {
            Some(text) => {
                let v = Cursor::new(text).parse_value(a.ty, true).map_err(|e| format!("marker `+{m}`: {e}"))?;
                args.insert(String::new(), v);
            }
            None if a.ty == ArgType::Bool && !a.required => {
                args.insert(String::new(), MarkerValue::Bool(true));
            }
            None => {
                return Err(format!("marker `+{m}`: missing value (usage: `{}`)", def.usage()));
            }
        }
        return Ok(args);
    }

    // Named arguments.
    if let Some(mut name) = first_arg.map(str::to_string) {
        let mut has_value = rest.is_some();
        let mut cur = Cursor::new(rest.unwrap_or(""));
        let mut previous: Option<&ArgDef> = None;
        loop {
            let Some(a) = def.arg(&name) else {
                let mut message = unknown_argument(def, &name);
                // `verbs=list,watch`: `,` ends the list, so `watch` reads as the next argument's name.
                if let Some(list) =
                    previous.filter(|p| !has_value && matches!(p.ty, ArgType::StringList | ArgType::AnyList))
                {
                    let mut items = args.get(list.name).map(MarkerValue::to_string_list).unwrap_or_default();
                    items.push(name.clone());
                    message.push_str(&format!(
                        "; list items are separated by `;`, and `,` starts the next argument: write `{}={}`",
                        list.name,
                        items.join(";")
                    ));
                }
                return Err(message);
            };
            previous = Some(a);
            if args.contains_key(a.name) {
                return Err(format!("marker `+{m}`: argument `{name}` given twice"));
            }
            let v = if has_value {
                cur.parse_value(a.ty, false).map_err(|e| format!("marker `+{m}`: argument `{name}`: {e}"))?
            } else if a.ty == ArgType::Bool {
                MarkerValue::Bool(true)
            } else {
                return Err(format!("marker `+{m}`: argument `{name}` needs a value (`{name}=<{}>`)", a.ty.describe()));
            };
            args.insert(a.name.to_string(), v);
            cur.skip_ws();
            if cur.eof() {
                break;
            }
            if !cur.eat(',') {
                return Err(format!("marker `+{m}`: expected `,` after argument `{name}`, found `{}`", cur.rest()));
            }
            cur.skip_ws();
            name = cur.take_until(&['=', ',']).trim().to_string();
            has_value = cur.eat('=');
            if name.is_empty() {
                return Err(format!("marker `+{m}`: empty argument name"));
            }
        }
    } else if rest.is_some() {
        return Err(format!("marker `+{m}` takes named arguments (usage: `{}`)", def.usage()));
    }

    if let Some(missing) = def.args.iter().find(|a| a.required && !args.contains_key(a.name)) {
        return Err(format!("marker `+{m}`: missing required argument `{}`", missing.name));
    }
    Ok(args)
}

fn unknown_argument(def: &MarkerDef, name: &str) -> String {
    let known: Vec<&str> = def.args.iter().map(|a| a.name).collect();
    let mut msg = format!("marker `+{}`: unknown argument `{name}`", def.name);
    if let Some((s, _)) = closest(name, known.iter().copied()) {
        msg.push_str(&format!("; did you mean `{s}`?"));
    }
    msg.push_str(&format!(" (known: {})", known.join(", ")));
    msg
}

#[cfg(test)]
mod tests;
