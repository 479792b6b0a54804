//! The built-in exercises.

use super::{Change, Exercise, Goal, Objective};
use sim_core::metric::{Direction, Metric, MetricRef, Op};

pub(super) fn goal(metric: MetricRef, op: Op, value: f64) -> Goal {
    Goal { metric, op, value }
}

fn cheapest() -> Objective {
    Objective { metric: MetricRef::all(Metric::UsdPerMillionGoodTokens), direction: Direction::Min }
}

/// The built-in exercises.
pub fn exercises() -> Vec<Exercise> {
    vec![
        mixed_20(),
        chat_cheapest(),
        speculative_users(),
        cache_prompts(),
        route_documents(),
        split_the_work(),
        meet_contract(),
    ]
}

/// Lesson 13's traffic under memory pressure: chat at 10 req/s on one H100, each prompt (about
/// 3,500 tokens) starting with one of 48 system prompts of 3,000 tokens, on a server started with
/// memory utilisation 0.3 and prefix caching off. Caching alone evicts most prompts before they
/// are asked for again; a pool that holds them all makes it pay. A second GPU passes without the
/// cache, at twice the cost per good token.
fn cache_prompts() -> Exercise {
    let mut s = crate::lessons::under_pressure();
    s.name = Some("Keep the system prompts cached".into());
    Exercise {
        id: "cache-prompts".into(),
        scenario: s,
        allowed: ids(&[
            "num_gpus",
            "gpu_memory_utilization",
            "scheduler.prefix_caching",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.95),
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
        ],
        objective: Some(cheapest()),
        // caching on, and a pool that holds every system prompt besides the running requests
        reference: vec![Change::new("scheduler.prefix_caching", true), Change::new("gpu_memory_utilization", 0.9)],
    }
}

/// Four L40S replicas answer questions about 96 shared documents at 12 req/s, routed round robin
/// as given: every replica caches every document and thrashes (lesson 14). Prefix affinity
/// passes on the same four GPUs; more replicas routed round robin pass too, at a higher cost per
/// good token.
fn route_documents() -> Exercise {
    let mut s = sim_core::presets::find("cluster-prefix-affinity").expect("preset").scenario();
    s.name = Some("Route the documents".into());
    s.router.policy = sim_core::cluster::Policy::RoundRobin;
    s.classes[0].num_requests = Some(2000);
    Exercise {
        id: "route-documents".into(),
        scenario: s,
        allowed: ids(&[
            "replicas",
            "router.policy",
            "router.load_cap",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "scheduler.prefix_caching",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.95),
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
        ],
        objective: Some(cheapest()),
        reference: vec![Change::new("router.policy", "prefix_affinity")],
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// 20 req/s on one H100: 16 chat, 4 bursty document requests, in one shared first-come queue,
/// with the lessons' vLLM-style batch limits. The GPU and the bf16 weights are fixed and nothing is
/// reserved per class, so neither a faster GPU, fp8 nor a reserved share can stand in for what
/// the exercise practises (lesson 7): separate queues served by priority. More GPUs also pass,
/// at about twice the cost per good token.
fn mixed_20() -> Exercise {
    use sim_core::scenario::{Arrival, LengthDist};
    let mut s = sim_core::presets::find("mixed-shared").expect("preset").scenario();
    s.name = Some("Serve 20 req/s of mixed traffic".into());
    s.scheduler.max_num_seqs = 256;
    s.scheduler.max_num_batched_tokens = 8192;
    let (chat, docs) = (0, 1);
    s.classes[chat].arrival = Arrival::Poisson { rate_per_s: 16.0 };
    s.classes[chat].num_requests = Some(2000);
    s.classes[docs].arrival = Arrival::Bursty { rate_per_s: 4.0, cv: 3.0 };
    s.classes[docs].num_requests = Some(500);
    s.classes[docs].input_tokens = Some(LengthDist::Lognormal { mean: 3000.0, sigma: 0.4 });
    s.classes[docs].output_tokens = Some(LengthDist::Lognormal { mean: 400.0, sigma: 0.5 });
    for c in &mut s.classes {
        c.priority = 0;
        c.reserved_share = Some(0.0);
    }
    Exercise {
        id: "mixed-20".into(),
        scenario: s,
        allowed: ids(&[
            "num_gpus",
            "gpu_memory_utilization",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "scheduler.chunked_prefill",
            "scheduler.isolation",
            "scheduler.queue_timeout_ms",
            "scheduler.max_queue_len",
            "classes.priority",
        ]),
        goals: vec![
            goal(MetricRef::class(Metric::TTFT_P99, "chat"), Op::AtMost, 800.0),
            goal(MetricRef::class(Metric::SloAttainment, "chat"), Op::AtLeast, 0.95),
            goal(MetricRef::class(Metric::SloAttainment, "batch"), Op::AtLeast, 0.9),
        ],
        objective: Some(cheapest()),
        // chat first in a queue of its own; a smaller token budget keeps each step (and so chat's
        // time per token) short while the documents' prompts are prefilled in chunks
        reference: vec![
            Change::new("scheduler.isolation", true),
            Change::new("classes[1].priority", 1),
            Change::new("scheduler.max_num_batched_tokens", 2048),
        ],
    }
}

/// 24 chat req/s on one replica with the lessons' vLLM-style server: too much for one H100 in bf16. Which GPU
/// and precision give the cheapest good tokens is what lesson 9 compares: each GPU at the load
/// it carries within the SLO, not its price per hour or its peak throughput.
fn chat_cheapest() -> Exercise {
    use sim_core::scenario::Arrival;
    let mut s = sim_core::presets::find("chat-latency-first").expect("preset").scenario();
    s.name = Some("Cheapest good tokens for chat".into());
    s.scheduler.max_num_seqs = 256;
    s.scheduler.max_num_batched_tokens = 8192;
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: 24.0 };
    Exercise {
        id: "chat-cheapest".into(),
        scenario: s,
        allowed: ids(&[
            "gpu",
            "num_gpus",
            "dtype",
            "gpu_memory_utilization",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "scheduler.chunked_prefill",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
            goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 50.0),
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.97),
        ],
        objective: Some(cheapest()),
        // the GPU with the most SLO-bound capacity per dollar, with fp8 weights
        reference: vec![Change::new("gpu", "mi300x"), Change::new("dtype", "fp8")],
    }
}

