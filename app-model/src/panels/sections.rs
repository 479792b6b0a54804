//! The words of the page's sections around the stage: a run's heading, the stage's description
//! now, what the charts show, and the configuration-error banner.

use sim_core::metric::Count;
use sim_core::ScenarioError;

use crate::engine::{RunInfo, RunView};
use crate::format;
use crate::messages::{field_message, Banner};
use crate::run::Run;
use crate::words::Words;

/// A run's heading over its stage: its scenario's title, after the run's letter in A/B mode.
pub fn stage_heading(run: Run, title: String, ab: bool) -> String {
    if ab {
        format!("{} · {title}", run.label())
    } else {
        title
    }
}

/// The stage's description: what the picture is, and what it shows now (refreshed at the calm
/// tick) once the run has numbers.
pub fn stage_aria(w: &dyn Words, v: Option<&RunView>) -> String {
    let lead = w.t("panels.stage_aria");
    let Some(v) = v else { return lead };
    let now = [
        ("t", format::sim_time(v.now_s)),
        ("queued", v.queued.to_string()),
        ("running", v.running.to_string()),
        ("done", Count::Completed.of(&v.summary.all.requests).to_string()),
    ];
    format!("{lead}. {}", w.tf("panels.stage_aria_now", &now))
}

/// What the charts show: one class (by name) or all, of run A or of both runs.
pub fn charts_scope(w: &dyn Words, class: Option<String>, ab: bool) -> String {
    let runs = if ab { w.t("panels.scope_ab") } else { String::new() };
    match class {
        Some(name) => w.tf("panels.scope_class", &[("name", name), ("runs", runs)]),
        None => w.tf("panels.scope_all", &[("runs", runs)]),
    }
}

/// A run's heading over its metrics ("Run B" in A/B mode), or over its editor ("Scenario B").
pub fn run_heading(w: &dyn Words, alone: &str, of_run: &str, run: Run, ab: bool) -> String {
    if ab {
        w.tf(of_run, &[("run", run.label().to_string())])
    } else {
        w.t(alone)
    }
}

/// When the metrics panel's numbers are from: the simulated time, and whether the run ended.
pub fn metrics_when(w: &dyn Words, v: Option<&RunView>) -> String {
    v.map_or_else(String::new, |v| {
        let key = if v.finished { "metrics.after_finished" } else { "metrics.after" };
        w.tf(key, &[("time", format::sim_time(v.now_s))])
    })
}

/// The key numbers' KV in use: the pool's share held now, and the pool's size beneath.
pub fn kv_key(w: &dyn Words, v: Option<&RunView>, info: Option<&RunInfo>) -> (String, String) {
    let used = v.map_or_else(|| format::NONE.to_string(), |v| format::pct(v.hbm.kv_pool_share()));
    let pool =
        info.map_or_else(String::new, |i| w.tf("metrics.key_pool", &[("size", format::gib(i.plan.kv_capacity_bytes))]));
    (used, pool)
}

/// The configuration-error banner of a draft in words.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorBanner {
    /// "B: 2 settings need a change" (the run's letter in A/B mode).
    pub title: String,
    /// Messages about the whole scenario.
    pub whole: Vec<String>,
    /// Messages about one setting each, named by its label (a class's by its name).
    pub fields: Vec<String>,
}

