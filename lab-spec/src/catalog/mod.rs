//! The catalogue: GPUs and models the lab knows by name.
//!
//! Every number comes from `shared/reference/gpus.csv` and `models.csv`; the source of each is
//! listed in `docs/model.md`. Capacities in the CSV are in GB as vendors print them; HBM and GDDR
//! parts are built from binary-sized dies, so they are taken as GiB here.
//!
//! The GPUs are in `gpus`, the models and their attention forms in `models`, storage precisions
//! in `dtype`.

mod dtype;
mod gpus;
mod models;
mod traces;

pub use dtype::Dtype;
pub use gpus::{gpus, GpuSpec};
pub use models::model;
pub use models::{gated_deltanet_state_bytes, models, AttentionForm, ModelSpec};
pub use traces::{builtin_trace, BUILTIN_TRACES};

pub fn find_gpu(id: &str) -> Option<GpuSpec> {
    gpus().into_iter().find(|g| g.id == id)
}

pub fn find_model(id: &str) -> Option<ModelSpec> {
    models().into_iter().find(|m| m.id == id)
}

#[cfg(test)]
mod tests;
