//! Over 600 lines on purpose: matching kernels to the operators that launched them
//! (correlation ids, flow events, nesting in time) is one algorithm over one event store, and
//! its invariants read best in one place; about a tenth is its unit tests.
//!
//! PyTorch profiler Chrome traces (`prof.export_chrome_trace(...)`, Kineto's JSON): operators
//! (`cat: "cpu_op"`) with their input shapes and types, CUDA/HIP runtime calls
//! (`cat: "cuda_runtime"`), GPU kernels (`cat: "kernel"`) and the flow events (`cat: "ac2g"`)
//! that join launches to kernels. See the parent module for how they are matched.

use super::fx::FxMap;
use super::steps::looks_like_step;
use super::trace_steps::{self, DistInfo, KernelRec, Parallel, SpanRec, Step};
use super::{Format, Kernel};
use crate::json::{ErrorKind, JsonError, Options, Sink, Token, Tokenizer};

mod event;

/// Longest input-shape text kept for one operator.
const MAX_SHAPE: usize = 2000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Top,
    Events,
    Event,
    Args,
    Dims,
    Types,
    DevProps,
    DevProp,
    /// `distributedInfo`, its `pg_config` list and one process group in it.
    Dist,
    PgList,
    Pg,
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Key {
    #[default]
    Other,
    Ph,
    Cat,
    Name,
    Ts,
    Dur,
    Pid,
    Tid,
    Id,
    Args,
    TraceEvents,
    DeviceProperties,
    DistributedInfo,
    WorldSize,
    Rank,
    PgConfig,
    PgDesc,
    PgName,
    PgSize,
    ExternalId,
    Correlation,
    Flops,
    KernelFlop,
    KernelNumGb,
    InputDims,
    InputType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Cat {
    #[default]
    Other,
    Op,
    Runtime,
    Kernel,
    Mem,
    Flow,
    /// A `record_function` span on a CPU thread (`user_annotation`).
    Annotation,
    /// Its mirror on the GPU stream (`gpu_user_annotation`).
    GpuAnnotation,
}

fn classify_cat(s: &str) -> Cat {
    // Matched without case and without a lowered copy: one per event.
    const CATS: [(&str, Cat); 14] = [
        ("cpu_op", Cat::Op),
        ("operator", Cat::Op),
        ("cuda_runtime", Cat::Runtime),
        ("cuda_driver", Cat::Runtime),
        ("runtime", Cat::Runtime),
        ("hip_runtime", Cat::Runtime),
        ("kernel", Cat::Kernel),
        ("gpu_memcpy", Cat::Mem),
        ("gpu_memset", Cat::Mem),
        ("memcpy", Cat::Mem),
        ("memset", Cat::Mem),
        ("ac2g", Cat::Flow),
        ("user_annotation", Cat::Annotation),
        ("gpu_user_annotation", Cat::GpuAnnotation),
    ];
    CATS.iter()
        .find(|(name, _)| name.len() == s.len() && name.eq_ignore_ascii_case(s))
        .map_or(Cat::Other, |&(_, c)| c)
}

/// Bytes per element of a PyTorch dtype name as the profiler writes it (`float`,
/// `c10::BFloat16`); 0 when unknown or not a tensor (`Scalar`, `ScalarList`, ``).
fn dtype_size(s: &str) -> u8 {
    let t = s.strip_prefix("c10::").unwrap_or(s);
    match t {
        "float" | "Float" | "float32" | "int" | "unsigned int" | "complex<Half>" => 4,
        "double" | "Double" | "float64" | "long int" | "long" | "int64_t" | "complex<float>" => 8,
        "Half" | "half" | "BFloat16" | "bfloat16" | "float16" | "short int" | "short" => 2,
        "signed char" | "unsigned char" | "bool" | "char" => 1,
        "complex<double>" => 16,
        _ if t.starts_with("Float8") || t.starts_with("float8") => 1,
        _ => 0,
    }
}

fn hash_text(tag: u8, s: &str) -> u64 {
    // FNV-1a: stable, fast, and good enough to tell thread ids apart.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ u64::from(tag);
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn num(t: Token<'_>) -> Option<f64> {
    let v: f64 = match t {
        // A number token has no blanks around it; a string may.
        Token::Num(n) => n.parse().ok()?,
        Token::Str(n) => n.trim().parse().ok()?,
        _ => return None,
    };
    v.is_finite().then_some(v)
}

fn int(t: Token<'_>) -> Option<i64> {
    let n = match t {
        // A number token has no blanks around it; a string may.
        Token::Num(n) => n,
        Token::Str(n) => n.trim(),
        _ => return None,
    };
    n.parse::<i64>().ok().or_else(|| {
        let v: f64 = n.parse().ok()?;
        (v.fract() == 0.0 && v.abs() < 9e15).then_some(v as i64)
    })
}

/// An id (pid, tid, flow id) as a number where it is one, else a hash of its text.
fn ident(t: Token<'_>) -> u64 {
    match t {
        Token::Num(n) => n.parse::<u64>().unwrap_or_else(|_| hash_text(1, n)),
        Token::Str(s) => s.parse::<u64>().unwrap_or_else(|_| hash_text(2, s)),
        _ => 0,
    }
}

/// One input of an operator: its slice of the flattened dimensions, and whether it is a
/// plain tensor (a list of integers).
#[derive(Debug, Clone, Copy)]
struct Input {
    start: usize,
    end: usize,
    tensor: bool,
}

/// The event being read.
#[derive(Debug, Default)]
struct Ev {
    ph: u8,
    cat: Cat,
    name: String,
    ts: Option<f64>,
    dur: f64,
    pid: u64,
    tid: u64,
    id: Option<u64>,
    ext: Option<i64>,
    corr: Option<i64>,
    flops: Option<f64>,
    kernel_flop: Option<f64>,
    kernel_gb: Option<f64>,
    shape: String,
    inputs: Vec<Input>,
    flat: Vec<i64>,
    types: Vec<u8>,
    /// Depth inside `Input Dims` (1: the list of inputs).
    level: usize,
    /// Per open level: whether an element was written (for `, `).
    sep: Vec<bool>,
}

impl Ev {
    fn reset(&mut self) {
        self.ph = 0;
        self.cat = Cat::Other;
        self.name.clear();
        self.ts = None;
        self.dur = 0.0;
        self.pid = 0;
        self.tid = 0;
        self.id = None;
        self.ext = None;
        self.corr = None;
        self.flops = None;
        self.kernel_flop = None;
        self.kernel_gb = None;
        self.shape.clear();
        self.inputs.clear();
        self.flat.clear();
        self.types.clear();
        self.level = 0;
        self.sep.clear();
    }

    fn write(&mut self, s: &str) {
        if self.shape.len() < MAX_SHAPE {
            self.shape.push_str(s);
            if self.shape.len() >= MAX_SHAPE {
                self.shape.push('…');
            }
        }
    }

    /// A new element at the current level: `, ` before all but the first.
    fn element(&mut self) {
        if let Some(s) = self.sep.last_mut() {
            let again = std::mem::replace(s, true);
            if again {
                self.write(", ");
            }
        }
    }

    fn dims_begin(&mut self) {
        self.shape.clear();
        self.inputs.clear();
        self.flat.clear();
        self.sep.clear();
        self.write("[");
        self.level = 1;
        self.sep.push(false);
    }

    fn dims_open(&mut self) {
        self.element();
        self.write("[");
        self.level += 1;
        self.sep.push(false);
        if self.level == 2 {
            self.inputs.push(Input {
                start: self.flat.len(),
                end: self.flat.len(),
                tensor: true,
            });
        } else if let Some(i) = self.inputs.last_mut() {
            i.tensor = false; // a list of tensors
        }
    }

    fn dims_close(&mut self) {
        self.write("]");
        self.sep.pop();
        if self.level == 2 {
            let end = self.flat.len();
            if let Some(i) = self.inputs.last_mut() {
                i.end = end;
            }
        }
        self.level = self.level.saturating_sub(1);
    }

    fn dims_scalar(&mut self, t: Token<'_>) {
        self.element();
        match t {
            Token::Num(n) => self.write(n),
            Token::Str(s) => {
                self.write("\"");
                self.write(s);
                self.write("\"");
            }
            _ => self.write("null"),
        }
        match (self.level, int(t)) {
            (2, Some(d)) if d >= 0 => self.flat.push(d),
            (2, _) => self.non_tensor(),
            _ => self.inputs.push(Input {
                start: self.flat.len(),
                end: self.flat.len(),
                tensor: false,
            }),
        }
    }

    fn non_tensor(&mut self) {
        if let Some(i) = self.inputs.last_mut() {
            i.tensor = false;
        }
    }

    /// Input `i`: its dimensions and element size, if it is a plain tensor.
    fn tensor(&self, i: usize) -> Option<(&[i64], u8)> {
        let inp = self.inputs.get(i).filter(|x| x.tensor)?;
        let dims = self.flat.get(inp.start..inp.end)?;
        Some((dims, self.types.get(i).copied().unwrap_or(0)))
    }
}

fn numel(d: &[i64]) -> f64 {
    d.iter().map(|&x| x as f64).product()
}

/// FLOPs (2 per multiply-add) and bytes (inputs read once, output written once) of a
/// matmul-like operator from its input shapes and types: `aten::mm`, `addmm`, `bmm`,
/// `baddbmm`, `linear`, `matmul`. Bytes are `None` when a dtype is unknown.
fn matmul(ev: &Ev) -> (Option<f64>, Option<f64>) {
    let op = ev.name.strip_prefix("aten::").unwrap_or(&ev.name);
    let bytes_of = |parts: &[Option<(&[i64], u8)>], out: f64, out_size: u8| -> Option<f64> {
        let mut b = 0.0;
        for (d, s) in parts.iter().flatten() {
            if *s == 0 {
                return None;
            }
            b += numel(d) * f64::from(*s);
        }
        (out_size > 0).then_some(b + out * f64::from(out_size))
    };
    let shape = |a: &[i64], b: &[i64]| -> Option<(f64, f64, f64, f64)> {
        match (a.len(), b.len()) {
            (2, 2) if a[1] == b[0] => Some((1.0, a[0] as f64, a[1] as f64, b[1] as f64)),
            (3, 3) if a[0] == b[0] && a[2] == b[1] => {
                Some((a[0] as f64, a[1] as f64, a[2] as f64, b[2] as f64))
            }
            (n, 2) if n >= 1 && a[n - 1] == b[0] => {
                Some((1.0, numel(&a[..n - 1]), a[n - 1] as f64, b[1] as f64))
            }
            _ => None,
        }
    };
    // The shape (batch, m, k, n), the inputs read, and the output's element size (that of
    // the first matrix operand).
    type Parts<'a> = Vec<Option<(&'a [i64], u8)>>;
    let (dims, parts, out_size): ((f64, f64, f64, f64), Parts<'_>, u8) = match op {
        "mm" | "matmul" | "bmm" => {
            let (Some(a), Some(b)) = (ev.tensor(0), ev.tensor(1)) else {
                return (None, None);
            };
            let ok = match op {
                "mm" => a.0.len() == 2 && b.0.len() == 2,
                "bmm" => a.0.len() == 3 && b.0.len() == 3,
                _ => true,
            };
            match shape(a.0, b.0).filter(|_| ok) {
                Some(s) => (s, vec![Some(a), Some(b)], a.1),
                None => return (None, None),
            }
        }
        "addmm" | "baddbmm" => {
            let (Some(a), Some(b)) = (ev.tensor(1), ev.tensor(2)) else {
                return (None, None);
            };
            let rank = if op == "addmm" { 2 } else { 3 };
            if a.0.len() != rank || b.0.len() != rank {
                return (None, None);
            }
            match shape(a.0, b.0) {
                Some(s) => (s, vec![ev.tensor(0), Some(a), Some(b)], a.1),
                None => return (None, None),
            }
        }
        "linear" => {
            let (Some(x), Some(w)) = (ev.tensor(0), ev.tensor(1)) else {
                return (None, None);
            };
            let n = x.0.len();
            if n == 0 || w.0.len() != 2 || x.0[n - 1] != w.0[1] {
                return (None, None);
            }
            let s = (1.0, numel(&x.0[..n - 1]), w.0[1] as f64, w.0[0] as f64);
            (s, vec![Some(x), Some(w), ev.tensor(2)], x.1)
        }
        _ => return (None, None),
    };
    let (batch, m, k, n) = dims;
    let flops = 2.0 * batch * m * k * n;
    let bytes = bytes_of(&parts, batch * m * n, out_size);
    (
        flops.is_finite().then_some(flops),
        bytes.filter(|b| b.is_finite()),
    )
}

/// An operator call.
#[derive(Debug)]
struct Op {
    pid: u64,
    tid: u64,
    start: f64,
    end: f64,
    name: u32,
    flops: Option<f64>,
    bytes: Option<f64>,
    shape: Option<Box<str>>,
    ext: Option<i64>,
}

/// A runtime call (or a flow endpoint) that launched the kernel with this correlation id.
#[derive(Debug, Clone, Copy)]
struct Launch {
    pid: u64,
    tid: u64,
    ts: f64,
}

/// A GPU kernel.
#[derive(Debug)]
struct Gpu {
    corr: Option<i64>,
    ext: Option<i64>,
    ts: f64,
    dur: f64,
    name: u32,
    flops: Option<f64>,
    bytes: Option<f64>,
}

/// Reads trace tokens into operators, launches and kernels.
#[derive(Default)]
struct TraceSink {
    ctx: Vec<Ctx>,
    key: Key,
    ev: Ev,
    saw_events: bool,
    events: u64,
    device: Option<String>,
    names: Vec<Box<str>>,
    name_ids: FxMap<Box<str>, u32>,
    ops: Vec<Op>,
    launches: FxMap<i64, Launch>,
    flows: Vec<(u64, Launch)>,
    gpu: Vec<Gpu>,
    mem_events: u64,
    mem_time: f64,
    steps: u64,
    /// Serving engines' step spans (CPU and GPU side).
    step_spans: Vec<SpanRec>,
    dist: DistInfo,
    /// The process group being read in `distributedInfo.pg_config`.
    pg: (Option<String>, Option<String>, Option<f64>),
}

impl TraceSink {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.name_ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.into());
        self.name_ids.insert(s.into(), i);
        i
    }

    fn classify(&self, top: Option<Ctx>, k: &str) -> Key {
        match top {
            Some(Ctx::Top) => match k {
                "traceEvents" => Key::TraceEvents,
                "deviceProperties" => Key::DeviceProperties,
                "distributedInfo" => Key::DistributedInfo,
                _ => Key::Other,
            },
            Some(Ctx::Dist) => match k {
                "world_size" => Key::WorldSize,
                "rank" => Key::Rank,
                "pg_config" => Key::PgConfig,
                _ => Key::Other,
            },
            Some(Ctx::Pg) => match k {
                "pg_desc" => Key::PgDesc,
                "pg_name" => Key::PgName,
                "pg_size" => Key::PgSize,
                _ => Key::Other,
            },
            Some(Ctx::Event) => match k {
                "ph" => Key::Ph,
                "cat" => Key::Cat,
                "name" => Key::Name,
                "ts" => Key::Ts,
                "dur" => Key::Dur,
                "pid" => Key::Pid,
                "tid" => Key::Tid,
                "id" => Key::Id,
                "args" => Key::Args,
                _ => Key::Other,
            },
            Some(Ctx::Args) => {
                if k.eq_ignore_ascii_case("external id") {
                    Key::ExternalId
                } else if k == "correlation" {
                    Key::Correlation
                } else if k.eq_ignore_ascii_case("flops") {
                    Key::Flops
                } else if k == "kernel_flop" {
                    Key::KernelFlop
                } else if k == "kernel_num_gb" {
                    Key::KernelNumGb
                } else if k.eq_ignore_ascii_case("input dims") {
                    Key::InputDims
                } else if k.eq_ignore_ascii_case("input type")
                    || k.eq_ignore_ascii_case("input types")
                {
                    Key::InputType
                } else {
                    Key::Other
                }
            }
            Some(Ctx::DevProp) if k == "name" => Key::Name,
            _ => Key::Other,
        }
    }

    fn scalar(&mut self, top: Option<Ctx>, t: Token<'_>) {
        let ev = &mut self.ev;
        match top {
            Some(Ctx::Event) => match self.key {
                Key::Ph => {
                    if let Token::Str(s) = t {
                        ev.ph = s.bytes().next().unwrap_or(0);
                    }
                }
                Key::Cat => {
                    if let Token::Str(s) = t {
                        ev.cat = classify_cat(s);
                    }
                }
                Key::Name => {
                    if let Token::Str(s) = t {
                        ev.name.clear();
                        ev.name.push_str(s);
                    }
                }
                Key::Ts => ev.ts = num(t),
                Key::Dur => ev.dur = num(t).filter(|d| *d >= 0.0).unwrap_or(0.0),
                Key::Pid => ev.pid = ident(t),
                Key::Tid => ev.tid = ident(t),
                Key::Id => ev.id = Some(ident(t)),
                _ => {}
            },
            Some(Ctx::Args) => match self.key {
                Key::ExternalId => ev.ext = int(t),
                Key::Correlation => ev.corr = int(t),
                Key::Flops => ev.flops = num(t).filter(|f| *f > 0.0),
                // Inductor writes 0 for a kernel without FLOPs (a pointwise one): it is placed
                // by its bytes.
                Key::KernelFlop => ev.kernel_flop = num(t).filter(|f| *f >= 0.0),
                Key::KernelNumGb => ev.kernel_gb = num(t).filter(|f| *f > 0.0),
                _ => {}
            },
            Some(Ctx::Dims) => ev.dims_scalar(t),
            Some(Ctx::Types) => ev.types.push(match t {
                Token::Str(s) => dtype_size(s),
                _ => 0,
            }),
            Some(Ctx::DevProp) => {
                if let (Key::Name, Token::Str(s), None) = (self.key, t, &self.device) {
                    self.device = Some(crate::error::clip_text(s, 80));
                }
            }
            Some(Ctx::Dist) => match self.key {
                Key::WorldSize => self.dist.world = num(t).filter(|v| *v >= 1.0),
                Key::Rank => self.dist.rank = num(t).filter(|v| *v >= 0.0),
                _ => {}
            },
            Some(Ctx::Pg) => match (self.key, t) {
                (Key::PgDesc, Token::Str(s)) => self.pg.0 = Some(crate::error::clip_text(s, 60)),
                (Key::PgName, Token::Str(s)) => self.pg.1 = Some(crate::error::clip_text(s, 60)),
                (Key::PgSize, _) => self.pg.2 = num(t).filter(|v| *v >= 1.0),
                _ => {}
            },
            _ => {}
        }
    }

    /// A step span of a serving engine (CPU or GPU side), if `ev` is one.
    fn step_span(&mut self, gpu: bool) -> bool {
        let ev = &self.ev;
        let Some(ts) = ev.ts else { return false };
        if !looks_like_step(&ev.name) {
            return false;
        }
        let (dur, pid, tid, ext) = (ev.dur, ev.pid, ev.tid, ev.ext);
        let name = std::mem::take(&mut self.ev.name);
        let id = self.intern(&name);
        self.ev.name = name;
        self.step_spans.push(SpanRec {
            name: id,
            ts,
            dur,
            pid,
            tid,
            ext,
            gpu,
        });
        true
    }

    fn finish_event(&mut self) {
        self.events += 1;
        let ev = &self.ev;
        match (ev.ph, ev.cat) {
            (b'X', Cat::Annotation) => {
                let step = self.step_span(false);
                if !step && self.ev.name.starts_with("ProfilerStep#") {
                    self.steps += 1;
                }
            }
            (b'X', Cat::GpuAnnotation) => {
                self.step_span(true);
            }
            (b'X', Cat::Op) => {
                let Some(ts) = ev.ts else { return };
                if ev.name.starts_with("ProfilerStep#") {
                    self.steps += 1;
                    return;
                }
                // An engine's step span recorded as an operator (older profilers): a step,
                // not an operator that owns kernels.
                if self.step_span(false) {
                    return;
                }
                let ev = &self.ev;
                let (mflops, mbytes) = matmul(ev);
                let flops = ev.flops.or(ev.kernel_flop).or(mflops);
                let bytes = mbytes.or(ev.kernel_gb.map(|g| g * 1e9));
                let shape = (!ev.shape.is_empty()).then(|| ev.shape.as_str().into());
                let (pid, tid, dur, ext) = (ev.pid, ev.tid, ev.dur, ev.ext);
                let name = std::mem::take(&mut self.ev.name);
                let id = self.intern(&name);
                self.ev.name = name;
                self.ops.push(Op {
                    pid,
                    tid,
                    start: ts,
                    end: ts + dur,
                    name: id,
                    flops,
                    bytes,
                    shape,
                    ext,
                });
            }
            (b'X', Cat::Runtime) => {
                if let (Some(c), Some(ts)) = (ev.corr, ev.ts) {
                    self.launches.entry(c).or_insert(Launch {
                        pid: ev.pid,
                        tid: ev.tid,
                        ts,
                    });
                }
            }
            (b'X', Cat::Kernel) => {
                let g = Gpu {
                    corr: ev.corr,
                    ext: ev.ext,
                    ts: ev.ts.unwrap_or(f64::NAN),
                    dur: ev.dur,
                    name: 0,
                    flops: ev.kernel_flop,
                    bytes: ev.kernel_gb.map(|g| g * 1e9),
                };
                let name = std::mem::take(&mut self.ev.name);
                let id = self.intern(&name);
                self.ev.name = name;
                self.gpu.push(Gpu { name: id, ..g });
            }
            (b'X', Cat::Other) if ev.name.starts_with("ProfilerStep#") => self.steps += 1,
            (b'X', Cat::Mem) => {
                self.mem_events += 1;
                self.mem_time += ev.dur;
            }
            (b's' | b'f' | b't', Cat::Flow) => {
                if let (Some(id), Some(ts)) = (ev.id, ev.ts) {
                    self.flows.push((
                        id,
                        Launch {
                            pid: ev.pid,
                            tid: ev.tid,
                            ts,
                        },
                    ));
                }
            }
            _ => {}
        }
    }
}

