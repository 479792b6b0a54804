//! Each chart's figure: the canvas with its summary as its description, a "Show data" button and
//! the data table it opens; the words (`app_model::charts`' `ChartText`) written into it.

use app_model::charts::{ChartText, CHARTS};
use leptos::prelude::*;
use web_sys::{Document, Element};

use crate::i18n::{t, tx};

/// The element `{id}-{part}` of chart `id`'s figure.
fn part(doc: &Document, id: &str, part: &str) -> Option<Element> {
    doc.get_element_by_id(&format!("{id}-{part}"))
}

/// Whether `el`'s rows hold exactly `rows`' cells.
fn holds(el: &Element, rows: &[Vec<String>]) -> bool {
    let trs = el.children();
    trs.length() as usize == rows.len()
        && rows.iter().enumerate().all(|(r, cells)| {
            trs.item(r as u32).is_some_and(|tr| {
                let tds = tr.children();
                tds.length() as usize == cells.len()
                    && cells.iter().enumerate().all(|(c, text)| {
                        tds.item(c as u32).and_then(|td| td.text_content()).is_some_and(|t| t == *text)
                    })
            })
        })
}

fn fill_rows(doc: &Document, el: &Element, rows: &[Vec<String>], tag: &str) {
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
}

/// Writes chart `i`'s words into its figure where they changed: the summary, and the table's
/// rows while the figure shows its table (`make` is told whether to make them).
pub(super) fn publish(i: usize, make: impl FnOnce(bool) -> ChartText) {
    let id = CHARTS[i].0;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    // the figure's own state: its table shown or hidden (its button's signal)
    let Some(open) = part(&doc, id, "data").map(|el| !el.class_list().contains("hidden")) else { return };
    let next = make(open);
    let (Some(summary), Some(head), Some(body)) =
        (part(&doc, id, "summary"), part(&doc, id, "head"), part(&doc, id, "body"))
    else {
        return;
    };
    if summary.text_content().unwrap_or_default() != next.summary {
        summary.set_text_content(Some(&next.summary));
        if let Some(caption) = part(&doc, id, "caption") {
            caption.set_text_content(Some(&next.summary));
        }
    }
    let head_rows = std::slice::from_ref(&next.head);
    if !holds(&head, head_rows) {
        fill_rows(&doc, &head, head_rows, "th");
    }
    if !holds(&body, &next.rows) {
        fill_rows(&doc, &body, &next.rows, "td");
    }
}

/// The charts' figures: each canvas with its summary as its description, a "Show data" button
/// and the data table it opens (their words are written by [`super::draw`]). `on_toggle` runs
/// once a table has opened or closed (the page then redraws the charts at once).
pub fn figures(on_toggle: Callback<()>) -> impl IntoView {
    CHARTS
        .iter()
        .map(|&(id, title)| {
            let open = RwSignal::new(false);
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
                            // once the figure shows or hides its table (the next frame), its
                            // words follow
                            request_animation_frame(move || on_toggle.run(()));
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
