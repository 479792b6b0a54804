//! The capacity plan: the cheapest configuration that meets the contract being edited (the
//! contract tab's [`Draft`]), searched in Web Workers (`plan-worker`, one per core but the
//! page's own; the page's thread only passes their messages on, `app_model::tabs::plan_crew`,
//! so the stage keeps its pace), with live progress (candidates tried, the best so far), cancel
//! (the workers are terminated), and on finish the best with its
//! cost, launch commands and slack per rule, the cheaper configurations and the constraint that
//! bound each, the cost–TTFT Pareto chart with the chosen point, "open on the stage" and a link.
//! The form, the messages, the worker's loop and the run on screen are `app_model::tabs::plan`.

use std::cell::RefCell;
use std::rc::Rc;

use app_model::run::Run;
use app_model::share::ShareState;
use app_model::tabs::bench::Tab;
use app_model::tabs::plan::{self as model, Choices, Outcome, PlanRun, Reply, Request, RunPhase};
use app_model::tabs::plan_crew::{workers_for, Crew};
use leptos::prelude::*;
use sim_core::profile::Engine;
use sim_core::Scenario;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::charts::paint;
use crate::contract_panel::{draft, Draft};
use crate::i18n::{t, tf, tx, PAGE};
use crate::kit::{self, button, text};
use crate::theme::PageWords;
use crate::ui::{use_ui, Ui};
use app_model::format;

const CHART_H: f64 = 240.0;

/// Where the worker is when index.html names none (`trunk serve`'s worker shim).
const DEV_WORKER: &str = "./plan-worker_loader.js";

// The worker is reached through `Reflect` and the functions the page already calls, not through
// web-sys's `Worker`: its bindings would sit in the page's first module (docs/wasm-size.md).

