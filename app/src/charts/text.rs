//! Each chart in words: its summary (the accessible description), the data table it opens, and
//! the figures that hold them.

use std::cell::RefCell;

use leptos::prelude::*;

use super::{batch_limit, ChartInput, Curve, Series, CDF_POINTS, CHARTS};
use crate::format;
use crate::i18n::{fill, t, t_untracked, tx};

/// Most rows of a chart's data table (per run for a time series).
const TABLE_ROWS: usize = 20;
/// The CDF's rows: shares of requests (of [`CDF_POINTS`]: point i is the share (i + 1) / 80).
const CDF_ROWS: [usize; 11] = [7, 15, 23, 31, 39, 47, 55, 63, 71, 75, 79];

/// A chart in words: its summary (its accessible description) and, while its table is open,
/// the plotted points (bounded: [`TABLE_ROWS`] per run, [`CDF_ROWS`] for a CDF).
#[derive(Default, PartialEq)]
pub struct ChartText {
    pub summary: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A chart figure in the page: whether its table is open, and the words last written into it
/// (the page's text changes only when they do).
struct Figure {
    open: RwSignal<bool>,
    shown: ChartText,
}

thread_local! {
    static FIGURES: RefCell<Vec<Figure>> = const { RefCell::new(Vec::new()) };
}

fn tu(key: &str, args: &[(&str, String)]) -> String {
    fill(&t_untracked(key), args)
}

/// Writes chart `i`'s words into its figure (when they changed): the summary, and the table's
/// rows while it is open (`make` is told whether to make them).
pub(super) fn publish(i: usize, make: impl FnOnce(bool) -> ChartText) {
    let Some(open) = FIGURES.with(|f| f.borrow().get(i).and_then(|f| f.open.try_get_untracked())) else { return };
    let next = make(open);
    if FIGURES.with(|f| f.borrow().get(i).is_none_or(|f| f.shown == next)) {
        return;
    }
    let id = CHARTS[i].0;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    for part in ["summary", "caption"] {
        if let Some(el) = doc.get_element_by_id(&format!("{id}-{part}")) {
            el.set_text_content(Some(&next.summary));
        }
    }
    let fill_rows = |part: &str, rows: &[Vec<String>], tag: &str| {
        let Some(el) = doc.get_element_by_id(&format!("{id}-{part}")) else { return };
        el.set_text_content(None);
        for cells in rows {
            let Ok(tr) = doc.create_element("tr") else { return };
            for c in cells {
                let Ok(cell) = doc.create_element(tag) else { return };
                if tag == "th" {
                    let _ = cell.set_attribute("scope", "col");
                }
                cell.set_text_content(Some(c));
                let _ = tr.append_child(&cell);
            }
            let _ = el.append_child(&tr);
        }
    };
    fill_rows("head", std::slice::from_ref(&next.head), "th");
    fill_rows("body", &next.rows, "td");
    FIGURES.with(|f| {
        if let Some(f) = f.borrow_mut().get_mut(i) {
            f.shown = next;
        }
    });
}

/// A curve's or a run's name in a summary and a table head: the class, the run, or both.
fn series_name(input: &ChartInput<'_>, run: usize, class: Option<usize>, fallback: &str) -> String {
    let runs = input.runs.len() > 1;
    let class = class.and_then(|c| input.runs.get(run).and_then(|(_, s)| s.class_names().get(c).cloned()));
    match (runs, class) {
        (true, Some(c)) => format!("{} · {c}", input.runs[run].0),
        (true, None) => input.runs[run].0.to_string(),
        (false, Some(c)) => c,
        (false, None) => fallback.to_string(),
    }
}

pub(super) fn cdf_text(
    title: &str,
    input: &ChartInput<'_>,
    curves: &[Curve],
    bounds: &[Curve],
    slos: &[(usize, f64)],
    table: bool,
) -> ChartText {
    let name_of = |(r, c, _): &Curve| {
        let per_class = input.runs.get(*r).is_some_and(|(_, s)| s.class_names().len() > 1);
        series_name(input, *r, per_class.then_some(*c), title)
    };
    let all_arrivals = t_untracked("chart.legend_all_arrivals");
    // (name, points, whether its figures are lower bounds)
    let named: Vec<(String, &Vec<(f64, f64)>, bool)> = curves
        .iter()
        .filter(|(_, _, p)| !p.is_empty())
        .map(|curve| (name_of(curve), &curve.2, false))
        .chain(bounds.iter().map(|curve| {
            let name = name_of(curve);
            (if name == title { all_arrivals.clone() } else { format!("{name} · {all_arrivals}") }, &curve.2, true)
        }))
        .collect();
    let shown = |v: f64, bound: bool| if bound { format!("≥ {}", format::ms(v)) } else { format::ms(v) };
    let at = |p: &Vec<(f64, f64)>, i: usize| p.get(i).or(p.last()).map_or(0.0, |q| q.0);
    let mut parts: Vec<String> = named
        .iter()
        .map(|(name, p, bound)| {
            // a single curve is the chart's own: its name would repeat the title
            let key = if *name == title { "a11y.cdf_one" } else { "a11y.cdf_curve" };
            tu(
                key,
                &[
                    ("name", name.clone()),
                    ("p50", shown(at(p, 39), *bound)),
                    ("p95", shown(at(p, 75), *bound)),
                    ("max", shown(at(p, 79), *bound)),
                ],
            )
        })
        .collect();
    if named.is_empty() {
        parts.push(t_untracked("chart.no_completed"));
    }
    if !slos.is_empty() {
        let list = slos.iter().map(|&(_, v)| format::ms(v)).collect::<Vec<_>>().join(", ");
        parts.push(tu("a11y.chart_slo", &[("slo", list)]));
    }
    let summary = tu("a11y.chart_summary", &[("title", title.to_string()), ("text", parts.join("; "))]);
    if !table {
        return ChartText { summary, ..ChartText::default() };
    }
    let mut head = vec![t_untracked("a11y.col_share")];
    head.extend(named.iter().map(|(n, _, _)| n.clone()));
    let rows = CDF_ROWS
        .iter()
        .map(|&i| {
            let mut row = vec![format::pct((i + 1) as f64 / CDF_POINTS as f64)];
            row.extend(named.iter().map(|(_, p, bound)| shown(at(p, i), *bound)));
            row
        })
        .collect();
    ChartText { summary, head, rows }
}

/// The lines of a time series chart: (name key or "", value of a sample).
fn series_lines(which: Series) -> Vec<(&'static str, fn(&sim_core::Sample) -> f64)> {
    match which {
        Series::Queue => vec![("", |s| s.queue_len)],
        Series::Batch => vec![("", |s| s.running)],
        Series::Kv => vec![("", |s| s.kv_fill)],
        Series::Goodput => {
            vec![("chart.legend_throughput", |s| s.throughput_tok_s), ("chart.legend_goodput", |s| s.goodput_tok_s)]
        }
    }
}

fn series_value(which: Series, v: f64) -> String {
    match which {
        Series::Kv => format::pct(v),
        Series::Goodput => format!("{} tok/s", format::rate(v)),
        _ => format::rate(v),
    }
}

pub(super) fn series_text(title: &str, input: &ChartInput<'_>, which: Series, table: bool) -> ChartText {
    let lines = series_lines(which);
    let mut parts = Vec::new();
    for (ri, (_, sim)) in input.runs.iter().enumerate() {
        let series = sim.series();
        let Some(last) = series.last() else { continue };
        for (key, f) in &lines {
            let name = if key.is_empty() {
                series_name(input, ri, None, title)
            } else {
                let n = t_untracked(key);
                if input.runs.len() > 1 {
                    format!("{} · {n}", input.runs[ri].0)
                } else {
                    n
                }
            };
            let peak = series.iter().map(f).fold(0.0f64, f64::max);
            let key = if name == title { "a11y.series_one" } else { "a11y.series_line" };
            parts.push(tu(
                key,
                &[("name", name), ("now", series_value(which, f(last))), ("peak", series_value(which, peak))],
            ));
        }
        if which == Series::Batch {
            parts.push(batch_limit(sim).1);
        }
    }
    let span = input.runs.iter().filter_map(|(_, s)| s.series().last().map(|x| x.t_s)).fold(0.0f64, f64::max);
    let text = if parts.is_empty() {
        t_untracked("chart.first_sample")
    } else {
        tu("a11y.series_span", &[("span", format::sim_time(span)), ("lines", parts.join("; "))])
    };
    let summary = tu("a11y.chart_summary", &[("title", title.to_string()), ("text", text)]);
    if !table {
        return ChartText { summary, ..ChartText::default() };
    }
    let multi = input.runs.len() > 1;
    let mut head = Vec::new();
    if multi {
        head.push(t_untracked("a11y.col_run"));
    }
    head.push(t_untracked("a11y.col_time"));
    head.extend(lines.iter().map(|(key, _)| if key.is_empty() { title.to_string() } else { t_untracked(key) }));
    let mut rows = Vec::new();
    for (label, sim) in &input.runs {
        let series = sim.series();
        let step = series.len().div_ceil(TABLE_ROWS).max(1);
        // every step-th sample, ending on the last one
        let picked = series.iter().rev().step_by(step).take(TABLE_ROWS).collect::<Vec<_>>();
        for s in picked.into_iter().rev() {
            let mut row = Vec::with_capacity(head.len());
            if multi {
                row.push(label.to_string());
            }
            row.push(format::sim_time(s.t_s));
            row.extend(lines.iter().map(|(_, f)| series_value(which, f(s))));
            rows.push(row);
        }
    }
    ChartText { summary, head, rows }
}

/// The charts' figures: each canvas with its summary as its description, a "Show data" button
/// and the data table it opens (their words are written by [`draw`]). `on_toggle` runs after a
/// table opens or closes (the page then redraws the charts at once).
pub fn figures(on_toggle: Callback<()>) -> impl IntoView {
    let opens: Vec<RwSignal<bool>> = CHARTS.iter().map(|_| RwSignal::new(false)).collect();
    FIGURES
        .with(|f| *f.borrow_mut() = opens.iter().map(|&open| Figure { open, shown: ChartText::default() }).collect());
    CHARTS
        .iter()
        .zip(opens)
        .map(|(&(id, title), open)| {
            view! {
                <figure class="chart-fig">
                    <canvas id=id class="chart" data-testid=id role="img" aria-label=tx(title) aria-describedby=format!("{id}-summary")></canvas>
                    <p class="sr-only" id=format!("{id}-summary") data-testid=format!("{id}-summary")></p>
                    <button
                        type="button"
                        class="btn small-btn chart-data-btn"
                        aria-expanded=move || open.get().to_string()
                        aria-controls=format!("{id}-data")
                        data-testid=format!("{id}-data-btn")
                        on:click=move |_| {
                            open.update(|o| *o = !*o);
                            on_toggle.run(());
                        }
                    >{move || if open.get() { t("a11y.hide_data") } else { t("a11y.show_data") }}</button>
                    <div class="chart-table-wrap" id=format!("{id}-data") class:hidden=move || !open.get()>
                        <table class="chart-table" data-testid=format!("{id}-table")>
                            <caption id=format!("{id}-caption")></caption>
                            <thead id=format!("{id}-head")></thead>
                            <tbody id=format!("{id}-body")></tbody>
                        </table>
                    </div>
                </figure>
            }
        })
        .collect_view()
}
