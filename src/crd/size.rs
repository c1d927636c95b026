//! CRD size: controller-gen's `maxDescLen` description truncation, and the check against what `kubectl apply`
//! can store in its `kubectl.kubernetes.io/last-applied-configuration` annotation.

use serde_json::Value;

use super::GeneratedCrd;

/// The most bytes the annotations of one object may hold; client-side `kubectl apply` copies the whole object
/// (as compact JSON) into the last-applied annotation, so a bigger CRD cannot be applied that way.
pub const LAST_APPLIED_LIMIT: usize = 262_144;

/// Unicode `Sentence_Terminal` characters (the common ones; controller-gen uses `unicode.STerm`).
fn is_sentence_terminal(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | '\u{589}'
            | '\u{61D}'
            | '\u{61E}'
            | '\u{61F}'
            | '\u{6D4}'
            | '\u{700}'
            | '\u{701}'
            | '\u{702}'
            | '\u{964}'
            | '\u{965}'
            | '\u{1362}'
            | '\u{1367}'
            | '\u{1368}'
            | '\u{166E}'
            | '\u{1803}'
            | '\u{1809}'
            | '\u{203C}'
            | '\u{203D}'
            | '\u{2047}'
            | '\u{2048}'
            | '\u{2049}'
            | '\u{2E2E}'
            | '\u{2E3C}'
            | '\u{3002}'
            | '\u{A4FF}'
            | '\u{A60E}'
            | '\u{A60F}'
            | '\u{FE52}'
            | '\u{FE56}'
            | '\u{FE57}'
            | '\u{FF01}'
            | '\u{FF0E}'
            | '\u{FF1F}'
            | '\u{FF61}'
    )
}

/// controller-gen's `maxDescLen` rule for one description: unchanged when it fits in `max` bytes; otherwise cut
/// to `max` bytes and end at the last sentence terminal, else at the last whitespace plus `...`, else hard plus
/// `...`. (`max == 0` drops descriptions; see [`truncate_descriptions`].)
pub fn truncate_description(desc: &str, max: usize) -> String {
    if desc.len() <= max {
        return desc.to_string();
    }
    let mut end = max;
    while !desc.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &desc[..end];
    if let Some((i, c)) = cut.char_indices().rev().find(|(_, c)| is_sentence_terminal(*c)).filter(|(i, _)| *i > 0) {
        return cut[..i + c.len_utf8()].to_string();
    }
    if let Some((i, _)) = cut.char_indices().rev().find(|(_, c)| c.is_whitespace()).filter(|(i, _)| *i > 0) {
        return format!("{}...", &cut[..i]);
    }
    format!("{cut}...")
}

/// Applies [`truncate_description`] to every schema description of every version (`max == 0` removes them).
pub fn truncate_descriptions(crd: &mut Value, max: usize) {
    if let Some(Value::Array(versions)) = crd.pointer_mut("/spec/versions") {
        for v in versions {
            if let Some(s) = v.pointer_mut("/schema/openAPIV3Schema") {
                truncate_schema(s, max);
            }
        }
    }
}

fn truncate_schema(schema: &mut Value, max: usize) {
    let Value::Object(obj) = schema else { return };
    if max == 0 {
        obj.remove("description");
    } else if let Some(Value::String(d)) = obj.get_mut("description") {
        *d = truncate_description(d, max);
    }
    for (k, v) in obj.iter_mut() {
        match (k.as_str(), v) {
            ("properties" | "patternProperties" | "definitions", Value::Object(props)) => {
                props.values_mut().for_each(|s| truncate_schema(s, max));
            }
            ("items" | "additionalProperties" | "additionalItems" | "not", s @ Value::Object(_)) => {
                truncate_schema(s, max)
            }
            ("items" | "allOf" | "anyOf" | "oneOf", Value::Array(a)) => {
                a.iter_mut().for_each(|s| truncate_schema(s, max));
            }
            _ => {}
        }
    }
}

