//! Several replicas behind a router: conservation at every event on random clusters, hand-worked
//! cases, what queueing theory says about the policies, prefix affinity's hit rate, cost and the
//! messages for bad settings.

mod common;
use proptest::prelude::*;
use sim_core::cluster::Policy;
use sim_core::{RequestRecord, Scenario, Summary};

/// Runs to the end checking the invariants after every event.
fn run_checked(s: &Scenario) -> (Summary, Vec<RequestRecord>) {
    common::run_checked(s, 20_000_000)
}

fn cluster(mut s: Scenario, replicas: u32, policy: Policy) -> Scenario {
    s.replicas = replicas;
    s.router.policy = policy;
    s
}

fn poisson(rate: f64, n: u64, input: u32, output: u32) -> String {
    format!(
        r#"{{ "name": "chat", "arrival": {{ "kind": "poisson", "rate_per_s": {rate} }}, "num_requests": {n},
            "input_tokens": {{ "kind": "fixed", "value": {input} }},
            "output_tokens": {{ "kind": "fixed", "value": {output} }} }}"#
    )
}

#[test]
fn one_replica_behind_any_router_is_the_single_engine() {
    let base = common::llama8b("", &poisson(20.0, 300, 500, 100));
    let single = common::run(&base);
    for policy in Policy::ALL {
        let s = cluster(base.clone(), 1, policy);
        assert_eq!(common::run(&s), single, "{policy:?}");
    }
    assert!(single.replicas.is_empty() && single.router.is_none());
}

#[test]
fn two_requests_at_once_on_two_replicas_each_run_alone() {
    // both arrive at t = 0 (a trace); one replica batches their prompts together, two replicas
    // each prefill one: each request's TTFT is that of one request alone
    let csv = "arrival_s,input_len,output_len\n0,2000,10\n0,2000,10\n";
    let class = r#"{ "name": "chat", "arrival": { "kind": "trace", "path": "t.csv" } }"#;
    let base = common::llama8b("", class);
    let run = |s: &Scenario| {
        let mut sim = common::with_trace(s, csv);
        sim.run_to_end()
    };
    let alone_csv = "arrival_s,input_len,output_len\n0,2000,10\n";
    let mut alone = common::with_trace(&base, alone_csv);
    let alone = alone.run_to_end();
    let one = run(&base);
    let two = run(&cluster(base.clone(), 2, Policy::RoundRobin));
    assert_eq!(two.all.requests.completed, 2);
    assert_eq!(two.all.ttft_ms.max, alone.all.ttft_ms.max, "each replica runs one request alone");
    assert_eq!(two.all.ttft_ms.p50, alone.all.ttft_ms.p50);
    assert!(one.all.ttft_ms.max > alone.all.ttft_ms.max, "one replica shares the prefill between them");
    let r = &two.replicas;
    assert_eq!((r.len(), r[0].requests, r[1].requests), (2, 1, 1));
    assert_eq!(two.router.as_ref().map(|r| r.imbalance), Some(1.0));
}

#[test]
fn every_gpu_is_paid_for() {
    let mut s = common::llama8b("", &poisson(5.0, 50, 200, 50));
    s.num_gpus = 2;
    s.gpu_usd_per_hour = Some(3.0);
    let one = common::run(&s);
    let four = common::run(&cluster(s, 4, Policy::LeastOutstanding));
    assert_eq!(one.cost.usd_per_hour, 6.0);
    assert_eq!(four.cost.usd_per_hour, 24.0);
}

#[test]
fn round_robin_spreads_requests_within_one() {
    let s = cluster(common::llama8b("", &poisson(40.0, 1001, 300, 60)), 3, Policy::RoundRobin);
    let (sum, _) = run_checked(&s);
    let counts: Vec<u64> = sum.replicas.iter().map(|r| r.requests).collect();
    assert_eq!(counts, [334, 334, 333]);
    let imbalance = sum.router.unwrap().imbalance;
    assert!((imbalance - 334.0 / (1001.0 / 3.0)).abs() < 1e-12, "{imbalance}");
}

