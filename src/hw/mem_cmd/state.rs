//! The states of [`MemCmdEngine`](super::MemCmdEngine) (see its header, "A command, step by step").

use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MemState {
    Init,
    Idle,
    PreA,
    PreB,
    Start,
    Decode,
    FindWait,
    /// ALLOC whose block the engine knows (`n_known`): as `FindWait`, without the search.
    Known,
    Acquire,
    HoldOn,
    HoldWait,
    Inval,
    /// A cycle for the block comparisons of `Lookup` (`cb_hit_q`, `p_hit_q`) to be registered
    /// from this block: after a release of a quarantined index, whose block is set at the
    /// edge before. A command comes from `Inval`, edges after its block was set.
    LookA,
    Lookup,
    WRead1,
    WRead2,
    WRead3,
    ArReq,
    Scan,
    Select,
    PickG,
    PickB,
    Pick,
    RowRead1,
    RowRead2,
    RowRead3,
    Extract,
    Decide,
    WReq,
    WWait,
    OnChip,
    MapWait,
    Finish,
    /// ALLOC that leaves its block: the next block ALLOC will take (searched from `HoldOn`
    /// on) into the parked slot, while its own write is in flight.
    PfWait,
    PfWr1,
    PfWr2,
    PfWr3,
    /// FREE back to the pool: if its block is now the one the next ALLOC takes, park it
    /// (the search runs under the write, or from `PoolWait`).
    NFindWait,
    /// The FREE's block is the cursor's with nothing to take from the cursor on: ALLOC
    /// passes over it, so the block it takes is the next the free map finds (`n_wrap`: the
    /// search came back to it: ALLOC takes it from its start).
    NFind2,
    NFind2Wait,
    /// ALLOC that took its block's last index: the free map's CLEAR of the block, sent while
    /// the write is in flight, ends (`ClrWait`); or, the write failed, is undone (`Undo`).
    ClrWait,
    Undo,
    Swap,
    FreeA,
    FreeB,
    Drain,
    Push,
    PoolWait,
    Done,
}
