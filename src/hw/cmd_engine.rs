//! `CmdEngine`: the init sweep and the commands of SPEC §6, one at a time.
//!
//! It owns one copy of the state RAM (read for its read-modify-writes) and drives the write
//! port of every copy, so all lookup pipes see a write at the same edge. The write port is
//! registered (`we_q`, `waddr_q`, `wdata_q`): a write decided in a cycle lands in every copy
//! at the edge after the next, so the path from the engine's RAM word through its checks
//! ends at a register, not at the write enables of every block RAM of every copy. With
//! [`EngineParams::state_write_registered`] (`late_write`: directory in memory, a state RAM
//! of several rows of block RAMs) every block registers the write once more
//! ([`Ram::write_registered`]) and the write lands one edge later still: `Done` and
//! `FreeSnap` then last two cycles and `init_done` rises one edge later, so a command's result
//! and FREE's drain count still come after its write has landed. There the engine's own copy
//! also registers its read address once more, at its blocks (`late_read`), and its word
//! after the row multiplexer and, with more than two rows, in its middle (`read_more`)
//! ([`EngineParams::engine_state_ram`]): `Hold` and `AllocHold` last one cycle more per
//! such register (3 cycles at index_bits 15, 4 above).
//!
//! | state | cycles | what happens |
//! |---|---|---|
//! | `Init` | `max_qps` | writes `{FREE, generation 0}` to every index, then raises `init_done` |
//! | `Idle` | | waits for `cmd_valid` (held by the register block until `cmd_done`) and decodes it |
//! | `Read`, `Hold`, `Check` | 3 (+ 1 with `late_read`, + 1 per `read_more`) | ALLOC_AT, PUBLISH, FREE: the index's word (read from the edge that takes the command on, registered twice: the RAM's output register, then `entry_r`), its state and generation checks registered in `Hold` (`check_pass_q`), the new word written in `Check` |
//! | `AllocFind` | FIND | ALLOC: the [`FreeMap`] finds the first available index from the policy's start (cyclic: after the last ALLOC, wrapping to `first_index`; lowest: `first_index`), or FULL |
//! | `AllocRead`, `AllocHold`, `AllocLatch`, `AllocWrite` | 4 (+ 1 with `late_read`, + 1 per `read_more`) | ALLOC: read the index's generation (registered twice), write `{RESERVED, generation + 1}`, CLEAR it in the free map |
//! | `AtTest` | TEST | ALLOC_AT: the index must also be available in the free map (FREE and not quarantined) |
//! | `MapWait` | CLEAR | waits for the free map |
//! | `FreeSnap` | 1 (2 with `late_write`) | FREE: the edge at which the registered write of FREE lands; the drain is counted at it |
//! | `DrainSnap` | 1 | FREE: the [`Drain`](super::drain::Drain) counts, at the edge that ends this cycle, the lookups in flight after the edge that wrote FREE |
//! | `Drain` | until done | FREE: waits until every lookup accepted at or before the edge that wrote FREE has had its response handshake, on every port |
//! | `Release` | SET | FREE: the index goes back to the free map; FREE_OK and IN_USE count here |
//! | `Done` | 1 (2 with `late_write`) | publishes the result (`cmd_done`), back to `Idle` |
//!
//! The drain: at the edge that writes FREE, each port's lookups in flight after that edge are
//! counted; responses leave in order, so the first that many responses of each port are
//! exactly the lookups that may have seen the old state. The count
//! ([`Drain`](super::drain::Drain): `drain_snap`, `drained`) and the counters of SPEC §6
//! ([`CmdCounters`](super::cmd_counters::CmdCounters): `events`, `quarantined`) sit beside
//! the engine at the top level, the quarantine queue ([`Quarantine`]) inside it: the same
//! blocks as with [`MemCmdEngine`](super::mem_cmd::MemCmdEngine). Their doc comments give
//! their timing.
//!
//! Assumption (not checked in hardware): the register block presents one command at a time
//! and holds `cmd_valid` until `cmd_done`.
//!
//! ALLOC, ALLOC_AT and FREE (drain excluded) take a number of cycles bounded by the free
//! map's levels, whatever the occupancy: see [`FreeMap`]. The free map takes each operation
//! one edge after the engine decides it (`map_*_q`): no path runs from the engine's checks
//! into the map's registers.

