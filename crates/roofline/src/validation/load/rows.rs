//! Over 600 lines on purpose: half of it is the mapping rule written out (below), kept beside
//! the code that applies it, one reason per row the rule leaves out.
//!
//! The serving-at-load set's rows: AIConfigurator's measured silicon sample, each run of
//! TensorRT-LLM, vLLM or SGLang at a stated concurrency, read into a [`Row`] with its scenario
//! link or the reason it stays unexpressed (issue 40).
//!
//! **The data.** `data/silicon_sample.csv`, converted by `data/convert.py` from
//! `aic-core/src/aiconfigurator_core/systems/silicon_sample.csv` of
//! [ai-dynamo/aiconfigurator](https://github.com/ai-dynamo/aiconfigurator) at commit
//! [`COMMIT`] (Apache-2.0; `data/NOTICE` and `data/LICENSE` beside it): all 5,221 rows in the
//! file's order, 3,619 aggregated and 1,602 disaggregated ([`Mode`]), every column as written
//! but `silicon_data_source`, of which the concurrency, the date, the `wip` flag and the
//! campaign are kept. TTFT and TPOT are the file's milliseconds, here in seconds. The file does
//! not say whether they are means or medians, nor whether a run's TTFT includes the first wave
//! of `c` requests sent at once; a row says neither.
//!
//! **The rows are native only.** The module exists with the core's `sources` feature (native
//! builds: tests, `./dev validate`, the build's static view), like the chip catalog's notes:
//! neither wasm (the page, the draw program) carries these 1.3 MB; the page gets the fitted
//! terms, and the rows travel with the lazily fetched validation data.
//!
//! # The mapping rule
//!
//! Each aggregated row becomes a v1 link
//! `?chip=C&op=llm:preset=P[,tp=t][,ep=a][,moe_ep=m][,link=nvlink][,w=..][,x=..],prompt=ISL,
//! output=OSL,load=concurrency,c=N,engine=E` unless one of these, checked in this order, leaves
//! it out ([`Reason`]):
//!
//! 1. **Disaggregated rows** (1,602) wait for issue 42's prefill/decode topologies; their
//!    prefill and decode columns are kept ([`Disagg`]).
//! 2. **Attention forms the architecture lacks.** Qwen3.5-397B-A17B (45 of 60 layers linear
//!    attention, Gated DeltaNet; 351 rows) and GLM-5 (DeepSeek Sparse Attention; 86 rows) are
//!    never read as full attention.
//! 3. **No concurrency** (12 rows of the gap-analysis campaigns): `silicon_concurrency=` is
//!    missing and `batch_size` there is the engine's batch cap (TTFTs of 17–54 s show queues),
//!    not the clients: the load is unknown.
//! 4. **GB200 rows with `tp_size` above 8** (55, all DeepSeek-R1 of the 2026-04-06 campaign,
//!    `tp` 12–72 with `ep` 1 at concurrencies to 8,192): 53 of them have a `tp_size` (12, 20, 24,
//!    28, 36, 40, 52, 72) that divides neither the 128 heads nor the 256 experts, so the column
//!    is not a tensor-parallel degree: they are read as the GPU totals of disaggregated
//!    deployments, whose split the row does not give; the two at 32 and 64 come from the same
//!    sweep and go by the same rule.
//! 5. **`batch_size × attention_dp ≠ c`** (30 rows): `batch_size` is per attention-DP rank, so
//!    the product must be the concurrency; where it is not (mostly `batch_size = c / tp` with
//!    no attention DP written), the row contradicts itself about its layout.
//! 6. **The parallel layout.** A row runs on `tp × attention_dp` GPUs (empty or 0 read as 1),
//!    tensor parallel within each of `attention_dp` groups; its routed experts split
//!    `moe_ep` ways and each tensor-split `moe_tp` ways, `moe_tp × moe_ep` = the GPUs.
//!    Campaign ids name the run's own `tpT_epE` (InferenceMAX's notation: `T` GPUs, experts
//!    over `E` of them); a db-dump row without one takes its twin's (below). Where the
//!    columns' GPUs equal `T` they are read as written. Otherwise the converter multiplied
//!    the columns by `E`: `(T·E, 1, T, E)` is read as `(T, 1, 1, E)` and `(1, T·E, T, E)` as
//!    `(1, T, 1, E)`: measurements appear in the file in both forms, the same TTFT and TPOT
//!    (`tests/it/load_rows.rs` counts them), and an 8-GPU HGX node cannot hold 16 or 64. Rows without such an id read their columns as written when they fit one
//!    NVLink domain (the chip's `node`: 8, or 72 on GB200), by the same two forms when they do
//!    not. Any other shape is left out (97 rows): the vLLM encoding `(T, E, 1, T·E)` of
//!    `tpT_epE` (MiniMax-M2.5 and Kimi-K2.5, where no twin shows the true split). Then
//!    `tp = tp`, `ep = attention_dp` (the `llm` op's `ep`: groups of `tp` chips, attention
//!    data-parallel over the groups, experts over all chips) and `moe_ep = moe_ep /
//!    attention_dp` (the experts split over `moe_ep` of each group's `tp` chips, each
//!    tensor-split over `tp / moe_ep`), which needs `moe_tp × moe_ep = tp × attention_dp` (19
//!    Qwen3-235B rows on one or two GPUs write more expert shards than GPUs: left out) and
//!    `attention_dp` dividing `moe_ep` into a divisor of `tp` (2 gpt-oss rows tensor-split the
//!    experts across attention-DP ranks, `(1, 4, 4, 1)`: left out). The file writes
//!    `moe_ep_size` above 1 on 773 aggregated rows (the issue counted 775); 478 expressed rows
//!    split the experts inside the attention group (`moe_ep` above 1 in the link), which the
//!    `ep` key alone cannot say, and 69 run attention data-parallel (`ep` above 1).
//! 7. **Precision** (`gemm_quant_mode` / `moe_quant_mode`): `fp8` and `fp8_block` (FP8 with
//!    128×128 block scales) are `w=fp8,x=fp8`; `nvfp4` is `w=fp4,x=fp4` (weights and
//!    activations in FP4 with 16-element block scales, the scales' 0.5 bit per element not
//!    counted); on Hopper, which has no FP4 tensor cores (the gpt-oss rows on H100 and H200),
//!    `w=fp4` with 16-bit activations: the MXFP4 weights are widened for the multiply;
//!    `int4_wo` is `w=int4` with 16-bit activations. The 366 rows with no precision at all
//!    (Llama-3.1-8B-Instruct on TensorRT-LLM, Qwen3-32B) name unquantised bf16 checkpoints
//!    (`torch_dtype` bfloat16, no `quantization_config`): bf16. The KV cache is bf16 on every
//!    row: the file does not record it, and each engine's default (`kv_cache_dtype` `auto`)
//!    keeps the model's 16-bit type; FP8 KV is taken nowhere because no row says its run used
//!    it. One `w` serves every weight: where a checkpoint quantises only its experts (gpt-oss's
//!    MXFP4, Kimi's int4, NVIDIA's NVFP4 DeepSeek and Kimi checkpoints, which keep attention in
//!    16 bits), the row's notes say the link reads the experts' type for all.
//!
//! **Models.** `deepseek-ai/DeepSeek-R1`, `deepseek-ai/DeepSeek-V3` (the db-dump's `dsr1_`
//! rows), `nvidia/DeepSeek-R1-NVFP4` and `nvidia/DeepSeek-V3.1-NVFP4` are the `deepseek-v3`
//! preset (their `config.json`s agree key for key); Llama-3.1-8B-Instruct and its FP8
//! checkpoint `llama3.1-8b`; `Qwen/Qwen3-235B-A22B-FP8` `qwen3-235b-a22b`; Qwen3-32B (and its
//! NVFP4 checkpoint), MiniMax-M2.5 and Kimi-K2.5 their own presets.
//!
//! **Engines.** `backend` is the `engine` key (`trtllm`, `vllm`, `sglang`); `backend_version`
//! is kept, and the 759 rows without one (Llama-3.1-70B, DeepSeek and gpt-oss rows of the
//! 2026-04-06 campaign and the db-dump) are read as their engine alone, version unknown.
//!
//! **GB200 and GB300.** `gb200` rows use the `gb200` chip preset (72 GPUs on one NVLink
//! switch); the file has no GB300 row.
//!
//! **Twins and groups.** The same measurement often appears twice or more (campaign exports
//! and the database dump overlap): [`Row::twin`] names the first row with the same TTFT and
//! TPOT to 12 significant digits (the exports differ from the 16th; twins agree on system,
//! engine, lengths, concurrency and precision too).
//! A fit counts a measurement once. [`Row::group`] is the (model, system) group a held-out
//! fit leaves out whole: the preset's id, so that R1 and V3 rows of one run share it.

