//! Disaggregated prefill and decode (issue 42): `x` prefill workers of `p_tp·p_ep` chips beside
//! `y` decode workers of `d_tp·d_ep` chips (on the scenario's `d_chip`-th chip), the prompt's KV
//! crossing `kv_link` from one to the other.
//!
//! **A worker** is the engine of issue 40 on its own chips ([`crate::op::Llm::worker`]): a
//! prefill worker runs only prefill steps (its pattern's chunks and budget, no decode token), a
//! decode worker only decode steps. A request reserves a slot and room for its whole KV (`P +
//! G` tokens) on a decode worker first (the one with the fewest requests), as SGLang and
//! Dynamo route a request to its decode worker before its prefill, then prefills on the prefill
//! worker with the least work waiting; its first token leaves when its KV has reached the
//! decode worker, which then decodes its other `G − 1` tokens.
//!
//! **The transfer** moves the prompt's KV, per chip: each prefill chip sends its share and each
//! decode chip receives its share (the heads split by each side's `tp`; an MLA latent whole on
//! every chip), so a token takes `max(s_p, s_d)/W` seconds, `s` a chip's KV bytes per token and
//! `W` the slower side's bandwidth of `kv_link` (NVLink and ICI the peer bandwidth, which needs
//! every worker in one NVLink domain; `pcie` the host link; `dcn` the network). Transfers of a
//! prefill worker queue on its link. Where the engine sends each chunk's KV as the chunk is
//! done (SGLang: `send_kv_chunk` after every chunk's forward, python/sglang/srt/disaggregation/
//! prefill.py) the earlier chunks' transfers overlap the later chunks' compute; TensorRT-LLM
//! (its context executor hands the finished context's KV to the generation executor,
//! overlapping other requests' steps: docs "Disaggregated-Service", `TRTLLM_DISABLE_KV_CACHE_
//! TRANSFER_OVERLAP`) and vLLM (NixlConnector: the decode worker pulls the KV once the prefill
//! is done) send it after the last chunk. No engine here overlaps a transfer with its own
//! prompt's layers.
//!
//! **Saturation** ([`Plan::capacity`]): a prefill worker's largest rate is its steps' back to
//! back ([`Plan::prefill_rate`]), at most one prompt per transfer time on its link; a decode worker's, `N_d / ((G − 1)·TPOT(N_d))` at its cap
//! `N_d` (`max_seqs`, and what its pool holds at `P + G` each); the deployment's, `min(x·μ_p,
//! y·μ_d)`. `disagg=auto` takes `x` and `y` from 1 to 16 with the most of it per chip (or, with
//! `ttft_max` and `tpot_max`, the most simulated `goodput_qps_slo` per chip: `serving::tails`).

use super::sim::{prefix_tokens, worker, Deployment, StepCoef, StepTiming};
use super::step_eval::StepEval;
use super::LoadModel;
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Disagg, Engine, Link, Llm, Op, OpKind, PhaseLoad, Role, StepMix};
use crate::units::{format_exact, format_quantity, format_sig, Unit};
use serde::Serialize;

/// Where a disaggregated deployment's KV transfer overlaps, by engine, with the source.
pub fn transfer_overlap(engine: Engine) -> (&'static str, bool) {
    match engine {
        Engine::Sglang => (
            "SGLang sends each chunk's KV when its forward is done (send_kv_chunk, python/sglang/srt/disaggregation/prefill.py): earlier chunks' transfers overlap later chunks' compute",
            true,
        ),
        Engine::Trtllm => (
            "TensorRT-LLM hands the finished context's KV to the generation executor, overlapping other requests' steps, not its own prompt's (docs: Disaggregated-Service)",
            false,
        ),
        Engine::Vllm | Engine::Generic => (
            "vLLM's NixlConnector: the decode worker pulls the KV once the prefill is done (docs: Disaggregated Prefilling)",
            false,
        ),
    }
}

