//! The syntax of Helm templates (Go's text/template), checked the way Go's parser checks it, without Go: actions
//! closed, strings and comments terminated, parentheses balanced, `if`/`with`/`range`/`define`/`block` closed by
//! `end` (`else` only inside them, `break`/`continue` only in `range`, `define` only at the top), every function
//! one Helm knows (Go's builtins, sprig's, Helm's own), every variable declared. It also collects the `.Values`
//! paths a template reads where `.` is the root (outside `with` and `range`, or through `$`).

use std::collections::BTreeSet;
use std::sync::OnceLock;

/// Go's text/template builtins.
const BUILTINS: &[&str] = &[
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery", "eq",
    "ge", "gt", "le", "lt", "ne",
];

/// sprig v3's functions (`sprig.TxtFuncMap`), without `env` and `expandenv`, which Helm removes.
const SPRIG: &str = "abbrev abbrevboth add add1 add1f addf adler32sum ago all any append atoi b32dec b32enc b64dec \
    b64enc base bcrypt biggest buildCustomCert camelcase cat ceil chunk clean coalesce compact concat contains date \
    dateInZone dateModify date_in_zone date_modify decryptAES deepCopy deepEqual default derivePassword dict dig dir \
    div divf duration durationRound empty encryptAES ext fail first float64 floor fromJson genCA genCAWithKey \
    genPrivateKey genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey get getHostByName has \
    hasKey hasPrefix hasSuffix hello htmlDate htmlDateInZone htpasswd indent initial initials int int64 isAbs join \
    kebabcase keys kindIs kindOf last list lower max maxf merge mergeOverwrite min minf mod mul mulf mustAppend \
    mustChunk mustCompact mustDateModify mustDeepCopy mustFirst mustFromJson mustHas mustInitial mustLast mustMerge \
    mustMergeOverwrite mustPrepend mustRegexFind mustRegexFindAll mustRegexMatch mustRegexReplaceAll \
    mustRegexReplaceAllLiteral mustRegexSplit mustRest mustReverse mustSlice mustToDate mustToJson mustToPrettyJson \
    mustToRawJson mustUniq mustWithout must_date_modify nindent nospace now omit osBase osClean osDir osExt osIsAbs \
    pick pluck plural prepend quote randAlpha randAlphaNum randAscii randBytes randInt randNumeric regexFind \
    regexFindAll regexMatch regexQuoteMeta regexReplaceAll regexReplaceAllLiteral regexSplit repeat replace rest \
    reverse round semver semverCompare seq set sha1sum sha256sum shuffle slice snakecase sortAlpha split splitList \
    splitn squote sub subf substr swapcase ternary title toDate toDecimal toJson toPrettyJson toRawJson toString \
    toStrings trim trimAll trimPrefix trimSuffix trimall trunc tuple typeIs typeIsLike typeOf uniq unixEpoch unset \
    until untilStep untitle upper urlJoin urlParse uuidv4 values without wrap wrapWith";

/// Helm's own functions.
const HELM: &[&str] = &[
    "include",
    "tpl",
    "required",
    "lookup",
    "toYaml",
    "toYamlPretty",
    "fromYaml",
    "fromYamlArray",
    "toJson",
    "fromJson",
    "fromJsonArray",
    "toToml",
    "fromToml",
];

fn functions() -> &'static BTreeSet<&'static str> {
    static SET: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| BUILTINS.iter().chain(HELM).copied().chain(SPRIG.split_whitespace()).collect())
}

/// A syntax error, at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub message: String,
}

/// What a template reads: each `.Values` path with its line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reads {
    pub values: Vec<(usize, Vec<String>)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `.a.b` (a chain of fields), or `.` alone (empty).
    Field(Vec<String>),
    /// `$x.a.b`: the variable (`$` for the root) and its fields.
    Var(String, Vec<String>),
    Literal,
    Pipe,
    Open,
    Close,
    Declare,
    Assign,
    Comma,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    If,
    With,
    Range,
    Define,
    Template,
}

struct Scope {
    kind: Option<Control>,
    line: usize,
    vars: Vec<String>,
}

