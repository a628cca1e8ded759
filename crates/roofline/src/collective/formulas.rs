//! Over 600 lines on purpose: every collective on every topology is one table of formulas,
//! each with its passage of the book, kept side by side so they are checked against each other.
//!
//! The time of one collective: the book's formulas, exact for the given `n`, with the
//! large-`n` form the book's answers round to, and a per-hop latency.
//!
//! Bandwidth terms, `w = W_link · links` per direction (`W_ici = 2·w`), `E` the GPU egress:
//!
//! | topology | AllGather / ReduceScatter | AllReduce | AllToAll | hops (AG) |
//! | --- | --- | --- | --- | --- |
//! | ring | `⌊n/2⌋·V/(n·w)` → `V/W_ici` | `2×` | `⌊n/2⌋⌈n/2⌉·V/(n²·2w)` → `V/(4·W_ici)` | `⌊n/2⌋` |
//! | line | `(n−1)·V/(n·w)` → `V/w` | `2×` | `⌊n/2⌋⌈n/2⌉·V/(n²·w)` → `V/(4w)` | `n−1` |
//! | uniring | `(n−1)·V/(n·w)` | `2×` | `(n−1)·V/(2n·w)` (half an AllGather) | `n−1` |
//! | torus | `V / Σ_axes (V/T_axis)` → `V/(W_ici·N_axes)` | `2×` | `max_i ⌊n_i/2⌋⌈n_i/2⌉·V/(n_i·N·c_i·w)` → `V·max n_i/(4·N·W_ici)` | `Σ h_axis` |
//! | node | `(n−1)·V/(n·E)` → `V/E` | `2×`, SHARP: `V/E` | `(n−1)·V/(n²·E)` → `V/(n·E)` | `n−1` |
//! | cluster | `V·max_i (D_i−1)/(D_i·W_i)` | `2×`, SHARP: `V·max_i 1/W_i` | `(M−1)·V/(M²·W_node)` | `Σ (D_i−1)` |
//!
//! Two chips on a ring share one link, as in chapter 1's 2-chip example: the ring formulas
//! already count one link for gathers and reductions, and an AllToAll or a send over a ring of
//! 2 is that of a line of 2. A send goes to the farthest chip over every disjoint shortest
//! path, and its latency adds to its bandwidth term.

use super::topology::{Network, Topology};
use super::{check, CollectiveKind, CollectiveResult, Combine, MAX_BYTES};
use crate::error::Error;
use crate::units::{format_exact, format_quantity, Unit};

const SEC_RING_AG: &str =
    "sharding.md, Case 2, \"How long does this take?\" and \"A note on ICI latency\"";
const SEC_RING_AR: &str = "sharding.md, Case 3, \"How expensive is an AllReduce?\"";
const SEC_A2A: &str = "sharding.md, \"Our final communication primitive: the AllToAll\"";
const SEC_UNI: &str =
    "sharding.md, \"What Have We Learned?\" (unidirectional AllGather) and question 10";
const SEC_LINE: &str =
    "sharding.md, Pop Quiz 2 [AllGather time] (no wraparound: edge-to-edge hops); tpus.md, \"TPU Networking\"";
const SEC_TORUS: &str = "sharding.md, \"What happens when we AllGather over multiple axes?\"";
const SEC_NODE: &str = "gpus.md, \"Intra-node collectives\"";
const SEC_SHARP: &str = "gpus.md, \"In network reductions\"";
const SEC_CLUSTER: &str = "gpus.md, \"Cross-node collectives\" (the precise derivation)";
const SEC_INNER: &str = "gpus.md, \"Reductions when array is sharded over a separate axis\"";
const SEC_SEND: &str = "tpus.md, question 5 [ICI bandwidth]";

/// The `V`-independent part of a collective's time.
#[derive(Debug, Clone)]
pub(crate) struct Coeffs {
    pub kappa: f64,
    pub kappa_approx: f64,
    pub hops: f64,
    pub combine: Combine,
    pub formula: &'static str,
    pub formula_approx: &'static str,
    pub section: &'static str,
    pub lines: Vec<String>,
    /// Whether to build the derivation lines (off when scanning many sizes).
    explain: bool,
}

