//! The HBM gauge: one stacked bar of the replica's GPU memory —
//! weights | activations | KV in use | KV reserved but empty | KV free | CUDA context, graphs and
//! other processes | headroom —
//! with the utilisation watermark, and the KV-per-token formula filled in with the model's numbers
//! next to the article's simplified one. The segments, their shares and the formula's words are
//! `app_model::panels::hbm`'s.

use app_model::panels::hbm::{self as model, Formula, Gauge, SEGMENTS};
use app_model::Run;
use leptos::prelude::*;
use sim_core::{ModelSpec, Scenario};

use crate::defs::{self, say, Term};
use crate::engine::RunInfo;
use crate::i18n::{t, tx, PAGE};
use crate::ui::use_ui;

/// Memory of `run`.
#[component]
pub fn HbmGauge(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let info = ui.infos[run.index()];
    // The most KV held at once so far: after a run ends (or a fast-forward) the pool is empty
    // again, and the mark still shows how full it got.
    let peak = Memo::new(move |_| view_sig.with(|v| v.as_ref().map(|v| v.summary.memory.kv_peak_bytes)));
    let gauge = Memo::new(move |_| {
        view_sig.with(|v| v.as_ref().map_or_else(Gauge::empty, |v| Gauge::new(&v.hbm, v.summary.memory.kv_peak_bytes)))
    });
    let g = move |f: fn(&Gauge) -> String| move || gauge.with(f);

    let bars = SEGMENTS
        .iter()
        .enumerate()
        .map(|(i, seg)| {
            let width = move || gauge.with(|g| g.widths[i].clone());
            let title = move || gauge.with(|g| g.title(PAGE, i));
            view! { <div class=format!("seg seg-{}", seg.key) style:width=width title=title></div> }
        })
        .collect_view();

    let legend = SEGMENTS
        .iter()
        .enumerate()
        .map(|(i, seg)| {
            let hidden = move || !info.with(|i| seg.listed(i.as_ref().map(|i| &i.scenario)));
            view! {
                <li class:hidden=hidden>
                    <span class=format!("swatch seg-{}", seg.key) aria-hidden="true"></span>
                    <Term label=seg.label def=seg.def/>
                    " "
                    <b data-testid=format!("hbm-{}", seg.key)>{move || gauge.with(|g| g.sizes[i].clone())}</b>
                </li>
            }
        })
        .collect_view();

    let watermark_label =
        move || info.with(|i| i.as_ref().map(|i| say(&model::watermark(&i.scenario))).unwrap_or_default());
    let peak_label = move || peak.get().map(|p| say(&model::peak(p))).unwrap_or_default();
    let info_text = move |f: fn(&RunInfo) -> String| move || info.with(|i| i.as_ref().map(f).unwrap_or_default());
    // In A/B mode B's formula is shown only when it differs from A's (another model or KV dtype).
    let show_formula =
        move || run == Run::A || ui.infos[0].with(|a| info.with(|b| model::b_formula_differs(parts(a), parts(b))));
    // the split in words, for screen readers
    let gauge_label = move || gauge.with(|g| g.aria(PAGE));

    view! {
        <section class="panel hbm" data-testid=if run == Run::A { "hbm-gauge" } else { "hbm-gauge-b" }>
            <header class="panel-head">
                <h2><Term label="hbm.title" def=defs::HBM/></h2>
                <span class="muted small" data-testid="hbm-capacity">
                    {info_text(|i| say(&model::capacity(&i.plan, &i.scenario, &i.gpu)))}
                </span>
            </header>
            <div class="gauge" role="img" aria-label=gauge_label>
                {bars}
                <div class="watermark" class:low=move || gauge.with(|g| g.low_watermark) style:left=g(|g| g.watermark.clone())>
                    <span>{watermark_label}</span>
                </div>
                <div
                    class="peak-mark"
                    class:hidden=move || gauge.with(|g| g.peak.is_none())
                    class:late=move || gauge.with(|g| g.peak_late)
                    style:left=g(|g| g.peak.clone().unwrap_or_else(|| "0%".into()))
                    title=peak_label
                    data-testid="hbm-peak"
                >
                    <span>{peak_label}</span>
                </div>
            </div>
            <ul class="legend hbm-legend">{legend}</ul>
            <p class="small muted">
                {info_text(|i| say(&model::pool(&i.plan)))}
                <span class="warn" class:hidden=move || !gauge.with(|g| g.over)>{tx("hbm.over")}</span>
            </p>
            {move || show_formula().then(|| view! { <KvFormula info=info/> })}
        </section>
    }
}

fn parts(i: &Option<RunInfo>) -> Option<(&ModelSpec, &Scenario)> {
    i.as_ref().map(|i| (&i.model, &i.scenario))
}

/// The KV-cache-per-token formula with the current model's numbers, and the article's.
#[component]
fn KvFormula(info: RwSignal<Option<RunInfo>>) -> impl IntoView {
    let body = move || {
        info.with(|i| {
            let i = i.as_ref()?;
            let f = Formula::new(&i.model, &i.scenario, &i.plan);
            Some(view! {
                <div class="formula-row">
                    <span class="formula-name">{t("hbm.this_lab")}</span>
                    <code data-testid="kv-formula-lab">{say(&f.lab)}<b>{f.lab_bytes} " B"</b>{say(&f.lab_size)}</code>
                </div>
                <div class="formula-row">
                    <span class="formula-name">{t("hbm.article")}</span>
                    <code data-testid="kv-formula-article">
                        {say(&f.article)}<b>{say(&f.article_values)}</b>{t("hbm.formula_article_per_token")}
                    </code>
                </div>
                <p class="small">{say(&f.why)}</p>
                {f.grows.iter().map(|g| view! { <p class="small" data-testid="kv-grows">{say(g)}</p> }).collect::<Vec<_>>()}
                {f.stored.as_ref().map(|s| view! { <p class="small muted">{say(s)}</p> })}
            })
        })
    };
    view! {
        <div class="formula" data-testid="kv-formula">
            <h3>{tx("hbm.kv_per_token")}</h3>
            {body}
        </div>
    }
}