impl Sink for TraceSink {
    fn object_in_array(&mut self, text: &str, room: usize) -> Option<usize> {
        if self.ctx.last() != Some(&Ctx::Events) {
            return None;
        }
        self.read_event(text, room)
    }

    fn token(&mut self, t: Token<'_>) -> Result<(), String> {
        let top = self.ctx.last().copied();
        match t {
            Token::BeginObject => {
                let c = match (top, self.key) {
                    (None, _) => Ctx::Top,
                    (Some(Ctx::Events), _) => {
                        self.ev.reset();
                        Ctx::Event
                    }
                    (Some(Ctx::Event), Key::Args) => Ctx::Args,
                    (Some(Ctx::DevProps), _) => Ctx::DevProp,
                    (Some(Ctx::Top), Key::DistributedInfo) => {
                        self.dist.seen = true;
                        Ctx::Dist
                    }
                    (Some(Ctx::PgList), _) => {
                        self.pg = (None, None, None);
                        Ctx::Pg
                    }
                    (Some(Ctx::Dims), _) => {
                        self.ev.dims_scalar(Token::Null);
                        Ctx::Skip
                    }
                    (Some(Ctx::Types), _) => {
                        self.ev.types.push(0);
                        Ctx::Skip
                    }
                    _ => Ctx::Skip,
                };
                self.ctx.push(c);
                self.key = Key::Other;
            }
            Token::BeginArray => {
                let c = match (top, self.key) {
                    (None, _) | (Some(Ctx::Top), Key::TraceEvents) => {
                        self.saw_events = true;
                        Ctx::Events
                    }
                    (Some(Ctx::Top), Key::DeviceProperties) => Ctx::DevProps,
                    (Some(Ctx::Dist), Key::PgConfig) => Ctx::PgList,
                    (Some(Ctx::Args), Key::InputDims) => {
                        self.ev.dims_begin();
                        Ctx::Dims
                    }
                    (Some(Ctx::Dims), _) => {
                        self.ev.dims_open();
                        Ctx::Dims
                    }
                    (Some(Ctx::Args), Key::InputType) => {
                        self.ev.types.clear();
                        Ctx::Types
                    }
                    (Some(Ctx::Types), _) => {
                        self.ev.types.push(0);
                        Ctx::Skip
                    }
                    _ => Ctx::Skip,
                };
                self.ctx.push(c);
                self.key = Key::Other;
            }
            Token::EndObject | Token::EndArray => {
                match self.ctx.pop() {
                    Some(Ctx::Event) => self.finish_event(),
                    Some(Ctx::Dims) => self.ev.dims_close(),
                    Some(Ctx::Pg) => {
                        let (desc, name, size) = std::mem::take(&mut self.pg);
                        if let Some(size) = size {
                            // `undefined` is PyTorch's description of a group given none.
                            let label = desc
                                .filter(|d| d != "undefined")
                                .or(name)
                                .unwrap_or_default();
                            self.dist.groups.push((label, size));
                        }
                    }
                    _ => {}
                }
                self.key = Key::Other;
            }
            Token::Key(k) => self.key = self.classify(top, k),
            _ => {
                self.scalar(top, t);
                self.key = Key::Other;
            }
        }
        Ok(())
    }
}

