//! Generic bus agents: AXI ready/valid stream source and sink (with a protocol checker) and
//! an AXI4-Lite master. They all follow the [`Agent`] pattern: `drive` before
//! [`Sim::step`], `observe` after it.

use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::fmt;

use crate::sim::{In, Out, Sim};

/// Something that takes part in a cycle: [`Agent::drive`] sets inputs before the step,
/// [`Agent::observe`] reads the outputs sampled at the edge after it.
pub trait Agent {
    /// Sets the inputs for the coming cycle.
    fn drive(&mut self, sim: &mut Sim);
    /// Looks at what the rising edge sampled (`sim.cycle()` is the edge's number).
    fn observe(&mut self, sim: &Sim);
}

/// One cycle with several agents: every `drive`, one [`Sim::step`], every `observe`.
pub fn step_agents(sim: &mut Sim, agents: &mut [&mut dyn Agent]) {
    for a in agents.iter_mut() {
        a.drive(sim);
    }
    sim.step();
    for a in agents.iter_mut() {
        a.observe(sim);
    }
}

/// Steps `agents` until `done()` holds (checked before each cycle) or `max_cycles` cycles
/// went by (error). Returns the number of cycles run.
pub fn run_until(
    sim: &mut Sim,
    agents: &mut [&mut dyn Agent],
    max_cycles: u64,
    mut done: impl FnMut(&Sim) -> bool,
) -> Result<u64> {
    let mut n = 0;
    while !done(sim) {
        if n >= max_cycles {
            bail!(
                "condition not reached within {max_cycles} cycles (at cycle {})",
                sim.cycle()
            );
        }
        step_agents(sim, agents);
        n += 1;
    }
    Ok(n)
}

/// Most payload fields a stream agent handles.
pub const MAX_FIELDS: usize = 8;

/// One transfer of a stream: the payload fields (in the agent's field order) and the cycle
/// (edge number, see [`Sim::cycle`]) of its handshake. `Copy`, no allocation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Beat {
    /// Edge number of the handshake (0 for a beat not yet transferred).
    pub cycle: u64,
    len: u8,
    vals: [u64; MAX_FIELDS],
}

impl Beat {
    /// A beat with these field values. Panics on more than [`MAX_FIELDS`] values.
    #[inline]
    pub fn new(vals: &[u64]) -> Beat {
        assert!(vals.len() <= MAX_FIELDS, "at most {MAX_FIELDS} fields");
        let mut b = Beat {
            cycle: 0,
            len: vals.len() as u8,
            vals: [0; MAX_FIELDS],
        };
        b.vals[..vals.len()].copy_from_slice(vals);
        b
    }

    /// Field values in the agent's field order.
    #[inline]
    pub fn data(&self) -> &[u64] {
        &self.vals[..self.len as usize]
    }

    /// Number of fields.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the beat has no field.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Index<usize> for Beat {
    type Output = u64;
    #[inline]
    fn index(&self, i: usize) -> &u64 {
        &self.data()[i]
    }
}

impl From<&[u64]> for Beat {
    #[inline]
    fn from(v: &[u64]) -> Beat {
        Beat::new(v)
    }
}

impl<const N: usize> From<[u64; N]> for Beat {
    #[inline]
    fn from(v: [u64; N]) -> Beat {
        Beat::new(&v)
    }
}

impl fmt::Debug for Beat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Beat@{}{:x?}", self.cycle, self.data())
    }
}

/// A protocol violation seen by a checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Edge number at which it was seen.
    pub cycle: u64,
    /// The signal concerned (full port name).
    pub signal: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {}: {}: {}", self.cycle, self.signal, self.message)
    }
}

fn violations_result(what: &str, v: &[Violation]) -> Result<()> {
    if v.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = v.iter().take(20).map(|x| x.to_string()).collect();
    bail!(
        "{} protocol violation(s) on {what}:\n  {}{}",
        v.len(),
        shown.join("\n  "),
        if v.len() > 20 { "\n  ..." } else { "" }
    )
}

