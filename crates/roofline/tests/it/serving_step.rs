//! The mixed step (`roofline::serving::step_time`, issue 40): a pure decode or prefill step is
//! the op's own step to the bit, the causal correction adds up per sequence, and a mixed
//! step's FLOPs equal a hand count of every part.

use crate::common;

use common::{close, op_with};
use roofline::serving::{step_time, PhaseLoad, StepMix};
use roofline::*;

fn t_lower_of(op: &Op, chip: &Chip) -> f64 {
    analyze(op, chip, &Options::default()).unwrap().t_lower
}

/// A pure decode step of `B` sequences at context `S`, and a pure prefill of `B` prompts of
/// `S` tokens, equal the op's `T_lower` in that phase bit for bit: every preset of the zoo,
/// with and without tensor and expert parallelism, over a grid of batches and contexts.
#[test]
fn pure_steps_are_the_ops_own() {
    let opts = Options::default();
    let mut checked = 0;
    for p in llm_presets() {
        for chip_id in ["h100", "tpu-v5e"] {
            let chip = preset(chip_id).unwrap();
            let experts = p.arch.moe.map_or(0.0, |m| m.experts);
            let mut layouts = vec![("1", "1")];
            if p.arch.heads % 8.0 == 0.0 {
                layouts.push(("8", "1"));
            }
            if experts > 0.0 && experts % 4.0 == 0.0 {
                layouts.push(("2", "4"));
            }
            for (tp, ep) in &layouts {
                if p.arch.heads % tp.parse::<f64>().unwrap() != 0.0 {
                    continue;
                }
                for b in [1.0, 7.0, 64.0, 512.0] {
                    for s in [1.0, 100.0, 2048.0, 32768.0] {
                        for phase in ["decode", "prefill"] {
                            let op = op_with(
                                "llm",
                                &[
                                    ("preset", p.id),
                                    ("tp", tp),
                                    ("ep", ep),
                                    ("link", "nvlink"),
                                    ("phase", phase),
                                    ("b", &b.to_string()),
                                    ("ctx", &s.to_string()),
                                ],
                            );
                            let Ok(want) = analyze(&op, &chip, &opts).map(|a| a.t_lower) else {
                                continue;
                            };
                            let mix = if phase == "decode" {
                                StepMix::decode(PhaseLoad::decode(b, s))
                            } else {
                                StepMix::prefill(PhaseLoad::prefill(b, s))
                            };
                            let got = step_time(&op, &chip, &opts, &mix).unwrap().t;
                            assert_eq!(
                                got.to_bits(),
                                want.to_bits(),
                                "{} {chip_id} tp {tp} ep {ep} {phase} B {b} S {s}: {got} vs {want}",
                                p.id
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// The causal correction sums per sequence: prompts of 100 and 300 tokens prefilled in one
/// step have `100·101/2 + 300·301/2 = 5050 + 45150 = 50200` score pairs per head and layer;
/// from the aggregates, `sqsk − (sqsq − sq)/2 = 100000 − (100000 − 400)/2 = 50200`. FLOPs go
/// by tokens and pairs, so the step's FLOPs are the two prompts' prefilled apart, summed.
#[test]
fn causal_correction_sums_per_sequence() {
    let two = PhaseLoad::prefill(1.0, 100.0).plus(PhaseLoad::prefill(1.0, 300.0));
    assert_eq!(
        (two.seqs, two.sq, two.sk, two.sqsq, two.sqsk),
        (2.0, 400.0, 400.0, 100000.0, 100000.0)
    );
    assert_eq!(two.pairs(), 50200.0);
    let op = Op::default_for("llm").unwrap();
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let f = |m: StepMix| step_time(&op, &h100, &opts, &m).unwrap().flops;
    let both = f(StepMix::prefill(two));
    let apart = f(StepMix::prefill(PhaseLoad::prefill(1.0, 100.0)))
        + f(StepMix::prefill(PhaseLoad::prefill(1.0, 300.0)));
    close(both, apart, 1e-12, "two prompts in one step");
}

/// Every part of a mixed step counted by hand for a small dense model (2 layers, D 256, F 512
/// gated, 4 query heads and 2 KV heads of 64, vocabulary 1000): one chunk of q = 96 new tokens
/// over k = 160 keys (64 cached) beside 5 decodes at 300 keys.
///
/// * tokens T = 96 + 5 = 101, sequences 6;
/// * per layer, weights: QKV 256·(4 + 2·2)·64 = 131,072, output 256·256 = 65,536, MLP 3·256·512
///   = 393,216: 589,824 parameters, 2·T·589,824 = 119,144,448 FLOPs per layer;
/// * attention pairs: the chunk `96·160 − (96² − 96)/2 = 15360 − 4560 = 10800`, the decodes
///   5·300 = 1500: 12,300 per head; scores and values 2·2·H·h·pairs = 4·4·64·12300 =
///   12,595,200 FLOPs per layer;
/// * norms: 4·T·D twice per layer = 8·101·256 = 206,848;
/// * per layer 119,144,448 + 12,595,200 + 206,848 = 131,946,496; two layers 263,892,992;
/// * LM head on the 6 sequences: 2·6·256·1000 = 3,072,000; final norm 4·6·256 = 6,144.
///
/// Total 266,971,136 FLOPs.
#[test]
fn mixed_step_flops_by_hand() {
    let op = op_with(
        "llm",
        &[
            ("layers", "2"),
            ("dmodel", "256"),
            ("ffn", "512"),
            ("heads", "4"),
            ("kv_heads", "2"),
            ("head_dim", "64"),
            ("vocab", "1000"),
        ],
    );
    let mix = StepMix {
        prefill: PhaseLoad::uniform(1.0, 96.0, 160.0),
        decode: PhaseLoad::decode(5.0, 300.0),
    };
    let s = step_time(&op, &preset("h100").unwrap(), &Options::default(), &mix).unwrap();
    assert_eq!((s.seqs, s.tokens), (6.0, 101.0));
    assert_eq!(s.flops, 266_971_136.0);
    // The parts add up to the step's time.
    close(s.by_bound.iter().sum::<f64>(), s.t, 1e-12, "by bound");
    assert!(s.binding_share > 0.0 && s.binding_share <= 1.0);
}

/// A mixed step costs more than its decode alone and less than its decode and its chunk run
/// apart (weights read once for both), and a larger chunk never costs less.
#[test]
fn mixing_reads_the_weights_once() {
    let op = Op::default_for("llm").unwrap();
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let t = |m: StepMix| step_time(&op, &h100, &opts, &m).unwrap().t;
    let decode = PhaseLoad::decode(63.0, 2560.0);
    let chunk = PhaseLoad::uniform(1.0, 512.0, 1536.0);
    let both = t(StepMix {
        prefill: chunk,
        decode,
    });
    let (d, c) = (t(StepMix::decode(decode)), t(StepMix::prefill(chunk)));
    assert!(both > d && both < d + c, "{both} {d} {c}");
    let bigger = t(StepMix {
        prefill: PhaseLoad::uniform(1.0, 1024.0, 2048.0),
        decode,
    });
    assert!(bigger > both);
    assert!(t_lower_of(&op, &h100) > 0.0);
}

/// Aggregates no real step has are refused with the phase and field named.
#[test]
fn impossible_steps_are_refused() {
    let op = Op::default_for("llm").unwrap();
    let h100 = preset("h100").unwrap();
    let opts = Options::default();
    let err = |m: StepMix| step_time(&op, &h100, &opts, &m).unwrap_err().to_string();
    let mut p = PhaseLoad::decode(4.0, 100.0);
    p.sk = 2.0;
    assert!(
        err(StepMix::decode(p)).starts_with("decode.sk=2"),
        "{}",
        err(StepMix::decode(p))
    );
    p = PhaseLoad::decode(4.0, 100.0);
    p.sq = f64::NAN;
    assert!(err(StepMix::decode(p)).contains("decode.sq"));
    assert!(err(StepMix::default()).contains("at least one sequence"));
    let mut q = PhaseLoad::prefill(2.0, 100.0);
    q.sqsq = 1.0;
    assert!(err(StepMix::prefill(q)).starts_with("prefill.sqsq"));
    let dot = Op::default_for("dot").unwrap();
    assert!(step_time(
        &dot,
        &h100,
        &opts,
        &StepMix::decode(PhaseLoad::decode(1.0, 1.0))
    )
    .is_err());
}
