//! Reverse resolution: the shortest path by which an item can be named from its crate's root, or from another
//! crate, through `pub mod`s and re-exports (`pub use x::Foo`, `pub use x::*`) — [`super::resolve`]'s question
//! turned round, each re-export read by its rules. Readers describe their modules' visibilities through [`Exposes`].

use super::resolve::{self, Scopes};
use super::syntax::{UseEntry, Vis};

/// How many re-exports deep a name is followed. Lower than [`resolve`]'s own limit: each step tries every
/// re-export of a module, so the work grows with the power of the depth.
const MAX_DEPTH: usize = 8;

/// A reader's module tree as reverse resolution walks it, beyond what [`Scopes`] gives.
pub(crate) trait Exposes: Scopes {
    /// The path of `m` from its crate's root (`["crate", "api", "v1"]`).
    fn module_path(&self, m: Self::Mod) -> Vec<String>;
    /// The child modules of `m` with the visibility of their `mod` declarations, in name order.
    fn children(&self, m: Self::Mod) -> Vec<(Self::Mod, Vis)>;
    /// Every `use` of `m`, each with its visibility.
    fn uses(&self, m: Self::Mod) -> &[UseEntry];
}

/// The shortest path (`["crate", "api", "v1", "Foo"]`) by which `name` — an item of module `home` with visibility
/// `vis` — can be named from the crate root `root` (`external == false`) or from another crate (`external == true`,
/// the first segment then stands for the crate's name), through `pub mod`s and re-exports. `None` when it cannot.
pub(crate) fn nameable_path<S: Exposes>(
    s: &S,
    root: S::Mod,
    home: S::Mod,
    name: &str,
    vis: Vis,
    external: bool,
) -> Option<Vec<String>> {
    // Modules reachable from the root, breadth first (so shorter paths come first).
    let mut queue = std::collections::VecDeque::from([root]);
    let mut best: Option<Vec<String>> = None;
    while let Some(m) = queue.pop_front() {
        let path = s.module_path(m);
        if best.as_ref().is_some_and(|b| b.len() <= path.len()) {
            break;
        }
        if let Some(exposed) = exposed_name(s, root, m, home, name, vis, external, 0) {
            let mut path = path;
            path.push(exposed);
            best = Some(path);
            continue;
        }
        for (child, child_vis) in s.children(m) {
            let visible = if external { child_vis == Vis::Public } else { m == root || child_vis >= Vis::Crate };
            if visible {
                queue.push_back(child);
            }
        }
    }
    best
}

/// The name under which `name` (of `home`, visibility `vis`) can be named as `<module m>::<it>` by whoever can see
/// `m`: itself where it is defined, or what a re-export calls it (`pub use x::Foo as Bar`, `pub use x::*`).
#[allow(clippy::too_many_arguments)]
fn exposed_name<S: Exposes>(
    s: &S,
    root: S::Mod,
    m: S::Mod,
    home: S::Mod,
    name: &str,
    vis: Vis,
    external: bool,
    depth: usize,
) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    let enough = |v: Vis| if external { v == Vis::Public } else { v >= Vis::Crate || m == root };
    if m == home {
        return enough(vis).then(|| name.to_string());
    }
    // What a re-export points at must itself be visible to `m`: within the crate, crate-visible is enough.
    s.uses(m).iter().filter(|u| enough(u.vis)).find_map(|u| {
        if u.glob {
            let t = resolve::module_of_path(s, m, &u.path).filter(|t| *t != m)?;
            return exposed_name(s, root, t, home, name, vis, false, depth + 1);
        }
        let (last, prefix) = u.path.split_last()?;
        let t = resolve::module_of_path(s, m, prefix).filter(|t| *t != m)?;
        (exposed_name(s, root, t, home, name, vis, false, depth + 1).as_deref() == Some(last.as_str()))
            .then(|| u.alias.clone())
    })
}
