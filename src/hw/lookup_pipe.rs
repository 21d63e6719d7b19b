//! `LookupPipe`: one lookup pipeline, from a request stream to a response stream.
//!
//! ```text
//!            +----------+   s1 regs   +-------------+   s2 regs   +-----------------+    +---------+
//!  req  ---->| s0: RAM  |------------>| s1: latch   |------------>| s2: check, addr |--->| RspFifo |----> rsp
//!  (qpn,tag) | read     |  read_data  | the words   |             | status, address |    | 4 regs  |
//!            +----------+             +-------------+             +-----------------+    +---------+
//! ```
//!
//! | stage | edge | what happens |
//! |---|---|---|
//! | s0 | `t` (request handshake) | the index addresses this port's copy of the state RAM (and in two_level on_chip its page's directory entry); qpn and tag are registered into s1 |
//! | s1 | `t + 1` | the RAM words are registered (no path runs from a block RAM's read port, which has no output register, into the checks) |
//! | s2 | `t + 2` | range, state and generation checks (then page presence); `addr = base + index * entry_bytes`; the result is pushed into the response queue |
//! | out | from `t + 2` | the queue's head is offered on the response stream: `rsp_valid` is first sampled high at edge `t + 3` (latency 3, SPEC §7: flat <= 3) |
//!
//! Ready/valid contract: `req_ready` is computed from registers only (`init_done`, the
//! lookups in flight) and the synchronous reset, never from `rsp_ready`. A request is granted
//! only while fewer than [`RSP_FIFO_DEPTH`] lookups are in flight (in s1, s2 or the queue),
//! so the queue never overflows and with an always-ready consumer the pipe takes one request
//! per cycle (II = 1). Responses leave in request order.
//!
//! Hazards: the only shared state is the state RAM. A command's write at the same edge as a
//! request's RAM read is not seen by that request (read-first): a lookup sees the state as of
//! the edge of its request handshake, which is what SPEC §6 promises. The command engine's
//! drain counts this pipe's lookups in flight (`in_flight`, `req_fire`, `rsp_fire`).
//!
//! Counters (SPEC §6, per port): LOOKUPS and one per status, counted at the response handshake.

