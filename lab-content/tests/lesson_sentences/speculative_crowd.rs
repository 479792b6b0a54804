//! Lesson `speculative-crowd`: each sentence checked against the four runs' summaries (one user
//! without and with speculation, 256 users without and with it).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;
use sim_core::scenario::Arrival;

fn tokens_per_step(s: &Summary) -> f64 {
    s.speculative.map(|p| p.mean_accepted_tokens_per_step).unwrap_or(f64::NAN)
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let tpot = |i: usize| s[i].all.tpot_ms.mean;
    let itl = |i: usize| s[i].all.itl_ms.mean;
    // the runs are what the lesson says: speculation off in 0 and 2, on (k 4) in 1 and 3
    let shape = s[0].speculative.is_none()
        && s[2].speculative.is_none()
        && s[1].speculative.is_some_and(|p| p.draft_tokens == 4)
        && s[3].speculative.is_some_and(|p| p.draft_tokens == 4);
    let (gain_alone, gain_crowd) = (tpot(0) / tpot(1), tpot(2) / tpot(3));
    let alone = shape
        && quoted(o, "tpot_alone_ms", tpot(0))
        && quoted(o, "tpot_alone_speculative_ms", tpot(1))
        && quoted(o, "gain_alone", gain_alone);
    let crowd = shape
        && quoted(o, "tpot_crowd_ms", tpot(2))
        && quoted(o, "tpot_crowd_speculative_ms", tpot(3))
        && quoted(o, "gain_crowd", gain_crowd);
    Some(match sentence {
        "alone_faster" => alone && tpot(1) < tpot(0) && s[1].memory.peak_running == 1,
        "alone_near_tokens" => {
            let tokens = tokens_per_step(&s[1]);
            alone && quoted(o, "tokens_per_step_alone", tokens) && gain_alone >= 0.8 * tokens
        }
        "alone_step_cheap" => {
            quoted(o, "itl_alone_ms", itl(0)) && quoted(o, "itl_alone_speculative_ms", itl(1)) && itl(1) < 1.2 * itl(0)
        }
        "crowd_worse" => {
            let slower = 100.0 * (tpot(3) / tpot(2) - 1.0);
            crowd && quoted(o, "crowd_slower_pct", slower) && slower > 0.0 && s[3].memory.peak_running >= 200
        }
        "crowd_less" => crowd && tpot(3) <= tpot(2) && gain_crowd < 0.8 * gain_alone,
        "crowd_same" => crowd && gain_crowd >= 0.8 * gain_alone,
        "crowd_step_dear" => {
            let tokens = tokens_per_step(&s[3]);
            quoted(o, "itl_crowd_ms", itl(2))
                && quoted(o, "itl_crowd_speculative_ms", itl(3))
                && quoted(o, "tokens_per_step_crowd", tokens)
                && itl(3) / itl(2) > tokens
        }
        "crowd_step_grows" => {
            let tokens = tokens_per_step(&s[3]);
            let growth = itl(3) / itl(2);
            quoted(o, "step_growth_crowd", growth)
                && quoted(o, "tokens_per_step_crowd", tokens)
                && quoted(o, "positions", 5.0)
                && (1.2..=tokens).contains(&growth)
        }
        _ => return None,
    })
}

/// Fewer users in the crowd runs: one user "in the crowd" is the run alone again (choice 0); a
/// weak draft (8 tokens at 0.6, the try step) makes TPOT worse in the crowd (choice 2).
#[test]
fn speculative_crowd_every_choice_is_reachable() {
    let users = |n: u32| {
        move |i: usize, s: &mut sim_core::Scenario| {
            if i >= 2 {
                s.classes[0].arrival = Arrival::ClosedLoop { users: n, think_time_ms: 0.0 };
                s.classes[0].num_requests = Some(3 * u64::from(n).max(8));
            }
        }
    };
    let weak = |_: usize, s: &mut sim_core::Scenario| {
        if let Some(p) = s.speculative.as_mut() {
            (p.draft_tokens, p.acceptance_rate) = (8, 0.6);
        }
    };
    for seed in [1, 7] {
        assert_eq!(super::answer("speculative-crowd", seed, |_, _| {}), 1);
        assert_eq!(super::answer("speculative-crowd", seed, users(1)), 0);
        assert_eq!(super::answer("speculative-crowd", seed, weak), 2);
    }
}
