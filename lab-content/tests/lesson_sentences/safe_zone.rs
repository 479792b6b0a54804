//! Sentence checks and reachability for `safe-zone`, read from the summaries (runs: the sweep over
//! `SAFE_ZONE_RATES` at gpu_memory_utilization 0.9, then the same sweep at 0.5).

use super::quoted;
use lab_content::lessons::Outcome;
use lab_content::lessons::SAFE_ZONE_RATES;
use sim_core::metrics::Summary;

const MAX_NUM_SEQS: u64 = 256;

fn knee(sweep: &[Summary]) -> usize {
    let g: Vec<f64> = sweep.iter().map(|s| s.all.goodput.output_tokens_per_s).collect();
    let best = g.iter().cloned().fold(f64::MIN, f64::max);
    g.iter().position(|x| *x == best).unwrap_or(0)
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let n = SAFE_ZONE_RATES.len();
    let (full, less) = s.split_at(n);
    let (k, k5, top) = (knee(full), knee(less), &full[n - 1]);
    // the first rate past the knee
    let past = &full[(k + 1).min(n - 1)];
    let m = &past.memory;
    let kv_full = m.kv_peak_bytes >= 0.95 * m.kv_capacity_bytes;
    let good = |x: &Summary| x.all.goodput.output_tokens_per_s;
    Some(match sentence {
        "knee" => {
            quoted(o, "knee_rate", SAFE_ZONE_RATES[k])
                && k < n - 1
                && good(top) < good(&full[k])
                && top.all.throughput.output_tokens_per_s > good(top)
        }
        "no_knee" => k == n - 1,
        "past" => k < n - 1 && quoted(o, "past_rate", SAFE_ZONE_RATES[k + 1]) && good(past) < good(&full[k]),
        "queue" => {
            past.all.requests.timed_out == 0
                && past.all.ttft_ms.p99 > 500.0
                && past.all.queue_ms.mean > 2.0 * full[k].all.queue_ms.mean
        }
        "memory" => kv_full && m.peak_running < MAX_NUM_SEQS && quoted(o, "peak_running_past", m.peak_running as f64),
        "cap" => m.peak_running >= MAX_NUM_SEQS,
        "compute" => !kv_full && m.peak_running < MAX_NUM_SEQS,
        "room_moves" => {
            // only the capacity changed: same bytes per token, less KV
            SAFE_ZONE_RATES[k5] < SAFE_ZONE_RATES[k]
                && less[0].memory.kv_bytes_per_token == full[0].memory.kv_bytes_per_token
                && less[0].memory.kv_capacity_bytes < full[0].memory.kv_capacity_bytes
        }
        "room_same" => k5 == k,
        "knee_margin" => {
            full[k].all.goodput.slo_attainment < 0.99
                && quoted(o, "knee_attainment", full[k].all.goodput.slo_attainment)
        }
        // names where the diagnosis changes (checked by `llmsim lesson safe-zone --neighbours`)
        "where" => true,
        _ => return None,
    })
}

#[test]
fn safe_zone_every_choice_is_reachable() {
    // 1: the lesson as it is (long chats fill the KV cache first)
    assert_eq!(super::answer("safe-zone", 7, |_, _| {}), 1);
    // 2: an H200, whose KV cache holds more than 256 long chats: the batch reaches max_num_seqs
    // with the cache part-empty (the try step)
    let h200 = |_: usize, s: &mut sim_core::Scenario| s.gpu = sim_core::scenario::GpuRef::Id("h200".into());
    assert_eq!(super::answer("safe-zone", 7, h200), 2);
    // 0: a 20 ms TPOT target: the step time misses it while the cache still has room
    let strict = |_: usize, s: &mut sim_core::Scenario| s.classes[0].slo.tpot_ms = Some(20.0);
    assert_eq!(super::answer("safe-zone", 7, strict), 0);
}
