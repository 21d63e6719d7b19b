//! The command-line tool: `qptable gen` writes `<top>.v`, its lint waivers `<top>.vlt` and
//! its instantiation template `<top>_inst.vh`, and refuses a bad configuration with exit code 1, one line on stderr
//! that names the parameter and the value, and nothing written (SPEC §3).

use qptable::config::Config;
use qptable::generate::{generate_verilog, instantiation_template};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
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

/// The repository root (this package is `cli/`).
fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
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
        ["qp_table.v", "qp_table.vlt", "qp_table_inst.vh"],
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
    // What gen wrote lints clean with -Wall in its folder (not named gen/), with only the
    // waiver file it wrote beside the Verilog.
    let lint = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "qp_table.vlt", "qp_table.v"])
        .current_dir(dir.path())
        .output()
        .expect("verilator runs");
    assert!(
        lint.status.success() && lint.stdout.is_empty() && lint.stderr.is_empty(),
        "verilator --lint-only -Wall qp_table.vlt qp_table.v in {}: {:?}\n{}{}",
        dir.path().display(),
        lint.status,
        String::from_utf8_lossy(&lint.stdout),
        String::from_utf8_lossy(&lint.stderr)
    );

    // With no option at all: into the current directory.
    let dir = TempDir::new("gen-cwd");
    let out = qptable(&["gen"], dir.path());
    assert!(out.status.success(), "{}", describe(&["gen"], &out));
    assert_eq!(
        dir.entries(),
        ["qp_table.v", "qp_table.vlt", "qp_table_inst.vh"],
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
        ["my_qpt.v", "my_qpt.vlt", "my_qpt_inst.vh"],
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
fn v2_values_are_checked() {
    let line = assert_refused(&["--set", "mem_data_bits=100"], &["mem_data_bits", "100"]);
    assert!(
        line.contains("64, 128, 256 or 512"),
        "says what is allowed: {line}"
    );
    assert_refused(&["--set", "cache_lines=1000"], &["cache_lines", "1000"]);
}

#[test]
fn quarantine_cycles_above_32_bits_is_refused() {
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

/// Runs `qptable args` with a stdout whose reader has already gone (`qptable ... | head -0`).
fn qptable_closed_stdout(args: &[&str], cwd: &Path) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_qptable"))
        .args(args)
        .current_dir(cwd)
        .stdout(writer)
        .output()
        .expect("the qptable binary runs")
}

/// A closed stdout ends every printing command quietly: exit code 0, nothing on stderr (no
/// panic message), and the work that precedes the first line (here `gen`'s files) is done.
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let dir = TempDir::new("closed-stdout");
    let runs: &[&[&str]] = &[
        &["gen", "-o", "x"],
        &["stale", "--steps", "100"],
        &["stale", "--steps", "100", "--index-bits", "20"],
        &["plan", "--max-qps", "4096", "--live", "1000"],
        &["--help"],
        &["gen", "--help"],
        &["--version"],
    ];
    for args in runs {
        let out = qptable_closed_stdout(args, dir.path());
        let what = describe(args, &out);
        assert_eq!(out.status.code(), Some(0), "exit code\n{what}");
        assert!(out.stderr.is_empty(), "nothing on stderr\n{what}");
    }
    let x = dir.path().join("x");
    for f in ["qp_table.v", "qp_table.vlt", "qp_table_inst.vh"] {
        assert!(x.join(f).is_file(), "gen wrote {f} before printing");
    }
}