#![cfg(feature = "sources")]

use crate::arch::arch_preset;
use crate::chip::preset as chip_preset;
use crate::chip::Chip;
use crate::dtype::DType;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The repository, file and commit the data was converted from.
pub const SOURCE: &str = "github.com/ai-dynamo/aiconfigurator, aic-core/src/aiconfigurator_core/systems/silicon_sample.csv";
/// The commit of [`SOURCE`].
pub const COMMIT: &str = "095f58a51c4ca8e61b66ec108d86f223f8d559ce";
/// The data's licence (the notice is `data/NOTICE`).
pub const LICENSE: &str = "Apache-2.0";

const DATA: &str = include_str!("data/silicon_sample.csv");
const HEADER: &str = "id,mode,backend,backend_version,model_path,system,precision,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,concurrency,measured,wip,campaign,silicon_ttft_ms,silicon_tpot_ms";

/// Aggregated (prefill and decode on the same GPUs) or disaggregated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `agg`: one engine serves prefill and decode.
    Aggregated,
    /// `disagg`: prefill and decode workers apart (issue 42).
    Disaggregated,
}

/// Parallel sizes as the file writes them (`None` where the column is empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Parallel {
    /// `tp_size`.
    pub tp: Option<u32>,
    /// `pp_size`.
    pub pp: Option<u32>,
    /// `attention_dp_size`.
    pub attention_dp: Option<u32>,
    /// `moe_tp_size`.
    pub moe_tp: Option<u32>,
    /// `moe_ep_size`.
    pub moe_ep: Option<u32>,
}

