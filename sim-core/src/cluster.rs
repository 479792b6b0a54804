//! Several replicas behind a router: the scenario's `replicas` and `router` settings, and the
//! router's decision for each arriving request.
//!
//! The router decides from a view of each replica's load ([`Load`]) and returns a [`Route`]; the
//! driver (`sim`) applies it by handing the request to that replica. Deciding never changes a
//! replica, so a route can be checked on its own (`tests/cluster.rs`).
//!
//! Ties are broken in turn: every policy scans the replicas starting after the one chosen last,
//! and a later replica wins only when it is strictly better, so equal replicas take turns instead
//! of the first one taking everything.
//!
//! Each policy declares what it reads ([`reads`]: figures of a replica's [`Load`], the turn, the
//! random stream); the driver works out only the figures the policy reads, and a property test
//! holds every decision unchanged when anything else changes (`tests/cluster.rs`).

use crate::workload::{class_rng, ClassRng};
use rand::Rng;

pub use crate::scenario::{default_load_cap, Policy, RouterConfig};

/// What the router sees of one replica when a request arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Load {
    /// Requests queued and running.
    pub outstanding: u64,
    /// KV pool in use, 0..=1.
    pub kv_used: f64,
    /// Blocks of this request's shared prefix the replica has cached (0 without one).
    pub cached_blocks: u32,
}

/// What a policy may read to pick a replica: a figure of each replica's [`Load`], or the
/// router's own state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// [`Load::outstanding`]: requests queued and running.
    Outstanding,
    /// [`Load::kv_used`]: the share of the KV pool in use.
    KvInUse,
    /// [`Load::cached_blocks`]: blocks of the request's prefix chain in the replica's cache.
    PrefixChain,
    /// The router's seeded random stream.
    Random,
    /// The replica chosen last (whose turn is next; every scan starts after it).
    Turn,
}

impl Input {
    pub const ALL: [Input; 5] = [Input::Outstanding, Input::KvInUse, Input::PrefixChain, Input::Random, Input::Turn];

    /// The name the docs use (`docs/model.md`'s table of policies).
    pub fn name(self) -> &'static str {
        match self {
            Input::Outstanding => "outstanding",
            Input::KvInUse => "kv_in_use",
            Input::PrefixChain => "prefix_chain",
            Input::Random => "random",
            Input::Turn => "turn",
        }
    }
}

/// What `policy` reads to pick a replica: the driver fills only these figures of each
/// [`Load`] (the others stay 0), and the decision changes with nothing else.
pub const fn reads(policy: Policy) -> &'static [Input] {
    match policy {
        Policy::RoundRobin => &[Input::Turn],
        Policy::Random => &[Input::Random],
        // ties in turn
        Policy::LeastOutstanding => &[Input::Outstanding, Input::Turn],
        Policy::LeastKv => &[Input::KvInUse, Input::Turn],
        // the load cap and the fallback read the requests outstanding
        Policy::PrefixAffinity => &[Input::PrefixChain, Input::Outstanding, Input::Turn],
    }
}

/// Which of the costlier figures of a replica's [`Load`] a policy reads, as flags worked out once
/// from its declared inputs when the router is made: the driver looks a replica's KV share or
/// its cache's blocks of the request's prefix up only when they are read. (`outstanding`, a sum
/// of two counters, it always fills in: a branch per replica costs more than the sum.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub kv_in_use: bool,
    pub prefix_chain: bool,
}

impl Figures {
    pub fn of(inputs: &[Input]) -> Figures {
        Figures { kv_in_use: inputs.contains(&Input::KvInUse), prefix_chain: inputs.contains(&Input::PrefixChain) }
    }
}

/// The share of a KV pool in use (`used` of `capacity` blocks; 0 for an empty pool).
#[inline]
pub fn kv_share(used: u64, capacity: u64) -> f64 {
    if capacity > 0 {
        used as f64 / capacity as f64
    } else {
        0.0
    }
}

