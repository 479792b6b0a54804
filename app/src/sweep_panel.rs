//! Sweeps: the scenario being edited at a series of values of one knob, run in slices so the page
//! stays responsive (progress, cancel), drawn as goodput and throughput against the knob and p99
//! TTFT against the knob, with the knee — the value with the most goodput — marked. The points
//! download as the same CSV `llmsim sweep` writes. The form's rules and the sweep on screen are
//! `app_model::tabs::sweep`.

use app_model::jobs::{Status, SweepJob};
use app_model::tabs::sweep::{self as model, SweepForm, SweepRun};
use app_model::tabs::sweep_chart as chart;
use lab_content::sweep::{SweepParam, SweepPoint};
use leptos::prelude::*;

use crate::charts::paint;
use crate::i18n::{t, tf, tx, PAGE};
use crate::kit::{self, button, data_url, text, Jobs};
use crate::theme::Look;
use crate::theme::PageWords;
use crate::ui::{use_ui, Ui};
use app_model::format;

const CHART_H: f64 = 230.0;

pub fn param_label(p: SweepParam) -> String {
    t(model::label_key(p))
}

const INPUT_IDS: [&str; 3] = ["sweep-from", "sweep-to", "sweep-steps"];
const INPUT_LABELS: [&str; 3] = ["features.sweep.from", "features.sweep.to", "features.sweep.steps"];

#[derive(Clone, Copy)]
struct State {
    ui: Ui,
    form: RwSignal<SweepForm>,
    run: RwSignal<SweepRun>,
    error: RwSignal<Option<sim_core::ScenarioError>>,
    runner: Jobs<SweepJob>,
}

impl State {
    fn start(self) {
        let st = self;
        let ui = st.ui;
        let which = if ui.ab.get_untracked() { ui.editing.get_untracked().index() } else { 0 };
        let base = ui.drafts[which].get_untracked();
        let Some(started) = st.form.try_update(|f| f.start(&base)).flatten() else { return };
        let (sweep, run) = match started {
            Ok(started) => started,
            Err(e) => return st.error.set(Some(e)),
        };
        st.error.set(None);
        st.run.set(run);
        kit::start(st.runner, SweepJob::new(sweep), move |status| match status {
            Status::Working(p) => st.run.update(|r| r.advanced(p.share, p.new_points)),
            Status::Finished(points) => st.run.update(|r| r.finished(points)),
            Status::Stopped => {}
        });
    }

    fn cancel(self) {
        kit::cancel(self.runner);
        self.run.update(SweepRun::cancelled);
    }

    fn status(self) -> String {
        self.run.with(|r| r.status(PAGE))
    }
}

