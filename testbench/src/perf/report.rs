//! The text of the `qptable bench` figures ([`ConfigReport::text`]) and of the run's header.

use super::measure::{in_memory, ConfigReport, PerfOptions};
use super::speed::{Rate, ROUNDS, SPEED_LOOP};
use std::fmt::Write as _;

/// The lines that open a `qptable bench` run: its options and what each speed figure runs.
pub fn header(opts: &PerfOptions) -> String {
    format!(
        "qptable bench: {} lookups per port, {} speed cycles, {} rust-hdl cycles, seed {}\n\
         speed loop (Rust over Verilator): {SPEED_LOOP}\n\
         C++ main: the harness's plain Verilator main on the same model, request valids and \
         response readies high, request QPN and tag stepping every cycle, timed after the init \
         sweep\n\
         rust-hdl: the LookupPipe block (the top level is emitted as Verilog text and cannot run \
         in rust-hdl); its Verilator model is built from rust-hdl's Verilog of the same block\n",
        opts.lookups, opts.speed_cycles, opts.rust_hdl_cycles, opts.seed
    )
}

fn mc(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2} M", x / 1e6)
    } else {
        format!("{:.1} k", x / 1e3)
    }
}

impl ConfigReport {
    /// SPEC §7 latency bound for this configuration (flat: 3).
    pub fn latency_bound(&self) -> u64 {
        match self.cfg.mode {
            qptable::config::Mode::Flat => 3,
            _ if in_memory(&self.cfg) => self.mem_latency + 4,
            _ => 4,
        }
    }

    /// SPEC §7 target of [`ConfigReport::rate_figure`]: 1, or for in_memory
    /// `min(1, max_outstanding / memory latency)` directory reads per cycle.
    pub fn rate_target(&self) -> f64 {
        if in_memory(&self.cfg) {
            (f64::from(self.cfg.max_outstanding) / self.mem_latency as f64).min(1.0)
        } else {
            1.0
        }
    }

    /// The throughput figure SPEC §7 sets a target for: lookups per cycle of the slowest
    /// port, or for in_memory the directory reads per cycle of all ports together (the
    /// memory port is shared).
    pub fn rate_figure(&self) -> f64 {
        if in_memory(&self.cfg) {
            let cycles = self.ports.iter().map(|p| p.cycles).max().unwrap_or(1);
            self.ports.iter().map(|p| p.mem_reads).sum::<u64>() as f64 / cycles as f64
        } else {
            self.ports.iter().map(|p| p.rate).fold(f64::MAX, f64::min)
        }
    }

    /// The latency figure SPEC §7 bounds: the largest, or for in_memory the smallest (the
    /// pipeline's own latency; a saturated memory port adds queueing on top).
    pub fn latency_figure(&self) -> u64 {
        if in_memory(&self.cfg) {
            self.ports.iter().map(|p| p.latency.0).min().unwrap_or(0)
        } else {
            self.ports.iter().map(|p| p.latency.2).max().unwrap_or(0)
        }
    }

    /// Whether the SPEC §7 targets hold: II = 1 on every port (in_memory: directory reads
    /// per cycle within 5 % of min(1, max_outstanding / latency)), latency within the bound,
    /// Rust over Verilator >= 0.5x the C++ main, and no mismatch.
    pub fn targets_met(&self) -> bool {
        self.rate_ok()
            && self.latency_figure() <= self.latency_bound()
            && self.speed.engine_rust.cpu >= 0.5 * self.speed.engine_cpp.cpu
            && self.mismatches.is_empty()
    }