fn check_field_count(prefix: &str, n: usize) -> Result<()> {
    if n > MAX_FIELDS {
        bail!("stream {prefix}: {n} fields, at most {MAX_FIELDS} are supported");
    }
    Ok(())
}

#[inline]
fn rng_hit(rng: &mut StdRng, p: f64) -> bool {
    p > 0.0 && rng.gen_bool(p.min(1.0))
}

/// Drives a ready/valid stream into the design (`<prefix>valid`, `<prefix>ready` and
/// `<prefix><field>` for each payload field), from a queue of beats.
///
/// AXI rules: once `valid` is raised it stays high, with the payload unchanged, until the
/// handshake; random idle cycles (see [`StreamSource::with_idle`]) come only between beats.
pub struct StreamSource {
    prefix: String,
    valid: In,
    ready: Out,
    fields: Vec<In>,
    /// Beats not yet transferred; while `presenting`, the front one is on the bus.
    queue: VecDeque<Beat>,
    presenting: bool,
    idle_prob: f64,
    scramble_idle: bool,
    rng: StdRng,
    sent: Vec<Beat>,
    sent_total: u64,
    keep_sent: bool,
}

impl StreamSource {
    /// A source for `<prefix>valid/ready` and `<prefix><field>` (e.g. prefix `s_tx_req_`,
    /// fields `["qpn", "tag"]`). Fields must be at most 64 bits wide.
    pub fn new(sim: &Sim, prefix: &str, fields: &[&str]) -> Result<StreamSource> {
        check_field_count(prefix, fields.len())?;
        let mut f = Vec::new();
        for name in fields {
            let i = sim.input(&format!("{prefix}{name}"))?;
            if i.width() > 64 {
                bail!("{prefix}{name}: fields wider than 64 bits are not supported by the agents");
            }
            f.push(i);
        }
        Ok(StreamSource {
            prefix: prefix.to_string(),
            valid: sim.input(&format!("{prefix}valid"))?,
            ready: sim.output(&format!("{prefix}ready"))?,
            fields: f,
            queue: VecDeque::new(),
            presenting: false,
            idle_prob: 0.0,
            scramble_idle: false,
            rng: StdRng::seed_from_u64(0),
            sent: Vec::new(),
            sent_total: 0,
            keep_sent: true,
        })
    }

    /// Inserts an idle cycle before each beat with probability `prob` (repeatedly, so the
    /// gaps are geometric), using an rng seeded with `seed`.
    pub fn with_idle(mut self, prob: f64, seed: u64) -> Self {
        self.idle_prob = prob;
        self.rng = StdRng::seed_from_u64(seed);
        self
    }

    /// While `valid` is low, drive random payload (checks that the design ignores it).
    pub fn with_scrambled_idle(mut self, on: bool) -> Self {
        self.scramble_idle = on;
        self
    }

    /// Whether to keep every transferred beat for [`StreamSource::sent`] (default true; turn
    /// off for long benchmarks).
    pub fn with_history(mut self, keep: bool) -> Self {
        self.keep_sent = keep;
        self
    }

    /// Changes the idle probability from now on.
    pub fn set_idle_prob(&mut self, prob: f64) {
        self.idle_prob = prob;
    }

    /// Queues a beat (field values in field order; each masked check happens in
    /// [`Sim::set`]).
    #[inline]
    pub fn push(&mut self, beat: impl Into<Beat>) {
        let b = beat.into();
        debug_assert_eq!(
            b.len(),
            self.fields.len(),
            "{}: wrong field count",
            self.prefix
        );
        self.queue.push_back(b);
    }

    /// Beats queued or being presented.
    #[inline]
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// No beat left to send.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.pending() == 0
    }

    /// Transferred beats with their handshake cycle, in order (if history is kept).
    pub fn sent(&self) -> &[Beat] {
        &self.sent
    }

    /// Takes the transferred beats recorded so far.
    pub fn take_sent(&mut self) -> Vec<Beat> {
        std::mem::take(&mut self.sent)
    }

    /// Number of beats transferred since creation.
    #[inline]
    pub fn sent_total(&self) -> u64 {
        self.sent_total
    }

    /// Whether `valid` is driven high this cycle (after [`Agent::drive`]).
    pub fn presenting(&self) -> bool {
        self.presenting
    }

    /// The stream prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

