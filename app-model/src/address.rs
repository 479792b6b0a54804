//! The browser's address as the page keeps it in step with its state: which state a shared link
//! carries (a draft that cannot run is replaced by the configuration on screen; a teacher's locks
//! and hidden parts are added), whether a change of the page is a new entry of the browser's
//! history (Back returns to it) or a rewrite of the current one once a drag rests, what Back and
//! Forward bring back, and the address written.

use sim_core::Scenario;

use crate::link::preset_of;
use crate::share::{Hidden, ShareState};
use crate::tabs::lesson::Step;
use crate::Run;

/// The scenario a link carries for one run: the draft when it is valid, else the configuration
/// on screen (so a link always opens on something that runs), else the draft as it is.
pub fn shareable(draft: Scenario, on_screen: Option<&Scenario>) -> Scenario {
    if draft.validate().is_ok() {
        draft
    } else {
        on_screen.cloned().unwrap_or(draft)
    }
}

impl ShareState {
    /// Adds controls to lock (a teacher's link) to those already locked, each once.
    pub fn lock_also(&mut self, locks: &[String]) {
        for f in locks {
            if !self.locked.contains(f) {
                self.locked.push(f.clone());
            }
        }
    }

    /// Adds parts to hide from the students (a teacher's link), each once.
    pub fn hide_also(&mut self, parts: &[Hidden]) {
        for h in parts {
            if !self.hide.contains(h) {
                self.hide.push(*h);
            }
        }
    }
}

/// What the page shows that a link carries: each run on screen (A, and B in A/B mode) as its
/// draft and the scenario it runs, the open lesson at its step, the exercise, the locked
/// controls, the language and what a teacher's link hides.
#[derive(Clone, Debug, PartialEq)]
pub struct OnPage {
    pub a: (Scenario, Option<Scenario>),
    pub b: Option<(Scenario, Option<Scenario>)>,
    pub lesson: Option<(String, Step)>,
    pub exercise: Option<String>,
    pub locked: Vec<String>,
    pub locale: String,
    pub hide: Vec<Hidden>,
}

impl OnPage {
    /// The page's state as a link carries it (each run [`shareable`]); `with_lock` adds
    /// controls to lock (a teacher's link) to those already locked.
    pub fn state(self, with_lock: &[String]) -> ShareState {
        let run = |(draft, on_screen): (Scenario, Option<Scenario>)| shareable(draft, on_screen.as_ref());
        let mut s = ShareState::new(run(self.a));
        s.compare = self.b.map(run);
        if let Some((lesson, step)) = self.lesson {
            s.lesson = Some(lesson);
            s.step = Some(step.index());
        }
        s.exercise = self.exercise;
        s.locked = self.locked;
        s.lock_also(with_lock);
        s.locale = Some(self.locale);
        s.hide = self.hide;
        s
    }

    /// Whether the address may take the page's state: not while a draft on screen cannot run
    /// (the address keeps the last state that runs).
    pub fn writable(&self) -> bool {
        std::iter::once(&self.a).chain(&self.b).all(|(draft, _)| draft.validate().is_ok())
    }
}

/// What a link's state puts onto the page (the link the page opened, or Back and Forward): each
/// run (A, and B for a comparison) with the preset its scenario is or is named after, the lesson
/// at its step (the first when the link names none), the exercise, the locks, the hidden parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Restore {
    pub runs: Vec<(String, Scenario)>,
    pub lesson: Option<(String, Step)>,
    pub exercise: Option<String>,
    pub locked: Vec<String>,
    pub hide: Vec<Hidden>,
}

impl ShareState {
    /// What putting this state back onto the page does ([`Restore`]).
    pub fn restore_plan(self) -> Restore {
        let runs = std::iter::once(self.scenario).chain(self.compare).map(|s| (preset_of(&s), s)).collect();
        let step = Step::at(self.step.unwrap_or(0));
        Restore {
            runs,
            lesson: self.lesson.map(|l| (l, step)),
            exercise: self.exercise,
            locked: self.locked,
            hide: self.hide,
        }
    }
}

/// The configuration errors a parent window hears of (`error` events): each run's message
/// (`now`, run A's first) that is new since the last look (`before`; none at first), with the
/// run it is about.
pub fn new_errors(before: Option<&[Option<String>]>, now: &[Option<String>]) -> Vec<(Run, String)> {
    let old = |i: usize| before.and_then(|b| b.get(i)).and_then(Option::as_ref);
    let changed = |(i, m): (usize, &Option<String>)| m.clone().filter(|m| Some(m) != old(i)).map(|m| (Run::at(i), m));
    now.iter().enumerate().filter_map(changed).collect()
}

/// The page's address without query and fragment.
pub fn base_of(href: &str) -> &str {
    let end = href.find(['?', '#']).unwrap_or(href.len());
    &href[..end]
}

/// A link that opens the full lab in `state`.
pub fn link_to(href: &str, state: &ShareState) -> String {
    format!("{}?lab={}", base_of(href), state.encode())
}

