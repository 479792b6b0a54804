//! One budgeted, cancellable job runner for the work the teaching tabs do in the background:
//! a lesson's runs, a sweep, a contract's acceptance run.
//!
//! A [`Job`] does its work in small [`Job::step`]s (a few thousand simulation events each) and
//! says how far it is. A [`Runner`] owns at most one job of a kind: [`Runner::run`] steps it
//! until a [`Budget`] says the time is up (the page: a few milliseconds of `performance.now()`
//! per animation frame; the tests: a count), and reports progress or the result. Cancelling is
//! the runner's business, not the job's: [`Runner::start`] hands out a [`Ticket`], and a ticket
//! from before the last [`Runner::cancel`] or [`Runner::start`] is stale, so the frame loop
//! that holds it stops.
//!
//! The page's side is one small driver (`workbench::start` in app/src/workbench.rs) that calls
//! [`Runner::run`] once per animation frame until the job is finished or stopped.

use lab_content::contract::{Contract, ContractReport};
use lab_content::sweep::{Sweep, SweepPoint};
use sim_core::metrics::Summary;
use sim_core::{Scenario, ScenarioError, Simulation};

/// Simulation events a job processes in one step (between two looks at the budget).
pub const EVENTS_PER_STEP: u64 = 2048;

/// Work done in steps.
pub trait Job {
    /// What the job reports while it works.
    type Progress;
    /// What it finishes with.
    type Output;

    /// Does one bounded piece of work; `Some` with the result once the job is finished (it is
    /// not stepped again after that).
    fn step(&mut self) -> Option<Self::Output>;

    /// How far the job is, for a progress bar (called after a budget's worth of steps).
    fn progress(&mut self) -> Self::Progress;
}

/// Says when the time for a slice of work is up.
pub trait Budget {
    fn spent(&mut self) -> bool;
}

/// A closure is a budget: the page's `|| now_ms() > deadline`.
impl<F: FnMut() -> bool> Budget for F {
    fn spent(&mut self) -> bool {
        self()
    }
}

/// A budget of a number of steps (for tests, and for running to the end with `u64::MAX`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steps(pub u64);

impl Budget for Steps {
    fn spent(&mut self) -> bool {
        self.0 = self.0.saturating_sub(1);
        self.0 == 0
    }
}

/// Which start of a runner's job a frame loop drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u64);

/// What one slice of work came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Status<P, O> {
    /// Still working; how far.
    Working(P),
    /// Finished with this result.
    Finished(O),
    /// The ticket is stale: the job was cancelled or replaced. Stop driving it.
    Stopped,
}

/// Owns at most one job and the generation that cancels it.
pub struct Runner<J> {
    job: Option<J>,
    generation: u64,
}

impl<J> Default for Runner<J> {
    fn default() -> Self {
        Runner { job: None, generation: 0 }
    }
}

impl<J: Job> Runner<J> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts `job`, replacing (and so cancelling) the one before.
    pub fn start(&mut self, job: J) -> Ticket {
        self.generation += 1;
        self.job = Some(job);
        Ticket(self.generation)
    }

    /// Drops the job; every ticket handed out so far is stale.
    pub fn cancel(&mut self) {
        self.generation += 1;
        self.job = None;
    }

    /// A job is started and not finished or cancelled.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// The running job, to look at (e.g. a sweep's points so far).
    pub fn job(&self) -> Option<&J> {
        self.job.as_ref()
    }

    /// Steps the job of `ticket` until it finishes or `budget` is spent (at least one step, so
    /// every slice makes progress).
    pub fn run(&mut self, ticket: Ticket, budget: &mut impl Budget) -> Status<J::Progress, J::Output> {
        if ticket.0 != self.generation {
            return Status::Stopped;
        }
        let Some(job) = self.job.as_mut() else { return Status::Stopped };
        loop {
            if let Some(out) = job.step() {
                self.job = None;
                return Status::Finished(out);
            }
            if budget.spent() {
                return Status::Working(job.progress());
            }
        }
    }
}

/// Runs a job to its end at once (tests, and callers that need no slices).
pub fn run_to_end<J: Job>(job: J) -> J::Output {
    let mut runner = Runner::new();
    let ticket = runner.start(job);
    loop {
        if let Status::Finished(out) = runner.run(ticket, &mut Steps(u64::MAX)) {
            return out;
        }
    }
}

/// How far a job of several runs is: runs finished, runs in all, share done 0..=1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunsProgress {
    pub done: usize,
    pub total: usize,
    pub share: f64,
}

/// One finished run: its summary and the HBM plan it ran with.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub summary: Summary,
    pub plan: sim_core::HbmPlan,
}

