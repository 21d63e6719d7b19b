//! `MissReadPort`: one lookup port's read port of the [`MissUnit`](super::miss_unit::MissUnit)'s
//! fill buffer (SPEC §9, `docs/state_in_memory.md` "Miss unit"): the port's own copy of the
//! fill buffer (every R beat is written into every port's copy) and its own copy of the
//! slots' filled and failed flags, one edge late, so that the port's multiplexers select from
//! flip-flops the placer can keep next to the port (a 64:1 multiplexer from flags spread with
//! the slots' logic was 8 ns of `configs/scale.toml`'s longest path on ECP5). The miss unit has
//! one per port; its ports `rd_*` are these.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `w_valid`, `w_slot`, `w_beat`, `w_data` | in | an R beat (its lane for a narrow block): beat `w_beat` of slot `w_slot`'s block, written at this edge |
//! | `fl_vec`, `er_vec` | in | bit [`MissParams::vector_bit`]`(s)`: slot `s`'s fill has landed; has landed and failed (copied at every edge) |
//! | `rd_slot`, `rd_word` | in | a slot and a word index in its block |
//! | `rd_error` | out | combinational in `rd_slot`, from the copy: the slot's fill failed |
//! | `rd_slot2` | in | a second slot |
//! | `rd_filled`, `rd_filled2` | out | registered: the copy showed the fill of the slot presented on `rd_slot` / `rd_slot2` at the last edge landed |
//! | `rd_data` | out | the word of the slot and index presented at edge `t`, after edge `t + 1` (latency 2, the buffer's output register), low `word_bits` bits, when the copy showed the slot's fill landed at edge `t` (else 0) |
//!
//! Reset (`rst`, synchronous) clears the copies of the flags and `rd_filled*`.

use super::miss_unit::{
    MissParams, BEAT_BITS, MAX_SLOTS, MEM_DATA_BITS, SLOT_BITS, WORD_BITS_MAX, WORD_INDEX_BITS,
};
use super::ram::{Ram, RAM_ADDR_BITS};
use super::EngineParams;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MissReadPort {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub w_valid: Signal<In, Bit>,
    pub w_slot: Signal<In, Bits<SLOT_BITS>>,
    pub w_beat: Signal<In, Bits<BEAT_BITS>>,
    pub w_data: Signal<In, Bits<MEM_DATA_BITS>>,
    pub fl_vec: Signal<In, Bits<MAX_SLOTS>>,
    pub er_vec: Signal<In, Bits<MAX_SLOTS>>,
    pub rd_slot: Signal<In, Bits<SLOT_BITS>>,
    pub rd_word: Signal<In, Bits<WORD_INDEX_BITS>>,
    pub rd_data: Signal<Out, Bits<WORD_BITS_MAX>>,
    pub rd_filled: Signal<Out, Bit>,
    pub rd_error: Signal<Out, Bit>,
    pub rd_slot2: Signal<In, Bits<SLOT_BITS>>,
    pub rd_filled2: Signal<Out, Bit>,
    fill: Ram<Bits<MEM_DATA_BITS>>,
    /// The word index within its beat, delayed as the fill buffer's read.
    lane1: DFF<Bits<WORD_INDEX_BITS>>,
    lane2: DFF<Bits<WORD_INDEX_BITS>>,
    /// The slot was filled when its read was taken, delayed as the read (else `rd_data` is 0).
    rdv1: DFF<Bit>,
    rdv2: DFF<Bit>,
    /// The copies of the flags.
    fl_copy: DFF<Bits<MAX_SLOTS>>,
    er_copy: DFF<Bits<MAX_SLOTS>>,
    /// The filled flags of `rd_slot` and `rd_slot2`, registered: `rd_filled`, `rd_filled2`.
    f1_q: DFF<Bit>,
    f2_q: DFF<Bit>,
    x_word: Signal<Local, Bits<WORD_INDEX_BITS>>,
    x_out: Signal<Local, Bits<WORD_BITS_MAX>>,
    st_filled: Signal<Local, Bit>,
    st_filled2: Signal<Local, Bit>,
    st_error: Signal<Local, Bit>,
    /// Bit 0 of a flag vector.
    bit0: Constant<Bits<MAX_SLOTS>>,
    /// The vector bits of `rd_slot` and `rd_slot2`.
    rd_bit: Signal<Local, Bits<SLOT_BITS>>,
    rd_bit2: Signal<Local, Bits<SLOT_BITS>>,
    /// A slot's set (`slot & set_mask`) and way (`slot >> way_shift`).
    set_mask: Constant<Bits<SLOT_BITS>>,
    way_shift: Constant<Bits<SLOT_BITS>>,
    beat_shift: Constant<Bits<8>>,
    word_index_mask: Constant<Bits<WORD_INDEX_BITS>>,
    wpb_shift: Constant<Bits<8>>,
    wpb_mask: Constant<Bits<WORD_INDEX_BITS>>,
    word_shift: Constant<Bits<8>>,
    word_mask: Constant<Bits<WORD_BITS_MAX>>,
}

