use super::*;

const LINK: &str = "?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096";

#[test]
fn a_link_draws_its_own_plot_key_line_and_results() {
    let d = Drawn::from_query(LINK).expect("the link draws");
    assert!(!d.embed());
    let html = d.html();
    let s = roofline::url::decode(LINK).scenario;
    assert!(html.contains(&esc(&view::key_line(&s))), "{html}");
    assert!(html.contains("H100") && html.contains("B200"), "{html}");
    assert!(html.contains(r#"data-drawn-plot="0""#));
    // Not the front page's.
    assert!(!html.contains("data-front-question"));
    assert!(!html.contains("sv-front"));
    let svg = d.svg(0, 700, 394, false).expect("the plot draws");
    assert!(svg.starts_with("<svg") && svg.contains(r#"viewBox="0 0 700 394""#));
    assert!(!svg.contains(" style="));
    assert_eq!(d.svg(d.plots(), 700, 394, false), None);
    assert_eq!(d.svg(0, 0, 394, false), None);
    assert_eq!(d.svg(0, 700, 1_000_000, false), None);
}

#[test]
fn an_embed_draws_the_embeds_view() {
    let d = Drawn::from_query(&format!("{LINK}&embed=1")).expect("the embed draws");
    assert!(d.embed());
    assert_eq!(d.plots(), 1);
    let html = d.html();
    assert!(
        html.contains(r#"<main class="embed-view" data-embed="true">"#),
        "{html}"
    );
    let s = roofline::url::decode(LINK).scenario;
    let key = view::key_line_with(&s, KeyLineDetail::Compact);
    assert!(html.contains(&format!(">{}</span>", esc(&key))), "{html}");
    assert!(!html.contains("sv-page"));
    // What the app's embed has: the plot's kind, the link back, the data for screen readers.
    assert!(
        html.contains(r#"data-drawn-plot="0" data-chart="sweep""#),
        "{html}"
    );
    assert!(html.contains(r#"data-open-app="true""#), "{html}");
    assert!(
        html.contains(r#"<table data-chart-table="sweep">"#),
        "{html}"
    );
    assert!(
        html.contains("<td>llama3-8b decode · H100 SXM</td><td>1</td>"),
        "{html}"
    );
    // Not ready until the page's script makes it live.
    assert!(!html.contains("data-ready"), "{html}");
}

/// The live embed's read-out: nothing before the plot is drawn; on a plotted point, the app's
/// words for it (the series, x and y as the results table writes them); nothing far away.
#[test]
fn an_embeds_readout_names_the_point_under_the_pointer() {
    let d = Drawn::from_query(&format!("{LINK}&embed=1")).expect("the embed draws");
    assert_eq!(d.readout(0, 300.0, 200.0), None, "not drawn yet");
    d.svg(0, 640, 400, false).expect("the plot draws");
    let ChartModel::Sweep(m) = &d.charts[0] else {
        panic!("an llm link's embed plots its sweep")
    };
    let series = &m.series[0];
    let (x, y) = series.points[series.points.len() / 2];
    let g = d.drawn.borrow()[0].expect("drawn");
    let (px, py) = g.to_pixel(x, y).expect("on the plot");
    assert!((0.0..640.0).contains(&px) && (0.0..400.0).contains(&py));
    let text = d.readout(0, px, py).expect("a point under the pointer");
    assert!(text.starts_with(&format!("{} — ", series.label)), "{text}");
    assert_eq!(
        Some(text.clone()),
        d.charts[0].readout(&g, px, py, 24.0),
        "the app's read-out"
    );
    assert_eq!(d.readout(0, -500.0, -500.0), None, "{text}");
    assert_eq!(d.readout(1, px, py), None, "no second plot");
}

#[test]
fn a_bad_link_draws_nothing() {
    for q in [
        "?chip=nonesuch",
        "?op=llm:preset=llama3-8b,b=-1",
        "?op=%ff%fe",
        "?plot=validation",
        "?op=nonsense:x=1",
    ] {
        if let Some(d) = Drawn::from_query(q) {
            // What draws at all must not fail.
            let _ = d.html();
            let _ = d.svg(0, 300, 200, true);
        }
    }
    assert!(Drawn::from_query("?chip=nonesuch").is_none());
}

/// Nothing a link carries becomes markup: a custom chip's name and an operation's label with
/// markup in them come out as text, in the page and in the plot.
#[test]
fn names_from_a_link_are_escaped() {
    let link = "?chip=h100:name=%3Cscript%3Ealert(1)%3C%2Fscript%3E\
                &chip=custom:name=%3Cimg%20src%3Dx%20onerror%3Dalert(2)%3E,bf16=1e15,hbm=3e12,hbm_cap=80e9\
                &op=matmul:d=4096,f=4096,label=%3Cb%20onclick%3Dalert(3)%3Ex%3C%2Fb%3E\
                &base=1.2";
    let d = roofline::url::decode(link);
    let names: Vec<&str> = d.scenario.chips.iter().map(|c| c.name.as_str()).collect();
    assert!(
        names.iter().any(|n| n.contains("<script>")),
        "{names:?} {:?}",
        d.notices
    );
    assert!(
        names.iter().any(|n| n.contains("<img")),
        "{names:?} {:?}",
        d.notices
    );
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let d = Drawn::from_query(link).expect("the link draws");
    let html = d.html();
    for bad in ["<script", "<img", "<b "] {
        assert!(!html.contains(bad), "{bad} in {html}");
    }
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(
        html.contains("&lt;img src=x onerror=alert(2)&gt;"),
        "{html}"
    );
    assert!(html.contains("baseline ✓"), "the link's baseline: {html}");
    for i in 0..d.plots() {
        let svg = d.svg(i, 400, 300, false).unwrap();
        assert!(
            !svg.contains("<script") && !svg.contains("<img") && !svg.contains("<b "),
            "{svg}"
        );
    }
    assert_eq!(
        esc("<script>alert(1)</script>"),
        "&lt;script&gt;alert(1)&lt;/script&gt;"
    );
    assert_eq!(esc(r#"a"b'c&"#), "a&quot;b&#39;c&amp;");
}

/// The front page drawn at build time is the front page's: its question, its four plots.
#[test]
fn the_front_page_is_the_default_scenarios() {
    let html = front_page().unwrap();
    assert!(html.contains("data-front-question"));
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(!html.contains(" style="));
}

/// The front page drawn at build time is byte for byte the committed copy
/// (`tests/fixtures/static-view.html`, what `cargo run --bin static-view` writes): a change to the
/// shared renderer must not change it by accident. After a change meant to show on the front
/// page, `UPDATE_GOLDEN=1 cargo test -p roofline-lab --lib first_view` writes the copy anew.
#[test]
fn the_front_page_is_the_committed_one() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/static-view.html"
    );
    let got = front_page().unwrap();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &got).unwrap();
    }
    let want = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        got == want,
        "the front page differs from {path}; if meant, rerun with UPDATE_GOLDEN=1"
    );
}
