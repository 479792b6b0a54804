//! Static batching: wait for a batch to fill (up to `max_num_seqs`, or until the oldest request
//! has waited `batch_timeout_ms`), prefill every prompt padded to the longest, decode until the
//! longest output is done, then free everything at once. Here the batch and the work of its
//! next step; the replica forms it, runs it and ends it (`replica/batching.rs`).

use super::requests::Handle;
use crate::perf::BatchWork;

pub(crate) struct StaticBatch {
    pub members: Vec<Handle>,
    /// Members' outputs, ascending, for ITL counts.
    outputs_sorted: Vec<u32>,
    pub p_max: u32,
    o_max: u32,
    /// Decode steps done (0 = prefill not yet done).
    pub step: u32,
    prefill_done: bool,
}

impl StaticBatch {
    /// A batch of `members` with these outputs, prompts padded to `p_max`, run until `o_max`.
    pub fn new(members: Vec<Handle>, mut outputs: Vec<u32>, p_max: u32, o_max: u32) -> StaticBatch {
        outputs.sort_unstable();
        StaticBatch { members, outputs_sorted: outputs, p_max, o_max, step: 0, prefill_done: false }
    }

    pub fn prefill_done(&self) -> bool {
        self.prefill_done
    }

    /// The next step's work (the padded prefill, or a decode step of every member) and the KV
    /// tokens the members hold during it.
    pub fn next_work(&self, window: u64) -> (BatchWork, u64) {
        let n = self.members.len() as u64;
        let mut work = BatchWork { window, ..BatchWork::default() };
        if !self.prefill_done {
            // prompts padded to the longest
            for _ in 0..n {
                work.add_prefill_chunk(0, self.p_max as u64, true);
            }
        } else {
            let ctx = self.p_max as u64 + self.step as u64;
            work.decode_seqs = n;
            work.decode_ctx_tokens = n * (ctx + 1);
            work.decode_window_ctx_tokens = n * (ctx + 1).min(window);
            work.logit_tokens = n;
        }
        let decode = self.prefill_done;
        (work, n * (self.p_max as u64 + self.step as u64 + decode as u64))
    }

    /// The padded prefill ran: decoding starts.
    pub fn prefilled(&mut self) {
        self.prefill_done = true;
    }

    /// A decode step ran: returns the token number every member whose output is that long
    /// emitted, and how many members emitted it.
    pub fn decoded(&mut self) -> (u32, u64) {
        self.step += 1;
        let t = self.step + 1;
        let still = self.outputs_sorted.len() - self.outputs_sorted.partition_point(|&o| o < t);
        (t, still as u64)
    }

    /// The longest output is done: the batch ends.
    pub fn is_done(&self) -> bool {
        self.step + 1 >= self.o_max
    }
}