/// Calls `target.method(arg)`.
fn call(target: &JsValue, method: &str, arg: &JsValue) -> Option<JsValue> {
    let f = js_sys::Reflect::get(target, &method.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    f.call1(target, arg).ok()
}

/// `new Worker(url)`, if this browser can.
fn new_worker(url: &str) -> Option<JsValue> {
    let ctor = js_sys::Reflect::get(&window(), &"Worker".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    let args = js_sys::Array::new();
    args.push(&url.into());
    js_sys::Reflect::construct(&ctor, &args).ok()
}

/// The workers of the search on screen, the crew that passes their messages on, and their
/// handlers (kept while they live).
#[derive(Default)]
struct Live {
    workers: Vec<JsValue>,
    crew: Option<Crew>,
    handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

impl Live {
    fn stop(&mut self) {
        for w in self.workers.drain(..) {
            for on in ["onmessage", "onerror"] {
                let _ = js_sys::Reflect::set(&w, &on.into(), &JsValue::NULL);
            }
            call(&w, "terminate", &JsValue::UNDEFINED);
        }
        self.crew = None;
        self.handlers.clear();
    }
}

/// The browser's logical processors, if it says.
fn cores() -> Option<f64> {
    let nav = js_sys::Reflect::get(&window(), &"navigator".into()).ok()?;
    js_sys::Reflect::get(&nav, &"hardwareConcurrency".into()).ok()?.as_f64()
}

#[derive(Clone, Copy)]
struct State {
    ui: Ui,
    draft: Draft,
    choices: RwSignal<Choices>,
    max_gpus_error: RwSignal<Option<&'static str>>,
    run: RwSignal<PlanRun>,
    running: Memo<bool>,
    live: StoredValue<Rc<RefCell<Live>>, LocalStorage>,
    copied: RwSignal<bool>,
}

fn worker_url() -> String {
    document()
        .query_selector("meta[name=lab-plan-worker]")
        .ok()
        .flatten()
        .and_then(|m| js_sys::Reflect::get(&m, &"content".into()).ok())
        .and_then(|c| c.as_string())
        .unwrap_or_else(|| DEV_WORKER.to_string())
}

impl State {
    fn invalid(self) -> bool {
        self.draft.errors.with_untracked(Option::is_some)
            || self.max_gpus_error.with_untracked(Option::is_some)
            || self.choices.with_untracked(|c| c.options().is_err())
    }

    fn start(self) {
        if !self.run.with_untracked(|r| r.may_start(self.invalid())) {
            return;
        }
        let contract = self.draft.effective.get_untracked();
        let request = self.choices.with_untracked(|c| Request::json(&contract, c));
        let live = self.live.get_value();
        live.borrow_mut().stop();
        let n = workers_for(cores());
        let url = worker_url();
        let mut workers = Vec::new();
        for _ in 0..n {
            match new_worker(&url) {
                Some(w) => workers.push(w),
                None if workers.is_empty() => return self.run.update(|r| r.failed("features.plan.no_worker".into())),
                None => break,
            }
        }
        let crew = Crew::new(workers.len() as u32);
        self.run.update(|r| r.started(contract, kit::now_ms()));
        self.copied.set(false);
        let st = self;
        let request = Rc::new(request);
        let mut l = live.borrow_mut();
        for (k, worker) in workers.iter().enumerate() {
            let weak = Rc::downgrade(&live);
            let request = request.clone();
            let on_message = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
                let Some(msg) = js_sys::Reflect::get(&ev, &"data".into()).ok().and_then(|d| d.as_string()) else {
                    return;
                };
                let Some(live) = weak.upgrade() else { return };
                // the crew's orders, sent after the borrow ends
                let (sends, show) = {
                    let mut l = live.borrow_mut();
                    let Some(crew) = l.crew.as_mut() else { return };
                    if msg == model::READY {
                        (vec![(k, crew.start(k, &request))], None)
                    } else {
                        let heard = crew.hear(k, &msg);
                        (heard.orders, heard.show)
                    }
                };
                for (to, order) in sends {
                    if let Some(w) = live.borrow().workers.get(to) {
                        call(w, "postMessage", &JsValue::from_str(&order));
                    }
                }
                let Some(reply) = show else { return };
                let over = !matches!(reply, Reply::Progress(_));
                st.run.update(|r| r.reply(reply, kit::now_ms()));
                if over {
                    // the workers' work is done: free them (after this handler returns)
                    let weak = Rc::downgrade(&live);
                    request_animation_frame(move || {
                        if let Some(l) = weak.upgrade() {
                            l.borrow_mut().stop();
                        }
                    });
                }
            });
            let weak = Rc::downgrade(&live);
            let on_error = Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| {
                st.run.update(|r| {
                    if r.phase == RunPhase::Running {
                        r.failed("features.plan.failed".into());
                    }
                });
                // one worker lost loses the search: free the others
                let weak = weak.clone();
                request_animation_frame(move || {
                    if let Some(l) = weak.upgrade() {
                        l.borrow_mut().stop();
                    }
                });
            });
            let _ = js_sys::Reflect::set(worker, &"onmessage".into(), on_message.as_ref());
            let _ = js_sys::Reflect::set(worker, &"onerror".into(), on_error.as_ref());
            l.handlers.extend([on_message, on_error]);
        }
        l.workers = workers;
        l.crew = Some(crew);
    }

    fn cancel(self) {
        self.live.get_value().borrow_mut().stop();
        self.run.update(PlanRun::cancelled);
    }

    /// Puts the best configuration's scenario on the stage as run A, as an exercise's Start does.
    fn open_on_stage(self) {
        let Some(s) = self.run.with_untracked(|r| {
            r.outcome.as_ref().and_then(|o| o.best.as_ref()).and_then(|b| Scenario::from_json(&b.scenario).ok())
        }) else {
            return;
        };
        let ui = self.ui;
        ui.lesson.set(None);
        ui.exercise.set(None);
        ui.ab.set(false);
        ui.editing.set(Run::A);
        ui.load(Run::A, s);
        ui.apply(true);
        kit::scroll_to("#stage");
    }
}

