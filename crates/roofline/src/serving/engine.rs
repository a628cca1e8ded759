//! What each engine does by default (issue 40): its step pattern, chunked-prefill budget,
//! sequence cap, KV-pool memory fraction and how its pages follow the tokens, each with the
//! version and file it was read from. `docs/serving.md` gives the same table.
//!
//! | engine | steps | chunk budget | sequence cap | KV pool | pages |
//! | --- | --- | --- | --- | --- | --- |
//! | vLLM (V1, v0.11–0.19) | decode and prefill chunks mixed | `max_num_batched_tokens` 8192 on a GPU of ≥ 70 GiB that is not an A100, else 2048 (online serving) | `max_num_seqs` 1024, else 256 | `gpu_memory_utilization` 0.9 of HBM, less the weights | grow with tokens |
//! | SGLang (v0.5) | prefill steps and decode steps apart | `chunked_prefill_size` by GPU memory: 2048 (< 35 GiB), 4096 (< 60), 8192 (< 160), 16384 | `max_running_requests`: the request pool, 2048 | `mem_fraction_static` = 1 − reserved / HBM | grow with tokens |
//! | TensorRT-LLM (1.x, `trtllm-serve`) | in-flight batching: context and generation mixed | chunked context off: whole prompts (`max_num_tokens` 8192) | `max_batch_size` 2048 | `free_gpu_memory_fraction` 0.9 of the memory left after the weights | reserved for prompt + output (`GUARANTEED_NO_EVICT`) |
//! | generic | as vLLM | as vLLM | as vLLM | as vLLM | as vLLM |

use crate::chip::Chip;
pub use crate::op::{Chunk, Engine};
use serde::{Deserialize, Serialize};

/// How an engine composes its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pattern {
    /// Every step carries each running sequence's decode token and prefill chunks up to the
    /// budget (vLLM's V1 scheduler, TensorRT-LLM's in-flight batching).
    Mixed,
    /// A step is either a prefill step (new prompts' chunks, up to the budget) or a decode
    /// step (every running sequence's token); a prefill step runs whenever a prompt waits
    /// (SGLang without `--enable-mixed-chunk`).
    Split,
}

/// How the KV pool is taken from HBM.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum PoolRule {
    /// `fraction · HBM − weights` (vLLM's `gpu_memory_utilization`, SGLang's
    /// `mem_fraction_static`: the engine's whole share of memory, weights included).
    OfTotal(f64),
    /// `fraction · (HBM − weights)` (TensorRT-LLM's `free_gpu_memory_fraction`: a share of what
    /// is free once the weights are loaded).
    OfFree(f64),
}

impl PoolRule {
    /// The fraction.
    pub fn fraction(self) -> f64 {
        match self {
            PoolRule::OfTotal(f) | PoolRule::OfFree(f) => f,
        }
    }

    /// KV-pool bytes per chip of `hbm` bytes holding `weights` bytes of weights.
    pub fn pool(self, hbm: f64, weights: f64) -> f64 {
        match self {
            PoolRule::OfTotal(f) => f * hbm - weights,
            PoolRule::OfFree(f) => f * (hbm - weights),
        }
    }
}

/// How a running sequence holds KV pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pages {
    /// Pages are taken as tokens arrive: the pool holds each sequence's current KV (vLLM's
    /// paged blocks, SGLang's token pool).
    Grow,
    /// Pages for the whole request (prompt and output) are reserved when it starts
    /// (TensorRT-LLM's `GUARANTEED_NO_EVICT` capacity scheduler).
    Reserve,
}

