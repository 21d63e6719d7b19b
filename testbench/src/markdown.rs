//! The Markdown of `BENCHMARKS.md`: the stamp that says where the figures were measured
//! ([`Stamp`]: commit, machine, tools) and the helpers of the tables that
//! [`perf::report`](crate::perf::report) (`qptable bench --markdown`) and
//! [`synth`](crate::synth) (`qptable synth --markdown`) write.
//!
//! `scripts/benchmarks` runs both and writes `BENCHMARKS.md`; the test
//! `testbench/tests/benchmarks_md.rs` checks that the committed file has the headings and the
//! table columns written here ([`TITLE`], [`STAMP_HEADING`], the `*_HEADINGS` and `*_COLUMNS`
//! of the two writers) and that its commit is in the history.

use crate::tools::{capture, repo_root};
use std::fmt::Write as _;
use std::process::Command;

/// First line of `BENCHMARKS.md`.
pub const TITLE: &str = "# Benchmarks";

/// Heading of the stamp section that `qptable bench --markdown` writes.
pub const STAMP_HEADING: &str = "## Where and with what this was measured";

/// The line prefix of the stamped commit: `commit <hash>` or `commit <hash>+dirty`, in
/// backquotes.
pub const COMMIT_PREFIX: &str = "| commit | `";

/// Columns of the stamp table.
pub const STAMP_COLUMNS: [&str; 2] = ["what", "measured with"];

/// Where and with what figures were measured.
#[derive(Clone, Debug)]
pub struct Stamp {
    /// `git rev-parse --short HEAD`, with `+dirty` when tracked files differ from it.
    pub commit: String,
    /// (what, description) rows: CPU, cores, memory, OS, tools.
    pub rows: Vec<(String, String)>,
}

fn first_line(cmd: &mut Command) -> Option<String> {
    let run = capture(cmd).ok()?;
    if !run.success() {
        return None;
    }
    let text = format!("{}{}", run.stdout, run.stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// `git rev-parse --short HEAD` of the repository, `+dirty` when a tracked file differs
/// from it (untracked files do not count); `unknown` outside a git checkout.
pub fn commit() -> String {
    let root = repo_root();
    let Some(head) =
        first_line(
            Command::new("git")
                .arg("-C")
                .arg(&root)
                .args(["rev-parse", "--short", "HEAD"]),
        )
    else {
        return "unknown".into();
    };
    let dirty = capture(Command::new("git").arg("-C").arg(&root).args([
        "status",
        "--porcelain",
        "--untracked-files=no",
    ]))
    .map(|r| !r.stdout.trim().is_empty())
    .unwrap_or(true);
    if dirty {
        format!("{head}+dirty")
    } else {
        head
    }
}

/// `/proc/cpuinfo`'s model name and MHz, the core count and the memory.
fn machine_rows() -> Vec<(String, String)> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_gb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))?
                .split_whitespace()
                .nth(1)?
                .parse::<f64>()
                .ok()
        })
        .map_or("unknown".to_string(), |kb| {
            format!("{:.0} GB", kb / 1024.0 / 1024.0)
        });
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    vec![
        (
            "CPU".into(),
            format!(
                "{} ({} MHz)",
                field("model name").unwrap_or_else(|| "unknown".into()),
                field("cpu MHz").unwrap_or_else(|| "?".into())
            ),
        ),
        ("cores".into(), cores.to_string()),
        ("memory".into(), mem_gb),
        ("OS".into(), os),
    ]
}

/// The version line of a tool, or `not found`.
pub fn tool_version(program: &str, arg: &str) -> String {
    first_line(Command::new(program).arg(arg)).unwrap_or_else(|| format!("{program}: not found"))
}

impl Stamp {
    /// The stamp of now: the commit, the machine, and rustc, Verilator and the C++ compiler
    /// (the tools of `qptable bench`); `extra` adds rows (the tools of `qptable synth`).
    pub fn now(extra: &[(String, String)]) -> Stamp {
        let mut rows = machine_rows();
        rows.push(("rustc".into(), tool_version("rustc", "-V")));
        rows.push(("Verilator".into(), tool_version("verilator", "--version")));
        rows.push(("C++ compiler".into(), tool_version("c++", "--version")));
        rows.extend(extra.iter().cloned());
        Stamp {
            commit: commit(),
            rows,
        }
    }

    /// The stamp as a Markdown table (commit first).
    pub fn table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "{}", header_row(&STAMP_COLUMNS));
        let _ = writeln!(o, "{COMMIT_PREFIX}{}` |", self.commit);
        for (k, v) in &self.rows {
            let _ = writeln!(o, "| {} | {} |", cell(k), cell(v));
        }
        o
    }
}

/// A Markdown table header (the column names, then the separator line).
pub fn header_row(columns: &[&str]) -> String {
    let names: Vec<String> = columns.iter().map(|c| cell(c)).collect();
    let seps: Vec<&str> = columns.iter().map(|_| "---").collect();
    format!("| {} |\n|{}|", names.join(" | "), seps.join("|"))
}

/// A Markdown table row.
pub fn row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
    format!("| {} |", cells.join(" | "))
}

/// Text safe inside a table cell (`|` escaped, no newline).
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The cells of a Markdown table line `| a | b |` (escaped bars kept inside their cell).
pub fn split_row(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?.strip_suffix('|')?;
    let mut cells = vec![];
    let mut cur = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'|') {
            cur.push('|');
            chars.next();
        } else if c == '|' {
            cells.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    cells.push(cur.trim().to_string());
    Some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_split_back_into_their_cells() {
        let cells = vec!["a|b".to_string(), "".to_string(), "3 / 3 / 3".to_string()];
        assert_eq!(split_row(&row(&cells)).unwrap(), cells);
        let h = header_row(&["design", "LUTs"]);
        let mut lines = h.lines();
        assert_eq!(
            split_row(lines.next().unwrap()).unwrap(),
            ["design", "LUTs"]
        );
        assert_eq!(lines.next().unwrap(), "|---|---|");
    }
}
