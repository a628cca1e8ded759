//! Over 600 lines on purpose: one format's decoder and encoder side by side, so a key's
//! reading and writing are reviewed together (the golden URLs pin both).
//!
//! The versioned scenario URL: [`decode`] a query string into a [`Scenario`] (with notices
//! about what was ignored), [`encode`] a scenario into a canonical, readable query.
//!
//! Version 1 (public, kept forever; links without `v=` are version 1):
//!
//! ```text
//! v=1                                         schema version
//! chip=<preset>[:<field>=<value>,...]         repeatable, in order; fields override the preset
//! chip=custom:name=<text>,<field>=<value>,... a chip from scratch
//! op=<kind>[:<field>=<value>,...]             repeatable, in order; label=<text> on any op
//! sweep=<field>:<from>..<to>[:log][:n=<points>]
//! plot=sweep|roofline|both|frontier   y=achieved|time|fraction|tokens   log=x|y|xy
//! flops=2mac|1mac   derate=<fraction>   cal=<compute>:<memory>:<overhead>
//! embed=1   theme=light|dark
//! base=<op>.<chip>                            the baseline row, counted from 1
//! ```
//!
//! `y=` and `log=` (the sweep plot's y metric and log axes) were added to version 1 later;
//! links without them show FLOPs/s on linear axes, as they always did. `cal=` (a calibration
//! fitted to measured kernels, [`crate::profile::Calibration`]: efficiencies as fractions or
//! percentages, the overhead in seconds or with a unit, `0.8:0.9:5us`) came later too; links
//! without it are uncalibrated, as they always were. `base=` (the row every other row is
//! compared with, issue 26) came later still; links without it have no baseline.
//!
//! Chip fields are the [`ChipField`] ids (`value` read by [`Chip::set_str`]; `none`, `-` or an
//! empty value removes an optional value) plus `interconnect=switch|point_to_point`. Limits: [`MAX_CHIPS`],
//! [`MAX_OPS`], [`MAX_QUERY_BYTES`], [`MAX_TEXT_CHARS`], [`MAX_SWEEP_POINTS`].
//!
//! Example, the first-load scenario:
//! `?chip=tpu-v5e&op=matmul:d=4096,f=4096,x=bf16,w=int8&op=matmul:d=1024,f=1024,x=bf16,w=int8&sweep=b:1..511`.
//!
//! Values are percent-decoded (`%2C` is a literal comma, `+` a space) after the structure
//! (`&`, `=`, `:`, `,`, `..`) has been split, so escaped delimiters inside names and labels
//! are text. Operation fields go through the generic [`Op::fields`] / [`Op::get`] /
//! [`Op::set`] access, so every operation kind is understood without code here.
//!
//! [`decode`] never panics and never fails: whatever it cannot use is listed in
//! [`Decoded::notices`] (`op 2: d=-5: must be a positive size ...`), and every bad field falls
//! back to the preset's or kind's value. [`encode`] writes `v=1`, the chips, the operations,
//! the sweep and then only the options that differ from their defaults, so the same scenario
//! always gives the same text.
//!
//! ```
//! use roofline::{url, Scenario};
//! let d = url::decode("?chip=h100&op=matmul:b=512,d=8192,f=8192");
//! assert!(d.notices.is_empty());
//! assert_eq!(d.scenario.chips[0].name, "H100 SXM");
//! assert_eq!(
//!     url::encode(&d.scenario),
//!     "v=1&chip=h100&op=matmul:b=512,d=8192,f=8192&sweep=b:1..511"
//! );
//! assert_eq!(url::decode(&url::encode(&d.scenario)).scenario, d.scenario);
//! assert_eq!(url::decode("").scenario, Scenario::default());
//! ```

use crate::chip::{preset, preset_ids, Chip, ChipField, Interconnect};
use crate::field::FieldSpec;
use crate::op::{Op, OpKind};
use crate::options::FlopConvention;
use crate::scenario::{BaseRow, ColorScheme, PlotKind, Scenario, SweepAxes, SweepMetric};
use crate::sweep::SweepSpec;
use crate::units::{format_exact, parse_quantity};
use std::borrow::Cow;
use std::str::FromStr;

/// The URL schema version this crate writes (`v=1`) and fully understands.
pub const VERSION: u32 = 1;

