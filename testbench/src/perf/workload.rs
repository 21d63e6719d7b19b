//! Workloads of `qptable bench --workload`: lookup traffic drawn per port from the QPNs the
//! engine itself handed out, or from the whole 24-bit space.
//!
//! # What a run does
//!
//! [`bench_workloads`], for one configuration, on the checked [`Bench`] fixture (every
//! response and every command result compared with the reference model):
//!
//! 1. sets TABLE_BASE; in a two_level configuration whose directory is in memory it also
//!    writes every directory entry into the bench's memory ([`directory_entry`]: present,
//!    except every 4th entry, so that PAGE_ABSENT occurs too), and in two_level on_chip it
//!    writes the same entries through DIR_INDEX/DIR_ENTRY_LO/DIR_ENTRY_HI;
//! 2. creates the **live set**: `live` QPNs, each by an ALLOC command on the control port
//!    (CMD register) followed by PUBLISH, so every live QPN is VALID; the set is then shuffled
//!    with the seed, so that the Zipf rank of a QPN says nothing about its index;
//! 3. for each workload given, runs `warmup` lookups per port (not measured), then queues
//!    `lookups` lookups on every port, drawn by that port's [`Kind`] from its own generator
//!    (seeded by the seed, the workload's position and the port's; the warm-up lookups come
//!    from the same generators), and runs them with a request every cycle and always-ready
//!    consumers (as the
//!    throughput phase of [`bench_config`](super::bench_config)). It measures per port the
//!    lookups per cycle from the first to the last request handshake, the status of every
//!    response (the scoreboard's counts, checked against the model), and, when the
//!    directory is in memory, the memory reads: the AR handshakes seen by the bench's AXI
//!    memory model over the whole window (shared by the ports), against the lookups that
//!    pass the on-chip checks (OK, PAGE_ABSENT, MEM_ERROR; the only ones that read the
//!    directory) and the draws that hit the live set.
//!
//! # Kinds
//!
//! * `uniform`: a live QPN, each equally likely;
//! * `zipf:S`: the live QPN of rank `k` (1-based, after the shuffle) with probability
//!   `k^-S / H(N, S)`, `H(N, S) = sum_{i=1..N} i^-S`, drawn by [`Zipf`] (`rand_distr`);
//!   `S` in `0..=10` (`zipf:0` is uniform);
//! * `garbage`: a uniformly random 24-bit QPN (index and generation bits alike), whatever
//!   the live set: mostly OUT_OF_RANGE or NOT_ALLOCATED, a live QPN by chance.
//!
//! A workload is written `KIND` (every port), `PORT=KIND,...` (the ports named; the others
//! `uniform`), or both: `KIND,PORT=KIND` (the bare kind is the default of the ports not
//! named), e.g. `tx=zipf:0.99,rx=garbage` or `zipf:1.2,rx=garbage`.

use super::measure::{in_memory, run_window, Xs};
use crate::bench::{Bench, BenchOptions, MemOptions};
use anyhow::{bail, ensure, Result};
use qptable::config::{Config, Directory, Mode};
use qptable::model::{regs, CmdStatus, Command, Status};
use rand::Rng;
use std::fmt;
use std::time::Instant;

/// Largest Zipf exponent accepted.
pub const MAX_ZIPF_S: f64 = 10.0;

/// What the allowed workload values are, for error messages.
pub const WORKLOAD_SYNTAX: &str = "KIND or PORT=KIND,... (a bare KIND is the default of the \
     ports not named), KIND one of uniform, zipf:S (S a number in 0..=10), garbage";

/// How one port draws its lookups.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Uniform over the live set.
    Uniform,
    /// Zipf with this exponent over the live set (rank 1 most frequent).
    Zipf(f64),
    /// Uniformly random 24-bit QPNs.
    Garbage,
}

