//! Sentence checks and reachability for `quantization`, read from the summaries (runs: Qwen3-32B
//! on one H100 in bf16, with fp8 weights, with fp8 weights and fp8 KV).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;
use sim_core::scenario::Arrival;
use sim_core::Scenario;

const GIB: f64 = (1u64 << 30) as f64;

fn good(s: &Summary) -> f64 {
    s.all.goodput.output_tokens_per_s
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (a, b, c) = (&s[0], &s[1], &s[2]);
    let (ga, gb, gc) = (good(a), good(b), good(c));
    let q = quoted(o, "goodput_bf16", ga) && quoted(o, "goodput_fp8", gb);
    let (ma, mb, mc) = (&a.memory, &b.memory, &c.memory);
    Some(match sentence {
        "far_more" => q && gb >= 1.5 * ga,
        "some_more" => q && gb > 1.1 * ga && gb < 1.5 * ga,
        "same" => q && gb <= 1.1 * ga && ga <= 1.1 * gb,
        "less" => q && gb * 1.1 < ga,
        // fp8 holds the weights in half the bytes; what it frees goes to the KV pool
        "weights" => {
            quoted(o, "weights_bf16_gib", ma.weights_bytes / GIB)
                && quoted(o, "weights_fp8_gib", mb.weights_bytes / GIB)
                && quoted(o, "kv_fp8_gib", mb.kv_capacity_bytes / GIB)
                && (mb.weights_bytes / ma.weights_bytes - 0.5).abs() < 0.05
                && (mb.kv_capacity_bytes - ma.kv_capacity_bytes - (ma.weights_bytes - mb.weights_bytes)).abs()
                    < 0.05 * (ma.weights_bytes - mb.weights_bytes)
                && mb.kv_capacity_tokens > ma.kv_capacity_tokens
        }
        "concurrency" => quoted(o, "peak_running_fp8", mb.peak_running as f64) && mb.peak_running > ma.peak_running,
        "queued" => {
            quoted(o, "queue_mean_bf16_ms", a.all.queue_ms.mean) && a.all.queue_ms.mean > 2.0 * b.all.queue_ms.mean
        }
        "tpot" => quoted(o, "tpot_mean_fp8_ms", b.all.tpot_ms.mean) && b.all.tpot_ms.mean < a.all.tpot_ms.mean,
        // the same pool, one byte per element instead of two
        "kv_doubles" => {
            quoted(o, "kv_tokens_fp8_kv", mc.kv_capacity_tokens as f64)
                && (mc.kv_capacity_bytes - mb.kv_capacity_bytes).abs() < 1e6
                && mc.kv_bytes_per_token * 2.0 == mb.kv_bytes_per_token
        }
        "kv_helps" => gc > 1.1 * gb,
        "kv_room" => gc <= 1.1 * gb && gb <= 1.1 * gc && mb.kv_peak_bytes < 0.9 * mb.kv_capacity_bytes,
        "kv_reads" => quoted(o, "tpot_mean_fp8_kv_ms", c.all.tpot_ms.mean) && c.all.tpot_ms.mean < b.all.tpot_ms.mean,
        // what the simulator does not model, and where the lesson stops holding
        // (`llmsim lesson quantization --neighbours`): no number of the runs
        "quality" | "where" => true,
        _ => return None,
    })
}

#[test]
fn quantization_every_choice_is_reachable() {
    let answer = |seed, change: &dyn Fn(usize, &mut Scenario)| super::answer("quantization", seed, change);
    let rate = |s: &mut Scenario, r: f64| s.classes[0].arrival = Arrival::Poisson { rate_per_s: r };
    for seed in [1, 7] {
        assert_eq!(answer(seed, &|_, _| {}), 2, "as taught");
        // light traffic: bf16 keeps up too
        assert_eq!(answer(seed, &|_, s| rate(s, 1.0)), 0);
        // at 2.7 req/s bf16 only starts to run short of KV
        assert_eq!(answer(seed, &|_, s| rate(s, 2.7)), 1);
        // light traffic, run B on an engine 60 ms slower per step (as a slow fp8 kernel would be):
        // every token over the TPOT target
        assert_eq!(
            answer(seed, &|i, s| {
                rate(s, 1.0);
                if i == 1 {
                    s.engine.iteration_overhead_ms = 60.0;
                }
            }),
            3
        );
    }
}
