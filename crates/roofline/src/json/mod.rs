//! The one JSON tokenizer of the crate, with no dependency (the page's wasm stays small: no
//! `serde_json`). Both JSON readers build on it: the `config.json` reader
//! ([`crate::arch::json`], a value tree) and the PyTorch trace reader (`profile/trace.rs`,
//! streaming, never a tree).
//!
//! * Streaming: bytes go in as chunks of any size (a chunk may end inside a string, a number, an
//!   escape or a multi-byte character), tokens come out through a [`Sink`]. The tokens and the
//!   errors do not depend on where the chunks are cut.
//! * An explicit stack of open containers (one byte each, at most [`Options::max_depth`]): deep
//!   nesting costs memory, never the call stack. No input panics.
//! * Grammar: RFC 8259, plus what Python's `json` module (which writes every Hugging Face config
//!   and many traces) also reads and writes: `NaN`, `Infinity` and `-Infinity` as numbers. Lone
//!   UTF-16 surrogate escapes and invalid UTF-8 inside strings become U+FFFD.
//! * Errors ([`JsonError`]) carry the byte offset, say what was expected and what was found, and
//!   name common non-JSON: Python's `True`/`None`, single quotes, trailing commas, comments.
//! * [`Options`] holds what differs between the readers: the depth limit, and the leniency traces
//!   need (control characters inside strings, a top-level array left open at the end).
//!
//! ```
//! use roofline::json::{Options, Sink, Token, Tokenizer};
//! struct Count(usize);
//! impl Sink for Count {
//!     fn token(&mut self, _: Token<'_>) -> Result<(), String> {
//!         self.0 += 1;
//!         Ok(())
//!     }
//! }
//! let (mut t, mut n) = (Tokenizer::new(Options::CONFIG), Count(0));
//! t.feed(b"{\"a\": [1, tr", &mut n).unwrap();
//! t.feed(b"ue]}", &mut n).unwrap();
//! t.finish(&mut n).unwrap();
//! assert_eq!(n.0, 7); // { a [ 1 true ] }
//! ```

mod tokenizer;

pub(crate) use tokenizer::fast;
pub use tokenizer::Tokenizer;

use std::fmt;

/// What the tokenizer accepts beyond strict JSON, and its limits: one value per reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Deepest nesting of arrays and objects accepted.
    pub max_depth: usize,
    /// Longest number accepted, in characters.
    pub max_number_len: usize,
    /// Keep control characters (below U+0020) inside strings as they are; when false they are
    /// an error, as JSON says.
    pub raw_control_chars: bool,
    /// A top-level array may end without its `]`, after a trailing comma or not (the Trace Event
    /// Format's "JSON Array Format" allows a trace to stop so).
    pub open_top_array: bool,
}

impl Options {
    /// Strict JSON, 64 levels deep: a pasted `config.json` (a few KiB, so numbers of any
    /// length).
    pub const CONFIG: Options = Options {
        max_depth: 64,
        max_number_len: usize::MAX,
        raw_control_chars: false,
        open_top_array: false,
    };

    /// What real profiler traces need: 1000 levels, numbers of at most 400 characters, raw
    /// control characters in strings, a top-level array left open.
    pub const TRACE: Options = Options {
        max_depth: 1000,
        max_number_len: 400,
        raw_control_chars: true,
        open_top_array: true,
    };
}

/// What kind of error a [`JsonError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not JSON at this point.
    Syntax,
    /// No value at all: the text is empty or only whitespace.
    Empty,
    /// The text stopped inside a value (a file cut short, a paste cut off).
    CutShort,
    /// Nested deeper than the reader's limit.
    TooDeep,
    /// Longer than the reader's limit.
    TooLong,
    /// The [`Sink`] refused a token.
    Refused,
}

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Bytes from the start of the input to the offending character.
    pub offset: u64,
    /// Line of the offending character (1-based); 0 where the reader did not locate it (a
    /// stream reports the byte offset alone).
    pub line: usize,
    /// Column of the offending character, in characters (1-based); 0 where not located.
    pub column: usize,
    /// What kind of error.
    pub kind: ErrorKind,
    /// What was wrong or expected.
    pub message: String,
}

