//! A form field's edit state as a plain state machine, natively tested: what the input stands
//! for, the value from before the edit under way, and the message beside it. The app's
//! `Field` component feeds it the input's events and shows its message; the rules live here.
//!
//! * A keystroke applies valid text; invalid text puts back the value from before the edit
//!   began (a valid prefix typed on the way, the `2` of `2,000T`, must not stay), and the
//!   message says which value is shown.
//! * The edit ends on `change` with valid text.
//! * A value set from elsewhere (a recipe, a reset, a change of kind) replaces the text and
//!   clears the message; the echo of the field's own accepted edit (`4k` read back as `4000`)
//!   does not overwrite what is being typed.
//! * A slider's value is applied and written into the input at once (a drag is not typing).

/// The longest message, in characters.
const MAX_MESSAGE: usize = 299;

/// One field's edit state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldEdit {
    /// The scenario's text the input is known to stand for: the value it was last given, or
    /// the value its own last accepted edit produced.
    shown: String,
    /// The scenario's text from before the edit under way began; `None` between edits.
    before_edit: Option<String>,
    /// The message beside the field.
    error: Option<String>,
}

impl FieldEdit {
    /// A field showing `value`.
    pub fn new(value: String) -> FieldEdit {
        FieldEdit {
            shown: value,
            ..FieldEdit::default()
        }
    }

    /// The message beside the field, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// A choice made in a select: applied through `commit`; `now` reads the scenario's text
    /// afterwards.
    pub fn choose(&mut self, r: Result<(), String>, now: impl Fn() -> String) {
        match r {
            Ok(()) => {
                self.shown = now();
                self.error = None;
            }
            Err(e) => self.error = Some(roofline::inputs::clip_text(&e, MAX_MESSAGE)),
        }
    }

    /// A keystroke in a text input: `text` applied through `commit` (the scenario changes only
    /// if it is valid); invalid text puts back the value from before the edit, and the message
    /// says so (`label` names the field).
    pub fn type_text(
        &mut self,
        text: String,
        label: &str,
        mut commit: impl FnMut(String) -> Result<(), String>,
        now: impl Fn() -> String,
    ) {
        let before = self
            .before_edit
            .clone()
            .unwrap_or_else(|| self.shown.clone());
        self.before_edit = Some(before.clone());
        match commit(text) {
            Err(e) => {
                let restored = commit(before.clone()).is_ok();
                self.shown = now();
                let note = if restored {
                    showing(label, &before)
                } else {
                    String::new()
                };
                let room = MAX_MESSAGE.saturating_sub(note.chars().count());
                self.error = Some(roofline::inputs::clip_text(&e, room) + &note);
            }
            Ok(()) => {
                self.shown = now();
                self.error = None;
            }
        }
    }

    /// The input commits (`change`: Enter or leaving it): with valid text, the edit ends.
    pub fn change(&mut self) {
        if self.error.is_none() {
            self.before_edit = None;
        }
    }

    /// A value set by the slider, applied through `commit`: the text the input should show
    /// now, or `None` when it was refused (nothing changes).
    pub fn slide(&mut self, r: Result<(), String>, now: impl Fn() -> String) -> Option<String> {
        r.ok()?;
        let v = now();
        self.shown = v.clone();
        self.before_edit = None;
        self.error = None;
        Some(v)
    }

    /// The scenario's value changed: `true` when it came from elsewhere (the input must take
    /// it, the message goes), `false` for the echo of the field's own edit.
    pub fn external(&mut self, value: &str) -> bool {
        if self.shown == value {
            return false;
        }
        self.shown = value.to_string();
        self.before_edit = None;
        self.error = None;
        true
    }
}

/// What the page computes with while a field's text is invalid: ` — showing D = 4096`.
fn showing(label: &str, before: &str) -> String {
    let (label, before) = (
        roofline::inputs::clip_text(label, 40),
        roofline::inputs::clip_text(before, 40),
    );
    if before.trim().is_empty() {
        format!(" — showing {label} empty, as before")
    } else {
        format!(" — showing {label} = {before}")
    }
}

#[cfg(test)]
mod tests {
    use super::FieldEdit;
    use std::cell::RefCell;

    /// A scenario's optional field: empty text or a whole number is accepted and canonicalised
    /// (`4k` → `4000`), anything else refused with the parser's words.
    struct Scenario(RefCell<String>);

    impl Scenario {
        fn commit(&self, text: String) -> Result<(), String> {
            if text.is_empty() {
                self.0.borrow_mut().clear();
                return Ok(());
            }
            let v = match text.strip_suffix('k') {
                Some(n) => n.parse::<u64>().map(|n| n * 1000),
                None => text.parse::<u64>(),
            }
            .map_err(|_| format!("D: `{text}` is not a number"))?;
            *self.0.borrow_mut() = v.to_string();
            Ok(())
        }
        fn now(&self) -> String {
            self.0.borrow().clone()
        }
    }