impl Coeffs {
    fn new(kappa: f64, kappa_approx: f64, hops: f64, explain: bool) -> Self {
        Coeffs {
            explain,
            kappa,
            kappa_approx,
            hops,
            combine: Combine::Max,
            formula: "",
            formula_approx: "",
            section: "",
            lines: Vec::new(),
        }
    }

    fn named(mut self, formula: &'static str, approx: &'static str, section: &'static str) -> Self {
        self.formula = formula;
        self.formula_approx = approx;
        self.section = section;
        self
    }

    fn line(mut self, s: impl FnOnce() -> String) -> Self {
        if self.explain {
            self.lines.push(s());
        }
        self
    }

    /// The AllReduce of this ReduceScatter/AllGather: twice the time and the hops.
    fn doubled(
        mut self,
        formula: &'static str,
        approx: &'static str,
        section: &'static str,
    ) -> Self {
        self.kappa *= 2.0;
        self.kappa_approx *= 2.0;
        self.hops *= 2.0;
        self.formula = formula;
        self.formula_approx = approx;
        self.section = section;
        self.line(|| {
            "AllReduce = ReduceScatter + AllGather: twice the bandwidth term and the hops".into()
        })
    }
}

fn fs(x: f64) -> String {
    format_quantity(x, Unit::Seconds)
}
fn fb(x: f64) -> String {
    format_quantity(x, Unit::Bytes)
}
fn fr(x: f64) -> String {
    format_quantity(x, Unit::ByteRate)
}
fn nn(x: f64) -> String {
    format_exact(x)
}

/// The time of a `kind` collective of an array of `bytes` (`V`, the whole array) over
/// `network`.
///
/// Errors (never panics) when `bytes` is negative, above 1e30 or not finite, or when the
/// network fails [`Network::validate`].
///
/// ```
/// use roofline::collective::{collective_time, CollectiveKind, Network, Topology};
/// // sharding.md, question 2: AllGather_X([B_X, D_Y]) on a TPU v4p 4x4x4, B=1024, D=4096,
/// // bf16: V = 2BD/Y over a full ring of 4 with 4.5e10 one-way: "23us".
/// let v = 2.0 * 1024.0 * 4096.0 / 4.0;
/// let net = Network::new(Topology::ring(4.0, 4.5e10)).with_latency(1e-6);
/// let r = collective_time(CollectiveKind::AllGather, v, &net).unwrap();
/// assert!((r.t_total - v / 9e10).abs() < 1e-15);
/// assert_eq!(r.hops, 2.0);
/// assert!(!r.latency_bound);
/// ```
pub fn collective_time(
    kind: CollectiveKind,
    bytes: f64,
    network: &Network,
) -> Result<CollectiveResult, Error> {
    check("bytes", bytes, 0.0, MAX_BYTES, false, "a size in bytes")?;
    network.validate()?;
    let c = coefficients(kind, &network.topology, true);
    let t_bandwidth = c.kappa * bytes;
    let t_bandwidth_approx = c.kappa_approx * bytes;
    let t_latency = c.hops * network.latency;
    let t_total = match c.combine {
        Combine::Max => t_bandwidth.max(t_latency),
        Combine::Sum => t_bandwidth + t_latency,
    };
    let knee_bytes = (c.kappa > 0.0 && t_latency > 0.0).then(|| t_latency / c.kappa);
    let latency_bound = t_latency > t_bandwidth;
    let chips = network.topology.chips();
    let mut derivation = vec![format!(
        "{} of V = {} ({} bytes) over {} chips: {}",
        kind.name(),
        fb(bytes),
        nn(bytes),
        nn(chips),
        describe(&network.topology)
    )];
    derivation.extend(c.lines);
    if c.kappa > 0.0 {
        derivation.push(format!(
            "Bandwidth: T = {} = {} (large-n form, as the book's ≈ answers: {} = {})",
            c.formula,
            fs(t_bandwidth),
            c.formula_approx,
            fs(t_bandwidth_approx)
        ));
    } else {
        derivation.push("Nothing to communicate: T = 0".into());
    }
    derivation.push(format!(
        "Latency: {} hops × {} = {}",
        nn(c.hops),
        fs(network.latency),
        fs(t_latency)
    ));
    derivation.push(match c.combine {
        Combine::Max => format!(
            "Each hop takes max(latency, bytes/bandwidth), so T = max({}, {}) = {}: {} (sharding.md, \"A note on ICI latency\")",
            fs(t_latency),
            fs(t_bandwidth),
            fs(t_total),
            if latency_bound { "latency-bound" } else { "bandwidth-bound" }
        ),
        Combine::Sum => format!(
            "A send is pipelined through the hops, so latency and bandwidth add: T = {} + {} = {}: {} (tpus.md, question 5)",
            fs(t_latency),
            fs(t_bandwidth),
            fs(t_total),
            if latency_bound { "latency dominates" } else { "bandwidth dominates" }
        ),
    });
    if let Some(k) = knee_bytes {
        derivation.push(format!(
            "Knee: the terms are equal at V = {} / {} per byte = {}; smaller arrays are latency-bound",
            fs(t_latency),
            format_quantity(c.kappa, Unit::Seconds),
            fb(k)
        ));
    }
    Ok(CollectiveResult {
        kind,
        bytes,
        chips,
        seconds_per_byte: c.kappa,
        t_bandwidth,
        t_bandwidth_approx,
        hops: c.hops,
        t_latency,
        t_total,
        combine: c.combine,
        latency_bound,
        knee_bytes,
        formula: c.formula,
        formula_approx: c.formula_approx,
        section: c.section,
        derivation,
    })
}

