//! A KV cache tier in host memory (issue 42): `kv_host` bytes per GPU over the host link (the
//! chip's `c2c`, NVLink-C2C on Grace systems, else its `pcie`; a chip with neither refuses the
//! tier with that reason).
//!
//! **What it holds.** Any part of a running sequence's KV held in host memory would cross the
//! link at every decode step (the whole context is read each step), at the link's bandwidth
//! instead of HBM's, so the tier holds only KV that is not running: preempted sequences
//! (swapped out and back, each way `tokens · s_kv/W`, instead of recomputed) and cached
//! prefixes.
//!
//! **Prefixes.** Without `prefix_set` every request finds the one common prefix of
//! `prefix_hit·P` tokens in HBM, as the load model has it. With `prefix_set` (bytes per GPU of
//! the distinct prefixes in use), a request's prefix is in HBM with probability `min(1,
//! room/prefix_set)` (`room` what the KV pool leaves beside the running sequences at the load),
//! in the host tier with probability `min(1 − that, kv_host/prefix_set)`, else nowhere (the
//! whole prompt prefilled). A prefix in the tier is loaded over the host link (queued on it)
//! before its request is admitted, or recomputed, whichever is faster; the row says which.

use super::sim::{HitMix, Host, Pcts, SimResult, StepCoef};
use super::step_eval::StepEval;
use super::LoadModel;
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Llm, Op, OpKind, PhaseLoad, StepMix};
use crate::units::{format_quantity, format_sig, Unit};
use serde::Serialize;

/// The host link a KV tier crosses: NVLink-C2C where the chip has it, else PCIe.
pub fn host_link(chip: &Chip) -> Option<(&'static str, f64)> {
    match (chip.c2c, chip.pcie) {
        (Some(b), _) => Some(("NVLink-C2C", b)),
        (None, Some(b)) => Some(("PCIe", b)),
        _ => None,
    }
}

/// A run's figures the tier trades: the mean running batch, throughput and TTFT.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Trade {
    /// Mean requests inside the engine.
    pub running: f64,
    /// Requests per second.
    pub requests_per_s: f64,
    /// Output tokens per second.
    pub tokens_per_s: f64,
    /// Mean TTFT, seconds.
    pub ttft_mean: f64,
    /// P99 TTFT, seconds.
    pub ttft_p99: f64,
}

impl Trade {
    /// A run's.
    pub fn of(r: &SimResult) -> Trade {
        let Pcts { p99, mean, .. } = r.ttft;
        Trade {
            running: r.running,
            requests_per_s: r.requests_per_s,
            tokens_per_s: r.tokens_per_s,
            ttft_mean: mean,
            ttft_p99: p99,
        }
    }
}

/// The tier's figures on a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierFigures {
    /// Host bytes per GPU.
    pub host_bytes: f64,
    /// The link: `NVLink-C2C` or `PCIe`, and its bandwidth per direction.
    pub link: &'static str,
    /// Bytes/s.
    pub bandwidth: f64,
    /// Requests whose prefix is served from HBM, from the tier, and not at all, with the tier
    /// (shares summing to 1; `None` without `prefix_set`).
    pub served: Option<[f64; 3]>,
    /// The same without the tier.
    pub served_without: Option<[f64; 3]>,
    /// A prefix in the tier: `loaded` or `recomputed`, and each one's seconds.
    pub hit_source: Option<&'static str>,
    /// Seconds to load one prefix over the link.
    pub load_s: f64,
    /// Seconds its prefill adds when recomputed.
    pub recompute_s: f64,
    /// The run with the tier (the row's own).
    pub with: Option<Trade>,
    /// The same load without it.
    pub without: Option<Trade>,
    /// The derivation's words.
    pub notes: Vec<String>,
}

/// The tier's plan: the host's room and link, where prefix hits come from with and without it.
#[derive(Debug, Clone, PartialEq)]
pub struct TierPlan {
    /// The tier per worker (a worker of the op's `ep` groups: its tokens over all of them);
    /// `None` without `kv_host`.
    pub host: Option<Host>,
    /// Hits with the tier; `None` when every request finds its prefix in HBM.
    pub with: Option<HitMix>,
    /// Hits without it.
    pub without: Option<HitMix>,
    /// The figures so far (the trade's runs are the caller's).
    pub figures: TierFigures,
}