impl Kind {
    /// Parses `uniform`, `zipf:S` or `garbage`.
    pub fn parse(s: &str) -> Result<Kind> {
        match s {
            "uniform" => return Ok(Kind::Uniform),
            "garbage" => return Ok(Kind::Garbage),
            _ => {}
        }
        if let Some(x) = s.strip_prefix("zipf:") {
            let e: f64 = x.parse().map_err(|_| {
                anyhow::anyhow!(
                    "`{s}`: the Zipf exponent `{x}` is not a number (allowed 0..={MAX_ZIPF_S})"
                )
            })?;
            ensure!(
                (0.0..=MAX_ZIPF_S).contains(&e),
                "`{s}`: the Zipf exponent {x} is out of range (allowed 0..={MAX_ZIPF_S})"
            );
            return Ok(Kind::Zipf(e));
        }
        bail!("`{s}` is not a workload kind (allowed: uniform, zipf:S with S in 0..={MAX_ZIPF_S}, garbage)")
    }

    /// Whether the kind draws from the live set.
    pub fn needs_live(self) -> bool {
        !matches!(self, Kind::Garbage)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Uniform => write!(f, "uniform"),
            Kind::Zipf(s) => write!(f, "zipf:{s}"),
            Kind::Garbage => write!(f, "garbage"),
        }
    }
}

/// A workload as given on the command line: a default kind and per-port kinds.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    /// The text it was parsed from.
    pub text: String,
    /// Kind of the ports not named (`uniform` if not given).
    pub default: Kind,
    /// `(port, kind)` in the order given.
    pub ports: Vec<(String, Kind)>,
}

impl WorkloadSpec {
    /// Parses a `--workload` value (see the [module documentation](self)).
    pub fn parse(text: &str) -> Result<WorkloadSpec> {
        let mut default = None;
        let mut ports: Vec<(String, Kind)> = vec![];
        ensure!(!text.trim().is_empty(), "the workload is empty");
        for part in text.split(',') {
            let part = part.trim();
            match part.split_once('=') {
                Some((p, k)) => {
                    let p = p.trim();
                    ensure!(!p.is_empty(), "`{part}`: no port name before `=`");
                    ensure!(
                        ports.iter().all(|(q, _)| q != p),
                        "port `{p}` is given twice"
                    );
                    ports.push((p.to_string(), Kind::parse(k.trim())?));
                }
                None => {
                    ensure!(default.is_none(), "two default kinds (`{part}`)");
                    default = Some(Kind::parse(part)?);
                }
            }
        }
        Ok(WorkloadSpec {
            text: text.to_string(),
            default: default.unwrap_or(Kind::Uniform),
            ports,
        })
    }

    /// The kind of each port of `cfg`, in port order; an error names a port `cfg` lacks.
    pub fn resolve(&self, cfg: &Config) -> Result<Vec<Kind>> {
        for (p, _) in &self.ports {
            ensure!(
                cfg.ports.contains(p),
                "workload `{}`: the configuration (top {}) has no port `{p}` (its ports: {})",
                self.text,
                cfg.top,
                cfg.ports.join(", ")
            );
        }
        Ok(cfg
            .ports
            .iter()
            .map(|name| {
                self.ports
                    .iter()
                    .find(|(p, _)| p == name)
                    .map_or(self.default, |(_, k)| *k)
            })
            .collect())
    }
}

/// Zipf(s) over the ranks `1..=n`: `P(k) = k^-s / H(n, s)`, drawn by `rand_distr`'s
/// sampler (O(1) memory and time per draw for any `n`, any `s >= 0`; `s = 0` is uniform).
#[derive(Clone, Debug)]
pub struct Zipf {
    n: u64,
    inner: rand_distr::Zipf<f64>,
}

impl Zipf {
    /// The distribution over `1..=n` (`n >= 1`) with exponent `s` (`0 <= s`, finite).
    pub fn new(n: u64, s: f64) -> Zipf {
        assert!(n >= 1, "Zipf over no item");
        assert!(s >= 0.0 && s.is_finite(), "Zipf exponent {s}");
        let inner = rand_distr::Zipf::new(n, s)
            .unwrap_or_else(|e| panic!("Zipf over {n} items, exponent {s}: {e}"));
        Zipf { n, inner }
    }

    /// The number of items.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// A rank in `1..=n`.
    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        // The sampler returns a whole number in [1, n] as a float.
        (rng.sample(self.inner) as u64).clamp(1, self.n)
    }

    /// The exact probability of rank `k` (for tests: O(n)).
    pub fn pmf(n: u64, s: f64) -> Vec<f64> {
        let w: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-s)).collect();
        let h: f64 = w.iter().sum();
        w.into_iter().map(|x| x / h).collect()
    }
}

