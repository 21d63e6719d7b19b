//! `StateCache`: the lookup side of `state = in_memory` (SPEC §9) for one port: a child of
//! [`LookupPipe`](super::lookup_pipe::LookupPipe) when [`EngineParams::state_mem`] is set
//! (design: `docs/state_in_memory.md`, "Lookup path").
//!
//! It holds the port's copies of the on-chip structures a lookup reads, all read at the
//! request's edge (s0) with the [`Ram`]'s output register (as the state RAM of `state =
//! on_chip`), so their words are there in s2. The `live` filter (1 bit per block: the block
//! holds a RESERVED or VALID index) is read the same way but lives outside, in a
//! [`LiveFilter`](super::live_filter::LiveFilter) that two ports share (`live_raddr` at s0,
//! `live_rdata` in s2):
//!
//! | RAM | depth | word | written by |
//! |---|---|---|---|
//! | `tags` | `cache_lines` | valid, block number | [`CacheWrites`](super::cache_writes::CacheWrites) (`tag_we`) |
//! | `data` | `cache_lines x beats` | [`MissParams::stored_bits`] bits of a block: row `line * beats + beat` | [`CacheWrites`](super::cache_writes::CacheWrites) (`data_we`) |
//!
//! The line of block `b` is `b mod cache_lines`; the index's word `w` (the index's low
//! `block_bits` bits) is in beat `w / words per row`, lane `w mod words per row`.
//!
//! # State word
//!
//! A state word in memory is [`MissParams::word_bits`] bits: bits `[1:0]` the state (0 FREE,
//! 1 RESERVED, 2 VALID, 3 QUARANTINED), bits `[2 + gen_bits - 1 : 2]` the generation, the
//! rest 0 (ignored here). Word `w` of a block is bits `[w * word_bits, (w + 1) * word_bits)`
//! of the block as the little-endian bytes of memory (see [`MissUnit`](super::miss_unit::MissUnit)).
//!
//! # s2 and s3: the answer or the miss
//!
//! In s2 (the pipe's s2, from its registers and the RAMs' output registers) the line's tag
//! is compared with the block and the index's word is taken from its row; both land in
//! registers (`e_*`: the cache's s3, not the pipe's, which comes after the wait queue) with
//! the lookup, and the checks run in s3, in SPEC order. (Decided in s2, the route from a
//! tag block RAM through the comparison and the checks into the queues and the counters was
//! the longest path of `configs/scale.toml`: 17.4 ns on ECP5.) In s3:
//! - out of range (the pipe's `s2_oor`): OUT_OF_RANGE, final, no memory access;
//! - `live` = 0: NOT_ALLOCATED, final, no memory access (`filtered` pulses);
//! - the line's tag is valid and equals the block: the word is checked now (state, then
//!   generation, then, two_level on chip, page presence), final (`hit` pulses);
//! - otherwise the lookup is queued with `need` and its block is pushed into the miss
//!   request queue (`miss` pulses), which feeds the [`MissUnit`](super::miss_unit::MissUnit)'s port
//!   (`mreq_*`). Its status in the queue is what the page check alone gives (OK or
//!   PAGE_ABSENT); the word decides the rest at the head.
//!
//! Every lookup enters the wait queue (`wq`, [`wait_queue_depth`] entries) at the edge
//! after s3, in request order. The miss unit's answers (the slot of each miss request, in
//! this port's order) are taken at once (`ans_ready` = 1) into the slot queue, as deep as the
//! wait queue: it holds at most one slot per lookup in flight, and the pipe grants a request
//! only while fewer lookups than that are in flight.
//!
//! The three queues (wait, slot, miss request) are head-registered
//! ([`MemFifo::head_registered`]) with their arrays in LUT RAM ([`MemFifo::lut_ram`]): their
//! heads, which decide the pops at the same edge (the wait queue's head its own pop and the
//! fill buffer's read address), come from registers, and the words read into those
//! registers from LUTs, not from a block RAM's read port (5.8 ns from the clock on ECP5).
//!
//! # Head: drain in order
//!
//! The head of `wq` leaves (edge `t`, `go`) when the output has room (below) and either it
//! is final, or the slot queue holds its slot and that slot's fill has landed (`h_filled`,
//! from registers: the slot queue is a [`PeekFifo`], which also shows the word after its
//! head; the miss unit registers the filled flags of both, `rd_filled` for `rd_slot` = the
//! head and `rd_filled2` for `rd_slot2` = the second word, and the head's flag is the first
//! if the queue did not pop at the last edge, the second if it did: a head whose flag was not
//! registered as such, one that arrived at the last edge, waits a cycle; so no path runs from
//! the slot queue through the miss unit's 64:1 multiplexer into the pops, which was the
//! longest path of `configs/scale.toml` on ECP5, 11.10 ns). At edge `t` the
//! fill buffer takes its read address (`rd_slot`, `rd_word`), the slot is popped and
//! released (`rel_valid`, one pulse per answer, from a register: the miss unit's slot
//! registers it at `t + 1` and counts it at `t + 2`), and
//! the lookup enters `d1` (with `rd_error`), at `t + 1` `d2`; after `t + 1` the word is on
//! `rd_data`, checked in `d2` (MEM_ERROR if the fill failed; else state, generation, then
//! the page status from s3) and pushed at `t + 2` into the pipe's response queue
//! (`out_valid`, `out_lookup`: final, `need` clear, the address as the pipe computed it).
//! So a run of heads whose fills have landed leaves at one per cycle, and a head that needs
//! nothing never waits on the miss side.
//! Room: the response queue's fill (`out_count`) plus the word on its way into it
//! (`out_extra`, the pipe's s3) plus `d1` and `d2` is below its depth
//! ([`rsp_queue_depth`]), so a push never finds it full.
//!
//! With the directory in memory too (SPEC §9: `two_level`, either directory), what leaves
//! here is final as far as the state goes: the pipe sets `need` on a lookup whose status is
//! OK (the state checks passed; `s2_present` is 1, the page is not known yet) and sends its
//! directory read at the same edge; any other lookup never reads the directory (fail fast).
//!
//! Latency (request handshake to response handshake) on a hit with an always-ready
//! consumer: 7 edges (s1, s2, s3, wq, d1, d2, response queue). A miss: add the miss unit's
//! request path (5 edges to `arvalid`: the miss queue, the miss unit's input, request and
//! decision registers, its read queue), the memory, the fill, and the two edges in which the
//! head sees it (the port's copy of the flags, the registered `rd_filled`).

