//! Measured profiles: kernels timed on a real GPU, read from profiler exports, placed against
//! a chip's roofline, grouped, and used to calibrate the model.
//!
//! Everything runs in the page: bytes go in through an [`Importer`] in chunks of any size
//! (so a 50 MB trace imports in slices without freezing the page, with
//! [`Importer::consumed`] for a progress bar), and a [`Profile`] comes out: a list of
//! [`Kernel`] records (name, launches, measured time, FLOPs, DRAM bytes). [`import`] does it
//! in one call.
//!
//! ```
//! use roofline::profile::{import, Roofline, Bound};
//! let csv = "name,flops,bytes,time\ngemm_4096,137438953472,100663296,200us\n";
//! let p = import(csv.as_bytes()).unwrap();
//! // An H100 SXM in bf16: 989 TFLOP/s, 3.35 TB/s.
//! let roof = Roofline::new(989e12, 3.35e12).unwrap();
//! let placed = roof.place(&p.kernels[0]).unwrap();
//! assert_eq!(placed.bound, Bound::Compute);
//! // lower bound 2·4096³ / 989e12 = 139 µs of the 200 µs measured.
//! assert!((placed.roof_fraction - 137438953472.0 / 989e12 / 200e-6).abs() < 1e-12);
//! ```
//!
//! # Formats
//!
//! The format is detected from the content ([`Format`]); a file that is none of them gets a
//! message saying what was expected and how the file starts.
//!
//! * **Plain CSV** ([`Format::PlainCsv`]): a header naming at least `name`, `flops`, `bytes`
//!   and `time` (any order, any case), optional `chip` and `count` columns; other columns are
//!   ignored. Each row is **one launch**; `count` (default 1) launches are recorded. Values take
//!   units: `12.3us`, `1.2 GB`, `3e12`, `4 GiB`; a bare number is in base units (FLOPs, bytes,
//!   seconds) unless the header gives a unit: `time (us)`, `time_ms`, `bytes [GB]`. Comma or
//!   tab separated, `"` quotes, `#` comment lines.
//! * **Nsight Compute CSV**, both pages of `ncu --csv`: the raw page
//!   ([`Format::NsightComputeRaw`], `--page raw`: one row per kernel launch, one column per
//!   metric, a units row under the header) and the details page
//!   ([`Format::NsightComputeDetails`], the default page: one row per metric with `Metric
//!   Name`, `Metric Unit` and `Metric Value`). ncu's log lines (`==PROF==`) and the program's
//!   own output before the table are skipped; values with thousands separators
//!   (`5,318,969,728.00`) and units (`usecond`, `us`, `Kbyte`, `Mbyte`, `Gbyte/second`,
//!   `cycle/nsecond`) are read; `n/a` is missing. One record per launch (`ID`). The metrics,
//!   as NVIDIA's roofline sections and NERSC's methodology use them:
//!   * time: `gpu__time_duration.sum`, else the `Duration` of the Speed Of Light section, else
//!     `sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second` (or the `smsp__` pair);
//!   * bytes: `dram__bytes_read.sum + dram__bytes_write.sum` (kept apart as read and written),
//!     else `dram__bytes.sum`, else 32 × `dram__sectors_{read,write}.sum`;
//!   * FLOPs: for each precision (`d`, `f`, `h`) `add + mul + 2·fma` of
//!     `smsp__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum` (or `sm__`), plus
//!     the tensor pipe: **exactly** the sum of `sm__ops_path_tensor_src_*.sum` (NVIDIA's
//!     counters of tensor math operations, e.g. `sm__ops_path_tensor_src_bf16_dst_fp32`;
//!     the `_sparsity_on/off` splits are not added again) when the export has them; otherwise
//!     `sm__inst_executed_pipe_tensor.sum` (warp instructions) × FLOPs per instruction, which
//!     ncu does not record. That product is an **estimate**, marked on the kernel
//!     ([`Kernel::flops_estimate`]): the MMA shape comes from the kernel name (`s16816gemm`:
//!     m16n8k16, 4096 FLOPs; `s1688gemm` or CUTLASS's `arch::Mma<GemmShape<16, 8, 8>>`:
//!     2048; `16832`: 8192), else Volta (CC 7.0/7.2) counts 512 per `HMMA.884` step, Turing
//!     (7.5) is assumed `HMMA.1688` and CC 8.x `HMMA.16816`. From CC 9.0 on (warpgroup MMAs)
//!     no estimate is made: such a kernel's FLOPs are unknown. On the real exports checked
//!     (an A100 and a V100 running a 20480³ fp16 GEMM) the estimate equals 2·20480³ exactly.
//!   * Kernels without FLOPs or bytes (the export lacked those metrics) keep their time and
//!     are listed, but not placed.
//! * **PyTorch profiler Chrome trace** ([`Format::PyTorchTrace`], `export_chrome_trace`,
//!   Kineto JSON, any PyTorch version; `record_shapes=True` for bytes, `with_flops=True` for
//!   FLOPs beyond matmuls): a JSON object with `traceEvents` (or the bare event array, whose
//!   closing `]` may be missing). Read with a streaming tokenizer (no JSON library, no
//!   recursion). Each GPU kernel (`"cat": "kernel"`) is matched to the operator
//!   (`"cat": "cpu_op"`) that launched it: its `correlation` id names a runtime call
//!   (`cuda_runtime`, `cudaLaunchKernel`; or an `ac2g` flow event when the runtime call is
//!   missing), and the operators on that call's thread whose span contains it enclose it; the
//!   innermost one with a FLOP count owns the kernel, else the innermost one (so
//!   `aten::linear` → `aten::addmm` gives the kernels to `addmm`; a convolution's FLOPs on
//!   `aten::conv2d` gather the kernels of its inner calls). Without a runtime call, a kernel's
//!   `External id` names its operator (recent PyTorch). Per operator call: time = the sum of
//!   its kernels' durations; FLOPs = the trace's `flops` (or Inductor's `kernel_flop`), else
//!   `2·m·n·k` from the shapes of `aten::mm`, `addmm`, `bmm`, `baddbmm`, `linear`, `matmul`;
//!   bytes = every input tensor read once plus the output written once, from `Input Dims` and
//!   `Input type` (`float` 4 bytes, `c10::BFloat16` 2, …) for those matmul-like operators
//!   (or Inductor's `kernel_num_gb`). Calls of the same operator with the same input shapes
//!   are merged into one record (`count` calls). Kernels no operator launched are listed
//!   under their own names. Memory copies and sets are not kernels and are left out (counted
//!   in the notes).
//!
//! rocprof-compute's roofline CSV and JAX/XProf traces are not read yet.
//!
//! # On the roofline
//!
//! [`Roofline::place`] gives, for a chip's peak `P` (FLOP/s) and bandwidth `W` (bytes/s):
//! intensity `I = F/B`, achieved `F/t`, roof `min(P, W·I)`, lower bound `max(F/P, B/W)`,
//! `time_lost = t − lower bound`, `roof_fraction = achieved / roof = lower bound / t`, and the
//! bound (compute when `I ≥ P/W`). [`rank_by_time_lost`] sorts a table; [`group_totals`]
//! sums kernels by name patterns ([`Pattern`]: case-insensitive substrings or `*` globs,
//! `|` alternatives; [`default_groups`] has GEMM, attention, norms and more).
//!
//! # Calibration
//!
//! [`fit`] finds, by least squares on log time, the compute efficiency `c`, memory efficiency
//! `m` and fixed overhead per launch `o` of the model `t = max(F/(c·P), B/(m·W)) + o`, reports
//! the RMS log error before (`c = m = 1`, `o = 0`: the plain roofline) and after, and how much
//! of the gap each term explains. A [`Calibration`] reads and writes the link text
//! `<compute>:<memory>:<overhead>` and applies the model to any analysis
//! ([`Calibration::time`], [`Calibration::terms`]).