use super::cmd_counters::CmdEvents;
use super::codes::{CmdCodes, MapOps, OpCodes, StateCodes};
use super::free_map::FreeMap;
use super::quarantine::{Quarantine, COUNT_BITS};
use super::ram::Ram;
use super::{EngineParams, StateEntry, GEN_BITS_MAX, QPN_BITS, TIME_BITS};

use super::defaults;
use crate::config::Reuse;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum EngState {
    Init,
    Idle,
    Start,
    QRelease,
    Decode,
    Read,
    Hold,
    Check,
    AllocFind,
    AllocRead,
    AllocHold,
    AllocLatch,
    AllocWrite,
    AtTest,
    MapWait,
    FreeSnap,
    DrainSnap,
    Drain,
    Release,
    Overflow,
    Push,
    Done,
}

#[derive(LogicBlock)]
pub struct CmdEngine {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// A command is waiting (level, held until `cmd_done`).
    pub cmd_valid: Signal<In, Bit>,
    /// The command: `CMD[31:28]` and `CMD[23:0]`.
    pub cmd_op: Signal<In, Bits<4>>,
    pub cmd_qpn: Signal<In, Bits<QPN_BITS>>,
    /// The edge count at the command's CMD write handshake (quarantine time).
    pub cmd_time: Signal<In, Bits<TIME_BITS>>,
    /// One-cycle pulse: the command has finished; `result_*` hold its result from the next edge.
    pub cmd_done: Signal<Out, Bit>,
    pub result_status: Signal<Out, Bits<4>>,
    pub result_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub init_done: Signal<Out, Bit>,
    // Write port of every copy of the state RAM.
    pub ram_we: Signal<Out, Bit>,
    pub ram_waddr: Signal<Out, Bits<QPN_BITS>>,
    pub ram_wdata: Signal<Out, StateEntry>,
    /// The FREE drain ([`Drain`](super::drain::Drain), beside the engine): count the lookups
    /// in flight at this edge; every lookup it counted has been answered.
    pub drain_snap: Signal<Out, Bit>,
    pub drained: Signal<In, Bit>,
    /// What happened, for the counters of SPEC §6
    /// ([`CmdCounters`](super::cmd_counters::CmdCounters), beside the engine), and the
    /// quarantine's count (QUARANTINED).
    pub events: Signal<Out, CmdEvents>,
    pub quarantined: Signal<Out, Bits<COUNT_BITS>>,
    ram: Ram<StateEntry>,
    /// The quarantine queue (a block both command engines use).
    quar: Quarantine,
    time_q: DFF<Bits<TIME_BITS>>,
    /// The state RAM word, registered once more after the RAM's output register (the block
    /// RAM is placed far from the engine's logic: the route is the whole of that cycle).
    entry_r: DFF<StateEntry>,
    /// The state word, from `entry_r`.
    entry_q: Signal<Local, StateEntry>,
    q_on: Constant<Bit>,
    map: FreeMap,
    state: DFF<EngState>,
    cursor: DFF<Bits<QPN_BITS>>,
    next_alloc: DFF<Bits<QPN_BITS>>,
    op: DFF<Bits<4>>,
    qpn: DFF<Bits<QPN_BITS>>,
    pending_status: DFF<Bits<4>>,
    pending_qpn: DFF<Bits<QPN_BITS>>,
    status_q: DFF<Bits<4>>,
    qpn_q: DFF<Bits<QPN_BITS>>,
    init_done_q: DFF<Bit>,
    /// Every copy's write port is registered once more in the RAM ([`Ram::write_registered`],
    /// [`EngineParams::state_write_registered`]): a write lands one edge later, so `Done` and
    /// `FreeSnap` last two cycles (`land_wait` marks the first) and `init_done` rises one
    /// edge after `Idle` is reached (`was_idle`).
    late_write: Constant<Bit>,
    land_wait: DFF<Bit>,
    /// The command's registered write has landed by the end of this cycle in `Done` and
    /// `FreeSnap`: always, or with `late_write` in their second cycle (`land_wait`).
    landed: Signal<Local, Bit>,
    was_idle: DFF<Bit>,
    /// The engine's copy registers its read address once more, at its blocks
    /// ([`EngineParams::engine_state_ram`]): its words come one edge later, so `Hold` and
    /// `AllocHold` last two cycles (`read_hold_q`, set by the edge that enters them, marks
    /// the first).
    late_read: Constant<Bit>,
    read_hold_q: DFF<Bit>,
    /// Each more edge of the engine copy's latency (its row registers,
    /// [`EngineParams::engine_state_ram`]): one more cycle of `Hold` and `AllocHold`, marked
    /// by a flip-flop that follows `read_hold_q` (`read_more1`) and the one before
    /// (`read_more2`). Each is present (one flip-flop) or not (none): without them the
    /// Verilog has no trace of them.
    read_more1: Vec<DFF<Bit>>,
    read_more2: Vec<DFF<Bit>>,
    _more1: usize,
    _more2: usize,
    /// The write port of every copy of the state RAM, registered.
    we_q: DFF<Bit>,
    waddr_q: DFF<Bits<QPN_BITS>>,
    wdata_q: DFF<StateEntry>,
    /// The counters' pulses ([`CmdCounters`], which registers them): an index reserved, a
    /// FREE completed, a failed command, a FULL, a quarantine overflow. Each is raised at
    /// the latest in the cycle that enters `Done`.
    ev: Signal<Local, CmdEvents>,
    /// The quarantine's push and pop.
    q_push: Signal<Local, Bit>,
    q_pop: Signal<Local, Bit>,
    index: Signal<Local, Bits<QPN_BITS>>,
    gen: Signal<Local, Bits<QPN_BITS>>,
    word_gen: Signal<Local, Bits<QPN_BITS>>,
    new_gen: Signal<Local, Bits<QPN_BITS>>,
    cursor_next: Signal<Local, Bits<QPN_BITS>>,
    check_pass: Signal<Local, Bit>,
    check_pass_q: DFF<Bit>,
    /// `check_pass` and the command is ALLOC_AT (next: `AtTest`) or FREE (next:
    /// `FreeSnap`), registered with `check_pass_q`.
    pass_at_q: DFF<Bit>,
    pass_free_q: DFF<Bit>,
    /// Decodes of the command, registered (valid from `Decode` on: `op` is set at the edge
    /// that enters `Start`): the decisions of `Decode` and `Check` read flip-flops.
    op_alloc_r: DFF<Bit>,
    op_alloc_at_r: DFF<Bit>,
    op_publish_r: DFF<Bit>,
    op_free_r: DFF<Bit>,
    op_flush_r: DFF<Bit>,
    op_bad_r: DFF<Bit>,
    /// In `Init`: the cursor is at the last index (registered one edge ahead of it).
    init_last_r: DFF<Bit>,
    /// The state the `match` chooses; `state` takes it unless `hold`. The states that wait
    /// (for the sweep's end, a command, the free map, the drain, a late write) choose their
    /// next state unconditionally and wait through `hold`, which reads flip-flops kept next
    /// to `state` instead of decoding it: the state register's enable is a few gates.
    nxt: Signal<Local, EngState>,
    hold: Signal<Local, Bit>,
    /// `Idle` takes the command.
    start: Signal<Local, Bit>,
    /// In `Init`; in `Idle`; in `Drain`.
    init_q: DFF<Bit>,
    idle_q: DFF<Bit>,
    drain_q: DFF<Bit>,
    /// Waiting for the free map: set with every operation sent to it (each sends the engine
    /// into a state that waits for `done`: `QRelease`, `AllocFind`, `AtTest`, `MapWait`,
    /// `Overflow`, `Release`), cleared by `done` unless another is sent with it.
    wait_q: DFF<Bit>,
    // What leaves the block is computed in these locals and assigned once at the end of
    // `update`: a port written twice in one evaluation pulses in an event-driven simulator.
    we: Signal<Local, Bit>,
    waddr: Signal<Local, Bits<QPN_BITS>>,
    wdata: Signal<Local, StateEntry>,
    map_op_valid: Signal<Local, Bit>,
    map_cmd: Signal<Local, Bits<2>>,
    map_op_index: Signal<Local, Bits<QPN_BITS>>,
    /// The operation for the free map, registered: the map takes it one edge after the
    /// engine decides it, so no path runs from the engine's checks (drain counters, RAM
    /// word, map result) into the map's registers.
    map_valid_q: DFF<Bit>,
    map_cmd_q: DFF<Bits<2>>,
    map_index_q: DFF<Bits<QPN_BITS>>,
    index_mask: Constant<Bits<QPN_BITS>>,
    index_bits: Constant<Bits<5>>,
    gen_mask: Constant<Bits<QPN_BITS>>,
    max_qps: Constant<Bits<25>>,
    last_index: Constant<Bits<QPN_BITS>>,
    /// `max_qps - 2` (all ones when `max_qps` is 1: never reached in the sweep).
    last_index_m1: Constant<Bits<QPN_BITS>>,
    first_index: Constant<Bits<QPN_BITS>>,
    reuse_lowest: Constant<Bit>,
    st: StateCodes,
    ops: OpCodes,
    res: CmdCodes,
    map_op: MapOps,
}

