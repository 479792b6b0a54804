//! What a lesson's steps show, decided without the DOM: the set-up note (one run on the stage, or
//! A and B on the same or on different traffic), the watch step's timings and count of moments,
//! whether a step waits because the stage shows other runs, and a moment's time label.

use lab_content::lessons::{Lesson, Moment, MomentKind, LESSONS};
use sim_core::Scenario;

use super::lesson::{position, Finished, LessonPanel, Step, Watching};
use super::progress::Progress;
use crate::jobs::RunsProgress;
use crate::transport::{MAX_SPEED, MIN_SPEED};
use crate::words::Words;

impl LessonPanel {
    /// The finished runs as the stage plays them (at the page's speeds), if they are here.
    pub fn watching(&self, lesson: &'static Lesson) -> Option<Watching> {
        self.finished().map(|f| Watching::new(lesson, f.seed, &f.sums, (MIN_SPEED, MAX_SPEED)))
    }
}

impl Finished {
    /// Whether the prediction was the outcome (`None` without a prediction).
    pub fn correct(&self) -> Option<bool> {
        self.predicted.map(|p| p == self.outcome.answer)
    }

    /// The `lesson-completed` event an embedding page receives.
    pub fn completed_event(&self) -> serde_json::Value {
        serde_json::json!({ "id": self.id, "predicted": self.predicted, "answer": self.outcome.answer, "correct": self.correct() })
    }
}

/// What the page does when a lesson's runs finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterRun {
    /// The lesson is still at its run step: its runs play on the stage, the explanation follows.
    Watch,
    /// The learner moved on: the lab on the page runs to its end, so the numbers it shows are
    /// the ones the explanation quotes.
    CatchUp,
    /// The lab on the page has ended already.
    Nothing,
}

impl AfterRun {
    pub fn of(at_run_step: bool, page_finished: bool) -> AfterRun {
        if at_run_step {
            AfterRun::Watch
        } else if !page_finished {
            AfterRun::CatchUp
        } else {
            AfterRun::Nothing
        }
    }
}

/// The set-up step's note: its key, and (runs, shown) when the lesson runs more scenarios than
/// the stage shows.
pub fn setup_note(lesson: &Lesson, seed: u64) -> (&'static str, Option<(usize, usize)>) {
    let runs = lesson.scenarios(seed);
    let same = lesson.watch.windows(2).all(|w| runs[w[0]].scenario.classes == runs[w[1]].scenario.classes);
    let key = match lesson.watch.len() {
        1 => "features.lesson.loaded_one",
        _ if same => "features.lesson.loaded_ab",
        _ => "features.lesson.loaded_ab_other",
    };
    let more = (runs.len() > lesson.watch.len()).then_some((runs.len(), lesson.watch.len()));
    (key, more)
}

impl Watching {
    /// The longest stage run, simulated seconds.
    pub fn longest_s(&self) -> f64 {
        self.durations_s.iter().copied().fold(0.0, f64::max)
    }

    /// About how long the watch takes, wall seconds.
    pub fn wall_s(&self) -> u64 {
        (self.longest_s() / self.speed).round() as u64
    }

    /// The share of the watch played when the furthest stage run is at `now_s`.
    pub fn share(&self, now_s: f64) -> f64 {
        let longest = self.longest_s();
        if longest > 0.0 {
            now_s / longest
        } else {
            1.0
        }
    }

    /// Moments of every stage run passed at `now_s`.
    pub fn noticed(&self, now_s: f64) -> usize {
        (0..self.runs.len()).map(|s| self.passed(s, now_s).count()).sum()
    }

    /// When a moment happened, as the moments list says it: `A · 1.2 s` when two runs are on
    /// the stage, the time alone else (`time` is the formatted simulated time).
    pub fn moment_when(&self, m: &Moment, two_runs: bool, time: String) -> String {
        match self.stage_of(m.run).map(|s| crate::Run::ALL[s.min(1)].label()).filter(|_| two_runs) {
            Some(r) => format!("{r} · {time}"),
            None => time,
        }
    }
}

