//! The networks a collective runs over: TPU ring, line and torus axes, GPU nodes behind
//! switches and GPU clusters of nodes behind leaf and spine switches.

use super::{check, parse_err, MAX_CHIPS, MAX_LATENCY, MAX_LINKS, MAX_RATE};
use crate::error::Error;
use crate::units::{format_exact, parse_quantity};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// One axis of a TPU torus: its size and whether it has a wraparound link.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TorusAxis {
    /// Chips along the axis.
    pub size: f64,
    /// Whether the axis wraps around (a ring); without, it is a line.
    pub wrap: bool,
}

/// One level of a switched GPU cluster (the book's depth `i` of the fat tree).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// `D_i`: children under one switch of this level (GPUs per node at the bottom, nodes per
    /// leaf, leaves or scalable units per spine...).
    pub degree: f64,
    /// `W_i`: bandwidth per direction of the link connecting each child to this level (GPU
    /// egress at the node level, node egress at the leaf level, ...), bytes/s.
    pub bandwidth: f64,
}

/// The network shape a collective runs over. Bandwidths are bytes/s **per direction**.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "topology", rename_all = "lowercase")]
pub enum Topology {
    /// A bidirectional ring with wraparound (a full TPU axis): `n` chips, each with one link
    /// of `link` bytes/s per direction to each neighbour (`links` such links in parallel).
    Ring {
        /// Chips on the ring.
        n: f64,
        /// Bandwidth of one link in one direction (`W_link`; `W_ici = 2·W_link`).
        link: f64,
        /// Parallel links per neighbour and direction (1 on TPUs).
        links: f64,
    },
    /// A bidirectional line without wraparound (a TPU v5e/v6e axis shorter than 16, a v4p/v5p
    /// axis of a slice smaller than a full cube).
    Line {
        /// Chips on the line.
        n: f64,
        /// Bandwidth of one link in one direction.
        link: f64,
        /// Parallel links per neighbour and direction.
        links: f64,
    },
    /// A unidirectional ring: data flows one way only.
    UniRing {
        /// Chips on the ring.
        n: f64,
        /// Bandwidth of one link in its one direction.
        link: f64,
        /// Parallel links per neighbour.
        links: f64,
    },
    /// Several torus axes at once (`AllGather_XY`): `n` is the product of the axis sizes.
    Torus {
        /// The axes, each a ring (wraparound) or a line.
        axes: Vec<TorusAxis>,
        /// Bandwidth of one link in one direction.
        link: f64,
        /// Parallel links per neighbour and direction.
        links: f64,
    },
    /// A switched GPU node (NVLink domain): `n` of its `gpus` GPUs take part, each egressing
    /// `egress` bytes/s per direction into the switches.
    Node {
        /// GPUs taking part.
        n: f64,
        /// GPUs in the node (the NVLink domain: 8 for H100, 72 for GB200 NVL72).
        gpus: f64,
        /// Per-GPU egress bandwidth per direction (450e9 on H100, 900e9 on B200).
        egress: f64,
        /// In-network reduction (NVLink SHARP): an AllReduce costs `V/W` instead of `2V·(n−1)/(n·W)`.
        sharp: bool,
    },
    /// GPU nodes under leaf and spine switches (a fat tree): `n` is the product of the
    /// degrees. The bandwidth term is the book's `V·max_i (D_i − 1)/(D_i·W_i)`.
    Cluster {
        /// Levels from the node up (node, leaf, spine, ...).
        levels: Vec<Level>,
        /// In-network reduction (SHARP) on every level.
        sharp: bool,
        /// Size `Y` of an inner mesh axis the array is also sharded over (filling levels from
        /// the bottom); each level's bandwidth is multiplied by `max(Y, S_{i−1})/S_{i−1}` where
        /// `S_{i−1}` counts the GPUs below level `i` (gpus.md, "Reductions when array is sharded
        /// over a separate axis"). 1 for none.
        inner: f64,
    },
}

