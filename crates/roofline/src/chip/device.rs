//! [`preset_for_device`]: the catalog preset of a device name a profiler reports.

use super::presets::DEVICE_NAMES;

/// The preset id for a device name as nvidia-smi, Nsight, PyTorch, ROCm or JAX report it
/// (`"NVIDIA GeForce RTX 5090"` → `rtx-5090`, `"NVIDIA A100-SXM4-80GB"` → `a100`, `"TPU v5
/// lite"` → `tpu-v5e`), or `None`. Words are compared whole and case-insensitively, so
/// "H100" never matches "H1000" nor "B200" "GB200" (a Grace superchip at another bin: its
/// own preset); the longest matching pattern wins. The table sits beside the presets.
pub fn preset_for_device(name: &str) -> Option<&'static str> {
    let words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let mut best: Option<(&'static str, usize)> = None;
    for &(id, patterns) in DEVICE_NAMES {
        for p in patterns {
            let pat: Vec<&str> = p.split(' ').collect();
            let hit = words
                .windows(pat.len())
                .any(|w| w.iter().zip(&pat).all(|(a, b)| a == b));
            if hit && best.is_none_or(|(_, n)| pat.len() > n) {
                best = Some((id, pat.len()));
            }
        }
    }
    best.map(|(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_map_to_presets() {
        for (name, id) in [
            ("NVIDIA GeForce RTX 5090", Some("rtx-5090")),
            ("NVIDIA H100 80GB HBM3", Some("h100")),
            ("NVIDIA A100-SXM4-80GB", Some("a100")),
            ("A100-PCIE-40GB", Some("a100")),
            ("NVIDIA B200", Some("b200")),
            ("AMD Instinct MI300X", Some("mi300x")),
            ("NVIDIA H800", Some("h800")),
            ("NVIDIA H20", Some("h20")),
            ("nvidia h200", Some("h200")),
            (
                "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                Some("rtx-pro-6000"),
            ),
            ("NVIDIA L4", Some("l4")),
            ("TPU v5 lite", Some("tpu-v5e")),
            ("TPU v5", Some("tpu-v5p")),
            ("Intel Gaudi 3", Some("gaudi3")),
            ("NVIDIA H1000", None),
            ("NVIDIA GB200", Some("gb200")),
            ("NVIDIA GB300", Some("gb300")),
            ("NVIDIA GB20", None),
            ("NVIDIA L40S", None),
            ("NVIDIA RTX 6000 Ada Generation", None),
            ("AMD Instinct MI300A", None),
            ("", None),
        ] {
            assert_eq!(preset_for_device(name), id, "{name:?}");
        }
        for &(id, _) in DEVICE_NAMES {
            assert!(super::super::preset(id).is_some(), "{id}");
        }
    }
}
