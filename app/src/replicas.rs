//! The replicas of a cluster run, beside its stage: a tile per replica with its requests waiting
//! and running (against the busiest replica's) and its KV fill, and the router's spread
//! (`app_model::panels::replicas`). Shown only with more than one replica; the stage above draws
//! the whole cluster's requests.

use app_model::panels::replicas::Replicas;
use app_model::Run;
use leptos::prelude::*;

use crate::defs::{self, say, Term};
use crate::i18n::{t, tf, PAGE};
use crate::ui::use_ui;

#[component]
pub fn ReplicaGrid(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let state = Memo::new(move |_| view_sig.with(|v| v.as_ref().and_then(|v| Replicas::new(&v.replicas, &v.summary))));
    move || {
        let r = state.get()?;
        let head = r.head_words(PAGE);
        let tiles = r
            .tiles
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let pool_label = l.pool.map(|p| t(&format!("replicas.pool.{p}")));
                view! {
                    <li class="replica" class:restarting=l.restarting data-testid="replica" data-pool=l.pool>
                        <b>{tf("replicas.name", &[("n", i.to_string())])}</b>
                        {pool_label.map(|p| view! { <span class="small pool">{p}</span> })}
                        <span class="rbar" title=t("replicas.load") aria-hidden="true">
                            <span class="rbar-load" style:width=format!("{:.1}%", l.load_share * 100.0)></span>
                        </span>
                        <span class="rbar" title=t("replicas.kv") aria-hidden="true">
                            <span class="rbar-kv" style:width=format!("{:.1}%", l.kv_share * 100.0)></span>
                        </span>
                        <span class="small">{say(&l.line)}</span>
                        {l.hits.as_ref().map(|h| view! { <span class="small muted">{say(h)}</span> })}
                        {l.sending.as_ref().map(|n| view! { <span class="small sending">{say(n)}</span> })}
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <section class="panel replicas" data-testid="replicas">
                <header class="panel-head">
                    <h2>{t("replicas.title")}</h2>
                    <span class="muted small">{head}</span>
                    <span class="small">
                        <Term label="replicas.imbalance" def=defs::ROUTER_IMBALANCE/>
                        " "
                        <b data-testid="router-imbalance">{r.imbalance.clone()}</b>
                    </span>
                </header>
                <p class="small muted">{t("replicas.note")}</p>
                <ol class="replica-grid">{tiles}</ol>
            </section>
        })
    }
}
