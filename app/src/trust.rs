//! "How far to trust these numbers": the lab's error against published serving benchmarks
//! (`lab_content::trust`, computed in sim-core and kept with it), per engine and per model and
//! tensor-parallel degree, the row of the run on screen marked. A disclosure under the metrics.

use leptos::prelude::*;
use lab_content::trust::{self, Group};

use crate::format;
use crate::i18n::{t, tf, tx};
use crate::ui::use_ui;

/// A signed relative error as a percentage ("+48%", "−12%"), or a dash when none was replayed.
fn signed(v: f64) -> String {
    if v.is_finite() {
        let pct = format::plain((v * 100.0).round());
        if v >= 0.0 {
            format!("+{pct} %")
        } else {
            format!("−{} %", pct.trim_start_matches('-'))
        }
    } else {
        format::NONE.to_string()
    }
}

fn size(v: f64) -> String {
    if v.is_finite() {
        format!("{} %", format::plain((v * 100.0).round()))
    } else {
        format::NONE.to_string()
    }
}

/// The engine's product name (`lab_content::bench::Engine::label`), or its id when unknown.
fn engine_name(id: &str) -> String {
    lab_content::bench::Engine::parse(id).map_or_else(|| id.to_string(), |e| e.label().to_string())
}

#[component]
pub fn TrustTable() -> impl IntoView {
    let ui = use_ui();
    let groups: Vec<Group> = trust::table();
    // the run on screen: its model, precision, GPU and GPU count
    let current = Memo::new(move |_| {
        ui.infos[0].with(|i| {
            i.as_ref().map(|i| {
                (i.model.id.clone(), i.scenario.dtype.name().to_string(), i.gpu.id.clone(), i.scenario.num_gpus)
            })
        })
    });
    let wholes: Vec<Group> = groups.iter().filter(|g| g.tp.is_none()).cloned().collect();
    let summary = wholes
        .iter()
        .map(|g| {
            tf(
                "trust.engine_line",
                &[
                    ("engine", engine_name(&g.engine)),
                    ("tpot", signed(g.tpot_median)),
                    ("p90", size(g.tpot_p90_abs)),
                    ("ttft", signed(g.ttft_median)),
                    ("n", format::int(g.replayed as u64)),
                ],
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let rows = groups
        .into_iter()
        .filter(|g| g.tp.is_some())
        .map(|g| {
            let group = g.clone();
            let here = move || current.with(|c| c.as_ref().is_some_and(|(m, d, gpu, n)| group.covers(m, d, gpu, *n)));
            view! {
                <tr class:current=here data-testid="trust-row">
                    <td>{engine_name(&g.engine)}</td>
                    <td>{format!("{} · {} · {}", g.model, g.dtype, g.gpu)}</td>
                    <td class="num">{g.tp.map(|t| t.to_string()).unwrap_or_default()}</td>
                    <td class="num">{format!("{}/{}", g.replayed, g.rows)}</td>
                    <td class="num">{signed(g.tpot_median)}</td>
                    <td class="num">{size(g.tpot_p90_abs)}</td>
                    <td class="num">{signed(g.ttft_median)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <details class="panel trust" data-testid="trust">
            <summary><h2>{tx("trust.title")}</h2></summary>
            <p class="small">{tx("trust.intro")}</p>
            <p class="small" data-testid="trust-summary">{summary}</p>
            <div class="table-scroll">
                <table class="runs-table trust-table">
                    <thead>
                        <tr>
                            <th scope="col">{tx("trust.col_engine")}</th>
                            <th scope="col">{tx("trust.col_setup")}</th>
                            <th scope="col">"TP"</th>
                            <th scope="col">{tx("trust.col_rows")}</th>
                            <th scope="col">{tx("trust.col_tpot")}</th>
                            <th scope="col">{tx("trust.col_tpot_p90")}</th>
                            <th scope="col">{tx("trust.col_ttft")}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="small muted">{move || t("trust.note")}</p>
        </details>
    }
}
