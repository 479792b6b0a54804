//! The sweep tab's state: the knob and its range as typed (checked before anything runs), and the
//! sweep on screen (its points, the knee, the phase, the CSV).

use lab_content::lessons::knee;

/// [`knee`], when a point with a larger value was run too (else goodput may still be rising).
pub fn knee_seen(points: &[lab_content::sweep::SweepPoint]) -> Option<(f64, f64)> {
    let (v, g) = knee(points)?;
    points.iter().any(|p| p.value > v && p.summary.is_some()).then_some((v, g))
}
use lab_content::sweep::{to_csv, Sweep, SweepParam, SweepPoint};
use sim_core::{Scenario, ScenarioError};

/// Most points a sweep may have.
pub const MAX_STEPS: usize = 100;

/// Why an input of the form cannot be used; each has a translation key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputError {
    Number,
    /// A decimal comma ("0,9"): refused with a hint to write a point.
    Comma,
    Positive,
    Share,
    Whole,
    /// Not a whole number of points from 2 to [`MAX_STEPS`] (`{min}`, `{max}` in the text).
    Steps,
    /// The range's ends are equal.
    Same,
}

impl InputError {
    pub fn key(self) -> &'static str {
        match self {
            InputError::Number => "features.sweep.err.number",
            InputError::Comma => "msg.form.comma",
            InputError::Positive => "features.sweep.err.positive",
            InputError::Share => "features.sweep.err.share",
            InputError::Whole => "features.sweep.err.whole",
            InputError::Steps => "features.sweep.err.steps",
            InputError::Same => "features.sweep.err.same",
        }
    }

    /// The values of its text's placeholders (the number of points' bounds).
    pub fn args(self) -> Vec<(&'static str, String)> {
        match self {
            InputError::Steps => vec![("min", "2".into()), ("max", MAX_STEPS.to_string())],
            _ => Vec::new(),
        }
    }
}

/// The knob's unit as the page writes it after a value.
pub fn unit(p: SweepParam) -> &'static str {
    match p {
        SweepParam::RatePerS => "req/s",
        _ => "",
    }
}

/// Translation key of the knob's name.
pub fn label_key(p: SweepParam) -> &'static str {
    match p {
        SweepParam::RatePerS => "features.sweep.param.rate_per_s",
        SweepParam::MaxNumSeqs => "features.sweep.param.max_num_seqs",
        SweepParam::GpuMemoryUtilization => "features.sweep.param.gpu_memory_utilization",
        SweepParam::MaxNumBatchedTokens => "features.sweep.param.max_num_batched_tokens",
        SweepParam::Replicas => "features.sweep.param.replicas",
    }
}

/// Starting range of each knob: from, to, points.
pub fn defaults(p: SweepParam) -> [&'static str; 3] {
    match p {
        SweepParam::RatePerS => ["2", "20", "10"],
        SweepParam::MaxNumSeqs => ["8", "128", "6"],
        SweepParam::GpuMemoryUtilization => ["0.6", "0.95", "8"],
        SweepParam::MaxNumBatchedTokens => ["512", "8192", "6"],
        SweepParam::Replicas => ["1", "8", "8"],
    }
}

fn integer(p: SweepParam) -> bool {
    matches!(p, SweepParam::MaxNumSeqs | SweepParam::MaxNumBatchedTokens | SweepParam::Replicas)
}

/// Reads one end of the range.
pub fn parse_end(p: SweepParam, text: &str) -> Result<f64, InputError> {
    let v = match crate::controls::read_decimal(text) {
        Ok(v) => v,
        // "0,9" is refused, never read as 9
        Err(crate::controls::TypedError::DecimalComma { .. }) => return Err(InputError::Comma),
        Err(crate::controls::TypedError::NotFinite { .. }) => return Err(InputError::Positive),
        Err(_) => return Err(InputError::Number),
    };
    if v <= 0.0 {
        return Err(InputError::Positive);
    }
    if p == SweepParam::GpuMemoryUtilization && v > 1.0 {
        return Err(InputError::Share);
    }
    if integer(p) && v.fract() != 0.0 {
        return Err(InputError::Whole);
    }
    Ok(v)
}

/// Reads the number of points.
pub fn parse_steps(text: &str) -> Result<usize, InputError> {
    match text.trim().parse::<usize>() {
        Ok(n) if (2..=MAX_STEPS).contains(&n) => Ok(n),
        _ => Err(InputError::Steps),
    }
}

/// The form: knob, and from, to, points as typed, with each input's error.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepForm {
    pub param: SweepParam,
    pub inputs: [String; 3],
    pub errors: [Option<InputError>; 3],
}

impl Default for SweepForm {
    fn default() -> Self {
        SweepForm::new(SweepParam::RatePerS)
    }
}

impl SweepForm {
    pub fn new(param: SweepParam) -> SweepForm {
        SweepForm { param, inputs: defaults(param).map(str::to_string), errors: [None; 3] }
    }

    /// Another knob: its starting range, no errors.
    pub fn set_param(&mut self, p: SweepParam) {
        *self = SweepForm::new(p);
    }

