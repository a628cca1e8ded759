//! Issue 13 in the view: an `llm` op's serving row (its `data-metric` cells), a pasted
//! `config.json` into the op, and the serving frontier chart (`plot=frontier`), against the
//! book's worked numbers and hand calculations.
#![cfg(not(target_arch = "wasm32"))]

use crate::view_support;

use roofline::op::{Op, OpKind};
use roofline::scenario::{PlotKind, Scenario};
use roofline_lab::view::{self, ChartModel};
use view_support::{cell, close, num};

const MIXTRAL: &str = include_str!("../fixtures/mixtral-8x7b.config.json");
const DEEPSEEK_V3: &str = include_str!("../fixtures/deepseek-v3.config.json");

/// applied-inference.md, "Serving LLaMA 3-70B": int8 weights, activations and KV cache on a
/// TPU v5e 4x2 (8 chips), 8k context (prompt 7680 + 512 generated), at the largest batch that
/// fits (the book's 43 from rounded 70 GB and 162 kB; 42 exactly, see tests/serving.rs). The
/// chapter reads the v5e's HBM as 16 GB: `hbm_cap=16e9` keeps its numbers, where the preset's
/// 16 GiB (tpus.md: "TPU v5e has 16GiB of HBM", issue 23) holds 49.
const BOOK_70B: &str =
    "chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,prompt=7680,output=512,b=42";

fn scenario(q: &str) -> Scenario {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    d.scenario
}

#[test]
fn the_serving_row_has_the_issue_metrics_with_the_book_numbers() {
    let s = scenario(BOOK_70B);
    let rows = view::result_rows(&s);
    assert_eq!(rows.len(), 1, "the serving row hangs under the model's row");
    let row = &rows[0];
    let serving = row.serving.as_deref().expect("an llm op has a serving row");
    assert_eq!(serving.op_key, "0.serving");
    assert_eq!(serving.class, "serving-row");
    let metrics: Vec<&str> = serving.cells.iter().map(|c| c.metric).collect();
    for m in [
        "params",
        "active_params",
        "ttft",
        "tpot",
        "tokens_per_s",
        "tokens_per_s_chip",
        "requests_per_s",
        "cost_per_mtok",
        "joules_per_token",
        "max_batch",
        "min_chips",
    ] {
        assert!(metrics.contains(&m), "{m} missing from {metrics:?}");
    }
    // "num KV caches @ 8k: 43" from 58 GB / (162 kB · 8192); exactly 42 (see tests/serving.rs).
    assert_eq!(num(serving, "max_batch"), 42.0);
    // "int8 | 70GB | ... | 4x2 = 8 chips": the smallest slice that holds it (and these 42).
    assert_eq!(num(serving, "min_chips"), 8.0);
    // "this is just 16GB / 8.2e11 = 19ms / step": at the largest batch a step reads a full HBM.
    let tpot = num(serving, "tpot");
    close(tpot, 16e9 / 8.2e11, 0.05, "tpot");
    // Serving tokens/s is B / tpot of the group, per chip over the 8 chips; 0.55 QPS per chip.
    close(num(serving, "tokens_per_s"), 42.0 / tpot, 1e-12, "B / tpot");
    close(
        num(serving, "tokens_per_s_chip"),
        42.0 / tpot / 8.0,
        1e-12,
        "per chip",
    );
    close(
        num(serving, "requests_per_s") / 8.0,
        0.55,
        0.05,
        "QPS per chip",
    );
    // $1.2 per v5e-hour: 1.2 · 8 / 3600 USD/s over 42 / 0.0195 tokens/s ≈ $1.24 per Mtok.
    close(
        num(serving, "cost_per_mtok"),
        1.2 * 8.0 / 3600.0 / (42.0 / 0.0195) * 1e6,
        0.05,
        "USD per Mtok",
    );
    // No power figure for the v5e: said, not guessed.
    assert_eq!(cell(serving, "joules_per_token").value, "none");
    // LLaMA 3-70B: 70,553,706,496 parameters, dense (active = total).
    assert_eq!(num(serving, "params"), 70_553_706_496.0);
    assert_eq!(num(serving, "active_params"), 70_553_706_496.0);
    // The model's row keeps its own tokens_per_s: tokens of one step (decode at the op's ctx
    // 2048, not the serving mean context 7936) per second of that step.
    let step = num(row, "t_lower");
    close(
        num(row, "tokens_per_s"),
        42.0 / step,
        1e-12,
        "step tokens/s",
    );
    assert!(step < tpot, "a step at ctx 2048 reads less KV than at 7936");
}

