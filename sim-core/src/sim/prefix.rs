//! Prefix caching (vLLM's automatic prefix caching, `scheduler.prefix_caching`).
//!
//! vLLM identifies every full KV block by a hash chained over the tokens up to its end, so two
//! prompts share a block exactly when they share the whole block-aligned prefix it completes. In
//! the lab a prompt is (class, prefix group, shared length, a tail unique to the request), so the
//! blocks that can ever be shared are the `⌊shared / block⌋` full blocks of a group's prefix, and
//! block `j` of group `g` of class `c` *is* the hash `(c, g, j)`: a group's cached blocks form a
//! chain, the blocks `0..cached`.
//!
//! A chain is held once, however many running sequences reference it: a sequence referencing
//! its first `h` blocks adds nothing to the pool for them. The blocks beyond the longest
//! reference are cached but unreferenced: the pool counts them apart (`KvPool::cached`) and
//! takes them back, least recently used chain first and each chain's last block first (vLLM
//! frees a sequence's blocks in reverse order, so a prefix's tail is evicted before its head),
//! only when an allocation finds no free block left. Blocks holding a request's own tokens are
//! never shared here (they could only be hit by that request's recompute after a preemption) and
//! are freed when it leaves.

//!
//! A conversation's history (`crate::session`) is a chain of its own, grown by each turn that
//! ends on the replica. A conversation of a class with shared prefixes starts with its group's
//! prefix: its chain then continues the group's chain (its `parent`), its own blocks starting at
//! the group's full blocks (`start`). A turn references the group's blocks through the group's
//! chain, held once for every conversation and single request of the group, and its history's
//! blocks through its own; it finds its history only while the group's blocks are all cached
//! (vLLM's lookup stops at the first block missing, and a block's hash is the same when it is
//! computed again, so history cached behind an evicted group block is found again once the
//! group's blocks are back). Each chain is evicted on its own, so no count depends on another
//! chain's blocks staying.

use std::collections::{BTreeMap, BTreeSet};

/// One group's cached prefix blocks, or one conversation's history, and who references them.
#[derive(Clone, Debug, Default)]
struct Chain {
    class: u16,
    /// Full blocks of the shared prefix (the most that can be cached; a conversation's: of its
    /// history so far), counted from the prompt's start.
    full: u32,
    /// Blocks cached: `start..cached` (blocks `0..start` are the parent's).
    cached: u32,
    /// Running sequences by the number of blocks they reference here (from the prompt's start;
    /// each more than `start`).
    refs: BTreeMap<u32, u32>,
    /// The longest reference (`start` without any): blocks `start..held` are in use.
    held: u32,
    /// When the chain was last referenced or released (the LRU key while it has blocks to evict).
    last_use: u64,
    /// A conversation's chain (grown by each turn, `extend`), not a group's.
    session: bool,
    /// A conversation's chain whose conversation is over: its slot is reused once its last
    /// cached block is evicted.
    retired: bool,
    /// A conversation's chain after its group's shared prefix: the group's chain, whose `full`
    /// blocks are the prompt's first `start` blocks.
    parent: Option<ChainId>,
    /// Blocks before this chain's own (its parent's full blocks; 0 without a parent).
    start: u32,
}

/// Counts per class, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CacheStats {
    /// Prompt tokens of sequences admitted (each admission, so a recomputed prompt counts again).
    pub prompt_tokens: u64,
    /// Of them, tokens whose KV was found in the cache.
    pub cached_tokens: u64,
    pub evicted_blocks: u64,
}

/// The cached prefix chains of one replica.
#[derive(Clone, Debug)]
pub(crate) struct PrefixCache {
    block: u64,
    /// First chain of each class (`None`: the class has no shared prefix).
    base: Vec<Option<u32>>,
    chains: Vec<Chain>,
    /// Slots of retired conversation chains with nothing cached, to reuse.
    free: Vec<ChainId>,
    /// Chains with blocks to evict, by last use.
    lru: BTreeSet<(u64, u32)>,
    tick: u64,
    pub stats: Vec<CacheStats>,
    /// Σ over running sequences of the prefix tokens they reference (for the HBM view: shared
    /// tokens are held once).
    pub ref_tokens: u64,
    /// Σ over chains of their held blocks' tokens (each chain's own blocks).
    pub held_tokens: u64,
}

