//! Definitions shown one hover or focus away from every metric and setting
//! (metrics follow vLLM's benchmark definitions, as sim-core measures them).
//! The constants are translation keys (`app/i18n/ui.*.json`); [`Term`] looks them up.

use leptos::prelude::*;

use crate::i18n::{t, tx};

pub const TTFT: &str = "def.ttft";
pub const TPOT: &str = "def.tpot";
pub const ITL: &str = "def.itl";
pub const E2E: &str = "def.e2e";
pub const TTFT_CENSORED: &str = "def.ttft_censored";
pub const E2E_CENSORED: &str = "def.e2e_censored";
pub const P50: &str = "def.p50";
pub const P95: &str = "def.p95";
pub const P99: &str = "def.p99";
pub const MEAN: &str = "def.mean";
pub const THROUGHPUT: &str = "def.throughput";
pub const GOODPUT: &str = "def.goodput";
pub const SLO_ATTAINMENT: &str = "def.slo_attainment";
pub const COST_OUTPUT: &str = "def.cost_output";
pub const COST_GOOD: &str = "def.cost_good";
pub const COMPLETED: &str = "def.completed";
pub const REJECTED: &str = "def.rejected";
pub const TIMED_OUT: &str = "def.timed_out";
pub const PREEMPTED: &str = "def.preempted";
pub const OOM: &str = "def.oom";
pub const FAILED: &str = "def.failed";
pub const IN_FLIGHT: &str = "def.in_flight";

pub const HBM: &str = "def.hbm";
pub const KV_USED: &str = "def.kv_used";
pub const KV_WASTE: &str = "def.kv_waste";
pub const KV_FREE: &str = "def.kv_free";
pub const KV_CACHED: &str = "def.kv_cached";
pub const PREFIX_CACHE: &str = "def.prefix_cache";
pub const ROUTER_IMBALANCE: &str = "def.router_imbalance";
pub const KV_TRANSFER: &str = "def.kv_transfer";
pub const HEADROOM: &str = "def.headroom";
pub const OUTSIDE: &str = "def.outside";
pub const WEIGHTS: &str = "def.weights";
pub const ACTIVATIONS: &str = "def.activations";

/// A label with its definition one hover, tap or keyboard focus away. `label` and `def` are
/// translation keys; text that is not a key shows as written.
///
/// A term is not a tab stop of its own (`tabindex="-1"`: a tap or click still focuses it and
/// shows the definition). Keyboard users meet the definition on the control it belongs to: a
/// field shows it while its control has the keyboard focus, and names it as the control's
/// description (`aria-describedby` = `id`, given by the field). The page's "Definitions" switch
/// ([`DefsToggle`]) shows every definition in place.
#[component]
pub fn Term(
    #[prop(into)] label: String,
    def: &'static str,
    /// Element id of the definition, for the control's `aria-describedby`.
    #[prop(optional, into)]
    id: Option<String>,
) -> impl IntoView {
    // a definition that describes a control is not read again as part of its label
    let hidden = id.as_ref().map(|_| "true");
    view! {
        <span class="term" tabindex="-1">
            {move || t(&label)}
            <span class="def" role="tooltip" id=id aria-hidden=hidden>{tx(def)}</span>
        </span>
    }
}

/// Shows every definition in place (for keyboard and screen-reader users, and on touch
/// screens): a pressed button puts `defs-shown` on `<body>`.
#[component]
pub fn DefsToggle() -> impl IntoView {
    let on = RwSignal::new(false);
    let toggle = move |_| {
        let next = !on.get_untracked();
        on.set(next);
        if let Some(body) = document().body() {
            let _ = body.class_list().toggle_with_force("defs-shown", next);
        }
    };
    view! {
        <button
            type="button"
            class="chip"
            class:active=move || on.get()
            aria-pressed=move || on.get().to_string()
            title=tx("a11y.defs_title")
            data-testid="defs-toggle"
            on:click=toggle
        >{tx("a11y.defs")}</button>
    }
}
