//! External tools (Verilator lint, Icarus Verilog, yosys, nextpnr), for the tests that check
//! emitted Verilog and compare it with the committed `gen/` files, and for `synth`.
//!
//! * [`repo_root`], [`waiver_file`]: where the repository and `verilator.vlt` are;
//! * [`shipped_configs`]: every `configs/*.toml`, parsed and validated, with the path of its
//!   committed Verilog `gen/<top>.v`;
//! * [`capture`] (the harness's runner, `qptable_sim::tool`) runs a program and captures its
//!   output and time; [`run_tool`] is the same for tests and says clearly when the program is
//!   not installed; [`ToolRun::report`] and [`tail`] build failure messages that show the
//!   command and the end of its output.

use qptable::config_files;
pub use qptable::config_files::ShippedConfig;
pub use qptable_sim::tool::{capture, command_line, tail, ToolRun, TAIL_LINES};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Every `configs/*.toml`, sorted by file name, parsed and validated ([`config_files::in_dir`]),
/// each with the path of its committed Verilog `gen/<top>.v`. Panics with the error when one
/// does not parse or validate.
pub fn shipped_configs() -> Vec<ShippedConfig> {
    let dir = repo_root().join("configs");
    config_files::in_dir(&dir).unwrap_or_else(|e| panic!("shipped configuration: {e:#}"))
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
