//! Go's `encoding/json` as operator-framework's validators meet it: the syntax check `json.Unmarshal` runs first
//! (its scanner, so errors read `invalid character 'x' looking for beginning of value` with Go's byte offset), the
//! type errors of the few targets they decode into, and `json.Marshal`'s compact form of a decoded value.

use serde_json::Value;

/// A `*json.SyntaxError`: its message and `Offset` (bytes read when the error was found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub msg: String,
    pub offset: usize,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    Lit(&'static [u8], u8),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Parse {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

/// `quoteChar`: the byte as Go prints it in a syntax error (a byte >= 0x80 reads as the Latin-1 character).
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        _ => {
            let q = super::go_fmt::quote(&char::from(c).to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

struct Scanner {
    state: State,
    stack: Vec<Parse>,
    end_top: bool,
}

impl Scanner {
    fn err(c: u8, context: &str) -> String {
        format!("invalid character {} {context}", quote_char(c))
    }

    fn pop(&mut self) {
        self.stack.pop();
        if self.stack.is_empty() {
            self.state = State::EndTop;
            self.end_top = true;
        } else {
            self.state = State::EndValue;
        }
    }

    fn begin_value(&mut self, c: u8) -> Result<(), String> {
        match c {
            b'{' => {
                self.state = State::BeginStringOrEmpty;
                self.stack.push(Parse::ObjectKey);
            }
            b'[' => {
                self.state = State::BeginValueOrEmpty;
                self.stack.push(Parse::ArrayValue);
            }
            b'"' => self.state = State::InString,
            b'-' => self.state = State::Neg,
            b'0' => self.state = State::Zero,
            b't' => self.state = State::Lit(b"rue", 0),
            b'f' => self.state = State::Lit(b"alse", 0),
            b'n' => self.state = State::Lit(b"ull", 0),
            b'1'..=b'9' => self.state = State::One,
            _ => return Err(Self::err(c, "looking for beginning of value")),
        }
        Ok(())
    }

    fn end_value(&mut self, c: u8) -> Result<(), String> {
        let Some(&top) = self.stack.last() else {
            self.state = State::EndTop;
            self.end_top = true;
            return self.step(c);
        };
        if space(c) {
            self.state = State::EndValue;
            return Ok(());
        }
        match top {
            Parse::ObjectKey if c == b':' => {
                *self.stack.last_mut().expect("non-empty") = Parse::ObjectValue;
                self.state = State::BeginValue;
                Ok(())
            }
            Parse::ObjectKey => Err(Self::err(c, "after object key")),
            Parse::ObjectValue if c == b',' => {
                *self.stack.last_mut().expect("non-empty") = Parse::ObjectKey;
                self.state = State::BeginString;
                Ok(())
            }
            Parse::ObjectValue if c == b'}' => {
                self.pop();
                Ok(())
            }
            Parse::ObjectValue => Err(Self::err(c, "after object key:value pair")),
            Parse::ArrayValue if c == b',' => {
                self.state = State::BeginValue;
                Ok(())
            }
            Parse::ArrayValue if c == b']' => {
                self.pop();
                Ok(())
            }
            Parse::ArrayValue => Err(Self::err(c, "after array element")),
        }
    }

    /// The number states after a complete number: anything else ends the value.
    fn after_number(&mut self, c: u8) -> Result<(), String> {
        self.end_value(c)
    }

    fn step(&mut self, c: u8) -> Result<(), String> {
        match self.state {
            State::BeginValueOrEmpty => {
                if space(c) {
                    return Ok(());
                }
                if c == b']' {
                    return self.end_value(c);
                }
                self.begin_value(c)
            }
            State::BeginValue => {
                if space(c) {
                    return Ok(());
                }
                self.begin_value(c)
            }
            State::BeginStringOrEmpty => {
                if space(c) {
                    return Ok(());
                }
                if c == b'}' {
                    *self.stack.last_mut().expect("in object") = Parse::ObjectValue;
                    return self.end_value(c);
                }
                self.begin_string(c)
            }
            State::BeginString => {
                if space(c) {
                    return Ok(());
                }
                self.begin_string(c)
            }
            State::EndValue => self.end_value(c),
            State::EndTop => {
                if !space(c) {
                    return Err(Self::err(c, "after top-level value"));
                }
                Ok(())
            }
            State::InString => {
                match c {
                    b'"' => self.state = State::EndValue,
                    b'\\' => self.state = State::InStringEsc,
                    c if c < 0x20 => return Err(Self::err(c, "in string literal")),
                    _ => {}
                }
                Ok(())
            }
            State::InStringEsc => {
                match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => self.state = State::InString,
                    b'u' => self.state = State::InStringEscU(0),
                    _ => return Err(Self::err(c, "in string escape code")),
                }
                Ok(())
            }
            State::InStringEscU(n) => {
                if !c.is_ascii_hexdigit() {
                    return Err(Self::err(c, "in \\u hexadecimal character escape"));
                }
                self.state = if n == 3 { State::InString } else { State::InStringEscU(n + 1) };
                Ok(())
            }
            State::Neg => {
                match c {
                    b'0' => self.state = State::Zero,
                    b'1'..=b'9' => self.state = State::One,
                    _ => return Err(Self::err(c, "in numeric literal")),
                }
                Ok(())
            }
            State::One => {
                if c.is_ascii_digit() {
                    return Ok(());
                }
                self.zero(c)
            }
            State::Zero => self.zero(c),
            State::Dot => {
                if c.is_ascii_digit() {
                    self.state = State::Dot0;
                    return Ok(());
                }
                Err(Self::err(c, "after decimal point in numeric literal"))
            }
            State::Dot0 => {
                if c.is_ascii_digit() {
                    return Ok(());
                }
                if c == b'e' || c == b'E' {
                    self.state = State::E;
                    return Ok(());
                }
                self.after_number(c)
            }
            State::E => {
                if c == b'+' || c == b'-' {
                    self.state = State::ESign;
                    return Ok(());
                }
                self.e_sign(c)
            }
            State::ESign => self.e_sign(c),
            State::E0 => {
                if c.is_ascii_digit() {
                    return Ok(());
                }
                self.after_number(c)
            }
            State::Lit(rest, i) => {
                if c != rest[i as usize] {
                    let word = match rest {
                        b"rue" => "true",
                        b"alse" => "false",
                        _ => "null",
                    };
                    let want = char::from(rest[i as usize]);
                    return Err(Self::err(c, &format!("in literal {word} (expecting '{want}')")));
                }
                if i as usize + 1 == rest.len() {
                    self.state = State::EndValue;
                } else {
                    self.state = State::Lit(rest, i + 1);
                }
                Ok(())
            }
        }
    }

    fn begin_string(&mut self, c: u8) -> Result<(), String> {
        if c == b'"' {
            self.state = State::InString;
            return Ok(());
        }
        Err(Self::err(c, "looking for beginning of object key string"))
    }

    fn zero(&mut self, c: u8) -> Result<(), String> {
        if c == b'.' {
            self.state = State::Dot;
            return Ok(());
        }
        if c == b'e' || c == b'E' {
            self.state = State::E;
            return Ok(());
        }
        self.after_number(c)
    }

    fn e_sign(&mut self, c: u8) -> Result<(), String> {
        if c.is_ascii_digit() {
            self.state = State::E0;
            return Ok(());
        }
        Err(Self::err(c, "in exponent of numeric literal"))
    }
}

/// `checkValid`: the syntax check `json.Unmarshal` runs before decoding.
pub(crate) fn check_syntax(data: &[u8]) -> Result<(), SyntaxError> {
    let mut s = Scanner { state: State::BeginValue, stack: Vec::new(), end_top: false };
    for (i, &c) in data.iter().enumerate() {
        if let Err(msg) = s.step(c) {
            return Err(SyntaxError { msg, offset: i + 1 });
        }
    }
    // eof: a complete top-level value ends here (a number needs the space Go feeds it).
    if !s.end_top && !matches!(s.state, State::EndTop) {
        let _ = s.step(b' ');
        if !s.end_top {
            return Err(SyntaxError { msg: "unexpected end of JSON input".into(), offset: data.len() });
        }
    }
    Ok(())
}

/// The JSON type name Go's `UnmarshalTypeError` gives a value.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `json.Marshal` of a decoded value: compact, keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped.
pub(crate) fn marshal(v: &Value) -> String {
    let text = serde_json::to_string(v).unwrap_or_default();
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> (String, usize) {
        let e = check_syntax(s.as_bytes()).unwrap_err();
        (e.msg, e.offset)
    }

    #[test]
    fn valid_documents_pass() {
        for ok in ["[]", "{}", " [1, -2.5e+3, true, false, null, \"a\\u00e9\\n\"] ", "0", "{\"a\": {\"b\": []}}"] {
            assert_eq!(check_syntax(ok.as_bytes()), Ok(()), "{ok}");
        }
    }

    #[test]
    fn errors_read_like_go() {
        assert_eq!(err("x"), ("invalid character 'x' looking for beginning of value".into(), 1));
        assert_eq!(err("[1,]"), ("invalid character ']' looking for beginning of value".into(), 4));
        assert_eq!(err("[{"), ("unexpected end of JSON input".into(), 2));
        assert_eq!(err(""), ("unexpected end of JSON input".into(), 0));
        assert_eq!(err("{\"a\" 1}"), ("invalid character '1' after object key".into(), 6));
        assert_eq!(err("{\"a\":1 2}"), ("invalid character '2' after object key:value pair".into(), 8));
        assert_eq!(err("[1 2]"), ("invalid character '2' after array element".into(), 4));
        assert_eq!(err("{1}"), ("invalid character '1' looking for beginning of object key string".into(), 2));
        assert_eq!(err("[] x"), ("invalid character 'x' after top-level value".into(), 4));
        assert_eq!(err("tru "), ("invalid character ' ' in literal true (expecting 'e')".into(), 4));
        assert_eq!(err("-x"), ("invalid character 'x' in numeric literal".into(), 2));
        assert_eq!(err("1.x"), ("invalid character 'x' after decimal point in numeric literal".into(), 3));
        assert_eq!(err("1ex"), ("invalid character 'x' in exponent of numeric literal".into(), 3));
        assert_eq!(err("\"\\x\""), ("invalid character 'x' in string escape code".into(), 3));
        assert_eq!(err("\"\\u12x\""), ("invalid character 'x' in \\u hexadecimal character escape".into(), 6));
        assert_eq!(err("\"a\nb\""), ("invalid character '\\n' in string literal".into(), 3));
        assert_eq!(err("'a'"), ("invalid character '\\'' looking for beginning of value".into(), 1));
    }

    #[test]
    fn marshal_is_compact_sorted_and_html_safe() {
        let v: Value = serde_json::from_str(r#"{"b": "<x&y>", "a": [1, {"d": null, "c": true}]}"#).unwrap();
        assert_eq!(marshal(&v), r#"{"a":[1,{"c":true,"d":null}],"b":"\u003cx\u0026y\u003e"}"#);
    }
}
