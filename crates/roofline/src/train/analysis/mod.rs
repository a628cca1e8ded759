//! [`analyze_train`]: the step of a [`TrainConfig`] on its mesh, with every number written out.

mod criticals;
mod memory;
mod split;
mod types;

pub(crate) use split::divisors;
pub use types::{
    Budget, Critical, FlopsPerToken, LinkTime, Memory, ModelMemory, OptimalFsdp, PartCost,
    TrainAnalysis, TrainBound, TrainCollective,
};

use super::config::{Remat, Schedule, TrainConfig};
use super::critical::Regime;
use super::fabric::MeshAxis;
use super::model::{attn_dot_fwd, part_params, Model, Phase, Times};
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
    let model = Model::build(cfg, true)?;
    let t = model.eval(model.b0);
    let mut d = Vec::new();
    let a = &cfg.arch;
    let mesh = &cfg.mesh;
    let n = model.chips;
    let b = model.b0;
    let peak = cfg.hw.peak;
    let params = a.params();

    // FLOPs.
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
    if cfg.mlp_only {
        d.push(format!(
            "The book's simplified layer: MLP blocks only ({} parameters), no attention, norms, embedding or LM head (training.md, \"we'll approximate a Transformer as a stack of MLP blocks\")",
            sig(p_total)
        ));
    }
    d.push(format!(
        "Model: {}; {} parameters ({} active per token)",
        a.describe(),
        sig(params.total()),
        sig(params.active())
    ));
    d.push(format!(
        "Mesh: {}; batch B = {} tokens per step ({} sequences of T = {}); b = B/N = {} tokens per chip",
        mesh.describe(),
        sig(cfg.batch),
        sig(cfg.sequences()),
        nn(cfg.seq),
        sig(b)
    ));
    d.push(format!(
        "FLOPs per token: 6·N_matmul = 6·{} = {} (transformers.md, \"General rule of thumb\"; the book's 6·params = {}) + attention 3·2·H·(qk + v)·Σ mean context = {} ({}) = {} model FLOPs",
        sig(matmul / 6.0),
        ff(matmul),
        ff(flops.six_n),
        ff(attention),
        if cfg.causal { "causal: half the T×T products" } else { "full T×T, the book's 12BT²NH" },
        ff(flops.model)
    ));
    d.push(format!(
        "Checkpointing: {}; recompute {} per token: {} hardware FLOPs per token",
        cfg.remat.describe(),
        ff(flops.recompute),
        ff(flops.hardware)
    ));
    let flops_per_chip = b * flops.hardware;
    d.push(format!(
        "T_math = b·FLOPs/C = {}·{}/{} = {} (forward {}, backward {})",
        sig(b),
        ff(flops.hardware),
        format_quantity(peak, Unit::FlopRate),
        fs(t.t_math),
        fs(t.t_fwd),
        fs(t.t_bwd)
    ));

    // Per-part breakdown.
    let parts = part_costs(cfg, &model, &t);

    // Collectives.
    let mut collectives = Vec::with_capacity(model.terms.len());
    for term in &model.terms {
        let Some(r) = &term.result else { continue };
        let each = term.one(1.0);
        collectives.push(TrainCollective {
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
        d.push(format!(
            "{} {} {} of the {} ({}): V = {}, {} per step × {} = {} ({}; {})",
            term.axis.name(),
            r.kind.name(),
            term.array,
            term.part,
            match term.phase {
                Phase::Forward => "forward",
                Phase::Backward => "backward",
                Phase::Recompute => "recompute",
            },
            if term.array_bytes == term.bytes {
                fb(term.bytes)
            } else {
                format!(
                    "{} (the cluster formula's V = {} with the inner axis)",
                    fb(term.array_bytes),
                    fb(term.bytes)
                )
            },
            sig(term.count),
            fs(each),
            fs(term.count * each),
            r.formula,
            if r.latency_bound {
                "latency-bound"
            } else {
                "bandwidth-bound"
            }
        ));
    }
    let links = link_times(&model, &t, &mut d);
    d.push(format!(
        "HBM: {} per step (weights read forward, backward{} per microbatch, gradients written, optimizer update) / {} = {}",
        fb(model.hbm_bytes),
        if matches!(cfg.remat, Remat::Block | Remat::Saved(_)) { " and recompute" } else { "" },
        fr(cfg.hw.hbm_bw),
        fs(t.t_hbm)
    ));
    let bubble_fraction = if mesh.pp > 1.0 && cfg.schedule != Schedule::ZeroBubble {
        (mesh.pp - 1.0) / (mesh.microbatches + mesh.pp - 1.0)
    } else {
        0.0
    };
    if mesh.pp > 1.0 {
        d.push(format!(
            "Pipeline ({}): bubble (p − 1)/(m + p − 1) = {}/{} = {} of the step: T_math·(p − 1)/m + 2(p − 1) sends = {} ({SEC_PP}; the book's total send time 2BD/(W·N_MB)·(N_MB + N_stages − 2))",
            cfg.schedule.as_str(),
            nn(mesh.pp - 1.0),
            nn(mesh.microbatches + mesh.pp - 1.0),
            sig(bubble_fraction),
            fs(t.t_bubble)
        ));
    }
    d.push(format!(
        "t_lower = max(each pass as long as its compute or its slowest link's traffic in it ({} for T_math {}), T_HBM {}) + bubble {} = {}: {}",
        fs(t.t_lower - t.t_bubble),
        fs(t.t_math),
        fs(t.t_hbm),
        fs(t.t_bubble),
        fs(t.t_lower),
        t.bound.describe()
    ));
    d.push(format!(
        "t_upper = T_math + T_HBM + Σ links + bubble = {} (nothing overlapped)",
        fs(t.t_upper)
    ));
    let model_per_chip = b * flops.model;
    let mfu = model_per_chip / (t.t_lower * peak);
    let mfu_min = model_per_chip / (t.t_upper * peak);
    let hfu = flops_per_chip / (t.t_lower * peak);
    let tokens_per_s = cfg.batch / t.t_lower;
    let tokens_per_s_min = cfg.batch / t.t_upper;
    d.push(format!(
        "MFU = b·model FLOPs/(t·C) = {} at t_lower ({} at t_upper); HFU {}; {} tokens/s ({} at t_upper)",
        sig(mfu),
        sig(mfu_min),
        sig(hfu),
        crate::units::format_quantity(tokens_per_s, crate::units::Unit::Count),
        crate::units::format_quantity(tokens_per_s_min, crate::units::Unit::Count)
    ));

    // Memory.
    let memory = memory::memory(cfg, &model, &mut d);

    // Budget.
    let budget = cfg.tokens.map(|tokens| {
        let steps = tokens / cfg.batch;
        let flops_total = tokens * flops.model;
        let flops_6n = tokens * flops.six_n;
        let days = steps * t.t_lower / 86400.0;
        let days_upper = steps * t.t_upper / 86400.0;
        let at = |f: f64| cfg.mfu.map(|u| f / (n * peak * u) / 86400.0);
        let chip_hours = n * days * 24.0;
        let bud = Budget {
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
        };
        d.push(format!(
            "Budget: {} tokens = {} steps, {} model FLOPs (6·N·tokens = {}): {} days at t_lower ({} at t_upper), {} chip-hours",
            sig(tokens),
            sig(steps),
            sig(flops_total),
            sig(flops_6n),
            sig(days),
            sig(days_upper),
            sig(chip_hours)
        ));
        if let (Some(u), Some(x), Some(y)) = (cfg.mfu, bud.days_at_mfu, bud.days_at_mfu_6n) {
            d.push(format!(
                "At an assumed MFU of {}: FLOPs/(N·C·MFU) = {} days (the book's 6·N·tokens: {} days; applied-training.md)",
                sig(u),
                sig(x),
                sig(y)
            ));
        }
        if let (Some(p), Some(c)) = (cfg.price, bud.cost) {
            d.push(format!(
                "Cost: {} chip-hours × {} per chip-hour = {}",
                sig(chip_hours),
                sig(p),
                sig(c)
            ));
        }
        bud
    });

    // Critical batches.
    let critical = criticals::criticals(cfg, &model, &mut d);
    let mut critical_b: Option<f64> = None;
    let mut always = false;
    for c in &critical {
        if let TrainBound::Comms(_) = c.resource {
            match (c.regime, c.exact) {
                (Regime::Below, Some(x)) => critical_b = Some(critical_b.map_or(x, |y| y.max(x))),
                (Regime::Always, _) => always = true,
                _ => {}
            }
        }
    }
    if always {
        critical_b = None;
    }
    let optimal_fsdp = split::optimal_fsdp(cfg, &model, &mut d);
    let notes = notes(cfg, &model, &memory);

    Ok(TrainAnalysis {
        chips: n,
        tokens_per_chip: b,
        sequences: cfg.sequences(),
        params,
        flops,
        flops_per_chip,
        t_fwd: t.t_fwd,
        t_bwd: t.t_bwd,
        t_math: t.t_math,
        t_hbm: t.t_hbm,
        t_bubble: t.t_bubble,
        bubble_fraction,
        t_lower: t.t_lower,
        t_upper: t.t_upper,
        bound: t.bound,
        links,
        collectives,
        parts,
        mfu,
        mfu_min,
        hfu,
        tokens_per_s,
        tokens_per_s_min,
        days: budget.map(|x| x.days),
        cost: budget.and_then(|x| x.cost),
        budget,
        fits: memory.fits,
        memory,
        critical,
        critical_b,
        optimal_fsdp,
        notes,
        derivation: d,
    })
}

fn link_times(model: &Model, t: &Times, d: &mut Vec<String>) -> Vec<LinkTime> {
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

fn part_costs(cfg: &TrainConfig, model: &Model, t: &Times) -> Vec<PartCost> {
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

fn notes(cfg: &TrainConfig, model: &Model, memory: &Memory) -> Vec<String> {
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
