//! [`StepCosts::build`]: every part's FLOPs and checkpoints, every collective of the step as a
//! [`Term`] on its strategy's network, the HBM traffic and the memory model.

use super::{parts, MemModel, Pass, StepCosts, Term, Window, INTERMEDIATES_PER_LAYER, LOGIT_BYTES};
use crate::collective::formulas::coefficients;
use crate::collective::{collective_time, CollectiveKind, CollectiveResult};
use crate::error::Error;
use crate::train::config::{Remat, Schedule, TrainConfig};
use crate::train::fabric::{place, AxisNet, MeshAxis};

/// Distinct collectives analysed so far (explaining): `(axis, kind, V)` → the analysis.
type Seen = Vec<(MeshAxis, CollectiveKind, f64, CollectiveResult)>;

/// One collective a part issues: its kind, the array it moves, its pass, when it may overlap
/// compute, its bytes per group and how many times it runs per step.
type Spec = (CollectiveKind, &'static str, Pass, Window, f64, f64);

/// The step's collectives as they are added, with the analyses seen so far when explaining.
struct Terms {
    list: Vec<Term>,
    seen: Seen,
    explain: bool,
}

impl Terms {
    /// Adds `part`'s collectives over `net`, in order (`scales`: their bytes grow with the
    /// batch); a collective that runs no times or moves nothing is left out.
    fn add(
        &mut self,
        net: &AxisNet,
        part: &'static str,
        scales: bool,
        specs: &[Spec],
    ) -> Result<(), Error> {
        for &spec in specs {
            self.one(net, part, scales, spec)?;
        }
        Ok(())
    }

    fn one(
        &mut self,
        net: &AxisNet,
        part: &'static str,
        scales: bool,
        spec: Spec,
    ) -> Result<(), Error> {
        let (kind, array, phase, window, group_bytes, count) = spec;
        if count <= 0.0 || group_bytes <= 0.0 {
            return Ok(());
        }
        let v = group_bytes * net.scale;
        let (kappa, latency, combine, result) = if self.explain {
            let known = self
                .seen
                .iter()
                .find(|x| x.0 == net.axis && x.1 == kind && x.2 == v)
                .map(|x| x.3.clone());
            let r = match known {
                Some(r) => r,
                None => {
                    let r = collective_time(kind, v, &net.network)?;
                    self.seen.push((net.axis, kind, v, r.clone()));
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
        self.list.push(Term {
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
}

impl StepCosts {
    /// Builds the step of a validated config; `explain` keeps each collective's analysis.
    pub fn build(cfg: &TrainConfig, explain: bool) -> Result<StepCosts, Error> {
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

        let mut terms = Terms {
            list: Vec::new(),
            seen: Vec::new(),
            explain,
        };
        let pl = &placement;
        for p in &parts {
            let c = p.layers / pp;
            let grp = p.dense / tp + p.experts / (tp * ep);
            let name = p.name;
            use CollectiveKind::*;
            use Pass::{Backward as Bwd, Forward as Fwd, Recompute};
            if let Some(net) = &pl.fsdp {
                let (w, g) = (sp * grp, sg * grp);
                terms.add(
                    net,
                    name,
                    false,
                    &[
                        (AllGather, "weights", Fwd, Window::Forward, w, c * m),
                        (AllGather, "weights", Bwd, Window::Backward, w, c * m),
                        (ReduceScatter, "gradients", Bwd, Window::Backward, g, c * m),
                    ],
                )?;
            }
            for net in [&pl.dp, &pl.dcn].into_iter().flatten() {
                let g = sg * grp / fsdp;
                terms.add(
                    net,
                    name,
                    false,
                    &[(AllReduce, "gradients", Bwd, Window::LastBackward, g, c)],
                )?;
            }
            if let Some(net) = &pl.ep {
                let g = sg * p.dense / tp / fsdp;
                terms.add(
                    net,
                    name,
                    false,
                    &[(
                        AllReduce,
                        "dense gradients",
                        Bwd,
                        Window::LastBackward,
                        g,
                        c,
                    )],
                )?;
                let v = ep * t_mb * k * d * sa / tp;
                let per = c * m * p.a2a;
                let re = c * m * p.a2a_recompute;
                let a2a = "tokens to experts";
                terms.add(
                    net,
                    name,
                    true,
                    &[
                        (AllToAll, a2a, Fwd, Window::Forward, v, per),
                        (AllToAll, a2a, Bwd, Window::Backward, v, per),
                        (AllToAll, a2a, Recompute, Window::Backward, v, re),
                    ],
                )?;
            }
            if let Some(net) = &pl.tp {
                let v = sa * t_mb * d;
                let half = c * m * p.tp_colls / 2.0;
                let re = c * m * p.tp_recompute / 2.0;
                let (act, grad) = ("activations", "activation gradients");
                terms.add(
                    net,
                    name,
                    true,
                    &[
                        (AllGather, act, Fwd, Window::Forward, v, half),
                        (ReduceScatter, act, Fwd, Window::Forward, v, half),
                        (AllGather, grad, Bwd, Window::Backward, v, half),
                        (ReduceScatter, grad, Bwd, Window::Backward, v, half),
                        (AllGather, act, Recompute, Window::Backward, v, re),
                        (ReduceScatter, act, Recompute, Window::Backward, v, re),
                    ],
                )?;
            }
        }
        let mut pp_send = None;
        if let Some(net) = &pl.pp {
            let v = sa * t_mb * d / tp;
            let before = terms.list.len();
            terms.add(
                net,
                "stage",
                true,
                &[
                    (
                        CollectiveKind::Send,
                        "activations",
                        Pass::Forward,
                        Window::Forward,
                        v,
                        m,
                    ),
                    (
                        CollectiveKind::Send,
                        "activation gradients",
                        Pass::Backward,
                        Window::Backward,
                        v,
                        m,
                    ),
                ],
            )?;
            if terms.list.len() > before {
                pp_send = Some(before);
            }
        }
        let terms = terms.list;

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
        Ok(StepCosts {
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
