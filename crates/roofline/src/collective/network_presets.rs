//! What each chip preset's network looks like: pure data keyed by the chip preset id
//! (`tpu-v5e`, `h100`, ...), every number with its source, and helpers that build a
//! [`Network`] from it.
//!
//! Sources: "scaling book" is How to Scale Your Model (the JAX scaling book) as copied in
//! `shared/reference/scaling-book/` (tpus.md is part 2, sharding.md part 3, gpus.md part 12);
//! vendor pages are named. Per-hop latencies of GPUs come from NCCL's own cost model
//! (`src/graph/tuning.cc`, table `hwLat`, ring algorithm, LL protocol: the small-message
//! protocol, where latency matters), which also adds a per-call base latency (6.6 µs for
//! ring/LL) that is not modelled here.

use super::topology::{Level, Network, Topology, TorusAxis};
use super::{check, parse_err, MAX_CHIPS};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// A value with its source note; `None` when no trustworthy figure exists (the note says
/// why).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sourced {
    /// The value in base units, if known.
    pub value: Option<f64>,
    /// Where it comes from, or why it is absent.
    pub source: &'static str,
}

const fn s(v: f64, source: &'static str) -> Sourced {
    Sourced {
        value: Some(v),
        source,
    }
}

const fn none(source: &'static str) -> Sourced {
    Sourced {
        value: None,
        source,
    }
}

/// Where a TPU torus has wraparound links (ids `all`, `none`, `cube`, `16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WrapRule {
    /// Every axis wraps.
    All,
    /// No axis wraps.
    None,
    /// TPU v4p/v5p (optical switches on 4x4x4 cubes): every axis wraps when every axis is a
    /// multiple of 4 (a whole number of cubes), else none does.
    #[serde(rename = "cube")]
    FullCube,
    /// TPU v5e/v6e (one 16x16 torus per pod): an axis wraps iff it has 16 chips.
    #[serde(rename = "16")]
    AxisOf16,
}

impl WrapRule {
    /// Every rule.
    pub const ALL: [WrapRule; 4] = [
        WrapRule::All,
        WrapRule::None,
        WrapRule::FullCube,
        WrapRule::AxisOf16,
    ];

    /// The id.
    pub fn as_str(self) -> &'static str {
        match self {
            WrapRule::All => "all",
            WrapRule::None => "none",
            WrapRule::FullCube => "cube",
            WrapRule::AxisOf16 => "16",
        }
    }

    /// Whether an axis of `size` wraps in a slice of `shape` (which contains it).
    pub fn wraps(self, size: f64, shape: &[f64]) -> bool {
        size > 1.0
            && match self {
                WrapRule::All => true,
                WrapRule::None => false,
                WrapRule::FullCube => shape.iter().all(|s| s % 4.0 == 0.0),
                WrapRule::AxisOf16 => size == 16.0,
            }
    }

    /// The axes of a slice of `shape`, with their wraparounds.
    pub fn axes(self, shape: &[f64]) -> Vec<TorusAxis> {
        shape
            .iter()
            .map(|&size| TorusAxis {
                size,
                wrap: self.wraps(size, shape),
            })
            .collect()
    }
}

impl FromStr for WrapRule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        WrapRule::ALL
            .into_iter()
            .find(|r| r.as_str() == l)
            .ok_or_else(|| parse_err(s, "expected a wraparound rule: all, none, cube or 16"))
    }
}

/// How a chip's scale-up network is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fabric {
    /// TPU ICI: a 2D or 3D torus of point-to-point links.
    Torus,
    /// NVLink through NVSwitches: every GPU of a node one hop from every other.
    Switch,
    /// A full mesh of point-to-point links (AMD Infinity Fabric): for these collectives it
    /// behaves as a switched node whose egress is the sum of the links.
    Mesh,
    /// No scale-up link.
    None,
}

