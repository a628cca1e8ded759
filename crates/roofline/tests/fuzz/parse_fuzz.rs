//! Fuzzing of every number a user types: `parse_quantity`, `parse_quantity_unit`, `Op::set`
//! for every field of every operation kind, and `Chip::set_str` for every chip field, with
//! random and adversarial text (empty, `-0`, `NaN`, `1e309`, `1e-320`, 10,000-character
//! strings, markup, unicode digits, SI and binary suffixes, huge exponents).
//!
//! Properties: nothing panics; an accepted value is finite, within the field's range and is
//! the number the text says (plain decimals agree with Rust's own `f64` parser); a number
//! within range is never refused; a refused edit leaves the op or chip unchanged, and its
//! message starts with `<field>=` (so the app can show it next to the field) and stays
//! short whatever the input's length.
//!
//! `parse_quick` runs 2000 cases in the normal tests; `./dev fuzz` runs `fuzz_parse` with
//! `FUZZ_CASES` (default 100000) in release mode:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test -p roofline --release --test fuzz -- --ignored --nocapture parse_fuzz::
//! ```

use crate::common;

use common::fuzz::{self, number_text};
use roofline::units::{parse_quantity, parse_quantity_unit};
use roofline::{preset, preset_ids, Chip, ChipField, DType, FieldSpec, FieldType, Op, OpKind};

/// Longest error message allowed (user text in messages is cut to 40 characters).
const MAX_MESSAGE: usize = 400;

/// Whether `t` is a plain decimal: `[+-] digits [. digits] [e [+-] digits]`, at least one
/// mantissa digit. Rust's `f64::from_str` reads exactly these (and `inf`/`NaN`, excluded).
fn plain_decimal(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - s;
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    i == b.len()
}

fn short(msg: &str) -> Result<(), String> {
    if msg.chars().count() > MAX_MESSAGE {
        Err(format!("message of {} characters", msg.chars().count()))
    } else {
        Ok(())
    }
}

/// The quantity parsers. `Ok(true)` when the text was accepted.
fn check_parse(text: &str) -> Result<bool, String> {
    let a = parse_quantity(text);
    let b = parse_quantity_unit(text);
    if a.as_ref().ok() != b.as_ref().ok().map(|(v, _)| v) {
        return Err(format!("parse_quantity {a:?} vs parse_quantity_unit {b:?}"));
    }
    if let Err(e) = &a {
        short(&e.to_string())?;
    }
    let t = text.trim();
    if plain_decimal(t) {
        // Rust's parser is exact (correctly rounded) for any length of text; what it reads
        // as infinite, or as 0 from non-zero digits, must be refused.
        let want: f64 = t.parse().map_err(|e| format!("{t}: {e}"))?;
        let mant = &t[..t.find(['e', 'E']).unwrap_or(t.len())];
        let readable =
            want.is_finite() && (want != 0.0 || !mant.contains(|c: char| ('1'..='9').contains(&c)));
        match (&a, readable) {
            (Ok(v), true) if *v == want => {}
            (Err(_), false) => {}
            _ => return Err(format!("{t}: got {a:?}, Rust's f64 parser says {want}")),
        }
        // A decimal prefix scales by a power of ten exactly as writing the exponent does.
        for (p, e) in [
            ("k", 3),
            ("M", 6),
            ("G", 9),
            ("T", 12),
            ("m", -3),
            ("p", -12),
        ] {
            let (mant, exp) = match t.find(['e', 'E']) {
                Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()),
                None => (t, Some(0)),
            };
            // Exponents beyond ±1e6 saturate in the parser (the value is 0 or infinite either way).
            let Some(exp) = exp.filter(|e| e.abs() <= 1_000_000) else {
                continue;
            };
            let want: f64 = format!("{mant}e{}", exp + e).parse().unwrap();
            let got = parse_quantity(&format!("{t}{p}"));
            let readable = want.is_finite()
                && (want != 0.0 || !mant.contains(|c: char| ('1'..='9').contains(&c)));
            match (&got, readable) {
                (Ok(v), true) if *v == want => {}
                (Err(_), false) => {}
                _ => return Err(format!("{t}{p}: got {got:?}, want {want}")),
            }
        }
    }
    if let Ok(v) = a {
        if !v.is_finite() {
            return Err(format!("accepted a non-finite value {v}"));
        }
    }
    Ok(a.is_ok())
}

