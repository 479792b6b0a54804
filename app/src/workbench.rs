//! The workbench under the toolbar: guided lessons, sweeps, the resource contract and classroom
//! exercises, one tab each. A panel is built the first time its tab opens and then stays, so a
//! sweep or an acceptance run keeps going (and keeps its results) while another tab is shown.
//!
//! Also the helpers those panels share: running simulations in slices across animation frames
//! (the page never freezes, progress shows, a run can be cancelled), a progress bar, data URLs for
//! downloads and a little local storage.

use app_model::jobs::{Job, Runner, Status, Ticket};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::contract_panel::ContractPanel;
use crate::exercises::ExercisesPanel;
use crate::i18n::t;
use crate::lessons::LessonsPanel;
use crate::sweep_panel::SweepPanel;
use crate::ui::Ui;

/// Wall time one slice of a job may take per animation frame, ms.
pub const SLICE_MS: f64 = 8.0;

/// The workbench's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Lessons,
    Sweep,
    Contract,
    Exercises,
}

impl Tab {
    const ALL: [Tab; 4] = [Tab::Lessons, Tab::Sweep, Tab::Contract, Tab::Exercises];

    fn id(self) -> &'static str {
        match self {
            Tab::Lessons => "lessons",
            Tab::Sweep => "sweep",
            Tab::Contract => "contract",
            Tab::Exercises => "exercises",
        }
    }

    fn label(self) -> String {
        match self {
            Tab::Lessons => t("features.tab.lessons"),
            Tab::Sweep => t("features.tab.sweep"),
            Tab::Contract => t("features.tab.contract"),
            Tab::Exercises => t("features.tab.exercises"),
        }
    }

    fn index(self) -> usize {
        Tab::ALL.iter().position(|x| *x == self).unwrap_or(0)
    }
}

#[component]
pub fn Workbench(ui: Ui) -> impl IntoView {
    let tab = RwSignal::new(None::<Tab>);
    let opened: [RwSignal<bool>; 4] = std::array::from_fn(|_| RwSignal::new(false));
    let open = move |x: Tab| {
        opened[x.index()].set(true);
        tab.set(Some(x));
    };
    // A lesson or an exercise opened (from a link, or from another panel) shows its tab.
    let seen = StoredValue::new((None::<String>, None::<String>));
    effect(Box::new(move || {
        let lesson = ui.lesson.with(|l| l.as_ref().map(|(id, _)| id.clone()));
        let exercise = ui.exercise.get();
        let (was_lesson, was_exercise) = seen.get_value();
        if lesson.is_some() && lesson != was_lesson && tab.get_untracked() != Some(Tab::Lessons) {
            open(Tab::Lessons);
        }
        if exercise.is_some() && exercise != was_exercise && tab.get_untracked().is_none() {
            open(Tab::Exercises);
        }
        seen.set_value((lesson, exercise));
    }));

    let on_keys = move |ev: web_sys::KeyboardEvent| {
        let step: isize = match ev.key().as_str() {
            "ArrowRight" => 1,
            "ArrowLeft" => -1,
            _ => return,
        };
        let Some(cur) = action(&ev)
            .filter(|(act, _)| act == "tab")
            .and_then(|(_, arg)| Tab::ALL.iter().position(|x| x.id() == arg))
        else {
            return;
        };
        ev.prevent_default();
        let cur = cur as isize;
        let next = Tab::ALL[(cur + step).rem_euclid(Tab::ALL.len() as isize) as usize];
        open(next);
        refocus_now("tab", next.id());
    };
    let on_click = move |ev: web_sys::MouseEvent| {
        let Some((act, arg)) = action(&ev) else { return };
        match act.as_str() {
            "tab" => {
                let Some(x) = Tab::ALL.into_iter().find(|x| x.id() == arg) else { return };
                if tab.get_untracked() == Some(x) {
                    tab.set(None);
                } else {
                    open(x);
                }
            }
            "close" => tab.set(None),
            _ => return,
        }
        refocus(act, arg);
    };
    let bar = move || {
        let current = tab.get();
        let mut out =
            format!("<div class=\"wb-tabs\" role=\"tablist\" aria-label=\"{}\">", esc(&t("features.workbench.label")));
        for x in Tab::ALL {
            let on = current == Some(x);
            let focusable = on || (current.is_none() && x == Tab::Lessons);
            out.push_str(&format!(
                "<button type=\"button\" class=\"tab wb-tab{}\" role=\"tab\" id=\"wb-tab-{id}\" aria-controls=\"wb-panel-{id}\" aria-selected=\"{on}\" tabindex=\"{}\" data-act=\"tab\" data-arg=\"{id}\" data-testid=\"wb-tab-{id}\">{}</button>",
                if on { " active" } else { "" },
                if focusable { 0 } else { -1 },
                esc(&x.label()),
                id = x.id(),
            ));
        }
        out.push_str("</div>");
        if current.is_some() {
            out.push_str(&button(
                "small-btn wb-close",
                "close",
                "",
                "data-testid=\"wb-close\"",
                &t("features.workbench.close"),
            ));
        } else {
            out.push_str(&format!("<span class=\"small muted wb-hint\">{}</span>", esc(&t("features.workbench.hint"))));
        }
        out
    };

    let panel = move |x: Tab| {
        let body = move || {
            opened[x.index()].get().then(|| match x {
                Tab::Lessons => view! { <LessonsPanel ui=ui/> }.into_any(),
                Tab::Sweep => {
                    view! { <SweepPanel ui=ui visible=Signal::derive(move || tab.get() == Some(Tab::Sweep))/> }
                        .into_any()
                }
                Tab::Contract => view! { <ContractPanel ui=ui/> }.into_any(),
                Tab::Exercises => view! { <ExercisesPanel ui=ui/> }.into_any(),
            })
        };
        view! {
            <div
                class="wb-panel"
                role="tabpanel"
                id=format!("wb-panel-{}", x.id())
                aria-labelledby=format!("wb-tab-{}", x.id())
                class:hidden=move || tab.get() != Some(x)
                data-testid=format!("wb-panel-{}", x.id())
            >{body}</div>
        }
    };

    view! {
        <section class="workbench" aria-label=text(Box::new(|| t("features.workbench.label"))) on:click=on_click on:keydown=on_keys>
            {html("wb-bar", Box::new(bar))}
            {Tab::ALL.into_iter().map(panel).collect_view()}
        </section>
    }
}

