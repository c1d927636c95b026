//! A crate's module tree walked from its root: where the file of a `mod name;` is, by rustc's rules (`name.rs`,
//! `name/mod.rs`, `#[path]`), the folder its own child modules are looked for in, and the walk itself
//! ([`walk`]): the one place a `mod` declaration becomes a module. Both module trees (the CRD index's and
//! [`super::modules::Crate`]'s) are [`Builder`]s it drives; each reads files and keeps items its own way.

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

/// A `mod` declaration a [`Builder`] hands back to be walked.
pub(crate) struct ModDecl<E, D> {
    /// The module's name (raw identifiers without `r#`).
    pub(crate) name: String,
    /// `#[path = ".."]`.
    pub(crate) path: Option<String>,
    /// `mod x { .. }`'s entries; `None` for `mod x;`.
    pub(crate) content: Option<Vec<E>>,
    /// Where the name is written, for a missing file's error (none when read from a skeleton).
    pub(crate) span: Option<proc_macro2::Span>,
    /// What the builder keeps of the declaration for the module (visibility, attributes, other names).
    pub(crate) decl: D,
}

/// A file a [`Builder`] read: how it names the file, and the file's entries.
pub(crate) type Opened<B> = (<B as Builder>::File, Vec<<B as Builder>::Entry>);

/// A module tree [`walk`] builds: how files are read and parsed, and what is kept of their items.
pub(crate) trait Builder {
    /// How the builder names a file (its path, an index into its files).
    type File;
    /// One top-level item of a file or of an inline module, as the builder reads it.
    type Entry;
    /// What the builder keeps of a `mod` declaration ([`ModDecl::decl`]).
    type Decl;
    /// What ends the walk.
    type Error;

    /// Reads and parses the file at `path`: how the builder names it, and its entries.
    fn read(&mut self, path: &Path) -> Result<Opened<Self>, Self::Error>;
    /// Whether there is a file at `path`.
    fn exists(&mut self, path: &Path) -> bool;
    /// Adds the module `mod_path`, written in `file`, as a child of `parent` (named by the path's last segment);
    /// returns its id.
    fn module(&mut self, file: &Self::File, mod_path: &[String], parent: Option<usize>) -> usize;
    /// A module's entries as its items are read (macros that generate items expanded); as they are by default.
    fn expand(&mut self, entries: Vec<Self::Entry>) -> Vec<Self::Entry> {
        entries
    }
    /// Takes `entry` into `module`, or hands it back when it is a `mod` to walk (never a `#[cfg(test)]` one).
    fn entry(&mut self, module: usize, entry: Self::Entry) -> Option<ModDecl<Self::Entry, Self::Decl>>;
    /// The module `child` was declared by `decl` (after its own items were walked).
    fn declared(&mut self, child: usize, decl: Self::Decl);
    /// `mod name;` in `file` has no file (`looked`: the paths tried): recorded, or an error that ends the walk.
    fn missing(
        &mut self,
        file: &Self::File,
        name: &str,
        span: Option<proc_macro2::Span>,
        looked: String,
    ) -> Result<(), Self::Error>;
}

/// Walks the module tree rooted at the file `root`, whose module path is `mod_path` (`["crate"]`, or a
/// dependency's name): every module in declaration order, depth first; returns the root module's id.
pub(crate) fn walk<B: Builder>(b: &mut B, root: &Path, mod_path: Vec<String>) -> Result<usize, B::Error> {
    walk_file(b, root, mod_path, None, ModuleDirs::root(root))
}

fn walk_file<B: Builder>(
    b: &mut B,
    path: &Path,
    mod_path: Vec<String>,
    parent: Option<usize>,
    dirs: ModuleDirs,
) -> Result<usize, B::Error> {
    let (file, entries) = b.read(path)?;
    walk_entries(b, &file, entries, mod_path, parent, &dirs)
}

