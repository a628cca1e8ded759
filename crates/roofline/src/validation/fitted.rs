//! Each expressed point's measured / predicted ratio, as `super::evaluated_ratios` gives
//! it: stored so the page fits expectations without analysing the set's scenarios on
//! load. Written by `./dev validate --write`; `tests/validation.rs` checks it equals a fresh
//! evaluation, bit for bit.

/// `(point id, measured / predicted)`.
pub(super) const RATIOS: &[(&str, f64)] = &[
    ("deepgemm-h800-m4096-n7168-k16384-fp8", 1.4572901325478644),
    ("deepgemm-h800-m4096-n4096-k7168-fp8", 1.517638036809816),
    ("deepgemm-h800-m128-n7168-k16384-fp8", 1.2865364073199725),
    ("deepgemm-h800-m64-n2112-k7168-fp8", 1.9859115537489163),
    (
        "deepgemm-h800-grouped-masked-4x256-n4096-k7168-fp8",
        1.6229799601230102,
    ),
    ("azure-cublaslt-h100-fp8-8192cube", 1.5339896132082784),
    (
        "azure-cublaslt-h100-fp8-802816x192x768-skinny",
        1.2917494533043978,
    ),
    ("azure-cublaslt-a100-fp16-8192cube", 1.2297989751675207),
    ("azure-hipblaslt-mi300x-fp8-8192cube", 2.138277864093548),
    ("azure-babelstream-h100-triad", 1.127946127946128),
    ("azure-babelstream-a100-triad", 1.1994117647058824),
    ("azure-babelstream-h200-triad", 1.1566265060240966),
    ("azure-babelstream-mi300x-triad", 1.292682926829268),
    ("azure-gb200-hbm-7.35TBs", 1.0884353741496597),
    ("fa3-h100-hd128-s16k-noncausal", 1.5262345679012346),
    ("fa3-h100-hd128-s16k-causal", 1.6054214933677857),
    ("fa3-h100-hd128-s2k-causal", 1.8973461142507608),
    ("fa3-h100-hd64-s4k-causal", 2.3541871520392386),
    ("fa3-h100-hd256-s16k-noncausal", 1.3082010582010581),
    ("deepseek-v3-h800-decode-ep144-node", 1.5162482658039846),
    (
        "trtllm061-h100-llama2-70b-tp4-b480-decode",
        4.899616040503677,
    ),
    (
        "trtllm061-h100-llama2-7b-tp1-b112-decode",
        1.3449896038934595,
    ),
    ("trtllm061-a100-llama2-7b-tp1-b60-decode", 1.254570005880875),
    (
        "trtllm061-a100-llama2-70b-tp4-b240-decode",
        2.8636433437381643,
    ),
    (
        "trtllm10-b200-llama3.3-70b-tp1-fp4-128-2048",
        2.5050028851135377,
    ),
    (
        "trtllm10-h200-llama3.3-70b-tp1-fp8-128-2048",
        1.9151808041540612,
    ),
    (
        "trtllm10-h100-llama3.1-8b-tp1-fp8-128-2048",
        1.4292753854125548,
    ),
    (
        "trtllm10-h100-llama3.1-405b-tp8-fp8-128-2048",
        3.198973850205108,
    ),
    (
        "trtllm10-b200-qwen3-235b-tp8-fp4-1000-1000",
        4.188880720879454,
    ),
    (
        "vllm-mi300x-llama3.1-70b-tp8-fp8-128-2048",
        1.2650074676935983,
    ),
    (
        "vllm-mi300x-llama3.1-405b-tp8-fp8-128-2048",
        1.5085421698512225,
    ),
    ("deepseek-v3-h800-prefill-ep32-node", 1.2371970602304363),
    (
        "trtllm05-a100-llama2-70b-tp4-b1-ttft-2048",
        1.6081537428005281,
    ),
    (
        "trtllm05-h100-llama2-70b-tp4-b1-ttft-2048",
        2.7635639957645264,
    ),
    (
        "trtllm05-a100-llama2-7b-tp1-b1-ttft-2048",
        1.4820197705654974,
    ),
    (
        "trtllm10-b200-llama3.3-70b-tp1-fp4-2048-128-prefillheavy",
        2.378002290102985,
    ),
    (
        "trtllm10-h100-llama3.1-8b-tp1-fp8-2048-128-prefillheavy",
        1.720196037270964,
    ),
    ("llama3-405b-h100-8k-gpus-training", 1.477428761459958),
    ("maxtext-v5p-32b-128chips-training", 1.4149699909777838),
    ("maxtext-v5e-16b-256chips-training", 1.274511857771451),
    ("maxtext-v5e-16b-32slices-training", 1.4161242864127233),
    ("maxtext-v5p-1160b-6144chips-training", 1.161464880149408),
    ("palm-540b-tpuv4-6144-training", 1.6347595889893185),
    ("flashattn-gpt3-2.7b-8xa100-training", 1.739763033568594),
    ("deepep-v1-h800-intranode-ep8-dispatch", 1.30718954248366),
    ("deepep-v1-h800-internode-ep32-dispatch", 0.8620689655172413),
    (
        "deepep-v1-h800-lowlatency-ep8-dispatch-128tok",
        2.3978097098214284,
    ),
    (
        "deepep-v1-h800-lowlatency-ep256-dispatch-128tok",
        1.3641498055875576,
    ),
    (
        "nccl-allreduce-h100pcie-2gpu-nvlink-1GiB",
        2.600261941552162,
    ),
    ("nccl-h100-8gpu-nvls-allreduce-peak", 1.6363636363636362),
    ("azure-nccl-allreduce-h100-8gpu-8G", 1.6444964186522437),
    ("azure-nccl-allreduce-a100-8gpu-8G", 1.295448657051559),
    ("azure-rccl-allreduce-mi300x-8gpu-8G", 1.4140521431727795),
];