/// One stage of a disaggregated row, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stage {
    /// `*_batch_size`.
    pub batch_size: Option<u32>,
    /// `*_num_workers`.
    pub workers: Option<u32>,
    /// The stage's parallel sizes.
    pub parallel: Parallel,
}

/// A disaggregated row's prefill and decode stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disagg {
    /// The prefill workers.
    pub prefill: Stage,
    /// The decode workers.
    pub decode: Stage,
}

/// Why a row has no link (the mapping rule's steps, in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// A disaggregated run (issue 42).
    Disaggregated,
    /// Qwen3.5-397B-A17B: linear attention on 45 of 60 layers.
    LinearAttention,
    /// GLM-5: DeepSeek Sparse Attention.
    SparseAttention,
    /// No `silicon_concurrency`.
    NoConcurrency,
    /// GB200 rows whose `tp_size` (12–72) is a disaggregated deployment's GPU total.
    DisaggregatedTotals,
    /// `batch_size × attention_dp ≠ c`.
    BatchMismatch,
    /// Parallel columns no rule maps to the run's GPUs.
    LayoutUnrecoverable,
    /// `moe_tp × moe_ep ≠ tp × attention_dp`, or a split the model cannot take.
    ParallelismInconsistent,
    /// Experts tensor-split across attention-DP ranks.
    ExpertsAcrossRanks,
    /// Attention data parallelism on a dense model.
    DenseDataParallel,
    /// A quantisation mode the rule does not read.
    PrecisionUnknown,
    /// A model or system the rule does not name.
    Unknown,
}

impl Reason {
    /// Every reason, in the rule's order.
    pub const ALL: [Reason; 12] = [
        Reason::Disaggregated,
        Reason::LinearAttention,
        Reason::SparseAttention,
        Reason::NoConcurrency,
        Reason::DisaggregatedTotals,
        Reason::BatchMismatch,
        Reason::LayoutUnrecoverable,
        Reason::ParallelismInconsistent,
        Reason::ExpertsAcrossRanks,
        Reason::DenseDataParallel,
        Reason::PrecisionUnknown,
        Reason::Unknown,
    ];