/// Mean TTFT of a 4-replica cluster under a policy, over seeds.
fn mean_ttft(policy: Policy, seed: u64) -> f64 {
    // long prompts, short answers, near saturation: waiting dominates TTFT
    let mut s = cluster(common::llama8b("", &poisson(44.0, 3000, 3000, 20)), 4, policy);
    s.seed = seed;
    common::run(&s).all.ttft_ms.mean
}

#[test]
fn routing_by_turns_or_by_load_beats_chance() {
    // Random routing gives each replica a Poisson stream (gaps with cv² = 1); round robin gives
    // it every 4th arrival (Erlang-4 gaps, cv² = 1/4), and Kingman's formula makes the wait grow
    // with the arrivals' cv²; sending each arrival to the replica with the fewest requests
    // (join the shortest queue) beats random routing for identical servers (Winston 1977).
    // Between the two the order depends on the traffic: here, long prompts, counting requests
    // misjudges the work (a replica with five requests near the end of their answers looks
    // busier than one with three prompts to compute), and round robin waits less.
    for seed in [1, 2, 3] {
        let (lo, rr, rnd) = (
            mean_ttft(Policy::LeastOutstanding, seed),
            mean_ttft(Policy::RoundRobin, seed),
            mean_ttft(Policy::Random, seed),
        );
        assert!(
            lo < rnd && rr < rnd,
            "seed {seed}: least outstanding {lo:.0} ms, round robin {rr:.0}, random {rnd:.0}"
        );
    }
}

#[test]
fn random_routing_thins_a_poisson_stream_into_poisson_streams() {
    // Four replicas fed at 4λ at random see the traffic one replica sees at λ (thinning a
    // Poisson process gives Poisson processes): the same TTFT distribution up to sampling.
    let (lambda, n) = (10.0, 4000u64);
    let one = common::run(&common::llama8b("", &poisson(lambda, n, 1500, 80)));
    let four = common::run(&cluster(common::llama8b("", &poisson(4.0 * lambda, 4 * n, 1500, 80)), 4, Policy::Random));
    let (a, b) = (one.all.ttft_ms.mean, four.all.ttft_ms.mean);
    assert!((a - b).abs() / a < 0.1, "mean TTFT one replica at λ {a:.1} ms, four at 4λ {b:.1} ms");
    let (a, b) = (one.all.tpot_ms.mean, four.all.tpot_ms.mean);
    assert!((a - b).abs() / a < 0.05, "mean TPOT {a:.2} vs {b:.2} ms");
    let counts: Vec<u64> = four.replicas.iter().map(|r| r.requests).collect();
    // each count is binomial(16000, 1/4): mean 4000, sd 55
    assert!(counts.iter().all(|&c| (3700..=4300).contains(&c)), "{counts:?}");
}

/// One user asking one request after another, prompts starting with one of `groups` prefixes.
fn sequential(n: u64, groups: u32) -> Scenario {
    let class = format!(
        r#"{{ "name": "chat", "arrival": {{ "kind": "closed_loop", "users": 1, "think_time_ms": 50 }},
            "num_requests": {n}, "input_tokens": {{ "kind": "fixed", "value": 1000 }},
            "output_tokens": {{ "kind": "fixed", "value": 20 }},
            "prefix": {{ "shared_tokens": 500, "groups": {groups} }} }}"#
    );
    common::llama8b(r#", "prefix_caching": true"#, &class)
}

