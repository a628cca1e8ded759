//! Serving under load (`roofline::serving::LoadModel`, issue 40): the engine's step pattern,
//! caps, closed and open loops, saturation and goodput, each against a hand calculation that
//! times the steps it names with the step function and composes them as `docs/serving.md`
//! writes.

use crate::common;

use common::{close, op_with};
use roofline::serving::*;
use roofline::*;

fn llama8b(kv: &[(&str, &str)]) -> Op {
    let mut base = vec![
        ("preset", "llama3-8b"),
        ("prompt", "1024"),
        ("output", "256"),
    ];
    base.extend_from_slice(kv);
    op_with("llm", &base)
}

fn t(op: &Op, chip: &Chip, mix: StepMix) -> f64 {
    step_time(op, chip, &Options::default(), &mix).unwrap().t
}

/// Whole prompts apart (TensorRT-LLM's default, no chunking), 8 clients, P 1024, G 256: each
/// prompt's step carries the other 7 requests' decode tokens, the rest are decode steps of all
/// 8 (at the mean P + G/2 = 1152 keys). Per cycle of m + g = 1 + 255 steps: 8 prompt steps and
/// 248 decode steps; a request's 255 decode-phase steps hold the other 7 prompts.
///
/// `TPOT = (7·t_c + 248·t_d)/255`, the step in progress `E[t²]/(2E[t])` over 8 `t_c` and 248
/// `t_d`, `TTFT = that + t_c`, `X = 8 / (TTFT + 255·TPOT)`.
#[test]
fn prompts_apart_by_hand() {
    let op = llama8b(&[("engine", "trtllm"), ("load", "concurrency"), ("c", "8")]);
    let h100 = preset("h100").unwrap();
    let tc = t(
        &op,
        &h100,
        StepMix {
            prefill: PhaseLoad::uniform(1.0, 1024.0, 1024.0),
            decode: PhaseLoad::decode(7.0, 1152.0),
        },
    );
    let td = t(&op, &h100, StepMix::decode(PhaseLoad::decode(8.0, 1152.0)));
    let tpot = (7.0 * tc + 248.0 * td) / 255.0;
    let mean = (8.0 * tc + 248.0 * td) / 256.0;
    let mean2 = (8.0 * tc * tc + 248.0 * td * td) / 256.0;
    let ttft = mean2 / (2.0 * mean) + tc;
    let x = 8.0 / (ttft + 255.0 * tpot);
    let f = load_figures(&op, &h100, &Options::default())
        .unwrap()
        .unwrap();
    let at = f.at.unwrap();
    assert_eq!((at.running, at.queued), (8.0, 0.0));
    assert_eq!(at.state.regime, Regime::Apart);
    close(at.tpot, tpot, 1e-12, "tpot");
    close(at.ttft, ttft, 1e-12, "ttft");
    close(at.requests_per_s, x, 1e-12, "X");
    close(f.tokens_per_s.unwrap(), 256.0 * x, 1e-12, "tokens/s = X·G");
    close(f.tokens_per_s_seq.unwrap(), 1.0 / tpot, 1e-12, "1/tpot");
    // Little's law over the whole loop.
    close(
        8.0,
        x * (at.ttft + 255.0 * at.tpot),
        1e-12,
        "c = X·(TTFT + (G−1)·TPOT)",
    );
}

