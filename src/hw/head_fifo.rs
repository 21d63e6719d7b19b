//! The head-registered kind of [`MemFifo`] ([`MemFifo::head_registered`]): a
//! first-word-fall-through FIFO whose head is read ahead into registers: the queues of every
//! [`StateCache`](super::state_cache::StateCache) and of the miss unit, whose heads decide
//! their pops at the same edge, and the response queue of a lookup pipe whose directory is in
//! memory, whose head decides the response handshake and the result queue's pop.
//!
//! It behaves as a plain [`MemFifo`] of the same depth, cycle for cycle
//! (same ports, same `out_valid`, `data_out` and `count` after every edge: a word pushed at
//! edge `t` is offered right after edge `t`), but `out_valid` and `data_out` come from
//! flip-flops (`data_out` through a 3-way multiplexer) and the memory array's read address
//! from a register: no path runs from the
//! array's read data through the consumer's pop back into the array's read address. With a
//! [`MemFifo`] deep or wide enough for block RAM, yosys reads the head through the block's
//! address register (the next read pointer, `rd_ptr + pop`), so on ECP5 the path went from a
//! DP16KD's read data (5.8 ns clock to out) through the consumer's decision into the same
//! DP16KD's read address.
//!
//! # How
//!
//! The words are held, in order, in an output buffer of [`HEAD_WORDS`] registers (`ob`, a
//! ring: the head in slot `rp`, the others after it), then at most one word being read from
//! the array (read at the edge before, on the array's read data now), then the array. At
//! each edge:
//! - the array is read at `rd_ptr` when it holds a word and the buffer and the read in flight
//!   hold fewer than [`HEAD_WORDS`] words (registers only: the pop does not enter);
//! - the buffer drops its head on a pop (`rp` moves on), then takes the word read (if one was
//!   in flight), then the word pushed if the array holds nothing and the buffer and the read
//!   in flight hold fewer than [`HEAD_WORDS`] words before the pop; otherwise the push goes
//!   to the array.
//!
//! So whenever the array holds a word, the buffer and the read in flight hold at least two
//! (a pop a cycle cannot empty the buffer before the next read lands), and the head is always
//! in the buffer when the FIFO is not empty.
//!
//! The slots are written without the pop or the push: every free slot (the buffer holds
//! `occ` words from `rp` on; the others) is loaded at every edge with the word that goes
//! there if one arrives, the word read into the first free slot and the word pushed into the
//! others, a choice made from registers (`rp`, `occ`, the read in flight). The pop and the
//! push, which come late in the consumer's cycle, drive `rp`, `occ` and the counts, a few
//! flip-flops, not the enables of every bit of the buffer: with the buffer shifting on a pop
//! (the head always in one register) the response handshake of `configs/in_memory.toml`'s
//! lookup pipe fanned out to the enables of its 3 x 88 bits, the longest path of the pipe
//! (7.86 ns on ECP5, seed 1). Cost: [`HEAD_WORDS`] words of flip-flops, a 2-way multiplexer
//! in front of each and a 3-way one after them (`data_out`, from registers).
//!
//! The array therefore never holds more than `depth - 2` words (the FIFO holds at most
//! `depth`), and the slot after its tail is always free: it is written at every edge, with
//! whatever `data_in` carries, and only the write pointer follows the push (as
//! [`MemFifo::write_ahead`] does). The push decision, which comes late in the consumer's
//! cycle, then drives the pointer and the buffer's few flip-flops, not the write enable of
//! every cell of a wide array (in a LUT RAM spread over many slices that route was the
//! longest path of `configs/in_memory.toml`'s response queue).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `in_valid`, `data_in` | in | push (no ready: every producer holds credit and never pushes into a full FIFO) |
//! | `out_valid`, `out_ready`, `data_out` | out/in/out | AXI-style pop; `out_valid` and `data_out` come from registers (`data_out` through the ring's multiplexer) |
//! | `count` | out | words held, `0..=depth` |
//!
//! `depth` is a power of two, 2..=512; `count` is [`FIFO_COUNT_BITS`] wide.

#[cfg(doc)]
use super::mem_fifo::MemFifo;
use super::mem_fifo::{sim_edge, FIFO_COUNT_BITS};
use rust_hdl::prelude::*;

/// Words of the output buffer.
pub const HEAD_WORDS: usize = 3;

