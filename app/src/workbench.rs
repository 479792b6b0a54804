//! The workbench under the toolbar: guided lessons, sweeps, the resource contract, its capacity
//! plan and classroom exercises, one tab each. A panel is built the first time its tab opens (its code is fetched
//! then: each tab is a wasm module of its own) and then stays, so a sweep or an acceptance run
//! keeps going (and keeps its results) while another tab is shown.
//!
//! What those panels share (the job driver, buttons, a progress bar, browser helpers) is
//! [`crate::kit`]. The panels' state and rules live in `app_model::tabs`; these files only
//! render them.

use app_model::tabs::bench::{KeyMove, Opened, Tab};
use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

use crate::contract_panel::ContractPanel;
use crate::exercises::ExercisesPanel;
use crate::i18n::{t, tx};
use crate::kit::{button, effect, focus_soon, text};
use crate::lessons::LessonsPanel;
use crate::plan_panel::PlanPanel;
use crate::sweep_panel::SweepPanel;
use crate::ui::use_ui;

#[component]
pub fn Workbench() -> impl IntoView {
    let ui = use_ui();
    let tab = RwSignal::new(None::<Tab>);
    let opened: [RwSignal<bool>; Tab::ALL.len()] = std::array::from_fn(|_| RwSignal::new(false));
    let open = move |x: Tab| {
        // once only: setting it again would build the panel afresh, losing what it holds
        if !opened[x.index()].get_untracked() {
            opened[x.index()].set(true);
        }
        tab.set(Some(x));
    };
    // A lesson or an exercise opened (from a link, or from another panel) shows its tab.
    let seen = StoredValue::new(Opened::default());
    effect(Box::new(move || {
        let now =
            Opened { lesson: ui.lesson.with(|l| l.as_ref().map(|(id, _)| id.clone())), exercise: ui.exercise.get() };
        if let Some(x) = seen.try_update_value(|seen| seen.follow(now, tab.get_untracked())).flatten() {
            open(x);
        }
    }));

    let tab_button = move |x: Tab| {
        let on = move || tab.get() == Some(x);
        let on_key = move |ev: web_sys::KeyboardEvent| {
            let Some(to) = x.on_key(&ev.key()) else { return };
            ev.prevent_default();
            match to {
                KeyMove::Open => open(x),
                KeyMove::To(next) => {
                    open(next);
                    focus_soon(format!("#wb-tab-{}", next.id()));
                }
            }
        };
        view! {
            <button
                type="button"
                class="tab wb-tab"
                class:active=on
                role="tab"
                id=format!("wb-tab-{}", x.id())
                aria-controls=format!("wb-panel-{}", x.id())
                aria-selected=text(Box::new(move || on().to_string()))
                tabindex=move || if x.tab_stop(tab.get()) { 0 } else { -1 }
                data-testid=format!("wb-tab-{}", x.id())
                on:click=move |_| match x.clicked(tab.get_untracked()) {
                    Some(x) => open(x),
                    None => tab.set(None),
                }
                on:keydown=on_key
                on:pointerenter=move |_| warm(x)
                on:focus=move |_| warm(x)
            >
                {text(Box::new(move || t(x.key())))}
            </button>
        }
    };

    let panel = move |x: Tab| {
        let body = move || {
            opened[x.index()].get().then(|| {
                let sweep_visible = Signal::derive(move || tab.get() == Some(Tab::Sweep));
                // a failed fetch says so and offers another try; the rest of the lab runs on
                let attempt = RwSignal::new(0u32);
                move || {
                    attempt.track();
                    view! {
                        <Suspense fallback=|| view! { <p class="small muted" data-testid="wb-loading">{tx("features.workbench.loading")}</p> }>
                            {Suspend::new(async move {
                                let body = match x {
                                    Tab::Lessons => lessons_tab().await,
                                    Tab::Sweep => sweep_tab(sweep_visible).await,
                                    Tab::Contract => contract_tab(None).await,
                                    Tab::Plan => contract_tab(Some(tab)).await,
                                    Tab::Exercises => exercises_tab().await,
                                };
                                body.unwrap_or_else(|_| load_failed(x, attempt))
                            })}
                        </Suspense>
                    }
                }
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

    let close = Callback::new(move |()| tab.set(None));
    view! {
        <section class="workbench" aria-label=tx("features.workbench.label")>
            <div class="wb-bar">
                <div class="wb-tabs" role="tablist" aria-label=tx("features.workbench.label")>
                    {Tab::ALL.into_iter().map(tab_button).collect_view()}
                </div>
                {move || match tab.get() {
                    Some(_) => button("small-btn wb-close", Some("wb-close"), "features.workbench.close", None, close),
                    None => view! { <span class="small muted wb-hint">{tx("features.workbench.hint")}</span> }.into_any(),
                }}
            </div>
            {Tab::ALL.into_iter().map(panel).collect_view()}
        </section>
    }
}

// Each tab's code is a module of its own, fetched the first time the tab opens
// (`scripts/build-web.sh` builds with the `split` feature and splits them out; docs/wasm-size.md).
// `fallible`: a fetch that fails returns an error instead of stopping the whole lab. Without the
// feature (`trunk serve`'s development build) they are ordinary functions in the one module.

type Loaded = Result<AnyView, SplitLoaderError>;

macro_rules! tab_module {
    ($name:ident, $preload:ident, ($($arg:ident: $ty:ty),*) => $body:expr) => {
        #[cfg(feature = "split")]
        #[leptos::wasm_split::wasm_split($name, wasm_split_path = ::leptos::wasm_split, fallible, preload($preload))]
        fn $name($($arg: $ty),*) -> Loaded {
            $body
        }

        #[cfg(not(feature = "split"))]
        async fn $name($($arg: $ty),*) -> Loaded {
            $body
        }

        #[cfg(not(feature = "split"))]
        async fn $preload() {}
    };
}

tab_module!(lessons_tab, preload_lessons, () => Ok(view! { <LessonsPanel/> }.into_any()));
tab_module!(sweep_tab, preload_sweep, (visible: Signal<bool>) => Ok(view! { <SweepPanel visible/> }.into_any()));
// The contract's tab and its capacity plan's share a module, as they share the contract being
// edited: the plan's panel (given the open tab) or the contract's.
tab_module!(contract_tab, preload_contract, (plan: Option<RwSignal<Option<Tab>>>) => Ok(match plan {
    Some(tab) => view! { <PlanPanel tab/> }.into_any(),
    None => view! { <ContractPanel/> }.into_any(),
}));
tab_module!(exercises_tab, preload_exercises, () => Ok(view! { <ExercisesPanel/> }.into_any()));

/// Starts fetching a tab's module when the pointer reaches its button or the focus does, so it
/// is usually there by the click. A failure here is left to the click, which says so.
fn warm(x: Tab) {
    leptos::task::spawn_local(async move {
        // a `Result` with the `split` feature, `()` without
        #[allow(clippy::let_unit_value)]
        let _ = match x {
            Tab::Lessons => preload_lessons().await,
            Tab::Sweep => preload_sweep().await,
            Tab::Contract | Tab::Plan => preload_contract().await,
            Tab::Exercises => preload_exercises().await,
        };
    });
}

/// What a tab shows when its module could not be fetched: why, and a button to try again (the
/// button goes with the message, so the keyboard's focus moves back to the tab).
fn load_failed(x: Tab, attempt: RwSignal<u32>) -> AnyView {
    let again = move |_| {
        focus_soon(format!("#wb-tab-{}", x.id()));
        attempt.update(|n| *n += 1);
    };
    view! {
        <div class="wb-load-failed" role="alert" data-testid="wb-load-failed">
            <p>{tx("features.workbench.load_failed")}</p>
            <button class="btn small-btn" data-testid="wb-retry" on:click=again>
                {tx("features.workbench.retry")}
            </button>
        </div>
    }
    .into_any()
}
