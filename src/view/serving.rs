//! The serving row of an `llm` operation on a chip (issue 13): parameters total and active,
//! time to first token, time per output token, throughput, cost and energy per token, the
//! largest batch that fits, each a `data-metric` cell of the contract.
//!
//! It is a row of its own (`data-op="<i>.serving"`, class `serving-row`) under the model's
//! row, because the model's row already has a `tokens_per_s` of another meaning: tokens of
//! *one step* (the op's own phase and context) per second of that step. In the serving row,
//! `tokens_per_s` is the issue's `B / tpot`: output tokens per second of the `n`-chip group
//! while decoding at the mean context `P + G/2`. Each metric name means one thing per row.

use roofline::inputs::Scenario;
use roofline::results::ServingResults;
use roofline::results::{Serving, Speculative, Topology, MAX_TOPOLOGY_CHIPS};
use roofline::units::{format_exact, format_sig, Unit};

use super::cell::{Cell, ResultRow};
use super::names::{params_words, pretty};

/// A cell whose text carries its own short label (the serving row has no column headers of
/// its own): `TTFT 1.2 s`.
fn labelled(metric: &'static str, label: &str, v: f64, text: String, title: &str) -> Cell {
    Cell {
        metric,
        value: format_exact(v),
        text: if label.is_empty() {
            text
        } else {
            format!("{label} {text}")
        },
        class: "",
        title: title.to_string(),
        basis: None,
    }
}

/// Why a serving figure is `none` for a batch that does not fit at its final context: its
/// throughput, cost and energy would be those of a setup that cannot run.
fn does_not_fit(s: &Serving) -> String {
    format!(
        "does not fit: B = {} sequences at P + G = {} need more HBM than the chips have (at most \
         {} fit); no throughput, cost or energy for a setup that cannot run",
        format_exact(s.batch),
        format_exact(s.prompt + s.output),
        format_exact(s.max_batch)
    )
}

/// The serving figures as cells, in reading order. A batch that does not fit at P + G keeps
/// its time bounds (TTFT, TPOT) and shows `none`, with the reason, for every figure that
/// would claim it runs: tokens/s, requests/s, cost, energy, the prefill:decode ratio.
pub fn serving_cells(s: &Serving) -> Vec<Cell> {
    let mut out = serving_cells_as_if_it_fit(s);
    if !s.fits {
        let why = does_not_fit(s);
        for c in out.iter_mut().filter(|c| {
            matches!(
                c.metric,
                "tokens_per_s"
                    | "tokens_per_s_chip"
                    | "tokens_per_s_seq"
                    | "requests_per_s"
                    | "cost_per_mtok"
                    | "joules_per_token"
                    | "prefill_decode_ratio"
            )
        }) {
            *c = Cell {
                metric: c.metric,
                value: "none".into(),
                text: "—".into(),
                class: "bound-memory",
                title: why.clone(),
                basis: None,
            };
        }
    }
    out
}

