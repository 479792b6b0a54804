//! The page's state in a shared link: the scenario (and the second one of an A/B comparison)
//! plus what the page had open — lesson and step, exercise, locked controls, language.
//!
//! sim-core owns the envelope and the scenarios' part (`sim_core::share`: `2.<base64url JSON>`
//! with each scenario as a preset id and what differs from it, version checks, scenario
//! validation); this module adds the page's fields. Version-1 links (whole scenarios) read the
//! same as before, since the JSON is the same object.

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
    /// What a teacher's link keeps from the student: the solutions, teacher mode.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hide: Vec<Hidden>,
}

/// A part of the page a teacher's link can hide from the students who open it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Hidden {
    /// "Show a solution" on every exercise.
    Solutions,
    /// The teacher-mode switch, and with it the link maker and the result-code check.
    Teacher,
}

impl Hidden {
    pub const ALL: [Hidden; 2] = [Hidden::Solutions, Hidden::Teacher];

    /// Its name in a link (`"hide": ["solutions"]`) and in test ids.
    pub fn name(self) -> &'static str {
        match self {
            Hidden::Solutions => "solutions",
            Hidden::Teacher => "teacher",
        }
    }

    /// Ticks (`on`) or unticks this part in the list a teacher's link will hide: once, the
    /// latest ticked last.
    pub fn tick_in(self, parts: &mut Vec<Hidden>, on: bool) {
        parts.retain(|p| *p != self);
        if on {
            parts.push(self);
        }
    }

    /// Translation key of the teacher's checkbox.
    pub fn key(self) -> &'static str {
        match self {
            Hidden::Solutions => "features.teacher.hide.solutions",
            Hidden::Teacher => "features.teacher.hide.teacher",
        }
    }
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
            hide: Vec::new(),
        }
    }

    /// The link's `lab=` value: short (version 2, only what differs from a preset).
    pub fn encode(&self) -> String {
        envelope::encode(self)
    }

    /// The same state as a version-1 link (whole scenarios), as the lab wrote them before.
    pub fn encode_v1(&self) -> String {
        envelope::encode_v1(self)
    }

    /// Reads a shared state; its scenarios are validated like any other.
    pub fn decode(link: &str) -> Result<ShareState, String> {
        let state: ShareState = envelope::decode(link)?;
        state.run().check()?;
        Ok(state)
    }

    /// Whether `other` is the same entry of the browser's history: states that differ only in
    /// settings (a slider's values, the seed) or the language share one entry, and a new preset,
    /// lesson, lesson step, exercise, A/B comparison or lock is a new one, so Back returns to it.
    pub fn same_entry(&self, other: &ShareState) -> bool {
        let name = |s: &ShareState| (s.scenario.name.clone(), s.compare.as_ref().map(|c| c.name.clone()));
        name(self) == name(other)
            && (&self.lesson, self.step, &self.exercise, &self.locked, &self.hide)
                == (&other.lesson, other.step, &other.exercise, &other.locked, &other.hide)
    }

    /// The model's part: the scenarios.
    pub fn run(&self) -> SharedRun {
        SharedRun { scenario: self.scenario.clone(), compare: self.compare.clone() }
    }
}

/// The embed sizes the Share dialog offers (width × height, CSS px); any other is "custom".
pub const EMBED_SIZES: [(u32, u32); 2] = [(640, 400), (800, 500)];

/// The sizes a custom embed may have, px.
pub const EMBED_WIDTH: (u32, u32) = (320, 2000);
pub const EMBED_HEIGHT: (u32, u32) = (240, 1500);

/// A custom embed size typed by hand, or why it cannot be used (the field and its range).
pub fn embed_size(width: &str, height: &str) -> Result<(u32, u32), String> {
    let read =
        |name: &str, text: &str, (lo, hi): (u32, u32)| {
            text.trim().parse::<u32>().ok().filter(|v| (lo..=hi).contains(v)).ok_or_else(|| {
                format!("{name} must be a whole number of pixels from {lo} to {hi}, got {:?}", text.trim())
            })
        };
    Ok((read("width", width, EMBED_WIDTH)?, read("height", height, EMBED_HEIGHT)?))
}

