//! The change between two results split over the inputs that differ, by Shapley values (see
//! the module docs of [`crate::compare`]).

use crate::analysis::{t_lower, Options};
use crate::chip::{Chip, ChipField};
use crate::op::Op;
use crate::units::format_field;
use serde::{Deserialize, Serialize};

/// Most players the exact split takes (`2^n` evaluations of `t_lower`); more are grouped into
/// the chip and the operation.
pub const MAX_PLAYERS: usize = 10;

/// One changed input (or group of inputs) and its share of the change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputShare {
    /// `hbm`, `b`, `chip` (a group), …
    pub key: String,
    /// `HBM bandwidth`, `B (sequences)`, …
    pub label: String,
    /// The baseline's value as text (`3.35 TB/s`).
    pub from: String,
    /// The row's value as text.
    pub to: String,
    /// Its Shapley value, seconds (`Σ` over the inputs = `t_row − t_base`).
    pub phi: f64,
    /// `phi / (t_row − t_base)` (`None` when the time does not change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
}

/// The split of a change by input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InputSplit {
    /// Largest `|phi|` first.
    pub shares: Vec<InputShare>,
    /// Inputs that differ but move `t_lower` at neither end (left out, share 0).
    pub unused: Vec<String>,
    /// Why there is no split, or how it was simplified (grouped players), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An input that can differ between the two sides.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Input {
    Chip(ChipField),
    Interconnect,
    /// What a chip's preset brings beyond its fields (a TPU's torus and DCN fabric for a
    /// training step), with its name.
    Preset,
    Op(&'static str),
    /// The whole operation, when the two are of different kinds.
    WholeOp,
}

impl Input {
    fn key(self) -> String {
        match self {
            Input::Chip(f) => f.as_str().into(),
            Input::Interconnect => "interconnect".into(),
            Input::Preset => "preset".into(),
            Input::Op(k) => k.into(),
            Input::WholeOp => "op".into(),
        }
    }

    fn label(self, op: &Op) -> String {
        match self {
            Input::Chip(f) => f.label().into(),
            Input::Interconnect => "interconnect".into(),
            Input::Preset => "the chip's preset (its network fabric)".into(),
            Input::Op(k) => op.field(k).map_or(k, |s| s.label).into(),
            Input::WholeOp => "the operation".into(),
        }
    }

    fn value(self, op: &Op, chip: &Chip) -> String {
        match self {
            Input::Chip(f) => match (chip.get(f), f.unit()) {
                (Some(v), Some(u)) => format_field(v, u),
                (Some(v), None) => crate::units::format_exact(v),
                (None, _) => "none".into(),
            },
            Input::Interconnect => format!("{:?}", chip.interconnect),
            Input::Preset => chip.preset_id.clone().unwrap_or_else(|| "custom".into()),
            Input::Op(k) => op.get(k).unwrap_or_default(),
            Input::WholeOp => op.title(),
        }
    }

    /// Takes this input's value from `from` into `op`/`chip`.
    fn apply(self, op: &mut Op, chip: &mut Chip, from: (&Op, &Chip)) -> Result<(), crate::Error> {
        match self {
            Input::Chip(f) => match from.1.get(f) {
                Some(v) => chip.set(f, v),
                None => {
                    *chip = chip.without(f)?;
                    Ok(())
                }
            },
            Input::Interconnect => {
                chip.interconnect = from.1.interconnect;
                Ok(())
            }
            Input::Preset => {
                chip.preset_id.clone_from(&from.1.preset_id);
                chip.name.clone_from(&from.1.name);
                Ok(())
            }
            Input::Op(k) => op.set(k, &from.0.get(k).unwrap_or_default()),
            Input::WholeOp => {
                *op = from.0.clone();
                Ok(())
            }
        }
    }
}

