//! A trace's serving steps (issue 43): the engines' step spans (`steps.rs` reads their names)
//! joined to the GPU time each step took. A step span is a `record_function` on the CPU thread
//! that runs the forward (`cat: "user_annotation"`), mirrored by the profiler as a
//! `gpu_user_annotation` on the GPU stream that spans the step's kernels. Each step's
//! measured time is that GPU-side span; where the trace has none for it, the union of the
//! intervals of the kernels launched inside the CPU span (a kernel's launch is the runtime
//! call with its correlation id: one `cudaGraphLaunch` launches a whole CUDA graph). A GPU
//! span goes with the CPU span that launched most of the kernels inside it, else with the
//! oldest unmatched CPU span of the same name that began before it.

use super::fx::FxMap;
use super::steps::{parse_span, Dialect, Span, StepName};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a step's measured time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSource {
    /// The step's GPU-side span (`gpu_user_annotation`).
    GpuSpan,
    /// The union of its kernels' intervals (no GPU-side span).
    Kernels,
}

/// One step of the engine, as the trace gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Its place among the trace's steps, from 0 (the table's `data-step`).
    pub index: usize,
    /// The span's name.
    pub name: String,
    /// The name read.
    pub span: StepName,
    /// When it began, seconds after the trace's first step.
    pub start: f64,
    /// Its measured GPU time, seconds (`None`: no GPU span and no kernel found).
    pub gpu_time: Option<f64>,
    /// Where `gpu_time` comes from.
    pub source: Option<TimeSource>,
    /// Kernels launched inside it.
    pub kernels: u64,
}

/// The parallelism a trace's `distributedInfo` gives (PyTorch's profiler writes the process
/// groups: world size, this rank, and each group's description and size).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Parallel {
    /// Ranks in the job.
    pub world: Option<f64>,
    /// This trace's rank.
    pub rank: Option<f64>,
    /// Tensor-parallel group size, from a process group described as such.
    pub tp: Option<f64>,
    /// Expert-parallel group size, likewise.
    pub ep: Option<f64>,
    /// What was read, in words.
    pub text: String,
}

/// A step span as read (CPU or GPU side).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpanRec {
    pub name: u32,
    pub ts: f64,
    pub dur: f64,
    pub pid: u64,
    pub tid: u64,
    pub ext: Option<i64>,
    pub gpu: bool,
}

/// A kernel as the steps need it: when it ran and where it was launched from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KernelRec {
    pub ts: f64,
    pub dur: f64,
    /// The launch (pid, tid, ts), where the trace has it.
    pub launch: Option<(u64, u64, f64)>,
}

/// What the trace's `distributedInfo` held.
#[derive(Debug, Clone, Default)]
pub(crate) struct DistInfo {
    pub seen: bool,
    pub world: Option<f64>,
    pub rank: Option<f64>,
    /// Each process group's description (or name) and size.
    pub groups: Vec<(String, f64)>,
}

/// The steps and what the import says about them.
pub(crate) struct Collected {
    pub steps: Vec<Step>,
    pub parallel: Option<Parallel>,
    pub notes: Vec<String>,
}

/// Most names quoted in one note.
const MAX_QUOTED: usize = 3;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Reads a group's description as the parallelism it names: `tp`/`tensor` or `ep`/`expert`
/// (`moe_ep` too), as a word of the description (`tp`, `tp_group`, `tensor_model_parallel`).
fn group_kind(desc: &str) -> Option<&'static str> {
    let d = desc.to_ascii_lowercase();
    let words: Vec<&str> = d.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let has = |w: &str| words.contains(&w);
    if has("tp") || d.contains("tensor") {
        Some("tp")
    } else if has("ep") || d.contains("expert") {
        Some("ep")
    } else {
        None
    }
}

