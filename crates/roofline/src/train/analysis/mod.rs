//! [`analyze_train`]: the step of a [`TrainConfig`] on its mesh, with every number written out.

mod criticals;
mod derivation;
mod memory;
mod split;
mod types;

pub(crate) use split::divisors;
pub use types::{
    Budget, Critical, FlopsPerToken, LinkTime, Memory, ModelMemory, OptimalFsdp, PartCost,
    TrainAnalysis, TrainBound, TrainCollective,
};

use super::config::{Schedule, TrainConfig};
use super::critical::Regime;
use super::fabric::MeshAxis;
use super::model::{attn_dot_fwd, part_params, StepCosts, Times};
use crate::collective::Topology;
use crate::error::Error;
use crate::units::{format_exact, format_quantity, format_sig, Unit};

fn fs(x: f64) -> String {
    format_quantity(x, Unit::Seconds)
}
fn fb(x: f64) -> String {
    format_quantity(x, Unit::Bytes)
}
fn ff(x: f64) -> String {
    format_quantity(x, Unit::Flops)
}
fn fr(x: f64) -> String {
    format_quantity(x, Unit::ByteRate)
}
fn sig(x: f64) -> String {
    format_sig(x, 4)
}
fn nn(x: f64) -> String {
    format_exact(x)
}

const SEC_DP: &str =
    "training.md, \"Data Parallelism\"; gpus.md, \"Data Parallelism\" (MoE: × E/k)";
const SEC_FSDP: &str = "training.md, \"Fully-Sharded Data Parallelism (FSDP)\" and \"Combining FSDP and Tensor Parallelism\"";
const SEC_TP: &str = "training.md, \"Tensor Parallelism\"; gpus.md, \"Tensor Parallelism\"";
const SEC_DCN: &str = "training.md, \"Scaling Across Pods\"";
const SEC_EP: &str = "gpus.md, \"Expert Parallelism\"";
const SEC_PP: &str = "gpus.md, \"Pipeline Parallelism\"";
const SEC_HBM: &str = "training.md, \"Data Parallelism\" (\"even a tiny batch size (>240 tokens, so as to be compute-bound)\"); roofline.md";

/// The MLP width the book's rules use: `F` of the dense MLP, or `k·F_e + S_e·F_s` for a model
/// with only MoE layers.
pub(crate) fn f_eff(cfg: &TrainConfig) -> f64 {
    let a = &cfg.arch;
    match &a.moe {
        Some(m) if a.dense_mlp_layers() == 0.0 => {
            m.top_k * m.expert_ffn
                + if m.shared_experts > 0.0 {
                    m.shared_experts * m.shared_ffn
                } else {
                    0.0
                }
        }
        _ => a.ffn,
    }
}

/// The book's MoE factor `E/k` (with expert parallelism, `E/(ep·k)`), 1 for a dense model.
fn moe_factor(cfg: &TrainConfig) -> f64 {
    cfg.arch
        .moe
        .map_or(1.0, |m| m.experts / (cfg.mesh.ep * m.top_k))
}

/// Analyzes a training step: FLOPs, every collective, overlap, the bound, MFU, tokens/s,
/// memory, critical batches, the best FSDP × TP split and the time and cost of the budget.
/// The figures come from [`step_figures`] and the sub-analyses (memory, critical batches,
/// split); the derivation's prose from `derivation.rs`, in the order the figures are found.
///
/// ```
/// use roofline::train::{analyze_train, TrainConfig};
/// // The default: LLaMA-3 70B, 4M tokens per step on 8192 TPU v5p (applied-training.md).
/// let a = analyze_train(&TrainConfig::default()).unwrap();
/// assert_eq!(a.chips, 8192.0);
/// assert!(a.fits && a.mfu > 0.5 && a.t_lower <= a.t_upper);
/// ```
pub fn analyze_train(cfg: &TrainConfig) -> Result<TrainAnalysis, Error> {
    cfg.validate()?;
    let model = StepCosts::build(cfg, true)?;
    let t = model.eval(model.b0);
    let s = step_figures(cfg, &model, &t);
    let mut d = Vec::new();
    derivation::head(cfg, &model, &t, &s, &mut d);
    derivation::collectives(&model, &mut d);
    let links = link_times(&model, &t, &mut d);
    derivation::step(cfg, &model, &t, &s, &mut d);
    let memory = memory::memory(cfg, &model, &mut d);
    if let Some(bud) = &s.budget {
        derivation::budget(cfg, bud, &mut d);
    }
    let critical = criticals::criticals(cfg, &model, &mut d);
    let critical_b = critical_b(&critical);
    let optimal_fsdp = split::optimal_fsdp(cfg, &model, &mut d);
    let notes = notes(cfg, &model, &memory);
    Ok(TrainAnalysis {
        chips: model.chips,
        tokens_per_chip: model.b0,
        sequences: cfg.sequences(),
        params: cfg.arch.params(),
        flops: s.flops,
        flops_per_chip: s.flops_per_chip,
        t_fwd: t.t_fwd,
        t_bwd: t.t_bwd,
        t_math: t.t_math,
        t_hbm: t.t_hbm,
        t_bubble: t.t_bubble,
        bubble_fraction: s.bubble_fraction,
        t_lower: t.t_lower,
        t_upper: t.t_upper,
        bound: t.bound,
        links,
        collectives: s.collectives,
        parts: part_costs(cfg, &model, &t),
        mfu: s.mfu,
        mfu_min: s.mfu_min,
        hfu: s.hfu,
        tokens_per_s: s.tokens_per_s,
        tokens_per_s_min: s.tokens_per_s_min,
        days: s.budget.map(|x| x.days),
        cost: s.budget.and_then(|x| x.cost),
        budget: s.budget,
        fits: memory.fits,
        memory,
        critical,
        critical_b,
        optimal_fsdp,
        notes,
        derivation: d,
    })
}

