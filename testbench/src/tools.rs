//! External tools (Verilator lint, Icarus Verilog, yosys, nextpnr), for the tests that check
//! emitted Verilog and compare it with the committed `gen/` files, and for `synth`.
//!
//! * [`repo_root`]: where the repository is; [`waiver_file`]: the lint waivers `<top>.vlt` of
//!   a Verilog file `<top>.v`, as `qptable gen` writes them beside it;
//! * [`top_ports`]: the ports of a top module, read from its Verilog;
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

/// The Verilator waivers of the Verilog file `verilog` (`<dir>/<top>.v`): `<dir>/<top>.vlt`,
/// the file `qptable gen` writes beside it ([`qptable::tidy::lint_waivers`]), written there
/// unless it already holds that text (as `gen/` does). Every lint of emitted Verilog uses it
/// and nothing else.
pub fn waiver_file(verilog: &Path, top: &str) -> PathBuf {
    let path = verilog.with_file_name(format!("{top}.vlt"));
    let text = qptable::tidy::lint_waivers(top);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        qptable::generate::write_atomically(&path, &text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
    path
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

/// Direction of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PortDir {
    In,
    Out,
}

/// A port of a top module: name, direction, width in bits.
pub type PortDecl = (String, PortDir, u32);

/// The ports of module `top`: the names of its header in order, and its `input`/`output`
/// declarations, in an ANSI header (`module top (input wire [23:0] name, ...);`, comments
/// allowed, as `qptable gen` writes it) or in the body of a non-ANSI one (`module
/// top(a,b,...);` then `input wire [23:0] a;`, as rust-hdl writes it).
pub fn top_ports(verilog: &str, top: &str) -> Result<(Vec<String>, Vec<PortDecl>), String> {
    let start = verilog
        .lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix("module")
                .and_then(|rest| rest.trim_start().strip_prefix(top))
                .is_some_and(|rest| rest.trim_start().starts_with('('))
        })
        .ok_or_else(|| format!("no `module {top}(` in the Verilog"))?;
    let body: Vec<&str> = verilog.lines().skip(start).collect();
    // The text from the module line on, comments dropped.
    let header_text: String = body
        .iter()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
    let open = header_text.find('(').expect("the header line has a `(`");
    let close = header_text[open..]
        .find(");")
        .ok_or_else(|| format!("the header of module {top} has no `);`"))?
        + open;
    let mut header = Vec::new();
    let mut decls = Vec::new();
    for item in header_text[open + 1..close].split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        match declaration(item, top)? {
            Some((names, dir, width)) => {
                for name in names {
                    header.push(name.clone());
                    decls.push((name, dir, width));
                }
            }
            None => header.push(item.to_string()),
        }
    }
    let mut past_header = false;
    for line in body.iter() {
        let line = line.trim();
        if !past_header {
            past_header = line.ends_with(");");
            continue;
        }
        if line.starts_with("endmodule") {
            break;
        }
        if let Some((names, dir, width)) = declaration(line.trim_end_matches(';'), top)? {
            decls.extend(names.into_iter().map(|n| (n, dir, width)));
        }
    }
    Ok((header, decls))
}

/// `(names, direction, width)` of a port declaration `input wire [23:0] a` (without its `;`),
/// or None when `text` is not one.
fn declaration(text: &str, top: &str) -> Result<Option<(Vec<String>, PortDir, u32)>, String> {
    let dir = if text.starts_with("input ") {
        PortDir::In
    } else if text.starts_with("output ") {
        PortDir::Out
    } else if text.starts_with("inout ") {
        return Err(format!("module {top} has an inout port: {text}"));
    } else {
        return Ok(None);
    };
    let mut width = 1;
    let mut names = Vec::new();
    for word in text.split_whitespace().skip(1) {
        match word {
            "wire" | "reg" | "logic" => {}
            "signed" => return Err(format!("signed port in module {top}: {text}")),
            w if w.starts_with('[') => {
                let range = w.trim_start_matches('[').trim_end_matches(']');
                let (hi, lo) = range
                    .split_once(':')
                    .and_then(|(h, l)| Some((h.parse::<u32>().ok()?, l.parse::<u32>().ok()?)))
                    .ok_or_else(|| format!("cannot read the range of `{text}`"))?;
                if lo != 0 || hi < lo {
                    return Err(format!("port range is not [N-1:0]: {text}"));
                }
                width = hi - lo + 1;
            }
            w => names.extend(
                w.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string),
            ),
        }
    }
    Ok(Some((names, dir, width)))
}
