//! Teacher mode: the link that locks chosen controls, and the check of a handed-in result code
//! by re-running it.

use app_model::locks::LOCKABLE;
use app_model::share::Hidden;
use app_model::tabs::exercise::{self as model, CodeVerdict, Teacher};
use leptos::prelude::*;

use super::{Checked, State};
use crate::i18n::{t, tf, tx, PAGE};
use crate::kit::{self, actions, button, check_line, text};
use crate::share;

/// The teacher's link maker: a box per control, and the link.
pub(super) fn teacher(st: State) -> AnyView {
    let boxes = move || {
        st.teacher.with(|t| t.version);
        LOCKABLE
            .iter()
            .map(|(id, key)| {
                let id = *id;
                let on = st.teacher.with_untracked(|t| t.is_chosen(id));
                let tick = Callback::new(move |on| st.teacher.update(|t| t.tick(id, on)));
                check_line(format!("teacher-lock-{id}"), on, t(key).into_any(), tick)
            })
            .collect_view()
    };
    let cb = |f: fn(State)| Callback::new(move |()| f(st));
    let make = cb(|st| {
        let locks = st.teacher.with_untracked(|t| t.chosen.clone());
        st.link.set(st.links.teacher_url(&locks, &st.hide.get_untracked()))
    });
    let hide_boxes = Hidden::ALL
        .into_iter()
        .map(|h| {
            let tick = Callback::new(move |on| st.hide.update(|x| h.tick_in(x, on)));
            check_line(format!("teacher-hide-{}", h.name()), false, tx(h.key()).into_any(), tick)
        })
        .collect_view();
    let link = move || {
        let link = st.link.get();
        (!link.is_empty()).then(|| {
            let copy_it = Callback::new(move |()| share::copy_text(&st.link.get_untracked(), Box::new(|_| {})));
            view! {
                <div class="teacher-link">
                    <label for="teacher-link" class="small">{tx("features.teacher.link")}</label>
                    <input id="teacher-link" type="text" readonly data-testid="teacher-link" prop:value=link />
                    {button("small-btn", None, "features.teacher.copy", None, copy_it)}
                </div>
            }
        })
    };
    view! {
        <div>
            <p class="small muted">{tx("features.teacher.intro")}</p>
            {actions(vec![
                button("small-btn", None, "features.teacher.none", None, cb(|st| st.teacher.update(|t| t.set(Vec::new())))),
                button("small-btn", None, "features.teacher.all", None, cb(|st| st.teacher.update(Teacher::all))),
                button("small-btn", None, "features.teacher.current", None, cb(|st| st.teacher.update(|t| t.set(st.ui.locked.get_untracked())))),
            ])}
            <fieldset class="lock-grid">
                <legend class="sr-only">{tx("features.teacher.title")}</legend>
                {boxes}
            </fieldset>
            <fieldset class="hide-grid">
                <legend class="small">{tx("features.teacher.hide.title")}</legend>
                {hide_boxes}
            </fieldset>
            {actions(vec![button("primary small-btn", Some("teacher-make"), "features.teacher.make", None, make)])}
        </div>
        <div>{link}</div>
        {scorm_view(st)}
    }
    .into_any()
}

/// Where the classroom package is.
#[derive(Clone, Copy, PartialEq)]
enum Packing {
    Idle,
    Making,
    Saved,
    Failed,
}

/// The classroom package: the open exercise, at the teacher's link's state, as a SCORM 1.2 zip
/// for a learning management system (`static/llm-lab/scorm.js`, fetched when first asked for).
fn scorm_view(st: State) -> AnyView {
    let packing = RwSignal::new(Packing::Idle);
    let no_exercise = move || st.ui.exercise.with(Option::is_none);
    let go = Callback::new(move |()| scorm(st, packing));
    let said = move || match packing.get() {
        Packing::Idle if no_exercise() => t("features.teacher.scorm.no_exercise"),
        Packing::Idle => String::new(),
        Packing::Making => t("features.teacher.scorm.making"),
        Packing::Saved => t("features.teacher.scorm.saved"),
        Packing::Failed => t("features.teacher.scorm.failed"),
    };
    view! {
        <div class="teacher-scorm">
            <p class="small muted">{tx("features.teacher.scorm.intro")}</p>
            <button
                type="button"
                class="btn small-btn"
                data-testid="teacher-scorm"
                prop:disabled=move || no_exercise() || packing.get() == Packing::Making
                on:click=move |_| go.run(())
            >
                {tx("features.teacher.scorm.download")}
            </button>
            <p class="small" role="status" data-testid="teacher-scorm-state" data-state=move || match packing.get() {
                Packing::Idle => "idle",
                Packing::Making => "making",
                Packing::Saved => "saved",
                Packing::Failed => "failed",
            }>{text(Box::new(said))}</p>
        </div>
    }
    .into_any()
}

