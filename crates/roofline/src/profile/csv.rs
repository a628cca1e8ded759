//! A streaming CSV record reader (RFC 4180: `"` quotes, `""` inside quotes, line breaks inside
//! quotes, `\r\n` or `\n` line ends) and the plain CSV profile format.

use super::{Format, Kernel};
use crate::units::{parse_quantity, parse_quantity_unit, Unit};

/// Longest record accepted: a longer one is almost always an unclosed quote.
const MAX_RECORD: usize = 4 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    FieldStart,
    Unquoted,
    Quoted,
    /// A `"` inside a quoted field: `""` or the end of the quotes.
    QuotedQuote,
}

/// Splits a byte stream into records.
pub(crate) struct CsvReader {
    delim: u8,
    st: St,
    text: Vec<u8>,
    ends: Vec<usize>,
    field_start: usize,
    /// Line (1-based) of the next byte.
    line: u64,
    /// Line where the current record started.
    record_line: u64,
}

/// One record: its fields and the line it starts on.
pub(crate) struct Record<'a> {
    text: &'a str,
    ends: &'a [usize],
    pub line: u64,
}

impl<'a> Record<'a> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Field `i`, or `""` past the end (short rows read as empty cells).
    pub fn get(&self, i: usize) -> &'a str {
        if i >= self.ends.len() {
            return "";
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..self.ends[i]).unwrap_or("")
    }

    /// Whether the record is an empty line.
    pub fn is_blank(&self) -> bool {
        self.ends.len() <= 1 && self.get(0).trim().is_empty()
    }

    /// The fields.
    pub fn fields(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }
}

impl CsvReader {
    /// A reader splitting fields at `delim`, whose first byte is on line `line`.
    pub(crate) fn new(delim: u8, line: u64) -> Self {
        CsvReader {
            delim,
            st: St::FieldStart,
            text: Vec::new(),
            ends: Vec::new(),
            field_start: 0,
            line,
            record_line: line,
        }
    }

    fn end_field(&mut self) {
        // Replace invalid UTF-8 in this field so the record is valid text as a whole.
        if std::str::from_utf8(&self.text[self.field_start..]).is_err() {
            let fixed = String::from_utf8_lossy(&self.text[self.field_start..]).into_owned();
            self.text.truncate(self.field_start);
            self.text.extend_from_slice(fixed.as_bytes());
        }
        self.ends.push(self.text.len());
        self.field_start = self.text.len();
    }

