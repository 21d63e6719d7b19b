//! `LookupPipe`: one lookup pipeline, from a request stream to a response stream.
//!
//! ```text
//!            +----------+   s1 regs   +-------------+   s2 regs   +-----------------+    +---------+
//!  req  ---->| s0: RAM  |------------>| s1: latch   |------------>| s2: check, addr |--->| MemFifo |----> rsp
//!  (qpn,tag) | read     |  read_data  | the words   |             | status, address |    | depth 4 |
//!            +----------+             +-------------+             +-----------------+    +---------+
//! ```
//!
//! s0, s1 and s2 are the [`LookupFront`] (RAM reads at the request's edge `t`, the words
//! registered at `t + 1`, the checks). Here:
//!
//! | stage | edge | what happens |
//! |---|---|---|
//! | s2 | `t + 2` | `addr = base + offset`, whatever the status; the result is pushed into the response queue |
//! | out | from `t + 2` | the queue's head is offered on the response stream, its address zeroed unless its status is OK: `rsp_valid` is first sampled high at edge `t + 3` (latency 3, SPEC §7: flat <= 3) |
//!
//! The address is zeroed at the queue's output, not before the queue: the status, which
//! comes from the state RAM read, then drives three bits of the queue, not the 64 bits of
//! the address (the path from the RAM's output register to the queue is the design's
//! longest otherwise).
//!
//! Ready/valid contract: `req_ready` comes from the front end, from registers only, never
//! from `rsp_ready`. A request is granted only while fewer than [`RSP_FIFO_DEPTH`] lookups
//! are in flight (in s1, s2 or the queue), so the queue never overflows and with an
//! always-ready consumer the pipe takes one request per cycle (II = 1). Responses leave in
//! request order. The command engine's drain counts this pipe's lookups in flight
//! (`in_flight`, `req_fire`, `rsp_fire`).
//!
//! Counters (SPEC §6, per port): [`LookupCounters`], at the response handshake.

use super::codes::StatusCodes;
use super::lookup_counters::{LookupCounters, LookupCounts};
use super::lookup_front::LookupFront;
use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::ram::RAM_ADDR_BITS;
use super::{DirEntry, EngineParams, LookupRsp, StateEntry, ADDR_BITS, QPN_BITS, TAG_BITS};
use crate::spec::STATUS_BITS;
use rust_hdl::prelude::*;

/// Entries of the response queue.
pub const RSP_FIFO_DEPTH: usize = 4;

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
    // Write port of this pipe's copy of the on-chip directory (two_level on_chip).
    // (One each in two_level on_chip mode, none otherwise.)
    pub dir_we: Vec<Signal<In, Bit>>,
    pub dir_waddr: Vec<Signal<In, Bits<RAM_ADDR_BITS>>>,
    pub dir_wdata: Vec<Signal<In, DirEntry>>,
    // Drain accounting.
    pub req_fire: Signal<Out, Bit>,
    pub rsp_fire: Signal<Out, Bit>,
    pub in_flight: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    /// Counters (MEM_ERROR stays 0 here).
    pub counts: Signal<Out, LookupCounts>,
    front: LookupFront,
    fifo: MemFifo<LookupRsp>,
    counters: LookupCounters,
    _dirs: usize,
    s2_rsp: Signal<Local, LookupRsp>,
    fire: Signal<Local, Bit>,
    /// Lookups in s1, s2 and the back end.
    flight: DFF<Bits<FIFO_COUNT_BITS>>,
    /// The head's address, zeroed unless its status is OK.
    head_addr: Signal<Local, Bits<ADDR_BITS>>,
    status: StatusCodes,
    /// The page number is in_memory's business, `chk_ok` is not needed here (the address
    /// is zeroed at the queue's output), nor the queue's fill level (the lookups in flight
    /// are counted in `flight`); the name tells the lint so.
    unused_page: Signal<Local, Bit>,
}

