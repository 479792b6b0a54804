//! The stage's bottleneck badge without the DOM: which words (translation keys and their
//! values) say what limits a run now (`sim_core::sim::Limit`), and a steady choice of what to
//! show, so a limit that flickers for one tick does not make the badge (and the screen reader
//! that follows it) chatter.

use crate::format;
use sim_core::sim::Limit;

/// A translation key and the values of its placeholders.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pub key: &'static str,
    pub args: Vec<(&'static str, String)>,
}

impl Text {
    /// In the page's words.
    pub fn said(&self, w: &dyn crate::words::Words) -> String {
        w.tf(self.key, &self.args)
    }
}

fn text(key: &'static str, args: Vec<(&'static str, String)>) -> Text {
    Text { key, args }
}

/// A stable name of the limit's kind (the badge's `data-limit`).
pub fn kind(l: &Limit) -> &'static str {
    match l {
        Limit::Idle => "idle",
        Limit::Restarting { .. } => "restarting",
        Limit::FillingBatch { .. } => "filling_batch",
        Limit::StaticBatch { .. } => "static_batch",
        Limit::MaxBatch { .. } => "max_batch",
        Limit::KvMemory { .. } => "kv_memory",
        Limit::Reserved { .. } => "reserved",
        Limit::TokenBudget { .. } => "token_budget",
        Limit::PrefillCompute { .. } => "prefill_compute",
        Limit::DecodeSpeed { .. } => "decode_speed",
    }
}

/// The badge's headline (what limits the run; announced when it changes) and its detail (the
/// numbers; not announced).
pub fn words(l: &Limit) -> (Text, Option<Text>) {
    let n = |v: u64| format::int(v);
    match *l {
        Limit::Idle => (text("first.limit.idle", vec![]), None),
        Limit::Restarting { until_s } => (
            text("first.limit.restarting", vec![]),
            Some(text("first.limit.restarting_detail", vec![("t", format::sim_time(until_s))])),
        ),
        Limit::FillingBatch { waiting, batch } => (
            text("first.limit.filling_batch", vec![]),
            Some(text("first.limit.filling_batch_detail", vec![("waiting", n(waiting)), ("batch", n(batch))])),
        ),
        Limit::StaticBatch { running, waiting } => (
            text("first.limit.static_batch", vec![]),
            Some(text("first.limit.static_batch_detail", vec![("running", n(running)), ("waiting", n(waiting))])),
        ),
        Limit::MaxBatch { max_num_seqs, kv_free_bytes } => (
            text("first.limit.max_batch", vec![("n", n(max_num_seqs))]),
            Some(text("first.limit.max_batch_detail", vec![("free", format::gib(kv_free_bytes))])),
        ),
        Limit::KvMemory { need_bytes, free_bytes, preempting } => (
            text("first.limit.kv_memory", vec![]),
            Some(text(
                if preempting { "first.limit.kv_memory_preempting" } else { "first.limit.kv_memory_detail" },
                vec![("need", format::bytes(need_bytes)), ("free", format::bytes(free_bytes))],
            )),
        ),
        Limit::Reserved { waiting } => (
            text("first.limit.reserved", vec![]),
            Some(text("first.limit.reserved_detail", vec![("waiting", n(waiting))])),
        ),
        Limit::TokenBudget { budget } => (
            text("first.limit.token_budget", vec![("n", n(budget))]),
            Some(text("first.limit.token_budget_detail", vec![("n", n(budget))])),
        ),
        Limit::PrefillCompute { prefill_tokens } => (
            text("first.limit.prefill_compute", vec![]),
            Some(text("first.limit.prefill_compute_detail", vec![("tokens", n(prefill_tokens))])),
        ),
        Limit::DecodeSpeed { decode_seqs, step_ms } => (
            text("first.limit.decode_speed", vec![]),
            Some(text("first.limit.decode_speed_detail", vec![("n", n(decode_seqs)), ("ms", format::ms(step_ms))])),
        ),
    }
}

