//! Keeping the user's `values.yaml` (and `Chart.yaml`) across runs. [`three_way`] decides the values: a key the
//! user added stays, a value they changed stays, a value still equal to the previous run's default follows the new
//! default, a new key is added, a key kubesmith no longer generates goes when the user left it alone.
//! [`edit_text`] then changes the user's text only where the value changed, keeping every comment and the layout
//! elsewhere (block-style YAML, as kubesmith writes it); when it cannot, the caller rewrites the file.

use serde_json::{Map, Value};

/// The values of a run: `user` (the file as it is), `base` (what the previous run generated, when known) and
/// `new` (what this run generates).
pub fn three_way(user: &Value, base: Option<&Value>, new: &Value) -> Value {
    match (user, new) {
        (Value::Object(u), Value::Object(n)) => {
            let b = base.and_then(Value::as_object);
            let mut out = Map::new();
            for (k, uv) in u {
                let bv = b.and_then(|b| b.get(k));
                match n.get(k) {
                    Some(nv) => {
                        out.insert(k.clone(), three_way(uv, bv, nv));
                    }
                    // Dropped by kubesmith: gone if the user left the old default, else theirs.
                    None if bv == Some(uv) => {}
                    None => {
                        out.insert(k.clone(), uv.clone());
                    }
                }
            }
            for (k, nv) in n {
                if !u.contains_key(k) {
                    out.insert(k.clone(), nv.clone());
                }
            }
            Value::Object(out)
        }
        _ if base == Some(user) => new.clone(),
        _ => user.clone(),
    }
}

/// `text` (YAML whose value is `from`) edited so that its value is `to`, or `None` when the edits cannot be made
/// in place. `doc` gives the comment lines of a key that is added (its path from the root).
pub fn edit_text(text: &str, from: &Value, to: &Value, doc: &dyn Fn(&[String]) -> Vec<String>) -> Option<String> {
    let (Value::Object(f), Value::Object(t)) = (from, to) else { return None };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    edit_map(&mut lines, None, f, t, &mut Vec::new(), doc)?;
    let mut out = lines.join("\n");
    out.push('\n');
    let parsed = crate::yaml::from_str(&out).ok()?;
    let parsed = if parsed.is_null() { Value::Object(Map::new()) } else { parsed };
    (parsed == *to).then_some(out)
}

/// A key's lines: `start` is the key line, `end` one past its value's last line (trailing comments excluded).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    indent: usize,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_significant(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// The key an entry line (`key: ...`) holds, unquoted.
fn key_of(line: &str) -> Option<String> {
    let t = line.trim_start();
    if t.starts_with("- ") || t == "-" || t.starts_with('#') || t.starts_with('?') {
        return None;
    }
    let (raw, rest) = if let Some(q @ ('"' | '\'')) = t.chars().next() {
        let close = t[1..].find(q)? + 1;
        (&t[..=close], &t[close + 1..])
    } else {
        let colon = t.find(": ").or_else(|| t.ends_with(':').then(|| t.len() - 1))?;
        (&t[..colon], &t[colon..])
    };
    if !rest.starts_with(':') {
        return None;
    }
    let key: Value = crate::yaml::from_str(raw).ok()?;
    match key {
        Value::String(s) => Some(s),
        Value::Null if raw.is_empty() => None,
        other => Some(other.to_string()),
    }
}

/// The lines of the mapping under `parent` (or the whole file): `(first line, end, indent of its keys)`.
fn map_range(lines: &[String], parent: Option<Span>) -> Option<(usize, usize, usize)> {
    match parent {
        None => Some((0, lines.len(), 0)),
        Some(p) => {
            let first = (p.start + 1..p.end).find(|&i| is_significant(&lines[i]))?;
            let indent = indent_of(&lines[first]);
            (indent > p.indent && key_of(&lines[first]).is_some()).then_some((p.start + 1, p.end, indent))
        }
    }
}

/// The entries of a block mapping (key lines at `indent` within `start..end`).
fn entries(lines: &[String], start: usize, end: usize, indent: usize) -> Vec<(String, Span)> {
    let mut out: Vec<(String, Span)> = Vec::new();
    for (i, l) in lines.iter().enumerate().take(end).skip(start) {
        if !is_significant(l) || indent_of(l) != indent {
            continue;
        }
        let Some(k) = key_of(l) else { continue };
        if let Some(last) = out.last_mut() {
            last.1.end = i;
        }
        out.push((k, Span { start: i, end, indent }));
    }
    // A value ends at its last significant line: blank and comment lines after it belong to what follows.
    for (_, s) in &mut out {
        while s.end > s.start + 1 && !is_significant(&lines[s.end - 1]) {
            s.end -= 1;
        }
    }
    out
}

