//! `MemWriter`: the AXI4 write master of the state table in memory (SPEC §9, `state =
//! in_memory`, docs/state_in_memory.md). A command writes through it either the bus beat
//! that holds the state word it changed, or, the first time it touches a block, the whole
//! block (lazy initialisation: every other word of a block never written is FREE with
//! generation 0, all zero bits). Beside the state in memory's command engine
//! ([`MemCmdEngine`](super::mem_cmd::MemCmdEngine)) at the top level, which passes it the
//! engine's requests (so no logic of the engine follows AW, W or B); also tested alone
//! (`testbench/tests/block_mem_writer.rs`).
//!
//! One write at a time, as the command engine runs one command at a time:
//!
//! | part | behaviour |
//! |---|---|
//! | request | `req_valid` / `req_ready` (`req_ready` from a register: high while no write is in flight, and not in reset). A request is one INCR burst of `req_last + 1` beats of the bus width from `req_addr` (aligned to the bus width, the burst inside one 4 KiB page: the caller's contract, which the block sizes and the table alignment of SPEC §9 give); beat `req_beat` carries `req_data` with the byte strobes `req_strb`, every other beat zeros with every strobe set |
//! | AW | `awvalid`, `awaddr`, `awlen` from registers, raised at the edge after the request and held until `awready` |
//! | W | raised at the same edge as AW, not waiting for `awready` (AXI4 allows data before its address; a slave that waits for the data before taking the address must not hang); `wdata`, `wstrb`, `wlast` from registers, held until `wready` |
//! | B | `bready` is always 1; the B handshake ends the write: `done` is high for one cycle, sampled at the edge after it, with `error` set when `bresp` was not OKAY; `req_ready` rises with it |
//!
//! Latency: request handshake at edge `t`; with a slave that is always ready, AW and the
//! first W beat handshaken at `t + 1`, beat `k` at `t + 1 + k`, and `done` (with
//! `req_ready`) sampled high at the edge after the B handshake: with a memory of latency 1
//! and no backpressure, a request every `beats + 2` edges. The fixed AXI fields (`awsize` for the bus width, `awburst` INCR, ID 0, the
//! cache and protection fields) are tied at the top level, as for the read master.
//!
//! Datapaths are declared at their widest (512-bit data, 64 strobes); `data_bits` (64, 128,
//! 256 or 512) sets the strobes of the zero beats, and the top level narrows the ports.

use super::ADDR_BITS;
use rust_hdl::prelude::*;

/// Widest data bus of the memory port (SPEC §3 `mem_data_bits`).
pub const MEM_DATA_BITS_MAX: usize = 512;
/// Byte strobes of the widest data bus.
pub const MEM_STRB_BITS_MAX: usize = MEM_DATA_BITS_MAX / 8;

#[derive(LogicBlock)]
pub struct MemWriter {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // Write requests.
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_addr: Signal<In, Bits<ADDR_BITS>>,
    /// Beats of the burst less one (`awlen`).
    pub req_last: Signal<In, Bits<8>>,
    /// The beat that carries `req_data` and `req_strb`.
    pub req_beat: Signal<In, Bits<8>>,
    pub req_data: Signal<In, Bits<MEM_DATA_BITS_MAX>>,
    pub req_strb: Signal<In, Bits<MEM_STRB_BITS_MAX>>,
    /// The write ended (one cycle), with `error` when `bresp` was not OKAY.
    pub done: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    // AXI4 write channels.
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub awaddr: Signal<Out, Bits<ADDR_BITS>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<MEM_DATA_BITS_MAX>>,
    pub wstrb: Signal<Out, Bits<MEM_STRB_BITS_MAX>>,
    pub wlast: Signal<Out, Bit>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    /// A write is in flight (from its request to its B handshake).
    busy: DFF<Bit>,
    aw_valid: DFF<Bit>,
    aw_addr: DFF<Bits<ADDR_BITS>>,
    last: DFF<Bits<8>>,
    beat: DFF<Bits<8>>,
    data: DFF<Bits<MEM_DATA_BITS_MAX>>,
    strb: DFF<Bits<MEM_STRB_BITS_MAX>>,
    w_valid: DFF<Bit>,
    /// The W beat on the bus (its index, and its payload and `wlast`, kept in registers).
    w_index: DFF<Bits<8>>,
    w_data: DFF<Bits<MEM_DATA_BITS_MAX>>,
    w_strb: DFF<Bits<MEM_STRB_BITS_MAX>>,
    w_last: DFF<Bit>,
    done_q: DFF<Bit>,
    error_q: DFF<Bit>,
    req_fire: Signal<Local, Bit>,
    w_fire: Signal<Local, Bit>,
    /// The index of the next W beat.
    w_next: Signal<Local, Bits<8>>,
    b_fire: Signal<Local, Bit>,
    full_strb: Constant<Bits<MEM_STRB_BITS_MAX>>,
}

