//! How the forms arrange fields: which fold behind "more fields" (issue 17: empty chip fields,
//! tiles, the sharding fields of an unsharded matmul, an LLM's architecture when a preset gives
//! it), and whether the fold starts open.

use roofline::chip::{Chip, ChipField};
use roofline::op::Op;

/// Whether field `key` of an operation of kind `kind` belongs behind "more fields": fields most
/// people leave alone. Kinds not listed show every field.
pub fn is_advanced_op_field(kind: &str, key: &str) -> bool {
    match kind {
        "matmul" => matches!(
            key,
            "out" | "compute" | "split" | "link" | "topology" | "from" | "bm" | "bk" | "bn"
        ),
        // The architecture comes from the preset or a pasted config.json.
        "llm" => !matches!(
            key,
            "preset"
                | "b"
                | "ctx"
                | "phase"
                | "w"
                | "x"
                | "kv"
                | "tp"
                | "link"
                | "prompt"
                | "output"
        ),
        _ => false,
    }
}

/// Whether an operation's "more fields" should be open: when one of them is set away from its
/// kind's default (a link that sets tiles shows them), or a matmul is sharded (its split, link
/// and topology then matter).
pub fn op_more_open(op: &Op) -> bool {
    let Ok(default) = Op::default_for(op.kind_id()) else {
        return false;
    };
    if op.kind_id() == "matmul" && op.get_num("shards").is_some_and(|n| n > 1.0) {
        return true;
    }
    // An LLM preset sets its architecture: those are not the user's changes.
    if op.kind_id() == "llm"
        && op
            .get("preset")
            .is_some_and(|p| !p.is_empty() && p != "none")
    {
        return false;
    }
    op.fields()
        .iter()
        .filter(|f| is_advanced_op_field(op.kind_id(), f.key))
        .any(|f| op.get(f.key) != default.get(f.key))
}

/// Whether a chip field folds behind "more": a field the chip does not have (a TPU's fp8 or
/// PCIe), unless every chip must have it.
pub fn is_folded_chip_field(chip: &Chip, f: ChipField) -> bool {
    f != ChipField::Name && !f.is_required() && chip.get(f).is_none()
}
