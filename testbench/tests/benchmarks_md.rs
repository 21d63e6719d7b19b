//! `BENCHMARKS.md` is what the tools write (`scripts/benchmarks`: `qptable bench --markdown`
//! and `qptable synth --markdown`), not a hand-edited file. The figures are noisy and are
//! not checked; the structure and the freshness are:
//!
//! | test | what it checks |
//! |---|---|
//! | `headings_are_the_generators` | the title and every `## ` heading are those of the writers (`qptable_testbench::markdown`, `perf::report::MARKDOWN_HEADINGS`, `synth::MARKDOWN_HEADINGS`), in their order, and no other |
//! | `tables_have_the_generators_columns` | each table header of the writers is in the file, and every row of every table has as many cells as its header |
//! | `every_configuration_is_measured` | the throughput table has one row per `configs/*.toml`, in order |
//! | `stamped_commit_is_in_the_history` | the file names at least one commit; each is a commit of `git log` (an ancestor of HEAD) and none is `+dirty` |
//! | `measured_verilog_is_the_current_one` | the emitted Verilog (`gen/`) and the configurations are the same at each stamped commit as in this tree, so the figures are those of this design |
//! | `rust_hdl_and_verilator_answer_the_same` | every row of the rust-hdl table compared at least one response and found rust-hdl's equal to Verilator's (not a figure: the same stimulus on the same design) |

use qptable_testbench::markdown::{
    header_row, split_row, COMMIT_PREFIX, STAMP_COLUMNS, STAMP_HEADING, TITLE,
};
use qptable_testbench::perf::report;
use qptable_testbench::synth;
use qptable_testbench::tools::{repo_root, run_tool, shipped_configs};
use std::process::Command;

const REGENERATE: &str = "Regenerate it (commit first) with\n    scripts/benchmarks";

fn text() -> String {
    std::fs::read_to_string(repo_root().join("BENCHMARKS.md"))
        .unwrap_or_else(|e| panic!("cannot read BENCHMARKS.md: {e}\n{REGENERATE}"))
}

fn headings() -> Vec<String> {
    let mut h = vec![STAMP_HEADING.to_string()];
    h.extend(report::MARKDOWN_HEADINGS.iter().map(|s| s.to_string()));
    h.extend(synth::MARKDOWN_HEADINGS.iter().map(|s| s.to_string()));
    h
}

#[test]
fn headings_are_the_generators() {
    let text = text();
    assert_eq!(
        text.lines().next(),
        Some(TITLE),
        "BENCHMARKS.md does not open with the title the tools write.\n{REGENERATE}"
    );
    let found: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("## "))
        .map(str::to_string)
        .collect();
    assert_eq!(
        found,
        headings(),
        "the section headings of BENCHMARKS.md are not the ones the tools write.\n{REGENERATE}"
    );
}

