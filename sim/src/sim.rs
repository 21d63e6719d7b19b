//! A running instance of a [`Model`]: packed input/output arrays and one FFI call per cycle.

use anyhow::{anyhow, bail, Context, Result};
use std::ffi::{c_void, CStr, CString};
use std::path::Path;

use crate::model::Model;

/// Direction of a port of the top module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Driven by the testbench.
    Input,
    /// Driven by the design.
    Output,
}

/// A port of the top module (the clock excluded: [`Sim::step`] drives it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Name as in the Verilator header (the Verilog name for plain identifiers).
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Width in bits.
    pub width: u32,
    /// Offset of the first `u64` word in the packed array of its direction.
    pub(crate) offset: u32,
}

impl Port {
    /// Number of `u64` words the port occupies (1 up to 64 bits).
    pub fn words(&self) -> u32 {
        self.width.div_ceil(64)
    }
}

fn last_word_mask(width: u32) -> u64 {
    match width % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// Handle of an input port: a `Copy` index into the packed input array. Valid for every
/// [`Sim`] of the [`Model`] it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct In {
    off: u32,
    words: u32,
    width: u32,
    model: u32,
    mask: u64,
}

impl In {
    /// Width in bits.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// All-ones value of the port's width (low 64 bits for a wide port).
    pub fn mask(&self) -> u64 {
        if self.words == 1 {
            self.mask
        } else {
            u64::MAX
        }
    }
}

/// Handle of an output port: a `Copy` index into the packed output array. Valid for every
/// [`Sim`] of the [`Model`] it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out {
    off: u32,
    words: u32,
    width: u32,
    model: u32,
}

impl Out {
    /// Width in bits.
    pub fn width(&self) -> u32 {
        self.width
    }
}

/// One instance of a model. See the crate documentation for the step semantics.
///
/// Inputs keep their value across cycles until set again; all inputs are 0 at creation.
pub struct Sim {
    model: Model,
    handle: *mut c_void,
    step_fn: crate::model::StepFn,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    cycle: u64,
    tracing: bool,
}

// SAFETY: the C++ instance behind `handle` has its own VerilatedContext and is only reached
// through this `Sim` (exclusively via `&mut self` for anything that runs the model), so moving
// it to another thread is sound. The library stays loaded while `model` is alive.
unsafe impl Send for Sim {}

impl Sim {
    pub(crate) fn new(model: Model) -> Result<Sim> {
        let f = model.fns();
        // SAFETY: qpt_create has no preconditions; it returns null on failure.
        let handle = unsafe { (f.create)() };
        if handle.is_null() {
            bail!("creating an instance of model `{}` failed", model.top());
        }
        let step_fn = f.step;
        let (ni, no) = model.array_sizes();
        Ok(Sim {
            model,
            handle,
            step_fn,
            inputs: vec![0; ni],
            outputs: vec![0; no],
            cycle: 0,
            tracing: false,
        })
    }

    /// The model this instance belongs to.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Every port of the top module except the clock, in header order.
    pub fn ports(&self) -> &[Port] {
        self.model.ports()
    }

    fn port(&self, name: &str, dir: Dir) -> Option<&Port> {
        self.model
            .ports()
            .iter()
            .find(|p| p.name == name && p.dir == dir)
    }

    /// Whether the top module has an input `name` (the clock does not count).
    pub fn has_input(&self, name: &str) -> bool {
        self.port(name, Dir::Input).is_some()
    }

    /// Whether the top module has an output `name`.
    pub fn has_output(&self, name: &str) -> bool {
        self.port(name, Dir::Output).is_some()
    }

    /// Handle of input `name`. Errors if there is no such input (the clock is not an input
    /// here: [`Sim::step`] drives it).
    pub fn input(&self, name: &str) -> Result<In> {
        let p = self.port(name, Dir::Input).ok_or_else(|| {
            if name == self.model.clock() {
                anyhow!("`{name}` is the clock, driven by step()")
            } else {
                anyhow!(
                    "model `{}` has no input `{name}`{}",
                    self.model.top(),
                    self.suggest(name, Dir::Input)
                )
            }
        })?;
        Ok(In {
            off: p.offset,
            words: p.words(),
            width: p.width,
            model: self.model.id(),
            mask: last_word_mask(p.width),
        })
    }

