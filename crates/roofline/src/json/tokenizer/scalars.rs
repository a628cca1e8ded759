//! The tokenizer inside a scalar: strings (with their escapes), numbers and words.

use super::{
    find_quote_or_backslash, is_word_byte, push_char, Num, St, Tokenizer, INFINITY, MAX_WORD,
};
use crate::error::clip_text;
use crate::json::{describe, JsonError, Sink, Token};

impl Tokenizer {
    /// Flushes a pending lone high surrogate into the string buffer as U+FFFD.
    #[inline(always)]
    fn flush_high(&mut self) {
        if self.high.take().is_some() {
            push_char(&mut self.buf, 0xFFFD);
        }
    }

    /// Inside a string at `chunk[i]`: copies up to the next quote or backslash (or control
    /// character, where they are refused) in one go. Returns where to go on.
    #[inline(always)]
    pub(super) fn string(
        &mut self,
        sink: &mut impl Sink,
        chunk: &[u8],
        i: usize,
        key: bool,
    ) -> Result<usize, JsonError> {
        let rest = &chunk[i..];
        let stop = if self.opts.raw_control_chars {
            find_quote_or_backslash(rest)
        } else {
            rest.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        };
        let Some(p) = stop else {
            self.flush_high();
            self.buf.extend_from_slice(rest);
            return Ok(chunk.len());
        };
        if p > 0 {
            self.flush_high();
            self.buf.extend_from_slice(&rest[..p]);
        }
        let at = self.consumed + (i + p) as u64;
        match rest[p] {
            b'"' => {
                self.emit_string(sink, at, key)?;
                if key {
                    self.st = St::Colon;
                } else {
                    self.after_value();
                }
            }
            b'\\' => self.st = St::Esc { key },
            _ => {
                return self.fail(
                    at,
                    "control character inside a string (write it as an escape, e.g. \\n)",
                )
            }
        }
        Ok(i + p + 1)
    }

    /// Emits the string read; the buffer keeps it (a key is named if its `:` is missing).
    #[inline(always)]
    fn emit_string(&mut self, sink: &mut impl Sink, at: u64, key: bool) -> Result<(), JsonError> {
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
        res
    }

