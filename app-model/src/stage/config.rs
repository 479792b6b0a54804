//! What the stage reads of a run: the scenario's facts once per run ([`StageConfig`]), the values
//! refreshed at the calm tick ([`StageCalm`]), and each frame's readings ([`Readings`]).

use sim_core::metrics::Counts;
use sim_core::sim::{RecentEnding, StepInfo};
use sim_core::{LiveRequest, Simulation};

use crate::stage_layout::Cluster;

/// Scenario facts the stage needs, read once per run.
#[derive(Clone, Debug)]
pub struct StageConfig {
    pub isolation: bool,
    /// Most sequences running at once: every replica's batch.
    pub max_num_seqs: usize,
    pub class_names: Vec<String>,
    pub priorities: Vec<u32>,
    pub static_batching: bool,
    /// The replicas, their pools and batch slots.
    pub cluster: Cluster,
}

impl StageConfig {
    pub fn of(sim: &Simulation) -> StageConfig {
        let s = sim.scenario();
        StageConfig {
            isolation: s.lane_per_class(),
            max_num_seqs: s.scheduler.max_num_seqs as usize * sim.replica_count(),
            class_names: sim.class_names().to_vec(),
            priorities: s.classes.iter().map(|c| c.priority).collect(),
            static_batching: s.scheduler.batching == sim_core::scenario::Batching::Static,
            cluster: Cluster {
                replicas: sim.replica_count(),
                prefill_pool: if s.disaggregation.is_some() { s.arrival_replicas() } else { 0 },
                seqs_per_replica: s.scheduler.max_num_seqs as usize,
            },
        }
    }
    pub(super) fn lanes(&self) -> usize {
        if self.isolation {
            self.class_names.len()
        } else {
            1
        }
    }
    pub(super) fn lane_of(&self, class: u16) -> usize {
        if self.isolation {
            class as usize
        } else {
            0
        }
    }
}

/// Values refreshed at the calm tick that the stage prints.
#[derive(Clone, Debug, Default)]
pub struct StageCalm {
    pub counts: Counts,
    pub last_step: StepInfo,
    pub restarting_until_s: Option<f64>,
    /// Each replica's KV fill (empty with one replica).
    pub kv_fill: Vec<f64>,
}

/// What one frame reads of the run.
#[derive(Clone, Copy)]
pub struct Readings<'a> {
    /// Simulated time, s.
    pub now_s: f64,
    pub finished: bool,
    pub live: &'a [LiveRequest],
    /// The simulation's recent endings, oldest first (`Simulation::recent_endings`).
    pub endings: &'a [RecentEnding],
    pub calm: &'a StageCalm,
}