/// One line describing the topology with its numbers.
pub(crate) fn describe(t: &Topology) -> String {
    let links = |l: f64| {
        if l == 1.0 {
            String::new()
        } else {
            format!(" × {} parallel links", nn(l))
        }
    };
    match t {
        Topology::Ring { n, link, links: l } => format!(
            "a bidirectional ring of {} with wraparound, W_link = {} per direction{} (W_ici = {})",
            nn(*n),
            fr(*link),
            links(*l),
            fr(2.0 * link * l)
        ),
        Topology::Line { n, link, links: l } => format!(
            "a line of {} without wraparound, W_link = {} per direction{}",
            nn(*n),
            fr(*link),
            links(*l)
        ),
        Topology::UniRing { n, link, links: l } => format!(
            "a unidirectional ring of {}, W_link = {}{}",
            nn(*n),
            fr(*link),
            links(*l)
        ),
        Topology::Torus {
            axes,
            link,
            links: l,
        } => format!(
            "torus axes {}, W_link = {} per direction{}",
            axes.iter()
                .map(|a| format!(
                    "{}{}",
                    nn(a.size),
                    if a.wrap {
                        " (wraparound)"
                    } else {
                        " (no wraparound)"
                    }
                ))
                .collect::<Vec<_>>()
                .join(" × "),
            fr(*link),
            links(*l)
        ),
        Topology::Node {
            n,
            gpus,
            egress,
            sharp,
        } => format!(
            "{} of the {} GPUs of a switched node, GPU egress W = {} per direction{}",
            nn(*n),
            nn(*gpus),
            fr(*egress),
            if *sharp { ", with SHARP" } else { "" }
        ),
        Topology::Cluster {
            levels,
            sharp,
            inner,
        } => format!(
            "a cluster of levels {}{}{}",
            levels
                .iter()
                .map(|l| format!("D = {} at W = {}", nn(l.degree), fr(l.bandwidth)))
                .collect::<Vec<_>>()
                .join(", "),
            if *sharp { ", with SHARP" } else { "" },
            if *inner > 1.0 {
                format!(", array also sharded over an inner axis Y = {}", nn(*inner))
            } else {
                String::new()
            }
        ),
    }
}

