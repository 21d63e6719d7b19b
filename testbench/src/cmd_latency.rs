//! Command latency against table occupancy: ALLOC and FREE (no lookup in flight, so the
//! drain is one cycle) timed in cycles from the CMD write handshake to the write response,
//! at 0 %, 50 %, 99.9 % and 100 % full (SPEC §7: bounded, not growing with occupancy; at
//! index_bits 24, aim for <= 64).
//!
//! The table is filled by ALLOC commands driven straight on the AXI4-Lite pins (no agent,
//! no scoreboard: this is a benchmark, the testbenches check the results), then emptied again
//! by random FREEs down to each level, so the free indexes are scattered, not in one run:
//! FIND has to climb and descend the free map's levels. At each level it times `samples`
//! ALLOC + FREE pairs (the FREE returns the index, keeping the level).

use anyhow::{bail, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdStatus, Command};
use qptable_sim::{BuildOptions, In, Model, Out, Sim};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;

struct Pins {
    awaddr: In,
    awvalid: In,
    wdata: In,
    wstrb: In,
    wvalid: In,
    bready: In,
    araddr: In,
    arvalid: In,
    rready: In,
    awready: Out,
    bvalid: Out,
    arready: Out,
    rvalid: Out,
    rdata: Out,
}

struct Driver {
    sim: Sim,
    p: Pins,
}

impl Driver {
    /// Writes CMD; returns the cycles from the AW/W handshake to the B handshake.
    fn command(&mut self, cmd: Command) -> Result<u64> {
        let (s, p) = (&mut self.sim, &self.p);
        s.set(p.awaddr, u64::from(regs::CMD));
        s.set(p.wdata, u64::from(cmd.encode()));
        s.set(p.wstrb, 0xF);
        s.set(p.awvalid, 1);
        s.set(p.wvalid, 1);
        s.set(p.bready, 1);
        let mut guard = 0;
        loop {
            s.step();
            if s.is_high(p.awready) {
                break;
            }
            guard += 1;
            if guard > 1_000_000 {
                bail!("CMD write not accepted");
            }
        }
        let start = s.cycle();
        s.set(p.awvalid, 0);
        s.set(p.wvalid, 0);
        loop {
            s.step();
            if s.is_high(p.bvalid) {
                return Ok(s.cycle() - start);
            }
            if s.cycle() - start > 1_000_000 {
                bail!("no write response for {cmd:?}");
            }
        }
    }

    fn read(&mut self, addr: u32) -> Result<u32> {
        let (s, p) = (&mut self.sim, &self.p);
        s.set(p.araddr, u64::from(addr));
        s.set(p.arvalid, 1);
        s.set(p.rready, 1);
        loop {
            s.step();
            if s.is_high(p.arready) {
                break;
            }
        }
        s.set(p.arvalid, 0);
        for _ in 0..100 {
            s.step();
            if s.is_high(p.rvalid) {
                return Ok(s.get(p.rdata) as u32);
            }
        }
        bail!("no read response at {addr:#x}")
    }
}

/// (min, median, max) of a sample.
fn summary(v: &mut [u64]) -> (u64, u64, u64) {
    v.sort_unstable();
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

/// The latencies at one fill level, in cycles: (min, median, max).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// `0 %`, `100 %`, `99.9 %`, `50 %`.
    pub label: &'static str,
    pub alloc: (u64, u64, u64),
    /// `None`: every ALLOC answered FULL, so there was nothing to FREE.
    pub free: Option<(u64, u64, u64)>,
}

/// The measurement of one configuration.
#[derive(Clone, Debug)]
pub struct CmdLatency {
    pub index_bits: u32,
    pub max_qps: u32,
    /// Indexes ALLOC can hand out.
    pub pool: u32,
    pub free_map_levels: usize,
    pub init_cycles: u64,
    /// In the order measured: 0 %, 100 %, 99.9 %, 50 %.
    pub levels: Vec<Level>,
    pub simulated_cycles: u64,
    pub seconds: f64,
}

impl fmt::Display for CmdLatency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "index_bits {}: max_qps {}, pool {}, free map levels {}, init sweep {} cycles",
            self.index_bits, self.max_qps, self.pool, self.free_map_levels, self.init_cycles
        )?;
        writeln!(
            f,
            "  {:>8}  {:>22}  {:>22}",
            "full", "ALLOC min/median/max", "FREE min/median/max"
        )?;
        for l in &self.levels {
            let (a0, a1, a2) = l.alloc;
            let fs = match l.free {
                None => "- (FULL)".to_string(),
                Some((f0, f1, f2)) => format!("{f0}/{f1}/{f2}"),
            };
            writeln!(
                f,
                "  {:>8}  {:>22}  {fs:>22}",
                l.label,
                format!("{a0}/{a1}/{a2}")
            )?;
        }
        writeln!(
            f,
            "  ({} simulated cycles, {:.1} s)",
            self.simulated_cycles, self.seconds
        )
    }
}

/// Most ALLOC + FREE pairs timed at one fill level.
pub const MAX_SAMPLES: usize = 1_000_000;

/// The configuration measured for `index_bits`, and a check of `samples`; errors name the
/// parameter, the value and what is allowed.
pub fn config(index_bits: u32, samples: usize) -> Result<Config> {
    anyhow::ensure!(
        (1..=MAX_SAMPLES).contains(&samples),
        "samples = {samples} is out of range: allowed 1..={MAX_SAMPLES}"
    );
    let mut cfg = Config::default();
    cfg.set(&format!("index_bits={index_bits}"))?;
    cfg.set("ports=[\"rx\"]")?;
    cfg.set(&format!("top=qpt_cmdlat_{index_bits}"))?;
    cfg.validate()?;
    Ok(cfg)
}

