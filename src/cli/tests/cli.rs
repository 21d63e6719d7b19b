//! The command-line tool: `qptable gen` writes `<top>.v` and its instantiation template
//! `<top>_inst.vh`, and refuses a bad configuration with exit code 1, one line on stderr
//! that names the parameter and the value, and nothing written (SPEC §3).

use qptable::config::Config;
use qptable::generate::{generate_verilog, instantiation_template};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// An empty directory of its own under the system temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "qptable-cli-{}-{}-{name}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// The names of the files in the directory, sorted.
    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .expect("readable temporary directory")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn qptable(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qptable"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the qptable binary runs")
}

fn describe(args: &[&str], out: &Output) -> String {
    format!(
        "qptable {}\nexit status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The repository root (this package is `src/cli/`).
fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn gen_without_options_writes_the_default_top() {
    let expected = generate_verilog(&Config::default()).expect("the defaults generate");

    // With -o.
    let dir = TempDir::new("gen-o");
    let out_dir = dir.path().to_str().expect("UTF-8 temporary path");
    let args = ["gen", "-o", out_dir];
    let out = qptable(&args, dir.path());
    assert!(out.status.success(), "{}", describe(&args, &out));
    assert_eq!(
        dir.entries(),
        ["qp_table.v", "qp_table_inst.vh"],
        "{}",
        describe(&args, &out)
    );
    let written = std::fs::read_to_string(dir.path().join("qp_table.v")).unwrap();
    assert!(
        written == expected,
        "qptable gen wrote other Verilog than generate_verilog(&Config::default())"
    );
    let template = std::fs::read_to_string(dir.path().join("qp_table_inst.vh")).unwrap();
    assert!(
        template == instantiation_template(&Config::default()).unwrap(),
        "qptable gen wrote another instantiation template than the library's"
    );
    assert!(out.stderr.is_empty(), "{}", describe(&args, &out));

    // With no option at all: into the current directory.
    let dir = TempDir::new("gen-cwd");
    let out = qptable(&["gen"], dir.path());
    assert!(out.status.success(), "{}", describe(&["gen"], &out));
    assert_eq!(
        dir.entries(),
        ["qp_table.v", "qp_table_inst.vh"],
        "{}",
        describe(&["gen"], &out)
    );
    let written = std::fs::read_to_string(dir.path().join("qp_table.v")).unwrap();
    assert!(
        written == expected,
        "qptable gen (in the current directory)"
    );
}

#[test]
fn gen_with_a_config_file_and_overrides() {
    let dir = TempDir::new("gen-config");
    let small = repo_root().join("configs/small.toml");
    let small = small.to_str().expect("UTF-8 path");
    let out_dir = dir.path().to_str().expect("UTF-8 temporary path");
    let args = [
        "gen",
        "--config",
        small,
        "--set",
        "tag_bits=4",
        "--set",
        "top=my_qpt",
        "-o",
        out_dir,
    ];
    let out = qptable(&args, dir.path());
    assert!(out.status.success(), "{}", describe(&args, &out));
    assert_eq!(
        dir.entries(),
        ["my_qpt.v", "my_qpt_inst.vh"],
        "{}",
        describe(&args, &out)
    );
    let mut cfg = Config::from_toml_file(Path::new(small)).unwrap();
    cfg.set("tag_bits=4").unwrap();
    cfg.set("top=my_qpt").unwrap();
    let written = std::fs::read_to_string(dir.path().join("my_qpt.v")).unwrap();
    assert!(
        written == generate_verilog(&cfg).unwrap(),
        "qptable {} wrote other Verilog than the library",
        args.join(" ")
    );
}

/// Runs `qptable gen <extra> -o <empty dir>` and checks the refusal: exit code 1, exactly one
/// line on stderr holding every string of `must_name`, and nothing written.
fn assert_refused(extra: &[&str], must_name: &[&str]) -> String {
    let dir = TempDir::new("refused");
    // The output directory does not exist yet: a refusal must not create it either.
    let out_dir = dir.path().join("out");
    let out_dir = out_dir.to_str().expect("UTF-8 temporary path");
    let mut args = vec!["gen"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", out_dir]);
    let out = qptable(&args, dir.path());
    let what = describe(&args, &out);
    assert_eq!(out.status.code(), Some(1), "exit code\n{what}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one line on stderr\n{what}");
    for s in must_name {
        assert!(lines[0].contains(s), "stderr does not name {s:?}\n{what}");
    }
    assert!(
        !Path::new(out_dir).exists(),
        "the refusal created the output directory\n{what}"
    );
    assert!(dir.entries().is_empty(), "the refusal wrote files\n{what}");
    lines[0].to_string()
}

#[test]
fn out_of_range_index_bits_is_refused() {
    let line = assert_refused(&["--set", "index_bits=30"], &["index_bits", "30"]);
    assert!(line.contains("4..=24"), "says what is allowed: {line}");
}

#[test]
fn entry_bytes_not_a_multiple_of_32_is_refused() {
    let line = assert_refused(&["--set", "entry_bytes=100"], &["entry_bytes", "100"]);
    assert!(
        line.contains("multiple of 32"),
        "says what is allowed: {line}"
    );
}

#[test]
fn empty_port_list_is_refused() {
    let line = assert_refused(&["--set", "ports=[]"], &["ports", "[]"]);
    assert!(line.contains("1 to 4"), "says what is allowed: {line}");
}

#[test]
fn unknown_parameter_is_refused() {
    // The value of an unknown parameter means nothing; the line names the parameter and
    // lists the known ones.
    let line = assert_refused(&["--set", "foo=1"], &["foo"]);
    assert!(
        line.contains("index_bits"),
        "lists the known parameters: {line}"
    );
}

#[test]
fn refusals_of_this_release_are_refused() {
    assert_refused(
        &["--set", "quarantine_cycles=4294967296"],
        &["quarantine_cycles", "4294967296"],
    );
}

#[test]
fn bad_toml_file_is_refused() {
    let dir = TempDir::new("bad-toml");
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "index_bits = 12\nmode = \n").unwrap();
    let file = file.to_str().expect("UTF-8 temporary path");
    let line = assert_refused(&["--config", file], &[file, "line 2"]);
    assert!(
        line.contains("TOML"),
        "says the file is not valid TOML: {line}"
    );
}

#[test]
fn bad_value_in_a_config_file_is_refused() {
    let dir = TempDir::new("bad-value");
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "tag_bits = 40\n").unwrap();
    let file = file.to_str().expect("UTF-8 temporary path");
    assert_refused(&["--config", file], &["tag_bits", "40"]);
}

#[test]
fn missing_config_file_is_refused() {
    assert_refused(
        &["--config", "/nonexistent/qptable.toml"],
        &["/nonexistent/qptable.toml"],
    );
}

#[test]
fn synth_refuses_a_min_ratio_that_is_not_a_positive_number() {
    // Refused before any tool runs: no yosys or nextpnr needed.
    let dir = TempDir::new("synth-min-ratio");
    let args = ["synth", "--min-ratio=0"];
    let out = qptable(&args, dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --min-ratio = 0 is not allowed: a number > 0 (e.g. 0.75)\n",
        "{}",
        describe(&args, &out)
    );
    assert!(dir.entries().is_empty(), "{}", describe(&args, &out));
}
