//! `ReadArb`: the AR channel of the memory port shared by two read masters of `state =
//! in_memory` (SPEC §9): the miss unit (ID 0) and the command engine (ID 1); R beats go back
//! by `rid` (wired at the top level).
//!
//! AXI requires that once `arvalid` is high, it and the address stay until `arready`. So the
//! grant is held while the granted master's request waits (`wait_q`: `arvalid` was high and
//! `arready` low at the last edge); otherwise the command engine's request goes first (one
//! read per command, so the miss unit's reads are never starved). Nothing depends on
//! `arready` but the masters' own `arready`.

use super::miss_unit::BEAT_BITS;
use super::ADDR_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ReadArb {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // Master 0 (the miss unit).
    pub a_valid: Signal<In, Bit>,
    pub a_ready: Signal<Out, Bit>,
    pub a_addr: Signal<In, Bits<ADDR_BITS>>,
    pub a_len: Signal<In, Bits<BEAT_BITS>>,
    // Master 1 (the command engine).
    pub b_valid: Signal<In, Bit>,
    pub b_ready: Signal<Out, Bit>,
    pub b_addr: Signal<In, Bits<ADDR_BITS>>,
    pub b_len: Signal<In, Bits<BEAT_BITS>>,
    // The AR channel.
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub arlen: Signal<Out, Bits<BEAT_BITS>>,
    pub arid: Signal<Out, Bit>,
    grant_q: DFF<Bit>,
    wait_q: DFF<Bit>,
    sel: Signal<Local, Bit>,
    valid: Signal<Local, Bit>,
    addr: Signal<Local, Bits<ADDR_BITS>>,
    len: Signal<Local, Bits<BEAT_BITS>>,
}

impl Logic for ReadArb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, grant_q, wait_q);
        self.sel.next = self.b_valid.val();
        if self.wait_q.q.val() {
            self.sel.next = self.grant_q.q.val();
        }
        // (Decided in locals, each port assigned once.)
        self.valid.next = self.a_valid.val();
        self.addr.next = self.a_addr.val();
        self.len.next = self.a_len.val();
        if self.sel.val() {
            self.valid.next = self.b_valid.val();
            self.addr.next = self.b_addr.val();
            self.len.next = self.b_len.val();
        }
        self.arvalid.next = self.valid.val();
        self.araddr.next = self.addr.val();
        self.arlen.next = self.len.val();
        self.arid.next = self.sel.val();
        self.a_ready.next = !self.sel.val() & self.arready.val();
        self.b_ready.next = self.sel.val() & self.arready.val();
        self.grant_q.d.next = self.sel.val();
        self.wait_q.d.next = self.valid.val() & !self.arready.val();
        if self.rst.val() {
            self.wait_q.d.next = false;
        }
    }
}
