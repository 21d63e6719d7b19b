//! `Quarantine`: the quarantine queue of SPEC §6, shared by both command engines
//! ([`CmdEngine`](super::cmd_engine::CmdEngine), [`MemCmdEngine`](super::mem_cmd::MemCmdEngine)).
//! A FREE that completes pushes its index with the command's time; before each command the
//! engine gives the oldest entry back to the pool once `quarantine_cycles` have passed since
//! its push (`due`), and a push into a full queue first gives back the oldest (an overflow).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `now` | in | the time of the command in progress (the edge count at its CMD write handshake): what a push records and what `due` measures from |
//! | `push`, `push_index` | in | at this edge, the index enters the queue at its tail (never into a full queue) |
//! | `pop` | in | at this edge, the head leaves (never from an empty queue) |
//! | `head_index` | out | the oldest entry's index |
//! | `due` | out | the quarantine is on, the queue is not empty and `now` is at least `quarantine_cycles` after the oldest entry's push |
//! | `full`, `count` | out | from registers: the queue holds `quarantine_depth` entries; how many it holds (QUARANTINED) |
//!
//! The entries live in a [`Ram`] whose head is read continuously through its output register:
//! `head_index` and `due` show a push or pop of edge `t` from edge `t + head_latency()` on
//! (both engines consult them several cycles after any push or pop). `count` and `full` are
//! exact after every edge. The time is [`TIME_BITS`] wide and compared by a subtraction, so
//! an entry may wait at most 2^48 cycles to be compared correctly.

use super::ram::{Ram, RAM_ADDR_BITS};
use super::{EngineParams, QPN_BITS, TIME_BITS};
use rust_hdl::prelude::*;

/// Bits of a quarantine entry: the time it was pushed, and its index.
const ENTRY_BITS: usize = TIME_BITS + QPN_BITS;
/// Pointer bits (`quarantine_depth <= 4096`).
const PTR_BITS: usize = 12;
// The entry packs the time above the index with a literal shift (hdl_gen takes no constant).
const _: () = assert!(QPN_BITS == 24);
/// Count bits (0 ..= 4096).
pub const COUNT_BITS: usize = PTR_BITS + 1;

#[derive(LogicBlock)]
pub struct Quarantine {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now: Signal<In, Bits<TIME_BITS>>,
    pub push: Signal<In, Bit>,
    pub push_index: Signal<In, Bits<QPN_BITS>>,
    pub pop: Signal<In, Bit>,
    pub head_index: Signal<Out, Bits<QPN_BITS>>,
    pub due: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    pub count: Signal<Out, Bits<COUNT_BITS>>,
    ram: Ram<Bits<ENTRY_BITS>>,
    wr: DFF<Bits<PTR_BITS>>,
    rd: DFF<Bits<PTR_BITS>>,
    cnt: DFF<Bits<COUNT_BITS>>,
    full_q: DFF<Bit>,
    head: Signal<Local, Bits<ENTRY_BITS>>,
    wr_next: Signal<Local, Bits<PTR_BITS>>,
    rd_next: Signal<Local, Bits<PTR_BITS>>,
    cnt_next: Signal<Local, Bits<COUNT_BITS>>,
    on: Constant<Bit>,
    /// `quarantine_cycles - 1` (0 when the quarantine is off): `elapsed > cycles_m1` is
    /// `elapsed >= quarantine_cycles` without a comparison that is constant when it is 0.
    cycles_m1: Constant<Bits<TIME_BITS>>,
    depth: Constant<Bits<COUNT_BITS>>,
    last: Constant<Bits<PTR_BITS>>,
}

impl Quarantine {
    pub fn new(p: &EngineParams) -> Self {
        assert!(
            (1..=1 << PTR_BITS).contains(&p.quarantine_depth),
            "quarantine_depth is validated to 1..=4096"
        );
        block_new!(
            [clock, rst, now, push, push_index, pop, head_index, due, full, count, wr, rd, cnt,
             full_q, head, wr_next, rd_next, cnt_next]
            ram: Ram::new(p.quarantine_depth as usize, p.fpga),
            on: Constant::new(p.quarantine_cycles > 0),
            cycles_m1: Constant::new(p.quarantine_cycles.saturating_sub(1).into()),
            depth: Constant::new(u64::from(p.quarantine_depth).into()),
            last: Constant::new(u64::from(p.quarantine_depth - 1).into()),
        )
    }

    /// Edges from a push or pop until `head_index` and `due` show it: its RAM's read
    /// latency.
    pub fn head_latency(&self) -> usize {
        self.ram.latency()
    }
}

impl Logic for Quarantine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, cnt, full_q);
        self.ram.clock.next = self.clock.val();
        self.ram.read_address.next = bit_cast::<RAM_ADDR_BITS, PTR_BITS>(self.rd.q.val());
        self.ram.write_address.next = bit_cast::<RAM_ADDR_BITS, PTR_BITS>(self.wr.q.val());
        self.ram.write_enable.next = self.push.val();
        self.ram.write_data.next = (bit_cast::<ENTRY_BITS, TIME_BITS>(self.now.val()) << 24)
            | bit_cast::<ENTRY_BITS, QPN_BITS>(self.push_index.val());
        self.head.next = self.ram.read_data.val();
        self.head_index.next = self.head.val().get_bits::<QPN_BITS>(0);
        self.due.next = self.on.val()
            & self.cnt.q.val().any()
            & ((self.now.val() - self.head.val().get_bits::<TIME_BITS>(24)) > self.cycles_m1.val());
        self.full.next = self.full_q.q.val();
        self.count.next = self.cnt.q.val();

        self.wr_next.next = self.wr.q.val() + 1;
        if self.wr.q.val() == self.last.val() {
            self.wr_next.next = 0.into();
        }
        self.rd_next.next = self.rd.q.val() + 1;
        if self.rd.q.val() == self.last.val() {
            self.rd_next.next = 0.into();
        }
        self.cnt_next.next = self.cnt.q.val();
        if self.push.val() {
            self.wr.d.next = self.wr_next.val();
            self.cnt_next.next = self.cnt.q.val() + 1;
        }
        if self.pop.val() {
            self.rd.d.next = self.rd_next.val();
            self.cnt_next.next = self.cnt.q.val() - 1;
        }
        if self.push.val() & self.pop.val() {
            self.cnt_next.next = self.cnt.q.val();
        }
        self.cnt.d.next = self.cnt_next.val();
        self.full_q.d.next = self.cnt_next.val() == self.depth.val();
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.full_q.d.next = false;
        }
    }
}