#[test]
fn only_llm_ops_get_a_serving_row_and_a_batch_that_does_not_fit_is_marked() {
    let rows = view::result_rows(&Scenario::default());
    assert!(rows.iter().all(|r| r.serving.is_none()));
    let s = scenario(&BOOK_70B.replace("b=42", "b=43"));
    let rows = view::result_rows(&s);
    let serving = rows[0].serving.as_deref().unwrap();
    let fit = cell(serving, "max_batch");
    assert_eq!(fit.value, "42");
    assert_eq!(fit.class, "bound-memory");
    // A capacity, not a second verdict (issue 38, point 4): marked, and said on hover.
    assert!(!fit.text.contains("does not fit"), "{}", fit.text);
    assert!(
        fit.title.ends_with("B = 43 does not fit at P + G"),
        "{}",
        fit.title
    );
}

fn llm() -> Op {
    Op::default_for("llm").unwrap()
}

#[test]
fn a_pasted_mixtral_config_sets_the_architecture_and_its_parameter_counts() {
    let mut op = llm();
    op.set("b", "32").unwrap();
    let got = view::import_hf_config(&mut op, MIXTRAL).unwrap();
    assert_eq!(got.family, "Mixtral");
    // By hand (config numbers): per layer attention 2·4096² + 2·4096·1024 = 41,943,040; one
    // expert 3·4096·14336 = 176,160,768; router 4096·8; two norms 2·4096. Total: 32 layers ×
    // (41,943,040 + 8 experts + 32,768 + 8,192) + embeddings 2·32000·4096 + final norm.
    let expert = 3.0 * 4096.0 * 14336.0;
    let layer = 41_943_040.0 + 32_768.0 + 8_192.0;
    let outside = 2.0 * 32000.0 * 4096.0 + 4096.0;
    let OpKind::Llm(l) = &op.kind else { panic!() };
    assert_eq!(l.params(), 32.0 * (layer + 8.0 * expert) + outside);
    assert_eq!(l.params(), 46_702_792_704.0);
    // Active: two experts per token (Mistral AI: "12.9B active parameters").
    assert_eq!(l.active_params(), 32.0 * (layer + 2.0 * expert) + outside);
    assert_eq!(l.active_params(), 12_879_925_248.0);
    assert_eq!(op.get("experts").unwrap(), "8");
    assert_eq!(op.get("top_k").unwrap(), "2");
    assert_eq!(op.get("preset").unwrap(), "mixtral-8x7b");
    // What is not the architecture stays: the batch.
    assert_eq!(op.get("b").unwrap(), "32");
    assert_eq!(
        got.summary,
        "Mixtral (mixtral): 46.7B parameters, 12.88B active; 12 keys not used"
    );
    assert!(
        got.details.iter().any(|d| d.contains("rope_theta")),
        "{:?}",
        got.details
    );
}

#[test]
fn a_pasted_deepseek_v3_config_has_671b_parameters_37b_active() {
    let mut op = llm();
    view::import_hf_config(&mut op, DEEPSEEK_V3).unwrap();
    // transformers.md question 7: "Given that it has 37B activated parameters"; DeepSeek-V3's
    // 671B total. Exactly, by hand in crates/roofline/tests/arch.rs (deepseek_v3_by_hand).
    let s = Scenario {
        ops: vec![op.clone()],
        chips: vec![roofline::preset("h200").unwrap()],
        ..Scenario::default()
    };
    let rows = view::result_rows(&s);
    let serving = rows[0].serving.as_deref().unwrap();
    assert_eq!(num(serving, "params"), 671_026_419_200.0);
    assert_eq!(num(serving, "active_params"), 37_552_297_472.0);
    assert_eq!(op.get("kv_rank").unwrap(), "512");
    assert_eq!(op.get("dense_layers").unwrap(), "3");
    // 671B in bf16 is 1.34 TB: it does not fit on one H200 (141 GB), so no batch fits.
    assert_eq!(num(serving, "max_batch"), 0.0);
}

