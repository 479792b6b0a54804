use super::export::csv_cell;
use super::*;
use lab_content::exercise::exercises;
use lab_content::exercise::{CodeProblem, ResultCode};
use sim_core::metric::Direction;

fn rec(pass: bool, score: Option<f64>) -> Record {
    Record {
        time_ms: 1.0,
        pass,
        score,
        goals: vec![("goodput.slo_attainment".into(), Some(0.5), pass)],
        settings: vec![],
        seed: Some(7),
        code: None,
    }
}

#[test]
fn attempts_survive_the_round_trip_through_storage() {
    let mut a = Attempts::default();
    a.push("chat-cheapest", rec(false, None));
    a.push("chat-cheapest", rec(true, Some(1.5)));
    a.push("mixed-20", rec(true, Some(3.0)));
    let back = Attempts::parse(Some(&a.to_text()));
    assert_eq!(back, a);
    assert_eq!(back.of("chat-cheapest").len(), 2);
    a.clear("chat-cheapest");
    assert!(a.of("chat-cheapest").is_empty() && a.of("mixed-20").len() == 1);
    assert_eq!(Attempts::parse(Some("not json")), Attempts::default());
    assert_eq!(Attempts::parse(None), Attempts::default());
}

#[test]
fn best_follows_the_objective_and_counts_only_passes() {
    let ex = exercises().into_iter().find(|e| e.objective.is_some()).expect("an exercise with an objective");
    let max = ex.objective.as_ref().is_some_and(|o| o.direction == Direction::Max);
    let recs = [rec(true, Some(2.0)), rec(false, Some(100.0)), rec(true, Some(5.0))];
    assert_eq!(best(&ex, &recs), Some(if max { 5.0 } else { 2.0 }));
    assert_eq!(best(&ex, &recs[1..2]), None);
}

#[test]
fn locks_and_the_controls_paths_belong_to() {
    assert_eq!(control_of("classes[1].slo.ttft_ms"), "classes.slo");
    assert_eq!(control_of("classes[0].arrival.rate_per_s"), "classes.arrival.rate_per_s");
    assert_eq!(control_of("scheduler.kv_layout"), "scheduler.kv_layout");
    assert_eq!(control_of("unknown.path"), "unknown.path");
    assert_eq!(control_of("classes[2].name"), "classes.name");
    for ex in exercises() {
        let locked = locked_for(&ex);
        assert!(ex.allowed.iter().all(|a| !locked.contains(a)));
        assert_eq!(locked.len() + ex.allowed.iter().filter(|a| control_key(a).is_some()).count(), LOCKABLE.len());
        assert!(text_keys(&ex.id).is_some(), "{} has words", ex.id);
    }
}

#[test]
fn the_solution_names_known_controls_and_waits_for_an_attempt() {
    for ex in exercises() {
        let lines = solution(&ex);
        assert_eq!(lines.len(), ex.reference.len());
        assert!(lines.iter().all(|l| l.label.is_some() && l.value != "—"), "{}: {lines:?}", ex.id);
        assert!(!solution_offered(&ex, &[]));
        assert!(solution_offered(&ex, &[rec(false, None)]));
    }
    let mixed = exercises().into_iter().find(|e| e.id == "mixed-20").unwrap();
    let priority = solution(&mixed).into_iter().find(|l| l.path == "classes[1].priority").unwrap();
    assert_eq!(priority.label, Some("setting.priority.label"));
    assert_eq!((priority.class.as_deref(), priority.value.as_str()), (Some("batch"), "1"));
    let chat = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
    assert_eq!(solution(&chat)[0].value, "mi300x");
}

#[test]
fn a_record_names_what_changed_and_the_teacher_ticks_boxes() {
    let ex = &exercises()[0];
    let mut s = ex.scenario.clone();
    s.seed += 1;
    let attempt = ex.check(&sim_core::Summary::default());
    let r = Record::of(&attempt, 5.0, &["seed".to_string()], &s);
    assert_eq!(r.settings, vec![format!("seed = {}", s.seed)]);
    assert_eq!(result_event(&ex.id, &attempt, &r)["id"], ex.id.as_str());
    let mut t = Teacher::default();
    t.tick("gpu", true);
    t.tick("gpu", true);
    assert_eq!(t.chosen, vec!["gpu"]);
    t.tick("gpu", false);
    assert!(!t.is_chosen("gpu"));
    t.all();
    assert_eq!((t.chosen.len(), t.version), (LOCKABLE.len(), 1));
}