/// The Verilog body of a head-registered FIFO of `depth` words of `width` bits, its array in
/// distributed RAM when `lut` (`ram_style = "distributed"`, as [`MemFifo::lut_ram`]).
pub(super) fn verilog(width: usize, depth: usize, lut: bool) -> String {
    let a = depth.trailing_zeros() as usize;
    format!(
        "\
{style}reg [{wm}:0] mem [0:{dm}];
reg [{am}:0] wr_ptr;
reg [{am}:0] rd_ptr;
// Words in the array (not yet read), in the output buffer, in all.
reg [{cm}:0] in_mem;
reg [1:0] occ;
reg [{cm}:0] fill;
// A word was read at the last edge: it is on rd_data now.
reg rd_busy;
reg [{wm}:0] rd_data;
// The output buffer, a ring of three slots: the head in slot rp, the occ words in order from
// it.
reg [1:0] rp;
reg [{wm}:0] ob0;
reg [{wm}:0] ob1;
reg [{wm}:0] ob2;
// Initial values, as in MemFifo (simulation only): the outputs before the first reset edge
// are the same in an event-driven simulator and in Verilator.
`ifndef SYNTHESIS
integer init_i;
initial begin
   wr_ptr = {ab}'d0;
   rd_ptr = {ab}'d0;
   in_mem = {cb}'d0;
   occ = 2'd0;
   fill = {cb}'d0;
   rd_busy = 1'b0;
   rd_data = {wb}'d0;
   rp = 2'd0;
   ob0 = {wb}'d0;
   ob1 = {wb}'d0;
   ob2 = {wb}'d0;
   for (init_i = 0; init_i <= {dm}; init_i = init_i + 1) mem[init_i] = {wb}'d0;
end
`endif
wire pop = (occ != 2'd0) & out_ready;
// From registers only.
wire [2:0] ahead = {{1'b0, occ}} + {{2'b0, rd_busy}};
wire rd_go = (in_mem != {cb}'d0) & (ahead < 3'd{hw});
wire bypass = in_valid & (in_mem == {cb}'d0) & (ahead < 3'd{hw});
wire to_mem = in_valid & ~bypass;
// The buffer after the pop, then the word read, then the word pushed.
wire [1:0] kept = occ - {{1'b0, pop}};
wire [1:0] at_push = kept + {{1'b0, rd_busy}};
// Each slot's place in the ring from the head (0: the head), from registers only. The slots
// at or after occ are free: each of them is loaded at every edge with the word that goes
// there if one arrives (the word read into the first free slot, else the word pushed), so
// neither the pop nor the push reaches the slots' enables or multiplexers.
wire [1:0] d0 = (rp == 2'd0) ? 2'd0 : ((rp == 2'd1) ? 2'd2 : 2'd1);
wire [1:0] d1 = (rp == 2'd0) ? 2'd1 : ((rp == 2'd1) ? 2'd0 : 2'd2);
wire [1:0] d2 = (rp == 2'd0) ? 2'd2 : ((rp == 2'd1) ? 2'd1 : 2'd0);

always @(posedge clock) begin
   // Written at every edge (the array never holds more than depth - 2 words, so the slot at
   // wr_ptr is free); only wr_ptr follows the push.
   mem[wr_ptr] <= data_in;
   if (rd_go) begin
      rd_data <= mem[rd_ptr];
   end
end

always @(posedge clock) begin
   if (d0 >= occ) ob0 <= (rd_busy && d0 == occ) ? rd_data : data_in;
   if (d1 >= occ) ob1 <= (rd_busy && d1 == occ) ? rd_data : data_in;
   if (d2 >= occ) ob2 <= (rd_busy && d2 == occ) ? rd_data : data_in;
   if (rst) begin
      wr_ptr <= {ab}'d0;
      rd_ptr <= {ab}'d0;
      in_mem <= {cb}'d0;
      occ <= 2'd0;
      fill <= {cb}'d0;
      rd_busy <= 1'b0;
      rp <= 2'd0;
   end else begin
      if (to_mem) wr_ptr <= wr_ptr + {ab}'d1;
      if (rd_go) rd_ptr <= rd_ptr + {ab}'d1;
      if (to_mem & ~rd_go) in_mem <= in_mem + {cb}'d1;
      if (~to_mem & rd_go) in_mem <= in_mem - {cb}'d1;
      rd_busy <= rd_go;
      if (pop) rp <= (rp == 2'd2) ? 2'd0 : rp + 2'd1;
      occ <= at_push + {{1'b0, bypass}};
      if (in_valid & ~pop) fill <= fill + {cb}'d1;
      if (~in_valid & pop) fill <= fill - {cb}'d1;
   end
end

always @(*) out_valid = occ != 2'd0;
always @(*) data_out = (rp == 2'd0) ? ob0 : ((rp == 2'd1) ? ob1 : ob2);
always @(*) count = fill;

`ifndef SYNTHESIS
// Simulation only: a push into a full FIFO stops the simulation (every producer holds credit,
// so it is a design error).
always @(posedge clock) begin
   if (!rst && in_valid && !pop && fill == {cb}'d{depth}) begin
      $display(\"ERROR: %m: push into a full FIFO of {depth} words\");
      $fatal(1);
   end
end
`endif
",
        style = if lut {
            "(* ram_style = \"distributed\" *)\n"
        } else {
            ""
        },
        wm = width - 1,
        wb = width,
        dm = depth - 1,
        am = a - 1,
        ab = a,
        cm = FIFO_COUNT_BITS - 1,
        cb = FIFO_COUNT_BITS,
        depth = depth,
        hw = HEAD_WORDS,
    )
}

/// A head-registered FIFO ([`MemFifo::head_registered`] in distributed RAM,
/// [`MemFifo::lut_ram`]) that also shows the word after its head, from registers: the state
/// cache's slot queue, whose second word lets the miss unit register the filled flags of both
/// (the head's decision then starts from flip-flops, see
/// [`StateCache`](super::state_cache::StateCache)).
///
/// Its ports are [`MemFifo`]'s and:
///
/// | port | dir | meaning |
/// |---|---|---|
/// | `next_valid` | out | the FIFO holds two words or more (`count >= 2`) |
/// | `data_next` | out | the word after the head when `next_valid` (else undefined) |
///
/// Where the second word is: in the output buffer's slot after the head when the buffer holds
/// two words or more, else on the array's read register (`rd_data`). The buffer and the read
/// in flight hold at least two words whenever the array holds one (module documentation), so a
/// FIFO of two words or more with one word in the buffer has a read in flight, and that read
/// is the second word; while the queue drains at one word a cycle this is the usual case (one
/// word in the buffer, the next on `rd_data`).
#[derive(LogicBlock, Default)]
pub struct PeekFifo<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub data_in: Signal<In, T>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub data_out: Signal<Out, T>,
    pub count: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    pub next_valid: Signal<Out, Bit>,
    pub data_next: Signal<Out, T>,
    _depth: usize,
    _sim: std::collections::VecDeque<T>,
}

impl<T: Synth> PeekFifo<T> {
    /// A FIFO of `depth` words (a power of two, 2..=512).
    pub fn new(depth: usize) -> Self {
        assert!(depth.is_power_of_two() && (2..=512).contains(&depth));
        Self {
            _depth: depth,
            ..Default::default()
        }
    }
}

impl<T: Synth> Logic for PeekFifo<T> {
    fn update(&mut self) {
        // rust-hdl's own simulator (not used by the testbenches, which run Verilator).
        if self.clock.pos_edge() {
            sim_edge(
                &mut self._sim,
                self.rst.val(),
                self.out_ready.val(),
                self.in_valid.val().then(|| self.data_in.val()),
            );
        }
        self.out_valid.next = !self._sim.is_empty();
        self.data_out.next = self._sim.front().copied().unwrap_or_default();
        self.count.next = (self._sim.len() as u64).into();
        self.next_valid.next = self._sim.len() >= 2;
        self.data_next.next = self._sim.get(1).copied().unwrap_or_default();
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.data_out.connect();
        self.count.connect();
        self.next_valid.connect();
        self.data_next.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{}
// The word after the head: the buffer's slot after the head, or the read in flight.
always @(*) next_valid = fill >= {cb}'d2;
always @(*) data_next = (occ >= 2'd2) ? ((rp == 2'd0) ? ob1 : ((rp == 2'd1) ? ob2 : ob0)) : rd_data;
",
            verilog(T::BITS, self._depth, true),
            cb = FIFO_COUNT_BITS
        ))
    }
}
