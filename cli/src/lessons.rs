//! `llmsim lessons` and `llmsim lesson ID --seeds N`: the guided lessons, and how often their runs
//! bear out what they teach.

use crate::Fail;
use sim_core::lessons::{self, LESSONS};

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
    let list: Vec<u64> = (from..from + seeds).collect();
    let a = lesson.agreement(&list);
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