#[test]
fn a_teachers_locks_stay_while_an_exercise_is_open_and_after_it() {
    let ex = exercises().into_iter().find(|e| e.id == "mixed-20").unwrap();
    let teacher = vec!["scheduler.isolation".to_string(), "seed".to_string()];
    let open = with_exercise(&teacher, &ex);
    assert!(open.contains(&"scheduler.isolation".to_string()), "the teacher's lock of an allowed control holds");
    assert!(locked_for(&ex).iter().all(|l| open.contains(l)));
    assert_eq!(open.iter().filter(|l| *l == "seed").count(), 1);
    assert_eq!(teacher_locks(&open, Some(&ex)), vec!["scheduler.isolation".to_string()]);
    assert_eq!(teacher_locks(&teacher, None), teacher);
    let allowed = allowed_under(&ex, &open);
    assert!(!allowed.contains(&"scheduler.isolation") && allowed.contains(&"classes.priority"));
    assert_eq!(allowed_under(&ex, &locked_for(&ex)).len(), ex.allowed.len());
}

#[test]
fn the_export_has_a_column_per_goal_and_the_attempts_values() {
    let ex = exercises().into_iter().find(|e| e.id == "mixed-20").unwrap();
    let mut r = rec(true, Some(1.25));
    r.time_ms = 1_764_594_309_000.0;
    r.settings = vec!["scheduler.isolation = true".into(), "classes[1].priority = 1".into()];
    r.goals = ex.goals.iter().map(|g| (g.metric.to_string(), Some(0.5), true)).collect();
    r.goals[0].2 = false;
    r.code = Some("R1.abc.0000".into());
    let label = |k: &str| format!("<{k}>");
    let text = csv(&ex, &[rec(false, None), r.clone()], &label);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let head: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(head[..4], ["exercise", "attempt", "when", "seed"]);
    assert_eq!(head.len(), 7 + 2 * ex.goals.len() + 2);
    assert_eq!(head[7], "classes.chat.ttft_ms.p99 <= 800");
    assert_eq!(
        lines[2],
        "mixed-20,2,2025-12-01T13:05:09Z,7,scheduler.isolation = true; classes[1].priority = 1,\
         <setting.isolation.label> = true; <setting.priority.label> (batch) = 1,yes,0.5,no,0.5,yes,0.5,yes,1.25,R1.abc.0000"
    );
    assert!(lines[1].starts_with("mixed-20,1,") && lines[1].ends_with(",no,,"), "{}", lines[1]);
    let j = export_json(&ex, &[r], Some(1.25), &label);
    assert_eq!(j["attempts"][0]["goals"][0]["met"], false);
    assert_eq!(j["attempts"][0]["goals"][1]["measured"], 0.5);
    assert_eq!(j["attempts"][0]["changed_settings_by_label"][1], "<setting.priority.label> (batch) = 1");
    assert_eq!(j["goals"][0]["metric"], "classes.chat.ttft_ms.p99");
    assert_eq!(csv_cell("a,\"b\""), "\"a,\"\"b\"\"\"");
    assert_eq!(iso_time(0.0), "1970-01-01T00:00:00Z");
    assert_eq!(iso_time(951_782_400_000.0), "2000-02-29T00:00:00Z");
}

#[test]
fn old_attempts_without_seed_or_code_still_read() {
    let old = r#"{"mixed-20":[{"time_ms":1,"pass":false,"score":null,"goals":[],"settings":["seed = 3"]}]}"#;
    let a = Attempts::parse(Some(old));
    assert_eq!(a.of("mixed-20")[0].seed, None);
    assert_eq!(a.of("mixed-20")[0].code, None);
}

