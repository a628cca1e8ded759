//! A serving engine's steps against the roofline (issue 43): the step table of the project's
//! own fixtures (one per dialect) against Llama-3 8B on an H100, each bound checked against a
//! hand count from the model's published shapes (Meta's config.json: d 4096, 32 layers, 32
//! query and 8 KV heads of 128, MLP 14336, vocabulary 128256) and the H100's 989 TFLOP/s and
//! 3.35 TB/s.

use roofline::profile::import;
use roofline::profile::steps::StepPhase;
use roofline_lab::view::measured_steps::{step_table, thousands, StepTableBuilder, Window};

const SGLANG: &[u8] =
    include_bytes!("../../crates/roofline/tests/fixtures/profiles/sglang-steps.json");
const VLLM: &[u8] =
    include_bytes!("../../crates/roofline/tests/fixtures/profiles/vllm-steps.json.gz");
const ATOM: &[u8] = include_bytes!("../../crates/roofline/tests/fixtures/profiles/atom-steps.json");

fn scenario(q: &str) -> roofline::scenario::Scenario {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    d.scenario
}

const LLAMA_H100: &str = "chip=h100&op=llm:preset=llama3-8b";

/// Weights a decode step reads: per layer Q and O 4096², K and V 4096·1024, the MLP 3·4096·
/// 14336 (218,103,808 in all, ×32 layers), and the LM head 4096·128256: 7,504,658,432 bf16
/// parameters, 15,009,316,864 bytes.
const WEIGHT_BYTES: f64 = 2.0 * (32.0 * 218_103_808.0 + 525_336_576.0);
/// KV bytes per key: K and V of 8 heads of 128 in bf16 over 32 layers.
const KV_PER_KEY: f64 = 2.0 * 8.0 * 128.0 * 2.0 * 32.0;

fn close(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() < tol
}

#[test]
fn decode_and_prefill_steps_bound_by_hand() {
    let p = import(SGLANG).unwrap();
    let t = step_table(&scenario(LLAMA_H100), &p, None).unwrap();
    assert_eq!(t.rows.len(), 6);
    // Step 1: 2 sequences decoding over 1025 + 2049 = 3074 keys, all memory-bound:
    // (15,009,316,864 + 3074·131,072) B / 3.35e12 B/s = 4.601 ms (activations and norms add
    // under 0.1 %).
    let decode = (WEIGHT_BYTES + 3074.0 * KV_PER_KEY) / 3.35e12;
    let b = t.rows[1].bound.as_ref().unwrap();
    assert!(close(b.t_lower, decode, 2e-3), "{} vs {decode}", b.t_lower);
    assert_eq!(b.binds, "memory");
    // measured 6.0 ms: the ratio 6.0 / 4.601 = 1.30.
    assert!(close(t.rows[1].ratio().unwrap(), 6.0e-3 / decode, 2e-3));
    // Step 0: prompts of 1024 and 2048. Compute-bound parts: 2·6,979,321,856·3072 FLOPs in the
    // layers' weights and attention's 4·128·32·32 FLOPs per causal pair, pairs
    // 5,242,880 − (5,242,880 − 3072)/2 = 2,622,976: 4.4256e13 FLOPs / 9.89e14 = 44.748 ms.
    // Memory-bound parts: 64 norms and the embedding gather, each reading and writing 3072
    // rows of 4096 bf16 (50,331,648 B), and the LM head's weights read for the 2 sequences'
    // logits (1,050,673,152 B): 4.3222e9 B / 3.35e12 = 1.290 ms. T_lower = 46.04 ms.
    let compute =
        (2.0 * 32.0 * 218_103_808.0 * 3072.0 + 4.0 * 128.0 * 32.0 * 32.0 * 2_622_976.0) / 9.89e14;
    let memory = (65.0 * 2.0 * 3072.0 * 4096.0 * 2.0 + 2.0 * 525_336_576.0) / 3.35e12;
    let prefill = t.rows[0].bound.as_ref().unwrap();
    assert!(
        close(prefill.split[0], compute, 1e-6),
        "{:?}",
        prefill.split
    );
    assert!(
        close(prefill.t_lower, compute + memory, 1e-3),
        "{}",
        prefill.t_lower
    );
    assert_eq!(prefill.binds, "compute");
    // Every SGLang name was detailed: each step has a bound and an expectation of the
    // published set (H100 is Hopper).
    for r in &t.rows {
        assert!(r.bound.is_ok(), "{:?}", r.bound);
        let e = r.expected.as_ref().unwrap();
        assert!(e.source.contains("published set"), "{}", e.source);
        assert!(e.t > r.bound.as_ref().unwrap().t_lower);
    }
    // Batches 2, 2, 2, 3, 3, 2: the steady state is the steps whose batch reaches 0.9 × 3.
    let w: Vec<Window> = t.rows.iter().map(|r| r.window).collect();
    use Window::*;
    assert_eq!(w, [Warmup, Warmup, Warmup, Steady, Steady, Drain]);
    assert_eq!(t.fit_obs.len(), 2);
    assert_eq!((t.faster, t.faster_message()), (0, None));
    // Groups of the steady window: (mixed, 3) and (decode, 3).
    let g: Vec<(StepPhase, f64, usize)> = t
        .groups
        .iter()
        .map(|g| (g.phase, g.batch, g.steps))
        .collect();
    assert_eq!(g, [(StepPhase::Decode, 3.0, 1), (StepPhase::Mixed, 3.0, 1)]);
    assert!(
        t.caption.contains("tp 1, ep 1 from your llm operation"),
        "{}",
        t.caption
    );
}

