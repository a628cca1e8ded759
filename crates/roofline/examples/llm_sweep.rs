//! Llama-3 8B decode batch sweep on H100 and TPU v5e, printed as a table:
//! `cargo run -p roofline --example llm_sweep`.

use roofline::{analyze_workload, preset, Bound, Op, Options};

fn main() {
    let opts = Options::default();
    for chip_id in ["h100", "tpu-v5e"] {
        let chip = preset(chip_id).expect("preset");
        println!("\nLlama-3 8B decode, ctx 2048, bf16, on {}", chip.name);
        println!(
            "{:>6} {:>12} {:>12} {:>9} {:>10}  parts compute-bound",
            "B", "step", "tokens/s", "bound", "memory"
        );
        for b in [1u32, 8, 32, 64, 128, 256, 320, 512, 1024] {
            let mut op = Op::default_for("llm").expect("llm kind");
            op.set("preset", "llama3-8b").unwrap();
            op.set("ctx", "2048").unwrap();
            op.set("b", &b.to_string()).unwrap();
            let w = analyze_workload(&op, &chip, &opts)
                .unwrap()
                .expect("a workload");
            let compute: Vec<&str> = w
                .summary
                .iter()
                .filter(|(_, bound)| *bound == Bound::Compute)
                .map(|(name, _)| name.as_str())
                .collect();
            println!(
                "{:>6} {:>10.3} ms {:>12.1} {:>9} {:>7.1} GB  {}",
                b,
                w.t_lower * 1e3,
                w.tokens_per_s,
                w.bound.as_str(),
                w.memory / 1e9,
                if compute.is_empty() {
                    "none".to_string()
                } else {
                    compute.join(", ")
                }
            );
        }
    }
}
