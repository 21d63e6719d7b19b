//! `DirFetch`: the AXI4 read master of the in_memory directory (SPEC §4 memory port), shared
//! by every [`LookupPipe`](super::lookup_pipe::LookupPipe) whose directory is in memory.
//!
//! | part | behaviour |
//! |---|---|
//! | arbiter | round-robin over the ports' directory read queues, one read per cycle |
//! | AR register | `arvalid` / `araddr` come from registers, held until `arready` |
//! | return queue | the port of every read, in AR order (its head in registers: [`MemFifo::head_registered`]); at most `max_outstanding` reads between the AR register and their R beat (a slot freed by an R beat is taken again at the same edge) |
//! | R | `rready` is always 1 (every port has room for the data of its reads); a beat goes to the port at the head of the return queue, with the entry taken from its 64-bit lane |
//!
//! On a data bus wider than 64 bits (`mem_data_bits` 128, 256 or 512) a read fetches the whole
//! bus word that holds the entry (`araddr` aligned to the bus width, `arsize` the bus width,
//! so no narrow transfer), and the return queue keeps the entry's lane (`araddr` bits
//! `[log2(bus bytes)-1:3]`) beside its port.
//!
//! Every read has one ID (0; with the state in memory too the top level passes the reads
//! through [`ReadArb`](super::read_arb::ReadArb) with ID 2 and gives this block the R beats
//! of ID 2 alone), so the memory answers in AR order (the AXI rule for one ID), and the
//! reads of one port are issued in that port's order: each port receives its directory
//! entries in its request order. A beat's data is passed on as the directory entry, with
//! bit 1 (a reserved bit of the entry, SPEC §5) replaced by "AXI error" (`rresp != OKAY`, or
//! a beat without `rlast`, which a single-beat read never has from a compliant slave).

use super::defaults;
use super::lookup_pipe::DIR_ERROR_BIT;
use super::mem_fifo::{MemFifo, FIFO_COUNT_BITS};
use super::mem_writer::MEM_DATA_BITS_MAX;
use super::{EngineParams, ADDR_BITS};
use crate::spec::dir_entry;
use rust_hdl::prelude::*;

/// Bits of a return-queue word: the port and the lane of a read in flight.
pub const RET_BITS: usize = 6;

#[derive(LogicBlock)]
pub struct DirFetch {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // Directory read requests, one queue per port.
    pub dreq_valid: Vec<Signal<In, Bit>>,
    pub dreq_ready: Vec<Signal<Out, Bit>>,
    pub dreq_addr: Vec<Signal<In, Bits<ADDR_BITS>>>,
    // Results, one valid per port, one data for all.
    pub cpl_valid: Vec<Signal<Out, Bit>>,
    pub cpl_data: Signal<Out, Bits<64>>,
    // AXI4 read master (single 8-byte beats, ID 0: the fixed fields are tied at the top).
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
    /// The read data, declared at the widest bus (the top level narrows it).
    pub rdata: Signal<In, Bits<MEM_DATA_BITS_MAX>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    /// Per read in flight: its port (bits `[2:0]`) and its entry's 64-bit lane (`[5:3]`).
    ret: MemFifo<Bits<RET_BITS>>,
    ar_valid: DFF<Bit>,
    ar_addr: DFF<Bits<ADDR_BITS>>,
    /// The port to prefer next (3 bits, so that no comparison with it is constant).
    rr: DFF<Bits<3>>,
    /// Fewer than max_outstanding reads pending or in flight (the return queue's count below
    /// it), kept in a register: its next value is chosen among comparisons of the count made
    /// in parallel, so that no comparison runs between `load` and the registers it enables.
    room: DFF<Bit>,
    /// The count below max_outstanding - 1, and below max_outstanding.
    below_less_one: Signal<Local, Bit>,
    below: Signal<Local, Bit>,
    found: Signal<Local, Bit>,
    sel: Signal<Local, Bits<3>>,
    sel_addr: Signal<Local, Bits<ADDR_BITS>>,
    load: Signal<Local, Bit>,
    /// An R beat at this edge: the head of the return queue leaves.
    pop: Signal<Local, Bit>,
    r_err: Signal<Local, Bit>,
    /// The lane of the selected request's entry, and the port and lane at the return
    /// queue's head.
    sel_lane: Signal<Local, Bits<6>>,
    head_port: Signal<Local, Bits<3>>,
    /// The head's lane as a bit offset (lane * 64).
    head_lane: Signal<Local, Bits<16>>,
    r_entry: Signal<Local, Bits<64>>,
    port_num: Vec<Constant<Bits<3>>>,
    max_outstanding: Constant<Bits<FIFO_COUNT_BITS>>,
    /// max_outstanding - 1 (at least 1, so that no comparison with it is constant):
    /// `below_less_one` compares the count with a constant, no adder; `one_outstanding`
    /// (max_outstanding 1) makes it false.
    max_less_one: Constant<Bits<FIFO_COUNT_BITS>>,
    one_outstanding: Constant<Bit>,
    entry_mask: Constant<Bits<64>>,
    error_bit: Constant<Bits<64>>,
    /// `araddr` keeps the bits above the bus width's byte offset.
    word_mask: Constant<Bits<ADDR_BITS>>,
    /// Lanes of the bus less one (0 on a 64-bit bus).
    lane_mask: Constant<Bits<6>>,
    _ports: usize,
}

