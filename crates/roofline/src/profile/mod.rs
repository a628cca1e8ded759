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
//! Any of these may be gzip-compressed (`.json.gz`, as SGLang and vLLM write their traces):
//! a file that starts with gzip's signature is inflated as it streams in (`gzip.rs`,
//! `miniz_oxide`), CRC-checked, and read as the file inside.
//!
//! rocprof-compute's roofline CSV and JAX/XProf traces are not read yet.
//!
//! # Serving engines' steps
//!
//! A trace of a serving engine has a span around each forward step whose name gives the
//! step's batch and, with the engine's detailed annotation on, its attention aggregates
//! ([`steps`]: SGLang `step[…]`, vLLM `execute_…`, ROCm ATOM `prefill[…]`/`decode[…]`). Each
//! becomes a [`Step`] of [`Profile::steps`] with its measured GPU time (its GPU-side span, else
//! its kernels' union); the trace's `distributedInfo` gives [`Profile::parallel`]. The steps are
//! timed against the mixed step's bound above this module (`crate::serving::step_time`), and
//! [`fit_steps`] fits the user's own engine on them ([`OwnEngine`], `engine=own:` in a link),
//! held to [`check_fit`], the guard the kernels' calibration passes too ([`Fit::check`]).
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
mod fx;
mod guard;
mod gzip;
mod importer;
mod ncu;
mod place;
mod step_fit;
pub mod steps;
mod trace;
mod trace_steps;
mod uncertainty;

/// The streaming JSON reader a trace is read with (the page's import worker reads with it too).
pub use crate::json;
pub use calibrate::{fit, CalibratedTerms, Calibration, Fit, Shares};
pub use guard::{check_fit, FitCheck, MAX_FIXED_SHARE, MAX_RELATIVE_ERROR, MIN_SHAPES};
pub use importer::{import, Importer};
pub use place::{
    default_groups, group_totals, rank_by_time_lost, Bound, Group, GroupTotal, Pattern, Placed,
    RankedRow, Roofline,
};
pub use step_fit::{fit_steps, OwnEngine, StepFit, StepObs};
pub use trace_steps::{Parallel, Step, TimeSource};
pub use uncertainty::Uncertainty;

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
    /// A serving engine's steps, where the trace has its step spans ([`steps`]), in the order
    /// they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// The parallelism the trace's `distributedInfo` gives, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<Parallel>,
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
