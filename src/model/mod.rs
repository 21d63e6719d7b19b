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
//!
//! Files: this one (the types, the model's state, lookups and commands), `pool.rs` (the index
//! pool and the quarantine), `registers.rs` (the register map), `memory.rs` (the directory in
//! memory and the state table of SPEC §9). The model knows the datasheet, not the engine's
//! buffers: where SPEC leaves an outcome to the design it gives each one.

mod memory;
mod pool;
mod registers;

pub use pool::IndexSet;
use pool::Pool;

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
}

#[cfg(test)]
mod tests;
