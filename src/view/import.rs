//! A pasted Hugging Face `config.json` into an `llm` operation (issue 13): the core's reader
//! ([`roofline::arch::Arch::from_hf_config`]) fills the operation's architecture fields; batch,
//! context, phase, dtypes, parallelism and serving lengths are kept. The link then carries the
//! architecture fields, never the JSON.

use roofline::arch::{Arch, ConfigReport};
use roofline::op::{Op, OpKind};
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
    let OpKind::Llm(l) = &op.kind else {
        return Err("a config.json sets a transformer (llm) operation".into());
    };
    if text.trim().is_empty() {
        return Err("paste a config.json (a JSON object with a model_type)".into());
    }
    let (arch, report): (Arch, ConfigReport) =
        Arch::from_hf_config(text).map_err(|e| e.to_string())?;
    arch.validate().map_err(|e| e.to_string())?;
    let mut next = *l;
    next.set_arch(&arch);
    let (total, active) = (next.params(), next.active_params());
    op.kind = OpKind::Llm(next);
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
