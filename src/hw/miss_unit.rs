//! `MissUnit`: the shared miss unit of `state = in_memory` (SPEC §9; design in
//! `docs/state_in_memory.md`, "Miss unit"): it takes the ports' cache misses, merges those of
//! a block already being fetched, reads each other block from the state table in memory
//! into one of `max_misses` fill slots (AXI4 read master), keeps the block there until every
//! request that took the slot has read it, and broadcasts each good block to the cache. The
//! slots are set-associative: a block's slot is one of the [`MissParams::ways`] ways of its
//! set (its number mod [`MissParams::sets`]), so no decision looks at more slots than a set
//! holds.
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
//! | `rel_valid[p]`, `rel_slot[p]` | in | port `p` releases a slot: one pulse per answer it received, in the order of its answers, at the earliest at the edge that takes the address of its last read of the slot. A port holds fewer than 2^[`SEQ_BITS`] answers it has not released (the state cache holds at most its wait queue's 512) |
//! | `taken_merged`, `taken_new`, `taken_slot` | out | a request leaves the decision register at this edge: merged into a slot (MISS_MERGED), or took a new slot and will be read (CACHE_MISS / MEM_READS); the slot (from registers) |
//! | `cw_valid`, `cw_line`, `cw_block`, `cw_beat`, `cw_last`, `cw_data` | out | cache write (every cache copy, no ready): beat `cw_beat` of block `cw_block` into line `cw_block mod cache_lines`, `cw_last` on its last beat; `cw_data` holds the low `min(block bits, mem_data_bits)` bits (0 without `cw_valid`). Only for fills that succeeded, beats in order, blocks in fill order |
//! | `busy_block`, `busy` | in, out | from registers (an OR of a few): in the cycle before, the `busy_block` of the cycle before that (registered on entry) had a live slot (being read, or filled and not yet released by all its requests, or not yet broadcast, or about to be merged into), or sat in the decision register, or in the request register as a request that was not held back (below) |
//! | `hold_valid`, `hold_block` | in | a command holds a block: see "Commands" |
//! | `arvalid` .. `arburst`, `rvalid` .. `rlast` | | AXI4 read master, ID 0 (the top level ties `arid`, `arlock`, ...); `rready` is always 1. The top level registers both sides (a [`Skid`](super::skid::Skid) on AR, a register on R: a beat reaches the block one edge after its handshake), so no logic here follows a top-level input combinationally |
//!
//! # Slots
//!
//! Slot `s` is way `s / sets` of set `s mod sets` ([`MissParams::slot`]): `ways` is the
//! smaller of [`MAX_WAYS`] and `max_misses`, `sets` is `max_misses / ways` rounded up to a
//! power of two, and the ids from `max_misses` up are not slots. Block `b` can only be in a
//! way of set `b mod sets`. Per way, a small RAM holds the block of each set's slot of that
//! way (two copies: one read for the request register, one for `busy`); per slot, a bit of
//! each of these vectors (flip-flops, updated at one or two slots an edge, never scanned):
//!
//! | vector | bit `s` |
//! |---|---|
//! | `hold[p]` | port `p` holds an answer naming slot `s` that it has not released |
//! | `pend` | slot `s`'s fill, or the broadcast of its good fill, is not done |
//! | `fl`, `er` | slot `s`'s fill has landed; and failed |
//!
//! A slot is *live* while a port holds it, it is pending, or it is the slot the decision
//! register's request is to merge into (the *pin*: a slot a request has matched stays live
//! until the request merges into it); a slot that is not live is free. A port's hold of a
//! slot ends with its release of its last answer naming the slot: each answer to port `p` is
//! numbered (mod 2^[`SEQ_BITS`]), the number of the last answer naming each slot is kept in
//! the port's RAM `seqs`, and a release (the port releases in answer order, so its releases
//! are numbered the same way) whose number is that word ends the hold. No count per slot, so
//! a slot serves any number of requests.
//!
//! # Stages and edges
//!
//! | stage | at the edge | what happens |
//! |---|---|---|
//! | arbiter | `t` | round robin over the ports' requests: at most one taken (`req_ready`) into the input register, when it is empty or its request moves on at `t` |
//! | input register | `t + 1` at the earliest | the tag RAMs read its set at the edge it takes its request (and at every edge it keeps it); its block is compared with its set's ways. It moves into the request register when that is empty or its request moves on, with that comparison (`c_eq8`) and its set's live and failed fields (`c_l8`, `c_e8`) registered |
//! | request register | `t + 2` at the earliest | its view of its set is registered, one edge old (kept while it waits: the ways of its block with the tag writes to its set, the fields read again at every edge), corrected by the slot the decision register left with at the last edge (live; not failed if taken new) and by the decision register's own slot: it picks the way that is live, of its block and not a failed fill (at most one), else the first free way that is not the decision register's slot, or, when the decision register takes a new slot for the same block at this edge, that slot. Moves into the decision register with the choice when that is empty or its request leaves, unless held |
//! | decision register | `t + 3` at the earliest | merges into its slot, or takes its free way (block written into the way's tag RAMs at its set, flags cleared, pending, queued for a read); waits while its port's answer queue is full (a port that does not take its answers stops every port), or while its set had no free way (it looks again every cycle in its own registered view of its set, once its request has been there for an edge: a way freed at edge `f` is found at `f + 2` and taken at `f + 3`). The slot goes to the port's answer queue at the same edge, numbered, and the port holds the slot |
//! | read queue | `t + 4` | the read leaves the read queue (its head, registered, is `arvalid`: `araddr` is `STATE_BASE` plus the block's offset, so it follows `state_base` while it waits; the top level's [`Skid`](super::skid::Skid) holds it from the handshake until `m_axi_arready`, and its `arready` is a register); one read a cycle |
//! | R | each beat | `rready` = 1; the beat (its lane for a narrow block) is written into the slot's fill buffer (one copy per port, same edge) and into the broadcast ring; the last beat (counted: `arlen + 1`) marks the slot filled, failed if a beat answered SLVERR/DECERR or `rlast` was not high exactly on the last beat |
//! | broadcast | after the last beat | a good fill's beats leave the ring one a cycle (ring read, output register) on `cw_*`; a failed fill's are skipped. Slots stay pending until their broadcast is done |
//! | release | each `rel_valid` at `t` | the port's `seqs` word of the slot is read at `t` (held by the RAM's output register at `t + 1`); at `t + 2` the comparison is registered (the release's number is that word and no answer named the slot at `t`, `t + 1` or `t + 2`), and at `t + 3` the hold ends (an answer wins over a release at the same edge) |
//!
//! A request never merges into a slot whose fill had failed when it was matched, as its view
//! shows it (one edge old: a fill that fails at the edge just before the match still takes
//! the merge). Such a request takes a new slot and reads again: its lookup was not waiting for
//! the failed read. One matched before the failure gets the failure. At most one mergeable
//! slot holds a block, so a block is never read twice at once. A request that merges into a
//! filled slot reads the data already there.
//!
//! Throughput: one request a cycle leaves the decision register while slots allow; reads
//! are issued one a cycle and the R channel is taken at one beat a cycle. A request taken
//! at edge `t` that needs a read leaves the decision register at `t + 3` at the earliest,
//! leaves the read queue at `t + 4` (at the top level, `m_axi_arvalid` from then on). A set
//! whose ways are all live makes a new block of that set wait, and every port behind it:
//! `max_misses` should leave room above the misses in flight (BENCHMARKS.md, state in memory).
//!
//! Paths: no cycle looks at more than one set's ways. The input register compares its block
//! with the tag RAMs' words (registers); a set's fields are the flag vectors shifted by the
//! set (a multiplexer of the sets per way), registered into the request register's view; the
//! request register chooses from its view and registered pins, in parallel over the ways (the
//! lowest free way by masks, not a chain), into the decision register's one-hot way; the
//! decision register decides from registers only (`go`: its slot, its port's room, registered
//! in [`MissAnswers`] and exact). `busy` compares `busy_block` (registered on entry) with the
//! ways of its set, its live field registered, into `busy_s`. A release's comparison is
//! registered before it clears its bit. Nothing depends combinationally on `rvalid` but the R
//! beat's own writes (`rready` is constant).
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
//! Per slot: a bit in each of the vectors (`ports` + 3) and a word of each port's `seqs`
//! RAM. Per way: two tag RAMs of `sets` words (the block number) and two block comparators.
//! Fill buffer: `max_misses x block bits`, one copy per port ([`MissReadPort`], a
//! [`Ram`] with its output register). Ring: 2 blocks. Queues: answers ([`ANSWER_DEPTH`] per
//! port), reads, reads in flight and fills to broadcast (`max_misses` each, rounded up to a
//! power of two, head-registered
//! ([`MemFifo::head_registered`](super::mem_fifo::MemFifo::head_registered)): their heads
//! come from registers, not from a block RAM's read port, since each head decides its own
//! pop). Measured figures (synthesis of the unit alone, `qptable synth`):
//! docs/state_in_memory.md, "Miss unit".

