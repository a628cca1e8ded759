//! The serving-at-load set's fitted models as the page carries them: per engine and figure,
//! the choices, the coefficients with their standard errors, the band. Written by `./dev
//! validate --write` from the fit on every expressed row (`super::report`); the rows
//! themselves stay in the lazily fetched validation data. `tests/it/serving_fit.rs` checks
//! the coefficients against a fresh fit with the stored choices.

use super::super::fit::{Model, Term};
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
    let m = |c: &[f64]| Model {
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
                    0.5174048565214489,
                    0.0,
                    2.701024344987728,
                    0.0335718006041017,
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
                        0.745450289706955,
                        0.020803035407526538,
                        4.610018664847394,
                        0.0559823155467845,
                        44.91142477802776,
                        0.7849197130948407,
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
                        0.7673296665778293,
                        0.0,
                        5.47699266727338,
                        0.050320586062496724,
                        0.0,
                        0.7926877317270549,
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
                    1.5435370336035616,
                    1.2992569054555323,
                    1.2532206560797325,
                    9.78608578003556,
                    1.7736357939575484,
                    0.2530708833235088,
                ],
                &[
                    0.12035494420376917,
                    0.07733390355021431,
                    0.9793320641961145,
                    1.5287719921254423,
                    0.7869148926001951,
                    0.08554101358079373,
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
                    2.1793964736168263,
                    0.0,
                    1.7274702918440679,
                    0.28482260458029285,
                    107.09343368953178,
                    0.0,
                ],
                &[
                    0.49488579481465844,
                    0.0,
                    2.5506172309302118,
                    0.03033459668996716,
                    24.79282685743532,
                    3.109279195120539,
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
                    1.7086074158326174,
                    1.3281007024065927,
                    0.0,
                    12.096244117353743,
                    0.3191741172027232,
                    1.642866702422163,
                ],
                &[
                    0.6202192030990112,
                    0.08807653492733802,
                    1.518793175483966,
                    2.574286520632876,
                    0.12853568971722337,
                    0.7567124761888055,
                ],
            ),
            families: &[],
            band: Some((0.786296184484251, 1.4709919869568782)),
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
                    2.5169561456351035,
                    0.0,
                    28.898337921548237,
                    63.40149154654133,
                ],
            ),
            families: &[
                (
                    Family::Hopper,
                    &[13.17010827258606, 0.0, 61.819467459708186, 0.0],
                    &[
                        4.171821774571273,
                        10.141381325182905,
                        33.219136915551246,
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
                    0.9418840323327181,
                    0.7523188083072105,
                    0.268951706501111,
                    6.439042261754007,
                    20.905611949082438,
                    0.6077552864288455,
                ],
                &[
                    0.19470085027282502,
                    0.1813173047699979,
                    0.612376803626349,
                    1.0795506019868761,
                    7.2479277711878325,
                    0.26389822871685087,
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
                        0.2780296721116466,
                        0.05748289638091484,
                        0.5579193100038494,
                        1.4973370853751646,
                        6.727594669543914,
                        0.39486247772604155,
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
                        3.9748698893264454,
                        0.0,
                        21.720715355522714,
                        0.5369044920845211,
                        3.1051647635047646,
                        0.017516676267946407,
                    ],
                ),
            ],
            band: Some((0.5755701717709052, 1.7063350763908747)),
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
