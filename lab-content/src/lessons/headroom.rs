//! Lesson `headroom`: on an engine with a preallocated KV pool (vLLM, SGLang), does a
//! conservative gpu_memory_utilization serve more? Runs A and B are that engine at 0.95 and 0.75;
//! run C is the over-committing server the article describes, at 0.95.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "headroom",
    choices: 3,
    taught: 0,
    highlight: GOODPUT,
    focus_class: None,
    sentences: &[
        "full-wins",
        "conservative-wins",
        "same",
        "preempted",
        "queued",
        "no-oom",
        "budget",
        "start-limit",
        "overcommit-crashed",
        "overcommit-survived",
        "outside",
        "where",
    ],
    runs: headroom_runs,
    watch: &[0, 1],
    outcome: headroom,
};

fn headroom_runs(_seed: u64) -> Vec<LessonRun> {
    // long chat on Llama-3-8B / H100 with the lessons' vLLM-style server: pool preallocated, no over-commit
    let mut full = lesson_server(smaller(base("risk-oom-full-memory"), 1500));
    full.gpu_memory_utilization = 0.95;
    full.classes[0].arrival = Arrival::Poisson { rate_per_s: 3.4 };
    let mut safe = full.clone();
    safe.gpu_memory_utilization = 0.75;
    let mut article = full.clone();
    article.scheduler.overcommit = true;
    vec![
        LessonRun { variant: "util-0.95", scenario: full },
        LessonRun { variant: "util-0.75", scenario: safe },
        LessonRun { variant: "overcommit-0.95", scenario: article },
    ]
}

fn headroom(r: &[Summary]) -> Outcome {
    // choices: 0.95 serves more good tokens, 0.75 serves more, about the same
    let (g95, g75) = (GOODPUT.of(&r[0]), GOODPUT.of(&r[1]));
    let answer = first(&[g95 > 1.1 * g75, g75 > 1.1 * g95]);
    let oom = Metric::Requests(Count::OomRestarts);
    let preempted = Metric::Requests(Count::Preempted);
    let quotes = [
        ("goodput_95", 0, GOODPUT, 1.0),
        ("goodput_75", 1, GOODPUT, 1.0),
        ("goodput_overcommit", 2, GOODPUT, 1.0),
        ("kv_capacity_95_gib", 0, Metric::KvCapacityBytes, GIB),
        ("kv_capacity_75_gib", 1, Metric::KvCapacityBytes, GIB),
        ("peak_running_95", 0, Metric::PeakRunning, 1.0),
        ("peak_running_75", 1, Metric::PeakRunning, 1.0),
        ("preempted_95", 0, preempted, 1.0),
        ("preempted_75", 1, preempted, 1.0),
        ("queue_mean_95_ms", 0, QUEUE_MEAN, 1.0),
        ("queue_mean_75_ms", 1, QUEUE_MEAN, 1.0),
        ("ttft_p99_95_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_75_ms", 1, Metric::TTFT_P99, 1.0),
        ("oom_95", 0, oom, 1.0),
        ("oom_75", 1, oom, 1.0),
        ("oom_overcommit", 2, oom, 1.0),
        ("failed_overcommit", 2, Metric::Requests(Count::Failed), 1.0),
        ("activation_gib", 0, Metric::ActivationBytes, GIB),
        ("headroom_95_gib", 0, Metric::HeadroomBytes, GIB),
        ("runtime_gib", 0, Metric::RuntimeBytes, GIB),
    ];
    let mem = |m: Metric| m.of(&r[0]);
    let outside = mem(Metric::RuntimeBytes) + mem(Metric::OtherProcessBytes);
    // the highest utilisation (in whole percent) whose headroom still holds what lives outside
    let max_util_pct = ((1.0 - outside / mem(Metric::HbmBytes)) * 100.0 + 1e-9).floor();
    let extra = [("spare_95_gib", (mem(Metric::HeadroomBytes) - outside) / GIB), ("max_util_pct", max_util_pct)];
    let n = quote(r, &quotes, &extra);
    let sentences = say(&[
        ("full-wins", answer == 0),
        ("conservative-wins", answer == 1),
        ("same", answer == 2),
        ("preempted", n["preempted_75"] > n["preempted_95"]),
        ("queued", n["queue_mean_75_ms"] > n["queue_mean_95_ms"] && n["ttft_p99_75_ms"] > n["ttft_p99_95_ms"]),
        ("no-oom", n["oom_95"] == 0.0 && n["oom_75"] == 0.0),
        ("budget", n["spare_95_gib"] >= 0.0),
        ("start-limit", max_util_pct < 99.5),
        ("overcommit-crashed", n["oom_overcommit"] > 0.0),
        ("overcommit-survived", n["oom_overcommit"] == 0.0),
        ("outside", true),
        ("where", true),
    ]);
    Outcome { answer, numbers: n, sentences }
}
