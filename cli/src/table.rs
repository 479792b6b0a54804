//! The human-readable summary of `llmsim run --format table`: every number that has a
//! [`Metric`] is read through it; the rest (per replica, disaggregation links, the draft model's
//! memory) from the summary's fields.

use sim_core::metric::{Censorable, CensoredStat, Count, Latency, Metric, Stat};
use sim_core::metrics::ClassSummary;
use sim_core::{Scenario, Summary};
use std::fmt::Write;

/// The statistics of the latency columns, in order (their field names head the columns).
const COLUMNS: [Stat; 6] = [Stat::Mean, Stat::P50, Stat::P90, Stat::P95, Stat::P99, Stat::Max];

/// The request counts of a class's first line, in order, each labelled by its field name (`_` as a space).
const COUNTS: [Count; 6] =
    [Count::Arrived, Count::Completed, Count::Rejected, Count::TimedOut, Count::Failed, Count::Preempted];

/// A latency's row label.
fn label(l: Latency) -> &'static str {
    match l {
        Latency::Ttft => "TTFT",
        Latency::Tpot => "TPOT",
        Latency::Itl => "ITL",
        Latency::E2e => "E2E",
        Latency::Queue => "queue",
        Latency::Prefill => "prefill",
    }
}

/// `m` of one class (or of all traffic).
fn of(m: Metric, c: &ClassSummary) -> f64 {
    m.of_class(c).expect("the table reads per-class metrics of a class")
}

fn dist_row(out: &mut String, c: &ClassSummary, l: Latency) {
    let _ = write!(out, "  {:<6}", label(l));
    for s in COLUMNS {
        let _ = write!(out, " {:>9.1}", of(Metric::Latency(l, s), c));
    }
    let _ = writeln!(out);
}

/// A censored view: every arrival counted, the unanswered at a lower bound (hence "≥").
fn censored_row(out: &mut String, c: &ClassSummary, v: Censorable) {
    let stat = |s| of(Metric::Censored(v, s), c);
    let _ = write!(out, "  {:<6}", label(v.latency()));
    for s in COLUMNS {
        let _ = write!(out, " ≥{:>8.1}", stat(CensoredStat::Stat(s)));
    }
    let _ = writeln!(
        out,
        "   over all {} arrived, {} at a lower bound",
        stat(CensoredStat::Stat(Stat::Count)) as u64,
        stat(CensoredStat::Censored) as u64
    );
}

fn class_block(out: &mut String, c: &ClassSummary) {
    let count = |n| of(Metric::Requests(n), c) as u64;
    let _ = write!(out, "  requests");
    for n in COUNTS {
        let _ = write!(out, "  {} {}", n.field().replace('_', " "), count(n));
    }
    let _ = writeln!(out);
    let _ = write!(out, "  latency (ms)  {:>7}", COLUMNS[0].field());
    for s in &COLUMNS[1..] {
        let _ = write!(out, " {:>9}", s.field());
    }
    let _ = writeln!(out);
    for l in Latency::ALL {
        dist_row(out, c, l);
    }
    let completed_only = of(Metric::Latency(Latency::Ttft, Stat::Count), c) as u64;
    let _ =
        writeln!(out, "  (completed only: {} of {} ended; censored views below)", completed_only, count(Count::Ended));
    for v in Censorable::ALL {
        censored_row(out, c, v);
    }
    let _ = writeln!(
        out,
        "  throughput {:.0} output tok/s, {:.2} req/s   goodput {:.0} tok/s, {:.2} req/s   SLO attainment {:.1}%",
        of(Metric::ThroughputTokens, c),
        of(Metric::ThroughputRequests, c),
        of(Metric::GoodputTokens, c),
        of(Metric::GoodputRequests, c),
        of(Metric::SloAttainment, c) * 100.0
    );
    if c.prefix_cache.is_some() {
        let _ = writeln!(
            out,
            "  prefix cache  hit rate {:.1}% of prompt tokens   cached tokens {}   evicted blocks {}",
            of(Metric::PrefixHitRate, c) * 100.0,
            of(Metric::PrefixCachedTokens, c) as u64,
            of(Metric::PrefixEvictedBlocks, c) as u64
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
            Metric::KvTransferMean.of(s),
            t.p50,
            Metric::KvTransferP99.of(s),
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
        Metric::RouterImbalance.of(s)
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
        Metric::DurationS.of(s)
    );
    let m = |x: Metric| x.of(s);
    let _ = writeln!(
        out,
        "{}HBM {:.1} GiB = weights {:.1} + activations {:.1} + KV pool {:.1} + headroom {:.1}; KV {:.0} KiB/token, {} tokens; peak KV {:.1} GiB, peak batch {}, mean KV waste {:.1}%",
        if scenario.replica_count() > 1 { "each replica (peaks: the largest replica's): " } else { "" },
        m(Metric::HbmBytes) / gib,
        m(Metric::WeightsBytes) / gib,
        m(Metric::ActivationBytes) / gib,
        m(Metric::KvCapacityBytes) / gib,
        (m(Metric::HbmBytes) - m(Metric::WeightsBytes) - m(Metric::ActivationBytes) - m(Metric::KvCapacityBytes))
            / gib,
        m(Metric::KvBytesPerToken) / 1024.0,
        m(Metric::KvCapacityTokens) as u64,
        m(Metric::KvPeakBytes) / gib,
        m(Metric::PeakRunning) as u64,
        m(Metric::KvWasteMean) * 100.0
    );
    let _ = writeln!(out, "OOM restarts {}", m(Metric::Requests(Count::OomRestarts)) as u64);
    if let (Some(_), Some(cfg)) = (&s.speculative, &scenario.speculative) {
        let _ = writeln!(
            out,
            "speculative decoding: {} draft tokens from {}, acceptance {:.2}; {:.2} tokens per step (formula {:.2})",
            m(Metric::SpeculativeDraftTokens) as u64,
            cfg.draft_model.as_deref().unwrap_or("a draft head"),
            cfg.acceptance_rate,
            m(Metric::SpeculativeTokensPerStep),
            cfg.expected_tokens_per_step()
        );
        let memory = &s.memory;
        if memory.draft_weights_bytes > 0.0 {
            let _ = writeln!(
                out,
                "  the draft model's memory: weights {:.1} GiB and {:.0} KiB of KV per token (both counted above)",
                memory.draft_weights_bytes / gib,
                memory.draft_kv_bytes_per_token / 1024.0
            );
        }
    }
    let _ = writeln!(
        out,
        "cost ${:.2}/hour: ${:.3} per 1M output tokens, ${:.3} per 1M good tokens",
        m(Metric::UsdPerHour),
        m(Metric::UsdPerMillionOutputTokens),
        m(Metric::UsdPerMillionGoodTokens)
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
