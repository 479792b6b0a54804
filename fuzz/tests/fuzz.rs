//! A tiny deterministic fuzz run (the short run of scripts/test.sh and the long one of
//! scripts/fuzz.sh use the `labfuzz` binary), and checks that the fuzzer can fail at all.

use lab_fuzz::input::Input;
use lab_fuzz::mutate::Pool;
use lab_fuzz::{corpus, fuzz, nth_input, run_one, Config, Outcome, RunLimits};

#[test]
fn a_short_run_has_no_findings() {
    let cfg = Config { seed: 7, runs: 400, regressions: Some(lab_fuzz::regressions_dir()), ..Config::default() };
    let r = fuzz(&cfg).unwrap();
    let failing: Vec<String> = r
        .findings
        .iter()
        .filter(|f| !f.known)
        .map(|f| format!("{} {}: {}", f.source, f.finding.kind, f.finding.detail))
        .collect();
    assert!(failing.is_empty(), "findings:\n{}", failing.join("\n"));
    assert!(r.regressions + r.open_not_run.len() as u64 > 0, "no regression input was read");
    // the mutations reach both sides: inputs run to the end and inputs refused with messages
    assert!(r.accepted > 40 && r.rejected > 100, "accepted {} rejected {}", r.accepted, r.rejected);
    for kind in ["scenario", "link", "trace"] {
        let (n, ok) = r.by_kind.get(kind).copied().unwrap_or_default();
        assert!(n > 20 && ok > 5, "{kind}: {n} inputs, {ok} accepted");
    }
    assert!(r.messages.len() > 30, "only {} distinct messages", r.messages.len());
}

#[test]
fn every_seed_runs_to_its_end() {
    for (name, input) in corpus::seeds() {
        match run_one(&input, RunLimits::default()) {
            Ok(Outcome::Finished { events }) => assert!(events > 0, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn inputs_are_reproducible_from_seed_and_index() {
    let pool = Pool::new(corpus::seeds());
    for i in [0, 40, 41, 500, 12_345] {
        assert_eq!(nth_input(&pool, 3, i), nth_input(&pool, 3, i));
    }
    let a: Vec<Input> = (100..140).map(|i| nth_input(&pool, 3, i)).collect();
    let b: Vec<Input> = (100..140).map(|i| nth_input(&pool, 4, i)).collect();
    assert_ne!(a, b, "another seed gives other inputs");
}

#[test]
fn panics_and_unclear_messages_are_findings() {
    let limits = RunLimits { max_events: 1_000_000, check_every: 256 };
    // a panic inside a run is caught and becomes a finding with its message
    let f = lab_fuzz::guarded(|| panic!("boom at event 7")).unwrap_err();
    assert_eq!(f.kind, "panic", "{f:?}");
    assert!(f.detail.contains("boom at event 7"), "{f:?}");
    // a trace row 31 million years late (it once overflowed the time series) is refused by line
    let input = Input::Trace {
        scenario: corpus::trace_scenario(),
        csv: "arrival_s,input_len,output_len\n0,10,10\n1e15,10,10\n".into(),
    };
    match run_one(&input, limits) {
        Ok(Outcome::Rejected(m)) => assert!(m[0].contains("line 3: arrival_s"), "{m:?}"),
        other => panic!("{other:?}"),
    }
    // refused with a message that names the field
    let bad = Input::Scenario(corpus::doc_examples()[0].replace("\"max_num_seqs\": 256", "\"max_num_seqs\": 0"));
    match run_one(&bad, limits) {
        Ok(Outcome::Rejected(m)) => assert!(m[0].contains("scheduler.max_num_seqs"), "{m:?}"),
        other => panic!("{other:?}"),
    }
    let e = sim_core::ScenarioError::one("", "something is wrong");
    assert_eq!(lab_fuzz::target::check_scenario_error(&e).unwrap_err().kind, "message");
    let e = sim_core::ScenarioError::one("seed", "");
    assert_eq!(lab_fuzz::target::check_scenario_error(&e).unwrap_err().kind, "message");
}

#[test]
fn runs_are_bounded_by_the_input_size() {
    let s = sim_core::Scenario::from_json(corpus::doc_examples()[0]).unwrap();
    let bound = lab_fuzz::target::event_bound(&s, None);
    // 2000 requests of at most 8192 + 256 tokens, 16 times, plus slack
    assert!(bound > 2000 * 16 && bound <= 2000 * (8192 + 260) * 16 + 100_000, "{bound}");
    // a run past its event budget stops without a finding
    let big = Input::Scenario(corpus::doc_examples()[0].to_string());
    match run_one(&big, RunLimits { max_events: 5000, check_every: 256 }) {
        Ok(Outcome::Stopped { events }) => assert!((5000..5300).contains(&events), "{events}"),
        other => panic!("{other:?}"),
    }
}
