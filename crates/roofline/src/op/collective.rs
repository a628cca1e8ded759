//! The `collective` kind: one collective (AllGather, ReduceScatter, AllReduce, AllToAll, a
//! point-to-point send) of an array of `bytes` (the book's V) over `n` chips of a topology,
//! timed by [`crate::collective`] from the chip's network fields.

use super::behavior::{n, MeasureKind, OpBehavior};
use super::Evaluation;
use crate::chip::{Chip, Interconnect};
use crate::collective::formulas::{cluster_binding_level, coefficients};
use crate::collective::topology::{check_torus_chips, parse_axes, parse_levels, TorusAxis};
use crate::collective::{
    collective_time, CollectiveKind, CollectiveResult, Combine, Level, Network, Topology,
    TopologyKind,
};
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::Cost;
use crate::field::{choice, integer, number, parse_choice, text, FieldSpec, BYTES, CHIPS};
use crate::resource::{ExecUnit, Resource};
use crate::units::{format_exact, format_quantity, Unit};
use serde::{Deserialize, Serialize};

/// One torus axis as written: its size and, when marked (`16w`, `8n`), its wraparound; an
/// unmarked axis wraps as the chip's `wrap` field says ([`Chip::wraps`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AxisSpec {
    /// Chips along the axis.
    pub size: f64,
    /// `Some(true)` for `w`, `Some(false)` for `n`, `None` for the chip's rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<bool>,
}

/// One cluster level as written: its degree and, when given (`32@400G`), its bandwidth per
/// child per direction; without, it follows from the chip (see [`Collective::levels_on`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LevelSpec {
    /// Children per switch of this level.
    pub degree: f64,
    /// Bandwidth per child and direction, bytes/s, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<f64>,
}

/// A collective over one mesh axis (or several torus axes, or a switched cluster).
///
/// Fields: `kind` (`allgather`, `reducescatter`, `allreduce`, `alltoall`, `send`), `bytes`
/// (V: the whole array), `n` (chips; a torus takes the product of `axes`, a cluster with
/// `levels` the product of their degrees), `topology` (`ring`, `line`, `uniring`, `torus`,
/// `node`, `cluster`), `axes` (torus sizes, `4x4`, `8nx16w`), `levels` (`auto`, or cluster
/// degrees `8/32/4` or `8@450G/32@400G`), `sharp` (in-network reduction on a node or cluster).
///
/// Bandwidths and latencies come from the chip: a ring, line or unidirectional ring runs at
/// [`Chip::peer_bandwidth`] per direction (TPU: `ici`; NVLink: `ici × links`), a torus at
/// `ici` per link, a node at the egress `ici × links`, a cluster's levels at the egress, the
/// node's NICs (`node × dcn`) and full bisection above; per hop `hop_lat`, or `net_lat` for
/// a cluster spanning nodes (none: no latency).
///
/// The analysis has no FLOPs: `T_comms` is the collective's time `max(hops·latency, V·κ)`
/// (or their sum for a send), timed against the one link resource at the effective bandwidth
/// `V / T`; [`crate::Analysis::collective`] holds the two terms and `latency_bound`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Collective {
    /// The collective.
    pub kind: CollectiveKind,
    /// V, bytes of the whole array.
    pub bytes: f64,
    /// Chips along the axis (ring, line, uniring, node; a cluster with `levels = auto`).
    pub n: f64,
    /// The network shape.
    pub topology: TopologyKind,
    /// Torus axes (topology `torus`).
    pub axes: Vec<AxisSpec>,
    /// Cluster levels from the node up; `None`: from the chip and `n` (topology `cluster`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<LevelSpec>>,
    /// In-network reduction (NVLink SHARP) for an AllReduce on a node or cluster.
    pub sharp: bool,
}

impl Default for Collective {
    fn default() -> Self {
        Collective {
            kind: CollectiveKind::AllGather,
            bytes: 1e9,
            n: 16.0,
            topology: TopologyKind::Ring,
            axes: vec![
                AxisSpec {
                    size: 4.0,
                    wrap: None,
                },
                AxisSpec {
                    size: 4.0,
                    wrap: None,
                },
            ],
            levels: None,
            sharp: false,
        }
    }
}

