//! `MissFetch`: the block reads of the [`MissUnit`](super::miss_unit::MissUnit) (SPEC §9,
//! `docs/state_in_memory.md` "Miss unit"): the queue of the reads to issue, the AXI4 read
//! master's AR channel (ID 0), the queue of the reads in flight, and the R beats, each
//! delivered with its slot, its index in the block and its lane, and the end of each fill, good
//! or failed. The block in memory and the burst are those of the miss unit's docs ("Block in
//! memory"). Tested within the miss unit (`testbench/tests/block_miss_unit.rs`: the AR fields
//! and address of every read in the order of the new slots, a wrong `rlast`, error responses).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `new_valid`, `new_block`, `new_slot` | in | a new take at this edge: read this block into this slot (at most one in flight per slot, so the queues never fill) |
//! | `state_base` | in | STATE_BASE (its bits below the block size ignored) |
//! | `arvalid` .. `arburst`, `arready` | | AR: the read queue's head (registered); `araddr` follows `state_base` while it waits |
//! | `rvalid`, `rready`, `rdata`, `rresp`, `rlast` | | R: `rready` is always 1; the beats belong to the reads in AR order |
//! | `beat_valid`, `beat_slot`, `beat_index`, `beat_data` | out | an R beat in this cycle: its slot, its index in the block, its lane for a block narrower than the bus (low bits), else the beat |
//! | `fill_valid`, `fill_failed`, `fill_block` | out | with the last beat (counted: `arlen + 1`): the fill of `beat_slot` is done, failed if a beat answered SLVERR/DECERR or `rlast` was not high exactly on the last beat |
//!
//! Reset (`rst`, synchronous) empties the queues and the beat count.

use super::mem_fifo::MemFifo;
use super::miss_params::{
    MissParams, ARQ_BITS, BEAT_BITS, BLOCK_NUM_BITS, MEM_DATA_BITS, OFFSET_BITS, RET_BITS,
    SLOT_BITS,
};
use super::ADDR_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MissFetch {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub state_base: Signal<In, Bits<ADDR_BITS>>,
    pub new_valid: Signal<In, Bit>,
    pub new_block: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub new_slot: Signal<In, Bits<SLOT_BITS>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arsize: Signal<Out, Bits<3>>,
    pub arburst: Signal<Out, Bits<2>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
    pub rdata: Signal<In, Bits<MEM_DATA_BITS>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    pub beat_valid: Signal<Out, Bit>,
    pub beat_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub beat_index: Signal<Out, Bits<BEAT_BITS>>,
    pub beat_data: Signal<Out, Bits<MEM_DATA_BITS>>,
    pub fill_valid: Signal<Out, Bit>,
    pub fill_failed: Signal<Out, Bit>,
    pub fill_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    /// Reads to issue: block, slot.
    arq: MemFifo<Bits<ARQ_BITS>>,
    /// Reads issued, in AR order: offset of the block in its beat, block, slot.
    ret: MemFifo<Bits<RET_BITS>>,
    /// The beat of the read at the head of `ret`, and whether a beat of it failed.
    r_beat: DFF<Bits<BEAT_BITS>>,
    r_err: DFF<Bit>,
    a_block: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    a_addr: Signal<Local, Bits<ADDR_BITS>>,
    ar_load: Signal<Local, Bit>,
    r_pop: Signal<Local, Bit>,
    r_last: Signal<Local, Bit>,
    r_fail: Signal<Local, Bit>,
    /// The queues' fill levels that nothing needs (the name tells the lint so).
    unused_counts: Signal<Local, Bit>,
    base_mask: Constant<Bits<ADDR_BITS>>,
    block_shift: Constant<Bits<8>>,
    beats_m1: Constant<Bits<BEAT_BITS>>,
    lane_mask: Constant<Bits<OFFSET_BITS>>,
    c_arsize: Constant<Bits<3>>,
}

