//! `qptable plan`: host memory of a flat vs a two-level table and on-chip bits, for a QP
//! population placed by the engine's own allocator (`qptable::plan`).

use anyhow::{bail, ensure, Result};
use qptable::config::Reuse;
use qptable::plan::{format, plan, PlanParams};

/// `--live` when not given, if the pool holds that many.
pub const DEFAULT_LIVE: u32 = 262_144;

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Indexes of the table.
    #[arg(long, default_value_t = 1 << 24)]
    pub max_qps: u32,
    /// Bits of the index (default: the fewest that hold max_qps, at least 4).
    #[arg(long)]
    pub index_bits: Option<u32>,
    /// QP context stride in bytes.
    #[arg(long, default_value_t = 256)]
    pub entry_bytes: u32,
    /// QPs alive at the end [default: 262144, or the whole ALLOC pool (max_qps -
    /// first_index) when that is smaller].
    #[arg(long)]
    pub live: Option<u32>,
    /// Rounds of (FREE a random live QP, ALLOC) after the initial fill.
    #[arg(long, default_value_t = 0)]
    pub churn: u64,
    /// Two-level page sizes to compare (index bits per second-level page, each below
    /// index_bits) [default: those of 8,10,12,14 below index_bits].
    #[arg(long, value_delimiter = ',')]
    pub leaf_bits: Vec<u32>,
    /// Reuse policies to place the QPs with: cyclic, lowest (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = ["cyclic".to_string(), "lowest".to_string()])]
    pub reuse: Vec<String>,
    #[arg(long, default_value_t = 2)]
    pub first_index: u32,
    /// Lookup ports (each holds a copy of the state RAM).
    #[arg(long, default_value_t = 2)]
    pub ports: u32,
    #[arg(long, default_value_t = 0)]
    pub quarantine_cycles: u64,
    #[arg(long, default_value_t = 64)]
    pub quarantine_depth: u32,
    /// Edges between two commands (the quarantine's clock).
    #[arg(long, default_value_t = 64)]
    pub cmd_interval: u64,
    /// Seed of the churn's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl Args {
    pub fn params(&self) -> Result<PlanParams> {
        let mut reuse = Vec::new();
        for r in &self.reuse {
            reuse.push(match r.as_str() {
                "cyclic" => Reuse::Cyclic,
                "lowest" => Reuse::Lowest,
                other => bail!("reuse = {other:?} is not allowed: allowed cyclic, lowest"),
            });
        }
        ensure!(
            (1..=4).contains(&self.ports),
            "ports = {} is out of range: allowed 1..=4",
            self.ports
        );
        let mut params = PlanParams {
            max_qps: self.max_qps,
            index_bits: self.index_bits,
            entry_bytes: self.entry_bytes,
            // Only a default is fitted to the pool; a given value is checked as given.
            live: self
                .live
                .unwrap_or_else(|| DEFAULT_LIVE.min(self.max_qps.saturating_sub(self.first_index))),
            churn: self.churn,
            leaf_bits: self.leaf_bits.clone(),
            reuse,
            first_index: self.first_index,
            ports: self.ports,
            quarantine_cycles: self.quarantine_cycles,
            quarantine_depth: self.quarantine_depth,
            cmd_interval: self.cmd_interval,
            seed: self.seed,
        };
        // The default page sizes adapt to the table; the ones given are checked as given.
        if params.leaf_bits.is_empty() {
            params.leaf_bits = PlanParams::default_leaf_bits(params.index_bits());
        }
        Ok(params)
    }
}

pub fn run(args: &Args) -> Result<()> {
    let report = plan(&args.params()?)?;
    out!("{}", format(&report))?;
    Ok(())
}