/// Which chain a request's prompt starts with.
pub(crate) type ChainId = u32;

/// What a request's prompt starts with, as the driver knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prefix {
    None,
    /// One of its class's shared prefixes.
    Group(u32),
    /// The history of the conversation in the driver's session slot `slot`, after its class's
    /// shared prefix `group` when the class has them.
    Session {
        slot: u32,
        group: Option<u32>,
    },
}

/// The parts of a reference to a chain: (chain, blocks) for its parent and for itself.
pub(crate) type Parts = [Option<(ChainId, u32)>; 2];

impl PrefixCache {
    /// `prefixes[c]`: class `c`'s (shared tokens, groups), if it has shared prefixes.
    pub fn new(block: u64, prefixes: &[Option<(u32, u32)>]) -> PrefixCache {
        let mut base = Vec::with_capacity(prefixes.len());
        let mut chains = Vec::new();
        for (c, p) in prefixes.iter().enumerate() {
            base.push(p.map(|_| chains.len() as u32));
            if let Some((shared, groups)) = *p {
                let full = (shared as u64 / block) as u32;
                chains.extend((0..groups).map(|_| Chain { class: c as u16, full, ..Chain::default() }));
            }
        }
        PrefixCache {
            block,
            base,
            chains,
            free: Vec::new(),
            lru: BTreeSet::new(),
            tick: 0,
            stats: vec![CacheStats::default(); prefixes.len()],
            ref_tokens: 0,
            held_tokens: 0,
        }
    }

    pub fn block(&self) -> u64 {
        self.block
    }

    /// The chain of group `group` of class `class`.
    pub fn chain_of(&self, class: usize, group: u32) -> Option<ChainId> {
        self.base.get(class).copied().flatten().map(|b| b + group)
    }

    /// (cached, held, full) blocks of a chain, as a prompt starting with it finds them (a
    /// conversation's after a group's prefix: the group's blocks, then its own while the
    /// group's are all cached).
    pub fn state(&self, id: ChainId) -> (u32, u32, u32) {
        let (cached, held) = self.view(id, |_| 0);
        (cached, held, self.chains[id as usize].full)
    }

    /// (cached, held) blocks of a chain as a prompt starting with it finds them, each chain's
    /// held blocks raised to `pinned(chain)` (what a plan has pinned already).
    pub fn view(&self, id: ChainId, pinned: impl Fn(ChainId) -> u32) -> (u32, u32) {
        let c = &self.chains[id as usize];
        let own = c.held.max(pinned(id));
        let Some(p) = c.parent else { return (c.cached, own) };
        let g = &self.chains[p as usize];
        let cached = if g.cached < c.start { g.cached } else { c.cached };
        let held = if own > c.start { own } else { g.held.max(pinned(p)) };
        (cached, held)
    }

    /// A reference to the first `blocks` blocks of a chain, by chain: its parent's part and its
    /// own.
    pub fn parts(&self, id: ChainId, blocks: u32) -> Parts {
        let c = &self.chains[id as usize];
        match c.parent {
            None => [Some((id, blocks)).filter(|_| blocks > 0), None],
            Some(p) => {
                [Some((p, blocks.min(c.start))).filter(|_| blocks > 0), Some((id, blocks)).filter(|_| blocks > c.start)]
            }
        }
    }

    /// A conversation's turn after a group's prefix that references `from` blocks: the group's
    /// blocks cached beyond them (another sequence cached them while it computed its own), up
    /// to the group's end, which it can take instead of its copies.
    pub fn adoptable(&self, id: ChainId, from: u32) -> Option<u32> {
        let c = &self.chains[id as usize];
        let p = c.parent.filter(|_| from < c.start)?;
        let upto = self.chains[p as usize].cached.min(c.start);
        (upto > from).then_some(upto)
    }

