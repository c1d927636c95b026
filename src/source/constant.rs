//! What the readers of constant code share: the one list of calls that give back the value they are called on (or
//! with) in another type — `.into()`, `.to_owned()`, `String::from(..)`, `Cow::Borrowed(..)` and the like — so a
//! const written through any of them reads the same to the CRD generator (defaults, custom schemas, patterns,
//! `merge_crds` storage versions, `#[kube]` values) and to RBAC inference (`Resource` impls), all but the `#[kube]`
//! values read by the one interpreter ([`super::eval`]); and the one lookup of where the value a path names is
//! written ([`initializer`]: a const, an immutable static, an associated const found as Rust finds it).

use syn::Expr;

use super::impls::{self, Impls};
use super::resolve::Res;

/// Methods without arguments that give back their receiver's value, whatever it is.
const KEEPS_VALUE: &[&str] =
    &["into", "to_owned", "clone", "cloned", "into_owned", "as_ref", "borrow", "deref", "to_value", "as_value"];

/// Methods without arguments that give back their receiver's value when it is a string (`to_string` of a number
/// is its text, `as_str` of a `serde_json::Value` an `Option`).
const KEEPS_STRING: &[&str] = &["to_string", "as_str"];

/// One-argument calls that give back their argument's value, whatever it is, by the last two segments of their path.
const KEEPS_ARGUMENT: &[[&str; 2]] = &[
    ["String", "from"],
    ["From", "from"],
    ["Into", "into"],
    ["str", "to_string"],
    ["Cow", "Borrowed"],
    ["Cow", "Owned"],
];

/// The last segments of the paths of one-argument calls that give back their argument's value when the result is a
/// string (`Cow::from`, `String::from`, `Borrowed` imported alone, ...).
const KEEPS_STRING_ARGUMENT: &[&str] = &["from", "Borrowed", "Owned", "into", "to_string"];

/// Whether a one-argument call of `ty::last` (the last two segments of its path) gives back its argument's value,
/// whatever it is.
pub(crate) fn keeps_argument(ty: &str, last: &str) -> bool {
    KEEPS_ARGUMENT.iter().any(|[t, l]| *t == ty && *l == last)
}

/// Whether `.method()` gives back its receiver's value whatever it is.
pub(crate) fn keeps_value(method: &str) -> bool {
    KEEPS_VALUE.contains(&method)
}

/// Whether `.method()` gives back its receiver's value when that is a string.
pub(crate) fn keeps_string(method: &str) -> bool {
    keeps_value(method) || KEEPS_STRING.contains(&method)
}

/// The expression whose value `e` gives back through one call that keeps any value (a method of [`keeps_value`],
/// `String::from(x)`, `Cow::Borrowed(x)`, ...); `None` when `e` is no such call.
pub(crate) fn converted_value(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::MethodCall(m) if m.args.is_empty() => keeps_value(&m.method.to_string()).then_some(&*m.receiver),
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else { return None };
            let segs: Vec<String> = f.path.segments.iter().rev().take(2).map(|s| s.ident.to_string()).collect();
            let [last, ty] = segs.as_slice() else { return None };
            keeps_argument(ty, last).then_some(&c.args[0])
        }
        _ => None,
    }
}

/// [`converted_value`] where the result is a string, which more calls keep: a method of [`keeps_string`], and any
/// one-argument `from`, `into`, `to_string`, `Borrowed` or `Owned` (its type is a string's whatever its path).
pub(crate) fn converted_string(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::MethodCall(m) if m.args.is_empty() => keeps_string(&m.method.to_string()).then_some(&*m.receiver),
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else { return None };
            let last = f.path.segments.last()?.ident.to_string();
            KEEPS_STRING_ARGUMENT.contains(&last.as_str()).then_some(&c.args[0])
        }
        _ => None,
    }
}

/// What the lookup of a value's initializer ([`initializer`]) needs of a reader besides its names and impl blocks.
pub(crate) trait Constants: Impls {
    /// The initializer of a const or an immutable static of the reader, with the module it is written in; `None` for
    /// any other item (a `static mut` may change at run time, so its initializer is not its value).
    fn constant(&self, item: &Self::Item) -> Option<(Self::Mod, &Expr)>;
}

/// Where the value a path names is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Initializer<'t, M> {
    /// The initializer of the const or static.
    pub expr: &'t Expr,
    /// The module it is written in (where its paths resolve).
    pub at: M,
    /// For an associated const, the self type of its impl block (what `Self` stands for in `expr`).
    pub self_ty: Option<&'t syn::Type>,
}

/// Why a path names no value [`initializer`] finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoInitializer {
    /// The path names an item that is neither a const nor an immutable static.
    NotConstant,
    /// The path names a type's associated item the type's impls do not hold as a const.
    NoAssocConst,
    /// The path names nothing of the sources that holds a value.
    Unknown,
}

