//! The lab's whole state as a versioned, URL-safe string: scenario, lesson and step, locked
//! controls, locale, exercise. Opening a shared link reproduces the same numbers, because the
//! scenario carries its seed and the simulation is deterministic.
//!
//! Format: `<version>.<base64url(JSON)>`, e.g. `1.eyJzY2VuYXJpbyI6...`. An unreadable string, or
//! one from a newer version, is an error with a message; the page then falls back to the
//! default scenario.

use crate::scenario::Scenario;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

pub const SHARE_VERSION: u32 = 1;

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
    /// Controls the learner may not change (a teacher's link).
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

    pub fn encode(&self) -> String {
        let json = serde_json::to_string(self).expect("state serialises");
        format!("{SHARE_VERSION}.{}", URL_SAFE_NO_PAD.encode(json.as_bytes()))
    }

    /// Reads a shared state; the scenario inside is validated like any other.
    pub fn decode(s: &str) -> Result<ShareState, String> {
        let (v, body) = s.split_once('.').ok_or_else(|| "the link's lab state has no version".to_string())?;
        let v: u32 = v.parse().map_err(|_| format!("the link's lab state has an unreadable version \"{v}\""))?;
        if v > SHARE_VERSION {
            return Err(format!("the link was made by a newer version of the lab (state version {v}; this one reads up to {SHARE_VERSION})"));
        }
        if v == 0 {
            return Err("the link's lab state has version 0, which never existed".into());
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(body.trim_end_matches('='))
            .map_err(|_| "the link's lab state is damaged (not base64url)".to_string())?;
        let text = String::from_utf8(bytes).map_err(|_| "the link's lab state is damaged (not UTF-8)".to_string())?;
        let de = &mut serde_json::Deserializer::from_str(&text);
        let state: ShareState = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            format!("the link's lab state is invalid: {path} {}", e.into_inner())
        })?;
        state.scenario.validate().map_err(|e| format!("the link's scenario is invalid: {e}"))?;
        if let Some(c) = &state.compare {
            c.validate().map_err(|e| format!("the link's comparison scenario is invalid: {e}"))?;
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> ShareState {
        let mut s = ShareState::new(crate::presets::find("mixed-isolated").unwrap().scenario());
        s.lesson = Some("mixed-traffic".into());
        s.step = Some(2);
        s.locked = vec!["scheduler.isolation".into()];
        s.locale = Some("zh".into());
        s
    }

    #[test]
    fn round_trips_and_stays_url_safe() {
        let s = state();
        let e = s.encode();
        assert!(e.starts_with("1."));
        assert!(e.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'));
        assert_eq!(ShareState::decode(&e).unwrap(), s);
        assert!(e.len() < 4000, "{}", e.len());
    }

    #[test]
    fn bad_or_newer_links_give_messages() {
        let e = state().encode();
        assert!(ShareState::decode("nonsense").unwrap_err().contains("no version"));
        assert!(ShareState::decode(&e.replacen("1.", "9.", 1)).unwrap_err().contains("newer version"));
        assert!(ShareState::decode("1.@@@").unwrap_err().contains("damaged"));
        let truncated = &e[..e.len() / 2];
        assert!(ShareState::decode(truncated).is_err());
        // a valid encoding of an invalid scenario names the field
        let mut s = state();
        s.scenario.scheduler.max_num_seqs = 0;
        let msg = ShareState::decode(&s.encode()).unwrap_err();
        assert!(msg.contains("scheduler.max_num_seqs must be 1..=4096"), "{msg}");
    }
}
