//! `MemLookupPipe`: the lookup pipeline of one port when the directory is in memory
//! (`mode = two_level`, `directory = in_memory`).
//!
//! ```text
//!            +----------+  s1 regs  +---------------+  all lookups  +---------+
//!  req  ---->| s0: RAM  |---------->| s1: range,    |-------------->| queue   |--+
//!  (qpn,tag) | read     |           | state, gen    |               | (order) |  |    rsp
//!            +----------+           +---------------+               +---------+  +--> (head
//!                                          | passed the check                    |     done?)
//!                                          v                                     |
//!                                    dir read requests ---> DirFetch ---> results+
//! ```
//!
//! s0 and s1 are those of [`LookupPipe`](super::lookup_pipe::LookupPipe) without the
//! on-chip directory: at s1 the range, state and generation are checked; every lookup is
//! written into the queue in request order, with its status (final when a check failed) and
//! its offset in the page. A lookup that passed the check also sends a directory read
//! request (`TABLE_BASE + (index >> leaf_bits) * 8`, bits [2:0] of TABLE_BASE ignored) to
//! the shared [`DirFetch`](super::dir_fetch::DirFetch); lookups that fail the check never
//! touch memory (SPEC §1, fail fast).
//!
//! The memory is read with one AXI ID, so it answers in AR order; `DirFetch` issues each
//! port's reads in the port's order, so the directory entries come back to this port in its
//! request order and wait in a result queue. The queue's head leaves when it needs no
//! directory entry, or when the result queue holds its entry: responses stay in request
//! order, and the status is PAGE_ABSENT (bit 0 clear) or MEM_ERROR (AXI error) or OK with
//! `page_base + offset`.
//!
//! Depth: every queue holds `depth` words (a power of two >= max_outstanding + 4, at most
//! 512); requests are granted on credit (lookups in s1 and in the queue below `depth`), so
//! no queue overflows and the result queue always has room for a read's data (the memory
//! port's `rready` stays high). `req_ready` comes from registers only, never from `rsp_ready`.
//!
//! Latency (request handshake to response valid): memory latency + 4 (s1, the AR register,
//! the AR handshake, the result queue).

use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::state_ram::StateRam;
use super::{EngineParams, StateEntry, ADDR_BITS, GEN_BITS_MAX, QPN_BITS, TAG_BITS};
use rust_hdl::prelude::*;

/// Bits of a queue word: qpn, tag, status, needs the directory, offset in the page.
pub const MEM_ENTRY_BITS: usize = QPN_BITS + TAG_BITS + 3 + 1 + ADDR_BITS;

/// Depth of the per-port queues for `max_outstanding` reads in flight.
pub fn queue_depth(max_outstanding: u32) -> usize {
    ((max_outstanding as usize) + 4)
        .next_power_of_two()
        .min(512)
}

