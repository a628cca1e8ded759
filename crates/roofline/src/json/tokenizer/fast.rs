//! The tokenizer's fast lane (issue 43: a 50 MiB trace is some 15 million tokens). Between
//! tokens, it reads what is common and whole inside the chunk in one tight loop: whitespace,
//! brackets, commas and colons, strings without escapes (handed to the sink borrowed from the
//! chunk, never copied), numbers and `true`/`false`/`null` that end inside the chunk. Anything
//! else (an escape, a token the chunk cuts, a byte that is not JSON, a number too long) is left,
//! at the byte where it starts and with the state unchanged, to the byte-wise state machine, so
//! the tokens and the errors are the same as without the lane, however the text is sliced.

use super::{find_quote_or_backslash, is_word_byte, Frame, St, Tokenizer};
use crate::json::{JsonError, Sink, Token};

#[inline(always)]
fn ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The length of the JSON number that starts `s`, if it is whole and well formed and the byte
/// after it (which must be in `s`) cannot continue it; `None` for anything the state machine
/// must read (a cut number, `-Infinity`, a leading zero followed by a digit, `1.`, `1e`).
#[inline(always)]
pub(crate) fn number_len(s: &[u8]) -> Option<usize> {
    let digits = |from: usize| s[from..].iter().position(|c| !c.is_ascii_digit());
    let mut j = usize::from(s.first() == Some(&b'-'));
    match *s.get(j)? {
        b'0' => j += 1,
        b'1'..=b'9' => j += digits(j)?,
        _ => return None,
    }
    if *s.get(j)? == b'.' {
        let n = digits(j + 1)?;
        if n == 0 {
            return None;
        }
        j += 1 + n;
    }
    if matches!(*s.get(j)?, b'e' | b'E') {
        j += 1;
        if matches!(*s.get(j)?, b'+' | b'-') {
            j += 1;
        }
        let n = digits(j)?;
        if n == 0 {
            return None;
        }
        j += n;
    }
    // After a leading zero a digit is an error; `.`, `e` after a complete part too.
    let next = *s.get(j)?;
    (!next.is_ascii_digit() && !matches!(next, b'.' | b'e' | b'E')).then_some(j)
}

/// The string that starts after the quote at `chunk[i]`, if it is whole in the chunk, has no
/// escape, and is valid UTF-8 (with no control character unless `raw_control_chars`): its text
/// and the offset of its closing quote in the chunk. `text` is the chunk's valid UTF-8 prefix.
#[inline(always)]
pub(crate) fn whole_string<'c>(
    chunk: &'c [u8],
    text: &'c str,
    i: usize,
    raw_control_chars: bool,
) -> Option<(&'c str, usize)> {
    let body = &chunk[i + 1..];
    let p = find_quote_or_backslash(body)?;
    if body[p] != b'"' {
        return None;
    }
    let bytes = &body[..p];
    if !raw_control_chars && bytes.iter().any(|&c| c < 0x20) {
        return None;
    }
    let end = i + 1 + p;
    let s = match text.get(i + 1..end) {
        Some(s) => s,
        None => std::str::from_utf8(bytes).ok()?,
    };
    Some((s, end))
}

