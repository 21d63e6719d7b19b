//! The cocotb example bench (`testbench/cocotb/`, cocotb + cocotbext-axi on Icarus Verilog)
//! passes on the committed `gen/qp_table.v` and on the default configuration generated at
//! `index_bits` 6 and 8 (what `qptable gen --set index_bits=N` writes).
//!
//! Runs `testbench/cocotb/run`, which creates its venv from PyPI on first use (network
//! needed once) and kills a simulation that runs longer than `QPTABLE_COCOTB_TIMEOUT`
//! seconds, so a hung simulator fails this test instead of blocking CI.

use qptable::config::Config;
use qptable_testbench::tools::{repo_root, run_tool};
use std::path::Path;
use std::process::Command;

/// Tests in test_qp_table.py; each file must pass all of them.
const TESTS: usize = 4;
/// Seconds one file's simulation may take (the default configuration takes ~30 s).
const FILE_TIMEOUT_S: u32 = 300;

#[test]
fn cocotb_bench_passes_on_icarus() {
    let root = repo_root();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cocotb");
    let mut files = vec![root.join("gen").join("qp_table.v")];
    for bits in [6, 8] {
        let mut cfg = Config::default();
        cfg.set(&format!("index_bits={bits}"))
            .expect("index_bits is a parameter");
        cfg.validate()
            .expect("the default configuration at this index_bits is valid");
        let dir = work.join(format!("index_bits_{bits}"));
        std::fs::create_dir_all(&dir).expect("creating the work directory");
        let path = dir.join(format!("{}.v", cfg.top));
        let verilog = qptable::generate::generate_verilog(&cfg).expect("generating the Verilog");
        std::fs::write(&path, verilog).expect("writing the Verilog");
        files.push(path);
    }
    let run = run_tool(
        Command::new(root.join("testbench/cocotb/run"))
            .args(&files)
            .env("QPTABLE_COCOTB_BUILD", work.join("build"))
            .env("QPTABLE_COCOTB_TIMEOUT", FILE_TIMEOUT_S.to_string()),
    );
    let output = format!("{}\n{}", run.stdout, run.stderr);
    // run.py prints "run.py: <absolute path>: <passed> of <tests> tests passed" per file.
    let failed: Vec<String> = files
        .iter()
        .filter(|f| {
            let line = format!("run.py: {}: {TESTS} of {TESTS} tests passed", f.display());
            !output.lines().any(|l| l.trim_end() == line)
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        run.success() && failed.is_empty(),
        "the cocotb bench failed on {failed:?} ({:.0} s):\n{}",
        run.elapsed.as_secs_f64(),
        run.report()
    );
    println!(
        "cocotb: {} files x {TESTS} tests passed in {:.1} s",
        files.len(),
        run.elapsed.as_secs_f64()
    );
}