    /// Handle of output `name`. Errors if there is no such output.
    pub fn output(&self, name: &str) -> Result<Out> {
        let p = self.port(name, Dir::Output).ok_or_else(|| {
            anyhow!(
                "model `{}` has no output `{name}`{}",
                self.model.top(),
                self.suggest(name, Dir::Output)
            )
        })?;
        Ok(Out {
            off: p.offset,
            words: p.words(),
            width: p.width,
            model: self.model.id(),
        })
    }

    fn suggest(&self, name: &str, dir: Dir) -> String {
        let other = match dir {
            Dir::Input => Dir::Output,
            Dir::Output => Dir::Input,
        };
        if self.port(name, other).is_some() {
            return format!(" (it is an {other:?})").to_lowercase();
        }
        let close: Vec<&str> = self
            .ports()
            .iter()
            .filter(|p| p.dir == dir)
            .filter(|p| {
                let stem = name.rsplit('_').next().unwrap_or(name);
                p.name.ends_with(stem) || p.name.starts_with(name)
            })
            .map(|p| p.name.as_str())
            .take(8)
            .collect();
        if close.is_empty() {
            String::new()
        } else {
            format!("; similar: {}", close.join(", "))
        }
    }

    /// Drives input `i` with `v` from the next [`Sim::step`] on (until set again).
    ///
    /// `v` is masked to the port's width; a value that does not fit is a testbench bug and
    /// trips a `debug_assert!`. On a port wider than 64 bits, `v` sets the low 64 bits and
    /// clears the rest (see [`Sim::set_wide`]).
    #[inline]
    pub fn set(&mut self, i: In, v: u64) {
        debug_assert_eq!(i.model, self.model.id(), "input handle of another model");
        if i.words == 1 {
            debug_assert!(
                v & !i.mask == 0,
                "value {v:#x} does not fit the {}-bit input",
                i.width
            );
            self.inputs[i.off as usize] = v & i.mask;
        } else {
            let o = i.off as usize;
            self.inputs[o] = v;
            self.inputs[o + 1..o + i.words as usize].fill(0);
        }
    }

    /// Drives a 1-bit (or any) input with 0 or 1.
    #[inline]
    pub fn set_bool(&mut self, i: In, v: bool) {
        self.set(i, v as u64)
    }

    /// Drives any input from little-endian `u64` words (missing words are 0, extra words
    /// must be 0; the top word is masked to the width).
    pub fn set_wide(&mut self, i: In, words: &[u64]) {
        debug_assert_eq!(i.model, self.model.id(), "input handle of another model");
        let n = i.words as usize;
        debug_assert!(
            words.iter().skip(n).all(|w| *w == 0),
            "value does not fit the {}-bit input",
            i.width
        );
        let o = i.off as usize;
        for k in 0..n {
            self.inputs[o + k] = words.get(k).copied().unwrap_or(0);
        }
        self.inputs[o + n - 1] &= i.mask;
    }

    /// The value currently driven on input `i` (low 64 bits).
    #[inline]
    pub fn driven(&self, i: In) -> u64 {
        self.inputs[i.off as usize]
    }

    /// Value of output `o` sampled at the rising edge of the last [`Sim::step`] (low 64 bits
    /// for a wide port). 0 before the first step.
    #[inline]
    pub fn get(&self, o: Out) -> u64 {
        debug_assert_eq!(o.model, self.model.id(), "output handle of another model");
        self.outputs[o.off as usize]
    }

    /// `get(o) != 0`.
    #[inline]
    pub fn is_high(&self, o: Out) -> bool {
        self.get(o) != 0
    }

    /// All words (little-endian) of output `o` as sampled at the last rising edge.
    pub fn get_wide(&self, o: Out) -> &[u64] {
        debug_assert_eq!(o.model, self.model.id(), "output handle of another model");
        &self.outputs[o.off as usize..(o.off + o.words) as usize]
    }

    /// Convenience for directed tests: `set(input(name)?, v)` with a width check.
    pub fn set_named(&mut self, name: &str, v: u64) -> Result<()> {
        let i = self.input(name)?;
        if i.words == 1 && v & !i.mask != 0 {
            bail!(
                "value {v:#x} does not fit the {}-bit input `{name}`",
                i.width
            );
        }
        self.set(i, v);
        Ok(())
    }

    /// Convenience for directed tests: `get(output(name)?)`.
    pub fn get_named(&self, name: &str) -> Result<u64> {
        Ok(self.get(self.output(name)?))
    }

