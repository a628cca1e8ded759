//! Serving under load in words: the derivation the row shows, each equation of [`super`]'s
//! docs beside its numbers, the cap in words and the engine's notes with their sources.

use super::{CapBy, LoadFigures, LoadModel, Resolved};
use crate::op::Load;
use crate::serving::engine::{Pages, Pattern, PoolRule};
use crate::units::{format_exact, format_sig};

fn ms(t: f64) -> String {
    crate::units::format_quantity(t, crate::units::Unit::Seconds)
}

/// The figures' derivation, in the book's notation beside the numbers (`docs/serving.md`).
pub(super) fn derivation(m: &LoadModel, f: &LoadFigures) -> Vec<String> {
    use crate::serving::pattern::Regime;
    let l = m.llm();
    let r = &m.resolved;
    let sig = |x: f64| format_sig(x, 4);
    let (p, g) = (l.prompt, l.output - 1.0);
    let mut v = vec![format!(
        "P = {}, G = {}, P_h = min(⌊prefix_hit·P⌋, P − 1) = {} cached, P_n = {} prefilled; K = {}; cap = min(max_seqs {}, pool {}{}) = {}",
        format_exact(p),
        format_exact(l.output),
        format_exact(r.prompt_hit),
        format_exact(r.prompt_new),
        r.budget.map_or("∞ (whole prompts)".into(), format_exact),
        format_exact(r.max_seqs),
        format_exact(r.pool_seqs),
        r.budget
            .filter(|_| r.defaults.pattern == Pattern::Mixed)
            .map_or(String::new(), |k| format!(", K {}", format_exact(k))),
        format_exact(r.cap),
    )];
    let Some(o) = &f.at else {
        if let Some(w) = &f.why_none {
            v.push(w.clone());
        }
        return v;
    };
    let s = &o.state;
    let n = o.running;
    v.push(format!(
        "N = {} requests inside; m = {} chunks per prompt; {}",
        sig(n),
        sig(s.chunks),
        match s.regime {
            Regime::Apart => "prompts apart",
            Regime::Overlap => "prompts overlap: every step carries prefill",
            Regime::BudgetBound => "the budget binds: every step holds K tokens",
        }
    ));
    for st in &s.steps {
        v.push(format!(
            "step: {} = {} ({} of each cycle; {}-bound, {} the largest part at {:.0} %)",
            st.what,
            ms(st.time.t),
            sig(st.count),
            st.time.bound.as_str(),
            st.time.binding_part,
            100.0 * st.time.binding_share
        ));
    }
    if r.defaults.pattern == Pattern::Mixed && s.regime == Regime::Apart && g > 0.0 {
        let nd = (n.max(1.0) - 1.0) * s.chunks;
        v.push(format!(
            "TPOT = [(N − 1)·Σ_j t_j + (g − (N − 1)·m)·t_d] / g, g = G − 1 = {}: [{}·Σ_j t_j + {}·t_d] / {} = {}",
            format_exact(g),
            sig(n.max(1.0) - 1.0),
            sig(g - nd),
            format_exact(g),
            ms(o.tpot)
        ));
    } else {
        v.push(format!(
            "TPOT = the mean step time a decoding request sees over the pattern = {}",
            ms(o.tpot)
        ));
    }
    v.push(format!(
        "TTFT = W + E[t²]/(2·E[t]) + own prefill = {} + {} + {} = {}",
        ms(o.queue_wait),
        ms(s.residual),
        ms((o.ttft - o.queue_wait - s.residual).max(0.0)),
        ms(o.ttft)
    ));
    match l.load {
        Load::Rate => v.push(format!(
            "open loop: λ = {} req/s = N̄ / (TTFT_e + g·TPOT) at N̄ = {}; W = ½·C(cap, N̄)·S/(cap − N̄) = {}",
            sig(o.requests_per_s),
            sig(n),
            ms(o.queue_wait)
        )),
        _ => v.push(format!(
            "closed loop: X = N / (TTFT_e + g·TPOT) = {} / ({} + {}·{}) = {} req/s; W = (c − N)/X = {}",
            sig(n),
            ms(o.ttft - o.queue_wait),
            format_exact(g),
            ms(o.tpot),
            sig(o.requests_per_s),
            ms(o.queue_wait)
        )),
    }
    if let Some(t) = f.tokens_per_s {
        v.push(format!(
            "tokens/s = X·G = {}; per chip / {} = {}; per request 1/TPOT = {}",
            sig(t),
            format_exact(f.chips),
            sig(t / f.chips),
            sig(1.0 / o.tpot)
        ));
    }
    if let Some(sat) = f.saturation_qps {
        v.push(format!(
            "saturation = cap / (TTFT_e + g·TPOT) at N = cap = {} req/s",
            sig(sat)
        ));
    }
    match (f.goodput_qps, &f.goodput_none) {
        (Some(q), _) => v.push(format!(
            "goodput = the largest rate with mean TTFT ≤ ttft_max and TPOT ≤ tpot_max = {} req/s",
            sig(q)
        )),
        (None, Some(w)) => v.push(format!("goodput: {w}")),
        _ => {}
    }
    v
}