/// A non-zero generator state from `seed` and a stream number `k` (splitmix64's finaliser, so
/// that neighbouring streams are unrelated).
fn mix(seed: u64, k: u64) -> u64 {
    let mut z = seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}

/// Draws the QPNs of one port: from `live` by `kind`, or garbage.
struct Drawer<'a> {
    kind: Kind,
    live: &'a [u32],
    zipf: Option<Zipf>,
    rng: Xs,
}

impl Drawer<'_> {
    fn next(&mut self) -> u32 {
        match self.kind {
            Kind::Garbage => self.rng.below(1 << 24) as u32,
            Kind::Uniform => self.live[self.rng.below(self.live.len() as u64) as usize],
            Kind::Zipf(_) => {
                let z = self.zipf.as_ref().expect("zipf drawer");
                self.live[(z.sample(&mut self.rng) - 1) as usize]
            }
        }
    }
}

/// The directory entry the workload bench writes for directory index `i` (two_level):
/// present with a page base of its own, except every 4th entry (`i % 4 == 3`), absent.
pub fn directory_entry(cfg: &Config, i: u32) -> u64 {
    if i % 4 == 3 {
        return 0;
    }
    let page_bytes = u64::from(cfg.entry_bytes) << cfg.leaf_bits;
    let base = 0x40_0000_0000u64 + u64::from(i) * page_bytes.next_multiple_of(64);
    (base & !63) | 1
}

/// Figures of one port in one workload.
#[derive(Clone, Debug)]
pub struct PortWorkload {
    pub name: String,
    pub kind: Kind,
    /// Requests accepted in the window.
    pub lookups: u64,
    /// Cycles from the first to the last request handshake, both included.
    pub cycles: u64,
    /// `lookups / cycles`.
    pub rate: f64,
    /// Responses per status code (0..=5), from the scoreboard.
    pub statuses: [u64; 6],
    /// Draws that were a live QPN (by the generator's own count).
    pub live_hits: u64,
    /// Lookups that read memory by the model: in_memory, OK + PAGE_ABSENT + MEM_ERROR; 0
    /// otherwise.
    pub model_mem_reads: u64,
}

impl PortWorkload {
    /// Model memory reads per lookup.
    pub fn mem_reads_per_lookup(&self) -> f64 {
        self.model_mem_reads as f64 / self.lookups.max(1) as f64
    }

    /// Fraction of the lookups answered with no memory access.
    pub fn no_memory_fraction(&self) -> f64 {
        1.0 - self.mem_reads_per_lookup()
    }
}

/// One workload on one configuration.
#[derive(Clone, Debug)]
pub struct WorkloadRun {
    pub spec: WorkloadSpec,
    pub ports: Vec<PortWorkload>,
    /// With a memory port: AR handshakes the AXI memory model saw in the window.
    pub axi_reads: Option<u64>,
    /// With a memory port: AW handshakes (writes) it saw in the window.
    pub axi_writes: Option<u64>,
}

impl WorkloadRun {
    /// Lookups of every port.
    pub fn lookups(&self) -> u64 {
        self.ports.iter().map(|p| p.lookups).sum()
    }

    /// Model memory reads of every port.
    pub fn model_mem_reads(&self) -> u64 {
        self.ports.iter().map(|p| p.model_mem_reads).sum()
    }
}

/// Every workload on one configuration.
#[derive(Clone, Debug)]
pub struct WorkloadReport {
    pub label: String,
    pub cfg: Config,
    /// QPNs allocated and published before the workloads.
    pub live: u32,
    /// Those QPNs, in Zipf rank order (rank 1 first).
    pub live_qpns: Vec<u32>,
    pub lookups: u64,
    /// Unmeasured lookups per port before each workload.
    pub warmup: u64,
    pub seed: u64,
    /// in_memory: the bench memory's latency.
    pub mem_latency: u64,
    pub runs: Vec<WorkloadRun>,
    pub mismatches: Vec<String>,
    pub seconds: f64,
}

