//! The tokenizer's state machine (see [`crate::json`]): one state per place in the grammar, a
//! stack of open containers, and a buffer for the string, number or word being read.

use super::{describe, ErrorKind, JsonError, Options, Sink, Token};
use crate::error::clip_text;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
}

/// Inside a number: what was read last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    /// The leading `-`.
    Minus,
    /// A leading `0`.
    Zero,
    /// Digits of the integer part.
    Int,
    /// The decimal point.
    Point,
    /// Digits of the fraction.
    Frac,
    /// `e` or `E`.
    E,
    /// The exponent's sign.
    ESign,
    /// Digits of the exponent.
    Exp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// A value must come (the start, after `:`).
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `,` in an array: a value (a `]` is a trailing comma).
    ArrayNext,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key (a `}` is a trailing comma).
    Key,
    /// After a key: `:`.
    Colon,
    /// After a value inside a container: `,` or the closing bracket.
    CommaOrEnd,
    /// Inside a string (`key`: an object key).
    Str { key: bool },
    /// After a backslash inside a string.
    Esc { key: bool },
    /// Inside `\uXXXX`: `n` hex digits read so far.
    Unicode { key: bool, n: u8, code: u32 },
    /// Inside a number.
    Num(Num),
    /// Inside a word (`true`, `NaN`, or something that is not JSON such as `True`).
    Word,
    /// Inside `-Infinity`: `pos` bytes of `Infinity` matched.
    NegInf { pos: u8 },
    /// After the top-level value: only whitespace may follow.
    Done,
}

const INFINITY: &[u8] = b"Infinity";

/// Bytes of a word kept for its message (longer words are cut; no literal is that long).
const MAX_WORD: usize = 32;

/// The tokenizer. Feed it chunks with [`Tokenizer::feed`], then call [`Tokenizer::finish`].
/// After an error it must not be fed again.
pub struct Tokenizer {
    opts: Options,
    st: St,
    stack: Vec<Frame>,
    /// The string, number or word being read; after a key, that key (for the `:` message).
    buf: Vec<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    /// Offset of the chunk being read (bytes before it).
    consumed: u64,
    /// Offset where the current string, number or word began.
    start: u64,
    /// Offset of a `/` that ended the last chunk where whitespace may come: whether it opens a
    /// comment depends on the next byte.
    slash: Option<u64>,
    /// A character the last chunk cut where it can only be an error: its bytes so far.
    carry: Option<Carry>,
    /// Set by [`Tokenizer::finish`]: no more bytes will come.
    ending: bool,
}

/// The first bytes of a character, and its offset.
#[derive(Debug, Clone, Copy)]
struct Carry {
    at: u64,
    buf: [u8; 4],
    len: usize,
}

impl Carry {
    /// `bytes` (fewer than 4) at `at`.
    fn new(at: u64, bytes: &[u8]) -> Self {
        Carry {
            at,
            buf: [0; 4],
            len: 0,
        }
        .with(bytes)
    }

