//! Fuzz target: the PROJECT loader (`ProjectFile::parse`) on arbitrary text, and a parsed file's YAML round trip.
#![no_main]

use kubesmith::project::ProjectFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let path = std::path::Path::new("PROJECT");
    if let Ok(project) = ProjectFile::parse(text, path) {
        // The readers `make manifests`, `make bundle` and `rbac infer` use.
        let _ = (project.is_kubesmith(), project.k8s_version(), project.crd_compile(), project.sources());
        let _ = (project.rbac_inferred(), project.adopted());
        for r in &project.resources {
            let _ = project.versions_of(&r.group, &r.kind).count();
            let _ = project.find(&r.group, &r.version, &r.kind);
        }
        // What kubesmith writes back must load again.
        let again =
            ProjectFile::parse(&project.to_yaml(), path).expect("a parsed PROJECT re-serializes to a loadable one");
        assert_eq!(project.to_yaml(), again.to_yaml());
    }
});
