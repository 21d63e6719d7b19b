//! The formal checks (`scripts/formal --mutants`, docs/verification.md): every property of the
//! formal harness holds on its configuration, every reachability check fails as it must (the
//! properties are not vacuous), every mutant is caught, and every property that a check
//! proves is the one that catches at least one mutant (each property earns its place).
//!
//! `scripts/formal` creates its venv from PyPI on first use (network needed once) and kills a
//! check that runs longer than `QPTABLE_FORMAL_TIMEOUT` seconds. Nothing is skipped: when the
//! venv cannot be created, this test fails with the script's message.

use qptable_testbench::tools::{repo_root, run_tool};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// One line of `scripts/formal --list`.
struct Check {
    kind: String,
    name: String,
    defines: Vec<String>,
    expected: String,
}

fn checks() -> Vec<Check> {
    let run = run_tool(Command::new(repo_root().join("scripts/formal")).arg("--list"));
    assert!(
        run.success(),
        "scripts/formal --list failed\n{}",
        run.report()
    );
    run.stdout
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 6, "scripts/formal --list: unexpected line {l:?}");
            Check {
                kind: f[0].to_string(),
                name: f[1].to_string(),
                defines: f[3].split(',').map(str::to_string).collect(),
                expected: f[5].to_string(),
            }
        })
        .collect()
}

#[test]
fn formal_checks_pass_and_every_property_catches_a_mutant() {
    let all = checks();
    let run_now: Vec<&Check> = all
        .iter()
        .filter(|c| c.kind == "default" || c.kind == "mutant")
        .collect();
    // Every property a default check proves (expected PASS) is the property of a mutant.
    let proved: BTreeSet<&str> = run_now
        .iter()
        .filter(|c| c.kind == "default" && c.expected == "PASS")
        .flat_map(|c| c.defines.iter().map(String::as_str))
        .collect();
    let caught: BTreeSet<&str> = run_now
        .iter()
        .filter(|c| c.kind == "mutant")
        .flat_map(|c| c.defines.iter().map(String::as_str))
        .collect();
    let uncaught: Vec<&&str> = proved.difference(&caught).collect();
    assert!(
        uncaught.is_empty(),
        "properties with no mutant in scripts/formal: {uncaught:?}"
    );

    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("formal");
    let mut cmd = Command::new(repo_root().join("scripts/formal"));
    // The script builds the generator (`cargo build --release -p qptable-cli`: nothing to do
    // when it is fresh) and generates each check's Verilog with it.
    cmd.arg("--mutants").env("QPTABLE_FORMAL_BUILD", &work);
    let run = run_tool(&mut cmd);
    let missing: Vec<&str> = run_now
        .iter()
        .map(|c| c.name.as_str())
        .filter(|name| {
            !run.stdout
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name))
        })
        .collect();
    assert!(
        run.success() && missing.is_empty(),
        "scripts/formal --mutants failed ({:.0} s); checks without a result line: {missing:?}\n{}\n\
         (the venv comes from PyPI: run `scripts/formal` by hand to see how it is set up; \
         it needs python3 with venv, which `scripts/setup` installs)",
        run.elapsed.as_secs_f64(),
        run.report()
    );
    println!(
        "formal: {} checks and mutants as expected in {:.1} s\n{}",
        run_now.len(),
        run.elapsed.as_secs_f64(),
        run.stdout
    );
}
