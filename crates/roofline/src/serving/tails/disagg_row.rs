//! The serving row's disaggregated deployment (issue 42's `disagg=`): its plan's set-up for
//! the simulation, `auto`'s search for the ratio, and the comparison with aggregated serving
//! on the same chips ([`super::tails`] runs it).

use super::{aggregated_setup, fmt, goodput_slo, Setup, AUTO_SIMULATED};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Disagg, Llm, Load, Op, AUTO_MAX_WORKERS};
use crate::serving::disagg::{candidates, plan, Capacity, Plan};
use crate::serving::serving;
use crate::serving::sim::{StepCoef, StepTiming};
use crate::units::{format_exact, format_sig};
use serde::Serialize;

/// A disaggregated deployment's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisaggFigures {
    /// The ratio run: `3P1D`.
    pub ratio: String,
    /// Whether `disagg=auto` chose it.
    pub auto: bool,
    /// Chips of a prefill worker and of a decode worker, and in all.
    pub chips: (f64, f64, f64),
    /// Each worker's and the deployment's saturation.
    pub capacity: Capacity,
    /// The figure `auto` ranks by per chip: `goodput_qps_slo` with a service level, else
    /// `saturation_qps`; its value per chip for the ratio run.
    pub figure: &'static str,
    /// Per chip.
    pub per_chip: Option<f64>,
    /// Aggregated serving on the same chips: replicas of the op's own `tp·ep`, and the same
    /// figure per chip; `None` with `aggregated_none`.
    pub aggregated_replicas: f64,
    /// Per chip.
    pub aggregated_per_chip: Option<f64>,
    /// Why aggregated serving has no figure on these chips.
    pub aggregated_none: Option<String>,
    /// `disaggregated`, `aggregated` or `neither` (equal).
    pub wins: &'static str,
    /// `auto`: ratios ranked, and those simulated.
    pub searched: (usize, usize),
    /// Words for the derivation.
    pub notes: Vec<String>,
    /// The ratio run as its worker counts `(x, y)` (what `ratio` writes).
    #[serde(skip)]
    pub workers: (f64, f64),
}

/// A plan's setup.
pub(super) fn disagg_setup(
    p: &Plan,
    opts: &Options,
    timing: &dyn StepTiming,
) -> Result<(Setup, Capacity), Error> {
    let (cp, cd) = p.coefs(timing)?;
    let cap = p.capacity(opts, cp, cd)?;
    let l = &p.prefill;
    // A lone request: its prefill, its transfer, its decode steps.
    let lone = 1.0 / cap.prefill.max(f64::MIN_POSITIVE);
    // A lone request's latency, at most: its prefill at the worker's rate, its transfer, and
    // its decode at the decode worker's cap (`N_d / μ_d = (G − 1)·TPOT(N_d)`).
    let decode = if cap.decode.is_finite() && cap.decode > 0.0 {
        cap.decode_cap / cap.decode
    } else {
        0.0
    };
    let latency = lone + l.prompt * p.per_token + decode;
    let running = match l.load {
        Load::Rate => (l.qps * latency).max(1.0),
        _ => l.c,
    }
    .min(p.y * cap.decode_cap)
    .max(1.0);
    let (plan, opts) = (p.clone(), *opts);
    Ok((
        Setup {
            build: Box::new(move || plan.deployment(&opts, &Both(cp, cd, plan.prefill))),
            hits: None,
            host: None,
            saturation: cap.saturation,
            latency,
            running,
            spread: p.y,
        },
        cap,
    ))
}

/// A disaggregated deployment's two sides' coefficients.
struct Both(StepCoef, StepCoef, Llm);

impl StepTiming for Both {
    fn coef(&self, l: &Llm, _: &Chip) -> Result<StepCoef, String> {
        // The prefill worker's op is the one given; any other is a decode worker's.
        Ok(if *l == self.2 { self.0 } else { self.1 })
    }
    fn basis(&self, _: &Llm) -> String {
        String::new()
    }
}