/// One chip preset's network.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NetworkPreset {
    /// The chip preset id (`tpu-v5e`, `h100`, ...).
    pub id: &'static str,
    /// The scale-up fabric.
    pub fabric: Fabric,
    /// TPU ICI bandwidth per link per direction, bytes/s.
    pub ici_link: Sourced,
    /// ICI links per chip (4 on a 2D torus, 6 on a 3D one).
    pub ici_links: Sourced,
    /// Torus dimensions (2 or 3).
    pub torus_dims: Sourced,
    /// The largest slice (pod) shape.
    pub pod: (&'static [f64], &'static str),
    /// Where wraparound links exist, with its source.
    pub wrap: (WrapRule, &'static str),
    /// Data-center network egress per chip, bytes/s.
    pub dcn: Sourced,
    /// GPU egress into the NVLink domain per direction, bytes/s.
    pub nvlink_egress: Sourced,
    /// GPUs per node (NVLink domain).
    pub node_size: Sourced,
    /// Scale-out NIC bandwidth per GPU per direction, bytes/s.
    pub nic: Sourced,
    /// Nodes under one set of leaf switches (a scalable unit).
    pub leaf_nodes: Sourced,
    /// Latency per hop of the scale-up network (ICI, NVLink), seconds.
    pub hop_latency: Sourced,
    /// Latency per hop of the scale-out network (InfiniBand, DCN), seconds.
    pub net_latency: Sourced,
}

fn missing(id: &str, what: &str, field: &str) -> Error {
    Error::MissingResource {
        what: what.into(),
        field: field.into(),
        chip: id.into(),
    }
}

impl NetworkPreset {
    fn need(&self, v: Sourced, what: &str, field: &str) -> Result<f64, Error> {
        v.value.ok_or_else(|| missing(self.id, what, field))
    }

    /// One mesh axis of `n` chips: on a TPU a ring when the wraparound rule gives an axis of
    /// `n` its wraparound (taken alone: `n` a multiple of 4 on v4p/v5p, `n = 16` on
    /// v5e/v6e), else a line; on a GPU the node when `n` fits in one, else the cluster.
    pub fn axis(&self, n: f64) -> Result<Network, Error> {
        check("n", n, 1.0, MAX_CHIPS, true, "a whole number of chips")?;
        match self.fabric {
            Fabric::Torus => {
                let link = self.need(self.ici_link, "ICI bandwidth", "ici")?;
                let t = if self.wrap.0.wraps(n, &[n]) {
                    Topology::ring(n, link)
                } else {
                    Topology::line(n, link)
                };
                Ok(Network::new(t).with_latency(self.hop_latency.value.unwrap_or(0.0)))
            }
            Fabric::Switch | Fabric::Mesh => {
                let g = self.need(self.node_size, "node size", "node")?;
                if n <= g {
                    self.node(n, false)
                } else {
                    self.cluster(n, false)
                }
            }
            Fabric::None => Err(missing(self.id, "scale-up network", "ici")),
        }
    }

    /// A TPU slice of `shape` (`[4, 4, 4]`), every axis at once, wraparounds per the rule.
    pub fn torus(&self, shape: &[f64]) -> Result<Network, Error> {
        if self.fabric != Fabric::Torus {
            return Err(missing(self.id, "ICI torus", "ici"));
        }
        let link = self.need(self.ici_link, "ICI bandwidth", "ici")?;
        let net = Network::new(Topology::Torus {
            axes: self.wrap.0.axes(shape),
            link,
            links: 1.0,
        })
        .with_latency(self.hop_latency.value.unwrap_or(0.0));
        net.validate()?;
        Ok(net)
    }

    /// `n` GPUs of one node, with or without SHARP.
    pub fn node(&self, n: f64, sharp: bool) -> Result<Network, Error> {
        let gpus = self.need(self.node_size, "node size", "node")?;
        let egress = self.need(self.nvlink_egress, "NVLink egress", "ici")?;
        let net = Network::new(Topology::Node {
            n,
            gpus,
            egress,
            sharp,
        })
        .with_latency(self.hop_latency.value.unwrap_or(0.0));
        net.validate()?;
        Ok(net)
    }

