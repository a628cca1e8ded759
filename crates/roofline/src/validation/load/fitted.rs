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
                    0.6279392185377952,
                    0.0,
                    15.631482566777011,
                    0.39894400820178977,
                    0.0,
                    0.0,
                ],
                &[
                    0.5174060281491932,
                    0.0,
                    2.7010400648184674,
                    0.03357303876993306,
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
                        0.7454497449744791,
                        0.02080303540752649,
                        4.6100208585615725,
                        0.055982358158827406,
                        44.91142478191152,
                        0.7849204638021382,
                    ],
                ),
                (
                    Family::Blackwell,
                    &[
                        0.64151421291852,
                        0.0,
                        23.84390594036079,
                        0.4224259269516542,
                        0.0,
                        0.0,
                    ],
                    &[
                        0.7673296479869318,
                        0.0,
                        5.476992226833371,
                        0.050320585440040824,
                        0.0,
                        0.7926877317270089,
                    ],
                ),
            ],
            band: Some((0.6722377201479126, 4.309119164845894)),
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
                    1.5428632150083126,
                    1.299527786891324,
                    1.2621251727207266,
                    9.784725836731198,
                    1.7736788097342928,
                    0.2527777822362904,
                ],
                &[
                    0.12034214755195657,
                    0.07733523421756276,
                    0.9793178564145327,
                    1.5287170290928738,
                    0.7869272170397416,
                    0.08554415785415415,
                ],
            ),
            families: &[],
            band: Some((0.7450134090338485, 1.5097123620403237)),
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
                    2.179364755812329,
                    0.0,
                    1.7278863362794783,
                    0.28483125867929904,
                    107.07744697496716,
                    0.0,
                ],
                &[
                    0.4948900871061755,
                    0.0,
                    2.5505684983234285,
                    0.0303348297634007,
                    24.79280330806988,
                    3.109279194631521,
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
                    1.7085295802329754,
                    1.3281147701731733,
                    0.0,
                    12.087154075711569,
                    0.3191263206150696,
                    1.6442005096180083,
                ],
                &[
                    0.6202192590157956,
                    0.08807627273424515,
                    1.518777543045025,
                    2.5742872245629433,
                    0.12853650168883243,
                    0.7567120892215686,
                ],
            ),
            families: &[],
            band: Some((0.7862961102767458, 1.470991986956878)),
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
                    2.5169561456548744,
                    0.0,
                    28.898337921511622,
                    63.401491546549174,
                ],
            ),
            families: &[
                (
                    Family::Hopper,
                    &[13.17010827258606, 0.0, 61.819467459708186, 0.0],
                    &[
                        4.171821774572018,
                        10.141381325182905,
                        33.21913691555065,
                        99.95804334881902,
                    ],
                ),
                (
                    Family::Blackwell,
                    &[7.986631428282692, 0.0, 0.0, 0.0],
                    &[9.483660534356579, 11.259442144931295, 0.0, 0.0],
                ),
            ],
            band: Some((0.3771164158616511, 5.503873786709842)),
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
            bias: 0.9108871968678464,
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
                    0.19470085027224346,
                    0.18131730476891553,
                    0.6123768036228985,
                    1.079550601994191,
                    7.247927771205645,
                    0.2638982287202779,
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
                        0.27802967211158747,
                        0.05748289638112737,
                        0.5579193100041042,
                        1.4973370853753258,
                        6.727594669539156,
                        0.3948624777259907,
                    ],
                ),
                (
                    Family::Blackwell,
                    &[
                        1.7761895263946466,
                        0.608512260885253,
                        11.66596555192978,
                        7.302568439634599,
                        22.166040670111002,
                        0.39015661393055645,
                    ],
                    &[
                        3.7773613361842635,
                        0.3672055051343157,
                        21.515803881496716,
                        0.5369037691748033,
                        3.1051528877366046,
                        0.3784668502468832,
                    ],
                ),
            ],
            band: Some((0.5755701717709172, 1.7063350763908745)),
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
                    0.16238821210098808,
                    2.0991396790612448e-5,
                    5.156461206340207,
                    0.04009139511246173,
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
                    1.7267496549817698,
                    1.3945546866233776,
                    2.6123049263782674,
                    11.612290496295618,
                    16.216701201170153,
                ],
                &[
                    0.3956888784838237,
                    0.07554410083901772,
                    1.7846315756537687,
                    1.0501066036928552,
                    6.535384523424511,
                ],
            ),
            families: &[],
            band: Some((0.7682676439717191, 1.5599680710063015)),
        },
        rows: 1098,
        chips: &["b200", "gb200", "h100", "h200"],
        families: &[Family::Hopper, Family::Blackwell],
    },
];
