//! Multi-turn conversations (`classes[i].session`, a trace's `session_id`): a hand-worked
//! conversation (its prompts, its think times, the blocks its turns find cached), a failed turn
//! ending its conversation, a trace's held turns, the same conversations under any router,
//! session affinity, conversations after a shared prefix (by hand, deterministic, a trace's),
//! conservation at every event on random clusters, and the messages.

mod common;
use proptest::prelude::*;
use sim_core::cluster::Policy;
use sim_core::metrics::Outcome;
use sim_core::{RequestRecord, Scenario, Summary};

fn run_checked(s: &Scenario) -> (Summary, Vec<RequestRecord>) {
    common::run_checked(s, 50_000_000)
}

/// One class of `n` conversations of `turns` turns, `think` ms apart, fixed lengths.
fn chat(rate: f64, n: u64, turns: &str, think: f64, input: u32, output: u32) -> String {
    format!(
        r#"{{ "name": "chat", "arrival": {{ "kind": "poisson", "rate_per_s": {rate} }}, "num_requests": {n},
            "input_tokens": {{ "kind": "fixed", "value": {input} }},
            "output_tokens": {{ "kind": "fixed", "value": {output} }},
            "session": {{ "turns": {turns}, "think_time_ms": {think} }} }}"#
    )
}

const CACHING: &str = r#", "prefix_caching": true"#;

