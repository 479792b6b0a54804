//! Small cases worked out by hand from the step-time model.

mod common;
use sim_core::perf::BatchWork;
use sim_core::scenario::Batching;

const ONE: &str = r#"{ "name": "c", "arrival": { "kind": "trace", "path": "t.csv" }, "slo": { "ttft_ms": 1000 } }"#;

fn prefill_us(sim: &sim_core::Simulation, batch: u64, len: u64) -> u64 {
    let mut w = BatchWork::default();
    for _ in 0..batch {
        w.add_prefill_chunk(0, len, true);
    }
    sim.step_model().step_time(&w).micros()
}

fn decode_us(sim: &sim_core::Simulation, batch: u64, ctx_each: u64) -> u64 {
    let w = BatchWork {
        decode_seqs: batch,
        decode_ctx_tokens: batch * ctx_each,
        logit_tokens: batch,
        ..Default::default()
    };
    sim.step_model().step_time(&w).micros()
}

#[test]
fn one_request_alone_ttft_is_its_prefill_and_e2e_adds_n_minus_1_decode_steps() {
    let s = common::llama8b("", ONE);
    let mut sim = common::with_trace(&s, "arrival_s,input_len,output_len\n0,1000,50\n");
    let prefill = prefill_us(&sim, 1, 1000);
    // decode step j processes the KV of token j: context 1000 + j (0-based j from 1)
    let decodes: Vec<u64> = (1..50).map(|j| decode_us(&sim, 1, 1000 + j)).collect();
    let sum = sim.run_to_end();
    assert_eq!(sum.all.requests.completed, 1);
    assert_eq!(sum.all.ttft_ms.max, prefill as f64 / 1000.0);
    let e2e = prefill + decodes.iter().sum::<u64>();
    assert_eq!(sum.all.e2e_ms.max, e2e as f64 / 1000.0);
    // TPOT = (E2E − TTFT) / (n − 1), integer µs
    assert_eq!(sum.all.tpot_ms.max, ((e2e - prefill) / 49) as f64 / 1000.0);
    // ITL: 49 gaps, each one decode step
    assert_eq!(sum.all.itl_ms.count, 49);
    assert_eq!(sum.all.itl_ms.max, *decodes.iter().max().unwrap() as f64 / 1000.0);
    assert_eq!(sum.all.queue_ms.max, 0.0);
    assert_eq!(sum.duration_s, e2e as f64 / 1e6);
}

#[test]
fn the_front_end_adds_its_way_in_and_out_to_ttft_and_e2e_but_not_to_tpot() {
    // 2 ms + 1,000 tokens × 0.5 µs = 2.5 ms before the engine sees the prompt, and 1 ms for
    // each token to reach the client: TTFT = 2.5 + prefill + 1 ms, E2E = 2.5 + prefill +
    // 49 decodes + 1 ms; TPOT, the gap between the first and the last token, is unchanged
    let mut s = common::llama8b("", ONE);
    s.engine.request_latency_ms = 2.0;
    s.engine.tokenize_us_per_token = 0.5;
    s.engine.stream_latency_ms = 1.0;
    let mut sim = common::with_trace(&s, "arrival_s,input_len,output_len\n0,1000,50\n");
    let prefill = prefill_us(&sim, 1, 1000);
    let decodes: u64 = (1..50).map(|j| decode_us(&sim, 1, 1000 + j)).sum();
    let sum = sim.run_to_end();
    assert_eq!(sum.all.ttft_ms.max, (2500 + prefill + 1000) as f64 / 1000.0);
    assert_eq!(sum.all.e2e_ms.max, (2500 + prefill + decodes + 1000) as f64 / 1000.0);
    assert_eq!(sum.all.tpot_ms.max, (decodes / 49) as f64 / 1000.0);
    // the queue is the way in: sent at 0, scheduled when the engine sees it
    assert_eq!(sum.all.queue_ms.max, 2.5);
    assert_eq!(sum.all.prefill_ms.max, prefill as f64 / 1000.0);
    // the run ends when the engine emits the last token
    assert_eq!(sum.duration_s, (2500 + prefill + decodes) as f64 / 1e6);
}

