//! The lessons tab's state: the steps of a guided lesson, the learner's prediction, the runs'
//! results and what the panel does when the open lesson or its step changes.

use lab_content::lessons::{self, Lesson, Moment, Outcome, LESSONS};
use sim_core::metric::{Count, Latency, Metric, Stat};
use sim_core::{Scenario, Summary};

use crate::jobs::RunsProgress;

/// The steps of a lesson, in order: set up (the lesson's scenario on the stage) → predict → run
/// (in slices) → explain (the runs' numbers, and where to look on the page) → play freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Step {
    #[default]
    Setup,
    Predict,
    Run,
    Explain,
    Play,
}

impl Step {
    pub const ALL: [Step; 5] = [Step::Setup, Step::Predict, Step::Run, Step::Explain, Step::Play];

    /// Position, 0-based: share links and the page's `data-step` carry it.
    pub fn index(self) -> u32 {
        match self {
            Step::Setup => 0,
            Step::Predict => 1,
            Step::Run => 2,
            Step::Explain => 3,
            Step::Play => 4,
        }
    }

    /// The step at a position; past the last is the last.
    pub fn at(i: u32) -> Step {
        Step::ALL[(i as usize).min(Step::ALL.len() - 1)]
    }

    /// Translation key of the step's name in the stepper.
    pub fn key(self) -> &'static str {
        match self {
            Step::Setup => "features.lesson.step.setup",
            Step::Predict => "features.lesson.step.predict",
            Step::Run => "features.lesson.step.run",
            Step::Explain => "features.lesson.step.explain",
            Step::Play => "features.lesson.step.play",
        }
    }

    /// The step shows the runs' results (and starts them when there are none).
    pub fn needs_results(self) -> bool {
        matches!(self, Step::Run | Step::Explain)
    }

    /// Before the learner has predicted: the stage holds the lesson's set-up at t = 0 (nothing
    /// plays, no number shows) and the lesson's claim stays hidden, so nothing gives the answer
    /// away.
    pub fn before_prediction(self) -> bool {
        matches!(self, Step::Setup | Step::Predict)
    }

    /// The lesson's claim (the answer it teaches, in words) shows with the outcome, never before.
    pub fn shows_claim(self) -> bool {
        self >= Step::Explain
    }
}

/// How the stepper marks a step, seen from the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Done,
    Current,
    Todo,
}

impl Mark {
    pub fn of(step: Step, current: Step) -> Mark {
        match step.cmp(&current) {
            std::cmp::Ordering::Less => Mark::Done,
            std::cmp::Ordering::Equal => Mark::Current,
            std::cmp::Ordering::Greater => Mark::Todo,
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Mark::Done => "st-done",
            Mark::Current => "st-current",
            Mark::Todo => "st-todo",
        }
    }

    /// What the stepper's dot of `step` shows: a tick once done, else the step's number.
    pub fn dot(self, step: Step) -> String {
        if self == Mark::Done {
            "✓".into()
        } else {
            (step.index() + 1).to_string()
        }
    }

    /// The `aria-current` of the step: `step` on the current one.
    pub fn aria_current(self) -> Option<&'static str> {
        (self == Mark::Current).then_some("step")
    }
}

/// What the explanation says about the prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    Right,
    Other,
    /// No prediction was made.
    None,
}

impl Feedback {
    pub fn class(self) -> &'static str {
        match self {
            Feedback::Right => "right",
            Feedback::Other => "other",
            Feedback::None => "none",
        }
    }

    /// The page's `data-correct`.
    pub fn correct(self) -> &'static str {
        match self {
            Feedback::Right => "true",
            Feedback::Other => "false",
            Feedback::None => "none",
        }
    }

    pub fn icon(self) -> &'static str {
        match self {
            Feedback::Right => "✓",
            Feedback::Other => "↻",
            Feedback::None => "",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Feedback::Right => "lessons.correct",
            Feedback::Other => "lessons.incorrect",
            Feedback::None => "features.lesson.no_prediction",
        }
    }
}

/// A lesson's runs, finished.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub id: &'static str,
    /// The seed the runs used (the page's seed when they started).
    pub seed: u64,
    pub variants: Vec<&'static str>,
    pub sums: Vec<Summary>,
    pub outcome: Outcome,
    pub predicted: Option<usize>,
}

impl Finished {
    pub fn feedback(&self) -> Feedback {
        match self.predicted {
            Some(p) if p == self.outcome.answer => Feedback::Right,
            Some(_) => Feedback::Other,
            None => Feedback::None,
        }
    }
}

