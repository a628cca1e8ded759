//! Over 600 lines: where each strategy's collectives run on TPU tori, GPU nodes and clusters is
//! one mapping, written out per fabric with its passages; a split by fabric is a follow-up.
//!
//! The network a training mesh runs over, and where each parallelism strategy's collectives
//! go: a TPU torus with its data-center network ([`TorusFabric`]), switched GPU nodes under
//! leaf and spine switches ([`SwitchedFabric`]), or one explicit [`Network`] per strategy
//! ([`AxisNetworks`]).
//!
//! # Placement
//!
//! **Torus** (TPU). The ICI domain is at most one pod (`pod` chips). `tp`, `ep`, `pp` and
//! `fsdp` live inside it (their product may not exceed a pod); `dp` fills the rest of the pod
//! and crosses the data-center network beyond it (`dp = dp_ici × dp_dcn`, `dp_ici` the largest
//! divisor of `dp` that fits): a hierarchical AllReduce, over the ICI torus and then over the
//! DCN, each chip egressing `dcn` bytes/s (training.md, "Scaling Across Pods"). Each strategy
//! spans `M` hardware axes (the book's `M_X`, `M_Y`): by default tensor and expert
//! parallelism one each, a pipeline one, and the data strategies (FSDP and in-pod data
//! parallelism) the rest, at least one; [`AxisCounts`](super::AxisCounts) overrides them.
//! A strategy's degree is split into `M` whole factors as equal as possible (2048 over 2 axes
//! is 64x32), each axis wrapping by the chip's rule; its collectives run over that torus, so
//! `M` wrapped axes give the book's `V/(W_ici·M)`. Strategies on different axes use different
//! links and overlap (training.md: "we assume that we can fully overlap comms on the X and Y
//! axis with each other"). A pipeline's send crosses one link.
//!
//! **Switched** (GPU). Strategies nest from the innermost: `tp`, `ep`, `pp`, `fsdp`, `dp`
//! (Megatron's order, with the data axes outermost as in gpus.md's examples). A strategy whose
//! group, times the strategies inside it, fits in one node runs over the node (NVLink egress);
//! otherwise over the fat tree of nodes, leaves and spines with the inner strategies as the
//! cluster's inner axis: each level's bandwidth multiplied by `max(Y, S)/S` (gpus.md,
//! "Reductions when array is sharded over a separate axis": "8-way pipelining ... from
//! 400GB/s to 8 * 400GB/s = 3200GB/s"). A pipeline's send goes over NVLink within a node,
//! else at the GPU's NIC.

use super::config::{AxisCounts, Mesh};
use crate::collective::formulas::coefficients;
use crate::collective::{
    check, network_preset, CollectiveKind, Level, Network, Topology, WrapRule, MAX_CHIPS,
    MAX_LATENCY, MAX_RATE,
};
use crate::error::Error;
use crate::units::{format_exact, format_quantity, Unit};
use serde::{Deserialize, Serialize};

id_enum! {
    /// A mesh axis whose links carry a strategy's collectives (ids `dp`, `fsdp`, `tp`, `pp`,
    /// `ep`, `dcn`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum MeshAxis {
        /// Data parallelism (inside the ICI domain on a torus).
        Dp = "dp",
        /// FSDP.
        Fsdp = "fsdp",
        /// Tensor parallelism.
        Tp = "tp",
        /// Pipeline parallelism.
        Pp = "pp",
        /// Expert parallelism.
        Ep = "ep",
        /// Data parallelism across pods, over the data-center network (torus fabrics).
        Dcn = "dcn",
    }
}

impl MeshAxis {
    /// The strategy's name: `data parallelism`, `FSDP`, ...
    pub fn name(self) -> &'static str {
        match self {
            MeshAxis::Dp => "data parallelism",
            MeshAxis::Fsdp => "FSDP",
            MeshAxis::Tp => "tensor parallelism",
            MeshAxis::Pp => "pipeline",
            MeshAxis::Ep => "expert parallelism",
            MeshAxis::Dcn => "data parallelism over DCN",
        }
    }
}

