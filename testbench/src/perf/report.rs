//! The text of the `qptable bench` figures ([`ConfigReport::text`]) and of the run's header,
//! and their Markdown ([`markdown()`], `qptable bench --markdown`: the first part of
//! `BENCHMARKS.md`).

use super::measure::{in_memory, ConfigReport, PerfOptions};
use super::speed::{Rate, ROUNDS, SPEED_LOOP};
use super::state_mem::StateMemReport;
use crate::markdown::{self, header_row, row, Stamp};
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
    /// SPEC §7 latency bound for this configuration (flat: 3); none with the state in memory
    /// (SPEC §9 sets its own targets, which `perf::state_mem` measures).
    pub fn latency_bound(&self) -> Option<u64> {
        if state_in_memory(&self.cfg) {
            return None;
        }
        Some(match self.cfg.mode {
            qptable::config::Mode::Flat => 3,
            // The repository's in_memory path: memory latency + 5, + 6 with a state RAM of
            // two rows of block RAMs, + 7 with more (SPEC §7 of the shared datasheet says + 4;
            // docs/SPEC.md §7 says why more).
            _ if in_memory(&self.cfg) => {
                self.mem_latency
                    + qptable::hw::lookup_pipe::in_memory_extra_latency(
                        &qptable::hw::EngineParams::new(&self.cfg),
                    )
            }
            _ => 4,
        })
    }

    /// Whether the latency is within [`ConfigReport::latency_bound`] (always when there is
    /// none).
    pub fn latency_ok(&self) -> bool {
        self.latency_bound()
            .is_none_or(|b| self.latency_figure() <= b)
    }

    /// The bound as printed: a number, or `- (§9)` with the state in memory.
    fn bound_text(&self) -> String {
        self.latency_bound()
            .map_or_else(|| "- (§9)".to_string(), |b| b.to_string())
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

    /// The latency figure SPEC §7 bounds: the largest, or for in_memory and the state in
    /// memory the smallest (the pipeline's own latency; misses and a saturated memory port add
    /// to it).
    pub fn latency_figure(&self) -> u64 {
        if in_memory(&self.cfg) || state_in_memory(&self.cfg) {
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
            && self.latency_ok()
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
        } else if state_in_memory(c) {
            ("lookups/cycle per port", "min latency")
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
            self.bound_text(),
            yes(self.latency_ok()),
            yes(s.engine_rust.cpu >= 0.5 * s.engine_cpp.cpu),
            self.seconds
        );
        o
    }
}

/// The state is in memory (SPEC §9).
fn state_in_memory(cfg: &qptable::config::Config) -> bool {
    cfg.state == qptable::config::State::InMemory
}

fn yes(b: bool) -> &'static str {
    if b {
        "met"
    } else {
        "NOT MET"
    }
}

/// Section headings of [`markdown()`], in order.
pub const MARKDOWN_HEADINGS: [&str; 6] = [
    "## Throughput and latency",
    "## Lookups while commands run",
    "## Command latency",
    "## Simulation speed",
    "## Simulation speed against rust-hdl",
    "## State in memory (SPEC §9)",
];

/// Columns of the §9 workload table.
pub const STATE_MEM_WORKLOAD_COLUMNS: [&str; 8] = [
    "configuration",
    "workload",
    "port",
    "lookups/cycle",
    "hit rate",
    "misses in flight (mean)",
    "memory reads/lookup",
    "bound of §9",
];

/// Columns of the §9 target table.
pub const STATE_MEM_TARGET_COLUMNS: [&str; 3] = ["configuration", "target of SPEC §9", "met"];

/// Columns of the throughput and latency table.
pub const THROUGHPUT_COLUMNS: [&str; 7] = [
    "configuration",
    "organisation",
    "lookups/cycle per port",
    "latency min / median / max",
    "SPEC §7 figure",
    "target",
    "met",
];

/// Columns of the table of lookups while commands run.
pub const UNDER_COMMANDS_COLUMNS: [&str; 4] = [
    "configuration",
    "ALLOC commands",
    "lookups/cycle per port",
    "cycles lost per command per port",
];

/// Columns of the command latency table.
pub const COMMAND_COLUMNS: [&str; 4] = ["configuration", "ALLOC", "PUBLISH", "FREE"];