impl CmdEngine {
    pub fn new(p: &EngineParams) -> Self {
        // Built once (its simulation array holds `max_qps` words); the flags read it.
        let ram = p.engine_state_ram();
        // Edges of the engine copy's latency beyond its output register's.
        let extra = ram.latency() - 2;
        assert!(
            extra <= 3,
            "read_hold_q, read_more1 and read_more2 wait 3 edges at most"
        );
        let late_read = extra >= 1;
        let (more1, more2) = (usize::from(extra >= 2), usize::from(extra >= 3));
        let late_write = ram.write_latency() == 2;
        block_new!(
            [
                clock, rst, cmd_valid, cmd_op, cmd_qpn, cmd_time, cmd_done, result_status,
                result_qpn, init_done, ram_we, ram_waddr, ram_wdata, drain_snap, drained,
                quarantined, events, ev, time_q,
                entry_r, entry_q, state, cursor, next_alloc, op, qpn, pending_status, pending_qpn,
                status_q, qpn_q, init_done_q, land_wait, landed, was_idle, read_hold_q, we_q,
                waddr_q, wdata_q, q_push, q_pop, index,
                gen, word_gen, new_gen, cursor_next, check_pass, check_pass_q, pass_at_q, pass_free_q, op_alloc_r,
                op_alloc_at_r, op_publish_r, op_free_r, op_flush_r, op_bad_r, init_last_r, nxt,
                hold, start, init_q, idle_q, drain_q, wait_q, we, waddr, wdata, map_op_valid,
                map_cmd, map_op_index, map_valid_q, map_cmd_q, map_index_q, st, ops, res, map_op,
            ]
            ram: ram,
            late_read: Constant::new(late_read),
            late_write: Constant::new(late_write),
            read_more1: defaults(more1),
            read_more2: defaults(more2),
            _more1: more1,
            _more2: more2,
            quar: Quarantine::new(p),
            q_on: Constant::new(p.quarantine_cycles > 0),
            map: FreeMap::new(p),
            index_mask: Constant::new(p.index_mask().into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            gen_mask: Constant::new(p.gen_mask().into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            last_index: Constant::new(u64::from(p.max_qps - 1).into()),
            last_index_m1: Constant::new(
                (u64::from(p.max_qps).wrapping_sub(2) & ((1u64 << QPN_BITS) - 1)).into(),
            ),
            first_index: Constant::new(u64::from(p.first_index).into()),
            reuse_lowest: Constant::new(p.reuse == Reuse::Lowest),
        )
    }
}

impl Logic for CmdEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            cursor,
            next_alloc,
            op,
            qpn,
            pending_status,
            pending_qpn,
            status_q,
            qpn_q,
            init_done_q,
            land_wait,
            was_idle,
            read_hold_q,
            we_q,
            waddr_q,
            wdata_q,
            time_q,
            map_valid_q,
            map_cmd_q,
            map_index_q,
            entry_r,
            check_pass_q,
            pass_at_q,
            pass_free_q,
            op_alloc_r,
            op_alloc_at_r,
            op_publish_r,
            op_free_r,
            op_flush_r,
            op_bad_r,
            init_last_r,
            init_q,
            idle_q,
            drain_q,
            wait_q
        );
        self.ev.next.reserved = false;
        self.ev.next.freed = false;
        self.ev.next.error = false;
        self.ev.next.full = false;
        self.ev.next.overflow = false;
        self.q_push.next = false;
        self.q_pop.next = false;
        self.quarantined.next = self.quar.count.val();
        // The lookups in flight after the edge that wrote FREE (`FreeSnap`'s last).
        self.drain_snap.next = self.state.q.val() == EngState::DrainSnap;
        // The RAM words, registered in the RAMs' output registers (and the state word once
        // more): every decision reads a register, never a block RAM's array.
        self.entry_r.d.next = self.ram.read_data.val();
        self.entry_q.next = self.entry_r.q.val();
        // Fields of the command and of the RAM word.
        self.index.next = self.qpn.q.val() & self.index_mask.val();
        self.gen.next = self.qpn.q.val() >> self.index_bits.val();
        self.word_gen.next = bit_cast::<QPN_BITS, GEN_BITS_MAX>(self.entry_q.val().gen);
        self.new_gen.next = (self.word_gen.val() + 1) & self.gen_mask.val();
        self.ram.clock.next = self.clock.val();
        self.ram.read_address.next = self.cursor.q.val();
        // Every copy of the state RAM is written from here.
        self.we.next = false;
        self.waddr.next = self.cursor.q.val();
        self.wdata.next.state = self.st.free.val();
        self.wdata.next.gen = 0.into();
        self.landed.next = !self.late_write.val() | self.land_wait.q.val();
        self.cmd_done.next = (self.state.q.val() == EngState::Done) & self.landed.val();
        self.land_wait.d.next = false;
        self.was_idle.d.next = self.state.q.val() == EngState::Idle;
        // A flip-flop of its own (every lookup pipe's request ready reads it).
        self.init_done.next = self.init_done_q.q.val();
        self.result_status.next = self.status_q.q.val();
        self.result_qpn.next = self.qpn_q.q.val();
        // The quarantine: the head is consulted several cycles after any pop or push, when
        // its registered read has caught up.
        self.quar.clock.next = self.clock.val();
        self.quar.rst.next = self.rst.val();
        self.quar.now.next = self.time_q.q.val();
        self.quar.push_index.next = self.index.val();