/// A TPU-style torus of ICI links, pods joined by a data-center network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TorusFabric {
    /// Where the numbers come from (a chip preset id, or `custom`).
    pub name: String,
    /// ICI bandwidth of one link in one direction (`W_ici = 2·link`), bytes/s.
    pub link: f64,
    /// Torus dimensions (2 or 3): the axes a strategy may span by default.
    pub dims: f64,
    /// Which axes wrap around.
    pub wrap: WrapRule,
    /// Chips in the largest ICI domain (a pod: 8960 on TPU v5p).
    pub pod: f64,
    /// Latency per ICI hop, seconds.
    pub latency: f64,
    /// DCN egress per chip, bytes/s, if known.
    pub dcn: Option<f64>,
    /// Latency per DCN step, seconds.
    pub dcn_latency: f64,
}

/// Switched GPU nodes in a fat tree (the book's DGX SuperPod).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwitchedFabric {
    /// Where the numbers come from (a chip preset id, or `custom`).
    pub name: String,
    /// GPUs per node (the NVLink domain).
    pub node: f64,
    /// GPU egress into the NVLink switches per direction, bytes/s.
    pub egress: f64,
    /// Scale-out NIC bandwidth per GPU per direction, bytes/s, if known.
    pub nic: Option<f64>,
    /// Nodes per leaf (a scalable unit), if known.
    pub leaf: Option<f64>,
    /// Latency per NVLink step, seconds.
    pub latency: f64,
    /// Latency per scale-out step, seconds.
    pub net_latency: f64,
    /// In-network reductions (SHARP).
    pub sharp: bool,
}

/// One network per strategy, given explicitly. A strategy with degree `d > 1` needs one,
/// spanning `d` chips (a cluster: `d × inner`, its `inner` being the strategies inside it);
/// the pipeline's is the hop between adjacent stages (its farthest chip).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AxisNetworks {
    /// Data parallelism's network.
    pub dp: Option<Network>,
    /// FSDP's network.
    pub fsdp: Option<Network>,
    /// Tensor parallelism's network.
    pub tp: Option<Network>,
    /// The hop between pipeline stages.
    pub pp: Option<Network>,
    /// Expert parallelism's network.
    pub ep: Option<Network>,
}

/// The network the mesh runs over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fabric", rename_all = "lowercase")]
pub enum Fabric {
    /// A TPU torus.
    Torus(TorusFabric),
    /// Switched GPU nodes.
    Switched(SwitchedFabric),
    /// One network per strategy.
    Explicit(AxisNetworks),
}

/// A strategy's network, placed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AxisNet {
    pub axis: MeshAxis,
    pub network: Network,
    /// The collective's `V` is the strategy group's array times this (a cluster's inner
    /// axis; the DCN's `1/dp_ici`).
    pub scale: f64,
    /// Hardware torus axes spanned (`M`), 0 off a torus.
    pub m: f64,
    /// Where it runs, in words.
    pub note: String,
}

impl AxisNet {
    /// The large-`n` bandwidth of an AllGather of the group's array (`V/t`, no latency): the
    /// book's `W_ici·M` on a torus (each axis that wraps, or has 2 chips, `2·W_link`; a longer
    /// line `W_link`), `W_GPU egress` in a node, the slowest level's bandwidth in a cluster.
    pub fn ag_bandwidth_approx(&self) -> f64 {
        let per_axis = |size: f64, wrap: bool, w: f64| {
            if size <= 1.0 {
                0.0
            } else if wrap || size == 2.0 {
                2.0 * w
            } else {
                w
            }
        };
        let w = match &self.network.topology {
            Topology::Torus { axes, link, links } => axes
                .iter()
                .map(|a| per_axis(a.size, a.wrap, link * links))
                .sum(),
            Topology::Ring { n, link, links } => per_axis(*n, true, link * links),
            Topology::Line { n, link, links } => per_axis(*n, false, link * links),
            t => 1.0 / coefficients(CollectiveKind::AllGather, t, false).kappa_approx,
        };
        w / self.scale
    }
}