use super::rsp_fifo::{RspFifo, RSP_FIFO_DEPTH};
use super::state_ram::StateRam;
use super::word_ram::{WordRam, RAM_ADDR_BITS};
use super::{
    EngineParams, LookupRsp, StateEntry, ADDR_BITS, DIR_BITS, GEN_BITS_MAX, QPN_BITS, TAG_BITS,
};
use rust_hdl::prelude::*;

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
    pub rsp_status: Signal<Out, Bits<3>>,
    pub rsp_addr: Signal<Out, Bits<ADDR_BITS>>,
    // Write port of this pipe's copy of the state RAM (driven by the command engine).
    pub ram_we: Signal<In, Bit>,
    pub ram_waddr: Signal<In, Bits<QPN_BITS>>,
    pub ram_wdata: Signal<In, StateEntry>,
    // Write port of this pipe's copy of the on-chip directory (two_level on_chip).
    // (One each in two_level on_chip mode, none otherwise.)
    pub dir_we: Vec<Signal<In, Bit>>,
    pub dir_waddr: Vec<Signal<In, Bits<RAM_ADDR_BITS>>>,
    pub dir_wdata: Vec<Signal<In, Bits<DIR_BITS>>>,
    // Drain accounting.
    pub req_fire: Signal<Out, Bit>,
    pub rsp_fire: Signal<Out, Bit>,
    pub in_flight: Signal<Out, Bits<3>>,
    // Counters.
    pub cnt_lookups: Signal<Out, Bits<32>>,
    pub cnt_ok: Signal<Out, Bits<32>>,
    pub cnt_out_of_range: Signal<Out, Bits<32>>,
    pub cnt_not_allocated: Signal<Out, Bits<32>>,
    pub cnt_stale: Signal<Out, Bits<32>>,
    pub cnt_page_absent: Signal<Out, Bits<32>>,
    ram: StateRam,
    /// The on-chip directory copy: one in two_level on_chip mode, none otherwise.
    dirs: Vec<WordRam<DIR_BITS>>,
    page_absent: DFF<Bits<32>>,
    dir_rd: Signal<Local, Bits<DIR_BITS>>,
    s2_present: Signal<Local, Bit>,
    s2_base: Signal<Local, Bits<ADDR_BITS>>,
    s2_leaf_index: Signal<Local, Bits<QPN_BITS>>,
    leaf_mask: Constant<Bits<QPN_BITS>>,
    /// leaf_bits (two_level only).
    leaf_bits: Vec<Constant<Bits<5>>>,
    two_level: Constant<Bit>,
    _dirs: usize,
    fifo: RspFifo,
    s1_valid: DFF<Bit>,
    s1_qpn: DFF<Bits<QPN_BITS>>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    s2_valid: DFF<Bit>,
    s2_qpn: DFF<Bits<QPN_BITS>>,
    s2_tag: DFF<Bits<TAG_BITS>>,
    /// The state RAM word and the directory entry, registered (no path from a RAM's read
    /// port into the checks).
    s2_entry: DFF<StateEntry>,
    s2_dir: DFF<Bits<DIR_BITS>>,
    lookups: DFF<Bits<32>>,
    ok: DFF<Bits<32>>,
    out_of_range: DFF<Bits<32>>,
    not_allocated: DFF<Bits<32>>,
    stale: DFF<Bits<32>>,
    s0_fire: Signal<Local, Bit>,
    occupancy: Signal<Local, Bits<3>>,
    s2_index: Signal<Local, Bits<QPN_BITS>>,
    s2_wide_index: Signal<Local, Bits<ADDR_BITS>>,
    s2_gen: Signal<Local, Bits<QPN_BITS>>,
    s2_entry_gen: Signal<Local, Bits<QPN_BITS>>,
    s2_offset: Signal<Local, Bits<ADDR_BITS>>,
    s2_status: Signal<Local, Bits<3>>,
    s2_addr: Signal<Local, Bits<ADDR_BITS>>,
    s2_rsp: Signal<Local, LookupRsp>,
    status_out: Signal<Local, Bits<3>>,
    index_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<5>>,
    max_qps: Constant<Bits<25>>,
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
    fifo_credit: Constant<Bits<3>>,
    state_valid: Constant<Bits<2>>,
}

impl LookupPipe {
    pub fn new(p: &EngineParams) -> Self {
        let mul = p.entry_bytes / 32;
        let mask = |k: u32| -> Constant<Bits<ADDR_BITS>> {
            Constant::new(if mul >> k & 1 == 1 { u64::MAX } else { 0 }.into())
        };
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
            cnt_lookups: Default::default(),
            cnt_ok: Default::default(),
            cnt_out_of_range: Default::default(),
            cnt_not_allocated: Default::default(),
            cnt_stale: Default::default(),
            cnt_page_absent: Default::default(),
            ram: p.state_ram(),
            dirs: (0..p.on_chip_dirs()).map(|_| p.dir_ram()).collect(),
            page_absent: Default::default(),
            dir_rd: Default::default(),
            s2_present: Default::default(),
            s2_base: Default::default(),
            s2_leaf_index: Default::default(),
            leaf_mask: Constant::new(
                p.leaf_bits
                    .map_or(p.index_mask(), |l| (1u64 << l) - 1)
                    .into(),
            ),
            leaf_bits: p
                .leaf_bits
                .iter()
                .map(|&l| Constant::new(u64::from(l).into()))
                .collect(),
            two_level: Constant::new(p.leaf_bits.is_some()),
            _dirs: p.on_chip_dirs(),
            fifo: Default::default(),
            s1_valid: Default::default(),
            s1_qpn: Default::default(),
            s1_tag: Default::default(),
            s2_valid: Default::default(),
            s2_qpn: Default::default(),
            s2_tag: Default::default(),
            s2_entry: Default::default(),
            s2_dir: Default::default(),
            lookups: Default::default(),
            ok: Default::default(),
            out_of_range: Default::default(),
            not_allocated: Default::default(),
            stale: Default::default(),
            s0_fire: Default::default(),
            occupancy: Default::default(),
            s2_index: Default::default(),
            s2_wide_index: Default::default(),
            s2_gen: Default::default(),
            s2_entry_gen: Default::default(),
            s2_offset: Default::default(),
            s2_status: Default::default(),
            s2_addr: Default::default(),
            s2_rsp: Default::default(),
            status_out: Default::default(),
            index_mask: Constant::new(p.index_mask().into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            mul_mask0: mask(0),
            mul_mask1: mask(1),
            mul_mask2: mask(2),
            mul_mask3: mask(3),
            mul_mask4: mask(4),
            mul_mask5: mask(5),
            mul_mask6: mask(6),
            mul_mask7: mask(7),
            fifo_credit: Constant::new(RSP_FIFO_DEPTH.into()),
            state_valid: Constant::new(StateEntry::VALID.into()),
        }
    }
}

