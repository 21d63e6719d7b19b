//! The hardware description of the engine, in rust-hdl.
//!
//! | block | file | what it does |
//! |---|---|---|
//! | [`QpTable`](qp_table::QpTable) | `qp_table.rs` | top level: names the ports after the configuration and wires the blocks below |
//! | [`LookupPipe`](lookup_pipe::LookupPipe) | `lookup_pipe.rs` | one per lookup port, every mode: credit, s0 RAM reads, s1 latch, s2 checks, the address, the response queue (directory in memory: the directory read, responses in order); II = 1, latency 3 (in_memory: memory latency + 5, + 6 at index_bits 15, + 7 above) |
//! | [`LookupCounters`](lookup_counters::LookupCounters) | `lookup_counters.rs` | the per-port lookup counters |
//! | [`DirFetch`](dir_fetch::DirFetch) | `dir_fetch.rs` | in_memory: the AXI4 read master of the directory, shared by the ports |
//! | [`MemWriter`](mem_writer::MemWriter) | `mem_writer.rs` | state in memory (SPEC §9), a child of `MemCmdEngine`: the AXI4 write master of the state table, one burst at a time |
//! | [`MissUnit`](miss_unit::MissUnit) | `miss_unit.rs` | state in_memory (SPEC §9): the shared miss unit: merging, `max_misses` fill slots in sets of 8 ways, the block reads, the fill buffers, the broadcast to the cache, the hold of a block for commands; its parameters in `miss_params.rs` ([`MissParams`](miss_params::MissParams)) |
//! | [`MissAnswers`](miss_answers::MissAnswers) | `miss_answers.rs` | a child of the miss unit, one per port: the port's answer queue and the slots it holds (its answers numbered, released in order) |
//! | [`MissFetch`](miss_fetch::MissFetch) | `miss_fetch.rs` | a child of the miss unit: the block reads (AXI4 read master, ID 0): the read queue, AR, the reads in flight, the R beats and the end of each fill |
//! | [`MissBroadcast`](miss_broadcast::MissBroadcast) | `miss_broadcast.rs` | a child of the miss unit: the ring of the last blocks read and the broadcast of each good fill to the caches |
//! | [`MissReadPort`](miss_read_port::MissReadPort) | `miss_read_port.rs` | a child of the miss unit, one per port: the port's copy of the fill buffer and of the slots' flags |
//! | [`StateCache`](state_cache::StateCache) | `state_cache.rs` | state in_memory (SPEC §9), a child of each `LookupPipe`: the port's `live` filter, cache tag and data copies, the s2 hit/miss decision, the wait queue and its in-order drain through the miss unit's fill buffer |
//! | [`CacheWrites`](cache_writes::CacheWrites) | `cache_writes.rs` | state in_memory: the one write bus of every port's cache copies (tag sweep after reset, the miss unit's fills, command invalidations) |
//! | [`MemFifo`](mem_fifo::MemFifo) | `mem_fifo.rs` | the queues (memory array, first word fall-through): a lookup pipe's response queue, the in_memory deep queues |
//! | [`head_fifo`] | `head_fifo.rs` | the head-registered kind of [`MemFifo`](mem_fifo::MemFifo) (its head read ahead into registers: no path from the array's read data back to its read address): the state cache's and miss unit's queues, the response queue of a pipe with the directory in memory |
//! | [`Ram`](ram::Ram) | `ram.rs` | the RAM block: state RAM and on-chip directory (one copy per reader), free-map levels, the quarantine queue |
//! | [`CmdEngine`](cmd_engine::CmdEngine) | `cmd_engine.rs` | init sweep, ALLOC / ALLOC_AT / PUBLISH / FREE (with the drain) / DIR_FLUSH |
//! | [`MemCmdEngine`](mem_cmd::MemCmdEngine) | `mem_cmd/` (`mod.rs`; the constructor in `build.rs`, the states in `state.rs`) | state in_memory (SPEC §9): the command engine of that mode: the state table in memory (block buffer, write-through), `written`, the live filter's writes, the block free map |
//! | [`Quarantine`](quarantine::Quarantine) | `quarantine.rs` | a child of either command engine: the quarantine queue (SPEC §6), its time check |
//! | [`Drain`](drain::Drain) | `drain.rs` | beside either command engine: the FREE drain's per-port count of the lookups in flight |
//! | [`CmdCounters`](cmd_counters::CmdCounters) | `cmd_counters.rs` | beside either command engine: the command counters of SPEC §6 |
//! | [`ReadArb`](read_arb::ReadArb) | `read_arb.rs` | state in_memory: the AR channel shared by the miss unit (ID 0), the command engine (ID 1) and, with the directory in memory too, the directory's reads (ID 2) |
//! | [`LiveFilter`](live_filter::LiveFilter) | `live_filter.rs` | state in_memory: the fail-fast `live` bit per block, one copy per two ports (a true dual-port RAM) |
//! | [`FreeMap`](free_map::FreeMap) | `free_map.rs` | hierarchical bitmap of the indexes ALLOC may take: bounded FIND / CLEAR / SET |
//! | [`codes`] | `codes.rs` | the SPEC vocabulary ([`crate::spec`]) as groups of hardware constants |
//! | [`AxilRegs`](axil_regs::AxilRegs) | `axil_regs.rs` | AXI4-Lite slave and the register map of SPEC §6 |
//!
//! Inside the blocks every datapath is declared at the widest size any configuration needs
//! (24-bit QPN, 32-bit tag, 64-bit address); the configuration enters as constants
//! (`localparam`), and the top level narrows the ports to `tag_bits` and `addr_bits`.
//! Synthesis removes the bits that are constant or unused.

