use super::behavior::{coef_str, n, MeasureKind, OpBehavior, Traits};
use crate::chip::Chip;
use crate::dtype::DType;
use crate::error::Error;
use crate::eval::{Cost, Tiled};
use crate::field::{choice, dtype, integer, opt_dtype, opt_integer, size, CHIPS, MAX_DIM, SIZES};
use crate::resource::Resource;
use serde::{Deserialize, Serialize};

id_enum! {
    /// Which dimension a sharded matmul is split along (ids `d`, `b`, `f`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Split {
        /// Split the contracting dimension D: partial sums are all-reduced over the link.
        #[default]
        D = "d",
        /// Split the batch B: each chip holds the full weights, no communication.
        B = "b",
        /// Split the output dimension F: each chip holds W[D,F/n], no communication.
        F = "f",
    }
}

id_enum! {
    /// The link a sharded matmul communicates over (ids `ici`, `nvlink`, `pcie`, `dcn`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum Link {
        /// TPU ICI: [`Chip::peer_bandwidth`].
        #[default]
        Ici = "ici",
        /// NVLink: [`Chip::peer_bandwidth`].
        Nvlink = "nvlink",
        /// The host link: `chip.pcie`.
        Pcie = "pcie",
        /// The data-center network: `chip.dcn`.
        Dcn = "dcn",
    }
}

id_enum! {
    /// How the chips of a matmul sharded along D are connected for the all-reduce of the
    /// partial sums (ids `uniring`, `ring`, `line`), each link at the `link`'s bandwidth per
    /// direction.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum AllReduceTopology {
        /// A unidirectional ring (the default, and the only model before the `topology` key):
        /// `2·(n−1)/n·s_out·B·F` bytes per chip at the link bandwidth. Also a line's bandwidth
        /// term, and NCCL's ring through NVLink switches (gpus.md: `2·(n−1)·V/(n·W)`).
        #[default]
        UniRing = "uniring",
        /// A bidirectional ring with wraparound (a full TPU axis, the book's Case 3:
        /// `2·V/W_ici` with `W_ici` twice the one-way link): `2·⌊n/2⌋/n·s_out·B·F` bytes per
        /// link direction, half the unidirectional ring's for large even n.
        Ring = "ring",
        /// A line without wraparound: `2·(n−1)/n·s_out·B·F`, as the unidirectional ring.
        Line = "line",
    }
}

id_enum! {
    /// Where the weights are read from (ids `hbm`, `onchip`, `pcie`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
    pub enum WeightSource {
        /// HBM (the default).
        #[default]
        Hbm = "hbm",
        /// On-chip memory (VMEM): `chip.onchip` bandwidth.
        Onchip = "onchip",
        /// Host memory over PCIe: `chip.pcie` bandwidth.
        Pcie = "pcie",
    }
}

/// The error for a bandwidth `chip` lacks (`what`, in chip field `field`).
fn missing_bw(chip: &Chip, what: &str, field: &str) -> Error {
    Error::MissingResource {
        what: what.into(),
        field: field.into(),
        chip: chip.name.clone(),
    }
}

impl Link {
    /// The resource its traffic is accounted to.
    pub fn resource(self) -> Resource {
        match self {
            Link::Ici => Resource::Ici,
            Link::Nvlink => Resource::Nvlink,
            Link::Pcie => Resource::Pcie,
            Link::Dcn => Resource::Dcn,
        }
    }

    /// The bandwidth per direction this link gives a chip; errors when the chip lacks it.
    pub fn bandwidth(self, chip: &Chip) -> Result<f64, Error> {
        let missing = |what: &str, field: &str| missing_bw(chip, what, field);
        match self {
            Link::Ici | Link::Nvlink => chip.peer_bandwidth().ok_or_else(|| {
                if chip.ici.is_none() {
                    missing("ICI/NVLink bandwidth", "ici")
                } else {
                    missing("NVLink link count", "links")
                }
            }),
            Link::Pcie => chip.pcie.ok_or_else(|| missing("PCIe bandwidth", "pcie")),
            Link::Dcn => chip.dcn.ok_or_else(|| missing("DCN bandwidth", "dcn")),
        }
    }
}

