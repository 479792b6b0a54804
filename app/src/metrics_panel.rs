//! The live metrics panel and the embedded page's key numbers: the elements of
//! `app_model::panels::metrics::Panel` (its lines, cells, figures and counts, built from the
//! run's summary at the calm tick), with their definitions and B's marks against run A.

use app_model::ab::{self, Arrow, Change};
use app_model::panels::metrics::{
    Panel, COLUMNS, COST_GOOD, COST_OUTPUT, COUNTS, FIGURES, GOODPUT_VALUE_ID, KEY_LINES, LINES,
};
use app_model::panels::sections;
use app_model::Run;
use leptos::prelude::*;
use sim_core::Summary;

use crate::defs::{self, say, Term};
use crate::i18n::{t, tf, tx, PAGE};
use crate::ui::use_ui;
use app_model::format;
use lab_canvas::glyph;

/// The panel's numbers for `run` (`Panel::of_run`): the selected class's (or all), run A's
/// beside B in A/B mode.
fn panel(run: Run) -> Memo<Panel> {
    let ui = use_ui();
    let i = run.index();
    Memo::new(move |_| {
        let class = ui.class_view.get();
        let against = run == Run::B && ui.ab.get();
        let a = move |f: &dyn Fn(Option<&Summary>) -> Panel| match against {
            true => ui.views[0].with(|a| f(a.as_ref().map(|a| &a.summary))),
            false => f(None),
        };
        ui.infos[i].with(|info| {
            let info = info.as_ref().map(|i| (&i.scenario, i.class_names.as_slice()));
            ui.views[i].with(|v| a(&|a| Panel::of_run(info, class, v.as_ref().map(|v| &v.summary), a)))
        })
    })
}

/// Metrics of `run`.
#[component]
pub fn MetricsPanel(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let info = ui.infos[run.index()];
    let p = panel(run);
    let ab_on = move || p.with(|p| p.against_a);
    let rows = LINES
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let cells = COLUMNS
                .iter()
                .enumerate()
                .map(|(j, col)| {
                    let text = move || p.with(|p| p.lines[i].cells[j].text.clone());
                    let over = move || p.with(|p| p.lines[i].cells[j].over);
                    view! { <td class="num" class:over=over class:mean={col.0 == "mean"} data-testid=spec.id(col.0)>{text}</td> }
                })
                .collect_view();
            let counted = move || p.with(|p| p.lines[i].counted.as_ref().map(say).unwrap_or_default());
            let vs_cell = move || {
                ab_on().then(|| {
                    let change = move || p.with(|p| p.lines[i].vs).map(|c| vs_mark(&c, spec.vs_id()));
                    view! { <td class="num vs-col">{change}</td> }
                })
            };
            // the every-arrival views have no SLO of their own
            let slo = (!spec.every_arrival()).then(|| {
                view! {
                    <span class="slo-tag" class:missed=move || p.with(|p| p.lines[i].missed) data-testid=spec.id("slo")>
                        {move || p.with(|p| p.lines[i].slo.clone())}
                    </span>
                }
            });
            let head = view! {
                <th scope="row">
                    <Term label=spec.label def=spec.def/>
                    {slo}
                    <span class="over-tag" data-testid=spec.id("over")>{counted}</span>
                </th>
            };
            view! { <tr class:censored=spec.every_arrival()>{head}{cells}{vs_cell}</tr> }
        })
        .collect_view();

    let figure = move |i: usize, class: &'static str| {
        let (key, _, label, def) = FIGURES[i];
        let sub = (i < 2).then(|| {
            view! { <span class="muted small" data-testid=format!("metric-{key}-req")>{move || p.with(|p| p.figures[i].sub.clone())}</span> }
        });
        view! {
            <div class="kv">
                <Term label=label def=def/>
                <span class=class data-testid=format!("metric-{key}")>{move || p.with(|p| p.figures[i].text.clone())}</span>
                {move || p.with(|p| p.figures[i].vs).map(|c| vs_mark(&c, format!("vs-{key}")))}
                {sub}
            </div>
        }
    };
    let share = move || p.with(|p| p.goodput_share);
    let has_cost = move || p.with(|p| p.has_cost);
    let counts = COUNTS
        .iter()
        .enumerate()
        .map(|(i, &(key, label, def, _))| {
            view! {
                <div class="count">
                    <dt><Term label=label def=def/></dt>
                    <dd data-testid=format!("count-{key}")>{move || p.with(|p| p.counts[i].clone())}</dd>
                </div>
            }
        })
        .collect_view();

    let class_tabs = move || {
        let names = info.with(|i| i.as_ref().map(|i| i.class_names.clone()).unwrap_or_default());
        (names.len() > 1).then(|| {
            let tab = move |i: Option<usize>, id: String, content: AnyView| {
                let on = Signal::derive(move || ui.class_view.get() == i);
                crate::kit::pressed_tab(on, id, content, Callback::new(move |()| ui.class_view.set(i)))
            };
            let tabs = names
                .into_iter()
                .enumerate()
                .map(|(i, name)| {
                    let content =
                        view! { {crate::icon::class_glyph(i)}<span class="sr-only">{tx(glyph::shape_name(i))}" "</span>{name} };
                    tab(Some(i), format!("class-tab-{i}"), content.into_any())
                })
                .collect_view();
            view! {
                <div class="tabs" role="group" aria-label=tx("metrics.for")>
                    {tab(None, "class-tab-all".into(), tx("metrics.all_classes").into_any())}
                    {tabs}
                </div>
            }
        })
    };

    let title = move || sections::run_heading(PAGE, "metrics.title", "metrics.run", run, ui.ab.get());
    let when = move || view_sig.with(|v| sections::metrics_when(PAGE, v.as_ref()));
    let column_heads = COLUMNS
        .iter()
        .map(|&(key, _, label, def)| view! { <th scope="col" class:mean-head=key == "mean"><Term label=label def=def/></th> })
        .collect_view();

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
                        {column_heads}
                        {move || ab_on().then(|| view! {
                            <th scope="col" class="vs-col" data-testid="vs-head"><span class="small">{tx("ui.ab.vs_a")}</span></th>
                        })}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint small">{tx("metrics.hint")}</p>

            <div class="tput">
                {figure(0, "big")}
                {figure(1, "big good")}
                <div class="bar-pair" role="img" aria-label=move || tf("metrics.share_bar", &[("pct", format::pct(share()))])>
                    <div class="bar-good" style:width=move || format!("{:.1}%", share() * 100.0)></div>
                </div>
                {figure(2, "big")}
            </div>
            {move || p.with(|p| p.prefix_cache.as_ref().map(say)).map(|text| view! {
                <p class="small prefix-cache" data-testid="metric-prefix-cache">
                    <Term label="metrics.prefix_cache" def=defs::PREFIX_CACHE/>": "{text}
                </p>
            })}
            {move || p.with(|p| p.kv_transfer.as_ref().map(say)).map(|text| view! {
                <p class="small kv-transfer" data-testid="metric-kv-transfer">
                    <Term label="metrics.kv_transfer" def=defs::KV_TRANSFER/>": "{text}
                </p>
            })}

            <div class="cost" class:hidden=move || !has_cost()>
                {figure(COST_OUTPUT, "big")}
                {figure(COST_GOOD, "big")}
            </div>
            <p class="hint small" class:hidden=has_cost>{tx("metrics.cost_hint")}</p>

            <dl class="counts">{counts}</dl>
        </section>
    }
}

