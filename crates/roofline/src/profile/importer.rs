//! The streaming reader: bytes in, in slices of any size, a [`Profile`] out. It finds the format
//! at the file's start (a trace's `{` or `[`, else lines up to a known CSV header, skipping
//! blanks, byte-order marks, comments and ncu's log), then hands the rest to that format's
//! reader (`csv`, `ncu`, `trace`); the same bytes give the same profile, or the same message,
//! however they are sliced.

use super::{csv, gzip, ncu, trace, Format, Profile};
use crate::error::{clip_text, Error};

/// Bytes of lines read while looking for a header before giving up.
const MAX_PREAMBLE: usize = 8 << 20;

enum State {
    /// Nothing but whitespace (and a byte-order mark) so far: the bytes kept, and how many
    /// whitespace bytes were dropped before them.
    Start(Vec<u8>, u64),
    /// Text lines before a CSV header.
    Lines(Preamble),
    Plain(csv::CsvReader, csv::PlainCsv),
    Ncu(csv::CsvReader, ncu::NcuCsv, Format),
    Trace(Box<trace::TraceReader>),
    /// A gzip-compressed file: the inflated bytes go to an importer of their own.
    Gzip(Box<(gzip::Gunzip, Importer)>),
    Failed(Error),
}

#[derive(Default)]
struct Preamble {
    pending: Vec<u8>,
    /// Lines complete so far.
    lines: u64,
    /// Bytes of complete lines so far.
    bytes: usize,
    /// ncu log lines (`==PROF==`) seen.
    ncu_log: u64,
    /// The first non-blank lines, for the message.
    first: Vec<String>,
    /// Missing columns of a header that named some of the plain format's.
    partial: Option<String>,
}

/// Reads a profile in chunks: [`Importer::feed`] each slice of the file as it is read (any
/// size, any boundary), then [`Importer::finish`]. After an error, every later call returns
/// that error.
///
/// ```
/// use roofline::profile::{Importer, Format};
/// let text = b"name,flops,bytes,time,count\nadd,1e6,1.2e7,12.3us,4\n";
/// let mut imp = Importer::new();
/// for chunk in text.chunks(5) {
///     imp.feed(chunk).unwrap();
/// }
/// assert_eq!(imp.consumed(), text.len() as u64);
/// let p = imp.finish().unwrap();
/// assert_eq!(p.format, Format::PlainCsv);
/// assert_eq!(p.kernels[0].count, 4);
/// assert!((p.kernels[0].time - 4.0 * 12.3e-6).abs() < 1e-18);
/// ```
pub struct Importer {
    state: State,
    consumed: u64,
}

impl Default for Importer {
    fn default() -> Self {
        Self::new()
    }
}

fn fail(format: Option<Format>, reason: String) -> Error {
    Error::Parse {
        input: format.map_or("profile", Format::label).to_string(),
        reason,
    }
}

impl Importer {
    /// An importer that has seen nothing yet.
    pub fn new() -> Importer {
        Importer {
            state: State::Start(Vec::new(), 0),
            consumed: 0,
        }
    }

    /// Bytes fed so far (for a progress bar: `consumed / file size`).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The format, once the first bytes (or the header line) told it.
    pub fn format(&self) -> Option<Format> {
        match &self.state {
            State::Plain(..) => Some(Format::PlainCsv),
            State::Ncu(_, _, f) => Some(*f),
            State::Trace(_) => Some(Format::PyTorchTrace),
            State::Gzip(g) => g.1.format(),
            _ => None,
        }
    }

