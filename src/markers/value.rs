//! Marker argument values and their parser (bare words, quoted strings, numbers, bools, lists, maps).

use super::registry::ArgType;

/// A parsed marker argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum MarkerValue {
    /// A string (bare word, `"double"` or `` `raw` `` quoted).
    String(String),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A list (`a;b;c` or `{a,b,c}`).
    List(Vec<MarkerValue>),
    /// A map (`{k: v, k2: v2}`), in source order. `{}` parses as an empty map.
    Map(Vec<(String, MarkerValue)>),
}

impl MarkerValue {
    /// The string, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MarkerValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items as strings: a list of strings, or a single string as a one-element list.
    /// Non-string items are rendered as their JSON text.
    pub fn to_string_list(&self) -> Vec<String> {
        match self {
            MarkerValue::List(items) => items.iter().map(MarkerValue::to_plain_string).collect(),
            other => vec![other.to_plain_string()],
        }
    }

    /// The value as a plain string (strings unquoted, everything else as JSON text).
    pub fn to_plain_string(&self) -> String {
        match self {
            MarkerValue::String(s) => s.clone(),
            other => other.to_json().to_string(),
        }
    }

    /// The value as JSON (maps keep their source order only as far as serde_json allows).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            MarkerValue::String(s) => serde_json::Value::String(s.clone()),
            MarkerValue::Int(i) => serde_json::Value::from(*i),
            MarkerValue::Float(f) => {
                serde_json::Number::from_f64(*f).map(serde_json::Value::Number).unwrap_or(serde_json::Value::Null)
            }
            MarkerValue::Bool(b) => serde_json::Value::Bool(*b),
            MarkerValue::List(items) => serde_json::Value::Array(items.iter().map(MarkerValue::to_json).collect()),
            MarkerValue::Map(entries) => {
                serde_json::Value::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }
}

/// A cursor over the argument text of one marker.
pub(crate) struct Cursor {
    chars: Vec<char>,
    pos: usize,
}

impl Cursor {
    pub(crate) fn new(text: &str) -> Self {
        Cursor { chars: text.chars().collect(), pos: 0 }
    }

    pub(crate) fn eof(&self) -> bool {
        self.pos >= self.chars.len()
    }

    pub(crate) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    pub(crate) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(crate) fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    /// The rest of the text (for error messages).
    pub(crate) fn rest(&self) -> String {
        self.chars[self.pos.min(self.chars.len())..].iter().collect()
    }