impl DirFetch {
    pub fn new(p: &EngineParams) -> Self {
        let n = p.ports;
        block_new!(
            [
                clock, rst, cpl_data, arvalid, arready, araddr, rvalid, rready, rdata, rresp,
                rlast, ar_valid, ar_addr, rr, room, below_less_one, below, found, sel, sel_addr, load, pop, r_err, sel_lane,
                head_port, head_lane, r_entry,
            ]
            dreq_valid: defaults(n),
            dreq_ready: defaults(n),
            dreq_addr: defaults(n),
            cpl_valid: defaults(n),
            // Head-registered: the head's port decides every port's `cpl_valid`, which
            // runs on into the port's result queue (a LUT RAM read there was the longest
            // path of configs/in_memory.toml at index_bits 16).
            ret: MemFifo::lut_ram((p.max_outstanding as usize).next_power_of_two().max(2))
                .head_registered(),
            port_num: (0..n).map(|i| Constant::new((i as u64).into())).collect(),
            max_outstanding: Constant::new(u64::from(p.max_outstanding).into()),
            max_less_one: Constant::new(u64::from(p.max_outstanding.saturating_sub(1).max(1)).into()),
            one_outstanding: Constant::new(p.max_outstanding <= 1),
            entry_mask: Constant::new((dir_entry::BASE_MASK | dir_entry::PRESENT).into()),
            error_bit: Constant::new(u64::from(DIR_ERROR_BIT).into()),
            word_mask: Constant::new((!(u64::from(p.mem_data_bits) / 8 - 1)).into()),
            lane_mask: Constant::new((u64::from(p.mem_data_bits) / 64 - 1).into()),
            _ports: n,
        )
    }
}

impl Logic for DirFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ar_valid, ar_addr, rr, room);
        self.ret.clock.next = self.clock.val();
        self.ret.rst.next = self.rst.val();

        // Round-robin: the first port with a request from `rr` on, else from port 0.
        self.found.next = false;
        self.sel.next = 0.into();
        for p in 0..self._ports {
            if !self.found.val()
                & self.dreq_valid[p].val()
                & (self.port_num[p].val() >= self.rr.q.val())
            {
                self.sel.next = self.port_num[p].val();
                self.found.next = true;
            }
        }
        for p in 0..self._ports {
            if !self.found.val() & self.dreq_valid[p].val() {
                self.sel.next = self.port_num[p].val();
                self.found.next = true;
            }
        }
        // A new read enters the AR register when it is free (or leaves at this edge) and
        // fewer than max_outstanding reads are pending or in flight, counting the one whose R
        // beat arrives at this edge as gone: its slot is reused at once.
        self.pop.next = self.rvalid.val() & self.ret.out_valid.val();
        self.load.next = self.found.val()
            & (!self.ar_valid.q.val() | self.arready.val())
            & (self.room.q.val() | self.pop.val());
        // The next `room`: the count moves by one up at a load, down at a pop (it is at most
        // max_outstanding, so below it after a pop).
        self.below_less_one.next =
            (self.ret.count.val() < self.max_less_one.val()) & !self.one_outstanding.val();
        self.below.next = self.ret.count.val() < self.max_outstanding.val();
        self.room.d.next = self.below.val();
        if self.load.val() & !self.pop.val() {
            self.room.d.next = self.below_less_one.val();
        }
        if !self.load.val() & self.pop.val() {
            self.room.d.next = true;
        }
        self.sel_addr.next = 0.into();
        for p in 0..self._ports {
            self.dreq_ready[p].next = self.load.val() & (self.sel.val() == self.port_num[p].val());
            if self.sel.val() == self.port_num[p].val() {
                self.sel_addr.next = self.dreq_addr[p].val();
            }
        }
        self.sel_lane.next =
            bit_cast::<6, ADDR_BITS>(self.sel_addr.val() >> 3) & self.lane_mask.val();
        self.ret.in_valid.next = self.load.val();
        self.ret.data_in.next = (self.sel_lane.val() << 3) | bit_cast::<6, 3>(self.sel.val());
        if self.load.val() {
            self.ar_valid.d.next = true;
            self.ar_addr.d.next = self.sel_addr.val() & self.word_mask.val();
            self.rr.d.next = self.sel.val() + 1;
        }
        if !self.load.val() & self.arready.val() {
            self.ar_valid.d.next = false;
        }
        self.arvalid.next = self.ar_valid.q.val();
        self.araddr.next = self.ar_addr.q.val();

        // R: to the port at the head of the return queue.
        self.rready.next = true;
        self.ret.out_ready.next = self.pop.val();
        self.r_err.next = self.rresp.val().any() | !self.rlast.val();
        self.head_port.next = bit_cast::<3, 6>(self.ret.data_out.val());
        // (Masked again here: on a 64-bit bus the lane is the constant 0 and no multiplexer
        // runs from the return queue's head into the data.)
        self.head_lane.next = bit_cast::<16, 6>(
            bit_cast::<6, 3>(self.ret.data_out.val().get_bits::<3>(3)) & self.lane_mask.val(),
        ) << 6;
        self.r_entry.next =
            bit_cast::<64, MEM_DATA_BITS_MAX>(self.rdata.val() >> self.head_lane.val());
        self.cpl_data.next = (self.r_entry.val() & self.entry_mask.val())
            | (bit_cast::<64, 1>(self.r_err.val().into()) << self.error_bit.val());
        for p in 0..self._ports {
            self.cpl_valid[p].next = self.rvalid.val()
                & self.ret.out_valid.val()
                & (self.head_port.val() == self.port_num[p].val());
        }

        if self.rst.val() {
            self.ar_valid.d.next = false;
            self.rr.d.next = 0.into();
            self.room.d.next = true;
        }
    }
}
