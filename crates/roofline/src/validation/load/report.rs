//! The serving-at-load set's report (`./dev validate`): coverage, the bare bound's error, and
//! per engine (and per chip generation where the rows carry it) the held-out error of the
//! expectation against the targets; and the fits on every row that the page carries,
//! with their standard errors, as `fitted.rs` stores them.

use super::super::fit::{median, percentile, Term, TermFit};
use super::super::Family;
use super::fit::{fit_choice, fit_figure, groups, nested, of_engine, FigureModel, HeldOut, Scope};
use super::{band_of, observe, Figure, LoadObs, RowInput, LOAD_SET_VERSION};
use crate::op::Engine;

/// The targets per engine: TPOT median and p90 |error|, TTFT median |error|.
pub const TARGETS: [f64; 3] = [0.10, 0.25, 0.25];
/// The target for the rows expressed, of the aggregated rows.
pub const TARGET_EXPRESSED: usize = 2534;

/// Held-out figures over a group of rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The group (`vllm`, `sglang on blackwell`, `all`).
    pub label: String,
    /// Rows with a held-out TPOT.
    pub tpot_rows: usize,
    /// Rows with a held-out TTFT.
    pub ttft_rows: usize,
    /// Median |error| of the held-out TPOT.
    pub tpot_median: Option<f64>,
    /// Its 90th percentile.
    pub tpot_p90: Option<f64>,
    /// Median |error| of the held-out TTFT.
    pub ttft_median: Option<f64>,
    /// Its 90th percentile.
    pub ttft_p90: Option<f64>,
    /// The bare bound's median `|bound / measured − 1|`, TPOT.
    pub bare_tpot_median: Option<f64>,
    /// The same, TTFT.
    pub bare_ttft_median: Option<f64>,
    /// Rows whose expectation came from the generic fit (their engine had no other group).
    pub fell_back: usize,
}

impl Summary {
    /// Whether each target is met: TPOT median, TPOT p90, TTFT median.
    pub fn meets(&self) -> [Option<bool>; 3] {
        let m = |x: Option<f64>, t: f64| x.map(|v| v <= t);
        [
            m(self.tpot_median, TARGETS[0]),
            m(self.tpot_p90, TARGETS[1]),
            m(self.ttft_median, TARGETS[2]),
        ]
    }
}

/// A fitted figure with its coefficients' standard errors.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedFigure {
    /// The model (choices, coefficients, bias).
    pub model: FigureModel,
    /// Standard errors of the pooled model's coefficients (a bootstrap over groups).
    pub pooled_se: Vec<f64>,
    /// Standard errors per generation's model.
    pub family_se: Vec<(Family, Vec<f64>)>,
    /// The band from the held-out residuals.
    pub band: Option<(f64, f64)>,
}

/// An engine's fit on every row.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalFit {
    /// The engine (`generic`: all rows).
    pub engine: Engine,
    /// TTFT.
    pub ttft: FittedFigure,
    /// TPOT.
    pub tpot: FittedFigure,
    /// Rows behind it.
    pub rows: usize,
    /// Chips with rows.
    pub chips: Vec<String>,
    /// Generations with rows.
    pub families: Vec<Family>,
}

/// The set evaluated.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// [`LOAD_SET_VERSION`].
    pub set_version: &'static str,
    /// Rows in the set (aggregated).
    pub total: usize,
    /// Rows expressed: a link the load model evaluates (twins included).
    pub expressed: usize,
    /// The distinct measurements among them, evaluated: what the fit and the figures count
    /// (a row that repeats an earlier one's measurement counts once).
    pub obs: Vec<LoadObs>,
    /// Rows not expressed, by reason, with their counts.
    pub unexpressed: Vec<(String, usize)>,
    /// Every held-out expectation.
    pub held_out: Vec<HeldOut>,
    /// Per engine, then all rows.
    pub by_engine: Vec<Summary>,
    /// Per engine and generation.
    pub by_generation: Vec<Summary>,
    /// The page's fits.
    pub fits: Vec<FinalFit>,
}

fn summary(label: String, obs: &[LoadObs], held: &[&HeldOut], rows: &[usize]) -> Summary {
    let errs = |f: Figure| -> Vec<f64> {
        held.iter()
            .filter(|h| h.figure == f && rows.contains(&h.row))
            .map(|h| h.error.abs())
            .collect()
    };
    let bare = |f: Figure| -> Vec<f64> {
        rows.iter()
            .filter_map(|&i| obs[i].figure(f))
            .map(|x| (1.0 / x.ratio - 1.0).abs())
            .collect()
    };
    let (tp, tt) = (errs(Figure::Tpot), errs(Figure::Ttft));
    Summary {
        label,
        tpot_rows: tp.len(),
        ttft_rows: tt.len(),
        tpot_median: median(&tp),
        tpot_p90: percentile(&tp, 0.9),
        ttft_median: median(&tt),
        ttft_p90: percentile(&tt, 0.9),
        bare_tpot_median: median(&bare(Figure::Tpot)),
        bare_ttft_median: median(&bare(Figure::Ttft)),
        fell_back: held
            .iter()
            .filter(|h| rows.contains(&h.row) && h.engine == Engine::Generic)
            .map(|h| h.row)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
    }
}

