//! Issue 43's "my engine" under a load in the view: with `engine=own:…` and
//! `load=concurrency|rate` the serving row's expected cells are the load model timed by the
//! own terms (`data-basis="own"`, no band and the reason), and the load plot draws "my engine
//! (fit from your trace)" beside the published engines. Hand relation: Llama 3 8B on an H100
//! at one client decodes one sequence per step, every part memory-bound (its bound by hand
//! ≈ 15.16 GB / 3.35e12 B/s = 4.525 ms, the golden file's "My engine under a load" block), so
//! memory ×1.5 makes the expected TPOT 1.5 × the bound's TPOT.
#![cfg(not(target_arch = "wasm32"))]

use crate::view_support;

use roofline::validation::load::own::NO_BAND;
use roofline_lab::charts::LoadPanel;
use roofline_lab::view::load_plot::{load_chart, load_data, Rows, MY_ENGINE};
use roofline_lab::view::{self, ResultRow};
use view_support::{cell, close, num};

const LINK: &str = "chip=h100&op=llm:preset=llama3-8b,prompt=1024,output=256,load=concurrency,c=1";

fn serving_row(q: &str) -> ResultRow {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    let rows = view::result_rows(&d.scenario);
    rows[0].serving.as_deref().expect("a serving row").clone()
}

#[test]
fn the_rows_expectation_is_my_engines() {
    let mine = serving_row(&format!("{LINK},engine=own:1:1.5:1:0"));
    let generic = serving_row(&format!("{LINK},engine=generic"));
    // The bound does not change with the engine's fit.
    assert_eq!(num(&mine, "tpot"), num(&generic, "tpot"));
    close(num(&mine, "tpot"), 0.004527433055522388, 1e-9, "the bound");
    close(
        num(&mine, "tpot_expected"),
        1.5 * num(&mine, "tpot"),
        1e-12,
        "memory ×1.5",
    );
    assert!(num(&generic, "tpot_expected") != num(&mine, "tpot_expected"));
    for m in [
        "ttft_expected",
        "tpot_expected",
        "tokens_per_s_expected",
        "requests_per_s_expected",
    ] {
        let c = cell(&mine, m);
        assert_eq!(c.basis, Some("own"), "{m}: {c:?}");
        assert_ne!(c.value, "none", "{m}");
        assert!(
            c.title.contains("your engine's fit") && c.title.contains("own:1:1.5:1:0"),
            "{m}: {}",
            c.title
        );
        assert_ne!(cell(&generic, m).basis, Some("own"));
    }
    for m in [
        "ttft_expected_lo",
        "ttft_expected_hi",
        "tpot_expected_lo",
        "tpot_expected_hi",
    ] {
        let c = cell(&mine, m);
        assert_eq!((c.value.as_str(), c.basis), ("none", Some("none")), "{m}");
        assert_eq!(c.title, NO_BAND, "{m}");
    }
    assert!(cell(&mine, "engine").title.contains("your engine's fit"));
    // Little's law at one client, by hand: X = 1 / (TTFT + 255 · TPOT) with the expected ones.
    close(
        num(&mine, "requests_per_s_expected"),
        1.0 / (num(&mine, "ttft_expected") + 255.0 * num(&mine, "tpot_expected")),
        1e-9,
        "Little",
    );
}

#[test]
fn the_load_plot_draws_my_engine() {
    let d = roofline::url::decode(&format!("{LINK},engine=own:1:1.5:1:0&plot=load"));
    let data = load_data(&d.scenario).expect("an llm under a load");
    for panel in LoadPanel::ALL {
        let c = load_chart(Some(&data), panel, Rows::Loading);
        let mine: Vec<_> = c
            .series
            .iter()
            .filter(|s| s.label.starts_with(MY_ENGINE))
            .collect();
        assert_eq!(mine.len(), 1, "{panel:?}: {:?}", c.series);
        assert!(mine[0].points.len() > 8 && mine[0].points.iter().all(|p| p.band.is_none()));
        // The published engines beside it; generic's pooled fit is not the link's engine.
        for e in ["vLLM", "SGLang", "TensorRT-LLM"] {
            assert!(c.series.iter().any(|s| s.label.starts_with(e)), "{e}");
        }
        assert!(!c.series.iter().any(|s| s.label.starts_with("generic")));
        if panel == LoadPanel::Tpot {
            // Its first point, one client, is the row's figure at c = 1: 1.5 × the bound.
            let row = serving_row(&format!("{LINK},engine=own:1:1.5:1:0"));
            let p = mine[0].points[0];
            assert_eq!(p.x, 1.0);
            close(p.y, num(&row, "tpot_expected"), 1e-12, "c = 1");
            close(p.y, 1.5 * 0.004527433055522388, 1e-9, "1.5 × the bound");
        }
    }
    // A published engine's link draws no "my engine".
    let d = roofline::url::decode(&format!("{LINK},engine=vllm&plot=load"));
    let data = load_data(&d.scenario).unwrap();
    let c = load_chart(Some(&data), LoadPanel::Ttft, Rows::Loading);
    assert!(!c.series.iter().any(|s| s.label.starts_with(MY_ENGINE)));
}