/// Whether a field's documented range holds `v`: finite, from `min` to `max`, whole for an
/// integer, and 0 or from 1 up for a real field whose minimum is 0 (unless its maximum is at
/// most 1: a fraction such as an acceptance rate).
fn in_range(spec: &FieldSpec, v: f64) -> bool {
    v.is_finite()
        && v >= spec.min
        && v <= spec.max
        && (spec.ty == FieldType::Number || v.fract() == 0.0)
        && !(spec.ty == FieldType::Number
            && spec.min == 0.0
            && spec.max > 1.0
            && v > 0.0
            && v < 1.0)
}

fn is_none_word(t: &str, words: &[&str]) -> bool {
    words.iter().any(|w| t.eq_ignore_ascii_case(w))
}

/// `Op::set(key, text)` on a copy of `base`. `Ok(true)` when accepted.
fn check_op_field(base: &Op, key: &str, text: &str) -> Result<bool, String> {
    let spec = base.field(key).ok_or("no such field")?;
    let mut op = base.clone();
    let t = text.trim();
    let parsed = parse_quantity(text);
    match op.set(key, text) {
        Ok(()) => {
            op.validate()
                .map_err(|e| format!("accepted, then invalid: {e}"))?;
            let got = op.get(key).ok_or("no text after set")?;
            match spec.ty {
                FieldType::Integer | FieldType::Number => match op.get_num(key) {
                    Some(v) => {
                        // Every range is non-negative: no value keeps a minus sign (`-0`).
                        if !(in_range(spec, v) && v.is_sign_positive()) {
                            return Err(format!("accepted {v}, outside {}", spec.reason()));
                        }
                        if parsed.as_ref().ok() != Some(&v) {
                            return Err(format!("accepted {v}, but the text reads {parsed:?}"));
                        }
                    }
                    // Not set: empty text, `off`/`none`, or the field's own none word
                    // (`max_seqs=auto`, the engine's default).
                    None if spec.none.is_some()
                        && (t.is_empty()
                            || is_none_word(t, &["off", "none", spec.none.unwrap_or("none")])) => {}
                    None => return Err("accepted, but the field has no value".into()),
                },
                FieldType::DType => {
                    if !(spec.none.is_some() && got == spec.none.unwrap_or_default()) {
                        let d: DType = got.parse().map_err(|_| format!("not a dtype: {got}"))?;
                        if t.parse::<DType>().ok() != Some(d) {
                            return Err(format!("{t:?} set the dtype {d}"));
                        }
                    }
                }
                // Structured text (torus axes, cluster levels): its own text must read back
                // to the same op (checked below).
                FieldType::Text => {}
                FieldType::Choice(ids) => {
                    if !ids.contains(&got.as_str()) {
                        return Err(format!("{got} is not one of {ids:?}"));
                    }
                    // A collective's kind also reads its documented short names and
                    // separators (`ag`, `All-Reduce`: `CollectiveKind::ALIASES`).
                    let collective = key == "kind" && base.kind_id() == "collective";
                    let n = roofline::collective::CollectiveKind::normalized(t);
                    let alias = collective
                        && (ids.contains(&n.as_str())
                            || roofline::collective::CollectiveKind::ALIASES
                                .iter()
                                .any(|(a, _)| *a == n));
                    if !alias && !ids.iter().any(|id| id.eq_ignore_ascii_case(t)) {
                        return Err(format!("{t:?} is not a choice, yet accepted"));
                    }
                }
            }
            // What the field shows reads back to the same op.
            let mut again = op.clone();
            again
                .set(key, &got)
                .map_err(|e| format!("its own text {got:?} is refused: {e}"))?;
            if again != op {
                return Err(format!("its own text {got:?} changes the op"));
            }
            Ok(true)
        }
        Err(e) => {
            if op != *base {
                return Err(format!("refused ({e}) but the op changed"));
            }
            let msg = e.to_string();
            if !msg.starts_with(&format!("{key}=")) {
                return Err(format!("message does not name the field: {msg}"));
            }
            short(&msg)?;
            if spec.is_numeric() {
                if let Ok(v) = parsed {
                    if in_range(spec, v) {
                        return Err(format!("refused {v}, within {}: {msg}", spec.reason()));
                    }
                }
            }
            Ok(false)
        }
    }
}

