//! Issue 38, point 10: what the page writes leaks no raw number, no unit from two systems and
//! no word twice. Each case against its hand-written reading.

use roofline::units::Unit;
use roofline_lab::view;

fn scenario(q: &str) -> roofline::scenario::Scenario {
    roofline::url::decode(q).scenario
}

fn cell<'a>(r: &'a view::ResultRow, metric: &str) -> &'a view::Cell {
    r.cells
        .iter()
        .find(|c| c.metric == metric)
        .unwrap_or_else(|| panic!("no {metric} in {:?}", r.cells))
}

/// Numbers past the core's largest prefix, counts past a thousand trillion, and days past a
/// century read as people write them.
#[test]
fn large_figures_read_as_people_write_them() {
    // 1.31e23 B = 131 ZB (zetta, 1e21); 2.5e25 B = 25 YB (yotta, 1e24).
    assert_eq!(view::pretty(1.31e23, Unit::Bytes), "131 ZB");
    assert_eq!(view::pretty(2.5e25, Unit::Bytes), "25 YB");
    // Below E the core's formatter speaks: 5.6 EB.
    assert_eq!(view::pretty(5.6e18, Unit::Bytes), "5.6 EB");
    // 5.637e18 parameters: 5.64 × 10¹⁸; 70.6e9 as before, 70.6B.
    assert_eq!(view::names::params_words(5.637e18), "5.64 × 10¹⁸");
    assert_eq!(view::names::params_words(70.6e9), "70.6B");
    // 1.85e6 days = 1.85e6 / 365.25 = 5,065 years; 44.68 days stays in days; 8,410 days
    // (23 years) grouped.
    assert_eq!(view::names::days_words(1.85e6), "≈ 5,065 years");
    assert_eq!(view::names::days_words(44.67534), "44.68 days");
    assert_eq!(view::names::days_words(8_410.0), "8,410 days");
    assert_eq!(view::names::sci(9.996e5), "1 × 10⁶");
    assert_eq!(view::names::sci(-3.2e-7), "-3.2 × 10⁻⁷");
}

/// A fit's cell holds what is resident in the capacity's own units: the v5e's 16 GiB
/// (binary: 17,179,869,184 B) against bytes in GiB, the book's 16 GB (16e9) in GB.
#[test]
fn a_fit_is_judged_in_the_capacitys_units_at_its_context() {
    let s = scenario("?chip=tpu-v5e&op=llm:preset=llama3-8b,b=1,ctx=2048");
    let r = &view::result_rows(&s)[0];
    let fits = &cell(r, "fits").text;
    assert!(fits.contains(" GiB of 16 GiB at ctx 2048"), "{fits}");
    assert!(!fits.contains(" GB"), "{fits}");
    let s = scenario("?chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-8b,b=1,ctx=2048");
    let r = &view::result_rows(&s)[0];
    let fits = &cell(r, "fits").text;
    assert!(fits.contains(" GB of 16 GB at ctx 2048"), "{fits}");
    assert!(!fits.contains("GiB"), "{fits}");
}

/// A row already compute-bound does not say so twice: a matmul at B = 512 on an H100 (ridge
/// 295, intensity 455) is compute-bound above its crossover.
#[test]
fn a_compute_bound_row_says_it_once() {
    let s = scenario("?chip=h100&op=matmul:b=512,d=8192,f=8192");
    let key = view::key_line(&s);
    assert_eq!(key.matches("compute-bound").count(), 1, "{key}");
    assert!(key.contains("above its crossover B = "), "{key}");
    // A memory-bound one says where it turns compute-bound.
    let s = scenario("?chip=h100&op=matmul:b=64,d=8192,f=8192");
    let key = view::key_line(&s);
    assert!(
        key.contains(": memory-bound") && key.contains("compute-bound for B > "),
        "{key}"
    );
}

/// A collective's bus bandwidth and the roofline's link roof are named apart: the row says
/// "bus bandwidth" (nccl-tests' convention), the roofline's legend "ICI roof".
#[test]
fn bus_bandwidth_and_a_link_roof_are_named_apart() {
    let s = scenario("?chip=tpu-v5e&op=collective:bytes=33554432,n=4,topology=line&plot=roofline");
    let r = &view::result_rows(&s)[0];
    let busbw = cell(r, "busbw");
    assert!(!busbw.text.contains("busbw"), "{}", busbw.text);
    assert_eq!(view::columns::kind_label("busbw"), "bus bandwidth");
    let chart = view::roofline_chart(&s);
    let links: Vec<&str> = chart
        .slopes
        .iter()
        .filter(|l| l.dashed)
        .map(|l| l.label.as_str())
        .collect();
    assert!(!links.is_empty(), "{:?}", chart.slopes);
    assert!(links.iter().all(|l| l.contains(" roof ")), "{links:?}");
}

/// On the training plot the y buttons are its two views, and the one pressed is what it
/// draws: a link's `y=achieved` shows step time, so "step time" is pressed, not "FLOPs/s".
#[test]
fn the_training_plot_presses_what_it_draws() {
    let s = scenario("?chip=tpu-v5p&op=train:dp=1,fsdp=2240&y=achieved");
    let (buttons, shown) = view::y_buttons(&s);
    let words: Vec<&str> = buttons.iter().map(|(_, w)| *w).collect();
    assert_eq!(words, ["step time", "MFU"]);
    assert_eq!(shown, roofline::scenario::SweepMetric::Time);
    let chart = view::sweep_chart(&s, s.axes.y, s.axes.log_x, s.axes.log_y);
    assert_eq!(chart.y_unit, Some(Unit::Seconds), "{}", chart.y_label);
    let s = scenario("?chip=h100&op=matmul");
    let (buttons, shown) = view::y_buttons(&s);
    assert_eq!(buttons[0].1, "FLOPs/s");
    assert_eq!(shown, roofline::scenario::SweepMetric::Achieved);
}

/// Issue 38, point 2, the rule under the page: an operation switched to a collective leaves no
/// operation with `b`; the sweep moves to the collective's `bytes`, over its slider's 1 B to
/// 1 TB, log-spaced on a log axis. With a training step the sweep stays (its plot stands in).
#[test]
fn the_sweep_moves_to_a_field_the_operations_have() {
    let mut s = scenario("?chip=tpu-v5e&op=collective:bytes=1e6&sweep=b:1..511");
    assert!(view::keep_sweep_on_a_field(&mut s));
    assert_eq!(s.sweep.field, "bytes");
    assert_eq!((s.sweep.from, s.sweep.to), (1.0, 1e12));
    assert!(s.sweep.log && s.axes.log_x);
    assert!(!view::keep_sweep_on_a_field(&mut s), "moved twice");
    let mut t = scenario("?chip=tpu-v5p&op=train&sweep=b:1..511");
    assert!(!view::keep_sweep_on_a_field(&mut t));
    assert_eq!(t.sweep.field, "b");
}

/// A row's time against the baseline reads without an exponent: 0.419×, 20,500× (an hour
/// against a 0.18 s step), and below a hundredth the inverse: 2.83e-4 = 1/3,534 → 1/3,530×.
#[test]
fn ratios_against_the_baseline_read_without_exponents() {
    use roofline_lab::view::compare::ratio_text;
    assert_eq!(ratio_text(0.419), "0.419×");
    assert_eq!(ratio_text(20_512.0), "20,500×");
    assert_eq!(ratio_text(2.83e-4), "1/3,530×");
    assert_eq!(ratio_text(1.0), "1×");
}
