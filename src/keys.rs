//! Stable ids for the scenario's operations and chips, kept beside the scenario rather than in
//! it: the core's [`Scenario`] stays plain, serialisable, URL-stable data (two scenarios that
//! show the same thing are equal), while the page renders its cards through keyed lists, so
//! moving, duplicating or removing a card moves, copies or drops its DOM and leaves the
//! other cards alone. Pure, so it is tested natively.

use roofline::inputs::{BaseRow, Scenario};

/// An edit of the list of operations or chips; the ids follow the items.
#[derive(Debug, Clone, PartialEq)]
pub enum ListEdit<T> {
    /// Append an item (a new id).
    Push(T),
    /// Insert a copy of the item at this position right after it (a new id).
    Duplicate(usize),
    /// Swap the item at this position with the one before it.
    MoveUp(usize),
    /// Swap the item at this position with the one after it.
    MoveDown(usize),
    /// Remove the item at this position, unless it is the last one left.
    Remove(usize),
}

/// Ids parallel to [`Scenario::ops`] and [`Scenario::chips`]: `ops[i]` is the id of operation
/// `i`. An id is never reused within a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keys {
    /// The id of each operation, in order.
    pub ops: Vec<u64>,
    /// The id of each chip, in order.
    pub chips: Vec<u64>,
    next: u64,
}

impl Keys {
    /// Fresh ids for every operation and chip of `s`.
    pub fn new(s: &Scenario) -> Keys {
        let mut k = Keys::default();
        k.fit(s);
        k
    }

    /// After `s` replaced the scenario as a whole (a recipe): positions that still exist keep
    /// their ids, so their cards update in place; new positions get fresh ids, gone ones
    /// lose theirs.
    pub fn fit(&mut self, s: &Scenario) {
        let next = &mut self.next;
        fit(&mut self.ops, s.ops.len(), next);
        fit(&mut self.chips, s.chips.len(), next);
    }

    /// The position of the operation with id `id`.
    pub fn op_index(&self, id: u64) -> Option<usize> {
        self.ops.iter().position(|k| *k == id)
    }

    /// The position of the chip with id `id`.
    pub fn chip_index(&self, id: u64) -> Option<usize> {
        self.chips.iter().position(|k| *k == id)
    }

    /// The baseline after an edit that turned `before` into these ids: it follows its
    /// operation's and chip's ids (moved, or shifted by an insertion or removal before it);
    /// `None` when either was removed.
    pub fn follow_base(&self, before: &Keys, base: Option<BaseRow>) -> Option<BaseRow> {
        let b = base?;
        Some(BaseRow {
            op: self.op_index(*before.ops.get(b.op)?)?,
            chip: self.chip_index(*before.chips.get(b.chip)?)?,
        })
    }

    /// Applies `edit` to the operations `items` and their ids; whether anything changed.
    pub fn edit_ops<T: Clone>(&mut self, items: &mut Vec<T>, edit: ListEdit<T>) -> bool {
        edit_list(items, &mut self.ops, &mut self.next, edit)
    }

    /// Applies `edit` to the chips `items` and their ids; whether anything changed.
    pub fn edit_chips<T: Clone>(&mut self, items: &mut Vec<T>, edit: ListEdit<T>) -> bool {
        edit_list(items, &mut self.chips, &mut self.next, edit)
    }
}

fn fresh(next: &mut u64) -> u64 {
    *next += 1;
    *next
}

fn fit(ids: &mut Vec<u64>, n: usize, next: &mut u64) {
    ids.truncate(n);
    while ids.len() < n {
        ids.push(fresh(next));
    }
}