/// Measures one configuration (one lookup port, the given `index_bits`, full `max_qps`).
/// `progress` gets a line at each step that can take long (the model build, the init, each
/// million ALLOCs of the fill, each level measured).
pub fn run(
    index_bits: u32,
    samples: usize,
    seed: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<CmdLatency> {
    let cfg = config(index_bits, samples)?;
    let t0 = std::time::Instant::now();
    let verilog = qptable::generate::generate_verilog(&cfg)?;
    progress(&format!(
        "index_bits {index_bits}: building the Verilator model"
    ));
    let model = Model::build(&verilog, &cfg.top, &BuildOptions::default())?;
    let mut sim = model.try_instantiate()?;
    let pin_in = |s: &Sim, n: &str| s.input(&format!("s_axil_{n}"));
    let pin_out = |s: &Sim, n: &str| s.output(&format!("s_axil_{n}"));
    let p = Pins {
        awaddr: pin_in(&sim, "awaddr")?,
        awvalid: pin_in(&sim, "awvalid")?,
        wdata: pin_in(&sim, "wdata")?,
        wstrb: pin_in(&sim, "wstrb")?,
        wvalid: pin_in(&sim, "wvalid")?,
        bready: pin_in(&sim, "bready")?,
        araddr: pin_in(&sim, "araddr")?,
        arvalid: pin_in(&sim, "arvalid")?,
        rready: pin_in(&sim, "rready")?,
        awready: pin_out(&sim, "awready")?,
        bvalid: pin_out(&sim, "bvalid")?,
        arready: pin_out(&sim, "arready")?,
        rvalid: pin_out(&sim, "rvalid")?,
        rdata: pin_out(&sim, "rdata")?,
    };
    let rst = sim.input("rst")?;
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let mut d = Driver { sim, p };
    while d.read(regs::STATUS)? & 1 == 0 {
        d.sim.step_n(1024);
    }
    let init_cycles = d.sim.cycle();
    progress(&format!(
        "index_bits {index_bits}: initialised in {init_cycles} cycles; measuring at 0 %"
    ));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let max = cfg.max_qps();
    let pool = max - cfg.first_index;
    let mut levels = Vec::new();
    // The QPN each index was last handed out with, and the indexes in use.
    let mut qpn_of = vec![0u32; max as usize];
    let mut live: Vec<u32> = Vec::new();
    let alloc = |d: &mut Driver, qpn_of: &mut Vec<u32>| -> Result<(u64, Option<u32>)> {
        let cycles = d.command(Command::Alloc)?;
        let result = d.read(regs::CMD_RESULT)?;
        if result >> regs::CMD_RESULT_STATUS_SHIFT != CmdStatus::Ok.as_u32() {
            return Ok((cycles, None)); // FULL
        }
        let q = result & qptable::spec::QPN_MASK;
        let index = q & ((1 << index_bits) - 1);
        qpn_of[index as usize] = q;
        Ok((cycles, Some(index)))
    };
    let mut measure = |d: &mut Driver, qpn_of: &mut Vec<u32>, label: &'static str| -> Result<()> {
        let mut a = Vec::with_capacity(samples);
        let mut f = Vec::with_capacity(samples);
        for _ in 0..samples {
            let (cycles, index) = alloc(d, qpn_of)?;
            a.push(cycles);
            if let Some(index) = index {
                f.push(d.command(Command::Free(qpn_of[index as usize]))?);
            }
        }
        levels.push(Level {
            label,
            alloc: summary(&mut a),
            free: (!f.is_empty()).then(|| summary(&mut f)),
        });
        Ok(())
    };
    measure(&mut d, &mut qpn_of, "0 %")?;
    progress(&format!("index_bits {index_bits}: 0 % measured; filling"));
    // Fill completely, then free random indexes down to each level.
    while let (_, Some(index)) = alloc(&mut d, &mut qpn_of)? {
        live.push(index);
        if live.len().is_multiple_of(1 << 20) {
            progress(&format!(
                "index_bits {index_bits}: filling, {} of {pool} indexes",
                live.len()
            ));
        }
    }
    if live.len() != pool as usize {
        bail!("filled {} of {pool} indexes", live.len());
    }
    live.shuffle(&mut rng);
    measure(&mut d, &mut qpn_of, "100 %")?;
    progress(&format!("index_bits {index_bits}: 100 % measured"));
    for (label, fraction) in [("99.9 %", 0.999), ("50 %", 0.5)] {
        let target = (f64::from(pool) * fraction) as usize;
        while live.len() > target {
            let i = rng.gen_range(0..live.len());
            let index = live.swap_remove(i);
            d.command(Command::Free(qpn_of[index as usize]))?;
        }
        measure(&mut d, &mut qpn_of, label)?;
        progress(&format!("index_bits {index_bits}: {label} measured"));
    }
    Ok(CmdLatency {
        index_bits,
        max_qps: max,
        pool,
        free_map_levels: qptable::hw::free_map::level_words(max).len(),
        init_cycles,
        levels,
        simulated_cycles: d.sim.cycle(),
        seconds: t0.elapsed().as_secs_f64(),
    })
}
