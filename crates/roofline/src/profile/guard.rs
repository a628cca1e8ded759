//! The guard a fitted model passes before the page lets it into a link ("A page that never
//! lies", issue 38, point 6; issue 43): one rule for the kernels' calibration (`cal=`) and the
//! steps' own engine (`engine=own:`). A fit is refused when
//!
//! * its data span fewer than [`MIN_SHAPES`] distinct shapes (launches or steps of one shape
//!   are one equation, however many there are);
//! * a term's standard error passes [`MAX_RELATIVE_ERROR`] of the term (the data do not pin
//!   it: a 51.9 ms "overhead" or ±78 % on an efficiency from one CUTLASS export);
//! * its fixed term (overhead per launch, or per step) passes [`MAX_FIXED_SHARE`] of the
//!   median measured time it is added to (a model that explains the time by a constant has
//!   not explained it).

/// Fewest distinct shapes a fit of several terms accepts.
pub const MIN_SHAPES: usize = 3;
/// Largest relative standard error of a term.
pub const MAX_RELATIVE_ERROR: f64 = 0.5;
/// Largest fixed term, as a fraction of the median measured time.
pub const MAX_FIXED_SHARE: f64 = 0.1;

/// What the guard reads of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitCheck<'a> {
    /// Distinct shapes in the data.
    pub shapes: usize,
    /// Each term's name and relative standard error (`None`: not determined by the data,
    /// held at its bound; not refused for it).
    pub errors: &'a [(&'a str, Option<f64>)],
    /// The fixed term's name and value, seconds.
    pub fixed: (&'a str, f64),
    /// The median measured time the fixed term is added to, seconds.
    pub median: f64,
}

/// `Ok` when the fit may be applied, else why not, in words (every reason, `; ` between).
///
/// ```
/// use roofline::profile::{check_fit, FitCheck};
/// let ok = FitCheck { shapes: 5, errors: &[("c", Some(0.03))], fixed: ("o", 2e-6), median: 1e-4 };
/// assert!(check_fit(&ok).is_ok());
/// // 51.9 ms per launch against a median kernel of 250 ms passes a tenth of it.
/// let bad = FitCheck { fixed: ("overhead per launch", 51.9e-3), median: 0.25, ..ok };
/// assert!(check_fit(&bad).unwrap_err().contains("a tenth of the median"));
/// ```
pub fn check_fit(f: &FitCheck<'_>) -> Result<(), String> {
    let mut why = Vec::new();
    if f.shapes < MIN_SHAPES {
        why.push(format!(
            "the data span {} distinct shape{}, fewer than the {MIN_SHAPES} a fit of several \
             terms needs",
            f.shapes,
            if f.shapes == 1 { "" } else { "s" }
        ));
    }
    for (name, e) in f.errors {
        if let Some(e) = e {
            if !(e.is_finite() && *e <= MAX_RELATIVE_ERROR) {
                why.push(format!(
                    "{name} is ±{:.0} % (a standard error past {:.0} %): the data do not pin it",
                    100.0 * e,
                    100.0 * MAX_RELATIVE_ERROR
                ));
            }
        }
    }
    let (name, fixed) = f.fixed;
    if !(fixed.is_finite() && f.median.is_finite()) || fixed > MAX_FIXED_SHARE * f.median {
        why.push(format!(
            "the {name}, {}, passes a tenth of the median measured time ({})",
            crate::units::format_quantity(fixed, crate::units::Unit::Seconds),
            crate::units::format_quantity(f.median, crate::units::Unit::Seconds)
        ));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}
