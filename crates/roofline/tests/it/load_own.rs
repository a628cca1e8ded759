//! "My engine" under a load (issue 43, `roofline::validation::load::own`): with
//! `engine=own:<compute>:<memory>:<network>:<step>` the serving row's expected figures and the
//! load plot's curve are the load model timed by the user's own terms, basis `own`, without a
//! band. Checked against hand calculations: factors of 1 and no step time are the bound, a
//! factor on a resource scales only the parts bound by it, a step time adds to every step.

use roofline::op::Engine;
use roofline::serving::{figures, load_figures, BoundTiming, LoadModel, Operating};
use roofline::url::decode;
use roofline::validation::load::own::{OwnTiming, NO_BAND};
use roofline::validation::load::page::{load_curve, load_row, own_curve, Axis, LoadRow};
use roofline::validation::Basis;
use roofline::{Chip, Op, Options};

/// Llama 3 8B on an H100, prompts of 1,024 and outputs of 256.
const H100: &str = "?chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256";
/// The same on a chip of 1 TFLOP/s and 10 PB/s: every part of every step compute-bound.
const SLOW: &str =
    "?chip=custom:name=Slow,bf16=1e12,hbm=1e16,hbm_cap=80e9&op=llm:preset=llama3-8b,prompt=1024,output=256";

fn pair(link: &str) -> (Op, Chip, Options) {
    let d = decode(link);
    assert!(d.notices.is_empty(), "{link}: {:?}", d.notices);
    let s = d.scenario;
    (s.ops[0].clone(), s.chips[0].clone(), s.options)
}

fn row(link: &str) -> LoadRow {
    let (op, chip, opts) = pair(link);
    load_row(&op, &chip, &opts).unwrap().unwrap()
}