/// The networks of every strategy with a degree above 1.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Placement {
    pub dp: Option<AxisNet>,
    pub dcn: Option<AxisNet>,
    pub fsdp: Option<AxisNet>,
    pub tp: Option<AxisNet>,
    pub pp: Option<AxisNet>,
    pub ep: Option<AxisNet>,
    /// Data parallelism inside the ICI domain (torus), `dp` elsewhere.
    pub dp_ici: f64,
}

impl Placement {
    /// Every placed axis.
    pub fn all(&self) -> impl Iterator<Item = &AxisNet> {
        [
            &self.dp, &self.dcn, &self.fsdp, &self.tp, &self.pp, &self.ep,
        ]
        .into_iter()
        .flatten()
    }
}

fn fr(x: f64) -> String {
    format_quantity(x, Unit::ByteRate)
}

fn missing(what: &str, field: &str, name: &str) -> Error {
    Error::MissingResource {
        what: what.into(),
        field: field.into(),
        chip: name.into(),
    }
}

impl Fabric {
    /// The fabric of a chip preset's network ([`network_preset`]): a torus for TPUs (pod
    /// chips the product of the pod shape), switched nodes for GPUs (and the full mesh of an
    /// AMD platform). Errors for an unknown id or a chip without a scale-up network.
    ///
    /// ```
    /// use roofline::train::Fabric;
    /// let Fabric::Torus(t) = Fabric::preset("tpu-v5p").unwrap() else { panic!() };
    /// assert_eq!((t.link, t.dims, t.pod, t.dcn), (9e10, 3.0, 8960.0, Some(6.25e9)));
    /// let Fabric::Switched(g) = Fabric::preset("h100").unwrap() else { panic!() };
    /// assert_eq!((g.node, g.egress, g.nic, g.leaf), (8.0, 4.5e11, Some(5e10), Some(32.0)));
    /// assert!(Fabric::preset("l4").is_err());
    /// ```
    pub fn preset(id: &str) -> Result<Fabric, Error> {
        use crate::collective::network_presets::Fabric as F;
        let p = network_preset(id).ok_or_else(|| Error::InvalidField {
            field: "net".into(),
            value: crate::error::clip_text(id, 40),
            reason: "not a chip with a network preset".into(),
        })?;
        match p.fabric {
            F::Torus => Ok(Fabric::Torus(TorusFabric {
                name: p.id.into(),
                link: p
                    .ici_link
                    .value
                    .ok_or_else(|| missing("ICI bandwidth", "ici", p.id))?,
                dims: p.torus_dims.value.unwrap_or(p.pod.0.len() as f64).max(1.0),
                wrap: p.wrap.0,
                pod: p.pod.0.iter().product::<f64>().max(1.0),
                latency: p.hop_latency.value.unwrap_or(0.0),
                dcn: p.dcn.value,
                dcn_latency: p.net_latency.value.unwrap_or(0.0),
            })),
            F::Switch | F::Mesh => Ok(Fabric::Switched(SwitchedFabric {
                name: p.id.into(),
                node: p
                    .node_size
                    .value
                    .ok_or_else(|| missing("node size", "node", p.id))?,
                egress: p
                    .nvlink_egress
                    .value
                    .ok_or_else(|| missing("NVLink egress", "ici", p.id))?,
                nic: p.nic.value,
                leaf: p.leaf_nodes.value,
                latency: p.hop_latency.value.unwrap_or(0.0),
                net_latency: p.net_latency.value.unwrap_or(0.0),
                sharp: false,
            })),
            F::None => Err(missing("scale-up network", "ici", p.id)),
        }
    }

