//! The plan's search shared by several Web Workers, one per core but the page's own: each
//! worker searches its share of the candidates (`PlanOptions::shard`, every n-th of the
//! least-cost order) a step at a time, and the page, between steps, tells each the cheapest
//! configuration any worker has found so far, so that no worker simulates a candidate that
//! cannot beat it. When every worker's search is over, each is told the cheapest of all and
//! works out its share of the answer (why cheaper candidates failed, its points of the Pareto
//! fronts); the first worker joins the shares (`PlanAnswer::merge`) into the answer on screen.
//!
//! Two halves, both without the DOM: [`Worker`] is what runs in a worker (orders in, replies
//! out, JSON text); [`Crew`] is the page's side (which order goes to which worker next, and
//! the progress of all as one). The page's thread only passes messages, never searches.

use lab_content::plan::{PlanAnswer, Planner};
use serde::{Deserialize, Serialize};
use sim_core::sim::BuiltinTraces;

use super::plan::{Outcome, Reply, Request, Step};

static TRACES: BuiltinTraces = BuiltinTraces;

/// Most workers a search starts (each holds its own copy of the model and the planner).
pub const MAX_WORKERS: u32 = 8;

/// Workers for a browser that reports `cores` logical processors
/// (`navigator.hardwareConcurrency`, absent or 0 when it will not say): one per core but the
/// page's own, at least one, at most [`MAX_WORKERS`].
pub fn workers_for(cores: Option<f64>) -> u32 {
    let cores = cores.filter(|c| c.is_finite() && *c >= 1.0).map_or(2, |c| c.min(64.0) as u32);
    cores.saturating_sub(1).clamp(1, MAX_WORKERS)
}

/// A cost to beat: the cheapest configuration's USD/hour and its candidate's rank in the
/// least-cost order (of two at the same cost the earlier wins, whichever worker found it).
pub type Mark = (f64, usize);

/// What the page tells a worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Begin a search: the request, and this worker's share (`worker` of `workers`).
    Start { request: Box<Request>, worker: u32, workers: u32 },
    /// Take one step, knowing the cheapest any worker has found so far.
    Step { best: Option<Mark> },
    /// Every worker's search is over: work out this share of the answer around the cheapest of all.
    Answer { best: Option<Mark> },
    /// Join the workers' shares of the answer (each a `PlanAnswer` as JSON).
    Merge { parts: Vec<String> },
}

impl Order {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A `Start` order's JSON, the contract written as its export is (`Request::json`).
    pub fn start_json(request: &str, worker: u32, workers: u32) -> String {
        format!("{{\"start\":{{\"request\":{request},\"worker\":{worker},\"workers\":{workers}}}}}")
    }
}

/// A worker's side: its share of the search, a step per order.
#[derive(Default)]
pub struct Worker {
    planner: Option<Planner<'static>>,
}

fn said(r: Reply) -> String {
    r.to_json()
}

/// An order for a search this worker does not have (not started, or its share already given).
fn lost() -> Vec<String> {
    vec![said(Reply::Error("features.plan.failed".into()))]
}

impl Worker {
    /// Carries out one order (JSON text); returns the replies to post (JSON text): progress
    /// after every order, then, when this worker's share of the answer is ready, the share
    /// (`Reply::Part`), and on `Merge` the answer.
    pub fn hear(&mut self, order: &str) -> Vec<String> {
        let order: Order = match serde_json::from_str(order) {
            Ok(o) => o,
            Err(e) => return vec![said(Reply::Error(e.to_string()))],
        };
        match order {
            Order::Start { request, worker, workers } => {
                let mut opts = match request.choices.options() {
                    Ok(o) => o,
                    Err(key) => return vec![said(Reply::Error(key.to_string()))],
                };
                opts.shard = Some((worker, workers.max(1)));
                match Planner::new(&request.contract, &opts, &TRACES) {
                    Ok(p) => {
                        let step = Step::from(&p.progress());
                        self.planner = Some(p);
                        vec![said(Reply::Progress(step))]
                    }
                    Err(e) => vec![said(Reply::Error(e.to_string()))],
                }
            }
            Order::Step { best } => {
                let Some(p) = self.planner.as_mut() else { return lost() };
                if let Some((cost, rank)) = best {
                    p.offer_best(cost, rank);
                }
                let more = p.step();
                self.after(more)
            }
            Order::Answer { best } => {
                let Some(p) = self.planner.as_mut() else { return lost() };
                p.begin_answer(best);
                vec![said(Reply::Progress(Step::from(&p.progress())))]
            }
            Order::Merge { parts } => {
                let parts: Result<Vec<PlanAnswer>, _> = parts.iter().map(|t| serde_json::from_str(t)).collect();
                match parts {
                    Ok(parts) => vec![said(Reply::Answer(Box::new(Outcome::of(&PlanAnswer::merge(parts)))))],
                    Err(e) => vec![said(Reply::Error(e.to_string()))],
                }
            }
        }
    }