/// `Chip::set_str(field, text)` on a copy of `base`. `Ok(true)` when accepted.
fn check_chip_field(base: &Chip, f: ChipField, text: &str) -> Result<bool, String> {
    let mut chip = base.clone();
    let t = text.trim();
    match chip.set_str(f, text) {
        Ok(()) => {
            chip.check()
                .map_err(|e| format!("accepted, then invalid: {e}"))?;
            if f == ChipField::Name {
                if chip.name != t || t.is_empty() || t.chars().count() > 80 {
                    return Err(format!("name set to {:?}", chip.name));
                }
            } else if t == "-" || t.eq_ignore_ascii_case("none") {
                if chip.get(f).is_some() || f.is_required() {
                    return Err("not removed".into());
                }
            } else {
                let v = chip.get(f).ok_or("accepted, but the field has no value")?;
                if parse_quantity(t).ok() != Some(v) {
                    return Err(format!(
                        "accepted {v}, the text reads {:?}",
                        parse_quantity(t)
                    ));
                }
            }
            if t.is_empty() {
                return Err("empty text accepted".into());
            }
            Ok(true)
        }
        Err(e) => {
            if chip != *base {
                return Err(format!("refused ({e}) but the chip changed"));
            }
            let msg = e.to_string();
            if !msg.starts_with(&format!("{}=", f.as_str())) {
                return Err(format!("message does not name the field: {msg}"));
            }
            short(&msg)?;
            if t.is_empty() && f != ChipField::Name && !msg.contains("empty") {
                return Err(format!("empty text, message does not say so: {msg}"));
            }
            if f != ChipField::Name {
                if let Ok((v, None)) = parse_quantity_unit(t) {
                    if Chip::validate(f, v).is_ok() {
                        return Err(format!("refused {v}, a valid value: {msg}"));
                    }
                }
            } else if !t.is_empty() && t.chars().count() <= 80 {
                return Err(format!("refused a valid name: {msg}"));
            }
            Ok(false)
        }
    }
}

/// One text through every parser and every field. Returns whether it reads as a number.
fn check_all(text: &str, ops: &[Op], chips: &[Chip]) -> Result<bool, String> {
    let number = check_parse(text).map_err(|e| format!("parse_quantity: {e}"))?;
    for op in ops {
        for spec in op.fields() {
            check_op_field(op, spec.key, text)
                .map_err(|e| format!("{} {}: {e}", op.kind_id(), spec.key))?;
        }
    }
    for chip in chips {
        for f in ChipField::ALL {
            check_chip_field(chip, f, text)
                .map_err(|e| format!("chip {} {}: {e}", chip.name, f.as_str()))?;
        }
    }
    Ok(number)
}

fn fuzz_parse(cases: usize) {
    let ops: Vec<Op> = OpKind::IDS
        .iter()
        .map(|k| Op::default_for(k).unwrap())
        .collect();
    // Tiles on, so `off` changes something.
    let mut tiled = Op::default_for("matmul").unwrap();
    tiled.set("bm", "128").unwrap();
    let ops = [ops, vec![tiled]].concat();
    let chips: Vec<Chip> = ["tpu-v5e", "h100"]
        .iter()
        .map(|id| preset(id).unwrap())
        .chain([Chip::custom("mine")])
        .collect();
    assert!(preset_ids().len() > 2);
    let numbers = fuzz::run(
        "numbers",
        cases,
        fuzz::seed(),
        |r, i| {
            // Every adversarial text first, then random ones.
            match fuzz::ADVERSARIAL.get(i) {
                Some(t) => t.to_string(),
                None => number_text(r),
            }
        },
        |t| check_all(t, &ops, &chips),
    );
    // The generator reaches both sides: numbers and not numbers.
    assert!(
        numbers > cases / 5 && numbers < cases * 4 / 5,
        "{numbers} of {cases} read as numbers"
    );
}

#[test]
fn parse_quick() {
    fuzz_parse(2_000);
}

#[test]
#[ignore = "volume: run by ./dev fuzz"]
fn fuzz_numbers() {
    fuzz_parse(fuzz::volume());
}

#[test]
fn plain_decimal_grammar() {
    for t in ["1", "-1.5", ".5", "5.", "1e5", "1E-5", "+0.0e+0"] {
        assert!(plain_decimal(t), "{t}");
    }
    for t in [
        "", ".", "e5", "1e", "1e+", "inf", "NaN", "1k", "--1", "1.2.3", " 1",
    ] {
        assert!(!plain_decimal(t), "{t}");
    }
}
