//! Number formatting (SI prefixes) and tick generation.

/// Format an axis tick compactly with SI prefixes and `sig` significant digits (1..=15); with
/// 3: `1e14 → "100T"`, `2e11 → "200G"`, `1.97e14 → "197T"`, `0.5 → "0.5"`, `1024 → "1024"`,
/// `12345 → "12.3k"`, `1e-5 → "1e-5"`. Bare numbers, no unit (the axis title says it); the
/// page's quantities with units go through `roofline::units::format_si`.
///
/// Values in `[0.001, 10000)` are written plainly (integers < 10000 keep all
/// their digits); larger values use k, M, G, T, P, E; anything beyond uses
/// scientific notation.
pub fn format_axis_si(v: f64, sig: usize) -> String {
    let sig = sig.clamp(1, 15);
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "∞" } else { "-∞" }.to_string();
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let a = v.abs();
    let body = if a >= 1e4 {
        prefixed(a, sig)
    } else if a >= 1e-3 {
        plain(a, sig)
    } else {
        scientific(a, sig)
    };
    format!("{sign}{body}")
}

/// `a` in [1e-3, 1e4): plain decimal, trailing zeros trimmed.
fn plain(a: f64, sig: usize) -> String {
    // Digits before the decimal point (<= 0 for a < 1).
    let int_digits = a.log10().floor() as i32 + 1;
    let decimals = (sig as i32 - int_digits).clamp(0, 17) as usize;
    let s = format!("{a:.decimals$}");
    if s.parse::<f64>().map(|r| r >= 1e4).unwrap_or(false) {
        return prefixed(a, sig);
    }
    trim_zeros(s)
}

const PREFIXES: [(f64, &str); 6] = [
    (1e3, "k"),
    (1e6, "M"),
    (1e9, "G"),
    (1e12, "T"),
    (1e15, "P"),
    (1e18, "E"),
];

fn prefixed(a: f64, sig: usize) -> String {
    let mut i = PREFIXES.iter().rposition(|(p, _)| a >= *p).unwrap_or(0);
    loop {
        let (p, name) = PREFIXES[i];
        let m = a / p;
        let int_digits = (m.log10().floor() as i32 + 1).max(1);
        let decimals = (sig as i32 - int_digits).clamp(0, 17) as usize;
        let s = format!("{m:.decimals$}");
        let rounded: f64 = s.parse().unwrap_or(m);
        if rounded >= 1000.0 {
            if i + 1 < PREFIXES.len() {
                i += 1;
                continue;
            }
            return scientific(a, sig);
        }
        return format!("{}{}", trim_zeros(s), name);
    }
}

fn scientific(a: f64, sig: usize) -> String {
    let s = format!("{:.*e}", sig - 1, a);
    match s.split_once('e') {
        Some((mant, exp)) => format!("{}e{}", trim_zeros(mant.to_string()), exp),
        None => s,
    }
}

fn trim_zeros(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Tick labels for an axis in seconds: each with its time prefix (`20 µs`, `1.5 ms`, `2 s`),
/// never an exponent; as many digits as it takes for neighbours to differ.
pub fn format_time_ticks(ticks: &[f64]) -> Vec<String> {
    const UNITS: [(f64, &str); 5] = [
        (1.0, "s"),
        (1e-3, "ms"),
        (1e-6, "µs"),
        (1e-9, "ns"),
        (1e-12, "ps"),
    ];
    let one = |t: f64, sig: usize| -> String {
        let a = t.abs();
        if t == 0.0 || !t.is_finite() || a >= 1e3 {
            return format!("{} s", format_axis_si(t, sig));
        }
        let (p, unit) = UNITS
            .iter()
            .copied()
            .find(|(p, _)| a >= *p * (1.0 - 1e-9))
            .unwrap_or(UNITS[UNITS.len() - 1]);
        format!("{} {unit}", format_axis_si(t / p, sig))
    };
    let mut labels = Vec::new();
    for sig in 3..=10 {
        labels = ticks.iter().map(|&t| one(t, sig)).collect();
        if labels.windows(2).all(|w| w[0] != w[1]) {
            break;
        }
    }
    labels
}

/// Format a list of tick values so that neighbouring labels are distinct,
/// using as few significant digits (>= 3) as possible.
///
/// When the axis reaches 10 000, thousands use the "k" prefix too, so decade
/// ticks read 100, 1k, 10k rather than 100, 1000, 10k.
pub fn format_ticks(ticks: &[f64]) -> Vec<String> {
    let big = ticks.iter().any(|t| t.abs() >= 1e4 && t.is_finite());
    let mut labels = Vec::new();
    for sig in 3..=10 {
        labels = ticks
            .iter()
            .map(|&t| {
                if big && t.abs() >= 1e3 && t.abs() < 1e4 {
                    let sign = if t < 0.0 { "-" } else { "" };
                    format!("{sign}{}", prefixed(t.abs(), sig))
                } else {
                    format_axis_si(t, sig)
                }
            })
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si() {
        assert_eq!(format_axis_si(1e14, 3), "100T");
        assert_eq!(format_axis_si(2e11, 3), "200G");
        assert_eq!(format_axis_si(1.97e14, 3), "197T");
        assert_eq!(format_axis_si(0.5, 3), "0.5");
        assert_eq!(format_axis_si(1024.0, 3), "1024");
        assert_eq!(format_axis_si(12345.0, 3), "12.3k");
        assert_eq!(format_axis_si(999_999.0, 3), "1M");
        assert_eq!(format_axis_si(0.0, 3), "0");
        assert_eq!(format_axis_si(-2e9, 3), "-2G");
        assert_eq!(format_axis_si(1e-5, 3), "1e-5");
        assert_eq!(format_axis_si(1e30, 3), "1e30");
        assert_eq!(format_axis_si(0.001, 3), "0.001");
        assert_eq!(format_axis_si(f64::NAN, 3), "NaN");
    }
}
