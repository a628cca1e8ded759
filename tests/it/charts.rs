//! Native tests of the chart drawing code (SVG backend).

use std::path::PathBuf;

use ::roofline::units::format_si;
use roofline_lab::charts::{
    log_ticks, nearest_point, AxisScale, Ceiling, ChartGeometry, ChartSeries, ChartTheme, HLine,
    Marker, MeasuredMark, PixelRect, PointMark, RooflineChart, Slope, SweepChart, VLine,
};

/// Each chart drawn into SVG through [`render_svg_with`], as the page's export does (the page
/// goes through `view::ChartModel`); `render_svg_with_geometry` also says where it drew.
mod sweep {
    pub use roofline_lab::charts::sweep::*;
    use roofline_lab::charts::{render_svg_with, ChartGeometry, ChartTheme, NoBackend, SweepChart};

    pub fn render_svg_with_geometry(
        m: &SweepChart,
        theme: &ChartTheme,
        width: u32,
        height: u32,
    ) -> Result<(String, ChartGeometry), String> {
        render_svg_with::<NoBackend, _>(width, height, theme, |root, t| draw(root, m, t))
    }

    pub fn render_svg(
        m: &SweepChart,
        theme: &ChartTheme,
        w: u32,
        h: u32,
    ) -> Result<String, String> {
        render_svg_with_geometry(m, theme, w, h).map(|(svg, _)| svg)
    }
}

/// See [`sweep`].
mod roofline {
    pub use roofline_lab::charts::roofline_chart::*;
    use roofline_lab::charts::{
        render_svg_with, ChartGeometry, ChartTheme, NoBackend, RooflineChart,
    };

    pub fn render_svg_with_geometry(
        m: &RooflineChart,
        theme: &ChartTheme,
        width: u32,
        height: u32,
    ) -> Result<(String, ChartGeometry), String> {
        render_svg_with::<NoBackend, _>(width, height, theme, |root, t| draw(root, m, t))
    }

    pub fn render_svg(
        m: &RooflineChart,
        theme: &ChartTheme,
        w: u32,
        h: u32,
    ) -> Result<String, String> {
        render_svg_with_geometry(m, theme, w, h).map(|(svg, _)| svg)
    }
}

const W: u32 = 800;
const H: u32 = 450;
const PEAK: f64 = 1.97e14;

/// Is `v` inside the axis's `[lo, hi]` (with a tiny tolerance)?
fn within(axis: &AxisScale, v: f64) -> bool {
    axis.fraction(v)
        .is_some_and(|f| (-1e-9..=1.0 + 1e-9).contains(&f))
}

// ---------------------------------------------------------------------------
// Sample models.

/// Matmul [B,D]·[D,F] with D = F: arithmetic intensity in FLOPs/byte.
fn intensity(b: f64, d: f64) -> f64 {
    b * d * d / (2.0 * b * d + d * d)
}

/// The first-load sweep: achieved FLOP/s vs B for D=F=4096 and D=F=1024.
/// (Illustrative numbers: the effective bandwidth is chosen so that the
/// curves reach the peak at the documented crossovers.)
fn first_load_sweep() -> SweepChart {
    let mk = |d: f64, b_cross: f64, label: &str, idx: usize| {
        let bw = PEAK / intensity(b_cross, d);
        ChartSeries {
            label: label.to_string(),
            points: (1..=511)
                .map(|b| {
                    let b = b as f64;
                    (b, PEAK.min(bw * intensity(b, d)))
                })
                .collect(),
            series_idx: idx,
            scatter: false,
            oom_from: None,
        }
    };
    SweepChart {
        title: "Achieved FLOP/s vs batch size (TPU v5e, bf16)".into(),
        x_label: "Batch size B (tokens)".into(),
        y_label: "Achieved FLOP/s".into(),
        series: vec![
            mk(4096.0, 136.1, "D = F = 4096", 0),
            mk(1024.0, 226.3, "D = F = 1024", 1),
        ],
        hlines: vec![HLine {
            label: "peak 197 TFLOP/s".into(),
            y: PEAK,
            series_idx: 6,
        }],
        crossovers: vec![
            Marker::new(136.1, PEAK, "B = 136.1"),
            Marker::new(226.3, PEAK, "B = 226.3"),
        ],
        vlines: vec![VLine {
            x: 120.0,
            label: "B > 120".into(),
        }],
        log_x: false,
        log_y: false,
        x_unit: None,
        y_unit: None,
        bars: Vec::new(),
        bars_label: String::new(),
    }
}