/// Builds a block in its constructor: the fields in brackets take `Default::default()` (ports,
/// flip-flops, locals), the others the values given. rust-hdl's `Constant` has no `Default`, so
/// a block that holds one cannot derive `Default` and name only its other fields. Defined
/// before the block modules, so it is in scope in each of them.
macro_rules! block_new {
    ([$($default:ident),* $(,)?] $($field:ident : $value:expr),* $(,)?) => {
        Self { $($default: Default::default(),)* $($field: $value,)* }
    };
}

/// `n` signals (or blocks) at their default: the ports and children a block has once per
/// lookup port, or 0 or 1 times depending on the configuration.
pub(crate) fn defaults<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

pub mod axil_regs;
pub mod cache_writes;
pub mod cmd_counters;
pub mod cmd_engine;
pub mod codes;
pub mod dir_fetch;
pub mod drain;
pub mod free_map;
pub mod head_fifo;
pub mod live_filter;
pub mod lookup_counters;
pub mod lookup_pipe;
pub mod mem_cmd;
pub mod mem_fifo;
pub mod mem_writer;
pub mod miss_answers;
pub mod miss_broadcast;
pub mod miss_fetch;
pub mod miss_params;
pub mod miss_read_port;
pub mod miss_unit;
pub mod qp_table;
pub mod quarantine;
pub mod ram;
pub mod read_arb;
pub mod skid;
pub mod state_cache;

use crate::config::{Config, Directory, Fpga, Mode, Reuse};
use ram::RamWord;
use rust_hdl::prelude::*;

/// Bits of a state word in memory (SPEC §9, `docs/state_in_memory.md`): the state (2 bits)
/// and the generation, rounded up to 2, 4, 8, 16 or 32 so that a word never straddles a
/// bus beat.
pub fn state_word_bits(gen_bits: u32) -> u32 {
    (2 + gen_bits).next_power_of_two().max(2)
}

/// Bits of a QPN.
pub const QPN_BITS: usize = 24;
/// Widest generation field: `24 - index_bits` with `index_bits >= 4`.
pub const GEN_BITS_MAX: usize = 20;
/// Bits of a state RAM word at its widest: generation and 2 state bits.
pub const ENTRY_BITS: usize = GEN_BITS_MAX + 2;
/// Widest tag.
pub const TAG_BITS: usize = 32;
/// Widest context address.
pub const ADDR_BITS: usize = 64;
/// Bits of a stored directory entry ([`DirEntry`]).
pub const DIR_BITS: usize = 59;
/// Bits of the page base field of a directory entry (entry bits `[63:6]`).
pub const PAGE_BITS: usize = 64 - crate::spec::dir_entry::BASE_SHIFT as usize;
/// Bits of the edge counter the quarantine measures time with (wraps after 2^48 cycles:
/// 13 days at 250 MHz, the longest a quarantined index may wait to be compared correctly).
pub const TIME_BITS: usize = 48;
/// Most lookup ports an engine has (SPEC §3).
pub const MAX_PORTS: usize = 4;

