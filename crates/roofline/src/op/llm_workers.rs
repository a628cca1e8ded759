//! A disaggregated deployment's workers (issue 42): the `llm` op as one prefill or decode
//! worker runs it (`p_tp p_ep`, `d_tp d_ep`), and the check that each suits the architecture
//! as the op itself must.

use super::llm::Llm;
use super::llm_tails::Disagg;
use crate::error::Error;
use serde::{Deserialize, Serialize};

/// A disaggregated deployment's worker: prefill or decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// A prefill worker: `p_tp`, `p_ep`.
    Prefill,
    /// A decode worker: `d_tp`, `d_ep`.
    Decode,
}

impl Role {
    /// The keys of the worker's tensor- and expert-parallel degrees.
    pub fn keys(self) -> (&'static str, &'static str) {
        match self {
            Role::Prefill => ("p_tp", "p_ep"),
            Role::Decode => ("d_tp", "d_ep"),
        }
    }
}

impl Llm {
    /// One worker of a disaggregated deployment: this op with the worker's `tp` and `ep`
    /// (`p_tp p_ep` or `d_tp d_ep`, the op's own where not set) and no disaggregation of its
    /// own. `moe_ep` is kept where it still divides the worker's `tp`, else 1.
    pub fn worker(&self, role: Role) -> Llm {
        let (tp, ep) = match role {
            Role::Prefill => (self.p_tp, self.p_ep),
            Role::Decode => (self.d_tp, self.d_ep),
        };
        let mut w = *self;
        w.tp = tp.unwrap_or(self.tp);
        w.ep = ep.unwrap_or(self.ep);
        if w.tp % w.moe_ep != 0.0 {
            w.moe_ep = 1.0;
        }
        w.disagg = Disagg::None;
        w
    }

    /// With `disagg` set, each worker's `tp` and `ep` must suit the architecture as the op's
    /// own must: the error names `p_tp`, `p_ep`, `d_tp` or `d_ep`.
    pub(super) fn check_workers(&self) -> Result<(), Error> {
        if self.disagg == Disagg::None {
            return Ok(());
        }
        for role in [Role::Prefill, Role::Decode] {
            let (tp_key, ep_key) = role.keys();
            self.worker(role).check_arch().map_err(|e| match e {
                Error::InvalidField {
                    field,
                    value,
                    reason,
                } if field == "tp" || field == "ep" => Error::InvalidField {
                    field: if field == "tp" { tp_key } else { ep_key }.to_string(),
                    value,
                    reason,
                },
                other => other,
            })?;
        }
        Ok(())
    }
}
