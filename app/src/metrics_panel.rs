//! The live metrics panel: latency percentiles with the mean beside p99, each with how many
//! requests it is over, and for TTFT and E2E the censored view beneath (every arrival counted,
//! the unanswered at a lower bound, shown as "≥"); throughput beside goodput, SLO attainment,
//! cost per million tokens, and the counts of what went wrong. Numbers come from sim-core's
//! summary at the calm tick; the panel only formats them.

use app_model::ab::{self, Arrow, Verdict};
use app_model::Run;
use leptos::prelude::*;
use sim_core::metric::{Censorable, CensoredStat, Latency, Metric, Stat};
use sim_core::metrics::{ClassSummary, Cost, Summary};
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
    /// Disaggregation's transfers (all traffic only).
    pd: Option<sim_core::disagg::DisaggSummary>,
}

fn pick(s: &Summary, class: Option<&str>) -> Picked {
    match class.and_then(|name| s.classes.get(name)) {
        Some(c) => Picked { c: c.clone(), cost: None, pd: None },
        None => Picked { c: s.all.clone(), cost: Some(s.cost), pd: s.disaggregation },
    }
}

#[derive(Clone, Copy)]
struct LatencyRow {
    key: &'static str,
    label: &'static str,
    def: &'static str,
    latency: Latency,
    slo: fn(&Slo) -> Option<f64>,
    /// The censored view beneath: its label and definition.
    censored: Option<(&'static str, &'static str)>,
}

static ROWS: [LatencyRow; 4] = [
    LatencyRow {
        key: "ttft",
        label: "TTFT",
        def: defs::TTFT,
        latency: Latency::Ttft,
        slo: |s| s.ttft_ms,
        censored: Some(("metrics.ttft_all", defs::TTFT_CENSORED)),
    },
    LatencyRow {
        key: "tpot",
        label: "TPOT",
        def: defs::TPOT,
        latency: Latency::Tpot,
        slo: |s| s.tpot_ms,
        censored: None,
    },
    LatencyRow { key: "itl", label: "ITL", def: defs::ITL, latency: Latency::Itl, slo: |_| None, censored: None },
    LatencyRow {
        key: "e2e",
        label: "E2E",
        def: defs::E2E,
        latency: Latency::E2e,
        slo: |s| s.e2e_ms,
        censored: Some(("metrics.e2e_all", defs::E2E_CENSORED)),
    },
];

/// The statistics the table shows, in its columns.
const COLUMNS: [(&str, Stat); 4] = [("p50", Stat::P50), ("p95", Stat::P95), ("p99", Stat::P99), ("mean", Stat::Mean)];

/// A figure of the completed-only distribution or of the censored view: what it reads and
/// whether it is shown as a lower bound.
#[derive(Clone, Copy)]
enum Figure {
    Completed(Latency),
    Censored(Censorable),
}

impl Figure {
    /// The number, or `None` when nothing is counted yet.
    fn read(self, c: &ClassSummary, stat: Stat) -> Option<f64> {
        match self {
            Figure::Completed(l) => {
                let d = l.of(c);
                (d.count > 0).then(|| stat.of(d))
            }
            Figure::Censored(v) => {
                let d = v.of(c);
                (d.count > 0).then(|| CensoredStat::Stat(stat).of(d))
            }
        }
    }
    fn metric(self, stat: Stat) -> Metric {
        match self {
            Figure::Completed(l) => Metric::Latency(l, stat),
            Figure::Censored(v) => Metric::Censored(v, CensoredStat::Stat(stat)),
        }
    }
    fn text(self, c: &ClassSummary, stat: Stat) -> String {
        match (self.read(c, stat), self) {
            (None, _) => format::NONE.to_string(),
            (Some(v), Figure::Censored(x)) if x.of(c).censored > 0 => format!("≥ {}", format::ms(v)),
            (Some(v), _) => format::ms(v),
        }
    }
}