/// Columns of the simulation speed table.
pub const SPEED_COLUMNS: [&str; 5] = [
    "model",
    "Rust loop over Verilator",
    "C++ Verilator main",
    "Rust / C++",
    "SPEC §7 (>= 0.5)",
];

/// Columns of the table against rust-hdl.
pub const RUST_HDL_COLUMNS: [&str; 6] = [
    "`LookupPipe` of",
    "Rust loop over Verilator",
    "C++ Verilator main",
    "rust-hdl `Simulation`",
    "rust-hdl settle loop",
    "responses compared",
];

fn organisation(c: &qptable::config::Config) -> String {
    let mut s = match c.mode {
        qptable::config::Mode::Flat => "flat".to_string(),
        _ => format!(
            "two_level {}, leaf_bits {}",
            c.directory.as_str(),
            c.leaf_bits
        ),
    };
    let n = c.ports.len();
    let _ = write!(
        s,
        ", index_bits {}, {n} port{}",
        c.index_bits,
        if n == 1 { "" } else { "s" }
    );
    if in_memory(c) {
        let _ = write!(s, ", max_outstanding {}", c.max_outstanding);
    }
    s
}

fn rate(x: Rate) -> String {
    format!("{}c/s ({} wall)", mc(x.cpu), mc(x.wall))
}