    fn typed(f: &mut FieldEdit, s: &Scenario, text: &str) {
        f.type_text(text.into(), "D", |t| s.commit(t), || s.now());
    }

    #[test]
    fn a_half_typed_value_is_never_computed_with() {
        let s = Scenario(RefCell::new("4096".into()));
        let mut f = FieldEdit::new(s.now());
        // Typing `2,000` goes through `2` (valid) then `2,` (invalid): the scenario goes back
        // to 4096, the value from before the edit, not to 2.
        typed(&mut f, &s, "2");
        assert_eq!(s.now(), "2");
        assert_eq!(f.error(), None);
        typed(&mut f, &s, "2,");
        assert_eq!(s.now(), "4096");
        assert_eq!(
            f.error(),
            Some("D: `2,` is not a number — showing D = 4096")
        );
        // Still invalid, still the value from before the edit.
        typed(&mut f, &s, "2,0");
        assert_eq!(s.now(), "4096");
        // Valid again: applied; `change` ends the edit.
        typed(&mut f, &s, "2000");
        assert_eq!((s.now().as_str(), f.error()), ("2000", None));
        f.change();
        // The next edit starts from 2000.
        typed(&mut f, &s, "x");
        assert_eq!(s.now(), "2000");
        assert!(f.error().unwrap().ends_with("showing D = 2000"));
    }

    #[test]
    fn change_with_invalid_text_keeps_the_edit_open() {
        let s = Scenario(RefCell::new("8".into()));
        let mut f = FieldEdit::new(s.now());
        typed(&mut f, &s, "9");
        typed(&mut f, &s, "9?");
        f.change();
        typed(&mut f, &s, "9??");
        // Still restored to the value from before the whole edit, not to 9.
        assert_eq!(s.now(), "8");
    }

    #[test]
    fn the_echo_of_an_own_edit_is_not_written_back() {
        let s = Scenario(RefCell::new("1".into()));
        let mut f = FieldEdit::new(s.now());
        typed(&mut f, &s, "4k");
        assert_eq!(s.now(), "4000");
        // The scenario now says 4000: that is the field's own edit, `4k` stays in the input.
        assert!(!f.external("4000"));
        // A recipe sets 512: the input takes it and the message goes.
        typed(&mut f, &s, "4k!");
        assert!(f.error().is_some());
        assert!(f.external("512"));
        assert_eq!(f.error(), None);
        // A new edit starts from 512.
        typed(&mut f, &s, "?");
        assert!(f.error().unwrap().ends_with("showing D = 512"));
    }

    #[test]
    fn a_slider_value_is_shown_at_once_and_ends_the_edit() {
        let s = Scenario(RefCell::new("16".into()));
        let mut f = FieldEdit::new(s.now());
        typed(&mut f, &s, "1x");
        let r = s.commit("64".into());
        assert_eq!(f.slide(r, || s.now()), Some("64".into()));
        assert_eq!(f.error(), None);
        // Refused: nothing changes.
        let r = s.commit("-1".into());
        assert_eq!(f.slide(r, || s.now()), None);
        assert_eq!(s.now(), "64");
        // The edit ended with the slide: invalid text now restores 64.
        typed(&mut f, &s, "?");
        assert_eq!(s.now(), "64");
    }

    #[test]
    fn a_refused_choice_says_why_and_an_empty_value_says_empty() {
        let s = Scenario(RefCell::new(String::new()));
        let mut f = FieldEdit::new(s.now());
        f.choose(Err("no fp8 peak".into()), || s.now());
        assert_eq!(f.error(), Some("no fp8 peak"));
        f.choose(Ok(()), || s.now());
        assert_eq!(f.error(), None);
        // An optional field that was empty: the note says it stays empty.
        typed(&mut f, &s, "?");
        assert!(f.error().unwrap().ends_with("showing D empty, as before"));
    }

    #[test]
    fn a_message_stays_short_whatever_was_typed() {
        let s = Scenario(RefCell::new("1".into()));
        let mut f = FieldEdit::new(s.now());
        typed(&mut f, &s, &"x".repeat(10_000));
        let m = f.error().unwrap();
        assert!(m.chars().count() <= 300, "{}", m.chars().count());
        assert!(m.ends_with("showing D = 1"));
        f.choose(Err("y".repeat(10_000)), || s.now());
        assert!(f.error().unwrap().chars().count() <= 300);
    }
}
