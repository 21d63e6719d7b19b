//! AXI4 memory slave backed by a sparse byte memory: [`AxiMemory`] answers the read requests
//! of a design that is an AXI4 master (e.g. the engine's memory port) and, when the design
//! has the write channels, its writes too, with configurable latency, backpressure,
//! ordering, error injection and outstanding limits, and checks the master's side of the
//! protocol.
//!
//! # Ports
//!
//! For a prefix such as `m_axi_`, the design must have the outputs `araddr arlen arsize
//! arburst arvalid rready` and the inputs `arready rdata rresp rlast rvalid`; `arid` (output)
//! and `rid` (input) come as a pair or not at all (then every read has ID 0). The outputs
//! `arlock arcache arprot arqos arregion` are optional: when present they are recorded (see
//! [`ArRecord`]) and checked for stability like the other AR signals. `araddr` is at most
//! 64 bits; `rdata` is 8, 16, 32, 64, 128, 256 or 512 bits wide.
//!
//! The write channels are optional as a whole: when the design has `awvalid`, it must have
//! the outputs `awaddr awlen awsize awburst awvalid wdata wstrb wlast wvalid bready` and the
//! inputs `awready wready bresp bvalid` (a design with some of them but not `awvalid`, or
//! `awvalid` without all of them, is refused); `awid`/`bid` come as a pair or not at all,
//! and `awlock awcache awprot awqos awregion` are optional and recorded like AR's (an
//! [`AwRecord`] is an [`ArRecord`]). `wdata` is as wide as `rdata` (one data bus), `wstrb`
//! has one bit per byte of it. A design without `awvalid` is a read master: the agent drives
//! only the read channels, exactly as without write support.
//!
//! # Timing
//!
//! Edges are numbered as in [`Sim::cycle`]: a handshake seen by [`Agent::observe`] after a
//! step happened at edge `sim.cycle()`.
//!
//! * **AR**: `arready` is decided in [`Agent::drive`], before the design's `arvalid` of the
//!   cycle is known: it is low while [`AxiMemory::outstanding`] has reached the slave's
//!   `max_outstanding`, while paused ([`AxiMemory::set_ar_paused`]), and otherwise low with
//!   probability `ar_backpressure` in each cycle.
//! * **Latency**: a read whose AR handshake is at edge `t`, with latency `L` (fixed or drawn
//!   uniformly from `[a, b]` at the handshake), becomes *eligible* at edge `t + L`: its first
//!   R beat may be offered (`rvalid` high, sampled) at edge `t + L` at the earliest. `L >= 1`;
//!   `L = 1` means `rvalid` is high at the edge right after the AR handshake (a registered
//!   response: the fastest possible, since `arvalid` is only known after the step). This is
//!   the same convention as the lookup latency of SPEC §4 (handshake at edge `t`, valid at
//!   edge `t + 2`: latency 2). The *observed* latency ([`AxiReadDone::observed_latency`],
//!   [`AxiMemStats::min_latency`] / [`AxiMemStats::max_latency`]) is the first edge at which
//!   `rvalid` was high for the read minus `t`: it equals `L` unless the read had to wait
//!   for the R channel (another read's beat being offered), for an older read (ordering
//!   rules below), for a random R gap, or for [`AxiMemory::set_r_paused`].
//! * **R**: one beat is offered at a time; once `rvalid` is high, it stays high with `rid`,
//!   `rdata`, `rresp` and `rlast` unchanged until the design's `rready` (the slave's side of
//!   the protocol). The next beat (of the same burst or of another read) may be offered at
//!   the edge right after a handshake. Before offering a beat, the agent idles for a cycle
//!   with probability `r_gaps` (repeatedly, so gaps are geometric). A beat's payload is taken
//!   from the memory (and the error ranges) in the cycle it is first offered.
//! * **Order**: by default reads are answered in AR order. With
//!   [`AxiMemory::with_out_of_order`], among the reads that are the oldest outstanding read of
//!   their ID, the agent picks at random one that is eligible: reads of one ID are never
//!   reordered (the AXI rule), reads of different IDs complete in any order. Beats of
//!   different bursts are not interleaved unless [`AxiMemory::with_interleave`] is set.
//!
//! # Writes
//!
//! A write is *outstanding* from its AW handshake to its B handshake
//! ([`AxiMemory::writes_outstanding`]).
//!
//! * **AW**: `awready` is decided in [`Agent::drive`] like `arready`: low while the slave's
//!   `max_outstanding_writes` writes are outstanding, while paused
//!   ([`AxiMemory::set_aw_paused`]), with [`WriteDataOrder::AwAfterW`] while no W beat is
//!   waiting for its AW, and otherwise low with probability `aw_backpressure`.
//! * **W**: `wready` is low while paused ([`AxiMemory::set_w_paused`]), with
//!   [`WriteDataOrder::WAfterAw`] while every accepted AW has all its data, and otherwise
//!   low with probability `w_backpressure`. AXI4 has no write-data ID: W beats belong to the
//!   AWs in AW order. **W before AW is allowed** (AXI4 allows it, and it is the default,
//!   [`WriteDataOrder::Any`]): a beat taken before its AW waits in the slave until the AW
//!   comes ([`AxiMemStats::w_early_beats`] counts them). The two other orders model slaves
//!   that wait for one channel before the other, which AXI4 also allows: a master that
//!   waits for `awready` before raising `wvalid`, or for `wready` before raising `awvalid`,
//!   hangs against one of them.
//! * **Data**: beat `n` of a write has the address of beat `n` of a read with the same
//!   AW fields (INCR, below). Its bytes are written at the edge at which both the beat and
//!   its AW have been taken: the byte lanes with `wstrb` high among the beat's active lanes
//!   (the bytes from the beat address to the end of its `2^awsize`-byte transfer, mapped to
//!   lanes modulo the bus width). A beat whose bytes overlap an error range
//!   ([`AxiMemory::add_error_range`], the same ranges as reads) writes nothing.
//! * **Latency**: a write is *complete* at the edge at which it has its AW and all its W
//!   beats (the last W beat's edge, or the AW's when the data came first). With latency
//!   `L` (drawn then, [`AxiMemory::with_write_latency`]), its B may be offered (`bvalid`
//!   high) at edge `complete + L` at the earliest, so at least `L` edges after its last W
//!   beat. The observed latency ([`AxiWriteDone::observed_latency`],
//!   [`AxiMemStats::min_write_latency`] / [`AxiMemStats::max_write_latency`]) is the first
//!   `bvalid` edge of the write minus its complete edge.
//! * **B**: one response at a time, held with `bid` and `bresp` until `bready`; an idle
//!   cycle before each with probability `b_gaps`. `bresp` is OKAY, or the response of the
//!   first beat of the write that overlapped an error range. B responses come in write
//!   order, or with [`AxiMemory::with_out_of_order`] in any order across IDs (never within
//!   one ID), like reads.
//! * **Reads and writes** share the memory. Nothing orders a read against a write in flight
//!   (as in AXI4: a master that needs the order waits for B): a read beat takes its payload
//!   when it is first offered, so it sees every write beat applied before that edge. In
//!   particular **a read whose AR handshake comes after a write's B handshake sees all of
//!   that write** (its beats were applied before its B was offered).
//!
//! # Bursts
//!
//! A read of `arlen + 1` beats of `2^arsize` bytes: beat 0 is at `araddr`, beat `n` at
//! `align(araddr, 2^arsize) + n * 2^arsize` (INCR). Every beat carries the whole bus word
//! that contains its address (the master takes the byte lanes it asked for); `rlast` is high
//! on the last beat. `arsize` larger than the bus, `arburst` other than INCR (1) and INCR
//! bursts that cross a 4 KiB boundary are protocol violations of the master (recorded; the
//! read is still answered, FIXED and WRAP with their own addressing, so the design does not
//! hang). Writes are checked the same way on `awsize`, `awburst` and `awaddr`, and also:
//! `wlast` high on exactly the last beat of each write (`wlast`), no `wstrb` bit outside the
//! beat's active lanes (`wstrb`), AW and W signals stable while `valid && !ready`, and no
//! `awvalid` or `wvalid` dropped without a handshake.
//!
//! # Errors
//!
//! [`AxiMemory::add_error_range`]: a beat whose bytes overlap a range answers that range's
//! response (SLVERR or DECERR, first matching range wins) instead of OKAY, with the memory
//! contents as data unless [`AxiMemory::set_error_data`] says otherwise. A write beat that
//! overlaps a range is not applied, and its write's B answers the range's response.

use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::ops::Range;

use crate::agents::{Agent, AxiResp, Violation};
use crate::sim::{In, Out, Sim};

const PAGE_BITS: u32 = 12;
const PAGE: u64 = 1 << PAGE_BITS;

/// Sparse byte-addressed memory over the whole 64-bit address space, in 4 KiB pages
/// allocated on first write. Unwritten bytes read as 0, or, in the ranges given to
/// [`SparseMem::set_junk`], as seeded junk (what a real memory holds before anyone wrote
/// it). Accesses wrap around at 2^64.
#[derive(Clone, Default)]
pub struct SparseMem {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
    junk: Junk,
}

/// What the bytes never written read as: junk drawn from `seed` in `ranges`, 0 elsewhere.
#[derive(Clone, Default)]
struct Junk {
    ranges: Vec<Range<u64>>,
    seed: u64,
}

/// SplitMix64's finaliser: the junk of an 8-byte word.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Junk {
    /// No junk range meets the `n` bytes from `addr` on (they read 0 while never written).
    fn none_in(&self, addr: u64, n: u64) -> bool {
        let end = addr.wrapping_add(n);
        self.ranges.iter().all(|r| {
            if end > addr {
                r.end <= addr || r.start >= end
            } else {
                // Wrapping around 2^64: [addr, 2^64) and [0, end).
                r.end <= addr && r.start >= end
            }
        })
    }

    /// Fills `buf` with what the bytes from `addr` on read while never written.
    fn fill(&self, addr: u64, buf: &mut [u8]) {
        if self.none_in(addr, buf.len() as u64) {
            buf.fill(0);
            return;
        }
        // The junk of the 8-byte word last drawn: once a word, not once a byte.
        let mut word: Option<(u64, u64)> = None;
        for (i, b) in buf.iter_mut().enumerate() {
            let a = addr.wrapping_add(i as u64);
            *b = if self.ranges.iter().any(|r| r.contains(&a)) {
                let w = match word {
                    Some((n, w)) if n == a >> 3 => w,
                    _ => {
                        let w = mix64(self.seed ^ mix64(a >> 3));
                        word = Some((a >> 3, w));
                        w
                    }
                };
                (w >> ((a & 7) * 8)) as u8
            } else {
                0
            };
        }
    }
}

