//! A replica's side of prefix caching (`prefix.rs` holds the chains): which chain a request's
//! prompt starts with, the cached blocks an admission references, the blocks a computed prompt
//! or a finished turn offers its chain, the evictions the pool asks for, and their check.

use super::Replica;
use crate::sim::prefix::Prefix;
use crate::sim::requests::{Handle, Phase};
use std::collections::BTreeMap;

impl Replica {
    /// Prefix caching: blocks of the shared prefix or the conversation `prefix` of a request
    /// of `class` this replica has cached (referenced or not); 0 without one.
    pub fn cached_prefix_blocks(&self, class: usize, prefix: Prefix) -> u32 {
        let Some(c) = &self.cache else { return 0 };
        let id = match prefix {
            Prefix::None => None,
            Prefix::Group(g) => c.chain_of(class, g),
            Prefix::Session(slot) => self.session_chains.get(slot as usize).copied().flatten(),
        };
        id.map_or(0, |id| c.state(id).0)
    }

    /// Prefix caching: the chain a request's prompt starts with (a conversation's is made here
    /// at its first turn on this replica).
    pub(super) fn chain_for(&mut self, class: usize, prefix: Prefix) -> Option<u32> {
        let cache = self.cache.as_mut()?;
        match prefix {
            Prefix::None => None,
            Prefix::Group(g) => cache.chain_of(class, g),
            Prefix::Session(slot) => {
                let slot = slot as usize;
                if self.session_chains.len() <= slot {
                    self.session_chains.resize(slot + 1, None);
                }
                Some(*self.session_chains[slot].get_or_insert_with(|| cache.new_session_chain(class)))
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
        let (Some(cache), Some(id)) = (self.cache.as_mut(), r.prefix_chain) else { return };
        if !cache.is_session(id) || !self.pool.paged() {
            return;
        }
        let b = cache.block();
        let from = r.cached_blocks;
        // the blocks it holds: those it references and its own
        let to = ((tokens / b) as u32).min(from + (r.units * self.pool.unit_tokens() / b) as u32);
        if cache.extend(id, from, to) {
            let moved = self.pool.units_for(to as u64 * b) - self.pool.units_for(from as u64 * b);
            let r = &mut self.reqs[h];
            r.units -= moved;
            r.cached_blocks = to;
        }
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

    /// Prefix caching: a prompt computed past its shared prefix offers its blocks to its chain.
    pub(super) fn publish_prefix(&mut self, h: Handle) {
        let r = &self.reqs[h];
        let (Some(cache), Some(id)) = (self.cache.as_mut(), r.prefix_chain) else { return };
        let (_, _, full) = cache.state(id);
        let b = cache.block();
        if r.cached_blocks >= full || (r.prefilled as u64) < full as u64 * b {
            return;
        }
        let from = r.cached_blocks;
        if cache.publish(id, from) {
            let moved = self.pool.units_for(full as u64 * b) - self.pool.units_for(from as u64 * b);
            let r = &mut self.reqs[h];
            r.units -= moved;
            r.cached_blocks = full;
        }
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
            *refs.entry((r.prefix_chain.unwrap_or(u32::MAX), r.cached_blocks)).or_insert(0) += 1;
        }
        let (mut held_units, mut free_units, mut counted) = (0, 0, 0);
        for (id, _, cached, held) in cache.cached_chains() {
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
            held_units += self.pool.units_for(held as u64 * b);
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
