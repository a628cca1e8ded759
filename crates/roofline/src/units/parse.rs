//! Reading quantities people type: numbers with SI or binary prefixes and units (see the
//! module's grammar in [`parse_quantity_unit`]). Never panics.

use super::Unit;
use crate::error::Error;

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
