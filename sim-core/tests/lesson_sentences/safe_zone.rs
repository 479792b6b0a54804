//! Sentence checks and reachability for `safe-zone`, read from the summaries (runs: the bf16-KV
//! sweep over `SAFE_ZONE_RATES`, then the fp8-KV sweep).

use super::quoted;
use sim_core::lessons::Outcome;
use sim_core::lessons::SAFE_ZONE_RATES;
use sim_core::metrics::Summary;

const MAX_NUM_SEQS: u64 = 256;

fn knee(sweep: &[Summary]) -> usize {
    let g: Vec<f64> = sweep.iter().map(|s| s.all.goodput.output_tokens_per_s).collect();
    let best = g.iter().cloned().fold(f64::MIN, f64::max);
    g.iter().position(|x| *x == best).unwrap_or(0)
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let n = SAFE_ZONE_RATES.len();
    let (bf16, fp8) = s.split_at(n);
    let (k, k8, top) = (knee(bf16), knee(fp8), &bf16[n - 1]);
    let m = &top.memory;
    let full = m.kv_peak_bytes >= 0.95 * m.kv_capacity_bytes;
    let good = |x: &Summary| x.all.goodput.output_tokens_per_s;
    Some(match sentence {
        "knee" => {
            quoted(o, "knee_rate", SAFE_ZONE_RATES[k])
                && k < n - 1
                && good(top) < good(&bf16[k])
                && top.all.throughput.output_tokens_per_s > good(top)
        }
        "no_knee" => k == n - 1,
        "queue" => top.all.requests.timed_out == 0 && top.all.requests.rejected == 0 && top.all.ttft_ms.p99 > 500.0,
        "memory" => full && m.peak_running < MAX_NUM_SEQS && quoted(o, "peak_running_at_max", m.peak_running as f64),
        "cap" => m.peak_running >= MAX_NUM_SEQS,
        "compute" => !full && m.peak_running < MAX_NUM_SEQS,
        "fp8_moves" => {
            SAFE_ZONE_RATES[k8] > SAFE_ZONE_RATES[k]
                && fp8[0].memory.kv_bytes_per_token * 2.0 == bf16[0].memory.kv_bytes_per_token
        }
        "fp8_cap" => {
            let f = &fp8[n - 1].memory;
            f.peak_running >= MAX_NUM_SEQS && f.kv_peak_bytes < 0.95 * f.kv_capacity_bytes
        }
        "knee_margin" => {
            bf16[k].all.goodput.slo_attainment < 0.99
                && quoted(o, "knee_attainment", bf16[k].all.goodput.slo_attainment)
        }
        _ => return None,
    })
}

#[test]
fn safe_zone_every_choice_is_reachable() {
    use sim_core::scenario::LengthDist;
    // 1: the lesson as it is (long chats fill the bf16 KV cache first)
    assert_eq!(super::answer("safe-zone", 7, |_, _| {}), 1);
    // 2: half the KV per token (an fp8 cache, as the lesson's second sweep): the batch reaches
    // max_num_seqs with the cache part-empty
    let fp8 = |_: usize, s: &mut sim_core::Scenario| s.kv_dtype = Some(sim_core::Dtype::Fp8);
    assert_eq!(super::answer("safe-zone", 7, fp8), 2);
    // 2: shorter chats at a load past the knee (the try step)
    let short = |_: usize, s: &mut sim_core::Scenario| {
        s.classes[0].input_tokens = Some(LengthDist::Lognormal { mean: 1000.0, sigma: 0.7 });
        s.classes[0].output_tokens = Some(LengthDist::Lognormal { mean: 250.0, sigma: 0.6 });
        s.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: 30.0 };
    };
    assert_eq!(super::answer("safe-zone", 7, short), 2);
    // 0: long documents with one-line answers and only a TTFT target: prefill compute binds
    // before either the cache or the cap
    let prefill_bound = |_: usize, s: &mut sim_core::Scenario| {
        s.classes[0].input_tokens = Some(LengthDist::Lognormal { mean: 4000.0, sigma: 0.7 });
        s.classes[0].output_tokens = Some(LengthDist::Lognormal { mean: 20.0, sigma: 0.6 });
        s.classes[0].slo.tpot_ms = None;
    };
    assert_eq!(super::answer("safe-zone", 7, prefill_bound), 0);
}
