//! Memory per chip: parameters, gradients, optimizer states and activations under the
//! checkpointing policy, and the largest batch that fits.

use super::{fb, sig, Memory, ModelMemory};
use crate::train::config::TrainConfig;
use crate::train::model::{part_params, StepCosts};

pub(super) fn memory(cfg: &TrainConfig, model: &StepCosts, d: &mut Vec<String>) -> Memory {
    let m = &model.mem;
    let total = m.fixed() + m.scaled();
    let cap = cfg.hw.hbm;
    let fits = total <= cap;
    let max_tokens_per_chip = if m.fixed() > cap {
        None
    } else if m.scaled() > 0.0 {
        Some((cap - m.fixed()) / (m.scaled() / model.b0))
    } else {
        Some(f64::MAX)
    };
    let pr = &cfg.precision;
    let p = part_params(&cfg.arch, &model.parts).0;
    let saved: f64 = model.parts.iter().map(|x| x.layers * x.saved).sum();
    let whole = ModelMemory {
        params: pr.param.bytes() * p,
        grads: pr.grad.bytes() * p,
        master: pr.master.map_or(0.0, |x| x.bytes()) * p,
        optimizer: cfg.optimizer.states() * pr.optimizer.bytes() * p,
        activations: pr.compute.bytes() * saved * cfg.batch,
    };
    d.push(format!(
        "Memory per chip: params {} + grads {} + master {} + optimizer {} + checkpoints {} + FSDP buffers {} + layer working set {} + logits {} = {} of {} HBM: {}",
        fb(m.params),
        fb(m.grads),
        fb(m.master),
        fb(m.optimizer),
        fb(m.activations),
        fb(m.fsdp_buffers),
        fb(m.working),
        fb(m.logits),
        fb(total),
        fb(cap),
        if fits { "fits" } else { "does not fit" }
    ));
    d.push(format!(
        "Whole model (training.md, question 2): params {} + optimizer {} + checkpoints of the batch {} (gradients {}, master {})",
        fb(whole.params),
        fb(whole.optimizer),
        fb(whole.activations),
        fb(whole.grads),
        fb(whole.master)
    ));
    if let Some(x) = max_tokens_per_chip {
        if x < f64::MAX {
            d.push(format!(
                "Largest batch per chip that fits: (HBM − fixed {}) / {} per token = {} tokens per chip (B = {})",
                fb(m.fixed()),
                fb(m.scaled() / model.b0),
                sig(x),
                sig(x * model.chips)
            ));
        }
    } else {
        d.push(format!(
            "Even without activations the fixed {} exceed the HBM",
            fb(m.fixed())
        ));
    }
    Memory {
        params: m.params,
        grads: m.grads,
        master: m.master,
        optimizer: m.optimizer,
        activations: m.activations,
        fsdp_buffers: m.fsdp_buffers,
        working: m.working,
        logits: m.logits,
        total,
        capacity: cap,
        fits,
        max_tokens_per_chip,
        model: whole,
    }
}