    /// A short id (`linear-attention`).
    pub fn id(self) -> &'static str {
        match self {
            Reason::Disaggregated => "disaggregated",
            Reason::LinearAttention => "linear-attention",
            Reason::SparseAttention => "sparse-attention",
            Reason::NoConcurrency => "no-concurrency",
            Reason::DisaggregatedTotals => "disaggregated-totals",
            Reason::BatchMismatch => "batch-mismatch",
            Reason::LayoutUnrecoverable => "layout-unrecoverable",
            Reason::ParallelismInconsistent => "parallelism-inconsistent",
            Reason::ExpertsAcrossRanks => "experts-across-ranks",
            Reason::DenseDataParallel => "dense-data-parallel",
            Reason::PrecisionUnknown => "precision-unknown",
            Reason::Unknown => "unknown",
        }
    }

    /// The reason in words.
    pub fn text(self) -> &'static str {
        match self {
            Reason::Disaggregated => "a disaggregated run: prefill and decode workers apart wait for the serving topologies of issue 42",
            Reason::LinearAttention => "Qwen3.5-397B-A17B runs linear attention (Gated DeltaNet) on 45 of its 60 layers, a form the architecture lacks; never read as full attention",
            Reason::SparseAttention => "GLM-5 runs DeepSeek Sparse Attention, a form the architecture lacks; never read as full attention",
            Reason::NoConcurrency => "the row names no concurrency: its batch_size is the engine's cap, not the clients, so the load is unknown",
            Reason::DisaggregatedTotals => "a GB200 row whose tp_size (12 to 72, ep 1) is no tensor-parallel degree (most divide neither the 128 heads nor the 256 experts): a disaggregated deployment's GPU total, its split not in the row",
            Reason::BatchMismatch => "batch_size × attention_dp is not the concurrency: the row contradicts itself about its layout",
            Reason::LayoutUnrecoverable => "the parallel columns write more GPUs than the run's id names, in a form no rule maps back",
            Reason::ParallelismInconsistent => "moe_tp × moe_ep is not tp × attention_dp, or the split does not divide the model",
            Reason::ExpertsAcrossRanks => "experts tensor-split across attention-DP ranks: neither ep nor moe_ep expresses it",
            Reason::DenseDataParallel => "attention data parallelism on a dense model",
            Reason::PrecisionUnknown => "a quantisation mode the rule does not read",
            Reason::Unknown => "a model or system the rule does not name",
        }
    }
}

/// How a row's parallel layout was read (rule step 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutRead {
    /// The columns as written.
    AsWritten,
    /// The columns multiplied by `E` by the converter, read back with the row's own id
    /// `tpT_epE`.
    FromId,
    /// As [`LayoutRead::FromId`], with a twin's id (a db-dump row).
    FromTwin,
    /// A row without an id whose columns exceed one NVLink domain, read by the two forms the
    /// ids show.
    FromForm,
}

/// The layout a link expresses: `tp·ep` GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `tp`: tensor-parallel GPUs per group.
    pub tp: u32,
    /// `ep`: attention-DP groups (experts over all `tp·ep` GPUs).
    pub ep: u32,
    /// `moe_ep`: the experts split over this many of each group's `tp` GPUs.
    pub moe_ep: u32,
    /// How it was read.
    pub read: LayoutRead,
}

/// An expressed row: its link and what the rule assumed.
#[derive(Debug, Clone, PartialEq)]
pub struct Expressed {
    /// The scenario, a v1 link query.
    pub link: String,
    /// The zoo preset.
    pub preset: &'static str,
    /// The chip preset.
    pub chip: &'static str,
    /// The layout.
    pub layout: Layout,
    /// Weight, activation and KV-cache dtypes.
    pub w: DType,
    /// Activation dtype.
    pub x: DType,
    /// KV-cache dtype.
    pub kv: DType,
    /// Caveats of the reading, in words.
    pub notes: Vec<&'static str>,
}

/// A row left out, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unexpressed {
    /// The rule's step.
    pub reason: Reason,
}