/// Issue 22: the same import sets a training step's architecture (the op takes the `llm` op's
/// architecture fields), keeping its mesh and batch; the link then carries the fields. The
/// Mixtral config gives the zoo's preset exactly, with its 8 experts, top-2 (46.7B parameters,
/// 12.88B active, as for `llm` above); the step's FLOPs follow the active parameters.
#[test]
fn a_pasted_config_sets_a_training_steps_architecture() {
    let mut op = Op::default_for("train").unwrap();
    op.set("batch", "1M").unwrap();
    op.set("ep", "8").unwrap();
    let got = view::import_hf_config(&mut op, MIXTRAL).unwrap();
    assert_eq!(
        got.summary,
        "Mixtral (mixtral): 46.7B parameters, 12.88B active; 12 keys not used"
    );
    assert_eq!(op.get("preset").unwrap(), "mixtral-8x7b");
    assert_eq!(op.get("experts").unwrap(), "8");
    assert_eq!(op.get("top_k").unwrap(), "2");
    assert_eq!(op.get("batch").unwrap(), "1e6");
    assert_eq!(op.get("ep").unwrap(), "8");
    let OpKind::Train(t) = &op.kind else { panic!() };
    assert_eq!(t.config.arch.params_total(), 46_702_792_704.0);
    assert_eq!(t.config.arch.params_active(), 12_879_925_248.0);
    // The link says the architecture in fields: it decodes to the same op.
    let s = Scenario {
        ops: vec![op.clone()],
        ..Scenario::default()
    };
    let back = roofline::url::decode(&roofline::url::encode(&s));
    assert!(back.notices.is_empty(), "{:?}", back.notices);
    assert_eq!(back.scenario.ops[0], op);
    // DeepSeek-V3 (MLA, a shared expert, 3 dense layers) is not a preset of the fields alone
    // here; its numbers arrive whole.
    let mut d = Op::default_for("train").unwrap();
    view::import_hf_config(&mut d, DEEPSEEK_V3).unwrap();
    assert_eq!(d.get("kv_rank").unwrap(), "512");
    assert_eq!(d.get("dense_layers").unwrap(), "3");
    assert_eq!(d.get("experts").unwrap(), "256");
    // A refused config changes nothing.
    let before = op.clone();
    assert!(view::import_hf_config(&mut op, "{\"model_type\": \"mixtral\"}").is_err());
    assert_eq!(op, before);
}

#[test]
fn bad_configs_are_refused_in_words_and_change_nothing() {
    let before = llm();
    for (text, says) in [
        (
            "{\"model_type\": \"mixtral\", \"hidden_size\": 4096,",
            "config.json",
        ),
        (
            "{\"model_type\": \"<b>gpt9</b>\"}",
            "unknown model_type `<b>gpt9</b>`",
        ),
        (
            "{\"model_type\": \"mixtral\"}",
            "missing required key `hidden_size`",
        ),
        ("[1, 2]", "expected a JSON object"),
        ("   ", "paste a config.json"),
    ] {
        let mut op = before.clone();
        let e = view::import_hf_config(&mut op, text).unwrap_err();
        assert!(e.contains(says), "{text:?}: {e}");
        assert_eq!(op, before, "{text:?} changed the op");
    }
    let mut m = Op::default_for("matmul").unwrap();
    assert!(view::import_hf_config(&mut m, MIXTRAL).is_err());
}

#[test]
fn the_frontier_chart_follows_the_serving_figures_and_marks_the_memory_end() {
    let mut s = scenario(&format!("{BOOK_70B}&plot=frontier"));
    assert_eq!(s.plot, PlotKind::Frontier);
    assert!(!s.plot.shows_sweep() && !s.plot.shows_roofline());
    let chart = view::frontier_chart(&s);
    assert_eq!(chart.curves.len(), 1);
    let c = &chart.curves[0];
    assert_eq!(c.max_batch, 42.0);
    // Powers of two up to twice the largest batch that fits (84), and 42 itself.
    let batches: Vec<f64> = c.points.iter().map(|p| p.batch).collect();
    assert_eq!(batches, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 42.0, 64.0]);
    assert!(c.points.iter().all(|p| p.fits == (p.batch <= 42.0)));
    // The point at B = 42 is the serving row's (tpot, tokens/s per chip).
    let serving = view::result_rows(&s)[0].serving.clone().unwrap();
    let p42 = c.points.iter().find(|p| p.batch == 42.0).unwrap();
    assert_eq!(p42.tpot, num(&serving, "tpot"));
    assert_eq!(p42.tokens_per_s_chip, num(&serving, "tokens_per_s_chip"));
    // Throughput grows with the batch, and so does the latency (the frontier's trade-off).
    for w in c.points.windows(2) {
        assert!(w[1].tokens_per_s_chip > w[0].tokens_per_s_chip);
        assert!(w[1].tpot >= w[0].tpot);
    }
    let sweep = chart.to_sweep();
    assert!(sweep.log_x && sweep.log_y);
    assert_eq!(sweep.series.len(), 2, "fits, and the out-of-memory tail");
    assert!(sweep.series[1].label.ends_with("(out of memory)"));
    // Drawn faint and dotted, all of it (issue 24, point 2); the part that fits as before.
    assert_eq!(sweep.series[1].oom_from, Some(f64::NEG_INFINITY));
    assert_eq!(sweep.series[0].oom_from, None);
    assert_eq!(sweep.crossovers[0].label, "max B 42");
    // The chart in front: table, sentence and SVG export.
    let model = ChartModel::Frontier(chart);
    assert_eq!(model.kind(), "frontier");
    let (head, rows) = model.table();
    assert_eq!(head.len(), 5);
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[7][4], "out of memory");
    let svg = model.to_svg(false, 960, 540).unwrap();
    assert!(svg.contains("Serving frontier") && svg.contains("max B 42"));
    // The link keeps the plot.
    let link = roofline::url::encode(&s);
    assert!(link.ends_with("&plot=frontier"), "{link}");
    s.plot = PlotKind::Both;
    assert!(!roofline::url::encode(&s).contains("frontier"));
}

