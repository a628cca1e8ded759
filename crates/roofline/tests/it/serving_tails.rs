//! Serving tails (issue 42): a disaggregated deployment and a KV tier, their figures by hand
//! from the mixed step, and the row's figures from `serving::tails`.

use roofline::serving::disagg::{candidates, plan};
use roofline::serving::kv_tier::host_link;
use roofline::serving::sim::{BoundSteps, StepCoef};
use roofline::serving::tails::{tails, Tails};
use roofline::serving::{step_time, LoadModel, PhaseLoad, StepMix};
use roofline::*;

fn scenario(link: &str) -> Scenario {
    let d = url::decode(link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    d.scenario
}

fn row(link: &str) -> Result<Tails, Error> {
    let s = scenario(link);
    tails(&s.ops[0], &s.chips, 0, &s.options, &BoundSteps).map(|t| t.unwrap())
}

fn t(op: &Op, chip: &Chip, mix: StepMix) -> f64 {
    step_time(op, chip, &Options::default(), &mix).unwrap().t
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs()
}

/// One client on `1P1D` of Llama-3 8B (bf16, one H100 each), TensorRT-LLM (whole prompts, the
/// KV sent after the prompt), prompts of 1,000 tokens, outputs of 50, the KV over the network
/// at 50 GB/s: its TTFT is its prefill step plus the transfer of 1,000 tokens at 2·32·8·128·2
/// = 131,072 bytes each (2.62 ms), its TPOT the decode steps at contexts 1,001 … 1,049 on
/// the decode worker; to the bit of those sums.
#[test]
fn a_lone_request_on_1p1d_is_its_steps_and_its_transfer() {
    let link =
        "?chip=h100&op=llm:prompt=1000,output=50,engine=trtllm,load=concurrency,c=1,disagg=1P1D";
    let s = scenario(link);
    let (op, h100) = (&s.ops[0], &s.chips[0]);
    let prefill = t(op, h100, StepMix::prefill(PhaseLoad::prefill(1.0, 1000.0)));
    let transfer = 1000.0 * 131_072.0 / 5e10;
    let decode: f64 = (1..50)
        .map(|g| {
            t(
                op,
                h100,
                StepMix::decode(PhaseLoad::decode(1.0, 1000.0 + g as f64)),
            )
        })
        .sum();
    let r = row(link).unwrap();
    let sim = r.sim.unwrap();
    assert!(
        close(sim.ttft.p50, prefill + transfer),
        "{} vs {}",
        sim.ttft.p50,
        prefill + transfer
    );
    assert!(close(sim.tpot.unwrap().mean, decode / 49.0));
    assert!(close(sim.e2e.mean, prefill + transfer + decode));
    let d = r.disagg.unwrap();
    assert_eq!((d.ratio.as_str(), d.chips), ("1P1D", (1.0, 1.0, 2.0)));
}

/// SGLang sends each chunk's KV as the chunk is done: with a budget of 1,024 tokens a prompt of
/// 3,000 takes chunks of 1,024, 1,024 and 952, and only the last chunk's transfer (and what
/// the link still owes) follows the last chunk; TensorRT-LLM's order sends all 3,000 after it.
#[test]
fn sglang_overlaps_the_transfer_chunk_by_chunk() {
    let base = "?chip=h100&op=llm:prompt=3000,output=2,load=concurrency,c=1,disagg=1P1D,chunk=1024";
    let s = scenario(&format!("{base},engine=sglang"));
    let (op, h100) = (&s.ops[0], &s.chips[0]);
    let spt = 131_072.0 / 5e10;
    let chunks = [(1024.0, 1024.0), (1024.0, 2048.0), (952.0, 3000.0)];
    // Chunk ends, and the link: each chunk's transfer starts at its end or when the link
    // frees, whichever is later.
    let (mut end, mut link) = (0.0f64, 0.0f64);
    for (q, k) in chunks {
        end += t(op, h100, StepMix::prefill(PhaseLoad::uniform(1.0, q, k)));
        link = link.max(end) + q * spt;
    }
    let sg = row(&format!("{base},engine=sglang")).unwrap().sim.unwrap();
    assert!(close(sg.ttft.p50, link), "{} vs {link}", sg.ttft.p50);
    assert!(
        close(link - end, 952.0 * spt),
        "the chunks' compute hides the earlier transfers"
    );
    // vLLM chunks the same prompt by the same budget and sends all of it after the last chunk.
    let vl = row(&format!("{base},engine=vllm")).unwrap().sim.unwrap();
    assert!(
        close(vl.ttft.p50 - sg.ttft.p50, 2048.0 * spt),
        "{}",
        vl.ttft.p50 - sg.ttft.p50
    );
}

/// A decode worker's largest rate is `N_d / ((G − 1)·TPOT(N_d))` at its cap: Llama-3 8B on
/// one H100 under vLLM (cap 1,024 sequences, the pool 0.9·80 GB less 16.06 GB of weights,
/// each request holding P + G = 1,200 tokens of 131,072 bytes), by hand; a prefill worker's,
/// `k / t(step)` with `k = ⌊8192/1000⌋ = 8` prompts per step; `auto` picks the ratio with the
/// most per chip among every x, y from 1 to 16, found here by brute force from those two.
#[test]
fn capacities_by_hand_and_auto_by_brute_force() {
    let link =
        "?chip=h100&op=llm:prompt=1000,output=200,engine=vllm,load=concurrency,c=64,disagg=auto";
    let s = scenario(link);
    let (op, h100, opts) = (&s.ops[0], &s.chips[0], s.options);
    let l = op.llm().unwrap();
    let weights = l.weight_bytes();
    let pool_seqs = ((0.9 * 80e9 - weights) / (1200.0 * 131_072.0)).floor();
    let cap = pool_seqs.min(1024.0);
    let tpot = t(op, h100, StepMix::decode(PhaseLoad::decode(cap, 1100.0)));
    let decode = cap / (199.0 * tpot);
    let prefill = 8.0 / t(op, h100, StepMix::prefill(PhaseLoad::prefill(8.0, 1000.0)));
    let one = plan(l, h100, h100, &opts, (1.0, 1.0)).unwrap();
    let c = one
        .capacity(&opts, StepCoef::BOUND, StepCoef::BOUND)
        .unwrap();
    assert_eq!(c.decode_cap, cap);
    assert!(
        close(c.decode, decode) && close(c.prefill, prefill),
        "{c:?}"
    );
    let mut best = (0.0, 0.0, -1.0);
    for x in 1..=16 {
        for y in 1..=16 {
            let (x, y) = (x as f64, y as f64);
            let per = (x * prefill).min(y * decode) / (x + y);
            if per > best.2 * (1.0 + 1e-12) {
                best = (x, y, per);
            }
        }
    }
    let ranked = candidates(&one, &c, 16.0);
    assert_eq!((ranked[0].x, ranked[0].y), (best.0, best.1));
    let r = row(link).unwrap();
    let d = r.disagg.unwrap();
    assert!(d.auto);
    assert_eq!(d.ratio, format!("{}P{}D", best.0, best.1));
    assert!(close(d.per_chip.unwrap(), best.2));
    // Aggregated serving on the same chips: x + y replicas of the op's one chip, each its
    // engine's saturation.
    let m = LoadModel::new(op, h100, &opts).unwrap();
    let agg = m.saturation(&StepCoef::BOUND).unwrap().unwrap();
    assert!(close(d.aggregated_per_chip.unwrap(), agg));
    assert_eq!(d.aggregated_replicas, best.0 + best.1);
    let wins = if best.2 > agg {
        "disaggregated"
    } else {
        "aggregated"
    };
    assert_eq!(d.wins, wins);
}

/// A ratio that does not fit is refused at its field: a prefill worker of Llama-3.1 70B in
/// bf16 on one H100 (141 GB of weights, 80 GB of memory), an NVLink transfer among 3 + 1
/// workers of 4 chips each (16 chips, an 8-GPU node), a decode chip the scenario lacks.
#[test]
fn what_does_not_fit_is_refused_at_its_field() {
    let e = row(
        "?chip=h100&op=llm:preset=llama3.1-70b,tp=8,link=nvlink,load=rate,qps=1,disagg=1P1D,p_tp=1",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("disagg=1P1D: a prefill worker (1 chip(s) of H100 SXM) holds no request"),
        "{e}"
    );
    let e = row("?chip=h100&op=llm:preset=llama3.1-70b,tp=4,link=nvlink,load=rate,qps=1,disagg=3P1D,kv_link=nvlink")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("kv_link=nvlink: 3P1D's 16 chips exceed one NVLink domain of 8"),
        "{e}"
    );
    let e = row("?chip=h100&op=llm:load=rate,qps=1,disagg=1P1D,d_chip=2")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("d_chip=2: the scenario has 1 chip(s)"), "{e}");
    // 1P1D over NVLink inside a node is fine.
    row("?chip=h100&op=llm:preset=llama3.1-70b,tp=4,link=nvlink,load=rate,qps=1,disagg=1P1D,kv_link=nvlink")
        .unwrap();
}