/// The topology ids of the URL (`ring`, `line`, `uniring`, `torus`, `node`, `cluster`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TopologyKind {
    /// [`Topology::Ring`].
    #[default]
    Ring,
    /// [`Topology::Line`].
    Line,
    /// [`Topology::UniRing`].
    UniRing,
    /// [`Topology::Torus`].
    Torus,
    /// [`Topology::Node`].
    Node,
    /// [`Topology::Cluster`].
    Cluster,
}

impl TopologyKind {
    /// Every kind, in form order.
    pub const ALL: [TopologyKind; 6] = [
        TopologyKind::Ring,
        TopologyKind::Line,
        TopologyKind::UniRing,
        TopologyKind::Torus,
        TopologyKind::Node,
        TopologyKind::Cluster,
    ];
    /// Every id, in form order.
    pub const IDS: [&'static str; 6] = ["ring", "line", "uniring", "torus", "node", "cluster"];

    /// The id.
    pub fn as_str(self) -> &'static str {
        Self::IDS[self as usize]
    }

    /// The parameters this topology reads, in form order: `n`, `link` (bytes/s per link per
    /// direction), `links` (parallel links), `axes` (torus sizes and wraparounds, see
    /// [`parse_axes`]), `gpus` (node size), `egress` (GPU egress per direction), `levels`
    /// (see [`parse_levels`]), `sharp`, `inner`.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            TopologyKind::Ring | TopologyKind::Line | TopologyKind::UniRing => {
                &["n", "link", "links"]
            }
            TopologyKind::Torus => &["axes", "link", "links"],
            TopologyKind::Node => &["n", "gpus", "egress", "sharp"],
            TopologyKind::Cluster => &["levels", "sharp", "inner"],
        }
    }

    /// A short description for forms.
    pub fn describe(self) -> &'static str {
        match self {
            TopologyKind::Ring => "bidirectional ring with wraparound (a full TPU axis)",
            TopologyKind::Line => "line without wraparound (TPU axis without wraparound links)",
            TopologyKind::UniRing => "unidirectional ring",
            TopologyKind::Torus => "several torus axes at once",
            TopologyKind::Node => "GPU node behind NVLink switches",
            TopologyKind::Cluster => "GPU nodes under leaf and spine switches",
        }
    }
}

impl std::fmt::Display for TopologyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TopologyKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let l = s.trim().to_ascii_lowercase();
        TopologyKind::ALL
            .into_iter()
            .find(|k| k.as_str() == l || (l == "uni-ring" && *k == TopologyKind::UniRing))
            .ok_or_else(|| parse_err(s, &format!("expected one of {}", Self::IDS.join(", "))))
    }
}

/// A topology and its per-hop latency: what a collective runs over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// The shape and bandwidths.
    pub topology: Topology,
    /// Seconds per hop (the book: "typically around 1us" on ICI), 0 for none.
    pub latency: f64,
}

impl Network {
    /// A network with no latency.
    pub fn new(topology: Topology) -> Self {
        Network {
            topology,
            latency: 0.0,
        }
    }

    /// The same network with `latency` seconds per hop.
    pub fn with_latency(mut self, latency: f64) -> Self {
        self.latency = latency;
        self
    }

    /// Checks every number; see [`Topology::validate`]. The latency must be from 0 to 1000 s.
    pub fn validate(&self) -> Result<(), Error> {
        check(
            "latency",
            self.latency,
            0.0,
            MAX_LATENCY,
            false,
            "a per-hop latency in seconds",
        )?;
        self.topology.validate()
    }
}

fn check_n(x: f64) -> Result<f64, Error> {
    check("n", x, 1.0, MAX_CHIPS, true, "a whole number of chips")
}

fn check_bw(field: &str, x: f64) -> Result<f64, Error> {
    check(field, x, 1.0, MAX_RATE, false, "a bandwidth in bytes/s")
}

