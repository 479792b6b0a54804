//! The settings whose JSON form cannot say how they are read or written: the model's and the
//! GPU's catalogue ids, the engine profile (choosing one sets what it governs), switching an
//! arrival process or a length distribution's kind, speculative decoding and disaggregation
//! switched on and off, and fields left out of the JSON at their defaults.

use super::Value;
use crate::catalog;
use crate::message::Problem;
use crate::scenario::{self as sc, Arrival, Engine, GpuRef, LengthDist, ModelRef, Policy, Scenario};
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

pub(super) fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

pub(super) fn text_of(v: &Value) -> Result<&str, Problem> {
    match v {
        Value::Text(t) => Ok(t),
        _ => Err(Problem::WrongKind),
    }
}

// read directly: the field is left out of the JSON while it is 0
pub(super) fn other_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Number(s.other_process_gib))
}

pub(super) fn other_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    match v {
        Value::Number(x) => {
            s.other_process_gib = *x;
            Ok(())
        }
        _ => Err(Problem::WrongKind),
    }
}

pub(super) fn engine_names() -> Vec<String> {
    Engine::ALL.iter().map(|e| e.name().to_string()).collect()
}

pub(super) fn profile_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.engine_profile.name().to_string()))
}

/// Chooses another engine profile: its scheduler defaults replace the scheduler settings it
/// governs that are still at the old profile's defaults, a limit the user set stays
/// (`Scenario::set_engine_profile`; choosing the one in use changes nothing).
pub(super) fn profile_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let name = text_of(v)?;
    let e = Engine::parse(name).ok_or_else(|| Problem::NotListed { options: engine_names(), got: name.to_string() })?;
    if e != s.engine_profile {
        s.set_engine_profile(e);
    }
    Ok(())
}

// read directly: `replicas` and `router` are left out of the JSON while they are the defaults
pub(super) fn replicas_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Number(s.replicas as f64))
}

pub(super) fn replicas_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    put_json(&mut s.replicas, v)
}

pub(super) fn draft_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(s.speculative.as_ref().map_or(Value::Off, |sp| Value::Number(sp.draft_tokens as f64)))
}

/// Switching speculation on gives a draft head (no cost) whose tokens are accepted at 0.8, as
/// the `speculative` preset's; switching it off forgets the draft.
pub(super) fn draft_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    match (v, s.speculative.as_mut()) {
        (Value::Off, _) => s.speculative = None,
        (_, Some(sp)) => put_json(&mut sp.draft_tokens, v)?,
        (_, None) => {
            let mut k: u32 = 0;
            put_json(&mut k, v)?;
            s.speculative = Some(sc::SpeculativeConfig { draft_tokens: k, acceptance_rate: 0.8, draft_model: None });
        }
    }
    Ok(())
}

pub(super) fn prefill_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(s.disaggregation.as_ref().map_or(Value::Off, |d| Value::Number(d.prefill_replicas as f64)))
}

/// Switching disaggregation on splits the replicas there are (at least one of each pool, over
/// 50 GB/s links with 20 µs latency); switching it off leaves as many colocated replicas.
pub(super) fn prefill_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    match (v, s.disaggregation.as_mut()) {
        (Value::Off, None) => {}
        (Value::Off, Some(d)) => {
            s.replicas = d.replicas().max(1);
            s.disaggregation = None;
        }
        (_, Some(d)) => put_json(&mut d.prefill_replicas, v)?,
        (_, None) => {
            let mut prefill = 1;
            put_json(&mut prefill, v)?;
            let decode = s.replicas.saturating_sub(prefill).max(1);
            s.disaggregation = Some(sc::DisaggConfig {
                prefill_replicas: prefill,
                decode_replicas: decode,
                kv_link_gbps: 50.0,
                kv_link_latency_us: 20.0,
                prefill_num_gpus: None,
                decode_num_gpus: None,
            });
            s.replicas = 1;
        }
    }
    Ok(())
}

pub(super) fn policy_names() -> Vec<String> {
    Policy::ALL.iter().map(|p| p.name().to_string()).collect()
}

pub(super) fn policy_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.router.policy.name().to_string()))
}

pub(super) fn policy_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let name = text_of(v)?;
    s.router.policy =
        Policy::parse(name).ok_or_else(|| Problem::NotListed { options: policy_names(), got: name.to_string() })?;
    Ok(())
}

pub(super) fn load_cap_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Number(s.router.load_cap))
}

pub(super) fn load_cap_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    put_json(&mut s.router.load_cap, v)
}

