//! The capacity planner's Web Worker: one of the page's workers that share a search. The page
//! sends orders as JSON text (`app_model::tabs::plan_crew::Order`: start with a share of the
//! candidates, take a step knowing the cheapest found by any worker, answer, join the answers);
//! the worker replies to each (`app_model::tabs::plan::Reply`, JSON text), all through
//! `app_model::tabs::plan_crew::Worker`. It says `ready` once it listens, so the page sends its
//! first order only then. The page cancels by terminating its workers.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let out = scope.clone();
    let mut worker = app_model::tabs::plan_crew::Worker::default();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(order) = ev.data().as_string() else { return };
        for reply in worker.hear(&order) {
            let _ = out.post_message(&JsValue::from_str(&reply));
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(app_model::tabs::plan::READY));
}