#[test]
fn a_frontier_without_llm_ops_is_empty_and_says_so() {
    let s = scenario("chip=h100&op=matmul&plot=frontier");
    let chart = view::frontier_chart(&s);
    assert!(chart.curves.is_empty());
    assert!(chart.title.contains("add a transformer"));
    let svg = ChartModel::Frontier(chart).to_svg(true, 640, 400).unwrap();
    assert!(svg.contains("Nothing to plot"));
}

/// Issue 24, point 2: what does not fit gets no headline figure. LLaMA 3-70B in bf16 on one
/// H100: 2 bytes · 70.55e9 parameters = 141 GB of weights alone against 80 GB, so the key line
/// says it does not fit instead of a throughput, and the serving row keeps its time bounds but
/// shows `none`, with the reason, for tokens/s, cost and the like. On a B200 (192 GB) at B = 64
/// the op row fits at its ctx 2048 while B = 64 does not at P + G = 2560: one verdict, the
/// row's, at the context it states; the serving row's largest batch states its own and marks B
/// above it, never a ✓ beside "does not fit".
#[test]
fn what_does_not_fit_gets_no_headline_figure() {
    let s = scenario("chip=h100&op=llm:preset=llama3-70b,b=1,ctx=2048");
    let line = view::key_line(&s);
    assert!(line.contains("does not fit in HBM at ctx 2048 ("), "{line}");
    assert!(!line.contains("tokens/s"), "{line}");
    let rows = view::result_rows(&s);
    let serving = rows[0].serving.as_deref().unwrap();
    for m in [
        "tokens_per_s",
        "tokens_per_s_chip",
        "requests_per_s",
        "prefill_decode_ratio",
    ] {
        let c = cell(serving, m);
        assert_eq!(c.value, "none", "{m}");
        assert!(
            c.title
                .starts_with("does not fit: B = 1 sequences at P + G = 2560"),
            "{m}: {}",
            c.title
        );
    }
    assert!(num(serving, "tpot") > 0.0, "the time bound stays");
    let b200 = scenario("chip=b200&op=llm:preset=llama3-70b,b=64,ctx=2048");
    let rows = view::result_rows(&b200);
    let fits = cell(&rows[0], "fits");
    assert_eq!(fits.value, "true");
    assert!(
        fits.text.starts_with('✓') && fits.text.ends_with("at ctx 2048"),
        "{}",
        fits.text
    );
    let serving = rows[0].serving.as_deref().unwrap();
    let max_b = cell(serving, "max_batch");
    assert!(max_b.text.ends_with("at P + G = 2560"), "{}", max_b.text);
    assert!(
        max_b.title.ends_with("B = 64 does not fit at P + G"),
        "{}",
        max_b.title
    );
    assert_eq!(max_b.class, "bound-memory");
    assert!(!max_b.text.contains('✓'));
    assert_eq!(cell(serving, "tokens_per_s").value, "none");
}

