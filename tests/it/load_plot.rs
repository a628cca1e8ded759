//! Issue 40's load plot in the view (`view::load_plot`, `plot=load`): its points are the core's
//! curves, the link's own point is the serving row's figure at that load, the measured rows are
//! the sample's (hand-checked: vLLM at 64 clients, TTFT 194.9 ms, TPOT 12.73 ms, 620 tokens/s
//! per chip by Little's law), and an engine without rows or a fit says so in its legend.
#![cfg(not(target_arch = "wasm32"))]

use crate::view_support;

use roofline::op::Engine;
use roofline::validation::load::page::{load_curve, measured_set, Axis};
use roofline_lab::charts::{LoadChart, LoadPanel};
use roofline_lab::view::load_plot::{load_chart, load_data, LoadData, Rows, POINTS};
use roofline_lab::view::{self, ChartModel};
use view_support::num;

/// The worked example on the load plot, with service levels of 300 ms and 20 ms.
const LINK: &str = "chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,\
                    prompt=1024,output=1024,load=concurrency,c=64,engine=vllm,ttft_max=300,\
                    tpot_max=20&plot=load";

fn data(q: &str) -> (roofline::Scenario, LoadData) {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    let data = load_data(&d.scenario).expect("an llm under a load");
    (d.scenario, data)
}

fn series<'a>(c: &'a LoadChart, starts: &str) -> &'a roofline_lab::charts::LoadSeries {
    c.series
        .iter()
        .find(|s| s.label.starts_with(starts))
        .unwrap_or_else(|| panic!("no series {starts}: {:?}", c.series))
}

/// Each panel's curve is the core's `load_curve` over 64 requested concurrencies (1 to twice
/// the cap, rounded and deduplicated), its expected figures and bands; the link's point is the
/// serving row's expected TTFT and TPOT at c = 64, and lies between the curve's neighbours at
/// c = 61 and 69 (2048^(34/63) = 61.2 and 2048^(35/63) = 69.1 with vLLM's cap of 1,024).
#[test]
fn the_panels_are_the_cores_curves_and_the_rows_point() {
    let (s, d) = data(LINK);
    let rows = measured_set();
    let ttft = load_chart(Some(&d), LoadPanel::Ttft, Rows::Loaded(&rows));
    let tpot = load_chart(Some(&d), LoadPanel::Tpot, Rows::Loaded(&rows));
    let (op, chip) = (&s.ops[0], &s.chips[0]);
    let core = load_curve(
        op,
        chip,
        &s.options,
        Engine::Vllm,
        Axis::Concurrency,
        POINTS,
    )
    .unwrap();
    let v = series(&ttft, "vLLM (this link's engine)");
    assert_eq!(v.points.len(), core.points.len());
    for (m, p) in v.points.iter().zip(&core.points) {
        assert_eq!((m.x, m.y), (p.x, p.ttft.expected.unwrap()));
        assert_eq!(m.band, Some((p.ttft.lo.unwrap(), p.ttft.hi.unwrap())));
        assert!(m.band.unwrap().0 < m.y && m.y < m.band.unwrap().1);
    }
    assert_eq!(core.points[0].x, 1.0);
    assert_eq!(core.points.last().unwrap().x, 2048.0);
    // The serving row at the same load (the results table's cells).
    let row = view::result_rows(&s)[0].serving.as_deref().unwrap().clone();
    let (rt, rp) = (num(&row, "ttft_expected"), num(&row, "tpot_expected"));
    let here = |c: &LoadChart| {
        let m = c
            .marks
            .iter()
            .find(|m| m.label.starts_with("this link"))
            .unwrap();
        (m.x, m.y)
    };
    assert_eq!(here(&ttft).0, 64.0);
    assert!(
        (here(&ttft).1 / rt - 1.0).abs() < 1e-12,
        "{} {rt}",
        here(&ttft).1
    );
    assert!(
        (here(&tpot).1 / rp - 1.0).abs() < 1e-12,
        "{} {rp}",
        here(&tpot).1
    );
    let vp = &series(&tpot, "vLLM (this link's engine)").points;
    let i = vp
        .iter()
        .position(|m| m.x == 61.0)
        .expect("c = 61 on the curve");
    assert_eq!(vp[i + 1].x, 69.0);
    assert!(
        vp[i].y <= rp && rp <= vp[i + 1].y,
        "{} {rp} {}",
        vp[i].y,
        vp[i + 1].y
    );
    // The service levels: the lines at 300 ms and 20 ms; the goodput in the table's notes
    // (the concurrency axis cannot place a rate).
    assert_eq!(ttft.hlines[0].y, 0.3);
    assert_eq!(tpot.hlines[0].y, 0.02);
    assert!(ttft
        .notes
        .iter()
        .any(|(w, v)| w.starts_with("goodput vLLM") && v.ends_with("req/s")));
    let model = ChartModel::Load(ttft);
    assert_eq!(model.kind(), "load");
    assert_eq!(model.panel(), Some("ttft"));
    assert!(model.to_svg(false, 800, 450).unwrap().contains("<svg"));
}