#[test]
fn the_code_job_verifies_a_real_attempt_and_refuses_a_tampered_one() {
    use crate::jobs::run_to_end;
    let ex = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
    let s = ex.reference_scenario().unwrap();
    let sum = sim_core::Simulation::new(&s).unwrap().run_to_end();
    let text = code_of(&ex, &s, &sum, "");
    let CodeVerdict::Ran { check, .. } = run_to_end(CodeJob::new(&text)) else { panic!("not run") };
    assert!(check.verified && check.attempt.pass);
    let mut code = ResultCode::decode(&text).unwrap();
    code.claimed[1] = code.claimed[1].map(|x| x + 1.0);
    let CodeVerdict::Ran { check, .. } = run_to_end(CodeJob::new(&code.encode())) else { panic!("not run") };
    assert!(!check.verified);
    assert_eq!(check.lines.iter().position(|l| !l.equal), Some(1));
    let cut = &text[..text.len() - 3];
    assert_eq!(run_to_end(CodeJob::new(cut)), CodeVerdict::Refused(CodeProblem::Damaged));
    let (key, _) = problem_text(&CodeProblem::Damaged);
    assert!(CODE_KEYS.contains(&key));
}

#[test]
fn a_class_of_codes_is_found_in_any_text_checked_one_by_one_sorted_and_exported() {
    use crate::jobs::run_to_end;
    let ex = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
    let reference = ex.reference_scenario().unwrap();
    let sum = sim_core::Simulation::new(&reference).unwrap().run_to_end();
    let good = code_of(&ex, &reference, &sum, "Zhou Yu");
    // as given: the exercise's own scenario, which fails its goals, handed in without a name
    let plain = sim_core::Simulation::new(&ex.scenario).unwrap().run_to_end();
    let failing = code_of(&ex, &ex.scenario, &plain, "");
    let mut tampered = ResultCode::decode(&good).unwrap();
    tampered.claimed[0] = tampered.claimed[0].map(|x| x * 2.0);
    tampered.name = Some("Ann".into());
    let tampered = tampered.encode();
    let cut = format!("{}0000000", &good[..good.len() - 7]);
    // a CSV export, a pasted line, an e-mail: each code once, garbage and near-codes ignored
    let text = format!(
        "attempt,code\n1,\"{good}\"\n2,{failing}\nfrom Ann: {tampered};\n{good}\nR1.abc.1234567 R.x.00000000 {cut}\n"
    );
    assert_eq!(codes_in(&text), [good.clone(), failing.clone(), tampered.clone(), cut.clone()]);
    let job = ClassJob::new(&text);
    assert_eq!(job.len(), 4);
    let mut rows = run_to_end(job);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].verdict, RowVerdict::Verified);
    assert_eq!((rows[0].name.as_deref(), rows[0].pass), (Some("Zhou Yu"), Some(true)));
    assert!(rows[0].score.is_some());
    assert_eq!(
        (rows[1].verdict.clone(), rows[1].pass, rows[1].name.clone()),
        (RowVerdict::Verified, Some(false), None)
    );
    assert!(matches!(&rows[2].verdict, RowVerdict::Mismatch(m) if m.len() == 1), "{:?}", rows[2].verdict);
    assert_eq!(rows[3].verdict, RowVerdict::Refused(CodeProblem::Damaged));
    assert_eq!((rows[3].pass, rows[3].exercise.as_deref()), (None, None));
    // sorted by name: named first, alphabetically; by verdict: verified first; by score, best
    // (lowest cost) first and rows without a score last
    sort(&mut rows, SortBy::Name, false);
    assert_eq!(rows.iter().map(|r| r.name.as_deref()).collect::<Vec<_>>(), [Some("Ann"), Some("Zhou Yu"), None, None]);
    sort(&mut rows, SortBy::Verdict, false);
    assert_eq!(
        rows.iter().map(|r| r.verdict.id()).collect::<Vec<_>>(),
        ["verified", "verified", "mismatch", "refused"]
    );
    sort(&mut rows, SortBy::Pass, false);
    assert_eq!(rows.iter().map(|r| r.pass).collect::<Vec<_>>(), [Some(true), Some(true), Some(false), None]);
    let csv = class_csv(&rows);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "name,exercise,verdict,disagrees_on,pass,score,code");
    assert_eq!(lines.len(), 5);
    assert!(lines.iter().any(|l| l.starts_with("Zhou Yu,chat-cheapest,verified,,true,") && l.ends_with(&good)));
    assert!(lines.iter().any(|l| l.starts_with(",,refused,the result code is damaged (checksum),,,")));
}