/// SGLang's split steps, same load on an H100 (80e9 bytes, its 60–160 GiB tier: 8192-token
/// prefill budget, so one prefill step per prompt): `N_d = 8·255/256` decode, `a = N_d/255`
/// prompts arrive per decode step, each prefilled alone in a step of its own.
/// `TPOT = t_d + a·t_p`; the step in progress over decode steps (1) and prefill steps (`a`).
#[test]
fn split_steps_by_hand() {
    let op = llama8b(&[("engine", "sglang"), ("load", "concurrency"), ("c", "8")]);
    let h100 = preset("h100").unwrap();
    let nd = 8.0 * 255.0 / 256.0;
    let a = nd / 255.0;
    let tp = t(
        &op,
        &h100,
        StepMix::prefill(PhaseLoad::uniform(1.0, 1024.0, 1024.0)),
    );
    let td = t(&op, &h100, StepMix::decode(PhaseLoad::decode(nd, 1152.0)));
    let tpot = td + a * tp;
    let residual = (a * tp * tp + td * td) / (2.0 * (a * tp + td));
    let at = load_figures(&op, &h100, &Options::default())
        .unwrap()
        .unwrap()
        .at
        .unwrap();
    close(at.tpot, tpot, 1e-12, "tpot");
    close(at.ttft, residual + tp, 1e-12, "ttft");
    let d = engine_defaults(Engine::Sglang, &h100, 1.0);
    assert_eq!(
        (d.pattern, d.chunk),
        (Pattern::Split, Chunk::Tokens(8192.0))
    );
}

/// The KV pool by hand, Llama-3 8B (8,030,261,248 parameters, 16,060,522,496 bytes in bf16) on
/// an H100 (80e9 bytes), 131,072 bytes of KV per token, P 1024 and G 256.
///
/// * vLLM: pool 0.9·80e9 − weights = 55,939,477,504; a sequence at P + G/2 = 1152 tokens holds
///   150,994,944: 370 fit (371 would need 56,019,124,224);
/// * with half of each prompt from a common prefix (512 tokens, 67,108,864 bytes held once) a
///   sequence holds 83,886,080 more: (55,939,477,504 − 67,108,864)/83,886,080 = 666.05 → 666;
/// * TensorRT-LLM reserves P + G = 1280 tokens (167,772,160) out of 0.9·(80e9 − weights) =
///   57,545,529,753.6: 342.998 → 342.
///
/// With 512 clients, 370 run and 142 wait `(c − N)/X`, and `c = X·(TTFT + (G − 1)·TPOT)`.
#[test]
fn kv_pool_caps_the_running_batch() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let model = |kv: &[(&str, &str)]| {
        let op = llama8b(kv);
        LoadModel::new(&op, &h100, &opts).unwrap().resolved
    };
    let v = model(&[("engine", "vllm")]);
    assert_eq!(v.pool_bytes, 55_939_477_504.0);
    assert_eq!(v.seq_bytes, 150_994_944.0);
    assert_eq!((v.pool_seqs, v.cap, v.cap_by), (370.0, 370.0, CapBy::Pool));
    let p = model(&[("engine", "vllm"), ("prefix_hit", "0.5")]);
    assert_eq!((p.prompt_hit, p.prompt_new), (512.0, 512.0));
    assert_eq!((p.prefix_bytes, p.seq_bytes), (67_108_864.0, 83_886_080.0));
    assert_eq!(p.pool_seqs, 666.0);
    let r = model(&[("engine", "trtllm")]);
    assert_eq!((r.seq_bytes, r.pool_seqs), (167_772_160.0, 342.0));
    // A closed loop past the cap queues.
    let op = llama8b(&[("engine", "vllm"), ("load", "concurrency"), ("c", "512")]);
    let f = load_figures(&op, &h100, &opts).unwrap().unwrap();
    let at = f.at.unwrap();
    assert_eq!((at.running, at.queued), (370.0, 142.0));
    close(at.queue_wait, 142.0 / at.requests_per_s, 1e-12, "wait");
    close(
        512.0,
        at.requests_per_s * (at.ttft + 255.0 * at.tpot),
        1e-12,
        "Little",
    );
    assert!(f
        .notes
        .iter()
        .any(|n| n.contains("the other 142 wait for a slot")));
    // At and past the cap the closed loop's throughput is the saturation rate.
    close(
        at.requests_per_s,
        f.saturation_qps.unwrap(),
        1e-12,
        "X at the cap",
    );
}

