//! The index pool of the reference model: the FREE indexes ALLOC may take, as a hierarchical
//! bitmap, and the quarantine queue.

/// A set of indexes `0..len` as a hierarchical bitmap: level 0 holds one bit per index, level
/// k+1 one bit per non-zero word of level k, up to a single top word. Insert, remove and
/// "first member >= i" cost O(log64 len).
#[derive(Clone, Debug)]
pub struct IndexSet {
    len: u32,
    levels: Vec<Vec<u64>>,
}

impl IndexSet {
    /// The set `lo..len` (empty if `lo >= len`).
    pub fn with_range(len: u32, lo: u32) -> IndexSet {
        let words = (len as usize).div_ceil(64).max(1);
        let (lo, end) = (lo.min(len) as usize, len as usize);
        let mut level0 = vec![0u64; words];
        for (w, word) in level0.iter_mut().enumerate() {
            let (a, b) = (lo.max(w * 64), end.min(w * 64 + 64));
            if a < b {
                let ones = if b - a == 64 {
                    u64::MAX
                } else {
                    (1 << (b - a)) - 1
                };
                *word = ones << (a - w * 64);
            }
        }
        let mut levels = vec![level0];
        while levels.last().unwrap().len() > 1 {
            let below = levels.last().unwrap();
            let mut up = vec![0u64; below.len().div_ceil(64)];
            for (w, word) in below.iter().enumerate() {
                if *word != 0 {
                    up[w / 64] |= 1 << (w % 64);
                }
            }
            levels.push(up);
        }
        IndexSet { len, levels }
    }

    pub fn contains(&self, i: u32) -> bool {
        i < self.len && self.levels[0][i as usize / 64] >> (i % 64) & 1 == 1
    }

    pub fn insert(&mut self, i: u32) {
        assert!(i < self.len, "IndexSet::insert({i}) beyond {}", self.len);
        let mut pos = i as usize;
        for level in &mut self.levels {
            let was_empty = level[pos / 64] == 0;
            level[pos / 64] |= 1 << (pos % 64);
            if !was_empty {
                break;
            }
            pos /= 64;
        }
    }

    pub fn remove(&mut self, i: u32) {
        assert!(i < self.len, "IndexSet::remove({i}) beyond {}", self.len);
        let mut pos = i as usize;
        for level in &mut self.levels {
            level[pos / 64] &= !(1 << (pos % 64));
            if level[pos / 64] != 0 {
                break;
            }
            pos /= 64;
        }
    }

    /// The smallest member `>= i`.
    pub fn first_at_or_after(&self, i: u32) -> Option<u32> {
        self.find(0, i as usize).map(|p| p as u32)
    }

    fn find(&self, level: usize, pos: usize) -> Option<usize> {
        let words = &self.levels[level];
        if pos >= words.len() * 64 {
            return None;
        }
        let w = pos / 64;
        let here = words[w] & (u64::MAX << (pos % 64));
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        if level + 1 == self.levels.len() {
            return None; // the top level is one word
        }
        let next = self.find(level + 1, w + 1)?;
        Some(next * 64 + words[next].trailing_zeros() as usize)
    }
}

/// The indexes `ALLOC`/`ALLOC_AT` may take: FREE and not quarantined, and the quarantine.
///
/// Time is counted in cycles between CMD write handshakes (the only instants a user sees a
/// command start): an index freed by a FREE written at edge `t` waits in the quarantine
/// queue, oldest first, until a command written at an edge `>= t + quarantine_cycles`.
/// Before each command runs, the oldest index is released if its time is over (one per
/// command); that is how the hardware keeps every command's time bounded. A FREE that finds
/// the queue full (`quarantine_depth`) releases the oldest early and counts
/// QUARANTINE_OVERFLOW. With `quarantine_cycles = 0` a freed index is released at once.
#[derive(Clone, Debug)]
pub(super) struct Pool {
    available: IndexSet,
    quarantine: std::collections::VecDeque<(u32, u64)>,
    cycles: u64,
    depth: usize,
}

impl Pool {
    pub(super) fn new(max_qps: u32, cycles: u64, depth: u32) -> Pool {
        Pool {
            available: IndexSet::with_range(max_qps, 0),
            quarantine: std::collections::VecDeque::new(),
            cycles,
            depth: depth as usize,
        }
    }

    pub(super) fn is_available(&self, index: u32) -> bool {
        self.available.contains(index)
    }

    pub(super) fn first_at_or_after(&self, index: u32) -> Option<u32> {
        self.available.first_at_or_after(index)
    }

    pub(super) fn take(&mut self, index: u32) {
        debug_assert!(
            self.available.contains(index),
            "two allocations of index {index}"
        );
        self.available.remove(index);
    }

    /// The oldest quarantined index.
    pub(super) fn oldest(&self) -> Option<u32> {
        self.quarantine.front().map(|&(i, _)| i)
    }

    /// The oldest quarantined index if its time is over before a command written at `now`.
    pub(super) fn due(&self, now: u64) -> Option<u32> {
        let &(index, freed) = self.quarantine.front()?;
        (now.wrapping_sub(freed) >= self.cycles).then_some(index)
    }

    /// Whether the quarantine is on and full (the next release overflows).
    pub(super) fn full(&self) -> bool {
        self.cycles > 0 && self.quarantine.len() == self.depth
    }

    /// The oldest quarantined index leaves the queue without going back to the pool (state
    /// in memory: its release failed on a memory error, so its word stays QUARANTINED).
    pub(super) fn lose_oldest(&mut self) {
        self.quarantine.pop_front();
    }

    /// Before a command written at edge `now`: releases the oldest quarantined index if its
    /// time is over.
    pub(super) fn tick(&mut self, now: u64) {
        if let Some(&(index, freed)) = self.quarantine.front() {
            if now.wrapping_sub(freed) >= self.cycles {
                self.quarantine.pop_front();
                self.available.insert(index);
            }
        }
    }

    /// A FREE written at edge `now` has completed (after its drain). Returns whether the
    /// quarantine overflowed (its oldest index released early).
    pub(super) fn release(&mut self, index: u32, now: u64) -> bool {
        if self.cycles == 0 {
            self.available.insert(index);
            return false;
        }
        let mut overflow = false;
        if self.quarantine.len() == self.depth {
            let (oldest, _) = self.quarantine.pop_front().expect("depth >= 1");
            self.available.insert(oldest);
            overflow = true;
        }
        self.quarantine.push_back((index, now));
        overflow
    }

    /// Current count for the QUARANTINED register.
    pub(super) fn quarantined(&self) -> u32 {
        self.quarantine.len() as u32
    }

    /// Whether `index` waits in the quarantine.
    pub(super) fn is_quarantined(&self, index: u32) -> bool {
        self.quarantine.iter().any(|&(i, _)| i == index)
    }
}
