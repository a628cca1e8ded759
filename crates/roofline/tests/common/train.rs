//! Shared by `train.rs` and `train_fuzz.rs`: the invariants every training analysis keeps, and
//! a generator of random training configs.

use super::Rng;
use roofline::arch::arch_presets;
use roofline::train::{
    AxisNetworks, Fabric, Hardware, Mesh, Optimizer, Regime, Remat, Schedule, TrainAnalysis,
    TrainBound, TrainConfig,
};
use roofline::DType;

/// Keys whose value may be `null` in the analysis's JSON (an absent option). Any other
/// `null` is a non-finite number (serde_json writes NaN and infinities as `null`).
const OPTIONAL: &[&str] = &[
    "days",
    "cost",
    "budget",
    "critical_b",
    "optimal_fsdp",
    "exact",
    "book",
    "max_tokens_per_chip",
    "book_min_batch",
    "days_at_mfu",
    "days_at_mfu_6n",
    "cost_upper",
];

fn walk(v: &serde_json::Value, key: &str, path: &str) -> Result<(), String> {
    use serde_json::Value as V;
    match v {
        V::Null if OPTIONAL.contains(&key) => Ok(()),
        V::Null => Err(format!("{path}: null (a non-finite number?)")),
        V::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() => Ok(()),
            _ => Err(format!("{path}: {n}")),
        },
        V::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| walk(x, key, &format!("{path}[{i}]"))),
        V::Object(m) => m
            .iter()
            .try_for_each(|(k, x)| walk(x, k, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

fn le(a: f64, b: f64) -> bool {
    a <= b * (1.0 + 1e-9) + 1e-300
}

/// The invariants of an analysis: every number finite; `t_math ≤ t_lower ≤ t_upper`; MFU in
/// (0, 1]; memory positive and `fits` agreeing with it; critical batches positive where
/// given and given exactly when the regime is `Below`; a derivation.
pub fn check_analysis(a: &TrainAnalysis) -> Result<(), String> {
    let json = serde_json::to_value(a).map_err(|e| e.to_string())?;
    walk(&json, "", "")?;
    if !(a.t_math > 0.0 && le(a.t_math, a.t_lower) && le(a.t_lower, a.t_upper)) {
        return Err(format!(
            "times: math {} lower {} upper {}",
            a.t_math, a.t_lower, a.t_upper
        ));
    }
    if a.bound == TrainBound::Compute && !le(a.t_lower, a.t_math + a.t_bubble) {
        return Err(format!(
            "compute-bound but t_lower {} > {}",
            a.t_lower,
            a.t_math + a.t_bubble
        ));
    }
    if !(a.mfu > 0.0 && le(a.mfu, 1.0) && le(a.mfu_min, a.mfu) && le(a.hfu, 1.0)) {
        return Err(format!("mfu {} min {} hfu {}", a.mfu, a.mfu_min, a.hfu));
    }
    if !(a.tokens_per_s > 0.0 && a.bubble_fraction >= 0.0 && a.bubble_fraction < 1.0) {
        return Err(format!(
            "tokens/s {} bubble {}",
            a.tokens_per_s, a.bubble_fraction
        ));
    }
    let m = &a.memory;
    if !(m.total > 0.0 && m.fits == (m.total <= m.capacity)) {
        return Err(format!("memory {m:?}"));
    }
    if let Some(x) = m.max_tokens_per_chip {
        if x.is_nan() || x < 0.0 {
            return Err(format!("max tokens per chip {x}"));
        }
    }
    for c in &a.critical {
        match (c.regime, c.exact) {
            (Regime::Below, Some(x)) if x > 0.0 => {}
            (Regime::Below, _) => return Err(format!("critical {c:?}")),
            (_, Some(_)) => return Err(format!("exact without Below: {c:?}")),
            _ => {}
        }
        if c.book_rule.is_empty() {
            return Err("empty book rule".into());
        }
    }
    for l in &a.links {
        if !(l.time > 0.0 && le(a.t_math, l.done) && l.exposed >= 0.0 && l.bandwidth > 0.0) {
            return Err(format!("link {l:?}"));
        }
    }
    if a.derivation.is_empty() || a.derivation.iter().any(|l| l.trim().is_empty()) {
        return Err("empty derivation".into());
    }
    Ok(())
}

const NETS: &[&str] = &[
    "tpu-v4p", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu7x", "a100", "h100", "h200", "b200", "mi300x",
];

fn pow2(r: &mut Rng, max_exp: usize) -> f64 {
    2f64.powi(r.below(max_exp + 1) as i32)
}

fn log_uniform(r: &mut Rng, lo: f64, hi: f64) -> f64 {
    10f64.powf(lo + (hi - lo) * r.unit())
}

/// A random training config: any preset or a random dense architecture, batches from 1 to
/// 1e10 tokens, power-of-two degrees (expert parallelism dividing the experts), any fabric
/// preset with or without latency, every policy, dtype and option. Most analyse; some do not
/// place (whole GPU nodes, a TPU pod's size, a missing DCN figure) and are errors.
pub fn random_config(r: &mut Rng) -> TrainConfig {
    let mut c = TrainConfig::default();
    let presets = arch_presets();
    c.arch = if r.chance(4) {
        let heads = pow2(r, 6);
        let mut a = c.arch;
        a.layers = 1.0 + r.below(128) as f64;
        a.heads = heads;
        a.kv_heads = heads / pow2(r, heads.log2() as usize);
        a.head_dim = pow2(r, 8);
        a.dmodel = (1 + r.below(16_384)) as f64;
        a.ffn = (1 + r.below(65_536)) as f64;
        a.vocab = (1 + r.below(300_000)) as f64;
        a.gated = r.chance(2);
        a
    } else {
        presets[r.below(presets.len())].arch
    };
    c.batch = log_uniform(r, 0.0, 10.0).round().max(1.0);
    c.seq = pow2(r, 17);
    c.causal = !r.chance(4);
    c.mlp_only = r.chance(5);
    let mut m = Mesh {
        dp: pow2(r, 6),
        fsdp: pow2(r, 10),
        tp: pow2(r, 4),
        pp: pow2(r, 3).min(c.arch.layers),
        ep: 1.0,
        microbatches: pow2(r, 6),
    };
    if let Some(moe) = c.arch.moe {
        let e = pow2(r, 6);
        if moe.experts % e == 0.0 {
            m.ep = e;
        }
    }
    c.mesh = m;
    c.axes.mx = r.below(4) as f64;
    c.axes.my = r.below(3) as f64;
    c.axes.mz = r.below(3) as f64;
    c.remat = match r.below(5) {
        0 => Remat::None,
        1 => Remat::Block,
        2 => Remat::Matmuls,
        3 => Remat::Mlp,
        _ => Remat::Saved(0.5 + 30.0 * r.unit()),
    };
    c.optimizer = r.pick(&Optimizer::ALL);
    c.schedule = r.pick(&Schedule::ALL);
    c.zero1 = r.chance(3);
    let dt = |r: &mut Rng| r.pick(&DType::ALL);
    c.precision.param = dt(r);
    c.precision.compute = dt(r);
    c.precision.grad = dt(r);
    c.precision.optimizer = dt(r);
    c.precision.master = if r.chance(3) { None } else { Some(dt(r)) };
    c.tokens = (!r.chance(3)).then(|| log_uniform(r, 0.0, 16.0));
    c.mfu = (!r.chance(2)).then(|| r.unit().max(1e-6));
    c.price = (!r.chance(2)).then(|| 10.0 * r.unit());
    let mut fabric = if r.chance(20) {
        Fabric::Explicit(AxisNetworks::default())
    } else {
        Fabric::preset(r.pick(NETS)).unwrap()
    };
    if r.chance(3) {
        match &mut fabric {
            Fabric::Torus(t) => {
                t.latency = 0.0;
                t.dcn_latency = 0.0;
            }
            Fabric::Switched(s) => {
                s.latency = 0.0;
                s.net_latency = 0.0;
                s.sharp = r.chance(2);
            }
            _ => {}
        }
    }
    c.hw = Hardware {
        peak: log_uniform(r, 10.0, 16.0),
        hbm: log_uniform(r, 9.0, 12.0),
        hbm_bw: log_uniform(r, 10.0, 13.5),
        fabric,
    };
    c
}
