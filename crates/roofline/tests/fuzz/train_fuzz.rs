//! Fuzzing of the training model: random configs (any preset or random architecture, batch,
//! mesh, fabric, policy, dtype and option) through `analyze_train` and `train_plot`, and
//! random text through every field of the `train` op (its config's text access).
//!
//! Properties: nothing panics. An analysed config keeps the invariants of
//! `common::train::check_analysis` (every number finite, `t_math ≤ t_lower ≤ t_upper`, MFU in
//! (0, 1], memory and critical batches consistent); a config that does not analyse fails
//! with a short message. A refused text edit leaves the op unchanged and its message
//! starts with `<field>=` (the unknown-field error aside); an accepted one reads back: the
//! field's text sets the same config again.
//!
//! `train_quick` runs 1500 cases in the normal tests; `./dev fuzz` runs `fuzz_train` with
//! `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture train_fuzz::
//! ```

use crate::common;

use common::fuzz::{self, number_text};
use common::train::{check_analysis, random_config};
use common::Rng;
use roofline::train::{analyze_train, train_plot, PlotAxis, TrainConfig};
use roofline::{Op, OpKind, Train};

/// Longest error message allowed (user text in messages is clipped to 40 characters).
const MAX_MESSAGE: usize = 400;

/// Texts fields are tried with: ids of every choice, dtypes, words and numbers.
const TEXTS: &[&str] = &[
    "adam",
    "momentum",
    "sgd",
    "1f1b",
    "gpipe",
    "zb",
    "none",
    "block",
    "matmuls",
    "mlp",
    "4",
    "12",
    "0.5",
    "yes",
    "no",
    "bf16",
    "fp32",
    "fp8",
    "int4",
    "llama3-70b",
    "deepseek-v3",
    "gpt-oss-120b",
    "custom",
    "tpu-v5p",
    "tpu-v5e",
    "h100",
    "b200",
    "l4",
    "mi300x",
    "4M",
    "459T",
    "96G",
    "2.8T",
    "1e18",
    "1e19",
    "0",
    "-0",
    "-1",
    "NaN",
    "inf",
    "",
    " ",
    "1e-320",
    "1e999",
    "8960",
    "2048",
    "16",
    "2",
    "1",
    "3",
];

/// A random edit: a field key (now and then an unknown one) and a text.
fn edit(r: &mut Rng) -> (String, String) {
    let fields = Op::default_for("train").unwrap().fields();
    let key = if r.chance(40) {
        "nope".to_string()
    } else {
        fields[r.below(fields.len())].key.to_string()
    };
    let text = if r.chance(2) {
        r.pick(TEXTS).to_string()
    } else {
        number_text(r)
    };
    (key, text)
}

fn check_edit(c: &Op, key: &str, text: &str) -> Result<Op, String> {
    let mut d = c.clone();
    match d.set(key, text) {
        Ok(()) => {
            let shown = d
                .get(key)
                .ok_or_else(|| format!("{key}: accepted, then no text"))?;
            let mut again = d.clone();
            again
                .set(key, &shown)
                .map_err(|e| format!("{key}: its own text {shown:?} is refused: {e}"))?;
            if again != d {
                return Err(format!("{key}: its own text {shown:?} changes the op"));
            }
            Ok(d)
        }
        Err(e) => {
            if d != *c {
                return Err(format!("{key}={text:?} refused ({e}) but the op changed"));
            }
            let m = e.to_string();
            if key != "nope" && !m.starts_with(&format!("{key}=")) {
                return Err(format!("message does not name the field: {m}"));
            }
            // The unknown-field error lists every key of the op (over 60 with the
            // architecture's); the others are short.
            if key != "nope" && m.chars().count() > MAX_MESSAGE {
                return Err(format!("message of {} characters", m.chars().count()));
            }
            Ok(d)
        }
    }
}

/// One case: a random config, a few random edits, then the analysis (and now and then a
/// plot). `Ok(true)` when it analysed.
fn check_case(input: &(TrainConfig, Vec<(String, String)>, bool)) -> Result<bool, String> {
    let (start, edits, plot) = input;
    let mut op = Op::new(OpKind::Train(Train::from_config(start.clone())));
    for (k, t) in edits {
        op = check_edit(&op, k, t)?;
    }
    let OpKind::Train(t) = &op.kind else {
        return Err("not a train op".into());
    };
    let c = (*t.config).clone();
    match analyze_train(&c) {
        Ok(a) => {
            c.validate()
                .map_err(|e| format!("analysed, yet invalid: {e}"))?;
            check_analysis(&a)?;
            if *plot {
                for axis in PlotAxis::ALL {
                    let (from, to) = match axis {
                        PlotAxis::Chips => (1.0, 1e5),
                        PlotAxis::BatchPerChip => (1.0 / a.chips, 1e6),
                    };
                    let p = train_plot(&c, axis, from, to, 6).map_err(|e| format!("plot: {e}"))?;
                    for pt in p.curves.iter().flat_map(|x| &x.points) {
                        if !(pt.t_lower.is_finite() && pt.mfu > 0.0 && pt.mfu <= 1.0 + 1e-9) {
                            return Err(format!("plot point {pt:?}"));
                        }
                    }
                }
            }
            Ok(true)
        }
        Err(e) => {
            let m = e.to_string();
            if m.is_empty() || m.chars().count() > MAX_MESSAGE {
                return Err(format!("bad message: {m:?}"));
            }
            Ok(false)
        }
    }
}

fn fuzz_train(cases: usize) {
    let analysed = fuzz::run(
        "train",
        cases,
        fuzz::seed(),
        |r, i| {
            let c = random_config(r);
            let n = if i % 2 == 0 { 0 } else { 1 + r.below(4) };
            let edits = (0..n).map(|_| edit(r)).collect();
            (c, edits, r.chance(16))
        },
        check_case,
    );
    // The generator reaches both sides: configs that analyse and configs that do not.
    assert!(
        analysed > cases / 4 && analysed < cases * 19 / 20,
        "{analysed} of {cases} analysed"
    );
}

#[test]
fn train_quick() {
    fuzz_train(1_500);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_train_volume() {
    fuzz_train(fuzz::volume());
}
