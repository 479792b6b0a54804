//! The HBM gauge: one stacked bar of the replica's GPU memory —
//! weights | activations | KV in use | KV reserved but empty | KV free | CUDA context, graphs and
//! other processes | headroom —
//! with the utilisation watermark, and the KV-per-token formula filled in with the model's numbers
//! next to the article's simplified one.

use app_model::Run;
use leptos::prelude::*;
use sim_core::catalog::AttentionForm;

use crate::defs::{self, Term};
use crate::engine::RunInfo;
use crate::format;
use crate::i18n::{t, tf, tx};
use crate::ui::use_ui;

struct Segment {
    key: &'static str,
    label: &'static str,
    def: &'static str,
    value: fn(&sim_core::sim::HbmUse) -> f64,
}

static SEGMENTS: [Segment; 8] = [
    Segment { key: "weights", label: "hbm.weights", def: defs::WEIGHTS, value: |h| h.weights },
    Segment { key: "activations", label: "hbm.activations", def: defs::ACTIVATIONS, value: |h| h.activations },
    Segment { key: "kv-used", label: "hbm.kv_used", def: defs::KV_USED, value: |h| h.kv_used },
    Segment { key: "kv-waste", label: "hbm.kv_waste", def: defs::KV_WASTE, value: |h| h.kv_waste },
    Segment { key: "kv-cached", label: "hbm.kv_cached", def: defs::KV_CACHED, value: |h| h.kv_cached },
    Segment { key: "kv-free", label: "hbm.kv_free", def: defs::KV_FREE, value: |h| h.kv_free },
    Segment { key: "outside", label: "hbm.outside", def: defs::OUTSIDE, value: |h| h.outside_budget },
    Segment { key: "headroom", label: "hbm.headroom", def: defs::HEADROOM, value: |h| h.headroom },
];