/// The kinds of one-axis links.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Axis {
    Bi,
    Line,
    Uni,
}

/// Bandwidth coefficients of one axis of `n` chips at `w` bytes/s per direction. On a ring
/// of 2 (one link between the chips) an AllToAll or a send is that of a line of 2.
fn axis(kind: CollectiveKind, n: f64, w: f64, ax: Axis, x: bool) -> Coeffs {
    if n <= 1.0 {
        return Coeffs::new(0.0, 0.0, 0.0, x)
            .named("0", "0", SEC_RING_AG)
            .line(|| {
                "n = 1: the whole array is already on the one chip; nothing is communicated".into()
            });
    }
    let rs_ag = matches!(
        kind,
        CollectiveKind::AllGather | CollectiveKind::ReduceScatter | CollectiveKind::AllReduce
    );
    // Two chips on a "ring" share one link: the ⌊n/2⌋ formula already counts one link for
    // gathers and reductions; an AllToAll or a send is that of a line of 2.
    let ax = if ax == Axis::Bi && n == 2.0 && !rs_ag {
        Axis::Line
    } else {
        ax
    };
    let half = (n / 2.0).floor();
    let ceil_half = (n / 2.0).ceil();
    match (ax, kind) {
        (Axis::Bi, _) if rs_ag => {
            let c = Coeffs::new(half / (n * w), 1.0 / (2.0 * w), half, x)
                .named("⌊n/2⌋·V/(n·W_link)", "V/W_ici", SEC_RING_AG)
                .line(|| format!(
                    "Shards of V/n travel both ways round the ring: ⌊n/2⌋ = {} hops, each sending V/n per direction at W_link = {}",
                    nn(half),
                    fr(w)
                ));
            if kind == CollectiveKind::AllReduce {
                c.doubled("2·⌊n/2⌋·V/(n·W_link)", "2·V/W_ici", SEC_RING_AR)
            } else {
                c
            }
        }
        (Axis::Line, _) if rs_ag => {
            let c = Coeffs::new((n - 1.0) / (n * w), 1.0 / w, n - 1.0, x)
                .named("(n−1)·V/(n·W_link)", "V/W_link", SEC_LINE)
                .line(|| format!(
                    "No wraparound: the shards at the ends travel n − 1 = {} hops to the other end, V/n per hop at W_link = {} (twice a full ring's time)",
                    nn(n - 1.0),
                    fr(w)
                ));
            if kind == CollectiveKind::AllReduce {
                c.doubled("2·(n−1)·V/(n·W_link)", "2·V/W_link", SEC_RING_AR)
            } else {
                c
            }
        }
        (Axis::Uni, _) if rs_ag => {
            let c = Coeffs::new((n - 1.0) / (n * w), 1.0 / w, n - 1.0, x)
                .named("(n−1)·V/(n·W_link)", "V/W_link", SEC_UNI)
                .line(|| format!(
                    "One direction only: every shard passes n − 1 = {} links, V/n per hop at W_link = {}",
                    nn(n - 1.0),
                    fr(w)
                ));
            if kind == CollectiveKind::AllReduce {
                c.doubled("2·(n−1)·V/(n·W_link)", "2·V/W_link", SEC_RING_AR)
            } else {
                c
            }
        }
        (Axis::Bi, CollectiveKind::AllToAll) => Coeffs::new(
            half * ceil_half / (n * n * 2.0 * w),
            1.0 / (8.0 * w),
            half,
            x,
        )
        .named("⌊n/2⌋·⌈n/2⌉·V/(n²·W_ici)", "V/(4·W_ici)", SEC_A2A)
        .line(|| format!(
            "Each chip sends a V/n² piece to every other chip, at most ⌊n/2⌋ = {} hops away; the ⌊n/2⌋·⌈n/2⌉ pairs across a bisection share its 2 links each way (exact for even n: a quarter of an AllGather)",
            nn(half)
        )),
        (Axis::Line, CollectiveKind::AllToAll) => Coeffs::new(
            half * ceil_half / (n * n * w),
            1.0 / (4.0 * w),
            n - 1.0,
            x,
        )
        .named("⌊n/2⌋·⌈n/2⌉·V/(n²·W_link)", "V/(4·W_link)", SEC_A2A)
        .line(||
            "Each chip sends a V/n² piece to every other chip; the ⌊n/2⌋·⌈n/2⌉ pairs across the middle share its one link each way"
                .into(),
        ),
        (Axis::Uni, CollectiveKind::AllToAll) => Coeffs::new(
            (n - 1.0) / (2.0 * n * w),
            1.0 / (2.0 * w),
            n - 1.0,
            x,
        )
        .named("(n−1)·V/(2n·W_link)", "V/(2·W_link)", SEC_UNI)
        .line(||
            "Pieces of V/n² travel 1, 2, …, n − 1 hops: each link carries n(n − 1)/2 of them, half an AllGather's load (question 10, part 2)"
                .into(),
        ),
        (_, _) => {
            // Send to the farthest chip.
            let (hops, paths) = match ax {
                Axis::Bi => (half, if n % 2.0 == 0.0 { 2.0 } else { 1.0 }),
                Axis::Line | Axis::Uni => (n - 1.0, 1.0),
            };
            send(hops, paths, w, x)
        }
    }
}

