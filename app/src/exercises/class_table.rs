//! Teacher mode's class table: a whole class's result codes pasted at once (one a line, a CSV
//! export, an e-mail), each re-run in turn in the background, then a table — who, which exercise,
//! verified or not, pass, score — that sorts by any column and downloads as CSV.

use app_model::jobs::{RunsProgress, Status};
use app_model::tabs::exercise::{class_csv, sort, ClassJob, ClassRow, RowVerdict, SortBy};
use leptos::prelude::*;

use super::exercise;
use crate::format;
use crate::i18n::{t, tf, tx};
use crate::kit::{self, data_url, Jobs};

/// The class table's state.
#[derive(Clone, Copy)]
pub(super) struct ClassTable {
    rows: RwSignal<Option<Vec<ClassRow>>>,
    progress: RwSignal<Option<RunsProgress>>,
    order: RwSignal<(SortBy, bool)>,
    jobs: Jobs<ClassJob>,
}

impl ClassTable {
    pub(super) fn new() -> ClassTable {
        ClassTable {
            rows: RwSignal::new(None),
            progress: RwSignal::new(None),
            order: RwSignal::new((SortBy::Name, false)),
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
                let (by, desc) = order.get_untracked();
                sort(&mut r, by, desc);
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
        let (cur, desc) = self.order.get_untracked();
        let desc = if cur == by { !desc } else { false };
        self.order.set((by, desc));
        self.rows.update(|r| {
            if let Some(r) = r {
                sort(r, by, desc);
            }
        });
    }
}

fn verdict_word(v: &RowVerdict) -> String {
    t(&format!("features.class.table.v.{}", v.id()))
}

fn head(st: ClassTable, by: SortBy) -> impl IntoView {
    let sorted = move || {
        let (cur, desc) = st.order.get();
        match (cur == by, desc) {
            (true, false) => "ascending",
            (true, true) => "descending",
            _ => "none",
        }
    };
    let mark = move || match sorted() {
        "ascending" => " ▲",
        "descending" => " ▼",
        _ => "",
    };
    view! {
        <th scope="col" aria-sort=sorted>
            <button type="button" class="sort-btn" data-testid=format!("class-sort-{by:?}").to_lowercase() on:click=move |_| st.sort_by(by)>
                {tx(by.key())}{mark}
            </button>
        </th>
    }
}

fn row(r: &ClassRow) -> impl IntoView {
    let ex_title =
        r.exercise.as_deref().and_then(exercise).map(|e| super::title(&e)).unwrap_or_else(|| format::NONE.into());
    let pass = match r.pass {
        Some(true) => t("features.contract.pass"),
        Some(false) => t("features.contract.fail"),
        None => format::NONE.into(),
    };
    let score = r.score.map_or_else(|| format::NONE.to_string(), format::rate);
    let short: String = r.code.chars().take(14).collect();
    view! {
        <tr data-verdict=r.verdict.id() class=if r.verdict == RowVerdict::Verified { "ok" } else { "no" }>
            <td data-testid="class-name">{r.name.clone().unwrap_or_else(|| format::NONE.into())}</td>
            <td>{ex_title}</td>
            <td data-testid="class-verdict">{verdict_word(&r.verdict)}</td>
            <td>{pass}</td>
            <td class="num">{score}</td>
            <td><code title=r.code.clone()>{short}"…"</code></td>
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
                let verified = rows.iter().filter(|r| r.verdict == RowVerdict::Verified).count();
                let csv = data_url("text/csv", &class_csv(rows));
                let heads = SortBy::ALL.map(|by| head(st, by)).into_iter().collect_view();
                let body = rows.iter().map(row).collect_view();
                view! {
                    <p class="small" data-testid="class-summary">
                        {tf("features.class.table.summary", &[("n", rows.len().to_string()), ("verified", verified.to_string())])}
                    </p>
                    <div class="table-scroll">
                        <table class="runs-table class-table" data-testid="class-table">
                            <caption class="small muted">{t("features.class.table.caption")}</caption>
                            <thead><tr>{heads}<th scope="col">{t("features.class.col.code")}</th></tr></thead>
                            <tbody>{body}</tbody>
                        </table>
                    </div>
                    <div class="actions">
                        <a class="btn small-btn" href=csv download="class-results.csv" data-testid="class-csv">{tx("features.class.export_csv")}</a>
                    </div>
                }
            })
        })
    };
    view! { <div aria-live="polite">{progress}{table}</div> }
}
