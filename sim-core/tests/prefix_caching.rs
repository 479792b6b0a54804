//! Prefix caching against numbers worked out by hand: the hit rate of a workload whose answer is
//! known, the TTFT of a cached request, what eviction under memory pressure does, and the
//! messages for settings that cannot be used.

mod common;
use sim_core::perf::BatchWork;
use sim_core::scenario::PrefixConfig;
use sim_core::{RequestRecord, Scenario, Simulation};
use std::cell::RefCell;
use std::rc::Rc;

/// Runs to the end checking the invariants after every event.
fn run_checked(s: &Scenario) -> (sim_core::Summary, Vec<RequestRecord>) {
    common::run_checked(s, 10_000_000)
}

/// One user sending `n` requests one after the other: input `input`, output `output`, prompts
/// starting with one of `groups` prefixes of `shared` tokens.
fn sequential(n: u64, input: u32, output: u32, shared: u32, groups: u32) -> Scenario {
    let class = format!(
        r#"{{ "name": "chat", "arrival": {{ "kind": "closed_loop", "users": 1, "think_time_ms": 100 }},
            "num_requests": {n}, "input_tokens": {{ "kind": "fixed", "value": {input} }},
            "output_tokens": {{ "kind": "fixed", "value": {output} }},
            "prefix": {{ "shared_tokens": {shared}, "groups": {groups} }} }}"#
    );
    common::llama8b(r#", "prefix_caching": true"#, &class)
}

#[test]
fn hit_rate_is_the_shared_full_blocks_over_the_prompt_after_each_groups_first_request() {
    // 500 shared tokens in blocks of 16: 31 full blocks = 496 tokens can be cached (the 32nd
    // block holds 4 prefix tokens and 12 of the request's own, so it is never shared)
    let (n, input, shared, groups) = (60u64, 1000u32, 500u32, 3u32);
    let cached_per_hit = (shared / 16 * 16) as u64;
    assert_eq!(cached_per_hit, 496);
    let (sum, _) = run_checked(&sequential(n, input, 20, shared, groups));
    let pc = sum.all.prefix_cache.expect("prefix caching is on");
    // one request at a time: every request after the first of its group finds its prefix
    // (with 60 uniform draws all 3 groups occur)
    let expected_cached = (n - groups as u64) * cached_per_hit;
    assert_eq!(pc.cached_tokens, expected_cached);
    let expected_rate = expected_cached as f64 / (n * input as u64) as f64;
    assert!((pc.hit_rate - expected_rate).abs() < 1e-12, "{} vs {expected_rate}", pc.hit_rate);
    assert_eq!(pc.evicted_blocks, 0, "the pool holds every prefix");
    assert_eq!(sum.classes["chat"].prefix_cache, Some(pc), "one class: its figures are the total");
    assert_eq!(sum.all.requests.completed, n);

    // without prefix caching the same run has no such figures
    let mut off = sequential(n, input, 20, shared, groups);
    off.scheduler.prefix_caching = false;
    let (sum_off, _) = run_checked(&off);
    assert_eq!(sum_off.all.prefix_cache, None);
    assert!(sum.all.ttft_ms.mean < sum_off.all.ttft_ms.mean, "cached prompts answer sooner");
}

#[test]
fn prompts_up_to_the_prefix_are_raised_past_it() {
    // drawn prompts of 100 tokens with a 300-token prefix become 301 tokens
    let (sum, records) = run_checked(&sequential(5, 100, 4, 300, 1));
    assert!(records.iter().all(|r| r.input_tokens == 301), "{:?}", records.iter().map(|r| r.input_tokens));
    // 18 full blocks (288 tokens) cached for the four requests after the first
    assert_eq!(sum.all.prefix_cache.unwrap().cached_tokens, 4 * 288);
}

#[test]
fn a_cached_request_takes_the_step_time_of_its_uncached_tail() {
    // two requests 100 s apart, one prefix group: the second finds 496 of its 1000 tokens
    let mut s = common::llama8b(
        r#", "prefix_caching": true"#,
        r#"{ "name": "chat", "arrival": { "kind": "trace", "path": "t.csv" },
             "prefix": { "shared_tokens": 500, "groups": 1 } }"#,
    );
    s.seed = 3;
    let csv = "arrival_s,input_len,output_len\n0,1000,3\n100,1000,3\n";
    let mut sim = common::with_trace(&s, csv);
    let records = Rc::new(RefCell::new(Vec::new()));
    let sink = records.clone();
    sim.set_request_sink(Box::new(move |r: &RequestRecord| sink.borrow_mut().push(r.clone())));
    // just after the second arrival its prompt is being computed from token 496 on
    sim.advance_to(100_000_001);
    let live = sim.live_requests();
    assert_eq!(live.len(), 1);
    assert_eq!((live[0].cached_tokens, live[0].prefill_target), (496, 1000));
    sim.run_to_end();
    sim.check_invariants().unwrap();
    let step = |done: u64, n: u64| {
        let mut w = BatchWork::default();
        w.add_prefill_chunk(done, n, true);
        sim.step_model().step_time(&w).micros() as f64 / 1000.0
    };
    let recs = records.borrow();
    assert_eq!(recs.len(), 2);
    // an idle server: TTFT is one prefill iteration
    assert!((recs[0].ttft_ms.unwrap() - step(0, 1000)).abs() < 1e-9, "{:?}", recs[0]);
    assert!((recs[1].ttft_ms.unwrap() - step(496, 504)).abs() < 1e-9, "{:?}", recs[1]);
    assert!(recs[1].ttft_ms < recs[0].ttft_ms);
    let pc = sim.summary().all.prefix_cache.unwrap();
    assert_eq!(pc.cached_tokens, 496);
    assert!((pc.hit_rate - 496.0 / 2000.0).abs() < 1e-12);
}

