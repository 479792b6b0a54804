//! The model and the GPU a scenario names: a catalogue id or an inline specification.

use super::{Scenario, ScenarioError};
use crate::catalog::{self, GpuSpec, ModelSpec};
use crate::message::Problem;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModelRef {
    Id(String),
    Custom(Box<ModelSpec>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GpuRef {
    Id(String),
    Custom(Box<GpuSpec>),
}

impl ModelRef {
    /// The catalogue id, or the inline model's own id.
    pub fn id(&self) -> &str {
        match self {
            ModelRef::Id(id) => id,
            ModelRef::Custom(m) => &m.id,
        }
    }
}

impl GpuRef {
    /// The catalogue id, or the inline GPU's own id.
    pub fn id(&self) -> &str {
        match self {
            GpuRef::Id(id) => id,
            GpuRef::Custom(g) => &g.id,
        }
    }
}

impl Scenario {
    pub fn model_spec(&self) -> Result<ModelSpec, ScenarioError> {
        match &self.model {
            ModelRef::Id(id) => catalog::find_model(id).ok_or_else(|| not_in_catalogue("model", id)),
            ModelRef::Custom(m) => Ok((**m).clone()),
        }
    }

    pub fn gpu_spec(&self) -> Result<GpuSpec, ScenarioError> {
        match &self.gpu {
            GpuRef::Id(id) => catalog::find_gpu(id).ok_or_else(|| not_in_catalogue("gpu", id)),
            GpuRef::Custom(g) => Ok((**g).clone()),
        }
    }
}

/// `field` names an id the catalogue does not have: the message lists the settings row's options.
fn not_in_catalogue(field: &str, id: &str) -> ScenarioError {
    let ids = match crate::settings::find(field).map(|r| r.kind) {
        Some(crate::settings::Kind::Select { options, .. }) => options(),
        _ => Vec::new(),
    };
    ScenarioError::one(field, Problem::NotListed { options: ids, got: id.to_string() })
}
