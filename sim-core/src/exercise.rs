//! Classroom exercises: a starting scenario, the controls a learner may change, goals checked
//! automatically against the run's summary, and an objective to minimise or maximise.
//!
//! Goals name summary numbers as [`MetricRef`]s (`classes.chat.ttft_ms.p99`,
//! `cost.usd_per_million_good_tokens`), so any number the summary reports can be a goal, and a
//! file naming an unknown one is refused when read.

use crate::metric::{Direction, Metric, MetricRef, Op};
use crate::metrics::Summary;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    pub metric: MetricRef,
    /// `"<="` or `">="` in JSON.
    pub op: Op,
    pub value: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub metric: MetricRef,
    /// `"min"` or `"max"` in JSON.
    pub direction: Direction,
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
    pub metric: MetricRef,
    pub op: Op,
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

impl Exercise {
    pub fn check(&self, summary: &Summary) -> Attempt {
        let goals: Vec<GoalResult> = self
            .goals
            .iter()
            .map(|g| {
                let measured = g.metric.read(summary);
                let pass = measured.is_some_and(|m| g.op.holds(m, g.value));
                GoalResult { metric: g.metric.clone(), op: g.op, target: g.value, measured, pass }
            })
            .collect();
        let pass = goals.iter().all(|g| g.pass);
        let score = if pass { self.objective.as_ref().and_then(|o| o.metric.read(summary)) } else { None };
        Attempt { goals, pass, score }
    }
}

fn goal(metric: MetricRef, op: Op, value: f64) -> Goal {
    Goal { metric, op, value }
}

fn cheapest() -> Objective {
    Objective { metric: MetricRef::all(Metric::UsdPerMillionGoodTokens), direction: Direction::Min }
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
                goal(MetricRef::class(Metric::TTFT_P99, "chat"), Op::AtMost, 800.0),
                goal(MetricRef::class(Metric::SloAttainment, "chat"), Op::AtLeast, 0.95),
                goal(MetricRef::class(Metric::SloAttainment, "batch"), Op::AtLeast, 0.9),
            ],
            objective: Some(cheapest()),
        },
        Exercise {
            id: "chat-cheapest".into(),
            scenario: chat,
            allowed: allowed_hw.iter().chain(allowed_sched.iter().take(3)).map(|s| s.to_string()).collect(),
            goals: vec![
                goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
                goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 50.0),
                goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.97),
            ],
            objective: Some(cheapest()),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_read_as_before_and_unknown_metrics_are_refused() {
        let json = r#"{"metric":"classes.chat.ttft_ms.p99","op":"<=","value":800}"#;
        let g: Goal = serde_json::from_str(json).unwrap();
        assert_eq!(g, goal(MetricRef::class(Metric::TTFT_P99, "chat"), Op::AtMost, 800.0));
        assert_eq!(serde_json::to_string(&g).unwrap(), json.replace("800", "800.0"));
        let bad = r#"{"metric":"ttft_ms.p100","op":"<=","value":1}"#;
        assert!(serde_json::from_str::<Goal>(bad).unwrap_err().to_string().contains("unknown metric"));
        let bad = r#"{"metric":"ttft_ms.p99","op":"<","value":1}"#;
        assert!(serde_json::from_str::<Goal>(bad).is_err());
    }

    #[test]
    fn every_built_in_exercise_round_trips_through_json() {
        for ex in exercises() {
            let back: Exercise = serde_json::from_str(&serde_json::to_string(&ex).unwrap()).unwrap();
            assert_eq!(back, ex);
        }
    }

    #[test]
    fn exercises_are_unsolved_as_given_and_solvable() {
        for ex in exercises() {
            ex.scenario.validate().unwrap();
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