/// The address the page writes for `state`: the parameters kept from the address it was opened
/// with (`kept`, as `name=value`), then `lab=`.
pub fn address_of(href: &str, kept: &[String], state: &ShareState) -> String {
    let mut params = kept.to_vec();
    params.push(format!("lab={}", state.encode()));
    format!("{}?{}", base_of(href), params.join("&"))
}

/// Whether an embedded page leaves out the workbench: an embed without a lesson or an exercise
/// shows the lab alone.
pub fn embed_without_workbench(embed: bool, opening: Option<&ShareState>) -> bool {
    let teaching = opening.is_some_and(|s| s.lesson.is_some() || s.exercise.is_some());
    embed && !teaching
}

/// How the address follows a change of the page's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    /// A new lesson, step, preset, exercise, comparison or lock: written at once, a new entry.
    Now,
    /// Settings changing (a slider's drag changes the draft many times a second): written once
    /// the changes rest.
    Later,
}

/// What the address bar holds and what the page was opened with.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressHistory {
    opening: ShareState,
    shown: ShareState,
}

impl AddressHistory {
    /// The page as it opened: the address holds that state.
    pub fn new(opening: ShareState) -> AddressHistory {
        AddressHistory { shown: opening.clone(), opening }
    }

    /// When the address takes the page's new state `now`.
    pub fn follow(&self, now: &ShareState) -> Follow {
        if self.shown.same_entry(now) {
            Follow::Later
        } else {
            Follow::Now
        }
    }

    /// Records `state` as written into the address; true when it is a new history entry
    /// (`pushState`), false when it rewrites the current one (`replaceState`).
    pub fn write(&mut self, state: ShareState) -> bool {
        let new_entry = !self.shown.same_entry(&state);
        self.shown = state;
        new_entry
    }

