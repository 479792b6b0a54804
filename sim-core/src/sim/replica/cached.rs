//! A replica's side of prefix caching (`prefix.rs` holds the chains): which chain a request's
//! prompt starts with, the cached blocks an admission references, the blocks a computed prompt
//! or a finished turn offers its chain, the evictions the pool asks for, and their check.

use super::Replica;
use crate::sim::prefix::Prefix;
use crate::sim::requests::{Handle, Phase};
use std::collections::BTreeMap;

impl Replica {
    /// Prefix caching: blocks of the shared prefix or the conversation `prefix` of a request
    /// of `class` this replica has cached (referenced or not); 0 without one. A conversation
    /// with no chain here finds its group's prefix.
    pub fn cached_prefix_blocks(&self, class: usize, prefix: Prefix) -> u32 {
        let Some(c) = &self.cache else { return 0 };
        let id = match prefix {
            Prefix::None => None,
            Prefix::Group(g) => c.chain_of(class, g),
            Prefix::Session { slot, group } => self
                .session_chains
                .get(slot as usize)
                .copied()
                .flatten()
                .or_else(|| group.and_then(|g| c.chain_of(class, g))),
        };
        id.map_or(0, |id| c.state(id).0)
    }

    /// Prefix caching: the chain a request's prompt starts with (a conversation's is made here
    /// at its first turn on this replica, after its group's chain when it has one).
    pub(super) fn chain_for(&mut self, class: usize, prefix: Prefix) -> Option<u32> {
        let cache = self.cache.as_mut()?;
        match prefix {
            Prefix::None => None,
            Prefix::Group(g) => cache.chain_of(class, g),
            Prefix::Session { slot, group } => {
                let slot = slot as usize;
                if self.session_chains.len() <= slot {
                    self.session_chains.resize(slot + 1, None);
                }
                let parent = group.and_then(|g| cache.chain_of(class, g));
                Some(*self.session_chains[slot].get_or_insert_with(|| cache.new_session_chain(class, parent)))
            }
        }
    }

    /// A conversation (the driver's session slot) is over: its chain here, if any, keeps its
    /// blocks cached until they are evicted.
    pub fn end_session(&mut self, slot: u32) {
        let Some(id) = self.session_chains.get_mut(slot as usize).and_then(Option::take) else { return };
        if let Some(cache) = self.cache.as_mut() {
            cache.retire(id);
        }
    }

    /// Prefix caching: a conversation's turn leaves holding the KV of its first `tokens` tokens:
    /// their full blocks become its chain's (so the next turn finds them), cached once it has
    /// gone. Called before the turn's KV is released.
    pub(super) fn keep_session_blocks(&mut self, h: Handle, tokens: u64) {
        let r = &self.reqs[h];
        let (Some(cache), Some(id)) = (self.cache.as_ref(), r.prefix_chain) else { return };
        if !cache.is_session(id) || !self.pool.paged() {
            return;
        }
        let b = cache.block();
        // the blocks it holds: those it references and its own
        let to = ((tokens / b) as u32).min(r.cached_blocks + (r.units * self.pool.unit_tokens() / b) as u32);
        self.adopt_group_blocks(h, to);
        let (cache, from) = (self.cache.as_mut().expect("a cache"), self.reqs[h].cached_blocks);
        let now = cache.extend(id, from, to);
        self.moved_to_cache(h, from, now);
    }

    /// Prefix caching: a running request referencing `from` blocks of its chain now references
    /// `now`: the blocks between, its own until now, are the chain's.
    fn moved_to_cache(&mut self, h: Handle, from: u32, now: u32) {
        if now <= from {
            return;
        }
        let b = self.cache.as_ref().expect("a cache").block();
        let moved = self.pool.units_for(now as u64 * b) - self.pool.units_for(from as u64 * b);
        let r = &mut self.reqs[h];
        r.units -= moved;
        r.cached_blocks = now;
    }

    /// Prefix caching: a conversation's turn after a group's prefix that computed blocks of the
    /// group's prefix itself, which another sequence cached meanwhile, takes the cached ones
    /// (its copies are freed), so its history can hang after them. It holds its blocks up to
    /// `to`.
    fn adopt_group_blocks(&mut self, h: Handle, to: u32) {
        let (class, from, id) = {
            let r = &self.reqs[h];
            (r.class as usize, r.cached_blocks, r.prefix_chain)
        };
        let (Some(cache), Some(id)) = (self.cache.as_mut(), id) else { return };
        let Some(upto) = cache.adoptable(id, from).filter(|&u| u <= to) else { return };
        if self.pool.evict_due() > 0 {
            return; // (never between iterations) the pool's cached units are not yet the chains'
        }
        let b = cache.block();
        let pool = &mut self.pool;
        let units = |pool: &crate::sim::kv::KvPool, n: u32| pool.units_for(n as u64 * b);
        if from > 0 {
            let (before, now) = cache.release(id, from);
            let freed = units(pool, before) - units(pool, now);
            if freed > 0 {
                pool.unpin(class, freed);
            }
        }
        let before = cache.reference(id, upto);
        let pin = units(pool, upto).saturating_sub(units(pool, before));
        if pin > 0 {
            pool.pin(class, pin);
        }
        let copies = units(pool, upto) - units(pool, from);
        pool.release(class, copies);
        let r = &mut self.reqs[h];
        r.units -= copies;
        r.cached_blocks = upto;
    }