#[derive(LogicBlock)]
pub struct MemLookupPipe {
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
    // Directory read requests to the DirFetch (byte address of the entry).
    pub dreq_valid: Signal<Out, Bit>,
    pub dreq_ready: Signal<In, Bit>,
    pub dreq_addr: Signal<Out, Bits<ADDR_BITS>>,
    // Directory read results from the DirFetch, in this port's order: the entry with bit 1
    // (reserved in the entry) set for an AXI error.
    pub cpl_valid: Signal<In, Bit>,
    pub cpl_data: Signal<In, Bits<64>>,
    // Drain accounting.
    pub req_fire: Signal<Out, Bit>,
    pub rsp_fire: Signal<Out, Bit>,
    pub in_flight: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    // Counters.
    pub cnt_lookups: Signal<Out, Bits<32>>,
    pub cnt_ok: Signal<Out, Bits<32>>,
    pub cnt_out_of_range: Signal<Out, Bits<32>>,
    pub cnt_not_allocated: Signal<Out, Bits<32>>,
    pub cnt_stale: Signal<Out, Bits<32>>,
    pub cnt_page_absent: Signal<Out, Bits<32>>,
    pub cnt_mem_error: Signal<Out, Bits<32>>,
    ram: StateRam,
    queue: MemFifo<MEM_ENTRY_BITS>,
    dreqs: MemFifo<ADDR_BITS>,
    results: MemFifo<64>,
    s1_valid: DFF<Bit>,
    s1_qpn: DFF<Bits<QPN_BITS>>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    lookups: DFF<Bits<32>>,
    ok: DFF<Bits<32>>,
    out_of_range: DFF<Bits<32>>,
    not_allocated: DFF<Bits<32>>,
    stale: DFF<Bits<32>>,
    page_absent: DFF<Bits<32>>,
    mem_error: DFF<Bits<32>>,
    s0_fire: Signal<Local, Bit>,
    occupancy: Signal<Local, Bits<FIFO_COUNT_BITS>>,
    s1_index: Signal<Local, Bits<QPN_BITS>>,
    s1_leaf_index: Signal<Local, Bits<QPN_BITS>>,
    s1_wide_index: Signal<Local, Bits<ADDR_BITS>>,
    s1_dir_index: Signal<Local, Bits<ADDR_BITS>>,
    s1_gen: Signal<Local, Bits<QPN_BITS>>,
    s1_entry_gen: Signal<Local, Bits<QPN_BITS>>,
    s1_offset: Signal<Local, Bits<ADDR_BITS>>,
    s1_status: Signal<Local, Bits<3>>,
    s1_need: Signal<Local, Bit>,
    head: Signal<Local, Bits<MEM_ENTRY_BITS>>,
    head_need: Signal<Local, Bit>,
    result: Signal<Local, Bits<64>>,
    out_valid: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    status_out: Signal<Local, Bits<3>>,
    /// The response address, decided here and assigned to `rsp_addr` once.
    addr_out: Signal<Local, Bits<ADDR_BITS>>,
    /// The fill levels of the request and result queues are not needed (credit is counted
    /// on the main queue); the name tells the lint so.
    unused_counts: Signal<Local, Bit>,
    index_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<5>>,
    leaf_mask: Constant<Bits<QPN_BITS>>,
    leaf_bits: Constant<Bits<6>>,
    max_qps: Constant<Bits<25>>,
    base_mask: Constant<Bits<ADDR_BITS>>,
    page_mask: Constant<Bits<64>>,
    one: Constant<Bits<FIFO_COUNT_BITS>>,
    mul_mask0: Constant<Bits<ADDR_BITS>>,
    mul_mask1: Constant<Bits<ADDR_BITS>>,
    mul_mask2: Constant<Bits<ADDR_BITS>>,
    mul_mask3: Constant<Bits<ADDR_BITS>>,
    mul_mask4: Constant<Bits<ADDR_BITS>>,
    mul_mask5: Constant<Bits<ADDR_BITS>>,
    mul_mask6: Constant<Bits<ADDR_BITS>>,
    mul_mask7: Constant<Bits<ADDR_BITS>>,
    credit: Constant<Bits<FIFO_COUNT_BITS>>,
    state_valid: Constant<Bits<2>>,
}