    /// A sweep of `base` (the scenario being edited) over the form's range, when every input is
    /// good (else `None`, each bad input saying why): the sweep and its run on screen (which draws
    /// the base's first class's TTFT objective), or why sim-core refuses it.
    pub fn start(&mut self, base: &Scenario) -> Option<Result<(Sweep, SweepRun), ScenarioError>> {
        let (a, b, n) = self.check()?;
        let slo = base.classes.first().and_then(|c| c.slo.ttft_ms);
        Some(Sweep::new(base, self.param, a, b, n).map(|sweep| (sweep, SweepRun::started(self.param, slo, n))))
    }

    /// Checks the inputs; the range and number of points when every input is good.
    pub fn check(&mut self) -> Option<(f64, f64, usize)> {
        let p = self.param;
        let a = parse_end(p, &self.inputs[0]);
        let b = parse_end(p, &self.inputs[1]);
        let n = parse_steps(&self.inputs[2]);
        let same = matches!((a, b), (Ok(x), Ok(y)) if x == y);
        self.errors = [a.err(), b.err().or(same.then_some(InputError::Same)), n.err()];
        match (a, b, n) {
            (Ok(a), Ok(b), Ok(n)) if !same => Some((a, b, n)),
            _ => None,
        }
    }
}

/// Where a sweep is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Phase {
    #[default]
    Idle,
    Running,
    Done,
    Cancelled,
}

impl Phase {
    /// As the page's `data-phase` names it.
    pub fn id(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Cancelled => "cancelled",
        }
    }

    /// Translation key of the status line (`{done}`, `{total}` points).
    pub fn key(self) -> &'static str {
        match self {
            Phase::Idle => "features.sweep.idle",
            Phase::Running => "features.sweep.running",
            Phase::Done => "features.sweep.done",
            Phase::Cancelled => "features.sweep.cancelled",
        }
    }
}

/// The sweep on screen.
#[derive(Clone, Debug)]
pub struct SweepRun {
    pub param: SweepParam,
    /// The base scenario's TTFT SLO (drawn as a reference line), ms.
    pub slo_ms: Option<f64>,
    pub points: Vec<SweepPoint>,
    /// Points in all.
    pub total: usize,
    pub phase: Phase,
    /// Share done, 0..=1.
    pub progress: f64,
}

impl Default for SweepRun {
    fn default() -> Self {
        SweepRun { phase: Phase::Idle, ..SweepRun::started(SweepParam::RatePerS, None, 0) }
    }
}

impl SweepRun {
    /// A sweep just started.
    pub fn started(param: SweepParam, slo_ms: Option<f64>, total: usize) -> SweepRun {
        SweepRun { param, slo_ms, points: Vec::new(), total, phase: Phase::Running, progress: 0.0 }
    }

    /// Points finished while it runs.
    pub fn advanced(&mut self, share: f64, new_points: Vec<SweepPoint>) {
        self.points.extend(new_points);
        self.progress = share;
    }

    pub fn finished(&mut self, points: Vec<SweepPoint>) {
        self.points = points;
        self.progress = 1.0;
        self.phase = Phase::Done;
    }

    pub fn cancelled(&mut self) {
        self.phase = Phase::Cancelled;
    }

    /// The value with the most goodput and that goodput — a knee only when a point past it was
    /// run (and gave less): the best of the last point measured is no knee, nothing past it
    /// having been run.
    pub fn knee(&self) -> Option<(f64, f64)> {
        knee_seen(&self.points)
    }

