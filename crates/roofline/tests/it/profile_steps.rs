//! Serving engines' step spans in PyTorch traces (issue 43): this project's own fixtures, one
//! per dialect (SGLang `step[…]`, vLLM `execute_…`, ROCm ATOM `prefill[…]`/`decode[…]`), each
//! plain and gzip-compressed as the engines write them. Every figure checked here is one the
//! fixture was written with (its spans' names, the GPU-side spans' durations, the kernels'
//! intervals), not the importer's own output.

use roofline::profile::steps::{Dialect, StepPhase};
use roofline::profile::{import, Importer, Profile, TimeSource};

const SGLANG: &[u8] = include_bytes!("../fixtures/profiles/sglang-steps.json");
const SGLANG_GZ: &[u8] = include_bytes!("../fixtures/profiles/sglang-steps.json.gz");
const VLLM: &[u8] = include_bytes!("../fixtures/profiles/vllm-steps.json");
const VLLM_GZ: &[u8] = include_bytes!("../fixtures/profiles/vllm-steps.json.gz");
const ATOM: &[u8] = include_bytes!("../fixtures/profiles/atom-steps.json");
const ATOM_GZ: &[u8] = include_bytes!("../fixtures/profiles/atom-steps.json.gz");

fn chunked(bytes: &[u8], n: usize) -> Profile {
    let mut imp = Importer::new();
    for c in bytes.chunks(n) {
        imp.feed(c).unwrap();
    }
    assert_eq!(imp.consumed(), bytes.len() as u64);
    imp.finish().unwrap()
}

/// The gzip file reads as its plain twin (a note on the inflation first), in slices of any size.
#[test]
fn gzip_traces_read_as_their_plain_twins() {
    for (plain, gz) in [(SGLANG, SGLANG_GZ), (VLLM, VLLM_GZ), (ATOM, ATOM_GZ)] {
        let p = import(plain).unwrap();
        let mut z = import(gz).unwrap();
        let note = z.notes.remove(0);
        assert_eq!(
            note,
            format!(
                "read from gzip: {} compressed bytes inflated to {}",
                gz.len(),
                plain.len()
            )
        );
        assert_eq!(z, p);
        for n in [1, 3, 64, 1000] {
            assert_eq!(chunked(gz, n), import(gz).unwrap(), "slices of {n}");
        }
    }
}

fn ms(s: &roofline::profile::Step) -> f64 {
    s.gpu_time.unwrap() * 1e3
}

#[test]
fn sglang_steps_with_their_gpu_time() {
    let p = import(SGLANG).unwrap();
    // Nine spans: the draft step, the idle step and the malformed one are not steps.
    let phases: Vec<StepPhase> = p.steps.iter().map(|s| s.span.phase).collect();
    use StepPhase::*;
    assert_eq!(phases, [Prefill, Decode, Decode, Mixed, Decode, Verify]);
    assert!(p.steps.iter().all(|s| s.span.dialect == Dialect::Sglang));
    // The GPU-side spans as written: 55.0, 6.0, —, 9.5, 6.2, 6.5 ms.
    for (i, want) in [(0, 55.0), (1, 6.0), (3, 9.5), (4, 6.2), (5, 6.5)] {
        assert!((ms(&p.steps[i]) - want).abs() < 1e-9, "step {i}");
        assert_eq!(p.steps[i].source, Some(TimeSource::GpuSpan));
    }
    // Step 2 has no GPU-side span: its kernels ran over [0, 4000] and [3500, 6050] µs, a union
    // of 6050 µs (their sum, 6550 µs, would count the overlap twice).
    assert_eq!(p.steps[2].source, Some(TimeSource::Kernels));
    assert!((ms(&p.steps[2]) - 6.05).abs() < 1e-9);
    // The mixed step's phases as its name gives them.
    let m = &p.steps[3].span;
    assert_eq!((m.batch, m.tokens), (3.0, Some(514.0)));
    assert_eq!(m.prefill.unwrap().sqsq, 262144.0);
    assert_eq!(m.decode.unwrap().sk, 3078.0);
    // Two new tokens for each of two sequences: a verify step (MTP).
    assert_eq!(p.steps[5].span.tokens, Some(4.0));
    let notes = p.notes.join("\n");
    for want in [
        "6 steps of SGLang (5 with the GPU-side span's time, 1 with their kernels' union",
        "1 span left out: a draft model's step",
        "1 span left out: an idle step",
        "1 step span not read (SGLang step name: g_sk, g_sqsq, g_sqsk missing",
    ] {
        assert!(notes.contains(want), "{want}\n{notes}");
    }
    let par = p.parallel.unwrap();
    assert_eq!((par.world, par.rank, par.tp), (Some(1.0), Some(0.0), None));
}

