//! The `train` operation kind: links (`op=train:...`) decoded, analysed on the scenario's chip
//! through `roofline::analyze`, with the book's worked numbers (parts 5, 6 and 12) and
//! field-level errors for bad input.

use roofline::arch::arch_preset;
use roofline::train::{analyze_train, TrainBound, TrainConfig};
use roofline::{
    analyze, preset, url, Analysis, Bound, Error, Op, OpKind, Options, Resource, Scenario, Train,
};

fn close(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got - want).abs() <= rel * want.abs(),
        "{what}: got {got}, want {want} (±{rel})"
    );
}

/// The scenario of a link, with no notices.
fn link(q: &str) -> Scenario {
    let d = url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    d.scenario
}

fn first(s: &Scenario) -> Analysis {
    analyze(&s.ops[0], &s.chips[0], &s.options).unwrap()
}

/// LLaMA-3 70B's parameters (applied-training.md, "Counting parameters and FLOPs": "56.3e9 +
/// 2.1e9 + 12e9 = 70.4e9"; unrounded 70,553,706,496 with the norms, as tests/train.rs works
/// out): the default `train` op is that model.
#[test]
fn the_default_is_llama3_70b_on_8192_chips() {
    let op = Op::default_for("train").unwrap();
    assert_eq!(op.get("preset").as_deref(), Some("llama3-70b"));
    assert_eq!(op.get("batch").as_deref(), Some("4194304"));
    assert_eq!(
        (op.get("dp"), op.get("fsdp"), op.get("tp")),
        (Some("32".into()), Some("64".into()), Some("4".into()))
    );
    let s = link("chip=tpu-v5p&op=train:dp=2,fsdp=1024");
    let a = first(&s);
    let t = a.report.train.as_ref().unwrap();
    assert_eq!(
        t.params.total(),
        70_553_706_496.0,
        "70.4e9 (70.55e9 unrounded)"
    );
    assert_eq!(t.chips, 1024.0 * 2.0 * 4.0);
    // The default mesh keeps FSDP × TP = 256 within a TPU v5e pod: it analyses on the page's
    // first chip.
    let a = first(&link("chip=tpu-v5e&op=train"));
    assert_eq!(a.report.train.unwrap().chips, 8192.0);
}

/// applied-training.md: "Let's say we wanted to train on a full TPU v5p pod with 16x20x28 =
/// 8960 chips. How long would this take to train at 40% MFU ...? ... T = 6.3e24 / (8960 *
/// 4.59e14 * 0.4) = 3.8e6 seconds. This is about 44 days!" Hand calculation with the model's
/// unrounded 70,553,706,496 parameters: 6 × 70,553,706,496 × 15e12 = 6.3498e24 FLOPs;
/// / (8960 × 4.59e14 × 0.4 = 1.645056e18 FLOPs/s) = 3.8599e6 s = 44.675 days (the book's
/// rounded 6.3e24 gives 44.33). The chip (`tpu-v5p`: 4.59e14 bf16, 96 GB, 9e10 B/s ICI per
/// link) supplies the hardware; the mesh is FSDP 2240 × TP 4 = 8960 chips (the book's
/// sharding: applied-training.md, "How to shard LLaMA 3-70B for training").
/// Issue 24, point 11: `./dev fuzz` (seed 1, case 54514) found `mfu=1e-320` accepted (above 0)
/// and the book's days = 6·N·tokens/(N·C·MFU) overflowing to "inf days". The field now takes
/// 0.0001 to 1: the subnormal is refused with the range named, and the smallest MFU gives a
/// finite figure, 4000 × the 44.675 days at 40 % = 178,700 days, by hand.
#[test]
fn an_mfu_too_small_to_mean_anything_is_refused() {
    let mut op = Op::default_for("train").unwrap();
    let e = op.set("mfu", "1e-320").unwrap_err().to_string();
    assert!(
        e.starts_with("mfu=1e-320: must be a number from 1e-4 to 1"),
        "{e}"
    );
    assert!(op.set("mfu", "0").is_err());
    let s = link("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.0001");
    let days = first(&s)
        .report
        .train
        .as_ref()
        .unwrap()
        .budget
        .unwrap()
        .days_at_mfu_6n
        .unwrap();
    close(days, 44.675 * 4000.0, 1e-4, "days at 0.01 % MFU");
    let d = url::decode("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=1e-320");
    assert_eq!(d.notices.len(), 1, "{:?}", d.notices);
}