/// The numbers a panel shows for `run`: the summary part of the selected class (or all), and
/// that class's SLO (or the only class's).
#[derive(Clone, Copy)]
struct Shown {
    picked: Memo<Option<Picked>>,
    slo: Memo<Option<Slo>>,
    class_name: Memo<Option<String>>,
}

fn shown(run: Run) -> Shown {
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

    Shown { picked, slo, class_name }
}

/// Whether `row`'s SLO is missed at the tail by either view (answered-only or every arrival).
fn missed_at_p99(row: &LatencyRow, c: &ClassSummary, slo: Option<&Slo>) -> bool {
    let Some(l) = slo.and_then(|s| (row.slo)(s)) else { return false };
    let done = Figure::Completed(row.latency).read(c, Stat::P99);
    let all = Censorable::of_latency(row.latency).and_then(|v| Figure::Censored(v).read(c, Stat::P99));
    done.is_some_and(|v| v > l) || all.is_some_and(|v| v > l)
}

/// Metrics of `run`.
#[component]
pub fn MetricsPanel(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let info = ui.infos[run.index()];
    let Shown { picked, slo, class_name } = shown(run);
    // run A's numbers, for B's "vs A" marks (A/B mode, run B only)
    let against = Memo::new(move |_| {
        if run == Run::A || !ui.ab.get() {
            return None;
        }
        let name = class_name.get();
        ui.views[0].with(|v| v.as_ref().map(|v| pick(&v.summary, name.as_deref())))
    });
    let vs = move |metric: Metric, read: fn(&Picked, Metric) -> Option<f64>, key: String| {
        let change = Memo::new(move |_| {
            let b = picked.with(|p| p.as_ref().and_then(|p| read(p, metric)))?;
            let a = against.with(|p| p.as_ref().and_then(|p| read(p, metric)))?;
            Some(ab::compare(metric, a, b))
        });
        move || change.get().map(|c| vs_mark(&c, key.clone()))
    };
    let get =
        move |f: fn(&Picked) -> String| move || picked.with(|p| p.as_ref().map_or_else(|| format::NONE.to_string(), f));
    let limit_of = move |row: LatencyRow| slo.with(|s| s.as_ref().and_then(|s| (row.slo)(s)));
    // one cell of a figure: red (▲) when it misses the SLO
    let cell = move |row: LatencyRow, fig: Figure, key: String, stat: Stat| {
        let text =
            move || picked.with(|p| p.as_ref().map_or_else(|| format::NONE.to_string(), |p| fig.text(&p.c, stat)));
        let over = move || {
            let limit = limit_of(row);
            picked.with(|p| match (p, limit) {
                (Some(p), Some(l)) => fig.read(&p.c, stat).is_some_and(|v| v > l),
                _ => false,
            })
        };
        view! { <td class="num" class:over=over data-testid=key>{text}</td> }
    };
    let rows = ROWS
        .iter()
        .map(|row| {
            let row = *row;
            let slo_text = move || limit_of(row).map(|v| format!("SLO {}", format::ms(v))).unwrap_or_default();
            // the SLO is missed at the tail by either view
            let missed = move || {
                slo.with(|l| picked.with(|p| p.as_ref().is_some_and(|p| missed_at_p99(&row, &p.c, l.as_ref()))))
            };
            // how many the completed-only figures are over
            let over_text = move || {
                picked.with(|p| {
                    p.as_ref().map_or_else(String::new, |p| {
                        let n = format::int(row.latency.of(&p.c).count);
                        if row.latency == Latency::Itl {
                            tf("metrics.over_gaps", &[("n", n)])
                        } else {
                            tf("metrics.over_ended", &[("n", n), ("m", format::int(p.c.requests.ended()))])
                        }
                    })
                })
            };
            let done = COLUMNS
                .iter()
                .map(|&(name, stat)| cell(row, Figure::Completed(row.latency), format!("metric-{}-{name}", row.key), stat))
                .collect_view();
            let censored = Censorable::of_latency(row.latency).zip(row.censored).map(|(v, (label, def))| {
                let counted = move || {
                    picked.with(|p| {
                        p.as_ref().map_or_else(String::new, |p| {
                            let d = v.of(&p.c);
                            tf("metrics.over_all", &[("m", format::int(d.count)), ("k", format::int(d.censored))])
                        })
                    })
                };
                let cells = COLUMNS
                    .iter()
                    .map(|&(name, stat)| cell(row, Figure::Censored(v), format!("metric-{}-censored-{name}", row.key), stat))
                    .collect_view();
                view! {
                    <tr class="censored">
                        <th scope="row">
                            <Term label=label def=def/>
                            <span class="over-tag" data-testid=format!("metric-{}-censored-over", row.key)>{counted}</span>
                        </th>
                        {cells}
                        {move || against.with(|a| a.is_some()).then(|| {
                            let m = Figure::Censored(v).metric(Stat::P99);
                            view! { <td class="num vs-col">{vs(m, read_figure, format!("vs-{}-censored-p99", row.key))}</td> }
                        })}
                    </tr>
                }
            });
            let vs_done = move || {
                against.with(|a| a.is_some()).then(|| {
                    let m = Figure::Completed(row.latency).metric(Stat::P99);
                    view! { <td class="num vs-col">{vs(m, read_figure, format!("vs-{}-p99", row.key))}</td> }
                })
            };
            view! {
                <tr>
                    <th scope="row">
                        <Term label=row.label def=row.def/>
                        <span class="slo-tag" class:missed=missed data-testid=format!("metric-{}-slo", row.key)>{slo_text}</span>
                        <span class="over-tag" data-testid=format!("metric-{}-over", row.key)>{over_text}</span>
                    </th>
                    {done}
                    {vs_done}
                </tr>
                {censored}
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
                // with Definitions on, the columns' definitions stand above the table (in their
                // narrow header cells they would widen the table past the panel)
                <caption class="defs-caption small">
                    <span>{tx(defs::P50)}</span>" "<span>{tx(defs::P95)}</span>" "
                    <span>{tx(defs::P99)}</span>" "<span>{tx(defs::MEAN)}</span>
                </caption>
                <thead>
                    <tr>
                        <th scope="col"><span class="muted small">{tx("metrics.latency")}</span></th>
                        <th scope="col"><Term label="p50" def=defs::P50/></th>
                        <th scope="col"><Term label="p95" def=defs::P95/></th>
                        <th scope="col"><Term label="p99" def=defs::P99/></th>
                        <th scope="col" class="mean-head"><Term label="metrics.mean" def=defs::MEAN/></th>
                        {move || against.with(|a| a.is_some()).then(|| view! {
                            <th scope="col" class="vs-col" data-testid="vs-head"><span class="small">{tx("ui.ab.vs_a")}</span></th>
                        })}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint small">{tx("metrics.hint")}</p>

            <div class="tput">
                <div class="kv">
                    <Term label="metrics.throughput" def=defs::THROUGHPUT/>
                    <span class="big" data-testid="metric-throughput">{get(|p| format!("{} tok/s", format::rate(p.c.throughput.output_tokens_per_s)))}</span>
                    {vs(Metric::ThroughputTokens, read_metric, "vs-throughput".to_string())}
                    <span class="muted small" data-testid="metric-throughput-req">{get(|p| format!("{} req/s", format::rate(p.c.throughput.requests_per_s)))}</span>
                </div>
                <div class="kv">
                    <Term label="metrics.goodput" def=defs::GOODPUT/>
                    <span class="big good" data-testid="metric-goodput">{get(|p| format!("{} tok/s", format::rate(p.c.goodput.output_tokens_per_s)))}</span>
                    {vs(Metric::GoodputTokens, read_metric, "vs-goodput".to_string())}
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
                    {vs(Metric::SloAttainment, read_metric, "vs-slo-attainment".to_string())}
                </div>
            </div>
            {move || picked.with(|p| p.as_ref().and_then(|p| p.c.prefix_cache)).map(|pc| view! {
                <p class="small prefix-cache" data-testid="metric-prefix-cache">
                    <Term label="metrics.prefix_cache" def=defs::PREFIX_CACHE/>": "
                    {tf("metrics.prefix_cache_value", &[
                        ("rate", format::pct(pc.hit_rate)),
                        ("tokens", format::int(pc.cached_tokens)),
                        ("evicted", format::int(pc.evicted_blocks)),
                    ])}
                </p>
            })}

            {move || picked.with(|p| p.as_ref().and_then(|p| p.pd)).map(|d| view! {
                <p class="small kv-transfer" data-testid="metric-kv-transfer">
                    <Term label="metrics.kv_transfer" def=defs::KV_TRANSFER/>": "
                    {tf("metrics.kv_transfer_value", &[
                        ("mean", format::ms(d.kv_transfer_ms.mean)),
                        ("p99", format::ms(d.kv_transfer_ms.p99)),
                        ("n", format::int(d.transfers)),
                        ("wait", format::ms(d.link_wait_ms.mean)),
                    ])}
                </p>
            })}

            <div class="cost" class:hidden=move || !has_cost()>
                <div class="kv">
                    <Term label="metrics.cost_output" def=defs::COST_OUTPUT/>
                    <span class="big" data-testid="metric-cost-output">{get(|p| p.cost.map_or_else(|| format::NONE.to_string(), |c| format::usd(c.usd_per_million_output_tokens)))}</span>
                    {vs(Metric::UsdPerMillionOutputTokens, read_metric, "vs-cost-output".to_string())}
                </div>
                <div class="kv">
                    <Term label="metrics.cost_good" def=defs::COST_GOOD/>
                    <span class="big" data-testid="metric-cost-good">{get(|p| p.cost.map_or_else(|| format::NONE.to_string(), |c| format::usd(c.usd_per_million_good_tokens)))}</span>
                    {vs(Metric::UsdPerMillionGoodTokens, read_metric, "vs-cost-good".to_string())}
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

fn read_figure(p: &Picked, m: Metric) -> Option<f64> {
    let fig = match m {
        Metric::Latency(l, _) => Figure::Completed(l),
        Metric::Censored(v, _) => Figure::Censored(v),
        _ => return None,
    };
    fig.read(&p.c, Stat::P99)
}

fn read_metric(p: &Picked, m: Metric) -> Option<f64> {
    match m {
        Metric::UsdPerMillionOutputTokens => p.cost.map(|c| c.usd_per_million_output_tokens),
        Metric::UsdPerMillionGoodTokens => p.cost.map(|c| c.usd_per_million_good_tokens),
        // attainment is a share of ended requests: nothing ended, nothing to compare
        Metric::SloAttainment if p.c.requests.ended() == 0 => None,
        m => m.of_class(&p.c),
    }
}

/// B against A: an arrow drawn as a shape (no font needed), coloured by better or worse, the
/// relative move, and the words for a screen reader.
fn vs_mark(c: &ab::Change, key: String) -> impl IntoView {
    let arrow = match c.arrow {
        Arrow::Up => "up",
        Arrow::Down => "down",
        Arrow::Same => "same",
    };
    let (verdict, words) = match c.verdict {
        Verdict::Better => ("better", "ui.ab.better"),
        Verdict::Worse => ("worse", "ui.ab.worse"),
        Verdict::Neutral => ("neutral", if c.arrow == Arrow::Same { "ui.ab.same" } else { "ui.ab.moved" }),
    };
    view! {
        <span class="vs" data-testid=key data-arrow=arrow data-verdict=verdict title=t(words)>
            <svg viewBox="0 0 10 10" aria-hidden="true">
                <path d=if c.arrow == Arrow::Same { "M1 3h8v1.6H1zM1 5.4h8V7H1z" } else { "M5 0.5 9.5 5.5H6.4V9.5H3.6V5.5H0.5z" }/>
            </svg>
            <span>{ab::relative_text(c)}</span>
            <span class="sr-only">{t(words)}</span>
        </span>
    }
}

/// The key numbers above the stage in an embedded lab (`embed=1`), where the whole panel would
/// not fit beside it: p99 TTFT and p99 TPOT (red when the SLO is missed, by either view, as in
/// the panel), with how many they are over or the every-arrival lower bound; goodput beside the
/// raw throughput; the KV pool in use. The panel itself follows further down. In A/B each run
/// has its own, tagged with the run's letter, above its stage.
#[component]
pub fn KeyNumbers(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let info = ui.infos[run.index()];
    let Shown { picked, slo, .. } = shown(run);
    let latency = move |row: &'static LatencyRow, label: &'static str| {
        let value = move || {
            picked.with(|p| {
                p.as_ref()
                    .map_or_else(|| format::NONE.to_string(), |p| Figure::Completed(row.latency).text(&p.c, Stat::P99))
            })
        };
        let missed =
            move || slo.with(|l| picked.with(|p| p.as_ref().is_some_and(|p| missed_at_p99(row, &p.c, l.as_ref()))));
        // the every-arrival lower bound when some are still unanswered, else what it is over
        let sub = move || {
            picked.with(|p| {
                let Some(p) = p.as_ref() else { return String::new() };
                match Censorable::of_latency(row.latency).filter(|v| v.of(&p.c).censored > 0) {
                    Some(v) => tf("metrics.key_all", &[("v", Figure::Censored(v).text(&p.c, Stat::P99))]),
                    None => tf(
                        "metrics.key_over",
                        &[("n", format::int(row.latency.of(&p.c).count)), ("m", format::int(p.c.requests.ended()))],
                    ),
                }
            })
        };
        let slo_text = move || {
            slo.with(|s| s.as_ref().and_then(|s| (row.slo)(s)))
                .map(|v| format!("SLO {}", format::ms(v)))
                .unwrap_or_default()
        };
        view! {
            <div class="key" class:over=missed data-testid=format!("key-{}", row.key)>
                <span class="key-label"><Term label=label def=row.def/>" "<span class="key-slo">{slo_text}</span></span>
                <span class="key-value">{value}</span>
                <span class="key-sub" data-testid=format!("key-{}-sub", row.key)>{sub}</span>
            </div>
        }
    };
    let goodput = move || {
        picked.with(|p| {
            p.as_ref().map_or_else(
                || format::NONE.to_string(),
                |p| format!("{} tok/s", format::rate(p.c.goodput.output_tokens_per_s)),
            )
        })
    };
    let throughput = move || {
        picked.with(|p| {
            p.as_ref().map_or_else(String::new, |p| {
                tf("metrics.key_of_throughput", &[("x", format::rate(p.c.throughput.output_tokens_per_s))])
            })
        })
    };
    let kv = move || {
        view_sig.with(|v| v.as_ref().map_or_else(|| format::NONE.to_string(), |v| format::pct(v.hbm.kv_pool_share())))
    };
    let pool = move || {
        info.with(|i| {
            i.as_ref().map_or_else(String::new, |i| {
                tf("metrics.key_pool", &[("size", format::gib(i.plan.kv_capacity_bytes))])
            })
        })
    };
    view! {
        <section class="key-numbers" data-testid=format!("key-numbers-{}", run.slug()) aria-label=tx("metrics.key_aria")>
            <Show when=move || ui.ab.get()>
                <span class="key-run">{run.label()}</span>
            </Show>
            {latency(&ROWS[0], "metrics.key_ttft")}
            {latency(&ROWS[1], "metrics.key_tpot")}
            <div class="key" data-testid="key-goodput">
                <span class="key-label"><Term label="metrics.goodput" def=defs::GOODPUT/></span>
                <span class="key-value good">{goodput}</span>
                <span class="key-sub">{throughput}</span>
            </div>
            <div class="key" data-testid="key-kv">
                <span class="key-label"><Term label="metrics.key_kv" def=defs::KV_USED/></span>
                <span class="key-value">{kv}</span>
                <span class="key-sub">{pool}</span>
            </div>
        </section>
    }
}
