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
            "Something went wrong inside the simulator app. Reload the page to start again.",
        ),
        ("pre", message),
    ] {
        if let Ok(el) = document.create_element(tag) {
            el.set_text_content(Some(text));
            let _ = view.append_child(&el);
        }
    }
    body.set_text_content(None);
    let _ = body.append_child(&view);
}
