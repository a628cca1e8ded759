//! Writing quantities, the crate's and the page's one formatter: it alone owns the SI and
//! binary prefixes and the rounding to significant digits. Lossless ([`format_exact`]), pretty
//! with 3 significant digits ([`format_quantity`], [`format_bytes_binary`], [`format_sig`]),
//! for form fields readable and lossless at once ([`format_field`]), compact for chart axes
//! ([`format_si`], [`format_si_thousands`], [`format_time_si`]) and parameter counts
//! ([`format_params`]).

use super::Unit;

/// Lossless formatting: the shortest text that [`parse_quantity`](super::parse_quantity) reads back to exactly `x`.
///
/// Picks the shorter of Rust's shortest round-trip decimal (`4096`, `0.5`) and scientific
/// (`1.97e14`, `1e-5`) forms. Non-finite values give `inf`, `-inf` or `NaN` (which
/// [`parse_quantity`](super::parse_quantity) rejects).
///
/// ```
/// use roofline::units::{format_exact, parse_quantity};
/// assert_eq!(format_exact(1.97e14), "1.97e14");
/// assert_eq!(format_exact(4096.0), "4096");
/// assert_eq!(format_exact(0.5), "0.5");
/// assert_eq!(parse_quantity(&format_exact(0.1 + 0.2)).unwrap(), 0.1 + 0.2);
/// ```
pub fn format_exact(x: f64) -> String {
    let plain = format!("{x}");
    let sci = format!("{x:e}");
    if sci.len() < plain.len() {
        sci
    } else {
        plain
    }
}

/// The SI prefixes: decimal exponent, scale (the literal, exact where `10^e` is), symbol.
const PREFIXES: [(i32, f64, &str); 12] = [
    (18, 1e18, "E"),
    (15, 1e15, "P"),
    (12, 1e12, "T"),
    (9, 1e9, "G"),
    (6, 1e6, "M"),
    (3, 1e3, "k"),
    (0, 1.0, ""),
    (-3, 1e-3, "m"),
    (-6, 1e-6, "µ"),
    (-9, 1e-9, "n"),
    (-12, 1e-12, "p"),
    (-15, 1e-15, "f"),
];

/// The binary prefixes of capacities, 2^10 to 2^60.
const BINARY: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// Splits `x` rounded to `sig` significant digits into (digits, decimal exponent of the first
/// digit). `x` must be finite and non-zero.
fn round_sig(x: f64, sig: usize) -> (String, i32) {
    let s = format!("{:.*e}", sig.saturating_sub(1), x.abs());
    let (m, e) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let digits: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, e.parse().unwrap_or(0))
}

/// Places the decimal point `int_len` digits into `digits` (padding with zeros), and trims
/// trailing fractional zeros.
fn place_point(digits: &str, int_len: i32) -> String {
    let mut out = String::new();
    if int_len <= 0 {
        out.push_str("0.");
        for _ in 0..(-int_len) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let n = int_len as usize;
        if digits.len() <= n {
            out.push_str(digits);
            for _ in digits.len()..n {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..n]);
            out.push('.');
            out.push_str(&digits[n..]);
        }
    }
    trim_zeros(out)
}

/// Trims trailing fractional zeros, and then a trailing point: `12.50` → `12.5`, `3.0` → `3`.
fn trim_zeros(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `a` (> 0) rounded to `sig` significant digits in scientific form without padding:
/// `1.97e14`, `2.32e-5`, `2e5`.
fn scientific(a: f64, sig: usize) -> String {
    let (digits, e10) = round_sig(a, sig);
    sci_text(&digits, e10)
}

/// Rounded digits with the exponent of the first: `("197", 14)` → `1.97e14`.
fn sci_text(digits: &str, e10: i32) -> String {
    format!("{}e{e10}", place_point(digits, 1))
}

/// [`format_quantity`] as the page shows a figure: `—` where the value is not finite (a
/// figure that could not be computed), never `∞` or `NaN`.
pub fn format_shown(x: f64, unit: Unit) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    format_quantity(x, unit)
}

