//! Shared UI state: the scenario drafts being edited, their validation errors, play state, and
//! the numbers the calm tick publishes. Applying a draft builds fresh simulations; the rule is
//! simple and shown in the page: every scenario change restarts from t = 0 with the same seed.

use app_model::tabs::lesson::{Step, WatchState};
use app_model::transport::PlayAction;
use app_model::{page, Run};
use leptos::prelude::*;
use sim_core::presets;
use sim_core::{Scenario, ScenarioError};

use crate::engine::{EngineCell, RunInfo, RunView};
use crate::i18n::Lang;
use crate::theme::{Look, Theme};

/// Speeds the slider spans, simulated seconds per wall-clock second.
pub use app_model::transport::{MAX_SPEED, MIN_SPEED};

/// Signals shared by every panel. `Copy`. Provided once at mount ([`provide`]); components
/// take it with [`use_ui`]. Per-run arrays are indexed by [`Run::index`].
#[derive(Clone, Copy)]
pub struct Ui {
    /// Scenario of run A and run B as edited (may be invalid).
    pub drafts: [RwSignal<Scenario>; 2],
    /// Why a draft cannot run, if it cannot.
    pub errors: [RwSignal<Option<ScenarioError>>; 2],
    /// Preset a draft started from.
    pub presets: [RwSignal<String>; 2],
    /// The scenario each draft was last loaded with (a preset, a lesson's run, an exercise, a
    /// link): the draft is "edited" once it differs from it.
    pub origins: [RwSignal<Scenario>; 2],
    /// Facts of the runs on screen (the last good configuration).
    pub infos: [RwSignal<Option<RunInfo>>; 2],
    /// Numbers of the runs on screen, refreshed at the calm tick.
    pub views: [RwSignal<Option<RunView>>; 2],
    /// A/B mode: two configurations side by side on the same arrivals.
    pub ab: RwSignal<bool>,
    /// Which draft the controls edit in A/B mode.
    pub editing: RwSignal<Run>,
    pub playing: RwSignal<bool>,
    pub speed: RwSignal<f64>,
    pub fast_forward: RwSignal<bool>,
    /// The runs cannot keep up with the requested speed.
    pub behind: RwSignal<bool>,
    /// Metrics and charts for one class, or all classes together.
    pub class_view: RwSignal<Option<usize>>,
    /// Restarts so far (the status line says when the run last restarted).
    pub restarts: RwSignal<u32>,
    /// Controls (scenario field paths, e.g. `scheduler.isolation`) the learner may not change:
    /// set by a teacher's link or an exercise.
    pub locked: RwSignal<Vec<String>>,
    /// Open lesson and its step.
    pub lesson: RwSignal<Option<(String, Step)>>,
    /// The lesson's runs playing on the stage and their moments; a lesson a preset closed.
    pub watch: RwSignal<WatchState>,
    /// Presets chosen so far (a choice closes an open lesson).
    pub preset_choices: RwSignal<u32>,
    /// The locks a teacher's link set: they hold for the whole visit (closing an exercise or
    /// opening a lesson keeps them); only a link without locks comes without them.
    pub teacher_locks: RwSignal<Vec<String>>,
    /// What the teacher's link hides (solutions, teacher mode).
    pub hidden: RwSignal<Vec<app_model::share::Hidden>>,
    /// Open exercise.
    pub exercise: RwSignal<Option<String>>,
    /// Compact layout for iframes (`embed=1`).
    pub embed: RwSignal<bool>,
    /// The simulations on screen and their stages (the animation loop reaches them through the
    /// copy of `Ui` it captured at mount).
    pub engine: EngineCell,
    /// The page's language and colour profile (the contexts of the same name), for the canvases
    /// the animation loop and the calm tick draw outside the reactive tree ([`Ui::look`]).
    pub lang: Lang,
    pub theme: Theme,
}

