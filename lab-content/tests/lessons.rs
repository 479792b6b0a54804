//! Every lesson teaches what its runs bear out on (almost) every seed, and says only what its
//! runs showed: each sentence of an explanation passes an independent check of the summaries
//! (`lesson_sentences/<lesson>.rs`) on every seed it is said.

mod lesson_sentences;

use lab_content::lessons::{Lesson, LESSONS};

/// The seeds every lesson is held to.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=20;

/// The share of seeds whose runs must bear out the answer a lesson teaches.
const MIN_AGREEMENT: f64 = 0.95;

fn hold(l: &Lesson) {
    let mut agree = 0;
    for seed in SEEDS {
        let (sums, o) = l.run(seed);
        assert_eq!(sums.len(), l.scenarios(seed).len(), "{}", l.id);
        assert!(o.answer < l.choices, "{} seed {seed}: answer {}", l.id, o.answer);
        assert!(o.numbers.values().all(|v| v.is_finite()), "{} seed {seed}: {:?}", l.id, o.numbers);
        assert!(!o.sentences.is_empty(), "{} seed {seed}: says nothing", l.id);
        // said in the declared order, each at most once
        let mut at = 0;
        for s in &o.sentences {
            let i = l.sentences[at..].iter().position(|d| d == s);
            assert!(i.is_some(), "{} seed {seed}: sentence {s:?} undeclared or out of order", l.id);
            at += i.unwrap() + 1;
        }
        for s in &o.sentences {
            let ok = lesson_sentences::check(l.id, s, &sums, &o);
            assert_eq!(
                ok,
                Some(true),
                "{} seed {seed}: sentence {s:?} is not what the runs show: {:?}",
                l.id,
                o.numbers
            );
        }
        agree += usize::from(o.answer == l.taught);
    }
    let share = agree as f64 / SEEDS.count() as f64;
    eprintln!("{}: {agree} of {} seeds agree ({share:.2})", l.id, SEEDS.count());
    assert!(share >= MIN_AGREEMENT, "{}: only {agree} of 20 seeds bear out answer {}", l.id, l.taught);
}

#[test]
fn every_lesson_holds_on_twenty_seeds_and_says_only_what_its_runs_show() {
    for l in LESSONS {
        hold(l);
    }
}

#[test]
fn agreement_reports_each_seed() {
    let l = &LESSONS[3];
    let a = l.agreement(&[1, 2, 3]);
    assert_eq!((a.id, a.answer, a.per_seed.len()), (l.id, l.taught, 3));
    let agree = a.per_seed.iter().filter(|s| s.agrees).count();
    assert_eq!(a.agree_share, agree as f64 / 3.0);
    for s in &a.per_seed {
        assert_eq!(s.answer, l.run(s.seed).1.answer);
        assert_eq!(s.agrees, s.answer == l.taught);
    }
}

#[test]
fn every_run_gets_the_seed_and_same_arrivals_means_same_requests() {
    for l in LESSONS {
        for r in l.scenarios(11) {
            assert_eq!(r.scenario.seed, 11, "{}", l.id);
        }
        let runs = l.scenarios(11);
        let same = runs.windows(2).all(|w| w[0].scenario.classes == w[1].scenario.classes);
        assert_eq!(l.same_arrivals(11), same, "{}", l.id);
    }
}

#[test]
fn lesson_ids_are_unique_and_taught_answers_are_choices() {
    let mut ids: Vec<&str> = LESSONS.iter().map(|l| l.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), LESSONS.len());
    for l in LESSONS {
        assert!(l.taught < l.choices, "{}", l.id);
        assert!(!l.sentences.is_empty(), "{}", l.id);
    }
}
