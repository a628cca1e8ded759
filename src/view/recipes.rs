//! The chapter's worked examples, loadable in one click, each with the chapter's answer and ours
//! computed from the (possibly edited) scenario.

use roofline::analysis::{analyze, Analysis};
use roofline::op::Op;
use roofline::scenario::Scenario;
use roofline::units::{format_sig, Unit};

use super::names::{dim_word, op_name, pretty};

/// A worked example of the chapter, loadable in one click.
pub struct Recipe {
    /// Stable id (`data-recipe`).
    pub id: &'static str,
    /// Button text.
    pub title: &'static str,
    /// What it shows.
    pub summary: &'static str,
    /// The chapter's answer, quoted.
    pub chapter: &'static str,
    /// The scenario.
    pub scenario: Scenario,
    /// Our answer, computed from the (possibly edited) scenario.
    pub ours: fn(&Scenario) -> String,
}

fn scenario_from(query: &str) -> Scenario {
    roofline::url::decode(query).scenario
}

fn first(s: &Scenario) -> Option<Analysis> {
    analyze(s.ops.first()?, s.chips.first()?, &s.options).ok()
}

fn ours_critical(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    let ridge = format!("ridge {} FLOPs/byte", format_sig(a.ridge, 4));
    match &a.critical {
        Some(c) => format!(
            "{ridge}; exact crossover {} = {}{}",
            dim_word(&c.dim),
            format_sig(c.value, 5),
            c.approx
                .map(|v| format!(
                    ", approximation {} > {}",
                    dim_word(&c.dim),
                    format_sig(v, 4)
                ))
                .unwrap_or_default()
        ),
        None => format!("{ridge}; never compute-bound"),
    }
}

fn ours_intensity(s: &Scenario) -> String {
    let Some(a) = first(s) else {
        return "—".into();
    };
    format!(
        "intensity {} FLOPs/byte{}; {}-bound",
        format_sig(a.intensity, 5),
        a.approx_intensity
            .as_ref()
            .map(|(v, f)| {
                if f.chars().any(char::is_alphabetic) {
                    format!(" ({f} = {})", format_sig(*v, 4))
                } else {
                    format!(" ({f})")
                }
            })
            .unwrap_or_default(),
        a.bound.as_str()
    )
}

/// `f` of each operation's analysis on the first chip, joined by `sep`.
fn per_op(s: &Scenario, sep: &str, f: impl Fn(&Op, Analysis) -> String) -> String {
    let Some(chip) = s.chips.first() else {
        return "—".into();
    };
    let parts: Vec<String> = s
        .ops
        .iter()
        .filter_map(|op| Some(f(op, analyze(op, chip, &s.options).ok()?)))
        .collect();
    parts.join(sep)
}

/// `f` of the first operation on each chip, joined by `; `.
fn per_chip(s: &Scenario, f: impl Fn(&roofline::chip::Chip, &Op) -> Option<String>) -> String {
    let Some(op) = s.ops.first() else {
        return "—".into();
    };
    let parts: Vec<String> = s.chips.iter().filter_map(|c| f(c, op)).collect();
    parts.join("; ")
}

fn ours_all_critical(s: &Scenario) -> String {
    per_op(s, "; ", |op, a| match a.critical {
        Some(c) => format!(
            "{}: {} = {}",
            op_name(op),
            dim_word(&c.dim),
            format_sig(c.value, 4)
        ),
        None => format!(
            "{}: never compute-bound (intensity {} < ridge {})",
            op_name(op),
            format_sig(a.intensity, 3),
            format_sig(a.ridge, 3)
        ),
    })
}

fn ours_intensities(s: &Scenario) -> String {
    per_op(s, " · ", |op, a| {
        format!("{} {}", op_name(op), format_sig(a.intensity, 3))
    })
}

fn ours_times(s: &Scenario) -> String {
    per_chip(s, |c, op| {
        let a = analyze(op, c, &s.options).ok()?;
        Some(format!(
            "{}: T_math = {}",
            c.name,
            pretty(a.t_math, Unit::Seconds)
        ))
    })
}

