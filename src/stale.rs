//! The stale-packet campaign: how often a late packet lands on the wrong QP (the ABA hazard),
//! for each reuse policy (SPEC §2, §3 `reuse`, §6 quarantine).
//!
//! QPs are created (ALLOC, then PUBLISH) and destroyed (FREE) at a fixed churn rate while the
//! live QPs send packets naming their QPN; each packet arrives after a random delay of
//! `0..=max_delay` edges and is then looked up. Some arrive after their QP was freed (*late*
//! packets), and some of those after its index was handed out again. At arrival:
//!
//! | lookup | the QPN now belongs to | class |
//! |---|---|---|
//! | NOT_ALLOCATED or STALE | — | *rejected* (the guard worked) |
//! | OK | the sender (same creation) | *delivered* (only on-time packets) |
//! | OK | a later creation that got the same QPN | *misdirected* (the hazard) |
//!
//! A late packet that resolves OK is misdirected by construction: its sender was freed, so the
//! VALID index with the same generation is a later creation.
//!
//! ## Schedule (a time axis in clock edges)
//!
//! Commands are written `cmd_interval` edges apart; the edge of a command is the edge of its
//! CMD write handshake, the time the quarantine counts by ([`Model::command_at`]). First the
//! population is created (`live` times ALLOC + PUBLISH). Then `steps` churn steps, each:
//! `packets_per_step` packets sent at the edge of the last command by live QPs picked
//! uniformly, then FREE of a victim (`random`: any live QP; `newest`: the most recently
//! created one, a hot slot of short-lived QPs next to long-lived ones), then ALLOC + PUBLISH
//! of a new QP. When ALLOC answers FULL (a quarantine holding every free index), the step
//! frees nothing and the next step allocates again. A packet arriving at edge `a` is looked up
//! after the commands written at edges `<= a` and before those written later. Every random
//! choice comes from one [`ChaCha8Rng`] seeded with `seed`, so a run is a function of its
//! parameters and of the engine's answers.
//!
//! ## What is guaranteed (and asserted by `testbench/tests/stale.rs`)
//!
//! A late packet was sent at an edge `s < T` (T: its QP's FREE) and arrives at
//! `a <= s + max_delay < T + max_delay`. To be misdirected, its index must have been handed
//! out again with the very same QPN and published before `a`:
//!
//! 1. **Quarantine**: `quarantine_cycles >= max_delay` and no QUARANTINE_OVERFLOW. The index
//!    is released at a command written at `>= T + quarantine_cycles >= T + max_delay > a`, so
//!    it is not even reserved again when the packet arrives. Any reuse policy, any generation.
//! 2. **Generations**: a QPN recurs only after its index is handed out `2^g` times
//!    (g = 24 - index_bits), all of them by ALLOCs written in `(T, a)`, a window shorter than
//!    `max_delay`. If every window of `max_delay` edges (after the first FREE) holds fewer than
//!    `2^g` successful ALLOCs (`W < 2^g` below), no QPN can recur in time. Any reuse policy.
//! 3. **Cyclic generations**: with `reuse = cyclic`, after an ALLOC hands out index `i`, every
//!    index available just then (FREE, not quarantined; `F` of them) is handed out before `i`
//!    again (the cursor cannot pass an available index, and must go all the way round to come
//!    back to `i`; an available index leaves the pool only through ALLOC, as the campaign
//!    uses no ALLOC_AT). So `2^g` issues of `i` need `2^g + (2^g - 1) * F_min` ALLOCs, and if
//!    `W < 2^g + (2^g - 1) * F_min` nothing is misdirected. With g = 0 this is `W < 1`: cyclic
//!    reuse alone guarantees nothing, it only makes reuse rarer.
//!
//! Everywhere else the figure is measured. [`StaleReport::guarantee`] says which of the three
//! holds for a run (it is computed from the run's own ALLOC edges and counters).
//!
//! ## Hardware
//!
//! [`run_with`] drives any [`Engine`]: [`ModelEngine`] (the reference model alone, fast) or
//! `BenchEngine` of the testbench crate (`qptable_testbench::stale_hw`: the Verilog in
//! Verilator through its `Bench`, every command and lookup
//! checked against the model by the scoreboard). The bench writes each command so that its
//! CMD write handshake falls exactly on the schedule's edge (plus a constant offset), and looks
//! up each batch of arriving packets between two commands, on port 0 if its QP is still live
//! and on port 1 if it was freed; the engine's own per-port counters (OK, NOT_ALLOCATED,
//! STALE) then classify the packets, and the report must equal the model-only run's.