fn scorm(st: State, packing: RwSignal<Packing>) {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    let Some(id) = st.ui.exercise.get_untracked() else { return };
    let locks = st.teacher.with_untracked(|t| t.chosen.clone());
    let code = st.links.teacher_state(&locks, &st.hide.get_untracked()).encode();
    let title = t(&format!("features.ex.{id}.title"));
    packing.set(Packing::Making);
    let run = move || {
        let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).unwrap_or(JsValue::UNDEFINED);
        let scorm = get(&window(), "llmLabScorm");
        let Ok(download) = get(&scorm, "download").dyn_into::<js_sys::Function>() else {
            return packing.set(Packing::Failed);
        };
        let opts = js_sys::Object::new();
        for (k, v) in [("lab", code.as_str()), ("exercise", id.as_str()), ("title", title.as_str())] {
            let _ = js_sys::Reflect::set(&opts, &k.into(), &v.into());
        }
        let Ok(promise) = download.call1(&scorm, &opts) else {
            return packing.set(Packing::Failed);
        };
        let ok = Closure::once_into_js(move |_: JsValue| packing.set(Packing::Saved));
        let failed = Closure::once_into_js(move |e: JsValue| {
            web_sys::console::warn_1(&e);
            packing.set(Packing::Failed);
        });
        if let Ok(then) = get(&promise, "then").dyn_into::<js_sys::Function>() {
            let _ = then.call2(&promise, &ok, &failed);
        }
    };
    if js_sys::Reflect::has(&window(), &"llmLabScorm".into()).unwrap_or(false) {
        return run();
    }
    // the packer is fetched the first time a package is asked for
    let Some(script) = document().create_element("script").ok() else { return packing.set(Packing::Failed) };
    let _ = script.set_attribute("src", "scorm.js");
    let on_load = Closure::once_into_js(run);
    let on_error = Closure::once_into_js(move |_: JsValue| packing.set(Packing::Failed));
    let _ = js_sys::Reflect::set(&script, &"onload".into(), &on_load);
    let _ = js_sys::Reflect::set(&script, &"onerror".into(), &on_error);
    if let Some(head) = document().head() {
        let _ = head.append_child(&script);
    }
}

/// Teacher mode's result-code box: paste, check (a re-run in the background), the verdict.
pub(super) fn verifier(st: State) -> AnyView {
    let check = Callback::new(move |()| st.check_code());
    let over = RwSignal::new(false);
    let file_error = st.file_error;
    let verdict = move || {
        st.verdict.get().map(|v| match v {
            Checked::Checking => {
                view! { <p class="small" role="status" data-testid="code-verdict" data-state="checking">{t("features.class.code.checking")}</p> }.into_any()
            }
            Checked::Done(v) => verdict_view(v),
        })
    };
    view! {
        <section class="code-check" data-testid="code-check">
            <h3>{tx("features.class.verify.title")}</h3>
            <p class="small muted">{tx("features.class.verify.intro")}</p>
            <label for="code-input" class="small">{tx("features.class.verify.label")}</label>
            <textarea
                id="code-input"
                rows="3"
                data-testid="code-input"
                class:drop-over=move || over.get()
                prop:value=move || st.code_text.get()
                on:input=move |ev| st.code_text.set(event_target_value(&ev))
                on:dragover=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    over.set(true);
                }
                on:dragleave=move |_| over.set(false)
                on:drop=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    over.set(false);
                    if let Some(files) = ev.data_transfer().and_then(|d| d.files()) {
                        read_codes(st, files);
                    }
                }
            ></textarea>
            <p class="small">
                <label for="code-files">{tx("features.class.verify.files")}</label>" "
                <input
                    id="code-files"
                    type="file"
                    multiple=true
                    accept=".txt,.csv,text/plain,text/csv"
                    data-testid="code-files"
                    on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        if let Some(files) = input.files() {
                            read_codes(st, files);
                        }
                        input.set_value("");
                    }
                />
            </p>
            <p class="banner error small" role="alert" data-testid="code-files-error" class:hidden=move || file_error.get().is_none()>
                {move || file_error.get()}
            </p>
            {actions(vec![button("primary small-btn", Some("code-check"), "features.class.verify.check", None, check)])}
            <div aria-live="polite">{verdict}</div>
            {super::class_table::view(st.class)}
        </section>
    }
    .into_any()
}

/// The files a teacher dropped or opened (students' codes, one a line, or CSV exports): their
/// texts, one after another, in the code box, then checked as a class.
fn read_codes(st: State, files: web_sys::FileList) {
    let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    if files.is_empty() {
        return;
    }
    st.file_error.set(None);
    // scoped: the file error is worded in the page's language after the reads
    leptos::task::spawn_local_scoped(async move {
        let mut texts = Vec::with_capacity(files.len());
        for f in &files {
            match js_sys::futures::JsFuture::from(f.text()).await.ok().and_then(|v| v.as_string()) {
                Some(text) => texts.push(text),
                None => {
                    st.file_error.set(Some(tf("features.class.verify.file_unreadable", &[("file", f.name())])));
                    return;
                }
            }
        }
        st.code_text.set(texts.join("\n"));
        st.check_code();
    });
}

/// The column heads of a checked code's numbers: the number, as claimed, as re-run.
const CHECK_HEADS: [&str; 3] = ["features.class.col.number", "features.class.col.claimed", "features.class.col.rerun"];

fn verdict_view(v: CodeVerdict) -> AnyView {
    match v {
        CodeVerdict::Refused(p) => {
            let (key, values) = model::problem_text(&p);
            view! { <p class="banner error small" role="alert" data-testid="code-verdict" data-state="refused">{tf(key, &values)}</p> }.into_any()
        }
        CodeVerdict::Failed(e) => {
            view! { <p class="banner error small" role="alert" data-testid="code-verdict" data-state="refused">{e}</p> }
                .into_any()
        }
        CodeVerdict::Ran { code, exercise: ex, check } => {
            let said = model::said::check(PAGE, &code, &ex, &check);
            let rows = said
                .rows
                .into_iter()
                .map(|(number, claimed, rerun, equal)| {
                    view! {
                        <tr class=if equal { "ok" } else { "no" } data-equal=equal.to_string()>
                            <td>{number}</td>
                            <td class="num">{claimed}</td>
                            <td class="num">{rerun}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p class=said.class role="status" data-testid="code-verdict" data-state=said.state>{said.text}</p>
                <p class="small">{said.exercise}</p>
                <p class="small">{said.settings}</p>
                <table class="runs-table">
                    <thead><tr>{kit::heads(CHECK_HEADS.map(t))}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
            .into_any()
        }
    }
}
