//! What the readers' constant evaluators share: the one list of calls that give back the value they are called on
//! (or with) in another type — `.into()`, `.to_owned()`, `String::from(..)`, `Cow::Borrowed(..)` and the like — so a
//! const written through any of them reads the same to the CRD generator (defaults, custom schemas, patterns,
//! `merge_crds` arguments, `#[kube]` values) and to RBAC inference (`Resource` impls); and the evaluator of
//! string constants ([`string`]) that the readers of fn bodies (`merge_crds` storage versions over the CRD index of
//! every target, RBAC's `Resource` impls over [`super::Program`]) read through, each with its own lookup of names
//! ([`StringReader`]); the CRD index's schema readers use `crd::eval`.

use syn::Expr;

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
            KEEPS_ARGUMENT.iter().any(|[t, l]| t == ty && l == last).then_some(&c.args[0])
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

/// What a reader gives the one string evaluator ([`string`]): how a path written where it evaluates is looked up,
/// and how it reads the expressions the shared rules leave to it. The CRD generator's `merge_crds` storage versions
/// (over the CRD index) and RBAC inference's `Resource` impls (over [`super::Program`]) each implement it.
pub(crate) trait StringReader {
    /// The string a path written here holds (a `let`, a const, a static, an associated const), or why it cannot be
    /// read: the reader resolves the path and evaluates what it names with [`string`] where that is written,
    /// bounding how deep it follows names.
    fn path(&self, p: &syn::Path) -> Result<String, String>;

    /// The string of an expression the shared rules do not read (a call, a field, a block, a macro), or why it
    /// cannot be read.
    fn other(&self, e: &Expr) -> Result<String, String>;
}

/// The string `e` evaluates to without running it: a string literal, through `&`, `*`, parentheses and the calls
/// that keep a string's value ([`converted_string`]); a path (without a qualified self) goes to the reader's
/// [`StringReader::path`], anything else to its [`StringReader::other`].
pub(crate) fn string(reader: &impl StringReader, mut e: &Expr) -> Result<String, String> {
    loop {
        if let Some(inner) = converted_string(e) {
            e = inner;
            continue;
        }
        e = match e {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => return Ok(s.value()),
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
            Expr::Path(p) if p.qself.is_none() => return reader.path(&p.path),
            _ => return reader.other(e),
        };
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

    /// A reader whose names are a table of initializers, each read where it is (no depth bound needed: no cycles).
    struct Table(&'static [(&'static str, &'static str)]);

    impl StringReader for Table {
        fn path(&self, p: &syn::Path) -> Result<String, String> {
            let name = quote::quote!(#p).to_string();
            let (_, init) = self.0.iter().find(|(n, _)| *n == name).ok_or(format!("no const `{name}`"))?;
            string(self, &syn::parse_str(init).unwrap())
        }

        fn other(&self, e: &Expr) -> Result<String, String> {
            Err(format!("`{}` is the reader's", quote::quote!(#e)))
        }
    }

    #[test]
    fn the_string_evaluator_reads_literals_and_wrappers_and_hands_names_and_the_rest_to_its_reader() {
        let table = Table(&[("NAME", "\"a\""), ("ALIAS", "&*NAME"), ("OWNED", "String::from(ALIAS).into()")]);
        for (text, want) in [
            ("\"x\"", Ok("x")),
            ("(&*\"x\").to_string()", Ok("x")),
            ("NAME", Ok("a")),
            ("Cow::Borrowed(OWNED).as_str()", Ok("a")),
            ("MISSING.to_owned()", Err("no const `MISSING`")),
            ("format!(\"{NAME}\")", Err("`format ! (\"{NAME}\")` is the reader's")),
            ("1", Err("`1` is the reader's")),
            ("<T as X>::NAME", Err("`< T as X > :: NAME` is the reader's")),
        ] {
            let got = string(&table, &syn::parse_str(text).unwrap());
            assert_eq!(got.as_deref().map_err(String::as_str), want, "{text}");
        }
    }
}
