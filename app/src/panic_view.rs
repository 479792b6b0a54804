//! Turns a panic into a visible error message instead of a frozen or blank page.

use std::{
    panic::{self, PanicHookInfo},
    sync::atomic::{AtomicBool, Ordering},
};

use app_model::query::{Param, Query};

use crate::i18n::{lookup, Locale};

/// Only the first panic is shown: later ones are usually its aftermath.
static SHOWN: AtomicBool = AtomicBool::new(false);

/// Installs a panic hook that logs to the console and replaces the page with an error view.
pub fn install() {
    panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        if !SHOWN.swap(true, Ordering::Relaxed) {
            show(&info.to_string());
        }
    }));
}

/// Shows the error view when the page's texts could not be fetched (the lab cannot start).
pub fn texts_missing(why: &str) {
    if !SHOWN.swap(true, Ordering::Relaxed) {
        show(&format!("the translation tables could not be loaded: {why}"));
    }
}

/// The error view's words when no translation table could be loaded: both languages at once.
fn built_in(key: &str) -> &'static str {
    match key {
        "panic.title" => "The lab stopped · 实验室停止运行了",
        "panic.reset" => "Reset the lab · 重置实验室",
        _ => "Something went wrong inside the lab. · 实验室内部出错了。",
    }
}

/// Plain DOM calls only: after a panic the reactive runtime cannot be trusted. The language is
/// read from `<html lang>` (the page keeps it in step with the locale), not from a signal.
fn show(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let locale = document
        .document_element()
        .and_then(|e| e.get_attribute("lang"))
        .and_then(|l| Locale::parse(&l))
        .unwrap_or(Locale::En);
    let text = |key: &str| match lookup(locale, key) {
        found if found != key => found,
        _ => built_in(key).to_string(),
    };
    let Some(body) = document.body() else {
        return;
    };
    let Ok(view) = document.create_element("section") else {
        return;
    };
    let _ = view.set_attribute("class", "panic");
    let _ = view.set_attribute("role", "alert");
    let _ = view.set_attribute("data-testid", "panic");
    for (tag, text) in [("h1", text("panic.title")), ("p", text("panic.body")), ("pre", message.to_string())] {
        if let Ok(el) = document.create_element(tag) {
            el.set_text_content(Some(&text));
            let _ = view.append_child(&el);
        }
    }
    // A plain link: after a panic the wasm instance cannot be trusted to run a click handler.
    if let Ok(reset) = document.create_element("a") {
        let here = web_sys::window().and_then(|w| w.location().pathname().ok()).unwrap_or_else(|| "./".into());
        // the default scenario, keeping how the page is shown (embedded, language, contrast)
        let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
        let kept = Query::parse(&search).kept(&Param::KEPT_ON_RESET);
        let here = if kept.is_empty() { here } else { format!("{here}?{}", kept.join("&")) };
        let _ = reset.set_attribute("href", &here);
        let _ = reset.set_attribute("class", "btn primary");
        let _ = reset.set_attribute("data-testid", "panic-reset");
        // in an iframe the reset stays in the frame (embedded pages open other links in a new tab)
        let _ = reset.set_attribute("target", "_self");
        reset.set_text_content(Some(&text("panic.reset")));
        let _ = view.append_child(&reset);
    }
    body.set_text_content(None);
    let _ = body.append_child(&view);
}
