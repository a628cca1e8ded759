//! The roofline chart model: per chip its compute ceilings, memory and link slopes and ridges;
//! one point per (operation, chip).

use roofline::analysis::analyze;
use roofline::scenario::Scenario;
use roofline::units::{format_sig, Unit};

use super::names::{pretty, series_name};
use crate::charts::{Ceiling, Marker, PointMark, RooflineChart, Slope};

/// The roofline plot: per chip its compute ceilings (dtypes in use), HBM slope and the link
/// slopes the operations use; ridges; one point per (operation, chip).
pub fn roofline_chart(s: &Scenario) -> RooflineChart {
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
        let mut slopes: Vec<(roofline::analysis::Resource, f64)> = Vec::new();
        for (i, op) in s.ops.iter().enumerate() {
            let Ok(a) = analyze(op, chip, &s.options) else {
                continue;
            };
            let dt = a.compute.dtype.as_str().to_string();
            if !ceilings.iter().any(|(d, _)| *d == dt) {
                ceilings.push((dt, a.compute.effective_peak));
            }
            for t in &a.comms {
                if !slopes.iter().any(|(r, _)| *r == t.resource) {
                    slopes.push((t.resource, t.bandwidth));
                }
            }
            chart.points.push(PointMark {
                x: a.intensity,
                y: a.achieved,
                label: series_name(s, op, &chip.name),
                series_idx: j * n_ops + i,
            });
        }
        if !slopes
            .iter()
            .any(|(r, _)| *r == roofline::analysis::Resource::Hbm)
        {
            slopes.insert(0, (roofline::analysis::Resource::Hbm, chip.hbm));
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
                label: format!(
                    "{} {} {}",
                    chip.name,
                    r.label(),
                    pretty(*bw, Unit::ByteRate)
                ),
                bytes_per_s: *bw,
                series_idx: color,
                dashed: *r != roofline::analysis::Resource::Hbm,
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