fn edit_list<T: Clone>(
    items: &mut Vec<T>,
    ids: &mut Vec<u64>,
    next: &mut u64,
    edit: ListEdit<T>,
) -> bool {
    // Never out of step, whatever happened before.
    fit(ids, items.len(), next);
    let n = items.len();
    match edit {
        ListEdit::Push(item) => {
            items.push(item);
            ids.push(fresh(next));
        }
        ListEdit::Duplicate(i) if i < n => {
            items.insert(i + 1, items[i].clone());
            ids.insert(i + 1, fresh(next));
        }
        ListEdit::MoveUp(i) if i > 0 && i < n => {
            items.swap(i, i - 1);
            ids.swap(i, i - 1);
        }
        ListEdit::MoveDown(i) if i + 1 < n => {
            items.swap(i, i + 1);
            ids.swap(i, i + 1);
        }
        ListEdit::Remove(i) if n > 1 && i < n => {
            items.remove(i);
            ids.remove(i);
        }
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_their_items_and_are_never_reused() {
        let s = Scenario::default();
        let mut k = Keys::new(&s);
        assert_eq!((k.ops.len(), k.chips.len()), (2, 1));
        let mut items = vec!['a', 'b'];
        let (a, b) = (k.ops[0], k.ops[1]);
        assert!(k.edit_ops(&mut items, ListEdit::Duplicate(0)));
        assert_eq!(items, ['a', 'a', 'b']);
        let copy = k.ops[1];
        assert!(copy != a && copy != b && k.ops[0] == a && k.ops[2] == b);
        assert!(k.edit_ops(&mut items, ListEdit::MoveDown(0)));
        assert_eq!(k.ops, [copy, a, b]);
        assert!(k.edit_ops(&mut items, ListEdit::MoveUp(2)));
        assert_eq!(k.ops, [copy, b, a]);
        assert_eq!(items, ['a', 'b', 'a']);
        assert!(k.edit_ops(&mut items, ListEdit::Remove(0)));
        assert_eq!(
            (items.as_slice(), k.ops.as_slice()),
            (&['b', 'a'][..], &[b, a][..])
        );
        assert!(k.edit_ops(&mut items, ListEdit::Push('c')));
        let c = k.ops[2];
        assert!(![a, b, copy].contains(&c) && !k.chips.contains(&c));
        assert_eq!(k.op_index(a), Some(1));
        assert_eq!(k.op_index(copy), None);
        // Edits that do nothing say so: first up, last down, out of range, the last one left.
        assert!(!k.edit_ops(&mut items, ListEdit::MoveUp(0)));
        assert!(!k.edit_ops(&mut items, ListEdit::MoveDown(2)));
        assert!(!k.edit_ops(&mut items, ListEdit::Duplicate(3)));
        let mut one = vec!['z'];
        let mut chips = Keys::new(&s);
        assert!(!chips.edit_chips(&mut one, ListEdit::Remove(0)));
        assert_eq!(chips.chips.len(), 1);
    }

    #[test]
    fn the_baseline_follows_its_row_through_edits() {
        let s = Scenario::default();
        let before = Keys::new(&s);
        let base = Some(BaseRow { op: 1, chip: 0 });
        let mut items = vec!['a', 'b'];
        let mut k = before.clone();
        k.edit_ops(&mut items, ListEdit::MoveUp(1));
        assert_eq!(
            k.follow_base(&before, base),
            Some(BaseRow { op: 0, chip: 0 })
        );
        let mut k = before.clone();
        k.edit_ops(&mut vec!['a', 'b'], ListEdit::Duplicate(0));
        assert_eq!(
            k.follow_base(&before, base),
            Some(BaseRow { op: 2, chip: 0 })
        );
        let mut k = before.clone();
        k.edit_ops(&mut vec!['a', 'b'], ListEdit::Remove(0));
        assert_eq!(
            k.follow_base(&before, base),
            Some(BaseRow { op: 0, chip: 0 })
        );
        let mut k = before.clone();
        k.edit_ops(&mut vec!['a', 'b'], ListEdit::Remove(1));
        assert_eq!(k.follow_base(&before, base), None);
        assert_eq!(before.follow_base(&before, None), None);
    }

    #[test]
    fn a_replaced_scenario_keeps_the_ids_of_positions_that_remain() {
        let mut s = Scenario::default();
        let mut k = Keys::new(&s);
        let before = k.clone();
        s.ops.truncate(1);
        k.fit(&s);
        assert_eq!(k.ops, before.ops[..1]);
        s.ops = vec![s.ops[0].clone(); 3];
        k.fit(&s);
        assert_eq!(k.ops[0], before.ops[0]);
        assert!(k.ops[1] != before.ops[1] && k.ops[2] != k.ops[1]);
        assert_eq!(k.chips, before.chips);
    }
}