/// The serving figures as cells, whether or not the batch fits.
fn serving_cells_as_if_it_fit(s: &Serving) -> Vec<Cell> {
    let mut out = vec![
        labelled(
            "params",
            "params",
            s.params,
            params_words(s.params),
            "all parameters, every expert included",
        ),
        labelled(
            "active_params",
            "active",
            s.active_params,
            params_words(s.active_params),
            "parameters one token uses (routed experts: top_k of them)",
        ),
        labelled(
            "ttft",
            "TTFT",
            s.ttft,
            pretty(s.ttft, Unit::Seconds),
            "time to first token: a prefill of B prompts of P tokens (T_lower)",
        ),
        {
            // TPOT names its context, as the model row's step does (issue 38, point 4).
            let mut tpot = labelled(
                "tpot",
                "TPOT",
                s.tpot,
                pretty(s.tpot, Unit::Seconds),
                "time per output token, per sequence: a decode step at B and context P + G/2",
            );
            tpot.text.push_str(&format!(
                " at P + G/2 = {}",
                format_exact(s.prompt + s.output / 2.0)
            ));
            tpot
        },
        labelled(
            "tokens_per_s",
            "",
            s.tokens_per_s,
            format!("{} tok/s", format_sig(s.tokens_per_s, 4)),
            "output tokens per second of the group while decoding: B / TPOT",
        ),
        labelled(
            "tokens_per_s_chip",
            "",
            s.tokens_per_s_chip,
            format!("{} tok/s/chip", format_sig(s.tokens_per_s_chip, 4)),
            "B / TPOT / chips",
        ),
        labelled(
            "tokens_per_s_seq",
            "",
            s.tokens_per_s_seq,
            format!("{} tok/s/seq", format_sig(s.tokens_per_s_seq, 4)),
            "what one sequence sees: 1 / TPOT",
        ),
        labelled(
            "requests_per_s",
            "",
            s.requests_per_s,
            format!("{} req/s", format_sig(s.requests_per_s, 4)),
            "requests completed per second: tokens/s / G",
        ),
    ];
    out.push(optional(
        "cost_per_mtok",
        s.cost_per_mtok,
        |c| format!("${}/Mtok", format_sig(c, 4)),
        "USD per million output tokens: price · chips / 3600 / (tokens/s) · 1e6",
        "the chip has no price= (USD per chip-hour)",
    ));
    out.push(optional(
        "joules_per_token",
        s.joules_per_token,
        |j| format!("{} J/tok", format_sig(j, 4)),
        "power · chips / (tokens/s)",
        "the chip has no power= (watts)",
    ));
    let mut fit = labelled(
        "max_batch",
        "max B",
        s.max_batch,
        format_exact(s.max_batch),
        "the largest batch whose weights (every expert) and KV caches at P + G fit in HBM",
    );
    fit.text.push_str(&format!(
        " at P + G = {}",
        format_exact(s.prompt + s.output)
    ));
    // A capacity, not a second verdict beside the model row's fit (issue 38, point 4): a batch
    // above it is marked, and the figures it leaves empty say why.
    if !s.fits {
        fit.class = "bound-memory";
        fit.title.push_str(&format!(
            "; B = {} does not fit at P + G",
            format_exact(s.batch)
        ));
    }
    out.push(fit);
    out.push(labelled(
        "prefill_decode_ratio",
        "prefill:decode",
        s.prefill_decode_ratio,
        format!("{} : 1", format_sig(s.prefill_decode_ratio, 3)),
        "prefill servers per decode server when they are apart (part 8, disaggregated serving): \
         B · (one prefill of P) / (tpot · G), so that both pools stay busy",
    ));
    out
}

/// A figure the chip may lack the data for (a price, a power): `none` and why when absent.
fn optional(
    metric: &'static str,
    v: Option<f64>,
    text: impl Fn(f64) -> String,
    title: &str,
    why: &str,
) -> Cell {
    match v {
        Some(x) => labelled(metric, "", x, text(x), title),
        None => Cell {
            metric,
            value: "none".into(),
            text: "—".into(),
            class: "",
            title: why.into(),
            basis: None,
        },
    }
}

/// Part 8's smallest topology: the fewest chips (a power of two) that hold the batch and, under
/// a `tpot_max` bound (seconds), decode within it.
fn min_chips_cell(
    t: Result<Option<Topology>, roofline::inputs::Error>,
    bound: Option<f64>,
) -> Cell {
    let memory = "the smallest power-of-two group of chips whose HBM holds the weights and B KV \
                  caches at P + G (applied-inference.md, \"smallest topology\")";
    let title = match (bound, &t) {
        (None, _) => memory.to_string(),
        (Some(b), Ok(Some(t))) => format!(
            "{memory}, and whose decode step at B and P + G/2 takes at most tpot_max = {} \
             (here {})",
            pretty(b, Unit::Seconds),
            pretty(t.tpot, Unit::Seconds)
        ),
        (Some(b), _) => format!(
            "{memory}, and whose decode step at B and P + G/2 takes at most tpot_max = {}",
            pretty(b, Unit::Seconds)
        ),
    };
    let title = title.as_str();
    let none_why = match bound {
        None => format!(
            "no group of up to {} chips holds B",
            format_exact(MAX_TOPOLOGY_CHIPS)
        ),
        Some(b) => format!(
            "no group of up to {} chips holds B with a time per output token ≤ tpot_max = {}",
            format_exact(MAX_TOPOLOGY_CHIPS),
            pretty(b, Unit::Seconds)
        ),
    };
    match t {
        Ok(Some(t)) => labelled(
            "min_chips",
            "fits on",
            t.chips,
            format!(
                "{} chip{}",
                format_exact(t.chips),
                if t.chips == 1.0 { "" } else { "s" }
            ),
            title,
        ),
        Ok(None) => optional("min_chips", None, format_exact, title, &none_why),
        Err(e) => optional("min_chips", None, format_exact, title, &e.to_string()),
    }
}

