//! An exercise's metrics and controls as a card says them: a summary path's name (translation
//! key and class), its value formatted for its unit, the controls a card lists as allowed or as
//! locked by the teacher, and the controls a run changed under a lock (it does not count).

use lab_content::exercise::Exercise;
use sim_core::metric::Direction;

use crate::format;
use crate::locks;

/// A summary path's metric in words: its class (`classes.chat.ttft_ms.p99` → `chat`), and the
/// key of its name, or the path itself when the page has no words for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricName<'a> {
    pub class: Option<&'a str>,
    pub name: Result<&'static str, &'a str>,
}

/// The words for summary path `path`.
pub fn metric_name(path: &str) -> MetricName<'_> {
    let (class, rest) = match path.strip_prefix("classes.").and_then(|r| r.split_once('.')) {
        Some((c, rest)) => (Some(c), rest),
        None => (None, path),
    };
    let name = sim_core::Metric::parse(rest).and_then(crate::panels::defs::name_of).ok_or(rest);
    MetricName { class, name }
}

/// Every key [`metric_name`] gives.
pub fn metric_keys() -> Vec<&'static str> {
    crate::panels::defs::NAMES.iter().map(|(_, k)| *k).collect()
}

/// A metric's value in its unit (`format::in_unit`); a path no metric has, plain.
pub fn metric_value(path: &str, v: f64) -> String {
    match sim_core::metric::MetricRef::parse(path) {
        Ok(r) => format::in_unit(r.metric.unit(), v),
        Err(_) => format::plain(v),
    }
}

/// The controls (lock ids, or plain paths) a run changed under a lock, each once: a run that
/// changed any does not count as an attempt.
pub fn changed_under_locks(changed: &[String], locked: &[String]) -> Vec<String> {
    let mut out: Vec<String> =
        changed.iter().filter(|p| locked.iter().any(|l| locks::covers(l, p))).map(|p| super::control_of(p)).collect();
    out.dedup();
    out
}

/// The controls an exercise card lists: those the learner may change under `locked` (the
/// teacher's locks), then those of the exercise the teacher's locks take away.
pub fn card_controls<'a>(ex: &'a Exercise, locked: &[String]) -> (Vec<&'a str>, Vec<&'a str>) {
    let allowed = super::allowed_under(ex, locked);
    let by_teacher = ex.allowed.iter().map(String::as_str).filter(|a| !allowed.contains(a)).collect();
    (allowed, by_teacher)
}

/// The finished runs an open exercise has looked at: each counts once as an attempt (by the
/// exercise and the page's restart count when it ended).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunsSeen(Option<(String, u32)>);

impl RunsSeen {
    /// Exercise `id` starts with the run at restart `restarts` (that run is not an attempt).
    pub fn start(&mut self, id: &str, restarts: u32) {
        self.0 = Some((id.to_string(), restarts));
    }

    /// Whether the run of exercise `id` that ended at restart `restarts` is new (then it is seen).
    pub fn first_look(&mut self, id: &str, restarts: u32) -> bool {
        let now = Some((id.to_string(), restarts));
        let new = self.0 != now;
        self.0 = now;
        new
    }
}

/// The objective's sentence on a card: maximise or minimise its metric (`{metric}`).
pub fn objective_key(ex: &Exercise) -> Option<&'static str> {
    let o = ex.objective.as_ref()?;
    Some(if o.direction == Direction::Max { "features.ex.maximise" } else { "features.ex.minimise" })
}