/// What the run and explain steps show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepShows {
    /// The stage no longer shows the lesson's runs: the lesson waits.
    Paused,
    /// The runs are computing, or play on the stage.
    Watch,
    /// The explanation.
    Explain,
    /// The explain step before its results: computing.
    Computing,
}

impl StepShows {
    /// The run step: paused once there are results and the stage shows other runs.
    pub fn run_step(finished: bool, stage_ok: bool) -> StepShows {
        if finished && !stage_ok {
            StepShows::Paused
        } else {
            StepShows::Watch
        }
    }

    /// The explain step: paused while the stage shows other runs of a watched lesson.
    pub fn explain_step(finished: bool, stage_ok: bool, watched: bool) -> StepShows {
        match finished {
            true if !stage_ok && watched => StepShows::Paused,
            true => StepShows::Explain,
            false => StepShows::Computing,
        }
    }
}

/// The runs a lesson puts on the stage on `seed` ([`Lesson::watch`]: A, then B), each with its
/// variant (the page names the scenario by the variant's words).
pub fn stage_runs(lesson: &Lesson, seed: u64) -> Vec<(Scenario, &'static str)> {
    let runs = lesson.scenarios(seed);
    lesson.watch.iter().filter_map(|&i| runs.get(i).map(|r| (r.scenario.clone(), r.variant))).collect()
}

/// A moment's words: its translation key (`lessons.watch.moment.<kind>`) and its value as the
/// callout says it (a share for the KV pool filling, else a whole count, never below zero).
pub fn moment_words(m: &Moment) -> (String, String) {
    let value = match m.kind {
        MomentKind::KvFull => crate::format::pct(m.value),
        _ => crate::format::int(m.value.max(0.0).round() as u64),
    };
    (format!("lessons.watch.moment.{}", m.kind.name()), value)
}

/// What the explanation marks on the page, once it shows with the runs' results (`have`): the
/// key of the number the lesson points at (`None` before, and for no open lesson), and whether
/// the explanation draws the runs as a sweep chart (the safe-zone lesson).
pub fn explained(lesson: Option<&Lesson>, step: Step, have: bool) -> (Option<&'static str>, bool) {
    let Some(l) = lesson.filter(|_| have && step >= Step::Explain) else { return (None, false) };
    (Some(super::lesson::highlight_key(l.highlight)), step == Step::Explain && l.id == "safe-zone")
}

/// The open lesson moved to another step (not opened, closed or changed): the focus follows the
/// step's new content.
pub fn step_moved(before: Option<&(String, Step)>, now: Option<&(String, Step)>) -> bool {
    matches!((before, now), (Some((a, sa)), Some((b, sb))) if a == b && sa != sb)
}

/// The open lesson's head in words: its place in the list ("2 of 9") and the step's ("Step 3
/// of 5").
pub fn head_words(w: &dyn Words, id: &str, step: Step) -> [String; 2] {
    let place = [("n", (position(id) + 1).to_string()), ("total", LESSONS.len().to_string())];
    let step = [("n", (step.index() + 1).to_string()), ("total", Step::ALL.len().to_string())];
    [w.tf("features.lesson.n_of", &place), w.tf("lessons.step_n", &step)]
}

/// The hint under the lesson list's title: how many lessons there are.
pub fn list_hint(w: &dyn Words) -> String {
    w.tf("features.lesson.list_hint", &[("n", LESSONS.len().to_string())])
}

/// How many of the lessons the learner has run, once there is one.
pub fn progress_count(w: &dyn Words, p: &Progress) -> Option<String> {
    let done = p.done();
    let n = [("done", done.to_string()), ("total", LESSONS.len().to_string())];
    (done > 0).then(|| w.tf("features.lesson.progress.count", &n))
}