/// The step's own figures, without prose: FLOPs per token, the collectives, the bubble, MFU,
/// tokens/s and the budget.
struct Step {
    flops: FlopsPerToken,
    /// Parameters of the modelled parts (the MLP blocks alone with `mlp_only`).
    p_total: f64,
    flops_per_chip: f64,
    collectives: Vec<TrainCollective>,
    bubble_fraction: f64,
    mfu: f64,
    mfu_min: f64,
    hfu: f64,
    tokens_per_s: f64,
    tokens_per_s_min: f64,
    budget: Option<Budget>,
}

fn step_figures(cfg: &TrainConfig, model: &StepCosts, t: &Times) -> Step {
    let a = &cfg.arch;
    let (mesh, b, peak) = (&cfg.mesh, model.b0, cfg.hw.peak);
    let attention = if cfg.mlp_only {
        0.0
    } else {
        3.0 * attn_dot_fwd(a, cfg.seq, cfg.causal)
    };
    let matmul = 3.0 * model.fwd - attention;
    let (p_total, p_active) = part_params(a, &model.parts);
    let flops = FlopsPerToken {
        matmul,
        attention,
        model: matmul + attention,
        recompute: model.recompute,
        hardware: matmul + attention + model.recompute,
        six_n: 6.0 * p_active,
    };
    let flops_per_chip = b * flops.hardware;
    let bubble_fraction = if mesh.pp > 1.0 && cfg.schedule != Schedule::ZeroBubble {
        (mesh.pp - 1.0) / (mesh.microbatches + mesh.pp - 1.0)
    } else {
        0.0
    };
    let model_per_chip = b * flops.model;
    Step {
        flops,
        p_total,
        flops_per_chip,
        collectives: collectives(model),
        bubble_fraction,
        mfu: model_per_chip / (t.t_lower * peak),
        mfu_min: model_per_chip / (t.t_upper * peak),
        hfu: flops_per_chip / (t.t_lower * peak),
        tokens_per_s: cfg.batch / t.t_lower,
        tokens_per_s_min: cfg.batch / t.t_upper,
        budget: budget(cfg, &flops, t, model.chips),
    }
}

/// Every collective of the step that the mesh has, per chip.
fn collectives(model: &StepCosts) -> Vec<TrainCollective> {
    let mut out = Vec::with_capacity(model.terms.len());
    for term in &model.terms {
        let Some(r) = &term.result else { continue };
        let each = term.one(1.0);
        out.push(TrainCollective {
            axis: term.axis,
            kind: term.kind,
            part: term.part.into(),
            array: term.array.into(),
            phase: term.phase,
            window: term.window,
            count: term.count,
            bytes: term.array_bytes,
            time_each: each,
            time: term.count * each,
            critical_path: term.critical_path,
            latency_bound: r.latency_bound,
            formula: r.formula.into(),
            section: r.section.into(),
            derivation: r.derivation.clone(),
        });
    }
    out
}

/// The days and cost of the token budget, if the config has one.
fn budget(cfg: &TrainConfig, flops: &FlopsPerToken, t: &Times, n: f64) -> Option<Budget> {
    let peak = cfg.hw.peak;
    cfg.tokens.map(|tokens| {
        let steps = tokens / cfg.batch;
        let flops_total = tokens * flops.model;
        let flops_6n = tokens * flops.six_n;
        let days = steps * t.t_lower / 86400.0;
        let days_upper = steps * t.t_upper / 86400.0;
        let at = |f: f64| cfg.mfu.map(|u| f / (n * peak * u) / 86400.0);
        let chip_hours = n * days * 24.0;
        Budget {
            tokens,
            steps,
            flops: flops_total,
            flops_6n,
            days,
            days_upper,
            days_at_mfu: at(flops_total),
            days_at_mfu_6n: at(flops_6n),
            chip_hours,
            cost: cfg.price.map(|p| p * chip_hours),
            cost_upper: cfg.price.map(|p| p * n * days_upper * 24.0),
        }
    })
}

