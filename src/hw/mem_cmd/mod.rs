//! `MemCmdEngine`: the command engine of `state = in_memory` (SPEC §9; design in
//! `docs/state_in_memory.md`, "Commands"). It plays the part [`CmdEngine`](super::cmd_engine)
//! plays with the state on chip: the init sweep, the commands of SPEC §6 one at a time, the
//! quarantine, the drain and the command counters (the blocks both engines use: the
//! [`Quarantine`] inside, the [`Drain`](super::drain::Drain) and the
//! [`CmdCounters`](super::cmd_counters::CmdCounters) beside it at the top level); but the per-index state lives in the state
//! table in memory, which this engine alone writes, and on chip it keeps only one bit per
//! block of each of: `written` (the block was written since reset: lazy initialisation),
//! `live` (the block holds a RESERVED or VALID index: the lookup pipes' fail-fast filter, one
//! copy per pipe, written from here) and the block free map (a [`FreeMap`] over blocks: the
//! block holds an index ALLOC may take).
//!
//! # A command, step by step
//!
//! | step | states | what happens |
//! |---|---|---|
//! | take | `Idle` | the command is latched; the lookups in flight at that edge are counted (`PreA`, `PreB`, as the FREE drain counts them) |
//! | release | `Start`, `Rel*` | the oldest quarantined index goes back to the pool if its time is over, one per command as with the state on chip: its word is rewritten FREE (a read and a write of its block; no lookup answer changes, so no hold) and its block's free bit is set |
//! | decode | `Decode`, `Find*`, `Known` | range, opcode; ALLOC finds a block with the free map (cyclic: from the block of the last ALLOC's successor), or takes the one the engine knows it finds (`n_known`) |
//! | hold | `Acquire`, `HoldOn`, `HoldWait`, `Inval` | waits until every lookup counted at the take has answered (so none of them still has to read the block), holds the block in the miss unit and waits until no fill of it is in flight or unreleased, then invalidates its cache line in every port |
//! | read | `LookA`, `Lookup`, `WRead*`, `ArReq`, `Scan`, `Select`, `PickG`, `PickB`, `Pick` | a block in the working or the parked slot is used as it is (the comparisons with both registered in `Inval`, or `LookA` after a release); otherwise (the working slot goes to the parked one first if it holds the block the next ALLOC takes) reads `written` (over its latency: 5 edges with its row and address registers at index_bits 24); a block never written is all FREE with generation 0 and is not read; otherwise the block is read (AXI ID 1, one burst) and each beat is scanned whole in the cycle after it arrives (one lane per word, each row of lanes at its constant place in the masks): which words are FREE (ALLOC may take them) and which live; from those masks, the first index ALLOC may take from its start (over three edges: its group of 16 words, their bits, the bit), whether other words are live or allocatable |
//! | check, write | `Decide`, `WReq`, `WWait` | the checks of SPEC §6; the new word goes to memory: the bus beat's bytes that hold it (the unit of `max(8, word_bits)` bits, its other words as read), or, for a block never written, the whole block (zeros but the word) |
//! | prefetch | `PfWait`, `PfWr*` | ALLOC that leaves its block: the block the free map found after it (searched from `HoldOn`) goes to the parked slot, read in the background (`pf_inflight`) while the write is in flight; the CLEAR of a block whose last index ALLOC took goes with the write |
//! | on chip | `OnChip`, `MapWait`, `ClrWait` | after the write response: `written`, the pipes' `live` copies, the free map, the counters (a failed write undoes the early CLEAR: `Undo`) |
//! | move | `Idle`, `Init` | a write of STATE_BASE (accepted only with no index in use or in quarantine; `state_base_wr`), also one that leaves its value, starts a new table (SPEC §9): the block buffer and the known next block are dropped and, if a block was marked written since the last sweep, `Idle` goes back to the `Init` sweep of `written` and the pipes' `live` copies (one cycle a block) before it takes another command; the free map and the quarantine hold nothing to change (every index is FREE) |
//! | end | `Finish`, FREE: `FreeA`, `FreeB`, `Drain`, `Push`/`PoolWait`, `NFind*`, `Swap` | the hold drops; FREE drains the lookups accepted before the hold dropped, then quarantines the index (or returns it to the pool, and parks its block if the next ALLOC takes from it: the free map's SET of the block and the search for the next ALLOC's block are sent while the write is in flight, the SET undone if the write fails) |
//!
//! A read or write answered with an AXI error ends the command with status MEM_ERROR and
//! changes nothing on chip (a write error leaves the block's memory undefined: it is not
//! marked written, so it reads as never written, all FREE; the line was invalidated).
//!
//! # Why lookups see what SPEC §6 requires
//!
//! A lookup accepted before the command's take has answered before the engine changes
//! anything (the pre-drain), so it saw the old state. A lookup accepted after the write
//! response either hits a line filled after the write (the line of the block was invalidated
//! while the block was held, and no fill of the block can start while it is held) or misses
//! and reads memory, which holds the new word. Lookups in between see either.
//!
//! # Cost
//!
//! One command at a time. The block buffer has two slots (see `wh`): the working slot and the
//! parked one, the block the next ALLOC takes. A command on either takes one write round trip
//! and a few tens of cycles; on another block that was written, one memory read round trip
//! (two cycles a beat: receive, scan) more; one that also releases a quarantined index takes
//! a second read and write.
//!
//! The AXI read port (`c_ar*`, `c_r*`) carries ID 1 at the top level, which arbitrates it with
//! the miss unit's (ID 0) behind a register slice (`eng_ar_skid`: `c_arready` is a register),
//! and gives the engine its R beats one edge after their handshake (`eng_r_valid`, with
//! `rready` low in that cycle). `c_rready` is low while a beat of the engine's is held (the
//! cycle after the engine takes it): it does not depend on the R channel, and the top level
//! ANDs it with the other readers' (R carries no combinational path from `m_axi_rid` to
//! `m_axi_rready`). The writes go through the [`MemWriter`](super::mem_writer::MemWriter)
//! beside the engine. So no logic of the engine follows an AXI input: Verilator evaluates it
//! once a cycle, not again at every change of the inputs.

mod build;
mod state;
pub use state::MemState;

use super::cmd_counters::CmdEvents;
use super::codes::{CmdCodes, MapOps, OpCodes};
use super::defaults;
use super::free_map::FreeMap;
use super::mem_writer::{MEM_DATA_BITS_MAX, MEM_STRB_BITS_MAX};
use super::miss_unit::{MissParams, BLOCK_NUM_BITS, WORD_BITS_MAX};
use super::quarantine::{Quarantine, COUNT_BITS};
use super::ram::{Ram, RAM_ADDR_BITS};
use super::{EngineParams, ADDR_BITS, QPN_BITS, TIME_BITS};
use crate::config::Reuse;
use rust_hdl::prelude::*;

/// A word counter within a block (up to 256 words, and one past).
const W_BITS: usize = 9;
/// A mask with one bit per word of a block (`block_bits <= 8`).
const MASK_BITS: usize = 256;
/// A mask with one bit per row (bus beat) of a block (at most 128 rows).
const ROW_BITS: usize = 128;
/// State codes of a word in memory (bits \[1:0\]).
pub const WORD_FREE: u64 = 0;
pub const WORD_RESERVED: u64 = 1;
pub const WORD_VALID: u64 = 2;
pub const WORD_QUARANTINED: u64 = 3;