fn check_links(x: f64) -> Result<f64, Error> {
    check("links", x, 1.0, MAX_LINKS, true, "a whole number of links")
}

impl Topology {
    /// A bidirectional ring of `n` chips with one link of `link` bytes/s per direction.
    pub fn ring(n: f64, link: f64) -> Self {
        Topology::Ring {
            n,
            link,
            links: 1.0,
        }
    }

    /// A line of `n` chips with one link of `link` bytes/s per direction.
    pub fn line(n: f64, link: f64) -> Self {
        Topology::Line {
            n,
            link,
            links: 1.0,
        }
    }

    /// A unidirectional ring of `n` chips with one link of `link` bytes/s.
    pub fn uniring(n: f64, link: f64) -> Self {
        Topology::UniRing {
            n,
            link,
            links: 1.0,
        }
    }

    /// Torus axes of the given sizes, all with wraparound (`wrap = true`) or none.
    pub fn torus(sizes: &[f64], wrap: bool, link: f64) -> Self {
        Topology::Torus {
            axes: sizes.iter().map(|&size| TorusAxis { size, wrap }).collect(),
            link,
            links: 1.0,
        }
    }

    /// A whole GPU node of `gpus` GPUs egressing `egress` bytes/s each, without SHARP.
    pub fn node(gpus: f64, egress: f64) -> Self {
        Topology::Node {
            n: gpus,
            gpus,
            egress,
            sharp: false,
        }
    }

    /// A cluster of `(degree, bandwidth)` levels from the node up, without SHARP.
    pub fn cluster(levels: &[(f64, f64)]) -> Self {
        Topology::Cluster {
            levels: levels
                .iter()
                .map(|&(degree, bandwidth)| Level { degree, bandwidth })
                .collect(),
            sharp: false,
            inner: 1.0,
        }
    }

    /// The kind (URL id).
    pub fn kind(&self) -> TopologyKind {
        match self {
            Topology::Ring { .. } => TopologyKind::Ring,
            Topology::Line { .. } => TopologyKind::Line,
            Topology::UniRing { .. } => TopologyKind::UniRing,
            Topology::Torus { .. } => TopologyKind::Torus,
            Topology::Node { .. } => TopologyKind::Node,
            Topology::Cluster { .. } => TopologyKind::Cluster,
        }
    }

    /// The chips taking part: `n`, the product of the torus axes or of the cluster degrees.
    /// Not validated: NaN stays NaN.
    pub fn chips(&self) -> f64 {
        match self {
            Topology::Ring { n, .. }
            | Topology::Line { n, .. }
            | Topology::UniRing { n, .. }
            | Topology::Node { n, .. } => *n,
            Topology::Torus { axes, .. } => axes.iter().map(|a| a.size).product(),
            Topology::Cluster { levels, .. } => levels.iter().map(|l| l.degree).product(),
        }
    }

    /// The same topology over `n` chips, for one-axis topologies (ring, line, uniring, node);
    /// `None` for a torus or a cluster, whose size follows from their axes or levels.
    pub fn with_chips(&self, n: f64) -> Option<Topology> {
        let mut t = self.clone();
        match &mut t {
            Topology::Ring { n: m, .. }
            | Topology::Line { n: m, .. }
            | Topology::UniRing { n: m, .. } => *m = n,
            Topology::Node { n: m, gpus, .. } => {
                *m = n;
                *gpus = gpus.max(n);
            }
            Topology::Torus { .. } | Topology::Cluster { .. } => return None,
        }
        Some(t)
    }