struct Chip {
    name: &'static str,
    peak: f64,
    hbm: f64,
    link: (&'static str, f64),
}

fn first_load_roofline() -> RooflineChart {
    let chips = [
        Chip {
            name: "TPU v5e",
            peak: 1.97e14,
            hbm: 8.19e11,
            link: ("ICI", 4.5e10),
        },
        Chip {
            name: "H100 SXM",
            peak: 9.89e14,
            hbm: 3.35e12,
            link: ("NVLink", 4.5e11),
        },
    ];
    let mut m = RooflineChart {
        title: "Roofline: TPU v5e vs H100 (bf16)".into(),
        x_label: "Arithmetic intensity (FLOPs/byte)".into(),
        y_label: "Performance (FLOP/s)".into(),
        shade_regions: true,
        ..Default::default()
    };
    let ops = [
        ("decode attn", 1.0),
        ("matmul B=64", intensity(64.0, 4096.0)),
        ("matmul B=512", intensity(512.0, 4096.0)),
    ];
    for (i, c) in chips.iter().enumerate() {
        m.ceilings.push(Ceiling {
            label: format!("{} peak {}FLOP/s", c.name, format_si(c.peak, 3)),
            flops_per_s: c.peak,
            series_idx: i,
        });
        m.slopes.push(Slope {
            label: format!("{} HBM {}B/s", c.name, format_si(c.hbm, 3)),
            bytes_per_s: c.hbm,
            series_idx: i,
            dashed: false,
        });
        m.slopes.push(Slope {
            label: format!("{} {} {}B/s", c.name, c.link.0, format_si(c.link.1, 3)),
            bytes_per_s: c.link.1,
            series_idx: i,
            dashed: true,
        });
        let ridge = c.peak / c.hbm;
        m.ridges.push(Marker::new(
            ridge,
            c.peak,
            format!("ridge {}", format_si(ridge, 3)),
        ));
        for (name, ai) in ops {
            m.points.push(PointMark {
                x: ai,
                y: c.peak.min(c.hbm * ai),
                label: name.to_string(),
                series_idx: i,
            });
        }
    }
    m
}

// ---------------------------------------------------------------------------
// Helpers.

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("charts");
    std::fs::create_dir_all(&d).expect("create target/charts");
    d
}

/// Number of SVG elements of `tag` whose stroke is `color`.
fn count_stroked(svg: &str, tag: &str, color: &str) -> usize {
    let open = format!("<{tag} ");
    let stroke = format!("stroke=\"{color}\"");
    svg.split(&open)
        .skip(1)
        .filter(|el| el.split('>').next().unwrap_or("").contains(&stroke))
        .count()
}

fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Text contents of all `<text>` elements.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(body.split("</text>").next()?.trim().to_string())
        })
        .collect()
}

fn has_text(svg: &str, s: &str) -> bool {
    let escaped = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    texts(svg).iter().any(|t| t == s || t == &escaped)
}

