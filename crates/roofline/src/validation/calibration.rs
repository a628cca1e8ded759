//! The calibration (see the module docs of [`super`]): the procedure that turns a set of
//! points into expectations, every choice in it made from the points it is given. Run on the
//! whole set it is the page's calibration; run without one source it is that source's held-out
//! fit (the nested hold-out: [`calibrate_selecting`]).
//!
//! The procedure on a set `D`:
//! 1. **Terms:** the three resources, then candidates best first, each round keeping the one
//!    that lowers both the median and the p90 |error| held out by source within `D`
//!    ([`select_terms`], in [`super::terms`]).
//! 2. **Model:** the kept terms fitted on `D` ([`fit_model`]); each point's residual
//!    `measured / predicted` with steps 1 and 2 run again without its source (nested within
//!    `D`: its terms too are chosen without it). On the whole set these residuals are the
//!    nested hold-out's own, so the page's factors, biases and bands use them.
//! 3. **Family factors:** for each chip family, the median of its points' residuals. A point's
//!    factor comes from the other sources' points of its family; the factor is kept where it
//!    lowers both the median and the p90 |error| of the family's points so held out
//!    ([`FamilyFactor`], with the figures that decided it), else the family stays pooled.
//! 4. **Kind bias and band:** per kind of work, the residuals after the family factors. Their
//!    median is the kind's bias, kept in its expectation by the same rule as a family factor
//!    (each point's bias from the other sources' residuals of its kind must lower both the
//!    kind's median and p90 |error|). Their 10th and 90th percentiles over the bias make the
//!    band, widened to contain 1, so a band always contains its expectation; where the kind's
//!    residuals come from fewer than [`MIN_SOURCES`] sources the band is every kind's
//!    residuals' ([`KindBand`]).

use super::fit::{fit_model, median, percentile, Features, Term, TermFit};
use super::obs::{data, sources_of, stats, Obs};
use super::terms::select_terms_from;
use super::{Family, MeasureKind, MIN_POINTS, SET_VERSION};

/// Which points an expectation rests on, from the closest to the farthest: the chip's own
/// points, its family's (generation's), or every family's pooled; or the user's own engine,
/// fitted on the steps of their trace (`engine=own:…`, issue 43), in place of a published
/// set. Shown in each expected cell (`data-basis`); a figure with no expectation has the basis
/// `none`, which is not a value of this type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Basis {
    /// The chip's own measurements back the figure's kind of work.
    Chip,
    /// Other chips of its family (generation) do.
    Family,
    /// Only other families' points do: the fit pooled over every family.
    Pooled,
    /// The user's own engine: its terms, fitted on their trace's steps, carried by the link.
    Own,
}

impl Basis {
    /// Every basis, in the order above.
    pub const ALL: [Basis; 4] = [Basis::Chip, Basis::Family, Basis::Pooled, Basis::Own];

    /// The id a cell carries as `data-basis`.
    pub fn id(self) -> &'static str {
        match self {
            Basis::Chip => "chip",
            Basis::Family => "family",
            Basis::Pooled => "pooled",
            Basis::Own => "own",
        }
    }

    /// The short mark an expected cell shows of its basis.
    pub fn mark(self) -> &'static str {
        match self {
            Basis::Chip => "chip",
            Basis::Family => "fam",
            Basis::Pooled => "pool",
            Basis::Own => "own",
        }
    }

    /// The basis in a few words, for the cell's visible mark and its title.
    pub fn label(self) -> &'static str {
        match self {
            Basis::Chip => "this chip's points",
            Basis::Family => "its family's points",
            Basis::Pooled => "every family's points",
            Basis::Own => "your engine's fit from your trace's steps",
        }
    }
}

