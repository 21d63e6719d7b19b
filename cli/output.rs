//! Standard output of every command, in one place.
//!
//! A closed stdout (`qptable stale | head -1`) must end the command quietly, not panic as
//! `print!` does. The Rust runtime ignores SIGPIPE, so a write to a closed pipe fails with
//! `BrokenPipe`; [`write`] turns that into the [`StdoutClosed`] error, which the command
//! returns with `?` like any other (its temporary files are removed on the way out) and which
//! `main` turns into exit code 0 with nothing on stderr. This is chosen over resetting
//! SIGPIPE to its default action, which would kill the process wherever it happens to be
//! (between writing and renaming a file, say), needs `unsafe` and `libc`, and reports the
//! death as a failure (exit 141 in a shell) where `head` meant no failure.
//!
//! Standard error carries progress and the final error message. A failure to write there
//! (`2>/dev/full`, a closed pipe) has nowhere to be reported, so [`note`] drops it instead of
//! panicking as `eprint!` does; the command goes on, and its exit code still tells.
//!
//! The crate denies `print!`/`println!`/`eprint!`/`eprintln!` (`clippy::print_stdout`,
//! `clippy::print_stderr`), so every command goes through [`out!`](crate::out),
//! [`outln!`](crate::outln), [`note!`](crate::note) and [`noteln!`](crate::noteln).

use std::fmt;
use std::io::{ErrorKind, Write};

/// Stdout was closed by its reader: the command ends quietly with exit code 0.
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Writes `args` to stdout and flushes it.
pub fn write(args: fmt::Arguments) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        Err(e) => Err(anyhow::anyhow!("cannot write to stdout: {e}")),
    }
}

/// Writes `args` to stderr; a failure is dropped (see the module documentation).
pub fn note(args: fmt::Arguments) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(args).and_then(|()| stderr.flush());
}

/// Whether `e` (or an error it wraps) is [`StdoutClosed`].
pub fn is_stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<StdoutClosed>())
}

/// `print!` that returns `anyhow::Result<()>` (see the module documentation).
macro_rules! out {
    ($($arg:tt)*) => { crate::output::write(format_args!($($arg)*)) };
}

/// `println!` that returns `anyhow::Result<()>` (see the module documentation).
macro_rules! outln {
    () => { crate::output::write(format_args!("\n")) };
    ($($arg:tt)*) => { crate::output::write(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` that never panics (see the module documentation).
macro_rules! note {
    ($($arg:tt)*) => { crate::output::note(format_args!($($arg)*)) };
}

/// `eprintln!` that never panics (see the module documentation).
macro_rules! noteln {
    ($($arg:tt)*) => { crate::output::note(format_args!("{}\n", format_args!($($arg)*))) };
}
