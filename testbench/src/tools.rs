//! External tools (Verilator lint, Icarus Verilog, yosys, nextpnr), for the tests that check
//! emitted Verilog and compare it with the committed `gen/` files, and for `synth`.
//!
//! * [`repo_root`], [`waiver_file`]: where the repository and `verilator.vlt` are;
//! * [`shipped_configs`]: every `configs/*.toml`, parsed and validated, with the path of its
//!   committed Verilog `gen/<top>.v`;
//! * [`capture`] runs a program and captures its output and time; [`run_tool`] is the same
//!   for tests and says clearly when the program is not installed; [`ToolRun::report`] and [`tail`] build failure messages that
//!   show the command and the end of its output.

use crate::configs;
pub use crate::configs::ShippedConfig;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Lines of tool output shown in a failure message.
pub const TAIL_LINES: usize = 40;

/// The root of the repository (the workspace: `Cargo.toml`, `configs/`, `gen/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testbench/ has a parent directory")
        .to_path_buf()
}

/// `path` relative to the repository root when it is inside it, for messages.
pub fn relative(path: &Path) -> String {
    let root = repo_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `verilator.vlt`, the Verilator waivers used for every lint of emitted Verilog.
pub fn waiver_file() -> PathBuf {
    repo_root().join("verilator.vlt")
}

/// Every `configs/*.toml`, sorted by file name, parsed and validated ([`configs::in_dir`]),
/// each with the path of its committed Verilog `gen/<top>.v`. Panics with the error when one
/// does not parse or validate.
pub fn shipped_configs() -> Vec<ShippedConfig> {
    let dir = repo_root().join("configs");
    configs::in_dir(&dir).unwrap_or_else(|e| panic!("shipped configuration: {e:#}"))
}

/// The outcome of one tool run.
#[derive(Debug)]
pub struct ToolRun {
    /// The command line, for messages.
    pub command: String,
    /// `Some(code)` when the program exited, `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl ToolRun {
    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// The command, its exit code and the last [`TAIL_LINES`] lines of stdout and stderr.
    pub fn report(&self) -> String {
        let code = match self.code {
            Some(c) => c.to_string(),
            None => "none (killed by a signal)".to_string(),
        };
        format!(
            "command: {}\nexit code: {code}, {:.1} s\n--- stdout (last {TAIL_LINES} lines) ---\n{}\n\
             --- stderr (last {TAIL_LINES} lines) ---\n{}",
            self.command,
            self.elapsed.as_secs_f64(),
            tail(&self.stdout, TAIL_LINES),
            tail(&self.stderr, TAIL_LINES)
        )
    }
}

impl fmt::Display for ToolRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.report())
    }
}

/// The command line of `cmd`, for messages: the program and its arguments.
pub fn command_line(cmd: &Command) -> String {
    format!(
        "{} {}",
        cmd.get_program().to_string_lossy(),
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// Runs `cmd` to completion and captures its output and time; the error is the one of
/// starting the program (not installed, not executable).
pub fn capture(cmd: &mut Command) -> std::io::Result<ToolRun> {
    let command = command_line(cmd);
    let start = Instant::now();
    let out = cmd.output()?;
    Ok(ToolRun {
        command,
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
    })
}

/// [`capture`] for the tests: panics with an explicit message when the program cannot be
/// started (not installed: run `scripts/setup`).
pub fn run_tool(cmd: &mut Command) -> ToolRun {
    capture(cmd).unwrap_or_else(|e| {
        panic!(
            "cannot run `{}`: {e}\n(is {} installed? `scripts/setup` installs verilator, \
             yosys and iverilog)",
            command_line(cmd),
            cmd.get_program().to_string_lossy()
        )
    })
}

/// The last `n` lines of `text` (all of it when shorter), with a note of how many were cut.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= n {
        return lines.join("\n");
    }
    format!(
        "[... {} lines above not shown]\n{}",
        lines.len() - n,
        lines[lines.len() - n..].join("\n")
    )
}

/// Where `committed` and `generated` first differ: the line number (1-based) and both
/// versions of that line (quoted, so that white space shows), for a message about two texts that should be equal; `None` when
/// they are equal.
pub fn first_difference(committed: &str, generated: &str) -> Option<String> {
    if committed == generated {
        return None;
    }
    let (mut la, mut lb) = (committed.lines(), generated.lines());
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (None, None) => {
                return Some(
                    "the lines are equal: they differ in line endings or in the final \
                             newline"
                        .to_string(),
                )
            }
            (x, y) => {
                let show =
                    |l: Option<&str>| l.map_or("<end of text>".to_string(), |l| format!("{l:?}"));
                return Some(format!(
                    "first difference at line {n}:\n  committed: {}\n  generated: {}",
                    show(x),
                    show(y)
                ));
            }
        }
    }
}