/// The host link of a KV tier: a Grace system's NVLink-C2C, else PCIe; a chip with neither
/// refuses the tier at `kv_host` with the reason.
#[test]
fn the_tier_takes_the_host_link() {
    assert_eq!(
        host_link(&preset("gb200").unwrap()),
        Some(("NVLink-C2C", 2.25e11))
    );
    assert_eq!(host_link(&preset("b200").unwrap()), Some(("PCIe", 6.4e10)));
    assert_eq!(host_link(&preset("h100").unwrap()), Some(("PCIe", 6.4e10)));
    let s = scenario("?chip=h100:pcie=none&op=llm:load=rate,qps=1,kv_host=64GiB");
    let e = tails(&s.ops[0], &s.chips, 0, &s.options, &BoundSteps)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("kv_host=") && e.contains("has no host link for a KV tier"),
        "{e}"
    );
}

/// Prefixes: with a working set of distinct prefixes per GPU, a request finds its prefix in
/// HBM with probability `room / prefix_set` (room: the KV pool less the running sequences),
/// in a host tier with `kv_host / prefix_set` more (loaded over PCIe: 1,000 tokens of 131,072
/// bytes at 64 GB/s, 2.05 ms, against the prefill it saves), else not at all.
#[test]
fn prefix_working_set_is_served_from_hbm_then_the_tier() {
    let base = "?chip=h100&op=llm:prompt=2000,output=100,prefix_hit=0.5,load=concurrency,c=1,engine=vllm,prefix_set=60GB";
    let s = scenario(base);
    let (op, h100) = (&s.ops[0], &s.chips[0]);
    let m = LoadModel::new(op, h100, &s.options).unwrap();
    let room = m.resolved.pool_bytes - m.resolved.seq_bytes;
    let hbm = room / 60e9;
    let r = row(&format!("{base},kv_host=20GB")).unwrap();
    let tier = r.tier.unwrap();
    let served = tier.served.unwrap();
    assert!(close(served[0], hbm), "{served:?} vs {hbm}");
    assert!(close(tier.load_s, 1000.0 * 131_072.0 / 6.4e10));
    let full = t(op, h100, StepMix::prefill(PhaseLoad::prefill(1.0, 2000.0)));
    let part = t(
        op,
        h100,
        StepMix::prefill(PhaseLoad::uniform(1.0, 1000.0, 2000.0)),
    );
    assert!(close(tier.recompute_s, full - part));
    assert_eq!(tier.hit_source, Some("loaded"));
    assert!(close(served[1], (20.0 / 60.0f64).min(1.0 - hbm)));
    // Fewer misses with the tier: a lower mean TTFT at this one client.
    let (w, wo) = (tier.with.unwrap(), tier.without.unwrap());
    assert!(w.ttft_mean < wo.ttft_mean, "{w:?} {wo:?}");
}

