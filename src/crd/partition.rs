//! A generation split in parts: each part loads its own crate index, parsing its share of the files that derive
//! `CustomResource` (and whatever its kinds' types need), builds those kinds and frees its syntax trees before the
//! next part is loaded, on as many threads as there are cores. A large crate's trees are never all in memory at
//! once, and the cores share the work. The parts' results are taken only when they are plainly the whole crate's
//! result cut in pieces — no part met a problem of the crate (one no kind owns: a file that does not parse, a
//! marker on nothing), a kind that needs compiling or a macro's kind, and no kind came from two parts (as a CRD or
//! as a problem); otherwise the crate is generated again in one piece, so the outcome never depends on the split.
//! A kind's own problems are its part's to report, as its CRD would be: real kopium output meets many (fields of
//! `serde_json::Value`), and generating such a crate twice cost three times the work.
//! (syn's trees cannot cross threads: each part keeps its own.)

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::finish::Finish;
use super::index::{LARGE_CRATE, Part, PathMap, SourceSet};
use super::storage::MergeCalls;
use super::{CrdError, Generation, K8sTable};

/// About how many bytes of the files deriving `CustomResource` each part gets: their syntax trees take ~15 times
/// that in memory (the other files are parsed only when a kind's types lead into them). Half a MiB: on 5.7 MB of
/// real kopium output peak RSS 101 MiB where 1 MiB parts took 122 MiB, at the same speed, and 500 scaffolded kinds
/// 59 MiB where they took 71 MiB (`cargo xtask bench`, issue 45).
const PART_BYTES: u64 = 1 << 19;

/// Every kind of the crate, generated in parts when the crate is large enough and no `merge_crds` call joins kinds
/// across files: one per core at least, one per [`PART_BYTES`] of the files deriving `CustomResource` when they
/// hold twice that or more, so a large crate's trees are never all in memory at once.
pub(super) fn generate(
    sources: &SourceSet,
    k8s: &K8sTable,
    merges: &MergeCalls,
    finish: Option<&Finish>,
) -> Result<Generation, CrdError> {
    if merges.calls.is_empty() {
        let files = sources.rust_files();
        if files.iter().map(|(_, len)| len).sum::<u64>() > LARGE_CRATE {
            let derives = sources.derive_files();
            let bytes = derives.iter().map(|(_, len)| len).sum::<u64>();
            // One per started [`PART_BYTES`] from twice that on (below, a second load of the shared files costs a
            // single thread more than the memory it saves), at least one per thread, and a multiple of the
            // threads, so they finish together.
            let threads = crate::parallel::threads();
            let by_size = if bytes < 2 * PART_BYTES { 1 } else { bytes.div_ceil(PART_BYTES) };
            let parts = usize::try_from(by_size).unwrap_or(usize::MAX).div_ceil(threads) * threads;
            if parts > 1
                && let Some(out) = split(sources, k8s, merges, &balanced(derives, parts), finish)
            {
                return Ok(out);
            }
        }
    }
    super::generate_part(sources, k8s, merges, None)
}

/// Whether a part's generation is plainly its share of the whole one: every problem is a kind's.
fn plain(out: &Result<Generation, CrdError>) -> bool {
    out.as_ref()
        .is_ok_and(|g| g.pending.is_empty() && g.macro_kinds.is_empty() && g.problems.iter().all(|p| p.crd.is_some()))
}