/// A disaggregated deployment of an `llm` op, resolved.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Prefill workers `x`.
    pub x: f64,
    /// Decode workers `y`.
    pub y: f64,
    /// A prefill worker's op.
    pub prefill: Llm,
    /// A decode worker's op.
    pub decode: Llm,
    /// The prefill chip.
    pub p_chip: Chip,
    /// The decode chip.
    pub d_chip: Chip,
    /// Seconds a KV token takes over the link.
    pub per_token: f64,
    /// The link's bandwidth used, bytes/s per chip.
    pub bandwidth: f64,
}

impl Plan {
    /// Chips in all: `x·p_tp·p_ep + y·d_tp·d_ep`.
    pub fn chips(&self) -> f64 {
        self.x * self.prefill.chips() + self.y * self.decode.chips()
    }

    /// The ratio's words: `3P1D`.
    pub fn ratio(&self) -> String {
        Disagg::Split {
            prefill: self.x,
            decode: self.y,
        }
        .text()
    }
}

fn kv_bandwidth(link: Link, chip: &Chip) -> Option<f64> {
    match link {
        Link::Ici | Link::Nvlink => chip.peer_bandwidth(),
        Link::Pcie => chip.pcie,
        Link::Dcn => chip.dcn,
    }
}

/// The plan of `x` prefill and `y` decode workers of `l` (prefill on `p_chip`, decode on
/// `d_chip`). Errors, each at its field: a worker whose weights leave no room for a request
/// (`disagg`), a link the chips lack or an NVLink domain the workers do not fit in
/// (`kv_link`), and the workers' own (`p_tp`...).
pub fn plan(
    l: &Llm,
    p_chip: &Chip,
    d_chip: &Chip,
    opts: &Options,
    (x, y): (f64, f64),
) -> Result<Plan, Error> {
    let (p, d) = (l.worker(Role::Prefill), l.worker(Role::Decode));
    let ratio = Disagg::Split {
        prefill: x,
        decode: y,
    }
    .text();
    for (w, chip, what) in [(&p, p_chip, "prefill"), (&d, d_chip, "decode")] {
        let op = Op::new(OpKind::from(*w));
        let m = LoadModel::new(&op, chip, opts)?;
        if let Some(why) = m.no_request() {
            return Err(Error::invalid(
                "disagg",
                &ratio,
                format!(
                    "a {what} worker ({} chip(s) of {}) holds no request: {why}",
                    format_exact(w.chips()),
                    chip.name
                ),
            ));
        }
    }
    let link = l.kv_link;
    let (bp, bd) = (kv_bandwidth(link, p_chip), kv_bandwidth(link, d_chip));
    let (Some(bp), Some(bd)) = (bp, bd) else {
        return Err(Error::invalid(
            "kv_link",
            link.as_str(),
            format!(
                "{} has no {} bandwidth for the KV transfer",
                if bp.is_none() {
                    &p_chip.name
                } else {
                    &d_chip.name
                },
                link.as_str()
            ),
        ));
    };
    if matches!(link, Link::Nvlink | Link::Ici) {
        let chips = x * p.chips() + y * d.chips();
        if p_chip != d_chip {
            return Err(Error::invalid(
                "kv_link",
                link.as_str(),
                "prefill and decode on different chips share no NVLink domain: use dcn or pcie",
            ));
        }
        let node = p_chip.node.unwrap_or(1.0);
        if chips > node {
            return Err(Error::invalid(
                "kv_link",
                link.as_str(),
                format!(
                    "{ratio}'s {} chips exceed one NVLink domain of {} (node): use dcn or pcie",
                    format_exact(chips),
                    format_exact(node)
                ),
            ));
        }
    }
    let tokens = l.prompt.max(1.0);
    let per_chip = p.kv_bytes_per_seq(tokens).max(d.kv_bytes_per_seq(tokens)) / tokens;
    let bandwidth = bp.min(bd);
    Ok(Plan {
        x,
        y,
        prefill: p,
        decode: d,
        p_chip: p_chip.clone(),
        d_chip: d_chip.clone(),
        per_token: per_chip / bandwidth,
        bandwidth,
    })
}