impl Tokenizer {
    /// Reads from `chunk[i]` while the lane can; returns where the state machine takes over
    /// (the chunk's length when all was read).
    pub(super) fn fast(
        &mut self,
        sink: &mut impl Sink,
        chunk: &[u8],
        text: &str,
        mut i: usize,
    ) -> Result<usize, JsonError> {
        // An open high surrogate or a pending carry never reaches here between tokens.
        while i < chunk.len() {
            let b = chunk[i];
            if ws(b) {
                i += 1;
                continue;
            }
            let at = self.consumed + i as u64;
            match (self.st, b) {
                (St::Value | St::ValueOrEnd | St::ArrayNext, b'"') => {
                    let Some((s, end)) = whole_string(chunk, text, i, self.opts.raw_control_chars)
                    else {
                        return Ok(i);
                    };
                    self.start = at;
                    self.after_value();
                    self.emit(sink, self.consumed + end as u64, Token::Str(s))?;
                    i = end + 1;
                }
                (St::KeyOrEnd | St::Key, b'"') => {
                    let Some((s, end)) = whole_string(chunk, text, i, self.opts.raw_control_chars)
                    else {
                        return Ok(i);
                    };
                    self.start = at;
                    self.emit(sink, self.consumed + end as u64, Token::Key(s))?;
                    // The colon, when it follows at once (else the key is kept for the
                    // state machine's message).
                    let mut j = end + 1;
                    while j < chunk.len() && ws(chunk[j]) {
                        j += 1;
                    }
                    if chunk.get(j) == Some(&b':') {
                        self.st = St::Value;
                        i = j + 1;
                    } else {
                        self.buf.clear();
                        self.buf.extend_from_slice(s.as_bytes());
                        self.st = St::Colon;
                        i = end + 1;
                    }
                }
                (St::Value | St::ValueOrEnd | St::ArrayNext, b'-' | b'0'..=b'9') => {
                    let Some(n) = number_len(&chunk[i..]) else {
                        return Ok(i);
                    };
                    if n > self.opts.max_number_len {
                        return Ok(i);
                    }
                    // Only ASCII digits, signs, points and exponents.
                    let num = match text.get(i..i + n) {
                        Some(s) => s,
                        None => std::str::from_utf8(&chunk[i..i + n]).unwrap_or("0"),
                    };
                    self.start = at;
                    self.after_value();
                    self.emit(sink, at + n as u64, Token::Num(num))?;
                    i += n;
                }
                (St::Value | St::ValueOrEnd | St::ArrayNext, b't' | b'f' | b'n') => {
                    let rest = &chunk[i..];
                    let (t, n) = if rest.starts_with(b"true") {
                        (Token::Bool(true), 4)
                    } else if rest.starts_with(b"false") {
                        (Token::Bool(false), 5)
                    } else if rest.starts_with(b"null") {
                        (Token::Null, 4)
                    } else {
                        return Ok(i);
                    };
                    match rest.get(n) {
                        Some(&c) if !is_word_byte(c) => {}
                        _ => return Ok(i),
                    }
                    self.start = at;
                    self.after_value();
                    self.emit(sink, at + n as u64, t)?;
                    i += n;
                }
                (St::ValueOrEnd | St::ArrayNext, b'{') => {
                    // An object in an array: the sink may read it whole (a trace's event).
                    let room = self.opts.max_depth.saturating_sub(self.stack.len());
                    self.start = at;
                    match text.get(i..).and_then(|t| sink.object_in_array(t, room)) {
                        Some(n) => {
                            self.after_value();
                            i += n;
                        }
                        None => {
                            self.open(sink, at, Frame::Object)?;
                            i += 1;
                        }
                    }
                }
                (St::Value, b'{') => {
                    self.start = at;
                    self.open(sink, at, Frame::Object)?;
                    i += 1;
                }
                (St::Value | St::ValueOrEnd | St::ArrayNext, b'[') => {
                    self.start = at;
                    self.open(sink, at, Frame::Array)?;
                    i += 1;
                }
                (St::ValueOrEnd, b']') | (St::KeyOrEnd, b'}') => {
                    self.close(sink, at)?;
                    i += 1;
                }
                (St::CommaOrEnd, b',') => {
                    self.st = match self.stack.last() {
                        Some(Frame::Object) => St::Key,
                        _ => St::ArrayNext,
                    };
                    i += 1;
                }
                (St::CommaOrEnd, b'}' | b']') => {
                    let want = if b == b'}' {
                        Frame::Object
                    } else {
                        Frame::Array
                    };
                    if self.stack.last() != Some(&want) {
                        return Ok(i);
                    }
                    self.close(sink, at)?;
                    i += 1;
                }
                (St::Colon, b':') => {
                    self.st = St::Value;
                    i += 1;
                }
                _ => return Ok(i),
            }
        }
        Ok(i)
    }
}

#[cfg(test)]
mod tests {
    use super::number_len;

    #[test]
    fn numbers_whole_in_the_chunk_are_read_in_one_go() {
        assert_eq!(number_len(b"12,"), Some(2));
        assert_eq!(number_len(b"-0.5e+3]"), Some(7));
        assert_eq!(number_len(b"0 "), Some(1));
        assert_eq!(number_len(b"1234.000,"), Some(8));
        // Cut by the chunk, or for the state machine to refuse or read.
        assert_eq!(number_len(b"12"), None);
        assert_eq!(number_len(b"01,"), None);
        assert_eq!(number_len(b"1.,"), None);
        assert_eq!(number_len(b"1e,"), None);
        assert_eq!(number_len(b"1.5.2,"), None);
        assert_eq!(number_len(b"-Infinity,"), None);
        assert_eq!(number_len(b"-,"), None);
    }
}