#[test]
fn llama3_70b_on_8960_v5p_at_40_percent_is_44_days() {
    let s = link("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4");
    let a = first(&s);
    let t = a.report.train.as_ref().unwrap();
    assert_eq!(t.chips, 8960.0);
    let b = t.budget.unwrap();
    close(
        6.3e24 / (8960.0 * 4.59e14 * 0.4) / 86_400.0,
        44.33,
        1e-3,
        "about 44 days",
    );
    close(
        b.days_at_mfu_6n.unwrap(),
        6.0 * 70_553_706_496.0 * 15e12 / (8960.0 * 4.59e14 * 0.4) / 86_400.0,
        1e-12,
        "6·N·tokens/(N·C·MFU)",
    );
    close(b.days_at_mfu_6n.unwrap(), 44.675, 1e-4, "44.7 days");
    // The roofline itself: compute-bound at b = 4194304/8960 = 468.1 tokens per chip, above
    // FSDP's critical batch (the book's 2550/M_X per data shard over tp = 4: 2550/2/4 = 318.75
    // with M_X = 2 axes).
    assert_eq!(a.bound, Bound::Compute);
    assert_eq!(t.bound, TrainBound::Compute);
    assert_eq!(a.t_lower, t.t_lower);
    assert_eq!(a.t_upper, t.t_upper);
    assert_eq!(a.t_math, t.t_math);
    let c = a.critical.as_ref().unwrap();
    assert_eq!(c.dim, "B/N");
    assert_eq!(c.approx, Some(2550.0 / 2.0 / 4.0));
    assert_eq!(c.resource, Resource::Ici);
    assert!(c.value < 4_194_304.0 / 8960.0);
    // MFU at t_lower = t_math: model over hardware FLOPs (block remat recomputes the forward).
    close(t.mfu, t.flops.model / t.flops.hardware, 1e-12, "MFU");
    assert!(a.fits && t.fits);
    // The chip's price (Google Cloud, February 2025: $4.2 per v5p chip-hour) prices the run.
    close(t.cost.unwrap(), 4.2 * b.chip_hours, 1e-12, "cost");
}

/// gpus.md, quiz 5, question 2: "4096 H100 GPUs for 15T tokens ... 45% MFU ... 6 * 70e9 *
/// 15e12 = 6.3e24 ... the whole thing will take 3.5e6 seconds, or 40 days". Hand
/// calculation with the H100 preset's 9.89e14 and N = 70.55e9: 6.3498e24 / (4096 × 9.89e14 ×
/// 0.45 = 1.82292e18) = 3.4833e6 s = 40.32 days. The mesh: 8-way TP within a node × 512-way
/// FSDP (the book's "ZeRO-3 and 8-way TP").
#[test]
fn llama3_70b_on_4096_h100_at_45_percent_is_40_days() {
    let s = link("chip=h100&op=train:dp=1,fsdp=512,tp=8,mfu=0.45");
    let a = first(&s);
    let t = a.report.train.as_ref().unwrap();
    assert_eq!(t.chips, 4096.0);
    let d = t.budget.unwrap().days_at_mfu_6n.unwrap();
    close(
        d,
        6.0 * 70_553_706_496.0 * 15e12 / (4096.0 * 9.89e14 * 0.45) / 86_400.0,
        1e-12,
        "6·N·tokens/(N·C·MFU)",
    );
    close(d, 40.32, 1e-3, "40 days");
    // Tensor parallelism stays in the node: NVLink carries it.
    let tp = t
        .links
        .iter()
        .find(|l| l.axis == roofline::train::MeshAxis::Tp)
        .unwrap();
    assert!(!tp.scale_out);
}

/// The op on a chip equals `analyze_train` of its config on that chip: the op adds nothing
/// of its own to the model.
#[test]
fn the_op_is_the_training_model_on_the_chip() {
    let s = link("chip=tpu-v5e&op=train:preset=llama3-8b,batch=1M,dp=16,fsdp=16,tp=1");
    let a = first(&s);
    let roofline::OpKind::Train(op) = &s.ops[0].kind else {
        panic!("not a train op")
    };
    let direct = analyze_train(&op.config_on(&s.chips[0]).unwrap()).unwrap();
    assert_eq!(**a.report.train.as_ref().unwrap(), direct);
}

