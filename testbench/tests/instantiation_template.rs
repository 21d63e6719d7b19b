//! The instantiation templates of `gen/` (`<top>_inst.vh`, written by `qptable gen` beside
//! `<top>.v`; `verilog_quality`'s `gen_is_fresh` checks they are current) compile: a module
//! that `include`s the template, with the engine's Verilog, passes `iverilog -g2005 -Wall`
//! without a message. So every port is connected to a wire of its width (a width mismatch
//! or a missing port makes Icarus warn) and the wires do not clash.

use qptable::generate::instantiation_template_name;
use qptable_testbench::tools::{run_tool, shipped_configs};
use std::process::Command;

#[test]
fn templates_compile_with_the_engine() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("instantiation_template");
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = vec![];
    for s in shipped_configs() {
        let template = s
            .verilog
            .with_file_name(instantiation_template_name(&s.config));
        assert!(
            template.is_file(),
            "{} is missing: run `cargo run --release -- gen --config configs/{}.toml -o gen`",
            template.display(),
            s.name
        );
        let tb = dir.join(format!("tb_{}.v", s.config.top));
        std::fs::write(
            &tb,
            format!(
                "module tb_{top};\n`include \"{}\"\nendmodule\n",
                template.display(),
                top = s.config.top
            ),
        )
        .unwrap();
        let run = run_tool(
            Command::new("iverilog")
                .args(["-g2005", "-Wall", "-o", "/dev/null", "-s"])
                .arg(format!("tb_{}", s.config.top))
                .arg(&tb)
                .arg(&s.verilog),
        );
        if !run.success() || !run.stdout.trim().is_empty() || !run.stderr.trim().is_empty() {
            failures.push(format!("{}:\n{}", s.name, run.report()));
        }
        // Every port of the top appears once as `.port (port)`.
        let text = std::fs::read_to_string(&template).unwrap();
        let verilog = std::fs::read_to_string(&s.verilog).unwrap();
        let header = &verilog[verilog.find(&format!("module {}(", s.config.top)).unwrap()..];
        let header = &header[header.find('(').unwrap() + 1..header.find(");").unwrap()];
        for port in header.split(',').map(str::trim) {
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
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
