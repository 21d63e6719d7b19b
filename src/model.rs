//! Reference model of the engine: the architectural semantics of SPEC §2, §4 and §6 in plain
//! Rust, one command at a time, no timing.
//!
//! State per index: [`State`] and generation, in one packed word (`Vec<u32>` sized max_qps; a
//! zeroed vector is FREE/generation 0 everywhere, so untouched pages of a 2^24-entry table cost
//! no memory). The allocatable indexes (FREE and not quarantined) are kept in a hierarchical
//! bitmap ([`IndexSet`]) so that `cyclic` and `lowest` find the next one in O(log64 n).
//!
//! Timing is the scoreboard's business (`qptable_testbench::scoreboard`): here a command is applied
//! atomically and [`Model::command`] reports the one entry it changed, so a scoreboard can
//! evaluate lookups against either the entry before or after ([`Model::lookup_with_entry`]).
//!
//! Assumptions written down (SPEC is silent):
//! - `ALLOC_AT` does not move the `cyclic` pointer; only a successful `ALLOC` does (to the index
//!   it handed out). A `FULL` does not move it either.
//! - A lookup QPN, and the qpn of a command, is taken modulo 2^24 (the port is 24 bits wide).
//! - `DIR_FLUSH` answers with the written qpn field, like every command but ALLOC.
//! - `TABLE_BASE` keeps bits `[2:0]` in every mode (they read back as written); only an
//!   in_memory directory fetch would ignore them.
//! - The model has finished its init sweep at once: STATUS reads INIT_DONE = 1, CMD_BUSY = 0.

use crate::config::{Config, Directory, Mode, Reuse};
use crate::mem_image::MemImage;
use std::fmt;

use crate::spec::{dir_entry, opcode, QPN_MASK};
pub use crate::spec::{regs, CmdStatus, Status, QPN_BITS};

/// State of one index (SPEC §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Free = 0,
    Reserved = 1,
    Valid = 2,
}

/// The entry of one index: its state and current generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub state: State,
    pub generation: u32,
}

impl Entry {
    /// Packed: generation in `[23:0]`, state in `[25:24]`; 0 is FREE with generation 0.
    fn pack(self) -> u32 {
        (self.state as u32) << QPN_BITS | self.generation
    }

    fn unpack(word: u32) -> Entry {
        let state = match word >> QPN_BITS {
            0 => State::Free,
            1 => State::Reserved,
            _ => State::Valid,
        };
        Entry {
            state,
            generation: word & QPN_MASK,
        }
    }
}

/// A command as written to CMD: `opcode[31:28]`, `qpn[23:0]` (bits `[27:24]` are ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Opcode 1; the qpn field is 0.
    Alloc,
    /// Opcode 2.
    AllocAt(u32),
    /// Opcode 3.
    Publish(u32),
    /// Opcode 4.
    Free(u32),
    /// Opcode 5; the qpn field is 0.
    DirFlush,
    /// Any opcode (low 4 bits) with any qpn field (low 24 bits). Opcodes 1..=5 execute as the
    /// named command (with this qpn field: it is what CMD_RESULT reports for DIR_FLUSH and
    /// ignored by ALLOC); 0 and 6..=15 are BAD_CMD.
    Raw(u32, u32),
}

impl Command {
    pub const ALLOC: u32 = opcode::ALLOC;
    pub const ALLOC_AT: u32 = opcode::ALLOC_AT;
    pub const PUBLISH: u32 = opcode::PUBLISH;
    pub const FREE: u32 = opcode::FREE;
    pub const DIR_FLUSH: u32 = opcode::DIR_FLUSH;

    /// The opcode field.
    pub fn opcode(&self) -> u32 {
        match *self {
            Command::Alloc => Command::ALLOC,
            Command::AllocAt(_) => Command::ALLOC_AT,
            Command::Publish(_) => Command::PUBLISH,
            Command::Free(_) => Command::FREE,
            Command::DirFlush => Command::DIR_FLUSH,
            Command::Raw(op, _) => op & 0xF,
        }
    }

    /// The qpn field (24 bits).
    pub fn qpn(&self) -> u32 {
        match *self {
            Command::Alloc | Command::DirFlush => 0,
            Command::AllocAt(q) | Command::Publish(q) | Command::Free(q) | Command::Raw(_, q) => {
                q & QPN_MASK
            }
        }
    }

    /// The CMD register word.
    pub fn encode(&self) -> u32 {
        self.opcode() << regs::CMD_OPCODE_SHIFT | self.qpn() << regs::CMD_QPN_SHIFT
    }

    /// The command of a CMD register word: a named variant when it encodes back to the same
    /// word (bits `[27:24]` aside), else `Raw`.
    pub fn decode(word: u32) -> Command {
        let (op, qpn) = (
            word >> regs::CMD_OPCODE_SHIFT,
            word >> regs::CMD_QPN_SHIFT & QPN_MASK,
        );
        match (op, qpn) {
            (Command::ALLOC, 0) => Command::Alloc,
            (Command::ALLOC_AT, q) => Command::AllocAt(q),
            (Command::PUBLISH, q) => Command::Publish(q),
            (Command::FREE, q) => Command::Free(q),
            (Command::DIR_FLUSH, 0) => Command::DirFlush,
            (op, q) => Command::Raw(op, q),
        }
    }
}

/// CMD_RESULT: `status[31:28]`, `busy[27]`, `qpn[23:0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmdResult {
    pub status: CmdStatus,
    pub qpn: u32,
}

impl CmdResult {
    /// The register word of a finished command (busy = 0).
    pub fn to_register(&self) -> u32 {
        self.status.as_u32() << regs::CMD_RESULT_STATUS_SHIFT
            | (self.qpn & QPN_MASK) << regs::CMD_RESULT_QPN_SHIFT
    }

    /// The result in a register word; the busy bit and bits `[26:24]` are ignored. `None` if the
    /// status field is not a [`CmdStatus`].
    pub fn from_register(word: u32) -> Option<CmdResult> {
        Some(CmdResult {
            status: CmdStatus::from_u32(word >> regs::CMD_RESULT_STATUS_SHIFT)?,
            qpn: word >> regs::CMD_RESULT_QPN_SHIFT & QPN_MASK,
        })
    }
}

impl fmt::Display for CmdResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} qpn {:#08x}", self.status, self.qpn)
    }
}

/// The answer to a lookup: status, and the context address when OK (else 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lookup {
    pub status: Status,
    pub addr: u64,
}

impl fmt::Display for Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} addr {:#x}", self.status, self.addr)
    }
}

/// The one entry a command changed: a lookup of that index may see either `before` or `after`
/// while the command is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub index: u32,
    pub before: Entry,
    pub after: Entry,
}

/// Why a register access is refused. Every variant but [`Slverr::Command`] is an AXI SLVERR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slverr {
    /// Not in the register map (also DIR_* in flat mode and blocks of ports that don't exist).
    Unmapped,
    /// A write to a read-only register.
    ReadOnly,
    /// A read of CMD.
    WriteOnly,
    /// A write to TABLE_BASE_LO/HI while IN_USE is not 0, or to STATE_BASE_LO/HI while IN_USE
    /// or QUARANTINED is not 0.
    InUse,
    /// NOT an SLVERR (the hardware answers OKAY): a CMD write is a command, to be applied with
    /// [`Model::command`] (or `Scoreboard::command_issued`), which returns its result and change.
    Command,
}

impl Slverr {
    /// Whether the hardware answers SLVERR (all but [`Slverr::Command`]).
    pub fn is_slverr(self) -> bool {
        self != Slverr::Command
    }
}

impl fmt::Display for Slverr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slverr::Unmapped => "SLVERR (unmapped)",
            Slverr::ReadOnly => "SLVERR (read-only)",
            Slverr::WriteOnly => "SLVERR (write-only)",
            Slverr::InUse => "SLVERR (TABLE_BASE or STATE_BASE while QPs are in use)",
            Slverr::Command => "CMD write: use Model::command",
        })
    }
}

impl std::error::Error for Slverr {}

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
struct Pool {
    available: IndexSet,
    quarantine: std::collections::VecDeque<(u32, u64)>,
    cycles: u64,
    depth: usize,
}

impl Pool {
    fn new(max_qps: u32, cycles: u64, depth: u32) -> Pool {
        Pool {
            available: IndexSet::with_range(max_qps, 0),
            quarantine: std::collections::VecDeque::new(),
            cycles,
            depth: depth as usize,
        }
    }

    fn is_available(&self, index: u32) -> bool {
        self.available.contains(index)
    }

    fn first_at_or_after(&self, index: u32) -> Option<u32> {
        self.available.first_at_or_after(index)
    }

    fn take(&mut self, index: u32) {
        debug_assert!(
            self.available.contains(index),
            "two allocations of index {index}"
        );
        self.available.remove(index);
    }

    /// The oldest quarantined index.
    fn oldest(&self) -> Option<u32> {
        self.quarantine.front().map(|&(i, _)| i)
    }

    /// The oldest quarantined index if its time is over before a command written at `now`.
    fn due(&self, now: u64) -> Option<u32> {
        let &(index, freed) = self.quarantine.front()?;
        (now.wrapping_sub(freed) >= self.cycles).then_some(index)
    }

    /// Whether the quarantine is on and full (the next release overflows).
    fn full(&self) -> bool {
        self.cycles > 0 && self.quarantine.len() == self.depth
    }

    /// The oldest quarantined index leaves the queue without going back to the pool (state
    /// in memory: its release failed on a memory error, so its word stays QUARANTINED).
    fn lose_oldest(&mut self) {
        self.quarantine.pop_front();
    }