/// Reads a Chrome trace in chunks.
pub(crate) struct TraceReader {
    tok: Tokenizer,
    sink: TraceSink,
}

/// A tokenizer error as the importer says it: where in the file, and, at the end of the
/// text, that the file was cut short.
fn message(e: JsonError) -> String {
    match e.kind {
        ErrorKind::CutShort => format!("byte {}: {}: the file was cut short", e.offset, e.message),
        _ => format!("byte {}: {}", e.offset, e.message),
    }
}

/// What a trace gave.
pub(crate) struct TraceResult {
    pub kernels: Vec<Kernel>,
    pub notes: Vec<String>,
    pub device: Option<String>,
    /// The serving engine's steps, if its spans are in the trace.
    pub steps: Vec<Step>,
    /// The parallelism `distributedInfo` gives.
    pub parallel: Option<Parallel>,
}

impl TraceReader {
    /// A reader whose text starts `base` bytes into the file (for error offsets).
    pub(crate) fn new(base: u64) -> Self {
        TraceReader {
            tok: Tokenizer::new(Options::TRACE).starting_at(base),
            sink: TraceSink::default(),
        }
    }

    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.tok.feed(chunk, &mut self.sink).map_err(message)
    }

    pub(crate) fn finish(mut self) -> Result<TraceResult, String> {
        self.tok.finish(&mut self.sink).map_err(message)?;
        let s = self.sink;
        if !s.saw_events {
            return Err("a JSON file without a `traceEvents` array: not a profiler trace".into());
        }
        let steps = collect_steps(&s);
        if s.gpu.is_empty() && steps.steps.is_empty() {
            return Err(format!(
                "the trace has {} events but no GPU kernels (events with `\"cat\": \"kernel\"`): \
                 record it with ProfilerActivity.CUDA",
                s.events
            ));
        }
        let mut r = attribute(s);
        if r.kernels.is_empty() && steps.steps.is_empty() {
            return Err(format!(
                "the trace's GPU kernels all took no time ({})",
                r.notes.join("; ")
            ));
        }
        if steps.steps.is_empty() && steps.notes.is_empty() {
            r.notes.push(format!(
                "no serving engine's step spans: to place each step of a served model, turn the \
                 engine's step annotations on ({})",
                super::steps::Dialect::ALL.map(|d| d.flag()).join("; ")
            ));
        }
        r.notes.extend(steps.notes);
        r.steps = steps.steps;
        r.parallel = steps.parallel;
        Ok(r)
    }
}