pub(super) fn cap_words(r: &Resolved) -> String {
    match r.cap_by {
        CapBy::Seqs => format!(
            "the engine's sequence cap{} is {}",
            if r.max_seqs_from_engine {
                " (default)"
            } else {
                ""
            },
            format_exact(r.max_seqs)
        ),
        CapBy::Pool => format!("the KV pool holds {}", format_exact(r.pool_seqs)),
        CapBy::Budget => format!(
            "a step holds at most K = {} tokens",
            format_exact(r.budget.unwrap_or(0.0))
        ),
    }
}

/// The engine's words on the row: its pattern, budget (converted where it counts prefill
/// only), cap and pool, and the first wave.
pub(super) fn engine_notes(m: &LoadModel) -> Vec<String> {
    let r = &m.resolved;
    let d = &r.defaults;
    let mut v = vec![format!(
        "{} ({}): {}",
        d.engine.as_str(),
        d.version,
        match d.pattern {
            Pattern::Mixed => "every step carries each running sequence's decode token and prefill chunks up to the budget",
            Pattern::Split => "prefill steps and decode steps apart; a prefill step runs whenever a prompt waits",
        }
    )];
    v.push(match (r.budget, r.budget_from_engine) {
        (None, true) => "chunk: whole prompts (the engine's default: chunked prefill off)".into(),
        (None, false) => "chunk=none: whole prompts".into(),
        (Some(k), from_engine) => {
            let mut s = format!(
                "chunk: K = {} tokens per step{}",
                format_exact(k),
                if from_engine { " (the engine's default)" } else { "" }
            );
            if d.budget_counts_prefill_only && d.pattern == Pattern::Split {
                s.push_str(", converted from a budget that counts prefill tokens only: a prefill step carries no decode token, so it is the same");
            }
            s
        }
    });
    v.push(format!(
        "cap: {} running sequences at most ({}); the KV pool, {} = {} per chip, holds {} ({} per sequence{}{})",
        format_exact(r.cap),
        cap_words(r),
        describe_pool(d.pool),
        fmt_bytes(r.pool_bytes.max(0.0)),
        format_exact(r.pool_seqs),
        fmt_bytes(r.seq_bytes),
        match d.pages {
            Pages::Grow => " at P + G/2: pages grow with tokens",
            Pages::Reserve => " at P + G: reserved at admission",
        },
        if r.prompt_hit > 0.0 {
            format!(", the prefix's {} once", fmt_bytes(r.prefix_bytes))
        } else {
            String::new()
        },
    ));
    if r.prompt_hit > 0.0 {
        v.push(format!(
            "prefix cache: {} of P = {} prompt tokens served from the cache, {} prefilled (their attention still reads the prefix's keys)",
            format_exact(r.prompt_hit),
            format_exact(m.l.prompt),
            format_exact(r.prompt_new),
        ));
    }
    if m.l.load == Load::Concurrency {
        v.push("steady state: a closed loop's first wave of c simultaneous requests (which prefill together) is left to the benchmark's warm-up".into());
    }
    v
}

pub(super) fn describe_pool(p: PoolRule) -> String {
    match p {
        PoolRule::OfTotal(f) => format!("{} of HBM less the weights", format_sig(f, 3)),
        PoolRule::OfFree(f) => format!("{} of the HBM left after the weights", format_sig(f, 3)),
    }
}

pub(super) fn fmt_bytes(b: f64) -> String {
    crate::units::format_quantity(b, crate::units::Unit::Bytes)
}
