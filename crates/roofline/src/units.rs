//! Quantities at the edge: SI formatting and lenient parsing.
//!
//! Inside the crate every quantity is an `f64` in base units: FLOPs, bytes, seconds,
//! FLOPs/s, bytes/s. This module turns them into text and back:
//!
//! * [`format_quantity`]: pretty, 3 significant digits, decimal SI prefixes
//!   (`1.97e14` FLOPs/s → `197 TFLOP/s`, `8.2e11` B/s → `820 GB/s`, `2.32e-5` s → `23.2 µs`).
//! * [`format_exact`]: lossless, the shortest text that parses back to the same `f64`
//!   (`1.97e14`, `4096`, `0.5`). `parse_quantity(&format_exact(x)) == Ok(x)` for every finite `x`.
//! * [`format_bytes_binary`]: capacities with binary prefixes (`16 GiB`).
//! * [`parse_quantity`]: accepts `4096`, `1.97e14`, `197T`, `820G`, `16GiB`, `16GB`, `4k`,
//!   ` 820 GB/s `, `197 TFLOP/s`, `197 tflops`, `2 PFLOPs`, `2 PF`, `8 TBps`, `2,000T`,
//!   `3.35 TB/s`, `2.3 ms`, `128 MiB`. It never panics.
//!
//! Prefixes: `k`/`K` 1e3, `M` 1e6, `G`/`g` 1e9, `T`/`t` 1e12, `P` 1e15, `E` 1e18,
//! `m` 1e-3, `u`/`µ` 1e-6, `n` 1e-9, `p` 1e-12; binary `Ki Mi Gi Ti Pi Ei` are powers of 1024
//! (any case). Before a unit of FLOPs or bytes, where a milli- or pico- prefix means nothing,
//! `m` and `p` are read as mega and peta too, so units read case-insensitively (`2 pflops`,
//! `128 mb`); before seconds or a bare number they keep their SI meaning (`2.3 ms`). Commas
//! group thousands (`2,000T`, `1,048,576`); any other comma is refused, not read as a decimal
//! point.
//! Both `GB` (1e9 bytes) and `GiB` (2^30 bytes) are understood for capacities. Bandwidths and
//! FLOP rates are always decimal.

use crate::error::Error;
use serde::{Deserialize, Serialize};

/// The physical unit of a quantity (what [`format_quantity`] appends and [`parse_quantity_unit`]
/// recognises).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A number of floating-point operations, symbol `FLOP` (`FLOPs`, `OPs` also read).
    Flops,
    /// Operations per second, symbol `FLOP/s` (`FLOPS`, `FLOPs/s`, `OP/s`, `TOPS` also read).
    FlopRate,
    /// Bytes, symbol `B` (`byte`, `bytes` also read).
    Bytes,
    /// Bytes per second, symbol `B/s` (`bytes/s` also read).
    ByteRate,
    /// Seconds, symbol `s`.
    Seconds,
    /// Arithmetic intensity, symbol `FLOP/B`.
    Intensity,
    /// A plain count (batch size, elements): no symbol, prefix glued on (`4.1k`).
    Count,
}

impl Unit {
    /// The symbol [`format_quantity`] appends (`FLOP/s`, `B/s`, ...; empty for [`Unit::Count`]).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Flops => "FLOP",
            Unit::FlopRate => "FLOP/s",
            Unit::Bytes => "B",
            Unit::ByteRate => "B/s",
            Unit::Seconds => "s",
            Unit::Intensity => "FLOP/B",
            Unit::Count => "",
        }
    }

    /// Reads a unit symbol (case-insensitive except `FLOPS`/`OPS`, which mean a rate while
    /// `FLOPs`/`flops` mean a count).
    fn from_suffix(s: &str) -> Option<Unit> {
        if s == "FLOPS" || s == "OPS" {
            return Some(Unit::FlopRate);
        }
        let l = s.to_ascii_lowercase();
        Some(match l.as_str() {
            "flop" | "flops" | "op" | "ops" | "f" => Unit::Flops,
            "flop/s" | "flops/s" | "op/s" | "ops/s" => Unit::FlopRate,
            "b" | "byte" | "bytes" => Unit::Bytes,
            // `Bps` is bytes per second (`8 TBps`); a lowercase `bps` is bits (`400 Gbps`), 8×
            // less, and refused rather than misread (see `parse_suffix`).
            "b/s" | "byte/s" | "bytes/s" => Unit::ByteRate,
            "bps" if s != "bps" => Unit::ByteRate,
            "s" | "sec" | "secs" | "second" | "seconds" => Unit::Seconds,
            "flop/b" | "flops/b" | "flop/byte" | "flops/byte" | "op/b" | "ops/byte" => {
                Unit::Intensity
            }
            _ => return None,
        })
    }
}

