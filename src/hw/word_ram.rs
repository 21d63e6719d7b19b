//! `WordRam`: a RAM of `W`-bit words: the levels of the [`FreeMap`](super::free_map::FreeMap)
//! (64-bit words) and the quarantine queue of the [`CmdEngine`](super::cmd_engine::CmdEngine).
//!
//! Same structure and read-first timing as [`StateRam`](super::state_ram::StateRam): one
//! synchronous read port, one write port, one clock; the ports are declared at the widest
//! word address any level needs and the emitted memory uses only the bits its depth needs.

use super::state_ram::ram_verilog;
use super::QPN_BITS;
use rust_hdl::prelude::*;

/// Widest word address of a free map level: 2^24 indexes / 64 bits per word.
pub const WORD_ADDR_BITS: usize = QPN_BITS - 6;
/// Width of the address ports (the deepest RAM: a two-level directory of 2^23 entries).
pub const RAM_ADDR_BITS: usize = QPN_BITS;

#[derive(LogicBlock, Default)]
pub struct WordRam<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub write_data: Signal<In, Bits<W>>,
    _depth: usize,
    _sim: Vec<Bits<W>>,
}

impl<const W: usize> WordRam<W> {
    pub fn new(depth: usize) -> Self {
        assert!((1..=1 << RAM_ADDR_BITS).contains(&depth));
        Self {
            _depth: depth,
            _sim: vec![Bits::<W>::default(); depth],
            ..Default::default()
        }
    }

    fn address_bits(&self) -> usize {
        (usize::BITS - (self._depth - 1).leading_zeros()).max(1) as usize
    }
}

impl<const W: usize> Logic for WordRam<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let index = self.read_address.val().index();
            self.read_data.next = self._sim.get(index).copied().unwrap_or_default();
            if self.write_enable.val() {
                let index = self.write_address.val().index();
                if let Some(w) = self._sim.get_mut(index) {
                    *w = self.write_data.val();
                }
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(ram_verilog(
            self._depth,
            self.address_bits(),
            RAM_ADDR_BITS,
            W,
            W,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "word_ram_read".into(),
            clock: "clock".into(),
            inputs: vec!["read_address".into()],
            outputs: vec!["read_data".into()],
        }]
    }
}