fn edit_map(
    lines: &mut Vec<String>,
    parent: Option<Span>,
    from: &Map<String, Value>,
    to: &Map<String, Value>,
    path: &mut Vec<String>,
    doc: &dyn Fn(&[String]) -> Vec<String>,
) -> Option<()> {
    // Removals and changes, last entry first so that earlier spans stay valid.
    let (start, end, indent) = map_range(lines, parent)?;
    let found = entries(lines, start, end, indent);
    if found.len() != from.len() {
        return None;
    }
    for (k, span) in found.iter().rev() {
        let (Some(fv), tv) = (from.get(k), to.get(k)) else { return None };
        match tv {
            None => {
                let mut first = span.start;
                while first > start && lines[first - 1].trim_start().starts_with('#') {
                    first -= 1;
                }
                lines.drain(first..span.end);
            }
            Some(tv) if tv == fv => {}
            Some(tv) => {
                path.push(k.clone());
                let nested = match (fv, tv) {
                    (Value::Object(fm), Value::Object(tm))
                        if !fm.is_empty() && !tm.is_empty() && map_range(lines, Some(*span)).is_some() =>
                    {
                        edit_map(lines, Some(*span), fm, tm, path, doc)?;
                        true
                    }
                    _ => false,
                };
                if !nested {
                    let text = super::values::entry_text(k, tv, span.indent);
                    lines.splice(span.start..span.end, text.lines().map(str::to_string));
                }
                path.pop();
            }
        }
    }
    // Additions, at the end of the mapping (before its trailing comments and blank lines).
    let added: Vec<(&String, &Value)> = to.iter().filter(|(k, _)| !from.contains_key(*k)).collect();
    if added.is_empty() {
        return Some(());
    }
    let parent_span = match parent {
        None => None,
        Some(p) => Some(entries_span_of(lines, p)?),
    };
    let (start, mut end, indent) = match parent_span {
        None => (0, lines.len(), 0),
        Some(p) => map_range(lines, Some(p))?,
    };
    while end > start && !is_significant(&lines[end - 1]) {
        end -= 1;
    }
    let mut insert = Vec::new();
    for (k, v) in added {
        path.push(k.clone());
        if parent.is_none() {
            insert.push(String::new());
        }
        for d in doc(path) {
            insert.push(format!("{}# {d}", " ".repeat(indent)));
        }
        insert.extend(super::values::entry_text(k, v, indent).lines().map(str::to_string));
        path.pop();
    }
    lines.splice(end..end, insert);
    Some(())
}

/// The parent's span again after edits inside it changed its length: the same key line, to the end of its value.
fn entries_span_of(lines: &[String], parent: Span) -> Option<Span> {
    let mut end = lines.len();
    for (i, l) in lines.iter().enumerate().skip(parent.start + 1) {
        if is_significant(l) && indent_of(l) <= parent.indent && !l.trim_start().starts_with("- ") {
            end = i;
            break;
        }
    }
    while end > parent.start + 1 && !is_significant(&lines[end - 1]) {
        end -= 1;
    }
    Some(Span { start: parent.start, end, indent: parent.indent })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn no_doc(_: &[String]) -> Vec<String> {
        Vec::new()
    }

    #[test]
    fn a_change_of_the_user_wins_an_untouched_default_follows() {
        let base = json!({"a": 1, "b": {"c": 2, "d": 3}, "gone": 1, "kept": 1});
        let user = json!({"a": 5, "b": {"c": 2, "d": 3, "mine": true}, "gone": 1, "kept": 7, "own": "x"});
        let new = json!({"a": 1, "b": {"c": 20, "d": 3}, "added": []});
        assert_eq!(
            three_way(&user, Some(&base), &new),
            json!({"a": 5, "b": {"c": 20, "d": 3, "mine": true}, "kept": 7, "own": "x", "added": []})
        );
        // Without a base every present value is the user's.
        assert_eq!(three_way(&json!({"a": 5}), None, &json!({"a": 1, "n": 2})), json!({"a": 5, "n": 2}));
    }

    #[test]
    fn edits_keep_comments_and_layout_elsewhere() {
        let text = "# top comment\n\n# replicas doc\nmanager:\n  # how many\n  replicas: 1 # inline\n  image:\n    \
                    repository: controller\n    tag: \"\"\n  nodeSelector: {}\n\n# mine\nown: true\n";
        let from = crate::yaml::from_str(text).unwrap();
        let mut to = from.clone();
        to["manager"]["image"]["tag"] = json!("v2");
        to["manager"]["nodeSelector"] = json!({"disk": "ssd"});
        to["manager"]["new"] = json!(3);
        to["added"] = json!({"x": 1});
        let doc = |p: &[String]| if p == ["added"] { vec!["Added by kubesmith.".to_string()] } else { vec![] };
        let out = edit_text(text, &from, &to, &doc).unwrap();
        assert_eq!(
            out,
            "# top comment\n\n# replicas doc\nmanager:\n  # how many\n  replicas: 1 # inline\n  image:\n    \
             repository: controller\n    tag: v2\n  nodeSelector:\n    disk: ssd\n  new: 3\n\n# mine\nown: true\n\n\
             # Added by kubesmith.\nadded:\n  x: 1\n"
        );
    }

    #[test]
    fn removals_take_their_comment_with_them() {
        let text = "a: 1\n# about b\nb:\n  c: 1\n  # about d\n  d: 2\ne: 3\n";
        let from = crate::yaml::from_str(text).unwrap();
        let to = json!({"a": 1, "b": {"c": 1}, "e": 3});
        assert_eq!(edit_text(text, &from, &to, &no_doc).unwrap(), "a: 1\n# about b\nb:\n  c: 1\ne: 3\n");
    }

    #[test]
    fn text_it_cannot_edit_is_refused() {
        let text = "a: {b: 1, c: 2}\n";
        let from = crate::yaml::from_str(text).unwrap();
        // A flow mapping is rewritten whole, which still gives the right value.
        let out = edit_text(text, &from, &json!({"a": {"b": 1, "c": 3}}), &no_doc).unwrap();
        assert_eq!(out, "a:\n  b: 1\n  c: 3\n");
        // Changing an anchored value would leave its alias dangling: refused, the caller rewrites the file.
        let text = "x: &v 1\ny: *v\n";
        let from = crate::yaml::from_str(text).unwrap();
        assert_eq!(edit_text(text, &from, &json!({"x": 2, "y": 1}), &no_doc), None);
    }
}
