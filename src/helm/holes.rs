//! YAML with holes: a manifest as a JSON value in which some strings are tokens, emitted through
//! [`crate::yaml`] and then turned into Helm template text. An inline hole replaces its token where it stands (a
//! name inside a DNS name, a whole value); a block hole replaces the whole line its token is on (a map entry whose
//! key or value is the token, a sequence item) with text built for that line's indentation, such as an entry
//! wrapped in `{{- if }}` or a `{{- toYaml . | nindent N }}`. Literal `{{` in the manifest is escaped so that Helm
//! prints it as it is.

use serde_json::Value;

/// Builds the text of a block hole for the column its line starts at.
pub type BlockFn = Box<dyn Fn(usize) -> String>;

enum Hole {
    Inline(String),
    Block(BlockFn),
}

/// The holes of one document; tokens come from [`Holes::inline`] and [`Holes::block`].
#[derive(Default)]
pub struct Holes {
    holes: Vec<Hole>,
}

const TOKEN_START: &str = "KSHOLE";

fn token(n: usize) -> String {
    format!("{TOKEN_START}{n:05}Z")
}

impl Holes {
    /// A token replaced by `text` (template text) where it stands.
    pub fn inline(&mut self, text: impl Into<String>) -> String {
        self.holes.push(Hole::Inline(text.into()));
        token(self.holes.len() - 1)
    }

    /// A token whose whole line is replaced by `build(column)`; the text must hold its own indentation and no
    /// trailing newline. Used as a map key, the token sorts first among the keys; see [`Holes::block_named`].
    pub fn block(&mut self, build: impl Fn(usize) -> String + 'static) -> String {
        self.holes.push(Hole::Block(Box::new(build)));
        token(self.holes.len() - 1)
    }

    /// A block hole whose token starts with `name`, so that as a map key it sorts where `name` would.
    pub fn block_named(&mut self, name: &str, build: impl Fn(usize) -> String + 'static) -> String {
        format!("{name}{}", self.block(build))
    }

    /// A block hole that writes `key: value` (rendered as YAML, inline holes in it filled) only when
    /// `condition` (a template expression) holds, as `{{- if condition }}` ... `{{- end }}` lines.
    pub fn entry_if(&mut self, condition: &str, key: &str, value: &Value) -> String {
        let cond = condition.to_string();
        let text = escape_braces(&crate::yaml::to_string(&serde_json::json!({ key: value })));
        self.block(move |col| wrap_if(&cond, &indent_lines(&text, col), col))
    }

    /// A block hole that writes the sequence item `value` only when `condition` holds.
    pub fn item_if(&mut self, condition: &str, value: &Value) -> String {
        let cond = condition.to_string();
        let text = escape_braces(&crate::yaml::to_string(&Value::Array(vec![value.clone()])));
        self.block(move |col| wrap_if(&cond, &indent_lines(&text, col), col))
    }

    /// Emits `value` as YAML and fills the holes.
    pub fn render(&self, value: &Value) -> String {
        let text = escape_braces(&crate::yaml::to_string(value));
        let mut out = String::with_capacity(text.len() + 256);
        for line in text.lines() {
            if let Some((block, is_key)) = self.block_of(line) {
                let col = line.len() - line.trim_start().len();
                if is_key && line.trim_start().starts_with("- ") {
                    // The first key of a sequence item: the item's dash goes on a line of its own.
                    out.push_str(&" ".repeat(col));
                    out.push_str("-\n");
                    out.push_str(&self.fill_inline(&block(col + 2)));
                } else {
                    out.push_str(&self.fill_inline(&block(col)));
                }
            } else {
                out.push_str(&self.fill_inline(line));
            }
            out.push('\n');
        }
        out
    }

    /// The block hole of the line's first token (a key, a value or a sequence item), if it is one, and whether
    /// it is a key.
    fn block_of(&self, line: &str) -> Option<(&BlockFn, bool)> {
        let at = line.find(TOKEN_START)?;
        let rest = &line[at + TOKEN_START.len()..];
        let n: usize = rest.get(..5)?.parse().ok()?;
        let is_key = rest.get(6..).is_some_and(|r| r.starts_with(':'));
        match self.holes.get(n)? {
            Hole::Block(b) => Some((b, is_key)),
            Hole::Inline(_) => None,
        }
    }