/// Checks `text`; the first error found, or what it reads.
pub fn check(text: &str) -> Result<Reads, SyntaxError> {
    let mut reads = Reads::default();
    let mut scopes = vec![Scope { kind: None, line: 1, vars: vec!["$".into()] }];
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line = 1;
    while let Some(off) = text[i..].find("{{") {
        line += text[i..i + off].matches('\n').count();
        let start_line = line;
        i += off + 2;
        let err = |message: String| SyntaxError { line: start_line, message };
        // A left trim marker is "- " (the space is required).
        if bytes.get(i) == Some(&b'-') && bytes.get(i + 1).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        let body_start = i;
        let ws = text[i..].len() - text[i..].trim_start().len();
        if text[i + ws..].starts_with("/*") {
            let Some(close) = text[i + ws + 2..].find("*/") else {
                return Err(err("unclosed comment".into()));
            };
            let after = i + ws + 2 + close + 2;
            let rest = &text[after..];
            let end = if rest.starts_with("}}") {
                2
            } else if rest.starts_with(" -}}") {
                4
            } else {
                return Err(err("comment ends before closing delimiter".into()));
            };
            line += text[body_start..after].matches('\n').count();
            i = after + end;
            continue;
        }
        let (toks, end) = lex(text, i).map_err(err)?;
        line += text[body_start..end].matches('\n').count();
        i = end;
        action(&toks, start_line, &mut scopes, &mut reads).map_err(err)?;
    }
    if let Some(open) = scopes.iter().rev().find(|s| s.kind.is_some()) {
        return Err(SyntaxError { line: open.line, message: "unexpected EOF: this action has no {{end}}".into() });
    }
    Ok(reads)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn fields(text: &str, mut i: usize) -> (Vec<String>, usize) {
    let b = text.as_bytes();
    let mut out = Vec::new();
    while b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|c| is_ident(*c)) {
        let s = i + 1;
        i = s;
        while b.get(i).is_some_and(|c| is_ident(*c)) {
            i += 1;
        }
        out.push(text[s..i].to_string());
    }
    (out, i)
}

/// The tokens of the action starting at `i` (just after `{{` and a left trim), and the index after its `}}`.
fn lex(text: &str, mut i: usize) -> Result<(Vec<Tok>, usize), String> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    loop {
        let Some(&c) = b.get(i) else { return Err("unclosed action".into()) };
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                if b.get(i + 1) == Some(&b'-') && text[i + 2..].starts_with("}}") {
                    return Ok((toks, i + 4));
                }
                i += 1;
            }
            b'}' if b.get(i + 1) == Some(&b'}') => return Ok((toks, i + 2)),
            b'"' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None | Some(b'\n') => return Err("unterminated quoted string".into()),
                        Some(b'\\') => i += 2,
                        Some(b'"') => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                toks.push(Tok::Literal);
            }
            b'`' => {
                let Some(close) = text[i + 1..].find('`') else { return Err("unterminated raw quoted string".into()) };
                i += close + 2;
                toks.push(Tok::Literal);
            }
            b'\'' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None | Some(b'\n') => return Err("unterminated character constant".into()),
                        Some(b'\\') => i += 2,
                        Some(b'\'') => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                toks.push(Tok::Literal);
            }
            b'|' => {
                i += 1;
                toks.push(Tok::Pipe);
            }
            b'(' => {
                i += 1;
                toks.push(Tok::Open);
            }
            b')' => {
                i += 1;
                toks.push(Tok::Close);
                if b.get(i) == Some(&b'.') {
                    let (_, next) = fields(text, i);
                    i = next;
                }
            }
            b',' => {
                i += 1;
                toks.push(Tok::Comma);
            }
            b':' if b.get(i + 1) == Some(&b'=') => {
                i += 2;
                toks.push(Tok::Declare);
            }
            b'=' => {
                i += 1;
                toks.push(Tok::Assign);
            }
            b'.' => {
                let (f, next) = fields(text, i);
                if f.is_empty() {
                    if b.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
                        return Err(format!("bad number syntax: {:?}", &text[i..(i + 4).min(text.len())]));
                    }
                    i += 1;
                } else {
                    i = next;
                }
                toks.push(Tok::Field(f));
            }
            b'$' => {
                let s = i;
                i += 1;
                while b.get(i).is_some_and(|c| is_ident(*c)) {
                    i += 1;
                }
                let name = text[s..i].to_string();
                let (f, next) = fields(text, i);
                i = next;
                toks.push(Tok::Var(name, f));
            }
            b'0'..=b'9' | b'-' | b'+' => {
                i += 1;
                while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'+' | b'-'))
                    && !(b[i] == b'-' && text[i + 1..].starts_with("}}"))
                {
                    i += 1;
                }
                toks.push(Tok::Literal);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let s = i;
                while b.get(i).is_some_and(|c| is_ident(*c)) {
                    i += 1;
                }
                toks.push(Tok::Ident(text[s..i].to_string()));
                if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|c| is_ident(*c)) {
                    return Err(format!("unexpected . after term {:?}", &text[s..i]));
                }
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(format!("unexpected {ch:?} in command"));
            }
        }
    }
}

fn declared(scopes: &[Scope], name: &str) -> bool {
    for s in scopes.iter().rev() {
        if s.vars.iter().any(|v| v == name) {
            return true;
        }
        if s.kind == Some(Control::Define) {
            return name == "$";
        }
    }
    false
}