/// A deterministic generator (64-bit LCG, Knuth's constants) for the bootstrap.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Resamples of the groups behind the standard errors.
pub const BOOTSTRAP: usize = 30;

fn std_dev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    if n < 2.0 {
        return f64::NAN;
    }
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

/// Standard errors of `m`'s coefficients: the spread of its choice refitted on [`BOOTSTRAP`]
/// resamples of the groups of `obs` (drawn with replacement).
fn standard_errors(
    obs: &[&LoadObs],
    fig: Figure,
    m: &FigureModel,
) -> (Vec<f64>, Vec<(Family, Vec<f64>)>) {
    let gs = groups(obs);
    let mut rng = Lcg(0x5eed_10ad);
    let mut pooled: Vec<Vec<f64>> = vec![Vec::new(); m.choice.terms.len()];
    let mut fams: Vec<(Family, Vec<Vec<f64>>)> = m
        .by_family
        .iter()
        .map(|(f, _)| (*f, vec![Vec::new(); m.choice.terms.len()]))
        .collect();
    for _ in 0..BOOTSTRAP {
        let mut sample: Vec<&LoadObs> = Vec::new();
        for _ in 0..gs.len() {
            let g = &gs[rng.next(gs.len())];
            sample.extend(obs.iter().copied().filter(|o| &o.group == g));
        }
        let Some(fit) = fit_choice(&sample, fig, &m.choice, m.bias) else {
            continue;
        };
        for (v, c) in pooled.iter_mut().zip(&fit.pooled.coef) {
            v.push(*c);
        }
        for (fam, vs) in &mut fams {
            if let Some((_, fm)) = fit.by_family.iter().find(|(f, _)| f == fam) {
                for (v, c) in vs.iter_mut().zip(&fm.coef) {
                    v.push(*c);
                }
            }
        }
    }
    (
        pooled.iter().map(|v| std_dev(v)).collect(),
        fams.into_iter()
            .map(|(f, vs)| (f, vs.iter().map(|v| std_dev(v)).collect()))
            .collect(),
    )
}

/// The final fit of `engine` on every row of `obs`, with bands from `held`.
pub fn final_fit(obs: &[LoadObs], held: &[HeldOut], engine: Engine) -> Option<FinalFit> {
    let rows = of_engine(obs, engine);
    let fitted = |fig: Figure| -> Option<FittedFigure> {
        let m = fit_figure(&rows, fig)?;
        let (pooled_se, family_se) = standard_errors(&rows, fig, &m);
        let res: Vec<f64> = held
            .iter()
            .filter(|h| {
                h.figure == fig && (engine == Engine::Generic || obs[h.row].engine == engine)
            })
            .map(|h| h.residual)
            .collect();
        Some(FittedFigure {
            model: m,
            pooled_se,
            family_se,
            band: band_of(&res),
        })
    };
    let mut chips: Vec<String> = rows.iter().map(|o| o.chip.clone()).collect();
    chips.sort();
    chips.dedup();
    let mut families: Vec<Family> = rows.iter().filter_map(|o| o.family).collect();
    families.sort();
    families.dedup();
    Some(FinalFit {
        engine,
        ttft: fitted(Figure::Ttft)?,
        tpot: fitted(Figure::Tpot)?,
        rows: rows.len(),
        chips,
        families,
    })
}

/// Evaluates the set: every row through the load model, the nested hold-out, the summaries
/// and the page's fits. `rows` holds each aggregated row's input or why it is not expressed.
pub fn report_of(rows: &[Result<RowInput, String>]) -> LoadReport {
    let mut obs = Vec::new();
    let mut unexpressed: Vec<(String, usize)> = Vec::new();
    let mut miss = |why: String| match unexpressed.iter_mut().find(|(w, _)| *w == why) {
        Some((_, n)) => *n += 1,
        None => unexpressed.push((why, 1)),
    };
    let mut expressed = 0;
    for r in rows {
        match r.as_ref().map_err(String::clone).and_then(observe) {
            Ok(o) => {
                expressed += 1;
                if r.as_ref().is_ok_and(|r| r.twin_of.is_none()) {
                    obs.push(o);
                }
            }
            Err(why) => miss(why),
        }
    }
    unexpressed.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let held_out = nested(&obs);
    let held: Vec<&HeldOut> = held_out.iter().collect();
    let idx = |f: &dyn Fn(&LoadObs) -> bool| -> Vec<usize> {
        obs.iter()
            .enumerate()
            .filter(|(_, o)| f(o))
            .map(|(i, _)| i)
            .collect()
    };
    let engines = [Engine::Vllm, Engine::Sglang, Engine::Trtllm];
    let mut by_engine: Vec<Summary> = engines
        .iter()
        .map(|e| summary(e.as_str().into(), &obs, &held, &idx(&|o| o.engine == *e)))
        .collect();
    by_engine.push(summary("all".into(), &obs, &held, &idx(&|_| true)));
    let mut by_generation = Vec::new();
    for e in engines {
        for f in Family::ALL {
            let rows = idx(&|o| o.engine == e && o.family == Some(f));
            if !rows.is_empty() {
                by_generation.push(summary(
                    format!("{} on {}", e.as_str(), f.id()),
                    &obs,
                    &held,
                    &rows,
                ));
            }
        }
    }
    let fits = [
        Engine::Generic,
        Engine::Vllm,
        Engine::Sglang,
        Engine::Trtllm,
    ]
    .into_iter()
    .filter_map(|e| final_fit(&obs, &held_out, e))
    .collect();
    LoadReport {
        set_version: LOAD_SET_VERSION,
        total: rows.len(),
        expressed,
        obs,
        unexpressed,
        held_out,
        by_engine,
        by_generation,
        fits,
    }
}