    /// A fabric with no network: every degree must be 1.
    pub fn unknown() -> Fabric {
        Fabric::Explicit(AxisNetworks::default())
    }

    /// The preset id or `custom` (explicit networks: `explicit`).
    pub fn name(&self) -> &str {
        match self {
            Fabric::Torus(t) => &t.name,
            Fabric::Switched(s) => &s.name,
            Fabric::Explicit(_) => "explicit",
        }
    }

    /// Checks every number: bandwidths from 1 to 1e30 bytes/s, latencies from 0 to 1000 s,
    /// `dims` whole from 1 to 16, `pod` and `node` whole chip counts, `leaf` whole; explicit
    /// networks by [`Network::validate`].
    pub fn validate(&self) -> Result<(), Error> {
        let lat = |f: &str, x: f64| check(f, x, 0.0, MAX_LATENCY, false, "a latency in seconds");
        let bw = |f: &str, x: f64| check(f, x, 1.0, MAX_RATE, false, "a bandwidth in bytes/s");
        match self {
            Fabric::Torus(t) => {
                bw("ici", t.link)?;
                check(
                    "dims",
                    t.dims,
                    1.0,
                    16.0,
                    true,
                    "a whole number of torus axes",
                )?;
                check(
                    "pod",
                    t.pod,
                    1.0,
                    MAX_CHIPS,
                    true,
                    "a whole number of chips",
                )?;
                lat("latency", t.latency)?;
                if let Some(d) = t.dcn {
                    bw("dcn", d)?;
                }
                lat("dcn_latency", t.dcn_latency)?;
            }
            Fabric::Switched(s) => {
                check(
                    "node",
                    s.node,
                    1.0,
                    MAX_CHIPS,
                    true,
                    "a whole number of GPUs",
                )?;
                bw("egress", s.egress)?;
                if let Some(n) = s.nic {
                    bw("nic", n)?;
                }
                if let Some(l) = s.leaf {
                    check("leaf", l, 1.0, MAX_CHIPS, true, "a whole number of nodes")?;
                }
                lat("latency", s.latency)?;
                lat("net_latency", s.net_latency)?;
            }
            Fabric::Explicit(a) => {
                for n in [&a.dp, &a.fsdp, &a.tp, &a.pp, &a.ep].into_iter().flatten() {
                    n.validate()?;
                }
            }
        }
        Ok(())
    }
}

/// Prime factors of a whole `n ≥ 1` (at most 1e9: trial division to 31,623).
fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// `n` split into `m` whole factors as equal as possible (largest primes first onto the
/// smallest factor), largest first: 8960 over 3 is 28x20x16, 2048 over 2 is 64x32. Factors of
/// 1 are dropped (a prime spans one axis).
pub fn split_axes(n: f64, m: usize) -> Vec<f64> {
    let m = m.clamp(1, 16);
    if !(n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= MAX_CHIPS) {
        return vec![n];
    }
    let mut primes = prime_factors(n as u64);
    primes.sort_unstable_by(|a, b| b.cmp(a));
    let mut f = vec![1u64; m];
    for p in primes {
        if let Some(min) = f.iter_mut().min() {
            *min *= p;
        }
    }
    let mut out: Vec<f64> = f.into_iter().filter(|&x| x > 1).map(|x| x as f64).collect();
    out.sort_unstable_by(|a, b| b.total_cmp(a));
    if out.is_empty() {
        out.push(1.0);
    }
    out
}

/// The largest divisor of `n` (whole, ≥ 1) that is at most `limit` (≥ 1).
fn largest_divisor_at_most(n: f64, limit: f64) -> f64 {
    if n <= limit {
        return n;
    }
    let n_u = n as u64;
    let mut best = 1u64;
    let mut d = 1u64;
    while d * d <= n_u {
        if n_u % d == 0 {
            for c in [d, n_u / d] {
                if (c as f64) <= limit && c > best {
                    best = c;
                }
            }
        }
        d += 1;
    }
    best as f64
}

