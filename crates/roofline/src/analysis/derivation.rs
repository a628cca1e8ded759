//! The worked derivation of an analysis, step by step with numbers substituted, and the
//! lines a composite's derivation shares.

use super::numbers::{crit_str, distinct, secs};
use super::{Analysis, Bound, ExecUnit, FlopConvention};
use crate::units::{format_exact, format_quantity, format_sig, num3, Unit};

/// An input as the derivation quotes it: exactly, unless its exact digits run long (a
/// bandwidth derived from links: `514285714285.7143`), then to 4 significant digits.
fn given(x: f64) -> String {
    let exact = format_exact(x);
    if exact.len() <= 10 {
        exact
    } else {
        format_sig(x, 4)
    }
}

/// Wraps a formula in parentheses when it has a top-level sum or difference.
fn paren(f: &str) -> String {
    if f.contains(" + ") || f.contains(" − ") {
        format!("({f})")
    } else {
        f.to_string()
    }
}

/// Derivation lines that read the same for one operation and for a composite's sums.
impl Analysis {
    /// The title (label, description, chip) and the operation's notes.
    pub(crate) fn derivation_head(&self) -> Vec<String> {
        let m = self.op.kind.behavior();
        let mut out = Vec::new();
        let desc = m.describe();
        out.push(match &self.op.label {
            Some(l) if !l.trim().is_empty() => format!("{l}: {desc} on {}", self.chip_name),
            _ => format!("{desc} on {}", self.chip_name),
        });
        m.notes(&self.chip_name, &mut out);
        out
    }

    /// The derated peak and the 1-FLOP-per-MAC halving, when they apply.
    pub(crate) fn push_peak_lines(&self, out: &mut Vec<String>) {
        let conv = self.convention.factor();
        let raw_peak = self.compute.peak / conv;
        let cal = self.compute.cal;
        if !cal.is_none() {
            let hbm = self
                .term(crate::resource::Resource::Hbm)
                .map(|c| c.bandwidth);
            let mem = match hbm {
                Some(bw) => format!(
                    "HBM bandwidth × m = {} × {} = {} bytes/s",
                    num3(bw / cal.memory),
                    format_exact(cal.memory),
                    num3(bw)
                ),
                None => format!("HBM bandwidth × m (m = {})", format_exact(cal.memory)),
            };
            out.push(format!(
                "Calibrated (cal={}): peak × derate × c = {} × {} × {} = {} FLOPs/s; {mem}; \
                 overhead o = {} s per kernel launch, added to T_lower and T_upper",
                cal.format(),
                format_exact(raw_peak),
                format_exact(self.compute.derate),
                format_exact(cal.compute),
                num3(self.compute.effective_peak / conv),
                num3(cal.overhead)
            ));
        } else if self.compute.derate < 1.0 {
            out.push(format!(
                "Derated peak = {} × {} = {} FLOPs/s (achievable fraction of peak)",
                format_exact(raw_peak),
                format_exact(self.compute.derate),
                num3(self.compute.effective_peak / conv)
            ));
        }
        if self.convention == FlopConvention::OnePerMac {
            out.push(format!(
                "1 FLOP per MAC: displayed FLOPs = {} / 2 = {}, peak = {} / 2 = {} FLOPs/s; times are unchanged",
                num3(self.flops / conv),
                num3(self.flops),
                format_exact(raw_peak),
                num3(self.compute.peak)
            ));
        }
    }