fn missing(chip: &Chip, what: &str, field: &str) -> Error {
    Error::MissingResource {
        what: what.into(),
        field: field.into(),
        chip: chip.name.clone(),
    }
}

impl Collective {
    fn kind_id(&self) -> &'static str {
        self.kind.as_str()
    }
    fn set_kind(&mut self, _spec: &FieldSpec, t: &str) -> Result<(), Error> {
        self.kind = t.parse().map_err(|_| {
            Error::invalid(
                "kind",
                t.trim(),
                "must be one of allgather, reducescatter, allreduce, alltoall, send",
            )
        })?;
        Ok(())
    }
    fn topology_id(&self) -> &'static str {
        self.topology.as_str()
    }
    fn set_topology(&mut self, spec: &FieldSpec, t: &str) -> Result<(), Error> {
        self.topology = TopologyKind::ALL[parse_choice(spec, t)?];
        Ok(())
    }
    fn sharp_id(&self) -> &'static str {
        if self.sharp {
            "yes"
        } else {
            "no"
        }
    }
    fn set_sharp(&mut self, spec: &FieldSpec, t: &str) -> Result<(), Error> {
        self.sharp = parse_choice(spec, t)? == 0;
        Ok(())
    }

    /// The axes as written back (`4x4`, `8nx16w`).
    pub fn axes_text(&self) -> String {
        self.axes
            .iter()
            .map(|a| {
                let mark = match a.wrap {
                    Some(true) => "w",
                    Some(false) => "n",
                    None => "",
                };
                format!("{}{mark}", format_exact(a.size))
            })
            .collect::<Vec<_>>()
            .join("x")
    }
    fn set_axes(&mut self, _spec: &FieldSpec, t: &str) -> Result<(), Error> {
        let bad = |e: Error| Error::invalid("axes", t.trim(), e.to_string());
        let yes = parse_axes(t, |_, _| true).map_err(bad)?;
        let no = parse_axes(t, |_, _| false).map_err(bad)?;
        let axes: Vec<AxisSpec> = yes
            .iter()
            .zip(&no)
            .map(|(a, b)| AxisSpec {
                size: a.size,
                wrap: (a.wrap == b.wrap).then_some(a.wrap),
            })
            .collect();
        let chips: f64 = axes.iter().map(|a| a.size).product();
        if chips > crate::collective::MAX_CHIPS {
            return Err(Error::invalid(
                "axes",
                t.trim(),
                "a torus of at most 1e9 chips",
            ));
        }
        self.axes = axes;
        Ok(())
    }

    /// The levels as written back (`auto`, `8/32/4`, `8@4.5e11/32`).
    pub fn levels_text(&self) -> String {
        match &self.levels {
            None => "auto".into(),
            Some(l) => l
                .iter()
                .map(|l| match l.bandwidth {
                    Some(w) => format!("{}@{}", format_exact(l.degree), format_exact(w)),
                    None => format_exact(l.degree),
                })
                .collect::<Vec<_>>()
                .join("/"),
        }
    }
    fn set_levels(&mut self, _spec: &FieldSpec, t: &str) -> Result<(), Error> {
        let tt = t.trim();
        if tt.is_empty() || tt.eq_ignore_ascii_case("auto") {
            self.levels = None;
            return Ok(());
        }
        let bad = |r: String| Error::invalid("levels", tt, r);
        let parts: Vec<&str> = tt.split(['/', ';']).map(str::trim).collect();
        if parts.len() > 16 {
            return Err(bad("at most 16 levels".into()));
        }
        let mut out = Vec::with_capacity(parts.len());
        for p in parts {
            if p.contains('@') {
                let l = parse_levels(p).map_err(|e| bad(e.to_string()))?;
                out.push(LevelSpec {
                    degree: l[0].degree,
                    bandwidth: Some(l[0].bandwidth),
                });
            } else {
                let d: f64 = p.parse().map_err(|_| {
                    bad("expected auto, or levels like 8/32/4 or 8@450G/32@400G (degree@bandwidth per direction, from the node up)".into())
                })?;
                if !((1.0..=crate::collective::MAX_CHIPS).contains(&d) && d.fract() == 0.0) {
                    return Err(bad(
                        "a level's degree must be a whole number from 1 to 1e9".into()
                    ));
                }
                out.push(LevelSpec {
                    degree: d,
                    bandwidth: None,
                });
            }
        }
        let chips: f64 = out.iter().map(|l| l.degree).product();
        if chips > crate::collective::MAX_CHIPS {
            return Err(bad("a cluster of at most 1e9 GPUs".into()));
        }
        self.levels = Some(out);
        Ok(())
    }

    /// The cluster levels on `chip`: the written ones (a level without bandwidth takes the
    /// egress `ici × links` at the bottom, the node's NICs `D_0 × dcn` at the next, and the
    /// level below's whole bandwidth `D_{i−1} × W_{i−1}` above: full bisection), or with
    /// `levels = auto` the reference fat tree of `n` GPUs: the node (`node` GPUs at the
    /// egress), the leaf (up to `leaf` nodes at `node × dcn` each) and the spine (scalable
    /// units at `leaf × node × dcn` each), as the book's DGX H100 SuperPod (8 @ 450 GB/s, 32
    /// @ 400 GB/s, 4 @ 12.8 TB/s).
    pub fn levels_on(&self, chip: &Chip) -> Result<Vec<Level>, Error> {
        let nn = self.chips();
        let egress = || {
            chip.egress()
                .ok_or_else(|| missing(chip, "scale-up egress (ici × links)", "ici"))
        };
        let nic = || {
            chip.dcn
                .ok_or_else(|| missing(chip, "scale-out NIC bandwidth", "dcn"))
        };
        if let Some(specs) = &self.levels {
            let mut out: Vec<Level> = Vec::with_capacity(specs.len());
            for (i, l) in specs.iter().enumerate() {
                let bandwidth = match (l.bandwidth, i) {
                    (Some(w), _) => w,
                    (None, 0) => egress()?,
                    (None, 1) => out[0].degree * nic()?,
                    (None, _) => out[i - 1].degree * out[i - 1].bandwidth,
                };
                out.push(Level {
                    degree: l.degree,
                    bandwidth,
                });
            }
            return Ok(out);
        }
        let g = chip
            .node
            .ok_or_else(|| missing(chip, "node size", "node"))?;
        let e = egress()?;
        if nn <= g {
            return Ok(vec![Level {
                degree: nn,
                bandwidth: e,
            }]);
        }
        let nodes = nn / g;
        if nodes.fract() != 0.0 {
            return Err(Error::invalid(
                "n",
                format_exact(nn),
                format!("a cluster spans whole nodes of {} GPUs", format_exact(g)),
            ));
        }
        let node_egress = g * nic()?;
        let su = chip.leaf.unwrap_or(nodes);
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
                return Err(Error::invalid(
                    "n",
                    format_exact(nn),
                    format!(
                        "beyond one scalable unit a cluster spans whole units of {} GPUs",
                        format_exact(su * g)
                    ),
                ));
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

    /// `n` as a whole number of chips: a sweep's exact crossover search evaluates between
    /// grid points, where `n` is rounded to the nearest chip.
    fn chips(&self) -> f64 {
        self.n.round().max(1.0)
    }

    /// A topology the chip does not have is refused for that chip, never reinterpreted: a
    /// torus needs a chip with ICI torus dimensions (`torus`), an NVLink node or a cluster of
    /// them (its levels from the chip, `levels=auto`) a chip with switched nodes (`node`). An H100
    /// on a 16×16 torus or a v5e in an NVLink node is a setup that cannot exist. Rings and lines
    /// are generic; a cluster with explicit levels is the user's own network.
    fn check_topology_on(&self, chip: &Chip) -> Result<(), Error> {
        let refuse = |has: &str, instead: &str| {
            Err(Error::invalid(
                "topology",
                self.topology.as_str(),
                format!(
                    "{} has no {has}: use {instead} (or set the chip's field)",
                    chip.name
                ),
            ))
        };
        match self.topology {
            TopologyKind::Torus if chip.torus.is_none() => refuse(
                "ICI torus (torus=)",
                "topology=node or cluster for switched GPUs",
            ),
            TopologyKind::Node if chip.node.is_none() => {
                refuse("switched node (node=)", "topology=torus for a TPU slice")
            }
            TopologyKind::Cluster if self.levels.is_none() && chip.node.is_none() => refuse(
                "switched nodes (node=)",
                "topology=torus for a TPU slice, or explicit levels=",
            ),
            _ => Ok(()),
        }
    }

    /// The network this collective runs over on `chip` (validated).
    pub fn network(&self, chip: &Chip) -> Result<Network, Error> {
        let nn = self.chips();
        let peer = || {
            chip.peer_bandwidth().ok_or_else(|| {
                if chip.ici.is_none() {
                    missing(chip, "ICI/NVLink bandwidth", "ici")
                } else {
                    missing(chip, "NVLink link count", "links")
                }
            })
        };
        self.check_topology_on(chip)?;
        let hop = chip.hop_lat.unwrap_or(0.0);
        let net = match self.topology {
            TopologyKind::Ring => Network::new(Topology::ring(nn, peer()?)),
            TopologyKind::Line => Network::new(Topology::line(nn, peer()?)),
            TopologyKind::UniRing => Network::new(Topology::uniring(nn, peer()?)),
            TopologyKind::Torus => {
                let link = chip
                    .ici
                    .ok_or_else(|| missing(chip, "ICI bandwidth", "ici"))?;
                let sizes: Vec<f64> = self.axes.iter().map(|a| a.size).collect();
                let axes = self
                    .axes
                    .iter()
                    .map(|a| TorusAxis {
                        size: a.size,
                        wrap: a.wrap.unwrap_or_else(|| chip.wraps(a.size, &sizes)),
                    })
                    .collect();
                Network::new(Topology::Torus {
                    axes,
                    link,
                    links: 1.0,
                })
            }
            TopologyKind::Node => {
                let egress = chip
                    .egress()
                    .ok_or_else(|| missing(chip, "scale-up egress (ici × links)", "ici"))?;
                Network::new(Topology::Node {
                    n: nn,
                    gpus: chip.node.unwrap_or(nn),
                    egress,
                    sharp: self.sharp,
                })
            }
            TopologyKind::Cluster => {
                let levels = self.levels_on(chip)?;
                let lat = if levels.len() > 1 {
                    chip.net_lat.unwrap_or(0.0)
                } else {
                    hop
                };
                let t = Topology::Cluster {
                    levels,
                    sharp: self.sharp,
                    inner: 1.0,
                };
                let net = Network::new(t).with_latency(lat);
                net.validate()?;
                return Ok(net);
            }
        }
        .with_latency(hop);
        net.validate()?;
        Ok(net)
    }

    /// The resource the traffic is accounted to: the level that binds it. On a cluster that is
    /// the level whose bandwidth term is the largest (the node's links for 16 H100s, whose
    /// NVLink ring is slower than the two nodes' network; DCN for 1,024), or DCN when the
    /// network's per-hop latency is larger than every bandwidth term; elsewhere NVLink on a
    /// switched chip, else ICI.
    pub fn resource(&self, chip: &Chip, net: &Network) -> Resource {
        let scale_up = if chip.interconnect == Interconnect::Switch {
            Resource::Nvlink
        } else {
            Resource::Ici
        };
        if let Topology::Cluster { levels, .. } = &net.topology {
            if levels.len() > 1 {
                let c = coefficients(self.kind, &net.topology, false);
                let latency_binds = c.hops * net.latency > c.kappa * self.bytes;
                let level = cluster_binding_level(self.kind, &net.topology);
                if latency_binds || level.is_some_and(|l| l > 0) {
                    return Resource::Dcn;
                }
            }
        }
        scale_up
    }

    /// The collective's time on `chip`, with its formula, section and derivation.
    pub fn time_on(&self, chip: &Chip) -> Result<CollectiveResult, Error> {
        collective_time(self.kind, self.bytes, &self.network(chip)?)
    }

    /// The total time on `net` (no derivation text: the per-point path of a sweep).
    fn total(&self, net: &Network) -> f64 {
        let c = coefficients(self.kind, &net.topology, false);
        let bw = c.kappa * self.bytes;
        let lat = c.hops * net.latency;
        match c.combine {
            Combine::Max => bw.max(lat),
            Combine::Sum => bw + lat,
        }
    }
}

