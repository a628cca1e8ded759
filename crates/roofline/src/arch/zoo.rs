//! The architecture zoo: published models, every number from the model's `config.json` on
//! the Hugging Face hub, with the publisher's parameter counts in the source note.
//! `tests/it/arch.rs` checks each against those counts.

use super::{Arch, Mla, Moe, SlidingWindow};
use serde::Serialize;

/// A published model's architecture, with the source of its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ArchPreset {
    /// The id (`deepseek-v3`): lowercase letters, digits, `-` and `.`.
    pub id: &'static str,
    /// Display name (`DeepSeek-V3`).
    pub name: &'static str,
    /// The architecture.
    pub arch: Arch,
    /// Where the numbers come from: the config, and the published parameter counts.
    pub source: &'static str,
}

/// The zoo, in order: the Llama family first (`llama3-8b`, the `llm` operation's default,
/// and `llama3-70b` keep their ids), then Mistral, Qwen, DeepSeek, gpt-oss, Gemma, then the
/// models of the serving-at-load set (issue 40: Qwen3-32B, MiniMax-M2.5, Kimi-K2.5), appended
/// so that no earlier id moves. DeepSeek-R1 has no entry of its own: its `config.json` is
/// DeepSeek-V3's, key for key (see `deepseek-v3`'s source).
pub fn arch_presets() -> &'static [ArchPreset] {
    &ZOO
}

/// The preset with this id.
pub fn arch_preset(id: &str) -> Option<&'static ArchPreset> {
    ZOO.iter().find(|p| p.id == id)
}

/// A dense, gated, untied GQA model with two RMSNorms per layer and no biases (Llama's
/// layout); the presets change what differs.
const fn dense(
    layers: f64,
    dmodel: f64,
    heads: f64,
    kv_heads: f64,
    head_dim: f64,
    ffn: f64,
    vocab: f64,
) -> Arch {
    Arch {
        layers,
        dmodel,
        heads,
        kv_heads,
        head_dim,
        ffn,
        gated: true,
        vocab,
        tied_embeddings: false,
        qkv_bias: false,
        o_bias: false,
        mlp_bias: false,
        attn_sinks: false,
        norms_per_layer: 2.0,
        qk_norm: false,
        moe: None,
        mla: None,
        window: None,
    }
}

/// Routed experts only: `experts`, `top_k`, width `expert_ffn`, every layer MoE.
const fn routed(experts: f64, top_k: f64, expert_ffn: f64) -> Moe {
    Moe {
        experts,
        top_k,
        expert_ffn,
        shared_experts: 0.0,
        shared_ffn: 0.0,
        dense_layers: 0.0,
        router_bias: false,
        shared_gate: false,
    }
}

const LLAMA3_8B: Arch = dense(32.0, 4096.0, 32.0, 8.0, 128.0, 14336.0, 128256.0);
const LLAMA3_70B: Arch = dense(80.0, 8192.0, 64.0, 8.0, 128.0, 28672.0, 128256.0);

/// Llama 4 Scout and Maverick share everything but the experts.
const fn llama4(experts: f64, dense_layers: f64) -> Arch {
    Arch {
        moe: Some(Moe {
            shared_experts: 1.0,
            shared_ffn: 8192.0,
            dense_layers,
            ..routed(experts, 1.0, 8192.0)
        }),
        // Chunked attention (chunks of 8192) on the 36 RoPE layers; every 4th layer (NoPE)
        // is global.
        window: Some(SlidingWindow {
            size: 8192.0,
            layers: 36.0,
        }),
        ..dense(48.0, 5120.0, 40.0, 8.0, 128.0, 16384.0, 202048.0)
    }
}

const fn qwen3_moe(layers: f64, dmodel: f64, heads: f64, ffn: f64, expert_ffn: f64) -> Arch {
    Arch {
        qk_norm: true,
        moe: Some(routed(128.0, 8.0, expert_ffn)),
        ..dense(layers, dmodel, heads, 4.0, 128.0, ffn, 151936.0)
    }
}

const fn gpt_oss(layers: f64, experts: f64) -> Arch {
    Arch {
        qkv_bias: true,
        o_bias: true,
        mlp_bias: true,
        attn_sinks: true,
        moe: Some(Moe {
            router_bias: true,
            ..routed(experts, 4.0, 2880.0)
        }),
        // Every other layer (the even ones) attends to a window of 128 positions.
        window: Some(SlidingWindow {
            size: 128.0,
            layers: layers / 2.0,
        }),
        ..dense(layers, 2880.0, 64.0, 8.0, 64.0, 2880.0, 201088.0)
    }
}

