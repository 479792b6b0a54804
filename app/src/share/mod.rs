//! Share links and embedding.
//!
//! * The lab's whole state (scenario A, scenario B in A/B mode, lesson and step, exercise, locked
//!   controls, language) travels in the query parameter `lab=`, encoded by
//!   `app_model::share::ShareState` in sim-core's envelope (`1.<base64url JSON>`). The scenario carries its seed and the
//!   simulation is deterministic, so a link reproduces the same numbers.
//! * A link that cannot be read (damaged, from a newer version, an invalid or refused scenario)
//!   shows a message — a translated lead-in and sim-core's words — over the default scenario.
//! * `embed=1` gives a compact layout for iframes (links open in a new tab), and the page posts
//!   events to its parent window: `ready`, `error`, and those other panels send through
//!   [`post_event`]. `docs/embed.md` lists them.
//! * `view=`, `controls=` choose the parts and controls shown, `preset=`, `lesson=`, `exercise=`
//!   what opens, `autoplay=0` starts paused; a value the page cannot use is a message above the
//!   lab ([`QueryBanner`]), and the page goes on without it.
//! * `locale=zh|en` picks the language; `contrast=high` the projector colour profile.
//!   Every parameter is declared and read in `app_model::query`; the address is read once.
//! * The Share dialog also gives an embed code: an `<iframe>` for a chosen size and parts, with
//!   a live preview.
//!
//! The Share dialog (the link, copying it, the embed code and its preview) is `dialog`; the
//! decisions (the state a link carries, when the address takes a change, what Back brings back)
//! are `app_model::address`.

mod dialog;

pub(crate) use dialog::copy_text;
pub use dialog::ShareButton;

use std::cell::RefCell;
use std::rc::Rc;

use app_model::address::{self as addr, AddressHistory, Follow};
use app_model::link::LinkProblem;
use app_model::opening::Opening;
use app_model::protocol::Command;
use app_model::query::{Param, Query};
use app_model::share::{Hidden, ShareState};
use app_model::Run;
use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use serde_json::json;
use sim_core::share::SHARE_VERSION;
use wasm_bindgen::JsValue;

use crate::address::{self as address, post_event, Address};
use crate::i18n::{tx, Lang, Locale};
use crate::theme::Theme;
use crate::ui::Ui;

/// The page's share links and address: what they read and write, provided once by the app
/// ([`Links::provide`]); components take it with [`use_links`]. `Copy`: the address listeners
/// and timers keep the copy they captured at mount.
#[derive(Clone, Copy)]
pub struct Links {
    ui: Ui,
    lang: Lang,
    theme: Theme,
    address: Address,
    /// The problem with the page's link, if there was one (shown until dismissed).
    pub problem: RwSignal<Option<LinkProblem>>,
    /// The address bar: what it holds, what the page opened with, the pending update.
    bar: StoredValue<Rc<RefCell<AddressBar>>, LocalStorage>,
}

/// What [`Links`] keeps of the address bar.
#[derive(Default)]
struct AddressBar {
    history: Option<AddressHistory>,
    /// The pending address update (dropping it cancels it).
    timer: Option<Timeout>,
}

/// The page's share links, as provided at mount.
pub fn use_links() -> Links {
    expect_context::<Links>()
}

/// The page's address without query and fragment.
fn href() -> String {
    window().location().href().unwrap_or_default()
}

pub(crate) fn base_url() -> String {
    addr::base_of(&href()).to_string()
}

impl Links {
    /// The address bar's cell (not generic: one copy of the arena's code serves every access).
    fn bar(self) -> Rc<RefCell<AddressBar>> {
        self.bar.get_value()
    }

    pub fn provide(ui: Ui, lang: Lang, theme: Theme, address: Address) -> Links {
        let links = Links {
            ui,
            lang,
            theme,
            address,
            problem: RwSignal::new(None),
            bar: StoredValue::new_local(Rc::default()),
        };
        provide_context(links);
        links
    }

