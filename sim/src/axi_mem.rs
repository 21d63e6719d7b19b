//! AXI4 read slave backed by a sparse byte memory: [`AxiMemory`] answers the read requests
//! of a design that is an AXI4 read master (e.g. the engine's memory port), with
//! configurable latency, backpressure, ordering, error injection and an outstanding limit,
//! and checks the master's side of the protocol.
//!
//! # Ports
//!
//! For a prefix such as `m_axi_`, the design must have the outputs `araddr arlen arsize
//! arburst arvalid rready` and the inputs `arready rdata rresp rlast rvalid`; `arid` (output)
//! and `rid` (input) come as a pair or not at all (then every read has ID 0). The outputs
//! `arlock arcache arprot arqos arregion` are optional: when present they are recorded (see
//! [`ArRecord`]) and checked for stability like the other AR signals. `araddr` and `rdata`
//! are at most 64 bits; `rdata` is 8, 16, 32 or 64 bits wide.
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
//! # Bursts
//!
//! A read of `arlen + 1` beats of `2^arsize` bytes: beat 0 is at `araddr`, beat `n` at
//! `align(araddr, 2^arsize) + n * 2^arsize` (INCR). Every beat carries the whole bus word
//! that contains its address (the master takes the byte lanes it asked for); `rlast` is high
//! on the last beat. `arsize` larger than the bus, `arburst` other than INCR (1) and INCR
//! bursts that cross a 4 KiB boundary are protocol violations of the master (recorded; the
//! read is still answered, FIXED and WRAP with their own addressing, so the design does not
//! hang).
//!
//! # Errors
//!
//! [`AxiMemory::add_error_range`]: a beat whose bytes overlap a range answers that range's
//! response (SLVERR or DECERR, first matching range wins) instead of OKAY, with the memory
//! contents as data unless [`AxiMemory::set_error_data`] says otherwise.

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
/// allocated on first write. Unwritten bytes read as 0. Accesses wrap around at 2^64.
#[derive(Clone, Default)]
pub struct SparseMem {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
}

impl SparseMem {
    /// An empty memory (every byte 0).
    pub fn new() -> SparseMem {
        SparseMem::default()
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
                None => buf[done..done + n].fill(0),
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
            let p = self
                .pages
                .entry(a >> PAGE_BITS)
                .or_insert_with(|| Box::new([0; PAGE as usize]));
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
            return match self.pages.get(&(addr >> PAGE_BITS)) {
                Some(p) => u64::from_le_bytes(p[off..off + 8].try_into().expect("8 bytes")),
                None => 0,
            };
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

    /// Forgets every byte written (all read 0 again).
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

/// Latency of a read, see the [module documentation](self) for the exact definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// Always `n` edges (`n >= 1`).
    Fixed(u64),
    /// Drawn uniformly from `[a, b]` at each AR handshake (`1 <= a <= b`).
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
}

/// An accepted read request (AR handshake). Optional signals the design lacks read as 0.
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

/// Counters of an [`AxiMemory`], since creation or [`AxiMemory::reset_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxiMemStats {
    /// AR handshakes.
    pub ar_handshakes: u64,
    /// R handshakes (beats).
    pub r_beats: u64,
    /// Reads completed (last beat taken).
    pub reads_done: u64,
    /// Beats answered SLVERR or DECERR.
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
}

/// Index of a counter made by [`AxiMemory::add_ar_counter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CounterId(usize);

type ArFilter = Box<dyn FnMut(&ArRecord) -> bool + Send>;
type ArCheck = Box<dyn FnMut(&ArRecord) -> Option<String> + Send>;

/// AR signals in [`ArRecord`] order: id, addr, len, size, burst, then the optional ones.
const AR_NAMES: [&str; 10] = [
    "arid", "araddr", "arlen", "arsize", "arburst", "arlock", "arcache", "arprot", "arqos",
    "arregion",
];
const N_AR: usize = AR_NAMES.len();

