//! The serving-at-load set's fitted models as the page carries them: per engine and figure,
//! the choices, the coefficients with their standard errors, the band. Written by `./dev
//! validate --write` from the fit on every expressed row (`super::report`); the rows
//! themselves stay in the lazily fetched validation data. `tests/it/serving_fit.rs` checks
//! the coefficients against a fresh fit with the stored choices.

use super::super::fit::{Term, TermFit};
use super::super::Family;
use super::fit::{Choice, FigureModel, Scope};
use super::EngineFit;
use crate::op::Engine;

/// One figure's stored model.
pub(super) struct StoredFigure {
    pub terms: &'static [Term],
    pub scope: Scope,
    pub bias: f64,
    /// Coefficients of the pooled model, in `terms` order, and their standard errors.
    pub pooled: (&'static [f64], &'static [f64]),
    /// Per generation (a per-generation scope only).
    pub families: &'static [(Family, &'static [f64], &'static [f64])],
    pub band: Option<(f64, f64)>,
}

/// One engine's stored models.
pub(super) struct StoredFit {
    pub engine: Engine,
    pub ttft: StoredFigure,
    pub tpot: StoredFigure,
    pub rows: usize,
    pub chips: &'static [&'static str],
    pub families: &'static [Family],
}

fn model(f: &StoredFigure) -> FigureModel {
    let m = |c: &[f64]| TermFit {
        terms: f.terms.to_vec(),
        coef: c.to_vec(),
    };
    FigureModel {
        choice: Choice {
            terms: f.terms.to_vec(),
            scope: f.scope,
            bias: f.bias != 1.0,
        },
        pooled: m(f.pooled.0),
        by_family: f.families.iter().map(|(fam, c, _)| (*fam, m(c))).collect(),
        bias: f.bias,
    }
}

/// The stored fits as models.
pub(super) fn fits() -> Vec<EngineFit> {
    FITS.iter()
        .map(|s| EngineFit {
            engine: s.engine,
            ttft: model(&s.ttft),
            tpot: model(&s.tpot),
            bands: [s.ttft.band, s.tpot.band],
            rows: s.rows,
            chips: s.chips.iter().map(|c| c.to_string()).collect(),
            families: s.families.to_vec(),
        })
        .collect()
}