/// The page's key for the number a lesson highlights (sim-core names it as a metric; the page
/// maps the key to the elements it marks).
pub fn highlight_key(m: Metric) -> &'static str {
    match m {
        Metric::TTFT_P99 => "ttft.p99",
        Metric::Latency(Latency::Ttft, Stat::Mean) => "ttft.mean",
        Metric::PrefixHitRate => "prefix.hit",
        Metric::Latency(Latency::Itl, Stat::P99) => "itl.p99",
        Metric::Latency(Latency::Tpot, Stat::Mean) => "tpot.mean",
        Metric::GoodputTokens => "goodput",
        Metric::KvPeakBytes => "hbm",
        Metric::Requests(Count::OomRestarts) => "oom",
        Metric::UsdPerMillionGoodTokens => "cost",
        _ => "",
    }
}

/// 0-based position of a lesson in teaching order.
pub fn position(id: &str) -> usize {
    LESSONS.iter().position(|l| l.id == id).unwrap_or(0)
}

/// The lesson after this one.
pub fn next(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().position(|l| l.id == id).and_then(|i| LESSONS.get(i + 1))
}

/// What the panel must do after the open lesson or its step changed.
#[derive(Clone, Copy)]
pub enum Follow {
    Nothing,
    /// Stop the running job (the lesson was closed or another one opened).
    Cancel,
    /// Start the lesson's runs (its step needs results the panel does not have).
    Start(&'static Lesson),
    /// Cancel, then start.
    Restart(&'static Lesson),
    /// No such lesson: close it.
    Close,
}

/// The panel's own state for the open lesson.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LessonPanel {
    /// The lesson whose prediction and results this holds.
    pub adopted: Option<&'static str>,
    /// The page's seed: the lesson runs on it, and results from another seed are stale.
    pub seed: u64,
    pub prediction: Option<usize>,
    pub result: Option<Finished>,
    pub running: bool,
    pub progress: Option<RunsProgress>,
    pub error: Option<String>,
}

impl LessonPanel {
    /// Follows the open lesson, its step and the page's seed: a newly opened lesson starts clean;
    /// the run and explain steps need results of this seed (a new seed runs the lesson again, so
    /// the text always quotes what the panels show).
    pub fn follow(&mut self, open: Option<(&str, Step)>, seed: u64) -> Follow {
        let Some((id, step)) = open else {
            if self.adopted.take().is_some() {
                self.running = false;
                return Follow::Cancel;
            }
            return Follow::Nothing;
        };
        let Some(lesson) = lessons::find(id) else { return Follow::Close };
        let mut cancel = false;
        if self.adopted != Some(lesson.id) {
            cancel = self.adopted.is_some() || self.running;
            *self = LessonPanel { adopted: Some(lesson.id), seed, ..LessonPanel::default() };
        } else if self.seed != seed {
            cancel = self.running;
            self.seed = seed;
            self.result = None;
            self.running = false;
        }
        if step.needs_results() && self.finished().is_none() && !self.running {
            return if cancel { Follow::Restart(lesson) } else { Follow::Start(lesson) };
        }
        if cancel {
            Follow::Cancel
        } else {
            Follow::Nothing
        }
    }

    /// The results of the adopted lesson, if its runs finished.
    pub fn finished(&self) -> Option<&Finished> {
        self.result.as_ref().filter(|f| Some(f.id) == self.adopted && f.seed == self.seed)
    }

    pub fn choose(&mut self, choice: usize) {
        self.prediction = Some(choice);
    }

    /// Running needs a prediction first.
    pub fn can_run(&self) -> bool {
        self.prediction.is_some()
    }

    /// The runs started: `total` of them.
    pub fn started(&mut self, total: usize) {
        self.running = true;
        self.error = None;
        self.progress = Some(RunsProgress { done: 0, total, share: 0.0 });
    }

    /// The runs finished: the outcome sim-core reads from them.
    pub fn finish(&mut self, lesson: &'static Lesson, variants: Vec<&'static str>, sums: Vec<Summary>) -> &Finished {
        let outcome = (lesson.outcome)(&sums);
        let total = sums.len();
        self.progress = Some(RunsProgress { done: total, total, share: 1.0 });
        self.running = false;
        self.result.insert(Finished {
            id: lesson.id,
            seed: self.seed,
            variants,
            sums,
            outcome,
            predicted: self.prediction,
        })
    }

    pub fn failed(&mut self, message: String) {
        self.error = Some(message);
        self.running = false;
    }

    pub fn cancelled(&mut self) {
        self.running = false;
    }

