//! The contract tab's run and report as the page shows them: the acceptance run's phases (running,
//! progress, the report, an import's outcome), the verdict in words, each line's values with
//! their units, and the form's drop-downs.

use lab_content::contract::{CheckLine, Contract, ContractReport};
use sim_core::{catalog, Dtype, Problem, ScenarioError};

use super::{Group, Reported};
use crate::format;
use crate::words::{Said, Words};

/// A value of a report line with its unit, as the page shows it.
pub fn line_value(l: &CheckLine, v: f64) -> Said {
    Said::Text(match l.unit {
        "ms" => format::ms(v),
        "GiB KV at full length" => return Said::Fill("features.contract.unit.kv_full", vec![("v", format!("{v:.1}"))]),
        "req/s offered" | "req/s" => format!("{} req/s", format::rate(v)),
        "of requests" | "of KV pool free at peak" => format::pct(v),
        "restarts" => format::int(v.max(0.0).round() as u64),
        "$" => format::usd(v),
        _ => format!("{} {}", format::plain(v), l.unit),
    })
}

/// A report line's cells in words: what it checks, the target with its comparison, the measured
/// value (each with its unit).
pub fn line_cells(w: &dyn Words, l: &CheckLine) -> [String; 3] {
    let label = super::line_key(&l.field).map_or_else(|| l.field.clone(), |k| w.t(&k));
    let target = format!("{} {}", l.op.symbol(), line_value(l, l.target).words(w));
    [label, target, line_value(l, l.measured).words(w)]
}

/// Label keys of the report's columns.
pub const COLUMNS: [&str; 4] = [
    "features.contract.col.field",
    "features.contract.col.target",
    "features.contract.col.measured",
    "features.contract.col.result",
];

/// The report's verdict: its class (`pass`, `fail`), icon and words.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub class: &'static str,
    pub icon: &'static str,
    pub key: &'static str,
    pub args: Vec<(&'static str, String)>,
}

impl Reported {
    pub fn verdict(&self) -> Verdict {
        let total = self.report.lines.len().to_string();
        if self.report.pass {
            Verdict { class: "pass", icon: "✓", key: "features.contract.accepted", args: vec![("n", total)] }
        } else {
            let args = vec![("n", self.failed().to_string()), ("total", total)];
            Verdict { class: "fail", icon: "✗", key: "features.contract.rejected", args }
        }
    }
}

/// The model drop-down: (id, name) of every model of the catalogue.
pub fn model_options() -> Vec<(String, String)> {
    catalog::models().into_iter().map(|m| (m.id, m.name)).collect()
}

/// The dtype drop-down: every weight dtype by its name.
pub fn dtype_options() -> Vec<(String, String)> {
    Dtype::ALL.iter().map(|d| (d.name().to_string(), d.name().to_string())).collect()
}

/// The GPU drop-down: (id, name) of every GPU of the catalogue.
pub fn gpu_options() -> Vec<(String, String)> {
    catalog::gpus().into_iter().map(|g| (g.id, g.name)).collect()
}

/// A drop-down of the contract form: its label's key, the path it sets, its options (value,
/// words) and the contract's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    pub label: &'static str,
    pub path: &'static str,
    pub options: Vec<(String, String)>,
    pub current: String,
}

/// The drop-downs of a group of the form, before its numeric fields, with `c`'s values: the
/// model and its dtype; the GPU; none in the other groups.
pub fn selects(group: Group, c: &Contract) -> Vec<Select> {
    let s = |label, path, options, current| Select { label, path, options, current };
    match group {
        Group::Model => vec![
            s("features.contract.f.model", "model.id", model_options(), c.model.id.clone()),
            s("features.contract.f.dtype", "model.dtype", dtype_options(), c.model.dtype.name().to_string()),
        ],
        Group::Resources => vec![s("features.contract.f.gpu", "resources.gpu", gpu_options(), c.resources.gpu.clone())],
        _ => Vec::new(),
    }
}

/// The acceptance run and the import beside it (the run's progress, which changes at every
/// slice, is the page's own signal).
#[derive(Clone, Debug, Default)]
pub struct ContractRun {
    pub running: bool,
    pub reported: Option<Reported>,
    /// Why the last import or run could not go ahead.
    pub errors: Option<ScenarioError>,
    /// The last import succeeded.
    pub imported: bool,
}

impl ContractRun {
    /// Whether a run may start: not while one runs, nor while the form has errors.
    pub fn may_start(&self, form_invalid: bool) -> bool {
        !self.running && !form_invalid
    }

    pub fn started(&mut self) {
        self.running = true;
    }

    /// The run could not be built (the contract's scenario was refused).
    pub fn refused(&mut self, e: ScenarioError) {
        self.errors = Some(e);
    }

    /// The run ended: its report for `contract`, or why the simulation could not run it.
    pub fn finished(&mut self, contract: Contract, report: Result<ContractReport, String>) {
        match report {
            Ok(report) => self.reported = Some(Reported { contract, report }),
            Err(e) => self.errors = Some(ScenarioError::one("", Problem::Text(e))),
        }
        self.running = false;
    }

