//! Locked controls: a teacher's link or an exercise names the settings a learner may not change.
//!
//! A lock names a control id (`scheduler.isolation`), a group of them by prefix (`classes.slo`
//! covers every SLO of every class), or a scenario path with class indices
//! (`classes[0].arrival.rate_per_s`: that class only). `classes` alone locks the list of classes
//! (adding and removing one), not the settings inside them. [`LOCKABLE`] lists what a teacher can
//! pick, with translation keys; its ids are control ids of [`crate::controls::CONTROLS`], prefixes
//! of them, or one of [`STRUCTURE`].

use crate::controls::{plain_path, CONTROLS};

/// Lock ids that are not scenario settings of the editor: the seed (the toolbar's), the list of
/// classes, the classes' names.
pub const STRUCTURE: [&str; 3] = ["seed", "classes", "classes.name"];

/// What a teacher can lock, in the order the page offers it: (lock id, label translation key).
/// A label is the control's own where the words are the same.
pub const LOCKABLE: [(&str, &str); 49] = [
    ("model", "ctl.model.label"),
    ("gpu", "ctl.gpu.label"),
    ("num_gpus", "ctl.num_gpus.label"),
    ("dtype", "ctl.dtype.label"),
    ("kv_dtype", "ctl.kv_dtype.label"),
    ("replicas", "ctl.replicas.label"),
    ("router.policy", "ctl.router.label"),
    ("router.load_cap", "ctl.load_cap.label"),
    ("disaggregation.prefill_replicas", "ctl.prefill_replicas.label"),
    ("disaggregation.decode_replicas", "ctl.decode_replicas.label"),
    ("disaggregation.kv_link_gbps", "ctl.kv_link.label"),
    ("disaggregation.kv_link_latency_us", "ctl.kv_latency.label"),
    ("gpu_usd_per_hour", "ctl.gpu_price.label"),
    ("gpu_memory_utilization", "ctl.mem_util.label"),
    ("other_process_gib", "ctl.other_gib.label"),
    ("seed", "features.control.seed"),
    ("engine_profile", "ctl.engine.label"),
    ("scheduler.batching", "ctl.batching.label"),
    ("scheduler.max_num_seqs", "ctl.max_seqs.label"),
    ("scheduler.max_num_batched_tokens", "features.control.max_num_batched_tokens"),
    ("scheduler.chunked_prefill", "ctl.chunked.label"),
    ("scheduler.batch_timeout_ms", "ctl.batch_timeout.label"),
    ("speculative.draft_tokens", "ctl.draft_tokens.label"),
    ("speculative.acceptance_rate", "ctl.acceptance.label"),
    ("speculative.draft_model", "ctl.draft_model.label"),
    ("scheduler.isolation", "ctl.isolation.label"),
    ("scheduler.kv_layout", "ctl.kv_layout.label"),
    ("scheduler.block_size", "ctl.block_size.label"),
    ("scheduler.prefix_caching", "ctl.prefix_caching.label"),
    ("scheduler.max_model_len", "ctl.max_len.label"),
    ("scheduler.overcommit", "ctl.overcommit.label"),
    ("scheduler.retry_on_oom", "ctl.retry.label"),
    ("scheduler.restart_s", "features.control.restart_s"),
    ("scheduler.queue_timeout_ms", "ctl.queue_timeout.label"),
    ("scheduler.max_queue_len", "ctl.max_queue.label"),
    ("classes", "features.control.classes"),
    ("classes.name", "features.control.class_name"),
    ("classes.arrival.kind", "features.control.arrival_kind"),
    ("classes.arrival.rate_per_s", "ctl.rate.label"),
    ("classes.arrival.cv", "ctl.cv.label"),
    ("classes.arrival.users", "ctl.users.label"),
    ("classes.arrival.think_time_ms", "ctl.think.label"),
    ("classes.num_requests", "ctl.num_requests.label"),
    ("classes.input_tokens", "ctl.prompt_len"),
    ("classes.output_tokens", "ctl.output_len"),
    ("classes.slo", "features.control.slo"),
    ("classes.priority", "ctl.priority.label"),
    ("classes.reserved_share", "features.control.reserved_share"),
    ("classes.arrival.speedup", "ctl.speedup.label"),
];

/// Whether `id` names something a lock can hold: a control, a prefix of controls, or structure.
pub fn known(id: &str) -> bool {
    let plain = plain_path(id);
    STRUCTURE.contains(&plain.as_str())
        || CONTROLS
            .iter()
            .any(|c| c.id == plain || c.id.strip_prefix(plain.as_str()).is_some_and(|r| r.starts_with('.')))
}

/// Whether lock `lock` covers the control at scenario path `path`.
pub fn covers(lock: &str, path: &str) -> bool {
    if lock == path {
        return true;
    }
    let plain = plain_path(path);
    plain == lock
        || (lock != "classes"
            && ((plain.starts_with(lock) && plain.as_bytes().get(lock.len()) == Some(&b'.'))
                || (path.starts_with(lock) && matches!(path.as_bytes().get(lock.len()), Some(b'.' | b'[')))))
}

/// Whether any of `locks` covers `path`.
pub fn any_covers(locks: &[String], path: &str) -> bool {
    locks.iter().any(|l| covers(l, path))
}

/// The lockable id a scenario path belongs to (the longest one that is the path or a prefix of
/// it): `classes[1].slo.ttft_ms` → `classes.slo`.
pub fn lockable_of(path: &str) -> Option<&'static str> {
    let plain = plain_path(path);
    LOCKABLE
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| plain == *id || plain.strip_prefix(id).is_some_and(|r| r.starts_with('.')))
        .max_by_key(|id| id.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_cover_paths_and_what_is_under_them() {
        assert!(covers("scheduler.isolation", "scheduler.isolation"));
        assert!(covers("classes.arrival.rate_per_s", "classes[1].arrival.rate_per_s"));
        assert!(covers("classes.slo", "classes[0].slo.ttft_ms"));
        assert!(covers("classes[0]", "classes[0].slo.ttft_ms"));
        assert!(!covers("classes[0]", "classes[1].slo.ttft_ms"));
        assert!(covers("classes[0].arrival.rate_per_s", "classes[0].arrival.rate_per_s"));
        assert!(!covers("classes[0].arrival.rate_per_s", "classes[1].arrival.rate_per_s"));
        // `classes` locks the list, not what is inside
        assert!(covers("classes", "classes"));
        assert!(!covers("classes", "classes[0].slo.ttft_ms"));
        // a prefix only at a dot
        assert!(!covers("scheduler.max_num", "scheduler.max_num_seqs"));
        assert!(any_covers(&["seed".into(), "classes.slo".into()], "classes[2].slo.e2e_ms"));
        assert!(!any_covers(&[], "seed"));
    }

    #[test]
    fn lockable_of_picks_the_longest_prefix() {
        assert_eq!(lockable_of("classes[1].slo.ttft_ms"), Some("classes.slo"));
        assert_eq!(lockable_of("classes[0].input_tokens.mean"), Some("classes.input_tokens"));
        assert_eq!(lockable_of("classes[0].arrival.rate_per_s"), Some("classes.arrival.rate_per_s"));
        assert_eq!(lockable_of("scheduler.block_size"), Some("scheduler.block_size"));
        assert_eq!(lockable_of("nonsense"), None);
    }

    #[test]
    fn every_lockable_id_is_known() {
        for (id, _) in LOCKABLE {
            assert!(known(id), "lockable {id} is no control, prefix of controls, or structure");
        }
        assert!(!known("scheduler.warp_drive"));
        assert!(known("classes[0].arrival.rate_per_s"));
    }
}