/// The inputs that differ: the chip's numeric fields and interconnect, and, when both
/// operations are of one kind, the operation's fields that the fields after it in form order
/// do not imply (a preset, implied by the architecture it fills in); of two kinds, the whole
/// operation as one input.
fn differing(base: (&Op, &Chip), row: (&Op, &Chip)) -> Vec<Input> {
    let mut out: Vec<Input> = ChipField::ALL
        .into_iter()
        .filter(|&f| f != ChipField::Name && base.1.get(f) != row.1.get(f))
        .map(Input::Chip)
        .collect();
    if base.1.interconnect != row.1.interconnect {
        out.push(Input::Interconnect);
    }
    if base.1.preset_id != row.1.preset_id || base.1.name != row.1.name {
        out.push(Input::Preset);
    }
    if base.0.kind_id() != row.0.kind_id() {
        out.push(Input::WholeOp);
        return out;
    }
    let keys: Vec<&'static str> = base
        .0
        .fields()
        .iter()
        .map(|s| s.key)
        .filter(|k| base.0.get(k) != row.0.get(k))
        .collect();
    for (at, &k) in keys.iter().enumerate() {
        let mut op = base.0.clone();
        for &other in &keys[at + 1..] {
            let _ = op.set(other, &row.0.get(other).unwrap_or_default());
        }
        if op.get(k) != row.0.get(k) {
            out.push(Input::Op(k));
        }
    }
    out
}

/// The players' game: `t_lower` of the baseline with the players of `mask` from the row.
struct Game<'a> {
    base: (&'a Op, &'a Chip),
    row: (&'a Op, &'a Chip),
    opts: &'a Options,
    players: Vec<Vec<Input>>,
}

impl Game<'_> {
    fn value(&self, mask: usize) -> Result<f64, crate::Error> {
        let (mut op, mut chip) = (self.base.0.clone(), self.base.1.clone());
        // In form order, so a field that resets others (a preset) comes before them.
        let mut inputs: Vec<Input> = (0..self.players.len())
            .filter(|p| mask & (1 << p) != 0)
            .flat_map(|p| self.players[p].iter().copied())
            .collect();
        let order = |i: &Input| match i {
            Input::Op(k) => self.base.0.fields().iter().position(|s| s.key == *k),
            Input::WholeOp => Some(0),
            _ => None,
        };
        inputs.sort_by_key(order);
        for i in inputs {
            i.apply(&mut op, &mut chip, self.row)?;
        }
        t_lower(&op, &chip, self.opts)
    }
}

/// Splits `t_row − t_base` over the differing inputs (module docs of [`crate::compare`]).
pub(crate) fn split(
    base: (&Op, &Chip),
    row: (&Op, &Chip),
    opts: &Options,
    t_base: f64,
    t_row: f64,
) -> InputSplit {
    let inputs = differing(base, row);
    let mut game = Game {
        base,
        row,
        opts,
        players: inputs.iter().map(|&i| vec![i]).collect(),
    };
    let mut note = (base.0.kind_id() != row.0.kind_id()).then(|| {
        format!(
            "the operations are of different kinds ({} and {}): the operation counts as one input",
            base.0.kind_id(),
            row.0.kind_id()
        )
    });
    let (kept, unused) = drop_null_players(&game, &inputs, t_base, t_row);
    game.players = kept.iter().map(|&i| vec![i]).collect();
    if game.players.len() > MAX_PLAYERS {
        note = Some(format!(
            "{} inputs differ: split between the chip and the operation as two groups",
            kept.len()
        ));
        let (chip, op): (Vec<Input>, Vec<Input>) = kept
            .iter()
            .partition(|i| !matches!(i, Input::Op(_) | Input::WholeOp));
        game.players = [chip, op].into_iter().filter(|g| !g.is_empty()).collect();
    }
    let delta = t_row - t_base;
    let mut shares: Vec<InputShare> = match shapley(&game) {
        Ok(phi) => phi
            .into_iter()
            .enumerate()
            .map(|(p, phi)| share_of(&game, p, phi, delta))
            .collect(),
        Err(e) => {
            note = Some(format!(
                "a mix of the two sides is not a valid operation ({e}): no split by input"
            ));
            Vec::new()
        }
    };
    // Efficiency (Σ φ = Δ) holds whenever the inputs above are all the two sides differ in;
    // should a kind read something else, say so rather than show shares that do not add up.
    let explained: f64 = shares.iter().map(|s| s.phi).sum();
    if !shares.is_empty() && (explained - delta).abs() > 1e-9 * t_base.abs().max(t_row.abs()) {
        let fraction = explained / delta;
        note = Some(if fraction.is_finite() {
            format!(
                "the inputs shown explain {fraction:.3} of the change; the rest comes from what they do not cover"
            )
        } else if delta == 0.0 {
            // No change to take a fraction of: coalitions far slower than either side (a mix
            // of two huge inputs) leave shares whose sum rounds away from 0.
            "the two sides take the same time, but the inputs' shares do not cancel out exactly: \
             the rest is rounding or comes from what they do not cover"
                .to_string()
        } else {
            "the inputs' shares do not add up to the change: the rest comes from what they do not \
             cover"
                .to_string()
        });
    }
    shares.sort_by(|a, b| b.phi.abs().total_cmp(&a.phi.abs()));
    InputSplit {
        shares,
        unused,
        note,
    }
}