/// The sample's rows of this setup: vLLM at c = 4, 8, 16, 32, 64 and TensorRT-LLM at 4, 8, 16,
/// 32, 64, 128; SGLang has none and its legend says so. vLLM's at 64: TTFT 194.9 ms, TPOT
/// 12.73 ms; on the frontier 1 / 0.01273 = 78.6 tokens/s per user and 64·1024 / (0.1949 + 1023
/// × 0.01273) / 8 = 620 tokens/s per chip.
#[test]
fn the_measured_rows_and_what_an_engine_lacks() {
    let (_, d) = data(LINK);
    let rows = measured_set();
    let ttft = load_chart(Some(&d), LoadPanel::Ttft, Rows::Loaded(&rows));
    let cs = |c: &LoadChart, e: &str| -> Vec<f64> {
        series(c, &format!("{e} measured"))
            .points
            .iter()
            .map(|p| p.x)
            .collect()
    };
    assert_eq!(cs(&ttft, "vLLM"), [4.0, 8.0, 16.0, 32.0, 64.0]);
    assert_eq!(
        cs(&ttft, "TensorRT-LLM"),
        [4.0, 8.0, 16.0, 32.0, 64.0, 128.0]
    );
    assert!(ttft
        .series
        .iter()
        .all(|s| !s.label.starts_with("SGLang measured")));
    assert!(series(&ttft, "SGLang").label.contains("no measured row"));
    assert!(!series(&ttft, "vLLM (this")
        .label
        .contains("no measured row"));
    let at64 = series(&ttft, "vLLM measured").points[4];
    assert!((at64.y - 0.1949).abs() < 1e-4, "{at64:?}");
    let fr = load_chart(Some(&d), LoadPanel::Frontier, Rows::Loaded(&rows));
    let f64_ = series(&fr, "vLLM measured").points[4];
    assert!((f64_.x - 78.6).abs() < 0.1, "{f64_:?}");
    assert!((f64_.y - 620.0).abs() < 1.0, "{f64_:?}");
    // tpot_max 20 ms is 50 tokens/s per user on the frontier.
    assert!(fr.vlines.iter().any(|v| v.x == 50.0));
    // While the rows load, nothing is claimed about them.
    let loading = load_chart(Some(&d), LoadPanel::Ttft, Rows::Loading);
    assert!(loading
        .series
        .iter()
        .all(|s| !s.measured && !s.label.contains("measured row")));
    assert!(loading
        .notes
        .iter()
        .any(|(w, v)| w == "measured rows" && v == "loading"));
    let (head, table) = ChartModel::Load(ttft).table();
    assert_eq!(head[1], "concurrency (clients)");
    assert!(table
        .iter()
        .any(|r| r[0] == "vLLM measured" && r[1] == "64" && r[2] == "194.9 ms"));
}

/// Under `load=rate` the curves stop below saturation and the goodput is a line at its rate;
/// without an operation under a load the plot says what to add and draws nothing.
#[test]
fn a_rate_axis_and_no_load() {
    let q = LINK.replace("load=concurrency,c=64", "load=rate,qps=5");
    let (_, d) = data(&q);
    let c = load_chart(Some(&d), LoadPanel::Ttft, Rows::Loading);
    assert_eq!(c.x_label, "request rate (req/s)");
    for (_, curve) in &d.curves {
        let curve = curve.as_ref().unwrap();
        let sat = curve.saturation_qps.unwrap();
        assert!(curve.points.iter().all(|p| p.x < sat));
    }
    assert!(c.vlines.iter().any(|v| v.label.starts_with("goodput vLLM")));
    assert!(c
        .vlines
        .iter()
        .any(|v| v.x == 5.0 && v.label.contains("this link")));
    let s = roofline::url::decode("chip=h100&op=llm:b=8&plot=load").scenario;
    assert!(load_data(&s).is_none());
    let none = load_chart(None, LoadPanel::Ttft, Rows::Loading);
    assert!(none.series.is_empty() && none.title.contains("load=concurrency"));
}
