//! The metric table against a summary whose every number is different: each metric reads the
//! number its name names (so a row reading the wrong field fails), derived metrics follow their
//! formulas, and the table's facts agree with the way metrics are used.

use lab_spec::metric::{Count, Direction, Metric, MetricRef, Read, Unit};
use lab_spec::metrics::{
    Censored, ClassSummary, Cost, Counts, DisaggSummary, Dist, Goodput, Memory, PrefixCache, RouterSummary,
    SpeculativeSummary, Summary, Throughput,
};
use serde_json::Value;
use std::cell::Cell;

/// Hands out 1, 2, 3, …: no two numbers of the summary are equal.
struct Numbers(Cell<u64>);

impl Numbers {
    fn u(&self) -> u64 {
        self.0.set(self.0.get() + 1);
        self.0.get()
    }
    fn f(&self) -> f64 {
        self.u() as f64 + 0.5
    }
    fn dist(&self) -> Dist {
        Dist {
            count: self.u(),
            mean: self.f(),
            p50: self.f(),
            p90: self.f(),
            p95: self.f(),
            p99: self.f(),
            max: self.f(),
        }
    }
    fn censored(&self) -> Censored {
        Censored {
            count: self.u(),
            censored: self.u(),
            mean: self.f(),
            p50: self.f(),
            p90: self.f(),
            p95: self.f(),
            p99: self.f(),
            max: self.f(),
        }
    }
    fn class(&self) -> ClassSummary {
        ClassSummary {
            requests: Counts {
                arrived: self.u() * 1000,
                completed: self.u(),
                rejected: self.u(),
                timed_out: self.u(),
                failed: self.u(),
                preempted: self.u(),
                oom_restarts: self.u(),
                in_flight: self.u(),
            },
            ttft_ms: self.dist(),
            tpot_ms: self.dist(),
            itl_ms: self.dist(),
            e2e_ms: self.dist(),
            queue_ms: self.dist(),
            prefill_ms: self.dist(),
            ttft_ms_censored: self.censored(),
            e2e_ms_censored: self.censored(),
            throughput: Throughput {
                output_tokens_per_s: self.f(),
                total_tokens_per_s: self.f(),
                requests_per_s: self.f(),
            },
            goodput: Goodput { requests_per_s: self.f(), output_tokens_per_s: self.f(), slo_attainment: self.f() },
            prefix_cache: Some(PrefixCache { hit_rate: self.f(), cached_tokens: self.u(), evicted_blocks: self.u() }),
        }
    }
}

fn summary() -> Summary {
    let n = Numbers(Cell::new(0));
    let all = n.class();
    let chat = n.class();
    Summary {
        duration_s: n.f(),
        all,
        memory: Memory {
            hbm_bytes: n.f(),
            weights_bytes: n.f(),
            draft_weights_bytes: n.f(),
            activation_bytes: n.f(),
            headroom_bytes: n.f(),
            runtime_bytes: n.f(),
            other_process_bytes: n.f(),
            kv_capacity_bytes: n.f() * 1000.0,
            kv_peak_bytes: n.f(),
            kv_bytes_per_token: n.f(),
            draft_kv_bytes_per_token: n.f(),
            kv_capacity_tokens: n.u(),
            peak_running: n.u(),
            kv_waste_mean: n.f(),
        },
        cost: Cost { usd_per_hour: n.f(), usd_per_million_output_tokens: n.f(), usd_per_million_good_tokens: n.f() },
        classes: [("chat".to_string(), chat)].into(),
        speculative: Some(SpeculativeSummary { mean_accepted_tokens_per_step: n.f(), draft_tokens: n.u() as u32 }),
        replicas: Vec::new(),
        router: Some(RouterSummary {
            policy: "round_robin".into(),
            imbalance: n.f(),
            by_affinity: n.u(),
            over_cap: n.u(),
            none_cached: n.u(),
        }),
        disaggregation: Some(DisaggSummary {
            prefill_replicas: 1,
            decode_replicas: 1,
            transfers: n.u(),
            kv_transfer_ms: n.dist(),
            link_wait_ms: n.dist(),
            kv_bytes: n.f(),
        }),
    }
}

