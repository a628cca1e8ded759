//! Numbers as the derivations write them, shared by one operation's and a composite's.

use crate::units::{format_quantity, format_sig, num3, Unit};

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

/// A time as a derivation ends its line: the number as the worked answers write it, then,
/// where that is not plain seconds already, the same time in a readable unit (issue 24, point
/// 9): `2.32e-5 s (23.2 µs)`, `0.0015 s (1.5 ms)`, `3600 s (1 h)`, `1.5 s`, `0 s`.
pub(crate) fn secs(x: f64) -> String {
    let n = num3(x);
    if x.is_finite() && x > 0.0 && !(1.0..1000.0).contains(&x) {
        format!("{n} s ({})", format_quantity(x, Unit::Seconds))
    } else {
        format!("{n} s")
    }
}

#[cfg(test)]
mod tests {
    use super::secs;

    #[test]
    fn a_time_reads_in_seconds_and_in_its_own_unit() {
        assert_eq!(
            secs(2.0 * 136.0 * 4096.0 * 4096.0 / 1.97e14),
            "2.32e-5 s (23.2 µs)"
        );
        assert_eq!(secs(0.0015), "0.0015 s (1.5 ms)");
        assert_eq!(secs(1.5), "1.5 s");
        assert_eq!(secs(0.0), "0 s");
        assert_eq!(secs(7200.0), "7200 s (2 h)");
    }
}
