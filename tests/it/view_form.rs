//! Native tests of how the forms arrange fields (issue 17): which fold behind "more fields" and
//! when the fold opens, and the sliders' scales and keyboard steps.

use roofline_lab::view;

/// The spec of field `key` of kind `kind`.
fn spec(kind: &str, key: &str) -> &'static roofline::field::FieldSpec {
    roofline::op::Op::default_for(kind)
        .unwrap()
        .field(key)
        .unwrap()
}

/// Fields that fold behind "more fields": a TPU's missing fp8 and PCIe figures, a matmul's tiles
/// and sharding fields while it is not sharded, an LLM's architecture under a preset. The fold
/// opens when a link sets one of them (tiles), or when the matmul is sharded.
#[test]
fn which_fields_fold_and_when_the_fold_opens() {
    use roofline::chip::ChipField;
    let v5e = roofline::chip::preset("tpu-v5e").unwrap();
    assert!(view::is_folded_chip_field(&v5e, ChipField::Fp8));
    assert!(view::is_folded_chip_field(&v5e, ChipField::Pcie));
    assert!(!view::is_folded_chip_field(&v5e, ChipField::Bf16));
    assert!(!view::is_folded_chip_field(&v5e, ChipField::Hbm));
    assert!(!view::is_folded_chip_field(&v5e, ChipField::Name));
    let folds = |kind: &str, key: &str| spec(kind, key).folds;
    assert!(folds("matmul", "bm"));
    assert!(folds("matmul", "topology"));
    assert!(!folds("matmul", "d"));
    assert!(!folds("matmul", "shards"));
    assert!(folds("llm", "experts"));
    assert!(!folds("llm", "b"));
    assert!(!folds("collective", "bytes"));
    let op = |q: &str| roofline::url::decode(q).scenario.ops[0].clone();
    assert!(!view::op_more_open(&op("?op=matmul:d=8192")));
    assert!(view::op_more_open(&op("?op=matmul:bm=256")));
    assert!(view::op_more_open(&op("?op=matmul:shards=4")));
    assert!(!view::op_more_open(&op("?op=llm:preset=llama3-70b")));
}

/// Sliders: sizes snap to powers of two on a log scale, Page Up/Down double and halve, arrows
/// step to the next power of two; peaks spread over decades with three significant digits.
#[test]
fn sliders_map_positions_to_values_people_explore() {
    use view::SLIDER_STEPS;
    let d = view::op_slider(spec("matmul", "d")).unwrap();
    assert_eq!(d.value_at(0.0), 1.0);
    assert_eq!(d.value_at(SLIDER_STEPS), 1_048_576.0);
    // Position 600 of 1000 over 2^0..2^20 is 2^12 = 4096.
    assert_eq!(d.value_at(600.0), 4096.0);
    assert_eq!(d.position_of(4096.0), 600.0);
    assert_eq!(d.step(4096.0, true, false), 8192.0);
    assert_eq!(d.step(4096.0, false, false), 2048.0);
    assert_eq!(d.step(3000.0, true, false), 4096.0);
    assert_eq!(d.step(3000.0, false, false), 2048.0);
    assert_eq!(d.step(3000.0, true, true), 6000.0);
    assert_eq!(d.step(1_048_576.0, true, true), 1_048_576.0);
    assert!(view::op_slider(spec("matmul", "x")).is_none());
    // Each field's slider is its own: a dot product's or an elementwise op's vector length N
    // spans its whole range (1 to 1e15), where a collective's chip count n stops at 1,024.
    for kind in ["dot", "elementwise"] {
        let n = view::op_slider(spec(kind, "n")).unwrap();
        let field = spec(kind, "n");
        assert_eq!((n.min, n.max), (field.min, field.max), "{kind}");
        assert_eq!(n.value_at(SLIDER_STEPS), 1e15, "{kind}");
        assert_eq!(n.value_at(0.0), 1.0, "{kind}");
        // 4096 = 2^12 sits at 12/log2(1e15) of the way: position round(1000·12/49.83) = 241.
        assert_eq!(n.position_of(4096.0), 241.0, "{kind}");
    }
    assert_eq!(
        view::op_slider(spec("collective", "n")).unwrap().max,
        1024.0
    );
    let peak = view::chip_slider(roofline::chip::ChipField::Bf16).unwrap();
    // Halfway across 1e12..1e16 (log) is 1e14.
    assert_eq!(peak.value_at(500.0), 1e14);
    let v = peak.value_at(573.0);
    assert_eq!(
        v,
        (v / 1e12).round() * 1e12,
        "three significant digits: {v}"
    );
    assert_eq!(peak.step(1.97e14, true, true), 3.94e14);
    assert!(view::chip_slider(roofline::chip::ChipField::HbmCap).is_none());
}

/// A chip field's note (issue 23): its tier and source, and where sources disagree, the range
/// and the value used, with the field marked. The v5e's capacity is the book's "16GiB" with its
/// chip table's "16GB" beside it; its bf16 peak is the book's alone; an edited value is the
/// user's and has no tier.
#[test]
fn chip_field_notes_carry_their_evidence() {
    use roofline::chip::ChipField;
    let v5e = roofline::chip::preset("tpu-v5e").unwrap();
    let cap = view::chip_field_note(&v5e, ChipField::HbmCap, &view::SourceNotes::Loading);
    assert_eq!(cap.tier, Some("reference_text"));
    assert!(cap.disputed);
    assert!(
        cap.text.contains("TPU v5e has 16GiB of HBM"),
        "{}",
        cap.text
    );
    assert!(
        cap.text
            .contains("Sources disagree: 16 GB to 16 GiB (scaling book, chip table"),
        "{}",
        cap.text
    );
    assert!(
        cap.text.ends_with("the value used is 16 GiB."),
        "{}",
        cap.text
    );
    let bf16 = view::chip_field_note(&v5e, ChipField::Bf16, &view::SourceNotes::Loading);
    assert_eq!(bf16.tier, Some("reference_text"));
    assert!(!bf16.disputed);
    assert!(bf16.text.contains("1.97e14"), "{}", bf16.text);
    let mut edited = v5e.clone();
    edited.set(ChipField::HbmCap, 16e9).unwrap();
    let e = view::chip_field_note(&edited, ChipField::HbmCap, &view::SourceNotes::Loading);
    assert_eq!((e.tier, e.disputed), (None, false));
    assert!(e.text.contains("edited by the user"), "{}", e.text);
}

