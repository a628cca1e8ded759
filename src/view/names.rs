//! What things are called on the page: operation kinds, operations, series, swept fields, and
//! quantities formatted for people.

use roofline::op::Op;
use roofline::scenario::Scenario;
use roofline::units::Unit;

/// Operation kinds offered in the forms: (kind id, label).
pub const OP_KINDS: &[(&str, &str)] = &OP_KIND_PAIRS;

const OP_KIND_PAIRS: [(&str, &str); roofline::OpKind::IDS.len()] = {
    let kinds = roofline::OpKind::KINDS;
    let mut out = [("", ""); roofline::OpKind::IDS.len()];
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

/// Format a quantity for people: SI prefixes and units.
pub fn pretty(v: f64, unit: Unit) -> String {
    roofline::units::format_shown(v, unit)
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