/// The knob and the range.
fn form(st: State) -> AnyView {
    let param = Memo::new(move |_| st.form.with(|f| f.param));
    let options = SweepParam::ALL
        .into_iter()
        .map(
            |q| view! { <option value=q.id() prop:selected=move || param.get() == q>{text(Box::new(move || param_label(q)))}</option> },
        )
        .collect_view();
    let inputs = (0..3)
        .map(|i| {
            let id = INPUT_IDS[i];
            let err = Memo::new(move |_| st.form.with(|f| f.errors[i]));
            let message = move || err.get().map(|e| tf(e.key(), &e.args()));
            view! {
                <div class="field sweep-field" class:invalid=move || err.get().is_some()>
                    <label for=id>{tx(INPUT_LABELS[i])}</label>
                    <input
                        id=id
                        type="text"
                        inputmode="decimal"
                        class="num"
                        data-testid=id
                        prop:value=text(Box::new(move || st.form.with(|f| f.inputs[i].clone())))
                        aria-invalid=text(Box::new(move || err.get().is_some().to_string()))
                        aria-describedby=format!("{id}-err")
                        on:input=move |ev| st.form.update(|f| f.inputs[i] = event_target_value(&ev))
                        on:keydown=move |ev: web_sys::KeyboardEvent| {
                            if ev.key() == "Enter" {
                                ev.prevent_default();
                                st.start();
                            }
                        }
                    />
                    <p class="err" id=format!("{id}-err") role="alert" data-testid=format!("{id}-error")>{text(Box::new(move || message().unwrap_or_default()))}</p>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="sweep-inputs">
            <div class="field sweep-field">
                <label for="sweep-param">{tx("features.sweep.knob")}</label>
                <select
                    id="sweep-param"
                    data-testid="sweep-param"
                    on:change=move |ev| {
                        if let Some(p) = SweepParam::parse(&event_target_value(&ev)) {
                            st.form.update(|f| f.set_param(p));
                        }
                    }
                >
                    {options}
                </select>
            </div>
            {inputs}
        </div>
    }
    .into_any()
}

fn buttons(st: State) -> AnyView {
    let running = Signal::derive(move || st.run.with(|r| r.phase == model::Phase::Running));
    let idle = Signal::derive(move || !running.get());
    let csv =
        move || st.run.with(|r| r.csv().map(|c| (data_url("text/csv", &c), format!("sweep-{}.csv", r.param.id()))));
    view! {
        <div class="sweep-buttons">
            {button("primary", Some("sweep-run"), "features.sweep.run", Some(running), Callback::new(move |()| st.start()))}
            {button("", Some("sweep-cancel"), "lessons.cancel", Some(idle), Callback::new(move |()| st.cancel()))}
            {move || csv().map(|(href, name)| kit::download("btn", href, name, "sweep-csv", "features.sweep.csv"))}
        </div>
    }
    .into_any()
}

/// The knee in words and the table of points.
fn results(st: State) -> AnyView {
    let body = move || {
        st.run.with(|r| {
            if r.points.is_empty() {
                return None;
            }
            let p = r.param;
            let knee_at = r.knee();
            let note = r.knee_note().map(|(key, args)| {
                let testid = if knee_at.is_some() { "sweep-knee" } else { "sweep-no-knee" };
                view! { <p class="knee-note" data-testid=testid>{tf(key, &args)}</p> }
            });
            let heads = kit::heads(std::iter::once(param_label(p)).chain(chart::COLUMNS.iter().map(|k| t(k))));
            let rows = r.points.iter().map(|pt| point_row(pt, knee_at)).collect_view().into_any();
            let caption = t("features.sweep.table");
            Some(view! { {note}{kit::table("runs-table sweep-table", Some("sweep-table"), caption, heads, rows)} })
        })
    };
    view! { <div>{body}</div> }.into_any()
}

fn point_row(pt: &SweepPoint, knee_at: Option<(f64, f64)>) -> AnyView {
    let value = format::plain(pt.value);
    match &pt.summary {
        Some(s) => {
            let is_knee = knee_at.is_some_and(|k| k.0 == pt.value);
            let tag = is_knee.then(|| view! { " "<span class="knee-tag">{t("features.sweep.knee")}</span> });
            let cells = kit::num_cells(chart::cells(s));
            view! { <tr data-testid="sweep-point" class:hl-row=is_knee><th scope="row">{value}{tag}</th>{cells}</tr> }
                .into_any()
        }
        None => view! {
            <tr data-testid="sweep-point" class="point-error">
                <th scope="row">{value}</th>
                // in the page's language when sim-core said it as structured problems
                <td colspan="5" class="err">{match &pt.problem {
                    Some(e) => kit::error_list(e),
                    None => pt.error.clone().unwrap_or_default().into_any(),
                }}</td>
            </tr>
        }
        .into_any(),
    }
}

#[component]
pub fn SweepPanel(#[prop(into)] visible: Signal<bool>) -> impl IntoView {
    let ui = use_ui();
    let lang = crate::i18n::use_lang();
    let st = State {
        ui,
        form: RwSignal::new(SweepForm::default()),
        run: RwSignal::new(SweepRun::default()),
        error: RwSignal::new(None),
        runner: kit::jobs(),
    };
    // The charts follow the points, the language and the window size; the canvases are redrawn
    // after the page has them (they are rebuilt when the knob's name changes).
    let resized = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n = n.wrapping_add(1)));
    on_cleanup(move || handle.remove());
    kit::effect(Box::new(move || {
        resized.track();
        lang.track();
        if !visible.get() {
            return;
        }
        let (p, slo, pts) = st.run.with(|r| (r.param, r.slo_ms, r.points.clone()));
        request_animation_frame(move || draw("sweep-chart-good", "sweep-chart-ttft", p, &pts, slo, ui.look()));
    }));
    let base_name = move || {
        ui.drafts[ui.edited().index()]
            .with(|s| s.name.as_deref().map(crate::presets::scenario_title).unwrap_or_default())
    };
    let progress = Signal::derive(move || st.run.with(|r| r.progress));
    let param = Signal::derive(move || st.run.with(|r| r.param));
    view! {
        <div class="sweep" data-testid="sweep">
            {kit::panel_head("features.sweep.title", Box::new(move || tf("features.sweep.base", &[("name", base_name())])))}
            <p class="small muted">{tx("features.sweep.intro")}</p>
            <div class="sweep-form">
                {form(st)}
                {buttons(st)}
            </div>
            <div class="err" role="alert" data-testid="sweep-error">{move || st.error.with(|e| e.as_ref().map(kit::error_list))}</div>
            {kit::progress("sweep-progress", progress, Signal::derive(move || st.status()))}
            <p
                class="sr-only"
                aria-live="polite"
                data-testid="sweep-state"
                data-phase=text(Box::new(move || st.run.with(|r| r.phase.id().to_string())))
            >
                {text(Box::new(move || st.status()))}
            </p>
            <div class="sweep-charts">{charts("sweep", param)}</div>
            {results(st)}
        </div>
    }
}

/// The two canvases of a sweep's charts (`<prefix>-chart-good`, `<prefix>-chart-ttft`).
pub fn charts(prefix: &'static str, param: Signal<SweepParam>) -> AnyView {
    [("good", "features.sweep.chart_good"), ("ttft", "features.sweep.chart_ttft")]
        .map(|(which, key)| {
            let id = format!("{prefix}-chart-{which}");
            let label = move || tf(key, &[("knob", param_label(param.get()))]);
            view! { <canvas id=id.clone() class="chart" data-testid=id role="img" aria-label=text(Box::new(label))></canvas> }
        })
        .collect_view()
        .into_any()
}

/// Draws a sweep's two charts (`app_model::tabs::sweep_chart::figures`) on the canvases
/// `good_id` and `ttft_id` in `look`.
pub fn draw(good_id: &str, ttft_id: &str, param: SweepParam, points: &[SweepPoint], slo: Option<f64>, look: Look) {
    let figures = chart::figures(param, points, slo, &PageWords(look));
    for (id, fig) in [good_id, ttft_id].into_iter().zip(&figures) {
        paint(id, fig, look.palette(), 300.0, CHART_H);
    }
}
