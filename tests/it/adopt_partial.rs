//! `kubesmith adopt` on a crate one of whose kinds has a CRD kubesmith cannot generate
//! (`tests/fixtures/adopt/kiln`): by default it refuses whole, listing every problem and writing nothing; with
//! `--keep-going` it adopts the other kind and leaves the failed one out of everything `config/default` renders.

use std::path::{Path, PathBuf};

use crate::adopt::copy_dir;
use crate::support::{ks, snapshot};

fn kiln(parent: &Path) -> PathBuf {
    let dir = parent.join("kiln");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adopt/kiln"), &dir);
    dir
}

fn text(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Both problems of `Batch`, at their places.
const BATCH_PROBLEMS: [&str; 2] = ["src/lib.rs:25:19: tuple type", "src/lib.rs:27:27: map key type `u32`"];

#[test]
fn adopt_refuses_whole_listing_every_problem_and_writes_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = kiln(parent.path());
    let before = snapshot(&dir);
    let out = ks(&dir).arg("adopt").output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("adopt wrote nothing: the CRD of Batch (batches.kiln.example.org) cannot be generated"),
        "{said}"
    );
    assert!(said.contains("pass --keep-going"), "{said}");
    assert!(said.contains("2 problems:"), "{said}");
    for problem in BATCH_PROBLEMS {
        assert!(said.contains(problem), "missing {problem:?} in:\n{said}");
    }
    assert!(!said.contains("Firing (firings"), "Firing has no problem: {said}");
    assert_eq!(snapshot(&dir), before, "a refused adopt leaves the tree as it was");
    // --dry-run refuses the same way.
    let out = ks(&dir).args(["adopt", "--dry-run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(snapshot(&dir), before);
    // When no kind of the project's own is left, --keep-going refuses too.
    let out = ks(&dir).args(["adopt", "--keep-going", "--external", "Firing"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("so --keep-going would leave none to adopt"), "{}", text(&out));
    assert!(text(&out).contains(BATCH_PROBLEMS[0]), "{}", text(&out));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn keep_going_leaves_the_failed_kind_out_of_what_renders() {
    let parent = tempfile::tempdir().unwrap();
    let dir = kiln(parent.path());
    let sources = snapshot(&dir.join("src"));
    let out = ks(&dir).args(["adopt", "--keep-going"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("warning: --keep-going left out Batch (batches.kiln.example.org) whose CRD cannot be generated"),
        "{said}"
    );
    for problem in BATCH_PROBLEMS {
        assert!(said.contains(problem), "missing {problem:?} in:\n{said}");
    }
    assert!(said.contains("adopted 1 kind(s) as the project's own: Firing (kiln.example.org/v1)"), "{said}");
    assert_eq!(snapshot(&dir.join("src")), sources);

    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("kind: Firing") && !project.contains("Batch"), "{project}");
    let mut written = Vec::new();
    for d in ["config/crd", "config/crd/bases", "config/samples", "config/rbac"] {
        for e in std::fs::read_dir(dir.join(d)).unwrap() {
            let path = e.unwrap().path();
            if path.is_file() {
                written.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    assert!(written.iter().any(|(p, _)| p.ends_with("kiln.example.org_firings.yaml")), "{written:?}");
    for (path, text) in &written {
        assert!(!path.contains("batch"), "{path} is of the kind left out");
        let lowered = text.to_lowercase();
        // role.yaml grants what the code does; kinds the crate only declares are never named there.
        assert!(!lowered.contains("batches") && !lowered.contains("batch_"), "{path} names Batch:\n{text}");
    }

    let rendered =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(&dir).output().unwrap();
    assert!(rendered.status.success(), "{}", text(&rendered));
    let rendered = String::from_utf8(rendered.stdout).unwrap();
    assert!(rendered.contains("name: firings.kiln.example.org"), "{rendered}");
    assert!(!rendered.contains("batches"), "{rendered}");
}
