use super::builtin::goal;
use super::*;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sim_core::metric::Metric;

#[test]
fn goals_read_as_before_and_unknown_metrics_are_refused() {
    let json = r#"{"metric":"classes.chat.ttft_ms.p99","op":"<=","value":800}"#;
    let g: Goal = serde_json::from_str(json).unwrap();
    assert_eq!(g, goal(MetricRef::class(Metric::TTFT_P99, "chat"), Op::AtMost, 800.0));
    assert_eq!(serde_json::to_string(&g).unwrap(), json.replace("800", "800.0"));
    let bad = r#"{"metric":"ttft_ms.p100","op":"<=","value":1}"#;
    assert!(serde_json::from_str::<Goal>(bad).unwrap_err().to_string().contains("unknown metric"));
    let bad = r#"{"metric":"ttft_ms.p99","op":"<","value":1}"#;
    assert!(serde_json::from_str::<Goal>(bad).is_err());
}

#[test]
fn every_built_in_exercise_round_trips_through_json() {
    for ex in exercises() {
        let back: Exercise = serde_json::from_str(&serde_json::to_string(&ex).unwrap()).unwrap();
        assert_eq!(back, ex);
    }
}

#[test]
fn a_file_without_a_reference_reads_and_a_reference_is_written_readably() {
    let ex = &exercises()[1];
    let mut v = serde_json::to_value(ex).unwrap();
    assert_eq!(
        v["reference"],
        serde_json::json!([{ "path": "gpu", "value": "mi300x" }, { "path": "dtype", "value": "fp8" }])
    );
    v.as_object_mut().unwrap().remove("reference");
    let old: Exercise = serde_json::from_value(v).unwrap();
    assert!(old.reference.is_empty());
    assert!(!serde_json::to_string(&old).unwrap().contains("reference"));
}

#[test]
fn a_reference_turns_only_allowed_controls_of_known_settings() {
    for ex in exercises() {
        ex.scenario.validate().unwrap();
        let s = ex.reference_scenario().unwrap();
        assert_ne!(s, ex.scenario, "{}", ex.id);
    }
    let mut ex = exercises()[0].clone();
    ex.reference = vec![Change::new("dtype", "fp8")];
    let e = ex.reference_scenario().unwrap_err();
    assert_eq!(e.errors[0].field, "dtype");
    assert!(e.errors[0].message.contains("locks"), "{e}");
    ex.reference = vec![Change::new("classes[5].priority", 1)];
    assert!(ex.reference_scenario().unwrap_err().errors[0].message.contains("not a setting"));
    ex.reference = vec![Change::new("scheduler.max_num_seqs", 0)];
    assert_eq!(ex.reference_scenario().unwrap_err().errors[0].field, "scheduler.max_num_seqs");
    ex.reference = vec![Change::new("scheduler.isolation", 3)];
    assert!(ex.reference_scenario().is_err());
    ex.reference = vec![Change::new("scheduler.queue_timeout_ms", serde_json::Value::Null)];
    assert_eq!(ex.reference_scenario().unwrap().scheduler.queue_timeout_ms, None);
}

#[test]
fn on_the_default_seed_each_exercise_fails_as_given_and_its_reference_passes() {
    for ex in exercises() {
        let run = |s: &Scenario| ex.check(&sim_core::Simulation::new(s).unwrap().run_to_end());
        let a = run(&ex.scenario);
        assert!(!a.pass && a.score.is_none(), "{}", ex.id);
        let a = run(&ex.reference_scenario().unwrap());
        assert!(a.pass, "{}: {:#?}", ex.id, a.goals);
        assert!(a.score.unwrap() > 0.0);
    }
}

fn solved(ex: &Exercise) -> (Scenario, Summary) {
    let s = ex.reference_scenario().unwrap();
    let sum = sim_core::Simulation::new(&s).unwrap().run_to_end();
    (s, sum)
}

#[test]
fn a_result_code_round_trips_and_verifies_by_re_running() {
    for ex in exercises() {
        let (s, sum) = solved(&ex);
        let code = ResultCode::of(&ex, &s, &sum);
        // one change can set several settings (switching disaggregation on splits the
        // replicas into two pools over default links): the code lists each it changed
        assert!(code.changes.len() >= ex.reference.len(), "{}: {:?}", ex.id, code.changes);
        let text = code.encode();
        assert!(text.len() < 300, "{} chars: {text}", text.len());
        let back = ResultCode::decode(&format!("  {text}\n")).unwrap();
        assert_eq!(back, code);
        let (ex2, s2) = back.scenario().unwrap();
        assert_eq!(s2, s, "{}: the code rebuilds the scenario that ran", ex.id);
        let again = sim_core::Simulation::new(&s2).unwrap().run_to_end();
        let check = back.check(&ex2, &again);
        assert!(check.verified, "{:#?}", check.lines);
        assert!(check.attempt.pass);
    }
}