fn parallel(d: &DistInfo) -> Option<Parallel> {
    if !d.seen {
        return None;
    }
    let mut p = Parallel {
        world: d.world,
        rank: d.rank,
        ..Parallel::default()
    };
    for (desc, size) in &d.groups {
        match group_kind(desc) {
            Some("tp") if p.tp.is_none() => p.tp = Some(*size),
            Some("ep") if p.ep.is_none() => p.ep = Some(*size),
            _ => {}
        }
    }
    let n = |v: Option<f64>| v.map_or("?".to_string(), |x| format!("{x}"));
    let mut text = format!(
        "the trace's distributedInfo: rank {} of {}",
        n(d.rank),
        n(d.world)
    );
    match (p.tp, p.ep) {
        (None, None) if d.groups.is_empty() => text.push_str(", no process groups listed"),
        (None, None) => text.push_str(&format!(
            ", {} none described as tensor or expert parallel",
            plural(d.groups.len(), "process group,", "process groups,")
        )),
        _ => {
            if let Some(tp) = p.tp {
                text.push_str(&format!(", a tensor-parallel group of {tp}"));
            }
            if let Some(ep) = p.ep {
                text.push_str(&format!(", an expert-parallel group of {ep}"));
            }
        }
    }
    p.text = text;
    Some(p)
}

