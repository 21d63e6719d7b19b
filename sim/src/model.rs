//! Building (or finding in the cache) and loading a Verilator model library.

use anyhow::{anyhow, bail, Context, Result};
use libloading::Library;
use sha2::{Digest, Sha256};
use std::ffi::{c_char, c_void, CStr};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::shim::{self, HdrPort, SHIM_ABI};
use crate::sim::{Port, Sim};

/// Version of the harness; part of every cache key, so changing the shim or the build
/// recipe rebuilds every model.
pub const HARNESS_VERSION: &str = "qptable-sim-1";

/// Environment variable: directory of the model cache (overrides the default
/// `<target dir>/qptable-models`).
pub const CACHE_ENV: &str = "QPTABLE_MODEL_CACHE";

/// Environment variable: when set (to anything but `0`), a failed build keeps its work
/// directory for inspection.
pub const KEEP_FAILED_ENV: &str = "QPTABLE_KEEP_FAILED";

const LIB_FILE: &str = "model.so";
const BENCH_FILE: &str = "cpp_main";
const RUNTIME_LIB: &str = "libverilated_rt.a";
const RUNTIME_SRCS: [&str; 3] = ["verilated", "verilated_threads", "verilated_vcd_c"];

/// How a model is built. Every field except [`BuildOptions::jobs`] and
/// [`BuildOptions::cache_dir`] is part of the cache key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Build with `--trace` so that [`Sim::trace`] can write a VCD. Default false (tracing
    /// support slows the model down even when no trace is open).
    pub trace: bool,
    /// Name of the clock input, driven by [`Sim::step`]. Default `clk`.
    pub clock: String,
    /// Name of the reset input the C++ reference main (`Model::cpp_main_benchmark`) holds
    /// high for its first 8 cycles, if the model has it. Default `rst`.
    pub reset: String,
    /// Optimisation flag for the C++ of the model and of the Verilator runtime. Default `-O2`.
    pub opt: String,
    /// Optimisation flag for the model's construction/initialisation code (Verilator's
    /// `OPT_SLOW`, run once). Default `-O1`.
    pub opt_slow: String,
    /// Add a third evaluation per cycle, with the clock falling, at the end of each step. Off
    /// by default: the falling edge is then evaluated together with the next cycle's inputs,
    /// which is equivalent for designs that use only rising edges and saves a third of the
    /// evaluations. Turn it on for designs with `negedge` logic.
    pub falling_edge_eval: bool,
    /// Extra arguments for `verilator` (e.g. `-Gparam=value`, `-Wno-...`).
    pub verilator_args: Vec<String>,
    /// Parallel compile jobs. Default: the number of CPUs. Not part of the key.
    pub jobs: Option<usize>,
    /// Cache directory for this build (overrides the environment and the default). Not part
    /// of the key.
    pub cache_dir: Option<PathBuf>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            trace: false,
            clock: "clk".into(),
            reset: "rst".into(),
            opt: "-O2".into(),
            opt_slow: "-O1".into(),
            falling_edge_eval: false,
            verilator_args: Vec::new(),
            jobs: None,
            cache_dir: None,
        }
    }
}

impl BuildOptions {
    /// Default options with tracing on or off.
    pub fn traced(trace: bool) -> Self {
        BuildOptions {
            trace,
            ..Default::default()
        }
    }

    fn key(&self) -> String {
        format!(
            "trace={}\nclock={}\nreset={}\nopt={}\nopt_slow={}\nfalling={}\nargs={:?}\n",
            self.trace,
            self.clock,
            self.reset,
            self.opt,
            self.opt_slow,
            self.falling_edge_eval,
            self.verilator_args
        )
    }

    fn job_count(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            })
            .max(1)
    }
}

pub(crate) type StepFn = unsafe extern "C" fn(*mut c_void, *const u64, *mut u64) -> i32;