/// Many users, 40 prefixes of 3000 tokens in prompts of 3500.
fn pressure(utilization: f64) -> Scenario {
    let mut s = common::llama8b(
        r#", "prefix_caching": true"#,
        r#"{ "name": "docs", "arrival": { "kind": "closed_loop", "users": 8, "think_time_ms": 200 },
             "num_requests": 400, "input_tokens": { "kind": "fixed", "value": 3500 },
             "output_tokens": { "kind": "fixed", "value": 50 },
             "prefix": { "shared_tokens": 3000, "groups": 40 } }"#,
    );
    s.gpu_memory_utilization = utilization;
    s
}

#[test]
fn eviction_under_memory_pressure_lowers_the_hit_rate_and_keeps_the_counts() {
    // 0.9: the pool (~28,000 blocks) holds all 40 prefixes (187 blocks each) besides the
    // running sequences; 0.3: a few thousand blocks, so prefixes are evicted and recomputed
    let (big, big_recs) = run_checked(&pressure(0.9));
    let (small, small_recs) = run_checked(&pressure(0.3));
    let (b, s) = (big.all.prefix_cache.unwrap(), small.all.prefix_cache.unwrap());
    assert_eq!(b.evicted_blocks, 0, "{b:?}");
    assert!(s.evicted_blocks > 0, "{s:?}");
    assert!(s.hit_rate < b.hit_rate, "{s:?} vs {b:?}");
    // at most every request after each group's first hits its 187 blocks
    assert!(b.hit_rate <= (400.0 - 1.0) * 2992.0 / (400.0 * 3500.0) + 1e-12);
    for (sum, recs) in [(&big, &big_recs), (&small, &small_recs)] {
        let r = sum.all.requests;
        assert_eq!((r.arrived, r.completed + r.rejected + r.timed_out + r.failed, r.in_flight), (400, 400, 0));
        // output tokens counted are the tokens delivered to completed requests, recomputed
        // prefixes or not
        let delivered: u64 = recs.iter().filter(|r| r.ttft_ms.is_some()).map(|r| r.output_tokens as u64).sum();
        let counted = sum.all.throughput.output_tokens_per_s * sum.duration_s;
        assert!((counted - delivered as f64).abs() < 1e-6 * delivered as f64, "{counted} vs {delivered}");
        assert!(sum.memory.kv_peak_bytes <= sum.memory.kv_capacity_bytes + 1.0);
    }
}

#[test]
fn the_hbm_view_shows_cached_blocks_apart_from_free_ones() {
    let s = sequential(4, 1000, 5, 500, 4);
    let mut sim = Simulation::new(&s).unwrap();
    sim.run_to_end();
    let hbm = sim.snapshot().hbm;
    // every request has ended; the prefixes computed stay cached (31 blocks of 16 tokens each)
    let bpt = sim.hbm_plan().kv_bytes_per_token;
    let groups_seen = (hbm.kv_cached / (496.0 * bpt)).round();
    assert!(groups_seen >= 1.0 && (hbm.kv_cached - groups_seen * 496.0 * bpt).abs() < 1.0, "{hbm:?}");
    assert_eq!((hbm.kv_used, hbm.kv_waste), (0.0, 0.0));
    let pool = sim.hbm_plan().kv_capacity_bytes;
    assert!((hbm.kv_free + hbm.kv_cached - pool).abs() < 1.0, "{hbm:?}");
    // off: nothing cached
    let mut off = s.clone();
    off.scheduler.prefix_caching = false;
    let mut sim = Simulation::new(&off).unwrap();
    sim.run_to_end();
    assert_eq!(sim.snapshot().hbm.kv_cached, 0.0);
}