use crate::config::{Config, Reuse};
use crate::model::{regs, CmdResult, CmdStatus, Command, Model, Status};
use anyhow::{bail, ensure, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;

/// Which live QP a churn step destroys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// Any live QP, uniformly: every QP has the same expected lifetime.
    Random,
    /// The most recently created live QP: one hot slot of short-lived QPs next to long-lived
    /// ones (the pattern that reissues one index fastest).
    Newest,
}

impl Victim {
    pub fn as_str(self) -> &'static str {
        match self {
            Victim::Random => "random",
            Victim::Newest => "newest",
        }
    }
}

/// Parameters of one campaign run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleParams {
    /// Engine parameters (SPEC §3).
    pub index_bits: u32,
    pub max_qps: u32,
    pub first_index: u32,
    pub reuse: Reuse,
    pub quarantine_cycles: u64,
    pub quarantine_depth: u32,
    /// QPs kept alive (created first, then replaced one per churn step).
    pub live: u32,
    /// Edges between two commands.
    pub cmd_interval: u64,
    /// Largest packet delay in edges (delays are uniform in `0..=max_delay`).
    pub max_delay: u64,
    /// Churn steps (FREE + ALLOC + PUBLISH, 3 commands each).
    pub steps: u64,
    /// Packets sent at the start of each churn step.
    pub packets_per_step: u32,
    pub victim: Victim,
    pub seed: u64,
}

impl Default for StaleParams {
    /// The campaign of the documented table: a table of 1024 indexes kept 97.7 % full
    /// (1000 live QPs, 22 spare indexes), a command every 16 edges (a QP replaced every 48
    /// edges: 208 replacements per `max_delay`), delays up to 10 000 edges.
    fn default() -> Self {
        StaleParams {
            index_bits: 24,
            max_qps: 1024,
            first_index: 2,
            reuse: Reuse::Lowest,
            quarantine_cycles: 0,
            quarantine_depth: 4096,
            live: 1000,
            cmd_interval: 16,
            max_delay: 10_000,
            steps: 100_000,
            packets_per_step: 10,
            victim: Victim::Random,
            seed: 1,
        }
    }
}

impl StaleParams {
    /// Generation bits of a QPN.
    pub fn gen_bits(&self) -> u32 {
        24 - self.index_bits.min(24)
    }