/// The catalog's source notes as the page loads them after its first plot (issue 27): the
/// file the build writes holds every preset field's note (and the other sources of a disputed
/// value) and reads back to the same text the core gives; a field whose note is not in the
/// binary says it is loading, then shows the loaded note, or why the file could not be read.
#[test]
fn source_notes_load_from_the_file_the_build_writes() {
    use roofline::chip::{source_notes, ChipField};
    let all = source_notes();
    // 21 presets × their fields, less the name.
    assert!(all.len() > 21 * 20, "{}", all.len());
    let file = view::SourceNotes::catalog_json();
    let loaded = view::SourceNotes::from_json(&file);
    assert!(matches!(loaded, view::SourceNotes::Loaded(_)), "{loaded:?}");
    let v5e = roofline::chip::preset("tpu-v5e").unwrap();
    let cap = v5e.evidence(ChipField::HbmCap).unwrap();
    // What the core says, and what the file gives where the binary has no note.
    assert_eq!(
        loaded.fill("", "tpu-v5e/hbm_cap", false),
        v5e.source(ChipField::HbmCap)
    );
    assert_eq!(
        loaded.fill("", "tpu-v5e/hbm_cap", true),
        cap.range.unwrap().2
    );
    assert!(loaded
        .fill("", "tpu-v5e/hbm_cap", false)
        .contains("TPU v5e has 16GiB of HBM"));
    for n in &all {
        let key = format!("{}/{}", n.preset, n.field.as_str());
        assert_eq!(loaded.fill("", &key, false), n.note, "{key}");
    }
    // A note the binary has is used as it is.
    assert_eq!(
        loaded.fill("edited by the user", "h100/bf16", false),
        "edited by the user"
    );
    assert_eq!(
        view::SourceNotes::Loading.fill("", "h100/bf16", false),
        "source note loading…"
    );
    assert_eq!(
        loaded.fill("", "h100/no-such-field", false),
        "no source note in the loaded file"
    );
    for (bad, want) in [
        ("", "the source notes are not JSON"),
        ("{\"notes\": {}}", "no \"others\" object"),
        (
            "{\"notes\": {\"h100/bf16\": 1}, \"others\": {}}",
            "h100/bf16 is not text",
        ),
    ] {
        match view::SourceNotes::from_json(bad) {
            view::SourceNotes::Failed(e) => assert!(e.contains(want), "{bad:?}: {e}"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    let failed = view::SourceNotes::Failed("source-notes-x.json: HTTP 404".into());
    assert_eq!(
        failed.fill("", "h100/bf16", false),
        "source note not loaded (source-notes-x.json: HTTP 404)"
    );
}

/// Choosing a swept field starts from that field's own scale (issue 24, point 4): a collective's
/// array size over its slider's 1 B to 1 TB (not the batch's 1..511 left over), a batch over
/// 1 to 2^20, a dot product's N over the top 12 decades of its 1..1e15, and a field without a
/// slider two decades either side of its value (custom FLOPs 1e12: 1e10 to 1e14).
#[test]
fn a_chosen_sweep_field_starts_from_its_own_scale() {
    assert_eq!(
        view::sweep_range_for(spec("collective", "bytes"), Some(1e9)),
        (1.0, 1e12)
    );
    assert_eq!(
        view::sweep_range_for(spec("matmul", "b"), Some(1.0)),
        (1.0, 1_048_576.0)
    );
    assert_eq!(
        view::sweep_range_for(spec("dot", "n"), Some(4096.0)),
        (1e3, 1e15)
    );
    assert_eq!(
        view::sweep_range_for(spec("custom", "flops"), Some(1e12)),
        (1e10, 1e14)
    );
    // A value of 0 (no FLOPs): a range from 1 up.
    assert_eq!(
        view::sweep_range_for(spec("custom", "flops"), Some(0.0)),
        (1.0, 1000.0)
    );
}

/// Issue 24, point 8: the training card folds what most people leave alone (the architecture a
/// preset sets, optimizer, schedule, dtypes, torus axes, price) behind "more fields", which
/// opens for the user's own choices, not for what a preset sets.
#[test]
fn the_training_card_folds_what_a_preset_or_default_sets() {
    let op = |q: &str| roofline::url::decode(q).scenario.ops[0].clone();
    let t = roofline::op::Op::default_for("train").unwrap();
    let shown: Vec<&str> = t
        .fields()
        .iter()
        .filter(|f| !f.folds)
        .map(|f| f.key)
        .collect();
    assert_eq!(
        shown,
        [
            "preset", "batch", "seq", "dp", "fsdp", "tp", "pp", "mb", "ep", "remat", "tokens",
            "mfu"
        ]
    );
    assert!(!view::op_more_open(&op("?op=train")));
    assert!(!view::op_more_open(&op("?op=train:preset=mixtral-8x7b")));
    assert!(view::op_more_open(&op("?op=train:opt=sgd")));
    assert!(view::op_more_open(&op(
        "?op=train:preset=mixtral-8x7b,layers=16"
    )));
}