fn send(hops: f64, paths: f64, w: f64, x: bool) -> Coeffs {
    let mut c = Coeffs::new(1.0 / (paths * w), 1.0 / (paths * w), hops, x)
        .named("V/(p·W_link)", "V/(p·W_link)", SEC_SEND)
        .line(|| {
            format!(
            "To the farthest chip, {} hops away, over p = {} disjoint shortest path{} at {} each",
            nn(hops),
            nn(paths),
            if paths == 1.0 { "" } else { "s" },
            fr(w)
        )
        });
    c.combine = Combine::Sum;
    c
}

/// The coefficients of a validated topology.
pub(crate) fn coefficients(kind: CollectiveKind, t: &Topology, x: bool) -> Coeffs {
    match t {
        Topology::Ring { n, link, links } => axis(kind, *n, link * links, Axis::Bi, x),
        Topology::Line { n, link, links } => axis(kind, *n, link * links, Axis::Line, x),
        Topology::UniRing { n, link, links } => axis(kind, *n, link * links, Axis::Uni, x),
        Topology::Torus { axes, link, links } => torus(kind, axes, link * links, x),
        Topology::Node {
            n, egress, sharp, ..
        } => node(kind, *n, *egress, *sharp, x),
        Topology::Cluster {
            levels,
            sharp,
            inner,
        } => cluster(kind, levels, *sharp, *inner, x),
    }
}

