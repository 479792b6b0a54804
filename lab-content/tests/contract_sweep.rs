//! The resource contract's acceptance test and load sweeps.

use lab_content::contract::{Contract, EXAMPLE};
use lab_content::sweep::{Sweep, SweepParam};
use sim_core::sim::BuiltinTraces;

#[test]
fn the_example_contract_passes_and_each_target_can_fail_it() {
    let c = Contract::from_json(EXAMPLE).unwrap();
    let r = c.check(&BuiltinTraces).unwrap();
    assert!(r.pass, "{:#?}", r.lines);
    assert!(r.lines.len() >= 10);
    // the applied scenario carries the contract's limits
    assert_eq!(r.scenario.scheduler.max_num_seqs, c.request_limits.max_concurrency);
    assert_eq!(
        r.scenario.scheduler.max_model_len,
        c.request_limits.max_input_tokens + c.request_limits.max_output_tokens
    );

    // an impossible TTFT target fails exactly that line
    let mut strict = c.clone();
    strict.slo.ttft_p99_ms = Some(1.0);
    let r2 = strict.check(&BuiltinTraces).unwrap();
    assert!(!r2.pass);
    let failed: Vec<&str> = r2.lines.iter().filter(|l| !l.pass).map(|l| l.field.as_str()).collect();
    assert_eq!(failed, vec!["slo.ttft_p99_ms"]);
}

#[test]
fn concurrency_beyond_what_memory_holds_fails_the_memory_line() {
    // the safe concurrency zone is set by memory: 256 sequences × 8k tokens of KV do not fit
    let mut c = Contract::from_json(EXAMPLE).unwrap();
    c.request_limits.max_concurrency = 256;
    let r = c.check(&BuiltinTraces).unwrap();
    let line = r.lines.iter().find(|l| l.field == "request_limits.max_concurrency").unwrap();
    assert!(!line.pass && line.measured > line.target, "{line:?}");
}

#[test]
fn contract_errors_name_their_field() {
    let bad = EXAMPLE.replace(r#""gpu_memory_utilization": 0.85"#, r#""gpu_memory_utilization": 2"#);
    let e = Contract::from_json(&bad).unwrap_err().to_string();
    assert!(e.contains("resources.gpu_memory_utilization must be"), "{e}");
    let bad = EXAMPLE.replace(r#""slo": {"#, r#""slo": { "ttft_p50_ms": 3,"#);
    let e = Contract::from_json(&bad).unwrap_err().to_string();
    assert!(e.contains("slo") && e.contains("ttft_p50_ms"), "{e}");
}

#[test]
fn load_sweep_finds_a_knee_goodput_rises_then_falls_while_throughput_saturates() {
    let base = preset("chat-latency-first");
    let pts = Sweep::new(&base, SweepParam::RatePerS, 2.0, 30.0, 8).unwrap().run();
    assert_eq!(pts.len(), 8);
    let good: Vec<f64> = pts.iter().map(|p| p.summary.as_ref().unwrap().all.goodput.output_tokens_per_s).collect();
    let thr: Vec<f64> = pts.iter().map(|p| p.summary.as_ref().unwrap().all.throughput.output_tokens_per_s).collect();
    let peak = good.iter().cloned().fold(0.0, f64::max);
    let knee = good.iter().position(|g| *g == peak).unwrap();
    assert!(knee > 0 && knee < 7, "goodput peaks inside the range: {good:?}");
    assert!(good[7] < 0.5 * peak, "past the knee goodput collapses: {good:?}");
    // throughput keeps most of its peak past the knee: it looks fine while goodput does not
    let tpeak = thr.iter().cloned().fold(0.0, f64::max);
    assert!(thr[7] > 0.8 * tpeak, "{thr:?}");
    // offered load below the knee is served almost entirely within SLO
    assert!(pts[0].summary.as_ref().unwrap().all.goodput.slo_attainment > 0.95);
}

#[test]
fn a_sweep_can_be_sliced_and_reports_unrunnable_points() {
    let base = preset("chat-latency-first");
    let mut s = Sweep::new(&base, SweepParam::GpuMemoryUtilization, 0.1, 0.9, 3).unwrap();
    let mut slices = 0;
    let mut last = 0.0;
    while !s.step(2_000) {
        slices += 1;
        assert!(s.progress() >= last);
        last = s.progress();
    }
    assert!(slices > 3, "sliced into {slices}");
    let pts = s.points();
    // at 10% of 80 GiB the weights do not fit: that point carries the message, the others run
    assert!(pts[0].summary.is_none() && pts[0].error.as_deref().unwrap().contains("does not fit"));
    assert!(pts[1].summary.is_some() && pts[2].summary.is_some());
    assert!(Sweep::new(&base, SweepParam::RatePerS, 1.0, 2.0, 0).is_err());
}

#[test]
fn a_replica_sweep_adds_replicas_and_their_cost_and_keeps_the_pools_of_a_split_apart() {
    // chat-latency-first offered far past one replica's knee: more replicas serve it in SLO
    let base = SweepParam::RatePerS.apply(&preset("chat-latency-first"), 30.0).unwrap();
    let pts = Sweep::new(&base, SweepParam::Replicas, 1.0, 4.0, 4).unwrap().run();
    let sums: Vec<_> = pts.iter().map(|p| p.summary.as_ref().expect("every point runs")).collect();
    for (i, s) in sums.iter().enumerate() {
        let n = i + 1;
        assert_eq!(pts[i].value, n as f64);
        assert_eq!(s.replicas.len(), if n > 1 { n } else { 0 }, "one summary per replica (none for one)");
        assert_eq!(s.router.is_some(), n > 1);
        // every GPU is paid for: n replicas cost n times one
        assert!((s.cost.usd_per_hour - n as f64 * sums[0].cost.usd_per_hour).abs() < 1e-9);
    }
    let good: Vec<f64> = sums.iter().map(|s| s.all.goodput.output_tokens_per_s).collect();
    assert!(good[3] > 3.0 * good[0], "four replicas serve far more within SLO: {good:?}");
    // a split's pools have their own sizes: the replica count does not apply to it
    let mut split = preset("disaggregated");
    split.classes[0].num_requests = Some(50);
    let mut sweep = Sweep::new(&split, SweepParam::Replicas, 2.0, 3.0, 2).unwrap();
    while !sweep.step(10_000) {}
    for p in sweep.points() {
        let e = p.problem.as_ref().expect("refused");
        assert!(e.for_field("replicas").is_some(), "{e}");
    }
}

fn preset(id: &str) -> sim_core::Scenario {
    sim_core::presets::find(id).unwrap_or_else(|| panic!("no preset {id}")).scenario()
}
