//! The app's error type: what a form, an export or a browser call refused, in the core's
//! precise form (`d=-5: must be a positive size ...`, `from=0: must be a positive number`).
//! Every failure the page meets ends as one of these, shown next to its field or in the
//! status line (`role="status"`); none is thrown away. Pure, so its messages are tested
//! natively.

use roofline::inputs::clip_text;
use std::fmt;

/// Longest user text repeated in a message, in characters (as the core's).
const SHOWN_CHARS: usize = 40;

/// Why an edit, an export or a browser call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum AppError {
    /// The core refused a value or an analysis: its message, unchanged.
    Core(roofline::inputs::Error),
    /// A value the app checks itself (a choice, a sweep bound, a label, a size in pixels): the
    /// field, the text as typed (clipped) and why, written as the core writes an invalid field.
    Invalid {
        /// The field (`from`, `flops`, `width`, ...).
        field: &'static str,
        /// The text (trimmed, at most 40 characters).
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// An export was asked for while no plot is shown.
    NoPlot,
    /// The chart could not be drawn (the drawing library's message).
    Draw(String),
    /// An export failed, and why.
    Export(Box<AppError>),
    /// The profile importer (its worker) refused a profile: its message, word for word.
    Import(String),
    /// A browser call failed: what the page was doing and the browser's message.
    Browser {
        /// What the page was doing (`copy the link`, `update the address bar`, ...).
        action: &'static str,
        /// The browser's message, or a description of the missing piece.
        detail: String,
    },
}

impl AppError {
    /// An invalid value of a field the app checks itself.
    pub fn invalid(field: &'static str, value: &str, reason: impl Into<String>) -> AppError {
        AppError::Invalid {
            field,
            value: clip_text(value.trim(), SHOWN_CHARS),
            reason: reason.into(),
        }
    }

    /// A failed browser call.
    pub fn browser(action: &'static str, detail: impl Into<String>) -> AppError {
        AppError::Browser {
            action,
            detail: detail.into(),
        }
    }
}

impl From<roofline::inputs::Error> for AppError {
    fn from(e: roofline::inputs::Error) -> AppError {
        AppError::Core(e)
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::Core(e) => write!(f, "{e}"),
            AppError::Invalid {
                field,
                value,
                reason,
            } => write!(f, "{field}={value}: {reason}"),
            AppError::Import(m) => f.write_str(m),
            AppError::NoPlot => write!(f, "no plot is shown"),
            AppError::Draw(d) => write!(f, "could not draw the chart: {d}"),
            AppError::Export(e) => write!(f, "export failed: {e}"),
            AppError::Browser { action, detail } => {
                write!(f, "could not {action}: {detail}")
            }
        }
    }
}

impl std::error::Error for AppError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_field_and_keep_the_cores_words() {
        // The core's own message passes through unchanged.
        let mut op = roofline::inputs::Op::default_for("matmul").unwrap();
        let core = op.set("d", "-5").unwrap_err();
        let shown = AppError::from(core.clone()).to_string();
        assert_eq!(shown, core.to_string());
        assert!(
            shown.starts_with("d=-5: must be a positive size"),
            "{shown}"
        );
        // The app's own checks read like the core's: field=value: reason, the text clipped to
        // 40 characters and trimmed.
        assert_eq!(
            AppError::invalid("flops", " 3mac ", "must be 2mac or 1mac").to_string(),
            "flops=3mac: must be 2mac or 1mac"
        );
        let long = AppError::invalid("label", &"x".repeat(10_000), "at most 80 characters");
        assert_eq!(
            long.to_string(),
            format!("label={}…: at most 80 characters", "x".repeat(40))
        );
        assert_eq!(AppError::NoPlot.to_string(), "no plot is shown");
        assert_eq!(
            AppError::browser("copy the link", "NotAllowedError: denied").to_string(),
            "could not copy the link: NotAllowedError: denied"
        );
        assert_eq!(
            AppError::Export(Box::new(AppError::NoPlot)).to_string(),
            "export failed: no plot is shown"
        );
        assert_eq!(
            AppError::Draw("out of range".into()).to_string(),
            "could not draw the chart: out of range"
        );
    }
}