/// Every key [`words`] may name (for the translation tables' tests).
pub const KEYS: &[&str] = &[
    "first.limit.idle",
    "first.limit.restarting",
    "first.limit.restarting_detail",
    "first.limit.filling_batch",
    "first.limit.filling_batch_detail",
    "first.limit.static_batch",
    "first.limit.static_batch_detail",
    "first.limit.max_batch",
    "first.limit.max_batch_detail",
    "first.limit.kv_memory",
    "first.limit.kv_memory_detail",
    "first.limit.kv_memory_preempting",
    "first.limit.reserved",
    "first.limit.reserved_detail",
    "first.limit.token_budget",
    "first.limit.token_budget_detail",
    "first.limit.prefill_compute",
    "first.limit.prefill_compute_detail",
    "first.limit.decode_speed",
    "first.limit.decode_speed_detail",
];

/// Ticks a new kind of limit must last before the badge switches to it while the run plays.
pub const STEADY_TICKS: u8 = 2;

/// What the badge shows: the limit of the latest tick while its kind stays, a new kind once it
/// has lasted [`STEADY_TICKS`] ticks (at once when paused, stepped or restarted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Steady {
    shown: Option<Limit>,
    /// A different kind seen lately, and for how many ticks in a row.
    next: Option<(&'static str, u8)>,
}

impl Steady {
    /// Takes the limit of a tick and returns the one to show.
    pub fn observe(&mut self, l: Limit, at_once: bool) -> Limit {
        let same = self.shown.as_ref().is_some_and(|s| kind(s) == kind(&l));
        if same || at_once || self.shown.is_none() {
            self.next = None;
            self.shown = Some(l);
            return l;
        }
        let seen = match self.next {
            Some((k, n)) if k == kind(&l) => n + 1,
            _ => 1,
        };
        if seen >= STEADY_TICKS {
            self.next = None;
            self.shown = Some(l);
            return l;
        }
        self.next = Some((kind(&l), seen));
        self.shown.unwrap_or(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Limit = Limit::MaxBatch { max_num_seqs: 32, kv_free_bytes: 51.0 * 1073741824.0 };

    #[test]
    fn max_batch_says_its_cap_and_the_free_kv() {
        let (head, detail) = words(&MAX);
        assert_eq!(head, text("first.limit.max_batch", vec![("n", "32".into())]));
        assert_eq!(detail, Some(text("first.limit.max_batch_detail", vec![("free", "51.0 GiB".into())])));
        assert_eq!(words(&Limit::TokenBudget { budget: 2048 }).0.args, vec![("n", "2,048".to_string())]);
    }

    #[test]
    fn every_key_said_is_listed() {
        let all = [
            Limit::Idle,
            Limit::Restarting { until_s: 3.0 },
            Limit::FillingBatch { waiting: 3, batch: 8 },
            Limit::StaticBatch { running: 8, waiting: 2 },
            MAX,
            Limit::KvMemory { need_bytes: 2e6, free_bytes: 1e6, preempting: false },
            Limit::KvMemory { need_bytes: 2e6, free_bytes: 1e6, preempting: true },
            Limit::Reserved { waiting: 4 },
            Limit::TokenBudget { budget: 2048 },
            Limit::PrefillCompute { prefill_tokens: 2000 },
            Limit::DecodeSpeed { decode_seqs: 12, step_ms: 9.0 },
        ];
        let mut said = Vec::new();
        for l in &all {
            let (h, d) = words(l);
            said.push(h.key);
            said.extend(d.map(|d| d.key));
        }
        said.sort();
        said.dedup();
        let mut keys = KEYS.to_vec();
        keys.sort();
        assert_eq!(said, keys);
    }

    #[test]
    fn a_new_kind_shows_after_it_lasts_and_numbers_follow_at_once() {
        let mut s = Steady::default();
        assert_eq!(s.observe(MAX, false), MAX, "the first limit shows at once");
        let decode = Limit::DecodeSpeed { decode_seqs: 12, step_ms: 9.0 };
        assert_eq!(s.observe(decode, false), MAX, "one tick of another kind does not switch");
        assert_eq!(s.observe(MAX, false), MAX);
        assert_eq!(s.observe(decode, false), MAX, "the count starts again");
        assert_eq!(s.observe(decode, false), decode, "two ticks in a row switch");
        let faster = Limit::DecodeSpeed { decode_seqs: 3, step_ms: 8.0 };
        assert_eq!(s.observe(faster, false), faster, "same kind: the numbers follow");
        assert_eq!(s.observe(MAX, true), MAX, "paused or stepped: at once");
    }
}