/// What [`bench_workloads`] runs.
#[derive(Clone, Debug)]
pub struct WorkloadOptions {
    /// The workloads, run in turn on the same engine and live set.
    pub specs: Vec<WorkloadSpec>,
    /// QPNs created before the workloads; `None`: [`default_live`].
    pub live: Option<u32>,
    /// Measured lookups per port and workload.
    pub lookups: u64,
    /// Lookups per port run before each workload's measured window, drawn the same way and
    /// not measured (e.g. to fill a cache; 0: none).
    pub warmup: u64,
    /// Seed of the live set's shuffle and of every port's generator.
    pub seed: u64,
    /// Latency of the bench's memory (AXI model), cycles.
    pub mem_latency: u64,
}

/// The live set of `cfg` when `--live` is not given: the whole ALLOC pool, at most 4096.
pub fn default_live(cfg: &Config) -> u32 {
    pool(cfg).min(4096)
}

/// Indexes ALLOC can hand out.
pub fn pool(cfg: &Config) -> u32 {
    cfg.max_qps() - cfg.first_index
}

/// Checks `--live` and the workloads against `cfg` (before anything is built).
pub fn check(cfg: &Config, label: &str, opts: &WorkloadOptions) -> Result<()> {
    let n = opts.live.unwrap_or_else(|| default_live(cfg));
    ensure!(
        n <= pool(cfg),
        "live = {n} is out of range for {label}: allowed 0..={} (the indexes ALLOC hands out, \
         first_index {} to max_qps - 1 = {})",
        pool(cfg),
        cfg.first_index,
        cfg.max_qps() - 1
    );
    for s in &opts.specs {
        let kinds = s.resolve(cfg)?;
        ensure!(
            n > 0 || kinds.iter().all(|k| !k.needs_live()),
            "workload `{}` draws from the live set, but live = 0 for {label}: allowed 1..={}",
            s.text,
            pool(cfg)
        );
    }
    Ok(())
}

