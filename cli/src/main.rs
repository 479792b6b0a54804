fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let sc = sim_core::Scenario::from_json(&text).unwrap_or_else(|e| { eprintln!("{e}"); std::process::exit(2) });
    let mut sim = sim_core::Simulation::new(&sc).unwrap_or_else(|e| { eprintln!("{e}"); std::process::exit(2) });
    let s = sim.run_to_end();
    sim.check_invariants().unwrap();
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
    eprintln!("events {}", sim.events_processed());
}