    /// The engine configuration (default ports `tx`, `rx`), validated.
    pub fn config(&self) -> Result<Config> {
        let mut cfg = Config {
            index_bits: self.index_bits,
            max_qps: Some(self.max_qps),
            first_index: self.first_index,
            reuse: self.reuse,
            quarantine_cycles: self.quarantine_cycles,
            quarantine_depth: self.quarantine_depth,
            ..Config::default()
        };
        cfg.top = "qpt_stale".to_string();
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks the engine configuration and the campaign's own parameters.
    pub fn validate(&self) -> Result<()> {
        let cfg = self.config()?;
        let room = cfg.max_qps() - cfg.first_index;
        ensure!(
            (1..=room).contains(&self.live),
            "live = {} is out of range: allowed 1..={room} (max_qps - first_index)",
            self.live
        );
        ensure!(
            self.cmd_interval >= 1,
            "cmd_interval = 0 is out of range: allowed >= 1"
        );
        // No step or no packet: no late packet, nothing measured (the table would show a rate
        // of 0 % that is no measurement).
        ensure!(
            (1..=MAX_PACKETS).contains(&self.steps),
            "steps = {} is out of range: allowed 1..={MAX_PACKETS} (no step, no late packet; at \
             least one packet per step, at most {MAX_PACKETS} in a run)",
            self.steps
        );
        ensure!(
            (1..=MAX_PACKETS).contains(&u64::from(self.packets_per_step))
                && self.steps.saturating_mul(self.packets_per_step.into()) <= MAX_PACKETS,
            "packets_per_step = {} is out of range: allowed 1..={} with steps = {} (at most \
             {MAX_PACKETS} packets in a run, each held in memory while in flight)",
            self.packets_per_step,
            (MAX_PACKETS / self.steps).min(u64::from(u32::MAX)),
            self.steps
        );
        self.check_timeline()
    }

    /// The run's edges must fit in 64 bits: at most 2 command slots per QP of the initial
    /// population and 3 per step (4 counted, with 3 to spare), every slot `cmd_interval`
    /// edges, and the last packet up to `max_delay` edges later. The error names the
    /// parameter that makes it overflow and the largest value that fits with the others.
    fn check_timeline(&self) -> Result<()> {
        let fill = 2 * u64::from(self.live) + 3;
        let Some(slots) = self.steps.checked_mul(4).and_then(|s| s.checked_add(fill)) else {
            bail!(
                "steps = {} is out of range: allowed 0..={} (the run's edges must fit in 64 bits)",
                self.steps,
                (u64::MAX - fill) / 4
            );
        };
        let Some(edges) = slots.checked_mul(self.cmd_interval) else {
            bail!(
                "cmd_interval = {} is out of range: allowed 1..={} with live = {} and steps = {} \
                 (the run's edges must fit in 64 bits)",
                self.cmd_interval,
                (u64::MAX - self.max_delay) / slots,
                self.live,
                self.steps
            );
        };
        if edges.checked_add(self.max_delay).is_none() {
            bail!(
                "max_delay = {} is out of range: allowed 0..={} with cmd_interval = {}, live = {} \
                 and steps = {} (the run's edges must fit in 64 bits)",
                self.max_delay,
                u64::MAX - edges,
                self.cmd_interval,
                self.live,
                self.steps
            );
        }
        Ok(())
    }
}

/// Most packets in one run (`steps * packets_per_step`).
pub const MAX_PACKETS: u64 = 100_000_000;

/// The largest `max_delay` of the policy grid ([`grid`]): its longest quarantine,
/// `max_delay + 1`, is a `quarantine_cycles` (`0..=4294967295`).
pub const GRID_MAX_DELAY: u64 = u32::MAX as u64 - 1;

/// Checks the policy grid of `base` ([`grid`]): its `max_delay`, then every policy.
pub fn validate_grid(base: &StaleParams) -> Result<()> {
    ensure!(
        base.max_delay <= GRID_MAX_DELAY,
        "max_delay = {} is out of range: allowed 0..={GRID_MAX_DELAY} for the policy grid (its \
         longest quarantine, max_delay + 1 cycles, is a quarantine_cycles, at most 4294967295)",
        base.max_delay
    );
    for p in grid(base) {
        p.validate()?;
    }
    Ok(())
}

/// What a run measured. Status counts are indexed by [`Status`] code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleReport {
    pub params: StaleParams,
    /// Lookups of packets whose QP was still live at arrival.
    pub on_time: [u64; 6],
    /// Lookups of packets that arrived after their QP's FREE.
    pub late: [u64; 6],
    /// Successful ALLOCs (QPs created).
    pub created: u64,
    /// ALLOCs answered FULL.
    pub alloc_full: u64,
    /// QUARANTINE_OVERFLOW at the end.
    pub quarantine_overflow: u32,
    /// W: the most successful ALLOCs in any window of `max_delay` edges after the first FREE.
    pub max_allocs_in_window: u64,
    /// F_min: the fewest indexes available to ALLOC (FREE, not quarantined) just after an
    /// ALLOC, over the ALLOCs after the first FREE (`None` if there were none).
    pub min_available: Option<u32>,
    /// Sum over the churn steps of the live QPs at the start of the step (below `live` only
    /// after FULL); see [`StaleReport::mean_live`].
    pub live_sum: u64,
    /// Edge of the last command.
    pub last_edge: u64,
}

/// Why a run cannot misdirect a packet (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guarantee {
    /// `quarantine_cycles >= max_delay`, no overflow.
    Quarantine,
    /// `W < 2^g`.
    Generations,
    /// `reuse = cyclic` and `W < 2^g + (2^g - 1) * F_min`.
    CyclicGenerations,
}

impl Guarantee {
    pub fn as_str(self) -> &'static str {
        match self {
            Guarantee::Quarantine => "quarantine",
            Guarantee::Generations => "generations",
            Guarantee::CyclicGenerations => "cyclic+gen",
        }
    }
}

