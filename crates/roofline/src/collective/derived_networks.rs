//! Network presets of the catalog chips that have no hand-written entry in
//! [`super::network_presets`] (the chips added in issue 23): read from the chip preset's own
//! fields and source notes, so the two never disagree; and the catalog of every network preset,
//! the hand-written ones first.

use super::network_presets::{Fabric, NetworkPreset, Sourced, WrapRule, NETWORKS};
use crate::chip::{Chip, ChipField, Interconnect};

const EGRESS_NOTE: &str =
    "the chip preset's ici × links (per-link bandwidth times link count; see their notes)";
const NO_EGRESS: &str = "the chip preset lacks ici or links: no scale-up egress";
const NO_TORUS: &str = "not a torus: no ICI torus in the chip preset";
const NO_POD: &str = "no torus: the chip preset has no torus dimensions";

fn sourced(chip: &Chip, f: ChipField) -> Sourced {
    Sourced {
        value: chip.get(f),
        source: chip.source(f),
    }
}

/// The network preset of a catalog chip, from its fields: switched when its interconnect is a
/// switch, a mesh when point-to-point with a node size, no scale-up network otherwise.
pub(crate) fn derive(id: &'static str) -> Option<NetworkPreset> {
    let chip = crate::chip::preset(id)?;
    let egress = chip.egress();
    let fabric = match (chip.interconnect, chip.node) {
        (_, None) => Fabric::None,
        (Interconnect::Switch, Some(_)) => Fabric::Switch,
        (Interconnect::PointToPoint, Some(_)) => Fabric::Mesh,
    };
    Some(NetworkPreset {
        id,
        fabric,
        ici_link: sourced(&chip, ChipField::Ici),
        ici_links: sourced(&chip, ChipField::Links),
        torus_dims: sourced(&chip, ChipField::Torus),
        pod: (&[], NO_POD),
        wrap: (WrapRule::None, NO_TORUS),
        dcn: sourced(&chip, ChipField::Dcn),
        nvlink_egress: Sourced {
            value: egress,
            source: if egress.is_some() {
                EGRESS_NOTE
            } else {
                NO_EGRESS
            },
        },
        node_size: sourced(&chip, ChipField::Node),
        nic: sourced(&chip, ChipField::Dcn),
        leaf_nodes: sourced(&chip, ChipField::Leaf),
        hop_latency: sourced(&chip, ChipField::HopLat),
        net_latency: sourced(&chip, ChipField::NetLat),
    })
}

/// The network preset of a chip preset id.
pub fn network_preset(id: &str) -> Option<&'static NetworkPreset> {
    network_presets().iter().find(|p| p.id == id)
}

/// Every network preset, in catalog order.
///
/// The hand-written entries first; a catalog chip without one gets its network read from its
/// own preset fields ([`derive`]).
pub fn network_presets() -> &'static [NetworkPreset] {
    static ALL: std::sync::OnceLock<Vec<NetworkPreset>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = NETWORKS.to_vec();
        for id in crate::chip::preset_ids() {
            if !NETWORKS.iter().any(|p| p.id == id) {
                all.extend(derive(id));
            }
        }
        all
    })
}