/// No command panics when stderr or stdout is full (`2>/dev/full`) or closed (`2>&1 | head
/// -1` once `head` is gone): every command, on its refusal path (the error message goes to
/// stderr) and on its help (stdout). A panic would exit 101; the codes SPEC'd by the CLI are 0
/// (done), 1 (refused or failed) and 2 (a command line clap refuses).
#[test]
fn no_command_panics_on_a_full_or_closed_stream() {
    let dir = TempDir::new("full-streams");
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    let closed = || {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        writer
    };
    let refused: &[(&[&str], i32)] = &[
        (&["gen", "--set", "index_bits=99"], 1),
        (&["gen", "--config", "/nonexistent.toml"], 1),
        (&["demo", "--config", "/nonexistent.toml"], 1),
        (&["stale", "--index-bits", "99"], 1),
        (&["plan", "--index-bits", "99"], 1),
        (&["cmd-latency", "--index-bits", "99"], 1),
        (&["bench", "--config", "/nonexistent.toml"], 1),
        (&["synth", "--config", "/nonexistent.toml"], 1),
        (&["wave", "--config", "/nonexistent.toml"], 1),
        (&["no-such-command"], 2),
    ];
    let commands = [
        "gen",
        "demo",
        "stale",
        "plan",
        "cmd-latency",
        "bench",
        "synth",
        "wave",
    ];
    let mut runs: Vec<(Vec<&str>, i32)> = refused.iter().map(|(a, c)| (a.to_vec(), *c)).collect();
    for c in commands {
        runs.push((vec![c, "--help"], 0));
    }
    for (args, code) in &runs {
        for (what, stdout, stderr) in [
            ("2>/dev/full", Stdio::null(), Stdio::from(full())),
            ("2>closed", Stdio::null(), Stdio::from(closed())),
            (
                ">/dev/full 2>/dev/full",
                Stdio::from(full()),
                Stdio::from(full()),
            ),
            (
                ">closed 2>closed",
                Stdio::from(closed()),
                Stdio::from(closed()),
            ),
        ] {
            let status = Command::new(env!("CARGO_BIN_EXE_qptable"))
                .args(args)
                .current_dir(dir.path())
                .stdout(stdout)
                .stderr(stderr)
                .status()
                .expect("the qptable binary runs");
            // Help on a full stdout cannot be written: refused (1, or clap's 2), not a panic.
            let allowed: &[i32] = if *code == 0 && what.starts_with('>') {
                &[0, 1, 2]
            } else {
                std::slice::from_ref(code)
            };
            assert!(
                status.code().is_some_and(|c| allowed.contains(&c)),
                "qptable {} {what}: {status} (allowed exit codes {allowed:?})",
                args.join(" ")
            );
        }
    }
    assert!(
        dir.entries().is_empty(),
        "nothing written: {:?}",
        dir.entries()
    );
}

/// Runs `qptable args` in an empty directory and checks the refusal: exit code `code`, one line
/// on stderr holding every string of `must_name`, no panic, nothing written. Returns the line.
fn assert_refused_with(code: i32, args: &[&str], must_name: &[&str]) -> String {
    let dir = TempDir::new("refused-cmd");
    let out = qptable(args, dir.path());
    let what = describe(args, &out);
    assert_eq!(out.status.code(), Some(code), "exit code\n{what}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "a panic\n{what}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.is_empty()).collect();
    if code == 1 {
        assert_eq!(lines.len(), 1, "exactly one line on stderr\n{what}");
    } else {
        // clap's usage errors: the error line, then the usage and a hint.
        assert!(lines[0].starts_with("error: "), "{what}");
    }
    for s in must_name {
        assert!(lines[0].contains(s), "stderr does not name {s:?}\n{what}");
    }
    assert!(dir.entries().is_empty(), "the refusal wrote files\n{what}");
    lines[0].to_string()
}

/// A bad value: exit code 1 (see [`assert_refused_with`]).
fn assert_bad_value(args: &[&str], must_name: &[&str]) -> String {
    assert_refused_with(1, args, must_name)
}

