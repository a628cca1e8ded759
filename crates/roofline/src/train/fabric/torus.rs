//! Placement on a TPU torus: a strategy's degree split over its hardware axes, the data
//! parallelism beyond a pod over the data-center network.

use super::{fr, missing, AxisNet, MeshAxis, Placement, TorusFabric};
use crate::collective::{Network, Topology, WrapRule, MAX_CHIPS};
use crate::error::Error;
use crate::train::mesh::{AxisCounts, Mesh};
use crate::units::format_exact;

/// Prime factors of a whole `n ≥ 1` (at most 1e9: trial division to 31,623).
fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// `n` split into `m` whole factors as equal as possible (largest primes first onto the
/// smallest factor), largest first: 8960 over 3 is 28x20x16, 2048 over 2 is 64x32. Factors of
/// 1 are dropped (a prime spans one axis).
pub fn split_axes(n: f64, m: usize) -> Vec<f64> {
    let m = m.clamp(1, 16);
    if !(n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= MAX_CHIPS) {
        return vec![n];
    }
    let mut primes = prime_factors(n as u64);
    primes.sort_unstable_by(|a, b| b.cmp(a));
    let mut f = vec![1u64; m];
    for p in primes {
        if let Some(min) = f.iter_mut().min() {
            *min *= p;
        }
    }
    let mut out: Vec<f64> = f.into_iter().filter(|&x| x > 1).map(|x| x as f64).collect();
    out.sort_unstable_by(|a, b| b.total_cmp(a));
    if out.is_empty() {
        out.push(1.0);
    }
    out
}

/// The largest divisor of `n` (whole, ≥ 1) that is at most `limit` (≥ 1).
fn largest_divisor_at_most(n: f64, limit: f64) -> f64 {
    if n <= limit {
        return n;
    }
    let n_u = n as u64;
    let mut best = 1u64;
    let mut d = 1u64;
    while d * d <= n_u {
        if n_u % d == 0 {
            for c in [d, n_u / d] {
                if (c as f64) <= limit && c > best {
                    best = c;
                }
            }
        }
        d += 1;
    }
    best as f64
}

fn describe_torus(axes: &[crate::collective::TorusAxis], link: f64) -> String {
    let shape = axes
        .iter()
        .map(|a| {
            format!(
                "{}{}",
                format_exact(a.size),
                if a.wrap { "" } else { " (no wraparound)" }
            )
        })
        .collect::<Vec<_>>()
        .join("x");
    format!(
        "{} torus ax{} {shape}, W_link = {} per direction (W_ici = {})",
        axes.len(),
        if axes.len() == 1 { "is" } else { "es" },
        fr(link),
        fr(2.0 * link)
    )
}

/// The shape of a slice of `n` chips over `m` axes: [`split_axes`], except that where only
/// whole 4x4x4 cubes wrap around (TPU v4p, v5p) and `n` is a whole number of them, every axis
/// is kept a multiple of 4 (192 over 3 axes is 12x4x4, which wraps, not 8x6x4, which does
/// not).
pub(crate) fn torus_shape(n: f64, m: usize, wrap: WrapRule) -> Vec<f64> {
    let m = m.clamp(1, 16);
    let cube = 4f64.powi(m as i32);
    if wrap == WrapRule::FullCube && n >= cube && (n / cube).fract() == 0.0 {
        let mut f = split_axes(n / cube, m);
        f.retain(|&x| x > 1.0);
        f.resize(m, 1.0);
        let mut out: Vec<f64> = f.into_iter().map(|x| 4.0 * x).collect();
        out.sort_unstable_by(|a, b| b.total_cmp(a));
        return out;
    }
    split_axes(n, m)
}

/// The torus of `d` chips over `m` hardware axes.
fn torus_axis(t: &TorusFabric, axis: MeshAxis, d: f64, m: f64, x: bool) -> Result<AxisNet, Error> {
    let shape = torus_shape(d, m as usize, t.wrap);
    let axes = t.wrap.axes(&shape);
    let note = if x {
        describe_torus(&axes, t.link)
    } else {
        String::new()
    };
    let network = Network::new(Topology::Torus {
        axes,
        link: t.link,
        links: 1.0,
    })
    .with_latency(t.latency);
    network.validate()?;
    Ok(AxisNet {
        axis,
        m: shape.len() as f64,
        network,
        scale: 1.0,
        note,
    })
}

