//! The live metrics panel: latency percentiles with the mean beside p99, throughput beside
//! goodput, SLO attainment, cost per million tokens, and the counts of what went wrong.
//! Numbers come from sim-core's summary at the calm tick; the panel only formats them.

use app_model::Run;
use leptos::prelude::*;
use sim_core::metrics::{ClassSummary, Cost, Dist, Summary};
use sim_core::scenario::Slo;

use crate::defs::{self, Term};
use crate::format;
use crate::glyph;
use crate::i18n::{t, tf, tx};
use crate::ui::use_ui;

/// The part of a summary the panel shows: all classes, or one (cost is the whole run's).
#[derive(Clone, Default, PartialEq)]
struct Picked {
    c: ClassSummary,
    cost: Option<Cost>,
}

fn pick(s: &Summary, class: Option<&str>) -> Picked {
    match class.and_then(|name| s.classes.get(name)) {
        Some(c) => Picked { c: c.clone(), cost: None },
        None => Picked { c: s.all.clone(), cost: Some(s.cost) },
    }
}

#[derive(Clone, Copy)]
struct LatencyRow {
    key: &'static str,
    label: &'static str,
    def: &'static str,
    dist: fn(&Picked) -> Dist,
    slo: fn(&Slo) -> Option<f64>,
}

static ROWS: [LatencyRow; 4] = [
    LatencyRow { key: "ttft", label: "TTFT", def: defs::TTFT, dist: |p| p.c.ttft_ms, slo: |s| s.ttft_ms },
    LatencyRow { key: "tpot", label: "TPOT", def: defs::TPOT, dist: |p| p.c.tpot_ms, slo: |s| s.tpot_ms },
    LatencyRow { key: "itl", label: "ITL", def: defs::ITL, dist: |p| p.c.itl_ms, slo: |_| None },
    LatencyRow { key: "e2e", label: "E2E", def: defs::E2E, dist: |p| p.c.e2e_ms, slo: |s| s.e2e_ms },
];

