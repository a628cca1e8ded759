//! The reader of pasted `config.json` files: a [`Value`] tree built on the crate's one JSON
//! tokenizer ([`crate::json`], strict: [`Options::CONFIG`]), with no dependency (the page's
//! wasm stays small: no `serde_json`).
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

pub use crate::json::JsonError;
use crate::json::{ErrorKind, Options, Sink, Token, Tokenizer};

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = Options::CONFIG.max_depth;

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

/// Parses one JSON value (surrounded by optional whitespace; a leading byte-order mark is
/// skipped). Errors carry their line and column. Never panics.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    if text.len() > MAX_LEN {
        let message = format!(
            "the text is {} bytes; at most {} are read (a config.json is a few KiB)",
            text.len(),
            MAX_LEN
        );
        return Err(JsonError::new(0, ErrorKind::TooLong, message).located(text));
    }
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let skipped = (text.len() - body.len()) as u64;
    let mut tok = Tokenizer::new(Options::CONFIG).starting_at(skipped);
    let mut tree = Tree::default();
    tok.feed(body.as_bytes(), &mut tree)
        .and_then(|()| tok.finish(&mut tree))
        .map_err(|e| e.located(text))?;
    Ok(tree.root.unwrap_or(Value::Null))
}

/// An array or object being built, with the key its next value goes under.
enum Open {
    Array(Vec<Value>),
    Object(Vec<(String, Value)>, String),
}

/// Builds a [`Value`] from tokens (the tokenizer checked the grammar and the depth).
#[derive(Default)]
struct Tree {
    stack: Vec<Open>,
    root: Option<Value>,
}

impl Tree {
    fn put(&mut self, v: Value) {
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Open::Array(items)) => items.push(v),
            Some(Open::Object(members, key)) => members.push((std::mem::take(key), v)),
        }
    }
}

impl Sink for Tree {
    fn token(&mut self, t: Token<'_>) -> Result<(), String> {
        match t {
            Token::BeginObject => self.stack.push(Open::Object(Vec::new(), String::new())),
            Token::BeginArray => self.stack.push(Open::Array(Vec::new())),
            Token::EndObject | Token::EndArray => {
                let v = match self.stack.pop() {
                    Some(Open::Object(members, _)) => Value::Object(members),
                    Some(Open::Array(items)) => Value::Array(items),
                    None => Value::Null,
                };
                self.put(v);
            }
            Token::Key(k) => {
                if let Some(Open::Object(_, key)) = self.stack.last_mut() {
                    *key = k.to_string();
                }
            }
            Token::Str(s) => self.put(Value::String(s.to_string())),
            Token::Num(n) => self.put(Value::Number(crate::json::number(n)?)),
            Token::Bool(b) => self.put(Value::Bool(b)),
            Token::Null => self.put(Value::Null),
        }
        Ok(())
    }
}
