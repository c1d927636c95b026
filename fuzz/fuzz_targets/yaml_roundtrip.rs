//! Fuzz target: kubesmith's YAML emitter round trip. An arbitrary JSON value (decoded from the input by
//! `arbitrary`) is rendered by `yaml::to_string` and `yaml::to_multi_doc_string`, parsed back by
//! `yaml::from_str` / `from_multi_doc_str`, and must come back equal.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

/// Deeper values are cut to a scalar: the parser refuses more than 128 levels (serde_yaml's limit), and what
/// kubesmith writes is a handful of levels deep.
const MAX_DEPTH: usize = 24;

fn value(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<Value> {
    let pick = if depth >= MAX_DEPTH { u.int_in_range(0..=5)? } else { u.int_in_range(0..=7)? };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => Value::Number(i64::arbitrary(u)?.into()),
        3 => Value::Number(u64::arbitrary(u)?.into()),
        4 => Number::from_f64(f64::arbitrary(u)?).map_or(Value::Null, Value::Number),
        5 => Value::String(String::arbitrary(u)?),
        6 => {
            let n = u.int_in_range(0..=6)?;
            let mut a = Vec::with_capacity(n);
            for _ in 0..n {
                a.push(value(u, depth + 1)?);
            }
            Value::Array(a)
        }
        _ => {
            let n = u.int_in_range(0..=6)?;
            let mut m = Map::new();
            for _ in 0..n {
                let k = String::arbitrary(u)?;
                m.insert(k, value(u, depth + 1)?);
            }
            Value::Object(m)
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(v) = value(&mut u, 0) else { return };
    let text = kubesmith::yaml::to_string(&v);
    let back = kubesmith::yaml::from_str(&text).unwrap_or_else(|e| panic!("emitted YAML does not parse: {e}\n{text}"));
    assert_eq!(back, v, "round trip changed the value; emitted:\n{text}");
    if !v.is_null() {
        let multi = kubesmith::yaml::to_multi_doc_string(&[v.clone(), v.clone()]);
        let docs = kubesmith::yaml::from_multi_doc_str(&multi)
            .unwrap_or_else(|e| panic!("emitted multi-document YAML does not parse: {e}\n{multi}"));
        assert_eq!(docs, vec![v.clone(), v], "multi-document round trip changed the values; emitted:\n{multi}");
    }
});