impl Agent for StreamSource {
    #[inline]
    fn drive(&mut self, sim: &mut Sim) {
        // The presented beat stays at the front of the queue until its handshake (no copy).
        if !self.presenting {
            if let Some(b) = self.queue.front() {
                if !rng_hit(&mut self.rng, self.idle_prob) {
                    for (i, v) in self.fields.iter().zip(b.data()) {
                        sim.set(*i, *v);
                    }
                    self.presenting = true;
                }
            }
            if !self.presenting && self.scramble_idle {
                for i in &self.fields {
                    let v = self.rng.gen::<u64>() & i.mask();
                    sim.set(*i, v);
                }
            }
        }
        sim.set(self.valid, self.presenting as u64);
    }

    #[inline]
    fn observe(&mut self, sim: &Sim) {
        if self.presenting && sim.get(self.ready) != 0 {
            self.presenting = false;
            self.sent_total += 1;
            let b = self.queue.pop_front();
            if self.keep_sent {
                if let Some(mut b) = b {
                    b.cycle = sim.cycle();
                    self.sent.push(b);
                }
            }
        }
    }
}

/// Accepts a ready/valid stream from the design (`<prefix>valid`, `<prefix>ready`,
/// `<prefix><field>`), with optional random backpressure, and checks the design's side of
/// the protocol: once `valid` is high it must stay high, with a stable payload, until the
/// handshake. Violations are recorded (see [`StreamSink::violations`], [`StreamSink::check`]).
pub struct StreamSink {
    prefix: String,
    valid: Out,
    ready: In,
    fields: Vec<Out>,
    field_names: Vec<String>,
    backpressure: f64,
    rng: StdRng,
    paused: bool,
    ready_now: bool,
    pending: Option<Beat>,
    received: VecDeque<Beat>,
    received_total: u64,
    keep: bool,
    violations: Vec<Violation>,
}

impl StreamSink {
    /// A sink for `<prefix>valid/ready` and `<prefix><field>` (e.g. prefix `m_tx_rsp_`,
    /// fields `["qpn", "tag", "status", "addr"]`), always ready by default.
    pub fn new(sim: &Sim, prefix: &str, fields: &[&str]) -> Result<StreamSink> {
        check_field_count(prefix, fields.len())?;
        let mut f = Vec::new();
        for name in fields {
            let o = sim.output(&format!("{prefix}{name}"))?;
            if o.width() > 64 {
                bail!("{prefix}{name}: fields wider than 64 bits are not supported by the agents");
            }
            f.push(o);
        }
        Ok(StreamSink {
            prefix: prefix.to_string(),
            valid: sim.output(&format!("{prefix}valid"))?,
            ready: sim.input(&format!("{prefix}ready"))?,
            fields: f,
            field_names: fields.iter().map(|s| s.to_string()).collect(),
            backpressure: 0.0,
            rng: StdRng::seed_from_u64(0),
            paused: false,
            ready_now: true,
            pending: None,
            received: VecDeque::new(),
            received_total: 0,
            keep: true,
            violations: Vec::new(),
        })
    }

    /// Drops `ready` in a cycle with probability `prob`, using an rng seeded with `seed`.
    pub fn with_backpressure(mut self, prob: f64, seed: u64) -> Self {
        self.backpressure = prob;
        self.rng = StdRng::seed_from_u64(seed);
        self
    }

    /// Whether to keep received beats for [`StreamSink::pop`] (default true; turn off for
    /// long benchmarks).
    pub fn with_history(mut self, keep: bool) -> Self {
        self.keep = keep;
        self
    }

    /// Changes the backpressure probability from now on.
    pub fn set_backpressure(&mut self, prob: f64) {
        self.backpressure = prob;
    }