/// Why a request went where it went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Its turn (round robin), a draw (random), or the least loaded by the policy's measure.
    Policy,
    /// `prefix_affinity`: the replica that holds most of its prefix.
    Affinity,
    /// `prefix_affinity`: no replica holds any of its prefix; the least outstanding one.
    NoneCached,
    /// `prefix_affinity`: the replica holding its prefix was over the load cap.
    OverCap,
}

/// The router's decision for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub replica: usize,
    pub reason: Reason,
}

/// The router's state: the turn, and its random stream.
pub struct Router {
    config: RouterConfig,
    n: usize,
    /// The replica chosen last (scans start after it).
    last: usize,
    rng: ClassRng,
    /// The figures its policy reads ([`reads`]).
    figures: Figures,
}

/// The random stream of the router (the classes use streams 1–3).
const ROUTER_STREAM: u64 = 11;

impl Router {
    pub fn new(config: &RouterConfig, replicas: usize, seed: u64) -> Router {
        Router {
            config: config.clone(),
            n: replicas.max(1),
            last: replicas.max(1) - 1,
            rng: class_rng(seed, 0, ROUTER_STREAM),
            figures: Figures::of(reads(config.policy)),
        }
    }

    /// The figures of a replica's load this router's policy reads.
    pub fn figures(&self) -> Figures {
        self.figures
    }

    /// Most a replica may carry, this request included, before `prefix_affinity` looks
    /// elsewhere: ⌈load_cap × (outstanding requests + 1) ÷ replicas⌉, the capacity of
    /// consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam 2018).
    pub fn cap(&self, loads: &[Load]) -> u64 {
        let total: u64 = loads.iter().map(|l| l.outstanding).sum::<u64>() + 1;
        (self.config.load_cap * total as f64 / self.n as f64).ceil() as u64
    }

    /// Picks a replica for the next request from the replicas' loads (one per replica).
    pub fn route(&mut self, loads: &[Load]) -> Route {
        debug_assert_eq!(loads.len(), self.n);
        let route = match self.config.policy {
            Policy::RoundRobin => Route { replica: (self.last + 1) % self.n, reason: Reason::Policy },
            Policy::Random => {
                Route { replica: self.rng.random_range(0..self.n as u32) as usize, reason: Reason::Policy }
            }
            Policy::LeastOutstanding => {
                Route { replica: self.best(loads, |l| l.outstanding as f64), reason: Reason::Policy }
            }
            Policy::LeastKv => Route { replica: self.best(loads, |l| l.kv_used), reason: Reason::Policy },
            Policy::PrefixAffinity => {
                let home = self.best(loads, |l| -(l.cached_blocks as f64));
                let least = || self.best(loads, |l| l.outstanding as f64);
                if loads[home].cached_blocks == 0 {
                    Route { replica: least(), reason: Reason::NoneCached }
                } else if loads[home].outstanding + 1 > self.cap(loads) {
                    Route { replica: least(), reason: Reason::OverCap }
                } else {
                    Route { replica: home, reason: Reason::Affinity }
                }
            }
        };
        self.last = route.replica;
        route
    }

