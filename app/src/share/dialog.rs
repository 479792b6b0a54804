//! The Share dialog: the link (copied when the browser allows it, shown to copy by hand), the
//! embed code for a chosen size and parts, and its preview.

use std::cell::RefCell;
use std::rc::Rc;

use app_model::embed::{part_key, preview_box, EmbedForm};
use app_model::query::Part;
use app_model::share::EMBED_SIZES;
use leptos::prelude::*;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{JsCast, JsValue};

use super::{base_url, use_links};
use crate::i18n::{t, tx};

/// Copies `text` to the clipboard when the browser allows it; `done(true)` once copied (boxed:
/// one copy of the function serves every caller).
pub(crate) fn copy_text(text: &str, done: Box<dyn FnOnce(bool)>) {
    let done = Rc::new(RefCell::new(Some(done)));
    let finish = {
        let done = done.clone();
        move |ok: bool| {
            if let Some(f) = done.borrow_mut().take() {
                f(ok);
            }
        }
    };
    let nav = window().navigator();
    let clip = js_sys::Reflect::get(&nav, &"clipboard".into()).ok().filter(JsValue::is_object);
    let write = clip
        .as_ref()
        .and_then(|c| js_sys::Reflect::get(c, &"writeText".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let promise = match (clip, write) {
        (Some(clip), Some(write)) => write.call1(&clip, &JsValue::from_str(text)).ok(),
        _ => None,
    };
    let then = promise
        .as_ref()
        .and_then(|p| js_sys::Reflect::get(p, &"then".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let (Some(promise), Some(then)) = (promise, then) else {
        finish(false);
        return;
    };
    let on_ok = finish.clone();
    let ok = Closure::once_into_js(move |_: JsValue| on_ok(true));
    let err = Closure::once_into_js(move |_: JsValue| finish(false));
    if then.call2(&promise, &ok, &err).is_err() {
        if let Some(f) = done.borrow_mut().take() {
            f(false);
        }
    }
}

/// The dialog's element `id`, as a `T`.
fn element<T: JsCast>(id: &str) -> Option<T> {
    window().document().and_then(|d| d.get_element_by_id(id)).and_then(|e| e.dyn_into::<T>().ok())
}

/// Selects the link in its box (`focus`: and moves the focus there first).
fn select_share_url(focus: bool) {
    if let Some(input) = element::<web_sys::HtmlInputElement>("share-url") {
        if focus {
            let _ = input.focus();
        }
        input.select();
    }
}

fn focus_share_button() {
    if let Some(b) = element::<web_sys::HtmlElement>("share-button") {
        let _ = b.focus();
    }
}

/// The toolbar's Share button: makes the link, copies it when allowed, and shows it to copy by hand.
#[component]
pub fn ShareButton() -> impl IntoView {
    let links = use_links();
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<&'static str>);
    let close = move || {
        link.set(None);
        focus_share_button();
    };
    let on_click = move |_| {
        if link.with_untracked(Option::is_some) {
            link.set(None);
            return;
        }
        let url = links.url();
        link.set(Some(url.clone()));
        status.set(None);
        copy_text(&url, Box::new(move |ok| status.set(Some(if ok { "share.copied" } else { "share.copy_hint" }))));
        request_animation_frame(|| select_share_url(true));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            close();
        }
    };
    view! {
        <div class="share">
            <button
                id="share-button"
                class="btn"
                data-testid="share"
                aria-haspopup="dialog"
                aria-expanded=move || link.with(Option::is_some).to_string()
                title=tx("toolbar.share_title")
                on:click=on_click
            >{tx("toolbar.share")}</button>
            <Show when=move || link.with(Option::is_some)>
                <div class="share-pop" role="dialog" aria-label=tx("share.link_label") data-testid="share-pop" on:keydown=on_key>
                    <label for="share-url">{tx("share.link_label")}</label>
                    <input
                        id="share-url"
                        type="text"
                        readonly
                        data-testid="share-url"
                        prop:value=move || link.get().unwrap_or_default()
                        on:focus=move |_| request_animation_frame(|| select_share_url(false))
                    />
                    <p class="small" aria-live="polite" data-testid="share-status">{move || status.get().map(t)}</p>
                    <p class="small muted">{tx("share.note")}</p>
                    <div class="share-actions">
                        <a class="btn small-btn" href=move || link.get().unwrap_or_default() target="_blank" rel="noopener">{tx("share.open")}</a>
                        <button class="btn small-btn" data-testid="share-close" on:click=move |_| close()>{tx("share.close")}</button>
                    </div>
                    <EmbedCode/>
                </div>
            </Show>
        </div>
    }
}

/// "Copy embed code": an `<iframe>` for a chosen size and parts, a live preview at that size
/// (scaled to fit the dialog; a second lab, so it loads only when asked for), and a copy
/// button that says when it copied.
#[component]
fn EmbedCode() -> impl IntoView {
    let form = RwSignal::new(EmbedForm::default());
    let status = RwSignal::new(None::<&'static str>);
    let previewing = RwSignal::new(false);
    let state = use_links().state(&[]);
    let base = base_url();
    let chosen = Memo::new(move |_| form.with(EmbedForm::chosen));
    let src = {
        let (base, state) = (base.clone(), state.clone());
        Memo::new(move |_| form.with(|f| f.src(&base, &state)))
    };
    let code = move || form.with(|f| f.code(&base, &state));
    let size_options = EMBED_SIZES
        .iter()
        .enumerate()
        .map(|(i, (w, h))| view! { <option value=i.to_string() selected=i == 0>{format!("{w} × {h}")}</option> })
        .collect_view();
    let part_boxes = Part::ALL
        .into_iter()
        .map(|p| {
            let on = Callback::new(move |on| form.update(|f| f.show_part(p, on)));
            let label = tx(part_key(p)).into_any();
            crate::kit::check_line(format!("embed-part-{}", p.name()), Part::EMBED_DEFAULT.contains(&p), label, on)
        })
        .collect_view();
    let on_copy = {
        let code = code.clone();
        move |_| {
            status.set(None);
            let done =
                move |ok| status.set(Some(if ok { "features.embed.copied" } else { "features.embed.copy_hint" }));
            copy_text(&code(), Box::new(done));
        }
    };
    let custom_field = move |label: &'static str, id: &'static str, second: bool| {
        view! {
            <label class="embed-size-field">
                {tx(label)} " "
                <input
                    type="number"
                    inputmode="numeric"
                    data-testid=id
                    prop:value=move || form.with(|f| if second { f.custom.1.clone() } else { f.custom.0.clone() })
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        form.update(|f| if second { f.custom.1 = v } else { f.custom.0 = v });
                    }
                />
            </label>
        }
    };
    let is_custom = move || form.with(EmbedForm::is_custom);
    let preview = move || {
        chosen.get().ok().filter(|_| previewing.get()).map(|(w, h)| {
            let (scale, bw, bh) = preview_box((w, h));
            view! {
                <div class="embed-preview" style=format!("width:{bw}px;height:{bh}px")>
                    <iframe
                        data-testid="embed-preview"
                        title=tx("features.embed.preview")
                        src=src.get()
                        width=w.to_string()
                        height=h.to_string()
                        style=format!("transform:scale({scale:.4})")
                    ></iframe>
                </div>
            }
        })
    };
    view! {
        <section class="embed-code" aria-label=tx("features.embed.title") data-testid="embed-code-section">
            <h3>{tx("features.embed.title")}</h3>
            <label class="embed-size-field">
                {tx("features.embed.size")} " "
                <select data-testid="embed-size" on:change=move |ev| form.update(|f| f.choose_size(&event_target_value(&ev)))>
                    {size_options}
                    <option value=EMBED_SIZES.len().to_string()>{tx("features.embed.custom")}</option>
                </select>
            </label>
            <Show when=is_custom>
                {custom_field("features.embed.width", "embed-width", false)}
                {custom_field("features.embed.height", "embed-height", true)}
            </Show>
            <p class="small error-text" data-testid="embed-size-error">{move || chosen.get().err()}</p>
            <label class="embed-size-field">
                {tx("features.embed.kind")} " "
                <select data-testid="embed-kind" on:change=move |ev| form.update(|f| f.element = event_target_value(&ev) == "element")>
                    <option value="iframe" selected>{tx("features.embed.kind.iframe")}</option>
                    <option value="element">{tx("features.embed.kind.element")}</option>
                </select>
            </label>
            <fieldset class="embed-parts">
                <legend class="small">{tx("features.embed.parts")}</legend>
                {part_boxes}
            </fieldset>
            <textarea readonly rows="4" data-testid="embed-code" aria-label=tx("features.embed.title") prop:value=code></textarea>
            <p class="share-actions">
                <button class="btn small-btn" data-testid="copy-embed" on:click=on_copy>{tx("features.embed.copy")}</button>
                <span class="small" aria-live="polite" data-testid="embed-status">{move || status.get().map(t)}</span>
            </p>
            <p class="small muted">{tx("features.embed.privacy")}</p>
            <p>
                <button
                    class="btn small-btn"
                    data-testid="embed-preview-toggle"
                    aria-expanded=move || previewing.get().to_string()
                    on:click=move |_| previewing.update(|v| *v = !*v)
                >{move || t(if previewing.get() { "features.embed.hide_preview" } else { "features.embed.show_preview" })}</button>
            </p>
            {preview}
        </section>
    }
}