impl MemWriter {
    /// A write master for a data bus of `data_bits` (64, 128, 256 or 512).
    pub fn new(data_bits: usize) -> Self {
        assert!(
            [64, 128, 256, 512].contains(&data_bits),
            "data_bits = {data_bits}: allowed 64, 128, 256, 512"
        );
        // Every byte lane of the bus: data_bits / 8 strobes (64 for a 512-bit bus).
        let full = u64::MAX >> (MEM_STRB_BITS_MAX - data_bits / 8);
        block_new!(
            [
                clock, rst, req_valid, req_ready, req_addr, req_last, req_beat, req_data,
                req_strb, done, error, awvalid, awready, awaddr, awlen, wvalid, wready, wdata,
                wstrb, wlast, bvalid, bready, bresp, busy, aw_valid, aw_addr, last, beat, data,
                strb, w_valid, w_index, w_data, w_strb, w_last, done_q, error_q, req_fire,
                w_fire, w_next, b_fire,
            ]
            full_strb: Constant::new(full.into()),
        )
    }
}

impl Logic for MemWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy, aw_valid, aw_addr, last, beat, data, strb, w_valid, w_index, w_data,
            w_strb, w_last, done_q, error_q
        );
        // Request: taken when no write is in flight.
        self.req_ready.next = !self.busy.q.val() & !self.rst.val();
        self.req_fire.next = self.req_valid.val() & self.req_ready.val();
        if self.req_fire.val() {
            self.busy.d.next = true;
            self.aw_valid.d.next = true;
            self.aw_addr.d.next = self.req_addr.val();
            self.last.d.next = self.req_last.val();
            self.beat.d.next = self.req_beat.val();
            self.data.d.next = self.req_data.val();
            self.strb.d.next = self.req_strb.val();
            // Beat 0 goes on the bus at once.
            self.w_valid.d.next = true;
            self.w_index.d.next = 0.into();
            self.w_last.d.next = self.req_last.val() == 0;
            self.w_data.d.next = 0.into();
            self.w_strb.d.next = self.full_strb.val();
            if self.req_beat.val() == 0 {
                self.w_data.d.next = self.req_data.val();
                self.w_strb.d.next = self.req_strb.val();
            }
        }

        // AW.
        self.awvalid.next = self.aw_valid.q.val();
        self.awaddr.next = self.aw_addr.q.val();
        self.awlen.next = self.last.q.val();
        if self.aw_valid.q.val() & self.awready.val() {
            self.aw_valid.d.next = false;
        }

        // W: the next beat's payload is prepared at the handshake of the one on the bus.
        self.wvalid.next = self.w_valid.q.val();
        self.wdata.next = self.w_data.q.val();
        self.wstrb.next = self.w_strb.q.val();
        self.wlast.next = self.w_last.q.val();
        self.w_fire.next = self.w_valid.q.val() & self.wready.val();
        self.w_next.next = self.w_index.q.val() + 1;
        if self.w_fire.val() {
            if self.w_last.q.val() {
                self.w_valid.d.next = false;
            } else {
                self.w_index.d.next = self.w_next.val();
                self.w_last.d.next = self.w_next.val() == self.last.q.val();
                self.w_data.d.next = 0.into();
                self.w_strb.d.next = self.full_strb.val();
                if self.w_next.val() == self.beat.q.val() {
                    self.w_data.d.next = self.data.q.val();
                    self.w_strb.d.next = self.strb.q.val();
                }
            }
        }

        // B: ends the write.
        self.bready.next = true;
        self.b_fire.next = self.bvalid.val() & self.busy.q.val();
        self.done_q.d.next = self.b_fire.val();
        self.error_q.d.next = self.b_fire.val() & self.bresp.val().any();
        if self.b_fire.val() {
            self.busy.d.next = false;
        }
        self.done.next = self.done_q.q.val();
        self.error.next = self.error_q.q.val();

        if self.rst.val() {
            self.busy.d.next = false;
            self.aw_valid.d.next = false;
            self.w_valid.d.next = false;
            self.done_q.d.next = false;
            self.error_q.d.next = false;
        }
    }
}
