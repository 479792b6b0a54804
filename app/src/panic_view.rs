//! Turns a panic into a visible error message instead of a frozen or blank page.

use std::{
    panic::{self, PanicHookInfo},
    sync::atomic::{AtomicBool, Ordering},
};

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

/// Plain DOM calls only: after a panic the reactive runtime cannot be trusted.
fn show(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
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
    for (tag, text) in [
        ("h1", "The lab stopped"),
        (
            "p",
            "Something went wrong inside the lab. Your settings were not saved; reset to start again from the default scenario.",
        ),
        ("pre", message),
    ] {
        if let Ok(el) = document.create_element(tag) {
            el.set_text_content(Some(text));
            let _ = view.append_child(&el);
        }
    }
    // A plain link: after a panic the wasm instance cannot be trusted to run a click handler.
    if let Ok(reset) = document.create_element("a") {
        let here = web_sys::window().and_then(|w| w.location().pathname().ok()).unwrap_or_else(|| "./".into());
        let _ = reset.set_attribute("href", &here);
        let _ = reset.set_attribute("class", "btn primary");
        let _ = reset.set_attribute("data-testid", "panic-reset");
        reset.set_text_content(Some("Reset the lab"));
        let _ = view.append_child(&reset);
    }
    body.set_text_content(None);
    let _ = body.append_child(&view);
}
