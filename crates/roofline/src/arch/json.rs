//! A small JSON reader for pasted `config.json` files: hand-written recursive descent over the
//! text, with no dependency (the page's wasm stays small: no `serde_json`).
//!
//! * Grammar: RFC 8259, plus what Python's `json` module (which writes every Hugging Face
//!   config) also reads and writes: `NaN`, `Infinity` and `-Infinity` as numbers.
//! * Limits: input of at most [`MAX_LEN`] bytes, nesting at most [`MAX_DEPTH`] deep (arrays
//!   and objects), so no input can exhaust the stack or memory.
//! * Errors carry the 1-based line and column (in characters) of the offending character and
//!   say what was expected; common non-JSON (Python's `True`/`None`, single quotes, trailing
//!   commas, comments) is named as such. No input panics.
//! * Objects keep their members in order, duplicates included; [`Value::get`] returns the
//!   last of equal keys, as Python does.
//!
//! ```
//! use roofline::arch::json::{parse, Value};
//! let v = parse("{\"hidden_size\": 4096, \"tie\": false}").unwrap();
//! assert_eq!(v.get("hidden_size").and_then(Value::as_f64), Some(4096.0));
//! let e = parse("{\n  \"a\": 1,\n}").unwrap_err();
//! assert_eq!((e.line, e.column), (3, 1));
//! assert_eq!(e.to_string(), "line 3, column 1: trailing comma before `}` (JSON allows none)");
//! ```

use std::fmt;

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 64;

/// Longest input accepted, in bytes (4 MiB; a model's `config.json` is a few KiB).
pub const MAX_LEN: usize = 4 << 20;

/// A JSON value. Numbers are `f64` (integers are exact up to 2^53).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (`NaN` and `±Infinity` only from Python's spellings of them).
    Number(f64),
    /// A string, escapes resolved (a lone UTF-16 surrogate becomes U+FFFD).
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object's members in order (duplicate keys kept).
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (the last one when the key repeats); `None` for other
    /// values or a missing key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(x) => Some(*x),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// What kind of value this is, for messages: `a number`, `an object`, ...
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// A short rendering for messages: numbers and booleans as written, strings quoted and
    /// cut to 40 characters, arrays and objects by their size.
    pub fn brief(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(x) => super::count(*x),
            Value::String(s) => format!("\"{}\"", crate::error::clip_text(s, 40)),
            Value::Array(a) => format!("an array of {}", a.len()),
            Value::Object(m) => format!("an object of {} keys", m.len()),
        }
    }
}

/// Why a text is not JSON, and where: 1-based line and column (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Line of the offending character (1-based).
    pub line: usize,
    /// Column of the offending character, in characters (1-based).
    pub column: usize,
    /// What was wrong or expected.
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for JsonError {}

/// Parses one JSON value (surrounded by optional whitespace; a leading byte-order mark is
/// skipped). Never panics.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    if text.len() > MAX_LEN {
        return Err(JsonError {
            line: 1,
            column: 1,
            message: format!(
                "the text is {} bytes; at most {} are read (a config.json is a few KiB)",
                text.len(),
                MAX_LEN
            ),
        });
    }
    let mut p = Parser {
        text,
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    if text.starts_with('\u{FEFF}') {
        p.i = '\u{FEFF}'.len_utf8();
    }
    p.ws()?;
    if p.i >= p.s.len() {
        return Err(p.err("no JSON value: the text is empty".into()));
    }
    let v = p.value()?;
    p.ws()?;
    if p.i < p.s.len() {
        return Err(p.err(format!(
            "unexpected {} after the JSON value (one value per text)",
            p.describe_here()
        )));
    }
    Ok(v)
}

