//! Training a transformer on a mesh of chips, after parts 5 ("How to Parallelize a
//! Transformer for Training"), 6 ("Training LLaMA 3 on TPUs") and 12's training section
//! ("Rooflines for LLM Scaling on GPUs") of the JAX scaling book: how long a step takes on
//! `N` chips, which sharding keeps it compute-bound, how small the batch per chip can get
//! before communication binds, whether it fits in memory, and how many days a token budget
//! takes.
//!
//! * [`TrainConfig`]: the architecture ([`Arch`](crate::Arch), dense or mixture of experts),
//!   a global batch of `B` tokens per step in sequences of `T`, the [`Mesh`] (data
//!   parallelism, FSDP, tensor, pipeline with microbatches, expert parallelism), the torus
//!   axes each spans ([`AxisCounts`]: the book's `M_X`, `M_Y`), [`Precision`] (bf16 compute,
//!   fp32 master weights and optimizer states), the [`Optimizer`], the checkpointing policy
//!   ([`Remat`]), the pipeline [`Schedule`], a token budget, an assumed MFU and a price, and
//!   the chip as plain numbers ([`Hardware`]: peak, HBM capacity and bandwidth, and the
//!   [`Fabric`] its collectives run over). Its fields as text (forms, links) are the `train`
//!   operation's, declared once in `op/train.rs`.
//! * [`analyze_train`] → [`TrainAnalysis`]: FLOPs per token (`6·N` plus attention, plus
//!   recompute), every collective of the step per chip ([`TrainCollective`]: FSDP AllGathers
//!   of the weights forward and backward and ReduceScatters of the gradients, data-parallel
//!   AllReduces, tensor-parallel AllGathers and ReduceScatters of activations, pipeline
//!   sends, expert AllToAlls) with when each may overlap compute, each strategy's links
//!   ([`LinkTime`]), HBM traffic, the pipeline bubble, `t_lower`/`t_upper`, the bound, MFU,
//!   tokens/s, memory per chip ([`Memory`]) with the largest batch that fits, the critical
//!   batch per chip of each resource beside the book's closed forms ([`Critical`]), the best
//!   FSDP × TP split beside the book's `X_opt` ([`OptimalFsdp`]), the days and cost of the
//!   budget ([`Budget`]) and a derivation.
//! * [`plot`]: step time or MFU against the chip count or the batch per chip, one curve per
//!   strategy, with the crossovers and the out-of-memory region.
//!
//! # The model
//!
//! Per chip and per step, `b = B/N` tokens per chip. Compute `T_math = b·FLOPs per token/C`
//! (forward `2N`, backward `4N`, recompute by policy). Each collective's time comes from
//! [`collective_time`](crate::collective_time) over the strategy's network (see [`Fabric`]):
//!
//! | strategy | per layer | `V` | may overlap |
//! | --- | --- | --- | --- |
//! | FSDP | AllGather W forward and backward, ReduceScatter dW, per microbatch | `s·W/(tp·ep)` | its pass |
//! | data | AllReduce dW once per step | `s·W/(tp·ep·fsdp)` | the last microbatch's backward pass |
//! | tensor | AllGather + ReduceScatter of activations around attention and MLP, forward, backward, recompute | `s·b_mb·D` | its pass |
//! | expert | 2 AllToAlls of the routed tokens per MoE layer, forward and backward | `ep·b_mb·k·D·s/tp` | its pass |
//! | pipeline | a send of the microbatch's activations per stage, forward and backward | `s·b_mb·D/tp` | its pass; `2(p − 1)` on the bubble's critical path |
//!
//! Each strategy's links run in parallel with the others and with compute, pass by pass (the
//! book's per-layer `T = max(T_math, T_comms)`): the forward pass lasts as long as its
//! compute or the slowest link's forward traffic, the backward pass likewise with the
//! backward traffic, and the data-parallel gradient reductions must fit in the last
//! microbatch's backward pass (they wait for every microbatch's gradients). `t_lower =
//! max(forward + backward, T_HBM) + bubble`. This reproduces the book's rules: data
//! parallelism compares the backward pass's FLOPs with its AllReduces (`B/X > C/W`), FSDP and
//! tensor parallelism the forward pass's (`B/X > C/W`, `Y < F·W/C`; their backward traffic
//! is in the same or a smaller proportion). `t_upper` adds everything.
//!
//! Left out: activation HBM traffic (the book: "as long as we have a large enough single-chip
//! batch size, the transfer of data from HBM to MXU is already overlapped"), load imbalance
//! between experts or stages (the embedding and LM head are spread over stages), contention
//! between strategies sharing a GPU's egress, and context parallelism's attention traffic.

mod analysis;
mod config;
mod critical;
mod fabric;
mod mesh;
mod model;
pub mod plot;

pub use analysis::{
    analyze_train, Budget, Critical, FlopsPerToken, LinkTime, Memory, ModelMemory, OptimalFsdp,
    PartCost, TrainAnalysis, TrainBound, TrainCollective,
};
pub use config::{
    AxisCounts, Hardware, Mesh, Optimizer, Precision, Remat, Schedule, TrainConfig,
    MAX_MICROBATCHES, MAX_PRICE, MAX_SAVED, MAX_SEQ, MAX_TOKENS, MIN_MFU,
};
pub use critical::Regime;
pub use fabric::{split_axes, AxisNetworks, Fabric, MeshAxis, SwitchedFabric, TorusFabric};
pub use model::{Pass, Window, INTERMEDIATES_PER_LAYER, LOGIT_BYTES};
pub use plot::{train_plot, PlotAxis, PlotStrategy, TrainCurve, TrainPlot, TrainPoint};