impl LookupPipe {
    pub fn new(p: &EngineParams) -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            init_done: Default::default(),
            table_base: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_qpn: Default::default(),
            req_tag: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            rsp_qpn: Default::default(),
            rsp_tag: Default::default(),
            rsp_status: Default::default(),
            rsp_addr: Default::default(),
            ram_we: Default::default(),
            ram_waddr: Default::default(),
            ram_wdata: Default::default(),
            dir_we: (0..p.on_chip_dirs()).map(|_| Default::default()).collect(),
            dir_waddr: (0..p.on_chip_dirs()).map(|_| Default::default()).collect(),
            dir_wdata: (0..p.on_chip_dirs()).map(|_| Default::default()).collect(),
            req_fire: Default::default(),
            rsp_fire: Default::default(),
            in_flight: Default::default(),
            counts: Default::default(),
            front: LookupFront::new(p, RSP_FIFO_DEPTH),
            fifo: MemFifo::new(RSP_FIFO_DEPTH),
            counters: LookupCounters::new(p.leaf_bits.is_some(), false),
            _dirs: p.on_chip_dirs(),
            s2_rsp: Default::default(),
            fire: Default::default(),
            flight: Default::default(),
            head_addr: Default::default(),
            status: Default::default(),
            unused_page: Default::default(),
        }
    }
}

impl Logic for LookupPipe {
    #[hdl_gen]
    fn update(&mut self) {
        self.front.clock.next = self.clock.val();
        self.front.rst.next = self.rst.val();
        self.front.init_done.next = self.init_done.val();
        self.front.table_base.next = self.table_base.val();
        self.front.req_valid.next = self.req_valid.val();
        self.front.req_qpn.next = self.req_qpn.val();
        self.front.req_tag.next = self.req_tag.val();
        self.front.ram_we.next = self.ram_we.val();
        self.front.ram_waddr.next = self.ram_waddr.val();
        self.front.ram_wdata.next = self.ram_wdata.val();
        for d in 0..self._dirs {
            self.front.dir_we[d].next = self.dir_we[d].val();
            self.front.dir_waddr[d].next = self.dir_waddr[d].val();
            self.front.dir_wdata[d].next = self.dir_wdata[d].val();
        }
        self.front.flight.next = self.flight.q.val();
        self.req_ready.next = self.front.req_ready.val();
        self.req_fire.next = self.front.req_fire.val();
        self.in_flight.next = self.front.in_flight.val();

        // s2: the address (zeroed at the output unless OK), into the response queue.
        self.s2_rsp.next.qpn = self.front.chk_qpn.val();
        self.s2_rsp.next.tag = self.front.chk_tag.val();
        self.s2_rsp.next.status = self.front.chk_status.val();
        self.s2_rsp.next.addr = self.front.chk_base.val() + self.front.chk_offset.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.rst.next = self.rst.val();
        self.fifo.in_valid.next = self.front.chk_valid.val();
        self.fifo.data_in.next = self.s2_rsp.val();
        self.unused_page.next =
            self.front.chk_page.val().any() | self.front.chk_ok.val() | self.fifo.count.val().any();

        // Response stream from the queue's head.
        self.fire.next = self.fifo.out_valid.val() & self.rsp_ready.val();
        self.fifo.out_ready.next = self.rsp_ready.val();
        self.rsp_valid.next = self.fifo.out_valid.val();
        self.rsp_qpn.next = self.fifo.data_out.val().qpn;
        self.rsp_tag.next = self.fifo.data_out.val().tag;
        self.rsp_status.next = self.fifo.data_out.val().status;
        self.head_addr.next = 0.into();
        if self.fifo.data_out.val().status == self.status.ok.val() {
            self.head_addr.next = self.fifo.data_out.val().addr;
        }
        self.rsp_addr.next = self.head_addr.val();
        self.rsp_fire.next = self.fire.val();

        // Lookups in flight: up at a request handshake, down at a response handshake.
        self.flight.clock.next = self.clock.val();
        self.flight.d.next = self.flight.q.val();
        if self.front.req_fire.val() & !self.fire.val() {
            self.flight.d.next = self.flight.q.val() + 1;
        }
        if !self.front.req_fire.val() & self.fire.val() {
            self.flight.d.next = self.flight.q.val() - 1;
        }
        if self.rst.val() {
            self.flight.d.next = 0.into();
        }

        // Counters, at the response handshake.
        self.counters.clock.next = self.clock.val();
        self.counters.rst.next = self.rst.val();
        self.counters.fire.next = self.fire.val();
        self.counters.status.next = self.fifo.data_out.val().status;
        self.counts.next = self.counters.counts.val();
    }
}
