//! The screen reader's live summary of the runs on screen: "queue 12, batch 48, HBM 83 %, p99
//! TTFT 1.20 s" (and that the run finished), run by run in A/B mode.

use crate::engine::RunView;
use crate::format;
use crate::run::Run;
use crate::words::Words;

/// One run in words.
pub fn describe(w: &dyn Words, v: &RunView) -> String {
    let ttft = &v.summary.all.ttft_ms;
    let args = [
        ("queue", format::int(v.queued)),
        ("batch", format::int(v.running)),
        ("hbm", format!("{:.0} %", v.hbm.allocated_share() * 100.0)),
        ("ttft", format::dist_ms(ttft.count, ttft.p99)),
    ];
    let text = w.tf("a11y.summary", &args);
    if v.finished {
        format!("{text}, {}", w.t("a11y.finished"))
    } else {
        text
    }
}

/// The runs on screen in words: "A: …; B: …" in A/B mode, else run A's (nothing before its
/// first numbers).
pub fn summary(w: &dyn Words, views: [Option<&RunView>; 2], ab: bool) -> String {
    if !ab {
        return views[0].map(|v| describe(w, v)).unwrap_or_default();
    }
    let runs = Run::ALL.iter().zip(views).filter_map(|(r, v)| Some(format!("{}: {}", r.label(), describe(w, v?))));
    runs.collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Runs;
    use crate::words::Keys;
    use sim_core::{Scenario, Simulation};

    fn view(seconds: u64) -> RunView {
        let s =
            Scenario::from_json(sim_core::presets::find("chat-latency-first").expect("preset").json).expect("valid");
        let mut sim = Simulation::new(&s).expect("runs");
        sim.advance_to(seconds * 1_000_000);
        Runs::new(vec![sim]).views().remove(0)
    }

    #[test]
    fn a_run_is_said_by_its_queue_batch_memory_and_p99_ttft_and_whether_it_finished() {
        let mut v = view(20);
        let said = describe(&Keys, &v);
        let ttft = format::dist_ms(v.summary.all.ttft_ms.count, v.summary.all.ttft_ms.p99);
        assert!(said.starts_with(&format!("a11y.summary{{queue={},batch={},", v.queued, v.running)), "{said}");
        assert!(said.ends_with(&format!("ttft={ttft}}}")), "{said}");
        v.finished = true;
        assert!(describe(&Keys, &v).ends_with("}, a11y.finished"));
    }

    #[test]
    fn in_ab_mode_each_run_is_named_by_its_letter() {
        let (a, b) = (view(5), view(10));
        assert_eq!(summary(&Keys, [Some(&a), Some(&b)], false), describe(&Keys, &a));
        assert_eq!(
            summary(&Keys, [Some(&a), Some(&b)], true),
            format!("A: {}; B: {}", describe(&Keys, &a), describe(&Keys, &b))
        );
        assert_eq!(summary(&Keys, [None, Some(&b)], true), format!("B: {}", describe(&Keys, &b)));
        assert_eq!(summary(&Keys, [None, None], false), "");
    }
}