fn torus(kind: CollectiveKind, axes: &[super::TorusAxis], w: f64, x: bool) -> Coeffs {
    let live: Vec<_> = axes.iter().filter(|a| a.size > 1.0).collect();
    let big_n: f64 = axes.iter().map(|a| a.size).product();
    if live.is_empty() {
        return axis(kind, 1.0, w, Axis::Bi, x);
    }
    let ax = |wrap: bool| if wrap { Axis::Bi } else { Axis::Line };
    let hops_of = |s: f64, wrap: bool| {
        if wrap && s > 2.0 {
            (s / 2.0).floor()
        } else {
            s - 1.0
        }
    };
    let hops: f64 = live.iter().map(|a| hops_of(a.size, a.wrap)).sum();
    match kind {
        CollectiveKind::AllGather | CollectiveKind::ReduceScatter | CollectiveKind::AllReduce => {
            let base = if kind == CollectiveKind::AllReduce {
                CollectiveKind::AllGather
            } else {
                kind
            };
            let rate: f64 = live
                .iter()
                .map(|a| 1.0 / axis(base, a.size, w, ax(a.wrap), false).kappa)
                .sum();
            let rate_approx: f64 = live.iter().map(|a| if a.wrap { 2.0 * w } else { w }).sum();
            let c = Coeffs::new(1.0 / rate, 1.0 / rate_approx, hops, x)
                .named(
                    "V / Σ_axes (V/T_axis)",
                    "V/(W_ici·N_axes)",
                    SEC_TORUS,
                )
                .line(|| format!(
                    "All {} axes carry the array at once: their one-axis rates add to {} (the book: bandwidth × N_axes); hops add: Σ = {}",
                    live.len(),
                    fr(rate),
                    nn(hops)
                ));
            if kind == CollectiveKind::AllReduce {
                c.doubled("2·V / Σ_axes (V/T_axis)", "2·V/(W_ici·N_axes)", SEC_RING_AR)
            } else {
                c
            }
        }
        CollectiveKind::AllToAll => {
            let per = |a: &&super::TorusAxis| {
                let (s, c) = (a.size, if a.wrap && a.size > 2.0 { 2.0 } else { 1.0 });
                (s / 2.0).floor() * (s / 2.0).ceil() / (s * s) * s / (big_n * c * w)
            };
            let per_approx = |a: &&super::TorusAxis| {
                let c = if a.wrap && a.size > 2.0 { 2.0 } else { 1.0 };
                a.size / (4.0 * big_n * c * w)
            };
            let kappa = live.iter().map(per).fold(0.0, f64::max);
            let approx = live.iter().map(per_approx).fold(0.0, f64::max);
            Coeffs::new(kappa, approx, hops, x)
                .named(
                    "max_i ⌊n_i/2⌋⌈n_i/2⌉·V/(n_i·N·c_i·W_link)",
                    "V·max(n_i)/(4·N·W_ici)",
                    SEC_A2A,
                )
                .line(|| format!(
                    "Bisection: the narrowest cut is across the longest axis, crossed by N/n_i·c_i links each way (c_i = 2 with wraparound), N = {}",
                    nn(big_n)
                ))
        }
        CollectiveKind::Send => {
            let paths: f64 = live
                .iter()
                .map(|a| {
                    if a.wrap && a.size > 2.0 && a.size % 2.0 == 0.0 {
                        2.0
                    } else {
                        1.0
                    }
                })
                .sum();
            send(hops, paths, w, x)
        }
    }
}

fn node(kind: CollectiveKind, n: f64, e: f64, sharp: bool, x: bool) -> Coeffs {
    if n <= 1.0 {
        return axis(kind, 1.0, e, Axis::Bi, x);
    }
    let ring = || {
        Coeffs::new((n - 1.0) / (n * e), 1.0 / e, n - 1.0, x)
            .named("(n−1)·V/(n·W_GPU egress)", "V/W_GPU egress", SEC_NODE)
            .line(|| {
                format!(
                "A ring through the switches: n − 1 = {} turns, each GPU egressing V/n at W = {}",
                nn(n - 1.0),
                fr(e)
            )
            })
    };
    match kind {
        CollectiveKind::AllGather | CollectiveKind::ReduceScatter => ring(),
        CollectiveKind::AllReduce if sharp => Coeffs::new(1.0 / e, 1.0 / e, 2.0, x)
            .named("V/W_GPU egress", "V/W_GPU egress", SEC_SHARP)
            .line(||
                "SHARP: each GPU egresses V·(n−1)/n and then V/n, V bytes in all, and the switch reduces and multicasts (exact, no (n−1)/n factor); 2 hops (up and down)"
                    .into(),
            ),
        CollectiveKind::AllReduce => ring().doubled(
            "2·(n−1)·V/(n·W_GPU egress)",
            "2·V/W_GPU egress",
            SEC_NODE,
        ),
        CollectiveKind::AllToAll => Coeffs::new((n - 1.0) / (n * n * e), 1.0 / (n * e), 1.0, x)
            .named("(n−1)·V/(n²·W_GPU egress)", "V/(n·W_GPU egress)", SEC_NODE)
            .line(||
                "All-to-all connectivity: each GPU sends V/n² straight to each of the n − 1 others, 1 hop"
                    .into(),
            ),
        CollectiveKind::Send => {
            let mut c = Coeffs::new(1.0 / e, 1.0 / e, 1.0, x)
                .named("V/W_GPU egress", "V/W_GPU egress", SEC_SEND)
                .line(|| format!("One hop through the switch at the GPU's egress {}", fr(e)));
            c.combine = Combine::Sum;
            c
        }
    }
}