/// Preempted sequences: a pool that holds fewer sequences than run (Llama-3.1 70B in bf16 on
/// two H100s leaves about 1.5 GB per chip for KV) preempts; with a host tier they are swapped
/// out and back at PCIe speed instead of recomputed, and the same load completes more requests
/// per second.
#[test]
fn preempted_sequences_swap_instead_of_recompute() {
    let link = "?chip=h100&op=llm:preset=llama3.1-70b,tp=2,link=nvlink,prompt=500,output=1500,load=concurrency,c=24,engine=vllm,kv_host=64GiB";
    let r = row(link).unwrap();
    let sim = r.sim.unwrap();
    assert!(
        sim.preempted > 0,
        "no preemption: the test needs a full pool"
    );
    let tier = r.tier.unwrap();
    let (w, wo) = (tier.with.unwrap(), tier.without.unwrap());
    assert!(w.requests_per_s > wo.requests_per_s, "{w:?} vs {wo:?}");
}

/// The same seed gives the same figures; another seed other draws; percentiles are ordered;
/// a rate at or past saturation has no percentiles, and says where it saturates.
#[test]
fn seeds_order_and_saturation() {
    let base = "?chip=h100&op=llm:prompt=500,output=80,prompt_cv=0.6,output_cv=0.8,load=rate,qps=40,engine=vllm";
    let a = row(base).unwrap().sim.unwrap();
    let b = row(base).unwrap().sim.unwrap();
    let c = row(&format!("{base},seed=2")).unwrap().sim.unwrap();
    assert_eq!(a, b);
    assert_ne!(a.ttft.p99, c.ttft.p99);
    for p in [a.ttft, a.itl.unwrap(), a.tpot.unwrap(), a.e2e] {
        assert!(p.p50 <= p.p90 && p.p90 <= p.p99 && p.p50 > 0.0, "{p:?}");
    }
    let r = row(&format!("{base},qps=1e6")).unwrap();
    assert!(r.sim.is_none());
    assert!(r.why_none.unwrap().starts_with("saturates at "));
}

/// The goodput at a service level: at the rate found at least `slo_pct` % of requests meet both
/// bounds; at the bisection's upper end fewer do (the same simulation the search ran).
#[test]
fn goodput_at_a_service_level() {
    let link = "?chip=h100&op=llm:prompt=500,output=80,load=rate,qps=5,engine=vllm,ttft_max=60,tpot_max=12,slo_pct=90";
    let r = row(link).unwrap();
    let g = r.goodput_qps_slo.unwrap();
    let sat = r.saturation_qps.unwrap();
    assert!(g > 0.0 && g < sat, "{g} {sat}");
    let at = |q: f64| {
        let l = format!("?chip=h100&op=llm:prompt=500,output=80,load=rate,qps={q},engine=vllm,ttft_max=60,tpot_max=12");
        row(&l).unwrap().sim.map_or(0.0, |s| s.slo_met.unwrap())
    };
    assert!(at(g) >= 90.0 * 0.97, "{}", at(g));
    assert!(at((g * 1.3).min(sat * 0.999)) < 90.0);
    // Without both bounds there is none, and the row says which to set.
    let r = row("?chip=h100&op=llm:load=rate,qps=5,ttft_max=60").unwrap();
    assert_eq!(r.goodput_qps_slo, None);
    assert!(r.goodput_slo_none.unwrap().ends_with("set tpot_max"));
}