/// The disaggregated deployment of `l` (its ratio, or `auto`'s), its setup and figures.
pub(super) fn disagg_figures(
    op: &Op,
    l: &Llm,
    chip: &Chip,
    d_chip: &Chip,
    opts: &Options,
    timing: &dyn StepTiming,
) -> Result<(Setup, DisaggFigures), Error> {
    let slo = l.ttft_bound().is_some() && l.tpot_bound().is_some();
    let figure = if slo {
        "goodput_qps_slo"
    } else {
        "saturation_qps"
    };
    let one = plan(l, chip, d_chip, opts, (1.0, 1.0))?;
    let (cp, cd) = one.coefs(timing)?;
    let cap1 = one.capacity(opts, cp, cd)?;
    // Aggregated serving on the same chips: replicas of the op's own group.
    let agg_coef = timing
        .coef(l, chip)
        .map_err(|w| Error::invalid("engine", l.engine.as_str(), w))?;
    let mut agg_l = *l;
    agg_l.disagg = Disagg::None;
    let agg = aggregated_setup(&agg_l, chip, opts, agg_coef);
    let agg_per_chip_of = |setup: &Setup| -> Result<f64, Error> {
        let v = if slo {
            goodput_slo(&agg_l, setup)?.0.unwrap_or(0.0)
        } else {
            setup.saturation
        };
        Ok(v / l.chips())
    };
    let (x, y, auto, searched, per_chip) = match l.disagg {
        Disagg::Split { prefill, decode } => (prefill, decode, false, (1, 0), None),
        _ => {
            let ranked = candidates(&one, &cap1, AUTO_MAX_WORKERS);
            if !slo {
                let best = &ranked[0];
                (
                    best.x,
                    best.y,
                    true,
                    (ranked.len(), 0),
                    Some(best.per_chip()),
                )
            } else {
                // Branch and bound: a ratio's goodput is at most its saturation, so ratios
                // whose saturation per chip is below the best goodput per chip found cannot
                // win.
                let mut best: Option<(f64, f64, f64)> = None;
                let mut simulated = 0;
                for c in &ranked {
                    if best.is_some_and(|b| c.per_chip() <= b.2) || simulated >= AUTO_SIMULATED {
                        break;
                    }
                    let p = plan(l, chip, d_chip, opts, (c.x, c.y))?;
                    let (setup, _) = disagg_setup(&p, opts, timing)?;
                    let g = goodput_slo(l, &setup)?.0.unwrap_or(0.0) / c.chips;
                    simulated += 1;
                    if best.is_none_or(|b| g > b.2) {
                        best = Some((c.x, c.y, g));
                    }
                }
                let b = best.unwrap_or((1.0, 1.0, 0.0));
                (b.0, b.1, true, (ranked.len(), simulated), Some(b.2))
            }
        }
    };
    let p = plan(l, chip, d_chip, opts, (x, y))?;
    let (setup, capacity) = disagg_setup(&p, opts, timing)?;
    let per_chip = match per_chip {
        Some(v) => Some(v),
        None if slo => Some(goodput_slo(l, &setup)?.0.unwrap_or(0.0) / p.chips()),
        None => Some(capacity.saturation / p.chips()),
    };
    let replicas = (p.chips() / l.chips()).floor();
    let (aggregated_per_chip, aggregated_none) = match (&agg, replicas >= 1.0) {
        (Ok(s), true) => (Some(agg_per_chip_of(s)?), None),
        (Err(e), _) => (None, Some(e.to_string())),
        (_, false) => (
            None,
            Some(format!(
                "{} chips hold no replica of the op's own group of {}",
                format_exact(p.chips()),
                format_exact(l.chips())
            )),
        ),
    };
    let wins = match (per_chip, aggregated_per_chip) {
        (Some(d), Some(a)) if d > a * (1.0 + 1e-9) => "disaggregated",
        (Some(d), Some(a)) if a > d * (1.0 + 1e-9) => "aggregated",
        (Some(_), Some(_)) => "neither",
        _ => "disaggregated",
    };
    let mut notes = vec![
        format!(
            "{}: {} prefill worker(s) of {} chip(s) (p_tp {}, p_ep {}) on {}, {} decode worker(s) of {} (d_tp {}, d_ep {}) on {}: {} chips",
            p.ratio(),
            format_exact(x),
            format_exact(p.prefill.chips()),
            format_exact(p.prefill.tp),
            format_exact(p.prefill.ep),
            p.p_chip.name,
            format_exact(y),
            format_exact(p.decode.chips()),
            format_exact(p.decode.tp),
            format_exact(p.decode.ep),
            p.d_chip.name,
            format_exact(p.chips()),
        ),
        format!(
            "saturation: a prefill worker {} req/s (its prefill steps back to back{}), a decode worker {} req/s at its cap of {} sequences (N_d / ((G − 1)·TPOT)); min(x·{}, y·{}) = {} req/s",
            fmt(capacity.prefill),
            if capacity.link <= capacity.prefill * (1.0 + 1e-12) { ", bound by its link" } else { "" },
            fmt(capacity.decode),
            format_exact(capacity.decode_cap),
            fmt(capacity.prefill),
            fmt(capacity.decode),
            fmt(capacity.saturation),
        ),
        p.transfer_words(),
    ];
    if auto {
        notes.push(format!(
            "auto: {} ratios (x, y from 1 to {}) ranked by saturation per chip{}; best {} at {} {} per chip",
            searched.0,
            format_exact(AUTO_MAX_WORKERS),
            if slo {
                format!(", the first {} simulated for goodput_qps_slo (a ratio's goodput is at most its saturation)", searched.1)
            } else {
                String::new()
            },
            p.ratio(),
            per_chip.map_or("none".into(), fmt),
            if slo { "req/s within the service level" } else { "req/s" },
        ));
    }
    // Part 8's ratio, for comparison.
    if let Ok(Some(s)) = serving(op, chip, opts) {
        notes.push(format!(
            "part 8's prefill_decode_ratio ({} : 1) balances one prefill server's rate against one decode server's at the op's static batch B = {} (B·t_prefill / (t_decode·G)); {} counts whole workers under the engine's caps, budget, KV pool and transfer{}",
            format_sig(s.prefill_decode_ratio, 3),
            format_exact(l.b),
            if auto { "auto" } else { "the simulation" },
            if slo { ", per chip, within the service level" } else { ", per chip" },
        ));
    }
    Ok((
        setup,
        DisaggFigures {
            ratio: p.ratio(),
            auto,
            chips: (p.prefill.chips(), p.decode.chips(), p.chips()),
            capacity,
            figure,
            per_chip,
            aggregated_replicas: replicas,
            aggregated_per_chip,
            aggregated_none,
            wins,
            searched,
            notes,
            workers: (x, y),
        },
    ))
}
