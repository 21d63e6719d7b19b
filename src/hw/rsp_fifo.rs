//! `RspFifo`: the response queue at the end of every lookup pipeline.
//!
//! Four entries of registers (not RAM), so the head is on `data_out` as soon as it is
//! written: a word pushed at edge `t` is offered (`out_valid`) before edge `t + 1`.
//! The producer never pushes into a full queue: the lookup pipeline grants requests on
//! credit (see [`LookupPipe`](super::lookup_pipe::LookupPipe)), and a simulation-only
//! assertion in the emitted Verilog would be the place to watch it; here the testbenches
//! check it through the response stream (no lost or doubled response).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `in_valid`, `data_in` | in | push (no ready: the producer holds credit) |
//! | `out_valid`, `out_ready`, `data_out` | out/in/out | AXI-style pop; `out_valid` and `data_out` come from registers |
//! | `count` | out | entries held, 0..=4 |

use super::LookupRsp;
use rust_hdl::prelude::*;

/// Entries of the response queue.
pub const RSP_FIFO_DEPTH: u64 = 4;

#[derive(LogicBlock, Default)]
pub struct RspFifo {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub data_in: Signal<In, LookupRsp>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub data_out: Signal<Out, LookupRsp>,
    pub count: Signal<Out, Bits<3>>,
    e0: DFF<LookupRsp>,
    e1: DFF<LookupRsp>,
    e2: DFF<LookupRsp>,
    e3: DFF<LookupRsp>,
    wr_ptr: DFF<Bits<2>>,
    rd_ptr: DFF<Bits<2>>,
    fill: DFF<Bits<3>>,
    pop: Signal<Local, Bit>,
    /// The head entry, chosen here and assigned to `data_out` once (a port written twice
    /// in one evaluation pulses in an event-driven simulator).
    head: Signal<Local, LookupRsp>,
}

impl Logic for RspFifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, e0, e1, e2, e3, wr_ptr, rd_ptr, fill);
        self.out_valid.next = self.fill.q.val().any();
        self.count.next = self.fill.q.val();
        self.pop.next = self.fill.q.val().any() & self.out_ready.val();
        // Head of the queue.
        self.head.next = self.e0.q.val();
        if self.rd_ptr.q.val() == 1 {
            self.head.next = self.e1.q.val();
        }
        if self.rd_ptr.q.val() == 2 {
            self.head.next = self.e2.q.val();
        }
        if self.rd_ptr.q.val() == 3 {
            self.head.next = self.e3.q.val();
        }
        self.data_out.next = self.head.val();
        // Push into the slot at the write pointer.
        if self.in_valid.val() {
            if self.wr_ptr.q.val() == 0 {
                self.e0.d.next = self.data_in.val();
            }
            if self.wr_ptr.q.val() == 1 {
                self.e1.d.next = self.data_in.val();
            }
            if self.wr_ptr.q.val() == 2 {
                self.e2.d.next = self.data_in.val();
            }
            if self.wr_ptr.q.val() == 3 {
                self.e3.d.next = self.data_in.val();
            }
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        if self.pop.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        if self.in_valid.val() & !self.pop.val() {
            self.fill.d.next = self.fill.q.val() + 1;
        }
        if !self.in_valid.val() & self.pop.val() {
            self.fill.d.next = self.fill.q.val() - 1;
        }
        // Synchronous reset of the control state only; the entries keep their data.
        if self.rst.val() {
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.fill.d.next = 0.into();
        }
    }
}
