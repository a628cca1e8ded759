//! A scenario: everything the app shows (chips, operations, sweep, plot kind, options,
//! display flags). Plain serde data, meant to be encoded in a URL.

use crate::analysis::Options;
use crate::chip::{preset, Chip};
use crate::dtype::DType;
use crate::error::Error;
use crate::op::{Matmul, Op, OpKind};
use crate::sweep::{sweep, SweepCurve, SweepSpec};
use serde::{Deserialize, Serialize};

id_enum! {
    /// Which plot the app draws (`plot=` in links; ids `sweep`, `roofline`, `both`,
    /// `frontier`, `load`, `validation`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum PlotKind {
        /// Achieved FLOPs/s against the swept field (the book's question 3 plot).
        #[default]
        Sweep = "sweep",
        /// The roofline: achieved FLOPs/s against intensity, log-log.
        Roofline = "roofline",
        /// Both plots, the sweep first.
        Both = "both",
        /// The serving frontier of `llm` operations: tokens/s per chip against time per output
        /// token over the batch (issue 13; added to version 1, absent from older links).
        Frontier = "frontier",
        /// The load plot of an `llm` operation under `load=concurrency|rate`: expected TTFT and
        /// TPOT with their bands against concurrency or request rate per engine, and the
        /// throughput–interactivity frontier (issue 40; added to version 1, absent from older
        /// links).
        Load = "load",
        /// The validation set: published measurements against the roofline's predictions of
        /// their scenarios (issue 25; added to version 1, absent from older links).
        Validation = "validation",
    }
}

impl PlotKind {
    /// Whether the sweep plot is shown.
    pub fn shows_sweep(self) -> bool {
        matches!(self, PlotKind::Sweep | PlotKind::Both)
    }

    /// Whether the roofline plot is shown.
    pub fn shows_roofline(self) -> bool {
        matches!(self, PlotKind::Roofline | PlotKind::Both)
    }

    /// Whether the serving frontier is shown.
    pub fn shows_frontier(self) -> bool {
        self == PlotKind::Frontier
    }

    /// Whether the load plot is shown.
    pub fn shows_load(self) -> bool {
        self == PlotKind::Load
    }

    /// Whether the validation view is shown.
    pub fn shows_validation(self) -> bool {
        self == PlotKind::Validation
    }
}

id_enum! {
    /// What the sweep plot shows on its y axis (`y=` in links; ids `achieved`, `time`,
    /// `fraction`, `tokens`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum SweepMetric {
        /// Achieved FLOPs/s (the chapter's question-3 plot).
        #[default]
        Achieved = "achieved",
        /// Time, T_lower (seconds).
        Time = "time",
        /// Achieved / peak, in percent (model workloads add one curve per part).
        Fraction = "fraction",
        /// Tokens per second of model workloads (other operations have no tokens).
        TokensPerS = "tokens",
    }
}

/// How the sweep plot is drawn: its y metric and which axes are logarithmic (`y=`, `log=`
/// in links). A display choice: it changes no number of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SweepAxes {
    /// The y metric.
    pub y: SweepMetric,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
}

impl SweepAxes {
    /// The `log=` word: `x`, `y`, `xy`, or `None` for linear axes (the default, not written).
    pub fn log_str(self) -> Option<&'static str> {
        match (self.log_x, self.log_y) {
            (false, false) => None,
            (true, false) => Some("x"),
            (false, true) => Some("y"),
            (true, true) => Some("xy"),
        }
    }

    /// The log axes of a `log=` word: `x`, `y`, `xy` (or `yx`), and `none` (or empty) for
    /// linear axes; case-insensitive. `None` for anything else.
    pub fn parse_log(s: &str) -> Option<(bool, bool)> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "none" => Some((false, false)),
            "x" => Some((true, false)),
            "y" => Some((false, true)),
            "xy" | "yx" => Some((true, true)),
            _ => None,
        }
    }
}

id_enum! {
    /// Colour scheme override (the page's light or dark theme; `theme=` in links).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum ColorScheme {
        /// Light.
        Light = "light",
        /// Dark.
        Dark = "dark",
    }
}

/// The baseline row (issue 26): operation `op` on chip `chip`, counted from 0 here and from 1
/// in links (`base=1.2`: operation 1 on chip 2), as the link's notices count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BaseRow {
    /// The operation's position.
    pub op: usize,
    /// The chip's position.
    pub chip: usize,
}

impl BaseRow {
    /// `<op>.<chip>`, counted from 1 (`1.2`).
    pub fn format(self) -> String {
        format!("{}.{}", self.op + 1, self.chip + 1)
    }

    /// Reads `<op>.<chip>`, counted from 1; `None` for anything else (`x`, `0.1`, `1`).
    pub fn parse(text: &str) -> Option<BaseRow> {
        let (o, c) = text.trim().split_once('.')?;
        let n = |t: &str| {
            let t = t.trim();
            (!t.is_empty() && t.len() < 6 && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<usize>().ok())
                .flatten()
                .filter(|&v| v >= 1)
        };
        Some(BaseRow {
            op: n(o)? - 1,
            chip: n(c)? - 1,
        })
    }
}

/// Everything needed to reproduce a view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Scenario {
    /// Chips to compare (each op is analysed on each chip).
    pub chips: Vec<Chip>,
    /// Operations.
    pub ops: Vec<Op>,
    /// The sweep of the sweep plot.
    pub sweep: SweepSpec,
    /// Which plot.
    pub plot: PlotKind,
    /// The sweep plot's y metric and log axes.
    pub axes: SweepAxes,
    /// Analysis options.
    pub options: Options,
    /// Embedded mode (no chrome).
    pub embed: bool,
    /// Colour scheme override; `None` follows the system.
    pub theme: Option<ColorScheme>,
    /// The row every other row is compared with (`base=` in links); none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseRow>,
}

impl Default for Scenario {
    /// The first-load scenario: TPU v5e; two matmuls `bf16[B,D] × int8[D,F] → bf16[B,F]`
    /// (compute bf16 by the default rule), D=F=4096 and D=F=1024, unlabelled so that the
    /// issue's spelled-out URL decodes to exactly this; sweep of `b`
    /// from 1 to 511, linear — the book's question 3.
    fn default() -> Self {
        let mm = |d: f64| {
            OpKind::from(Matmul {
                b: 1.0,
                d,
                f: d,
                x: DType::Bf16,
                w: DType::Int8,
                out: DType::Bf16,
                ..Matmul::default()
            })
        };
        Scenario {
            chips: preset("tpu-v5e").into_iter().collect(),
            ops: vec![Op::new(mm(4096.0)), Op::new(mm(1024.0))],
            sweep: SweepSpec::default(),
            plot: PlotKind::Sweep,
            axes: SweepAxes::default(),
            options: Options::default(),
            embed: false,
            theme: None,
            base: None,
        }
    }
}

impl Scenario {
    /// The baseline, if it names an operation and a chip of this scenario.
    pub fn base_row(&self) -> Option<BaseRow> {
        self.base
            .filter(|b| b.op < self.ops.len() && b.chip < self.chips.len())
    }

    /// Sweeps every op on every chip, chip-major (`[chip0×op0, chip0×op1, ..., chip1×op0,
    /// ...]`).
    pub fn sweeps(&self) -> Vec<Result<SweepCurve, Error>> {
        self.chips
            .iter()
            .flat_map(|c| {
                self.ops
                    .iter()
                    .map(move |o| sweep(o, c, &self.options, &self.sweep))
            })
            .collect()
    }
}