/// B against A: an arrow drawn as a shape (no font needed), coloured by better or worse, the
/// relative move, and the words for a screen reader.
fn vs_mark(c: &Change, key: String) -> impl IntoView {
    let (arrow, verdict, words) = c.mark();
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
    let p = panel(run);
    let latency = move |k: usize, line: usize, label: &'static str| {
        let spec = &LINES[line];
        view! {
            <div class="key" class:over=move || p.with(|p| p.keys[k].missed) data-testid=format!("key-{}", spec.key)>
                <span class="key-label">
                    <Term label=label def=spec.def/>" "<span class="key-slo">{move || p.with(|p| p.keys[k].slo.clone())}</span>
                </span>
                <span class="key-value" data-testid=spec.key_value_id()>{move || p.with(|p| p.keys[k].value.clone())}</span>
                <span class="key-sub" data-testid=format!("key-{}-sub", spec.key)>
                    {move || p.with(|p| p.keys[k].sub.as_ref().map(say).unwrap_or_default())}
                </span>
            </div>
        }
    };
    let kv = Memo::new(move |_| view_sig.with(|v| info.with(|i| sections::kv_key(PAGE, v.as_ref(), i.as_ref()))));
    view! {
        <section class="key-numbers" data-testid=format!("key-numbers-{}", run.slug()) aria-label=tx("metrics.key_aria")>
            <Show when=move || ui.ab.get()>
                <span class="key-run">{run.label()}</span>
            </Show>
            {latency(0, KEY_LINES[0], "metrics.key_ttft")}
            {latency(1, KEY_LINES[1], "metrics.key_tpot")}
            <div class="key" data-testid="key-goodput">
                <span class="key-label"><Term label="metrics.goodput" def=defs::GOODPUT/></span>
                <span class="key-value good" data-testid=GOODPUT_VALUE_ID>{move || p.with(|p| p.key_goodput.clone())}</span>
                <span class="key-sub">{move || p.with(|p| p.key_throughput.as_ref().map(say).unwrap_or_default())}</span>
            </div>
            <div class="key key-kv" data-testid="key-kv">
                <span class="key-label"><Term label="metrics.key_kv" def=defs::KV_USED/></span>
                <span class="key-value">{move || kv.with(|k| k.0.clone())}</span>
                <span class="key-sub">{move || kv.with(|k| k.1.clone())}</span>
            </div>
        </section>
    }
}