/// The default page sizes of `plan` adapt to the table (max_qps 16384 is 14 index bits, so
/// leaf_bits 14 would leave one directory entry); a page size given on the command line is
/// checked as given.
#[test]
fn plan_default_leaf_bits_adapt_and_given_ones_are_checked() {
    let dir = TempDir::new("plan-defaults");
    let args = ["plan", "--max-qps", "16384", "--live", "1000"];
    let out = qptable(&args, dir.path());
    let what = describe(&args, &out);
    assert!(out.status.success(), "{what}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The two_level rows of the first policy's table, by leaf_bits.
    let leaf_bits = |policy: &str| -> Vec<String> {
        stdout
            .split("reuse ")
            .find(|s| s.starts_with(policy))
            .unwrap_or_else(|| panic!("no table for reuse {policy}\n{what}"))
            .lines()
            .filter_map(|l| l.strip_prefix("| two_level | "))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(leaf_bits("cyclic"), ["8", "10", "12"], "{what}");
    assert_eq!(leaf_bits("lowest"), ["8", "10", "12"], "{what}");

    let line = assert_bad_value(
        &[
            "plan",
            "--max-qps",
            "16384",
            "--live",
            "1000",
            "--leaf-bits",
            "14",
        ],
        &["leaf_bits", "14"],
    );
    assert!(line.contains("1..=13"), "says what is allowed: {line}");

    // --live left out on a small table: the default fits the pool (max_qps - first_index)
    // instead of refusing a value the user never typed; a given one is checked as given.
    let args = ["plan", "--max-qps", "1024"];
    let out = qptable(&args, dir.path());
    let what = describe(&args, &out);
    assert!(out.status.success(), "{what}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(", 1022 live QPs,"),
        "{what}"
    );
    assert_bad_value(
        &["plan", "--max-qps", "1024", "--live", "5000"],
        &["live", "5000", "1022"],
    );
}

/// Every file of a directory tree with its content (directories as `<dir>`), sorted.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable directory") {
            let p = e.expect("entry").path();
            let name = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                v.push((name, b"<dir>".to_vec()));
                stack.push(p);
            } else {
                v.push((name, std::fs::read(&p).expect("readable file")));
            }
        }
    }
    v.sort();
    v
}

/// Runs `qptable args` in `dir` and checks a failure that changes nothing: exit code 1, one
/// line on stderr holding every string of `must_name`, no panic, `dir` as it was.
fn assert_fails_unchanged(dir: &Path, args: &[&str], must_name: &[&str]) -> String {
    let before = snapshot(dir);
    let out = qptable(args, dir);
    let what = describe(args, &out);
    assert_eq!(out.status.code(), Some(1), "exit code\n{what}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one line on stderr\n{what}");
    for s in must_name {
        assert!(lines[0].contains(s), "stderr does not name {s:?}\n{what}");
    }
    assert!(
        snapshot(dir) == before,
        "the failure changed {}\n{what}",
        dir.display()
    );
    lines[0].to_string()
}

/// `gen` writes `<top>.v` and `<top>_inst.vh` all or nothing: a template that cannot be
/// written (a directory in its place) leaves the old `<top>.v` as it was.
#[test]
fn a_failed_gen_changes_no_file() {
    let dir = TempDir::new("gen-atomic");
    std::fs::create_dir_all(dir.path().join("out/qp_table_inst.vh")).unwrap();
    std::fs::write(dir.path().join("out/qp_table.v"), "OLD\n").unwrap();
    let line = assert_fails_unchanged(
        dir.path(),
        &["gen", "-o", "out"],
        &["out/qp_table_inst.vh", "directory"],
    );
    assert!(line.starts_with("error: cannot write"), "{line}");
}

/// The failure comes at the last step, renaming the template into place (its name is one
/// byte too long for the file system: `<top>.v` fits, `<top>_inst.vh` does not): the
/// `<top>.v` already renamed is put back, the temporaries and the created directory go.
#[test]
fn a_gen_failing_at_the_rename_puts_the_old_file_back() {
    let dir = TempDir::new("gen-rollback");
    let top = "t".repeat(248);
    let set_top = format!("top={top}");
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join(format!("out/{top}.v")), "OLD\n").unwrap();
    assert_fails_unchanged(
        dir.path(),
        &["gen", "--set", &set_top, "-o", "out"],
        &["_inst.vh", "name too long"],
    );
    // Into a directory that does not exist yet: it is removed again.
    assert_fails_unchanged(
        dir.path(),
        &["gen", "--set", &set_top, "-o", "new/sub"],
        &["_inst.vh", "name too long"],
    );
}

/// `gen -o <a file>`: the line names the path and says why.
#[test]
fn gen_into_a_file_names_the_path() {
    let dir = TempDir::new("gen-into-file");
    std::fs::write(dir.path().join("f"), "a file\n").unwrap();
    assert_fails_unchanged(
        dir.path(),
        &["gen", "-o", "f"],
        &["f/qp_table.v", "f is not a directory"],
    );
    assert_fails_unchanged(
        dir.path(),
        &["gen", "-o", "f/sub"],
        &["f/sub", "Not a directory"],
    );
}

