//! The exercises tab in the page's words (through a [`Words`] translator): an exercise's title
//! and task, a control's and a metric's names, a goal, a card's lines, an attempt's row, what a
//! checked result code says and a row of the class table. The page only lays them out.

use lab_content::exercise::{CodeCheck, Exercise, Goal, ResultCode};

use super::{
    best_line, card_controls, code_changes, control_key, metric_name, metric_value, objective_key, text_keys, ClassRow,
    Record, SolutionLine,
};
use crate::format::{self, NONE};
use crate::words::Words;

/// The built-in exercise `id`.
pub fn exercise(id: &str) -> Option<Exercise> {
    lab_content::exercise::exercises().into_iter().find(|e| e.id == id)
}

/// A control by its label (a lock id the lock table does not name, as itself).
pub fn control(w: &dyn Words, id: &str) -> String {
    control_key(id).map_or_else(|| id.to_string(), |k| w.t(k))
}

/// Controls by their labels, joined with `sep`.
pub fn controls<S: AsRef<str>>(w: &dyn Words, ids: &[S], sep: &str) -> String {
    ids.iter().map(|c| control(w, c.as_ref())).collect::<Vec<_>>().join(sep)
}

/// A summary path in words: `classes.chat.ttft_ms.p99` → "p99 TTFT of class chat".
pub fn metric(w: &dyn Words, path: &str) -> String {
    let m = metric_name(path);
    let name = m.name.map_or_else(str::to_string, |k| w.t(k));
    match m.class {
        Some(c) => w.tf("features.ex.of_class", &[("metric", name), ("class", c.to_string())]),
        None => name,
    }
}

/// A measured value of a summary path in its unit, or "—" when there is none.
pub fn value(path: &str, v: Option<f64>) -> String {
    v.map_or_else(|| NONE.to_string(), |v| metric_value(path, v))
}

/// A goal: "p99 TTFT ≤ 500 ms".
pub fn goal(w: &dyn Words, g: &Goal) -> String {
    let m = g.metric.to_string();
    format!("{} {} {}", metric(w, &m), g.op.symbol(), metric_value(&m, g.value))
}

pub fn title(w: &dyn Words, ex: &Exercise) -> String {
    match text_keys(&ex.id) {
        Some(k) => w.t(k.title),
        None => ex.scenario.name.clone().unwrap_or_else(|| ex.id.clone()),
    }
}

pub fn task(w: &dyn Words, ex: &Exercise) -> String {
    text_keys(&ex.id).map(|k| w.t(k.task)).unwrap_or_default()
}

/// What the toolbar's preset box names while a lesson or an exercise is open (what is on the
/// stage is theirs, not the preset's).
pub fn open_name(w: &dyn Words, lesson: Option<&str>, exercise_id: Option<&str>) -> Option<String> {
    if let Some(id) = lesson {
        return Some(w.tf("features.lesson.preset", &[("name", w.t(&format!("lesson.{id}.title")))]));
    }
    let ex = exercise(exercise_id?)?;
    Some(w.tf("features.class.preset", &[("name", title(w, &ex))]))
}

/// "Pass" or "Fail".
pub fn verdict(w: &dyn Words, pass: bool) -> String {
    w.t(if pass { "features.contract.pass" } else { "features.contract.fail" })
}

/// A reference solution's setting by its control (and class).
pub fn solution_name(w: &dyn Words, l: &SolutionLine) -> String {
    let control = l.label.map_or_else(|| l.path.clone(), |k| w.t(k));
    match &l.class {
        Some(class) => w.tf("features.ex.solution.class", &[("control", control), ("class", class.clone())]),
        None => control,
    }
}

/// Settings as a line: "as given" when there are none.
fn settings_line(w: &dyn Words, settings: &[String]) -> String {
    if settings.is_empty() {
        w.t("features.ex.as_given")
    } else {
        settings.join("; ")
    }
}

/// The lines of an exercise's card.
#[derive(Clone, Debug, PartialEq)]
pub struct Card {
    pub title: String,
    pub task: String,
    pub goals: Vec<String>,
    pub objective: Option<String>,
    /// The controls the learner may change.
    pub allowed: String,
    /// The exercise's controls the teacher's locks take away.
    pub by_teacher: Option<String>,
    pub best: String,
}

/// A card under the teacher's locks `teacher_locks`, with attempts `recs`.
pub fn card(w: &dyn Words, ex: &Exercise, teacher_locks: &[String], recs: &[Record]) -> Card {
    let (allowed, by_teacher) = card_controls(ex, teacher_locks);
    let objective = ex.objective.as_ref().zip(objective_key(ex)).map(|(o, key)| {
        let m = metric(w, &o.metric.to_string());
        w.tf(key, &[("metric", m)])
    });
    let (key, args) = best_line(ex, recs);
    Card {
        title: title(w, ex),
        task: task(w, ex),
        goals: ex.goals.iter().map(|g| goal(w, g)).collect(),
        objective,
        allowed: controls(w, &allowed, " · "),
        by_teacher: (!by_teacher.is_empty())
            .then(|| w.tf("features.class.teacher_locked", &[("controls", controls(w, &by_teacher, " · "))])),
        best: w.tf(key, &args),
    }
}