fn term_path(t: Term) -> String {
    format!("Term::{t:?}")
}

fn floats(v: &[f64]) -> String {
    let s: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("&[{}]", s.join(", "))
}

fn figure_source(f: &FittedFigure) -> String {
    let m = &f.model;
    let terms: Vec<String> = m.choice.terms.iter().map(|t| term_path(*t)).collect();
    let fams: Vec<String> = m
        .by_family
        .iter()
        .map(|(fam, model)| {
            let se = f
                .family_se
                .iter()
                .find(|(x, _)| x == fam)
                .map_or(Vec::new(), |(_, s)| s.clone());
            format!(
                "(Family::{fam:?}, {}, {})",
                floats(&model.coef),
                floats(&se)
            )
        })
        .collect();
    format!(
        "StoredFigure {{\n            terms: &[{}],\n            scope: Scope::{:?},\n            bias: {:?},\n            pooled: ({}, {}),\n            families: &[{}],\n            band: {},\n        }}",
        terms.join(", "),
        m.choice.scope,
        m.bias,
        floats(&m.pooled.coef),
        floats(&f.pooled_se),
        fams.join(", "),
        match f.band {
            Some((lo, hi)) => format!("Some(({lo:?}, {hi:?}))"),
            None => "None".into(),
        }
    )
}

/// The source of `fitted.rs` for `fits` (what `./dev validate --write` writes; rustfmt may
/// lay it out differently, so the test compares values, not text).
pub fn fitted_source(fits: &[FinalFit]) -> String {
    let head = include_str!("fitted.rs");
    let cut = head
        .find("/// Empty until")
        .or_else(|| head.find("/// The fits, as"))
        .unwrap_or(head.len());
    let mut out = head[..cut].to_string();
    out.push_str("/// The fits, as `./dev validate --write` wrote them.\npub(super) const FITS: &[StoredFit] = &[\n");
    for f in fits {
        let chips: Vec<String> = f.chips.iter().map(|c| format!("{c:?}")).collect();
        let fams: Vec<String> = f
            .families
            .iter()
            .map(|x| format!("Family::{x:?}"))
            .collect();
        out.push_str(&format!(
            "    StoredFit {{\n        engine: Engine::{:?},\n        ttft: {},\n        tpot: {},\n        rows: {},\n        chips: &[{}],\n        families: &[{}],\n    }},\n",
            f.engine,
            figure_source(&f.ttft),
            figure_source(&f.tpot),
            f.rows,
            chips.join(", "),
            fams.join(", ")
        ));
    }
    out.push_str("];\n");
    out
}

/// Whether two models have the same terms and coefficients within `tol` (relative).
pub fn same_model(a: &TermFit, b: &TermFit, tol: f64) -> bool {
    a.terms == b.terms
        && a.coef.len() == b.coef.len()
        && a.coef
            .iter()
            .zip(&b.coef)
            .all(|(x, y)| (x - y).abs() <= tol * x.abs().max(y.abs()).max(1e-12))
}

/// The scope's words for the report.
pub fn scope_words(s: Scope) -> &'static str {
    s.id()
}

/// A term in the serving-at-load set's words (its `launch` slot carries the figure's own extra
/// feature).
pub fn term_words(t: Term, fig: Figure) -> &'static str {
    match (t, fig) {
        (Term::Launch, Figure::Ttft) => "wait of a synchronised wave",
        (Term::Launch, Figure::Tpot) => "host cost per running sequence, µs",
        (Term::Step, _) => "fixed cost per step, ms",
        (Term::MultiChip, _) => "latency per collective per doubling of tp·ep, µs",
        (Term::Moe, _) => "MoE imbalance",
        _ => t.label(),
    }
}