impl StaleReport {
    pub fn packets(&self) -> u64 {
        self.on_time.iter().chain(&self.late).sum()
    }
    pub fn late_packets(&self) -> u64 {
        self.late.iter().sum()
    }
    /// Late packets answered NOT_ALLOCATED or STALE.
    pub fn rejected(&self) -> u64 {
        self.late[Status::NotAllocated as usize] + self.late[Status::Stale as usize]
    }
    /// Late packets answered OK: resolved to a later QP with the same QPN.
    pub fn misdirected(&self) -> u64 {
        self.late[Status::Ok as usize]
    }
    /// On-time packets answered OK (all of them, or the engine is broken).
    pub fn delivered(&self) -> u64 {
        self.on_time[Status::Ok as usize]
    }
    /// Live QPs at the start of a churn step, on average.
    pub fn mean_live(&self) -> f64 {
        self.live_sum as f64 / self.params.steps.max(1) as f64
    }
    /// Misdirected per late packet.
    pub fn rate(&self) -> f64 {
        self.misdirected() as f64 / self.late_packets().max(1) as f64
    }

    /// The bound of [`Guarantee::CyclicGenerations`]: `2^g + (2^g - 1) * F_min`.
    pub fn cyclic_bound(&self) -> u64 {
        let n = 1u64 << self.params.gen_bits();
        n + (n - 1) * u64::from(self.min_available.unwrap_or(0))
    }

    /// Which guarantee holds for this run, if any.
    pub fn guarantee(&self) -> Option<Guarantee> {
        let p = &self.params;
        let w = self.max_allocs_in_window;
        if p.quarantine_cycles >= p.max_delay
            && p.quarantine_cycles > 0
            && self.quarantine_overflow == 0
        {
            Some(Guarantee::Quarantine)
        } else if w < 1u64 << p.gen_bits() {
            Some(Guarantee::Generations)
        } else if p.reuse == Reuse::Cyclic && w < self.cyclic_bound() {
            Some(Guarantee::CyclicGenerations)
        } else {
            None
        }
    }
}

/// An engine the campaign drives: the model alone, or the hardware through a bench.
pub trait Engine {
    /// Runs a command whose CMD write handshake is at edge `at` (strictly increasing).
    fn command(&mut self, at: u64, cmd: Command) -> Result<CmdResult>;
    /// A packet naming `qpn` arrives at edge `at` (after the commands at edges `<= at`, before
    /// the next one); `late`: its QP was freed.
    fn packet(&mut self, at: u64, qpn: u32, late: bool) -> Result<()>;
    /// Ends the run: status counts of the on-time and of the late packets.
    fn finish(&mut self) -> Result<[[u64; 6]; 2]>;
    /// The model of the engine's state (after the last command).
    fn model(&self) -> &Model;
}

/// The reference model alone.
pub struct ModelEngine {
    model: Model,
    counts: [[u64; 6]; 2],
}

impl ModelEngine {
    pub fn new(cfg: &Config) -> ModelEngine {
        ModelEngine {
            model: Model::new(cfg),
            counts: [[0; 6]; 2],
        }
    }
}

impl Engine for ModelEngine {
    fn command(&mut self, at: u64, cmd: Command) -> Result<CmdResult> {
        Ok(self.model.command_at(cmd, at).0)
    }
    fn packet(&mut self, _at: u64, qpn: u32, late: bool) -> Result<()> {
        let status = self.model.lookup(qpn).status;
        self.counts[late as usize][status as usize] += 1;
        Ok(())
    }
    fn finish(&mut self) -> Result<[[u64; 6]; 2]> {
        Ok(self.counts)
    }
    fn model(&self) -> &Model {
        &self.model
    }
}

/// One QP of the run.
struct Qp {
    qpn: u32,
    freed: bool,
}

/// The campaign driver's state.
struct Driver<'a> {
    p: &'a StaleParams,
    engine: &'a mut dyn Engine,
    rng: ChaCha8Rng,
    qps: Vec<Qp>,
    /// Live (published, not freed) QPs, by number in `qps`; for `newest`, in creation order.
    live: Vec<usize>,
    /// Packets in flight: (arrival edge, sequence, QP number).
    flight: BinaryHeap<Reverse<(u64, u64, usize)>>,
    seq: u64,
    /// Edge of the last command.
    now: u64,
    first_free: Option<u64>,
    allocs: Vec<u64>,
    min_available: Option<u32>,
    alloc_full: u64,
}