/// `cmd-latency` checks its values before building anything (these panicked: an empty sample
/// indexed, a capacity overflow).
#[test]
fn cmd_latency_bad_values_are_refused() {
    let cmd = ["cmd-latency", "--index-bits", "4", "--samples"];
    for samples in ["0", "18446744073709551615", "1000001"] {
        let args = [&cmd[..], &[samples]].concat();
        let line = assert_bad_value(&args, &["samples", samples]);
        assert!(line.contains("1..=1000000"), "says what is allowed: {line}");
    }
    // Every index_bits is checked before the first one is measured.
    let line = assert_bad_value(
        &["cmd-latency", "--index-bits", "4,30"],
        &["index_bits", "30"],
    );
    assert!(line.contains("4..=24"), "says what is allowed: {line}");
    // Negative and malformed: clap's usage error.
    assert_refused_with(2, &["cmd-latency", "--samples", "-1"], &["-1"]);
    assert_refused_with(2, &["cmd-latency", "--index-bits", "x"], &["x"]);
}

/// `stale` refuses values that overflow the run's 64-bit edge counter (a huge cmd_interval
/// wrapped and printed a bogus table) and names the parameter given, not one derived from it
/// (a huge max_delay blamed the grid's quarantine_cycles).
#[test]
fn stale_overflowing_values_are_refused() {
    let max = "18446744073709551615";
    let line = assert_bad_value(&["stale", "--cmd-interval", max], &["cmd_interval", max]);
    // With live = 1000 and steps = 100000 (the defaults), 402003 command slots.
    let fits = (u64::MAX - 10_000) / (4 * 100_000 + 2 * 1000 + 3);
    assert!(
        line.contains(&format!("1..={fits}")),
        "says what is allowed: {line}"
    );

    let line = assert_bad_value(&["stale", "--max-delay", max], &["max_delay", max]);
    assert!(
        !line.contains("quarantine_cycles ="),
        "blames max_delay: {line}"
    );
    assert!(
        line.contains("0..=4294967294"),
        "says what is allowed: {line}"
    );
    // One policy: no grid, the 64-bit limit.
    let args = ["stale", "--quarantine-cycles", "5", "--max-delay", max];
    assert_bad_value(&args, &["max_delay", max, "64 bits"]);
    assert_bad_value(&["stale", "--steps", max], &["steps", max]);
    assert_bad_value(&["stale", "--cmd-interval", "0"], &["cmd_interval", "0"]);
    // No step or no packet measured nothing and showed a rate of 0.00 %; too many packets
    // were held in memory until the process was killed.
    for steps in ["0", "100000001"] {
        let line = assert_bad_value(&["stale", "--steps", steps], &["steps", steps]);
        assert!(
            line.contains("1..=100000000"),
            "says what is allowed: {line}"
        );
    }
    let line = assert_bad_value(
        &["stale", "--packets-per-step", "0"],
        &["packets_per_step", "0"],
    );
    assert!(
        line.contains("1..=1000 with steps = 100000"),
        "says what is allowed: {line}"
    );
    let args = ["stale", "--steps", "50", "--packets-per-step", "4294967295"];
    let line = assert_bad_value(&args, &["packets_per_step", "4294967295"]);
    assert!(
        line.contains("1..=2000000 with steps = 50"),
        "says what is allowed: {line}"
    );
    // The largest max_delay of the grid runs.
    let dir = TempDir::new("stale-grid-max");
    let args = ["stale", "--max-delay", "4294967294", "--steps", "10"];
    let out = qptable(&args, dir.path());
    assert!(out.status.success(), "{}", describe(&args, &out));
}

