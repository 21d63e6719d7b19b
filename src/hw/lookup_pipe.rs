//! `LookupPipe`: one lookup pipeline, from a request stream to a response stream, for every
//! mode: flat, two_level with the directory on chip, and two_level with the directory in
//! memory (where the pipe also asks [`DirFetch`](super::dir_fetch::DirFetch) for the entry).
//!
//! ```text
//!            +----------+         +-----------+         +-----------------+    +-----------+
//!  req  ---->| s0: RAM  |-------->| s1: latch |-------->| s2: the words,  |--->| s3: the   |--+
//!  (qpn,tag) | reads    | (RAMs'  | the words |         | as they are     |    | lookup,   |  |
//!            +----------+ output  +-----------+         +-----------------+    | the checks|  |
//!                         regs)                            | in_memory: passed +-----------+  |
//!                                                          v the checks         status |      |
//!                                             dir read requests --> DirFetch   chosen  v      |
//!                                                                    |       +-------+ empty: |
//!                                                                    |       | queue |-bypass-+--> rsp
//!                                                                    +------>| (in   |   (head
//!                                                                   results  | order)|   ready?)
//!                                                                            +-------+
//! ```
//!
//! | stage | edge | what happens |
//! |---|---|---|
//! | s0 | `t` (request handshake) | the index addresses this port's copy of the state RAM (and in two_level on_chip its page's directory entry); qpn and tag are registered into s1 |
//! | s1 | `t + 1` | the RAM words are registered in the RAMs' output registers (no path runs from a block RAM's array into the checks); meanwhile what needs only the qpn is computed: the range check, the offset `index_in_page * entry_bytes`, and in flat mode the address `TABLE_BASE + offset` |
//! | s2 | before `t + 2` | the inputs of the checks enter s3, each one LUT from the RAM words (the state word is not VALID; the generations differ, per bit pair) or as they are (the range check, the page's present bit); on_chip: the address `page base + offset`; directory in memory: the checks decide whether the lookup reads its directory entry |
//! | s3 | from `t + 2` | range, state, generation (an OR of the pair flags) and page checks in SPEC order choose the status; the lookup is the response if the queue is empty (bypass), else it enters the queue at edge `t + 3`, behind the lookups there |
//! | out | from `t + 2` | the queue's head (s3 when the queue is empty) is offered on the response stream, its address zeroed unless its status is OK: flat and on_chip, `rsp_valid` is first sampled high at edge `t + 3` (latency 3, SPEC §7: flat <= 3) |
//!
//! s3 leaves one LUT level between the block RAMs' output registers (spread over the die)
//! and a register: the checks' reductions over the whole RAM word, and the address zeroing,
//! which needs the status, come after it, and no latency is added (the queue is bypassed
//! when empty). The generation compare is split so: per bit pair before s3 (a LUT4 of the
//! word's two bits and the qpn's two), the OR of the pairs after it; the checks after s3
//! were five levels deep with the whole compare there. The
//! address is zeroed at the output, not before the queue: the status then drives three bits
//! of the queue, not the 64 bits of the address.
//!
//! **Directory in memory.** A lookup that passed the on-chip checks is queued with `need`
//! set and its offset in the page, and sends a directory read request (`TABLE_BASE +
//! (index >> leaf_bits) * 8`, bits `[2:0]` of TABLE_BASE ignored) to the shared `DirFetch`;
//! lookups that fail the checks never touch memory (SPEC §1, fail fast). The read request
//! is registered after the checks (`d3`, so the checks end at one flip-flop) and offered to
//! the DirFetch from there while the read request queue (distributed RAM, its head read
//! ahead into registers: [`MemFifo::head_registered`]) is empty, else pushed behind its tail:
//! the DirFetch sees the same requests at the same cycles as if the request entered the
//! queue at the edge after s2.
//! The memory is read with one AXI ID, so it answers in AR order; `DirFetch` issues each
//! port's reads in the port's order, so the directory entries come back in this port's
//! request order and wait in a result queue. The queue's head leaves when it needs no
//! entry, or when the result queue holds its entry: the status is then PAGE_ABSENT (bit 0
//! clear) or MEM_ERROR (AXI error, [`DIR_ERROR_BIT`]) or OK with `page_base + offset`.
//! Latency: memory latency + 5 (s1, s2, the AR register, the AR handshake, the result
//! queue), + 6 with a state RAM of two rows of block RAMs (index_bits 15) and + 7 with more
//! (index_bits > 15: [`in_memory_extra_latency`]), whose word is registered once more after
//! the row multiplexer, and with more than two rows once more in its middle
//! ([`Ram::row_registered`]), while the lookup waits in `sx`: the routes from its blocks,
//! spread over the die, then end at a flip-flop after at most one multiplexer instead of
//! running on through the checks.
//!
//! **State in memory** ([`EngineParams::state_mem`], SPEC §9). The pipe has no state RAM (a
//! one-word stand-in, never written, whose checks go unused); its child
//! [`StateCache`] reads the port's `live` filter and cache copies at s0, decides in s2 and s3
//! (OUT_OF_RANGE, NOT_ALLOCATED from the `live` bit, a cache hit checked now, or a miss
//! queued with `need` and sent to the shared miss unit), holds every lookup in its wait
//! queue ([`wait_queue_depth`] entries, which is then the credit) and drains it in order
//! into s3 (with no checks: its status is final) and `queue`, which is then the response
//! queue ([`RSP_FIFO_DEPTH`] entries; the cache's room check counts s3 with it) and answers
//! as in flat mode. Its ports are the pipe's `live_*`, `tag_*`, `data_*`, `mreq_*`, `ans_*`,
//! `rd_*`, `rel_*` and the pulses `filtered`, `hit`, `miss` (one each, none otherwise; see
//! [`StateCache`] for their meaning and timing). Latency on a hit: 7.
//!
//! **State and directory in memory** (two_level, SPEC §9: "either directory"). The cache
//! drains lookups final as far as the state goes; one whose status is OK (range, `live`,
//! state and generation passed) enters s3 with `need` and sends its directory read at
//! the same edge (the address from its qpn), any other enters without `need` and never reads
//! the directory (fail fast): PAGE_ABSENT only after the state checks, MEM_ERROR from the
//! block fetch or from the directory read. `queue` (and the read request and result queues)
//! are then [`queue_depth`] deep ([`rsp_queue_depth`]), the cache's `out_count` room check
//! uses that depth, and the credit is the cache's wait queue
//! ([`wait_queue_depth`]: the larger of the two), so no
//! queue overflows and `rready` stays high. The shared [`DirFetch`](super::dir_fetch::DirFetch)
//! reads through the top level's [`ReadArb`](super::read_arb::ReadArb) with AXI ID 2.
//! Latency on a hit: 7 + the directory read (memory latency + about 5).
//!
//! Ready/valid contract: `req_ready` is computed from registers only (`init_done`, with the
//! state in memory `live_steal`, the command engine's `live_we` register, and
//! `room`: `flight`, the lookups in s1, s2, s3 and the queue, up at a request handshake and down
//! at a response handshake, is below the queue's depth) and the synchronous reset, never from
//! `rsp_ready`. A request is
//! granted only while fewer lookups than the queue's depth are in flight, so no queue
//! overflows (and the result queue always has room for a read's data: `rready` stays high);
//! with an always-ready consumer the pipe takes one request per cycle (II = 1). Responses
//! leave in request order. The command engine's drain counts this pipe's lookups in flight
//! (`in_flight`, `req_fire`, `rsp_fire`).
//!
//! Hazards: a command's write at the same edge as a request's RAM read is not seen by that
//! request (read-first): a lookup sees the state as of the edge of its request handshake.
//!
//! Counters (SPEC §6, per port): [`LookupCounters`], at the response handshake.

