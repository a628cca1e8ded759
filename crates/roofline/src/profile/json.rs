//! Over 600 lines only with its unit tests: the tokenizer itself ends where `mod tests` begins.
//!
//! A small streaming JSON tokenizer: bytes go in as chunks of any size (a chunk may end inside a
//! string, a number, an escape or a multi-byte character), tokens come out through a [`Sink`].
//!
//! It keeps an explicit stack of open containers (one byte each, at most [`MAX_DEPTH`]), so deep
//! nesting costs memory, never the call stack, and it never panics: every malformed input is a
//! [`JsonError`] naming the byte offset. It is lenient where real traces need it:
//!
//! * `NaN`, `Infinity` and `-Infinity` are read as numbers (Python's `json.dumps` writes them);
//! * control characters inside strings are kept as they are;
//! * invalid UTF-8 inside a string is replaced by U+FFFD, as are lone surrogate escapes;
//! * a top-level array may stay open at the end (the Trace Event Format's "JSON Array Format"
//!   allows a trace to end without its closing `]`, after a trailing comma or not).

/// Deepest nesting accepted.
pub(crate) const MAX_DEPTH: usize = 1000;

/// One lexical element of a JSON text. Strings are unescaped; numbers are their text (checked
/// against the JSON grammar, or `NaN`, `inf`, `-inf`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Token<'a> {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    /// An object key.
    Key(&'a str),
    /// A string value.
    Str(&'a str),
    /// A number value, as written (`12`, `-3.5e2`), or `NaN`, `inf`, `-inf`.
    Num(&'a str),
    Bool(bool),
    Null,
}

/// Receives tokens. An `Err` stops the tokenizer; its message is reported with the offset.
pub(crate) trait Sink {
    fn token(&mut self, t: Token<'_>) -> Result<(), String>;
}

/// What went wrong, and where (bytes from the start of the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub offset: u64,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
}

/// The literals, by index in [`Lit`].
const LITERALS: [&[u8]; 5] = [b"true", b"false", b"null", b"NaN", b"Infinity"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// A value must come (the start, after `:`, after `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
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
    Num,
    /// Inside a literal: `LITERALS[word]`, `pos` bytes matched; `neg` for `-Infinity`.
    Lit { word: u8, pos: u8, neg: bool },
    /// After the top-level value: only whitespace may follow.
    Done,
}

/// The tokenizer. Feed it chunks with [`Tokenizer::feed`], then call [`Tokenizer::finish`].
pub(crate) struct Tokenizer {
    st: St,
    stack: Vec<Frame>,
    buf: Vec<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    consumed: u64,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::new()
    }
}

fn show_byte(b: u8) -> String {
    match b {
        b'\n' => "a line break".into(),
        b'\r' => "a carriage return".into(),
        b'\t' => "a tab".into(),
        0x20..=0x7e => format!("`{}`", b as char),
        _ => format!("byte 0x{b:02x}"),
    }
}

/// Whether `t` follows the JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn valid_number(t: &[u8]) -> bool {
    let mut i = usize::from(t.first() == Some(&b'-'));
    let int_start = i;
    while i < t.len() && t[i].is_ascii_digit() {
        i += 1;
    }
    let int_len = i - int_start;
    if int_len == 0 || (int_len > 1 && t[int_start] == b'0') {
        return false;
    }
    if i < t.len() && t[i] == b'.' {
        i += 1;
        let s = i;
        while i < t.len() && t[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        i += 1;
        if i < t.len() && (t[i] == b'+' || t[i] == b'-') {
            i += 1;
        }
        let s = i;
        while i < t.len() && t[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    i == t.len()
}

/// The index of the first `"` or `\\` in `s`, eight bytes at a time (the classic "has a zero
/// byte" bit trick on `s ^ 0x22…` and `s ^ 0x5c…`): strings (kernel names of hundreds of
/// characters) are most of a trace.
fn find_quote_or_backslash(s: &[u8]) -> Option<usize> {
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

fn hex(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

fn push_char(buf: &mut Vec<u8>, c: u32) {
    let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
    let mut tmp = [0u8; 4];
    buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
}

impl Tokenizer {
    pub(crate) fn new() -> Self {
        Tokenizer {
            st: St::Value,
            stack: Vec::new(),
            buf: Vec::new(),
            high: None,
            consumed: 0,
        }
    }

    /// The state after a complete value.
    fn after_value(&mut self) {
        self.st = if self.stack.is_empty() {
            St::Done
        } else {
            St::CommaOrEnd
        };
    }

    fn err<T>(&self, at: usize, message: impl Into<String>) -> Result<T, JsonError> {
        Err(JsonError {
            offset: self.consumed + at as u64,
            message: message.into(),
        })
    }

    fn emit(&self, sink: &mut impl Sink, at: usize, t: Token<'_>) -> Result<(), JsonError> {
        sink.token(t).map_err(|message| JsonError {
            offset: self.consumed + at as u64,
            message,
        })
    }

    /// Flushes a pending lone high surrogate into the string buffer as U+FFFD.
    fn flush_high(&mut self) {
        if self.high.take().is_some() {
            push_char(&mut self.buf, 0xFFFD);
        }
    }

    fn emit_string(&mut self, sink: &mut impl Sink, at: usize, key: bool) -> Result<(), JsonError> {
        self.flush_high();
        let buf = std::mem::take(&mut self.buf);
        let res = match std::str::from_utf8(&buf) {
            Ok(s) => self.emit(sink, at, if key { Token::Key(s) } else { Token::Str(s) }),
            Err(_) => {
                let s = String::from_utf8_lossy(&buf);
                self.emit(sink, at, if key { Token::Key(&s) } else { Token::Str(&s) })
            }
        };
        self.buf = buf;
        self.buf.clear();
        res
    }

    fn emit_number(&mut self, sink: &mut impl Sink, at: usize) -> Result<(), JsonError> {
        if !valid_number(&self.buf) {
            let shown = String::from_utf8_lossy(&self.buf[..self.buf.len().min(40)]).into_owned();
            return self.err(at, format!("`{shown}` is not a number"));
        }
        let buf = std::mem::take(&mut self.buf);
        // Only ASCII digits and signs: always UTF-8.
        let res = self.emit(
            sink,
            at,
            Token::Num(std::str::from_utf8(&buf).unwrap_or("0")),
        );
        self.buf = buf;
        self.buf.clear();
        res
    }

    fn open(&mut self, sink: &mut impl Sink, at: usize, f: Frame) -> Result<(), JsonError> {
        if self.stack.len() >= MAX_DEPTH {
            return self.err(at, format!("nested deeper than {MAX_DEPTH} levels"));
        }
        self.stack.push(f);
        match f {
            Frame::Object => {
                self.st = St::KeyOrEnd;
                self.emit(sink, at, Token::BeginObject)
            }
            Frame::Array => {
                self.st = St::ValueOrEnd;
                self.emit(sink, at, Token::BeginArray)
            }
        }
    }

    fn close(&mut self, sink: &mut impl Sink, at: usize, f: Frame) -> Result<(), JsonError> {
        if self.stack.last() != Some(&f) {
            return self.err(at, "a closing bracket that does not match the open one");
        }
        self.stack.pop();
        self.after_value();
        self.emit(
            sink,
            at,
            match f {
                Frame::Object => Token::EndObject,
                Frame::Array => Token::EndArray,
            },
        )
    }

    /// Starts a value at byte `b`.
    fn start_value(&mut self, sink: &mut impl Sink, at: usize, b: u8) -> Result<(), JsonError> {
        match b {
            b'{' => self.open(sink, at, Frame::Object),
            b'[' => self.open(sink, at, Frame::Array),
            b'"' => {
                self.buf.clear();
                self.st = St::Str { key: false };
                Ok(())
            }
            b'-' | b'0'..=b'9' => {
                self.buf.clear();
                self.buf.push(b);
                self.st = St::Num;
                Ok(())
            }
            _ => match LITERALS.iter().position(|w| w[0] == b) {
                Some(word) => {
                    self.st = St::Lit {
                        word: word as u8,
                        pos: 1,
                        neg: false,
                    };
                    Ok(())
                }
                None => self.err(at, format!("expected a value but found {}", show_byte(b))),
            },
        }
    }

    fn literal_done(
        &mut self,
        sink: &mut impl Sink,
        at: usize,
        word: u8,
        neg: bool,
    ) -> Result<(), JsonError> {
        self.after_value();
        let t = match word {
            0 => Token::Bool(true),
            1 => Token::Bool(false),
            2 => Token::Null,
            3 => Token::Num("NaN"),
            _ if neg => Token::Num("-inf"),
            _ => Token::Num("inf"),
        };
        self.emit(sink, at, t)
    }

    /// Feeds the next chunk.
    pub(crate) fn feed(&mut self, chunk: &[u8], sink: &mut impl Sink) -> Result<(), JsonError> {
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            match self.st {
                St::Str { key } => {
                    // Fast path: copy up to the next quote or backslash.
                    let rest = &chunk[i..];
                    match find_quote_or_backslash(rest) {
                        None => {
                            if self.high.is_some() {
                                self.flush_high();
                            }
                            self.buf.extend_from_slice(rest);
                            i = chunk.len();
                            continue;
                        }
                        Some(p) => {
                            if p > 0 {
                                self.flush_high();
                                self.buf.extend_from_slice(&rest[..p]);
                            }
                            i += p;
                            if chunk[i] == b'"' {
                                self.emit_string(sink, i, key)?;
                                if key {
                                    self.st = St::Colon;
                                } else {
                                    self.after_value();
                                }
                            } else {
                                self.st = St::Esc { key };
                            }
                        }
                    }
                }
                St::Esc { key } => {
                    let c = match b {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => return self.err(i, format!("unknown escape \\{}", show_byte(b))),
                    };
                    match c {
                        Some(c) => {
                            self.flush_high();
                            self.buf.push(c);
                            self.st = St::Str { key };
                        }
                        None => self.st = St::Unicode { key, n: 0, code: 0 },
                    }
                }
                St::Unicode { key, n, code } => {
                    let Some(d) = hex(b) else {
                        return self.err(
                            i,
                            format!("expected a hex digit in \\u but found {}", show_byte(b)),
                        );
                    };
                    let code = code * 16 + d;
                    if n < 3 {
                        self.st = St::Unicode {
                            key,
                            n: n + 1,
                            code,
                        };
                    } else {
                        if (0xDC00..0xE000).contains(&code) {
                            match self.high.take() {
                                Some(h) => push_char(
                                    &mut self.buf,
                                    0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00),
                                ),
                                None => push_char(&mut self.buf, 0xFFFD),
                            }
                        } else {
                            self.flush_high();
                            if (0xD800..0xDC00).contains(&code) {
                                self.high = Some(code);
                            } else {
                                push_char(&mut self.buf, code);
                            }
                        }
                        self.st = St::Str { key };
                    }
                }
                St::Num => {
                    let run = chunk[i..]
                        .iter()
                        .position(|&c| !matches!(c, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                        .unwrap_or(chunk.len() - i);
                    if run > 0 {
                        if self.buf.len() + run > 400 {
                            return self.err(i, "a number longer than 400 characters");
                        }
                        self.buf.extend_from_slice(&chunk[i..i + run]);
                        i += run;
                        continue;
                    }
                    if b == b'I' && self.buf == b"-" {
                        self.st = St::Lit {
                            word: 4,
                            pos: 1,
                            neg: true,
                        };
                    } else {
                        self.emit_number(sink, i)?;
                        self.after_value();
                        continue; // `b` is read again in the new state
                    }
                }
                St::Lit { word, pos, neg } => {
                    let w = LITERALS[word as usize];
                    if w.get(pos as usize) != Some(&b) {
                        return self.err(
                            i,
                            format!(
                                "expected `{}` but found {}",
                                String::from_utf8_lossy(w),
                                show_byte(b)
                            ),
                        );
                    }
                    if pos as usize + 1 == w.len() {
                        self.literal_done(sink, i, word, neg)?;
                    } else {
                        self.st = St::Lit {
                            word,
                            pos: pos + 1,
                            neg,
                        };
                    }
                }
                _ if matches!(b, b' ' | b'\t' | b'\n' | b'\r') => {
                    // Runs of indentation: skip them in one go.
                    i += 1;
                    while i < chunk.len() && matches!(chunk[i], b' ' | b'\t' | b'\n' | b'\r') {
                        i += 1;
                    }
                    continue;
                }
                St::Value => self.start_value(sink, i, b)?,
                St::ValueOrEnd => {
                    if b == b']' {
                        self.close(sink, i, Frame::Array)?;
                    } else {
                        self.start_value(sink, i, b)?;
                    }
                }
                St::KeyOrEnd | St::Key => {
                    if b == b'"' {
                        self.buf.clear();
                        self.st = St::Str { key: true };
                    } else if b == b'}' && self.st == St::KeyOrEnd {
                        self.close(sink, i, Frame::Object)?;
                    } else {
                        return self.err(
                            i,
                            format!("expected a key in quotes but found {}", show_byte(b)),
                        );
                    }
                }
                St::Colon => {
                    if b != b':' {
                        return self.err(
                            i,
                            format!("expected `:` after a key but found {}", show_byte(b)),
                        );
                    }
                    self.st = St::Value;
                }
                St::CommaOrEnd => match (b, self.stack.last()) {
                    (b',', Some(Frame::Object)) => self.st = St::Key,
                    (b',', _) => self.st = St::Value,
                    (b'}', _) => self.close(sink, i, Frame::Object)?,
                    (b']', _) => self.close(sink, i, Frame::Array)?,
                    _ => {
                        let close = if self.stack.last() == Some(&Frame::Object) {
                            '}'
                        } else {
                            ']'
                        };
                        return self.err(
                            i,
                            format!("expected `,` or `{close}` but found {}", show_byte(b)),
                        );
                    }
                },
                St::Done => {
                    return self.err(
                        i,
                        format!(
                            "unexpected {} after the end of the JSON value",
                            show_byte(b)
                        ),
                    )
                }
            }
            i += 1;
        }
        self.consumed += chunk.len() as u64;
        Ok(())
    }

    /// Ends the input: flushes a number at the very end, closes an unterminated top-level
    /// array (see the module docs), and fails if the text stopped inside a value.
    pub(crate) fn finish(&mut self, sink: &mut impl Sink) -> Result<(), JsonError> {
        if self.st == St::Num {
            if !valid_number(&self.buf) {
                return self.err(0, "the text ends inside a number: the file was cut short");
            }
            self.emit_number(sink, 0)?;
            self.after_value();
        }
        let open_top_array = self.stack.len() == 1
            && self.stack[0] == Frame::Array
            && matches!(self.st, St::CommaOrEnd | St::Value | St::ValueOrEnd);
        if open_top_array {
            self.close(sink, 0, Frame::Array)?;
        }
        match self.st {
            St::Done => Ok(()),
            St::Value if self.stack.is_empty() => self.err(0, "the text is empty"),
            St::Str { .. } | St::Esc { .. } | St::Unicode { .. } => {
                self.err(0, "the text ends inside a string: the file was cut short")
            }
            St::Lit { .. } => self.err(0, "the text ends inside a word: the file was cut short"),
            _ => self.err(
                0,
                format!(
                    "the text ends inside {} open bracket{}: the file was cut short",
                    self.stack.len(),
                    if self.stack.len() == 1 { "" } else { "s" }
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<String>);
    impl Sink for Collect {
        fn token(&mut self, t: Token<'_>) -> Result<(), String> {
            self.0.push(match t {
                Token::BeginObject => "{".into(),
                Token::EndObject => "}".into(),
                Token::BeginArray => "[".into(),
                Token::EndArray => "]".into(),
                Token::Key(k) => format!("K:{k}"),
                Token::Str(s) => format!("S:{s}"),
                Token::Num(n) => format!("N:{n}"),
                Token::Bool(b) => format!("B:{b}"),
                Token::Null => "null".into(),
            });
            Ok(())
        }
    }

    fn tokens(text: &[u8], chunk: usize) -> Result<Vec<String>, JsonError> {
        let mut t = Tokenizer::new();
        let mut c = Collect::default();
        for part in text.chunks(chunk.max(1)) {
            t.feed(part, &mut c)?;
        }
        t.finish(&mut c)?;
        Ok(c.0)
    }

    #[test]
    fn reads_every_kind_of_token_in_any_chunking() {
        let text = br#" {"a": [1, -2.5e3, true, false, null, "x\"\\\/\n\u00e9\ud83d\ude00"], "b": {}, "c": [], "d": NaN, "e": -Infinity} "#;
        let want = tokens(text, text.len()).unwrap();
        assert_eq!(
            want.join(" "),
            "{ K:a [ N:1 N:-2.5e3 B:true B:false null S:x\"\\/\né😀 ] K:b { } K:c [ ] K:d N:NaN K:e N:-inf }"
        );
        for chunk in 1..text.len() {
            assert_eq!(tokens(text, chunk).unwrap(), want, "chunk {chunk}");
        }
    }

    #[test]
    fn multibyte_characters_split_across_chunks_survive() {
        let text = "[\"日本語 ü 😀\"]".as_bytes();
        for chunk in 1..6 {
            assert_eq!(tokens(text, chunk).unwrap()[1], "S:日本語 ü 😀");
        }
    }

    #[test]
    fn malformed_input_is_an_error_with_its_offset() {
        let cases: &[(&[u8], u64, &str)] = &[
            (b"{\"a\": [1, 2", 0, "cut short"),
            (b"{\"a\" 1}", 5, "expected `:`"),
            (b"[01]", 3, "not a number"),
            (b"[1.]", 3, "not a number"),
            (b"[tru]", 4, "expected `true`"),
            (b"{\"a\":1]", 6, "does not match"),
            (b"[1] x", 4, "after the end"),
            (b"[\"\\x\"]", 3, "unknown escape"),
            (b"[\"\\u12G4\"]", 6, "hex digit"),
            (b"", 0, "empty"),
            (b"  ", 0, "empty"),
            (b"{\"a\": \"cut", 0, "inside a string"),
            (b"{,}", 1, "expected a key"),
        ];
        for (text, offset, msg) in cases {
            let e = tokens(text, 64).unwrap_err();
            assert!(
                e.message.contains(msg),
                "{:?}: {}",
                String::from_utf8_lossy(text),
                e.message
            );
            if *offset > 0 {
                assert_eq!(e.offset, *offset, "{:?}", String::from_utf8_lossy(text));
            }
        }
    }

    #[test]
    fn an_unterminated_top_level_array_is_closed() {
        assert_eq!(
            tokens(b"[{\"a\":1},", 64).unwrap().join(" "),
            "[ { K:a N:1 } ]"
        );
        assert_eq!(
            tokens(b"[{\"a\":1}", 64).unwrap().join(" "),
            "[ { K:a N:1 } ]"
        );
        assert!(tokens(b"{\"t\":[{\"a\":1},", 64).is_err());
    }

    #[test]
    fn the_quote_finder_agrees_with_a_plain_search() {
        let mut text: Vec<u8> = Vec::new();
        for i in 0..300u32 {
            text.push([b'a', 0x80, 0xff, 0x21, 0x23, 0x5b, 0x5d, 0x01, 0x00][(i * 7 % 9) as usize]);
        }
        for at in 0..text.len() {
            for q in [b'"', b'\\'] {
                let mut t = text.clone();
                t[at] = q;
                for start in [0, 1, 5, 9] {
                    let s = &t[start.min(at)..];
                    let want = s.iter().position(|&c| c == b'"' || c == b'\\');
                    assert_eq!(find_quote_or_backslash(s), want, "at {at} start {start}");
                }
            }
        }
        assert_eq!(find_quote_or_backslash(&text), None);
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let e = tokens(deep.as_bytes(), 7).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{}", e.message);
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(tokens(ok.as_bytes(), 3).unwrap().len(), 2 * MAX_DEPTH);
    }

    #[test]
    fn lone_surrogates_and_bad_utf8_become_replacement_characters() {
        let t = tokens(b"[\"a\\ud800b\", \"\\udc00\", \"\xff\"]", 64).unwrap();
        assert_eq!(t[1], "S:a\u{FFFD}b");
        assert_eq!(t[2], "S:\u{FFFD}");
        assert_eq!(t[3], "S:\u{FFFD}");
    }
}
