//! One trace event read whole from the slice (issue 43), not token by token: where an event
//! object of `traceEvents` lies whole in what the tokenizer holds, the trace reader reads its
//! members straight from the text, calling the same handlers the tokens call (`scalar`, the
//! `Ev::dims_*` steps, `finish_event`), in the same order. It takes only plain JSON: strings
//! without escapes or control characters, numbers of at most 64 characters, `true`, `false`,
//! `null`, nesting within the tokenizer's limit. On anything else (or an event cut by the
//! slice's end) it reads nothing and the tokenizer reads the event from its `{`, which resets
//! the event being built: the records and the messages stay the same however the file is
//! sliced.

use super::{Ctx, Key, TraceSink};
use crate::json::fast::{number_len, whole_string};
use crate::json::Token;

/// Longest number read here (longer ones go to the tokenizer, which has its own limit).
const MAX_NUMBER: usize = 64;

/// A cursor over the text from the event's `{`.
struct Cur<'a> {
    text: &'a str,
    i: usize,
}

impl<'a> Cur<'a> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.i).copied()
    }

    #[inline(always)]
    fn ws(&mut self) {
        let b = self.text.as_bytes();
        while self.i < b.len() && matches!(b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    /// `c`, then the blanks after it.
    #[inline(always)]
    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then_some(())?;
        self.i += 1;
        self.ws();
        Some(())
    }

    /// A string at the cursor (its opening quote), without escapes or control characters.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a str> {
        (self.peek()? == b'"').then_some(())?;
        let (s, end) = whole_string(self.text.as_bytes(), self.text, self.i, false)?;
        self.i = end + 1;
        Some(s)
    }

    /// A string, number or literal at the cursor.
    #[inline(always)]
    fn scalar(&mut self) -> Option<Token<'a>> {
        let b = self.text.as_bytes();
        let rest = &b[self.i..];
        let (t, n) = match *rest.first()? {
            b'"' => return self.string().map(Token::Str),
            b'-' | b'0'..=b'9' => {
                let n = number_len(rest).filter(|&n| n <= MAX_NUMBER)?;
                (Token::Num(self.text.get(self.i..self.i + n)?), n)
            }
            b't' if rest.starts_with(b"true") => (Token::Bool(true), 4),
            b'f' if rest.starts_with(b"false") => (Token::Bool(false), 5),
            b'n' if rest.starts_with(b"null") => (Token::Null, 4),
            _ => return None,
        };
        if !matches!(t, Token::Num(_)) {
            // A literal must end where the word does (`nullx` is the tokenizer's to refuse).
            let next = *rest.get(n)?;
            if next.is_ascii_alphanumeric() || next == b'_' {
                return None;
            }
        }
        self.i += n;
        Some(t)
    }

    /// The `,` between members or elements (`true`), or the closing `close` (`false`).
    #[inline(always)]
    fn next_or_end(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let c = self.peek()?;
        self.i += 1;
        self.ws();
        match c {
            b',' => Some(true),
            _ if c == close => Some(false),
            _ => None,
        }
    }

    /// Any value, checked and passed over; `room`: the levels of nesting it may open.
    fn skip(&mut self, room: usize) -> Option<()> {
        let close = match self.peek()? {
            b'{' => b'}',
            b'[' => b']',
            _ => return self.scalar().map(|_| ()),
        };
        if room == 0 {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Some(());
        }
        loop {
            if close == b'}' {
                self.string()?;
                self.ws();
                self.expect(b':')?;
            }
            self.skip(room - 1)?;
            if !self.next_or_end(close)? {
                return Some(());
            }
        }
    }
}

impl TraceSink {
    /// Reads the event object that starts `text` (its `{`) if it is whole and plain there;
    /// `room`: the levels of nesting the tokenizer would still open. Returns its length.
    pub(super) fn read_event(&mut self, text: &str, room: usize) -> Option<usize> {
        if room == 0 {
            return None;
        }
        let mut c = Cur { text, i: 1 };
        c.ws();
        self.ev.reset();
        if c.peek()? == b'}' {
            c.i += 1;
        } else {
            loop {
                let k = c.string()?;
                c.ws();
                c.expect(b':')?;
                let key = self.classify(Some(Ctx::Event), k);
                match c.peek()? {
                    b'{' if key == Key::Args => self.read_args(&mut c, room - 1)?,
                    b'{' | b'[' => c.skip(room - 1)?,
                    _ => {
                        let t = c.scalar()?;
                        self.key = key;
                        self.scalar(Some(Ctx::Event), t);
                    }
                }
                if !c.next_or_end(b'}')? {
                    break;
                }
            }
        }
        self.key = Key::Other;
        self.finish_event();
        Some(c.i)
    }

    /// The event's `args` object, at the cursor.
    fn read_args(&mut self, c: &mut Cur<'_>, room: usize) -> Option<()> {
        if room == 0 {
            return None;
        }
        c.expect(b'{')?;
        if c.peek()? == b'}' {
            c.i += 1;
            return Some(());
        }
        loop {
            let k = c.string()?;
            c.ws();
            c.expect(b':')?;
            let key = self.classify(Some(Ctx::Args), k);
            match (c.peek()?, key) {
                (b'[', Key::InputDims) => {
                    self.ev.dims_begin();
                    self.read_dims(c, room - 1)?;
                }
                (b'[', Key::InputType) => {
                    self.ev.types.clear();
                    self.read_types(c, room - 1)?;
                }
                (b'{' | b'[', _) => c.skip(room - 1)?,
                _ => {
                    let t = c.scalar()?;
                    self.key = key;
                    self.scalar(Some(Ctx::Args), t);
                }
            }
            if !c.next_or_end(b'}')? {
                return Some(());
            }
        }
    }

    /// A list inside `Input Dims`, at the cursor (its `[`, already begun or opened).
    fn read_dims(&mut self, c: &mut Cur<'_>, room: usize) -> Option<()> {
        if room == 0 {
            return None;
        }
        c.expect(b'[')?;
        if c.peek()? != b']' {
            loop {
                match c.peek()? {
                    b'[' => {
                        self.ev.dims_open();
                        self.read_dims(c, room - 1)?;
                    }
                    b'{' => {
                        self.ev.dims_scalar(Token::Null);
                        c.skip(room - 1)?;
                    }
                    _ => {
                        let t = c.scalar()?;
                        self.ev.dims_scalar(t);
                    }
                }
                if !c.next_or_end(b']')? {
                    break;
                }
            }
        } else {
            c.i += 1;
        }
        self.ev.dims_close();
        Some(())
    }

    /// The list of `Input type`, at the cursor.
    fn read_types(&mut self, c: &mut Cur<'_>, room: usize) -> Option<()> {
        if room == 0 {
            return None;
        }
        c.expect(b'[')?;
        if c.peek()? == b']' {
            c.i += 1;
            return Some(());
        }
        loop {
            let size = match c.peek()? {
                b'{' | b'[' => {
                    c.skip(room - 1)?;
                    0
                }
                _ => match c.scalar()? {
                    Token::Str(s) => super::dtype_size(s),
                    _ => 0,
                },
            };
            self.ev.types.push(size);
            if !c.next_or_end(b']')? {
                return Some(());
            }
        }
    }
}