/// Metrics of `run`.
#[component]
pub fn MetricsPanel(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let info = ui.infos[run.index()];
    // The selected class's name, if one is selected and exists in this run.
    let class_name = Memo::new(move |_| {
        let c = ui.class_view.get()?;
        info.with(|i| i.as_ref().and_then(|i| i.class_names.get(c).cloned()))
    });
    let picked = Memo::new(move |_| {
        let name = class_name.get();
        view_sig.with(|v| v.as_ref().map(|v| pick(&v.summary, name.as_deref())))
    });
    let get =
        move |f: fn(&Picked) -> String| move || picked.with(|p| p.as_ref().map_or_else(|| format::NONE.to_string(), f));
    // SLOs of the selected class (or of the only class).
    let slo = Memo::new(move |_| {
        let c = ui.class_view.get();
        info.with(|i| {
            let i = i.as_ref()?;
            let idx = match c {
                Some(c) => c,
                None if i.scenario.classes.len() == 1 => 0,
                None => return None,
            };
            i.scenario.classes.get(idx).map(|c| c.slo.clone())
        })
    });

    let rows = ROWS
        .iter()
        .map(|row| {
            let row = *row;
            let cell = move |stat: &'static str, f: fn(&Dist) -> f64| {
                let text = move || {
                    picked.with(|p| {
                        p.as_ref().map_or_else(
                            || format::NONE.to_string(),
                            |p| {
                                let d = (row.dist)(p);
                                format::dist_ms(d.count, f(&d))
                            },
                        )
                    })
                };
                let over = move || {
                    let limit = slo.with(|s| s.as_ref().and_then(|s| (row.slo)(s)));
                    picked.with(|p| match (p, limit) {
                        (Some(p), Some(l)) => {
                            let d = (row.dist)(p);
                            d.count > 0 && f(&d) > l
                        }
                        _ => false,
                    })
                };
                view! {
                    <td class="num" class:over=over data-testid=format!("metric-{}-{}", row.key, stat)>{text}</td>
                }
            };
            let slo_text = move || {
                slo.with(|s| s.as_ref().and_then(|s| (row.slo)(s)).map(|v| format!("SLO {}", format::ms(v))))
                    .unwrap_or_default()
            };
            view! {
                <tr>
                    <th scope="row"><Term label=row.label def=row.def/><span class="slo-tag">{slo_text}</span></th>
                    {cell("p50", |d| d.p50)}
                    {cell("p95", |d| d.p95)}
                    {cell("p99", |d| d.p99)}
                    {cell("mean", |d| d.mean)}
                </tr>
            }
        })
        .collect_view();

    let share = move || {
        picked.with(|p| {
            p.as_ref().map_or(0.0, |p| {
                let t = p.c.throughput.output_tokens_per_s;
                if t > 0.0 {
                    (p.c.goodput.output_tokens_per_s / t).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
        })
    };
    let has_cost = move || picked.with(|p| p.as_ref().is_none_or(|p| p.cost.is_some()));

    let class_tabs = move || {
        let names = info.with(|i| i.as_ref().map(|i| i.class_names.clone()).unwrap_or_default());
        (names.len() > 1).then(|| {
            let tabs = names
                .into_iter()
                .enumerate()
                .map(|(i, name)| {
                    view! {
                        <button
                            class="tab"
                            class:active=move || ui.class_view.get() == Some(i)
                            aria-pressed=move || (ui.class_view.get() == Some(i)).to_string()
                            data-testid=format!("class-tab-{i}")
                            on:click=move |_| ui.class_view.set(Some(i))
                        >
                            <svg class="glyph" viewBox="0 0 16 16" aria-hidden="true"><path d=glyph::svg_path(i) fill=glyph::colour(i)/></svg>
                            <span class="sr-only">{tx(glyph::shape_name(i))}" "</span>
                            {name}
                        </button>
                    }
                })
                .collect_view();
            view! {
                <div class="tabs" role="group" aria-label=tx("metrics.for")>
                    <button
                        class="tab"
                        class:active=move || ui.class_view.get().is_none()
                        aria-pressed=move || ui.class_view.get().is_none().to_string()
                        data-testid="class-tab-all"
                        on:click=move |_| ui.class_view.set(None)
                    >{tx("metrics.all_classes")}</button>
                    {tabs}
                </div>
            }
        })
    };

    let title = move || {
        if ui.ab.get() {
            tf("metrics.run", &[("run", run.label().to_string())])
        } else {
            t("metrics.title")
        }
    };
    let when = move || {
        view_sig.with(|v| {
            v.as_ref().map_or_else(String::new, |v| {
                let key = if v.finished { "metrics.after_finished" } else { "metrics.after" };
                tf(key, &[("time", format::sim_time(v.now_s))])
            })
        })
    };

    view! {
        <section class="panel metrics" data-testid=format!("metrics-{}", run.slug()) aria-live="off">
            <header class="panel-head">
                <h2>{title}</h2>
                <span class="muted small">{when}</span>
            </header>
            {class_tabs}
            <table class="lat">
                <thead>
                    <tr>
                        <th scope="col"><span class="muted small">{tx("metrics.latency")}</span></th>
                        <th scope="col"><Term label="p50" def=defs::P50/></th>
                        <th scope="col"><Term label="p95" def=defs::P95/></th>
                        <th scope="col"><Term label="p99" def=defs::P99/></th>
                        <th scope="col" class="mean-head"><Term label="metrics.mean" def=defs::MEAN/></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint small">{tx("metrics.hint")}</p>

            <div class="tput">
                <div class="kv">
                    <Term label="metrics.throughput" def=defs::THROUGHPUT/>
                    <span class="big" data-testid="metric-throughput">{get(|p| format!("{} tok/s", format::rate(p.c.throughput.output_tokens_per_s)))}</span>
                    <span class="muted small" data-testid="metric-throughput-req">{get(|p| format!("{} req/s", format::rate(p.c.throughput.requests_per_s)))}</span>
                </div>
                <div class="kv">
                    <Term label="metrics.goodput" def=defs::GOODPUT/>
                    <span class="big good" data-testid="metric-goodput">{get(|p| format!("{} tok/s", format::rate(p.c.goodput.output_tokens_per_s)))}</span>
                    <span class="muted small" data-testid="metric-goodput-req">{get(|p| format!("{} req/s", format::rate(p.c.goodput.requests_per_s)))}</span>
                </div>
                <div class="bar-pair" role="img" aria-label=move || tf("metrics.share_bar", &[("pct", format::pct(share()))])>
                    <div class="bar-good" style:width=move || format!("{:.1}%", share() * 100.0)></div>
                </div>
                <div class="kv">
                    <Term label="metrics.slo_attainment" def=defs::SLO_ATTAINMENT/>
                    <span class="big" data-testid="metric-slo-attainment">{get(|p| {
                        // attainment is a share of ended requests: none ended yet, nothing to show
                        let r = &p.c.requests;
                        if r.ended() == 0 {
                            format::NONE.to_string()
                        } else {
                            format::pct(p.c.goodput.slo_attainment)
                        }
                    })}</span>
                </div>
            </div>

            <div class="cost" class:hidden=move || !has_cost()>
                <div class="kv">
                    <Term label="metrics.cost_output" def=defs::COST_OUTPUT/>
                    <span class="big" data-testid="metric-cost-output">{get(|p| p.cost.map_or_else(|| format::NONE.to_string(), |c| format::usd(c.usd_per_million_output_tokens)))}</span>
                </div>
                <div class="kv">
                    <Term label="metrics.cost_good" def=defs::COST_GOOD/>
                    <span class="big" data-testid="metric-cost-good">{get(|p| p.cost.map_or_else(|| format::NONE.to_string(), |c| format::usd(c.usd_per_million_good_tokens)))}</span>
                </div>
            </div>
            <p class="hint small" class:hidden=has_cost>{tx("metrics.cost_hint")}</p>

            <dl class="counts">
                {count("completed", "metrics.completed", defs::COMPLETED, get(|p| format::int(p.c.requests.completed)))}
                {count("in-flight", "metrics.in_flight", defs::IN_FLIGHT, get(|p| format::int(p.c.requests.in_flight)))}
                {count("rejected", "metrics.rejected", defs::REJECTED, get(|p| format::int(p.c.requests.rejected)))}
                {count("timed-out", "metrics.timed_out", defs::TIMED_OUT, get(|p| format::int(p.c.requests.timed_out)))}
                {count("preempted", "metrics.preempted", defs::PREEMPTED, get(|p| format::int(p.c.requests.preempted)))}
                {count("oom-restarts", "metrics.oom_restarts", defs::OOM, get(|p| format::int(p.c.requests.oom_restarts)))}
                {count("failed", "metrics.failed", defs::FAILED, get(|p| format::int(p.c.requests.failed)))}
            </dl>
        </section>
    }
}

fn count(
    key: &'static str,
    label: &'static str,
    def: &'static str,
    value: impl Fn() -> String + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="count">
            <dt><Term label=label def=def/></dt>
            <dd data-testid=format!("count-{key}")>{value}</dd>
        </div>
    }
}