fn describe_torus(axes: &[crate::collective::TorusAxis], link: f64) -> String {
    let shape = axes
        .iter()
        .map(|a| {
            format!(
                "{}{}",
                format_exact(a.size),
                if a.wrap { "" } else { " (no wraparound)" }
            )
        })
        .collect::<Vec<_>>()
        .join("x");
    format!(
        "{} torus ax{} {shape}, W_link = {} per direction (W_ici = {})",
        axes.len(),
        if axes.len() == 1 { "is" } else { "es" },
        fr(link),
        fr(2.0 * link)
    )
}

/// The shape of a slice of `n` chips over `m` axes: [`split_axes`], except that where only
/// whole 4x4x4 cubes wrap around (TPU v4p, v5p) and `n` is a whole number of them, every axis
/// is kept a multiple of 4 (192 over 3 axes is 12x4x4, which wraps, not 8x6x4, which does
/// not).
pub(crate) fn torus_shape(n: f64, m: usize, wrap: WrapRule) -> Vec<f64> {
    let m = m.clamp(1, 16);
    let cube = 4f64.powi(m as i32);
    if wrap == WrapRule::FullCube && n >= cube && (n / cube).fract() == 0.0 {
        let mut f = split_axes(n / cube, m);
        f.retain(|&x| x > 1.0);
        f.resize(m, 1.0);
        let mut out: Vec<f64> = f.into_iter().map(|x| 4.0 * x).collect();
        out.sort_unstable_by(|a, b| b.total_cmp(a));
        return out;
    }
    split_axes(n, m)
}

/// The torus of `d` chips over `m` hardware axes.
fn torus_axis(t: &TorusFabric, axis: MeshAxis, d: f64, m: f64, x: bool) -> Result<AxisNet, Error> {
    let shape = torus_shape(d, m as usize, t.wrap);
    let axes = t.wrap.axes(&shape);
    let note = if x {
        describe_torus(&axes, t.link)
    } else {
        String::new()
    };
    let network = Network::new(Topology::Torus {
        axes,
        link: t.link,
        links: 1.0,
    })
    .with_latency(t.latency);
    network.validate()?;
    Ok(AxisNet {
        axis,
        m: shape.len() as f64,
        network,
        scale: 1.0,
        note,
    })
}

fn place_torus(
    mesh: &Mesh,
    counts: &AxisCounts,
    t: &TorusFabric,
    x: bool,
) -> Result<Placement, Error> {
    let others = mesh.fsdp * mesh.tp * mesh.pp * mesh.ep;
    if others > t.pod {
        return Err(Error::InvalidField {
            field: "fsdp".into(),
            value: format_exact(mesh.fsdp),
            reason: format!(
                "fsdp·tp·pp·ep = {} exceeds the ICI domain of {} chips (a {} pod); put the rest in dp, which crosses the DCN",
                format_exact(others),
                format_exact(t.pod),
                t.name
            ),
        });
    }
    let dp_ici = largest_divisor_at_most(mesh.dp, (t.pod / others).floor().max(1.0));
    let dp_dcn = mesh.dp / dp_ici;
    let on = |d: f64| if d > 1.0 { 1.0 } else { 0.0 };
    let auto_x = (t.dims - on(mesh.tp) - on(mesh.ep) - on(mesh.pp)).max(1.0);
    let pick = |given: f64, auto: f64| if given > 0.0 { given } else { auto };
    let (mx, my, mz) = (
        pick(counts.mx, auto_x),
        pick(counts.my, 1.0),
        pick(counts.mz, 1.0),
    );
    let mut p = Placement {
        dp_ici,
        ..Placement::default()
    };
    if dp_ici > 1.0 {
        p.dp = Some(torus_axis(t, MeshAxis::Dp, dp_ici, mx, x)?);
    }
    if mesh.fsdp > 1.0 {
        p.fsdp = Some(torus_axis(t, MeshAxis::Fsdp, mesh.fsdp, mx, x)?);
    }
    if mesh.tp > 1.0 {
        p.tp = Some(torus_axis(t, MeshAxis::Tp, mesh.tp, my, x)?);
    }
    if mesh.ep > 1.0 {
        p.ep = Some(torus_axis(t, MeshAxis::Ep, mesh.ep, mz, x)?);
    }
    if mesh.pp > 1.0 {
        let network = Network::new(Topology::line(2.0, t.link)).with_latency(t.latency);
        p.pp = Some(AxisNet {
            axis: MeshAxis::Pp,
            network,
            scale: 1.0,
            m: 1.0,
            note: if x {
                format!(
                    "one ICI link between adjacent stages, {} per direction",
                    fr(t.link)
                )
            } else {
                String::new()
            },
        });
    }
    if dp_dcn > 1.0 {
        let w = t
            .dcn
            .ok_or_else(|| missing("DCN bandwidth", "dcn", &t.name))?;
        let network = Network::new(Topology::Node {
            n: dp_dcn,
            gpus: dp_dcn,
            egress: w,
            sharp: false,
        })
        .with_latency(t.dcn_latency);
        network.validate()?;
        p.dcn = Some(AxisNet {
            axis: MeshAxis::Dcn,
            network,
            scale: 1.0 / dp_ici,
            m: 0.0,
            note: if x {
                format!(
                    "{} slices of {} chips over the data-center network, each chip egressing {} (training.md, \"Scaling Across Pods\")",
                    format_exact(dp_dcn),
                    format_exact(mesh.chips() / dp_dcn),
                    fr(w)
                )
            } else {
                String::new()
            },
        });
    }
    Ok(p)
}