impl SparseMem {
    /// An empty memory (every byte 0).
    pub fn new() -> SparseMem {
        SparseMem::default()
    }

    /// From now on, the bytes in `ranges` that were never written read as junk drawn from
    /// `seed` (a fixed function of the seed and the address), the others as 0. Bytes written
    /// before keep their value.
    pub fn set_junk(&mut self, ranges: Vec<Range<u64>>, seed: u64) {
        self.junk = Junk { ranges, seed };
    }

    /// Copies `buf.len()` bytes from `addr` on into `buf`.
    pub fn read_bytes(&self, addr: u64, buf: &mut [u8]) {
        let mut a = addr;
        let mut done = 0;
        while done < buf.len() {
            let off = (a % PAGE) as usize;
            let n = (PAGE as usize - off).min(buf.len() - done);
            match self.pages.get(&(a >> PAGE_BITS)) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[off..off + n]),
                None => self.junk.fill(a, &mut buf[done..done + n]),
            }
            done += n;
            a = a.wrapping_add(n as u64);
        }
    }

    /// Writes `data` from `addr` on.
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) {
        let mut a = addr;
        let mut done = 0;
        while done < data.len() {
            let off = (a % PAGE) as usize;
            let n = (PAGE as usize - off).min(data.len() - done);
            let junk = &self.junk;
            let p = self.pages.entry(a >> PAGE_BITS).or_insert_with(|| {
                // A page never written, as it read.
                let mut p = Box::new([0; PAGE as usize]);
                junk.fill(a & !(PAGE - 1), &mut p[..]);
                p
            });
            p[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
            a = a.wrapping_add(n as u64);
        }
    }

    /// The little-endian 64-bit word at `addr` (any alignment).
    pub fn read_u64(&self, addr: u64) -> u64 {
        let off = (addr % PAGE) as usize;
        if off <= PAGE as usize - 8 {
            // Fast path: within one page.
            match self.pages.get(&(addr >> PAGE_BITS)) {
                Some(p) => return u64::from_le_bytes(p[off..off + 8].try_into().expect("8 bytes")),
                None if self.junk.none_in(addr, 8) => return 0,
                None => {}
            }
        }
        let mut b = [0u8; 8];
        self.read_bytes(addr, &mut b);
        u64::from_le_bytes(b)
    }

    /// Writes `v` little-endian at `addr` (any alignment).
    pub fn write_u64(&mut self, addr: u64, v: u64) {
        self.write_bytes(addr, &v.to_le_bytes());
    }

    /// The little-endian value of `n` (1..=8) bytes at `addr`.
    pub fn read_le(&self, addr: u64, n: usize) -> u64 {
        debug_assert!((1..=8).contains(&n));
        if n == 8 {
            return self.read_u64(addr);
        }
        let mut b = [0u8; 8];
        self.read_bytes(addr, &mut b[..n]);
        u64::from_le_bytes(b)
    }

    /// Forgets every byte written (all read as never written again).
    pub fn clear(&mut self) {
        self.pages.clear();
    }

    /// Number of 4 KiB pages allocated.
    pub fn pages(&self) -> usize {
        self.pages.len()
    }
}

impl fmt::Debug for SparseMem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SparseMem")
            .field("pages", &self.pages.len())
            .finish()
    }
}

/// Latency of a read or a write, see the [module documentation](self) for the exact
/// definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// Always `n` edges (`n >= 1`).
    Fixed(u64),
    /// Drawn uniformly from `[a, b]` for each read (at its AR handshake) or write (when
    /// complete) (`1 <= a <= b`).
    Uniform(u64, u64),
}

impl Latency {
    fn check(self) {
        match self {
            Latency::Fixed(n) => assert!(n >= 1, "AxiMemory latency must be >= 1, got {n}"),
            Latency::Uniform(a, b) => assert!(
                a >= 1 && a <= b,
                "AxiMemory latency range must have 1 <= a <= b, got [{a}, {b}]"
            ),
        }
    }

    fn draw(self, rng: &mut StdRng) -> u64 {
        match self {
            Latency::Fixed(n) => n,
            Latency::Uniform(a, b) => rng.gen_range(a..=b),
        }
    }
}

/// When the slave takes write data relative to write addresses (see the [module
/// documentation](self)). AXI4 allows all three.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteDataOrder {
    /// W beats are taken whether or not their AW has been (W before AW allowed).
    #[default]
    Any,
    /// `wready` only while an accepted AW still lacks data: the slave waits for AW.
    WAfterAw,
    /// `awready` only while W beats wait for their AW: the slave waits for write data.
    AwAfterW,
}

/// An accepted read request (AR handshake), or write request (AW handshake, as
/// [`AwRecord`]: the fields are those of the `aw*` signals). Optional signals the design
/// lacks read as 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArRecord {
    /// Edge of the AR handshake.
    pub cycle: u64,
    /// `arid` (0 without ID ports).
    pub id: u64,
    /// `araddr`.
    pub addr: u64,
    /// `arlen` (beats - 1).
    pub len: u64,
    /// `arsize` (log2 of the bytes per beat).
    pub size: u64,
    /// `arburst` (0 FIXED, 1 INCR, 2 WRAP).
    pub burst: u64,
    /// `arlock`.
    pub lock: u64,
    /// `arcache`.
    pub cache: u64,
    /// `arprot`.
    pub prot: u64,
    /// `arqos`.
    pub qos: u64,
    /// `arregion`.
    pub region: u64,
}

/// An accepted write request (AW handshake): `cycle` is the AW handshake's edge, the other
/// fields are `awid awaddr awlen awsize awburst awlock awcache awprot awqos awregion`.
pub type AwRecord = ArRecord;

impl ArRecord {
    /// Number of beats (`arlen + 1`).
    pub fn beats(&self) -> u64 {
        self.len + 1
    }
}

/// A read whose last beat was taken by the design (kept with [`AxiMemory::with_history`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxiReadDone {
    /// The request.
    pub ar: ArRecord,
    /// Latency drawn for it.
    pub latency: u64,
    /// First edge at which `rvalid` was high for this read.
    pub first_valid_cycle: u64,
    /// Handshake edge of the first beat.
    pub first_beat_cycle: u64,
    /// Handshake edge of the last beat (`rlast`).
    pub last_beat_cycle: u64,
    /// Beats answered with an error response.
    pub error_beats: u32,
    /// Response of the first beat that was not OKAY, else OKAY.
    pub resp: AxiResp,
}

impl AxiReadDone {
    /// `first_valid_cycle - ar.cycle` (see the [module documentation](self)).
    pub fn observed_latency(&self) -> u64 {
        self.first_valid_cycle - self.ar.cycle
    }
}

/// A write whose B response was taken by the design (kept with [`AxiMemory::with_history`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxiWriteDone {
    /// The request.
    pub aw: AwRecord,
    /// Latency drawn for it.
    pub latency: u64,
    /// Handshake edge of the first W beat (before `aw.cycle` when the data came first).
    pub first_beat_cycle: u64,
    /// Edge at which the write was complete: its AW and all its W beats taken.
    pub complete_cycle: u64,
    /// First edge at which `bvalid` was high for this write.
    pub first_valid_cycle: u64,
    /// Edge of the B handshake.
    pub b_cycle: u64,
    /// Beats not applied because they overlapped an error range.
    pub error_beats: u32,
    /// Bytes written into the memory (strobed bytes of the beats applied).
    pub bytes_written: u64,
    /// `bresp`: the response of the first error beat, else OKAY.
    pub resp: AxiResp,
}

impl AxiWriteDone {
    /// `first_valid_cycle - complete_cycle` (see the [module documentation](self)).
    pub fn observed_latency(&self) -> u64 {
        self.first_valid_cycle - self.complete_cycle
    }
}

/// Counters of an [`AxiMemory`], since creation or [`AxiMemory::reset_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxiMemStats {
    /// AR handshakes.
    pub ar_handshakes: u64,
    /// R handshakes (beats).
    pub r_beats: u64,
    /// Reads completed (last beat taken).
    pub reads_done: u64,
    /// Read beats answered SLVERR or DECERR.
    pub error_beats: u64,
    /// Most reads outstanding (accepted, last beat not yet taken) after any edge.
    pub max_outstanding: usize,
    /// Cycles with `arvalid` high and `arready` low.
    pub ar_stall_cycles: u64,
    /// Cycles with `arready` low because `max_outstanding` reads were outstanding.
    pub ar_full_cycles: u64,
    /// Cycles with `rvalid` high and `rready` low.
    pub r_stall_cycles: u64,
    /// Smallest observed latency of a read (first `rvalid` edge minus AR edge).
    pub min_latency: Option<u64>,
    /// Largest observed latency of a read.
    pub max_latency: Option<u64>,
    /// AW handshakes.
    pub aw_handshakes: u64,
    /// W handshakes (beats).
    pub w_beats: u64,
    /// W beats taken before their AW.
    pub w_early_beats: u64,
    /// Writes completed (B taken).
    pub writes_done: u64,
    /// Write beats not applied because they overlapped an error range.
    pub write_error_beats: u64,
    /// Bytes written into the memory by the design.
    pub bytes_written: u64,
    /// Most writes outstanding (AW taken, B not yet taken) after any edge.
    pub max_outstanding_writes: usize,
    /// Cycles with `awvalid` high and `awready` low.
    pub aw_stall_cycles: u64,
    /// Cycles with `awready` low because `max_outstanding_writes` writes were outstanding.
    pub aw_full_cycles: u64,
    /// Cycles with `wvalid` high and `wready` low.
    pub w_stall_cycles: u64,
    /// Cycles with `bvalid` high and `bready` low.
    pub b_stall_cycles: u64,
    /// Smallest observed latency of a write (first `bvalid` edge minus complete edge).
    pub min_write_latency: Option<u64>,
    /// Largest observed latency of a write.
    pub max_write_latency: Option<u64>,
}