/// Pretty formatting with 3 significant digits and a decimal SI prefix.
///
/// `format_quantity(1.97e14, Unit::FlopRate) == "197 TFLOP/s"`,
/// `format_quantity(8.2e11, Unit::ByteRate) == "820 GB/s"`, `format_quantity(1.6e12, Unit::ByteRate) ==
/// "1.6 TB/s"`, `format_quantity(2.3236e-5, Unit::Seconds) == "23.2 µs"`,
/// `format_quantity(4096.0, Unit::Count) == "4.1k"`; 1000 s and more in minutes, hours or days
/// (`format_quantity(3580.0, Unit::Seconds) == "59.7 min"`). Zero gives `0 B`; non-finite values give `∞`
/// or `NaN` with the unit. Lossy: use [`format_exact`] for round trips.
pub fn format_quantity(x: f64, unit: Unit) -> String {
    let sep = if unit == Unit::Count { "" } else { " " };
    let sym = unit.symbol();
    let glue = |num: String, prefix: &str| -> String {
        if prefix.is_empty() && sym.is_empty() {
            num
        } else {
            format!("{num}{sep}{prefix}{sym}")
        }
    };
    if x.is_nan() {
        return glue("NaN".into(), "");
    }
    if x.is_infinite() {
        return glue(if x > 0.0 { "∞" } else { "-∞" }.into(), "");
    }
    if x == 0.0 {
        return glue("0".into(), "");
    }
    let sign = if x < 0.0 { "-" } else { "" };
    if unit == Unit::Seconds && x.abs() >= 1000.0 {
        return format!("{sign}{}", long_duration(x.abs()));
    }
    let (digits, e10) = round_sig(x, 3);
    let e3 = e10.div_euclid(3) * 3;
    match PREFIXES.iter().find(|(p, _, _)| *p == e3) {
        Some((p, _, prefix)) if unit != Unit::Count || *p >= 0 => {
            let num = place_point(&digits, e10 - p + 1);
            glue(format!("{sign}{num}"), prefix)
        }
        _ => glue(format!("{sign}{}", format_sig(x.abs(), 3)), ""),
    }
}

/// A duration of 1000 s or more in the unit people read it in, 3 significant digits:
/// `16.7 min`, `2.6 h`, `44.7 days` (never `ks`).
fn long_duration(x: f64) -> String {
    let (v, unit) = if x < 7200.0 {
        (x / 60.0, "min")
    } else if x < 172_800.0 {
        (x / 3600.0, "h")
    } else {
        (x / 86_400.0, "days")
    };
    format!("{} {unit}", format_sig(v, 3))
}

/// Formats a value for a form field, the way people read it and without losing a digit:
/// `1.97e14` FLOP/s → `197 TFLOP/s`, `8.2e11` B/s → `820 GB/s`, `3.35e12` → `3.35 TB/s`,
/// `134217728` bytes → `128 MiB`, `16e9` bytes → `16 GB`, `1e-6` s → `1 µs`.
/// [`parse_quantity`](super::parse_quantity) reads the text back to exactly `x` (the digits are the shortest that
/// round-trip, only the decimal point moves). Capacities take binary prefixes when their digits
/// are fewer. Counts, zero, non-finite values and magnitudes beyond the prefixes give
/// [`format_exact`].
///
/// ```
/// use roofline::units::{format_field, parse_quantity, Unit};
/// assert_eq!(format_field(1.97e14, Unit::FlopRate), "197 TFLOP/s");
/// assert_eq!(format_field(134217728.0, Unit::Bytes), "128 MiB");
/// assert_eq!(parse_quantity(&format_field(2.765e12, Unit::ByteRate)).unwrap(), 2.765e12);
/// ```
pub fn format_field(x: f64, unit: Unit) -> String {
    if unit == Unit::Count || unit == Unit::Flops || !x.is_finite() || x == 0.0 {
        return format_exact(x);
    }
    let sym = unit.symbol();
    let sign = if x < 0.0 { "-" } else { "" };
    // Decimal: the shortest round-trip digits with the point moved to the prefix.
    let (digits, e10) = shortest_digits(x.abs());
    let e3 = e10.div_euclid(3) * 3;
    // Below one, only seconds take a prefix (`m` and `p` before FLOPs and bytes read as mega
    // and peta).
    let decimal = PREFIXES
        .iter()
        .find(|(p, _, _)| *p == e3 && (*p >= 0 || unit == Unit::Seconds) && *p >= -12)
        .map(|(p, _, prefix)| format!("{sign}{} {prefix}{sym}", place_point(&digits, e10 - p + 1)));
    // Binary, for capacities: exact division by a power of two.
    let binary = (unit == Unit::Bytes && x.abs() >= 1024.0)
        .then(|| {
            let k = ((libm::log2(x.abs()) / 10.0).floor() as i32).clamp(1, 6);
            let v = x.abs() / 2f64.powi(10 * k);
            let (d, e) = shortest_digits(v);
            let prefix = BINARY[(k - 1) as usize];
            (
                d.len(),
                format!("{sign}{} {prefix}B", place_point(&d, e + 1)),
            )
        })
        .filter(|(n, _)| *n < digits.len());
    match (binary, decimal) {
        (Some((_, b)), _) => b,
        (None, Some(d)) => d,
        (None, None) => format_exact(x),
    }
}

