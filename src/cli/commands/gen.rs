//! `qptable gen`: writes `<top>.v` and its instantiation template, and lists the on-chip
//! memory.

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
}

pub fn run(args: &Args) -> Result<()> {
    let cfg = args.config.load()?;
    let verilog = generate::generate_verilog(&cfg)?;
    let template = generate::instantiation_template(&cfg)?;
    let v_path = args.out.join(format!("{}.v", cfg.top));
    let t_path = args.out.join(generate::instantiation_template_name(&cfg));
    // Both files or neither: a stale template beside a new `<top>.v` would not match it.
    generate::write_all_or_nothing(&[(&v_path, &verilog), (&t_path, &template)])?;
    outln!("wrote {}", v_path.display())?;
    outln!("wrote {}", t_path.display())?;
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