/// Parses a quantity; see [`parse_quantity_unit`] for the grammar. The unit, if any, is
/// dropped.
///
/// ```
/// use roofline::units::parse_quantity;
/// assert_eq!(parse_quantity("197T").unwrap(), 1.97e14);
/// assert_eq!(parse_quantity(" 820 GB/s ").unwrap(), 8.2e11);
/// assert_eq!(parse_quantity("16GiB").unwrap(), 16.0 * 1024.0 * 1024.0 * 1024.0);
/// assert_eq!(parse_quantity("4k").unwrap(), 4000.0);
/// assert!(parse_quantity("twelve").is_err());
/// ```
pub fn parse_quantity(s: &str) -> Result<f64, Error> {
    parse_quantity_unit(s).map(|(v, _)| v)
}

/// Parses `[sign] digits [. digits] [e exp] [space] [prefix] [unit]`, trimming whitespace.
///
/// Returns the value in base units and the unit named, if any. Decimal prefixes are applied
/// in decimal (`1.6T` is exactly the `f64` nearest 1.6e12), binary prefixes multiply by a power
/// of two. Errors on empty text, text that is not a number, unknown suffixes, results that
/// are not finite and non-zero numbers that round to 0 (`1e-400`). Never panics.
pub fn parse_quantity_unit(s: &str) -> Result<(f64, Option<Unit>), Error> {
    let t = s.trim();
    if t.is_empty() {
        return Err(Error::parse(
            s,
            "empty; expected a number like 4096, 1.97e14, 197T or 16GiB",
        ));
    }
    let t = &*ungroup(t).map_err(|m| Error::parse(s, m))?;
    if rest_is_bits(t) {
        return Err(Error::parse(
            s,
            "`bps` is bits per second; give bytes per second (B/s, Bps), 8× less",
        ));
    }
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return Err(Error::parse(
            s,
            "not a number; expected e.g. 4096, 1.97e14, 197T, 820G, 16GiB or 4k",
        ));
    }
    let mant_end = i;
    let mut exp: i64 = 0;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        let mut neg = false;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            neg = b[j] == b'-';
            j += 1;
        }
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            // Saturate: huge exponents end up as 0 or infinity, both handled below.
            exp = exp
                .saturating_mul(10)
                .saturating_add(i64::from(b[j] - b'0'))
                .min(1_000_000);
            j += 1;
        }
        if j > start {
            if neg {
                exp = -exp;
            }
            i = j;
        }
    }
    // Everything before `i` is ASCII, so these slices are on char boundaries.
    let mant_text = &t[..mant_end];
    let rest = t[i..].trim_start();

    let (scale, unit) = parse_suffix(rest).ok_or_else(|| {
        Error::parse(
            s,
            format!(
                "unknown unit suffix `{}`; use a prefix (k M G T P, Ki Mi Gi Ti) and/or a unit \
                 (FLOP, FLOP/s, B, B/s, s)",
                crate::error::clip(rest)
            ),
        )
    })?;
    let value = match scale {
        Scale::Decimal(p) => {
            let text = format!("{mant_text}e{}", exp.saturating_add(p));
            text.parse::<f64>()
                .map_err(|_| Error::parse(s, "not a number"))?
        }
        Scale::Binary(k) => {
            let text = format!("{mant_text}e{exp}");
            let v = text
                .parse::<f64>()
                .map_err(|_| Error::parse(s, "not a number"))?;
            v * 2f64.powi(k)
        }
    };
    if !value.is_finite() {
        return Err(Error::parse(s, "too large: not a finite number"));
    }
    if value == 0.0 && mant_text.bytes().any(|c| (b'1'..=b'9').contains(&c)) {
        // `1e-400` is not 0: refuse it as `1e999` is refused, rather than change its meaning.
        return Err(Error::parse(s, "too small: rounds to 0"));
    }
    Ok((value, unit))
}

/// A rate in bits per second (`400 Gbps`, `1bps`): lowercase `bps` at the end.
fn rest_is_bits(t: &str) -> bool {
    t.strip_suffix("bps").is_some_and(|head| {
        head.trim_end()
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_digit() || c.is_ascii_alphabetic() || c == '.')
    })
}

enum Scale {
    Decimal(i64),
    Binary(i32),
}