#[test]
fn vllm_steps_and_the_flag_for_its_plain_names() {
    let p = import(VLLM).unwrap();
    use StepPhase::*;
    let got: Vec<(StepPhase, f64, bool)> = p
        .steps
        .iter()
        .map(|s| (s.span.phase, s.span.batch, s.span.detailed()))
        .collect();
    assert_eq!(
        got,
        [
            (Prefill, 2.0, true),
            (Decode, 2.0, true),
            (Mixed, 3.0, true),
            (Decode, 3.0, true),
            (Decode, 3.0, false)
        ]
    );
    let times: Vec<f64> = p.steps.iter().map(ms).collect();
    for (t, want) in times.iter().zip([55.4, 6.0, 9.6, 6.2, 6.3]) {
        assert!((t - want).abs() < 1e-9);
    }
    // The "tp" process group of distributedInfo.
    assert_eq!(p.parallel.unwrap().tp, Some(1.0));
    assert!(p
        .notes
        .iter()
        .any(|n| n.contains("detailed_trace_annotation True")));
}

#[test]
fn atom_steps_from_cuda_graph_launches() {
    // One cudaGraphLaunch per step launches both its kernels (one correlation id).
    let p = import(ATOM).unwrap();
    use StepPhase::*;
    let phases: Vec<StepPhase> = p.steps.iter().map(|s| s.span.phase).collect();
    assert_eq!(phases, [Prefill, Decode, Mixed, Verify]);
    assert!(p.steps.iter().all(|s| s.kernels == 2));
    assert_eq!(p.steps[1].span.padded, Some(4.0));
    // ATOM gives the whole step's aggregates, not each phase's.
    let w = p.steps[2].span.whole.unwrap();
    assert_eq!(
        (w.seqs, w.sq, w.sk, w.sqsq, w.sqsk),
        (3.0, 514.0, 3588.0, 262146.0, 265220.0)
    );
    assert_eq!(p.device.as_deref(), Some("AMD Instinct MI300X"));
    let notes = p.notes.join("\n");
    assert!(
        notes.contains("1 span left out: a CUDA-graph capture"),
        "{notes}"
    );
    assert!(notes.contains("1 span left out: a dummy step"), "{notes}");
    assert!(notes.contains("padded past the real batch"), "{notes}");
}

/// A trace without step spans says how to turn them on, engine by engine.
#[test]
fn a_trace_without_step_spans_names_each_engines_flag() {
    let p = import(include_bytes!("../fixtures/profiles/pytorch-trace-1x.json")).unwrap();
    assert!(p.steps.is_empty());
    let note = p.notes.last().unwrap();
    for d in Dialect::ALL {
        assert!(note.contains(d.flag()), "{note}");
    }
}

/// One guard for every fitted model (issue 38's point 6, issue 43): the kernels' calibration
/// and the steps' own engine are refused alike.
#[test]
fn one_guard_for_the_calibration_and_the_own_engine() {
    use roofline::profile::{fit, fit_steps, Kernel, Roofline, StepObs};
    // Three memory-bound kernels of 10, 20 and 40 µs at 1 TB/s, each 5 µs slower: the fitted
    // overhead, 5 µs, passes a tenth of the median launch (25 µs).
    let roof = Roofline::new(1e15, 1e12).unwrap();
    let kernels = |o: f64| -> Vec<Kernel> {
        [10e-6, 20e-6, 40e-6]
            .iter()
            .map(|&t| {
                let mut k = Kernel::new("copy", roofline::profile::Format::PlainCsv);
                k.flops = Some(0.0);
                k.bytes = Some(t * 1e12);
                k.time = t + o;
                k
            })
            .collect()
    };
    let f = fit(&kernels(5e-6), &roof).unwrap();
    assert!((f.calibration.overhead - 5e-6).abs() < 1e-9);
    assert!((f.median - 25e-6).abs() < 1e-12);
    let why = f.check().unwrap_err();
    assert!(why.contains("passes a tenth of the median"), "{why}");
    // 1 µs of 21: within a tenth.
    assert!(fit(&kernels(1e-6), &roof).unwrap().check().is_ok());
    // Steps: a fixed 3 ms per step against a median step of about 8 ms passes a tenth too.
    let steps: Vec<StepObs> = [(1e-3, 4e-3), (5e-3, 3e-3), (2e-3, 8e-3), (9e-3, 1e-3)]
        .iter()
        .map(|&(c, m)| StepObs {
            compute: c,
            memory: m,
            network: 0.0,
            measured: c + m + 3e-3,
        })
        .collect();
    let why = fit_steps(&steps).unwrap().check().unwrap_err();
    assert!(why.contains("fixed time per step"), "{why}");
}