use super::head_fifo::PeekFifo;
use super::lookup_pipe::{rsp_queue_depth, QueuedLookup};
use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::miss_unit::{
    MissParams, BLOCK_NUM_BITS, MEM_DATA_BITS, SLOT_BITS, WORD_BITS_MAX, WORD_INDEX_BITS,
};
use super::ram::{Ram, RamWord, RAM_ADDR_BITS};
use super::{codes::StatusCodes, EngineParams, ADDR_BITS, QPN_BITS, TAG_BITS};
use rust_hdl::prelude::*;

/// Depth of the wait queue (and of the slot and miss request queues) of a port whose state
/// is in memory: a power of two at least `2 * max_misses`, clamped to 16..=128. A lookup
/// waits in order behind the oldest miss, so at one lookup per cycle the queue holds the
/// lookups of one miss's round trip (the memory latency and the miss path, about 30 edges):
/// 128 covers a latency of about 100 cycles. More slots than that (`max_misses` above 64)
/// serve several ports and the set conflicts of the miss unit, not a longer queue: at
/// `configs/scale.toml` (128 slots, latency 64) the cold workload ran 0.978x of its bound
/// with 128 entries and 0.969x with 256, and the deeper queue's count and room compares
/// were the lookup pipe's longest paths. 16: the hit latency of 7 edges at one lookup per
/// cycle with room to spare.
pub fn state_queue_depth(max_misses: u32) -> usize {
    (2 * max_misses as usize).next_power_of_two().clamp(16, 128)
}

