//! `qptable gen`: writes `<top>.v`, its lint waivers `<top>.vlt` and its instantiation
//! template `<top>_inst.vh`, and lists the on-chip
//! memory; with `--formal`, also the formal harness `<top>_formal.sv` (`src/formal/`).

use super::ConfigArgs;
use anyhow::Result;
use qptable::generate;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    config: ConfigArgs,
    /// Output directory.
    #[arg(short = 'o', long = "out", default_value = ".")]
    out: PathBuf,
    /// Also write the formal harness `<top>_formal.sv` (SymbiYosys: `scripts/formal`).
    #[arg(long)]
    formal: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let cfg = args.config.load()?;
    let verilog = generate::generate_verilog(&cfg)?;
    let template = generate::instantiation_template(&cfg)?;
    let v_path = args.out.join(format!("{}.v", cfg.top));
    let t_path = args.out.join(generate::instantiation_template_name(&cfg));
    let waivers = qptable::tidy::lint_waivers(&cfg.top);
    let w_path = args.out.join(generate::lint_waivers_name(&cfg));
    let harness = if args.formal {
        Some((
            args.out.join(qptable::formal::formal_wrapper_name(&cfg)),
            qptable::formal::formal_wrapper(&cfg)?,
        ))
    } else {
        None
    };
    // All the files or none: a stale template, waiver file or harness beside a new
    // `<top>.v` would not match it.
    let mut files: Vec<(&std::path::Path, &str)> = vec![
        (&v_path, &verilog),
        (&w_path, &waivers),
        (&t_path, &template),
    ];
    if let Some((path, text)) = &harness {
        files.push((path, text));
    }
    generate::write_all_or_nothing(&files)?;
    for (path, _) in &files {
        outln!("wrote {}", path.display())?;
    }
    let memory = generate::on_chip_memory(&cfg);
    let mut total = 0;
    for (name, words, bits) in &memory {
        outln!("  {name}: {words} x {bits} bits = {} bits", words * bits)?;
        total += words * bits;
    }
    outln!(
        "  on-chip memory in all: {total} bits ({:.1} KiB)",
        total as f64 / 8192.0
    )?;
    Ok(())
}