/// Most chips a link may hold; further `chip=` parameters are ignored with a notice.
pub const MAX_CHIPS: usize = 16;

/// Most operations a link may hold; further `op=` parameters are ignored with a notice.
pub const MAX_OPS: usize = 64;

/// Longest query read, in bytes (64 KiB); the rest is ignored with a notice.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// Longest chip name or operation label, in characters; longer ones are cut with a notice.
pub const MAX_TEXT_CHARS: usize = 80;

/// Most sweep points a link may ask for with `:n=<points>`.
pub const MAX_SWEEP_POINTS: usize = 4096;

/// Most notices returned; the rest are summarised in one last notice.
pub const MAX_NOTICES: usize = 32;

/// The result of [`decode`]: the scenario and what was ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// Everything the link describes that this version could use; the first-load scenario
    /// ([`Scenario::default`]) for an empty link.
    pub scenario: Scenario,
    /// Plain-text messages, one per ignored part, naming it and why (`chip 1: unknown preset
    /// "tpu-v9" ...`, `unknown parameter "foo"`). Empty for any link made by [`encode`] from
    /// a valid scenario.
    pub notices: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// Escaping

/// Appends `text` percent-encoded: ASCII letters, digits and `- . _ ~ /` stay as they are, a
/// space becomes `+`, every other byte (delimiters `, : & = % + # ?`, quotes, brackets,
/// control characters, non-ASCII UTF-8) becomes `%XX`.
fn escape_into(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Percent-decodes `s` (`%XX`; a malformed escape stays literal), with `+` as a space when
/// `plus` is set; invalid UTF-8 becomes U+FFFD.
fn percent_decode(s: &str, plus: bool) -> String {
    if !s.contains(['%', '+']) {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex_val(b[i + 1]), hex_val(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A form-decoded value (`+` is a space).
fn text(raw: &str) -> String {
    percent_decode(raw, true)
}

/// Undoes one extra layer of percent-encoding when a tool re-encoded a structured value as a
/// whole (`chip=h100%3Ahbm%3D3T`): a value with no raw `:` but an encoded one. A value made
/// by [`encode`] never looks like that (names and kinds hold no `:`, the sweep always has one).
fn structural(raw: &str) -> Cow<'_, str> {
    if !raw.contains(':') && (raw.contains("%3A") || raw.contains("%3a")) {
        Cow::Owned(percent_decode(raw, false))
    } else {
        Cow::Borrowed(raw)
    }
}

/// User text for a notice: at most 40 characters, control characters replaced.
fn show(s: &str) -> String {
    const MAX: usize = 40;
    let mut out: String = s
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    if s.chars().count() > MAX {
        out.push('…');
    }
    out
}

/// Replaces control characters (which have no place in a name or label) with spaces.
fn clean(s: String) -> String {
    if s.chars().any(char::is_control) {
        s.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    } else {
        s
    }
}

/// Cuts a name or label to [`MAX_TEXT_CHARS`] characters, with a notice.
fn clamp_text(s: String, what: &str, prefix: &str, notes: &mut Notes) -> String {
    if s.chars().count() > MAX_TEXT_CHARS {
        notes.push(format!(
            "{prefix}{what} is longer than {MAX_TEXT_CHARS} characters; cut to {MAX_TEXT_CHARS}"
        ));
        s.chars().take(MAX_TEXT_CHARS).collect()
    } else {
        s
    }
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Collected notices, capped at [`MAX_NOTICES`].
#[derive(Default)]
struct Notes {
    list: Vec<String>,
    dropped: usize,
}

impl Notes {
    fn push(&mut self, s: String) {
        if self.list.len() < MAX_NOTICES {
            self.list.push(s);
        } else {
            self.dropped += 1;
        }
    }

    fn finish(mut self, first: Option<String>) -> Vec<String> {
        if let Some(f) = first {
            self.list.insert(0, f);
        }
        let total = self.list.len() + self.dropped;
        if total > MAX_NOTICES {
            self.list.truncate(MAX_NOTICES - 1);
            let more = total - self.list.len();
            self.list.push(format!("… and {more} more problems"));
        }
        self.list
    }
}

/// `key=value` pairs of a comma-separated field list (`d=4096,label=a%2Cb`); a field without
/// `=` gives a notice.
fn fields(rest: &str, prefix: &str, notes: &mut Notes) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for part in rest.split(',') {
        if part.trim().is_empty() {
            continue;
        }
        match part.split_once('=') {
            Some((k, v)) => out.push((text(k).trim().to_string(), text(v))),
            None => notes.push(format!(
                "{prefix}\"{}\": expected field=value",
                show(&text(part))
            )),
        }
    }
    out
}

/// Resolves a key case-insensitively when the exact key is unknown (`B=512` reads as `b`).
fn key_for<'a>(exact: &'a str, known: impl Fn(&str) -> bool) -> Cow<'a, str> {
    if known(exact) {
        return Cow::Borrowed(exact);
    }
    let lower = exact.to_ascii_lowercase();
    if known(&lower) {
        Cow::Owned(lower)
    } else {
        Cow::Borrowed(exact)
    }
}

fn interconnect_id(i: Interconnect) -> &'static str {
    i.as_str()
}

