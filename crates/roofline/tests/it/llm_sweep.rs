//! Issue 16: the fast sweep of an `llm` step (its parts read as linear functions of `b` or
//! `ctx`, `op/llm_sweep.rs`) against the reference, the step rebuilt at every point
//! (`sweep_rebuilt`): every preset of the zoo, decode and prefill, both swept fields, two
//! chips, tensor parallelism, derate and calibration, and every other numeric field moved
//! off its value (so a field or part added later is exercised too: a part the linear model
//! cannot read makes the sweep fall back, and `path == "parts"` fails here, loudly).

use roofline::analysis::memory_fit;
use roofline::{
    analyze, llm_presets, preset, sweep, sweep_path, sweep_rebuilt, Calibration, Chip, Op, Options,
    SweepCurve, SweepSpec,
};

/// Equal, or within 1e-12 relative (a few ulps where a size is not an integer, such as 32
/// heads split 3 ways).
fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// How many compared values were bit for bit equal, of how many: at grid points and at
/// crossovers.
#[derive(Default, Debug)]
struct Tally {
    same_bits: usize,
    total: usize,
    crossover_same_bits: usize,
    crossover_total: usize,
}

impl Tally {
    fn cmp(&mut self, what: &str, a: f64, b: f64, ctx: &str) {
        assert!(close(a, b), "{ctx}: {what} {a} (fast) vs {b} (rebuilt)");
        self.total += 1;
        self.same_bits += usize::from(a.to_bits() == b.to_bits());
    }
}

fn compare(fast: &SweepCurve, slow: &SweepCurve, ctx: &str, tally: &mut Tally) {
    assert_eq!(fast.points.len(), slow.points.len(), "{ctx}");
    assert_eq!(fast.peak, slow.peak, "{ctx}");
    for (f, s) in fast.points.iter().zip(&slow.points) {
        let ctx = format!("{ctx} at x = {}", f.x);
        assert_eq!(f.x, s.x, "{ctx}");
        assert_eq!(f.bound, s.bound, "{ctx}");
        tally.cmp("achieved", f.achieved, s.achieved, &ctx);
        tally.cmp("t_lower", f.t_lower, s.t_lower, &ctx);
        tally.cmp("t_upper", f.t_upper, s.t_upper, &ctx);
        tally.cmp("t_math", f.t_math, s.t_math, &ctx);
        tally.cmp("t_comms", f.t_comms, s.t_comms, &ctx);
        tally.cmp("fraction", f.fraction, s.fraction, &ctx);
    }
    assert_eq!(
        fast.crossovers.len(),
        slow.crossovers.len(),
        "{ctx}: crossovers {:?} vs {:?}",
        fast.crossovers,
        slow.crossovers
    );
    for (f, s) in fast.crossovers.iter().zip(&slow.crossovers) {
        assert_eq!((f.before, f.after), (s.before, s.after), "{ctx}");
        let mut t = Tally::default();
        t.cmp("crossover x", f.x, s.x, ctx);
        t.cmp("crossover achieved", f.achieved, s.achieved, ctx);
        t.cmp("crossover t_lower", f.t_lower, s.t_lower, ctx);
        tally.crossover_same_bits += t.same_bits;
        tally.crossover_total += t.total;
    }
}

fn b_spec() -> SweepSpec {
    SweepSpec {
        field: "b".into(),
        from: 1.0,
        to: 4096.0,
        points: 48,
        log: false,
    }
}

fn ctx_spec() -> SweepSpec {
    SweepSpec {
        field: "ctx".into(),
        from: 16.0,
        to: 131072.0,
        points: 48,
        log: true,
    }
}

/// Checks one sweep both ways; returns how many crossovers it had.
fn check(op: &Op, chip: &Chip, opts: &Options, spec: &SweepSpec, tally: &mut Tally) -> usize {
    let ctx = format!(
        "{} {} on {} sweeping {} ({opts:?})",
        op.get("preset").unwrap(),
        op.get("phase").unwrap(),
        chip.name,
        spec.field
    );
    assert_eq!(
        sweep_path(op, chip, opts, spec).unwrap(),
        "parts",
        "{ctx}: the fast path fell back"
    );
    let fast = sweep(op, chip, opts, spec).unwrap();
    let slow = sweep_rebuilt(op, chip, opts, spec).unwrap();
    compare(&fast, &slow, &ctx, tally);
    fast.crossovers.len()
}