    /// Reads the page's address: embed mode, colour profile, the shared state, the language
    /// (`app_model::opening`). Called once, before the simulations start, so the first run is
    /// already the shared one.
    pub fn init(self) {
        let ui = self.ui;
        let o = self.address.with(Opening::of);
        if o.embed {
            ui.embed.set(true);
            mark_embedded();
        }
        if let Some(body) = window().document().and_then(|d| d.body()) {
            for class in &o.body_classes {
                let _ = body.class_list().add_1(class);
            }
        }
        if o.high_contrast {
            self.theme.set(true);
        }
        if let Some(problem) = o.problem {
            post_event("error", json!({ "kind": problem.event_kind(), "message": problem.message() }));
            self.problem.set(Some(problem));
        }
        if let Some(state) = o.state {
            // every lock a link carries is the teacher's: it holds for the whole visit
            ui.teacher_locks.set(state.locked.clone());
            restore(ui, state);
        }
        // `lesson=` and `exercise=` open what they name as the lab's own buttons do: the lesson's
        // runs or the exercise's scenario on the stage, not the link's or the default one
        if let Some(id) = &o.exercise {
            ui.open_exercise(id);
        }
        if let Some(id) = o.lesson {
            crate::lessons::open(ui, id);
        }
        if o.paused {
            ui.playing.set(false);
        }
        if let Some(l) = o.locale {
            self.lang.set(l);
        }
    }

    /// What the page shows that a link carries (`app_model::address::OnPage`).
    fn on_page(self) -> addr::OnPage {
        let ui = self.ui;
        let run = |i: usize| {
            let on_screen = ui.infos[i].with_untracked(|x| x.as_ref().map(|x| x.scenario.clone()));
            (ui.drafts[i].get_untracked(), on_screen)
        };
        addr::OnPage {
            a: run(0),
            b: ui.ab.get_untracked().then(|| run(1)),
            lesson: ui.lesson.get_untracked(),
            exercise: ui.exercise.get_untracked(),
            locked: ui.locked.get_untracked(),
            locale: self.lang.get_untracked().code().to_string(),
            hide: ui.hidden.get_untracked(),
        }
    }

    /// The lab's state as a shared link carries it. A draft that cannot run is replaced by the
    /// configuration on screen, so the link always opens on something that runs. `with_lock`
    /// adds controls to lock (a teacher's link) to those already locked.
    pub fn state(self, with_lock: &[String]) -> ShareState {
        self.on_page().state(with_lock)
    }

    /// A link that opens the full lab (not embedded) in this state.
    pub fn url(self) -> String {
        addr::link_to(&href(), &self.state(&[]))
    }

    /// A teacher's link: the lab as it is, `locks` locked for the whole visit, `hide` kept from
    /// the students who open it.
    pub fn teacher_url(self, locks: &[String], hide: &[Hidden]) -> String {
        addr::link_to(&href(), &self.teacher_state(locks, hide))
    }

    /// The state a teacher's link carries (the classroom package opens the lab in it too).
    pub fn teacher_state(self, locks: &[String], hide: &[Hidden]) -> ShareState {
        let mut s = self.state(locks);
        s.hide_also(hide);
        s
    }

    /// Keeps the address bar on the current state (so a reload or a copied address reproduces
    /// it), tells the parent window about refused configurations, and posts `ready` after the
    /// first frame.
    pub fn watch(self) {
        let ui = self.ui;
        self.bar().borrow_mut().history = Some(AddressHistory::new(self.state(&[])));
        let _ = window_event_listener(leptos::ev::popstate, move |_| self.on_history());
        Effect::new(move |prev: Option<()>| {
            for d in &ui.drafts {
                d.track();
            }
            ui.ab.track();
            ui.lesson.track();
            ui.exercise.track();
            ui.locked.track();
            self.lang.track();
            if prev.is_some() {
                // a new lesson, step, preset or exercise is written at once (Back returns to it);
                // a slider drag changes the draft many times a second: written once it rests
                let now = self.state(&[]);
                let follow = self.bar().borrow().history.as_ref().map(|h| h.follow(&now));
                match follow {
                    Some(Follow::Now) => self.update_address(),
                    _ => {
                        let timer = Timeout::new(400, move || self.update_address());
                        // the one pending before is dropped (cancelled) outside the borrow
                        let _before = self.bar().borrow_mut().timer.replace(timer);
                    }
                }
            }
        });

        Effect::new(move |prev: Option<Vec<Option<String>>>| {
            let now: Vec<Option<String>> =
                ui.errors.iter().map(|e| e.with(|e| e.as_ref().map(|e| e.to_string()))).collect();
            for (run, m) in addr::new_errors(prev.as_deref(), &now) {
                post_event("error", json!({ "kind": "config", "run": run.label(), "message": m }));
            }
            now
        });

        self.listen_to_host();
        watch_height();

        // the animation loop's first frame runs at the next animation frame; `ready` follows it
        request_animation_frame(move || {
            request_animation_frame(move || {
                post_event(
                    "ready",
                    json!({
                        "version": env!("CARGO_PKG_VERSION"),
                        "state_version": SHARE_VERSION,
                        "locale": self.lang.get_untracked().code(),
                        "embed": ui.embed.get_untracked(),
                    }),
                );
            });
        });
    }