/// One measured run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Position in the file (0-based, header excluded).
    pub index: usize,
    /// The file's id.
    pub id: &'static str,
    /// Aggregated or disaggregated.
    pub mode: Mode,
    /// The engine: `trtllm`, `vllm` or `sglang` (the `engine` key's values).
    pub engine: &'static str,
    /// `backend_version`; `None` for the 759 aggregated rows without one.
    pub version: Option<&'static str>,
    /// `model_path` as written.
    pub model: &'static str,
    /// `system` as written (`b200_sxm`, `gb200`).
    pub system: &'static str,
    /// `precision`, `gemm_quant_mode`, `moe_quant_mode` as written (empty where absent).
    pub precision: [&'static str; 3],
    /// Prompt tokens (ISL).
    pub isl: u32,
    /// Output tokens (OSL).
    pub osl: u32,
    /// Clients (`silicon_concurrency`); `None` for 12 aggregated rows.
    pub c: Option<u32>,
    /// `batch_size`: per attention-DP rank.
    pub batch_size: Option<u32>,
    /// The parallel columns as written.
    pub parallel: Parallel,
    /// A disaggregated row's stages.
    pub disagg: Option<Disagg>,
    /// The date measured (`YYYY-MM-DD`), where the file gives it.
    pub measured: Option<&'static str>,
    /// `wip=` of the source note: `Some(true)` for runs marked work in progress.
    pub wip: Option<bool>,
    /// The campaign (source file or database dump) the row came from.
    pub campaign: &'static str,
    /// Measured time to first token, seconds.
    pub ttft: f64,
    /// Measured time per output token, seconds.
    pub tpot: f64,
    /// The first earlier row of the same measurement (TTFT and TPOT to 12 significant digits).
    pub twin: Option<usize>,
    /// The (model, system) group: the preset id (or the model path where none) and the
    /// system, `deepseek-v3@b200_sxm`.
    pub group: String,
    /// The link, or why there is none.
    pub scenario: Result<Expressed, Unexpressed>,
}

/// Every row, in the file's order, parsed once.
pub fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| parse(DATA).unwrap_or_else(|e| panic!("silicon_sample.csv: {e}")))
}

/// The aggregated rows.
pub fn aggregated() -> impl Iterator<Item = &'static Row> {
    rows().iter().filter(|r| r.mode == Mode::Aggregated)
}

/// The rows with a link.
pub fn expressed() -> impl Iterator<Item = (&'static Row, &'static Expressed)> {
    rows()
        .iter()
        .filter_map(|r| r.scenario.as_ref().ok().map(|e| (r, e)))
}

fn field<'a>(f: &[&'a str], i: usize) -> &'a str {
    f.get(i).copied().unwrap_or("")
}

fn opt_u32(s: &str, col: &str) -> Result<Option<u32>, String> {
    if s.is_empty() {
        Ok(None)
    } else {
        s.parse().map(Some).map_err(|_| format!("{col}={s}"))
    }
}

fn parallel(f: &[&str], at: usize) -> Result<Parallel, String> {
    Ok(Parallel {
        tp: opt_u32(field(f, at), "tp")?,
        pp: opt_u32(field(f, at + 1), "pp")?,
        attention_dp: opt_u32(field(f, at + 2), "attention_dp")?,
        moe_tp: opt_u32(field(f, at + 3), "moe_tp")?,
        moe_ep: opt_u32(field(f, at + 4), "moe_ep")?,
    })
}

fn stage(f: &[&str], at: usize) -> Result<Stage, String> {
    Ok(Stage {
        batch_size: opt_u32(field(f, at), "batch_size")?,
        workers: opt_u32(field(f, at + 1), "num_workers")?,
        parallel: parallel(f, at + 2)?,
    })
}

/// A time in ms as written.
fn ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("time {s}")),
    }
}

/// A measurement's key: TTFT and TPOT in ms to 12 significant digits (the campaign exports
/// write the same run's times differently in the 16th or 17th digit).
fn measurement(ttft_ms: f64, tpot_ms: f64) -> (String, String) {
    (format!("{ttft_ms:.11e}"), format!("{tpot_ms:.11e}"))
}