    /// Checks every number: whole chip counts from 1 to 1e9 (torus and cluster products too),
    /// bandwidths from 1 to 1e30 bytes/s, 1 to 1024 parallel links, 1 to 16 torus axes or
    /// cluster levels, a node's `n` no larger than its `gpus`, the inner axis from 1 to the
    /// cluster's size.
    pub fn validate(&self) -> Result<(), Error> {
        match self {
            Topology::Ring { n, link, links }
            | Topology::Line { n, link, links }
            | Topology::UniRing { n, link, links } => {
                check_n(*n)?;
                check_bw("link", *link)?;
                check_links(*links)?;
            }
            Topology::Torus { axes, link, links } => {
                if axes.is_empty() || axes.len() > 16 {
                    return Err(Error::InvalidField {
                        field: "axes".into(),
                        value: axes.len().to_string(),
                        reason: "a torus needs 1 to 16 axes, e.g. 4x4x4".into(),
                    });
                }
                for a in axes {
                    check(
                        "axes",
                        a.size,
                        1.0,
                        MAX_CHIPS,
                        true,
                        "a whole number of chips per axis",
                    )?;
                }
                check(
                    "n",
                    self.chips(),
                    1.0,
                    MAX_CHIPS,
                    true,
                    "a torus of a whole number of chips",
                )?;
                check_bw("link", *link)?;
                check_links(*links)?;
            }
            Topology::Node {
                n, gpus, egress, ..
            } => {
                check_n(*n)?;
                check(
                    "gpus",
                    *gpus,
                    1.0,
                    MAX_CHIPS,
                    true,
                    "a whole number of GPUs",
                )?;
                if n > gpus {
                    return Err(Error::InvalidField {
                        field: "n".into(),
                        value: format_exact(*n),
                        reason: format!(
                            "more GPUs than the node's {} (use topology=cluster to span nodes)",
                            format_exact(*gpus)
                        ),
                    });
                }
                check_bw("egress", *egress)?;
            }
            Topology::Cluster { levels, inner, .. } => {
                if levels.is_empty() || levels.len() > 16 {
                    return Err(Error::InvalidField {
                        field: "levels".into(),
                        value: levels.len().to_string(),
                        reason: "a cluster needs 1 to 16 levels, e.g. 8@450G/32@400G".into(),
                    });
                }
                for l in levels {
                    check(
                        "levels",
                        l.degree,
                        1.0,
                        MAX_CHIPS,
                        true,
                        "a whole number of children per level",
                    )?;
                    check_bw("levels", l.bandwidth)?;
                }
                let n = check(
                    "n",
                    self.chips(),
                    1.0,
                    MAX_CHIPS,
                    true,
                    "a cluster of a whole number of GPUs",
                )?;
                check("inner", *inner, 1.0, n, true, "a whole inner-axis size")?;
            }
        }
        Ok(())
    }
}

/// A torus's chips are the product of its axes: an `n` other than `default_n` that
/// contradicts them is refused (issue 24, point 3: `n=256` beside `axes=4x4` was computed as
/// 16 chips without a word). The default `n` is what a link that never names it holds, so
/// those links keep their meaning.
pub(crate) fn check_torus_chips(n: f64, default_n: f64, axes: &[f64]) -> Result<(), Error> {
    let product: f64 = axes.iter().product();
    if n == default_n || n == product {
        return Ok(());
    }
    let text: Vec<String> = axes.iter().map(|a| format_exact(*a)).collect();
    Err(Error::invalid(
        "n",
        format_exact(n),
        format!(
            "a torus's chips are the product of its axes ({} = {p}): set n to {p} or change the axes",
            text.join("x"),
            p = format_exact(product)
        ),
    ))
}