impl JsonError {
    pub(crate) fn new(offset: u64, kind: ErrorKind, message: impl Into<String>) -> Self {
        JsonError {
            offset,
            line: 0,
            column: 0,
            kind,
            message: message.into(),
        }
    }

    /// The error with its line and column (in characters) in `text`, the whole input.
    pub fn located(mut self, text: &str) -> Self {
        let at = usize::try_from(self.offset)
            .unwrap_or(usize::MAX)
            .min(text.len());
        // Errors sit on a char boundary (the tokenizer stops only on ASCII bytes or at a
        // char's start), but stay safe if one does not.
        let before = text.get(..at).unwrap_or(text);
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        self.line = before.matches('\n').count() + 1;
        self.column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
        self
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "line {}, column {}: {}",
                self.line, self.column, self.message
            )
        } else {
            write!(f, "byte {}: {}", self.offset, self.message)
        }
    }
}

impl std::error::Error for JsonError {}

/// One lexical element of a JSON text. Strings are unescaped; numbers are their text (checked
/// against the JSON grammar), or `NaN`, `inf`, `-inf` for Python's spellings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token<'a> {
    /// `{`.
    BeginObject,
    /// `}`.
    EndObject,
    /// `[`.
    BeginArray,
    /// `]`.
    EndArray,
    /// An object key.
    Key(&'a str),
    /// A string value.
    Str(&'a str),
    /// A number value, as written (`12`, `-3.5e2`), or `NaN`, `inf`, `-inf`.
    Num(&'a str),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
}

/// A [`Token::Num`]'s value: Python's spellings, or the JSON grammar (huge exponents give
/// ±infinity or 0, as in Python).
pub fn number(t: &str) -> Result<f64, String> {
    match t {
        "NaN" => Ok(f64::NAN),
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        _ => t
            .parse::<f64>()
            .map_err(|_| format!("cannot read the number `{t}`")),
    }
}

/// Receives tokens. An `Err` stops the tokenizer; its message is reported with the offset
/// (kind [`ErrorKind::Refused`]).
pub trait Sink {
    /// Takes the next token.
    fn token(&mut self, t: Token<'_>) -> Result<(), String>;

    /// Called where an object starts as an element of an array, with the text from its `{` to
    /// the end of what the tokenizer holds (the valid UTF-8 of the chunk) and `room`, the levels
    /// of nesting the tokenizer would still open: a sink may read the whole object itself and
    /// return its length in bytes (blanks after it may be counted), and the tokenizer goes on
    /// after it as though it had emitted its tokens. The default reads nothing. A sink that
    /// reads one must take only text the tokenizer reads without error, and do with it what
    /// its tokens would do; on `None` the tokenizer reads the object from its `{`.
    fn object_in_array(&mut self, _text: &str, _room: usize) -> Option<usize> {
        None
    }
}

/// The character that starts `rest`, for messages: `` `x` ``, `character U+000B` for control
/// and whitespace characters, `byte 0xff` for invalid UTF-8 (or a character the chunk cuts),
/// `end of text` when nothing is left.
fn describe(rest: &[u8]) -> String {
    let Some(&b) = rest.first() else {
        return "end of text".into();
    };
    let c = if b < 0x80 {
        Some(char::from(b))
    } else {
        let head = &rest[..rest.len().min(4)];
        let valid = match std::str::from_utf8(head) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
        };
        valid.chars().next()
    };
    match c {
        None => format!("byte 0x{b:02x}"),
        Some(c) if c.is_control() || c.is_whitespace() => format!("character U+{:04X}", c as u32),
        Some(c) => format!("`{c}`"),
    }
}

#[cfg(test)]
mod tests;
