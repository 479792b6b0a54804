//! Opening a shared link: decode its state (`sim_core::share`) and check that its scenarios can
//! run — without building a simulation (the page builds each run once, when it starts it).

use crate::share::ShareState;
use sim_core::sim::{BuiltinTraces, TraceLoader};
use sim_core::workload::Trace;
use sim_core::{presets, HbmPlan, Scenario, ScenarioError};

/// Why the link the page was opened with could not be used.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkProblem {
    /// sim-core could not read it: damaged, from a newer version, or an invalid scenario.
    Unreadable(String),
    /// It reads, but its scenario cannot run (for example the model does not fit the GPUs).
    Refused(String),
}

impl LinkProblem {
    /// sim-core's words.
    pub fn message(&self) -> &str {
        match self {
            LinkProblem::Unreadable(m) | LinkProblem::Refused(m) => m,
        }
    }

    /// The lead-in the page puts above sim-core's words (a translation key).
    pub fn lead_key(&self) -> &'static str {
        match self {
            LinkProblem::Unreadable(_) => "share.bad_link",
            LinkProblem::Refused(_) => "share.refused",
        }
    }

    /// `kind` of the `error` event posted to an embedding page.
    pub fn event_kind(&self) -> &'static str {
        match self {
            LinkProblem::Unreadable(_) => "link",
            LinkProblem::Refused(_) => "config",
        }
    }
}

/// Whether a valid scenario can start: its model and GPU exist, the weights fit, every trace
/// loads — what `Simulation::new` checks beyond validation, with the same messages.
pub fn runnable(s: &Scenario) -> Result<(), ScenarioError> {
    s.validate()?;
    let model = s.model_spec()?;
    let gpu = s.gpu_spec()?;
    HbmPlan::new(s, &model, &gpu)?;
    for (i, c) in s.classes.iter().enumerate() {
        if let sim_core::scenario::Arrival::Trace { path, .. } = &c.arrival {
            let field = format!("classes[{i}].arrival.path");
            let text = BuiltinTraces.load(path).map_err(|m| ScenarioError::one(&field, m))?;
            Trace::parse(&text, &field)?;
        }
    }
    Ok(())
}

/// Decodes a shared state and checks that its scenarios can run.
pub fn open(code: &str) -> Result<ShareState, LinkProblem> {
    let state = ShareState::decode(code.trim()).map_err(LinkProblem::Unreadable)?;
    runnable(&state.scenario).map_err(|e| LinkProblem::Refused(e.to_string()))?;
    if let Some(b) = &state.compare {
        runnable(b).map_err(|e| LinkProblem::Refused(e.to_string()))?;
    }
    Ok(state)
}

/// The built-in preset a scenario is, or was edited from (same name); "" when none.
pub fn preset_of(s: &Scenario) -> String {
    let parsed: Vec<(&str, Scenario)> =
        presets::PRESETS.iter().filter_map(|p| Scenario::from_json(p.json).ok().map(|x| (p.id, x))).collect();
    parsed
        .iter()
        .find(|(_, p)| p == s)
        .or_else(|| parsed.iter().find(|(_, p)| p.name.is_some() && p.name == s.name))
        .map(|(id, _)| id.to_string())
        .unwrap_or_default()
}

/// The built-in preset whose JSON gives it the name `name` (the English one), if any: a
/// scenario's heading then uses the preset's translated name.
pub fn preset_named(name: &str) -> Option<&'static str> {
    // parsed once: constant data built into the binary, not page state
    static NAMES: std::sync::LazyLock<Vec<(&'static str, Option<String>)>> = std::sync::LazyLock::new(|| {
        presets::PRESETS.iter().map(|p| (p.id, Scenario::from_json(p.json).ok().and_then(|s| s.name))).collect()
    });
    NAMES.iter().find(|(_, n)| n.as_deref() == Some(name)).map(|(id, _)| *id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Simulation;

    fn preset(id: &str) -> Scenario {
        Scenario::from_json(presets::find(id).expect("preset").json).expect("preset reads")
    }

    #[test]
    fn a_good_link_opens_and_names_its_preset() {
        let mut state = ShareState::new(preset(presets::DEFAULT_PRESET));
        state.compare = Some(preset(presets::DEFAULT_PRESET));
        let opened = open(&state.encode()).expect("opens");
        assert_eq!(opened, state);
        assert_eq!(preset_of(&opened.scenario), presets::DEFAULT_PRESET);
        let mut edited = opened.scenario.clone();
        edited.seed += 1;
        assert_eq!(preset_of(&edited), presets::DEFAULT_PRESET, "edited from it: same name");
        edited.name = Some("mine".into());
        assert_eq!(preset_of(&edited), "");
    }

    #[test]
    fn damaged_links_are_unreadable() {
        for code in ["", "1.notbase64!!", "9.e30", "x"] {
            let p = open(code).expect_err(code);
            assert!(matches!(p, LinkProblem::Unreadable(_)), "{code}: {p:?}");
            assert_eq!((p.event_kind(), p.lead_key()), ("link", "share.bad_link"));
            assert!(!p.message().is_empty());
        }
    }

    #[test]
    fn runnable_agrees_with_building_a_simulation() {
        // every preset runs; a model too big for its GPUs is refused with sim-core's message
        for p in presets::PRESETS {
            let s = preset(p.id);
            assert_eq!(runnable(&s).is_ok(), Simulation::new(&s).is_ok(), "{}", p.id);
        }
        let mut big = preset(presets::DEFAULT_PRESET);
        big.model = sim_core::scenario::ModelRef::Id("llama-3-70b".into());
        big.num_gpus = 1;
        let built = Simulation::new(&big).err().map(|e| e.to_string());
        let checked = runnable(&big).err().map(|e| e.to_string());
        assert!(built.is_some(), "70B on one GPU must not fit");
        assert_eq!(checked, built);
        let mut state = ShareState::new(preset(presets::DEFAULT_PRESET));
        state.compare = Some(big);
        let p = open(&state.encode()).expect_err("refused");
        assert!(matches!(p, LinkProblem::Refused(_)));
        assert_eq!((p.event_kind(), p.lead_key()), ("config", "share.refused"));
        assert_eq!(p.event_kind(), "config");
    }

    #[test]
    fn a_preset_is_found_by_its_own_name_and_nothing_else_is() {
        for p in presets::PRESETS {
            if let Some(name) = preset(p.id).name {
                let id = preset_named(&name).expect("a preset's name names a preset");
                assert_eq!(preset(id).name.as_deref(), Some(name.as_str()));
            }
        }
        assert_eq!(preset_named("my own scenario"), None);
        assert_eq!(preset_named(""), None);
    }
}
