//! `LookupFront`: the front end both lookup pipelines share
//! ([`LookupPipe`](super::lookup_pipe::LookupPipe) and
//! [`MemLookupPipe`](super::mem_pipe::MemLookupPipe)): credit, the RAM reads, the latch, the
//! checks.
//!
//! | stage | edge | what happens |
//! |---|---|---|
//! | s0 | `t` (request handshake) | the index addresses this port's copy of the state RAM (and in two_level on_chip its page's directory entry); qpn and tag are registered into s1 |
//! | s1 | `t + 1` | the RAM words are registered in the RAMs' output registers (no path runs from a block RAM's array into the checks) |
//! | s2 | before `t + 2` | range, state and generation checks, then page presence (on-chip directory), in SPEC order; the offset `index_in_page * entry_bytes`; the back end takes the result (`chk_*`) at edge `t + 2` |
//!
//! Credit: `req_ready` is computed from registers only (`init_done`, and `flight`, the
//! lookups in s1, s2 and the back end, which the back end counts in a register: up at a
//! request handshake, down at a response handshake) and the synchronous reset, never from
//! the response side: a request is granted only while fewer than `credit` lookups are in
//! flight, so the back end's queue never overflows; with a consumer that is always ready
//! the front end takes one request per cycle (II = 1). One comparison of a register runs
//! before every register a request handshake enables.
//!
//! Hazards: a command's write at the same edge as a request's RAM read is not seen by that
//! request (read-first): a lookup sees the state as of the edge of its request handshake.

