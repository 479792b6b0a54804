//! Edits of a scenario's shape that the editor offers besides its controls: adding and removing
//! traffic classes.

use sim_core::scenario::{Arrival, ClassConfig, LengthDist, Slo};
use sim_core::Scenario;

/// Most traffic classes the editor lets a scenario have.
pub const MAX_CLASSES: usize = 8;

/// A new class to add: a batch-like workload with a name no other class has.
pub fn new_class(s: &Scenario) -> ClassConfig {
    let mut n = s.classes.len();
    let mut name = if s.classes.iter().any(|c| c.name == "batch") { format!("class {n}") } else { "batch".to_string() };
    while s.classes.iter().any(|c| c.name == name) {
        n += 1;
        name = format!("class {n}");
    }
    ClassConfig {
        name,
        arrival: Arrival::Poisson { rate_per_s: 2.0 },
        num_requests: Some(500),
        input_tokens: Some(LengthDist::Lognormal { mean: 3000.0, sigma: 0.5 }),
        output_tokens: Some(LengthDist::Lognormal { mean: 400.0, sigma: 0.5 }),
        slo: Slo { ttft_ms: None, tpot_ms: None, e2e_ms: Some(60_000.0) },
        priority: 1,
        reserved_share: None,
        prefix: None,
        session: None,
        max_concurrency: None,
    }
}

/// Adds a class, unless the scenario has [`MAX_CLASSES`] already.
pub fn add_class(s: &mut Scenario) {
    if s.classes.len() < MAX_CLASSES {
        let c = new_class(s);
        s.classes.push(c);
    }
}

/// Removes class `i`, unless it is the only one.
pub fn remove_class(s: &mut Scenario, i: usize) {
    if s.classes.len() > 1 && i < s.classes.len() {
        s.classes.remove(i);
    }
}

/// Renames class `i`.
pub fn rename_class(s: &mut Scenario, i: usize, name: String) {
    if let Some(c) = s.classes.get_mut(i) {
        c.name = name;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat() -> Scenario {
        let p = sim_core::presets::find(sim_core::presets::DEFAULT_PRESET).expect("default preset");
        Scenario::from_json(p.json).expect("default preset reads")
    }

    #[test]
    fn added_classes_get_fresh_names_and_the_last_one_stays() {
        let mut s = chat();
        let before = s.classes.len();
        add_class(&mut s);
        add_class(&mut s);
        assert_eq!(s.classes.len(), before + 2);
        let mut names: Vec<&str> = s.classes.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), s.classes.len(), "names are unique");
        assert!(s.validate().is_ok());
        while s.classes.len() < MAX_CLASSES + 2 {
            let n = s.classes.len();
            add_class(&mut s);
            if s.classes.len() == n {
                break;
            }
        }
        assert_eq!(s.classes.len(), MAX_CLASSES);
        for _ in 0..20 {
            remove_class(&mut s, 0);
        }
        assert_eq!(s.classes.len(), 1);
        remove_class(&mut s, 5);
        rename_class(&mut s, 0, "x".into());
        assert_eq!(s.classes[0].name, "x");
    }
}
