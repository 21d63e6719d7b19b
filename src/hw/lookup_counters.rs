//! `LookupCounters`: the per-port lookup counters of SPEC §6 (LOOKUPS and one per status),
//! shared by both lookup pipelines. Each counts the response handshake (`fire`) with the
//! status the response carries, one edge after it (both registered first; a control read
//! takes the port counters one edge later too, so it sees every response handshaken before
//! its AR handshake, SPEC §6); a status the configuration cannot produce (PAGE_ABSENT in
//! flat, MEM_ERROR but in two_level in_memory) has a counter that stays 0.

use super::codes::StatusCodes;
use crate::spec::STATUS_BITS;
use rust_hdl::prelude::*;

/// The lookup counters of one port (SPEC §6), as [`LookupCounters`] offers them to its
/// pipe and the pipe to [`AxilRegs`](super::axil_regs::AxilRegs): one port each.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct LookupCounts {
    pub lookups: Bits<32>,
    pub ok: Bits<32>,
    pub out_of_range: Bits<32>,
    pub not_allocated: Bits<32>,
    pub stale: Bits<32>,
    pub page_absent: Bits<32>,
    pub mem_error: Bits<32>,
}

#[derive(LogicBlock)]
pub struct LookupCounters {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// A response leaves (its handshake).
    pub fire: Signal<In, Bit>,
    pub status: Signal<In, Bits<STATUS_BITS>>,
    pub counts: Signal<Out, LookupCounts>,
    cnt: DFF<LookupCounts>,
    /// The handshake and its status, registered: the counters count one edge after the
    /// response handshake (the handshake would otherwise drive the enables of every counter
    /// bit, the design's longest path). Control reads take the ports' counters one edge
    /// later too ([`AxilRegs`](super::axil_regs::AxilRegs)), so a read still sees every
    /// response handshaken before its AR handshake.
    fire_q: DFF<Bit>,
    status_q: DFF<Bits<STATUS_BITS>>,
    zero: Constant<LookupCounts>,
    codes: StatusCodes,
    has_page_absent: Constant<Bit>,
    has_mem_error: Constant<Bit>,
}

impl LookupCounters {
    /// Counters of a pipe that can answer PAGE_ABSENT (`page_absent`) and MEM_ERROR
    /// (`mem_error`).
    pub fn new(page_absent: bool, mem_error: bool) -> Self {
        block_new!(
            [
                clock, rst, fire, status, counts, cnt, fire_q, status_q, codes,
            ]
            zero: Constant::new(LookupCounts::default()),
            has_page_absent: Constant::new(page_absent),
            has_mem_error: Constant::new(mem_error),
        )
    }
}

impl Logic for LookupCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt, fire_q, status_q);
        self.fire_q.d.next = self.fire.val();
        self.status_q.d.next = self.status.val();
        if self.fire_q.q.val() {
            self.cnt.d.next.lookups = self.cnt.q.val().lookups + 1;
            if self.status_q.q.val() == self.codes.ok.val() {
                self.cnt.d.next.ok = self.cnt.q.val().ok + 1;
            }
            if self.status_q.q.val() == self.codes.out_of_range.val() {
                self.cnt.d.next.out_of_range = self.cnt.q.val().out_of_range + 1;
            }
            if self.status_q.q.val() == self.codes.not_allocated.val() {
                self.cnt.d.next.not_allocated = self.cnt.q.val().not_allocated + 1;
            }
            if self.status_q.q.val() == self.codes.stale.val() {
                self.cnt.d.next.stale = self.cnt.q.val().stale + 1;
            }
            if self.has_page_absent.val() & (self.status_q.q.val() == self.codes.page_absent.val())
            {
                self.cnt.d.next.page_absent = self.cnt.q.val().page_absent + 1;
            }
            if self.has_mem_error.val() & (self.status_q.q.val() == self.codes.mem_error.val()) {
                self.cnt.d.next.mem_error = self.cnt.q.val().mem_error + 1;
            }
        }
        self.counts.next = self.cnt.q.val();
        if self.rst.val() {
            self.cnt.d.next = self.zero.val();
            self.fire_q.d.next = false;
        }
    }
}
