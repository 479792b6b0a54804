//! A class's result codes checked together: every code in a pasted text (one a line, a column of
//! a CSV export, the body of an e-mail), each re-run in turn as [`CodeJob`] re-runs one, and the
//! results as a table to sort and download.

use super::code::{CodeJob, CodeVerdict};
use super::export::csv_cell;
use crate::jobs::{Job, RunsProgress};
use lab_content::exercise::CodeProblem;

/// Every result code in `text`, in order, each once: a run of `R<digits>.<base64url>.<8 hex>`
/// standing on its own (between white space, commas, quotes, semicolons or tabs).
pub fn codes_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '"' | '\'' | '<' | '>')) {
        if looks_like_code(token) && !out.iter().any(|c| c == token) {
            out.push(token.to_string());
        }
    }
    out
}

fn looks_like_code(t: &str) -> bool {
    let mut parts = t.split('.');
    let (Some(v), Some(body), Some(sum), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    v.len() >= 2
        && v.starts_with('R')
        && v[1..].bytes().all(|b| b.is_ascii_digit())
        && !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && sum.len() == 8
        && sum.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What one code's check came to, as the class table shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum RowVerdict {
    /// Every number it claims is the re-run's.
    Verified,
    /// The re-run disagrees on these metrics (their ids).
    Mismatch(Vec<String>),
    /// It could not be read or rebuilt.
    Refused(CodeProblem),
    /// The simulation refused the rebuilt scenario.
    Failed(String),
}

impl RowVerdict {
    /// Its place when the table is sorted by verdict: verified first.
    fn rank(&self) -> u8 {
        match self {
            RowVerdict::Verified => 0,
            RowVerdict::Mismatch(_) => 1,
            RowVerdict::Refused(_) => 2,
            RowVerdict::Failed(_) => 3,
        }
    }

    /// The word for it in the table and the CSV (`verified`, `mismatch`, `refused`, `failed`).
    pub fn id(&self) -> &'static str {
        match self {
            RowVerdict::Verified => "verified",
            RowVerdict::Mismatch(_) => "mismatch",
            RowVerdict::Refused(_) => "refused",
            RowVerdict::Failed(_) => "failed",
        }
    }
}

/// One handed-in code in the class table.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassRow {
    pub code: String,
    pub name: Option<String>,
    pub exercise: Option<String>,
    pub verdict: RowVerdict,
    /// The re-run met every goal (known when the code could be re-run).
    pub pass: Option<bool>,
    /// The re-run's objective value, when every goal passed.
    pub score: Option<f64>,
}

impl ClassRow {
    fn of(code: &str, v: CodeVerdict) -> ClassRow {
        let mut row = ClassRow {
            code: code.into(),
            name: None,
            exercise: None,
            verdict: RowVerdict::Failed(String::new()),
            pass: None,
            score: None,
        };
        match v {
            CodeVerdict::Refused(p) => row.verdict = RowVerdict::Refused(p),
            CodeVerdict::Failed(e) => row.verdict = RowVerdict::Failed(e),
            CodeVerdict::Ran { code, exercise, check } => {
                row.name = code.name.clone();
                row.exercise = Some(exercise.id.clone());
                row.pass = Some(check.attempt.pass);
                row.score = check.attempt.score;
                row.verdict = if check.verified {
                    RowVerdict::Verified
                } else {
                    RowVerdict::Mismatch(
                        check.lines.iter().filter(|l| !l.equal).map(|l| l.metric.to_string()).collect(),
                    )
                };
            }
        }
        row
    }
}

/// Checks a class's codes one after another, a slice at a time (the page keeps drawing).
pub struct ClassJob {
    codes: Vec<String>,
    current: Option<CodeJob>,
    rows: Vec<ClassRow>,
}

impl ClassJob {
    pub fn new(text: &str) -> ClassJob {
        ClassJob { codes: codes_in(text), current: None, rows: Vec::new() }
    }

    /// How many codes the text holds.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

impl Job for ClassJob {
    type Progress = RunsProgress;
    type Output = Vec<ClassRow>;

    fn step(&mut self) -> Option<Vec<ClassRow>> {
        let Some(code) = self.codes.get(self.rows.len()) else { return Some(std::mem::take(&mut self.rows)) };
        let job = self.current.get_or_insert_with(|| CodeJob::new(code));
        if let Some(v) = job.step() {
            let row = ClassRow::of(code, v);
            self.rows.push(row);
            self.current = None;
        }
        None
    }

    fn progress(&mut self) -> RunsProgress {
        let total = self.codes.len().max(1);
        let inner = self.current.as_mut().map_or(0.0, |j| j.progress().share);
        RunsProgress {
            done: self.rows.len(),
            total: self.codes.len(),
            share: (self.rows.len() as f64 + inner) / total as f64,
        }
    }
}

/// A column the class table sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Name,
    Exercise,
    Verdict,
    Pass,
    Score,
}