/// The parts' generations joined, or `None` when they are not plainly the whole one (see the module's doc). The
/// parts are generated on worker threads (one per core at most), each taking the next part when done with one;
/// the first part that is not plain stops them all. With `finish`, each part's CRDs are finished on its thread.
pub(super) fn split(
    sources: &SourceSet,
    k8s: &K8sTable,
    merges: &MergeCalls,
    parts: &[Part],
    finish: Option<&Finish>,
) -> Option<Generation> {
    let workers = crate::parallel::threads().clamp(1, parts.len().max(1));
    if workers > 1 {
        sources.work_out_facts();
    }
    let next = AtomicUsize::new(0);
    let mut outcomes: Vec<(usize, Result<Generation, CrdError>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let mine = sources.clone();
                let next = &next;
                s.spawn(move || {
                    let mut done = Vec::new();
                    while let Some(part) = parts.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let mut out = super::generate_part(&mine, k8s, merges, Some(part.clone()));
                        if let (Some(how), Ok(g)) = (finish, &mut out) {
                            let crds = std::mem::take(&mut g.crds);
                            g.finished = crds.into_iter().map(|c| super::finish::finish(c, how)).collect();
                        }
                        // The part's trees are gone; so are the copies of its texts proc-macro2 keeps for spans
                        // (nothing this thread holds refers to a span any more: errors carry lines and columns).
                        proc_macro2::extra::invalidate_current_thread_spans();
                        let stop = !plain(&out);
                        done.push((part.index, out));
                        if stop {
                            next.store(parts.len(), Ordering::Relaxed);
                            break;
                        }
                    }
                    (done, mine)
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for h in handles {
            match h.join() {
                Ok((done, mine)) => {
                    sources.absorb_scanned(mine);
                    outcomes.extend(done);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        outcomes
    });
    if outcomes.len() != parts.len() || !outcomes.iter().all(|(_, out)| plain(out)) {
        return None;
    }
    outcomes.sort_by_key(|(index, _)| *index);
    let mut joined = Generation::default();
    let mut names = BTreeSet::new();
    for (_, out) in outcomes {
        let out = out.ok()?;
        let crd_names = out.crds.iter().map(|c| &c.name).chain(out.finished.iter().map(|c| &c.name));
        let problem_names: BTreeSet<&String> = out.problems.iter().filter_map(|p| p.crd.as_ref()).collect();
        for name in crd_names.chain(problem_names) {
            if !names.insert(name.clone()) {
                return None;
            }
        }
        joined.crds.extend(out.crds);
        joined.finished.extend(out.finished);
        joined.problems.extend(out.problems);
    }
    joined.crds.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    joined.finished.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    super::sort_problems(&mut joined.problems);
    Some(joined)
}

/// `parts` parts with the files under the source folder shared out by size, largest group first to the part with
/// the fewest bytes so far; the files of one [`Part::key`] stay together. The parts come heaviest first.
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
    let mut owners = PathMap::default();
    for (_, (len, paths)) in groups {
        let lightest = (0..parts).min_by_key(|&p| (load[p], p)).unwrap_or(0);
        load[lightest] += len;
        owners.extend(paths.into_iter().map(|p| (p, lightest)));
    }
    let owners = std::sync::Arc::new(owners);
    // Heaviest first: the threads take parts in this order, so the last ones taken are the lightest and the threads
    // finish together (a part of one megabyte file taken last left the other thread idle a tenth of the run).
    let mut order: Vec<usize> = (0..parts).collect();
    order.sort_by_key(|&p| (std::cmp::Reverse(load[p]), p));
    order.into_iter().map(|index| Part { index, of: parts, owners: owners.clone() }).collect()
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
            let out = split(&sources, k8s, &merges, &split_up, None).expect("a plain split");
            assert_eq!(shown(&out), shown(&whole), "{parts} parts");
        }
    }

    #[test]
    fn parts_finish_their_crds_as_the_whole_generation_is_finished() {
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n".into()),
            ("a.rs", kind("Alpha", "v1", &["size", "name", "mode"])),
            ("b.rs", kind("Bravo", "v1", &["port"])),
            ("c.rs", kind("Charlie", "v1", &["host", "path"])),
        ]);
        let k8s = K8sTable::default_table();
        let merges = MergeCalls::default();
        let how = Finish { max_description_length: Some(5) };
        let whole = crate::crd::generate_part(&sources, k8s, &merges, None).expect("generates");
        let expected: Vec<_> = whole.crds.into_iter().map(|c| super::super::finish::finish(c, &how)).collect();
        assert_eq!(expected.len(), 3);
        for parts in [2, 3] {
            let out = split(&sources, k8s, &merges, &balanced(sources.rust_files().to_vec(), parts), Some(&how))
                .expect("a plain split");
            assert!(out.crds.is_empty(), "every CRD is finished in its part");
            assert_eq!(out.finished, expected, "{parts} parts");
        }
    }

    #[test]
    fn a_kind_split_across_parts_falls_back_to_one_thread() {
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
        assert!(split(&sources, k8s, &merges, &parts, None).is_none());
        let whole = crate::crd::generate_part(&sources, k8s, &merges, None).expect("generates");
        assert_eq!(whole.crds.len(), 1);
        assert_eq!(whole.crds[0].crd["spec"]["versions"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_part_reading_an_impl_of_another_part_s_kind_loads_that_kind_s_file() {
        // `impl Bravo` is written beside Alpha, whose default reads it; Bravo's derive is another part's file,
        // which Alpha's part leaves a stub until a lookup names the kind.
        let alpha = kind("Alpha", "v1", &["size", "name", "mode", "zone"])
            .replace("    pub size: Option<String>,", "    #[serde(default = \"alpha_size\")]\n    pub size: String,")
            + "use crate::bravo::Bravo;\n\
             impl Bravo { pub const SIZE: &'static str = \"large\"; }\n\
             fn alpha_size() -> String { Bravo::SIZE.to_string() }\n";
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod alpha;\npub mod bravo;\n".into()),
            ("alpha.rs", alpha),
            ("bravo.rs", kind("Bravo", "v1", &["port"])),
        ]);
        let k8s = K8sTable::default_table();
        let merges = MergeCalls::default();
        let whole = crate::crd::generate_part(&sources, k8s, &merges, None).expect("generates");
        assert!(whole.problems.is_empty(), "{:?}", problems(&whole));
        let alpha = whole.crds.iter().find(|c| c.name.starts_with("alphas.")).expect("alpha");
        let size = &alpha.crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
        assert_eq!(size["size"]["default"], "large");
        let parts = balanced(sources.rust_files().to_vec(), 2);
        let src = sources.src_dir();
        assert_ne!(parts[0].owns(&src.join("alpha.rs")), parts[0].owns(&src.join("bravo.rs")));
        let out = split(&sources, k8s, &merges, &parts, None).expect("a plain split: the impl is Bravo's");
        assert_eq!(shown(&out), shown(&whole));
    }

    #[test]
    fn parts_come_heaviest_first() {
        // The first part gets the largest file (5), the second the next two (4 + 4).
        let files: Vec<(PathBuf, u64)> = [("a.rs", 5), ("b.rs", 4), ("c.rs", 4)].map(|(p, n)| (p.into(), n)).into();
        let parts = balanced(files.clone(), 2);
        let load = |part: &Part| files.iter().filter(|(p, _)| part.owns(p)).map(|(_, n)| n).sum::<u64>();
        assert_eq!(parts.iter().map(load).collect::<Vec<_>>(), [8, 5]);
        assert_eq!(parts.iter().map(|p| p.index).collect::<Vec<_>>(), [1, 0]);
    }

    /// The problems of the whole generation, comparable.
    fn problems(g: &Generation) -> Vec<String> {
        g.problems.iter().map(|p| format!("{:?} {}", p.crd, p.error)).collect()
    }

    #[test]
    fn a_kind_with_a_problem_is_its_part_s_and_a_problem_of_the_crate_falls_back() {
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod echo;\npub mod foxtrot;\npub mod golf;\n".into()),
            ("echo.rs", kind("Echo", "v1", &["a", "b"])),
            (
                "foxtrot.rs",
                kind("Foxtrot", "v1", &["a", "b"]).replace("pub b: Option<String>", "pub b: serde_json::Value"),
            ),
            (
                "golf.rs",
                kind("Golf", "v1", &["a", "b", "c"]).replace("pub c: Option<String>", "pub c: serde_json::Value"),
            ),
        ]);
        let k8s = K8sTable::default_table();
        let merges = MergeCalls::default();
        let whole = crate::crd::generate_part(&sources, k8s, &merges, None).expect("generates");
        assert_eq!(whole.crds.len(), 1, "{:?}", whole.problems);
        assert_eq!(whole.problems.len(), 2, "{:?}", whole.problems);
        for parts in [2, 3] {
            let out = split(&sources, k8s, &merges, &balanced(sources.rust_files().to_vec(), parts), None)
                .expect("kinds' problems are joined");
            assert_eq!(shown(&out), shown(&whole), "{parts} parts");
            assert_eq!(problems(&out), problems(&whole), "{parts} parts");
        }

        // A kind that needs compiling is the whole generation's (the compiled fallback builds the crate).
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod echo;\npub mod hotel;\n".into()),
            ("echo.rs", kind("Echo", "v1", &["a"])),
            ("hotel.rs", kind("Hotel", "v1", &["a"]).replace("Option<String>", "Missing")),
        ]);
        let parts = balanced(sources.rust_files().to_vec(), 2);
        assert!(split(&sources, k8s, &merges, &parts, None).is_none(), "a kind that needs compiling");

        // A file that does not parse is the crate's problem: the whole generation reports it.
        let (_dir, sources) = crate_of(&[
            ("lib.rs", "pub mod echo;\npub mod foxtrot;\n".into()),
            ("echo.rs", kind("Echo", "v1", &["a"])),
            ("foxtrot.rs", format!("{}\nfn broken( {{", kind("Foxtrot", "v1", &["a"]))),
        ]);
        let parts = balanced(sources.rust_files().to_vec(), 2);
        assert!(split(&sources, k8s, &merges, &parts, None).is_none(), "a problem of the crate");
    }
}