/// Index of a counter made by [`AxiMemory::add_ar_counter`] or [`AxiMemory::add_aw_counter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CounterId(usize);

type ArFilter = Box<dyn FnMut(&ArRecord) -> bool + Send>;
type ArCheck = Box<dyn FnMut(&ArRecord) -> Option<String> + Send>;

/// Request signals without their `ar`/`aw` channel prefix, in [`ArRecord`] order: id, addr,
/// len, size, burst, then the optional ones.
const REQ_NAMES: [&str; 10] = [
    "id", "addr", "len", "size", "burst", "lock", "cache", "prot", "qos", "region",
];
const N_REQ: usize = REQ_NAMES.len();
/// Most 64-bit words of a data beat (a 512-bit bus).
const MAX_WORDS: usize = 8;
/// A data beat, little-endian 64-bit words (those past the bus width are 0).
type Data = [u64; MAX_WORDS];
/// W payload values: the words of `wdata`, then `wstrb`, `wlast`.
const W_N: usize = MAX_WORDS + 2;
const W_STRB: usize = MAX_WORDS;
const W_LAST: usize = MAX_WORDS + 1;

/// The name of W payload value `k`.
fn w_name(k: usize) -> &'static str {
    match k {
        W_STRB => "wstrb",
        W_LAST => "wlast",
        _ => "wdata",
    }
}

/// Drives data input `port` with `d` (one word up to 64 bits, else every word).
#[inline]
fn set_data(sim: &mut Sim, port: In, d: &Data) {
    if port.width() <= 64 {
        sim.set(port, d[0]);
    } else {
        sim.set_wide(port, &d[..(port.width() as usize).div_ceil(64)]);
    }
}

/// The value of data output `port`.
#[inline]
fn get_data(sim: &Sim, port: Out) -> Data {
    let mut d = [0; MAX_WORDS];
    if port.width() <= 64 {
        d[0] = sim.get(port);
    } else {
        let w = sim.get_wide(port);
        d[..w.len()].copy_from_slice(w);
    }
    d
}
/// Write-channel ports every write master has (outputs, then inputs).
const W_OUTPUTS: [&str; 10] = [
    "awaddr", "awlen", "awsize", "awburst", "awvalid", "wdata", "wstrb", "wlast", "wvalid",
    "bready",
];
const W_INPUTS: [&str; 4] = ["awready", "wready", "bresp", "bvalid"];

/// A valid held without a handshake: the first edge and the values last sampled.
type Held<const N: usize> = Option<(u64, [u64; N])>;

/// What the stability check of one channel saw at an edge.
enum HoldEvent<const N: usize> {
    /// Signal `k` changed while valid && !ready (first edge of the valid, old, new).
    Changed(usize, u64, u64, u64),
    /// Valid dropped without a handshake (first edge, the values held).
    Dropped(u64, [u64; N]),
}

/// One edge of a channel with a payload `v` that must stay stable while `valid && !ready`.
/// Returns the events to report; `held` is updated.
fn hold_check<const N: usize>(
    held: &mut Held<N>,
    valid: bool,
    ready: bool,
    v: [u64; N],
    c: u64,
) -> Vec<HoldEvent<N>> {
    let mut ev = Vec::new();
    if valid {
        let mut first = c;
        if let Some((f, old)) = *held {
            first = f;
            for k in 0..N {
                if old[k] != v[k] {
                    ev.push(HoldEvent::Changed(k, f, old[k], v[k]));
                }
            }
        }
        *held = if ready { None } else { Some((first, v)) };
    } else if let Some((f, old)) = held.take() {
        ev.push(HoldEvent::Dropped(f, old));
    }
    ev
}

struct Ports {
    ar: [Option<Out>; N_REQ],
    arvalid: Out,
    arready: In,
    rid: Option<In>,
    rdata: In,
    rresp: In,
    rlast: In,
    rvalid: In,
    rready: Out,
    w: Option<WPorts>,
}

struct WPorts {
    aw: [Option<Out>; N_REQ],
    awvalid: Out,
    awready: In,
    wdata: Out,
    wstrb: Out,
    wlast: Out,
    wvalid: Out,
    wready: In,
    bid: Option<In>,
    bresp: In,
    bvalid: In,
    bready: Out,
}

/// An outstanding read or write, for the ordering of responses.
trait InFlight {
    fn seq(&self) -> u64;
    fn id(&self) -> u64;
    /// Whether its (next) response may be offered at `edge`.
    fn ready_at(&self, edge: u64) -> bool;
}

struct Read {
    /// Rank in AR order (increasing along `AxiMemory::reads`).
    seq: u64,
    ar: ArRecord,
    latency: u64,
    /// Edge from which the first beat may be offered.
    eligible: u64,
    beats_done: u64,
    first_valid: Option<u64>,
    first_beat: u64,
    error_beats: u32,
    resp: AxiResp,
}

impl InFlight for Read {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn id(&self) -> u64 {
        self.ar.id
    }
    fn ready_at(&self, edge: u64) -> bool {
        self.eligible <= edge
    }
}

struct Write {
    /// Rank in AW order (increasing along `AxiMemory::writes`).
    seq: u64,
    aw: AwRecord,
    /// W beats applied so far.
    beats: u64,
    first_beat: u64,
    /// Edge at which it was complete, with the latency drawn then.
    complete: Option<u64>,
    latency: u64,
    first_valid: Option<u64>,
    error_beats: u32,
    bytes: u64,
    resp: AxiResp,
}

impl Write {
    fn needs_data(&self) -> bool {
        self.beats < self.aw.beats()
    }
}

impl InFlight for Write {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn id(&self) -> u64 {
        self.aw.id
    }
    fn ready_at(&self, edge: u64) -> bool {
        self.complete.is_some_and(|c| c + self.latency <= edge)
    }
}

/// A W beat taken by the slave: its edge and `wdata` (words), `wstrb`, `wlast`.
#[derive(Clone, Copy)]
struct WBeat {
    cycle: u64,
    v: [u64; W_N],
}

/// The oldest outstanding request of each ID, for in-order-per-ID responses. The map is
/// ordered so that random picks replay with the seed.
type Heads = BTreeMap<u64, u64>;

/// The index in `q` of the request whose response to offer at `edge`: in order, the oldest
/// if ready; out of order, one at random among the ready oldest requests of their IDs.
fn pick_ready<T: InFlight>(
    q: &VecDeque<T>,
    heads: &Heads,
    edge: u64,
    out_of_order: bool,
    rng: &mut StdRng,
) -> Option<usize> {
    if !out_of_order {
        return q.front().filter(|r| r.ready_at(edge)).map(|_| 0);
    }
    // Reservoir sampling over the ready heads.
    let mut k = 0u32;
    let mut choice = None;
    for &seq in heads.values() {
        let i = q
            .binary_search_by_key(&seq, |r| r.seq())
            .expect("head of an ID is outstanding");
        if q[i].ready_at(edge) {
            k += 1;
            if k == 1 || rng.gen_range(0..k) == 0 {
                choice = Some(i);
            }
        }
    }
    choice
}

/// Removes `q[idx]`, the oldest request of its ID, and makes the next of that ID the head.
fn retire<T: InFlight>(q: &mut VecDeque<T>, heads: &mut Heads, idx: usize) -> T {
    let r = q.remove(idx).expect("retired request exists");
    debug_assert_eq!(heads.get(&r.id()), Some(&r.seq()));
    // Every later request of the ID is younger: the first one after idx is the head.
    match q.range(idx..).find(|x| x.id() == r.id()) {
        Some(next) => heads.insert(r.id(), next.seq()),
        None => heads.remove(&r.id()),
    };
    r
}

fn note_latency(min: &mut Option<u64>, max: &mut Option<u64>, lat: u64) {
    *min = Some(min.map_or(lat, |m| m.min(lat)));
    *max = Some(max.map_or(lat, |m| m.max(lat)));
}

/// The beat on the bus: which read, and its payload.
#[derive(Clone, Copy)]
struct Offer {
    idx: usize,
    resp: AxiResp,
}

