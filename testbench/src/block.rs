//! One hardware block on its own in Verilator: the Verilog of a single rust-hdl block (not
//! the whole engine), built by the `qptable-sim` harness, for the block-level tests
//! (`tests/block_*.rs`), which drive it against a plain model as verilog-axi and Amaranth
//! test their blocks.

use anyhow::{Context, Result};
use qptable_sim::{BuildOptions, Model, Sim, StreamSource};
use rust_hdl::prelude::*;
use std::sync::Mutex;

/// The clock input of every rust-hdl block.
pub const CLOCK: &str = "clock";

/// The Verilog of `block` alone, its top module named `top`, module and instance names
/// without `$` as `qptable gen` writes them ([`qptable::tidy::plain_names`]).
pub fn verilog<B: Block>(mut block: B, top: &str) -> Result<String> {
    block.connect_all();
    check_all(&block).map_err(|e| anyhow::anyhow!("rust-hdl check of block {top}: {e:?}"))?;
    let mut defines = ModuleDefines::default();
    block.accept(top, &mut defines);
    qptable::tidy::plain_names(&defines.defines())
}

/// Builds (or finds in the model cache) the Verilator model of `verilog` with top `top` and
/// the block clock [`CLOCK`], one build at a time (tests of one binary run in parallel).
pub fn build(verilog: &str, top: &str) -> Result<Model> {
    static BUILD: Mutex<()> = Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let opts = BuildOptions {
        clock: CLOCK.into(),
        ..BuildOptions::default()
    };
    Model::build(verilog, top, &opts).with_context(|| format!("building block {top}"))
}

/// [`verilog`] then [`build`].
pub fn model<B: Block>(block: B, top: &str) -> Result<Model> {
    build(&verilog(block, top)?, top)
}

/// The seed of a random block test: `QPTABLE_SEED` if set, else `default`; printed with the
/// way to replay it.
pub fn seed(test: &str, default: u64) -> u64 {
    let s = std::env::var("QPTABLE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    println!("{test}: seed {s} (replay with QPTABLE_SEED={s})");
    s
}

/// One request stream source per port of a block under test: port `p`'s signals are
/// `<letter><p>_valid`, `<letter><p>_ready` and `<letter><p>_<field>`; each idles with
/// probability `idle`, seeded with `seed + p`.
pub fn port_sources(
    sim: &Sim,
    letter: char,
    fields: &[&str],
    ports: usize,
    idle: f64,
    seed: u64,
) -> Result<Vec<StreamSource>> {
    (0..ports)
        .map(|p| {
            Ok(StreamSource::new(sim, &format!("{letter}{p}_"), fields)?
                .with_idle(idle, seed.wrapping_add(p as u64)))
        })
        .collect()
}

/// yosys on the block Verilog at `path` (top module `top`): `check -assert` after elaboration
/// and after `flow` (`synth` or `synth_ecp5`; with `synth_ecp5` the ECP5 primitives the RAMs
/// instantiate are read as black boxes first), then `stat`. Panics unless yosys succeeds with
/// no `Warning:`; returns the cell count and the DP16KD count of its `stat`.
pub fn yosys_synth(path: &std::path::Path, top: &str, flow: &str) -> (String, String) {
    let script = format!(
        "{lib}read_verilog {p}; hierarchy -check -top {top}; proc -noopt; check -assert; \
         {flow} -top {top}; check -assert; stat",
        p = path.display(),
        lib = if flow == "synth_ecp5" {
            "read_verilog -lib -specify +/ecp5/cells_sim.v; "
        } else {
            ""
        }
    );
    let run = crate::tools::run_tool(std::process::Command::new("yosys").arg("-p").arg(&script));
    let warnings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("Warning:"))
        .collect();
    assert!(
        run.success() && warnings.is_empty(),
        "{top}: yosys {flow}: {warnings:?}\n{}",
        run.report()
    );
    let stat = |prefix: &str, none: &str| {
        run.stdout
            .lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix(prefix))
            .map_or_else(|| none.to_string(), |c| c.trim().to_string())
    };
    (stat("Number of cells:", ""), stat("DP16KD", "0"))
}

/// `<tmp>/<test>/gen` (`tmp`: the test's `CARGO_TARGET_TMPDIR`), created: where a test
/// writes a block's Verilog `<top>.v` (and [`lint_and_icarus`] its waivers `<top>.vlt`).
pub fn gen_dir(tmp: &str, test: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(tmp).join(test).join("gen");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Verilator `--lint-only -Wall` (with the project's waivers) and Icarus `-g2005 -Wall` on
/// the block Verilog at `path`, top module `top`: panics unless each succeeds and prints
/// nothing.
pub fn lint_and_icarus(path: &std::path::Path, top: &str) {
    use crate::tools::{run_tool, waiver_file};
    use std::process::Command;
    let silent = |run: &crate::tools::ToolRun| {
        run.success() && run.stdout.trim().is_empty() && run.stderr.trim().is_empty()
    };
    let lint = run_tool(
        Command::new("verilator")
            .args(["--lint-only", "-Wall"])
            .arg(waiver_file(path, top))
            .arg(path)
            .args(["--top-module", top]),
    );
    assert!(silent(&lint), "{top}: lint\n{}", lint.report());
    let icarus = run_tool(
        Command::new("iverilog")
            .args(["-g2005", "-Wall", "-o", "/dev/null", "-s", top])
            .arg(path),
    );
    assert!(silent(&icarus), "{top}: iverilog\n{}", icarus.report());
}

/// The parameters of a miss unit (and of its child blocks) for a block test: blocks of
/// 2^`block_bits` words of `word_bits` bits, `max_misses` slots, a `bus`-bit memory bus, 1024
/// cache lines.
pub fn miss_params(
    block_bits: u32,
    word_bits: u32,
    max_misses: u32,
    bus: u32,
) -> qptable::hw::miss_unit::MissParams {
    qptable::hw::miss_unit::MissParams {
        block_bits,
        word_bits,
        max_misses,
        mem_data_bits: bus,
        cache_lines: 1024,
    }
}
