//! The built-in presets as the page names them: a scenario's title for headings (a preset's
//! name in the current language) and a preset's one-line summary.

use crate::i18n::t;

/// A built-in preset's one-line summary in the current language (sim-core's English words when
/// the table has none).
pub fn preset_summary(id: &str) -> String {
    let key = format!("preset.{id}.summary");
    if crate::i18n::has(&key) {
        t(&key)
    } else {
        sim_core::presets::find(id).map(|p| p.summary.to_string()).unwrap_or_default()
    }
}

/// A scenario's name for headings: a built-in preset's name in the current language, any other
/// name as written.
pub fn scenario_title(name: &str) -> String {
    let preset = app_model::link::preset_named(name);
    match preset.map(|id| format!("preset.{id}.name")) {
        Some(key) if crate::i18n::has(&key) => t(&key),
        _ => name.to_string(),
    }
}
