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
    Op(&'static str),
    /// The whole operation, when the two are of different kinds.
    WholeOp,
}

impl Input {
    fn key(self) -> String {
        match self {
            Input::Chip(f) => f.as_str().into(),
            Input::Interconnect => "interconnect".into(),
            Input::Op(k) => k.into(),
            Input::WholeOp => "op".into(),
        }
    }

    fn label(self, op: &Op) -> String {
        match self {
            Input::Chip(f) => f.label().into(),
            Input::Interconnect => "interconnect".into(),
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
    // (Over 60 inputs, more than two kinds' worth, skip the test: they are grouped below.)
    let testable = inputs.len() <= 60;
    let all = if testable {
        (1usize << inputs.len()) - 1
    } else {
        0
    };
    let mut note = (base.0.kind_id() != row.0.kind_id()).then(|| {
        format!(
            "the operations are of different kinds ({} and {}): the operation counts as one input",
            base.0.kind_id(),
            row.0.kind_id()
        )
    });
    // Null players: no change from the baseline alone nor from the row alone.
    let mut unused = Vec::new();
    let mut kept = Vec::new();
    for (p, &i) in inputs.iter().enumerate() {
        if !testable {
            kept.push(i);
            continue;
        }
        let alone = game.value(1 << p).map(|v| v == t_base);
        let last = game.value(all & !(1 << p)).map(|v| v == t_row);
        if matches!((alone, last), (Ok(true), Ok(true))) {
            unused.push(i.label(base.0));
        } else {
            kept.push(i);
        }
    }
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
    let shares = match shapley(&game) {
        Ok(phi) => phi
            .into_iter()
            .enumerate()
            .map(|(p, phi)| share_of(&game, p, phi, t_row - t_base))
            .collect(),
        Err(e) => {
            note = Some(format!(
                "a mix of the two sides is not a valid operation ({e}): no split by input"
            ));
            Vec::new()
        }
    };
    let mut shares: Vec<InputShare> = shares;
    shares.sort_by(|a, b| b.phi.abs().total_cmp(&a.phi.abs()));
    InputSplit {
        shares,
        unused,
        note,
    }
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