/// AXI4 memory slave agent over a [`SparseMem`]: the design is the master, of reads and,
/// when it has the write channels, of writes. See the [module documentation](self) for the
/// ports, the timing (latency definitions), ordering and bursts.
///
/// ```no_run
/// # use qptable_sim::{Sim, step_agents, AxiResp};
/// # use qptable_sim::axi_mem::{AxiMemory, Latency, WriteDataOrder};
/// # fn f(sim: &mut Sim) -> anyhow::Result<()> {
/// let mut mem = AxiMemory::new(sim, "m_axi_")?
///     .with_seed(7)
///     .with_latency(Latency::Uniform(4, 40))
///     .with_ar_backpressure(0.2)
///     .with_r_gaps(0.1)
///     .with_out_of_order(true)
///     .with_max_outstanding(8)
///     .with_ar_log(true)
///     // Writes (when the design has the AW/W/B channels).
///     .with_write_latency(Latency::Fixed(30))
///     .with_aw_backpressure(0.2)
///     .with_w_backpressure(0.3)
///     .with_b_gaps(0.1)
///     .with_max_outstanding_writes(4)
///     .with_write_data_order(WriteDataOrder::Any)
///     .with_aw_log(true);
/// mem.write_u64(0x1000, 0xabc0_0001);
/// mem.add_error_range(0x8000..0x8008, AxiResp::SlvErr);
/// step_agents(sim, &mut [&mut mem]);
/// mem.check()?;
/// # Ok(()) }
/// ```
pub struct AxiMemory {
    prefix: String,
    p: Ports,
    bus_bytes: u64,
    bus_size: u64,
    mem: SparseMem,
    seed: u64,
    latency: Latency,
    ar_bp: f64,
    r_gap: f64,
    out_of_order: bool,
    interleave: bool,
    max_outstanding: usize,
    ar_paused: bool,
    r_paused: bool,
    scramble_idle: bool,
    check_aligned: bool,
    rng_ar: StdRng,
    rng_r: StdRng,
    rng_lat: StdRng,
    rng_order: StdRng,
    rng_scramble: StdRng,
    /// Outstanding reads in AR order.
    reads: VecDeque<Read>,
    /// For each ID with a read outstanding, the `seq` of its oldest read.
    heads: Heads,
    next_seq: u64,
    arready_now: bool,
    /// AR presented but not yet taken.
    ar_pending: Held<N_REQ>,
    /// Beat presented this cycle (rvalid high).
    offer: Option<Offer>,
    /// Read whose burst has started (no interleaving): it goes on until rlast.
    burst: Option<usize>,
    error_ranges: Vec<(Range<u64>, AxiResp)>,
    error_data: Option<u64>,
    keep_log: bool,
    log: Vec<ArRecord>,
    keep_done: bool,
    done: Vec<AxiReadDone>,
    /// Counters of AR (`false`) or AW (`true`) handshakes.
    counters: Vec<(bool, ArFilter, u64)>,
    ar_checks: Vec<ArCheck>,
    stats: AxiMemStats,
    violations: Vec<Violation>,
    // ----- writes -----
    w_latency: Latency,
    aw_bp: f64,
    w_bp: f64,
    b_gap: f64,
    max_writes: usize,
    w_order: WriteDataOrder,
    aw_paused: bool,
    w_paused: bool,
    b_paused: bool,
    rng_aw: StdRng,
    rng_w: StdRng,
    rng_b: StdRng,
    rng_wlat: StdRng,
    rng_border: StdRng,
    rng_bscramble: StdRng,
    /// Outstanding writes in AW order. The ones that lack data come last.
    writes: VecDeque<Write>,
    w_heads: Heads,
    next_wseq: u64,
    /// W beats taken before their AW, in order.
    early: VecDeque<WBeat>,
    awready_now: bool,
    wready_now: bool,
    aw_pending: Held<N_REQ>,
    w_pending: Held<W_N>,
    /// Write whose B is on the bus.
    b_offer: Option<usize>,
    keep_aw_log: bool,
    aw_log: Vec<AwRecord>,
    w_done: Vec<AxiWriteDone>,
    aw_checks: Vec<ArCheck>,
}

#[inline]
fn rng_hit(rng: &mut StdRng, p: f64) -> bool {
    p > 0.0 && rng.gen_bool(p.min(1.0))
}