/// A plan's figures at saturation, by worker.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Capacity {
    /// A prefill worker's largest rate, requests/s (its engine's, and its link's, the lower).
    pub prefill: f64,
    /// A prefill worker's link alone: one prompt's KV per transfer time.
    pub link: f64,
    /// A decode worker's largest rate.
    pub decode: f64,
    /// A decode worker's cap `N_d`.
    pub decode_cap: f64,
    /// The deployment's: `min(x·prefill, y·decode)`.
    pub saturation: f64,
}

impl Plan {
    /// The deployment's saturation rate with each worker's steps read by its coefficients
    /// (module docs).
    pub fn capacity(
        &self,
        opts: &Options,
        coef_p: StepCoef,
        coef_d: StepCoef,
    ) -> Result<Capacity, Error> {
        let engine = self.prefill_rate(opts, coef_p)?;
        let transfer = self.prefill.prompt * self.per_token;
        let link = if transfer > 0.0 {
            1.0 / transfer
        } else {
            f64::INFINITY
        };
        let prefill = engine.min(link);
        let d = &self.decode;
        let op = Op::new(OpKind::from(*d));
        let md = LoadModel::new(&op, &self.d_chip, opts)?;
        let r = &md.resolved;
        let per = d.kv_bytes_per_seq(d.prompt + d.output);
        let pool_seqs = if per > 0.0 {
            (r.pool_bytes.max(0.0) / per).floor() * d.ep
        } else {
            f64::INFINITY
        };
        let cap = r.max_seqs.min(pool_seqs);
        let decode = if d.output <= 1.0 {
            f64::INFINITY
        } else if cap < 1.0 {
            0.0
        } else {
            let mut e = StepEval::new(d, &self.d_chip, opts)?;
            let mix = StepMix::decode(PhaseLoad::decode(cap, d.prompt + d.output / 2.0));
            let tpot = coef_d.time(&e.step(&mix)?, cap);
            cap / ((d.output - 1.0) * tpot)
        };
        Ok(Capacity {
            prefill,
            link,
            decode,
            decode_cap: cap,
            saturation: (self.x * prefill).min(self.y * decode),
        })
    }

    /// A prefill worker's largest rate, prompts per second, running prefill steps back to
    /// back: with a budget `K ≥ P_n` (the prompt's new tokens), steps of `k = ⌊K/P_n⌋` prompts
    /// (at most its cap and what its pool holds) at `k / t(step)`; with `K < P_n`, one prompt in
    /// `⌈P_n/K⌉` chunks at `1 / Σ t(chunk)`; without a budget (whole prompts), steps of as many
    /// prompts as the cap and the pool allow.
    pub fn prefill_rate(&self, opts: &Options, coef: StepCoef) -> Result<f64, Error> {
        let p = &self.prefill;
        let op = Op::new(OpKind::from(*p));
        let m = LoadModel::new(&op, &self.p_chip, opts)?;
        let r = &m.resolved;
        let hit = prefix_tokens(p);
        let new = p.prompt - hit;
        let budget = r.budget.unwrap_or(f64::INFINITY);
        let mut e = StepEval::new(p, &self.p_chip, opts)?;
        if budget >= new {
            let per = p.kv_bytes_per_seq(p.prompt) - r.prefix_bytes;
            let pool = if per > 0.0 {
                ((r.pool_bytes - r.prefix_bytes).max(0.0) / per).floor() * p.ep
            } else {
                f64::INFINITY
            };
            let k = (budget / new).floor().min(r.max_seqs).min(pool).max(1.0);
            let mix = StepMix::prefill(PhaseLoad::uniform(k, new, p.prompt));
            return Ok(k / coef.time(&e.step(&mix)?, k));
        }
        let mut t = 0.0;
        let mut done = 0.0;
        while done < new {
            let q = budget.min(new - done);
            let mix = StepMix::prefill(PhaseLoad::uniform(1.0, q, hit + done + q));
            t += coef.time(&e.step(&mix)?, 1.0);
            done += q;
        }
        Ok(1.0 / t)
    }