impl MissFetch {
    /// The reads of a miss unit with the parameters `m` (checked by [`MissParams::check`]).
    pub fn new(m: &MissParams) -> Self {
        let beats = u64::from(m.beats());
        let block_bytes = m.block_bytes();
        let bus_bytes = u64::from(m.mem_data_bits / 8);
        let lane_mask = if block_bytes < bus_bytes {
            (bus_bytes - 1) & !(block_bytes - 1)
        } else {
            0
        };
        Self {
            clock: Default::default(),
            rst: Default::default(),
            state_base: Default::default(),
            new_valid: Default::default(),
            new_block: Default::default(),
            new_slot: Default::default(),
            arvalid: Default::default(),
            arready: Default::default(),
            araddr: Default::default(),
            arlen: Default::default(),
            arsize: Default::default(),
            arburst: Default::default(),
            rvalid: Default::default(),
            rready: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            rlast: Default::default(),
            beat_valid: Default::default(),
            beat_slot: Default::default(),
            beat_index: Default::default(),
            beat_data: Default::default(),
            fill_valid: Default::default(),
            fill_failed: Default::default(),
            fill_block: Default::default(),
            arq: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            ret: MemFifo::lut_ram(m.slot_queue_depth()).head_registered(),
            r_beat: Default::default(),
            r_err: Default::default(),
            a_block: Default::default(),
            a_addr: Default::default(),
            ar_load: Default::default(),
            r_pop: Default::default(),
            r_last: Default::default(),
            r_fail: Default::default(),
            unused_counts: Default::default(),
            base_mask: Constant::new((!(block_bytes - 1)).into()),
            block_shift: Constant::new(u64::from(block_bytes.trailing_zeros()).into()),
            beats_m1: Constant::new((beats - 1).into()),
            lane_mask: Constant::new(lane_mask.into()),
            c_arsize: Constant::new(u64::from(m.arsize()).into()),
        }
    }
}

impl Logic for MissFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_beat, r_err);
        self.arq.clock.next = self.clock.val();
        self.arq.rst.next = self.rst.val();
        self.ret.clock.next = self.clock.val();
        self.ret.rst.next = self.rst.val();

        // ---- Read queue: its head is the read offered on AR.
        self.arq.in_valid.next = self.new_valid.val();
        self.arq.data_in.next = (bit_cast::<ARQ_BITS, BLOCK_NUM_BITS>(self.new_block.val()) << 8)
            | bit_cast::<ARQ_BITS, SLOT_BITS>(self.new_slot.val());
        self.ar_load.next = self.arq.out_valid.val() & self.arready.val();
        self.arq.out_ready.next = self.ar_load.val();
        self.a_block.next = self.arq.data_out.val().get_bits::<BLOCK_NUM_BITS>(8);
        self.a_addr.next = (self.state_base.val() & self.base_mask.val())
            + (bit_cast::<ADDR_BITS, BLOCK_NUM_BITS>(self.a_block.val()) << self.block_shift.val());
        self.ret.in_valid.next = self.ar_load.val();
        self.ret.data_in.next =
            (bit_cast::<RET_BITS, OFFSET_BITS>(self.a_addr.val().get_bits::<OFFSET_BITS>(0)) << 29)
                | bit_cast::<RET_BITS, ARQ_BITS>(self.arq.data_out.val());
        self.arvalid.next = self.arq.out_valid.val();
        self.araddr.next = self.a_addr.val();
        self.arlen.next = bit_cast::<8, BEAT_BITS>(self.beats_m1.val());
        self.arsize.next = self.c_arsize.val();
        self.arburst.next = 1.into();

        // ---- R: the head of the in-flight queue is the read the beat belongs to.
        self.r_pop.next = self.rvalid.val() & self.ret.out_valid.val();
        self.r_last.next = self.r_beat.q.val() == self.beats_m1.val();
        self.r_fail.next =
            self.r_err.q.val() | self.rresp.val().any() | (self.rlast.val() ^ self.r_last.val());
        self.rready.next = true;
        self.ret.out_ready.next = self.r_pop.val() & self.r_last.val();
        self.beat_valid.next = self.r_pop.val();
        self.beat_slot.next = self.ret.data_out.val().get_bits::<SLOT_BITS>(0);
        self.beat_index.next = self.r_beat.q.val();
        self.beat_data.next = self.rdata.val()
            >> (bit_cast::<10, OFFSET_BITS>(
                self.ret.data_out.val().get_bits::<OFFSET_BITS>(29) & self.lane_mask.val(),
            ) << 3);
        self.fill_valid.next = self.r_pop.val() & self.r_last.val();
        self.fill_failed.next = self.r_fail.val();
        self.fill_block.next = self.ret.data_out.val().get_bits::<BLOCK_NUM_BITS>(8);
        if self.r_pop.val() {
            self.r_beat.d.next = self.r_beat.q.val() + 1;
            self.r_err.d.next = self.r_fail.val();
            if self.r_last.val() {
                self.r_beat.d.next = 0.into();
                self.r_err.d.next = false;
            }
        }
        self.unused_counts.next = self.arq.count.val().any() | self.ret.count.val().any();
        if self.rst.val() {
            self.r_beat.d.next = 0.into();
            self.r_err.d.next = false;
        }
    }
}