/// The load model's bound at the link's load.
fn bound(link: &str) -> Operating {
    let (op, chip, opts) = pair(link);
    load_figures(&op, &chip, &opts)
        .unwrap()
        .unwrap()
        .at
        .unwrap()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

/// Factors of 1 and no time per step are the bound itself, in a closed loop, a closed loop
/// queued past the KV pool and an open loop; the basis is `own` and there is no band.
#[test]
fn factors_of_one_are_the_bound() {
    for load in [
        "load=concurrency,c=8",
        "load=concurrency,c=512",
        "load=rate,qps=2",
    ] {
        let link = format!("{H100},{load},engine=own:1:1:1:0");
        let r = row(&link);
        let b = bound(&link);
        assert_eq!(r.basis, Some(Basis::Own), "{link}");
        assert_eq!(r.basis.unwrap().id(), "own");
        assert!(r.own.is_some() && r.fitted_engine.is_none() && r.fallback.is_none());
        assert_eq!(r.engine, Engine::Generic);
        for (e, want) in [
            (r.ttft.expected, b.ttft),
            (r.tpot.expected, b.tpot),
            (r.requests_per_s.expected, b.requests_per_s),
        ] {
            assert!(close(e.unwrap(), want, 1e-12), "{link}: {e:?} {want}");
        }
        assert!(close(
            r.tokens_per_s.expected.unwrap(),
            256.0 * b.requests_per_s,
            1e-12
        ));
        // No band: the link carries no standard errors.
        assert_eq!(
            (r.ttft.lo, r.ttft.hi, r.tpot.lo, r.tpot.hi),
            (None, None, None, None)
        );
    }
    // The bound itself by hand at one client: one decode step reads the weights once, 32
    // layers × (2·4096² + 2·4096·1024 + 3·4096·14336) + the 128,256 × 4096 head = 7.504e9
    // parameters × 2 B = 15.009 GB, and the KV cache at P + G/2 = 1,152 tokens × 32 layers ×
    // 8 heads × 128 × 2 (K and V) × 2 B = 0.151 GB: 15.160 GB / 3.35e12 B/s = 4.525 ms.
    let params = 32.0 * (2.0 * 4096.0 * 4096.0 + 2.0 * 4096.0 * 1024.0 + 3.0 * 4096.0 * 14336.0)
        + 128_256.0 * 4096.0;
    let kv = 1152.0 * 32.0 * 8.0 * 128.0 * 2.0 * 2.0;
    let t = (2.0 * params + kv) / 3.35e12;
    let one = row(&format!("{H100},load=concurrency,c=1,engine=own:1:1:1:0"));
    assert!(close(one.tpot.expected.unwrap(), t, 5e-3), "{one:?} {t}");
}

/// A factor scales only the parts bound by its resource: on the H100 at one client every
/// decode step is memory-bound, so memory ×1.5 makes TPOT 1.5 × the bound's and compute ×1.5
/// leaves it; on a chip where every part is compute-bound, the other way round, and with no
/// queue (8 clients under the cap) TTFT follows: 1.5 × the bound's.
#[test]
fn a_factor_scales_the_parts_its_resource_binds() {
    let h = |terms: &str| row(&format!("{H100},load=concurrency,c=1,engine={terms}"));
    let b = bound(&format!("{H100},load=concurrency,c=1"));
    assert!(close(
        h("own:1:1.5:1:0").tpot.expected.unwrap(),
        1.5 * b.tpot,
        1e-12
    ));
    assert!(close(
        h("own:1.5:1:1:0").tpot.expected.unwrap(),
        b.tpot,
        1e-12
    ));
    let s = |terms: &str| row(&format!("{SLOW},load=concurrency,c=8,engine={terms}"));
    let sb = bound(&format!("{SLOW},load=concurrency,c=8"));
    assert_eq!(sb.queued, 0.0);
    let fast = s("own:1.5:1:1:0");
    assert!(close(fast.tpot.expected.unwrap(), 1.5 * sb.tpot, 1e-9));
    assert!(close(fast.ttft.expected.unwrap(), 1.5 * sb.ttft, 1e-9));
    // A request's life is 1.5 × as long: one client in eight completes 1/1.5 as often.
    assert!(close(
        fast.requests_per_s.expected.unwrap(),
        sb.requests_per_s / 1.5,
        1e-9
    ));
    let mem = s("own:1:1.5:1:0");
    assert!(close(mem.tpot.expected.unwrap(), sb.tpot, 1e-9));
    // No link: the collectives' factor changes nothing.
    assert!(close(
        s("own:1:1:7:0").ttft.expected.unwrap(),
        sb.ttft,
        1e-12
    ));
}

/// A fixed time per step adds to every step: at one client each output token is one decode
/// step, so 1 ms per step makes TPOT the bound's + 1 ms; TTFT gains 1 ms per step it spans
/// (its prefill step and the share of the step in progress: between 1 and 2); the one client
/// completes a request every TTFT + 255 · TPOT (Little's law).
#[test]
fn a_time_per_step_adds_to_every_step() {
    let link = format!("{H100},load=concurrency,c=1,engine=own:1:1:1:1ms");
    let (r, b) = (row(&link), bound(&link));
    let tpot = r.tpot.expected.unwrap();
    assert!(close(tpot, b.tpot + 1e-3, 1e-12), "{tpot} {}", b.tpot);
    let spans = b.state.ttft.steps;
    assert!((1.0..=2.0).contains(&spans), "{spans}");
    let ttft = r.ttft.expected.unwrap();
    assert!(close(ttft, b.ttft + 1e-3 * spans, 1e-12));
    assert!(close(
        r.requests_per_s.expected.unwrap(),
        1.0 / (ttft + 255.0 * tpot),
        1e-12
    ));
}

/// The timing the row and the curve share is the terms applied to a state's split bound.
#[test]
fn own_timing_is_the_terms_on_the_split_bound() {
    use roofline::serving::Timing;
    let (op, chip, opts) = pair(&format!("{H100},load=concurrency,c=8"));
    let m = LoadModel::new(&op, &chip, &opts).unwrap();
    let s = m.state(8.0).unwrap();
    let e = roofline::profile::OwnEngine::parse("own:2:3:5:1ms").unwrap();
    let (ttft, tpot) = OwnTiming(e).times(&s).unwrap();
    let [c, mm, n] = s.tpot.by_bound;
    assert!(close(
        tpot,
        2.0 * c + 3.0 * mm + 5.0 * n + 1e-3 * s.tpot.steps,
        1e-12
    ));
    let [c, mm, n] = s.ttft.by_bound;
    assert!(close(
        ttft,
        2.0 * c + 3.0 * mm + 5.0 * n + 1e-3 * s.ttft.steps,
        1e-12
    ));
    // And the whole figures through it are the row's.
    let f = figures(&m, &OwnTiming(e)).unwrap().at.unwrap();
    let r = row(&format!("{H100},load=concurrency,c=8,engine=own:2:3:5:1ms"));
    assert_eq!(r.tpot.expected, Some(f.tpot));
    assert!(f.tpot > figures(&m, &BoundTiming).unwrap().at.unwrap().tpot);
}

/// The load plot's "my engine" curve: basis `own`, no band, each point the bound's at factors
/// of 1 and 1.5 × it where memory binds everything (one client's decode on the H100 is the
/// curve's first point); it is not the published generic curve.
#[test]
fn the_load_plots_own_curve() {
    let (op, chip, opts) = pair(&format!("{H100},load=concurrency,c=8"));
    let e = |t: &str| roofline::profile::OwnEngine::parse(t).unwrap();
    for axis in [Axis::Concurrency, Axis::Rate] {
        let c = own_curve(&op, &chip, &opts, e("own:1:1:1:0"), axis, 16).unwrap();
        assert_eq!(c.basis, Ok(Basis::Own));
        assert!(c.points.len() >= 8, "{axis:?}: {}", c.points.len());
        for p in &c.points {
            assert!(close(p.tpot.expected.unwrap(), p.tpot.bound.unwrap(), 1e-9));
            assert!(close(p.ttft.expected.unwrap(), p.ttft.bound.unwrap(), 1e-9));
            assert_eq!((p.tpot.lo, p.ttft.hi), (None, None));
        }
    }
    let slow = own_curve(&op, &chip, &opts, e("own:1:1.5:1:0"), Axis::Concurrency, 16).unwrap();
    let first = &slow.points[0];
    assert_eq!(first.x, 1.0);
    assert!(close(
        first.tpot.expected.unwrap(),
        1.5 * first.tpot.bound.unwrap(),
        1e-12
    ));
    let generic = load_curve(&op, &chip, &opts, Engine::Generic, Axis::Concurrency, 16).unwrap();
    assert_ne!(generic.basis, Ok(Basis::Own));
    assert_ne!(
        generic.points[0].tpot.expected,
        slow.points[0].tpot.expected
    );
    assert!(NO_BAND.contains("standard errors"));
}