    fn touch(&mut self, id: ChainId) {
        let c = &mut self.chains[id as usize];
        self.lru.remove(&(c.last_use, id));
        self.tick += 1;
        c.last_use = self.tick;
        if c.cached > c.held {
            self.lru.insert((c.last_use, id));
        }
    }

    fn set_held(&mut self, id: ChainId) {
        let c = &mut self.chains[id as usize];
        let held = c.refs.last_key_value().map_or(c.start, |(&h, _)| h);
        self.held_tokens =
            self.held_tokens + (held - c.start) as u64 * self.block - (c.held - c.start) as u64 * self.block;
        c.held = held;
    }

    /// A running sequence references the first `blocks` blocks of a chain (which are cached).
    /// Returns the blocks held before, so the caller can pin what became held.
    pub fn reference(&mut self, id: ChainId, blocks: u32) -> u32 {
        let before = self.state(id).1;
        debug_assert!(blocks > 0 && blocks <= self.state(id).0);
        for (ch, n) in self.parts(id, blocks).into_iter().flatten() {
            let c = &mut self.chains[ch as usize];
            *c.refs.entry(n).or_insert(0) += 1;
            self.ref_tokens += (n - c.start) as u64 * self.block;
            self.set_held(ch);
            self.touch(ch);
        }
        before
    }

    /// A sequence referencing `blocks` blocks of a chain leaves. Returns (held before, held now).
    pub fn release(&mut self, id: ChainId, blocks: u32) -> (u32, u32) {
        let before = self.state(id).1;
        for (ch, n) in self.parts(id, blocks).into_iter().flatten() {
            let c = &mut self.chains[ch as usize];
            match c.refs.get_mut(&n) {
                Some(k) if *k > 1 => *k -= 1,
                Some(_) => {
                    c.refs.remove(&n);
                }
                None => debug_assert!(false, "released a reference the chain does not have"),
            }
            self.ref_tokens -= (n - c.start) as u64 * self.block;
            self.set_held(ch);
            self.touch(ch);
        }
        (before, self.state(id).1)
    }

    /// A sequence that references `from` blocks of a chain computed its blocks up to `to`
    /// itself: those that continue the cache where it ends become the chain's (for a
    /// conversation's chain after a group's prefix: the group's first, then its own). Returns
    /// the blocks the sequence references now (`from` when none did).
    fn publish_to(&mut self, id: ChainId, from: u32, to: u32) -> u32 {
        let c = &self.chains[id as usize];
        let (start, parent) = (c.start, c.parent);
        let mut now = from;
        if let Some(p) = parent.filter(|_| from < start) {
            // the group's blocks first
            let g = &self.chains[p as usize];
            if g.cached != from || to < start {
                return from;
            }
            debug_assert_eq!(g.held, from, "a chain ending at a reference is held to its end");
            self.chains[p as usize].cached = start;
            now = start;
        }
        let c = &self.chains[id as usize];
        if to > now && c.cached == now {
            debug_assert_eq!(c.held, now, "a chain ending at a reference is held to its end");
            self.chains[id as usize].cached = to;
            now = to;
        }
        if now > from {
            if from > 0 {
                self.release(id, from);
            }
            self.reference(id, now);
        }
        now
    }

    /// A sequence that references `from` blocks of a group's chain (or a conversation's first
    /// turn, of its chain after the group's) computed the rest of the prefix itself: its blocks
    /// become the chain's, when the chain still ends where its reference does. Returns the
    /// blocks it references now.
    pub fn publish(&mut self, id: ChainId, from: u32) -> u32 {
        let full = self.chains[id as usize].full;
        if full <= from {
            return from;
        }
        self.publish_to(id, from, full)
    }

