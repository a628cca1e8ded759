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

mod explicit;
mod switched;
mod torus;

pub use torus::split_axes;

use super::mesh::{AxisCounts, Mesh};
use crate::collective::formulas::coefficients;
use crate::collective::{
    check, network_preset, CollectiveKind, Network, Topology, WrapRule, MAX_CHIPS, MAX_LATENCY,
    MAX_RATE,
};
use crate::error::Error;
use crate::units::{format_quantity, Unit};
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

/// Places the mesh's strategies on the fabric (see the module docs); `explain` writes each
/// network's description.
pub(crate) fn place(
    mesh: &Mesh,
    counts: &AxisCounts,
    fabric: &Fabric,
    explain: bool,
) -> Result<Placement, Error> {
    match fabric {
        Fabric::Torus(t) => torus::place(mesh, counts, t, explain),
        Fabric::Switched(s) => switched::place(mesh, s, explain),
        Fabric::Explicit(a) => explicit::place(mesh, a, explain),
    }
}