use super::codes::{StateCodes, StatusCodes};
use super::defaults;
use super::lookup_counters::{LookupCounters, LookupCounts};
use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::miss_unit::{BLOCK_NUM_BITS, MEM_DATA_BITS, SLOT_BITS, WORD_BITS_MAX, WORD_INDEX_BITS};
use super::ram::{Ram, RAM_ADDR_BITS};
use super::state_cache::{wait_queue_depth, StateCache};
use super::{
    DirEntry, EngineParams, StateEntry, ADDR_BITS, GEN_BITS_MAX, PAGE_BITS, QPN_BITS, TAG_BITS,
};
use crate::spec::{dir_entry, STATUS_BITS};
use rust_hdl::prelude::*;

/// Entries of the response queue when the directory is not in memory.
pub const RSP_FIFO_DEPTH: usize = 4;

/// Bit of a directory read result that marks an AXI error (a reserved bit of the entry,
/// SPEC §5, which [`DirFetch`](super::dir_fetch::DirFetch) replaces).
pub const DIR_ERROR_BIT: u32 = 1;

/// Depth of the queues of a pipe whose directory is in memory, for `max_outstanding` reads
/// in flight: a power of two >= max_outstanding + 4, at most 512.
pub fn queue_depth(max_outstanding: u32) -> usize {
    ((max_outstanding as usize) + 4)
        .next_power_of_two()
        .min(512)
}

/// Cycles a lookup whose directory is in memory takes beyond the memory latency (request
/// handshake to response valid, an idle memory port): s1, the pipe's state RAM read
/// ([`EngineParams::lookup_state_ram`]: 2 edges, 3 through its row register, 4 through its
/// two), the AR register, the AR handshake, the result queue: 5, or 6 with the row register
/// (more than one row of block RAMs, index_bits 15), or 7 with two (more than two rows,
/// index_bits > 15).
pub fn in_memory_extra_latency(p: &EngineParams) -> u64 {
    3 + p.lookup_state_ram().latency() as u64
}

/// Depth of the pipe's response queue (`queue`): [`queue_depth`] when the directory is in
/// memory (its lookups wait there for their directory entries), else [`RSP_FIFO_DEPTH`].
pub fn rsp_queue_depth(p: &EngineParams) -> usize {
    if p.dir_in_memory() {
        queue_depth(p.max_outstanding)
    } else {
        RSP_FIFO_DEPTH
    }
}

/// What s3 keeps of a lookup that left s2, besides its [`QueuedLookup`]: the inputs of
/// the checks, each one LUT level from the RAMs' output registers (so that one level of
/// logic lies between those registers and s3, and the checks after s3 are a reduction and
/// the status priority).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct S3Words {
    /// The state word is not VALID.
    pub not_valid: Bit,
    /// The generations differ in bit pair `k` (bits `2k` and `2k + 1`), kept in bit `2k`:
    /// each bit one LUT of the word's two bits and the qpn's two; the odd bits are 0.
    pub gen_pairs: Bits<QPN_BITS>,
    /// The page's directory entry is present (two_level on_chip; 1 otherwise).
    pub present: Bit,
    pub out_of_range: Bit,
}

/// One lookup in the pipe's queue, waiting for its response.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct QueuedLookup {
    /// Flat and on_chip: the context's address (`base + offset`). Directory in memory: the
    /// context's offset in its page.
    pub offset: Bits<ADDR_BITS>,
    /// Directory in memory: the lookup passed the on-chip checks and waits for its entry.
    pub need: Bit,
    /// The final status unless `need` is set.
    pub status: Bits<STATUS_BITS>,
    pub tag: Bits<TAG_BITS>,
    pub qpn: Bits<QPN_BITS>,
}