fn parse_suffix(rest: &str) -> Option<(Scale, Option<Unit>)> {
    if rest.is_empty() {
        return Some((Scale::Decimal(0), None));
    }
    if let Some(u) = Unit::from_suffix(rest) {
        return Some((Scale::Decimal(0), Some(u)));
    }
    let unit_or_none = |r: &str| -> Option<Option<Unit>> {
        let r = r.trim_start();
        if r.is_empty() {
            Some(None)
        } else {
            Unit::from_suffix(r).map(Some)
        }
    };
    // Binary prefixes: Ki Mi Gi Ti Pi Ei (also ki, gi, ti).
    let mut chars = rest.chars();
    let first = chars.next()?;
    let second = chars.next();
    if matches!(second, Some('i' | 'I')) {
        let k = match first {
            'K' | 'k' => Some(10),
            'M' | 'm' => Some(20),
            'G' | 'g' => Some(30),
            'T' | 't' => Some(40),
            'P' | 'p' => Some(50),
            'E' | 'e' => Some(60),
            _ => None,
        };
        if let Some(k) = k {
            let after = &rest[first.len_utf8() + 1..];
            if let Some(u) = unit_or_none(after) {
                return Some((Scale::Binary(k), u));
            }
        }
    }
    let p = match first {
        'k' | 'K' => 3,
        'M' => 6,
        'G' | 'g' => 9,
        'T' | 't' => 12,
        'P' => 15,
        'E' => 18,
        'm' => -3,
        'u' | 'µ' | 'μ' => -6,
        'n' => -9,
        'p' => -12,
        _ => return None,
    };
    let after = &rest[first.len_utf8()..];
    let unit = unit_or_none(after)?;
    // Milli- and pico-FLOPs or bytes mean nothing: `2 pflops` is 2 peta, `128 mb` 128 mega.
    let p = match (first, unit) {
        ('m' | 'p', Some(Unit::Seconds) | None) => p,
        ('m', Some(_)) => 6,
        ('p', Some(_)) => 15,
        _ => p,
    };
    Some((Scale::Decimal(p), unit))
}

/// Removes the commas of thousands groups from the integer part (`2,000T` → `2000T`,
/// `1,048,576` → `1048576`). A comma anywhere else, or groups not of three digits (`1,5`,
/// `20,00`), is an error: a decimal comma must not be read as a thousands separator.
fn ungroup(t: &str) -> Result<std::borrow::Cow<'_, str>, &'static str> {
    if !t.contains(',') {
        return Ok(std::borrow::Cow::Borrowed(t));
    }
    let sign = usize::from(t.starts_with(['+', '-']));
    let int_end = t[sign..]
        .find(|c: char| !(c.is_ascii_digit() || c == ','))
        .map_or(t.len(), |k| k + sign);
    let (int, tail) = (&t[sign..int_end], &t[int_end..]);
    let groups: Vec<&str> = int.split(',').collect();
    let grouped = !tail.contains(',')
        && (1..=3).contains(&groups[0].len())
        && groups[1..].iter().all(|g| g.len() == 3);
    if !grouped {
        return Err("a comma may only group thousands (2,000 or 1,048,576); write decimals with a point (1.5)");
    }
    Ok(std::borrow::Cow::Owned(format!(
        "{}{}{tail}",
        &t[..sign],
        groups.concat()
    )))
}

/// Lossless formatting: the shortest text that [`parse_quantity`] reads back to exactly `x`.
///
/// Picks the shorter of Rust's shortest round-trip decimal (`4096`, `0.5`) and scientific
/// (`1.97e14`, `1e-5`) forms. Non-finite values give `inf`, `-inf` or `NaN` (which
/// [`parse_quantity`] rejects).
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

const PREFIXES: [(i32, &str); 12] = [
    (18, "E"),
    (15, "P"),
    (12, "T"),
    (9, "G"),
    (6, "M"),
    (3, "k"),
    (0, ""),
    (-3, "m"),
    (-6, "µ"),
    (-9, "n"),
    (-12, "p"),
    (-15, "f"),
];

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
    if out.contains('.') {
        while out.ends_with('0') {
            out.pop();
        }
        if out.ends_with('.') {
            out.pop();
        }
    }
    out
}

