//! `create api --from-crd`: each CRD of `tests/fixtures/from-crd/` (our own, in the shapes of large upstream CRDs)
//! becomes Rust types whose CRD, as `make manifests` writes it afterwards, is the fixture as data; a CRD whose
//! types would break stored objects is refused with nothing written.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{ks, read, repo_root, snapshot};

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/from-crd").join(name)
}

fn parse(text: &str) -> Value {
    serde_yaml_ng::from_str(text).expect("YAML")
}

/// A new project in `parent/name` whose domain holds `group`'s API (`group` minus its first label).
fn project_for(parent: &Path, group: &str) -> PathBuf {
    let dir = parent.join("operator");
    std::fs::create_dir_all(&dir).unwrap();
    let domain = group.split_once('.').unwrap().1;
    ks(&dir).args(["init", "--domain", domain, "--owner", "Test"]).assert().success();
    dir
}

/// What the API server fills in or tools stamp, which the comparison leaves aside: the default `listKind`,
/// controller-gen's version annotation, and the order of `versions` (matched by name; kube-derive's merge sorts
/// them by Kubernetes' version priority).
fn as_stored(mut crd: Value) -> Value {
    if let Some(versions) = crd["spec"]["versions"].as_array_mut() {
        versions.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap().to_string();
    crd["spec"]["names"]["listKind"] = Value::String(format!("{kind}List"));
    if let Some(a) = crd["metadata"].as_object_mut() {
        a.remove("annotations");
    }
    whole_numbers(&mut crd);
    crd
}

fn whole_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() && n.as_f64().unwrap().fract() == 0.0 => {
            *v = Value::from(n.as_f64().unwrap() as i64)
        }
        Value::Array(a) => a.iter_mut().for_each(whole_numbers),
        Value::Object(o) => o.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// Runs `create api --from-crd` on the fixture, then `make manifests`, and compares the CRD with the fixture.
fn round_trip(name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let source = parse(&read(&fixture(name)));
    let group = source["spec"]["group"].as_str().unwrap();
    let dir = project_for(tmp.path(), group);
    let out = ks(&dir).args(["create", "api", "--from-crd"]).arg(fixture(name)).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{name}: create api --from-crd failed:\n{said}");
    assert!(said.contains("equals"), "{name}: the check did not find the CRDs equal:\n{said}");
    let plural = source["spec"]["names"]["plural"].as_str().unwrap();
    let crd_file = dir.join(format!("config/crd/bases/{group}_{plural}.yaml"));
    let planned = read(&crd_file);
    // what `make manifests` generates from the written types is what the command wrote
    ks(&dir).args(["make", "manifests"]).assert().success();
    assert!(read(&crd_file) == planned, "{name}: make manifests changed the CRD create api wrote");
    let written = parse(&planned);
    // the reconciler: over the storage version's types, granted what it calls
    let kind = source["spec"]["names"]["kind"].as_str().unwrap();
    let reconciler = walk(&dir.join("src/controller"))
        .into_iter()
        .find(|p| read(p).contains(&format!("//! Reconciler for `{kind}`")))
        .unwrap_or_else(|| panic!("{name}: no reconciler for {kind}"));
    assert!(read(&reconciler).contains("the kind's\n//! status is its own"), "{name}: {}", reconciler.display());
    let role = read(&dir.join("config/rbac/role.yaml"));
    assert!(role.contains(&format!("  - {plural}\n  verbs:\n  - list\n  - patch\n  - watch")), "{name}: {role}");
    let (want, got) = (as_stored(source.clone()), as_stored(written));
    assert!(want == got, "{name}: the generated CRD differs:\n{}", first_difference(&want, &got, String::new()));
}

/// The path of the first difference, with both sides.
fn first_difference(a: &Value, b: &Value, path: String) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                if x.get(k) != y.get(k) {
                    return match (x.get(k), y.get(k)) {
                        (Some(p), Some(q)) => first_difference(p, q, format!("{path}.{k}")),
                        (p, q) => format!("{path}.{k}: {p:?} vs {q:?}"),
                    };
                }
            }
            String::new()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            let i = (0..x.len()).find(|&i| x[i] != y[i]).unwrap_or(0);
            first_difference(&x[i], &y[i], format!("{path}[{i}]"))
        }
        _ => format!("{path}: {a} vs {b}"),
    }
}

#[test]
fn from_crd_round_trips_keywords_cel_names_and_subresources() {
    for name in [
        "telemetry.lumen.example_scrapepools.yaml",
        "certs.quarry.example_issuancepolicies.yaml",
        "rollouts.tidal.example_canaryplans.yaml",
        "batch.kiln.example_firings.yaml",
    ] {
        round_trip(name);
    }
}