/// `BENCHMARKS.md` up to the synthesis figures: the title, the stamp (commit, machine,
/// tools, options) and the tables of `reports`, with what each figure means.
pub fn markdown(
    reports: &[ConfigReport],
    state: &[StateMemReport],
    opts: &PerfOptions,
    stamp: &Stamp,
) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}\n", markdown::TITLE);
    let _ = writeln!(
        o,
        "The figures of SPEC §7, written by the project's own commands: `qptable bench \
         --markdown` (every `configs/*.toml`) and `qptable synth --markdown` (the default \
         configuration), run together by `scripts/benchmarks`, which rewrites this file. Do \
         not edit it by hand: regenerate it; what changed and why goes in the commit message. \
         Cycle counts come from the Verilator model of the emitted Verilog and are exact; \
         speeds and place-and-route results depend on the machine and the tools below.\n"
    );
    let _ = writeln!(o, "{}\n", markdown::STAMP_HEADING);
    o.push_str(&stamp.table());
    let _ = writeln!(
        o,
        "\n`qptable bench`: {} lookups per port, seed {}, {} timed Verilator cycles per speed \
         figure (best of {ROUNDS} rounds), {} rust-hdl cycles, in_memory memory latency {} \
         cycles. The speed figures use the CPU time of the simulating thread (wall clock \
         beside it), which other load on a shared machine does not inflate.\n",
        opts.lookups, opts.seed, opts.speed_cycles, opts.rust_hdl_cycles, opts.mem_latency
    );

    let _ = writeln!(o, "{}\n", MARKDOWN_HEADINGS[0]);
    let _ = writeln!(
        o,
        "Through the checked bench (every response compared with the reference model), a \
         request every cycle on every port at once, consumers always ready, QPNs drawn from \
         published (70 %), freed (10 %) and random (20 %) QPNs. Lookups per cycle of a port = \
         requests accepted / cycles from its first to its last request handshake; latency = \
         cycles from the request handshake to the response handshake. The SPEC §7 figure is \
         the slowest port's lookups per cycle and the largest latency, or for in_memory the \
         directory reads per cycle of all ports together (the memory port is shared; target \
         min(1, max_outstanding / memory latency)) and the smallest latency (the pipeline's \
         own: memory latency + 5, + 6 at index_bits 15, + 7 above; queueing behind the saturated memory port adds the rest).\n"
    );
    let _ = writeln!(o, "{}", header_row(&THROUGHPUT_COLUMNS));
    for r in reports {
        let rates: Vec<String> = r.ports.iter().map(|p| format!("{:.3}", p.rate)).collect();
        let lat: Vec<String> = r
            .ports
            .iter()
            .map(|p| format!("{} / {} / {}", p.latency.0, p.latency.1, p.latency.2))
            .collect();
        let (what, lat_what) = if in_memory(&r.cfg) {
            ("directory reads/cycle", "min latency")
        } else if state_in_memory(&r.cfg) {
            ("lookups/cycle", "min latency")
        } else {
            ("lookups/cycle", "max latency")
        };
        let _ = writeln!(
            o,
            "{}",
            row(&[
                format!("{} (`{}`)", r.label, r.cfg.top),
                organisation(&r.cfg),
                rates.join(", "),
                lat.join(", "),
                format!(
                    "{what} {:.3}, {lat_what} {}",
                    r.rate_figure(),
                    r.latency_figure()
                ),
                format!(">= {:.2}, <= {}", r.rate_target(), r.bound_text()),
                yes(r.rate_ok() && r.latency_ok()).to_string(),
            ])
        );
    }

    let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[1]);
    let _ = writeln!(
        o,
        "ALLOC commands back to back on the control port while every port takes a lookup \
         every cycle; cycles lost per command = (cycles - lookups) / commands, per port \
         (SPEC §7: at most one). in_memory is bound by its memory port (one directory read \
         per cycle for all ports together), not by the commands: its figures here are the \
         memory port's share, not cycles the commands take.\n"
    );
    let _ = writeln!(o, "{}", header_row(&UNDER_COMMANDS_COLUMNS));
    for r in reports {
        let u = &r.under_commands;
        let rates: Vec<String> = u.rate.iter().map(|x| format!("{x:.3}")).collect();
        let stolen: Vec<String> = u
            .stolen_per_command
            .iter()
            .map(|x| format!("{x:.2}"))
            .collect();
        let _ = writeln!(
            o,
            "{}",
            row(&[
                r.label.clone(),
                u.commands.to_string(),
                rates.join(", "),
                stolen.join(", "),
            ])
        );
    }

    let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[2]);
    let _ = writeln!(
        o,
        "Cycles from the edge of the CMD write handshake (AW and W) to the edge of the B \
         handshake, which the register block holds until the command is done; no lookup in \
         flight (so FREE's drain is immediate); min / median / max over the commands of the \
         run (ALLOC at every occupancy from empty to the QPs the bench creates). ALLOC at \
         high occupancy (to 100 % full) is measured by `qptable cmd-latency`.\n"
    );
    let _ = writeln!(o, "{}", header_row(&COMMAND_COLUMNS));
    for r in reports {
        let mut cells = vec![r.label.clone()];
        for name in &COMMAND_COLUMNS[1..] {
            cells.push(
                r.commands
                    .iter()
                    .find(|k| k.name == *name)
                    .map_or("-".to_string(), |k| {
                        format!("{} / {} / {} (x{})", k.min, k.median, k.max, k.count)
                    }),
            );
        }
        let _ = writeln!(o, "{}", row(&cells));
    }

    let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[3]);
    let _ = writeln!(
        o,
        "The same Verilator model run two ways, in cycles per second of CPU time (wall clock \
         in brackets), best of {ROUNDS} interleaved rounds. Rust loop over Verilator: the \
         `qptable_sim` harness, one FFI call per cycle; {SPEED_LOOP}. C++ Verilator main: the \
         harness's plain C++ `main()` on the same model library, request valids and response \
         readies high, request QPN and tag stepping every cycle, timed after the init sweep. \
         SPEC §7: the Rust testbench at >= 0.5x the C++ main.\n"
    );
    let _ = writeln!(o, "{}", header_row(&SPEED_COLUMNS));
    for r in reports {
        let s = &r.speed;
        let ratio = s.engine_rust.cpu / s.engine_cpp.cpu;
        let _ = writeln!(
            o,
            "{}",
            row(&[
                format!("{} `{}`", r.label, r.cfg.top),
                rate(s.engine_rust),
                rate(s.engine_cpp),
                format!("{ratio:.2}"),
                yes(ratio >= 0.5).to_string(),
            ])
        );
    }

    let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[4]);
    let _ = writeln!(
        o,
        "rust-hdl cannot simulate the top level (`QpTable` emits its wiring as Verilog text), \
         so the comparison is on one `LookupPipe` of each configuration: rust-hdl's \
         `Simulation` (a clock thread and a testbench thread, CPU time of the process) and a \
         bare loop over rust-hdl's settle function, against the Rust loop and the C++ main on \
         the Verilator model of the same block's Verilog (for in_memory, the `LookupPipe` of \
         the same parameters without its directory, since the stimulus answers no directory \
         read; for state in_memory, the pipe with its state on chip, since the stimulus \
         answers no block fetch). Every run gets \
         the same stimulus and the responses of rust-hdl and Verilator are compared; \
         \"slower\" is against the Rust loop over Verilator.\n"
    );
    let _ = writeln!(o, "{}", header_row(&RUST_HDL_COLUMNS));
    for r in reports {
        let s = &r.speed;
        let _ = writeln!(
            o,
            "{}",
            row(&[
                r.label.clone(),
                rate(s.pipe_rust),
                rate(s.pipe_cpp),
                format!(
                    "{} ({:.0}x slower)",
                    rate(s.pipe_rust_hdl),
                    s.pipe_rust.cpu / s.pipe_rust_hdl.cpu
                ),
                format!(
                    "{} ({:.0}x slower)",
                    rate(s.pipe_rust_hdl_kernel),
                    s.pipe_rust.cpu / s.pipe_rust_hdl_kernel.cpu
                ),
                format!(
                    "{}, {}",
                    s.pipe_compared,
                    if s.pipe_agree {
                        "all equal"
                    } else {
                        "DIFFERENT"
                    }
                ),
            ])
        );
    }
    o.push_str(&state_mem_markdown(state));
    let bad: usize = reports.iter().map(|r| r.mismatches.len()).sum::<usize>()
        + state.iter().map(|r| r.mismatches.len()).sum::<usize>();
    let _ = writeln!(
        o,
        "\nMismatches against the reference model in this run: {bad}."
    );
    o
}

