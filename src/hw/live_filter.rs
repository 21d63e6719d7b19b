//! `LiveFilter`: one copy of the `live` filter of `state = in_memory` (SPEC §9,
//! `docs/state_in_memory.md`, "On chip"), shared by two lookup ports: one bit per block (the
//! block holds a RESERVED or VALID index), in a true dual-port RAM ([`TdpRam`]), so one
//! block RAM serves two ports and the engine holds `ceil(ports / 2)` copies.
//!
//! | port | RAM port | reads | written by |
//! |---|---|---|---|
//! | A | read/write | the s0 read of lookup pipe `2k` (`a_raddr`, `a_rdata`) | the command engine (`live_we`, `live_waddr`, `live_wdata`), which takes the port for the edge of its write |
//! | B | read | the s0 read of lookup pipe `2k + 1` (`b_raddr`, `b_rdata`), or of the last pipe when the ports are odd | |
//!
//! Both reads have [`TdpRam`]'s latency (2: the word of the block addressed at the request's
//! edge is on `*_rdata` in the pipe's s2).
//!
//! **The steal.** The engine's `live_we` is a register: the cycle it is high, port A's
//! address is the write's, so pipe `2k` must take no request at that edge. The top level
//! gives that pipe `live_steal = live_we`, which it folds into `req_ready` (registers only:
//! `live_we` is the engine's register): a command costs pipe `2k` at most one request cycle
//! (SPEC §7), port B's pipe none. A lookup of either pipe sees the state as of the edge of its
//! request handshake: port B's read at the write's edge is read-first (the old bit), and port
//! A takes no request at that edge.
//!
//! With one lookup port (or the last of an odd number), the pipe reads port B and the engine
//! alone uses port A: no steal.

use super::miss_unit::BLOCK_NUM_BITS;
use super::ram::{TdpRam, RAM_ADDR_BITS};
use crate::config::Fpga;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LiveFilter {
    pub clock: Signal<In, Clock>,
    /// The command engine's write (port A, registered in the engine).
    pub live_we: Signal<In, Bit>,
    pub live_waddr: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub live_wdata: Signal<In, Bit>,
    /// Port A's read (pipe `2k`): the block at s0, its bit two edges later.
    pub a_raddr: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub a_rdata: Signal<Out, Bit>,
    /// Port B's read (pipe `2k + 1`).
    pub b_raddr: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub b_rdata: Signal<Out, Bit>,
    /// Words of 2 bits of which bit 0 is stored ([`TdpRam`] needs a word of more than one
    /// bit, as [`Ram`](super::ram::Ram)).
    ram: TdpRam<Bits<2>>,
    /// Port A's address: the write's when `live_we`, else pipe `2k`'s read.
    a_addr: Signal<Local, Bits<BLOCK_NUM_BITS>>,
    /// The unstored bit of each read word (the name tells the lint so).
    unused_bits: Signal<Local, Bit>,
}

impl LiveFilter {
    /// A copy for `blocks` blocks addressed by `block_num_bits` bits.
    pub fn new(block_num_bits: usize, fpga: Fpga) -> Self {
        LiveFilter {
            clock: Default::default(),
            live_we: Default::default(),
            live_waddr: Default::default(),
            live_wdata: Default::default(),
            a_raddr: Default::default(),
            a_rdata: Default::default(),
            b_raddr: Default::default(),
            b_rdata: Default::default(),
            ram: TdpRam::with_layout(1 << block_num_bits, block_num_bits.max(1), 1, fpga),
            a_addr: Default::default(),
            unused_bits: Default::default(),
        }
    }
}

impl Logic for LiveFilter {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.clock.next = self.clock.val();
        self.a_addr.next = self.a_raddr.val();
        if self.live_we.val() {
            self.a_addr.next = self.live_waddr.val();
        }
        self.ram.write_enable.next = self.live_we.val();
        self.ram.write_address.next = bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.a_addr.val());
        self.ram.write_data.next = bit_cast::<2, 1>(self.live_wdata.val().into());
        self.ram.read_address.next = bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.b_raddr.val());
        self.a_rdata.next = self.ram.a_read_data.val().get_bit(0);
        self.b_rdata.next = self.ram.read_data.val().get_bit(0);
        self.unused_bits.next =
            self.ram.a_read_data.val().get_bit(1) | self.ram.read_data.val().get_bit(1);
    }
}