/// The inputs kept, and the labels of those left out as null players: no change from the
/// baseline with it alone, nor from the row without it alone. (Over 60 inputs, more than two
/// kinds' worth, nothing is tested: they are grouped.)
fn drop_null_players(
    game: &Game,
    inputs: &[Input],
    t_base: f64,
    t_row: f64,
) -> (Vec<Input>, Vec<String>) {
    if inputs.len() > 60 {
        return (inputs.to_vec(), Vec::new());
    }
    let all = (1usize << inputs.len()) - 1;
    let mut unused = Vec::new();
    let mut kept = Vec::new();
    for (p, &i) in inputs.iter().enumerate() {
        let alone = game.value(1 << p).map(|v| v == t_base);
        let last = game.value(all & !(1 << p)).map(|v| v == t_row);
        if matches!((alone, last), (Ok(true), Ok(true))) {
            unused.push(i.label(game.base.0));
        } else {
            kept.push(i);
        }
    }
    (kept, unused)
}

/// Every player's Shapley value over the `2^n` coalitions.
fn shapley(game: &Game) -> Result<Vec<f64>, crate::Error> {
    let n = game.players.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let v: Vec<f64> = (0..1usize << n)
        .map(|m| game.value(m))
        .collect::<Result<_, _>>()?;
    // |S|!·(n−|S|−1)!/n! for each size |S|.
    let fact = |k: usize| (1..=k).map(|x| x as f64).product::<f64>();
    let w: Vec<f64> = (0..n.max(1))
        .map(|s| fact(s) * fact(n - s - 1) / fact(n))
        .collect();
    Ok((0..n)
        .map(|p| {
            (0..1usize << n)
                .filter(|m| m & (1 << p) == 0)
                .map(|m| w[m.count_ones() as usize] * (v[m | 1 << p] - v[m]))
                .sum()
        })
        .collect())
}

fn share_of(game: &Game, p: usize, phi: f64, delta: f64) -> InputShare {
    let group = &game.players[p];
    let (op_b, op_r) = (game.base.0, game.row.0);
    let (key, label, from, to) = match group.as_slice() {
        [i] => (
            i.key(),
            i.label(op_b),
            i.value(op_b, game.base.1),
            i.value(op_r, game.row.1),
        ),
        g if g.iter().any(|i| matches!(i, Input::Op(_) | Input::WholeOp)) => (
            "op".into(),
            "the operation's inputs".into(),
            op_b.title(),
            op_r.title(),
        ),
        _ => (
            "chip".into(),
            "the chip".into(),
            game.base.1.name.clone(),
            game.row.1.name.clone(),
        ),
    };
    InputShare {
        key,
        label,
        from,
        to,
        phi,
        share: (delta != 0.0).then(|| phi / delta),
    }
}