/// The level of a cluster whose bandwidth binds the collective `kind` (0: the node's scale-up
/// links; 1 and above: the network), by the same terms [`cluster`] takes the maximum of (the
/// lowest level on a tie); `None` for any other topology or a cluster of one GPU.
pub fn cluster_binding_level(kind: CollectiveKind, t: &Topology) -> Option<usize> {
    let Topology::Cluster {
        levels,
        sharp,
        inner,
    } = t
    else {
        return None;
    };
    let n: f64 = levels.iter().map(|l| l.degree).product();
    if n <= 1.0 {
        return None;
    }
    let top = levels.iter().rposition(|l| l.degree > 1.0).unwrap_or(0);
    let argmax = |term: &dyn Fn(f64, f64) -> f64| {
        let mut below = 1.0;
        let mut best: Option<(usize, f64)> = None;
        for (i, l) in levels.iter().enumerate() {
            let w = l.bandwidth * inner.max(below) / below;
            below *= l.degree;
            if l.degree > 1.0 {
                let k = term(l.degree, w);
                if best.is_none_or(|(_, b)| k > b) {
                    best = Some((i, k));
                }
            }
        }
        best.map(|(i, _)| i)
    };
    match kind {
        CollectiveKind::AllGather | CollectiveKind::ReduceScatter => {
            argmax(&|d, w| (d - 1.0) / (d * w))
        }
        CollectiveKind::AllReduce if *sharp => argmax(&|_, w| 1.0 / w),
        CollectiveKind::AllReduce => argmax(&|d, w| (d - 1.0) / (d * w)),
        CollectiveKind::AllToAll => Some(if n / levels[0].degree <= 1.0 { 0 } else { 1 }),
        CollectiveKind::Send => Some(if top == 0 { 0 } else { 1 }),
    }
}