/// One engine's defaults on one chip, each with its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineDefaults {
    /// The engine.
    pub engine: Engine,
    /// Its step pattern.
    pub pattern: Pattern,
    /// Its chunked-prefill budget, counting decode and prefill tokens together.
    pub chunk: Chunk,
    /// Whether the engine's own budget counts only prefill tokens (and was converted).
    pub budget_counts_prefill_only: bool,
    /// Its cap on running sequences.
    pub max_seqs: f64,
    /// How its KV pool is taken from HBM.
    pub pool: PoolRule,
    /// How its sequences hold pages.
    pub pages: Pages,
    /// The engine version the defaults were read from.
    pub version: &'static str,
    /// Where each default comes from, in the order pattern, chunk, cap, pool, pages.
    pub sources: [&'static str; 5],
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

const VLLM_VERSION: &str = "vLLM V1 engine, v0.11–v0.19";
const VLLM_SOURCES: [&str; 5] = [
    "vllm/v1/core/sched/scheduler.py: one token budget per step, running requests (decode tokens and unfinished prompts) scheduled first, then waiting prompts' chunks (V1 always chunks prefills)",
    "vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults: max_num_batched_tokens 8192 for the OpenAI server on a GPU of ≥ 70 GiB whose name is not A100 (H100, MI300X), else 2048",
    "vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults: max_num_seqs 1024 on a GPU of ≥ 70 GiB that is not an A100, else 256",
    "vllm/config/cache.py: gpu_memory_utilization 0.9, the fraction of GPU memory for the whole instance (weights, activations and KV cache)",
    "vLLM's paged attention: KV blocks of 16 tokens allocated as a sequence grows, preempted when none is free",
];

const SGLANG_VERSION: &str = "SGLang v0.5 (0.5.9)";
const SGLANG_SOURCES: [&str; 5] = [
    "python/sglang/srt/managers/scheduler.py, get_next_batch_to_run: a new prefill batch runs whenever requests wait, else a decode batch of every running request (mixed chunks only with --enable-mixed-chunk, off by default)",
    "python/sglang/srt/server_args.py, _handle_gpu_memory_settings: chunked_prefill_size 2048 below 35 GiB of GPU memory, 4096 below 60, 8192 below 160 (H100, H200), 16384 above (B200); prefill tokens only: a prefill step carries no decode token, so the budget per step is the same",
    "python/sglang/srt/model_executor/model_runner.py: max_running_requests = min(request pool, KV tokens / 2), the request pool min(max(⌊KV tokens / context length · 512⌋, 2048), 4096): 2048 unless the pool holds four full contexts",
    "python/sglang/srt/server_args.py, _handle_gpu_memory_settings: mem_fraction_static = (GPU memory − reserved) / GPU memory, reserved = 512 MiB + 1.5 MiB per chunk token (at least 2048) + 2 MiB per CUDA-graph batch (256 with tp < 4 on 60–160 GiB GPUs, else 512) + tp/8 GiB, at least 10 GiB on GPUs over 60 GiB",
    "SGLang's token-to-KV pool: one slot per token, taken as tokens arrive",
];

const TRTLLM_VERSION: &str = "TensorRT-LLM 1.x (trtllm-serve, PyTorch backend)";
const TRTLLM_SOURCES: [&str; 5] = [
    "TensorRT-LLM's in-flight batching: context (prefill) and generation requests scheduled into the same step (docs: Tuning Max Batch Size and Max Num Tokens)",
    "tensorrt_llm/commands/serve.py: enable_chunked_prefill False (whole prompts); tensorrt_llm/builder.py BuildConfig max_num_tokens 8192",
    "tensorrt_llm/builder.py, BuildConfig: max_batch_size 2048",
    "tensorrt_llm/commands/serve.py: free_gpu_memory_fraction 0.9 (KvCacheConfig: the fraction of GPU memory free after the weights and buffers)",
    "tensorrt_llm/commands/serve.py: capacity_scheduler_policy GUARANTEED_NO_EVICT, which admits a request only with blocks for its whole prompt and output",
];

/// Whether vLLM takes its large defaults on `chip`: at least 70 GiB of memory and not an A100
/// (PR #17885 found the large budget slower on A100).
fn vllm_large(chip: &Chip) -> bool {
    chip.hbm_cap >= 70.0 * GIB && chip.preset_id.as_deref() != Some("a100")
}

/// SGLang's `chunked_prefill_size` and `cuda_graph_max_bs` for a GPU of `mib` MiB at tensor
/// parallelism `tp` (`_handle_gpu_memory_settings`).
fn sglang_sizes(mib: f64, tp: f64) -> (f64, f64) {
    if mib < 20.0 * 1024.0 {
        (2048.0, 8.0)
    } else if mib < 35.0 * 1024.0 {
        (2048.0, if tp < 4.0 { 24.0 } else { 80.0 })
    } else if mib < 60.0 * 1024.0 {
        (4096.0, if tp < 4.0 { 32.0 } else { 160.0 })
    } else if mib < 160.0 * 1024.0 {
        (8192.0, if tp < 4.0 { 256.0 } else { 512.0 })
    } else {
        (16384.0, 512.0)
    }
}

/// SGLang's `mem_fraction_static` for a GPU of `mib` MiB at tensor parallelism `tp`: the
/// memory left after the reserve for activations and CUDA graphs, as a fraction rounded to
/// three digits (`_handle_gpu_memory_settings`, pipeline parallelism 1, no DP attention).
pub fn sglang_mem_fraction(mib: f64, tp: f64) -> f64 {
    let (chunk, graph_bs) = sglang_sizes(mib, tp);
    let mut reserved = 512.0 + chunk.max(2048.0) * 1.5 + graph_bs * 2.0 + tp / 8.0 * 1024.0;
    if mib > 60.0 * 1024.0 {
        reserved = reserved.max(10.0 * 1024.0);
    }
    ((mib - reserved) / mib * 1000.0).round() / 1000.0
}

/// The defaults of `engine` for a group of `tp` chips like `chip`.
pub fn engine_defaults(engine: Engine, chip: &Chip, tp: f64) -> EngineDefaults {
    match engine {
        Engine::Vllm | Engine::Generic => {
            let large = vllm_large(chip);
            EngineDefaults {
                engine,
                pattern: Pattern::Mixed,
                chunk: Chunk::Tokens(if large { 8192.0 } else { 2048.0 }),
                budget_counts_prefill_only: false,
                max_seqs: if large { 1024.0 } else { 256.0 },
                pool: PoolRule::OfTotal(0.9),
                pages: Pages::Grow,
                version: VLLM_VERSION,
                sources: VLLM_SOURCES,
            }
        }
        Engine::Sglang => {
            let mib = chip.hbm_cap / MIB;
            EngineDefaults {
                engine,
                pattern: Pattern::Split,
                chunk: Chunk::Tokens(sglang_sizes(mib, tp).0),
                budget_counts_prefill_only: true,
                max_seqs: 2048.0,
                pool: PoolRule::OfTotal(sglang_mem_fraction(mib, tp)),
                pages: Pages::Grow,
                version: SGLANG_VERSION,
                sources: SGLANG_SOURCES,
            }
        }
        Engine::Trtllm => EngineDefaults {
            engine,
            pattern: Pattern::Mixed,
            chunk: Chunk::Whole,
            budget_counts_prefill_only: false,
            max_seqs: 2048.0,
            pool: PoolRule::OfFree(0.9),
            pages: Pages::Reserve,
            version: TRTLLM_VERSION,
            sources: TRTLLM_SOURCES,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SGLang's reserve by hand (server_args.py's heuristic). A GPU of 81,920 MiB (80 GiB) at
    /// tp 1 is in the 60–160 GiB tier, chunk 8192 and graph batch 256, so it reserves 512 +
    /// 8192·1.5 + 256·2 + 1024/8 = 13,440 MiB (over the 10 GiB floor), and keeps
    /// (81920 − 13440)/81920 = 0.8359, rounded 0.836. A B200 (184,320 MiB) at tp 8, chunk
    /// 16384 and graph 512, reserves 512 + 24576 + 1024 + 1024 = 27,136 MiB and keeps
    /// (184320 − 27136)/184320 = 0.85278, rounded 0.853.
    #[test]
    fn sglang_fraction_by_hand() {
        assert_eq!(sglang_mem_fraction(81920.0, 1.0), 0.836);
        assert_eq!(sglang_mem_fraction(184320.0, 8.0), 0.853);
        // A 40 GiB A100 (40,960 MiB) at tp 1: chunk 4096, graph 32: 512 + 6144 + 64 + 128 =
        // 6,848, no floor below 60 GiB: (40960 − 6848)/40960 = 0.83281 → 0.833.
        assert_eq!(sglang_mem_fraction(40960.0, 1.0), 0.833);
    }

    /// The pool rules: vLLM's 0.9 of 80 GB less 16 GB of weights is 56 GB; TensorRT-LLM's 0.9
    /// of the 64 GB left is 57.6 GB.
    #[test]
    fn pool_rules() {
        assert!((PoolRule::OfTotal(0.9).pool(80e9, 16e9) - 56e9).abs() < 1.0);
        assert!((PoolRule::OfFree(0.9).pool(80e9, 16e9) - 57.6e9).abs() < 1.0);
    }
}