/// Builds the steps (see the module docs). `names` are the interned span names.
pub(crate) fn collect(
    spans: &[SpanRec],
    names: &[Box<str>],
    kernels: &[KernelRec],
    dist: &DistInfo,
) -> Collected {
    let mut notes = Vec::new();
    let parallel = parallel(dist);
    // Read each distinct name once.
    let mut read: FxMap<u32, Result<Span, String>> = FxMap::default();
    for s in spans {
        read.entry(s.name)
            .or_insert_with(|| parse_span(&names[s.name as usize]).map_err(|e| e.to_string()));
    }
    let mut skipped: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut bad: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut dialects: Vec<Dialect> = Vec::new();
    let mut cpu: Vec<usize> = Vec::new();
    let mut gpu: Vec<usize> = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        match &read[&s.name] {
            Ok(Span::Step(st)) => {
                if !dialects.contains(&st.dialect) {
                    dialects.push(st.dialect);
                }
                if s.gpu {
                    gpu.push(i);
                } else {
                    cpu.push(i);
                }
            }
            Ok(Span::Skip(_, why)) => {
                if !s.gpu {
                    *skipped.entry(why).or_default() += 1;
                }
            }
            Ok(Span::Other) => {}
            Err(e) => {
                if !s.gpu {
                    let entry = bad
                        .entry(e.clone())
                        .or_insert_with(|| (0, names[s.name as usize].to_string()));
                    entry.0 += 1;
                }
            }
        }
    }
    let by_start = |v: &mut Vec<usize>| {
        v.sort_by(|&a, &b| spans[a].ts.total_cmp(&spans[b].ts).then(a.cmp(&b)));
    };
    by_start(&mut cpu);
    by_start(&mut gpu);

    // Each kernel's CPU step: the step span on its launch thread that holds the launch.
    let mut per_thread: FxMap<(u64, u64), Vec<usize>> = FxMap::default();
    for (k, &i) in cpu.iter().enumerate() {
        per_thread
            .entry((spans[i].pid, spans[i].tid))
            .or_default()
            .push(k);
    }
    let owner_of = |launch: Option<(u64, u64, f64)>| -> Option<usize> {
        let (pid, tid, ts) = launch?;
        let list = per_thread.get(&(pid, tid))?;
        let at = list.partition_point(|&k| spans[cpu[k]].ts <= ts);
        let k = *list.get(at.checked_sub(1)?)?;
        let s = &spans[cpu[k]];
        (ts <= s.ts + s.dur).then_some(k)
    };
    let mut step_kernels: Vec<Vec<(f64, f64)>> = vec![Vec::new(); cpu.len()];
    // Kernels by start time, each with its CPU step, for the GPU spans' vote.
    let mut timeline: Vec<(f64, Option<usize>)> = Vec::with_capacity(kernels.len());
    for k in kernels {
        let owner = owner_of(k.launch);
        if let Some(o) = owner {
            step_kernels[o].push((k.ts, k.ts + k.dur));
        }
        timeline.push((k.ts, owner));
    }
    timeline.sort_by(|a, b| a.0.total_cmp(&b.0));

    // Pair GPU spans with CPU spans: the same External id (the profiler links a GPU-side
    // annotation to its CPU span so), else the vote of the kernels inside, else by name in
    // order.
    let mut by_ext: FxMap<i64, usize> = FxMap::default();
    for (k, &i) in cpu.iter().enumerate() {
        if let Some(e) = spans[i].ext {
            by_ext.entry(e).or_insert(k);
        }
    }
    let mut gpu_of: Vec<Option<usize>> = vec![None; cpu.len()];
    let mut lone_gpu: Vec<usize> = Vec::new();
    let mut waiting: FxMap<u32, std::collections::VecDeque<usize>> = FxMap::default();
    let mut next_cpu = 0;
    let mut votes: Vec<usize> = vec![0; cpu.len()];
    for &g in &gpu {
        let gs = &spans[g];
        while next_cpu < cpu.len() && spans[cpu[next_cpu]].ts <= gs.ts {
            waiting
                .entry(spans[cpu[next_cpu]].name)
                .or_default()
                .push_back(next_cpu);
            next_cpu += 1;
        }
        let lo = timeline.partition_point(|t| t.0 < gs.ts);
        let hi = timeline.partition_point(|t| t.0 <= gs.ts + gs.dur);
        // Each CPU step's votes, counted in `votes` (all zero between GPU spans).
        let mut voters: Vec<usize> = Vec::new();
        for t in &timeline[lo..hi] {
            if let Some(o) = t.1 {
                if votes[o] == 0 {
                    voters.push(o);
                }
                votes[o] += 1;
            }
        }
        let voted = voters
            .iter()
            .map(|&o| (o, std::mem::take(&mut votes[o])))
            .filter(|(o, _)| spans[cpu[*o]].name == gs.name && gpu_of[*o].is_none())
            .max_by_key(|&(o, n)| (n, std::cmp::Reverse(o)))
            .map(|(o, _)| o);
        let linked = gs
            .ext
            .and_then(|e| by_ext.get(&e).copied())
            .filter(|&o| spans[cpu[o]].name == gs.name && gpu_of[o].is_none());
        let chosen = linked.or(voted).or_else(|| {
            let q = waiting.get_mut(&gs.name)?;
            while let Some(&o) = q.front() {
                if gpu_of[o].is_none() {
                    return q.pop_front();
                }
                q.pop_front();
            }
            None
        });
        match chosen {
            Some(o) => gpu_of[o] = Some(g),
            None => lone_gpu.push(g),
        }
    }

    // The steps, in the order they began: (start, name, GPU time, its source, kernels).
    type Row = (f64, u32, Option<f64>, Option<TimeSource>, u64);
    let mut rows: Vec<Row> = Vec::new();
    let mut no_time = 0usize;
    for (k, &i) in cpu.iter().enumerate() {
        let s = &spans[i];
        let ks = &mut step_kernels[k];
        let (time, source) = match gpu_of[k] {
            Some(g) => (Some(spans[g].dur * 1e-6), Some(TimeSource::GpuSpan)),
            None if !ks.is_empty() => (Some(union(ks) * 1e-6), Some(TimeSource::Kernels)),
            None => {
                no_time += 1;
                (None, None)
            }
        };
        rows.push((s.ts, s.name, time, source, ks.len() as u64));
    }
    for &g in &lone_gpu {
        let s = &spans[g];
        rows.push((
            s.ts,
            s.name,
            Some(s.dur * 1e-6),
            Some(TimeSource::GpuSpan),
            0,
        ));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let t0 = rows.first().map_or(0.0, |r| r.0);
    let steps: Vec<Step> = rows
        .into_iter()
        .enumerate()
        .filter_map(|(index, (ts, name, gpu_time, source, kernels))| {
            let Ok(Span::Step(span)) = read[&name].clone() else {
                return None;
            };
            Some(Step {
                index,
                name: names[name as usize].to_string(),
                span: *span,
                start: (ts - t0) * 1e-6,
                gpu_time,
                source,
                kernels,
            })
        })
        .collect();

    // What the import says.
    if !steps.is_empty() {
        let from_kernels = steps
            .iter()
            .filter(|s| s.source == Some(TimeSource::Kernels))
            .count();
        let labels: Vec<&str> = dialects.iter().map(|d| d.label()).collect();
        notes.push(format!(
            "{} of {} ({} with the GPU-side span's time{})",
            plural(steps.len(), "step", "steps"),
            labels.join(" and "),
            steps.len() - from_kernels - no_time,
            if from_kernels > 0 {
                format!(
                    ", {from_kernels} with their kernels' union where the trace has no GPU-side span"
                )
            } else {
                String::new()
            }
        ));
        if !lone_gpu.is_empty() {
            notes.push(format!(
                "{} without a CPU-side span (read from the GPU stream alone)",
                plural(lone_gpu.len(), "step", "steps")
            ));
        }
        if no_time > 0 {
            notes.push(format!(
                "{} with no GPU time: no GPU-side span and no kernel launched inside them (was \
                 the GPU stream recorded? ProfilerActivity.CUDA): listed without a measured time",
                plural(no_time, "step", "steps")
            ));
        }
        for d in &dialects {
            let native = steps
                .iter()
                .filter(|s| s.span.dialect == *d && !s.span.detailed())
                .count();
            if native > 0 {
                notes.push(format!(
                    "{} without the contexts a step's time needs (the engine's plain annotation): \
                     their measured time is listed, not their bound; {}",
                    plural(
                        native,
                        &format!("{} step", d.label()),
                        &format!("{} steps", d.label())
                    ),
                    d.flag()
                ));
            }
        }
        let padded = steps.iter().filter(|s| s.span.padded.is_some()).count();
        if padded > 0 {
            notes.push(format!(
                "{} ran a CUDA graph padded past the real batch (bs=real/padded): the step is \
                 timed at its real batch; the padding is work the bound does not count",
                plural(padded, "step", "steps")
            ));
        }
        let pids: std::collections::BTreeSet<u64> = cpu.iter().map(|&i| spans[i].pid).collect();
        if pids.len() > 1 {
            notes.push(format!(
                "step spans from {} processes: a trace is read as one rank's, and these may be \
                 several ranks merged",
                pids.len()
            ));
        }
    }
    for (why, n) in &skipped {
        notes.push(format!("{} left out: {why}", plural(*n, "span", "spans")));
    }
    for (i, (e, (n, example))) in bad.iter().enumerate() {
        if i == MAX_QUOTED {
            notes.push(format!(
                "… and {} more kinds of malformed step names",
                bad.len() - MAX_QUOTED
            ));
            break;
        }
        notes.push(format!(
            "{} not read ({e}), e.g. `{}`; the rest imported",
            plural(*n, "step span", "step spans"),
            crate::error::clip_text(example, 120)
        ));
    }
    Collected {
        steps,
        parallel,
        notes,
    }
}

