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
//! | `rd_filled[p]`, `rd_error[p]` | out | combinational in `rd_slot[p]`, from the slots' flags as they were in the cycle before (a copy per port, one edge late): its fill has landed; it failed (only with `rd_filled`). A slot is answered to a port at the earliest one edge after it is taken, so the copy never shows a fill of the slot's use before |
//! | `rd_data[p]` | out | the word: `rd_data` holds the word of the slot and index presented at edge `t` after edge `t + 1` (latency 2, the fill buffer's output register), low `word_bits` bits, when `rd_filled` was high at edge `t` (else 0) |
//! | `rel_valid[p]`, `rel_slot[p]` | in | port `p` releases a slot (one pulse per answer it received), at the earliest at the edge that takes the address of its last read of the slot |
//! | `taken_merged`, `taken_new`, `taken_slot` | out | a request leaves the request register at this edge: merged into a slot (MISS_MERGED), or took a new slot and will be read (CACHE_MISS / MEM_READS); the slot |
//! | `cw_valid`, `cw_line`, `cw_block`, `cw_beat`, `cw_last`, `cw_data` | out | cache write (every cache copy, no ready): beat `cw_beat` of block `cw_block` into line `cw_block mod cache_lines`, `cw_last` on its last beat; `cw_data` holds the low `min(block bits, mem_data_bits)` bits (0 without `cw_valid`). Only for fills that succeeded, beats in order, blocks in fill order |
//! | `busy_block`, `busy` | in, out | from a register: in the cycle before, `busy_block` had a slot (being read, or filled and not yet released by all its requests, or not yet broadcast), or sat in the request register as a request that was not held back (below) |
//! | `hold_valid`, `hold_block` | in | a command holds a block: see "Commands" |
//! | `arvalid` .. `arburst`, `rvalid` .. `rlast` | | AXI4 read master, ID 0 (the top level ties `arid`, `arlock`, ...); `rready` is always 1 |
//!
//! # Stages and edges
//!
//! | stage | at the edge | what happens |
//! |---|---|---|
//! | arbiter | `t` | round robin over the ports' requests: at most one taken (`req_ready`) into the request register, when it is empty or its request leaves at `t` |
//! | request register | `t + 1` at the earliest | compared with every slot: a slot of the block that is live and not a failed fill: merge (reference count + 1); else the lowest free slot (block, count 1, queued for a read); waits while none is free, while the slot's count is at its maximum (2^[`REF_BITS`] - 1), while its port's answer queue is full (a port that does not take its answers stops every port), or while held. The slot goes to the port's answer queue at the same edge |
//! | read queue, AR register | `t + 2` | the read enters the AR register (`arvalid` from a register), held until `arready`; one read a cycle |
//! | R | each beat | `rready` = 1; the beat (its lane for a narrow block) is written into the slot's fill buffer (one copy per port, same edge) and into the broadcast ring; the last beat (counted: `arlen + 1`) marks the slot filled, failed if a beat answered SLVERR/DECERR or `rlast` was not high exactly on the last beat |
//! | broadcast | after the last beat | a good fill's beats leave the ring one a cycle (ring read, output register) on `cw_*`; a failed fill's are skipped. Slots wait for their broadcast before they can be free |
//! | release | each `rel_valid` | count - 1 (several ports at one edge: each counts) |
//!
//! A slot is *live* while its count is not 0 or its fill or broadcast is not done
//! (a failed fill is never broadcast, so it is done at its last beat); a slot that is not
//! live is free, and is taken again at the edge after its last release or broadcast beat.
//! A request never merges into a failed fill (it takes a new slot and reads again: its
//! lookup was not waiting for the failed read). At most one mergeable slot holds a block,
//! so a block is never read twice at once. A request that merges into a filled slot reads
//! the data already there.
//!
//! Throughput: one request a cycle leaves the request register while slots allow; reads
//! are issued one a cycle and the R channel is taken at one beat a cycle. A request taken
//! at edge `t` that needs a read leaves the request register at `t + 1` at the earliest,
//! enters the AR register at `t + 2` (`arvalid` from then on); a slot freed at edge `f` can
//! be taken again at `f + 1`.
//!
//! Paths: `req_ready` depends combinationally on the request register's match against
//! every slot (it says whether the request leaves at this edge); that match is short: the
//! block comparison is registered (`s_eq`: each slot's block is compared with the request
//! the arbiter takes, at the edge it enters the request register), the matching and the
//! lowest free slot are one-hot, and the take of a slot reaches its count one edge later
//! (`s_inc`: the count is `s_ref + s_inc`, which is what every decision reads). Whether a
//! slot is live is registered too (`s_lv`, from the next `s_inc` and `s_pending` and whether
//! the next count is 0: `s_ref + s_inc` equals the releases, compared for each possible
//! number of releases in parallel, not after the adder), and the lowest free slot is found without
//! a chain through the slots: free, none below it in its group of 8 (`FREE_GROUP`) free, no
//! group below holding a free slot, each a reduction of the free flags under a constant
//! mask. `rd_filled` /
//! `rd_error` are multiplexers over the slots; `busy` compares every slot's block with
//! `busy_block` and is registered (the command engine's block register is far from the
//! slots: through the comparators and back into the engine's state that route was the
//! longest path of `configs/scale.toml`, 17.7 ns on ECP5). Nothing depends
//! combinationally on `rvalid` but the R beat's own writes (`rready` is constant).
//!
//! Reset (`rst`, synchronous) clears the slots, the queues and the registers; like any AXI
//! master, it expects the memory side to be reset with it (R beats of a read issued before
//! the reset would otherwise be taken for a later read).
//!
//! # Commands
//!
//! A command on a block `b` (SPEC §9 write-through, `docs/state_in_memory.md` "Commands"):
//! once every lookup accepted before it has reached the miss unit, it raises `hold_valid`
//! with `hold_block = b` and waits until `busy` is low for `busy_block = b` (`busy` tells
//! of the cycle before: the engine looks at it from the second cycle after the hold rose,
//! with `busy_block` set before that); it then updates
//! the cache and memory and keeps the hold until its write is acknowledged, then drops it
//! for at least one cycle. While `hold_valid` is high, a request for `hold_block` taken into
//! the request register waits there (it neither merges nor reads, and the requests of every
//! port wait behind it): it came after the command. A request that was in the request register
//! before the hold rose (or at a cycle when `hold_valid` was low) is not held back, and
//! counts in `busy`: it came before the command and must read the old state. So `busy`
//! falls only once the earlier requests of `b` are served and released, and no later one
//! can start a read of `b` before the hold drops.
//!
//! # Cost
//!
//! Per slot: the block number, a reference count and 6 flags in flip-flops; the block
//! number is compared with the arbiter's request and with `busy_block` every cycle (two
//! block comparators per slot), the slot id with the releases', the read ports' and the
//! fill's (slot decoders). Fill
//! buffer: `max_misses x block bits`, one copy per port ([`Ram`], output register). Ring:
//! 2 blocks. Queues: answers ([`ANSWER_DEPTH`] per port), reads, reads in flight and fills
//! to broadcast (`max_misses` each, rounded up to a power of two,
//! [`MemFifo::head_registered`]: their heads come from registers, not from a block RAM's read
//! port, since each head decides its own pop or every slot's next state).
//!
//! Measured (before the registered match of the request register, which adds 2 flip-flops
//! per slot) with yosys 0.23 `synth_ecp5` on the block alone (the Verilog the block test
//! writes to `target/tmp/block_miss_unit/gen/`, then `yosys -p "read_verilog <file>;
//! synth_ecp5 -top <top>; stat"`):
//!
//! | configuration | LUT4 | FF | CCU2C | DP16KD | LUT RAM (DPR16X4) |
//! |---|---|---|---|---|---|
//! | 2 ports, 64 slots, block_bits 6, word_bits 2, 64-bit bus (the §9 target) | 6043 | 2769 | 436 | 7 | 20 |
//! | 4 ports, 64 slots, block_bits 8, word_bits 8, 512-bit bus | 10501 | 6416 | 464 | 63 | 136 |
//!
//! About 75 LUT4 per slot at 2 ports (the comparators, decoders and the reference count's
//! adder above); the fill buffers and the slot queues grow with the slots in RAM.

