//! What a chip field's hover says about its number (issue 23): the source note, how strong the
//! source is (its evidence tier), and where sources disagree, the range they span and the value
//! used. Pure, tested natively; `app::chips` shows it as the field's title and marks the field.
//!
//! The page's wasm has no source notes (issue 27: the catalog's source notes load after the
//! first plot): the build writes them beside the page ([`SourceNotes::catalog_json`]) and the
//! app loads them once it answers input. Until then a note says it is loading; where the core
//! has the notes (native builds, the tests) they are used as they are.

use std::collections::HashMap;
use std::sync::Arc;

use roofline::inputs::{Chip, ChipField};
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

/// The catalog's source notes where the binary has none: loading, loaded, or why not.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SourceNotes {
    /// Not loaded yet.
    #[default]
    Loading,
    /// Loaded: `"<preset>/<field>"` → note, and → the other sources of a disputed value.
    Loaded(Arc<NotesTable>),
    /// The file could not be loaded or read: why.
    Failed(String),
}

/// The notes of the file, by `"<preset>/<field>"`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NotesTable {
    notes: HashMap<String, String>,
    others: HashMap<String, String>,
}

impl SourceNotes {
    /// The catalog's notes as the build writes them beside the page:
    /// `{"notes": {"h100/bf16": "..."}, "others": {"tpu-v5e/hbm_cap": "..."}}`. Empty maps in a
    /// build without the notes.
    pub fn catalog_json() -> String {
        use std::collections::BTreeMap;
        let mut notes = BTreeMap::new();
        let mut others = BTreeMap::new();
        for n in roofline::inputs::source_notes() {
            let key = format!("{}/{}", n.preset, n.field.as_str());
            if let Some(o) = n.others {
                others.insert(key.clone(), o);
            }
            notes.insert(key, n.note);
        }
        let all = BTreeMap::from([("notes", notes), ("others", others)]);
        crate::json::to_string_pretty(&all).expect("strings")
    }

    /// Reads [`SourceNotes::catalog_json`]'s text.
    pub fn from_json(text: &str) -> SourceNotes {
        match NotesTable::from_json(text) {
            Ok(t) => SourceNotes::Loaded(Arc::new(t)),
            Err(e) => SourceNotes::Failed(e),
        }
    }

    /// `given` (what the chip says) where it has a note; else the loaded note of `key`
    /// (`"<preset>/<field>"`; `others`: the other sources of a disputed value), or what stands in
    /// its place.
    pub fn fill(&self, given: &str, key: &str, others: bool) -> String {
        if !given.is_empty() {
            return given.to_string();
        }
        match self {
            SourceNotes::Loading => "source note loading…".into(),
            SourceNotes::Failed(why) => format!("source note not loaded ({why})"),
            SourceNotes::Loaded(t) => {
                let map = if others { &t.others } else { &t.notes };
                map.get(key)
                    .cloned()
                    .unwrap_or_else(|| "no source note in the loaded file".into())
            }
        }
    }
}

impl NotesTable {
    fn from_json(text: &str) -> Result<NotesTable, String> {
        let v = roofline::inputs::json::parse(text)
            .map_err(|e| format!("the source notes are not JSON: {e}"))?;
        let map = |k: &str| -> Result<HashMap<String, String>, String> {
            v.get(k)
                .and_then(|m| m.as_object())
                .ok_or_else(|| format!("the source notes have no \"{k}\" object"))?
                .iter()
                .map(|(key, n)| {
                    n.as_str()
                        .map(|n| (key.clone(), n.to_string()))
                        .ok_or_else(|| format!("the source note of {key} is not text"))
                })
                .collect()
        };
        Ok(NotesTable {
            notes: map("notes")?,
            others: map("others")?,
        })
    }
}

/// The note of field `f` of `ch`, with the catalog's `notes` where the binary has none.
pub fn chip_field_note(ch: &Chip, f: ChipField, notes: &SourceNotes) -> FieldNote {
    let key = format!("{}/{}", ch.preset_id.as_deref().unwrap_or(""), f.as_str());
    let source = notes.fill(ch.source(f), &key, false);
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
    let mut text = format!("{} — {}: {source}", f.label(), e.tier.label());
    if let (Some((lo, hi, others)), Some(v)) = (e.range, ch.get(f)) {
        let others = notes.fill(others, &key, true);
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