/// The `tpot_max` bound of an `llm` op, seconds.
fn tpot_bound(op: &roofline::inputs::Op) -> Option<f64> {
    // The field is in ms (`tpot_max=50`).
    op.get_num("tpot_max").map(|ms| ms / 1e3)
}

/// Speculative decoding's cells (`tpot_spec`, `spec_speedup`): `none` and why without a draft
/// or when it fails.
fn speculative_cells(v: Result<Option<Speculative>, roofline::inputs::Error>) -> [Cell; 2] {
    let s = match v {
        Ok(Some(s)) => s,
        other => {
            let why = match other {
                Err(e) => format!("speculative decoding: {e}"),
                _ => "no draft= model (speculative decoding off)".to_string(),
            };
            return [
                optional("tpot_spec", None, format_exact, "", &why),
                optional("spec_speedup", None, format_exact, "", &why),
            ];
        }
    };
    let how = format!(
        "{d} drafts k = {k} tokens (decode step {ds} each), the target verifies them in one step \
         of T = B·(k+1) tokens (phase verify, {vs}); with acceptance α = {a} a step yields \
         E[tokens] = (1 − α^(k+1)) / (1 − α) = {e} tokens: ({k} · {ds} + {vs}) / {e} = {t} \
         (part 7, inference.md appendix on speculative sampling). The draft's weights and \
         caches are not counted in max B.",
        d = s.draft_name,
        k = format_exact(s.k),
        ds = pretty(s.draft_step, Unit::Seconds),
        vs = pretty(s.verify_step, Unit::Seconds),
        a = format_sig(s.accept, 4),
        e = format_sig(s.tokens_per_step, 4),
        t = pretty(s.tpot_spec, Unit::Seconds),
    );
    [
        labelled(
            "tpot_spec",
            "TPOT spec",
            s.tpot_spec,
            pretty(s.tpot_spec, Unit::Seconds),
            &format!("time per output token with speculative decoding: {how}"),
        ),
        labelled(
            "spec_speedup",
            "",
            s.speedup,
            format!("{}× vs TPOT", format_sig(s.speedup, 3)),
            &format!(
                "TPOT / TPOT spec = {} / {}",
                pretty(s.tpot, Unit::Seconds),
                pretty(s.tpot_spec, Unit::Seconds)
            ),
        ),
    ]
}

/// The serving row of operation `i` on chip `j`, `None` unless it is an `llm` op whose own
/// analysis succeeded (its error is then on the model's row already).
/// `r` are the store's serving figures of the pair.
pub fn serving_row(s: &Scenario, i: usize, j: usize, r: &ServingResults) -> Option<ResultRow> {
    let op = s.ops.get(i)?;
    let mut lines = Vec::new();
    let (cells, error, name) = match &r.figures {
        Ok(None) => return None,
        Ok(Some(v)) => (
            {
                let mut cells = serving_cells(v);
                let bound = tpot_bound(op);
                cells.push(min_chips_cell(r.topology.clone(), bound));
                cells.extend(speculative_cells(r.speculative.clone()));
                cells.extend(super::expected::serving_expected_cells(r.expected.as_ref()));
                // Under a load the headline figures are the load's (issue 40).
                // The draw program leaves a load's row to the app (`None`).
                lines = super::serving_load::apply(op, &r.load, &mut cells)?;
                // Under load, the simulated tails (issue 42): pending until the app's worker
                // answers for this scenario.
                cells.extend(super::serving_tails::pending_cells(op));
                cells
            },
            None,
            format!(
                "  serving: {} · prompt {} · output {} · {} chip{}",
                super::serving_load::load_words(op)
                    .unwrap_or_else(|| format!("B {}", format_exact(v.batch))),
                format_exact(v.prompt),
                format_exact(v.output),
                format_exact(v.chips),
                if v.chips == 1.0 { "" } else { "s" }
            ),
        ),
        Err(e) => (Vec::new(), Some(e.to_string()), "  serving".into()),
    };
    Some(ResultRow {
        id: format!("{i}.serving/{j}"),
        op_key: format!("{i}.serving"),
        chip: j,
        name,
        class: "serving-row",
        cells,
        analysis: None,
        error,
        parts: Default::default(),
        serving: None,
        lines,
    })
}
