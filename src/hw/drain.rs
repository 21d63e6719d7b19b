//! `Drain`: the FREE drain of SPEC §6, beside either command engine at the top level
//! ([`CmdEngine`](super::cmd_engine::CmdEngine), [`MemCmdEngine`](super::mem_cmd::MemCmdEngine):
//! their `drain_snap` and `drained`):
//! per lookup port, how many of the lookups in flight at a chosen edge have not yet had their
//! response handshake.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `req_fire[p]`, `rsp_fire[p]`, `in_flight[p]` | in | port `p`'s request and response handshakes in this cycle, and its lookups in flight before them (accepted, response not yet taken) |
//! | `snap` | in | at this edge, count the lookups in flight after the edge before (the inputs are registered first: see below) |
//! | `drained` | out | every port's count is zero: each lookup counted by the last `snap` has had its response handshake (high after reset) |
//!
//! Timing: the inputs are registered before they are used (no path from a lookup pipe's
//! handshakes into the counters), so the block runs one edge behind the pipes. With `snap`
//! high in the cycle that ends at edge `n`, the counters take the lookups in flight after edge
//! `n - 1`; each later response handshake, at edge `m - 1`, counts down at edge `m`.
//! Responses leave in request order per port, so `drained` rises at the edge after the one
//! that took the last counted lookup's response, and every lookup accepted after edge `n - 1`
//! is left out. A `snap` replaces a count still running.

use super::defaults;
use super::mem_fifo::FIFO_COUNT_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Drain {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub req_fire: Vec<Signal<In, Bit>>,
    pub rsp_fire: Vec<Signal<In, Bit>>,
    pub in_flight: Vec<Signal<In, Bits<FIFO_COUNT_BITS>>>,
    pub snap: Signal<In, Bit>,
    pub drained: Signal<Out, Bit>,
    count: Vec<DFF<Bits<FIFO_COUNT_BITS>>>,
    /// Per port: the count is zero, registered with it (the drain's end is a flag, not a
    /// comparison of the counters).
    zero: Vec<DFF<Bit>>,
    req_fire_r: Vec<DFF<Bit>>,
    rsp_fire_r: Vec<DFF<Bit>>,
    in_flight_r: Vec<DFF<Bits<FIFO_COUNT_BITS>>>,
    /// `drained`, gathered here and assigned to the port once.
    all_zero: Signal<Local, Bit>,
    _ports: usize,
}

impl Drain {
    pub fn new(ports: usize) -> Self {
        block_new!(
            [clock, rst, snap, drained, all_zero]
            req_fire: defaults(ports),
            rsp_fire: defaults(ports),
            in_flight: defaults(ports),
            count: defaults(ports),
            zero: defaults(ports),
            req_fire_r: defaults(ports),
            rsp_fire_r: defaults(ports),
            in_flight_r: defaults(ports),
            _ports: ports,
        )
    }
}

impl Logic for Drain {
    #[hdl_gen]
    fn update(&mut self) {
        self.all_zero.next = true;
        for p in 0..self._ports {
            self.count[p].clock.next = self.clock.val();
            self.zero[p].clock.next = self.clock.val();
            self.req_fire_r[p].clock.next = self.clock.val();
            self.rsp_fire_r[p].clock.next = self.clock.val();
            self.in_flight_r[p].clock.next = self.clock.val();
            self.req_fire_r[p].d.next = self.req_fire[p].val();
            self.rsp_fire_r[p].d.next = self.rsp_fire[p].val();
            self.in_flight_r[p].d.next = self.in_flight[p].val();
            self.count[p].d.next = self.count[p].q.val();
            self.zero[p].d.next = self.zero[p].q.val();
            if self.snap.val() {
                // The lookups in flight after the edge before, from the registered inputs.
                self.count[p].d.next = self.in_flight_r[p].q.val();
                self.zero[p].d.next = !self.in_flight_r[p].q.val().any();
                if self.req_fire_r[p].q.val() & !self.rsp_fire_r[p].q.val() {
                    self.count[p].d.next = self.in_flight_r[p].q.val() + 1;
                    self.zero[p].d.next = false;
                }
                if !self.req_fire_r[p].q.val() & self.rsp_fire_r[p].q.val() {
                    self.count[p].d.next = self.in_flight_r[p].q.val() - 1;
                    self.zero[p].d.next = self.in_flight_r[p].q.val() == 1;
                }
            } else if self.count[p].q.val().any() & self.rsp_fire_r[p].q.val() {
                // Responses leave in order: the first ones are the lookups counted.
                self.count[p].d.next = self.count[p].q.val() - 1;
                self.zero[p].d.next = self.count[p].q.val() == 1;
            }
            if !self.zero[p].q.val() {
                self.all_zero.next = false;
            }
            if self.rst.val() {
                self.count[p].d.next = 0.into();
                self.zero[p].d.next = true;
            }
        }
        self.drained.next = self.all_zero.val();
    }
}