#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub create: unsafe extern "C" fn() -> *mut c_void,
    pub destroy: unsafe extern "C" fn(*mut c_void),
    pub step: StepFn,
    pub error: unsafe extern "C" fn(*mut c_void) -> *const c_char,
    pub finished: unsafe extern "C" fn(*mut c_void) -> i32,
    pub trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    pub trace_close: unsafe extern "C" fn(*mut c_void),
    pub trace_flush: unsafe extern "C" fn(*mut c_void),
}

struct Inner {
    id: u32,
    top: String,
    dir: PathBuf,
    clock: String,
    reset: String,
    ports: Vec<Port>,
    n_in: usize,
    n_out: usize,
    traced: bool,
    cached: bool,
    build_time: Duration,
    opt: String,
    fns: Fns,
    // Declared last: dropped after everything that may point into it.
    _lib: Library,
}

/// A built and loaded Verilator model. Cheap to clone (shared); `Send + Sync`.
/// Create instances with [`Model::instantiate`].
#[derive(Clone)]
pub struct Model(Arc<Inner>);

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("top", &self.0.top)
            .field("dir", &self.0.dir)
            .field("cached", &self.0.cached)
            .finish()
    }
}

static NEXT_MODEL_ID: AtomicU32 = AtomicU32::new(1);
static NONCE: AtomicU64 = AtomicU64::new(0);

fn verilator_version() -> Result<String> {
    static V: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    V.get_or_init(|| {
        let out = Command::new("verilator")
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run `verilator --version` (is Verilator installed? `apt-get install verilator`): {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`verilator --version` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn workspace_root_from(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .map(Path::to_path_buf)
}

/// The directory models are cached in when [`BuildOptions::cache_dir`] is not set:
/// `$QPTABLE_MODEL_CACHE`, else `$CARGO_TARGET_DIR/qptable-models`, else
/// `<workspace>/target/qptable-models` (the workspace is the nearest ancestor of
/// `$CARGO_MANIFEST_DIR` or of the current directory that holds a `Cargo.lock`), else
/// `<temp dir>/qptable-models`.
pub fn default_cache_dir() -> PathBuf {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = env(CACHE_ENV) {
        return PathBuf::from(d);
    }
    let cwd = std::env::current_dir().ok();
    let ws = env("CARGO_MANIFEST_DIR")
        .and_then(|d| workspace_root_from(Path::new(&d)))
        .or_else(|| cwd.as_deref().and_then(workspace_root_from))
        .or_else(|| workspace_root_from(Path::new(env!("CARGO_MANIFEST_DIR"))));
    if let Some(t) = env("CARGO_TARGET_DIR") {
        let t = PathBuf::from(t);
        if t.is_absolute() {
            return t.join("qptable-models");
        }
        let base = ws.clone().or(cwd).unwrap_or_default();
        return base.join(t).join("qptable-models");
    }
    match ws {
        Some(w) => w.join("target").join("qptable-models"),
        None => std::env::temp_dir().join("qptable-models"),
    }
}

fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Runs a command, appending its output to `log`; on failure the error holds the tail of
/// the output.
fn run(cmd: &mut Command, what: &str, log: &mut String) -> Result<()> {
    let shown = format!("{cmd:?}");
    log.push_str(&format!("$ {shown}\n"));
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {what}: {shown}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    log.push_str(&text);
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n$ {shown}\n{}",
            out.status,
            tail(&text, 60)
        );
    }
    Ok(())
}

fn unique_tmp(root: &Path, stem: &str) -> PathBuf {
    let n = NONCE.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    root.join(format!(".tmp-{stem}-{}-{n}-{t}", std::process::id()))
}

/// Moves a finished `tmp` into place at `dst` atomically. If another process won the race,
/// its result is kept and `tmp` removed.
fn publish(tmp: &Path, dst: &Path, ready: &Path) -> Result<()> {
    if dst.exists() && !ready.exists() {
        // A damaged entry (e.g. its library deleted by hand): replace it.
        let _ = fs::remove_dir_all(dst);
    }
    match fs::rename(tmp, dst) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_dir_all(tmp);
            if ready.exists() {
                Ok(())
            } else {
                Err(e).with_context(|| format!("cannot move build into {}", dst.display()))
            }
        }
    }
}

