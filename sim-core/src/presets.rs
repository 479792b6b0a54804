pub fn all() -> Vec<(&'static str, &'static str, crate::Scenario)> { vec![] }
