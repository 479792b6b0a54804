//! The replicas of a cluster run, beside its stage: a tile per replica with its requests waiting
//! and running (against the busiest replica's) and its KV fill, and the router's spread. Shown
//! only with more than one replica; the stage above draws the whole cluster's requests.

use app_model::Run;
use leptos::prelude::*;

use sim_core::sim::Pool;

use crate::defs::{self, Term};
use crate::format;
use crate::i18n::{t, tf};
use crate::ui::use_ui;

#[component]
pub fn ReplicaGrid(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let state = Memo::new(move |_| {
        view_sig.with(|v| {
            v.as_ref().filter(|v| !v.replicas.is_empty()).map(|v| {
                let pd = v.summary.disaggregation.map(|d| (d.prefill_replicas, d.decode_replicas));
                (v.replicas.clone(), v.summary.replicas.clone(), v.summary.router.clone(), pd)
            })
        })
    });
    move || {
        let (lines, totals, router, pd) = state.get()?;
        let most = lines.iter().map(|l| l.queued + l.running).max().unwrap_or(0).max(1);
        let head = router.map(|r| {
            let policy = t(&format!("replicas.policy.{}", r.policy));
            match pd {
                Some((p, d)) => {
                    tf("replicas.router_pd", &[("p", p.to_string()), ("d", d.to_string()), ("policy", policy)])
                }
                None => tf("replicas.router", &[("n", lines.len().to_string()), ("policy", policy)]),
            }
        });
        let imbalance = state.with(|s| s.as_ref().and_then(|s| s.2.as_ref()).map(|r| format!("{:.2}", r.imbalance)));
        let tiles = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let load = (l.queued + l.running) as f64 / most as f64 * 100.0;
                let total = totals.get(i);
                let requests = total.map_or(0, |x| x.requests);
                let hits = total.and_then(|x| x.prefix_hit_rate).map(|h| tf("replicas.hits", &[("pct", format::pct(h))]));
                let pool = match l.pool {
                    Pool::Both => None,
                    Pool::Prefill => Some(("prefill", t("replicas.pool.prefill"))),
                    Pool::Decode => Some(("decode", t("replicas.pool.decode"))),
                };
                let (pool_attr, pool_label) = (pool.as_ref().map(|p| p.0), pool.map(|p| p.1));
                let sending = (l.sending > 0).then(|| tf("replicas.sending", &[("n", format::int(l.sending))]));
                let text = tf(
                    "replicas.line",
                    &[
                        ("queued", format::int(l.queued)),
                        ("running", format::int(l.running)),
                        ("kv", format::pct(l.kv_fill)),
                        ("requests", format::int(requests)),
                    ],
                );
                view! {
                    <li class="replica" class:restarting=l.restarting data-testid="replica" data-pool=pool_attr>
                        <b>{tf("replicas.name", &[("n", i.to_string())])}</b>
                        {pool_label.map(|p| view! { <span class="small pool">{p}</span> })}
                        <span class="rbar" title=t("replicas.load") aria-hidden="true">
                            <span class="rbar-load" style:width=format!("{load:.1}%")></span>
                        </span>
                        <span class="rbar" title=t("replicas.kv") aria-hidden="true">
                            <span class="rbar-kv" style:width=format!("{:.1}%", l.kv_fill.clamp(0.0, 1.0) * 100.0)></span>
                        </span>
                        <span class="small">{text}</span>
                        {hits.map(|h| view! { <span class="small muted">{h}</span> })}
                        {sending.map(|n| view! { <span class="small sending">{n}</span> })}
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
                        <b data-testid="router-imbalance">{imbalance}</b>
                    </span>
                </header>
                <p class="small muted">{t("replicas.note")}</p>
                <ol class="replica-grid">{tiles}</ol>
            </section>
        })
    }
}
