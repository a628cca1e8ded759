//! Tick labels and tick generation. The labels' numbers come from the one quantity formatter,
//! `roofline::units` (`format_si`, `format_si_thousands`, `format_time_si`).

use roofline::units::{format_si, format_si_thousands, format_time_si};

/// Tick labels for an axis in seconds: each with its time prefix (`20 µs`, `1.5 ms`, `2 s`),
/// never an exponent; as many digits as it takes for neighbours to differ.
pub fn format_time_ticks(ticks: &[f64]) -> Vec<String> {
    distinct_labels(ticks, format_time_si)
}

/// Format a list of tick values so that neighbouring labels are distinct,
/// using as few significant digits (>= 3) as possible.
///
/// When the axis reaches 10 000, thousands use the "k" prefix too, so decade
/// ticks read 100, 1k, 10k rather than 100, 1000, 10k.
pub fn format_ticks(ticks: &[f64]) -> Vec<String> {
    if ticks.iter().any(|t| t.abs() >= 1e4 && t.is_finite()) {
        distinct_labels(ticks, format_si_thousands)
    } else {
        distinct_labels(ticks, format_si)
    }
}

/// The ticks' labels by `label` with the fewest significant digits, from 3 to 10, that make
/// neighbours differ (10 if none does).
fn distinct_labels(ticks: &[f64], label: fn(f64, usize) -> String) -> Vec<String> {
    let mut labels = Vec::new();
    for sig in 3..=10 {
        labels = ticks.iter().map(|&t| label(t, sig)).collect();
        if labels.windows(2).all(|w| w[0] != w[1]) {
            break;
        }
    }
    labels
}

/// Ticks of one axis: labelled major ticks and unlabelled minor ticks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ticks {
    pub major: Vec<f64>,
    pub minor: Vec<f64>,
}

const MAX_TICKS: usize = 40;

/// "Nice" linear ticks (steps 1, 2, 5 × 10^k) inside `[lo, hi]`,
/// aiming at no more than `target` ticks.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Ticks {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return if lo.is_finite() {
            Ticks {
                major: vec![lo],
                minor: vec![],
            }
        } else {
            Ticks::default()
        };
    }
    let target = target.clamp(2, 12) as f64;
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * mag);
    if !(step.is_finite() && step > 0.0) {
        return Ticks::default();
    }
    let start = (lo / step - 1e-9).ceil();
    let end = (hi / step + 1e-9).floor();
    let mut major = Vec::new();
    let mut i = start;
    while i <= end && major.len() < MAX_TICKS {
        let mut v = i * step;
        if v.abs() < step * 1e-9 {
            v = 0.0;
        }
        if major.last().is_none_or(|&l| v > l) {
            major.push(v);
        }
        i += 1.0;
    }
    Ticks {
        major,
        minor: vec![],
    }
}

/// Log-axis ticks for `[lo, hi]` (both > 0): decades; every k-th decade when
/// the range is huge; 2× and 5× multiples too when the range is small; and
/// unlabelled minor ticks at 2..9 × 10^k when there is room.
pub fn log_ticks(lo: f64, hi: f64, target: usize) -> Ticks {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    if !(lo > 0.0 && hi.is_finite() && lo.is_finite()) {
        return Ticks::default();
    }
    let target = target.clamp(2, 15);
    let l0 = lo.log10();
    let l1 = hi.log10();
    let e0 = (l0 - 1e-9).ceil() as i64;
    let e1 = (l1 + 1e-9).floor() as i64;
    let decades = if e1 >= e0 { (e1 - e0 + 1) as usize } else { 0 };
    let inside = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let pow = |e: i64| 10f64.powi(e as i32);

    // Huge range: every k-th decade.
    if decades > target {
        let k = [2usize, 3, 4, 5, 10, 20, 25, 50, 100]
            .into_iter()
            .find(|k| decades.div_ceil(*k) <= target)
            .unwrap_or(decades.div_ceil(target).max(1));
        let major: Vec<f64> = (e0..=e1)
            .filter(|e| e.rem_euclid(k as i64) == 0)
            .map(pow)
            .take(MAX_TICKS)
            .collect();
        let minor = if decades <= 3 * target {
            (e0..=e1)
                .filter(|e| e.rem_euclid(k as i64) != 0)
                .map(pow)
                .collect()
        } else {
            vec![]
        };
        return Ticks { major, minor };
    }

    let multiples = |ms: &[f64]| -> Vec<f64> {
        let mut v = Vec::new();
        for e in (e0 - 1)..=(e1 + 1) {
            for m in ms {
                let t = m * pow(e);
                if inside(t) {
                    v.push(t);
                }
            }
        }
        v
    };

    let decade_ticks = multiples(&[1.0]);
    let with_25 = multiples(&[1.0, 2.0, 5.0]);
    let all = multiples(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);

    let major = if with_25.len() <= target && with_25.len() >= 2 {
        with_25
    } else if decade_ticks.len() >= 2 {
        decade_ticks
    } else if all.len() >= 2 && all.len() <= target {
        all.clone()
    } else {
        // Less than a decade and too few "nice" multiples: linear ticks.
        return linear_ticks(lo, hi, target);
    };
    let minor = if decades <= 10 {
        all.into_iter()
            .filter(|t| {
                !major
                    .iter()
                    .any(|m| (m - t).abs() <= 1e-9 * t.abs().max(1e-300))
            })
            .collect()
    } else {
        vec![]
    };
    Ticks { major, minor }
}