#[derive(LogicBlock)]
pub struct LookupPipe {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub init_done: Signal<In, Bit>,
    pub table_base: Signal<In, Bits<ADDR_BITS>>,
    // Request stream.
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_qpn: Signal<In, Bits<QPN_BITS>>,
    pub req_tag: Signal<In, Bits<TAG_BITS>>,
    // Response stream.
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_ready: Signal<In, Bit>,
    pub rsp_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub rsp_tag: Signal<Out, Bits<TAG_BITS>>,
    pub rsp_status: Signal<Out, Bits<STATUS_BITS>>,
    pub rsp_addr: Signal<Out, Bits<ADDR_BITS>>,
    // Write port of this pipe's copy of the state RAM (driven by the command engine).
    pub ram_we: Signal<In, Bit>,
    pub ram_waddr: Signal<In, Bits<QPN_BITS>>,
    pub ram_wdata: Signal<In, StateEntry>,
    // Write port of this pipe's copy of the on-chip directory (one in two_level on_chip,
    // none otherwise).
    pub dir_we: Vec<Signal<In, Bit>>,
    pub dir_waddr: Vec<Signal<In, Bits<RAM_ADDR_BITS>>>,
    pub dir_wdata: Vec<Signal<In, DirEntry>>,
    // Directory in memory (one each, none otherwise): read requests to the DirFetch (byte
    // address of the entry), and the entries read, in this port's order, with
    // [`DIR_ERROR_BIT`] set for an AXI error.
    pub dreq_valid: Vec<Signal<Out, Bit>>,
    pub dreq_ready: Vec<Signal<In, Bit>>,
    pub dreq_addr: Vec<Signal<Out, Bits<ADDR_BITS>>>,
    pub cpl_valid: Vec<Signal<In, Bit>>,
    pub cpl_data: Vec<Signal<In, Bits<64>>>,
    // Drain accounting.
    pub req_fire: Signal<Out, Bit>,
    pub rsp_fire: Signal<Out, Bit>,
    pub in_flight: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    /// Counters (PAGE_ABSENT stays 0 in flat, MEM_ERROR unless the directory or the state
    /// is in memory).
    pub counts: Signal<Out, LookupCounts>,
    // State in memory (one each, none otherwise): the ports of the [`StateCache`], see there.
    /// The read of the port's `live` filter ([`LiveFilter`](super::live_filter::LiveFilter),
    /// outside the pipe: shared by two ports): the block at s0, its bit in s2.
    pub live_raddr: Vec<Signal<Out, Bits<BLOCK_NUM_BITS>>>,
    pub live_rdata: Vec<Signal<In, Bit>>,
    /// The command engine writes the filter through this port's RAM port at the next edge
    /// (the engine's `live_we` register, or 0 when the port reads the read-only port): no
    /// request is taken at that edge (`req_ready` low for the cycle).
    pub live_steal: Vec<Signal<In, Bit>>,
    pub tag_we: Vec<Signal<In, Bit>>,
    pub tag_line: Vec<Signal<In, Bits<BLOCK_NUM_BITS>>>,
    pub tag_valid: Vec<Signal<In, Bit>>,
    pub tag_block: Vec<Signal<In, Bits<BLOCK_NUM_BITS>>>,
    pub data_we: Vec<Signal<In, Bit>>,
    pub data_row: Vec<Signal<In, Bits<RAM_ADDR_BITS>>>,
    pub data: Vec<Signal<In, Bits<MEM_DATA_BITS>>>,
    pub mreq_valid: Vec<Signal<Out, Bit>>,
    pub mreq_ready: Vec<Signal<In, Bit>>,
    pub mreq_block: Vec<Signal<Out, Bits<BLOCK_NUM_BITS>>>,
    pub ans_valid: Vec<Signal<In, Bit>>,
    pub ans_ready: Vec<Signal<Out, Bit>>,
    pub ans_slot: Vec<Signal<In, Bits<SLOT_BITS>>>,
    pub rd_slot: Vec<Signal<Out, Bits<SLOT_BITS>>>,
    pub rd_word: Vec<Signal<Out, Bits<WORD_INDEX_BITS>>>,
    pub rd_data: Vec<Signal<In, Bits<WORD_BITS_MAX>>>,
    pub rd_slot2: Vec<Signal<Out, Bits<SLOT_BITS>>>,
    pub rd_filled: Vec<Signal<In, Bit>>,
    pub rd_filled2: Vec<Signal<In, Bit>>,
    pub rd_error: Vec<Signal<In, Bit>>,
    pub rel_valid: Vec<Signal<Out, Bit>>,
    pub rel_slot: Vec<Signal<Out, Bits<SLOT_BITS>>>,
    pub filtered: Vec<Signal<Out, Bit>>,
    pub hit: Vec<Signal<Out, Bit>>,
    pub miss: Vec<Signal<Out, Bit>>,
    ram: Ram<StateEntry>,
    /// The on-chip directory copy: one in two_level on_chip mode, none otherwise.
    dirs: Vec<Ram<DirEntry>>,
    queue: MemFifo<QueuedLookup>,
    /// Directory in memory: the read requests and the entries read (one each).
    dreqs: Vec<MemFifo<Bits<ADDR_BITS>>>,
    results: Vec<MemFifo<Bits<64>>>,
    counters: LookupCounters,
    /// State in memory: the port's cache (one), none otherwise.
    caches: Vec<StateCache>,
    _dirs: usize,
    _mem: usize,
    _cache: usize,
    s1_valid: DFF<Bit>,
    s1_qpn: DFF<Bits<QPN_BITS>>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    /// With the state RAM's row registers ([`Ram::row_registered`]: directory in memory, a
    /// state RAM of more than one row of block RAMs), the lookup waits one more edge here per
    /// register while its word goes through them (`_sx` stages: 1, or 2 with more than two
    /// rows); none otherwise.
    sx_valid: Vec<DFF<Bit>>,
    sx_qpn: Vec<DFF<Bits<QPN_BITS>>>,
    sx_tag: Vec<DFF<Bits<TAG_BITS>>>,
    _sx: usize,
    /// The lookup whose words the RAMs register at the next edge: s1's, or with the row
    /// registers the last sx's.
    p1_valid: Signal<Local, Bit>,
    p1_qpn: Signal<Local, Bits<QPN_BITS>>,
    p1_tag: Signal<Local, Bits<TAG_BITS>>,
    s2_valid: DFF<Bit>,
    s2_qpn: DFF<Bits<QPN_BITS>>,
    s2_tag: DFF<Bits<TAG_BITS>>,
    /// Computed in s1 from the qpn alone (while the RAMs read): flat, the address
    /// `TABLE_BASE + offset`; two_level, the offset in the page.
    s2_pre: DFF<Bits<ADDR_BITS>>,
    /// Computed in s1 from the qpn alone: the index is out of range.
    s2_oor: DFF<Bit>,
    /// The lookup that left s2 (or the cache) at the last edge: the response when the queue
    /// is empty (bypass), else it enters the queue at the next edge. Its checks run after
    /// it (`s3_words`, one LUT from the RAMs' output registers).
    s3_valid: DFF<Bit>,
    s3_lookup: DFF<QueuedLookup>,
    s3_words: DFF<S3Words>,
    /// Lookups in s1, s2, s3 and the queue.
    flight: DFF<Bits<FIFO_COUNT_BITS>>,
    /// `flight` below the queue's depth, kept in a register (its next value is chosen among comparisons of
    /// `flight` made in parallel), so that `req_ready` is a register and no comparison runs
    /// between a request handshake and the registers it enables.
    room: DFF<Bit>,
    /// The state RAM word and the directory entry, from the RAMs' output registers.
    s2_entry: Signal<Local, StateEntry>,
    dir_rd: Signal<Local, DirEntry>,
    s0_fire: Signal<Local, Bit>,
    /// State in memory: the engine takes the `live` port at this edge (else 0).
    steal: Signal<Local, Bit>,
    s1_wide_index: Signal<Local, Bits<ADDR_BITS>>,
    s1_offset: Signal<Local, Bits<ADDR_BITS>>,
    s2_gen: Signal<Local, Bits<QPN_BITS>>,
    s2_entry_gen: Signal<Local, Bits<QPN_BITS>>,
    s2_gen_diff: Signal<Local, Bits<QPN_BITS>>,
    s2_status: Signal<Local, Bits<STATUS_BITS>>,
    s2_ok: Signal<Local, Bit>,
    s2_base: Signal<Local, Bits<ADDR_BITS>>,
    s2_page: Signal<Local, Bits<ADDR_BITS>>,
    s2_lookup: Signal<Local, QueuedLookup>,
    s2_words: Signal<Local, S3Words>,
    /// s3's checks: its lookup with its status.
    s3_status: Signal<Local, Bits<STATUS_BITS>>,
    s3_final: Signal<Local, QueuedLookup>,
    /// The queue is empty: s3 is the head.
    bypass: Signal<Local, Bit>,
    head_valid: Signal<Local, Bit>,
    head: Signal<Local, QueuedLookup>,
    /// The head's directory entry (0 unless the directory is in memory).
    result: Signal<Local, Bits<64>>,
    result_valid: Signal<Local, Bit>,
    /// The head waits for a directory entry.
    head_need: Signal<Local, Bit>,
    out_valid: Signal<Local, Bit>,
    status_out: Signal<Local, Bits<STATUS_BITS>>,
    /// The head's address before zeroing, and the response address.
    addr_full: Signal<Local, Bits<ADDR_BITS>>,
    addr_out: Signal<Local, Bits<ADDR_BITS>>,
    fire: Signal<Local, Bit>,
    /// The byte address of the lookup's directory entry (used when the directory is in memory).
    s2_dreq_addr: Signal<Local, Bits<ADDR_BITS>>,
    /// What the queue and s3 hold, for the cache's room check.
    /// The lookup that enters s3 at the next edge (from s2, or from the cache).
    q_valid: Signal<Local, Bit>,
    q_lookup: Signal<Local, QueuedLookup>,
    /// The lookup that sends a directory read at the next edge (used when the directory is
    /// in memory), and its qpn.
    d_valid: Signal<Local, Bit>,
    d_qpn: Signal<Local, Bits<QPN_BITS>>,
    /// Directory in memory: the read request of the lookup that left s2 (or the cache) at the
    /// last edge, registered after the checks (`d_valid`) so that they end at one flip-flop;
    /// offered to the DirFetch directly while the read request queue is empty, else pushed
    /// behind its tail (the queue and this register together hold what the queue alone held
    /// before: same order, same cycle at the DirFetch).
    d3_valid: DFF<Bit>,
    d3_addr: DFF<Bits<ADDR_BITS>>,
    /// `d3` is offered directly (the read request queue is empty), and the request offered.
    d3_direct: Signal<Local, Bit>,
    d3_out_addr: Signal<Local, Bits<ADDR_BITS>>,
    /// State in memory: the lookup the cache drains (the s2 lookup, unused, otherwise), and
    /// whether it passed the state checks.
    c_valid: Signal<Local, Bit>,
    c_lookup: Signal<Local, QueuedLookup>,
    c_ok: Signal<Local, Bit>,
    /// The queues' fill levels are not needed (credit counts `flight`), nor the directory
    /// entry's address unless the directory is in memory; the name tells the lint so.
    unused_counts_addr: Signal<Local, Bit>,
    status: StatusCodes,
    state: StateCodes,
    two_level: Constant<Bit>,
    in_memory: Constant<Bit>,
    state_in_memory: Constant<Bit>,
    index_mask: Constant<Bits<QPN_BITS>>,
    /// The even bits of a QPN-wide word (see [`S3Words::gen_pairs`]).
    pair_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<5>>,
    leaf_mask: Constant<Bits<QPN_BITS>>,
    leaf_bits: Constant<Bits<5>>,
    max_qps: Constant<Bits<25>>,
    base_shift: Constant<Bits<ADDR_BITS>>,
    /// The queue's depth less one: `room` stays set after a request when `flight` is below it.
    credit_less_one: Constant<Bits<FIFO_COUNT_BITS>>,
    entry_base_mask: Constant<Bits<ADDR_BITS>>,
    entry_shift: Constant<Bits<ADDR_BITS>>,
    page_mask: Constant<Bits<64>>,
    present_bit: Constant<Bits<6>>,
    error_bit: Constant<Bits<6>>,
    // index * entry_bytes = sum over k of (index << (5 + k)) where bit k of entry_bytes / 32
    // is set: each mask is all ones or zero, so synthesis keeps only the terms that exist.
    mul_mask0: Constant<Bits<ADDR_BITS>>,
    mul_mask1: Constant<Bits<ADDR_BITS>>,
    mul_mask2: Constant<Bits<ADDR_BITS>>,
    mul_mask3: Constant<Bits<ADDR_BITS>>,
    mul_mask4: Constant<Bits<ADDR_BITS>>,
    mul_mask5: Constant<Bits<ADDR_BITS>>,
    mul_mask6: Constant<Bits<ADDR_BITS>>,
    mul_mask7: Constant<Bits<ADDR_BITS>>,
}