    /// Holds `ready` low while paused.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Forgets a beat the design was presenting (use after a reset, which may legally drop
    /// `valid`).
    pub fn clear_pending(&mut self) {
        self.pending = None;
    }

    /// Oldest received beat not yet popped.
    #[inline]
    pub fn pop(&mut self) -> Option<Beat> {
        self.received.pop_front()
    }

    /// Received beats not yet popped, oldest first.
    pub fn received(&self) -> &VecDeque<Beat> {
        &self.received
    }

    /// Takes every received beat not yet popped.
    pub fn take_received(&mut self) -> Vec<Beat> {
        self.received.drain(..).collect()
    }

    /// Number of beats received since creation.
    #[inline]
    pub fn received_total(&self) -> u64 {
        self.received_total
    }

    /// Protocol violations seen so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Error listing the violations, if any.
    pub fn check(&self) -> Result<()> {
        violations_result(&self.prefix, &self.violations)
    }

    /// Whether `ready` is driven high this cycle (after [`Agent::drive`]).
    pub fn ready_now(&self) -> bool {
        self.ready_now
    }

    /// The stream prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn violation(&mut self, cycle: u64, signal: String, message: String) {
        self.violations.push(Violation {
            cycle,
            signal,
            message,
        });
    }
}

impl Agent for StreamSink {
    #[inline]
    fn drive(&mut self, sim: &mut Sim) {
        self.ready_now = !self.paused && !rng_hit(&mut self.rng, self.backpressure);
        sim.set(self.ready, self.ready_now as u64);
    }

    #[inline]
    fn observe(&mut self, sim: &Sim) {
        let c = sim.cycle();
        if sim.get(self.valid) != 0 {
            let mut b = Beat {
                cycle: c,
                len: self.fields.len() as u8,
                vals: [0; MAX_FIELDS],
            };
            for (k, o) in self.fields.iter().enumerate() {
                b.vals[k] = sim.get(*o);
            }
            if let Some(p) = self.pending {
                for k in 0..self.fields.len() {
                    if p.vals[k] != b.vals[k] {
                        let sig = format!("{}{}", self.prefix, self.field_names[k]);
                        let msg = format!(
                            "payload changed from {:#x} to {:#x} while valid && !ready (valid since cycle {})",
                            p.vals[k], b.vals[k], p.cycle
                        );
                        self.violation(c, sig, msg);
                    }
                }
            }
            if self.ready_now {
                self.received_total += 1;
                if self.keep {
                    self.received.push_back(b);
                }
                self.pending = None;
            } else if self.pending.is_none() {
                self.pending = Some(b);
            } else if let Some(p) = &mut self.pending {
                // Keep the first cycle, compare against the latest value.
                let first = p.cycle;
                *p = b;
                p.cycle = first;
            }
        } else if let Some(p) = self.pending.take() {
            let sig = format!("{}valid", self.prefix);
            let msg = format!(
                "valid dropped without a handshake (raised at cycle {}, payload {:x?})",
                p.cycle,
                p.data()
            );
            self.violation(c, sig, msg);
        }
    }
}

/// AXI response code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxiResp {
    /// 0
    Okay,
    /// 1
    ExOkay,
    /// 2
    SlvErr,
    /// 3
    DecErr,
}

impl AxiResp {
    /// From the 2-bit code.
    pub fn from_bits(v: u64) -> AxiResp {
        match v & 3 {
            0 => AxiResp::Okay,
            1 => AxiResp::ExOkay,
            2 => AxiResp::SlvErr,
            _ => AxiResp::DecErr,
        }
    }
    /// The 2-bit code.
    pub fn bits(self) -> u64 {
        self as u64
    }
}

/// Kind of an AXI4-Lite operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxilKind {
    /// AW + W, then B.
    Write,
    /// AR, then R.
    Read,
}