/// One word of the state RAM: the index's state and its current generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct StateEntry {
    /// [`StateEntry::FREE`], [`StateEntry::RESERVED`] or [`StateEntry::VALID`].
    pub state: Bits<2>,
    /// Generation; only the low `gen_bits` bits are stored.
    pub gen: Bits<GEN_BITS_MAX>,
}

impl RamWord for StateEntry {
    fn low_bits(self, width: usize) -> Self {
        StateEntry {
            state: self.state.low_bits(width),
            gen: self.gen.low_bits(width.saturating_sub(2)),
        }
    }
}

impl StateEntry {
    pub const FREE: u64 = 0;
    pub const RESERVED: u64 = 1;
    pub const VALID: u64 = 2;
}

/// A directory entry as the on-chip directory stores it: `present` (entry bit 0) and the page
/// base (entry bits `[63:6]`); the reserved bits `[5:1]` are not stored and read back as 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct DirEntry {
    pub present: Bit,
    /// The page base >> [`dir_entry::BASE_SHIFT`](crate::spec::dir_entry::BASE_SHIFT).
    pub page: Bits<PAGE_BITS>,
}

impl RamWord for DirEntry {
    fn low_bits(self, width: usize) -> Self {
        DirEntry {
            present: self.present && width >= 1,
            page: self.page.low_bits(width.saturating_sub(1)),
        }
    }
}

/// The configuration as the blocks need it: plain numbers, already validated.
#[derive(Clone, Debug)]
pub struct EngineParams {
    pub index_bits: u32,
    pub max_qps: u32,
    pub entry_bytes: u32,
    pub first_index: u32,
    pub reuse: Reuse,
    pub ports: usize,
    pub tag_bits: u32,
    pub addr_bits: u32,
    pub quarantine_cycles: u64,
    pub quarantine_depth: u32,
    /// two_level mode: index bits resolved inside a second-level page.
    pub leaf_bits: Option<u32>,
    /// two_level with the directory on chip (else in memory).
    pub dir_on_chip: bool,
    pub max_outstanding: u32,
    /// Data width of the memory master `m_axi_*` (64, 128, 256 or 512).
    pub mem_data_bits: u32,
    /// How the RAMs are emitted.
    pub fpga: Fpga,
    /// `state = in_memory` (SPEC §9): the parameters of the state table in memory and its
    /// cache; `None`: the state is on chip.
    pub state_mem: Option<miss_unit::MissParams>,
}

impl EngineParams {
    pub fn new(cfg: &Config) -> Self {
        Self {
            index_bits: cfg.index_bits,
            max_qps: cfg.max_qps(),
            entry_bytes: cfg.entry_bytes,
            first_index: cfg.first_index,
            reuse: cfg.reuse,
            ports: cfg.ports.len(),
            tag_bits: cfg.tag_bits,
            addr_bits: cfg.addr_bits,
            quarantine_cycles: cfg.quarantine_cycles,
            quarantine_depth: cfg.quarantine_depth,
            leaf_bits: (cfg.mode == Mode::TwoLevel).then_some(cfg.leaf_bits),
            dir_on_chip: cfg.mode == Mode::TwoLevel && cfg.directory == Directory::OnChip,
            max_outstanding: cfg.max_outstanding,
            mem_data_bits: cfg.mem_data_bits,
            fpga: cfg.fpga,
            state_mem: (cfg.state == crate::config::State::InMemory).then(|| {
                miss_unit::MissParams {
                    block_bits: cfg.block_bits,
                    word_bits: state_word_bits(QPN_BITS as u32 - cfg.index_bits),
                    max_misses: cfg.max_misses,
                    mem_data_bits: cfg.mem_data_bits,
                    cache_lines: cfg.cache_lines,
                }
            }),
        }
    }

    pub fn gen_bits(&self) -> u32 {
        QPN_BITS as u32 - self.index_bits
    }

    pub fn index_mask(&self) -> u64 {
        (1u64 << self.index_bits) - 1
    }

    pub fn gen_mask(&self) -> u64 {
        (1u64 << self.gen_bits()) - 1
    }

    /// Directory entries: `ceil(max_qps / 2^leaf_bits)` in two_level mode, 0 in flat.
    pub fn dir_entries(&self) -> u32 {
        self.leaf_bits.map_or(0, |l| self.max_qps.div_ceil(1 << l))
    }

    /// two_level with the directory in memory.
    pub fn dir_in_memory(&self) -> bool {
        self.leaf_bits.is_some() && !self.dir_on_chip
    }

