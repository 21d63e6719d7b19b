//! Commands through the control port on Icarus Verilog (an event-driven simulator), checked
//! against the reference model.
//!
//! The emitted Verilog once froze Icarus on the first successful ALLOC_AT: the command
//! engine and the free map each assigned a port twice in one `always @(*)` evaluation, and
//! the two blocks woke each other forever at one time step (Verilator, which sorts
//! statements, never showed it). This bench is the plain-Verilog reproduction of that report:
//! reset with `rst` high from time 0, wait for INIT_DONE, then a sequence of commands that
//! takes every path of the engine (ALLOC_AT of a FREE index first), each result read back
//! from CMD_RESULT and compared with [`Model`]. `vvp` runs under `timeout`: a hang fails the
//! test instead of blocking it.
//!
//! The rule that removes the class of bug is checked statically on every configuration by
//! `verilog_quality::no_port_is_assigned_twice_in_one_evaluation`.

use qptable::config::Config;
use qptable::generate::generate_verilog;
use qptable::hw::qp_table::QpTable;
use qptable::hw::EngineParams;
use qptable::model::{CmdResult, Command, Model};
use std::fmt::Write;
use std::path::Path;
use std::process::Command as Process;

/// Seconds `vvp` may run; the whole sequence takes well under one.
const TIMEOUT_S: &str = "60";

/// The commands: ALLOC_AT of a FREE index (the reported hang), then every other path.
fn commands(model: &Model) -> Vec<Command> {
    let max = model.config().max_qps();
    let at = model.make_qpn(max - 1, 0);
    vec![
        Command::AllocAt(at),
        Command::Alloc,
        Command::AllocAt(at), // BAD_STATE: not FREE
        Command::Publish(at),
        Command::Free(at),
        Command::AllocAt(at), // quarantined (if on) or FREE again
        Command::Alloc,
        Command::Raw(0, 0),                     // BAD_CMD
        Command::Free(model.make_qpn(1, 0)),    // BAD_STATE: never allocated
        Command::AllocAt(model.make_qpn(0, 5)), // below first_index, with a generation
        Command::DirFlush,
    ]
}