fn options() -> [Options; 2] {
    let derated = Options {
        derate: 0.8,
        cal: Calibration {
            compute: 0.9,
            memory: 0.7,
            overhead: 2e-6,
        },
        ..Options::default()
    };
    [Options::default(), derated]
}

/// Every zoo preset × decode/prefill × `b`/`ctx` × H100/TPU v5e × tp 1/8 × plain/derated:
/// the same points and crossovers as rebuilding the step at every point. With integer sizes
/// (every preset, tp 1 or 8) every grid point is the same bit for bit; a crossover lies at a
/// fractional `x`, where the linear form rounds once and the rebuilt parts at each factor, so
/// its bisection may end a few ulps away (within 1e-12).
#[test]
fn fast_llm_sweep_equals_rebuilding_every_point() {
    let chips = [
        (preset("h100").unwrap(), "nvlink"),
        (preset("tpu-v5e").unwrap(), "ici"),
    ];
    let mut tally = Tally::default();
    let mut crossings = 0;
    for p in llm_presets() {
        for phase in ["decode", "prefill"] {
            for (chip, link) in &chips {
                // 1 and 8 chips, or the most below 8 that gives whole heads (Qwen2.5-7B's 28
                // heads split 4 ways, as vLLM requires).
                let heads = p.arch.heads;
                let wide = [8.0, 4.0, 2.0]
                    .into_iter()
                    .find(|t| heads % t == 0.0)
                    .unwrap_or(1.0);
                for tp in [1.0, wide] {
                    let mut op = Op::default_for("llm").unwrap();
                    op.set("preset", p.id).unwrap();
                    op.set("phase", phase).unwrap();
                    op.set_num("tp", tp).unwrap();
                    op.set("link", link).unwrap();
                    for opts in options() {
                        crossings += check(&op, chip, &opts, &b_spec(), &mut tally);
                        let mut at_b8 = op.clone();
                        at_b8.set("b", "8").unwrap();
                        crossings += check(&at_b8, chip, &opts, &ctx_spec(), &mut tally);
                    }
                }
            }
        }
    }
    // The matrix crosses between memory and compute somewhere, so crossovers are compared.
    assert!(crossings > 100, "{crossings} crossovers");
    assert_eq!(tally.same_bits, tally.total, "{tally:?}");
    assert!(tally.crossover_total > 300, "{tally:?}");
}

/// The fast sweep's point equals the analysis of the op at that batch (a third path:
/// `analyze` builds the parts itself).
#[test]
fn fast_llm_sweep_point_equals_analysis() {
    let op = Op::default_for("llm").unwrap();
    let chip = preset("h100").unwrap();
    let opts = Options::default();
    let curve = sweep(&op, &chip, &opts, &b_spec()).unwrap();
    for pt in [
        &curve.points[0],
        &curve.points[17],
        curve.points.last().unwrap(),
    ] {
        let mut at = op.clone();
        at.set_num("b", pt.x).unwrap();
        let a = analyze(&at, &chip, &opts).unwrap();
        assert_eq!(pt.t_lower, a.t_lower, "b = {}", pt.x);
        assert_eq!(pt.t_math, a.t_math, "b = {}", pt.x);
        assert_eq!(pt.bound, a.bound, "b = {}", pt.x);
    }
}

/// Tensor parallelism over 3 chips (48 heads, 16 per chip, but 8 KV heads split 3 ways: sizes
/// per chip that binary cannot hold exactly) rebuilds the step at every point: a linear form
/// would round differently from the parts built directly.
#[test]
fn fractional_sizes_rebuild_the_step() {
    let chip = preset("h100").unwrap();
    let mut op = Op::default_for("llm").unwrap();
    op.set("heads", "48").unwrap();
    op.set("tp", "3").unwrap();
    op.set("link", "nvlink").unwrap();
    for spec in [b_spec(), ctx_spec()] {
        let path = sweep_path(&op, &chip, &Options::default(), &spec).unwrap();
        assert_eq!(path, "rebuilt", "{}", spec.field);
    }
}

/// A value of `key` other than its current one that the op accepts and can analyse, if any.
fn moved(op: &Op, key: &str, chip: &Chip) -> Option<Op> {
    let cur = op.get_num(key)?;
    [2.0 * cur, cur + 1.0, cur - 1.0, 3.0, 0.0, 1.0]
        .into_iter()
        .filter(|&v| v != cur)
        .find_map(|v| {
            let mut o = op.clone();
            o.set_num(key, v).ok()?;
            analyze(&o, chip, &Options::default()).ok()?;
            Some(o)
        })
}