/// Lesson 12's speculation (an EAGLE-style head, 8 draft tokens accepted at 0.6) on Llama-3.1-8B
/// and one H100, with 256 closed-loop users without think time. Speculation is set in the file
/// (the page has no control for it); what the learner chooses is the load it serves: the number of
/// users, and the batch cap. Speculation pays only while the batch is small, so the most tokens
/// per second within 10 ms per token come from a few dozen users, not from the crowd.
fn speculative_users() -> Exercise {
    use sim_core::scenario::Arrival;
    use sim_core::speculative::SpeculativeConfig;
    let mut s = sim_core::presets::find("speculative").expect("preset").scenario();
    s.name = Some("Speculative decoding within 10 ms per token".into());
    s.speculative = Some(SpeculativeConfig { draft_tokens: 8, acceptance_rate: 0.6, draft_model: None });
    s.classes[0].arrival = Arrival::ClosedLoop { users: 256, think_time_ms: 0.0 };
    s.classes[0].num_requests = Some(800);
    Exercise {
        id: "speculative-users".into(),
        scenario: s,
        allowed: ids(&["classes.arrival.users", "scheduler.max_num_seqs"]),
        goals: vec![
            goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 10.0),
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
        ],
        objective: Some(Objective { metric: MetricRef::all(Metric::ThroughputTokens), direction: Direction::Max }),
        // 24 users: a batch small enough for speculation to pay (without it 24 users miss 10 ms)
        reference: vec![Change::new("classes[0].arrival.users", 24)],
    }
}

/// Lesson 15's busy traffic: long-prompt chat at 24 req/s on four colocated H100 replicas, whose
/// decode steps carry the prompts' prefill chunks, so TPOT misses its SLO for most requests. The
/// batch limits are locked: the layout is the exercise. Two prefill and two decode replicas pass
/// on the same four GPUs; a wrong ratio fails, and more colocated replicas cost more.
fn split_the_work() -> Exercise {
    let mut s = crate::lessons::busy_colocated();
    s.name = Some("Split prefill from decode".into());
    Exercise {
        id: "split-the-work".into(),
        scenario: s,
        allowed: ids(&[
            "replicas",
            "router.policy",
            "disaggregation.prefill_replicas",
            "disaggregation.decode_replicas",
            "disaggregation.kv_link_gbps",
            // switching the split on sets the link's latency too: a result code carries it
            "disaggregation.kv_link_latency_us",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.95),
            goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 20.0),
        ],
        objective: Some(cheapest()),
        // two of the four replicas run prompts only, the other two decode
        reference: vec![Change::new("disaggregation.prefill_replicas", 2)],
    }
}

/// The most an hour of the `meet-contract` exercise's configuration may cost.
pub const MEET_CONTRACT_USD_PER_HOUR: f64 = 4.0;

/// The long-prompt contract (`llmsim contract rag`): questions over retrieved documents of
/// about 12,000 tokens at 3 req/s, TTFT p99 ≤ 3 s, TPOT p99 ≤ 40 ms, on one H100 as the
/// contract names it, which misses it. Meet every line `llmsim check` reads from a run for less
/// than $4 an hour: the GPU, its count, replicas, the engine and the caps are the learner's. The
/// reference is the planner's answer (`llmsim plan --example rag`; a test holds the two
/// together): two MI300X replicas, each at the most sequences of the longest allowed length its
/// KV pool holds.
fn meet_contract() -> Exercise {
    let c = crate::contract::Contract::from_json(crate::contract::example("rag").expect("example"))
        .expect("the example contract reads");
    let mut s = c.scenario().expect("the example contract's scenario");
    s.name = Some("Meet the contract for less".into());
    let mut goals: Vec<Goal> = c.goals().into_iter().map(|(m, op, v)| goal(m, op, v)).collect();
    goals.push(goal(MetricRef::all(Metric::UsdPerHour), Op::AtMost, MEET_CONTRACT_USD_PER_HOUR));
    Exercise {
        id: "meet-contract".into(),
        scenario: s,
        allowed: ids(&[
            "gpu",
            "num_gpus",
            "replicas",
            "engine_profile",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "router.policy",
        ]),
        goals,
        objective: Some(cheapest()),
        reference: vec![
            Change::new("gpu", "mi300x"),
            Change::new("replicas", 2),
            Change::new("scheduler.max_num_seqs", 38),
        ],
    }
}