/// An interconnect by its id, or `p2p` for `point_to_point`.
fn parse_interconnect(s: &str) -> Option<Interconnect> {
    match s.trim() {
        t if t.eq_ignore_ascii_case("p2p") => Some(Interconnect::PointToPoint),
        t => Interconnect::from_id(t),
    }
}

/// One `chip=` value; `None` (with a notice) for an unknown preset.
fn decode_chip(raw: &str, n: usize, notes: &mut Notes) -> Option<Chip> {
    let raw = structural(raw);
    let (head, rest) = raw.split_once(':').unwrap_or((&raw, ""));
    let id = text(head).trim().to_ascii_lowercase();
    let prefix = format!("chip {n}: ");
    let mut chip = if id == "custom" {
        Chip::custom("")
    } else if let Some(p) = preset(&id) {
        p
    } else {
        notes.push(format!(
            "{prefix}unknown preset \"{}\" (presets: {}; or custom)",
            show(&id),
            preset_ids().join(", ")
        ));
        return None;
    };
    for (k, v) in fields(rest, &prefix, notes) {
        let key = key_for(&k, |k| {
            k == "interconnect" || ChipField::from_str(k).is_ok()
        });
        if key == "interconnect" {
            match parse_interconnect(&v) {
                Some(i) => chip.interconnect = i,
                None => notes.push(format!(
                    "{prefix}interconnect={}: must be switch or point_to_point",
                    show(&v)
                )),
            }
            continue;
        }
        match ChipField::from_str(&key) {
            Ok(ChipField::Name) => {
                let v = clamp_text(clean(v).trim().to_string(), "name", &prefix, notes);
                if let Err(e) = chip.set_str(ChipField::Name, &v) {
                    notes.push(format!("{prefix}{e}"));
                }
            }
            Ok(f) => {
                // In a link an empty value removes an optional field, as `none` does (v1
                // links mean that); only the form refuses empty text.
                let v = if v.trim().is_empty() { "none" } else { &v };
                if let Err(e) = chip.set_str(f, v) {
                    notes.push(format!("{prefix}{e}"));
                }
            }
            Err(e) => notes.push(format!("{prefix}{e}")),
        }
    }
    Some(chip)
}

/// One `op=` value; `None` (with a notice) for an unknown kind.
fn decode_op(raw: &str, n: usize, notes: &mut Notes) -> Option<Op> {
    let raw = structural(raw);
    let (head, rest) = raw.split_once(':').unwrap_or((&raw, ""));
    let kind = text(head).trim().to_ascii_lowercase();
    let prefix = format!("op {n}: ");
    let Ok(mut op) = Op::default_for(&kind) else {
        notes.push(format!(
            "{prefix}unknown kind \"{}\" (kinds: {})",
            show(&kind),
            OpKind::IDS.join(", ")
        ));
        return None;
    };
    for (k, v) in fields(rest, &prefix, notes) {
        if k.eq_ignore_ascii_case("label") && op.field(&k).is_none() {
            let v = clamp_text(clean(v), "label", &prefix, notes);
            op.label = (!v.is_empty()).then_some(v);
            continue;
        }
        let key = key_for(&k, |k| op.field(k).is_some());
        if let Err(e) = op.set(&key, &v) {
            notes.push(format!("{prefix}{e}"));
        }
    }
    if let Err(e) = op.validate() {
        notes.push(format!("{prefix}{e}"));
    }
    Some(op)
}