fn ours_steps(s: &Scenario) -> String {
    per_chip(s, |c, op| {
        let w = roofline::workload::analyze_workload(op, c, &s.options).ok()??;
        Some(format!(
            "{}: {} per step, {} tokens/s, reads {}",
            c.name,
            pretty(w.t_lower, Unit::Seconds),
            format_sig(w.tokens_per_s, 4),
            pretty(w.analysis.bytes, Unit::Bytes)
        ))
    })
}

/// The chapter's worked examples.
pub fn recipes() -> Vec<Recipe> {
    vec![
        Recipe {
            id: "dot",
            title: "Dot product",
            summary: "x·y: bf16[N]·bf16[N] → bf16[1]: intensity (2N−1)/(4N+2) → 1/2",
            chapter: "Intensity = (N + N − 1)/(2N + 2N + 2) = (2N − 1)/(4N + 2) → 1/2: communication-bound.",
            scenario: scenario_from("chip=tpu-v5e&op=dot:n=1000000,t=bf16&plot=roofline"),
            ours: ours_intensity,
        },
        Recipe {
            id: "v5e-critical",
            title: "v5e critical batch",
            summary: "bf16 matmul on TPU v5e: compute-bound when B > 240",
            chapter: "B > 1.97e14 / 8.20e11 = 240 (intensity ≈ B when B ≪ D, F).",
            scenario: scenario_from("chip=tpu-v5e&op=matmul:d=8192,f=8192,label=bf16 D=F=8192&sweep=b:1..1024"),
            ours: ours_critical,
        },
        Recipe {
            id: "q1-int8",
            title: "Q1: int8 matmul",
            summary: "int8 X, W and Z with HBM 8.1e11 B/s and 3.94e14 int8 OPs/s",
            chapter: "Intensity ≈ 2B; 3.94e14 / 8.1e11 = 486, so B > 486 / 2 = 243.",
            scenario: scenario_from(
                "chip=tpu-v5e:hbm=8.1e11&op=matmul:d=8192,f=8192,x=int8,w=int8,out=int8,label=int8 matmul&sweep=b:1..1024",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "q2-w8a16",
            title: "Q2: int8 weights, bf16 acts",
            summary: "bf16[B,D] × int8[D,F] → bf16[B,F], computing in bf16",
            chapter: "Only DF weight bytes: compute-bound when 2B > 240, i.e. B > 120.",
            scenario: scenario_from(
                "chip=tpu-v5e&op=matmul:d=8192,f=8192,x=bf16,w=int8,label=W8A16 D=F=8192&sweep=b:1..512",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "q3-plot",
            title: "Q3: D=F=4096 vs 1024",
            summary: "The chapter's plot: achieved FLOPs/s against B, exact bytes 2BD + DF + 2BF",
            chapter: "Both reach the peak; the larger D = F reaches it sooner; D = F = 1024 almost doubles the critical batch.",
            scenario: Scenario::default(),
            ours: ours_all_critical,
        },
        Recipe {
            id: "q4-bmm",
            title: "Q4: per-example weights",
            summary: "int8[B,D] · int8[B,D,F] → int8[B,F]",
            chapter: "Intensity 2BDF / (BD + BDF + BF) ≈ 2: essentially constant, always comms-bound.",
            scenario: scenario_from("chip=tpu-v5e&op=bmm:b=256,d=4096,f=4096,x=int8,w=int8,out=int8&plot=roofline"),
            ours: ours_intensity,
        },
        Recipe {
            id: "q5-h100",
            title: "Q5: H100 critical batch",
            summary: "dense bf16 9.89e14 FLOPs/s (half the sparse 1.979e15), 3.35e12 B/s",
            chapter: "1e15 / 3.35e12 = 298 (with the rounded 1e15; 9.89e14 gives 295).",
            scenario: scenario_from("chip=h100&op=matmul:d=8192,f=8192,label=bf16 D=F=8192&sweep=b:1..1024"),
            ours: ours_critical,
        },
        Recipe {
            id: "network",
            title: "2-chip network roofline",
            summary: "X·Y split along D over 2 TPU v5e; partial sums cross ICI at 4.5e10 B/s",
            chapter: "Compute-bound w.r.t. the network when D/2 > 1.97e14 / 4.5e10 = 4377, i.e. D > 8755.",
            scenario: scenario_from(
                "chip=tpu-v5e&op=matmul:b=8192,d=16384,f=16384,shards=2,split=d,link=ici,label=2-way D split&sweep=d:512..32768",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "pcie",
            title: "Weights over PCIe",
            summary: "TPU v6e reading bf16 weights from host memory at 1.6e10 B/s",
            chapter: "(TPU chapter) B > 9.2e14 / 1.6e10 = 57,500 to be compute-bound on weights from PCIe.",
            scenario: scenario_from(
                "chip=tpu-v6e&op=matmul:d=8192,f=8192,from=pcie,label=weights from host&sweep=b:1000..200000:log",
            ),
            ours: ours_critical,
        },
        Recipe {
            id: "1e12",
            title: "1e12 FLOPs: H100 vs v6e",
            summary: "T_math = FLOPs / peak: 1.01 ms on H100, 1.1 ms on a v6e at 9.1e14",
            chapter: "1e12 / 9.89e14 = 1.01 ms and 1e12 / 9.1e14 = 1.1 ms.",
            scenario: scenario_from("chip=h100&chip=tpu-v6e:bf16=9.1e14&op=custom:flops=1e12,bytes=1e6&plot=roofline"),
            ours: ours_times,
        },
        Recipe {
            id: "typical",
            title: "Typical intensities",
            summary: "The notes' table: dot product, LayerNorm, matmul at B = 32, 256, 1024 on TPU v5e",
            chapter: "Dot product ~0.5, LayerNorm ~5, matmul ~32 / ~256 / ~1024 (intensity ≈ B): only the last two are compute-bound on v5e.",
            scenario: scenario_from(
                "chip=tpu-v5e&op=dot:n=1000000,label=dot product&op=elementwise:n=1000000,flops=20,inputs=1,label=LayerNorm\
                 &op=matmul:b=32,d=8192,f=8192,label=matmul B=32&op=matmul:b=256,d=8192,f=8192,label=matmul B=256\
                 &op=matmul:b=1024,d=8192,f=8192,label=matmul B=1024&plot=roofline",
            ),
            ours: ours_intensities,
        },
        Recipe {
            id: "llama3-8b-decode",
            title: "Llama-3 8B decode",
            summary: "One decode step of Llama-3 8B in bf16 on H100 and TPU v5e, part by part",
            chapter: "(Issue's hand calculation) B = 1 reads every weight but the embedding table, ≈ 15 GB, plus the KV cache: ≈ 4.5 ms per step on H100 at 3.35e12 B/s.",
            scenario: scenario_from("chip=h100&chip=tpu-v5e&op=llm:preset=llama3-8b,b=1,ctx=2048&sweep=b:1..1024"),
            ours: ours_steps,
        },
        Recipe {
            id: "resnet50",
            title: "ResNet-50: MLSys·im vs per-input activations",
            summary: "Aggregate model on A100: weights only (MLSys·im's view) against weights + activations",
            chapter: "(MLSys·im) 4.1 GFLOP and ~50 MB of weights at batch 1: ~82 FLOP/byte in 1-per-MAC (164 in 2-per-MAC), near the A100's ridge; compute-bound from batch 1 in its table.",
            scenario: scenario_from(
                "chip=a100&op=model:params=25e6,act=0,label=weights only (MLSys-im)&op=model:label=with activations&sweep=b:1..256",
            ),
            ours: ours_all_critical,
        },
    ]
}
