//! The memory of the reference model: the directory in memory (two_level), and the state
//! table of SPEC §9 with its lazy initialisation, its error ranges, and the outcomes a
//! failing read or write allows a command or a lookup.

use super::*;

impl Model {
    /// two_level in_memory: writes the memory image the directory is read from (the testbench
    /// writes the same into its AXI memory model).
    pub fn mem_write_u64(&mut self, addr: u64, v: u64) {
        self.mem.write_u64(addr, v);
    }

    /// two_level in_memory: reads of bytes in `range` answer an AXI error (MEM_ERROR).
    pub fn mem_add_error(&mut self, range: std::ops::Range<u64>) {
        self.mem_errors.push(range);
    }

    /// two_level in_memory: the memory image and error ranges of `other`.
    pub fn copy_memory(&mut self, other: &Model) {
        self.mem = other.mem.clone();
        self.mem_errors = other.mem_errors.clone();
    }

    /// two_level in_memory: no read answers an error any more.
    pub fn mem_clear_errors(&mut self) {
        self.mem_errors.clear();
    }

    /// two_level in_memory: the byte address of directory entry `i`, modulo 2^addr_bits
    /// (`TABLE_BASE` with bits `[2:0]` ignored, plus 8 bytes per entry).
    pub fn mem_dir_address(&self, i: u32) -> u64 {
        (self.table_base & !7).wrapping_add(u64::from(i) * 8) & self.addr_mask
    }

    pub(super) fn dir_in_memory(&self) -> bool {
        self.cfg.mode == Mode::TwoLevel && self.cfg.directory == Directory::InMemory
    }

    /// State in memory: the state table's first byte, STATE_BASE aligned down to the block
    /// size (SPEC §9 requires the alignment; the engine ignores the bits below it).
    pub fn state_table_start(&self) -> u64 {
        self.state_base & !(self.block_bytes.max(1) - 1)
    }

    /// State in memory: the byte range of the block of `index` in the state table (at
    /// STATE_BASE aligned to the block, modulo 2^addr_bits).
    pub fn state_block_range(&self, index: u32) -> std::ops::Range<u64> {
        let b = u64::from(index >> self.block_bits);
        let start =
            ((self.state_base & !(self.block_bytes - 1)) + b * self.block_bytes) & self.addr_mask;
        start..start + self.block_bytes
    }

    /// State in memory: an error range covers part of the block of `index`.
    pub(super) fn block_in_error(&self, index: u32) -> bool {
        let r = self.state_block_range(index);
        self.mem_errors
            .iter()
            .any(|e| e.start < r.end && r.start < e.end)
    }

    /// State in memory: the block of `index` was written since reset.
    pub(super) fn block_written(&self, index: u32) -> bool {
        let b = (index >> self.block_bits) as usize;
        self.written[b / 64] >> (b % 64) & 1 == 1
    }

    /// State in memory: the block of `index` holds a RESERVED or VALID index.
    pub fn block_live(&self, index: u32) -> bool {
        self.state_in_memory() && self.live[(index >> self.block_bits) as usize] > 0
    }

    /// State in memory (SPEC §9): a read of the block of `index` fails if it happens: the
    /// block was written since reset (a block never written is all FREE and never read) and
    /// an error range covers it. Whether the read happens (or the state words come from the
    /// cache) is the design's choice.
    pub(super) fn read_may_fail(&self, index: u32) -> bool {
        self.state_in_memory() && self.block_written(index) && self.block_in_error(index)
    }

    /// State in memory: a write of the word (or, lazily initialised, the block) of `index`
    /// fails: an error range covers the block. Every command that changes an index writes.
    pub(super) fn write_fails(&self, index: u32) -> bool {
        self.state_in_memory() && self.block_in_error(index)
    }

    /// State in memory: whether `cmd`, about to be applied, may answer MEM_ERROR instead of
    /// the outcome [`Model::command_at`] computes, the choice being the design's (SPEC §9):
    ///
    /// * ALLOC_AT, PUBLISH, FREE whose check fails on a block that a read fails in: the engine
    ///   answers BAD_STATE from the state words in its cache, or MEM_ERROR from the read;
    /// * ALLOC, cyclic, whose first block with an index to take from the cursor's block on
    ///   (the on-chip free map's answer) holds none at or after the cursor: the engine may
    ///   read that block first, and that read may fail.
    ///
    /// A command whose write fails answers MEM_ERROR whatever it read: that outcome is the
    /// only one, not an alternative.
    pub(super) fn mem_error_may_show(&self, cmd: Command) -> bool {
        if !self.state_in_memory() || self.mem_errors.is_empty() {
            return false;
        }
        if cmd.opcode() == Command::ALLOC {
            let (start, Some(index)) = self.alloc_choice() else {
                return false;
            };
            let bb = self.block_bits;
            let first_block = self.find_block(start >> bb << bb);
            return first_block.is_some_and(|b| {
                b != index >> bb && self.read_may_fail(b << bb) && !self.write_fails(index)
            });
        }
        matches!(self.command_check(cmd), Some(Ok((index, false))) if self.read_may_fail(index))
    }

    /// State in memory: a command on `index` whose checks pass (`check`) or not: BAD_STATE,
    /// or MEM_ERROR when its write fails. (A failed read is the other outcome
    /// [`Model::mem_error_may_show`] allows.)
    pub(super) fn check_write(&self, index: u32, check: bool) -> Result<(), CmdStatus> {
        if !check {
            return Err(CmdStatus::BadState);
        }
        if self.write_fails(index) {
            return Err(CmdStatus::MemError);
        }
        Ok(())
    }

    /// State in memory: whether a lookup of `qpn` may answer MEM_ERROR now (its block holds
    /// a live index, or is the block of `window` (the index a command in flight changes),
    /// and an error range covers the block: a cache miss reads it and fails; a hit answers
    /// from the cache).
    pub fn lookup_may_mem_error(&self, qpn: u32, window: Option<u32>) -> bool {
        let (index, _) = self.split_qpn(qpn);
        self.state_in_memory()
            && index < self.max_qps
            && self.block_in_error(index)
            && (self.block_live(index)
                || window.is_some_and(|w| w >> self.block_bits == index >> self.block_bits))
    }

    /// State in memory, STATE_BASE written: a new table, as after a reset: every block never
    /// written (all FREE with generation 0), nothing of the old table trusted.
    pub(super) fn new_table(&mut self) {
        self.entries.fill(0);
        self.written.fill(0);
        self.live.fill(0);
    }

    /// The state is in memory (SPEC §9).
    pub fn state_in_memory(&self) -> bool {
        self.cfg.state == crate::config::State::InMemory
    }

    /// STATE_BASE (SPEC §9).
    pub fn state_base(&self) -> u64 {
        self.state_base
    }

    /// STATE_BYTES (SPEC §9): the bytes of the state table, 0 with the state on chip.
    pub fn state_bytes(&self) -> u64 {
        // (`block_bytes` is 0 with the state on chip.)
        u64::from(self.max_qps.div_ceil(1 << self.block_bits)) * self.block_bytes
    }
}