/// The fat-tree levels spanning `n` GPUs: the node, then up to `leaf` nodes at `node × nic`
/// each, then scalable units at `leaf × node × nic` each (full bisection), as
/// [`NetworkPreset::cluster_levels`](crate::collective::NetworkPreset::cluster_levels).
fn cluster_levels(s: &SwitchedFabric, n: f64, field: &str) -> Result<Vec<Level>, Error> {
    let g = s.node;
    if n <= g {
        return Ok(vec![Level {
            degree: n,
            bandwidth: s.egress,
        }]);
    }
    let nic = s
        .nic
        .ok_or_else(|| missing("scale-out NIC bandwidth", "nic", &s.name))?;
    let leaf = s
        .leaf
        .ok_or_else(|| missing("scalable-unit size", "leaf", &s.name))?;
    let nodes = n / g;
    if nodes.fract() != 0.0 {
        return Err(Error::InvalidField {
            field: field.into(),
            value: format_exact(n),
            reason: format!(
                "a group of {} GPUs (with the strategies inside it) spans nodes, so it must be whole nodes of {}",
                format_exact(n),
                format_exact(g)
            ),
        });
    }
    let node_egress = g * nic;
    let mut levels = vec![Level {
        degree: g,
        bandwidth: s.egress,
    }];
    if nodes <= leaf {
        levels.push(Level {
            degree: nodes,
            bandwidth: node_egress,
        });
    } else {
        let units = nodes / leaf;
        if units.fract() != 0.0 {
            return Err(Error::InvalidField {
                field: field.into(),
                value: format_exact(n),
                reason: format!(
                    "a group of {} GPUs spans scalable units, so it must be whole units of {} GPUs",
                    format_exact(n),
                    format_exact(leaf * g)
                ),
            });
        }
        levels.push(Level {
            degree: leaf,
            bandwidth: node_egress,
        });
        levels.push(Level {
            degree: units,
            bandwidth: leaf * node_egress,
        });
    }
    Ok(levels)
}