use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::ram::{Ram, RAM_ADDR_BITS};
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
/// Depth of each port's answer queue.
pub const ANSWER_DEPTH: usize = 4;
/// Slots per group of the free-slot search (a prefix within the group, then over groups).
const FREE_GROUP: usize = 8;
/// Most slots.
const MAX_SLOTS: usize = 256;
/// Most groups of the free-slot search.
const MAX_GROUPS: usize = MAX_SLOTS / FREE_GROUP;
/// Ring pointers (2 blocks of at most 128 beats).
const PTR_BITS: usize = 9;
/// `araddr` bits within a beat of the widest bus (64 bytes).
const OFFSET_BITS: usize = 6;
/// Read queue word: block, slot.
pub const ARQ_BITS: usize = BLOCK_NUM_BITS + SLOT_BITS;
/// In-flight queue word: offset in the beat, block, slot.
pub const RET_BITS: usize = OFFSET_BITS + BLOCK_NUM_BITS + SLOT_BITS;
/// Broadcast queue word: good, block, slot.
pub const DONE_BITS: usize = 1 + BLOCK_NUM_BITS + SLOT_BITS;

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
    /// Fills landed, in order, to broadcast or skip: good, block, slot.
    done: MemFifo<Bits<DONE_BITS>>,
    fill: Vec<Ram<Bits<MEM_DATA_BITS>>>,
    ring: Ram<Bits<MEM_DATA_BITS>>,
    // Arbiter and request register.
    rr: DFF<Bits<3>>,
    cur_valid: DFF<Bit>,
    cur_block: DFF<Bits<BLOCK_NUM_BITS>>,
    cur_port: DFF<Bits<3>>,
    /// The request is not held back by `hold_valid` (it came before the hold).
    cur_exempt: DFF<Bit>,
    /// `busy` as it was in the cycle before (the output: see "Commands").
    busy_q: DFF<Bit>,
    // Slots.
    s_block: Vec<DFF<Bits<BLOCK_NUM_BITS>>>,
    s_ref: Vec<DFF<Bits<REF_BITS>>>,
    s_filled: Vec<DFF<Bit>>,
    s_error: Vec<DFF<Bit>>,
    /// Fill or broadcast not done.
    s_pending: Vec<DFF<Bit>>,
    /// The request register took the slot at the last edge (merged, or took it new): its
    /// count is `s_ref + s_inc` (the increment lands one edge late, off the request's path).
    s_inc: Vec<DFF<Bit>>,
    /// The request register's block equals the slot's block (both as they are now), kept
    /// as the two change.
    s_eq: Vec<DFF<Bit>>,
    /// The slot is live (count not 0, or fill or broadcast pending), from the next state of
    /// the flags it depends on (so a register, not a comparison, starts the slot decision).
    s_lv: Vec<DFF<Bit>>,
    // AR and R.
    ar_valid: DFF<Bit>,
    ar_addr: DFF<Bits<ADDR_BITS>>,
    r_beat: DFF<Bits<BEAT_BITS>>,
    r_err: DFF<Bit>,
    w_ptr: DFF<Bits<PTR_BITS>>,
    // Broadcast.
    d_beat: DFF<Bits<BEAT_BITS>>,
    d_ptr: DFF<Bits<PTR_BITS>>,
    p1_valid: DFF<Bit>,
    p1_last: DFF<Bit>,
    p1_slot: DFF<Bits<SLOT_BITS>>,
    p1_block: DFF<Bits<BLOCK_NUM_BITS>>,
    p1_beat: DFF<Bits<BEAT_BITS>>,
    p2_valid: DFF<Bit>,
    p2_last: DFF<Bit>,
    p2_slot: DFF<Bits<SLOT_BITS>>,
    p2_block: DFF<Bits<BLOCK_NUM_BITS>>,
    p2_beat: DFF<Bits<BEAT_BITS>>,
    // The word index within its beat, delayed as the fill buffer's read.
    lane1: Vec<DFF<Bits<WORD_INDEX_BITS>>>,
    lane2: Vec<DFF<Bits<WORD_INDEX_BITS>>>,
    /// The slot was filled when its read was taken, delayed as the read (else `rd_data` is 0).
    rdv1: Vec<DFF<Bit>>,
    rdv2: Vec<DFF<Bit>>,
    /// Each port's copy of every slot's filled flag, and of filled and failed, one edge
    /// late: the read port's `rd_filled` / `rd_error` select from flip-flops that the placer
    /// can keep next to the port, not from the slots' (a 64:1 multiplexer from flags spread
    /// with the slots' logic was 8 ns of `configs/scale.toml`'s longest path on ECP5).
    fl_copy: Vec<DFF<Bits<MAX_SLOTS>>>,
    er_copy: Vec<DFF<Bits<MAX_SLOTS>>>,
    // Locals.
    fl_vec: Signal<Local, Bits<MAX_SLOTS>>,
    er_vec: Signal<Local, Bits<MAX_SLOTS>>,
    found: Signal<Local, Bit>,
    sel: Signal<Local, Bits<3>>,
    sel_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    q_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    h_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    hit: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<SLOT_BITS>>,
    hit_full: Signal<Local, Bit>,
    free_found: Signal<Local, Bit>,
    free_slot: Signal<Local, Bits<SLOT_BITS>>,
    busy_any: Signal<Local, Bit>,
    /// Per slot: count not 0 or fill/broadcast pending.
    s_live: Vec<Signal<Local, Bit>>,
    /// Per slot: the count is at its maximum.
    s_full: Vec<Signal<Local, Bit>>,
    /// Per slot: mergeable and of the request's block (at most one).
    m_oh: Vec<Signal<Local, Bit>>,
    /// Per slot: the lowest free slot (at most one).
    f_oh: Vec<Signal<Local, Bit>>,
    /// Bit `s`: slot `s` is free.
    free_vec: Signal<Local, Bits<MAX_SLOTS>>,
    /// Bit `g`: group `g` of [`FREE_GROUP`] slots holds a free slot.
    g_vec: Signal<Local, Bits<MAX_GROUPS>>,
    inc_d: Signal<Local, Bit>,
    pend_d: Signal<Local, Bit>,
    /// The slot's count plus `s_inc` (registers only).
    ref_t: Signal<Local, Bits<REF_BITS>>,
    /// The count after this edge is 0 (`ref_t` equals the releases of the slot).
    ref_z: Signal<Local, Bit>,
    merge: Signal<Local, Bit>,
    take_new: Signal<Local, Bit>,
    blocked: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    slot_out: Signal<Local, Bits<SLOT_BITS>>,
    take: Signal<Local, Bit>,
    ref_d: Signal<Local, Bits<REF_BITS>>,
    inc: Signal<Local, Bit>,
    dec: Signal<Local, Bits<3>>,
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
    d_good: Signal<Local, Bit>,
    d_last: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    skip: Signal<Local, Bit>,
    st_filled: Signal<Local, Bit>,
    x_slot: Signal<Local, Bits<SLOT_BITS>>,
    x_word: Signal<Local, Bits<WORD_INDEX_BITS>>,
    x_lane: Signal<Local, Bits<WORD_INDEX_BITS>>,
    x_data: Signal<Local, Bits<MEM_DATA_BITS>>,
    x_out: Signal<Local, Bits<WORD_BITS_MAX>>,
    cw_out: Signal<Local, Bits<MEM_DATA_BITS>>,
    st_error: Signal<Local, Bit>,
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
    answer_depth: Constant<Bits<FIFO_COUNT_BITS>>,
    ref_max: Constant<Bits<REF_BITS>>,
    /// `0..=ports`, as a release count and as a count.
    dec_num: Vec<Constant<Bits<3>>>,
    ref_num: Vec<Constant<Bits<REF_BITS>>>,
    ref_max_m1: Constant<Bits<REF_BITS>>,
    base_mask: Constant<Bits<ADDR_BITS>>,
    block_shift: Constant<Bits<8>>,
    beat_shift: Constant<Bits<8>>,
    beats: Constant<Bits<PTR_BITS>>,
    beats_m1: Constant<Bits<BEAT_BITS>>,
    ring_mask: Constant<Bits<PTR_BITS>>,
    lane_mask: Constant<Bits<OFFSET_BITS>>,
    word_index_mask: Constant<Bits<WORD_INDEX_BITS>>,
    wpb_shift: Constant<Bits<8>>,
    wpb_mask: Constant<Bits<WORD_INDEX_BITS>>,
    word_shift: Constant<Bits<8>>,
    word_mask: Constant<Bits<WORD_BITS_MAX>>,
    line_mask: Constant<Bits<BLOCK_NUM_BITS>>,
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
        let beat_shift = beats.trailing_zeros() as usize;
        let stored = m.stored_bits() as usize;
        let block_bytes = m.block_bytes();
        let bus_bytes = u64::from(m.mem_data_bits / 8);
        let lane_mask = if block_bytes < bus_bytes {
            (bus_bytes - 1) & !(block_bytes - 1)
        } else {
            0
        };
        let wpb = stored / m.word_bits as usize;
        // (The address bits the depth needs: one slot of several beats needs only the beat.)
        let fill_bits = (slots.next_power_of_two().trailing_zeros() as usize + beat_shift).max(1);
        let fill_ram = || Ram::with_layout(slots * beats, fill_bits, stored, p.fpga);
        Ok(block_new!(
            [
                clock, rst, state_base, taken_merged, taken_new, taken_slot, cw_valid, cw_line,
                cw_block, cw_beat, cw_last, cw_data, busy_block, busy, hold_valid, hold_block,
                arvalid, arready, araddr, arlen, arsize, arburst, rvalid, rready, rdata, rresp,
                rlast, rr, cur_valid, cur_block, cur_port, cur_exempt, busy_q, ar_valid, ar_addr,
                r_beat, r_err, w_ptr, d_beat, d_ptr, p1_valid, p1_last, p1_slot, p1_block, p1_beat,
                p2_valid, p2_last, p2_slot, p2_block, p2_beat, found, sel, sel_block, q_block,
                h_block, hit, hit_slot, hit_full, free_found, free_slot, busy_any, blocked, room,
                go, slot_out, take, free_vec, g_vec, inc_d, pend_d, ref_t, ref_z, merge, take_new,
                ref_d, inc, dec, a_block, a_addr, ar_load, r_pop, r_last, r_fail, r_ok, ret_slot,
                ret_block, lane_data, fill_done, d_good, d_last, issue, skip, st_filled, x_slot,
                x_word, x_lane, x_data, x_out, cw_out, st_error, fl_vec, er_vec, unused_counts,
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
            rd_error: vec_of(n),
            answers: (0..n).map(|_| MemFifo::new(ANSWER_DEPTH)).collect(),
            arq: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            ret: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            done: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            fill: (0..n).map(|_| fill_ram()).collect(),
            ring: Ram::with_layout(2 * beats, beat_shift + 1, stored, p.fpga),
            s_block: vec_of(slots),
            s_ref: vec_of(slots),
            s_filled: vec_of(slots),
            s_error: vec_of(slots),
            s_pending: vec_of(slots),
            lane1: vec_of(n),
            lane2: vec_of(n),
            fl_copy: vec_of(n),
            er_copy: vec_of(n),
            rdv1: vec_of(n),
            rdv2: vec_of(n),
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
            ref_num: (0..=n).map(|k| Constant::new((k as u64).into())).collect(),
            s_live: vec_of(slots),
            s_full: vec_of(slots),
            s_inc: vec_of(slots),
            s_eq: vec_of(slots),
            m_oh: vec_of(slots),
            f_oh: vec_of(slots),
            answer_depth: Constant::new((ANSWER_DEPTH as u64).into()),
            ref_max: Constant::new(((1u64 << REF_BITS) - 1).into()),
            ref_max_m1: Constant::new(((1u64 << REF_BITS) - 2).into()),
            base_mask: Constant::new((!(block_bytes - 1)).into()),
            block_shift: Constant::new(u64::from(block_bytes.trailing_zeros()).into()),
            beat_shift: Constant::new((beat_shift as u64).into()),
            beats: Constant::new((beats as u64).into()),
            beats_m1: Constant::new((beats as u64 - 1).into()),
            ring_mask: Constant::new((2 * beats as u64 - 1).into()),
            lane_mask: Constant::new(lane_mask.into()),
            word_index_mask: Constant::new(((1u64 << m.block_bits) - 1).into()),
            wpb_shift: Constant::new(u64::from(wpb.trailing_zeros()).into()),
            wpb_mask: Constant::new((wpb as u64 - 1).into()),
            word_shift: Constant::new(u64::from(m.word_bits.trailing_zeros()).into()),
            word_mask: Constant::new(((1u64 << m.word_bits) - 1).into()),
            line_mask: Constant::new(u64::from(m.cache_lines - 1).into()),
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
            self, clock, rr, cur_valid, cur_block, cur_port, cur_exempt, busy_q, ar_valid, ar_addr,
            r_beat, r_err, w_ptr, d_beat, d_ptr, p1_valid, p1_last, p1_slot, p1_block, p1_beat,
            p2_valid, p2_last, p2_slot, p2_block, p2_beat
        );
        for s in 0..self._slots {
            self.s_block[s].clock.next = self.clock.val();
            self.s_ref[s].clock.next = self.clock.val();
            self.s_filled[s].clock.next = self.clock.val();
            self.s_error[s].clock.next = self.clock.val();
            self.s_pending[s].clock.next = self.clock.val();
            self.s_lv[s].clock.next = self.clock.val();
            self.s_block[s].d.next = self.s_block[s].q.val();
            self.s_filled[s].d.next = self.s_filled[s].q.val();
            self.s_error[s].d.next = self.s_error[s].q.val();
            self.s_inc[s].clock.next = self.clock.val();
            self.s_eq[s].clock.next = self.clock.val();
            self.s_eq[s].d.next = self.s_eq[s].q.val();
        }
        for p in 0..self._ports {
            self.answers[p].clock.next = self.clock.val();
            self.answers[p].rst.next = self.rst.val();
            self.fill[p].clock.next = self.clock.val();
            self.lane1[p].clock.next = self.clock.val();
            self.lane2[p].clock.next = self.clock.val();
            self.rdv1[p].clock.next = self.clock.val();
            self.rdv2[p].clock.next = self.clock.val();
            self.fl_copy[p].clock.next = self.clock.val();
            self.er_copy[p].clock.next = self.clock.val();
        }
        self.arq.clock.next = self.clock.val();
        self.arq.rst.next = self.rst.val();
        self.ret.clock.next = self.clock.val();
        self.ret.rst.next = self.rst.val();
        self.done.clock.next = self.clock.val();
        self.done.rst.next = self.rst.val();
        self.ring.clock.next = self.clock.val();

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
        self.q_block.next = self.busy_block.val() & self.block_mask.val();
        self.h_block.next = self.hold_block.val() & self.block_mask.val();

        // ---- Request register against the slots. A slot is live while its count is not 0
        // or its fill or broadcast is pending; it is mergeable when live and not a failed
        // fill. On the way from the slots to the slots' next state everything is one-hot and
        // reduced without a priority chain of multiplexers: the matching slot `m_oh`, the
        // lowest free slot `f_oh`; slot numbers are encoded from them only for the outputs.
        self.hit.next = false;
        self.busy_any.next = false;
        for s in 0..self._slots {
            self.s_live[s].next = self.s_lv[s].q.val();
            self.s_full[s].next = (self.s_ref[s].q.val() == self.ref_max.val())
                | (self.s_inc[s].q.val() & (self.s_ref[s].q.val() == self.ref_max_m1.val()));
            self.m_oh[s].next = self.s_live[s].val()
                & !(self.s_filled[s].q.val() & self.s_error[s].q.val())
                & self.s_eq[s].q.val();
            if (self.s_block[s].q.val() == self.q_block.val()) & self.s_live[s].val() {
                self.busy_any.next = true;
            }
        }
        // The lowest free slot, by groups of `FREE_GROUP` slots, without a chain through the
        // slots: a slot is the lowest free one when it is free, no slot below it in its group
        // is free and no group below its group holds a free slot (each a reduction of the
        // free flags under a constant mask, `free_vec` and `g_vec`).
        self.free_vec.next = 0.into();
        for s in 0..self._slots {
            if !self.s_live[s].val() {
                self.free_vec.next = self.free_vec.val() | self.slot_bit[s].val();
            }
        }
        self.g_vec.next = 0.into();
        for s in 0..self._slots {
            if (self.free_vec.val() & self.group_mask[s].val()).any() {
                self.g_vec.next = self.g_vec.val() | self.group_bit[s].val();
            }
        }
        self.hit_full.next = false;
        self.hit_slot.next = 0.into();
        self.free_slot.next = 0.into();
        for s in 0..self._slots {
            self.hit.next = self.hit.val() | self.m_oh[s].val();
            self.hit_full.next = self.hit_full.val() | (self.m_oh[s].val() & self.s_full[s].val());
            self.f_oh[s].next = !self.s_live[s].val()
                & !(self.free_vec.val() & self.group_below[s].val()).any()
                & !(self.g_vec.val() & self.groups_below[s].val()).any();
            if self.m_oh[s].val() {
                self.hit_slot.next = self.hit_slot.val() | self.slot_num[s].val();
            }
            if self.f_oh[s].val() {
                self.free_slot.next = self.free_slot.val() | self.slot_num[s].val();
            }
        }
        self.free_found.next = self.g_vec.val().any();
        self.blocked.next = self.hold_valid.val()
            & (self.h_block.val() == self.cur_block.q.val())
            & !self.cur_exempt.q.val();
        self.room.next = false;
        for p in 0..self._ports {
            if self.cur_port.q.val() == self.port_num[p].val() {
                self.room.next = self.answers[p].count.val() < self.answer_depth.val();
            }
        }
        self.go.next = self.cur_valid.q.val()
            & !self.blocked.val()
            & self.room.val()
            & ((self.hit.val() & !self.hit_full.val()) | (!self.hit.val() & self.free_found.val()));
        self.slot_out.next = self.free_slot.val();
        if self.hit.val() {
            self.slot_out.next = self.hit_slot.val();
        }
        self.merge.next = self.go.val() & self.hit.val();
        self.take_new.next = self.go.val() & !self.hit.val();
        self.taken_merged.next = self.merge.val();
        self.taken_new.next = self.take_new.val();
        self.taken_slot.next = self.slot_out.val();
        self.busy_q.d.next = self.busy_any.val()
            | (self.cur_valid.q.val()
                & self.cur_exempt.q.val()
                & (self.cur_block.q.val() == self.q_block.val()));
        self.busy.next = self.busy_q.q.val();

        // ---- The request register takes the arbiter's request when it is empty or its
        // request leaves at this edge.
        self.take.next = self.found.val() & (!self.cur_valid.q.val() | self.go.val());
        for p in 0..self._ports {
            self.req_ready[p].next = self.take.val() & (self.sel.val() == self.port_num[p].val());
        }
        if self.go.val() {
            self.cur_valid.d.next = false;
        }
        if !self.hold_valid.val() {
            self.cur_exempt.d.next = true;
        }
        if self.take.val() {
            self.cur_valid.d.next = true;
            self.cur_block.d.next = self.sel_block.val();
            self.cur_port.d.next = self.sel.val();
            self.cur_exempt.d.next =
                !(self.hold_valid.val() & (self.h_block.val() == self.sel_block.val()));
            self.rr.d.next = self.sel.val() + 1;
        }

        // ---- Answers, one queue per port.
        for p in 0..self._ports {
            self.answers[p].in_valid.next =
                self.go.val() & (self.cur_port.q.val() == self.port_num[p].val());
            self.answers[p].data_in.next = self.slot_out.val();
            self.answers[p].out_ready.next = self.ans_ready[p].val();
            self.ans_valid[p].next = self.answers[p].out_valid.val();
            self.ans_slot[p].next = self.answers[p].data_out.val();
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
            self.fill[p].write_enable.next = self.r_pop.val();
            self.fill[p].write_address.next =
                (bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.ret_slot.val())
                    << self.beat_shift.val())
                    | bit_cast::<RAM_ADDR_BITS, BEAT_BITS>(self.r_beat.q.val());
            self.fill[p].write_data.next = self.lane_data.val();
        }
        self.ring.write_enable.next = self.r_pop.val();
        self.ring.write_address.next = bit_cast::<RAM_ADDR_BITS, PTR_BITS>(self.w_ptr.q.val());
        self.ring.write_data.next = self.lane_data.val();
        if self.r_pop.val() {
            self.w_ptr.d.next = (self.w_ptr.q.val() + 1) & self.ring_mask.val();
            self.r_beat.d.next = self.r_beat.q.val() + 1;
            self.r_err.d.next = self.r_fail.val();
            if self.r_last.val() {
                self.r_beat.d.next = 0.into();
                self.r_err.d.next = false;
            }
        }
        self.done.in_valid.next = self.fill_done.val();
        // (`!r_fail` in a local first: inside the cast Verilog would widen before the NOT.)
        self.r_ok.next = !self.r_fail.val();
        self.done.data_in.next = (bit_cast::<DONE_BITS, 1>(self.r_ok.val().into()) << 29)
            | (bit_cast::<DONE_BITS, BLOCK_NUM_BITS>(self.ret_block.val()) << 8)
            | bit_cast::<DONE_BITS, SLOT_BITS>(self.ret_slot.val());

        // ---- Read queue and AR register.
        self.arq.in_valid.next = self.go.val() & !self.hit.val();
        self.arq.data_in.next = (bit_cast::<ARQ_BITS, BLOCK_NUM_BITS>(self.cur_block.q.val()) << 8)
            | bit_cast::<ARQ_BITS, SLOT_BITS>(self.free_slot.val());
        self.ar_load.next =
            self.arq.out_valid.val() & (!self.ar_valid.q.val() | self.arready.val());
        self.arq.out_ready.next = self.ar_load.val();
        self.a_block.next = self.arq.data_out.val().get_bits::<BLOCK_NUM_BITS>(8);
        self.a_addr.next = (self.state_base.val() & self.base_mask.val())
            + (bit_cast::<ADDR_BITS, BLOCK_NUM_BITS>(self.a_block.val()) << self.block_shift.val());
        self.ret.in_valid.next = self.ar_load.val();
        self.ret.data_in.next =
            (bit_cast::<RET_BITS, OFFSET_BITS>(self.a_addr.val().get_bits::<OFFSET_BITS>(0)) << 29)
                | bit_cast::<RET_BITS, ARQ_BITS>(self.arq.data_out.val());
        if self.ar_load.val() {
            self.ar_valid.d.next = true;
            self.ar_addr.d.next = self.a_addr.val();
        }
        if !self.ar_load.val() & self.arready.val() {
            self.ar_valid.d.next = false;
        }
        self.arvalid.next = self.ar_valid.q.val();
        self.araddr.next = self.ar_addr.q.val();
        self.arlen.next = self.c_arlen.val();
        self.arsize.next = self.c_arsize.val();
        self.arburst.next = 1.into();

        // ---- Broadcast: a good fill's beats from the ring, one a cycle; a failed fill's
        // beats skipped at once.
        self.d_good.next = self.done.data_out.val().get_bit(29);
        self.d_last.next = self.d_beat.q.val() == self.beats_m1.val();
        self.issue.next = self.done.out_valid.val() & self.d_good.val();
        self.skip.next = self.done.out_valid.val() & !self.d_good.val();
        self.done.out_ready.next = (self.issue.val() & self.d_last.val()) | self.skip.val();
        self.ring.read_address.next = bit_cast::<RAM_ADDR_BITS, PTR_BITS>(self.d_ptr.q.val());
        self.p1_valid.d.next = self.issue.val();
        self.p1_last.d.next = self.d_last.val();
        self.p1_slot.d.next = self.done.data_out.val().get_bits::<SLOT_BITS>(0);
        self.p1_block.d.next = self.done.data_out.val().get_bits::<BLOCK_NUM_BITS>(8);
        self.p1_beat.d.next = self.d_beat.q.val();
        if self.issue.val() {
            self.d_ptr.d.next = (self.d_ptr.q.val() + 1) & self.ring_mask.val();
            self.d_beat.d.next = self.d_beat.q.val() + 1;
            if self.d_last.val() {
                self.d_beat.d.next = 0.into();
            }
        }
        if self.skip.val() {
            self.d_ptr.d.next = (self.d_ptr.q.val() + self.beats.val()) & self.ring_mask.val();
        }
        self.p2_valid.d.next = self.p1_valid.q.val();
        self.p2_last.d.next = self.p1_last.q.val();
        self.p2_slot.d.next = self.p1_slot.q.val();
        self.p2_block.d.next = self.p1_block.q.val();
        self.p2_beat.d.next = self.p1_beat.q.val();
        self.cw_valid.next = self.p2_valid.q.val();
        self.cw_last.next = self.p2_last.q.val();
        self.cw_block.next = self.p2_block.q.val();
        self.cw_line.next = self.p2_block.q.val() & self.line_mask.val();
        self.cw_beat.next = self.p2_beat.q.val();
        // 0 between beats: the ring's words are not initialised (an X in an event-driven
        // simulator until written).
        self.cw_out.next = self.ring.read_data.val();
        if !self.p2_valid.q.val() {
            self.cw_out.next = 0.into();
        }
        self.cw_data.next = self.cw_out.val();

        // ---- Slot updates.
        for s in 0..self._slots {
            // The count moves by `inc - dec` (one addition of a small two's complement delta,
            // not one adder per port); `inc` is the request register's take of the edge before.
            self.inc_d.next = (self.merge.val() & self.m_oh[s].val())
                | (self.take_new.val() & self.f_oh[s].val());
            self.inc.next = self.s_inc[s].q.val();
            self.dec.next = 0.into();
            for p in 0..self._ports {
                if self.rel_valid[p].val() & (self.rel_slot[p].val() == self.slot_num[s].val()) {
                    self.dec.next = self.dec.val() + 1;
                }
            }
            self.ref_d.next = self.s_ref[s].q.val()
                + (bit_cast::<REF_BITS, 1>(self.inc.val().into())
                    - bit_cast::<REF_BITS, 3>(self.dec.val()));
            // `ref_d == 0` without the adder after the releases: `s_ref + inc` (registers)
            // compared with each possible release count, the one of `dec` picked.
            self.ref_t.next =
                self.s_ref[s].q.val() + bit_cast::<REF_BITS, 1>(self.inc.val().into());
            self.ref_z.next = false;
            for k in 0..self.dec_num.len() {
                if (self.dec.val() == self.dec_num[k].val())
                    & (self.ref_t.val() == self.ref_num[k].val())
                {
                    self.ref_z.next = true;
                }
            }
            // A free slot's block does not count (it is not live): the lowest free slot takes
            // the request's block whether or not the request takes it.
            if self.f_oh[s].val() {
                self.s_block[s].d.next = self.cur_block.q.val();
            }
            // The blocks of the request register and of the slot after this edge.
            if self.take.val() {
                self.s_eq[s].d.next = self.s_block[s].q.val() == self.sel_block.val();
                if self.f_oh[s].val() {
                    self.s_eq[s].d.next = self.cur_block.q.val() == self.sel_block.val();
                }
            } else if self.f_oh[s].val() {
                self.s_eq[s].d.next = true;
            }
            self.pend_d.next = self.s_pending[s].q.val();
            if self.take_new.val() & self.f_oh[s].val() {
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
            if self.p2_valid.q.val()
                & self.p2_last.q.val()
                & (self.p2_slot.q.val() == self.slot_num[s].val())
            {
                self.pend_d.next = false;
            }
            if self.rst.val() {
                self.ref_d.next = 0.into();
                self.inc_d.next = false;
                self.s_filled[s].d.next = false;
                self.s_error[s].d.next = false;
                self.pend_d.next = false;
            }
            self.s_ref[s].d.next = self.ref_d.val();
            self.s_inc[s].d.next = self.inc_d.val();
            self.s_pending[s].d.next = self.pend_d.val();
            // Live after this edge, as `s_live` was read from the count, `s_inc` and
            // `s_pending`.
            self.s_lv[s].d.next =
                (!self.ref_z.val() & !self.rst.val()) | self.inc_d.val() | self.pend_d.val();
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
            self.fl_copy[p].d.next = self.fl_vec.val();
            self.er_copy[p].d.next = self.er_vec.val();
            if self.rst.val() {
                self.fl_copy[p].d.next = 0.into();
                self.er_copy[p].d.next = 0.into();
            }
            self.x_slot.next = self.rd_slot[p].val();
            self.x_word.next =
                (self.rd_word[p].val() & self.word_index_mask.val()) >> self.wpb_shift.val();
            self.x_lane.next = self.lane2[p].q.val();
            self.x_data.next = self.fill[p].read_data.val();
            self.fill[p].read_address.next =
                (bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.x_slot.val()) << self.beat_shift.val())
                    | bit_cast::<RAM_ADDR_BITS, WORD_INDEX_BITS>(self.x_word.val());
            self.lane1[p].d.next = self.rd_word[p].val() & self.wpb_mask.val();
            self.lane2[p].d.next = self.lane1[p].q.val();
            self.x_out.next = bit_cast::<WORD_BITS_MAX, MEM_DATA_BITS>(
                self.x_data.val()
                    >> (bit_cast::<16, WORD_INDEX_BITS>(self.x_lane.val())
                        << self.word_shift.val()),
            ) & self.word_mask.val();
            if !self.rdv2[p].q.val() {
                self.x_out.next = 0.into();
            }
            self.rd_data[p].next = self.x_out.val();
            self.st_filled.next = false;
            self.st_error.next = false;
            for s in 0..self._slots {
                if self.rd_slot[p].val() == self.slot_num[s].val() {
                    self.st_filled.next = self.st_filled.val()
                        | (self.fl_copy[p].q.val() & self.slot_bit[s].val()).any();
                    self.st_error.next = self.st_error.val()
                        | (self.er_copy[p].q.val() & self.slot_bit[s].val()).any();
                }
            }
            self.rd_filled[p].next = self.st_filled.val();
            self.rdv1[p].d.next = self.st_filled.val();
            self.rdv2[p].d.next = self.rdv1[p].q.val();
            self.rd_error[p].next = self.st_error.val();
        }

        self.unused_counts.next =
            self.arq.count.val().any() | self.ret.count.val().any() | self.done.count.val().any();

        if self.rst.val() {
            self.rr.d.next = 0.into();
            self.cur_valid.d.next = false;
            self.busy_q.d.next = false;
            self.ar_valid.d.next = false;
            self.r_beat.d.next = 0.into();
            self.r_err.d.next = false;
            self.w_ptr.d.next = 0.into();
            self.d_beat.d.next = 0.into();
            self.d_ptr.d.next = 0.into();
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
        }
    }
}