#[test]
fn from_crd_round_trips_versions_quantities_and_embedded_objects() {
    for name in [
        "infra.cobalt.example_machinepools.yaml",
        "compose.strata.example_composites.yaml",
        "storage.nimbus.example_bucketclaims.yaml",
        "quota.ledger.example_budgets.yaml",
        "quota.ledger.example_eventtypes.yaml",
    ] {
        round_trip(name);
    }
}

#[test]
fn from_crd_round_trips_a_crd_over_a_megabyte() {
    round_trip("fleet.foundry.example_workerfleets.yaml");
}

#[test]
fn from_crd_refuses_types_that_would_break_stored_objects_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "events.relay.example_sinks.yaml";
    let dir = project_for(tmp.path(), "events.relay.example");
    let before = snapshot(&dir);
    let out = ks(&dir).args(["create", "api", "--from-crd"]).arg(fixture(name)).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("nothing was written"), "{said}");
    // a root that keeps unknown fields is what kube-derive's kind cannot write: named, with what to do
    assert!(said.contains("the schema root: `x-kubernetes-preserve-unknown-fields` removed (was true)"), "{said}");
    assert!(said.contains("--allow-breaking"), "{said}");
    assert!(snapshot(&dir) == before, "the project changed");
}

#[test]
fn from_crd_checks_its_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_for(tmp.path(), "cache.example.com");
    let before = snapshot(&dir);
    // a group outside the project's domain
    let out = ks(&dir)
        .args(["create", "api", "--from-crd"])
        .arg(fixture("batch.kiln.example_firings.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("kubesmith init --domain kiln.example"), "{said}");
    // a version the CRD does not have, and one that leaves out the storage version
    std::fs::write(
        dir.join("crd.yaml"),
        read(&fixture("infra.cobalt.example_machinepools.yaml")).replace("infra.cobalt.example", "infra.example.com"),
    )
    .unwrap();
    let out = ks(&dir).args(["create", "api", "--from-crd", "crd.yaml", "--version", "v9"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no version `v9`; it has v1, v1alpha1, v1beta1"), "{out:?}");
    let out = ks(&dir).args(["create", "api", "--from-crd", "crd.yaml", "--version", "v1beta1"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("leave out `v1`, the CRD's storage version"), "{out:?}");
    // not a CRD
    let out = ks(&dir).args(["create", "api", "--from-crd", "PROJECT"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no CustomResourceDefinition in it"), "{out:?}");
    std::fs::remove_file(dir.join("crd.yaml")).unwrap();
    assert!(snapshot(&dir) == before, "the project changed");
}

/// kube-derive itself gives the CRD `create api --from-crd` reported: the written types are compiled (the shared
/// schema function turned into code kubesmith does not evaluate, so `make manifests` takes the kind's schema from
/// the compiled fallback, which calls `crd()` and applies the markers there) and the CRD is the one written.
#[test]
fn from_crd_types_give_kube_derive_s_own_crd() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping the compiled from-crd check");
        return;
    }
    for name in ["quota.ledger.example_budgets.yaml", "infra.cobalt.example_machinepools.yaml"] {
        let tmp = tempfile::tempdir().unwrap();
        let source = parse(&read(&fixture(name)));
        let (group, plural) =
            (source["spec"]["group"].as_str().unwrap(), source["spec"]["names"]["plural"].as_str().unwrap());
        let kind = source["spec"]["names"]["kind"].as_str().unwrap();
        let dir = project_for(tmp.path(), group);
        ks(&dir).args(["create", "api", "--from-crd"]).arg(fixture(name)).assert().success();
        std::fs::copy(repo_root().join("tests/e2e/operator.Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        if name.starts_with("quota.") {
            // beside it, a kind named like a type the generated code imports (kube's `EventType`)
            let beside = fixture("quota.ledger.example_eventtypes.yaml");
            ks(&dir).args(["create", "api", "--from-crd"]).arg(beside).assert().success();
            // the project builds without warnings, is rustfmt- and clippy-clean, and its tests pass: the
            // reconcilers' with a mocked API server, and against a real API server (when one is set up) the
            // samples are created through their CRDs and reconciled as the manager
            crate::e2e::build_lint_test(
                &dir,
                12,
                &[
                    "quota_budget::the_sample_is_reconciled_as_the_manager",
                    "quota_event_type::the_sample_is_reconciled_as_the_manager",
                ],
            );
        }
        let crd_file = dir.join(format!("config/crd/bases/{group}_{plural}.yaml"));
        let written = read(&crd_file);
        let mut edited = 0;
        for entry in walk(&dir.join("src/api")) {
            let text = read(&entry);
            let hole =
                text.replacen("schemars::json_schema!({})", "std::hint::black_box(schemars::json_schema!({}))", 1);
            if hole != text {
                std::fs::write(&entry, hole).unwrap();
                edited += 1;
            }
        }
        assert!(edited > 0, "{name}: no shared schema function to turn into code");
        let out = ks(&dir)
            .args(["make", "manifests"])
            .envs(crate::e2e::shared_build_env())
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{name}: {said}");
        assert!(said.contains(&format!("note: compiled {kind} ({plural}.{group})")), "{name}: {said}");
        let compiled = read(&crd_file);
        assert!(
            compiled == written,
            "{name}: kube-derive's CRD differs:\n{}",
            first_difference(&parse(&written), &parse(&compiled), String::new())
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { stack.push(p) } else { out.push(p) }
        }
    }
    out.sort();
    out
}

#[test]
fn init_from_crd_takes_a_folder_of_crds() {
    let tmp = tempfile::tempdir().unwrap();
    let crds = tmp.path().join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    // two CRDs of one domain: each keeps its own group, so the project is multigroup
    for (name, from) in [
        ("telemetry.lumen.example_scrapepools.yaml", None),
        ("rollouts.tidal.example_canaryplans.yaml", Some("tidal.example")),
    ] {
        let text = read(&fixture(name));
        let text = match from {
            Some(domain) => text.replace(domain, "lumen.example"),
            None => text,
        };
        std::fs::write(crds.join(name), text).unwrap();
    }
    std::fs::write(crds.join("notes.txt"), "not YAML, not read").unwrap();
    let dir = tmp.path().join("operator");
    std::fs::create_dir_all(&dir).unwrap();
    // a single-group project cannot hold two groups: refused, nothing written
    let out = ks(&dir).args(["init", "--domain", "lumen.example", "--from-crd", "../crds"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs the multigroup layout"), "{out:?}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "init wrote files");
    let out =
        ks(&dir).args(["init", "--domain", "lumen.example", "--multigroup", "--from-crd", "../crds"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        said.matches("the CRD `kubesmith make manifests` generates from the new types equals").count(),
        2,
        "{said}"
    );
    assert!(!said.contains("next: add an API"), "{said}");
    for (group, plural) in [("telemetry", "scrapepools"), ("rollouts", "canaryplans")] {
        let crd = parse(&read(&dir.join(format!("config/crd/bases/{group}.lumen.example_{plural}.yaml"))));
        assert_eq!(crd["spec"]["names"]["plural"], plural);
    }
    ks(&dir).args(["make", "manifests"]).assert().success();
    // --version picks versions of one CRD only
    let out = ks(&dir).args(["create", "api", "--from-crd", "../crds", "--version", "v1", "--force"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--version picks versions of one CRD, and it holds 2"),
        "{out:?}"
    );
}

/// PROJECT records the CRD each kind was written from, and `alpha generate` replays `create api --from-crd` with
/// it: the replay is the project, file for file (the CRDs themselves, the user's input, aside).
#[test]
fn alpha_generate_replays_kinds_written_from_crds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_for(tmp.path(), "telemetry.lumen.example");
    std::fs::create_dir_all(dir.join("crds")).unwrap();
    let scrape = "telemetry.lumen.example_scrapepools.yaml";
    std::fs::copy(fixture(scrape), dir.join("crds").join(scrape)).unwrap();
    let pools = read(&fixture("infra.cobalt.example_machinepools.yaml"))
        .replace("infra.cobalt.example", "telemetry.lumen.example");
    std::fs::write(dir.join("crds/pools.yaml"), pools).unwrap();
    // a folder and --kind; a file, no reconciler
    ks(&dir).args(["create", "api", "--from-crd", "crds", "--kind", "ScrapePool"]).assert().success();
    ks(&dir).args(["create", "api", "--from-crd", "crds/pools.yaml", "--controller=false"]).assert().success();
    ks(&dir).args(["make", "manifests"]).assert().success();
    let project = parse(&read(&dir.join("PROJECT")));
    assert_eq!(
        project["plugins"]["from-crd.rust.kubesmith.io/v1alpha1"]["resources"],
        serde_json::json!([
            {"crd": format!("crds/{scrape}"), "group": "telemetry.lumen.example", "kind": "ScrapePool"},
            {"crd": "crds/pools.yaml", "group": "telemetry.lumen.example", "kind": "MachinePool"}
        ])
    );
    let out = ks(&dir).args(["alpha", "generate", "--output-dir", "../replay"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{out:?}");
    assert!(
        said.contains(&format!(
            "replay: kubesmith create api --from-crd crds/{scrape} --kind ScrapePool --version v1\n"
        )),
        "{said}"
    );
    assert!(
        said.contains("replay: kubesmith create api --from-crd crds/pools.yaml --kind MachinePool --version v1 --version v1alpha1 --version v1beta1 --controller=false\n"),
        "{said}"
    );
    let without_crds = |d: &Path| {
        let mut s = snapshot(d);
        s.retain(|p, _| !p.starts_with("crds") && !p.starts_with("Cargo.lock"));
        s
    };
    let (original, replayed) = (without_crds(&dir), without_crds(&tmp.path().join("replay")));
    assert_eq!(original.keys().collect::<Vec<_>>(), replayed.keys().collect::<Vec<_>>());
    for (path, bytes) in &original {
        assert!(bytes == &replayed[path], "{} differs in the replay", path.display());
    }
    // a recorded CRD that is gone stops the replay, which leaves nothing
    std::fs::remove_file(dir.join("crds/pools.yaml")).unwrap();
    let out = ks(&dir).args(["alpha", "generate", "--output-dir", "../replay2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("PROJECT records that MachinePool was written from the CRD crds/pools.yaml"),
        "{out:?}"
    );
    assert!(!tmp.path().join("replay2").exists());
}

/// `apiVersion`, `kind`, `metadata.name` and `spec`: what makes two CRD files the same as data.
fn identity(crd: &Value) -> Value {
    serde_json::json!({
        "apiVersion": crd["apiVersion"], "kind": crd["kind"],
        "metadata": {"name": crd["metadata"]["name"]}, "spec": crd["spec"],
    })
}

#[test]
fn from_crd_gives_back_what_the_api_server_fills_in_as_the_file_spells_it() {
    // listKind (the default and another), `preserveUnknownFields: false`, `conversion: {strategy: None}`, a status
    // property without the status subresource, and `subresources: {}`: each kept exactly, by `+kubesmith:crd`; the
    // root's title or none, spec and status defaults, untyped items, oneOf and not of required fields (each its own
    // file)
    for (name, marker) in [
        (
            "identity.ledger.example_entries.yaml",
            "// +kubesmith:crd:listKind=EntryList,preserveUnknownFields=false,conversion=None,statusSubresource=false",
        ),
        ("identity.ledger.example_books.yaml", "// +kubesmith:crd:listKind=BookCollection,emptySubresources=true"),
        // no title, and defaults on the spec and status objects: root markers; oneOf alternatives: an extend
        ("identity.ledger.example_journals.yaml", "// +kubesmith:root:noTitle"),
        ("identity.ledger.example_journals.yaml", "// +kubesmith:root:statusDefault={\"observedGeneration\":-1}"),
        ("identity.ledger.example_journals.yaml", "// +kubesmith:root:specDefault={\"mode\":\"append\"}"),
        (
            "identity.ledger.example_journals.yaml",
            "// +kubesmith:schema:oneOf=[{\"properties\":{\"size\":{}},\"required\":[\"size\"]}",
        ),
        ("identity.ledger.example_journals.yaml", "// +kubesmith:schema:not={\"required\":[\"any\",\"all\"]}"),
        ("identity.ledger.example_audits.yaml", "// +kubesmith:root:title=\"Ledger audit\""),
        ("identity.ledger.example_audits.yaml", "// +kubebuilder:subresource:status"),
        // the versions' order, a conversion webhook in the file, an unsorted `required`
        ("identity.ledger.example_accounts.yaml", "versionOrder=v1alpha1;v1"),
        (
            "identity.ledger.example_accounts.yaml",
            "conversion=Webhook,conversionService=\"ledger-system/ledger-webhook\",conversionPath=\"/convert\",\
             conversionPort=8443,conversionReviewVersions=v1;v1beta1",
        ),
        ("identity.ledger.example_accounts.yaml", "// +kubesmith:requiredOrder=number;protocol;name"),
        // a free-form spec that requires keys it does not declare
        ("identity.ledger.example_notes.yaml", "// +kubesmith:schema:required=title;body"),
        // a nullable spec that is not required
        ("identity.ledger.example_vaults.yaml", "// +kubesmith:root:nullable=spec"),
        // properties of the root beside spec
        ("events.relay.example_hooks.yaml", "// +kubesmith:root:properties={\"secretRef\":{"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let source = parse(&read(&fixture(name)));
        let group = source["spec"]["group"].as_str().unwrap();
        let dir = project_for(tmp.path(), group);
        ks(&dir).args(["create", "api", "--from-crd"]).arg(fixture(name)).assert().success();
        let types = walk(&dir.join("src/api")).into_iter().map(|p| read(&p)).collect::<Vec<_>>().join("\n");
        assert!(types.contains(marker), "{name}: no `{marker}` in the types:\n{types}");
        // the header names the file relative to the project (or by its name alone), never by an absolute path
        let header = types.lines().find(|l| l.contains("written from ")).unwrap_or_default();
        let shown = header.split("written from ").nth(1).and_then(|r| r.split(" by `kubesmith").next()).unwrap();
        assert!(!Path::new(shown).is_absolute(), "{name}: header: {header}");
        let same = |p: PathBuf| p.canonicalize().ok() == fixture(name).canonicalize().ok();
        assert!(shown == name || same(dir.join(shown)), "{name}: header: {header}");
        ks(&dir).args(["make", "manifests"]).assert().success();
        let plural = source["spec"]["names"]["plural"].as_str().unwrap();
        let written = parse(&read(&dir.join(format!("config/crd/bases/{group}_{plural}.yaml"))));
        let (want, got) = (identity(&source), identity(&written));
        assert!(want == got, "{name}: not identical:\n{}", first_difference(&want, &got, String::new()));
    }
}

#[test]
fn the_crd_marker_refuses_what_apiextensions_v1_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_for(tmp.path(), "cache.example.com");
    ks(&dir).args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]).assert().success();
    let types = dir.join("src/api/v1/memcached.rs");
    let text = read(&types);
    let spec = "pub struct MemcachedSpec";
    for (marker, says) in [
        ("// +kubesmith:crd:preserveUnknownFields=true", "preserveUnknownFields can only be false"),
        ("// +kubesmith:crd:listKind=memcachedList", "listKind `memcachedList` is not a kind name"),
        ("// +kubesmith:crd:statusSubresource=true", "statusSubresource can only be false"),
        (
            "// +kubesmith:crd:conversion=Webhook,conversionReviewVersions=v1",
            "needs conversionService=<namespace>/<name>",
        ),
        ("// +kubesmith:crd:conversionPath=\"/convert\"", "`conversionPath` needs `conversion=Webhook`"),
        (
            "// +kubesmith:crd:conversion=Webhook,conversionService=webhook,conversionReviewVersions=v1",
            "conversionService `webhook` is not `<namespace>/<name>`",
        ),
        ("// +kubesmith:crd:versionOrder=v2", "the kind has no version `v2` (it has v1)"),
        ("// +kubesmith:requiredOrder=nope", "names [nope] but the object requires"),
        ("// +kubesmith:schema:required=a;a", "`a` is required already"),
        ("// +kubesmith:root:statusDefault=[1]", "the default of `status` must be a JSON object"),
        ("// +kubesmith:root:specDefault={oops", "is not JSON"),
    ] {
        let at = text.find(spec).unwrap();
        let start = text[..at].rfind("#[derive(").unwrap();
        std::fs::write(&types, format!("{}{marker}\n{}", &text[..start], &text[start..])).unwrap();
        let out = ks(&dir).args(["make", "manifests"]).assert().failure();
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains(says) && err.contains("memcached.rs:"), "{marker}: {err}");
    }
}

#[test]
fn init_from_crd_takes_the_domain_the_groups_share() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ledger");
    std::fs::create_dir(&dir).unwrap();
    let out =
        ks(&dir).args(["init", "--from-crd"]).arg(fixture("identity.ledger.example_entries.yaml")).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("domain: ledger.example, the one the CRDs' groups share"), "{stdout}");
    let project = read(&dir.join("PROJECT"));
    assert!(project.contains("domain: ledger.example"), "{project}");
    // groups that share no domain: refused, nothing written
    let crds = tmp.path().join("crds");
    std::fs::create_dir(&crds).unwrap();
    let text = read(&fixture("identity.ledger.example_entries.yaml"));
    std::fs::write(crds.join("a.yaml"), &text).unwrap();
    std::fs::write(crds.join("b.yaml"), text.replace("identity.ledger.example", "identity.books.test")).unwrap();
    let empty = tmp.path().join("mixed");
    std::fs::create_dir(&empty).unwrap();
    let out = ks(&empty).args(["init", "--from-crd"]).arg(&crds).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("share no domain; pass --domain"), "{err}");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    // without --from-crd, --domain is required
    ks(&empty).args(["init"]).assert().code(2);
}