/// What the list says of a lesson a preset closed (its title).
pub fn closed_note(w: &dyn Words, id: &str) -> String {
    w.tf("lessons.watch.closed", &[("title", w.t(&format!("lesson.{id}.title")))])
}

/// The lesson's runs computing: how many of them are done.
pub fn runs_progress(w: &dyn Words, p: RunsProgress) -> String {
    w.tf("lessons.progress", &[("done", p.done.to_string()), ("total", p.total.to_string())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_content::lessons::DEFAULT_SEED;

    #[test]
    fn the_head_and_the_list_say_where_the_learner_is() {
        use crate::words::Keys;
        let total = LESSONS.len();
        let second = LESSONS[1].id;
        assert_eq!(
            head_words(&Keys, second, Step::Explain),
            [
                format!("features.lesson.n_of{{n=2,total={total}}}"),
                format!("lessons.step_n{{n={},total={}}}", Step::Explain.index() + 1, Step::ALL.len())
            ]
        );
        assert_eq!(list_hint(&Keys), format!("features.lesson.list_hint{{n={total}}}"));
        let mut p = Progress::default();
        assert_eq!(progress_count(&Keys, &p), None, "nothing run yet: no count");
        p.record(second, true);
        assert_eq!(progress_count(&Keys, &p), Some(format!("features.lesson.progress.count{{done=1,total={total}}}")));
        assert_eq!(closed_note(&Keys, second), format!("lessons.watch.closed{{title=lesson.{second}.title}}"));
        let runs = RunsProgress { done: 2, total: 5, ..Default::default() };
        assert_eq!(runs_progress(&Keys, runs), "lessons.progress{done=2,total=5}");
    }

    #[test]
    fn the_setup_note_says_one_run_or_a_and_b_and_how_many_more_ran() {
        for l in LESSONS {
            let (key, more) = setup_note(l, DEFAULT_SEED);
            let runs = l.scenarios(DEFAULT_SEED).len();
            if l.watch.len() == 1 {
                assert_eq!(key, "features.lesson.loaded_one", "{}", l.id);
            } else {
                assert_ne!(key, "features.lesson.loaded_one", "{}", l.id);
            }
            assert_eq!(more.is_some(), runs > l.watch.len(), "{}", l.id);
        }
    }

    #[test]
    fn the_watch_plays_to_its_longest_run() {
        let l = LESSONS.iter().find(|l| l.watch.len() == 2).expect("a lesson with A and B");
        let mut sums = vec![sim_core::Summary::default(); l.scenarios(DEFAULT_SEED).len()];
        sums[l.watch[0]].duration_s = 100.0;
        sums[l.watch[1]].duration_s = 50.0;
        let w = Watching::new(l, DEFAULT_SEED, &sums, (0.1, 100.0));
        assert_eq!(w.longest_s(), 100.0);
        assert_eq!(w.wall_s(), (100.0 / w.speed).round() as u64);
        assert_eq!(w.share(25.0), 0.25);
        assert_eq!(w.noticed(-1.0), 0);
        let mut empty = w.clone();
        empty.durations_s = vec![0.0, 0.0];
        assert_eq!(empty.share(3.0), 1.0);
        if let Some(m) = w.moments.first() {
            assert_eq!(w.moment_when(m, false, "1 s".into()), "1 s");
            assert!(w.moment_when(m, true, "1 s".into()).ends_with(" · 1 s"));
        }
    }

    #[test]
    fn a_finished_lesson_says_whether_the_prediction_was_right() {
        let l = &LESSONS[0];
        let (sums, outcome) = l.run(DEFAULT_SEED);
        let mut panel = LessonPanel::default();
        panel.follow(Some((l.id, super::super::lesson::Step::Predict)), DEFAULT_SEED);
        assert!(panel.watching(l).is_none());
        panel.choose(outcome.answer);
        let variants = l.scenarios(DEFAULT_SEED).iter().map(|r| r.variant).collect();
        let f = panel.finish(l, variants, sums).clone();
        assert_eq!(f.correct(), Some(true));
        let e = f.completed_event();
        assert_eq!((e["id"].as_str(), e["correct"].as_bool()), (Some(l.id), Some(true)));
        assert_eq!(panel.watching(l).map(|w| w.id), Some(l.id));
        let none = Finished { predicted: None, ..f };
        assert_eq!(none.correct(), None);
        assert!(none.completed_event()["correct"].is_null());
        assert_eq!(AfterRun::of(true, true), AfterRun::Watch);
        assert_eq!(AfterRun::of(false, false), AfterRun::CatchUp);
        assert_eq!(AfterRun::of(false, true), AfterRun::Nothing);
    }

    #[test]
    fn a_step_waits_while_the_stage_shows_other_runs() {
        assert_eq!(StepShows::run_step(true, false), StepShows::Paused);
        assert_eq!(StepShows::run_step(false, false), StepShows::Watch);
        assert_eq!(StepShows::run_step(true, true), StepShows::Watch);
        assert_eq!(StepShows::explain_step(true, false, true), StepShows::Paused);
        assert_eq!(StepShows::explain_step(true, false, false), StepShows::Explain);
        assert_eq!(StepShows::explain_step(false, false, true), StepShows::Computing);
    }

    #[test]
    fn the_stage_gets_the_watched_runs_and_a_moment_its_words() {
        for l in LESSONS {
            let runs = stage_runs(l, DEFAULT_SEED);
            assert_eq!(runs.len(), l.watch.len(), "{}", l.id);
            let all = l.scenarios(DEFAULT_SEED);
            for ((s, v), &i) in runs.iter().zip(l.watch) {
                assert_eq!((s, *v), (&all[i].scenario, all[i].variant), "{}", l.id);
            }
            let plain: Vec<Scenario> = runs.into_iter().map(|(s, _)| s).collect();
            assert_eq!(super::super::lesson::stage_scenarios(l, DEFAULT_SEED), plain);
        }
        let m = |kind, value| Moment { run: 0, variant: "a", at_us: 1, kind, value };
        let (key, value) = moment_words(&m(MomentKind::KvFull, 0.95));
        assert_eq!((key.as_str(), value), ("lessons.watch.moment.kv_full", crate::format::pct(0.95)));
        assert_eq!(moment_words(&m(MomentKind::QueueFills, 1234.6)).1, crate::format::int(1235));
        assert_eq!(moment_words(&m(MomentKind::FirstRejected, -2.0)).1, "0");
    }

    #[test]
    fn the_explanation_points_at_its_number_only_with_results() {
        let l = LESSONS.iter().find(|l| l.id == "safe-zone").expect("the safe-zone lesson");
        let key = super::super::lesson::highlight_key(l.highlight);
        assert_eq!(explained(Some(l), Step::Explain, true), (Some(key), true));
        assert_eq!(explained(Some(l), Step::Play, true), (Some(key), false));
        assert_eq!(explained(Some(l), Step::Explain, false), (None, false));
        assert_eq!(explained(Some(l), Step::Run, true), (None, false));
        assert_eq!(explained(None, Step::Explain, true), (None, false));
        let other = LESSONS.iter().find(|l| l.id != "safe-zone").unwrap();
        assert!(!explained(Some(other), Step::Explain, true).1);
        let at = |id: &str, s| Some((id.to_string(), s));
        assert!(step_moved(at("a", Step::Setup).as_ref(), at("a", Step::Predict).as_ref()));
        assert!(!step_moved(at("a", Step::Setup).as_ref(), at("b", Step::Predict).as_ref()));
        assert!(!step_moved(at("a", Step::Setup).as_ref(), at("a", Step::Setup).as_ref()));
        assert!(!step_moved(None, at("a", Step::Predict).as_ref()));
        assert!(!step_moved(at("a", Step::Run).as_ref(), None));
    }
}
