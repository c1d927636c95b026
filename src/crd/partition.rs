//! A generation split over threads: each part loads its own crate index, parsing its share of the files that derive
//! `CustomResource` (and whatever its kinds' types need), and builds those kinds. The parts' results are taken only
//! when they are plainly the one-thread result cut in pieces — no part met a problem, a kind that needs compiling or
//! a macro's kind, and no kind came from two parts; otherwise the crate is generated again on one thread, so the
//! outcome never depends on the split. (syn's trees cannot cross threads: each part keeps its own.)

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use super::index::{Part, SourceSet};
use super::storage::MergeCalls;
use super::{CrdError, Generation, K8sTable};

/// Bytes of Rust under the source folder above which a generation is split: below it the second index's shared
/// files (the crate root, module declarations) and the thread cost more than they save.
const SPLIT_ABOVE: u64 = 2 << 20;

/// Every kind of the crate, split into [`crate::parallel::threads`] parts when the crate is large enough and no
/// `merge_crds` call joins kinds across files.
pub(super) fn generate(sources: &SourceSet, k8s: &K8sTable, merges: &MergeCalls) -> Result<Generation, CrdError> {
    let parts = crate::parallel::threads();
    if parts > 1 && merges.calls.is_empty() {
        let files = sources.rust_files();
        if files.iter().map(|(_, len)| len).sum::<u64>() > SPLIT_ABOVE
            && let Some(out) = split(sources, k8s, merges, &balanced(files.to_vec(), parts))
        {
            return Ok(out);
        }
    }
    super::generate_part(sources, k8s, merges, None)
}

