//! [`Model::build`]: every part's FLOPs and checkpoints, every collective of the step as a
//! [`Term`] on its strategy's network, the HBM traffic and the memory model.

use super::{parts, MemModel, Model, Phase, Term, Window, INTERMEDIATES_PER_LAYER, LOGIT_BYTES};
use crate::collective::formulas::coefficients;
use crate::collective::{collective_time, CollectiveKind, CollectiveResult};
use crate::error::Error;
use crate::train::config::{Remat, Schedule, TrainConfig};
use crate::train::fabric::{place, AxisNet, MeshAxis};

/// Distinct collectives analysed so far (explaining): `(axis, kind, V)` → the analysis.
type Seen = Vec<(MeshAxis, CollectiveKind, f64, CollectiveResult)>;

#[allow(clippy::too_many_arguments)]
fn add(
    terms: &mut Vec<Term>,
    seen: &mut Seen,
    net: &AxisNet,
    explain: bool,
    spec: (CollectiveKind, &'static str, &'static str, Phase, Window),
    group_bytes: f64,
    count: f64,
    scales: bool,
) -> Result<(), Error> {
    let (kind, part, array, phase, window) = spec;
    if count <= 0.0 || group_bytes <= 0.0 {
        return Ok(());
    }
    let v = group_bytes * net.scale;
    let (kappa, latency, combine, result) = if explain {
        let known = seen
            .iter()
            .find(|x| x.0 == net.axis && x.1 == kind && x.2 == v)
            .map(|x| x.3.clone());
        let r = match known {
            Some(r) => r,
            None => {
                let r = collective_time(kind, v, &net.network)?;
                seen.push((net.axis, kind, v, r.clone()));
                r
            }
        };
        (r.seconds_per_byte, r.t_latency, r.combine, Some(r))
    } else {
        crate::collective::check(
            "bytes",
            v,
            0.0,
            crate::collective::MAX_BYTES,
            false,
            "a size in bytes",
        )?;
        let c = coefficients(kind, &net.network.topology, false);
        (c.kappa, c.hops * net.network.latency, c.combine, None)
    };
    terms.push(Term {
        axis: net.axis,
        kind,
        part,
        array,
        phase,
        window,
        count,
        bytes: v,
        array_bytes: match &net.network.topology {
            crate::collective::Topology::Cluster { inner, .. } => v / inner,
            _ => v,
        },
        scales,
        kappa,
        latency,
        combine,
        critical_path: matches!(net.axis, MeshAxis::Tp | MeshAxis::Ep | MeshAxis::Pp),
        result,
    });
    Ok(())
}

