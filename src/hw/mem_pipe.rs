//! `MemLookupPipe`: the lookup pipeline of one port when the directory is in memory
//! (`mode = two_level`, `directory = in_memory`).
//!
//! ```text
//!            +----------------------------------+  all lookups  +---------+
//!  req  ---->| LookupFront: s0 RAM read, s1     |-------------->| queue   |--+
//!  (qpn,tag) | latch, s2 range, state, gen      |               | (order) |  |    rsp
//!            +----------------------------------+               +---------+  +--> (head
//!                                          | passed the check                    |     done?)
//!                                          v                                     |
//!                                    dir read requests ---> DirFetch ---> results+
//! ```
//!
//! s0, s1 and s2 are the [`LookupFront`] of [`LookupPipe`](super::lookup_pipe::LookupPipe)
//! without an on-chip directory: at s2 the range, state and generation are checked (on RAM
//! words registered at s1, as in every pipe); every lookup is
//! written into the queue in request order, with its status (final when a check failed) and
//! its offset in the page. A lookup that passed the check also sends a directory read
//! request (`TABLE_BASE + (index >> leaf_bits) * 8`, bits `[2:0]` of TABLE_BASE ignored) to
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
//! 512); requests are granted on credit (lookups in s1, s2 and the queue below `depth`), so
//! no queue overflows and the result queue always has room for a read's data (the memory
//! port's `rready` stays high). `req_ready` comes from registers only, never from `rsp_ready`.
//!
//! Latency (request handshake to response valid): memory latency + 5 (s1, s2, the AR
//! register, the AR handshake, the result queue).

use super::lookup_counters::{LookupCounters, LookupCounts};
use super::lookup_front::LookupFront;
use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::{EngineParams, StateEntry, ADDR_BITS, QPN_BITS, TAG_BITS};
use crate::spec::{dir_entry, STATUS_BITS};
use rust_hdl::prelude::*;

/// One lookup waiting in the main queue for its response.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct MemEntry {
    /// The offset of the context in its page.
    pub offset: Bits<ADDR_BITS>,
    /// The lookup passed the on-chip checks and waits for its directory entry.
    pub need: Bit,
    /// The final status when `need` is clear.
    pub status: Bits<STATUS_BITS>,
    pub tag: Bits<TAG_BITS>,
    pub qpn: Bits<QPN_BITS>,
}

/// Bit of a directory read result that marks an AXI error (a reserved bit of the entry,
/// SPEC §5, which [`DirFetch`](super::dir_fetch::DirFetch) replaces).
pub const DIR_ERROR_BIT: u32 = 1;

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
    pub rsp_status: Signal<Out, Bits<STATUS_BITS>>,
    pub rsp_addr: Signal<Out, Bits<ADDR_BITS>>,
    // Write port of this pipe's copy of the state RAM (driven by the command engine).
    pub ram_we: Signal<In, Bit>,
    pub ram_waddr: Signal<In, Bits<QPN_BITS>>,
    pub ram_wdata: Signal<In, StateEntry>,
    // Directory read requests to the DirFetch (byte address of the entry).
    pub dreq_valid: Signal<Out, Bit>,
    pub dreq_ready: Signal<In, Bit>,
    pub dreq_addr: Signal<Out, Bits<ADDR_BITS>>,
    // Directory read results from the DirFetch, in this port's order: the entry with
    // [`DIR_ERROR_BIT`] set for an AXI error.
    pub cpl_valid: Signal<In, Bit>,
    pub cpl_data: Signal<In, Bits<64>>,
    // Drain accounting.
    pub req_fire: Signal<Out, Bit>,
    pub rsp_fire: Signal<Out, Bit>,
    pub in_flight: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    pub counts: Signal<Out, LookupCounts>,
    front: LookupFront,
    counters: LookupCounters,
    queue: MemFifo<MemEntry>,
    dreqs: MemFifo<Bits<ADDR_BITS>>,
    results: MemFifo<Bits<64>>,
    s2_entry: Signal<Local, MemEntry>,
    head: Signal<Local, MemEntry>,
    result: Signal<Local, Bits<64>>,
    out_valid: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    /// Lookups in s1, s2 and the back end.
    flight: DFF<Bits<FIFO_COUNT_BITS>>,
    status_out: Signal<Local, Bits<STATUS_BITS>>,
    /// The response address, decided here and assigned to `rsp_addr` once.
    addr_out: Signal<Local, Bits<ADDR_BITS>>,
    /// The fill levels of the request and result queues are not needed (credit is counted
    /// on the main queue), nor the base the front end would take from an on-chip directory;
    /// the name tells the lint so.
    unused_counts_base: Signal<Local, Bit>,
    codes: super::codes::StatusCodes,
    base_mask: Constant<Bits<ADDR_BITS>>,
    entry_shift: Constant<Bits<ADDR_BITS>>,
    page_mask: Constant<Bits<64>>,
    present_bit: Constant<Bits<6>>,
    error_bit: Constant<Bits<6>>,
}