#[test]
fn a_conversation_sends_its_history_and_finds_it_cached() {
    // 3 turns of 100 new tokens and 50 answered, 1 s apart, blocks of 16
    let s = common::llama8b(CACHING, &chat(1.0, 1, r#"{ "kind": "fixed", "value": 3 }"#, 1000.0, 100, 50));
    let (sum, mut recs) = run_checked(&s);
    recs.sort_by_key(|r| r.id);
    let prompts: Vec<u32> = recs.iter().map(|r| r.input_tokens).collect();
    assert_eq!(prompts, vec![100, 250, 400], "each prompt is the history plus 100 new tokens");
    assert!(recs.iter().all(|r| r.outcome == Outcome::Completed && r.output_tokens == 50));
    for w in recs.windows(2) {
        // sent 1 s after the previous answer (times in ms and s, rounded to the µs)
        let ended = w[0].arrival_s + w[0].e2e_ms.unwrap() / 1000.0;
        assert!((w[1].arrival_s - (ended + 1.0)).abs() < 2e-6, "{} vs {}", w[1].arrival_s, ended + 1.0);
    }
    // turn 2 finds ⌊(100 + 50 − 1) / 16⌋ = 9 blocks, turn 3 ⌊(250 + 50 − 1) / 16⌋ = 18
    let pc = sum.all.prefix_cache.expect("prefix caching reports");
    assert_eq!(pc.cached_tokens, (9 + 18) * 16);
    assert_eq!(pc.hit_rate, (27.0 * 16.0) / 750.0);
    assert_eq!(pc.evicted_blocks, 0);
    assert_eq!((sum.all.requests.arrived, sum.all.requests.completed), (3, 3));

    // without caching the same prompts are computed whole: the later turns' TTFT grows
    let mut off = s.clone();
    off.scheduler.prefix_caching = false;
    let (sum_off, mut recs_off) = run_checked(&off);
    recs_off.sort_by_key(|r| r.id);
    assert_eq!(recs_off.iter().map(|r| r.input_tokens).collect::<Vec<_>>(), prompts);
    assert!(sum_off.all.prefix_cache.is_none());
    assert!(recs_off[2].ttft_ms > recs[2].ttft_ms, "turn 3 prefills 400 tokens instead of 112");
    assert_eq!(recs_off[0].ttft_ms, recs[0].ttft_ms, "the first turn finds nothing either way");
}

#[test]
fn a_failed_turn_ends_its_conversation() {
    // 5 turns planned; the third (prompt 100 + 150 + 100 + 150 + 100 = 600, with its answer 750)
    // does not fit a 700-token context: it is rejected and turns 4 and 5 are never sent
    let mut s = common::llama8b("", &chat(1.0, 1, r#"{ "kind": "fixed", "value": 5 }"#, 0.0, 100, 150));
    s.scheduler.max_model_len = 700;
    let mut sim = sim_core::Simulation::new(&s).unwrap();
    assert_eq!(sim.total_requests(), 5);
    let sum = sim.run_to_end();
    sim.check_invariants().unwrap();
    let c = &sum.all.requests;
    assert_eq!((c.arrived, c.completed, c.rejected), (3, 2, 1));
    assert_eq!(sim.total_requests(), 3, "the turns not sent are not counted");
    assert_eq!(sim.progress(), 1.0);
}

#[test]
fn a_trace_turn_waits_for_the_previous_answer() {
    // conversation 7's second row arrives 1 ms after its first, long before the answer: it is
    // sent when the answer ends, with the history; conversation 9 is independent
    let csv = "arrival_s,input_len,output_len,session_id\n0,100,50,7\n0.001,100,50,7\n0.002,300,20,9\n";
    let class = r#"{ "name": "chat", "arrival": { "kind": "trace", "path": "t.csv" } }"#;
    let s = common::llama8b(CACHING, class);
    let mut sim = common::with_trace(&s, csv);
    let recs = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = recs.clone();
    sim.set_request_sink(Box::new(move |r: &RequestRecord| sink.borrow_mut().push(r.clone())));
    let sum = sim.run_to_end();
    sim.check_invariants().unwrap();
    let mut recs = recs.borrow().clone();
    recs.sort_by_key(|r| (r.arrival_s * 1e6) as u64);
    let first = recs.iter().find(|r| r.input_tokens == 100).unwrap();
    let second = recs.iter().find(|r| r.input_tokens == 250).expect("the second turn carries the history");
    let other = recs.iter().find(|r| r.input_tokens == 300).unwrap();
    let ended = first.arrival_s + first.e2e_ms.unwrap() / 1000.0;
    assert!((second.arrival_s - ended).abs() < 2e-6, "sent when the answer ended");
    assert!((other.arrival_s - 0.002).abs() < 1e-9, "another conversation is not held");
    assert_eq!(sum.all.requests.completed, 3);
    assert_eq!(sum.all.prefix_cache.unwrap().cached_tokens, 9 * 16);
}

#[test]
fn every_router_serves_the_same_conversations() {
    // a conversation's turns and lengths come from its own stream: however its turns are
    // timed and placed, the prompts sent are the same multiset
    let class = chat(6.0, 60, r#"{ "kind": "uniform", "min": 1, "max": 6 }"#, 500.0, 200, 80)
        .replace(r#""kind": "fixed", "value": 200"#, r#""kind": "lognormal", "mean": 200, "sigma": 0.5"#);
    let base = common::llama8b(CACHING, &class);
    let mut seen = None;
    for policy in [Policy::RoundRobin, Policy::LeastOutstanding, Policy::PrefixAffinity] {
        let mut s = base.clone();
        s.replicas = 3;
        s.router.policy = policy;
        let (sum, recs) = run_checked(&s);
        assert_eq!(sum.all.requests.completed, sum.all.requests.arrived, "{policy:?}");
        let mut prompts: Vec<(u32, u32)> = recs.iter().map(|r| (r.input_tokens, r.output_tokens)).collect();
        prompts.sort_unstable();
        let planned = sim_core::Simulation::new(&s).unwrap().total_requests();
        assert_eq!(prompts.len() as u64, planned, "{policy:?}: every planned turn is sent");
        match &seen {
            None => seen = Some(prompts),
            Some(p) => assert_eq!(&prompts, p, "{policy:?}"),
        }
    }
}

#[test]
fn session_affinity_keeps_a_conversation_where_its_history_is() {
    // 4 replicas, 6-turn conversations: prefix affinity sends each turn to the replica holding
    // its history (hit rate near the hand bound), round robin to the next replica in turn
    // (about a quarter as often where the history is)
    let class = chat(8.0, 200, r#"{ "kind": "fixed", "value": 6 }"#, 1000.0, 300, 100);
    for seed in [1, 2, 3] {
        let mut s = common::llama8b(CACHING, &class);
        s.seed = seed;
        s.replicas = 4;
        let rate = |policy| {
            let mut s = s.clone();
            s.router.policy = policy;
            let sum = common::run(&s);
            (sum.all.prefix_cache.unwrap().hit_rate, sum.all.ttft_ms.mean)
        };
        let (affinity, ttft_affinity) = rate(Policy::PrefixAffinity);
        let (rr, ttft_rr) = rate(Policy::RoundRobin);
        // the bound: turn k's prompt is 300 + 400 (k − 1) tokens, and (k ≥ 2) it finds the full
        // blocks of the previous prompt and answer but their last token, ⌊(400 k − 401) / 16⌋
        let prompts: f64 = (1..=6).map(|k| 400.0 * k as f64 - 100.0).sum();
        let cached: f64 = (2..=6).map(|k| ((400 * k - 401) / 16 * 16) as f64).sum();
        let bound = cached / prompts;
        assert!(affinity <= bound + 1e-12 && affinity > 0.9 * bound, "seed {seed}: {affinity} vs {bound}");
        assert!(rr < 0.5 * affinity, "seed {seed}: round robin {rr}, affinity {affinity}");
        assert!(ttft_affinity < ttft_rr, "seed {seed}: {ttft_affinity} vs {ttft_rr}");
    }
}

/// `chat(…)` whose prompts start with one of `groups` shared prefixes of `shared` tokens.
fn with_prefix(class: &str, shared: u32, groups: u32) -> String {
    class.replace(
        r#""session""#,
        &format!(r#""prefix": {{ "shared_tokens": {shared}, "groups": {groups} }}, "session""#),
    )
}

#[test]
fn conversations_after_a_shared_prefix_find_the_group_and_their_history() {
    // one replica, blocks of 16, a 64-token prefix (4 blocks) of one group; 2 conversations of
    // 2 turns, each turn 100 input tokens (the prefix and 36 new ones) and 50 answered
    let class = |rate: f64| with_prefix(&chat(rate, 2, r#"{ "kind": "fixed", "value": 2 }"#, 1000.0, 100, 50), 64, 1);
    // apart (seed 11 sends the second 0.43 s after the first, long after its prefill)
    let s = common::llama8b(CACHING, &class(0.5));
    let (sum, mut recs) = run_checked(&s);
    recs.sort_by(|a, b| a.arrival_s.total_cmp(&b.arrival_s));
    // turn 1: 64 + 36; turn 2: the prefix, turn 1's 36 and 50, then 36 new = 186
    let mut prompts: Vec<u32> = recs.iter().map(|r| r.input_tokens).collect();
    prompts.sort_unstable();
    assert_eq!(prompts, vec![100, 100, 186, 186]);
    assert!(recs[1].arrival_s > recs[0].arrival_s + 0.4 && recs[1].input_tokens == 100, "{recs:?}");
    // the first turn finds nothing; the second conversation's first turn finds the group's 4
    // blocks (64 tokens); each second turn finds the prefix and its history but the answer's
    // last token, ⌊(100 + 50 − 1) / 16⌋ = 9 blocks (144 tokens)
    let pc = sum.all.prefix_cache.expect("prefix caching reports");
    assert_eq!(pc.cached_tokens, 64 + 2 * 144);
    assert_eq!(pc.hit_rate, 352.0 / 572.0);
    assert_eq!(pc.evicted_blocks, 0);
    let hits: Vec<f64> = recs.iter().map(|r| r.ttft_ms.unwrap()).collect();
    assert!(hits[1] < hits[0], "the second conversation's first turn computes 36 tokens, not 100");

    // together (both sent within microseconds, prefilled in one step): neither first turn finds
    // the prefix, the second to cache it takes the first's blocks instead of its own copies,
    // and each second turn still finds its history behind the group's prefix
    let s = common::llama8b(CACHING, &class(1e6));
    let (sum, recs) = run_checked(&s);
    assert_eq!(recs.len(), 4);
    let pc = sum.all.prefix_cache.unwrap();
    assert_eq!((pc.cached_tokens, pc.hit_rate), (2 * 144, 288.0 / 572.0));
}

#[test]
fn conversations_after_a_shared_prefix_are_deterministic_and_their_own() {
    // 3 groups of a 512-token prefix: the same seed gives the same run; each conversation's
    // turns, lengths and group come from its own stream, so every router sends the same prompts
    let class = with_prefix(
        &chat(6.0, 60, r#"{ "kind": "uniform", "min": 1, "max": 5 }"#, 300.0, 700, 60)
            .replace(r#""kind": "fixed", "value": 700"#, r#""kind": "uniform", "min": 520, "max": 900"#),
        512,
        3,
    );
    let base = common::llama8b(CACHING, &class);
    let json = |s: &Scenario| serde_json::to_string(&common::run(s)).unwrap();
    assert_eq!(json(&base), json(&base));
    let mut seen = None;
    for policy in [Policy::RoundRobin, Policy::PrefixAffinity] {
        let mut s = base.clone();
        s.replicas = 2;
        s.router.policy = policy;
        let (sum, recs) = run_checked(&s);
        assert_eq!(json(&s), serde_json::to_string(&sum).unwrap(), "{policy:?}: the same run twice");
        let mut prompts: Vec<(u32, u32)> = recs.iter().map(|r| (r.input_tokens, r.output_tokens)).collect();
        prompts.sort_unstable();
        assert!(prompts.iter().all(|&(i, _)| i > 512), "every prompt starts with the prefix");
        match &seen {
            None => seen = Some((prompts, sum.all.prefix_cache.unwrap().hit_rate)),
            Some((p, rr)) => {
                assert_eq!(&prompts, p, "{policy:?}");
                // prefix affinity keeps a conversation where its history is
                assert!(sum.all.prefix_cache.unwrap().hit_rate > *rr + 0.1, "{policy:?}");
            }
        }
    }
}

#[test]
fn a_trace_conversation_keeps_its_first_rows_prefix_group() {
    // conversation 7 starts in group 1 (its later row's column is not read again); each row's
    // input_len counts the 64-token prefix, so its second turn adds 80 − 64 = 16 new tokens
    let csv = "arrival_s,input_len,output_len,prefix_group,session_id\n0,100,50,1,7\n2,80,10,0,7\n3,100,10,1,8\n";
    let class = r#"{ "name": "chat", "arrival": { "kind": "trace", "path": "t.csv" },
        "prefix": { "shared_tokens": 64, "groups": 2 } }"#;
    let s = common::llama8b(CACHING, class);
    let mut sim = common::with_trace(&s, csv);
    let recs = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = recs.clone();
    sim.set_request_sink(Box::new(move |r: &RequestRecord| sink.borrow_mut().push(r.clone())));
    let sum = sim.run_to_end();
    sim.check_invariants().unwrap();
    let mut recs = recs.borrow().clone();
    recs.sort_by_key(|r| r.id);
    assert_eq!(recs.iter().map(|r| r.input_tokens).collect::<Vec<_>>(), vec![100, 166, 100]);
    // turn 2 finds the prefix and its history, ⌊149 / 16⌋ = 9 blocks; conversation 8 (group 1)
    // the group's 4
    assert_eq!(sum.all.prefix_cache.unwrap().cached_tokens, 9 * 16 + 4 * 16);
}

#[test]
fn bad_sessions_are_named() {
    let check = |class: &str, field: &str, code: &str| {
        let json = common_json(class);
        let e = Scenario::from_json(&json).expect_err(field);
        let f = e.errors.iter().find(|f| f.field == field).unwrap_or_else(|| panic!("{field}: {e}"));
        assert_eq!(f.problem.code(), code, "{field}: {e}");
    };
    let turns = |t: &str| chat(1.0, 5, t, 100.0, 10, 10);
    check(&turns(r#"{ "kind": "fixed", "value": 0 }"#), "classes[0].session.turns.value", "range");
    check(&turns(r#"{ "kind": "fixed", "value": 1001 }"#), "classes[0].session.turns.value", "range");
    check(&turns(r#"{ "kind": "uniform", "min": 4, "max": 2 }"#), "classes[0].session.turns.max", "range");
    check(&turns(r#"{ "kind": "lognormal", "mean": 3, "sigma": 4 }"#), "classes[0].session.turns.sigma", "range");
    let think = chat(1.0, 5, r#"{ "kind": "fixed", "value": 2 }"#, -1.0, 10, 10);
    check(&think, "classes[0].session.think_time_ms", "range");
    let trace = r#"{ "name": "t", "arrival": { "kind": "trace", "path": "t.csv" },
        "session": { "turns": { "kind": "fixed", "value": 2 }, "think_time_ms": 0 } }"#;
    check(trace, "classes[0].session", "given_by_trace");
    // a session id that is no number
    let class = r#"{ "name": "chat", "arrival": { "kind": "trace", "path": "t.csv" } }"#;
    let s = common::llama8b("", class);
    let traces = |csv: &str| common::MemTraces(vec![("t.csv", csv.to_string())]);
    let e = sim_core::Simulation::with_options(
        &s,
        &traces("arrival_s,input_len,output_len,session_id\n0,10,10,x\n"),
        Default::default(),
    )
    .err()
    .unwrap();
    assert_eq!(e.to_string(), "classes[0].arrival.path line 2: session_id must be a whole number");
}

fn common_json(class: &str) -> String {
    format!(
        r#"{{ "version": 1, "seed": 1, "model": "llama-3-8b", "gpu": "h100-sxm", "num_gpus": 1, "dtype": "bf16",
        "gpu_memory_utilization": 0.9, "classes": [ {class} ] }}"#
    )
}

fn arb_sessions() -> impl Strategy<Value = Scenario> {
    (
        (1u32..=3, 0usize..Policy::ALL.len(), any::<bool>(), any::<bool>(), 0u8..3),
        (1u64..40, 1u32..5, 0.0f64..300.0, 1u32..600, 1u32..200, any::<u64>()),
        (0.23f64..0.5, any::<bool>(), any::<bool>(), prop::option::of(50.0f64..2000.0)),
        // with shared prefixes: (tokens, groups), each conversation after one of them
        prop::option::weighted(0.5, (1u32..1500, 1u32..4)),
    )
        .prop_map(
            |(
                (replicas, policy, caching, chunked, layout),
                (n, turns, think, input, output, seed),
                (mem, pd, overcommit, timeout),
                prefix,
            )| {
                let class = chat(
                    20.0,
                    n,
                    &format!(r#"{{ "kind": "uniform", "min": 1, "max": {turns} }}"#),
                    think,
                    input,
                    output,
                )
                .replace(
                    &format!(r#""kind": "fixed", "value": {output}"#),
                    &format!(r#""kind": "uniform", "min": 1, "max": {output}"#),
                );
                let class = match prefix {
                    Some((shared, groups)) => with_prefix(&class, shared, groups),
                    None => class,
                };
                let mut s = common::llama8b("", &class);
                let sch = &mut s.scheduler;
                (sch.prefix_caching, sch.chunked_prefill) = (caching, chunked);
                (sch.max_model_len, sch.max_num_batched_tokens) = (4096, 4096);
                sch.max_num_seqs = [4, 32, 256][layout as usize];
                // turns that time out, and OOM restarts that lose turns, end their conversations
                sch.queue_timeout_ms = timeout;
                (sch.overcommit, sch.retry_on_oom) = (overcommit && !pd, false);
                s.seed = seed;
                s.gpu_memory_utilization = mem;
                s.replicas = replicas;
                s.router.policy = Policy::ALL[policy];
                if pd && replicas > 1 {
                    s.replicas = 1;
                    s.disaggregation = Some(sim_core::disagg::DisaggConfig {
                        prefill_replicas: 1,
                        decode_replicas: replicas - 1,
                        kv_link_gbps: 50.0,
                        kv_link_latency_us: 20.0,
                        prefill_num_gpus: None,
                        decode_num_gpus: None,
                    });
                }
                s
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// At every event: requests conserved per replica and overall, KV within every pool, a
    /// conversation's cached blocks, and its group's prefix before them, counted once (the
    /// replicas' own checks). At the end: every
    /// request sent ended once, as many as the conversations planned less the turns given up,
    /// and output tokens counted equal to those delivered.
    #[test]
    fn conversations_conserve_requests_and_tokens(s in arb_sessions()) {
        let mut sim = sim_core::Simulation::new(&s).unwrap();
        let planned = sim.total_requests();
        let (sum, records) = run_checked(&s);
        sim.run_to_end();
        prop_assert!(sim.total_requests() <= planned);
        prop_assert_eq!(records.len() as u64, sim.total_requests());
        prop_assert_eq!(sum.all.requests.arrived, sim.total_requests());
        let mut ids: Vec<u64> = records.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len(), records.len(), "every request ends once");
        let delivered: u64 = records.iter().filter(|r| r.outcome == Outcome::Completed).map(|r| r.output_tokens as u64).sum();
        let counted = (sum.all.throughput.output_tokens_per_s * sum.duration_s).round() as u64;
        prop_assert_eq!(counted, delivered);
        if let Some(pc) = sum.all.prefix_cache {
            prop_assert!((0.0..1.0).contains(&pc.hit_rate));
        }
    }
}