/// A serving row says what to expect (issue 25): TPOT and TTFT times the set's decode and
/// prefill ratios on the chip's generation (Llama 3.1 8B on an H100: Hopper), tokens/s from the
/// expected TPOT; on an L4 (no generation in the set) none, with the reason.
#[test]
fn a_serving_row_carries_expected_tpot_ttft_and_tokens() {
    let s = scenario(
        "chip=h100&op=llm:preset=llama3.1-8b,b=64,prompt=128,output=2048,w=fp8,x=fp8,kv=fp8",
    );
    let rows = view::result_rows(&s);
    let serving = rows[0].serving.as_deref().unwrap();
    let tpot = num(serving, "tpot");
    let e = num(serving, "tpot_expected");
    let mut decode = s.ops[0].clone();
    decode.set("phase", "decode").unwrap();
    let ttft = num(serving, "ttft");
    let (_, f) =
        roofline::validation::serving_features(&s.ops[0], &s.chips[0], ttft, tpot).unwrap();
    let want = roofline::validation::expectation_with(&decode, &s.chips[0], f, tpot).unwrap();
    assert_eq!(e, want.t);
    // The decode step at B = 64 and P + G/2 = 1152: its split is the decode step's own, by hand
    // the same analysis at ctx = 1152.
    let step = scenario(
        "chip=h100&op=llm:preset=llama3.1-8b,b=64,ctx=1152,phase=decode,w=fp8,x=fp8,kv=fp8",
    );
    let a = roofline::analysis::analyze(&step.ops[0], &step.chips[0], &step.options).unwrap();
    assert_eq!(f.split, roofline::validation::Split::of(&a));
    assert_eq!(want.r, want.model.ratio(&f));
    close(
        num(serving, "tokens_per_s_expected"),
        64.0 / e,
        1e-12,
        "B / expected TPOT",
    );
    assert!(num(serving, "ttft_expected") > num(serving, "ttft"));
    let l4 = scenario("chip=l4&op=llm:preset=llama3.1-8b,b=1");
    let rows = view::result_rows(&l4);
    let serving = rows[0].serving.as_deref().unwrap();
    assert_eq!(cell(serving, "tpot_expected").value, "none");
    assert!(cell(serving, "tpot_expected")
        .title
        .contains("no measurements on L4"));
}

/// The profile crosses from the importer's worker to the page as JSON (issue 27): every
/// format's profile reads back equal, every number bit for bit, absent values absent; a
/// malformed answer gets a message, never a panic.
#[test]
fn an_imported_profile_crosses_the_worker_boundary_unchanged() {
    use roofline::profile::{Format, Importer};
    use roofline_lab::profile_json::{from_json, to_json};
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/roofline/tests/fixtures/profiles"
    );
    let mut formats = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let sample = roofline_lab::view::measured::SAMPLE_PROFILE
        .as_bytes()
        .to_vec();
    for bytes in files
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .chain([sample])
    {
        let mut imp = Importer::new();
        imp.feed(&bytes).unwrap();
        let p = imp.finish().unwrap();
        assert!(!p.kernels.is_empty());
        let back = from_json(&to_json(&p)).unwrap();
        assert_eq!(back, p);
        // Read in slices of 7 bytes (cutting strings, numbers and escapes): the same profile.
        let text = to_json(&p);
        let mut r = roofline_lab::profile_json::Reader::new();
        for chunk in text.as_bytes().chunks(7) {
            r.feed(chunk).unwrap();
        }
        assert_eq!(r.finish().unwrap(), p);
        for (a, b) in back.kernels.iter().zip(&p.kernels) {
            assert_eq!(a.time.to_bits(), b.time.to_bits(), "{}", a.name);
        }
        formats.push(p.format);
    }
    for f in [
        Format::PlainCsv,
        Format::NsightComputeRaw,
        Format::NsightComputeDetails,
        Format::PyTorchTrace,
    ] {
        assert!(formats.contains(&f), "no fixture of {f:?}");
    }
    // Hand-made: a kernel with every optional value absent, a name with quotes and non-ASCII.
    let mut k = roofline::profile::Kernel::new("gemm \"α\" ← 2", Format::PlainCsv);
    k.time = 2.5e-4;
    k.count = 3;
    let p = roofline::profile::Profile {
        format: Format::PlainCsv,
        kernels: vec![k],
        device: None,
        compute_capability: Some("9.0".into()),
        notes: vec!["a note".into()],
        steps: Vec::new(),
        parallel: None,
    };
    assert_eq!(from_json(&to_json(&p)).unwrap(), p);
    for (bad, want) in [
        ("", "is not JSON"),
        ("{\"format\": \"plain_csv\", \"notes\": []}", "has no \"kernels\""),
        ("{\"kernels\": [1]}", "a kernel of the imported profile is not an object"),
        ("{\"kernels\": [[]]}", "nests a list where none belongs"),
        (
            "{\"kernels\": [{\"name\": \"x\", \"count\": 1.5, \"time\": 1, \"source\": \"plain_csv\"}]}",
            "launch count 1.5 is not a whole number",
        ),
        (
            "{\"kernels\": [{\"name\": \"x\", \"count\": 1, \"time\": 1, \"source\": \"xls\"}]}",
            "unknown profile format",
        ),
        (
            "{\"kernels\": [{\"name\": \"x\", \"count\": 1, \"source\": \"plain_csv\"}]}",
            "a kernel has no time",
        ),
    ] {
        let e = from_json(bad).unwrap_err();
        assert!(e.contains(want), "{bad:?}: {e}");
    }
}