impl Driver<'_> {
    /// Looks up every packet arriving before edge `edge`.
    fn arrive_before(&mut self, edge: u64) -> Result<()> {
        while let Some(&Reverse((at, _, qp))) = self.flight.peek() {
            if at >= edge {
                break;
            }
            self.flight.pop();
            let q = &self.qps[qp];
            self.engine.packet(at, q.qpn, q.freed)?;
        }
        Ok(())
    }

    /// Writes a command `cmd_interval` edges after the previous one.
    fn command(&mut self, cmd: Command) -> Result<CmdResult> {
        self.now += self.p.cmd_interval;
        self.arrive_before(self.now)?;
        self.engine
            .command(self.now, cmd)
            .with_context(|| format!("{cmd:?} at edge {}", self.now))
    }

    /// ALLOC + PUBLISH; FULL leaves an idle slot instead of the PUBLISH.
    fn create(&mut self) -> Result<()> {
        let r = self.command(Command::Alloc)?;
        match r.status {
            CmdStatus::Ok => {
                if self.first_free.is_some() {
                    self.allocs.push(self.now);
                    let m = self.engine.model();
                    let cfg = m.config();
                    let quarantined = m.read_register(regs::QUARANTINED).unwrap_or(0);
                    let available = cfg.max_qps() - cfg.first_index - m.in_use() - quarantined;
                    self.min_available =
                        Some(self.min_available.map_or(available, |f| f.min(available)));
                }
                let p = self.command(Command::Publish(r.qpn))?;
                ensure!(p.status == CmdStatus::Ok, "PUBLISH {:#08x}: {p}", r.qpn);
                self.qps.push(Qp {
                    qpn: r.qpn,
                    freed: false,
                });
                self.live.push(self.qps.len() - 1);
            }
            CmdStatus::Full => {
                self.alloc_full += 1;
                self.now += self.p.cmd_interval;
            }
            _ => bail!("ALLOC answered {r}"),
        }
        Ok(())
    }

    fn destroy(&mut self) -> Result<()> {
        let k = match self.p.victim {
            Victim::Random => self.rng.gen_range(0..self.live.len()),
            Victim::Newest => self.live.len() - 1,
        };
        let qp = self.live.swap_remove(k);
        let qpn = self.qps[qp].qpn;
        let r = self.command(Command::Free(qpn))?;
        ensure!(r.status == CmdStatus::Ok, "FREE {qpn:#08x}: {r}");
        self.qps[qp].freed = true;
        self.first_free.get_or_insert(self.now);
        Ok(())
    }

    fn send(&mut self) {
        if self.live.is_empty() {
            return;
        }
        for _ in 0..self.p.packets_per_step {
            let qp = self.live[self.rng.gen_range(0..self.live.len())];
            let delay = self.rng.gen_range(0..=self.p.max_delay);
            self.flight.push(Reverse((self.now + delay, self.seq, qp)));
            self.seq += 1;
        }
    }
}

/// Runs the campaign on `engine` (whose configuration must be `params.config()`).
pub fn run_with(params: &StaleParams, engine: &mut dyn Engine) -> Result<StaleReport> {
    params.validate()?;
    let mut d = Driver {
        p: params,
        engine,
        rng: ChaCha8Rng::seed_from_u64(params.seed),
        qps: Vec::new(),
        live: Vec::new(),
        flight: BinaryHeap::new(),
        seq: 0,
        now: 0,
        first_free: None,
        allocs: Vec::new(),
        min_available: None,
        alloc_full: 0,
    };
    let target = params.live as usize;
    while d.live.len() < target {
        d.create()?;
        ensure!(
            d.alloc_full == 0,
            "ALLOC answered FULL while creating the population"
        );
    }
    let mut live_sum = 0;
    for _ in 0..params.steps {
        live_sum += d.live.len() as u64;
        d.send();
        if d.live.len() >= target {
            d.destroy()?;
        } else {
            d.now += params.cmd_interval;
        }
        d.create()?;
    }
    d.arrive_before(u64::MAX)?;
    let [on_time, late] = d.engine.finish()?;
    // W: the most ALLOCs in a window [A_i, A_i + max_delay).
    let mut w = 0;
    let mut j = 0;
    for i in 0..d.allocs.len() {
        while j < d.allocs.len() && d.allocs[j] < d.allocs[i] + params.max_delay {
            j += 1;
        }
        w = w.max(j - i);
    }
    let quarantine_overflow = d
        .engine
        .model()
        .read_register(regs::QUARANTINE_OVERFLOW)
        .unwrap_or(0);
    Ok(StaleReport {
        params: params.clone(),
        on_time,
        late,
        created: d.qps.len() as u64,
        alloc_full: d.alloc_full,
        quarantine_overflow,
        max_allocs_in_window: w as u64,
        min_available: d.min_available,
        live_sum,
        last_edge: d.now,
    })
}

