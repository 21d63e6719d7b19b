//! `LookupCounters`: the per-port lookup counters of SPEC §6 (LOOKUPS and one per status),
//! shared by both lookup pipelines. Each counts at the response handshake (`fire`) with the
//! status the response carries; a status the configuration cannot produce (PAGE_ABSENT in
//! flat, MEM_ERROR but in two_level in_memory) has a counter that stays 0.

use super::codes::StatusCodes;
use crate::spec::STATUS_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LookupCounters {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// A response leaves (its handshake).
    pub fire: Signal<In, Bit>,
    pub status: Signal<In, Bits<STATUS_BITS>>,
    pub cnt_lookups: Signal<Out, Bits<32>>,
    pub cnt_ok: Signal<Out, Bits<32>>,
    pub cnt_out_of_range: Signal<Out, Bits<32>>,
    pub cnt_not_allocated: Signal<Out, Bits<32>>,
    pub cnt_stale: Signal<Out, Bits<32>>,
    pub cnt_page_absent: Signal<Out, Bits<32>>,
    pub cnt_mem_error: Signal<Out, Bits<32>>,
    lookups: DFF<Bits<32>>,
    ok: DFF<Bits<32>>,
    out_of_range: DFF<Bits<32>>,
    not_allocated: DFF<Bits<32>>,
    stale: DFF<Bits<32>>,
    page_absent: DFF<Bits<32>>,
    mem_error: DFF<Bits<32>>,
    codes: StatusCodes,
    has_page_absent: Constant<Bit>,
    has_mem_error: Constant<Bit>,
}

impl LookupCounters {
    /// Counters of a pipe that can answer PAGE_ABSENT (`page_absent`) and MEM_ERROR
    /// (`mem_error`).
    pub fn new(page_absent: bool, mem_error: bool) -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            fire: Default::default(),
            status: Default::default(),
            cnt_lookups: Default::default(),
            cnt_ok: Default::default(),
            cnt_out_of_range: Default::default(),
            cnt_not_allocated: Default::default(),
            cnt_stale: Default::default(),
            cnt_page_absent: Default::default(),
            cnt_mem_error: Default::default(),
            lookups: Default::default(),
            ok: Default::default(),
            out_of_range: Default::default(),
            not_allocated: Default::default(),
            stale: Default::default(),
            page_absent: Default::default(),
            mem_error: Default::default(),
            codes: Default::default(),
            has_page_absent: Constant::new(page_absent),
            has_mem_error: Constant::new(mem_error),
        }
    }
}

impl Logic for LookupCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lookups,
            ok,
            out_of_range,
            not_allocated,
            stale,
            page_absent,
            mem_error
        );
        if self.fire.val() {
            self.lookups.d.next = self.lookups.q.val() + 1;
            if self.status.val() == self.codes.ok.val() {
                self.ok.d.next = self.ok.q.val() + 1;
            }
            if self.status.val() == self.codes.out_of_range.val() {
                self.out_of_range.d.next = self.out_of_range.q.val() + 1;
            }
            if self.status.val() == self.codes.not_allocated.val() {
                self.not_allocated.d.next = self.not_allocated.q.val() + 1;
            }
            if self.status.val() == self.codes.stale.val() {
                self.stale.d.next = self.stale.q.val() + 1;
            }
            if self.has_page_absent.val() & (self.status.val() == self.codes.page_absent.val()) {
                self.page_absent.d.next = self.page_absent.q.val() + 1;
            }
            if self.has_mem_error.val() & (self.status.val() == self.codes.mem_error.val()) {
                self.mem_error.d.next = self.mem_error.q.val() + 1;
            }
        }
        self.cnt_lookups.next = self.lookups.q.val();
        self.cnt_ok.next = self.ok.q.val();
        self.cnt_out_of_range.next = self.out_of_range.q.val();
        self.cnt_not_allocated.next = self.not_allocated.q.val();
        self.cnt_stale.next = self.stale.q.val();
        self.cnt_page_absent.next = self.page_absent.q.val();
        self.cnt_mem_error.next = self.mem_error.q.val();

        if self.rst.val() {
            self.lookups.d.next = 0.into();
            self.ok.d.next = 0.into();
            self.out_of_range.d.next = 0.into();
            self.not_allocated.d.next = 0.into();
            self.stale.d.next = 0.into();
            self.page_absent.d.next = 0.into();
            self.mem_error.d.next = 0.into();
        }
    }
}