/// The DeepSeek-V3 architecture (61 layers of width 7168, MLA with query rank 1536 and KV
/// rank 512, experts of 2048 with one shared, 8 per token, the router's bias): DeepSeek-V3
/// itself and Kimi K2 differ in `heads`, routed `experts`, leading `dense_layers` and `vocab`.
const fn deepseek_v3(heads: f64, experts: f64, dense_layers: f64, vocab: f64) -> Arch {
    Arch {
        mla: Some(Mla {
            q_lora_rank: 1536.0,
            kv_lora_rank: 512.0,
            qk_nope_head_dim: 128.0,
            qk_rope_head_dim: 64.0,
            v_head_dim: 128.0,
        }),
        moe: Some(Moe {
            shared_experts: 1.0,
            shared_ffn: 2048.0,
            dense_layers,
            router_bias: true,
            ..routed(experts, 8.0, 2048.0)
        }),
        ..dense(61.0, 7168.0, heads, heads, 192.0, 18432.0, vocab)
    }
}

const fn qwen2(layers: f64, dmodel: f64, heads: f64, kv_heads: f64, ffn: f64) -> Arch {
    Arch {
        qkv_bias: true,
        ..dense(layers, dmodel, heads, kv_heads, 128.0, ffn, 152064.0)
    }
}