impl LookupPipe {
    pub fn new(p: &EngineParams) -> Self {
        let mem = usize::from(p.dir_in_memory());
        let dirs = p.on_chip_dirs();
        let cache = usize::from(p.state_mem.is_some());
        // The credit: the lookups in flight are held by the queue this deep (with the state
        // in memory, the cache's wait queue), and the response queue.
        let depth = match p.state_mem {
            Some(m) => wait_queue_depth(p, &m),
            None => rsp_queue_depth(p),
        };
        let rsp_depth = rsp_queue_depth(p);
        let mul = p.entry_bytes / 32;
        let mask = |k: u32| -> Constant<Bits<ADDR_BITS>> {
            Constant::new(if mul >> k & 1 == 1 { u64::MAX } else { 0 }.into())
        };
        let leaf = p.leaf_bits.unwrap_or(p.index_bits);
        let ram = p.lookup_state_ram();
        let sx = ram.latency() - 2;
        block_new!(
            [
                clock, rst, init_done, table_base, req_valid, req_ready, req_qpn, req_tag,
                rsp_valid, rsp_ready, rsp_qpn, rsp_tag, rsp_status, rsp_addr, ram_we, ram_waddr,
                ram_wdata, req_fire, rsp_fire, in_flight, counts, s1_valid, s1_qpn, s1_tag,
                s2_valid, s2_qpn, s2_tag, s2_pre, s2_oor, s3_valid, s3_lookup, s3_words, flight,
                room, s2_entry, dir_rd, s0_fire, steal, s1_wide_index, s1_offset, s2_gen,
                s2_entry_gen, s2_status, s2_ok, s2_base, s2_page, s2_lookup, s2_words,
                s2_gen_diff, s3_status, s3_final, bypass, head_valid, head, result,
                result_valid, head_need, out_valid, status_out, addr_full, addr_out, fire,
                s2_dreq_addr, q_valid, q_lookup, d_valid, d_qpn, c_valid, c_lookup, c_ok,
                unused_counts_addr, status, state,
                d3_valid, d3_addr, d3_direct, d3_out_addr, p1_valid, p1_qpn, p1_tag,
            ]
            dir_we: defaults(dirs),
            dir_waddr: defaults(dirs),
            dir_wdata: defaults(dirs),
            dreq_valid: defaults(mem),
            dreq_ready: defaults(mem),
            dreq_addr: defaults(mem),
            cpl_valid: defaults(mem),
            cpl_data: defaults(mem),
            live_raddr: defaults(cache),
            live_rdata: defaults(cache),
            live_steal: defaults(cache),
            tag_we: defaults(cache),
            tag_line: defaults(cache),
            tag_valid: defaults(cache),
            tag_block: defaults(cache),
            data_we: defaults(cache),
            data_row: defaults(cache),
            data: defaults(cache),
            mreq_valid: defaults(cache),
            mreq_ready: defaults(cache),
            mreq_block: defaults(cache),
            ans_valid: defaults(cache),
            ans_ready: defaults(cache),
            ans_slot: defaults(cache),
            rd_slot: defaults(cache),
            rd_word: defaults(cache),
            rd_data: defaults(cache),
            rd_slot2: defaults(cache),
            rd_filled: defaults(cache),
            rd_filled2: defaults(cache),
            rd_error: defaults(cache),
            rel_valid: defaults(cache),
            rel_slot: defaults(cache),
            filtered: defaults(cache),
            hit: defaults(cache),
            miss: defaults(cache),
            // State in memory: the queue is the response queue behind the cache's wait queue.
            ram: ram,
            dirs: (0..dirs).map(|_| p.dir_ram()).collect(),
            // The response queue is written ahead (its credit counts every lookup in flight,
            // s3 included, so it is never pushed while full): its write enable comes from a
            // flip-flop. With the directory in memory the queues are deep (lookups wait for
            // their entries): distributed RAM, so that no path runs from a block RAM's read
            // port, and the response queue's head is read ahead into registers
            // ([`MemFifo::head_registered`]): it decides the response handshake, the result
            // queue's pop and `flight`, which a LUT RAM read and its multiplexers before them
            // made the longest path of `configs/in_memory.toml` (ECP5, index_bits 14).
            queue: if mem == 1 {
                MemFifo::lut_ram(rsp_depth).head_registered()
            } else {
                MemFifo::new(rsp_depth).write_ahead()
            },
            // The read request queue's head goes through the DirFetch's port multiplexer into
            // its AR register: from registers (a LUT RAM read before it was the longest path
            // of configs/in_memory.toml at index_bits 16 once the state RAM's row
            // multiplexer was split).
            dreqs: (0..mem)
                .map(|_| MemFifo::lut_ram(rsp_depth).head_registered())
                .collect(),
            // The result queue's head decides, with the response queue's, the response and
            // its status (and the counters): from registers too.
            results: (0..mem)
                .map(|_| MemFifo::lut_ram(rsp_depth).head_registered())
                .collect(),
            counters: LookupCounters::new(p.leaf_bits.is_some(), mem + cache > 0),
            caches: p.state_mem.iter().map(|m| StateCache::new(p, m)).collect(),
            _dirs: dirs,
            _mem: mem,
            _cache: cache,
            two_level: Constant::new(p.leaf_bits.is_some()),
            in_memory: Constant::new(mem == 1),
            state_in_memory: Constant::new(cache == 1),
            sx_valid: (0..sx).map(|_| Default::default()).collect(),
            sx_qpn: (0..sx).map(|_| Default::default()).collect(),
            sx_tag: (0..sx).map(|_| Default::default()).collect(),
            _sx: sx,
            index_mask: Constant::new(p.index_mask().into()),
            pair_mask: Constant::new(0x55_5555u64.into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            leaf_mask: Constant::new(((1u64 << leaf) - 1).into()),
            leaf_bits: Constant::new(u64::from(leaf).into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            base_shift: Constant::new(u64::from(dir_entry::BASE_SHIFT).into()),
            credit_less_one: Constant::new((depth as u64 - 1).into()),
            entry_base_mask: Constant::new((!(dir_entry::BYTES - 1)).into()),
            entry_shift: Constant::new(u64::from(dir_entry::BYTES.trailing_zeros()).into()),
            page_mask: Constant::new(dir_entry::BASE_MASK.into()),
            present_bit: Constant::new(u64::from(dir_entry::PRESENT_BIT).into()),
            error_bit: Constant::new(u64::from(DIR_ERROR_BIT).into()),
            mul_mask0: mask(0),
            mul_mask1: mask(1),
            mul_mask2: mask(2),
            mul_mask3: mask(3),
            mul_mask4: mask(4),
            mul_mask5: mask(5),
            mul_mask6: mask(6),
            mul_mask7: mask(7),
        )
    }
}

impl Logic for LookupPipe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_qpn, s1_tag, s2_valid, s2_qpn, s2_tag, s2_pre, s2_oor,
            s3_valid, s3_lookup, s3_words, flight, room, d3_valid, d3_addr
        );
        self.ram.clock.next = self.clock.val();
        self.ram.write_enable.next = self.ram_we.val();
        self.ram.write_address.next = self.ram_waddr.val();
        self.ram.write_data.next = self.ram_wdata.val();
        self.queue.clock.next = self.clock.val();
        self.queue.rst.next = self.rst.val();