/// A derate lowers the roofline's peak: `T_math` grows by 1/derate; MFU stays against the
/// nominal peak (at a compute-bound step, MFU × derate), and the book's estimate at an
/// assumed MFU keeps the nominal peak.
#[test]
fn a_derate_slows_the_step_and_keeps_mfu_nominal() {
    let full = first(&link("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4"));
    let half = first(&link(
        "chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4&derate=0.5",
    ));
    let (tf, th) = (full.report.train.unwrap(), half.report.train.unwrap());
    close(th.t_math, 2.0 * tf.t_math, 1e-12, "T_math / derate");
    close(th.mfu, tf.mfu * 0.5, 1e-9, "MFU against the nominal peak");
    assert_eq!(
        th.budget.unwrap().days_at_mfu_6n,
        tf.budget.unwrap().days_at_mfu_6n
    );
}

/// Bad input is a field-level error, never a panic: zero, negative, NaN and unknown values
/// are refused when set, naming the field; inconsistent meshes fail the analysis naming the
/// field.
#[test]
fn bad_input_names_the_field() {
    let mut op = Op::default_for("train").unwrap();
    for (key, text) in [
        ("dp", "0"),
        ("fsdp", "-4"),
        ("tp", "NaN"),
        ("batch", "0"),
        ("batch", "inf"),
        ("preset", "gpt-9"),
        ("remat", "sometimes"),
        ("mfu", "1.5"),
        ("opt", "lion"),
        ("act", "bf17"),
    ] {
        let e = op.set(key, text).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{key}=")), "{key}={text}: {e}");
    }
    assert_eq!(
        op,
        Op::default_for("train").unwrap(),
        "refused edits change nothing"
    );
    // A link with a bad field keeps the rest and says what it ignored.
    let d = url::decode("chip=tpu-v5p&op=train:fsdp=0,tp=8");
    assert_eq!(d.scenario.ops[0].get("tp").as_deref(), Some("8"));
    assert!(
        d.notices.iter().any(|n| n.contains("fsdp=0")),
        "{:?}",
        d.notices
    );
    // Expert parallelism on a dense model, or more stages than layers: the analysis fails
    // with the field named.
    let chip = preset("tpu-v5p").unwrap();
    for (q, key) in [("ep=2", "ep="), ("pp=81", "pp=")] {
        let mut op = Op::default_for("train").unwrap();
        let (k, v) = q.split_once('=').unwrap();
        op.set(k, v).unwrap();
        let e = analyze(&op, &chip, &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{q}: {e}");
    }
    // A chip without a scale-up network: any degree above 1 is an error, not a panic.
    let mut l4 = preset("l4").unwrap();
    l4.ici = None;
    let e = analyze(&Op::default_for("train").unwrap(), &l4, &Options::default());
    assert!(e.is_err());
}

/// Editing a dimension of a preset makes a custom dense model, all of it in the link: a
/// mixture of experts loses its experts unless the link gives them too (links written before
/// the op took the experts' fields keep their meaning).
#[test]
fn an_edited_preset_is_a_custom_dense_model() {
    let s = link("chip=h100&op=train:preset=mixtral-8x7b,layers=16");
    let roofline::OpKind::Train(t) = &s.ops[0].kind else {
        panic!("not a train op")
    };
    assert_eq!(s.ops[0].get("preset").as_deref(), Some("custom"));
    assert_eq!(t.config.arch.layers, 16.0);
    assert!(t.config.arch.moe.is_none());
    let s = link("chip=h100&op=train:preset=mixtral-8x7b");
    let roofline::OpKind::Train(t) = &s.ops[0].kind else {
        panic!("not a train op")
    };
    assert_eq!(t.config.arch.moe.map(|m| m.experts), Some(8.0));
}

/// A link's fields read back: `encode(decode(link))` is canonical and decodes to the same
/// scenario.
#[test]
fn links_round_trip() {
    for q in [
        "chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4",
        "chip=h100&op=train:preset=mixtral-8x7b,batch=2M,dp=1,fsdp=64,tp=8,ep=8,remat=4,opt=sgd,tokens=none",
        "chip=tpu-v5e&op=train:preset=llama3-8b,layers=30,batch=1M,dp=16,fsdp=16,tp=1,pp=2,mb=8,sched=gpipe,zero1=yes,master=none,price=1.2",
        "chip=h100&op=train:preset=mixtral-8x7b,layers=16",
    ] {
        let s = link(q);
        let again = url::decode(&url::encode(&s));
        assert!(again.notices.is_empty(), "{q}: {:?}", again.notices);
        assert_eq!(again.scenario, s, "{q}");
    }
}

/// Text fields: every field of the op reads back what it shows; bad text is refused with the
/// field's name, leaving the op unchanged (the fields are the op's `op_fields!` list, the one
/// declaration of a training field).
#[test]
fn fields_round_trip_and_refuse() {
    let d = TrainConfig::default();
    let mut c = TrainConfig {
        arch: arch_preset("deepseek-v3").unwrap().arch,
        ..d
    };
    c.mesh.ep = 8.0;
    let op = Op::new(OpKind::Train(Train::from_config(c)));
    for f in op.fields() {
        let text = op
            .get(f.key)
            .unwrap_or_else(|| panic!("{} has no text", f.key));
        let mut d = op.clone();
        d.set(f.key, &text)
            .unwrap_or_else(|e| panic!("{}={text}: {e}", f.key));
        assert_eq!(d, op, "{} = {text}", f.key);
        for bad in ["", "-1", "NaN", "1e999", "x", "0.5"] {
            let mut d = op.clone();
            if let Err(e) = d.set(f.key, bad) {
                assert_eq!(d, op, "{}={bad} refused but changed", f.key);
                let m = e.to_string();
                assert!(m.starts_with(&format!("{}=", f.key)), "{m}");
            }
        }
        if f.is_numeric() && f.none.is_none() {
            assert!(op.clone().set(f.key, "").is_err(), "{} empty", f.key);
        }
    }
    assert_eq!(
        Op::default_for("train").unwrap().title(),
        "train llama3-70b on 4.19M tokens per step, dp 32 × fsdp 64 × tp 4 = 8192 chips"
    );
    let mut c = op.clone();
    assert!(matches!(
        c.clone().set("nope", "1"),
        Err(Error::UnknownField { .. })
    ));
    c.set("opt", "sgd").unwrap();
    assert_eq!(c.get("opt").as_deref(), Some("sgd"));
    c.set("mfu", "4e-1").unwrap();
    assert_eq!(c.get("mfu").as_deref(), Some("0.4"));
    assert_eq!(c.get_num("mfu"), Some(0.4));
    c.set("batch", "2M").unwrap();
    assert_eq!(c.get_num("batch"), Some(2e6));
    c.set("preset", "llama3-8b").unwrap();
    assert_eq!(c.get("preset").as_deref(), Some("llama3-8b"));
    c.set("layers", "33").unwrap();
    assert_eq!(c.get("preset").as_deref(), Some("custom"));
}

/// Issue 22: a custom mixture of experts trained through the op's own fields, on the book's
/// shapes. gpus.md, "Data Parallelism": "B/X > (E/k)·C/W_collective. For example, the new
/// OpenAI OSS model with k=4 and E=128, this increases to 32 * 2475 = 79,200 across nodes".
/// The shapes: D = F_e = 2880, E = 128 experts, k = 4 per token, gated (3 matrices), no
/// biases, the book's MLP blocks only (`mlp_only`), no recompute, pure data parallelism over
/// 1024 H100s (C = 9.89e14 in bf16, 400 GB/s per GPU beyond the node).
///
/// By hand: per layer the AllReduce carries the gradients of 128 experts of 3·2880² =
/// 24,883,200 parameters and a router of 128·2880 = 368,640: 3,185,418,240 parameters; a
/// token's FLOPs are 2 per parameter of its 4 experts and the router: 2·(4·24,883,200 +
/// 368,640) = 2·99,901,440. So E/k is really 3,185,418,240/99,901,440 = 31.885609 (the router
/// is dense). The dense rule C/W = 9.89e14/4e11 = 2472.5, across 4 scalable units of 256 GPUs
/// the leaf's (32 − 1)/32: 2472.5·31/32 = 2395.234 tokens per GPU for a dense model, and ×
/// 31.885609 = 76,373.506 for this mixture; the book's closed form is 32·2472.5 = 79,120 (its
/// 79,200 with C rounded to 990e12).
#[test]
fn a_custom_moe_trains_on_the_books_e_over_k() {
    let base = "chip=h100&op=train:layers=36,dmodel=2880,ffn=2880,mlp_only=yes,remat=none,batch=1e8,dp=1024,fsdp=1,tp=1";
    let dense = first(&link(base));
    let moe = first(&link(&format!("{base},experts=128,top_k=4")));
    let (d, m) = (dense.critical.unwrap(), moe.critical.unwrap());
    let grads = 128.0 * 3.0 * 2880.0 * 2880.0 + 128.0 * 2880.0;
    let flops = 4.0 * 3.0 * 2880.0 * 2880.0 + 128.0 * 2880.0;
    let rule = 9.89e14 / 4e11 * 31.0 / 32.0;
    close(d.value, rule, 1e-12, "dense: 2472.5·31/32");
    close(d.approx.unwrap(), 2472.5, 1e-12, "dense: C/W");
    close(
        m.value,
        rule * grads / flops,
        1e-12,
        "× E/k from the parameters",
    );
    close(m.value, 76_373.506, 1e-8, "76,373.5");
    close(m.approx.unwrap(), 32.0 * 2472.5, 1e-12, "the book's 32·C/W");
    // The same fields make the same architecture in `llm` (one declaration for both kinds;
    // the shape fields not given are each kind's default model's: LLaMA-3 70B's 64 heads here).
    let l = link("op=llm:layers=36,dmodel=2880,ffn=2880,heads=64,experts=128,top_k=4");
    let t = link(&format!("{base},experts=128,top_k=4"));
    let (OpKind::Llm(l), OpKind::Train(t)) = (&l.ops[0].kind, &t.ops[0].kind) else {
        panic!("kinds")
    };
    assert_eq!(l.arch(), t.config.arch);
}

/// A mixture the fields cannot describe is refused with the field named: more experts per
/// token than experts, no MoE layer left, expert parallelism not dividing the experts.
#[test]
fn an_inconsistent_moe_is_refused() {
    let chip = preset("h100").unwrap();
    for (q, want) in [
        ("experts=8,top_k=9", "top_k=9: must be at most experts = 8"),
        ("experts=8,top_k=2,dense_layers=80", "dense_layers=80"),
        ("experts=8,top_k=2,ep=3,dp=1,fsdp=1", "ep=3"),
    ] {
        let s = link(&format!("chip=h100&op=train:{q}"));
        let e = analyze(&s.ops[0], &chip, &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{q}: {e}");
    }
}

/// The op reads back from its JSON, a custom mixture of experts with its fields as given
/// (`expert_ffn=0`: the ffn width) included; JSON written before the op held the
/// architecture's fields (its config alone) reads the architecture from the config.
#[test]
fn the_op_reads_back_from_its_json() {
    let s = link("chip=h100&op=train:layers=36,dmodel=2880,ffn=2880,experts=128,top_k=4,tp=1");
    let json = serde_json::to_string(&s.ops[0]).unwrap();
    let back: Op = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s.ops[0]);
    assert_eq!(back.get("expert_ffn").as_deref(), Some("0"));
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v.as_object_mut().unwrap().remove("shape");
    let old: Op = serde_json::from_value(v).unwrap();
    let (OpKind::Train(a), OpKind::Train(b)) = (&old.kind, &s.ops[0].kind) else {
        panic!("kinds")
    };
    assert_eq!(a.config, b.config);
    assert_eq!(old.get("experts").as_deref(), Some("128"));
}

/// FUZZ_SEED=6, train case 22661: a mixture-of-experts field set on a dense preset
/// (`shared_experts=2`, no `experts`) does not act yet, but the op is no longer the preset: it
/// reads `custom`, and setting any field to its own text changes nothing. The same for `llm`.
#[test]
fn a_field_that_does_not_act_yet_still_leaves_the_preset() {
    for kind in ["train", "llm"] {
        let mut op = Op::default_for(kind).unwrap();
        op.set("preset", "llama3-70b").unwrap();
        assert_eq!(op.get("preset").as_deref(), Some("llama3-70b"), "{kind}");
        op.set("shared_experts", "2").unwrap();
        assert_eq!(op.get("preset").as_deref(), Some("custom"), "{kind}");
        for spec in op.fields() {
            let Some(text) = op.get(spec.key) else {
                continue;
            };
            let mut again = op.clone();
            again.set(spec.key, &text).unwrap();
            assert_eq!(again, op, "{kind}: {} = {text:?} changes the op", spec.key);
        }
    }
}