/// An expected time: the bare roofline's figure times the model's ratio, its family's factor
/// where kept and its kind's bias.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// `t_lower × r`, seconds.
    pub t: f64,
    /// `t` times the 10th percentile of the kind's residuals over their median; `None` where
    /// fewer than [`MIN_POINTS`] residuals of the kind back a band.
    pub lo: Option<f64>,
    /// `t` times their 90th percentile over their median.
    pub hi: Option<f64>,
    /// The whole ratio `r = model × family factor × kind bias`.
    pub r: f64,
    /// The model's own ratio for the figure (the sum of its terms).
    pub model_ratio: f64,
    /// The family's factor, where the procedure keeps one for the chip's family.
    pub family_factor: Option<f64>,
    /// The kind's bias (the median of its residuals); 1 where fewer than [`MIN_POINTS`] back it.
    pub bias: f64,
    /// The figure's features (its split by resource).
    pub features: Features,
    /// The model: its terms and coefficients.
    pub model: TermFit,
    /// How many points the model was fitted on.
    pub pooled: usize,
    /// The ids of the kind's points whose residuals make the bias and the band.
    pub based_on: Vec<&'static str>,
    /// Where the chip's generation has no point of this kind: that the fit rests on the
    /// other generations' points.
    pub borrowed_from: Option<String>,
    /// Which points back the figure: `Chip` where the chip's own points of this kind of work
    /// are in the fit, `Family` where only other chips of its family have such points,
    /// `Pooled` where no chip of its family has.
    pub basis: Basis,
    /// The ids of the points that make the basis what it is: the chip's own points of the
    /// kind, else its family's; empty for `Pooled`.
    pub basis_points: Vec<&'static str>,
    /// The set's version.
    pub set_version: &'static str,
}

/// A family's factor and the figures that decided it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FamilyFactor {
    /// The family.
    pub family: Family,
    /// The median of its points' residuals.
    pub factor: f64,
    /// Its points with a factor from the other sources' points (at least [`MIN_POINTS`]).
    pub tried_on: usize,
    /// Held-out median and p90 |error| of those points without a factor.
    pub without: (f64, f64),
    /// The same with each point's factor from the other sources.
    pub with: (f64, f64),
    /// Whether the factor is in the expectation: both figures lower with it.
    pub kept: bool,
}

/// A kind of work's bias and band, and the figures that decided them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KindBand {
    /// The kind of work.
    pub work: MeasureKind,
    /// Its residuals (after the family factors).
    pub n: usize,
    /// The sources they come from.
    pub sources: usize,
    /// Their median: the kind's bias where kept, else 1.
    pub bias: f64,
    /// Held-out median and p90 |error| of the kind's points with a bias from the other
    /// sources, without one.
    pub without: (f64, f64),
    /// The same with it.
    pub with: (f64, f64),
    /// Whether the bias is in the expectation: both figures lower with it.
    pub kept: bool,
    /// Whether the band is the pooled one (every kind's residuals): the kind's own come from
    /// fewer than [`MIN_SOURCES`] sources.
    pub pooled_band: bool,
    /// The band's low end over the expectation: the 10th percentile of the residuals over the
    /// bias, at most 1.
    pub lo: f64,
    /// Its high end: the 90th percentile over the bias, at least 1.
    pub hi: f64,
}

/// Fewest sources whose residuals make a kind's own band; fewer, and the band is every kind's.
pub const MIN_SOURCES: usize = 3;

/// The procedure's result on a set of points.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The model on every point given.
    pub model: TermFit,
    /// The points, as given.
    pub obs: Vec<Obs>,
    /// Per point (same order): `measured ratio / predicted ratio` with the model fitted
    /// without the point's source; `None` where that leaves too few points. Empty where the
    /// calibration was read from storage (the page's).
    pub residuals: Vec<Option<f64>>,
    /// Every family with a point, its factor and whether it is kept.
    pub families: Vec<FamilyFactor>,
    /// Every kind with at least [`MIN_POINTS`] residuals.
    pub kinds: Vec<KindBand>,
}

/// Whether `with` lowers both the median and the p90 of `without`, each by more than
/// rounding (1e-9): a factor that changes nothing is not kept.
fn lowers_both(without: Option<(f64, f64)>, with: Option<(f64, f64)>) -> bool {
    matches!((without, with), (Some(a), Some(b)) if b.0 < a.0 - 1e-9 && b.1 < a.1 - 1e-9)
}

