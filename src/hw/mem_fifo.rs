//! `MemFifo<T>`: a first-word-fall-through FIFO of `depth` words of type `T`: the response
//! queue of every [`LookupPipe`](super::lookup_pipe::LookupPipe) (depth 4), and the
//! in_memory directory path (the pipe's queues and [`DirFetch`](super::dir_fetch::DirFetch)),
//! where the queues must be as deep as the memory latency (up to 512 entries).
//!
//! Like the [`Ram`](super::ram::Ram) it is a memory primitive written as
//! Verilog: a memory array with a combinational read of the head (a LUT/distributed RAM), so a
//! word pushed at edge `t` is offered (`out_valid`, `data_out`) right after edge `t`.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `in_valid`, `data_in` | in | push (no ready: every producer holds credit and never pushes into a full FIFO) |
//! | `out_valid`, `out_ready`, `data_out` | out/in/out | AXI-style pop; `out_valid` comes from a register |
//! | `count` | out | words held, `0..=depth` |
//!
//! `depth` is a power of two, 2..=512; `count` is [`FIFO_COUNT_BITS`] wide.

use rust_hdl::prelude::*;

/// Width of `count` (up to 512 words).
pub const FIFO_COUNT_BITS: usize = 10;

#[derive(LogicBlock, Default)]
pub struct MemFifo<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub data_in: Signal<In, T>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub data_out: Signal<Out, T>,
    pub count: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    _depth: usize,
    /// See [`MemFifo::write_while_not_full`].
    _eager: bool,
    _sim: std::collections::VecDeque<T>,
}

impl<T: Synth> MemFifo<T> {
    pub fn new(depth: usize) -> Self {
        assert!(depth.is_power_of_two() && (2..=512).contains(&depth));
        Self {
            _depth: depth,
            ..Default::default()
        }
    }

    /// A FIFO whose producer never pushes while it is full, not even at an edge where it
    /// pops (the pipe's response queue: its credit counts every lookup in flight). The word
    /// at the write pointer lies outside the FIFO unless it is full, so it is written at every
    /// edge but then, pushed or not: the write enable comes straight from a flip-flop, not
    /// from the push (whose logic would fan out to every LUT RAM of a wide word). Simulation
    /// stops on a push while full.
    pub fn write_while_not_full(depth: usize) -> Self {
        Self {
            _eager: true,
            ..Self::new(depth)
        }
    }

    fn address_bits(&self) -> usize {
        self._depth.trailing_zeros() as usize
    }
}

impl<T: Synth> Logic for MemFifo<T> {
    fn update(&mut self) {
        // rust-hdl's own simulator (not used by the testbenches, which run Verilator).
        if self.clock.pos_edge() {
            if self.rst.val() {
                self._sim.clear();
            } else {
                if self.out_ready.val() && !self._sim.is_empty() {
                    self._sim.pop_front();
                }
                if self.in_valid.val() {
                    self._sim.push_back(self.data_in.val());
                }
            }
        }
        self.out_valid.next = !self._sim.is_empty();
        self.data_out.next = self._sim.front().copied().unwrap_or_default();
        self.count.next = (self._sim.len() as u64).into();
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.data_out.connect();
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        let a = self.address_bits();
        Verilog::Custom(format!(
            "\
reg [{wm}:0] mem [0:{dm}];
reg [{am}:0] wr_ptr;
reg [{am}:0] rd_ptr;
reg [{cm}:0] fill;
// `fill != 0`, in its own flip-flop: `out_valid` and the pop come from a register.
reg nonempty;
// Initial values, in an initial block as rust-hdl gives its DFFs (and as Verilator starts
// every variable): an event-driven simulator shows the same outputs as Verilator before the
// first reset edge, and a head never written reads 0, not X. (Not declaration initializers:
// under -g2012 those make no event, and the `always @(*)` blocks below would never run.)
// Simulation only: yosys defines SYNTHESIS, and initial values change what it maps.
`ifndef SYNTHESIS
integer init_i;
initial begin
   wr_ptr = {ab}'d0;
   rd_ptr = {ab}'d0;
   fill = {cb}'d0;
   nonempty = 1'b0;
   for (init_i = 0; init_i <= {dm}; init_i = init_i + 1) mem[init_i] = {wb}'d0;
end
`endif
wire pop = nonempty & out_ready;
wire [{wm}:0] head = mem[rd_ptr];

always @(posedge clock) begin
   if ({we}) begin
      mem[wr_ptr] <= data_in;
   end
   if (rst) begin
      wr_ptr <= {ab}'d0;
      rd_ptr <= {ab}'d0;
      fill <= {cb}'d0;
      nonempty <= 1'b0;
   end else begin
      nonempty <= in_valid | (fill > {cb}'d1) | (nonempty & ~pop);
      if (in_valid) wr_ptr <= wr_ptr + {ab}'d1;
      if (pop) rd_ptr <= rd_ptr + {ab}'d1;
      if (in_valid & ~pop) fill <= fill + {cb}'d1;
      if (~in_valid & pop) fill <= fill - {cb}'d1;
   end
end

always @(*) out_valid = nonempty;
always @(*) data_out = head;
always @(*) count = fill;

`ifndef SYNTHESIS
// Simulation only: a push into a full FIFO stops the simulation (every producer holds credit,
// so it is a design error): without a pop at the same edge, or, when the FIFO writes its
// free word at every edge, with one.
always @(posedge clock) begin
   if (!rst && in_valid && {full_pop} && fill == {cb}'d{depth}) begin
      $display(\"ERROR: %m: push into a full FIFO of {depth} words\");
      $fatal(1);
   end
end
`endif
",
            wm = T::BITS - 1,
            wb = T::BITS,
            dm = self._depth - 1,
            am = a - 1,
            ab = a,
            cm = FIFO_COUNT_BITS - 1,
            cb = FIFO_COUNT_BITS,
            depth = self._depth,
            // `fill` reaches `depth` only when full: its bit `a` is set then.
            we = if self._eager {
                format!("~fill[{a}]")
            } else {
                "in_valid".to_string()
            },
            full_pop = if self._eager { "1'b1" } else { "!pop" },
        ))
    }
}