/// The spec of a sweepable field: from the scenario's ops first, else from any kind.
fn sweep_spec(field: &str, ops: &[Op]) -> Result<&'static FieldSpec, String> {
    let kinds: Vec<Op> = OpKind::IDS
        .iter()
        .filter_map(|id| Op::default_for(id).ok())
        .collect();
    let all = || ops.iter().chain(kinds.iter());
    if let Some(s) = all()
        .filter_map(|o| o.field(field))
        .find(|s| s.is_numeric())
    {
        return Ok(s);
    }
    if all().any(|o| o.field(field).is_some()) {
        Err(format!("{field} is not numeric and cannot be swept"))
    } else {
        Err(format!("unknown field \"{}\"", show(field)))
    }
}

/// One `sweep=` value: `<field>:<from>..<to>[:log][:n=<points>]`.
fn decode_sweep(raw: &str, ops: &[Op]) -> Result<SweepSpec, String> {
    let raw = structural(raw);
    let mut parts = raw.split(':');
    let field = text(parts.next().unwrap_or("")).trim().to_string();
    let field = key_for(&field, |k| sweep_spec(k, ops).is_ok()).into_owned();
    let range = text(parts.next().unwrap_or(""));
    let spec = sweep_spec(&field, ops)?;
    let (a, b) = range
        .split_once("..")
        .ok_or_else(|| "expected <field>:<from>..<to>, e.g. b:1..511".to_string())?;
    let num = |s: &str| parse_quantity(s).map_err(|e| e.to_string());
    let (from, to) = (num(a)?, num(b)?);
    let from = spec.check(from).map_err(|e| e.to_string())?;
    let to = spec.check(to).map_err(|e| e.to_string())?;
    if from >= to {
        return Err("from must be less than to".into());
    }
    let mut out = SweepSpec {
        field: spec.key.to_string(),
        from,
        to,
        ..SweepSpec::default()
    };
    for opt in parts {
        let opt = text(opt);
        let o = opt.trim().to_ascii_lowercase();
        if o == "log" {
            out.log = true;
        } else if o == "lin" || o == "linear" {
            out.log = false;
        } else if let Some(n) = o.strip_prefix("n=").or_else(|| o.strip_prefix("points=")) {
            match n.trim().parse::<usize>() {
                Ok(p) if (2..=MAX_SWEEP_POINTS).contains(&p) => out.points = p,
                _ => {
                    return Err(format!(
                        "the number of points must be a whole number from 2 to {MAX_SWEEP_POINTS}"
                    ))
                }
            }
        } else if !o.is_empty() {
            return Err(format!(
                "unknown option \"{}\" (expected log or n=<points>)",
                show(&opt)
            ));
        }
    }
    if out.log && out.from <= 0.0 {
        return Err("a log sweep needs from > 0".into());
    }
    Ok(out)
}

/// Tracking parameters added by sites and mail tools: ignored without a notice.
fn is_tracking(name: &str) -> bool {
    name.starts_with("utm_")
        || matches!(
            name,
            "fbclid" | "gclid" | "dclid" | "msclkid" | "mc_cid" | "mc_eid" | "igshid" | "_ga"
        )
}

/// Cuts the query to [`MAX_QUERY_BYTES`], at the last `&` before the limit when there is one.
fn limit(q: &str) -> (&str, usize) {
    if q.len() <= MAX_QUERY_BYTES {
        return (q, 0);
    }
    let mut end = MAX_QUERY_BYTES;
    while !q.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(amp) = q[..end].rfind('&') {
        end = amp;
    }
    (&q[..end], q.len() - end)
}