struct Ports {
    ar: [Option<Out>; N_AR],
    arvalid: Out,
    arready: In,
    rid: Option<In>,
    rdata: In,
    rresp: In,
    rlast: In,
    rvalid: In,
    rready: Out,
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

/// The beat on the bus: which read, and its payload.
#[derive(Clone, Copy)]
struct Offer {
    idx: usize,
    resp: AxiResp,
}

/// AXI4 read slave agent over a [`SparseMem`]: the design is the master. See the [module
/// documentation](self) for the ports, the timing (latency definition), ordering and bursts.
///
/// ```no_run
/// # use qptable_sim::{Sim, step_agents, AxiResp};
/// # use qptable_sim::axi_mem::{AxiMemory, Latency};
/// # fn f(sim: &mut Sim) -> anyhow::Result<()> {
/// let mut mem = AxiMemory::new(sim, "m_axi_")?
///     .with_seed(7)
///     .with_latency(Latency::Uniform(4, 40))
///     .with_ar_backpressure(0.2)
///     .with_r_gaps(0.1)
///     .with_out_of_order(true)
///     .with_max_outstanding(8)
///     .with_ar_log(true);
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
    /// For each ID with a read outstanding, the `seq` of its oldest read (ordered map, so
    /// that random picks replay with the seed).
    heads: BTreeMap<u64, u64>,
    next_seq: u64,
    arready_now: bool,
    /// AR presented but not yet taken: first edge and the last sampled values.
    ar_pending: Option<(u64, [u64; N_AR])>,
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
    counters: Vec<(ArFilter, u64)>,
    ar_checks: Vec<ArCheck>,
    stats: AxiMemStats,
    violations: Vec<Violation>,
}

#[inline]
fn rng_hit(rng: &mut StdRng, p: f64) -> bool {
    p > 0.0 && rng.gen_bool(p.min(1.0))
}