impl MemLookupPipe {
    pub fn new(p: &EngineParams) -> Self {
        let mul = p.entry_bytes / 32;
        let mask = |k: u32| -> Constant<Bits<ADDR_BITS>> {
            Constant::new(if mul >> k & 1 == 1 { u64::MAX } else { 0 }.into())
        };
        let leaf = p.leaf_bits.expect("in_memory is two_level");
        let depth = queue_depth(p.max_outstanding);
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
            dreq_valid: Default::default(),
            dreq_ready: Default::default(),
            dreq_addr: Default::default(),
            cpl_valid: Default::default(),
            cpl_data: Default::default(),
            req_fire: Default::default(),
            rsp_fire: Default::default(),
            in_flight: Default::default(),
            cnt_lookups: Default::default(),
            cnt_ok: Default::default(),
            cnt_out_of_range: Default::default(),
            cnt_not_allocated: Default::default(),
            cnt_stale: Default::default(),
            cnt_page_absent: Default::default(),
            cnt_mem_error: Default::default(),
            ram: p.state_ram(),
            queue: MemFifo::new(depth),
            dreqs: MemFifo::new(depth),
            results: MemFifo::new(depth),
            s1_valid: Default::default(),
            s1_qpn: Default::default(),
            s1_tag: Default::default(),
            lookups: Default::default(),
            ok: Default::default(),
            out_of_range: Default::default(),
            not_allocated: Default::default(),
            stale: Default::default(),
            page_absent: Default::default(),
            mem_error: Default::default(),
            s0_fire: Default::default(),
            occupancy: Default::default(),
            s1_index: Default::default(),
            s1_leaf_index: Default::default(),
            s1_wide_index: Default::default(),
            s1_dir_index: Default::default(),
            s1_gen: Default::default(),
            s1_entry_gen: Default::default(),
            s1_offset: Default::default(),
            s1_status: Default::default(),
            s1_need: Default::default(),
            head: Default::default(),
            head_need: Default::default(),
            result: Default::default(),
            out_valid: Default::default(),
            fire: Default::default(),
            status_out: Default::default(),
            addr_out: Default::default(),
            unused_counts: Default::default(),
            index_mask: Constant::new(p.index_mask().into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            leaf_mask: Constant::new(((1u64 << leaf) - 1).into()),
            leaf_bits: Constant::new(u64::from(leaf).into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            base_mask: Constant::new((!7u64).into()),
            page_mask: Constant::new((!0x3Fu64).into()),
            one: Constant::new(1u64.into()),
            mul_mask0: mask(0),
            mul_mask1: mask(1),
            mul_mask2: mask(2),
            mul_mask3: mask(3),
            mul_mask4: mask(4),
            mul_mask5: mask(5),
            mul_mask6: mask(6),
            mul_mask7: mask(7),
            credit: Constant::new((depth as u64).into()),
            state_valid: Constant::new(StateEntry::VALID.into()),
        }
    }
}

impl Logic for MemLookupPipe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_qpn,
            s1_tag,
            lookups,
            ok,
            out_of_range,
            not_allocated,
            stale,
            page_absent,
            mem_error
        );
        self.ram.clock.next = self.clock.val();
        self.queue.clock.next = self.clock.val();
        self.queue.rst.next = self.rst.val();
        self.dreqs.clock.next = self.clock.val();
        self.dreqs.rst.next = self.rst.val();
        self.results.clock.next = self.clock.val();
        self.results.rst.next = self.rst.val();
        self.ram.write_enable.next = self.ram_we.val();
        self.ram.write_address.next = self.ram_waddr.val();
        self.ram.write_data.next = self.ram_wdata.val();

        // s0: grant on credit. Lookups in flight = s1 + queue; the edge may add one.
        self.occupancy.next = self.queue.count.val();
        if self.s1_valid.q.val() {
            self.occupancy.next = self.queue.count.val() + self.one.val();
        }
        self.req_ready.next =
            self.init_done.val() & !self.rst.val() & (self.occupancy.val() < self.credit.val());
        self.s0_fire.next = self.req_valid.val() & self.req_ready.val();
        self.req_fire.next = self.s0_fire.val();
        self.in_flight.next = self.occupancy.val();
        self.ram.read_address.next = self.req_qpn.val();
        self.s1_valid.d.next = self.s0_fire.val();
        if self.s0_fire.val() {
            self.s1_qpn.d.next = self.req_qpn.val();
            self.s1_tag.d.next = self.req_tag.val();
        }

        // s1: checks in SPEC order (range, state, generation); the directory comes later.
        self.s1_index.next = self.s1_qpn.q.val() & self.index_mask.val();
        self.s1_leaf_index.next = self.s1_index.val() & self.leaf_mask.val();
        self.s1_wide_index.next = bit_cast::<ADDR_BITS, QPN_BITS>(self.s1_leaf_index.val());
        self.s1_dir_index.next =
            bit_cast::<ADDR_BITS, QPN_BITS>(self.s1_index.val()) >> self.leaf_bits.val();
        self.s1_gen.next = self.s1_qpn.q.val() >> self.index_bits.val();
        self.s1_entry_gen.next = bit_cast::<QPN_BITS, GEN_BITS_MAX>(self.ram.read_data.val().gen);
        self.s1_offset.next = ((self.s1_wide_index.val() << 5) & self.mul_mask0.val())
            + ((self.s1_wide_index.val() << 6) & self.mul_mask1.val())
            + ((self.s1_wide_index.val() << 7) & self.mul_mask2.val())
            + ((self.s1_wide_index.val() << 8) & self.mul_mask3.val())
            + ((self.s1_wide_index.val() << 9) & self.mul_mask4.val())
            + ((self.s1_wide_index.val() << 10) & self.mul_mask5.val())
            + ((self.s1_wide_index.val() << 11) & self.mul_mask6.val())
            + ((self.s1_wide_index.val() << 12) & self.mul_mask7.val());
        self.s1_status.next = 0.into();
        if self.s1_entry_gen.val() != self.s1_gen.val() {
            self.s1_status.next = 3.into();
        }
        if self.ram.read_data.val().state != self.state_valid.val() {
            self.s1_status.next = 2.into();
        }
        if bit_cast::<25, QPN_BITS>(self.s1_index.val()) >= self.max_qps.val() {
            self.s1_status.next = 1.into();
        }
        self.s1_need.next = self.s1_status.val() == 0;
        self.queue.in_valid.next = self.s1_valid.q.val();
        self.queue.data_in.next = (bit_cast::<MEM_ENTRY_BITS, QPN_BITS>(self.s1_qpn.q.val())
            << 100)
            | (bit_cast::<MEM_ENTRY_BITS, TAG_BITS>(self.s1_tag.q.val()) << 68)
            | (bit_cast::<MEM_ENTRY_BITS, 3>(self.s1_status.val()) << 65)
            | (bit_cast::<MEM_ENTRY_BITS, 1>(self.s1_need.val().into()) << 64)
            | bit_cast::<MEM_ENTRY_BITS, ADDR_BITS>(self.s1_offset.val());
        // The directory read of a lookup that passed the on-chip check.
        self.dreqs.in_valid.next = self.s1_valid.q.val() & self.s1_need.val();
        self.dreqs.data_in.next =
            (self.table_base.val() & self.base_mask.val()) + (self.s1_dir_index.val() << 3);
        self.dreq_valid.next = self.dreqs.out_valid.val();
        self.dreq_addr.next = self.dreqs.data_out.val();
        self.dreqs.out_ready.next = self.dreq_ready.val();
        self.unused_counts.next = self.dreqs.count.val().any() | self.results.count.val().any();
        self.results.in_valid.next = self.cpl_valid.val();
        self.results.data_in.next = self.cpl_data.val();

        // Response stream from the queue's head, once its directory entry is there.
        self.head.next = self.queue.data_out.val();
        self.head_need.next = self.head.val().get_bit(64);
        self.result.next = self.results.data_out.val();
        self.out_valid.next = self.queue.out_valid.val();
        if self.head_need.val() & !self.results.out_valid.val() {
            self.out_valid.next = false;
        }
        self.status_out.next = self.head.val().get_bits::<3>(65);
        self.addr_out.next = 0.into();
        if self.head_need.val() {
            if !self.result.val().get_bit(0) {
                self.status_out.next = 4.into();
            }
            if self.result.val().get_bit(1) {
                self.status_out.next = 5.into();
            }
            if self.result.val().get_bits::<2>(0) == 1 {
                self.addr_out.next = (self.result.val() & self.page_mask.val())
                    + self.head.val().get_bits::<ADDR_BITS>(0);
            }
        }
        self.fire.next = self.out_valid.val() & self.rsp_ready.val();
        self.queue.out_ready.next = self.fire.val();
        self.results.out_ready.next = self.fire.val() & self.head_need.val();
        self.rsp_valid.next = self.out_valid.val();
        self.rsp_qpn.next = self.head.val().get_bits::<QPN_BITS>(100);
        self.rsp_tag.next = self.head.val().get_bits::<TAG_BITS>(68);
        self.rsp_status.next = self.status_out.val();
        self.rsp_addr.next = self.addr_out.val();
        self.rsp_fire.next = self.fire.val();

        // Counters, at the response handshake.
        if self.fire.val() {
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
            if self.status_out.val() == 4 {
                self.page_absent.d.next = self.page_absent.q.val() + 1;
            }
            if self.status_out.val() == 5 {
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
            self.s1_valid.d.next = false;
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
