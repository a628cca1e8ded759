//! Property tests of the scenario URL codec:
//!
//! * `decode(encode(s)) == s` with no notices, for generated valid scenarios (preset chips with
//!   edited or removed fields, custom chips, ops of every kind with random valid fields set
//!   through the generic `Op::set`, labels and names with delimiters and unicode, sweeps,
//!   options);
//! * `encode(decode(u))` is a fixed point for golden and generated URLs, and the scenario it
//!   describes decodes back identically without notices;
//! * `decode` never panics, on arbitrary strings and on mutations of valid URLs.

use crate::common;

use common::{golden_urls, Rng};
use proptest::prelude::*;
use roofline::scenario::{BaseRow, SweepAxes, SweepMetric};
use roofline::url::{decode, encode};
use roofline::{
    preset, preset_ids, Calibration, Chip, ChipField, ColorScheme, DType, FieldSpec, FieldType,
    FlopConvention, Interconnect, Op, OpKind, Options, PlotKind, Scenario, SweepSpec,
};

/// Text pieces for names and labels: URL delimiters, markup, spaces, unicode.
const PIECES: &[&str] = &[
    "a", "Z", "7", " ", ",", ":", "&", "=", "%", "+", "#", "?", "<", ">", "\"", "'", "/", ".", "-",
    "_", "~", "%2C", "..", "ü", "é", "✓", "日本", "😀", "D=F=4096", "<script>", "\\",
];

/// 1 to 80 characters.
fn text(r: &mut Rng) -> String {
    let mut s = String::new();
    let n = 1 + r.below(12);
    for _ in 0..n {
        s.push_str(r.pick(PIECES));
    }
    s.chars().take(80).collect()
}

/// A chip name: trimmed, 1 to 80 characters.
fn name(r: &mut Rng) -> String {
    let t = text(r).trim().to_string();
    if t.is_empty() {
        "x".into()
    } else {
        t
    }
}

fn edit_chip(r: &mut Rng, c: &mut Chip) {
    for _ in 0..r.below(4) {
        let f = r.pick(&ChipField::ALL[1..]);
        if !f.is_required() && r.chance(5) {
            *c = c.without(f).unwrap();
        } else {
            let (min, max, integer) = f.range();
            let v = if integer {
                // Counts (links, torus dimensions, node and leaf sizes): whole, in range.
                (min + r.below((max - min).min(1e6) as usize + 1) as f64).min(max)
            } else if max <= 1e3 {
                // Latencies: seconds from 0 to 1000.
                r.pick(&[0.0, 1e-9, 6e-7, 1e-6, 2.7e-6, 1e-3, 1.0, 1e3])
            } else if r.chance(3) {
                (1 + r.below(1_000_000)) as f64 * 1e9
            } else {
                10f64.powf(r.unit() * 20.0)
            };
            c.set(f, v).unwrap();
        }
    }
    if r.chance(4) {
        c.set_str(ChipField::Name, &name(r)).unwrap();
    }
    if r.chance(6) {
        c.interconnect = match c.interconnect {
            Interconnect::Switch => Interconnect::PointToPoint,
            Interconnect::PointToPoint => Interconnect::Switch,
        };
    }
}

fn chip(r: &mut Rng) -> Chip {
    let mut c = if r.chance(4) {
        Chip::custom(&name(r))
    } else {
        preset(r.pick(&preset_ids())).unwrap()
    };
    if r.chance(2) {
        edit_chip(r, &mut c);
    }
    c
}

/// A valid value of a field as text.
fn value(r: &mut Rng, f: &FieldSpec) -> String {
    if let Some(none) = f.none {
        if r.chance(4) {
            return none.to_string();
        }
    }
    match f.ty {
        FieldType::DType => r.pick(&DType::ALL).as_str().to_string(),
        FieldType::Choice(ids) => r.pick(ids).to_string(),
        FieldType::Text => structured_text(r, f.key),
        FieldType::Integer | FieldType::Number => {
            let hi = f.max.min(1e12);
            let v = match r.below(4) {
                0 => f.min,
                1 => f.max,
                _ => {
                    let u = r.unit();
                    f.min + u * u * u * (hi - f.min)
                }
            };
            let v = if f.ty == FieldType::Integer {
                v.round().clamp(f.min, f.max)
            } else if f.min == 0.0 && v < 1.0 {
                // A real field from 0 takes 0 or from 1 up.
                0.0
            } else {
                v
            };
            roofline::format_exact(v)
        }
    }
}