/// A completed AXI4-Lite operation. Cycles are edge numbers (see [`Sim::cycle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxilDone {
    /// Id returned by [`AxiLiteMaster::push_write`] / [`AxiLiteMaster::push_read`].
    pub id: u64,
    /// Write or read.
    pub kind: AxilKind,
    /// Address.
    pub addr: u64,
    /// Write: the data written. Read: the data returned.
    pub data: u64,
    /// Write: the byte strobes. Read: 0.
    pub strb: u64,
    /// Response (BRESP / RRESP).
    pub resp: AxiResp,
    /// First edge at which the operation was presented (AWVALID/WVALID or ARVALID high).
    pub issue_cycle: u64,
    /// Write: AW handshake. Read: AR handshake.
    pub addr_cycle: u64,
    /// Write: W handshake. Read: same as `addr_cycle`.
    pub data_cycle: u64,
    /// B or R handshake.
    pub done_cycle: u64,
}

impl AxilDone {
    /// Edges from the first presentation to the response handshake.
    pub fn latency(&self) -> u64 {
        self.done_cycle - self.issue_cycle + 1
    }
}

#[derive(Clone, Copy, Debug)]
struct Op {
    id: u64,
    addr: u64,
    data: u64,
    strb: u64,
}

#[derive(Clone, Copy, Debug)]
struct WriteState {
    op: Op,
    issue: Option<u64>,
    aw_on: bool,
    w_on: bool,
    aw_cycle: Option<u64>,
    w_cycle: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
struct ReadState {
    op: Op,
    issue: Option<u64>,
    ar_on: bool,
    ar_cycle: Option<u64>,
}

struct AxilPorts {
    awaddr: In,
    awprot: Option<In>,
    awvalid: In,
    awready: Out,
    wdata: In,
    wstrb: In,
    wvalid: In,
    wready: Out,
    bresp: Out,
    bvalid: Out,
    bready: In,
    araddr: In,
    arprot: Option<In>,
    arvalid: In,
    arready: Out,
    rdata: Out,
    rresp: Out,
    rvalid: Out,
    rready: In,
}

/// AXI4-Lite master for the ports `<prefix>awaddr awprot awvalid awready wdata wstrb wvalid
/// wready bresp bvalid bready araddr arprot arvalid arready rdata rresp rvalid rready`
/// (`*prot` optional, driven 0).
///
/// Writes and reads are queued separately and run one at a time per direction, a read may
/// run while a write waits for its response. AW and W are presented together (each
/// independently delayed by random idle cycles if enabled) and held until their handshakes.
/// Optional random backpressure on B and R. The slave's side is checked: B/R only after the
/// request handshakes, `bvalid`/`rvalid` held with stable payload until taken.
pub struct AxiLiteMaster {
    prefix: String,
    p: AxilPorts,
    data_mask: u64,
    strb_all: u64,
    wq: VecDeque<Op>,
    rq: VecDeque<Op>,
    wcur: Option<WriteState>,
    rcur: Option<ReadState>,
    next_id: u64,
    idle_prob: f64,
    bp_prob: f64,
    rng: StdRng,
    bready_now: bool,
    rready_now: bool,
    b_pending: Option<(u64, u64)>,
    r_pending: Option<(u64, u64, u64)>,
    done: VecDeque<AxilDone>,
    violations: Vec<Violation>,
    timeout: u64,
}

impl AxiLiteMaster {
    /// A master on the ports with this prefix (e.g. `s_axil_`).
    pub fn new(sim: &Sim, prefix: &str) -> Result<AxiLiteMaster> {
        let i = |n: &str| sim.input(&format!("{prefix}{n}"));
        let o = |n: &str| sim.output(&format!("{prefix}{n}"));
        let opt = |n: &str| {
            let name = format!("{prefix}{n}");
            if sim.has_input(&name) {
                sim.input(&name).ok()
            } else {
                None
            }
        };
        let p = AxilPorts {
            awaddr: i("awaddr")?,
            awprot: opt("awprot"),
            awvalid: i("awvalid")?,
            awready: o("awready")?,
            wdata: i("wdata")?,
            wstrb: i("wstrb")?,
            wvalid: i("wvalid")?,
            wready: o("wready")?,
            bresp: o("bresp")?,
            bvalid: o("bvalid")?,
            bready: i("bready")?,
            araddr: i("araddr")?,
            arprot: opt("arprot"),
            arvalid: i("arvalid")?,
            arready: o("arready")?,
            rdata: o("rdata")?,
            rresp: o("rresp")?,
            rvalid: o("rvalid")?,
            rready: i("rready")?,
        };
        if p.wdata.width() > 64 || p.awaddr.width() > 64 || p.araddr.width() > 64 {
            bail!("{prefix}: data and address up to 64 bits are supported");
        }
        Ok(AxiLiteMaster {
            prefix: prefix.to_string(),
            data_mask: p.wdata.mask(),
            strb_all: p.wstrb.mask(),
            p,
            wq: VecDeque::new(),
            rq: VecDeque::new(),
            wcur: None,
            rcur: None,
            next_id: 0,
            idle_prob: 0.0,
            bp_prob: 0.0,
            rng: StdRng::seed_from_u64(0),
            bready_now: true,
            rready_now: true,
            b_pending: None,
            r_pending: None,
            done: VecDeque::new(),
            violations: Vec::new(),
            timeout: 100_000,
        })
    }