static ZOO: [ArchPreset; 21] = [
    ArchPreset {
        id: "llama3-8b",
        name: "Llama-3 8B",
        arch: LLAMA3_8B,
        source: concat!(
            "config.json of meta-llama/Meta-Llama-3-8B (Hugging Face hub): num_hidden_layers 32, hidden_size 4096, ",
            "intermediate_size 14336 (SwiGLU), num_attention_heads 32, num_key_value_heads 8, head_dim 4096/32 = 128, ",
            "vocab_size 128256, tie_word_embeddings false. Meta's Llama 3 model card: 8B (8.03e9 parameters)"
        ),
    },
    ArchPreset {
        id: "llama3-70b",
        name: "Llama-3 70B",
        arch: LLAMA3_70B,
        source: concat!(
            "config.json of meta-llama/Meta-Llama-3-70B: num_hidden_layers 80, hidden_size 8192, intermediate_size 28672, ",
            "num_attention_heads 64, num_key_value_heads 8, head_dim 128, vocab_size 128256, untied. ",
            "Meta's Llama 3 model card: 70B (70.6e9 parameters)"
        ),
    },
    ArchPreset {
        id: "llama3.1-8b",
        name: "Llama-3.1 8B",
        arch: LLAMA3_8B,
        source: concat!(
            "config.json of meta-llama/Llama-3.1-8B: the Llama-3 8B architecture (num_hidden_layers 32, hidden_size 4096, ",
            "intermediate_size 14336, 32 heads, 8 KV heads, vocab_size 128256, untied); only the RoPE scaling for 128K context ",
            "changed. Meta's Llama 3.1 model card: 8B (8.03e9 parameters)"
        ),
    },
    ArchPreset {
        id: "llama3.1-70b",
        name: "Llama-3.1 70B",
        arch: LLAMA3_70B,
        source: concat!(
            "config.json of meta-llama/Llama-3.1-70B: the Llama-3 70B architecture (80 layers, hidden_size 8192, ",
            "intermediate_size 28672, 64 heads, 8 KV heads, vocab_size 128256, untied). Meta's Llama 3.1 model card: 70B (70.6e9)"
        ),
    },
    ArchPreset {
        id: "llama3.1-405b",
        name: "Llama-3.1 405B",
        arch: dense(126.0, 16384.0, 128.0, 8.0, 128.0, 53248.0, 128256.0),
        source: concat!(
            "config.json of meta-llama/Llama-3.1-405B: num_hidden_layers 126, hidden_size 16384, intermediate_size 53248, ",
            "num_attention_heads 128, num_key_value_heads 8, head_dim 128, vocab_size 128256, untied. ",
            "Meta's Llama 3.1 model card: 405B (405.85e9 parameters)"
        ),
    },
    ArchPreset {
        id: "llama4-scout",
        name: "Llama 4 Scout 17B-16E",
        arch: llama4(16.0, 0.0),
        source: concat!(
            "text_config of meta-llama/Llama-4-Scout-17B-16E's config.json: num_hidden_layers 48, hidden_size 5120, ",
            "num_attention_heads 40, num_key_value_heads 8, head_dim 128, num_local_experts 16, num_experts_per_tok 1, ",
            "intermediate_size 8192 (each expert and the shared expert), intermediate_size_mlp 16384 (dense layers: none), ",
            "interleave_moe_layer_step 1, attention_chunk_size 8192 on the 36 RoPE layers (no_rope_layers), vocab_size 202048, ",
            "untied. Meta: 17B active, 109B total parameters (the total includes the 1.9B vision encoder; the language model is 107.8B)"
        ),
    },
    ArchPreset {
        id: "llama4-maverick",
        name: "Llama 4 Maverick 17B-128E",
        arch: llama4(128.0, 24.0),
        source: concat!(
            "text_config of meta-llama/Llama-4-Maverick-17B-128E's config.json: as Scout but num_local_experts 128 and ",
            "interleave_moe_layer_step 2 (24 MoE layers; the other 24 have a dense MLP of intermediate_size_mlp 16384). ",
            "Meta: 17B active, 400B total parameters"
        ),
    },
    ArchPreset {
        id: "mistral-7b",
        name: "Mistral 7B v0.1",
        arch: Arch {
            window: Some(SlidingWindow {
                size: 4096.0,
                layers: 32.0,
            }),
            ..dense(32.0, 4096.0, 32.0, 8.0, 128.0, 14336.0, 32000.0)
        },
        source: concat!(
            "config.json of mistralai/Mistral-7B-v0.1: num_hidden_layers 32, hidden_size 4096, intermediate_size 14336, ",
            "num_attention_heads 32, num_key_value_heads 8, head_dim 128, vocab_size 32000, untied, sliding_window 4096 ",
            "(every layer). Mistral AI (Mistral 7B announcement and paper, arXiv 2310.06825): 7.3B parameters; ",
            "the checkpoint holds 7.24e9"
        ),
    },
    ArchPreset {
        id: "mixtral-8x7b",
        name: "Mixtral 8x7B",
        arch: Arch {
            moe: Some(routed(8.0, 2.0, 14336.0)),
            ..dense(32.0, 4096.0, 32.0, 8.0, 128.0, 14336.0, 32000.0)
        },
        source: concat!(
            "config.json of mistralai/Mixtral-8x7B-v0.1: num_hidden_layers 32, hidden_size 4096, intermediate_size 14336 ",
            "(each expert), num_local_experts 8, num_experts_per_tok 2, num_attention_heads 32, num_key_value_heads 8, ",
            "vocab_size 32000, untied, sliding_window null. Mistral AI (Mixtral of experts): 46.7B total, 12.9B used per token"
        ),
    },
    ArchPreset {
        id: "mixtral-8x22b",
        name: "Mixtral 8x22B",
        arch: Arch {
            moe: Some(routed(8.0, 2.0, 16384.0)),
            ..dense(56.0, 6144.0, 48.0, 8.0, 128.0, 16384.0, 32000.0)
        },
        source: concat!(
            "config.json of mistralai/Mixtral-8x22B-v0.1: num_hidden_layers 56, hidden_size 6144, intermediate_size 16384 ",
            "(each expert), num_local_experts 8, num_experts_per_tok 2, num_attention_heads 48, num_key_value_heads 8, ",
            "vocab_size 32000, untied. Mistral AI (Cheaper, Better, Faster, Stronger): 141B total, 39B active"
        ),
    },
    ArchPreset {
        id: "qwen2.5-7b",
        name: "Qwen2.5 7B",
        arch: qwen2(28.0, 3584.0, 28.0, 4.0, 18944.0),
        source: concat!(
            "config.json of Qwen/Qwen2.5-7B: num_hidden_layers 28, hidden_size 3584, intermediate_size 18944, ",
            "num_attention_heads 28, num_key_value_heads 4, head_dim 128, vocab_size 152064, untied, q/k/v biases, ",
            "use_sliding_window false. Qwen2.5 model card: 7.61B parameters (6.53B non-embedding)"
        ),
    },
    ArchPreset {
        id: "qwen2.5-72b",
        name: "Qwen2.5 72B",
        arch: qwen2(80.0, 8192.0, 64.0, 8.0, 29568.0),
        source: concat!(
            "config.json of Qwen/Qwen2.5-72B: num_hidden_layers 80, hidden_size 8192, intermediate_size 29568, ",
            "num_attention_heads 64, num_key_value_heads 8, head_dim 128, vocab_size 152064, untied, q/k/v biases. ",
            "Qwen2.5 model card: 72.7B parameters (70.0B non-embedding)"
        ),
    },
    ArchPreset {
        id: "qwen3-30b-a3b",
        name: "Qwen3 30B-A3B",
        arch: qwen3_moe(48.0, 2048.0, 32.0, 6144.0, 768.0),
        source: concat!(
            "config.json of Qwen/Qwen3-30B-A3B: num_hidden_layers 48, hidden_size 2048, num_attention_heads 32, ",
            "num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768, ",
            "decoder_sparse_step 1, mlp_only_layers [], vocab_size 151936, untied, q/k norms. Qwen3 model card: ",
            "30.5B total, 3.3B activated (29.9B non-embedding)"
        ),
    },
    ArchPreset {
        id: "qwen3-235b-a22b",
        name: "Qwen3 235B-A22B",
        arch: qwen3_moe(94.0, 4096.0, 64.0, 12288.0, 1536.0),
        source: concat!(
            "config.json of Qwen/Qwen3-235B-A22B: num_hidden_layers 94, hidden_size 4096, num_attention_heads 64, ",
            "num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 1536, ",
            "vocab_size 151936, untied, q/k norms. Qwen3 model card: 235B total, 22B activated"
        ),
    },
    ArchPreset {
        id: "deepseek-v3",
        name: "DeepSeek-V3",
        arch: deepseek_v3(128.0, 256.0, 3.0, 129280.0),
        source: concat!(
            "config.json of deepseek-ai/DeepSeek-V3: num_hidden_layers 61, hidden_size 7168, num_attention_heads 128, ",
            "MLA q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; ",
            "n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1, moe_intermediate_size 2048, ",
            "first_k_dense_replace 3 (intermediate_size 18432), moe_layer_freq 1, topk_method noaux_tc, vocab_size 129280, ",
            "untied. DeepSeek-V3 technical report (arXiv 2412.19437): 671B total, 37B activated per token (the 14B ",
            "multi-token-prediction module of the 685B checkpoint not counted; DeepSeek's active count leaves out the ",
            "embedding table: 36.6B, 37.6B with it). DeepSeek-R1 and DeepSeek-V3.1 (deepseek-ai/DeepSeek-R1, ",
            "nvidia/DeepSeek-V3.1-NVFP4) have the same config.json in every key above: this entry stands for them ",
            "(copies in ai-dynamo/aiconfigurator, aic-core/src/aiconfigurator_core/model_configs/, commit 095f58a51)"
        ),
    },
    ArchPreset {
        id: "gpt-oss-20b",
        name: "gpt-oss-20b",
        arch: gpt_oss(24.0, 32.0),
        source: concat!(
            "config.json of openai/gpt-oss-20b: num_hidden_layers 24, hidden_size 2880, num_attention_heads 64, ",
            "num_key_value_heads 8, head_dim 64, num_local_experts 32, experts_per_token 4, intermediate_size 2880, ",
            "attention_bias true, sliding_window 128 on alternate layers (layer_types), vocab_size 201088, untied; ",
            "expert and router biases, attention sinks. OpenAI gpt-oss model card: 20.91B total, 3.61B active ",
            "(OpenAI's active count leaves out the embedding table)"
        ),
    },
    ArchPreset {
        id: "gpt-oss-120b",
        name: "gpt-oss-120b",
        arch: gpt_oss(36.0, 128.0),
        source: concat!(
            "config.json of openai/gpt-oss-120b: as gpt-oss-20b but num_hidden_layers 36 and num_local_experts 128. ",
            "OpenAI gpt-oss model card: 116.83B total, 5.13B active (the embedding table left out of active)"
        ),
    },
    ArchPreset {
        id: "gemma3-27b",
        name: "Gemma 3 27B",
        arch: Arch {
            tied_embeddings: true,
            norms_per_layer: 4.0,
            qk_norm: true,
            window: Some(SlidingWindow {
                size: 1024.0,
                layers: 52.0,
            }),
            ..dense(62.0, 5376.0, 32.0, 16.0, 128.0, 21504.0, 262208.0)
        },
        source: concat!(
            "text_config of google/gemma-3-27b-pt's config.json: num_hidden_layers 62, hidden_size 5376, ",
            "intermediate_size 21504, num_attention_heads 32, num_key_value_heads 16, head_dim 128 ",
            "(query_pre_attn_scalar 168 only scales scores), sliding_window 1024; vocab_size 262208, ",
            "sliding_window_pattern 6 (every 6th layer global: 10 of 62) and tied embeddings are Gemma3TextConfig's ",
            "defaults; 4 norms per layer and q/k norms. Google Gemma 3 report: 27B parameters (the language model; ",
            "the 0.4B SigLIP vision encoder aside)"
        ),
    },
    ArchPreset {
        id: "qwen3-32b",
        name: "Qwen3 32B",
        arch: Arch {
            qk_norm: true,
            ..dense(64.0, 5120.0, 64.0, 8.0, 128.0, 25600.0, 151936.0)
        },
        source: concat!(
            "config.json of Qwen/Qwen3-32B (Hugging Face hub; copy in ai-dynamo/aiconfigurator, ",
            "aic-core/src/aiconfigurator_core/model_configs/Qwen--Qwen3-32B_config.json, commit 095f58a51): ",
            "num_hidden_layers 64, hidden_size 5120, intermediate_size 25600, num_attention_heads 64, ",
            "num_key_value_heads 8, head_dim 128, vocab_size 151936, tie_word_embeddings false, attention_bias false, ",
            "use_sliding_window false, q/k norms (Qwen3). Qwen3-32B model card: 32.8B parameters, 31.2B non-embedding"
        ),
    },
    ArchPreset {
        id: "minimax-m2.5",
        name: "MiniMax-M2.5",
        arch: Arch {
            qk_norm: true,
            moe: Some(Moe {
                router_bias: true,
                ..routed(256.0, 8.0, 1536.0)
            }),
            ..dense(62.0, 3072.0, 48.0, 8.0, 128.0, 1536.0, 200064.0)
        },
        source: concat!(
            "config.json of MiniMaxAI/MiniMax-M2.5 (Hugging Face hub; copy in ai-dynamo/aiconfigurator, ",
            "aic-core/src/aiconfigurator_core/model_configs/MiniMaxAI--MiniMax-M2.5_config.json, commit 095f58a51): ",
            "model_type minimax_m2, num_hidden_layers 62, hidden_size 3072, num_attention_heads 48, ",
            "num_key_value_heads 8, head_dim 128 (full attention on every layer), num_local_experts 256, ",
            "num_experts_per_tok 8, intermediate_size 1536 (each expert; shared_intermediate_size 0: no shared expert), ",
            "use_routing_bias true, vocab_size 200064, tie_word_embeddings false; use_qk_norm with qk_norm_type ",
            "per_layer (one norm over all heads' queries and one over all keys: (H + K)·h = 7,168 weights a layer, ",
            "counted here as per-head norms, 2·h = 256: 0.4M of 229B); the 3 multi-token-prediction modules (use_mtp) ",
            "are not counted. MiniMax (MiniMax-M2 model card): 230B total parameters, 10B activated"
        ),
    },
    ArchPreset {
        id: "kimi-k2.5",
        name: "Kimi K2.5",
        arch: deepseek_v3(64.0, 384.0, 1.0, 163840.0),
        source: concat!(
            "text_config of moonshotai/Kimi-K2.5's config.json (Hugging Face hub; copy in ai-dynamo/aiconfigurator, ",
            "aic-core/src/aiconfigurator_core/model_configs/moonshotai--Kimi-K2.5_config.json, commit 095f58a51): ",
            "the DeepSeek-V3 architecture (model_type kimi_k2, DeepseekV3ForCausalLM) with num_hidden_layers 61, ",
            "hidden_size 7168, num_attention_heads 64, MLA q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, ",
            "qk_rope_head_dim 64, v_head_dim 128; n_routed_experts 384, num_experts_per_tok 8, n_shared_experts 1, ",
            "moe_intermediate_size 2048, first_k_dense_replace 1 (intermediate_size 18432), topk_method noaux_tc, ",
            "num_nextn_predict_layers 0, vocab_size 163840, untied. Moonshot (Kimi K2 and K2.5 model cards): 1T total, ",
            "32B activated (the language model; K2.5's 400M MoonViT vision encoder aside; the routed experts ship in ",
            "int4, the rest in bf16)"
        ),
    },
];