fn sub_rng(seed: u64, k: u64) -> StdRng {
    StdRng::seed_from_u64(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The request signals of channel `ch` (`ar` or `aw`): addr, len, size and burst required,
/// the others optional; `id` is handled by the caller (it pairs with `rid`/`bid`).
fn request_ports(sim: &Sim, prefix: &str, ch: &str, with_id: bool) -> Result<[Option<Out>; N_REQ]> {
    let mut ports: [Option<Out>; N_REQ] = [None; N_REQ];
    for (k, name) in REQ_NAMES.iter().enumerate() {
        let full = format!("{prefix}{ch}{name}");
        let required = (1..5).contains(&k) || (k == 0 && with_id);
        ports[k] = if required || (k > 0 && sim.has_output(&full)) {
            Some(sim.output(&full)?)
        } else {
            None
        };
        if let Some(p) = ports[k] {
            if p.width() > 64 {
                bail!("{full}: wider than 64 bits is not supported");
            }
        }
    }
    Ok(ports)
}

/// The ID pair of a channel: request ID output `req` and response ID input `rsp`, both or
/// neither; the response ID at least as wide.
fn id_pair(sim: &Sim, prefix: &str, req: &str, rsp: &str) -> Result<bool> {
    let has_req = sim.has_output(&format!("{prefix}{req}"));
    let has_rsp = sim.has_input(&format!("{prefix}{rsp}"));
    if has_req != has_rsp {
        bail!("{prefix}: `{req}` and `{rsp}` must both exist or both be absent");
    }
    if has_req {
        let (a, b) = (
            sim.output(&format!("{prefix}{req}"))?.width(),
            sim.input(&format!("{prefix}{rsp}"))?.width(),
        );
        if b < a {
            bail!("{prefix}{rsp} ({b} bits) is narrower than {prefix}{req} ({a} bits)");
        }
    }
    Ok(has_req)
}

impl AxiMemory {
    /// A slave for the ports `<prefix>ar*` / `<prefix>r*` of `sim`, and `<prefix>aw*`,
    /// `<prefix>w*`, `<prefix>b*` when the design has `<prefix>awvalid` (see the [module
    /// documentation](self)). Defaults: latency 1 (reads and writes), no backpressure, no
    /// gaps, in order, no outstanding limits, W before AW allowed, seed 0, no AR/AW log, no
    /// history, empty memory.
    pub fn new(sim: &Sim, prefix: &str) -> Result<AxiMemory> {
        let o = |n: &str| sim.output(&format!("{prefix}{n}"));
        let i = |n: &str| sim.input(&format!("{prefix}{n}"));
        let has_rid = id_pair(sim, prefix, "arid", "rid")?;
        let mut p = Ports {
            ar: request_ports(sim, prefix, "ar", has_rid)?,
            arvalid: o("arvalid")?,
            arready: i("arready")?,
            rid: if has_rid { Some(i("rid")?) } else { None },
            rdata: i("rdata")?,
            rresp: i("rresp")?,
            rlast: i("rlast")?,
            rvalid: i("rvalid")?,
            rready: o("rready")?,
            w: None,
        };
        let w = p.rdata.width();
        if !matches!(w, 8 | 16 | 32 | 64 | 128 | 256 | 512) {
            bail!("{prefix}rdata: {w} bits; 8, 16, 32, 64, 128, 256 or 512 are supported");
        }
        // Write channels: all of them or none.
        let present: Vec<&str> = W_OUTPUTS
            .iter()
            .filter(|n| sim.has_output(&format!("{prefix}{n}")))
            .chain(
                W_INPUTS
                    .iter()
                    .filter(|n| sim.has_input(&format!("{prefix}{n}"))),
            )
            .copied()
            .collect();
        if !present.is_empty() {
            let missing: Vec<String> = W_OUTPUTS
                .iter()
                .filter(|n| !sim.has_output(&format!("{prefix}{n}")))
                .map(|n| format!("{n} (output)"))
                .chain(
                    W_INPUTS
                        .iter()
                        .filter(|n| !sim.has_input(&format!("{prefix}{n}")))
                        .map(|n| format!("{n} (input)")),
                )
                .collect();
            if !missing.is_empty() {
                bail!(
                    "{prefix}: the design has the write-channel ports {} but not {}: a write \
                     master needs all of {} (outputs) and {} (inputs)",
                    present.join(" "),
                    missing.join(", "),
                    W_OUTPUTS.join(" "),
                    W_INPUTS.join(" ")
                );
            }
            let has_bid = id_pair(sim, prefix, "awid", "bid")?;
            let wp = WPorts {
                aw: request_ports(sim, prefix, "aw", has_bid)?,
                awvalid: o("awvalid")?,
                awready: i("awready")?,
                wdata: o("wdata")?,
                wstrb: o("wstrb")?,
                wlast: o("wlast")?,
                wvalid: o("wvalid")?,
                wready: i("wready")?,
                bid: if has_bid { Some(i("bid")?) } else { None },
                bresp: i("bresp")?,
                bvalid: i("bvalid")?,
                bready: o("bready")?,
            };
            if wp.wdata.width() != w {
                bail!(
                    "{prefix}wdata: {} bits; must be as wide as {prefix}rdata ({w} bits)",
                    wp.wdata.width()
                );
            }
            if wp.wstrb.width() != w / 8 {
                bail!(
                    "{prefix}wstrb: {} bits; must have one bit per byte of {prefix}wdata ({})",
                    wp.wstrb.width(),
                    w / 8
                );
            }
            p.w = Some(wp);
        }
        let bus_bytes = w as u64 / 8;
        let seed = 0;
        Ok(AxiMemory {
            prefix: prefix.to_string(),
            p,
            bus_bytes,
            bus_size: bus_bytes.trailing_zeros() as u64,
            mem: SparseMem::new(),
            seed,
            latency: Latency::Fixed(1),
            ar_bp: 0.0,
            r_gap: 0.0,
            out_of_order: false,
            interleave: false,
            max_outstanding: usize::MAX,
            ar_paused: false,
            r_paused: false,
            scramble_idle: false,
            check_aligned: false,
            rng_ar: sub_rng(seed, 1),
            rng_r: sub_rng(seed, 2),
            rng_lat: sub_rng(seed, 3),
            rng_order: sub_rng(seed, 4),
            rng_scramble: sub_rng(seed, 5),
            reads: VecDeque::new(),
            heads: BTreeMap::new(),
            next_seq: 0,
            arready_now: false,
            ar_pending: None,
            offer: None,
            burst: None,
            error_ranges: Vec::new(),
            error_data: None,
            keep_log: false,
            log: Vec::new(),
            keep_done: false,
            done: Vec::new(),
            counters: Vec::new(),
            ar_checks: Vec::new(),
            stats: AxiMemStats::default(),
            violations: Vec::new(),
            w_latency: Latency::Fixed(1),
            aw_bp: 0.0,
            w_bp: 0.0,
            b_gap: 0.0,
            max_writes: usize::MAX,
            w_order: WriteDataOrder::Any,
            aw_paused: false,
            w_paused: false,
            b_paused: false,
            rng_aw: sub_rng(seed, 6),
            rng_w: sub_rng(seed, 7),
            rng_b: sub_rng(seed, 8),
            rng_wlat: sub_rng(seed, 9),
            rng_border: sub_rng(seed, 10),
            rng_bscramble: sub_rng(seed, 11),
            writes: VecDeque::new(),
            w_heads: BTreeMap::new(),
            next_wseq: 0,
            early: VecDeque::new(),
            awready_now: false,
            wready_now: false,
            aw_pending: None,
            w_pending: None,
            b_offer: None,
            keep_aw_log: false,
            aw_log: Vec::new(),
            w_done: Vec::new(),
            aw_checks: Vec::new(),
        })
    }

    // ----- configuration -------------------------------------------------------------

    /// Seeds every random choice (AR/AW/W backpressure, R and B gaps, latencies,
    /// out-of-order picks, scrambled idle payload; each from its own stream, so enabling one
    /// does not change the draws of another).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self.rng_ar = sub_rng(seed, 1);
        self.rng_r = sub_rng(seed, 2);
        self.rng_lat = sub_rng(seed, 3);
        self.rng_order = sub_rng(seed, 4);
        self.rng_scramble = sub_rng(seed, 5);
        self.rng_aw = sub_rng(seed, 6);
        self.rng_w = sub_rng(seed, 7);
        self.rng_b = sub_rng(seed, 8);
        self.rng_wlat = sub_rng(seed, 9);
        self.rng_border = sub_rng(seed, 10);
        self.rng_bscramble = sub_rng(seed, 11);
        self
    }

    /// Latency of every read and every write (panics on 0 or an empty range); see
    /// [`AxiMemory::with_write_latency`] to give writes their own.
    pub fn with_latency(mut self, l: Latency) -> Self {
        self.set_latency(l);
        self.set_write_latency(l);
        self
    }

    /// Latency of every write, from the edge it is complete to its B (panics on 0 or an
    /// empty range).
    pub fn with_write_latency(mut self, l: Latency) -> Self {
        self.set_write_latency(l);
        self
    }

    /// `arready` low in a cycle with probability `p`.
    pub fn with_ar_backpressure(mut self, p: f64) -> Self {
        self.ar_bp = p;
        self
    }

    /// `awready` low in a cycle with probability `p`.
    pub fn with_aw_backpressure(mut self, p: f64) -> Self {
        self.aw_bp = p;
        self
    }

    /// `wready` low in a cycle with probability `p`.
    pub fn with_w_backpressure(mut self, p: f64) -> Self {
        self.w_bp = p;
        self
    }

    /// An idle cycle before offering a beat with probability `p` (repeatedly).
    pub fn with_r_gaps(mut self, p: f64) -> Self {
        self.r_gap = p;
        self
    }

    /// An idle cycle before offering a B response with probability `p` (repeatedly).
    pub fn with_b_gaps(mut self, p: f64) -> Self {
        self.b_gap = p;
        self
    }

    /// Answers reads, and writes, of different IDs in any order (never reorders within an
    /// ID).
    pub fn with_out_of_order(mut self, on: bool) -> Self {
        self.out_of_order = on;
        self
    }

    /// With out-of-order: beats of different bursts may interleave (AXI4 read data
    /// interleaving across IDs); without it a started burst goes on until `rlast`.
    pub fn with_interleave(mut self, on: bool) -> Self {
        self.interleave = on;
        self
    }

    /// Most reads the slave holds (accepted, last beat not yet taken); when reached,
    /// `arready` is low. Panics on 0. Default: no limit.
    pub fn with_max_outstanding(mut self, n: usize) -> Self {
        self.set_max_outstanding(n);
        self
    }

    /// Most writes the slave holds (AW taken, B not yet taken); when reached, `awready` is
    /// low. Panics on 0. Default: no limit.
    pub fn with_max_outstanding_writes(mut self, n: usize) -> Self {
        self.set_max_outstanding_writes(n);
        self
    }

    /// When the slave takes W relative to AW (default [`WriteDataOrder::Any`]).
    pub fn with_write_data_order(mut self, o: WriteDataOrder) -> Self {
        self.w_order = o;
        self
    }

    /// Keeps an [`ArRecord`] of every AR handshake ([`AxiMemory::ar_log`]).
    pub fn with_ar_log(mut self, on: bool) -> Self {
        self.keep_log = on;
        self
    }

    /// Keeps an [`AwRecord`] of every AW handshake ([`AxiMemory::aw_log`]).
    pub fn with_aw_log(mut self, on: bool) -> Self {
        self.keep_aw_log = on;
        self
    }

    /// Keeps an [`AxiReadDone`] of every completed read ([`AxiMemory::done`]) and an
    /// [`AxiWriteDone`] of every completed write ([`AxiMemory::write_done`]).
    pub fn with_history(mut self, on: bool) -> Self {
        self.keep_done = on;
        self
    }

    /// While `rvalid` is low, drives random `rid/rdata/rresp/rlast`, and while `bvalid` is
    /// low random `bid/bresp` (checks that the design ignores them).
    pub fn with_scrambled_idle(mut self, on: bool) -> Self {
        self.scramble_idle = on;
        self
    }

    /// Records a violation when `araddr` (`awaddr`) is not a multiple of `2^arsize`
    /// (`2^awsize`) (AXI allows unaligned INCR starts, so this is off by default).
    pub fn with_aligned_check(mut self, on: bool) -> Self {
        self.check_aligned = on;
        self
    }

    /// An extra check of every AR handshake: `Some(message)` records a violation on
    /// `<prefix>araddr` (e.g. "the engine only issues single 8-byte beats").
    pub fn with_ar_check(
        mut self,
        f: impl FnMut(&ArRecord) -> Option<String> + Send + 'static,
    ) -> Self {
        self.ar_checks.push(Box::new(f));
        self
    }

    /// An extra check of every AW handshake: `Some(message)` records a violation on
    /// `<prefix>awaddr` (e.g. "every write stays inside the state table").
    pub fn with_aw_check(
        mut self,
        f: impl FnMut(&AwRecord) -> Option<String> + Send + 'static,
    ) -> Self {
        self.aw_checks.push(Box::new(f));
        self
    }

    /// Changes the latency of reads accepted from now on.
    pub fn set_latency(&mut self, l: Latency) {
        l.check();
        self.latency = l;
    }

    /// Changes the latency of writes complete from now on.
    pub fn set_write_latency(&mut self, l: Latency) {
        l.check();
        self.w_latency = l;
    }

    /// Changes the AR backpressure probability.
    pub fn set_ar_backpressure(&mut self, p: f64) {
        self.ar_bp = p;
    }

    /// Changes the AW backpressure probability.
    pub fn set_aw_backpressure(&mut self, p: f64) {
        self.aw_bp = p;
    }

    /// Changes the W backpressure probability.
    pub fn set_w_backpressure(&mut self, p: f64) {
        self.w_bp = p;
    }

    /// Changes the R gap probability.
    pub fn set_r_gaps(&mut self, p: f64) {
        self.r_gap = p;
    }

    /// Changes the B gap probability.
    pub fn set_b_gaps(&mut self, p: f64) {
        self.b_gap = p;
    }

    /// Changes the outstanding limit (reads already held stay).
    pub fn set_max_outstanding(&mut self, n: usize) {
        assert!(n >= 1, "AxiMemory max_outstanding must be >= 1");
        self.max_outstanding = n;
    }

    /// Changes the outstanding-writes limit (writes already held stay).
    pub fn set_max_outstanding_writes(&mut self, n: usize) {
        assert!(n >= 1, "AxiMemory max_outstanding_writes must be >= 1");
        self.max_writes = n;
    }

    /// Changes when W is taken relative to AW.
    pub fn set_write_data_order(&mut self, o: WriteDataOrder) {
        self.w_order = o;
    }

    /// Holds `arready` low while paused.
    pub fn set_ar_paused(&mut self, paused: bool) {
        self.ar_paused = paused;
    }

    /// Offers no new R beat while paused (a beat already offered stays until taken).
    pub fn set_r_paused(&mut self, paused: bool) {
        self.r_paused = paused;
    }

    /// Holds `awready` low while paused.
    pub fn set_aw_paused(&mut self, paused: bool) {
        self.aw_paused = paused;
    }

    /// Holds `wready` low while paused.
    pub fn set_w_paused(&mut self, paused: bool) {
        self.w_paused = paused;
    }

    /// Offers no new B response while paused (one already offered stays until taken).
    pub fn set_b_paused(&mut self, paused: bool) {
        self.b_paused = paused;
    }

    /// Turns out-of-order answering (of reads and writes) on or off.
    pub fn set_out_of_order(&mut self, on: bool) {
        self.out_of_order = on;
    }

    // ----- memory --------------------------------------------------------------------

    /// The memory.
    pub fn mem(&self) -> &SparseMem {
        &self.mem
    }

    /// The memory, to change (a beat already offered keeps its payload).
    pub fn mem_mut(&mut self) -> &mut SparseMem {
        &mut self.mem
    }

    /// [`SparseMem::write_u64`].
    pub fn write_u64(&mut self, addr: u64, v: u64) {
        self.mem.write_u64(addr, v)
    }

    /// [`SparseMem::read_u64`].
    pub fn read_u64(&self, addr: u64) -> u64 {
        self.mem.read_u64(addr)
    }

    /// [`SparseMem::write_bytes`].
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) {
        self.mem.write_bytes(addr, data)
    }

    /// [`SparseMem::read_bytes`].
    pub fn read_bytes(&self, addr: u64, buf: &mut [u8]) {
        self.mem.read_bytes(addr, buf)
    }

    // ----- error injection -----------------------------------------------------------

    /// Read beats overlapping `range` answer `resp` (normally [`AxiResp::SlvErr`] or
    /// [`AxiResp::DecErr`]), write beats overlapping it are not applied and their write's B
    /// answers `resp`; the first range added wins where they overlap.
    pub fn add_error_range(&mut self, range: Range<u64>, resp: AxiResp) {
        self.error_ranges.push((range, resp));
    }

    /// Removes every error range.
    pub fn clear_error_ranges(&mut self) {
        self.error_ranges.clear();
    }

    /// Data of an error beat: `None` (default) the memory contents, `Some(v)` the value `v`
    /// (in every 64-bit word of a wider bus).
    pub fn set_error_data(&mut self, v: Option<u64>) {
        self.error_data = v;
    }

    // ----- statistics and checks -----------------------------------------------------

    /// Counters so far.
    pub fn stats(&self) -> AxiMemStats {
        self.stats
    }

    /// Clears the counters of [`AxiMemory::stats`] and of [`AxiMemory::add_ar_counter`] /
    /// [`AxiMemory::add_aw_counter`] (`max_outstanding` and `max_outstanding_writes` restart
    /// from the current numbers).
    pub fn reset_stats(&mut self) {
        self.stats = AxiMemStats {
            max_outstanding: self.reads.len(),
            max_outstanding_writes: self.writes.len(),
            ..AxiMemStats::default()
        };
        for c in &mut self.counters {
            c.2 = 0;
        }
    }

    /// AR handshakes so far (`stats().ar_handshakes`).
    pub fn ar_count(&self) -> u64 {
        self.stats.ar_handshakes
    }

    /// AW handshakes so far (`stats().aw_handshakes`).
    pub fn aw_count(&self) -> u64 {
        self.stats.aw_handshakes
    }

    /// A counter of the AR handshakes for which `filter` holds, from now on.
    pub fn add_ar_counter(
        &mut self,
        filter: impl FnMut(&ArRecord) -> bool + Send + 'static,
    ) -> CounterId {
        self.counters.push((false, Box::new(filter), 0));
        CounterId(self.counters.len() - 1)
    }

    /// A counter of the AR handshakes whose `araddr` is in `range`, from now on.
    pub fn add_ar_range_counter(&mut self, range: Range<u64>) -> CounterId {
        self.add_ar_counter(move |ar| range.contains(&ar.addr))
    }

    /// A counter of the AW handshakes for which `filter` holds, from now on.
    pub fn add_aw_counter(
        &mut self,
        filter: impl FnMut(&AwRecord) -> bool + Send + 'static,
    ) -> CounterId {
        self.counters.push((true, Box::new(filter), 0));
        CounterId(self.counters.len() - 1)
    }

    /// A counter of the AW handshakes whose `awaddr` is in `range`, from now on.
    pub fn add_aw_range_counter(&mut self, range: Range<u64>) -> CounterId {
        self.add_aw_counter(move |aw| range.contains(&aw.addr))
    }

    /// Value of a counter (of AR or AW handshakes, whichever made it).
    pub fn ar_counter(&self, id: CounterId) -> u64 {
        self.counters[id.0].2
    }

    /// Value of a counter; the same as [`AxiMemory::ar_counter`].
    pub fn aw_counter(&self, id: CounterId) -> u64 {
        self.ar_counter(id)
    }

    /// Every AR handshake so far, in order (with [`AxiMemory::with_ar_log`]).
    pub fn ar_log(&self) -> &[ArRecord] {
        &self.log
    }

    /// Takes the AR log recorded so far.
    pub fn take_ar_log(&mut self) -> Vec<ArRecord> {
        std::mem::take(&mut self.log)
    }

    /// Every AW handshake so far, in order (with [`AxiMemory::with_aw_log`]).
    pub fn aw_log(&self) -> &[AwRecord] {
        &self.aw_log
    }

    /// Takes the AW log recorded so far.
    pub fn take_aw_log(&mut self) -> Vec<AwRecord> {
        std::mem::take(&mut self.aw_log)
    }

    /// Completed reads in completion order (with [`AxiMemory::with_history`]).
    pub fn done(&self) -> &[AxiReadDone] {
        &self.done
    }

    /// Takes the completed reads recorded so far.
    pub fn take_done(&mut self) -> Vec<AxiReadDone> {
        std::mem::take(&mut self.done)
    }

    /// Completed writes in B order (with [`AxiMemory::with_history`]).
    pub fn write_done(&self) -> &[AxiWriteDone] {
        &self.w_done
    }

    /// Takes the completed writes recorded so far.
    pub fn take_write_done(&mut self) -> Vec<AxiWriteDone> {
        std::mem::take(&mut self.w_done)
    }

    /// Reads accepted whose last beat has not been taken yet.
    pub fn outstanding(&self) -> usize {
        self.reads.len()
    }

    /// Writes whose AW was taken and whose B has not been taken yet.
    pub fn writes_outstanding(&self) -> usize {
        self.writes.len()
    }

    /// Whether the design has the write channels (and the agent serves writes).
    pub fn has_write_channels(&self) -> bool {
        self.p.w.is_some()
    }

    /// No read or write outstanding, no AR, AW or W waiting, no W beat waiting for its AW.
    pub fn is_idle(&self) -> bool {
        self.reads.is_empty()
            && self.ar_pending.is_none()
            && self.writes.is_empty()
            && self.early.is_empty()
            && self.aw_pending.is_none()
            && self.w_pending.is_none()
    }

    /// Protocol violations of the master seen so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Error listing the violations, if any.
    pub fn check(&self) -> Result<()> {
        let v = &self.violations;
        if v.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = v.iter().take(20).map(|x| x.to_string()).collect();
        bail!(
            "{} protocol violation(s) on {} (AXI4 master):\n  {}{}",
            v.len(),
            self.prefix,
            shown.join("\n  "),
            if v.len() > 20 { "\n  ..." } else { "" }
        )
    }

    /// Forgets every outstanding read and write, the AR/AW/W being presented and the W
    /// beats waiting for their AW (use when the design is reset). Memory, statistics and
    /// logs are kept; `rvalid` and `bvalid` go low at the next drive.
    pub fn reset(&mut self) {
        self.reads.clear();
        self.heads.clear();
        self.ar_pending = None;
        self.offer = None;
        self.burst = None;
        self.writes.clear();
        self.w_heads.clear();
        self.early.clear();
        self.aw_pending = None;
        self.w_pending = None;
        self.b_offer = None;
    }

    /// The port prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The seed given to [`AxiMemory::with_seed`] (0 by default).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Bytes per beat of the data bus (`rdata` width / 8).
    pub fn bus_bytes(&self) -> u64 {
        self.bus_bytes
    }

    /// Whether `arready` is driven high this cycle (after [`Agent::drive`]).
    pub fn arready_now(&self) -> bool {
        self.arready_now
    }

    /// Whether `awready` is driven high this cycle (after [`Agent::drive`]).
    pub fn awready_now(&self) -> bool {
        self.awready_now
    }

    /// Whether `wready` is driven high this cycle (after [`Agent::drive`]).
    pub fn wready_now(&self) -> bool {
        self.wready_now
    }

    // ----- internals -----------------------------------------------------------------

    fn violation(&mut self, cycle: u64, sig: &str, message: String) {
        self.violations.push(Violation {
            cycle,
            signal: format!("{}{sig}", self.prefix),
            message,
        });
    }

    /// Reports the events of a stability check: `valid` and `ready` name the handshake
    /// signals, `name(k)` the payload signal `k`, `describe` the payload of a dropped valid.
    fn hold_violations<const N: usize>(
        &mut self,
        c: u64,
        (valid, ready): (&str, &str),
        events: Vec<HoldEvent<N>>,
        name: impl Fn(usize) -> String,
        describe: impl Fn(&[u64; N]) -> String,
    ) {
        for e in events {
            match e {
                HoldEvent::Changed(k, f, old, new) => self.violation(
                    c,
                    &name(k),
                    format!(
                        "changed from {old:#x} to {new:#x} while {valid} && !{ready} ({valid} since cycle {f})"
                    ),
                ),
                HoldEvent::Dropped(f, v) => self.violation(
                    c,
                    valid,
                    format!(
                        "dropped without a handshake (raised at cycle {f}, {})",
                        describe(&v)
                    ),
                ),
            }
        }
    }

    /// The read whose beat to offer at edge `edge`, if any.
    fn pick(&mut self, edge: u64) -> Option<usize> {
        if let Some(i) = self.burst {
            return Some(i);
        }
        pick_ready(
            &self.reads,
            &self.heads,
            edge,
            self.out_of_order,
            &mut self.rng_order,
        )
    }

    /// Address of beat `n` of a request, with the transfer size clamped to the bus.
    fn beat_addr(&self, ar: &ArRecord, n: u64) -> (u64, u64) {
        let size = ar.size.min(self.bus_size);
        let bytes = 1u64 << size;
        let aligned = ar.addr & !(bytes - 1);
        let a = match ar.burst {
            0 => ar.addr,
            2 if n > 0 => {
                let total = bytes * ar.beats();
                let base = ar.addr & !(total.next_power_of_two() - 1);
                base.wrapping_add((aligned.wrapping_sub(base) + n * bytes) % total)
            }
            _ if n == 0 => ar.addr,
            _ => aligned.wrapping_add(n * bytes),
        };
        (a, bytes)
    }

    /// The response of a beat at address `a` of a transfer of `bytes`: the first error range
    /// overlapping `[a, align(a, bytes) + bytes)`, else OKAY.
    fn range_resp(&self, a: u64, bytes: u64) -> AxiResp {
        let lo = a as u128;
        let hi = (a & !(bytes - 1)) as u128 + bytes as u128;
        self.error_ranges
            .iter()
            .find(|(rg, _)| (rg.start as u128) < hi && (rg.end as u128) > lo)
            .map_or(AxiResp::Okay, |(_, resp)| *resp)
    }

    /// Payload of the next beat of read `idx`: (data, resp).
    fn beat_payload(&self, idx: usize) -> (Data, AxiResp) {
        let r = &self.reads[idx];
        let (a, bytes) = self.beat_addr(&r.ar, r.beats_done);
        let base = a & !(self.bus_bytes - 1);
        let mut data = [0; MAX_WORDS];
        if self.bus_bytes <= 8 {
            data[0] = self.mem.read_le(base, self.bus_bytes as usize);
        } else {
            let mut b = [0u8; 8 * MAX_WORDS];
            self.mem.read_bytes(base, &mut b[..self.bus_bytes as usize]);
            for (w, chunk) in data.iter_mut().zip(b.chunks_exact(8)) {
                *w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            }
        }
        let resp = self.range_resp(a, bytes);
        if let (AxiResp::SlvErr | AxiResp::DecErr, Some(v)) = (resp, self.error_data) {
            let words = self.bus_bytes.div_ceil(8) as usize;
            data[..words].fill(v & self.p.rdata.mask());
        }
        (data, resp)
    }

    /// Checks of a request on channel `ch` (`ar` or `aw`), recorded as violations.
    fn check_request(&mut self, ch: &str, r: &ArRecord, checks: &mut [ArCheck]) {
        let c = r.cycle;
        if r.size > self.bus_size {
            self.violation(
                c,
                &format!("{ch}size"),
                format!(
                    "{ch}size {} ({} bytes) is wider than the {}-byte data bus ({ch}addr {:#x}, {ch}id {})",
                    r.size,
                    1u64 << r.size.min(63),
                    self.bus_bytes,
                    r.addr,
                    r.id
                ),
            );
        }
        if r.burst != 1 {
            let kind = ["FIXED", "INCR", "WRAP", "reserved"][(r.burst & 3) as usize];
            self.violation(
                c,
                &format!("{ch}burst"),
                format!(
                    "{ch}burst {} ({kind}): only INCR (1) is expected ({ch}addr {:#x}, {ch}id {})",
                    r.burst, r.addr, r.id
                ),
            );
        } else {
            let bytes = 1u128 << r.size.min(self.bus_size);
            let start = r.addr as u128 & !(bytes - 1);
            let last = start + bytes * r.beats() as u128 - 1;
            if start >> PAGE_BITS != last >> PAGE_BITS {
                self.violation(
                    c,
                    &format!("{ch}addr"),
                    format!(
                        "INCR burst crosses a 4 KiB boundary: {ch}addr {:#x}, {ch}len {}, {ch}size {}",
                        r.addr, r.len, r.size
                    ),
                );
            }
        }
        if self.check_aligned && r.addr & ((1u64 << r.size.min(63)) - 1) != 0 {
            self.violation(
                c,
                &format!("{ch}addr"),
                format!(
                    "{ch}addr {:#x} not aligned to {ch}size {} ({ch}id {})",
                    r.addr, r.size, r.id
                ),
            );
        }
        for f in checks.iter_mut() {
            if let Some(m) = f(r) {
                self.violation(c, &format!("{ch}addr"), m);
            }
        }
        let write = ch == "aw";
        for (w, f, n) in &mut self.counters {
            if *w == write && f(r) {
                *n += 1;
            }
        }
    }

    fn record(v: &[u64; N_REQ], c: u64) -> ArRecord {
        ArRecord {
            cycle: c,
            id: v[0],
            addr: v[1],
            len: v[2],
            size: v[3],
            burst: v[4],
            lock: v[5],
            cache: v[6],
            prot: v[7],
            qos: v[8],
            region: v[9],
        }
    }

    fn accept(&mut self, v: &[u64; N_REQ], c: u64) {
        let ar = Self::record(v, c);
        let mut checks = std::mem::take(&mut self.ar_checks);
        self.check_request("ar", &ar, &mut checks);
        self.ar_checks = checks;
        self.stats.ar_handshakes += 1;
        if self.keep_log {
            self.log.push(ar);
        }
        let latency = self.latency.draw(&mut self.rng_lat);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heads.entry(ar.id).or_insert(seq);
        self.reads.push_back(Read {
            seq,
            ar,
            latency,
            eligible: c + latency,
            beats_done: 0,
            first_valid: None,
            first_beat: 0,
            error_beats: 0,
            resp: AxiResp::Okay,
        });
        self.stats.max_outstanding = self.stats.max_outstanding.max(self.reads.len());
    }

    fn accept_aw(&mut self, v: &[u64; N_REQ], c: u64) {
        let aw = Self::record(v, c);
        let mut checks = std::mem::take(&mut self.aw_checks);
        self.check_request("aw", &aw, &mut checks);
        self.aw_checks = checks;
        self.stats.aw_handshakes += 1;
        if self.keep_aw_log {
            self.aw_log.push(aw);
        }
        let seq = self.next_wseq;
        self.next_wseq += 1;
        self.w_heads.entry(aw.id).or_insert(seq);
        self.writes.push_back(Write {
            seq,
            aw,
            beats: 0,
            first_beat: 0,
            complete: None,
            latency: 0,
            first_valid: None,
            error_beats: 0,
            bytes: 0,
            resp: AxiResp::Okay,
        });
        self.stats.max_outstanding_writes =
            self.stats.max_outstanding_writes.max(self.writes.len());
        // W beats that came first belong to it (no older write lacks data, or they would
        // have gone there).
        let idx = self.writes.len() - 1;
        while self.writes[idx].needs_data() {
            match self.early.pop_front() {
                Some(b) => self.apply_beat(idx, b, c),
                None => break,
            }
        }
    }

    /// Index of the oldest write that lacks data (all older ones have theirs).
    fn filling(&self) -> Option<usize> {
        // The writes lacking data are the last ones: search from the back.
        let n = self
            .writes
            .iter()
            .rev()
            .take_while(|w| w.needs_data())
            .count();
        (n > 0).then(|| self.writes.len() - n)
    }

    /// Writes beat `b` as the next beat of write `idx`, at edge `c`.
    fn apply_beat(&mut self, idx: usize, b: WBeat, c: u64) {
        let w = &self.writes[idx];
        let (n, aw) = (w.beats, w.aw);
        let (data, strb, last) = (&b.v[..MAX_WORDS], b.v[W_STRB], b.v[W_LAST]);
        if (last != 0) != (n == aw.len) {
            self.violation(
                b.cycle,
                "wlast",
                format!(
                    "wlast {last} on beat {n} of a write of {} beats (awaddr {:#x}, awid {}, AW at cycle {})",
                    aw.beats(),
                    aw.addr,
                    aw.id,
                    aw.cycle
                ),
            );
        }
        let (a, bytes) = self.beat_addr(&aw, n);
        // Active lanes: from the beat address to the end of its transfer.
        let bus = self.bus_bytes;
        let end = (a & !(bytes - 1)).wrapping_add(bytes);
        let lanes: u64 = (0..end.wrapping_sub(a))
            .map(|k| 1u64 << (a.wrapping_add(k) % bus))
            .fold(0, |m, x| m | x);
        if strb & !lanes != 0 {
            self.violation(
                b.cycle,
                "wstrb",
                format!(
                    "wstrb {strb:#x} has bits outside the active byte lanes {lanes:#x} of beat {n} \
                     (beat address {a:#x}, {bytes} bytes; awaddr {:#x}, awid {})",
                    aw.addr, aw.id
                ),
            );
        }
        let resp = self.range_resp(a, bytes);
        let base = a & !(bus - 1);
        let mut written = 0;
        if resp == AxiResp::Okay {
            for lane in 0..bus {
                if strb & lanes & (1 << lane) != 0 {
                    let byte = (data[lane as usize / 8] >> (8 * (lane % 8))) as u8;
                    self.mem.write_bytes(base.wrapping_add(lane), &[byte]);
                    written += 1;
                }
            }
        } else {
            self.stats.write_error_beats += 1;
        }
        self.stats.bytes_written += written;
        let latency = self.w_latency;
        let w = &mut self.writes[idx];
        if n == 0 {
            w.first_beat = b.cycle;
        }
        w.beats += 1;
        w.bytes += written;
        if resp != AxiResp::Okay {
            w.error_beats += 1;
            if w.resp == AxiResp::Okay {
                w.resp = resp;
            }
        }
        if !w.needs_data() {
            w.complete = Some(c);
            w.latency = latency.draw(&mut self.rng_wlat);
        }
    }

    /// One edge of the AR (`write` false) or AW channel: checks that a request waiting for
    /// `ready` stays stable and returns the request if it was taken at this edge.
    fn observe_request(&mut self, sim: &Sim, write: bool) -> Option<[u64; N_REQ]> {
        let c = sim.cycle();
        let (ports, valid, ready, ch) = match (&self.p.w, write) {
            (Some(wp), true) => (&wp.aw, wp.awvalid, self.awready_now, "aw"),
            _ => (&self.p.ar, self.p.arvalid, self.arready_now, "ar"),
        };
        let is_valid = sim.get(valid) != 0;
        let mut v = [0u64; N_REQ];
        if is_valid {
            for (k, p) in ports.iter().enumerate() {
                if let Some(p) = p {
                    v[k] = sim.get(*p);
                }
            }
        }
        let held = if write {
            &mut self.aw_pending
        } else {
            &mut self.ar_pending
        };
        let ev = hold_check(held, is_valid, ready, v, c);
        if !ev.is_empty() {
            self.hold_violations(
                c,
                (&format!("{ch}valid"), &format!("{ch}ready")),
                ev,
                |k| format!("{ch}{}", REQ_NAMES[k]),
                |v| format!("{ch}addr {:#x}, {ch}id {}", v[1], v[0]),
            );
        }
        match (is_valid, ready, write) {
            (true, true, _) => Some(v),
            (true, false, false) => {
                self.stats.ar_stall_cycles += 1;
                None
            }
            (true, false, true) => {
                self.stats.aw_stall_cycles += 1;
                None
            }
            _ => None,
        }
    }

    fn drive_writes(&mut self, sim: &mut Sim, edge: u64) {
        let Some(wp) = &self.p.w else { return };
        let (awready, wready, bid, bresp, bvalid) =
            (wp.awready, wp.wready, wp.bid, wp.bresp, wp.bvalid);
        // AW.
        let full = self.writes.len() >= self.max_writes;
        if full {
            self.stats.aw_full_cycles += 1;
        }
        let wait_w = self.w_order == WriteDataOrder::AwAfterW && self.early.is_empty();
        self.awready_now =
            !full && !self.aw_paused && !wait_w && !rng_hit(&mut self.rng_aw, self.aw_bp);
        sim.set(awready, self.awready_now as u64);
        // W.
        let wait_aw = self.w_order == WriteDataOrder::WAfterAw && self.filling().is_none();
        self.wready_now = !self.w_paused && !wait_aw && !rng_hit(&mut self.rng_w, self.w_bp);
        sim.set(wready, self.wready_now as u64);
        // B: a response already offered stays on the bus unchanged.
        if self.b_offer.is_none() && !self.b_paused {
            let pick = pick_ready(
                &self.writes,
                &self.w_heads,
                edge,
                self.out_of_order,
                &mut self.rng_border,
            );
            if let Some(idx) = pick {
                if !rng_hit(&mut self.rng_b, self.b_gap) {
                    let w = &mut self.writes[idx];
                    w.first_valid.get_or_insert(edge);
                    if let Some(bid) = bid {
                        sim.set(bid, w.aw.id);
                    }
                    sim.set(bresp, w.resp.bits());
                    self.b_offer = Some(idx);
                }
            }
        }
        if self.b_offer.is_none() && self.scramble_idle {
            let rng = &mut self.rng_bscramble;
            if let Some(bid) = bid {
                sim.set(bid, rng.gen::<u64>() & bid.mask());
            }
            sim.set(bresp, rng.gen_range(0..4));
        }
        sim.set(bvalid, self.b_offer.is_some() as u64);
    }

    fn observe_writes(&mut self, sim: &Sim) {
        let Some(wp) = &self.p.w else { return };
        let c = sim.cycle();
        let (bready, wvalid) = (wp.bready, wp.wvalid);
        let w_valid = sim.get(wvalid) != 0;
        let mut wv = [0; W_N];
        if w_valid {
            wv[..MAX_WORDS].copy_from_slice(&get_data(sim, wp.wdata));
            wv[W_STRB] = sim.get(wp.wstrb);
            wv[W_LAST] = sim.get(wp.wlast);
        }
        // B.
        if let Some(idx) = self.b_offer {
            if sim.get(bready) != 0 {
                self.b_offer = None;
                let w = retire(&mut self.writes, &mut self.w_heads, idx);
                self.stats.writes_done += 1;
                let complete = w.complete.expect("a write with a B is complete");
                let first_valid = w.first_valid.unwrap_or(c);
                let s = &mut self.stats;
                note_latency(
                    &mut s.min_write_latency,
                    &mut s.max_write_latency,
                    first_valid - complete,
                );
                if self.keep_done {
                    self.w_done.push(AxiWriteDone {
                        aw: w.aw,
                        latency: w.latency,
                        first_beat_cycle: w.first_beat,
                        complete_cycle: complete,
                        first_valid_cycle: first_valid,
                        b_cycle: c,
                        error_beats: w.error_beats,
                        bytes_written: w.bytes,
                        resp: w.resp,
                    });
                }
            } else {
                self.stats.b_stall_cycles += 1;
            }
        }
        // AW, then W: a beat taken at the same edge as its AW goes straight to it.
        if let Some(v) = self.observe_request(sim, true) {
            self.accept_aw(&v, c);
        }
        let ev = hold_check(&mut self.w_pending, w_valid, self.wready_now, wv, c);
        self.hold_violations(
            c,
            ("wvalid", "wready"),
            ev,
            |k| w_name(k).to_string(),
            |v| {
                format!(
                    "wdata[63:0] {:#x}, wstrb {:#x}, wlast {}",
                    v[0], v[W_STRB], v[W_LAST]
                )
            },
        );
        if w_valid {
            if self.wready_now {
                self.stats.w_beats += 1;
                let b = WBeat { cycle: c, v: wv };
                match self.filling() {
                    Some(idx) => self.apply_beat(idx, b, c),
                    None => {
                        self.stats.w_early_beats += 1;
                        self.early.push_back(b);
                    }
                }
            } else {
                self.stats.w_stall_cycles += 1;
            }
        }
    }
}

