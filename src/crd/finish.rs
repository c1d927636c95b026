//! A generated CRD turned into the file `make manifests` writes: descriptions cut to the asked length, the notes
//! about it (too big for a client-side apply, maps the API server prunes) and its YAML text. Done on the thread that
//! generated it when the generation is split in parts ([`super::generate_finishing`]), so no CRD's JSON outlives
//! its part.

use super::GeneratedCrd;

/// How each CRD is finished.
#[derive(Debug, Clone, Copy, Default)]
pub struct Finish {
    /// Cut every description to this many bytes (`--max-description-length`; 0 drops them).
    pub max_description_length: Option<usize>,
}

/// A CRD as its file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedCrd {
    /// `memcacheds.cache.example.com`.
    pub name: String,
    /// `cache.example.com`.
    pub group: String,
    /// `memcacheds`.
    pub plural: String,
    /// `Memcached`.
    pub kind: String,
    /// `<group>_<plural>.yaml`.
    pub file_name: String,
    /// The file's text ([`text`]).
    pub text: String,
    /// Warnings and notes about it, each a finished message.
    pub notes: Vec<String>,
}

/// `generated` finished as `how` asks.
pub fn finish(mut generated: GeneratedCrd, how: &Finish) -> FinishedCrd {
    if let Some(max) = how.max_description_length {
        super::size::truncate_descriptions(&mut generated.crd, max);
    }
    let mut notes: Vec<String> = super::size::size_warning(&generated).into_iter().collect();
    notes.extend(super::pruning::pruning_notes(&generated));
    let mut text = text(&generated);
    // Every CRD's text is held until the plan is written: without the room it grew into.
    text.shrink_to_fit();
    let kind = generated.crd["spec"]["names"]["kind"].as_str().unwrap_or_default().to_string();
    let GeneratedCrd { name, group, plural, file_name, .. } = generated;
    FinishedCrd { name, group, plural, kind, file_name, text, notes }
}

/// The text of a CRD file: one YAML document, starting with `---` as controller-gen writes them.
pub fn text(generated: &GeneratedCrd) -> String {
    crate::yaml::to_multi_doc_string(std::slice::from_ref(&generated.crd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_finished_crd_is_its_file_with_cut_descriptions_and_notes() {
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
                    "description": "A widget with a long description.",
                    "type": "object",
                    "properties": {"labels": {
                        "type": "object",
                        "additionalProperties": true,
                    }},
                }}}],
            },
        });
        let generated = GeneratedCrd {
            name: "widgets.example.com".into(),
            group: "example.com".into(),
            plural: "widgets".into(),
            file_name: "example.com_widgets.yaml".into(),
            crd,
        };
        let mut cut = generated.clone();
        super::super::size::truncate_descriptions(&mut cut.crd, 8);
        let done = finish(generated.clone(), &Finish { max_description_length: Some(8) });
        assert_eq!(done.text, text(&cut));
        assert!(done.text.starts_with("---\n"), "{}", done.text);
        assert!(!done.text.contains("long description"), "{}", done.text);
        assert_eq!(done.kind, "Widget");
        assert_eq!((done.name.as_str(), done.file_name.as_str()), ("widgets.example.com", "example.com_widgets.yaml"));
        assert_eq!(done.notes, super::super::pruning::pruning_notes(&generated));
        assert!(!done.notes.is_empty(), "a map of any JSON is noted");
        let whole = finish(generated.clone(), &Finish::default());
        assert_eq!(whole.text, text(&generated));
    }
}
