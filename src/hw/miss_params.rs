//! The miss unit's parameters ([`MissParams`]: SPEC §9's block, word, slot and bus sizes,
//! and what follows from them: beats of a block, sets and ways of the slots) and the widths
//! its ports are declared at (the widest any configuration needs). Used by the
//! [`MissUnit`](super::miss_unit::MissUnit) (which re-exports them), its child blocks, the
//! state cache and the command engine.

use super::MAX_PORTS;
use anyhow::{bail, Result};

/// Width of a slot id (up to 256 slots).
pub const SLOT_BITS: usize = 8;
/// Width of a block number: `24 - block_bits` with `block_bits >= 3`.
pub const BLOCK_NUM_BITS: usize = 21;
/// Widest memory data bus.
pub const MEM_DATA_BITS: usize = 512;
/// Width of a word index within a block (`block_bits <= 8`).
pub const WORD_INDEX_BITS: usize = 8;
/// Width of a beat index within a block (at most 128 beats).
pub const BEAT_BITS: usize = 8;
/// Widest state word in memory.
pub const WORD_BITS_MAX: usize = 32;
/// Depth of each port's answer queue.
pub const ANSWER_DEPTH: usize = 4;
// (The room in an answer queue is a bit test of its count.)
const _: () = assert!(ANSWER_DEPTH.is_power_of_two());
/// Most slots.
pub const MAX_SLOTS: usize = 256;
/// Most ways of a set of slots (a block's slot is one of the ways of its set).
pub const MAX_WAYS: usize = 8;
// (A set's field of the flag vectors starts at `set << 3`.)
const _: () = assert!(MAX_WAYS == 8);
/// Width of a port's answer and release numbers (mod 2^SEQ_BITS): more than a port can
/// hold answers it has not released (its wait queue, at most 512, and its answer queue).
pub const SEQ_BITS: usize = 10;
/// `araddr` bits within a beat of the widest bus (64 bytes).
pub const OFFSET_BITS: usize = 6;
/// Read queue word: block, slot.
pub const ARQ_BITS: usize = BLOCK_NUM_BITS + SLOT_BITS;
/// In-flight queue word: offset in the beat, block, slot.
pub const RET_BITS: usize = OFFSET_BITS + BLOCK_NUM_BITS + SLOT_BITS;

/// The parameters of SPEC §9 that the configuration does not have yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissParams {
    /// log2 of the state words per block, 3..=8.
    pub block_bits: u32,
    /// Bits of a state word in memory: 2, 4, 8, 16 or 32.
    pub word_bits: u32,
    /// Fill slots (block reads in flight or held), 1..=256.
    pub max_misses: u32,
    /// Memory data bus: 64, 128, 256 or 512.
    pub mem_data_bits: u32,
    /// Cache lines (a power of two, at most 2^21); only names the line of a broadcast.
    pub cache_lines: u32,
}

impl MissParams {
    /// Checks every parameter (and the engine's port count): an error names the parameter,
    /// its value and what is allowed.
    pub fn check(&self, ports: usize) -> Result<()> {
        if !(1..=MAX_PORTS).contains(&ports) {
            bail!("miss unit: ports = {ports}, allowed 1..={MAX_PORTS}");
        }
        if !(3..=8).contains(&self.block_bits) {
            bail!("miss unit: block_bits = {}, allowed 3..=8", self.block_bits);
        }
        if ![2, 4, 8, 16, 32].contains(&self.word_bits) {
            bail!(
                "miss unit: word_bits = {}, allowed 2, 4, 8, 16, 32",
                self.word_bits
            );
        }
        if !(1..=256).contains(&self.max_misses) {
            bail!(
                "miss unit: max_misses = {}, allowed 1..=256",
                self.max_misses
            );
        }
        if ![64, 128, 256, 512].contains(&self.mem_data_bits) {
            bail!(
                "miss unit: mem_data_bits = {}, allowed 64, 128, 256, 512",
                self.mem_data_bits
            );
        }
        if !self.cache_lines.is_power_of_two() || self.cache_lines > 1 << BLOCK_NUM_BITS {
            bail!(
                "miss unit: cache_lines = {}, allowed a power of two 1..=2^{BLOCK_NUM_BITS}",
                self.cache_lines
            );
        }
        Ok(())
    }

    /// Bits of a block.
    pub fn block_total_bits(&self) -> u32 {
        self.word_bits << self.block_bits
    }

    /// Bytes of a block in memory.
    pub fn block_bytes(&self) -> u64 {
        u64::from(self.block_total_bits() / 8)
    }

    /// Bits of a block the fill buffer stores per beat: the smaller of the block and the bus.
    pub fn stored_bits(&self) -> u32 {
        self.block_total_bits().min(self.mem_data_bits)
    }

    /// Beats of a block read (`arlen + 1`).
    pub fn beats(&self) -> u32 {
        self.block_total_bits() / self.stored_bits()
    }

    /// `arsize`: log2 of the bytes of one transfer.
    pub fn arsize(&self) -> u32 {
        (self.stored_bits() / 8).trailing_zeros()
    }

    /// Ways of a set of slots: the smaller of [`MAX_WAYS`] and `max_misses`.
    pub fn ways(&self) -> usize {
        (self.max_misses as usize).min(MAX_WAYS)
    }

    /// Sets of slots: `max_misses / ways` rounded up to a power of two (a block's set is its
    /// number mod `sets`).
    pub fn sets(&self) -> usize {
        (self.max_misses as usize)
            .div_ceil(self.ways())
            .next_power_of_two()
    }

    /// The slot of way `way` in set `set` (`way * sets + set`), if it is one of the
    /// `max_misses` slots.
    pub fn slot(&self, set: usize, way: usize) -> Option<usize> {
        let s = way * self.sets() + set;
        (way < self.ways() && set < self.sets() && s < self.max_misses as usize).then_some(s)
    }

    /// The bit of slot `slot` in the miss unit's flag vectors: `set * MAX_WAYS + way`, so
    /// that a set's ways are one field of [`MAX_WAYS`] bits (a multiplexer of the sets, not of
    /// the slots, picks them).
    pub fn vector_bit(&self, slot: usize) -> usize {
        (slot % self.sets()) * MAX_WAYS + slot / self.sets()
    }

    /// Depth of the queues that hold one entry per slot at most.
    pub fn slot_queue_depth(&self) -> usize {
        (self.max_misses as usize).next_power_of_two().max(2)
    }
}