/// Every numeric `llm` field other than the swept ones, moved off its value one at a time
/// (fields added later included), on a dense, an MoE with MLA and a windowed model: the fast
/// path is taken and equals rebuilding the step.
#[test]
fn fast_llm_sweep_follows_every_field() {
    let chip = preset("h100").unwrap();
    let opts = Options::default();
    let mut tally = Tally::default();
    let mut moved_fields = 0;
    for id in ["llama3-8b", "deepseek-v3", "gemma3-27b"] {
        for phase in ["decode", "prefill"] {
            let mut base = Op::default_for("llm").unwrap();
            base.set("preset", id).unwrap();
            base.set("phase", phase).unwrap();
            base.set("link", "nvlink").unwrap();
            for f in base.fields() {
                if !f.is_numeric() || f.key == "b" || f.key == "ctx" {
                    continue;
                }
                let Some(op) = moved(&base, f.key, &chip) else {
                    continue;
                };
                moved_fields += 1;
                check(&op, &chip, &opts, &b_spec(), &mut tally);
                let mut at_b8 = op.clone();
                at_b8.set("b", "8").unwrap();
                check(&at_b8, &chip, &opts, &ctx_spec(), &mut tally);
            }
        }
    }
    assert!(moved_fields > 100, "{moved_fields}");
}

/// Fields the model does not read as linear (`tp`, `layers`, ...) rebuild the step at every
/// point, and so do sweeps of other kinds' composites; a matmul stays affine.
#[test]
fn other_fields_take_the_general_paths() {
    let chip = preset("h100").unwrap();
    let opts = Options::default();
    let op = Op::default_for("llm").unwrap();
    let spec = |field: &str| SweepSpec {
        field: field.into(),
        from: 1.0,
        to: 64.0,
        points: 16,
        log: false,
    };
    assert_eq!(
        sweep_path(&op, &chip, &opts, &spec("tp")).unwrap(),
        "rebuilt"
    );
    assert_eq!(
        sweep_path(&op, &chip, &opts, &spec("layers")).unwrap(),
        "rebuilt"
    );
    let mm = Op::default_for("matmul").unwrap();
    assert_eq!(sweep_path(&mm, &chip, &opts, &spec("b")).unwrap(), "affine");
}

/// `memory_fit` (what the page bisects on for where a sweep stops fitting) is the analysis'
/// memory and capacity, and fails where the analysis fails (fp8 weights and activations on an A100, which has
/// no fp8 peak), for every preset, both phases, tp 1 and 8, across batches.
#[test]
fn memory_fit_is_the_analysis_memory() {
    let chips = ["h100", "tpu-v5e", "a100"].map(|id| preset(id).unwrap());
    let opts = options()[1];
    for p in llm_presets() {
        for phase in ["decode", "prefill"] {
            for (tp, w) in [("1", "bf16"), ("8", "fp8")] {
                for chip in &chips {
                    for b in ["1", "64", "4096"] {
                        let mut op = Op::default_for("llm").unwrap();
                        let fields = [
                            ("preset", p.id),
                            ("phase", phase),
                            ("tp", tp),
                            ("w", w),
                            ("x", w),
                        ];
                        for (k, v) in fields {
                            op.set(k, v).unwrap();
                        }
                        op.set("b", b).unwrap();
                        let ctx =
                            format!("{} {phase} tp {tp} {w} on {} at B = {b}", p.id, chip.name);
                        match (analyze(&op, chip, &opts), memory_fit(&op, chip, &opts)) {
                            (Ok(a), Ok(m)) => assert_eq!(m, (a.memory, a.capacity), "{ctx}"),
                            (Err(a), Err(m)) => assert_eq!(m.to_string(), a.to_string(), "{ctx}"),
                            (a, m) => panic!("{ctx}: {:?} vs {m:?}", a.map(|a| a.memory)),
                        }
                    }
                }
            }
        }
    }
    let mut op = Op::default_for("llm").unwrap();
    op.set("w", "fp8").unwrap();
    op.set("x", "fp8").unwrap();
    assert!(memory_fit(&op, &preset("a100").unwrap(), &opts).is_err());
}