    /// After a step: its progress, or once there is no more to do, this share of the answer.
    fn after(&mut self, more: bool) -> Vec<String> {
        let Some(p) = self.planner.as_ref() else { return lost() };
        let step = Step::from(&p.progress());
        if more || !step.answering {
            return vec![said(Reply::Progress(step))];
        }
        match self.planner.take() {
            Some(p) => vec![said(Reply::Part(serde_json::to_string(&p.answer()).unwrap_or_default()))],
            None => lost(),
        }
    }
}

/// Where one worker is, as the page knows it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Member {
    step: Option<Step>,
    part: Option<String>,
    /// Told to answer.
    answering: bool,
}

/// The page's side: the workers' last progress and shares, and the orders that follow each reply.
#[derive(Clone, Debug, PartialEq)]
pub struct Crew {
    members: Vec<Member>,
    merging: bool,
}

/// What follows a worker's reply: orders to send (worker, JSON text) and what the page shows.
#[derive(Debug, Default, PartialEq)]
pub struct Heard {
    pub orders: Vec<(usize, String)>,
    pub show: Option<Reply>,
}

impl Crew {
    pub fn new(workers: u32) -> Crew {
        Crew { members: vec![Member::default(); workers.max(1) as usize], merging: false }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The `Start` order of worker `k` (the request as `Request::json` writes it).
    pub fn start(&self, k: usize, request: &str) -> String {
        Order::start_json(request, k as u32, self.members.len() as u32)
    }

    /// The cheapest configuration any worker has found so far.
    fn best(&self) -> Option<(Mark, Option<String>)> {
        self.members
            .iter()
            .filter_map(|m| {
                let s = m.step.as_ref()?;
                Some(((s.best_usd_per_hour?, s.best_rank?), s.best_label.clone()))
            })
            .min_by(|a, b| a.0 .0.total_cmp(&b.0 .0).then(a.0 .1.cmp(&b.0 .1)))
    }

    /// Every worker's progress as one.
    fn progress(&self) -> Step {
        let steps: Vec<&Step> = self.members.iter().filter_map(|m| m.step.as_ref()).collect();
        let best = self.best();
        Step {
            answering: self.members.iter().all(|m| m.answering),
            waiting: false,
            tried: steps.iter().map(|s| s.tried).sum(),
            total: steps.iter().map(|s| s.total).sum(),
            simulated: steps.iter().map(|s| s.simulated).sum(),
            best_usd_per_hour: best.as_ref().map(|b| b.0 .0),
            best_rank: best.as_ref().map(|b| b.0 .1),
            best_label: best.and_then(|b| b.1),
        }
    }

    /// Worker `k`'s reply (JSON text): the orders that follow, and what the page shows.
    pub fn hear(&mut self, k: usize, text: &str) -> Heard {
        let reply = Reply::read(text).unwrap_or_else(Reply::Error);
        if k >= self.members.len() {
            return Heard::default();
        }
        match reply {
            Reply::Progress(step) => {
                let waiting = step.waiting;
                self.members[k].step = Some(step);
                let mut orders = Vec::new();
                let best = self.best().map(|b| b.0);
                if waiting {
                    // the search is over when every worker waits: all answer around the cheapest
                    if self.members.iter().all(|m| m.step.as_ref().is_some_and(|s| s.waiting)) {
                        for (i, m) in self.members.iter_mut().enumerate() {
                            m.answering = true;
                            orders.push((i, Order::Answer { best }.to_json()));
                        }
                    }
                } else {
                    orders.push((k, Order::Step { best }.to_json()));
                }
                Heard { orders, show: Some(Reply::Progress(self.progress())) }
            }
            Reply::Part(part) => {
                self.members[k].part = Some(part);
                if self.merging || self.members.iter().any(|m| m.part.is_none()) {
                    return Heard { orders: Vec::new(), show: None };
                }
                self.merging = true;
                let parts = self.members.iter_mut().filter_map(|m| m.part.take()).collect();
                Heard { orders: vec![(0, Order::Merge { parts }.to_json())], show: None }
            }
            other => Heard { orders: Vec::new(), show: Some(other) },
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tabs::plan::Choices;
    use lab_content::contract::{Contract, EXAMPLE};
    use std::collections::VecDeque;

    fn small() -> Choices {
        Choices {
            gpus: vec!["l4".into(), "a100-80gb".into(), "h100-sxm".into()],
            engines: vec!["vllm".into(), "sglang".into()],
            max_gpus: 16,
            splits: false,
        }
    }

    #[test]
    fn one_worker_per_core_but_the_pages_own() {
        assert_eq!(workers_for(Some(2.0)), 1);
        assert_eq!(workers_for(Some(1.0)), 1);
        assert_eq!(workers_for(Some(4.0)), 3);
        assert_eq!(workers_for(Some(64.0)), MAX_WORKERS);
        assert_eq!(workers_for(None), 1);
        assert_eq!(workers_for(Some(f64::NAN)), 1);
        assert_eq!(workers_for(Some(0.0)), 1);
    }

    /// Runs a search with `n` workers, delivering orders in the order `pick` chooses among the
    /// workers with orders waiting (so replies interleave as a browser's would); returns the
    /// answer and the progress the page showed.
    pub(crate) fn crew_search(n: u32, request: &str, pick: &mut dyn FnMut(usize) -> usize) -> (Outcome, Vec<Step>) {
        let mut crew = Crew::new(n);
        let mut workers: Vec<Worker> = (0..n).map(|_| Worker::default()).collect();
        let mut inbox: Vec<VecDeque<String>> =
            (0..n as usize).map(|k| VecDeque::from([crew.start(k, request)])).collect();
        let mut shown = Vec::new();
        for _ in 0..1_000_000 {
            let ready: Vec<usize> = (0..n as usize).filter(|&k| !inbox[k].is_empty()).collect();
            assert!(!ready.is_empty(), "the search stalled: no worker has an order");
            let k = ready[pick(ready.len())];
            let order = inbox[k].pop_front().unwrap();
            for reply in workers[k].hear(&order) {
                let heard = crew.hear(k, &reply);
                for (to, o) in heard.orders {
                    inbox[to].push_back(o);
                }
                match heard.show {
                    Some(Reply::Progress(s)) => shown.push(s),
                    Some(Reply::Answer(o)) => return (*o, shown),
                    Some(Reply::Error(e)) => panic!("{e}"),
                    _ => {}
                }
            }
        }
        panic!("no answer");
    }

    /// One worker or three, replies interleaved in any order: the same best and the same cheaper
    /// candidates with the same binding constraint as the planner run alone, and (the workers
    /// sharing the run budgets) not much more work: on the whole default search too, where the
    /// Pareto fronts' budget binds.
    #[test]
    fn several_workers_find_what_one_search_finds() {
        let contract = Contract::from_json(EXAMPLE).unwrap();
        let mut seed = 7u64;
        let mut lcg = move |len: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % len
        };
        for (choices, n) in [(small(), 1), (small(), 3), (Choices::default(), 3)] {
            let request = Request::json(&contract, &choices);
            let planner = || Planner::new(&contract, &choices.options().unwrap(), &TRACES).unwrap();
            let total = planner().progress().total;
            let alone = Outcome::of(&planner().run());
            let (o, shown) = crew_search(n, &request, &mut lcg);
            let (a, b) = (alone.best.as_ref().unwrap(), o.best.as_ref().expect("a best"));
            assert_eq!((&a.point.label, a.point.usd_per_hour), (&b.point.label, b.point.usd_per_hour), "{n} workers");
            assert_eq!(a.scenario, b.scenario);
            let key = |r: &super::super::plan::RejectedView| (r.label.clone(), r.why.bound.clone());
            assert_eq!(
                alone.rejected.iter().map(key).collect::<Vec<_>>(),
                o.rejected.iter().map(key).collect::<Vec<_>>()
            );
            assert!(
                o.simulated * 2 <= alone.simulated * 3,
                "{n} workers: {} runs, one search {}",
                o.simulated,
                alone.simulated
            );
            // the progress shown: every worker's total, best never getting dearer, then the answer phase
            assert!(shown.iter().all(|s| s.total <= total), "{n}");
            assert_eq!(shown.iter().map(|s| s.total).max(), Some(total), "{n}");
            let costs: Vec<f64> = shown.iter().filter_map(|s| s.best_usd_per_hour).collect();
            assert!(costs.windows(2).all(|w| w[1] <= w[0]), "{costs:?}");
            assert!(shown.last().unwrap().answering);
            assert!(shown.iter().any(|s| !s.answering && s.best_usd_per_hour.is_some()));
        }
    }

    #[test]
    fn bad_orders_are_error_replies() {
        let mut w = Worker::default();
        let read = |v: Vec<String>| v.iter().map(|t| Reply::read(t).unwrap()).collect::<Vec<_>>();
        assert!(matches!(read(w.hear("{")).as_slice(), [Reply::Error(_)]));
        assert_eq!(
            read(w.hear(&Order::Step { best: None }.to_json())),
            vec![Reply::Error("features.plan.failed".into())]
        );
        let choices = Choices { engines: Vec::new(), ..small() };
        let start = Order::start_json(&Request::json(&Contract::from_json(EXAMPLE).unwrap(), &choices), 0, 1);
        assert_eq!(read(w.hear(&start)), vec![Reply::Error("features.plan.err.no_engine".into())]);
        let merge = Order::Merge { parts: vec!["{}".into()] }.to_json();
        assert!(matches!(read(w.hear(&merge)).as_slice(), [Reply::Error(_)]));
        // the page side: a reply it cannot read is shown as an error; a stranger's is ignored
        let mut crew = Crew::new(2);
        assert!(matches!(crew.hear(0, "nonsense").show, Some(Reply::Error(_))));
        assert_eq!(crew.hear(5, &Reply::Progress(Step::default()).to_json()), Heard::default());
    }
}