    /// The byte after a backslash, which starts `rest`.
    #[inline(always)]
    pub(super) fn escape(&mut self, rest: &[u8], at: u64, key: bool) -> Result<(), JsonError> {
        let c = match rest[0] {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                self.st = St::Unicode { key, n: 0, code: 0 };
                return Ok(());
            }
            _ => {
                return self.fail(
                    at,
                    format!(
                        "invalid escape `\\{}` (JSON escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                        describe(rest).trim_matches('`')
                    ),
                )
            }
        };
        self.flush_high();
        self.buf.push(c);
        self.st = St::Str { key };
        Ok(())
    }

    /// A byte of `\uXXXX` (`n` digits read, making `code`); a surrogate pair makes one
    /// character, a lone surrogate U+FFFD.
    pub(super) fn unicode(
        &mut self,
        rest: &[u8],
        at: u64,
        key: bool,
        n: u8,
        code: u32,
    ) -> Result<(), JsonError> {
        let Some(d) = char::from(rest[0]).to_digit(16) else {
            let found = describe(rest);
            return self.fail(
                at,
                format!("expected 4 hex digits after \\u, found {found}"),
            );
        };
        let code = code * 16 + d;
        if n < 3 {
            self.st = St::Unicode {
                key,
                n: n + 1,
                code,
            };
            return Ok(());
        }
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
        Ok(())
    }

    /// Inside a number at `chunk[i]`, having read `part` last: follows the JSON number
    /// grammar byte by byte, so an error names the first byte that breaks it.
    #[inline(always)]
    pub(super) fn number(
        &mut self,
        sink: &mut impl Sink,
        chunk: &[u8],
        i: usize,
        mut part: Num,
    ) -> Result<usize, JsonError> {
        let base = self.consumed;
        let at = |j: usize| base + j as u64;
        for (j, &b) in chunk.iter().enumerate().skip(i) {
            if b.is_ascii_digit() && matches!(part, Num::Int | Num::Frac | Num::Exp) {
                continue; // the common case first: another digit
            }
            part = match (part, b) {
                (Num::Minus, b'0') => Num::Zero,
                (Num::Minus, b'1'..=b'9') => Num::Int,
                (Num::Minus, b'I') => {
                    self.st = St::NegInf { pos: 1 };
                    return Ok(j + 1);
                }
                (Num::Minus, _) => return self.fail(at(j), "expected a digit after `-`"),
                (Num::Zero, b'0'..=b'9') => {
                    return self.fail(at(j), "numbers do not start with 0 (no leading zeros)")
                }
                (Num::Int | Num::Frac | Num::Exp, b'0'..=b'9') => part,
                (Num::Zero | Num::Int, b'.') => Num::Point,
                (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
                (Num::Point, b'0'..=b'9') => Num::Frac,
                (Num::Point, _) => {
                    return self.fail(at(j), "expected a digit after the decimal point")
                }
                (Num::E, b'+' | b'-') => Num::ESign,
                (Num::E | Num::ESign, b'0'..=b'9') => Num::Exp,
                (Num::E | Num::ESign, _) => {
                    return self.fail(at(j), "expected a digit in the exponent")
                }
                _ => {
                    // The number ended before `b`, which is read again in the next state.
                    self.take_number_bytes(&chunk[i..j], at(i))?;
                    self.emit_number(sink, at(j))?;
                    return Ok(j);
                }
            };
        }
        self.take_number_bytes(&chunk[i..], at(i))?;
        self.st = St::Num(part);
        Ok(chunk.len())
    }

    #[inline(always)]
    fn take_number_bytes(&mut self, bytes: &[u8], at: u64) -> Result<(), JsonError> {
        let max = self.opts.max_number_len;
        if self.buf.len().saturating_add(bytes.len()) > max {
            return self.fail(at, format!("a number longer than {max} characters"));
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// Emits the complete number in the buffer.
    #[inline(always)]
    pub(super) fn emit_number(&mut self, sink: &mut impl Sink, at: u64) -> Result<(), JsonError> {
        self.after_value();
        let buf = std::mem::take(&mut self.buf);
        // Only ASCII digits, signs, points and exponents: always UTF-8.
        let res = self.emit(
            sink,
            at,
            Token::Num(std::str::from_utf8(&buf).unwrap_or("0")),
        );
        self.buf = buf;
        res
    }

    /// The byte `b` at `at` inside `-Infinity`, `pos` bytes of `Infinity` matched.
    pub(super) fn neg_infinity(
        &mut self,
        sink: &mut impl Sink,
        b: u8,
        at: u64,
        pos: u8,
    ) -> Result<(), JsonError> {
        let pos = usize::from(pos);
        if INFINITY.get(pos) != Some(&b) {
            return self.fail(self.start + 1, "expected a digit after `-`");
        }
        if pos + 1 < INFINITY.len() {
            self.st = St::NegInf { pos: pos as u8 + 1 };
            return Ok(());
        }
        self.after_value();
        self.emit(sink, at, Token::Num("-inf"))
    }

    /// Inside a word at `chunk[i]`: reads letters, digits and `_` up to the word's end.
    #[inline(always)]
    pub(super) fn word(
        &mut self,
        sink: &mut impl Sink,
        chunk: &[u8],
        i: usize,
    ) -> Result<usize, JsonError> {
        let rest = &chunk[i..];
        let run = rest.iter().position(|&c| !is_word_byte(c));
        let len = run.unwrap_or(rest.len());
        let room = MAX_WORD.saturating_sub(self.buf.len()).min(len);
        self.buf.extend_from_slice(&rest[..room]);
        match run {
            None => Ok(chunk.len()),
            Some(len) => {
                self.end_word(sink, self.consumed + (i + len) as u64)?;
                Ok(i + len)
            }
        }
    }

    /// The word in the buffer ended: a literal, or an error naming it.
    #[inline(always)]
    pub(super) fn end_word(&mut self, sink: &mut impl Sink, at: u64) -> Result<(), JsonError> {
        let t = match self.buf.as_slice() {
            b"true" => Token::Bool(true),
            b"false" => Token::Bool(false),
            b"null" => Token::Null,
            b"NaN" => Token::Num("NaN"),
            b"Infinity" => Token::Num("inf"),
            w => {
                // Only ASCII letters, digits and `_`.
                let w = std::str::from_utf8(w).unwrap_or("");
                let python = match w {
                    "True" => Some("true"),
                    "False" => Some("false"),
                    "None" => Some("null"),
                    _ => None,
                };
                let message = match python {
                    Some(json) => format!("`{w}` is Python; JSON writes `{json}`"),
                    None => format!(
                        "unexpected word `{}`: expected a value (strings need double quotes)",
                        clip_text(w, 20)
                    ),
                };
                return self.fail(self.start, message);
            }
        };
        self.after_value();
        self.emit(sink, at, t)
    }
}