#[test]
fn bad_settings_are_named_with_what_is_allowed() {
    // with contiguous KV or static batching the setting has no effect: the run is the one
    // without it (every engine profile turns it on, and a learner may switch either away)
    for change in [0, 1] {
        let mut s = sequential(4, 1000, 5, 500, 4);
        if change == 0 {
            s.scheduler.kv_layout = sim_core::scenario::KvLayout::Contiguous;
        } else {
            s.scheduler.batching = sim_core::scenario::Batching::Static;
        }
        assert!(s.validate().is_ok() && !s.caches_prefixes());
        let mut off = s.clone();
        off.scheduler.prefix_caching = false;
        let on = serde_json::to_string(&Simulation::new(&s).unwrap().run_to_end()).unwrap();
        assert_eq!(on, serde_json::to_string(&Simulation::new(&off).unwrap().run_to_end()).unwrap());
        assert!(!on.contains("prefix_cache"));
    }

    let mut s = sequential(4, 1000, 5, 500, 4);
    s.classes[0].prefix = Some(PrefixConfig { shared_tokens: 0, groups: 0 });
    let e = s.validate().unwrap_err();
    assert_eq!(
        e.for_field("classes[0].prefix.shared_tokens").unwrap().to_string(),
        "classes[0].prefix.shared_tokens must be 1..=8190, got 0"
    );
    assert_eq!(
        e.for_field("classes[0].prefix.groups").unwrap().to_string(),
        "classes[0].prefix.groups must be 1..=100000, got 0"
    );
    let json = sequential(4, 1000, 5, 500, 4).to_json_pretty().replace("\"groups\": 4", "\"groups\": 4, \"share\": 1");
    let e = Scenario::from_json(&json).unwrap_err();
    assert!(e.to_string().contains("classes[0].prefix") && e.to_string().contains("share"), "{e}");
}

#[test]
fn prefixes_draw_from_their_own_stream() {
    // turning shared prefixes on changes no arrival time and no drawn length above the prefix
    let class = |prefix: &str| {
        format!(
            r#"{{ "name": "chat", "arrival": {{ "kind": "poisson", "rate_per_s": 4 }}, "num_requests": 50,
                "input_tokens": {{ "kind": "uniform", "min": 600, "max": 900 }},
                "output_tokens": {{ "kind": "fixed", "value": 3 }} {prefix} }}"#
        )
    };
    let runs = [class(""), class(r#", "prefix": { "shared_tokens": 500, "groups": 7 }"#)].map(|c| {
        let s = common::llama8b("", &c);
        let mut sim = Simulation::new(&s).unwrap();
        let records = Rc::new(RefCell::new(Vec::new()));
        let sink = records.clone();
        sim.set_request_sink(Box::new(move |r: &RequestRecord| {
            sink.borrow_mut().push((r.id, r.arrival_s, r.input_tokens))
        }));
        sim.run_to_end();
        let mut v = records.borrow().clone();
        v.sort_by_key(|r| r.0);
        v
    });
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn a_trace_names_each_requests_prefix_group() {
    let s = |prefix: &str| {
        common::llama8b(
            r#", "prefix_caching": true"#,
            &format!(r#"{{ "name": "chat", "arrival": {{ "kind": "trace", "path": "t.csv" }} {prefix} }}"#),
        )
    };
    let with = s(r#", "prefix": { "shared_tokens": 500, "groups": 2 }"#);
    // groups 0, 1, 0, 1 far apart: the first of each group computes its prefix, the next finds it
    let csv = "arrival_s,input_len,output_len,prefix_group\n0,1000,3,0\n50,1000,3,1\n100,800,3,0\n150,600,3,1\n";
    let mut sim = common::with_trace(&with, csv);
    let pc = sim.run_to_end().all.prefix_cache.unwrap();
    sim.check_invariants().unwrap();
    assert_eq!(pc.cached_tokens, 2 * 496);
    assert!((pc.hit_rate - 992.0 / 3400.0).abs() < 1e-12, "{pc:?}");
    // a group the class does not have, and the column without the class's prefixes
    let traces = |csv: &str| common::MemTraces(vec![("t.csv", csv.to_string())]);
    let open = |s: &Scenario, csv: &str| {
        Simulation::with_options(s, &traces(csv), sim_core::SimOptions::default()).err().map(|e| e.to_string())
    };
    let bad = "arrival_s,input_len,output_len,prefix_group\n0,1000,3,0\n1,1000,3,2\n";
    assert_eq!(open(&with, bad).unwrap(), "classes[0].arrival.path line 3: prefix_group must be 0..=1, got 2");
    let e = open(&s(""), bad).unwrap();
    assert!(e.contains("line 2: has a prefix_group column, which needs the class's prefix"), "{e}");
    let e = open(&with, "arrival_s,input_len,output_len,prefix_group\n0,1000,3,x\n").unwrap();
    assert!(e.contains("line 2: prefix_group must be a whole number 0..=99999"), "{e}");
    // without the column a trace class draws its groups
    assert!(open(&with, "arrival_s,input_len,output_len\n0,1000,3\n").is_none());
}