    /// A new conversation's chain (nothing of its own cached yet), for class `class`, after the
    /// group chain `parent` when its prompts start with a group's shared prefix.
    pub fn new_session_chain(&mut self, class: usize, parent: Option<ChainId>) -> ChainId {
        let start = parent.map_or(0, |p| self.chains[p as usize].full);
        let parent = parent.filter(|_| start > 0);
        let chain = Chain {
            class: class as u16,
            session: true,
            parent,
            start,
            full: start,
            cached: start,
            held: start,
            ..Chain::default()
        };
        match self.free.pop() {
            Some(id) => {
                self.chains[id as usize] = chain;
                id
            }
            None => {
                self.chains.push(chain);
                self.chains.len() as ChainId - 1
            }
        }
    }

    /// Whether a chain is a conversation's.
    pub fn is_session(&self, id: ChainId) -> bool {
        self.chains[id as usize].session
    }

    /// A conversation's turn that references the first `from` blocks of its chain ends holding
    /// `to` full blocks of prompt and answer (`to > from`): those that continue the chain where
    /// it ends become the chain's (the caller moves them from the sequence to the chain).
    /// Returns the blocks the turn references now.
    pub fn extend(&mut self, id: ChainId, from: u32, to: u32) -> u32 {
        let c = &self.chains[id as usize];
        if !c.session || to <= from {
            return from;
        }
        let now = self.publish_to(id, from, to);
        if now == to {
            self.chains[id as usize].full = to;
        }
        now
    }

    /// A conversation is over: its chain's blocks stay cached until evicted, then its slot is
    /// reused.
    pub fn retire(&mut self, id: ChainId) {
        let c = &mut self.chains[id as usize];
        debug_assert!(c.session && c.refs.is_empty(), "a conversation retires with no turn running");
        c.retired = true;
        if c.cached == c.start {
            self.free.push(id);
        }
    }

    /// Evicts the last block of the least recently used chain with an unreferenced block;
    /// returns that block's index and class (`None`: nothing to evict).
    pub fn evict_one(&mut self) -> Option<(u32, u16)> {
        let &(t, id) = self.lru.iter().next()?;
        let c = &mut self.chains[id as usize];
        debug_assert!(c.cached > c.held);
        c.cached -= 1;
        let out = (c.cached, c.class);
        if c.cached == c.held {
            self.lru.remove(&(t, id));
        }
        if c.retired && c.cached == c.start {
            self.free.push(id);
        }
        self.stats[c.class as usize].evicted_blocks += 1;
        Some(out)
    }

    /// Everything is lost (an OOM restart).
    pub fn clear(&mut self) {
        self.free.clear();
        for (id, c) in self.chains.iter_mut().enumerate() {
            (c.cached, c.held) = (c.start, c.start);
            c.refs.clear();
            if c.retired {
                self.free.push(id as ChainId);
            }
        }
        self.lru.clear();
        (self.ref_tokens, self.held_tokens) = (0, 0);
    }