    /// The note above the table: the knee (`features.sweep.knee_text`: the knob's value with its
    /// unit, the goodput there), or, once the sweep is done without one, that goodput may still
    /// rise past the best point, the last one run (`features.sweep.no_knee`); nothing before.
    pub fn knee_note(&self) -> Option<(&'static str, Vec<(&'static str, String)>)> {
        match self.knee() {
            Some((v, g)) => Some((
                "features.sweep.knee_text",
                vec![
                    ("value", super::sweep_chart::with_unit(v, unit(self.param))),
                    ("goodput", crate::format::int(g.round() as u64)),
                ],
            )),
            None if self.phase == Phase::Done => Some(("features.sweep.no_knee", Vec::new())),
            None => None,
        }
    }

    /// The points as `llmsim sweep` writes them, once the sweep is not running and has points.
    /// The status line: the phase with the points done of all.
    pub fn status(&self, w: &dyn crate::words::Words) -> String {
        let args = [("done", self.points.len().to_string()), ("total", self.total.to_string())];
        w.tf(self.phase.key(), &args)
    }

    pub fn csv(&self) -> Option<String> {
        (self.phase != Phase::Running && !self.points.is_empty()).then(|| to_csv(self.param, &self.points))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Summary;

    #[test]
    fn inputs_are_checked_before_a_sweep_runs() {
        let mut f = SweepForm::default();
        assert_eq!(f.check(), Some((2.0, 20.0, 10)));
        f.inputs[2] = "two".into();
        f.inputs[0] = "-1".into();
        assert_eq!(f.check(), None);
        assert_eq!(f.errors, [Some(InputError::Positive), None, Some(InputError::Steps)]);
        f.inputs = ["5".into(), "5".into(), "101".into()];
        assert_eq!(f.check(), None);
        assert_eq!(f.errors, [None, Some(InputError::Same), Some(InputError::Steps)]);
        assert_eq!(InputError::Steps.args(), [("min", "2".to_string()), ("max", MAX_STEPS.to_string())]);
        assert!(InputError::Same.args().is_empty());
        f.inputs = ["1,000".into(), "5".into(), "2".into()];
        assert_eq!(f.check(), Some((1000.0, 5.0, 2)));
        assert_eq!(f.errors, [None; 3]);
    }

    #[test]
    fn a_sweep_starts_only_from_good_inputs_and_a_base_sim_core_accepts() {
        let base = Scenario::from_json(sim_core::presets::find("chat-latency-first").expect("preset").json).unwrap();
        let mut f = SweepForm::default();
        let (sweep, run) = f.start(&base).expect("good inputs").expect("accepted");
        assert_eq!((run.param, run.total, run.phase), (f.param, 10, Phase::Running));
        assert_eq!(run.slo_ms, base.classes[0].slo.ttft_ms);
        assert!(!sweep.is_done());
        f.inputs[2] = "1".into();
        assert!(f.start(&base).is_none());
        assert_eq!(f.errors[2], Some(InputError::Steps));
        let mut broken = base.clone();
        broken.scheduler.max_num_seqs = 0;
        let mut f = SweepForm::default();
        assert!(f.start(&broken).expect("good inputs").is_err());
    }

    #[test]
    fn the_status_line_counts_the_points_done_of_all() {
        let mut r = SweepRun::started(SweepParam::RatePerS, None, 3);
        r.advanced(0.3, vec![SweepPoint { value: 1.0, summary: None, error: None, problem: None }]);
        assert_eq!(r.status(&crate::words::Keys), "features.sweep.running{done=1,total=3}");
        assert_eq!(SweepRun::default().status(&crate::words::Keys), "features.sweep.idle{done=0,total=0}");
    }

    #[test]
    fn each_knob_has_its_range_and_rules() {
        let mut f = SweepForm::default();
        f.inputs[0] = "x".into();
        f.check();
        f.set_param(SweepParam::GpuMemoryUtilization);
        assert_eq!(f.inputs, ["0.6", "0.95", "8"].map(String::from));
        assert_eq!(f.errors, [None; 3]);
        assert_eq!(parse_end(SweepParam::GpuMemoryUtilization, "1.5"), Err(InputError::Share));
        assert_eq!(parse_end(SweepParam::MaxNumSeqs, "8.5"), Err(InputError::Whole));
        assert_eq!(parse_end(SweepParam::RatePerS, "8.5"), Ok(8.5));
        assert_eq!(parse_end(SweepParam::RatePerS, "inf"), Err(InputError::Positive));
    }

    #[test]
    fn the_run_collects_points_and_offers_csv_only_when_not_running() {
        let mut r = SweepRun::started(SweepParam::RatePerS, Some(500.0), 3);
        assert_eq!(r.phase.id(), "running");
        let point = |v: f64, good: f64| {
            let mut s = Summary::default();
            s.all.goodput.output_tokens_per_s = good;
            lab_content::sweep::SweepPoint { value: v, summary: Some(s), error: None, problem: None }
        };
        r.advanced(0.4, vec![point(4.0, 100.0)]);
        assert_eq!(r.points.len(), 1);
        assert!(r.csv().is_none());
        r.cancelled();
        assert_eq!(r.phase, Phase::Cancelled);
        assert!(r.csv().is_some_and(|c| c.starts_with("rate_per_s,")));
        r.finished(vec![point(4.0, 100.0), point(8.0, 300.0), point(12.0, 200.0)]);
        assert_eq!((r.phase, r.progress), (Phase::Done, 1.0));
        assert_eq!(r.knee(), Some((8.0, 300.0)));
        let note = r.knee_note().unwrap();
        assert_eq!(note.0, "features.sweep.knee_text");
        assert_eq!(note.1, [("value", format!("{} req/s", crate::format::plain(8.0))), ("goodput", "300".into())]);
        assert_eq!(r.csv().map(|c| c.trim().lines().count()), Some(4));
        // goodput still rising at the last point run: no knee is claimed
        r.finished(vec![point(4.0, 100.0), point(8.0, 300.0), point(12.0, 350.0)]);
        assert_eq!(r.knee(), None);
        assert_eq!(r.knee_note(), Some(("features.sweep.no_knee", vec![])));
        let mut going = r.clone();
        going.phase = Phase::Running;
        assert_eq!(going.knee_note(), None);
        // nor when the point past the best failed to run
        let mut failed = point(16.0, 0.0);
        failed.summary = None;
        r.finished(vec![point(4.0, 100.0), point(8.0, 300.0), failed]);
        assert_eq!(r.knee(), None);
    }
}