#[test]
fn long_prompt_is_chunked_into_budget_sized_prefill_steps() {
    // 5000 tokens with a 2048-token budget: chunks of 2048, 2048, 904
    let s = common::llama8b("", ONE);
    let mut sim = common::with_trace(&s, "arrival_s,input_len,output_len\n0,5000,1\n");
    let sm = sim.step_model().clone();
    let mut expect = 0;
    for (done, n) in [(0u64, 2048u64), (2048, 2048), (4096, 904)] {
        let mut w = BatchWork::default();
        w.add_prefill_chunk(done, n, done + n == 5000);
        expect += sm.step_time(&w).micros();
    }
    let sum = sim.run_to_end();
    assert_eq!(sum.all.ttft_ms.max, expect as f64 / 1000.0);
    assert_eq!(sum.all.e2e_ms.max, expect as f64 / 1000.0);
}

#[test]
fn static_batching_holds_every_request_until_the_longest_ends() {
    let mut s = common::llama8b(r#", "batch_timeout_ms": 0"#, ONE);
    s.scheduler.batching = Batching::Static;
    s.scheduler.max_num_seqs = 4;
    s.scheduler.chunked_prefill = false;
    let csv = "arrival_s,input_len,output_len\n0,100,10\n0,200,20\n0,300,30\n0,400,40\n";
    let mut sim = common::with_trace(&s, csv);
    // prompts padded to 400; 39 decode steps over 4 sequences at context 400 + j
    let mut expect = prefill_us(&sim, 4, 400);
    let first = expect;
    for j in 1..40 {
        expect += decode_us(&sim, 4, 400 + j);
    }
    let mut records = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = records.clone();
    sim.set_request_sink(Box::new(move |r| sink.borrow_mut().push(r.clone())));
    let sum = sim.run_to_end();
    assert_eq!(sum.all.requests.completed, 4);
    let recs =
        std::rc::Rc::get_mut(&mut records).map(|r| r.get_mut().clone()).unwrap_or_else(|| records.borrow().clone());
    assert_eq!(recs.len(), 4);
    for r in &recs {
        // everyone's E2E is the batch's end; everyone's first token the batch's prefill
        assert_eq!(r.e2e_ms, Some(expect as f64 / 1000.0), "{r:?}");
        assert_eq!(r.ttft_ms, Some(first as f64 / 1000.0), "{r:?}");
    }
    // the 10-token request waited for the 40-token one: its TPOT includes that wait
    let short = recs.iter().find(|r| r.output_tokens == 10).unwrap();
    assert_eq!(short.tpot_ms, Some(((expect - first) / 9) as f64 / 1000.0));
}

#[test]
fn continuous_batching_lets_short_requests_leave_early() {
    let s = common::llama8b("", ONE);
    let csv = "arrival_s,input_len,output_len\n0,100,10\n0,200,20\n0,300,30\n0,400,40\n";
    let mut sim = common::with_trace(&s, csv);
    let recs = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = recs.clone();
    sim.set_request_sink(Box::new(move |r| sink.borrow_mut().push(r.clone())));
    sim.run_to_end();
    let recs = recs.borrow();
    let e2e = |o: u32| recs.iter().find(|r| r.output_tokens == o).unwrap().e2e_ms.unwrap();
    assert!(e2e(10) < e2e(20) && e2e(20) < e2e(30) && e2e(30) < e2e(40));
    // all four prefill together in one 1000-token iteration, so they share a first token time
    let t: Vec<f64> = recs.iter().map(|r| r.ttft_ms.unwrap()).collect();
    assert!(t.iter().all(|x| *x == t[0]));
}

#[test]
fn kv_bytes_per_token_is_grouped_query_aware() {
    // Llama-2-70B: 80 layers × 8 KV heads × 128 × 2 (K,V) × 2 bytes = 320 KiB per token,
    // not 2 × 80 × 8192 × 2 = 2.5 MiB as the all-heads formula gives.
    let m = sim_core::catalog::find_model("llama-2-70b").unwrap();
    assert_eq!(sim_core::memory::kv_bytes_per_token(&m, 2.0), 327_680.0);
    assert_eq!(sim_core::memory::article_kv_elements_per_token(&m) * 2.0, 2_621_440.0);
    // fp8 KV halves it
    assert_eq!(sim_core::memory::kv_bytes_per_token(&m, 1.0), 163_840.0);
}

#[test]
fn censored_ttft_counts_two_timeouts_at_their_timeout() {
    // one sequence at a time and a 500 ms queue timeout: request 0 runs (its 400 tokens take
    // about 3 s), requests 1 and 2 wait and time out at exactly 500 ms
    let mut s = common::llama8b(r#", "queue_timeout_ms": 500"#, ONE);
    s.scheduler.max_num_seqs = 1;
    let csv = "arrival_s,input_len,output_len\n0,1000,400\n0,1000,400\n0,1000,400\n";
    let mut sim = common::with_trace(&s, csv);
    let prefill = prefill_us(&sim, 1, 1000);

    // at 300 ms: request 0 has its first token, the other two are 300 ms old and waiting
    sim.advance_to(300_000);
    let live = sim.summary();
    let (t, e) = (live.all.ttft_ms_censored, live.all.e2e_ms_censored);
    assert_eq!((live.all.ttft_ms.count, t.count, t.censored), (0, 3, 2));
    assert_eq!((t.p50, t.p99, t.max), (300.0, 300.0, 300.0));
    assert_eq!(t.mean, (prefill + 600_000) as f64 / 3.0 / 1000.0);
    assert_eq!((e.count, e.censored, e.p99), (3, 3, 300.0));

    // the curve of every arrival: request 0's first token (its prefill, to the histogram's three
    // digits), then the two waiting at their age (the completed-only curve has nothing yet)
    assert!(sim.ttft_cdf(None, 3).is_empty());
    let curve = sim.ttft_cdf_censored(None, 3);
    assert!((curve[0].0 - prefill as f64 / 1000.0).abs() <= prefill as f64 / 1000.0 * 1e-3, "{curve:?}");
    assert_eq!(&curve[1..], &[(300.0, 2.0 / 3.0), (300.0, 1.0)]);

    let sum = sim.run_to_end();
    let r = sum.all.requests;
    assert_eq!((r.completed, r.timed_out, r.ended()), (1, 2, 3));
    // {prefill, 500, 500}: a third at the prefill (to the histogram's three digits), the rest
    // at the timeout
    let curve = sim.ttft_cdf_censored(None, 3);
    assert!((curve[0].0 - prefill as f64 / 1000.0).abs() <= prefill as f64 / 1000.0 * 1e-3, "{curve:?}");
    assert_eq!(&curve[1..], &[(500.0, 2.0 / 3.0), (500.0, 1.0)]);
    // completed only: one request, its prefill; censored: {prefill, 500, 500}
    assert_eq!((sum.all.ttft_ms.count, sum.all.ttft_ms.p99), (1, prefill as f64 / 1000.0));
    let t = sum.all.ttft_ms_censored;
    assert_eq!((t.count, t.censored), (3, 2));
    assert_eq!((t.p50, t.p99, t.max), (500.0, 500.0, 500.0));
    assert_eq!(t.mean, (prefill + 1_000_000) as f64 / 3.0 / 1000.0);
    // E2E: the completed one's E2E is above 500 ms, so it is the p99 (and the max)
    let e = sum.all.e2e_ms_censored;
    assert_eq!((e.count, e.censored, e.max), (3, 2, sum.all.e2e_ms.max));
    // 500 ms reported as the top of its 3-digit bucket, as every percentile is
    assert_eq!(e.p50, 500.223);
    assert_eq!(e.p99, sum.all.e2e_ms.p99);
}

/// Two requests sent together, each 2,000 prompt tokens and 4,000 output tokens, on a KV pool of
/// 8,000–11,999 tokens: both prompts fit at once, both whole sequences do not.
fn two_long_answers(admission: sim_core::scenario::Admission) -> (f64, f64, sim_core::Summary) {
    let mut s = common::llama8b("", ONE);
    s.scheduler.admission = admission;
    // the smallest memory share whose pool holds 8,000 tokens
    let (model, gpu) = (s.model_spec().unwrap(), s.gpu_spec().unwrap());
    let mut util = 0.2;
    loop {
        s.gpu_memory_utilization = util;
        let cap = sim_core::HbmPlan::new(&s, &model, &gpu).map_or(0, |p| p.kv_capacity_tokens);
        if cap >= 8000 {
            assert!(cap < 12_000, "pool of {cap} tokens");
            break;
        }
        assert!(util < 0.9, "no share gives a pool of 8,000 tokens");
        util += 0.001;
    }
    let mut sim = common::with_trace(&s, "arrival_s,input_len,output_len\n0,2000,4000\n0,2000,4000\n");
    let sum = sim.run_to_end();
    assert_eq!(sum.all.requests.completed, 2);
    (sum.all.ttft_ms.max, sum.all.e2e_ms.max, sum)
}

#[test]
fn a_whole_sequence_admission_holds_a_request_until_another_s_answer_is_done() {
    use sim_core::scenario::Admission;
    // vLLM admits both prompts at once: the second's TTFT is one step of two prompts, and when
    // the pool runs out the newest is preempted and recomputed
    let (ttft, _, on_prompt) = two_long_answers(Admission::Prompt);
    assert!(ttft < 1000.0, "both prefilled together: {ttft} ms");
    assert!(on_prompt.all.requests.preempted > 0, "{:?}", on_prompt.all.requests);
    // TensorRT-LLM's GUARANTEED_NO_EVICT: the second waits for the whole first request (its
    // 4,000 tokens) before it starts; nothing is preempted
    let (ttft, e2e, whole) = two_long_answers(Admission::WholeSequence);
    assert_eq!(whole.all.requests.preempted, 0);
    let first_e2e = whole.all.e2e_ms.p50.min(e2e);
    assert!(ttft > first_e2e * 0.99, "second TTFT {ttft} ms against the first's E2E {first_e2e} ms");
    // SGLang counts a new request's output whole (≤ 4,096), the running ones' by a ratio of 0.7
    // at first: 2,000 + 4,000 + 0.7 × 4,000 is over the pool, so it waits as well
    let (ttft, _, ratio) = two_long_answers(Admission::NewTokenRatio);
    assert!(ttft > 1000.0, "{ttft} ms");
    assert_eq!(ratio.all.requests.preempted, 0);
}

/// The overlap scheduler (TensorRT-LLM's, SGLang's) plans a step while the one before it runs:
/// a request that reaches a busy engine during decode step 1 is not seen by step 2's plan,
/// made when step 1 began, and waits one more decode step than it would otherwise. A request
/// that reaches an idle engine starts at once.
#[test]
fn with_the_overlap_scheduler_a_request_arriving_mid_step_waits_for_the_step_after_next() {
    let queue_of_second = |overlap: bool| {
        let s = common::llama8b(&format!(r#", "overlap": {overlap}"#), ONE);
        let probe = common::with_trace(&s, "arrival_s,input_len,output_len\n0,1000,50\n");
        let prefill = prefill_us(&probe, 1, 1000);
        let (d1, d2) = (decode_us(&probe, 1, 1001), decode_us(&probe, 1, 1002));
        // the second request arrives halfway through the first decode step
        let t2 = prefill + d1 / 2;
        let csv = format!("arrival_s,input_len,output_len\n0,1000,50\n{:.6},200,5\n", t2 as f64 / 1e6);
        let mut sim = common::with_trace(&s, &csv);
        let records = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = records.clone();
        sim.set_request_sink(Box::new(move |r: &sim_core::RequestRecord| sink.borrow_mut().push(r.clone())));
        let sum = sim.run_to_end();
        assert_eq!(sum.all.requests.completed, 2);
        let records = records.borrow();
        let queue_us = |i: u64| (records.iter().find(|r| r.id == i).unwrap().queue_ms.unwrap() * 1000.0).round() as u64;
        // the first found the engine idle: no wait either way
        assert_eq!(queue_us(0), 0, "overlap {overlap}");
        (queue_us(1), prefill + d1 - t2, d2)
    };
    let (without, rest_of_step_1, _) = queue_of_second(false);
    assert_eq!(without, rest_of_step_1);
    let (with, rest_of_step_1, step_2) = queue_of_second(true);
    assert_eq!(with, rest_of_step_1 + step_2);
}

/// Batch waiting (TensorRT-LLM's `batch_wait_timeout_iters` and `batch_wait_max_tokens_ratio`):
/// a prompt that arrives while a decode runs is held back while the steps stay below the share
/// of the budget, for at most the set number of steps, and then joins the next one. A prompt
/// that finds nothing decoding is never held, and one whose step reaches the share goes at once.
#[test]
fn batch_waiting_holds_a_prompt_back_for_the_set_number_of_decode_steps() {
    let queue_of_second = |iters: u32, ratio: f64| {
        let mut s = common::llama8b("", ONE);
        s.scheduler.batch_wait_iters = iters;
        s.scheduler.batch_wait_tokens_ratio = ratio;
        s.validate().unwrap();
        let probe = common::with_trace(&s, "arrival_s,input_len,output_len\n0,1000,50\n");
        let prefill = prefill_us(&probe, 1, 1000);
        let d: Vec<u64> = (0..8).map(|j| decode_us(&probe, 1, 1000 + j)).collect();
        // the second request arrives halfway through the first decode step
        let t2 = prefill + d[1] / 2;
        let csv = format!("arrival_s,input_len,output_len\n0,1000,50\n{:.6},200,5\n", t2 as f64 / 1e6);
        let mut sim = common::with_trace(&s, &csv);
        let records = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = records.clone();
        sim.set_request_sink(Box::new(move |r: &sim_core::RequestRecord| sink.borrow_mut().push(r.clone())));
        assert_eq!(sim.run_to_end().all.requests.completed, 2);
        let records = records.borrow();
        let queue_us = |i: u64| (records.iter().find(|r| r.id == i).unwrap().queue_ms.unwrap() * 1000.0).round() as u64;
        // the first found nothing decoding: never held
        assert_eq!(queue_us(0), 0);
        (queue_us(1), prefill + d[1] - t2, d)
    };
    // off: it joins step 2
    let (off, rest_of_step_1, _) = queue_of_second(0, 0.0);
    assert_eq!(off, rest_of_step_1);
    // one setting alone changes nothing (TensorRT-LLM waits only with both above 0)
    assert_eq!(queue_of_second(3, 0.0).0, rest_of_step_1);
    assert_eq!(queue_of_second(0, 0.9).0, rest_of_step_1);
    // 1 decode + 200 prompt tokens stay below 0.9 × 8,192: held through steps 2, 3 and 4 (the
    // decode alone, its context 1,002 to 1,004), it joins step 5
    let (held, rest_of_step_1, d) = queue_of_second(3, 0.9);
    assert_eq!(held, rest_of_step_1 + d[2] + d[3] + d[4]);
    // a share the step reaches (201 tokens ≥ 0.01 × 8,192): it goes at once
    assert_eq!(queue_of_second(3, 0.01).0, rest_of_step_1);
}

/// TensorRT-LLM without chunked prefill: whole prompts join the decode steps (the running
/// request keeps emitting a token every step), a prompt longer than the step budget is turned
/// away on arrival, and the budget need not hold the whole sequence since its admission never
/// preempts, so nothing is ever recomputed.
#[test]
fn whole_prompts_join_the_decode_steps_with_mixed_prefill() {
    let trace = "arrival_s,input_len,output_len\n0,1000,50\n0.05,3000,10\n0.06,1500,10\n";
    let run = |mixed: bool| {
        // a 2,048-token budget; the context stays 8,192 only where nothing is recomputed
        let mut s = common::llama8b(r#", "admission": "whole_sequence""#, ONE);
        s.scheduler.chunked_prefill = false;
        s.scheduler.mixed_prefill = mixed;
        s.scheduler.max_model_len = if mixed { 8192 } else { 2048 };
        s.validate().unwrap();
        common::with_trace(&s, trace).run_to_end()
    };
    let (mixed, first) = (run(true), run(false));
    // the 3,000-token prompt does not fit a 2,048-token step: turned away, not stuck
    assert_eq!((mixed.all.requests.completed, mixed.all.requests.rejected), (2, 1));
    // prefill-first: the 1,500-token prompt's step stalls the decode, so its gap holds that
    // step and a decode step; mixed, the gap is the one step that carries both
    assert!(mixed.all.itl_ms.max < first.all.itl_ms.max, "{} vs {}", mixed.all.itl_ms.max, first.all.itl_ms.max);
    let prompt_alone = {
        let probe = common::with_trace(&common::llama8b("", ONE), trace);
        prefill_us(&probe, 1, 1500) as f64 / 1000.0
    };
    assert!(mixed.all.itl_ms.max >= prompt_alone, "the mixed step carries the whole prompt");
    // the same budget below the context is refused where a preempted sequence could be
    // recomputed whole
    let mut refused = common::llama8b("", ONE);
    refused.scheduler.chunked_prefill = false;
    refused.scheduler.mixed_prefill = true;
    let err = refused.validate().unwrap_err().to_string();
    assert!(err.contains("scheduler.max_num_batched_tokens must be at least scheduler.max_model_len (8192)"), "{err}");
}

/// Static batching has no token budget: a prompt longer than `max_num_batched_tokens` is
/// served whole with chunked prefill off, not turned away as a continuous batch would turn it.
#[test]
fn static_batching_serves_a_prompt_longer_than_the_budget() {
    let mut s = common::llama8b("", ONE);
    s.scheduler.batching = sim_core::scenario::Batching::Static;
    s.scheduler.chunked_prefill = false;
    s.validate().unwrap();
    let sum = common::with_trace(&s, "arrival_s,input_len,output_len\n0,3000,5\n").run_to_end();
    assert_eq!((sum.all.requests.completed, sum.all.requests.rejected), (1, 0));
    s.scheduler.batching = sim_core::scenario::Batching::Continuous;
    s.scheduler.mixed_prefill = true;
    s.scheduler.admission = sim_core::scenario::Admission::WholeSequence;
    s.validate().unwrap();
    let sum = common::with_trace(&s, "arrival_s,input_len,output_len\n0,3000,5\n").run_to_end();
    assert_eq!((sum.all.requests.completed, sum.all.requests.rejected), (0, 1));
}