/// Memory of `run`.
#[component]
pub fn HbmGauge(run: Run) -> impl IntoView {
    let ui = use_ui();
    let view_sig = ui.views[run.index()];
    let info = ui.infos[run.index()];
    let hbm = Memo::new(move |_| view_sig.with(|v| v.as_ref().map(|v| v.hbm)));
    // The most KV held at once so far: after a run ends (or a fast-forward) the pool is empty
    // again, and the mark still shows how full it got.
    let peak = Memo::new(move |_| view_sig.with(|v| v.as_ref().map(|v| v.summary.memory.kv_peak_bytes)));

    let bars = SEGMENTS
        .iter()
        .map(|seg| {
            let width = move || {
                hbm.with(|h| {
                    h.as_ref().map_or("0%".to_string(), |h| {
                        let v = (seg.value)(h).max(0.0);
                        format!("{:.3}%", if h.capacity > 0.0 { v / h.capacity * 100.0 } else { 0.0 })
                    })
                })
            };
            let title = move || {
                hbm.with(|h| {
                    h.as_ref().map(|h| format!("{}: {}", t(seg.label), format::gib((seg.value)(h)))).unwrap_or_default()
                })
            };
            view! { <div class=format!("seg seg-{}", seg.key) style:width=width title=title></div> }
        })
        .collect_view();

    let legend = SEGMENTS
        .iter()
        .map(|seg| {
            let value = move || {
                hbm.with(|h| h.as_ref().map(|h| format::gib((seg.value)(h))).unwrap_or_else(|| format::NONE.into()))
            };
            // the cached prefixes' entry only where prefix caching is on
            let hidden = move || {
                seg.key == "kv-cached" && !info.with(|i| i.as_ref().is_some_and(|i| i.scenario.caches_prefixes()))
            };
            view! {
                <li class:hidden=hidden>
                    <span class=format!("swatch seg-{}", seg.key) aria-hidden="true"></span>
                    <Term label=seg.label def=seg.def/>
                    " "
                    <b data-testid=format!("hbm-{}", seg.key)>{value}</b>
                </li>
            }
        })
        .collect_view();

    let watermark = move || {
        hbm.with(|h| {
            h.as_ref().map_or("90%".to_string(), |h| {
                format!("{:.2}%", if h.capacity > 0.0 { h.utilization_limit / h.capacity * 100.0 } else { 100.0 })
            })
        })
    };
    let low_mark =
        move || hbm.with(|h| h.as_ref().is_some_and(|h| h.capacity > 0.0 && h.utilization_limit / h.capacity < 0.35));
    let watermark_label = move || {
        info.with(|i| {
            i.as_ref()
                .map(|i| tf("hbm.limit", &[("pct", format!("{:.0}", i.scenario.gpu_memory_utilization * 100.0))]))
                .unwrap_or_default()
        })
    };
    let peak_left = move || {
        hbm.with(|h| {
            let (Some(h), Some(p)) = (h.as_ref(), peak.get()) else { return "0%".to_string() };
            let at = if h.capacity > 0.0 { (h.weights + h.activations + p) / h.capacity * 100.0 } else { 0.0 };
            format!("{:.2}%", at.clamp(0.0, 100.0))
        })
    };
    let peak_label = move || peak.get().map(|p| tf("hbm.peak", &[("size", format::gib(p))])).unwrap_or_default();
    let no_peak = move || peak.get().is_none_or(|p| p <= 0.0);
    // near the right end the label goes to the line's left, so it is not cut off
    let peak_late = move || {
        hbm.with(|h| {
            h.as_ref()
                .zip(peak.get())
                .is_some_and(|(h, p)| h.capacity > 0.0 && (h.weights + h.activations + p) / h.capacity > 0.7)
        })
    };
    let capacity = move || {
        info.with(|i| {
            i.as_ref()
                .map(|i| {
                    let gpu = if i.gpu.name.is_empty() { i.gpu.id.clone() } else { i.gpu.name.clone() };
                    tf(
                        "hbm.capacity",
                        &[
                            ("size", format::gib(i.plan.capacity_bytes)),
                            ("n", i.scenario.num_gpus.to_string()),
                            ("gpu", gpu),
                        ],
                    )
                })
                .unwrap_or_default()
        })
    };
    // In A/B mode B's formula is shown only when it differs from A's (another model or KV dtype).
    let show_formula = move || {
        run == Run::A
            || ui.infos[0].with(|a| {
                info.with(|b| match (a, b) {
                    (Some(a), Some(b)) => a.model != b.model || a.scenario.kv_dtype() != b.scenario.kv_dtype(),
                    _ => true,
                })
            })
    };
    let over = move || hbm.with(|h| h.as_ref().is_some_and(|h| h.headroom < -1.0));
    // the split in words, for screen readers
    let gauge_label = move || {
        let parts = hbm.with(|h| {
            h.as_ref().map(|h| {
                SEGMENTS
                    .iter()
                    .map(|seg| format!("{} {}", t(seg.label), format::gib((seg.value)(h))))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
        });
        match parts {
            Some(p) => format!("{}: {p}", t("hbm.aria")),
            None => t("hbm.aria"),
        }
    };
    let pool = move || {
        info.with(|i| {
            i.as_ref()
                .map(|i| {
                    tf(
                        "hbm.pool",
                        &[
                            ("size", format::gib(i.plan.kv_capacity_bytes)),
                            ("tokens", format::int(i.plan.kv_capacity_tokens)),
                        ],
                    )
                })
                .unwrap_or_default()
        })
    };

    view! {
        <section class="panel hbm" data-testid=if run == Run::A { "hbm-gauge" } else { "hbm-gauge-b" }>
            <header class="panel-head">
                <h2><Term label="hbm.title" def=defs::HBM/></h2>
                <span class="muted small" data-testid="hbm-capacity">{capacity}</span>
            </header>
            <div class="gauge" role="img" aria-label=gauge_label>
                {bars}
                <div class="watermark" class:low=low_mark style:left=watermark>
                    <span>{watermark_label}</span>
                </div>
                <div class="peak-mark" class:hidden=no_peak class:late=peak_late style:left=peak_left title=peak_label data-testid="hbm-peak">
                    <span>{peak_label}</span>
                </div>
            </div>
            <ul class="legend hbm-legend">{legend}</ul>
            <p class="small muted">{pool}<span class="warn" class:hidden=move || !over()>{tx("hbm.over")}</span></p>
            {move || show_formula().then(|| view! { <KvFormula info=info/> })}
        </section>
    }
}

/// The KV-cache-per-token formula with the current model's numbers, and the article's.
#[component]
fn KvFormula(info: RwSignal<Option<RunInfo>>) -> impl IntoView {
    let body = move || {
        info.with(|i| {
            let i = i.as_ref()?;
            let m = &i.model;
            let kv = i.scenario.kv_dtype();
            let bytes = kv.bytes();
            let name = if m.name.is_empty() { m.id.clone() } else { m.name.clone() };
            let f = &i.plan.kv;
            let attn_layers = f.full_layers + f.window_layers;
            // the pool counts one token per layer group: a token inside every window is one
            // token of each group
            let g = &i.plan.pool_growth;
            let stored = i.plan.kv_bytes_per_token * (g.full_groups + g.window_groups) as f64;
            let replicated = (stored - i.kv_bytes_formula).abs() > 0.5;
            let why = if f.form == AttentionForm::Mla {
                tf(
                    "hbm.why_mla",
                    &[
                        ("model", name.clone()),
                        ("rank", f.kv_lora_rank.to_string()),
                        ("rope", f.qk_rope_head_dim.to_string()),
                        ("heads", m.num_attention_heads.to_string()),
                        ("hidden", format::int(u64::from(m.hidden_size))),
                        ("bytes", format::plain(bytes)),
                        ("dtype", kv.name().to_string()),
                    ],
                )
            } else if f.form == AttentionForm::Gqa {
                tf(
                    "hbm.why_gqa",
                    &[
                        ("hidden", format::int(u64::from(m.hidden_size))),
                        ("heads", m.num_attention_heads.to_string()),
                        ("model", name.clone()),
                        ("kv_heads", m.num_kv_heads.to_string()),
                        ("head_dim", m.head_dim.to_string()),
                        ("bytes", format::plain(bytes)),
                        ("dtype", kv.name().to_string()),
                    ],
                )
            } else {
                tf(
                    "hbm.why_mha",
                    &[("model", name.clone()), ("bytes", format::plain(bytes)), ("dtype", kv.name().to_string())],
                )
            };
            let lab = if f.form == AttentionForm::Mla {
                tf(
                    "hbm.formula_mla",
                    &[
                        ("layers", attn_layers.to_string()),
                        ("rank", f.kv_lora_rank.to_string()),
                        ("rope", f.qk_rope_head_dim.to_string()),
                        ("bytes", format::plain(bytes)),
                        ("dtype", kv.name().to_string()),
                    ],
                )
            } else {
                tf(
                    "hbm.formula_lab",
                    &[
                        ("layers", attn_layers.to_string()),
                        ("kv_heads", m.num_kv_heads.to_string()),
                        ("head_dim", m.head_dim.to_string()),
                        ("bytes", format::plain(bytes)),
                        ("dtype", kv.name().to_string()),
                    ],
                )
            };
            // for which layers "KV grows per token" holds
            let mut grows = Vec::new();
            if f.window_layers > 0 {
                grows.push(tf(
                    "hbm.grows_window",
                    &[
                        ("full", f.full_layers.to_string()),
                        ("layers", m.num_layers.to_string()),
                        ("n", f.window_layers.to_string()),
                        ("window", format::int(u64::from(f.window))),
                        ("past", format::bytes(f.bytes_per_token_past_window())),
                    ],
                ));
            }
            if f.linear_layers > 0 {
                grows.push(tf(
                    "hbm.grows_linear",
                    &[
                        ("attn", attn_layers.to_string()),
                        ("layers", m.num_layers.to_string()),
                        ("n", f.linear_layers.to_string()),
                        ("state", format::bytes(f.state_bytes)),
                    ],
                ));
            }
            Some(view! {
                <div class="formula-row">
                    <span class="formula-name">{t("hbm.this_lab")}</span>
                    <code data-testid="kv-formula-lab">
                        {lab}
                        <b>{format::int(i.kv_bytes_formula.round() as u64)} " B"</b>
                        {tf("hbm.formula_lab_per_token", &[("size", format::bytes(i.kv_bytes_formula))])}
                    </code>
                </div>
                <div class="formula-row">
                    <span class="formula-name">{t("hbm.article")}</span>
                    <code data-testid="kv-formula-article">
                        {tf("hbm.formula_article", &[
                            ("layers", m.num_layers.to_string()),
                            ("hidden", format::int(u64::from(m.hidden_size))),
                        ])}
                        <b>{tf("hbm.values", &[("n", format::int(i.article_elements.round() as u64))])}</b>
                        {t("hbm.formula_article_per_token")}
                    </code>
                </div>
                <p class="small">{why}</p>
                {grows.into_iter().map(|g| view! { <p class="small" data-testid="kv-grows">{g}</p> }).collect::<Vec<_>>()}
                {replicated.then(|| view! {
                    <p class="small muted">
                        {tf("hbm.stored", &[("size", format::bytes(stored)), ("n", i.scenario.num_gpus.to_string())])}
                    </p>
                })}
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
