//! The serving frontier's model (`plot=frontier`): for every `llm` operation on every chip,
//! output tokens/s per chip against time per output token over powers-of-two batches
//! ([`roofline::results::frontier`]), the batches beyond the largest that fits marked out of
//! memory. Other operations have no frontier; an operation that fails to analyse is left out.

use roofline::inputs::Scenario;
use roofline::results::frontier;

use super::names::series_name;
use crate::charts::{FrontierChart, FrontierCurve, FrontierMark};

/// The frontier chart of the scenario's `llm` operations.
pub fn frontier_chart(s: &Scenario) -> FrontierChart {
    let mut curves = Vec::new();
    for (j, chip) in s.chips.iter().enumerate() {
        for (i, op) in s.ops.iter().enumerate() {
            let Ok(Some(f)) = frontier(op, chip, &s.options) else {
                continue;
            };
            curves.push(FrontierCurve {
                label: series_name(s, op, &chip.name),
                series_idx: j * s.ops.len() + i,
                points: f
                    .points
                    .iter()
                    .map(|p| FrontierMark {
                        batch: p.batch,
                        tpot: p.tpot,
                        tokens_per_s_chip: p.tokens_per_s_chip,
                        fits: p.fits,
                    })
                    .collect(),
                max_batch: f.max_batch,
            });
        }
    }
    FrontierChart {
        title: if curves.is_empty() {
            "Serving frontier (add a transformer (llm) operation)".into()
        } else {
            "Serving frontier: throughput per chip against latency, over the batch".into()
        },
        x_label: "time per output token".into(),
        y_label: "output tokens/s per chip".into(),
        curves,
    }
}
