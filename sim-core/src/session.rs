//! Multi-turn conversations: `classes[i].session`, or a trace's `session_id` column.
//!
//! A class with a `session` starts a conversation at each of its arrivals (`num_requests` counts
//! conversations). Its first turn is the arrival's request; each later turn is sent
//! `think_time_ms` after the previous turn's answer ends, and its prompt is the whole history —
//! every earlier prompt and answer — plus new input tokens drawn from the class's
//! `input_tokens` (its answer from `output_tokens`). The number of turns is drawn from `turns`
//! when the conversation starts. A turn that fails (rejected, timed out, lost in an OOM
//! restart) ends its conversation: the user gives up, and the turns not sent are not counted.
//! A turn whose prompt and answer would not fit in `max_model_len` is rejected like any other
//! such request, so a long conversation ends at the context limit.
//!
//! Each conversation draws its turns and lengths from a stream of its own (the scenario's seed,
//! the class and the conversation's number), so two configurations compared side by side see
//! the same conversations, whatever order their turns reach the server in.
//!
//! In a trace, rows with the same `session_id` are one conversation's turns in arrival order;
//! `input_len` is the turn's new tokens (the history is added), and a turn is sent at its
//! `arrival_s`, or when the previous turn's answer ends if that is later (a user does not
//! send the next message before reading the answer). A trace's conversation sends all its rows,
//! whether or not an earlier turn failed: they are what its user sent.
//!
//! A class with shared prefixes (`classes[i].prefix`) and a `session` sends conversations that
//! start with one of its groups' prefixes: each conversation belongs to one group, drawn from
//! its own stream when it starts (a trace's: its first row's `prefix_group`, or the class's
//! draw for it). Its input lengths count the shared prefix, as a single request's do: the first
//! turn's prompt is the drawn length raised to the prefix and one token more, and a later
//! turn's new input is the drawn length raised so, less the prefix. So turn k's prompt is the
//! shared prefix, then every earlier turn's new input and answer, then its own new input.
//!
//! With prefix caching a conversation's history is a prefix of its next prompt: each replica
//! keeps a chain of the conversation's blocks (`sim::prefix`), grown by each turn that ends there
//! (after its group's chain, which every conversation and request of the group shares).

use crate::scenario::Scenario;
use crate::workload::{class_rng, ClassRng, LenSampler};
use rand::Rng;
use std::collections::VecDeque;

pub use crate::scenario::{SessionConfig, MAX_THINK_MS, MAX_TURNS};

/// The turns of conversation `index` of class `class` (its stream's first draw; its group,
/// with shared prefixes, is the second).
fn turns_of(seed: u64, class: usize, index: u64, turns: &LenSampler) -> (u32, ClassRng) {
    let mut rng = class_rng(seed, class, 16 + index);
    let n = turns.sample(&mut rng).clamp(1, MAX_TURNS);
    (n, rng)
}

/// Requests a session class of `conversations` conversations sends if none ends early.
pub(crate) fn planned_requests(seed: u64, class: usize, conversations: u64, sc: &SessionConfig) -> u64 {
    let turns = LenSampler::new(&sc.turns);
    (0..conversations).map(|k| turns_of(seed, class, k, &turns).0 as u64).sum()
}

/// One open conversation.
struct Open {
    class: u16,
    /// Turns still to send after the one in flight (a trace's: its rows not yet arrived).
    left: u32,
    /// Tokens of every prompt and answer so far (the next prompt starts with them).
    history: u32,
    /// Its own stream (config sessions; `None` for a trace's).
    rng: Option<ClassRng>,
    think_us: u64,
    /// A turn is on the server.
    in_flight: bool,
    /// A trace's rows that arrived while a turn was on the server: (new input, output).
    held: VecDeque<(u32, u32)>,
    /// A trace's `session_id` (to find it again), `None` for config sessions.
    trace_id: Option<u64>,
    /// The class's shared prefix it starts with (`None`: the class has none).
    group: Option<u32>,
}

/// What the driver does after a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AfterTurn {
    /// Send the next turn at this time.
    Next(u64),
    /// Nothing yet: a trace's next row has not arrived.
    Wait,
    /// The conversation is over; `dropped` turns will never be sent.
    Closed { dropped: u64 },
}

/// The driver's open conversations, by slot (reused once a conversation is over).
#[derive(Default)]
pub(crate) struct Sessions {
    open: Vec<Option<Open>>,
    free: Vec<u32>,
    /// Per class: conversations started (config sessions: the next one's number).
    started: Vec<u64>,
    /// Per class: the turns sampler (config sessions).
    turns: Vec<Option<LenSampler>>,
    /// Per class: rows of each trace conversation (`session_id` → rows), for knowing its last.
    trace_rows: Vec<std::collections::BTreeMap<u64, u32>>,
    /// Per class: open trace conversations by `session_id`.
    trace_open: Vec<std::collections::BTreeMap<u64, u32>>,
    /// Per class: its shared prefixes (tokens, groups), if it has them.
    prefix: Vec<Option<(u32, u32)>>,
    seed: u64,
}

impl Sessions {
    pub fn new(s: &Scenario, trace_rows: Vec<std::collections::BTreeMap<u64, u32>>) -> Sessions {
        let n = s.classes.len();
        Sessions {
            open: Vec::new(),
            free: Vec::new(),
            started: vec![0; n],
            turns: s.classes.iter().map(|c| c.session.as_ref().map(|sc| LenSampler::new(&sc.turns))).collect(),
            trace_open: vec![Default::default(); n],
            trace_rows,
            prefix: s.classes.iter().map(|c| c.prefix.map(|p| (p.shared_tokens, p.groups.max(1)))).collect(),
            seed: s.seed,
        }
    }