    /// Feeds the next slice of the file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if let State::Failed(e) = &self.state {
            return Err(e.clone());
        }
        self.consumed += chunk.len() as u64;
        let res = self.feed_inner(chunk);
        if let Err(e) = &res {
            self.state = State::Failed(e.clone());
        }
        res
    }

    fn feed_inner(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let format = self.format();
        match &mut self.state {
            State::Start(buf, dropped) => {
                buf.extend_from_slice(chunk);
                let bom: &[u8] = b"\xEF\xBB\xBF";
                let magic: &[u8] = &gzip::MAGIC;
                // The file's first bytes: a gzip magic number there (SGLang's and vLLM's
                // `.json.gz` traces) is read through the decompressor; the start of one cut by
                // the slice waits for the whole of it.
                if *dropped == 0 {
                    if buf.starts_with(magic) {
                        let body = std::mem::take(buf);
                        self.state = State::Gzip(Box::new((gzip::Gunzip::new(), Importer::new())));
                        return self.feed_inner(&body);
                    }
                    if buf.len() < magic.len() && magic.starts_with(buf) {
                        return Ok(());
                    }
                }
                // Blanks and byte-order marks before the text, in any order (a mark after a
                // blank line too), skipped the same however the file is sliced.
                let mut first = 0;
                loop {
                    let rest = &buf[first..];
                    if rest.starts_with(bom) {
                        first += bom.len();
                    } else if rest.first().is_some_and(u8::is_ascii_whitespace) {
                        first += 1;
                    } else {
                        break;
                    }
                }
                let rest = &buf[first..];
                if rest.is_empty() || (rest.len() < bom.len() && bom.starts_with(rest)) {
                    // Nothing but blanks and marks so far (the last maybe cut by the slice):
                    // drop what is skipped, keep a cut mark for the next slice.
                    *dropped += first as u64;
                    buf.drain(..first);
                    return Ok(());
                }
                let base = *dropped + first as u64;
                let body = rest.to_vec();
                self.state = if matches!(body[0], b'{' | b'[') {
                    State::Trace(Box::new(trace::TraceReader::new(base)))
                } else {
                    State::Lines(Preamble::default())
                };
                self.feed_inner(&body)
            }
            State::Lines(pre) => {
                pre.pending.extend_from_slice(chunk);
                let mut start = 0;
                while let Some(nl) = pre.pending[start..].iter().position(|&b| b == b'\n') {
                    let end = start + nl;
                    let line = String::from_utf8_lossy(&pre.pending[start..end]).into_owned();
                    start = end + 1;
                    pre.lines += 1;
                    pre.bytes += line.len() + 1;
                    if let Some(next) = Self::header(pre, &line) {
                        let rest = pre.pending[start..].to_vec();
                        let line_no = pre.lines + 1;
                        self.state = Self::begin(next, line_no);
                        return self.feed_inner(&rest);
                    }
                    if pre.bytes > MAX_PREAMBLE {
                        return Err(Self::unknown(pre));
                    }
                }
                pre.pending.drain(..start);
                if pre.pending.len() > MAX_PREAMBLE {
                    return Err(Self::unknown(pre));
                }
                Ok(())
            }
            State::Plain(reader, plain) => reader
                .feed(chunk, &mut |r| plain.record(&r))
                .map_err(|e| fail(format, e)),
            State::Ncu(reader, ncu, _) => reader
                .feed(chunk, &mut |r| ncu.record(&r))
                .map_err(|e| fail(format, e)),
            State::Trace(t) => t.feed(chunk).map_err(|e| fail(format, e)),
            State::Gzip(g) => {
                let (gz, inner) = &mut **g;
                let mut failed = None;
                let fed = gz.feed(chunk, &mut |piece| {
                    inner.feed(piece).map_err(|e| {
                        failed = Some(e);
                        String::new()
                    })
                });
                // A gzip error names the format of what was inflated up to it (the inner
                // importer's, after this slice), so the message is the same however the file
                // is sliced (profile_fuzz: a whole file said "profile", its slices "PyTorch
                // profiler trace").
                fed.map_err(|e| failed.take().unwrap_or_else(|| fail(inner.format(), e)))
            }
            State::Failed(e) => Err(e.clone()),
        }
    }

    /// Checks a line before any header: the header that starts a known CSV format, if it is
    /// one; otherwise notes it for the message.
    fn header(pre: &mut Preamble, line: &str) -> Option<Header> {
        let t = line.trim().trim_start_matches('\u{FEFF}');
        if t.is_empty() {
            return None;
        }
        if t.starts_with("==") {
            pre.ncu_log += 1;
            return None;
        }
        let delim = if t.contains('\t') && !t.contains(',') {
            b'\t'
        } else {
            b','
        };
        let cells = csv::split_line(t, delim);
        if let Some(page) = ncu::detect(&cells) {
            return Some(Header::Ncu(page, cells));
        }
        if let Some(h) = csv::PlainHeader::detect(&cells) {
            return Some(Header::Plain(h, delim));
        }
        if !t.starts_with('#') {
            if pre.partial.is_none() {
                pre.partial = csv::PlainHeader::partial(&cells);
            }
            if pre.first.len() < 2 {
                pre.first.push(clip_text(t, 60));
            }
        }
        None
    }

    fn begin(h: Header, line: u64) -> State {
        match h {
            Header::Plain(h, delim) => {
                State::Plain(csv::CsvReader::new(delim, line), csv::PlainCsv::new(h))
            }
            Header::Ncu(page, cells) => {
                let format = match page {
                    ncu::Page::Raw => Format::NsightComputeRaw,
                    ncu::Page::Details => Format::NsightComputeDetails,
                };
                State::Ncu(
                    csv::CsvReader::new(b',', line),
                    ncu::NcuCsv::new(page, &cells),
                    format,
                )
            }
        }
    }

    /// The message for a text that is none of the formats.
    fn unknown(pre: &Preamble) -> Error {
        if pre.ncu_log > 0 && pre.first.is_empty() {
            return fail(
                None,
                format!(
                    "an Nsight Compute log with no kernel table ({} `==PROF==` lines and nothing \
                     else): ncu profiled no kernel, or the table went elsewhere; export with \
                     `ncu --csv --page raw` (or `--page details`)",
                    pre.ncu_log
                ),
            );
        }
        let columns = match &pre.partial {
            Some(missing) => format!(" (this header lacks: {missing})"),
            None => String::new(),
        };
        let start = match pre.first.first() {
            Some(l) => format!(" It starts with `{l}`."),
            None => String::new(),
        };
        fail(
            None,
            format!(
                "not a profile this page reads: expected a CSV whose header names name, flops, \
                 bytes and time{columns}, an Nsight Compute CSV (`ncu --csv`, raw or details \
                 page) or a PyTorch profiler trace (JSON).{start}"
            ),
        )
    }

    /// Ends the input and returns the profile.
    pub fn finish(mut self) -> Result<Profile, Error> {
        let format = self.format();
        let state = std::mem::replace(&mut self.state, State::Start(Vec::new(), 0));
        let mut steps = (Vec::new(), None);
        let (format, kernels, notes, device, cc) = match state {
            State::Failed(e) => return Err(e),
            State::Start(..) => return Err(fail(None, "the file is empty".into())),
            State::Lines(mut pre) => {
                // A last line without a line break.
                if !pre.pending.is_empty() {
                    let line = String::from_utf8_lossy(&pre.pending).into_owned();
                    pre.pending.clear();
                    if let Some(h) = Self::header(&mut pre, &line) {
                        self.state = Self::begin(h, pre.lines + 1);
                        return self.finish();
                    }
                }
                return Err(Self::unknown(&pre));
            }
            State::Plain(mut reader, mut plain) => {
                reader
                    .finish(&mut |r| plain.record(&r))
                    .map_err(|e| fail(format, e))?;
                if plain.kernels.is_empty() {
                    return Err(fail(format, "the CSV has a header but no rows".into()));
                }
                (Format::PlainCsv, plain.kernels, Vec::new(), None, None)
            }
            State::Ncu(mut reader, mut ncu, f) => {
                reader
                    .finish(&mut |r| ncu.record(&r))
                    .map_err(|e| fail(format, e))?;
                let cc = ncu.compute_capability();
                let (kernels, notes) = ncu.finish().map_err(|e| fail(format, e))?;
                (f, kernels, notes, None, cc)
            }
            State::Trace(t) => {
                let r = t.finish().map_err(|e| fail(format, e))?;
                steps = (r.steps, r.parallel);
                (Format::PyTorchTrace, r.kernels, r.notes, r.device, None)
            }
            State::Gzip(g) => {
                let (gz, inner) = *g;
                let inflated = gz.inflated();
                gz.finish().map_err(|e| fail(format, e))?;
                let mut p = inner.finish()?;
                p.notes.insert(
                    0,
                    format!(
                        "read from gzip: {} compressed bytes inflated to {}",
                        self.consumed, inflated
                    ),
                );
                return Ok(p);
            }
        };
        let device = device.or_else(|| kernels.iter().find_map(|k| k.device.clone()));
        Ok(Profile {
            format,
            kernels,
            device,
            compute_capability: cc,
            notes,
            steps: steps.0,
            parallel: steps.1,
        })
    }
}

enum Header {
    Plain(csv::PlainHeader, u8),
    Ncu(ncu::Page, Vec<String>),
}

/// Imports a whole file at once (see [`Importer`]).
pub fn import(bytes: &[u8]) -> Result<Profile, Error> {
    let mut imp = Importer::new();
    imp.feed(bytes)?;
    imp.finish()
}