/// Compact JSON size of a value.
pub fn json_size(v: &Value) -> usize {
    /// Counts the bytes written instead of keeping them.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, v) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

fn human(bytes: usize) -> String {
    let kb = bytes as f64 / 1024.0;
    if kb >= 10.0 { format!("{kb:.0} KB") } else { format!("{kb:.1} KB") }
}

/// The biggest schema properties of a CRD: the children of each top-level property (`spec`, `status`, ...) of
/// every version (or the top-level property itself when it has none), biggest first, with their paths.
pub fn biggest_fields(crd: &Value, n: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    if let Some(Value::Array(versions)) = crd.pointer("/spec/versions") {
        for (i, v) in versions.iter().enumerate() {
            let base = format!("spec.versions[{i}].schema.openAPIV3Schema");
            let Some(Value::Object(top)) = v.pointer("/schema/openAPIV3Schema/properties") else {
                continue;
            };
            for (name, prop) in top {
                let path = format!("{base}.properties.{name}");
                match prop.get("properties") {
                    Some(Value::Object(children)) if !children.is_empty() => {
                        for (c, s) in children {
                            out.push((format!("{path}.properties.{c}"), json_size(s)));
                        }
                    }
                    _ => out.push((path, json_size(prop))),
                }
            }
        }
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.truncate(n);
    out
}

/// A warning when the CRD is too big for client-side `kubectl apply`, else `None`.
pub fn size_warning(generated: &GeneratedCrd) -> Option<String> {
    let size = json_size(&generated.crd);
    if size <= LAST_APPLIED_LIMIT {
        return None;
    }
    let mut msg = format!(
        "warning: CRD {} is {size} bytes as JSON ({}), more than the {LAST_APPLIED_LIMIT} bytes `kubectl apply` can \
         store in its kubectl.kubernetes.io/last-applied-configuration annotation, so a client-side apply fails \
         (metadata.annotations: Too long)\n  biggest fields:",
        generated.name,
        human(size)
    );
    for (path, bytes) in biggest_fields(&generated.crd, 5) {
        msg.push_str(&format!("\n    {path}: {}", human(bytes)));
    }
    msg.push_str(
        "\n  fix: install it with `kubectl apply --server-side` (or `kubectl create`/`replace`), which stores no \
         annotation, or shrink it with `kubesmith make manifests --max-description-length N` (truncates every \
         description to N bytes like controller-gen's maxDescLen; 0 drops them)",
    );
    Some(msg)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const API_VERSION: &str = "APIVersion defines the versioned schema of this representation of an object.\n\
        Servers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.";
    const KIND: &str = "Kind is a string value representing the REST resource this object represents.";
    const DEFAULTED: &str = "This tests that defaulted fields are stripped for v1beta1,\nbut not for v1";

    /// controller-tools testdata/gen/bar.example.com_foos_maxdesclen.yaml (maxDescLen=50).
    #[test]
    fn matches_controller_gen_maxdesclen_fixture() {
        assert_eq!(truncate_description(API_VERSION, 50), "APIVersion defines the versioned schema of this...");
        assert_eq!(truncate_description(KIND, 50), "Kind is a string value representing the REST...");
        assert_eq!(truncate_description(DEFAULTED, 50), "This tests that defaulted fields are stripped for...");
        let short = "Spec comments SHOULD appear in the CRD spec";
        assert_eq!(truncate_description(short, 50), short);
    }

    #[test]
    fn cuts_at_the_last_sentence_end_else_hard() {
        assert_eq!(truncate_description("First sentence. Second sentence is long.", 25), "First sentence.");
        assert_eq!(truncate_description("Wow! Really long words", 12), "Wow!");
        assert_eq!(truncate_description("abcdefghijklmnop", 5), "abcde...");
        // Never splits a UTF-8 character.
        assert_eq!(truncate_description("ééééé", 3), "é...");
        assert_eq!(truncate_description("日本語の説明。次の文", 22), "日本語の説明。");
    }

    fn crd_with(desc: &str) -> Value {
        json!({"spec": {"versions": [{"schema": {"openAPIV3Schema": {
            "description": desc,
            "type": "object",
            "properties": {
                "spec": {"description": desc, "type": "object", "properties": {
                    "description": {"description": desc, "type": "string", "default": {"description": desc}},
                    "list": {"type": "array", "items": {"description": desc, "type": "string"}},
                    "map": {"type": "object", "additionalProperties": {"description": desc, "type": "string"}},
                    "alt": {"anyOf": [{"description": desc}]}
                }}
            }
        }}}]}})
    }

    #[test]
    fn truncates_every_schema_description_but_not_values() {
        let mut crd = crd_with(KIND);
        truncate_descriptions(&mut crd, 50);
        let want = "Kind is a string value representing the REST...";
        let s = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        assert_eq!(s["description"], want);
        let p = &s["properties"]["spec"]["properties"];
        assert_eq!(s["properties"]["spec"]["description"], want);
        assert_eq!(p["description"]["description"], want);
        assert_eq!(p["description"]["default"]["description"], KIND);
        assert_eq!(p["list"]["items"]["description"], want);
        assert_eq!(p["map"]["additionalProperties"]["description"], want);
        assert_eq!(p["alt"]["anyOf"][0]["description"], want);
    }

    #[test]
    fn zero_drops_descriptions() {
        let mut crd = crd_with(KIND);
        truncate_descriptions(&mut crd, 0);
        let text = crd.to_string();
        assert_eq!(text.matches("\"description\":\"").count(), 1, "{text}");
        assert!(
            crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
                .get("description")
                .is_some()
        );
    }

    fn generated(crd: Value) -> GeneratedCrd {
        GeneratedCrd {
            name: "bigs.m.io".into(),
            group: "m.io".into(),
            plural: "bigs".into(),
            file_name: "m.io_bigs.yaml".into(),
            crd,
        }
    }

    #[test]
    fn size_warning_names_the_biggest_fields_and_both_fixes() {
        let big = "x".repeat(100_000);
        let mut props = serde_json::Map::new();
        for (i, name) in ["a", "b", "c", "d", "e", "f"].iter().enumerate() {
            props.insert(
                (*name).to_string(),
                json!({"type": "string", "description": big[..(i + 1) * 15_000].to_string()}),
            );
        }
        let crd = json!({"metadata": {"name": "bigs.m.io"}, "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": props}, "status": {"type": "object"}}
        }}}]}});
        assert!(json_size(&crd) > LAST_APPLIED_LIMIT);
        let w = size_warning(&generated(crd.clone())).expect("warning");
        assert!(w.starts_with("warning: CRD bigs.m.io is "), "{w}");
        assert!(w.contains("262144"), "{w}");
        let listed: Vec<&str> = w.lines().filter(|l| l.contains(": ") && l.contains("openAPIV3Schema")).collect();
        assert_eq!(listed.len(), 5, "{w}");
        assert!(
            listed[0].trim().starts_with("spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.f: 88 KB"),
            "{w}"
        );
        assert!(!w.contains("properties.spec.properties.a:"), "smallest is left out: {w}");
        assert!(w.contains("kubectl apply --server-side"), "{w}");
        assert!(w.contains("--max-description-length"), "{w}");

        let mut small = crd;
        truncate_descriptions(&mut small, 100);
        assert!(size_warning(&generated(small)).is_none());
    }
}