fn cluster(
    kind: CollectiveKind,
    levels: &[super::Level],
    sharp: bool,
    inner: f64,
    x: bool,
) -> Coeffs {
    let n: f64 = levels.iter().map(|l| l.degree).product();
    if n <= 1.0 {
        return axis(kind, 1.0, 1.0, Axis::Bi, x);
    }
    // S_{i-1}: GPUs below level i; the inner axis multiplies level i's bandwidth by
    // max(Y, S_{i-1})/S_{i-1}; its X-degree is the number of children holding distinct X ranks.
    let mut below = 1.0;
    let mut eff = Vec::with_capacity(levels.len());
    let mut hops = 0.0;
    for l in levels {
        let f = inner.max(below) / below;
        let above = below * l.degree;
        let dx = l.degree * below / below.max(inner.min(above));
        eff.push((l.degree, l.bandwidth * f));
        hops += (dx - 1.0).max(0.0);
        below = above;
    }
    let inner_note = |c: Coeffs| {
        if inner > 1.0 {
            let mut c = c.line(|| {
                format!(
                    "Inner axis Y = {}: level i's bandwidth × max(Y, S_(i−1))/S_(i−1) ({})",
                    nn(inner),
                    SEC_INNER
                )
            });
            c.section = SEC_INNER;
            c
        } else {
            c
        }
    };
    let live = || eff.iter().filter(|(d, _)| *d > 1.0);
    let top = levels.iter().rposition(|l| l.degree > 1.0).unwrap_or(0);
    let (ag, ag_approx) = live().fold((0.0f64, 0.0f64), |(k, a), &(d, w)| {
        (k.max((d - 1.0) / (d * w)), a.max(1.0 / w))
    });
    let per_level = || {
        eff.iter()
            .map(|(d, w)| {
                if *d > 1.0 {
                    format!(
                        "({}−1)/({}·{}) → {}",
                        nn(*d),
                        nn(*d),
                        fr(*w),
                        fr(d * w / (d - 1.0))
                    )
                } else {
                    format!("D = 1 at {} (no traffic)", fr(*w))
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let ring = || {
        inner_note(
            Coeffs::new(ag, ag_approx, hops, x)
                .named(
                    "V·max_i (D_i−1)/(D_i·W_i)",
                    "V/min_i W_i",
                    SEC_CLUSTER,
                )
                .line(|| format!(
                    "A ring reduction at every level, overlapped: the slowest level binds. Per level (D_i−1)/(D_i·W_i), collective bandwidth D_i·W_i/(D_i−1): {}",
                    per_level()
                ))
                .line(|| format!(
                    "Hops: the levels' rings in turn, Σ (D_i − 1) = {}",
                    nn(hops)
                )),
        )
    };
    match kind {
        CollectiveKind::AllGather | CollectiveKind::ReduceScatter => ring(),
        CollectiveKind::AllReduce if sharp => {
            let k = live().fold(0.0f64, |k, &(_, w)| k.max(1.0 / w));
            let ups = live().count() as f64;
            inner_note(
                Coeffs::new(k, k, 2.0 * ups, x)
                    .named("V·max_i 1/W_i", "V/min_i W_i", SEC_SHARP)
                    .line(||
                        "SHARP: the switches reduce and multicast, so each level carries V once, without the (D−1)/D factor; hops up and down the tree"
                            .into(),
                    ),
            )
        }
        CollectiveKind::AllReduce => {
            ring().doubled("2·V·max_i (D_i−1)/(D_i·W_i)", "2·V/min_i W_i", SEC_CLUSTER)
        }
        CollectiveKind::AllToAll => {
            let d0 = levels[0].degree;
            let m = n / d0;
            let hops = if top == 0 {
                1.0
            } else {
                2.0 * top as f64 - 1.0
            };
            if m <= 1.0 {
                let w = levels[0].bandwidth;
                Coeffs::new((d0 - 1.0) / (d0 * d0 * w), 1.0 / (d0 * w), 1.0, x)
                    .named("(n−1)·V/(n²·W_GPU egress)", "V/(n·W_GPU egress)", SEC_NODE)
                    .line(|| "Within one node: every GPU sends straight to every other".into())
            } else {
                let w = levels[1].bandwidth;
                Coeffs::new((m - 1.0) / (m * m * w), 1.0 / (m * w), hops, x)
                    .named("(M−1)·V/(M²·W_node egress)", "V/(M·W_node egress)", SEC_CLUSTER)
                    .line(|| format!(
                        "Across M = {} nodes an AllToAll is not hierarchical: each node egresses (M−1)/M² of V at W_node = {}",
                        nn(m),
                        fr(w)
                    ))
            }
        }
        CollectiveKind::Send => {
            if top == 0 {
                node(CollectiveKind::Send, 2.0, levels[0].bandwidth, false, x)
            } else {
                let nic = levels[1].bandwidth / levels[0].degree;
                let w = levels[2..=top]
                    .iter()
                    .map(|l| l.bandwidth)
                    .fold(nic, f64::min);
                let mut c = Coeffs::new(1.0 / w, 1.0 / w, 2.0 * top as f64 - 1.0, x)
                    .named("V/W_NIC", "V/W_NIC", SEC_SEND)
                    .line(|| {
                        format!(
                        "Across the top level: the GPU's share of its node's egress, W_1/D_0 = {}",
                        fr(w)
                    )
                    });
                c.combine = Combine::Sum;
                c
            }
        }
    }
}