/// The batch per chip below which communication binds: the largest of the strategies'
/// exact critical batches, none when one is always communication-bound.
fn critical_b(critical: &[Critical]) -> Option<f64> {
    let mut critical_b: Option<f64> = None;
    for c in critical {
        if let TrainBound::Comms(_) = c.resource {
            match (c.regime, c.exact) {
                (Regime::Below, Some(x)) => critical_b = Some(critical_b.map_or(x, |y| y.max(x))),
                (Regime::Always, _) => return None,
                _ => {}
            }
        }
    }
    critical_b
}

fn link_times(model: &StepCosts, t: &Times, d: &mut Vec<String>) -> Vec<LinkTime> {
    let mut out = Vec::new();
    for l in &t.links {
        let (axis, time, done) = (l.axis, l.all, l.done);
        let Some(net) = model.placement.all().find(|x| x.axis == axis) else {
            continue;
        };
        let exposed = (done - t.t_math).max(0.0);
        d.push(format!(
            "{} links ({}): {} of collectives; with them the passes take {}{}",
            axis.name(),
            net.note,
            fs(time),
            fs(done),
            if exposed > 0.0 {
                format!(", {} past the compute", fs(exposed))
            } else {
                ", hidden under the compute".into()
            }
        ));
        out.push(LinkTime {
            axis,
            network: net.note.clone(),
            hardware_axes: net.m,
            bandwidth: net.ag_bandwidth_approx(),
            time,
            done,
            exposed,
            scale_out: axis == MeshAxis::Dcn
                || matches!(&net.network.topology, Topology::Cluster { levels, .. } if levels.len() > 1),
        });
    }
    out
}

fn part_costs(cfg: &TrainConfig, model: &StepCosts, t: &Times) -> Vec<PartCost> {
    let mesh = &cfg.mesh;
    let b = model.b0;
    model
        .parts
        .iter()
        .map(|p| {
            let per_chip = p.layers / mesh.pp;
            // One layer's share of the chip's compute: b·pp tokens-worth per layer on a chip.
            let t_math = b * mesh.pp * (3.0 * p.fwd + p.recompute) / cfg.hw.peak;
            let mut comms: Vec<(MeshAxis, f64)> = Vec::new();
            for term in model.terms.iter().filter(|x| x.part == p.name) {
                let x = term.time(1.0) / per_chip;
                match comms.iter_mut().find(|c| c.0 == term.axis) {
                    Some(c) => c.1 += x,
                    None => comms.push((term.axis, x)),
                }
            }
            let mut bound = TrainBound::Compute;
            let mut top = t_math;
            for &(axis, x) in &comms {
                if x > top {
                    top = x;
                    bound = TrainBound::Comms(axis);
                }
            }
            let _ = t;
            PartCost {
                name: p.name.into(),
                layers: p.layers,
                per_chip,
                params: p.dense + p.experts,
                params_per_chip: (p.dense / mesh.tp + p.experts / (mesh.tp * mesh.ep)) / mesh.fsdp,
                fwd_per_token: p.fwd,
                recompute_per_token: p.recompute,
                t_math,
                comms,
                bound,
            }
        })
        .collect()
}

fn notes(cfg: &TrainConfig, model: &StepCosts, memory: &Memory) -> Vec<String> {
    let mut out = Vec::new();
    let mesh = &cfg.mesh;
    let per_shard = cfg.batch / (cfg.seq * mesh.data());
    if per_shard < 1.0 {
        out.push(format!(
            "{} sequences per data shard: splitting the batch {} ways needs sequence (context) parallelism (applied-training.md: \"we can only really do pure data parallelism/FSDP up to 1024 chips because that's how many sequences we have\")",
            sig(per_shard),
            nn(mesh.data())
        ));
    }
    if cfg.arch.mla.is_none() && mesh.tp > cfg.arch.kv_heads {
        out.push(format!(
            "tp = {} exceeds the {} KV heads: each chip keeps whole KV heads (replicated), not modelled",
            nn(mesh.tp),
            nn(cfg.arch.kv_heads)
        ));
    }
    if mesh.pp > 1.0 && mesh.fsdp > 1.0 {
        out.push("FSDP with pipelining gathers the weights for every microbatch (gpus.md: \"ZeRO-3 sharding in particular works badly\" with pipelining)".into());
    }
    if mesh.pp > 1.0 && mesh.microbatches < mesh.pp {
        out.push(format!(
            "fewer microbatches ({}) than stages ({}): most of the step is bubble",
            nn(mesh.microbatches),
            nn(mesh.pp)
        ));
    }
    if let Some(net) = &model.placement.dcn {
        out.push(format!(
            "data parallelism crosses the data-center network: {}",
            net.note
        ));
    }
    if cfg.arch.moe.is_some() {
        out.push("experts are taken as evenly loaded (uniform routing), every local expert's weights read".into());
    }
    if !memory.fits {
        out.push(format!(
            "does not fit: {} per chip of {} HBM",
            fb(memory.total),
            fb(memory.capacity)
        ));
    }
    out
}
