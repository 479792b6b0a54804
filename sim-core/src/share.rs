//! Shared links: a versioned, URL-safe envelope for any state, and the model's part of a link —
//! the scenario (it carries its seed, and the simulation is deterministic, so a link reproduces
//! the same numbers) and the second scenario of an A/B comparison.
//!
//! Format: `<version>.<base64url(JSON)>`, e.g. `1.eyJzY2VuYXJpbyI6...`. An unreadable string, or
//! one from a newer version, is an error with a message. What else a page puts in the JSON (the
//! open lesson, the language) is the page's business: [`SharedRun`] reads its part and ignores
//! the rest.

use crate::scenario::Scenario;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub const SHARE_VERSION: u32 = 1;

/// `state` as `1.<base64url(JSON)>`.
pub fn encode<T: Serialize>(state: &T) -> String {
    let json = serde_json::to_string(state).expect("state serialises");
    format!("{SHARE_VERSION}.{}", URL_SAFE_NO_PAD.encode(json.as_bytes()))
}

/// Reads a state written by [`encode`] (by this version or an older one).
pub fn decode<T: DeserializeOwned>(link: &str) -> Result<T, String> {
    let (v, body) = link.split_once('.').ok_or_else(|| "the link's lab state has no version".to_string())?;
    let v: u32 = v.parse().map_err(|_| format!("the link's lab state has an unreadable version \"{v}\""))?;
    if v > SHARE_VERSION {
        return Err(format!(
            "the link was made by a newer version of the lab (state version {v}; this one reads up to {SHARE_VERSION})"
        ));
    }
    if v == 0 {
        return Err("the link's lab state has version 0, which never existed".into());
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(body.trim_end_matches('='))
        .map_err(|_| "the link's lab state is damaged (not base64url)".to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "the link's lab state is damaged (not UTF-8)".to_string())?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        format!("the link's lab state is invalid: {path} {}", e.into_inner())
    })
}

/// The model's part of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedRun {
    pub scenario: Scenario,
    /// Second configuration of an A/B comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Scenario>,
}

impl SharedRun {
    pub fn encode(&self) -> String {
        encode(self)
    }

    /// Reads the scenarios of a link (a page's link too: its other fields are ignored) and
    /// validates them.
    pub fn decode(link: &str) -> Result<SharedRun, String> {
        let run: SharedRun = decode(link)?;
        run.check()?;
        Ok(run)
    }

    /// Validates both scenarios; the message says which one is wrong.
    pub fn check(&self) -> Result<(), String> {
        self.scenario.validate().map_err(|e| format!("the link's scenario is invalid: {e}"))?;
        if let Some(c) = &self.compare {
            c.validate().map_err(|e| format!("the link's comparison scenario is invalid: {e}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> SharedRun {
        let s = crate::presets::find("mixed-isolated").unwrap().scenario();
        SharedRun { scenario: s.clone(), compare: Some(s) }
    }

    #[test]
    fn round_trips_and_stays_url_safe() {
        let r = run();
        let e = r.encode();
        assert!(e.starts_with("1."));
        assert!(e.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'));
        assert_eq!(SharedRun::decode(&e).unwrap(), r);
    }

    #[test]
    fn bad_or_newer_links_give_messages() {
        let e = run().encode();
        assert!(SharedRun::decode("nonsense").unwrap_err().contains("no version"));
        assert!(SharedRun::decode(&e.replacen("1.", "9.", 1)).unwrap_err().contains("newer version"));
        assert!(SharedRun::decode(&e.replacen("1.", "0.", 1)).unwrap_err().contains("version 0"));
        assert!(SharedRun::decode("1.@@@").unwrap_err().contains("damaged"));
        assert!(SharedRun::decode(&e[..e.len() / 2]).is_err());
        let mut r = run();
        r.scenario.scheduler.max_num_seqs = 0;
        let msg = SharedRun::decode(&r.encode()).unwrap_err();
        assert!(msg.contains("scenario is invalid: scheduler.max_num_seqs must be 1..=4096"), "{msg}");
    }
}
