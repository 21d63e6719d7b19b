//! The waveform pictures of `docs/integration.md` and the README are fresh: `docs/waves/*.svg`
//! is byte for byte what [`docs_waves`] renders today from a checked simulation of the
//! default configuration (`qptable wave -o docs/waves`), like `gen/` is checked by
//! `verilog_quality.rs`.
//!
//! | test | what it checks |
//! |---|---|
//! | `docs_waves_are_fresh` | every picture rendered is committed and equal to the committed file, and no committed `*.svg` is left that the scenarios no longer draw; `QPTABLE_BLESS=1` rewrites them |
//!
//! ```sh
//! QPTABLE_BLESS=1 cargo test --release -p qptable-testbench --test docs_waves
//! ```

use qptable::config::Config;
use qptable_testbench::tools::{relative, repo_root};
use qptable_testbench::wave::docs_waves;
use std::collections::BTreeSet;

const BLESS_ENV: &str = "QPTABLE_BLESS";
const BLESS_COMMAND: &str =
    "QPTABLE_BLESS=1 cargo test --release -p qptable-testbench --test docs_waves\n\
                             (or: cargo run --release -- wave -o docs/waves)";

#[test]
fn docs_waves_are_fresh() {
    let bless = std::env::var(BLESS_ENV).is_ok_and(|v| v == "1");
    let committed_dir = repo_root().join("docs").join("waves");
    let work = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("docs_waves-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let rendered = docs_waves(
        &Config::default(),
        &work.join("scenarios.vcd"),
        &work.join("svg"),
    )
    .unwrap_or_else(|e| panic!("rendering the pictures: {e:#}"));
    assert!(!rendered.is_empty(), "the scenarios drew no picture");

    let mut problems = vec![];
    let mut names = BTreeSet::new();
    for path in &rendered {
        let name = path.file_name().unwrap().to_owned();
        names.insert(name.clone());
        let fresh = std::fs::read(path).unwrap();
        let committed_path = committed_dir.join(&name);
        let committed = std::fs::read(&committed_path).ok();
        if committed.as_deref() == Some(fresh.as_slice()) {
            continue;
        }
        if bless {
            std::fs::create_dir_all(&committed_dir).unwrap();
            std::fs::write(&committed_path, &fresh).unwrap();
            eprintln!("{BLESS_ENV}=1: wrote {}", relative(&committed_path));
        } else if committed.is_none() {
            problems.push(format!("{} is missing", relative(&committed_path)));
        } else {
            problems.push(format!(
                "{} differs from the picture the scenarios render today",
                relative(&committed_path)
            ));
        }
    }
    for entry in std::fs::read_dir(&committed_dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "svg") && !names.contains(p.file_name().unwrap()) {
            if bless {
                std::fs::remove_file(&p).unwrap();
                eprintln!(
                    "{BLESS_ENV}=1: removed {} (no scenario draws it)",
                    relative(&p)
                );
            } else {
                problems.push(format!(
                    "{} is drawn by no scenario of testbench/src/wave/scenarios.rs",
                    relative(&p)
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        problems.is_empty(),
        "{}\nRegenerate docs/waves with\n    {BLESS_COMMAND}",
        problems.join("\n")
    );
}
