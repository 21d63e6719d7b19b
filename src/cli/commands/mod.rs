//! One module per command: its arguments (clap) and `run`, which calls the library and prints.

pub mod bench;
pub mod cmd_latency;
pub mod demo;
pub mod gen;
pub mod plan;
pub mod stale;
pub mod synth;
pub mod wave;

use clap::Args;
use qptable::config::Config;
use std::path::PathBuf;

/// `--config` and `--set` of the commands that work on one configuration.
#[derive(Args, Clone)]
pub struct ConfigArgs {
    /// Configuration file (TOML); parameters not given take their defaults.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Set one parameter, `name=value` (after the file; may be repeated).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

impl ConfigArgs {
    /// The configuration: the file (or the defaults), then each `--set`, validated.
    pub fn load(&self) -> anyhow::Result<Config> {
        qptable::config_files::load(self.config.as_deref(), &self.set)
    }
}