    /// The deployment: `x` prefill workers then `y` decode workers, their steps read by
    /// `timing`.
    pub fn deployment(&self, opts: &Options, timing: &dyn StepTiming) -> Result<Deployment, Error> {
        let (cp, cd) = self.coefs(timing)?;
        let mut workers = Vec::with_capacity((self.x + self.y) as usize);
        let wp = worker(&self.prefill, &self.p_chip, opts, Some(Role::Prefill), cp)?;
        let wd = worker(&self.decode, &self.d_chip, opts, Some(Role::Decode), cd)?;
        for _ in 0..self.x as usize {
            workers.push(wp.clone());
        }
        for _ in 0..self.y as usize {
            workers.push(wd.clone());
        }
        // A decode worker holds each request's whole KV from admission (module docs).
        let d = &self.decode;
        let op = Op::new(OpKind::from(*d));
        let md = LoadModel::new(&op, &self.d_chip, opts)?;
        let per_token = d.kv_bytes_per_seq(d.prompt + d.output) / (d.prompt + d.output);
        for w in workers.iter_mut().skip(self.x as usize) {
            let tokens = (md.resolved.pool_bytes.max(0.0) / per_token).floor();
            w.seq_max = tokens;
            w.pool = tokens * d.ep;
        }
        Ok(Deployment {
            workers,
            hit: prefix_tokens(&self.prefill),
            transfer: self.per_token,
            hits: None,
            host: None,
        })
    }

    /// Each side's coefficients from `timing` (the error names the engine).
    pub fn coefs(&self, timing: &dyn StepTiming) -> Result<(StepCoef, StepCoef), Error> {
        let e = |why: String| Error::invalid("engine", self.prefill.engine.as_str(), why);
        Ok((
            timing.coef(&self.prefill, &self.p_chip).map_err(e)?,
            timing.coef(&self.decode, &self.d_chip).map_err(e)?,
        ))
    }

    /// The transfer in words: per request, the link and the overlap.
    pub fn transfer_words(&self) -> String {
        let (src, overlaps) = transfer_overlap(self.prefill.engine);
        format!(
            "the prompt's KV ({} per token per chip, the larger side's) crosses {} at {} per chip: {} s per prompt of {} tokens{}; {src}",
            format_quantity(self.per_token * self.bandwidth, Unit::Bytes),
            self.prefill.kv_link.as_str(),
            format_quantity(self.bandwidth, Unit::ByteRate),
            format_sig(self.per_token * self.prefill.prompt, 3),
            format_exact(self.prefill.prompt),
            if overlaps { ", chunk by chunk" } else { ", after the last chunk" },
        )
    }
}

/// One candidate of `disagg=auto`: its ratio and its figure per chip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Prefill workers.
    pub x: f64,
    /// Decode workers.
    pub y: f64,
    /// Chips in all.
    pub chips: f64,
    /// Saturation rate, requests/s.
    pub saturation: f64,
}

impl Candidate {
    /// Saturation per chip.
    pub fn per_chip(&self) -> f64 {
        self.saturation / self.chips
    }
}

/// Every `x`, `y` from 1 to `max` with its saturation, the most per chip first (ties: fewer
/// chips first), from one prefill and one decode worker's capacities (a worker's does not
/// depend on how many there are).
pub fn candidates(one: &Plan, cap: &Capacity, max: f64) -> Vec<Candidate> {
    let mut v = Vec::new();
    let (cp, cd) = (one.prefill.chips(), one.decode.chips());
    let mut x = 1.0;
    while x <= max {
        let mut y = 1.0;
        while y <= max {
            v.push(Candidate {
                x,
                y,
                chips: x * cp + y * cd,
                saturation: (x * cap.prefill).min(y * cap.decode),
            });
            y += 1.0;
        }
        x += 1.0;
    }
    // Ratios alike (1P1D, 2P2D) tie per chip up to rounding: fewer chips first.
    v.sort_by(|a, b| {
        let (pa, pb) = (a.per_chip(), b.per_chip());
        if (pa - pb).abs() <= 1e-12 * pa.abs().max(pb.abs()) {
            a.chips.total_cmp(&b.chips)
        } else {
            pb.total_cmp(&pa)
        }
    });
    v
}
