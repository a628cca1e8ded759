//! Over 600 lines only with its unit tests: the reader itself ends where `mod tests` begins.
//!
//! Nsight Compute CSV exports: the raw page (`ncu --csv --page raw`: one row per kernel launch,
//! one column per metric, a units row under the header) and the details page (`ncu --csv
//! --page details`, the default: one row per metric with `Section Name`, `Metric Name`,
//! `Metric Unit` and `Metric Value` columns). See the parent module for the metrics read.

use super::csv::Record;
use super::{Format, Kernel};
use std::collections::HashMap;

/// The page of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Page {
    Raw,
    Details,
}

/// Which page a header line (already split into cells) starts, if any: the first cell is
/// `ID` and a `Kernel Name` column exists; the details page also has `Metric Name` and
/// `Metric Value`.
pub(crate) fn detect(cells: &[String]) -> Option<Page> {
    let has = |n: &str| cells.iter().any(|c| c == n);
    if cells.first().map(String::as_str) != Some("ID")
        || !(has("Kernel Name") || has("Function Name"))
    {
        return None;
    }
    Some(if has("Metric Name") && has("Metric Value") {
        Page::Details
    } else {
        Page::Raw
    })
}

/// The scale of an ncu unit to base units (seconds, bytes, counts): `usecond` → 1e-6,
/// `Mbyte` → 1e6, `Gbyte/second` → 1e9, `cycle/nsecond` → 1e9, `%` → 1. `None` when unknown.
pub(crate) fn unit_scale(unit: &str) -> Option<f64> {
    let u = unit.trim();
    if let Some((num, den)) = u.split_once('/') {
        // Per unit of time: exact inverses (1/1e-9 is not 1e9 in floating point).
        let per = match den.trim() {
            "second" | "s" | "sec" => Some(1.0),
            "msecond" | "ms" => Some(1e3),
            "usecond" | "us" => Some(1e6),
            "nsecond" | "ns" => Some(1e9),
            d => unit_scale(d).filter(|d| *d != 0.0).map(|d| 1.0 / d),
        };
        return Some(unit_scale(num)? * per?);
    }
    let time = match u {
        "" | "%" => Some(1.0),
        "second" | "s" | "sec" => Some(1.0),
        "msecond" | "ms" => Some(1e-3),
        "usecond" | "us" | "µs" => Some(1e-6),
        "nsecond" | "ns" => Some(1e-9),
        "psecond" | "ps" => Some(1e-12),
        _ => None,
    };
    if time.is_some() {
        return time;
    }
    let lower = u.to_ascii_lowercase();
    if let Some(p) = lower.strip_suffix("hz") {
        return match p {
            "" => Some(1.0),
            "k" => Some(1e3),
            "m" => Some(1e6),
            "g" => Some(1e9),
            _ => None,
        };
    }
    let base = |s: &str| {
        matches!(
            s,
            "byte"
                | "inst"
                | "cycle"
                | "sector"
                | "warp"
                | "thread"
                | "block"
                | "register"
                | "request"
                | "wavefront"
                | "pass"
                | "cluster"
                | "op"
                | "ops"
                | "flop"
        )
    };
    if base(u) {
        return Some(1.0); // byte, inst, cycle, sector, warp, thread, ...
    }
    let binary = match u {
        "KiB" | "Kibyte" => Some(1024.0),
        "MiB" | "Mibyte" => Some(1048576.0),
        "GiB" | "Gibyte" => Some(1073741824.0),
        _ => None,
    };
    if binary.is_some() {
        return binary;
    }
    let mut c = u.chars();
    let scale = match c.next()? {
        'K' | 'k' => 1e3,
        'M' => 1e6,
        'G' => 1e9,
        'T' => 1e12,
        'P' => 1e15,
        _ => return None,
    };
    base(c.as_str()).then_some(scale)
}

