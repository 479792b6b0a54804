use wasm_bindgen::prelude::wasm_bindgen;

fn main() {
    app::start();
}

/// Runs a built-in preset to its end in this wasm build and returns the summary as
/// `llmsim run --preset ID` prints it. Reached from the page as `wasmBindings.lab_run_preset`.
#[wasm_bindgen]
pub fn lab_run_preset(id: &str) -> String {
    app::run_preset_json(id)
}

/// Frame-time percentiles, time to the first animated frame and live request counts (JSON).
#[wasm_bindgen]
pub fn lab_stats() -> String {
    app::stats_json()
}

/// Clears the collected frame timings.
#[wasm_bindgen]
pub fn lab_reset_stats() {
    app::reset_stats();
}

/// A guided lesson's outcome on a seed (the lessons' default when none), computed straight
/// through (`Lesson::run`): the answer the runs bear out, the numbers its explanation quotes and
/// the sentences it says, as JSON `{"id", "answer", "numbers", "sentences"}`.
#[wasm_bindgen]
pub fn lab_lesson_outcome(id: &str, seed: Option<u32>) -> String {
    app::lessons::outcome_json(id, seed)
}
