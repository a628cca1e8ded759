//! End-to-end: every form field shows the model's value whenever a scenario replaces the state
//! (issue 38, point 1). A worked example, Back, a link in the page and Start over each load a
//! whole scenario; the fields must show it, or an edit then commits from the wrong base. The
//! test chains every worked example in both orders and compares every field of every card
//! (folded or not), the options and the chip cards' layout with the scenario the address bar
//! decodes to.
#![cfg(not(target_arch = "wasm32"))]

use e2e_harness::Browser;
use roofline::chip::ChipField;
use roofline::scenario::Scenario;
use roofline::FieldType;
use serde_json::Value;

/// Every form field of the page, read in one script after two animation frames (the effects
/// of a replaced scenario have run by then): the operation cards' fields, the chip cards'
/// fields with the names of those folded behind "more fields", the options' fields, and the
/// address bar's query.
const READ_FIELDS: &str = r#"
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => {
  const read = (root) => {
    const f = {}, folded = [];
    root.querySelectorAll('.fields input[name], .fields select[name]').forEach(e => {
      f[e.name] = e.value;
      if (e.closest('details.more-fields')) folded.push(e.name);
    });
    // An operation's kind, in its card's head (a collective has a field `kind` of its own).
    const kind = root.querySelector('.card-head select[name=kind]');
    return { f, folded, kind: kind ? kind.value : null };
  };
  const cards = (css, attr) => [...document.querySelectorAll(css)]
    .map(c => [+c.getAttribute(attr), read(c)]);
  done({
    search: location.search,
    ops: cards('.forms .card[data-op]', 'data-op'),
    chips: cards('.forms .card[data-chip]', 'data-chip'),
    options: read(document.querySelector('#opts-h').closest('section')).f,
  });
}));
"#;

/// Marks every input as one the user has typed in (its value set as text: the browser then
/// shows the `value` property, not the attribute), without changing what it says or firing
/// an event: the state of fields someone has used, in which a view that only updated the
/// attribute kept the old text (issue 38, point 1).
const TOUCH_FIELDS: &str =
    "document.querySelectorAll('.forms input[name]').forEach(e => { e.value = e.value; });";

/// What the page's fields show and the scenario its address holds.
async fn fields(b: &Browser) -> (Value, Scenario) {
    let v = b
        .client
        .execute_async(READ_FIELDS, vec![])
        .await
        .expect("read the fields");
    let s = roofline::url::decode(v["search"].as_str().unwrap_or_default()).scenario;
    (v, s)
}

/// The field `key`'s text in a card read by [`READ_FIELDS`].
fn text<'a>(card: &'a Value, key: &str) -> Option<&'a str> {
    card["f"][key].as_str()
}

