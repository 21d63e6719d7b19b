//! One module per command: its arguments (clap) and `run`, which calls the library and prints.

pub mod bench;
pub mod cmd_latency;
pub mod demo;
pub mod gen;
pub mod plan;
pub mod stale;
pub mod synth;
pub mod wave;

use anyhow::{bail, Result};
use clap::Args;
use qptable::config::Config;
use std::path::{Path, PathBuf};

/// Refuses an output file that cannot be created, before any work: a directory in its place,
/// or a file where one of its directories should be. (Other reasons, such as permissions,
/// are reported by the write itself, with the path and the operating system's reason.)
pub fn check_output_file(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("cannot write {}: it is a directory", path.display());
    }
    check_parents(path)
}

/// Refuses an output directory that is a file, or under a file, before any work.
pub fn check_output_dir(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("cannot write into {}: it is not a directory", dir.display());
    }
    check_parents(dir)
}

/// The nearest existing ancestor of `path` must be a directory.
fn check_parents(path: &Path) -> Result<()> {
    let existing = path
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| a.exists());
    match existing {
        Some(a) if !a.is_dir() => bail!(
            "cannot write {}: {} is not a directory",
            path.display(),
            a.display()
        ),
        _ => Ok(()),
    }
}

/// The help's note on the model cache, for the commands that build a Verilator model.
pub const MODEL_CACHE_HELP: &str = "\
The Verilator model is built once per design and kept in a cache directory, the first of:
  $QPTABLE_MODEL_CACHE
  $CARGO_TARGET_DIR/qptable-models
  <workspace>/target/qptable-models    (under cargo: cargo run, cargo test)
  $XDG_CACHE_HOME/qptable/models, else ~/.cache/qptable/models
Deleting the directory is safe: models are rebuilt when needed.";

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
