//! The editor's words beside its controls, decided without the DOM: the memory fix offered
//! under a setting while the draft does not fit, the drop-downs' options, the note under the
//! context length, the line under the preset drop-down.

use sim_core::catalog::{self, GpuSpec, ModelSpec};
use sim_core::memory::{self, Bound, Fix};
use sim_core::profile::Engine;
use sim_core::workload::BUILTIN_TRACES;
use sim_core::Scenario;

use crate::controls::Options;
use crate::format;
use crate::messages::Arg;
use crate::words::{Said, Words};

/// The settings the editor offers a memory fix under.
pub const FIXABLE: [&str; 4] = ["num_gpus", "dtype", "gpu_memory_utilization", "max_model_len"];

/// The smallest value of `setting` that would make `s` fit in memory, when `setting` is one the
/// editor offers a fix under and `s` does not fit (sim-core's `memory::fixes`).
pub fn fix_under(s: &Scenario, setting: &str) -> Option<Fix> {
    if !FIXABLE.contains(&setting) {
        return None;
    }
    memory::fixes(s).into_iter().find(|f| f.setting == setting)
}

/// The fix's sentence under its setting (`ctl.fix_*`; its `{value}` as the control shows it).
pub fn fix_key(f: &Fix) -> &'static str {
    match f.bound {
        _ if f.setting == "num_gpus" => "ctl.fix_gpus",
        Bound::AtLeast => "ctl.fix_at_least",
        Bound::AtMost => "ctl.fix_at_most",
        Bound::Exactly => "ctl.fix_exactly",
    }
}

/// The fix's sentence and its button's words, the value as the control shows it ("fp8 (1
/// byte)", "0.22").
pub fn fix_words(w: &dyn Words, f: &Fix) -> (String, String) {
    let shown = match crate::messages::value_arg(f.setting, &f.value) {
        Arg::Key(k) => w.t(k),
        Arg::Text(s) => s,
        _ => String::new(),
    };
    (w.tf(fix_key(f), &[("value", shown.clone())]), w.tf("ctl.fix_use", &[("value", shown)]))
}

/// The line under the preset drop-down: the preset's summary, marked edited once the draft
/// changed since it was loaded ("edited" alone for a scenario no preset gave); nothing while a
/// lesson or an exercise is open.
pub fn preset_line(w: &dyn Words, summary: String, edited: bool, lesson_or_exercise: bool) -> String {
    match (lesson_or_exercise, edited, summary.is_empty()) {
        (true, _, _) => String::new(),
        (false, true, false) => w.tf("ctl.edited", &[("summary", summary)]),
        (false, true, true) => w.t("ctl.edited_alone"),
        (false, false, _) => summary,
    }
}

/// A drop-down's options: each value and its text.
pub fn options(o: Options) -> Vec<(String, Said)> {
    match o {
        Options::Keys(list) => list.iter().map(|&(v, key)| (v.to_string(), Said::key(key))).collect(),
        Options::DraftModels => {
            let head = (String::new(), Said::key("ctl.draft_model.head"));
            std::iter::once(head).chain(options(Options::Models)).collect()
        }
        Options::Models => {
            let model = |m: ModelSpec| (m.id.clone(), Said::Fill("ctl.model.option", model_option(&m).to_vec()));
            catalog::models().into_iter().map(model).collect()
        }
        Options::Gpus => catalog::gpus().into_iter().map(|g| (g.id.clone(), Said::Text(gpu_option(&g)))).collect(),
        Options::Traces => BUILTIN_TRACES.iter().map(|(n, _)| (n.to_string(), Said::Text(n.to_string()))).collect(),
        Options::Engines => {
            Engine::ALL.iter().map(|e| (e.name().to_string(), Said::Text(e.label().to_string()))).collect()
        }
    }
}

