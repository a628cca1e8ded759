//! Placement on one explicit network per strategy.

use super::{AxisNet, AxisNetworks, MeshAxis, Placement};
use crate::collective::Topology;
use crate::error::Error;
use crate::train::mesh::Mesh;
use crate::units::format_exact;

pub(super) fn place(mesh: &Mesh, a: &AxisNetworks, x: bool) -> Result<Placement, Error> {
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
