//! The vocabulary of the datasheet (SPEC §4, §6), defined once: lookup statuses, command
//! opcodes and results, register addresses and field layouts, the directory-entry layout.
//!
//! The hardware ([`crate::hw`]), the reference model ([`crate::model`], which re-exports what
//! it uses), the scoreboard, the waveform labels and the tests all name these; none of them
//! writes a status, an opcode or a register address as a bare number.
//!
//! rust-hdl cannot name a Rust constant inside `#[hdl_gen]` code: the hardware carries these
//! values as `Constant`s built from here (see [`crate::hw::codes`]), so the emitted Verilog
//! names them as `localparam`s.

use std::fmt;

/// Bits of a QPN.
pub const QPN_BITS: u32 = 24;
/// The 24-bit QPN field.
pub const QPN_MASK: u32 = (1 << QPN_BITS) - 1;

/// Lookup status (SPEC §4), the value of `m_<p>_rsp_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ok = 0,
    OutOfRange = 1,
    NotAllocated = 2,
    Stale = 3,
    PageAbsent = 4,
    MemError = 5,
}

/// Bits of the lookup status field.
pub const STATUS_BITS: usize = 3;

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Ok,
        Status::OutOfRange,
        Status::NotAllocated,
        Status::Stale,
        Status::PageAbsent,
        Status::MemError,
    ];

    /// The status of a 3-bit status field; `None` for 6 and 7 (and anything wider).
    pub fn from_u64(v: u64) -> Option<Status> {
        Status::ALL.get(usize::try_from(v).ok()?).copied()
    }

    pub fn as_u64(self) -> u64 {
        self as u64
    }

    /// The datasheet's name, e.g. `NOT_ALLOCATED`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::OutOfRange => "OUT_OF_RANGE",
            Status::NotAllocated => "NOT_ALLOCATED",
            Status::Stale => "STALE",
            Status::PageAbsent => "PAGE_ABSENT",
            Status::MemError => "MEM_ERROR",
        }
    }

    /// Every status's name, indexed by its code (waveform labels).
    pub fn names() -> Vec<&'static str> {
        Status::ALL.iter().map(|s| s.name()).collect()
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Command result status (SPEC §6), `CMD_RESULT[31:28]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmdStatus {
    Ok = 0,
    Full = 1,
    OutOfRange = 2,
    BadState = 3,
    BadCmd = 4,
    /// State in memory (SPEC §9): the command's memory read or write failed.
    MemError = 5,
}

impl CmdStatus {
    pub const ALL: [CmdStatus; 6] = [
        CmdStatus::Ok,
        CmdStatus::Full,
        CmdStatus::OutOfRange,
        CmdStatus::BadState,
        CmdStatus::BadCmd,
        CmdStatus::MemError,
    ];

    /// `None` for 6..=15.
    pub fn from_u32(v: u32) -> Option<CmdStatus> {
        CmdStatus::ALL.get(usize::try_from(v).ok()?).copied()
    }

    pub fn as_u32(self) -> u32 {
        self as u32
    }

    /// The datasheet's name, e.g. `BAD_STATE`.
    pub fn name(self) -> &'static str {
        match self {
            CmdStatus::Ok => "OK",
            CmdStatus::Full => "FULL",
            CmdStatus::OutOfRange => "OUT_OF_RANGE",
            CmdStatus::BadState => "BAD_STATE",
            CmdStatus::BadCmd => "BAD_CMD",
            CmdStatus::MemError => "MEM_ERROR",
        }
    }
}

impl fmt::Display for CmdStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Command opcodes, `CMD[31:28]`; 0 and 6..=15 are BAD_CMD.
pub mod opcode {
    pub const ALLOC: u32 = 1;
    pub const ALLOC_AT: u32 = 2;
    pub const PUBLISH: u32 = 3;
    pub const FREE: u32 = 4;
    pub const DIR_FLUSH: u32 = 5;
    /// The highest opcode that names a command.
    pub const LAST: u32 = DIR_FLUSH;

    /// The datasheet's name of an opcode, `None` for one that is BAD_CMD.
    pub fn name(op: u32) -> Option<&'static str> {
        Some(match op {
            ALLOC => "ALLOC",
            ALLOC_AT => "ALLOC_AT",
            PUBLISH => "PUBLISH",
            FREE => "FREE",
            DIR_FLUSH => "DIR_FLUSH",
            _ => return None,
        })
    }
}

/// Register addresses of the control port (SPEC §6) and the layouts of their fields.
pub mod regs {
    pub const ID: u32 = 0x000;
    pub const VERSION: u32 = 0x004;
    pub const MAX_QPS: u32 = 0x008;
    pub const ENTRY_BYTES: u32 = 0x00C;
    pub const GEOMETRY: u32 = 0x010;
    pub const STATUS: u32 = 0x014;
    pub const FIRST_INDEX: u32 = 0x018;
    pub const TABLE_BASE_LO: u32 = 0x020;
    pub const TABLE_BASE_HI: u32 = 0x024;
    pub const CMD: u32 = 0x030;
    pub const CMD_RESULT: u32 = 0x034;
    pub const DIR_INDEX: u32 = 0x040;
    pub const DIR_ENTRY_LO: u32 = 0x044;
    pub const DIR_ENTRY_HI: u32 = 0x048;
    /// State in memory (SPEC §9): the state table's base (RW, like TABLE_BASE) and size (RO).
    pub const STATE_BASE_LO: u32 = 0x050;
    pub const STATE_BASE_HI: u32 = 0x054;
    pub const STATE_BYTES: u32 = 0x058;
    /// Block of port p at `PORT_BASE + PORT_STRIDE * p`.
    pub const PORT_BASE: u32 = 0x100;
    pub const PORT_STRIDE: u32 = 0x20;
    /// Offsets inside a port block; the counter of lookup status s is at `PORT_OK + 4 * s`.
    pub const PORT_LOOKUPS: u32 = 0x00;
    pub const PORT_OK: u32 = 0x04;
    pub const PORT_OUT_OF_RANGE: u32 = 0x08;
    pub const PORT_NOT_ALLOCATED: u32 = 0x0C;
    pub const PORT_STALE: u32 = 0x10;
    pub const PORT_PAGE_ABSENT: u32 = 0x14;
    pub const PORT_MEM_ERROR: u32 = 0x18;
    pub const ALLOC_OK: u32 = 0x180;
    pub const ALLOC_FULL: u32 = 0x184;
    pub const FREE_OK: u32 = 0x188;
    pub const CMD_ERROR: u32 = 0x18C;
    pub const QUARANTINE_OVERFLOW: u32 = 0x190;
    pub const IN_USE: u32 = 0x194;
    pub const QUARANTINED: u32 = 0x198;
    /// State in memory (SPEC §9) counters, 32-bit wrapping; they read 0 with the state on
    /// chip.
    pub const CACHE_HIT: u32 = 0x1A0;
    pub const CACHE_MISS: u32 = 0x1A4;
    pub const MISS_MERGED: u32 = 0x1A8;
    pub const FILTERED: u32 = 0x1AC;
    pub const MEM_READS: u32 = 0x1B0;
    pub const MEM_WRITES: u32 = 0x1B4;
    /// The §9 counters, in address order.
    pub const MEM_COUNTERS: [u32; 6] = [
        CACHE_HIT,
        CACHE_MISS,
        MISS_MERGED,
        FILTERED,
        MEM_READS,
        MEM_WRITES,
    ];
    /// Bits of the register address the hardware decodes (`addr[11:2]`: 1024 words).
    pub const WORD_ADDR_BITS: usize = 10;

    /// The word index of a register (its byte address / 4), as the hardware decodes it.
    pub const fn word(addr: u32) -> u64 {
        (addr >> 2) as u64
    }

    /// Address of a per-port register: `port_register(p, PORT_STALE)`.
    pub fn port_register(port: usize, offset: u32) -> u32 {
        PORT_BASE + PORT_STRIDE * port as u32 + offset
    }

    /// ID register value: "QPT1".
    pub const ID_VALUE: u32 = 0x5150_5431;
    /// VERSION register value of this datasheet: 2.0 (with SPEC §9).
    pub const VERSION_VALUE: u32 = 0x0002_0000;
    /// STATUS bits.
    pub const STATUS_INIT_DONE: u32 = 1 << STATUS_INIT_DONE_BIT;
    pub const STATUS_CMD_BUSY: u32 = 1 << STATUS_CMD_BUSY_BIT;
    pub const STATUS_INIT_DONE_BIT: u32 = 0;
    pub const STATUS_CMD_BUSY_BIT: u32 = 1;

    /// CMD: `opcode[31:28]`, `qpn[23:0]` (bits `[27:24]` ignored).
    pub const CMD_OPCODE_SHIFT: u32 = 28;
    pub const CMD_OPCODE_BITS: usize = 4;
    pub const CMD_QPN_SHIFT: u32 = 0;

    /// CMD_RESULT: `status[31:28]`, `busy[27]`, `qpn[23:0]`.
    pub const CMD_RESULT_STATUS_SHIFT: u32 = 28;
    pub const CMD_RESULT_STATUS_BITS: usize = 4;
    pub const CMD_RESULT_BUSY_BIT: u32 = 27;
    pub const CMD_RESULT_BUSY: u32 = 1 << CMD_RESULT_BUSY_BIT;
    pub const CMD_RESULT_QPN_SHIFT: u32 = 0;

    /// GEOMETRY: `index_bits[4:0]`, `leaf_bits[9:5]` (0 in flat), `mode[11:10]`,
    /// `ports[14:12]`, `reuse[15]` (1: lowest).
    pub const GEOMETRY_INDEX_BITS_SHIFT: u32 = 0;
    pub const GEOMETRY_LEAF_BITS_SHIFT: u32 = 5;
    pub const GEOMETRY_MODE_SHIFT: u32 = 10;
    pub const GEOMETRY_PORTS_SHIFT: u32 = 12;
    pub const GEOMETRY_REUSE_SHIFT: u32 = 15;
    pub const GEOMETRY_STATE_SHIFT: u32 = 16;
    /// GEOMETRY mode values.
    pub const MODE_FLAT: u32 = 0;
    pub const MODE_ON_CHIP: u32 = 1;
    pub const MODE_IN_MEMORY: u32 = 2;

    /// The GEOMETRY word.
    pub fn geometry(
        index_bits: u32,
        leaf_bits: u32,
        mode: u32,
        ports: u32,
        lowest: bool,
        state_in_memory: bool,
    ) -> u32 {
        index_bits << GEOMETRY_INDEX_BITS_SHIFT
            | leaf_bits << GEOMETRY_LEAF_BITS_SHIFT
            | mode << GEOMETRY_MODE_SHIFT
            | ports << GEOMETRY_PORTS_SHIFT
            | u32::from(lowest) << GEOMETRY_REUSE_SHIFT
            | u32::from(state_in_memory) << GEOMETRY_STATE_SHIFT
    }
}

/// A directory entry (SPEC §5, two_level): 64 bits, `present` in bit 0, the page base in
/// bits `[63:6]` (64-byte aligned), bits `[5:1]` reserved (read as 0).
pub mod dir_entry {
    pub const PRESENT_BIT: u32 = 0;
    pub const PRESENT: u64 = 1 << PRESENT_BIT;
    /// The base is `entry & BASE_MASK`: bits `[63:BASE_SHIFT]`.
    pub const BASE_SHIFT: u32 = 6;
    pub const BASE_MASK: u64 = !((1 << BASE_SHIFT) - 1);
    /// Bytes of an entry in memory (in_memory: entry i at `TABLE_BASE + i * BYTES`).
    pub const BYTES: u64 = 8;
}
