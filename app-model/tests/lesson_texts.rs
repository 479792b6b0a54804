//! The lessons' texts and the lessons agree: both languages hold exactly the keys the lessons
//! declare (title, claim, set-up, question, a text and a feedback per choice, a text per
//! sentence, a label per run), and every number a sentence quotes is one the outcome produces.

use lab_content::lessons::{DEFAULT_SEED, LESSONS};
use std::collections::{BTreeMap, BTreeSet};

fn table(lang: &str) -> BTreeMap<String, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../app/i18n/lessons.{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `{name}` placeholders of a text.
fn placeholders(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let Some(j) = rest[i..].find('}') else { break };
        out.insert(rest[i + 1..i + j].to_string());
        rest = &rest[i + j + 1..];
    }
    out
}

#[test]
fn both_languages_hold_exactly_the_keys_the_lessons_declare() {
    for lang in ["en", "zh"] {
        let t = table(lang);
        let mut want = BTreeSet::new();
        for l in LESSONS {
            let k = |part: &str| format!("lesson.{}.{part}", l.id);
            for part in ["title", "claim", "setup", "question", "highlight", "try"] {
                want.insert(k(part));
            }
            for i in 0..l.choices {
                want.insert(k(&format!("choice.{i}")));
                want.insert(k(&format!("feedback.{i}")));
            }
            for s in l.sentences {
                want.insert(k(&format!("say.{s}")));
            }
            for r in l.scenarios(DEFAULT_SEED) {
                want.insert(k(&format!("variant.{}", r.variant)));
            }
        }
        let have: BTreeSet<String> = t.keys().filter(|k| k.starts_with("lesson.")).cloned().collect();
        let missing: Vec<_> = want.difference(&have).collect();
        let extra: Vec<_> = have.difference(&want).collect();
        assert!(missing.is_empty(), "lessons.{lang}.json lacks {missing:?}");
        assert!(extra.is_empty(), "lessons.{lang}.json has keys no lesson uses: {extra:?}");
        assert!(t.values().all(|v| !v.trim().is_empty()), "lessons.{lang}.json has an empty text");
    }
}

#[test]
fn every_number_a_sentence_quotes_is_one_the_outcome_produces() {
    let (en, zh) = (table("en"), table("zh"));
    for l in LESSONS {
        let (_, o) = l.run(DEFAULT_SEED);
        for s in l.sentences {
            let key = format!("lesson.{}.say.{s}", l.id);
            for t in [&en, &zh] {
                let text = t.get(&key).unwrap_or_else(|| panic!("no text {key}"));
                for p in placeholders(text) {
                    assert!(o.numbers.contains_key(p.as_str()), "{key} quotes {{{p}}}, which the outcome lacks");
                }
            }
            // both languages quote the same numbers
            assert_eq!(placeholders(&en[&key]), placeholders(&zh[&key]), "{key}");
        }
    }
}
