//! `MissBroadcast`: the broadcast of the [`MissUnit`](super::miss_unit::MissUnit) (SPEC §9,
//! `docs/state_in_memory.md` "Miss unit"): it keeps the R beats of the last two blocks read in
//! a ring, queues each fill that has landed (good or failed), and sends a good fill's beats to
//! every cache copy (`cw_*`), one a cycle, in fill order; a failed fill's beats are skipped.
//! Also tested alone (`testbench/tests/block_miss_broadcast.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `beat_valid`, `beat_data` | in | an R beat of the miss unit's reads (its lane for a narrow block): written into the ring at this edge |
//! | `fill_valid`, `fill_good`, `fill_block`, `fill_slot` | in | with the last beat of a read (`beat_valid` high too): the fill is done, good or failed, of this block into this slot |
//! | `cw_valid`, `cw_line`, `cw_block`, `cw_beat`, `cw_last`, `cw_data` | out | cache write, from registers: beat `cw_beat` of block `cw_block` into line `cw_block mod cache_lines`, `cw_last` on its last beat; `cw_data` 0 without `cw_valid` |
//! | `sent_valid`, `sent_slot` | out | the last beat of the slot's fill is on `cw_*` in this cycle (`cw_valid && cw_last`): its broadcast is done |
//!
//! Timing: a fill queued at edge `t` (its last beat) puts its first beat on `cw_*` after edge
//! `t + 3` at the earliest (the queue's registered head, the ring's read register, the output
//! register), then one beat a cycle. The ring holds two blocks, so the reads must not run more
//! than one block ahead of the broadcast: the miss unit's slots wait for their broadcast, and
//! one beat a cycle leaves as one arrives.
//!
//! Reset (`rst`, synchronous) empties the queue and the pipeline.

use super::mem_fifo::MemFifo;
use super::miss_unit::{MissParams, BEAT_BITS, BLOCK_NUM_BITS, MEM_DATA_BITS, SLOT_BITS};
use super::ram::{Ram, RAM_ADDR_BITS};
use super::EngineParams;
use rust_hdl::prelude::*;

/// Ring pointers (2 blocks of at most 128 beats).
const PTR_BITS: usize = 9;
/// Broadcast queue word: good, block, slot.
pub const DONE_BITS: usize = 1 + BLOCK_NUM_BITS + SLOT_BITS;

#[derive(LogicBlock)]
pub struct MissBroadcast {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub beat_valid: Signal<In, Bit>,
    pub beat_data: Signal<In, Bits<MEM_DATA_BITS>>,
    pub fill_valid: Signal<In, Bit>,
    pub fill_good: Signal<In, Bit>,
    pub fill_block: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub fill_slot: Signal<In, Bits<SLOT_BITS>>,
    pub cw_valid: Signal<Out, Bit>,
    pub cw_line: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub cw_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub cw_beat: Signal<Out, Bits<BEAT_BITS>>,
    pub cw_last: Signal<Out, Bit>,
    pub cw_data: Signal<Out, Bits<MEM_DATA_BITS>>,
    pub sent_valid: Signal<Out, Bit>,
    pub sent_slot: Signal<Out, Bits<SLOT_BITS>>,
    /// Fills landed, in order, to broadcast or skip: good, block, slot.
    done: MemFifo<Bits<DONE_BITS>>,
    ring: Ram<Bits<MEM_DATA_BITS>>,
    w_ptr: DFF<Bits<PTR_BITS>>,
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
    d_good: Signal<Local, Bit>,
    d_last: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    skip: Signal<Local, Bit>,
    cw_out: Signal<Local, Bits<MEM_DATA_BITS>>,
    /// The queue's fill level, which nothing needs (the name tells the lint so).
    unused_count: Signal<Local, Bit>,
    beats: Constant<Bits<PTR_BITS>>,
    beats_m1: Constant<Bits<BEAT_BITS>>,
    ring_mask: Constant<Bits<PTR_BITS>>,
    line_mask: Constant<Bits<BLOCK_NUM_BITS>>,
}

impl MissBroadcast {
    /// The broadcast of a miss unit with the parameters `m` (checked by
    /// [`MissParams::check`]).
    pub fn new(p: &EngineParams, m: &MissParams) -> Self {
        let beats = m.beats() as usize;
        let beat_shift = beats.trailing_zeros() as usize;
        block_new!(
            [
                clock, rst, beat_valid, beat_data, fill_valid, fill_good, fill_block, fill_slot,
                cw_valid, cw_line, cw_block, cw_beat, cw_last, cw_data, sent_valid, sent_slot,
                w_ptr, d_beat, d_ptr, p1_valid, p1_last, p1_slot, p1_block, p1_beat, p2_valid,
                p2_last, p2_slot, p2_block, p2_beat, d_good, d_last, issue, skip, cw_out,
                unused_count,
            ]
            done: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            ring: Ram::with_layout(2 * beats, beat_shift + 1, m.stored_bits() as usize, p.fpga),
            beats: Constant::new((beats as u64).into()),
            beats_m1: Constant::new((beats as u64 - 1).into()),
            ring_mask: Constant::new((2 * beats as u64 - 1).into()),
            line_mask: Constant::new(u64::from(m.cache_lines - 1).into()),
        )
    }
}

impl Logic for MissBroadcast {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_ptr, d_beat, d_ptr, p1_valid, p1_last, p1_slot, p1_block, p1_beat,
            p2_valid, p2_last, p2_slot, p2_block, p2_beat
        );
        self.done.clock.next = self.clock.val();
        self.done.rst.next = self.rst.val();
        self.ring.clock.next = self.clock.val();

        // ---- In: the beats into the ring, the fills into the queue.
        self.ring.write_enable.next = self.beat_valid.val();
        self.ring.write_address.next = bit_cast::<RAM_ADDR_BITS, PTR_BITS>(self.w_ptr.q.val());
        self.ring.write_data.next = self.beat_data.val();
        if self.beat_valid.val() {
            self.w_ptr.d.next = (self.w_ptr.q.val() + 1) & self.ring_mask.val();
        }
        self.done.in_valid.next = self.fill_valid.val();
        self.done.data_in.next = (bit_cast::<DONE_BITS, 1>(self.fill_good.val().into()) << 29)
            | (bit_cast::<DONE_BITS, BLOCK_NUM_BITS>(self.fill_block.val()) << 8)
            | bit_cast::<DONE_BITS, SLOT_BITS>(self.fill_slot.val());

        // ---- Out: a good fill's beats from the ring, one a cycle; a failed fill's beats
        // skipped at once.
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
        self.sent_valid.next = self.p2_valid.q.val() & self.p2_last.q.val();
        self.sent_slot.next = self.p2_slot.q.val();
        self.unused_count.next = self.done.count.val().any();

        if self.rst.val() {
            self.w_ptr.d.next = 0.into();
            self.d_beat.d.next = 0.into();
            self.d_ptr.d.next = 0.into();
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
        }
    }
}
