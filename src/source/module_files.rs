//! Where the file of a `mod name;` is, by rustc's rules (`name.rs`, `name/mod.rs`, `#[path]`), and the folder its
//! own child modules are looked for in: the one rule both module loaders (the CRD index's and
//! [`super::modules::Crate`]'s) follow.

use std::path::{Path, PathBuf};

/// Where a module's children are looked for, and the file it is written in.
#[derive(Debug, Clone)]
pub(crate) struct ModuleDirs {
    /// The folder of the file the module is written in (what a `#[path]` of a `mod` in that file's own module is
    /// relative to).
    pub(crate) file_dir: PathBuf,
    /// The folder its child modules' files are in (`x/` for `x.rs`; the file's folder for `mod.rs`, a crate root
    /// and a file loaded through `#[path]`).
    pub(crate) mod_dir: PathBuf,
    /// Whether the module is inline (`mod x { .. }`): a `#[path]` inside it is relative to `mod_dir`.
    pub(crate) inline: bool,
}

impl ModuleDirs {
    /// The crate root at `root`.
    pub(crate) fn root(root: &Path) -> ModuleDirs {
        let dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
        ModuleDirs { file_dir: dir.clone(), mod_dir: dir, inline: false }
    }

    /// The files `mod name;` (with `#[path = path_attr]`) may be, in the order rustc tries them.
    pub(crate) fn candidates(&self, name: &str, path_attr: Option<&str>) -> Vec<PathBuf> {
        match path_attr {
            Some(p) if self.inline => vec![self.mod_dir.join(p)],
            Some(p) => vec![self.file_dir.join(p)],
            None => vec![self.mod_dir.join(format!("{name}.rs")), self.mod_dir.join(name).join("mod.rs")],
        }
    }

    /// The inline child `mod name { .. }` (with `#[path = path_attr]`).
    pub(crate) fn inline_child(&self, name: &str, path_attr: Option<&str>) -> ModuleDirs {
        ModuleDirs {
            file_dir: self.file_dir.clone(),
            mod_dir: self.mod_dir.join(path_attr.unwrap_or(name)),
            inline: true,
        }
    }

    /// The file child `mod name;` found at `found` (one of [`ModuleDirs::candidates`]): a file named `mod.rs` or
    /// loaded through `#[path]` owns its folder; `x.rs` owns `x/`.
    pub(crate) fn file_child(&self, name: &str, has_path_attr: bool, found: &Path) -> ModuleDirs {
        let file_dir = found.parent().map(Path::to_path_buf).unwrap_or_default();
        let mod_dir = if has_path_attr || found.file_name().is_some_and(|f| f == "mod.rs") {
            file_dir.clone()
        } else {
            self.mod_dir.join(name)
        };
        ModuleDirs { file_dir, mod_dir, inline: false }
    }

    /// What to say when none of [`ModuleDirs::candidates`] exists: the paths looked at.
    pub(crate) fn looked(candidates: &[PathBuf]) -> String {
        candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_folders_follow_rustc() {
        let root = ModuleDirs::root(Path::new("src/lib.rs"));
        assert_eq!(root.candidates("a", None), [PathBuf::from("src/a.rs"), PathBuf::from("src/a/mod.rs")]);
        let a = root.file_child("a", false, Path::new("src/a.rs"));
        assert_eq!(a.candidates("b", None)[0], PathBuf::from("src/a/b.rs"));
        assert_eq!(a.candidates("b", Some("x.rs")), [PathBuf::from("src/x.rs")]);
        let inline = a.inline_child("i", None);
        assert_eq!(inline.candidates("b", Some("x.rs")), [PathBuf::from("src/a/i/x.rs")]);
        let m = root.file_child("m", false, Path::new("src/m/mod.rs"));
        assert_eq!(m.candidates("c", None)[0], PathBuf::from("src/m/c.rs"));
        let p = root.file_child("p", true, Path::new("src/other/p_impl.rs"));
        assert_eq!(p.candidates("d", None)[0], PathBuf::from("src/other/d.rs"));
    }
}
