//! Work that waits for edits to pause: the address bar and the screen-reader tables follow the
//! scenario once typing stops, instead of paying for every keystroke.

use leptos::leptos_dom::helpers::TimeoutHandle;
use leptos::prelude::*;

/// Runs the latest scheduled action once `ms` milliseconds pass without another being
/// scheduled. Dropped with its owner (pending work is cancelled on cleanup).
#[derive(Clone, Copy)]
pub struct Debounce {
    pending: StoredValue<Option<TimeoutHandle>, LocalStorage>,
    ms: u64,
}

impl Debounce {
    /// A debouncer with a delay of `ms` milliseconds.
    pub fn new(ms: u64) -> Debounce {
        let d = Debounce {
            pending: StoredValue::new_local(None),
            ms,
        };
        on_cleanup(move || d.cancel());
        d
    }

    /// Runs `f` after the delay, unless something else is scheduled first.
    pub fn schedule(&self, f: impl FnOnce() + 'static) {
        self.cancel();
        let h = set_timeout_with_handle(f, std::time::Duration::from_millis(self.ms));
        let h = super::check(h, "schedule work for when edits pause");
        self.pending.try_set_value(h);
    }

    /// Drops the scheduled action, if any.
    pub fn cancel(&self) {
        if let Some(h) = self.pending.try_update_value(Option::take).flatten() {
            h.clear();
        }
    }
}

/// `source`, following it once it has been unchanged for `ms` milliseconds (its first value at
/// once).
pub fn settled<T>(source: Signal<T>, ms: u64) -> ReadSignal<T>
where
    T: Clone + Send + Sync + 'static,
{
    let (out, set_out) = signal(source.get_untracked());
    let debounce = Debounce::new(ms);
    Effect::new(move |first: Option<()>| {
        source.track();
        if first.is_some() {
            debounce.schedule(move || {
                set_out.try_set(source.get_untracked());
            });
        }
    });
    out
}
