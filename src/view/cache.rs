//! What is remembered per (operation, chip) between edits: a value is recomputed only when its
//! operation, its chip, the options or an extra input (the sweep, for the sweep chart) changed,
//! and an unchanged one is handed back as it was (the same `Rc` / `Arc`, so a reader can tell
//! it apart with `ptr_eq`, without comparing figures). Each pass keeps only the pairs it used.

use std::collections::HashMap;

use roofline::inputs::Chip;
use roofline::inputs::Op;
use roofline::inputs::Options;
use roofline::inputs::Scenario;

/// Values keyed by (operation index, chip index), each with the inputs it was computed from:
/// the operation, the chip, the options and `X` (`()` when nothing else matters).
pub struct PairCache<X, V> {
    entries: HashMap<(usize, usize), Entry<X, V>>,
}

struct Entry<X, V> {
    op: Op,
    chip: Chip,
    options: Options,
    extra: X,
    value: V,
}

impl<X, V> Default for PairCache<X, V> {
    fn default() -> Self {
        PairCache {
            entries: HashMap::new(),
        }
    }
}

impl<X: PartialEq + Clone, V: Clone> PairCache<X, V> {
    /// Start a pass over a scenario: values asked for through the pass are remembered, the
    /// others are forgotten when the pass ends (is dropped).
    pub fn pass(&mut self) -> Pass<'_, X, V> {
        Pass {
            cache: self,
            next: HashMap::new(),
        }
    }
}

/// One pass over a scenario (see [`PairCache::pass`]).
pub struct Pass<'c, X, V> {
    cache: &'c mut PairCache<X, V>,
    next: HashMap<(usize, usize), Entry<X, V>>,
}

impl<X: PartialEq + Clone, V: Clone> Pass<'_, X, V> {
    /// The value of operation `i` on chip `j` of `s` with `extra`: remembered if its inputs are
    /// unchanged, else `compute()`d.
    pub fn get(
        &mut self,
        s: &Scenario,
        i: usize,
        j: usize,
        extra: &X,
        compute: impl FnOnce() -> V,
    ) -> V {
        let (op, chip) = (&s.ops[i], &s.chips[j]);
        let value = match self.cache.entries.get(&(i, j)) {
            Some(e)
                if e.op == *op
                    && e.chip == *chip
                    && e.options == s.options
                    && e.extra == *extra =>
            {
                e.value.clone()
            }
            _ => compute(),
        };
        self.next.insert(
            (i, j),
            Entry {
                op: op.clone(),
                chip: chip.clone(),
                options: s.options,
                extra: extra.clone(),
                value: value.clone(),
            },
        );
        value
    }
}

impl<X, V> Drop for Pass<'_, X, V> {
    fn drop(&mut self) {
        self.cache.entries = std::mem::take(&mut self.next);
    }
}
