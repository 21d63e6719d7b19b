//! `MissUnit`: the shared miss unit of `state = in_memory` (SPEC §9; design in
//! `docs/state_in_memory.md`, "Miss unit"): it takes the ports' cache misses, merges those of
//! a block already being fetched, reads each other block from the state table in memory
//! into one of `max_misses` fill slots (AXI4 read master), keeps the block there until every
//! request that took the slot has read it, and broadcasts each good block to the cache.
//!
//! One per engine with the state in memory (the top level wires it to every port's
//! [`StateCache`](super::state_cache::StateCache)); also tested alone
//! (`testbench/tests/block_miss_unit.rs`). Its parameters come in a [`MissParams`]
//! ([`EngineParams::state_mem`]).
//!
//! # Block in memory
//!
//! A block is 2^`block_bits` state words of `word_bits` bits (`block bits`), at
//! `STATE_BASE + block * block bytes`; the bits of `state_base` below the block size are
//! ignored (SPEC §9 requires STATE_BASE aligned to it). It is read as one INCR burst, ID 0,
//! of `beats = max(1, block bits / mem_data_bits)` beats of `2^arsize` bytes, `arsize` =
//! log2 of the smaller of the block and the bus in bytes: a block narrower than the bus is
//! read as one narrow transfer, and its lane of the beat (`araddr` mod bus bytes) is kept.
//! A block is at most 1 KiB and aligned to its size, so a burst never crosses 4 KiB.
//! Word `w` of a block is bits `[w * word_bits, (w + 1) * word_bits)` of the block as the
//! little-endian bytes of memory.
//!
//! # Interface
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `state_base` | in | STATE_BASE |
//! | `req_valid[p]`, `req_ready[p]`, `req_block[p]` | in, out, in | port `p`'s miss requests (a stream): a block number; here and in `busy_block`, `hold_block` only the low `24 - block_bits` bits count |
//! | `ans_valid[p]`, `ans_ready[p]`, `ans_slot[p]` | out, in, out | the slot of each of port `p`'s requests, in that port's request order (a stream from a queue of [`ANSWER_DEPTH`]) |
//! | `rd_slot[p]`, `rd_word[p]` | in | port `p`'s read port of the fill buffer: a slot and a word index in the block |
//! | `rd_error[p]` | out | combinational in `rd_slot[p]`, from the slots' flags as they were in the cycle before (a copy per port, one edge late): the slot's fill failed (meaningful once its fill has landed). A slot is answered to a port at the earliest one edge after it is taken, so the copy never shows a flag of the slot's use before |
//! | `rd_slot2[p]` | in | a second slot (the state cache's: the slot after its queue's head) |
//! | `rd_filled[p]`, `rd_filled2[p]` | out | registered: the fill of the slot presented on `rd_slot[p]` / `rd_slot2[p]` at the last edge had landed, as the copy showed it then (so two edges after the slot's flag, never a fill of the slot's use before: as `rd_error`). The state cache picks the one of its head from registers |
//! | `rd_data[p]` | out | the word: `rd_data` holds the word of the slot and index presented at edge `t` after edge `t + 1` (latency 2, the fill buffer's output register), low `word_bits` bits, when the copy showed the slot's fill landed at edge `t` (else 0) |
//! | `rel_valid[p]`, `rel_slot[p]` | in | port `p` releases a slot (one pulse per answer it received), at the earliest at the edge that takes the address of its last read of the slot |
//! | `taken_merged`, `taken_new`, `taken_slot` | out | a request leaves the decision register at this edge: merged into a slot (MISS_MERGED), or took a new slot and will be read (CACHE_MISS / MEM_READS); the slot (from registers) |
//! | `cw_valid`, `cw_line`, `cw_block`, `cw_beat`, `cw_last`, `cw_data` | out | cache write (every cache copy, no ready): beat `cw_beat` of block `cw_block` into line `cw_block mod cache_lines`, `cw_last` on its last beat; `cw_data` holds the low `min(block bits, mem_data_bits)` bits (0 without `cw_valid`). Only for fills that succeeded, beats in order, blocks in fill order |
//! | `busy_block`, `busy` | in, out | from registers (an OR of a few): in the cycle before, the `busy_block` of the cycle before that (registered on entry) had a live slot (being read, or filled and not yet released by all its requests, or not yet broadcast, or about to be merged into), or sat in the decision register, or in the request register as a request that was not held back (below) |
//! | `hold_valid`, `hold_block` | in | a command holds a block: see "Commands" |
//! | `arvalid` .. `arburst`, `rvalid` .. `rlast` | | AXI4 read master, ID 0 (the top level ties `arid`, `arlock`, ...); `rready` is always 1. The top level registers both sides (a [`Skid`](super::skid::Skid) on AR, a register on R: a beat reaches the block one edge after its handshake), so no logic here follows a top-level input combinationally |
//!
//! # Stages and edges
//!
//! | stage | at the edge | what happens |
//! |---|---|---|
//! | arbiter | `t` | round robin over the ports' requests: at most one taken (`req_ready`) into the input register, when it is empty or its request moves on at `t` |
//! | input register | `t + 1` at the earliest | moves into the request register when that is empty or its request moves on (it only registers the request, so the slots' block comparisons start from a flip-flop, not from the arbiter's multiplexer) |
//! | request register | `t + 2` at the earliest | matched against every slot: the slot of its block that is live, not a failed fill and not sealed (at most one), or, when the decision register takes a new slot for the same block at this edge, that slot. Moves into the decision register with the match when that is empty or its request leaves, unless held |
//! | decision register | `t + 3` at the earliest | merges into its slot (reference count + 1), or takes the next free slot (block, count 1, queued for a read); waits while it needs a new slot and none is free, or while its port's answer queue is full (a port that does not take its answers stops every port). The slot goes to the port's answer queue at the same edge |
//! | read queue | `t + 4` | the read leaves the read queue (its head, registered, is `arvalid`: `araddr` is `STATE_BASE` plus the block's offset, so it follows `state_base` while it waits; the top level's [`Skid`](super::skid::Skid) holds it from the handshake until `m_axi_arready`, and its `arready` is a register); one read a cycle |
//! | R | each beat | `rready` = 1; the beat (its lane for a narrow block) is written into the slot's fill buffer (one copy per port, same edge) and into the broadcast ring; the last beat (counted: `arlen + 1`) marks the slot filled, failed if a beat answered SLVERR/DECERR or `rlast` was not high exactly on the last beat |
//! | broadcast | after the last beat | a good fill's beats leave the ring one a cycle (ring read, output register) on `cw_*`; a failed fill's are skipped. Slots wait for their broadcast before they can be free |
//! | release | each `rel_valid` at `t`, at `t + 1` | count - 1 (several ports at one edge: each counts); the slot registers whose releases it saw at `t` (`s_rel`), its count moves at `t + 1` |
//!
//! A slot is *live* while its count is not 0, its fill or broadcast is not done (a failed
//! fill is never broadcast, so it is done at its last beat), or it is the decision
//! register's slot (the *pin*: a slot a request has matched stays live until the request
//! merges into it, so it is never freed and taken for another block in between); a slot
//! that is not live is free. The next free slot (`nf_oh`) is found one edge ahead: at each
//! edge, the lowest slot free before the edge but for the one taken at the edge, so a slot
//! freed at edge `f` can be taken again at `f + 2`. A request never merges into a slot whose
//! fill had failed when it was matched (it takes a new slot and reads again: its lookup was
//! not waiting for the failed read); one matched before the failure gets the failure. At
//! most one mergeable slot holds a block, so a block is never read twice at once, except
//! past a *seal*: a slot whose count register reached [`SEAL_AT`] takes no more requests
//! until it is free (the requests already matched to it can raise the count by three at
//! most, to 2^[`REF_BITS`] - 1), and the next request of its block takes a new slot and
//! reads it again. A request that merges into a filled slot reads the data already there.
//!
//! Throughput: one request a cycle leaves the decision register while slots allow; reads
//! are issued one a cycle and the R channel is taken at one beat a cycle. A request taken
//! at edge `t` that needs a read leaves the decision register at `t + 3` at the earliest,
//! leaves the read queue at `t + 4` (at the top level, `m_axi_arvalid` from then on).
//!
//! Paths: the decision is split over two edges so that no path runs from a slot's state through a
//! reduction over all slots back into the slots. The request register matches (`m_e`, one LUT a
//! slot from registers: the block comparison is registered, each slot's block compared with the
//! input register's at the edge the request enters, `s_eq_a`, or kept, `s_eq_b`; the comparisons
//! between the registers' blocks that the next free slot needs are registered too, `eq_ti` and
//! `same_q`) and its OR over the slots goes into the decision register (`t_hit`, with the one-hot
//! `t_mo`). The decision register decides from registers only: whether it leaves (`go`: its port's
//! room, `t_hit`, `nf_valid`), which slot (`t_mo` or `nf_oh`); the take reaches a slot's count one
//! edge later (`s_inc`: the count is `s_ref + s_inc`). Whether a slot is live is registered
//! (`s_lv`, from the next `s_inc`, `s_pending`, the pin and whether the next count is 0: from
//! `s_rz`, registered flags of `s_ref` being 0, 1, .. `ports`, shifted by `s_inc`, the flag of the
//! slot's release count picked, with no adder or comparison). The next free slot is found from
//! `s_lv` without a chain through the slots (free, none below it in its group of 8, `FREE_GROUP`,
//! free, no group below holding a free slot, each a reduction of the free flags under a constant
//! mask), twice side by side (with and without the slot taken now), and the take only picks one.
//! The room in a port's answer queue is registered (`ans_room`, exact: the count after the edge).
//! `rd_filled` / `rd_filled2` / `rd_error` are multiplexers over each port's copy of the flags
//! (the first two registered after them); `busy` compares
//! every slot's block with `busy_block` and is registered, in a register per group of 16 slots and
//! one for the requests, ORed at the output (the command engine's block register is far from the
//! slots: through the comparators and back into the engine's state that route was the longest path
//! of `configs/scale.toml`, 17.7 ns on ECP5; one register for all, 11.2 ns), and `busy_block` is
//! registered on entry (from the engine's register into the comparators: 10.67 ns). Nothing depends
//! combinationally on `rvalid` but the R beat's own writes (`rready` is constant).
//!
//! Reset (`rst`, synchronous) clears the slots, the queues and the registers; like any AXI
//! master, it expects the memory side to be reset with it (R beats of a read issued before
//! the reset would otherwise be taken for a later read).
//!
//! # Commands
//!
//! A command on a block `b` (SPEC §9 write-through, `docs/state_in_memory.md` "Commands"): once
//! every lookup accepted before it has reached the miss unit, it raises `hold_valid` with
//! `hold_block = b` and waits until `busy` is low for `busy_block = b` (`busy` tells of the cycle
//! before, for the `busy_block` of the cycle before that: the engine looks at it from the second
//! cycle after the hold rose, with `busy_block` set from the cycle before the hold on); it then
//! updates the cache and memory and keeps the hold until its write is acknowledged, then drops it
//! for at least one cycle (`hold_block` stays `b` while `hold_valid` is high). While `hold_valid`
//! is high, a request for `hold_block` taken (into the input register) while the hold is up waits
//! in the request register (it neither moves on, merges nor reads, and the requests of every port
//! wait behind it): it came after the command. A request taken before the hold rose (or that saw a
//! cycle with `hold_valid` low) is not held back, and counts in `busy` in the input or request
//! register, as does the decision register's request (it passed the request register unheld) and
//! the slot it is to merge into: they came before the command and must read the old state. So
//! `busy` falls only once the earlier requests of `b` are served and released, and no later one can
//! start a read of `b` before the hold drops.
//!
//! # Cost
//!
//! Per slot: the block number, a reference count and 6 flags in flip-flops; the block
//! number is compared with the arbiter's request and with `busy_block` every cycle (two
//! block comparators per slot), the slot id with the releases', the read ports' and the
//! fill's (slot decoders). Fill
//! buffer: `max_misses x block bits`, one copy per port ([`MissReadPort`], a [`Ram`](super::ram::Ram) with its output register). Ring:
//! 2 blocks. Queues: answers ([`ANSWER_DEPTH`] per port), reads, reads in flight and fills
//! to broadcast (`max_misses` each, rounded up to a power of two,
//! [`MemFifo::head_registered`]: their heads come from registers, not from a block RAM's read
//! port, since each head decides its own pop or every slot's next state).
//!
//! Measured with yosys 0.23 `synth_ecp5` on the block alone (the Verilog the block test
//! writes to `target/tmp/block_miss_unit/gen/`, then `yosys -p "read_verilog <file>;
//! synth_ecp5 -top <top>; stat"`), 2 ports, 64 slots, block_bits 6, word_bits 2, 64-bit bus
//! (the §9 target): with the decision in one register (and before the registered match
//! `s_eq`) 6043 LUT4, 2769 FF, 436 CCU2C, 7 DP16KD, 20 DPR16X4; with the decision over three
//! registers (the tree just before the count's zero test lost its adder) 9947 LUT4, 3871 FF,
//! 690 CCU2C, 4 DP16KD, 116 DPR16X4 (the queues in LUT RAM). About 150 LUT4 per slot (the
//! comparators, decoders, the two free-slot searches, the reference count's adder); the fill
//! buffers and the slot queues grow with the slots in RAM.

