//! Collections and their adaptors as far as the walk needs them: the element a closure given to `map`,
//! `filter`, `for_each`, .. takes, and what the adaptor gives back, so `objs.iter().map(|o| owner.delete(o))`
//! reads the closure with the objects' kind. kube's reflector `Store<K>` gives `Vec<Arc<K>>` (`state`) and
//! `Option<Arc<K>>` (`get`).

use crate::rbac::infer::types::Ty;

/// Collections whose element the walk follows.
fn is_collection(name: &str) -> bool {
    matches!(name, "Vec" | "ObjectList" | "VecDeque" | "HashSet" | "BTreeSet" | "Option")
}

/// The element of a collection type.
fn element(recv: &Ty) -> Option<&Ty> {
    match recv.pointee() {
        Ty::Ext(n, a) if is_collection(n) => a.first(),
        _ => None,
    }
}

/// The type of the input of a closure passed to method `name` of `recv`, when `recv` is a collection (or a
/// `Store<K>`'s elements) and `name` an adaptor that calls its closure with one element.
pub(super) fn closure_input(recv: &Ty, name: &str) -> Option<Ty> {
    let takes_element = matches!(
        name,
        "map"
            | "filter"
            | "filter_map"
            | "flat_map"
            | "for_each"
            | "inspect"
            | "any"
            | "all"
            | "find"
            | "find_map"
            | "position"
            | "take_while"
            | "skip_while"
            | "and_then"
            | "is_some_and"
            | "is_none_or"
            | "map_or"
            | "map_or_else"
    );
    if !takes_element {
        return None;
    }
    element(recv).filter(|e| !e.is_unknown()).cloned()
}

/// What adaptor `name` of a collection `recv` gives back (`body`: its closure's type, for `map`): the same
/// collection for those that keep the elements (`filter`, `chain`, `collect`, ..), a collection of the closure's
/// type for `map`; `None` when `recv` is no collection this follows.
pub(super) fn adaptor_result(recv: &Ty, name: &str, body: Ty) -> Option<Ty> {
    if let Ty::Ext(n, a) = recv.pointee()
        && n == "Store"
    {
        let arc = Ty::ext("Arc", vec![a.first().cloned().unwrap_or(Ty::Unknown)]);
        return match name {
            "state" => Some(Ty::ext("Vec", vec![arc])),
            "get" => Some(Ty::ext("Option", vec![arc])),
            _ => None,
        };
    }
    let e = element(recv)?.clone();
    let vec = |t: Ty| Ty::ext("Vec", vec![t]);
    if matches!(recv.pointee(), Ty::Ext(n, _) if n == "Option") {
        let option = |t: Ty| Ty::ext("Option", vec![t]);
        return match name {
            "iter" | "into_iter" | "iter_mut" => Some(vec(e)),
            "filter" | "inspect" | "cloned" | "copied" => Some(option(e)),
            "map" if !body.is_unknown() => Some(option(body)),
            "and_then" if !body.is_unknown() => Some(body),
            _ => None,
        };
    }
    match name {
        "iter" | "into_iter" | "iter_mut" | "drain" | "filter" | "chain" | "collect" | "cloned" | "copied" | "rev"
        | "skip" | "take" | "take_while" | "skip_while" | "inspect" | "to_vec" => Some(vec(e)),
        "map" if !body.is_unknown() => Some(vec(body)),
        "find" => Some(Ty::ext("Option", vec![e])),
        _ => None,
    }
}