    /// The levels of a reference fat tree spanning `n` GPUs: the node (`node_size` GPUs at
    /// the NVLink egress), the leaf (up to `leaf_nodes` nodes at `node_size × nic` each) and
    /// the spine (scalable units at `leaf_nodes × node_size × nic` each: full bisection
    /// bandwidth, as the book's DGX H100 SuperPod: 8 @ 450 GB/s, 32 @ 400 GB/s, 4 @ 12.8
    /// TB/s). `n` must be whole nodes, and whole scalable units beyond one.
    pub fn cluster_levels(&self, n: f64) -> Result<Vec<Level>, Error> {
        check("n", n, 1.0, MAX_CHIPS, true, "a whole number of GPUs")?;
        let g = self.need(self.node_size, "node size", "node")?;
        let e = self.need(self.nvlink_egress, "NVLink egress", "ici")?;
        if n <= g {
            return Ok(vec![Level {
                degree: n,
                bandwidth: e,
            }]);
        }
        let nic = self.need(self.nic, "scale-out NIC bandwidth", "dcn")?;
        let su = self.need(self.leaf_nodes, "scalable-unit size", "leaf")?;
        let nodes = n / g;
        if nodes.fract() != 0.0 {
            return Err(Error::InvalidField {
                field: "n".into(),
                value: crate::units::format_exact(n),
                reason: format!(
                    "a cluster spans whole nodes of {} GPUs",
                    crate::units::format_exact(g)
                ),
            });
        }
        let node_egress = g * nic;
        let mut levels = vec![Level {
            degree: g,
            bandwidth: e,
        }];
        if nodes <= su {
            levels.push(Level {
                degree: nodes,
                bandwidth: node_egress,
            });
        } else {
            let units = nodes / su;
            if units.fract() != 0.0 {
                return Err(Error::InvalidField {
                    field: "n".into(),
                    value: crate::units::format_exact(n),
                    reason: format!(
                        "beyond one scalable unit a cluster spans whole units of {} GPUs",
                        crate::units::format_exact(su * g)
                    ),
                });
            }
            levels.push(Level {
                degree: su,
                bandwidth: node_egress,
            });
            levels.push(Level {
                degree: units,
                bandwidth: su * node_egress,
            });
        }
        Ok(levels)
    }

    /// `n` GPUs over the reference fat tree ([`NetworkPreset::cluster_levels`]); the latency
    /// is the scale-out one when the cluster spans nodes.
    pub fn cluster(&self, n: f64, sharp: bool) -> Result<Network, Error> {
        let levels = self.cluster_levels(n)?;
        let lat = if levels.len() > 1 {
            self.net_latency
        } else {
            self.hop_latency
        };
        let net = Network::new(Topology::Cluster {
            levels,
            sharp,
            inner: 1.0,
        })
        .with_latency(lat.value.unwrap_or(0.0));
        net.validate()?;
        Ok(net)
    }

    /// `n` chips talking over the data-center network, each egressing `dcn` bytes/s: a
    /// switched network, as a node of `n`.
    pub fn dcn(&self, n: f64) -> Result<Network, Error> {
        let w = self.need(self.dcn, "DCN bandwidth", "dcn")?;
        let net = Network::new(Topology::Node {
            n,
            gpus: n,
            egress: w,
            sharp: false,
        })
        .with_latency(self.net_latency.value.unwrap_or(0.0));
        net.validate()?;
        Ok(net)
    }
}

const ICI_LATENCY: &str = "scaling book, sharding.md, \"A note on ICI latency\": each ICI hop has an overhead \"typically around 1us\"";
const NO_GPU: &str = "a TPU has no NVLink node; see the ICI fields";
const TPU_NET_LAT: &str = "no per-hop DCN latency is given in the scaling book; left empty";
const NCCL_NVLINK: &str = "NCCL src/graph/tuning.cc (commit b6475625), hwLat[NVLINK][Ring][LL] = 0.6 µs per ring step (LL128 1.9, Simple 3.4); plus a 6.6 µs base per call, not modelled";
const NCCL_NET: &str = "NCCL src/graph/tuning.cc (commit b6475625), hwLat[NET][Ring][LL] = 2.7 µs per inter-node step (LL128 4.0, Simple 14); plus a 6.6 µs base per call, not modelled";
const NO_TORUS: &str = "GPUs are switched, not a torus";
const GPU_POD: &str = "no torus: GPUs scale out through leaf and spine switches";