use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::miss_broadcast::MissBroadcast;
use super::miss_read_port::MissReadPort;
use super::{EngineParams, ADDR_BITS, MAX_PORTS};
use anyhow::{bail, Result};
use rust_hdl::prelude::*;

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
/// Width of a slot's reference count: at most 2^REF_BITS - 1 requests hold one slot (a
/// request that would exceed it waits).
pub const REF_BITS: usize = 10;
/// A slot is sealed (no request merges into it any more) once its count, as a register, is
/// at least this: a request in the request register sees the seal of the edge before, and
/// the count can still rise by three before it merges (the edge of that cycle, the
/// decision register's request, its own), so it never passes 2^REF_BITS - 1.
pub const SEAL_AT: u64 = (1 << REF_BITS) - 4;
/// Depth of each port's answer queue.
pub const ANSWER_DEPTH: usize = 4;
// (The room in an answer queue is a bit test of its count.)
const _: () = assert!(ANSWER_DEPTH.is_power_of_two());
/// Slots per group of the free-slot search (a prefix within the group, then over groups).
const FREE_GROUP: usize = 8;
/// Most slots.
pub const MAX_SLOTS: usize = 256;
/// Most groups of the free-slot search.
const MAX_GROUPS: usize = MAX_SLOTS / FREE_GROUP;
/// `araddr` bits within a beat of the widest bus (64 bytes).
const OFFSET_BITS: usize = 6;
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

    /// Depth of the queues that hold one entry per slot at most.
    pub fn slot_queue_depth(&self) -> usize {
        (self.max_misses as usize).next_power_of_two().max(2)
    }
}

