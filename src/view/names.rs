//! What things are called on the page: operation kinds, operations, series, swept fields, and
//! quantities formatted for people.

use roofline::inputs::Op;
use roofline::inputs::Scenario;
use roofline::units::Unit;

/// Operation kinds offered in the forms: (kind id, label).
pub const OP_KINDS: &[(&str, &str)] = &OP_KIND_PAIRS;

const OP_KIND_PAIRS: [(&str, &str); roofline::inputs::OpKind::IDS.len()] = {
    let kinds = roofline::inputs::OpKind::KINDS;
    let mut out = [("", ""); roofline::inputs::OpKind::IDS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = (kinds[i].id, kinds[i].label);
        i += 1;
    }
    out
};

/// The label of field `f` in the scenario's operations (the key itself if none has it).
pub(super) fn name_of(f: &str, s: &Scenario) -> String {
    s.ops
        .iter()
        .find_map(|o| o.field(f).map(|spec| spec.label.to_string()))
        .unwrap_or_else(|| f.to_string())
}

/// A short name for an operation ([`Op::short_name`]): its label, else the kind's own
/// (`llama3-8b decode`), else `D=F=4096` style for matmul-like kinds (as in the chapter's
/// legend), else its description.
pub fn op_name(op: &Op) -> String {
    op.short_name()
}

/// A series' name: the operation's, with the chip's when there are several chips.
pub(super) fn series_name(s: &Scenario, op: &Op, chip: &str) -> String {
    if s.chips.len() > 1 {
        format!("{} · {chip}", op_name(op))
    } else {
        op_name(op)
    }
}

/// Format a quantity for people: SI prefixes and units. Past the core's largest prefix (E,
/// 1e18) the page goes on with Z, Y, R and Q rather than writing `1.31e23 B` (issue 38, point
/// 10), and a count that large is written as a power of ten.
pub fn pretty(v: f64, unit: Unit) -> String {
    const BEYOND: [(f64, &str); 4] = [(1e30, "Q"), (1e27, "R"), (1e24, "Y"), (1e21, "Z")];
    if v.is_finite() && v.abs() >= 1e21 && unit != Unit::Seconds {
        if unit == Unit::Count || unit.symbol().is_empty() {
            return sci(v);
        }
        if let Some((p, prefix)) = BEYOND.iter().find(|(p, _)| v.abs() >= *p) {
            let n = v / p;
            if n.abs() < 1000.0 {
                return format!(
                    "{} {prefix}{}",
                    roofline::units::format_sig(n, 3),
                    unit.symbol()
                );
            }
            return format!("{} {}", sci(v), unit.symbol());
        }
    }
    roofline::units::format_shown(v, unit)
}

/// A number as people write a large one: `5.64 × 10¹⁸` (3 significant digits).
pub fn sci(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return roofline::units::format_sig(v, 3);
    }
    let e = v.abs().log10().floor() as i32;
    let mut m = v / 10f64.powi(e);
    let mut e = e;
    // 9.996e5 rounds to 10.0 × 10⁵: carry.
    if roofline::units::format_sig(m.abs(), 3).starts_with("10") {
        m /= 10.0;
        e += 1;
    }
    let sup: String = e
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹']
                [d.to_digit(10).unwrap_or(0) as usize],
        })
        .collect();
    format!("{} × 10{sup}", roofline::units::format_sig(m, 3))
}

/// A whole number with its thousands grouped: `5,070`.
pub fn grouped(v: f64) -> String {
    let n = v.round().abs() as u64;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A number of days as people read it: `44.68 days`, `8,410 days`, and past a century in years
/// (`≈ 5,065 years`), never `1.85e6 days` (issue 38, point 10).
pub fn days_words(d: f64) -> String {
    if !d.is_finite() {
        return "—".into();
    }
    if d < 1000.0 {
        return format!("{} days", roofline::units::format_sig(d, 4));
    }
    let years = d / 365.25;
    if years < 100.0 {
        format!("{} days", grouped(d))
    } else if years < 1e7 {
        format!("≈ {} years", grouped(years))
    } else {
        format!("≈ {} years", sci(years))
    }
}

/// A parameter count: `70.6B`, `1.2T`, and past a thousand trillion a power of ten, never
/// `5.637e18` (issue 38, point 10).
pub fn params_words(v: f64) -> String {
    if v.is_finite() && v >= 1e15 {
        sci(v)
    } else {
        roofline::units::format_params(v)
    }
}

/// The dimension a field stands for, as the chapter writes it: `b` → `B`.
pub(super) fn dim_word(field: &str) -> String {
    match field {
        "b" => "B".into(),
        "d" => "D".into(),
        "f" => "F".into(),
        "n" => "N".into(),
        other => other.to_string(),
    }
}