#[derive(LogicBlock)]
pub struct MemCmdEngine {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_op: Signal<In, Bits<4>>,
    pub cmd_qpn: Signal<In, Bits<QPN_BITS>>,
    pub cmd_time: Signal<In, Bits<TIME_BITS>>,
    pub cmd_done: Signal<Out, Bit>,
    pub result_status: Signal<Out, Bits<4>>,
    pub result_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub init_done: Signal<Out, Bit>,
    pub state_base: Signal<In, Bits<ADDR_BITS>>,
    /// High for one cycle after each accepted STATE_BASE write (with `state_base` the new
    /// value): a new table, also when the value did not change (SPEC §9).
    pub state_base_wr: Signal<In, Bit>,
    /// The cache tags were swept after reset (`CacheWrites`): `init_done` waits for it.
    pub cache_swept: Signal<In, Bit>,
    /// Write port of every lookup pipe's `live` copy (one bit per block).
    pub live_we: Signal<Out, Bit>,
    pub live_waddr: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub live_wdata: Signal<Out, Bit>,
    /// The FREE drain ([`Drain`](super::drain::Drain), beside the engine): count the lookups
    /// in flight at this edge; every lookup it counted has been answered.
    pub drain_snap: Signal<Out, Bit>,
    pub drained: Signal<In, Bit>,
    /// What happened, for the counters of SPEC §6
    /// ([`CmdCounters`](super::cmd_counters::CmdCounters), beside the engine), and the
    /// quarantine's count (QUARANTINED).
    pub events: Signal<Out, CmdEvents>,
    pub quarantined: Signal<Out, Bits<COUNT_BITS>>,
    // The miss unit's hold (see `MissUnit`, "Commands").
    pub hold_valid: Signal<Out, Bit>,
    pub hold_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub busy_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub busy: Signal<In, Bit>,
    // Invalidation of a cache line in every port (held until `inv_done`).
    pub inv_valid: Signal<Out, Bit>,
    pub inv_line: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub inv_done: Signal<In, Bit>,
    // AXI4 read (ID 1 at the top level).
    pub c_arvalid: Signal<Out, Bit>,
    pub c_arready: Signal<In, Bit>,
    pub c_araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub c_arlen: Signal<Out, Bits<8>>,
    pub c_rvalid: Signal<In, Bit>,
    pub c_rready: Signal<Out, Bit>,
    pub c_rdata: Signal<In, Bits<MEM_DATA_BITS_MAX>>,
    pub c_rresp: Signal<In, Bits<2>>,
    pub c_rlast: Signal<In, Bit>,
    // The writes, through the [`MemWriter`](super::mem_writer::MemWriter) beside the engine
    // at the top level (its request, from registers; its `done` and `error`, registered): no
    // logic of the engine follows an AXI input (Verilator evaluates such logic again at every
    // change of the inputs).
    pub wr_req_valid: Signal<Out, Bit>,
    pub wr_req_ready: Signal<In, Bit>,
    pub wr_req_addr: Signal<Out, Bits<ADDR_BITS>>,
    pub wr_req_last: Signal<Out, Bits<8>>,
    pub wr_req_beat: Signal<Out, Bits<8>>,
    pub wr_req_data: Signal<Out, Bits<MEM_DATA_BITS_MAX>>,
    pub wr_req_strb: Signal<Out, Bits<MEM_STRB_BITS_MAX>>,
    pub wr_done: Signal<In, Bit>,
    pub wr_error: Signal<In, Bit>,
    // Children.
    map: FreeMap,
    /// (A 2-bit word type, 1 bit stored: rust-hdl declares a 1-bit port without a range.)
    written: Ram<Bits<2>>,
    /// The quarantine queue (a block both command engines use).
    quar: Quarantine,
    // Control.
    state: DFF<MemState>,
    cursor: DFF<Bits<BLOCK_NUM_BITS>>,
    op: DFF<Bits<4>>,
    qpn: DFF<Bits<QPN_BITS>>,
    time_q: DFF<Bits<TIME_BITS>>,
    /// The operation in progress is the release of a quarantined index (not the command).
    rel: DFF<Bit>,
    /// The release in progress is the overflow of a FREE (else the one before a command).
    rel_overflow: DFF<Bit>,
    /// The block of the operation, and the word targeted (known up front, or found by ALLOC).
    blk: DFF<Bits<BLOCK_NUM_BITS>>,
    /// `blk` one edge later, for the ports to the miss unit and the cache (`hold_block`,
    /// `busy_block`, `inv_line`): their own register, so that `blk` sits with the engine's
    /// logic. Each is read from the edge after `HoldOn` on, `blk` last changed before
    /// `Acquire`.
    blk_o: DFF<Bits<BLOCK_NUM_BITS>>,
    tw: DFF<Bits<W_BITS>>,
    tw_known: DFF<Bit>,
    /// ALLOC: the first index it may take in the block (the start of the search).
    start: DFF<Bits<QPN_BITS>>,
    /// ALLOC: the block where the search started, and that a second search ran.
    start_blk: DFF<Bits<BLOCK_NUM_BITS>>,
    second: DFF<Bit>,
    /// `second | blk != start_blk`, registered: read by `Pick` and, for `from_q`, by `Select`,
    /// edges after the three last changed.
    other_q: DFF<Bit>,
    next_alloc: DFF<Bits<QPN_BITS>>,
    was_written: DFF<Bit>,
    hold_wait: DFF<Bits<2>>,
    /// Edges `WRead2` / `PfWr2` still wait for `written`'s word (its latency beyond 2: the
    /// row and address registers of a RAM of several rows of blocks), and that count.
    wr_wait: DFF<Bits<2>>,
    wr_extra: Constant<Bits<2>>,
    /// `t_index >= first_index`, registered (its carry chain off the paths into `OnChip` and
    /// `Drain`, which come edges after `blk` and `tw` last changed).
    t_ge_first: DFF<Bit>,
    // Scan.
    w: DFF<Bits<W_BITS>>,
    beat_r: DFF<Bits<MEM_DATA_BITS_MAX>>,
    beat_ok: DFF<Bit>,
    rd_err: DFF<Bit>,
    ar_q: DFF<Bit>,
    tword: DFF<Bits<WORD_BITS_MAX>>,
    tunit: DFF<Bits<WORD_BITS_MAX>>,
    /// A live word other than the target.
    other_live: DFF<Bit>,
    // The block buffer: the last block the engine read or wrote (only the engine writes the
    // state table, so it stays exact), its rows, and one bit per word: allocatable, live.
    cbuf: Ram<Bits<MEM_DATA_BITS_MAX>>,
    cb_valid: DFF<Bit>,
    cb_block: DFF<Bits<BLOCK_NUM_BITS>>,
    cb_written: DFF<Bit>,
    alloc_m: DFF<Bits<MASK_BITS>>,
    live_m: DFF<Bits<MASK_BITS>>,
    /// `range_m` over two edges (its bounds, then the mask): `range_q` is the range of the
    /// block `ablk` was two edges before. The bounds are registered for each block `ablk`
    /// may be, `[blk, pblk]`, and `ablk_pf` says which one `ablk` was, so that no path runs
    /// from the state decode that picks `ablk` into their carry chains.
    lo_wq: Vec<DFF<Bits<W_BITS>>>,
    hi_wq: Vec<DFF<Bits<W_BITS>>>,
    ablk_pf: DFF<Bit>,
    range_q: DFF<Bits<MASK_BITS>>,
    /// Rows of the buffer that hold the block's data (the others are zeros: never written).
    rows_ok: DFF<Bits<ROW_BITS>>,
    /// ALLOC: the candidates from the start, and which 16-word groups hold one.
    cand_q: DFF<Bits<MASK_BITS>>,
    grp_q: DFF<Bits<16>>,
    /// The first group with a candidate (registered from `grp_q`), and its 16 candidates
    /// (registered from that): `PickG` and `PickB` wait for them, so that the search is three
    /// short steps (group, its bits, the bit) instead of one long one.
    grp_sel_q: DFF<Bits<W_BITS>>,
    grp_bits_q: DFF<Bits<16>>,
    /// The words from ALLOC's start on (`words_all << start_w`), registered: `Select` comes
    /// 4 edges or more after `blk`, `start`, `start_blk` and `second` last changed
    /// (`FindWait` or `Known`, then `Acquire`, `HoldOn`, `HoldWait`, `Inval`, `Lookup`).
    from_q: DFF<Bits<MASK_BITS>>,
    /// The buffer has two slots (two halves of `cbuf`): the working slot (`cb_*`, the masks
    /// above, half `wh`) that a command uses, and the parked slot (`p_*`, the other half),
    /// which holds the block the next ALLOC takes when the engine knows it (prefetched by
    /// the ALLOC that leaves its block, or the block of a FREE that becomes it). A command
    /// whose block is parked swaps the slots.
    wh: DFF<Bit>,
    p_valid: DFF<Bit>,
    p_block: DFF<Bits<BLOCK_NUM_BITS>>,
    p_written: DFF<Bit>,
    p_alloc: DFF<Bits<MASK_BITS>>,
    p_live: DFF<Bits<MASK_BITS>>,
    p_rows: DFF<Bits<ROW_BITS>>,
    /// The block being prefetched; that the ALLOC leaves its block; a read error of the
    /// prefetch; `Swap` goes on to `Done` (else to `Select`).
    pblk: DFF<Bits<BLOCK_NUM_BITS>>,
    pf_need: DFF<Bit>,
    pf_err: DFF<Bit>,
    swap_done: DFF<Bit>,
    /// The block the next ALLOC takes (its first search's result), when known exactly: set
    /// by an ALLOC (its block, or the prefetch search's result) and by a FREE back to the
    /// pool; dropped by anything else that may change the search's result (an ALLOC_AT in
    /// that block, a quarantine release, a move of STATE_BASE). Saves ALLOC the search.
    n_known: DFF<Bit>,
    n_blk: DFF<Bits<BLOCK_NUM_BITS>>,
    n_wrap: DFF<Bit>,
    /// ALLOC: the search of the block after this one (from `HoldOn`) runs; its result.
    pf_busy: DFF<Bit>,
    /// The prefetch's read, received in the background (the ALLOC that started it may have
    /// ended): AR to send, in flight, its beat register and word counter, its half of
    /// `cbuf`. A command that needs a block it does not have waits until it is over.
    pf_ar_q: DFF<Bit>,
    pf_inflight: DFF<Bit>,
    /// `Lookup`'s decisions, registered (`LookA` or `Inval` comes first): the working slot
    /// holds `blk`, the parked slot does, and `pf_inflight` of the cycle before. The valid
    /// flags only fall outside the command's states (a write of STATE_BASE), except at the
    /// end of a prefetch, which `pf_was_q` covers; `Lookup` ANDs the hits with them.
    cb_hit_q: DFF<Bit>,
    p_hit_q: DFF<Bit>,
    /// The working slot holds the block the next ALLOC takes (`n_blk`), registered: a
    /// command on another block that is in neither slot parks it before its read.
    nk_hit_q: DFF<Bit>,
    /// The command's block is the next ALLOC's (`blk == n_blk`), registered: an ALLOC_AT
    /// there forgets `n_blk` (it may have taken the index ALLOC would); one on another block
    /// changes nothing ALLOC's search would find (that block holds no index the next ALLOC
    /// takes before `n_blk`'s).
    nb_hit_q: DFF<Bit>,
    pf_was_q: DFF<Bit>,
    /// No word ALLOC may take in the working slot from the cursor's word on, registered: read
    /// by `NFindWait` when the free map's search is done, edges after the masks and the
    /// cursor last changed (`OnChip`).
    cur_tail_q: DFF<Bit>,
    /// The working slot holds the cursor's block, registered; and `cur_tail_q` as it was the
    /// last time it did (`ct_q`): the cursor's block leaves the working slot only for a
    /// command on another block, which changes nothing in it, so `ct_q` stays exact while
    /// the cursor is in that block (a cursor at a block's first word has no tail).
    cb_is_cur_q: DFF<Bit>,
    ct_q: DFF<Bit>,
    pbeat: DFF<Bits<MEM_DATA_BITS_MAX>>,
    pbeat_ok: DFF<Bit>,
    pw: DFF<Bits<W_BITS>>,
    pf_half: DFF<Bit>,
    /// The free map operation a command sends while its write is in flight, undone if the
    /// write fails: ALLOC's CLEAR of a block whose last index it takes (see `ClrWait`),
    /// FREE's SET of a block that had no index to take (see `PoolWait`). Sent (to be
    /// undone on an error), and not yet done.
    early_issued: DFF<Bit>,
    early_busy: DFF<Bit>,
    /// FREE back to the pool: the search for the block the next ALLOC takes (`NFindWait`) was
    /// sent, under the write (`WWait`) or after it; its result comes in `pf_found`, `pf_res`.
    nf_started: DFF<Bit>,
    pf_found: DFF<Bit>,
    pf_res: DFF<Bits<BLOCK_NUM_BITS>>,
    /// The target's row with its new word, kept from `WReq` (a prefetch reuses `beat_r`).
    new_row_q: DFF<Bits<MEM_DATA_BITS_MAX>>,
    /// The writer's `done` (one cycle) and `error`, kept until `WWait` sees them.
    wr_fin: DFF<Bit>,
    wr_ferr: DFF<Bit>,
    /// STATE_BASE as last seen (a change empties the buffer).
    base_seen: DFF<Bits<ADDR_BITS>>,
    /// STATE_BASE written since the last sweep: a new table (SPEC §9), in which every block
    /// counts as never written. `Idle` sweeps `written` and the pipes' `live` copies (the
    /// `Init` sweep of reset) before it takes another command.
    moved: DFF<Bit>,
    /// A block was marked written since the last sweep: a move must sweep (without it, as
    /// when STATE_BASE is set after reset before any command, there is nothing to forget).
    dirty: DFF<Bit>,
    others_alloc: DFF<Bit>,
    // Decision.
    new_word: DFF<Bits<WORD_BITS_MAX>>,
    pending_status: DFF<Bits<4>>,
    pending_qpn: DFF<Bits<QPN_BITS>>,
    status_q: DFF<Bits<4>>,
    qpn_q: DFF<Bits<QPN_BITS>>,
    init_done_q: DFF<Bit>,
    hold_q: DFF<Bit>,
    inv_q: DFF<Bit>,
    live_we_q: DFF<Bit>,
    live_waddr_q: DFF<Bits<BLOCK_NUM_BITS>>,
    live_wdata_q: DFF<Bit>,
    wr_req_q: DFF<Bit>,
    wr_addr_q: DFF<Bits<ADDR_BITS>>,
    wr_last_q: DFF<Bits<8>>,
    wr_beat_q: DFF<Bits<8>>,
    wr_data_q: DFF<Bits<MEM_DATA_BITS_MAX>>,
    wr_strb_q: DFF<Bits<MEM_STRB_BITS_MAX>>,
    map_valid_q: DFF<Bit>,
    map_cmd_q: DFF<Bits<2>>,
    map_index_q: DFF<Bits<QPN_BITS>>,
    // Locals.
    /// The counters' pulses ([`CmdCounters`], which registers them): an index reserved, a
    /// FREE completed, a failed command, a FULL, a quarantine overflow; the quarantine's push
    /// and pop.
    ev: Signal<Local, CmdEvents>,
    q_push: Signal<Local, Bit>,
    q_pop: Signal<Local, Bit>,
    index: Signal<Local, Bits<QPN_BITS>>,
    gen: Signal<Local, Bits<QPN_BITS>>,
    block_addr: Signal<Local, Bits<ADDR_BITS>>,
    word_v: Signal<Local, Bits<WORD_BITS_MAX>>,
    unit_v: Signal<Local, Bits<WORD_BITS_MAX>>,
    /// The scan of a beat: its words that are FREE, and live (RESERVED or VALID), one bit
    /// per lane; the words of the block ALLOC may take (in [first_index, max_qps)).
    lane_free: Signal<Local, Bits<MASK_BITS>>,
    lane_live: Signal<Local, Bits<MASK_BITS>>,
    /// The row of the beat under the scan (`w_row`, or the prefetch's `pf_row`), and the
    /// lanes put at its words (`lane_* << w` as `w` is the row's first word), each row at its
    /// constant place: no shifter between the beat and the masks.
    s_row: Signal<Local, Bits<W_BITS>>,
    free_at: Signal<Local, Bits<MASK_BITS>>,
    live_at: Signal<Local, Bits<MASK_BITS>>,
    row_at: Signal<Local, Bits<ROW_BITS>>,
    range_m: Signal<Local, Bits<MASK_BITS>>,
    lane_bits: Signal<Local, Bits<16>>,
    /// The beat under the scan is the block's last (its `rlast` must be high, and only then).
    last_beat: Signal<Local, Bit>,
    /// The bit of `written`'s 2-bit word that is not stored (the name tells the lint so).
    unused_written: Signal<Local, Bit>,
    w_unit0: Signal<Local, Bits<W_BITS>>,
    unit_byte: Signal<Local, Bits<16>>,
    res_blk: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    nw_gen: Signal<Local, Bits<QPN_BITS>>,
    t_state: Signal<Local, Bits<2>>,
    t_gen: Signal<Local, Bits<QPN_BITS>>,
    t_index: Signal<Local, Bits<QPN_BITS>>,
    new_unit: Signal<Local, Bits<WORD_BITS_MAX>>,
    unit_off: Signal<Local, Bits<ADDR_BITS>>,
    unit_addr: Signal<Local, Bits<ADDR_BITS>>,
    data_shift: Signal<Local, Bits<16>>,
    map_op_valid: Signal<Local, Bit>,
    map_cmd: Signal<Local, Bits<2>>,
    map_op_index: Signal<Local, Bits<QPN_BITS>>,
    /// The command is a FREE that returns its index to the pool (no quarantine, an index
    /// ALLOC takes), and the search of `NFindWait` is sent in this cycle.
    free_to_pool: Signal<Local, Bit>,
    nf_go: Signal<Local, Bit>,
    /// ALLOC's first search is sent in this cycle (`Decode`).
    first_find: Signal<Local, Bit>,
    /// The cursor's block holds no index to take from the cursor on (wherever that block is).
    tail_now: Signal<Local, Bit>,
    t_onehot: Signal<Local, Bits<MASK_BITS>>,
    start_w: Signal<Local, Bits<W_BITS>>,
    cand: Signal<Local, Bits<MASK_BITS>>,
    lo_w: Signal<Local, Bits<W_BITS>>,
    hi_w: Signal<Local, Bits<W_BITS>>,
    bstart: Signal<Local, Bits<QPN_BITS>>,
    /// The blocks `ablk` may be: `[blk, pblk]`.
    src_blk: Vec<Signal<Local, Bits<BLOCK_NUM_BITS>>>,
    /// `ablk` is `pblk`.
    pf_sel: Signal<Local, Bit>,
    /// One of `src_blk`.
    ablk_k: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    w_row: Signal<Local, Bits<W_BITS>>,
    t_row: Signal<Local, Bits<W_BITS>>,
    grp_sel: Signal<Local, Bits<W_BITS>>,
    grp_bits: Signal<Local, Bits<16>>,
    bit_sel: Signal<Local, Bits<W_BITS>>,
    new_row: Signal<Local, Bits<MEM_DATA_BITS_MAX>>,
    row_valid: Signal<Local, Bit>,
    grp_acc: Signal<Local, Bits<16>>,
    grp_seen: Signal<Local, Bit>,
    bit_seen: Signal<Local, Bit>,
    new_alloc: Signal<Local, Bit>,
    new_live: Signal<Local, Bit>,
    /// The block whose address and ALLOC range are computed: `pblk` while prefetching.
    ablk: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    /// First row of the working half of `cbuf`, and of the prefetch's half.
    whalf: Signal<Local, Bits<W_BITS>>,
    /// The beat and word counter the lanes scan (`beat_r`, or the prefetch's), the
    /// prefetch's block address, row, and last beat.
    sbeat: Signal<Local, Bits<MEM_DATA_BITS_MAX>>,
    pf_addr: Signal<Local, Bits<ADDR_BITS>>,
    ar_addr: Signal<Local, Bits<ADDR_BITS>>,
    /// Rows of `cbuf`: the scan's and the target's in the working half, the prefetch's in
    /// its half.
    w_row_a: Signal<Local, Bits<W_BITS>>,
    t_row_a: Signal<Local, Bits<W_BITS>>,
    p_row_a: Signal<Local, Bits<W_BITS>>,
    pf_row: Signal<Local, Bits<W_BITS>>,
    p_last: Signal<Local, Bit>,
    /// The cursor (`next_alloc`): its block, and its word in the block.
    cur_blk: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    cur_w: Signal<Local, Bits<W_BITS>>,
    phalf: Signal<Local, Bits<W_BITS>>,
    // Constants.
    words_all: Constant<Bits<MASK_BITS>>,
    rows_all: Constant<Bits<ROW_BITS>>,
    one_m: Constant<Bits<MASK_BITS>>,
    one16: Constant<Bits<16>>,
    one_r: Constant<Bits<ROW_BITS>>,
    /// Rows of a slot (a block's beats): the first row of the second half of `cbuf`.
    half_rows: Constant<Bits<W_BITS>>,
    wpr_shift: Constant<Bits<5>>,
    /// Per lane of a beat: the offset of its word's state bits, and its bit in a lane mask.
    lane_off: Vec<Constant<Bits<W_BITS>>>,
    lane_bit: Vec<Constant<Bits<MASK_BITS>>>,
    /// Words per beat (lanes).
    _wpr: usize,
    /// Each row of a block: its number, and its first word (rows of `_wpr` words).
    row_n: Vec<Constant<Bits<W_BITS>>>,
    row_word: Vec<Constant<Bits<W_BITS>>>,
    row_bit: Vec<Constant<Bits<ROW_BITS>>>,
    _rows: usize,
    c16: Vec<Constant<Bits<W_BITS>>>,
    index_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<5>>,
    gen_mask: Constant<Bits<QPN_BITS>>,
    max_qps: Constant<Bits<25>>,
    last_index: Constant<Bits<QPN_BITS>>,
    first_index: Constant<Bits<QPN_BITS>>,
    last_block: Constant<Bits<BLOCK_NUM_BITS>>,
    first_block: Constant<Bits<BLOCK_NUM_BITS>>,
    reuse_lowest: Constant<Bit>,
    q_on: Constant<Bit>,
    block_bits: Constant<Bits<5>>,
    words_m1: Constant<Bits<W_BITS>>,
    word_shift: Constant<Bits<5>>,
    word_mask: Constant<Bits<WORD_BITS_MAX>>,
    wpr_m1: Constant<Bits<W_BITS>>,
    beats_m1: Constant<Bits<8>>,
    block_bytes_shift: Constant<Bits<5>>,
    base_mask: Constant<Bits<ADDR_BITS>>,
    bus_mask: Constant<Bits<ADDR_BITS>>,
    bus_shift: Constant<Bits<5>>,
    upw_shift: Constant<Bits<5>>,
    ub_shift: Constant<Bits<5>>,
    unit_words_mask: Constant<Bits<W_BITS>>,
    unit_strb: Constant<Bits<MEM_STRB_BITS_MAX>>,
    init_strb: Constant<Bits<MEM_STRB_BITS_MAX>>,
    line_mask: Constant<Bits<BLOCK_NUM_BITS>>,
    ops: OpCodes,
    res: CmdCodes,
    map_op: MapOps,
    mem_error_code: Constant<Bits<4>>,
}