#[test]
fn vllm_plain_names_get_no_bound_and_say_why() {
    let p = import(VLLM).unwrap();
    let t = step_table(&scenario(LLAMA_H100), &p, None).unwrap();
    // The fifth step's name is vLLM's plain one: measured, not bounded.
    let r = &t.rows[4];
    assert_eq!(r.measured, Some(6.3e-3));
    let why = r.bound.as_ref().unwrap_err();
    assert!(why.contains("detailed_trace_annotation"), "{why}");
    let cells = r.cells();
    let t_lower = cells.iter().find(|c| c.0 == "t_lower").unwrap();
    assert_eq!(t_lower.1, "");
    assert!(t_lower.2.starts_with("none: "));
    // tp from the trace's "tp" process group.
    assert!(
        t.caption.contains("tp 1 from the trace's distributedInfo"),
        "{}",
        t.caption
    );
    // The mixed step: one 512-token chunk beside 2 decode sequences: 514 tokens through the
    // weights (compute-bound at 514 > 989/3.35 = 295 FLOPs per byte).
    let m = t.rows[2].bound.as_ref().unwrap();
    assert!(m.t_lower > 2.0 * 32.0 * 218_103_808.0 * 514.0 / 9.89e14);
}

#[test]
fn atom_whole_step_sums_and_the_own_engine() {
    let p = import(ATOM).unwrap();
    let t = step_table(&scenario(LLAMA_H100), &p, None).unwrap();
    // ATOM's decode step: 2 sequences (a graph padded to 4) over 3074 keys, as SGLang's.
    let b = t.rows[1].bound.as_ref().unwrap();
    let decode = (WEIGHT_BYTES + 3074.0 * KV_PER_KEY) / 3.35e12;
    assert!(close(b.t_lower, decode, 2e-3));
    assert_eq!(t.rows[1].padded, Some(4.0));
    // The fixture's times are an MI300X's (the trace names it): on chip 1, an H100, three steps
    // beat their bound (the decode step's 4.1 ms < 4.601 ms, the mixed step's 7.9 ms and the
    // verify step's 4.2 ms too), and the table says so.
    let faster: Vec<usize> = t
        .rows
        .iter()
        .filter(|r| r.measured.unwrap() < r.bound.as_ref().unwrap().t_lower)
        .map(|r| r.index)
        .collect();
    assert_eq!(faster, [1, 2, 3]);
    assert_eq!(t.faster, 3);
    assert!(t.faster_message().unwrap().contains("3 steps ran faster"));
    // An own engine replaces the published expectation: 1.2 × compute + 1.3 × memory + 0.5 ms.
    let own = roofline::profile::OwnEngine::parse("own:1.2:1.3:1:0.5ms").unwrap();
    let t = step_table(&scenario(LLAMA_H100), &p, Some(&own)).unwrap();
    let r = &t.rows[1];
    let b = r.bound.as_ref().unwrap();
    let e = r.expected.as_ref().unwrap();
    assert_eq!(e.basis, "own");
    assert!(close(
        e.t,
        1.2 * b.split[0] + 1.3 * b.split[1] + b.split[2] + 5e-4,
        1e-12
    ));
    // The link's engine=own carries it too.
    let s = scenario("chip=h100&op=llm:preset=llama3-8b,engine=own:1.2:1.3:1:5e-4");
    let t2 = step_table(&s, &p, None).unwrap();
    assert_eq!(t2.rows[1].expected.as_ref().unwrap().t, e.t);
}