struct Parser<'a> {
    text: &'a str,
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    /// An error at the current position.
    fn err(&self, message: String) -> JsonError {
        self.err_at(self.i, message)
    }

    fn err_at(&self, at: usize, message: String) -> JsonError {
        let at = at.min(self.s.len());
        // `at` is always on a char boundary (the parser only stops on ASCII bytes or at a
        // char's start), but stay safe if it is not.
        let before = self.text.get(..at).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
        JsonError {
            line,
            column,
            message,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// The character at the current position, for messages.
    fn describe_here(&self) -> String {
        match self.text.get(self.i..).and_then(|r| r.chars().next()) {
            None => "end of text".into(),
            Some(c) if c.is_control() || c.is_whitespace() => {
                format!("character U+{:04X}", c as u32)
            }
            Some(c) => format!("`{c}`"),
        }
    }

    /// Skips whitespace; comments are refused with a clear message.
    fn ws(&mut self) -> Result<(), JsonError> {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                b'/' if matches!(self.s.get(self.i + 1), Some(b'/' | b'*')) => {
                    return Err(self.err("comments are not JSON: remove them".into()))
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        match self.peek() {
            None => Err(self.err("expected a value, found the end of the text".into())),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'\'') => Err(self.err("strings use double quotes (\"...\"), not single quotes".into())),
            Some(c) if c.is_ascii_alphabetic() => self.word(),
            Some(_) => Err(self.err(format!(
                "expected a value (an object, array, string, number, true, false or null), found {}",
                self.describe_here()
            ))),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Value, JsonError>) -> Result<Value, JsonError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn word(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        let w = self.text.get(start..self.i).unwrap_or("");
        Ok(match w {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            // Python's json module writes (and reads) these for non-finite floats.
            "NaN" => Value::Number(f64::NAN),
            "Infinity" => Value::Number(f64::INFINITY),
            "True" | "False" | "None" => {
                let json = match w {
                    "True" => "true",
                    "False" => "false",
                    _ => "null",
                };
                return Err(self.err_at(start, format!("`{w}` is Python; JSON writes `{json}`")));
            }
            _ => {
                return Err(self.err_at(
                    start,
                    format!(
                        "unexpected word `{}`: expected a value (strings need double quotes)",
                        crate::error::clip_text(w, 20)
                    ),
                ))
            }
        })
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
            if self.s.get(self.i..self.i + 8) == Some(b"Infinity") {
                self.i += 8;
                return Ok(Value::Number(f64::NEG_INFINITY));
            }
        }
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(self.err("numbers do not start with 0 (no leading zeros)".into()));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err("expected a digit after `-`".into())),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.err("expected a digit after the decimal point".into()));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.err("expected a digit in the exponent".into()));
            }
            self.digits();
        }
        let t = self.text.get(start..self.i).unwrap_or("");
        // The grammar above is a subset of what Rust's parser reads; huge exponents give
        // ±infinity or 0, as in Python.
        t.parse::<f64>()
            .map(Value::Number)
            .map_err(|_| self.err_at(start, format!("cannot read the number `{t}`")))
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        let open = self.i;
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let run = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // Runs end on ASCII bytes, so the slice is on char boundaries.
            out.push_str(self.text.get(run..self.i).unwrap_or(""));
            match self.peek() {
                None => {
                    return Err(self.err_at(open, "unterminated string: no closing `\"`".into()))
                }
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.peek();
                    self.i += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{C}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => out.push(self.unicode_escape()?),
                        None => {
                            return Err(
                                self.err_at(open, "unterminated string: no closing `\"`".into())
                            )
                        }
                        Some(_) => {
                            self.i -= 1;
                            return Err(self.err(format!(
                                "invalid escape `\\{}` (JSON escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                                self.describe_here().trim_matches('`')
                            )));
                        }
                    }
                }
                Some(_) => {
                    return Err(self.err(
                        "control character inside a string (write it as an escape, e.g. \\n)"
                            .into(),
                    ))
                }
            }
        }
    }

    /// After `\u`: four hex digits, combining a surrogate pair when one follows.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) && self.s.get(self.i..self.i + 2) == Some(b"\\u") {
            let save = self.i;
            self.i += 2;
            let lo = self.hex4()?;
            if (0xDC00..0xE000).contains(&lo) {
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                return Ok(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            self.i = save; // not a pair: the second escape is read on its own
        }
        Ok(char::from_u32(hi).unwrap_or('\u{FFFD}'))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => {
                    return Err(self.err(format!(
                        "expected 4 hex digits after \\u, found {}",
                        self.describe_here()
                    )))
                }
            };
            v = v * 16 + u32::from(d);
            self.i += 1;
        }
        Ok(v)
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        self.i += 1; // [
        let mut items = Vec::new();
        self.ws()?;
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.ws()?;
            items.push(self.value()?);
            self.ws()?;
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws()?;
                    if self.peek() == Some(b']') {
                        return Err(self.err("trailing comma before `]` (JSON allows none)".into()));
                    }
                }
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                None => return Err(self.err("unterminated array: expected `,` or `]`".into())),
                Some(_) => {
                    return Err(self.err(format!(
                        "expected `,` or `]` after an array element, found {}",
                        self.describe_here()
                    )))
                }
            }
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        self.i += 1; // {
        let mut members = Vec::new();
        self.ws()?;
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.ws()?;
            let key = match self.peek() {
                Some(b'"') => self.string()?,
                Some(b'\'') => {
                    return Err(
                        self.err("keys use double quotes (\"...\"), not single quotes".into())
                    )
                }
                None => return Err(self.err("unterminated object: expected a key or `}`".into())),
                Some(_) => {
                    return Err(self.err(format!(
                        "expected a key in double quotes, found {}",
                        self.describe_here()
                    )))
                }
            };
            self.ws()?;
            if self.peek() != Some(b':') {
                return Err(self.err(format!(
                    "expected `:` after the key \"{}\", found {}",
                    crate::error::clip_text(&key, 40),
                    self.describe_here()
                )));
            }
            self.i += 1;
            self.ws()?;
            let v = self.value()?;
            members.push((key, v));
            self.ws()?;
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws()?;
                    if self.peek() == Some(b'}') {
                        return Err(self.err("trailing comma before `}` (JSON allows none)".into()));
                    }
                }
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(members));
                }
                None => return Err(self.err("unterminated object: expected `,` or `}`".into())),
                Some(_) => {
                    return Err(self.err(format!(
                        "expected `,` or `}}` after an object member, found {}",
                        self.describe_here()
                    )))
                }
            }
        }
    }
}