/// The tier of `l` on `chip` (or, without `kv_host`, where a `prefix_set` finds its prefixes)
/// with `running` requests decoding at the load and steps read by `coef`. Errors at
/// `kv_host`: a chip without a host link.
pub fn plan(
    l: &Llm,
    chip: &Chip,
    opts: &Options,
    running: f64,
    coef: StepCoef,
) -> Result<TierPlan, Error> {
    let bytes = l.kv_host.unwrap_or(0.0);
    let (link, bw) = match (host_link(chip), l.kv_host) {
        (Some(h), _) => h,
        (None, None) => ("none", f64::INFINITY),
        (None, Some(_)) => {
            return Err(Error::invalid(
                "kv_host",
                format_quantity(bytes, Unit::Bytes),
                format!(
                    "{} has no host link for a KV tier: its pcie is empty and it has no NVLink-C2C (c2c); set the chip's pcie to use one",
                    chip.name
                ),
            ))
        }
    };
    let mean = l.prompt + l.output / 2.0;
    let per_token_bytes = l.kv_bytes_per_seq(mean) / mean;
    let host = Host {
        tokens: (bytes / per_token_bytes).floor() * l.ep,
        per_token: per_token_bytes / bw,
    };
    let tier = l.kv_host.is_some();
    let hit = super::sim::prefix_tokens(l);
    let mut notes = Vec::new();
    if tier {
        notes.push(format!(
        "KV tier: {} per GPU of host memory over {} at {} per direction: it holds preempted sequences (swapped out and back at {} s per 1,000 tokens each way, not recomputed) and cached prefixes, never a running sequence's KV (which would cross the link at every decode step)",
        format_quantity(bytes, Unit::Bytes),
        link,
        format_quantity(bw, Unit::ByteRate),
        format_sig(1000.0 * host.per_token, 3),
        ));
    }
    let mut figures = TierFigures {
        host_bytes: bytes,
        link,
        bandwidth: bw,
        served: None,
        served_without: None,
        hit_source: None,
        load_s: hit * host.per_token,
        recompute_s: 0.0,
        with: None,
        without: None,
        notes: Vec::new(),
    };
    let (with, without) = match (l.prefix_set, hit > 0.0) {
        (Some(set), true) => {
            let op = Op::new(OpKind::from(*l));
            let m = LoadModel::new(&op, chip, opts)?;
            let r = &m.resolved;
            let room = (r.pool_bytes - running / l.ep * r.seq_bytes).max(0.0);
            let hbm = (room / set).min(1.0);
            let in_host = if tier {
                (bytes / set).min(1.0 - hbm)
            } else {
                0.0
            };
            let mut e = StepEval::new(l, chip, opts)?;
            let whole = e.step(&StepMix::prefill(PhaseLoad::prefill(1.0, l.prompt)))?;
            let part = e.step(&StepMix::prefill(PhaseLoad::uniform(
                1.0,
                l.prompt - hit,
                l.prompt,
            )))?;
            let recompute = coef.time(&whole, 1.0) - coef.time(&part, 1.0);
            figures.recompute_s = recompute.max(0.0);
            let load = tier && figures.load_s <= figures.recompute_s;
            if tier {
                figures.hit_source = Some(if load { "loaded" } else { "recomputed" });
            }
            figures.served = Some(if load {
                [hbm, in_host, 1.0 - hbm - in_host]
            } else {
                [hbm, 0.0, 1.0 - hbm]
            });
            figures.served_without = Some([hbm, 0.0, 1.0 - hbm]);
            notes.push(format!(
                "prefixes: a working set of {} per GPU; the KV pool leaves {} beside the running sequences, so {} % of requests find theirs in HBM; a host tier holds {} % more, each {} ({} s over the link against {} s of prefill), {} % miss",
                format_quantity(set, Unit::Bytes),
                format_quantity(room, Unit::Bytes),
                format_sig(100.0 * hbm, 3),
                format_sig(100.0 * in_host, 3),
                if load { "loaded" } else { "recomputed (faster than loading)" },
                format_sig(figures.load_s, 3),
                format_sig(figures.recompute_s, 3),
                format_sig(100.0 * (1.0 - hbm - if load { in_host } else { 0.0 }), 3),
            ));
            let without = HitMix {
                hbm,
                host: 0.0,
                load: 0.0,
            };
            let with = HitMix {
                hbm,
                host: if load { in_host } else { 0.0 },
                load: figures.load_s,
            };
            (Some(with), Some(without))
        }
        _ => (None, None),
    };
    figures.notes = notes;
    Ok(TierPlan {
        host: tier.then_some(host),
        with,
        without,
        figures,
    })
}