/// Every disagreement between the fields and the scenario, in words. A text field agrees when
/// committing its text leaves the model's value as it is (what an edit would start from); a
/// select when it holds the model's value.
fn disagreements(v: &Value, s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let cards = |k: &str| v[k].as_array().cloned().unwrap_or_default();
    let (ops, chips) = (cards("ops"), cards("chips"));
    if ops.len() != s.ops.len() || chips.len() != s.chips.len() {
        out.push(format!(
            "{} operation and {} chip cards for {} and {}",
            ops.len(),
            chips.len(),
            s.ops.len(),
            s.chips.len()
        ));
    }
    for card in &ops {
        let i = card[0].as_u64().unwrap_or(u64::MAX) as usize;
        let Some(op) = s.ops.get(i) else {
            out.push(format!("operation card {i} has no operation"));
            continue;
        };
        let card = &card[1];
        if card["kind"].as_str() != Some(op.kind_id()) {
            out.push(format!(
                "op {i}: kind shows {}, the model is {}",
                card["kind"],
                op.kind_id()
            ));
        }
        let label = op.label.clone().unwrap_or_default();
        if text(card, "label") != Some(label.as_str()) {
            out.push(format!(
                "op {i}: label shows {:?}, the model has {label:?}",
                text(card, "label")
            ));
        }
        for spec in op.fields() {
            let (key, want) = (spec.key, op.get(spec.key));
            let Some(shown) = text(card, key) else {
                out.push(format!("op {i} ({}): no field {key}", op.kind_id()));
                continue;
            };
            let select = matches!(spec.ty, FieldType::DType | FieldType::Choice(_));
            let agrees = if select {
                Some(shown) == want.as_deref()
            } else {
                let mut o = op.clone();
                o.set(key, shown).is_ok() && o.get(key) == want
            };
            if !agrees {
                out.push(format!(
                    "op {i} ({}): {key} shows {shown:?}, the model has {want:?}",
                    op.kind_id()
                ));
            }
        }
    }
    for card in &chips {
        let j = card[0].as_u64().unwrap_or(u64::MAX) as usize;
        let Some(chip) = s.chips.get(j) else {
            out.push(format!("chip card {j} has no chip"));
            continue;
        };
        let card = &card[1];
        let folded: Vec<&str> = card["folded"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for f in ChipField::ALL {
            let key = f.as_str();
            let Some(shown) = text(card, key) else {
                out.push(format!("chip {j} ({}): no field {key}", chip.name));
                continue;
            };
            let agrees = if f == ChipField::Name {
                shown == chip.name
            } else if shown.trim().is_empty() {
                chip.get(f).is_none()
            } else {
                let mut c = chip.clone();
                c.set_str(f, shown).is_ok() && c.get(f) == chip.get(f)
            };
            if !agrees {
                out.push(format!(
                    "chip {j} ({}): {key} shows {shown:?}, the model has {:?}",
                    chip.name,
                    chip.get_str(f)
                ));
            }
            // The card's layout is this chip's: what it has no figure for folds, nothing else.
            let should_fold = roofline_lab::view::is_folded_chip_field(chip, f);
            if folded.contains(&key) != should_fold {
                out.push(format!(
                    "chip {j} ({}): {key} {} behind \"more fields\"",
                    chip.name,
                    if should_fold {
                        "has no figure but is not"
                    } else {
                        "has a figure but is"
                    }
                ));
            }
        }
    }
    let o = &v["options"];
    let opt = |k: &str| o[k].as_str().map(str::to_string);
    let option_checks = [
        (
            "flops",
            opt("flops")
                == Some(
                    if s.options.convention == roofline::FlopConvention::OnePerMac {
                        "1mac"
                    } else {
                        "2mac"
                    }
                    .into(),
                ),
        ),
        (
            "derate",
            opt("derate").and_then(|t| roofline::options::parse_derate(&t).ok())
                == Some(s.options.derate),
        ),
        ("sweep", opt("sweep").as_deref() == Some(&s.sweep.field)),
        (
            "sweep-from",
            opt("sweep-from").and_then(|t| roofline::parse_quantity(&t).ok()) == Some(s.sweep.from),
        ),
        (
            "sweep-to",
            opt("sweep-to").and_then(|t| roofline::parse_quantity(&t).ok()) == Some(s.sweep.to),
        ),
        (
            "sweep-scale",
            opt("sweep-scale").as_deref() == Some(if s.sweep.log { "log" } else { "linear" }),
        ),
        (
            "theme",
            opt("theme").as_deref() == Some(s.theme.map_or("auto", |t| t.as_str())),
        ),
    ];
    for (key, ok) in option_checks {
        if !ok {
            out.push(format!("option {key} shows {:?}", opt(key)));
        }
    }
    out
}

/// Fails with every disagreement between the fields and the address's scenario.
async fn assert_fields_match(b: &Browser, what: &str) {
    let (v, s) = fields(b).await;
    let wrong = disagreements(&v, &s);
    assert!(
        wrong.is_empty(),
        "{what} ({}): the fields disagree with the link:\n{}",
        v["search"],
        wrong.join("\n")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn every_field_shows_the_model_after_examples_back_a_link_and_start_over() {
    let ids: Vec<&str> = roofline_lab::view::recipes().iter().map(|r| r.id).collect();
    assert!(ids.len() >= 20, "{} worked examples", ids.len());
    let b = Browser::start().await;
    b.open("/").await;
    assert_fields_match(&b, "first load").await;
    // Each example after every other, forwards then backwards: every pair of neighbours in
    // both orders, from one kind to another and within one.
    let backwards: Vec<&str> = ids.iter().rev().copied().collect();
    for (order, list) in [("forwards", &ids), ("backwards", &backwards)] {
        let mut last = "start";
        for id in list.iter() {
            b.js(TOUCH_FIELDS).await;
            b.click(&format!("button[data-recipe='{id}']")).await;
            assert_fields_match(&b, &format!("{order}: {last} then {id}")).await;
            last = id;
        }
    }
    // Back returns to the example before, field by field.
    let before = b.js("return location.search").await;
    b.js(TOUCH_FIELDS).await;
    b.js("history.back()").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while b.js("return location.search").await == before {
        assert!(std::time::Instant::now() < deadline, "Back did nothing");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_fields_match(&b, "Back").await;
    // An example link in the page (point 11's chips) and Start over.
    b.js(TOUCH_FIELDS).await;
    b.click("[data-example-link]").await;
    assert_fields_match(&b, "an example link").await;
    b.js(TOUCH_FIELDS).await;
    b.click("button[data-recipe='start-over']").await;
    assert_fields_match(&b, "Start over").await;
    assert_eq!(
        roofline::url::decode(&b.settled_search().await).scenario,
        Scenario::default()
    );
    b.close().await;
}

/// Issue 38, point 2: switching the only operation to a collective left the sweep on `b`, which
/// a collective has not ("Nothing to plot"), while the sweep select *showed* `bytes`; choosing
/// `bytes` then did nothing. Now the sweep moves to the collective's first field, `bytes`, over
/// its own range (1 B to 1 TB, twelve decades: log-spaced, on a log x axis), the plot draws,
/// and the select holds what it shows. A link that sweeps a field no operation has keeps it,
/// and its select shows that field as itself rather than another.
#[tokio::test(flavor = "current_thread")]
async fn a_sweep_follows_a_change_of_kind_and_a_select_shows_what_it_holds() {
    let b = Browser::start().await;
    b.open("/?chip=tpu-v5e&op=matmul:d=4096,f=4096").await;
    b.js("const s = document.querySelector(\"[data-op='0'] select[name='kind']\"); s.value = 'collective'; s.dispatchEvent(new Event('change', {bubbles: true}));")
        .await;
    b.wait_for("[data-op='0'][data-kind='collective']").await;
    let search = b.settled_search().await;
    let s = roofline::url::decode(&search).scenario;
    assert_eq!(s.sweep.field, "bytes", "{search}");
    assert!(s.sweep.log && s.axes.log_x, "{search}");
    assert!(s.sweep.to / s.sweep.from >= 100.0, "{search}");
    assert_fields_match(&b, "after switching to a collective").await;
    let ink = b.canvas_ink("canvas[data-chart='sweep']").await;
    assert!(ink > 2_000, "the sweep plot is empty ({ink} pixels)");
    // A link sweeping a field no operation has: kept, and shown as itself.
    b.open("/?chip=tpu-v5e&op=collective:bytes=1e6,n=4&sweep=b:1..511")
        .await;
    let shown = b
        .js("const s = document.querySelector('select[name=sweep]'); return [s.value, s.options[s.selectedIndex].textContent]")
        .await;
    assert_eq!(shown[0], "b", "{shown}");
    assert!(
        shown[1].as_str().unwrap().starts_with('b'),
        "the select shows another field: {shown}"
    );
    assert_fields_match(&b, "a link sweeping a field no operation has").await;
    assert!(b.console_errors().await.is_empty());
    b.close().await;
}
