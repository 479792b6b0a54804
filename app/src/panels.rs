//! Page sections around the stage: the stage block (heading, canvas, legend, HBM gauge), the
//! configuration-error banner, the A/B bar and the charts row.

use app_model::panels::{legend, sections};
use app_model::Run;
use leptos::prelude::*;

use crate::charts;
use crate::defs::say;
use crate::engine::STAGE_IDS;
use crate::first::LimitBadge;
use crate::hbm::HbmGauge;
use crate::i18n::{t, tf, tx, PAGE};
use crate::presets::scenario_title;
use crate::ui::use_ui;
use lab_canvas::glyph;

/// One run: its heading (in A/B mode), the animated stage, a legend and the memory gauge.
#[component]
pub fn StageBlock(run: Run) -> impl IntoView {
    let ui = use_ui();
    let info = ui.infos[run.index()];
    let heading = move || {
        let name = info.with(|i| i.as_ref().and_then(|i| i.scenario.name.as_deref().map(scenario_title)));
        sections::stage_heading(run, name.unwrap_or_default(), ui.ab.get())
    };
    let diff = move || {
        if run == Run::A || !ui.ab.get() {
            return None;
        }
        let a = ui.infos[0].with(|i| i.as_ref().map(|i| i.scenario.clone()))?;
        let b = info.with(|i| i.as_ref().map(|i| i.scenario.clone()))?;
        // named as the editor names them (its labels, in the page's language)
        let (key, args) = app_model::ab::diff_text(&a, &b, &|k| t(k));
        Some(tf(key, &args))
    };
    let legend = move || {
        info.with(|i| {
            let i = i.as_ref()?;
            Some(
                i.class_names
                    .iter()
                    .enumerate()
                    .map(|(c, name)| {
                        view! {
                            <li>
                                {crate::icon::class_glyph(c)}
                                <span class="sr-only">{t(glyph::shape_name(c))}</span>
                                {name.clone()}
                                {legend::priority(&i.scenario, c).as_ref().map(say)}
                            </li>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let marks = legend::MARKS
        .iter()
        .map(|m| {
            let hidden = move || !info.with(|i| i.as_ref().is_some_and(|i| (m.shown)(&i.scenario)));
            view! {
                <li class:hidden=hidden data-testid=m.test_id>
                    {m.mark.map(|mk| view! { <span class=format!("mk {mk}") aria-hidden="true"></span> })}
                    {tx(m.key)}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="stage-block" data-testid=format!("stage-{}", run.slug())>
            <header class="stage-head">
                <h2>{heading}</h2>
                <span class="muted small" data-testid="ab-diff">{diff}</span>
                <LimitBadge run=run/>
            </header>
            <canvas
                id=STAGE_IDS[run.index()]
                class="stage"
                data-testid="stage"
                role="img"
                // what the picture shows now, in words, refreshed at the calm tick
                aria-label=move || ui.views[run.index()].with(|v| sections::stage_aria(PAGE, v.as_ref()))
            ></canvas>
            <crate::lessons::StageCallouts run=run/>
            <ul class="legend stage-legend" aria-label=tx("panels.legend")>
                <li class="legend-note muted">{tx("panels.legend_classes")}</li>
                {legend}
                {marks}
            </ul>
            <crate::replicas::ReplicaGrid run=run/>
            <HbmGauge run=run/>
        </section>
    }
}

/// Why the drafts cannot run. The runs on screen stay (the last good configuration).
#[component]
pub fn ErrorBanner() -> impl IntoView {
    let ui = use_ui();
    let banner = move |run: Run| {
        move || {
            let shown = run == Run::A || ui.ab.get();
            let err = ui.errors[run.index()].get().filter(|_| shown)?;
            // in the page's language, each setting named by its label
            let names = crate::control_field::class_names(ui, run);
            let sections::ErrorBanner { title, whole, fields } =
                sections::ErrorBanner::of(PAGE, &err, &names, run, ui.ab.get());
            Some(view! {
                <div class="banner error" role="alert" data-testid="config-error">
                    <h3>{title}</h3>
                    {whole.into_iter().map(|m| view! { <p class="big-msg" data-testid="config-error-message">{m}</p> }).collect_view()}
                    <ul>
                        {fields.into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}
                    </ul>
                    <p class="small">
                        {t("panels.err_still")} " "
                        <button
                            class="btn small-btn"
                            data-testid="back-to-running"
                            on:click=move |_| {
                                if let Some(s) = ui.infos[run.index()].with_untracked(|i| i.as_ref().map(|i| i.scenario.clone())) {
                                    ui.drafts[run.index()].set(s);
                                }
                            }
                        >{t("panels.err_back")}</button>
                    </p>
                </div>
            })
        }
    };
    view! { {banner(Run::A)} {banner(Run::B)} }
}

/// A/B mode: which draft the controls edit.
#[component]
pub fn AbTabs() -> impl IntoView {
    let ui = use_ui();
    let tab = move |run: Run| {
        let on = Signal::derive(move || ui.editing.get() == run);
        let pick = Callback::new(move |()| ui.editing.set(run));
        crate::kit::pressed_tab(on, format!("edit-{}", run.slug()), run.label().into_any(), pick)
    };
    view! {
        <section class="ab-bar" class:hidden=move || !ui.ab.get()>
            <div class="tabs" role="group" aria-label=tx("panels.edit_group")>
                <span class="small">{tx("panels.editing")}</span>
                {tab(Run::A)}
                {tab(Run::B)}
                <button class="btn small-btn" title=tx("panels.copy_ab_title") data-testid="copy-a-to-b" on:click=move |_| ui.drafts[1].set(ui.drafts[0].get_untracked())>{tx("panels.copy_ab")}</button>
            </div>
            <p class="small muted">{tx("panels.ab_note")}</p>
        </section>
    }
}

/// Ready-made fair comparisons.
#[component]
pub fn AbPairs() -> impl IntoView {
    let ui = use_ui();
    let pair_buttons = app_model::ab::PAIRS
        .into_iter()
        .map(|(label, a, b)| {
            view! {
                <button class="btn small-btn" data-testid=format!("pair-{a}") on:click=move |_| ui.start_ab(Some((a, b)))>{tx(label)}</button>
            }
        })
        .collect_view();
    view! {
        <section class="ab-bar">
            <h2>{tx("panels.compare")}</h2>
            <p class="small muted">{tx("panels.compare_note")}</p>
            <div class="pairs">{pair_buttons}</div>
        </section>
    }
}

/// The charts: latency CDFs with SLO lines and time series over simulated time.
#[component]
pub fn ChartsRow() -> impl IntoView {
    let ui = use_ui();
    let scope = move || {
        let c = ui.class_view.get();
        let name = c.and_then(|c| ui.infos[0].with(|i| i.as_ref().and_then(|i| i.class_names.get(c).cloned())));
        sections::charts_scope(PAGE, name, ui.ab.get())
    };
    view! {
        <section class="charts" aria-label=tx("panels.charts")>
            <header class="panel-head">
                <h2>{tx("panels.charts")}</h2>
                <span class="muted small">{scope}</span>
            </header>
            <div class="chart-grid">
                {charts::figures(Callback::new(move |()| ui.refresh(true)))}
            </div>
        </section>
    }
}
