//! Locked controls: a teacher's link or an exercise names the settings a learner may not change.
//!
//! A lock names a control id (`scheduler.isolation`), a group of them by prefix (`classes.slo`
//! covers every SLO of every class), or a scenario path with class indices
//! (`classes[0].arrival.rate_per_s`: that class only). `classes` alone locks the list of classes
//! (adding and removing one), not the settings inside them. [`LOCKABLE`] lists what a teacher can
//! pick, with translation keys: it is read from sim-core's settings table (`settings::lock_ids`,
//! each lockable row and group in table order) — a row by its control's id and the setting's
//! label (or its lock words, `setting.<id>.lock`), a group or structure id from the lists here.

use std::sync::LazyLock;

use crate::controls::{plain_path, CONTROLS};
use sim_core::settings::{self, Lock};

/// Lock ids that are not scenario settings of the editor: the seed (the toolbar's), the list of
/// classes, the classes' names.
pub const STRUCTURE: [&str; 3] = ["seed", "classes", "classes.name"];

/// The lock ids that cover several settings (`sim_core::settings::GROUPS`, a test holds them
/// equal) with their words' keys: `lock.<id>`.
pub const GROUPS: [(&str, &str); 4] = [
    ("classes", "lock.classes"),
    ("classes.input_tokens", "lock.classes.input_tokens"),
    ("classes.output_tokens", "lock.classes.output_tokens"),
    ("classes.slo", "lock.classes.slo"),
];

/// What a teacher can lock, in the order the page offers it: (lock id, label translation key),
/// one for each of sim-core's lock ids.
pub static LOCKABLE: LazyLock<Vec<(&'static str, &'static str)>> =
    LazyLock::new(|| settings::lock_ids().iter().map(|id| lockable(id)).collect());

/// The lock id `id` with its words' key: a group's, or its setting's (the label, or the words
/// the row gives the lock list).
fn lockable(id: &str) -> (&'static str, &'static str) {
    if let Some(g) = GROUPS.iter().find(|(g, _)| *g == id) {
        return *g;
    }
    let row = settings::by_lock_id(id).unwrap_or_else(|| panic!("lock id {id} names no setting"));
    let key = if row.lock == Lock::Words { row.keys.lock } else { row.keys.label };
    let id = CONTROLS
        .iter()
        .map(|c| c.id)
        .chain(STRUCTURE)
        .find(|c| *c == id)
        .unwrap_or_else(|| panic!("lock id {id} is no control and no structure"));
    (id, key)
}

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
        for (id, _) in LOCKABLE.iter() {
            assert!(known(id), "lockable {id} is no control, prefix of controls, or structure");
        }
        assert!(!known("scheduler.warp_drive"));
        assert!(known("classes[0].arrival.rate_per_s"));
    }
}
