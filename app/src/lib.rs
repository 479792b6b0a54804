//! Browser front end of the LLM Serving Lab.

use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc,
};

use leptos::prelude::*;

mod panic_view;
mod stage;

/// Entry point of the wasm binary: installs the panic view, then mounts the app.
///
/// Opening the page with `?panic` in the query string panics right after mounting,
/// which is how the browser tests check the error view.
pub fn start() {
    panic_view::install();
    mount_to_body(App);
    if query_has_flag("panic") {
        panic!("panic requested by the ?panic query parameter");
    }
}

/// True when the page URL's query string holds `name` or `name=...`.
fn query_has_flag(name: &str) -> bool {
    let search = window().location().search().unwrap_or_default();
    search
        .trim_start_matches('?')
        .split('&')
        .any(|pair| pair.split('=').next() == Some(name))
}

#[component]
pub fn App() -> impl IntoView {
    let (sim_time, set_sim_time) = signal(0.0_f64);
    let (frames, set_frames) = signal(0_u64);

    // The animation loop stops when this component is cleaned up.
    let running = Arc::new(AtomicBool::new(true));
    on_cleanup({
        let running = running.clone();
        move || running.store(false, Ordering::Relaxed)
    });

    let canvas = NodeRef::<leptos::html::Canvas>::new();
    canvas.on_load(move |canvas| {
        stage::run(canvas, running, move |tick| {
            set_sim_time.set(tick.seconds);
            set_frames.set(tick.frame);
        });
    });

    view! {
        <header class="top">
            <h1>"LLM Serving Lab"</h1>
        </header>
        <main class="lab">
            <canvas id="stage" node_ref=canvas width="800" height="450"></canvas>
            <p class="status">
                "sim time "
                <span data-testid="sim-time">{move || format!("{:.2}", sim_time.get())}</span>
                " s · frame "
                <span data-testid="frame">{frames}</span>
            </p>
        </main>
    }
}