/// Total length of the union of intervals (sorted here).
fn union(v: &mut [(f64, f64)]) -> f64 {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut total = 0.0;
    let mut cur: Option<(f64, f64)> = None;
    for &(a, b) in v.iter() {
        match &mut cur {
            Some((_, e)) if a <= *e => *e = e.max(b),
            _ => {
                if let Some((s, e)) = cur {
                    total += e - s;
                }
                cur = Some((a, b));
            }
        }
    }
    if let Some((s, e)) = cur {
        total += e - s;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_of_overlapping_kernels() {
        // [0,10] ∪ [5,12] ∪ [20,25]: 12 + 5.
        assert_eq!(union(&mut [(20.0, 25.0), (0.0, 10.0), (5.0, 12.0)]), 17.0);
        assert_eq!(union(&mut []), 0.0);
    }

    #[test]
    fn groups_named_by_their_descriptions() {
        assert_eq!(group_kind("tp"), Some("tp"));
        assert_eq!(group_kind("tp_group:0"), Some("tp"));
        assert_eq!(group_kind("tensor_model_parallel"), Some("tp"));
        assert_eq!(group_kind("moe_ep"), Some("ep"));
        assert_eq!(group_kind("default_pg"), None);
        assert_eq!(group_kind("undefined"), None);
        assert_eq!(group_kind("step"), None);
    }
}