    fn end_record(
        &mut self,
        each: &mut impl FnMut(Record<'_>) -> Result<(), String>,
    ) -> Result<(), String> {
        self.end_field();
        let text = std::str::from_utf8(&self.text).unwrap_or("");
        let res = each(Record {
            text,
            ends: &self.ends,
            line: self.record_line,
        });
        self.text.clear();
        self.ends.clear();
        self.field_start = 0;
        self.st = St::FieldStart;
        self.record_line = self.line;
        res
    }

    /// Feeds a chunk; `each` gets every completed record. An `Err` from `each` stops reading.
    pub(crate) fn feed(
        &mut self,
        chunk: &[u8],
        each: &mut impl FnMut(Record<'_>) -> Result<(), String>,
    ) -> Result<(), String> {
        for &b in chunk {
            if b == b'\n' {
                self.line += 1;
            }
            match self.st {
                St::Quoted => {
                    if b == b'"' {
                        self.st = St::QuotedQuote;
                    } else {
                        self.text.push(b);
                    }
                }
                St::QuotedQuote if b == b'"' => {
                    self.text.push(b'"');
                    self.st = St::Quoted;
                }
                _ => {
                    if b == b'\n' {
                        self.end_record(each)?;
                    } else if b == self.delim {
                        self.end_field();
                        self.st = St::FieldStart;
                    } else if b == b'\r' {
                        // part of a `\r\n` line end (a stray one is dropped)
                    } else if b == b'"' && self.st == St::FieldStart {
                        self.st = St::Quoted;
                    } else {
                        // Text after a closing quote is kept, as spreadsheets do.
                        self.text.push(b);
                        self.st = St::Unquoted;
                    }
                }
            }
            if self.text.len() > MAX_RECORD {
                return Err(format!(
                    "line {}: a record longer than {} MiB (an unclosed `\"`?)",
                    self.record_line,
                    MAX_RECORD >> 20
                ));
            }
        }
        Ok(())
    }

    /// Ends the input: the last record (without a final line break) is delivered.
    pub(crate) fn finish(
        &mut self,
        each: &mut impl FnMut(Record<'_>) -> Result<(), String>,
    ) -> Result<(), String> {
        if self.st == St::Quoted {
            return Err(format!(
                "line {}: the file ends inside a quoted field (an unclosed `\"`): was it cut short?",
                self.record_line
            ));
        }
        if !self.text.is_empty() || !self.ends.is_empty() || self.st != St::FieldStart {
            self.end_record(each)?;
        }
        Ok(())
    }
}

/// Splits one header or data line (no quotes spanning lines) into trimmed cells; used while
/// the format is still unknown.
pub(crate) fn split_line(line: &str, delim: u8) -> Vec<String> {
    let mut r = CsvReader::new(delim, 1);
    let mut out = Vec::new();
    let mut each = |rec: Record<'_>| {
        out = rec.fields().map(|f| f.trim().to_string()).collect();
        Ok(())
    };
    // A line alone cannot fail: no record is long enough and an unclosed quote is kept.
    let _ = r.feed(line.as_bytes(), &mut each);
    if r.st == St::Quoted {
        r.st = St::Unquoted;
    }
    let _ = r.finish(&mut each);
    out
}

// ---------------------------------------------------------------------------------------------
// The plain CSV format

/// A column of the plain format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Name,
    Flops,
    Bytes,
    Time,
    Chip,
    Count,
}

/// Reads a header cell: `time`, `time (us)`, `time [ms]`, `time_us`, `bytes (GB)`. Returns the
/// column and the scale of plain numbers under it (`1e-6` for microseconds).
fn header_cell(cell: &str) -> Option<(Col, f64)> {
    // The key is case-insensitive, the unit is not (`MB` is not `mB`).
    let c = cell.trim().trim_start_matches('\u{FEFF}');
    let (key, unit) = match c.find(['(', '[']) {
        Some(i) => (
            c[..i].trim().to_ascii_lowercase(),
            Some(c[i + 1..].trim_end_matches([')', ']']).trim()),
        ),
        None => match c.split_once('_') {
            Some((k, u))
                if ["time", "flops", "bytes"]
                    .iter()
                    .any(|w| k.eq_ignore_ascii_case(w)) =>
            {
                (k.to_ascii_lowercase(), Some(u))
            }
            _ => (c.to_ascii_lowercase(), None),
        },
    };
    let col = match key.as_str() {
        "name" | "kernel" | "kernel name" | "op" | "operator" => Col::Name,
        "flops" | "flop" => Col::Flops,
        "bytes" | "byte" => Col::Bytes,
        "time" | "duration" => Col::Time,
        "chip" | "device" | "gpu" => Col::Chip,
        "count" | "calls" | "launches" | "instances" => Col::Count,
        _ => return None,
    };
    let scale = match unit {
        None => 1.0,
        Some(u) => {
            // `time (us)`: the unit of one, `1us`; `bytes (GB)`: `1GB`.
            let u = u.replace("µ", "u");
            parse_quantity(&format!("1{u}")).ok()?
        }
    };
    Some((col, scale))
}

/// The columns of a plain header, if it names at least `name`, `flops`, `bytes` and `time`.
pub(crate) struct PlainHeader {
    cols: Vec<Option<(Col, f64)>>,
}

impl PlainHeader {
    /// Recognises a header line (already split).
    pub(crate) fn detect(cells: &[String]) -> Option<PlainHeader> {
        let cols: Vec<Option<(Col, f64)>> = cells.iter().map(|c| header_cell(c)).collect();
        let has = |want: Col| cols.iter().flatten().any(|(c, _)| *c == want);
        if [Col::Name, Col::Flops, Col::Bytes, Col::Time]
            .into_iter()
            .all(has)
        {
            Some(PlainHeader { cols })
        } else {
            None
        }
    }

    /// Whether the header names some but not all of the required columns (for the message
    /// when no format matches).
    pub(crate) fn partial(cells: &[String]) -> Option<String> {
        let cols: Vec<Col> = cells
            .iter()
            .filter_map(|c| header_cell(c))
            .map(|(c, _)| c)
            .collect();
        let missing: Vec<&str> = [
            (Col::Name, "name"),
            (Col::Flops, "flops"),
            (Col::Bytes, "bytes"),
            (Col::Time, "time"),
        ]
        .iter()
        .filter(|(c, _)| !cols.contains(c))
        .map(|(_, n)| *n)
        .collect();
        (cols.len() >= 2 && !missing.is_empty()).then(|| missing.join(", "))
    }
}

/// Reads a plain-CSV value: a number under the header's unit, or a quantity with its own
/// unit, which must be `want` (`12.3us` for a time, `1.2 GB` for bytes).
fn value(cell: &str, scale: f64, want: Unit, what: &str, line: u64) -> Result<Option<f64>, String> {
    let t = cell.trim();
    if t.is_empty() || t == "-" || t.eq_ignore_ascii_case("n/a") {
        return Ok(None);
    }
    let bad = |reason: &str| {
        format!(
            "line {line}: {what} `{}`: {reason}",
            crate::error::clip_text(t, 40)
        )
    };
    let v = match t.parse::<f64>() {
        Ok(v)
            if t.bytes()
                .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) =>
        {
            v * scale
        }
        _ => {
            let (v, unit) = parse_quantity_unit(t).map_err(|e| bad(&e.to_string()))?;
            match unit {
                None => v * scale,
                Some(u) if u == want => v,
                Some(u) => {
                    return Err(bad(&format!(
                        "is in {}, where {} (or no unit) is expected",
                        u.symbol(),
                        want.symbol()
                    )))
                }
            }
        }
    };
    if !v.is_finite() || v < 0.0 {
        return Err(bad("must be a finite number, 0 or more"));
    }
    Ok(Some(v))
}