/// The parts' generations joined, or `None` when they are not plainly the whole one (see the module's doc).
pub(super) fn split(sources: &SourceSet, k8s: &K8sTable, merges: &MergeCalls, parts: &[Part]) -> Option<Generation> {
    let (first, others) = parts.split_first()?;
    let outcomes: Vec<Result<Generation, CrdError>> = std::thread::scope(|s| {
        let handles: Vec<_> = others
            .iter()
            .map(|part| {
                let mine = sources.clone();
                s.spawn(move || (super::generate_part(&mine, k8s, merges, Some(part.clone())), mine))
            })
            .collect();
        let mut outcomes = vec![super::generate_part(sources, k8s, merges, Some(first.clone()))];
        for h in handles {
            match h.join() {
                Ok((out, mine)) => {
                    sources.absorb_scanned(mine);
                    outcomes.push(out);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        outcomes
    });
    let mut crds = Vec::new();
    let mut names = BTreeSet::new();
    for out in outcomes {
        let out = out.ok()?;
        if !out.problems.is_empty() || !out.pending.is_empty() || !out.macro_kinds.is_empty() {
            return None;
        }
        for crd in out.crds {
            if !names.insert(crd.name.clone()) {
                return None;
            }
            crds.push(crd);
        }
    }
    crds.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    Some(Generation { crds, pending: Vec::new(), problems: Vec::new(), macro_kinds: Vec::new() })
}

/// `parts` parts with the files under the source folder shared out by size, largest group first to the part with
/// the fewest bytes so far; the files of one [`Part::key`] stay together.
pub(super) fn balanced(files: Vec<(PathBuf, u64)>, parts: usize) -> Vec<Part> {
    let mut groups: HashMap<String, (u64, Vec<PathBuf>)> = HashMap::new();
    for (path, len) in files {
        let group = groups.entry(Part::key(&path)).or_default();
        group.0 += len;
        group.1.push(path);
    }
    let mut groups: Vec<(String, (u64, Vec<PathBuf>))> = groups.into_iter().collect();
    // Largest first; by key among equals, so the split does not depend on the order the folder lists files in.
    groups.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let mut load = vec![0u64; parts];
    let mut owners = HashMap::new();
    for (_, (len, paths)) in groups {
        let lightest = (0..parts).min_by_key(|&p| (load[p], p)).unwrap_or(0);
        load[lightest] += len;
        owners.extend(paths.into_iter().map(|p| (p, lightest)));
    }
    let owners = std::sync::Arc::new(owners);
    (0..parts).map(|index| Part { index, of: parts, owners: owners.clone() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(kind: &str, version: &str, fields: &[&str]) -> String {
        let fields: String =
            fields.iter().map(|f| format!("    /// The {f}.\n    pub {f}: Option<String>,\n")).collect();
        format!(
            "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{{Deserialize, Serialize}};\n\n\
             /// A {kind}.\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n\
             #[kube(group = \"split.example.com\", version = \"{version}\", kind = \"{kind}\")]\n\
             pub struct {kind}Spec {{\n{fields}}}\n"
        )
    }

    /// A version that is not the storage one.
    fn old(text: String) -> String {
        text.replace("version = \"v1\"", "version = \"v1\", storage = false")
    }

    fn crate_of(files: &[(&str, String)]) -> (tempfile::TempDir, SourceSet) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let sources = SourceSet::new(dir.path());
        (dir, sources)
    }

    /// The CRDs as comparable text.
    fn shown(g: &Generation) -> Vec<String> {
        g.crds.iter().map(|c| format!("{} {} {}", c.name, c.file_name, c.crd)).collect()
    }

    #[test]
    fn parts_give_the_one_thread_generation() {
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod v1;\npub mod v2;\n".into()),
            ("a.rs", kind("Alpha", "v1", &["size", "name", "mode"])),
            ("b.rs", kind("Bravo", "v1", &["port"])),
            // Two versions of one kind in files of one name: one part holds both.
            ("v1.rs", "pub mod charlie;\n".into()),
            ("v1/charlie.rs", old(kind("Charlie", "v1", &["old"]))),
            ("v2.rs", "pub mod charlie;\n".into()),
            ("v2/charlie.rs", kind("Charlie", "v2", &["new", "newer"])),
        ]);
        let k8s = K8sTable::default_table();
        let merges = MergeCalls::default();
        let whole = crate::crd::generate_part(&sources, k8s, &merges, None).expect("generates");
        assert_eq!(whole.crds.len(), 3, "{:?}", whole.problems);
        for parts in [2, 3] {
            let split_up = balanced(sources.rust_files().to_vec(), parts);
            let owners: BTreeSet<usize> = split_up[0].owners.values().copied().collect();
            assert_eq!(owners.len(), parts, "every part owns files");
            let out = split(&sources, k8s, &merges, &split_up).expect("a plain split");
            assert_eq!(shown(&out), shown(&whole), "{parts} parts");
        }
    }

    #[test]
    fn a_kind_split_across_parts_or_a_problem_falls_back_to_one_thread() {
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod delta_old;\npub mod delta_new;\n".into()),
            ("delta_old.rs", old(kind("Delta", "v1", &["a", "b", "c", "d", "e", "f"]))),
            ("delta_new.rs", kind("Delta", "v2", &["a"])),
        ]);
        let k8s = K8sTable::default_table();
        let merges = MergeCalls::default();
        let parts = balanced(sources.rust_files().to_vec(), 2);
        assert_ne!(
            parts[0].owns(&sources.src_dir().join("delta_old.rs")),
            parts[0].owns(&sources.src_dir().join("delta_new.rs"))
        );
        assert!(split(&sources, k8s, &merges, &parts).is_none());
        let whole = crate::crd::generate_part(&sources, k8s, &merges, None).expect("generates");
        assert_eq!(whole.crds.len(), 1);
        assert_eq!(whole.crds[0].crd["spec"]["versions"].as_array().map(Vec::len), Some(2));

        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod echo;\npub mod foxtrot;\n".into()),
            ("echo.rs", kind("Echo", "v1", &["a"])),
            ("foxtrot.rs", kind("Foxtrot", "v1", &["a"]).replace("Option<String>", "Missing")),
        ]);
        let parts = balanced(sources.rust_files().to_vec(), 2);
        assert!(split(&sources, k8s, &merges, &parts).is_none(), "a part with a problem");
    }
}