    /// Number of completed cycles (rising edges). Starts at 0; [`Sim::step`] adds 1, so after
    /// a step `cycle()` is the number of the edge just simulated (the first edge is 1).
    #[inline]
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Simulates one clock cycle with one FFI call: applies the inputs (clock low),
    /// evaluates, samples every output (what [`Sim::get`] returns afterwards), then evaluates
    /// the rising edge. Panics if the model hit `$stop` or a Verilator fatal error (see
    /// [`Sim::try_step`]).
    #[inline]
    pub fn step(&mut self) {
        if let Err(e) = self.try_step() {
            panic!("{e:#}");
        }
    }

    /// [`Sim::step`] that returns an error instead of panicking when the model hits `$stop`
    /// or a Verilator fatal error. The instance must not be stepped after such an error.
    #[inline]
    pub fn try_step(&mut self) -> Result<()> {
        // SAFETY: the arrays have the sizes the shim was generated for (checked at load), the
        // handle is live until Drop.
        let rc =
            unsafe { (self.step_fn)(self.handle, self.inputs.as_ptr(), self.outputs.as_mut_ptr()) };
        self.cycle += 1;
        if rc != 0 {
            return Err(self.error());
        }
        Ok(())
    }

    #[cold]
    fn error(&self) -> anyhow::Error {
        // SAFETY: live handle; the shim returns a NUL-terminated string it owns.
        let msg = unsafe { CStr::from_ptr((self.model.fns().error)(self.handle)) };
        anyhow!(
            "simulation of `{}` failed at cycle {}: {}",
            self.model.top(),
            self.cycle,
            msg.to_string_lossy()
        )
    }

    /// `n` cycles of [`Sim::step`].
    pub fn step_n(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Whether the design executed `$finish` (the simulation goes on regardless).
    pub fn finished(&self) -> bool {
        // SAFETY: live handle.
        unsafe { (self.model.fns().finished)(self.handle) != 0 }
    }

    /// Starts writing a VCD of every signal to `path` (replacing a trace already open). The
    /// clock period is 10 time units: inputs change at 10k, the rising edge is at 10k+5.
    /// Errors if the model was not built with [`crate::BuildOptions::trace`].
    pub fn trace(&mut self, path: impl AsRef<Path>) -> Result<()> {
        if !self.model.traced() {
            bail!(
                "model `{}` was built without tracing (BuildOptions::trace)",
                self.model.top()
            );
        }
        let path = path.as_ref();
        if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d)
                .with_context(|| format!("cannot create directory {}", d.display()))?;
        }
        // Verilator's VCD writer says nothing about why it cannot open a file: create it
        // here first, for the operating system's reason (the writer then truncates it).
        std::fs::File::create(path)
            .with_context(|| format!("cannot open VCD {}", path.display()))?;
        let c = CString::new(path.to_string_lossy().as_bytes())?;
        // SAFETY: live handle, NUL-terminated path.
        let rc = unsafe { (self.model.fns().trace_open)(self.handle, c.as_ptr()) };
        match rc {
            0 => {
                self.tracing = true;
                Ok(())
            }
            -1 => bail!("model was built without tracing"),
            _ => Err(anyhow!("cannot open VCD {}: {}", path.display(), {
                // SAFETY: live handle.
                unsafe { CStr::from_ptr((self.model.fns().error)(self.handle)) }
                    .to_string_lossy()
                    .into_owned()
            })),
        }
    }

    /// Flushes the VCD written since [`Sim::trace`].
    pub fn trace_flush(&mut self) {
        if self.tracing {
            // SAFETY: live handle.
            unsafe { (self.model.fns().trace_flush)(self.handle) }
        }
    }

    /// Closes the VCD (also done on drop).
    pub fn trace_close(&mut self) {
        if self.tracing {
            // SAFETY: live handle.
            unsafe { (self.model.fns().trace_close)(self.handle) };
            self.tracing = false;
        }
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        // SAFETY: the handle came from qpt_create and is destroyed once; it runs final(),
        // closes the trace and frees the context.
        unsafe { (self.model.fns().destroy)(self.handle) }
    }
}

impl std::fmt::Debug for Sim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sim")
            .field("top", &self.model.top())
            .field("cycle", &self.cycle)
            .finish()
    }
}