/// The fits, as `./dev validate --write` wrote them.
pub(super) const FITS: &[StoredFit] = &[
    StoredFit {
        engine: Engine::Generic,
        ttft: StoredFigure {
            terms: &[
                Term::Compute,
                Term::Memory,
                Term::Network,
                Term::Launch,
                Term::MultiChip,
                Term::Moe,
            ],
            scope: Scope::PerFamily,
            bias: 1.0,
            pooled: (
                &[
                    0.628064522721097,
                    0.0,
                    15.65039572104868,
                    0.3987239703960075,
                    0.0,
                    0.0,
                ],
                &[
                    0.5174087285269592,
                    0.0,
                    2.701033367909426,
                    0.033573167538622044,
                    0.0,
                    0.0,
                ],
            ),
            families: &[
                (
                    Family::Hopper,
                    &[
                        0.5402428276893904,
                        0.0,
                        14.049951509404,
                        0.3850676999094884,
                        0.0,
                        0.0,
                    ],
                    &[
                        0.7454515699468957,
                        0.020803035407526507,
                        4.610019671273169,
                        0.055982627351874224,
                        44.91142477799028,
                        0.784919048859199,
                    ],
                ),
                (
                    Family::Blackwell,
                    &[
                        0.6415142129185198,
                        0.0,
                        23.84390594036079,
                        0.42242592695165426,
                        0.0,
                        0.0,
                    ],
                    &[
                        0.7673296697808575,
                        0.0,
                        5.476992739440548,
                        0.050320586049665494,
                        0.0,
                        0.7926877317303047,
                    ],
                ),
            ],
            band: Some((0.662866233869123, 4.222804711649164)),
        },
        tpot: StoredFigure {
            terms: &[
                Term::Compute,
                Term::Memory,
                Term::Network,
                Term::MultiChip,
                Term::Step,
                Term::Moe,
            ],
            scope: Scope::Pooled,
            bias: 1.0,
            pooled: (
                &[
                    1.5435003031490124,
                    1.2992712004824283,
                    1.2537763717079036,
                    9.785984929060263,
                    1.7736408763641638,
                    0.2530544300451189,
                ],
                &[
                    0.12034737745282065,
                    0.07733398324651126,
                    0.9792759193133896,
                    1.5284444975819003,
                    0.7868900847721139,
                    0.08554524311506907,
                ],
            ),
            families: &[],
            band: Some((0.7475407281691809, 1.5097123620403232)),
        },
        rows: 2451,
        chips: &["b200", "b300", "gb200", "h100", "h200"],
        families: &[Family::Hopper, Family::Blackwell],
    },
    StoredFit {
        engine: Engine::Vllm,
        ttft: StoredFigure {
            terms: &[
                Term::Compute,
                Term::Memory,
                Term::Network,
                Term::Launch,
                Term::MultiChip,
                Term::Step,
            ],
            scope: Scope::Pooled,
            bias: 1.0,
            pooled: (
                &[
                    2.1793964805689097,
                    0.0,
                    1.7274700543003703,
                    0.284822602652977,
                    107.09343766399047,
                    0.0,
                ],
                &[
                    0.49489868911348667,
                    0.0,
                    2.55058295211706,
                    0.03033483690392328,
                    24.79289552560244,
                    3.1092791950639818,
                ],
            ),
            families: &[],
            band: Some((0.7284510459163829, 2.3589278270834875)),
        },
        tpot: StoredFigure {
            terms: &[
                Term::Compute,
                Term::Memory,
                Term::Network,
                Term::MultiChip,
                Term::Moe,
                Term::Step,
            ],
            scope: Scope::Pooled,
            bias: 1.0289998951427939,
            pooled: (
                &[
                    1.708579560668564,
                    1.3281084147353803,
                    0.0,
                    12.092809448490138,
                    0.3192040644216831,
                    1.6433423215787344,
                ],
                &[
                    0.6202191914741516,
                    0.08807681894147903,
                    1.518834461899458,
                    2.57428582419713,
                    0.12853310084995098,
                    0.7567182762559401,
                ],
            ),
            families: &[],
            band: Some((0.786296939594308, 1.4709919869568782)),
        },
        rows: 1036,
        chips: &["b200", "b300", "h100", "h200"],
        families: &[Family::Hopper, Family::Blackwell],
    },
    StoredFit {
        engine: Engine::Sglang,
        ttft: StoredFigure {
            terms: &[Term::Compute, Term::Memory, Term::Network, Term::Step],
            scope: Scope::PerFamily,
            bias: 1.0,
            pooled: (
                &[11.569791735540505, 0.0, 27.25677027014054, 0.0],
                &[
                    2.516956145635112,
                    0.0,
                    28.898337921548215,
                    63.40149154654133,
                ],
            ),
            families: &[
                (
                    Family::Hopper,
                    &[13.17010827258606, 0.0, 61.819467459708186, 0.0],
                    &[
                        4.171821774571279,
                        10.141381325182905,
                        33.21913691555124,
                        99.95804334881991,
                    ],
                ),
                (
                    Family::Blackwell,
                    &[7.986631428282692, 0.0, 0.0, 0.0],
                    &[9.483660534364745, 11.259442144930631, 0.0, 0.0],
                ),
            ],
            band: Some((0.32438067944871646, 4.562817003306231)),
        },
        tpot: StoredFigure {
            terms: &[
                Term::Compute,
                Term::Memory,
                Term::Network,
                Term::Step,
                Term::Launch,
                Term::Moe,
            ],
            scope: Scope::PerFamily,
            bias: 0.9108871968678465,
            pooled: (
                &[
                    0.9418840323327173,
                    0.7523188083072109,
                    0.268951706501111,
                    6.439042261754007,
                    20.9056119490824,
                    0.6077552864288449,
                ],
                &[
                    0.1947008502715586,
                    0.1813173047716742,
                    0.6123768036269459,
                    1.0795506019877537,
                    7.247927771181334,
                    0.263898228716622,
                ],
            ),
            families: &[
                (
                    Family::Hopper,
                    &[
                        0.8045100634385645,
                        1.0963226358787528,
                        0.9106555322448758,
                        3.9635038384454586,
                        24.420607862064273,
                        0.7542220903825451,
                    ],
                    &[
                        0.27802967211138474,
                        0.05748289638092169,
                        0.5579193100038193,
                        1.497337085376566,
                        6.727594669541511,
                        0.39486247772616545,
                    ],
                ),
                (
                    Family::Blackwell,
                    &[
                        1.1676946501353709,
                        0.0,
                        11.057484897994236,
                        7.302576991816515,
                        22.166263896798924,
                        0.998662131924773,
                    ],
                    &[
                        3.974869889326444,
                        0.0,
                        21.72071535552272,
                        0.5369044920845212,
                        3.105164763504813,
                        0.017516676267946684,
                    ],
                ),
            ],
            band: Some((0.5755701717709422, 1.7063350763908747)),
        },
        rows: 317,
        chips: &["b200", "b300", "h100", "h200"],
        families: &[Family::Hopper, Family::Blackwell],
    },
    StoredFit {
        engine: Engine::Trtllm,
        ttft: StoredFigure {
            terms: &[Term::Compute, Term::Memory, Term::Network, Term::Launch],
            scope: Scope::Pooled,
            bias: 1.0,
            pooled: (
                &[
                    0.023923154908141696,
                    0.0,
                    17.431959740210335,
                    0.4615515141779626,
                ],
                &[
                    0.16238821210061763,
                    2.099139679061264e-5,
                    5.156461206527858,
                    0.04009139513414169,
                ],
            ),
            families: &[],
            band: Some((0.6992564075092604, 5.490110489578712)),
        },
        tpot: StoredFigure {
            terms: &[
                Term::Compute,
                Term::Memory,
                Term::Network,
                Term::MultiChip,
                Term::Launch,
            ],
            scope: Scope::Pooled,
            bias: 1.0,
            pooled: (
                &[
                    1.7267496549847403,
                    1.3945546866187195,
                    2.612304926374632,
                    11.612290496309553,
                    16.216701201293276,
                ],
                &[
                    0.3956888784835716,
                    0.07554410083864316,
                    1.7846315756527948,
                    1.0501066036908124,
                    6.535384523461718,
                ],
            ),
            families: &[],
            band: Some((0.7682676439717191, 1.559956431383373)),
        },
        rows: 1098,
        chips: &["b200", "gb200", "h100", "h200"],
        families: &[Family::Hopper, Family::Blackwell],
    },
];
