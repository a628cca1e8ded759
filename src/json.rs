//! A small pretty-printing JSON writer for serde's `Serialize`, for the JSON export.
//!
//! `serde_json` would add about 13 KB (gzip) to the page's wasm for this one export: its
//! `Value` tree, `json!` maps and float printer. This writer lays text out as
//! `serde_json::to_string_pretty` does (two-space indents, non-finite floats as `null`, map
//! keys as strings), with floats in Rust's shortest round-trip form (`2.048e-5`, `1.0`), so
//! every number reads back as the same `f64`. `tests/it/view.rs` checks that the export holds the
//! same values as `serde_json` would write.

use std::fmt::{self, Display, Write};

use serde::ser::{self, Serialize};

/// `value` as pretty-printed JSON.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut w = Writer {
        out: String::new(),
        depth: 0,
    };
    value.serialize(&mut w)?;
    Ok(w.out)
}

/// Why a value could not be written (a custom error from a `Serialize` impl, or a map key
/// that is not a string or a number).
#[derive(Debug)]
pub struct Error(String);

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

struct Writer {
    out: String,
    depth: usize,
}

impl Writer {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn number(&mut self, v: impl Display) {
        let _ = write!(self.out, "{v}");
    }

    fn float(&mut self, v: f64) {
        if v.is_finite() {
            // Debug is the shortest text that reads back as `v` ("1.0", "1e16", "0.25").
            let _ = write!(self.out, "{v:?}");
        } else {
            self.out.push_str("null");
        }
    }

    /// Open `{` or `[`; `empty` closes it at once.
    fn open(&mut self, bracket: char, empty: bool) -> Compound<'_> {
        self.out.push(bracket);
        if empty {
            self.out.push(if bracket == '{' { '}' } else { ']' });
        } else {
            self.depth += 1;
        }
        Compound {
            w: self,
            first: true,
            close: if empty { None } else { Some(bracket) },
            variant: false,
        }
    }

    /// `{"variant": ` before a variant's content; closed by [`Compound::end`] or
    /// [`Writer::end_variant`].
    fn begin_variant(&mut self, variant: &str) {
        self.out.push('{');
        self.depth += 1;
        self.newline();
        self.string(variant);
        self.out.push_str(": ");
    }

    fn end_variant(&mut self) {
        self.depth -= 1;
        self.newline();
        self.out.push('}');
    }
}

/// An open array or object.
struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    /// The opening bracket, `None` when already closed (empty).
    close: Option<char>,
    /// Inside `{"variant": ...}`: close that too.
    variant: bool,
}

impl Compound<'_> {
    fn next(&mut self) {
        if !self.first {
            self.w.out.push(',');
        }
        self.first = false;
        self.w.newline();
    }

    fn key(&mut self, key: &str) {
        self.next();
        self.w.string(key);
        self.w.out.push_str(": ");
    }

    fn end(self) -> Result<(), Error> {
        if let Some(open) = self.close {
            self.w.depth -= 1;
            if !self.first {
                self.w.newline();
            }
            self.w.out.push(if open == '{' { '}' } else { ']' });
        }
        if self.variant {
            self.w.end_variant();
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.number(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.number(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // Through f32's own shortest form, as serde_json does (0.1f32 is "0.1").
        if v.is_finite() {
            self.number(format_args!("{v:?}"));
        } else {
            self.out.push_str("null");
        }
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.begin_variant(variant);
        value.serialize(&mut *self)?;
        self.end_variant();
        Ok(())
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open('[', len == Some(0)))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.begin_variant(variant);
        let mut c = self.open('[', len == 0);
        c.variant = true;
        Ok(c)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open('{', len == Some(0)))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.begin_variant(variant);
        let mut c = self.open('{', len == 0);
        c.variant = true;
        Ok(c)
    }
}

impl Compound<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.next();
        value.serialize(&mut *self.w)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.key(key);
        value.serialize(&mut *self.w)
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // JSON keys are strings: a string key as is, a number or a unit variant as its text.
        let mut k = Writer {
            out: String::new(),
            depth: 0,
        };
        key.serialize(&mut k)?;
        self.next();
        if k.out.starts_with('"') {
            self.w.out.push_str(&k.out);
        } else if k.out.bytes().all(|b| b.is_ascii_digit() || b == b'-') && !k.out.is_empty() {
            self.w.string(&k.out);
        } else {
            return Err(Error("key must be a string".into()));
        }
        self.w.out.push_str(": ");
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}