/// The attempts table's column heads.
pub fn attempt_heads(w: &dyn Words) -> Vec<String> {
    let keys = [
        "features.ex.col.time",
        "features.contract.col.result",
        "features.ex.col.score",
        "features.ex.col.goals",
        "features.ex.col.settings",
        "features.class.col.code",
    ];
    std::iter::once("#".to_string()).chain(keys.map(|k| w.t(k))).collect()
}

/// A goal's line in an attempt's row.
#[derive(Clone, Debug, PartialEq)]
pub struct GoalSaid {
    pub metric: String,
    /// The measured value as the data attribute holds it.
    pub raw: String,
    pub met: bool,
    /// "p99 TTFT: 420 ms".
    pub text: String,
}

/// An attempt's row in words.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptSaid {
    pub verdict: String,
    pub score: String,
    pub goals: Vec<GoalSaid>,
    pub settings: String,
    pub seed: Option<String>,
}

/// Attempt `r` at an exercise whose objective is `objective` (a summary path).
pub fn attempt(w: &dyn Words, r: &Record, objective: &str) -> AttemptSaid {
    let goals = r
        .goals
        .iter()
        .map(|(m, v, met)| GoalSaid {
            metric: m.clone(),
            raw: super::raw(*v),
            met: *met,
            text: format!("{}: {}", metric(w, m), value(m, *v)),
        })
        .collect();
    AttemptSaid {
        verdict: verdict(w, r.pass),
        score: value(objective, r.score),
        goals,
        settings: settings_line(w, &r.settings),
        seed: r.seed.map(|s| w.tf("features.class.seed", &[("seed", s.to_string())])),
    }
}

/// A run that changed controls outside the exercise's: why it does not count.
pub fn not_counted(w: &dyn Words, outside: &[String]) -> String {
    w.tf("features.ex.not_counted", &[("controls", controls(w, outside, ", "))])
}

/// A re-run result code in words.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSaid {
    /// Its box's class and state (`verified` or `mismatch`) and its sentence.
    pub class: &'static str,
    pub state: &'static str,
    pub text: String,
    /// Which exercise, on which seed, and whether the re-run passed.
    pub exercise: String,
    pub settings: String,
    /// Each claim: the number, claimed, re-run, equal.
    pub rows: Vec<(String, String, String, bool)>,
}

pub fn check(w: &dyn Words, code: &ResultCode, ex: &Exercise, check: &CodeCheck) -> CheckSaid {
    let (class, state, text) = if check.verified {
        ("banner ok small", "verified", w.t("features.class.code.verified"))
    } else {
        let wrong: Vec<String> =
            check.lines.iter().filter(|l| !l.equal).map(|l| metric(w, &l.metric.to_string())).collect();
        ("banner error small", "mismatch", w.tf("features.class.code.mismatch", &[("metrics", wrong.join(", "))]))
    };
    let settings: Vec<String> = code_changes(code).iter().map(|(c, v)| format!("{} = {v}", control(w, c))).collect();
    let which = w.tf("features.class.verify.exercise", &[("title", title(w, ex)), ("seed", code.seed.to_string())]);
    let rows = check
        .lines
        .iter()
        .map(|l| {
            let m = l.metric.to_string();
            (metric(w, &m), value(&m, l.claimed), value(&m, l.rerun), l.equal)
        })
        .collect();
    CheckSaid {
        class,
        state,
        text,
        exercise: format!("{which} · {}", verdict(w, check.attempt.pass)),
        settings: w.tf("features.class.verify.settings", &[("settings", settings_line(w, &settings))]),
        rows,
    }
}