/// Pretty formatting with 3 significant digits and a decimal SI prefix.
///
/// `format_quantity(1.97e14, Unit::FlopRate) == "197 TFLOP/s"`,
/// `format_quantity(8.2e11, Unit::ByteRate) == "820 GB/s"`, `format_quantity(1.6e12, Unit::ByteRate) ==
/// "1.6 TB/s"`, `format_quantity(2.3236e-5, Unit::Seconds) == "23.2 µs"`,
/// `format_quantity(4096.0, Unit::Count) == "4.1k"`. Zero gives `0 B`; non-finite values give `∞`
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
    let (digits, e10) = round_sig(x, 3);
    let e3 = e10.div_euclid(3) * 3;
    match PREFIXES.iter().find(|(p, _)| *p == e3) {
        Some((p, prefix)) if unit != Unit::Count || *p >= 0 => {
            let num = place_point(&digits, e10 - p + 1);
            glue(format!("{sign}{num}"), prefix)
        }
        _ => glue(format!("{sign}{}", format_sig(x.abs(), 3)), ""),
    }
}

/// Formats a value for a form field, the way people read it and without losing a digit:
/// `1.97e14` FLOP/s → `197 TFLOP/s`, `8.2e11` B/s → `820 GB/s`, `3.35e12` → `3.35 TB/s`,
/// `134217728` bytes → `128 MiB`, `16e9` bytes → `16 GB`, `1e-6` s → `1 µs`.
/// [`parse_quantity`] reads the text back to exactly `x` (the digits are the shortest that
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
        .find(|(p, _)| *p == e3 && (*p >= 0 || unit == Unit::Seconds) && *p >= -12)
        .map(|(p, prefix)| format!("{sign}{} {prefix}{sym}", place_point(&digits, e10 - p + 1)));
    // Binary, for capacities: exact division by a power of two.
    let binary = (unit == Unit::Bytes && x.abs() >= 1024.0)
        .then(|| {
            let k = ((x.abs().log2() / 10.0).floor() as i32).clamp(1, 6);
            let v = x.abs() / 2f64.powi(10 * k);
            let (d, e) = shortest_digits(v);
            let prefix = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][(k - 1) as usize];
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
    const BIN: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let mut v = x.abs();
    let mut idx = 0usize;
    v /= 1024.0;
    while v >= 1024.0 && idx + 1 < BIN.len() {
        v /= 1024.0;
        idx += 1;
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, e10) = round_sig(v, 3);
    format!("{sign}{} {}B", place_point(&digits, e10 + 1), BIN[idx])
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
        format!("{sign}{}e{e10}", place_point(&digits, 1))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty() {
        assert_eq!(format_quantity(1.97e14, Unit::FlopRate), "197 TFLOP/s");
        assert_eq!(format_quantity(8.2e11, Unit::ByteRate), "820 GB/s");
        assert_eq!(format_quantity(1.6e12, Unit::ByteRate), "1.6 TB/s");
        assert_eq!(format_quantity(2.3236e-5, Unit::Seconds), "23.2 µs");
        assert_eq!(format_quantity(999.7, Unit::Bytes), "1 kB");
        assert_eq!(format_quantity(16e9, Unit::Bytes), "16 GB");
        assert_eq!(format_quantity(4096.0, Unit::Count), "4.1k");
        assert_eq!(format_quantity(0.5, Unit::Count), "0.5");
        assert_eq!(format_quantity(240.24, Unit::Intensity), "240 FLOP/B");
        assert_eq!(format_quantity(1e30, Unit::Flops), "1e30 FLOP");
        assert_eq!(
            format_bytes_binary(16.0 * 1024.0 * 1024.0 * 1024.0),
            "16 GiB"
        );
        assert_eq!(format_bytes_binary(128.0 * 1024.0 * 1024.0), "128 MiB");
        assert_eq!(format_sig(136.0812, 4), "136.1");
        assert_eq!(format_sig(2.3236e-5, 3), "2.32e-5");
        assert_eq!(format_sig(1.97e14, 3), "1.97e14");
        assert_eq!(num3(4096.0), "4096");
    }

    #[test]
    fn field_text_reads_back_exactly() {
        for (x, unit, text) in [
            (1.97e14, Unit::FlopRate, "197 TFLOP/s"),
            (9.89e14, Unit::FlopRate, "989 TFLOP/s"),
            (8.2e11, Unit::ByteRate, "820 GB/s"),
            (3.35e12, Unit::ByteRate, "3.35 TB/s"),
            (4.5e10, Unit::ByteRate, "45 GB/s"),
            (16e9, Unit::Bytes, "16 GB"),
            (134_217_728.0, Unit::Bytes, "128 MiB"),
            (16.0 * 1024.0 * 1024.0 * 1024.0, Unit::Bytes, "16 GiB"),
            (1e-6, Unit::Seconds, "1 µs"),
            (2.7e-6, Unit::Seconds, "2.7 µs"),
            (2.765e12, Unit::ByteRate, "2.765 TB/s"),
            (1.2345678901e14, Unit::FlopRate, "123.45678901 TFLOP/s"),
            (4096.0, Unit::Count, "4096"),
            (0.0, Unit::Bytes, "0"),
        ] {
            let t = format_field(x, unit);
            assert_eq!(t, text, "{x}");
            assert_eq!(parse_quantity(&t).unwrap(), x, "{t}");
        }
        // Every value reads back exactly, whatever its digits.
        let mut x = 1.0e-17f64;
        while x < 1e22 {
            for unit in [Unit::FlopRate, Unit::ByteRate, Unit::Bytes, Unit::Seconds] {
                for v in [
                    x,
                    x * 1.000_000_1,
                    x * std::f64::consts::PI,
                    (x * 7.0).round(),
                ] {
                    let t = format_field(v, unit);
                    assert_eq!(parse_quantity(&t).unwrap(), v, "{v} {unit:?}: {t}");
                }
            }
            x *= 1.7;
        }
    }

    #[test]
    fn parsing() {
        for (s, v) in [
            ("4096", 4096.0),
            ("1.97e14", 1.97e14),
            ("197T", 1.97e14),
            ("820G", 8.2e11),
            ("16GB", 16e9),
            ("4k", 4000.0),
            ("1.6T", 1.6e12),
            (" 197 TFLOP/s ", 1.97e14),
            ("820 GB/s", 8.2e11),
            ("2 B", 2.0),
            ("2.3 ms", 2.3e-3),
            ("1.5e3k", 1.5e6),
            ("-5", -5.0),
            (".5", 0.5),
            ("1E", 1e18),
            ("3958 TFLOPS", 3.958e15),
            // Units as people type them (issue 17), case-insensitively.
            ("197 tflops", 1.97e14),
            ("197 TFLOPs", 1.97e14),
            ("2 PFLOPs", 2e15),
            ("2 pflops", 2e15),
            ("2 PF", 2e15),
            ("2 pf", 2e15),
            ("8 TBps", 8e12),
            ("8 TBPS", 8e12),
            ("2,000T", 2e15),
            ("1,048,576", 1_048_576.0),
            ("-1,000", -1000.0),
            ("3.35 TB/s", 3.35e12),
            ("3.35 tb/s", 3.35e12),
            ("820 gb/s", 8.2e11),
            ("128 mb", 1.28e8),
            ("2.3 ms", 2.3e-3),
            ("5 ps", 5e-12),
            ("5m", 5e-3),
        ] {
            assert_eq!(parse_quantity(s).unwrap(), v, "{s}");
        }
        assert_eq!(
            parse_quantity("16GiB").unwrap(),
            16.0 * 1024.0 * 1024.0 * 1024.0
        );
        for (s, k) in [
            ("16 GiB", 30),
            ("16 gib", 30),
            ("128 MiB", 20),
            ("128 mib", 20),
            ("1 TIB", 40),
        ] {
            assert_eq!(
                parse_quantity(s).unwrap(),
                2f64.powi(k) * parse_quantity(&s[..s.find(' ').unwrap()]).unwrap(),
                "{s}"
            );
        }
        assert_eq!(parse_quantity("128 MiB").unwrap(), 134_217_728.0);
        assert_eq!(parse_quantity_unit("16 GB").unwrap().1, Some(Unit::Bytes));
        assert_eq!(
            parse_quantity_unit("1 TFLOPS").unwrap().1,
            Some(Unit::FlopRate)
        );
        for bad in [
            "",
            " ",
            "abc",
            "1e",
            "e5",
            "1x",
            "inf",
            "NaN",
            "1e999",
            "--1",
            ".",
            "4 kk",
            "1e-400",
            "0.001e-330",
            "1e-330p",
            // A decimal comma is not a thousands separator, and bits are not bytes.
            "1,5",
            "20,00",
            "2,000,0",
            ",5",
            "1,000.5,0",
            "400 Gbps",
            "1bps",
        ] {
            // "1e" is read as 1 exa only with a capital E
            let r = parse_quantity(bad);
            assert!(r.is_err(), "{bad:?} gave {r:?}");
        }
        // A long unknown suffix is cut in the message.
        let e = parse_quantity(&format!("1{}", "x".repeat(10_000))).unwrap_err();
        assert!(e.to_string().chars().count() < 300, "{e}");
    }
}
