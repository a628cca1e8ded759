//! The roofline chart model: per chip its compute ceilings, memory and link slopes and ridges;
//! one point per (operation, chip).

use roofline::inputs::Scenario;
use roofline::results::Results;
use roofline::results::{Analysis, Resource};
use roofline::units::{format_sig, Unit};

use super::names::{pretty, series_name};
use crate::charts::{Ceiling, Marker, PointMark, RooflineChart, Slope};

/// What the roofline plot reads of one (operation, chip)'s analysis: its compute dtype and
/// peak, the links it uses, and its point. `None` when the analysis fails (no point).
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineFacts {
    dtype: String,
    peak: f64,
    links: Vec<(Resource, f64)>,
    intensity: f64,
    achieved: f64,
}

fn facts(a: &Analysis) -> RooflineFacts {
    RooflineFacts {
        dtype: a.compute.dtype.as_str().to_string(),
        peak: a.compute.effective_peak,
        links: a.comms.iter().map(|t| (t.resource, t.bandwidth)).collect(),
        intensity: a.intensity,
        achieved: a.achieved,
    }
}

/// The roofline plot: per chip its compute ceilings (dtypes in use), HBM slope and the link
/// slopes the operations use; ridges; one point per (operation, chip).
pub fn roofline_chart(s: &Scenario) -> RooflineChart {
    roofline_chart_of(s, &Results::of(s))
}

/// [`roofline_chart`] from `results` (the store brought to `s`).
pub fn roofline_chart_of(s: &Scenario, results: &Results) -> RooflineChart {
    let mut chart = RooflineChart {
        title: format!(
            "Roofline: {}",
            s.chips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
        x_label: "arithmetic intensity (FLOPs/byte)".into(),
        y_label: "achieved FLOPs/s".into(),
        shade_regions: true,
        ..RooflineChart::default()
    };
    let n_ops = s.ops.len().max(1);
    for (j, chip) in s.chips.iter().enumerate() {
        let color = j * n_ops;
        let mut ceilings: Vec<(String, f64)> = Vec::new();
        let mut slopes: Vec<(Resource, f64)> = Vec::new();
        for (i, op) in s.ops.iter().enumerate() {
            let Some(Ok(a)) = results.get(i, j).map(|r| &r.analysis) else {
                continue;
            };
            let a = facts(a);
            if !ceilings.iter().any(|(d, _)| *d == a.dtype) {
                ceilings.push((a.dtype.clone(), a.peak));
            }
            for &(resource, bandwidth) in &a.links {
                if !slopes.iter().any(|(r, _)| *r == resource) {
                    slopes.push((resource, bandwidth));
                }
            }
            chart.points.push(PointMark {
                x: a.intensity,
                y: a.achieved,
                label: series_name(s, op, &chip.name),
                series_idx: j * n_ops + i,
            });
        }
        if !slopes.iter().any(|(r, _)| *r == Resource::Hbm) {
            slopes.insert(0, (Resource::Hbm, chip.hbm));
        }
        for (dt, peak) in &ceilings {
            chart.ceilings.push(Ceiling {
                label: format!("{} {dt} peak {}", chip.name, pretty(*peak, Unit::FlopRate)),
                flops_per_s: *peak,
                series_idx: color,
            });
        }
        for (r, bw) in &slopes {
            chart.slopes.push(Slope {
                // "roof": the bandwidth the roofline's time uses, named apart from a
                // collective's bus bandwidth in its row (issue 38, point 10: "ICI 60 GB/s"
                // beside "busbw 45 GB/s").
                label: format!(
                    "{} {} roof {}",
                    chip.name,
                    r.label(),
                    pretty(*bw, Unit::ByteRate)
                ),
                bytes_per_s: *bw,
                series_idx: color,
                dashed: *r != Resource::Hbm,
            });
        }
        let conv = s.options.convention.factor();
        for (_, peak) in &ceilings {
            let ridge = peak / (conv * chip.hbm);
            chart.ridges.push(Marker::new(
                ridge,
                *peak,
                format!("ridge {}", format_sig(ridge, 3)),
            ));
        }
    }
    chart
}