impl Agent for AxiMemory {
    fn drive(&mut self, sim: &mut Sim) {
        let edge = sim.cycle() + 1;
        // AR channel.
        let full = self.reads.len() >= self.max_outstanding;
        if full {
            self.stats.ar_full_cycles += 1;
        }
        self.arready_now = !full && !self.ar_paused && !rng_hit(&mut self.rng_ar, self.ar_bp);
        sim.set(self.p.arready, self.arready_now as u64);
        // R channel: a beat already offered stays on the bus unchanged.
        if self.offer.is_none() && !self.r_paused {
            if let Some(idx) = self.pick(edge) {
                if !rng_hit(&mut self.rng_r, self.r_gap) {
                    let (data, resp) = self.beat_payload(idx);
                    let r = &mut self.reads[idx];
                    let last = r.beats_done == r.ar.len;
                    r.first_valid.get_or_insert(edge);
                    if let Some(rid) = self.p.rid {
                        sim.set(rid, r.ar.id);
                    }
                    set_data(sim, self.p.rdata, &data);
                    sim.set(self.p.rresp, resp.bits());
                    sim.set(self.p.rlast, last as u64);
                    self.offer = Some(Offer { idx, resp });
                }
            }
        }
        if self.offer.is_none() && self.scramble_idle {
            let rng = &mut self.rng_scramble;
            if let Some(rid) = self.p.rid {
                sim.set(rid, rng.gen::<u64>() & rid.mask());
            }
            let mut d: Data = std::array::from_fn(|_| rng.gen::<u64>());
            if self.p.rdata.width() < 64 {
                d[0] &= self.p.rdata.mask();
            }
            set_data(sim, self.p.rdata, &d);
            sim.set(self.p.rresp, rng.gen_range(0..4));
            sim.set(self.p.rlast, rng.gen_range(0..2));
        }
        sim.set(self.p.rvalid, self.offer.is_some() as u64);
        self.drive_writes(sim, edge);
    }