/// The initializer of what `named` (a path the reader resolved where it is written, `Self` replaced by
/// [`super::resolve::with_self`]) names: a const or an immutable static, or an associated const (`Type::NAME`)
/// found in Rust's order through the type's impls and aliases ([`impls::assoc_item`]).
pub(crate) fn initializer<T: Constants>(
    t: &T,
    named: Res<T::Mod, T::Item>,
) -> Result<Initializer<'_, T::Mod>, NoInitializer>
where
    T::Item: PartialEq,
{
    match named {
        Res::Item(item) => {
            let (at, expr) = t.constant(&item).ok_or(NoInitializer::NotConstant)?;
            Ok(Initializer { expr, at, self_ty: None })
        }
        Res::Assoc(ty, rest) if rest.len() == 1 => match impls::assoc_item(t, ty, |i| impls::is_const(i, &rest[0])) {
            Some((_, at, imp, syn::ImplItem::Const(c))) => {
                Ok(Initializer { expr: &c.expr, at, self_ty: Some(&imp.self_ty) })
            }
            _ => Err(NoInitializer::NoAssocConst),
        },
        _ => Err(NoInitializer::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inner(text: &str, string: bool) -> Option<String> {
        let e: Expr = syn::parse_str(text).unwrap();
        let inner = if string { converted_string(&e) } else { converted_value(&e) };
        inner.map(|i| quote::quote!(#i).to_string())
    }

    #[test]
    fn value_preserving_calls_give_back_their_receiver_or_argument() {
        for (text, string, want) in [
            ("NAME.to_owned()", false, Some("NAME")),
            ("NAME.to_string()", true, Some("NAME")),
            ("NAME.to_string()", false, None),
            ("NAME.as_str()", false, None),
            ("String::from(NAME)", false, Some("NAME")),
            ("Cow::Borrowed(\"a\")", true, Some("\"a\"")),
            ("str::to_string(NAME)", false, Some("NAME")),
            ("Quantity::from(NAME)", false, None),
            ("Quantity::from(NAME)", true, Some("NAME")),
            ("Owned(x)", true, Some("x")),
            ("NAME.len()", true, None),
            ("NAME.into_with(1)", true, None),
        ] {
            assert_eq!(inner(text, string).as_deref(), want, "{text}");
        }
    }

    /// The one lookup of a value's initializer, over RBAC inference's program (the CRD index answers the same trait:
    /// `crd::storage` reads its `merge_crds` versions through it).
    #[test]
    fn a_path_s_initializer_is_its_const_static_or_associated_const_found_as_rust_finds_it() {
        use std::path::Path;

        use crate::source::{Crate, ModKey, Program, resolve};

        let lib = "pub const NAME: &str = \"const\";\n\
            pub static FIXED: &str = \"static\";\n\
            pub static mut MOVING: &str = \"static mut\";\n\
            lazy_static::lazy_static! { pub static ref LAZY: &'static str = \"lazy static\"; }\n\
            pub fn f() {}\n\
            pub struct Vise;\n\
            pub type Clamp = Vise;\n\
            impl Default for Vise { fn default() -> Self { Vise } }\n\
            impl Clamp { pub const HELD: &'static str = \"alias\"; }\n\
            impl Vise { pub const GRIP: &'static str = \"inherent\"; const OTHER: &'static str = Self::GRIP; }\n\
            pub mod tools { pub type Jaw = super::Clamp; impl Jaw { pub const BITE: &'static str = \"alias of an alias\"; } }\n\
            pub mod other { pub struct Vise; pub type Clamp = Vise; impl Clamp { pub const BITE: &'static str = \"other\"; } }\n";
        let read = |p: &Path| match p.to_str() {
            Some("lib.rs") => Ok(lib.to_string()),
            _ => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        };
        let prog = Program::new(vec![Crate::load("ops", Path::new("lib.rs"), &read).unwrap()]);
        let vise: syn::Type = syn::parse_str("Vise").unwrap();
        let find = |path: &str, self_ty: Option<&syn::Type>| {
            let segs: Vec<String> = path.split("::").map(str::to_string).collect();
            let segs = resolve::with_self(segs, self_ty).ok_or(NoInitializer::Unknown)?;
            let init = initializer(&prog, resolve::resolve(&prog, ModKey::default(), &segs, &[]))?;
            let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = init.expr else {
                let e = init.expr;
                return Ok(quote::quote!(#e).to_string());
            };
            Ok(format!("{}{}", s.value(), init.self_ty.map_or("", |_| " in an impl")))
        };
        for (path, self_ty, want) in [
            ("NAME", None, Ok("const")),
            ("FIXED", None, Ok("static")),
            ("MOVING", None, Err(NoInitializer::NotConstant)),
            ("LAZY", None, Ok("lazy static")),
            ("f", None, Err(NoInitializer::NotConstant)),
            ("Vise::GRIP", None, Ok("inherent in an impl")),
            ("Clamp::GRIP", None, Ok("inherent in an impl")),
            ("Clamp::HELD", None, Ok("alias in an impl")),
            ("Vise::HELD", None, Ok("alias in an impl")),
            ("Vise::BITE", None, Ok("alias of an alias in an impl")),
            ("tools::Jaw::GRIP", None, Ok("inherent in an impl")),
            ("other::Vise::BITE", None, Ok("other in an impl")),
            ("other::Vise::HELD", None, Err(NoInitializer::NoAssocConst)),
            ("Self::GRIP", Some(&vise), Ok("inherent in an impl")),
            ("Vise::OTHER", None, Ok("Self :: GRIP")),
            ("Self::GRIP", None, Err(NoInitializer::Unknown)),
            ("Vise::default", None, Err(NoInitializer::NoAssocConst)),
            ("Vise::MISSING", None, Err(NoInitializer::NoAssocConst)),
            ("Missing", None, Err(NoInitializer::Unknown)),
            ("std::f64::consts::PI", None, Err(NoInitializer::Unknown)),
        ] {
            assert_eq!(find(path, self_ty).as_deref().map_err(|e| *e), want, "{path}");
        }
    }
}