/// A model's option in the model drop-down (`ctl.model.option`): its name, its parameters in
/// billions to one decimal, its KV heads.
pub fn model_option(m: &ModelSpec) -> [(&'static str, String); 3] {
    [
        ("name", m.name.clone()),
        ("params", format::plain((m.params_total / 1e8).round() / 10.0)),
        ("kv_heads", m.num_kv_heads.to_string()),
    ]
}

/// A GPU's option in the GPU drop-down: "H100 SXM · $2.50".
pub fn gpu_option(g: &GpuSpec) -> String {
    format!("{} · {}", g.name, format::usd(g.usd_per_hour))
}

/// The note under the context length (`ctl.max_context_note`): the model by its name (its id
/// when it has none) and its context in tokens; `None` when the model is unknown.
pub fn max_context(s: &Scenario) -> Option<[(&'static str, String); 2]> {
    let m = s.model_spec().ok()?;
    let model = if m.name.is_empty() { m.id.clone() } else { m.name.clone() };
    Some([("model", model), ("tokens", format::int(u64::from(m.max_context)))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::catalog;

    fn preset(id: &str) -> Scenario {
        Scenario::from_json(sim_core::presets::find(id).expect("preset").json).expect("valid")
    }

    #[test]
    fn a_draft_that_does_not_fit_is_offered_a_fix_under_its_memory_settings() {
        let fits = preset("chat-latency-first");
        assert!(FIXABLE.iter().all(|s| fix_under(&fits, s).is_none()));
        // one H100 at 0.2 of its memory barely holds the weights
        let mut oom = fits.clone();
        oom.gpu_memory_utilization = 0.2;
        let offered: Vec<Fix> = FIXABLE.iter().filter_map(|s| fix_under(&oom, s)).collect();
        assert!(offered.iter().any(|f| f.setting == "gpu_memory_utilization" && f.bound == Bound::AtLeast));
        for f in &offered {
            assert!(fix_key(f).starts_with("ctl.fix_"));
            if f.setting == "num_gpus" {
                assert_eq!(fix_key(f), "ctl.fix_gpus");
            }
        }
        // a setting the editor offers no fix under gets none, even when sim-core has one
        assert!(fix_under(&oom, "max_num_seqs").is_none());
        let f = |setting: &'static str, bound| Fix { setting, bound, ..offered[0].clone() };
        assert_eq!(fix_key(&f("num_gpus", Bound::AtLeast)), "ctl.fix_gpus");
        assert_eq!(fix_key(&f("dtype", Bound::Exactly)), "ctl.fix_exactly");
        assert_eq!(fix_key(&f("gpu_memory_utilization", Bound::AtLeast)), "ctl.fix_at_least");
        assert_eq!(fix_key(&f("max_model_len", Bound::AtMost)), "ctl.fix_at_most");
    }

    #[test]
    fn options_and_the_context_note_say_the_catalogues_numbers() {
        let mut m = catalog::models().into_iter().next().expect("a model");
        m.params_total = 8.03e9;
        m.num_kv_heads = 8;
        let o = model_option(&m);
        assert_eq!((o[1].1.as_str(), o[2].1.as_str()), ("8", "8"));
        m.params_total = 70.6e9;
        assert_eq!(model_option(&m)[1].1, "70.6");
        let g = catalog::gpus().into_iter().next().expect("a GPU");
        assert_eq!(gpu_option(&g), format!("{} · {}", g.name, format::usd(g.usd_per_hour)));
        let s = preset("chat-latency-first");
        let m = s.model_spec().unwrap();
        let [(_, model), (_, tokens)] = max_context(&s).unwrap();
        assert_eq!(model, if m.name.is_empty() { m.id.clone() } else { m.name.clone() });
        assert_eq!(tokens, format::int(u64::from(m.max_context)));
    }

    #[test]
    fn a_fix_says_its_value_as_the_control_shows_it_and_the_preset_line_says_edited() {
        use crate::words::Keys;
        let mut oom = preset("chat-latency-first");
        oom.gpu_memory_utilization = 0.2;
        let f = fix_under(&oom, "gpu_memory_utilization").expect("a fix");
        let (sentence, button) = fix_words(&Keys, &f);
        let shown = match crate::messages::value_arg(f.setting, &f.value) {
            Arg::Text(s) => s,
            other => panic!("a number: {other:?}"),
        };
        assert_eq!(sentence, format!("ctl.fix_at_least{{value={shown}}}"));
        assert_eq!(button, format!("ctl.fix_use{{value={shown}}}"));
        assert_eq!(preset_line(&Keys, "S".into(), false, false), "S");
        assert_eq!(preset_line(&Keys, "S".into(), true, false), "ctl.edited{summary=S}");
        assert_eq!(preset_line(&Keys, String::new(), true, false), "ctl.edited_alone");
        assert_eq!(preset_line(&Keys, "S".into(), true, true), "");
    }

    #[test]
    fn every_drop_down_lists_its_values_with_their_words() {
        use crate::words::Keys;
        let list: &'static [(&str, &str)] = &[("a", "k.a"), ("b", "k.b")];
        assert_eq!(options(Options::Keys(list)), [("a".into(), Said::key("k.a")), ("b".into(), Said::key("k.b"))]);
        let models = options(Options::Models);
        assert_eq!(models.len(), catalog::models().len());
        let m = catalog::models().into_iter().next().expect("a model");
        assert_eq!(models[0], (m.id.clone(), Said::Fill("ctl.model.option", model_option(&m).to_vec())));
        let drafts = options(Options::DraftModels);
        assert_eq!((drafts.len(), drafts[0].1.words(&Keys)), (models.len() + 1, "ctl.draft_model.head{}".into()));
        let g = catalog::gpus().into_iter().next().expect("a GPU");
        assert_eq!(options(Options::Gpus)[0], (g.id.clone(), Said::Text(gpu_option(&g))));
        assert_eq!(options(Options::Traces).len(), BUILTIN_TRACES.len());
        let engines = options(Options::Engines);
        assert_eq!(engines[0].1.words(&Keys), Engine::ALL[0].label());
    }
}