impl Model {
    /// Builds the step of a validated config; `explain` keeps each collective's analysis.
    pub fn build(cfg: &TrainConfig, explain: bool) -> Result<Model, Error> {
        let mesh = &cfg.mesh;
        let a = &cfg.arch;
        let placement = place(mesh, &cfg.axes, &cfg.hw.fabric, explain)?;
        let parts = parts(a, cfg.seq, cfg.causal, cfg.remat, cfg.mlp_only);
        let n = mesh.chips();
        let b0 = cfg.batch / n;
        let (tp, pp, ep, fsdp, m) = (mesh.tp, mesh.pp, mesh.ep, mesh.fsdp, mesh.microbatches);
        let pr = &cfg.precision;
        let (sp, sa, sg) = (pr.param.bytes(), pr.compute.bytes(), pr.grad.bytes());
        let sm = pr.master.map_or(0.0, |d| d.bytes());
        let so = pr.optimizer.bytes();
        let states = cfg.optimizer.states();
        // Tokens of one microbatch on one data shard.
        let t_mb = cfg.batch / (mesh.data() * m);
        let d = a.dmodel;
        let k = a.moe.map_or(1.0, |x| x.top_k);

        let fwd: f64 = parts.iter().map(|p| p.layers * p.fwd).sum();
        let recompute: f64 = parts.iter().map(|p| p.layers * p.recompute).sum();

        let mut terms = Vec::new();
        let mut seen: Seen = Vec::new();
        let pl = &placement;
        for p in &parts {
            let c = p.layers / pp;
            let grp = p.dense / tp + p.experts / (tp * ep);
            let name = p.name;
            if let Some(net) = &pl.fsdp {
                use CollectiveKind::*;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (AllGather, name, "weights", Phase::Forward, Window::Forward),
                    sp * grp,
                    c * m,
                    false,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "weights",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    sp * grp,
                    c * m,
                    false,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "gradients",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    sg * grp,
                    c * m,
                    false,
                )?;
            }
            for net in [&pl.dp, &pl.dcn].into_iter().flatten() {
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllReduce,
                        name,
                        "gradients",
                        Phase::Backward,
                        Window::LastBackward,
                    ),
                    sg * grp / fsdp,
                    c,
                    false,
                )?;
            }
            if let Some(net) = &pl.ep {
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllReduce,
                        name,
                        "dense gradients",
                        Phase::Backward,
                        Window::LastBackward,
                    ),
                    sg * p.dense / tp / fsdp,
                    c,
                    false,
                )?;
                let v = ep * t_mb * k * d * sa / tp;
                let per = c * m * p.a2a;
                let re = c * m * p.a2a_recompute;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllToAll,
                        name,
                        "tokens to experts",
                        Phase::Forward,
                        Window::Forward,
                    ),
                    v,
                    per,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllToAll,
                        name,
                        "tokens to experts",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    v,
                    per,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        CollectiveKind::AllToAll,
                        name,
                        "tokens to experts",
                        Phase::Recompute,
                        Window::Backward,
                    ),
                    v,
                    re,
                    true,
                )?;
            }
            if let Some(net) = &pl.tp {
                use CollectiveKind::*;
                let v = sa * t_mb * d;
                let half = c * m * p.tp_colls / 2.0;
                let re = c * m * p.tp_recompute / 2.0;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "activations",
                        Phase::Forward,
                        Window::Forward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "activations",
                        Phase::Forward,
                        Window::Forward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "activation gradients",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "activation gradients",
                        Phase::Backward,
                        Window::Backward,
                    ),
                    v,
                    half,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        AllGather,
                        name,
                        "activations",
                        Phase::Recompute,
                        Window::Backward,
                    ),
                    v,
                    re,
                    true,
                )?;
                add(
                    &mut terms,
                    &mut seen,
                    net,
                    explain,
                    (
                        ReduceScatter,
                        name,
                        "activations",
                        Phase::Recompute,
                        Window::Backward,
                    ),
                    v,
                    re,
                    true,
                )?;
            }
        }
        let mut pp_send = None;
        if let Some(net) = &pl.pp {
            let v = sa * t_mb * d / tp;
            pp_send = Some(terms.len());
            add(
                &mut terms,
                &mut seen,
                net,
                explain,
                (
                    CollectiveKind::Send,
                    "stage",
                    "activations",
                    Phase::Forward,
                    Window::Forward,
                ),
                v,
                m,
                true,
            )?;
            add(
                &mut terms,
                &mut seen,
                net,
                explain,
                (
                    CollectiveKind::Send,
                    "stage",
                    "activation gradients",
                    Phase::Backward,
                    Window::Backward,
                ),
                v,
                m,
                true,
            )?;
            if terms.len() == pp_send.unwrap_or(0) {
                pp_send = None;
            }
        }

        // HBM traffic and memory.
        let mut hbm = 0.0;
        let mut p_local = 0.0;
        let mut act = 0.0;
        let mut max_layer = 0.0f64;
        for p in &parts {
            let c = p.layers / pp;
            let comp = p.dense / tp + p.experts / (tp * ep);
            let reads = sp * (2.0 + p.reread) + sg * if m > 1.0 { 2.0 } else { 1.0 };
            hbm += c * m * comp * reads;
            p_local += c * comp / fsdp;
            act += c * p.saved;
            // FSDP gathers a layer at a time, the embedding and the LM head one matrix each.
            let unit = p.gather_unit.map_or(comp, |u| u / tp);
            max_layer = max_layer.max(unit);
        }
        let z1 = if cfg.zero1 { mesh.dp } else { 1.0 };
        let p_upd = p_local / z1;
        hbm += p_upd * (sg + 2.0 * sp + 2.0 * sm + 2.0 * states * so);
        let inflight = if pp > 1.0 {
            match cfg.schedule {
                Schedule::Gpipe => m,
                _ => m.min(pp),
            }
        } else {
            1.0
        };
        let tok_chip = t_mb / tp;
        let mem = MemModel {
            params: sp * p_local,
            grads: sg * p_local,
            master: sm * p_local / z1,
            optimizer: states * so * p_local / z1,
            fsdp_buffers: if fsdp > 1.0 {
                2.0 * sp * max_layer
            } else {
                0.0
            },
            activations: sa * act * tok_chip * inflight,
            working: if cfg.remat == Remat::None {
                0.0
            } else {
                sa * INTERMEDIATES_PER_LAYER * d * tok_chip
            },
            logits: LOGIT_BYTES * t_mb * a.vocab / tp,
        };
        Ok(Model {
            b0,
            chips: n,
            peak: cfg.hw.peak,
            hbm_bw: cfg.hw.hbm_bw,
            m,
            pp,
            schedule: cfg.schedule,
            fwd,
            bwd: 2.0 * fwd,
            recompute,
            parts,
            terms,
            pp_send,
            hbm_bytes: hbm,
            mem,
            placement,
        })
    }
}
