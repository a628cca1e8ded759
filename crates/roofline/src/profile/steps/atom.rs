//! ROCm ATOM's step names (`prefill[…]`, `decode[…]`), as the module docs of [`super`] describe them.

use super::{count, err, q, Aggregates, Dialect, Fields, Span, StepName, StepNameError, StepPhase};

const ATOM_KEYS: [&str; 10] = [
    "bs", "tok", "ctx", "p", "d", "spec", "sqsq", "sqsk", "sk", "tbo",
];

/// ATOM's fields: `ctx=[a, b, c]...+3` holds spaces, so it is cut out before the split.
pub(super) fn atom(rest: &str, prefill: bool) -> Result<Span, StepNameError> {
    let d = Dialect::Atom;
    let b = body_atom(rest)?;
    let (before, ctx_after) = match b.find("ctx=[") {
        Some(i) => {
            let tail = &b[i + 5..];
            let close = tail
                .find(']')
                .ok_or_else(|| err(d, "ctx=[ has no closing `]`"))?;
            let mut after = &tail[close + 1..];
            if let Some(x) = after.strip_prefix("...+") {
                let n = x.bytes().take_while(u8::is_ascii_digit).count();
                after = &x[n..];
            }
            (&b[..i], after)
        }
        None => (b, ""),
    };
    let f = Fields::read(d, before.split(' ').chain(ctx_after.split(' ')))?;
    f.only(&ATOM_KEYS)?;
    let bs_text = f.text("bs").ok_or_else(|| err(d, "bs= is missing"))?;
    let (batch, padded) = match bs_text.split_once('/') {
        Some((real, pad)) => {
            let (r, p) = (count(d, "bs", real)?, count(d, "bs padding", pad)?);
            if p < r {
                return Err(err(
                    d,
                    format!("bs={}: the padded batch is below the real one", q(bs_text)),
                ));
            }
            (r, Some(p))
        }
        None => (count(d, "bs", bs_text)?, None),
    };
    let tokens = f.need("tok")?;
    let spec = f.get("spec")?.filter(|s| *s > 0.0);
    let p = f.get("p")?.unwrap_or(0.0);
    let whole = match (f.get("sqsq")?, f.get("sqsk")?, f.get("sk")?) {
        (Some(sqsq), Some(sqsk), Some(sk)) => Some(Aggregates {
            seqs: batch,
            sq: tokens,
            sk,
            sqsq,
            sqsk,
        }),
        (None, None, None) => None,
        _ => return Err(err(d, "sqsq=, sqsk= and sk= come together")),
    };
    let phase = if prefill {
        StepPhase::Prefill
    } else if p > 0.0 {
        StepPhase::Mixed
    } else if spec.is_some() || tokens > batch {
        StepPhase::Verify
    } else {
        StepPhase::Decode
    };
    let split = if prefill {
        Some([(batch, tokens), (0.0, 0.0)])
    } else if p == 0.0 {
        Some([(0.0, 0.0), (batch, tokens)])
    } else {
        None
    };
    Ok(Span::Step(Box::new(StepName {
        dialect: d,
        phase,
        batch,
        tokens: Some(tokens),
        split,
        prefill: None,
        decode: None,
        whole,
        padded,
        spec,
        tbo: f.get("tbo")?.is_some_and(|t| t > 0.0),
    })))
}

/// ATOM's body: up to the name's last `]` (its `ctx=[…]` has brackets of its own).
fn body_atom(rest: &str) -> Result<&str, StepNameError> {
    rest.strip_suffix(']')
        .ok_or_else(|| err(Dialect::Atom, "the name does not end at its closing `]`"))
}
