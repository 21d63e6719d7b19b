//! The cocotb example bench (`testbench/cocotb/`, cocotb + cocotbext-axi on Icarus Verilog)
//! passes on the committed `gen/qp_table.v`, on the default configuration generated at
//! `index_bits` 6 and 8 (what `qptable gen --set index_bits=N` writes), and on two small
//! configurations with the state in memory (SPEC §9), flat and two-level with the directory on
//! chip, whose memory master is served by cocotbext-axi's `AxiRam` as the library ships it
//! (`test_state_mem.py` runs on those on top of `test_qp_table.py`).
//!
//! Runs `testbench/cocotb/run`, which creates its venv from PyPI on first use (network
//! needed once) and kills a simulation that runs longer than `QPTABLE_COCOTB_TIMEOUT`
//! seconds, so a hung simulator fails this test instead of blocking CI.

use qptable::config::Config;
use qptable_testbench::tools::{repo_root, run_tool};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Tests in test_qp_table.py: every file must pass all of them.
const TESTS: usize = 4;
/// Tests in test_state_mem.py: a file with the state in memory runs them as well.
const STATE_MEM_TESTS: usize = 4;
/// Seconds one file's simulation may take (the default configuration takes ~30 s, a
/// state-in-memory one ~60 s).
const FILE_TIMEOUT_S: u32 = 300;
/// The state-in-memory configurations: small, so that Icarus runs each in about a minute
/// (32 blocks of 8 indexes, a cache of 16 of them, 4 fetches in flight; max_qps below
/// 2^index_bits so that OUT_OF_RANGE shows up).
const STATE_MEM: [(&str, &[&str]); 2] = [
    ("state_mem_flat", &[]),
    ("state_mem_two_level", &["mode=two_level", "leaf_bits=4"]),
];
const STATE_MEM_COMMON: &[&str] = &[
    "state=in_memory",
    "index_bits=8",
    "max_qps=200",
    "block_bits=3",
    "cache_lines=16",
    "max_misses=4",
];

/// Generates `cfg`'s Verilog into `work/<dir>/<top>.v`.
fn generate(work: &Path, dir: &str, cfg: &Config) -> PathBuf {
    cfg.validate()
        .unwrap_or_else(|e| panic!("the configuration of {dir} is valid: {e}"));
    let dir = work.join(dir);
    std::fs::create_dir_all(&dir).expect("creating the work directory");
    let path = dir.join(format!("{}.v", cfg.top));
    let verilog = qptable::generate::generate_verilog(cfg).expect("generating the Verilog");
    std::fs::write(&path, verilog).expect("writing the Verilog");
    path
}

#[test]
fn cocotb_bench_passes_on_icarus() {
    let root = repo_root();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cocotb");
    // (file, tests it must pass)
    let mut files = vec![(root.join("gen").join("qp_table.v"), TESTS)];
    for bits in [6, 8] {
        let mut cfg = Config::default();
        cfg.set(&format!("index_bits={bits}"))
            .expect("index_bits is a parameter");
        files.push((generate(&work, &format!("index_bits_{bits}"), &cfg), TESTS));
    }
    for (dir, extra) in STATE_MEM {
        let mut cfg = Config::default();
        for assignment in STATE_MEM_COMMON.iter().chain(extra) {
            cfg.set(assignment)
                .unwrap_or_else(|e| panic!("{assignment}: {e}"));
        }
        files.push((generate(&work, dir, &cfg), TESTS + STATE_MEM_TESTS));
    }
    let run = run_tool(
        Command::new(root.join("testbench/cocotb/run"))
            .args(files.iter().map(|(f, _)| f))
            .env("QPTABLE_COCOTB_BUILD", work.join("build"))
            .env("QPTABLE_COCOTB_TIMEOUT", FILE_TIMEOUT_S.to_string()),
    );
    let output = format!("{}\n{}", run.stdout, run.stderr);
    // run.py prints "run.py: <absolute path>: <passed> of <tests> tests passed" per file.
    let failed: Vec<String> = files
        .iter()
        .filter(|(f, tests)| {
            let line = format!("run.py: {}: {tests} of {tests} tests passed", f.display());
            !output.lines().any(|l| l.trim_end() == line)
        })
        .map(|(f, _)| f.display().to_string())
        .collect();
    assert!(
        run.success() && failed.is_empty(),
        "the cocotb bench failed on {failed:?} ({:.0} s):\n{}",
        run.elapsed.as_secs_f64(),
        run.report()
    );
    println!(
        "cocotb: {} files, {} tests passed in {:.1} s",
        files.len(),
        files.iter().map(|(_, t)| t).sum::<usize>(),
        run.elapsed.as_secs_f64()
    );
}
