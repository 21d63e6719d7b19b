//! `ReadArb`: the AR channel of the memory port shared by the read masters of `state =
//! in_memory` (SPEC §9): the miss unit (ID 0), the command engine (ID 1) and, with the
//! directory in memory too (`two_level`), the directory's [`DirFetch`](super::dir_fetch::DirFetch)
//! (ID 2, the `c_*` ports: one each, none otherwise); R beats go back by `rid` (wired at the
//! top level). `arid` is the granted master's number (the top level passes its low bit alone
//! when there is no third master).
//!
//! AXI requires that once `arvalid` is high, it and the address stay until `arready`. So the
//! grant is held while the granted master's request waits (`wait_q`: `arvalid` was high and
//! `arready` low at the last edge); otherwise the command engine's request goes first (one
//! read per command, so the other reads are never starved), and the miss unit and the
//! directory take turns (`turn_q`: the directory's turn, set by a miss unit read, cleared by a
//! directory read; each goes whenever the other has nothing). Nothing depends on `arready`
//! but the masters' own `arready`.

use super::miss_unit::BEAT_BITS;
use super::{defaults, ADDR_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
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
    // Master 2 (the directory reads, single beats: `arlen` 0), one each or none.
    pub c_valid: Vec<Signal<In, Bit>>,
    pub c_ready: Vec<Signal<Out, Bit>>,
    pub c_addr: Vec<Signal<In, Bits<ADDR_BITS>>>,
    // The AR channel.
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub arlen: Signal<Out, Bits<BEAT_BITS>>,
    pub arid: Signal<Out, Bits<2>>,
    grant_q: DFF<Bits<2>>,
    wait_q: DFF<Bit>,
    turn_q: DFF<Bit>,
    sel: Signal<Local, Bits<2>>,
    valid: Signal<Local, Bit>,
    addr: Signal<Local, Bits<ADDR_BITS>>,
    len: Signal<Local, Bits<BEAT_BITS>>,
    /// Master 2's request (0 without it).
    cv: Signal<Local, Bit>,
    ca: Signal<Local, Bits<ADDR_BITS>>,
    _dir: usize,
}

impl ReadArb {
    /// The arbiter of the miss unit and the command engine, and the directory's reads when
    /// `dir` (the directory in memory too).
    pub fn new(dir: bool) -> Self {
        let n = usize::from(dir);
        block_new!(
            [
                clock, rst, a_valid, a_ready, a_addr, a_len, b_valid, b_ready, b_addr, b_len,
                arvalid, arready, araddr, arlen, arid, grant_q, wait_q, turn_q, sel, valid,
                addr, len, cv, ca,
            ]
            c_valid: defaults(n),
            c_ready: defaults(n),
            c_addr: defaults(n),
            _dir: n,
        )
    }
}

impl Logic for ReadArb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, grant_q, wait_q, turn_q);
        self.cv.next = false;
        self.ca.next = 0.into();
        for c in 0..self._dir {
            self.cv.next = self.c_valid[c].val();
            self.ca.next = self.c_addr[c].val();
        }
        self.sel.next = 0.into();
        if self.cv.val() & (self.turn_q.q.val() | !self.a_valid.val()) {
            self.sel.next = 2.into();
        }
        if self.b_valid.val() {
            self.sel.next = 1.into();
        }
        if self.wait_q.q.val() {
            self.sel.next = self.grant_q.q.val();
        }
        // (Decided in locals, each port assigned once.)
        self.valid.next = self.a_valid.val();
        self.addr.next = self.a_addr.val();
        self.len.next = self.a_len.val();
        if self.sel.val() == 1 {
            self.valid.next = self.b_valid.val();
            self.addr.next = self.b_addr.val();
            self.len.next = self.b_len.val();
        }
        if self.sel.val() == 2 {
            self.valid.next = self.cv.val();
            self.addr.next = self.ca.val();
            self.len.next = 0.into();
        }
        self.arvalid.next = self.valid.val();
        self.araddr.next = self.addr.val();
        self.arlen.next = self.len.val();
        self.arid.next = self.sel.val();
        self.a_ready.next = (self.sel.val() == 0) & self.arready.val();
        self.b_ready.next = (self.sel.val() == 1) & self.arready.val();
        for c in 0..self._dir {
            self.c_ready[c].next = (self.sel.val() == 2) & self.arready.val();
        }
        self.grant_q.d.next = self.sel.val();
        self.wait_q.d.next = self.valid.val() & !self.arready.val();
        if self.valid.val() & self.arready.val() {
            if self.sel.val() == 0 {
                self.turn_q.d.next = true;
            }
            if self.sel.val() == 2 {
                self.turn_q.d.next = false;
            }
        }
        if self.rst.val() {
            self.wait_q.d.next = false;
            self.turn_q.d.next = false;
        }
    }
}
