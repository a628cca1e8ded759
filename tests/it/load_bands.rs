//! The load plot's simulated P50–P99 bands (issue 42) in the view: the worker's answer
//! (`view::serving_tails::bands`) reads back as written, its point at the link's own load is
//! the serving row's `ttft_p99` and `tpot_p99` cells (the same simulation, the row's request
//! count), and the panels draw a shaded band per panel only for their own scenario, saying
//! `simulating…` until then.
#![cfg(not(target_arch = "wasm32"))]

use roofline::validation::load::steps::FittedSteps;
use roofline_lab::charts::LoadPanel;
use roofline_lab::view::load_plot::bands::{add_bands, BandState};
use roofline_lab::view::load_plot::{load_chart, load_data, Rows};
use roofline_lab::view::serving_tails::bands::{band_key, bands, read_bands, run_bands};
use roofline_lab::view::serving_tails::{sim_key, simulate, PageSteps};
use roofline_lab::view::ChartModel;

/// Llama-3 8B (bf16) on one H100 under vLLM, 16 clients, prompts of 500 and outputs of 40.
const LINK: &str =
    "?chip=h100&op=llm:prompt=500,output=40,load=concurrency,c=16,engine=vllm&plot=load";

fn scenario(q: &str) -> roofline::Scenario {
    let d = roofline::url::decode(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    d.scenario
}

/// The figure `m` of the first simulated row, from its `data-value` text.
fn first_cell(rows: &[roofline_lab::view::serving_tails::SimRow], m: &str) -> f64 {
    let c = rows[0].cells.iter().find(|c| c.metric == m).unwrap();
    c.value
        .parse()
        .unwrap_or_else(|_| panic!("{m}: {}", c.value))
}

/// The bands are asked only while the load plot shows, by the tails' key.
#[test]
fn bands_are_asked_only_on_the_load_plot() {
    let s = scenario(LINK);
    assert_eq!(band_key(&s), sim_key(&s));
    assert!(band_key(&s).is_some());
    let other = scenario(&LINK.replace("plot=load", "plot=roofline"));
    assert_eq!(band_key(&other), None);
    let batch = scenario("?chip=h100&op=llm:prompt=500,output=40&plot=load");
    assert_eq!(band_key(&batch), None);
}

/// The worker's JSON reads back as the answer it wrote; at the link's own load (c = 16) the
/// band's P99s are the serving row's `ttft_p99` and `tpot_p99` cells (`data-value`, seconds)
/// from the tails' own run of the same key, and every point has P50 ≤ P99.
#[test]
fn the_answer_reads_back_and_its_own_load_is_the_rows_cells() {
    let key = band_key(&scenario(LINK)).unwrap();
    let steps = PageSteps(FittedSteps::stored());
    let b = bands(&key, &steps);
    assert_eq!(read_bands(&run_bands(&key)).unwrap(), b);
    let sweep = b.sweep.as_ref().unwrap();
    assert_eq!(sweep.points.len(), 17, "16 loads and the link's own");
    let own = sweep.points.iter().find(|p| p.x == 16.0).unwrap();
    let f = own.figures.as_ref().unwrap();
    let row = simulate(&key, &steps);
    let cell = |m: &str| first_cell(&row.rows, m);
    assert_eq!(f.ttft_p99, cell("ttft_p99"));
    assert_eq!(f.ttft_p50, cell("ttft_p50"));
    assert_eq!(f.tpot_p99.unwrap(), cell("tpot_p99"));
    for p in &sweep.points {
        let f = p.figures.as_ref().unwrap();
        assert!(
            f.ttft_p50 <= f.ttft_p99 && f.tpot_p50 <= f.tpot_p99,
            "{p:?}"
        );
    }
    assert!(read_bands("{\"key\": \"x\"}").is_err());
    assert!(read_bands("not json").is_err());
}

/// Pending, each time panel says `simulating…` in its legend and has no band; answered, it
/// has one point per load with P50 and P99 (the TPOT panel the TPOT's), its legend naming the
/// requests per point and the seed, its table the derivation; an answer for another load is
/// not drawn. The frontier has none. The drawn SVG holds the shaded area.
#[test]
fn panels_draw_the_band_of_their_own_scenario_only() {
    let s = scenario(LINK);
    let d = load_data(&s).unwrap();
    let key = band_key(&s).unwrap();
    let b = bands(&key, &PageSteps(FittedSteps::stored()));
    let mut pending = load_chart(Some(&d), LoadPanel::Ttft, Rows::Loading);
    add_bands(&mut pending, &d, BandState::Running);
    assert_eq!(pending.sim.len(), 1);
    assert_eq!(pending.sim[0].label, "vLLM simulated P50–P99: simulating…");
    assert!(pending.sim[0].points.is_empty());
    for panel in [LoadPanel::Ttft, LoadPanel::Tpot] {
        let mut c = load_chart(Some(&d), panel, Rows::Loading);
        add_bands(&mut c, &d, BandState::Done(&b));
        let band = &c.sim[0];
        assert_eq!(
            band.label,
            "vLLM simulated P50–P99, 1,000 requests per point, seed 1"
        );
        assert_eq!(band.points.len(), 17);
        let own = band.points.iter().find(|p| p.x == 16.0).unwrap();
        let f = b
            .sweep
            .as_ref()
            .unwrap()
            .points
            .iter()
            .find(|p| p.x == 16.0);
        let f = f.unwrap().figures.as_ref().unwrap();
        let want = match panel {
            LoadPanel::Ttft => (f.ttft_p50, f.ttft_p99),
            _ => (f.tpot_p50.unwrap(), f.tpot_p99.unwrap()),
        };
        assert_eq!((own.y, own.band), (want.0, Some(want)));
        let (_, rows) = c.table();
        assert!(rows.iter().any(|r| r[0] == "vLLM simulated P50–P99"
            && r[1].contains("as its serving row")
            && r[1].contains("seed 1")));
        let svg = ChartModel::Load(c).to_svg(false, 800, 450).unwrap();
        assert!(svg.contains("<polygon"), "no shaded band");
    }
    let mut fr = load_chart(Some(&d), LoadPanel::Frontier, Rows::Loading);
    add_bands(&mut fr, &d, BandState::Done(&b));
    assert!(fr.sim.is_empty());
    // The same answer over a link at another load is not drawn.
    let at32 = load_data(&scenario(&LINK.replace("c=16", "c=32"))).unwrap();
    let mut c = load_chart(Some(&at32), LoadPanel::Ttft, Rows::Loading);
    add_bands(&mut c, &at32, BandState::Done(&b));
    assert!(c.sim[0].points.is_empty());
    assert!(c.sim[0]
        .label
        .ends_with("(the simulation was for another load)"));
}

/// The queue panel: pending, its title says `simulating…` and it has no line; answered, the
/// waiting and running lines over simulated time at the link's own load (16 clients, far below
/// vLLM's cap of hundreds: nobody waits, 16 run once all have started) with the warm-up's end
/// marked at the sweep's own figure, and it reads back through the worker's JSON.
#[test]
fn the_queue_panel_shows_waiting_and_running_with_the_warm_up() {
    use roofline_lab::view::load_plot::queue::queue_chart;
    let s = scenario(LINK);
    let d = load_data(&s).unwrap();
    let key = band_key(&s).unwrap();
    let b = read_bands(&run_bands(&key)).unwrap();
    let pending = queue_chart(&d, BandState::Running);
    assert!(
        pending.title.ends_with("(simulating…)"),
        "{}",
        pending.title
    );
    assert!(pending.series.is_empty());
    let c = queue_chart(&d, BandState::Done(&b));
    assert!(
        c.title.starts_with("Queue over time at c = 16"),
        "{}",
        c.title
    );
    let sweep = b.sweep.as_ref().unwrap();
    assert!(!sweep.queue.is_empty() && sweep.queue.len() <= 512);
    let (waiting, running) = (&c.series[0], &c.series[1]);
    assert!(waiting.label.starts_with("waiting"));
    assert!(waiting.points.iter().all(|p| p.1 == 0.0));
    let end = sweep.warmup_end.unwrap();
    assert_eq!(c.vlines[0].x, end);
    assert!(c.vlines[0]
        .label
        .contains("the first 20 % of 10,000 requests"));
    let after: Vec<f64> = running
        .points
        .iter()
        .filter(|p| p.0 >= end)
        .map(|p| p.1)
        .collect();
    assert!(
        !after.is_empty() && after.iter().all(|&r| r == 16.0),
        "{after:?}"
    );
    let at32 = load_data(&scenario(&LINK.replace("c=16", "c=32"))).unwrap();
    let other = queue_chart(&at32, BandState::Done(&b));
    assert!(other.series.is_empty() && other.title.contains("another load"));
}

/// With `disagg=2P1D` the answer carries the disaggregated deployment at the same loads and
/// reads back as written; each time panel draws it as a second band, its legend naming the
/// ratio, and at the link's own load its P50 and P99 are the serving row's cells (the row's
/// tails run the same deployment). Without `disagg=` there is no second band.
#[test]
fn a_disaggregated_link_draws_its_ratios_band_beside_the_engines() {
    let link = LINK.replace("engine=vllm", "engine=vllm,disagg=2P1D");
    let s = scenario(&link);
    let d = load_data(&s).unwrap();
    let key = band_key(&s).unwrap();
    let steps = PageSteps(FittedSteps::stored());
    let b = bands(&key, &steps);
    assert_eq!(read_bands(&run_bands(&key)).unwrap(), b);
    let ds = b.sweep.as_ref().unwrap().disagg.as_ref().unwrap();
    assert_eq!((ds.ratio.as_str(), ds.auto), ("2P1D", false));
    assert_eq!(ds.points.len(), 17);
    let own = ds.points.iter().find(|p| p.x == 16.0).unwrap();
    let f = own.figures.as_ref().unwrap();
    let row = simulate(&key, &steps);
    let cell = |m: &str| first_cell(&row.rows, m);
    assert_eq!(
        (f.ttft_p50, f.ttft_p99),
        (cell("ttft_p50"), cell("ttft_p99"))
    );
    assert_eq!(f.tpot_p99.unwrap(), cell("tpot_p99"));
    for panel in [LoadPanel::Ttft, LoadPanel::Tpot] {
        let mut c = load_chart(Some(&d), panel, Rows::Loading);
        add_bands(&mut c, &d, BandState::Done(&b));
        assert_eq!(c.sim.len(), 2);
        let band = &c.sim[1];
        assert!(
            band.label
                .starts_with("disaggregated 2P1D simulated P50–P99, ")
                && band.label.ends_with("requests per point, seed 1"),
            "{}",
            band.label
        );
        assert_eq!(band.points.len(), 17);
        let (_, rows) = c.table();
        assert!(rows
            .iter()
            .any(|r| r[0] == "disaggregated 2P1D simulated P50–P99"));
    }
    let plain = bands(&band_key(&scenario(LINK)).unwrap(), &steps);
    assert_eq!(plain.sweep.as_ref().unwrap().disagg, None);
}