    /// Takes characters until one of `stops` (not consumed) or the end.
    pub(crate) fn take_until(&mut self, stops: &[char]) -> String {
        let start = self.pos;
        while self.peek().is_some_and(|c| !stops.contains(&c)) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    /// Parses a value of type `ty`. When `whole` is true the value extends to the end of the
    /// text (anonymous `+name=value` markers); otherwise it ends at a top-level `,`.
    pub(crate) fn parse_value(&mut self, ty: ArgType, whole: bool) -> Result<MarkerValue, String> {
        self.skip_ws();
        let value = match ty {
            ArgType::String => MarkerValue::String(self.parse_string(whole)?),
            ArgType::OneOf(words) => {
                let s = self.parse_string(whole)?;
                if !words.contains(&s.as_str()) {
                    return Err(format!("expected one of {}, found `{s}`", ArgType::OneOf(words).describe()));
                }
                MarkerValue::String(s)
            }
            ArgType::Int => {
                let tok = self.bare_token(whole);
                let tok = tok.trim();
                tok.parse::<i64>().map(MarkerValue::Int).map_err(|_| format!("expected an integer, found `{tok}`"))?
            }
            ArgType::Number => {
                let tok = self.bare_token(whole);
                let tok = tok.trim();
                parse_number(tok).ok_or_else(|| format!("expected a number, found `{tok}`"))?
            }
            ArgType::Bool => {
                let tok = self.bare_token(whole);
                match tok.trim() {
                    "true" => MarkerValue::Bool(true),
                    "false" => MarkerValue::Bool(false),
                    other => return Err(format!("expected `true` or `false`, found `{other}`")),
                }
            }
            ArgType::StringList => MarkerValue::List(self.parse_string_list()?),
            ArgType::Any => self.parse_any(whole)?,
            ArgType::AnyList => match self.parse_any(whole)? {
                MarkerValue::List(items) => MarkerValue::List(items),
                MarkerValue::Map(entries) if entries.is_empty() => MarkerValue::List(Vec::new()),
                other => MarkerValue::List(vec![other]),
            },
        };
        self.skip_ws();
        if whole && !self.eof() {
            return Err(format!("unexpected text `{}` after the value", self.rest()));
        }
        Ok(value)
    }

    /// A bare token up to a top-level `,` (or the end when `whole`).
    fn bare_token(&mut self, whole: bool) -> String {
        if whole { self.take_until(&[]) } else { self.take_until(&[',']) }
    }

    fn parse_string(&mut self, whole: bool) -> Result<String, String> {
        match self.peek() {
            Some('"') | Some('`') => self.parse_quoted(),
            _ => Ok(self.bare_token(whole).trim().to_string()),
        }
    }

    /// Parses a `"double"` (Go escapes) or `` `raw` `` quoted string; the cursor is on the quote.
    fn parse_quoted(&mut self) -> Result<String, String> {
        let quote = self.peek().unwrap_or('"');
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(format!("unterminated {quote}quoted{quote} string"));
            };
            self.pos += 1;
            if c == quote {
                return Ok(out);
            }
            if c == '\\' && quote == '"' {
                let Some(e) = self.peek() else {
                    return Err("unterminated \"quoted\" string".to_string());
                };
                self.pos += 1;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    '\\' | '"' | '\'' => out.push(e),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = (0..n).filter_map(|i| self.peek_at(i)).collect();
                        let ch = (hex.len() == n)
                            .then(|| u32::from_str_radix(&hex, 16).ok())
                            .flatten()
                            .and_then(char::from_u32)
                            .ok_or_else(|| format!("invalid escape `\\{e}{hex}`"))?;
                        self.pos += n;
                        out.push(ch);
                    }
                    other => return Err(format!("invalid escape `\\{other}` in quoted string")),
                }
            } else {
                out.push(c);
            }
        }
    }

    /// `a;b;c`, `"a";b` or `{a,b,c}`.
    fn parse_string_list(&mut self) -> Result<Vec<MarkerValue>, String> {
        let mut items = Vec::new();
        if self.eat('{') {
            self.skip_ws();
            if self.eat('}') {
                return Ok(items);
            }
            loop {
                self.skip_ws();
                let item = match self.peek() {
                    Some('"') | Some('`') => self.parse_quoted()?,
                    _ => self.take_until(&[',', '}']).trim().to_string(),
                };
                items.push(MarkerValue::String(item));
                self.skip_ws();
                if self.eat(',') {
                    continue;
                }
                if self.eat('}') {
                    return Ok(items);
                }
                return Err(format!("expected `,` or `}}` in list, found `{}`", self.rest()));
            }
        }
        loop {
            self.skip_ws();
            let item = match self.peek() {
                Some('"') | Some('`') => self.parse_quoted()?,
                _ => self.take_until(&[';', ',']).trim().to_string(),
            };
            items.push(MarkerValue::String(item));
            self.skip_ws();
            if !self.eat(';') {
                return Ok(items);
            }
        }
    }

    /// Any value: guesses the type from the text.
    fn parse_any(&mut self, whole: bool) -> Result<MarkerValue, String> {
        let stops: &[char] = if whole { &[';'] } else { &[';', ','] };
        let first = self.parse_any_item(stops)?;
        self.skip_ws();
        if self.peek() != Some(';') {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(';') {
            self.skip_ws();
            items.push(self.parse_any_item(stops)?);
            self.skip_ws();
        }
        Ok(MarkerValue::List(items))
    }

    fn parse_any_item(&mut self, stops: &[char]) -> Result<MarkerValue, String> {
        self.skip_ws();
        match self.peek() {
            Some('"') | Some('`') => Ok(MarkerValue::String(self.parse_quoted()?)),
            Some('{') => self.parse_braced_any(),
            _ => Ok(guess_scalar(self.take_until(stops).trim())),
        }
    }

    /// `{a, b}` (list) or `{k: v, k2: v2}` (map); the cursor is on `{`.
    fn parse_braced_any(&mut self) -> Result<MarkerValue, String> {
        self.pos += 1;
        self.skip_ws();
        if self.eat('}') {
            return Ok(MarkerValue::Map(Vec::new()));
        }
        let mut list = Vec::new();
        let mut map = Vec::new();
        let mut is_map = None;
        loop {
            self.skip_ws();
            // A map key is a quoted string or a bare word followed by `:` (bare: `: `).
            let start = self.pos;
            let key = match self.peek() {
                Some('"') | Some('`') => {
                    let k = self.parse_quoted()?;
                    self.skip_ws();
                    self.eat(':').then_some(k)
                }
                Some('{') => None,
                _ => {
                    let k = self.take_map_key();
                    if self.peek() == Some(':') {
                        self.pos += 1;
                        Some(k.trim().to_string())
                    } else {
                        None
                    }
                }
            };
            match (key, is_map) {
                (Some(k), None | Some(true)) => {
                    is_map = Some(true);
                    self.skip_ws();
                    let v = self.parse_any_item(&[',', '}'])?;
                    map.push((k, v));
                }
                (None, None | Some(false)) => {
                    is_map = Some(false);
                    self.pos = start;
                    list.push(self.parse_any_item(&[',', '}'])?);
                }
                _ => return Err("cannot mix list items and map entries in `{...}`".to_string()),
            }
            self.skip_ws();
            if self.eat(',') {
                continue;
            }
            if self.eat('}') {
                break;
            }
            return Err(format!("expected `,` or `}}`, found `{}`", self.rest()));
        }
        Ok(if is_map == Some(true) { MarkerValue::Map(map) } else { MarkerValue::List(list) })
    }

    /// A bare map key: up to `,`, `}` or a `:` followed by whitespace.
    fn take_map_key(&mut self) -> String {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == ',' || c == '}' {
                break;
            }
            if c == ':' && self.peek_at(1).is_none_or(char::is_whitespace) {
                break;
            }
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }
}

fn parse_number(tok: &str) -> Option<MarkerValue> {
    if let Ok(i) = tok.parse::<i64>() {
        return Some(MarkerValue::Int(i));
    }
    let numeric_start = tok.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
    match tok.parse::<f64>() {
        Ok(f) if numeric_start && f.is_finite() => Some(MarkerValue::Float(f)),
        _ => None,
    }
}

fn guess_scalar(tok: &str) -> MarkerValue {
    match tok {
        "true" => MarkerValue::Bool(true),
        "false" => MarkerValue::Bool(false),
        _ => parse_number(tok).unwrap_or_else(|| MarkerValue::String(tok.to_string())),
    }
}