    /// Bits of the memory port's `m_axi_arid` / `m_axi_rid`: 2 when the directory and the
    /// state are both in memory (reads of the miss unit ID 0, of the command engine ID 1, of
    /// the directory ID 2), else 1 (with the directory alone every read has ID 0).
    pub fn read_id_bits(&self) -> usize {
        if self.dir_in_memory() && self.state_mem.is_some() {
            2
        } else {
            1
        }
    }

    /// Copies of the on-chip directory each block holds (0 or 1).
    pub fn on_chip_dirs(&self) -> usize {
        usize::from(self.dir_on_chip)
    }

    /// A copy of the on-chip directory.
    pub fn dir_ram(&self) -> ram::Ram<DirEntry> {
        ram::Ram::new(self.dir_entries() as usize, self.fpga)
    }

    /// A copy of the state RAM sized for this configuration (its write port registered once
    /// more in each copy when [`EngineParams::state_write_registered`]).
    pub fn state_ram(&self) -> ram::Ram<StateEntry> {
        let r = ram::Ram::with_layout(
            self.max_qps as usize,
            self.index_bits as usize,
            2 + self.gen_bits() as usize,
            self.fpga,
        );
        if self.state_write_registered() {
            r.write_registered()
        } else {
            r
        }
    }

    /// The command engine's copy of the state RAM: [`EngineParams::state_ram`], with its read
    /// address registered once more, at its blocks ([`ram::Ram::address_registered`]), and
    /// its word registered after the row multiplexer and, with more than two rows, in its
    /// middle ([`ram::Ram::row_registered`]), when the copies span several rows of block RAMs
    /// ([`EngineParams::state_write_registered`]): the engine's cursor then stays at the
    /// engine's logic instead of being pulled to the blocks spread over the die (its
    /// increment was the longest path of `configs/in_memory.toml` on ECP5), no route runs
    /// from a block through more than one multiplexer (the route from the blocks through the
    /// row multiplexer into the engine's `entry_r` followed), and the engine waits two or
    /// three more cycles for the word (latency 4 at index_bits 15, 5 above).
    pub fn engine_state_ram(&self) -> ram::Ram<StateEntry> {
        if self.state_write_registered() {
            self.state_ram().address_registered().row_registered()
        } else {
            self.state_ram()
        }
    }

    /// The state RAM copy a lookup pipe reads. State in memory: a one-word stand-in, never
    /// written, whose checks the cache's replace. Directory in memory: a state RAM of several
    /// rows of block RAMs registers its word after the row multiplexer
    /// ([`ram::Ram::row_registered`]; the latency of the directory read dominates).
    pub fn lookup_state_ram(&self) -> ram::Ram<StateEntry> {
        if self.state_mem.is_some() {
            ram::Ram::with_layout(1, 1, 2 + self.gen_bits() as usize, self.fpga)
        } else if self.dir_in_memory() {
            self.state_ram().row_registered()
        } else {
            self.state_ram()
        }
    }

    /// Directory in memory, state on chip, and a state RAM of more than one row of block
    /// RAMs (more than [`ram::DP16KD_ROW_DEPTH`] indexes): the lookup pipes read it through
    /// its row register ([`ram::Ram::row_registered`]), and every copy registers its write
    /// port once more ([`ram::Ram::write_registered`]; the command engine waits the extra
    /// edge), so that no route spans the copies spread over the die.
    pub fn state_write_registered(&self) -> bool {
        self.dir_in_memory()
            && self.state_mem.is_none()
            && self.max_qps as usize > ram::DP16KD_ROW_DEPTH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_directory_entry_is_present_and_page_of_the_spec_layout() {
        use crate::spec::dir_entry;
        assert_eq!(DirEntry::BITS, DIR_BITS);
        let e = DirEntry {
            present: true,
            page: 0x1234_5678.into(),
        };
        let b: Bits<DIR_BITS> = e.into();
        let stored: u64 = b.into();
        // Stored word {page, present} is the entry {base[63:6], 5 reserved zeros, present}.
        let entry = (stored >> 1) << dir_entry::BASE_SHIFT | (stored & 1) << dir_entry::PRESENT_BIT;
        assert_eq!(entry & dir_entry::PRESENT, dir_entry::PRESENT);
        assert_eq!(
            entry & dir_entry::BASE_MASK,
            0x1234_5678 << dir_entry::BASE_SHIFT
        );
    }
}