    /// Before a command written at edge `now`: releases the oldest quarantined index if its
    /// time is over.
    fn tick(&mut self, now: u64) {
        if let Some(&(index, freed)) = self.quarantine.front() {
            if now.wrapping_sub(freed) >= self.cycles {
                self.quarantine.pop_front();
                self.available.insert(index);
            }
        }
    }

    /// A FREE written at edge `now` has completed (after its drain). Returns whether the
    /// quarantine overflowed (its oldest index released early).
    fn release(&mut self, index: u32, now: u64) -> bool {
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
    fn quarantined(&self) -> u32 {
        self.quarantine.len() as u32
    }

    /// Whether `index` waits in the quarantine.
    fn is_quarantined(&self, index: u32) -> bool {
        self.quarantine.iter().any(|&(i, _)| i == index)
    }
}

/// Global counters (SPEC §6, 0x180..), 32-bit wrapping.
#[derive(Clone, Debug, Default)]
struct Counters {
    alloc_ok: u32,
    alloc_full: u32,
    free_ok: u32,
    cmd_error: u32,
    quarantine_overflow: u32,
    in_use: u32,
}

/// What a command changes: the entries, the index pool, the cursor, the command counters,
/// the block bits of the state in memory and CMD_RESULT. The other outcome of a command that
/// may answer MEM_ERROR ([`Model::mem_error_allowed`]) is kept as one.
#[derive(Clone)]
struct CommandState {
    entries: Vec<u32>,
    pool: Pool,
    cursor: u32,
    counters: Counters,
    written: Vec<u64>,
    live: Vec<u16>,
    last_result: CmdResult,
    /// Accepted STATE_BASE writes since reset when it was taken (a write then empties the
    /// table; see [`Model::take_mem_error`]).
    tables: u64,
}

/// The reference model. See the module documentation.
#[derive(Clone)]
pub struct Model {
    cfg: Config,
    max_qps: u32,
    index_mask: u32,
    gen_mask: u32,
    addr_mask: u64,
    /// Packed [`Entry`] per index.
    entries: Vec<u32>,
    pool: Pool,
    /// Edge of the CMD write handshake of the command being applied (quarantine time).
    now: u64,
    /// two_level: the directory (on chip: written through DIR_*), as stored.
    directory: Vec<u64>,
    dir_index: u32,
    stage_lo: u32,
    stage_hi: u32,
    /// `cyclic`: where the next ALLOC starts looking (first_index after reset, then one past the
    /// index the last ALLOC handed out; max_qps wraps to first_index).
    cursor: u32,
    table_base: u64,
    /// State in memory (SPEC §9): STATE_BASE.
    state_base: u64,
    last_result: CmdResult,
    counters: Counters,
    /// Per port: LOOKUPS, then one counter per [`Status`].
    port_counters: Vec<[u32; 7]>,
    /// two_level in_memory: the memory the directory is read from (a copy of what the
    /// testbench's memory holds; see [`Model::mem_write_u64`]).
    mem: MemImage,
    /// two_level in_memory: address ranges whose reads answer an AXI error; state in memory:
    /// whose reads and writes do.
    mem_errors: Vec<std::ops::Range<u64>>,
    /// State in memory (SPEC §9): the blocks written since reset (lazy initialisation), one
    /// bit each, and the RESERVED + VALID indexes of each block (empty with the state on
    /// chip).
    written: Vec<u64>,
    live: Vec<u16>,
    /// State in memory: log2 of the indexes of a block, and the bytes of a block in memory.
    block_bits: u32,
    block_bytes: u64,
    /// State in memory: the other outcome SPEC §9 allows the last command, when there is one:
    /// the model as it is if that command answered MEM_ERROR. A command reads a block's
    /// state words "from the cache, or one memory round trip" (SPEC §9), so whether a read of
    /// a block that an error range covers happens, and fails, is the design's choice; the
    /// model does not know the engine's buffers and keeps both outcomes until the scoreboard
    /// sees which one the engine took ([`Model::take_mem_error`]).
    mem_error_outcome: Option<Box<CommandState>>,
    /// State in memory: accepted STATE_BASE writes since reset.
    tables: u64,
}

impl Model {
    /// The state after reset and the init sweep. Panics if `cfg` does not validate.
    pub fn new(cfg: &Config) -> Model {
        if let Err(e) = cfg.validate() {
            panic!("Model::new: invalid configuration: {e}");
        }
        let max_qps = cfg.max_qps();
        let state_mem = crate::hw::EngineParams::new(cfg).state_mem;
        let blocks = state_mem.map_or(0, |m| max_qps.div_ceil(1 << m.block_bits));
        Model {
            cfg: cfg.clone(),
            max_qps,
            index_mask: (1u32 << cfg.index_bits) - 1,
            gen_mask: (1u32 << cfg.gen_bits()) - 1,
            addr_mask: u64::MAX >> (64 - cfg.addr_bits),
            entries: vec![0; max_qps as usize],
            pool: Pool::new(max_qps, cfg.quarantine_cycles, cfg.quarantine_depth),
            now: 0,
            directory: vec![
                0;
                match cfg.mode {
                    Mode::Flat => 0,
                    Mode::TwoLevel => max_qps.div_ceil(1 << cfg.leaf_bits) as usize,
                }
            ],
            dir_index: 0,
            stage_lo: 0,
            stage_hi: 0,
            cursor: cfg.first_index,
            table_base: 0,
            state_base: 0,
            last_result: CmdResult {
                status: CmdStatus::Ok,
                qpn: 0,
            },
            counters: Counters::default(),
            port_counters: vec![[0; 7]; cfg.ports.len()],
            mem: MemImage::new(),
            mem_errors: Vec::new(),
            written: vec![0; blocks.div_ceil(64) as usize],
            live: vec![0; blocks as usize],
            block_bits: cfg.block_bits,
            block_bytes: state_mem.map_or(0, |m| m.block_bytes()),
            mem_error_outcome: None,
            tables: 0,
        }
    }

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