pub(super) static NETWORKS: [NetworkPreset; 11] = [
    NetworkPreset {
        id: "tpu-v4p",
        fabric: Fabric::Torus,
        ici_link: s(4.5e10, "scaling book, tpus.md, ICI table: TPU v4p 4.5e10 bytes/s one-way per link (9.0e10 bidi)"),
        ici_links: s(6.0, "scaling book, tpus.md, \"TPU Networking\": TPU v4 and v5p connect to the nearest 6 neighbours (3D torus)"),
        torus_dims: s(3.0, "scaling book, tpus.md, \"TPU Networking\": a 3D torus"),
        pod: (&[16.0, 16.0, 16.0], "scaling book, tpus.md, chip table: pod 16x16x16"),
        wrap: (WrapRule::FullCube, "scaling book, tpus.md: \"Any multiple of a full cube (e.g. 4x4x4 or 4x4x8) will have wraparounds\"; \"a 2x2x4 won't have any\" (Google Cloud TPU v4 page: a torus when every dimension is a multiple of 4)"),
        dcn: s(6.25e9, "scaling book, tpus.md: DCN \"typically around 6.25e9 bytes / second per TPU\" (no v4-specific figure given)"),
        nvlink_egress: none(NO_GPU),
        node_size: none(NO_GPU),
        nic: none("TPUs reach the DCN through their hosts; see dcn"),
        leaf_nodes: none(NO_GPU),
        hop_latency: s(1e-6, ICI_LATENCY),
        net_latency: none(TPU_NET_LAT),
    },
    NetworkPreset {
        id: "tpu-v5e",
        fabric: Fabric::Torus,
        ici_link: s(4.5e10, "scaling book, tpus.md, ICI table: TPU v5e 4.5e10 bytes/s one-way per link (9.0e10 bidi)"),
        ici_links: s(4.0, "scaling book, tpus.md, \"TPU Networking\": v5e connects the 4 nearest neighbours (2D torus)"),
        torus_dims: s(2.0, "scaling book, tpus.md, \"TPU Networking\": a 2D torus"),
        pod: (&[16.0, 16.0], "scaling book, tpus.md, chip table: pod 16x16"),
        wrap: (WrapRule::AxisOf16, "scaling book, tpus.md: \"a single 16x16 2D torus with wraparounds along any axis of size 16 (meaning an 8x16 has a wraparound on the long axis)\"; sharding.md, Pop Quiz 2: \"TPU v5e only has a wraparound connection when one axis has size 16\""),
        dcn: s(3.125e9, "scaling book, tpus.md: \"v5e has 3.125e9 bytes/s\" of DCN per TPU"),
        nvlink_egress: none(NO_GPU),
        node_size: none(NO_GPU),
        nic: none("TPUs reach the DCN through their hosts; see dcn"),
        leaf_nodes: none(NO_GPU),
        hop_latency: s(1e-6, "scaling book, tpus.md, question 5: \"the per-hop latency for TPU v5e is 1us\""),
        net_latency: none(TPU_NET_LAT),
    },
    NetworkPreset {
        id: "tpu-v5p",
        fabric: Fabric::Torus,
        ici_link: s(9e10, "scaling book, tpus.md: \"9e10 bytes/s (90 GB/s) of ICI bandwidth per axis\" one-way per link (ICI table: 1.8e11 bidi; Google lists 100 GB/s)"),
        ici_links: s(6.0, "scaling book, tpus.md, \"TPU Networking\": 6 nearest neighbours (3D torus)"),
        torus_dims: s(3.0, "scaling book, tpus.md, \"TPU Networking\": a 3D torus"),
        pod: (&[16.0, 20.0, 28.0], "scaling book, tpus.md, chip table: pod 16x20x28"),
        wrap: (WrapRule::FullCube, "scaling book, tpus.md: \"Any multiple of a full cube ... will have wraparounds\" (Google Cloud TPU v5p page: all 4x4x4 and larger slices have a full 3D torus)"),
        dcn: s(6.25e9, "scaling book, tpus.md: v5p has \"6.25e9 bytes/s (6.25 GB/s) of DCN (egress) bandwidth per TPU\" (Google: 50 Gbps)"),
        nvlink_egress: none(NO_GPU),
        node_size: none(NO_GPU),
        nic: none("TPUs reach the DCN through their hosts; see dcn"),
        leaf_nodes: none(NO_GPU),
        hop_latency: s(1e-6, ICI_LATENCY),
        net_latency: none(TPU_NET_LAT),
    },
    NetworkPreset {
        id: "tpu-v6e",
        fabric: Fabric::Torus,
        ici_link: s(9e10, "scaling book, tpus.md, ICI table: TPU v6e 9.0e10 bytes/s one-way per link (1.8e11 bidi; Google: 800 GB/s bidirectional per chip over 4 links)"),
        ici_links: s(4.0, "scaling book, tpus.md, \"TPU Networking\": Trillium connects the 4 nearest neighbours (2D torus)"),
        torus_dims: s(2.0, "scaling book, tpus.md, \"TPU Networking\": a 2D torus"),
        pod: (&[16.0, 16.0], "scaling book, tpus.md, chip table: pod 16x16"),
        wrap: (WrapRule::AxisOf16, "scaling book, tpus.md: \"TPU v5e and Trillium pods consist of a single 16x16 2D torus with wraparounds along any axis of size 16\""),
        dcn: s(1.25e10, "scaling book, tpus.md: \"TPU v6e and TPU7x have 12.5e9 bytes/s\" of DCN (Google: 100 Gbps)"),
        nvlink_egress: none(NO_GPU),
        node_size: none(NO_GPU),
        nic: none("TPUs reach the DCN through their hosts; see dcn"),
        leaf_nodes: none(NO_GPU),
        hop_latency: s(1e-6, ICI_LATENCY),
        net_latency: none(TPU_NET_LAT),
    },
    NetworkPreset {
        id: "tpu7x",
        fabric: Fabric::Torus,
        ici_link: s(9e10, "scaling book, tpus.md, ICI table: TPU7x 9.0e10 bytes/s one-way per link (Google: 1,200 GB/s bidirectional per chip)"),
        ici_links: s(6.0, "3D torus like v5p: the book's pod shape 4x4x576 is 3D, and Google gives the same 1,200 GB/s bidirectional ICI per chip as v5p's 6 links"),
        torus_dims: s(3.0, "scaling book, tpus.md, chip table: pod 4x4x576 (3D)"),
        pod: (&[4.0, 4.0, 576.0], "scaling book, tpus.md, chip table: pod 4x4x576"),
        wrap: (WrapRule::FullCube, "assumed as v5p: Google's TPU7x page says it \"shares many similarities with TPU v5p\" (4x4x4 cubes joined by optical switches); the scaling book gives no TPU7x wraparound rule"),
        dcn: s(1.25e10, "scaling book, tpus.md: \"TPU v6e and TPU7x have 12.5e9 bytes/s\" of DCN (Google: 100 Gb/s)"),
        nvlink_egress: none(NO_GPU),
        node_size: none(NO_GPU),
        nic: none("TPUs reach the DCN through their hosts; see dcn"),
        leaf_nodes: none(NO_GPU),
        hop_latency: s(1e-6, ICI_LATENCY),
        net_latency: none(TPU_NET_LAT),
    },
    NetworkPreset {
        id: "a100",
        fabric: Fabric::Switch,
        ici_link: none(NO_TORUS),
        ici_links: none("12 NVLink links go to the switches; see nvlink_egress"),
        torus_dims: none(NO_TORUS),
        pod: (&[], GPU_POD),
        wrap: (WrapRule::None, NO_TORUS),
        dcn: s(2.5e10, "NVIDIA DGX A100 datasheet: 8× 200 Gb/s HDR InfiniBand, one per GPU → 2.5e10 bytes/s per GPU"),
        nvlink_egress: s(3e11, "scaling book, gpus.md, NVLink table: Ampere 300 GB/s GPU-to-GPU full-duplex (12 × 25 GB/s)"),
        node_size: s(8.0, "scaling book, gpus.md, NVLink table: Ampere node of 8 GPUs (6 NVSwitches)"),
        nic: s(2.5e10, "NVIDIA DGX A100 datasheet: 8× 200 Gb/s HDR InfiniBand, one per GPU → 2.5e10 bytes/s per GPU"),
        leaf_nodes: s(20.0, "NVIDIA DGX SuperPOD (DGX A100) reference architecture: scalable units of 20 nodes"),
        hop_latency: s(6e-7, NCCL_NVLINK),
        net_latency: s(2.7e-6, NCCL_NET),
    },
    NetworkPreset {
        id: "h100",
        fabric: Fabric::Switch,
        ici_link: none(NO_TORUS),
        ici_links: none("18 NVLink links go to the switches; see nvlink_egress"),
        torus_dims: none(NO_TORUS),
        pod: (&[], GPU_POD),
        wrap: (WrapRule::None, NO_TORUS),
        dcn: s(5e10, "scaling book, gpus.md: each node has \"8 400Gbps CX7 NICs (one per GPU)\" → 5e10 bytes/s per GPU"),
        nvlink_egress: s(4.5e11, "scaling book, gpus.md: \"18 * 25=450GB/s of full-duplex bandwidth from each GPU into the network\""),
        node_size: s(8.0, "scaling book, gpus.md: \"for H100, we have 4 NVSwitches per node\" and 8 GPUs"),
        nic: s(5e10, "scaling book, gpus.md: \"8 400Gbps CX7 NICs (one per GPU)\", 400 GB/s node egress"),
        leaf_nodes: s(32.0, "scaling book, gpus.md: \"Each set of 32 nodes is called a Scalable Unit (or SU), under a single set of 8 leaf InfiniBand switches\""),
        hop_latency: s(6e-7, NCCL_NVLINK),
        net_latency: s(2.7e-6, NCCL_NET),
    },
    NetworkPreset {
        id: "h200",
        fabric: Fabric::Switch,
        ici_link: none(NO_TORUS),
        ici_links: none("18 NVLink links go to the switches; see nvlink_egress"),
        torus_dims: none(NO_TORUS),
        pod: (&[], GPU_POD),
        wrap: (WrapRule::None, NO_TORUS),
        dcn: s(5e10, "NVIDIA DGX H200 datasheet: 8× ConnectX-7 400 Gb/s, one per GPU → 5e10 bytes/s per GPU"),
        nvlink_egress: s(4.5e11, "scaling book, gpus.md, NVLink table: Hopper 450 GB/s per GPU (as H100)"),
        node_size: s(8.0, "scaling book, gpus.md, NVLink table: Hopper node of 8 GPUs"),
        nic: s(5e10, "NVIDIA DGX H200 datasheet: 8× ConnectX-7 400 Gb/s, one per GPU → 5e10 bytes/s per GPU"),
        leaf_nodes: s(32.0, "as the scaling book's DGX H100 SuperPod: scalable units of 32 nodes"),
        hop_latency: s(6e-7, NCCL_NVLINK),
        net_latency: s(2.7e-6, NCCL_NET),
    },
    NetworkPreset {
        id: "b200",
        fabric: Fabric::Switch,
        ici_link: none(NO_TORUS),
        ici_links: none("18 NVLink links go to the switches; see nvlink_egress"),
        torus_dims: none(NO_TORUS),
        pod: (&[], GPU_POD),
        wrap: (WrapRule::None, NO_TORUS),
        dcn: s(5e10, "scaling book, gpus.md, quiz 5 question 1: a B200 SuperPod has \"the same amount of bandwidth in the scale-out network (400GB/s)\" per node → 5e10 bytes/s per GPU"),
        nvlink_egress: s(9e11, "scaling book, gpus.md: B200 \"900GB/s egress\" within a node (NVLink 5: 18 × 50 GB/s)"),
        node_size: s(8.0, "scaling book, gpus.md: \"Blackwell (B200) has nodes of 8 GPUs\""),
        nic: s(5e10, "scaling book, gpus.md, quiz 5 question 1: 400 GB/s per node of 8 GPUs"),
        leaf_nodes: s(32.0, "NVIDIA DGX SuperPOD (DGX B200) reference architecture, linked from the book's quiz 5: scalable units of 32 nodes"),
        hop_latency: s(6e-7, NCCL_NVLINK),
        net_latency: s(2.7e-6, NCCL_NET),
    },
    NetworkPreset {
        id: "mi300x",
        fabric: Fabric::Mesh,
        ici_link: none("point-to-point Infinity Fabric in a full mesh, modelled by its total egress; see nvlink_egress"),
        ici_links: s(7.0, "AMD Instinct MI300X datasheet: 7 Infinity Fabric links, one to each peer of the 8-GPU platform"),
        torus_dims: none("a full mesh, not a torus"),
        pod: (&[], "no torus: an 8-GPU full mesh"),
        wrap: (WrapRule::None, "a full mesh, not a torus"),
        dcn: none("no per-GPU network figure in the MI300X datasheet; left empty"),
        nvlink_egress: s(4.48e11, "AMD Instinct MI300X datasheet: 7 links × 64 GB/s per direction = 448 GB/s; in a full mesh each GPU reaches each peer over its own link, which for AllGather, ReduceScatter, AllReduce and AllToAll equals a switched node of that egress"),
        node_size: s(8.0, "AMD Instinct MI300X platform: 8 GPUs in a full mesh"),
        nic: none("no per-GPU network figure in the MI300X datasheet; left empty"),
        leaf_nodes: none("no reference scale-out architecture given; left empty"),
        hop_latency: none("no per-hop latency published for Infinity Fabric; left empty"),
        net_latency: none("no scale-out figure; left empty"),
    },
    NetworkPreset {
        id: "l4",
        fabric: Fabric::None,
        ici_link: none("the L4 has no scale-up link"),
        ici_links: none("the L4 has no scale-up link"),
        torus_dims: none("the L4 has no scale-up link"),
        pod: (&[], "the L4 has no scale-up link"),
        wrap: (WrapRule::None, "the L4 has no scale-up link"),
        dcn: none("L4 is a PCIe card; network bandwidth depends on the host; left empty"),
        nvlink_egress: none("the L4 has no NVLink"),
        node_size: none("the L4 has no NVLink"),
        nic: none("L4 is a PCIe card; network bandwidth depends on the host; left empty"),
        leaf_nodes: none("the L4 has no NVLink"),
        hop_latency: none("the L4 has no scale-up link"),
        net_latency: none("L4 is a PCIe card; left empty"),
    },
];

#[cfg(test)]
mod tests {

    #[test]
    fn every_catalog_chip_has_a_network_with_sources() {
        for id in crate::preset_ids() {
            let p = crate::collective::network_preset(id)
                .unwrap_or_else(|| panic!("no network for {id}"));
            for v in [
                p.ici_link,
                p.ici_links,
                p.torus_dims,
                p.dcn,
                p.nvlink_egress,
                p.node_size,
                p.nic,
                p.leaf_nodes,
                p.hop_latency,
                p.net_latency,
            ] {
                assert!(v.source.len() > 10, "{id}: {v:?}");
                if let Some(x) = v.value {
                    assert!(x.is_finite() && x > 0.0, "{id}: {v:?}");
                }
            }
            assert!(p.pod.1.len() > 10 && p.wrap.1.len() > 10, "{id}");
        }
        assert_eq!(
            crate::collective::network_presets().len(),
            crate::preset_ids().len()
        );
    }
}