/// Fits `terms` on `obs` without the points of `exclude_source`, with each kept point's
/// residual held out by source (the terms as given, not selected again), the family factors
/// and the kind biases and bands; `None` with fewer than [`MIN_POINTS`] points.
pub fn calibrate(obs: &[Obs], terms: &[Term], exclude_source: Option<&str>) -> Option<Calibration> {
    let kept: Vec<Obs> = obs
        .iter()
        .filter(|o| Some(o.source) != exclude_source)
        .copied()
        .collect();
    if kept.len() < MIN_POINTS {
        return None;
    }
    let refs: Vec<&Obs> = kept.iter().collect();
    let model = fit_model(&data(&refs), terms)?;
    let mut residuals = vec![None; kept.len()];
    for s in sources_of(&kept) {
        let rest: Vec<&Obs> = kept.iter().filter(|o| o.source != s).collect();
        if rest.len() < MIN_POINTS {
            continue;
        }
        let Some(m) = fit_model(&data(&rest), terms) else {
            continue;
        };
        fill_residuals(&kept, &mut residuals, s, &m);
    }
    Some(finish(model, kept, residuals))
}

/// Each point of `source`'s residual under `m`.
fn fill_residuals(obs: &[Obs], residuals: &mut [Option<f64>], source: &str, m: &TermFit) {
    for (i, o) in obs.iter().enumerate().filter(|(_, o)| o.source == source) {
        let p = m.ratio(&o.features);
        residuals[i] = (p > 0.0).then(|| o.ratio / p);
    }
}

/// Steps 3 and 4: the family factors and the kind biases and bands from the residuals.
fn finish(model: TermFit, obs: Vec<Obs>, residuals: Vec<Option<f64>>) -> Calibration {
    let families = family_factors(&obs, &residuals);
    let kinds = kind_bands(&obs, &residuals, &families);
    Calibration {
        model,
        obs,
        residuals,
        families,
        kinds,
    }
}

/// The model the procedure's first two steps give on the points left when some sources are
/// held out: terms selected on them ([`select_terms_from`]), then fitted. Each set of held-out
/// sources is fitted once (the nested hold-out asks for the pair (a, b) from fold a and from
/// fold b).
pub struct Models<'a> {
    obs: &'a [Obs],
    candidates: Vec<Term>,
    cache: Vec<(Vec<&'static str>, Option<TermFit>)>,
}

impl<'a> Models<'a> {
    /// Over `obs` with `candidates`.
    pub fn new(obs: &'a [Obs], candidates: &[Term]) -> Self {
        Models {
            obs,
            candidates: candidates.to_vec(),
            cache: Vec::new(),
        }
    }