    /// The replica with the lowest `key`, scanning from the one after the last chosen.
    fn best(&self, loads: &[Load], key: impl Fn(&Load) -> f64) -> usize {
        let n = self.n;
        let next = |i: usize| if i + 1 == n { 0 } else { i + 1 };
        let mut i = next(self.last);
        let (mut best, mut best_key) = (i, key(&loads[i]));
        for _ in 1..n {
            i = next(i);
            let k = key(&loads[i]);
            if k < best_key {
                (best, best_key) = (i, k);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{prop_assert_eq, proptest, Strategy};

    fn loads(outstanding: &[u64]) -> Vec<Load> {
        outstanding.iter().map(|&o| Load { outstanding: o, ..Load::default() }).collect()
    }

    fn router(policy: Policy, n: usize) -> Router {
        Router::new(&RouterConfig { policy, load_cap: 1.25 }, n, 7)
    }

    #[test]
    fn round_robin_takes_turns_whatever_the_load() {
        let mut r = router(Policy::RoundRobin, 3);
        let picks: Vec<usize> = (0..7).map(|_| r.route(&loads(&[9, 0, 0])).replica).collect();
        assert_eq!(picks, [0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn least_outstanding_breaks_ties_in_turn() {
        let mut r = router(Policy::LeastOutstanding, 4);
        // all equal: each in turn
        let picks: Vec<usize> = (0..4).map(|_| r.route(&loads(&[2, 2, 2, 2])).replica).collect();
        assert_eq!(picks, [0, 1, 2, 3]);
        assert_eq!(r.route(&loads(&[3, 1, 2, 1])).replica, 1);
        assert_eq!(r.route(&loads(&[3, 1, 2, 1])).replica, 3);
    }

    #[test]
    fn least_kv_takes_the_emptiest_pool() {
        let mut r = router(Policy::LeastKv, 3);
        let l: Vec<Load> = [0.5, 0.2, 0.9].iter().map(|&k| Load { kv_used: k, ..Load::default() }).collect();
        assert_eq!(r.route(&l).replica, 1);
    }

    #[test]
    fn random_is_seeded_and_covers_every_replica() {
        let picks = |seed| {
            let mut r = Router::new(&RouterConfig { policy: Policy::Random, load_cap: 1.25 }, 4, seed);
            (0..400).map(|_| r.route(&loads(&[0; 4])).replica).collect::<Vec<_>>()
        };
        assert_eq!(picks(3), picks(3));
        assert_ne!(picks(3), picks(4));
        let mut seen = [0u32; 4];
        picks(3).into_iter().for_each(|p| seen[p] += 1);
        // 400 draws over 4: each count is binomial(400, 1/4), mean 100, sd 8.7
        assert!(seen.iter().all(|&c| (60..=140).contains(&c)), "{seen:?}");
    }

    #[test]
    fn prefix_affinity_follows_the_cache_within_the_cap() {
        let mut r = router(Policy::PrefixAffinity, 4);
        let mut l = loads(&[4, 4, 4, 4]);
        // nobody holds the prefix: least outstanding (ties in turn)
        assert_eq!(r.route(&l), Route { replica: 0, reason: Reason::NoneCached });
        l[2].cached_blocks = 5;
        l[1].cached_blocks = 3;
        // cap = ⌈1.25 × 17 / 4⌉ = 6; replica 2 carries 4, 5 with this one
        assert_eq!(r.cap(&l), 6);
        assert_eq!(r.route(&l), Route { replica: 2, reason: Reason::Affinity });
        l[2].outstanding = 6;
        // cap = ⌈1.25 × 19 / 4⌉ = 6 < 7: the least outstanding replica instead
        assert_eq!(r.route(&l), Route { replica: 3, reason: Reason::OverCap });
    }

    /// Replica loads from small numbers (ties are common): (outstanding, KV quarters, cached).
    fn loads_of(raw: &[(u64, u8, u32)]) -> Vec<Load> {
        raw.iter().map(|&(o, k, c)| Load { outstanding: o, kv_used: k as f64 / 4.0, cached_blocks: c }).collect()
    }

    /// The route `policy` picks among `loads` with the router's stream seeded `seed` and the
    /// turn after replica `last`.
    fn decide(policy: Policy, loads: &[Load], seed: u64, last: usize) -> Route {
        let mut r = Router::new(&RouterConfig { policy, load_cap: 1.25 }, loads.len(), seed);
        r.last = last % loads.len();
        r.route(loads)
    }

    /// `loads` with input `input` taken from `other` (the seed and the turn likewise).
    fn changed(
        input: Input,
        loads: &[Load],
        other: &[Load],
        seed: (u64, u64),
        last: (usize, usize),
    ) -> (Vec<Load>, u64, usize) {
        let mut l = loads.to_vec();
        for (x, y) in l.iter_mut().zip(other) {
            match input {
                Input::Outstanding => x.outstanding = y.outstanding,
                Input::KvInUse => x.kv_used = y.kv_used,
                Input::PrefixChain => x.cached_blocks = y.cached_blocks,
                Input::Random | Input::Turn => {}
            }
        }
        let seed = if input == Input::Random { seed.1 } else { seed.0 };
        let last = if input == Input::Turn { last.1 } else { last.0 };
        (l, seed, last)
    }

    type Raw = Vec<(u64, u8, u32)>;
    fn raw(n: usize) -> impl Strategy<Value = Raw> {
        proptest::collection::vec((0..5u64, 0..5u8, 0..3u32), n)
    }

    proptest! {
        /// A decision changes with nothing its policy does not declare it reads.
        #[test]
        fn a_decision_reads_only_what_its_policy_declares(
            p in 0..Policy::ALL.len(),
            (a, b) in (2..7usize).prop_flat_map(|n| (raw(n), raw(n))),
            seed in (0..1000u64, 0..1000u64),
            last in (0..7usize, 0..7usize),
        ) {
            let policy = Policy::ALL[p];
            let (a, b) = (loads_of(&a), loads_of(&b));
            let before = decide(policy, &a, seed.0, last.0);
            for input in Input::ALL.into_iter().filter(|i| !reads(policy).contains(i)) {
                let (l, s, t) = changed(input, &a, &b, seed, last);
                prop_assert_eq!(decide(policy, &l, s, t), before, "{:?} changed with {:?}", policy, input);
            }
        }
    }

    #[test]
    fn every_input_a_policy_declares_can_change_its_decision() {
        use rand::SeedableRng;
        let mut rng = ClassRng::seed_from_u64(5);
        let mut draw = |n: usize| -> Vec<Load> {
            let raw: Raw = (0..n)
                .map(|_| (rng.random_range(0..5u64), rng.random_range(0..5u8), rng.random_range(0..3u32)))
                .collect();
            loads_of(&raw)
        };
        for policy in Policy::ALL {
            for &input in reads(policy) {
                let found = (0..2000).any(|k| {
                    let (a, b) = (draw(4), draw(4));
                    let (seed, last) = ((k, k + 1), (k as usize % 4, (k as usize + 1) % 4));
                    let (l, s, t) = changed(input, &a, &b, seed, last);
                    decide(policy, &l, s, t) != decide(policy, &a, seed.0, last.0)
                });
                assert!(found, "{policy:?} declares {input:?} but never reads it");
            }
        }
    }

    #[test]
    fn the_driver_looks_up_only_what_a_policy_reads() {
        assert_eq!(Figures::of(reads(Policy::LeastKv)), Figures { kv_in_use: true, prefix_chain: false });
        assert_eq!(Figures::of(reads(Policy::PrefixAffinity)), Figures { kv_in_use: false, prefix_chain: true });
        for p in [Policy::RoundRobin, Policy::Random, Policy::LeastOutstanding] {
            assert_eq!(Figures::of(reads(p)), Figures::default(), "{p:?}");
        }
        assert_eq!(kv_share(1, 4), 0.25);
        assert_eq!(kv_share(0, 0), 0.0);
    }

    #[test]
    fn an_idle_cluster_keeps_affinity() {
        // one request in the whole cluster: the cap is ⌈1.25 × 1 / 8⌉ = 1, so the replica with the
        // prefix still takes it
        let mut r = router(Policy::PrefixAffinity, 8);
        let mut l = loads(&[0; 8]);
        l[5].cached_blocks = 1;
        assert_eq!(r.route(&l), Route { replica: 5, reason: Reason::Affinity });
    }
}
