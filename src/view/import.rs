//! A pasted Hugging Face `config.json` into an operation that takes an architecture (`llm`
//! since issue 13, `train` since issue 22; [`Op::takes_arch`]): the core's reader
//! ([`roofline::inputs::Arch::from_hf_config`]) fills the operation's architecture fields
//! ([`Op::set_arch`]); the rest (batch, context, mesh, dtypes, ...) is kept. The link then
//! carries the architecture fields, never the JSON.

use roofline::inputs::Op;
use roofline::inputs::{Arch, ArchFields, ConfigReport};
use roofline::units::format_params;

/// What an import found, as the page says it under the text area.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The family the config was read as (`DeepSeek-V3`).
    pub family: String,
    /// One line: family, parameters total and active, and how many keys were not used.
    pub summary: String,
    /// The reader's notes (defaults taken, what is not modelled) and the unused keys.
    pub details: Vec<String>,
}

/// Reads `text` as a `config.json` and sets `op`'s architecture from it. A malformed JSON, an
/// unknown `model_type`, a missing key or an inconsistent architecture is an error in words
/// (the core's, which quotes user text clipped) and leaves `op` untouched.
pub fn import_hf_config(op: &mut Op, text: &str) -> Result<Imported, String> {
    if !op.takes_arch() {
        return Err("a config.json sets a transformer (llm) or training (train) operation".into());
    }
    if text.trim().is_empty() {
        return Err("paste a config.json (a JSON object with a model_type)".into());
    }
    let (arch, report): (Arch, ConfigReport) =
        Arch::from_hf_config(text).map_err(|e| e.to_string())?;
    let mut next = op.clone();
    next.set_arch(&arch).map_err(|e| e.to_string())?;
    // The architecture as the op holds it (its fields).
    let held = ArchFields::of(&arch).arch();
    let (total, active) = (held.params_total(), held.params_active());
    *op = next;
    let mut summary = format!(
        "{} ({}): {} parameters",
        report.family,
        report.model_type,
        format_params(total)
    );
    if active != total {
        summary.push_str(&format!(", {} active", format_params(active)));
    }
    if !report.unused_keys.is_empty() {
        summary.push_str(&format!(
            "; {} key{} not used",
            report.unused_keys.len(),
            if report.unused_keys.len() == 1 {
                ""
            } else {
                "s"
            }
        ));
    }
    let mut details = report.notes.clone();
    if !report.unused_keys.is_empty() {
        details.push(format!("not used: {}", report.unused_keys.join(", ")));
    }
    Ok(Imported {
        family: report.family,
        summary,
        details,
    })
}