/// A card's best-score line: the best passing attempt's score with its unit, or that there is
/// none yet.
pub fn best_line(ex: &Exercise, recs: &[super::Record]) -> (&'static str, Vec<(&'static str, String)>) {
    let metric = ex.objective.as_ref().map(|o| o.metric.to_string()).unwrap_or_default();
    match super::best(ex, recs) {
        Some(v) => ("features.ex.best", vec![("score", metric_value(&metric, v))]),
        None => ("features.ex.no_best", Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_content::exercise::exercises;

    #[test]
    fn a_card_says_its_objective_and_best_score() {
        for ex in exercises() {
            let key = objective_key(&ex);
            assert_eq!(key.is_some(), ex.objective.is_some(), "{}", ex.id);
            if let Some(o) = &ex.objective {
                let max = o.direction == Direction::Max;
                assert_eq!(key, Some(if max { "features.ex.maximise" } else { "features.ex.minimise" }));
            }
            assert_eq!(best_line(&ex, &[]), ("features.ex.no_best", vec![]));
        }
        let ex = exercises().into_iter().find(|e| e.objective.is_some()).unwrap();
        let metric = ex.objective.as_ref().unwrap().metric.to_string();
        let rec = |pass, score| super::super::Record {
            time_ms: 0.0,
            pass,
            score: Some(score),
            goals: vec![],
            settings: vec![],
            seed: None,
            code: None,
        };
        let (key, args) = best_line(&ex, &[rec(true, 2.5), rec(false, 0.001)]);
        assert_eq!((key, args), ("features.ex.best", vec![("score", metric_value(&metric, 2.5))]));
    }

    #[test]
    fn a_class_path_names_its_class_and_an_unknown_metric_is_its_path() {
        let n = metric_name("classes.chat.ttft_ms.p99");
        assert_eq!(n, MetricName { class: Some("chat"), name: Ok("features.num.ttft_p99") });
        assert_eq!(metric_name("goodput.slo_attainment").name, Ok("features.num.attainment"));
        assert_eq!(metric_name("goodput.slo_attainment").class, None);
        assert_eq!(metric_name("memory.kv_peak_bytes").name, Ok("features.num.kv_peak"));
        assert_eq!(metric_name("memory.hbm_bytes").name, Err("memory.hbm_bytes"));
        assert_eq!(metric_name("classes.chat").class, None);
    }

    #[test]
    fn values_carry_their_units() {
        assert_eq!(metric_value("ttft_ms.p99", 1200.0), format::ms(1200.0));
        assert_eq!(metric_value("goodput.slo_attainment", 0.5), format::pct(0.5));
        assert_eq!(metric_value("cost.usd_per_million_good_tokens", 1.5), format::usd(1.5));
        assert_eq!(metric_value("throughput.output_tokens_per_s", 1000.0), format!("{} tok/s", format::rate(1000.0)));
        assert_eq!(metric_value("requests.oom_restarts", 3.0), format::plain(3.0));
        // a class's metric, and a metric no goal had words for, by the unit their row declares
        assert_eq!(metric_value("classes.chat.ttft_ms.p99", 80.0), format::ms(80.0));
        assert_eq!(metric_value("goodput_share", 0.25), format::pct(0.25));
        assert_eq!(metric_value("no.such.metric", 2.0), "2");
    }

    #[test]
    fn every_goal_of_every_exercise_has_words() {
        for ex in exercises() {
            for g in &ex.goals {
                let path = g.metric.to_string();
                assert!(metric_name(&path).name.is_ok(), "{}: no words for {path}", ex.id);
            }
        }
    }

    #[test]
    fn a_change_under_a_lock_is_named_once_and_free_changes_are_not() {
        let changed = vec!["seed".to_string(), "seed".to_string(), "scheduler.max_num_seqs".to_string()];
        let locked = vec!["seed".to_string()];
        assert_eq!(changed_under_locks(&changed, &locked), vec!["seed".to_string()]);
        assert!(changed_under_locks(&changed, &[]).is_empty());
    }

    #[test]
    fn the_teachers_locks_move_controls_from_allowed_to_locked() {
        let ex = exercises().into_iter().find(|e| e.allowed.len() >= 2).expect("an exercise allowing two controls");
        let (allowed, by_teacher) = card_controls(&ex, &[]);
        assert_eq!(allowed.len(), ex.allowed.len());
        assert!(by_teacher.is_empty());
        let first = ex.allowed[0].clone();
        let (allowed, by_teacher) = card_controls(&ex, std::slice::from_ref(&first));
        assert!(!allowed.contains(&first.as_str()));
        assert_eq!(by_teacher, vec![first.as_str()]);
    }

    #[test]
    fn each_finished_run_counts_once() {
        let mut seen = RunsSeen::default();
        seen.start("a", 3);
        assert!(!seen.first_look("a", 3), "the run the exercise started with");
        assert!(seen.first_look("a", 4));
        assert!(!seen.first_look("a", 4));
        assert!(seen.first_look("b", 4));
    }
}
