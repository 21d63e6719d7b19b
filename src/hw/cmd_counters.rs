//! `CmdCounters`: the command counters of SPEC §6 (ALLOC_OK, ALLOC_FULL, FREE_OK, CMD_ERROR,
//! IN_USE, QUARANTINE_OVERFLOW, QUARANTINED), beside either command engine at the top level
//! ([`CmdEngine`](super::cmd_engine::CmdEngine), [`MemCmdEngine`](super::mem_cmd::MemCmdEngine):
//! their `events` and `quarantined`)
//! and offered to [`AxilRegs`](super::axil_regs::AxilRegs) as one [`CmdCounts`].
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `events` | in | the pulses of a [`CmdEvents`]: what happened in this cycle |
//! | `quarantined` | in | the quarantine's count (QUARANTINED, passed through) |
//! | `counts` | out | the counters, from registers |
//!
//! Each pulse is registered before it counts (the counters' enables come from flip-flops, not
//! from an engine's state decode): a pulse of the cycle that ends at edge `t` shows in `counts`
//! after edge `t + 1`. Both engines raise their pulses at the latest in the cycle before their
//! `Done`, so a counter has counted by the time the command's write response can be taken.
//! The 32-bit counters wrap.

use super::quarantine::COUNT_BITS;
use rust_hdl::prelude::*;

/// The command counters of SPEC §6, as [`CmdCounters`] offers them to
/// [`AxilRegs`](super::axil_regs::AxilRegs) on one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct CmdCounts {
    pub alloc_ok: Bits<32>,
    pub alloc_full: Bits<32>,
    pub free_ok: Bits<32>,
    pub cmd_error: Bits<32>,
    pub in_use: Bits<32>,
    pub quarantine_overflow: Bits<32>,
    /// Entries in the quarantine queue (at most 4096).
    pub quarantined: Bits<32>,
}

/// What a command engine tells [`CmdCounters`] in a cycle: one pulse per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct CmdEvents {
    /// An index was reserved (ALLOC or ALLOC_AT succeeded): ALLOC_OK and IN_USE + 1.
    pub reserved: Bit,
    /// A FREE completed (into the quarantine or back to the pool): FREE_OK + 1, IN_USE - 1.
    pub freed: Bit,
    /// A command failed with BAD_CMD, OUT_OF_RANGE or BAD_STATE: CMD_ERROR + 1.
    pub error: Bit,
    /// An ALLOC found no index: ALLOC_FULL + 1.
    pub full: Bit,
    /// A FREE into the full quarantine released its oldest entry: QUARANTINE_OVERFLOW + 1.
    pub overflow: Bit,
}

#[derive(LogicBlock, Default)]
pub struct CmdCounters {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub events: Signal<In, CmdEvents>,
    pub quarantined: Signal<In, Bits<COUNT_BITS>>,
    pub counts: Signal<Out, CmdCounts>,
    reserved_r: DFF<Bit>,
    freed_r: DFF<Bit>,
    error_r: DFF<Bit>,
    full_r: DFF<Bit>,
    overflow_r: DFF<Bit>,
    alloc_ok: DFF<Bits<32>>,
    alloc_full: DFF<Bits<32>>,
    free_ok: DFF<Bits<32>>,
    cmd_error: DFF<Bits<32>>,
    in_use: DFF<Bits<32>>,
    q_overflow: DFF<Bits<32>>,
    /// The counters, gathered here and assigned to `counts` once.
    counts_l: Signal<Local, CmdCounts>,
}

impl Logic for CmdCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, reserved_r, freed_r, error_r, full_r, overflow_r, alloc_ok, alloc_full,
            free_ok, cmd_error, in_use, q_overflow
        );
        self.reserved_r.d.next = self.events.val().reserved;
        self.freed_r.d.next = self.events.val().freed;
        self.error_r.d.next = self.events.val().error;
        self.full_r.d.next = self.events.val().full;
        self.overflow_r.d.next = self.events.val().overflow;
        if self.reserved_r.q.val() {
            self.alloc_ok.d.next = self.alloc_ok.q.val() + 1;
        }
        if self.freed_r.q.val() {
            self.free_ok.d.next = self.free_ok.q.val() + 1;
        }
        if self.reserved_r.q.val() & !self.freed_r.q.val() {
            self.in_use.d.next = self.in_use.q.val() + 1;
        }
        if !self.reserved_r.q.val() & self.freed_r.q.val() {
            self.in_use.d.next = self.in_use.q.val() - 1;
        }
        if self.error_r.q.val() {
            self.cmd_error.d.next = self.cmd_error.q.val() + 1;
        }
        if self.full_r.q.val() {
            self.alloc_full.d.next = self.alloc_full.q.val() + 1;
        }
        if self.overflow_r.q.val() {
            self.q_overflow.d.next = self.q_overflow.q.val() + 1;
        }
        self.counts_l.next.alloc_ok = self.alloc_ok.q.val();
        self.counts_l.next.alloc_full = self.alloc_full.q.val();
        self.counts_l.next.free_ok = self.free_ok.q.val();
        self.counts_l.next.cmd_error = self.cmd_error.q.val();
        self.counts_l.next.in_use = self.in_use.q.val();
        self.counts_l.next.quarantine_overflow = self.q_overflow.q.val();
        self.counts_l.next.quarantined = bit_cast::<32, COUNT_BITS>(self.quarantined.val());
        self.counts.next = self.counts_l.val();
        if self.rst.val() {
            self.reserved_r.d.next = false;
            self.freed_r.d.next = false;
            self.error_r.d.next = false;
            self.full_r.d.next = false;
            self.overflow_r.d.next = false;
            self.alloc_ok.d.next = 0.into();
            self.alloc_full.d.next = 0.into();
            self.free_ok.d.next = 0.into();
            self.cmd_error.d.next = 0.into();
            self.in_use.d.next = 0.into();
            self.q_overflow.d.next = 0.into();
        }
    }
}