        // s0: grant on credit (fewer lookups in flight than the queue holds: `room`).
        self.steal.next = false;
        for c in 0..self._cache {
            self.steal.next = self.live_steal[c].val();
        }
        self.req_ready.next =
            self.init_done.val() & !self.rst.val() & self.room.q.val() & !self.steal.val();
        self.s0_fire.next = self.req_valid.val() & self.req_ready.val();
        self.req_fire.next = self.s0_fire.val();
        self.in_flight.next = self.flight.q.val();
        self.ram.read_address.next = self.req_qpn.val();
        // The directory entry of the index's page is read at the same edge; without an
        // on-chip directory every page is present.
        self.dir_rd.next.present = true;
        self.dir_rd.next.page = 0.into();
        for d in 0..self._dirs {
            self.dirs[d].clock.next = self.clock.val();
            self.dirs[d].read_address.next =
                (self.req_qpn.val() & self.index_mask.val()) >> self.leaf_bits.val();
            self.dirs[d].write_enable.next = self.dir_we[d].val();
            self.dirs[d].write_address.next = self.dir_waddr[d].val();
            self.dirs[d].write_data.next = self.dir_wdata[d].val();
            self.dir_rd.next = self.dirs[d].read_data.val();
        }
        self.s1_valid.d.next = self.s0_fire.val();
        if self.s0_fire.val() {
            self.s1_qpn.d.next = self.req_qpn.val();
            self.s1_tag.d.next = self.req_tag.val();
        }

