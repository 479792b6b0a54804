//! The human-readable summary of `llmsim run --format table`.

use sim_core::metrics::{Censored, ClassSummary, Dist};
use sim_core::{Scenario, Summary};
use std::fmt::Write;

fn dist_row(out: &mut String, name: &str, d: &Dist) {
    let _ = writeln!(
        out,
        "  {:<6} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
        name, d.mean, d.p50, d.p90, d.p95, d.p99, d.max
    );
}

/// A censored view: every arrival counted, the unanswered at a lower bound (hence "≥").
fn censored_row(out: &mut String, name: &str, d: &Censored) {
    let _ = writeln!(
        out,
        "  {:<6} ≥{:>8.1} ≥{:>8.1} ≥{:>8.1} ≥{:>8.1} ≥{:>8.1} ≥{:>8.1}   over all {} arrived, {} at a lower bound",
        name, d.mean, d.p50, d.p90, d.p95, d.p99, d.max, d.count, d.censored
    );
}

fn class_block(out: &mut String, c: &ClassSummary) {
    let r = &c.requests;
    let _ = writeln!(
        out,
        "  requests  arrived {}  completed {}  rejected {}  timed out {}  failed {}  preempted {}",
        r.arrived, r.completed, r.rejected, r.timed_out, r.failed, r.preempted
    );
    let _ =
        writeln!(out, "  latency (ms)  {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}", "mean", "p50", "p90", "p95", "p99", "max");
    dist_row(out, "TTFT", &c.ttft_ms);
    dist_row(out, "TPOT", &c.tpot_ms);
    dist_row(out, "ITL", &c.itl_ms);
    dist_row(out, "E2E", &c.e2e_ms);
    dist_row(out, "queue", &c.queue_ms);
    dist_row(out, "prefill", &c.prefill_ms);
    let _ = writeln!(out, "  (completed only: {} of {} ended; censored views below)", c.ttft_ms.count, r.ended());
    censored_row(out, "TTFT", &c.ttft_ms_censored);
    censored_row(out, "E2E", &c.e2e_ms_censored);
    let _ = writeln!(
        out,
        "  throughput {:.0} output tok/s, {:.2} req/s   goodput {:.0} tok/s, {:.2} req/s   SLO attainment {:.1}%",
        c.throughput.output_tokens_per_s,
        c.throughput.requests_per_s,
        c.goodput.output_tokens_per_s,
        c.goodput.requests_per_s,
        c.goodput.slo_attainment * 100.0
    );
    if let Some(p) = &c.prefix_cache {
        let _ = writeln!(
            out,
            "  prefix cache  hit rate {:.1}% of prompt tokens   cached tokens {}   evicted blocks {}",
            p.hit_rate * 100.0,
            p.cached_tokens,
            p.evicted_blocks
        );
    }
}