impl SortBy {
    pub const ALL: [SortBy; 5] = [SortBy::Name, SortBy::Exercise, SortBy::Verdict, SortBy::Pass, SortBy::Score];

    /// Translation key of its column head.
    pub fn key(self) -> &'static str {
        match self {
            SortBy::Name => "features.class.table.name",
            SortBy::Exercise => "features.class.table.exercise",
            SortBy::Verdict => "features.class.table.verdict",
            SortBy::Pass => "features.class.table.pass",
            SortBy::Score => "features.class.table.score",
        }
    }
}

/// How the class table is sorted: by which column, and whether descending. A click on a column
/// head sorts by it ascending, a second click on the same head reverses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortOrder {
    pub by: SortBy,
    pub descending: bool,
}

impl Default for SortOrder {
    fn default() -> SortOrder {
        SortOrder { by: SortBy::Name, descending: false }
    }
}

impl SortOrder {
    /// The order after a click on the head of column `by`.
    pub fn clicked(self, by: SortBy) -> SortOrder {
        SortOrder { by, descending: self.by == by && !self.descending }
    }

    /// The head of column `by`'s `aria-sort`.
    pub fn aria_sort(self, by: SortBy) -> &'static str {
        match (self.by == by, self.descending) {
            (true, false) => "ascending",
            (true, true) => "descending",
            _ => "none",
        }
    }

    /// The mark after the head of column `by` (" ▲", " ▼" or nothing).
    pub fn mark(self, by: SortBy) -> &'static str {
        match self.aria_sort(by) {
            "ascending" => " ▲",
            "descending" => " ▼",
            _ => "",
        }
    }

    /// Sorts `rows` in this order.
    pub fn sort(self, rows: &mut [ClassRow]) {
        sort(rows, self.by, self.descending);
    }
}

impl SortBy {
    /// The test id of its column head's button (`class-sort-name`).
    pub fn testid(self) -> String {
        format!("class-sort-{self:?}").to_lowercase()
    }
}

/// How many of the rows were verified (the summary above the table).
pub fn verified(rows: &[ClassRow]) -> usize {
    rows.iter().filter(|r| r.verdict == RowVerdict::Verified).count()
}

/// A code as the table's last column shows it: its first 14 characters and an ellipsis.
pub fn short_code(code: &str) -> String {
    code.chars().take(14).chain(std::iter::once('…')).collect()
}

/// Sorts the rows by `by` (ties keep the order the codes came in); rows without a value last.
pub fn sort(rows: &mut [ClassRow], by: SortBy, descending: bool) {
    use std::cmp::Ordering;
    let cmp = |a: &ClassRow, b: &ClassRow| -> Ordering {
        let some_first = |x: bool, y: bool| y.cmp(&x);
        match by {
            SortBy::Name => some_first(a.name.is_some(), b.name.is_some()).then_with(|| {
                a.name.as_ref().map(|n| n.to_lowercase()).cmp(&b.name.as_ref().map(|n| n.to_lowercase()))
            }),
            SortBy::Exercise => {
                some_first(a.exercise.is_some(), b.exercise.is_some()).then_with(|| a.exercise.cmp(&b.exercise))
            }
            SortBy::Verdict => a.verdict.rank().cmp(&b.verdict.rank()),
            SortBy::Pass => some_first(a.pass.is_some(), b.pass.is_some()).then_with(|| b.pass.cmp(&a.pass)),
            SortBy::Score => some_first(a.score.is_some(), b.score.is_some())
                .then_with(|| a.score.partial_cmp(&b.score).unwrap_or(Ordering::Equal)),
        }
    };
    rows.sort_by(|a, b| if descending { cmp(b, a) } else { cmp(a, b) });
}

/// The class table as CSV: name, exercise, verdict, what disagreed, pass, score, code.
pub fn class_csv(rows: &[ClassRow]) -> String {
    let line = |cells: Vec<String>| cells.iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(",") + "\n";
    let mut out =
        line(["name", "exercise", "verdict", "disagrees_on", "pass", "score", "code"].map(String::from).to_vec());
    for r in rows {
        let why = match &r.verdict {
            RowVerdict::Mismatch(m) => m.join(" "),
            RowVerdict::Refused(p) => p.to_string(),
            RowVerdict::Failed(e) => e.clone(),
            RowVerdict::Verified => String::new(),
        };
        out.push_str(&line(vec![
            r.name.clone().unwrap_or_default(),
            r.exercise.clone().unwrap_or_default(),
            r.verdict.id().to_string(),
            why,
            r.pass.map(|p| p.to_string()).unwrap_or_default(),
            r.score.map(|s| s.to_string()).unwrap_or_default(),
            r.code.clone(),
        ]));
    }
    out
}