    pub fn cancelled(&mut self) {
        self.running = false;
    }

    /// An import's outcome.
    pub fn import_result(&mut self, result: Result<(), ScenarioError>) {
        self.imported = result.is_ok();
        self.errors = result.err();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_content::contract::EXAMPLE;
    use sim_core::metric::Op;

    fn line(unit: &'static str, pass: bool) -> CheckLine {
        CheckLine {
            field: "slo.ttft_p99_ms".into(),
            op: Op::AtMost,
            target: 1.0,
            measured: 2.0,
            metric: None,
            unit,
            pass,
        }
    }

    #[test]
    fn line_values_carry_their_units() {
        assert_eq!(line_value(&line("ms", true), 1200.0), Said::Text(format::ms(1200.0)));
        assert_eq!(line_value(&line("req/s offered", true), 5.0), Said::Text(format!("{} req/s", format::rate(5.0))));
        assert_eq!(line_value(&line("of requests", true), 0.5), Said::Text(format::pct(0.5)));
        assert_eq!(line_value(&line("restarts", true), -1.0), Said::Text("0".into()));
        assert_eq!(
            line_value(&line("GiB KV at full length", true), 12.34),
            Said::Fill("features.contract.unit.kv_full", vec![("v", "12.3".into())])
        );
        assert_eq!(line_value(&line("widgets", true), 3.0), Said::Text(format!("{} widgets", format::plain(3.0))));
    }

    #[test]
    fn the_verdict_counts_failed_lines() {
        let c = Contract::from_json(EXAMPLE).expect("example");
        let scenario = c.workload.clone();
        let report = |lines: Vec<CheckLine>| {
            let pass = lines.iter().all(|l| l.pass);
            ContractReport { pass, lines, summary: Default::default(), scenario: scenario.clone() }
        };
        let r = Reported {
            contract: c.clone(),
            report: report(vec![line("ms", true), line("ms", false), line("ms", false)]),
        };
        assert_eq!(r.verdict().key, "features.contract.rejected");
        assert_eq!(r.verdict().args, vec![("n", "2".to_string()), ("total", "3".to_string())]);
        let r = Reported { contract: c, report: report(vec![line("ms", true)]) };
        assert_eq!((r.verdict().class, r.verdict().args), ("pass", vec![("n", "1".to_string())]));
    }

    #[test]
    fn a_run_goes_from_started_to_a_report_and_an_import_says_how_it_went() {
        let c = Contract::from_json(EXAMPLE).expect("example");
        let mut run = ContractRun::default();
        assert!(run.may_start(false));
        assert!(!run.may_start(true));
        run.started();
        assert!(run.running && !run.may_start(false));
        run.finished(c.clone(), Err("boom".into()));
        assert!(!run.running && run.reported.is_none() && run.errors.is_some());
        run.import_result(Ok(()));
        assert!(run.imported && run.errors.is_none());
        run.import_result(Err(ScenarioError::one("", Problem::Text("bad".into()))));
        assert!(!run.imported && run.errors.is_some());
        assert!(!model_options().is_empty() && !gpu_options().is_empty());
        assert_eq!(dtype_options().len(), Dtype::ALL.len());
    }

    #[test]
    fn the_model_and_resources_groups_lead_with_their_drop_downs_on_the_contracts_values() {
        let c = Contract::from_json(EXAMPLE).expect("example");
        let model = selects(Group::Model, &c);
        let paths: Vec<&str> = model.iter().map(|s| s.path).collect();
        assert_eq!(paths, ["model.id", "model.dtype"]);
        assert_eq!(model[0].current, c.model.id);
        assert_eq!(model[1].current, c.model.dtype.name());
        assert!(model.iter().all(|s| s.options.iter().any(|(v, _)| *v == s.current)));
        let gpu = selects(Group::Resources, &c);
        assert_eq!((gpu.len(), gpu[0].path, gpu[0].label), (1, "resources.gpu", "features.contract.f.gpu"));
        assert_eq!(gpu[0].current, c.resources.gpu);
        for g in [Group::Limits, Group::Slo, Group::Acceptance, Group::Workload] {
            assert!(selects(g, &c).is_empty(), "{g:?}");
        }
    }

    #[test]
    fn a_line_says_what_it_checks_and_its_values_with_units() {
        use crate::words::Keys;
        let l = line("ms", true);
        let label = crate::tabs::contract::line_key(&l.field).expect("an SLO has words");
        assert_eq!(line_cells(&Keys, &l), [label, format!("≤ {}", format::ms(1.0)), format::ms(2.0)]);
        let mut odd = line("GiB KV at full length", false);
        odd.field = "resources.something".into();
        assert_eq!(
            line_cells(&Keys, &odd),
            [
                "resources.something".to_string(),
                format!("{} features.contract.unit.kv_full{{v=1.0}}", Op::AtMost.symbol()),
                "features.contract.unit.kv_full{v=2.0}".to_string()
            ]
        );
    }
}
