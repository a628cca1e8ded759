//! What a chip field's hover says about its number (issue 23): the source note, how strong the
//! source is (its evidence tier), and where sources disagree, the range they span and the value
//! used. Pure, tested natively; `app::chips` shows it as the field's title and marks the field.

use roofline::chip::{Chip, ChipField};
use roofline::units::format_field;

use super::names::pretty;

/// The note of one chip field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldNote {
    /// The hover text: label, tier, source and any disagreement.
    pub text: String,
    /// The evidence tier's id (`vendor_datasheet`), `None` for a value the preset does not
    /// back (edited, custom chip, or a field the preset leaves empty).
    pub tier: Option<&'static str>,
    /// Sources disagree on the preset's value: the field is marked.
    pub disputed: bool,
}

/// The note of field `f` of `ch`.
pub fn chip_field_note(ch: &Chip, f: ChipField) -> FieldNote {
    let source = ch.source(f);
    let Some(e) = ch.evidence(f) else {
        return FieldNote {
            text: format!("{} — {source}", f.label()),
            tier: None,
            disputed: false,
        };
    };
    let shown = |v: f64| match f.unit() {
        Some(u) if f != ChipField::HbmCap && f != ChipField::OnchipCap => pretty(v, u),
        Some(u) => format_field(v, u),
        None => roofline::units::format_exact(v),
    };
    let mut text = format!("{} — {}: {}", f.label(), e.tier.label(), e.source);
    if let (Some((lo, hi, others)), Some(v)) = (e.range, ch.get(f)) {
        text.push_str(&format!(
            ". Sources disagree: {} to {} ({others}); the value used is {}.",
            shown(lo),
            shown(hi),
            shown(v)
        ));
    }
    FieldNote {
        text,
        tier: Some(e.tier.as_str()),
        disputed: e.range.is_some(),
    }
}