    /// Random delays: AW, W and AR each wait an extra cycle with probability `idle` before
    /// being presented; `bready`/`rready` are low in a cycle with probability `backpressure`.
    /// Seeded with `seed`.
    pub fn with_random(mut self, idle: f64, backpressure: f64, seed: u64) -> Self {
        self.idle_prob = idle;
        self.bp_prob = backpressure;
        self.rng = StdRng::seed_from_u64(seed);
        self
    }

    /// Cycle limit of the blocking calls (default 100 000).
    pub fn with_timeout(mut self, cycles: u64) -> Self {
        self.timeout = cycles;
        self
    }

    /// All-ones byte strobe value.
    pub fn strb_all(&self) -> u64 {
        self.strb_all
    }

    /// Queues a write; returns its id.
    pub fn push_write(&mut self, addr: u64, data: u64, strb: u64) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        debug_assert!(data & !self.data_mask == 0, "write data {data:#x} too wide");
        self.wq.push_back(Op {
            id,
            addr,
            data: data & self.data_mask,
            strb: strb & self.strb_all,
        });
        id
    }

    /// Queues a read; returns its id.
    pub fn push_read(&mut self, addr: u64) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.rq.push_back(Op {
            id,
            addr,
            data: 0,
            strb: 0,
        });
        id
    }

    /// Writes queued or in flight.
    pub fn writes_pending(&self) -> usize {
        self.wq.len() + self.wcur.is_some() as usize
    }

    /// Reads queued or in flight.
    pub fn reads_pending(&self) -> usize {
        self.rq.len() + self.rcur.is_some() as usize
    }

    /// Nothing queued or in flight.
    pub fn is_idle(&self) -> bool {
        self.writes_pending() == 0 && self.reads_pending() == 0
    }

    /// Oldest completed operation not yet popped.
    pub fn pop_done(&mut self) -> Option<AxilDone> {
        self.done.pop_front()
    }

    /// Completed operations not yet popped, in completion order.
    pub fn done(&self) -> &VecDeque<AxilDone> {
        &self.done
    }

    /// Removes and returns the completed operation `id`, if it completed.
    pub fn take_done(&mut self, id: u64) -> Option<AxilDone> {
        let pos = self.done.iter().position(|d| d.id == id)?;
        self.done.remove(pos)
    }

    /// Protocol violations of the slave seen so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Error listing the violations, if any.
    pub fn check(&self) -> Result<()> {
        violations_result(&self.prefix, &self.violations)
    }

    /// Steps the simulation (this agent alone) until operation `id` completes.
    pub fn wait(&mut self, sim: &mut Sim, id: u64) -> Result<AxilDone> {
        let start = sim.cycle();
        loop {
            if let Some(d) = self.take_done(id) {
                return Ok(d);
            }
            if sim.cycle() - start >= self.timeout {
                bail!(
                    "{}: operation {id} not done after {} cycles (at cycle {})",
                    self.prefix,
                    self.timeout,
                    sim.cycle()
                );
            }
            self.drive(sim);
            sim.step();
            self.observe(sim);
        }
    }

    /// Blocking write with all byte strobes: returns the response and the number of cycles
    /// the call stepped. Only this agent drives the simulation meanwhile.
    pub fn write(&mut self, sim: &mut Sim, addr: u64, data: u64) -> Result<(AxiResp, u64)> {
        self.write_strb(sim, addr, data, self.strb_all)
    }

    /// Blocking write with byte strobes `strb`.
    pub fn write_strb(
        &mut self,
        sim: &mut Sim,
        addr: u64,
        data: u64,
        strb: u64,
    ) -> Result<(AxiResp, u64)> {
        let start = sim.cycle();
        let id = self.push_write(addr, data, strb);
        let d = self.wait(sim, id)?;
        Ok((d.resp, sim.cycle() - start))
    }

    /// Blocking read: returns the data and the response.
    pub fn read(&mut self, sim: &mut Sim, addr: u64) -> Result<(u64, AxiResp)> {
        let id = self.push_read(addr);
        let d = self.wait(sim, id)?;
        Ok((d.data, d.resp))
    }

    fn violation(&mut self, cycle: u64, sig: &str, message: String) {
        self.violations.push(Violation {
            cycle,
            signal: format!("{}{sig}", self.prefix),
            message,
        });
    }
}