/// The shortest digits that round-trip `x` (> 0) and the decimal exponent of the first one:
/// `1.97e14` → (`197`, 14).
fn shortest_digits(x: f64) -> (String, i32) {
    let s = format!("{x:e}");
    let (m, e) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let digits: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (digits.to_string(), e.parse().unwrap_or(0))
}

/// Formats a capacity with binary prefixes and 3 significant digits: `16 GiB`, `128 MiB`.
pub fn format_bytes_binary(x: f64) -> String {
    if !x.is_finite() || x.abs() < 1024.0 {
        return format_quantity(x, Unit::Bytes);
    }
    let mut v = x.abs();
    let mut idx = 0usize;
    v /= 1024.0;
    while v >= 1024.0 && idx + 1 < BINARY.len() {
        v /= 1024.0;
        idx += 1;
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, e10) = round_sig(v, 3);
    format!("{sign}{} {}B", place_point(&digits, e10 + 1), BINARY[idx])
}

/// Formats `x` with `sig` significant digits in the style of the book's worked answers:
/// plain decimals between 1e-3 and 1e5 (`240`, `136.1`, `0.5`), otherwise scientific without
/// padding (`1.97e14`, `2.32e-5`). Trailing zeros are trimmed.
pub fn format_sig(x: f64, sig: usize) -> String {
    if !x.is_finite() {
        return format_exact(x);
    }
    if x == 0.0 {
        return "0".into();
    }
    let sig = sig.clamp(1, 17);
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, e10) = round_sig(x, sig);
    if (-3..5).contains(&e10) {
        format!("{sign}{}", place_point(&digits, e10 + 1))
    } else {
        format!("{sign}{}", sci_text(&digits, e10))
    }
}

/// Formats a result for a derivation line: exact when `x` is an integer below 1e6
/// (`4096`, `19005440` is too big and becomes `1.9e7`), else [`format_sig`] with 3 digits.
pub(crate) fn num3(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e6 {
        format_exact(x)
    } else {
        format_sig(x, 3)
    }
}

/// A bare number, compact, with `sig` significant digits (1 to 15) and an SI prefix from `k`
/// up, for chart axes and labels (the unit is written beside it): with 3, `1e14` → `100T`,
/// `2e11` → `200G`, `1.97e14` → `197T`, `0.5` → `0.5`, `12345` → `12.3k`, `1e-5` → `1e-5`.
///
/// Values in `[0.001, 10000)` are written plainly (integers keep all their digits: `1024`);
/// larger values take k, M, G, T, P, E; anything beyond, or below 0.001, is scientific.
///
/// ```
/// use roofline::units::format_si;
/// assert_eq!(format_si(1.97e14, 3), "197T");
/// assert_eq!(format_si(1024.0, 3), "1024");
/// assert_eq!(format_si(1e-5, 3), "1e-5");
/// ```
pub fn format_si(x: f64, sig: usize) -> String {
    compact(x, sig, 1e4)
}

/// [`format_si`] with thousands prefixed too (`1k`, `2.5k`, never `1000`): for the ticks of an
/// axis that reaches 10k, so that decades read 100, 1k, 10k.
pub fn format_si_thousands(x: f64, sig: usize) -> String {
    compact(x, sig, 1e3)
}