/// The tables of `text`: each is its lines (header, separator, rows).
fn tables(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![];
    let mut cur: Vec<&str> = vec![];
    for l in text.lines() {
        if l.trim_start().starts_with('|') {
            cur.push(l);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn tables_have_the_generators_columns() {
    let text = text();
    let headers: Vec<&[&str]> = vec![
        &STAMP_COLUMNS,
        &report::THROUGHPUT_COLUMNS,
        &report::UNDER_COMMANDS_COLUMNS,
        &report::COMMAND_COLUMNS,
        &report::SPEED_COLUMNS,
        &report::RUST_HDL_COLUMNS,
        &report::STATE_MEM_WORKLOAD_COLUMNS,
        &report::STATE_MEM_TARGET_COLUMNS,
        &synth::ECP5_COLUMNS,
        &synth::CLOCK_COLUMNS,
        &synth::GENERIC_COLUMNS,
    ];
    let mut bad = vec![];
    for cols in headers {
        if !text.contains(&header_row(cols)) {
            bad.push(format!("no table with the columns {cols:?}"));
        }
    }
    for t in tables(&text) {
        let width = split_row(t[0]).map_or(0, |c| c.len());
        if t.len() < 2 || !t[1].starts_with("|---") {
            bad.push(format!("a table without its separator line: {}", t[0]));
        }
        for l in &t[1..] {
            let n = split_row(l).map_or(0, |c| c.len());
            if n != width {
                bad.push(format!("{n} cells under a header of {width}: {l}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}\n{REGENERATE}", bad.join("\n"));
}

#[test]
fn rust_hdl_and_verilator_answer_the_same() {
    let text = text();
    let header = header_row(&report::RUST_HDL_COLUMNS);
    let table = tables(&text)
        .into_iter()
        .find(|t| t.len() >= 2 && format!("{}\n{}", t[0], t[1]) == header)
        .unwrap_or_else(|| panic!("no rust-hdl table.\n{REGENERATE}"));
    let mut bad = vec![];
    for l in &table[2..] {
        let cells = split_row(l).unwrap();
        let last = cells.last().map(String::as_str).unwrap_or("");
        let compared = last
            .split(',')
            .next()
            .and_then(|n| n.trim().parse::<u64>().ok());
        if !(last.ends_with(", all equal") && compared.is_some_and(|n| n > 0)) {
            bad.push(l.to_string());
        }
    }
    assert!(
        table.len() > 2 && bad.is_empty(),
        "rust-hdl and Verilator differ (or compared nothing) on the same lookup pipe and \
         stimulus in these rows of BENCHMARKS.md:\n{}\n(`QPTABLE_PERF_DEBUG=1 qptable bench ...` \
         prints the first difference)",
        bad.join("\n")
    );
}

#[test]
fn every_configuration_is_measured() {
    let text = text();
    let header = header_row(&report::THROUGHPUT_COLUMNS);
    let table = tables(&text)
        .into_iter()
        .find(|t| t.len() >= 2 && format!("{}\n{}", t[0], t[1]) == header)
        .unwrap_or_else(|| panic!("no throughput table.\n{REGENERATE}"));
    let labels: Vec<String> = table[2..]
        .iter()
        .map(|l| split_row(l).unwrap()[0].clone())
        .collect();
    let want: Vec<String> = shipped_configs()
        .iter()
        .map(|s| format!("{} (`{}`)", s.name, s.config.top))
        .collect();
    assert_eq!(
        labels, want,
        "the throughput table does not measure every configs/*.toml.\n{REGENERATE}"
    );
}

#[test]
fn stamped_commit_is_in_the_history() {
    let text = text();
    let commits: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(COMMIT_PREFIX)?.split('`').next())
        .collect();
    assert!(
        !commits.is_empty(),
        "BENCHMARKS.md names no commit.\n{REGENERATE}"
    );
    let root = repo_root();
    for c in commits {
        assert!(
            !c.ends_with("+dirty"),
            "BENCHMARKS.md was measured on a tree with uncommitted changes ({c}).\n{REGENERATE}"
        );
        let run = run_tool(Command::new("git").arg("-C").arg(&root).args([
            "merge-base",
            "--is-ancestor",
            c,
            "HEAD",
        ]));
        assert!(
            run.success(),
            "the commit {c} of BENCHMARKS.md is not in `git log`: {}\n{REGENERATE}",
            run.report()
        );
    }
}

#[test]
fn measured_verilog_is_the_current_one() {
    // The figures belong to the Verilog they were measured on: the emitted Verilog of the
    // shipped configurations (`gen/`, itself checked fresh by `verilog_quality`) and the
    // configurations must be the same at the stamped commit as in this tree.
    let text = text();
    let root = repo_root();
    for c in text
        .lines()
        .filter_map(|l| l.strip_prefix(COMMIT_PREFIX)?.split('`').next())
    {
        let run = run_tool(
            Command::new("git")
                .arg("-C")
                .arg(&root)
                .args(["diff", "--quiet", c, "--", "gen"]),
        );
        assert!(
            run.success(),
            "BENCHMARKS.md was measured at {c}, and gen/ changed since: its figures are not \
             those of this tree ({}).\n{REGENERATE}",
            run.report()
        );
        // The configurations as parsed (a comment edited in a file, or a default written out,
        // changes no figure): the same files, names and values at the commit as here.
        let then = configs_at(c);
        let now: Vec<_> = shipped_configs()
            .into_iter()
            .map(|s| (s.name, resolved(s.config)))
            .collect();
        assert!(
            then == now,
            "BENCHMARKS.md was measured at {c}, and a configuration of configs/ changed since: \
             its figures are not those of this tree.\n{REGENERATE}"
        );
    }
}

/// The configurations of `configs/` at `commit`, parsed (name, configuration), sorted by file.
fn configs_at(commit: &str) -> Vec<(String, qptable::config::Config)> {
    let dir = std::env::temp_dir().join(format!(
        "qptable-benchmarks-md-{}-{commit}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let archive = dir.join("configs.tar");
    let run = run_tool(
        Command::new("git")
            .arg("-C")
            .arg(repo_root())
            .args(["archive", "-o"])
            .arg(&archive)
            .args([commit, "configs"]),
    );
    assert!(
        run.success(),
        "git archive {commit} configs: {}",
        run.report()
    );
    let run = run_tool(
        Command::new("tar")
            .arg("-xf")
            .arg(&archive)
            .arg("-C")
            .arg(&dir),
    );
    assert!(run.success(), "tar: {}", run.report());
    let parsed = qptable::config_files::in_dir(&dir.join("configs"))
        .unwrap_or_else(|e| panic!("configs/ at {commit}: {e:#}"));
    let _ = std::fs::remove_dir_all(&dir);
    parsed
        .into_iter()
        .map(|s| (s.name, resolved(s.config)))
        .collect()
}

/// `c` with its defaults that follow other parameters written out (max_qps left out is
/// 2^index_bits): the same design compares equal however the file spells it.
fn resolved(c: qptable::config::Config) -> qptable::config::Config {
    qptable::config::Config {
        max_qps: Some(c.max_qps()),
        ..c
    }
}