    /// Writes the current state into the address (a new history entry, or a rewrite of this one).
    fn update_address(self) {
        let _pending = self.bar().borrow_mut().timer.take();
        let page = self.on_page();
        if !page.writable() {
            return;
        }
        let state = page.state(&[]);
        post_event("state", json!({ "lab": state.encode() }));
        let kept = self.address.with(|q| q.kept(&Param::SHOWN));
        let url = addr::address_of(&href(), &kept, &state);
        let new_entry = self.bar().borrow_mut().history.as_mut().is_some_and(|h| h.write(state));
        if let Ok(history) = window().history() {
            let _ = if new_entry {
                history.push_state_with_url(&JsValue::NULL, "", Some(&url))
            } else {
                history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
            };
        }
    }

    /// Obeys the embedding page's commands (protocol v1, `app_model::protocol`); a command it
    /// cannot carry out is answered with an `error` message and changes nothing.
    fn listen_to_host(self) {
        if !address::in_frame() {
            return;
        }
        let handle = window_event_listener(leptos::ev::message, move |ev| {
            if !address::from_host(&ev) {
                return;
            }
            let text = js_sys::JSON::stringify(&ev.data()).ok().and_then(|s| s.as_string()).unwrap_or_default();
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { return };
            match Command::read(&v) {
                Ok(Some(c)) => self.obey(c),
                Ok(None) => {}
                Err(refusal) => post_event("error", refusal.fields()),
            }
        });
        // listens for the whole visit
        std::mem::forget(handle);
    }

    fn obey(self, c: Command) {
        let ui = self.ui;
        match c {
            Command::SetState(code) => match ShareState::decode(&code) {
                Ok(state) => {
                    if let Some(l) = state.locale.as_deref().and_then(Locale::parse) {
                        self.lang.switch(l);
                    }
                    restore(ui, state);
                    ui.apply(false);
                }
                Err(m) => post_event(
                    "error",
                    json!({ "kind": "command", "command": "set-state", "field": "lab", "message": m }),
                ),
            },
            Command::Play => {
                if !ui.playing.get_untracked() {
                    ui.toggle_play();
                }
            }
            Command::Pause => {
                if ui.playing.get_untracked() || ui.fast_forward.get_untracked() {
                    ui.toggle_play();
                }
            }
            Command::Reset => ui.reset(),
            Command::SetSpeed(x) => ui.speed.set(x),
            Command::SetLocale(l) => {
                if let Some(l) = Locale::parse(l.code()) {
                    self.lang.switch(l);
                }
            }
        }
    }

    /// Back and Forward: the address's state goes back onto the page (the teacher's locks stay).
    fn on_history(self) {
        let _pending = self.bar().borrow_mut().timer.take();
        let search = window().location().search().unwrap_or_default();
        let lab = Query::parse(&search).lab;
        let state = self.bar().borrow_mut().history.as_mut().and_then(|h| h.returned_to(lab.as_deref()));
        let Some(state) = state else { return };
        if let Some(l) = state.locale.as_deref().and_then(Locale::parse) {
            self.lang.set(l);
        }
        restore(self.ui, state);
        self.ui.apply(false);
    }
}

