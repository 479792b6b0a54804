//! "How far to trust these numbers": the lab's error against published serving benchmarks
//! (`lab_content::trust`, worded by `app_model::panels::trust`), per engine and per model and
//! tensor-parallel degree, the row of the run on screen marked. A disclosure under the metrics.

use app_model::panels::trust::{cells, summary};
use lab_content::trust;
use leptos::prelude::*;

use crate::i18n::{t, tx, PAGE};
use crate::ui::use_ui;

/// The table's column heads (translation keys, or text shown as written).
const HEADS: [&str; 7] = [
    "trust.col_engine",
    "trust.col_setup",
    "TP",
    "trust.col_rows",
    "trust.col_tpot",
    "trust.col_tpot_p90",
    "trust.col_ttft",
];

#[component]
pub fn TrustTable() -> impl IntoView {
    let ui = use_ui();
    let groups = trust::table();
    // the run on screen: its model, precision, GPU and GPU count
    let current = Memo::new(move |_| {
        ui.infos[0].with(|i| {
            i.as_ref().map(|i| {
                (i.model.id.clone(), i.scenario.dtype.name().to_string(), i.gpu.id.clone(), i.scenario.num_gpus)
            })
        })
    });
    let summary = move || summary(PAGE, &groups);
    let rows = trust::table()
        .into_iter()
        .filter(|g| g.tp.is_some())
        .map(|g| {
            let [engine, setup, tp, rows, tpot, tpot_p90, ttft] = cells(&g);
            let here = move || current.with(|c| c.as_ref().is_some_and(|(m, d, gpu, n)| g.covers(m, d, gpu, *n)));
            view! {
                <tr class:current=here data-testid="trust-row">
                    <td>{engine}</td>
                    <td>{setup}</td>
                    {crate::kit::num_cells([tp, rows, tpot, tpot_p90, ttft])}
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
                        <tr>{HEADS.map(|h| view! { <th scope="col">{move || t(h)}</th> })}</tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="small muted">{move || t("trust.note")}</p>
        </details>
    }
}