fn nonempty(s: &'static str) -> Option<&'static str> {
    (!s.is_empty()).then_some(s)
}

/// Reads the data file (see the module docs).
fn parse(data: &'static str) -> Result<Vec<Row>, String> {
    let mut lines = data.lines();
    if lines.next() != Some(HEADER) {
        return Err("unexpected header".into());
    }
    let mut rows: Vec<Row> = Vec::new();
    // The rows of each measurement, in file order.
    let mut same: HashMap<(String, String), Vec<usize>> = HashMap::new();
    let mut keys = Vec::new();
    for (index, line) in lines.enumerate() {
        let f: Vec<&'static str> = line.split(',').collect();
        if f.len() != 37 {
            return Err(format!("line {}: {} fields", index + 2, f.len()));
        }
        let id = f[0];
        let err = |e: String| format!("{id}: {e}");
        let mode = match f[1] {
            "agg" => Mode::Aggregated,
            "disagg" => Mode::Disaggregated,
            m => return Err(err(format!("mode {m}"))),
        };
        let engine = match f[2] {
            "trtllm" => "trtllm",
            "vllm" => "vllm",
            "sglang" => "sglang",
            e => return Err(err(format!("backend {e}"))),
        };
        let (ttft_ms, tpot_ms) = (ms(f[35]).map_err(err)?, ms(f[36]).map_err(err)?);
        let key = measurement(ttft_ms, tpot_ms);
        let members = same.entry(key.clone()).or_default();
        let twin = members.first().copied();
        members.push(index);
        keys.push(key);
        let mut row = Row {
            index,
            id,
            mode,
            engine,
            version: nonempty(f[3]),
            model: f[4],
            system: f[5],
            precision: [f[6], f[9], f[10]],
            isl: f[7].parse().map_err(|_| err(format!("isl {}", f[7])))?,
            osl: f[8].parse().map_err(|_| err(format!("osl {}", f[8])))?,
            c: opt_u32(f[31], "concurrency").map_err(err)?,
            batch_size: opt_u32(f[11], "batch_size").map_err(err)?,
            parallel: parallel(&f, 12).map_err(err)?,
            disagg: match mode {
                Mode::Aggregated => None,
                Mode::Disaggregated => Some(Disagg {
                    prefill: stage(&f, 17).map_err(err)?,
                    decode: stage(&f, 24).map_err(err)?,
                }),
            },
            measured: nonempty(f[32]),
            wip: match f[33] {
                "True" => Some(true),
                "False" => Some(false),
                _ => None,
            },
            campaign: f[34],
            ttft: ttft_ms / 1e3,
            tpot: tpot_ms / 1e3,
            twin,
            group: String::new(),
            scenario: Err(Unexpressed {
                reason: Reason::Disaggregated,
            }),
        };
        row.group = format!(
            "{}@{}",
            model_of(row.model).map_or(row.model, |m| m.preset),
            row.system
        );
        rows.push(row);
    }
    for (i, key) in keys.iter().enumerate() {
        let run = run_id(&rows, i, same.get(key).map_or(&[][..], Vec::as_slice));
        rows[i].scenario = express(&rows[i], run);
    }
    Ok(rows)
}

/// A model of the set: its zoo preset, or the attention form it lacks.
pub(super) struct RowModel {
    pub(super) preset: &'static str,
    pub(super) lacks: Option<Reason>,
    /// Experts quantised apart from attention in its NVFP4 checkpoints.
    experts_only_fp4: bool,
}

pub(super) fn model_of(path: &str) -> Option<RowModel> {
    let (preset, lacks, experts_only_fp4) = match path {
        "meta-llama/Llama-3.1-70B" => ("llama3.1-70b", None, false),
        "meta-llama/Llama-3.1-8B-Instruct" | "nvidia/Llama-3.1-8B-Instruct-FP8" => {
            ("llama3.1-8b", None, false)
        }
        "Qwen/Qwen3-32B" | "nvidia/Qwen3-32B-NVFP4" => ("qwen3-32b", None, false),
        "Qwen/Qwen3-235B-A22B-FP8" => ("qwen3-235b-a22b", None, false),
        "openai/gpt-oss-120b" => ("gpt-oss-120b", None, false),
        "deepseek-ai/DeepSeek-R1"
        | "deepseek-ai/DeepSeek-V3"
        | "nvidia/DeepSeek-R1-NVFP4"
        | "nvidia/DeepSeek-V3.1-NVFP4" => ("deepseek-v3", None, true),
        "MiniMaxAI/MiniMax-M2.5" => ("minimax-m2.5", None, false),
        "moonshotai/Kimi-K2.5" => ("kimi-k2.5", None, true),
        "Qwen/Qwen3.5-397B-A17B" => ("", Some(Reason::LinearAttention), false),
        "zhipuai/GLM-5" => ("", Some(Reason::SparseAttention), false),
        _ => return None,
    };
    Some(RowModel {
        preset,
        lacks,
        experts_only_fp4,
    })
}

/// The chip preset of a system.
pub(super) fn chip_of(system: &str) -> Option<&'static str> {
    Some(match system {
        "h100_sxm" => "h100",
        "h200_sxm" => "h200",
        "b200_sxm" => "b200",
        "b300_sxm" => "b300",
        "gb200" => "gb200",
        "gb300" => "gb300",
        _ => return None,
    })
}