#[test]
fn prefix_affinity_keeps_each_prefix_on_one_replica() {
    // One request at a time: every group's first request finds no replica holding its prefix
    // and goes to the least loaded; every later one goes where its prefix is (the cap is
    // ⌈1.25 × 1 / 4⌉ = 1 request). So the cluster caches as one replica does: 31 full blocks of
    // 16 tokens (496) for every request after the first of its group.
    let (n, groups) = (80u64, 6u32);
    let single = common::run(&sequential(n, groups)).all.prefix_cache.unwrap();
    assert_eq!(single.cached_tokens, (n - groups as u64) * 496);
    let (aff, _) = run_checked(&cluster(sequential(n, groups), 4, Policy::PrefixAffinity));
    assert_eq!(aff.all.prefix_cache.unwrap().cached_tokens, single.cached_tokens);
    let router = aff.router.as_ref().unwrap();
    assert_eq!((router.none_cached, router.by_affinity, router.over_cap), (groups as u64, n - groups as u64, 0));
    // round robin sends a group's requests to every replica: each replica misses it once
    let (rr, _) = run_checked(&cluster(sequential(n, groups), 4, Policy::RoundRobin));
    let rr_cached = rr.all.prefix_cache.unwrap().cached_tokens;
    assert!(rr_cached < single.cached_tokens, "round robin {rr_cached} vs affinity {}", single.cached_tokens);
    assert!(aff.all.ttft_ms.mean < rr.all.ttft_ms.mean);
    // every replica's own hit rate is reported
    assert!(aff.replicas.iter().all(|r| r.prefix_hit_rate.is_some()));
}

#[test]
fn prefix_affinity_spills_over_its_cap_under_load() {
    // one prefix for all, heavy traffic: the replica holding it fills past its bounded share
    let class = r#"{ "name": "chat", "arrival": { "kind": "poisson", "rate_per_s": 60 }, "num_requests": 1500,
        "input_tokens": { "kind": "fixed", "value": 1200 }, "output_tokens": { "kind": "fixed", "value": 150 },
        "prefix": { "shared_tokens": 800, "groups": 1 } }"#;
    let s = cluster(common::llama8b(r#", "prefix_caching": true"#, class), 4, Policy::PrefixAffinity);
    let (sum, records) = run_checked(&s);
    let router = sum.router.unwrap();
    assert!(router.over_cap > 0, "{router:?}");
    assert!(router.by_affinity > 0);
    assert_eq!(router.by_affinity + router.over_cap + router.none_cached, 1500);
    // spilling spreads the prefix: more than one replica serves it
    assert!(sum.replicas.iter().filter(|r| r.requests > 0).count() > 1);
    assert_eq!(records.len(), 1500);
}

#[test]
fn bad_cluster_settings_name_their_field() {
    let mut s = common::llama8b("", &poisson(1.0, 10, 10, 10));
    s.replicas = 0;
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("replicas") && e.contains("64"), "{e}");
    let mut s = common::llama8b("", &poisson(1.0, 10, 10, 10));
    s.replicas = 2;
    s.router.load_cap = 0.5;
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("router.load_cap"), "{e}");
    let json = serde_json::to_string(&s).unwrap().replace("\"round_robin\"", "\"fastest\"");
    let e = Scenario::from_json(&json).unwrap_err().to_string();
    assert!(e.contains("router.policy") && e.contains("least_outstanding"), "{e}");
}