    /// Predict again: no prediction, no results.
    pub fn again(&mut self) {
        self.result = None;
        self.prediction = None;
    }
}

/// Wall-clock seconds a lesson's run takes to play on the stage (the speed is chosen for it).
pub const WATCH_S: f64 = 25.0;

/// The speed (simulated seconds per wall second, within the page's `min..=max`) at which a run
/// of `duration_s` simulated seconds plays in about [`WATCH_S`].
pub fn watch_speed(duration_s: f64, min: f64, max: f64) -> f64 {
    let v = if duration_s.is_finite() && duration_s > 0.0 { duration_s / WATCH_S } else { 1.0 };
    // two significant digits, so the toolbar shows what the stage does
    let scale = 10f64.powi(1 - v.log10().floor() as i32);
    ((v * scale).round() / scale).clamp(min, max)
}

/// The lesson's runs playing on the stage while the learner watches, and what to notice in them.
#[derive(Clone, Debug, PartialEq)]
pub struct Watching {
    pub id: &'static str,
    pub seed: u64,
    /// The lesson's runs on the stage, A then B (positions in [`Lesson::scenarios`]).
    pub runs: Vec<usize>,
    /// Each stage run's simulated length, seconds.
    pub durations_s: Vec<f64>,
    pub moments: Vec<Moment>,
    pub speed: f64,
}

impl Watching {
    /// From the finished runs' summaries (in the lesson's order): the stage's runs, their length
    /// and the speed that plays the longest in about [`WATCH_S`].
    pub fn new(lesson: &'static Lesson, seed: u64, sums: &[Summary], speeds: (f64, f64)) -> Watching {
        let runs = lesson.watch.to_vec();
        let durations_s: Vec<f64> = runs.iter().map(|&i| sums.get(i).map_or(0.0, |s| s.duration_s)).collect();
        let longest = durations_s.iter().copied().fold(0.0, f64::max);
        Watching {
            id: lesson.id,
            seed,
            runs,
            durations_s,
            moments: lesson.moments(seed),
            speed: watch_speed(longest, speeds.0, speeds.1),
        }
    }

    /// The stage position (0 = A, 1 = B) of the lesson's run `run`.
    pub fn stage_of(&self, run: usize) -> Option<usize> {
        self.runs.iter().position(|&r| r == run)
    }

    /// The moments of stage run `stage` that playback has passed at `now_s`, in time order.
    pub fn passed(&self, stage: usize, now_s: f64) -> impl Iterator<Item = &Moment> + '_ {
        let run = self.runs.get(stage).copied();
        let now_us = (now_s.max(0.0) * 1e6).round() as u64;
        self.moments.iter().filter(move |m| Some(m.run) == run && m.at_us <= now_us)
    }
}

/// What the stage and the open lesson are doing, shared by the lesson panel and the stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WatchState {
    pub watching: Option<Watching>,
    /// A lesson closed because the learner chose a preset: its id, so the page can say so and
    /// offer to reopen it.
    pub closed_by_preset: Option<&'static str>,
}

impl WatchState {
    /// The learner chose a preset: an open lesson closes (its runs are no longer on the stage).
    /// Returns whether it closed one.
    pub fn preset_chosen(&mut self, open: Option<&str>) -> bool {
        let Some(lesson) = open.and_then(lessons::find) else { return false };
        self.watching = None;
        self.closed_by_preset = Some(lesson.id);
        true
    }

    /// The watching of lesson `id` on the page's `seed`, in a step that shows it (watching the
    /// run, or its explanation).
    pub fn shown(&self, open: Option<(&str, Step)>, seed: u64) -> Option<&Watching> {
        let (id, step) = open?;
        self.watching.as_ref().filter(|w| w.id == id && w.seed == seed && matches!(step, Step::Run | Step::Explain))
    }
}

/// The scenarios the stage must show for `lesson` on `seed` (A, then B), named as the page
/// names them is not part of the comparison.
pub fn stage_scenarios(lesson: &Lesson, seed: u64) -> Vec<Scenario> {
    super::lesson_view::stage_runs(lesson, seed).into_iter().map(|(s, _)| s).collect()
}