/// Runs the campaign on the reference model alone. Panics if `params` do not validate.
pub fn run(params: &StaleParams) -> StaleReport {
    let cfg = params
        .config()
        .unwrap_or_else(|e| panic!("stale::run: {e:#}"));
    run_with(params, &mut ModelEngine::new(&cfg)).unwrap_or_else(|e| panic!("stale::run: {e:#}"))
}

/// The policy grid of the table: reuse × quarantine (off, `max_delay / 4`, `max_delay + 1`)
/// × generation bits (0, 4, 8: index_bits 24, 20, 16), on the rest of `base`.
pub fn grid(base: &StaleParams) -> Vec<StaleParams> {
    let mut v = Vec::new();
    for reuse in [Reuse::Lowest, Reuse::Cyclic] {
        for quarantine_cycles in [0, base.max_delay / 4, base.max_delay.saturating_add(1)] {
            for index_bits in [24, 20, 16] {
                v.push(StaleParams {
                    reuse,
                    quarantine_cycles,
                    index_bits,
                    ..base.clone()
                });
            }
        }
    }
    v
}

/// The header of a table: the parameters every row shares.
pub fn describe(base: &StaleParams) -> String {
    let step = 3 * base.cmd_interval;
    format!(
        "max_qps {} (first_index {}), {} live QPs ({} spare indexes), a command every {} edges \
         (a QP replaced every {step} edges: {:.0} per max_delay), victim {}, delays 0..={} edges, \
         {} packets per step x {} steps, quarantine_depth {}, seed {}",
        base.max_qps,
        base.first_index,
        base.live,
        base.max_qps - base.first_index - base.live,
        base.cmd_interval,
        base.max_delay as f64 / step as f64,
        base.victim.as_str(),
        base.max_delay,
        base.packets_per_step,
        base.steps,
        base.quarantine_depth,
        base.seed
    )
}

/// The guarantee of a report, with the numbers that make it hold, or `measured`.
pub fn guarantee_text(r: &StaleReport) -> String {
    let g = r.params.gen_bits();
    match r.guarantee() {
        Some(Guarantee::Quarantine) => "quarantine (Q >= max_delay)".to_string(),
        Some(Guarantee::Generations) => format!("generations (W < 2^{g})"),
        Some(Guarantee::CyclicGenerations) => format!(
            "cyclic+gen (W < 2^{g} + (2^{g}-1)*{} = {})",
            r.min_available.unwrap_or(0),
            r.cyclic_bound()
        ),
        None => "measured".to_string(),
    }
}

/// One markdown row per report, under a header.
pub fn format_rows(reports: &[StaleReport]) -> String {
    let mut s = String::new();
    s.push_str(
        "| reuse | quarantine | gen bits | late | rejected (NOT_ALLOCATED / STALE) | misdirected \
         | per late packet | ALLOC FULL | overflow | W | 0 guaranteed by |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in reports {
        let p = &r.params;
        let quarantine = if p.quarantine_cycles == 0 {
            "off".to_string()
        } else {
            p.quarantine_cycles.to_string()
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} ({} / {}) | {} | {:.2} % | {} | {} | {} | {} |",
            p.reuse.as_str(),
            quarantine,
            p.gen_bits(),
            r.late_packets(),
            r.rejected(),
            r.late[Status::NotAllocated as usize],
            r.late[Status::Stale as usize],
            r.misdirected(),
            100.0 * r.rate(),
            r.alloc_full,
            r.quarantine_overflow,
            r.max_allocs_in_window,
            guarantee_text(r)
        );
    }
    s
}

/// Runs the whole policy grid on `base` (model only) and prints it as a markdown table.
pub fn table(base: &StaleParams) -> String {
    let reports: Vec<StaleReport> = grid(base).iter().map(run).collect();
    format!("{}\n\n{}", describe(base), format_rows(&reports))
}