/// Writes a number into a typed field the way serde reads it (`5.5` is no `u32`).
pub(super) fn put_json<T: DeserializeOwned>(field: &mut T, v: &Value) -> Result<(), Problem> {
    let Value::Number(x) = v else { return Err(Problem::WrongKind) };
    let json = serde_json::Number::from_f64(*x).map(Json::Number).ok_or(Problem::WrongKind)?;
    let json = match json.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => Json::from(f as i64),
        _ => json,
    };
    *field = serde_json::from_value(json).map_err(|e| Problem::parse(&e))?;
    Ok(())
}

pub(super) fn model_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.model.id().to_string()))
}

/// Switches to a catalogue model; a context limit beyond the new model's is lowered to it.
pub(super) fn model_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let id = text_of(v)?;
    s.model = ModelRef::Id(id.to_string());
    if let Some(m) = catalog::find_model(id) {
        s.scheduler.max_model_len = s.scheduler.max_model_len.min(m.max_context);
    }
    Ok(())
}

pub(super) fn gpu_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.gpu.id().to_string()))
}

/// Switches to a catalogue GPU; a price set for another GPU gives way to the catalogue price.
pub(super) fn gpu_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let id = text_of(v)?;
    if s.gpu.id() != id {
        s.gpu = GpuRef::Id(id.to_string());
        s.gpu_usd_per_hour = None;
    }
    Ok(())
}

pub(super) fn arrival_get(s: &Scenario, i: usize) -> Option<Value> {
    Some(Value::Text(s.classes[i].arrival.kind().to_string()))
}

/// Switches a class's arrival process, keeping its rate; a trace gives each request's arrival
/// and lengths, so switching to one drops them and switching back restores typical ones.
pub(super) fn arrival_set(s: &mut Scenario, i: usize, v: &Value) -> Result<(), Problem> {
    let kind = text_of(v)?;
    let c = &mut s.classes[i];
    if c.arrival.kind() == kind {
        return Ok(());
    }
    let rate = match c.arrival {
        Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => rate_per_s,
        _ => 5.0,
    };
    let was_trace = matches!(c.arrival, Arrival::Trace { .. });
    c.arrival = match kind {
        "poisson" => Arrival::Poisson { rate_per_s: rate },
        "bursty" => Arrival::Bursty { rate_per_s: rate, cv: 3.0 },
        "closed_loop" => Arrival::ClosedLoop { users: 32, think_time_ms: 2000.0 },
        "trace" => Arrival::Trace { path: catalog::BUILTIN_TRACES[0].0.to_string(), speedup: 1.0 },
        other => return Err(Problem::NotListed { options: names(&Arrival::KINDS), got: other.to_string() }),
    };
    if kind == "trace" {
        c.num_requests = None;
        c.input_tokens = None;
        c.output_tokens = None;
    } else if was_trace {
        c.num_requests = Some(1000);
        c.input_tokens = Some(LengthDist::Lognormal { mean: 1000.0, sigma: 0.7 });
        c.output_tokens = Some(LengthDist::Lognormal { mean: 250.0, sigma: 0.6 });
    }
    Ok(())
}

pub(super) fn input_kind_get(s: &Scenario, i: usize) -> Option<Value> {
    s.classes[i].input_tokens.as_ref().map(|d| Value::Text(d.kind().to_string()))
}
pub(super) fn output_kind_get(s: &Scenario, i: usize) -> Option<Value> {
    s.classes[i].output_tokens.as_ref().map(|d| Value::Text(d.kind().to_string()))
}
pub(super) fn input_kind_set(s: &mut Scenario, i: usize, v: &Value) -> Result<(), Problem> {
    set_len_kind(&mut s.classes[i].input_tokens, text_of(v)?)
}
pub(super) fn output_kind_set(s: &mut Scenario, i: usize, v: &Value) -> Result<(), Problem> {
    set_len_kind(&mut s.classes[i].output_tokens, text_of(v)?)
}

/// Switches a length distribution's kind around its typical length (same kind: unchanged).
pub(super) fn set_len_kind(slot: &mut Option<LengthDist>, kind: &str) -> Result<(), Problem> {
    if slot.as_ref().is_some_and(|d| d.kind() == kind) {
        return Ok(());
    }
    let typical = slot.as_ref().map_or(500.0, LengthDist::typical).max(1.0);
    *slot = Some(match kind {
        "fixed" => LengthDist::Fixed { value: typical.round() as u32 },
        "uniform" => LengthDist::Uniform {
            min: (typical / 2.0).round().max(1.0) as u32,
            max: (typical * 1.5).round().max(1.0) as u32,
        },
        "lognormal" => LengthDist::Lognormal { mean: typical.round(), sigma: 0.6 },
        other => return Err(Problem::NotListed { options: names(&LengthDist::KINDS), got: other.to_string() }),
    });
    Ok(())
}