    /// Prefix caching: a request referencing `blocks` cached blocks of its chain is admitted
    /// (the blocks no one else references are pinned in the pool).
    pub(super) fn reference_cached(&mut self, h: Handle, blocks: u32) {
        let (class, id) = (self.reqs[h].class as usize, self.reqs[h].prefix_chain);
        let (Some(cache), Some(id)) = (self.cache.as_mut(), id) else { return };
        let before = cache.reference(id, blocks);
        let b = cache.block();
        let pin = self.pool.units_for(blocks as u64 * b).saturating_sub(self.pool.units_for(before as u64 * b));
        if pin > 0 {
            self.pool.pin(class, pin);
        }
        self.reqs[h].cached_blocks = blocks;
    }

    /// Prefix caching: a prompt computed past its shared prefix (or a conversation's turn, past
    /// its history so far) offers its blocks to its chain.
    pub(super) fn publish_prefix(&mut self, h: Handle) {
        let r = &self.reqs[h];
        let (Some(cache), Some(id)) = (self.cache.as_ref(), r.prefix_chain) else { return };
        let (_, _, full) = cache.state(id);
        let b = cache.block();
        if r.cached_blocks >= full || (r.prefilled as u64) < full as u64 * b {
            return;
        }
        self.adopt_group_blocks(h, full);
        let (cache, from) = (self.cache.as_mut().expect("a cache"), self.reqs[h].cached_blocks);
        let now = cache.publish(id, from);
        self.moved_to_cache(h, from, now);
    }

    /// Removes from their chains the cached blocks the pool took back for allocations.
    pub(super) fn settle_evictions(&mut self) {
        let Some(cache) = self.cache.as_mut() else { return };
        while self.pool.evict_due() > 0 {
            let Some((j, _)) = cache.evict_one() else { break };
            let b = cache.block();
            let units = self.pool.units_for((j as u64 + 1) * b) - self.pool.units_for(j as u64 * b);
            self.pool.evicted(units);
        }
    }

    /// Prefix caching: each chain's references are the running sequences that reference it,
    /// its unreferenced blocks are the pool's cached units; returns the units of the blocks in
    /// use (each counted once, however many sequences share it).
    pub(super) fn check_cache(&self) -> Result<u64, String> {
        let Some(cache) = &self.cache else {
            return if self.pool.cached() == 0 { Ok(0) } else { Err("cached units without a cache".into()) };
        };
        let b = cache.block();
        let mut refs: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for r in self.reqs.live().filter(|r| r.cached_blocks > 0) {
            if r.phase == Phase::Queued {
                return Err(format!("request {} is queued and references cached blocks", r.id));
            }
            let Some(id) = r.prefix_chain else {
                return Err(format!("request {} references cached blocks of no chain", r.id));
            };
            for (chain, blocks) in cache.parts(id, r.cached_blocks).into_iter().flatten() {
                *refs.entry((chain, blocks)).or_insert(0) += 1;
            }
        }
        let (mut held_units, mut free_units, mut counted) = (0, 0, 0);
        for (id, _, start, cached, held) in cache.cached_chains() {
            for (blocks, n) in cache.refs(id) {
                if refs.get(&(id, blocks)) != Some(&n) {
                    return Err(format!(
                        "chain {id}: {n} references of {blocks} blocks, running {:?}",
                        refs.get(&(id, blocks))
                    ));
                }
                counted += 1;
            }
            if held > cached {
                return Err(format!("chain {id} holds {held} blocks of {cached} cached"));
            }
            if !cache.parent_held(id) {
                return Err(format!("chain {id} is referenced past its group's prefix, which is not held"));
            }
            held_units += self.pool.units_for(held as u64 * b) - self.pool.units_for(start as u64 * b);
            free_units += self.pool.units_for(cached as u64 * b) - self.pool.units_for(held as u64 * b);
        }
        if counted != refs.len() {
            return Err(format!(
                "running sequences reference {} (chain, length) pairs, the chains {counted}",
                refs.len()
            ));
        }
        if free_units != self.pool.cached() + self.pool.evict_due() {
            return Err(format!(
                "unreferenced cached units {free_units} != pool's cached {} + due {}",
                self.pool.cached(),
                self.pool.evict_due()
            ));
        }
        Ok(held_units)
    }
}