/// Runs the workloads of `opts` on `cfg` (see the [module documentation](self)).
pub fn bench_workloads(
    label: &str,
    cfg: &Config,
    opts: &WorkloadOptions,
) -> Result<WorkloadReport> {
    check(cfg, label, opts)?;
    let t0 = Instant::now();
    let (lookups, seed) = (opts.lookups, opts.seed);
    let n_live = opts.live.unwrap_or_else(|| default_live(cfg));
    let bench_opts = BenchOptions {
        seed,
        ..Default::default()
    };
    let mut bench = Bench::new_with_mem(
        cfg,
        &bench_opts,
        &MemOptions {
            latency: qptable_sim::axi_mem::Latency::Fixed(opts.mem_latency),
            ..Default::default()
        },
    )?;
    // Long runs: the sources need not keep what they sent.
    bench.sources = std::mem::take(&mut bench.sources)
        .into_iter()
        .map(|s| s.with_history(false))
        .collect();
    bench.write(regs::TABLE_BASE_LO, 0x8000_0000)?;
    bench.write(regs::TABLE_BASE_HI, 0x0000_0012)?;
    if cfg.mode == Mode::TwoLevel {
        for i in 0..bench.sb.model.dir_entries() {
            let e = directory_entry(cfg, i);
            if cfg.directory == Directory::InMemory {
                bench.mem_write_dir(i, e);
            } else {
                bench.write(regs::DIR_INDEX, i)?;
                bench.write(regs::DIR_ENTRY_LO, e as u32)?;
                bench.write(regs::DIR_ENTRY_HI, (e >> 32) as u32)?;
            }
        }
    }
    // The live set, by the engine's own ALLOC.
    let mut live_set = Vec::with_capacity(n_live as usize);
    for _ in 0..n_live {
        let r = bench.command(Command::Alloc)?;
        ensure!(
            r.status == CmdStatus::Ok,
            "ALLOC answered {:?} after {} QPNs",
            r.status,
            live_set.len()
        );
        bench.command(Command::Publish(r.qpn))?;
        live_set.push(r.qpn);
    }
    let mut rng = Xs(mix(seed, 0));
    for i in (1..live_set.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        live_set.swap(i, j);
    }
    let mut sorted = live_set.clone();
    sorted.sort_unstable();

    let nports = cfg.ports.len();
    let mut runs = vec![];
    for (w, spec) in opts.specs.iter().enumerate() {
        let kinds = spec.resolve(cfg)?;
        let mut drawers: Vec<Drawer> = kinds
            .iter()
            .enumerate()
            .map(|(p, &kind)| Drawer {
                kind,
                live: &live_set,
                zipf: match kind {
                    Kind::Zipf(s) => Some(Zipf::new(live_set.len() as u64, s)),
                    _ => None,
                },
                rng: Xs(mix(seed, ((w as u64) << 8) + p as u64 + 1)),
            })
            .collect();
        if opts.warmup > 0 {
            for (p, d) in drawers.iter_mut().enumerate() {
                for t in 0..opts.warmup {
                    bench.lookup(p, d.next(), t);
                }
            }
            run_window(&mut bench, opts.warmup, |_| {})?;
        }
        let mut hits = vec![0u64; nports];
        for (p, d) in drawers.iter_mut().enumerate() {
            for t in 0..lookups {
                let q = d.next();
                hits[p] += sorted.binary_search(&q).is_ok() as u64;
                bench.lookup(p, q, t);
            }
        }
        let before: Vec<[u64; 6]> = (0..nports).map(|p| bench.sb.status_counts(p)).collect();
        let axi = |b: &Bench| b.mem.as_ref().map(|m| (m.ar_count(), m.aw_count()));
        let axi_before = axi(&bench);
        let (count, first, last) = run_window(&mut bench, lookups, |_| {})?;
        let axi_after = axi(&bench);
        let mut ports = vec![];
        for p in 0..nports {
            let after = bench.sb.status_counts(p);
            let statuses: [u64; 6] = std::array::from_fn(|s| after[s] - before[p][s]);
            let cycles = last[p] - first[p] + 1;
            let model_mem_reads = if in_memory(cfg) {
                [Status::Ok, Status::PageAbsent, Status::MemError]
                    .iter()
                    .map(|&s| statuses[s as usize])
                    .sum()
            } else {
                0
            };
            ports.push(PortWorkload {
                name: cfg.ports[p].clone(),
                kind: kinds[p],
                lookups: count[p],
                cycles,
                rate: count[p] as f64 / cycles as f64,
                statuses,
                live_hits: hits[p],
                model_mem_reads,
            });
        }
        let (axi_reads, axi_writes) = match (axi_before, axi_after) {
            (Some(a), Some(b)) => (Some(b.0 - a.0), Some(b.1 - a.1)),
            _ => (None, None),
        };
        runs.push(WorkloadRun {
            spec: spec.clone(),
            ports,
            axi_reads,
            axi_writes,
        });
    }
    if let Err(e) = bench.finish() {
        bench.mismatches.push(format!("{e:#}"));
    }
    Ok(WorkloadReport {
        label: label.to_string(),
        cfg: cfg.clone(),
        live: n_live,
        live_qpns: live_set.clone(),
        lookups,
        warmup: opts.warmup,
        seed,
        mem_latency: opts.mem_latency,
        runs,
        mismatches: bench.mismatches.clone(),
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// `x / n` as a percentage, with the count when it is below 0.1 %.
fn pct(x: u64, n: f64) -> String {
    let p = 100.0 * x as f64 / n;
    if x > 0 && p < 0.1 {
        format!("{p:.3}% ({x})")
    } else {
        format!("{p:.1}%")
    }
}

/// The closing lines of a report: no mismatch (with the run's seconds), or the first ten.
pub(crate) fn mismatch_lines(o: &mut String, mismatches: &[String], seconds: f64) {
    use std::fmt::Write as _;
    if mismatches.is_empty() {
        let _ = writeln!(
            o,
            "0 mismatches against the reference model ({seconds:.1} s)"
        );
    } else {
        let _ = writeln!(
            o,
            "MISMATCHES against the reference model: {}",
            mismatches.len()
        );
        for m in mismatches.iter().take(10) {
            let _ = writeln!(o, "  {m}");
        }
    }
}

/// Short names of the statuses, by code.
const STATUS_SHORT: [&str; 6] = ["OK", "OOR", "NOT_ALLOC", "STALE", "ABSENT", "MEM_ERR"];

/// The line that opens a `qptable bench --workload` run.
pub fn header(opts: &WorkloadOptions) -> String {
    let w: Vec<&str> = opts.specs.iter().map(|s| s.text.as_str()).collect();
    format!(
        "qptable bench, workloads {}: {} lookups per port and workload after {} of warm-up, \
         live set {}, seed {}\n\
         (status shares: OK, OOR = OUT_OF_RANGE, NOT_ALLOC = NOT_ALLOCATED, STALE, ABSENT = \
         PAGE_ABSENT, MEM_ERR = MEM_ERROR)\n",
        w.join(" then "),
        opts.lookups,
        opts.warmup,
        opts.live.map_or(
            "as default (the ALLOC pool, at most 4096)".to_string(),
            |n| n.to_string()
        ),
        opts.seed
    )
}

impl WorkloadReport {
    /// The report as text: per workload and port, lookups per cycle, the status mix, memory
    /// reads per lookup and the share answered with no memory access.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let c = &self.cfg;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "== {} (top {}): index_bits {}, max_qps {}, mode {:?}, directory {:?}, ports {:?}",
            self.label,
            c.top,
            c.index_bits,
            c.max_qps(),
            c.mode,
            c.directory,
            c.ports
        );
        let _ = writeln!(
            o,
            "live set: {} QPNs, each ALLOC then PUBLISH on the control port (checked), shuffled; \
             a request every cycle on every port, consumers always ready",
            self.live
        );
        let mem = in_memory(c);
        if mem {
            let _ = writeln!(
                o,
                "directory in memory (latency {} cycles, max_outstanding {}): every 4th entry \
                 absent; a lookup reads memory iff it passes the on-chip checks (OK, \
                 PAGE_ABSENT, MEM_ERROR)",
                self.mem_latency, c.max_outstanding
            );
        }
        for r in &self.runs {
            let _ = writeln!(o, "workload {}:", r.spec.text);
            for p in &r.ports {
                let n = p.lookups.max(1) as f64;
                let mix: Vec<String> = (0..6)
                    .filter(|&s| p.statuses[s] > 0)
                    .map(|s| format!("{} {}", STATUS_SHORT[s], pct(p.statuses[s], n)))
                    .collect();
                let memory = if mem {
                    format!(
                        "memory reads/lookup {:.4}, no memory access {:.2} %",
                        p.mem_reads_per_lookup(),
                        100.0 * p.no_memory_fraction()
                    )
                } else {
                    "no memory port: no memory access 100 %".to_string()
                };
                let _ = writeln!(
                    o,
                    "  port {:>4} {:<12} {:>8} lookups in {:>8} cycles = {:.3} lookups/cycle; {}; live {}; {}",
                    p.name,
                    p.kind.to_string(),
                    p.lookups,
                    p.cycles,
                    p.rate,
                    mix.join(" "),
                    pct(p.live_hits, n),
                    memory
                );
            }
            if let Some(a) = r.axi_reads {
                let per = a as f64 / r.lookups().max(1) as f64;
                let model = if mem {
                    let m = r.model_mem_reads();
                    let same = if a == m { "equal" } else { "DIFFERENT" };
                    format!("; the model says {m}: {same}")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    o,
                    "  memory reads seen by the AXI model: {a} = {per:.4} per lookup over all ports{model}; writes {}",
                    r.axi_writes.unwrap_or(0)
                );
            }
        }
        mismatch_lines(&mut o, &self.mismatches, self.seconds);
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pearson's chi-square of `counts` (of `total` draws) against `pmf`, over bins of
    /// consecutive ranks each expecting at least 50 draws (the remainder joins the last bin).
    /// Returns the statistic and the degrees of freedom.
    fn chi_square(counts: &[u64], pmf: &[f64], total: u64) -> (f64, usize) {
        let mut bins: Vec<(f64, f64)> = vec![];
        let (mut o, mut e) = (0.0, 0.0);
        for (c, p) in counts.iter().zip(pmf) {
            o += *c as f64;
            e += p * total as f64;
            if e >= 50.0 {
                bins.push((o, e));
                (o, e) = (0.0, 0.0);
            }
        }
        match bins.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => bins.push((o, e)),
        }
        let chi = bins.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
        (chi, bins.len().saturating_sub(1))
    }

    /// The chi-square statistic a correct sampler stays below: the mean plus 6 standard
    /// deviations (a false failure is far rarer than 1e-6; the seeds are fixed anyway).
    fn bound(df: usize) -> f64 {
        df as f64 + 6.0 * (2.0 * df as f64).sqrt()
    }

    fn draw(n: u64, s: f64, total: u64, seed: u64) -> Vec<u64> {
        let z = Zipf::new(n, s);
        let mut rng = Xs(seed | 1);
        let mut counts = vec![0u64; n as usize];
        for _ in 0..total {
            let k = z.sample(&mut rng);
            assert!((1..=n).contains(&k), "rank {k} of {n}");
            counts[(k - 1) as usize] += 1;
        }
        counts
    }

    /// The empirical frequencies of the sampler match the exact pmf (chi-square), and the
    /// same draws fail against a pmf whose exponent is off by 0.05, so the check has the
    /// power to see a wrong exponent.
    #[test]
    fn zipf_frequencies_match_the_exact_pmf() {
        for (n, s, total, seed) in [
            (1000u64, 0.99, 2_000_000u64, 11u64),
            (1000, 1.0, 1_000_000, 12),
            (100, 2.5, 1_000_000, 13),
            (50, 0.0, 500_000, 14),
            (1 << 20, 0.99, 2_000_000, 15),
            (65536, 1.2, 1_000_000, 16),
        ] {
            println!("Zipf(n {n}, s {s}): {total} draws, seed {seed}");
            let counts = draw(n, s, total, seed);
            let (chi, df) = chi_square(&counts, &Zipf::pmf(n, s), total);
            println!(
                "  chi-square {chi:.1} with {df} degrees of freedom (bound {:.1})",
                bound(df)
            );
            assert!(
                chi < bound(df),
                "Zipf(n {n}, s {s}): chi-square {chi:.1}, df {df}"
            );
            for wrong in [s - 0.05, s + 0.05].into_iter().filter(|&w| w >= 0.0) {
                let (chi_w, df_w) = chi_square(&counts, &Zipf::pmf(n, wrong), total);
                println!("  against s = {wrong:.2}: chi-square {chi_w:.1}, df {df_w}");
                assert!(
                    chi_w > 3.0 * bound(df_w),
                    "a wrong exponent {wrong} is not seen: chi-square {chi_w:.1}, df {df_w}"
                );
            }
            // Rank-frequency of the head: the top ranks within 4 standard deviations.
            let pmf = Zipf::pmf(n, s);
            for k in 0..5.min(n as usize) {
                let e = pmf[k] * total as f64;
                let sd = (e * (1.0 - pmf[k])).sqrt();
                assert!(
                    (counts[k] as f64 - e).abs() < 4.0 * sd,
                    "rank {}: {} draws, expected {e:.0}",
                    k + 1,
                    counts[k]
                );
            }
        }
    }

    #[test]
    fn zipf_of_one_item_and_extreme_exponents_stay_in_range() {
        let mut rng = Xs(3);
        let z = Zipf::new(1, 0.99);
        assert!((0..1000).all(|_| z.sample(&mut rng) == 1));
        for s in [0.0, 1e-9, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, MAX_ZIPF_S] {
            let z = Zipf::new(1 << 24, s);
            for _ in 0..10_000 {
                let k = z.sample(&mut rng);
                assert!((1..=1 << 24).contains(&k), "s {s}: rank {k}");
            }
        }
    }

    #[test]
    fn workload_specs_parse_and_resolve() {
        let cfg = crate::configs::config(&["ports=tx,rx,cnp"]);
        let w = WorkloadSpec::parse("tx=zipf:0.99,rx=garbage").unwrap();
        assert_eq!(
            w.resolve(&cfg).unwrap(),
            [Kind::Zipf(0.99), Kind::Garbage, Kind::Uniform]
        );
        let w = WorkloadSpec::parse("zipf:1.5, cnp=uniform").unwrap();
        assert_eq!(
            w.resolve(&cfg).unwrap(),
            [Kind::Zipf(1.5), Kind::Zipf(1.5), Kind::Uniform]
        );
        assert_eq!(
            WorkloadSpec::parse("garbage")
                .unwrap()
                .resolve(&cfg)
                .unwrap(),
            [Kind::Garbage; 3]
        );
        let e = WorkloadSpec::parse("qp=garbage")
            .unwrap()
            .resolve(&cfg)
            .unwrap_err();
        assert!(e.to_string().contains("no port `qp`"), "{e}");
    }
}
