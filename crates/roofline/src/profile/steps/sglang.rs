//! SGLang's step names (`step[<MODE> bs=… …]`), as the module docs of [`super`] describe them.

use super::{body, err, q, Dialect, Fields, Span, StepName, StepNameError, StepPhase};

const SG_KEYS: [&str; 13] = [
    "bs", "toks", "c", "g", "c_sq", "c_sk", "c_sqsq", "c_sqsk", "g_sq", "g_sk", "g_sqsq", "g_sqsk",
    "tbo",
];

pub(super) fn sglang(rest: &str) -> Result<Span, StepNameError> {
    let d = Dialect::Sglang;
    let b = body(d, rest)?;
    let mut words = b.split(' ');
    let mode = words.next().unwrap_or_default();
    let f = Fields::read(d, words)?;
    f.only(&SG_KEYS)?;
    let bs = f.need("bs")?;
    let skip = |why| Ok(Span::Skip(d, why));
    let (phase, prefill, decode, split) = match mode {
        "EXTEND" => {
            let toks = f.need("toks")?;
            let c = f.phase("c_", bs)?;
            if let Some(c) = c {
                if c.sq != toks {
                    return Err(err(d, format!("c_sq={} differs from toks={}", c.sq, toks)));
                }
            }
            (StepPhase::Prefill, c, None, [(bs, toks), (0.0, 0.0)])
        }
        "DECODE" | "TARGET_VERIFY" => {
            let g = f.phase("g_", bs)?;
            let tokens = g.map_or(bs, |g| g.sq);
            let phase = if mode == "TARGET_VERIFY" || tokens > bs {
                StepPhase::Verify
            } else {
                StepPhase::Decode
            };
            if mode == "TARGET_VERIFY" && g.is_none() {
                // Without the suffix the draft tokens per sequence are not given.
                return Ok(Span::Step(Box::new(StepName {
                    dialect: d,
                    phase,
                    batch: bs,
                    tokens: None,
                    split: None,
                    prefill: None,
                    decode: None,
                    whole: None,
                    padded: None,
                    spec: None,
                    tbo: false,
                })));
            }
            (phase, None, g, [(0.0, 0.0), (bs, tokens)])
        }
        "MIXED" => {
            let (c, g) = (f.get("c")?, f.get("g")?);
            match (c, g) {
                (Some(c), Some(g)) => {
                    if c + g != bs {
                        return Err(err(d, format!("c={c} + g={g} differs from bs={bs}")));
                    }
                    let cp = f.phase("c_", c)?;
                    let gp = f.phase("g_", g)?;
                    if cp.is_none() || gp.is_none() {
                        return Err(err(d, "a MIXED step with c= and g= lacks its aggregates"));
                    }
                    let (cq, gq) = (cp.map_or(0.0, |x| x.sq), gp.map_or(0.0, |x| x.sq));
                    let phase = if c == 0.0 {
                        StepPhase::Decode
                    } else if g == 0.0 {
                        StepPhase::Prefill
                    } else {
                        StepPhase::Mixed
                    };
                    (phase, cp, gp, [(c, cq), (g, gq)])
                }
                (None, None) => {
                    return Ok(Span::Step(Box::new(StepName {
                        dialect: d,
                        phase: StepPhase::Mixed,
                        batch: bs,
                        tokens: None,
                        split: None,
                        prefill: None,
                        decode: None,
                        whole: None,
                        padded: None,
                        spec: None,
                        tbo: false,
                    })))
                }
                _ => return Err(err(d, "a MIXED step needs both c= and g=")),
            }
        }
        "IDLE" => return skip("an idle step (no sequences on this rank)"),
        "DRAFT_EXTEND" | "DRAFT_EXTEND_V2" => return skip("a draft model's step"),
        "DUMMY_FIRST" | "SPLIT_PREFILL" | "PREBUILT" => {
            return skip("a step of a mode this page does not time")
        }
        "" => return Err(err(d, "no forward mode after `step[`")),
        m => return Err(err(d, format!("unknown forward mode {}", q(m)))),
    };
    let tokens = split[0].1 + split[1].1;
    Ok(Span::Step(Box::new(StepName {
        dialect: d,
        phase,
        batch: bs,
        tokens: Some(tokens),
        split: Some(split),
        prefill,
        decode,
        whole: None,
        padded: None,
        spec: None,
        tbo: f.get("tbo")?.is_some_and(|t| t > 0.0),
    })))
}