/// Depth of the wait queue (and of the slot and miss request queues) of a port of the
/// engine `p` with the state in memory as `m`, which is also the port's credit (the lookups
/// it holds at most): [`state_queue_depth`], or with the directory in memory too the larger
/// of it and the response queue ([`rsp_queue_depth`]), so that the lookups waiting for their
/// directory reads do not starve the pipe of credit.
pub fn wait_queue_depth(p: &EngineParams, m: &MissParams) -> usize {
    state_queue_depth(m.max_misses).max(rsp_queue_depth(p))
}

/// One cache tag: the line holds `block` when `valid`. Stored: `valid` and the low
/// `index_bits - block_bits` bits of the block number.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct CacheTag {
    pub valid: Bit,
    pub block: Bits<BLOCK_NUM_BITS>,
}

impl RamWord for CacheTag {
    fn low_bits(self, width: usize) -> Self {
        CacheTag {
            valid: self.valid && width >= 1,
            block: self.block.low_bits(width.saturating_sub(1)),
        }
    }
}

/// Bits of a block number for this configuration (0 when a block holds the whole table).
fn block_num_bits(p: &EngineParams, m: &MissParams) -> usize {
    p.index_bits.saturating_sub(m.block_bits) as usize
}

#[derive(LogicBlock)]
pub struct StateCache {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// s0: the qpn presented on the request stream (the RAMs read it at every edge).
    pub rd_qpn: Signal<In, Bits<QPN_BITS>>,
    // s2, from the pipe's registers.
    pub s2_valid: Signal<In, Bit>,
    pub s2_qpn: Signal<In, Bits<QPN_BITS>>,
    pub s2_tag: Signal<In, Bits<TAG_BITS>>,
    pub s2_oor: Signal<In, Bit>,
    /// The context address (flat: TABLE_BASE + offset; two_level on chip: page base +
    /// offset).
    pub s2_addr: Signal<In, Bits<ADDR_BITS>>,
    /// The page is present (always 1 in flat).
    pub s2_present: Signal<In, Bit>,
    /// Final lookups, in request order, into the pipe's response queue.
    pub out_valid: Signal<Out, Bit>,
    pub out_lookup: Signal<Out, QueuedLookup>,
    /// Words in the pipe's response queue.
    pub out_count: Signal<In, Bits<FIFO_COUNT_BITS>>,
    /// A word on its way into the pipe's response queue (counted with `out_count`).
    pub out_extra: Signal<In, Bit>,
    /// The read of the `live` filter ([`LiveFilter`](super::live_filter::LiveFilter), shared
    /// with another port, outside the pipe): the block of `rd_qpn` at s0, its bit in s2.
    pub live_raddr: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub live_rdata: Signal<In, Bit>,
    // Write ports of the tag and data copies (CacheWrites).
    pub tag_we: Signal<In, Bit>,
    pub tag_line: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub tag_valid: Signal<In, Bit>,
    pub tag_block: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub data_we: Signal<In, Bit>,
    pub data_row: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub data: Signal<In, Bits<MEM_DATA_BITS>>,
    // The miss unit's port.
    pub mreq_valid: Signal<Out, Bit>,
    pub mreq_ready: Signal<In, Bit>,
    pub mreq_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub ans_valid: Signal<In, Bit>,
    pub ans_ready: Signal<Out, Bit>,
    pub ans_slot: Signal<In, Bits<SLOT_BITS>>,
    pub rd_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub rd_word: Signal<Out, Bits<WORD_INDEX_BITS>>,
    pub rd_data: Signal<In, Bits<WORD_BITS_MAX>>,
    /// The slot queue's second word, and the filled flags the miss unit registered at the
    /// last edge for `rd_slot` and `rd_slot2` as they were then.
    pub rd_slot2: Signal<Out, Bits<SLOT_BITS>>,
    pub rd_filled: Signal<In, Bit>,
    pub rd_filled2: Signal<In, Bit>,
    pub rd_error: Signal<In, Bit>,
    pub rel_valid: Signal<Out, Bit>,
    pub rel_slot: Signal<Out, Bits<SLOT_BITS>>,
    /// s3 pulses for the counters of SPEC §9: answered from `live` (FILTERED), a cache hit,
    /// a miss request.
    pub filtered: Signal<Out, Bit>,
    pub hit: Signal<Out, Bit>,
    pub miss: Signal<Out, Bit>,
    tags: Ram<CacheTag>,
    data_ram: Ram<Bits<MEM_DATA_BITS>>,
    wq: MemFifo<QueuedLookup>,
    mreqs: MemFifo<Bits<BLOCK_NUM_BITS>>,
    slots: PeekFifo<Bits<SLOT_BITS>>,
    /// At the last edge: the slot queue popped, held a head, held a second word.
    s_pop: DFF<Bit>,
    s_had1: DFF<Bit>,
    s_had2: DFF<Bit>,
    /// The head's fill has landed, from registers: the flag registered for the head if the
    /// head is the one of the last edge, for the second word if the head is that word.
    h_filled: Signal<Local, Bit>,
    d1_valid: DFF<Bit>,
    d1_lookup: DFF<QueuedLookup>,
    d1_err: DFF<Bit>,
    d2_valid: DFF<Bit>,
    d2_lookup: DFF<QueuedLookup>,
    d2_err: DFF<Bit>,
    // s3, the edge after s2: what the checks need, from the RAMs' words (the tag compared,
    // the word taken from its row), so that no path runs from a block RAM through the
    // checks into the queues (see "s2 and s3" above).
    e_valid: DFF<Bit>,
    e_lookup: DFF<QueuedLookup>,
    e_oor: DFF<Bit>,
    e_live: DFF<Bit>,
    e_hit: DFF<Bit>,
    e_present: DFF<Bit>,
    e_word: DFF<Bits<WORD_BITS_MAX>>,
    e_block: DFF<Bits<BLOCK_NUM_BITS>>,
    /// The release of a slot, one edge after its head left (from flip-flops: the decision
    /// to leave, late in the cycle, does not run on into the miss unit's slots).
    r_valid: DFF<Bit>,
    r_slot: DFF<Bits<SLOT_BITS>>,
    /// The tag written.
    w_tag: Signal<Local, CacheTag>,
    // s0.
    r_index: Signal<Local, Bits<QPN_BITS>>,
    // s2.
    x_index: Signal<Local, Bits<QPN_BITS>>,
    x_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    x_tag: Signal<Local, CacheTag>,
    x_row: Signal<Local, Bits<MEM_DATA_BITS>>,
    x_lane: Signal<Local, Bits<QPN_BITS>>,
    x_word: Signal<Local, Bits<WORD_BITS_MAX>>,
    x_gen: Signal<Local, Bits<QPN_BITS>>,
    x_qgen: Signal<Local, Bits<QPN_BITS>>,
    x_page: Signal<Local, Bits<3>>,
    x_status: Signal<Local, Bits<3>>,
    x_hit: Signal<Local, Bit>,
    x_live: Signal<Local, Bit>,
    x_asks: Signal<Local, Bit>,
    x_lookup: Signal<Local, QueuedLookup>,
    // Head.
    h_lookup: Signal<Local, QueuedLookup>,
    h_ready: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    /// `out_count` equals the depth, minus 1, 2, 3.
    at_d0: Signal<Local, Bit>,
    at_d1: Signal<Local, Bit>,
    at_d2: Signal<Local, Bit>,
    at_d3: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    // d2.
    f_gen: Signal<Local, Bits<QPN_BITS>>,
    f_qgen: Signal<Local, Bits<QPN_BITS>>,
    f_status: Signal<Local, Bits<3>>,
    f_lookup: Signal<Local, QueuedLookup>,
    /// The queues' fill levels, which nothing needs (the name tells the lint so).
    unused_counts: Signal<Local, Bit>,
    status: StatusCodes,
    index_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<8>>,
    block_bits: Constant<Bits<8>>,
    line_mask: Constant<Bits<BLOCK_NUM_BITS>>,
    beat_shift: Constant<Bits<8>>,
    word_index_mask: Constant<Bits<QPN_BITS>>,
    wpb_shift: Constant<Bits<8>>,
    wpb_mask: Constant<Bits<QPN_BITS>>,
    word_shift: Constant<Bits<8>>,
    word_mask: Constant<Bits<WORD_BITS_MAX>>,
    gen_mask: Constant<Bits<QPN_BITS>>,
    valid_state: Constant<Bits<WORD_BITS_MAX>>,
    state_mask: Constant<Bits<WORD_BITS_MAX>>,
    out_depth: Constant<Bits<FIFO_COUNT_BITS>>,
    out_depth_m1: Constant<Bits<FIFO_COUNT_BITS>>,
    out_depth_m2: Constant<Bits<FIFO_COUNT_BITS>>,
    out_depth_m3: Constant<Bits<FIFO_COUNT_BITS>>,
}

