//! The capacity planner's Web Worker. The page sends one request as JSON text
//! (`app_model::tabs::plan::Request`); the worker answers with a progress message after every
//! step of the search and then the answer (`Reply`, JSON text), all through
//! `app_model::tabs::plan::serve`. It says `ready` once it listens, so the page sends its
//! request only then. The page cancels by terminating the worker.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let out = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(request) = ev.data().as_string() else { return };
        app_model::tabs::plan::serve(&request, &mut |reply| {
            let _ = out.post_message(&JsValue::from_str(&reply));
        });
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(app_model::tabs::plan::READY));
}
