//! Sentence checks and reachability for `prefix-caching`, read from the summaries (runs: one
//! 12,000-token document shared by every request without and with prefix caching, 96 documents
//! on the same KV pool without and with it).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;

fn hits(s: &Summary) -> f64 {
    s.all.prefix_cache.map_or(0.0, |p| p.hit_rate)
}

fn evicted(s: &Summary) -> f64 {
    s.all.prefix_cache.map_or(0.0, |p| p.evicted_blocks as f64)
}

fn p99(s: &Summary) -> f64 {
    s.all.ttft_ms.p99
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (one, one_c, many, many_c) = (&s[0], &s[1], &s[2], &s[3]);
    // the runs are what the lesson says: caching off in 0 and 2, on in 1 and 3; one pool size
    let shape = one.all.prefix_cache.is_none()
        && many.all.prefix_cache.is_none()
        && one_c.all.prefix_cache.is_some()
        && many_c.all.prefix_cache.is_some()
        && many_c.memory.kv_capacity_tokens == one_c.memory.kv_capacity_tokens;
    let mean = |r: &Summary| r.all.ttft_ms.mean;
    let cut = |off: &Summary, on: &Summary| 1.0 - mean(on) / mean(off);
    let (cut_one, cut_many) = (cut(one, one_c), cut(many, many_c));
    let times_one = quoted(o, "ttft_p99_one_ms", p99(one))
        && quoted(o, "ttft_p99_one_cached_ms", p99(one_c))
        && quoted(o, "ttft_p50_one_ms", one.all.ttft_ms.p50)
        && quoted(o, "ttft_p50_one_cached_ms", one_c.all.ttft_ms.p50)
        && quoted(o, "ttft_mean_one_ms", mean(one))
        && quoted(o, "ttft_mean_one_cached_ms", mean(one_c))
        && quoted(o, "gain_one", mean(one) / mean(one_c));
    let times_many = quoted(o, "ttft_p99_many_ms", p99(many))
        && quoted(o, "ttft_p99_many_cached_ms", p99(many_c))
        && quoted(o, "ttft_p50_many_ms", many.all.ttft_ms.p50)
        && quoted(o, "ttft_p50_many_cached_ms", many_c.all.ttft_ms.p50)
        && quoted(o, "ttft_mean_many_ms", mean(many))
        && quoted(o, "ttft_mean_many_cached_ms", mean(many_c))
        && quoted(o, "gain_many", mean(many) / mean(many_c));
    let q = shape && times_one && times_many;
    Some(match sentence {
        "one_cuts" => {
            shape && times_one && quoted(o, "hit_rate_one", hits(one_c)) && hits(one_c) > 0.5 && cut_one > 0.5
        }
        "one_queue" => {
            let (queue, queue_c) = (one.all.queue_ms.mean, one_c.all.queue_ms.mean);
            quoted(o, "queue_one_ms", queue)
                && quoted(o, "queue_one_cached_ms", queue_c)
                && quoted(o, "prefill_one_ms", one.all.prefill_ms.mean)
                && quoted(o, "prefill_one_cached_ms", one_c.all.prefill_ms.mean)
                && queue > 10.0 * queue_c
                && queue > one.all.prefill_ms.mean
                && one_c.all.prefill_ms.mean < one.all.prefill_ms.mean
        }
        "many_evicts" => {
            let pool = many_c.memory.kv_capacity_tokens as f64;
            shape
                && quoted(o, "pool_tokens", pool)
                && quoted(o, "prompts_fit", (pool / 12_000.0).floor())
                && quoted(o, "evicted_many", evicted(many_c))
                && quoted(o, "hit_rate_many", hits(many_c))
                && quoted(o, "evicted_one", evicted(one_c))
                && evicted(many_c) > evicted(one_c)
                && hits(many_c) < hits(one_c) - 0.2
        }
        "many_same" => q && cut_many >= cut_one - 0.1,
        "many_less" => q && cut_many < cut_one - 0.1 && cut_many >= 0.1,
        "many_none" => q && cut_many < 0.1,
        "load_fits" => {
            // no run fell behind: every uncached or many-document run waited less than half a
            // document's prefill on average
            let prefill = one.all.prefill_ms.mean;
            quoted(o, "queue_many_ms", many.all.queue_ms.mean)
                && quoted(o, "queue_many_cached_ms", many_c.all.queue_ms.mean)
                && [one, many, many_c].iter().all(|r| r.all.queue_ms.mean < 0.5 * prefill)
        }
        // where the lesson stops holding (`llmsim lesson prefix-caching --neighbours`): a
        // larger model's runs, no number of these
        "where" => true,
        _ => return None,
    })
}

/// Every choice is reachable: the lesson as it is (far less); 30 documents instead of 96, which
/// all fit in the pool (as much); caching left off in the last run (no help).
#[test]
fn prefix_caching_every_choice_is_reachable() {
    let few = |i: usize, s: &mut sim_core::Scenario| {
        if let (true, Some(p)) = (i >= 2, s.classes[0].prefix.as_mut()) {
            p.groups = 30;
        }
    };
    let never_cached = |i: usize, s: &mut sim_core::Scenario| {
        if i == 3 {
            s.scheduler.prefix_caching = false;
        }
    };
    for seed in [1, 7] {
        assert_eq!(super::answer("prefix-caching", seed, |_, _| {}), 1);
        assert_eq!(super::answer("prefix-caching", seed, few), 0);
        assert_eq!(super::answer("prefix-caching", seed, never_cached), 2);
    }
}