/// A metric value as ncu prints it: `5,318,969,728.00` (thousands separators), `n/a`. The
/// metrics read are counts, sizes and durations: a negative value is refused like `n/a`.
fn number(text: &str) -> Option<f64> {
    let t = text.trim();
    let v: f64 = if t.contains(',') {
        t.replace(',', "").parse().ok()?
    } else {
        t.parse().ok()?
    };
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// Whether a metric is one this importer reads (others are not kept).
fn wanted(name: &str) -> bool {
    matches!(
        name,
        "gpu__time_duration.sum"
            | "Duration"
            | "sm__cycles_elapsed.avg"
            | "sm__cycles_elapsed.avg.per_second"
            | "smsp__cycles_elapsed.avg"
            | "smsp__cycles_elapsed.avg.per_second"
            | "dram__bytes.sum"
            | "dram__bytes_read.sum"
            | "dram__bytes_write.sum"
            | "dram__sectors_read.sum"
            | "dram__sectors_write.sum"
    ) || (name.starts_with("sm__ops_path_tensor_src_") && name.ends_with(".sum"))
        || ((name.starts_with("sm__inst_executed_pipe_tensor")
            || name.starts_with("smsp__inst_executed_pipe_tensor"))
            && name.ends_with(".sum"))
        || ((name.starts_with("sm__sass_thread_inst_executed_op_")
            || name.starts_with("smsp__sass_thread_inst_executed_op_"))
            && name.ends_with("_pred_on.sum"))
}

/// One profiled kernel launch, with the metrics read, in base units.
#[derive(Debug, Default)]
struct Launch {
    name: String,
    cc: Option<(u32, u32)>,
    device: Option<String>,
    metrics: HashMap<String, f64>,
    line: u64,
}

impl Launch {
    fn get(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).copied()
    }
}

