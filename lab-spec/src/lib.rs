//! # lab-spec: what the LLM Serving Lab's words mean
//!
//! The vocabulary every other crate speaks, and its file formats: the catalogue of GPUs, models
//! and traces ([`catalog`]), scenarios and their validation ([`scenario`]), engine profiles'
//! defaults ([`profile`]), the settings table with each setting's range ([`settings`]), typed
//! metrics ([`metric`]) and the summary they are read from ([`metrics`]), problems as data
//! ([`message`]), built-in scenarios ([`presets`]), the share-link format ([`share`]), and the
//! exact decimals, JSON paths and pretty-printing these need.
//!
//! No simulation: nothing here runs a request, draws a random number or computes a step's time
//! (that is sim-core, built on this crate). No locale, panel, test id, clock or I/O.

pub mod catalog;
pub mod decimal;
mod fix;
pub mod json_path;
pub mod message;
pub mod metric;
pub mod metrics;
pub mod presets;
pub mod pretty;
pub mod profile;
pub mod scenario;
pub mod settings;
pub mod share;
mod tagged;
mod value;

pub use catalog::{Dtype, GpuSpec, ModelSpec};
pub use message::Problem;
pub use metric::{Metric, MetricRef, Op, Unit};
pub use metrics::{ClassSummary, Dist, RequestRecord, Sample, Summary};
pub use scenario::{Scenario, ScenarioError};

/// `skip_serializing_if` for figures that are absent while they are zero (a summary's draft-model
/// memory, a model's optional dimensions, a scenario's memory held by other processes).
#[doc(hidden)]
pub fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}
