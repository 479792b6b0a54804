//! The teaching tabs' state without the DOM: lessons, sweeps, the resource contract, the capacity
//! plan, exercises.

pub mod bench;
pub mod contract;
pub mod exercise;
pub mod explain;
pub mod lesson;
pub mod lesson_view;
pub mod plan;
pub mod plan_crew;
pub mod progress;
pub mod sweep;
pub mod sweep_chart;

#[cfg(test)]
mod tests {
    //! Every translation key the tabs' state names exists in English and Chinese (the browser
    //! test that checks keys reads `app/src` only).

    use std::collections::BTreeMap;

    use super::{bench, contract, exercise, explain, lesson, plan, progress, sweep, sweep_chart};

    fn table(json: &str) -> BTreeMap<String, serde_json::Value> {
        serde_json::from_str(json).expect("a translation table is a JSON object")
    }

    #[test]
    fn every_key_the_tabs_name_is_translated() {
        let tables = [
            table(include_str!("../../../app/i18n/features.en.json")),
            table(include_str!("../../../app/i18n/features.zh.json")),
            table(include_str!("../../../app/i18n/lessons.en.json")),
            table(include_str!("../../../app/i18n/lessons.zh.json")),
            table(include_str!("../../../app/i18n/ui.en.json")),
            table(include_str!("../../../app/i18n/ui.zh.json")),
        ];
        let mut keys: Vec<String> = Vec::new();
        keys.extend(lesson::Step::ALL.iter().map(|s| s.key().to_string()));
        keys.extend([progress::Mark::Done, progress::Mark::Right].map(|m| m.key().to_string()));
        keys.extend(crate::share::Hidden::ALL.map(|h| h.key().to_string()));
        let fb = [lesson::Feedback::Right, lesson::Feedback::Other, lesson::Feedback::None];
        keys.extend(fb.iter().map(|f| f.key().to_string()));
        use sweep::InputError as E;
        let errs = [E::Number, E::Positive, E::Share, E::Whole, E::Steps, E::Same];
        keys.extend(errs.iter().map(|e| e.key().to_string()));
        let phases = [sweep::Phase::Idle, sweep::Phase::Running, sweep::Phase::Done, sweep::Phase::Cancelled];
        keys.extend(phases.iter().map(|p| p.key().to_string()));
        keys.extend(lab_content::sweep::SweepParam::ALL.iter().map(|p| sweep::label_key(*p).to_string()));
        keys.extend(contract::Group::ALL.iter().map(|g| g.key().to_string()));
        for f in &contract::FIELDS {
            keys.push(f.label_key());
            keys.extend(contract::line_key(f.path));
        }
        keys.extend(bench::Tab::ALL.iter().map(|t| t.key().to_string()));
        keys.extend(contract::COLUMNS.iter().map(|k| k.to_string()));
        keys.extend(sweep_chart::COLUMNS.iter().map(|k| k.to_string()));
        keys.extend(plan::keys());
        keys.extend(explain::keys().into_iter().map(str::to_string));
        keys.extend(exercise::metric_keys().into_iter().map(str::to_string));
        keys.extend(crate::locks::LOCKABLE.iter().map(|(_, k)| k.to_string()));
        keys.extend(exercise::CODE_KEYS.iter().map(|k| k.to_string()));
        for ex in lab_content::exercise::exercises() {
            let k = exercise::text_keys(&ex.id).expect("words for every exercise");
            keys.extend([k.title, k.task, k.solution].map(str::to_string));
        }
        let (en, zh) = (
            |k: &str| tables.iter().step_by(2).any(|t| t.contains_key(k)),
            |k: &str| tables.iter().skip(1).step_by(2).any(|t| t.contains_key(k)),
        );
        let missing: Vec<&String> = keys.iter().filter(|k| !en(k) || !zh(k)).collect();
        assert!(missing.is_empty(), "not translated: {missing:?}");
    }
}