fn switched_axis(
    s: &SwitchedFabric,
    axis: MeshAxis,
    d: f64,
    inner: f64,
    x: bool,
) -> Result<AxisNet, Error> {
    let span = d * inner;
    let (network, scale, note) = if span <= s.node {
        (
            Network::new(Topology::Node {
                n: d,
                gpus: s.node,
                egress: s.egress,
                sharp: s.sharp,
            })
            .with_latency(s.latency),
            1.0,
            if x {
                format!(
                    "{} GPUs of a node of {}, each egressing {} over NVLink",
                    format_exact(d),
                    format_exact(s.node),
                    fr(s.egress)
                )
            } else {
                String::new()
            },
        )
    } else {
        let levels = cluster_levels(s, span, axis.as_str())?;
        let note = if !x {
            String::new()
        } else {
            let levels = levels
                .iter()
                .map(|l| format!("{} @ {}", format_exact(l.degree), fr(l.bandwidth)))
                .collect::<Vec<_>>()
                .join(" / ");
            if inner > 1.0 {
                format!(
                    "{} GPUs over {levels}, with the {} GPUs of the strategies nested inside it: each level's bandwidth × max(Y, S)/S, Y = {}",
                    format_exact(span),
                    format_exact(inner),
                    format_exact(inner)
                )
            } else {
                format!("{} GPUs over {levels}", format_exact(span))
            }
        };
        (
            Network::new(Topology::Cluster {
                levels,
                sharp: s.sharp,
                inner,
            })
            .with_latency(s.net_latency),
            inner,
            note,
        )
    };
    network.validate()?;
    Ok(AxisNet {
        axis,
        network,
        scale,
        m: 0.0,
        note,
    })
}

fn place_switched(mesh: &Mesh, s: &SwitchedFabric, x: bool) -> Result<Placement, Error> {
    let mut p = Placement {
        dp_ici: mesh.dp,
        ..Placement::default()
    };
    let mut inner = 1.0;
    for (axis, d) in [
        (MeshAxis::Tp, mesh.tp),
        (MeshAxis::Ep, mesh.ep),
        (MeshAxis::Pp, mesh.pp),
        (MeshAxis::Fsdp, mesh.fsdp),
        (MeshAxis::Dp, mesh.dp),
    ] {
        if d > 1.0 {
            let net = if axis == MeshAxis::Pp {
                pipeline_hop(s, inner, x)?
            } else {
                switched_axis(s, axis, d, inner, x)?
            };
            match axis {
                MeshAxis::Tp => p.tp = Some(net),
                MeshAxis::Ep => p.ep = Some(net),
                MeshAxis::Pp => p.pp = Some(net),
                MeshAxis::Fsdp => p.fsdp = Some(net),
                _ => p.dp = Some(net),
            }
        }
        inner *= d;
    }
    Ok(p)
}

/// The hop between adjacent stages, `inner` GPUs apart.
fn pipeline_hop(s: &SwitchedFabric, inner: f64, x: bool) -> Result<AxisNet, Error> {
    let (network, note) = if 2.0 * inner <= s.node {
        (
            Network::new(Topology::Node {
                n: 2.0,
                gpus: s.node.max(2.0),
                egress: s.egress,
                sharp: false,
            })
            .with_latency(s.latency),
            if x {
                format!(
                    "adjacent stages in one node, over NVLink at {}",
                    fr(s.egress)
                )
            } else {
                String::new()
            },
        )
    } else {
        let nic = s
            .nic
            .ok_or_else(|| missing("scale-out NIC bandwidth", "nic", &s.name))?;
        (
            Network::new(Topology::Cluster {
                levels: vec![
                    Level {
                        degree: s.node,
                        bandwidth: s.egress,
                    },
                    Level {
                        degree: 2.0,
                        bandwidth: s.node * nic,
                    },
                ],
                sharp: false,
                inner: 1.0,
            })
            .with_latency(s.net_latency),
            if x {
                format!(
                    "adjacent stages in different nodes, at the GPU's NIC {}",
                    fr(nic)
                )
            } else {
                String::new()
            },
        )
    };
    network.validate()?;
    Ok(AxisNet {
        axis: MeshAxis::Pp,
        network,
        scale: 1.0,
        m: 0.0,
        note,
    })
}