/// Scenarios run one after another to their ends (a lesson's runs). Finishes with every run's
/// result, or with the message of the first scenario that cannot run.
pub struct Runs {
    scenarios: Vec<Scenario>,
    current: Option<Simulation>,
    done: Vec<RunResult>,
}

impl Runs {
    pub fn new(scenarios: Vec<Scenario>) -> Runs {
        let n = scenarios.len();
        Runs { scenarios, current: None, done: Vec::with_capacity(n) }
    }
}

impl Job for Runs {
    type Progress = RunsProgress;
    type Output = Result<Vec<RunResult>, String>;

    fn step(&mut self) -> Option<Self::Output> {
        if self.done.len() == self.scenarios.len() {
            return Some(Ok(std::mem::take(&mut self.done)));
        }
        let sim = match self.current.as_mut() {
            Some(sim) => sim,
            None => match Simulation::new(&self.scenarios[self.done.len()]) {
                Ok(sim) => self.current.insert(sim),
                Err(e) => return Some(Err(e.to_string())),
            },
        };
        sim.advance_events(EVENTS_PER_STEP);
        if sim.is_finished() {
            self.done.push(RunResult { summary: sim.summary(), plan: sim.tightest_hbm_plan().clone() });
            self.current = None;
            if self.done.len() == self.scenarios.len() {
                return Some(Ok(std::mem::take(&mut self.done)));
            }
        }
        None
    }

    fn progress(&mut self) -> RunsProgress {
        let total = self.scenarios.len();
        let done = self.done.len();
        let partial = self.current.as_ref().map_or(0.0, Simulation::progress);
        let share = if total == 0 { 1.0 } else { ((done as f64 + partial) / total as f64).min(1.0) };
        RunsProgress { done, total, share }
    }
}

/// How far a sweep is: share done, and the points finished since the last report.
#[derive(Clone, Debug)]
pub struct SweepProgress {
    pub share: f64,
    pub new_points: Vec<SweepPoint>,
}

/// A sweep (`lab_content::sweep::Sweep`) as a job; finishes with every point.
pub struct SweepJob {
    sweep: Sweep,
    reported: usize,
}

impl SweepJob {
    pub fn new(sweep: Sweep) -> SweepJob {
        SweepJob { sweep, reported: 0 }
    }

    /// Points in all.
    pub fn total(&self) -> usize {
        self.sweep.total()
    }
}

impl Job for SweepJob {
    type Progress = SweepProgress;
    type Output = Vec<SweepPoint>;

    fn step(&mut self) -> Option<Vec<SweepPoint>> {
        self.sweep.step(EVENTS_PER_STEP).then(|| self.sweep.points().to_vec())
    }

    fn progress(&mut self) -> SweepProgress {
        let points = self.sweep.points();
        let new_points = points[self.reported.min(points.len())..].to_vec();
        self.reported = points.len();
        SweepProgress { share: self.sweep.progress(), new_points }
    }
}

/// A contract's acceptance test: its scenario run to the end, then checked line by line.
pub struct Acceptance {
    contract: Contract,
    scenario: Scenario,
    run: Runs,
}

impl Acceptance {
    /// The contract as it is run; sim-core's messages when its scenario cannot run.
    pub fn new(contract: Contract) -> Result<Acceptance, ScenarioError> {
        let scenario = contract.scenario()?;
        // fail here, not in the first slice: the form shows the messages at once
        Simulation::new(&scenario)?;
        Ok(Acceptance { run: Runs::new(vec![scenario.clone()]), contract, scenario })
    }
}

impl Job for Acceptance {
    /// Share done, 0..=1.
    type Progress = f64;
    type Output = Result<ContractReport, String>;

    fn step(&mut self) -> Option<Self::Output> {
        let out = self.run.step()?;
        Some(out.and_then(|mut runs| {
            let r = runs.pop().ok_or_else(|| "no run".to_string())?;
            Ok(self.contract.report(self.scenario.clone(), r.summary, &r.plan))
        }))
    }

    fn progress(&mut self) -> f64 {
        self.run.progress().share
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_content::contract::EXAMPLE;
    use lab_content::sweep::SweepParam;

    /// Counts to `n`, one per step.
    struct Count {
        at: u32,
        n: u32,
    }

    impl Job for Count {
        type Progress = u32;
        type Output = &'static str;
        fn step(&mut self) -> Option<&'static str> {
            self.at += 1;
            (self.at == self.n).then_some("done")
        }
        fn progress(&mut self) -> u32 {
            self.at
        }
    }

    fn small(rate: f64, requests: u64) -> Scenario {
        let json = sim_core::presets::find("chat-latency-first").expect("preset").json;
        let mut s = Scenario::from_json(json).expect("a preset parses");
        for c in &mut s.classes {
            c.num_requests = Some(requests);
            if let sim_core::scenario::Arrival::Poisson { rate_per_s }
            | sim_core::scenario::Arrival::Bursty { rate_per_s, .. } = &mut c.arrival
            {
                *rate_per_s = rate;
            }
        }
        s
    }