/// A valid structured text: collective torus axes (`8nx16w`) or cluster levels (`auto`,
/// `8/32`, `8@4.5e11/32@400G`).
fn structured_text(r: &mut Rng, key: &str) -> String {
    let size = |r: &mut Rng| roofline::format_exact(1.0 + r.below(32) as f64);
    match key {
        "axes" => (0..1 + r.below(3))
            .map(|_| format!("{}{}", size(r), r.pick(&["", "w", "n", "W", "N"])))
            .collect::<Vec<_>>()
            .join(r.pick(&["x", "X", ",", "*"])),
        "levels" if r.chance(3) => r.pick(&["auto", "AUTO", ""]).to_string(),
        "levels" => (0..1 + r.below(3))
            .map(|_| {
                let d = size(r);
                match r.below(3) {
                    0 => d,
                    1 => format!("{d}@{}", r.pick(&["450G", "400e9", "12.8T", "1", "1e30"])),
                    _ => format!("{d}@{}", roofline::format_exact(1.0 + r.unit() * 1e12)),
                }
            })
            .collect::<Vec<_>>()
            .join(r.pick(&["/", ";"])),
        // train: checkpointing policy or count, an assumed MFU, a price per chip-hour.
        "remat" if r.chance(2) => r
            .pick(&["none", "block", "matmuls", "mlp", "BLOCK"])
            .to_string(),
        "remat" => roofline::format_exact(1.0 + r.below(1000) as f64),
        "mfu" | "price" if r.chance(4) => "none".to_string(),
        "mfu" => roofline::format_exact(1e-3 + (1.0 - 1e-3) * r.unit()),
        "price" => roofline::format_exact(r.unit() * 100.0),
        // llm: the chunked-prefill budget (issue 40); lengths' spread and the disaggregated
        // topology (issue 42).
        "chunk" if r.chance(3) => r.pick(&["auto", "none", "AUTO", "None", ""]).to_string(),
        "chunk" => roofline::format_exact(1.0 + r.below(1 << 20) as f64),
        "prompt_cv" | "output_cv" => roofline::format_exact(r.unit() * 10.0),
        "disagg" if r.chance(2) => r.pick(&["none", "auto", "NONE", ""]).to_string(),
        "disagg" => format!("{}P{}D", 1 + r.below(16), 1 + r.below(16)),
        other => panic!("no generator for text field {other}"),
    }
}

fn op(r: &mut Rng) -> Op {
    let mut o = Op::default_for(r.pick(&OpKind::IDS)).unwrap();
    for f in o.fields() {
        if r.chance(2) {
            let v = value(r, f);
            o.set(f.key, &v)
                .unwrap_or_else(|e| panic!("{} {}={v}: {e}", o.kind_id(), f.key));
        }
    }
    if r.chance(2) {
        o.label = Some(text(r));
    }
    o
}

fn sweep(r: &mut Rng, ops: &[Op]) -> SweepSpec {
    if r.chance(4) {
        return SweepSpec::default();
    }
    let numeric: Vec<&'static FieldSpec> = ops
        .iter()
        .flat_map(|o| o.fields().iter().filter(|f| f.is_numeric()))
        .collect();
    let Some(&f) = numeric.get(r.below(numeric.len())) else {
        return SweepSpec::default();
    };
    // The decoder checks the range of the first op that has this field.
    let spec = ops.iter().find_map(|o| o.field(f.key)).unwrap();
    let hi = spec.max.min(1e9);
    let mut a = spec.min + r.unit() * (hi - spec.min) / 2.0;
    let mut b = a + (hi - a) * (0.01 + r.unit());
    if spec.ty == FieldType::Integer {
        a = a.round();
        b = b.round().max(a + 1.0);
    }
    let b = b.min(spec.max);
    if a >= b {
        return SweepSpec::default();
    }
    SweepSpec {
        field: spec.key.to_string(),
        from: a,
        to: b,
        points: if r.chance(2) { 511 } else { 2 + r.below(4095) },
        log: a > 0.0 && r.chance(2),
    }
}

fn scenario(seed: u64) -> Scenario {
    let r = &mut Rng::new(seed);
    let chips = (0..1 + r.below(4)).map(|_| chip(r)).collect();
    let ops: Vec<Op> = (0..1 + r.below(5)).map(|_| op(r)).collect();
    let sweep = sweep(r, &ops);
    let chips: Vec<_> = chips;
    let base = r.chance(2).then(|| BaseRow {
        op: r.below(ops.len()),
        chip: r.below(chips.len()),
    });
    Scenario {
        chips,
        sweep,
        ops,
        plot: [
            PlotKind::Sweep,
            PlotKind::Roofline,
            PlotKind::Both,
            PlotKind::Frontier,
            PlotKind::Load,
        ][r.below(5)],
        axes: SweepAxes {
            y: r.pick(&SweepMetric::ALL),
            log_x: r.chance(2),
            log_y: r.chance(2),
        },
        options: Options {
            convention: if r.chance(2) {
                FlopConvention::TwoPerMac
            } else {
                FlopConvention::OnePerMac
            },
            derate: if r.chance(2) {
                1.0
            } else {
                0.01 + 0.99 * r.unit()
            },
            cal: if r.chance(2) {
                Calibration::NONE
            } else {
                // Efficiencies over 1e-4..1 on a log scale, overheads 0 or up to 1 s.
                let eff = |r: &mut Rng| 10f64.powf(-4.0 * r.unit()).clamp(1e-4, 1.0);
                let o = if r.chance(3) {
                    0.0
                } else {
                    r.unit() * 10f64.powf(-6.0 * r.unit())
                };
                Calibration::new(eff(r), eff(r), o).unwrap()
            },
        },
        embed: r.chance(3),
        theme: r.pick(&[None, Some(ColorScheme::Light), Some(ColorScheme::Dark)]),
        base,
    }
}

