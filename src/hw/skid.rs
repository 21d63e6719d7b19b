//! `Skid<T>`: a register slice (skid buffer) of a ready/valid stream: two words of storage,
//! `in_ready` and everything on the output side from flip-flops, one word a cycle through.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `in_valid`, `in_ready`, `data_in` | in, out, in | the stream in; `in_ready` is a register (the skid word is empty) |
//! | `out_valid`, `out_ready`, `data_out` | out, in, out | the stream out, in order; `out_valid` and `data_out` are registers |
//!
//! A word taken at edge `t` is offered from edge `t` on (no word waits behind an empty output
//! register); it goes into the skid register only when the output register holds a word that
//! does not leave at `t`. `in_ready` does not depend on `out_ready` in the same cycle, so the
//! producer's logic depends on no input of the consumer's side: the state in memory puts one
//! between the miss unit's reads and the AR channel, so that no logic of the miss unit follows
//! `m_axi_arready` combinationally (SPEC §4, and Verilator then evaluates the miss unit once a
//! cycle, not again for every change of a top-level input). A word's payload is held while it
//! waits (AXI: the address stays until `arready`).
//!
//! Reset (`rst`, synchronous) empties both registers.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Skid<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub data_in: Signal<In, T>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub data_out: Signal<Out, T>,
    /// The output register.
    o_valid: DFF<Bit>,
    o_data: DFF<T>,
    /// The skid register: a word taken while the output register held one that stayed.
    s_valid: DFF<Bit>,
    s_data: DFF<T>,
    /// The output register is free at this edge (empty, or its word leaves).
    o_free: Signal<Local, Bit>,
}

impl<T: Synth> Logic for Skid<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, o_valid, o_data, s_valid, s_data);
        self.in_ready.next = !self.s_valid.q.val();
        self.out_valid.next = self.o_valid.q.val();
        self.data_out.next = self.o_data.q.val();
        self.o_free.next = !self.o_valid.q.val() | self.out_ready.val();
        if self.o_free.val() {
            // The skid word first (it is older); else the word taken now, if any.
            if self.s_valid.q.val() {
                self.o_data.d.next = self.s_data.q.val();
            } else {
                self.o_data.d.next = self.data_in.val();
            }
            self.o_valid.d.next = self.s_valid.q.val() | self.in_valid.val();
            self.s_valid.d.next = false;
        } else if self.in_valid.val() & !self.s_valid.q.val() {
            self.s_data.d.next = self.data_in.val();
            self.s_valid.d.next = true;
        }
        if self.rst.val() {
            self.o_valid.d.next = false;
            self.s_valid.d.next = false;
        }
    }
}
