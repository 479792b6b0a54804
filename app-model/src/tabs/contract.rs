//! The contract tab's state: the contract as a form (one table of numeric fields), the messages
//! beside each field, import, reset, and which report is on screen.

use lab_content::contract::{Contract, ContractReport};
use sim_core::{Dtype, Scenario, ScenarioError};

pub mod fields;
mod run;

pub use crate::words::Said;
pub use fields::{line_key, Field, Group, FIELDS};
pub use run::{
    dtype_options, gpu_options, line_cells, line_value, model_options, selects, ContractRun, Select, Verdict, COLUMNS,
};

/// A field's message: a translation key of the page, or sim-core's words.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Key(&'static str),
    /// sim-core's problem, worded by the page.
    Msg(crate::messages::Msg),
}

/// The contract being edited.
#[derive(Clone, Debug, PartialEq)]
pub struct ContractForm {
    pub example: Contract,
    pub contract: Contract,
    /// Run against the lab's scenario instead of the contract's own workload.
    pub use_lab: bool,
    /// Fields whose text could not be read: path, translation key.
    pub local: Vec<(&'static str, &'static str)>,
    /// Bumped when the form must show new values (reset, import).
    pub version: u32,
}

impl ContractForm {
    pub fn new(example: Contract) -> ContractForm {
        ContractForm { contract: example.clone(), example, use_lab: true, local: Vec::new(), version: 0 }
    }

    /// The contract as it is run: the lab's scenario as the workload, or its own.
    pub fn effective(&self, lab: Option<&Scenario>) -> Contract {
        let mut c = self.contract.clone();
        if let (true, Some(s)) = (self.use_lab, lab) {
            c.workload = s.clone();
        }
        c
    }

    /// A form element changed: `field` is a numeric field's path, `model.id`, `model.dtype`,
    /// `resources.gpu` or `use_lab`.
    pub fn edit(&mut self, field: &str, value: &str, checked: bool) {
        let c = &mut self.contract;
        match field {
            "use_lab" => self.use_lab = checked,
            "model.id" => c.model.id = value.to_string(),
            "model.dtype" => c.model.dtype = Dtype::parse(value).unwrap_or(Dtype::Bf16),
            "resources.gpu" => c.resources.gpu = value.to_string(),
            path => {
                let Some(f) = Field::find(path) else { return };
                self.local.retain(|(p, _)| *p != f.path);
                match f.parse(value) {
                    Ok(v) => f.set(c, v),
                    Err(key) => self.local.push((f.path, key)),
                }
            }
        }
    }

    /// Back to the example, on the lab's scenario.
    pub fn reset(&mut self) {
        *self = ContractForm { version: self.version + 1, ..ContractForm::new(self.example.clone()) };
    }

    /// Reads a contract's JSON into the form (on its own workload).
    pub fn import(&mut self, text: &str) -> Result<(), ScenarioError> {
        self.contract = Contract::from_json(text)?;
        self.use_lab = false;
        self.local.clear();
        self.version += 1;
        Ok(())
    }

    /// The message beside a field: what could not be read, else sim-core's validation message.
    pub fn message(&self, path: &str, errors: Option<&ScenarioError>) -> Option<Message> {
        if let Some((_, key)) = self.local.iter().find(|(p, _)| *p == path) {
            return Some(Message::Key(key));
        }
        errors?.errors.iter().find(|f| f.field == path).map(|f| Message::Msg(crate::messages::field_message(f, &[])))
    }
}

/// Why a contract cannot run (sim-core's validation of its JSON), if it cannot.
pub fn validate(c: &Contract) -> Option<ScenarioError> {
    Contract::from_json(&c.to_json_pretty()).err()
}

/// A report on screen: the contract it checked, so the page can say when the form changed since.
#[derive(Clone, Debug)]
pub struct Reported {
    pub contract: Contract,
    pub report: ContractReport,
}

impl Reported {
    pub fn failed(&self) -> usize {
        self.report.lines.iter().filter(|l| !l.pass).count()
    }