/// Decodes a query string (with or without the leading `?`; a whole URL is accepted too)
/// into a scenario, best effort.
///
/// Never panics and never fails, whatever the input: unknown or malformed parts are left out
/// and listed in [`Decoded::notices`]; a bad field keeps the preset's or kind's value; an
/// unknown preset or kind drops that chip or op; no usable chip (or op) gives the default
/// chip (or ops) of [`Scenario::default`]; an empty query gives [`Scenario::default`]
/// itself. A link of a newer version (`v=2`) is read as version 1 with a notice.
pub fn decode(query: &str) -> Decoded {
    let mut notes = Notes::default();
    let mut first = None;
    let mut q = query.trim();
    if let Some(i) = q.find('#') {
        q = &q[..i];
    }
    if let Some(i) = q.find('?') {
        if !q[..i].contains(['=', '&']) {
            q = &q[i + 1..];
        }
    }
    let (q, cut) = limit(q);
    if cut > 0 {
        notes.push(format!(
            "the link is longer than 64 KiB; the last {cut} bytes were ignored"
        ));
    }

    let mut s = Scenario::default();
    let (mut chips, mut ops) = (Vec::new(), Vec::new());
    let (mut chip_params, mut op_params) = (0usize, 0usize);
    let (mut chips_over, mut ops_over) = (0usize, 0usize);
    let mut sweep_raw: Option<String> = None;
    let mut seen: Vec<String> = Vec::new();

    for param in q.split('&') {
        if param.is_empty() {
            continue;
        }
        let (name_raw, value) = param.split_once('=').unwrap_or((param, ""));
        let name = text(name_raw).trim().to_ascii_lowercase();
        let single = matches!(
            name.as_str(),
            "v" | "sweep"
                | "plot"
                | "y"
                | "log"
                | "flops"
                | "derate"
                | "cal"
                | "embed"
                | "theme"
                | "base"
        );
        if single {
            if seen.contains(&name) {
                notes.push(format!(
                    "{name} is given more than once; the last one is used"
                ));
            } else {
                seen.push(name.clone());
            }
        }
        let v = || text(value).trim().to_string();
        match name.as_str() {
            "chip" => {
                chip_params += 1;
                if chips.len() >= MAX_CHIPS {
                    chips_over += 1;
                } else if let Some(c) = decode_chip(value, chip_params, &mut notes) {
                    chips.push(c);
                }
            }
            "op" => {
                op_params += 1;
                if ops.len() >= MAX_OPS {
                    ops_over += 1;
                } else if let Some(o) = decode_op(value, op_params, &mut notes) {
                    ops.push(o);
                }
            }
            "v" => {
                let t = v();
                first = match t.parse::<u32>() {
                    Ok(VERSION) => None,
                    Ok(n) if n > VERSION => Some(format!(
                        "this link was made by a newer version (v={n}) of Roofline Lab; showing what this version understands"
                    )),
                    _ => Some(format!(
                        "v={}: unknown version; the link is read as version {VERSION}",
                        show(&t)
                    )),
                };
            }
            "sweep" => sweep_raw = Some(value.to_string()),
            "plot" => match PlotKind::from_id(&v()) {
                Some(p) => s.plot = p,
                None => notes.push(format!(
                    "plot={}: must be sweep, roofline, both or frontier; or load or validation",
                    show(&v())
                )),
            },
            "y" => match SweepMetric::from_id(&v()) {
                Some(m) => s.axes.y = m,
                None => notes.push(format!(
                    "y={}: must be achieved, time, fraction or tokens",
                    show(&v())
                )),
            },
            "log" => match SweepAxes::parse_log(&v()) {
                Some((x, y)) => (s.axes.log_x, s.axes.log_y) = (x, y),
                None => notes.push(format!("log={}: must be x, y or xy", show(&v()))),
            },
            "flops" => match v().to_ascii_lowercase().as_str() {
                "2mac" => s.options.convention = FlopConvention::TwoPerMac,
                "1mac" => s.options.convention = FlopConvention::OnePerMac,
                _ => notes.push(format!("flops={}: must be 2mac or 1mac", show(&v()))),
            },
            "derate" => {
                let t = v();
                match crate::options::parse_derate(&t) {
                    Ok(derate) => s.options.derate = derate,
                    Err(_) => notes.push(format!(
                        "derate={}: must be the achievable fraction of peak (a number from 0.01 to 1)",
                        show(&t)
                    )),
                }
            }
            "cal" => {
                let t = v();
                match crate::profile::Calibration::parse(&t) {
                    Ok(cal) => s.options.cal = cal,
                    Err(_) => notes.push(format!(
                        "cal={}: must be <compute>:<memory>:<overhead>, e.g. 0.8:0.9:5us \
                         (efficiencies from 0.0001 to 1, overhead from 0 to 1 s)",
                        show(&t)
                    )),
                }
            }
            "embed" => match v().to_ascii_lowercase().as_str() {
                "" | "1" | "true" | "yes" | "on" => s.embed = true,
                "0" | "false" | "no" | "off" => s.embed = false,
                _ => notes.push(format!("embed={}: must be 1 or 0", show(&v()))),
            },
            "theme" => match v().to_ascii_lowercase().as_str() {
                "light" => s.theme = Some(ColorScheme::Light),
                "dark" => s.theme = Some(ColorScheme::Dark),
                "auto" | "system" => s.theme = None,
                _ => notes.push(format!("theme={}: must be light or dark", show(&v()))),
            },
            "base" => match BaseRow::parse(&v()) {
                Some(b) => s.base = Some(b),
                None => notes.push(format!(
                    "base={}: must be <operation>.<chip>, counted from 1 (base=1.2: operation 1 \
                     on chip 2); no baseline",
                    show(&v())
                )),
            },
            n if is_tracking(n) => {}
            n => notes.push(format!("unknown parameter \"{}\"", show(n))),
        }
    }

    if chips_over > 0 {
        notes.push(format!(
            "a link holds at most {MAX_CHIPS} chips; {chips_over} more were ignored"
        ));
    }
    if ops_over > 0 {
        notes.push(format!(
            "a link holds at most {MAX_OPS} operations; {ops_over} more were ignored"
        ));
    }
    if !chips.is_empty() {
        s.chips = chips;
    } else if chip_params > 0 {
        notes.push(format!(
            "no usable chip in this link; showing the default ({})",
            s.chips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !ops.is_empty() {
        s.ops = ops;
    } else if op_params > 0 {
        notes.push("no usable operation in this link; showing the default operations".into());
    }
    if let Some(b) = s.base.filter(|_| s.base_row().is_none()) {
        notes.push(format!(
            "base={}: there is no operation {} on chip {} ({} operation{}, {} chip{}); no baseline",
            b.format(),
            b.op + 1,
            b.chip + 1,
            s.ops.len(),
            if s.ops.len() == 1 { "" } else { "s" },
            s.chips.len(),
            if s.chips.len() == 1 { "" } else { "s" },
        ));
        s.base = None;
    }
    if let Some(raw) = sweep_raw {
        match decode_sweep(&raw, &s.ops) {
            Ok(sw) => s.sweep = sw,
            Err(e) => notes.push(format!(
                "sweep={}: {e}; using the default sweep b:1..511",
                show(&text(&raw))
            )),
        }
    }
    Decoded {
        scenario: s,
        notices: notes.finish(first),
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// Appends `key=value` pairs, comma-separated, values escaped.
fn push_fields(out: &mut String, fields: &[(&str, String)]) {
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        escape_into(k, out);
        out.push('=');
        escape_into(v, out);
    }
}

/// `<preset>[:<field>=<value>,...]` (fields differing from the preset, in [`ChipField::ALL`]
/// order, `none` for a removed value), or `custom:name=<text>,...` (fields differing from
/// [`Chip::custom`]'s placeholders). `interconnect=` only when it differs.
fn encode_chip(c: &Chip, out: &mut String) {
    let base = c.preset_id.as_deref().and_then(preset);
    let custom = base.is_none();
    let base = base.unwrap_or_else(|| Chip::custom(""));
    let mut fields: Vec<(&str, String)> = Vec::new();
    for f in ChipField::ALL {
        if f == ChipField::Name {
            if custom || c.name != base.name {
                fields.push(("name", c.name.clone()));
            }
        } else if c.get(f) != base.get(f) {
            let v = c.get(f).map_or_else(|| "none".to_string(), format_exact);
            fields.push((f.as_str(), v));
        }
    }
    if c.interconnect != base.interconnect {
        fields.push(("interconnect", interconnect_id(c.interconnect).into()));
    }
    if custom {
        out.push_str("custom");
    } else {
        escape_into(base.preset_id.as_deref().unwrap_or_default(), out);
    }
    if !fields.is_empty() {
        out.push(':');
        push_fields(out, &fields);
    }
}

/// `<kind>[:<field>=<value>,...]`: the fields whose text differs from the kind's default, in
/// field order, then `label=`. If applying those to the default does not give the op back
/// (fields that depend on each other), every field is written.
fn encode_op(op: &Op, out: &mut String) {
    let kind = op.kind_id();
    let base = Op::default_for(kind).ok();
    let all: Vec<(&str, String)> = op
        .fields()
        .iter()
        .filter_map(|f| op.get(f.key).map(|v| (f.key, v)))
        .collect();
    let mut fields: Vec<(&str, String)> = match &base {
        Some(b) => {
            let diff: Vec<(&str, String)> = all
                .iter()
                .filter(|(k, v)| b.get(k).as_ref() != Some(v))
                .cloned()
                .collect();
            let mut check = b.clone();
            for (k, v) in &diff {
                let _ = check.set(k, v);
            }
            if check.kind == op.kind {
                diff
            } else {
                all
            }
        }
        None => all,
    };
    if let Some(l) = op.label.as_deref().filter(|l| !l.is_empty()) {
        fields.push(("label", l.to_string()));
    }
    escape_into(kind, out);
    if !fields.is_empty() {
        out.push(':');
        push_fields(out, &fields);
    }
}

/// Encodes a scenario as a canonical query string (without the leading `?`).
///
/// Order: `v=1`, every chip, every op, the sweep, then `plot=` (unless `sweep`), `y=` (unless
/// `achieved`), `log=` (unless both axes are linear), `flops=`
/// (unless `2mac`), `derate=` (unless 1), `cal=` (unless none), `embed=1` (if set), `theme=` (if set). Numbers
/// are written losslessly by [`format_exact`], dtypes and choices by id; text is
/// percent-encoded except ASCII letters, digits and `- . _ ~ /` (a space is `+`).
/// `decode(&encode(s)).scenario == s` for every valid scenario within the link limits
/// ([`MAX_CHIPS`], [`MAX_OPS`], [`MAX_TEXT_CHARS`]), with no notices.
pub fn encode(s: &Scenario) -> String {
    let mut out = format!("v={VERSION}");
    for c in &s.chips {
        out.push_str("&chip=");
        encode_chip(c, &mut out);
    }
    for o in &s.ops {
        out.push_str("&op=");
        encode_op(o, &mut out);
    }
    let sw = &s.sweep;
    out.push_str("&sweep=");
    escape_into(&sw.field, &mut out);
    out.push(':');
    out.push_str(&format_exact(sw.from));
    out.push_str("..");
    out.push_str(&format_exact(sw.to));
    if sw.log {
        out.push_str(":log");
    }
    if sw.points != SweepSpec::default().points {
        out.push_str(&format!(":n={}", sw.points));
    }
    if s.plot != PlotKind::Sweep {
        out.push_str("&plot=");
        out.push_str(s.plot.as_str());
    }
    if s.axes.y != SweepMetric::default() {
        out.push_str("&y=");
        out.push_str(s.axes.y.as_str());
    }
    if let Some(log) = s.axes.log_str() {
        out.push_str("&log=");
        out.push_str(log);
    }
    if s.options.convention == FlopConvention::OnePerMac {
        out.push_str("&flops=1mac");
    }
    if s.options.derate != 1.0 {
        out.push_str("&derate=");
        out.push_str(&format_exact(s.options.derate));
    }
    if !s.options.cal.is_none() {
        out.push_str("&cal=");
        out.push_str(&s.options.cal.format());
    }
    if s.embed {
        out.push_str("&embed=1");
    }
    match s.theme {
        Some(ColorScheme::Light) => out.push_str("&theme=light"),
        Some(ColorScheme::Dark) => out.push_str("&theme=dark"),
        None => {}
    }
    if let Some(b) = s.base_row() {
        out.push_str("&base=");
        out.push_str(&b.format());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips() {
        for s in [
            "",
            "plain-text_1.5~/x",
            ", : & = % + # ? < > \" '",
            "D=F=4096",
            "ünïcødé ✓ 日本",
            "%zz %2",
        ] {
            let mut e = String::new();
            escape_into(s, &mut e);
            assert!(!e.contains([',', ':', '&', '=', '#', ' ', '?']), "{e}");
            assert_eq!(text(&e), s);
        }
        assert_eq!(text("a+b%2Cc%3a%"), "a b,c:%");
        assert_eq!(text("%E2%9C%93%FF"), "✓\u{FFFD}");
    }

    #[test]
    fn structural_undoes_one_layer() {
        assert_eq!(structural("h100%3Ahbm%3D3T"), "h100:hbm=3T");
        assert_eq!(structural("h100:name=a%3Ab"), "h100:name=a%3Ab");
        assert_eq!(structural("h100"), "h100");
    }
}