    /// `T_comms = max(...)` when there is more than one resource; returns the time symbols.
    pub(crate) fn push_t_comms(&self, out: &mut Vec<String>) -> Vec<&'static str> {
        let syms: Vec<&str> = self
            .comms
            .iter()
            .map(|c| c.resource.time_symbol())
            .collect();
        if self.comms.len() > 1 {
            out.push(format!(
                "T_comms = max({}) = {} ({})",
                syms.join(", "),
                secs(self.t_comms),
                self.binding.label()
            ));
        }
        syms
    }

    /// `Ridge = peak / bandwidth` of the binding resource.
    pub(crate) fn ridge_line(&self) -> String {
        format!(
            "Ridge = peak / {} bandwidth = {} / {} = {} FLOPs/byte",
            self.binding.label(),
            num3(self.compute.effective_peak),
            given(self.term(self.binding).map_or(0.0, |c| c.bandwidth)),
            num3(self.ridge)
        )
    }

    /// `Achieved = FLOPs / T_lower` and the fraction of peak.
    pub(crate) fn achieved_line(&self) -> String {
        format!(
            "Achieved = FLOPs / T_lower = {} / {} = {} FLOPs/s ({}) = {}% of peak",
            num3(self.flops),
            num3(self.t_lower),
            num3(self.achieved),
            format_quantity(self.achieved, Unit::FlopRate),
            format_sig(100.0 * self.fraction, 3)
        )
    }
}