/// Erlang's C by hand: one server at half load waits half the time (M/M/1: ρ); two servers at
/// one erlang, `B_1 = 1/2`, `B_2 = 0.5/2.5 = 0.2`, `C = 2·0.2/(2 − 0.8) = 1/3`; three at two,
/// `B = 2/3, 0.4, 0.8/3.8`, `C = 4/9`.
#[test]
fn erlang_c_by_hand() {
    close(erlang_c(1.0, 0.5), 0.5, 1e-15, "C(1, 0.5)");
    close(erlang_c(2.0, 1.0), 1.0 / 3.0, 1e-15, "C(2, 1)");
    close(erlang_c(3.0, 2.0), 4.0 / 9.0, 1e-14, "C(3, 2)");
    assert_eq!(erlang_c(4.0, 0.0), 0.0);
    assert_eq!(erlang_c(4.0, 4.0), 1.0);
    // Far below its servers a large pool never waits (the recursion stops once B underflows).
    assert_eq!(erlang_c(1e6, 10.0), 0.0);
}

/// An open loop: its rate is met by the mean number inside (`λ = N̄/lifetime(N̄)`); the time to
/// first token rises toward saturation and has no figure past it, with the rate it saturates
/// at named; a lone request's figures at a light load.
#[test]
fn open_loop_rises_to_saturation() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let op = llama8b(&[("engine", "vllm"), ("load", "rate")]);
    let m = LoadModel::new(&op, &h100, &opts).unwrap();
    let sat = m.saturation(&BoundTiming).unwrap().unwrap();
    let lone = m.closed(1.0, &BoundTiming).unwrap().unwrap();
    let mut last = 0.0;
    for frac in [1e-6, 0.1, 0.5, 0.9, 0.99] {
        let o = m.open(frac * sat, &BoundTiming).unwrap().unwrap();
        close(o.requests_per_s, frac * sat, 1e-6, "λ met");
        assert!(o.ttft >= last, "TTFT rises: {} after {last}", o.ttft);
        last = o.ttft;
        if frac == 1e-6 {
            close(o.ttft, lone.ttft, 1e-3, "a lone request");
            close(o.tpot, lone.tpot, 1e-3, "a lone request");
        }
    }
    assert!(m.open(sat, &BoundTiming).unwrap().is_none());
    let mut past = op.clone();
    past.set("qps", "1e6").unwrap();
    let f = load_figures(&past, &h100, &opts).unwrap().unwrap();
    assert!(f.at.is_none() && f.tokens_per_s.is_none());
    assert!(
        f.why_none.as_deref().unwrap().starts_with("saturates at "),
        "{:?}",
        f.why_none
    );
}

/// Goodput: the largest rate whose mean TTFT and TPOT meet both bounds. Generous bounds come
/// close to saturation; a TPOT bound below a lone request's decode step leaves none; without
/// both bounds the row says which is missing.
#[test]
fn goodput_at_the_bounds() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let figs = |kv: &[(&str, &str)]| {
        let mut base = vec![("engine", "vllm"), ("load", "rate"), ("qps", "1")];
        base.extend_from_slice(kv);
        load_figures(&llama8b(&base), &h100, &opts)
            .unwrap()
            .unwrap()
    };
    let g = figs(&[("ttft_max", "1000"), ("tpot_max", "100")]);
    let (gp, sat) = (g.goodput_qps.unwrap(), g.saturation_qps.unwrap());
    assert!(gp > 0.9 * sat && gp < sat, "{gp} vs {sat}");
    let m = LoadModel::new(&llama8b(&[("engine", "vllm")]), &h100, &opts).unwrap();
    let at = m.goodput(1.0, 0.1, &BoundTiming).unwrap().unwrap();
    assert!(at.at.ttft <= 1.0 && at.at.tpot <= 0.1);
    let none = figs(&[("ttft_max", "1000"), ("tpot_max", "0.001")]);
    assert_eq!(none.goodput_qps, Some(0.0));
    assert!(none
        .goodput_none
        .unwrap()
        .starts_with("even a lone request"));
    let one = figs(&[("ttft_max", "1000")]);
    assert_eq!(one.goodput_qps, None);
    assert_eq!(
        one.goodput_none.as_deref(),
        Some("goodput needs both bounds: set tpot_max")
    );
}

