//! `MissAnswers`: one lookup port's side of the [`MissUnit`](super::miss_unit::MissUnit)
//! (SPEC §9, `docs/state_in_memory.md` "Miss unit"): the queue of the slots answered to the
//! port, and which slots the port holds (an answer naming the slot that the port has not
//! released). The miss unit has one per port. Also tested alone
//! (`testbench/tests/block_miss_answers.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `push_valid`, `push_slot` | in | a request of the port leaves the decision register at this edge with this slot (only when `room` is high): queued as an answer, and the port holds the slot from this edge |
//! | `room` | out | registered: the answer queue (of [`ANSWER_DEPTH`]) has room for a push at the next edge (exact: the count after the last edge) |
//! | `ans_valid`, `ans_ready`, `ans_slot` | out, in, out | the answers, in push order (a stream) |
//! | `rel_valid`, `rel_slot` | in | the port releases a slot: one pulse per answer it received, in the order of the answers; fewer than 2^[`SEQ_BITS`] answers held (pushed, not released) at any time |
//! | `hold` | out | registered: bit [`MissParams::vector_bit`]`(s)`: the port holds slot `s`. Set at the edge of a push of `s`; cleared three edges after the release of the last answer naming `s` (a push of `s` at that edge wins) |
//!
//! How: the pushes are numbered (`ans_seq`, mod 2^[`SEQ_BITS`]) and the number of the last
//! push of each slot is kept in a RAM (`seqs`, written at the push); the releases are
//! numbered the same way (`rel_seq`: the port releases in answer order), and a release reads
//! its slot's word at its edge (the RAM's output register holds it one edge later, so no logic
//! follows a block RAM's read port): the same number means no later answer names the slot,
//! unless a push of the slot at that edge or the next two wrote a newer one (the RAM is
//! read-first: `rq_sup`, `rq2_sup`); the result is registered and clears the bit an edge
//! later. One RAM word and one comparison per release, nothing per slot but the bit of `hold`.
//!
//! Reset (`rst`, synchronous) empties the queue, clears `hold` and the numbers.

use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::miss_params::{MissParams, ANSWER_DEPTH, MAX_SLOTS, SEQ_BITS, SLOT_BITS};
use super::ram::{Ram, RAM_ADDR_BITS};
use super::EngineParams;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MissAnswers {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub push_valid: Signal<In, Bit>,
    pub push_slot: Signal<In, Bits<SLOT_BITS>>,
    pub room: Signal<Out, Bit>,
    pub ans_valid: Signal<Out, Bit>,
    pub ans_ready: Signal<In, Bit>,
    pub ans_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub rel_valid: Signal<In, Bit>,
    pub rel_slot: Signal<In, Bits<SLOT_BITS>>,
    pub hold: Signal<Out, Bits<MAX_SLOTS>>,
    answers: MemFifo<Bits<SLOT_BITS>>,
    /// Per slot: the number of the last push that named it.
    seqs: Ram<Bits<SEQ_BITS>>,
    room_q: DFF<Bit>,
    hold_q: DFF<Bits<MAX_SLOTS>>,
    /// Pushes and releases since reset (mod 2^[`SEQ_BITS`]).
    ans_seq: DFF<Bits<SEQ_BITS>>,
    rel_seq: DFF<Bits<SEQ_BITS>>,
    /// The release of the last edge (`rq_*`) and of the edge before (`rq2_*`): valid, slot,
    /// number, and whether a push named the slot since its read (the word read is older).
    rq_valid: DFF<Bit>,
    rq_slot: DFF<Bits<SLOT_BITS>>,
    rq_seq: DFF<Bits<SEQ_BITS>>,
    rq_sup: DFF<Bit>,
    rq2_valid: DFF<Bit>,
    rq2_slot: DFF<Bits<SLOT_BITS>>,
    rq2_seq: DFF<Bits<SEQ_BITS>>,
    rq2_sup: DFF<Bit>,
    /// The hold's bit to clear at the next edge: the release was the last answer naming it.
    cl_valid: DFF<Bit>,
    cl_bit: DFF<Bits<SLOT_BITS>>,
    a_pop: Signal<Local, Bit>,
    /// The vector bits of the pushed and the released slot.
    push_bit: Signal<Local, Bits<SLOT_BITS>>,
    rel_bit: Signal<Local, Bits<SLOT_BITS>>,
    clr_vec: Signal<Local, Bits<MAX_SLOTS>>,
    /// The bits of the queue's count at or above [`ANSWER_DEPTH`] (a power of two).
    answer_full: Constant<Bits<FIFO_COUNT_BITS>>,
    answer_depth_m1: Constant<Bits<FIFO_COUNT_BITS>>,
    one_vec: Constant<Bits<MAX_SLOTS>>,
    /// A slot's set (`slot & set_mask`) and way (`slot >> way_shift`).
    set_mask: Constant<Bits<SLOT_BITS>>,
    way_shift: Constant<Bits<SLOT_BITS>>,
}

