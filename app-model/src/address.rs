//! The browser's address as the page keeps it in step with its state: which state a shared link
//! carries (a draft that cannot run is replaced by the configuration on screen; a teacher's locks
//! and hidden parts are added), whether a change of the page is a new entry of the browser's
//! history (Back returns to it) or a rewrite of the current one once a drag rests, what Back and
//! Forward bring back, and the address written.

use sim_core::Scenario;

use crate::share::{Hidden, ShareState};

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