/// Focuses the element with this action and argument at once (it is already in the page).
fn refocus_now(act: &str, arg: &str) {
    let sel = format!("[data-act=\"{}\"][data-arg=\"{}\"]", esc(act), esc(arg));
    request_animation_frame(move || {
        if let Some(el) =
            document().query_selector(&sel).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

/// Text made safe for HTML (element content and quoted attribute values).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A button for a panel's delegated click handler: `data-act` names the action, `data-arg` its
/// argument. `class` and `extra` (more attributes) may be empty.
pub fn button(class: &str, act: &str, arg: &str, extra: &str, label: &str) -> String {
    format!(
        "<button type=\"button\" class=\"btn {class}\" data-act=\"{act}\" data-arg=\"{}\" {extra}>{}</button>",
        esc(arg),
        esc(label)
    )
}

/// A reactive text or flag, boxed: every view that takes one through [`text`], [`flag`] or
/// [`html`] shares one closure type, so the rendering code exists once in the wasm.
pub type Text = Box<dyn Fn() -> String + Send + Sync>;
pub type Flag = Box<dyn Fn() -> bool + Send + Sync>;

pub fn text(f: Text) -> impl Fn() -> String + Send + Sync + 'static {
    move || f()
}

pub fn flag(f: Flag) -> impl Fn() -> bool + Send + Sync + 'static {
    move || f()
}

/// Runs `f` now and again whenever a signal it read changes.
pub fn effect(f: Box<dyn Fn()>) {
    Effect::new(move |_| f());
}

/// A block whose HTML is `f()`, rebuilt when the signals `f` reads change. The panels build their
/// read-only parts as HTML and handle clicks and edits with one delegated handler each: the page
/// is the same, the wasm far smaller than with a typed view per element.
pub fn html(class: &'static str, f: Text) -> impl IntoView {
    view! { <div class=class inner_html=f></div> }
}

/// A progress bar (share 0..=1) and its text, as HTML; `data-value` carries the share for tests.
pub fn progress_html(testid: &str, value: f64, label: &str) -> String {
    let pct = (value.clamp(0.0, 1.0) * 100.0).round();
    format!(
        "<div class=\"wb-progress-row\"><div class=\"wb-progress\" role=\"progressbar\" aria-valuemin=\"0\" aria-valuemax=\"100\" aria-valuenow=\"{pct}\" aria-valuetext=\"{l}\" data-testid=\"{testid}\" data-value=\"{value:.4}\"><div class=\"wb-progress-fill\" style=\"width:{pct}%\"></div></div><span class=\"small\" aria-hidden=\"true\">{l}</span></div>",
        l = esc(label)
    )
}

/// The action (`data-act`) and argument (`data-arg`) of the element an event came from, when it
/// is (inside) an enabled element that has one.
pub fn action(ev: &web_sys::Event) -> Option<(String, String)> {
    let el = ev.target()?.dyn_into::<web_sys::Element>().ok()?.closest("[data-act]").ok()??;
    if el.has_attribute("disabled") {
        return None;
    }
    Some((el.get_attribute("data-act")?, el.get_attribute("data-arg").unwrap_or_default()))
}

/// The `data-field` of the form element an event came from, with its value and checked state.
pub fn edited(ev: &web_sys::Event) -> Option<(String, String, bool)> {
    let target = ev.target()?;
    let el = target.dyn_ref::<web_sys::Element>()?;
    let field = el.get_attribute("data-field")?;
    let value = js_sys::Reflect::get(&target, &"value".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    let checked = js_sys::Reflect::get(&target, &"checked".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false);
    Some((field, value, checked))
}

/// The value of the form element with id `id`.
pub fn value_of(id: &str) -> String {
    document()
        .get_element_by_id(id)
        .and_then(|el| js_sys::Reflect::get(&el, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// After a block was rebuilt, gives the focus back to the button that was pressed (if the
/// focus fell to the page), so keyboard users stay where they were.
pub fn refocus(act: String, arg: String) {
    request_animation_frame(move || {
        let doc = document();
        let lost = doc.active_element().is_none_or(|a| a.tag_name() == "BODY" || !a.is_connected());
        if !lost {
            return;
        }
        let sel = format!("[data-act=\"{}\"][data-arg=\"{}\"]", esc(&act), esc(&arg));
        if let Some(el) =
            doc.query_selector(&sel).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

/// Milliseconds on the page's performance clock.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// The one driver of the tabs' background jobs: once per animation frame, runs the job of
/// `ticket` for [`SLICE_MS`] (so the page keeps drawing) and hands `on` what the slice came to,
/// until the job is finished or stopped (cancelled, replaced, or its panel gone).
pub fn drive<J, F>(runner: Jobs<J>, ticket: Ticket, mut on: F)
where
    J: Job + 'static,
    F: FnMut(Status<J::Progress, J::Output>) + 'static,
{
    request_animation_frame(move || {
        let deadline = now_ms() + SLICE_MS;
        let Some(status) = runner.try_update_value(|r| r.run(ticket, &mut || now_ms() > deadline)) else { return };
        let more = matches!(status, Status::Working(_));
        on(status);
        if more {
            drive(runner, ticket, on);
        }
    });
}

/// A panel's job runner (jobs hold simulations: local to the page's thread).
pub type Jobs<J> = StoredValue<Runner<J>, LocalStorage>;

/// A fresh runner for a panel.
pub fn jobs<J: Job + 'static>() -> Jobs<J> {
    StoredValue::new_local(Runner::new())
}

/// Starts `job` on `runner` (cancelling the one before) and drives it.
pub fn start<J, F>(runner: Jobs<J>, job: J, on: F)
where
    J: Job + 'static,
    F: FnMut(Status<J::Progress, J::Output>) + 'static,
{
    if let Some(ticket) = runner.try_update_value(|r| r.start(job)) {
        drive(runner, ticket, on);
    }
}

/// Cancels the runner's job, if any.
pub fn cancel<J: Job + 'static>(runner: Jobs<J>) {
    runner.update_value(Runner::cancel);
}

/// A `data:` URL holding `text` (for download links).
pub fn data_url(mime: &str, text: &str) -> String {
    format!("data:{mime};charset=utf-8,{}", String::from(js_sys::encode_uri_component(text)))
}

/// The page's local storage, if the browser allows it.
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn storage_get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn storage_set(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

/// Scrolls the first element matching `selector` to the middle of the window.
pub fn scroll_to(selector: &str) {
    let Some(el) = document().query_selector(selector).ok().flatten() else { return };
    let opts = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&opts, &"block".into(), &"center".into());
    let _ = js_sys::Reflect::set(&opts, &"behavior".into(), &"smooth".into());
    if let Ok(f) = js_sys::Reflect::get(&el, &"scrollIntoView".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
        let _ = f.call1(&el, &opts);
    }
}