fn parse_cc(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.trim().split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// FLOPs per tensor-pipe warp instruction when the export has no exact tensor op count:
/// `Ok((flops, why))`, or `Err(why not)`.
///
/// The instruction shape `m·n·k` gives `2·m·n·k` FLOPs per warp-level MMA: `m16n8k16`
/// (`HMMA.16816`) 4096, `m16n8k8` (`HMMA.1688`) 2048, `m16n8k32` (`IMMA.16832`) 8192. On Volta
/// (CC 7.0, 7.2) ncu counts each `HMMA.884` step of an `mma.m8n8k4`, 512 FLOPs (NERSC's
/// roofline methodology uses 512 for V100). The shape is read from the kernel name
/// (`s16816gemm`, `s1688gemm`, CUTLASS's `arch::Mma<cutlass::gemm::GemmShape<16, 8, 8>`), else
/// assumed from the compute capability: 7.5 (Turing) `HMMA.1688`, 8.x `HMMA.16816`. From CC
/// 9.0 on, warpgroup MMAs (`HGMMA`) do far more work per instruction, in shapes the name does
/// not tell: no estimate.
pub(crate) fn tensor_flops_per_instruction(
    name: &str,
    cc: Option<(u32, u32)>,
) -> Result<(f64, String), String> {
    if let Some((7, minor)) = cc {
        if minor < 5 {
            return Ok((512.0, format!("HMMA.884 on Volta (CC 7.{minor})")));
        }
    }
    let cutlass = name
        .find("arch::Mma<cutlass::gemm::GemmShape<")
        .map(|i| &name[i + "arch::Mma<cutlass::gemm::GemmShape<".len()..])
        .and_then(|rest| {
            let inner = rest.split('>').next()?;
            let dims: Vec<u64> = inner
                .split(',')
                .map(|d| d.replace("(int)", "").trim().parse().ok())
                .collect::<Option<_>>()?;
            (dims.len() == 3).then(|| (dims[0], dims[1], dims[2]))
        });
    let shape = match cutlass {
        Some(s) => Some(s),
        None if name.contains("16832") => Some((16, 8, 32)),
        None if name.contains("16816") => Some((16, 8, 16)),
        None if name.contains("1688") => Some((16, 8, 8)),
        None => None,
    };
    if let Some((m, n, k)) = shape {
        if m * n * k <= 1 << 16 {
            return Ok((
                (2 * m * n * k) as f64,
                format!("m{m}n{n}k{k} from the kernel name"),
            ));
        }
    }
    match cc {
        Some((7, 5)) => Ok((2048.0, "HMMA.1688, assumed on Turing (CC 7.5)".into())),
        Some((8, minor)) => Ok((4096.0, format!("HMMA.16816, assumed on CC 8.{minor}"))),
        Some((major, minor)) => Err(format!(
            "its tensor-pipe instructions on CC {major}.{minor} have no known FLOP count \
             (collect the sm__ops_path_tensor_* metrics)"
        )),
        None => Err(
            "its tensor-pipe instructions cannot be counted without a compute capability \
                     (collect the sm__ops_path_tensor_* metrics)"
                .into(),
        ),
    }
}

/// Turns one launch into a kernel record (`None` without a duration).
fn kernel(l: &Launch, format: Format, notes: &mut Notes) -> Option<Kernel> {
    let time = l
        .get("gpu__time_duration.sum")
        .or_else(|| l.get("Duration"))
        .or_else(|| {
            ["sm", "smsp"].iter().find_map(|p| {
                let cycles = l.get(&format!("{p}__cycles_elapsed.avg"))?;
                let rate = l.get(&format!("{p}__cycles_elapsed.avg.per_second"))?;
                (rate > 0.0).then(|| cycles / rate)
            })
        })
        .filter(|t| *t > 0.0);
    let Some(time) = time else {
        notes.no_time += 1;
        return None;
    };
    let mut k = Kernel::new(l.name.clone(), format);
    k.time = time;
    k.device = l.device.clone();
    let read = l
        .get("dram__bytes_read.sum")
        .or_else(|| l.get("dram__sectors_read.sum").map(|s| 32.0 * s));
    let write = l
        .get("dram__bytes_write.sum")
        .or_else(|| l.get("dram__sectors_write.sum").map(|s| 32.0 * s));
    match (read, write) {
        (Some(r), Some(w)) => {
            k.bytes = Some(r + w);
            k.bytes_read = Some(r);
            k.bytes_written = Some(w);
        }
        _ => k.bytes = l.get("dram__bytes.sum"),
    }
    // FP instructions: add + mul + 2·fma per precision, thread level, predicated on.
    let mut scalar = None;
    for prefix in ["smsp", "sm"] {
        let mut sum = 0.0;
        let mut any = false;
        for p in ['d', 'f', 'h'] {
            for (op, weight) in [("add", 1.0), ("mul", 1.0), ("fma", 2.0)] {
                let m = format!("{prefix}__sass_thread_inst_executed_op_{p}{op}_pred_on.sum");
                if let Some(v) = l.get(&m) {
                    sum += weight * v;
                    any = true;
                }
            }
        }
        if any {
            scalar = Some(sum);
            break;
        }
    }
    // Tensor pipe: exact operation counts, else instructions × FLOPs per instruction.
    let exact: Vec<f64> = l
        .metrics
        .iter()
        .filter(|(n, _)| n.starts_with("sm__ops_path_tensor_src_") && !n.contains("_sparsity_"))
        .map(|(_, v)| *v)
        .collect();
    let inst = ["sm", "smsp"].iter().find_map(|p| {
        l.get(&format!("{p}__inst_executed_pipe_tensor.sum"))
            .or_else(|| {
                let parts: Vec<f64> = l
                    .metrics
                    .iter()
                    .filter(|(n, _)| {
                        n.starts_with(&format!("{p}__inst_executed_pipe_tensor_op_"))
                            && n.ends_with(".sum")
                    })
                    .map(|(_, v)| *v)
                    .collect();
                (!parts.is_empty()).then(|| parts.iter().sum())
            })
    });
    let tensor: Result<Option<f64>, String> = if !exact.is_empty() {
        Ok(Some(exact.iter().sum()))
    } else {
        match inst {
            None => Ok(None),
            Some(0.0) => Ok(Some(0.0)),
            Some(i) => match tensor_flops_per_instruction(&l.name, l.cc) {
                Ok((per, why)) => {
                    k.flops_estimate = Some(format!(
                        "tensor FLOPs estimated: {} tensor-pipe instructions × {per} FLOPs ({why})",
                        crate::units::format_sig(i, 4)
                    ));
                    notes.estimated += 1;
                    Ok(Some(i * per))
                }
                Err(why) => Err(why),
            },
        }
    };
    k.flops = match (scalar, tensor) {
        (_, Err(why)) => {
            notes.tensor_unknown += 1;
            k.flops_estimate = Some(format!("FLOPs unknown: {why}"));
            None
        }
        (Some(s), Ok(t)) => Some(s + t.unwrap_or(0.0)),
        (None, Ok(Some(t))) if t > 0.0 => {
            notes.tensor_only += 1;
            Some(t)
        }
        (None, Ok(_)) => None,
    };
    Some(k)
}

/// Counts for the import notes.
#[derive(Debug, Default)]
struct Notes {
    no_time: usize,
    estimated: usize,
    tensor_unknown: usize,
    tensor_only: usize,
    bad_units: Vec<String>,
}

/// Reads the records of an ncu export after its header.
pub(crate) struct NcuCsv {
    page: Page,
    col: HashMap<&'static str, usize>,
    /// Raw page: the metric columns read, with their scale once the units row is seen.
    metric_cols: Vec<(usize, String, Option<f64>)>,
    units_seen: bool,
    launches: Vec<Launch>,
    index: HashMap<(String, String), usize>,
    notes: Notes,
}

impl NcuCsv {
    pub(crate) fn new(page: Page, header: &[String]) -> Self {
        let mut col = HashMap::new();
        for (name, keys) in [
            ("id", &["ID"][..]),
            ("pid", &["Process ID"]),
            ("name", &["Kernel Name", "Function Name"]),
            ("cc", &["CC"]),
            ("device", &["device__attribute_display_name"]),
            ("metric", &["Metric Name"]),
            ("unit", &["Metric Unit"]),
            ("value", &["Metric Value"]),
        ] {
            if let Some(i) = keys.iter().find_map(|k| header.iter().position(|h| h == k)) {
                col.insert(name, i);
            }
        }
        let metric_cols = if page == Page::Raw {
            header
                .iter()
                .enumerate()
                .filter(|(_, h)| wanted(h))
                .map(|(i, h)| (i, h.clone(), None))
                .collect()
        } else {
            Vec::new()
        };
        NcuCsv {
            page,
            col,
            metric_cols,
            units_seen: false,
            launches: Vec::new(),
            index: HashMap::new(),
            notes: Notes::default(),
        }
    }

    fn cell<'a>(&self, rec: &Record<'a>, name: &str) -> &'a str {
        self.col.get(name).map_or("", |&i| rec.get(i).trim())
    }

    /// One record after the header.
    pub(crate) fn record(&mut self, rec: &Record<'_>) -> Result<(), String> {
        if rec.is_blank() || rec.get(0).starts_with("==") {
            return Ok(()); // ncu's own log lines
        }
        let id = self.cell(rec, "id");
        match self.page {
            Page::Raw => {
                if id.is_empty() && !self.units_seen {
                    for (i, name, scale) in &mut self.metric_cols {
                        let unit = rec.get(*i).trim();
                        *scale = unit_scale(unit);
                        if scale.is_none() {
                            self.notes.bad_units.push(format!("{name} in `{unit}`"));
                        }
                    }
                    self.units_seen = true;
                    return Ok(());
                }
                if !self.units_seen {
                    // No units row: ncu's base units (durations in nanoseconds).
                    for (_, name, scale) in &mut self.metric_cols {
                        *scale = Some(if name == "gpu__time_duration.sum" {
                            1e-9
                        } else {
                            1.0
                        });
                    }
                    self.units_seen = true;
                }
                let mut l = Launch {
                    name: self.cell(rec, "name").to_string(),
                    cc: parse_cc(self.cell(rec, "cc")),
                    device: Some(self.cell(rec, "device").to_string()).filter(|d| !d.is_empty()),
                    line: rec.line,
                    ..Launch::default()
                };
                for (i, name, scale) in &self.metric_cols {
                    if let (Some(s), Some(v)) = (scale, number(rec.get(*i))) {
                        l.metrics.insert(name.clone(), v * s);
                    }
                }
                self.launches.push(l);
            }
            Page::Details => {
                let metric = self.cell(rec, "metric");
                if !wanted(metric) {
                    return Ok(());
                }
                let key = (id.to_string(), self.cell(rec, "pid").to_string());
                let idx = match self.index.get(&key) {
                    Some(&i) => i,
                    None => {
                        self.launches.push(Launch {
                            name: self.cell(rec, "name").to_string(),
                            cc: parse_cc(self.cell(rec, "cc")),
                            line: rec.line,
                            ..Launch::default()
                        });
                        self.index.insert(key, self.launches.len() - 1);
                        self.launches.len() - 1
                    }
                };
                let unit = self.cell(rec, "unit");
                let Some(v) = number(self.cell(rec, "value")) else {
                    return Ok(()); // `n/a`
                };
                match unit_scale(unit) {
                    Some(s) => {
                        self.launches[idx]
                            .metrics
                            .entry(metric.to_string())
                            .or_insert(v * s);
                    }
                    None => {
                        if self.notes.bad_units.len() < 8 {
                            self.notes.bad_units.push(format!("{metric} in `{unit}`"));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The kernels and the notes for the user.
    /// The compute capability the export names (the first launch's `CC`, `12.0`), if any.
    pub(crate) fn compute_capability(&self) -> Option<String> {
        self.launches
            .iter()
            .find_map(|l| l.cc)
            .map(|(a, b)| format!("{a}.{b}"))
    }

    pub(crate) fn finish(mut self) -> Result<(Vec<Kernel>, Vec<String>), String> {
        if self.launches.is_empty() {
            return Err(
                "the Nsight Compute export has a header but no kernel rows: ncu profiled no kernel"
                    .into(),
            );
        }
        let format = match self.page {
            Page::Raw => Format::NsightComputeRaw,
            Page::Details => Format::NsightComputeDetails,
        };
        let mut kernels = Vec::new();
        for l in &self.launches {
            if l.name.is_empty() {
                return Err(format!("line {}: a kernel without a name", l.line));
            }
            if let Some(k) = kernel(l, format, &mut self.notes) {
                kernels.push(k);
            }
        }
        let n = &self.notes;
        let mut notes = Vec::new();
        if kernels.is_empty() {
            return Err(format!(
                "none of the {} kernels has a duration: export gpu__time_duration.sum (or \
                 sm__cycles_elapsed.avg and sm__cycles_elapsed.avg.per_second)",
                self.launches.len()
            ));
        }
        if n.no_time > 0 {
            notes.push(format!(
                "{} kernels without a duration (gpu__time_duration.sum) were left out",
                n.no_time
            ));
        }
        let no_bytes = kernels.iter().filter(|k| k.bytes.is_none()).count();
        if no_bytes > 0 {
            notes.push(format!(
                "{no_bytes} of {} kernels have no DRAM bytes (dram__bytes_read.sum and \
                 dram__bytes_write.sum, or dram__bytes.sum): they are not placed on the roofline",
                kernels.len()
            ));
        }
        let no_flops = kernels.iter().filter(|k| k.flops.is_none()).count();
        if no_flops > n.tensor_unknown {
            notes.push(format!(
                "{} of {} kernels have no FLOP counts (the sm__sass_thread_inst_executed_op_* \
                 and tensor-pipe metrics): they are not placed on the roofline",
                no_flops - n.tensor_unknown,
                kernels.len()
            ));
        }
        if n.estimated > 0 {
            notes.push(format!(
                "{} kernels count tensor FLOPs from tensor-pipe instructions × an assumed MMA \
                 shape (marked as estimated)",
                n.estimated
            ));
        }
        if n.tensor_unknown > 0 {
            notes.push(format!(
                "{} kernels ran tensor-pipe instructions whose FLOPs cannot be known from this \
                 export (collect sm__ops_path_tensor_*): they are not placed on the roofline",
                n.tensor_unknown
            ));
        }
        if n.tensor_only > 0 {
            notes.push(format!(
                "{} kernels count tensor-pipe operations only (the export has no \
                 sm__sass_thread_inst_executed_op_* metrics for FP32/FP16/FP64 instructions)",
                n.tensor_only
            ));
        }
        if !n.bad_units.is_empty() {
            notes.push(format!(
                "metrics in unknown units were skipped: {}",
                n.bad_units.join(", ")
            ));
        }
        Ok((kernels, notes))
    }
}

#[cfg(test)]
mod tests;
