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

mod format;
mod parse;

pub(crate) use format::num3;
pub use format::{
    format_bytes_binary, format_exact, format_field, format_params, format_quantity, format_shown,
    format_si, format_si_thousands, format_sig, format_time_si,
};
pub use parse::{parse_quantity, parse_quantity_unit};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty() {
        assert_eq!(format_quantity(1.97e14, Unit::FlopRate), "197 TFLOP/s");
        assert_eq!(format_quantity(8.2e11, Unit::ByteRate), "820 GB/s");
        assert_eq!(format_quantity(1.6e12, Unit::ByteRate), "1.6 TB/s");
        assert_eq!(format_quantity(2.3236e-5, Unit::Seconds), "23.2 µs");
        // Long durations in minutes, hours and days, never kiloseconds: 3580 s / 60 = 59.67
        // min, 9360 s / 3600 = 2.6 h, 3.86e6 s / 86400 = 44.68 days.
        assert_eq!(format_quantity(999.0, Unit::Seconds), "999 s");
        assert_eq!(format_quantity(3580.0, Unit::Seconds), "59.7 min");
        assert_eq!(format_quantity(9360.0, Unit::Seconds), "2.6 h");
        assert_eq!(format_quantity(3.86e6, Unit::Seconds), "44.7 days");
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
    fn compact_for_axes() {
        for (x, want) in [
            (1e14, "100T"),
            (2e11, "200G"),
            (1.97e14, "197T"),
            (0.5, "0.5"),
            (1024.0, "1024"),
            (12345.0, "12.3k"),
            (999_999.0, "1M"),
            (0.0, "0"),
            (-2e9, "-2G"),
            (1e-5, "1e-5"),
            (1e30, "1e30"),
            (0.001, "0.001"),
            (f64::NAN, "NaN"),
        ] {
            assert_eq!(format_si(x, 3), want, "{x}");
        }
        assert_eq!(format_si_thousands(1000.0, 3), "1k");
        assert_eq!(format_si_thousands(-2500.0, 3), "-2.5k");
        assert_eq!(format_si_thousands(999.0, 3), "999");
        assert_eq!(format_time_si(2e-5, 3), "20 µs");
        assert_eq!(format_time_si(0.9999999999e-3, 3), "1 ms");
        assert_eq!(format_time_si(1e-15, 3), "0.001 ps");
        assert_eq!(format_time_si(5000.0, 3), "5000 s");
        assert_eq!(format_time_si(50000.0, 3), "50k s");
        assert_eq!(format_params(124e6), "124M");
        assert_eq!(format_params(1.2e12), "1.2T");
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
