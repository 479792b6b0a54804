//! The step button: wherever a run was stopped — between instants, or within one after any
//! number of its events, as a page's frame budget may stop it — one step ends the next
//! iteration and moves the clock on, until every request has ended.

mod common;
use sim_core::Simulation;

#[test]
fn a_step_always_moves_the_clock_to_an_iteration_end() {
    // many simultaneous arrivals share instants; stopping after k events lands inside them
    let mut s = common::preset("chat-latency-first");
    s.classes[0].num_requests = Some(300);
    s.replicas = 3;
    for k in [1u64, 2, 3, 5, 8, 13] {
        let mut sim = Simulation::new(&s).unwrap();
        let mut steps = 0;
        while !sim.is_finished() {
            sim.advance_events(k);
            let t = sim.now();
            sim.advance_one_iteration();
            assert!(sim.is_finished() || sim.now() > t, "k {k}: a step left the clock at {t} µs");
            sim.check_invariants().unwrap();
            steps += 1;
            assert!(steps < 1_000_000, "no termination");
        }
    }
}
