//! The mirror's build script: the crate's own, run as it runs in the crate. Cargo runs a build script in its
//! package's folder, and the mirror's folder is elsewhere, so a script reading `../../proto/x.proto` or
//! `$CARGO_MANIFEST_DIR/schema.json` would fail there. The mirror's script is a copy of the crate's with its `main`
//! renamed and a new `main` that runs the copy again as a child process in the crate's folder (with
//! `CARGO_MANIFEST_DIR` pointing there) and hands its output to cargo, relative `rerun-if-changed` paths made
//! absolute so the harness stays fresh.

use std::path::Path;

use super::reexport::offset;

/// The crate's `main`, renamed in the copy.
const RENAMED: &str = "__kubesmith_crate_build_main";
/// Set in the child run.
const CHILD: &str = "KUBESMITH_CRATE_BUILD_SCRIPT";

/// The mirror's build script for the crate's `build_rs` text, whose package folder is `manifest_dir`. `None` when
/// the text does not parse or has no `fn main` of its own (the crate's script is then used as it is).
pub fn wrapper(build_rs: &str, manifest_dir: &Path) -> Option<String> {
    let file = syn::parse_file(build_rs).ok()?;
    let main = file.items.iter().find_map(|i| match i {
        syn::Item::Fn(f) if f.sig.ident == "main" => Some(f.sig.ident.span().start()),
        _ => None,
    })?;
    let at = offset(build_rs, main.line, main.column)?;
    let mut text = String::with_capacity(build_rs.len() + 2048);
    text.push_str(&build_rs[..at]);
    text.push_str(RENAMED);
    text.push_str(&build_rs[at + "main".len()..]);
    let dir = manifest_dir.display().to_string();
    text.push_str(&format!(
        r#"
// Added by kubesmith's compiled fallback: the build script above runs as a child process in the crate's own folder,
// as it does in the crate; the paths it asks cargo to watch are made absolute.
fn main() -> ::std::process::ExitCode {{
    if ::std::env::var_os({CHILD:?}).is_some() {{
        return ::std::process::Termination::report({RENAMED}());
    }}
    const DIR: &str = {dir:?};
    let exe = ::std::env::current_exe().expect("a build script knows its own path");
    let out = ::std::process::Command::new(exe)
        .current_dir(DIR)
        .env("CARGO_MANIFEST_DIR", DIR)
        .env({CHILD:?}, "1")
        .stderr(::std::process::Stdio::inherit())
        .output()
        .expect("the crate's build script runs");
    for line in ::std::string::String::from_utf8_lossy(&out.stdout).lines() {{
        let watched = ["cargo::rerun-if-changed=", "cargo:rerun-if-changed="]
            .into_iter()
            .find_map(|key| line.strip_prefix(key).map(|path| (key, ::std::path::Path::new(path))));
        match watched {{
            Some((key, path)) if path.is_relative() => {{
                println!("{{key}}{{}}", ::std::path::Path::new(DIR).join(path).display())
            }}
            _ => println!("{{line}}"),
        }}
    }}
    if out.status.success() {{ ::std::process::ExitCode::SUCCESS }} else {{ ::std::process::ExitCode::FAILURE }}
}}
"#
    ));
    Some(text)
}

/// Whether the script declares modules in files of their own (`mod gen;`), which resolve next to the script.
pub fn has_file_modules(build_rs: &str) -> bool {
    syn::parse_file(build_rs)
        .map(|f| f.items.iter().any(|i| matches!(i, syn::Item::Mod(m) if m.content.is_none())))
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_renames_main_and_runs_it_in_the_crates_folder() {
        let script = "//! Generates code.\n#![allow(unused)]\nuse std::env;\n\nfn main() -> Result<(), String> {\n    \
                      let _ = main_helper();\n    Ok(())\n}\nfn main_helper() {}\n";
        let out = wrapper(script, Path::new("/w/crates/types")).unwrap();
        assert!(out.starts_with("//! Generates code.\n#![allow(unused)]\n"), "{out}");
        assert!(out.contains("fn __kubesmith_crate_build_main() -> Result<(), String> {"), "{out}");
        assert!(out.contains("main_helper();") && out.contains("fn main_helper() {}"), "{out}");
        assert!(out.contains("const DIR: &str = \"/w/crates/types\";"), "{out}");
        syn::parse_file(&out).expect("the wrapper parses");
        assert!(wrapper("fn build() {}", Path::new("/w")).is_none());
        assert!(wrapper("fn main( {", Path::new("/w")).is_none());
        assert!(has_file_modules("mod gen;\nfn main() {}") && !has_file_modules("mod gen {}\nfn main() {}"));
    }
}
