//! Benchmarks: `cargo bench -p sim-core`. The 1,000,000-request run itself is timed with
//! `scripts/bench.sh` (whole process, natively and as wasm); these cover the parts.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use sim_core::perf::BatchWork;
use sim_core::{Scenario, Simulation};

fn bench_scenario(requests: u64) -> Scenario {
    let mut s = Scenario::from_json(include_str!("poisson-1m.json")).expect("bench scenario");
    s.classes[0].num_requests = Some(requests);
    s
}

fn run_requests(c: &mut Criterion) {
    let s = bench_scenario(20_000);
    let mut g = c.benchmark_group("simulate");
    g.throughput(Throughput::Elements(20_000));
    g.sample_size(20);
    g.bench_function("poisson_20k_requests_llama3_8b_h100", |b| {
        b.iter_batched(|| Simulation::new(&s).unwrap(), |mut sim| sim.run_to_end(), BatchSize::LargeInput)
    });
    g.finish();
}

fn step_time(c: &mut Criterion) {
    let sim = Simulation::new(&bench_scenario(1)).unwrap();
    let sm = sim.step_model().clone();
    let mut w = BatchWork { decode_seqs: 120, decode_ctx_tokens: 120 * 1200, logit_tokens: 120, ..Default::default() };
    w.add_prefill_chunk(512, 1024, true);
    c.bench_function("step_time_mixed_batch", |b| b.iter(|| sm.step_time(std::hint::black_box(&w))));
}

fn snapshot(c: &mut Criterion) {
    // an overloaded server: thousands of requests queued and a full batch running
    let mut s = bench_scenario(4_000);
    s.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: 400.0 };
    let mut sim = Simulation::new(&s).unwrap();
    sim.advance_to(8_000_000);
    let live = sim.live_requests().len();
    assert!(live > 1500, "only {live} in flight");
    c.bench_function("snapshot_with_2k_in_flight", |b| b.iter(|| sim.snapshot()));
    c.bench_function("live_requests_with_2k_in_flight", |b| b.iter(|| sim.live_requests()));
}

criterion_group!(benches, run_requests, step_time, snapshot);
criterion_main!(benches);