impl StateCache {
    /// The port's cache for the engine `p` with the state in memory as `m`.
    pub fn new(p: &EngineParams, m: &MissParams) -> Self {
        let depth = wait_queue_depth(p, m);
        let beats = m.beats() as usize;
        let beat_shift = beats.trailing_zeros() as usize;
        let line_bits = m.cache_lines.trailing_zeros() as usize;
        let bn = block_num_bits(p, m);
        let wpb = (m.stored_bits() / m.word_bits) as u64;
        block_new!(
            [
                clock, rst, rd_qpn, s2_valid, s2_qpn, s2_tag, s2_oor, s2_addr, s2_present,
                out_valid, out_lookup, out_count, out_extra, live_raddr, live_rdata, tag_we,
                tag_line, tag_valid, tag_block, data_we, data_row, data, mreq_valid, mreq_ready,
                mreq_block, ans_valid, ans_ready, ans_slot, rd_slot, rd_word, rd_data, rd_slot2,
                rd_filled, rd_filled2, rd_error, s_pop, s_had1, s_had2, h_filled, rel_valid, rel_slot, filtered, hit, miss, d1_valid, d1_lookup, d1_err,
                d2_valid, d2_lookup, d2_err, e_valid, e_lookup, e_oor, e_live, e_hit, e_present,
                e_word, e_block, r_valid, r_slot, w_tag, r_index, x_index, x_block, x_tag, x_row,
                x_lane, x_word, x_gen, x_qgen, x_page, x_status, x_hit, x_live, x_asks, x_lookup,
                h_lookup, h_ready, room, at_d0, at_d1, at_d2, at_d3, go, f_gen, f_qgen, f_status, f_lookup,
                unused_counts, status,
            ]
            tags: Ram::with_layout(m.cache_lines as usize, line_bits.max(1), 1 + bn, p.fpga),
            data_ram: Ram::with_layout(
                m.cache_lines as usize * beats,
                (line_bits + beat_shift).max(1),
                m.stored_bits() as usize,
                p.fpga,
            ),
            wq: MemFifo::lut_ram(depth).head_registered(),
            mreqs: MemFifo::lut_ram(depth).head_registered(),
            slots: PeekFifo::new(depth),
            index_mask: Constant::new(p.index_mask().into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            block_bits: Constant::new(u64::from(m.block_bits).into()),
            line_mask: Constant::new(u64::from(m.cache_lines - 1).into()),
            beat_shift: Constant::new((beat_shift as u64).into()),
            word_index_mask: Constant::new(((1u64 << m.block_bits) - 1).into()),
            wpb_shift: Constant::new(u64::from(wpb.trailing_zeros()).into()),
            wpb_mask: Constant::new((wpb - 1).into()),
            word_shift: Constant::new(u64::from(m.word_bits.trailing_zeros()).into()),
            word_mask: Constant::new(((1u64 << m.word_bits) - 1).into()),
            gen_mask: Constant::new(p.gen_mask().into()),
            valid_state: Constant::new(super::StateEntry::VALID.into()),
            state_mask: Constant::new(3.into()),
            out_depth: Constant::new((rsp_queue_depth(p) as u64).into()),
            out_depth_m1: Constant::new((rsp_queue_depth(p) as u64 - 1).into()),
            out_depth_m2: Constant::new((rsp_queue_depth(p) as u64 - 2).into()),
            out_depth_m3: Constant::new((rsp_queue_depth(p) as u64 - 3).into()),
        )
    }
}

impl Logic for StateCache {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, d1_valid, d1_lookup, d1_err, d2_valid, d2_lookup, d2_err, e_valid,
            e_lookup, e_oor, e_live, e_hit, e_present, e_word, e_block, r_valid, r_slot, s_pop,
            s_had1, s_had2
        );
        self.tags.clock.next = self.clock.val();
        self.data_ram.clock.next = self.clock.val();
        self.wq.clock.next = self.clock.val();
        self.wq.rst.next = self.rst.val();
        self.mreqs.clock.next = self.clock.val();
        self.mreqs.rst.next = self.rst.val();
        self.slots.clock.next = self.clock.val();
        self.slots.rst.next = self.rst.val();

