//! The derivation's prose of a training step: each line says a figure [`analyze_train`]
//! (super::analyze_train) found and the formula and section it comes from. Written from the
//! figures (`Step`, the model's times), never computing one of its own; the sub-analyses
//! (links, memory, critical batches, the split) write their own lines in between.

use super::{fb, ff, fr, fs, nn, sig, Budget, Step, SEC_PP};
use crate::train::config::{Remat, TrainConfig};
use crate::train::model::{Pass, StepCosts, Times};
use crate::units::{format_quantity, Unit};

/// The model, the mesh, FLOPs per token, checkpointing and `T_math`.
pub(super) fn head(cfg: &TrainConfig, model: &StepCosts, t: &Times, s: &Step, d: &mut Vec<String>) {
    let a = &cfg.arch;
    let params = a.params();
    let flops = &s.flops;
    if cfg.mlp_only {
        d.push(format!(
            "The book's simplified layer: MLP blocks only ({} parameters), no attention, norms, embedding or LM head (training.md, \"we'll approximate a Transformer as a stack of MLP blocks\")",
            sig(s.p_total)
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
        cfg.mesh.describe(),
        sig(cfg.batch),
        sig(cfg.sequences()),
        nn(cfg.seq),
        sig(model.b0)
    ));
    d.push(format!(
        "FLOPs per token: 6·N_matmul = 6·{} = {} (transformers.md, \"General rule of thumb\"; the book's 6·params = {}) + attention 3·2·H·(qk + v)·Σ mean context = {} ({}) = {} model FLOPs",
        sig(flops.matmul / 6.0),
        ff(flops.matmul),
        ff(flops.six_n),
        ff(flops.attention),
        if cfg.causal { "causal: half the T×T products" } else { "full T×T, the book's 12BT²NH" },
        ff(flops.model)
    ));
    d.push(format!(
        "Checkpointing: {}; recompute {} per token: {} hardware FLOPs per token",
        cfg.remat.describe(),
        ff(flops.recompute),
        ff(flops.hardware)
    ));
    d.push(format!(
        "T_math = b·FLOPs/C = {}·{}/{} = {} (forward {}, backward {})",
        sig(model.b0),
        ff(flops.hardware),
        format_quantity(cfg.hw.peak, Unit::FlopRate),
        fs(t.t_math),
        fs(t.t_fwd),
        fs(t.t_bwd)
    ));
}

/// One line per collective of the step: its volume, count, time and formula.
pub(super) fn collectives(model: &StepCosts, d: &mut Vec<String>) {
    for term in &model.terms {
        let Some(r) = &term.result else { continue };
        let each = term.one(1.0);
        d.push(format!(
            "{} {} {} of the {} ({}): V = {}, {} per step × {} = {} ({}; {})",
            term.axis.name(),
            r.kind.name(),
            term.array,
            term.part,
            match term.phase {
                Pass::Forward => "forward",
                Pass::Backward => "backward",
                Pass::Recompute => "recompute",
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
}

/// HBM traffic, the pipeline bubble, `t_lower`, `t_upper`, MFU and tokens/s.
pub(super) fn step(cfg: &TrainConfig, model: &StepCosts, t: &Times, s: &Step, d: &mut Vec<String>) {
    let mesh = &cfg.mesh;
    d.push(format!(
        "HBM: {} per step (weights read forward, backward{} per microbatch, gradients written, optimizer update) / {} = {}",
        fb(model.hbm_bytes),
        if matches!(cfg.remat, Remat::Block | Remat::Saved(_)) { " and recompute" } else { "" },
        fr(cfg.hw.hbm_bw),
        fs(t.t_hbm)
    ));
    if mesh.pp > 1.0 {
        d.push(format!(
            "Pipeline ({}): bubble (p − 1)/(m + p − 1) = {}/{} = {} of the step: T_math·(p − 1)/m + 2(p − 1) sends = {} ({SEC_PP}; the book's total send time 2BD/(W·N_MB)·(N_MB + N_stages − 2))",
            cfg.schedule.as_str(),
            nn(mesh.pp - 1.0),
            nn(mesh.microbatches + mesh.pp - 1.0),
            sig(s.bubble_fraction),
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
    d.push(format!(
        "MFU = b·model FLOPs/(t·C) = {} at t_lower ({} at t_upper); HFU {}; {} tokens/s ({} at t_upper)",
        sig(s.mfu),
        sig(s.mfu_min),
        sig(s.hfu),
        format_quantity(s.tokens_per_s, Unit::Count),
        format_quantity(s.tokens_per_s_min, Unit::Count)
    ));
}

/// The token budget: steps, FLOPs, days, chip-hours, the book's estimate at an assumed MFU
/// and the cost.
pub(super) fn budget(cfg: &TrainConfig, bud: &Budget, d: &mut Vec<String>) {
    d.push(format!(
        "Budget: {} tokens = {} steps, {} model FLOPs (6·N·tokens = {}): {} days at t_lower ({} at t_upper), {} chip-hours",
        sig(bud.tokens),
        sig(bud.steps),
        sig(bud.flops),
        sig(bud.flops_6n),
        sig(bud.days),
        sig(bud.days_upper),
        sig(bud.chip_hours)
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
            sig(bud.chip_hours),
            sig(p),
            sig(c)
        ));
    }
}