impl MissAnswers {
    /// One port's answers for a miss unit with the parameters `m` (checked by
    /// [`MissParams::check`]).
    pub fn new(p: &EngineParams, m: &MissParams) -> Self {
        let slots = m.max_misses as usize;
        let slot_bits = (slots.next_power_of_two().trailing_zeros() as usize).max(1);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            push_valid: Default::default(),
            push_slot: Default::default(),
            room: Default::default(),
            ans_valid: Default::default(),
            ans_ready: Default::default(),
            ans_slot: Default::default(),
            rel_valid: Default::default(),
            rel_slot: Default::default(),
            hold: Default::default(),
            answers: MemFifo::new(ANSWER_DEPTH),
            seqs: Ram::with_layout(slots, slot_bits, SEQ_BITS, p.fpga),
            room_q: Default::default(),
            hold_q: Default::default(),
            ans_seq: Default::default(),
            rel_seq: Default::default(),
            rq_valid: Default::default(),
            rq_slot: Default::default(),
            rq_seq: Default::default(),
            rq_sup: Default::default(),
            rq2_valid: Default::default(),
            rq2_slot: Default::default(),
            rq2_seq: Default::default(),
            rq2_sup: Default::default(),
            cl_valid: Default::default(),
            cl_bit: Default::default(),
            a_pop: Default::default(),
            push_bit: Default::default(),
            rel_bit: Default::default(),
            clr_vec: Default::default(),
            answer_full: Constant::new(((1u64 << FIFO_COUNT_BITS) - ANSWER_DEPTH as u64).into()),
            answer_depth_m1: Constant::new((ANSWER_DEPTH as u64 - 1).into()),
            one_vec: Constant::new(1.into()),
            set_mask: Constant::new(((m.sets() - 1) as u64).into()),
            way_shift: Constant::new(u64::from(m.sets().trailing_zeros()).into()),
        }
    }
}

impl Logic for MissAnswers {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, room_q, hold_q, ans_seq, rel_seq, rq_valid, rq_slot, rq_seq, rq_sup,
            rq2_valid, rq2_slot, rq2_seq, rq2_sup, cl_valid, cl_bit
        );
        self.answers.clock.next = self.clock.val();
        self.answers.rst.next = self.rst.val();
        self.seqs.clock.next = self.clock.val();

        self.answers.in_valid.next = self.push_valid.val();
        self.answers.data_in.next = self.push_slot.val();
        self.answers.out_ready.next = self.ans_ready.val();
        self.ans_valid.next = self.answers.out_valid.val();
        self.ans_slot.next = self.answers.data_out.val();
        // Room after this edge (the count after this edge below ANSWER_DEPTH), registered:
        // full now and not popped without a push, or one short and pushed without a pop.
        // (`count >= ANSWER_DEPTH` as a bit test: no carry chain.)
        self.a_pop.next = self.answers.out_valid.val() & self.ans_ready.val();
        self.room_q.d.next = !(((self.answers.count.val() & self.answer_full.val()).any()
            & !(self.a_pop.val() & !self.push_valid.val()))
            | ((self.answers.count.val() == self.answer_depth_m1.val())
                & self.push_valid.val()
                & !self.a_pop.val()));
        self.room.next = self.room_q.q.val();

        // Each push numbered, its number kept at its slot.
        self.seqs.write_enable.next = self.push_valid.val();
        self.seqs.write_address.next = bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.push_slot.val());
        self.seqs.write_data.next = self.ans_seq.q.val();
        if self.push_valid.val() {
            self.ans_seq.d.next = self.ans_seq.q.val() + 1;
        }
        // Each release numbered, its slot's word read at its edge and compared two edges later.
        self.seqs.read_address.next = bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.rel_slot.val());
        self.rq_valid.d.next = self.rel_valid.val();
        self.rq_slot.d.next = self.rel_slot.val();
        self.rq_seq.d.next = self.rel_seq.q.val();
        self.rq_sup.d.next = self.push_valid.val() & (self.push_slot.val() == self.rel_slot.val());
        if self.rel_valid.val() {
            self.rel_seq.d.next = self.rel_seq.q.val() + 1;
        }
        self.push_bit.next = ((self.push_slot.val() & self.set_mask.val()) << 3)
            | (self.push_slot.val() >> self.way_shift.val());
        self.rq2_valid.d.next = self.rq_valid.q.val();
        self.rq2_slot.d.next = self.rq_slot.q.val();
        self.rq2_seq.d.next = self.rq_seq.q.val();
        self.rq2_sup.d.next = self.rq_sup.q.val()
            | (self.push_valid.val() & (self.push_slot.val() == self.rq_slot.q.val()));
        self.rel_bit.next = ((self.rq2_slot.q.val() & self.set_mask.val()) << 3)
            | (self.rq2_slot.q.val() >> self.way_shift.val());
        // The comparison registered (`cl_*`), then the hold's bit cleared: the word and the
        // decode into the 256 bits of `hold` are an edge apart.
        self.cl_valid.d.next = self.rq2_valid.q.val()
            & !self.rq2_sup.q.val()
            & !(self.push_valid.val() & (self.push_slot.val() == self.rq2_slot.q.val()))
            & (self.seqs.read_data.val() == self.rq2_seq.q.val());
        self.cl_bit.d.next = self.rel_bit.val();
        self.clr_vec.next = 0.into();
        if self.cl_valid.q.val() {
            self.clr_vec.next = self.one_vec.val() << self.cl_bit.q.val();
        }
        self.hold_q.d.next = self.hold_q.q.val() & !self.clr_vec.val();
        if self.push_valid.val() {
            self.hold_q.d.next = self.hold_q.d.val() | (self.one_vec.val() << self.push_bit.val());
        }
        self.hold.next = self.hold_q.q.val();

        if self.rst.val() {
            self.room_q.d.next = true;
            self.hold_q.d.next = 0.into();
            self.ans_seq.d.next = 0.into();
            self.rel_seq.d.next = 0.into();
            self.rq_valid.d.next = false;
            self.rq2_valid.d.next = false;
            self.cl_valid.d.next = false;
        }
    }
}
