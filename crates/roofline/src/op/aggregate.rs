use super::behavior::{coef_str, n, OpBehavior};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{choice, dtype, number, parse_choice, size, FieldSpec, SIZES};
use crate::resource::Resource;
use serde::{Deserialize, Serialize};

/// An aggregate model preset, with the source of its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AggregatePreset {
    /// The id (`resnet50`), the value of the `preset` field.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// FLOPs per input (2 per MAC).
    pub flops: f64,
    /// Parameters.
    pub params: f64,
    /// Activation bytes moved per input.
    pub act: f64,
    /// Where the numbers come from.
    pub source: &'static str,
}

static PRESETS: [AggregatePreset; 1] = [AggregatePreset {
    id: "resnet50",
    name: "ResNet-50",
    flops: 8.2e9,
    params: 25.6e6,
    act: 5.68e7,
    source: concat!(
        "parameters 25.6e6 and 4.1e9 MACs = 8.2e9 FLOPs (2 per MAC) per 224×224 image: MLSys·im \"Hello, ",
        "Roofline\" (its zoo lists 25,600,000 parameters and 4.1 GFLOP counting a MAC as 1 FLOP; He et al. ",
        "2015 give 3.8e9 multiply-adds, torchvision's v1.5 25,557,032 parameters and 4.09e9 MACs). ",
        "Activations: an estimate, not a published figure: 5.68e7 bytes = 28.4e6 elements × 2 bytes (16-bit), ",
        "counted from the torchvision ResNet-50 layer shapes with every layer reading its input and writing ",
        "its output once (batch norm, ReLU and the residual add fused into the convolution, which also reads ",
        "the shortcut); no cache reuse between layers, so it is conservative (an upper bound on HBM traffic)"
    ),
}];

/// The aggregate model presets: `resnet50`.
pub fn aggregate_presets() -> &'static [AggregatePreset] {
    &PRESETS
}

const PRESET_IDS: &[&str] = &["resnet50", "custom"];

/// A whole model given by its totals (MLSys·im style, with activations): `flops` FLOPs and
/// `act` activation bytes per input, `params` parameters of `s_w` bytes, batch `B`.
///
/// * FLOPs = `B·flops`
/// * HBM bytes = `params·s_w + B·act`: the weights are read once per batch, the activations
///   once per input
/// * intensity = `B·flops / (params·s_w + B·act)`, which grows with `B` towards `flops/act`:
///   with `act = 0` it is `B·flops/(params·s_w)` (ResNet-50, 16-bit: ≈ 160·B), so MLSys·im's
///   `bytes = weights` view is the `act = 0` case
/// * critical `B` (exact, linear): `B·flops/P = (params·s_w + B·act)/BW`, i.e.
///   `B = params·s_w/BW / (flops/P − act/BW)`; none when `act/BW ≥ flops/P`
///
/// Runs at the peak of `w`'s dtype; memory = `params·s_w` (the weights; activations are
/// counted as traffic, not as resident memory). The `preset` field is derived like
/// [`crate::Llm`]'s: `resnet50` when `flops`, `params` and `act` equal that preset's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Aggregate {
    /// FLOPs per input (2 per MAC).
    pub flops: f64,
    /// Parameter count.
    pub params: f64,
    /// Activation bytes per input.
    pub act: f64,
    /// Batch `B` (inputs per step).
    pub b: f64,
    /// Weight dtype (bytes per parameter); the FLOPs run at its peak.
    pub w: DType,
}

impl Default for Aggregate {
    /// ResNet-50, B=1, bf16.
    fn default() -> Self {
        let p = &PRESETS[0];
        Aggregate {
            flops: p.flops,
            params: p.params,
            act: p.act,
            b: 1.0,
            w: DType::Bf16,
        }
    }
}