#[test]
fn the_class_tables_heads_sort_one_way_then_the_other() {
    let o = SortOrder::default();
    assert_eq!((o.aria_sort(SortBy::Name), o.mark(SortBy::Name)), ("ascending", " ▲"));
    assert_eq!((o.aria_sort(SortBy::Score), o.mark(SortBy::Score)), ("none", ""));
    let o = o.clicked(SortBy::Name);
    assert_eq!(
        (o.by, o.descending, o.aria_sort(SortBy::Name), o.mark(SortBy::Name)),
        (SortBy::Name, true, "descending", " ▼")
    );
    // another column starts ascending, whatever the direction before
    let o = o.clicked(SortBy::Score);
    assert_eq!((o.by, o.descending), (SortBy::Score, false));
    assert_eq!(o.aria_sort(SortBy::Name), "none");
    assert_eq!(o.clicked(SortBy::Score).clicked(SortBy::Score), o);
    assert_eq!(SortBy::Verdict.testid(), "class-sort-verdict");
    assert_eq!(short_code("R1.abcdefghijklmnopqrstuvwxyz"), "R1.abcdefghijk…");
    assert_eq!(short_code("R1.ab"), "R1.ab…");
    let row = |verdict| ClassRow { code: String::new(), name: None, exercise: None, verdict, pass: None, score: None };
    let rows = [row(RowVerdict::Verified), row(RowVerdict::Failed("x".into())), row(RowVerdict::Verified)];
    assert_eq!(verified(&rows), 2);
    let mut rows = vec![
        ClassRow { name: Some("b".into()), ..row(RowVerdict::Verified) },
        ClassRow { name: Some("a".into()), ..row(RowVerdict::Verified) },
    ];
    SortOrder::default().sort(&mut rows);
    assert_eq!(rows[0].name.as_deref(), Some("a"));
    SortOrder::default().clicked(SortBy::Name).sort(&mut rows);
    assert_eq!(rows[0].name.as_deref(), Some("b"));
}

#[test]
fn a_codes_changes_name_their_controls_and_values_in_words() {
    let ex = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
    let s = ex.reference_scenario().unwrap();
    let sum = sim_core::Simulation::new(&s).unwrap().run_to_end();
    let code = ResultCode::decode(&code_of(&ex, &s, &sum, "")).unwrap();
    let changes = code_changes(&code);
    assert_eq!(changes.len(), code.changes.len());
    assert!(!changes.is_empty());
    for ((control, value), c) in changes.iter().zip(&code.changes) {
        assert!(control_key(control).is_some(), "{control} is no lockable control");
        assert!(!value.starts_with('"'), "{value}");
        if let serde_json::Value::Number(n) = &c.value {
            assert_eq!(value, &n.to_string());
        }
    }
    let mut text = code.clone();
    text.changes = vec![lab_content::exercise::CodeChange {
        setting: "dtype".into(),
        class: None,
        value: serde_json::Value::String("fp8".into()),
    }];
    assert_eq!(code_changes(&text)[0].1, "fp8");
}

#[test]
fn a_finished_run_counts_unless_it_changed_a_locked_control() {
    let ex = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
    let ran = ex.reference_scenario().unwrap();
    let sum = sim_core::Simulation::new(&ran).unwrap().run_to_end();
    let locks = locked_for(&ex);
    let (attempt, rec) = attempt_of(&ex, &ran, &sum, &locks, "Ann", 9.0).expect("the reference counts");
    assert!(attempt.pass && rec.pass && rec.time_ms == 9.0);
    assert!(!rec.settings.is_empty(), "the reference changes settings");
    let code = ResultCode::decode(rec.code.as_deref().unwrap()).unwrap();
    assert_eq!((code.name.as_deref(), code.seed), (Some("Ann"), ran.seed));
    // the seed is locked here: a run on another seed is not counted, and says why
    let mut other = ran.clone();
    other.seed += 1;
    let locked = vec!["seed".to_string()];
    assert_eq!(attempt_of(&ex, &other, &sum, &locked, "", 1.0).unwrap_err(), ["seed"]);
    assert!(attempt_of(&ex, &other, &sum, &[], "", 1.0).is_ok());
}