    /// With `more` bytes after (up to 4 in all).
    fn with(mut self, more: &[u8]) -> Self {
        let n = more.len().min(4 - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&more[..n]);
        self.len += n;
        self
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Whether `rest` (at a chunk's end) is the start of a UTF-8 character, cut before its end.
fn incomplete_char(rest: &[u8]) -> bool {
    rest.len() < 4
        && matches!(std::str::from_utf8(rest), Err(e) if e.valid_up_to() == 0 && e.error_len().is_none())
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::new(Options::CONFIG)
    }
}

/// The index of the first `"` or `\\` in `s`, eight bytes at a time (the classic "has a zero
/// byte" bit trick on `s ^ 0x22…` and `s ^ 0x5c…`): strings (kernel names of hundreds of
/// characters) are most of a trace.
pub(super) fn find_quote_or_backslash(s: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(LO) & !v & HI;
    let mut i = 0;
    while i + 8 <= s.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        let x = u64::from_le_bytes(w);
        let hit = zero(x ^ (LO * u64::from(b'"'))) | zero(x ^ (LO * u64::from(b'\\')));
        if hit != 0 {
            // The lowest flagged byte is a true match (borrows only run upwards).
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\')
        .map(|p| i + p)
}

fn push_char(buf: &mut Vec<u8>, c: u32) {
    let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
    let mut tmp = [0u8; 4];
    buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Tokenizer {
    /// A tokenizer reading by `opts`.
    pub fn new(opts: Options) -> Self {
        Tokenizer {
            opts,
            st: St::Value,
            stack: Vec::new(),
            buf: Vec::new(),
            high: None,
            consumed: 0,
            start: 0,
            slash: None,
            carry: None,
            ending: false,
        }
    }

    /// The same tokenizer for a text that starts `offset` bytes into its file: error offsets
    /// count from the file's start.
    pub fn starting_at(mut self, offset: u64) -> Self {
        self.consumed = offset;
        self
    }

    fn fail<T>(&self, at: u64, message: impl Into<String>) -> Result<T, JsonError> {
        Err(JsonError::new(at, ErrorKind::Syntax, message))
    }

    #[inline(always)]
    fn emit(&self, sink: &mut impl Sink, at: u64, t: Token<'_>) -> Result<(), JsonError> {
        sink.token(t)
            .map_err(|m| JsonError::new(at, ErrorKind::Refused, m))
    }

    /// The state after a complete value.
    #[inline(always)]
    fn after_value(&mut self) {
        self.st = if self.stack.is_empty() {
            St::Done
        } else {
            St::CommaOrEnd
        };
    }

    /// Feeds the next chunk.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut impl Sink) -> Result<(), JsonError> {
        let end = self.consumed + chunk.len() as u64;
        let mut rest = chunk;
        if let Some(carry) = self.carry.take() {
            // Complete the character the last chunk cut, and read it where it began.
            let take = (4 - carry.len).min(chunk.len());
            let carry = carry.with(&chunk[..take]);
            if take == chunk.len() && incomplete_char(carry.bytes()) {
                self.carry = Some(carry);
                self.consumed = end;
                return Ok(());
            }
            self.consumed = carry.at;
            self.run(carry.bytes(), sink)?;
            rest = &chunk[take..];
            self.consumed = end - rest.len() as u64;
        }
        if let Some(at) = self.slash {
            let Some(&next) = rest.first() else {
                return Ok(());
            };
            self.slash = None;
            self.after_slash(sink, next, at)?;
        }
        self.run(rest, sink)?;
        self.consumed = end;
        Ok(())
    }

    /// Reads `chunk`, which starts at offset `self.consumed`.
    fn run(&mut self, chunk: &[u8], sink: &mut impl Sink) -> Result<(), JsonError> {
        // The chunk's valid UTF-8 prefix, checked once: the fast lane's strings are cut from
        // it at their quotes (ASCII, so always character boundaries), not checked one by one.
        let text = match std::str::from_utf8(chunk) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&chunk[..e.valid_up_to()]).unwrap_or(""),
        };
        let mut i = 0;
        while i < chunk.len() {
            if !matches!(
                self.st,
                St::Str { .. }
                    | St::Esc { .. }
                    | St::Unicode { .. }
                    | St::Num(_)
                    | St::Word
                    | St::NegInf { .. }
            ) {
                // Between tokens: the fast lane reads what it can (`fast.rs`).
                i = self.fast(sink, chunk, text, i)?;
                if i == chunk.len() {
                    break;
                }
            }
            let at = self.consumed + i as u64;
            i = match self.st {
                St::Str { key } => self.string(sink, chunk, i, key)?,
                // Outside strings a non-ASCII byte is an error whose message shows the
                // character: `cut_char` waits for the rest of one the chunk cuts.
                St::Esc { key } => {
                    if self.cut_char(chunk, i) {
                        chunk.len()
                    } else {
                        self.escape(&chunk[i..], at, key)?;
                        i + 1
                    }
                }
                St::Unicode { key, n, code } => {
                    if self.cut_char(chunk, i) {
                        chunk.len()
                    } else {
                        self.unicode(&chunk[i..], at, key, n, code)?;
                        i + 1
                    }
                }
                St::Num(part) => self.number(sink, chunk, i, part)?,
                St::Word => self.word(sink, chunk, i)?,
                St::NegInf { pos } => {
                    self.neg_infinity(sink, chunk[i], at, pos)?;
                    i + 1
                }
                _ => self.structural(sink, chunk, i)?,
            };
        }
        Ok(())
    }

    /// Ends the input: flushes a number or word at the very end, closes an open top-level
    /// array where the options allow it, and fails if the text stopped inside a value.
    pub fn finish(&mut self, sink: &mut impl Sink) -> Result<(), JsonError> {
        self.ending = true;
        if let Some(carry) = self.carry.take() {
            // The text ends inside a character: it is shown as its first byte.
            let end = self.consumed;
            self.consumed = carry.at;
            self.run(carry.bytes(), sink)?;
            self.consumed = end;
        }
        if let Some(at) = self.slash.take() {
            // A `/` before the end opens no comment: it is simply out of place.
            self.on_byte(sink, b"/", at)?;
        }
        let end = self.consumed;
        self.end_token(sink, end).map_err(|mut e| {
            if e.kind == ErrorKind::Syntax {
                e.kind = ErrorKind::CutShort;
            }
            e
        })?;
        let open_top_array = self.opts.open_top_array
            && self.stack.as_slice() == [Frame::Array]
            && matches!(self.st, St::CommaOrEnd | St::ValueOrEnd | St::ArrayNext);
        if open_top_array {
            self.close(sink, end)?;
        }
        let cut = |at: u64, message: String| Err(JsonError::new(at, ErrorKind::CutShort, message));
        match self.st {
            St::Done => Ok(()),
            St::Value if self.stack.is_empty() => Err(JsonError::new(
                end,
                ErrorKind::Empty,
                "no JSON value: the text is empty",
            )),
            St::KeyOrEnd | St::Key => cut(end, "unterminated object: expected a key or `}`".into()),
            St::Colon => cut(end, self.colon_message("end of text")),
            St::CommaOrEnd if self.stack.last() == Some(&Frame::Object) => {
                cut(end, "unterminated object: expected `,` or `}`".into())
            }
            St::CommaOrEnd => cut(end, "unterminated array: expected `,` or `]`".into()),
            St::Str { .. } | St::Esc { .. } => {
                cut(self.start, "unterminated string: no closing `\"`".into())
            }
            St::Unicode { .. } => cut(
                end,
                "expected 4 hex digits after \\u, found end of text".into(),
            ),
            _ => cut(end, "expected a value, found the end of the text".into()),
        }
    }

    /// At the end of the input: the number or word being read ends there.
    fn end_token(&mut self, sink: &mut impl Sink, end: u64) -> Result<(), JsonError> {
        match self.st {
            St::Num(Num::Minus) => self.fail(end, "expected a digit after `-`"),
            St::Num(Num::Point) => self.fail(end, "expected a digit after the decimal point"),
            St::Num(Num::E | Num::ESign) => self.fail(end, "expected a digit in the exponent"),
            St::Num(_) => self.emit_number(sink, end),
            St::Word => self.end_word(sink, end),
            St::NegInf { .. } => self.fail(self.start + 1, "expected a digit after `-`"),
            _ => Ok(()),
        }
    }

    /// Between tokens: skips whitespace, refuses comments, and reads the byte at `i`.
    #[inline(always)]
    fn structural(
        &mut self,
        sink: &mut impl Sink,
        chunk: &[u8],
        i: usize,
    ) -> Result<usize, JsonError> {
        let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
        if ws(chunk[i]) {
            // Runs of indentation: skip them in one go.
            let run = chunk[i..].iter().position(|&c| !ws(c));
            return Ok(run.map_or(chunk.len(), |r| i + r));
        }
        if self.cut_char(chunk, i) {
            return Ok(chunk.len());
        }
        let at = self.consumed + i as u64;
        if chunk[i] == b'/' {
            match chunk.get(i + 1) {
                Some(b'/' | b'*') => return self.fail(at, "comments are not JSON: remove them"),
                None => {
                    self.slash = Some(at);
                    return Ok(i + 1);
                }
                Some(_) => {}
            }
        }
        self.on_byte(sink, &chunk[i..], at)?;
        Ok(i + 1)
    }

    /// Whether `chunk[i]` starts a non-ASCII character that the chunk cuts, where such a
    /// character can only be an error (outside strings), whose message shows it: then it waits,
    /// carried, for the next chunk.
    #[inline(always)]
    fn cut_char(&mut self, chunk: &[u8], i: usize) -> bool {
        let cut = chunk[i] >= 0x80 && !self.ending && incomplete_char(&chunk[i..]);
        if cut {
            self.carry = Some(Carry::new(self.consumed + i as u64, &chunk[i..]));
        }
        cut
    }

    /// The byte after a `/` that ended the previous chunk: a comment, or a misplaced `/`.
    fn after_slash(&mut self, sink: &mut impl Sink, next: u8, at: u64) -> Result<(), JsonError> {
        if matches!(next, b'/' | b'*') {
            return self.fail(at, "comments are not JSON: remove them");
        }
        self.on_byte(sink, b"/", at)
    }

    /// Reads the byte that starts `rest` (not whitespace) between tokens.
    #[inline(always)]
    fn on_byte(&mut self, sink: &mut impl Sink, rest: &[u8], at: u64) -> Result<(), JsonError> {
        let b = rest[0];
        match self.st {
            St::ValueOrEnd if b == b']' => self.close(sink, at),
            St::KeyOrEnd if b == b'}' => self.close(sink, at),
            St::ArrayNext if b == b']' => {
                self.fail(at, "trailing comma before `]` (JSON allows none)")
            }
            St::Key if b == b'}' => self.fail(at, "trailing comma before `}` (JSON allows none)"),
            St::Value | St::ValueOrEnd | St::ArrayNext => self.start_value(sink, rest, at),
            St::KeyOrEnd | St::Key => self.start_key(rest, at),
            St::Colon if b == b':' => {
                self.st = St::Value;
                Ok(())
            }
            St::Colon => self.fail(at, self.colon_message(&describe(rest))),
            St::CommaOrEnd => self.comma_or_end(sink, rest, at),
            _ => self.fail(
                at,
                format!(
                    "unexpected {} after the JSON value (one value per text)",
                    describe(rest)
                ),
            ),
        }
    }

    /// The message for a missing `:` (the key just read is still in the buffer).
    fn colon_message(&self, found: &str) -> String {
        format!(
            "expected `:` after the key \"{}\", found {found}",
            clip_text(&String::from_utf8_lossy(&self.buf), 40)
        )
    }

    #[inline(always)]
    fn comma_or_end(
        &mut self,
        sink: &mut impl Sink,
        rest: &[u8],
        at: u64,
    ) -> Result<(), JsonError> {
        match (self.stack.last(), rest[0]) {
            (Some(Frame::Object), b',') => {
                self.st = St::Key;
                Ok(())
            }
            (Some(Frame::Object), b'}') | (Some(Frame::Array), b']') => self.close(sink, at),
            (Some(Frame::Object), _) => self.fail(
                at,
                format!(
                    "expected `,` or `}}` after an object member, found {}",
                    describe(rest)
                ),
            ),
            (_, b',') => {
                self.st = St::ArrayNext;
                Ok(())
            }
            _ => self.fail(
                at,
                format!(
                    "expected `,` or `]` after an array element, found {}",
                    describe(rest)
                ),
            ),
        }
    }

    /// Starts a value at the byte that starts `rest`.
    #[inline(always)]
    fn start_value(&mut self, sink: &mut impl Sink, rest: &[u8], at: u64) -> Result<(), JsonError> {
        let b = rest[0];
        self.start = at;
        self.st = match b {
            b'{' => return self.open(sink, at, Frame::Object),
            b'[' => return self.open(sink, at, Frame::Array),
            b'"' => St::Str { key: false },
            b'-' => St::Num(Num::Minus),
            b'0' => St::Num(Num::Zero),
            b'1'..=b'9' => St::Num(Num::Int),
            b'\'' => {
                return self.fail(at, "strings use double quotes (\"...\"), not single quotes")
            }
            _ if b.is_ascii_alphabetic() => St::Word,
            _ => {
                return self.fail(
                    at,
                    format!(
                        "expected a value (an object, array, string, number, true, false or null), found {}",
                        describe(rest)
                    ),
                )
            }
        };
        self.buf.clear();
        if b != b'"' {
            self.buf.push(b);
        }
        Ok(())
    }

    /// Starts an object key at the byte that starts `rest`.
    #[inline(always)]
    fn start_key(&mut self, rest: &[u8], at: u64) -> Result<(), JsonError> {
        match rest[0] {
            b'"' => {
                self.buf.clear();
                self.start = at;
                self.st = St::Str { key: true };
                Ok(())
            }
            b'\'' => self.fail(at, "keys use double quotes (\"...\"), not single quotes"),
            _ => self.fail(
                at,
                format!("expected a key in double quotes, found {}", describe(rest)),
            ),
        }
    }

    #[inline(always)]
    fn open(&mut self, sink: &mut impl Sink, at: u64, f: Frame) -> Result<(), JsonError> {
        let max = self.opts.max_depth;
        if self.stack.len() >= max {
            let message = format!("nested deeper than {max} levels");
            return Err(JsonError::new(at, ErrorKind::TooDeep, message));
        }
        self.stack.push(f);
        let (st, t) = match f {
            Frame::Object => (St::KeyOrEnd, Token::BeginObject),
            Frame::Array => (St::ValueOrEnd, Token::BeginArray),
        };
        self.st = st;
        self.emit(sink, at, t)
    }

    /// Closes the innermost container (the caller checked that the bracket matches).
    #[inline(always)]
    fn close(&mut self, sink: &mut impl Sink, at: u64) -> Result<(), JsonError> {
        let t = match self.stack.pop() {
            Some(Frame::Object) => Token::EndObject,
            _ => Token::EndArray,
        };
        self.after_value();
        self.emit(sink, at, t)
    }
}

pub(crate) mod fast;
mod scalars;
