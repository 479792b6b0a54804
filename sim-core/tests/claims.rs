//! The article's claims, as directional checks on the presets the lab teaches with.

mod common;
use common::{preset, run};
use sim_core::scenario::{Batching, KvLayout};

#[test]
fn contiguous_kv_with_a_huge_context_limit_admits_fewer_sequences_than_paged() {
    let contiguous = preset("risk-context-too-large");
    assert_eq!(contiguous.scheduler.kv_layout, KvLayout::Contiguous);
    let mut paged = contiguous.clone();
    paged.scheduler.kv_layout = KvLayout::Paged;
    let (c, p) = (run(&contiguous), run(&paged));
    assert!(
        c.memory.peak_running * 3 < p.memory.peak_running,
        "contiguous {} vs paged {}",
        c.memory.peak_running,
        p.memory.peak_running
    );
    assert!(
        c.memory.kv_waste_mean > 0.6 && p.memory.kv_waste_mean < 0.04,
        "waste {} vs {}",
        c.memory.kv_waste_mean,
        p.memory.kv_waste_mean
    );
    assert!(c.all.ttft_ms.p99 > 5.0 * p.all.ttft_ms.p99);
    // a smaller limit brings contiguous concurrency back
    let mut small = contiguous.clone();
    small.scheduler.max_model_len = 4096;
    assert!(run(&small).memory.peak_running > 3 * c.memory.peak_running);
}

#[test]
fn isolation_lowers_chat_tail_ttft_under_a_batch_flood() {
    let (shared, isolated) = (run(&preset("mixed-shared")), run(&preset("mixed-isolated")));
    let (s, i) = (&shared.classes["chat"], &isolated.classes["chat"]);
    assert!(
        i.ttft_ms.p99 * 2.0 < s.ttft_ms.p99,
        "chat p99 TTFT isolated {} vs shared {}",
        i.ttft_ms.p99,
        s.ttft_ms.p99
    );
    assert!(i.goodput.slo_attainment > s.goodput.slo_attainment);
}

#[test]
fn continuous_batching_beats_static_on_tail_latency_and_goodput() {
    let (st, co) = (run(&preset("static-batching")), run(&preset("continuous-batching")));
    assert_eq!(preset("static-batching").scheduler.batching, Batching::Static);
    assert!(
        co.all.ttft_ms.p99 * 10.0 < st.all.ttft_ms.p99,
        "p99 TTFT {} vs {}",
        co.all.ttft_ms.p99,
        st.all.ttft_ms.p99
    );
    assert!(co.all.goodput.output_tokens_per_s > 2.0 * st.all.goodput.output_tokens_per_s);
    assert!(co.all.throughput.output_tokens_per_s >= st.all.throughput.output_tokens_per_s);
}

#[test]
fn full_memory_with_overcommit_restarts_and_headroom_prevents_it() {
    let full = preset("risk-oom-full-memory");
    assert!(full.gpu_memory_utilization >= 0.95 && full.scheduler.overcommit);
    let mut safe = full.clone();
    safe.gpu_memory_utilization = 0.75;
    let (f, s) = (run(&full), run(&safe));
    assert!(f.all.requests.oom_restarts >= 1 && f.all.requests.failed > 0, "{:?}", f.all.requests);
    assert_eq!(s.all.requests.oom_restarts, 0);
    assert!(s.all.goodput.output_tokens_per_s > f.all.goodput.output_tokens_per_s);
}

#[test]
fn strict_slo_with_batching_to_the_limit_has_throughput_but_little_goodput() {
    let big = preset("risk-strict-slo");
    let r = run(&big);
    assert!(
        r.all.goodput.output_tokens_per_s * 3.0 < r.all.throughput.output_tokens_per_s,
        "goodput {} throughput {}",
        r.all.goodput.output_tokens_per_s,
        r.all.throughput.output_tokens_per_s
    );
    // cost per good token is far above cost per token
    assert!(r.cost.usd_per_million_good_tokens > 3.0 * r.cost.usd_per_million_output_tokens);
}

#[test]
fn tpot_grows_with_the_running_batch() {
    // decode reads the weights once per iteration for the whole batch, plus every sequence's
    // KV: a bigger batch means a slower step for each token
    let mut small = preset("continuous-batching");
    small.scheduler.max_num_seqs = 8;
    let mut big = small.clone();
    big.scheduler.max_num_seqs = 128;
    for s in [&mut small, &mut big] {
        s.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: 30.0 };
        s.classes[0].num_requests = Some(800);
    }
    let (a, b) = (run(&small), run(&big));
    assert!(b.all.tpot_ms.p50 > a.all.tpot_ms.p50, "TPOT p50 {} (8) vs {} (128)", a.all.tpot_ms.p50, b.all.tpot_ms.p50);
    assert!(b.all.throughput.output_tokens_per_s > a.all.throughput.output_tokens_per_s);
    // and the small batch backs up the queue: TTFT high is a backlog, not prefill
    assert!(a.all.queue_ms.mean > b.all.queue_ms.mean);
}

#[test]
fn chunked_prefill_smooths_inter_token_latency() {
    // Without chunking, waiting prompts run in prefill-only iterations that stall every decode.
    let mut chunked = preset("batch-throughput-first");
    chunked.scheduler.chunked_prefill = true;
    chunked.scheduler.max_num_batched_tokens = 8192;
    let mut whole = chunked.clone();
    whole.scheduler.chunked_prefill = false;
    let (c, w) = (run(&chunked), run(&whole));
    assert!(c.all.itl_ms.max < w.all.itl_ms.max, "max ITL chunked {} vs whole {}", c.all.itl_ms.max, w.all.itl_ms.max);
    assert!(
        c.all.tpot_ms.p99 < w.all.tpot_ms.p99,
        "p99 TPOT chunked {} vs whole {}",
        c.all.tpot_ms.p99,
        w.all.tpot_ms.p99
    );
}

#[test]
fn the_mean_hides_the_tail() {
    let r = run(&preset("mixed-shared"));
    assert!(r.all.ttft_ms.p99 > 3.0 * r.all.ttft_ms.mean, "mean {} p99 {}", r.all.ttft_ms.mean, r.all.ttft_ms.p99);
}

#[test]
fn cost_per_token_is_gpu_cost_over_good_throughput() {
    let s = preset("chat-latency-first");
    let r = run(&s);
    let usd = r.cost.usd_per_hour * r.duration_s / 3600.0;
    let good_tokens = r.all.goodput.output_tokens_per_s * r.duration_s;
    assert!(
        (r.cost.usd_per_million_good_tokens - usd / good_tokens * 1e6).abs()
            < 1e-9 * r.cost.usd_per_million_good_tokens.max(1.0)
    );
    assert_eq!(r.cost.usd_per_hour, 2.69 * s.num_gpus as f64);
}