#[test]
fn no_llm_operation_no_table() {
    let p = import(SGLANG).unwrap();
    let why = step_table(&scenario("chip=h100&op=matmul"), &p, None).unwrap_err();
    assert!(why.contains("add an llm operation"), "{why}");
}

/// Each timed step is a marker on the roofline plot: at its intensity (FLOPs over HBM bytes of
/// the mixed step) and its achieved FLOP/s (FLOPs over the measured time), never above the
/// roof (the fixture's steps are all slower than their bounds).
#[test]
fn steps_are_markers_on_the_roofline() {
    use roofline_lab::view;
    let s = scenario(LLAMA_H100);
    let p = import(SGLANG).unwrap();
    let (roof, caption) = view::measured_roofline(&s).unwrap();
    let mut t = view::measured_table(roof, caption, &p);
    t.steps = Some(view::step_table(&s, &p, None).map(std::sync::Arc::new));
    let mut chart = roofline_lab::charts::RooflineChart::default();
    view::add_step_marks(&mut chart, &t, 300);
    assert_eq!(chart.measured.len(), 6);
    // Step 1, the decode step of 2 sequences: about 2 FLOPs per weight per sequence over 2
    // bytes per weight, intensity ≈ 2 (the KV read lowers it a little).
    let m = &chart.measured[1];
    assert!(m.x > 1.5 && m.x < 2.1, "{}", m.x);
    assert_eq!(m.predicted_y, 3.35e12 * m.x);
    assert!(m.label.starts_with("step #1 decode B=2"), "{}", m.label);
    assert!(chart.measured.iter().all(|m| m.y <= m.predicted_y));
}

/// "My engine" under load: the load model's states read through the own engine's terms. With
/// factors of 1 and no time per step it is the bound itself; with 1.5 everywhere every time of
/// a closed loop without a queue is 1.5 × the bound's; a time per step adds that much per step
/// each figure spans.
#[test]
fn my_engine_times_the_load_model() {
    use roofline::serving::{figures, BoundTiming, LoadModel};
    use roofline_lab::view::measured_steps::OwnTiming;
    let s = scenario("chip=h100&op=llm:preset=llama3-8b,load=concurrency,c=8");
    let (op, chip) = (&s.ops[0], &s.chips[0]);
    let opts = roofline::Options::default();
    let m = LoadModel::new(op, chip, &opts).unwrap();
    let bound = figures(&m, &BoundTiming).unwrap().at.unwrap();
    let own = |t: &str| {
        let e = roofline::profile::OwnEngine::parse(t).unwrap();
        figures(&m, &OwnTiming(e)).unwrap().at.unwrap()
    };
    let same = own("own:1:1:1:0");
    assert!(close(same.tpot, bound.tpot, 1e-12) && close(same.ttft, bound.ttft, 1e-12));
    let slow = own("own:1.5:1.5:1.5:0");
    assert_eq!(slow.queued, 0.0);
    assert!(
        close(slow.tpot, 1.5 * bound.tpot, 1e-12),
        "{} {}",
        slow.tpot,
        bound.tpot
    );
    assert!(close(slow.ttft, 1.5 * bound.ttft, 1e-12));
    // 1 ms per step: TPOT spans one step of the pattern's mix per output token.
    let stepped = own("own:1:1:1:1ms");
    let steps = stepped.state.tpot.steps;
    assert!(close(stepped.tpot, bound.tpot + 1e-3 * steps, 1e-12));
}

/// The page times a long trace's steps a slice per task: the table built a step at a time is
/// the table built at once, for each dialect's fixture, and the builder counts what it timed.
#[test]
fn a_table_built_a_step_at_a_time_is_the_table_built_at_once() {
    let s = scenario(LLAMA_H100);
    for bytes in [SGLANG, VLLM, ATOM] {
        let p = import(bytes).unwrap();
        let whole = step_table(&s, &p, None).unwrap();
        let n = p.steps.len();
        let mut b = StepTableBuilder::new(&s, &p, None).unwrap();
        assert_eq!(b.progress(), (0, n));
        for k in 1..n {
            assert!(!b.advance(&p, 1));
            assert_eq!(b.progress(), (k, n));
        }
        assert!(b.advance(&p, 1));
        assert_eq!(b.finish(), whole);
    }
}

#[test]
fn step_counts_have_their_thousands_separated() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(12_000), "12,000");
    assert_eq!(thousands(1_234_567), "1,234,567");
}