const KIND_IDS: &[&str] = &CollectiveKind::IDS;
const TOPOLOGY_IDS: &[&str] = &TopologyKind::IDS;

impl OpBehavior for Collective {
    op_fields! {
        "kind" => derived(kind_id, set_kind): choice(
            "collective",
            KIND_IDS,
            "allgather",
            "AllGather, ReduceScatter, AllReduce (= ReduceScatter + AllGather), AllToAll, or a point-to-point send",
            "a collective",
        ),
        "bytes" => num(bytes): number(
            "V",
            "1e9",
            (1.0, 1e30),
            "a size in bytes",
            "V: bytes of the whole array (the gathered result, the unreduced array each chip holds)",
        ).slider(BYTES).unit(Unit::Bytes),
        "n" => num(n): integer(
            "chips",
            "16",
            (1.0, 1e9),
            "a whole number of chips",
            "chips along the axis (a torus: the product of its axes; a cluster with levels: the product of the degrees)",
        ).slider(CHIPS),
        "topology" => derived(topology_id, set_topology): choice(
            "topology",
            TOPOLOGY_IDS,
            "ring",
            "ring (wraparound), line, uniring (one direction), torus (several axes), node (NVLink switch), cluster (leaf/spine)",
            "a topology",
        ),
        "axes" => derived(axes_text, set_axes): text(
            "torus axes",
            "4x4",
            "torus axis sizes like 4x4x4 (suffix w: wraparound, n: none)",
            "torus only: axis sizes; an unmarked axis wraps as the chip's wrap field says",
        ),
        "levels" => derived(levels_text, set_levels): text(
            "cluster levels",
            "auto",
            "auto, or levels like 8/32/4 or 8@450G/32@400G",
            "cluster only: degrees from the node up, each @ its bandwidth per child and direction; auto: the chip's node and leaf sizes for n GPUs",
        ),
        "sharp" => derived(sharp_id, set_sharp): choice(
            "SHARP",
            &["yes", "no"],
            "no",
            "in-network reduction (node or cluster): an AllReduce costs V/W instead of 2·V·(n−1)/(n·W)",
            "yes or no",
        ),
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(MeasureKind::Collective)
    }
    /// A torus's chips are the product of its axes (`topology::check_torus_chips`).
    fn check_consistency(&self) -> Result<(), Error> {
        if self.topology != TopologyKind::Torus {
            return Ok(());
        }
        let sizes: Vec<f64> = self.axes.iter().map(|a| a.size).collect();
        check_torus_chips(self.n, Collective::default().n, &sizes)
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let net = self.network(chip)?;
        crate::collective::check(
            "bytes",
            self.bytes,
            0.0,
            crate::collective::MAX_BYTES,
            false,
            "a size in bytes",
        )?;
        let peak = chip.peak(DType::Bf16).unwrap_or(1.0);
        let mut c = Cost::new(
            0.0,
            DType::Bf16,
            ExecUnit::Peak(DType::Bf16.peak_key()),
            peak,
        );
        let t = self.total(&net);
        if t > 0.0 && self.bytes > 0.0 {
            c.push(self.resource(chip, &net), self.bytes, self.bytes / t);
        }
        Ok(c)
    }
    fn model(&self) -> Evaluation<'_> {
        Evaluation::Collective(self)
    }
    fn describe(&self) -> String {
        let over = match self.topology {
            TopologyKind::Torus => format!("a {} torus", self.axes_text()),
            TopologyKind::Cluster if self.levels.is_some() => {
                format!("a cluster of levels {}", self.levels_text())
            }
            t => format!("{} chips ({t})", n(self.n)),
        };
        let sharp = if self.sharp { " with SHARP" } else { "" };
        format!(
            "{} of {} over {over}{sharp}",
            self.kind.name(),
            format_quantity(self.bytes, Unit::Bytes)
        )
    }
    fn flops_formula(&self) -> (String, String) {
        ("0 (a collective only moves data)".into(), "0".into())
    }
    fn bytes_formula(&self, _r: Resource) -> Option<(String, String)> {
        Some(("V".into(), format_exact(self.bytes)))
    }
    fn notes(&self, _chip: &str, out: &mut Vec<String>) {
        out.push(
            "A collective has no FLOPs (T_math = 0): its time is T_comms, the book's formula below with the per-hop \
             latency, and the link bandwidth shown is the effective V / T."
                .to_string(),
        );
    }
}