impl WeightSource {
    /// The resource the weight bytes are accounted to.
    pub fn resource(self) -> Resource {
        match self {
            WeightSource::Hbm => Resource::Hbm,
            WeightSource::Onchip => Resource::Onchip,
            WeightSource::Pcie => Resource::Pcie,
        }
    }

    /// The bandwidth the weights stream at; errors when the chip lacks it.
    pub fn bandwidth(self, chip: &Chip) -> Result<f64, Error> {
        let missing = |what: &str, field: &str| missing_bw(chip, what, field);
        match self {
            WeightSource::Hbm => Ok(chip.hbm),
            WeightSource::Onchip => chip
                .onchip
                .ok_or_else(|| missing("on-chip memory bandwidth", "onchip")),
            WeightSource::Pcie => chip.pcie.ok_or_else(|| missing("PCIe bandwidth", "pcie")),
        }
    }
}

/// Matrix multiplication `X[B,D] · W[D,F] → Z[B,F]`, optionally sharded over `shards` chips.
///
/// Per chip, with local dims `B_l, D_l, F_l` (the split dimension divided by `n = shards`):
///
/// * FLOPs = `2·B_l·D_l·F_l` (= `2·B·D·F / n`)
/// * HBM bytes = `s_x·B_l·D_l + s_w·D_l·F_l + s_out·B_l·F_l`; with `from = onchip|pcie` the
///   weight term `s_w·D_l·F_l` moves to that resource (PCIe example, v6e, bf16 weights:
///   compute-bound iff `B > 9.2e14·2 / (2·1.6e10) = 57,500`)
/// * split `d` with `n > 1`: each chip computes a partial sum `Z[B,F]`, all-reduced over the
///   link: `2·(n−1)/n · s_out·B·F` bytes per chip (n = 2, bf16: `2·B·F`; compute-bound iff
///   `D/2 > 1.97e14 / 4.5e10`, i.e. `D > 8755`)
/// * intensity vs HBM ≈ `2·B/s_w` (bf16 weights: ≈ B; int8 weights: ≈ 2B)
///
/// The compute dtype defaults to [`DType::compute_default`]`(x, w)`: int8×int8 → int8,
/// fp8×fp8 → fp8, otherwise the wider input (bf16 × int8 → bf16).
///
/// `tiles = (bm, bk, bn)` adds the scaling book's tiling footnote as extra information:
/// tiled bytes `tm·tn·(tk·(s_x·bm·bk + s_w·bk·bn) + 2·s_out·bm·bn)` with `tm = B_l/bm`,
/// `tk = D_l/bk`, `tn = F_l/bn`, and intensity ≈ `bm·bn/(bm+bn)` in bf16.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Matmul {
    /// Batch (tokens per replica) `B`.
    pub b: f64,
    /// Contracting dimension `D`.
    pub d: f64,
    /// Output dimension `F`.
    pub f: f64,
    /// Activation dtype of `X`.
    pub x: DType,
    /// Weight dtype of `W`.
    pub w: DType,
    /// Output dtype of `Z`.
    pub out: DType,
    /// Compute dtype; `None` = the default rule of `x × w`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute: Option<DType>,
    /// Number of chips `n` the matmul is sharded over.
    pub shards: f64,
    /// The dimension split across chips.
    pub split: Split,
    /// The link partial sums travel over.
    pub link: Link,
    /// How the chips are connected for the all-reduce (default: a unidirectional ring).
    pub topology: AllReduceTopology,
    /// Where the weights are read from.
    pub from: WeightSource,
    /// Tile sizes `(bm, bk, bn)` for the tiling footnote, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiles: Option<(f64, f64, f64)>,
}