mod calibrate;
mod csv;
mod ncu;
mod place;
mod trace;
mod uncertainty;

pub use calibrate::{fit, CalibratedTerms, Calibration, Fit, Shares};
pub use place::{
    default_groups, group_totals, rank_by_time_lost, Bound, Group, GroupTotal, Pattern, Placed,
    RankedRow, Roofline,
};
pub use uncertainty::Uncertainty;

use crate::error::{clip_text, Error};
use serde::{Deserialize, Serialize};

/// The export format a profile was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A CSV with `name`, `flops`, `bytes`, `time` columns.
    PlainCsv,
    /// Nsight Compute's raw page (`ncu --csv --page raw`).
    NsightComputeRaw,
    /// Nsight Compute's details page (`ncu --csv`, `--page details`).
    NsightComputeDetails,
    /// A PyTorch profiler Chrome trace (JSON).
    PyTorchTrace,
}

impl Format {
    /// A short human name: `plain CSV`, `Nsight Compute CSV (raw page)`, ...
    pub fn label(self) -> &'static str {
        match self {
            Format::PlainCsv => "plain CSV",
            Format::NsightComputeRaw => "Nsight Compute CSV (raw page)",
            Format::NsightComputeDetails => "Nsight Compute CSV (details page)",
            Format::PyTorchTrace => "PyTorch profiler trace",
        }
    }
}

