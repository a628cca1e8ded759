//! The best FSDP × TP split of part 5 beside the book's `X_opt`.

use super::{f_eff, fr, fs, nn, sig, OptimalFsdp, SEC_FSDP};
use crate::train::config::TrainConfig;
use crate::train::fabric::Fabric;
use crate::train::model::StepCosts;

/// Every divisor of a whole `n` (≤ 1e9), ascending.
pub(crate) fn divisors(n: f64) -> Vec<f64> {
    let n = n as u64;
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut i = 1u64;
    while i * i <= n {
        if n % i == 0 {
            small.push(i as f64);
            if i * i != n {
                large.push((n / i) as f64);
            }
        }
        i += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// The fastest `(fsdp, tp)` split of `fsdp·tp` chips at the config's batch (fitting in memory
/// when any split does; of equal times, the one whose busiest link has the most headroom),
/// with its time and fit.
pub(crate) fn best_split(cfg: &TrainConfig) -> Option<(f64, f64, f64, bool, StepCosts)> {
    let nxy = cfg.mesh.fsdp * cfg.mesh.tp;
    let mut best: Option<(f64, f64, f64, bool, f64, StepCosts)> = None;
    for y in divisors(nxy) {
        let mut c = cfg.clone();
        c.mesh.tp = y;
        c.mesh.fsdp = nxy / y;
        let Ok(m) = StepCosts::build(&c, false) else {
            continue;
        };
        let times = m.eval(m.b0);
        let t = times.t_lower;
        let slack = times.links.iter().map(|l| l.load).fold(0.0, f64::max);
        let fits = m.memory_at(m.b0) <= cfg.hw.hbm;
        let better = match &best {
            None => true,
            Some((_, _, bt, bf, bs, _)) => {
                (fits && !bf) || (fits == *bf && (t < *bt || (t == *bt && slack < *bs)))
            }
        };
        if better {
            best = Some((c.mesh.fsdp, y, t, fits, slack, m));
        }
    }
    best.map(|(x, y, t, f, _, m)| (x, y, t, f, m))
}

pub(super) fn optimal_fsdp(
    cfg: &TrainConfig,
    model: &StepCosts,
    d: &mut Vec<String>,
) -> Option<OptimalFsdp> {
    let mesh = &cfg.mesh;
    if mesh.fsdp <= 1.0 && mesh.tp <= 1.0 {
        return None;
    }
    let nxy = mesh.fsdp * mesh.tp;
    let (fsdp, tp, t_lower, fits, best) = best_split(cfg)?;
    let f = f_eff(cfg);
    // The bandwidths W_X, W_Y: the book's W_ici·M_X and W_ici·M_Y on a torus.
    let widths = match &cfg.hw.fabric {
        Fabric::Torus(t) => {
            let on = |x: f64| if x > 1.0 { 1.0 } else { 0.0 };
            let auto_x = (t.dims - 1.0 - on(mesh.ep) - on(mesh.pp)).max(1.0);
            let mx = if cfg.axes.mx > 0.0 {
                cfg.axes.mx
            } else {
                auto_x
            };
            let my = if cfg.axes.my > 0.0 { cfg.axes.my } else { 1.0 };
            let w = 2.0 * t.link;
            Some((w * mx, w * my, format!("M_X/M_Y = {}/{}", nn(mx), nn(my))))
        }
        _ => {
            let pick = |m: &StepCosts| -> Option<(f64, f64)> {
                Some((
                    m.placement.fsdp.as_ref()?.ag_bandwidth_approx(),
                    m.placement.tp.as_ref()?.ag_bandwidth_approx(),
                ))
            };
            pick(&best)
                .or_else(|| pick(model))
                .map(|(wx, wy)| (wx, wy, format!("W_X/W_Y = {}/{}", fr(wx), fr(wy))))
        }
    };
    let (book, book_rule, book_min) = match widths {
        Some((wx, wy, what)) => {
            let r = wx / wy;
            let x = (cfg.batch / f * r * nxy).sqrt();
            let bmin = Some(cfg.hw.peak.powi(2) / (wx * wy * f));
            (
                Some(x),
                format!(
                    "X_opt = √((B/F)·(M_X/M_Y)·N) = √({}/{}·{}·{}) = {} ({what})",
                    sig(cfg.batch),
                    nn(f),
                    sig(r),
                    nn(nxy),
                    sig(x)
                ),
                bmin,
            )
        }
        None => (
            None,
            "no tensor- and FSDP-parallel split to compare".into(),
            None,
        ),
    };
    d.push(format!(
        "Optimal FSDP ({SEC_FSDP}): {book_rule}; on the model the fastest split of the {} chips is fsdp {} × tp {}: {}{}{}",
        nn(nxy),
        nn(fsdp),
        nn(tp),
        fs(t_lower),
        if fits { "" } else { " (none fits in memory)" },
        match book_min {
            Some(x) => format!("; the book's least batch per chip with FSDP + TP, C²/(W_X·W_Y·F) = α²/(M_X·M_Y·F) = {}", sig(x)),
            None => String::new(),
        }
    ));
    Some(OptimalFsdp {
        chips: nxy,
        book,
        book_rule,
        book_min_batch: book_min,
        fsdp,
        tp,
        t_lower,
        fits,
    })
}