/// The engines' defaults on their chips: vLLM's large defaults on ≥ 70 GiB GPUs other than the
/// A100, SGLang's budget by memory tier, TensorRT-LLM's whole prompts and reservations.
#[test]
fn engine_defaults_by_chip() {
    let d = |e: Engine, chip: &str| engine_defaults(e, &preset(chip).unwrap(), 1.0);
    let v = d(Engine::Vllm, "h100");
    assert_eq!((v.chunk, v.max_seqs), (Chunk::Tokens(8192.0), 1024.0));
    let a = d(Engine::Vllm, "a100");
    assert_eq!((a.chunk, a.max_seqs), (Chunk::Tokens(2048.0), 256.0));
    assert_eq!(d(Engine::Sglang, "h200").chunk, Chunk::Tokens(8192.0));
    assert_eq!(d(Engine::Sglang, "b200").chunk, Chunk::Tokens(16384.0));
    let r = d(Engine::Trtllm, "h200");
    assert_eq!(
        (r.chunk, r.max_seqs, r.pages),
        (Chunk::Whole, 2048.0, Pages::Reserve)
    );
    assert_eq!(
        d(Engine::Generic, "h100"),
        EngineDefaults {
            engine: Engine::Generic,
            ..v
        }
    );
    // An explicit budget overrides the engine's, and caps the running batch of mixed steps.
    let h100 = preset("h100").unwrap();
    let op = llama8b(&[("chunk", "64"), ("engine", "vllm")]);
    let opts = Options::default();
    let m = LoadModel::new(&op, &h100, &opts).unwrap();
    assert_eq!(
        (m.resolved.budget, m.resolved.cap_by),
        (Some(64.0), CapBy::Budget)
    );
}

/// A prefix-cache hit under the static batch shortens its prefill: the hit tokens' projections
/// and MLP are skipped but their keys are read, so the prefill of 512 new tokens over 1024 keys
/// takes longer than 512 new tokens alone and less than 1024; without a hit the figures are
/// the golden ones, untouched.
#[test]
fn prefix_hit_shortens_the_batch_prefill() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let ttft = |kv: &[(&str, &str)]| {
        serving::serving(&llama8b(kv), &h100, &opts)
            .unwrap()
            .unwrap()
            .ttft
    };
    let full = ttft(&[("b", "8")]);
    let half = ttft(&[("b", "8"), ("prefix_hit", "0.5")]);
    let short = serving::serving(
        &op_with("llm", &[("prompt", "512"), ("output", "256"), ("b", "8")]),
        &h100,
        &opts,
    )
    .unwrap()
    .unwrap()
    .ttft;
    assert!(half < full && half > short, "{short} < {half} < {full}");
    // At 1 the last prompt token is still prefilled: one new token over 1024 keys.
    let all = ttft(&[("b", "8"), ("prefix_hit", "1")]);
    close(
        all,
        t(
            &llama8b(&[("b", "8")]),
            &h100,
            StepMix::prefill(PhaseLoad::uniform(8.0, 1.0, 1024.0)),
        ),
        1e-12,
        "one token left",
    );
}

/// Speculative decoding under load is refused with a message naming the field, not ignored.
#[test]
fn draft_under_load_is_refused() {
    let op = llama8b(&[("load", "concurrency"), ("c", "8"), ("draft", "llama3-8b")]);
    let e = load_figures(&op, &preset("h100").unwrap(), &Options::default()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("draft=llama3-8b: speculative decoding under load"),
        "{e}"
    );
    // The static batch keeps its speculative figures.
    let mut b = op.clone();
    b.set("load", "batch").unwrap();
    assert!(
        load_figures(&b, &preset("h100").unwrap(), &Options::default())
            .unwrap()
            .is_none()
    );
}

