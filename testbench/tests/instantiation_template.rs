//! The instantiation templates of `gen/` (`<top>_inst.vh`, written by `qptable gen` beside
//! `<top>.v`; `verilog_quality`'s `gen_is_fresh` checks they are current) work where an
//! integrator puts them: `include`d into a module that has its own `clk` and `rst` (ports
//! of that module), with the engine's Verilog, the wrapper passes `iverilog -g2005 -Wall`
//! and `verilator --lint-only` (with the engine's shipped waivers) without a message. So
//! every port is connected to a wire of its width (a width mismatch or a missing port makes
//! Icarus warn), the wires do not clash with each other or with the wrapper's clock and reset,
//! and every port of the engine is connected once.

use qptable::generate::{instantiation_template_name, lint_waivers_name};
use qptable_testbench::tools::{run_tool, shipped_configs, top_ports};
use std::process::Command;

#[test]
fn templates_compile_in_a_wrapper_with_its_own_clock_and_reset() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("instantiation_template");
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = vec![];
    for s in shipped_configs() {
        let top = &s.config.top;
        let template = s
            .verilog
            .with_file_name(instantiation_template_name(&s.config));
        let waivers = s.verilog.with_file_name(lint_waivers_name(&s.config));
        for f in [&template, &waivers] {
            assert!(
                f.is_file(),
                "{} is missing: run `cargo run --release -- gen --config configs/{}.toml -o gen`",
                f.display(),
                s.name
            );
        }
        // The integrator's module: clk and rst are its own ports, used by its own logic too.
        let tb = dir.join(format!("tb_{top}.v"));
        std::fs::write(
            &tb,
            format!(
                "module tb_{top} (\n    input  wire clk,\n    input  wire rst,\n    output reg  \
                 alive\n);\n    always @(posedge clk) alive <= !rst;\n`include \"{}\"\nendmodule\n",
                template.display()
            ),
        )
        .unwrap();
        let silent = |run: &qptable_testbench::tools::ToolRun| {
            run.success() && run.stdout.trim().is_empty() && run.stderr.trim().is_empty()
        };
        let icarus = run_tool(
            Command::new("iverilog")
                .args(["-g2005", "-Wall", "-o", "/dev/null", "-s"])
                .arg(format!("tb_{top}"))
                .arg(&tb)
                .arg(&s.verilog),
        );
        if !silent(&icarus) {
            failures.push(format!("{}: iverilog\n{}", s.name, icarus.report()));
        }
        // Without -Wall: the wrapper leaves the engine's inputs undriven on purpose.
        let lint = run_tool(
            Command::new("verilator")
                .args(["--lint-only", "--top-module"])
                .arg(format!("tb_{top}"))
                .arg(&waivers)
                .arg(&tb)
                .arg(&s.verilog),
        );
        if !silent(&lint) {
            failures.push(format!(
                "{}: verilator --lint-only\n{}",
                s.name,
                lint.report()
            ));
        }
        // Every port of the top appears once as `.port (port)`.
        let text = std::fs::read_to_string(&template).unwrap();
        let verilog = std::fs::read_to_string(&s.verilog).unwrap();
        let (ports, _) = top_ports(&verilog, top).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        for port in ports {
            let conn = text
                .lines()
                .filter(|l| l.trim_start().starts_with(&format!(".{port} ")))
                .count();
            if conn != 1 {
                failures.push(format!(
                    "{}: port {port} is connected {conn} times in the template",
                    s.name
                ));
            }
        }
        // The template declares no clk or rst of its own.
        if text
            .lines()
            .any(|l| l.starts_with("wire ") && (l.contains(" clk;") || l.contains(" rst;")))
        {
            failures.push(format!("{}: the template declares clk or rst", s.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