impl MemLookupPipe {
    pub fn new(p: &EngineParams) -> Self {
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
            counts: Default::default(),
            front: LookupFront::new(p, depth),
            counters: LookupCounters::new(true, true),
            queue: MemFifo::new(depth),
            dreqs: MemFifo::new(depth),
            results: MemFifo::new(depth),
            s2_entry: Default::default(),
            head: Default::default(),
            result: Default::default(),
            out_valid: Default::default(),
            fire: Default::default(),
            flight: Default::default(),
            status_out: Default::default(),
            addr_out: Default::default(),
            unused_counts_base: Default::default(),
            codes: Default::default(),
            base_mask: Constant::new((!(dir_entry::BYTES - 1)).into()),
            entry_shift: Constant::new(u64::from(dir_entry::BYTES.trailing_zeros()).into()),
            page_mask: Constant::new(dir_entry::BASE_MASK.into()),
            present_bit: Constant::new(u64::from(dir_entry::PRESENT_BIT).into()),
            error_bit: Constant::new(u64::from(DIR_ERROR_BIT).into()),
        }
    }
}

impl Logic for MemLookupPipe {
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
        self.front.flight.next = self.flight.q.val();
        self.req_ready.next = self.front.req_ready.val();
        self.req_fire.next = self.front.req_fire.val();
        self.in_flight.next = self.front.in_flight.val();
        self.queue.clock.next = self.clock.val();
        self.queue.rst.next = self.rst.val();
        self.dreqs.clock.next = self.clock.val();
        self.dreqs.rst.next = self.rst.val();
        self.results.clock.next = self.clock.val();
        self.results.rst.next = self.rst.val();

        // s2: every lookup into the queue, with its status (final unless it passed the
        // checks) and its offset in the page.
        self.s2_entry.next.offset = self.front.chk_offset.val();
        self.s2_entry.next.need = self.front.chk_ok.val();
        self.s2_entry.next.status = self.front.chk_status.val();
        self.s2_entry.next.tag = self.front.chk_tag.val();
        self.s2_entry.next.qpn = self.front.chk_qpn.val();
        self.queue.in_valid.next = self.front.chk_valid.val();
        self.queue.data_in.next = self.s2_entry.val();
        // The directory read of a lookup that passed the checks.
        self.dreqs.in_valid.next = self.front.chk_valid.val() & self.front.chk_ok.val();
        self.dreqs.data_in.next = (self.table_base.val() & self.base_mask.val())
            + (self.front.chk_page.val() << self.entry_shift.val());
        self.dreq_valid.next = self.dreqs.out_valid.val();
        self.dreq_addr.next = self.dreqs.data_out.val();
        self.dreqs.out_ready.next = self.dreq_ready.val();
        self.unused_counts_base.next = self.dreqs.count.val().any()
            | self.queue.count.val().any()
            | self.results.count.val().any()
            | self.front.chk_base.val().any();
        self.results.in_valid.next = self.cpl_valid.val();
        self.results.data_in.next = self.cpl_data.val();

        // Response stream from the queue's head, once its directory entry is there.
        self.head.next = self.queue.data_out.val();
        self.result.next = self.results.data_out.val();
        self.out_valid.next = self.queue.out_valid.val();
        if self.head.val().need & !self.results.out_valid.val() {
            self.out_valid.next = false;
        }
        self.status_out.next = self.head.val().status;
        self.addr_out.next = 0.into();
        if self.head.val().need {
            if !self.result.val().get_bit(self.present_bit.val().index()) {
                self.status_out.next = self.codes.page_absent.val();
            }
            if self.result.val().get_bit(self.error_bit.val().index()) {
                self.status_out.next = self.codes.mem_error.val();
            }
            if self.result.val().get_bit(self.present_bit.val().index())
                & !self.result.val().get_bit(self.error_bit.val().index())
            {
                self.addr_out.next =
                    (self.result.val() & self.page_mask.val()) + self.head.val().offset;
            }
        }
        self.fire.next = self.out_valid.val() & self.rsp_ready.val();
        self.queue.out_ready.next = self.fire.val();
        self.results.out_ready.next = self.fire.val() & self.head.val().need;
        self.rsp_valid.next = self.out_valid.val();
        self.rsp_qpn.next = self.head.val().qpn;
        self.rsp_tag.next = self.head.val().tag;
        self.rsp_status.next = self.status_out.val();
        self.rsp_addr.next = self.addr_out.val();
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
        self.counters.status.next = self.status_out.val();
        self.counts.next = self.counters.counts.val();
    }
}