use super::codes::{StateCodes, StatusCodes};
use super::mem_fifo::FIFO_COUNT_BITS;
use super::ram::{Ram, RAM_ADDR_BITS};
use super::{
    DirEntry, EngineParams, StateEntry, ADDR_BITS, GEN_BITS_MAX, PAGE_BITS, QPN_BITS, TAG_BITS,
};
use crate::spec::{dir_entry, STATUS_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LookupFront {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub init_done: Signal<In, Bit>,
    pub table_base: Signal<In, Bits<ADDR_BITS>>,
    // Request stream.
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_qpn: Signal<In, Bits<QPN_BITS>>,
    pub req_tag: Signal<In, Bits<TAG_BITS>>,
    /// Lookups in flight (s1, s2 and the back end), from the back end's counter register.
    pub flight: Signal<In, Bits<FIFO_COUNT_BITS>>,
    pub in_flight: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    pub req_fire: Signal<Out, Bit>,
    // Write port of this pipe's copy of the state RAM (driven by the command engine).
    pub ram_we: Signal<In, Bit>,
    pub ram_waddr: Signal<In, Bits<QPN_BITS>>,
    pub ram_wdata: Signal<In, StateEntry>,
    // Write port of this pipe's copy of the on-chip directory (one in two_level on_chip).
    pub dir_we: Vec<Signal<In, Bit>>,
    pub dir_waddr: Vec<Signal<In, Bits<RAM_ADDR_BITS>>>,
    pub dir_wdata: Vec<Signal<In, DirEntry>>,
    // s2: the checked lookup, taken by the back end at the next edge when `chk_valid`.
    pub chk_valid: Signal<Out, Bit>,
    pub chk_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub chk_tag: Signal<Out, Bits<TAG_BITS>>,
    pub chk_status: Signal<Out, Bits<STATUS_BITS>>,
    /// `chk_status` is OK.
    pub chk_ok: Signal<Out, Bit>,
    /// The context's offset in the table (flat) or in its page (two_level).
    pub chk_offset: Signal<Out, Bits<ADDR_BITS>>,
    /// TABLE_BASE (flat) or the page base from the on-chip directory.
    pub chk_base: Signal<Out, Bits<ADDR_BITS>>,
    /// The page number, `index >> leaf_bits` (two_level).
    pub chk_page: Signal<Out, Bits<ADDR_BITS>>,
    ram: Ram<StateEntry>,
    /// The on-chip directory copy: one in two_level on_chip mode, none otherwise.
    dirs: Vec<Ram<DirEntry>>,
    _dirs: usize,
    s1_valid: DFF<Bit>,
    s1_qpn: DFF<Bits<QPN_BITS>>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    s2_valid: DFF<Bit>,
    s2_qpn: DFF<Bits<QPN_BITS>>,
    s2_tag: DFF<Bits<TAG_BITS>>,
    /// The state RAM word and the directory entry, from the RAMs' output registers.
    s2_entry: Signal<Local, StateEntry>,
    dir_rd: Signal<Local, DirEntry>,
    s0_fire: Signal<Local, Bit>,
    occupancy: Signal<Local, Bits<FIFO_COUNT_BITS>>,
    s2_index: Signal<Local, Bits<QPN_BITS>>,
    s2_leaf_index: Signal<Local, Bits<QPN_BITS>>,
    s2_wide_index: Signal<Local, Bits<ADDR_BITS>>,
    s2_gen: Signal<Local, Bits<QPN_BITS>>,
    s2_entry_gen: Signal<Local, Bits<QPN_BITS>>,
    s2_status: Signal<Local, Bits<STATUS_BITS>>,
    status: StatusCodes,
    state: StateCodes,
    two_level: Constant<Bit>,
    index_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<5>>,
    leaf_mask: Constant<Bits<QPN_BITS>>,
    leaf_bits: Constant<Bits<5>>,
    max_qps: Constant<Bits<25>>,
    base_shift: Constant<Bits<ADDR_BITS>>,
    credit: Constant<Bits<FIFO_COUNT_BITS>>,
    // index * entry_bytes = sum over k of (index << (5 + k)) where bit k of entry_bytes / 32
    // is set: each mask is all ones or zero, so synthesis keeps only the terms that exist.
    mul_mask0: Constant<Bits<ADDR_BITS>>,
    mul_mask1: Constant<Bits<ADDR_BITS>>,
    mul_mask2: Constant<Bits<ADDR_BITS>>,
    mul_mask3: Constant<Bits<ADDR_BITS>>,
    mul_mask4: Constant<Bits<ADDR_BITS>>,
    mul_mask5: Constant<Bits<ADDR_BITS>>,
    mul_mask6: Constant<Bits<ADDR_BITS>>,
    mul_mask7: Constant<Bits<ADDR_BITS>>,
}

impl LookupFront {
    /// The front end of a pipe whose back end holds at most `credit` lookups.
    pub fn new(p: &EngineParams, credit: usize) -> Self {
        let mul = p.entry_bytes / 32;
        let mask = |k: u32| -> Constant<Bits<ADDR_BITS>> {
            Constant::new(if mul >> k & 1 == 1 { u64::MAX } else { 0 }.into())
        };
        let leaf = p.leaf_bits.unwrap_or(p.index_bits);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            init_done: Default::default(),
            table_base: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_qpn: Default::default(),
            req_tag: Default::default(),
            flight: Default::default(),
            in_flight: Default::default(),
            req_fire: Default::default(),
            ram_we: Default::default(),
            ram_waddr: Default::default(),
            ram_wdata: Default::default(),
            dir_we: (0..p.on_chip_dirs()).map(|_| Default::default()).collect(),
            dir_waddr: (0..p.on_chip_dirs()).map(|_| Default::default()).collect(),
            dir_wdata: (0..p.on_chip_dirs()).map(|_| Default::default()).collect(),
            chk_valid: Default::default(),
            chk_qpn: Default::default(),
            chk_tag: Default::default(),
            chk_status: Default::default(),
            chk_ok: Default::default(),
            chk_offset: Default::default(),
            chk_base: Default::default(),
            chk_page: Default::default(),
            ram: p.state_ram(),
            dirs: (0..p.on_chip_dirs()).map(|_| p.dir_ram()).collect(),
            _dirs: p.on_chip_dirs(),
            s1_valid: Default::default(),
            s1_qpn: Default::default(),
            s1_tag: Default::default(),
            s2_valid: Default::default(),
            s2_qpn: Default::default(),
            s2_tag: Default::default(),
            s2_entry: Default::default(),
            dir_rd: Default::default(),
            s0_fire: Default::default(),
            occupancy: Default::default(),
            s2_index: Default::default(),
            s2_leaf_index: Default::default(),
            s2_wide_index: Default::default(),
            s2_gen: Default::default(),
            s2_entry_gen: Default::default(),
            s2_status: Default::default(),
            status: Default::default(),
            state: Default::default(),
            two_level: Constant::new(p.leaf_bits.is_some()),
            index_mask: Constant::new(p.index_mask().into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            leaf_mask: Constant::new(((1u64 << leaf) - 1).into()),
            leaf_bits: Constant::new(u64::from(leaf).into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            base_shift: Constant::new(u64::from(dir_entry::BASE_SHIFT).into()),
            credit: Constant::new((credit as u64).into()),
            mul_mask0: mask(0),
            mul_mask1: mask(1),
            mul_mask2: mask(2),
            mul_mask3: mask(3),
            mul_mask4: mask(4),
            mul_mask5: mask(5),
            mul_mask6: mask(6),
            mul_mask7: mask(7),
        }
    }
}

impl Logic for LookupFront {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_qpn, s1_tag, s2_valid, s2_qpn, s2_tag);
        self.ram.clock.next = self.clock.val();
        self.ram.write_enable.next = self.ram_we.val();
        self.ram.write_address.next = self.ram_waddr.val();
        self.ram.write_data.next = self.ram_wdata.val();

        // s0: grant on credit (the lookups in flight, counted by the back end).
        self.occupancy.next = self.flight.val();
        self.req_ready.next =
            self.init_done.val() & !self.rst.val() & (self.occupancy.val() < self.credit.val());
        self.s0_fire.next = self.req_valid.val() & self.req_ready.val();
        self.req_fire.next = self.s0_fire.val();
        self.in_flight.next = self.occupancy.val();
        self.ram.read_address.next = self.req_qpn.val();
        // The directory entry of the index's page is read at the same edge; without an
        // on-chip directory every page is present.
        self.dir_rd.next.present = true;
        self.dir_rd.next.page = 0.into();
        for d in 0..self._dirs {
            self.dirs[d].clock.next = self.clock.val();
            self.dirs[d].read_address.next =
                (self.req_qpn.val() & self.index_mask.val()) >> self.leaf_bits.val();
            self.dirs[d].write_enable.next = self.dir_we[d].val();
            self.dirs[d].write_address.next = self.dir_waddr[d].val();
            self.dirs[d].write_data.next = self.dir_wdata[d].val();
            self.dir_rd.next = self.dirs[d].read_data.val();
        }
        self.s1_valid.d.next = self.s0_fire.val();
        if self.s0_fire.val() {
            self.s1_qpn.d.next = self.req_qpn.val();
            self.s1_tag.d.next = self.req_tag.val();
        }

        // s1: the words read at the request's edge are registered (in the RAMs).
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_qpn.d.next = self.s1_qpn.q.val();
        self.s2_tag.d.next = self.s1_tag.q.val();
        self.s2_entry.next = self.ram.read_data.val();

        // s2: checks in SPEC order (range, state, generation, page), and the offset.
        self.s2_index.next = self.s2_qpn.q.val() & self.index_mask.val();
        self.s2_leaf_index.next = self.s2_index.val() & self.leaf_mask.val();
        self.s2_wide_index.next = bit_cast::<ADDR_BITS, QPN_BITS>(self.s2_leaf_index.val());
        self.s2_gen.next = self.s2_qpn.q.val() >> self.index_bits.val();
        self.s2_entry_gen.next = bit_cast::<QPN_BITS, GEN_BITS_MAX>(self.s2_entry.val().gen);
        self.chk_offset.next = ((self.s2_wide_index.val() << 5) & self.mul_mask0.val())
            + ((self.s2_wide_index.val() << 6) & self.mul_mask1.val())
            + ((self.s2_wide_index.val() << 7) & self.mul_mask2.val())
            + ((self.s2_wide_index.val() << 8) & self.mul_mask3.val())
            + ((self.s2_wide_index.val() << 9) & self.mul_mask4.val())
            + ((self.s2_wide_index.val() << 10) & self.mul_mask5.val())
            + ((self.s2_wide_index.val() << 11) & self.mul_mask6.val())
            + ((self.s2_wide_index.val() << 12) & self.mul_mask7.val());
        self.s2_status.next = self.status.ok.val();
        if !self.dir_rd.val().present {
            self.s2_status.next = self.status.page_absent.val();
        }
        if self.s2_entry_gen.val() != self.s2_gen.val() {
            self.s2_status.next = self.status.stale.val();
        }
        if self.s2_entry.val().state != self.state.valid.val() {
            self.s2_status.next = self.status.not_allocated.val();
        }
        if bit_cast::<25, QPN_BITS>(self.s2_index.val()) >= self.max_qps.val() {
            self.s2_status.next = self.status.out_of_range.val();
        }
        self.chk_status.next = self.s2_status.val();
        self.chk_ok.next = self.s2_status.val() == self.status.ok.val();
        // One assignment on each path (an output written twice in one evaluation pulses in an
        // event-driven simulator).
        if self.two_level.val() {
            self.chk_base.next =
                bit_cast::<ADDR_BITS, PAGE_BITS>(self.dir_rd.val().page) << self.base_shift.val();
        } else {
            self.chk_base.next = self.table_base.val();
        }
        self.chk_page.next =
            bit_cast::<ADDR_BITS, QPN_BITS>(self.s2_index.val()) >> self.leaf_bits.val();
        self.chk_valid.next = self.s2_valid.q.val();
        self.chk_qpn.next = self.s2_qpn.q.val();
        self.chk_tag.next = self.s2_tag.q.val();

        if self.rst.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
        }
    }
}