    #[test]
    fn a_budget_bounds_each_slice_and_progress_is_reported() {
        let mut r = Runner::new();
        let t = r.start(Count { at: 0, n: 10 });
        assert_eq!(r.run(t, &mut Steps(3)), Status::Working(3));
        assert_eq!(r.run(t, &mut Steps(3)), Status::Working(6));
        assert!(r.is_running());
        assert_eq!(r.run(t, &mut Steps(100)), Status::Finished("done"));
        assert!(!r.is_running());
        // a finished job's ticket drives nothing more
        assert_eq!(r.run(t, &mut Steps(1)), Status::Stopped);
    }

    #[test]
    fn a_closure_is_a_budget_and_every_slice_makes_progress() {
        let mut r = Runner::new();
        let t = r.start(Count { at: 0, n: 5 });
        // time is already up: still one step
        assert_eq!(r.run(t, &mut || true), Status::Working(1));
        let mut calls = 0;
        assert_eq!(
            r.run(t, &mut || {
                calls += 1;
                calls == 2
            }),
            Status::Working(3)
        );
    }

    #[test]
    fn cancel_and_restart_make_old_tickets_stale() {
        let mut r = Runner::new();
        let first = r.start(Count { at: 0, n: 10 });
        assert_eq!(r.run(first, &mut Steps(2)), Status::Working(2));
        r.cancel();
        assert!(!r.is_running());
        assert_eq!(r.run(first, &mut Steps(2)), Status::Stopped);
        let second = r.start(Count { at: 0, n: 10 });
        let third = r.start(Count { at: 0, n: 4 });
        assert_eq!(r.run(second, &mut Steps(2)), Status::Stopped);
        assert_eq!(r.run(third, &mut Steps(100)), Status::Finished("done"));
        assert_ne!(second, third);
    }

    #[test]
    fn runs_in_slices_give_the_same_summaries_as_straight_runs() {
        let scenarios = vec![small(4.0, 60), small(12.0, 60)];
        let straight: Vec<Summary> =
            scenarios.iter().map(|s| Simulation::new(s).expect("valid").run_to_end()).collect();
        let mut r = Runner::new();
        let t = r.start(Runs::new(scenarios));
        let mut last = 0.0;
        let mut slices = 0;
        let out = loop {
            slices += 1;
            match r.run(t, &mut Steps(1)) {
                Status::Working(p) => {
                    assert_eq!(p.total, 2);
                    assert!(p.share >= last && p.share <= 1.0, "{} after {last}", p.share);
                    last = p.share;
                }
                Status::Finished(out) => break out,
                Status::Stopped => panic!("stopped"),
            }
        };
        assert!(slices > 2, "ran in {slices} slices");
        let sums: Vec<Summary> = out.expect("runs").into_iter().map(|r| r.summary).collect();
        assert_eq!(sums, straight);
    }

    #[test]
    fn a_scenario_that_cannot_run_ends_the_runs_with_its_message() {
        let mut bad = small(4.0, 10);
        bad.gpu_memory_utilization = 0.01;
        let out = run_to_end(Runs::new(vec![small(4.0, 10), bad]));
        let msg = out.expect_err("the second cannot run");
        assert!(!msg.is_empty());
    }

    #[test]
    fn a_sweep_reports_each_point_once_and_finishes_with_all() {
        let base = small(4.0, 40);
        let sweep = Sweep::new(&base, SweepParam::RatePerS, 2.0, 10.0, 3).expect("valid");
        let mut r = Runner::new();
        let t = r.start(SweepJob::new(sweep));
        let mut seen = Vec::new();
        let all = loop {
            match r.run(t, &mut Steps(1)) {
                Status::Working(p) => seen.extend(p.new_points.iter().map(|p| p.value)),
                Status::Finished(all) => break all,
                Status::Stopped => panic!("stopped"),
            }
        };
        let values: Vec<f64> = all.iter().map(|p| p.value).collect();
        assert_eq!(values, vec![2.0, 6.0, 10.0]);
        assert!(all.iter().all(|p| p.summary.is_some()));
        // reported once each, in order, before the end
        assert!(values.starts_with(&seen), "{seen:?}");
    }

    #[test]
    fn the_acceptance_run_checks_the_example_contract() {
        let c = Contract::from_json(EXAMPLE).expect("example");
        let report = run_to_end(Acceptance::new(c.clone()).expect("runs")).expect("report");
        assert!(report.pass);
        assert!(!report.lines.is_empty());
        let mut broken = c;
        broken.resources.gpu_memory_utilization = 0.01;
        assert!(Acceptance::new(broken).is_err());
    }
}