impl ErrorBanner {
    pub fn of(w: &dyn Words, err: &ScenarioError, class_names: &[String], run: Run, ab: bool) -> ErrorBanner {
        let banner = Banner::of(err);
        let said = |list: &[&sim_core::scenario::FieldError]| {
            list.iter().map(|e| field_message(e, class_names).said(w)).collect()
        };
        let run_label = if ab { w.tf("panels.err_run", &[("run", run.label().to_string())]) } else { String::new() };
        let (key, args) = banner.title();
        ErrorBanner {
            title: format!("{run_label}{}", w.tf(key, &args)),
            whole: said(&banner.whole),
            fields: said(&banner.fields),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Runs;
    use crate::words::Keys;
    use sim_core::{Scenario, Simulation};

    fn scenario() -> Scenario {
        Scenario::from_json(sim_core::presets::find("chat-latency-first").expect("preset").json).expect("valid")
    }

    #[test]
    fn the_stage_is_headed_and_described_by_what_it_shows_now() {
        assert_eq!(stage_heading(Run::B, "Chat".into(), true), "B · Chat");
        assert_eq!(stage_heading(Run::B, "Chat".into(), false), "Chat");
        assert_eq!(stage_aria(&Keys, None), "panels.stage_aria");
        let mut sim = Simulation::new(&scenario()).expect("runs");
        sim.advance_to(10_000_000);
        let v = Runs::new(vec![sim]).views().remove(0);
        let said = stage_aria(&Keys, Some(&v));
        let done = Count::Completed.of(&v.summary.all.requests);
        assert!(
            said.starts_with(&format!("panels.stage_aria. panels.stage_aria_now{{t={},", format::sim_time(v.now_s)))
        );
        assert!(said.ends_with(&format!("running={},done={done}}}", v.running)), "{said}");
    }

    #[test]
    fn the_charts_say_which_class_and_runs_they_show() {
        assert_eq!(charts_scope(&Keys, None, false), "panels.scope_all{runs=}");
        assert_eq!(
            charts_scope(&Keys, Some("chat".into()), true),
            "panels.scope_class{name=chat,runs=panels.scope_ab}"
        );
    }

    #[test]
    fn the_error_banner_splits_whole_scenario_messages_from_settings_and_names_the_run() {
        let mut s = scenario();
        s.scheduler.max_num_seqs = 0;
        s.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: -1.0 };
        let mut err = s.validate().expect_err("invalid");
        // and one about the whole scenario
        let whole = sim_core::scenario::FieldError { field: String::new(), ..err.errors[0].clone() };
        err.errors.push(whole);
        let names = vec![s.classes[0].name.clone()];
        let b = ErrorBanner::of(&Keys, &err, &names, Run::B, true);
        let n = err.errors.iter().filter(|e| !e.field.is_empty()).count();
        assert_eq!(b.fields.len(), n);
        assert_eq!((b.whole.len(), n), (1, err.errors.len() - 1));
        assert_eq!(b.title, "panels.err_run{run=B}panels.err_cannot_run{}");
        assert_eq!(b.fields[0], field_message(&err.errors[0], &names).said(&Keys));
        assert!(!ErrorBanner::of(&Keys, &err, &names, Run::A, false).title.starts_with("panels.err_run"));
    }

    #[test]
    fn the_metrics_panel_says_whose_numbers_and_from_when() {
        assert_eq!(run_heading(&Keys, "metrics.title", "metrics.run", Run::B, true), "metrics.run{run=B}");
        assert_eq!(run_heading(&Keys, "metrics.title", "metrics.run", Run::B, false), "metrics.title");
        assert_eq!(metrics_when(&Keys, None), "");
        assert_eq!((kv_key(&Keys, None, None)), (format::NONE.to_string(), String::new()));
        let sim = Simulation::new(&scenario()).expect("runs");
        let info = RunInfo::of(&sim);
        let mut runs = Runs::new(vec![sim]);
        let mut v = runs.views().remove(0);
        assert_eq!(metrics_when(&Keys, Some(&v)), format!("metrics.after{{time={}}}", format::sim_time(v.now_s)));
        v.finished = true;
        assert!(metrics_when(&Keys, Some(&v)).starts_with("metrics.after_finished{"));
        let (used, pool) = kv_key(&Keys, Some(&v), Some(&info));
        assert_eq!(used, format::pct(v.hbm.kv_pool_share()));
        assert_eq!(pool, format!("metrics.key_pool{{size={}}}", format::gib(info.plan.kv_capacity_bytes)));
    }
}