/// Reads the data rows of a plain CSV.
pub(crate) struct PlainCsv {
    header: PlainHeader,
    pub kernels: Vec<Kernel>,
}

impl PlainCsv {
    pub(crate) fn new(header: PlainHeader) -> Self {
        PlainCsv {
            header,
            kernels: Vec::new(),
        }
    }

    /// One data record.
    pub(crate) fn record(&mut self, rec: &Record<'_>) -> Result<(), String> {
        if rec.is_blank() || rec.get(0).trim_start().starts_with('#') {
            return Ok(());
        }
        let line = rec.line;
        let mut k = Kernel::new(String::new(), Format::PlainCsv);
        let mut time = None;
        for (i, col) in self.header.cols.iter().enumerate() {
            let Some((col, scale)) = col else { continue };
            let cell = rec.get(i).trim();
            match col {
                Col::Name => k.name = cell.to_string(),
                Col::Flops => k.flops = value(cell, *scale, Unit::Flops, "flops", line)?,
                Col::Bytes => k.bytes = value(cell, *scale, Unit::Bytes, "bytes", line)?,
                Col::Time => time = value(cell, *scale, Unit::Seconds, "time", line)?,
                Col::Chip => k.device = (!cell.is_empty()).then(|| cell.to_string()),
                Col::Count => {
                    if !cell.is_empty() {
                        let c =
                            parse_quantity(cell).map_err(|e| format!("line {line}: count: {e}"))?;
                        if !((1.0..=1e15).contains(&c) && c.fract() == 0.0) {
                            return Err(format!(
                                "line {line}: count `{}`: must be a whole number from 1 to 1e15",
                                crate::error::clip_text(cell, 40)
                            ));
                        }
                        k.count = c as u64;
                    }
                }
            }
        }
        if k.name.is_empty() {
            return Err(format!("line {line}: the name is empty"));
        }
        let Some(t) = time.filter(|t| *t > 0.0) else {
            return Err(format!(
                "line {line}: `{}` has no time (a positive duration such as 12.3us is needed)",
                crate::error::clip_text(&k.name, 40)
            ));
        };
        // The plain format gives one launch's figures; the record holds the totals.
        let n = k.count as f64;
        k.time = t * n;
        k.flops = k.flops.map(|f| f * n);
        k.bytes = k.bytes.map(|b| b * n);
        self.kernels.push(k);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, chunk: usize) -> Result<Vec<(u64, Vec<String>)>, String> {
        let mut r = CsvReader::new(b',', 1);
        let mut out = Vec::new();
        let mut each = |rec: Record<'_>| {
            out.push((rec.line, rec.fields().map(str::to_string).collect()));
            Ok(())
        };
        for part in text.as_bytes().chunks(chunk) {
            r.feed(part, &mut each)?;
        }
        r.finish(&mut each)?;
        Ok(out)
    }

    #[test]
    fn quotes_commas_and_line_breaks_in_any_chunking() {
        let text = "a,\"b,c\",\"d\"\"e\"\r\n\"multi\nline\",x\n\nlast,\"é\"";
        let want = records(text, 1000).unwrap();
        assert_eq!(
            want,
            vec![
                (1, vec!["a".into(), "b,c".into(), "d\"e".into()]),
                (2, vec!["multi\nline".into(), "x".into()]),
                (4, vec![String::new()]),
                (5, vec!["last".into(), "é".into()]),
            ]
        );
        for chunk in 1..text.len() {
            assert_eq!(records(text, chunk).unwrap(), want, "chunk {chunk}");
        }
    }

    #[test]
    fn an_unclosed_quote_is_an_error() {
        let e = records("a,\"open\nb,c\n", 4).unwrap_err();
        assert!(e.contains("line 1") && e.contains("unclosed"), "{e}");
    }

    #[test]
    fn header_cells_carry_units() {
        assert_eq!(header_cell("Time (us)"), Some((Col::Time, 1e-6)));
        assert_eq!(header_cell("time_ms"), Some((Col::Time, 1e-3)));
        assert_eq!(header_cell("bytes [GB]"), Some((Col::Bytes, 1e9)));
        assert_eq!(header_cell("Bytes_MB"), Some((Col::Bytes, 1e6)));
        assert_eq!(header_cell(" FLOPs "), Some((Col::Flops, 1.0)));
        assert_eq!(header_cell("time (parsecs)"), None);
        assert_eq!(header_cell("colour"), None);
    }
}