impl Ui {
    pub fn new(lang: Lang, theme: Theme) -> Ui {
        let (id, scenario) = page::opening_scenario();
        Ui {
            drafts: [RwSignal::new(scenario.clone()), RwSignal::new(scenario.clone())],
            origins: [RwSignal::new(scenario.clone()), RwSignal::new(scenario)],
            errors: [RwSignal::new(None), RwSignal::new(None)],
            presets: [RwSignal::new(id.clone()), RwSignal::new(id)],
            infos: [RwSignal::new(None), RwSignal::new(None)],
            views: [RwSignal::new(None), RwSignal::new(None)],
            ab: RwSignal::new(false),
            editing: RwSignal::new(Run::A),
            playing: RwSignal::new(true),
            speed: RwSignal::new(1.0),
            fast_forward: RwSignal::new(false),
            behind: RwSignal::new(false),
            class_view: RwSignal::new(None),
            restarts: RwSignal::new(0),
            locked: RwSignal::new(Vec::new()),
            teacher_locks: RwSignal::new(Vec::new()),
            hidden: RwSignal::new(Vec::new()),
            lesson: RwSignal::new(None),
            watch: RwSignal::new(WatchState::default()),
            preset_choices: RwSignal::new(0),
            exercise: RwSignal::new(None),
            embed: RwSignal::new(false),
            engine: EngineCell::new(),
            lang,
            theme,
        }
    }

    /// What the canvases draw with now: the page's language and colour profile.
    pub fn look(&self) -> Look {
        Look::of(self.lang, self.theme)
    }

    /// The draft the controls edit: the chosen one in A/B mode, else A (tracked).
    pub fn edited(&self) -> Run {
        if self.ab.get() {
            self.editing.get()
        } else {
            Run::A
        }
    }

    /// Runs on screen: 1, or 2 in A/B mode.
    pub fn run_count(&self) -> usize {
        if self.ab.get_untracked() {
            2
        } else {
            1
        }
    }

    /// Builds simulations from the drafts and installs them, restarting from t = 0; when a draft
    /// cannot run, its errors are published and the runs on screen stay as they are.
    /// With `force`, restarts even if nothing changed (the reset button).
    pub fn apply(&self, force: bool) {
        let n = self.run_count();
        let drafts: Vec<Scenario> = (0..n).map(|i| self.drafts[i].get_untracked()).collect();
        let running = self.engine.with(|e| e.scenarios()).unwrap_or_default();
        if let page::Apply::Keep { drop_b } = page::apply(&running, &drafts, force) {
            for e in &self.errors {
                if e.with_untracked(Option::is_some) {
                    e.set(None);
                }
            }
            if drop_b {
                self.engine.with(|e| e.truncate(n));
                self.infos[1].set(None);
                self.views[1].set(None);
            }
            return;
        }
        let sims = match page::build(&drafts) {
            Ok(sims) => sims,
            Err(errors) => {
                for (slot, e) in self.errors.iter().zip(errors) {
                    slot.set(e);
                }
                return;
            }
        };
        for e in &self.errors[..n] {
            e.set(None);
        }
        let installed = self.engine.with(|e| {
            e.replace(sims);
            e.infos()
        });
        if installed.is_none() {
            return;
        }
        self.set_infos(installed.unwrap_or_default());
        self.fast_forward.set(false);
        self.playing.set(true);
        self.restarts.update(|r| *r += 1);
        self.refresh(true);
    }

    /// Publishes the facts of the runs on screen.
    pub fn set_infos(&self, infos: Vec<RunInfo>) {
        for i in 0..2 {
            let next = infos.get(i).cloned();
            if self.infos[i].with_untracked(|cur| *cur != next) {
                self.infos[i].set(next);
            }
            if infos.get(i).is_none() {
                self.views[i].set(None);
            }
        }
        // a class view beyond the classes on screen falls back to all classes
        let classes = infos.first().map_or(0, |i| i.class_names.len());
        let selected = self.class_view.get_untracked();
        if page::class_view_after(selected, classes) != selected {
            self.class_view.set(None);
        }
    }

    /// Restarts every run from t = 0 with the scenarios on screen.
    pub fn reset(&self) {
        if self.engine.with(|e| e.reset()).is_some() {
            self.fast_forward.set(false);
            self.playing.set(true);
            self.restarts.update(|r| *r += 1);
            self.refresh(true);
        }
    }

    /// Loads a built-in preset into the draft of `run`.
    pub fn load_preset(&self, run: Run, id: &str) {
        if let Some(s) = presets::find(id).and_then(|p| Scenario::from_json(p.json).ok()) {
            self.presets[run.index()].set(id.to_string());
            self.load(run, s);
            self.preset_choices.update(|n| *n += 1);
        }
    }

    /// Puts `s` into the draft of `run` as loaded, not edited (a preset, a lesson's run, an
    /// exercise, a link).
    pub fn load(&self, run: Run, s: Scenario) {
        self.origins[run.index()].set(s.clone());
        self.drafts[run.index()].set(s);
    }