/// The engine's steps in the trace and their GPU time (`trace_steps`).
fn collect_steps(s: &TraceSink) -> trace_steps::Collected {
    let mut flows: FxMap<u64, Launch> = FxMap::default();
    for (id, l) in &s.flows {
        flows.entry(*id).or_insert(*l);
    }
    let kernels: Vec<KernelRec> = s
        .gpu
        .iter()
        .filter(|g| g.ts.is_finite())
        .map(|g| {
            let launch = g.corr.and_then(|c| {
                s.launches
                    .get(&c)
                    .copied()
                    .or_else(|| flows.get(&u64::try_from(c).ok()?).copied())
            });
            KernelRec {
                ts: g.ts,
                dur: g.dur,
                launch: launch.map(|l| (l.pid, l.tid, l.ts)),
            }
        })
        .collect();
    trace_steps::collect(&s.step_spans, &s.names, &kernels, &s.dist)
}

/// Matches kernels to the operators that launched them, and sums them per operator.
fn attribute(s: TraceSink) -> TraceResult {
    let ops = &s.ops;
    // Operators per thread, outer before inner when they start together.
    let mut by_thread: FxMap<(u64, u64), Vec<u32>> = FxMap::default();
    for (i, o) in ops.iter().enumerate() {
        by_thread.entry((o.pid, o.tid)).or_default().push(i as u32);
    }
    for v in by_thread.values_mut() {
        v.sort_by(|&a, &b| {
            let (a, b) = (&ops[a as usize], &ops[b as usize]);
            a.start.total_cmp(&b.start).then(b.end.total_cmp(&a.end))
        });
    }
    let mut flows: FxMap<u64, Vec<Launch>> = FxMap::default();
    for (id, l) in &s.flows {
        flows.entry(*id).or_default().push(*l);
    }
    // Where each kernel was launched from.
    let mut queries: FxMap<(u64, u64), Vec<(f64, u32)>> = FxMap::default();
    let mut unresolved = Vec::new();
    for (k, g) in s.gpu.iter().enumerate() {
        let launch = g.corr.and_then(|c| {
            s.launches.get(&c).copied().or_else(|| {
                let id = u64::try_from(c).ok()?;
                flows
                    .get(&id)?
                    .iter()
                    .find(|l| by_thread.contains_key(&(l.pid, l.tid)))
                    .copied()
            })
        });
        match launch {
            Some(l) if by_thread.contains_key(&(l.pid, l.tid)) => queries
                .entry((l.pid, l.tid))
                .or_default()
                .push((l.ts, k as u32)),
            _ => unresolved.push(k),
        }
    }
    let mut owner: Vec<Option<u32>> = vec![None; s.gpu.len()];
    for (thread, mut qs) in queries {
        let list = &by_thread[&thread];
        qs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut next = 0;
        let mut stack: Vec<u32> = Vec::new();
        for (ts, k) in qs {
            while next < list.len() && ops[list[next] as usize].start <= ts {
                let o = list[next];
                while stack
                    .last()
                    .is_some_and(|&top| ops[top as usize].end < ops[o as usize].start)
                {
                    stack.pop();
                }
                stack.push(o);
                next += 1;
            }
            while stack.last().is_some_and(|&top| ops[top as usize].end < ts) {
                stack.pop();
            }
            let contains = |&&o: &&u32| {
                let op = &ops[o as usize];
                op.start <= ts && ts <= op.end
            };
            // The innermost operator that has a FLOP count, else the innermost one.
            owner[k as usize] = stack
                .iter()
                .rev()
                .filter(contains)
                .find(|&&o| ops[o as usize].flops.is_some())
                .or_else(|| stack.iter().rev().find(contains))
                .copied();
        }
    }
    // Kernels with no launch found: a kernel's External id names its operator in recent
    // PyTorch versions (in older ones it repeats the correlation id).
    let mut by_ext: FxMap<i64, u32> = FxMap::default();
    for (i, o) in ops.iter().enumerate() {
        if let Some(e) = o.ext {
            by_ext.entry(e).or_insert(i as u32);
        }
    }
    for k in unresolved {
        let g = &s.gpu[k];
        if let Some(e) = g.ext.filter(|e| Some(*e) != g.corr) {
            owner[k] = by_ext.get(&e).copied();
        }
    }

    #[derive(Default, Clone)]
    struct Agg {
        first: usize,
        time: f64,
        kernels: u64,
        first_name: u32,
        others: u64,
        kflops: Option<f64>,
        kbytes: Option<f64>,
    }
    let add = |a: &mut Agg, g: &Gpu, k: usize| {
        if a.kernels == 0 {
            a.first = k;
            a.first_name = g.name;
        } else if g.name != a.first_name {
            a.others += 1;
        }
        a.kernels += 1;
        a.time += g.dur;
        if let Some(f) = g.flops {
            a.kflops = Some(a.kflops.unwrap_or(0.0) + f);
        }
        if let Some(b) = g.bytes {
            a.kbytes = Some(a.kbytes.unwrap_or(0.0) + b);
        }
    };
    // Indexed by operator and by kernel name (an empty `Agg` has no kernel).
    let mut per_op: Vec<Agg> = vec![Agg::default(); ops.len()];
    let mut per_kernel: Vec<Agg> = vec![Agg::default(); s.names.len()];
    let mut attributed = 0u64;
    let mut own_figures = 0u64;
    for (k, g) in s.gpu.iter().enumerate() {
        // A kernel with its own FLOPs or bytes (Inductor's `kernel_flop`, `kernel_num_gb`,
        // from `profile_analysis --augment_trace`) is placed by them, under its own name,
        // not summed into the operator around it.
        if g.flops.is_some() || g.bytes.is_some() {
            own_figures += 1;
            add(&mut per_kernel[g.name as usize], g, k);
            continue;
        }
        match owner[k] {
            Some(o) => {
                attributed += 1;
                add(&mut per_op[o as usize], g, k);
            }
            None => add(&mut per_kernel[g.name as usize], g, k),
        }
    }
    let summary = |a: &Agg| -> String {
        let first = &s.names[a.first_name as usize];
        match a.others {
            0 => first.to_string(),
            n => format!(
                "{first} (+{n} other kernel{})",
                if n == 1 { "" } else { "s" }
            ),
        }
    };
    // One record per (operator, input shapes), in the order of their first kernel.
    let mut rows: Vec<(usize, Kernel)> = Vec::new();
    let mut merged: FxMap<(u32, Option<&str>), usize> = FxMap::default();
    let mut zero_time = 0u64;
    let mut owners: Vec<(u32, &Agg)> = (0u32..)
        .zip(&per_op)
        .filter(|(_, a)| a.kernels > 0)
        .collect();
    owners.sort_by_key(|(_, a)| a.first);
    for (o, a) in owners {
        let op = &ops[o as usize];
        let flops = op.flops.or(a.kflops);
        let bytes = op.bytes.or(a.kbytes);
        match merged.get(&(op.name, op.shape.as_deref())) {
            Some(&i) => {
                let k = &mut rows[i].1;
                k.count += 1;
                k.time += a.time * 1e-6;
                k.flops = k.flops.zip(flops).map(|(x, y)| x + y);
                k.bytes = k.bytes.zip(bytes).map(|(x, y)| x + y);
            }
            None => {
                let mut k =
                    Kernel::new(s.names[op.name as usize].to_string(), Format::PyTorchTrace);
                k.kernel = Some(summary(a));
                k.shape = op.shape.as_deref().map(str::to_string);
                k.time = a.time * 1e-6;
                k.flops = flops;
                k.bytes = bytes;
                k.device.clone_from(&s.device);
                merged.insert((op.name, op.shape.as_deref()), rows.len());
                rows.push((a.first, k));
            }
        }
    }
    let mut loose: Vec<(u32, &Agg)> = (0u32..)
        .zip(&per_kernel)
        .filter(|(_, a)| a.kernels > 0)
        .collect();
    loose.sort_by_key(|(_, a)| a.first);
    let unowned: u64 = loose.iter().map(|(_, a)| a.kernels).sum();
    for (name, a) in loose {
        let mut k = Kernel::new(s.names[name as usize].to_string(), Format::PyTorchTrace);
        k.count = a.kernels;
        k.time = a.time * 1e-6;
        k.flops = a.kflops;
        k.bytes = a.kbytes;
        k.device.clone_from(&s.device);
        rows.push((a.first, k));
    }
    rows.sort_by_key(|(first, _)| *first);
    let mut kernels = Vec::with_capacity(rows.len());
    for (_, k) in rows {
        if k.time > 0.0 {
            kernels.push(k);
        } else {
            zero_time += 1;
        }
    }
    let total: f64 = s.gpu.iter().map(|g| g.dur).sum::<f64>() * 1e-6;
    let mut notes = vec![format!(
        "{} GPU kernels, {} in all: {attributed} matched to the operators that launched them, \
         {unowned} listed under their own names",
        s.gpu.len(),
        crate::units::format_quantity(total, crate::units::Unit::Seconds)
    )];
    if own_figures > 0 {
        notes.push(format!(
            "{own_figures} kernels carry their own FLOPs and bytes (Inductor's kernel_flop and \
             kernel_num_gb): each is placed by its own figures, under its own name"
        ));
    }
    if s.steps > 0 {
        let plural = if s.steps == 1 { "" } else { "s" };
        notes.push(format!(
            "the trace covers {} profiler step{plural}",
            s.steps
        ));
    }
    if s.mem_events > 0 {
        notes.push(format!(
            "{} memory copies and sets ({}) are not kernels and are left out",
            s.mem_events,
            crate::units::format_quantity(s.mem_time * 1e-6, crate::units::Unit::Seconds)
        ));
    }
    if zero_time > 0 {
        notes.push(format!(
            "{zero_time} records with zero GPU time were left out"
        ));
    }
    let no_flops = kernels.iter().filter(|k| k.flops.is_none()).count();
    let no_bytes = kernels
        .iter()
        .filter(|k| k.flops.is_some() && k.bytes.is_none())
        .count();
    if no_flops > 0 {
        notes.push(format!(
            "{no_flops} of {} records have no FLOP count (the trace gives FLOPs with \
             with_flops=True for matmuls and convolutions; shapes give them for matmuls): \
             they are not placed on the roofline",
            kernels.len()
        ));
    }
    if no_bytes > 0 {
        notes.push(format!(
            "{no_bytes} records have FLOPs but no bytes (bytes come from input shapes and \
             dtypes of matmul-like operators only): they are not placed on the roofline"
        ));
    }
    TraceResult {
        kernels,
        notes,
        device: s.device.clone(),
        steps: Vec::new(),
        parallel: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev_with(name: &str, dims: &str, types: &[&str]) -> Ev {
        let mut r = TraceReader::new(0);
        let text = format!(
            r#"[{{"ph":"X","cat":"cpu_op","name":"{name}","ts":0,"dur":1,"args":{{"Input Dims":{dims},"Input type":[{}]}}}}]"#,
            types
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        // Stop before the event is finished so its fields can be inspected.
        let cut = text.len() - 2;
        r.feed(&text.as_bytes()[..cut]).unwrap();
        std::mem::take(&mut r.sink.ev)
    }

    #[test]
    fn matmul_shapes_give_flops_and_bytes() {
        // aten::addmm(bias[64], x[4096, 100], w[100, 64]) in fp32: 2·4096·100·64 FLOPs;
        // bytes 4·(64 + 4096·100 + 100·64 + 4096·64).
        let ev = ev_with(
            "aten::addmm",
            "[[64], [4096, 100], [100, 64], [], []]",
            &["float", "float", "float", "Scalar", "Scalar"],
        );
        assert_eq!(ev.shape, "[[64], [4096, 100], [100, 64], [], []]");
        let (f, b) = matmul(&ev);
        assert_eq!(f, Some(2.0 * 4096.0 * 100.0 * 64.0));
        assert_eq!(
            b,
            Some(4.0 * (64.0 + 4096.0 * 100.0 + 100.0 * 64.0 + 4096.0 * 64.0))
        );
        // aten::bmm in bf16: [8, 128, 64] x [8, 64, 256].
        let ev = ev_with(
            "aten::bmm",
            "[[8, 128, 64], [8, 64, 256]]",
            &["c10::BFloat16", "c10::BFloat16"],
        );
        let (f, b) = matmul(&ev);
        assert_eq!(f, Some(2.0 * 8.0 * 128.0 * 64.0 * 256.0));
        assert_eq!(
            b,
            Some(2.0 * 8.0 * (128.0 * 64.0 + 64.0 * 256.0 + 128.0 * 256.0))
        );
        // aten::linear(x[2, 16, 32], w[8, 32], b[8]) in fp16.
        let ev = ev_with(
            "aten::linear",
            "[[2, 16, 32], [8, 32], [8]]",
            &["c10::Half", "c10::Half", "c10::Half"],
        );
        let (f, b) = matmul(&ev);
        assert_eq!(f, Some(2.0 * 32.0 * 32.0 * 8.0));
        assert_eq!(
            b,
            Some(2.0 * (2.0 * 16.0 * 32.0 + 8.0 * 32.0 + 8.0 + 32.0 * 8.0))
        );
        // Mismatched inner dimensions, unknown types, lists: no FLOPs or no bytes.
        assert_eq!(
            matmul(&ev_with(
                "aten::mm",
                "[[4, 5], [6, 7]]",
                &["float", "float"]
            )),
            (None, None)
        );
        assert_eq!(
            matmul(&ev_with("aten::mm", "[[4, 5], [5, 7]]", &["", "float"])).1,
            None
        );
        assert_eq!(
            matmul(&ev_with(
                "aten::mm",
                "[[[4, 5]], [5, 7]]",
                &["TensorList", "float"]
            ))
            .0,
            None
        );
        assert_eq!(
            matmul(&ev_with("aten::relu", "[[4, 5]]", &["float"])),
            (None, None)
        );
    }

    #[test]
    fn dtype_sizes() {
        assert_eq!(dtype_size("float"), 4);
        assert_eq!(dtype_size("c10::BFloat16"), 2);
        assert_eq!(dtype_size("c10::Half"), 2);
        assert_eq!(dtype_size("c10::Float8_e4m3fn"), 1);
        assert_eq!(dtype_size("long int"), 8);
        assert_eq!(dtype_size("Scalar"), 0);
    }
}
