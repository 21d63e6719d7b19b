//! `qptable gen`: writes `<top>.v` and its instantiation template, and lists the on-chip
//! memory.

use super::ConfigArgs;
use anyhow::{Context, Result};
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
    let path = args.out.join(format!("{}.v", cfg.top));
    generate::write_atomically(&path, &verilog)
        .with_context(|| format!("cannot write {}", path.display()))?;
    println!("wrote {}", path.display());
    let path = args.out.join(generate::instantiation_template_name(&cfg));
    generate::write_atomically(&path, &generate::instantiation_template(&cfg)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    println!("wrote {}", path.display());
    let memory = generate::on_chip_memory(&cfg);
    let mut total = 0;
    for (name, words, bits) in &memory {
        println!("  {name}: {words} x {bits} bits = {} bits", words * bits);
        total += words * bits;
    }
    println!(
        "  on-chip memory in all: {total} bits ({:.1} KiB)",
        total as f64 / 8192.0
    );
    Ok(())
}