/// The section of the state in memory: per workload and port the figures, then the targets.
pub fn state_mem_markdown(state: &[StateMemReport]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[5]);
    let Some(first) = state.first() else {
        let _ = writeln!(o, "No configuration keeps its state in memory.");
        return o;
    };
    let so = &first.opts;
    let _ = writeln!(
        o,
        "`qptable bench` on every `state = in_memory` configuration (`perf::state_mem`), \
         through the checked bench, memory latency {} cycles for reads and writes, {} lookups \
         per port after {} of warm-up, a request every cycle, consumers always ready. The live \
         sets are made by the engine's ALLOC then PUBLISH at memory latency {} (the set-up \
         changes no figure; its cost is below): the hot set {} QPNs, then {} for cold, garbage \
         and the flood (SPEC §9 says 2^20: the set-up of that many takes too long for this \
         run). Hit rate = CACHE_HIT / (CACHE_HIT + CACHE_MISS); memory reads per lookup `m` = \
         MEM_READS / lookups of every port; misses in flight = the mean of the reads the memory \
         model holds per cycle; bound per port = min(1, max_misses / (P m L), 1 / (P m B)) with \
         P the ports running, L the latency, B the beats of a block (the fetch slots and the R \
         channel are shared by the ports). ALLOC and FREE are timed (CMD write handshake to B \
         handshake, no lookup in flight) on the same configuration with max_qps {}.\n",
        so.latency,
        so.lookups,
        so.warmup,
        so.setup_latency,
        so.hot_live,
        so.cold_live,
        so.cmd_max_qps
    );
    let _ = writeln!(o, "{}", header_row(&STATE_MEM_WORKLOAD_COLUMNS));
    for r in state {
        for w in &r.workloads {
            for p in w.ports.iter().filter(|p| p.lookups > 0) {
                let _ = writeln!(
                    o,
                    "{}",
                    row(&[
                        format!("{} `{}`", r.label, r.cfg.top),
                        format!("{} ({} live)", w.name, w.live),
                        format!("{} {}", p.name, p.draw),
                        format!("{:.3}", p.rate),
                        format!("{:.2} %", 100.0 * w.hit_rate()),
                        format!("{:.1}", w.in_flight_mean),
                        format!("{:.4}", w.reads_per_lookup()),
                        format!("{:.3}", r.bound(w)),
                    ])
                );
            }
        }
    }
    let _ = writeln!(o, "\n{}", header_row(&STATE_MEM_TARGET_COLUMNS));
    for r in state {
        for (ok, line) in r.targets() {
            let _ = writeln!(
                o,
                "{}",
                row(&[
                    format!("{} `{}`", r.label, r.cfg.top),
                    line,
                    if ok { "met" } else { "NOT MET" }.to_string(),
                ])
            );
        }
    }
    for r in state {
        let (n, cyc, secs) = r.setup;
        let _ = writeln!(
            o,
            "\n{}: set-up {n} QPNs in {cyc} cycles ({:.0} a QPN, {secs:.0} s).",
            r.label,
            cyc as f64 / n.max(1) as f64
        );
    }
    o
}