        self.cursor_next.next = self.cursor.q.val() + 1;
        if self.cursor.q.val() == self.last_index.val() {
            self.cursor_next.next = self.first_index.val();
        }
        self.map.clock.next = self.clock.val();
        self.map.rst.next = self.rst.val();
        self.map_op_valid.next = false;
        self.map_cmd.next = self.map_op.find.val();
        self.map_op_index.next = self.index.val();
        self.map.op_wrap.next = !self.reuse_lowest.val();
        // The checks of ALLOC_AT, PUBLISH and FREE, every cycle, registered: `entry_r` holds
        // the index's word from `Hold` on, so `check_pass_q` is valid in `Check`.
        self.check_pass.next = false;
        if self.op.q.val() == self.ops.alloc_at.val() {
            self.check_pass.next = self.entry_q.val().state == self.st.free.val();
        }
        if self.op.q.val() == self.ops.publish.val() {
            self.check_pass.next = (self.entry_q.val().state == self.st.reserved.val())
                & (self.word_gen.val() == self.gen.val());
        }
        if self.op.q.val() == self.ops.free.val() {
            self.check_pass.next = (self.entry_q.val().state != self.st.free.val())
                & (self.word_gen.val() == self.gen.val());
        }
        self.check_pass_q.d.next = self.check_pass.val();
        self.pass_at_q.d.next =
            self.check_pass.val() & (self.op.q.val() == self.ops.alloc_at.val());
        self.pass_free_q.d.next = self.check_pass.val() & (self.op.q.val() == self.ops.free.val());
        self.op_alloc_r.d.next = self.op.q.val() == self.ops.alloc.val();
        self.op_alloc_at_r.d.next = self.op.q.val() == self.ops.alloc_at.val();
        self.op_publish_r.d.next = self.op.q.val() == self.ops.publish.val();
        self.op_free_r.d.next = self.op.q.val() == self.ops.free.val();
        self.op_flush_r.d.next = self.op.q.val() == self.ops.dir_flush.val();
        self.op_bad_r.d.next =
            (self.op.q.val() < self.ops.alloc.val()) | (self.op.q.val() > self.ops.last.val());
        self.init_last_r.d.next = self.cursor.q.val() == self.last_index_m1.val();