    /// The draft of `run` differs from what was loaded into it (tracked).
    pub fn changed_since_load(&self, run: Run) -> bool {
        let i = run.index();
        self.origins[i].with(|o| self.drafts[i].with(|d| o != d))
    }

    /// Enters A/B mode with two presets, or with B a copy of A when `pair` is `None`.
    pub fn start_ab(&self, pair: Option<(&str, &str)>) {
        match pair {
            Some((a, b)) => {
                self.load_preset(Run::A, a);
                self.load_preset(Run::B, b);
            }
            None => {
                self.load(Run::B, self.drafts[0].get_untracked());
                self.presets[1].set(self.presets[0].get_untracked());
            }
        }
        self.ab.set(true);
        self.editing.set(Run::B);
    }

    /// Opens exercise `id` as its card's Start does: its scenario alone on the stage from t = 0,
    /// its locks over the teacher's. False when there is no such exercise.
    pub fn open_exercise(&self, id: &str) -> bool {
        let Some(ex) = lab_content::exercise::exercises().into_iter().find(|e| e.id == id) else { return false };
        self.lesson.set(None);
        self.ab.set(false);
        self.editing.set(Run::A);
        self.load(Run::A, ex.scenario.clone());
        let teacher = self.teacher_locks.get_untracked();
        self.locked.set(app_model::tabs::exercise::with_exercise(&teacher, &ex));
        self.exercise.set(Some(ex.id.clone()));
        self.apply(true);
        true
    }

    /// Closes the open exercise: its locks go, the teacher's stay.
    pub fn close_exercise(&self) {
        self.exercise.set(None);
        self.locked.set(self.teacher_locks.get_untracked());
    }

    /// Whether the teacher's link hides `part`.
    pub fn hides(&self, part: app_model::share::Hidden) -> bool {
        self.hidden.with(|h| h.contains(&part))
    }

    /// Leaves A/B mode: A stays, the controls edit it.
    pub fn stop_ab(&self) {
        self.ab.set(false);
        self.editing.set(Run::A);
    }
}

/// Makes `ui` the page's shared state for every component below (call once, at mount).
pub fn provide(ui: Ui) {
    provide_context(ui);
}

/// The page's shared state, as provided at mount.
pub fn use_ui() -> Ui {
    expect_context::<Ui>()
}

impl Ui {
    /// Publishes fresh numbers from the engine (the calm tick, or right after a step).
    pub fn refresh(&self, force: bool) {
        let class = self.class_view.get_untracked();
        let look = self.look();
        let Some(Some(views)) = self.engine.with(|e| e.calm(force, class, look)) else { return };
        for i in 0..2 {
            let next = views.get(i).cloned();
            if self.views[i].with_untracked(|cur| *cur != next) {
                self.views[i].set(next);
            }
        }
    }

    /// Advances every run by one scheduler iteration, paused.
    pub fn step(&self) {
        if self.withheld_untracked() {
            return;
        }
        self.playing.set(false);
        self.fast_forward.set(false);
        self.engine.with(|e| e.step_iteration());
        self.refresh(true);
    }

    /// A lesson waits for the learner's prediction: the stage holds its set-up at t = 0 and
    /// nothing plays or steps until the run (tracked).
    pub fn withheld(&self) -> bool {
        self.lesson.with(|l| l.as_ref().is_some_and(|(_, s)| s.before_prediction()))
    }

    pub fn withheld_untracked(&self) -> bool {
        self.lesson.with_untracked(|l| l.as_ref().is_some_and(|(_, s)| s.before_prediction()))
    }

    /// The play button and Space: replay a finished run, pause a running one, else play.
    pub fn toggle_play(&self) {
        let running = self.playing.get_untracked() || self.fast_forward.get_untracked();
        match PlayAction::of(self.finished(), running, false) {
            PlayAction::Replay => self.reset(),
            PlayAction::Pause => {
                self.playing.set(false);
                self.fast_forward.set(false);
                self.refresh(true);
            }
            PlayAction::Play => self.playing.set(true),
        }
    }

    /// True when every run on screen has ended all its requests.
    pub fn finished(&self) -> bool {
        let n = if self.ab.get() { 2 } else { 1 };
        (0..n).all(|i| self.views[i].with(|v| v.as_ref().is_some_and(|v| v.finished)))
    }
}
