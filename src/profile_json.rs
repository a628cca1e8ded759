//! A parsed profile as JSON, the form it crosses from the importer's worker to the page in
//! (issue 27: the importer is loaded on first use, `src/bin/import.rs`). The worker writes it
//! with [`crate::json`] (serde's field names: `format`, `kernels`, ...), the page reads it back
//! with the core's JSON tokenizer into the same [`Profile`], every number bit for bit, a slice
//! at a time ([`Reader`]). A serving engine's steps (issue 43) cross as their flat figures and
//! their span's name; the page reads the name again (`roofline::profile::steps::parse_span`,
//! a pure function of it) rather than the nested form the worker also writes.

use roofline::inputs::json::Value;
use roofline::profile::json::{Options, Sink, Token, Tokenizer};
use roofline::profile::steps::{parse_span, Span};
use roofline::profile::{Format, Kernel, Parallel, Profile, Step, TimeSource};

use crate::json_read::Doc;

/// The messages' name of the text.
const DOC: Doc = Doc("the imported profile");

/// `p` as JSON.
pub fn to_json(p: &Profile) -> String {
    crate::json::to_string_pretty(p).expect("strings, numbers and options")
}

/// The profile [`to_json`] wrote; says what is missing or malformed.
pub fn from_json(text: &str) -> Result<Profile, String> {
    let mut r = Reader::new();
    r.feed(text.as_bytes())?;
    r.finish()
}

/// Reads [`to_json`]'s text in slices of any size (the page feeds a big profile a slice per
/// task, so that no frame waits for it), building each kernel as its object ends: no tree of
/// the whole text is ever held.
pub struct Reader {
    tok: Tokenizer,
    build: Build,
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

impl Reader {
    /// A reader at the start of the text.
    pub fn new() -> Reader {
        Reader {
            tok: Tokenizer::new(Options::CONFIG),
            build: Build::default(),
        }
    }

    /// The next bytes of the text.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.tok
            .feed(bytes, &mut self.build)
            .map_err(|e| format!("the imported profile is not JSON: {e}"))
    }

    /// The profile, once the text has ended.
    pub fn finish(mut self) -> Result<Profile, String> {
        self.tok
            .finish(&mut self.build)
            .map_err(|e| format!("the imported profile is not JSON: {e}"))?;
        let b = self.build;
        let top = Value::Object(b.top);
        Ok(Profile {
            format: format(DOC.field(&top, "format")?)?,
            kernels: b.kernels.ok_or("the imported profile has no \"kernels\"")?,
            device: DOC.opt_text(&top, "device")?,
            compute_capability: DOC.opt_text(&top, "compute_capability")?,
            notes: b.notes.ok_or("the imported profile has no \"notes\"")?,
            steps: b.steps.unwrap_or_default(),
            parallel: b
                .parallel
                .map(|m| parallel(&Value::Object(m)))
                .transpose()?,
        })
    }
}