    fn dir_in_memory(&self) -> bool {
        self.cfg.mode == Mode::TwoLevel && self.cfg.directory == Directory::InMemory
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// `(index, generation)` of a QPN (taken modulo 2^24).
    pub fn split_qpn(&self, qpn: u32) -> (u32, u32) {
        let qpn = qpn & QPN_MASK;
        (qpn & self.index_mask, qpn >> self.cfg.index_bits)
    }

    /// The QPN of an index and a generation.
    pub fn make_qpn(&self, index: u32, generation: u32) -> u32 {
        (generation & self.gen_mask) << self.cfg.index_bits | (index & self.index_mask)
    }

    /// The entry of an index `< max_qps`.
    pub fn entry(&self, index: u32) -> Entry {
        Entry::unpack(self.entries[index as usize])
    }

    fn set_entry(&mut self, index: u32, entry: Entry) {
        if self.state_in_memory() {
            let b = (index >> self.block_bits) as usize;
            let live = |e: Entry| u16::from(e.state != State::Free);
            self.live[b] = self.live[b] - live(self.entry(index)) + live(entry);
            self.written[b / 64] |= 1 << (b % 64);
        }
        self.entries[index as usize] = entry.pack();
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
    fn block_in_error(&self, index: u32) -> bool {
        let r = self.state_block_range(index);
        self.mem_errors
            .iter()
            .any(|e| e.start < r.end && r.start < e.end)
    }

    /// State in memory: the block of `index` was written since reset.
    fn block_written(&self, index: u32) -> bool {
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
    fn read_may_fail(&self, index: u32) -> bool {
        self.state_in_memory() && self.block_written(index) && self.block_in_error(index)
    }

    /// State in memory: a write of the word (or, lazily initialised, the block) of `index`
    /// fails: an error range covers the block. Every command that changes an index writes.
    fn write_fails(&self, index: u32) -> bool {
        self.state_in_memory() && self.block_in_error(index)
    }

    /// State in memory: the block of the first index ALLOC may take at or after `from`
    /// (cyclic: wrapping), as the block free map finds it.
    fn find_block(&self, from: u32) -> Option<u32> {
        let first = self.cfg.first_index;
        let cyclic = self.cfg.reuse == Reuse::Cyclic;
        self.pool
            .first_at_or_after(from.max(first))
            .or_else(|| cyclic.then(|| self.pool.first_at_or_after(first)).flatten())
            .map(|i| i >> self.block_bits)
    }

    /// Where ALLOC starts looking, and the index it takes (`None`: FULL).
    fn alloc_choice(&self) -> (u32, Option<u32>) {
        let first = self.cfg.first_index;
        let start = match self.cfg.reuse {
            Reuse::Cyclic => self.cursor,
            Reuse::Lowest => first,
        };
        let index = self
            .pool
            .first_at_or_after(start)
            .or_else(|| self.pool.first_at_or_after(first));
        (start, index)
    }

    /// The index, and whether the state check passes, of ALLOC_AT, PUBLISH or FREE of `qpn`
    /// (SPEC §6); OUT_OF_RANGE, or `None` for another opcode.
    fn command_check(&self, cmd: Command) -> Option<Result<(u32, bool), CmdStatus>> {
        let (index, generation) = self.split_qpn(cmd.qpn());
        if !matches!(
            cmd.opcode(),
            Command::ALLOC_AT | Command::PUBLISH | Command::FREE
        ) {
            return None;
        }
        if index >= self.max_qps {
            return Some(Err(CmdStatus::OutOfRange));
        }
        let entry = self.entry(index);
        let check = match cmd.opcode() {
            Command::ALLOC_AT => entry.state == State::Free && self.pool.is_available(index),
            Command::PUBLISH => entry.state == State::Reserved && entry.generation == generation,
            _ => entry.state != State::Free && entry.generation == generation,
        };
        Some(Ok((index, check)))
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
    fn mem_error_may_show(&self, cmd: Command) -> bool {
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
    fn check_write(&self, index: u32, check: bool) -> Result<(), CmdStatus> {
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

    pub fn table_base(&self) -> u64 {
        self.table_base
    }

    /// RESERVED + VALID indexes.
    pub fn in_use(&self) -> u32 {
        self.counters.in_use
    }

    /// The result of the last command (CMD_RESULT).
    pub fn last_result(&self) -> CmdResult {
        self.last_result
    }

    /// Whether `ALLOC_AT` of this index could succeed (FREE and not quarantined).
    /// Edge of the last command's CMD write handshake, as given to [`Model::command_at`].
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Whether `index` waits in the quarantine (freed, its time not over or not yet released).
    pub fn quarantined(&self, index: u32) -> bool {
        self.pool.is_quarantined(index)
    }

    pub fn is_available(&self, index: u32) -> bool {
        self.pool.is_available(index)
    }

    /// The lookup of SPEC §4 against the current state.
    pub fn lookup(&self, qpn: u32) -> Lookup {
        self.lookup_with_entry(qpn, None)
    }

    /// The lookup as if the entry of index `i` were `e` when `entry_override = Some((i, e))`
    /// (e.g. the entry before a command in flight). Checks in SPEC order: range, state,
    /// generation, then the address computation ([`Model::address`]).
    pub fn lookup_with_entry(&self, qpn: u32, entry_override: Option<(u32, Entry)>) -> Lookup {
        let fail = |status| Lookup { status, addr: 0 };
        let (index, generation) = self.split_qpn(qpn);
        if index >= self.max_qps {
            return fail(Status::OutOfRange);
        }
        let entry = match entry_override {
            Some((i, e)) if i == index => e,
            _ => self.entry(index),
        };
        if entry.state != State::Valid {
            return fail(Status::NotAllocated);
        }
        if entry.generation != generation {
            return fail(Status::Stale);
        }
        match self.address(index) {
            Ok(addr) => Lookup {
                status: Status::Ok,
                addr,
            },
            Err(status) => fail(status),
        }
    }

    /// The context address of a valid index, modulo 2^addr_bits; the one place that knows the
    /// table organisation (two_level would consult the directory here and may fail with
    /// PAGE_ABSENT or MEM_ERROR).
    pub fn address(&self, index: u32) -> Result<u64, Status> {
        match self.cfg.mode {
            Mode::Flat => Ok(self
                .table_base
                .wrapping_add(u64::from(index) * u64::from(self.cfg.entry_bytes))
                & self.addr_mask),
            Mode::TwoLevel => {
                let leaf = self.cfg.leaf_bits;
                let entry = if self.dir_in_memory() {
                    let a = self.mem_dir_address(index >> leaf);
                    // The read is one beat of the whole bus word that holds the entry (SPEC
                    // §4): an error range over any byte of that word fails it.
                    let bus = u64::from(self.cfg.mem_data_bits / 8);
                    let word = a & !(bus - 1);
                    if self
                        .mem_errors
                        .iter()
                        .any(|r| r.start < word.saturating_add(bus) && word < r.end)
                    {
                        return Err(Status::MemError);
                    }
                    self.mem.read_u64(a)
                } else {
                    self.dir_entry(index >> leaf)
                };
                if entry & dir_entry::PRESENT == 0 {
                    return Err(Status::PageAbsent);
                }
                let offset = u64::from(index & ((1 << leaf) - 1)) * u64::from(self.cfg.entry_bytes);
                Ok((entry & dir_entry::BASE_MASK).wrapping_add(offset) & self.addr_mask)
            }
        }
    }

    /// Directory entry `i` (two_level), as stored: reserved bits `[5:1]` read as 0.
    pub fn dir_entry(&self, i: u32) -> u64 {
        self.directory.get(i as usize).copied().unwrap_or(0)
    }

    /// Sets directory entry `i` (two_level on_chip: what a DIR_ENTRY_HI write commits).
    pub fn set_dir_entry(&mut self, i: u32, entry: u64) {
        self.directory[i as usize] = entry & (dir_entry::BASE_MASK | dir_entry::PRESENT);
    }

    /// Directory entries: `ceil(max_qps / 2^leaf_bits)` in two_level, 0 in flat.
    pub fn dir_entries(&self) -> u32 {
        match self.cfg.mode {
            Mode::Flat => 0,
            Mode::TwoLevel => self.max_qps.div_ceil(1 << self.cfg.leaf_bits),
        }
    }

    fn dir_on_chip(&self) -> bool {
        self.cfg.mode == Mode::TwoLevel && self.cfg.directory == Directory::OnChip
    }

    /// Applies one command atomically (SPEC §6) and updates CMD_RESULT and the counters.
    /// Returns the result and the entry that changed (`None` when nothing changed: every
    /// failing command, DIR_FLUSH).
    pub fn command(&mut self, cmd: Command) -> (CmdResult, Option<Change>) {
        self.command_at(cmd, self.now)
    }

    /// [`Model::command`] for a command whose CMD write handshake was at edge `now` (the
    /// quarantine counts time between such edges; see [`Model::quarantined`]).
    pub fn command_at(&mut self, cmd: Command, now: u64) -> (CmdResult, Option<Change>) {
        self.now = now;
        self.mem_error_outcome = None;
        // State in memory: the release rewrites the index's word, which fails in an error
        // range (the index stays quarantined and is tried again before the next command).
        match self.pool.due(now) {
            Some(i) if self.write_fails(i) => {}
            _ => self.pool.tick(now),
        }
        // The outcome if this command meets a failing read, kept while the design may choose
        // it: the state as it is now, CMD_RESULT MEM_ERROR, no counter.
        let mem_error_outcome = self.mem_error_may_show(cmd).then(|| {
            Box::new(CommandState {
                entries: self.entries.clone(),
                pool: self.pool.clone(),
                cursor: self.cursor,
                counters: self.counters.clone(),
                written: self.written.clone(),
                live: self.live.clone(),
                last_result: CmdResult {
                    status: CmdStatus::MemError,
                    qpn: cmd.qpn(),
                },
                tables: self.tables,
            })
        });
        let qpn = cmd.qpn();
        let outcome = match cmd.opcode() {
            Command::ALLOC => self.alloc(),
            Command::ALLOC_AT => self.alloc_at(qpn),
            Command::PUBLISH => self.publish(qpn),
            Command::FREE => self.free(qpn),
            Command::DIR_FLUSH => Ok((qpn, None)), // nothing is cached in flat mode
            _ => Err(CmdStatus::BadCmd),
        };
        let (result, change) = match outcome {
            Ok((qpn, change)) => (
                CmdResult {
                    status: CmdStatus::Ok,
                    qpn,
                },
                change,
            ),
            Err(CmdStatus::Full) => (
                CmdResult {
                    status: CmdStatus::Full,
                    qpn: 0,
                },
                None,
            ),
            Err(status) => (CmdResult { status, qpn }, None),
        };
        let c = &mut self.counters;
        match (result.status, cmd.opcode()) {
            (CmdStatus::Ok, Command::ALLOC | Command::ALLOC_AT) => {
                c.alloc_ok = c.alloc_ok.wrapping_add(1);
                c.in_use += 1;
            }
            (CmdStatus::Ok, Command::FREE) => {
                c.free_ok = c.free_ok.wrapping_add(1);
                c.in_use -= 1;
            }
            (CmdStatus::Ok, _) => {}
            (CmdStatus::Full, _) => c.alloc_full = c.alloc_full.wrapping_add(1),
            (CmdStatus::OutOfRange | CmdStatus::BadState | CmdStatus::BadCmd, _) => {
                c.cmd_error = c.cmd_error.wrapping_add(1)
            }
            // SPEC §9: a command whose memory access failed changes nothing and counts in
            // no counter.
            (CmdStatus::MemError, _) => {}
        }
        self.last_result = result;
        self.mem_error_outcome = mem_error_outcome;
        (result, change)
    }

    /// State in memory, STATE_BASE written: a new table, as after a reset: every block never
    /// written (all FREE with generation 0), nothing of the old table trusted.
    fn new_table(&mut self) {
        self.entries.fill(0);
        self.written.fill(0);
        self.live.fill(0);
    }

    /// Whether the last command may also have answered MEM_ERROR, the design's choice (SPEC
    /// §9: a block's state words come from the cache or from a read, and only a read fails):
    /// ALLOC_AT, PUBLISH or FREE whose check fails on a block written since reset that an
    /// error range covers, or a cyclic ALLOC that may look into such a block before the block
    /// it takes from. The outcome [`Model::command_at`] returned is the other one.
    pub fn mem_error_allowed(&self) -> bool {
        self.mem_error_outcome.is_some()
    }

    /// The engine did not answer the last command MEM_ERROR: the model keeps the outcome
    /// [`Model::command_at`] returned and drops the other.
    pub fn forget_mem_error(&mut self) {
        self.mem_error_outcome = None;
    }

    /// A register read (as [`Model::read_register`]) as it is if the last command answered
    /// MEM_ERROR, when the design may have chosen that outcome ([`Model::mem_error_allowed`]).
    pub fn read_register_if_mem_error(&self, addr: u32) -> Option<Result<u32, Slverr>> {
        let m = self.mem_error_outcome.as_deref()?;
        Some(
            Self::command_register(addr, &m.counters, &m.pool, m.last_result)
                .map_or_else(|| self.read_register(addr), Ok),
        )
    }

    /// The engine answered the last command MEM_ERROR where [`Model::mem_error_allowed`]:
    /// the model takes that outcome (nothing changed, CMD_RESULT MEM_ERROR, no counter).
    /// Returns false, changing nothing, when that outcome is not allowed.
    pub fn take_mem_error(&mut self) -> bool {
        let Some(m) = self.mem_error_outcome.take() else {
            return false;
        };
        let tables = self.tables;
        let m = *m;
        self.entries = m.entries;
        self.pool = m.pool;
        self.cursor = m.cursor;
        self.counters = m.counters;
        self.written = m.written;
        self.live = m.live;
        self.last_result = m.last_result;
        if m.tables != tables {
            // STATE_BASE was written since (accepted only with nothing in use): a new table.
            self.new_table();
        }
        true
    }

    /// Writes an entry and reports the change.
    fn change(&mut self, index: u32, after: Entry) -> Option<Change> {
        let before = self.entry(index);
        self.set_entry(index, after);
        Some(Change {
            index,
            before,
            after,
        })
    }

    fn alloc(&mut self) -> Result<(u32, Option<Change>), CmdStatus> {
        let index = self.alloc_choice().1.ok_or(CmdStatus::Full)?;
        if self.write_fails(index) {
            return Err(CmdStatus::MemError);
        }
        let generation = (self.entry(index).generation + 1) & self.gen_mask;
        self.pool.take(index);
        self.cursor = index + 1;
        let change = self.change(
            index,
            Entry {
                state: State::Reserved,
                generation,
            },
        );
        Ok((self.make_qpn(index, generation), change))
    }

    /// The index of ALLOC_AT, PUBLISH or FREE of `qpn` once its check (and with the state in
    /// memory its write) passed; else the failing status.
    fn checked(&self, cmd: Command) -> Result<u32, CmdStatus> {
        let (index, check) = self
            .command_check(cmd)
            .expect("ALLOC_AT, PUBLISH or FREE")?;
        self.check_write(index, check)?;
        Ok(index)
    }

    fn alloc_at(&mut self, qpn: u32) -> Result<(u32, Option<Change>), CmdStatus> {
        let index = self.checked(Command::AllocAt(qpn))?;
        let generation = self.split_qpn(qpn).1;
        self.pool.take(index);
        let change = self.change(
            index,
            Entry {
                state: State::Reserved,
                generation,
            },
        );
        Ok((qpn, change))
    }

    fn publish(&mut self, qpn: u32) -> Result<(u32, Option<Change>), CmdStatus> {
        let index = self.checked(Command::Publish(qpn))?;
        let generation = self.split_qpn(qpn).1;
        let change = self.change(
            index,
            Entry {
                state: State::Valid,
                generation,
            },
        );
        Ok((qpn, change))
    }

    fn free(&mut self, qpn: u32) -> Result<(u32, Option<Change>), CmdStatus> {
        let index = self.checked(Command::Free(qpn))?;
        let generation = self.split_qpn(qpn).1;
        let change = self.change(
            index,
            Entry {
                state: State::Free,
                generation,
            },
        );
        // State in memory: an overflow releases the oldest by rewriting its word; in an
        // error range that fails and the index is lost (its word stays QUARANTINED).
        if self.state_in_memory() && self.pool.full() {
            let oldest = self.pool.oldest().expect("a full quarantine");
            if self.write_fails(oldest) {
                self.pool.lose_oldest();
                self.counters.quarantine_overflow =
                    self.counters.quarantine_overflow.wrapping_add(1);
            }
        }
        if self.pool.release(index, self.now) {
            self.counters.quarantine_overflow = self.counters.quarantine_overflow.wrapping_add(1);
        }
        Ok((qpn, change))
    }

    /// Counts one lookup response of `port` (per-port counters count at the response
    /// handshake, with the status actually returned).
    pub fn count_lookup(&mut self, port: usize, status: Status) {
        let c = &mut self.port_counters[port];
        c[0] = c[0].wrapping_add(1);
        let s = 1 + status as usize;
        c[s] = c[s].wrapping_add(1);
    }

    /// GEOMETRY: `index_bits[4:0]`, `leaf_bits[9:5]` (0 in flat), `mode[11:10]`,
    /// `ports[14:12]`, `reuse[15]`.
    pub fn geometry(&self) -> u32 {
        let (leaf_bits, mode) = match (self.cfg.mode, self.cfg.directory) {
            (Mode::Flat, _) => (0, regs::MODE_FLAT),
            (Mode::TwoLevel, Directory::OnChip) => (self.cfg.leaf_bits, regs::MODE_ON_CHIP),
            (Mode::TwoLevel, Directory::InMemory) => (self.cfg.leaf_bits, regs::MODE_IN_MEMORY),
        };
        regs::geometry(
            self.cfg.index_bits,
            leaf_bits,
            mode,
            self.cfg.ports.len() as u32,
            self.cfg.reuse == Reuse::Lowest,
            self.state_in_memory(),
        )
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

    /// Whether the value of a register read depends on timing the model does not follow (the
    /// cache counters of SPEC §9 with the state in memory): its read answers OKAY, its value
    /// is not predicted.
    pub fn timing_register(&self, addr: u32) -> bool {
        self.state_in_memory() && regs::MEM_COUNTERS.contains(&(addr & 0xFFC))
    }

    /// A register write (SPEC §6). `addr[1:0]` and bits above the 12-bit address are ignored.
    /// TABLE_BASE_LO/HI honour `strb` (bit b enables byte b) and keep addr_bits bits; refused
    /// while IN_USE != 0. A CMD write returns `Err(Slverr::Command)` (not an SLVERR: use
    /// [`Model::command`]). Read-only and unmapped registers are refused; nothing changes.
    pub fn write_register(&mut self, addr: u32, data: u32, strb: u8) -> Result<(), Slverr> {
        let addr = addr & 0xFFC;
        match addr {
            regs::TABLE_BASE_LO | regs::TABLE_BASE_HI => {
                if self.counters.in_use != 0 {
                    return Err(Slverr::InUse);
                }
                let shift = if addr == regs::TABLE_BASE_LO { 0 } else { 32 };
                let bytes = (0..4)
                    .filter(|b| strb >> b & 1 == 1)
                    .fold(0u64, |m, b| m | 0xFF << (8 * b));
                let mask = bytes << shift;
                let value = u64::from(data) << shift;
                self.table_base = (self.table_base & !mask | value & mask) & self.addr_mask;
                Ok(())
            }
            regs::STATE_BASE_LO | regs::STATE_BASE_HI if self.state_in_memory() => {
                // SPEC §9: accepted only while IN_USE = 0 and QUARANTINED = 0.
                if self.counters.in_use != 0 || self.pool.quarantined() != 0 {
                    return Err(Slverr::InUse);
                }
                let shift = if addr == regs::STATE_BASE_LO { 0 } else { 32 };
                let bytes = (0..4)
                    .filter(|b| strb >> b & 1 == 1)
                    .fold(0u64, |m, b| m | 0xFF << (8 * b));
                let mask = bytes << shift;
                let value = u64::from(data) << shift;
                self.state_base = (self.state_base & !mask | value & mask) & self.addr_mask;
                self.tables += 1;
                self.new_table();
                Ok(())
            }
            regs::CMD => Err(Slverr::Command),
            regs::DIR_INDEX | regs::DIR_ENTRY_LO | regs::DIR_ENTRY_HI if self.dir_on_chip() => {
                let merge = |old: u32| {
                    let mask = (0..4)
                        .filter(|b| strb >> b & 1 == 1)
                        .fold(0u32, |m, b| m | 0xFF << (8 * b));
                    old & !mask | data & mask
                };
                match addr {
                    regs::DIR_INDEX => {
                        let new = merge(self.dir_index);
                        if new >= self.dir_entries() {
                            return Err(Slverr::Unmapped);
                        }
                        self.dir_index = new;
                    }
                    regs::DIR_ENTRY_LO => self.stage_lo = merge(self.stage_lo),
                    _ => {
                        self.stage_hi = merge(self.stage_hi);
                        let entry = u64::from(self.stage_hi) << 32 | u64::from(self.stage_lo);
                        self.set_dir_entry(self.dir_index, entry);
                    }
                }
                Ok(())
            }
            _ => match self.read_register(addr) {
                Ok(_) => Err(Slverr::ReadOnly),
                Err(_) => Err(Slverr::Unmapped),
            },
        }
    }

    /// The registers a command changes (CMD_RESULT, the command counters, IN_USE,
    /// QUARANTINED) from these counters, pool and result; `None` for any other.
    fn command_register(addr: u32, c: &Counters, pool: &Pool, last: CmdResult) -> Option<u32> {
        Some(match addr & 0xFFC {
            regs::CMD_RESULT => last.to_register(),
            regs::ALLOC_OK => c.alloc_ok,
            regs::ALLOC_FULL => c.alloc_full,
            regs::FREE_OK => c.free_ok,
            regs::CMD_ERROR => c.cmd_error,
            regs::QUARANTINE_OVERFLOW => c.quarantine_overflow,
            regs::IN_USE => c.in_use,
            regs::QUARANTINED => pool.quarantined(),
            _ => return None,
        })
    }

    /// A register read (SPEC §6). `addr[1:0]` and bits above the 12-bit address are ignored.
    pub fn read_register(&self, addr: u32) -> Result<u32, Slverr> {
        let addr = addr & 0xFFC;
        if let Some(v) = Self::command_register(addr, &self.counters, &self.pool, self.last_result)
        {
            return Ok(v);
        }
        Ok(match addr {
            regs::ID => regs::ID_VALUE,
            regs::VERSION => regs::VERSION_VALUE,
            regs::MAX_QPS => self.max_qps,
            regs::ENTRY_BYTES => self.cfg.entry_bytes,
            regs::GEOMETRY => self.geometry(),
            regs::STATUS => regs::STATUS_INIT_DONE,
            regs::FIRST_INDEX => self.cfg.first_index,
            regs::TABLE_BASE_LO => self.table_base as u32,
            regs::TABLE_BASE_HI => (self.table_base >> 32) as u32,
            regs::CMD => return Err(Slverr::WriteOnly),
            // DIR_* exist only in two_level on_chip.
            regs::DIR_INDEX if self.dir_on_chip() => self.dir_index,
            regs::DIR_ENTRY_LO if self.dir_on_chip() => self.dir_entry(self.dir_index) as u32,
            regs::DIR_ENTRY_HI if self.dir_on_chip() => {
                (self.dir_entry(self.dir_index) >> 32) as u32
            }
            0x100..=0x17C => {
                let port = ((addr - regs::PORT_BASE) / regs::PORT_STRIDE) as usize;
                let offset = (addr - regs::PORT_BASE) % regs::PORT_STRIDE;
                match self.port_counters.get(port) {
                    Some(counters) if offset <= regs::PORT_MEM_ERROR => {
                        counters[(offset / 4) as usize]
                    }
                    _ => return Err(Slverr::Unmapped),
                }
            }
            // SPEC §9: mapped with the state in memory only.
            regs::STATE_BASE_LO if self.state_in_memory() => self.state_base as u32,
            regs::STATE_BASE_HI if self.state_in_memory() => (self.state_base >> 32) as u32,
            regs::STATE_BYTES if self.state_in_memory() => self.state_bytes() as u32,
            // The cache counters: 0 with the state on chip; in memory their value depends on
            // timing ([`Model::timing_register`]).
            a if regs::MEM_COUNTERS.contains(&a) => 0,
            _ => return Err(Slverr::Unmapped),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn cfg(assignments: &[&str]) -> Config {
        let mut c = Config::default();
        for a in assignments {
            c.set(a).unwrap();
        }
        c
    }

    fn model(assignments: &[&str]) -> Model {
        Model::new(&cfg(assignments))
    }

    fn ok(qpn: u32) -> CmdResult {
        CmdResult {
            status: CmdStatus::Ok,
            qpn,
        }
    }

    fn res(status: CmdStatus, qpn: u32) -> CmdResult {
        CmdResult { status, qpn }
    }

    fn run(m: &mut Model, cmd: Command) -> CmdResult {
        m.command(cmd).0
    }

    fn st(m: &Model, qpn: u32) -> Status {
        m.lookup(qpn).status
    }

    fn reg(m: &Model, addr: u32) -> u32 {
        m.read_register(addr).unwrap()
    }

    #[test]
    fn fresh_table_is_all_free() {
        // Defaults: index_bits 14, 10 generation bits, max_qps 16384.
        let m = model(&[]);
        assert_eq!(st(&m, 0x000000), Status::NotAllocated);
        assert_eq!(st(&m, 0x003FFF), Status::NotAllocated);
        assert_eq!(st(&m, 0xFFFFFF), Status::NotAllocated);
        assert_eq!(
            m.entry(5),
            Entry {
                state: State::Free,
                generation: 0
            }
        );
        assert_eq!(m.in_use(), 0);
        assert_eq!(m.table_base(), 0);
        assert_eq!(reg(&m, regs::CMD_RESULT), 0);
    }

    #[test]
    fn lookup_statuses_and_check_order() {
        // index_bits 4 (gen bits 20), max_qps 10, entry_bytes 64, first_index 2.
        let mut m = model(&["index_bits=4", "max_qps=10", "entry_bytes=64"]);
        // First ALLOC: index 2, generation 1 -> qpn 0x12.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
        // RESERVED: NOT_ALLOCATED with the right or a wrong generation.
        assert_eq!(st(&m, 0x12), Status::NotAllocated);
        assert_eq!(st(&m, 0x22), Status::NotAllocated);
        assert_eq!(run(&mut m, Command::Publish(0x12)), ok(0x12));
        assert_eq!(
            m.lookup(0x12),
            Lookup {
                status: Status::Ok,
                addr: 2 * 64
            }
        );
        // VALID with another generation: STALE (gen 0 and gen 2).
        assert_eq!(
            m.lookup(0x02),
            Lookup {
                status: Status::Stale,
                addr: 0
            }
        );
        assert_eq!(st(&m, 0x22), Status::Stale);
        // Index 10..15 are out of range whatever the generation bits.
        for qpn in [0x0A, 0x1A, 0xFFFFFA, 0x0F, 0xFFFFFF] {
            assert_eq!(
                m.lookup(qpn),
                Lookup {
                    status: Status::OutOfRange,
                    addr: 0
                }
            );
        }
        // A FREE index is NOT_ALLOCATED whatever the generation.
        assert_eq!(st(&m, 0x13), Status::NotAllocated);
        // Bits above 24 are ignored.
        assert_eq!(st(&m, 0x0100_0012), Status::Ok);
        // FREE: NOT_ALLOCATED again, generation kept.
        assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
        assert_eq!(st(&m, 0x12), Status::NotAllocated);
        assert_eq!(
            m.entry(2),
            Entry {
                state: State::Free,
                generation: 1
            }
        );
    }

    /// State in memory, index_bits 8, blocks of 8 indexes, first_index 2, released at once.
    fn state_in_memory(reuse: &str) -> Model {
        let reuse = format!("reuse={reuse}");
        let mut m = model(&[
            "state=in_memory",
            "index_bits=8",
            "block_bits=3",
            "first_index=2",
            "quarantine_cycles=0",
            &reuse,
        ]);
        m.write_register(regs::STATE_BASE_LO, 0x10000, 0xF).unwrap();
        m
    }

    fn mem_error(qpn: u32) -> CmdResult {
        CmdResult {
            status: CmdStatus::MemError,
            qpn,
        }
    }

    #[test]
    fn a_failing_check_on_a_block_that_fails_to_read_may_answer_mem_error_too() {
        let mut m = state_in_memory("lowest");
        let q = run(&mut m, Command::Alloc).qpn; // index 2, generation 1
        assert_eq!(q, 1 << 8 | 2);
        m.mem_add_error(m.state_block_range(2));
        let errors = reg(&m, regs::CMD_ERROR);
        // The check fails (wrong generation): BAD_STATE from the cache, or MEM_ERROR from a read.
        let wrong = 2 << 8 | 2;
        let (r, change) = m.command(Command::Publish(wrong));
        assert_eq!((r.status, change), (CmdStatus::BadState, None));
        assert!(m.mem_error_allowed());
        assert_eq!(reg(&m, regs::CMD_ERROR), errors + 1);
        let other = m.read_register_if_mem_error(regs::CMD_RESULT);
        assert_eq!(other, Some(Ok(mem_error(wrong).to_register())));
        assert_eq!(
            m.read_register_if_mem_error(regs::CMD_ERROR),
            Some(Ok(errors))
        );
        // The engine answered MEM_ERROR: nothing changed, no counter.
        assert!(m.take_mem_error());
        assert_eq!(m.last_result(), mem_error(wrong));
        assert_eq!(reg(&m, regs::CMD_ERROR), errors);
        assert!(!m.mem_error_allowed() && !m.take_mem_error());
        // The check passes: the write fails whatever was read, MEM_ERROR is the one outcome.
        assert_eq!(run(&mut m, Command::Publish(q)), mem_error(q));
        assert!(!m.mem_error_allowed());
        assert_eq!(m.entry(2).state, State::Reserved);
        // A block never written is not read: BAD_STATE is the one outcome there.
        m.mem_add_error(m.state_block_range(9));
        assert_eq!(
            run(&mut m, Command::Publish(1 << 8 | 9)).status,
            CmdStatus::BadState
        );
        assert!(!m.mem_error_allowed());
        // ... and a command that writes it fails.
        assert_eq!(
            run(&mut m, Command::AllocAt(1 << 8 | 9)),
            mem_error(1 << 8 | 9)
        );
        // No error range: one outcome, the model's kept.
        m.mem_clear_errors();
        let (r, _) = m.command(Command::Publish(wrong));
        assert_eq!(r.status, CmdStatus::BadState);
        assert!(!m.mem_error_allowed());
        assert_eq!(run(&mut m, Command::Publish(q)), ok(q));
    }

    #[test]
    fn cyclic_alloc_past_a_block_that_fails_to_read_may_answer_mem_error() {
        let mut m = state_in_memory("cyclic");
        // Block 0 (indexes 2..7): ALLOC 2, 3, 4 (the cursor at 5), ALLOC_AT 5, 6, 7, FREE 2.
        for i in 2..=4 {
            assert_eq!(run(&mut m, Command::Alloc).qpn & 0xFF, i);
        }
        for i in 5..=7 {
            run(&mut m, Command::AllocAt(1 << 8 | i));
        }
        assert_eq!(run(&mut m, Command::Free(1 << 8 | 2)).status, CmdStatus::Ok);
        // The free map finds block 0 from the cursor's block, which holds nothing to take at
        // or after the cursor: the next ALLOC may read it before it takes index 8 of block 1.
        m.mem_add_error(m.state_block_range(0));
        let in_use = reg(&m, regs::IN_USE);
        let snapshot = m.clone();
        let (r, change) = m.command(Command::Alloc);
        assert_eq!(r, ok(1 << 8 | 8));
        assert_eq!(change.map(|c| c.index), Some(8));
        assert!(m.mem_error_allowed());
        assert_eq!(reg(&m, regs::IN_USE), in_use + 1);
        assert!(m.take_mem_error());
        assert_eq!(m.last_result(), mem_error(0));
        assert_eq!(reg(&m, regs::IN_USE), in_use);
        assert_eq!(m.entry(8), snapshot.entry(8));
        // Taken again, the same ALLOC; kept, the next one goes on from 9.
        assert_eq!(m.command(Command::Alloc).0, ok(1 << 8 | 8));
        m.forget_mem_error();
        assert!(!m.take_mem_error());
        assert_eq!(run(&mut m, Command::Alloc), ok(1 << 8 | 9));
        // Lowest takes index 2 of block 0 itself: its write fails, one outcome.
        let mut m = state_in_memory("lowest");
        for i in 2..=7 {
            run(&mut m, Command::AllocAt(1 << 8 | i));
        }
        assert_eq!(run(&mut m, Command::Free(1 << 8 | 2)).status, CmdStatus::Ok);
        m.mem_add_error(m.state_block_range(0));
        assert_eq!(run(&mut m, Command::Alloc), mem_error(0));
        assert!(!m.mem_error_allowed());
    }

    #[test]
    fn state_base_written_while_an_outcome_is_open_starts_a_new_table_either_way() {
        let mut m = state_in_memory("lowest");
        let q = run(&mut m, Command::Alloc).qpn;
        run(&mut m, Command::Publish(q));
        assert_eq!(run(&mut m, Command::Free(q)), ok(q));
        // Nothing in use; FREE again fails its check on a block that fails to read.
        m.mem_add_error(m.state_block_range(2));
        assert_eq!(run(&mut m, Command::Free(q)).status, CmdStatus::BadState);
        assert!(m.mem_error_allowed());
        // STATE_BASE is written before the outcome is seen: a new table, whatever it was.
        m.write_register(regs::STATE_BASE_LO, 0x20000, 0xF).unwrap();
        assert!(m.take_mem_error());
        assert_eq!(m.last_result(), mem_error(q));
        assert_eq!(
            m.entry(2),
            Entry {
                state: State::Free,
                generation: 0
            }
        );
        assert!(!m.block_written(2) && !m.block_live(2));
    }

    #[test]
    fn in_memory_directory() {
        // index_bits 6, leaf_bits 2: entry i at TABLE_BASE & !7 + 8 i covers indexes 4i..4i+3.
        let mut m = model(&[
            "mode=two_level",
            "directory=in_memory",
            "index_bits=6",
            "leaf_bits=2",
            "entry_bytes=96",
            "addr_bits=48",
        ]);
        m.write_register(regs::TABLE_BASE_LO, 0x1007, 0xF).unwrap();
        assert_eq!(m.mem_dir_address(3), 0x1000 + 24);
        m.mem_write_u64(0x1008, 0xFFFF_FFFF_FFC0 | 0x3E | 1);
        m.mem_write_u64(0x1010, 0x5000);
        m.mem_write_u64(0x1018, 0x6000 | 1);
        m.mem_add_error(0x1018..0x1020);
        for q in [5, 9, 13] {
            run(&mut m, Command::AllocAt(1 << 6 | q));
            run(&mut m, Command::Publish(1 << 6 | q));
        }
        // Page 1 present near the top of 2^48: wraps; page 2 absent; page 3 AXI error.
        assert_eq!(m.address(5), Ok(0x20));
        assert_eq!(m.lookup(1 << 6 | 5).addr, 0x20);
        assert_eq!(st(&m, 1 << 6 | 9), Status::PageAbsent);
        assert_eq!(st(&m, 1 << 6 | 13), Status::MemError);
        // The on-chip checks come first: a stale QPN of page 3 is STALE, not MEM_ERROR.
        assert_eq!(st(&m, 2 << 6 | 13), Status::Stale);
        // DIR_* do not exist in this mode.
        assert!(m.read_register(regs::DIR_INDEX).is_err());
        assert!(m.write_register(regs::DIR_ENTRY_HI, 1, 0xF).is_err());
        assert_eq!(m.geometry() >> 10 & 3, 2);
    }

    #[test]
    fn address_with_base_and_wrap() {
        let mut m = model(&["addr_bits=32"]);
        m.write_register(regs::TABLE_BASE_LO, 0xFFFF_FF00, 0xF)
            .unwrap();
        assert_eq!(m.table_base(), 0xFFFF_FF00);
        assert_eq!(run(&mut m, Command::AllocAt(0x4002)), ok(0x4002));
        run(&mut m, Command::Publish(0x4002));
        // 0xFFFFFF00 + 2 * 256 = 0x1_0000_0100 -> mod 2^32 = 0x100.
        assert_eq!(
            m.lookup(0x4002),
            Lookup {
                status: Status::Ok,
                addr: 0x100
            }
        );

        let mut m = model(&["entry_bytes=4096", "index_bits=24"]);
        m.write_register(regs::TABLE_BASE_LO, 0xFFFF_F000, 0xF)
            .unwrap();
        m.write_register(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF)
            .unwrap();
        run(&mut m, Command::AllocAt(0xFFFFFF));
        run(&mut m, Command::Publish(0xFFFFFF));
        // 2^64 - 4096 + (2^24 - 1) * 4096 = 2^36 - 8192 (mod 2^64).
        assert_eq!(m.lookup(0xFFFFFF).addr, (1u64 << 36) - 8192);
        // 2^64 - 4096 + 3 * 4096 = 8192 (mod 2^64).
        assert_eq!(m.address(3), Ok(8192));
    }

    #[test]
    fn cyclic_allocation() {
        // index_bits 4: qpn = gen << 4 | index. max_qps 6, first_index 2.
        let mut m = model(&["index_bits=4", "max_qps=6"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x14));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x15));
        assert_eq!(run(&mut m, Command::Free(0x13)), ok(0x13));
        // After 5: nothing up to max_qps - 1, wrap to first_index: 2 taken, 3 free (gen 2).
        assert_eq!(run(&mut m, Command::Alloc), ok(0x23));
        assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
        assert_eq!(run(&mut m, Command::Free(0x14)), ok(0x14));
        // After 3: 4 is free, although 2 is lower.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x24));
        // After 4: 5 taken, wrap, 2 free.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x22));
        // Full now: indexes 0 and 1 are never handed out by ALLOC.
        assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
        assert_eq!(m.entry(0).state, State::Free);
    }

    #[test]
    fn cyclic_starts_at_first_index_and_ignores_alloc_at() {
        let mut m = model(&["index_bits=4", "max_qps=6"]);
        // ALLOC_AT does not move the cyclic pointer: the first ALLOC still starts at 2.
        assert_eq!(run(&mut m, Command::AllocAt(0x34)), ok(0x34));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
        // 4 is taken by ALLOC_AT: skipped.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x15));
        assert_eq!(run(&mut m, Command::Free(0x13)), ok(0x13));
        // FULL does not move the pointer either (there is nothing to move to).
        assert_eq!(run(&mut m, Command::Alloc), ok(0x23));
        assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
        assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x22));
    }

    #[test]
    fn first_index_zero_and_wrap_to_it() {
        let mut m = model(&["index_bits=4", "max_qps=3", "first_index=0"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(0x10));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x11));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
        assert_eq!(run(&mut m, Command::Free(0x10)), ok(0x10));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x20));
    }

    #[test]
    fn lowest_allocation() {
        let mut m = model(&["index_bits=4", "max_qps=6", "reuse=lowest"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x14));
        assert_eq!(run(&mut m, Command::Free(0x13)), ok(0x13));
        // The lowest FREE index >= first_index: 3 again, generation 2.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x23));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x15));
        assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
        // ALLOC_AT below first_index works; ALLOC never goes there.
        assert_eq!(run(&mut m, Command::AllocAt(0x01)), ok(0x01));
        assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x22));
    }

    #[test]
    fn generations_wrap() {
        // index_bits 22: 2 generation bits; one index.
        let mut m = model(&["index_bits=22", "max_qps=1", "first_index=0"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(0x40_0000));
        assert_eq!(run(&mut m, Command::Free(0x40_0000)), ok(0x40_0000));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x80_0000));
        assert_eq!(run(&mut m, Command::Free(0x80_0000)), ok(0x80_0000));
        assert_eq!(run(&mut m, Command::Alloc), ok(0xC0_0000));
        assert_eq!(run(&mut m, Command::Free(0xC0_0000)), ok(0xC0_0000));
        // 3 + 1 = 4 = 0 mod 4.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x00_0000));
        assert_eq!(run(&mut m, Command::Publish(0x00_0000)), ok(0x00_0000));
        assert_eq!(st(&m, 0x00_0000), Status::Ok);
        assert_eq!(st(&m, 0xC0_0000), Status::Stale);
        assert_eq!(run(&mut m, Command::Free(0x00_0000)), ok(0x00_0000));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x40_0000));
    }

    #[test]
    fn no_generation_bits() {
        let mut m = model(&["index_bits=24"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(2));
        assert_eq!(run(&mut m, Command::Free(2)), ok(2));
        assert_eq!(m.entry(2).generation, 0);
        assert_eq!(run(&mut m, Command::Alloc), ok(3));
        assert_eq!(run(&mut m, Command::Publish(3)), ok(3));
        assert_eq!(m.lookup(3).addr, 3 * 256);
        assert_eq!(run(&mut m, Command::AllocAt(0xFFFFFF)), ok(0xFFFFFF));
        // 1000 cyclic ALLOCs: 4, 5, ...
        for i in 4..1004 {
            assert_eq!(run(&mut m, Command::Alloc), ok(i));
        }
        let mut m = model(&["index_bits=24", "reuse=lowest"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(2));
        assert_eq!(run(&mut m, Command::Free(2)), ok(2));
        assert_eq!(run(&mut m, Command::Alloc), ok(2));
    }

    #[test]
    fn cyclic_wraps_on_a_big_table() {
        // 2^24 indexes: the wrap from max_qps - 1 searches across the whole bitmap.
        let mut m = model(&["index_bits=24", "first_index=5"]);
        assert_eq!(run(&mut m, Command::AllocAt(0xFFFFFE)), ok(0xFFFFFE));
        assert_eq!(run(&mut m, Command::AllocAt(0xFFFFFF)), ok(0xFFFFFF));
        assert_eq!(run(&mut m, Command::Free(0xFFFFFE)), ok(0xFFFFFE));
        assert_eq!(run(&mut m, Command::Alloc), ok(5));
        assert_eq!(run(&mut m, Command::Alloc), ok(6));
        // A full table, two holes, the wrap from max_qps - 1 back to first_index.
        let mut m = model(&["index_bits=12", "first_index=100"]);
        for i in 100..4096 {
            assert_eq!(run(&mut m, Command::Alloc), ok(1 << 12 | i));
        }
        assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
        assert_eq!(
            run(&mut m, Command::Free(1 << 12 | 3000)),
            ok(1 << 12 | 3000)
        );
        assert_eq!(run(&mut m, Command::Free(1 << 12 | 200)), ok(1 << 12 | 200));
        // After 4095: wrap to 100 and up: 200 first.
        assert_eq!(run(&mut m, Command::Alloc), ok(2 << 12 | 200));
        assert_eq!(run(&mut m, Command::Alloc), ok(2 << 12 | 3000));
    }

    #[test]
    fn full_and_counters() {
        let mut m = model(&["index_bits=4", "max_qps=4"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
        assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
        let (r, change) = m.command(Command::Alloc);
        assert_eq!((r, change), (res(CmdStatus::Full, 0), None));
        assert_eq!(reg(&m, regs::CMD_RESULT), 0x1000_0000);
        assert_eq!(run(&mut m, Command::AllocAt(0x00)), ok(0x00));
        assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
        assert_eq!(reg(&m, regs::ALLOC_OK), 3);
        assert_eq!(reg(&m, regs::ALLOC_FULL), 2);
        assert_eq!(reg(&m, regs::CMD_ERROR), 0);
        assert_eq!(reg(&m, regs::IN_USE), 3);
        assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
        assert_eq!(
            run(&mut m, Command::Free(0x12)),
            res(CmdStatus::BadState, 0x12)
        );
        assert_eq!(reg(&m, regs::FREE_OK), 1);
        assert_eq!(reg(&m, regs::IN_USE), 2);
        assert_eq!(reg(&m, regs::CMD_ERROR), 1);
        assert_eq!(reg(&m, regs::QUARANTINE_OVERFLOW), 0);
        assert_eq!(reg(&m, regs::QUARANTINED), 0);
        assert_eq!(m.in_use(), 2);
    }

    #[test]
    fn command_errors_change_nothing() {
        // index_bits 4, max_qps 10.
        let mut m = model(&["index_bits=4", "max_qps=10"]);
        assert_eq!(run(&mut m, Command::Alloc), ok(0x12)); // RESERVED gen 1
        assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
        assert_eq!(run(&mut m, Command::Publish(0x13)), ok(0x13)); // VALID gen 1
        let entries: Vec<Entry> = (0..10).map(|i| m.entry(i)).collect();
        let cases = [
            // Range first, whatever the generation bits or the opcode.
            (Command::AllocAt(0x1A), res(CmdStatus::OutOfRange, 0x1A)),
            (Command::Publish(0x0C), res(CmdStatus::OutOfRange, 0x0C)),
            (
                Command::Free(0xFFFFFF),
                res(CmdStatus::OutOfRange, 0xFFFFFF),
            ),
            // ALLOC_AT of a RESERVED or VALID index, any generation.
            (Command::AllocAt(0x12), res(CmdStatus::BadState, 0x12)),
            (Command::AllocAt(0x53), res(CmdStatus::BadState, 0x53)),
            // PUBLISH: FREE, VALID, or generation differs.
            (Command::Publish(0x14), res(CmdStatus::BadState, 0x14)),
            (Command::Publish(0x13), res(CmdStatus::BadState, 0x13)),
            (Command::Publish(0x22), res(CmdStatus::BadState, 0x22)),
            // FREE: already FREE, or generation differs (RESERVED and VALID).
            (Command::Free(0x14), res(CmdStatus::BadState, 0x14)),
            (Command::Free(0x02), res(CmdStatus::BadState, 0x02)),
            (Command::Free(0x23), res(CmdStatus::BadState, 0x23)),
            // Opcodes 0 and 6..15: BAD_CMD with the written qpn.
            (Command::Raw(0, 0x123), res(CmdStatus::BadCmd, 0x123)),
            (Command::Raw(6, 0x12), res(CmdStatus::BadCmd, 0x12)),
            (Command::Raw(15, 0xFFFFFF), res(CmdStatus::BadCmd, 0xFFFFFF)),
        ];
        for (i, (cmd, expected)) in cases.iter().enumerate() {
            assert_eq!(m.command(*cmd), (*expected, None), "{cmd:?}");
            assert_eq!(reg(&m, regs::CMD_ERROR), i as u32 + 1);
            assert_eq!(reg(&m, regs::CMD_RESULT), expected.to_register());
        }
        let after: Vec<Entry> = (0..10).map(|i| m.entry(i)).collect();
        assert_eq!(entries, after);
        assert_eq!(reg(&m, regs::ALLOC_OK), 2);
        assert_eq!(reg(&m, regs::IN_USE), 2);
        // The cyclic pointer did not move: the next ALLOC is index 4.
        assert_eq!(run(&mut m, Command::Alloc), ok(0x14));
    }

    #[test]
    fn successful_commands_report_their_change() {
        let mut m = model(&["index_bits=4", "max_qps=10"]);
        let e = |state, generation| Entry { state, generation };
        assert_eq!(
            m.command(Command::Alloc),
            (
                ok(0x12),
                Some(Change {
                    index: 2,
                    before: e(State::Free, 0),
                    after: e(State::Reserved, 1)
                })
            )
        );
        assert_eq!(
            m.command(Command::Publish(0x12)),
            (
                ok(0x12),
                Some(Change {
                    index: 2,
                    before: e(State::Reserved, 1),
                    after: e(State::Valid, 1)
                })
            )
        );
        assert_eq!(
            m.command(Command::Free(0x12)),
            (
                ok(0x12),
                Some(Change {
                    index: 2,
                    before: e(State::Valid, 1),
                    after: e(State::Free, 1)
                })
            )
        );
        // ALLOC_AT takes the generation from the qpn (here 7) and works below first_index.
        assert_eq!(
            m.command(Command::AllocAt(0x71)),
            (
                ok(0x71),
                Some(Change {
                    index: 1,
                    before: e(State::Free, 0),
                    after: e(State::Reserved, 7)
                })
            )
        );
        // FREE of a RESERVED qpn is allowed.
        assert_eq!(
            m.command(Command::Free(0x71)),
            (
                ok(0x71),
                Some(Change {
                    index: 1,
                    before: e(State::Reserved, 7),
                    after: e(State::Free, 7)
                })
            )
        );
        // ALLOC advances the generation left by ALLOC_AT: 7 + 1.
        assert_eq!(run(&mut m, Command::AllocAt(0x01)), ok(0x01));
        assert_eq!(run(&mut m, Command::Free(0x01)), ok(0x01));
        let mut m2 = model(&["index_bits=4", "max_qps=10", "first_index=1"]);
        assert_eq!(run(&mut m2, Command::AllocAt(0x71)), ok(0x71));
        assert_eq!(run(&mut m2, Command::Free(0x71)), ok(0x71));
        assert_eq!(run(&mut m2, Command::Alloc), ok(0x81));
        // DIR_FLUSH: OK, nothing changes; the written qpn comes back.
        assert_eq!(m.command(Command::DirFlush), (ok(0), None));
        assert_eq!(m.command(Command::Raw(5, 0x42)), (ok(0x42), None));
        // ALLOC ignores its qpn field.
        assert_eq!(run(&mut m, Command::Raw(1, 0x777)), ok(0x13));
    }

    #[test]
    fn command_and_result_encoding() {
        assert_eq!(Command::Alloc.encode(), 0x1000_0000);
        assert_eq!(Command::AllocAt(0x123456).encode(), 0x2012_3456);
        assert_eq!(Command::Publish(0xABCDEF).encode(), 0x30AB_CDEF);
        assert_eq!(Command::Free(0x1_000001).encode(), 0x4000_0001);
        assert_eq!(Command::DirFlush.encode(), 0x5000_0000);
        assert_eq!(Command::Raw(15, 7).encode(), 0xF000_0007);
        assert_eq!(Command::decode(0x1000_0000), Command::Alloc);
        assert_eq!(Command::decode(0x1000_0001), Command::Raw(1, 1));
        assert_eq!(Command::decode(0x2F12_3456), Command::AllocAt(0x123456));
        assert_eq!(Command::decode(0x3000_0005), Command::Publish(5));
        assert_eq!(Command::decode(0x4000_0005), Command::Free(5));
        assert_eq!(Command::decode(0x5000_0000), Command::DirFlush);
        assert_eq!(Command::decode(0x5000_0042), Command::Raw(5, 0x42));
        assert_eq!(Command::decode(0x0000_0042), Command::Raw(0, 0x42));
        assert_eq!(Command::decode(0x6000_0000), Command::Raw(6, 0));
        let r = res(CmdStatus::BadState, 0x4002);
        assert_eq!(r.to_register(), 0x3000_4002);
        assert_eq!(CmdResult::from_register(0x3800_4002), Some(r));
        assert_eq!(
            CmdResult::from_register(0x5000_0000),
            Some(res(CmdStatus::MemError, 0))
        );
        assert_eq!(CmdResult::from_register(0x6000_0000), None);
        assert_eq!(Status::from_u64(3), Some(Status::Stale));
        assert_eq!(Status::from_u64(6), None);
        assert_eq!(Status::MemError.as_u64(), 5);
        assert_eq!(CmdStatus::from_u32(4), Some(CmdStatus::BadCmd));
        assert_eq!(CmdStatus::from_u32(5), Some(CmdStatus::MemError));
        assert_eq!(CmdStatus::from_u32(6), None);
    }

    #[test]
    fn read_only_registers() {
        let m = model(&[]);
        assert_eq!(reg(&m, regs::ID), 0x5150_5431);
        assert_eq!(reg(&m, regs::VERSION), 0x0002_0000);
        assert_eq!(reg(&m, regs::MAX_QPS), 16384);
        assert_eq!(reg(&m, regs::ENTRY_BYTES), 256);
        // 14 | 2 ports << 12.
        assert_eq!(reg(&m, regs::GEOMETRY), 0x200E);
        assert_eq!(reg(&m, regs::STATUS), 1);
        assert_eq!(reg(&m, regs::FIRST_INDEX), 2);
        // addr[1:0] ignored, and bits above the 12-bit address.
        assert_eq!(reg(&m, 0x003), 0x5150_5431);
        assert_eq!(reg(&m, 0x1000 | 0x008), 16384);
        let m = model(&[
            "index_bits=24",
            "max_qps=1000",
            "ports=a,b,c,d",
            "reuse=lowest",
            "entry_bytes=32",
            "first_index=0",
        ]);
        // 24 | 4 << 12 | 1 << 15.
        assert_eq!(reg(&m, regs::GEOMETRY), 0xC018);
        assert_eq!(reg(&m, regs::MAX_QPS), 1000);
        assert_eq!(reg(&m, regs::ENTRY_BYTES), 32);
        assert_eq!(reg(&m, regs::FIRST_INDEX), 0);
        let m = model(&["ports=rx"]);
        assert_eq!(reg(&m, regs::GEOMETRY), 0x100E);
    }

    #[test]
    fn table_base_strobes_width_and_in_use() {
        let mut m = model(&["addr_bits=40"]);
        m.write_register(regs::TABLE_BASE_LO, 0x1234_5678, 0b0101)
            .unwrap();
        assert_eq!(reg(&m, regs::TABLE_BASE_LO), 0x0034_0078);
        m.write_register(regs::TABLE_BASE_LO + 2, 0xAABB_CCDD, 0b1010)
            .unwrap();
        assert_eq!(reg(&m, regs::TABLE_BASE_LO), 0xAA34_CC78);
        // 40 bits: only HI[7:0] is held.
        m.write_register(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF)
            .unwrap();
        assert_eq!(reg(&m, regs::TABLE_BASE_HI), 0xFF);
        assert_eq!(m.table_base(), 0xFF_AA34_CC78);
        m.write_register(regs::TABLE_BASE_HI, 0x0000_0012, 0b0000)
            .unwrap();
        assert_eq!(m.table_base(), 0xFF_AA34_CC78);
        // Bits [2:0] are kept in flat mode.
        m.write_register(regs::TABLE_BASE_LO, 0x0000_0007, 0b0001)
            .unwrap();
        assert_eq!(reg(&m, regs::TABLE_BASE_LO), 0xAA34_CC07);
        // While IN_USE != 0: SLVERR, unchanged.
        run(&mut m, Command::Alloc);
        assert_eq!(
            m.write_register(regs::TABLE_BASE_LO, 0, 0xF),
            Err(Slverr::InUse)
        );
        assert_eq!(
            m.write_register(regs::TABLE_BASE_HI, 0, 0xF),
            Err(Slverr::InUse)
        );
        assert_eq!(m.table_base(), 0xFF_AA34_CC07);
        run(&mut m, Command::Free(0x4002));
        m.write_register(regs::TABLE_BASE_HI, 0, 0xF).unwrap();
        assert_eq!(m.table_base(), 0xAA34_CC07);

        let mut m = model(&["addr_bits=32"]);
        m.write_register(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF)
            .unwrap();
        assert_eq!(reg(&m, regs::TABLE_BASE_HI), 0);
        m.write_register(regs::TABLE_BASE_LO, 0xFFFF_FFFF, 0xF)
            .unwrap();
        assert_eq!(m.table_base(), 0xFFFF_FFFF);
    }

    #[test]
    fn slverr_cases() {
        let mut m = model(&[]);
        for addr in [
            0x01C, 0x028, 0x02C, 0x038, 0x03C, 0x040, 0x044, 0x048, 0x04C, 0x0FC, 0x11C, 0x13C,
            0x140, 0x160, 0x17C, 0x19C, 0x1B8, 0x050, 0x054, 0x058, 0xFFC,
        ] {
            assert_eq!(
                m.read_register(addr),
                Err(Slverr::Unmapped),
                "read {addr:#x}"
            );
            assert_eq!(
                m.write_register(addr, 1, 0xF),
                Err(Slverr::Unmapped),
                "write {addr:#x}"
            );
        }
        assert_eq!(m.read_register(regs::CMD), Err(Slverr::WriteOnly));
        assert_eq!(m.read_register(0x033), Err(Slverr::WriteOnly));
        assert_eq!(
            m.write_register(regs::CMD, 0x1000_0000, 0xF),
            Err(Slverr::Command)
        );
        assert!(!Slverr::Command.is_slverr() && Slverr::ReadOnly.is_slverr());
        for addr in [
            0x000, 0x004, 0x008, 0x00C, 0x010, 0x014, 0x018, 0x034, 0x100, 0x118, 0x120, 0x138,
            0x180, 0x184, 0x188, 0x18C, 0x190, 0x194, 0x198,
        ] {
            assert_eq!(
                m.write_register(addr, 0, 0xF),
                Err(Slverr::ReadOnly),
                "{addr:#x}"
            );
        }
        // Nothing changed: no command ran, counters are 0.
        assert_eq!(reg(&m, regs::CMD_RESULT), 0);
        // Ports that exist: 4 of them map 0x100..0x178.
        let m = model(&["ports=a,b,c,d"]);
        assert_eq!(m.read_register(0x160), Ok(0));
        assert_eq!(m.read_register(0x178), Ok(0));
        assert_eq!(m.read_register(0x17C), Err(Slverr::Unmapped));
    }

    #[test]
    fn per_port_counters() {
        let mut m = model(&["ports=tx,rx,aux"]);
        m.count_lookup(0, Status::Ok);
        m.count_lookup(0, Status::Ok);
        m.count_lookup(0, Status::Stale);
        m.count_lookup(2, Status::MemError);
        m.count_lookup(2, Status::OutOfRange);
        m.count_lookup(2, Status::NotAllocated);
        m.count_lookup(2, Status::PageAbsent);
        let r = |a| reg(&m, a);
        assert_eq!(
            [0x100, 0x104, 0x108, 0x10C, 0x110, 0x114, 0x118].map(r),
            [3, 2, 0, 0, 1, 0, 0]
        );
        assert_eq!(
            [0x120, 0x124, 0x128, 0x12C, 0x130, 0x134, 0x138].map(r),
            [0; 7]
        );
        assert_eq!(
            [0x140, 0x144, 0x148, 0x14C, 0x150, 0x154, 0x158].map(r),
            [4, 0, 1, 1, 0, 1, 1]
        );
        assert_eq!(regs::port_register(2, regs::PORT_STALE), 0x150);
    }

    #[test]
    #[should_panic(expected = "index_bits = 30 is out of range")]
    fn invalid_config_panics() {
        model(&["index_bits=30"]);
    }

    #[test]
    fn index_set_against_btreeset() {
        use rand::{Rng, SeedableRng};
        let seed = 0x5eed_1dea;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for (len, lo) in [
            (1, 0),
            (64, 3),
            (65, 64),
            (200, 7),
            (4096, 2),
            (300_000, 100),
        ] {
            let mut set = IndexSet::with_range(len, lo);
            let mut reference: BTreeSet<u32> = (lo..len).collect();
            for _ in 0..5000 {
                let i = rng.gen_range(0..len);
                match rng.gen_range(0..3) {
                    0 => {
                        set.insert(i);
                        reference.insert(i);
                    }
                    1 => {
                        set.remove(i);
                        reference.remove(&i);
                    }
                    _ => {}
                }
                let probe = rng.gen_range(0..=len);
                assert_eq!(
                    set.first_at_or_after(probe),
                    reference.range(probe..).next().copied(),
                    "seed {seed:#x} len {len} probe {probe}"
                );
                assert_eq!(set.contains(i), reference.contains(&i));
            }
        }
    }
}