impl Analysis {
    /// The derivation of one operation (not a composite's sums, not a training step's).
    pub(crate) fn single_derivation(&self) -> Vec<String> {
        let m = self.op.kind.behavior();
        let conv = self.convention.factor();
        let mut out = self.derivation_head();
        if let Some(c) = &self.report.collective {
            out.extend(c.derivation.iter().cloned());
            out.push(format!(
                "Formula: {} ({}); T_comms = {}: {}",
                c.formula,
                c.section,
                secs(self.t_comms),
                if c.latency_bound {
                    "latency-bound"
                } else {
                    "bandwidth-bound"
                }
            ));
        }

        let raw_flops = self.flops / conv;
        let raw_peak = self.compute.peak / conv;
        let raw_eff = self.compute.effective_peak / conv;
        let (fs, fsub) = m.flops_formula();
        out.push(format!("FLOPs = {fs} = {fsub} = {}", num3(raw_flops)));
        let unit_line = match self.compute.unit {
            ExecUnit::Vector => format!(
                "Runs on the vector unit of {}: vpu = {} FLOPs/s ({})",
                self.chip_name,
                format_exact(raw_peak),
                format_quantity(raw_peak, Unit::FlopRate)
            ),
            ExecUnit::Peak(k) => {
                let why = if self.op.traits().vector {
                    " (the chip has no vector-unit figure, so it runs at the dtype's peak)"
                } else {
                    ""
                };
                format!(
                    "Runs at the {k} peak of {}: {} FLOPs/s ({}){why}",
                    self.chip_name,
                    format_exact(raw_peak),
                    format_quantity(raw_peak, Unit::FlopRate)
                )
            }
        };
        out.push(unit_line);
        self.push_peak_lines(&mut out);
        let peak_txt = if self.compute.effective_peak != self.compute.peak {
            num3(raw_eff)
        } else {
            format_exact(raw_peak)
        };
        out.push(format!(
            "T_math = FLOPs / peak = {} / {peak_txt} = {} / {peak_txt} = {}",
            paren(&fs),
            paren(&fsub),
            secs(self.t_math)
        ));
        for c in &self.comms {
            let label = c.resource.label();
            let (bs, bsub) = m
                .bytes_formula(c.resource)
                .unwrap_or_else(|| ("bytes".into(), num3(c.bytes)));
            out.push(format!("{label} bytes = {bs} = {bsub} = {}", num3(c.bytes)));
            out.push(format!(
                "{} = {label} bytes / {label} bandwidth = {} / {} = {}",
                c.resource.time_symbol(),
                num3(c.bytes),
                given(c.bandwidth),
                secs(c.time)
            ));
        }
        let syms = self.push_t_comms(&mut out);
        let o = self.compute.cal.overhead;
        let (o_sym, o_val) = if o > 0.0 {
            (" + o".to_string(), format!(" + {}", num3(o)))
        } else {
            (String::new(), String::new())
        };
        out.push(format!(
            "T_lower = max(T_math, T_comms){o_sym} = max({}, {}){o_val} = {}",
            num3(self.t_math),
            num3(self.t_comms),
            secs(self.t_lower)
        ));
        let parts: Vec<String> = self.comms.iter().map(|c| num3(c.time)).collect();
        out.push(format!(
            "T_upper = T_math + {}{o_sym} = {} + {}{o_val} = {}",
            syms.join(" + "),
            num3(self.t_math),
            parts.join(" + "),
            secs(self.t_upper)
        ));
        let bl = self.binding.label();
        let bind_bytes = self.term(self.binding).map_or(0.0, |c| c.bytes);
        let mut il = format!(
            "Intensity = FLOPs / {bl} bytes = {} / {} = {} FLOPs/byte (exact)",
            num3(self.flops),
            num3(bind_bytes),
            num3(self.intensity)
        );
        if let Some((v, f)) = &self.approx_intensity {
            if f.chars().any(|c| c.is_ascii_alphabetic()) {
                il.push_str(&format!("; {f} = {}", num3(*v)));
            } else {
                il.push_str(&format!("; {f}"));
            }
        }
        out.push(il);
        out.push(self.ridge_line());
        let (si, sr) = distinct(self.intensity, self.ridge);
        out.push(match self.bound {
            Bound::Compute => {
                format!("Compute-bound: intensity {si} ≥ ridge {sr} (T_math ≥ T_comms)")
            }
            b => format!(
                "{}-bound on {bl}: intensity {si} < ridge {sr} (T_comms > T_math)",
                if b == Bound::Memory {
                    "Memory"
                } else {
                    "Network"
                },
            ),
        });
        out.push(self.achieved_line());
        match (&self.critical, m.critical_dim()) {
            (Some(c), _) => {
                let d = c.dim.to_ascii_uppercase();
                let mut l = if c.value == 0.0 {
                    format!("Critical {d}: compute-bound at every {d}")
                } else {
                    format!(
                        "Critical {d} = {} (exact: T_math = T_comms against {}); compute-bound for {d} ≥ {}",
                        crit_str(c.value, 4),
                        c.resource.label(),
                        crit_str(c.value, 4)
                    )
                };
                if let Some(ap) = c.approx {
                    let ridge = self.term(c.resource).map_or(self.ridge, |t| t.ridge);
                    match m.approx_intensity(c.resource, conv) {
                        Some((_, f)) => l.push_str(&format!(
                            "; approximately {d} > {} (from {} > {})",
                            crit_str(ap, 3),
                            f.trim_start_matches(['≈', '=', ' ']),
                            num3(ridge)
                        )),
                        None => l.push_str(&format!("; approximately {d} > {}", crit_str(ap, 3))),
                    }
                }
                out.push(l);
            }
            (None, Some(dim)) => out.push(format!(
                "No critical {}: some traffic grows at least as fast as the FLOPs, so it never becomes compute-bound",
                dim.to_ascii_uppercase()
            )),
            (None, None) => {}
        }
        out.push(format!(
            "Memory: {} bytes in HBM vs capacity {} ({}): {}",
            num3(self.memory),
            format_exact(self.capacity),
            format_quantity(self.capacity, Unit::Bytes),
            if self.fits { "fits" } else { "does not fit" }
        ));
        if let Some(t) = &self.tiled {
            out.push(format!(
                "Tiled ({}, {}, {}): bytes = tm·tn·(tk·(s_x·bm·bk + s_w·bk·bn) + 2·s_out·bm·bn) = {}; \
                 tiled intensity = {} ≈ 2·bm·bn/(s_x·bm + s_w·bn) = {} (bf16: bm·bn/(bm+bn))",
                format_exact(t.bm),
                format_exact(t.bk),
                format_exact(t.bn),
                num3(t.bytes),
                num3(t.intensity),
                num3(t.approx_intensity)
            ));
        }
        out
    }
}