    /// Whether class `class` sends config conversations.
    pub fn is_session_class(&self, class: usize) -> bool {
        self.turns.get(class).is_some_and(Option::is_some)
    }

    fn alloc(&mut self, o: Open) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.open[slot as usize] = Some(o);
                slot
            }
            None => {
                self.open.push(Some(o));
                self.open.len() as u32 - 1
            }
        }
    }

    /// A session class's arrival: a conversation starts with this request (its prompt, the
    /// shared prefix included). Returns its slot.
    pub fn start(&mut self, class: usize, input: u32, output: u32, think_ms: f64) -> u32 {
        let k = self.started[class];
        self.started[class] += 1;
        let sampler = self.turns[class].as_ref().expect("a session class");
        let (turns, mut rng) = turns_of(self.seed, class, k, sampler);
        let group = self.prefix[class].map(|(_, groups)| rng.random_range(0..groups));
        self.alloc(Open {
            class: class as u16,
            left: turns - 1,
            history: input.saturating_add(output),
            rng: Some(rng),
            think_us: crate::workload::secs_to_us(think_ms / 1000.0),
            in_flight: true,
            held: VecDeque::new(),
            trace_id: None,
            group,
        })
    }

    /// A trace row of conversation `id` (starting with shared prefix `group` if it is the
    /// first): its slot and the prompt to send now (history + new input), or `None` when it is
    /// held until the previous turn's answer.
    pub fn trace_row(
        &mut self,
        class: usize,
        id: u64,
        input: u32,
        output: u32,
        group: Option<u32>,
    ) -> Option<(u32, u32)> {
        if let Some(&slot) = self.trace_open[class].get(&id) {
            let new = self.new_input(class, input);
            let o = self.open[slot as usize].as_mut().expect("open");
            o.left -= 1;
            if o.in_flight {
                // as the trace gives it (`next_turn` takes the prefix out)
                o.held.push_back((input, output));
                return None;
            }
            o.in_flight = true;
            let prompt = o.history.saturating_add(new);
            o.history = prompt.saturating_add(output);
            return Some((slot, prompt));
        }
        let rows = self.trace_rows[class].get(&id).copied().unwrap_or(1);
        let slot = self.alloc(Open {
            class: class as u16,
            left: rows - 1,
            history: input.saturating_add(output),
            rng: None,
            think_us: 0,
            in_flight: true,
            held: VecDeque::new(),
            trace_id: Some(id),
            group: group.filter(|_| self.prefix[class].is_some()),
        });
        self.trace_open[class].insert(id, slot);
        Some((slot, input))
    }

    /// The turn of conversation `slot` on the server ended at `now` (`completed`: with its whole
    /// answer).
    pub fn turn_ended(&mut self, slot: u32, completed: bool, now: u64) -> AfterTurn {
        let o = self.open[slot as usize].as_mut().expect("an open conversation");
        o.in_flight = false;
        let over = if o.trace_id.is_some() { o.left == 0 && o.held.is_empty() } else { !completed || o.left == 0 };
        if over {
            let o = self.open[slot as usize].take().expect("open");
            if let Some(id) = o.trace_id {
                self.trace_open[o.class as usize].remove(&id);
            }
            self.free.push(slot);
            return AfterTurn::Closed { dropped: if o.trace_id.is_some() { 0 } else { o.left as u64 } };
        }
        match o.trace_id {
            Some(_) if o.held.is_empty() => AfterTurn::Wait,
            Some(_) => AfterTurn::Next(now),
            None => AfterTurn::Next(now + o.think_us),
        }
    }

    /// The shared prefix conversation `slot` starts with (`None` without one).
    pub fn group(&self, slot: u32) -> Option<u32> {
        self.open[slot as usize].as_ref().and_then(|o| o.group)
    }

    /// A later turn's new input from its drawn (or a trace row's) length, which counts the
    /// class's shared prefix as a single request's does: raised to the prefix and one token
    /// more, less the prefix.
    fn new_input(&self, class: usize, input: u32) -> u32 {
        match self.prefix[class] {
            Some((shared, _)) => input.max(shared.saturating_add(1)) - shared,
            None => input,
        }
    }

    /// The next turn of conversation `slot` is sent: (class, prompt, output). A config
    /// conversation draws its new input and answer from its stream with the class's samplers.
    pub fn next_turn(
        &mut self,
        slot: u32,
        lengths: impl FnOnce(usize, &mut ClassRng) -> (u32, u32),
    ) -> (usize, u32, u32) {
        let o = self.open[slot as usize].as_mut().expect("an open conversation");
        o.in_flight = true;
        let (input, output) = match &mut o.rng {
            Some(rng) => {
                o.left -= 1;
                lengths(o.class as usize, rng)
            }
            None => o.held.pop_front().expect("a held row"),
        };
        let class = o.class as usize;
        let input = self.new_input(class, input);
        let o = self.open[slot as usize].as_mut().expect("an open conversation");
        let prompt = o.history.saturating_add(input);
        o.history = prompt.saturating_add(output);
        (o.class as usize, prompt, output)
    }
}