fn action(toks: &[Tok], line: usize, scopes: &mut Vec<Scope>, reads: &mut Reads) -> Result<(), String> {
    let keyword = match toks.first() {
        Some(Tok::Ident(k)) => k.as_str(),
        _ => "",
    };
    let rest = &toks[toks.len().min(1)..];
    let open = |scopes: &mut Vec<Scope>, kind| scopes.push(Scope { kind: Some(kind), line, vars: Vec::new() });
    match keyword {
        "if" | "with" | "range" => {
            let kind = match keyword {
                "if" => Control::If,
                "with" => Control::With,
                _ => Control::Range,
            };
            // The condition is read in the enclosing scope; its variables belong to the new one.
            let in_scope = scope_reads_root(scopes);
            open(scopes, kind);
            pipeline(rest, keyword, scopes, reads, line, in_scope)
        }
        "else" => {
            let top = scopes.last().and_then(|s| s.kind);
            if !matches!(top, Some(Control::If | Control::With | Control::Range)) {
                return Err("unexpected {{else}}".into());
            }
            match rest.first() {
                None => Ok(()),
                Some(Tok::Ident(k)) if (k == "if" || k == "with") && top != Some(Control::Range) => {
                    let in_scope = scope_reads_root(&scopes[..scopes.len() - 1]);
                    pipeline(&rest[1..], k, scopes, reads, line, in_scope)
                }
                _ => Err("unexpected token after {{else}}".into()),
            }
        }
        "end" => {
            if !rest.is_empty() {
                return Err("unexpected token in {{end}}".into());
            }
            if scopes.len() == 1 {
                return Err("unexpected {{end}}".into());
            }
            scopes.pop();
            Ok(())
        }
        "define" | "block" => {
            if keyword == "define" && scopes.len() > 1 {
                return Err("{{define}} must be at the top level".into());
            }
            if rest.first() != Some(&Tok::Literal) {
                return Err(format!("{keyword} needs a template name in quotes"));
            }
            let in_scope = scope_reads_root(scopes);
            if keyword == "block" {
                pipeline(&rest[1..], keyword, scopes, reads, line, in_scope)?;
            } else if rest.len() > 1 {
                return Err("unexpected token in {{define}}".into());
            }
            open(scopes, if keyword == "define" { Control::Define } else { Control::Template });
            if keyword == "define" {
                scopes.last_mut().expect("just pushed").vars.push("$".into());
            }
            Ok(())
        }
        "template" => {
            if rest.first() != Some(&Tok::Literal) {
                return Err("template needs a template name in quotes".into());
            }
            if rest.len() > 1 {
                let in_scope = scope_reads_root(scopes);
                pipeline(&rest[1..], keyword, scopes, reads, line, in_scope)?;
            }
            Ok(())
        }
        "break" | "continue" => {
            if !scopes
                .iter()
                .rev()
                .take_while(|s| s.kind != Some(Control::Define))
                .any(|s| s.kind == Some(Control::Range))
            {
                return Err(format!("{{{{{keyword}}}}} outside {{{{range}}}}"));
            }
            if !rest.is_empty() {
                return Err(format!("unexpected token in {{{{{keyword}}}}}"));
            }
            Ok(())
        }
        _ => {
            let in_scope = scope_reads_root(scopes);
            pipeline(toks, "command", scopes, reads, line, in_scope)
        }
    }
}

/// Whether `.` is the template's root in the innermost scope (no `with`/`range` above, up to a `define`).
fn scope_reads_root(scopes: &[Scope]) -> bool {
    !scopes.iter().any(|s| matches!(s.kind, Some(Control::With | Control::Range)))
}