        // With the state RAM's row registers, the lookup waits in sx for one more edge per
        // register (`p1` is the lookup at the end of the chain so far).
        self.p1_valid.next = self.s1_valid.q.val();
        self.p1_qpn.next = self.s1_qpn.q.val();
        self.p1_tag.next = self.s1_tag.q.val();
        for x in 0..self._sx {
            self.sx_valid[x].clock.next = self.clock.val();
            self.sx_qpn[x].clock.next = self.clock.val();
            self.sx_tag[x].clock.next = self.clock.val();
            self.sx_valid[x].d.next = self.p1_valid.val() & !self.rst.val();
            self.sx_qpn[x].d.next = self.p1_qpn.val();
            self.sx_tag[x].d.next = self.p1_tag.val();
            self.p1_valid.next = self.sx_valid[x].q.val();
            self.p1_qpn.next = self.sx_qpn[x].q.val();
            self.p1_tag.next = self.sx_tag[x].q.val();
        }

        // s1: the words read at the request's edge are registered (in the RAMs). Meanwhile
        // the offset, which needs only the qpn, is computed (and in flat mode the address),
        // so that s2 holds the checks and at most one addition.
        self.s2_valid.d.next = self.p1_valid.val();
        self.s2_qpn.d.next = self.p1_qpn.val();
        self.s2_tag.d.next = self.p1_tag.val();
        self.s2_entry.next = self.ram.read_data.val();
        self.s1_wide_index.next = bit_cast::<ADDR_BITS, QPN_BITS>(
            self.p1_qpn.val() & self.index_mask.val() & self.leaf_mask.val(),
        );
        self.s1_offset.next = ((self.s1_wide_index.val() << 5) & self.mul_mask0.val())
            + ((self.s1_wide_index.val() << 6) & self.mul_mask1.val())
            + ((self.s1_wide_index.val() << 7) & self.mul_mask2.val())
            + ((self.s1_wide_index.val() << 8) & self.mul_mask3.val())
            + ((self.s1_wide_index.val() << 9) & self.mul_mask4.val())
            + ((self.s1_wide_index.val() << 10) & self.mul_mask5.val())
            + ((self.s1_wide_index.val() << 11) & self.mul_mask6.val())
            + ((self.s1_wide_index.val() << 12) & self.mul_mask7.val());
        self.s2_oor.d.next = bit_cast::<25, QPN_BITS>(self.p1_qpn.val() & self.index_mask.val())
            >= self.max_qps.val();
        if self.two_level.val() {
            self.s2_pre.d.next = self.s1_offset.val();
        } else {
            self.s2_pre.d.next = self.table_base.val() + self.s1_offset.val();
        }