/// Puts a state's scenarios, lesson, exercise, locks and hidden parts onto the page
/// (`ShareState::restore_plan`).
fn restore(ui: Ui, state: ShareState) {
    let r = state.restore_plan();
    let ab = r.runs.len() == 2;
    for (run, (preset, scenario)) in Run::ALL.into_iter().zip(r.runs) {
        ui.presets[run.index()].set(preset);
        ui.load(run, scenario);
    }
    ui.ab.set(ab);
    ui.editing.set(Run::A);
    ui.lesson.set(r.lesson);
    ui.exercise.set(r.exercise);
    ui.locked.set(r.locked);
    ui.hidden.set(r.hide);
}

/// Tells the embedding page the height of the lab's content whenever it changes (`resize`), so
/// a host (the `<llm-lab>` element) can size its frame to it. Through `Reflect`: the
/// `ResizeObserver` bindings would sit in the page's first module.
fn watch_height() {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    if !address::in_frame() {
        return;
    }
    let Some(root) = window().document().and_then(|d| d.document_element()) else { return };
    let Some(ctor) = js_sys::Reflect::get(&window(), &"ResizeObserver".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
    else {
        return;
    };
    let last = std::cell::Cell::new(-1.0f64);
    let el = root.clone();
    let on_resize = Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| {
        let h = el.get_bounding_client_rect().height().ceil();
        if h != last.get() {
            last.set(h);
            post_event("resize", json!({ "height": h }));
        }
    });
    let args = js_sys::Array::of1(on_resize.as_ref());
    if let Ok(observer) = js_sys::Reflect::construct(&ctor, &args) {
        if let Ok(observe) = js_sys::Reflect::get(&observer, &"observe".into()) {
            if let Ok(f) = observe.dyn_into::<js_sys::Function>() {
                let _ = f.call1(&observer, &root);
            }
        }
    }
    // observes for the whole visit
    on_resize.forget();
}

/// Compact layout and links that leave the frame for a new tab.
fn mark_embedded() {
    let Some(doc) = window().document() else { return };
    if let Some(body) = doc.body() {
        let _ = body.class_list().add_1("embed");
    }
    if let (Some(head), Ok(base)) = (doc.head(), doc.create_element("base")) {
        let _ = base.set_attribute("target", "_blank");
        let _ = head.append_child(&base);
    }
}

/// Values of the address the page could not use: the parameter, what it was, what it may be
/// (`app_model::query`'s words under a translated lead-in); the page goes on without them.
#[component]
pub fn QueryBanner() -> impl IntoView {
    let problems = RwSignal::new(crate::address::use_address().with(|q| q.problems.clone()));
    move || {
        let list = problems.get();
        (!list.is_empty()).then(|| {
            view! {
                <div class="banner error link-banner" role="alert" data-testid="query-problems">
                    <h3>{tx("features.embed.bad_params")}</h3>
                    <ul>{list.into_iter().map(|m| view! { <li><code data-testid="query-problem">{m}</code></li> }).collect_view()}</ul>
                    <button class="btn small-btn" data-testid="query-problems-dismiss" on:click=move |_| problems.set(Vec::new())>
                        {tx("share.dismiss")}
                    </button>
                </div>
            }
        })
    }
}
/// The message about a link that could not be opened: a translated lead-in, sim-core's words.
#[component]
pub fn LinkBanner() -> impl IntoView {
    let problem = use_links().problem;
    let link = move || {
        problem.get().map(|p| {
            let lead = p.lead_key();
            let msg = p.message().to_string();
            view! {
                <div class="banner error link-banner" role="alert" data-testid="link-error">
                    <h3>{tx(lead)}</h3>
                    <p><code data-testid="link-error-message">{msg}</code></p>
                    <p class="small">
                        {tx("share.default_shown")} " "
                        <button class="btn small-btn" data-testid="link-error-dismiss" on:click=move |_| problem.set(None)>
                            {tx("share.dismiss")}
                        </button>
                    </p>
                </div>
            }
        })
    };
    view! { <QueryBanner/> {link} }
}