/// Exclusive lock on `<root>/<name>.lock`, held while the returned file lives: builds of the
/// same thing in several threads or processes run one at a time (the others then find the
/// result in the cache).
fn lock(root: &Path, name: &str) -> Result<fs::File> {
    let path = root.join(format!(".{name}.lock"));
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening lock file {}", path.display()))?;
    f.lock()
        .with_context(|| format!("locking {}", path.display()))?;
    Ok(f)
}

fn keep_failed() -> bool {
    std::env::var_os(KEEP_FAILED_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

fn make_cmd(dir: &Path, top: &str, jobs: usize, opts_opt: &str, opt_slow: &str) -> Command {
    let mut c = Command::new("make");
    c.current_dir(dir)
        .arg("-s")
        .arg("-f")
        .arg(format!("V{top}.mk"))
        .arg(format!("-j{jobs}"))
        .arg(format!("OPT_FAST={opts_opt}"))
        .arg(format!("OPT_GLOBAL={opts_opt}"))
        .arg(format!("OPT_SLOW={opt_slow}"));
    c
}

/// Builds (once per cache) the Verilator runtime archive, using a model's makefiles for the
/// compiler flags. Returns the archive path.
fn ensure_runtime(root: &Path, obj: &Path, top: &str, opts: &BuildOptions) -> Result<PathBuf> {
    let key = {
        let mut h = Sha256::new();
        h.update(format!(
            "{HARNESS_VERSION}\nruntime\n{}\n{}\n",
            verilator_version()?,
            opts.opt
        ));
        hex(&h.finalize())[..16].to_string()
    };
    let dir = root.join(format!("runtime-{key}"));
    let lib = dir.join(RUNTIME_LIB);
    if lib.exists() {
        return Ok(lib);
    }
    let _lock = lock(root, &format!("runtime-{key}"))?;
    if lib.exists() {
        return Ok(lib);
    }
    let tmp = unique_tmp(root, &format!("runtime-{key}"));
    let mut log = String::new();
    let res = (|| -> Result<()> {
        fs::create_dir_all(&tmp)?;
        for f in [format!("V{top}.mk"), format!("V{top}_classes.mk")] {
            fs::copy(obj.join(&f), tmp.join(&f))?;
        }
        let objs: Vec<String> = RUNTIME_SRCS.iter().map(|s| format!("{s}.o")).collect();
        run(
            make_cmd(&tmp, top, opts.job_count(), &opts.opt, &opts.opt_slow).args(&objs),
            "compiling the Verilator runtime",
            &mut log,
        )?;
        run(
            Command::new("ar")
                .current_dir(&tmp)
                .arg("rcs")
                .arg(RUNTIME_LIB)
                .args(&objs),
            "archiving the Verilator runtime",
            &mut log,
        )?;
        for o in &objs {
            let _ = fs::remove_file(tmp.join(o));
        }
        fs::write(tmp.join("build.log"), &log)?;
        Ok(())
    })();
    if let Err(e) = res {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    publish(&tmp, &dir, &lib)?;
    Ok(lib)
}

impl Model {
    /// Builds the model of module `top` from Verilog source `verilog`, or loads it from the
    /// cache when the same (source, top, options, harness and Verilator versions) was built
    /// before. See the crate documentation for the cache.
    pub fn build(verilog: &str, top: &str, opts: &BuildOptions) -> Result<Model> {
        if !is_identifier(top) {
            bail!("top module name `{top}` is not a plain Verilog identifier");
        }
        if !is_identifier(&opts.clock) {
            bail!("clock name `{}` is not a plain identifier", opts.clock);
        }
        let vver = verilator_version()?;
        let key = {
            let mut h = Sha256::new();
            h.update(format!(
                "{HARNESS_VERSION}\n{vver}\ntop={top}\n{}\n",
                opts.key()
            ));
            h.update(verilog.as_bytes());
            hex(&h.finalize())[..20].to_string()
        };
        let root = opts.cache_dir.clone().unwrap_or_else(default_cache_dir);
        fs::create_dir_all(&root)
            .with_context(|| format!("cannot create model cache {}", root.display()))?;
        let dir = root.join(format!("{top}-{key}"));
        let lib = dir.join(LIB_FILE);
        if lib.exists() {
            return Model::load(&dir, top, true, Duration::ZERO, opts);
        }
        let start = Instant::now();
        let _lock = lock(&root, &format!("{top}-{key}"))?;
        if lib.exists() {
            return Model::load(&dir, top, true, Duration::ZERO, opts);
        }
        let tmp = unique_tmp(&root, &format!("{top}-{key}"));
        let mut log = String::new();
        let res = Self::build_in(&tmp, &root, verilog, top, opts, &mut log);
        let _ = fs::write(tmp.join("build.log"), &log);
        if let Err(e) = res {
            if keep_failed() {
                return Err(e.context(format!(
                    "building model `{top}` failed (work dir kept: {})",
                    tmp.display()
                )));
            }
            let _ = fs::remove_dir_all(&tmp);
            return Err(e.context(format!(
                "building model `{top}` failed (set {KEEP_FAILED_ENV}=1 to keep the work dir)"
            )));
        }
        publish(&tmp, &dir, &lib)?;
        Model::load(&dir, top, false, start.elapsed(), opts)
    }

    fn build_in(
        tmp: &Path,
        root: &Path,
        verilog: &str,
        top: &str,
        opts: &BuildOptions,
        log: &mut String,
    ) -> Result<()> {
        let obj = tmp.join("obj");
        fs::create_dir_all(&obj)?;
        let src = format!("{top}.v");
        fs::write(tmp.join(&src), verilog)?;

        let mut v = Command::new("verilator");
        v.current_dir(tmp)
            .args([
                "--cc",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "--no-timing",
            ])
            .args(["-O3", "--x-assign", "fast", "--x-initial", "fast"])
            .args([
                "--top-module",
                top,
                "--prefix",
                &format!("V{top}"),
                "-Mdir",
                "obj",
            ])
            .args(["-CFLAGS", "-fPIC"])
            .args(["-CFLAGS", "-DVL_USER_FINISH -DVL_USER_STOP -DVL_USER_FATAL"]);
        if opts.trace {
            v.arg("--trace");
        }
        v.args(&opts.verilator_args).arg(&src);
        run(&mut v, "verilator", log)?;

        let hdr_path = obj.join(format!("V{top}.h"));
        let hdr = fs::read_to_string(&hdr_path)
            .with_context(|| format!("reading {}", hdr_path.display()))?;
        let ports = shim::parse_header(&hdr, &opts.clock)?;
        let shim_src = shim::gen_shim(
            top,
            &ports,
            opts.trace,
            opts.falling_edge_eval,
            HARNESS_VERSION,
        );
        fs::write(obj.join("qpt_shim.cpp"), shim_src)?;

        // The runtime (cached separately, shared by every model) builds in parallel.
        let (runtime, model_res) = std::thread::scope(|s| {
            let rt = s.spawn(|| ensure_runtime(root, &obj, top, opts));
            let mut mlog = String::new();
            let r = run(
                make_cmd(&obj, top, opts.job_count(), &opts.opt, &opts.opt_slow)
                    .arg(format!("V{top}__ALL.a"))
                    .arg("qpt_shim.o"),
                "compiling the model",
                &mut mlog,
            );
            (rt.join(), (r, mlog))
        });
        log.push_str(&model_res.1);
        model_res.0?;
        let runtime = runtime.map_err(|_| anyhow!("runtime build panicked"))??;

        run(
            Command::new("g++")
                .current_dir(tmp)
                .args(["-shared", "-o", LIB_FILE, "obj/qpt_shim.o"])
                .arg(format!("obj/V{top}__ALL.a"))
                .arg(&runtime)
                .args(["-Wl,--exclude-libs,ALL", "-Wl,-Bsymbolic"])
                .args(["-pthread", "-latomic"]),
            "linking the model library",
            log,
        )?;
        // Keep sources, headers and archives (for the C++ reference main), drop objects.
        for e in fs::read_dir(&obj)?.flatten() {
            if e.path().extension().is_some_and(|x| x == "o" || x == "d") {
                let _ = fs::remove_file(e.path());
            }
        }
        Ok(())
    }

    fn load(
        dir: &Path,
        top: &str,
        cached: bool,
        build_time: Duration,
        opts: &BuildOptions,
    ) -> Result<Model> {
        let path = dir.join(LIB_FILE);
        // SAFETY: the library is one this crate generated; its initialisers only set up the
        // Verilator runtime.
        let lib = unsafe { Library::new(&path) }
            .with_context(|| format!("loading {}", path.display()))?;
        // SAFETY: the symbol types match the generated shim (checked by qpt_abi).
        let fns = unsafe {
            let abi: libloading::Symbol<unsafe extern "C" fn() -> u32> = lib.get(b"qpt_abi\0")?;
            if abi() != SHIM_ABI {
                bail!(
                    "{} has shim ABI {}, expected {SHIM_ABI}",
                    path.display(),
                    abi()
                );
            }
            Fns {
                create: *lib.get(b"qpt_create\0")?,
                destroy: *lib.get(b"qpt_destroy\0")?,
                step: *lib.get(b"qpt_step\0")?,
                error: *lib.get(b"qpt_error\0")?,
                finished: *lib.get(b"qpt_finished\0")?,
                trace_open: *lib.get(b"qpt_trace_open\0")?,
                trace_close: *lib.get(b"qpt_trace_close\0")?,
                trace_flush: *lib.get(b"qpt_trace_flush\0")?,
            }
        };
        // SAFETY: as above; both return static data.
        let (table, traced) = unsafe {
            let ports: libloading::Symbol<unsafe extern "C" fn() -> *const c_char> =
                lib.get(b"qpt_ports\0")?;
            let traced: libloading::Symbol<unsafe extern "C" fn() -> i32> =
                lib.get(b"qpt_traced\0")?;
            (
                CStr::from_ptr(ports()).to_string_lossy().into_owned(),
                traced() != 0,
            )
        };
        let (clock, ports) = shim::parse_port_table(&table)?;
        let size = |d| {
            ports
                .iter()
                .filter(|p| p.dir == d)
                .map(|p| (p.offset + p.words()) as usize)
                .max()
                .unwrap_or(0)
        };
        let (n_in, n_out) = (size(crate::Dir::Input), size(crate::Dir::Output));
        Ok(Model(Arc::new(Inner {
            id: NEXT_MODEL_ID.fetch_add(1, Ordering::Relaxed),
            top: top.to_string(),
            dir: dir.to_path_buf(),
            clock,
            reset: opts.reset.clone(),
            ports,
            n_in,
            n_out,
            traced,
            cached,
            build_time,
            opt: opts.opt.clone(),
            fns,
            _lib: lib,
        })))
    }

    /// A new instance, with every input 0 and at cycle 0. Instances are independent (each
    /// has its own `VerilatedContext`) and may run in different threads.
    ///
    /// Panics if the C++ constructor fails (out of memory); see [`Model::try_instantiate`].
    pub fn instantiate(&self) -> Sim {
        self.try_instantiate().expect("instantiating the model")
    }

    /// [`Model::instantiate`] returning an error instead of panicking.
    pub fn try_instantiate(&self) -> Result<Sim> {
        Sim::new(self.clone())
    }

    /// Module name of the top level.
    pub fn top(&self) -> &str {
        &self.0.top
    }

    /// Name of the clock input driven by [`Sim::step`].
    pub fn clock(&self) -> &str {
        &self.0.clock
    }

    /// Every port except the clock.
    pub fn ports(&self) -> &[Port] {
        &self.0.ports
    }

    /// Whether the model was built with tracing support.
    pub fn traced(&self) -> bool {
        self.0.traced
    }

    /// Whether this `build` found the model in the cache.
    pub fn was_cached(&self) -> bool {
        self.0.cached
    }

    /// Time the build took (zero for a cache hit).
    pub fn build_time(&self) -> Duration {
        self.0.build_time
    }

    /// The cache directory of this model (Verilog source, generated C++, build log,
    /// library).
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    #[inline]
    pub(crate) fn id(&self) -> u32 {
        self.0.id
    }

    #[inline]
    pub(crate) fn fns(&self) -> &Fns {
        &self.0.fns
    }

    pub(crate) fn array_sizes(&self) -> (usize, usize) {
        (self.0.n_in, self.0.n_out)
    }

    /// Speed reference: builds (once; cached beside the library) a plain C++ Verilator
    /// `main()` for this model and runs it for `cycles` cycles with fixed `inputs` (names and
    /// values; the others are 0). If the model has the reset input named in
    /// [`BuildOptions::reset`], it is held at 1 for 8 cycles first, then set to its value in
    /// `inputs` (default 0). Each cycle is two evaluations (clock low, clock high). Returns
    /// the measured cycles per second.
    pub fn cpp_main_benchmark(&self, cycles: u64, inputs: &[(&str, u64)]) -> Result<f64> {
        let exe = self.ensure_bench()?;
        let mut cmd = Command::new(&exe);
        cmd.arg(cycles.to_string());
        for (n, v) in inputs {
            cmd.arg(format!("{n}={v}"));
        }
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running {}", exe.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            bail!(
                "{} failed ({}): {}{}",
                exe.display(),
                out.status,
                text,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        text.lines()
            .find_map(|l| l.strip_prefix("cycles_per_second="))
            .ok_or_else(|| anyhow!("unexpected output of {}: {text}", exe.display()))?
            .trim()
            .parse::<f64>()
            .context("parsing cycles per second")
    }

    fn ensure_bench(&self) -> Result<PathBuf> {
        let exe = self.0.dir.join(BENCH_FILE);
        if exe.exists() {
            return Ok(exe);
        }
        let top = &self.0.top;
        let obj = self.0.dir.join("obj");
        let hdr = fs::read_to_string(obj.join(format!("V{top}.h")))?;
        let ports: Vec<HdrPort> = shim::parse_header(&hdr, &self.0.clock)?;
        let opts = BuildOptions {
            opt: self.0.opt.clone(),
            cache_dir: self.0.dir.parent().map(Path::to_path_buf),
            ..Default::default()
        };
        let root = self.0.dir.parent().context("model dir has no parent")?;
        let runtime = ensure_runtime(root, &obj, top, &opts)?;
        let n = NONCE.fetch_add(1, Ordering::Relaxed);
        let src = self
            .0
            .dir
            .join(format!("cpp_main.{}.{n}.cpp", std::process::id()));
        let tmp_exe = self
            .0
            .dir
            .join(format!(".{BENCH_FILE}.{}.{n}", std::process::id()));
        fs::write(&src, shim::gen_bench_main(top, &ports, &self.0.reset))?;
        let inc = verilator_include()?;
        let mut log = String::new();
        let r = run(
            Command::new("g++")
                .arg(&self.0.opt)
                .arg("-I")
                .arg(&obj)
                .arg("-I")
                .arg(&inc)
                .arg("-I")
                .arg(inc.join("vltstd"))
                .args(["-DVM_COVERAGE=0", "-DVM_SC=0", "-faligned-new"])
                .arg("-DVM_TRACE=0")
                .arg(&src)
                .arg(obj.join(format!("V{top}__ALL.a")))
                .arg(&runtime)
                .args(["-pthread", "-latomic", "-o"])
                .arg(&tmp_exe),
            "compiling the C++ reference main",
            &mut log,
        );
        let _ = fs::remove_file(&src);
        r?;
        fs::rename(&tmp_exe, &exe)?;
        Ok(exe)
    }
}

fn verilator_include() -> Result<PathBuf> {
    let out = Command::new("verilator")
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output()
        .context("running verilator --getenv VERILATOR_ROOT")?;
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if root.is_empty() {
        bail!("verilator --getenv VERILATOR_ROOT printed nothing");
    }
    Ok(PathBuf::from(root).join("include"))
}
