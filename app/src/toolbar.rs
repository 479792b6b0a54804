//! The transport bar: play, pause, step one iteration, speed (0.1× to 100× simulated time),
//! run to the end, reset, seed, the A/B switch and the share link.

use app_model::controls::LOG_STEPS;
use app_model::transport::{restart_flash, sim_time_text, slider_to_speed, speed_to_slider, PlayAction, PlayState};
use leptos::prelude::*;
use sim_core::decimal::parse_f64;

use crate::i18n::{t, tf, tx};
use crate::icon;
use crate::share::ShareButton;
use crate::ui::use_ui;
use app_model::format;

#[component]
pub fn Toolbar() -> impl IntoView {
    let ui = use_ui();
    let finished = Memo::new(move |_| ui.finished());
    // a lesson before the learner's prediction holds the stage at its set-up
    let held = Memo::new(move |_| ui.withheld());
    // the state's code (data-state, for scripts) and its words
    let state = Memo::new(move |_| PlayState::of(held.get(), ui.fast_forward.get(), finished.get(), ui.playing.get()));
    let play_label = move || {
        let action = PlayAction::of(finished.get(), ui.playing.get() || ui.fast_forward.get(), held.get());
        let d = match action {
            PlayAction::Replay => icon::REPLAY,
            PlayAction::Pause => icon::PAUSE,
            PlayAction::Play => icon::PLAY,
        };
        view! { {icon::svg(d)}{t(action.key())} }
    };
    let seed_locked = Memo::new(move |_| crate::control_field::locked_at(ui, "seed"));
    let on_play = move |_| ui.toggle_play();
    let seed = Memo::new(move |_| ui.drafts[0].with(|s| s.seed));
    let seed_err = RwSignal::new(None::<app_model::messages::Msg>);
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
        <div class="toolbar" role="group" aria-label=tx("toolbar.aria")>
            <button
                class="btn primary"
                data-testid="play"
                on:click=on_play
                aria-keyshortcuts="Space"
                disabled=move || held.get()
                title=move || if held.get() { t("toolbar.held") } else { String::new() }
            >{play_label}</button>
            <button
                class="btn"
                data-testid="step"
                title=move || if held.get() { t("toolbar.held") } else { t("toolbar.step_title") }
                aria-keyshortcuts="ArrowRight"
                disabled=move || held.get()
                on:click=move |_| ui.step()
            >{icon::svg(icon::STEP)}<span class="lbl">{tx("toolbar.step")}</span></button>
            <div class="speed">
                <label for="speed">{tx("toolbar.speed")}</label>
                <input
                    id="speed"
                    type="range"
                    min="0"
                    max=LOG_STEPS
                    step="1"
                    data-testid="speed"
                    aria-valuetext=move || tf("toolbar.speed_value", &[("speed", format::speed(ui.speed.get()))])
                    prop:value=move || speed_to_slider(ui.speed.get()).to_string()
                    on:input={ move |ev| {
                        if let Some(x) = parse_f64(&event_target_value(&ev)) {
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
                title=tx("toolbar.run_to_end_title")
                disabled=move || finished.get() || held.get()
                on:click=move |_| ui.fast_forward.set(true)
            >{icon::svg(icon::TO_END)}<span class="lbl">{tx("toolbar.run_to_end")}</span></button>
            <button class="btn" data-testid="reset" title=tx("toolbar.reset_title") on:click=move |_| ui.reset()>{icon::svg(icon::RESET)}<span class="lbl">{tx("toolbar.reset")}</span></button>
            <div class="seed">
                <label for="seed">{tx("toolbar.seed")}</label>
                <input
                    id="seed"
                    type="text"
                    inputmode="numeric"
                    class="num seed-input"
                    data-testid="seed"
                    disabled=move || seed_locked.get()
                    title=move || if seed_locked.get() { t("ctl.locked") } else { String::new() }
                    prop:value=move || seed.get().to_string()
                    on:change={ move |ev| {
                        let text = event_target_value(&ev);
                        match app_model::controls::read_seed(&text) {
                            Some(v) => set_seed(v),
                            None => seed_err.set(Some(app_model::messages::seed_message(&text))),
                        }
                    } }
                />
                <button class="btn small-btn" title=tx("toolbar.next_seed_title") aria-label=tx("toolbar.next_seed_title") disabled=move || seed_locked.get() data-testid="next-seed" on:click=move |_| set_seed(seed.get_untracked().wrapping_add(1))>"+1"</button>
                <span class="err inline" role="alert" data-testid="seed-error">{move || seed_err.with(|m| m.as_ref().map(crate::i18n::msg))}</span>
            </div>
            <button
                class="btn ab-toggle"
                class:active=move || ui.ab.get()
                data-testid="ab-toggle"
                aria-pressed=move || ui.ab.get().to_string()
                title=tx("toolbar.ab_title")
                on:click=move |_| if ui.ab.get_untracked() { ui.stop_ab() } else { ui.start_ab(None) }
            >{tx("toolbar.ab")}</button>
            <ShareButton/>
            <p class="status">
                <span class="state" data-testid="run-state" data-state=move || state.get().code()>{move || t(state.get().key())}</span>
                " · t = "
                // milliseconds show while paused, where a step may advance only a few
                // data-us: the exact simulated time (a step may end an iteration within the
                // millisecond the text shows)
                <span class="sim-time" data-testid="sim-time" data-us=move || format!("{:.0}", time() * 1e6)>{move || sim_time_text(time(), ui.playing.get())}</span>
                " s"
                <span class="warn" class:hidden=move || !ui.behind.get()>{tx("toolbar.behind")}</span>
                <span
                    class=move || restart_flash(ui.restarts.get())
                    data-testid="restarted"
                >{tx("toolbar.restarted")}</span>
            </p>
        </div>
    }
}

/// On a phone the toolbar scrolls away with the page, and this bar stays at the top instead:
/// play or pause, and the key numbers (p99 TTFT and TPOT, goodput, KV in use), so a learner
/// changing a setting far down the page sees what it does (hidden on wider screens, where the
/// toolbar and the metrics panel are both in view).
#[component]
pub fn PhoneBar() -> impl IntoView {
    let ui = use_ui();
    let held = Memo::new(move |_| ui.withheld());
    let playing = Memo::new(move |_| (ui.playing.get() || ui.fast_forward.get()) && !held.get() && !ui.finished());
    let label = move || if playing.get() { t("toolbar.pause") } else { t("toolbar.play") };
    view! {
        <div class="phone-bar" data-testid="phone-bar">
            <button
                class="btn primary"
                data-testid="phone-play"
                aria-label=label
                title=label
                disabled=move || held.get()
                on:click=move |_| ui.toggle_play()
            >{move || icon::svg(if playing.get() { icon::PAUSE } else { icon::PLAY })}</button>
            <crate::metrics_panel::KeyNumbers run=app_model::Run::A/>
        </div>
    }
}