    fn observe(&mut self, sim: &Sim) {
        let c = sim.cycle();
        // Writes first: a write applied at this edge is seen by the read beats offered from
        // the next edge on.
        self.observe_writes(sim);
        // R channel.
        if let Some(off) = self.offer {
            if sim.get(self.p.rready) != 0 {
                self.offer = None;
                self.stats.r_beats += 1;
                let r = &mut self.reads[off.idx];
                if r.beats_done == 0 {
                    r.first_beat = c;
                }
                r.beats_done += 1;
                if off.resp != AxiResp::Okay {
                    r.error_beats += 1;
                    self.stats.error_beats += 1;
                    if r.resp == AxiResp::Okay {
                        r.resp = off.resp;
                    }
                }
                if r.beats_done > r.ar.len {
                    let r = retire(&mut self.reads, &mut self.heads, off.idx);
                    self.burst = None;
                    self.stats.reads_done += 1;
                    let first_valid = r.first_valid.unwrap_or(c);
                    let s = &mut self.stats;
                    note_latency(
                        &mut s.min_latency,
                        &mut s.max_latency,
                        first_valid - r.ar.cycle,
                    );
                    if self.keep_done {
                        self.done.push(AxiReadDone {
                            ar: r.ar,
                            latency: r.latency,
                            first_valid_cycle: first_valid,
                            first_beat_cycle: r.first_beat,
                            last_beat_cycle: c,
                            error_beats: r.error_beats,
                            resp: r.resp,
                        });
                    }
                } else if !self.interleave {
                    self.burst = Some(off.idx);
                }
            } else {
                self.stats.r_stall_cycles += 1;
            }
        }
        // AR channel.
        if let Some(v) = self.observe_request(sim, false) {
            self.accept(&v, c);
        }
    }
}