/// Reads torus axis sizes `4x4x4` (also `4,4`, `4*4`); wraparound follows `wrap(size, all)`
/// per axis, or a trailing `w` (`16w`) forces it and `n` (`4n`) forbids it.
///
/// ```
/// use roofline::collective::topology::parse_axes;
/// let a = parse_axes("8x16", |size, _| size == 16.0).unwrap();
/// assert_eq!((a[0].wrap, a[1].wrap), (false, true));
/// let b = parse_axes("4wx4n", |_, _| false).unwrap();
/// assert_eq!((b[0].wrap, b[1].wrap), (true, false));
/// assert!(parse_axes("4x0", |_, _| true).is_err());
/// ```
pub fn parse_axes(text: &str, wrap: impl Fn(f64, &[f64]) -> bool) -> Result<Vec<TorusAxis>, Error> {
    let t = text.trim();
    let parts: Vec<&str> = t.split(['x', 'X', '*', ',', '×']).map(str::trim).collect();
    if t.is_empty() || parts.len() > 16 {
        return Err(parse_err(text, "expected 1 to 16 axis sizes like 4x4x4"));
    }
    let mut sizes = Vec::with_capacity(parts.len());
    let mut forced = Vec::with_capacity(parts.len());
    for p in &parts {
        let (num, f) = if let Some(s) = p.strip_suffix(['w', 'W']) {
            (s, Some(true))
        } else if let Some(s) = p.strip_suffix(['n', 'N']) {
            (s, Some(false))
        } else {
            (*p, None)
        };
        let v: f64 = num.trim().parse().map_err(|_| {
            parse_err(
                text,
                "expected axis sizes like 4x4x4 (suffix w: wraparound, n: none)",
            )
        })?;
        check(
            "axes",
            v,
            1.0,
            MAX_CHIPS,
            true,
            "a whole number of chips per axis",
        )?;
        sizes.push(v);
        forced.push(f);
    }
    Ok(sizes
        .iter()
        .zip(forced)
        .map(|(&size, f)| TorusAxis {
            size,
            wrap: f.unwrap_or_else(|| wrap(size, &sizes)),
        })
        .collect())
}

/// Writes torus axes as [`parse_axes`] reads them, marking each wraparound explicitly
/// (`16wx8n`).
pub fn format_axes(axes: &[TorusAxis]) -> String {
    axes.iter()
        .map(|a| format!("{}{}", format_exact(a.size), if a.wrap { "w" } else { "n" }))
        .collect::<Vec<_>>()
        .join("x")
}

/// Reads cluster levels `8@450G/32@400G/4@12.8T` (degree `@` bandwidth per direction, from
/// the node up; `;` also separates levels).
///
/// ```
/// use roofline::collective::topology::parse_levels;
/// let l = parse_levels("8@450G/32@400G/4@12.8T").unwrap();
/// assert_eq!(l.len(), 3);
/// assert_eq!((l[2].degree, l[2].bandwidth), (4.0, 12.8e12));
/// assert!(parse_levels("8@").is_err());
/// ```
pub fn parse_levels(text: &str) -> Result<Vec<Level>, Error> {
    let t = text.trim();
    let parts: Vec<&str> = t.split(['/', ';']).map(str::trim).collect();
    if t.is_empty() || parts.len() > 16 {
        return Err(parse_err(
            text,
            "expected 1 to 16 levels like 8@450G/32@400G",
        ));
    }
    parts
        .iter()
        .map(|p| {
            let (d, w) = p.split_once('@').ok_or_else(|| {
                parse_err(
                    text,
                    "expected levels like 8@450G/32@400G (degree@bandwidth)",
                )
            })?;
            let degree: f64 = d.trim().parse().map_err(|_| {
                parse_err(text, "a level's degree must be a whole number, e.g. 8@450G")
            })?;
            let bandwidth = parse_quantity(w)?;
            check(
                "levels",
                degree,
                1.0,
                MAX_CHIPS,
                true,
                "a whole number of children per level",
            )?;
            check_bw("levels", bandwidth)?;
            Ok(Level { degree, bandwidth })
        })
        .collect()
}

/// Writes cluster levels as [`parse_levels`] reads them (lossless).
pub fn format_levels(levels: &[Level]) -> String {
    levels
        .iter()
        .map(|l| format!("{}@{}", format_exact(l.degree), format_exact(l.bandwidth)))
        .collect::<Vec<_>>()
        .join("/")
}