        self.start.next = self.cmd_valid.val()
            & self.map.init_done.val()
            & (!self.late_write.val() | self.init_done_q.q.val());
        self.nxt.next = EngState::Idle;
        match self.state.q.val() {
            EngState::Init => {
                self.we.next = true;
                self.cursor.d.next = self.cursor.q.val() + 1;
                self.nxt.next = EngState::Idle;
            }
            EngState::Idle => {
                // The last write of the sweep has landed (the write port is registered; once
                // more with `late_write`, one cycle of Idle later); the free map's sweep
                // (shorter) is over too.
                self.init_done_q.d.next =
                    self.map.init_done.val() & (!self.late_write.val() | self.was_idle.q.val());
                self.nxt.next = EngState::Start;
                if self.start.val() {
                    self.op.d.next = self.cmd_op.val();
                    self.qpn.d.next = self.cmd_qpn.val();
                    // The index's word is read from here on (through Start and Decode), so
                    // that it is in `entry_r` by `Check`.
                    self.cursor.d.next = self.cmd_qpn.val() & self.index_mask.val();
                    self.time_q.d.next = self.cmd_time.val();
                }
            }
            EngState::Start => {
                // Before any command: the oldest quarantined index goes back to the free map
                // if its time is over (one per command keeps every command bounded).
                self.nxt.next = EngState::Decode;
                if self.quar.due.val() {
                    self.map_op_valid.next = true;
                    self.map_cmd.next = self.map_op.set.val();
                    self.map_op_index.next = self.quar.head_index.val();
                    self.q_pop.next = true;
                    self.nxt.next = EngState::QRelease;
                }
            }
            EngState::QRelease => {
                self.nxt.next = EngState::Decode;
            }
            EngState::Decode => {
                self.cursor.d.next = self.qpn.q.val() & self.index_mask.val();
                self.pending_qpn.d.next = self.qpn.q.val();
                self.nxt.next = EngState::Read;
                if self.op_alloc_r.q.val() {
                    // ALLOC: find the first available index from the policy's start.
                    self.map_op_valid.next = true;
                    self.map_cmd.next = self.map_op.find.val();
                    self.map_op_index.next = self.next_alloc.q.val();
                    if self.reuse_lowest.val() {
                        self.map_op_index.next = self.first_index.val();
                    }
                    self.nxt.next = EngState::AllocFind;
                }
                if self.op_flush_r.q.val() {
                    // DIR_FLUSH: nothing is cached in flat mode.
                    self.pending_status.d.next = self.res.ok.val();
                    self.nxt.next = EngState::Done;
                }
                if self.op_bad_r.q.val() {
                    self.pending_status.d.next = self.res.bad_cmd.val();
                    self.ev.next.error = true;
                    self.nxt.next = EngState::Done;
                }
            }
            EngState::Read => {
                // ALLOC_AT, PUBLISH, FREE: the range first.
                if bit_cast::<25, QPN_BITS>(self.index.val()) >= self.max_qps.val() {
                    self.pending_status.d.next = self.res.out_of_range.val();
                    self.ev.next.error = true;
                    self.nxt.next = EngState::Done;
                } else {
                    self.nxt.next = EngState::Hold;
                }
            }
            EngState::Hold => {
                // The word is in `entry_r`; its checks are registered at this edge (with
                // `late_read`, at the edge that ends the last cycle here).
                self.nxt.next = EngState::Check;
            }
            EngState::Check => {
                // ALLOC_AT needs FREE (the generation comes from the QPN); PUBLISH needs
                // RESERVED and the same generation; FREE needs RESERVED or VALID and the same
                // generation, and writes FREE at once, then drains.
                self.waddr.next = self.index.val();
                self.wdata.next.gen = self.entry_q.val().gen;
                self.nxt.next = EngState::Done;
                if self.op_alloc_at_r.q.val() {
                    self.wdata.next.state = self.st.reserved.val();
                    self.wdata.next.gen = bit_cast::<GEN_BITS_MAX, QPN_BITS>(self.gen.val());
                }
                if self.op_publish_r.q.val() {
                    self.wdata.next.state = self.st.valid.val();
                }
                if self.op_free_r.q.val() {
                    self.wdata.next.state = self.st.free.val();
                }
                if self.check_pass_q.q.val() {
                    self.we.next = true;
                    self.pending_status.d.next = self.res.ok.val();
                    if self.pass_at_q.q.val() {
                        // ALLOC_AT: FREE is not enough, the index must be available (not
                        // quarantined): ask the free map before writing.
                        self.we.next = false;
                        self.map_op_valid.next = true;
                        self.map_cmd.next = self.map_op.test.val();
                        self.nxt.next = EngState::AtTest;
                    }
                    if self.pass_free_q.q.val() {
                        self.nxt.next = EngState::FreeSnap;
                    }
                } else {
                    self.pending_status.d.next = self.res.bad_state.val();
                    self.ev.next.error = true;
                }
            }
            EngState::FreeSnap => {
                // The registered write of FREE lands at this edge (with `late_write` at the
                // edge that ends the second cycle here): the lookups in flight after it may
                // have seen the old word. The drain inputs are registered at it.
                self.nxt.next = EngState::DrainSnap;
                if !self.landed.val() {
                    self.land_wait.d.next = true;
                }
            }
            EngState::DrainSnap => {
                // The drain counts the lookups in flight after the edge that wrote FREE
                // (`drain_snap`).
                self.nxt.next = EngState::Drain;
            }
            EngState::AllocFind => {
                // The result as FULL until the map answers (AllocWrite overwrites it when an
                // index is found), and the cursor follows the map's result register: only
                // the state and the FULL counter wait for `done`.
                self.pending_status.d.next = self.res.full.val();
                self.pending_qpn.d.next = 0.into();
                self.cursor.d.next = self.map.result.val();
                if self.map.found.val() {
                    self.nxt.next = EngState::AllocRead;
                } else {
                    self.nxt.next = EngState::Done;
                    if self.map.done.val() {
                        self.ev.next.full = true;
                    }
                }
            }
            EngState::AllocRead => {
                // The state RAM word of the found index is read at this edge.
                self.nxt.next = EngState::AllocHold;
            }
            EngState::AllocHold => {
                // Two cycles with `late_read`, one more per `read_more`.
                self.nxt.next = EngState::AllocLatch;
            }
            EngState::AllocLatch => {
                // The word is registered once more (`entry_r`).
                self.nxt.next = EngState::AllocWrite;
            }
            EngState::AllocWrite => {
                // Advance the generation, reserve, take the index out of the free map.
                self.we.next = true;
                self.wdata.next.state = self.st.reserved.val();
                self.wdata.next.gen = bit_cast::<GEN_BITS_MAX, QPN_BITS>(self.new_gen.val());
                self.pending_status.d.next = self.res.ok.val();
                self.pending_qpn.d.next =
                    (self.new_gen.val() << self.index_bits.val()) | self.cursor.q.val();
                self.next_alloc.d.next = self.cursor_next.val();
                self.ev.next.reserved = true;
                self.map_op_valid.next = true;
                self.map_cmd.next = self.map_op.clear.val();
                self.map_op_index.next = self.cursor.q.val();
                self.nxt.next = EngState::MapWait;
            }
            EngState::AtTest => {
                self.waddr.next = self.index.val();
                self.wdata.next.state = self.st.reserved.val();
                self.wdata.next.gen = bit_cast::<GEN_BITS_MAX, QPN_BITS>(self.gen.val());
                // BAD_STATE until the map answers (MapWait sets OK when it was available).
                self.pending_status.d.next = self.res.bad_state.val();
                if self.map.found.val() {
                    self.nxt.next = EngState::MapWait;
                } else {
                    self.nxt.next = EngState::Done;
                }
                if self.map.done.val() {
                    if self.map.found.val() {
                        self.we.next = true;
                        self.ev.next.reserved = true;
                        self.map_op_valid.next = true;
                        self.map_cmd.next = self.map_op.clear.val();
                    } else {
                        self.ev.next.error = true;
                    }
                }
            }
            EngState::MapWait => {
                // ALLOC and ALLOC_AT that reach here succeed.
                self.pending_status.d.next = self.res.ok.val();
                self.nxt.next = EngState::Done;
            }
            EngState::Drain => {
                // Into the quarantine (a full queue first releases its oldest), or back to
                // the pool, once drained.
                if self.q_on.val() {
                    self.nxt.next = EngState::Push;
                    if self.quar.full.val() {
                        self.nxt.next = EngState::Overflow;
                    }
                } else {
                    self.nxt.next = EngState::Release;
                }
                if self.drained.val() {
                    if self.q_on.val() {
                        if self.quar.full.val() {
                            self.map_op_valid.next = true;
                            self.map_cmd.next = self.map_op.set.val();
                            self.map_op_index.next = self.quar.head_index.val();
                            self.q_pop.next = true;
                            self.ev.next.overflow = true;
                        }
                    } else {
                        self.map_op_valid.next = true;
                        self.map_cmd.next = self.map_op.set.val();
                    }
                }
            }
            EngState::Overflow => {
                self.nxt.next = EngState::Push;
            }
            EngState::Push => {
                self.q_push.next = true;
                self.ev.next.freed = true;
                self.nxt.next = EngState::Done;
            }
            EngState::Release => {
                self.nxt.next = EngState::Done;
                if self.map.done.val() {
                    self.ev.next.freed = true;
                }
            }
            EngState::Done => {
                // With `late_write` the result is published in the second cycle, after the
                // command's write has landed.
                self.status_q.d.next = self.pending_status.q.val();
                self.qpn_q.d.next = self.pending_qpn.q.val();
                self.nxt.next = EngState::Idle;
                if !self.landed.val() {
                    self.land_wait.d.next = true;
                }
            }
        }

