//! The runner of external programs (Verilator, make, g++, yosys, nextpnr, Icarus): runs one to
//! completion and captures its output, exit code and time, for messages that show the
//! command and the end of its output.

use std::fmt;
use std::process::Command;
use std::time::{Duration, Instant};

/// Lines of tool output shown in a failure message.
pub const TAIL_LINES: usize = 40;

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

    /// How the program ended, for messages: `exit status: N` or `killed by a signal`.
    pub fn status(&self) -> String {
        self.code.map_or("killed by a signal".to_string(), |c| {
            format!("exit status: {c}")
        })
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