    /// The model on `obs` without the points of `held_out`; `None` with fewer than
    /// [`MIN_POINTS`] points left.
    pub fn without(&mut self, held_out: &[&'static str]) -> Option<TermFit> {
        let mut key = held_out.to_vec();
        key.sort_unstable();
        key.dedup();
        if let Some((_, m)) = self.cache.iter().find(|(k, _)| *k == key) {
            return m.clone();
        }
        let kept: Vec<Obs> = self
            .obs
            .iter()
            .filter(|o| !key.contains(&o.source))
            .copied()
            .collect();
        let m = (kept.len() >= MIN_POINTS)
            .then(|| {
                let terms = select_terms_from(&kept, &self.candidates);
                fit_model(&data(&kept.iter().collect::<Vec<_>>()), &terms)
            })
            .flatten();
        self.cache.push((key, m.clone()));
        m
    }

    /// The whole procedure on `obs` without `held_out` (nested): the model selected and fitted
    /// on the points left, each of their residuals from the model selected and fitted without
    /// its own source too, then the family factors and the kind biases and bands. Run on every
    /// point, its residuals are the nested hold-out's.
    pub fn calibration(&mut self, held_out: Option<&'static str>) -> Option<Calibration> {
        let outer: Vec<&'static str> = held_out.into_iter().collect();
        let model = self.without(&outer)?;
        let kept: Vec<Obs> = self
            .obs
            .iter()
            .filter(|o| Some(o.source) != held_out)
            .copied()
            .collect();
        let mut residuals = vec![None; kept.len()];
        for s in sources_of(&kept) {
            let mut inner = outer.clone();
            inner.push(s);
            if let Some(m) = self.without(&inner) {
                fill_residuals(&kept, &mut residuals, s, &m);
            }
        }
        Some(finish(model, kept, residuals))
    }
}

/// The whole procedure on `obs` without `exclude_source` ([`Models::calibration`]).
pub fn calibrate_selecting(
    obs: &[Obs],
    candidates: &[Term],
    exclude_source: Option<&'static str>,
) -> Option<Calibration> {
    Models::new(obs, candidates).calibration(exclude_source)
}

/// Steps 3 and 4 on a model and residuals given (`tests/it/validation.rs` checks the page's
/// factors and bands against the stored nested models so, without refitting them).
pub fn finish_with(model: TermFit, obs: Vec<Obs>, residuals: Vec<Option<f64>>) -> Calibration {
    finish(model, obs, residuals)
}

/// A point's factor for its family from the other sources' residuals of the family: their
/// median, where at least [`MIN_POINTS`] back it.
fn factor_without(
    obs: &[Obs],
    residuals: &[Option<f64>],
    family: Family,
    source: &str,
) -> Option<f64> {
    let r: Vec<f64> = obs
        .iter()
        .zip(residuals)
        .filter(|(o, _)| o.family == family && o.source != source)
        .filter_map(|(_, r)| *r)
        .collect();
    (r.len() >= MIN_POINTS).then(|| median(&r)).flatten()
}

fn family_factors(obs: &[Obs], residuals: &[Option<f64>]) -> Vec<FamilyFactor> {
    Family::ALL
        .iter()
        .filter(|f| obs.iter().any(|o| o.family == **f))
        .map(|&family| {
            let mut without = Vec::new();
            let mut with = Vec::new();
            for (o, r) in obs.iter().zip(residuals) {
                let (Some(r), true) = (r, o.family == family) else {
                    continue;
                };
                if let Some(g) = factor_without(obs, residuals, family, o.source) {
                    without.push((1.0 / r - 1.0).abs());
                    with.push((g / r - 1.0).abs());
                }
            }
            let all: Vec<f64> = obs
                .iter()
                .zip(residuals)
                .filter(|(o, _)| o.family == family)
                .filter_map(|(_, r)| *r)
                .collect();
            let (w0, w1) = (stats(&without), stats(&with));
            let kept = lowers_both(w0, w1);
            FamilyFactor {
                family,
                factor: median(&all).unwrap_or(1.0),
                tried_on: without.len(),
                without: w0.unwrap_or((f64::NAN, f64::NAN)),
                with: w1.unwrap_or((f64::NAN, f64::NAN)),
                kept,
            }
        })
        .collect()
}

/// The residuals after each point's family factor (from the other sources, where kept).
fn adjusted(obs: &[Obs], residuals: &[Option<f64>], families: &[FamilyFactor]) -> Vec<Option<f64>> {
    obs.iter()
        .zip(residuals)
        .map(|(o, r)| {
            let r = (*r)?;
            let kept = families.iter().any(|f| f.family == o.family && f.kept);
            let g = if kept {
                factor_without(obs, residuals, o.family, o.source).unwrap_or(1.0)
            } else {
                1.0
            };
            Some(r / g)
        })
        .collect()
}

/// A point's bias for its kind from the other sources' adjusted residuals of the kind: their
/// median, where at least [`MIN_POINTS`] back it.
fn bias_without(obs: &[Obs], adj: &[Option<f64>], work: MeasureKind, source: &str) -> Option<f64> {
    let r: Vec<f64> = obs
        .iter()
        .zip(adj)
        .filter(|(o, _)| o.work == work && o.source != source)
        .filter_map(|(_, r)| *r)
        .collect();
    (r.len() >= MIN_POINTS).then(|| median(&r)).flatten()
}

/// `(p10, p90)` of `r / bias`, widened to contain 1.
fn band_of(r: &[f64], bias: f64) -> Option<(f64, f64)> {
    Some((
        (percentile(r, 0.1)? / bias).min(1.0),
        (percentile(r, 0.9)? / bias).max(1.0),
    ))
}

fn kind_bands(obs: &[Obs], residuals: &[Option<f64>], families: &[FamilyFactor]) -> Vec<KindBand> {
    let adj = adjusted(obs, residuals, families);
    // Every kind's residuals after its kept bias: the pooled band.
    let mut bands: Vec<(KindBand, Vec<f64>)> = Vec::new();
    for &work in &MeasureKind::ALL {
        let mut without = Vec::new();
        let mut with = Vec::new();
        let mut srcs: Vec<&str> = Vec::new();
        let mut r = Vec::new();
        for (o, a) in obs.iter().zip(&adj) {
            let (Some(a), true) = (a, o.work == work) else {
                continue;
            };
            r.push(*a);
            if !srcs.contains(&o.source) {
                srcs.push(o.source);
            }
            if let Some(b) = bias_without(obs, &adj, work, o.source) {
                without.push((1.0 / a - 1.0).abs());
                with.push((b / a - 1.0).abs());
            }
        }
        if r.len() < MIN_POINTS {
            continue;
        }
        let (w0, w1) = (stats(&without), stats(&with));
        let kept = lowers_both(w0, w1);
        let bias = if kept { median(&r).unwrap_or(1.0) } else { 1.0 };
        let Some((lo, hi)) = band_of(&r, bias) else {
            continue;
        };
        let scaled: Vec<f64> = r.iter().map(|x| x / bias).collect();
        bands.push((
            KindBand {
                work,
                n: r.len(),
                sources: srcs.len(),
                bias,
                without: w0.unwrap_or((f64::NAN, f64::NAN)),
                with: w1.unwrap_or((f64::NAN, f64::NAN)),
                kept,
                pooled_band: false,
                lo,
                hi,
            },
            scaled,
        ));
    }
    let pooled: Vec<f64> = bands.iter().flat_map(|(_, r)| r.iter().copied()).collect();
    let pooled_band = band_of(&pooled, 1.0);
    bands
        .into_iter()
        .map(|(mut k, _)| {
            if k.sources < MIN_SOURCES {
                if let Some((lo, hi)) = pooled_band {
                    k.pooled_band = true;
                    k.lo = lo;
                    k.hi = hi;
                }
            }
            k
        })
        .collect()
}

impl Calibration {
    /// The expectation of a figure of `work` on `chip` (a preset id, empty for none) of
    /// `family`, bound at `t_lower` with `features`; `None` when the family has no point in
    /// the set at all (nothing of its generation to stand on) or the model gives no positive
    /// ratio.
    pub fn expect(
        &self,
        work: MeasureKind,
        family: Family,
        chip: &str,
        features: &Features,
        t_lower: f64,
    ) -> Option<Expectation> {
        if !self.obs.iter().any(|o| o.family == family) {
            return None;
        }
        let model_ratio = self.model.ratio(features);
        if !(model_ratio.is_finite() && model_ratio > 0.0) {
            return None;
        }
        let family_factor = self
            .families
            .iter()
            .find(|f| f.family == family && f.kept)
            .map(|f| f.factor);
        let band = self.kinds.iter().find(|k| k.work == work);
        let bias = band.map_or(1.0, |b| b.bias);
        let r = model_ratio * family_factor.unwrap_or(1.0) * bias;
        let t = t_lower * r;
        let of_kind: Vec<&Obs> = self.obs.iter().filter(|o| o.work == work).collect();
        let own: Vec<&'static str> = of_kind
            .iter()
            .filter(|o| !chip.is_empty() && o.chip == chip)
            .map(|o| o.id)
            .collect();
        let fam: Vec<&'static str> = of_kind
            .iter()
            .filter(|o| o.family == family)
            .map(|o| o.id)
            .collect();
        let (basis, basis_points) = if !own.is_empty() {
            (Basis::Chip, own)
        } else if !fam.is_empty() {
            (Basis::Family, fam)
        } else {
            (Basis::Pooled, Vec::new())
        };
        let based_on = if self.residuals.is_empty() {
            of_kind.iter().map(|o| o.id).collect()
        } else {
            of_kind
                .iter()
                .filter(|o| {
                    self.obs
                        .iter()
                        .position(|p| p.id == o.id)
                        .is_some_and(|i| self.residuals[i].is_some())
                })
                .map(|o| o.id)
                .collect()
        };
        Some(Expectation {
            t,
            lo: band.map(|b| t * b.lo),
            hi: band.map(|b| t * b.hi),
            r,
            model_ratio,
            family_factor,
            bias,
            features: *features,
            model: self.model.clone(),
            pooled: self.obs.len(),
            based_on,
            borrowed_from: (basis == Basis::Pooled).then(|| {
                format!(
                    "{} has no {} point: the fractions rest on every generation's points",
                    family.id(),
                    work.as_str()
                )
            }),
            basis,
            basis_points,
            set_version: SET_VERSION,
        })
    }

    /// `|predicted / measured − 1|` of every point with a held-out residual.
    pub fn held_out_errors(&self) -> Vec<f64> {
        self.residuals
            .iter()
            .flatten()
            .map(|r| (1.0 / r - 1.0).abs())
            .collect()
    }
}