/// The `<iframe>` snippet for a docs page.
pub fn embed_code(src: &str, (width, height): (u32, u32)) -> String {
    let src = src.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        "<iframe src=\"{src}\" width=\"{width}\" height=\"{height}\" title=\"LLM Serving Lab\" \
         style=\"border:0;max-width:100%\" loading=\"lazy\" allow=\"clipboard-write\"></iframe>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every share code docs/embed.md shows a host page sending opens.
    #[test]
    fn the_share_codes_in_the_embedding_docs_open() {
        let doc = include_str!("../../docs/embed.md");
        let codes: Vec<&str> = doc
            .split(['\'', '"'])
            .filter(|w| {
                w.starts_with("2.")
                    && w.len() > 20
                    && w[2..].chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
            .collect();
        assert!(!codes.is_empty(), "docs/embed.md shows no share code");
        for code in codes {
            assert!(ShareState::decode(code).is_ok(), "{code}: {:?}", ShareState::decode(code).err());
        }
    }

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
    fn a_teacher_ticks_a_part_to_hide_once_and_unticks_it() {
        let mut parts = Vec::new();
        Hidden::Teacher.tick_in(&mut parts, true);
        Hidden::Solutions.tick_in(&mut parts, true);
        Hidden::Teacher.tick_in(&mut parts, true);
        assert_eq!(parts, vec![Hidden::Solutions, Hidden::Teacher]);
        Hidden::Solutions.tick_in(&mut parts, false);
        assert_eq!(parts, vec![Hidden::Teacher]);
    }

    #[test]
    fn links_made_before_still_open() {
        let old = ShareState::decode(OLD_LINK.trim()).unwrap();
        assert_eq!(old, state());
        // the scenario now writes its engine profile and prefix caching out, so the same state
        // makes a longer version-1 link, which reads back to it
        assert_eq!(ShareState::decode(&old.encode_v1()).unwrap(), old, "and to a version-1 link of the same state");
        assert_eq!(ShareState::decode(&old.encode()).unwrap(), old, "and to a short link of the same state");
        // the model's part reads from the whole link too
        assert_eq!(SharedRun::decode(OLD_LINK.trim()).unwrap(), state().run());
    }

    #[test]
    fn a_new_preset_lesson_step_or_exercise_is_a_new_history_entry_and_a_setting_is_not() {
        let a = ShareState::new(preset(sim_core::presets::DEFAULT_PRESET));
        let mut slid = a.clone();
        slid.scenario.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: 3.0 };
        slid.scenario.seed = 99;
        slid.locale = Some("zh".into());
        assert!(a.same_entry(&slid), "settings, the seed and the language stay in one entry");
        let other = ShareState::new(preset("static-batching"));
        assert!(!a.same_entry(&other), "another preset");
        let mut ab = a.clone();
        ab.compare = Some(a.scenario.clone());
        assert!(!a.same_entry(&ab), "an A/B comparison");
        let lesson = state();
        let mut next = lesson.clone();
        next.step = Some(3);
        assert!(!lesson.same_entry(&next), "another step");
        let mut ex = a.clone();
        ex.exercise = Some("chat-cheapest".into());
        assert!(!a.same_entry(&ex), "an exercise");
        let mut locked = a.clone();
        locked.locked = vec!["seed".into()];
        assert!(!a.same_entry(&locked), "a lock");
    }

    #[test]
    fn round_trips() {
        let s = state();
        assert_eq!(ShareState::decode(&s.encode()).unwrap(), s);
        let mut hiding = state();
        hiding.hide = vec![Hidden::Solutions, Hidden::Teacher];
        let back = ShareState::decode(&hiding.encode()).unwrap();
        assert_eq!(back.hide, [Hidden::Solutions, Hidden::Teacher]);
        assert!(hiding.encode().len() > s.encode().len(), "hiding is carried by the link");
        for h in Hidden::ALL {
            assert_eq!(serde_json::to_value(h).unwrap(), h.name(), "a link names it as the page does");
        }
        let bad = sim_core::share::encode(&serde_json::json!({"scenario": s.scenario, "hide": ["answers"]}));
        let err = ShareState::decode(&bad).unwrap_err();
        assert!(err.contains("answers") && err.contains("solutions"), "{err}");
    }

    fn preset(id: &str) -> sim_core::Scenario {
        sim_core::presets::find(id).unwrap().scenario()
    }

    /// Typical links, long (version 1) and short: the default preset with one change, a lesson
    /// link, an A/B link.
    fn typical() -> Vec<(&'static str, ShareState)> {
        let mut one = ShareState::new(preset(sim_core::presets::DEFAULT_PRESET));
        one.scenario.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: 12.0 };
        one.locale = Some("en".into());
        let mut ab = ShareState::new(preset("static-batching"));
        ab.compare = Some(preset("continuous-batching"));
        ab.compare.as_mut().unwrap().scheduler.max_num_seqs = 64;
        ab.locale = Some("en".into());
        vec![("default preset, one change", one), ("lesson", state()), ("A/B", ab)]
    }

    #[test]
    fn typical_links_are_short() {
        for (what, s) in typical() {
            let (long, short) = (s.encode_v1().len(), s.encode().len());
            println!("{what}: {long} -> {short} characters");
            assert!(short * 5 < long, "{what}: {short} of {long}");
            assert!(short < 260, "{what}: {short}");
            assert_eq!(ShareState::decode(&s.encode()).unwrap(), s);
        }
    }

    #[test]
    fn page_fields_of_a_short_link_are_checked_too() {
        let bad = format!(
            "2.{}",
            base64_url(&serde_json::json!({ "scenario": { "preset": "static-batching" }, "step": "two" }).to_string())
        );
        let msg = ShareState::decode(&bad).unwrap_err();
        assert!(msg.contains("step invalid type"), "{msg}");
    }

    /// base64url without padding (the envelope's encoding), for hand-made links.
    fn base64_url(text: &str) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let b = text.as_bytes();
        let mut out = String::new();
        for chunk in b.chunks(3) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, x)| n | (*x as u32) << (16 - 8 * i));
            for i in 0..=chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        out
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

    #[test]
    fn custom_embed_sizes_are_checked() {
        assert_eq!(embed_size(" 720 ", "450"), Ok((720, 450)));
        assert!(embed_size("100", "450")
            .unwrap_err()
            .starts_with("width must be a whole number of pixels from 320 to 2000"));
        assert!(embed_size("720", "4.5").unwrap_err().contains("height"));
        assert!(embed_size("", "450").is_err());
    }
}
