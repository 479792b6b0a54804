//! Prefill/decode disaggregation (`disaggregation` in a scenario): `prefill_replicas` replicas
//! run prompts only, `decode_replicas` replicas run decode steps only, and each prompt's KV cache
//! moves from the one to the other over a link (DistServe, Splitwise; vLLM's disaggregated
//! prefilling with a KV connector).
//!
//! A request arrives at a prefill replica (the router's pick among them), waits in its queue and
//! is prefilled as on any replica, but its first token is not sent: the prompt's KV is. The
//! transfer waits for the sending replica's outgoing link and the receiving replica's incoming
//! link to be free (each carries one transfer at a time, `kv_link_gbps` GB/s per direction, the
//! replica's whole link over its GPUs), takes `bytes ÷ bandwidth`, and arrives
//! `kv_link_latency_us` later. The prefill replica holds the prompt's blocks until then. The
//! decode replica (the fewest requests queued and running among them) then queues the request
//! for its blocks; once admitted it computes the prompt's last position again to sample the
//! first token (vLLM's decode side does: the scheduler never treats a whole prompt as computed),
//! which it streams to the client. So TTFT runs from arrival to that token: queue and prefill
//! on the prefill side, the transfer, the decode side's wait and its first step.
//! `docs/model.md` ("Prefill/decode disaggregation") gives the formulas and their sources.

use crate::metrics::LatencyHist;

pub use crate::metrics::DisaggSummary;
pub use crate::scenario::DisaggConfig;

/// One transfer's times on the links, µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sent {
    /// Its first byte leaves: both directions free.
    pub start: u64,
    /// Its last byte plus the latency.
    pub arrives: u64,
}

/// The links between the pools: when each replica's outgoing and incoming direction is next
/// free, and the transfers' times.
pub(crate) struct Links {
    /// Bytes per µs of one direction.
    bytes_per_us: f64,
    latency_us: u64,
    out_free: Vec<u64>,
    in_free: Vec<u64>,
    pub transfers: u64,
    pub bytes: f64,
    pub time: LatencyHist,
    pub wait: LatencyHist,
}

impl Links {
    pub fn new(d: &DisaggConfig, replicas: usize) -> Links {
        Links {
            bytes_per_us: d.kv_link_gbps * 1e3,
            latency_us: d.kv_link_latency_us.round() as u64,
            out_free: vec![0; replicas],
            in_free: vec![0; replicas],
            transfers: 0,
            bytes: 0.0,
            time: LatencyHist::new(),
            wait: LatencyHist::new(),
        }
    }

    /// Sends `bytes` from replica `from` to replica `to`, asked at `now`: when it starts and
    /// arrives. It starts once both directions are free and holds them for `bytes ÷ bandwidth`.
    pub fn send(&mut self, now: u64, from: usize, to: usize, bytes: f64) -> Sent {
        let start = now.max(self.out_free[from]).max(self.in_free[to]);
        let busy = (bytes / self.bytes_per_us).ceil() as u64;
        self.out_free[from] = start + busy;
        self.in_free[to] = start + busy;
        let arrives = start + busy + self.latency_us;
        self.transfers += 1;
        self.bytes += bytes;
        self.time.record(arrives - now);
        self.wait.record(start - now);
        Sent { start, arrives }
    }

    pub fn summary(&self, d: &DisaggConfig) -> DisaggSummary {
        DisaggSummary {
            prefill_replicas: d.prefill_replicas,
            decode_replicas: d.decode_replicas,
            transfers: self.transfers,
            kv_transfer_ms: self.time.dist(),
            link_wait_ms: self.wait.dist(),
            kv_bytes: self.bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(gbps: f64, latency_us: f64) -> DisaggConfig {
        DisaggConfig {
            prefill_replicas: 2,
            decode_replicas: 1,
            kv_link_gbps: gbps,
            kv_link_latency_us: latency_us,
            prefill_num_gpus: None,
            decode_num_gpus: None,
        }
    }

    #[test]
    fn a_transfer_takes_bytes_over_bandwidth_plus_latency() {
        // 50 GB/s = 50,000 bytes/µs: 1 MB takes 20 µs, and arrives 10 µs after its last byte
        let mut l = Links::new(&config(50.0, 10.0), 3);
        assert_eq!(l.send(1_000, 0, 2, 1e6), Sent { start: 1_000, arrives: 1_030 });
    }

    #[test]
    fn transfers_into_one_replica_queue_on_its_incoming_link() {
        let mut l = Links::new(&config(50.0, 10.0), 3);
        assert_eq!(l.send(0, 0, 2, 1e6).arrives, 30);
        // from the other prefill replica, into the same decode replica: waits for the first's
        // 20 µs on the wire, not for its latency
        assert_eq!(l.send(5, 1, 2, 1e6), Sent { start: 20, arrives: 50 });
        assert_eq!(l.transfers, 2);
        // a later one finds the links free
        assert_eq!(l.send(100, 1, 2, 1e6).arrives, 130);
    }
}
