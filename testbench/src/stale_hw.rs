//! The stale-packet campaign (`qptable::stale`) on the generated Verilog in Verilator: the
//! [`Engine`] that drives a [`Bench`], and [`run_on_hardware`].

use crate::bench::{Bench, BenchOptions};
use anyhow::{bail, ensure, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdResult, Command, Model};
use qptable::stale::{run_with, Engine, StaleParams, StaleReport};

/// The hardware in Verilator. Port 0 takes the packets of live QPs, port 1 the late ones;
/// [`Engine::finish`] reads the engine's per-port status counters.
pub struct BenchEngine {
    pub bench: Bench,
    /// Hardware edge of schedule edge 0.
    base: u64,
    pending: Vec<(u32, bool)>,
    tag: u64,
}

impl BenchEngine {
    /// Generates and builds the engine of `cfg` (which needs at least 2 lookup ports) and
    /// resets it. Commands go out with no random delay (their handshake edge is exact); the
    /// lookups see random idle cycles and response backpressure (they are drained between
    /// commands, so the results do not depend on them).
    pub fn new(cfg: &Config, seed: u64) -> Result<BenchEngine> {
        ensure!(
            cfg.ports.len() >= 2,
            "the stale campaign needs 2 lookup ports"
        );
        let bench = Bench::new(
            cfg,
            &BenchOptions {
                req_idle: 0.2,
                rsp_backpressure: 0.3,
                axil_random: 0.0,
                seed,
                trace: None,
            },
        )?;
        let base = bench.sim.cycle() + 16;
        Ok(BenchEngine {
            bench,
            base,
            pending: Vec::new(),
            tag: 0,
        })
    }

    /// Looks up the packets that arrived since the last command, and waits for every answer.
    fn flush(&mut self) -> Result<()> {
        for (qpn, late) in std::mem::take(&mut self.pending) {
            self.bench.lookup(late as usize, qpn, self.tag);
            self.tag += 1;
        }
        self.bench.drain(1_000_000)?;
        Ok(())
    }
}

impl Engine for BenchEngine {
    fn command(&mut self, at: u64, cmd: Command) -> Result<CmdResult> {
        self.flush()?;
        let edge = self.base + at;
        let now = self.bench.sim.cycle();
        if now + 1 > edge {
            bail!(
                "the schedule is too dense for the hardware: {cmd:?} due at bench edge {edge} \
                 (schedule edge {at}), the bench is already at edge {now} (raise cmd_interval)"
            );
        }
        // The master presents AW/W at the next edge and the engine takes them at once.
        self.bench.run_cycles(edge - 1 - now)?;
        let result = self.bench.command(cmd)?;
        ensure!(
            self.bench.last_cmd_cycle == edge,
            "{cmd:?}: CMD write handshake at edge {}, scheduled at {edge}",
            self.bench.last_cmd_cycle
        );
        Ok(result)
    }
    fn packet(&mut self, _at: u64, qpn: u32, late: bool) -> Result<()> {
        self.pending.push((qpn, late));
        Ok(())
    }
    fn finish(&mut self) -> Result<[[u64; 6]; 2]> {
        self.flush()?;
        let mut counts = [[0u64; 6]; 2];
        for (p, port_counts) in counts.iter_mut().enumerate() {
            for (s, count) in port_counts.iter_mut().enumerate() {
                let addr = regs::port_register(p, regs::PORT_OK + 4 * s as u32);
                let (v, resp) = self.bench.read(addr)?;
                ensure!(
                    resp == qptable_sim::AxiResp::Okay,
                    "read of {addr:#x}: {resp:?}"
                );
                *count = u64::from(v);
            }
            ensure!(
                *port_counts == self.bench.status_counts(p),
                "port {p}: the engine counted {port_counts:?}, the responses were {:?}",
                self.bench.status_counts(p)
            );
        }
        self.bench.finish()?;
        Ok(counts)
    }
    fn model(&self) -> &Model {
        &self.bench.sb.model
    }
}

/// Runs the campaign on the generated Verilog in Verilator (see [`BenchEngine`]).
pub fn run_on_hardware(params: &StaleParams) -> Result<StaleReport> {
    let cfg = params.config()?;
    let mut engine = BenchEngine::new(&cfg, params.seed)?;
    run_with(params, &mut engine)
}