#[test]
fn a_cluster_scenario_reads_back_as_written() {
    let mut s = cluster(common::llama8b("", &poisson(1.0, 10, 10, 10)), 3, Policy::LeastKv);
    s.router.load_cap = 2.0;
    let back = Scenario::from_json(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    // defaults are left out of the file
    let plain = serde_json::to_string(&common::llama8b("", &poisson(1.0, 10, 10, 10))).unwrap();
    assert!(!plain.contains("replicas") && !plain.contains("router"), "{plain}");
}

fn arb_cluster() -> impl Strategy<Value = Scenario> {
    (
        1u32..=5,
        0usize..5,
        1.0f64..3.0,
        prop::bool::ANY,
        (1u32..4, 1u32..400),
        (2.0f64..80.0, 50u64..300),
        (16u32..3000, 1u32..400),
        (prop::bool::ANY, prop::bool::ANY, 0u64..1000),
        prop::option::of((1u32..6, 0.0f64..0.95)),
    )
        .prop_map(
            |(
                replicas,
                policy,
                cap,
                prefix,
                (groups, shared),
                (rate, n),
                (input, output),
                (bursty, low_mem, seed),
                spec,
            )| {
                let arrival = if bursty {
                    format!(r#"{{ "kind": "bursty", "rate_per_s": {rate}, "cv": 3 }}"#)
                } else {
                    format!(r#"{{ "kind": "poisson", "rate_per_s": {rate} }}"#)
                };
                let prefix_field = if prefix {
                    format!(r#", "prefix": {{ "shared_tokens": {shared}, "groups": {groups} }}"#)
                } else {
                    String::new()
                };
                let class = format!(
                    r#"{{ "name": "a", "arrival": {arrival}, "num_requests": {n},
                    "input_tokens": {{ "kind": "uniform", "min": 1, "max": {input} }},
                    "output_tokens": {{ "kind": "uniform", "min": 1, "max": {output} }} {prefix_field} }}"#
                );
                let mut s = common::llama8b(r#", "prefix_caching": true"#, &class);
                s.replicas = replicas;
                s.router.policy = Policy::ALL[policy];
                s.router.load_cap = cap;
                s.seed = seed;
                // speculative decoding on every replica, each drawing its own accepted tokens
                s.speculative = spec.map(|(k, a)| sim_core::speculative::SpeculativeConfig {
                    draft_tokens: k,
                    acceptance_rate: a,
                    draft_model: None,
                });
                if low_mem {
                    // little KV: preemption and eviction under pressure
                    s.gpu_memory_utilization = 0.24;
                }
                s
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// At every event: requests conserved per replica and overall, KV within every replica's
    /// pool, shared blocks counted once (the replicas' own checks); at the end every request
    /// ended once and the output tokens counted are those of the completed requests.
    #[test]
    fn clusters_conserve_requests_and_tokens(s in arb_cluster()) {
        let (sum, records) = run_checked(&s);
        let n = s.classes[0].num_requests.unwrap_or(0);
        prop_assert_eq!(records.len() as u64, n);
        prop_assert_eq!(sum.all.requests.arrived, n);
        let mut ids: Vec<u64> = records.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len() as u64, n, "every request ends once");
        let delivered: u64 = records.iter().filter(|r| r.outcome == sim_core::metrics::Outcome::Completed).map(|r| r.output_tokens as u64).sum();
        let counted = (sum.all.throughput.output_tokens_per_s * sum.duration_s).round() as u64;
        prop_assert_eq!(counted, delivered);
        if s.replicas > 1 {
            let per: u64 = sum.replicas.iter().map(|r| r.requests).sum();
            prop_assert_eq!(per, n);
            let done: u64 = sum.replicas.iter().map(|r| r.completed).sum();
            prop_assert_eq!(done, sum.all.requests.completed);
            prop_assert!(sum.replicas.iter().all(|r| (0.0..=1.0 + 1e-9).contains(&r.busy_share)));
        }
    }
}

#[test]
fn the_docs_table_of_policies_lists_what_each_reads() {
    // docs/model.md: | `policy` | picks | reads | as in |
    let doc = include_str!("../../docs/model.md");
    for p in Policy::ALL {
        let start = format!("| `{}` |", p.name());
        let row = doc.lines().find(|l| l.starts_with(&start)).unwrap_or_else(|| panic!("no docs row for {}", p.name()));
        let cells: Vec<&str> = row.split(" | ").collect();
        let declared: Vec<&str> = sim_core::cluster::reads(p).iter().map(|i| i.name()).collect();
        assert_eq!(cells[2], declared.join(", "), "docs/model.md's row for {}", p.name());
    }
}