impl MissReadPort {
    /// A read port of a miss unit with the parameters `m` (checked by [`MissParams::check`]).
    pub fn new(p: &EngineParams, m: &MissParams) -> Self {
        let slots = m.max_misses as usize;
        let beats = m.beats() as usize;
        let beat_shift = beats.trailing_zeros() as usize;
        let stored = m.stored_bits() as usize;
        let wpb = stored / m.word_bits as usize;
        // (The address bits the depth needs: one slot of several beats needs only the beat.)
        let fill_bits = (slots.next_power_of_two().trailing_zeros() as usize + beat_shift).max(1);
        block_new!(
            [
                clock, rst, w_valid, w_slot, w_beat, w_data, fl_vec, er_vec, rd_slot, rd_word,
                rd_data, rd_filled, rd_error, rd_slot2, rd_filled2, lane1, lane2, rdv1, rdv2,
                fl_copy, er_copy, f1_q, f2_q, x_word, x_out, st_filled, st_filled2, st_error, rd_bit, rd_bit2,
            ]
            fill: Ram::with_layout(slots * beats, fill_bits, stored, p.fpga),
            bit0: Constant::new(1.into()),
            set_mask: Constant::new(((m.sets() - 1) as u64).into()),
            way_shift: Constant::new(u64::from(m.sets().trailing_zeros()).into()),
            beat_shift: Constant::new((beat_shift as u64).into()),
            word_index_mask: Constant::new(((1u64 << m.block_bits) - 1).into()),
            wpb_shift: Constant::new(u64::from(wpb.trailing_zeros()).into()),
            wpb_mask: Constant::new((wpb as u64 - 1).into()),
            word_shift: Constant::new(u64::from(m.word_bits.trailing_zeros()).into()),
            word_mask: Constant::new(((1u64 << m.word_bits) - 1).into()),
        )
    }
}

impl Logic for MissReadPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lane1, lane2, rdv1, rdv2, fl_copy, er_copy, f1_q, f2_q);
        self.fill.clock.next = self.clock.val();
        self.fill.write_enable.next = self.w_valid.val();
        self.fill.write_address.next = (bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.w_slot.val())
            << self.beat_shift.val())
            | bit_cast::<RAM_ADDR_BITS, BEAT_BITS>(self.w_beat.val());
        self.fill.write_data.next = self.w_data.val();
        self.fl_copy.d.next = self.fl_vec.val();
        self.er_copy.d.next = self.er_vec.val();
        if self.rst.val() {
            self.fl_copy.d.next = 0.into();
            self.er_copy.d.next = 0.into();
        }
        self.x_word.next =
            (self.rd_word.val() & self.word_index_mask.val()) >> self.wpb_shift.val();
        self.fill.read_address.next = (bit_cast::<RAM_ADDR_BITS, SLOT_BITS>(self.rd_slot.val())
            << self.beat_shift.val())
            | bit_cast::<RAM_ADDR_BITS, WORD_INDEX_BITS>(self.x_word.val());
        self.lane1.d.next = self.rd_word.val() & self.wpb_mask.val();
        self.lane2.d.next = self.lane1.q.val();
        self.x_out.next = bit_cast::<WORD_BITS_MAX, MEM_DATA_BITS>(
            self.fill.read_data.val()
                >> (bit_cast::<16, WORD_INDEX_BITS>(self.lane2.q.val()) << self.word_shift.val()),
        ) & self.word_mask.val();
        if !self.rdv2.q.val() {
            self.x_out.next = 0.into();
        }
        self.rd_data.next = self.x_out.val();
        // The slot's bit of each flag vector, shifted down to bit 0.
        self.rd_bit.next = ((self.rd_slot.val() & self.set_mask.val()) << 3)
            | (self.rd_slot.val() >> self.way_shift.val());
        self.rd_bit2.next = ((self.rd_slot2.val() & self.set_mask.val()) << 3)
            | (self.rd_slot2.val() >> self.way_shift.val());
        self.st_filled.next = ((self.fl_copy.q.val() >> self.rd_bit.val()) & self.bit0.val()).any();
        self.st_error.next = ((self.er_copy.q.val() >> self.rd_bit.val()) & self.bit0.val()).any();
        self.st_filled2.next =
            ((self.fl_copy.q.val() >> self.rd_bit2.val()) & self.bit0.val()).any();
        self.f1_q.d.next = self.st_filled.val() & !self.rst.val();
        self.f2_q.d.next = self.st_filled2.val() & !self.rst.val();
        self.rd_filled.next = self.f1_q.q.val();
        self.rd_filled2.next = self.f2_q.q.val();
        self.rdv1.d.next = self.st_filled.val();
        self.rdv2.d.next = self.rdv1.q.val();
        self.rd_error.next = self.st_error.val();
    }
}
