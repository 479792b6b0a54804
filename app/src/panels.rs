//! Page sections around the stage: the stage block (heading, canvas, legend, HBM gauge), the
//! configuration-error banner, the A/B bar and the charts row.

use leptos::prelude::*;

use crate::charts::CHARTS;
use crate::engine::STAGE_IDS;
use crate::glyph;
use crate::hbm::HbmGauge;
use crate::ui::{self, Ui};

/// One run: its heading (in A/B mode), the animated stage, a legend and the memory gauge.
#[component]
pub fn StageBlock(ui: Ui, which: usize) -> impl IntoView {
    let info = ui.infos[which];
    let heading = move || {
        let ab = ui.ab.get();
        info.with(|i| {
            let name = i.as_ref().and_then(|i| i.scenario.name.clone()).unwrap_or_default();
            if ab {
                format!("{} · {}", if which == 0 { "A" } else { "B" }, name)
            } else {
                name
            }
        })
    };
    let diff = move || {
        if which == 0 || !ui.ab.get() {
            return None;
        }
        let a = ui.infos[0].with(|i| i.as_ref().map(|i| i.scenario.clone()))?;
        let b = info.with(|i| i.as_ref().map(|i| i.scenario.clone()))?;
        let d = ui::differences(&a, &b);
        Some(if d.is_empty() {
            "same settings as A".to_string()
        } else {
            format!("differs from A in {}", d.join(", "))
        })
    };
    let legend = move || {
        info.with(|i| {
            let i = i.as_ref()?;
            let isolation = i.scenario.scheduler.isolation && i.class_names.len() > 1;
            Some(
                i.class_names
                    .iter()
                    .enumerate()
                    .map(|(c, name)| {
                        let prio = isolation.then(|| format!(" (priority {})", i.scenario.classes.get(c).map_or(0, |c| c.priority)));
                        view! {
                            <li>
                                <svg class="glyph" viewBox="0 0 16 16" aria-hidden="true"><path d=glyph::svg_path(c) fill=glyph::colour(c)/></svg>
                                <span class="sr-only">{glyph::shape_name(c)}</span>
                                {name.clone()}
                                {prio}
                            </li>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    view! {
        <section class="stage-block" data-testid=if which == 0 { "stage-a" } else { "stage-b" }>
            <header class="stage-head">
                <h2>{heading}</h2>
                <span class="muted small" data-testid="ab-diff">{diff}</span>
            </header>
            <canvas
                id=STAGE_IDS[which]
                class="stage"
                data-testid="stage"
                role="img"
                aria-label="Requests moving from arrival through the queue, prefill and decode to their outcome"
            ></canvas>
            <ul class="legend stage-legend" aria-label="Legend">
                {legend}
                <li><span class="mk mk-bar" aria-hidden="true"></span>"bar = tokens done / needed"</li>
                <li><span class="mk mk-ring" aria-hidden="true"></span>"ring = just preempted, back to the queue"</li>
                <li><span class="mk mk-hatch" aria-hidden="true"></span>"striped = finished, slot held until the static batch ends"</li>
            </ul>
            <HbmGauge ui=ui which=which/>
        </section>
    }
}

/// Why the drafts cannot run. The runs on screen stay (the last good configuration).
#[component]
pub fn ErrorBanner(ui: Ui) -> impl IntoView {
    let banner = move |which: usize| {
        move || {
            let shown = which == 0 || ui.ab.get();
            let err = ui.errors[which].get().filter(|_| shown)?;
            let top: Vec<String> =
                err.errors.iter().filter(|e| e.field.is_empty()).map(|e| e.message.clone()).collect();
            let fields: Vec<(String, String)> = err
                .errors
                .iter()
                .filter(|e| !e.field.is_empty())
                .map(|e| (e.field.clone(), e.message.clone()))
                .collect();
            let label = if ui.ab.get() {
                if which == 0 {
                    "Scenario A: "
                } else {
                    "Scenario B: "
                }
            } else {
                ""
            };
            let title = if top.is_empty() {
                format!(
                    "{label}{} setting{} out of range",
                    fields.len(),
                    if fields.len() == 1 { " is" } else { "s are" }
                )
            } else {
                format!("{label}This configuration cannot run")
            };
            Some(view! {
                <div class="banner error" role="alert" data-testid="config-error">
                    <h3>{title}</h3>
                    {top.into_iter().map(|m| view! { <p class="big-msg" data-testid="config-error-message">{m}</p> }).collect_view()}
                    <ul>
                        {fields.into_iter().map(|(f, m)| view! { <li><code>{f}</code> " " {m}</li> }).collect_view()}
                    </ul>
                    <p class="small">
                        "Still showing the last configuration that ran. "
                        <button
                            class="btn small-btn"
                            data-testid="back-to-running"
                            on:click=move |_| {
                                if let Some(s) = ui.infos[which].with_untracked(|i| i.as_ref().map(|i| i.scenario.clone())) {
                                    ui.drafts[which].set(s);
                                }
                            }
                        >"Back to those settings"</button>
                    </p>
                </div>
            })
        }
    };
    view! { {banner(0)} {banner(1)} }
}

/// A/B mode: which draft the controls edit.
#[component]
pub fn AbTabs(ui: Ui) -> impl IntoView {
    view! {
        <section class="ab-bar" class:hidden=move || !ui.ab.get()>
            <div class="tabs" role="group" aria-label="Edit scenario">
                <span class="small">"Editing"</span>
                <button class="tab" class:active=move || ui.editing.get() == 0 aria-pressed=move || (ui.editing.get() == 0).to_string() data-testid="edit-a" on:click=move |_| ui.editing.set(0)>"A"</button>
                <button class="tab" class:active=move || ui.editing.get() == 1 aria-pressed=move || (ui.editing.get() == 1).to_string() data-testid="edit-b" on:click=move |_| ui.editing.set(1)>"B"</button>
                <button class="btn small-btn" title="Make B a copy of A" data-testid="copy-a-to-b" on:click=move |_| ui.drafts[1].set(ui.drafts[0].get_untracked())>"copy A → B"</button>
            </div>
            <p class="small muted">"A solid, B dashed in the charts. Both restart together on any change."</p>
        </section>
    }
}

/// Ready-made fair comparisons.
#[component]
pub fn AbPairs(ui: Ui) -> impl IntoView {
    let pairs: [(&str, &str, &str); 2] = [
        ("Static vs continuous batching", "static-batching", "continuous-batching"),
        ("Shared vs isolated queues", "mixed-shared", "mixed-isolated"),
    ];
    let pair_buttons = pairs
        .into_iter()
        .map(|(label, a, b)| {
            view! {
                <button class="btn small-btn" data-testid=format!("pair-{a}") on:click=move |_| ui.start_ab(Some((a, b)))>{label}</button>
            }
        })
        .collect_view();
    view! {
        <section class="ab-bar">
            <h2>"Compare A/B"</h2>
            <p class="small muted">"Two configurations on the same arrivals (same seed): the fair way to compare strategies."</p>
            <div class="pairs">{pair_buttons}</div>
        </section>
    }
}

/// The charts: latency CDFs with SLO lines and time series over simulated time.
#[component]
pub fn ChartsRow(ui: Ui) -> impl IntoView {
    let scope = move || {
        let c = ui.class_view.get();
        let name = c.and_then(|c| ui.infos[0].with(|i| i.as_ref().and_then(|i| i.class_names.get(c).cloned())));
        let runs = if ui.ab.get() { " · A solid, B dashed" } else { "" };
        match name {
            Some(n) => format!("Latency CDFs for class “{n}”; time series for all classes{runs}"),
            None => format!("All classes{runs}"),
        }
    };
    view! {
        <section class="charts" aria-label="Charts">
            <header class="panel-head">
                <h2>"Charts"</h2>
                <span class="muted small">{scope}</span>
            </header>
            <div class="chart-grid">
                {CHARTS.iter().map(|(id, title)| view! {
                    <canvas id=*id class="chart" data-testid=*id role="img" aria-label=*title></canvas>
                }).collect_view()}
            </div>
        </section>
    }
}
