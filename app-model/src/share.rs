//! The page's state in a shared link: the scenario (and the second one of an A/B comparison)
//! plus what the page had open — lesson and step, exercise, locked controls, language.
//!
//! sim-core owns the envelope and the scenarios' part (`sim_core::share`: `1.<base64url JSON>`,
//! version checks, scenario validation); this module adds the page's fields. Links made before
//! the split read the same, since the JSON is the same object.

use serde::{Deserialize, Serialize};
use sim_core::share::{self as envelope, SharedRun};
use sim_core::Scenario;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareState {
    pub scenario: Scenario,
    /// Second configuration of an A/B comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Scenario>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exercise: Option<String>,
    /// Controls the learner may not change (a teacher's link): settings lock ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locked: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
}

impl ShareState {
    pub fn new(scenario: Scenario) -> Self {
        ShareState {
            scenario,
            compare: None,
            lesson: None,
            step: None,
            exercise: None,
            locked: Vec::new(),
            locale: None,
        }
    }

    /// The link's `lab=` value.
    pub fn encode(&self) -> String {
        envelope::encode(self)
    }

    /// Reads a shared state; its scenarios are validated like any other.
    pub fn decode(link: &str) -> Result<ShareState, String> {
        let state: ShareState = envelope::decode(link)?;
        state.run().check()?;
        Ok(state)
    }

    /// The model's part: the scenarios.
    pub fn run(&self) -> SharedRun {
        SharedRun { scenario: self.scenario.clone(), compare: self.compare.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made by the lab before the page's fields left sim-core (mixed-isolated, lesson
    /// mixed-traffic at step 2, isolation locked, Chinese).
    const OLD_LINK: &str = include_str!("../tests/share-link-v1.txt");

    fn state() -> ShareState {
        let mut s = ShareState::new(sim_core::presets::find("mixed-isolated").unwrap().scenario());
        s.lesson = Some("mixed-traffic".into());
        s.step = Some(2);
        s.locked = vec!["scheduler.isolation".into()];
        s.locale = Some("zh".into());
        s
    }

    #[test]
    fn links_made_before_still_open() {
        let old = ShareState::decode(OLD_LINK.trim()).unwrap();
        assert_eq!(old, state());
        assert_eq!(old.encode(), OLD_LINK.trim(), "the same state encodes to the same link");
        // the model's part reads from the whole link too
        assert_eq!(SharedRun::decode(OLD_LINK.trim()).unwrap(), state().run());
    }

    #[test]
    fn round_trips() {
        let s = state();
        assert_eq!(ShareState::decode(&s.encode()).unwrap(), s);
    }

    #[test]
    fn unknown_fields_and_invalid_scenarios_are_refused() {
        // the envelope's own messages are sim-core's (tested there)
        let bad = sim_core::share::encode(&serde_json::json!({ "scenario": state().scenario, "tab": "x" }));
        assert!(ShareState::decode(&bad).unwrap_err().contains("unknown field `tab`"));
        let mut s = state();
        s.compare = Some(s.scenario.clone());
        s.compare.as_mut().unwrap().num_gpus = 3;
        let msg = ShareState::decode(&s.encode()).unwrap_err();
        assert!(msg.contains("comparison scenario is invalid: num_gpus"), "{msg}");
    }
}