/// A row of the class table: name, exercise, verdict, pass, score.
pub fn class_row(w: &dyn Words, r: &ClassRow) -> [String; 5] {
    let none = || NONE.to_string();
    [
        r.name.clone().unwrap_or_else(none),
        r.exercise.as_deref().and_then(exercise).map_or_else(none, |e| title(w, &e)),
        w.t(&format!("features.class.table.v.{}", r.verdict.id())),
        r.pass.map_or_else(none, |p| verdict(w, p)),
        r.score.map_or_else(none, format::rate),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::Keys;
    use lab_content::exercise::exercises;

    fn rec(settings: Vec<String>, score: Option<f64>) -> Record {
        Record {
            time_ms: 0.0,
            pass: true,
            score,
            goals: vec![("goodput.slo_attainment".into(), Some(0.5), true), ("ttft_ms.p99".into(), None, false)],
            settings,
            seed: Some(7),
            code: None,
        }
    }

    #[test]
    fn metrics_and_controls_are_named_by_their_words_or_as_themselves() {
        let key = metric_name("ttft_ms.p99").name.expect("p99 TTFT has words");
        assert_eq!(metric(&Keys, "ttft_ms.p99"), key);
        assert_eq!(
            metric(&Keys, "classes.chat.ttft_ms.p99"),
            format!("features.ex.of_class{{metric={key},class=chat}}")
        );
        assert_eq!(metric(&Keys, "no.such.metric"), "no.such.metric");
        let (id, label) = crate::locks::LOCKABLE[0];
        assert_eq!(control(&Keys, id), label);
        assert_eq!(controls(&Keys, &[id, "not-a-control"], ", "), format!("{label}, not-a-control"));
        assert_eq!(not_counted(&Keys, &["x".to_string()]), "features.ex.not_counted{controls=x}");
        assert_eq!(value("ttft_ms.p99", None), NONE);
    }

    #[test]
    fn a_card_lists_goals_objective_and_what_the_teacher_took_away() {
        for ex in exercises() {
            let c = card(&Keys, &ex, &[], &[]);
            let keys = text_keys(&ex.id).expect("built-in");
            assert_eq!((c.title.as_str(), c.task.as_str()), (keys.title, keys.task));
            assert_eq!(c.goals.len(), ex.goals.len());
            assert_eq!(c.objective.is_some(), ex.objective.is_some());
            assert_eq!(c.by_teacher, None);
            assert_eq!(c.best, "features.ex.no_best{}");
            assert_eq!(c.allowed.split(" · ").count(), ex.allowed.len(), "{}", ex.id);
            // a teacher who locks the first allowed control takes it off the list
            let first = ex.allowed[0].clone();
            let c = card(&Keys, &ex, std::slice::from_ref(&first), &[]);
            let taken = format!("features.class.teacher_locked{{controls={}}}", control(&Keys, &first));
            assert_eq!(c.by_teacher, Some(taken));
            assert!(!c.allowed.split(" · ").any(|a| a == control(&Keys, &first)));
        }
        let ex = exercise("mixed-20").expect("mixed-20");
        let g = &ex.goals[0];
        assert!(goal(&Keys, g).contains(&format!(
            " {} {}",
            g.op.symbol(),
            metric_value(&g.metric.to_string(), g.value)
        )));
    }

    #[test]
    fn an_attempt_says_its_goals_settings_and_seed() {
        let a = attempt(&Keys, &rec(vec![], None), "goodput.slo_attainment");
        assert_eq!(a.verdict, "features.contract.pass");
        assert_eq!(a.score, NONE);
        assert_eq!(a.settings, "features.ex.as_given");
        assert_eq!(a.seed.as_deref(), Some("features.class.seed{seed=7}"));
        assert_eq!(a.goals.len(), 2);
        assert!(a.goals[0].met && !a.goals[1].met);
        assert_eq!(a.goals[1].text, format!("{}: {NONE}", metric(&Keys, "ttft_ms.p99")));
        assert_eq!(a.goals[0].raw, crate::tabs::exercise::raw(Some(0.5)));
        let a = attempt(&Keys, &rec(vec!["a = 1".into(), "b = 2".into()], Some(0.5)), "goodput.slo_attainment");
        assert_eq!(a.settings, "a = 1; b = 2");
        assert_eq!(a.score, metric_value("goodput.slo_attainment", 0.5));
        assert_eq!(attempt_heads(&Keys).len(), 7);
    }

    #[test]
    fn the_open_lesson_or_exercise_names_the_preset_box() {
        assert_eq!(
            open_name(&Keys, Some("ttft-vs-tpot"), Some("mixed-20")).as_deref(),
            Some("features.lesson.preset{name=lesson.ttft-vs-tpot.title}")
        );
        assert_eq!(
            open_name(&Keys, None, Some("mixed-20")).as_deref(),
            Some("features.class.preset{name=features.ex.mixed-20.title}")
        );
        assert_eq!(open_name(&Keys, None, Some("nope")), None);
        assert_eq!(open_name(&Keys, None, None), None);
    }

    #[test]
    fn a_class_row_says_dashes_for_what_is_unknown() {
        let row = ClassRow {
            code: "c".into(),
            name: None,
            exercise: Some("mixed-20".into()),
            verdict: super::super::RowVerdict::Verified,
            pass: Some(false),
            score: None,
        };
        let said = class_row(&Keys, &row);
        assert_eq!(said[0], NONE);
        assert_eq!(said[1], "features.ex.mixed-20.title");
        assert_eq!(said[2], format!("features.class.table.v.{}", row.verdict.id()));
        assert_eq!(said[3], "features.contract.fail");
        assert_eq!(said[4], NONE);
    }
}
