//! The chapter's worked examples, loadable in one click, each with the chapter's answer and ours
//! computed from the (possibly edited) scenario.

use roofline::inputs::Scenario;

mod answers;

use answers::{
    ours_all_critical, ours_collective, ours_critical, ours_crossovers, ours_days,
    ours_intensities, ours_intensity, ours_load_sweep, ours_max_batch, ours_moe_batch, ours_ratio,
    ours_spec, ours_steps, ours_times, ours_train_critical,
};

/// A worked example of the chapter, loadable in one click.
pub struct Recipe {
    /// Stable id (`data-recipe`).
    pub id: &'static str,
    /// The book's part it comes from (`Part 1: rooflines`): the page groups examples by part.
    pub part: &'static str,
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

/// The parts of the book the examples come from, in order.
pub const PART1: &str = "Part 1: rooflines";
/// Parts 3 and 12: collectives and sharded matmuls.
pub const PART3: &str = "Parts 3 and 12: collectives, sharded matmuls";
/// Part 4: transformers.
pub const PART4: &str = "Part 4: transformers";
/// Parts 5 and 6: training.
pub const PART5: &str = "Parts 5 and 6: training";
/// Parts 7 and 8: serving.
pub const PART7: &str = "Parts 7 and 8: serving";

/// The worked examples the first screen offers under the key line (issue 38, point 11: the
/// examples started 1,642–2,821 px down): a model step on two chips, a chip's critical batch,
/// a collective and a training run, one each from the parts a newcomer meets first.
pub const TRY_NEXT: [&str; 4] = [
    "llama3-8b-decode",
    "q5-h100",
    "allgather-pop-quiz",
    "44-days",
];

/// [`TRY_NEXT`]'s examples as (position in [`recipes`], id, title, query of the link that
/// opens it), shared by the app and the first view drawn without it.
pub fn try_next() -> Vec<(usize, &'static str, &'static str, String)> {
    let all = recipes();
    TRY_NEXT
        .iter()
        .filter_map(|id| {
            let i = all.iter().position(|r| r.id == *id)?;
            let r = &all[i];
            Some((i, r.id, r.title, roofline::url::encode(&r.scenario)))
        })
        .collect()
}

/// The chapter's worked examples.
pub fn recipes() -> Vec<Recipe> {
    let mut v = chapter_one();
    v.extend(later_parts());
    v
}

/// Parts 3 to 8: collectives, sharded matmuls, training, serving.
fn later_parts() -> Vec<Recipe> {
    vec![
        Recipe {
            part: PART3,
            id: "allgather-pop-quiz",
            title: "AllGather pop quiz",
            summary: "sharding.md Pop Quiz 2: AllGather of bf16[2048, 8192] over the 4-chip axis of a TPU v5e mesh, no wraparound",
            chapter: "\"3 hops for data from the edges to reach the other edge, so in theory we have more like T = 3 * 8.4e6 / 4.5e10 = 560us\" (an actual profile shows 680 µs).",
            scenario: scenario_from("chip=tpu-v5e&op=collective:bytes=33554432,n=4,topology=line&plot=roofline"),
            ours: ours_collective,
        },
        Recipe {
            part: PART3,
            id: "allreduce-question-2",
            title: "AllReduce over Z",
            summary: "sharding.md question 2: AllReduce_Z of bf16[B_X, D_Y] {U_Z} on a TPU v4p 4x4x4, B = 1024, D = 4096 (each shard 2BD/16 = 524,288 bytes)",
            chapter: "\"The cost of an AllReduce is twice that of an AllGather ... roughly `4 * 1024 * 4096 / (16 * 9e10) = 11.6us`\".",
            scenario: scenario_from("chip=tpu-v4p&op=collective:kind=allreduce,bytes=524288,n=4,topology=ring&plot=roofline"),
            ours: ours_collective,
        },
        Recipe {
            part: PART3,
            id: "h100-node-allgather",
            title: "AllGather in an H100 node",
            summary: "gpus.md: an AllGather of 536 MB over the 8 GPUs of an H100 node at 450 GB/s egress",
            chapter: "\"536e6 * (8 - 1) / (8 * 450e9) = 1.04ms\" (\"in practice it takes about 1.5ms\").",
            scenario: scenario_from("chip=h100&op=collective:bytes=536870912,n=8,topology=node&plot=roofline"),
            ours: ours_collective,
        },
        Recipe {
            part: PART3,
            id: "sharded-matmul-chips",
            title: "Sharded matmul: chips",
            summary: "sharding.md question 4: D-sharded matmul on a v5p ring, T_math against T_comms over the chip count",
            chapter: "Communication binds when n > D·W_ici / (2C) = 12.85 (B = 4096, D = 65536, F = 16384).",
            scenario: scenario_from(
                "chip=tpu-v5p&op=matmul:b=4096,d=65536,f=16384,shards=4,split=d,topology=ring&sweep=shards:2..64&y=time&log=xy",
            ),
            ours: ours_crossovers,
        },
        Recipe {
            part: PART4,
            id: "moe-e-over-k",
            title: "MoE: B > 120·E/k",
            summary: "transformers.md question 8: DeepSeek-V3 (E = 256, k = 8) decoding with int8 weights and bf16 compute on a TPU v5e",
            chapter: "\"we need B > 120 · E / k to be compute-bound. For DeepSeek, this gives us B > 120 · 256 / 8 = 3840\" (the book rounds the v5e's ridge to 240).",
            scenario: scenario_from(
                "chip=tpu-v5e&op=llm:preset=deepseek-v3,w=int8,x=bf16,kv=bf16,phase=decode,ctx=1,b=3840",
            ),
            ours: ours_moe_batch,
        },
        Recipe {
            part: PART5,
            id: "fsdp-critical-batch",
            title: "FSDP: 2,550 per chip",
            summary: "training.md: LLaMA 3-70B with FSDP over one axis of TPU v5p, no tensor parallelism",
            chapter: "\"For TPUv5p, C=4.6e14 and W=2 * 9e10 ... our batch size per chip must be at least 2,550 to avoid being communication-bound\".",
            scenario: scenario_from("chip=tpu-v5p&op=train:dp=1,fsdp=2048,tp=1,mx=1"),
            ours: |s| ours_train_critical(s, "fsdp"),
        },
        Recipe {
            part: PART5,
            id: "tp-critical",
            title: "TP: Y < F/2550",
            summary: "training.md: LLaMA 3-70B (F = 28,672) with 16-way tensor parallelism on one TPU v5p axis",
            chapter: "\"Tensor Parallelism becomes communication bound when Y > M_Y · F / 2550\"; for LLaMA 3-70B \"we can comfortably do 8-way tensor parallelism, but will be communication bound on 16 way\".",
            scenario: scenario_from("chip=tpu-v5p&op=train:dp=1,fsdp=512,tp=16,mx=1,my=1"),
            ours: |s| ours_train_critical(s, "tp"),
        },
        Recipe {
            part: PART5,
            id: "44-days",
            title: "LLaMA 3-70B: 44 days",
            summary: "applied-training.md: 15T tokens on 8960 TPU v5p at 40% MFU",
            chapter: "\"T = 6.3e24 / (8960 * 4.59e14 * 0.4) = 3.8e6 seconds. This is about 44 days!\"",
            scenario: scenario_from("chip=tpu-v5p&op=train:dp=1,fsdp=2240,mfu=0.4"),
            ours: ours_days,
        },
        Recipe {
            part: PART7,
            id: "llama-max-batch",
            title: "LLaMA 3-70B max batch",
            summary: "applied-inference.md: int8 LLaMA 3-70B on a TPU v5e 4x2 at 8k context, with the book's 16 GB per chip",
            chapter: "\"num KV caches @ 8k\": 43 on a 4x2 in int8; \"16GB / 8.2e11 = 19ms / step\" at that batch.",
            scenario: scenario_from(
                "chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,prompt=7680,output=512,b=42",
            ),
            ours: ours_max_batch,
        },
        Recipe {
            part: PART7,
            id: "p-3g",
            title: "Prefill : decode = 3",
            summary: "applied-inference.md: prefill servers per decode server for disaggregated serving",
            chapter: "\"910ms per prefill step and 19ms per decode step at batch size 43 (let's call that 32) ... P = 3G\".",
            scenario: scenario_from(
                "chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,prompt=7680,output=512,b=32",
            ),
            ours: ours_ratio,
        },
        Recipe {
            part: PART7,
            id: "speculative",
            title: "Speculative decoding",
            summary: "inference.md: a Llama-3 8B draft proposing 4 tokens for LLaMA 3-70B, accepted 80% of the time",
            chapter: "Expected tokens per verify step (1 − α^(k+1)) / (1 − α) = 3.36 at α = 0.8, k = 4: faster when the draft's k steps and one verify cost less than 3.36 target steps.",
            scenario: scenario_from(
                "chip=tpu-v5e:hbm_cap=16e9&op=llm:preset=llama3-70b,w=int8,x=int8,kv=int8,tp=8,b=32,prompt=7680,output=512,draft=llama3-8b,spec_k=4,accept=0.8",
            ),
            ours: ours_spec,
        },
        Recipe {
            part: PART7,
            id: "load-70b-h200",
            title: "Llama 3.1-70B under load",
            summary: "serving under load (issue 40): a concurrency sweep of fp8 Llama 3.1-70B on 8 × H200, 1,024 tokens in and out, on vLLM, SGLang and TensorRT-LLM, on the load plot beside the sample's measured rows; the rows at 64 clients",
            chapter: "Measured (AIConfigurator's silicon sample at 095f58a51, Apache-2.0; fp8, tp 8, 1,024/1,024): vLLM at c = 4, 16, 64: TTFT 73.0, 109.3, 194.9 ms, TPOT 7.93, 9.71, 12.73 ms; TensorRT-LLM at c = 4, 16, 64, 128: TTFT 68.7, 103.2, 225.4, 323.5 ms, TPOT 6.26, 7.69, 13.51, 21.64 ms. The sample has no SGLang row on this setup: its curve is the fit's alone, and its legend says so.",
            scenario: scenario_from(
                "chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=concurrency,c=64,engine=vllm&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=concurrency,c=64,engine=sglang&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=1024,load=concurrency,c=64,engine=trtllm&plot=load",
            ),
            ours: ours_load_sweep,
        },
        Recipe {
            part: PART7,
            id: "load-70b-h200-long-prompt",
            title: "Llama 3.1-70B under load, 8,192 in",
            summary: "the load example with 8,192-token prompts and 1,024-token outputs: the concurrency sweep on each engine beside the measured rows",
            chapter: "Measured (AIConfigurator's silicon sample at 095f58a51, Apache-2.0; fp8, tp 8, 8,192/1,024): vLLM at c = 4, 16, 64: TTFT 303.2, 479.5, 1,141.1 ms, TPOT 8.76, 13.36, 29.17 ms; TensorRT-LLM at c = 4, 16, 64, 128: TTFT 302.0, 511.7, 1,132.4, 1,899.3 ms, TPOT 7.15, 11.26, 27.98, 50.03 ms. No SGLang row.",
            scenario: scenario_from(
                "chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=8192,output=1024,load=concurrency,c=64,engine=vllm&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=8192,output=1024,load=concurrency,c=64,engine=sglang&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=8192,output=1024,load=concurrency,c=64,engine=trtllm&plot=load",
            ),
            ours: ours_load_sweep,
        },
        Recipe {
            part: PART7,
            id: "load-70b-h200-long-output",
            title: "Llama 3.1-70B under load, 8,192 out",
            summary: "the load example with 1,024-token prompts and 8,192-token outputs: the concurrency sweep on each engine beside the measured rows",
            chapter: "Measured (AIConfigurator's silicon sample at 095f58a51, Apache-2.0; fp8, tp 8, 1,024/8,192): vLLM at c = 4, 16, 64: TTFT 75.6, 101.4, 180.4 ms, TPOT 7.93, 9.75, 13.58 ms; TensorRT-LLM at c = 4, 16, 64, 128: TTFT 91.3, 126.0, 208.4, 322.2 ms, TPOT 6.45, 7.72, 13.22, 20.74 ms. No SGLang row.",
            scenario: scenario_from(
                "chip=h200&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=8192,load=concurrency,c=64,engine=vllm&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=8192,load=concurrency,c=64,engine=sglang&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,w=fp8,x=fp8,prompt=1024,output=8192,load=concurrency,c=64,engine=trtllm&plot=load",
            ),
            ours: ours_load_sweep,
        },
    ]
}

/// Part 1's worked examples (the first chapter).
fn chapter_one() -> Vec<Recipe> {
    vec![
        Recipe {
            part: PART1,
            id: "dot",
            title: "Dot product",
            summary: "x·y: bf16[N]·bf16[N] → bf16[1]: intensity (2N−1)/(4N+2) → 1/2",
            chapter: "Intensity = (N + N − 1)/(2N + 2N + 2) = (2N − 1)/(4N + 2) → 1/2: communication-bound.",
            scenario: scenario_from("chip=tpu-v5e&op=dot:n=1000000,t=bf16&plot=roofline"),
            ours: ours_intensity,
        },
        Recipe {
            part: PART1,
            id: "v5e-critical",
            title: "v5e critical batch",
            summary: "bf16 matmul on TPU v5e: compute-bound when B > 240",
            chapter: "B > 1.97e14 / 8.20e11 = 240 (intensity ≈ B when B ≪ D, F).",
            scenario: scenario_from("chip=tpu-v5e&op=matmul:d=8192,f=8192,label=bf16 D=F=8192&sweep=b:1..1024"),
            ours: ours_critical,
        },
        Recipe {
            part: PART1,
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
            part: PART1,
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
            part: PART1,
            id: "q3-plot",
            title: "Q3: D=F=4096 vs 1024",
            summary: "The chapter's plot: achieved FLOPs/s against B, exact bytes 2BD + DF + 2BF",
            chapter: "Both reach the peak; the larger D = F reaches it sooner; D = F = 1024 almost doubles the critical batch.",
            scenario: Scenario::default(),
            ours: ours_all_critical,
        },
        Recipe {
            part: PART1,
            id: "q4-bmm",
            title: "Q4: per-example weights",
            summary: "int8[B,D] · int8[B,D,F] → int8[B,F]",
            chapter: "Intensity 2BDF / (BD + BDF + BF) ≈ 2: essentially constant, always comms-bound.",
            scenario: scenario_from("chip=tpu-v5e&op=bmm:b=256,d=4096,f=4096,x=int8,w=int8,out=int8&plot=roofline"),
            ours: ours_intensity,
        },
        Recipe {
            part: PART1,
            id: "q5-h100",
            title: "Q5: H100 critical batch",
            summary: "dense bf16 9.89e14 FLOPs/s (half the sparse 1.979e15), 3.35e12 B/s",
            chapter: "1e15 / 3.35e12 = 298 (with the rounded 1e15; 9.89e14 gives 295).",
            scenario: scenario_from("chip=h100&op=matmul:d=8192,f=8192,label=bf16 D=F=8192&sweep=b:1..1024"),
            ours: ours_critical,
        },
        Recipe {
            part: PART1,
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
            part: PART1,
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
            part: PART1,
            id: "1e12",
            title: "1e12 FLOPs: H100 vs v6e",
            summary: "T_math = FLOPs / peak: 1.01 ms on H100, 1.1 ms on a v6e at 9.1e14",
            chapter: "1e12 / 9.89e14 = 1.01 ms and 1e12 / 9.1e14 = 1.1 ms.",
            scenario: scenario_from("chip=h100&chip=tpu-v6e:bf16=9.1e14&op=custom:flops=1e12,bytes=1e6&plot=roofline"),
            ours: ours_times,
        },
        Recipe {
            part: PART1,
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
            part: PART1,
            id: "llama3-8b-decode",
            title: "Llama-3 8B decode",
            summary: "One decode step of Llama-3 8B in bf16 on H100 and TPU v5e, part by part",
            chapter: "(Issue's hand calculation) B = 1 reads every weight but the embedding table, ≈ 15 GB, plus the KV cache: ≈ 4.5 ms per step on H100 at 3.35e12 B/s.",
            scenario: scenario_from("chip=h100&chip=tpu-v5e&op=llm:preset=llama3-8b,b=1,ctx=2048&sweep=b:1..1024"),
            ours: ours_steps,
        },
        Recipe {
            part: PART1,
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