/// The search's choices: GPUs, engines, the GPU budget, splits.
fn choices(st: State) -> AnyView {
    let initial = st.choices.get_untracked();
    let tick = move |what: String| Callback::new(move |on: bool| st.choices.update(|c| c.tick(&what, on)));
    let gpus = sim_core::catalog::gpus()
        .into_iter()
        .map(|g| {
            let on = initial.gpus.contains(&g.id);
            kit::check_line(format!("plan-gpu-{}", g.id), on, g.name.clone().into_any(), tick(format!("gpu:{}", g.id)))
        })
        .collect_view();
    let engines = Engine::ALL
        .into_iter()
        .map(|e| {
            let on = initial.engines.iter().any(|x| x == e.name());
            kit::check_line(
                format!("plan-engine-{}", e.name()),
                on,
                e.name().into_any(),
                tick(format!("engine:{}", e.name())),
            )
        })
        .collect_view();
    let choice_error = move || st.choices.with(|c| c.options().err()).map(t);
    let max_error = move || st.max_gpus_error.get().map(t);
    view! {
        <div class="plan-choices">
            <fieldset class="cgroup plan-gpus">
                <legend>{tx("features.plan.gpus")}</legend>
                <div class="plan-ticks">{gpus}</div>
            </fieldset>
            <fieldset class="cgroup">
                <legend>{tx("features.plan.engines")}</legend>
                <div class="plan-ticks">{engines}</div>
                {kit::check_line(
                    "plan-splits".into(),
                    initial.splits,
                    t("features.plan.splits").into_any(),
                    tick("splits".into()),
                )}
                <div class="field cfield" class:invalid=move || st.max_gpus_error.with(Option::is_some)>
                    <label for="plan-max-gpus">{tx("features.plan.max_gpus")}</label>
                    <input
                        id="plan-max-gpus"
                        type="text"
                        inputmode="numeric"
                        class="num"
                        data-testid="plan-max-gpus"
                        value=initial.max_gpus.to_string()
                        aria-describedby="plan-max-gpus-err"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            st.max_gpus_error.set(st.choices.try_update(|c| c.set_max_gpus(&v)).and_then(Result::err));
                        }
                    />
                    <p class="err" id="plan-max-gpus-err" role="alert">{text(Box::new(move || max_error().unwrap_or_default()))}</p>
                </div>
            </fieldset>
            <p class="err" role="alert" data-testid="plan-choice-error">{text(Box::new(move || choice_error().unwrap_or_default()))}</p>
        </div>
    }
    .into_any()
}

/// Which contract is planned, and the way to edit it.
fn contract_line(st: State) -> AnyView {
    let name = move || {
        st.draft.effective.with(|c| {
            let model = c.model.id.clone();
            let workload = c.workload.name.as_deref().map(crate::presets::scenario_title).unwrap_or_default();
            let name = c.name.clone().unwrap_or_default();
            tf("features.plan.contract_is", &[("name", format!("{name} · {model} · {workload}"))])
        })
    };
    let edit = Callback::new(move |()| kit::open_tab(Tab::Contract.id()));
    let invalid = move || {
        st.draft.errors.with(Option::is_some).then(|| {
            view! { <p class="small warn" data-testid="plan-contract-invalid">{t("features.contract.invalid")}</p> }
        })
    };
    view! {
        <div class="plan-contract">
            <p class="small" data-testid="plan-contract">{text(Box::new(name))}</p>
            {invalid}
            {button("small-btn", Some("plan-edit-contract"), "features.plan.edit_contract", None, edit)}
        </div>
    }
    .into_any()
}

fn buttons(st: State) -> AnyView {
    let blocked = Signal::derive(move || {
        st.running.get()
            || st.draft.errors.with(Option::is_some)
            || st.max_gpus_error.with(Option::is_some)
            || st.choices.with(|c| c.options().is_err())
    });
    let run = Callback::new(move |()| st.start());
    let cancel = Callback::new(move |()| st.cancel());
    view! {
        <div class="contract-run">
            {button("primary", Some("plan-run"), "features.plan.run", Some(blocked), run)}
            {move || st.running.get().then(|| button("", Some("plan-cancel"), "lessons.cancel", None, cancel))}
        </div>
    }
    .into_any()
}

fn status(st: State) -> AnyView {
    let line = move || {
        st.run.with(|r| {
            if let (RunPhase::Failed, Some(e)) = (r.phase, &r.error) {
                return if e.starts_with("features.") { t(e) } else { format!("{} {e}", t("features.plan.failed")) };
            }
            let (key, args) = r.status();
            tf(key, &args)
        })
    };
    let share = Signal::derive(move || st.run.with(PlanRun::share));
    let label = Signal::derive(line);
    let best_so_far = move || {
        st.run.with(|r| {
            (r.phase == RunPhase::Running)
                .then(|| r.step.as_ref().and_then(|s| s.best_label.clone()))
                .flatten()
                .map(|l| tf("features.plan.best_so_far", &[("label", l)]))
        })
    };
    view! {
        <div class="plan-status">
            {kit::progress("plan-progress", share, label)}
            <p
                class="sr-only"
                aria-live="polite"
                data-testid="plan-state"
                data-phase=text(Box::new(move || st.run.with(|r| r.phase.id().to_string())))
                data-tried=text(Box::new(move || st.run.with(|r| r.step.as_ref().map_or(0, |s| s.tried)).to_string()))
                data-best=text(Box::new(move || {
                    st.run.with(|r| r.step.as_ref().and_then(|s| s.best_usd_per_hour).map(|v| v.to_string()).unwrap_or_default())
                }))
            >
                {text(Box::new(line))}
            </p>
            <p class="small muted" data-testid="plan-best-so-far">{text(Box::new(move || best_so_far().unwrap_or_default()))}</p>
        </div>
    }
    .into_any()
}