    /// The form no longer says what this report checked.
    pub fn stale(&self, now: &Contract) -> bool {
        self.contract != *now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_content::contract::EXAMPLE;

    fn form() -> ContractForm {
        ContractForm::new(Contract::from_json(EXAMPLE).expect("example"))
    }

    #[test]
    fn every_field_reads_and_writes_its_own_value() {
        let mut c = form().contract;
        for (i, f) in FIELDS.iter().enumerate() {
            let v = if f.integer { i as f64 + 3.0 } else { 0.25 + i as f64 / 100.0 };
            f.set(&mut c, Some(v));
            assert_eq!(f.get(&c), Some(v), "{}", f.path);
            assert!(f.label_key().starts_with("features.contract.f."));
        }
        // and no two fields share a place
        for (i, f) in FIELDS.iter().enumerate() {
            let v = if f.integer { i as f64 + 3.0 } else { 0.25 + i as f64 / 100.0 };
            assert_eq!(f.get(&c), Some(v), "{}", f.path);
        }
        assert_eq!(Group::ALL.iter().map(|g| Field::of(*g).count()).sum::<usize>(), FIELDS.len());
    }

    #[test]
    fn typed_text_becomes_a_value_or_a_message_beside_its_field() {
        let mut f = form();
        f.edit("slo.ttft_p99_ms", "1,500", false);
        assert_eq!(f.contract.slo.ttft_p99_ms, Some(1500.0));
        f.edit("slo.ttft_p99_ms", "", false);
        assert_eq!(f.contract.slo.ttft_p99_ms, None, "empty is no target");
        f.edit("request_limits.max_concurrency", "2.5", false);
        assert_eq!(f.message("request_limits.max_concurrency", None), Some(Message::Key("features.sweep.err.whole")));
        f.edit("request_limits.max_concurrency", "abc", false);
        assert_eq!(f.local.len(), 1);
        f.edit("request_limits.max_concurrency", "0", false);
        assert!(f.local.is_empty());
        // sim-core's range check, beside the field
        let errors = validate(&f.effective(None));
        let msg = f.message("request_limits.max_concurrency", errors.as_ref());
        let Some(Message::Msg(m)) = msg else { panic!("{errors:?}") };
        assert_eq!(m.key, "msg.range", "{errors:?}");
        assert_eq!(m.args[0], ("label", crate::messages::Arg::Label("features.contract.f.max_concurrency".into())));
        // a decimal comma is refused, not read as 9
        f.edit("resources.gpu_memory_utilization", "0,9", false);
        assert_eq!(f.message("resources.gpu_memory_utilization", None), Some(Message::Key("msg.form.comma")));
        f.edit("model.dtype", "fp8", false);
        assert_eq!(f.contract.model.dtype, Dtype::Fp8);
    }

    #[test]
    fn import_reset_and_the_lab_workload() {
        let mut f = form();
        let lab = sim_core::Scenario::from_json(sim_core::presets::PRESETS[0].json).expect("preset");
        assert_eq!(f.effective(Some(&lab)).workload, lab);
        assert!(f.import(r#"{"version": 1, "model": {"id": "llama-3-8b"}}"#).is_err());
        let json = f.example.to_json_pretty();
        f.import(&json).expect("the example imports");
        assert!(!f.use_lab);
        assert_ne!(f.effective(Some(&lab)).workload, lab);
        f.edit("slo.ttft_p99_ms", "x", false);
        let v = f.version;
        f.reset();
        assert!(f.use_lab && f.local.is_empty() && f.contract == f.example && f.version == v + 1);
    }

    #[test]
    fn report_lines_are_named_by_their_field() {
        assert_eq!(
            line_key("request_limits.max_concurrency").as_deref(),
            Some("features.contract.line.max_concurrency")
        );
        assert_eq!(line_key("slo.ttft_p99_ms").as_deref(), Some("features.contract.f.ttft_p99_ms"));
        assert_eq!(line_key("model.fits"), None);
    }
}
