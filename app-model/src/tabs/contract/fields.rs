//! The contract form's fields: one table of the contract's numeric fields (path, group, whether
//! it may be empty or must be whole), reading what was typed into one, and what a report line
//! checks. `messages` names a contract field by its label from here.

use lab_content::contract::Contract;

/// The form's groups, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Model,
    Limits,
    Resources,
    Slo,
    Acceptance,
    Workload,
}

impl Group {
    pub const ALL: [Group; 6] =
        [Group::Model, Group::Limits, Group::Resources, Group::Slo, Group::Acceptance, Group::Workload];

    pub fn key(self) -> &'static str {
        match self {
            Group::Model => "features.contract.g.model",
            Group::Limits => "features.contract.g.limits",
            Group::Resources => "features.contract.g.resources",
            Group::Slo => "features.contract.g.slo",
            Group::Acceptance => "features.contract.g.acceptance",
            Group::Workload => "features.contract.g.workload",
        }
    }
}

/// A numeric field of the contract: its path, group, and whether it may be empty ("no target")
/// or must be a whole number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub path: &'static str,
    pub group: Group,
    pub optional: bool,
    pub integer: bool,
}

const fn f(path: &'static str, group: Group, optional: bool, integer: bool) -> Field {
    Field { path, group, optional, integer }
}

/// Every numeric field, in the form's order.
pub static FIELDS: [Field; 16] = [
    f("request_limits.max_input_tokens", Group::Limits, false, true),
    f("request_limits.max_output_tokens", Group::Limits, false, true),
    f("request_limits.max_concurrency", Group::Limits, false, true),
    f("request_limits.max_rate_per_s", Group::Limits, true, false),
    f("resources.num_gpus", Group::Resources, false, true),
    f("resources.gpu_memory_utilization", Group::Resources, false, false),
    f("slo.ttft_p95_ms", Group::Slo, true, false),
    f("slo.ttft_p99_ms", Group::Slo, true, false),
    f("slo.tpot_p99_ms", Group::Slo, true, false),
    f("slo.e2e_p99_ms", Group::Slo, true, false),
    f("slo.goodput_min_req_s", Group::Slo, true, false),
    f("acceptance.min_slo_attainment", Group::Acceptance, true, false),
    f("acceptance.max_error_rate", Group::Acceptance, true, false),
    f("acceptance.max_oom_restarts", Group::Acceptance, true, true),
    f("acceptance.max_usd_per_million_good_tokens", Group::Acceptance, true, false),
    f("acceptance.min_kv_headroom", Group::Acceptance, true, false),
];

/// Where a field's value lives in a contract.
enum Slot<'a> {
    U32(&'a mut u32),
    F64(&'a mut f64),
    OptF64(&'a mut Option<f64>),
    OptU64(&'a mut Option<u64>),
}

fn slot<'a>(c: &'a mut Contract, path: &str) -> Option<Slot<'a>> {
    let (l, r, s, a) = (&mut c.request_limits, &mut c.resources, &mut c.slo, &mut c.acceptance);
    Some(match path {
        "request_limits.max_input_tokens" => Slot::U32(&mut l.max_input_tokens),
        "request_limits.max_output_tokens" => Slot::U32(&mut l.max_output_tokens),
        "request_limits.max_concurrency" => Slot::U32(&mut l.max_concurrency),
        "request_limits.max_rate_per_s" => Slot::OptF64(&mut l.max_rate_per_s),
        "resources.num_gpus" => Slot::U32(&mut r.num_gpus),
        "resources.gpu_memory_utilization" => Slot::F64(&mut r.gpu_memory_utilization),
        "slo.ttft_p95_ms" => Slot::OptF64(&mut s.ttft_p95_ms),
        "slo.ttft_p99_ms" => Slot::OptF64(&mut s.ttft_p99_ms),
        "slo.tpot_p99_ms" => Slot::OptF64(&mut s.tpot_p99_ms),
        "slo.e2e_p99_ms" => Slot::OptF64(&mut s.e2e_p99_ms),
        "slo.goodput_min_req_s" => Slot::OptF64(&mut s.goodput_min_req_s),
        "acceptance.min_slo_attainment" => Slot::OptF64(&mut a.min_slo_attainment),
        "acceptance.max_error_rate" => Slot::OptF64(&mut a.max_error_rate),
        "acceptance.max_oom_restarts" => Slot::OptU64(&mut a.max_oom_restarts),
        "acceptance.max_usd_per_million_good_tokens" => Slot::OptF64(&mut a.max_usd_per_million_good_tokens),
        "acceptance.min_kv_headroom" => Slot::OptF64(&mut a.min_kv_headroom),
        _ => return None,
    })
}

impl Field {
    pub fn find(path: &str) -> Option<&'static Field> {
        FIELDS.iter().find(|f| f.path == path)
    }

    /// The fields of a group.
    pub fn of(group: Group) -> impl Iterator<Item = &'static Field> {
        FIELDS.iter().filter(move |f| f.group == group)
    }

    /// Translation key of the field's label.
    pub fn label_key(&self) -> String {
        format!("features.contract.f.{}", self.path.rsplit('.').next().unwrap_or(self.path))
    }

    pub fn get(&self, c: &Contract) -> Option<f64> {
        let mut c = c.clone();
        match slot(&mut c, self.path)? {
            Slot::U32(v) => Some(f64::from(*v)),
            Slot::F64(v) => Some(*v),
            Slot::OptF64(v) => *v,
            Slot::OptU64(v) => v.map(|x| x as f64),
        }
    }

    pub(super) fn set(&self, c: &mut Contract, v: Option<f64>) {
        match slot(c, self.path) {
            Some(Slot::U32(x)) => *x = v.unwrap_or(0.0).clamp(0.0, f64::from(u32::MAX)) as u32,
            Some(Slot::F64(x)) => *x = v.unwrap_or(0.0),
            Some(Slot::OptF64(x)) => *x = v,
            Some(Slot::OptU64(x)) => *x = v.map(|x| x.max(0.0) as u64),
            None => {}
        }
    }

    /// Reads what was typed: empty is "no target" for an optional field. The error is a
    /// translation key.
    pub fn parse(&self, text: &str) -> Result<Option<f64>, &'static str> {
        use crate::controls::{read_decimal, TypedError};
        match read_decimal(text) {
            Err(TypedError::Empty) if self.optional => Ok(None),
            Ok(v) if !self.integer || (v.fract() == 0.0 && v >= 0.0) => Ok(Some(v)),
            Ok(_) => Err("features.sweep.err.whole"),
            // "0,9" is refused, never read as 9
            Err(TypedError::DecimalComma { .. }) => Err("msg.form.comma"),
            Err(_) => Err("features.sweep.err.number"),
        }
    }
}

/// What a report line checks, as a translation key (`None`: show the field's path).
pub fn line_key(field: &str) -> Option<String> {
    match field {
        "request_limits.max_concurrency" | "request_limits.max_rate_per_s" => {
            Some(format!("features.contract.line.{}", field.rsplit('.').next().unwrap_or(field)))
        }
        f if f.starts_with("slo.") || f.starts_with("acceptance.") => Field::find(f).map(Field::label_key),
        _ => None,
    }
}