/// `(T, E)` of an id ending `_tpT[_k]_epE[_k]_n` (`E` 1 for `epnone`).
fn id_tp_ep(id: &str) -> Option<(u32, u32)> {
    let at = id.rfind("_tp")?;
    let mut parts = id[at + 3..].split('_');
    let t: u32 = parts.next()?.parse().ok()?;
    let mut next = parts.next()?;
    if next.chars().all(|c| c.is_ascii_digit()) {
        next = parts.next()?;
    }
    let e = next.strip_prefix("ep")?;
    let e = if e == "none" { 1 } else { e.parse().ok()? };
    // What remains is one or two counters.
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() || rest.len() > 2 || !rest.iter().all(|p| p.parse::<u32>().is_ok()) {
        return None;
    }
    Some((t, e))
}

/// The run's `(T, E)`: the row's id, or the first id among the rows of the same measurement
/// (`same`, the row itself among them).
fn run_id(rows: &[Row], i: usize, same: &[usize]) -> Option<(u32, u32, LayoutRead)> {
    if let Some((t, e)) = id_tp_ep(rows[i].id) {
        return Some((t, e, LayoutRead::FromId));
    }
    same.iter()
        .find_map(|&j| id_tp_ep(rows[j].id))
        .map(|(t, e)| (t, e, LayoutRead::FromTwin))
}

const NOTE_MIXED: &str = "the checkpoint quantises its routed experts and keeps attention (and the shared expert) in 16 bits; the link's one weight dtype is the experts'";
const NOTE_HOPPER_FP4: &str = "Hopper has no FP4 tensor cores: the FP4 weights are widened and multiplied in 16 bits (x=bf16)";
const NOTE_VERSION: &str = "engine version not recorded: read as the engine alone";
const NOTE_LAYOUT: &str =
    "the parallel columns were written multiplied by ep; read back from the run's tpT_epE";
const NOTE_WIP: &str = "measured as work in progress (wip=True)";
const NOTE_MODELOPT: &str = "an NVIDIA ModelOpt checkpoint, which may carry FP8 KV scales; the file does not say the run used them: KV read as bf16";

fn out(reason: Reason) -> Result<Expressed, Unexpressed> {
    Err(Unexpressed { reason })
}

/// Step 7 of the rule, precision: the weight and activation dtypes of a row of `model` on
/// `chip` and the notes the reading takes; `None` for a mode the rule does not read.
pub(super) fn dtypes(
    r: &Row,
    model: &RowModel,
    chip: &Chip,
) -> Option<(DType, DType, Vec<&'static str>)> {
    let mut notes = Vec::new();
    let fp4 = chip.fp4.is_some();
    let (w, x) = match (r.precision[1], r.precision[2]) {
        ("", "") => (DType::Bf16, DType::Bf16),
        ("fp8" | "fp8_block", "fp8" | "fp8_block") => (DType::Fp8E4m3, DType::Fp8E4m3),
        ("nvfp4", "nvfp4") if fp4 => (DType::Fp4, DType::Fp4),
        ("nvfp4", "nvfp4") => {
            notes.push(NOTE_HOPPER_FP4);
            (DType::Fp4, DType::Bf16)
        }
        ("int4_wo", "int4_wo") => (DType::Int4, DType::Bf16),
        _ => return None,
    };
    let experts_only = model.preset == "gpt-oss-120b"
        || w == DType::Int4
        || (w == DType::Fp4 && model.experts_only_fp4);
    if experts_only {
        notes.push(NOTE_MIXED);
    }
    if r.model.starts_with("nvidia/") {
        notes.push(NOTE_MODELOPT);
    }
    Some((w, x, notes))
}