fn place_explicit(mesh: &Mesh, a: &AxisNetworks, x: bool) -> Result<Placement, Error> {
    let mut p = Placement {
        dp_ici: mesh.dp,
        ..Placement::default()
    };
    for (axis, d, net) in [
        (MeshAxis::Dp, mesh.dp, &a.dp),
        (MeshAxis::Fsdp, mesh.fsdp, &a.fsdp),
        (MeshAxis::Tp, mesh.tp, &a.tp),
        (MeshAxis::Pp, mesh.pp, &a.pp),
        (MeshAxis::Ep, mesh.ep, &a.ep),
    ] {
        if d <= 1.0 {
            continue;
        }
        let field = axis.as_str();
        let network = net.clone().ok_or_else(|| Error::InvalidField {
            field: field.into(),
            value: format_exact(d),
            reason: format!("no network given for the {} axis", axis.name()),
        })?;
        network.validate()?;
        let chips = network.topology.chips();
        let scale = match &network.topology {
            Topology::Cluster { inner, .. } => *inner,
            _ => 1.0,
        };
        if axis != MeshAxis::Pp && chips != d * scale {
            return Err(Error::InvalidField {
                field: field.into(),
                value: format_exact(d),
                reason: format!(
                    "its network spans {} chips, not {} × inner {}",
                    format_exact(chips),
                    format_exact(d),
                    format_exact(scale)
                ),
            });
        }
        let note = if x {
            crate::collective::formulas::describe(&network.topology)
        } else {
            String::new()
        };
        let net = AxisNet {
            axis,
            network,
            scale,
            m: 0.0,
            note,
        };
        match axis {
            MeshAxis::Dp => p.dp = Some(net),
            MeshAxis::Fsdp => p.fsdp = Some(net),
            MeshAxis::Tp => p.tp = Some(net),
            MeshAxis::Pp => p.pp = Some(net),
            _ => p.ep = Some(net),
        }
    }
    Ok(p)
}

/// Places the mesh's strategies on the fabric (see the module docs); `explain` writes each
/// network's description.
pub(crate) fn place(
    mesh: &Mesh,
    counts: &AxisCounts,
    fabric: &Fabric,
    explain: bool,
) -> Result<Placement, Error> {
    match fabric {
        Fabric::Torus(t) => place_torus(mesh, counts, t, explain),
        Fabric::Switched(s) => place_switched(mesh, s, explain),
        Fabric::Explicit(a) => place_explicit(mesh, a, explain),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_split_evenly() {
        assert_eq!(split_axes(8960.0, 3), vec![28.0, 20.0, 16.0]);
        assert_eq!(split_axes(2048.0, 2), vec![64.0, 32.0]);
        assert_eq!(split_axes(4096.0, 3), vec![16.0, 16.0, 16.0]);
        assert_eq!(split_axes(7.0, 3), vec![7.0]);
        assert_eq!(split_axes(1.0, 3), vec![1.0]);
        assert_eq!(
            torus_shape(192.0, 3, WrapRule::FullCube),
            vec![12.0, 4.0, 4.0]
        );
        assert_eq!(split_axes(192.0, 3), vec![8.0, 6.0, 4.0]);
        assert_eq!(
            torus_shape(8960.0, 3, WrapRule::FullCube),
            vec![28.0, 20.0, 16.0]
        );
        assert_eq!(
            torus_shape(64.0, 3, WrapRule::FullCube),
            vec![4.0, 4.0, 4.0]
        );
        assert_eq!(
            torus_shape(16.0, 3, WrapRule::FullCube),
            vec![4.0, 2.0, 2.0]
        );
        assert_eq!(largest_divisor_at_most(16.0, 5.0), 4.0);
        assert_eq!(largest_divisor_at_most(13.0, 5.0), 1.0);
        assert_eq!(largest_divisor_at_most(4.0, 5.0), 4.0);
    }
}