        // The waits, from flip-flops (see `nxt`).
        self.hold.next = (self.init_q.q.val() & !self.init_last_r.q.val())
            | (self.idle_q.q.val() & !self.start.val())
            | (self.wait_q.q.val() & !self.map.done.val())
            | (self.drain_q.q.val() & !self.drained.val())
            | self.read_hold_q.q.val()
            | (self.late_write.val()
                & !self.land_wait.q.val()
                & ((self.state.q.val() == EngState::FreeSnap)
                    | (self.state.q.val() == EngState::Done)));
        // The engine copy's row registers: one more cycle each, after `read_hold_q`'s.
        for x in 0..self._more1 {
            self.read_more1[x].clock.next = self.clock.val();
            self.read_more1[x].d.next = self.read_hold_q.q.val() & !self.rst.val();
            self.hold.next = self.hold.val() | self.read_more1[x].q.val();
        }
        for x in 0..self._more2 {
            self.read_more2[x].clock.next = self.clock.val();
            for y in 0..self._more1 {
                self.read_more2[x].d.next = self.read_more1[y].q.val() & !self.rst.val();
            }
            self.hold.next = self.hold.val() | self.read_more2[x].q.val();
        }
        if !self.hold.val() {
            self.state.d.next = self.nxt.val();
        }
        self.read_hold_q.d.next = self.late_read.val()
            & !self.hold.val()
            & ((self.nxt.val() == EngState::Hold) | (self.nxt.val() == EngState::AllocHold));
        self.init_q.d.next = self.init_q.q.val() & !self.init_last_r.q.val();
        self.idle_q.d.next = (self.init_q.q.val() & self.init_last_r.q.val())
            | (self.idle_q.q.val() & !self.start.val())
            | ((self.state.q.val() == EngState::Done) & self.landed.val());
        self.drain_q.d.next = (self.state.q.val() == EngState::DrainSnap)
            | (self.drain_q.q.val() & !self.drained.val());
        self.wait_q.d.next = self.map_op_valid.val() | (self.wait_q.q.val() & !self.map.done.val());