/// With several replicas: how the router spread the requests, and each replica's figures.
fn replicas_block(out: &mut String, s: &Summary, r: &sim_core::metrics::RouterSummary, gib: f64) {
    let prefill = s.disaggregation.map_or(0, |d| d.prefill_replicas as usize);
    if let Some(d) = &s.disaggregation {
        let (t, w) = (&d.kv_transfer_ms, &d.link_wait_ms);
        let _ = writeln!(
            out,
            "disaggregation {}P{}D: {} KV transfers, {:.1} GiB; transfer (ms) mean {:.1} p50 {:.1} p99 {:.1} max {:.1}, of it waiting for a link: mean {:.1} p99 {:.1}",
            d.prefill_replicas,
            d.decode_replicas,
            d.transfers,
            d.kv_bytes / gib,
            t.mean,
            t.p50,
            t.p99,
            t.max,
            w.mean,
            w.p99
        );
    }
    let _ = write!(
        out,
        "router {}{}: imbalance {:.2} (busiest replica's requests ÷ mean)",
        r.policy,
        if prefill > 0 { " over the prefill replicas" } else { "" },
        r.imbalance
    );
    if r.policy == "prefix_affinity" {
        let _ = write!(
            out,
            "; by affinity {}, over the load cap {}, no replica holding the prefix {}",
            r.by_affinity, r.over_cap, r.none_cached
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "  replica{}  requests completed  TTFT mean    p99 (ms)  peak KV GiB  busy{}",
        if prefill > 0 { "        " } else { "" },
        if s.replicas.iter().any(|x| x.prefix_hit_rate.is_some()) { "  prefix hits" } else { "" }
    );
    for (i, x) in s.replicas.iter().enumerate() {
        let _ = write!(
            out,
            "  {:>7}{} {:>9} {:>9} {:>10} {:>10} {:>12.2} {:>5.0}%",
            i,
            match (prefill, i < prefill) {
                (0, _) => "",
                (_, true) => " prefill",
                (_, false) => "  decode",
            },
            x.requests,
            x.completed,
            // a prefill replica completes nothing: its requests' TTFT is the decode side's
            if x.completed > 0 { format!("{:.1}", x.ttft_ms.mean) } else { "-".into() },
            if x.completed > 0 { format!("{:.1}", x.ttft_ms.p99) } else { "-".into() },
            x.kv_peak_bytes / gib,
            x.busy_share * 100.0
        );
        if let Some(h) = x.prefix_hit_rate {
            let _ = write!(out, " {:>11.1}%", h * 100.0);
        }
        let _ = writeln!(out);
    }
}

pub fn render(scenario: &Scenario, s: &Summary) -> String {
    let gib = (1u64 << 30) as f64;
    let mut out = String::new();
    let (model, gpu) = (scenario.model.id(), scenario.gpu.id());
    let _ = writeln!(
        out,
        "{}\n{}{} on {} × {} ({}), {} profile, {} batching{}, seed {}, {:.1} s simulated",
        scenario.name.as_deref().unwrap_or("scenario"),
        match (&scenario.disaggregation, scenario.replica_count()) {
            (Some(d), _) => format!(
                "{} prefill + {} decode replicas (KV over {} GB/s links, router {}) of ",
                d.prefill_replicas,
                d.decode_replicas,
                d.kv_link_gbps,
                scenario.router.policy.name()
            ),
            (_, 1) => String::new(),
            (_, n) => format!("{n} replicas (router {}) of ", scenario.router.policy.name()),
        },
        model,
        scenario.num_gpus,
        gpu,
        scenario.dtype.name(),
        scenario.engine_profile.label(),
        format!("{:?}", scenario.scheduler.batching).to_lowercase(),
        match (scenario.scheduler.batching, scenario.scheduler.chunked_prefill) {
            (sim_core::scenario::Batching::Static, _) => "",
            (_, true) => " with chunked prefill",
            (_, false) => ", prompts first",
        },
        scenario.seed,
        s.duration_s
    );
    let m = &s.memory;
    let _ = writeln!(
        out,
        "{}HBM {:.1} GiB = weights {:.1} + activations {:.1} + KV pool {:.1} + headroom {:.1}; KV {:.0} KiB/token, {} tokens; peak KV {:.1} GiB, peak batch {}, mean KV waste {:.1}%",
        if scenario.replica_count() > 1 { "each replica (peaks: the largest replica's): " } else { "" },
        m.hbm_bytes / gib,
        m.weights_bytes / gib,
        m.activation_bytes / gib,
        m.kv_capacity_bytes / gib,
        (m.hbm_bytes - m.weights_bytes - m.activation_bytes - m.kv_capacity_bytes) / gib,
        m.kv_bytes_per_token / 1024.0,
        m.kv_capacity_tokens,
        m.kv_peak_bytes / gib,
        m.peak_running,
        m.kv_waste_mean * 100.0
    );
    let _ = writeln!(out, "OOM restarts {}", s.all.requests.oom_restarts);
    if let (Some(sp), Some(cfg)) = (&s.speculative, &scenario.speculative) {
        let _ = writeln!(
            out,
            "speculative decoding: {} draft tokens from {}, acceptance {:.2}; {:.2} tokens per step (formula {:.2})",
            sp.draft_tokens,
            cfg.draft_model.as_deref().unwrap_or("a draft head"),
            cfg.acceptance_rate,
            sp.mean_accepted_tokens_per_step,
            cfg.expected_tokens_per_step()
        );
        if m.draft_weights_bytes > 0.0 {
            let _ = writeln!(
                out,
                "  the draft model's memory: weights {:.1} GiB and {:.0} KiB of KV per token (both counted above)",
                m.draft_weights_bytes / gib,
                m.draft_kv_bytes_per_token / 1024.0
            );
        }
    }
    let _ = writeln!(
        out,
        "cost ${:.2}/hour: ${:.3} per 1M output tokens, ${:.3} per 1M good tokens",
        s.cost.usd_per_hour, s.cost.usd_per_million_output_tokens, s.cost.usd_per_million_good_tokens
    );
    if let Some(r) = &s.router {
        replicas_block(&mut out, s, r, gib);
    }
    let _ = writeln!(out, "\nall classes");
    class_block(&mut out, &s.all);
    if s.classes.len() > 1 {
        for (name, c) in &s.classes {
            let _ = writeln!(out, "\nclass {name}");
            class_block(&mut out, c);
        }
    }
    out
}
