//! vLLM's step names (`execute_…_context_…_generation_…`), as the module docs of [`super`] describe them.

use super::{count, err, q, Aggregates, Dialect, Span, StepName, StepNameError, StepPhase};

/// `<digits>` at the start of `s`, and the rest.
fn lead_count<'a>(d: Dialect, what: &str, s: &'a str) -> Result<(f64, &'a str), StepNameError> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    Ok((count(d, what, &s[..end])?, &s[end..]))
}

/// vLLM's `(sq<n>sk<n>sqsq<n>sqsk<n>)` group for a phase of `seqs` sequences, or its native
/// `(<tokens>)`.
fn vllm_group(
    d: Dialect,
    phase: &str,
    s: &str,
    seqs: f64,
) -> Result<(Group, usize), StepNameError> {
    let close = s
        .find(')')
        .ok_or_else(|| err(d, format!("the {phase} group has no closing `)`")))?;
    let inner = s
        .strip_prefix('(')
        .map(|x| &x[..close - 1])
        .ok_or_else(|| err(d, format!("no `(` after the {phase} count")))?;
    if inner.bytes().all(|b| b.is_ascii_digit()) {
        return Ok((Group::Tokens(count(d, phase, inner)?), close + 1));
    }
    let mut vals = [0.0; 4];
    let mut rest = inner;
    for (i, key) in ["sq", "sk", "sqsq", "sqsk"].iter().enumerate() {
        rest = rest.strip_prefix(key).ok_or_else(|| {
            err(
                d,
                format!(
                    "the {phase} group ({}) lacks {key} in the order sq sk sqsq sqsk",
                    q(inner)
                ),
            )
        })?;
        let (v, r) = lead_count(d, &format!("{phase} {key}"), rest)?;
        vals[i] = v;
        rest = r;
    }
    if !rest.is_empty() {
        return Err(err(
            d,
            format!("unexpected `{}` in the {phase} group", q(rest)),
        ));
    }
    Ok((
        Group::Detailed(Aggregates {
            seqs,
            sq: vals[0],
            sk: vals[1],
            sqsq: vals[2],
            sqsk: vals[3],
        }),
        close + 1,
    ))
}

enum Group {
    Tokens(f64),
    Detailed(Aggregates),
}

pub(super) fn vllm(rest: &str) -> Result<Span, StepNameError> {
    let d = Dialect::Vllm;
    if let Some(r) = rest.strip_prefix("new_") {
        // Older vLLM: requests new to the batch and cached ones, no tokens.
        let (new, r) = lead_count(d, "new", r)?;
        let r = r
            .strip_prefix("_cached_")
            .ok_or_else(|| err(d, "expected _cached_<n> after execute_new_<n>"))?;
        let (cached, r) = lead_count(d, "cached", r)?;
        if !r.is_empty() {
            return Err(err(
                d,
                format!("unexpected `{}` after the cached count", q(r)),
            ));
        }
        return Ok(Span::Step(Box::new(StepName {
            dialect: d,
            phase: if cached == 0.0 {
                StepPhase::Prefill
            } else {
                StepPhase::Mixed
            },
            batch: new + cached,
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
    // execute_[<tokens>_]context_<n>(…)_generation_<n>(…)
    if !(rest.starts_with("context_") || rest.starts_with(|c: char| c.is_ascii_digit())) {
        return Ok(Span::Other);
    }
    let (total, r) = if rest.starts_with("context_") {
        (None, rest)
    } else {
        let (t, r) = lead_count(d, "tokens", rest)?;
        (Some(t), r.strip_prefix('_').unwrap_or(r))
    };
    let r = r
        .strip_prefix("context_")
        .ok_or_else(|| err(d, "expected context_<n>(…)"))?;
    let (cn, r) = lead_count(d, "context requests", r)?;
    let (cg, used) = vllm_group(d, "context", r, cn)?;
    let r = r[used..]
        .strip_prefix("_generation_")
        .ok_or_else(|| err(d, "expected _generation_<n>(…) after the context group"))?;
    let (gn, r) = lead_count(d, "generation requests", r)?;
    let (gg, used) = vllm_group(d, "generation", r, gn)?;
    if used != r.len() {
        return Err(err(
            d,
            format!("unexpected `{}` after the generation group", q(&r[used..])),
        ));
    }
    let (prefill, decode, cq, gq) = match (cg, gg) {
        (Group::Tokens(c), Group::Tokens(g)) => {
            if total.is_some() {
                return Err(err(
                    d,
                    "a token count before context_ belongs to the detailed form",
                ));
            }
            (None, None, c, g)
        }
        (Group::Detailed(c), Group::Detailed(g)) => {
            let t = total.ok_or_else(|| err(d, "the detailed form starts execute_<tokens>_"))?;
            if c.sq + g.sq != t {
                return Err(err(
                    d,
                    format!(
                        "execute_{t} differs from the phases' sq {} + {}",
                        c.sq, g.sq
                    ),
                ));
            }
            (
                (cn > 0.0 || c.sq > 0.0).then_some(c),
                (gn > 0.0 || g.sq > 0.0).then_some(g),
                c.sq,
                g.sq,
            )
        }
        _ => return Err(err(d, "one phase detailed and the other not")),
    };
    let phase = match (cn > 0.0, gn > 0.0) {
        (true, true) => StepPhase::Mixed,
        (true, false) => StepPhase::Prefill,
        (false, true) if gq > gn => StepPhase::Verify,
        (false, true) => StepPhase::Decode,
        (false, false) => return Ok(Span::Skip(d, "an empty step (no requests)")),
    };
    Ok(Span::Step(Box::new(StepName {
        dialect: d,
        phase,
        batch: cn + gn,
        tokens: Some(cq + gq),
        split: Some([(cn, cq), (gn, gq)]),
        prefill,
        decode,
        whole: None,
        padded: None,
        spec: None,
        tbo: false,
    })))
}