        // s2: checks in SPEC order (range, state, generation, page), and the offset.
        self.s2_gen.next = self.s2_qpn.q.val() >> self.index_bits.val();
        self.s2_entry_gen.next = bit_cast::<QPN_BITS, GEN_BITS_MAX>(self.s2_entry.val().gen);
        self.s2_gen_diff.next = self.s2_entry_gen.val() ^ self.s2_gen.val();
        self.s2_status.next = self.status.ok.val();
        if !self.dir_rd.val().present {
            self.s2_status.next = self.status.page_absent.val();
        }
        if self.s2_gen_diff.val().any() {
            self.s2_status.next = self.status.stale.val();
        }
        if self.s2_entry.val().state != self.state.valid.val() {
            self.s2_status.next = self.status.not_allocated.val();
        }
        if self.s2_oor.q.val() {
            self.s2_status.next = self.status.out_of_range.val();
        }
        self.s2_ok.next = self.s2_status.val() == self.status.ok.val();
        // What s3 keeps: the checks' inputs, one LUT from the words as read (the checks run
        // after s3).
        self.s2_words.next.not_valid = self.s2_entry.val().state != self.state.valid.val();
        self.s2_words.next.gen_pairs =
            (self.s2_gen_diff.val() | (self.s2_gen_diff.val() >> 1)) & self.pair_mask.val();
        self.s2_words.next.present = self.dir_rd.val().present;
        self.s2_words.next.out_of_range = self.s2_oor.q.val();
        // Flat: the address computed in s1. on_chip: the page base of the on-chip directory
        // plus the offset. Directory in memory: the queue keeps the offset and the base comes
        // with the directory entry.
        self.s2_base.next =
            bit_cast::<ADDR_BITS, PAGE_BITS>(self.dir_rd.val().page) << self.base_shift.val();
        self.s2_lookup.next.offset = self.s2_pre.q.val();
        if self.two_level.val() & !self.in_memory.val() {
            self.s2_lookup.next.offset = self.s2_base.val() + self.s2_pre.q.val();
        }
        self.s2_lookup.next.need = self.in_memory.val() & self.s2_ok.val();
        self.s2_lookup.next.status = self.status.ok.val();
        self.s2_lookup.next.tag = self.s2_tag.q.val();
        self.s2_lookup.next.qpn = self.s2_qpn.q.val();
        // What enters the queue, and which lookup reads its directory entry (the lookup of
        // s2, or with the state in memory the one the cache drains).
        self.q_valid.next = self.s2_valid.q.val();
        self.q_lookup.next = self.s2_lookup.val();
        self.d_valid.next = self.s2_valid.q.val() & self.s2_ok.val();
        self.d_qpn.next = self.s2_qpn.q.val();
        self.c_valid.next = false;
        self.c_lookup.next = self.s2_lookup.val();

        // State in memory: s0 reads and s2 decides in the port's cache, which feeds the
        // queue (the response queue) with lookups final as far as the state goes, in order.
        // With the directory in memory too, one whose state checks passed (OK) waits there
        // for its directory entry (`need`) and sends its directory read at the same edge.
        for c in 0..self._cache {
            self.c_valid.next = self.caches[c].out_valid.val();
            self.c_lookup.next = self.caches[c].out_lookup.val();
            self.caches[c].clock.next = self.clock.val();
            self.caches[c].rst.next = self.rst.val();
            self.caches[c].rd_qpn.next = self.req_qpn.val();
            self.caches[c].s2_valid.next = self.s2_valid.q.val();
            self.caches[c].s2_qpn.next = self.s2_qpn.q.val();
            self.caches[c].s2_tag.next = self.s2_tag.q.val();
            self.caches[c].s2_oor.next = self.s2_oor.q.val();
            self.caches[c].s2_addr.next = self.s2_lookup.val().offset;
            self.caches[c].s2_present.next = self.dir_rd.val().present;
            self.caches[c].out_count.next = self.queue.count.val();
            self.caches[c].out_extra.next = self.s3_valid.q.val();
            self.live_raddr[c].next = self.caches[c].live_raddr.val();
            self.caches[c].live_rdata.next = self.live_rdata[c].val();
            self.caches[c].tag_we.next = self.tag_we[c].val();
            self.caches[c].tag_line.next = self.tag_line[c].val();
            self.caches[c].tag_valid.next = self.tag_valid[c].val();
            self.caches[c].tag_block.next = self.tag_block[c].val();
            self.caches[c].data_we.next = self.data_we[c].val();
            self.caches[c].data_row.next = self.data_row[c].val();
            self.caches[c].data.next = self.data[c].val();
            self.mreq_valid[c].next = self.caches[c].mreq_valid.val();
            self.caches[c].mreq_ready.next = self.mreq_ready[c].val();
            self.mreq_block[c].next = self.caches[c].mreq_block.val();
            self.caches[c].ans_valid.next = self.ans_valid[c].val();
            self.ans_ready[c].next = self.caches[c].ans_ready.val();
            self.caches[c].ans_slot.next = self.ans_slot[c].val();
            self.rd_slot[c].next = self.caches[c].rd_slot.val();
            self.rd_word[c].next = self.caches[c].rd_word.val();
            self.caches[c].rd_data.next = self.rd_data[c].val();
            self.rd_slot2[c].next = self.caches[c].rd_slot2.val();
            self.caches[c].rd_filled.next = self.rd_filled[c].val();
            self.caches[c].rd_filled2.next = self.rd_filled2[c].val();
            self.caches[c].rd_error.next = self.rd_error[c].val();
            self.rel_valid[c].next = self.caches[c].rel_valid.val();
            self.rel_slot[c].next = self.caches[c].rel_slot.val();
            self.filtered[c].next = self.caches[c].filtered.val();
            self.hit[c].next = self.caches[c].hit.val();
            self.miss[c].next = self.caches[c].miss.val();
        }

        self.c_ok.next = self.c_lookup.val().status == self.status.ok.val();
        if self.state_in_memory.val() {
            self.q_valid.next = self.c_valid.val();
            self.q_lookup.next = self.c_lookup.val();
            self.q_lookup.next.need = self.in_memory.val() & self.c_ok.val();
            self.d_valid.next = self.c_valid.val() & self.c_ok.val();
            self.d_qpn.next = self.c_lookup.val().qpn;
        }
        // s3 takes a lookup, and holds its words otherwise (what the RAMs show between
        // lookups, never written during the init sweep, stays out of the response signals).
        self.s3_valid.d.next = self.q_valid.val();
        if self.q_valid.val() {
            self.s3_lookup.d.next = self.q_lookup.val();
            self.s3_words.d.next = self.s2_words.val();
        }
        // s3: the checks in SPEC order (range, state, generation, page) of a lookup that
        // left s2 (with the state in memory the cache checked it: its status stands).
        self.s3_status.next = self.s3_lookup.q.val().status;
        if !self.state_in_memory.val() {
            if !self.s3_words.q.val().present {
                self.s3_status.next = self.status.page_absent.val();
            }
            if self.s3_words.q.val().gen_pairs.any() {
                self.s3_status.next = self.status.stale.val();
            }
            if self.s3_words.q.val().not_valid {
                self.s3_status.next = self.status.not_allocated.val();
            }
            if self.s3_words.q.val().out_of_range {
                self.s3_status.next = self.status.out_of_range.val();
            }
        }
        self.s3_final.next = self.s3_lookup.q.val();
        self.s3_final.next.status = self.s3_status.val();

