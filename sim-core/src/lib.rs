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

pub mod catalog;
pub mod cluster;
pub mod decimal;
pub mod disagg;
pub mod json_path;
pub mod memory;
pub mod message;
pub mod metric;
pub mod metrics;
pub mod perf;
pub mod presets;
pub mod pretty;
pub mod profile;
pub mod scenario;
pub mod session;
pub mod settings;
pub mod share;
pub mod sim;
pub mod speculative;
mod tagged;
pub mod workload;

pub use catalog::{Dtype, GpuSpec, ModelSpec};
pub use memory::HbmPlan;
pub use message::Problem;
pub use metric::{Metric, MetricRef, Op, Unit};
pub use metrics::{ClassSummary, Dist, RequestRecord, Sample, Summary};
pub use scenario::{Scenario, ScenarioError};
pub use sim::{LiveRequest, Phase, SimOptions, Simulation, Snapshot, TraceLoader};

/// `skip_serializing_if` for figures that are absent while they are zero (a summary's draft-model
/// memory, a model's optional dimensions, a scenario's memory held by other processes).
pub(crate) fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}