impl Agent for AxiLiteMaster {
    fn drive(&mut self, sim: &mut Sim) {
        let next = sim.cycle() + 1;
        // Write address and data.
        if self.wcur.is_none() {
            if let Some(op) = self.wq.pop_front() {
                self.wcur = Some(WriteState {
                    op,
                    issue: None,
                    aw_on: false,
                    w_on: false,
                    aw_cycle: None,
                    w_cycle: None,
                });
            }
        }
        let (mut awv, mut wv) = (false, false);
        if let Some(mut w) = self.wcur {
            if w.aw_cycle.is_none() && !w.aw_on && !rng_hit(&mut self.rng, self.idle_prob) {
                w.aw_on = true;
                sim.set(self.p.awaddr, w.op.addr & self.p.awaddr.mask());
                if let Some(pr) = self.p.awprot {
                    sim.set(pr, 0);
                }
            }
            if w.w_cycle.is_none() && !w.w_on && !rng_hit(&mut self.rng, self.idle_prob) {
                w.w_on = true;
                sim.set(self.p.wdata, w.op.data);
                sim.set(self.p.wstrb, w.op.strb);
            }
            if (w.aw_on || w.w_on) && w.issue.is_none() {
                w.issue = Some(next);
            }
            awv = w.aw_on;
            wv = w.w_on;
            self.wcur = Some(w);
        }
        sim.set(self.p.awvalid, awv as u64);
        sim.set(self.p.wvalid, wv as u64);
        // Read address.
        if self.rcur.is_none() {
            if let Some(op) = self.rq.pop_front() {
                self.rcur = Some(ReadState {
                    op,
                    issue: None,
                    ar_on: false,
                    ar_cycle: None,
                });
            }
        }
        let mut arv = false;
        if let Some(mut r) = self.rcur {
            if r.ar_cycle.is_none() && !r.ar_on && !rng_hit(&mut self.rng, self.idle_prob) {
                r.ar_on = true;
                r.issue = Some(next);
                sim.set(self.p.araddr, r.op.addr & self.p.araddr.mask());
                if let Some(pr) = self.p.arprot {
                    sim.set(pr, 0);
                }
            }
            arv = r.ar_on;
            self.rcur = Some(r);
        }
        sim.set(self.p.arvalid, arv as u64);
        // Response channels.
        self.bready_now = !rng_hit(&mut self.rng, self.bp_prob);
        self.rready_now = !rng_hit(&mut self.rng, self.bp_prob);
        sim.set(self.p.bready, self.bready_now as u64);
        sim.set(self.p.rready, self.rready_now as u64);
    }