/// Checks a pipeline (with an optional declaration) and collects its `.Values` reads.
fn pipeline(
    toks: &[Tok],
    context: &str,
    scopes: &mut [Scope],
    reads: &mut Reads,
    line: usize,
    dot_is_root: bool,
) -> Result<(), String> {
    let mut toks = toks;
    // `$x :=`, `$x =`, `$i, $v :=`.
    let decl_end = toks.iter().position(|t| matches!(t, Tok::Declare | Tok::Assign));
    if let Some(d) = decl_end {
        let names: Vec<&Tok> = toks[..d].iter().filter(|t| **t != Tok::Comma).collect();
        let ok =
            !names.is_empty() && names.len() <= 2 && names.iter().all(|t| matches!(t, Tok::Var(_, f) if f.is_empty()));
        if !ok {
            return Err("bad variable declaration".into());
        }
        for t in names {
            if let Tok::Var(n, _) = t {
                if toks[d] == Tok::Assign && !declared(scopes, n) {
                    return Err(format!("undefined variable {n:?}"));
                }
                if toks[d] == Tok::Declare {
                    scopes.last_mut().expect("a scope").vars.push(n.clone());
                }
            }
        }
        toks = &toks[d + 1..];
    }
    if toks.is_empty() {
        return Err(format!("missing value for {context}"));
    }
    let mut depth = 0i32;
    let mut expect_command = true;
    for t in toks {
        match t {
            Tok::Open => {
                depth += 1;
                expect_command = true;
                continue;
            }
            Tok::Close => {
                depth -= 1;
                if depth < 0 {
                    return Err("unexpected right paren".into());
                }
            }
            Tok::Pipe => {
                if expect_command {
                    return Err("missing command before |".into());
                }
                expect_command = true;
                continue;
            }
            Tok::Ident(name) => {
                let known = functions().contains(name.as_str()) || matches!(name.as_str(), "true" | "false" | "nil");
                if !known {
                    return Err(
                        if matches!(
                            name.as_str(),
                            "if" | "else"
                                | "end"
                                | "range"
                                | "with"
                                | "define"
                                | "template"
                                | "block"
                                | "break"
                                | "continue"
                        ) {
                            format!("unexpected {{{{{name}}}}} in {context}")
                        } else {
                            format!("function {name:?} not defined")
                        },
                    );
                }
            }
            Tok::Var(name, f) => {
                if !declared(scopes, name) {
                    return Err(format!("undefined variable {name:?}"));
                }
                if name == "$" && f.first().is_some_and(|x| x == "Values") {
                    reads.values.push((line, f[1..].to_vec()));
                }
            }
            Tok::Field(f) => {
                if dot_is_root && f.first().is_some_and(|x| x == "Values") {
                    reads.values.push((line, f[1..].to_vec()));
                }
            }
            Tok::Declare | Tok::Assign | Tok::Comma => return Err("unexpected declaration in pipeline".into()),
            Tok::Literal => {}
        }
        expect_command = false;
    }
    if depth != 0 {
        return Err("unclosed left paren".into());
    }
    if expect_command {
        return Err("missing command after |".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        check(text).expect_err("should not parse").message
    }

    #[test]
    fn helm_templates_parse_and_their_reads_are_collected() {
        let t = "{{- /* a comment */ -}}\n{{- if .Values.a.enable }}\nx: {{ .Values.a.port | quote }}\n\
                 {{- with .Values.b }}\ny: {{ toYaml . | nindent 2 }} {{ $.Values.c }}\n{{- end }}\n\
                 {{- range $i, $v := .Values.list }}{{ $v }}{{ if eq $i 0 }}{{ break }}{{ end }}{{ end }}\n\
                 {{- end }}\n{{ include \"x.name\" (dict \"a\" 1) }} {{ `raw` }} {{ 'c' }} {{ -1 }}";
        let reads = check(t).unwrap();
        let paths: Vec<String> = reads.values.iter().map(|(l, p)| format!("{l}:{}", p.join("."))).collect();
        assert_eq!(paths, vec!["2:a.enable", "3:a.port", "4:b", "5:c", "7:list"]);
    }

    #[test]
    fn defines_start_a_template_of_their_own() {
        let t = "{{- define \"x.fullname\" -}}\n{{- $name := default .Chart.Name .Values.nameOverride }}\n\
                 {{- $name }}\n{{- end }}\n{{ $name }}";
        assert_eq!(err(t), "undefined variable \"$name\"");
    }

    #[test]
    fn mistakes_go_would_reject_are_found_with_their_line() {
        assert_eq!(check("a\n{{ if .X }}\nb").unwrap_err().line, 2);
        assert_eq!(err("{{ end }}"), "unexpected {{end}}");
        assert_eq!(err("{{ else }}"), "unexpected {{else}}");
        assert_eq!(err("{{ .X | toYml }}"), "function \"toYml\" not defined");
        assert_eq!(err("{{ env \"HOME\" }}"), "function \"env\" not defined");
        assert_eq!(err("{{ .X "), "unclosed action");
        assert_eq!(err("{{ \"abc }}"), "unterminated quoted string");
        assert_eq!(err("{{ (.X }}"), "unclosed left paren");
        assert_eq!(err("{{ .X | }}"), "missing command after |");
        assert_eq!(err("{{ }}"), "missing value for command");
        assert_eq!(err("{{ $x }}"), "undefined variable \"$x\"");
        assert_eq!(err("{{ break }}"), "{{break}} outside {{range}}");
        assert_eq!(err("{{ if .X }}{{ define \"a\" }}{{ end }}{{ end }}"), "{{define}} must be at the top level");
        assert_eq!(err("{{/* open"), "unclosed comment");
    }
}