/// The stage shows exactly `expected` (names aside): if not, a lesson's text about its runs would
/// point at other runs, so the page pauses the lesson.
pub fn stage_shows(on_stage: &[Scenario], expected: &[Scenario]) -> bool {
    let unnamed = |s: &Scenario| Scenario { name: None, ..s.clone() };
    on_stage.len() == expected.len() && on_stage.iter().zip(expected).all(|(a, b)| unnamed(a) == unnamed(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_of_the_answer_shows_before_the_prediction() {
        for step in Step::ALL {
            // the claim only with the outcome; the stage holds still exactly until the run
            assert_eq!(step.shows_claim(), step >= Step::Explain, "{step:?}");
            assert_eq!(step.before_prediction(), step < Step::Run, "{step:?}");
            assert!(!(step.shows_claim() && step.before_prediction()));
        }
    }

    #[test]
    fn steps_keep_their_positions_and_marks() {
        for (i, s) in Step::ALL.iter().enumerate() {
            assert_eq!(s.index() as usize, i);
            assert_eq!(Step::at(i as u32), *s);
        }
        assert_eq!(Step::at(99), Step::Play);
        assert_eq!(Mark::of(Step::Setup, Step::Run), Mark::Done);
        assert_eq!(Mark::of(Step::Run, Step::Run), Mark::Current);
        assert_eq!(Mark::of(Step::Play, Step::Run).class(), "st-todo");
        assert_eq!(Mark::of(Step::Setup, Step::Run).dot(Step::Setup), "✓");
        assert_eq!(Mark::of(Step::Play, Step::Run).dot(Step::Play), (Step::Play.index() + 1).to_string());
        assert_eq!(Mark::of(Step::Run, Step::Run).dot(Step::Run), (Step::Run.index() + 1).to_string());
        assert_eq!(Mark::of(Step::Run, Step::Run).aria_current(), Some("step"));
        assert_eq!(Mark::of(Step::Setup, Step::Run).aria_current(), None);
        assert!(Step::Run.needs_results() && Step::Explain.needs_results() && !Step::Play.needs_results());
    }

    #[test]
    fn a_lesson_is_adopted_clean_and_its_run_step_starts_the_runs() {
        let mut p = LessonPanel::default();
        assert!(matches!(p.follow(None, 7), Follow::Nothing));
        assert!(matches!(p.follow(Some(("mean-hides-tail", Step::Setup)), 7), Follow::Nothing));
        assert!(!p.can_run());
        p.choose(1);
        assert!(p.can_run());
        let Follow::Start(l) = p.follow(Some(("mean-hides-tail", Step::Run)), 7) else { panic!("should start") };
        assert_eq!(l.id, "mean-hides-tail");
        p.started(1);
        // already running: nothing more
        assert!(matches!(p.follow(Some(("mean-hides-tail", Step::Run)), 7), Follow::Nothing));
        // another lesson: clean, and the running job stops
        assert!(matches!(p.follow(Some(("kv-arithmetic", Step::Predict)), 7), Follow::Cancel));
        assert_eq!((p.prediction, p.running), (None, false));
        assert!(matches!(p.follow(Some(("no-such", Step::Setup)), 7), Follow::Close));
        assert!(matches!(p.follow(None, 7), Follow::Cancel));
        assert_eq!(p.adopted, None);
    }

    #[test]
    fn finished_runs_give_the_outcome_and_kind_feedback() {
        let lesson = lessons::find("mean-hides-tail").expect("lesson");
        let (sums, outcome) = lesson.run(3);
        let mut p = LessonPanel::default();
        p.follow(Some((lesson.id, Step::Predict)), 3);
        p.choose((outcome.answer + 1) % lesson.choices);
        p.started(sums.len());
        let f = p.finish(lesson, vec!["a"], sums.clone());
        assert_eq!(f.outcome, outcome);
        assert_eq!(f.feedback(), Feedback::Other);
        assert_eq!(f.feedback().correct(), "false");
        assert!(!p.running);
        assert!(matches!(p.follow(Some((lesson.id, Step::Explain)), 3), Follow::Nothing), "results are there");
        assert_eq!(p.finished().map(|f| f.seed), Some(3));
        p.again();
        assert!(p.finished().is_none() && p.prediction.is_none());
        p.choose(outcome.answer);
        assert_eq!(p.finish(lesson, vec!["a"], sums).feedback(), Feedback::Right);
    }

    #[test]
    fn a_new_page_seed_makes_the_results_stale_and_runs_the_lesson_again() {
        let lesson = lessons::find("kv-arithmetic").expect("lesson");
        let (sums, _) = lesson.run(7);
        let mut p = LessonPanel::default();
        p.follow(Some((lesson.id, Step::Predict)), 7);
        p.choose(0);
        p.started(sums.len());
        p.finish(lesson, vec!["a", "b"], sums);
        assert!(matches!(p.follow(Some((lesson.id, Step::Explain)), 7), Follow::Nothing));
        // the learner sets seed 8 while reading the explanation: the lesson runs again on 8
        let Follow::Start(l) = p.follow(Some((lesson.id, Step::Explain)), 8) else { panic!("should run again") };
        assert_eq!((l.id, p.seed, p.prediction), (lesson.id, 8, Some(0)));
        assert!(p.finished().is_none());
        // a new seed while running: cancel and start again
        p.started(2);
        assert!(matches!(p.follow(Some((lesson.id, Step::Run)), 9), Follow::Restart(_)));
        // in the predict step nothing runs
        assert!(matches!(p.follow(Some((lesson.id, Step::Predict)), 10), Follow::Nothing));
    }

    #[test]
    fn every_lesson_highlights_a_number_the_page_can_point_at() {
        for l in LESSONS {
            assert!(!highlight_key(l.highlight).is_empty(), "{}", l.id);
        }
    }

    #[test]
    fn lessons_in_order() {
        assert_eq!(position(LESSONS[0].id), 0);
        assert_eq!(next(LESSONS[0].id).map(|l| l.id), Some(LESSONS[1].id));
        assert!(next(LESSONS[LESSONS.len() - 1].id).is_none());
    }

    #[test]
    fn a_watched_run_plays_in_about_25_seconds_within_the_speed_range() {
        assert_eq!(watch_speed(83.0, 0.1, 100.0), 3.3);
        assert_eq!(watch_speed(25.0, 0.1, 100.0), 1.0);
        assert_eq!(watch_speed(1.0, 0.1, 100.0), 0.1, "a short run is held to the slowest speed");
        assert_eq!(watch_speed(1e6, 0.1, 100.0), 100.0);
        assert_eq!(watch_speed(f64::NAN, 0.1, 100.0), 1.0);
        for d in [10.0, 60.0, 150.0, 400.0, 900.0] {
            let wall = d / watch_speed(d, 0.1, 100.0);
            assert!((15.0..=40.0).contains(&wall), "{d} s plays in {wall} s");
        }
    }

    #[test]
    fn watching_pins_each_moment_to_its_stage_run_and_time() {
        let lesson = lessons::find("goodput-vs-throughput").expect("lesson");
        let (sums, _) = lesson.run(7);
        let w = Watching::new(lesson, 7, &sums, (0.1, 100.0));
        assert_eq!(w.runs, vec![1, 2]);
        assert_eq!(w.durations_s, vec![sums[1].duration_s, sums[2].duration_s]);
        let wall = w.durations_s.iter().copied().fold(0.0, f64::max) / w.speed;
        assert!((15.0..=40.0).contains(&wall), "{wall}");
        // run C turns requests away: B on the stage shows when the first one timed out
        let first = w.moments.iter().find(|m| m.kind == lessons::MomentKind::FirstTimedOut).expect("timeouts");
        assert_eq!((first.run, w.stage_of(first.run)), (2, Some(1)));
        let at = first.at_us as f64 / 1e6;
        assert!(w.passed(1, at).any(|m| m == first));
        assert!(!w.passed(1, at - 1e-6).any(|m| m == first));
        assert!(!w.passed(0, f64::MAX).any(|m| m.run == 2), "A shows only run B's moments");
        assert_eq!(w.passed(1, f64::MAX).count(), w.moments.iter().filter(|m| m.run == 2).count());
    }

    #[test]
    fn a_preset_closes_the_open_lesson_and_a_changed_stage_pauses_it() {
        let mut st = WatchState::default();
        assert!(!st.preset_chosen(None));
        assert!(!st.preset_chosen(Some("no-such")));
        let lesson = lessons::find("kv-arithmetic").expect("lesson");
        let (sums, _) = lesson.run(7);
        st.watching = Some(Watching::new(lesson, 7, &sums, (0.1, 100.0)));
        assert!(st.shown(Some((lesson.id, Step::Run)), 7).is_some());
        assert!(st.shown(Some((lesson.id, Step::Run)), 8).is_none(), "moments of another seed");
        assert!(st.shown(Some((lesson.id, Step::Play)), 7).is_none());
        assert!(st.shown(Some(("mean-hides-tail", Step::Run)), 7).is_none());
        assert!(st.preset_chosen(Some(lesson.id)));
        assert_eq!((st.watching.is_none(), st.closed_by_preset), (true, Some(lesson.id)));

        let expected = stage_scenarios(lesson, 7);
        assert_eq!(expected.len(), 2);
        let mut named = expected.clone();
        named[0].name = Some("Llama-3-8B (GQA)".into());
        assert!(stage_shows(&named, &expected), "names aside");
        assert!(!stage_shows(&expected[..1], &expected), "B is gone");
        let mut edited = expected.clone();
        edited[1].scheduler.max_num_seqs += 1;
        assert!(!stage_shows(&edited, &expected));
        assert!(!stage_shows(&stage_scenarios(lesson, 8), &expected), "another seed");
    }
}