/// The mapping rule (module docs), one row.
fn express(r: &Row, run: Option<(u32, u32, LayoutRead)>) -> Result<Expressed, Unexpressed> {
    if r.mode == Mode::Disaggregated {
        return out(Reason::Disaggregated);
    }
    let Some(model) = model_of(r.model) else {
        return out(Reason::Unknown);
    };
    if let Some(reason) = model.lacks {
        return out(reason);
    }
    let (Some(arch), Some(chip_id)) = (arch_preset(model.preset), chip_of(r.system)) else {
        return out(Reason::Unknown);
    };
    let Some(chip) = chip_preset(chip_id) else {
        return out(Reason::Unknown);
    };
    let Some(c) = r.c else {
        return out(Reason::NoConcurrency);
    };
    let one = |x: Option<u32>| x.filter(|&v| v > 0).unwrap_or(1);
    let p = r.parallel;
    let (mut t, mut a, mut mt, mut me) =
        (one(p.tp), one(p.attention_dp), one(p.moe_tp), one(p.moe_ep));
    if chip_id == "gb200" && t > 8 {
        return out(Reason::DisaggregatedTotals);
    }
    if r.batch_size.map(|b| b * a) != Some(c) {
        return out(Reason::BatchMismatch);
    }
    // Step 6: the layout.
    let node = chip.node.unwrap_or(1.0) as u32;
    let mut read = LayoutRead::AsWritten;
    match run {
        Some((tt, e, how)) => {
            if t * a != tt {
                if (t, a, mt, me) == (tt * e, 1, tt, e) {
                    (t, a, mt, me) = (tt, 1, 1, e);
                } else if (t, a, mt, me) == (1, tt * e, tt, e) {
                    (t, a, mt, me) = (1, tt, 1, e);
                } else {
                    return out(Reason::LayoutUnrecoverable);
                }
                read = how;
            }
        }
        None => {
            if r.engine == "vllm" && a > 1 {
                return out(Reason::LayoutUnrecoverable);
            }
            if t * a > node {
                if a == 1 && t == mt * me {
                    (t, mt) = (mt, 1);
                } else if t == 1 && a == mt * me {
                    (a, mt) = (mt, 1);
                } else {
                    return out(Reason::LayoutUnrecoverable);
                }
                read = LayoutRead::FromForm;
            }
        }
    }
    let moe_ep = match arch.arch.moe {
        Some(moe) => {
            if mt * me != t * a {
                return out(Reason::ParallelismInconsistent);
            }
            if me % a != 0 || t % (me / a) != 0 {
                return out(Reason::ExpertsAcrossRanks);
            }
            if moe.experts % f64::from(me) != 0.0 {
                return out(Reason::ParallelismInconsistent);
            }
            me / a
        }
        None if a != 1 => return out(Reason::DenseDataParallel),
        None => 1,
    };
    if arch.arch.heads % f64::from(t) != 0.0 {
        return out(Reason::ParallelismInconsistent);
    }
    // Step 7: precision.
    let Some((w, x, mut notes)) = dtypes(r, &model, &chip) else {
        return out(Reason::PrecisionUnknown);
    };
    if r.version.is_none() {
        notes.push(NOTE_VERSION);
    }
    if read != LayoutRead::AsWritten {
        notes.push(NOTE_LAYOUT);
    }
    if r.wip == Some(true) {
        notes.push(NOTE_WIP);
    }
    let mut keys = vec![format!("preset={}", model.preset)];
    if t > 1 {
        keys.push(format!("tp={t}"));
    }
    if a > 1 {
        keys.push(format!("ep={a}"));
    }
    if moe_ep > 1 {
        keys.push(format!("moe_ep={moe_ep}"));
    }
    if t * a > 1 {
        keys.push("link=nvlink".into());
    }
    if w != DType::Bf16 {
        keys.push(format!("w={}", w.as_str()));
    }
    if x != DType::Bf16 {
        keys.push(format!("x={}", x.as_str()));
    }
    keys.push(format!("prompt={}", r.isl));
    keys.push(format!("output={}", r.osl));
    keys.push("load=concurrency".into());
    keys.push(format!("c={c}"));
    keys.push(format!("engine={}", r.engine));
    Ok(Expressed {
        link: format!("?chip={chip_id}&op=llm:{}", keys.join(",")),
        preset: model.preset,
        chip: chip_id,
        layout: Layout {
            tp: t,
            ep: a,
            moe_ep,
            read,
        },
        w,
        x,
        kv: DType::Bf16,
        notes,
    })
}