/// The compact form, with a prefix from `from` (1e3 or 1e4) up.
fn compact(x: f64, sig: usize, from: f64) -> String {
    let sig = sig.clamp(1, 15);
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞" } else { "-∞" }.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    let body = if a >= from {
        prefixed(a, sig)
    } else if a >= 1e-3 {
        plain(a, sig)
    } else {
        scientific(a, sig)
    };
    format!("{sign}{body}")
}

/// `a` in [1e-3, 1e4): plain decimal with `sig` significant digits (all of an integer's),
/// trailing zeros trimmed.
fn plain(a: f64, sig: usize) -> String {
    // Digits before the decimal point (<= 0 for a < 1).
    let int_digits = libm::log10(a).floor() as i32 + 1;
    let decimals = (sig as i32 - int_digits).clamp(0, 17) as usize;
    let s = format!("{a:.decimals$}");
    if s.parse::<f64>().map(|r| r >= 1e4).unwrap_or(false) {
        return prefixed(a, sig);
    }
    trim_zeros(s)
}

/// `a` (>= 1e3) with the largest prefix from `k` to `E` that leaves it below 1000 once rounded;
/// scientific beyond `E`.
fn prefixed(a: f64, sig: usize) -> String {
    // `E` down to `k`: the largest that `a` reaches, then larger ones while it rounds to 1000.
    let up = &PREFIXES[..6];
    let mut i = up
        .iter()
        .position(|(_, p, _)| a >= *p)
        .unwrap_or(up.len() - 1);
    loop {
        let (_, p, name) = up[i];
        let m = a / p;
        let int_digits = (libm::log10(m).floor() as i32 + 1).max(1);
        let decimals = (sig as i32 - int_digits).clamp(0, 17) as usize;
        let s = format!("{m:.decimals$}");
        let rounded: f64 = s.parse().unwrap_or(m);
        if rounded >= 1000.0 {
            if i > 0 {
                i -= 1;
                continue;
            }
            return scientific(a, sig);
        }
        return format!("{}{}", trim_zeros(s), name);
    }
}

/// A time with its prefix (`20 µs`, `1.5 ms`, `2 s`, down to `ps`), never an exponent below a
/// second: the value in its unit through [`format_si`] with `sig` digits. Zero, non-finite
/// values and 1000 s or more are in seconds.
///
/// ```
/// use roofline::units::format_time_si;
/// assert_eq!(format_time_si(2e-5, 3), "20 µs");
/// assert_eq!(format_time_si(1.5e-3, 3), "1.5 ms");
/// ```
pub fn format_time_si(t: f64, sig: usize) -> String {
    let a = t.abs();
    if t == 0.0 || !t.is_finite() || a >= 1e3 {
        return format!("{} s", format_si(t, sig));
    }
    // Seconds down to picoseconds, largest first; a hair under a unit still reads in it.
    let (scale, prefix) = PREFIXES
        .iter()
        .filter(|(e, _, _)| (-12..=0).contains(e))
        .find(|(_, p, _)| a >= *p * (1.0 - 1e-9))
        .or(PREFIXES.iter().find(|(e, _, _)| *e == -12))
        .map_or((1.0, ""), |&(_, p, s)| (p, s));
    format!("{} {prefix}s", format_si(t / scale, sig))
}

/// A parameter count as people write it, 4 significant digits: `46.7B`, `124M`, `1.2T`; past a
/// thousand trillion, plain scientific (`5.637e19`, never `5.637e7T`).
///
/// ```
/// use roofline::units::format_params;
/// assert_eq!(format_params(70.6e9), "70.6B");
/// assert_eq!(format_params(5.637e19), "5.637e19");
/// ```
pub fn format_params(v: f64) -> String {
    match v {
        v if v >= 1e15 => format_sig(v, 4),
        v if v >= 1e12 => format!("{}T", format_sig(v / 1e12, 4)),
        v if v >= 1e9 => format!("{}B", format_sig(v / 1e9, 4)),
        v if v >= 1e6 => format!("{}M", format_sig(v / 1e6, 4)),
        v => format_sig(v, 4),
    }
}