/// The best: its cost, launch commands, slack per rule, and what to do with it.
fn best(st: State, o: &Outcome) -> AnyView {
    let Some(b) = &o.best else {
        let Some((why, closest)) = &o.infeasible else { return ().into_any() };
        let closest = closest.as_ref().map(|c| {
            let line = tf("features.plan.closest", &[("label", c.label.clone()), ("usd", format::usd(c.usd_per_hour))]);
            view! { <p class="small">{line}" — "{c.why.said(PAGE)}</p> }
        });
        return view! {
            <div class="verdict-box fail" data-testid="plan-infeasible">
                <p>{tf("features.plan.infeasible", &[("bound", why.name(PAGE))])}</p>
                {closest}
            </div>
        }
        .into_any();
    };
    let launch = o.launch_text();
    let copy_text = launch.clone();
    let copy = Callback::new(move |()| {
        let clip = js_sys::Reflect::get(&window(), &"navigator".into())
            .and_then(|n| js_sys::Reflect::get(&n, &"clipboard".into()))
            .ok();
        if let Some(clip) = clip {
            call(&clip, "writeText", &JsValue::from_str(&copy_text));
            st.copied.set(true);
        }
    });
    let slack = b
        .slack
        .iter()
        .map(|s| {
            let [rule, measured, target, left] = model::slack_cells(PAGE, s);
            let tight = s.slack < 0.1;
            view! {
                <tr class:warn=tight data-testid="plan-slack-row" data-rule=s.rule.clone()>
                    <th scope="row">{rule}</th>
                    <td class="num">{measured}</td>
                    <td class="num">{target}</td>
                    <td class="num">{left}</td>
                </tr>
            }
        })
        .collect_view();
    let href = js_sys::Reflect::get(&window(), &"location".into())
        .and_then(|l| js_sys::Reflect::get(&l, &"href".into()))
        .ok()
        .and_then(|h| h.as_string())
        .unwrap_or_default();
    let link = Scenario::from_json(&b.scenario)
        .ok()
        .map(|s| app_model::address::link_to(&href, &ShareState::new(s)))
        .unwrap_or_default();
    let open = Callback::new(move |()| st.open_on_stage());
    view! {
        <section class="plan-best" data-testid="plan-best" data-usd=b.point.usd_per_hour.to_string()>
            <h3>{tx("features.plan.best")}</h3>
            <p class="plan-best-label"><strong data-testid="plan-best-label">{b.point.label.clone()}</strong></p>
            <p class="plan-costs">
                <span class="plan-cost" data-testid="plan-best-cost">{tf("features.plan.per_hour", &[("usd", format::usd(b.point.usd_per_hour))])}</span>
                <span>{tf("features.plan.per_million", &[("usd", format::usd(b.usd_per_million_good_tokens))])}</span>
                <span>{tf("features.plan.p99", &[("ttft", format::ms(b.point.ttft_p99_ms))])}</span>
            </p>
            <div class="lesson-actions">
                {button("primary", Some("plan-open"), "features.plan.open", None, open)}
                <a class="btn" href=link data-testid="plan-share">{tx("features.plan.share")}</a>
            </div>
            <h4>{tx("features.plan.launch")}</h4>
            <pre class="plan-launch" data-testid="plan-launch" tabindex="0"><code>{launch}</code></pre>
            <div class="lesson-actions">
                {button("small-btn", Some("plan-copy"), "features.plan.copy", None, copy)}
                {move || st.copied.get().then(|| view! { <span class="small good-text" role="status">{t("features.plan.copied")}</span> })}
            </div>
            {kit::table(
                "runs-table plan-slack",
                Some("plan-slack"),
                t("features.plan.slack_caption"),
                kit::heads(model::SLACK_COLUMNS.map(t)),
                slack.into_any(),
            )}
        </section>
    }
    .into_any()
}

