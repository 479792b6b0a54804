//! # sim-core: the model of the LLM Serving Lab
//!
//! A deterministic discrete-event simulation of LLM serving replicas: requests arrive
//! ([`workload`]), are routed to a replica ([`cluster`]), wait in queues, are scheduled into iterations of prefill chunks and decode
//! tokens ([`sim`]), each iteration takes the time the virtual GPU needs ([`perf`]), KV cache is
//! allocated from the memory left after weights and activations ([`memory`]), and every request
//! is measured with vLLM's benchmark definitions ([`metrics`]).
//!
//! No wall clock, no I/O, no UI: the browser app and the CLI drive it and serialise at the edge.
//! The same scenario and seed give the same numbers natively and in wasm.

pub mod ceiling;
pub mod cluster;
pub mod disagg;
pub mod frontend;
pub mod memory;
pub mod metrics;
pub mod perf;
pub mod session;
pub mod sim;
pub mod speculative;
pub mod workload;

// The vocabulary the engine reads and writes, re-exported so that a user of the engine needs
// one crate: `sim_core::scenario` is `lab_spec::scenario`.
pub use lab_spec::{catalog, decimal, json_path, message, metric, presets, pretty, profile, scenario, settings, share};

pub use catalog::{Dtype, GpuSpec, ModelSpec};
pub use memory::HbmPlan;
pub use message::Problem;
pub use metric::{Metric, MetricRef, Op, Unit};
pub use metrics::{ClassSummary, Dist, RequestRecord, Sample, Summary};
pub use scenario::{Scenario, ScenarioError};
pub use sim::{LiveRequest, Phase, SimOptions, Simulation, Snapshot, TraceLoader};

use lab_spec::is_zero_f64;