/// Output paths that cannot be written are refused before any work (`wave` used to say
/// "File exists" with no path after a 4.5 MB trace; `demo --trace <dir>` "cannot open VCD
/// <dir>: " with no reason), with the path and the reason, and nothing written.
#[test]
fn unwritable_output_paths_are_refused_before_any_work() {
    let dir = TempDir::new("out-paths");
    std::fs::write(dir.path().join("f"), "a file\n").unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (&["wave", "-o", "f"], &["f", "not a directory"]),
        (&["wave", "-o", "f/svg"], &["f/svg", "f is not a directory"]),
        (&["wave", "--vcd", "d"], &["d", "is a directory"]),
        (
            &["wave", "--vcd", "f/x.vcd"],
            &["f/x.vcd", "f is not a directory"],
        ),
        (&["demo", "--trace", "d"], &["d", "is a directory"]),
        (
            &["demo", "--trace", "f/x.vcd"],
            &["f/x.vcd", "f is not a directory"],
        ),
        (&["demo", "-o", "f"], &["f", "not a directory"]),
    ];
    for (args, must_name) in cases {
        let start = std::time::Instant::now();
        assert_fails_unchanged(dir.path(), args, must_name);
        // Refused before the Verilator build (minutes) and the simulation.
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "qptable {} took {:?}",
            args.join(" "),
            start.elapsed()
        );
    }
}

/// `demo --lookups 0` reported a latency of 0/0/0: refused (a latency of no lookup is no
/// figure), like a number of lookups too large to queue.
#[test]
fn demo_lookups_out_of_range_are_refused() {
    for v in ["0", "10000001", "18446744073709551615"] {
        let line = assert_bad_value(&["demo", "--lookups", v], &["lookups", v]);
        assert!(
            line.contains("1..=10000000"),
            "says what is allowed: {line}"
        );
    }
}

/// A top named like one of its own ports was accepted, and its Verilog failed Verilator lint
/// (VARHIDDEN): refused, for every configuration (the library test
/// `no_port_of_the_top_level_is_a_top` covers every port of the generated top levels).
#[test]
fn a_top_named_like_a_port_is_refused() {
    for top in [
        "clk",
        "rst",
        "s_axil_awvalid",
        "m_axi_arid",
        "s_tx_req_valid",
        "m_rx_rsp_ready",
    ] {
        let set = format!("top={top}");
        let line = assert_refused(&["--set", &set], &["top", top]);
        assert!(
            line.contains("not a port of the top level") && line.contains("VARHIDDEN"),
            "says why: {line}"
        );
    }
    let line = assert_refused(
        &["--set", "ports=a,b", "--set", "top=s_b_req_qpn"],
        &["top", "s_b_req_qpn"],
    );
    assert!(
        line.contains("s_<port>_req_*"),
        "says what is refused: {line}"
    );
}

/// The help of the commands that build a Verilator model says where the model is cached.
#[test]
fn help_says_where_models_are_cached() {
    let dir = TempDir::new("help");
    for cmd in ["demo", "bench", "wave", "cmd-latency", "stale"] {
        let args = [cmd, "--help"];
        let out = qptable(&args, dir.path());
        let what = describe(&args, &out);
        assert!(out.status.success(), "{what}");
        let help = String::from_utf8_lossy(&out.stdout);
        for s in [
            "$QPTABLE_MODEL_CACHE",
            "$XDG_CACHE_HOME/qptable/models",
            "~/.cache/qptable/models",
        ] {
            assert!(help.contains(s), "{cmd} --help does not name {s}\n{what}");
        }
    }
}

/// `bench` and `synth` check their values before building anything (`--mem-latency 0` hit an
/// assertion of the memory model; `--lookups 0` measured nothing).
#[test]
fn bench_and_synth_bad_values_are_refused() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["bench", "--lookups", "0"],
            &["lookups", "0", "1..=10000000"],
        ),
        (
            &["bench", "--mem-latency", "0"],
            &["mem_latency", "0", "1..=10000"],
        ),
        (
            &["bench", "--mem-latency", "18446744073709551615"],
            &["mem_latency", "1..=10000"],
        ),
        (&["bench", "--speed-cycles", "0"], &["speed_cycles", "0"]),
        (
            &["bench", "--rust-hdl-cycles", "0"],
            &["rust_hdl_cycles", "0"],
        ),
        (&["synth", "--freq", "0"], &["freq", "0", "MHz"]),
        (&["synth", "--freq", "nan"], &["freq", "NaN"]),
        (&["synth", "--freq", "inf"], &["freq", "inf"]),
        (&["synth", "--freq=-5"], &["freq", "-5"]),
    ];
    for (args, must_name) in cases {
        assert_bad_value(args, must_name);
    }
    assert_refused_with(2, &["bench", "--lookups", "-1"], &["-1"]);
    assert_refused_with(2, &["synth", "--freq", "fast"], &["fast"]);
}