        // Writes.
        self.tags.write_enable.next = self.tag_we.val();
        self.tags.write_address.next =
            bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.tag_line.val());
        self.w_tag.next.valid = self.tag_valid.val();
        self.w_tag.next.block = self.tag_block.val();
        self.tags.write_data.next = self.w_tag.val();
        self.data_ram.write_enable.next = self.data_we.val();
        self.data_ram.write_address.next = self.data_row.val();
        self.data_ram.write_data.next = self.data.val();

        // s0: the block's live bit, its line's tag and the row that holds the word.
        self.r_index.next = self.rd_qpn.val() & self.index_mask.val();
        self.live_raddr.next =
            bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.r_index.val() >> self.block_bits.val());
        self.tags.read_address.next = (self.r_index.val() >> self.block_bits.val())
            & bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.line_mask.val());
        self.data_ram.read_address.next = (((self.r_index.val() >> self.block_bits.val())
            & bit_cast::<QPN_BITS, BLOCK_NUM_BITS>(self.line_mask.val()))
            << self.beat_shift.val())
            | ((self.r_index.val() & self.word_index_mask.val()) >> self.wpb_shift.val());

        // s2: the tag compared and the word taken from its row, into s3.
        self.x_index.next = self.s2_qpn.val() & self.index_mask.val();
        self.x_block.next =
            bit_cast::<BLOCK_NUM_BITS, QPN_BITS>(self.x_index.val() >> self.block_bits.val());
        self.x_tag.next = self.tags.read_data.val();
        self.x_lane.next = self.x_index.val() & self.wpb_mask.val();
        self.x_row.next = self.data_ram.read_data.val()
            >> (bit_cast::<MEM_DATA_BITS, QPN_BITS>(self.x_lane.val()) << self.word_shift.val());
        self.e_valid.d.next = self.s2_valid.val();
        self.e_lookup.d.next.offset = self.s2_addr.val();
        self.e_lookup.d.next.tag = self.s2_tag.val();
        self.e_lookup.d.next.qpn = self.s2_qpn.val();
        self.e_lookup.d.next.need = false;
        self.e_lookup.d.next.status = self.status.ok.val();
        self.e_oor.d.next = self.s2_oor.val();
        self.e_live.d.next = self.live_rdata.val();
        self.e_hit.d.next = self.x_tag.val().valid & (self.x_tag.val().block == self.x_block.val());
        self.e_present.d.next = self.s2_present.val();
        self.e_word.d.next =
            bit_cast::<WORD_BITS_MAX, MEM_DATA_BITS>(self.x_row.val()) & self.word_mask.val();
        self.e_block.d.next = self.x_block.val();

        // s3: the checks in SPEC order, into the queues.
        self.x_word.next = self.e_word.q.val();
        self.x_hit.next = self.e_hit.q.val();
        self.x_live.next = self.e_live.q.val();
        self.x_gen.next =
            bit_cast::<QPN_BITS, WORD_BITS_MAX>(self.x_word.val() >> 2) & self.gen_mask.val();
        self.x_qgen.next = self.e_lookup.q.val().qpn >> self.index_bits.val();
        self.x_page.next = self.status.ok.val();
        if !self.e_present.q.val() {
            self.x_page.next = self.status.page_absent.val();
        }
        self.x_status.next = self.x_page.val();
        if self.x_gen.val() != self.x_qgen.val() {
            self.x_status.next = self.status.stale.val();
        }
        if (self.x_word.val() & self.state_mask.val()) != self.valid_state.val() {
            self.x_status.next = self.status.not_allocated.val();
        }
        self.x_lookup.next = self.e_lookup.q.val();
        self.x_lookup.next.status = self.x_status.val();
        if !self.x_hit.val() {
            self.x_lookup.next.need = true;
            self.x_lookup.next.status = self.x_page.val();
        }
        if !self.x_live.val() {
            self.x_lookup.next.need = false;
            self.x_lookup.next.status = self.status.not_allocated.val();
        }
        if self.e_oor.q.val() {
            self.x_lookup.next.need = false;
            self.x_lookup.next.status = self.status.out_of_range.val();
        }
        self.x_asks.next = self.e_valid.q.val() & !self.e_oor.q.val() & self.x_live.val();
        self.filtered.next = self.e_valid.q.val() & !self.e_oor.q.val() & !self.x_live.val();
        self.hit.next = self.x_asks.val() & self.x_hit.val();
        self.miss.next = self.x_asks.val() & !self.x_hit.val();
        self.wq.in_valid.next = self.e_valid.q.val();
        self.wq.data_in.next = self.x_lookup.val();
        self.mreqs.in_valid.next = self.x_asks.val() & !self.x_hit.val();
        self.mreqs.data_in.next = self.e_block.q.val();

        // The miss unit's port: requests in order, answers taken at once.
        self.mreq_valid.next = self.mreqs.out_valid.val();
        self.mreq_block.next = self.mreqs.data_out.val();
        self.mreqs.out_ready.next = self.mreq_ready.val();
        self.ans_ready.next = true;
        self.slots.in_valid.next = self.ans_valid.val();
        self.slots.data_in.next = self.ans_slot.val();

        // Head: leaves when final, or when its slot's fill has landed; the fill buffer takes
        // the read address at the same edge, and the slot is released.
        self.h_lookup.next = self.wq.data_out.val();
        self.rd_slot.next = self.slots.data_out.val();
        self.rd_slot2.next = self.slots.data_next.val();
        self.rd_word.next = bit_cast::<WORD_INDEX_BITS, QPN_BITS>(
            self.h_lookup.val().qpn & self.word_index_mask.val(),
        );
        self.h_filled.next = self.s_had1.q.val() & self.rd_filled.val();
        if self.s_pop.q.val() {
            self.h_filled.next = self.s_had2.q.val() & self.rd_filled2.val();
        }
        self.h_ready.next =
            !self.h_lookup.val().need | (self.slots.out_valid.val() & self.h_filled.val());
        // Room: `out_count + out_extra + d1 + d2 < depth`, as comparisons of `out_count` with
        // constants in parallel, picked by how many of `out_extra`, d1 and d2 hold a word (no
        // adder on the head's path). The fill never exceeds the depth, so `out_count < depth
        // - k` is `out_count` equal to none of `depth - k ..= depth` (equalities: no carry
        // chain).
        self.at_d0.next = self.out_count.val() == self.out_depth.val();
        self.at_d1.next = self.out_count.val() == self.out_depth_m1.val();
        self.at_d2.next = self.out_count.val() == self.out_depth_m2.val();
        self.at_d3.next = self.out_count.val() == self.out_depth_m3.val();
        self.room.next = !self.at_d0.val();
        if self.out_extra.val() | self.d1_valid.q.val() | self.d2_valid.q.val() {
            self.room.next = !self.at_d0.val() & !self.at_d1.val();
        }
        if (self.out_extra.val() & (self.d1_valid.q.val() | self.d2_valid.q.val()))
            | (self.d1_valid.q.val() & self.d2_valid.q.val())
        {
            self.room.next = !self.at_d0.val() & !self.at_d1.val() & !self.at_d2.val();
        }
        if self.out_extra.val() & self.d1_valid.q.val() & self.d2_valid.q.val() {
            self.room.next =
                !self.at_d0.val() & !self.at_d1.val() & !self.at_d2.val() & !self.at_d3.val();
        }
        self.go.next = self.wq.out_valid.val() & self.h_ready.val() & self.room.val();
        self.wq.out_ready.next = self.go.val();
        self.slots.out_ready.next = self.go.val() & self.h_lookup.val().need;
        self.s_pop.d.next = self.go.val() & self.h_lookup.val().need;
        self.s_had1.d.next = self.slots.out_valid.val();
        self.s_had2.d.next = self.slots.next_valid.val();
        self.r_valid.d.next = self.go.val() & self.h_lookup.val().need;
        self.r_slot.d.next = self.slots.data_out.val();
        self.rel_valid.next = self.r_valid.q.val();
        self.rel_slot.next = self.r_slot.q.val();
        self.d1_valid.d.next = self.go.val();
        self.d1_lookup.d.next = self.h_lookup.val();
        self.d1_err.d.next = self.rd_error.val();
        self.d2_valid.d.next = self.d1_valid.q.val();
        self.d2_lookup.d.next = self.d1_lookup.q.val();
        self.d2_err.d.next = self.d1_err.q.val();

        // d2: the word read from the fill buffer decides a lookup that needed it.
        self.f_gen.next =
            bit_cast::<QPN_BITS, WORD_BITS_MAX>(self.rd_data.val() >> 2) & self.gen_mask.val();
        self.f_qgen.next = self.d2_lookup.q.val().qpn >> self.index_bits.val();
        self.f_status.next = self.d2_lookup.q.val().status;
        if self.d2_lookup.q.val().need {
            if self.f_gen.val() != self.f_qgen.val() {
                self.f_status.next = self.status.stale.val();
            }
            if (self.rd_data.val() & self.state_mask.val()) != self.valid_state.val() {
                self.f_status.next = self.status.not_allocated.val();
            }
            if self.d2_err.q.val() {
                self.f_status.next = self.status.mem_error.val();
            }
        }
        self.f_lookup.next = self.d2_lookup.q.val();
        self.f_lookup.next.need = false;
        self.f_lookup.next.status = self.f_status.val();
        self.out_valid.next = self.d2_valid.q.val();
        self.out_lookup.next = self.f_lookup.val();

        self.unused_counts.next =
            self.wq.count.val().any() | self.mreqs.count.val().any() | self.slots.count.val().any();

        if self.rst.val() {
            self.e_valid.d.next = false;
            self.r_valid.d.next = false;
            self.s_pop.d.next = false;
            self.s_had1.d.next = false;
            self.s_had2.d.next = false;
            self.d1_valid.d.next = false;
            self.d2_valid.d.next = false;
        }
    }
}