fn assert_sane_svg(svg: &str) {
    assert!(
        svg.starts_with("<svg"),
        "not an SVG: {}",
        &svg[..svg.len().min(80)]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    // No NaN coordinates leaked into the output.
    for bad in ["NaN", "inf\"", "points=\"\""] {
        let hits = svg.matches(bad).count();
        let in_text = texts(svg).iter().filter(|t| t.contains(bad)).count();
        assert!(hits <= in_text, "found {bad} in SVG markup");
    }
}

// ---------------------------------------------------------------------------
// Sweep chart.

#[test]
fn sweep_first_load_renders_everything() {
    let model = first_load_sweep();
    let theme = ChartTheme::light();
    let (svg, geo) = sweep::render_svg_with_geometry(&model, &theme, W, H).unwrap();
    assert_sane_svg(&svg);
    std::fs::write(out_dir().join("sweep.svg"), &svg).unwrap();

    // Titles and labels.
    for s in [
        "Achieved FLOP/s vs batch size (TPU v5e, bf16)",
        "Batch size B (tokens)",
        "Achieved FLOP/s",
        "D = F = 4096",
        "D = F = 1024",
        "B = 136.1",
        "B = 226.3",
        "B > 120",
        "peak 197 TFLOP/s",
    ] {
        assert!(has_text(&svg, s), "missing text {s:?}");
    }
    // SI tick labels on the FLOP/s axis, plain ones on the batch axis.
    for s in ["0", "50T", "100T", "150T", "200T", "100", "200", "500"] {
        assert!(has_text(&svg, s), "missing tick label {s:?}");
    }
    // Each series: its curve plus the legend swatch.
    for idx in [0, 1] {
        let c = hex(theme.color(idx));
        assert!(
            count_stroked(&svg, "polyline", &c) >= 2,
            "series {idx} ({c}) not drawn"
        );
    }
    // Crossover markers: ring circles in the foreground colour.
    assert!(count_stroked(&svg, "circle", &hex(theme.foreground)) >= 2);

    // Geometry: linear axes starting at zero, enclosing the data.
    assert!(!geo.x.log && !geo.y.log);
    assert!(geo.has_data);
    assert_eq!(geo.x.lo, 0.0);
    assert!(geo.x.hi >= 511.0);
    assert!(geo.y.hi > PEAK);
    assert!(geo.plot.width() > 500.0 && geo.plot.height() > 250.0);
    assert!(geo.plot.left > 0.0 && geo.plot.right < W as f64);
}

#[test]
fn sweep_log_axes_and_dark_theme() {
    let mut model = first_load_sweep();
    model.log_x = true;
    model.log_y = true;
    let theme = ChartTheme::dark();
    let (svg, geo) = sweep::render_svg_with_geometry(&model, &theme, W, H).unwrap();
    assert_sane_svg(&svg);
    std::fs::write(out_dir().join("sweep-log-dark.svg"), &svg).unwrap();
    assert!(geo.x.log && geo.y.log);
    // 1..511 spans < 3 decades: 2× and 5× ticks are labelled too.
    for s in ["1", "2", "5", "10", "20", "50", "100", "200", "500"] {
        assert!(has_text(&svg, s), "missing log tick {s:?}");
    }
    assert!(svg.contains(&hex(theme.background)));
    for idx in [0, 1] {
        assert!(count_stroked(&svg, "polyline", &hex(theme.color(idx))) >= 2);
    }
}

#[test]
fn scale_enlarges_text_and_lines() {
    let model = first_load_sweep();
    let s1 = sweep::render_svg(&model, &ChartTheme::light(), W, H).unwrap();
    let s2 = sweep::render_svg(&model, &ChartTheme::light().with_scale(2.0), 2 * W, 2 * H).unwrap();
    let font_sizes = |svg: &str| -> Vec<f64> {
        svg.split("font-size=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next()?.parse().ok())
            .collect()
    };
    let max1 = font_sizes(&s1).into_iter().fold(0.0, f64::max);
    let max2 = font_sizes(&s2).into_iter().fold(0.0, f64::max);
    assert!((max2 / max1 - 2.0).abs() < 0.05, "{max1} vs {max2}");
    // The title is 15 CSS px at scale 1 (SVG font size = canvas px size).
    assert!((max1 - 15.0).abs() < 0.01, "title font size {max1}");
    assert!(s2.contains("stroke-width=\"4\""));
}

// ---------------------------------------------------------------------------
// Roofline chart.

#[test]
fn roofline_first_load_renders_everything() {
    let model = first_load_roofline();
    let theme = ChartTheme::light();
    let (svg, geo) = roofline::render_svg_with_geometry(&model, &theme, W, H).unwrap();
    assert_sane_svg(&svg);
    std::fs::write(out_dir().join("roofline.svg"), &svg).unwrap();

    for s in [
        "Roofline: TPU v5e vs H100 (bf16)",
        "Arithmetic intensity (FLOPs/byte)",
        "Performance (FLOP/s)",
        // inline ceiling labels
        "TPU v5e peak 197TFLOP/s",
        "H100 SXM peak 989TFLOP/s",
        // legend: slopes
        "TPU v5e HBM 819GB/s",
        "TPU v5e ICI 45GB/s",
        "H100 SXM HBM 3.35TB/s",
        "H100 SXM NVLink 450GB/s",
        // ridge markers
        "ridge 241",
        "ridge 295",
        // points
        "decode attn",
        "matmul B=64",
        "matmul B=512",
        // regions
        "bandwidth-bound",
        "compute-bound",
    ] {
        assert!(has_text(&svg, s), "missing text {s:?}");
    }
    // Decade ticks with SI prefixes.
    for s in ["1T", "10T", "100T", "1", "10", "100"] {
        assert!(has_text(&svg, s), "missing tick {s:?}");
    }
    // Per chip: ceiling + HBM slope + legend swatches + dashed link slope.
    for idx in [0, 1] {
        let c = hex(theme.color(idx));
        assert!(count_stroked(&svg, "polyline", &c) >= 5, "chip {idx} lines");
        // ridge ring
        assert!(count_stroked(&svg, "circle", &c) >= 1, "chip {idx} ridge");
    }
    // Points: filled circles in the chip colours (3 ops × 2 chips).
    let filled = svg
        .split("<circle ")
        .skip(1)
        .filter(|c| {
            let c = c.split('>').next().unwrap_or("");
            c.contains(&format!("fill=\"{}\"", hex(theme.color(0))))
                || c.contains(&format!("fill=\"{}\"", hex(theme.color(1))))
        })
        .count();
    assert!(filled >= 6, "only {filled} point markers");
    // Region shading: two translucent polygons.
    assert!(svg.matches("<polygon").count() >= 2);

    // Ranges: whole decades enclosing every point, ridge and ceiling.
    assert!(geo.x.log && geo.y.log);
    for v in [geo.x.lo, geo.x.hi, geo.y.lo, geo.y.hi] {
        let e = v.log10();
        assert!((e - e.round()).abs() < 1e-9, "{v} is not a decade");
    }
    for p in &model.points {
        assert!(within(&geo.x, p.x) && within(&geo.y, p.y));
    }
    for c in &model.ceilings {
        assert!(within(&geo.y, c.flops_per_s) && c.flops_per_s < geo.y.hi);
    }
    let (px, py) = geo.to_pixel(model.ridges[0].x, model.ridges[0].y).unwrap();
    assert!(geo.plot.contains(px, py));
}

#[test]
fn roofline_dark_hidpi_and_no_shading() {
    let mut model = first_load_roofline();
    let theme = ChartTheme::dark().with_scale(2.0);
    let svg = roofline::render_svg(&model, &theme, 2 * W, 2 * H).unwrap();
    assert_sane_svg(&svg);
    std::fs::write(out_dir().join("roofline-dark@2x.svg"), &svg).unwrap();
    assert!(svg.matches("<polygon").count() >= 2);
    assert!(has_text(&svg, "ridge 241") && has_text(&svg, "compute-bound"));
    assert!(svg.contains("stroke-width=\"4\""), "HiDPI line widths");

    model.shade_regions = false;
    let svg = roofline::render_svg(&model, &ChartTheme::light(), W, H).unwrap();
    assert_sane_svg(&svg);
    assert_eq!(svg.matches("<polygon").count(), 0);
    assert!(!has_text(&svg, "compute-bound"));
    assert!(has_text(&svg, "ridge 241"));
}

// ---------------------------------------------------------------------------
// Degenerate inputs.

fn special_values() -> Vec<f64> {
    vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -1.0,
        1e-300,
        1e300,
        f64::MIN_POSITIVE,
        f64::MAX,
        1.0,
    ]
}

#[test]
fn empty_models_draw_a_message() {
    for theme in [ChartTheme::light(), ChartTheme::dark()] {
        let (svg, g) =
            sweep::render_svg_with_geometry(&SweepChart::default(), &theme, W, H).unwrap();
        assert_sane_svg(&svg);
        assert!(has_text(&svg, sweep::EMPTY_MESSAGE));
        assert!(!g.has_data);
        let (svg, g) =
            roofline::render_svg_with_geometry(&RooflineChart::default(), &theme, W, H).unwrap();
        assert_sane_svg(&svg);
        assert!(has_text(&svg, roofline::EMPTY_MESSAGE));
        assert!(!g.has_data);
    }
    // Series present but empty; titles still drawn.
    let m = SweepChart {
        title: "empty".into(),
        series: vec![ChartSeries::default(), ChartSeries::default()],
        ..Default::default()
    };
    let svg = sweep::render_svg(&m, &ChartTheme::light(), W, H).unwrap();
    assert!(has_text(&svg, "empty"));
    assert!(has_text(&svg, sweep::EMPTY_MESSAGE));
}

#[test]
fn sweep_degenerate_inputs_never_panic() {
    let specials = special_values();
    let theme = ChartTheme::light();
    for &log_x in &[false, true] {
        for &log_y in &[false, true] {
            // single point
            let mut m = SweepChart {
                series: vec![ChartSeries {
                    label: "one".into(),
                    points: vec![(3.0, 5.0)],
                    series_idx: 0,
                    scatter: false,
                    oom_from: None,
                }],
                log_x,
                log_y,
                ..Default::default()
            };
            let svg = sweep::render_svg(&m, &theme, W, H).unwrap();
            assert_sane_svg(&svg);
            assert!(!has_text(&svg, sweep::EMPTY_MESSAGE));

            // identical points
            m.series[0].points = vec![(2.0, 2.0); 5];
            assert_sane_svg(&sweep::render_svg(&m, &theme, W, H).unwrap());

            // every pair of special values, mixed with good data
            for &a in &specials {
                for &b in &specials {
                    m.series = vec![
                        ChartSeries {
                            label: "mixed".into(),
                            points: vec![(1.0, 1.0), (a, b), (2.0, 4.0), (b, a), (a, a)],
                            series_idx: 3,
                            scatter: false,
                            oom_from: None,
                        },
                        ChartSeries {
                            label: "only specials".into(),
                            points: vec![(a, b), (b, a)],
                            series_idx: 99,
                            scatter: false,
                            oom_from: None,
                        },
                    ];
                    m.hlines = vec![HLine {
                        label: "h".into(),
                        y: a,
                        series_idx: 1,
                    }];
                    m.vlines = vec![VLine {
                        x: b,
                        label: "v".into(),
                    }];
                    m.crossovers = vec![Marker::new(a, b, "c")];
                    let svg = sweep::render_svg(&m, &theme, W, H).unwrap();
                    assert_sane_svg(&svg);
                }
            }
        }
    }
    // Huge range on log axes.
    let m = SweepChart {
        series: vec![ChartSeries {
            label: "huge".into(),
            points: vec![(1e-300, 1e-300), (1.0, 1.0), (1e300, 1e300)],
            series_idx: 0,
            scatter: false,
            oom_from: None,
        }],
        log_x: true,
        log_y: true,
        ..Default::default()
    };
    let (svg, g) = sweep::render_svg_with_geometry(&m, &theme, W, H).unwrap();
    assert_sane_svg(&svg);
    assert!(texts(&svg).len() < 60, "too many tick labels");
    assert!(within(&g.x, 1e-300) && within(&g.x, 1e300));
    // Only reference lines, no series.
    let m = SweepChart {
        hlines: vec![HLine {
            label: "peak".into(),
            y: 10.0,
            series_idx: 0,
        }],
        vlines: vec![VLine {
            x: 5.0,
            label: "v".into(),
        }],
        ..Default::default()
    };
    assert_sane_svg(&sweep::render_svg(&m, &theme, W, H).unwrap());
}

#[test]
fn roofline_degenerate_inputs_never_panic() {
    let specials = special_values();
    let theme = ChartTheme::dark();
    for &a in &specials {
        for &b in &specials {
            let m = RooflineChart {
                title: "degenerate".into(),
                ceilings: vec![
                    Ceiling {
                        label: "c".into(),
                        flops_per_s: a,
                        series_idx: 0,
                    },
                    Ceiling {
                        label: "c2".into(),
                        flops_per_s: 1e12,
                        series_idx: 1,
                    },
                ],
                slopes: vec![
                    Slope {
                        label: "s".into(),
                        bytes_per_s: b,
                        series_idx: 0,
                        dashed: false,
                    },
                    Slope {
                        label: "s-link".into(),
                        bytes_per_s: a,
                        series_idx: 0,
                        dashed: true,
                    },
                ],
                ridges: vec![Marker::new(a, b, "r")],
                points: vec![
                    PointMark {
                        x: a,
                        y: b,
                        label: "p".into(),
                        series_idx: 7,
                    },
                    PointMark {
                        x: b,
                        y: a,
                        label: "q".into(),
                        series_idx: 1000,
                    },
                ],
                shade_regions: true,
                ..Default::default()
            };
            let svg = roofline::render_svg(&m, &theme, W, H).unwrap();
            assert_sane_svg(&svg);
        }
    }
    // Only slopes; only one point; only a ceiling.
    let only_slope = RooflineChart {
        slopes: vec![Slope {
            label: "HBM".into(),
            bytes_per_s: 1e12,
            series_idx: 0,
            dashed: false,
        }],
        ..Default::default()
    };
    let only_point = RooflineChart {
        points: vec![PointMark {
            x: 10.0,
            y: 1e12,
            label: "op".into(),
            series_idx: 0,
        }],
        ..Default::default()
    };
    let only_ceiling = RooflineChart {
        ceilings: vec![Ceiling {
            label: "peak".into(),
            flops_per_s: 1e14,
            series_idx: 0,
        }],
        shade_regions: true,
        ..Default::default()
    };
    for m in [only_slope, only_point, only_ceiling] {
        let (svg, g) = roofline::render_svg_with_geometry(&m, &theme, W, H).unwrap();
        assert_sane_svg(&svg);
        assert!(g.has_data);
    }
}

#[test]
fn odd_canvas_sizes() {
    let s = first_load_sweep();
    let r = first_load_roofline();
    let t = ChartTheme::light();
    assert!(sweep::render_svg(&s, &t, 0, 0).is_err());
    assert!(roofline::render_svg(&r, &t, 100, 0).is_err());
    for (w, h) in [
        (1, 1),
        (10, 10),
        (60, 40),
        (120, 80),
        (3000, 50),
        (50, 3000),
    ] {
        let svg = sweep::render_svg(&s, &t, w, h).unwrap();
        assert_sane_svg(&svg);
        let svg = roofline::render_svg(&r, &t, w, h).unwrap();
        assert_sane_svg(&svg);
    }
    // Silly scales are clamped, not fatal.
    for scale in [0.0, -1.0, f64::NAN, 1e9] {
        let mut theme = ChartTheme::light();
        theme.scale = scale;
        assert_sane_svg(&roofline::render_svg(&r, &theme, W, H).unwrap());
        theme.palette.clear();
        assert_sane_svg(&sweep::render_svg(&s, &theme, W, H).unwrap());
    }
}

// ---------------------------------------------------------------------------
// Geometry and hit-testing.

fn sample_geometry(log: bool) -> ChartGeometry {
    ChartGeometry {
        width: 800,
        height: 450,
        plot: PixelRect::new(60.0, 30.0, 780.0, 400.0),
        x: AxisScale::new(if log { 0.1 } else { 0.0 }, 1000.0, log),
        y: AxisScale::new(if log { 1e9 } else { 0.0 }, 1e15, log),
        has_data: true,
    }
}

#[test]
fn geometry_maps_range_ends_to_the_plot_corners() {
    for log in [false, true] {
        let g = sample_geometry(log);
        let close =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9;
        // (lo, lo) is the bottom-left corner, (hi, hi) the top-right one.
        let bl = g.to_pixel(g.x.lo, g.y.lo).unwrap();
        assert!(close(bl, (g.plot.left, g.plot.bottom)), "{bl:?}");
        let tr = g.to_pixel(g.x.hi, g.y.hi).unwrap();
        assert!(close(tr, (g.plot.right, g.plot.top)), "{tr:?}");
        // Halfway along each axis (the mean on a linear one, the geometric mean on a log one)
        // is the middle of the plot area.
        let mid = |lo: f64, hi: f64| {
            if log {
                (lo * hi).sqrt()
            } else {
                (lo + hi) / 2.0
            }
        };
        let m = g
            .to_pixel(mid(g.x.lo, g.x.hi), mid(g.y.lo, g.y.hi))
            .unwrap();
        let centre = (
            (g.plot.left + g.plot.right) / 2.0,
            (g.plot.top + g.plot.bottom) / 2.0,
        );
        assert!(
            (m.0 - centre.0).abs() < 1e-6 && (m.1 - centre.1).abs() < 1e-6,
            "{m:?}"
        );
    }
    let g = sample_geometry(true);
    assert_eq!(g.to_pixel(0.0, 1e12), None);
    assert_eq!(g.to_pixel(-1.0, 1e12), None);
    assert_eq!(g.to_pixel(f64::NAN, 1e12), None);
    // Log axis: one decade = equal pixel distance.
    let (a, _) = g.to_pixel(1.0, 1e12).unwrap();
    let (b, _) = g.to_pixel(10.0, 1e12).unwrap();
    let (c, _) = g.to_pixel(100.0, 1e12).unwrap();
    assert!(((b - a) - (c - b)).abs() < 1e-9);
}

#[test]
fn geometry_matches_drawing() {
    // The geometry returned by draw maps the crossover to where the ring is.
    let model = first_load_sweep();
    let (svg, g) = sweep::render_svg_with_geometry(&model, &ChartTheme::light(), W, H).unwrap();
    let (px, py) = g.to_pixel(136.1, PEAK).unwrap();
    let needle = format!("cx=\"{}\" cy=\"{}\"", px.round() as i64, py.round() as i64);
    assert!(svg.contains(&needle), "no marker at {needle}");
}

#[test]
fn nearest_point_picks_the_closest_in_pixels() {
    let g = sample_geometry(true);
    let pts = vec![
        (0, 1.0, 1e12),
        (1, 10.0, 1e13),
        (1, 100.0, 1e14),
        (2, f64::NAN, 1.0),
    ];
    for (i, &(_, x, y)) in pts.iter().enumerate().take(3) {
        let (px, py) = g.to_pixel(x, y).unwrap();
        let hit = nearest_point(&pts, &g, px + 3.0, py - 2.0).unwrap();
        assert_eq!(hit.index, i);
        assert_eq!(hit.series, pts[i].0);
        assert!((hit.distance_px - 13f64.sqrt()).abs() < 1e-9);
    }
    assert!(nearest_point(&[], &g, 100.0, 100.0).is_none());
    assert!(nearest_point(&[(0, f64::NAN, 1.0)], &g, 100.0, 100.0).is_none());
    assert!(nearest_point(&pts, &g, f64::NAN, 100.0).is_none());

    // With a drawn chart and the model's own hit list.
    let model = first_load_roofline();
    let (_, geo) = roofline::render_svg_with_geometry(&model, &ChartTheme::light(), W, H).unwrap();
    let hits = model.hit_points();
    let target = 4; // H100 matmul B=64
    let (px, py) = geo
        .to_pixel(model.points[target].x, model.points[target].y)
        .unwrap();
    let hit = nearest_point(&hits, &geo, px + 1.0, py + 1.0).unwrap();
    assert_eq!(hit.index, target);

    let sweep_model = first_load_sweep();
    let (_, geo) =
        sweep::render_svg_with_geometry(&sweep_model, &ChartTheme::light(), W, H).unwrap();
    let hits = sweep_model.hit_points();
    // B = 50 on the D=F=1024 curve.
    let (x, y) = sweep_model.series[1].points[49];
    let (px, py) = geo.to_pixel(x, y).unwrap();
    let hit = nearest_point(&hits, &geo, px, py).unwrap();
    assert_eq!(hit.series, 1);
    assert_eq!(hits[hit.index], (1, x, y));
}

// ---------------------------------------------------------------------------
// Formatting and ticks.

#[test]
fn si_formatter() {
    assert_eq!(format_si(1e14, 3), "100T");
    assert_eq!(format_si(2e11, 3), "200G");
    assert_eq!(format_si(0.5, 3), "0.5");
    assert_eq!(format_si(1024.0, 3), "1024");
    assert_eq!(format_si(1.97e14, 3), "197T");
    assert_eq!(format_si(3.35e12, 3), "3.35T");
    assert_eq!(format_si(0.1, 3), "0.1");
    assert_eq!(format_si(1e4, 3), "10k");
}

#[test]
fn log_tick_choices() {
    // Wide range: decades only, with 2..9 minor ticks.
    let t = log_ticks(0.1, 1e4, 10);
    assert_eq!(t.major, vec![0.1, 1.0, 10.0, 100.0, 1000.0, 1e4]);
    assert!(t.minor.contains(&20.0));
    // Small range: 2× and 5× too.
    let t = log_ticks(1.0, 1000.0, 10);
    assert_eq!(t.major.len(), 10);
    assert!(t.major.contains(&50.0) && t.major.contains(&200.0));
    // Huge range: thinned decades, bounded count.
    let t = log_ticks(1e-300, 1e300, 10);
    assert!(t.major.len() <= 10 && t.major.len() >= 2);
    // Less than a decade.
    let t = log_ticks(3.0, 7.0, 8);
    assert!(t.major.len() >= 2);
}

/// A compact chart (an embed of 320×240, a phone) puts its legend in a strip under the plot
/// instead of over the curves (issue 38, point 9: above it, a phone's frontier kept 80 px of
/// plot): both legend labels are drawn below the plot's bottom edge, and the plot keeps its
/// top.
#[test]
fn a_compact_chart_puts_its_legend_under_the_plot() {
    let model = first_load_sweep();
    let theme = ChartTheme::light();
    let (_, wide) = sweep::render_svg_with_geometry(&model, &theme, 960, 540).unwrap();
    let (svg, narrow) = sweep::render_svg_with_geometry(&model, &theme, 320, 240).unwrap();
    assert!(
        (narrow.plot.top - wide.plot.top).abs() < 1.0,
        "the plot moved down: {} vs {}",
        narrow.plot.top,
        wide.plot.top
    );
    for label in ["D = F = 4096", "D = F = 1024"] {
        let (_, y) = text_at(&svg, label).unwrap_or_else(|| panic!("{label} not drawn"));
        assert!(
            y as f64 > narrow.plot.bottom,
            "{label} at y = {y}, not under the plot (bottom {})",
            narrow.plot.bottom
        );
    }
    assert!(narrow.plot.height() >= 60.0, "{:?}", narrow.plot);
}

/// Issue 38, point 9: a legend lists at most 8 entries and folds the rest into "+N more": 20
/// operations on 5 chips (100 curves) no longer draw a legend over the whole plot, on a wide
/// chart (a box in the plot) or a narrow one (a strip under it, which leaves the plot at least
/// 60 px).
#[test]
fn a_long_legend_folds_past_eight_entries() {
    let series: Vec<ChartSeries> = (0..100)
        .map(|i| ChartSeries {
            label: format!("op {} · chip {}", i % 20, i / 20),
            points: (1..=32).map(|b| (b as f64, (b * (i + 1)) as f64)).collect(),
            series_idx: i,
            scatter: false,
            oom_from: None,
        })
        .collect();
    let model = SweepChart {
        title: "a hundred curves".into(),
        x_label: "B".into(),
        y_label: "y".into(),
        series,
        ..Default::default()
    };
    for (w, h) in [(W, H), (390, 260)] {
        let (svg, g) = sweep::render_svg_with_geometry(&model, &ChartTheme::light(), w, h).unwrap();
        let legend: Vec<String> = texts(&svg)
            .into_iter()
            .filter(|t| t.starts_with("op ") || t.ends_with(" more"))
            .collect();
        assert!(legend.len() <= 9, "{w}×{h}: {legend:?}");
        let more = legend.last().unwrap();
        let shown = legend.len() - 1;
        assert_eq!(
            *more,
            format!("+{} more", 100 - shown),
            "{w}×{h}: {legend:?}"
        );
        assert_eq!(legend[0], "op 0 · chip 0");
        assert!(g.plot.height() >= 60.0, "{w}×{h}: {:?}", g.plot);
    }
}

/// Issue 38, point 9: on a phone (390×260) the serving frontier's plot keeps most of the
/// canvas: three curves' legend sits under it, the plot at least 120 px tall (it was 80,
/// half of it legend) and its x axis in time units.
#[test]
fn a_phone_frontier_keeps_its_plot() {
    use roofline_lab::charts::{FrontierChart, FrontierCurve, FrontierMark};
    let curve = |k: usize| FrontierCurve {
        label: format!("Llama 3 8B decode · chip {k}"),
        series_idx: k,
        points: (0..10)
            .map(|i| {
                let b = 2f64.powi(i);
                FrontierMark {
                    batch: b,
                    tpot: 5e-3 * (1.0 + b / 64.0) * (k + 1) as f64,
                    tokens_per_s_chip: b / (5e-3 * (1.0 + b / 64.0)),
                    fits: i < 8,
                }
            })
            .collect(),
        max_batch: 128.0,
    };
    let model = FrontierChart {
        title: "Serving frontier".into(),
        x_label: "time per output token".into(),
        y_label: "output tokens/s per chip".into(),
        curves: (0..3).map(curve).collect(),
    };
    let (svg, g) = roofline_lab::charts::render_svg_with::<roofline_lab::charts::NoBackend, _>(
        390,
        260,
        &ChartTheme::light(),
        |root, t| roofline_lab::charts::frontier::draw(root, &model, t),
    )
    .unwrap();
    assert!(g.plot.height() >= 120.0, "{:?}", g.plot);
    // 5 ms per token and more: ticks in ms, not raw seconds.
    assert!(
        texts(&svg).iter().any(|t| t.ends_with(" ms")),
        "{:?}",
        texts(&svg)
    );
    assert!(
        !texts(&svg).iter().any(|t| t.starts_with("0.0")),
        "{:?}",
        texts(&svg)
    );
}

/// Issue 24, point 5: 12 series stay apart. The palette's 8 colours come round again dashed, so
/// no two of 32 series share colour and dash; in the drawing, series 8 repeats series 0's
/// colour as many short strokes (its dashes) beside series 0's one solid curve, and the legend
/// names the first 8 and counts the rest.
#[test]
fn twelve_series_differ_in_colour_or_dash() {
    let theme = ChartTheme::light();
    let mut seen = std::collections::HashSet::new();
    for i in 0..32 {
        let key = (
            hex(theme.color(i)),
            theme.dash(i).map(|(a, b)| (a.to_bits(), b.to_bits())),
        );
        assert!(seen.insert(key), "series {i} repeats an earlier one");
    }
    assert_eq!(theme.dash(0), None);
    assert!(theme.dash(8).is_some());
    let series: Vec<ChartSeries> = (0..12)
        .map(|i| ChartSeries {
            label: format!("series {i}"),
            points: (1..=64).map(|b| (b as f64, (b * (i + 1)) as f64)).collect(),
            series_idx: i,
            scatter: false,
            oom_from: None,
        })
        .collect();
    let model = SweepChart {
        title: "twelve".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        series,
        ..Default::default()
    };
    let svg = sweep::render_svg(&model, &theme, W, H).unwrap();
    assert_sane_svg(&svg);
    // The legend lists 8 and folds the other 4 (issue 38, point 9).
    for i in 0..8 {
        assert!(has_text(&svg, &format!("series {i}")), "legend entry {i}");
    }
    assert!(has_text(&svg, "+4 more"), "{:?}", texts(&svg));
    let c0 = hex(theme.color(0));
    assert!(
        count_stroked(&svg, "polyline", &c0) > 6,
        "series 8's dashes in series 0's colour: {}",
        count_stroked(&svg, "polyline", &c0)
    );
}

/// Issue 24, point 5: measured kernels on the roofline have a legend entry of their own, named
/// with their count, beside the operations' entries.
#[test]
fn measured_markers_have_a_legend_entry() {
    let mut model = first_load_roofline();
    model.measured = vec![
        MeasuredMark {
            x: 10.0,
            y: 1e12,
            predicted_y: 8.2e12,
            label: "k1".into(),
        },
        MeasuredMark {
            x: 300.0,
            y: 1e14,
            predicted_y: 1.97e14,
            label: "k2".into(),
        },
    ];
    let theme = ChartTheme::light();
    let svg = roofline::render_svg(&model, &theme, W, H).unwrap();
    assert!(has_text(&svg, "measured kernels (2)"), "{:?}", texts(&svg));
    let without = roofline::render_svg(&first_load_roofline(), &theme, W, H).unwrap();
    assert!(!texts(&without)
        .iter()
        .any(|t| t.starts_with("measured kernels")));
}

/// `(x, y)` of the `<text>` element whose content is `s`, if drawn.
fn text_at(svg: &str, s: &str) -> Option<(i64, i64)> {
    svg.split("<text").skip(1).find_map(|t| {
        let (attrs, body) = t.split_once('>')?;
        if body.split("</text>").next()?.trim() != s {
            return None;
        }
        let attr = |k: &str| -> Option<i64> {
            let v = attrs.split(&format!(" {k}=\"")).nth(1)?.split('"').next()?;
            v.parse::<f64>().ok().map(|f| f.round() as i64)
        };
        Some((attr("x")?, attr("y")?))
    })
}

/// Issue 24, point 5: reference-line labels (an out-of-memory line, a knee) never print over
/// each other. Five lines at one x offer the same four spots: four labels take one each, the
/// fifth is left out (its line stays), and no two share a spot.
#[test]
fn reference_labels_never_overprint() {
    let mut model = first_load_sweep();
    model.vlines = (0..5)
        .map(|i| VLine {
            x: 300.0,
            label: format!("line {i} label"),
        })
        .collect();
    let svg = sweep::render_svg(&model, &ChartTheme::light(), W, H).unwrap();
    let drawn: Vec<(i64, i64)> = (0..5)
        .filter_map(|i| text_at(&svg, &format!("line {i} label")))
        .collect();
    assert_eq!(drawn.len(), 4, "{drawn:?}");
    let mut spots = drawn.clone();
    spots.sort_unstable();
    spots.dedup();
    assert_eq!(
        spots.len(),
        drawn.len(),
        "two labels on one spot: {drawn:?}"
    );
}

/// Issue 24, point 5: a title wider than a phone's canvas is shortened with an ellipsis inside
/// the canvas instead of being clipped at both ends.
#[test]
fn a_long_title_fits_a_narrow_canvas() {
    let mut model = first_load_sweep();
    model.title = "Achieved FLOPs/s vs B (sequences) (H100 SXM, TPU v5e, B200, MI300X)".into();
    let svg = sweep::render_svg(&model, &ChartTheme::light(), 340, 260).unwrap();
    assert!(!has_text(&svg, &model.title), "drawn whole at 340 px");
    let title = texts(&svg)
        .into_iter()
        .find(|t| t.starts_with("Achieved FLOPs/s"))
        .expect("a shortened title");
    assert!(title.ends_with('…'), "{title}");
    let (x, _) = text_at(&svg, &title).unwrap();
    assert!((0..=340).contains(&x), "{x}");
    let wide = sweep::render_svg(&model, &ChartTheme::light(), 1400, 600).unwrap();
    assert!(has_text(&wide, &model.title));
}

/// Issue 24, point 9: a time axis carries its unit in each tick (`20 µs`, `1 ms`), never an
/// exponent (`2e-5`); other axes keep their SI prefixes.
#[test]
fn time_axes_tick_in_time_units() {
    use roofline_lab::charts::format_time_ticks;
    assert_eq!(
        format_time_ticks(&[0.0, 2e-5, 4e-5, 6e-5]),
        ["0 s", "20 µs", "40 µs", "60 µs"]
    );
    assert_eq!(
        format_time_ticks(&[1e-6, 1e-3, 1.0]),
        ["1 µs", "1 ms", "1 s"]
    );
    assert_eq!(format_time_ticks(&[1.5e-3, 2.5e-3]), ["1.5 ms", "2.5 ms"]);
    let model = SweepChart {
        title: "time".into(),
        x_label: "B".into(),
        y_label: "T_lower".into(),
        series: vec![ChartSeries {
            label: "t".into(),
            points: (1..=64).map(|b| (b as f64, b as f64 * 1e-6)).collect(),
            series_idx: 0,
            scatter: false,
            oom_from: None,
        }],
        y_unit: Some(::roofline::units::Unit::Seconds),
        ..Default::default()
    };
    let svg = sweep::render_svg(&model, &ChartTheme::light(), W, H).unwrap();
    let t = texts(&svg);
    assert!(t.iter().any(|l| l.ends_with(" µs")), "{t:?}");
    assert!(!t.iter().any(|l| l.contains("e-")), "{t:?}");
}

/// Issue 24, point 2: the stretch of a curve that does not fit in memory is drawn faint and
/// dotted, the rest as before; a curve that fits everywhere has no faint stretch, and one that
/// fits nowhere has no solid one.
#[test]
fn a_curve_beyond_memory_is_faint_and_dotted() {
    let theme = ChartTheme::light();
    let c0 = hex(theme.color(0));
    let chart = |oom_from: Option<f64>| SweepChart {
        title: "oom".into(),
        x_label: "B".into(),
        y_label: "y".into(),
        series: vec![ChartSeries {
            label: "llm".into(),
            points: (1..=64).map(|b| (b as f64, b as f64)).collect(),
            series_idx: 0,
            scatter: false,
            oom_from,
        }],
        ..Default::default()
    };
    // Polylines in the series' colour: (solid, faint). The faint ones carry an opacity.
    let lines = |svg: &str| {
        let stroke = format!("stroke=\"{c0}\"");
        let els: Vec<&str> = svg
            .split("<polyline ")
            .skip(1)
            .map(|el| el.split('>').next().unwrap_or(""))
            .filter(|el| el.contains(&stroke))
            .collect();
        let faint = els
            .iter()
            .filter(|el| el.contains("opacity=\"0.45"))
            .count();
        (els.len() - faint, faint)
    };
    let fits = sweep::render_svg(&chart(None), &theme, W, H).unwrap();
    let (solid, faint) = lines(&fits);
    assert!(
        solid >= 1 && faint == 0,
        "fits everywhere: {solid} solid, {faint} faint"
    );
    let half = sweep::render_svg(&chart(Some(32.0)), &theme, W, H).unwrap();
    let (solid_half, faint_half) = lines(&half);
    // The legend's swatch and the curve up to B = 32 solid; 32 → 64 in dots (many short runs).
    assert!(solid_half >= 1, "{solid_half} solid");
    assert!(faint_half > 5, "{faint_half} faint dots");
    let none = sweep::render_svg(&chart(Some(f64::NEG_INFINITY)), &theme, W, H).unwrap();
    let (_, faint_none) = lines(&none);
    assert!(faint_none > faint_half, "{faint_none} vs {faint_half}");
    assert_sane_svg(&half);
}