    /// Every chain with blocks of its own cached: (id, class, start, cached, held), its own
    /// blocks `start..cached` of which `start..held` are in use, for checks.
    pub fn cached_chains(&self) -> impl Iterator<Item = (ChainId, u16, u32, u32, u32)> + '_ {
        let cached = self.chains.iter().enumerate().filter(|(_, c)| c.cached > c.start);
        cached.map(|(i, c)| (i as ChainId, c.class, c.start, c.cached, c.held))
    }

    /// A chain's references by length: (blocks from the prompt's start, sequences).
    pub fn refs(&self, id: ChainId) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.chains[id as usize].refs.iter().map(|(&b, &n)| (b, n))
    }

    /// A conversation chain's own references need its parent held to its end.
    pub fn parent_held(&self, id: ChainId) -> bool {
        let c = &self.chains[id as usize];
        match c.parent {
            Some(p) if c.held > c.start => self.chains[p as usize].held == c.start,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_is_held_once_and_evicted_tail_first_lru() {
        // class 0: 2 groups of a 40-token prefix in blocks of 16 → 2 full blocks each
        let mut c = PrefixCache::new(16, &[Some((40, 2)), None]);
        let (a, b) = (c.chain_of(0, 0).unwrap(), c.chain_of(0, 1).unwrap());
        assert_eq!((c.chain_of(1, 0), c.state(a)), (None, (0, 0, 2)));
        assert_eq!(c.publish(a, 0), 2, "the first sequence's blocks become the chain");
        assert_eq!(c.publish(a, 0), 0, "a second copy is not the chain");
        assert_eq!(c.reference(a, 2), 2, "held already");
        assert_eq!(
            (c.state(a), c.refs(a).collect::<Vec<_>>(), c.ref_tokens, c.held_tokens),
            ((2, 2, 2), vec![(2, 2)], 64, 32)
        );
        assert_eq!(c.release(a, 2), (2, 2));
        assert_eq!(c.release(a, 2), (2, 0));
        assert_eq!(c.publish(b, 0), 2);
        assert_eq!(c.release(b, 2), (2, 0));
        // a was released first: its last block goes first, then its first, then b's
        assert_eq!(c.evict_one(), Some((1, 0)));
        assert_eq!(c.evict_one(), Some((0, 0)));
        assert_eq!(c.evict_one(), Some((1, 0)));
        assert_eq!(c.state(b), (1, 0, 2));
        assert_eq!(c.stats[0].evicted_blocks, 3);
        // a sequence hitting b's one block keeps it from eviction
        assert_eq!(c.reference(b, 1), 0);
        assert_eq!(c.evict_one(), None);
    }

    #[test]
    fn a_conversation_hangs_its_history_after_its_group() {
        // class 0: one group of a 64-token prefix in blocks of 16 → 4 full blocks
        let mut c = PrefixCache::new(16, &[Some((64, 1))]);
        let g = c.chain_of(0, 0).unwrap();
        let (s1, s2) = (c.new_session_chain(0, Some(g)), c.new_session_chain(0, Some(g)));
        assert_eq!(c.state(s1), (0, 0, 4), "nothing cached; the group's prefix is its first part");
        // its first turn computes the group's prefix: the group's chain takes it
        assert_eq!(c.publish(s1, 0), 4);
        assert_eq!((c.state(g), c.state(s1), c.state(s2)), ((4, 4, 4), (4, 4, 4), (4, 4, 4)));
        // and ends holding 10 blocks of prompt and answer: 6 of them the conversation's own
        assert_eq!(c.extend(s1, 4, 10), 10);
        assert_eq!((c.state(s1), c.held_tokens, c.ref_tokens), ((10, 10, 10), 160, 160));
        assert_eq!(c.refs(g).collect::<Vec<_>>(), vec![(4, 1)]);
        assert_eq!(c.refs(s1).collect::<Vec<_>>(), vec![(10, 1)]);
        assert!(c.adoptable(s2, 0) == Some(4) && c.adoptable(s1, 4).is_none());
        // the other conversation of the group finds the group's blocks only
        assert_eq!(c.reference(s2, 4), 4, "held already");
        assert_eq!(c.release(s2, 4), (4, 4), "s1 holds the group's blocks still");
        assert_eq!(c.release(s1, 10), (10, 0), "its 10 blocks go back to the cache");
        assert_eq!((c.held_tokens, c.ref_tokens), (0, 0));
        assert_eq!(c.state(s1), (10, 0, 10));
        // the group's chain was released before s1's own: its last block goes first, and the
        // history behind it is not found ...
        assert_eq!(c.evict_one(), Some((3, 0)));
        assert_eq!((c.state(g), c.state(s1)), ((3, 0, 4), (3, 0, 10)), "a lookup stops at the first block missing");
        // ... until a request of the group computes it again
        c.reference(g, 3);
        assert_eq!(c.publish(g, 3), 4);
        c.release(g, 4);
        assert_eq!(c.state(s1).0, 10, "its history is found again");
        // a retired conversation's chain is reused once its own blocks are gone
        c.retire(s2);
        assert_eq!(c.new_session_chain(0, Some(g)), s2, "s2 had nothing of its own cached");
    }
}
