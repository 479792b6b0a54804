//! Reading a scenario: the file's form ([`ScenarioFile`], the scheduler's profile fields and the
//! engine constants optional), filled in from the engine profile, then validated.

use super::{ClassConfig, EngineFile, GpuRef, ModelRef, Scenario, ScenarioError, SchedulerFile};
use super::{DisaggConfig, Engine, RouterConfig, SpeculativeConfig};
use crate::catalog::{self, Dtype};
use crate::message::Problem;
use serde::Deserialize;

fn default_num_gpus() -> u32 {
    1
}

/// A scenario as a file gives it ([`Scenario`]'s fields, the scheduler's profile fields
/// optional); reading one fills them from the engine profile.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScenarioFile {
    version: u32,
    #[serde(default)]
    name: Option<String>,
    seed: u64,
    model: ModelRef,
    gpu: GpuRef,
    #[serde(default = "default_num_gpus")]
    num_gpus: u32,
    dtype: Dtype,
    #[serde(default)]
    kv_dtype: Option<Dtype>,
    gpu_memory_utilization: f64,
    #[serde(default)]
    other_process_gib: f64,
    #[serde(default)]
    gpu_usd_per_hour: Option<f64>,
    #[serde(default)]
    engine_profile: Engine,
    #[serde(default)]
    scheduler: SchedulerFile,
    #[serde(default)]
    engine: EngineFile,
    #[serde(default = "default_num_gpus")]
    replicas: u32,
    #[serde(default)]
    router: RouterConfig,
    classes: Vec<ClassConfig>,
    #[serde(default)]
    speculative: Option<SpeculativeConfig>,
    #[serde(default)]
    disaggregation: Option<DisaggConfig>,
}

impl From<ScenarioFile> for Scenario {
    fn from(f: ScenarioFile) -> Scenario {
        let context = match &f.model {
            ModelRef::Id(id) => catalog::find_model(id).map(|m| m.max_context),
            ModelRef::Custom(m) => Some(m.max_context),
        };
        let gpu = match &f.gpu {
            GpuRef::Id(id) => catalog::find_gpu(id),
            GpuRef::Custom(g) => Some((**g).clone()),
        };
        // an unknown model gets a context for the defaults; validation names the model
        let defaults = f.engine_profile.defaults(gpu.as_ref(), context.unwrap_or(8192));
        Scenario {
            version: f.version,
            name: f.name,
            seed: f.seed,
            model: f.model,
            gpu: f.gpu,
            num_gpus: f.num_gpus,
            dtype: f.dtype,
            kv_dtype: f.kv_dtype,
            gpu_memory_utilization: f.gpu_memory_utilization,
            other_process_gib: f.other_process_gib,
            gpu_usd_per_hour: f.gpu_usd_per_hour,
            engine_profile: f.engine_profile,
            scheduler: f.scheduler.resolve(defaults),
            engine: f.engine.resolve(f.engine_profile.constants()),
            replicas: f.replicas,
            router: f.router,
            classes: f.classes,
            speculative: f.speculative,
            disaggregation: f.disaggregation,
        }
    }
}

impl Scenario {
    /// Parses and validates a scenario; errors name the field (`scheduler.max_num_seqs`).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario: Scenario = crate::json_path::from_str(text).map_err(|(path, e)| {
            let path = if path == "." { String::new() } else { path };
            // serde_json appends " at line L column C"; keep it, it helps with files.
            ScenarioError::one(path, Problem::parse(&e))
        })?;
        scenario.validate()?;
        Ok(scenario)
    }
}
