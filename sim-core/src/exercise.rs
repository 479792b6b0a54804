//! Classroom exercises: a starting scenario, the controls a learner may change, goals checked
//! automatically against the run's summary, and an objective to minimise or maximise.
//!
//! Goals name summary fields by path (`classes.chat.ttft_ms.p99`, `cost.usd_per_million_good_tokens`),
//! so any number the summary reports can be a goal.

use crate::metrics::Summary;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    /// Dotted path into the summary.
    pub metric: String,
    /// `"<="` or `">="`.
    pub op: String,
    pub value: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub metric: String,
    /// `"min"` or `"max"`.
    pub direction: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    pub id: String,
    pub scenario: Scenario,
    /// Control ids (scenario field paths) the learner may change; the rest are locked.
    pub allowed: Vec<String>,
    pub goals: Vec<Goal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<Objective>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoalResult {
    pub metric: String,
    pub op: String,
    pub target: f64,
    /// `None` when the summary has no such number (e.g. a class that does not exist).
    pub measured: Option<f64>,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub goals: Vec<GoalResult>,
    pub pass: bool,
    /// The objective's value, when every goal passed.
    pub score: Option<f64>,
}

/// Reads a number from the summary by dotted path.
pub fn metric(summary: &Summary, path: &str) -> Option<f64> {
    let v = serde_json::to_value(summary).ok()?;
    let mut cur = &v;
    for part in path.split('.') {
        cur = cur.get(part)?;
    }
    cur.as_f64()
}

impl Exercise {
    pub fn check(&self, summary: &Summary) -> Attempt {
        let goals: Vec<GoalResult> = self
            .goals
            .iter()
            .map(|g| {
                let measured = metric(summary, &g.metric);
                let pass = match (measured, g.op.as_str()) {
                    (Some(m), "<=") => m <= g.value,
                    (Some(m), ">=") => m >= g.value,
                    _ => false,
                };
                GoalResult { metric: g.metric.clone(), op: g.op.clone(), target: g.value, measured, pass }
            })
            .collect();
        let pass = goals.iter().all(|g| g.pass);
        let score = if pass { self.objective.as_ref().and_then(|o| metric(summary, &o.metric)) } else { None };
        Attempt { goals, pass, score }
    }
}

/// The built-in exercises.
pub fn exercises() -> Vec<Exercise> {
    // 20 req/s in all: 16 chat, 4 bursty document requests, one shared queue to start from
    use crate::scenario::{Arrival, LengthDist};
    let mut mixed = crate::presets::find("mixed-shared").expect("preset").scenario();
    mixed.name = Some("Serve 20 req/s of mixed traffic".into());
    mixed.classes[0].arrival = Arrival::Poisson { rate_per_s: 16.0 };
    mixed.classes[0].num_requests = Some(2000);
    mixed.classes[1].arrival = Arrival::Bursty { rate_per_s: 4.0, cv: 3.0 };
    mixed.classes[1].num_requests = Some(500);
    mixed.classes[1].input_tokens = Some(LengthDist::Lognormal { mean: 3000.0, sigma: 0.4 });
    mixed.classes[1].output_tokens = Some(LengthDist::Lognormal { mean: 400.0, sigma: 0.5 });
    let mut chat = crate::presets::find("chat-latency-first").expect("preset").scenario();
    chat.name = Some("Cheapest good tokens for chat".into());
    let allowed_hw = ["gpu", "num_gpus", "dtype", "gpu_memory_utilization"];
    let allowed_sched = [
        "scheduler.max_num_seqs",
        "scheduler.max_num_batched_tokens",
        "scheduler.chunked_prefill",
        "scheduler.isolation",
        "scheduler.queue_timeout_ms",
        "scheduler.max_queue_len",
        "classes.reserved_share",
        "classes.priority",
    ];
    vec![
        Exercise {
            id: "mixed-20".into(),
            scenario: mixed,
            allowed: allowed_hw.iter().chain(allowed_sched.iter()).map(|s| s.to_string()).collect(),
            goals: vec![
                Goal { metric: "classes.chat.ttft_ms.p99".into(), op: "<=".into(), value: 800.0 },
                Goal { metric: "classes.chat.goodput.slo_attainment".into(), op: ">=".into(), value: 0.95 },
                Goal { metric: "classes.batch.goodput.slo_attainment".into(), op: ">=".into(), value: 0.9 },
            ],
            objective: Some(Objective { metric: "cost.usd_per_million_good_tokens".into(), direction: "min".into() }),
        },
        Exercise {
            id: "chat-cheapest".into(),
            scenario: chat,
            allowed: allowed_hw.iter().chain(allowed_sched.iter().take(3)).map(|s| s.to_string()).collect(),
            goals: vec![
                Goal { metric: "ttft_ms.p99".into(), op: "<=".into(), value: 1000.0 },
                Goal { metric: "tpot_ms.p99".into(), op: "<=".into(), value: 50.0 },
                Goal { metric: "goodput.slo_attainment".into(), op: ">=".into(), value: 0.97 },
            ],
            objective: Some(Objective { metric: "cost.usd_per_million_good_tokens".into(), direction: "min".into() }),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_paths_read_the_summary() {
        let s = crate::Simulation::new(&crate::presets::find("mixed-shared").unwrap().scenario()).unwrap().run_to_end();
        assert_eq!(metric(&s, "classes.chat.ttft_ms.p99"), Some(s.classes["chat"].ttft_ms.p99));
        assert_eq!(metric(&s, "cost.usd_per_million_good_tokens"), Some(s.cost.usd_per_million_good_tokens));
        assert_eq!(metric(&s, "classes.nope.ttft_ms.p99"), None);
    }

    #[test]
    fn exercises_are_unsolved_as_given_and_solvable() {
        for ex in exercises() {
            ex.scenario.validate().unwrap();
            for g in &ex.goals {
                assert!(g.op == "<=" || g.op == ">=");
            }
        }
        // mixed-20 as given: one shared queue fails the chat tail goal
        let ex = &exercises()[0];
        let s = crate::Simulation::new(&ex.scenario).unwrap().run_to_end();
        let a = ex.check(&s);
        assert!(!a.pass && a.score.is_none());
        // isolated queues that reserve most slots for chat, and a bigger batch, solve it on one GPU
        let mut sc = ex.scenario.clone();
        sc.scheduler.isolation = true;
        sc.scheduler.max_num_seqs = 256;
        sc.classes[0].reserved_share = Some(0.8);
        sc.classes[1].reserved_share = Some(0.2);
        let s = crate::Simulation::new(&sc).unwrap().run_to_end();
        let a = ex.check(&s);
        assert!(a.pass, "{:#?}", a.goals);
        assert!(a.score.unwrap() > 0.0);
    }
}
