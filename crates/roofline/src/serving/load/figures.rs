//! The load figures of one scenario ([`LoadFigures`]): the model of [`super`] read at the link's
//! load, with the row's notes and derivation.

use super::words::{cap_words, derivation, engine_notes};
use super::{BoundTiming, LoadFigures, LoadModel, Timing};
use crate::analysis::Options;
use crate::chip::Chip;
use crate::error::Error;
use crate::op::{Load, Op};
use crate::units::{format_exact, format_sig};

/// The load figures of `op` on `chip` (see the module docs); `Ok(None)` for another kind or
/// `load=batch`. Errors like [`LoadModel::new`].
pub fn load_figures(op: &Op, chip: &Chip, opts: &Options) -> Result<Option<LoadFigures>, Error> {
    let Some(l) = op.llm() else {
        return Ok(None);
    };
    if l.load == Load::Batch {
        return Ok(None);
    }
    let m = LoadModel::new(op, chip, opts)?;
    figures(&m, &BoundTiming).map(Some)
}

/// The load figures of a model read by `timing`.
pub fn figures(m: &LoadModel, timing: &dyn Timing) -> Result<LoadFigures, Error> {
    let l = m.llm();
    let r = &m.resolved;
    let mut notes = engine_notes(m);
    let offered = match l.load {
        Load::Rate => l.qps,
        _ => l.c,
    };
    let mut out = LoadFigures {
        load: l.load,
        engine: l.engine,
        chips: l.chips(),
        offered,
        resolved: r.clone(),
        at: None,
        tokens_per_s: None,
        tokens_per_s_chip: None,
        tokens_per_s_seq: None,
        saturation_qps: None,
        goodput_qps: None,
        goodput_none: None,
        why_none: None,
        notes: Vec::new(),
        derivation: Vec::new(),
    };
    if let Some(why) = m.no_request() {
        out.why_none = Some(why.clone());
        out.goodput_none = Some(why);
        out.notes = notes;
        return Ok(out);
    }
    out.saturation_qps = m.saturation(timing)?;
    let at = match l.load {
        Load::Rate => {
            let o = match out.saturation_qps {
                Some(sat) => m.open_below(l.qps, sat, timing)?,
                None => None,
            };
            if o.is_none() {
                if let Some(sat) = out.saturation_qps {
                    out.why_none = Some(format!(
                        "saturates at {} req/s: a rate of {} req/s queues without bound",
                        format_sig(sat, 4),
                        format_sig(l.qps, 4)
                    ));
                }
            }
            o
        }
        _ => {
            let o = m.closed(l.c, timing)?;
            if let Some(o) = &o {
                if o.queued > 0.0 {
                    notes.push(format!(
                        "{} of the c = {} requests run at once ({}); the other {} wait for a slot: (c − N)/X = {} s",
                        format_sig(o.running, 6),
                        format_exact(l.c),
                        cap_words(r),
                        format_sig(o.queued, 6),
                        format_sig(o.queue_wait, 4),
                    ));
                }
            }
            o
        }
    };
    if let Some(o) = &at {
        let x = o.requests_per_s;
        out.tokens_per_s = Some(x * l.output);
        out.tokens_per_s_chip = Some(x * l.output / l.chips());
        out.tokens_per_s_seq = Some(1.0 / o.tpot);
    }
    out.at = at;
    match (l.ttft_bound(), l.tpot_bound()) {
        (Some(a), Some(b)) => match match out.saturation_qps {
            Some(sat) => m.goodput_below(a, b, sat, timing)?,
            None => None,
        } {
            Some(g) => {
                if g.qps == 0.0 {
                    out.goodput_none = Some(format!(
                        "even a lone request misses the bounds: TTFT {} s, TPOT {} s",
                        format_sig(g.at.ttft, 4),
                        format_sig(g.at.tpot, 4)
                    ));
                }
                out.goodput_qps = Some(g.qps);
            }
            None => out.goodput_none = Some("no figure to hold to the bounds".into()),
        },
        (a, b) => {
            let missing: Vec<&str> = [("ttft_max", a.is_none()), ("tpot_max", b.is_none())]
                .iter()
                .filter(|(_, m)| *m)
                .map(|(k, _)| *k)
                .collect();
            out.goodput_none = Some(format!(
                "goodput needs both bounds: set {}",
                missing.join(" and ")
            ));
        }
    }
    out.notes = notes;
    out.derivation = derivation(m, &out);
    Ok(out)
}
