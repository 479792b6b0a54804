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

use std::collections::{BTreeMap, BTreeSet};

/// One group's cached prefix blocks and who references them.
#[derive(Clone, Debug, Default)]
struct Chain {
    class: u16,
    /// Full blocks of the shared prefix (the most that can be cached).
    full: u32,
    /// Blocks cached: `0..cached`.
    cached: u32,
    /// Running sequences by the number of blocks they reference.
    refs: BTreeMap<u32, u32>,
    /// The longest reference (0 without any): blocks `0..held` are in use.
    held: u32,
    /// When the chain was last referenced or released (the LRU key while it has blocks to evict).
    last_use: u64,
    /// A conversation's chain (grown by each turn, `extend`), not a group's.
    session: bool,
    /// A conversation's chain whose conversation is over: its slot is reused once its last
    /// cached block is evicted.
    retired: bool,
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
    /// Σ over chains of their held blocks' tokens.
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
    /// The history of the conversation in the driver's session slot.
    Session(u32),
}

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

    /// (cached, held, full) blocks of a chain.
    pub fn state(&self, id: ChainId) -> (u32, u32, u32) {
        let c = &self.chains[id as usize];
        (c.cached, c.held, c.full)
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
        let held = c.refs.last_key_value().map_or(0, |(&h, _)| h);
        self.held_tokens = self.held_tokens + held as u64 * self.block - c.held as u64 * self.block;
        c.held = held;
    }

    /// A running sequence references the first `blocks` blocks of a chain (which are cached).
    /// Returns the blocks held before, so the caller can pin what became held.
    pub fn reference(&mut self, id: ChainId, blocks: u32) -> u32 {
        let before = self.chains[id as usize].held;
        debug_assert!(blocks > 0 && blocks <= self.chains[id as usize].cached);
        *self.chains[id as usize].refs.entry(blocks).or_insert(0) += 1;
        self.ref_tokens += blocks as u64 * self.block;
        self.set_held(id);
        self.touch(id);
        before
    }

    /// A sequence referencing `blocks` blocks of a chain leaves. Returns (held before, held now).
    pub fn release(&mut self, id: ChainId, blocks: u32) -> (u32, u32) {
        let c = &mut self.chains[id as usize];
        let before = c.held;
        match c.refs.get_mut(&blocks) {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => {
                c.refs.remove(&blocks);
            }
            None => debug_assert!(false, "released a reference the chain does not have"),
        }
        self.ref_tokens -= blocks as u64 * self.block;
        self.set_held(id);
        self.touch(id);
        (before, self.chains[id as usize].held)
    }

    /// A sequence that references `from` blocks computed the rest of the prefix itself: its
    /// blocks become the chain's, when the chain still ends where its reference does. Returns
    /// whether they did.
    pub fn publish(&mut self, id: ChainId, from: u32) -> bool {
        let c = &self.chains[id as usize];
        if c.cached != from || c.full <= from {
            return false;
        }
        debug_assert_eq!(c.held, from, "a chain ending at a reference is held to its end");
        let full = c.full;
        self.chains[id as usize].cached = full;
        if from > 0 {
            self.release(id, from);
        }
        self.reference(id, full);
        true
    }

    /// A new conversation's chain (nothing cached yet), for class `class`.
    pub fn new_session_chain(&mut self, class: usize) -> ChainId {
        let chain = Chain { class: class as u16, session: true, ..Chain::default() };
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
    /// `to` full blocks of prompt and answer (`to > from`): they become the chain's, when the
    /// chain still ends where its reference does. Returns whether they did (the caller moves
    /// the blocks from the sequence to the chain).
    pub fn extend(&mut self, id: ChainId, from: u32, to: u32) -> bool {
        let c = &mut self.chains[id as usize];
        if !c.session || c.cached != from || to <= from {
            return false;
        }
        c.full = to;
        self.publish(id, from)
    }

    /// A conversation is over: its chain's blocks stay cached until evicted, then its slot is
    /// reused.
    pub fn retire(&mut self, id: ChainId) {
        let c = &mut self.chains[id as usize];
        debug_assert!(c.session && c.refs.is_empty(), "a conversation retires with no turn running");
        c.retired = true;
        if c.cached == 0 {
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
        if c.retired && c.cached == 0 {
            self.free.push(id);
        }
        self.stats[c.class as usize].evicted_blocks += 1;
        Some(out)
    }

    /// Everything is lost (an OOM restart).
    pub fn clear(&mut self) {
        self.free.clear();
        for (id, c) in self.chains.iter_mut().enumerate() {
            (c.cached, c.held) = (0, 0);
            c.refs.clear();
            if c.retired {
                self.free.push(id as ChainId);
            }
        }
        self.lru.clear();
        (self.ref_tokens, self.held_tokens) = (0, 0);
    }

    /// Every chain with cached blocks: (id, class, cached, held), for checks and the HBM view.
    pub fn cached_chains(&self) -> impl Iterator<Item = (ChainId, u16, u32, u32)> + '_ {
        let cached = self.chains.iter().enumerate().filter(|(_, c)| c.cached > 0);
        cached.map(|(i, c)| (i as ChainId, c.class, c.cached, c.held))
    }

    /// A chain's references by length: (blocks, sequences).
    pub fn refs(&self, id: ChainId) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.chains[id as usize].refs.iter().map(|(&b, &n)| (b, n))
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
        assert!(c.publish(a, 0), "the first sequence's blocks become the chain");
        assert!(!c.publish(a, 0), "a second copy is not the chain");
        assert_eq!(c.reference(a, 2), 2, "held already");
        assert_eq!(
            (c.state(a), c.refs(a).collect::<Vec<_>>(), c.ref_tokens, c.held_tokens),
            ((2, 2, 2), vec![(2, 2)], 64, 32)
        );
        assert_eq!(c.release(a, 2), (2, 2));
        assert_eq!(c.release(a, 2), (2, 0));
        assert!(c.publish(b, 0));
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
}
