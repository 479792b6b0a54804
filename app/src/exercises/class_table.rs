//! Teacher mode's class table: a whole class's result codes pasted at once (one a line, a CSV
//! export, an e-mail), each re-run in turn in the background, then a table — who, which exercise,
//! verified or not, pass, score — that sorts by any column and downloads as CSV.

use app_model::jobs::{RunsProgress, Status};
use app_model::tabs::exercise::{
    class_csv, said, short_code, verified, ClassJob, ClassRow, RowVerdict, SortBy, SortOrder,
};
use leptos::prelude::*;

use crate::i18n::{t, tf, tx, PAGE};
use crate::kit::{self, data_url, Jobs};

/// The class table's state.
#[derive(Clone, Copy)]
pub(super) struct ClassTable {
    rows: RwSignal<Option<Vec<ClassRow>>>,
    progress: RwSignal<Option<RunsProgress>>,
    order: RwSignal<SortOrder>,
    jobs: Jobs<ClassJob>,
}

impl ClassTable {
    pub(super) fn new() -> ClassTable {
        ClassTable {
            rows: RwSignal::new(None),
            progress: RwSignal::new(None),
            order: RwSignal::new(SortOrder::default()),
            jobs: kit::jobs(),
        }
    }

    /// Checks every code in `text`.
    pub(super) fn start(self, text: &str) {
        self.rows.set(None);
        self.progress.set(Some(RunsProgress::default()));
        let order = self.order;
        let rows = self.rows;
        let progress = self.progress;
        kit::start(self.jobs, ClassJob::new(text), move |status| match status {
            Status::Working(p) => progress.set(Some(p)),
            Status::Stopped => progress.set(None),
            Status::Finished(mut r) => {
                order.get_untracked().sort(&mut r);
                progress.set(None);
                rows.set(Some(r));
            }
        });
    }

    pub(super) fn clear(self) {
        kit::cancel(self.jobs);
        self.rows.set(None);
        self.progress.set(None);
    }

    fn sort_by(self, by: SortBy) {
        let order = self.order.get_untracked().clicked(by);
        self.order.set(order);
        self.rows.update(|r| {
            if let Some(r) = r {
                order.sort(r);
            }
        });
    }
}

fn head(st: ClassTable, by: SortBy) -> impl IntoView {
    view! {
        <th scope="col" aria-sort=move || st.order.get().aria_sort(by)>
            <button type="button" class="sort-btn" data-testid=by.testid() on:click=move |_| st.sort_by(by)>
                {tx(by.key())}{move || st.order.get().mark(by)}
            </button>
        </th>
    }
}

fn row(r: &ClassRow) -> impl IntoView {
    let [name, ex_title, verdict, pass, score] = said::class_row(PAGE, r);
    view! {
        <tr data-verdict=r.verdict.id() class=if r.verdict == RowVerdict::Verified { "ok" } else { "no" }>
            <td data-testid="class-name">{name}</td>
            <td>{ex_title}</td>
            <td class="class-verdict" data-testid="class-verdict">{verdict}</td>
            <td>{pass}</td>
            <td class="num">{score}</td>
            <td><code title=r.code.clone()>{short_code(&r.code)}</code></td>
        </tr>
    }
}

/// The table, the progress while checking, and the CSV download.
pub(super) fn view(st: ClassTable) -> impl IntoView {
    let progress = move || {
        st.progress.get().map(|p| {
            view! {
                <p class="small" role="status" data-testid="class-checking">
                    {tf("features.class.table.checking", &[("done", p.done.to_string()), ("total", p.total.to_string())])}
                </p>
            }
        })
    };
    let table = move || {
        st.rows.with(|rows| {
            rows.as_ref().map(|rows| {
                let verified = verified(rows);
                let csv = data_url("text/csv", &class_csv(rows));
                let heads = view! { {SortBy::ALL.map(|by| head(st, by))}<th scope="col">{t("features.class.col.code")}</th> };
                let body = rows.iter().map(row).collect_view().into_any();
                view! {
                    <p class="small" data-testid="class-summary">
                        {tf("features.class.table.summary", &[("n", rows.len().to_string()), ("verified", verified.to_string())])}
                    </p>
                    {kit::table("runs-table class-table", Some("class-table"), t("features.class.table.caption"), heads.into_any(), body)}
                    <div class="actions">
                        {kit::download("btn small-btn", csv, "class-results.csv".into(), "class-csv", "features.class.export_csv")}
                    </div>
                }
            })
        })
    };
    view! { <div aria-live="polite">{progress}{table}</div> }
}