#[test]
fn a_tampered_or_cut_code_is_refused_naming_what_failed() {
    let ex = exercises().remove(0);
    let (s, sum) = solved(&ex);
    let code = ResultCode::of(&ex, &s, &sum);
    // a claimed number changed (and re-encoded, so the checksum fits): the re-run disagrees there
    let mut t = code.clone();
    t.claimed[0] = t.claimed[0].map(|x| claim_round(x * 0.9));
    let (ex2, s2) = ResultCode::decode(&t.encode()).unwrap().scenario().unwrap();
    let check = t.check(&ex2, &sim_core::Simulation::new(&s2).unwrap().run_to_end());
    assert!(!check.verified);
    assert_eq!(check.lines.iter().map(|l| l.equal).collect::<Vec<_>>(), [false, true, true, true]);
    // a setting changed: the re-run of the other settings gives other numbers
    let mut t = code.clone();
    let c = t.changes.iter_mut().find(|c| c.setting == "max_num_batched_tokens").unwrap();
    c.value = Json::from(4096);
    let (ex2, s2) = ResultCode::decode(&t.encode()).unwrap().scenario().unwrap();
    assert!(!t.check(&ex2, &sim_core::Simulation::new(&s2).unwrap().run_to_end()).verified);
    // a locked setting, an unknown one, a bad value: refused before running
    let mut t = code.clone();
    t.changes.push(CodeChange { setting: "dtype".into(), class: None, value: Json::from("fp8") });
    assert!(
        matches!(t.scenario(), Err(CodeProblem::Setting { ref setting, ref message }) if setting == "dtype" && message.contains("locked"))
    );
    t.changes.pop();
    t.changes.push(CodeChange { setting: "warp".into(), class: None, value: Json::from(1) });
    assert!(matches!(t.scenario(), Err(CodeProblem::Setting { ref setting, .. }) if setting == "warp"));
    t.changes.pop();
    t.changes.push(CodeChange { setting: "max_num_seqs".into(), class: None, value: Json::from(0) });
    assert!(matches!(t.scenario(), Err(CodeProblem::Setting { .. })), "{:?}", t.scenario());
    let mut t = code.clone();
    t.exercise = "nope".into();
    assert_eq!(t.scenario().unwrap_err(), CodeProblem::UnknownExercise("nope".into()));
    let mut t = code.clone();
    t.claimed.pop();
    assert_eq!(t.scenario().unwrap_err(), CodeProblem::Claims { expected: 4, found: 3 });
    // the text: cut, edited by hand, another version, not a code
    let text = code.encode();
    for cut in [text.len() - 1, text.len() - 9, text.len() / 2, 3] {
        assert_eq!(ResultCode::decode(&text[..cut]), Err(CodeProblem::Damaged), "cut at {cut}");
    }
    let body_at = text.find('.').unwrap() + 5;
    let mut edited = text.clone().into_bytes();
    edited[body_at] = if edited[body_at] == b'A' { b'B' } else { b'A' };
    assert_eq!(ResultCode::decode(std::str::from_utf8(&edited).unwrap()), Err(CodeProblem::Damaged));
    assert_eq!(ResultCode::decode(&text.replacen("R1", "R7", 1)), Err(CodeProblem::Version("R7".into())));
    assert_eq!(ResultCode::decode("hello"), Err(CodeProblem::NotACode));
    assert_eq!(ResultCode::decode(""), Err(CodeProblem::NotACode));
}

#[test]
fn a_code_carries_the_students_name_cleaned_and_refuses_an_unclean_one() {
    let ex = exercises().remove(0);
    let (s, sum) = solved(&ex);
    let code = ResultCode::of(&ex, &s, &sum).named("  Zhang\u{7}  San \n");
    assert_eq!(code.name.as_deref(), Some("Zhang San"));
    let back = ResultCode::decode(&code.encode()).unwrap();
    assert_eq!(back.name.as_deref(), Some("Zhang San"));
    let (ex2, s2) = back.scenario().unwrap();
    assert!(
        back.check(&ex2, &sim_core::Simulation::new(&s2).unwrap().run_to_end()).verified,
        "the name changes no number"
    );
    assert_eq!(ResultCode::of(&ex, &s, &sum).named(" \t ").name, None, "a blank name is no name");
    assert_eq!(clean_name(&"x".repeat(100)).map(|n| n.chars().count()), Some(NAME_CHARS));
    // a code made by hand with a name the lab would not write (a control character) is refused
    let payload =
        serde_json::json!([ex.id, 1, [], vec![Json::Null; ex.claimed_metrics().len()], "a\u{0}b"]).to_string();
    let hand = format!(
        "R1.{}.{:08x}",
        URL_SAFE_NO_PAD.encode(payload.as_bytes()),
        super::result_code::fnv1a(payload.as_bytes())
    );
    assert_eq!(ResultCode::decode(&hand), Err(CodeProblem::Unreadable("name")));
}

#[test]
fn claims_keep_six_significant_digits() {
    assert_eq!(claim_round(612.345678), 612.346);
    assert_eq!(claim_round(0.000123456789), 0.000123457);
    assert_eq!(claim_round(0.0), 0.0);
    assert_eq!(claim_round(claim_round(98765.4321)), 98765.4);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn any_code_round_trips_and_any_cut_is_damaged(
        seed in proptest::prelude::any::<u64>(),
        claims in proptest::collection::vec(proptest::option::of(-1e12f64..1e12), 0..6),
        tokens in 1u64..100_000,
        cut in 0usize..400,
    ) {
        let code = ResultCode {
            exercise: "mixed-20".into(),
            seed,
            changes: vec![
                CodeChange { setting: "max_num_batched_tokens".into(), class: None, value: Json::from(tokens) },
                CodeChange { setting: "priority".into(), class: Some(1), value: Json::from(1) },
            ],
            claimed: claims.into_iter().map(|c| c.map(claim_round)).collect(),
            name: None,
        };
        let named = code.clone().named("  Li   Wei\t王伟 ");
        proptest::prop_assert_eq!(ResultCode::decode(&named.encode()), Ok(named));
        let text = code.encode();
        proptest::prop_assert_eq!(ResultCode::decode(&text), Ok(code));
        if cut < text.len() {
            proptest::prop_assert!(ResultCode::decode(&text[..cut]).is_err());
        }
    }
}
