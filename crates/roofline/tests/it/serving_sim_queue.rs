//! The queue over time (issue 42's load plot, `SimResult::series`): requests waiting and the
//! running batch after each step from the run's start, at most 512 bins that keep each
//! figure's maximum, and the warm-up's end.

use crate::serving_sim::spec;
use roofline::op::Llm;
use roofline::serving::sim::{
    self, Arrivals, BoundSteps, QueuePoint, QueueSeries, Starts, QUEUE_POINTS,
};
use roofline::serving::LoadModel;
use roofline::*;

fn llm(link: &str) -> (Op, Llm, Chip) {
    let s = url::decode(link).scenario;
    let op = s.ops[0].clone();
    let l = *op.llm().unwrap();
    (op, l, s.chips[0].clone())
}

/// Merging keeps the maximum: 10,000 samples of nothing with one spike of 7 waiting (and 3
/// running) at sample 5,001 become at most 512 bins, one of which holds the 7 and the 3, the
/// first bin starting at the first sample's time.
#[test]
fn bins_keep_a_one_step_spike() {
    let mut s = QueueSeries::default();
    for i in 0..10_000 {
        let spike = i == 5_001;
        s.add(QueuePoint {
            t: i as f64,
            waiting: if spike { 7.0 } else { 0.0 },
            running: if spike { 3.0 } else { 1.0 },
        });
    }
    let p = s.points();
    assert!(
        p.len() <= QUEUE_POINTS && p.len() > QUEUE_POINTS / 2,
        "{}",
        p.len()
    );
    assert_eq!(p[0].t, 0.0);
    assert_eq!(p.iter().filter(|q| q.waiting == 7.0).count(), 1);
    assert_eq!(p.iter().map(|q| q.running).fold(0.0, f64::max), 3.0);
    assert!(p.windows(2).all(|w| w[0].t < w[1].t));
}

/// A closed loop of 16 clients on Llama-3 8B (bf16, one H100) under vLLM, far below its cap
/// (hundreds of sequences; 16 prompts of 500 fit the 8,192-token chunk budget at once): nobody ever
/// waits, and once the clients have all started (their random offsets lie within one
/// request's latency, well before the warm-up of 200 requests ends) every bin runs all 16.
#[test]
fn a_closed_loop_below_the_cap_never_queues() {
    let (op, l, h100) =
        llm("?chip=h100&op=llm:prompt=500,output=40,engine=vllm,load=concurrency,c=16");
    let opts = Options::default();
    let m = LoadModel::new(&op, &h100, &opts).unwrap();
    assert!(m.resolved.cap >= 160.0, "cap {}", m.resolved.cap);
    let mut dep = sim::aggregated(&l, &h100, &opts, &BoundSteps).unwrap();
    let starts = Starts::Random { within: 1.0 };
    let arrivals = Arrivals::Closed {
        clients: 16,
        starts,
    };
    let r = sim::run(&mut dep, &spec(1_000, arrivals, &l)).unwrap();
    let end = r.warmup_end.unwrap();
    assert!(end > 0.0);
    assert!(!r.series.is_empty() && r.series.len() <= QUEUE_POINTS);
    assert!(r.series.iter().all(|p| p.waiting == 0.0), "someone waited");
    let after: Vec<&QueuePoint> = r.series.iter().filter(|p| p.t >= end).collect();
    assert!(after.len() > 10);
    assert!(after.iter().all(|p| p.running == 16.0), "{after:?}");
    assert!(r.series.iter().all(|p| p.running <= 16.0));
}

/// Poisson arrivals at twice the bound's saturation (ρ = 2): the queue grows; the most waiting
/// in the run's last tenth is far above its first tenth's, and the engine runs at its cap.
#[test]
fn an_open_loop_past_saturation_grows() {
    let (op, l, h100) = llm("?chip=h100&op=llm:prompt=500,output=40,engine=vllm,load=rate,qps=1");
    let opts = Options::default();
    let m = LoadModel::new(&op, &h100, &opts).unwrap();
    let sat = m
        .saturation(&roofline::serving::BoundTiming)
        .unwrap()
        .unwrap();
    let mut dep = sim::aggregated(&l, &h100, &opts, &BoundSteps).unwrap();
    let arrivals = Arrivals::Open { qps: 2.0 * sat };
    let r = sim::run(&mut dep, &spec(4_000, arrivals, &l)).unwrap();
    let n = r.series.len();
    let most = |s: &[QueuePoint]| s.iter().map(|p| p.waiting).fold(0.0, f64::max);
    let (first, last) = (most(&r.series[..n / 10]), most(&r.series[n - n / 10..]));
    assert!(
        last > 100.0 && last > 10.0 * first.max(1.0),
        "{first} → {last}"
    );
}
