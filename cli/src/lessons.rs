//! `llmsim lessons` and `llmsim lesson ID --seeds N [--set PATH=VALUE]... [--runs i,j]
//! [--neighbours]`: the guided lessons, and how often their runs bear out what they teach, as they
//! are, with settings changed, and on their neighbours (`lab_content::lessons::NEIGHBOURS`).

use crate::Fail;
use lab_content::lessons::{self, Change, LESSONS, NEIGHBOURS};

/// The most seeds one call runs.
const MAX_SEEDS: u64 = 1000;

pub fn cmd_lessons() -> Result<(), Fail> {
    let w = LESSONS.iter().map(|l| l.id.len()).max().unwrap_or(0);
    println!("{:w$}  {:>7}  {:>6}  {:>4}", "id", "choices", "taught", "runs");
    for l in LESSONS {
        let runs = l.scenarios(lessons::DEFAULT_SEED).len();
        println!("{:w$}  {:>7}  {:>6}  {:>4}", l.id, l.choices, l.taught, runs);
    }
    Ok(())
}

pub fn cmd_lesson(args: &[String]) -> Result<(), Fail> {
    let (mut id, mut seeds, mut from, mut format) = (None, 20u64, 1u64, "table".to_string());
    let (mut changes, mut only, mut neighbours, mut check) = (Vec::new(), None::<Vec<usize>>, false, false);
    let value = |i: usize, flag: &str| args.get(i + 1).cloned().ok_or_else(|| Fail(format!("{flag} needs a value")));
    let count = |v: String, flag: &str, lo: u64, hi: u64| {
        v.parse::<u64>()
            .ok()
            .filter(|n| (lo..=hi).contains(n))
            .ok_or_else(|| Fail(format!("{flag} must be an integer {lo}..={hi}, got \"{v}\"")))
    };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--seeds" => seeds = count(value(i, "--seeds")?, "--seeds", 1, MAX_SEEDS)?,
            "--from" => from = count(value(i, "--from")?, "--from", 0, u64::MAX - MAX_SEEDS)?,
            "--format" => {
                format = value(i, "--format")?;
                if format != "json" && format != "table" {
                    return Err(Fail(format!("--format must be json or table, got \"{format}\"")));
                }
            }
            "--set" => {
                let v = value(i, "--set")?;
                changes.push(Change::parse(&v).map_err(|e| Fail(format!("--set: {e}")))?);
            }
            "--runs" => {
                let v = value(i, "--runs")?;
                let list: Option<Vec<usize>> = v.split(',').map(|x| x.trim().parse().ok()).collect();
                only =
                    Some(list.ok_or_else(|| Fail(format!("--runs must be run positions such as 0,2, got \"{v}\"")))?);
            }
            "--neighbours" | "--neighbors" => {
                neighbours = true;
                i += 1;
                continue;
            }
            "--check" => {
                check = true;
                i += 1;
                continue;
            }
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}"))),
            a => {
                if id.replace(a.to_string()).is_some() {
                    return Err(Fail(format!("unexpected argument \"{a}\"")));
                }
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let ids = || LESSONS.iter().map(|l| l.id).collect::<Vec<_>>().join(", ");
    let id = id.ok_or_else(|| Fail(format!("lesson needs a lesson id: one of {}", ids())))?;
    let lesson = lessons::find(&id).ok_or_else(|| Fail(format!("no lesson \"{id}\": one of {}", ids())))?;
    let runs = lesson.scenarios(lessons::DEFAULT_SEED).len();
    if let Some(bad) = only.iter().flatten().find(|&&r| r >= runs) {
        return Err(Fail(format!("--runs: lesson {id} has runs 0..={}, got {bad}", runs - 1)));
    }
    if only.is_some() && changes.is_empty() {
        return Err(Fail("--runs says which runs --set changes: give --set PATH=VALUE too".into()));
    }
    let list: Vec<u64> = (from..from + seeds).collect();
    let prepare = |runs: &mut [lessons::LessonRun]| lessons::apply_to(runs, &changes, only.as_deref());
    let field = |e: sim_core::ScenarioError| Fail(format!("--set: {e}"));
    if neighbours {
        let mut rows = Vec::new();
        for n in NEIGHBOURS {
            rows.push(lesson.neighbour_agreement(n, &list, &prepare).map_err(field)?);
        }
        print_neighbours(lesson, &lesson.agreement_prepared(&list, &prepare).map_err(field)?, &rows, &format)?;
        let unnamed: Vec<&str> =
            rows.iter().filter(|r| r.skip.is_none() && !r.holds && !r.named).map(|r| r.neighbour.as_str()).collect();
        if check && !unnamed.is_empty() {
            return Err(Fail(format!(
                "lesson {id} does not hold on {}, and its explanation does not say so",
                unnamed.join(", ")
            )));
        }
        return Ok(());
    }
    if check {
        return Err(Fail("--check reads the neighbours: give --neighbours too".into()));
    }
    let a = lesson.agreement_prepared(&list, &prepare).map_err(field)?;
    if format == "json" {
        println!("{}", serde_json::to_string_pretty(&a).expect("an agreement serialises"));
        return Ok(());
    }
    let agree = a.per_seed.iter().filter(|s| s.agrees).count();
    println!(
        "{}: teaches choice {}; {agree} of {} seeds agree ({:.2})",
        a.id,
        a.answer,
        a.per_seed.len(),
        a.agree_share
    );
    println!("{:>6}  {:>6}  agrees", "seed", "answer");
    for s in &a.per_seed {
        println!("{:>6}  {:>6}  {}", s.seed, s.answer, if s.agrees { "yes" } else { "no" });
    }
    Ok(())
}

fn print_neighbours(
    lesson: &lessons::Lesson,
    own: &lessons::Agreement,
    rows: &[lessons::NeighbourAgreement],
    format: &str,
) -> Result<(), Fail> {
    let agree = own.per_seed.iter().filter(|s| s.agrees).count();
    if format == "json" {
        let v = serde_json::json!({
            "id": lesson.id,
            "answer": lesson.taught,
            "holds_at": lessons::HOLDS_AT,
            "own": { "agree": agree, "seeds": own.per_seed.len(), "share": own.agree_share },
            "neighbours": rows,
        });
        println!("{}", serde_json::to_string_pretty(&v).expect("serialises"));
        return Ok(());
    }
    println!(
        "{}: teaches choice {}; own runs: {agree} of {} seeds agree",
        lesson.id,
        lesson.taught,
        own.per_seed.len()
    );
    println!("{:14}  {:28}  {:>6}  {:>5}  holds", "neighbour", "to (run 0)", "agree", "share");
    for r in rows {
        match &r.skip {
            Some(skip) => println!("{:14}  {:28}  {:>6}  {:>5}  n/a: {skip}", r.neighbour, "", "-", "-"),
            None => println!(
                "{:14}  {:28}  {:>6}  {:>5.2}  {}",
                r.neighbour,
                r.to,
                format!("{}/{}", r.agree, r.seeds),
                r.share,
                match (r.holds, r.named) {
                    (true, _) => "yes",
                    (false, true) => "no (the explanation says where and why)",
                    (false, false) => "NO",
                }
            ),
        }
    }
    Ok(())
}