impl Logic for MemCmdEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            cursor,
            op,
            qpn,
            time_q,
            rel,
            rel_overflow,
            blk,
            blk_o,
            tw,
            tw_known,
            start,
            start_blk,
            second,
            other_q,
            next_alloc,
            was_written,
            hold_wait,
            wr_wait,
            grp_sel_q,
            grp_bits_q,
            from_q,
            t_ge_first,
            w,
            beat_r,
            beat_ok,
            rd_err,
            ar_q,
            tword,
            tunit,
            other_live,
            new_word,
            pending_status,
            pending_qpn,
            status_q,
            qpn_q,
            init_done_q,
            hold_q,
            inv_q,
            live_we_q,
            live_waddr_q,
            live_wdata_q,
            wr_req_q,
            wr_addr_q,
            wr_last_q,
            wr_beat_q,
            wr_data_q,
            wr_strb_q,
            map_valid_q,
            map_cmd_q,
            map_index_q,
            cb_valid,
            cb_block,
            cb_written,
            alloc_m,
            ablk_pf,
            range_q,
            live_m,
            rows_ok,
            cand_q,
            grp_q,
            base_seen,
            moved,
            dirty,
            others_alloc,
            wh,
            p_valid,
            p_block,
            p_written,
            p_alloc,
            p_live,
            p_rows,
            pblk,
            pf_need,
            pf_err,
            swap_done,
            new_row_q,
            wr_fin,
            wr_ferr,
            n_known,
            n_blk,
            n_wrap,
            pf_found,
            pf_res,
            pf_busy,
            pf_ar_q,
            pf_inflight,
            cb_hit_q,
            p_hit_q,
            nk_hit_q,
            nb_hit_q,
            cb_is_cur_q,
            ct_q,
            pf_was_q,
            cur_tail_q,
            pbeat,
            pbeat_ok,
            pw,
            pf_half,
            early_issued,
            early_busy,
            nf_started
        );
        self.cbuf.clock.next = self.clock.val();
        self.cbuf.write_enable.next = false;
        // A write of STATE_BASE (or a change of it) empties the buffer and starts a new table.
        self.base_seen.d.next = self.state_base.val();
        if (self.base_seen.q.val() != self.state_base.val()) | self.state_base_wr.val() {
            self.cb_valid.d.next = false;
            self.p_valid.d.next = false;
            self.moved.d.next = true;
        }
        self.map.clock.next = self.clock.val();
        self.map.rst.next = self.rst.val();
        self.written.clock.next = self.clock.val();
        self.wr_req_valid.next = self.wr_req_q.q.val();
        self.wr_req_addr.next = self.wr_addr_q.q.val();
        self.wr_req_last.next = self.wr_last_q.q.val();
        self.wr_req_beat.next = self.wr_beat_q.q.val();
        self.wr_req_data.next = self.wr_data_q.q.val();
        self.wr_req_strb.next = self.wr_strb_q.q.val();
        if self.wr_req_ready.val() {
            self.wr_req_q.d.next = false;
        }
        if self.early_busy.q.val() & self.map.done.val() {
            self.early_busy.d.next = false;
        }
        if self.pf_busy.q.val() & self.map.done.val() {
            self.pf_busy.d.next = false;
            self.pf_found.d.next = self.map.found.val();
            self.pf_res.d.next = bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.map.result.val());
        }
        if self.wr_done.val() {
            self.wr_fin.d.next = true;
            self.wr_ferr.d.next = self.wr_error.val();
        }

        self.ev.next.reserved = false;
        self.ev.next.freed = false;
        self.ev.next.error = false;
        self.ev.next.full = false;
        self.ev.next.overflow = false;
        self.q_push.next = false;
        self.q_pop.next = false;
        self.quarantined.next = self.quar.count.val();
        // The drain: a snapshot at `PreB` (the lookups in flight at the take) and at `FreeB`
        // (those in flight after the hold dropped).
        self.drain_snap.next =
            (self.state.q.val() == MemState::PreB) | (self.state.q.val() == MemState::FreeB);

        // Outputs from registers.
        self.cmd_done.next = self.state.q.val() == MemState::Done;
        self.init_done.next = self.init_done_q.q.val();
        self.result_status.next = self.status_q.q.val();
        self.result_qpn.next = self.qpn_q.q.val();
        self.hold_valid.next = self.hold_q.q.val();
        self.blk_o.d.next = self.blk.q.val();
        self.hold_block.next = self.blk_o.q.val();
        self.busy_block.next = self.blk_o.q.val();
        self.inv_valid.next = self.inv_q.q.val();
        self.inv_line.next = self.blk_o.q.val() & self.line_mask.val();
        self.cb_hit_q.d.next = self.cb_block.q.val() == self.blk.q.val();
        self.p_hit_q.d.next = self.p_block.q.val() == self.blk.q.val();
        self.nb_hit_q.d.next = self.blk.q.val() == self.n_blk.q.val();
        self.nk_hit_q.d.next = self.n_known.q.val()
            & self.cb_valid.q.val()
            & (self.cb_block.q.val() == self.n_blk.q.val());
        self.pf_was_q.d.next = self.pf_inflight.q.val();
        self.live_we.next = self.live_we_q.q.val();
        self.live_waddr.next = self.live_waddr_q.q.val();
        self.live_wdata.next = self.live_wdata_q.q.val();
        self.live_we_q.d.next = false;

        // Fields of the command.
        self.index.next = self.qpn.q.val() & self.index_mask.val();
        self.gen.next = self.qpn.q.val() >> self.index_bits.val();

        // The quarantine: its head is read continuously.
        self.quar.clock.next = self.clock.val();
        self.quar.rst.next = self.rst.val();
        self.quar.now.next = self.time_q.q.val();
        self.quar.push_index.next = self.index.val();

        // The block in memory and the `written` bit.
        self.pf_sel.next = (self.state.q.val() == MemState::PfWr1)
            | (self.state.q.val() == MemState::PfWr2)
            | (self.state.q.val() == MemState::PfWr3)
            | self.pf_inflight.q.val();
        self.ablk.next = self.blk.q.val();
        if self.pf_sel.val() {
            self.ablk.next = self.pblk.q.val();
        }
        self.block_addr.next = (self.state_base.val() & self.base_mask.val())
            + (bit_cast::<ADDR_BITS, BLOCK_NUM_BITS>(self.blk.q.val())
                << self.block_bytes_shift.val());
        self.pf_addr.next = (self.state_base.val() & self.base_mask.val())
            + (bit_cast::<ADDR_BITS, BLOCK_NUM_BITS>(self.pblk.q.val())
                << self.block_bytes_shift.val());
        self.written.read_address.next = bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.ablk.val());
        self.written.write_enable.next = false;
        self.written.write_address.next =
            bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.blk.q.val());
        self.written.write_data.next = 1.into();

        // The AXI read: one burst of the block.
        // (The command's read waits for the prefetch's: never both.)
        self.c_arvalid.next = self.ar_q.q.val() | self.pf_ar_q.q.val();
        self.ar_addr.next = self.block_addr.val();
        if self.pf_ar_q.q.val() {
            self.ar_addr.next = self.pf_addr.val();
        }
        self.c_araddr.next = self.ar_addr.val();
        self.c_arlen.next = self.beats_m1.val();
        // Low only while a beat of ours is taken and not yet consumed: the top level ANDs the
        // readiness of every reader of R, so `rready` must not depend on `rid` (AXI: no
        // combinational path from an input to an output), and a reader that expects no beat
        // says it is ready (no beat of its ID can come).
        self.c_rready.next = !(((self.state.q.val() == MemState::Scan) & self.beat_ok.q.val())
            | (self.pf_inflight.q.val() & self.pbeat_ok.q.val()));
        if self.c_arready.val() {
            self.ar_q.d.next = false;
            self.pf_ar_q.d.next = false;
        }

        self.unused_written.next = self.written.read_data.val().get_bit(1);
        self.last_beat.next =
            (self.w.q.val() & !self.wpr_m1.val()) == (self.words_m1.val() & !self.wpr_m1.val());
        // The word under the scan: word `w` of the block, lane `w mod wpr` of `beat_r`.
        self.lane_bits.next =
            bit_cast::<16, W_BITS>(self.w.q.val() & self.wpr_m1.val()) << self.word_shift.val();
        self.word_v.next = bit_cast::<WORD_BITS_MAX, MEM_DATA_BITS_MAX>(
            self.beat_r.q.val() >> self.lane_bits.val(),
        ) & self.word_mask.val();
        // The unit (max(8, word_bits) bits) that holds the word, as it is in memory.
        self.w_unit0.next = (self.w.q.val() & self.wpr_m1.val()) & !self.unit_words_mask.val();
        self.unit_v.next = bit_cast::<WORD_BITS_MAX, MEM_DATA_BITS_MAX>(
            self.beat_r.q.val()
                >> (bit_cast::<16, W_BITS>(self.w_unit0.val()) << self.word_shift.val()),
        );
        // The beat under a scan, every word at once: state FREE, or live.
        self.sbeat.next = self.beat_r.q.val();
        if self.pf_inflight.q.val() {
            self.sbeat.next = self.pbeat.q.val();
        }
        self.p_last.next =
            (self.pw.q.val() & !self.wpr_m1.val()) == (self.words_m1.val() & !self.wpr_m1.val());
        self.pf_row.next = self.pw.q.val() >> self.wpr_shift.val();
        self.lane_free.next = 0.into();
        self.lane_live.next = 0.into();
        for j in 0..self._wpr {
            if self
                .sbeat
                .val()
                .get_bits::<2>(self.lane_off[j].val().index())
                == 0
            {
                self.lane_free.next = self.lane_free.val() | self.lane_bit[j].val();
            }
            if (self
                .sbeat
                .val()
                .get_bits::<2>(self.lane_off[j].val().index())
                == 1)
                | (self
                    .sbeat
                    .val()
                    .get_bits::<2>(self.lane_off[j].val().index())
                    == 2)
            {
                self.lane_live.next = self.lane_live.val() | self.lane_bit[j].val();
            }
        }

        // The block buffer's masks and rows.
        self.t_onehot.next = self.one_m.val() << self.tw.q.val();
        self.w_row.next = self.w.q.val() >> self.wpr_shift.val();
        self.t_row.next = self.tw.q.val() >> self.wpr_shift.val();
        self.s_row.next = self.w_row.val();
        if self.pf_inflight.q.val() {
            self.s_row.next = self.pf_row.val();
        }
        self.free_at.next = 0.into();
        self.live_at.next = 0.into();
        self.row_at.next = 0.into();
        for r in 0..self._rows {
            if self.s_row.val() == self.row_n[r].val() {
                self.free_at.next =
                    self.free_at.val() | (self.lane_free.val() << self.row_word[r].val());
                self.live_at.next =
                    self.live_at.val() | (self.lane_live.val() << self.row_word[r].val());
                self.row_at.next = self.row_at.val() | self.row_bit[r].val();
            }
        }
        self.whalf.next = 0.into();
        if self.wh.q.val() {
            self.whalf.next = self.half_rows.val();
        }
        self.phalf.next = 0.into();
        if self.pf_half.q.val() {
            self.phalf.next = self.half_rows.val();
        }
        self.w_row_a.next = self.whalf.val() + self.w_row.val();
        self.t_row_a.next = self.whalf.val() + self.t_row.val();
        self.p_row_a.next = self.phalf.val() + self.pf_row.val();
        self.cbuf.write_address.next = bit_cast::<RAM_ADDR_BITS, W_BITS>(self.w_row_a.val());
        // (The beat under a scan: the command's, or the prefetch's.)
        self.cbuf.write_data.next = self.sbeat.val();
        self.cbuf.read_address.next = bit_cast::<RAM_ADDR_BITS, W_BITS>(self.t_row_a.val());
        // ALLOC: the candidates from the start (the whole block in a block after the start's).
        self.start_w.next = bit_cast::<W_BITS, QPN_BITS>(
            self.start.q.val() & bit_cast::<QPN_BITS, W_BITS>(self.words_m1.val()),
        );
        self.other_q.d.next = self.second.q.val() | (self.blk.q.val() != self.start_blk.q.val());
        if self.other_q.q.val() {
            self.start_w.next = 0.into();
        }
        self.from_q.d.next = (self.words_all.val() << self.start_w.val()) & self.words_all.val();
        self.cand.next = self.alloc_m.q.val() & self.from_q.q.val();
        self.grp_acc.next = 0.into();
        for g in 0..16 {
            if self.cand.val().get_bits::<16>(g * 16).any() {
                self.grp_acc.next = self.grp_acc.val() | (self.one16.val() << self.c16[g].val());
            }
        }
        // The first candidate: the lowest group with one, then its lowest word.
        self.grp_sel.next = 0.into();
        self.grp_seen.next = false;
        for i in 0..16 {
            if self.grp_q.q.val().get_bit(i) & !self.grp_seen.val() {
                self.grp_sel.next = self.c16[i].val();
                self.grp_seen.next = true;
            }
        }
        self.grp_sel_q.d.next = self.grp_sel.val();
        self.grp_bits.next =
            bit_cast::<16, MASK_BITS>(self.cand_q.q.val() >> (self.grp_sel_q.q.val() << 4));
        self.grp_bits_q.d.next = self.grp_bits.val();
        self.bit_sel.next = 0.into();
        self.bit_seen.next = false;
        for i in 0..16 {
            if self.grp_bits_q.q.val().get_bit(i) & !self.bit_seen.val() {
                self.bit_sel.next = self.c16[i].val();
                self.bit_seen.next = true;
            }
        }
        // A block never written: the words ALLOC may take are those in [first_index, max_qps),
        // for each block `ablk` may be.
        self.src_blk[0].next = self.blk.q.val();
        self.src_blk[1].next = self.pblk.q.val();
        for k in 0..2 {
            self.lo_wq[k].clock.next = self.clock.val();
            self.hi_wq[k].clock.next = self.clock.val();
            self.ablk_k.next = self.src_blk[k].val();
            self.bstart.next =
                bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.ablk_k.val()) << self.block_bits.val();
            self.lo_w.next = 0.into();
            if self.first_index.val() > self.bstart.val() {
                self.lo_w.next =
                    bit_cast::<W_BITS, QPN_BITS>(self.first_index.val() - self.bstart.val());
                if (self.first_index.val() - self.bstart.val())
                    > bit_cast::<QPN_BITS, W_BITS>(self.words_m1.val())
                {
                    self.lo_w.next = self.words_m1.val() + 1;
                }
            }
            self.hi_w.next = self.words_m1.val() + 1;
            if bit_cast::<25, QPN_BITS>(self.bstart.val())
                + bit_cast::<25, W_BITS>(self.words_m1.val())
                >= self.max_qps.val()
            {
                self.hi_w.next = bit_cast::<W_BITS, 25>(
                    self.max_qps.val() - bit_cast::<25, QPN_BITS>(self.bstart.val()),
                );
            }
            self.lo_wq[k].d.next = self.lo_w.val();
            self.hi_wq[k].d.next = self.hi_w.val();
        }
        self.ablk_pf.d.next = self.pf_sel.val();
        // Registered over two edges (`range_q`, off the paths of the state machine): every use
        // comes two edges or more after `ablk` last changed (WRead3 and the scan of a command
        // after WRead1, PfWr3 and the prefetch's scan after PfWr1, where `ablk` turns to
        // `pblk`).
        self.lo_w.next = self.lo_wq[0].q.val();
        self.hi_w.next = self.hi_wq[0].q.val();
        if self.ablk_pf.q.val() {
            self.lo_w.next = self.lo_wq[1].q.val();
            self.hi_w.next = self.hi_wq[1].q.val();
        }
        self.range_m.next = (self.words_all.val() << self.lo_w.val())
            & !(self.words_all.val() << self.hi_w.val())
            & self.words_all.val();
        self.range_q.d.next = self.range_m.val();
        // The target's row with its new word (`beat_r` holds the row, `w` is the target).
        self.new_row.next = (self.beat_r.q.val()
            & !(bit_cast::<MEM_DATA_BITS_MAX, WORD_BITS_MAX>(self.word_mask.val())
                << self.lane_bits.val()))
            | (bit_cast::<MEM_DATA_BITS_MAX, WORD_BITS_MAX>(self.new_word.q.val())
                << self.lane_bits.val());
        self.row_valid.next = ((self.rows_ok.q.val() >> self.t_row.val()) & self.one_r.val()).any();

        // The target word's fields and the new unit.
        self.t_state.next = self.tword.q.val().get_bits::<2>(0);
        self.t_gen.next =
            bit_cast::<QPN_BITS, WORD_BITS_MAX>(self.tword.q.val() >> 2) & self.gen_mask.val();
        self.t_index.next = (bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.blk.q.val())
            << self.block_bits.val())
            | bit_cast::<QPN_BITS, W_BITS>(self.tw.q.val());
        self.t_ge_first.d.next = self.t_index.val() >= self.first_index.val();
        // `written`'s wait (`WRead2`, `PfWr2`): counts down to 0 from `wr_extra`, loaded by
        // `WRead1` / `PfWr1`.
        if self.wr_wait.q.val() != 0 {
            self.wr_wait.d.next = self.wr_wait.q.val() - 1;
        }
        self.new_alloc.next =
            (self.new_word.q.val().get_bits::<2>(0) == 0) & self.t_ge_first.q.val();
        self.new_live.next = (self.new_word.q.val().get_bits::<2>(0) == 1)
            | (self.new_word.q.val().get_bits::<2>(0) == 2);
        self.new_unit.next = (self.tunit.q.val()
            & !(self.word_mask.val()
                << (bit_cast::<WORD_BITS_MAX, W_BITS>(
                    self.tw.q.val() & self.unit_words_mask.val(),
                ) << self.word_shift.val())))
            | (self.new_word.q.val()
                << (bit_cast::<WORD_BITS_MAX, W_BITS>(
                    self.tw.q.val() & self.unit_words_mask.val(),
                ) << self.word_shift.val()));
        // Byte offset of the unit in the block, its address, its place in the bus beat.
        self.unit_off.next = (bit_cast::<ADDR_BITS, W_BITS>(self.tw.q.val())
            >> self.upw_shift.val())
            << self.ub_shift.val();
        self.unit_addr.next = self.block_addr.val() + self.unit_off.val();
        self.unit_byte.next = bit_cast::<16, ADDR_BITS>(self.unit_addr.val() & self.bus_mask.val());
        self.data_shift.next = self.unit_byte.val() << 3;
        self.res_blk.next = bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.map.result.val());
        self.cur_blk.next =
            bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.next_alloc.q.val() >> self.block_bits.val());
        self.cur_w.next = bit_cast::<W_BITS, QPN_BITS>(
            self.next_alloc.q.val() & bit_cast::<QPN_BITS, W_BITS>(self.words_m1.val()),
        );
        self.cur_tail_q.d.next =
            !(self.alloc_m.q.val() & (self.words_all.val() << self.cur_w.val())).any();
        self.cb_is_cur_q.d.next =
            self.cb_valid.q.val() & (self.cb_block.q.val() == self.cur_blk.val());
        if self.cb_is_cur_q.q.val() {
            self.ct_q.d.next = self.cur_tail_q.q.val();
        }
        self.tail_now.next = self.ct_q.q.val() & (self.cur_w.val() != 0);
        if self.cb_is_cur_q.q.val() {
            self.tail_now.next = self.cur_tail_q.q.val();
        }
        self.nw_gen.next = bit_cast::<QPN_BITS, WORD_BITS_MAX>(self.new_word.q.val() >> 2);

        // Free map operations are registered one edge.
        self.map_op_valid.next = false;
        self.map_cmd.next = self.map_op.find.val();
        self.map_op_index.next = bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.blk.q.val());
        self.map.op_wrap.next = !self.reuse_lowest.val();
        self.free_to_pool.next = (self.op.q.val() == self.ops.free.val())
            & !self.rel.q.val()
            & !self.q_on.val()
            & self.t_ge_first.q.val();
        self.nf_go.next = false;
        self.first_find.next = false;

        match self.state.q.val() {
            MemState::Init => {
                // Every block: not written, not live (the pipes' copies).
                self.written.write_enable.next = true;
                self.written.write_address.next =
                    bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.cursor.q.val());
                self.written.write_data.next = 0.into();
                self.live_we_q.d.next = true;
                self.live_waddr_q.d.next = self.cursor.q.val();
                self.live_wdata_q.d.next = false;
                self.cursor.d.next = self.cursor.q.val() + 1;
                if self.cursor.q.val() == self.last_block.val() {
                    self.state.d.next = MemState::Idle;
                }
            }
            MemState::Idle => {
                self.init_done_q.d.next = self.map.init_done.val() & self.cache_swept.val();
                // (A search of the last ALLOC may still run when it ended early.)
                if self.moved.q.val() {
                    // A new table: once the background prefetch is over, nothing of the old
                    // one is trusted: the buffer and the known next block go, and every
                    // block is swept to never written and not live. (A STATE_BASE write is
                    // accepted only with no index in use or in quarantine: every index is
                    // FREE, the free map and the quarantine hold nothing to change.)
                    if !self.pf_busy.q.val() & !self.pf_inflight.q.val() {
                        self.moved.d.next = false;
                        self.cb_valid.d.next = false;
                        self.p_valid.d.next = false;
                        self.n_known.d.next = false;
                        if self.dirty.q.val() {
                            self.dirty.d.next = false;
                            self.cursor.d.next = 0.into();
                            self.state.d.next = MemState::Init;
                        }
                    }
                } else if self.cmd_valid.val()
                    & self.map.init_done.val()
                    & self.cache_swept.val()
                    & !self.pf_busy.q.val()
                {
                    self.op.d.next = self.cmd_op.val();
                    self.qpn.d.next = self.cmd_qpn.val();
                    self.time_q.d.next = self.cmd_time.val();
                    self.state.d.next = MemState::PreA;
                }
            }
            MemState::PreA => {
                self.state.d.next = MemState::PreB;
            }
            MemState::PreB => {
                // (The drain snapshot is taken at this edge, above.)
                self.state.d.next = MemState::Start;
            }
            MemState::Start => {
                // Before the command: the oldest quarantined index goes back to the pool if
                // its time is over (one per command).
                self.rel.d.next = false;
                self.rel_overflow.d.next = false;
                self.state.d.next = MemState::Decode;
                if self.quar.due.val() {
                    self.rel.d.next = true;
                    self.n_known.d.next = false;
                    self.blk.d.next = bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(
                        self.quar.head_index.val() >> self.block_bits.val(),
                    );
                    self.tw.d.next = bit_cast::<W_BITS, QPN_BITS>(
                        self.quar.head_index.val()
                            & bit_cast::<QPN_BITS, W_BITS>(self.words_m1.val()),
                    );
                    self.tw_known.d.next = true;
                    self.state.d.next = MemState::LookA;
                }
            }
            MemState::Decode => {
                self.pending_qpn.d.next = self.qpn.q.val();
                self.second.d.next = false;
                self.tw_known.d.next = true;
                self.tw.d.next = bit_cast::<W_BITS, QPN_BITS>(
                    self.index.val() & bit_cast::<QPN_BITS, W_BITS>(self.words_m1.val()),
                );
                self.blk.d.next =
                    bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.index.val() >> self.block_bits.val());
                self.state.d.next = MemState::Acquire;
                if (bit_cast::<25, QPN_BITS>(self.index.val()) >= self.max_qps.val())
                    & ((self.op.q.val() == self.ops.alloc_at.val())
                        | (self.op.q.val() == self.ops.publish.val())
                        | (self.op.q.val() == self.ops.free.val()))
                {
                    self.pending_status.d.next = self.res.out_of_range.val();
                    self.ev.next.error = true;
                    self.state.d.next = MemState::Done;
                }
                if self.op.q.val() == self.ops.alloc.val() {
                    // ALLOC: a block with an index it may take, from the policy's start.
                    self.tw_known.d.next = false;
                    self.pending_qpn.d.next = 0.into();
                    self.start.d.next = self.next_alloc.q.val();
                    if self.reuse_lowest.val() {
                        self.start.d.next = self.first_index.val();
                    }
                    self.first_find.next = !self.n_known.q.val();
                    self.start_blk.d.next = bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(
                        self.next_alloc.q.val() >> self.block_bits.val(),
                    );
                    if self.reuse_lowest.val() {
                        self.start_blk.d.next = self.first_block.val();
                    }
                    self.state.d.next = MemState::FindWait;
                    if self.n_known.q.val() {
                        self.state.d.next = MemState::Known;
                    }
                    self.n_known.d.next = false;
                }
                if self.op.q.val() == self.ops.dir_flush.val() {
                    self.pending_status.d.next = self.res.ok.val();
                    self.state.d.next = MemState::Done;
                }
                if (self.op.q.val() < self.ops.alloc.val())
                    | (self.op.q.val() > self.ops.last.val())
                {
                    self.pending_status.d.next = self.res.bad_cmd.val();
                    self.ev.next.error = true;
                    self.state.d.next = MemState::Done;
                }
            }
            MemState::FindWait => {
                self.blk.d.next = bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.map.result.val());
                if self.map.done.val() {
                    if self.map.found.val() {
                        // From `start` in the block where the search started, else from
                        // the block's first index (a second search: from the block's start).
                        if (self.res_blk.val() != self.start_blk.q.val()) | self.second.q.val() {
                            self.start.d.next = self.map.result.val() << self.block_bits.val();
                        }
                        self.state.d.next = MemState::Acquire;
                    } else {
                        self.pending_status.d.next = self.res.full.val();
                        self.ev.next.full = true;
                        self.state.d.next = MemState::Done;
                    }
                }
            }
            MemState::Known => {
                self.blk.d.next = self.n_blk.q.val();
                if (self.n_blk.q.val() != self.start_blk.q.val()) | self.n_wrap.q.val() {
                    self.start.d.next = bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.n_blk.q.val())
                        << self.block_bits.val();
                }
                // (Back to the cursor's block: from its start, as the second search.)
                self.second.d.next = self.n_wrap.q.val();
                self.state.d.next = MemState::Acquire;
            }
            MemState::Acquire => {
                // Every lookup accepted before the command has answered.
                if self.drained.val() {
                    self.state.d.next = MemState::HoldOn;
                }
            }
            MemState::HoldOn => {
                if (self.op.q.val() == self.ops.alloc.val()) & !self.rel.q.val() {
                    // The block after this one with an index to take (cyclic: wrapping),
                    // for the prefetch (`PfWait`); the free map is idle until then.
                    self.pf_busy.d.next = true;
                    self.map_op_valid.next = true;
                    self.map_cmd.next = self.map_op.find.val();
                    self.map_op_index.next =
                        bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.blk.q.val()) + 1;
                }
                self.hold_q.d.next = true;
                self.hold_wait.d.next = 0.into();
                self.state.d.next = MemState::HoldWait;
            }
            MemState::HoldWait => {
                // The hold is seen by the miss unit from the cycle after it rose, and its
                // `busy` (registered) tells of the cycle before: from `hold_wait` = 2 on, it
                // is about this block under the hold.
                if self.hold_wait.q.val() != 3 {
                    self.hold_wait.d.next = self.hold_wait.q.val() + 1;
                }
                if self.hold_wait.q.val().get_bit(1) & !self.busy.val() {
                    self.inv_q.d.next = true;
                    self.state.d.next = MemState::Inval;
                }
            }
            MemState::Inval => {
                if self.inv_done.val() {
                    self.inv_q.d.next = false;
                    self.state.d.next = MemState::Lookup;
                }
            }
            MemState::LookA => {
                self.state.d.next = MemState::Lookup;
            }
            MemState::Lookup => {
                // The block in the buffer, or read (or made) into it.
                self.state.d.next = MemState::WRead1;
                if self.cb_valid.q.val() & self.cb_hit_q.q.val() {
                    self.was_written.d.next = self.cb_written.q.val();
                    self.state.d.next = MemState::Select;
                } else if self.pf_inflight.q.val() | self.pf_was_q.q.val() {
                    // Not in the working slot: the prefetch's read ends first (and its slot's
                    // flags are a cycle old in `p_hit_q`).
                    self.state.d.next = MemState::Lookup;
                } else if self.p_valid.q.val() & self.p_hit_q.q.val() {
                    self.swap_done.d.next = false;
                    self.state.d.next = MemState::Swap;
                } else if self.nk_hit_q.q.val() {
                    // The working slot holds the next ALLOC's block: it goes to the parked
                    // slot (so that ALLOC finds it on chip), the read to the other half.
                    self.wh.d.next = !self.wh.q.val();
                    self.p_valid.d.next = true;
                    self.p_block.d.next = self.cb_block.q.val();
                    self.p_written.d.next = self.cb_written.q.val();
                    self.p_alloc.d.next = self.alloc_m.q.val();
                    self.p_live.d.next = self.live_m.q.val();
                    self.p_rows.d.next = self.rows_ok.q.val();
                    self.cb_valid.d.next = false;
                }
            }
            MemState::WRead1 => {
                // `written` of the block is read over its latency (2 edges and `wr_extra`).
                self.wr_wait.d.next = self.wr_extra.val();
                self.state.d.next = MemState::WRead2;
            }
            MemState::WRead2 => {
                if self.wr_wait.q.val() == 0 {
                    self.state.d.next = MemState::WRead3;
                }
            }
            MemState::WRead3 => {
                self.was_written.d.next = self.written.read_data.val().get_bit(0);
                self.w.d.next = 0.into();
                self.beat_ok.d.next = false;
                self.rd_err.d.next = false;
                self.alloc_m.d.next = 0.into();
                self.live_m.d.next = 0.into();
                self.rows_ok.d.next = 0.into();
                self.cb_valid.d.next = false;
                self.cb_block.d.next = self.blk.q.val();
                if self.written.read_data.val().get_bit(0) {
                    self.ar_q.d.next = true;
                    self.state.d.next = MemState::ArReq;
                } else {
                    // Never written: every word FREE with generation 0, nothing to read.
                    self.alloc_m.d.next = self.range_q.q.val();
                    self.cb_valid.d.next = true;
                    self.cb_written.d.next = false;
                    self.state.d.next = MemState::Select;
                }
            }
            MemState::ArReq => {
                if self.c_arready.val() {
                    self.state.d.next = MemState::Scan;
                }
            }
            MemState::Scan => {
                // The block's beats into the buffer, and their words, a beat at a time, into the
                // masks.
                if !self.beat_ok.q.val() {
                    if self.c_rvalid.val() {
                        self.beat_r.d.next = self.c_rdata.val()
                            >> (bit_cast::<16, ADDR_BITS>(
                                self.block_addr.val() & self.bus_mask.val(),
                            ) << 3);
                        self.beat_ok.d.next = true;
                        // An error response, or `rlast` not high on the last beat alone.
                        if self.c_rresp.val().any() | (self.c_rlast.val() != self.last_beat.val()) {
                            self.rd_err.d.next = true;
                        }
                    }
                } else {
                    // The beat: its row into the buffer, its words into the masks at once.
                    self.cbuf.write_enable.next = true;
                    self.rows_ok.d.next = self.rows_ok.q.val() | self.row_at.val();
                    self.alloc_m.d.next =
                        self.alloc_m.q.val() | (self.free_at.val() & self.range_q.q.val());
                    self.live_m.d.next = self.live_m.q.val() | self.live_at.val();
                    self.w.d.next = self.w.q.val() + self.wpr_m1.val() + 1;
                    self.beat_ok.d.next = false;
                    if self.last_beat.val() {
                        self.state.d.next = MemState::Select;
                        self.cb_valid.d.next = true;
                        self.cb_written.d.next = true;
                        if self.rd_err.q.val() {
                            self.cb_valid.d.next = false;
                            self.pending_status.d.next = self.mem_error_code.val();
                            self.state.d.next = MemState::Finish;
                        }
                    }
                }
            }
            MemState::Select => {
                // ALLOC: the candidates; the other commands know their word.
                self.cand_q.d.next = self.cand.val();
                self.grp_q.d.next = self.grp_acc.val();
                self.state.d.next = MemState::RowRead1;
                if !self.tw_known.q.val() {
                    self.state.d.next = MemState::PickG;
                }
            }
            MemState::PickG => {
                self.state.d.next = MemState::PickB;
            }
            MemState::PickB => {
                self.state.d.next = MemState::Pick;
            }
            MemState::Pick => {
                if self.grp_q.q.val().any() {
                    self.tw.d.next = (self.grp_sel_q.q.val() << 4) | self.bit_sel.val();
                    self.tw_known.d.next = true;
                    self.state.d.next = MemState::RowRead1;
                } else if self.other_q.q.val() {
                    // The free map said the block had an index to take (it is exact: not
                    // reached).
                    self.pending_status.d.next = self.res.full.val();
                    self.ev.next.full = true;
                    self.state.d.next = MemState::Finish;
                } else if !self.pf_busy.q.val() {
                    // None from `start` in the first block: search from the next block,
                    // wrapping (it may come back to this one, from its start), once the
                    // free map is done with the prefetch's search.
                    self.hold_q.d.next = false;
                    self.second.d.next = true;
                    self.map_op_valid.next = true;
                    self.map_cmd.next = self.map_op.find.val();
                    self.map_op_index.next =
                        bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.blk.q.val()) + 1;
                    self.state.d.next = MemState::FindWait;
                }
            }
            MemState::RowRead1 => {
                // The target's row is read from the buffer over two edges.
                self.state.d.next = MemState::RowRead2;
            }
            MemState::RowRead2 => {
                self.state.d.next = MemState::RowRead3;
            }
            MemState::RowRead3 => {
                self.beat_r.d.next = 0.into();
                if self.row_valid.val() {
                    self.beat_r.d.next = self.cbuf.read_data.val();
                }
                self.w.d.next = self.tw.q.val();
                self.state.d.next = MemState::Extract;
            }
            MemState::Extract => {
                // `beat_r` holds the target's row and `w` is the target: its word and unit.
                self.tword.d.next = self.word_v.val();
                self.tunit.d.next = self.unit_v.val();
                self.other_live.d.next = (self.live_m.q.val() & !self.t_onehot.val()).any();
                self.others_alloc.d.next = (self.alloc_m.q.val() & !self.t_onehot.val()).any();
                // ALLOC leaves the block: no other index to take in it (lowest), none after
                // the target (cyclic: the next ALLOC starts after it).
                self.pf_need.d.next = !(self.alloc_m.q.val() & !self.t_onehot.val()).any();
                if !self.reuse_lowest.val() {
                    self.pf_need.d.next = !(self.alloc_m.q.val()
                        & (self.words_all.val() << self.tw.q.val())
                        & !self.t_onehot.val())
                    .any();
                }
                self.state.d.next = MemState::Decide;
            }
            MemState::Decide => {
                self.state.d.next = MemState::WReq;
                if self.rel.q.val() {
                    // Release: QUARANTINED -> FREE, the generation kept.
                    self.new_word.d.next =
                        bit_cast::<WORD_BITS_MAX, QPN_BITS>(self.t_gen.val()) << 2;
                } else if self.op.q.val() == self.ops.alloc.val() {
                    self.new_word.d.next = (bit_cast::<WORD_BITS_MAX, QPN_BITS>(
                        (self.t_gen.val() + 1) & self.gen_mask.val(),
                    ) << 2)
                        | 1;
                } else if self.op.q.val() == self.ops.alloc_at.val() {
                    self.new_word.d.next =
                        (bit_cast::<WORD_BITS_MAX, QPN_BITS>(self.gen.val()) << 2) | 1;
                    if self.t_state.val() != 0 {
                        self.pending_status.d.next = self.res.bad_state.val();
                        self.ev.next.error = true;
                        self.state.d.next = MemState::Finish;
                    }
                } else if self.op.q.val() == self.ops.publish.val() {
                    self.new_word.d.next =
                        (bit_cast::<WORD_BITS_MAX, QPN_BITS>(self.t_gen.val()) << 2) | 2;
                    if (self.t_state.val() != 1) | (self.t_gen.val() != self.gen.val()) {
                        self.pending_status.d.next = self.res.bad_state.val();
                        self.ev.next.error = true;
                        self.state.d.next = MemState::Finish;
                    }
                } else {
                    // FREE: QUARANTINED with the quarantine on, else FREE.
                    self.new_word.d.next =
                        bit_cast::<WORD_BITS_MAX, QPN_BITS>(self.t_gen.val()) << 2;
                    if self.q_on.val() {
                        self.new_word.d.next =
                            (bit_cast::<WORD_BITS_MAX, QPN_BITS>(self.t_gen.val()) << 2) | 3;
                    }
                    if !((self.t_state.val() == 1) | (self.t_state.val() == 2))
                        | (self.t_gen.val() != self.gen.val())
                    {
                        self.pending_status.d.next = self.res.bad_state.val();
                        self.ev.next.error = true;
                        self.state.d.next = MemState::Finish;
                    }
                }
            }
            MemState::WReq => {
                // The unit that holds the word; a block never written is written whole.
                self.wr_req_q.d.next = true;
                self.wr_fin.d.next = false;
                self.early_issued.d.next = false;
                self.nf_started.d.next = false;
                if self.free_to_pool.val() & !self.others_alloc.q.val() {
                    // FREE back to the pool, of a block with no other index to take: into
                    // the free map now, under the write (undone if it fails), so that the
                    // search for the next ALLOC's block runs under it too (`WWait`).
                    self.early_issued.d.next = true;
                    self.early_busy.d.next = true;
                    self.map_op_valid.next = true;
                    self.map_cmd.next = self.map_op.set.val();
                }
                self.new_row_q.d.next = self.new_row.val();
                self.wr_data_q.d.next =
                    bit_cast::<MEM_DATA_BITS_MAX, WORD_BITS_MAX>(self.new_unit.val())
                        << self.data_shift.val();
                if self.was_written.q.val() {
                    self.wr_addr_q.d.next = self.unit_addr.val() & !self.bus_mask.val();
                    self.wr_last_q.d.next = 0.into();
                    self.wr_beat_q.d.next = 0.into();
                    self.wr_strb_q.d.next = self.unit_strb.val()
                        << bit_cast::<16, ADDR_BITS>(self.unit_addr.val() & self.bus_mask.val());
                } else {
                    self.wr_addr_q.d.next = self.block_addr.val() & !self.bus_mask.val();
                    self.wr_last_q.d.next = self.beats_m1.val();
                    self.wr_beat_q.d.next =
                        bit_cast::<8, ADDR_BITS>(self.unit_off.val() >> self.bus_shift.val());
                    self.wr_strb_q.d.next = self.init_strb.val()
                        << bit_cast::<16, ADDR_BITS>(self.block_addr.val() & self.bus_mask.val());
                }
                self.state.d.next = MemState::WWait;
                if (self.op.q.val() == self.ops.alloc.val())
                    & !self.rel.q.val()
                    & self.pf_need.q.val()
                {
                    self.state.d.next = MemState::PfWait;
                }
            }
            MemState::PfWait => {
                // The block the next ALLOC takes: the search's result, unless it is this
                // block or already parked.
                self.pblk.d.next = self.pf_res.q.val();
                if !self.pf_busy.q.val() & !self.pf_inflight.q.val() {
                    if !self.others_alloc.q.val() {
                        // The block's last index: out of the free map now (undone if the
                        // write fails).
                        self.early_issued.d.next = true;
                        self.early_busy.d.next = true;
                        self.map_op_valid.next = true;
                        self.map_cmd.next = self.map_op.clear.val();
                    }
                    self.state.d.next = MemState::WWait;
                    if self.pf_found.q.val()
                        & (self.pf_res.q.val() != self.blk.q.val())
                        & !(self.p_valid.q.val() & (self.p_block.q.val() == self.pf_res.q.val()))
                    {
                        self.state.d.next = MemState::PfWr1;
                    }
                }
            }
            MemState::PfWr1 => {
                self.wr_wait.d.next = self.wr_extra.val();
                self.state.d.next = MemState::PfWr2;
            }
            MemState::PfWr2 => {
                if self.wr_wait.q.val() == 0 {
                    self.state.d.next = MemState::PfWr3;
                }
            }
            MemState::PfWr3 => {
                // Into the parked slot: read, or (never written) made.
                self.pf_err.d.next = false;
                self.p_live.d.next = 0.into();
                self.p_rows.d.next = 0.into();
                self.p_block.d.next = self.pblk.q.val();
                self.p_valid.d.next = false;
                if self.written.read_data.val().get_bit(0) {
                    self.p_alloc.d.next = 0.into();
                    self.pf_ar_q.d.next = true;
                    self.pf_inflight.d.next = true;
                    self.pw.d.next = 0.into();
                    self.pbeat_ok.d.next = false;
                    self.pf_half.d.next = !self.wh.q.val();
                    self.state.d.next = MemState::WWait;
                } else {
                    self.p_alloc.d.next = self.range_q.q.val();
                    self.p_valid.d.next = true;
                    self.p_written.d.next = false;
                    self.state.d.next = MemState::WWait;
                }
            }
            MemState::WWait => {
                if self.wr_done.val() | self.wr_fin.q.val() {
                    self.state.d.next = MemState::OnChip;
                    if (self.wr_done.val() & self.wr_error.val())
                        | (self.wr_fin.q.val() & self.wr_ferr.q.val())
                    {
                        // The block's bytes in memory are undefined now: not in the buffer.
                        self.cb_valid.d.next = false;
                        self.pending_status.d.next = self.mem_error_code.val();
                        self.state.d.next = MemState::Finish;
                        if self.early_issued.q.val() {
                            self.state.d.next = MemState::Undo;
                        }
                    }
                }
                // FREE back to the pool: once its SET is done, the search for the block the
                // next ALLOC takes (`NFindWait`) runs under the write.
                if self.free_to_pool.val()
                    & !self.early_busy.q.val()
                    & !self.nf_started.q.val()
                    & !self.pf_busy.q.val()
                    & !self.pf_inflight.q.val()
                {
                    self.nf_go.next = true;
                }
            }
            MemState::OnChip => {
                self.written.write_enable.next = true;
                self.dirty.d.next = true;
                // The buffer follows the write: the row, the masks.
                self.cbuf.write_enable.next = true;
                self.cbuf.write_address.next =
                    bit_cast::<RAM_ADDR_BITS, W_BITS>(self.t_row_a.val());
                self.cbuf.write_data.next = self.new_row_q.q.val();
                self.rows_ok.d.next = self.rows_ok.q.val() | (self.one_r.val() << self.t_row.val());
                self.cb_written.d.next = true;
                self.alloc_m.d.next = self.alloc_m.q.val() & !self.t_onehot.val();
                if self.new_alloc.val() {
                    self.alloc_m.d.next = self.alloc_m.q.val() | self.t_onehot.val();
                }
                self.live_m.d.next = self.live_m.q.val() & !self.t_onehot.val();
                if self.new_live.val() {
                    self.live_m.d.next = self.live_m.q.val() | self.t_onehot.val();
                }
                self.pending_status.d.next = self.res.ok.val();
                self.state.d.next = MemState::Finish;
                if self.rel.q.val() {
                    // Back in the pool (the overflow popped its entry when it began); an
                    // index below first_index is not one ALLOC takes.
                    if !self.rel_overflow.q.val() {
                        self.q_pop.next = true;
                    }
                    if self.t_ge_first.q.val() {
                        self.map_op_valid.next = true;
                        self.map_cmd.next = self.map_op.set.val();
                        self.state.d.next = MemState::MapWait;
                    }
                } else if (self.op.q.val() == self.ops.alloc.val())
                    | (self.op.q.val() == self.ops.alloc_at.val())
                {
                    self.live_we_q.d.next = true;
                    self.live_waddr_q.d.next = self.blk.q.val();
                    self.live_wdata_q.d.next = true;
                    self.ev.next.reserved = true;
                    if (self.op.q.val() == self.ops.alloc_at.val()) & self.nb_hit_q.q.val() {
                        self.n_known.d.next = false;
                    }
                    if self.op.q.val() == self.ops.alloc.val() {
                        // The next ALLOC's block: this one, or the prefetch search's result.
                        self.n_known.d.next = true;
                        self.n_wrap.d.next = false;
                        self.n_blk.d.next = self.blk.q.val();
                        if self.pf_need.q.val() {
                            // (The search found this block: with no other index to take, it
                            // leaves the free map now, and the next ALLOC searches.)
                            self.n_known.d.next = self.pf_found.q.val()
                                & ((self.pf_res.q.val() != self.blk.q.val())
                                    | self.others_alloc.q.val());
                            self.n_blk.d.next = self.pf_res.q.val();
                        }
                        self.pending_qpn.d.next =
                            (self.nw_gen.val() << self.index_bits.val()) | self.t_index.val();
                        self.next_alloc.d.next = self.t_index.val() + 1;
                        if self.t_index.val() == self.last_index.val() {
                            self.next_alloc.d.next = self.first_index.val();
                        }
                    }
                    // No other index to take in the block: out of the free map (ALLOC sent
                    // the CLEAR with its write).
                    if !self.others_alloc.q.val() {
                        self.map_op_valid.next = true;
                        self.map_cmd.next = self.map_op.clear.val();
                        self.state.d.next = MemState::MapWait;
                        if self.early_issued.q.val() {
                            self.map_op_valid.next = false;
                            self.state.d.next = MemState::ClrWait;
                        }
                    }
                } else if self.op.q.val() == self.ops.free.val() {
                    self.live_we_q.d.next = true;
                    self.live_waddr_q.d.next = self.blk.q.val();
                    self.live_wdata_q.d.next = self.other_live.q.val();
                }
            }
            MemState::MapWait => {
                if self.map.done.val() {
                    self.state.d.next = MemState::Finish;
                }
            }
            MemState::ClrWait => {
                if !self.early_busy.q.val() {
                    self.state.d.next = MemState::Finish;
                }
            }
            MemState::Undo => {
                // The write failed: the free map as before the command (ALLOC: the block's
                // index back in; FREE: the block out again), once the map is idle (a FREE's
                // search may still run).
                if !self.early_busy.q.val() & !self.pf_busy.q.val() {
                    self.map_op_valid.next = true;
                    self.map_cmd.next = self.map_op.set.val();
                    if self.op.q.val() == self.ops.free.val() {
                        self.map_cmd.next = self.map_op.clear.val();
                    }
                    self.state.d.next = MemState::MapWait;
                }
            }
            MemState::Finish => {
                self.hold_q.d.next = false;
                self.state.d.next = MemState::Done;
                if self.rel.q.val() {
                    // The release is over (or failed: the index stays quarantined and is
                    // tried again before the next command); on to the command, or, for
                    // the overflow of a FREE, to its push.
                    self.rel.d.next = false;
                    self.state.d.next = MemState::Decode;
                    if self.rel_overflow.q.val() {
                        self.state.d.next = MemState::Push;
                    }
                } else if (self.op.q.val() == self.ops.free.val())
                    & (self.pending_status.q.val() == self.res.ok.val())
                {
                    self.state.d.next = MemState::FreeA;
                }
            }
            MemState::FreeA => {
                self.state.d.next = MemState::FreeB;
            }
            MemState::FreeB => {
                // (The drain snapshot is taken at this edge, above.)
                self.state.d.next = MemState::Drain;
            }
            MemState::Drain => {
                if self.drained.val() {
                    self.state.d.next = MemState::Push;
                    if !self.q_on.val() {
                        // Back to the pool at once (the word was written FREE); an index
                        // below first_index is not one ALLOC takes.
                        self.ev.next.freed = true;
                        self.state.d.next = MemState::Done;
                        if self.t_ge_first.q.val() {
                            // (Its SET was sent with the write: `WReq`.)
                            self.state.d.next = MemState::PoolWait;
                        }
                    } else if self.quar.full.val() {
                        // The queue is full: its oldest goes back to the pool first.
                        self.ev.next.overflow = true;
                        self.q_pop.next = true;
                        self.tw_known.d.next = true;
                        self.rel.d.next = true;
                        self.rel_overflow.d.next = true;
                        self.n_known.d.next = false;
                        self.blk.d.next = bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(
                            self.quar.head_index.val() >> self.block_bits.val(),
                        );
                        self.tw.d.next = bit_cast::<W_BITS, QPN_BITS>(
                            self.quar.head_index.val()
                                & bit_cast::<QPN_BITS, W_BITS>(self.words_m1.val()),
                        );
                        self.state.d.next = MemState::LookA;
                    }
                }
            }
            MemState::Push => {
                self.pending_status.d.next = self.res.ok.val();
                self.q_push.next = true;
                self.ev.next.freed = true;
                self.state.d.next = MemState::Done;
            }
            MemState::PoolWait => {
                // The block the next ALLOC takes, as ALLOC's first search finds it: searched
                // under the write, or now (once the SET is done and a prefetch in flight is
                // over: the slots may change places).
                if !self.early_busy.q.val() {
                    if self.nf_started.q.val() {
                        self.state.d.next = MemState::NFindWait;
                    } else if !self.pf_inflight.q.val() {
                        self.nf_go.next = true;
                        self.state.d.next = MemState::NFindWait;
                    }
                }
            }
            MemState::NFindWait => {
                if !self.pf_busy.q.val() {
                    self.n_known.d.next = self.pf_found.q.val();
                    self.n_blk.d.next = self.pf_res.q.val();
                    self.n_wrap.d.next = false;
                    self.state.d.next = MemState::Done;
                    if self.pf_found.q.val()
                        & !self.reuse_lowest.val()
                        & (self.pf_res.q.val() == self.cur_blk.val())
                        & self.tail_now.val()
                    {
                        // The cursor's block, with nothing to take from the cursor on: ALLOC
                        // passes over it.
                        self.state.d.next = MemState::NFind2;
                    } else if self.pf_found.q.val()
                        & self.cb_valid.q.val()
                        & (self.cb_block.q.val() == self.pf_res.q.val())
                    {
                        self.swap_done.d.next = true;
                        self.state.d.next = MemState::Swap;
                    }
                }
            }
            MemState::NFind2 => {
                self.map_op_valid.next = true;
                self.map_cmd.next = self.map_op.find.val();
                self.map_op_index.next =
                    bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.n_blk.q.val()) + 1;
                self.state.d.next = MemState::NFind2Wait;
            }
            MemState::NFind2Wait => {
                if self.map.done.val() {
                    self.n_known.d.next = self.map.found.val();
                    self.n_blk.d.next = self.res_blk.val();
                    // (Back at the cursor's block: ALLOC takes it from its start.)
                    self.n_wrap.d.next = self.res_blk.val() == self.cur_blk.val();
                    self.state.d.next = MemState::Done;
                    if self.map.found.val()
                        & self.cb_valid.q.val()
                        & (self.cb_block.q.val() == self.res_blk.val())
                    {
                        self.swap_done.d.next = true;
                        self.state.d.next = MemState::Swap;
                    }
                }
            }
            MemState::Swap => {
                // The working and parked slots change places.
                self.wh.d.next = !self.wh.q.val();
                self.cb_valid.d.next = self.p_valid.q.val();
                self.cb_block.d.next = self.p_block.q.val();
                self.cb_written.d.next = self.p_written.q.val();
                self.alloc_m.d.next = self.p_alloc.q.val();
                self.live_m.d.next = self.p_live.q.val();
                self.rows_ok.d.next = self.p_rows.q.val();
                self.p_valid.d.next = self.cb_valid.q.val();
                self.p_block.d.next = self.cb_block.q.val();
                self.p_written.d.next = self.cb_written.q.val();
                self.p_alloc.d.next = self.alloc_m.q.val();
                self.p_live.d.next = self.live_m.q.val();
                self.p_rows.d.next = self.rows_ok.q.val();
                self.was_written.d.next = self.p_written.q.val();
                self.state.d.next = MemState::Select;
                if self.swap_done.q.val() {
                    self.state.d.next = MemState::Done;
                }
            }
            MemState::Done => {
                self.status_q.d.next = self.pending_status.q.val();
                self.qpn_q.d.next = self.pending_qpn.q.val();
                self.state.d.next = MemState::Idle;
            }
        }

        // The prefetch's beats, into the parked slot (a beat waits while `OnChip` writes the
        // working slot); a read error, or a change of STATE_BASE, leaves the slot empty.
        if self.pf_inflight.q.val() {
            if !self.pbeat_ok.q.val() {
                if self.c_rvalid.val() {
                    self.pbeat.d.next = self.c_rdata.val()
                        >> (bit_cast::<16, ADDR_BITS>(self.pf_addr.val() & self.bus_mask.val())
                            << 3);
                    self.pbeat_ok.d.next = true;
                    if self.c_rresp.val().any() | (self.c_rlast.val() != self.p_last.val()) {
                        self.pf_err.d.next = true;
                    }
                }
            } else if self.state.q.val() != MemState::OnChip {
                self.cbuf.write_enable.next = true;
                self.cbuf.write_address.next =
                    bit_cast::<RAM_ADDR_BITS, W_BITS>(self.p_row_a.val());
                self.p_rows.d.next = self.p_rows.q.val() | self.row_at.val();
                self.p_alloc.d.next =
                    self.p_alloc.q.val() | (self.free_at.val() & self.range_q.q.val());
                self.p_live.d.next = self.p_live.q.val() | self.live_at.val();
                self.pw.d.next = self.pw.q.val() + self.wpr_m1.val() + 1;
                self.pbeat_ok.d.next = false;
                if self.p_last.val() {
                    self.p_valid.d.next =
                        !self.pf_err.q.val() & (self.base_seen.q.val() == self.state_base.val());
                    self.p_written.d.next = true;
                    self.pf_inflight.d.next = false;
                }
            }
        }

        // The block the next ALLOC takes: ALLOC's first search, and the same for a FREE back
        // to the pool (`pf_busy` takes its result into `pf_found`, `pf_res`).
        if self.nf_go.val() {
            self.nf_started.d.next = true;
            self.pf_busy.d.next = true;
        }
        if self.first_find.val() | self.nf_go.val() {
            self.map_op_valid.next = true;
            self.map_cmd.next = self.map_op.find.val();
            self.map_op_index.next = self.next_alloc.q.val() >> self.block_bits.val();
            if self.reuse_lowest.val() {
                self.map_op_index.next =
                    bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.first_block.val());
            }
        }
        self.map_valid_q.d.next = self.map_op_valid.val();
        self.map_cmd_q.d.next = self.map_cmd.val();
        self.map_index_q.d.next = self.map_op_index.val();
        self.map.op_valid.next = self.map_valid_q.q.val();
        self.map.op.next = self.map_cmd_q.q.val();
        self.map.op_index.next = self.map_index_q.q.val();
        self.quar.push.next = self.q_push.val();
        self.quar.pop.next = self.q_pop.val();
        self.events.next = self.ev.val();

        if self.rst.val() {
            self.state.d.next = MemState::Init;
            self.moved.d.next = false;
            self.dirty.d.next = false;
            self.cursor.d.next = 0.into();
            self.init_done_q.d.next = false;
            self.hold_q.d.next = false;
            self.inv_q.d.next = false;
            self.ar_q.d.next = false;
            self.wr_req_q.d.next = false;
            self.live_we_q.d.next = false;
            self.map_valid_q.d.next = false;
            self.rel.d.next = false;
            self.cb_valid.d.next = false;
            self.p_valid.d.next = false;
            self.n_known.d.next = false;
            self.pf_busy.d.next = false;
            self.pf_ar_q.d.next = false;
            self.pf_inflight.d.next = false;
            self.pbeat_ok.d.next = false;
            self.early_issued.d.next = false;
            self.early_busy.d.next = false;
            self.nf_started.d.next = false;
            self.ct_q.d.next = false;
            self.wh.d.next = false;
            self.wr_fin.d.next = false;
            self.next_alloc.d.next = self.first_index.val();
            self.status_q.d.next = self.res.ok.val();
            self.qpn_q.d.next = 0.into();
        }
        // The masks hold one bit per word (row) of a block: the bits above stay 0, so that
        // synthesis drops their flip-flops (the ports are declared for 256 words, 128 rows).
        self.alloc_m.d.next = self.alloc_m.d.val() & self.words_all.val();
        self.live_m.d.next = self.live_m.d.val() & self.words_all.val();
        self.p_alloc.d.next = self.p_alloc.d.val() & self.words_all.val();
        self.p_live.d.next = self.p_live.d.val() & self.words_all.val();
        self.rows_ok.d.next = self.rows_ok.d.val() & self.rows_all.val();
        self.p_rows.d.next = self.p_rows.d.val() & self.rows_all.val();
    }
}
