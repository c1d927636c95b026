//! What the readers' constant evaluators share: the one list of calls that give back the value they are called on
//! (or with) in another type — `.into()`, `.to_owned()`, `String::from(..)`, `Cow::Borrowed(..)` and the like — so a
//! const written through any of them reads the same to the CRD generator (defaults, custom schemas, patterns,
//! `merge_crds` arguments, `#[kube]` values) and to RBAC inference (`Resource` impls).

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
}