impl Aggregate {
    /// The preset whose numbers equal this model's, if any.
    pub fn preset(&self) -> Option<&'static AggregatePreset> {
        PRESETS
            .iter()
            .find(|p| p.flops == self.flops && p.params == self.params && p.act == self.act)
    }

    /// The value of the `preset` field: a preset id or `custom`.
    pub fn preset_id(&self) -> &'static str {
        self.preset().map_or("custom", |p| p.id)
    }

    /// Sets the `preset` field: a preset id fills FLOPs, parameters and activation bytes;
    /// `custom` changes nothing.
    fn set_preset(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error> {
        if let Some(p) = PRESETS.get(parse_choice(spec, text)?) {
            self.flops = p.flops;
            self.params = p.params;
            self.act = p.act;
        }
        Ok(())
    }

    /// Weight bytes: `params·s_w`.
    pub fn weight_bytes(&self) -> f64 {
        self.params * self.w.bytes()
    }
}

impl OpBehavior for Aggregate {
    op_fields! {
        "preset" => derived(preset_id, set_preset): choice(
            "model",
            PRESET_IDS,
            "resnet50",
            "model preset (fills FLOPs, parameters and activation bytes); editing those makes it custom",
            "a model preset",
        ),
        "b" => num(b): size(
            "B",
            "1",
            "batch B (inputs per step): FLOPs B·flops, bytes params·s_w + B·act",
        ).slider(SIZES),
        "w" => dtype(w): dtype(
            "weights",
            "bf16",
            "weight dtype: s_w bytes per parameter; the FLOPs run at its peak",
        ),
        "flops" => num(flops): number(
            "FLOPs per input",
            "8.2e9",
            (1.0, 1e30),
            "a positive number of FLOPs",
            "FLOPs per input, 2 per multiply-accumulate (ResNet-50: 4.1e9 MACs = 8.2e9 FLOPs)",
        ),
        "params" => num(params): number(
            "parameters",
            "2.56e7",
            (1.0, 1e18),
            "a positive number of parameters",
            "parameter count: params·s_w bytes read once per batch",
        ),
        "act" => num(act): number(
            "activation bytes per input",
            "5.68e7",
            (0.0, 1e18),
            "a number of bytes",
            "activation bytes read and written per input (0 = weights only, as MLSys·im)",
        ),
    }
    fn is_affine(&self, _key: &str) -> bool {
        true
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let mut c = Cost::at_peak(self.b * self.flops, self.w, chip)?;
        let wb = self.weight_bytes();
        let ab = self.b * self.act;
        c.push(Resource::Hbm, wb + ab, chip.hbm);
        c.bytes_read = wb + ab;
        c.memory = wb;
        Ok(c)
    }
    fn critical_dim(&self) -> Option<&'static str> {
        Some("b")
    }
    fn approx_critical(&self, binding: Resource, peak_eff: f64, bw: f64) -> Option<f64> {
        (binding == Resource::Hbm && self.act == 0.0)
            .then(|| self.weight_bytes() * peak_eff / (self.flops * bw))
    }
    fn approx_intensity(&self, binding: Resource, conv: f64) -> Option<(f64, String)> {
        (binding == Resource::Hbm && self.act == 0.0).then(|| {
            let c = conv * self.flops / self.weight_bytes();
            (c * self.b, format!("= {}", coef_str(c, "B")))
        })
    }
    fn describe(&self) -> String {
        let name = self.preset().map_or("model", |p| p.name);
        format!(
            "{name}: B={}, {} FLOPs and {} activation bytes per input, {} parameters in {}",
            n(self.b),
            n(self.flops),
            n(self.act),
            n(self.params),
            self.w
        )
    }
    fn flops_formula(&self) -> (String, String) {
        ("B·flops".into(), format!("{}·{}", n(self.b), n(self.flops)))
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        (r == Resource::Hbm).then(|| {
            let sw = n(self.w.bytes());
            (
                format!("params·{sw} + B·act"),
                format!("{}·{sw} + {}·{}", n(self.params), n(self.b), n(self.act)),
            )
        })
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        if let Some(p) = self.preset() {
            out.push(format!("{}: {}.", p.name, p.source));
        }
        let limit = if self.act > 0.0 {
            format!(
                ", which grows with B towards flops/act = {}",
                crate::units::format_sig(self.flops / self.act, 3)
            )
        } else {
            " (no activations: MLSys·im's bytes = weights)".to_string()
        };
        out.push(format!(
            "Aggregate model: weights read once per batch (params·s_w bytes), activations per input (B·act bytes); intensity = B·flops/(params·s_w + B·act){limit}."
        ));
    }
}