#[derive(LogicBlock)]
pub struct MissUnit {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub state_base: Signal<In, Bits<ADDR_BITS>>,
    // Per port: requests, answers, releases, the fill buffer's read port.
    pub req_valid: Vec<Signal<In, Bit>>,
    pub req_ready: Vec<Signal<Out, Bit>>,
    pub req_block: Vec<Signal<In, Bits<BLOCK_NUM_BITS>>>,
    pub ans_valid: Vec<Signal<Out, Bit>>,
    pub ans_ready: Vec<Signal<In, Bit>>,
    pub ans_slot: Vec<Signal<Out, Bits<SLOT_BITS>>>,
    pub rel_valid: Vec<Signal<In, Bit>>,
    pub rel_slot: Vec<Signal<In, Bits<SLOT_BITS>>>,
    pub rd_slot: Vec<Signal<In, Bits<SLOT_BITS>>>,
    pub rd_word: Vec<Signal<In, Bits<WORD_INDEX_BITS>>>,
    pub rd_data: Vec<Signal<Out, Bits<WORD_BITS_MAX>>>,
    pub rd_filled: Vec<Signal<Out, Bit>>,
    pub rd_error: Vec<Signal<Out, Bit>>,
    pub rd_slot2: Vec<Signal<In, Bits<SLOT_BITS>>>,
    pub rd_filled2: Vec<Signal<Out, Bit>>,
    // What the request register did at this edge (counters).
    pub taken_merged: Signal<Out, Bit>,
    pub taken_new: Signal<Out, Bit>,
    pub taken_slot: Signal<Out, Bits<SLOT_BITS>>,
    // Cache write (broadcast).
    pub cw_valid: Signal<Out, Bit>,
    pub cw_line: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub cw_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub cw_beat: Signal<Out, Bits<BEAT_BITS>>,
    pub cw_last: Signal<Out, Bit>,
    pub cw_data: Signal<Out, Bits<MEM_DATA_BITS>>,
    // Commands.
    pub busy_block: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub busy: Signal<Out, Bit>,
    pub hold_valid: Signal<In, Bit>,
    pub hold_block: Signal<In, Bits<BLOCK_NUM_BITS>>,
    // AXI4 read master.
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arsize: Signal<Out, Bits<3>>,
    pub arburst: Signal<Out, Bits<2>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
    pub rdata: Signal<In, Bits<MEM_DATA_BITS>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    // Queues and RAMs.
    answers: Vec<MemFifo<Bits<SLOT_BITS>>>,
    /// Reads to issue: block, slot.
    arq: MemFifo<Bits<ARQ_BITS>>,
    /// Reads issued, in AR order: offset of the block in its beat, block, slot.
    ret: MemFifo<Bits<RET_BITS>>,
    /// Each port's read port of the fill buffer (its own copy of the buffer and the flags).
    read: Vec<MissReadPort>,
    /// The ring of the last beats read, and the broadcast of each good fill.
    bcast: MissBroadcast,
    // Arbiter and request register.
    rr: DFF<Bits<3>>,
    cur_valid: DFF<Bit>,
    cur_block: DFF<Bits<BLOCK_NUM_BITS>>,
    cur_port: DFF<Bits<3>>,
    /// The request is not held back by `hold_valid` (it came before the hold).
    cur_exempt: DFF<Bit>,
    /// `busy` as it was in the cycle before (the output: see "Commands"): of the input,
    /// request and decision registers (`busy_q`), of each group of 16 slots (`busy_g`).
    busy_q: DFF<Bit>,
    /// `busy_block` (its low bits) as it was at the last edge.
    bq_block: DFF<Bits<BLOCK_NUM_BITS>>,
    busy_g: Vec<DFF<Bit>>,
    // Input register: the arbiter's request, as the request register's (`cur_*`).
    i_valid: DFF<Bit>,
    i_block: DFF<Bits<BLOCK_NUM_BITS>>,
    i_port: DFF<Bits<3>>,
    i_exempt: DFF<Bit>,
    // Decision register: the request that leaves next, its port, whether it merges.
    t_valid: DFF<Bit>,
    t_block: DFF<Bits<BLOCK_NUM_BITS>>,
    t_port: DFF<Bits<3>>,
    t_hit: DFF<Bit>,
    /// Per slot: the slot the decision register's request merges into (at most one; pinned
    /// live until it does).
    t_mo: Vec<DFF<Bit>>,
    /// The slot a new take uses (one-hot, a slot that is free), and whether there is one.
    nf_oh: Vec<DFF<Bit>>,
    nf_valid: DFF<Bit>,
    // Slots.
    s_block: Vec<DFF<Bits<BLOCK_NUM_BITS>>>,
    s_ref: Vec<DFF<Bits<REF_BITS>>>,
    s_filled: Vec<DFF<Bit>>,
    s_error: Vec<DFF<Bit>>,
    /// Fill or broadcast not done.
    s_pending: Vec<DFF<Bit>>,
    /// The decision register took the slot at the last edge (merged, or took it new): its
    /// count is `s_ref + s_inc` (the increment lands one edge late, off the request's path).
    s_inc: Vec<DFF<Bit>>,
    /// Bit `j`: `s_ref == j`, for `j` in `0..=ports` (so the count's zero test after the
    /// releases needs no adder).
    s_rz: Vec<DFF<Bits<8>>>,
    /// Bit `p`: port `p` released the slot at the last edge (`rel_valid[p]` with `rel_slot[p]`
    /// the slot), decoded at the slot's own flip-flops, so the count moves one edge after the
    /// release and the caches' release registers, far across the die, reach a comparison and
    /// a flip-flop only, not the count's adder.
    s_rel: Vec<DFF<Bits<4>>>,
    /// The request register's block equals the slot's block, both as they are now (`s_eq`),
    /// kept as the two change: `s_eq_a` if the request register took a request at the last
    /// edge (`took`), `s_eq_b` if it kept its block, both computed at that edge, so that the
    /// take (which waits for the decision register) selects between two flip-flops in the
    /// cycle after, not every slot's comparison at the edge.
    s_eq_a: Vec<DFF<Bit>>,
    s_eq_b: Vec<DFF<Bit>>,
    took: DFF<Bit>,
    /// The request and decision registers hold one block (`same_q`); the decision and
    /// input registers do (`eq_ti`): registered from the comparisons of the registers'
    /// blocks before the edge, picked by the moves, so that each slot's `s_eq_*` and the
    /// pin see a flip-flop, not a comparator.
    same_q: DFF<Bit>,
    eq_ti: DFF<Bit>,
    /// Per port: its answer queue has room (registered, exact).
    ans_room: Vec<DFF<Bit>>,
    /// The slot is live (count not 0, or fill or broadcast pending), from the next state of
    /// the flags it depends on (so a register, not a comparison, starts the slot decision).
    s_lv: Vec<DFF<Bit>>,
    /// No request merges into the slot any more (its count reached `seal_at`).
    seal: Vec<DFF<Bit>>,
    // R.
    r_beat: DFF<Bits<BEAT_BITS>>,
    r_err: DFF<Bit>,
    // Locals.
    fl_vec: Signal<Local, Bits<MAX_SLOTS>>,
    er_vec: Signal<Local, Bits<MAX_SLOTS>>,
    found: Signal<Local, Bit>,
    sel: Signal<Local, Bits<3>>,
    sel_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    h_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    hit_slot: Signal<Local, Bits<SLOT_BITS>>,
    free_slot: Signal<Local, Bits<SLOT_BITS>>,
    busy_any: Signal<Local, Bit>,
    /// Bit `s`: slot `s` is live and of `busy_block`.
    busy_vec: Signal<Local, Bits<MAX_SLOTS>>,
    /// Per slot: mergeable and of the request register's block (at most one).
    m_e: Vec<Signal<Local, Bit>>,
    /// Per slot: of the request register's block (`s_eq_a` or `s_eq_b`).
    s_eq: Vec<Signal<Local, Bit>>,
    /// The request register has a mergeable slot.
    e_hit: Signal<Local, Bit>,
    /// The request register moves into the decision register.
    move_t: Signal<Local, Bit>,
    /// The request and decision registers hold one block.
    /// Block comparisons of the registers' blocks before this edge (`cur`, `t`, `i`, the
    /// arbiter's `s`).
    c_cs: Signal<Local, Bit>,
    c_ci: Signal<Local, Bit>,
    c_ts: Signal<Local, Bit>,
    c_ti: Signal<Local, Bit>,
    c_ct: Signal<Local, Bit>,
    /// The request register's request merges into the slot the decision register takes.
    fwd: Signal<Local, Bit>,
    /// The decision register's block equals the arbiter's.

