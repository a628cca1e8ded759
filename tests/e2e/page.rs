//! End-to-end: state people can see and undo (issue 17): the theme control kept in the link,
//! worked examples as history entries that Back undoes, toggles that show which one is on,
//! help text that does not move the page, and critical sizes that say which number is exact.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::{assert_boxes_kept, close_to, num, Browser};

/// Chooses `value` in the `select[name=...]` `name`, as a user would.
async fn choose(b: &Browser, name: &str, value: &str) {
    b.js(&format!(
        "const s = document.querySelector('select[name={name}]'); s.value = {value:?}; s.dispatchEvent(new Event('change', {{bubbles: true}}));"
    ))
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_theme_control_switches_the_page_and_is_kept_in_the_link() {
    let b = Browser::start().await;
    b.open("/").await;
    let theme = "return [document.documentElement.dataset.theme || 'none', getComputedStyle(document.body).backgroundColor]";
    let light = b.js(theme).await;
    choose(&b, "theme", "dark").await;
    let dark = b.js(theme).await;
    assert_eq!(dark[0], "dark");
    assert_ne!(dark[1], light[1], "the page's colours did not change");
    assert!(b.settled_search().await.contains("theme=dark"));
    // A link with theme=dark opens dark, with the control on dark.
    let link = b.settled_search().await;
    b.open(&format!("/{link}")).await;
    assert_eq!(b.js(theme).await[0], "dark");
    assert_eq!(
        b.js("return document.querySelector('select[name=theme]').value")
            .await,
        "dark"
    );
    choose(&b, "theme", "auto").await;
    assert_eq!(b.js(theme).await[0], "none");
    assert!(!b.settled_search().await.contains("theme="));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Loading a worked example is a step Back undoes: after the chapter's 2-chip network example
/// (critical D = 2·1.97e14/4.5e10 = 8755.6), Back returns to the edited first page (D = 8192
/// typed in op 0: every figure of its row as it was), not to the page before the app; Forward
/// brings the example back; "Start over" is a step too.
#[tokio::test(flavor = "current_thread")]
async fn worked_examples_and_start_over_are_steps_back_undoes() {
    let b = Browser::start().await;
    b.open("/").await;
    b.set_input("[data-op='0'] input[name='d']", "8192").await;
    let edited = b.row_metrics("0", 0).await;
    let edited_link = b.settled_search().await;
    assert!(edited_link.contains("d=8192"), "{edited_link}");
    b.click("button[data-recipe='network']").await;
    let m = b.row_metrics("0", 0).await;
    assert!(close_to(
        num(&m, "critical_d"),
        2.0 * 1.97e14 / 4.5e10,
        1e-9
    ));
    let example_link = b.settled_search().await;
    b.js("history.back()").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(b.settled_search().await, edited_link);
    assert_eq!(b.row_metrics("0", 0).await, edited, "Back did not restore");
    b.js("history.forward()").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(b.settled_search().await, example_link);
    assert!(close_to(
        num(&b.row_metrics("0", 0).await, "critical_d"),
        8755.555555555555,
        1e-9
    ));
    b.click("button[data-recipe='start-over']").await;
    assert!(!b.row_metrics("0", 0).await.contains_key("critical_d"));
    b.js("history.back()").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(b.settled_search().await, example_link);
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

#[tokio::test(flavor = "current_thread")]
async fn toggles_show_which_one_is_on_and_help_does_not_move_the_page() {
    let b = Browser::start().await;
    b.open("/").await;
    // The sweep metric buttons: the pressed one looks different from the others.
    let looks = b
        .js("return [...document.querySelectorAll('button[data-sweep-metric]')].map(e => [e.getAttribute('aria-pressed'), getComputedStyle(e).backgroundColor])")
        .await;
    let looks = looks.as_array().unwrap();
    let on: Vec<_> = looks.iter().filter(|l| l[0] == "true").collect();
    let off: Vec<_> = looks.iter().filter(|l| l[0] == "false").collect();
    assert_eq!(on.len(), 1, "{looks:?}");
    assert!(!off.is_empty());
    assert!(
        off.iter().all(|l| l[1] != on[0][1]),
        "pressed and unpressed look alike: {looks:?}"
    );
    // Focusing a field shows its help over the page; nothing below it moves.
    let where_ = "return [...document.querySelectorAll('.forms .panel, .forms button')].map(e => Math.round(e.getBoundingClientRect().top + scrollY))";
    let before = b.js(where_).await;
    b.js("document.querySelector(\"[data-op='0'] input[name='d']\").focus()")
        .await;
    let note = b
        .js("const n = document.querySelector(\"[data-op='0'] input[name='d']\").closest('.field').querySelector('.note'); return getComputedStyle(n).display")
        .await;
    assert_eq!(note, "block", "the help is not shown");
    assert_eq!(
        b.js(where_).await,
        before,
        "focusing a field moved the page"
    );
    b.js("document.activeElement.blur()").await;
    assert_eq!(b.js(where_).await, before, "leaving a field moved the page");
    // The critical size says which number is the exact crossover and which the rule.
    let crit = b
        .js("return document.querySelector(\"tr[data-op='0'][data-chip='0'] [data-metric='critical_b']\").textContent")
        .await;
    let crit = crit.as_str().unwrap_or_default();
    assert!(crit.contains("rule ≈"), "{crit:?}");
    let title = b
        .js("return document.querySelector(\"tr[data-op='0'][data-chip='0'] [data-metric='critical_b']\").title")
        .await;
    assert!(
        title
            .as_str()
            .unwrap_or_default()
            .starts_with("Exact crossover"),
        "{title}"
    );
    b.close().await;
}

/// WebDriver key codes.
const ARROW_DOWN: &str = "\u{e015}";
const ARROW_RIGHT: &str = "\u{e014}";
const ESCAPE: &str = "\u{e00c}";
const ENTER: &str = "\u{e007}";
const TAB: &str = "\u{e004}";
const SHIFT_TAB: &str = "\u{e008}\u{e004}";

/// Sends `keys` to whatever has the focus, as a keyboard would.
async fn press(b: &Browser, keys: &str) {
    let el = b.client.active_element().await.expect("an active element");
    el.send_keys(keys).await.expect("send keys");
}

/// Waits until the focus is on an item of the open menu (it moves there on the next frame).
async fn focus_in_menu(b: &Browser) {
    for _ in 0..50 {
        let v = b
            .js("return document.activeElement?.getAttribute('role') === 'menuitem'")
            .await;
        if v == true {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the focus did not move into the menu");
}

/// What has the focus: its `data-*` or name, for messages.
async fn focused(b: &Browser) -> String {
    let v = b
        .js("const e = document.activeElement; return e ? (e.dataset.item || e.dataset.menu || e.dataset.action || e.dataset.plot || e.name || e.id || e.tagName) : ''")
        .await;
    v.as_str().unwrap_or_default().to_string()
}

/// "+ add chip" is a menu button, not a `<select>`: arrows only move between its items (three
/// ArrowDowns add nothing), Escape closes it and gives focus back, Enter on an item adds one
/// chip. The plot tabs move with the arrow keys; the Embed dialog takes focus, keeps Tab inside,
/// closes on Escape and gives focus back to its button; the skip link leads to the results.
#[tokio::test(flavor = "current_thread")]
async fn the_keyboard_alone_reaches_menus_tabs_the_embed_dialog_and_the_results() {
    let b = Browser::start().await;
    b.open("/").await;
    let chips = "return document.querySelectorAll('.card[data-chip]').length";
    assert_eq!(b.js(chips).await, 1);
    b.js("document.querySelector(\"button[data-menu='add-chip']\").focus()")
        .await;
    press(&b, ARROW_DOWN).await;
    focus_in_menu(&b).await;
    let first = focused(&b).await;
    for _ in 0..3 {
        press(&b, ARROW_DOWN).await;
    }
    assert_eq!(b.js(chips).await, 1, "arrows added chips");
    assert_ne!(focused(&b).await, first, "arrows did not move in the menu");
    press(&b, ESCAPE).await;
    assert_eq!(
        focused(&b).await,
        "add-chip",
        "Escape did not give focus back"
    );
    assert_eq!(
        b.js("return document.querySelector(\"[data-menu-list='add-chip']\") === null")
            .await,
        true
    );
    press(&b, ARROW_DOWN).await;
    focus_in_menu(&b).await;
    press(&b, ARROW_DOWN).await;
    let item = focused(&b).await;
    press(&b, ENTER).await;
    assert_eq!(b.js(chips).await, 2, "Enter on {item} did not add one chip");
    // The add-operation menu groups its kinds by family.
    b.click("button[data-menu='add-op']").await;
    let headings = b
        .js("return [...document.querySelectorAll(\"[data-menu-list='add-op'] [role=group]\")].map(g => g.getAttribute('aria-label'))")
        .await;
    assert_eq!(
        headings,
        serde_json::json!(["Single operations", "Models", "Collectives"])
    );
    press(&b, ESCAPE).await;

    // Tabs: arrows select the next plot.
    b.js("document.querySelector(\"[role=tab][aria-selected='true']\").focus()")
        .await;
    press(&b, ARROW_RIGHT).await;
    assert_eq!(focused(&b).await, "roofline");
    b.wait_for("canvas[data-chart='roofline']").await;
    assert!(b.settled_search().await.contains("plot=roofline"));

    // The Embed dialog.
    b.js("document.querySelector(\"button[data-action='embed']\").focus()")
        .await;
    press(&b, ENTER).await;
    b.wait_for("[role=dialog] textarea").await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(
        focused(&b).await,
        "embed-snippet",
        "the dialog did not take focus"
    );
    let label = b
        .js("return document.querySelector('label[for=embed-snippet]').textContent")
        .await;
    assert_eq!(label, "HTML to paste");
    for _ in 0..12 {
        press(&b, TAB).await;
        let inside = b
            .js("return document.querySelector('[role=dialog]').contains(document.activeElement)")
            .await;
        assert_eq!(inside, true, "Tab left the dialog");
    }
    for _ in 0..12 {
        press(&b, SHIFT_TAB).await;
        let inside = b
            .js("return document.querySelector('[role=dialog]').contains(document.activeElement)")
            .await;
        assert_eq!(inside, true, "Shift+Tab left the dialog");
    }
    press(&b, ESCAPE).await;
    assert_eq!(
        b.js("return document.querySelector('[role=dialog]') === null")
            .await,
        true
    );
    assert_eq!(focused(&b).await, "embed", "focus did not come back");

    // The skip link is the first stop and leads to the results.
    b.js("document.activeElement.blur(); document.body.focus()")
        .await;
    b.js("document.querySelector('.skip-link').focus()").await;
    let shown = b
        .js("return document.querySelector('.skip-link').getBoundingClientRect().top >= 0")
        .await;
    assert_eq!(shown, true, "the focused skip link is off-screen");
    press(&b, ENTER).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(focused(&b).await, "results");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// An LLM sweep says where its points stop fitting in memory, on the plot and in its table for
/// screen readers: LLaMA 3-70B in int8 on a TPU v5e 4x2 at 8k context fits 42 sequences
/// (applied-inference.md, with the book's 16 GB per chip, hbm_cap=16e9; the hand calculation
/// is in tests/view.rs).
#[tokio::test(flavor = "current_thread")]
async fn an_llm_sweep_shows_where_it_stops_fitting() {
    let b = Browser::start().await;
    b.open(
        "/?chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,ctx=8192&sweep=b:1..64",
    )
    .await;
    b.wait_for("canvas[data-chart='sweep']").await;
    // The screen-reader table follows the plot once edits pause (200 ms).
    let mut text = String::new();
    for _ in 0..40 {
        text = b
            .js("return document.querySelector(\"table[data-chart-table='sweep']\").textContent")
            .await
            .as_str()
            .unwrap_or_default()
            .to_string();
        if text.contains("does not fit") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(text.contains("does not fit in HBM above B = 42"), "{text}");
    assert!(b.canvas_ink("canvas[data-chart='sweep']").await > 1000);
    b.close().await;
}

/// Sliders: dragging D's slider to position 700 of 1000 (2^(20·0.7) = 2^14) sets D = 16384 at
/// once, in the field, the results and, once the drag ends, the link; Page Up doubles, an arrow
/// steps to the next power of two. Chapter 1's bf16 × int8 matmul on TPU v5e with F = 4096:
/// the exact critical B moves with D (hand formula in tests/web.rs), so it must differ.
#[tokio::test(flavor = "current_thread")]
async fn sliders_explore_by_dragging_and_by_keyboard() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8")
        .await;
    let slider = "[data-op='0'] input[name='d'] ~ input.slider";
    let d = "[data-op='0'] input[name='d']";
    let before = b.row_metrics("0", 0).await;
    for pos in ["650", "680", "700"] {
        b.js(&format!(
            "const s = document.querySelector({slider:?}); s.value = '{pos}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));"
        ))
        .await;
    }
    assert_eq!(field_value(&b, d).await, "16384");
    assert_ne!(
        b.row_metrics("0", 0).await.get("critical_b"),
        before.get("critical_b")
    );
    assert!(b.settled_search().await.contains("d=16384"));
    b.js(&format!("document.querySelector({slider:?}).focus()"))
        .await;
    b.client
        .active_element()
        .await
        .unwrap()
        .send_keys("\u{e00e}")
        .await
        .unwrap();
    assert_eq!(field_value(&b, d).await, "32768", "Page Up doubles");
    b.client
        .active_element()
        .await
        .unwrap()
        .send_keys("\u{e013}")
        .await
        .unwrap();
    assert_eq!(
        field_value(&b, d).await,
        "65536",
        "an arrow steps to the next power of two"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// A dot product's vector length N has a slider of its own (issue 22: sliders were keyed by
/// the bare field name, so N took the chip count's slider, capped at 1,024 while N defaults to
/// 4096): its ends are N's whole range, 1 and 1e15, and the default 4096 = 2^12 sits at
/// position round(1000·12·ln 2 / ln 1e15) = 241, not at the end.
#[tokio::test(flavor = "current_thread")]
async fn a_dot_products_n_slider_spans_its_whole_range() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=dot:n=4096").await;
    let slider = "[data-op='0'] input[name='n'] ~ input.slider";
    let n = "[data-op='0'] input[name='n']";
    assert_eq!(field_value(&b, slider).await, "241");
    for pos in ["1000", "0"] {
        b.js(&format!(
            "const s = document.querySelector({slider:?}); s.value = '{pos}'; s.dispatchEvent(new Event('input', {{bubbles: true}}));"
        ))
        .await;
        let want = if pos == "0" { 1.0 } else { 1e15 };
        let text = field_value(&b, n).await;
        let got = roofline::units::parse_quantity(&text).unwrap();
        assert!(close_to(got, want, 1e-12), "position {pos}: N = {got}");
    }
    assert!(b.settled_search().await.contains("op=dot"));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 24, point 10: a field and its slider are one tab stop. On the field, Up steps to the
/// next power of two and Page Up doubles, as the slider would (Left and Right stay with the
/// caret); Tab from D goes to F's field, not to D's slider.
#[tokio::test(flavor = "current_thread")]
async fn a_field_and_its_slider_are_one_tab_stop() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8")
        .await;
    let d = "[data-op='0'] input[name='d']";
    b.js(&format!("document.querySelector({d:?}).focus()"))
        .await;
    press(&b, "\u{e013}").await; // ArrowUp
    assert_eq!(field_value(&b, d).await, "8192");
    press(&b, "\u{e00e}").await; // PageUp
    assert_eq!(field_value(&b, d).await, "16384");
    press(&b, "\u{e015}").await; // ArrowDown
    assert_eq!(field_value(&b, d).await, "8192");
    assert!(b.settled_search().await.contains("d=8192"));
    let slider_tab = b
        .js(&format!(
            "return document.querySelector({:?}).tabIndex",
            format!("{d} ~ input.slider")
        ))
        .await;
    assert_eq!(slider_tab, -1);
    press(&b, "\u{e004}").await; // Tab
    let next = b.js("return document.activeElement.name").await;
    assert_eq!(next, "f", "Tab from D reaches F's field");
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// The text of the input `css`.
async fn field_value(b: &Browser, css: &str) -> String {
    b.js(&format!("return document.querySelector({css:?}).value"))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Issue 24, point 4: choosing a swept field starts it from that field's scale (an array size
/// from 1 B to 1 TB, not the 1..511 left from the batch), sampled log-spaced on a log x axis;
/// a log x axis samples log-spaced points and a linear one linear points. The link writes both
/// (`:log`, `log=x`), so links that say nothing keep their meaning.
#[tokio::test(flavor = "current_thread")]
async fn a_swept_field_brings_its_scale_and_log_axes_log_points() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=collective:bytes=33554432,n=4,topology=line")
        .await;
    choose(&b, "sweep", "bytes").await;
    let search = b.settled_search().await;
    assert!(
        search.contains("sweep=bytes:1..1e12:log") && search.contains("log=x"),
        "{search}"
    );
    let from_to = b
        .js("return [document.querySelector('input[name=sweep-from]').value, document.querySelector('input[name=sweep-to]').value, document.querySelector('input[name=log-x]').checked]")
        .await;
    assert_eq!(from_to, serde_json::json!(["1", "1e12", true]));
    b.click("input[name='log-x']").await;
    let search = b.settled_search().await;
    assert!(
        search.contains("sweep=bytes:1..1e12")
            && !search.contains(":log")
            && !search.contains("log=x"),
        "{search}"
    );
    b.click("input[name='log-x']").await;
    assert!(b.settled_search().await.contains(":log"));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 24, point 1: a link with a calibration shows a marker saying every time includes it,
/// and one click removes it from the page and the link. Issue 38, point 6: the marker is a
/// "calibrated ✕" chip by the plot, in the first screen.
#[tokio::test(flavor = "current_thread")]
async fn a_calibration_is_marked_and_removable() {
    let b = Browser::start().await;
    b.open("/?chip=h100&op=matmul:b=4096,d=4096,f=4096&cal=0.8:0.9:5us")
        .await;
    let marker = b
        .js("const m = document.querySelector('[data-calibrated]'); const r = m.getBoundingClientRect(); const c = document.querySelector('canvas[data-chart]').getBoundingClientRect(); return m ? [m.dataset.calibrated, m.textContent, m.querySelector('button').title, r.bottom <= c.top + 1 && r.top >= 0] : null")
        .await;
    assert_eq!(marker[0], "0.8:0.9:5e-6", "{marker:?}");
    assert_eq!(marker[1], "calibrated ✕", "{marker:?}");
    assert!(
        marker[2]
            .as_str()
            .unwrap()
            .contains("in every time on this page"),
        "{marker:?}"
    );
    assert_eq!(
        marker[3], true,
        "the chip is not above the plot: {marker:?}"
    );
    let key = b
        .js("return document.querySelector('[data-keyline]').textContent")
        .await;
    assert!(
        key.as_str()
            .unwrap()
            .contains("[calibrated: cal=0.8:0.9:5e-6"),
        "{key:?}"
    );
    b.click("button[data-action='remove-calibration']").await;
    assert!(!b.settled_search().await.contains("cal="));
    let gone = b
        .js("return document.querySelector('[data-calibrated]') === null")
        .await;
    assert_eq!(gone, true);
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 24, point 6: worked examples beyond chapter 1, grouped by the book's part, each one
/// click with the book's answer beside ours: sharding.md's AllGather pop quiz (560 µs in the
/// book, 559 µs here), transformers.md's MoE batch (3840; 4171 with the activations counted),
/// training.md's FSDP and TP critical figures (2,550 per chip: 2492 solved on the model; 16-way
/// TP above F/2550 = 11.24) and applied-training.md's 44 days.
#[tokio::test(flavor = "current_thread")]
async fn worked_examples_of_the_later_parts_answer_like_the_book() {
    let b = Browser::start().await;
    b.open("/").await;
    let parts = b
        .js("return [...document.querySelectorAll('.recipe-part')].map(e => e.dataset.part)")
        .await;
    assert_eq!(parts.as_array().unwrap().len(), 5, "{parts:?}");
    // The front page says which of the chapter's questions it draws.
    let q = b.text("[data-front-question]").await;
    assert!(q.contains("Question 3"), "{q}");
    for (id, book, ours) in [
        ("allgather-pop-quiz", "560us", "T = 559 µs"),
        ("moe-e-over-k", "3840", "B = 4171"),
        (
            "fsdp-critical-batch",
            "at least 2,550",
            "2492 tokens per chip",
        ),
        ("tp-critical", "communication bound on 16 way", "Y < 11.24"),
        ("44-days", "about 44 days", "44.68 days"),
    ] {
        b.click(&format!("button[data-recipe='{id}']")).await;
        let answer = b
            .js("const a = document.querySelector('[data-recipe-answer]'); return a ? a.textContent : ''")
            .await;
        let text = answer.as_str().unwrap_or_default();
        assert!(text.contains(book) && text.contains(ours), "{id}: {text}");
    }
    assert!(b.settled_search().await.contains("op=train"));
    // A worked example is no longer the front page: the line goes.
    let gone = b
        .js("return document.querySelector('[data-front-question]') === null")
        .await;
    assert_eq!(gone, serde_json::json!(true));
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// The front page's figures as text: the key line, the plot's label and every row of the results
/// table (`|` between cells), from the static view (`static_view`) or from the app.
async fn front_texts(b: &Browser, static_view: bool) -> serde_json::Value {
    let (root, keyline, label) = if static_view {
        ("[data-static-view]", "[data-static-keyline]", ".sv-plot")
    } else {
        ("main.app", "[data-keyline]", "canvas[data-chart]")
    };
    b.js(&format!(
        r#"const root = document.querySelector({root:?});
        const rows = [...root.querySelectorAll('table.results-table tr')]
            .map(tr => [...tr.children].map(c => c.textContent.trim()).join('|'));
        return {{
            keyline: root.querySelector({keyline:?}).textContent,
            label: root.querySelector({label:?}).getAttribute('aria-label'),
            rows,
        }};"#
    ))
    .await
}

/// What of the static view is on screen: (selector, visible?) for the parts a test cares about.
const SHOWN: &str = r#"
const shown = e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const q = s => document.querySelector(s);
return {
  svgs: [...document.querySelectorAll('[data-static-view] svg')].filter(shown).length,
  keyline: shown(q('[data-static-keyline]')),
  results: shown(q('[data-static-view] table')),
  title: shown(q('[data-static-view] .sv-page h1')),
  frame: shown(q('[data-static-view] .sv-plot')),
  embed_frame: shown(q('[data-static-view] .sv-embed-frame')),
  marks: performance.getEntriesByType('mark').map(m => m.name),
  class: document.documentElement.className,
  url: location.search,
};
"#;

/// Issue 27: the page's first view needs no wasm. The front page drawn at build time is there
/// with the wasm blocked (one plot shown, its key line and results), sets `first-plot`, and the
/// app replaces it with the same numbers.
#[tokio::test(flavor = "current_thread")]
async fn the_static_front_page_is_there_before_the_wasm_and_the_app_takes_it_over() {
    let b = Browser::start().await;
    b.open_without_app("/").await;
    let mut shown = serde_json::Value::Null;
    for _ in 0..50 {
        shown = b.js(SHOWN).await;
        if shown["marks"].to_string().contains("first-plot") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        shown["svgs"], 1,
        "one plot of four (theme × width): {shown}"
    );
    assert_eq!(shown["keyline"], true, "{shown}");
    assert_eq!(shown["results"], true, "{shown}");
    assert_eq!(
        shown["marks"],
        serde_json::json!(["first-plot"]),
        "the static plot sets first-plot, nothing else runs: {shown}"
    );
    let before = front_texts(&b, true).await;
    let static_boxes = b
        .boxes(&[
            "[data-static-view] .sv-plot svg",
            "[data-static-keyline]",
            "[data-static-view] table.results-table",
        ])
        .await;
    assert!(
        before["keyline"].as_str().unwrap().contains("TPU v5e"),
        "{before}"
    );
    assert!(before["rows"].as_array().unwrap().len() >= 3, "{before}");
    // Nothing of the app ran: the static view is still alone on the page.
    assert_eq!(
        b.js("return [document.querySelectorAll('[data-ready]').length, document.querySelectorAll('[data-static-view]').length]")
            .await,
        serde_json::json!([0, 1])
    );

    b.allow_wasm().await;
    b.open("/").await;
    b.wait_for("canvas[data-chart='sweep']").await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-static-view]').length")
            .await,
        0,
        "the app removes the static view"
    );
    let after = front_texts(&b, false).await;
    assert_eq!(before, after, "static view and app disagree");
    // The plot, the key line and the results stay where they were (within 3 px) when the app
    // takes over (a 1280×1000 window: the plot is the column's width, 16:9).
    let app_boxes = b
        .boxes(&[
            "canvas[data-chart]",
            "[data-keyline]",
            "main.app table.results-table",
        ])
        .await;
    assert_boxes_kept(&static_boxes, &app_boxes, 3.0, "static, then the app");
    let marks = b
        .js("return ['first-plot', 'app-ready'].map(n => performance.getEntriesByName(n, 'mark').length)")
        .await;
    assert_eq!(
        marks,
        serde_json::json!([1, 1]),
        "one first-plot (the static plot's), one app-ready"
    );
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}

/// Issue 27: a link (any query) never shows the front page's plot or figures, only a skeleton of
/// the layout (title, panels, plot frame; a plot frame alone for an embed); the app then draws
/// the link's own plot and sets the marks.
#[tokio::test(flavor = "current_thread")]
async fn a_link_shows_a_skeleton_never_the_front_pages_plot() {
    let b = Browser::start().await;
    let link = "/?chip=h100&chip=b200&op=llm:preset=llama3-8b,b=64,ctx=4096";
    b.open_without_app(link).await;
    let shown = b.js(SHOWN).await;
    assert_eq!(shown["svgs"], 0, "{shown}");
    assert_eq!(shown["keyline"], false, "{shown}");
    assert_eq!(shown["results"], false, "{shown}");
    assert_eq!(shown["title"], true, "{shown}");
    assert_eq!(shown["frame"], true, "{shown}");
    assert_eq!(shown["marks"], serde_json::json!([]), "{shown}");

    b.open_without_app(&format!("{link}&embed=1&theme=dark"))
        .await;
    let shown = b.js(SHOWN).await;
    assert_eq!(shown["svgs"], 0, "{shown}");
    assert_eq!(
        shown["title"], false,
        "the embed's skeleton is a plot frame: {shown}"
    );
    assert_eq!(shown["embed_frame"], true, "{shown}");
    assert_eq!(
        b.js("return document.documentElement.dataset.theme").await,
        "dark",
        "the link's theme applies before the app"
    );

    b.allow_wasm().await;
    // An embed's own plot is the draw program's (`first_view::an_embed_is_live_without_the_app`):
    // the skeleton gives way to it, and no app comes.
    for (path, plot) in [
        (link.to_string(), "canvas[data-chart]"),
        (format!("{link}&embed=1"), "[data-drawn-plot] svg"),
    ] {
        let app = plot.starts_with("canvas");
        b.open(&path).await;
        b.wait_for(plot).await;
        let mut marks = serde_json::Value::Null;
        for _ in 0..100 {
            marks = b
                .js("return ['first-plot', 'app-ready'].map(n => performance.getEntriesByName(n, 'mark').length)")
                .await;
            if marks == serde_json::json!([1, 1]) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(marks, serde_json::json!([1, 1]), "{path}");
        assert_eq!(
            b.js("return [document.querySelectorAll('[data-static-view]').length, document.querySelectorAll('.sv-embed-frame').length]")
                .await,
            if app { serde_json::json!([0, 0]) } else { serde_json::json!([1, 0]) },
            "{path}: the app removes the skeleton; an embed's drawn view replaces it"
        );
    }
    b.close().await;
}
