//! Placement on switched GPU nodes in a fat tree: strategies nested from the innermost, each
//! over its node or the cluster's levels.

use super::{fr, missing, AxisNet, MeshAxis, Placement, SwitchedFabric};
use crate::collective::{Level, Network, Topology};
use crate::error::Error;
use crate::train::mesh::Mesh;
use crate::units::format_exact;

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

pub(super) fn place(mesh: &Mesh, s: &SwitchedFabric, x: bool) -> Result<Placement, Error> {
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
