//! Every metric reads the summary field it names, parses from its name, and compares as goals do.

use sim_core::metric::{Metric, MetricRef, Op};
use sim_core::Summary;

fn summary() -> Summary {
    let sc = sim_core::presets::find("mixed-shared").unwrap().scenario();
    sim_core::Simulation::new(&sc).unwrap().run_to_end()
}

fn field(v: &serde_json::Value, path: &str) -> Option<f64> {
    path.split('.').try_fold(v, |cur, part| cur.get(part))?.as_f64()
}

#[test]
fn every_metric_reads_the_field_it_names() {
    let s = summary();
    let json = serde_json::to_value(&s).unwrap();
    let mut names: Vec<String> = Vec::new();
    for m in Metric::all() {
        let name = m.name();
        assert_eq!(Metric::parse(&name), Some(m), "{name}");
        names.push(name.clone());
        // the prefix cache's figures are in the summary only where something can be cached
        let part = name.split('.').next().unwrap_or_default();
        let optional = part == "prefix_cache" || part == "speculative" || part == "disaggregation";
        let absent = optional && json.get(part).is_none();
        if absent {
            assert_eq!(m.of(&s), 0.0, "{name}: absent from this summary");
        }
        // the router's figures are in the summary only with several replicas
        let absent = absent || name.starts_with("router.") && json.get("router").is_none();
        if m == Metric::RouterImbalance {
            assert_eq!(m.of(&s), 1.0, "one replica is an even spread");
        }
        let derived = matches!(m, Metric::ErrorRate | Metric::KvFreeAtPeak | Metric::GoodputShare) || absent;
        if !derived {
            assert_eq!(field(&json, &name), Some(m.of(&s)), "{name}");
        }
        if m.per_class() && !derived {
            let path = format!("classes.chat.{name}");
            let r = MetricRef::parse(&path).unwrap();
            assert_eq!(r.to_string(), path);
            assert_eq!(r.read(&s), field(&json, &path), "{path}");
        }
    }
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "names are unique");
}

#[test]
fn prefix_cache_metrics_read_the_summary_where_prefixes_are_cached() {
    let sc = sim_core::presets::find("prefix-caching").unwrap().scenario();
    let s = sim_core::Simulation::new(&sc).unwrap().run_to_end();
    let json = serde_json::to_value(&s).unwrap();
    for m in [Metric::PrefixHitRate, Metric::PrefixCachedTokens, Metric::PrefixEvictedBlocks] {
        assert_eq!(Some(m.of(&s)), field(&json, &m.name()), "{m}");
        let path = format!("classes.chat.{}", m.name());
        assert_eq!(MetricRef::parse(&path).unwrap().read(&s), field(&json, &path), "{path}");
    }
    assert!(Metric::PrefixHitRate.of(&s) > 0.5);
}

#[test]
fn speculative_metrics_read_the_summary_where_speculation_is_on() {
    let sc = sim_core::presets::find("speculative").unwrap().scenario();
    let s = sim_core::Simulation::new(&sc).unwrap().run_to_end();
    let json = serde_json::to_value(&s).unwrap();
    for m in [Metric::SpeculativeTokensPerStep, Metric::SpeculativeDraftTokens] {
        assert_eq!(Some(m.of(&s)), field(&json, &m.name()), "{m}");
        assert!(!m.per_class());
    }
    assert!(Metric::SpeculativeTokensPerStep.of(&s) > 1.0);
}

#[test]
fn kv_transfer_metrics_read_the_summary_with_disaggregation() {
    let sc = sim_core::presets::find("disaggregated").unwrap().scenario();
    let s = sim_core::Simulation::new(&sc).unwrap().run_to_end();
    let json = serde_json::to_value(&s).unwrap();
    for m in [Metric::KvTransferMean, Metric::KvTransferP99] {
        assert_eq!(Some(m.of(&s)), field(&json, &m.name()), "{m}");
        assert!(m.of(&s) > 0.0, "{m}");
    }
}

#[test]
fn the_router_imbalance_reads_the_summary_with_several_replicas() {
    let sc = sim_core::presets::find("cluster-prefix-affinity").unwrap().scenario();
    let s = sim_core::Simulation::new(&sc).unwrap().run_to_end();
    let json = serde_json::to_value(&s).unwrap();
    let m = Metric::RouterImbalance;
    assert_eq!(Some(m.of(&s)), field(&json, &m.name()));
    assert!(m.of(&s) >= 1.0);
}

#[test]
fn derived_metrics_and_bad_paths() {
    let s = summary();
    let r = &s.all.requests;
    let errors = (r.rejected + r.timed_out + r.failed) as f64 / r.arrived as f64;
    assert_eq!(Metric::ErrorRate.of(&s), errors);
    let free = 1.0 - s.memory.kv_peak_bytes / s.memory.kv_capacity_bytes;
    assert_eq!(Metric::KvFreeAtPeak.of(&s), free);
    assert_eq!(MetricRef::parse("classes.nope.ttft_ms.p99").unwrap().read(&s), None);
    assert!(MetricRef::parse("ttft_ms.p42").unwrap_err().contains("unknown metric"));
    assert!(MetricRef::parse("classes.chat.cost.usd_per_hour").unwrap_err().contains("whole run"));
    // a class name with a dot
    let r = MetricRef::parse("classes.v1.chat.goodput.slo_attainment").unwrap();
    assert_eq!(r, MetricRef::class(Metric::SloAttainment, "v1.chat"));
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(json, "\"classes.v1.chat.goodput.slo_attainment\"");
    assert_eq!(serde_json::from_str::<MetricRef>(&json).unwrap(), r);
}

#[test]
fn ops_compare_and_serialise_as_before() {
    assert!(Op::AtMost.holds(1.0, 1.0) && !Op::AtMost.holds(1.1, 1.0));
    assert!(Op::AtLeast.holds(1.0, 1.0) && !Op::AtLeast.holds(0.9, 1.0));
    assert_eq!(serde_json::to_string(&Op::AtMost).unwrap(), "\"<=\"");
    assert_eq!(serde_json::from_str::<Op>("\">=\"").unwrap(), Op::AtLeast);
    assert!(serde_json::from_str::<Op>("\"<\"").is_err());
}

#[test]
fn built_in_goals_and_contract_lines_name_known_metrics() {
    for ex in lab_content::exercise::exercises() {
        let refs = ex.goals.iter().map(|g| &g.metric).chain(ex.objective.as_ref().map(|o| &o.metric));
        for r in refs {
            assert_eq!(&MetricRef::parse(&r.to_string()).unwrap(), r, "{}", ex.id);
        }
    }
    let c = lab_content::contract::Contract::from_json(lab_content::contract::EXAMPLE).unwrap();
    let report = c.check(&sim_core::sim::BuiltinTraces).unwrap();
    let mut with_metric = 0;
    for line in &report.lines {
        if let Some(m) = line.metric {
            assert_eq!(Metric::parse(&m.name()), Some(m));
            assert_eq!(line.measured, m.of(&report.summary), "{}", line.field);
            with_metric += 1;
        }
    }
    assert!(with_metric >= 3, "{with_metric}");
}