impl Default for Matmul {
    fn default() -> Self {
        Matmul {
            b: 1.0,
            d: 4096.0,
            f: 4096.0,
            x: DType::Bf16,
            w: DType::Bf16,
            out: DType::Bf16,
            compute: None,
            shards: 1.0,
            split: Split::D,
            link: Link::Ici,
            topology: AllReduceTopology::UniRing,
            from: WeightSource::Hbm,
            tiles: None,
        }
    }
}

const DEFAULT_TILE: f64 = 512.0;

impl Matmul {
    /// The compute dtype: `compute`, or [`DType::compute_default`]`(x, w)`.
    pub fn compute_dtype(&self) -> DType {
        self.compute
            .unwrap_or_else(|| DType::compute_default(self.x, self.w))
    }

    fn sharded(&self) -> bool {
        self.shards > 1.0
    }

    /// Per-chip dims `(B_l, D_l, F_l)`.
    pub fn local_dims(&self) -> (f64, f64, f64) {
        let n = self.shards;
        match (self.sharded(), self.split) {
            (false, _) => (self.b, self.d, self.f),
            (true, Split::B) => (self.b / n, self.d, self.f),
            (true, Split::D) => (self.b, self.d / n, self.f),
            (true, Split::F) => (self.b, self.d, self.f / n),
        }
    }

    fn has_link(&self) -> bool {
        self.sharded() && self.split == Split::D
    }

    /// Bytes per chip and link direction of the all-reduce, per byte of `Z[B,F]`: `2·(n−1)/n`
    /// on a unidirectional ring or a line, `2·⌊n/2⌋/n` on a bidirectional ring (sharding.md,
    /// Case 3: `T = 2·V/W_ici`, the collectives core's ring formula `2·⌊n/2⌋·V/(n·W_link)`).
    pub fn link_factor(&self) -> f64 {
        let n = self.shards;
        match self.topology {
            AllReduceTopology::UniRing | AllReduceTopology::Line => 2.0 * (n - 1.0) / n,
            AllReduceTopology::Ring => 2.0 * (n / 2.0).floor() / n,
        }
    }

    /// Bytes per chip over the link: `2·(n−1)/n · s_out·B·F` (split `d`, unidirectional ring
    /// or line; `2·⌊n/2⌋/n · s_out·B·F` on a ring), else 0.
    pub fn link_bytes(&self) -> f64 {
        if !self.has_link() {
            return 0.0;
        }
        match self.topology {
            // The published formula, evaluated exactly as before the `topology` key.
            AllReduceTopology::UniRing | AllReduceTopology::Line => {
                2.0 * (self.shards - 1.0) / self.shards * self.out.bytes() * self.b * self.f
            }
            AllReduceTopology::Ring => self.link_factor() * self.out.bytes() * self.b * self.f,
        }
    }

    fn link_formula(&self) -> (&'static str, String) {
        let nn = n(self.shards);
        match self.topology {
            AllReduceTopology::UniRing | AllReduceTopology::Line => {
                ("2·(n−1)/n", format!("2·({nn}−1)/{nn}"))
            }
            AllReduceTopology::Ring => ("2·⌊n/2⌋/n", format!("2·⌊{nn}/2⌋/{nn}")),
        }
    }

    /// Tile size `i` (0: bm, 1: bk, 2: bn), when tiles are set.
    fn tile(&self, i: usize) -> Option<f64> {
        self.tiles.map(|t| [t.0, t.1, t.2][i])
    }

    /// Sets tile size `i`; the other two default to 512 when no tiles were set.
    fn set_tile(&mut self, i: usize, x: f64) {
        let mut t = self
            .tiles
            .unwrap_or((DEFAULT_TILE, DEFAULT_TILE, DEFAULT_TILE));
        match i {
            0 => t.0 = x,
            1 => t.1 = x,
            _ => t.2 = x,
        }
        self.tiles = Some(t);
    }

    fn clear_tiles(&mut self) {
        self.tiles = None;
    }