use super::miss_answers::MissAnswers;
use super::miss_broadcast::MissBroadcast;
use super::miss_fetch::MissFetch;
pub use super::miss_params::*;
use super::miss_read_port::MissReadPort;
use super::ram::{Ram, RAM_ADDR_BITS};
use super::{EngineParams, ADDR_BITS};
use anyhow::Result;
use rust_hdl::prelude::*;

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
    // What the decision register did at this edge (counters).
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
    /// Each port's answers and the slots it holds.
    answers: Vec<MissAnswers>,
    /// The block reads: the AR channel and the R beats.
    fetch: MissFetch,
    /// Each port's read port of the fill buffer (its own copy of the buffer and the flags).
    read: Vec<MissReadPort>,
    /// The ring of the last beats read, and the broadcast of each good fill.
    bcast: MissBroadcast,
    /// Per way: the block of the slot of that way in each set, read for the request register
    /// (`tags`, at the input register's set) and for `busy` (`btags`, at `busy_block`'s set);
    /// both take the same writes (a new take writes its slot's way at its set).
    tags: Vec<Ram<Bits<BLOCK_NUM_BITS>>>,
    btags: Vec<Ram<Bits<BLOCK_NUM_BITS>>>,
    // Arbiter and request register.
    rr: DFF<Bits<3>>,
    cur_valid: DFF<Bit>,
    cur_block: DFF<Bits<BLOCK_NUM_BITS>>,
    cur_port: DFF<Bits<3>>,
    /// The request is not held back by `hold_valid` (it came before the hold).
    cur_exempt: DFF<Bit>,
    /// `busy` as it was in the cycle before (the output: see "Commands"): of the input,
    /// request and decision registers (`busy_q`), of the slots (`busy_s`).
    busy_q: DFF<Bit>,
    busy_s: DFF<Bit>,
    /// `busy_block` (its low bits) as it was at the last edge.
    bq_block: DFF<Bits<BLOCK_NUM_BITS>>,
    // Input register: the arbiter's request, as the request register's (`cur_*`).
    i_valid: DFF<Bit>,
    i_block: DFF<Bits<BLOCK_NUM_BITS>>,
    i_port: DFF<Bits<3>>,
    i_exempt: DFF<Bit>,
    // Decision register: the request that leaves next, its port, whether it merges, its slot.
    t_valid: DFF<Bit>,
    t_block: DFF<Bits<BLOCK_NUM_BITS>>,
    t_port: DFF<Bits<3>>,
    t_hit: DFF<Bit>,
    /// The decision register holds its slot (way `t_wbit`, one-hot, of its block's set): the
    /// one it merges into, or a free way of its set; without one (its set had no free way) it
    /// looks again every cycle.
    t_ok: DFF<Bit>,
    t_wbit: DFF<Bits<MAX_WAYS>>,
    /// The decision register's view of its set for the search of a slot: its ways that are
    /// slots (`t_us8`), and live as they were before the last edge (`t_l8`), valid once its
    /// request has been there for an edge (`t_seen`). While it waits for a way nothing takes
    /// or merges, so the view only lags the frees.
    t_us8: DFF<Bits<MAX_WAYS>>,
    t_l8: DFF<Bits<MAX_WAYS>>,
    t_seen: DFF<Bit>,
    /// The request register's view of its set, bit `w` for way `w`, registered (so its
    /// decision starts from flip-flops): the way holds its block (`c_eq8`, kept with the tag
    /// writes to its set), and, as they were before the last edge, is live (`c_l8`) or a
    /// failed fill (`c_e8`); the way is a slot (`c_us8`).
    c_eq8: DFF<Bits<MAX_WAYS>>,
    c_l8: DFF<Bits<MAX_WAYS>>,
    c_e8: DFF<Bits<MAX_WAYS>>,
    c_us8: DFF<Bits<MAX_WAYS>>,
    /// `busy_block`'s set, live as it was before the last edge (with `bq_block`).
    b_l8: DFF<Bits<MAX_WAYS>>,
    /// The slot the decision register's request left with at the last edge (its set and way),
    /// and whether it took it new: live, though `c_l8` may not show it (a merge can find a
    /// slot that its view showed live and that became free in between), and, new, not failed.
    lt_valid: DFF<Bit>,
    lt_new: DFF<Bit>,
    lt_set: DFF<Bits<SLOT_BITS>>,
    lt_wbit: DFF<Bits<MAX_WAYS>>,
    /// The same for the request register's set, registered from the comparison of the sets
    /// before the edge: its way that is the last edge's slot (`c_plt`), taken new (`c_pln`);
    /// the request and decision registers' blocks are of one set (`same_set`).
    c_plt: DFF<Bits<MAX_WAYS>>,
    c_pln: DFF<Bits<MAX_WAYS>>,
    same_set: DFF<Bit>,
    /// Bit `w`: the tag write of the last edge went to way `w` of the set the tag RAMs read at
    /// that edge for the input register (`i_byp`) and for `busy` (`b_byp`): the RAMs are
    /// read-first, so the block written (`w_block`) replaces their word.
    i_byp: DFF<Bits<MAX_WAYS>>,
    b_byp: DFF<Bits<MAX_WAYS>>,
    w_block: DFF<Bits<BLOCK_NUM_BITS>>,
    /// The request and decision registers hold one block: registered from the comparisons of
    /// the registers' blocks before the edge, picked by the moves.
    same_q: DFF<Bit>,
    // Slots: one bit each (bit [`MissParams::vector_bit`]`(s)` of a vector is slot `s`).
    /// The slot's fill or broadcast is not done.
    pend: DFF<Bits<MAX_SLOTS>>,
    /// The slot's fill has landed; has landed and failed (`er` implies `fl`).
    fl: DFF<Bits<MAX_SLOTS>>,
    er: DFF<Bits<MAX_SLOTS>>,
    // Locals.
    found: Signal<Local, Bit>,
    sel: Signal<Local, Bits<3>>,
    sel_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    h_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    /// Bit [`MissParams::vector_bit`]`(s)`: slot `s` is held by a port or pending.
    live_vec: Signal<Local, Bits<MAX_SLOTS>>,
    /// The vector bits of the decision register's slot, the fill's slot, the broadcast's slot.
    ret_bit: Signal<Local, Bits<SLOT_BITS>>,
    sent_bit: Signal<Local, Bits<SLOT_BITS>>,
    /// The fields of a set (bit `w`: way `w`): live of the decision register's set and of
    /// `busy_block`'s set.
    /// The input register's set: its ways of its block; the fields of the set the request
    /// register sees after this edge (the input register's if it moves in, else its own).
    i_eq8: Signal<Local, Bits<MAX_WAYS>>,
    /// The input register's set's fields: live, failed.
    i_l8: Signal<Local, Bits<MAX_WAYS>>,
    i_e8: Signal<Local, Bits<MAX_WAYS>>,
    n_us8: Signal<Local, Bits<MAX_WAYS>>,
    /// The tag RAMs' read set: the arbiter's request's if the input register takes one, else
    /// the input register's.
    ta_set: Signal<Local, Bits<SLOT_BITS>>,
    /// Bit `w`: the request register's way `w` is the last edge's slot (`pin_lt`), taken new
    /// (`pin_ln`).
    pin_lt: Signal<Local, Bits<MAX_WAYS>>,
    pin_ln: Signal<Local, Bits<MAX_WAYS>>,
    /// Bit `w`: way `w` of `busy_block`'s set is the last edge's slot; holds its block.
    pin_b: Signal<Local, Bits<MAX_WAYS>>,
    b_eq8: Signal<Local, Bits<MAX_WAYS>>,
    /// The request and decision registers' blocks are of one set.
    /// Comparisons of the registers' sets before this edge.
    s_ct: Signal<Local, Bit>,
    s_ci: Signal<Local, Bit>,
    s_ti: Signal<Local, Bit>,
    /// Bit `w`: way `w` of the request register's set is the decision register's slot, which
    /// it merges into (`pin_m`, live) or holds (`pin_t`, not to be taken).
    pin_m: Signal<Local, Bits<MAX_WAYS>>,
    pin_t: Signal<Local, Bits<MAX_WAYS>>,
    c_set: Signal<Local, Bits<SLOT_BITS>>,
    t_set: Signal<Local, Bits<SLOT_BITS>>,
    b_set: Signal<Local, Bits<SLOT_BITS>>,
    i_set: Signal<Local, Bits<SLOT_BITS>>,
    q_set: Signal<Local, Bits<SLOT_BITS>>,
    /// Per way: the input register's tag.
    i_tag: Vec<Signal<Local, Bits<BLOCK_NUM_BITS>>>,
    b_tag: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    /// The request register: a mergeable slot of its block (at most one), the first free way.
    e_hit: Signal<Local, Bit>,
    e_free: Signal<Local, Bit>,
    /// Bit `w`: way `w` is the mergeable one (`hit8`), free (`free8`), the lowest free one
    /// (`low8`), the one the request takes (`sel8`); the latter's way number and slot.
    hit8: Signal<Local, Bits<MAX_WAYS>>,
    free8: Signal<Local, Bits<MAX_WAYS>>,
    low8: Signal<Local, Bits<MAX_WAYS>>,
    sel8: Signal<Local, Bits<MAX_WAYS>>,
    /// The decision register without a slot: the first free way of its set.
    d_free: Signal<Local, Bit>,
    /// The decision register's free ways in its view; its way's number.
    dfree8: Signal<Local, Bits<MAX_WAYS>>,
    t_way: Signal<Local, Bits<SLOT_BITS>>,
    d_wbit: Signal<Local, Bits<MAX_WAYS>>,
    busy_any: Signal<Local, Bit>,
    /// The request register moves into the decision register.
    move_t: Signal<Local, Bit>,
    /// Block comparisons of the registers' blocks before this edge (`cur`, `t`, `i`, the
    /// arbiter's `s`).
    c_ci: Signal<Local, Bit>,
    c_ti: Signal<Local, Bit>,
    c_ct: Signal<Local, Bit>,
    /// The request register's request merges into the slot the decision register takes.
    fwd: Signal<Local, Bit>,
    /// The input register moves into the request register.
    move_e: Signal<Local, Bit>,
    merge: Signal<Local, Bit>,
    take_new: Signal<Local, Bit>,
    blocked: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    slot_out: Signal<Local, Bits<SLOT_BITS>>,
    out_vec: Signal<Local, Bits<MAX_SLOTS>>,
    take: Signal<Local, Bit>,
    /// Per way: the tag write of this edge.
    tw: Signal<Local, Bits<MAX_WAYS>>,
    ret_vec: Signal<Local, Bits<MAX_SLOTS>>,
    // Constants.
    port_num: Vec<Constant<Bits<3>>>,
    /// Per way: its bit of a way mask.
    way_one: Vec<Constant<Bits<MAX_WAYS>>>,
    /// The slots (ids below `max_misses`), as a flag vector.
    us_vec: Constant<Bits<MAX_SLOTS>>,
    one_vec: Constant<Bits<MAX_SLOTS>>,
    /// The ways whose number has bit 0, 1, 2 set; those bits as numbers.
    way_b0: Constant<Bits<MAX_WAYS>>,
    way_b1: Constant<Bits<MAX_WAYS>>,
    way_b2: Constant<Bits<MAX_WAYS>>,
    c_one: Constant<Bits<SLOT_BITS>>,
    c_two: Constant<Bits<SLOT_BITS>>,
    c_four: Constant<Bits<SLOT_BITS>>,
    set_mask: Constant<Bits<BLOCK_NUM_BITS>>,
    /// A slot's set (`slot & slot_set_mask`) and way (`slot >> way_shift`).
    slot_set_mask: Constant<Bits<SLOT_BITS>>,
    way_shift: Constant<Bits<SLOT_BITS>>,
    block_mask: Constant<Bits<BLOCK_NUM_BITS>>,
    _ports: usize,
    _ways: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl MissUnit {
    /// The miss unit for `p.ports` ports with the parameters `m`; an error (no panic) when a
    /// parameter is out of range.
    pub fn new(p: &EngineParams, m: &MissParams) -> Result<Self> {
        m.check(p.ports)?;
        let n = p.ports;
        let slots = m.max_misses as usize;
        let (ways, sets) = (m.ways(), m.sets());
        let tag_bits = (24 - m.block_bits) as usize;
        let set_bits = (sets.trailing_zeros() as usize).max(1);
        let tag_ram = || Ram::with_layout(sets, set_bits, tag_bits, p.fpga).unregistered();
        let vec_const = |bits: &mut dyn Iterator<Item = usize>| {
            let mut v = Bits::<MAX_SLOTS>::default();
            for b in bits {
                v.set_bits::<1>(b, true.into());
            }
            Constant::new(v)
        };
        Ok(block_new!(
            [
                clock, rst, state_base, taken_merged, taken_new, taken_slot, cw_valid, cw_line,
                cw_block, cw_beat, cw_last, cw_data, busy_block, busy, hold_valid, hold_block,
                arvalid, arready, araddr, arlen, arsize, arburst, rvalid, rready, rdata, rresp,
                rlast, rr, cur_valid, cur_block, cur_port, cur_exempt, busy_q, busy_s, bq_block,
                i_valid, i_block, i_port, i_exempt, t_valid, t_block, t_port, t_hit, t_ok,
                t_wbit, t_us8, t_l8, t_seen, c_eq8, c_l8, c_e8, c_us8, b_l8, lt_valid, lt_new, lt_set, lt_wbit, c_plt, c_pln, same_set, i_byp, b_byp, w_block, same_q, pend, fl, er, found, sel, sel_block, h_block, live_vec, ret_bit,
                sent_bit, i_eq8, i_l8, i_e8, n_us8, ta_set, pin_lt, pin_ln, pin_b, b_eq8, s_ct, s_ci, s_ti, pin_m, pin_t, c_set, t_set, b_set,
                i_set, q_set, b_tag, e_hit, e_free, hit8, free8, low8, sel8,
                d_free, dfree8, t_way, d_wbit, busy_any, move_t, c_ci, c_ti, c_ct, fwd,
                move_e, merge, take_new, blocked, room, go, slot_out, out_vec,
                take, tw, ret_vec,
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
            answers: (0..n).map(|_| MissAnswers::new(p, m)).collect(),
            fetch: MissFetch::new(m),
            read: (0..n).map(|_| MissReadPort::new(p, m)).collect(),
            bcast: MissBroadcast::new(p, m),
            tags: (0..ways).map(|_| tag_ram()).collect(),
            btags: (0..ways).map(|_| tag_ram()).collect(),
            i_tag: vec_of(ways),
            port_num: (0..n).map(|i| Constant::new((i as u64).into())).collect(),
            way_one: (0..ways)
                .map(|w| Constant::new((1u64 << w).into()))
                .collect(),
            us_vec: vec_const(&mut (0..slots).map(|s| m.vector_bit(s))),
            one_vec: vec_const(&mut (0..1)),
            way_b0: Constant::new(0xAA.into()),
            way_b1: Constant::new(0xCC.into()),
            way_b2: Constant::new(0xF0.into()),
            c_one: Constant::new(1.into()),
            c_two: Constant::new(2.into()),
            c_four: Constant::new(4.into()),
            set_mask: Constant::new(((sets - 1) as u64).into()),
            block_mask: Constant::new(((1u64 << (24 - m.block_bits)) - 1).into()),
            slot_set_mask: Constant::new(((sets - 1) as u64).into()),
            way_shift: Constant::new(u64::from(sets.trailing_zeros()).into()),
            _ports: n,
            _ways: ways,
        ))
    }
}

impl Logic for MissUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rr, cur_valid, cur_block, cur_port, cur_exempt, busy_q, busy_s, bq_block,
            i_valid, i_block, i_port, i_exempt, t_valid, t_block, t_port, t_hit, t_ok, t_wbit,
            t_us8, t_l8, t_seen, c_eq8, c_l8, c_e8, c_us8, b_l8, lt_valid, lt_new, lt_set, lt_wbit,
            c_plt, c_pln, same_set, i_byp, b_byp, w_block, same_q, pend, fl, er
        );
        for w in 0..self._ways {
            self.tags[w].clock.next = self.clock.val();
            self.btags[w].clock.next = self.clock.val();
        }
        for p in 0..self._ports {
            self.answers[p].clock.next = self.clock.val();
            self.answers[p].rst.next = self.rst.val();
            self.read[p].clock.next = self.clock.val();
            self.read[p].rst.next = self.rst.val();
        }
        self.fetch.clock.next = self.clock.val();
        self.fetch.rst.next = self.rst.val();
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

        // Comparisons of the registers' blocks before this edge (`cur`, `t`, `i`, the
        // arbiter's `s`).
        self.c_ci.next = self.cur_block.q.val() == self.i_block.q.val();
        self.c_ti.next = self.t_block.q.val() == self.i_block.q.val();
        self.c_ct.next = self.cur_block.q.val() == self.t_block.q.val();

        // Block numbers: the bits above `24 - block_bits` are ignored. `busy_block` is
        // registered here first (it comes from the command engine, across the die).
        self.bq_block.d.next = self.busy_block.val() & self.block_mask.val();
        self.h_block.next = self.hold_block.val() & self.block_mask.val();

        // ---- The slots held by a port or pending (`live_vec`), from registers.
        self.live_vec.next = self.pend.q.val();
        for p in 0..self._ports {
            self.live_vec.next = self.live_vec.val() | self.answers[p].hold.val();
        }

        // ---- The decision register (`t_*`): its request leaves at this edge when it holds
        // its slot (`t_ok`) and its port's answer queue has room. Everything here comes from
        // registers.
        self.room.next = false;
        for p in 0..self._ports {
            if self.t_port.q.val() == self.port_num[p].val() {
                self.room.next = self.answers[p].room.val();
            }
        }
        self.go.next = self.t_valid.q.val() & self.t_ok.q.val() & self.room.val();
        self.merge.next = self.go.val() & self.t_hit.q.val();
        self.take_new.next = self.go.val() & !self.t_hit.q.val();
        // Its slot: way `t_wbit` (one-hot) of its set.
        self.t_set.next =
            bit_cast::<SLOT_BITS, BLOCK_NUM_BITS>(self.t_block.q.val() & self.set_mask.val());
        self.t_way.next = 0.into();
        if (self.t_wbit.q.val() & self.way_b0.val()).any() {
            self.t_way.next = self.t_way.val() | self.c_one.val();
        }
        if (self.t_wbit.q.val() & self.way_b1.val()).any() {
            self.t_way.next = self.t_way.val() | self.c_two.val();
        }
        if (self.t_wbit.q.val() & self.way_b2.val()).any() {
            self.t_way.next = self.t_way.val() | self.c_four.val();
        }
        self.slot_out.next = (self.t_way.val() << self.way_shift.val()) | self.t_set.val();
        self.out_vec.next =
            bit_cast::<MAX_SLOTS, MAX_WAYS>(self.t_wbit.q.val()) << (self.t_set.val() << 3);
        self.taken_merged.next = self.merge.val();
        self.taken_new.next = self.take_new.val();
        self.taken_slot.next = self.slot_out.val();
        // Without a slot (its set had no free way): the lowest free way of its set in its view.
        self.t_l8.d.next =
            bit_cast::<MAX_WAYS, MAX_SLOTS>(self.live_vec.val() >> (self.t_set.val() << 3));
        self.t_seen.d.next = self.t_valid.q.val();
        self.dfree8.next = 0.into();
        if self.t_seen.q.val() {
            self.dfree8.next = !self.t_l8.q.val() & self.t_us8.q.val();
        }
        self.d_free.next = self.dfree8.val().any();
        self.d_wbit.next = self.dfree8.val()
            & !((self.dfree8.val() << 1)
                | (self.dfree8.val() << 2)
                | (self.dfree8.val() << 3)
                | (self.dfree8.val() << 4)
                | (self.dfree8.val() << 5)
                | (self.dfree8.val() << 6)
                | (self.dfree8.val() << 7));

        // ---- The request register (`cur_*`) against its set, from its registered view
        // (`c_*8`) and the decision register's slot in its set, live if it merges into it,
        // not to be taken in any case (it takes it, or is to merge into it), and the last
        // edge's slot (live; not failed if taken new): a way of its block that is live and not
        // a failed fill (at most one: the mergeable slot), and the first free way.
        self.c_set.next =
            bit_cast::<SLOT_BITS, BLOCK_NUM_BITS>(self.cur_block.q.val() & self.set_mask.val());
        self.pin_m.next = 0.into();
        self.pin_t.next = 0.into();
        if self.t_valid.q.val() & self.same_set.q.val() {
            if self.t_hit.q.val() {
                self.pin_m.next = self.t_wbit.q.val();
            }
            if self.t_ok.q.val() {
                self.pin_t.next = self.t_wbit.q.val();
            }
        }
        self.pin_lt.next = self.c_plt.q.val();
        self.pin_ln.next = self.c_pln.q.val();
        // As vectors of ways, in parallel (no chain through the ways): the mergeable way, the
        // free ways, the lowest of them, the one taken (one-hot) and its slot.
        self.hit8.next = self.c_eq8.q.val()
            & (self.c_l8.q.val() | self.pin_m.val() | self.pin_lt.val())
            & !(self.c_e8.q.val() & !self.pin_ln.val());
        self.free8.next =
            !(self.c_l8.q.val() | self.pin_t.val() | self.pin_lt.val()) & self.c_us8.q.val();
        self.e_hit.next = self.hit8.val().any();
        self.e_free.next = self.free8.val().any();
        self.low8.next = self.free8.val()
            & !((self.free8.val() << 1)
                | (self.free8.val() << 2)
                | (self.free8.val() << 3)
                | (self.free8.val() << 4)
                | (self.free8.val() << 5)
                | (self.free8.val() << 6)
                | (self.free8.val() << 7));
        self.sel8.next = self.low8.val();
        if self.e_hit.val() {
            self.sel8.next = self.hit8.val();
        }

        // The request register moves into the decision register when that is empty or its
        // request leaves, unless a hold keeps it; its slot then is the decision register's
        // new slot when both are of one block (`fwd`: that slot is not live yet), else the
        // mergeable way, else the first free way (none: the decision register looks again).
        self.blocked.next = self.hold_valid.val() & !self.cur_exempt.q.val();
        self.move_t.next =
            self.cur_valid.q.val() & !self.blocked.val() & (!self.t_valid.q.val() | self.go.val());
        self.fwd.next = self.same_q.q.val() & self.take_new.val();
        if self.t_valid.q.val() & !self.t_ok.q.val() {
            self.t_ok.d.next = self.d_free.val();
            self.t_wbit.d.next = self.d_wbit.val();
        }
        if self.go.val() {
            self.t_valid.d.next = false;
        }
        if self.move_t.val() {
            self.t_valid.d.next = true;
            self.t_seen.d.next = false;
            self.t_us8.d.next = self.c_us8.q.val();
            self.t_block.d.next = self.cur_block.q.val();
            self.t_port.d.next = self.cur_port.q.val();
            self.t_hit.d.next = self.fwd.val() | self.e_hit.val();
            self.t_ok.d.next = self.fwd.val() | self.e_hit.val() | self.e_free.val();
            self.t_wbit.d.next = self.sel8.val();
            if self.fwd.val() {
                self.t_wbit.d.next = self.t_wbit.q.val();
            }
        }

        // ---- Tags: a new take writes its block into its way at its set, in both copies.
        // One copy is read at the input register's set (below), one at `busy_block`'s; a
        // write to that set at the same edge is remembered (`i_byp`, `b_byp`), since the RAMs
        // are read-first.
        self.tw.next = 0.into();
        if self.take_new.val() {
            self.tw.next = self.t_wbit.q.val();
        }
        self.lt_valid.d.next = self.go.val();
        self.lt_new.d.next = self.take_new.val();
        self.lt_set.d.next = self.t_set.val();
        self.lt_wbit.d.next = self.t_wbit.q.val();

        self.i_set.next =
            bit_cast::<SLOT_BITS, BLOCK_NUM_BITS>(self.i_block.q.val() & self.set_mask.val());
        self.s_ct.next = self.c_set.val() == self.t_set.val();
        self.s_ci.next = self.c_set.val() == self.i_set.val();
        self.s_ti.next = self.t_set.val() == self.i_set.val();
        self.q_set.next = bit_cast::<SLOT_BITS, BLOCK_NUM_BITS>(
            self.busy_block.val() & self.block_mask.val() & self.set_mask.val(),
        );
        self.w_block.d.next = self.t_block.q.val();
        self.b_byp.d.next = 0.into();
        if self.q_set.val() == self.t_set.val() {
            self.b_byp.d.next = self.tw.val();
        }
        // The input register's ways of its block (the RAM words read at the last edge, with
        // that edge's write).
        self.i_eq8.next = 0.into();
        for w in 0..self._ways {
            self.tags[w].write_enable.next = (self.tw.val() & self.way_one[w].val()).any();
            self.tags[w].write_address.next =
                bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.t_set.val());
            self.tags[w].write_data.next = self.t_block.q.val();
            self.btags[w].write_enable.next = (self.tw.val() & self.way_one[w].val()).any();
            self.btags[w].write_address.next =
                bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.t_set.val());
            self.btags[w].write_data.next = self.t_block.q.val();
            self.btags[w].read_address.next =
                bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.q_set.val());
            self.i_tag[w].next = self.tags[w].read_data.val();
            if (self.i_byp.q.val() & self.way_one[w].val()).any() {
                self.i_tag[w].next = self.w_block.q.val();
            }
            if self.i_tag[w].val() == self.i_block.q.val() {
                self.i_eq8.next = self.i_eq8.val() | self.way_one[w].val();
            }
        }

        // ---- `busy`: a live slot of `busy_block` (a way of its set: live as before the last
        // edge, or the slot the decision register left with at it, the only way a slot becomes
        // live), or a request in the input, request or decision register (from registers: see
        // "Commands").
        self.b_set.next =
            bit_cast::<SLOT_BITS, BLOCK_NUM_BITS>(self.bq_block.q.val() & self.set_mask.val());
        self.b_l8.d.next =
            bit_cast::<MAX_WAYS, MAX_SLOTS>(self.live_vec.val() >> (self.q_set.val() << 3));
        self.pin_b.next = 0.into();
        if self.lt_valid.q.val() & (self.lt_set.q.val() == self.b_set.val()) {
            self.pin_b.next = self.lt_wbit.q.val();
        }
        self.b_eq8.next = 0.into();
        for w in 0..self._ways {
            self.b_tag.next = self.btags[w].read_data.val();
            if (self.b_byp.q.val() & self.way_one[w].val()).any() {
                self.b_tag.next = self.w_block.q.val();
            }
            if self.b_tag.val() == self.bq_block.q.val() {
                self.b_eq8.next = self.b_eq8.val() | self.way_one[w].val();
            }
        }
        self.busy_any.next = (self.b_eq8.val() & (self.b_l8.q.val() | self.pin_b.val())).any();
        self.busy_s.d.next = self.busy_any.val() & !self.rst.val();
        self.busy_q.d.next = (self.cur_valid.q.val()
            & self.cur_exempt.q.val()
            & (self.cur_block.q.val() == self.bq_block.q.val()))
            | (self.t_valid.q.val() & (self.t_block.q.val() == self.bq_block.q.val()))
            | (self.i_valid.q.val()
                & self.i_exempt.q.val()
                & (self.i_block.q.val() == self.bq_block.q.val()));
        self.busy.next = self.busy_q.q.val() | self.busy_s.q.val();

        // ---- The request register takes the input register's request when it is empty or
        // its request moves on at this edge.
        self.move_e.next = self.i_valid.q.val() & (!self.cur_valid.q.val() | self.move_t.val());
        if self.move_t.val() {
            self.cur_valid.d.next = false;
        }
        if !self.hold_valid.val() {
            self.cur_exempt.d.next = true;
        }
        // The request register's view after this edge: of the input register's request if it
        // moves in, else of its own; its ways of its block with this edge's tag write (the
        // blocks written and held compared before the edge: `c_ti`, `c_ct`), the flags as
        // they are before this edge.
        self.n_us8.next = self.c_us8.q.val();
        self.c_eq8.d.next = self.c_eq8.q.val();
        if self.same_set.q.val() {
            self.c_eq8.d.next = self.c_eq8.q.val() & !self.tw.val();
            if self.c_ct.val() {
                self.c_eq8.d.next = self.c_eq8.q.val() | self.tw.val();
            }
        }
        if self.move_e.val() {
            self.n_us8.next =
                bit_cast::<MAX_WAYS, MAX_SLOTS>(self.us_vec.val() >> (self.i_set.val() << 3));
            self.c_eq8.d.next = self.i_eq8.val();
            if self.i_set.val() == self.t_set.val() {
                self.c_eq8.d.next = self.i_eq8.val() & !self.tw.val();
                if self.c_ti.val() {
                    self.c_eq8.d.next = self.i_eq8.val() | self.tw.val();
                }
            }
        }
        self.c_us8.d.next = self.n_us8.val();
        // (Both sets' fields are picked, then one of them: the move selects last.)
        self.c_l8.d.next =
            bit_cast::<MAX_WAYS, MAX_SLOTS>(self.live_vec.val() >> (self.c_set.val() << 3));
        self.c_e8.d.next =
            bit_cast::<MAX_WAYS, MAX_SLOTS>(self.er.q.val() >> (self.c_set.val() << 3));
        self.i_l8.next =
            bit_cast::<MAX_WAYS, MAX_SLOTS>(self.live_vec.val() >> (self.i_set.val() << 3));
        self.i_e8.next =
            bit_cast::<MAX_WAYS, MAX_SLOTS>(self.er.q.val() >> (self.i_set.val() << 3));
        if self.move_e.val() {
            self.c_l8.d.next = self.i_l8.val();
            self.c_e8.d.next = self.i_e8.val();
        }
        if self.move_e.val() {
            self.cur_valid.d.next = true;
            self.cur_block.d.next = self.i_block.q.val();
            self.cur_port.d.next = self.i_port.q.val();
            self.cur_exempt.d.next = self.i_exempt.q.val() | !self.hold_valid.val();
        }

        // ---- The input register (`i_*`) takes the arbiter's request when it is empty or
        // its request moves on at this edge (it only registers the request, so that the
        // tag RAMs are read at a register's set).
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
        // The tag RAMs read the set of the input register's request after this edge.
        self.ta_set.next = self.i_set.val();
        if self.take.val() {
            self.ta_set.next =
                bit_cast::<SLOT_BITS, BLOCK_NUM_BITS>(self.sel_block.val() & self.set_mask.val());
        }
        self.i_byp.d.next = 0.into();
        if self.ta_set.val() == self.t_set.val() {
            self.i_byp.d.next = self.tw.val();
        }
        for w in 0..self._ways {
            self.tags[w].read_address.next =
                bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.ta_set.val());
        }
        // `same_q` after this edge, from the blocks the registers hold after it.
        self.same_q.d.next = self.c_ct.val();
        if self.move_e.val() {
            self.same_q.d.next = self.c_ti.val();
            if self.move_t.val() {
                self.same_q.d.next = self.c_ci.val();
            }
        } else if self.move_t.val() {
            self.same_q.d.next = true;
        }
        // The same for the sets, and the way of the request register's set (after this edge)
        // that this edge's answer named.
        self.same_set.d.next = self.s_ct.val();
        if self.move_e.val() {
            self.same_set.d.next = self.s_ti.val();
            if self.move_t.val() {
                self.same_set.d.next = self.s_ci.val();
            }
        } else if self.move_t.val() {
            self.same_set.d.next = true;
        }
        self.c_plt.d.next = 0.into();
        self.c_pln.d.next = 0.into();
        if self.go.val()
            & ((self.move_e.val() & self.s_ti.val()) | (!self.move_e.val() & self.s_ct.val()))
        {
            self.c_plt.d.next = self.t_wbit.q.val();
            if self.take_new.val() {
                self.c_pln.d.next = self.t_wbit.q.val();
            }
        }

        // ---- Answers: each port's queue, and the slots it holds (`MissAnswers`).
        for p in 0..self._ports {
            self.answers[p].push_valid.next =
                self.go.val() & (self.t_port.q.val() == self.port_num[p].val());
            self.answers[p].push_slot.next = self.slot_out.val();
            self.answers[p].ans_ready.next = self.ans_ready[p].val();
            self.ans_valid[p].next = self.answers[p].ans_valid.val();
            self.ans_slot[p].next = self.answers[p].ans_slot.val();
            self.answers[p].rel_valid.next = self.rel_valid[p].val();
            self.answers[p].rel_slot.next = self.rel_slot[p].val();
        }

        // ---- The reads (`MissFetch`): a new take is read; each beat goes into every port's
        // copy of the fill buffer and into the broadcast's ring, each fill into its queue.
        self.fetch.state_base.next = self.state_base.val();
        self.fetch.new_valid.next = self.take_new.val();
        self.fetch.new_block.next = self.t_block.q.val();
        self.fetch.new_slot.next = self.slot_out.val();
        self.arvalid.next = self.fetch.arvalid.val();
        self.fetch.arready.next = self.arready.val();
        self.araddr.next = self.fetch.araddr.val();
        self.arlen.next = self.fetch.arlen.val();
        self.arsize.next = self.fetch.arsize.val();
        self.arburst.next = self.fetch.arburst.val();
        self.fetch.rvalid.next = self.rvalid.val();
        self.rready.next = self.fetch.rready.val();
        self.fetch.rdata.next = self.rdata.val();
        self.fetch.rresp.next = self.rresp.val();
        self.fetch.rlast.next = self.rlast.val();
        for p in 0..self._ports {
            self.read[p].w_valid.next = self.fetch.beat_valid.val();
            self.read[p].w_slot.next = self.fetch.beat_slot.val();
            self.read[p].w_beat.next = self.fetch.beat_index.val();
            self.read[p].w_data.next = self.fetch.beat_data.val();
        }
        self.bcast.beat_valid.next = self.fetch.beat_valid.val();
        self.bcast.beat_data.next = self.fetch.beat_data.val();
        self.bcast.fill_valid.next = self.fetch.fill_valid.val();
        self.bcast.fill_good.next = !self.fetch.fill_failed.val();
        self.bcast.fill_block.next = self.fetch.fill_block.val();
        self.bcast.fill_slot.next = self.fetch.beat_slot.val();
        self.ret_bit.next = ((self.fetch.beat_slot.val() & self.slot_set_mask.val()) << 3)
            | (self.fetch.beat_slot.val() >> self.way_shift.val());
        self.ret_vec.next = self.one_vec.val() << self.ret_bit.val();

        // ---- The slots' flags: a new take clears its fill flags and is pending until its
        // fill lands failed or its broadcast is done.
        if self.take_new.val() {
            self.pend.d.next = self.pend.q.val() | self.out_vec.val();
            self.fl.d.next = self.fl.q.val() & !self.out_vec.val();
            self.er.d.next = self.er.q.val() & !self.out_vec.val();
        }
        if self.fetch.fill_valid.val() {
            self.fl.d.next = self.fl.d.val() | self.ret_vec.val();
            if self.fetch.fill_failed.val() {
                self.er.d.next = self.er.d.val() | self.ret_vec.val();
                self.pend.d.next = self.pend.d.val() & !self.ret_vec.val();
            }
        }
        self.sent_bit.next = ((self.bcast.sent_slot.val() & self.slot_set_mask.val()) << 3)
            | (self.bcast.sent_slot.val() >> self.way_shift.val());
        if self.bcast.sent_valid.val() {
            self.pend.d.next = self.pend.d.val() & !(self.one_vec.val() << self.sent_bit.val());
        }

        // ---- Broadcast (`MissBroadcast`).
        self.cw_valid.next = self.bcast.cw_valid.val();
        self.cw_line.next = self.bcast.cw_line.val();
        self.cw_block.next = self.bcast.cw_block.val();
        self.cw_beat.next = self.bcast.cw_beat.val();
        self.cw_last.next = self.bcast.cw_last.val();
        self.cw_data.next = self.bcast.cw_data.val();

        // ---- Fill buffer read ports.
        for p in 0..self._ports {
            self.read[p].fl_vec.next = self.fl.q.val();
            self.read[p].er_vec.next = self.er.q.val();
            self.read[p].rd_slot.next = self.rd_slot[p].val();
            self.read[p].rd_word.next = self.rd_word[p].val();
            self.read[p].rd_slot2.next = self.rd_slot2[p].val();
            self.rd_data[p].next = self.read[p].rd_data.val();
            self.rd_filled[p].next = self.read[p].rd_filled.val();
            self.rd_filled2[p].next = self.read[p].rd_filled2.val();
            self.rd_error[p].next = self.read[p].rd_error.val();
        }

        if self.rst.val() {
            self.rr.d.next = 0.into();
            self.cur_valid.d.next = false;
            self.i_valid.d.next = false;
            self.t_valid.d.next = false;
            self.t_ok.d.next = false;
            self.lt_valid.d.next = false;
            self.busy_q.d.next = false;
            self.pend.d.next = 0.into();
            self.fl.d.next = 0.into();
            self.er.d.next = 0.into();
        }
    }
}
