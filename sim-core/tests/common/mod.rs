#![allow(dead_code)]
use sim_core::{RequestRecord, Scenario, SimOptions, Simulation, Summary, TraceLoader};
use std::cell::RefCell;
use std::rc::Rc;

/// A scenario from JSON text; panics with the validation message (tests only).
pub fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap_or_else(|e| panic!("invalid test scenario: {e}"))
}

pub fn preset(id: &str) -> Scenario {
    sim_core::presets::find(id).unwrap_or_else(|| panic!("no preset {id}")).scenario()
}

pub fn run(s: &Scenario) -> Summary {
    let mut sim = Simulation::new(s).unwrap_or_else(|e| panic!("{e}"));
    let out = sim.run_to_end();
    sim.check_invariants().unwrap();
    out
}

/// Runs to the end checking the invariants after every event (at most `max_events`); returns
/// the summary and every request's record.
pub fn run_checked(s: &Scenario, max_events: u64) -> (Summary, Vec<RequestRecord>) {
    let mut sim = Simulation::new(s).unwrap_or_else(|e| panic!("{e}"));
    let records = Rc::new(RefCell::new(Vec::new()));
    let sink = records.clone();
    sim.set_request_sink(Box::new(move |r: &RequestRecord| sink.borrow_mut().push(r.clone())));
    let mut events = 0u64;
    while !sim.is_finished() {
        sim.advance_events(1);
        events += 1;
        sim.check_invariants().unwrap_or_else(|e| panic!("after event {events}: {e}"));
        assert!(events < max_events, "no termination");
    }
    let out = sim.summary();
    let records = records.borrow().clone();
    (out, records)
}

/// Serves trace files from memory.
pub struct MemTraces(pub Vec<(&'static str, String)>);

impl TraceLoader for MemTraces {
    fn load(&self, path: &str) -> Result<String, String> {
        self.0.iter().find(|(p, _)| *p == path).map(|(_, t)| t.clone()).ok_or_else(|| format!("no trace {path}"))
    }
}

pub fn with_trace(s: &Scenario, csv: &str) -> Simulation {
    let traces = MemTraces(vec![("t.csv", csv.to_string())]);
    Simulation::with_options(s, &traces, SimOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// A one-class Llama-3-8B / H100 scenario with the given scheduler overrides (JSON fragment
/// inserted into "scheduler") and class body, on the engine alone (no front end, no timing
/// variation: `EngineConfig::gpu_only`), so its times can be worked out by hand.
pub fn llama8b(scheduler_extra: &str, class: &str) -> Scenario {
    let json = format!(
        r#"{{
      "version": 1, "seed": 11, "model": "llama-3-8b", "gpu": "h100-sxm", "num_gpus": 1,
      "dtype": "bf16", "gpu_memory_utilization": 0.9,
      "scheduler": {{ "batching": "continuous", "max_num_seqs": 256, "max_num_batched_tokens": 2048,
        "chunked_prefill": true, "kv_layout": "paged", "block_size": 16, "max_model_len": 8192
        {scheduler_extra} }},
      "classes": [ {class} ]
    }}"#
    );
    let mut s = scenario(&json);
    s.engine = s.engine.gpu_only();
    s
}