/// Where the reader is: the root object's scalar members, its `kernels`, `notes` and `steps`
/// lists, its `parallel` object, and the kernel or step object being read.
#[derive(Default)]
struct Build {
    depth: usize,
    key: String,
    list: Option<List>,
    top: Vec<(String, Value)>,
    kernel: Option<Vec<(String, Value)>>,
    kernel_key: String,
    kernels: Option<Vec<Kernel>>,
    notes: Option<Vec<String>>,
    steps: Option<Vec<Step>>,
    /// The `parallel` object's members, while and once read.
    parallel: Option<Vec<(String, Value)>>,
    in_parallel: bool,
    /// Containers open inside a step's member (its nested `span`, read again from the name).
    skip: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum List {
    Kernels,
    Notes,
    Steps,
}

impl Build {
    fn value(&mut self, v: Value) -> Result<(), String> {
        if self.skip > 0 {
            return Ok(());
        }
        match (self.depth, self.list) {
            (2, _) if self.in_parallel => {
                let k = std::mem::take(&mut self.kernel_key);
                self.parallel.get_or_insert_with(Vec::new).push((k, v));
            }
            (1, _) => self.top.push((std::mem::take(&mut self.key), v)),
            (2, Some(List::Notes)) => match v {
                Value::String(s) => self.notes.get_or_insert_with(Vec::new).push(s),
                _ => return Err("a note of the imported profile is not text".into()),
            },
            (2, Some(List::Kernels)) => {
                return Err("a kernel of the imported profile is not an object".into())
            }
            (2, Some(List::Steps)) => {
                return Err("a step of the imported profile is not an object".into())
            }
            (3, _) if self.kernel.is_some() => {
                let k = std::mem::take(&mut self.kernel_key);
                self.kernel.get_or_insert_with(Vec::new).push((k, v));
            }
            _ => {}
        }
        Ok(())
    }
}

impl Sink for Build {
    fn token(&mut self, t: Token<'_>) -> Result<(), String> {
        let in_step = self.list == Some(List::Steps) && self.kernel.is_some();
        match t {
            Token::BeginObject | Token::BeginArray if in_step && self.depth >= 3 => {
                self.depth += 1;
                self.skip += 1;
            }
            Token::EndObject | Token::EndArray if self.skip > 0 => {
                self.depth -= 1;
                self.skip -= 1;
            }
            Token::BeginObject => {
                self.depth += 1;
                if self.depth == 3 && matches!(self.list, Some(List::Kernels | List::Steps)) {
                    self.kernel = Some(Vec::new());
                } else if self.depth == 2 && self.list.is_none() && self.key == "parallel" {
                    self.in_parallel = true;
                    self.parallel = Some(Vec::new());
                    self.key.clear();
                } else if self.depth > 1 {
                    return Err("the imported profile nests an object where none belongs".into());
                }
            }
            Token::EndObject => {
                if self.depth == 3 {
                    if let Some(members) = self.kernel.take() {
                        let v = Value::Object(members);
                        if self.list == Some(List::Steps) {
                            let s = step(&v)?;
                            self.steps.get_or_insert_with(Vec::new).push(s);
                        } else {
                            let k = kernel(&v)?;
                            self.kernels.get_or_insert_with(Vec::new).push(k);
                        }
                    }
                }
                if self.depth == 2 {
                    self.in_parallel = false;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            Token::BeginArray => {
                self.depth += 1;
                if self.depth != 2 || self.in_parallel {
                    return Err("the imported profile nests a list where none belongs".into());
                }
                self.list = match self.key.as_str() {
                    "kernels" => {
                        self.kernels = Some(Vec::new());
                        Some(List::Kernels)
                    }
                    "notes" => {
                        self.notes = Some(Vec::new());
                        Some(List::Notes)
                    }
                    "steps" => {
                        self.steps = Some(Vec::new());
                        Some(List::Steps)
                    }
                    _ => None,
                };
                self.key.clear();
            }
            Token::EndArray => {
                self.list = None;
                self.depth = self.depth.saturating_sub(1);
            }
            Token::Key(_) if self.skip > 0 => {}
            Token::Key(k) if self.depth == 1 => self.key = k.to_string(),
            Token::Key(k) => self.kernel_key = k.to_string(),
            Token::Str(s) => self.value(Value::String(s.to_string()))?,
            Token::Num(n) => self.value(Value::Number(roofline::profile::json::number(n)?))?,
            Token::Bool(b) => self.value(Value::Bool(b))?,
            Token::Null => self.value(Value::Null)?,
        }
        Ok(())
    }
}

fn kernel(v: &Value) -> Result<Kernel, String> {
    let count = DOC
        .opt_number(v, "count")?
        .ok_or("a kernel has no launch count")?;
    if !(count >= 0.0 && count.fract() == 0.0 && count <= 2f64.powi(53)) {
        return Err(format!(
            "a kernel's launch count {count} is not a whole number"
        ));
    }
    Ok(Kernel {
        name: DOC.opt_text(v, "name")?.ok_or("a kernel has no name")?,
        kernel: DOC.opt_text(v, "kernel")?,
        shape: DOC.opt_text(v, "shape")?,
        device: DOC.opt_text(v, "device")?,
        count: count as u64,
        time: DOC.opt_number(v, "time")?.ok_or("a kernel has no time")?,
        flops: DOC.opt_number(v, "flops")?,
        bytes: DOC.opt_number(v, "bytes")?,
        bytes_read: DOC.opt_number(v, "bytes_read")?,
        bytes_written: DOC.opt_number(v, "bytes_written")?,
        flops_estimate: DOC.opt_text(v, "flops_estimate")?,
        source: format(DOC.field(v, "source")?)?,
    })
}

/// A step as the worker wrote it: its figures, and its span read again from its name.
fn step(v: &Value) -> Result<Step, String> {
    let whole = |k: &str| -> Result<f64, String> {
        let x = DOC
            .opt_number(v, k)?
            .ok_or_else(|| format!("a step has no \"{k}\""))?;
        if x >= 0.0 && x.fract() == 0.0 && x <= 2f64.powi(53) {
            Ok(x)
        } else {
            Err(format!("a step's \"{k}\" {x} is not a whole number"))
        }
    };
    let name = DOC.opt_text(v, "name")?.ok_or("a step has no name")?;
    let span = match parse_span(&name) {
        Ok(Span::Step(s)) => *s,
        _ => return Err(format!("the step name {name:?} does not read as a step")),
    };
    let source = match DOC.opt_text(v, "source")?.as_deref() {
        None => None,
        Some("gpu_span") => Some(TimeSource::GpuSpan),
        Some("kernels") => Some(TimeSource::Kernels),
        Some(s) => return Err(format!("a step's time source {s:?} is unknown")),
    };
    Ok(Step {
        index: whole("index")? as usize,
        name,
        span,
        start: DOC.opt_number(v, "start")?.ok_or("a step has no start")?,
        gpu_time: DOC.opt_number(v, "gpu_time")?,
        source,
        kernels: whole("kernels")? as u64,
    })
}

/// The trace's parallelism as the worker wrote it.
fn parallel(v: &Value) -> Result<Parallel, String> {
    Ok(Parallel {
        world: DOC.opt_number(v, "world")?,
        rank: DOC.opt_number(v, "rank")?,
        tp: DOC.opt_number(v, "tp")?,
        ep: DOC.opt_number(v, "ep")?,
        text: DOC.opt_text(v, "text")?.unwrap_or_default(),
    })
}

fn format(v: &Value) -> Result<Format, String> {
    Ok(match v.as_str() {
        Some("plain_csv") => Format::PlainCsv,
        Some("nsight_compute_raw") => Format::NsightComputeRaw,
        Some("nsight_compute_details") => Format::NsightComputeDetails,
        Some("py_torch_trace") => Format::PyTorchTrace,
        _ => return Err(format!("unknown profile format {}", v.brief())),
    })
}