impl Logic for LookupPipe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_qpn,
            s1_tag,
            s2_valid,
            s2_qpn,
            s2_tag,
            s2_entry,
            s2_dir,
            lookups,
            ok,
            out_of_range,
            not_allocated,
            stale,
            page_absent
        );
        self.ram.clock.next = self.clock.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.rst.next = self.rst.val();
        self.ram.write_enable.next = self.ram_we.val();
        self.ram.write_address.next = self.ram_waddr.val();
        self.ram.write_data.next = self.ram_wdata.val();

        // s0: grant on credit. Lookups in flight = s1 + queue; the edge may add one.
        self.occupancy.next = self.fifo.count.val();
        if self.s1_valid.q.val() ^ self.s2_valid.q.val() {
            self.occupancy.next = self.fifo.count.val() + 1;
        }
        if self.s1_valid.q.val() & self.s2_valid.q.val() {
            self.occupancy.next = self.fifo.count.val() + 2;
        }
        self.req_ready.next = self.init_done.val()
            & !self.rst.val()
            & (self.occupancy.val() < self.fifo_credit.val());
        self.s0_fire.next = self.req_valid.val() & self.req_ready.val();
        self.req_fire.next = self.s0_fire.val();
        self.in_flight.next = self.occupancy.val();
        self.ram.read_address.next = self.req_qpn.val();
        // The directory entry of the index's page is read at the same edge.
        self.dir_rd.next = 1.into();
        for d in 0..self._dirs {
            self.dirs[d].clock.next = self.clock.val();
            self.dirs[d].read_address.next =
                (self.req_qpn.val() & self.index_mask.val()) >> self.leaf_bits[d].val();
            self.dirs[d].write_enable.next = self.dir_we[d].val();
            self.dirs[d].write_address.next = self.dir_waddr[d].val();
            self.dirs[d].write_data.next = self.dir_wdata[d].val();
            self.dir_rd.next = self.dirs[d].read_data.val();
        }
        // Flat mode: every "page" is present and its base is TABLE_BASE.
        // s1: the words read at the request's edge are registered.
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_qpn.d.next = self.s1_qpn.q.val();
        self.s2_tag.d.next = self.s1_tag.q.val();
        self.s2_entry.d.next = self.ram.read_data.val();
        self.s2_dir.d.next = self.dir_rd.val();
        self.s2_present.next = self.s2_dir.q.val().get_bit(0);
        self.s2_base.next = self.table_base.val();
        if self.two_level.val() {
            self.s2_base.next =
                bit_cast::<ADDR_BITS, 58>(self.s2_dir.q.val().get_bits::<58>(1)) << 6;
        }
        self.s1_valid.d.next = self.s0_fire.val();
        if self.s0_fire.val() {
            self.s1_qpn.d.next = self.req_qpn.val();
            self.s1_tag.d.next = self.req_tag.val();
        }

        // s1: checks in SPEC order (range, state, generation), then the address.
        self.s2_index.next = self.s2_qpn.q.val() & self.index_mask.val();
        // The offset inside the table (flat) or inside the page (two_level).
        self.s2_leaf_index.next = self.s2_index.val() & self.leaf_mask.val();
        self.s2_wide_index.next = bit_cast::<ADDR_BITS, QPN_BITS>(self.s2_leaf_index.val());
        self.s2_gen.next = self.s2_qpn.q.val() >> self.index_bits.val();
        self.s2_entry_gen.next = bit_cast::<QPN_BITS, GEN_BITS_MAX>(self.s2_entry.q.val().gen);
        self.s2_offset.next = ((self.s2_wide_index.val() << 5) & self.mul_mask0.val())
            + ((self.s2_wide_index.val() << 6) & self.mul_mask1.val())
            + ((self.s2_wide_index.val() << 7) & self.mul_mask2.val())
            + ((self.s2_wide_index.val() << 8) & self.mul_mask3.val())
            + ((self.s2_wide_index.val() << 9) & self.mul_mask4.val())
            + ((self.s2_wide_index.val() << 10) & self.mul_mask5.val())
            + ((self.s2_wide_index.val() << 11) & self.mul_mask6.val())
            + ((self.s2_wide_index.val() << 12) & self.mul_mask7.val());
        self.s2_status.next = 0.into();
        self.s2_addr.next = self.s2_base.val() + self.s2_offset.val();
        if !self.s2_present.val() {
            self.s2_status.next = 4.into();
            self.s2_addr.next = 0.into();
        }
        if self.s2_entry_gen.val() != self.s2_gen.val() {
            self.s2_status.next = 3.into();
            self.s2_addr.next = 0.into();
        }
        if self.s2_entry.q.val().state != self.state_valid.val() {
            self.s2_status.next = 2.into();
            self.s2_addr.next = 0.into();
        }
        if bit_cast::<25, QPN_BITS>(self.s2_index.val()) >= self.max_qps.val() {
            self.s2_status.next = 1.into();
            self.s2_addr.next = 0.into();
        }
        self.s2_rsp.next.qpn = self.s2_qpn.q.val();
        self.s2_rsp.next.tag = self.s2_tag.q.val();
        self.s2_rsp.next.status = self.s2_status.val();
        self.s2_rsp.next.addr = self.s2_addr.val();
        self.fifo.in_valid.next = self.s2_valid.q.val();
        self.fifo.data_in.next = self.s2_rsp.val();

        // Response stream from the queue's head.
        self.fifo.out_ready.next = self.rsp_ready.val();
        self.rsp_valid.next = self.fifo.out_valid.val();
        self.rsp_qpn.next = self.fifo.data_out.val().qpn;
        self.rsp_tag.next = self.fifo.data_out.val().tag;
        self.status_out.next = self.fifo.data_out.val().status;
        self.rsp_status.next = self.status_out.val();
        self.rsp_addr.next = self.fifo.data_out.val().addr;
        self.rsp_fire.next = self.fifo.out_valid.val() & self.rsp_ready.val();

        // Counters, at the response handshake.
        if self.fifo.out_valid.val() & self.rsp_ready.val() {
            self.lookups.d.next = self.lookups.q.val() + 1;
            if self.status_out.val() == 0 {
                self.ok.d.next = self.ok.q.val() + 1;
            }
            if self.status_out.val() == 1 {
                self.out_of_range.d.next = self.out_of_range.q.val() + 1;
            }
            if self.status_out.val() == 2 {
                self.not_allocated.d.next = self.not_allocated.q.val() + 1;
            }
            if self.status_out.val() == 3 {
                self.stale.d.next = self.stale.q.val() + 1;
            }
            if self.two_level.val() & (self.status_out.val() == 4) {
                self.page_absent.d.next = self.page_absent.q.val() + 1;
            }
        }
        self.cnt_lookups.next = self.lookups.q.val();
        self.cnt_ok.next = self.ok.q.val();
        self.cnt_out_of_range.next = self.out_of_range.q.val();
        self.cnt_not_allocated.next = self.not_allocated.q.val();
        self.cnt_stale.next = self.stale.q.val();
        self.cnt_page_absent.next = self.page_absent.q.val();

        if self.rst.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.lookups.d.next = 0.into();
            self.ok.d.next = 0.into();
            self.out_of_range.d.next = 0.into();
            self.not_allocated.d.next = 0.into();
            self.stale.d.next = 0.into();
            self.page_absent.d.next = 0.into();
        }
    }
}