/// One measured kernel (or operator, for traces), possibly several launches of it.
///
/// `time`, `flops` and `bytes` are **totals** over the `count` launches; a launch's share is
/// the total divided by `count`. FLOPs and bytes are `None` when the export does not give
/// them: such a record is listed (its time counts) but cannot be placed on the roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kernel {
    /// The kernel name (Nsight Compute, plain CSV) or operator name (`aten::mm`, traces).
    pub name: String,
    /// For trace operators: the GPU kernel(s) the operator launched (the first one's name,
    /// and how many others).
    pub kernel: Option<String>,
    /// For trace operators: the input shapes as the trace gives them (`[[4096, 100], [64]]`).
    pub shape: Option<String>,
    /// The device named by the export (`NVIDIA B200`, a plain CSV's `chip` column).
    pub device: Option<String>,
    /// Launches (or operator calls) recorded, at least 1.
    pub count: u64,
    /// Measured time of all launches, seconds.
    pub time: f64,
    /// FLOPs of all launches.
    pub flops: Option<f64>,
    /// DRAM (HBM) bytes read and written by all launches.
    pub bytes: Option<f64>,
    /// DRAM bytes read, when the export separates them.
    pub bytes_read: Option<f64>,
    /// DRAM bytes written, when the export separates them.
    pub bytes_written: Option<f64>,
    /// Set when the FLOPs are estimated (or unknown) rather than counted, saying how:
    /// `tensor FLOPs estimated: 8.389e9 tensor-pipe instructions × 2048 FLOPs (m16n8k8 ...)`.
    pub flops_estimate: Option<String>,
    /// The format it was read from.
    pub source: Format,
}

impl Kernel {
    /// A record of one launch taking no time, with no FLOPs or bytes: fill in the rest.
    pub fn new(name: impl Into<String>, source: Format) -> Kernel {
        Kernel {
            name: name.into(),
            kernel: None,
            shape: None,
            device: None,
            count: 1,
            time: 0.0,
            flops: None,
            bytes: None,
            bytes_read: None,
            bytes_written: None,
            flops_estimate: None,
            source,
        }
    }

    /// Mean time of one launch, seconds.
    pub fn time_per_launch(&self) -> f64 {
        self.time / self.count.max(1) as f64
    }
}

/// What an import gives: the kernels and notes about what was left out or estimated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The detected format.
    pub format: Format,
    /// The kernels, in the order of the file (trace operators: in the order of their first
    /// kernel).
    pub kernels: Vec<Kernel>,
    /// The device the export names, if any (the first kernel's).
    pub device: Option<String>,
    /// The compute capability an Nsight Compute export names (`12.0`), if any: the one hint
    /// to the GPU in an export that names no device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    /// Sentences for the user: kernels without FLOPs or bytes, estimated tensor FLOPs,
    /// skipped events, and the like.
    pub notes: Vec<String>,
}

impl Profile {
    /// Total measured time of all records, seconds.
    pub fn total_time(&self) -> f64 {
        self.kernels.iter().map(|k| k.time).sum()
    }
}

/// Merges records of the same name, kernel, shapes, device and source into one (launch
/// counts, times, FLOPs and bytes add up; FLOPs or bytes stay known only if known for all),
/// keeping the order of first appearance.
pub fn merge_same(kernels: &[Kernel]) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = Vec::new();
    type Key<'a> = (
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        Format,
    );
    let mut index: std::collections::HashMap<Key<'_>, usize> = std::collections::HashMap::new();
    for k in kernels {
        let key = (
            k.name.as_str(),
            k.kernel.as_deref(),
            k.shape.as_deref(),
            k.device.as_deref(),
            k.source,
        );
        match index.get(&key) {
            Some(&i) => {
                let m = &mut out[i];
                m.count = m.count.saturating_add(k.count);
                m.time += k.time;
                let add = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(x, y)| x + y);
                m.flops = add(m.flops, k.flops);
                m.bytes = add(m.bytes, k.bytes);
                m.bytes_read = add(m.bytes_read, k.bytes_read);
                m.bytes_written = add(m.bytes_written, k.bytes_written);
                if m.flops_estimate.is_none() {
                    m.flops_estimate.clone_from(&k.flops_estimate);
                }
            }
            None => {
                index.insert(key, out.len());
                out.push(k.clone());
            }
        }
    }
    out
}

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
                let gzip: &[u8] = b"\x1f\x8b";
                // The file's first bytes: a gzip magic number there, or the start of one cut by
                // the slice, waits for the whole of it.
                if *dropped == 0 {
                    if buf.starts_with(gzip) {
                        return Err(fail(
                            None,
                            "a gzip-compressed file (a `.json.gz` trace?): decompress it first"
                                .into(),
                        ));
                    }
                    if buf.len() < gzip.len() && gzip.starts_with(buf) {
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
                (Format::PyTorchTrace, r.kernels, r.notes, r.device, None)
            }
        };
        let device = device.or_else(|| kernels.iter().find_map(|k| k.device.clone()));
        Ok(Profile {
            format,
            kernels,
            device,
            compute_capability: cc,
            notes,
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