fn sub_rng(seed: u64, k: u64) -> StdRng {
    StdRng::seed_from_u64(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

impl AxiMemory {
    /// A slave for the ports `<prefix>ar*` / `<prefix>r*` of `sim` (see the [module
    /// documentation](self)). Defaults: latency 1, no backpressure, no gaps, in order, no
    /// outstanding limit, seed 0, no AR log, no history, empty memory.
    pub fn new(sim: &Sim, prefix: &str) -> Result<AxiMemory> {
        let o = |n: &str| sim.output(&format!("{prefix}{n}"));
        let i = |n: &str| sim.input(&format!("{prefix}{n}"));
        let has_arid = sim.has_output(&format!("{prefix}arid"));
        let has_rid = sim.has_input(&format!("{prefix}rid"));
        if has_arid != has_rid {
            bail!("{prefix}: `arid` and `rid` must both exist or both be absent");
        }
        let mut ar: [Option<Out>; N_AR] = [None; N_AR];
        for (k, name) in AR_NAMES.iter().enumerate() {
            let full = format!("{prefix}{name}");
            // araddr arlen arsize arburst are required, the others (arid too) optional.
            let required = (1..5).contains(&k);
            ar[k] = if required || sim.has_output(&full) {
                Some(o(name)?)
            } else {
                None
            };
            if let Some(p) = ar[k] {
                if p.width() > 64 {
                    bail!("{full}: wider than 64 bits is not supported");
                }
            }
        }
        let p = Ports {
            ar,
            arvalid: o("arvalid")?,
            arready: i("arready")?,
            rid: if has_rid { Some(i("rid")?) } else { None },
            rdata: i("rdata")?,
            rresp: i("rresp")?,
            rlast: i("rlast")?,
            rvalid: i("rvalid")?,
            rready: o("rready")?,
        };
        let w = p.rdata.width();
        if !matches!(w, 8 | 16 | 32 | 64) {
            bail!("{prefix}rdata: {w} bits; 8, 16, 32 or 64 are supported");
        }
        if let (Some(rid), Some(arid)) = (p.rid, p.ar[0]) {
            if rid.width() < arid.width() {
                bail!(
                    "{prefix}rid ({} bits) is narrower than {prefix}arid ({} bits)",
                    rid.width(),
                    arid.width()
                );
            }
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
        })
    }

    // ----- configuration -------------------------------------------------------------

    /// Seeds every random choice (AR backpressure, R gaps, latencies, out-of-order picks,
    /// scrambled idle payload; each from its own stream, so enabling one does not change the
    /// draws of another).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self.rng_ar = sub_rng(seed, 1);
        self.rng_r = sub_rng(seed, 2);
        self.rng_lat = sub_rng(seed, 3);
        self.rng_order = sub_rng(seed, 4);
        self.rng_scramble = sub_rng(seed, 5);
        self
    }

    /// Latency of every read (panics on 0 or an empty range).
    pub fn with_latency(mut self, l: Latency) -> Self {
        self.set_latency(l);
        self
    }

    /// `arready` low in a cycle with probability `p`.
    pub fn with_ar_backpressure(mut self, p: f64) -> Self {
        self.ar_bp = p;
        self
    }

    /// An idle cycle before offering a beat with probability `p` (repeatedly).
    pub fn with_r_gaps(mut self, p: f64) -> Self {
        self.r_gap = p;
        self
    }

    /// Answers reads of different IDs in any order (never reorders within an ID).
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

    /// Keeps an [`ArRecord`] of every AR handshake ([`AxiMemory::ar_log`]).
    pub fn with_ar_log(mut self, on: bool) -> Self {
        self.keep_log = on;
        self
    }

    /// Keeps an [`AxiReadDone`] of every completed read ([`AxiMemory::done`]).
    pub fn with_history(mut self, on: bool) -> Self {
        self.keep_done = on;
        self
    }

    /// While `rvalid` is low, drives random `rid/rdata/rresp/rlast` (checks that the design
    /// ignores them).
    pub fn with_scrambled_idle(mut self, on: bool) -> Self {
        self.scramble_idle = on;
        self
    }

    /// Records a violation when `araddr` is not a multiple of `2^arsize` (AXI allows
    /// unaligned INCR starts, so this is off by default).
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

    /// Changes the latency of reads accepted from now on.
    pub fn set_latency(&mut self, l: Latency) {
        l.check();
        self.latency = l;
    }

    /// Changes the AR backpressure probability.
    pub fn set_ar_backpressure(&mut self, p: f64) {
        self.ar_bp = p;
    }

    /// Changes the R gap probability.
    pub fn set_r_gaps(&mut self, p: f64) {
        self.r_gap = p;
    }

    /// Changes the outstanding limit (reads already held stay).
    pub fn set_max_outstanding(&mut self, n: usize) {
        assert!(n >= 1, "AxiMemory max_outstanding must be >= 1");
        self.max_outstanding = n;
    }

    /// Holds `arready` low while paused.
    pub fn set_ar_paused(&mut self, paused: bool) {
        self.ar_paused = paused;
    }

    /// Offers no new R beat while paused (a beat already offered stays until taken).
    pub fn set_r_paused(&mut self, paused: bool) {
        self.r_paused = paused;
    }

    /// Turns out-of-order answering on or off.
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

    /// Beats overlapping `range` answer `resp` (normally [`AxiResp::SlvErr`] or
    /// [`AxiResp::DecErr`]); the first range added wins where they overlap.
    pub fn add_error_range(&mut self, range: Range<u64>, resp: AxiResp) {
        self.error_ranges.push((range, resp));
    }

    /// Removes every error range.
    pub fn clear_error_ranges(&mut self) {
        self.error_ranges.clear();
    }

    /// Data of an error beat: `None` (default) the memory contents, `Some(v)` the value `v`.
    pub fn set_error_data(&mut self, v: Option<u64>) {
        self.error_data = v;
    }

    // ----- statistics and checks -----------------------------------------------------

    /// Counters so far.
    pub fn stats(&self) -> AxiMemStats {
        self.stats
    }

    /// Clears the counters of [`AxiMemory::stats`] and of [`AxiMemory::add_ar_counter`]
    /// (`max_outstanding` restarts from the current number).
    pub fn reset_stats(&mut self) {
        self.stats = AxiMemStats {
            max_outstanding: self.reads.len(),
            ..AxiMemStats::default()
        };
        for c in &mut self.counters {
            c.1 = 0;
        }
    }

    /// AR handshakes so far (`stats().ar_handshakes`).
    pub fn ar_count(&self) -> u64 {
        self.stats.ar_handshakes
    }

    /// A counter of the AR handshakes for which `filter` holds, from now on.
    pub fn add_ar_counter(
        &mut self,
        filter: impl FnMut(&ArRecord) -> bool + Send + 'static,
    ) -> CounterId {
        self.counters.push((Box::new(filter), 0));
        CounterId(self.counters.len() - 1)
    }

    /// A counter of the AR handshakes whose `araddr` is in `range`, from now on.
    pub fn add_ar_range_counter(&mut self, range: Range<u64>) -> CounterId {
        self.add_ar_counter(move |ar| range.contains(&ar.addr))
    }

    /// Value of a counter.
    pub fn ar_counter(&self, id: CounterId) -> u64 {
        self.counters[id.0].1
    }

    /// Every AR handshake so far, in order (with [`AxiMemory::with_ar_log`]).
    pub fn ar_log(&self) -> &[ArRecord] {
        &self.log
    }

    /// Takes the AR log recorded so far.
    pub fn take_ar_log(&mut self) -> Vec<ArRecord> {
        std::mem::take(&mut self.log)
    }

    /// Completed reads in completion order (with [`AxiMemory::with_history`]).
    pub fn done(&self) -> &[AxiReadDone] {
        &self.done
    }

    /// Takes the completed reads recorded so far.
    pub fn take_done(&mut self) -> Vec<AxiReadDone> {
        std::mem::take(&mut self.done)
    }

    /// Reads accepted whose last beat has not been taken yet.
    pub fn outstanding(&self) -> usize {
        self.reads.len()
    }

    /// No read outstanding and no AR waiting.
    pub fn is_idle(&self) -> bool {
        self.reads.is_empty() && self.ar_pending.is_none()
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
            "{} protocol violation(s) on {} (AXI4 read master):\n  {}{}",
            v.len(),
            self.prefix,
            shown.join("\n  "),
            if v.len() > 20 { "\n  ..." } else { "" }
        )
    }

    /// Forgets every outstanding read and the AR being presented (use when the design is
    /// reset). Memory, statistics and logs are kept; `rvalid` goes low at the next drive.
    pub fn reset(&mut self) {
        self.reads.clear();
        self.heads.clear();
        self.ar_pending = None;
        self.offer = None;
        self.burst = None;
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

    // ----- internals -----------------------------------------------------------------

    fn violation(&mut self, cycle: u64, sig: &str, message: String) {
        self.violations.push(Violation {
            cycle,
            signal: format!("{}{sig}", self.prefix),
            message,
        });
    }

    /// The read whose beat to offer at edge `edge`, if any.
    fn pick(&mut self, edge: u64) -> Option<usize> {
        if let Some(i) = self.burst {
            return Some(i);
        }
        if !self.out_of_order {
            return self.reads.front().filter(|r| r.eligible <= edge).map(|_| 0);
        }
        // The oldest read of each ID, if eligible; one at random (reservoir sampling).
        let mut k = 0u32;
        let mut choice = None;
        for &seq in self.heads.values() {
            let i = self
                .reads
                .binary_search_by_key(&seq, |r| r.seq)
                .expect("head of an ID is outstanding");
            if self.reads[i].eligible <= edge {
                k += 1;
                if k == 1 || self.rng_order.gen_range(0..k) == 0 {
                    choice = Some(i);
                }
            }
        }
        choice
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

    /// Payload of the next beat of read `idx`: (data, resp).
    fn beat_payload(&self, idx: usize) -> (u64, AxiResp) {
        let r = &self.reads[idx];
        let (a, bytes) = self.beat_addr(&r.ar, r.beats_done);
        let data = self
            .mem
            .read_le(a & !(self.bus_bytes - 1), self.bus_bytes as usize);
        // Bytes of the beat: [a, align(a, bytes) + bytes).
        let lo = a as u128;
        let hi = (a & !(bytes - 1)) as u128 + bytes as u128;
        let resp = self
            .error_ranges
            .iter()
            .find(|(rg, _)| (rg.start as u128) < hi && (rg.end as u128) > lo)
            .map_or(AxiResp::Okay, |(_, resp)| *resp);
        match (resp, self.error_data) {
            (AxiResp::Okay | AxiResp::ExOkay, _) | (_, None) => (data, resp),
            (_, Some(v)) => (v & self.p.rdata.mask(), resp),
        }
    }

    fn accept(&mut self, v: &[u64; N_AR], c: u64) {
        let ar = ArRecord {
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
        };
        // Checks of the request.
        if ar.size > self.bus_size {
            self.violation(
                c,
                "arsize",
                format!(
                    "arsize {} ({} bytes) is wider than the {}-byte data bus (araddr {:#x}, arid {})",
                    ar.size,
                    1u64 << ar.size.min(63),
                    self.bus_bytes,
                    ar.addr,
                    ar.id
                ),
            );
        }
        if ar.burst != 1 {
            let kind = ["FIXED", "INCR", "WRAP", "reserved"][(ar.burst & 3) as usize];
            self.violation(
                c,
                "arburst",
                format!(
                    "arburst {} ({kind}): only INCR (1) is expected (araddr {:#x}, arid {})",
                    ar.burst, ar.addr, ar.id
                ),
            );
        } else {
            let bytes = 1u128 << ar.size.min(self.bus_size);
            let start = ar.addr as u128 & !(bytes - 1);
            let last = start + bytes * ar.beats() as u128 - 1;
            if start >> PAGE_BITS != last >> PAGE_BITS {
                self.violation(
                    c,
                    "araddr",
                    format!(
                        "INCR burst crosses a 4 KiB boundary: araddr {:#x}, arlen {}, arsize {}",
                        ar.addr, ar.len, ar.size
                    ),
                );
            }
        }
        if self.check_aligned && ar.addr & ((1u64 << ar.size.min(63)) - 1) != 0 {
            self.violation(
                c,
                "araddr",
                format!(
                    "araddr {:#x} not aligned to arsize {} (arid {})",
                    ar.addr, ar.size, ar.id
                ),
            );
        }
        let mut checks = std::mem::take(&mut self.ar_checks);
        for f in &mut checks {
            if let Some(m) = f(&ar) {
                self.violation(c, "araddr", m);
            }
        }
        self.ar_checks = checks;
        // Statistics.
        self.stats.ar_handshakes += 1;
        for (f, n) in &mut self.counters {
            if f(&ar) {
                *n += 1;
            }
        }
        if self.keep_log {
            self.log.push(ar);
        }
        let latency = match self.latency {
            Latency::Fixed(n) => n,
            Latency::Uniform(a, b) => self.rng_lat.gen_range(a..=b),
        };
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
                    sim.set(self.p.rdata, data);
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
            sim.set(self.p.rdata, rng.gen::<u64>() & self.p.rdata.mask());
            sim.set(self.p.rresp, rng.gen_range(0..4));
            sim.set(self.p.rlast, rng.gen_range(0..2));
        }
        sim.set(self.p.rvalid, self.offer.is_some() as u64);
    }

    fn observe(&mut self, sim: &Sim) {
        let c = sim.cycle();
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
                    let r = self.reads.remove(off.idx).expect("offered read exists");
                    self.burst = None;
                    // It was the oldest of its ID: the next one (all are younger) is the head.
                    debug_assert_eq!(self.heads.get(&r.ar.id), Some(&r.seq));
                    match self.reads.range(off.idx..).find(|x| x.ar.id == r.ar.id) {
                        Some(next) => self.heads.insert(r.ar.id, next.seq),
                        None => self.heads.remove(&r.ar.id),
                    };
                    self.stats.reads_done += 1;
                    let first_valid = r.first_valid.unwrap_or(c);
                    let lat = first_valid - r.ar.cycle;
                    let s = &mut self.stats;
                    s.min_latency = Some(s.min_latency.map_or(lat, |m| m.min(lat)));
                    s.max_latency = Some(s.max_latency.map_or(lat, |m| m.max(lat)));
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
        if sim.get(self.p.arvalid) != 0 {
            let mut v = [0u64; N_AR];
            for (k, p) in self.p.ar.iter().enumerate() {
                if let Some(p) = p {
                    v[k] = sim.get(*p);
                }
            }
            let mut first = c;
            if let Some((f, old)) = self.ar_pending {
                first = f;
                for k in 0..N_AR {
                    if old[k] != v[k] {
                        self.violation(
                            c,
                            AR_NAMES[k],
                            format!(
                                "changed from {:#x} to {:#x} while arvalid && !arready (arvalid since cycle {f})",
                                old[k], v[k]
                            ),
                        );
                    }
                }
            }
            if self.arready_now {
                self.ar_pending = None;
                self.accept(&v, c);
            } else {
                self.stats.ar_stall_cycles += 1;
                self.ar_pending = Some((first, v));
            }
        } else if let Some((f, v)) = self.ar_pending.take() {
            self.violation(
                c,
                "arvalid",
                format!(
                    "dropped without a handshake (raised at cycle {f}, araddr {:#x}, arid {})",
                    v[1], v[0]
                ),
            );
        }
    }
}

impl fmt::Debug for AxiMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AxiMemory")
            .field("prefix", &self.prefix)
            .field("seed", &self.seed)
            .field("latency", &self.latency)
            .field("outstanding", &self.reads.len())
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
}
