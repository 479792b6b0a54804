//! What the `headroom` sentences state, checked on the summaries: runs A (0.95) and B (0.75) of
//! the preallocated-pool engine, run C the over-committing server at 0.95.

use lab_content::lessons::Outcome;
use sim_core::metrics::ClassSummary;
use sim_core::Summary;

const GIB: f64 = (1u64 << 30) as f64;

fn good(c: &ClassSummary) -> f64 {
    c.goodput.output_tokens_per_s
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let n = |k: &str| o.numbers[k];
    let (a, b, c) = (&s[0], &s[1], &s[2]);
    let outside = a.memory.runtime_bytes + a.memory.other_process_bytes;
    Some(match sentence {
        "full-wins" => {
            good(&a.all) > 1.1 * good(&b.all)
                && a.memory.kv_capacity_bytes > b.memory.kv_capacity_bytes
                && n("peak_running_95") == a.memory.peak_running as f64
                && n("peak_running_75") == b.memory.peak_running as f64
                && n("goodput_95") == good(&a.all)
        }
        "conservative-wins" => good(&b.all) > 1.1 * good(&a.all),
        "same" => good(&a.all) <= 1.1 * good(&b.all) && good(&b.all) <= 1.1 * good(&a.all),
        // "did not crash": no OOM at 0.75, and it preempted more often than at 0.95
        "preempted" => {
            b.all.requests.oom_restarts == 0
                && b.all.requests.preempted > a.all.requests.preempted
                && n("preempted_75") == b.all.requests.preempted as f64
        }
        "queued" => b.all.queue_ms.mean > a.all.queue_ms.mean && b.all.ttft_ms.p99 > a.all.ttft_ms.p99,
        "no-oom" => {
            let r = (&a.all.requests, &b.all.requests);
            r.0.oom_restarts + r.1.oom_restarts + r.0.failed + r.1.failed == 0
        }
        // the budget holds weights, activations and the pool; the headroom holds the runtime
        "budget" => {
            let m = &a.memory;
            let budget = 0.95 * m.hbm_bytes;
            (budget - m.weights_bytes - m.activation_bytes - m.kv_capacity_bytes).abs() < 1e6
                && m.activation_bytes > 0.0
                && (m.headroom_bytes - (m.hbm_bytes - budget)).abs() < 1e6
                && m.headroom_bytes >= outside
                && (n("spare_95_gib") - (m.headroom_bytes - outside) / GIB).abs() < 1e-9
                && n("runtime_gib") == m.runtime_bytes / GIB
        }
        // one percent more utilisation would leave too little outside the budget to start
        "start-limit" => {
            let u = n("max_util_pct") / 100.0;
            let hbm = a.memory.hbm_bytes;
            (1.0 - u) * hbm >= outside - 1.0 && (1.0 - (u + 0.01)) * hbm < outside
        }
        "overcommit-crashed" => {
            c.all.requests.oom_restarts > 0
                && n("failed_overcommit") == c.all.requests.failed as f64
                && n("goodput_overcommit") == good(&c.all)
        }
        "overcommit-survived" => c.all.requests.oom_restarts == 0,
        // what the headroom holds beyond these runs, and where the lesson stops holding
        // (`llmsim lesson headroom --neighbours`): no number of the runs
        "outside" | "where" => true,
        _ => return None,
    })
}

#[test]
fn headroom_every_choice_is_reachable() {
    assert_eq!(super::answer("headroom", 7, |_, _| {}), 0, "as taught: a preallocated pool at 0.95");
    // both runs the article's over-committing server, with enough traffic to outgrow the
    // 0.95 pool's headroom: the 25% headroom wins
    assert_eq!(
        super::answer("headroom", 7, |i, s| {
            s.scheduler.overcommit |= i < 2;
            s.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: 4.0 };
        }),
        1
    );
    // traffic that does not fill even the smaller pool: about the same
    assert_eq!(
        super::answer("headroom", 7, |_, s| s.classes[0].arrival =
            sim_core::scenario::Arrival::Poisson { rate_per_s: 1.0 }),
        2
    );
}

#[test]
fn headroom_too_little_headroom_does_not_start() {
    let l = lab_content::lessons::find("headroom").unwrap();
    let (sums, o) = l.run(7);
    let spare = o.numbers["spare_95_gib"];
    let mut s = l.scenarios(7)[0].scenario.clone();
    s.other_process_gib = spare + 0.01;
    let e = sim_core::Simulation::new(&s).err().expect("does not start").to_string();
    assert!(e.contains("cannot start"), "{e}");
    s.other_process_gib = spare - 0.01;
    assert!(sim_core::Simulation::new(&s).is_ok());
    s.other_process_gib = 0.0;
    s.gpu_memory_utilization = o.numbers["max_util_pct"] / 100.0 + 0.01;
    assert!(sim_core::Simulation::new(&s).is_err());
    assert!(sums[0].memory.headroom_bytes > 0.0);
}