/// Characters and fragments mutations insert.
const NOISE: &[&str] = &[
    "&", "=", ":", ",", "..", "%", "%2", "%2C", "%3A", "+", "#", "?", " ", "-", "e", "9", "0",
    "chip=", "op=", "sweep=", "label=", "name=", ":log", ":n=", "v=2", "h100", "custom", "matmul",
    "&y=", "&log=", "&base=", "1.2", "time", "tokens", "xy", "é", "\u{0}", "\n", "%FF", "%C3",
    "1e999", "-5", "none",
];

/// Applies 1 to 6 random edits (insert, delete, replace, duplicate a span) on char boundaries.
fn mutate(seed: u64, base: &str) -> String {
    let r = &mut Rng::new(seed);
    let mut s: Vec<char> = base.chars().collect();
    for _ in 0..1 + r.below(6) {
        let at = r.below(s.len() + 1);
        match r.below(4) {
            0 => {
                let ins: Vec<char> = r.pick(NOISE).chars().collect();
                s.splice(at..at, ins);
            }
            1 if at < s.len() => {
                let end = (at + 1 + r.below(8)).min(s.len());
                s.drain(at..end);
            }
            2 if at < s.len() => {
                let c = r.pick(NOISE).chars().next().unwrap_or('x');
                s[at] = c;
            }
            _ => {
                let end = (at + r.below(20)).min(s.len());
                let span: Vec<char> = s[at..end].to_vec();
                s.splice(at..at, span);
            }
        }
    }
    s.into_iter().collect()
}

/// The invariants every input must satisfy: decoding never panics, and the encoding of what
/// was decoded is canonical (decodes to the same scenario, no notices, fixed point).
fn stable(input: &str) -> Result<(), TestCaseError> {
    let d1 = decode(input);
    let e1 = encode(&d1.scenario);
    let d2 = decode(&e1);
    prop_assert!(
        d2.notices.is_empty(),
        "{input:?} → {e1:?}: {:?}",
        d2.notices
    );
    prop_assert_eq!(&d2.scenario, &d1.scenario, "{:?} → {:?}", input, e1);
    prop_assert_eq!(encode(&d2.scenario), e1);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn scenarios_round_trip(seed in any::<u64>()) {
        let s = scenario(seed);
        let e = encode(&s);
        prop_assert!(
            e.chars().all(|c| c.is_ascii_alphanumeric() || "-._~/+%&=:,".contains(c)),
            "unexpected character in {e}"
        );
        let d = decode(&e);
        prop_assert!(d.notices.is_empty(), "{e}: {:?}", d.notices);
        prop_assert_eq!(&d.scenario, &s, "{}", e);
        prop_assert_eq!(encode(&d.scenario), e);
        // With a leading '?' too.
        prop_assert_eq!(decode(&format!("?{}", encode(&s))).scenario, s);
    }

    #[test]
    fn mutated_encodings_are_stable(seed in any::<u64>(), m in any::<u64>()) {
        stable(&mutate(m, &encode(&scenario(seed))))?;
    }

    #[test]
    fn mutated_golden_urls_are_stable(i in any::<prop::sample::Index>(), m in any::<u64>()) {
        let urls = golden_urls();
        stable(&mutate(m, urls[i.index(urls.len())]))?;
    }

    #[test]
    fn arbitrary_strings_are_stable(s in any::<String>()) {
        stable(&s)?;
    }

    #[test]
    fn url_like_strings_are_stable(
        s in "[?&=:,.%+#a-z0-9_ ü-]{0,120}|((chip|op|sweep|v|plot|flops|derate|cal|embed|theme|x)=[a-z0-9:,=.%+&_-]{0,40}&?){0,8}"
    ) {
        stable(&s)?;
    }
}

#[test]
fn golden_urls_are_stable() {
    let urls = golden_urls();
    assert!(urls.len() >= 40);
    for u in urls {
        stable(u).unwrap();
    }
}

#[test]
fn every_kind_with_every_field_changed_round_trips() {
    for id in OpKind::IDS {
        let mut o = Op::default_for(id).unwrap();
        let r = &mut Rng::new(id.len() as u64);
        for f in o.fields() {
            if f.none.is_some() {
                continue;
            }
            let v = match f.ty {
                FieldType::DType => "fp4".to_string(),
                FieldType::Choice(ids) => ids[ids.len() - 1].to_string(),
                _ => value(r, f),
            };
            o.set(f.key, &v).unwrap();
        }
        o.label = Some(", : & = % + # <b>ü".into());
        let s = Scenario {
            ops: vec![o],
            ..Scenario::default()
        };
        let d = decode(&encode(&s));
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        assert_eq!(d.scenario, s, "{}", encode(&s));
    }
}