    fn syms(&self) -> (&'static str, &'static str, &'static str) {
        match (self.sharded(), self.split) {
            (false, _) => ("B", "D", "F"),
            (true, Split::B) => ("(B/n)", "D", "F"),
            (true, Split::D) => ("B", "(D/n)", "F"),
            (true, Split::F) => ("B", "D", "(F/n)"),
        }
    }
}

impl OpBehavior for Matmul {
    op_fields! {
        "b" => num(b): size(
            "B",
            "1",
            "batch B (tokens per replica): FLOPs 2·B·D·F, intensity ≈ B in bf16",
        ).slider(SIZES),
        "d" => num(d): size("D", "4096", "contracting dimension D").slider(SIZES),
        "f" => num(f): size("F", "4096", "output dimension F").slider(SIZES),
        "x" => dtype(x): dtype("x dtype", "bf16", "activations X[B,D]: s_x·B·D bytes"),
        "w" => dtype(w): dtype("w dtype", "bf16", "weights W[D,F]: s_w·D·F bytes"),
        "out" => dtype(out): dtype("out dtype", "bf16", "output Z[B,F]: s_out·B·F bytes written").folds(),
        "compute" => opt_dtype(compute): opt_dtype(
            "compute dtype",
            "auto",
            "a dtype or auto",
            "dtype whose peak the FLOPs run at; auto: int8×int8 → int8, fp8×fp8 → fp8, else the wider input",
        ).folds(),
        "shards" => num(shards): integer(
            "chips",
            "1",
            (1.0, 1e6),
            "a whole number of chips",
            "number of chips n the matmul is split over: per-chip FLOPs 2·B·D·F/n",
        ).slider(CHIPS),
        "split" => choice(split): choice(
            "split along",
            Split::IDS,
            "d",
            "d: partial sums all-reduced over the link (2·(n−1)/n·s_out·B·F bytes); b or f: no communication",
            "a dimension",
        ).folds(),
        "link" => choice(link): choice(
            "link",
            Link::IDS,
            "ici",
            "link for the all-reduce: ici/nvlink use the peer bandwidth, pcie the host link, dcn the network",
            "a link",
        ).folds(),
        "topology" => choice(topology): choice(
            "all-reduce topology",
            AllReduceTopology::IDS,
            "uniring",
            "how the n chips connect for the all-reduce: uniring (one direction, 2·(n−1)/n·s_out·B·F), ring (both directions with wraparound, 2·⌊n/2⌋/n·s_out·B·F: the book's Case 3) or line (2·(n−1)/n·s_out·B·F)",
            "a topology",
        ).folds(),
        "from" => choice(from): choice(
            "weights from",
            WeightSource::IDS,
            "hbm",
            "where the s_w·D·F weight bytes come from: hbm, onchip (VMEM) or pcie (host)",
            "a weight source",
        ).folds(),
        "bm" => opt_num(tile, set_tile, clear_tiles, 0): opt_integer(
            "tile bm",
            "off",
            (1.0, MAX_DIM),
            "a positive tile size",
            "tile rows bm (off = no tiling): tiled intensity ≈ bm·bn/(bm+bn)",
        ).folds(),
        "bk" => opt_num(tile, set_tile, clear_tiles, 1): opt_integer(
            "tile bk",
            "off",
            (1.0, MAX_DIM),
            "a positive tile size",
            "tile depth bk (off = no tiling)",
        ).folds(),
        "bn" => opt_num(tile, set_tile, clear_tiles, 2): opt_integer(
            "tile bn",
            "off",
            (1.0, MAX_DIM),
            "a positive tile size",
            "tile columns bn (off = no tiling)",
        ).folds(),
    }
    fn is_affine(&self, key: &str) -> bool {
        key != "shards"
    }
    fn traits(&self) -> Traits {
        Traits {
            comm_curves: self.shards > 1.0,
            ..Traits::default()
        }
    }
    fn workload(&self) -> Option<MeasureKind> {
        Some(MeasureKind::Gemm)
    }
    fn cost(&self, chip: &Chip) -> Result<Cost, Error> {
        let (bl, dl, fl) = self.local_dims();
        let (sx, sw, so) = (self.x.bytes(), self.w.bytes(), self.out.bytes());
        let xb = sx * bl * dl;
        let wb = sw * dl * fl;
        let zb = so * bl * fl;
        let mut c = Cost::at_peak(2.0 * bl * dl * fl, self.compute_dtype(), chip)?;
        let w_bw = self.from.bandwidth(chip)?;
        if self.from == WeightSource::Hbm {
            c.push(Resource::Hbm, xb + wb + zb, chip.hbm);
            c.memory = xb + wb + zb;
        } else {
            c.push(Resource::Hbm, xb + zb, chip.hbm);
            c.push(self.from.resource(), wb, w_bw);
            c.memory = xb + zb;
        }
        if self.has_link() {
            let bw = self.link.bandwidth(chip)?;
            c.push(self.link.resource(), self.link_bytes(), bw);
        }
        c.bytes_read = xb + wb;
        c.bytes_written = zb;
        Ok(c)
    }
    fn critical_dim(&self) -> Option<&'static str> {
        Some(if self.has_link() { "d" } else { "b" })
    }
    fn approx_critical(&self, binding: Resource, peak_eff: f64, bw: f64) -> Option<f64> {
        if self.has_link() {
            // T_math = 2·B·D·F/(n·peak) against f·s_out·B·F/bw: D > n·f·s_out·peak/(2·bw)
            // ((n−1)·s_out·peak/bw on a unidirectional ring).
            let per = match self.topology {
                AllReduceTopology::UniRing | AllReduceTopology::Line => self.shards - 1.0,
                AllReduceTopology::Ring => self.shards * self.link_factor() / 2.0,
            };
            (binding == self.link.resource()).then(|| per * self.out.bytes() * peak_eff / bw)
        } else {
            let per = if self.sharded() && self.split == Split::B {
                self.shards
            } else {
                1.0
            };
            (binding == self.from.resource()).then(|| per * self.w.bytes() * peak_eff / (2.0 * bw))
        }
    }
    fn approx_intensity(&self, binding: Resource, conv: f64) -> Option<(f64, String)> {
        let link_res = self.has_link().then(|| self.link.resource());
        if link_res == Some(binding) {
            if binding == self.from.resource() {
                return None;
            }
            let per = match self.topology {
                AllReduceTopology::UniRing | AllReduceTopology::Line => self.shards - 1.0,
                AllReduceTopology::Ring => self.shards * self.link_factor() / 2.0,
            };
            let c = conv / (per * self.out.bytes());
            return Some((c * self.d, format!("= {}", coef_str(c, "D"))));
        }
        if binding == self.from.resource() {
            let c = conv * 2.0 / self.w.bytes();
            let (bl, _, _) = self.local_dims();
            let var = if self.sharded() && self.split == Split::B {
                "(B/n)"
            } else {
                "B"
            };
            return Some((c * bl, format!("≈ {}", coef_str(c, var))));
        }
        None
    }
    fn tiled(&self, conv: f64) -> Option<Tiled> {
        let (bm, bk, bn) = self.tiles?;
        let (m, k, nn) = self.local_dims();
        let (sx, sw, so) = (self.x.bytes(), self.w.bytes(), self.out.bytes());
        let (tm, tk, tn) = (m / bm, k / bk, nn / bn);
        let flops = 2.0 * m * k * nn;
        let bytes = tm * tn * (tk * (sx * bm * bk + sw * bk * bn) + 2.0 * so * bm * bn);
        Some(Tiled {
            bm,
            bk,
            bn,
            flops: conv * flops,
            bytes,
            intensity: conv * flops / bytes,
            approx_intensity: conv * 2.0 * bm * bn / (sx * bm + sw * bn),
        })
    }
    fn describe(&self) -> String {
        let (b, d, f) = (n(self.b), n(self.d), n(self.f));
        let mut s = format!(
            "{}[{b},{d}]·{}[{d},{f}] → {}[{b},{f}]",
            self.x.as_str(),
            self.w.as_str(),
            self.out.as_str()
        );
        if self.sharded() {
            s.push_str(&format!(
                " on {} chips split along {}",
                n(self.shards),
                self.split.as_str().to_ascii_uppercase()
            ));
        }
        s
    }
    fn flops_formula(&self) -> (String, String) {
        let (b, d, f) = self.syms();
        let (bl, dl, fl) = self.local_dims();
        (
            format!("2·{b}·{d}·{f}"),
            format!("2·{}·{}·{}", n(bl), n(dl), n(fl)),
        )
    }
    fn bytes_formula(&self, r: Resource) -> Option<(String, String)> {
        let (b, d, f) = self.syms();
        let (bl, dl, fl) = self.local_dims();
        let (sx, sw, so) = (n(self.x.bytes()), n(self.w.bytes()), n(self.out.bytes()));
        let mut sym = Vec::new();
        let mut sub = Vec::new();
        if r == Resource::Hbm {
            sym.push(format!("{sx}·{b}·{d}"));
            sub.push(format!("{sx}·{}·{}", n(bl), n(dl)));
        }
        if r == self.from.resource() {
            sym.push(format!("{sw}·{d}·{f}"));
            sub.push(format!("{sw}·{}·{}", n(dl), n(fl)));
        }
        if r == Resource::Hbm {
            sym.push(format!("{so}·{b}·{f}"));
            sub.push(format!("{so}·{}·{}", n(bl), n(fl)));
        }
        if self.has_link() && r == self.link.resource() {
            let (fs, fsub) = self.link_formula();
            sym.push(format!("{fs}·{so}·B·F"));
            sub.push(format!("{fsub}·{so}·{}·{}", n(self.b), n(self.f)));
        }
        (!sym.is_empty()).then(|| (sym.join(" + "), sub.join(" + ")))
    }
    fn notes(&self, chip: &str, out: &mut Vec<String>) {
        let cd = self.compute_dtype();
        out.push(match self.compute {
            Some(_) => format!("Compute dtype {cd} (set explicitly)."),
            None => format!(
                "Compute dtype {cd} (default for {} × {}: int8×int8 → int8, fp8×fp8 → fp8, else the wider input).",
                self.x, self.w
            ),
        });
        if self.sharded() {
            let nn = n(self.shards);
            out.push(match self.split {
                Split::D => format!(
                    "Sharded over n = {nn} chips along D: each chip holds X[B,D/n] and W[D/n,F] and computes a \
                     partial sum Z[B,F]; the partial sums are all-reduced over {} ({}): {}·s_out·B·F bytes \
                     per chip and link direction (per-chip values below; the critical dimension becomes D, not B).",
                    self.link.as_str().to_ascii_uppercase(),
                    match self.topology {
                        AllReduceTopology::UniRing => "a unidirectional ring",
                        AllReduceTopology::Ring =>
                            "a bidirectional ring with wraparound, sharding.md Case 3: T = 2·V/W_ici",
                        AllReduceTopology::Line => "a line without wraparound",
                    },
                    self.link_formula().0
                ),
                Split::B => format!(
                    "Sharded over n = {nn} chips along B: each chip holds X[B/n,D], all of W and writes Z[B/n,F]; \
                     no partial sums, no link traffic (per-chip values below)."
                ),
                Split::F => format!(
                    "Sharded over n = {nn} chips along F: each chip holds X[B,D], W[D,F/n] and writes Z[B,F/n]; \
                     no partial sums, no link traffic (per-chip values below)."
                ),
            });
        }
        match self.from {
            WeightSource::Hbm => {}
            WeightSource::Onchip => out.push(format!(
                "Weights are read from on-chip memory of {chip}: their s_w·D·F bytes are timed against its bandwidth, not HBM's."
            )),
            WeightSource::Pcie => out.push(
                "Weights stream from the host over PCIe: their s_w·D·F bytes are timed against the PCIe bandwidth, not HBM's."
                    .to_string(),
            ),
        }
    }
}
