//! The stage's legend beneath it: after the traffic classes (their glyphs and names, with their
//! priority when each class has its own lane), the marks the stage draws, each shown only when
//! the run can draw it.

use sim_core::scenario::Scenario;

use crate::stage_layout::FULL_REPLICAS;

/// A legend entry: the mark's CSS class (`mk-…`, none for words only), its words (a translation
/// key), its test id, and whether a run of `scenario` draws it.
pub struct Mark {
    pub mark: Option<&'static str>,
    pub key: &'static str,
    pub test_id: Option<&'static str>,
    pub shown: fn(&Scenario) -> bool,
}

/// The marks, in the legend's order.
pub const MARKS: [Mark; 7] = [
    Mark { mark: Some("mk-bar"), key: "panels.legend_bar", test_id: None, shown: |_| true },
    Mark { mark: Some("mk-ring"), key: "panels.legend_ring", test_id: None, shown: |_| true },
    Mark { mark: Some("mk-hatch"), key: "panels.legend_hatch", test_id: None, shown: |_| true },
    Mark { mark: Some("mk-cached"), key: "panels.legend_cached", test_id: None, shown: Scenario::caches_prefixes },
    // a band per replica in the prefill and decode stations (beyond eight, a tile each)
    Mark {
        mark: None,
        key: "panels.legend_bands",
        test_id: Some("legend-bands"),
        shown: |s| (2..=FULL_REPLICAS).contains(&s.replica_count()),
    },
    Mark {
        mark: Some("mk-link"),
        key: "panels.legend_link",
        test_id: Some("legend-link"),
        shown: |s| s.disaggregation.is_some(),
    },
    Mark {
        mark: Some("mk-drafts"),
        key: "panels.legend_drafts",
        test_id: Some("legend-drafts"),
        shown: |s| s.speculative.is_some(),
    },
];

/// A class's priority beside its name, when each class has its own lane (isolation).
pub fn priority(s: &Scenario, class: usize) -> Option<super::Text> {
    s.lane_per_class().then(|| super::Text {
        key: "panels.priority",
        args: vec![("n", s.classes.get(class).map_or(0, |c| c.priority).to_string())],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(id: &str) -> Scenario {
        Scenario::from_json(sim_core::presets::find(id).expect("preset").json).expect("valid")
    }

    fn shown(s: &Scenario) -> Vec<&'static str> {
        MARKS.iter().filter(|m| (m.shown)(s)).map(|m| m.key).collect()
    }

    #[test]
    fn a_single_replica_shows_only_the_marks_it_draws() {
        let s = preset(sim_core::presets::DEFAULT_PRESET);
        assert_eq!(s.replica_count(), 1);
        assert!(s.disaggregation.is_none() && s.speculative.is_none() && !s.caches_prefixes());
        assert_eq!(shown(&s), ["panels.legend_bar", "panels.legend_ring", "panels.legend_hatch"]);
    }

    #[test]
    fn bands_up_to_eight_replicas_then_tiles() {
        let mut s = preset(sim_core::presets::DEFAULT_PRESET);
        let bands = |s: &Scenario| shown(s).contains(&"panels.legend_bands");
        for (n, want) in [(2, true), (8, true), (9, false)] {
            s.replicas = n;
            assert_eq!(s.replica_count(), n as usize);
            assert_eq!(bands(&s), want, "{n} replicas");
        }
    }

    #[test]
    fn priorities_only_with_a_lane_per_class() {
        let shared = preset("mixed-shared");
        let isolated = preset("mixed-isolated");
        assert_eq!(priority(&shared, 0), None);
        let p = priority(&isolated, 1).expect("isolated classes have priorities");
        assert_eq!(p.args, vec![("n", isolated.classes[1].priority.to_string())]);
    }
}
