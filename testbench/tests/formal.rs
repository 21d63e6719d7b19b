//! The formal proofs (`scripts/formal`, docs/verification.md) pass: every property of the
//! formal harness is proved on its configuration, and every reachability check fails as it
//! must (the properties are not vacuous).
//!
//! `scripts/formal` creates its venv from PyPI on first use (network needed once) and kills a
//! check that runs longer than `QPTABLE_FORMAL_TIMEOUT` seconds. Nothing is skipped: when the
//! venv cannot be created, this test fails with the script's message.

use qptable_testbench::tools::{repo_root, run_tool};
use std::path::Path;
use std::process::Command;

/// The checks `scripts/formal` runs by default; each prints one line that starts with its name.
const CHECKS: [&str; 7] = [
    "flat_p1",
    "flat_p2",
    "flat_latency",
    "flat_p1_addr",
    "flat_reach_ok",
    "flat_reach_free",
    "mem_reach_cmd_mem_error",
];

#[test]
fn formal_proofs_pass() {
    let root = repo_root();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("formal");
    let mut cmd = Command::new(root.join("scripts/formal"));
    // The script builds the generator (`cargo build --release -p qptable-cli`: nothing to do
    // when it is fresh) and generates each check's Verilog with it.
    cmd.env("QPTABLE_FORMAL_BUILD", &work);
    let run = run_tool(&mut cmd);
    let missing: Vec<&str> = CHECKS
        .iter()
        .copied()
        .filter(|c| {
            !run.stdout
                .lines()
                .any(|l| l.split_whitespace().next() == Some(c))
        })
        .collect();
    assert!(
        run.success() && missing.is_empty(),
        "scripts/formal failed ({:.0} s); checks without a result line: {missing:?}\n{}\n\
         (the venv comes from PyPI: run `scripts/formal` by hand to see how it is set up; \
         it needs python3 with venv, which `scripts/setup` installs)",
        run.elapsed.as_secs_f64(),
        run.report()
    );
    println!(
        "formal: {} checks as expected in {:.1} s\n{}",
        CHECKS.len(),
        run.elapsed.as_secs_f64(),
        run.stdout
    );
}