/// A Verilog testbench for `cfg`'s top: every input tied to 0 but the clock, the reset and
/// the AXI4-Lite master's; `cmds` written to CMD one after the other, CMD_RESULT printed
/// after each write response.
fn testbench(cfg: &Config, cmds: &[u32]) -> String {
    let top = QpTable::new(EngineParams::new(cfg), &cfg.ports);
    let driven = [
        "clk",
        "rst",
        "s_axil_awaddr",
        "s_axil_awvalid",
        "s_axil_wdata",
        "s_axil_wstrb",
        "s_axil_wvalid",
        "s_axil_bready",
        "s_axil_araddr",
        "s_axil_arvalid",
        "s_axil_rready",
    ];
    let mut v = String::from("`timescale 1ns/1ps\nmodule tb;\n");
    for p in top.ports() {
        let kind = if p.input { "reg " } else { "wire" };
        let init = if p.input && !driven.contains(&p.name.as_str()) {
            " = 0"
        } else {
            ""
        };
        let _ = writeln!(v, "  {kind} [{}:0] {}{init};", p.width - 1, p.name);
    }
    let conns: Vec<String> = top
        .ports()
        .iter()
        .map(|p| format!(".{0}({0})", p.name))
        .collect();
    let _ = writeln!(v, "  {} dut({});", cfg.top, conns.join(", "));
    v.push_str(
        r#"  initial begin
    clk = 1; rst = 1;
    s_axil_awaddr = 0; s_axil_awvalid = 0; s_axil_wdata = 0; s_axil_wstrb = 4'hf;
    s_axil_wvalid = 0; s_axil_bready = 1; s_axil_araddr = 0; s_axil_arvalid = 0;
    s_axil_rready = 1;
  end
  always #5 clk = ~clk;
  // Inputs change at the falling edge; ready and valid are sampled 1 ns before the rising
  // edge, which is what that edge's handshake sees.
  reg aw_hs, w_hs, done_hs;
  reg [31:0] data;
  task wr(input [11:0] a, input [31:0] d); begin
    @(negedge clk); s_axil_awaddr = a; s_axil_wdata = d; s_axil_awvalid = 1; s_axil_wvalid = 1;
    while (s_axil_awvalid || s_axil_wvalid) begin
      #4 aw_hs = s_axil_awvalid && s_axil_awready; w_hs = s_axil_wvalid && s_axil_wready;
      @(negedge clk);
      if (aw_hs) s_axil_awvalid = 0;
      if (w_hs) s_axil_wvalid = 0;
    end
    done_hs = 0;
    while (!done_hs) begin #4 done_hs = s_axil_bvalid; @(negedge clk); end
  end endtask
  task rd(input [11:0] a); begin
    @(negedge clk); s_axil_araddr = a; s_axil_arvalid = 1;
    done_hs = 0;
    while (!done_hs) begin #4 done_hs = s_axil_arready; @(negedge clk); end
    s_axil_arvalid = 0;
    done_hs = 0;
    while (!done_hs) begin #4 done_hs = s_axil_rvalid; data = s_axil_rdata; @(negedge clk); end
  end endtask
  initial begin
    repeat (4) @(negedge clk); rst = 0;
    data = 0;
    while (!data[0]) rd(12'h014);
"#,
    );
    for c in cmds {
        let _ = writeln!(
            v,
            "    wr(12'h030, 32'h{c:08x}); rd(12'h034); $display(\"RESULT %08x\", data);"
        );
    }
    v.push_str("    $display(\"DONE\"); $finish;\n  end\nendmodule\n");
    v
}

/// Runs the sequence on Icarus for `cfg` and compares each CMD_RESULT with the model's.
fn run(label: &str, cfg: &Config) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("icarus_commands")
        .join(label);
    std::fs::create_dir_all(&dir).unwrap();
    let mut model = Model::new(cfg);
    let cmds = commands(&model);
    let expected: Vec<u32> = cmds
        .iter()
        .map(|c| model.command(*c).0.to_register())
        .collect();
    let words: Vec<u32> = cmds.iter().map(Command::encode).collect();
    std::fs::write(dir.join("dut.v"), generate_verilog(cfg).unwrap()).unwrap();
    std::fs::write(dir.join("tb.v"), testbench(cfg, &words)).unwrap();
    let out = Process::new("iverilog")
        .args(["-g2012", "-o", "sim", "-s", "tb", "tb.v", "dut.v"])
        .current_dir(&dir)
        .output()
        .expect("cannot run iverilog (scripts/setup installs it)");
    assert!(
        out.status.success(),
        "{label}: iverilog failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Process::new("timeout")
        .args([TIMEOUT_S, "vvp", "-n", "sim"])
        .current_dir(&dir)
        .output()
        .expect("cannot run vvp");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l == "DONE"),
        "{label}: the simulation did not finish within {TIMEOUT_S} s (exit {:?}): a zero-delay \
         loop in the emitted Verilog? Output:\n{stdout}",
        out.status.code()
    );
    let got: Vec<u32> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("RESULT "))
        .map(|h| u32::from_str_radix(h, 16).unwrap())
        .collect();
    assert_eq!(got.len(), cmds.len(), "{label}: results missing:\n{stdout}");
    for ((c, g), e) in cmds.iter().zip(&got).zip(&expected) {
        assert_eq!(
            g,
            e,
            "{label}: {c:?}: Icarus CMD_RESULT {:?}, model {:?}",
            CmdResult::from_register(*g),
            CmdResult::from_register(*e)
        );
    }
    println!(
        "{label}: {} commands on Icarus, every result as the model's",
        cmds.len()
    );
}

fn config(sets: &[&str]) -> Config {
    let mut cfg = Config::default();
    for s in sets {
        cfg.set(s).unwrap();
    }
    cfg.validate().unwrap();
    cfg
}

#[test]
fn flat_commands_on_icarus() {
    run("flat", &config(&["index_bits=6"]));
}

#[test]
fn flat_lowest_reuse_with_quarantine_on_icarus() {
    run(
        "quarantine",
        &config(&[
            "index_bits=6",
            "reuse=lowest",
            "quarantine_cycles=100000",
            "quarantine_depth=2",
            "ports=rx",
        ]),
    );
}

#[test]
fn two_level_on_chip_commands_on_icarus() {
    run(
        "two_level_on_chip",
        &config(&["index_bits=6", "mode=two_level", "leaf_bits=3"]),
    );
}

#[test]
fn two_level_in_memory_commands_on_icarus() {
    run(
        "two_level_in_memory",
        &config(&[
            "index_bits=8",
            "mode=two_level",
            "leaf_bits=4",
            "directory=in_memory",
        ]),
    );
}