pub(super) fn place(
    mesh: &Mesh,
    counts: &AxisCounts,
    t: &TorusFabric,
    x: bool,
) -> Result<Placement, Error> {
    let others = mesh.fsdp * mesh.tp * mesh.pp * mesh.ep;
    if others > t.pod {
        return Err(Error::InvalidField {
            field: "fsdp".into(),
            value: format_exact(mesh.fsdp),
            reason: format!(
                "fsdp·tp·pp·ep = {} exceeds the ICI domain of {} chips (a {} pod); put the rest in dp, which crosses the DCN",
                format_exact(others),
                format_exact(t.pod),
                t.name
            ),
        });
    }
    let dp_ici = largest_divisor_at_most(mesh.dp, (t.pod / others).floor().max(1.0));
    let dp_dcn = mesh.dp / dp_ici;
    let on = |d: f64| if d > 1.0 { 1.0 } else { 0.0 };
    let auto_x = (t.dims - on(mesh.tp) - on(mesh.ep) - on(mesh.pp)).max(1.0);
    let pick = |given: f64, auto: f64| if given > 0.0 { given } else { auto };
    let (mx, my, mz) = (
        pick(counts.mx, auto_x),
        pick(counts.my, 1.0),
        pick(counts.mz, 1.0),
    );
    let mut p = Placement {
        dp_ici,
        ..Placement::default()
    };
    if dp_ici > 1.0 {
        p.dp = Some(torus_axis(t, MeshAxis::Dp, dp_ici, mx, x)?);
    }
    if mesh.fsdp > 1.0 {
        p.fsdp = Some(torus_axis(t, MeshAxis::Fsdp, mesh.fsdp, mx, x)?);
    }
    if mesh.tp > 1.0 {
        p.tp = Some(torus_axis(t, MeshAxis::Tp, mesh.tp, my, x)?);
    }
    if mesh.ep > 1.0 {
        p.ep = Some(torus_axis(t, MeshAxis::Ep, mesh.ep, mz, x)?);
    }
    if mesh.pp > 1.0 {
        let network = Network::new(Topology::line(2.0, t.link)).with_latency(t.latency);
        p.pp = Some(AxisNet {
            axis: MeshAxis::Pp,
            network,
            scale: 1.0,
            m: 1.0,
            note: if x {
                format!(
                    "one ICI link between adjacent stages, {} per direction",
                    fr(t.link)
                )
            } else {
                String::new()
            },
        });
    }
    if dp_dcn > 1.0 {
        let w = t
            .dcn
            .ok_or_else(|| missing("DCN bandwidth", "dcn", &t.name))?;
        let network = Network::new(Topology::Node {
            n: dp_dcn,
            gpus: dp_dcn,
            egress: w,
            sharp: false,
        })
        .with_latency(t.dcn_latency);
        network.validate()?;
        p.dcn = Some(AxisNet {
            axis: MeshAxis::Dcn,
            network,
            scale: 1.0 / dp_ici,
            m: 0.0,
            note: if x {
                format!(
                    "{} slices of {} chips over the data-center network, each chip egressing {} (training.md, \"Scaling Across Pods\")",
                    format_exact(dp_dcn),
                    format_exact(mesh.chips() / dp_dcn),
                    fr(w)
                )
            } else {
                String::new()
            },
        });
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_split_evenly() {
        assert_eq!(split_axes(8960.0, 3), vec![28.0, 20.0, 16.0]);
        assert_eq!(split_axes(2048.0, 2), vec![64.0, 32.0]);
        assert_eq!(split_axes(4096.0, 3), vec![16.0, 16.0, 16.0]);
        assert_eq!(split_axes(7.0, 3), vec![7.0]);
        assert_eq!(split_axes(1.0, 3), vec![1.0]);
        assert_eq!(
            torus_shape(192.0, 3, WrapRule::FullCube),
            vec![12.0, 4.0, 4.0]
        );
        assert_eq!(split_axes(192.0, 3), vec![8.0, 6.0, 4.0]);
        assert_eq!(
            torus_shape(8960.0, 3, WrapRule::FullCube),
            vec![28.0, 20.0, 16.0]
        );
        assert_eq!(
            torus_shape(64.0, 3, WrapRule::FullCube),
            vec![4.0, 4.0, 4.0]
        );
        assert_eq!(
            torus_shape(16.0, 3, WrapRule::FullCube),
            vec![4.0, 2.0, 2.0]
        );
        assert_eq!(largest_divisor_at_most(16.0, 5.0), 4.0);
        assert_eq!(largest_divisor_at_most(13.0, 5.0), 1.0);
        assert_eq!(largest_divisor_at_most(4.0, 5.0), 4.0);
    }
}