    fn rate_ok(&self) -> bool {
        let tolerance = if in_memory(&self.cfg) { 0.95 } else { 0.999 };
        self.rate_figure() >= tolerance * self.rate_target()
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let c = &self.cfg;
        let s = &self.speed;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "== {} (top {}): index_bits {}, max_qps {}, ports {:?}, tag_bits {}, addr_bits {}, entry_bytes {}",
            self.label, c.top, c.index_bits, c.max_qps(), c.ports, c.tag_bits, c.addr_bits, c.entry_bytes
        );
        let _ = writeln!(o, "throughput, a request every cycle on every port, consumers always ready (checked against the model):");
        if in_memory(c) {
            let _ = writeln!(
                o,
                "  (in_memory: the bench memory answers directory reads after {} cycles; max_outstanding {})",
                self.mem_latency, c.max_outstanding
            );
        }
        for p in &self.ports {
            let _ = writeln!(
                o,
                "  port {:>4}: {:>7} lookups in {:>7} cycles = {:.3} lookups/cycle; latency min/median/max {}/{}/{} cycles",
                p.name, p.lookups, p.cycles, p.rate, p.latency.0, p.latency.1, p.latency.2
            );
        }
        let u = &self.under_commands;
        let rates: Vec<String> = u.rate.iter().map(|r| format!("{r:.3}")).collect();
        let stolen: Vec<String> = u
            .stolen_per_command
            .iter()
            .map(|r| format!("{r:.2}"))
            .collect();
        let _ = writeln!(
            o,
            "  with {} ALLOC commands back to back over {} cycles: {} lookups/cycle per port; cycles lost per command per port: {}",
            u.commands,
            u.cycles,
            rates.join(" / "),
            stolen.join(" / ")
        );
        let _ = writeln!(
            o,
            "command latency, CMD write handshake to B handshake, no lookup in flight (cycles):"
        );
        for k in &self.commands {
            let _ = writeln!(
                o,
                "  {:<8} x{:<4} min {:>3}  median {:>3}  max {:>3}",
                k.name, k.count, k.min, k.median, k.max
            );
        }
        let _ = writeln!(
            o,
            "simulation speed, cycles per second of CPU time (wall clock in brackets), best of {ROUNDS} interleaved rounds:"
        );
        let r = |x: Rate| format!("{}c/s ({})", mc(x.cpu), mc(x.wall));
        let _ = writeln!(
            o,
            "  {:<22} Rust loop over Verilator {} | C++ Verilator main {} | Rust/C++ {:.2} ({:.2} wall); {} responses",
            c.top,
            r(s.engine_rust),
            r(s.engine_cpp),
            s.engine_rust.cpu / s.engine_cpp.cpu,
            s.engine_rust.wall / s.engine_cpp.wall,
            s.engine_rust_responses
        );
        let _ = writeln!(
            o,
            "  {:<22} Rust loop over Verilator {} | C++ Verilator main {} | Rust/C++ {:.2} ({:.2} wall)",
            "LookupPipe",
            r(s.pipe_rust),
            r(s.pipe_cpp),
            s.pipe_rust.cpu / s.pipe_cpp.cpu,
            s.pipe_rust.wall / s.pipe_cpp.wall
        );
        let _ = writeln!(
            o,
            "  {:<22} rust-hdl Simulation {} | rust-hdl settle loop {} | Rust over Verilator is {:.0}x / {:.0}x faster",
            "LookupPipe",
            r(s.pipe_rust_hdl),
            r(s.pipe_rust_hdl_kernel),
            s.pipe_rust.cpu / s.pipe_rust_hdl.cpu,
            s.pipe_rust.cpu / s.pipe_rust_hdl_kernel.cpu
        );
        let _ = writeln!(
            o,
            "  {:<22} rust-hdl and Verilator responses: first {} compared, {}",
            "LookupPipe",
            s.pipe_compared,
            if s.pipe_agree {
                "all equal"
            } else {
                "DIFFERENT"
            }
        );
        if !self.mismatches.is_empty() {
            let _ = writeln!(
                o,
                "MISMATCHES against the reference model: {}",
                self.mismatches.len()
            );
            for m in self.mismatches.iter().take(10) {
                let _ = writeln!(o, "  {m}");
            }
        }
        let (what, lat) = if in_memory(c) {
            ("directory reads/cycle, all ports", "min latency")
        } else {
            ("lookups/cycle per port", "latency")
        };
        let _ = writeln!(
            o,
            "SPEC §7: {what} {:.3} >= {:.2} {}, {lat} {} <= {} {}, Rust/C++ >= 0.5 {} ({:.1} s)",
            self.rate_figure(),
            self.rate_target(),
            yes(self.rate_ok()),
            self.latency_figure(),
            self.latency_bound(),
            yes(self.latency_figure() <= self.latency_bound()),
            yes(s.engine_rust.cpu >= 0.5 * s.engine_cpp.cpu),
            self.seconds
        );
        o
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "met"
    } else {
        "NOT MET"
    }
}
