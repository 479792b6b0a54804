//! Sentence checks and reachability for `tp-vs-replicas`, read from the summaries (runs: tensor
//! parallel over two H100s and two single-GPU replicas, at 2 req/s and at 56 req/s).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;
use sim_core::scenario::{Arrival, ModelRef};
use sim_core::Scenario;

const GIB: f64 = (1u64 << 30) as f64;

fn good(s: &Summary) -> f64 {
    s.all.goodput.output_tokens_per_s
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (tl, rl, th, rh) = (&s[0], &s[1], &s[2], &s[3]);
    // tensor parallel is one engine (no replica rows), the other layout two replicas
    let shape = tl.replicas.is_empty() && th.replicas.is_empty() && rl.replicas.len() == 2 && rh.replicas.len() == 2;
    let sooner = quoted(o, "ttft_p50_tp_light_ms", tl.all.ttft_ms.p50)
        && quoted(o, "ttft_p50_replicas_light_ms", rl.all.ttft_ms.p50);
    let more = quoted(o, "goodput_tp_heavy", good(th)) && quoted(o, "goodput_replicas_heavy", good(rh));
    let (tp_sooner, replicas_more) = (tl.all.ttft_ms.p50 < rl.all.ttft_ms.p50, good(rh) > good(th));
    let q = shape && sooner && more;
    let tpot = |s: &Summary| s.all.tpot_ms.mean;
    Some(match sentence {
        "split" => q && tp_sooner && replicas_more,
        "tp_both" => q && tp_sooner && !replicas_more,
        "replicas_both" => q && !tp_sooner && replicas_more,
        "reversed" => q && !tp_sooner && !replicas_more,
        "tpot_light" => {
            quoted(o, "tpot_mean_tp_light_ms", tpot(tl)) && tpot(tl) < tpot(rl) && tpot(tl) > 0.5 * tpot(rl)
        }
        "same_throughput" => {
            let (a, b) = (th.all.throughput.output_tokens_per_s, rh.all.throughput.output_tokens_per_s);
            quoted(o, "throughput_tp_heavy", a) && (a - b).abs() <= 0.05 * b
        }
        "one_batch" => {
            let peak = |s: &Summary| s.memory.peak_running as f64;
            replicas_more
                && quoted(o, "peak_running_tp_heavy", peak(th))
                && quoted(o, "peak_running_replicas_heavy", peak(rh))
                && peak(th) < 2.0 * peak(rh)
                && th.all.queue_ms.mean > 2.0 * rh.all.queue_ms.mean
        }
        "tpot_heavy" => quoted(o, "tpot_mean_tp_heavy_ms", tpot(th)) && tpot(th) > tpot(rh),
        "tp_tokens_faster" => {
            replicas_more
                && quoted(o, "tpot_mean_tp_heavy_ms", tpot(th))
                && tpot(th) < tpot(rh)
                && th.all.queue_ms.mean > rh.all.queue_ms.mean
        }
        // the same GPUs cost the same per hour: good tokens per dollar follow goodput
        "cost" => {
            let (a, b) = (th.cost.usd_per_million_good_tokens, rh.cost.usd_per_million_good_tokens);
            (th.cost.usd_per_hour - rh.cost.usd_per_hour).abs() < 1e-9
                && quoted(o, "usd_per_m_good_tp", a)
                && quoted(o, "usd_per_m_good_replicas", b)
                && b < a
        }
        // one copy of the weights over two GPUs against a copy on each
        "kv_pool" => {
            let both = rh.memory.kv_capacity_bytes * 2.0;
            quoted(o, "kv_tp_gib", th.memory.kv_capacity_bytes / GIB)
                && quoted(o, "kv_replicas_gib", both / GIB)
                && th.memory.kv_capacity_bytes > both
        }
        // where it stops holding: the neighbours test runs it (`lessons::LIMITS`)
        "where" => true,
        _ => return None,
    })
}

#[test]
fn tp_vs_replicas_every_choice_is_reachable() {
    let answer = |seed, change: &dyn Fn(usize, &mut Scenario)| super::answer("tp-vs-replicas", seed, change);
    // Qwen3-32B at 8 req/s: its weights nearly fill one H100, so only tensor parallel has room for KV
    let big = |i: usize, s: &mut Scenario| {
        if i >= 2 {
            s.model = ModelRef::Id("qwen3-32b".into());
            s.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
        }
    };
    // a slow all-reduce (2 ms) in the light tensor-parallel run: its first tokens come later
    let slow_reduce = |i: usize, s: &mut Scenario| {
        if i == 0 {
            s.engine.allreduce_latency_us = 2000.0;
        }
    };
    for seed in [1, 7] {
        assert_eq!(answer(seed, &|_, _| {}), 1, "as taught");
        assert_eq!(answer(seed, &big), 0);
        assert_eq!(answer(seed, &slow_reduce), 2);
        assert_eq!(
            answer(seed, &|i, s| {
                big(i, s);
                slow_reduce(i, s);
            }),
            3
        );
    }
}
