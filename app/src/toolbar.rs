//! The transport bar: play, pause, step one iteration, speed (0.1× to 100× simulated time),
//! run to the end, reset, seed, and the A/B switch.

use leptos::prelude::*;

use crate::format;
use crate::ui::{Ui, MAX_SPEED, MIN_SPEED};

const SPEED_STEPS: f64 = 1000.0;

fn speed_to_slider(v: f64) -> f64 {
    (v.clamp(MIN_SPEED, MAX_SPEED) / MIN_SPEED).ln() / (MAX_SPEED / MIN_SPEED).ln() * SPEED_STEPS
}

fn slider_to_speed(x: f64) -> f64 {
    let v = MIN_SPEED * (MAX_SPEED / MIN_SPEED).powf((x / SPEED_STEPS).clamp(0.0, 1.0));
    // round to two significant digits so the readout stays tidy
    let mag = 10f64.powi(v.log10().floor() as i32 - 1);
    ((v / mag).round() * mag).clamp(MIN_SPEED, MAX_SPEED)
}

#[component]
pub fn Toolbar(ui: Ui) -> impl IntoView {
    let finished = Memo::new(move |_| ui.finished());
    let state = move || {
        if ui.fast_forward.get() {
            "running to the end"
        } else if finished.get() {
            "finished"
        } else if ui.playing.get() {
            "playing"
        } else {
            "paused"
        }
    };
    let play_label = move || {
        if finished.get() {
            "↺ Replay"
        } else if ui.playing.get() || ui.fast_forward.get() {
            "❚❚ Pause"
        } else {
            "▶ Play"
        }
    };
    let on_play = move |_| {
        if finished.get_untracked() {
            ui.reset();
        } else if ui.playing.get_untracked() || ui.fast_forward.get_untracked() {
            ui.playing.set(false);
            ui.fast_forward.set(false);
            ui.refresh(true);
        } else {
            ui.playing.set(true);
        }
    };
    let seed = Memo::new(move |_| ui.drafts[0].with(|s| s.seed));
    let seed_err = RwSignal::new(None::<String>);
    let set_seed = move |v: u64| {
        seed_err.set(None);
        ui.drafts[0].update(|s| s.seed = v);
        if ui.ab.get_untracked() {
            ui.drafts[1].update(|s| s.seed = v);
        }
    };
    let time = move || ui.views[0].with(|v| v.as_ref().map_or(0.0, |v| v.now_s));
    let quick = [1.0, 10.0, 100.0]
        .into_iter()
        .map(|v| {
            view! {
                <button
                    class="chip"
                    class:active={move || (ui.speed.get() - v).abs() < 1e-9}
                    data-testid=format!("speed-{}", format::plain(v))
                    on:click=move |_| ui.speed.set(v)
                >{format::speed(v)}</button>
            }
        })
        .collect_view();

    view! {
        <div class="toolbar" role="toolbar" aria-label="Simulation controls">
            <button class="btn primary" data-testid="play" on:click=on_play aria-keyshortcuts="Space">{play_label}</button>
            <button class="btn" data-testid="step" title="Advance by one scheduler iteration (→)" aria-keyshortcuts="ArrowRight" on:click=move |_| ui.step()>"▶| Step"</button>
            <div class="speed">
                <label for="speed">"Speed"</label>
                <input
                    id="speed"
                    type="range"
                    min="0"
                    max=SPEED_STEPS
                    step="1"
                    data-testid="speed"
                    aria-valuetext=move || format!("{} simulated time", format::speed(ui.speed.get()))
                    prop:value=move || speed_to_slider(ui.speed.get()).to_string()
                    on:input={ move |ev| {
                        if let Ok(x) = event_target_value(&ev).parse::<f64>() {
                            ui.speed.set(slider_to_speed(x));
                        }
                    } }
                />
                <output data-testid="speed-value" for="speed">{move || format::speed(ui.speed.get())}</output>
                <span class="chips">{quick}</span>
            </div>
            <button
                class="btn"
                data-testid="run-to-end"
                title="Fast-forward until every request has ended"
                disabled=move || finished.get()
                on:click=move |_| ui.fast_forward.set(true)
            >"▶▶ Run to end"</button>
            <button class="btn" data-testid="reset" title="Restart from t = 0 with the same seed" on:click=move |_| ui.reset()>"⟲ Reset"</button>
            <div class="seed">
                <label for="seed">"Seed"</label>
                <input
                    id="seed"
                    type="text"
                    inputmode="numeric"
                    class="num seed-input"
                    data-testid="seed"
                    prop:value=move || seed.get().to_string()
                    on:change={ move |ev| match event_target_value(&ev).trim().parse::<u64>() {
                        Ok(v) => set_seed(v),
                        Err(_) => seed_err.set(Some("a whole number ≥ 0".into())),
                    } }
                />
                <button class="btn small-btn" title="Next seed: different arrivals" data-testid="next-seed" on:click=move |_| set_seed(seed.get_untracked().wrapping_add(1))>"+1"</button>
                <span class="err inline" role="alert">{move || seed_err.get()}</span>
            </div>
            <button
                class="btn"
                class:active=move || ui.ab.get()
                data-testid="ab-toggle"
                aria-pressed=move || ui.ab.get().to_string()
                title="Two configurations side by side on the same arrivals"
                on:click=move |_| if ui.ab.get_untracked() { ui.ab.set(false); ui.editing.set(0); } else { ui.start_ab(None); }
            >"A/B compare"</button>
            <p class="status">
                <span class="state" data-testid="run-state">{state}</span>
                " · t = "
                // milliseconds show while paused, where a step may advance only a few
                <span data-testid="sim-time">{move || if ui.playing.get() { format!("{:.2}", time()) } else { format!("{:.3}", time()) }}</span>
                " s"
                <span class="warn" class:hidden=move || !ui.behind.get()>" · the browser cannot keep up with this speed"</span>
                // two animation names, alternated, so the note fades in again at every restart
                <span
                    class=move || match ui.restarts.get() { 0 => "flash hidden", n if n % 2 == 0 => "flash fa", _ => "flash fb" }
                    data-testid="restarted"
                >"restarted from t = 0"</span>
            </p>
        </div>
    }
}