        // Every copy of the state RAM (this engine's and the lookup pipes') takes the same
        // writes.
        self.we_q.d.next = self.we.val();
        self.waddr_q.d.next = self.waddr.val();
        self.wdata_q.d.next = self.wdata.val();
        self.ram_we.next = self.we_q.q.val();
        self.ram_waddr.next = self.waddr_q.q.val();
        self.ram_wdata.next = self.wdata_q.q.val();
        self.ram.write_enable.next = self.we_q.q.val();
        self.ram.write_address.next = self.waddr_q.q.val();
        self.ram.write_data.next = self.wdata_q.q.val();
        self.map_valid_q.d.next = self.map_op_valid.val();
        self.map_cmd_q.d.next = self.map_cmd.val();
        self.map_index_q.d.next = self.map_op_index.val();
        self.map.op_valid.next = self.map_valid_q.q.val();
        self.map.op.next = self.map_cmd_q.q.val();
        self.map.op_index.next = self.map_index_q.q.val();
        self.quar.push.next = self.q_push.val();
        self.quar.pop.next = self.q_pop.val();
        self.events.next = self.ev.val();

        if self.rst.val() {
            self.state.d.next = EngState::Init;
            self.init_q.d.next = true;
            self.idle_q.d.next = false;
            self.drain_q.d.next = false;
            self.wait_q.d.next = false;
            self.cursor.d.next = 0.into();
            // The sweep starts at index 0, the last when `max_qps` is 1.
            self.init_last_r.d.next = self.last_index.val() == 0;
            self.init_done_q.d.next = false;
            self.land_wait.d.next = false;
            self.read_hold_q.d.next = false;
            self.we_q.d.next = false;
            self.map_valid_q.d.next = false;
            self.next_alloc.d.next = self.first_index.val();
            self.status_q.d.next = self.res.ok.val();
            self.qpn_q.d.next = 0.into();
        }
    }
}