    /// The input register moves into the request register.
    move_e: Signal<Local, Bit>,
    pin_d: Signal<Local, Bit>,
    seal_d: Signal<Local, Bit>,
    /// Per slot: the lowest free slot, and the lowest but for `nf_oh` (at most one each).
    f1: Vec<Signal<Local, Bit>>,
    f2: Vec<Signal<Local, Bit>>,
    /// Bit `s`: slot `s` is free; and free and not `nf_oh`.
    free_vec: Signal<Local, Bits<MAX_SLOTS>>,
    free2_vec: Signal<Local, Bits<MAX_SLOTS>>,
    /// Bit `g`: group `g` of [`FREE_GROUP`] slots holds a bit of `free_vec`; of `free2_vec`.
    g_vec: Signal<Local, Bits<MAX_GROUPS>>,
    g2_vec: Signal<Local, Bits<MAX_GROUPS>>,
    inc_d: Signal<Local, Bit>,
    pend_d: Signal<Local, Bit>,
    /// The slot's count plus `s_inc` (registers only).
    /// Bit `k`: the slot's count (`s_ref + s_inc`) is `k` (`0..=ports`).
    ref_t: Signal<Local, Bits<8>>,
    rz_d: Signal<Local, Bits<8>>,
    /// Bit `m`: the slot's `s_ref` is `m` (`0..=2 ports`); the same shifted by `s_inc`.
    eqv: Signal<Local, Bits<16>>,
    sh: Signal<Local, Bits<16>>,
    /// The count after this edge is 0 (`ref_t` equals the releases of the slot).
    ref_z: Signal<Local, Bit>,
    merge: Signal<Local, Bit>,
    take_new: Signal<Local, Bit>,
    blocked: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    a_push: Signal<Local, Bit>,
    a_pop: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    slot_out: Signal<Local, Bits<SLOT_BITS>>,
    take: Signal<Local, Bit>,
    ref_d: Signal<Local, Bits<REF_BITS>>,
    inc: Signal<Local, Bit>,
    dec: Signal<Local, Bits<3>>,
    rel_d: Signal<Local, Bits<4>>,
    a_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    a_addr: Signal<Local, Bits<ADDR_BITS>>,
    ar_load: Signal<Local, Bit>,
    r_pop: Signal<Local, Bit>,
    r_last: Signal<Local, Bit>,
    r_fail: Signal<Local, Bit>,
    r_ok: Signal<Local, Bit>,
    ret_slot: Signal<Local, Bits<SLOT_BITS>>,
    ret_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    lane_data: Signal<Local, Bits<MEM_DATA_BITS>>,
    fill_done: Signal<Local, Bit>,
    /// The queues' fill levels that nothing needs (the name tells the lint so).
    unused_counts: Signal<Local, Bit>,
    // Constants.
    port_num: Vec<Constant<Bits<3>>>,
    slot_num: Vec<Constant<Bits<SLOT_BITS>>>,
    /// Per slot: its bit of `free_vec`.
    slot_bit: Vec<Constant<Bits<MAX_SLOTS>>>,
    /// Per slot: the slots of its group (bits of `free_vec`).
    group_mask: Vec<Constant<Bits<MAX_SLOTS>>>,
    /// Per slot: the slots of its group below it (bits of `free_vec`).
    group_below: Vec<Constant<Bits<MAX_SLOTS>>>,
    /// Per slot: its group's bit of `g_vec`.
    group_bit: Vec<Constant<Bits<MAX_GROUPS>>>,
    /// Per slot: the groups below its group (bits of `g_vec`).
    groups_below: Vec<Constant<Bits<MAX_GROUPS>>>,
    /// The bits of an answer queue's count at or above [`ANSWER_DEPTH`] (a power of two).
    answer_full: Constant<Bits<FIFO_COUNT_BITS>>,
    /// Per group of 16 slots: its bits of `busy_vec`.
    busy_mask: Vec<Constant<Bits<MAX_SLOTS>>>,
    answer_depth_m1: Constant<Bits<FIFO_COUNT_BITS>>,
    /// A slot is sealed once its count (as a register) reaches this.
    seal_at: Constant<Bits<REF_BITS>>,
    /// `0..=ports`, as a release count.
    dec_num: Vec<Constant<Bits<3>>>,
    /// `1 << k` for `k` in `0..=ports`.
    k_bit: Vec<Constant<Bits<8>>>,
    /// `1 << p` for each port `p`.
    port_bit: Vec<Constant<Bits<4>>>,
    /// Bits `0..=ports`.
    k_mask: Constant<Bits<8>>,
    /// `0..=2 ports` as a count, and `1 << m`.
    m_num: Vec<Constant<Bits<REF_BITS>>>,
    m_bit: Vec<Constant<Bits<16>>>,
    base_mask: Constant<Bits<ADDR_BITS>>,
    block_shift: Constant<Bits<8>>,
    beats_m1: Constant<Bits<BEAT_BITS>>,
    lane_mask: Constant<Bits<OFFSET_BITS>>,
    block_mask: Constant<Bits<BLOCK_NUM_BITS>>,
    c_arlen: Constant<Bits<8>>,
    c_arsize: Constant<Bits<3>>,
    _ports: usize,
    _slots: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Per slot `s` of `slots`: the constant with the bits `bits(s)` set.
fn masks<const N: usize, I: Iterator<Item = usize>>(
    slots: usize,
    bits: impl Fn(usize) -> I,
) -> Vec<Constant<Bits<N>>> {
    (0..slots)
        .map(|s| {
            let mut m = Bits::<N>::default();
            for b in bits(s) {
                m.set_bits::<1>(b, true.into());
            }
            Constant::new(m)
        })
        .collect()
}

impl MissUnit {
    /// The miss unit for `p.ports` ports with the parameters `m`; an error (no panic) when a
    /// parameter is out of range.
    pub fn new(p: &EngineParams, m: &MissParams) -> Result<Self> {
        m.check(p.ports)?;
        let n = p.ports;
        let slots = m.max_misses as usize;
        let beats = m.beats() as usize;
        let block_bytes = m.block_bytes();
        let bus_bytes = u64::from(m.mem_data_bits / 8);
        let lane_mask = if block_bytes < bus_bytes {
            (bus_bytes - 1) & !(block_bytes - 1)
        } else {
            0
        };
        Ok(block_new!(
            [
                clock, rst, state_base, taken_merged, taken_new, taken_slot, cw_valid, cw_line,
                cw_block, cw_beat, cw_last, cw_data, busy_block, busy, hold_valid, hold_block,
                arvalid, arready, araddr, arlen, arsize, arburst, rvalid, rready, rdata, rresp,
                rlast, rr, cur_valid, cur_block, cur_port, cur_exempt, busy_q, bq_block, i_valid,
                i_block, i_port, i_exempt, t_valid, t_block, t_port, t_hit, nf_valid, took, same_q,
                eq_ti, r_beat, r_err,
                found, sel, sel_block, h_block, hit_slot, free_slot, busy_any, busy_vec,
                e_hit, move_t, c_cs, c_ci, c_ts, c_ti, c_ct, fwd, move_e, pin_d, seal_d, free2_vec,
                g2_vec, blocked, room, a_push, a_pop, go, slot_out, take, free_vec, g_vec, inc_d,
                pend_d, ref_t, rz_d, eqv, sh, ref_z, merge, take_new, ref_d, inc, dec, rel_d,
                a_block, a_addr, ar_load, r_pop, r_last, r_fail, r_ok, ret_slot, ret_block,
                lane_data, fill_done, fl_vec, er_vec, unused_counts,
            ]
            req_valid: vec_of(n),
            req_ready: vec_of(n),
            req_block: vec_of(n),
            ans_valid: vec_of(n),
            ans_ready: vec_of(n),
            ans_slot: vec_of(n),
            rel_valid: vec_of(n),
            rel_slot: vec_of(n),
            rd_slot: vec_of(n),
            rd_word: vec_of(n),
            rd_data: vec_of(n),
            rd_filled: vec_of(n),
            rd_slot2: vec_of(n),
            rd_filled2: vec_of(n),
            rd_error: vec_of(n),
            answers: (0..n).map(|_| MemFifo::new(ANSWER_DEPTH)).collect(),
            arq: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            ret: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            read: (0..n).map(|_| MissReadPort::new(p, m)).collect(),
            bcast: MissBroadcast::new(p, m),
            s_block: vec_of(slots),
            s_ref: vec_of(slots),
            s_filled: vec_of(slots),
            s_error: vec_of(slots),
            s_pending: vec_of(slots),
            ans_room: vec_of(n),
            busy_g: vec_of(slots.div_ceil(16)),
            busy_mask: masks(slots.div_ceil(16), |g| g * 16..(g * 16 + 16).min(slots)),
            port_num: (0..n).map(|i| Constant::new((i as u64).into())).collect(),
            slot_num: (0..slots)
                .map(|i| Constant::new((i as u64).into()))
                .collect(),
            slot_bit: masks(slots, |s| s..s + 1),
            group_mask: masks(slots, |s| {
                s / FREE_GROUP * FREE_GROUP..(s / FREE_GROUP + 1) * FREE_GROUP
            }),
            group_below: masks(slots, |s| s / FREE_GROUP * FREE_GROUP..s),
            group_bit: masks(slots, |s| s / FREE_GROUP..s / FREE_GROUP + 1),
            groups_below: masks(slots, |s| 0..s / FREE_GROUP),
            s_lv: vec_of(slots),
            dec_num: (0..=n).map(|k| Constant::new((k as u64).into())).collect(),
            k_bit: (0..=n).map(|k| Constant::new((1u64 << k).into())).collect(),
            port_bit: (0..n).map(|p| Constant::new((1u64 << p).into())).collect(),
            k_mask: Constant::new(((1u64 << (n + 1)) - 1).into()),
            m_num: (0..=2 * n).map(|k| Constant::new((k as u64).into())).collect(),
            m_bit: (0..=2 * n).map(|k| Constant::new((1u64 << k).into())).collect(),
            s_rz: vec_of(slots),
            s_rel: vec_of(slots),
            s_inc: vec_of(slots),
            s_eq: vec_of(slots),
            s_eq_a: vec_of(slots),
            s_eq_b: vec_of(slots),
            seal: vec_of(slots),
            t_mo: vec_of(slots),
            nf_oh: vec_of(slots),
            m_e: vec_of(slots),
            f1: vec_of(slots),
            f2: vec_of(slots),
            answer_depth_m1: Constant::new((ANSWER_DEPTH as u64 - 1).into()),
            answer_full: Constant::new(
                ((1u64 << FIFO_COUNT_BITS) - ANSWER_DEPTH as u64).into(),
            ),
            seal_at: Constant::new(SEAL_AT.into()),
            base_mask: Constant::new((!(block_bytes - 1)).into()),
            block_shift: Constant::new(u64::from(block_bytes.trailing_zeros()).into()),
            beats_m1: Constant::new((beats as u64 - 1).into()),
            lane_mask: Constant::new(lane_mask.into()),
            block_mask: Constant::new(((1u64 << (24 - m.block_bits)) - 1).into()),
            c_arlen: Constant::new((beats as u64 - 1).into()),
            c_arsize: Constant::new(u64::from(m.arsize()).into()),
            _ports: n,
            _slots: slots,
        ))
    }
}

impl Logic for MissUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rr, cur_valid, cur_block, cur_port, cur_exempt, busy_q, bq_block, i_valid,
            i_block, i_port, i_exempt, t_valid, t_block, t_port, t_hit, nf_valid, took, same_q,
            eq_ti, r_beat, r_err
        );
        for s in 0..self._slots {
            self.s_block[s].clock.next = self.clock.val();
            self.s_ref[s].clock.next = self.clock.val();
            self.s_filled[s].clock.next = self.clock.val();
            self.s_error[s].clock.next = self.clock.val();
            self.s_pending[s].clock.next = self.clock.val();
            self.s_lv[s].clock.next = self.clock.val();
            self.s_rel[s].clock.next = self.clock.val();
            self.s_block[s].d.next = self.s_block[s].q.val();
            self.s_filled[s].d.next = self.s_filled[s].q.val();
            self.s_error[s].d.next = self.s_error[s].q.val();
            self.s_inc[s].clock.next = self.clock.val();
            self.s_eq_a[s].clock.next = self.clock.val();
            self.s_eq_b[s].clock.next = self.clock.val();
            self.seal[s].clock.next = self.clock.val();
            self.t_mo[s].clock.next = self.clock.val();
            self.nf_oh[s].clock.next = self.clock.val();
        }
        for p in 0..self._ports {
            self.answers[p].clock.next = self.clock.val();
            self.answers[p].rst.next = self.rst.val();
            self.read[p].clock.next = self.clock.val();
            self.read[p].rst.next = self.rst.val();
            self.ans_room[p].clock.next = self.clock.val();
        }
        self.arq.clock.next = self.clock.val();
        self.arq.rst.next = self.rst.val();
        self.ret.clock.next = self.clock.val();
        self.ret.rst.next = self.rst.val();
        self.bcast.clock.next = self.clock.val();
        self.bcast.rst.next = self.rst.val();

        // ---- Arbiter: the first port with a request from `rr` on, else from port 0.
        self.found.next = false;
        self.sel.next = 0.into();
        for p in 0..self._ports {
            if !self.found.val()
                & self.req_valid[p].val()
                & (self.port_num[p].val() >= self.rr.q.val())
            {
                self.sel.next = self.port_num[p].val();
                self.found.next = true;
            }
        }
        for p in 0..self._ports {
            if !self.found.val() & self.req_valid[p].val() {
                self.sel.next = self.port_num[p].val();
                self.found.next = true;
            }
        }
        self.sel_block.next = 0.into();
        for p in 0..self._ports {
            if self.sel.val() == self.port_num[p].val() {
                self.sel_block.next = self.req_block[p].val() & self.block_mask.val();
            }
        }

        // Block numbers: the bits above `24 - block_bits` are ignored.
        // `busy_block` is registered here first (it comes from the command engine, across the
        // die), so its comparisons with the 64 slots start from a flip-flop of this unit.
        self.bq_block.d.next = self.busy_block.val() & self.block_mask.val();
        self.h_block.next = self.hold_block.val() & self.block_mask.val();

        // ---- The decision register (`t_*`): its request leaves at this edge when its port's
        // answer queue has room and it merges into its slot (`t_hit`, the slot `t_mo`, both
        // found while it was in the request register) or a free slot is ready (`nf_oh`, found
        // at the edge before). Everything here comes from registers.
        self.room.next = false;
        for p in 0..self._ports {
            if self.t_port.q.val() == self.port_num[p].val() {
                self.room.next = self.ans_room[p].q.val();
            }
        }
        self.go.next =
            self.t_valid.q.val() & self.room.val() & (self.t_hit.q.val() | self.nf_valid.q.val());
        self.merge.next = self.go.val() & self.t_hit.q.val();
        self.take_new.next = self.go.val() & !self.t_hit.q.val();
        self.hit_slot.next = 0.into();
        self.free_slot.next = 0.into();
        for s in 0..self._slots {
            if self.t_mo[s].q.val() {
                self.hit_slot.next = self.hit_slot.val() | self.slot_num[s].val();
            }
            if self.nf_oh[s].q.val() {
                self.free_slot.next = self.free_slot.val() | self.slot_num[s].val();
            }
        }
        self.slot_out.next = self.free_slot.val();
        if self.t_hit.q.val() {
            self.slot_out.next = self.hit_slot.val();
        }
        self.taken_merged.next = self.merge.val();
        self.taken_new.next = self.take_new.val();
        self.taken_slot.next = self.slot_out.val();

        // ---- The request register (`cur_*`) against the slots: `m_e` marks the slot it would
        // merge into (live, of its block, not a failed fill, not sealed: at most one). It moves
        // into the decision register when that is empty or its request leaves, unless a hold
        // keeps it; its slot then is `m_e`, or the decision register's new slot when both are
        // of one block (`fwd`: that slot is not live yet, so `m_e` cannot see it).
        self.blocked.next = self.hold_valid.val() & !self.cur_exempt.q.val();
        self.move_t.next =
            self.cur_valid.q.val() & !self.blocked.val() & (!self.t_valid.q.val() | self.go.val());
        self.fwd.next = self.same_q.q.val() & self.take_new.val();
        self.e_hit.next = false;
        self.busy_any.next = false;
        self.busy_vec.next = 0.into();
        for s in 0..self._slots {
            self.s_eq[s].next = self.s_eq_b[s].q.val();
            if self.took.q.val() {
                self.s_eq[s].next = self.s_eq_a[s].q.val();
            }
            self.m_e[s].next = self.s_lv[s].q.val()
                & !(self.s_filled[s].q.val() & self.s_error[s].q.val())
                & !self.seal[s].q.val()
                & self.s_eq[s].val();
            self.e_hit.next = self.e_hit.val() | self.m_e[s].val();
            if (self.s_block[s].q.val() == self.bq_block.q.val()) & self.s_lv[s].q.val() {
                self.busy_vec.next = self.busy_vec.val() | self.slot_bit[s].val();
            }
        }
        // `busy` from registers kept near the slots (one per group of 16) and near the
        // request registers, ORed at the output: one register for all was 11.2 ns on ECP5.
        for g in 0..self.busy_g.len() {
            self.busy_g[g].clock.next = self.clock.val();
            self.busy_g[g].d.next = (self.busy_vec.val() & self.busy_mask[g].val()).any();
            if self.rst.val() {
                self.busy_g[g].d.next = false;
            }
            if self.busy_g[g].q.val() {
                self.busy_any.next = true;
            }
        }
        if self.go.val() {
            self.t_valid.d.next = false;
        }
        if self.move_t.val() {
            self.t_valid.d.next = true;
            self.t_block.d.next = self.cur_block.q.val();
            self.t_port.d.next = self.cur_port.q.val();
            self.t_hit.d.next = self.fwd.val() | self.e_hit.val();
        }
        self.busy_q.d.next = (self.cur_valid.q.val()
            & self.cur_exempt.q.val()
            & (self.cur_block.q.val() == self.bq_block.q.val()))
            | (self.t_valid.q.val() & (self.t_block.q.val() == self.bq_block.q.val()))
            | (self.i_valid.q.val()
                & self.i_exempt.q.val()
                & (self.i_block.q.val() == self.bq_block.q.val()));
        self.busy.next = self.busy_q.q.val() | self.busy_any.val();

        // ---- The next free slot: the lowest slot not live, but for the one a request takes
        // at this edge (`nf_oh`). Found from registers, without a chain through the slots: a
        // slot is the lowest free one when it is free, no slot below it in its group of 8
        // (`FREE_GROUP`) is free and no group below its group holds a free slot (each a
        // reduction of the free flags under a constant mask); both searches, with and without
        // `nf_oh`, run side by side and the take picks one.
        self.free_vec.next = 0.into();
        self.free2_vec.next = 0.into();
        for s in 0..self._slots {
            if !self.s_lv[s].q.val() {
                self.free_vec.next = self.free_vec.val() | self.slot_bit[s].val();
                if !self.nf_oh[s].q.val() {
                    self.free2_vec.next = self.free2_vec.val() | self.slot_bit[s].val();
                }
            }
        }
        self.g_vec.next = 0.into();
        self.g2_vec.next = 0.into();
        for s in 0..self._slots {
            if (self.free_vec.val() & self.group_mask[s].val()).any() {
                self.g_vec.next = self.g_vec.val() | self.group_bit[s].val();
            }
            if (self.free2_vec.val() & self.group_mask[s].val()).any() {
                self.g2_vec.next = self.g2_vec.val() | self.group_bit[s].val();
            }
        }
        for s in 0..self._slots {
            self.f1[s].next = (self.free_vec.val() & self.slot_bit[s].val()).any()
                & !(self.free_vec.val() & self.group_below[s].val()).any()
                & !(self.g_vec.val() & self.groups_below[s].val()).any();
            self.f2[s].next = (self.free2_vec.val() & self.slot_bit[s].val()).any()
                & !(self.free2_vec.val() & self.group_below[s].val()).any()
                & !(self.g2_vec.val() & self.groups_below[s].val()).any();
            self.nf_oh[s].d.next = self.f1[s].val();
            if self.take_new.val() {
                self.nf_oh[s].d.next = self.f2[s].val();
            }
            if self.rst.val() {
                self.nf_oh[s].d.next = false;
            }
        }
        self.nf_valid.d.next = self.g_vec.val().any();
        if self.take_new.val() {
            self.nf_valid.d.next = self.g2_vec.val().any();
        }

        // ---- The request register takes the arbiter's request when it is empty or its
        // request moves on at this edge.
        self.move_e.next = self.i_valid.q.val() & (!self.cur_valid.q.val() | self.move_t.val());
        if self.move_t.val() {
            self.cur_valid.d.next = false;
        }
        if !self.hold_valid.val() {
            self.cur_exempt.d.next = true;
        }
        self.took.d.next = self.move_e.val();
        if self.move_e.val() {
            self.cur_valid.d.next = true;
            self.cur_block.d.next = self.i_block.q.val();
            self.cur_port.d.next = self.i_port.q.val();
            self.cur_exempt.d.next = self.i_exempt.q.val() | !self.hold_valid.val();
        }

        // ---- The input register (`i_*`) takes the arbiter's request when it is empty or
        // its request moves on at this edge (it only registers the request, so that the
        // slots' comparisons start from a register).
        self.take.next = self.found.val() & (!self.i_valid.q.val() | self.move_e.val());
        for p in 0..self._ports {
            self.req_ready[p].next = self.take.val() & (self.sel.val() == self.port_num[p].val());
        }
        if self.move_e.val() {
            self.i_valid.d.next = false;
        }
        if !self.hold_valid.val() {
            self.i_exempt.d.next = true;
        }
        if self.take.val() {
            self.i_valid.d.next = true;
            self.i_block.d.next = self.sel_block.val();
            self.i_port.d.next = self.sel.val();
            self.i_exempt.d.next =
                !(self.hold_valid.val() & (self.h_block.val() == self.sel_block.val()));
            self.rr.d.next = self.sel.val() + 1;
        }
        // `same_q` and `eq_ti` after this edge, from the blocks the registers hold after it.
        self.c_cs.next = self.cur_block.q.val() == self.sel_block.val();
        self.c_ci.next = self.cur_block.q.val() == self.i_block.q.val();
        self.c_ts.next = self.t_block.q.val() == self.sel_block.val();
        self.c_ti.next = self.t_block.q.val() == self.i_block.q.val();
        self.c_ct.next = self.cur_block.q.val() == self.t_block.q.val();
        self.eq_ti.d.next = self.c_ti.val();
        if self.move_t.val() {
            self.eq_ti.d.next = self.c_ci.val();
            if self.take.val() {
                self.eq_ti.d.next = self.c_cs.val();
            }
        } else if self.take.val() {
            self.eq_ti.d.next = self.c_ts.val();
        }
        self.same_q.d.next = self.c_ct.val();
        if self.move_e.val() {
            self.same_q.d.next = self.c_ti.val();
            if self.move_t.val() {
                self.same_q.d.next = self.c_ci.val();
            }
        } else if self.move_t.val() {
            self.same_q.d.next = true;
        }

        // ---- Answers, one queue per port.
        for p in 0..self._ports {
            self.answers[p].in_valid.next =
                self.go.val() & (self.t_port.q.val() == self.port_num[p].val());
            self.answers[p].data_in.next = self.slot_out.val();
            self.answers[p].out_ready.next = self.ans_ready[p].val();
            self.ans_valid[p].next = self.answers[p].out_valid.val();
            self.ans_slot[p].next = self.answers[p].data_out.val();
            // Room after this edge (the count after this edge below ANSWER_DEPTH), registered:
            // full now and not popped without a push, or one short and pushed without a pop.
            // (`count >= ANSWER_DEPTH` as a bit test: no carry chain.)
            self.a_push.next = self.answers[p].in_valid.val();
            self.a_pop.next = self.answers[p].out_valid.val() & self.ans_ready[p].val();
            self.ans_room[p].d.next = !(((self.answers[p].count.val() & self.answer_full.val())
                .any()
                & !(self.a_pop.val() & !self.a_push.val()))
                | ((self.answers[p].count.val() == self.answer_depth_m1.val())
                    & self.a_push.val()
                    & !self.a_pop.val()));
            if self.rst.val() {
                self.ans_room[p].d.next = true;
            }
        }

        // ---- R channel: the head of the in-flight queue is the read the beat belongs to.
        self.r_pop.next = self.rvalid.val() & self.ret.out_valid.val();
        self.r_last.next = self.r_beat.q.val() == self.beats_m1.val();
        self.r_fail.next =
            self.r_err.q.val() | self.rresp.val().any() | (self.rlast.val() ^ self.r_last.val());
        self.ret_slot.next = self.ret.data_out.val().get_bits::<SLOT_BITS>(0);
        self.ret_block.next = self.ret.data_out.val().get_bits::<BLOCK_NUM_BITS>(8);
        self.lane_data.next = self.rdata.val()
            >> (bit_cast::<10, OFFSET_BITS>(
                self.ret.data_out.val().get_bits::<OFFSET_BITS>(29) & self.lane_mask.val(),
            ) << 3);
        self.fill_done.next = self.r_pop.val() & self.r_last.val();
        self.rready.next = true;
        self.ret.out_ready.next = self.fill_done.val();
        for p in 0..self._ports {
            self.read[p].w_valid.next = self.r_pop.val();
            self.read[p].w_slot.next = self.ret_slot.val();
            self.read[p].w_beat.next = self.r_beat.q.val();
            self.read[p].w_data.next = self.lane_data.val();
        }
        if self.r_pop.val() {
            self.r_beat.d.next = self.r_beat.q.val() + 1;
            self.r_err.d.next = self.r_fail.val();
            if self.r_last.val() {
                self.r_beat.d.next = 0.into();
                self.r_err.d.next = false;
            }
        }
        // The beats into the broadcast's ring, each fill into its queue.
        self.r_ok.next = !self.r_fail.val();
        self.bcast.beat_valid.next = self.r_pop.val();
        self.bcast.beat_data.next = self.lane_data.val();
        self.bcast.fill_valid.next = self.fill_done.val();
        self.bcast.fill_good.next = self.r_ok.val();
        self.bcast.fill_block.next = self.ret_block.val();
        self.bcast.fill_slot.next = self.ret_slot.val();

        // ---- Read queue: its head is the read offered on AR.
        self.arq.in_valid.next = self.take_new.val();
        self.arq.data_in.next = (bit_cast::<ARQ_BITS, BLOCK_NUM_BITS>(self.t_block.q.val()) << 8)
            | bit_cast::<ARQ_BITS, SLOT_BITS>(self.free_slot.val());
        self.ar_load.next = self.arq.out_valid.val() & self.arready.val();
        self.arq.out_ready.next = self.ar_load.val();
        self.a_block.next = self.arq.data_out.val().get_bits::<BLOCK_NUM_BITS>(8);
        self.a_addr.next = (self.state_base.val() & self.base_mask.val())
            + (bit_cast::<ADDR_BITS, BLOCK_NUM_BITS>(self.a_block.val()) << self.block_shift.val());
        self.ret.in_valid.next = self.ar_load.val();
        self.ret.data_in.next =
            (bit_cast::<RET_BITS, OFFSET_BITS>(self.a_addr.val().get_bits::<OFFSET_BITS>(0)) << 29)
                | bit_cast::<RET_BITS, ARQ_BITS>(self.arq.data_out.val());
        self.arvalid.next = self.arq.out_valid.val();
        self.araddr.next = self.a_addr.val();
        self.arlen.next = self.c_arlen.val();
        self.arsize.next = self.c_arsize.val();
        self.arburst.next = 1.into();

        // ---- Broadcast (`MissBroadcast`).
        self.cw_valid.next = self.bcast.cw_valid.val();
        self.cw_line.next = self.bcast.cw_line.val();
        self.cw_block.next = self.bcast.cw_block.val();
        self.cw_beat.next = self.bcast.cw_beat.val();
        self.cw_last.next = self.bcast.cw_last.val();
        self.cw_data.next = self.bcast.cw_data.val();

        // ---- Slot updates.
        for s in 0..self._slots {
            // The count moves by `inc - dec` (one addition of a small two's complement delta,
            // not one adder per port); `inc` is the decision register's take of the edge before.
            self.inc_d.next = (self.merge.val() & self.t_mo[s].q.val())
                | (self.take_new.val() & self.nf_oh[s].q.val());
            self.inc.next = self.s_inc[s].q.val();
            // The releases of the last edge (registered at the slot) count now.
            self.rel_d.next = 0.into();
            self.dec.next = 0.into();
            for p in 0..self._ports {
                if self.rel_valid[p].val() & (self.rel_slot[p].val() == self.slot_num[s].val()) {
                    self.rel_d.next = self.rel_d.val() | self.port_bit[p].val();
                }
            }
            // Over the four bits (those of absent ports stay 0).
            for j in 0..4 {
                if self.s_rel[s].q.val().get_bit(j) {
                    self.dec.next = self.dec.val() + 1;
                }
            }
            self.ref_d.next = self.s_ref[s].q.val()
                + (bit_cast::<REF_BITS, 1>(self.inc.val().into())
                    - bit_cast::<REF_BITS, 3>(self.dec.val()));
            // `ref_d == 0` without an adder or a comparison: bit `k` of `ref_t` says that
            // `s_ref + inc` (the count) is `k`, from `s_rz` (bit `j`: `s_ref == j`,
            // registered) shifted by `inc`; the bit of the slot's release count is picked.
            self.ref_t.next = self.s_rz[s].q.val();
            if self.inc.val() {
                self.ref_t.next = self.s_rz[s].q.val() << 1;
            }
            self.ref_z.next = false;
            for k in 0..self.dec_num.len() {
                if (self.dec.val() == self.dec_num[k].val())
                    & (self.ref_t.val() & self.k_bit[k].val()).any()
                {
                    self.ref_z.next = true;
                }
            }
            // A free slot's block does not count (it is not live): the next free slot takes
            // the decision register's block whether or not its request takes it.
            if self.nf_oh[s].q.val() {
                self.s_block[s].d.next = self.t_block.q.val();
            }
            // The blocks of the request register and of the slot after this edge, if the
            // request register takes a request at this edge (`a`) and if not (`b`).
            self.s_eq_a[s].d.next = self.s_block[s].q.val() == self.i_block.q.val();
            self.s_eq_b[s].d.next = self.s_eq[s].val();
            if self.nf_oh[s].q.val() {
                self.s_eq_a[s].d.next = self.eq_ti.q.val();
                self.s_eq_b[s].d.next = self.same_q.q.val();
            }
            // The decision register's slot (`t_mo`) stays live until its request merges into
            // it (the pin), so it is never free, and so never taken, in between.
            self.pin_d.next = self.t_mo[s].q.val() & !self.go.val();
            if self.move_t.val() {
                self.pin_d.next = self.m_e[s].val();
                if self.fwd.val() {
                    self.pin_d.next = self.nf_oh[s].q.val();
                }
            }
            // Sealed once its count reaches `seal_at` (until it is taken new): no request
            // merges into it any more, so the count, which at most three requests past the
            // request register can still raise, stays within `REF_BITS`.
            self.seal_d.next = self.seal[s].q.val() | (self.s_ref[s].q.val() >= self.seal_at.val());
            self.pend_d.next = self.s_pending[s].q.val();
            if self.take_new.val() & self.nf_oh[s].q.val() {
                self.seal_d.next = false;
                self.s_filled[s].d.next = false;
                self.s_error[s].d.next = false;
                self.pend_d.next = true;
            }
            if self.fill_done.val() & (self.ret_slot.val() == self.slot_num[s].val()) {
                self.s_filled[s].d.next = true;
                self.s_error[s].d.next = self.r_fail.val();
                if self.r_fail.val() {
                    self.pend_d.next = false;
                }
            }
            if self.bcast.sent_valid.val() & (self.bcast.sent_slot.val() == self.slot_num[s].val())
            {
                self.pend_d.next = false;
            }
            if self.rst.val() {
                self.ref_d.next = 0.into();
                self.rel_d.next = 0.into();
                self.inc_d.next = false;
                self.s_filled[s].d.next = false;
                self.s_error[s].d.next = false;
                self.pend_d.next = false;
                self.pin_d.next = false;
                self.seal_d.next = false;
            }
            self.t_mo[s].d.next = self.pin_d.val();
            self.seal[s].d.next = self.seal_d.val();
            self.s_ref[s].d.next = self.ref_d.val();
            self.s_rel[s].d.next = self.rel_d.val();
            // `s_rz` after this edge without the adder: `s_ref + inc - dec == j` is
            // `count == j + dec`; `eqv` bit `m` is `s_ref == m` (comparisons of the register
            // with constants), shifted by `inc` it is `count == m`, shifted down by `dec`
            // `count - dec == j`.
            self.s_rz[s].clock.next = self.clock.val();
            self.eqv.next = 0.into();
            for m in 0..self.m_num.len() {
                if self.s_ref[s].q.val() == self.m_num[m].val() {
                    self.eqv.next = self.eqv.val() | self.m_bit[m].val();
                }
            }
            self.sh.next = self.eqv.val();
            if self.inc.val() {
                self.sh.next = self.eqv.val() << 1;
            }
            self.rz_d.next = bit_cast::<8, 16>(self.sh.val() >> bit_cast::<16, 3>(self.dec.val()))
                & self.k_mask.val();
            if self.rst.val() {
                self.rz_d.next = 1.into();
            }
            self.s_rz[s].d.next = self.rz_d.val();
            self.s_inc[s].d.next = self.inc_d.val();
            self.s_pending[s].d.next = self.pend_d.val();
            // Live after this edge: the count not 0, a take of this edge (`s_inc`), the fill
            // or broadcast pending, or the pin.
            self.s_lv[s].d.next = (!self.ref_z.val() & !self.rst.val())
                | self.inc_d.val()
                | self.pend_d.val()
                | self.pin_d.val();
        }

        // ---- Fill buffer read ports.
        self.fl_vec.next = 0.into();
        self.er_vec.next = 0.into();
        for s in 0..self._slots {
            if self.s_filled[s].q.val() {
                self.fl_vec.next = self.fl_vec.val() | self.slot_bit[s].val();
                if self.s_error[s].q.val() {
                    self.er_vec.next = self.er_vec.val() | self.slot_bit[s].val();
                }
            }
        }
        for p in 0..self._ports {
            self.read[p].fl_vec.next = self.fl_vec.val();
            self.read[p].er_vec.next = self.er_vec.val();
            self.read[p].rd_slot.next = self.rd_slot[p].val();
            self.read[p].rd_word.next = self.rd_word[p].val();
            self.read[p].rd_slot2.next = self.rd_slot2[p].val();
            self.rd_data[p].next = self.read[p].rd_data.val();
            self.rd_filled[p].next = self.read[p].rd_filled.val();
            self.rd_filled2[p].next = self.read[p].rd_filled2.val();
            self.rd_error[p].next = self.read[p].rd_error.val();
        }

        self.unused_counts.next = self.arq.count.val().any() | self.ret.count.val().any();

        if self.rst.val() {
            self.rr.d.next = 0.into();
            self.cur_valid.d.next = false;
            self.i_valid.d.next = false;
            self.t_valid.d.next = false;
            self.nf_valid.d.next = false;
            self.took.d.next = false;
            self.busy_q.d.next = false;
            self.r_beat.d.next = 0.into();
            self.r_err.d.next = false;
        }
    }
}