    fn fill_inline(&self, line: &str) -> String {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find(TOKEN_START) {
            let digits = rest.get(at + TOKEN_START.len()..at + TOKEN_START.len() + 6);
            let n = digits.filter(|d| d.ends_with('Z')).and_then(|d| d[..5].parse::<usize>().ok());
            match n.and_then(|n| self.holes.get(n)) {
                Some(Hole::Inline(text)) => {
                    out.push_str(&rest[..at]);
                    out.push_str(text);
                    rest = &rest[at + TOKEN_START.len() + 6..];
                }
                _ => {
                    out.push_str(&rest[..at + TOKEN_START.len()]);
                    rest = &rest[at + TOKEN_START.len()..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// `{{` in literal text, escaped for Go templates.
pub fn escape_braces(text: &str) -> String {
    text.replace("{{", "{{ \"{{\" }}")
}

/// Every line of `text` indented by `col` spaces, without a trailing newline.
pub fn indent_lines(text: &str, col: usize) -> String {
    let pad = " ".repeat(col);
    text.lines().map(|l| if l.is_empty() { String::new() } else { format!("{pad}{l}") }).collect::<Vec<_>>().join("\n")
}

/// `body` between `{{- if condition }}` and `{{- end }}` lines at column `col`.
pub fn wrap_if(condition: &str, body: &str, col: usize) -> String {
    let pad = " ".repeat(col);
    format!("{pad}{{{{- if {condition} }}}}\n{body}\n{pad}{{{{- end }}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inline_holes_fill_values_and_parts_of_strings() {
        let mut h = Holes::default();
        let name = h.inline("{{ include \"x.fullname\" $ }}-svc");
        let ns = h.inline("{{ .Release.Namespace }}");
        let doc = json!({"metadata": {"name": name, "namespace": ns}, "dns": [format!("{name}.{ns}.svc")]});
        let text = h.render(&doc);
        assert_eq!(
            text,
            "dns:\n- {{ include \"x.fullname\" $ }}-svc.{{ .Release.Namespace }}.svc\nmetadata:\n  \
             name: {{ include \"x.fullname\" $ }}-svc\n  namespace: {{ .Release.Namespace }}\n"
        );
    }

    #[test]
    fn block_holes_replace_their_line_at_its_column() {
        let mut h = Holes::default();
        let labels = h.block(|col| format!("{}{{{{- include \"x.labels\" $ | nindent {col} }}}}", " ".repeat(col)));
        let arg = h.item_if(".Values.leaderElection.enable", &json!("--leader-elect"));
        let ann = h.entry_if(".Values.certManager.enable", "cert-manager.io/inject-ca-from", &json!("ns/cert"));
        let doc = json!({
            "metadata": {"labels": {labels: null, "a": "b"}, "annotations": {"cert-manager.io/inject-ca-from": ann}},
            "args": ["--x", arg],
        });
        let text = h.render(&doc);
        assert_eq!(
            text,
            "args:\n- --x\n{{- if .Values.leaderElection.enable }}\n- --leader-elect\n{{- end }}\nmetadata:\n  \
             annotations:\n    {{- if .Values.certManager.enable }}\n    cert-manager.io/inject-ca-from: ns/cert\n    \
             {{- end }}\n  labels:\n    {{- include \"x.labels\" $ | nindent 4 }}\n    a: b\n"
        );
    }

    #[test]
    fn a_block_key_first_in_a_sequence_item_gets_the_dash_alone() {
        let mut h = Holes::default();
        let with = h.block(|col| {
            format!("{}{{{{- with .Values.x }}}}{{{{ toYaml . | nindent {col} }}}}{{{{- end }}}}", " ".repeat(col))
        });
        let text = h.render(&json!({"items": [{with: null, "name": "a"}]}));
        assert_eq!(text, "items:\n-\n  {{- with .Values.x }}{{ toYaml . | nindent 2 }}{{- end }}\n  name: a\n");
    }

    #[test]
    fn literal_braces_are_escaped() {
        let h = Holes::default();
        assert_eq!(h.render(&json!({"d": "use {{ name }}"})), "d: use {{ \"{{\" }} name }}\n");
    }
}