/// The binding-constraint table: the cheaper configurations, and why each failed.
fn rejected(o: &Outcome) -> AnyView {
    if o.best.is_none() {
        return ().into_any();
    }
    if o.rejected.is_empty() {
        return view! { <p class="small muted" data-testid="plan-none-cheaper">{t("features.plan.none_cheaper")}</p> }
            .into_any();
    }
    let rows = o
        .rejected
        .iter()
        .take(model::MAX_REJECTED)
        .map(|r| {
            let fails = r.fails.iter().map(|f| model::rule_label(PAGE, f)).collect::<Vec<_>>().join(", ");
            view! {
                <tr data-testid="plan-rejected-row" data-bound=r.why.bound.clone()>
                    <th scope="row">
                        <code class="small">{r.label.clone()}</code>
                        {(!r.variants.is_empty()).then(|| view! { <span class="small muted variants" data-testid="plan-rejected-variants">{r.variants.join(" · ")}</span> })}
                    </th>
                    <td class="num">{format::usd(r.usd_per_hour)}</td>
                    <td class="bound">{r.why.name(PAGE)}</td>
                    <td class="small why">{r.why.said(PAGE)}<span class="muted">" ("{fails}")"</span></td>
                </tr>
            }
        })
        .collect_view();
    let more = o.rejected.len().saturating_sub(model::MAX_REJECTED);
    view! {
        {kit::table(
            "runs-table plan-rejected",
            Some("plan-rejected"),
            t("features.plan.rejected_caption"),
            kit::heads(model::REJECTED_COLUMNS.map(t)),
            rows.into_any(),
        )}
        {(more > 0).then(|| view! { <p class="small muted">{tf("features.plan.more", &[("n", more.to_string())])}</p> })}
    }
    .into_any()
}

fn answer(st: State) -> AnyView {
    let body = move || {
        st.run.with(|r| {
            let o = r.outcome.as_ref()?;
            let stale = st.draft.effective.with(|c| r.stale(c));
            let searched = tf(
                "features.plan.searched",
                &[("searched", format::int(o.searched)), ("runs", format::int(o.simulated))],
            );
            Some(view! {
                {stale.then(|| view! { <p class="small warn" data-testid="plan-stale">{t("features.plan.stale")}</p> })}
                {best(st, o)}
                {rejected(o)}
                <p class="small muted">{searched}</p>
            })
        })
    };
    view! { <div class="plan-answer" data-testid="plan-answer">{body}</div> }.into_any()
}

/// The tab's panel; `tab` is the workbench's open tab (the chart is drawn while it is this one).
#[component]
pub fn PlanPanel(tab: RwSignal<Option<Tab>>) -> impl IntoView {
    // made once: nothing read while it is built may make its suspense build it again (the
    // search on screen would go)
    untrack(move || panel(tab))
}

fn panel(tab: RwSignal<Option<Tab>>) -> AnyView {
    let ui = use_ui();
    let Some(d) = draft() else {
        return view! { <p class="err">{tx("features.contract.no_example")}</p> }.into_any();
    };
    let run = RwSignal::new(PlanRun::default());
    let st = State {
        ui,
        draft: d,
        choices: RwSignal::new(Choices::default()),
        max_gpus_error: RwSignal::new(None),
        run,
        running: Memo::new(move |_| run.with(|r| r.phase == RunPhase::Running)),
        live: StoredValue::new_local(Rc::new(RefCell::new(Live::default()))),
        copied: RwSignal::new(false),
    };
    on_cleanup(move || {
        if let Some(l) = st.live.try_get_value() {
            l.borrow_mut().stop();
        }
    });
    // the Pareto chart follows the answer, the language and the window size
    let resized = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n = n.wrapping_add(1)));
    on_cleanup(move || handle.remove());
    let lang = crate::i18n::use_lang();
    kit::effect(Box::new(move || {
        resized.track();
        lang.track();
        if tab.get() != Some(Tab::Plan) {
            return;
        }
        let outcome = st.run.with(|r| r.outcome.clone());
        request_animation_frame(move || {
            let look = ui.look();
            let fig = model::figure(outcome.as_ref(), &PageWords(look));
            paint("plan-chart", &fig, look.palette(), 300.0, CHART_H);
        });
    }));
    view! {
        <div class="plan" data-testid="plan">
            {kit::panel_head("features.plan.title", Box::new(|| t("features.plan.intro")))}
            <div class="contract-grid">
                <div class="plan-form">
                    {contract_line(st)}
                    {choices(st)}
                </div>
                <div class="contract-side">
                    {buttons(st)}
                    {status(st)}
                    <canvas id="plan-chart" class="chart" data-testid="plan-chart" role="img" aria-label=tx("features.plan.chart")></canvas>
                </div>
            </div>
            {answer(st)}
        </div>
    }
    .into_any()
}