fn at(v: &Value, path: &str) -> Option<f64> {
    path.split('.').try_fold(v, |cur, part| cur.get(part))?.as_f64()
}

/// The metrics that are computed from other numbers, not a field of the summary.
fn derived(m: Metric) -> Option<fn(&ClassSummary, &Summary) -> f64> {
    match m {
        Metric::ErrorRate => Some(|c, _| c.requests.errors() as f64 / c.requests.arrived as f64),
        Metric::GoodputShare => Some(|c, _| c.goodput.output_tokens_per_s / c.throughput.output_tokens_per_s),
        Metric::KvFreeAtPeak => Some(|_, s| 1.0 - s.memory.kv_peak_bytes / s.memory.kv_capacity_bytes),
        Metric::Requests(Count::Ended) => Some(|c, _| c.requests.ended() as f64),
        _ => None,
    }
}

#[test]
fn every_metric_reads_the_number_its_name_names() {
    let s = summary();
    let json = serde_json::to_value(&s).unwrap();
    let chat = &s.classes["chat"];
    for m in Metric::all() {
        let name = m.name();
        let whole = match derived(m) {
            Some(f) => f(&s.all, &s),
            None => at(&json, &name).unwrap_or_else(|| panic!("{name} is no number of the summary")),
        };
        assert_eq!(m.of(&s), whole, "{name}");
        if m.per_class() {
            let path = format!("classes.chat.{name}");
            let class = match derived(m) {
                Some(f) => f(chat, &s),
                None => at(&json, &path).unwrap(),
            };
            assert_eq!(MetricRef::parse(&path).unwrap().read(&s), Some(class), "{path}");
            assert_eq!(m.of_class(&s.all), Some(whole), "{name}: all traffic is a class too");
        } else {
            assert_eq!(m.of_class(&s.all), None, "{name} is the whole run's");
            assert!(MetricRef::parse(&format!("classes.chat.{name}")).is_err(), "{name}");
        }
    }
}

#[test]
fn names_are_unique_and_parse_back() {
    let all = Metric::all();
    let mut names: Vec<String> = all.iter().map(|m| m.name()).collect();
    for (m, name) in all.iter().zip(&names) {
        assert_eq!(Metric::parse(name), Some(*m), "{name}");
        assert_eq!(serde_json::to_string(m).unwrap(), format!("\"{name}\""));
    }
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "two metrics share a name");
}

#[test]
fn the_table_agrees_with_how_metrics_are_used() {
    let rows: Vec<(Metric, _)> = Metric::all().into_iter().filter_map(|m| m.row().map(|r| (m, r))).collect();
    assert!(rows.len() >= 30, "the table holds the scalar metrics");
    for (m, row) in rows {
        assert_eq!(m.name(), row.name);
        assert_eq!(m.unit(), row.unit);
        assert_eq!(m.definition(), row.definition);
        assert_eq!(m.better(), row.better);
        assert_eq!(m.per_class(), matches!(row.read, Read::Class(_)), "{m}");
        assert!(!row.definition.is_empty() && row.definition.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
        // what a learner pays is better low; what is served is better high; sizes have no side
        match row.unit {
            Unit::Usd | Unit::UsdPerHour => assert_eq!(row.better, Some(Direction::Min), "{m}"),
            Unit::TokensPerS | Unit::RequestsPerS => assert_eq!(row.better, Some(Direction::Max), "{m}"),
            Unit::Bytes | Unit::BytesPerToken | Unit::S => assert_eq!(row.better, None, "{m}"),
            _ => {}
        }
    }
    // the families have no row: their facts come from their parts
    assert!(Metric::TTFT_P99.row().is_none() && Metric::Requests(Count::Completed).row().is_none());
    assert_eq!(Metric::Requests(Count::Completed).better(), Some(Direction::Max));
    assert_eq!(Metric::Requests(Count::TimedOut).better(), Some(Direction::Min));
    assert_eq!(Metric::Requests(Count::Arrived).better(), None);
}
