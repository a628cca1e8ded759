//! Each resource's critical batch per chip, solved on the model, beside the book's closed
//! forms.

use super::{
    f_eff, fr, moe_factor, nn, sig, Critical, TrainBound, SEC_DCN, SEC_DP, SEC_EP, SEC_FSDP,
    SEC_HBM, SEC_PP, SEC_TP,
};
use crate::train::config::TrainConfig;
use crate::train::critical::{hbm_critical, link_critical, Regime};
use crate::train::fabric::{AxisNet, MeshAxis};
use crate::train::model::StepCosts;
use crate::units::{format_quantity, Unit};

fn net_of(model: &StepCosts, axis: MeshAxis) -> Option<&AxisNet> {
    model.placement.all().find(|x| x.axis == axis)
}

pub(super) fn criticals(
    cfg: &TrainConfig,
    model: &StepCosts,
    d: &mut Vec<String>,
) -> Vec<Critical> {
    let mesh = &cfg.mesh;
    let c = cfg.hw.peak;
    let pr = &cfg.precision;
    let (sp, sg) = (pr.param.bytes(), pr.grad.bytes());
    let g = moe_factor(cfg);
    let f = f_eff(cfg);
    let mut out = Vec::new();

    let (regime, exact) = hbm_critical(model);
    let book = c / cfg.hw.hbm_bw * sp / 2.0;
    out.push(Critical {
        resource: TrainBound::Hbm,
        regime,
        exact,
        book: Some(book),
        book_rule: format!(
            "weights read 3 times per 6 FLOPs per token: b > (s/2)·C/W_HBM = {}·{}/{} = {} (the chip's ridge)",
            sig(sp / 2.0),
            format_quantity(c, Unit::FlopRate),
            fr(cfg.hw.hbm_bw),
            sig(book)
        ),
        section: SEC_HBM.into(),
    });

    for axis in MeshAxis::ALL {
        let Some((regime, exact)) = link_critical(model, axis) else {
            continue;
        };
        let Some(net) = net_of(model, axis) else {
            continue;
        };
        let w = net.ag_bandwidth_approx();
        let (book, rule, section): (Option<f64>, String, &str) = match axis {
            MeshAxis::Dp | MeshAxis::Dcn => {
                let x = sg / 2.0 * g * c / (w * mesh.tp * mesh.pp * mesh.fsdp);
                let waits = if model.m > 1.0 {
                    format!(
                        "; the model's reduction also waits for all {} microbatches' gradients and hides only in the last one's backward pass (gpus.md: \"significant non-overlapped communication time\"), {}× the book's form",
                        nn(model.m),
                        nn(model.m)
                    )
                } else {
                    String::new()
                };
                (
                    Some(x),
                    format!(
                        "B/X > {}C/W per data shard (AllReduce of the gradients vs the backward pass), per chip ÷ tp·pp·fsdp = {}: {}{}/{} / {} = {}",
                        if g != 1.0 { "(E/k)·" } else { "" },
                        nn(mesh.tp * mesh.pp * mesh.fsdp),
                        if g != 1.0 { format!("{}·", sig(g)) } else { String::new() },
                        format_quantity(c, Unit::FlopRate),
                        fr(w),
                        nn(mesh.tp * mesh.pp * mesh.fsdp),
                        sig(x)
                    ) + &waits,
                    if axis == MeshAxis::Dcn { SEC_DCN } else { SEC_DP },
                )
            }
            MeshAxis::Fsdp => {
                let x = sp / 2.0 * g * c / (w * mesh.tp * mesh.pp);
                let mut rule = format!(
                    "B/X > {}C/W_X = {}/M_X per data shard (AllGathers of the weights vs the FLOPs), per chip ÷ tp·pp = {}: {}",
                    if g != 1.0 { "(E/k)·" } else { "" },
                    sig(c / (w / net.m.max(1.0))),
                    nn(mesh.tp * mesh.pp),
                    sig(x)
                );
                if model.m > 1.0 {
                    rule.push_str(&format!(
                        "; the model gathers the weights for each of the {} microbatches (gpus.md: ZeRO-3 \"requires us to AllGather the weights on every microbatch\")",
                        nn(model.m)
                    ));
                }
                (Some(x), rule, SEC_FSDP)
            }
            MeshAxis::Tp => {
                let y = f * w / c;
                (
                    Some(y),
                    format!(
                        "independent of the batch: compute-bound iff Y < F·W_Y/C = {}·{}/{} = {} (Y = {}: {})",
                        nn(f),
                        fr(w),
                        format_quantity(c, Unit::FlopRate),
                        sig(y),
                        nn(mesh.tp),
                        if mesh.tp < y { "compute-bound" } else { "communication-bound" }
                    ),
                    SEC_TP,
                )
            }
            MeshAxis::Ep => (
                None,
                "AllToAlls of the routed tokens grow with the batch as the FLOPs do: the ratio is fixed by F, k and the network (gpus.md gives the cross-node form)".into(),
                SEC_EP,
            ),
            MeshAxis::Pp => (
                None,
                "sends of microbatch activations grow with the batch as the FLOPs do (gpus.md: \"from a communication standpoint, pipelining is basically free\")".into(),
                SEC_PP,
            ),
        };
        d.push(format!(
            "Critical batch per chip, {}: {}; the book's rule: {} ({section})",
            axis.name(),
            match (regime, exact) {
                (Regime::Below, Some(x)) => format!(
                    "binds below b* = {} tokens per chip (B = {})",
                    sig(x),
                    sig(x * model.chips)
                ),
                (Regime::Never, _) => "never binds".into(),
                _ => "binds at every batch".into(),
            },
            rule
        ));
        out.push(Critical {
            resource: TrainBound::Comms(axis),
            regime,
            exact,
            book,
            book_rule: rule,
            section: section.into(),
        });
    }
    out
}
