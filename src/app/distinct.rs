//! A value that follows the scenario and wakes its readers only when it changes.
//!
//! A memo's readers are marked "check" whenever any of its sources changes, and each reader
//! then runs to find that nothing it reads changed. For the fields of the operations and chips
//! an edit did not touch, and for the cells of the result rows it left alone (hundreds of
//! render effects), that waking cost more than the edit's own work: an edit of one `llm`
//! operation's context woke every field of the other two and every cell of their rows. A
//! [`distinct`] value is a signal set only when the value differs, so the readers of an
//! unchanged value are never marked.
//!
//! An effect sets it after any change of what it reads (a microtask later); an edit that must
//! read the new value at once (a field's commit reads back what the field now shows) calls
//! [`Refresh::run`] right after it.

use leptos::prelude::*;

/// Brings a [`distinct`] value up to date now (it is `Copy`, for event handlers).
#[derive(Clone, Copy)]
pub struct Refresh(StoredValue<Box<dyn Fn()>, LocalStorage>);

impl Refresh {
    /// Sets the value from its sources now, if it changed.
    pub fn run(&self) {
        self.0.with_value(|update| update());
    }
}

/// `f`'s value, set (and so notifying its readers) only when it differs from the last one
/// (`==`).
pub fn distinct<T>(f: impl Fn() -> T + 'static) -> (ReadSignal<T>, Refresh)
where
    T: PartialEq + Send + Sync + 'static,
{
    distinct_by(f, |a, b| a == b)
}

/// `f`'s value, set only when `same(last, new)` is false (e.g. `Arc::ptr_eq` for values
/// shared between edits).
pub fn distinct_by<T>(
    f: impl Fn() -> T + 'static,
    same: fn(&T, &T) -> bool,
) -> (ReadSignal<T>, Refresh)
where
    T: Send + Sync + 'static,
{
    let (read, write) = signal(untrack(&f));
    // Tracked inside the effect (it re-runs on every change of `f`'s sources), untracked when
    // run from an event handler.
    let update = std::rc::Rc::new(move || {
        let next = f();
        if !read.with_untracked(|last| same(last, &next)) {
            write.set(next);
        }
    });
    let tracked = update.clone();
    Effect::new(move |_| tracked());
    let refresh = Refresh(StoredValue::new_local(
        Box::new(move || untrack(|| update())) as Box<dyn Fn()>,
    ));
    (read, refresh)
}

/// Runs its [`Refresh`] when dropped: at the end of an edit's handler, whichever way it
/// returns.
pub struct Refreshed(pub Refresh);

impl Drop for Refreshed {
    fn drop(&mut self) {
        self.0.run();
    }
}