    fn observe(&mut self, sim: &Sim) {
        let c = sim.cycle();
        if let Some(w) = &mut self.wcur {
            if w.aw_on && sim.get(self.p.awready) != 0 {
                w.aw_on = false;
                w.aw_cycle = Some(c);
            }
            if w.w_on && sim.get(self.p.wready) != 0 {
                w.w_on = false;
                w.w_cycle = Some(c);
            }
        }
        if let Some(r) = &mut self.rcur {
            if r.ar_on && sim.get(self.p.arready) != 0 {
                r.ar_on = false;
                r.ar_cycle = Some(c);
            }
        }
        // B channel.
        if sim.get(self.p.bvalid) != 0 {
            let resp = sim.get(self.p.bresp);
            if let Some((first, old)) = self.b_pending {
                if old != resp {
                    self.violation(
                        c,
                        "bresp",
                        format!("changed from {old} to {resp} while bvalid && !bready (bvalid since cycle {first})"),
                    );
                }
            }
            if self.bready_now {
                self.b_pending = None;
                let ok = matches!(self.wcur, Some(w) if w.aw_cycle.is_some_and(|x| x < c) && w.w_cycle.is_some_and(|x| x < c));
                if ok {
                    let w = self.wcur.take().expect("write in flight");
                    self.done.push_back(AxilDone {
                        id: w.op.id,
                        kind: AxilKind::Write,
                        addr: w.op.addr,
                        data: w.op.data,
                        strb: w.op.strb,
                        resp: AxiResp::from_bits(resp),
                        issue_cycle: w.issue.unwrap_or(c),
                        addr_cycle: w.aw_cycle.unwrap_or(c),
                        data_cycle: w.w_cycle.unwrap_or(c),
                        done_cycle: c,
                    });
                } else {
                    self.violation(
                        c,
                        "bvalid",
                        "write response without a write whose AW and W handshakes both completed at an earlier edge".into(),
                    );
                }
            } else if self.b_pending.is_none() {
                self.b_pending = Some((c, resp));
            }
        } else if let Some((first, _)) = self.b_pending.take() {
            self.violation(
                c,
                "bvalid",
                format!("dropped without a handshake (raised at cycle {first})"),
            );
        }
        // R channel.
        if sim.get(self.p.rvalid) != 0 {
            let data = sim.get(self.p.rdata);
            let resp = sim.get(self.p.rresp);
            if let Some((first, od, or)) = self.r_pending {
                if od != data || or != resp {
                    self.violation(
                        c,
                        "rdata",
                        format!("rdata/rresp changed from {od:#x}/{or} to {data:#x}/{resp} while rvalid && !rready (rvalid since cycle {first})"),
                    );
                }
            }
            if self.rready_now {
                self.r_pending = None;
                let ok = matches!(self.rcur, Some(r) if r.ar_cycle.is_some_and(|x| x < c));
                if ok {
                    let r = self.rcur.take().expect("read in flight");
                    self.done.push_back(AxilDone {
                        id: r.op.id,
                        kind: AxilKind::Read,
                        addr: r.op.addr,
                        data,
                        strb: 0,
                        resp: AxiResp::from_bits(resp),
                        issue_cycle: r.issue.unwrap_or(c),
                        addr_cycle: r.ar_cycle.unwrap_or(c),
                        data_cycle: r.ar_cycle.unwrap_or(c),
                        done_cycle: c,
                    });
                } else {
                    self.violation(
                        c,
                        "rvalid",
                        "read response without a read whose AR handshake completed at an earlier edge".into(),
                    );
                }
            } else if self.r_pending.is_none() {
                self.r_pending = Some((c, data, resp));
            }
        } else if let Some((first, _, _)) = self.r_pending.take() {
            self.violation(
                c,
                "rvalid",
                format!("dropped without a handshake (raised at cycle {first})"),
            );
        }
    }
}