/// `bench --workload` and `--live`: a bad kind, exponent or port, a live set larger than the
/// ALLOC pool, or options that do not go together, refused before anything is built.
#[test]
fn bench_workload_and_live_bad_values_are_refused() {
    // Workload syntax: clap's usage errors, naming the option, the value and what is allowed.
    for (value, names) in [
        ("zipf:abc", &["abc", "not a number"][..]),
        ("zipf:10.5", &["10.5", "0..=10"][..]),
        ("zipf:-1", &["-1", "0..=10"][..]),
        ("zipf:NaN", &["NaN", "0..=10"][..]),
        ("pareto", &["pareto", "not a workload kind"][..]),
        ("tx=uniform,tx=garbage", &["tx", "twice"][..]),
        ("uniform,garbage", &["two default kinds"][..]),
        ("=garbage", &["no port name"][..]),
        ("", &["empty"][..]),
    ] {
        let arg = format!("--workload={value}");
        let line = assert_refused_with(2, &["bench", &arg], names);
        for s in ["--workload", "allowed", "uniform", "zipf:S", "garbage"] {
            assert!(line.contains(s), "{line:?} does not name {s:?}");
        }
    }
    // Against the configuration: a port it lacks, a live set beyond its pool.
    let small = repo_root().join("configs/small.toml");
    let small = small.to_str().unwrap();
    assert_bad_value(
        &["bench", "--config", small, "--workload", "tx=garbage"],
        &["tx=garbage", "no port `tx`", "rx"],
    );
    assert_bad_value(
        &[
            "bench",
            "--config",
            small,
            "--workload",
            "uniform",
            "--live",
            "49",
        ],
        &["live = 49", "0..=48"],
    );
    assert_bad_value(
        &[
            "bench",
            "--config",
            small,
            "--workload",
            "zipf:1",
            "--live",
            "0",
        ],
        &["zipf:1", "live = 0", "1..=48"],
    );
    // Options that do not go together.
    assert_bad_value(&["bench", "--live", "5"], &["live = 5", "--workload"]);
    assert_bad_value(&["bench", "--warmup", "5"], &["warmup = 5", "--workload"]);
    assert_bad_value(
        &["bench", "--workload", "garbage", "--warmup", "10000001"],
        &["warmup = 10000001", "0..=10000000"],
    );
    assert_bad_value(
        &["bench", "--markdown", "--workload", "garbage"],
        &["--markdown", "--workload"],
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

/// `stale --hardware` runs with its own defaults (the interval between commands left out):
/// the hardware's counts equal the model's, and no "schedule too dense" refusal.
#[test]
fn stale_hardware_runs_with_its_own_defaults() {
    let dir = TempDir::new("stale-hardware");
    let args = [
        "stale",
        "--hardware",
        "--reuse",
        "lowest",
        "--steps",
        "5000",
    ];
    let out = qptable(&args, dir.path());
    let what = describe(&args, &out);
    assert!(out.status.success(), "{what}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("the hardware's counts equal the model's"),
        "{what}"
    );
}

/// A `gen` whose write fails half-way (here a file-size limit, as a full disk would) leaves
/// nothing behind: no temporary, no half-written file, no directory it created.
#[test]
fn a_gen_failing_in_the_middle_of_a_write_leaves_nothing() {
    let dir = TempDir::new("gen-file-too-large");
    // SIGXFSZ ignored, so that the write fails with EFBIG instead of killing the process.
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 100; exec {} gen -o out",
            env!("CARGO_BIN_EXE_qptable")
        ))
        .current_dir(dir.path())
        .output()
        .expect("bash runs");
    let what = describe(&["gen", "-o", "out", "(ulimit -f 100)"], &out);
    assert_eq!(out.status.code(), Some(1), "{what}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("File too large"),
        "{what}"
    );
    assert!(
        dir.entries().is_empty(),
        "left: {:?}\n{what}",
        dir.entries()
    );
}
