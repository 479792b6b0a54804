//! The `router` field of a scenario: how requests are spread over its replicas (the router
//! itself, and its decisions, are `crate::cluster`).

use serde::{Deserialize, Serialize};

/// How the router picks a replica for a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Each replica in turn, whatever its load (a plain load balancer).
    #[default]
    RoundRobin,
    /// A replica drawn uniformly from the run's seeded stream (a Kubernetes Service in iptables
    /// mode behaves so).
    Random,
    /// The replica with the fewest requests queued and running.
    LeastOutstanding,
    /// The replica whose KV pool is least used.
    LeastKv,
    /// The replica that holds the most of this request's shared prefix in its cache, unless it
    /// carries more than its bounded share of the load; then the least outstanding one.
    PrefixAffinity,
}

impl Policy {
    pub const ALL: [Policy; 5] =
        [Policy::RoundRobin, Policy::Random, Policy::LeastOutstanding, Policy::LeastKv, Policy::PrefixAffinity];

    /// The name files and the CLI use.
    pub fn name(self) -> &'static str {
        match self {
            Policy::RoundRobin => "round_robin",
            Policy::Random => "random",
            Policy::LeastOutstanding => "least_outstanding",
            Policy::LeastKv => "least_kv",
            Policy::PrefixAffinity => "prefix_affinity",
        }
    }

    pub fn parse(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The router in front of the replicas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    #[serde(default)]
    pub policy: Policy,
    /// `prefix_affinity`: the most a replica may carry, as a multiple of the mean load, before
    /// a request that prefers it goes to the least outstanding replica instead.
    #[serde(default = "default_load_cap")]
    pub load_cap: f64,
}

pub fn default_load_cap() -> f64 {
    1.25
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig { policy: Policy::default(), load_cap: default_load_cap() }
    }
}

impl RouterConfig {
    pub fn is_default(&self) -> bool {
        *self == RouterConfig::default()
    }
}