fn walk_entries<B: Builder>(
    b: &mut B,
    file: &B::File,
    entries: Vec<B::Entry>,
    mod_path: Vec<String>,
    parent: Option<usize>,
    dirs: &ModuleDirs,
) -> Result<usize, B::Error> {
    let id = b.module(file, &mod_path, parent);
    let entries = b.expand(entries);
    for entry in entries {
        let Some(m) = b.entry(id, entry) else { continue };
        let mut child_path = mod_path.clone();
        child_path.push(m.name.clone());
        let child = match m.content {
            Some(inner) => {
                let inline = dirs.inline_child(&m.name, m.path.as_deref());
                walk_entries(b, file, inner, child_path, Some(id), &inline)?
            }
            None => {
                let candidates = dirs.candidates(&m.name, m.path.as_deref());
                let Some(found) = candidates.iter().find(|p| b.exists(p)) else {
                    b.missing(file, &m.name, m.span, ModuleDirs::looked(&candidates))?;
                    continue;
                };
                let child_dirs = dirs.file_child(&m.name, m.path.is_some(), found);
                walk_file(b, found, child_path, Some(id), child_dirs)?
            }
        };
        b.declared(child, m.decl);
    }
    Ok(id)
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

    /// A builder over in-memory files whose entries are words: `mod:name`, `mod:name=path` (a `#[path]`),
    /// `{`..`}` around an inline module's words, anything else an item. It records what the walk asks of it.
    struct Words {
        files: std::collections::BTreeMap<PathBuf, &'static str>,
        /// Per module: its path and file.
        modules: Vec<(String, PathBuf)>,
        /// `module path: item`, in the order the walk hands them over.
        items: Vec<String>,
        missing: Vec<String>,
        declared: Vec<(usize, String)>,
    }

    enum Word {
        Item(String),
        Mod(String, Option<String>, Option<Vec<Word>>),
    }

    fn words(tokens: &mut std::iter::Peekable<std::str::SplitWhitespace<'_>>) -> Vec<Word> {
        let mut out = Vec::new();
        while let Some(t) = tokens.next() {
            if t == "}" {
                break;
            }
            match t.strip_prefix("mod:") {
                Some(decl) => {
                    let (name, path) = match decl.split_once('=') {
                        Some((n, p)) => (n.to_string(), Some(p.to_string())),
                        None => (decl.to_string(), None),
                    };
                    let inline = if tokens.peek() == Some(&"{") {
                        tokens.next();
                        Some(words(tokens))
                    } else {
                        None
                    };
                    out.push(Word::Mod(name, path, inline));
                }
                None => out.push(Word::Item(t.to_string())),
            }
        }
        out
    }

    impl Builder for Words {
        type File = PathBuf;
        type Entry = Word;
        type Decl = String;
        type Error = String;

        fn read(&mut self, path: &Path) -> Result<Opened<Self>, String> {
            let text = self.files.get(path).ok_or(format!("cannot read {}", path.display()))?;
            Ok((path.to_path_buf(), words(&mut text.split_whitespace().peekable())))
        }

        fn exists(&mut self, path: &Path) -> bool {
            self.files.contains_key(path)
        }

        fn module(&mut self, file: &PathBuf, mod_path: &[String], _parent: Option<usize>) -> usize {
            self.modules.push((mod_path.join("::"), file.clone()));
            self.modules.len() - 1
        }

        fn entry(&mut self, module: usize, entry: Word) -> Option<ModDecl<Word, String>> {
            match entry {
                Word::Item(w) => {
                    let at = self.modules[module].0.clone();
                    self.items.push(format!("{at}: {w}"));
                    None
                }
                Word::Mod(name, path, content) => {
                    Some(ModDecl { decl: format!("decl of {name}"), name, path, content, span: None })
                }
            }
        }

        fn declared(&mut self, child: usize, decl: String) {
            self.declared.push((child, decl));
        }

        fn missing(
            &mut self,
            _: &PathBuf,
            name: &str,
            _: Option<proc_macro2::Span>,
            looked: String,
        ) -> Result<(), String> {
            self.missing.push(format!("{name}: {looked}"));
            Ok(())
        }
    }

    #[test]
    fn the_walk_visits_modules_depth_first_with_their_items_in_source_order() {
        let files = [
            ("src/lib.rs", "first mod:api mod:gone mod:inline { mod:deep=deep_file.rs inner } last"),
            ("src/api.rs", "mod:v1 api_item"),
            ("src/api/v1/mod.rs", "v1_item"),
            ("src/inline/deep_file.rs", "deep_item"),
        ];
        let mut b = Words {
            files: files.iter().map(|(p, t)| (PathBuf::from(p), *t)).collect(),
            modules: Vec::new(),
            items: Vec::new(),
            missing: Vec::new(),
            declared: Vec::new(),
        };
        assert_eq!(walk(&mut b, Path::new("src/lib.rs"), vec!["crate".into()]), Ok(0));
        let modules: Vec<(&str, &str)> = b.modules.iter().map(|(m, f)| (m.as_str(), f.to_str().unwrap())).collect();
        assert_eq!(
            modules,
            [
                ("crate", "src/lib.rs"),
                ("crate::api", "src/api.rs"),
                ("crate::api::v1", "src/api/v1/mod.rs"),
                ("crate::inline", "src/lib.rs"),
                ("crate::inline::deep", "src/inline/deep_file.rs"),
            ]
        );
        assert_eq!(
            b.items,
            [
                "crate: first",
                "crate::api::v1: v1_item",
                "crate::api: api_item",
                "crate::inline::deep: deep_item",
                "crate::inline: inner",
                "crate: last",
            ],
            "a child module's items come where its `mod` is written"
        );
        assert_eq!(b.missing, ["gone: src/gone.rs, src/gone/mod.rs"]);
        let declared: Vec<usize> = b.declared.iter().map(|(c, _)| *c).collect();
        assert_eq!(declared, [2, 1, 4, 3], "each module is declared once its own items are walked");
        assert_eq!(walk(&mut b, Path::new("src/none.rs"), vec!["crate".into()]), Err("cannot read src/none.rs".into()));
    }
}
