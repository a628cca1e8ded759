//! Numbers as the derivations write them, shared by one operation's and a composite's.

use crate::units::{format_sig, num3};

/// Formats two numbers with enough digits to tell them apart (3 to 8 significant digits).
pub(crate) fn distinct(a: f64, b: f64) -> (String, String) {
    let (mut sa, mut sb) = (num3(a), num3(b));
    let mut sig = 4;
    while sa == sb && a != b && sig <= 8 {
        sa = format_sig(a, sig);
        sb = format_sig(b, sig);
        sig += 1;
    }
    (sa, sb)
}

/// A critical value: whole above 1000 (`B > 8755`), else `digits` significant digits.
pub(crate) fn crit_str(v: f64, digits: usize) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else {
        format_sig(v, digits)
    }
}
