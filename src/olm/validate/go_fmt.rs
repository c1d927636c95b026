//! Go's `fmt` verbs as operator-framework's messages use them: `%q` and `%+q` of strings and string lists
//! (`strconv.Quote`, `QuoteToASCII`), `%v` of string lists, `%#v` of `[]string`, and the `'g'` float format
//! sigs.k8s.io/yaml uses when a YAML number lands in a string field.

/// Whether Go's `unicode.IsPrint` holds (letters, marks, numbers, punctuation, symbols, ASCII space); format and
/// separator characters the standard library cannot name are listed.
fn printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32, 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x2064 | 0x2066..=0x206F | 0xD800..=0xF8FF | 0xFEFF | 0xFFF9..=0xFFFB | 0xF0000..)
}

fn quote_with(s: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if printable(c) && (!ascii_only || c.is_ascii()) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// `%q` of a string.
pub(crate) fn quote(s: &str) -> String {
    quote_with(s, false)
}

/// `%+q` of a string list: `["a" "b"]`.
pub(crate) fn quote_list_ascii<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote_with(s.as_ref(), true)).collect();
    format!("[{}]", inner.join(" "))
}

/// `%v` of a string list: `[a b]`.
pub(crate) fn list<S: AsRef<str>>(items: &[S]) -> String {
    format!("[{}]", items.iter().map(|s| s.as_ref()).collect::<Vec<_>>().join(" "))
}

/// `%#v` of a `[]string`: `[]string{"a", "b"}`.
pub(crate) fn go_string_slice<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s.as_ref())).collect();
    format!("[]string{{{}}}", inner.join(", "))
}

/// `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits that read back as the same float32, in `%e` form
/// when the exponent is below -4 or at least 6 (Go's precision for that choice in shortest mode).
pub(crate) fn format_float_g32(f: f64) -> String {
    let f = f as f32;
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits: `d.ddde±x`.
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if mantissa.starts_with('-') { "-" } else { "" };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exp) {
        return sci(sign, &digits, exp);
    }
    let point = exp + 1;
    let body = if point <= 0 {
        format!("0.{}{}", "0".repeat((-point) as usize), digits)
    } else if point as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(point as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    };
    format!("{sign}{body}")
}

fn sci(sign: &str, digits: &str, exp: i32) -> String {
    let mant = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits.to_string() };
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{mant}e{esign}{:02}", exp.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_like_go() {
        assert_eq!(quote("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert_eq!(quote("é\u{1}"), "\"é\\x01\"");
        assert_eq!(quote_list_ascii(&["a", "é"]), r#"["a" "\u00e9"]"#);
        assert_eq!(list(&["alpha", "beta"]), "[alpha beta]");
        assert_eq!(go_string_slice(&["v2"]), r#"[]string{"v2"}"#);
    }

    #[test]
    fn floats_like_go() {
        assert_eq!(format_float_g32(1.21), "1.21");
        assert_eq!(format_float_g32(1.2), "1.2");
        assert_eq!(format_float_g32(1.0), "1");
        assert_eq!(format_float_g32(100.5), "100.5");
        assert_eq!(format_float_g32(1e6), "1e+06");
        assert_eq!(format_float_g32(123456.0), "123456");
        assert_eq!(format_float_g32(0.0001), "0.0001");
        assert_eq!(format_float_g32(0.00001), "1e-05");
        assert_eq!(format_float_g32(-2.5), "-2.5");
    }
}
