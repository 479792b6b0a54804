//! A cluster run's replica tiles as data: each replica's load against the busiest one's, its KV
//! fill, the requests the router sent it and its prefix hits; the router's line and its
//! imbalance. Only with more than one replica (sim-core gives no replica lines with one).

use sim_core::metric::Metric;
use sim_core::metrics::Summary;
use sim_core::sim::{Pool, ReplicaView};

use super::Text;
use crate::format;

/// One replica's tile.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    /// Waiting and running against the busiest replica's, in [0, 1].
    pub load_share: f64,
    /// KV allocated ÷ its pool, in [0, 1].
    pub kv_share: f64,
    /// Its pool with disaggregation (`prefill`, `decode`; the `data-pool` and the label's key).
    pub pool: Option<&'static str>,
    pub restarting: bool,
    /// "3 waiting · 8 running · KV 41.0 % · 120 requests".
    pub line: Text,
    pub hits: Option<Text>,
    pub sending: Option<Text>,
}

/// The replicas beside the stage.
#[derive(Clone, Debug, PartialEq)]
pub struct Replicas {
    /// The replicas (or the pools with disaggregation) and the router's policy: the words
    /// without the policy's name, and the translation key of that name (`policy`).
    pub head: Option<(Text, String)>,
    /// The router's imbalance, two decimals.
    pub imbalance: Option<String>,
    pub tiles: Vec<Tile>,
}

impl Replicas {
    /// The head in words: the replicas (or pools) and the router's policy by its name.
    pub fn head_words(&self, w: &dyn crate::words::Words) -> Option<String> {
        self.head.as_ref().map(|(words, policy)| {
            let mut args = words.args.clone();
            args.push(("policy", w.t(policy)));
            w.tf(words.key, &args)
        })
    }

    /// The tiles of a run's replicas now, with its summary; `None` with one replica.
    pub fn new(lines: &[ReplicaView], s: &Summary) -> Option<Replicas> {
        if lines.is_empty() {
            return None;
        }
        let most = lines.iter().map(|l| l.queued + l.running).max().unwrap_or(0).max(1);
        let head = s.router.as_ref().map(|r| {
            let words = match s.disaggregation {
                Some(d) => Text {
                    key: "replicas.router_pd",
                    args: vec![("p", d.prefill_replicas.to_string()), ("d", d.decode_replicas.to_string())],
                },
                None => Text { key: "replicas.router", args: vec![("n", lines.len().to_string())] },
            };
            (words, format!("replicas.policy.{}", r.policy))
        });
        let imbalance = s.router.as_ref().map(|_| format!("{:.2}", Metric::RouterImbalance.of(s)));
        let tiles = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let total = s.replicas.get(i);
                Tile {
                    load_share: (l.queued + l.running) as f64 / most as f64,
                    kv_share: l.kv_fill.clamp(0.0, 1.0),
                    pool: match l.pool {
                        Pool::Both => None,
                        Pool::Prefill => Some("prefill"),
                        Pool::Decode => Some("decode"),
                    },
                    restarting: l.restarting,
                    line: Text {
                        key: "replicas.line",
                        args: vec![
                            ("queued", format::int(l.queued)),
                            ("running", format::int(l.running)),
                            ("kv", format::pct(l.kv_fill)),
                            ("requests", format::int(total.map_or(0, |x| x.requests))),
                        ],
                    },
                    hits: total
                        .and_then(|x| x.prefix_hit_rate)
                        .map(|h| Text { key: "replicas.hits", args: vec![("pct", format::pct(h))] }),
                    sending: (l.sending > 0)
                        .then(|| Text { key: "replicas.sending", args: vec![("n", format::int(l.sending))] }),
                }
            })
            .collect();
        Some(Replicas { head, imbalance, tiles })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::metrics::{ReplicaSummary, RouterSummary};

    fn line(queued: u64, running: u64, kv_fill: f64) -> ReplicaView {
        ReplicaView { pool: Pool::Both, queued, running, sending: 0, kv_fill, restarting: false }
    }

    #[test]
    fn one_replica_has_no_tiles() {
        assert_eq!(Replicas::new(&[], &Summary::default()), None);
    }

    #[test]
    fn loads_are_shares_of_the_busiest_and_kv_is_clamped() {
        let s = Summary {
            router: Some(RouterSummary { policy: "round_robin".into(), imbalance: 1.234, ..Default::default() }),
            replicas: vec![ReplicaSummary { requests: 7, prefix_hit_rate: Some(0.5), ..Default::default() }],
            ..Default::default()
        };
        let r = Replicas::new(&[line(2, 6, 0.4), line(0, 4, 1.2), line(0, 0, 0.0)], &s).expect("tiles");
        let loads: Vec<f64> = r.tiles.iter().map(|t| t.load_share).collect();
        assert_eq!(loads, [1.0, 0.5, 0.0]);
        let kv: Vec<f64> = r.tiles.iter().map(|t| t.kv_share).collect();
        assert_eq!(kv, [0.4, 1.0, 0.0]);
        assert_eq!(r.imbalance.as_deref(), Some("1.23"));
        let (head, policy) = r.head.expect("router");
        assert_eq!((head.key, head.args), ("replicas.router", vec![("n", "3".into())]));
        assert_eq!(policy, "replicas.policy.round_robin");
        assert_eq!(r.tiles[0].line.args[3], ("requests", "7".into()));
        assert_eq!(r.tiles[0].hits, Some(Text { key: "replicas.hits", args: vec![("pct", "50.0 %".into())] }));
        // a replica without a summary yet sent nothing
        assert_eq!(r.tiles[2].line.args[3], ("requests", "0".into()));
        assert!(r.tiles.iter().all(|t| t.sending.is_none() && t.pool.is_none()));
    }

    #[test]
    fn idle_replicas_have_no_load() {
        let r = Replicas::new(&[line(0, 0, 0.0), line(0, 0, 0.0)], &Summary::default()).expect("tiles");
        assert!(r.tiles.iter().all(|t| t.load_share == 0.0));
        assert_eq!((r.head, r.imbalance), (None, None));
    }

    #[test]
    fn the_head_names_the_routers_policy_in_words() {
        let r = Replicas {
            head: Some((Text { key: "head", args: vec![("n", "4".into())] }, "policy-rr".into())),
            imbalance: None,
            tiles: Vec::new(),
        };
        assert_eq!(r.head_words(&crate::words::Keys).as_deref(), Some("head{n=4,policy=policy-rr}"));
        assert_eq!(Replicas { head: None, ..r }.head_words(&crate::words::Keys), None);
    }
}