impl fmt::Debug for AxiMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AxiMemory")
            .field("prefix", &self.prefix)
            .field("seed", &self.seed)
            .field("latency", &self.latency)
            .field("write_latency", &self.w_latency)
            .field("outstanding", &self.reads.len())
            .field("writes_outstanding", &self.writes.len())
            .field("stats", &self.stats)
            .field("violations", &self.violations.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_mem_bytes_words_pages_and_wrap() {
        let mut m = SparseMem::new();
        assert_eq!(m.read_u64(0x1234), 0);
        m.write_u64(0x1000, 0x0807_0605_0403_0201);
        assert_eq!(m.read_u64(0x1000), 0x0807_0605_0403_0201);
        assert_eq!(m.read_u64(0x1001), 0x0008_0706_0504_0302);
        assert_eq!(m.read_le(0x1002, 2), 0x0403);
        // Across a page boundary.
        m.write_u64(0x1ffc, 0x1122_3344_5566_7788);
        assert_eq!(m.read_u64(0x1ffc), 0x1122_3344_5566_7788);
        assert_eq!(m.read_u64(0x2000) & 0xffff_ffff, 0x1122_3344);
        assert_eq!(m.pages(), 2);
        // Around the top of the address space.
        m.write_u64(u64::MAX - 3, 0xaabb_ccdd_eeff_0011);
        assert_eq!(m.read_u64(u64::MAX - 3), 0xaabb_ccdd_eeff_0011);
        assert_eq!(m.read_le(0, 4), 0xaabb_ccdd);
        let big: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        m.write_bytes(0x7_0ff0, &big);
        let mut back = vec![0u8; big.len()];
        m.read_bytes(0x7_0ff0, &mut back);
        assert_eq!(back, big);
        m.clear();
        assert_eq!(m.read_u64(0x1000), 0);
    }

    #[test]
    fn sparse_mem_junk_in_its_ranges_until_written() {
        let mut m = SparseMem::new();
        m.set_junk(vec![0x1ff8..0x2010, u64::MAX - 7..u64::MAX], 7);
        // Outside the ranges: 0; inside: the same junk at every read, by bytes or by words.
        assert_eq!(m.read_u64(0x1ff0), 0);
        assert_eq!(m.read_u64(0x2010), 0);
        let j = m.read_u64(0x1ff8);
        assert_eq!(m.read_u64(0x1ff8), j);
        let mut b = [0u8; 24];
        m.read_bytes(0x1ff8, &mut b);
        assert_eq!(u64::from_le_bytes(b[..8].try_into().unwrap()), j);
        let (j2, j3) = (m.read_u64(0x2000), m.read_u64(0x2008));
        assert_eq!(u64::from_le_bytes(b[8..16].try_into().unwrap()), j2);
        assert_eq!(u64::from_le_bytes(b[16..].try_into().unwrap()), j3);
        // Junk, not a constant: three words of 64 bits, all different and none 0.
        assert!(j != j2 && j2 != j3 && j != j3 && j != 0 && j2 != 0 && j3 != 0);
        // Half in the range: the low 4 bytes at 0x200c are junk, the high 4 bytes 0.
        assert_eq!(m.read_u64(0x200c), j3 >> 32);
        // Another seed, other junk.
        let mut other = SparseMem::new();
        let same_range = 0x1ff8..0x2010;
        other.set_junk(vec![same_range], 8);
        assert_ne!(other.read_u64(0x1ff8), j);
        // A write keeps the junk of the bytes around it, in its page and across pages.
        m.write_bytes(0x2001, &[0xab]);
        assert_eq!(m.read_u64(0x2000), (j2 & !0xff00) | 0xab00);
        assert_eq!(m.read_u64(0x1ff8), j);
        assert_eq!(m.read_u64(0x2008), j3);
        assert_eq!(m.read_le(u64::MAX - 7, 8), m.read_le(u64::MAX - 7, 8));
        assert_ne!(m.read_le(u64::MAX - 7, 8), 0);
        // Cleared: junk again where it was written.
        m.clear();
        assert_eq!(m.read_u64(0x2000), j2);
    }
}