/// Short outputs overlap prompts. 64 clients, P 1024, G 8: a request lives `m + g = 1 + 7`
/// steps, so `r = 64/8 = 8` prompts arrive per step with `r·g = 56` decode tokens.
///
/// * Whole prompts (TensorRT-LLM): every step holds 8 prompts beside 56 decodes; `TPOT = t`,
///   `TTFT = t/2 + t` (the step in progress, then its own).
/// * vLLM's 8192-token budget binds (8·1024 + 56 > 8192): every step holds K = 8192 tokens,
///   `d = K·g/(P + g) = 8192·7/1031` decode, a request lives `L = N·(P + g)/K = 64·1031/8192`
///   steps, `L − g` prefilling, its chunks `q = (K − d)/(N − d)` at `P/2 + q/2` keys on
///   average; `TPOT = t`, `TTFT = t/2 + (L − g)·t`.
#[test]
fn overlapping_and_budget_bound_prompts_by_hand() {
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let at = |engine: &str| {
        let op = op_with(
            "llm",
            &[
                ("prompt", "1024"),
                ("output", "8"),
                ("engine", engine),
                ("load", "concurrency"),
                ("c", "64"),
            ],
        );
        let f = load_figures(&op, &h100, &opts).unwrap().unwrap();
        (op, f.at.unwrap())
    };
    let keys = 1024.0 + 4.0;
    let (op, o) = at("trtllm");
    let step = t(
        &op,
        &h100,
        StepMix {
            prefill: PhaseLoad::uniform(8.0, 1024.0, 1024.0),
            decode: PhaseLoad::decode(56.0, keys),
        },
    );
    assert_eq!(o.state.regime, Regime::Overlap);
    close(o.tpot, step, 1e-12, "tpot");
    close(o.ttft, 1.5 * step, 1e-12, "ttft");
    let (op, o) = at("vllm");
    let k = 8192.0;
    let d = k * 7.0 / 1031.0;
    let life = 64.0 * 1031.0 / k;
    let q = (k - d) / (64.0 - d);
    let step = t(
        &op,
        &h100,
        StepMix {
            prefill: PhaseLoad::uniform(64.0 - d, q, 512.0 + q / 2.0),
            decode: PhaseLoad::decode(d, keys),
        },
    );
    assert_eq!(o.state.regime, Regime::BudgetBound);
    close(o.tpot, step, 1e-12, "tpot");
    close(o.ttft, 0.5 * step + (life - 7.0) * step, 1e-12, "ttft");
}

/// A prompt of many chunks is timed at 32 representative steps (groups of consecutive chunks
/// at their middle one): 20,000 tokens through a 64-token budget beside one decode are 317
/// chunks of 63 (the budget less the decode) and one of 20,000 − 317·63 = 29.
/// The grouped time stays within 0.1 % of every chunk timed one by one.
#[test]
fn many_chunks_are_timed_in_groups() {
    let h100 = preset("h100").unwrap();
    let op = op_with(
        "llm",
        &[
            ("prompt", "20000"),
            ("output", "4096"),
            ("chunk", "64"),
            ("engine", "vllm"),
            ("load", "concurrency"),
            ("c", "2"),
        ],
    );
    let at = load_figures(&op, &h100, &Options::default())
        .unwrap()
        .unwrap()
        .at
        .unwrap();
    let m = (20000.0f64 / 63.0).ceil();
    assert_eq!((at.state.chunks, at.state.regime), (m, Regime::Apart));
    assert!(at.state.steps.len() <= 33, "{}", at.state.steps.len());
    let mut exact = 0.0;
    let mut keys = 0.0;
    for j in 0..m as usize {
        let q = if j + 1 < m as usize {
            63.0
        } else {
            20000.0 - 63.0 * (m - 1.0)
        };
        keys += q;
        exact += t(
            &op,
            &h100,
            StepMix {
                prefill: PhaseLoad::uniform(1.0, q, keys),
                decode: PhaseLoad::decode(1.0, 20000.0 + 2048.0),
            },
        );
    }
    close(at.ttft - at.state.residual, exact, 1e-3, "grouped chunks");
}