        // Directory in memory: the read of a lookup that passed the checks, and the entries
        // read, in this port's order.
        self.s2_page.next =
            bit_cast::<ADDR_BITS, QPN_BITS>(self.d_qpn.val() & self.index_mask.val())
                >> self.leaf_bits.val();
        self.s2_dreq_addr.next = (self.table_base.val() & self.entry_base_mask.val())
            + (self.s2_page.val() << self.entry_shift.val());
        // The request is registered in `d3` (the address loaded at every edge, so that
        // `d_valid` drives one flip-flop), then offered to the DirFetch directly while the
        // request queue is empty, or pushed behind the queue's tail unless taken directly.
        self.d3_valid.d.next = self.d_valid.val();
        self.d3_addr.d.next = self.s2_dreq_addr.val();
        self.d3_direct.next = false;
        self.d3_out_addr.next = self.d3_addr.q.val();
        self.result.next = 0.into();
        self.result_valid.next = false;
        for m in 0..self._mem {
            self.dreqs[m].clock.next = self.clock.val();
            self.dreqs[m].rst.next = self.rst.val();
            self.d3_direct.next = self.d3_valid.q.val() & !self.dreqs[m].out_valid.val();
            if self.dreqs[m].out_valid.val() {
                self.d3_out_addr.next = self.dreqs[m].data_out.val();
            }
            self.dreqs[m].in_valid.next =
                self.d3_valid.q.val() & !(self.d3_direct.val() & self.dreq_ready[m].val());
            self.dreqs[m].data_in.next = self.d3_addr.q.val();
            self.dreq_valid[m].next = self.dreqs[m].out_valid.val() | self.d3_valid.q.val();
            self.dreq_addr[m].next = self.d3_out_addr.val();
            self.dreqs[m].out_ready.next = self.dreq_ready[m].val();
            self.results[m].clock.next = self.clock.val();
            self.results[m].rst.next = self.rst.val();
            self.results[m].in_valid.next = self.cpl_valid[m].val();
            self.results[m].data_in.next = self.cpl_data[m].val();
            self.result.next = self.results[m].data_out.val();
            self.result_valid.next = self.results[m].out_valid.val();
        }

        // Response stream from the queue's head (once its directory entry is there).
        self.bypass.next = !self.queue.out_valid.val();
        self.head_valid.next = self.queue.out_valid.val() | self.s3_valid.q.val();
        self.head.next = self.queue.data_out.val();
        if self.bypass.val() {
            self.head.next = self.s3_final.val();
        }
        self.head_need.next = self.in_memory.val() & self.head.val().need;
        self.out_valid.next =
            self.head_valid.val() & !(self.head_need.val() & !self.result_valid.val());
        self.status_out.next = self.head.val().status;
        if self.head_need.val() {
            if !self.result.val().get_bit(self.present_bit.val().index()) {
                self.status_out.next = self.status.page_absent.val();
            }
            if self.result.val().get_bit(self.error_bit.val().index()) {
                self.status_out.next = self.status.mem_error.val();
            }
        }
        self.addr_full.next = self.head.val().offset;
        if self.in_memory.val() {
            self.addr_full.next =
                (self.result.val() & self.page_mask.val()) + self.head.val().offset;
        }
        self.addr_out.next = 0.into();
        if self.status_out.val() == self.status.ok.val() {
            self.addr_out.next = self.addr_full.val();
        }
        self.fire.next = self.out_valid.val() & self.rsp_ready.val();
        // The queue pops its head at a response handshake (none when it is empty); s3
        // enters the queue unless it left as the response.
        self.queue.out_ready.next = self.fire.val();
        self.queue.in_valid.next = self.s3_valid.q.val() & !(self.bypass.val() & self.fire.val());
        self.queue.data_in.next = self.s3_final.val();
        for m in 0..self._mem {
            self.results[m].out_ready.next = self.fire.val() & self.head_need.val();
        }
        self.rsp_valid.next = self.out_valid.val();
        self.rsp_qpn.next = self.head.val().qpn;
        self.rsp_tag.next = self.head.val().tag;
        self.rsp_status.next = self.status_out.val();
        self.rsp_addr.next = self.addr_out.val();
        self.rsp_fire.next = self.fire.val();
        self.unused_counts_addr.next = self.queue.count.val().any()
            | self.s2_dreq_addr.val().any()
            | self.d_valid.val()
            | self.d3_valid.q.val()
            | self.d3_addr.q.val().any()
            | self.d3_direct.val()
            | self.d3_out_addr.val().any()
            | self.c_valid.val()
            | self.c_ok.val();
        for m in 0..self._mem {
            self.unused_counts_addr.next = self.queue.count.val().any()
                | self.dreqs[m].count.val().any()
                | self.results[m].count.val().any()
                | self.c_valid.val()
                | self.c_ok.val();
        }

        // Lookups in flight: up at a request handshake, down at a response handshake.
        if self.s0_fire.val() & !self.fire.val() {
            self.flight.d.next = self.flight.q.val() + 1;
            self.room.d.next = self.flight.q.val() < self.credit_less_one.val();
        }
        if !self.s0_fire.val() & self.fire.val() {
            self.flight.d.next = self.flight.q.val() - 1;
            self.room.d.next = true;
        }

        // Counters, at the response handshake.
        self.counters.clock.next = self.clock.val();
        self.counters.rst.next = self.rst.val();
        self.counters.fire.next = self.fire.val();
        self.counters.status.next = self.status_out.val();
        self.counts.next = self.counters.counts.val();

        if self.rst.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.d3_valid.d.next = false;
            self.flight.d.next = 0.into();
            self.room.d.next = true;
        }
    }
}