    /// Back or Forward to an address whose `lab=` is `lab`: the state to put back on the page
    /// (the opening state for the address the page was opened at, without `lab=`), or `None`
    /// when the link cannot be opened (the page stays as it is).
    pub fn returned_to(&mut self, lab: Option<&str>) -> Option<ShareState> {
        let state = match lab {
            Some(code) => crate::link::open(code).ok()?,
            None => self.opening.clone(),
        };
        self.shown = state.clone();
        Some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::presets;

    fn preset(id: &str) -> Scenario {
        Scenario::from_json(presets::find(id).expect("preset").json).expect("preset reads")
    }

    fn state() -> ShareState {
        ShareState::new(preset(presets::DEFAULT_PRESET))
    }

    #[test]
    fn an_invalid_draft_is_shared_as_the_configuration_on_screen() {
        let good = preset(presets::DEFAULT_PRESET);
        let mut bad = good.clone();
        bad.gpu_memory_utilization = 7.0;
        assert!(bad.validate().is_err());
        assert_eq!(shareable(bad.clone(), Some(&good)), good);
        assert_eq!(shareable(bad.clone(), None), bad);
        let mut edited = good.clone();
        edited.seed = 99;
        assert_eq!(shareable(edited.clone(), Some(&good)), edited);
    }

    fn on_page(a: (Scenario, Option<Scenario>), b: Option<(Scenario, Option<Scenario>)>) -> OnPage {
        OnPage {
            a,
            b,
            lesson: None,
            exercise: None,
            locked: vec!["seed".into()],
            locale: "zh".into(),
            hide: vec![Hidden::Solutions],
        }
    }

    #[test]
    fn the_page_is_shared_with_its_comparison_lesson_step_locks_and_language() {
        let a = preset(presets::DEFAULT_PRESET);
        let mut bad = a.clone();
        bad.gpu_memory_utilization = 7.0;
        let b = preset("static-batching");
        let mut page = on_page((bad.clone(), Some(a.clone())), Some((b.clone(), Some(b.clone()))));
        assert!(!page.writable(), "a draft that cannot run is not written into the address");
        page.lesson = Some(("kv-arithmetic".into(), Step::Explain));
        page.exercise = Some("x".into());
        let s = page.clone().state(&["seed".into(), "scheduler.isolation".into()]);
        assert_eq!((s.scenario, s.compare), (a.clone(), Some(b.clone())));
        assert_eq!((s.lesson.as_deref(), s.step), (Some("kv-arithmetic"), Some(Step::Explain.index())));
        assert_eq!(s.exercise.as_deref(), Some("x"));
        assert_eq!(s.locked, vec!["seed".to_string(), "scheduler.isolation".to_string()]);
        assert_eq!((s.locale.as_deref(), s.hide), (Some("zh"), vec![Hidden::Solutions]));
        let alone = on_page((a.clone(), Some(a.clone())), None);
        assert!(alone.writable());
        let s = alone.state(&[]);
        assert_eq!((s.compare, s.lesson, s.step), (None, None, None));
    }

    #[test]
    fn a_restored_state_names_each_runs_preset_and_opens_its_lesson_at_its_step() {
        let a = preset(presets::DEFAULT_PRESET);
        let mut edited = preset("static-batching");
        edited.seed = 1234;
        let mut s = ShareState::new(a.clone());
        s.compare = Some(edited.clone());
        s.lesson = Some("kv-arithmetic".into());
        s.step = Some(2);
        s.locked = vec!["seed".into()];
        s.hide = vec![Hidden::Teacher];
        let r = s.restore_plan();
        assert_eq!(r.runs, vec![(presets::DEFAULT_PRESET.to_string(), a.clone()), ("static-batching".into(), edited)]);
        assert_eq!(r.lesson, Some(("kv-arithmetic".into(), Step::at(2))));
        assert_eq!((r.locked, r.hide), (vec!["seed".to_string()], vec![Hidden::Teacher]));
        let mut s = ShareState::new(a.clone());
        s.lesson = Some("kv-arithmetic".into());
        let r = s.restore_plan();
        assert_eq!(r.runs.len(), 1, "no comparison: run A alone");
        assert_eq!(r.lesson, Some(("kv-arithmetic".into(), Step::Setup)));
        assert_eq!(ShareState::new(a).restore_plan().lesson, None);
    }

    #[test]
    fn a_parent_hears_of_each_runs_configuration_error_once_and_of_a_changed_one_again() {
        let (e1, e2) = (Some("one".to_string()), Some("two".to_string()));
        assert_eq!(new_errors(None, &[None, None]), vec![]);
        assert_eq!(new_errors(None, &[e1.clone(), None]), vec![(Run::A, "one".to_string())]);
        let before = [e1.clone(), None];
        assert_eq!(new_errors(Some(&before), &[e1.clone(), None]), vec![], "the same message is not said twice");
        assert_eq!(
            new_errors(Some(&before), &[e2.clone(), e1.clone()]),
            vec![(Run::A, "two".to_string()), (Run::B, "one".to_string())]
        );
        assert_eq!(new_errors(Some(&before), &[None, None]), vec![], "a fixed draft is no event");
    }

    #[test]
    fn a_teachers_locks_and_hidden_parts_are_added_once() {
        let mut s = state();
        s.locked = vec!["seed".into()];
        s.lock_also(&["seed".into(), "scheduler.isolation".into()]);
        assert_eq!(s.locked, vec!["seed".to_string(), "scheduler.isolation".to_string()]);
        s.hide_also(&[Hidden::Solutions, Hidden::Solutions]);
        s.hide_also(&[Hidden::Teacher]);
        assert_eq!(s.hide, vec![Hidden::Solutions, Hidden::Teacher]);
    }

    #[test]
    fn addresses_keep_the_parameters_and_drop_query_and_fragment() {
        let s = state();
        assert_eq!(base_of("https://x.org/lab/?a=1#top"), "https://x.org/lab/");
        assert_eq!(base_of("https://x.org/lab#top"), "https://x.org/lab");
        assert_eq!(link_to("https://x.org/?embed=1", &s), format!("https://x.org/?lab={}", s.encode()));
        let kept = vec!["view=stage".to_string(), "embed=1".to_string()];
        assert_eq!(
            address_of("https://x.org/?old", &kept, &s),
            format!("https://x.org/?view=stage&embed=1&lab={}", s.encode())
        );
    }

    #[test]
    fn an_embed_shows_the_workbench_only_when_it_teaches() {
        let mut s = state();
        assert!(embed_without_workbench(true, None));
        assert!(embed_without_workbench(true, Some(&s)));
        assert!(!embed_without_workbench(false, None));
        s.lesson = Some("kv-arithmetic".into());
        assert!(!embed_without_workbench(true, Some(&s)));
    }

    #[test]
    fn settings_rest_before_they_are_written_and_a_new_lesson_is_a_new_entry() {
        let opening = state();
        let mut h = AddressHistory::new(opening.clone());
        let mut dragged = opening.clone();
        dragged.scenario.seed += 1;
        assert_eq!(h.follow(&dragged), Follow::Later);
        assert!(!h.write(dragged.clone()));
        let mut lesson = dragged.clone();
        lesson.lesson = Some("kv-arithmetic".into());
        lesson.step = Some(0);
        assert_eq!(h.follow(&lesson), Follow::Now);
        assert!(h.write(lesson.clone()));
        assert_eq!(h.follow(&lesson), Follow::Later);
    }

    #[test]
    fn back_returns_to_the_link_or_to_the_opening_state() {
        let opening = state();
        let mut h = AddressHistory::new(opening.clone());
        let mut other = opening.clone();
        other.exercise = Some("x".into());
        h.write(other.clone());
        assert_eq!(h.returned_to(None), Some(opening.clone()));
        assert_eq!(h.follow(&opening), Follow::Later);
        let mut linked = opening.clone();
        linked.scenario.seed = 11;
        assert_eq!(h.returned_to(Some(&linked.encode())), Some(linked.clone()));
        assert_eq!(h.returned_to(Some("not a link")), None);
        // a link that could not be read leaves the address's state as it was
        assert_eq!(h.follow(&linked), Follow::Later);
    }
}
