//! Port discovery (from the Verilator-generated header) and generation of the C++ glue: the
//! `extern "C"` shim linked into the model library, and the plain C++ `main()` used as the
//! speed reference.

use anyhow::{bail, Context, Result};
use std::fmt::Write as _;

use crate::sim::{Dir, Port};

/// ABI version of the generated shim; checked when a library is loaded.
pub(crate) const SHIM_ABI: u32 = 1;

/// One port as declared in `V<top>.h`, with its place in the packed arrays.
#[derive(Clone, Debug)]
pub(crate) struct HdrPort {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
    /// Number of 32-bit words of a `VlWide` port, 0 for ports of at most 64 bits.
    pub words32: u32,
    /// Offset in the packed `u64` array of its direction (unused for the clock).
    pub offset: u32,
    pub is_clock: bool,
}

impl HdrPort {
    pub fn words64(&self) -> u32 {
        self.width.div_ceil(64)
    }
}

/// Parses the port declarations (`VL_IN8(&clk,0,0);`, `VL_OUTW(&x,127,0,4);`, ...) of a
/// Verilator model header, and lays the ports out in the packed input and output arrays (the
/// clock excluded: `step` drives it).
pub(crate) fn parse_header(text: &str, clock: &str) -> Result<Vec<HdrPort>> {
    let mut ports = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("VL_") else {
            continue;
        };
        let Some(open) = rest.find('(') else { continue };
        let mac = &rest[..open];
        let dir = if mac.starts_with("INOUT") {
            bail!("inout ports are not supported: `{line}`");
        } else if mac.starts_with("IN") {
            Dir::Input
        } else if mac.starts_with("OUT") {
            Dir::Output
        } else {
            continue;
        };
        if !matches!(
            mac,
            "IN8" | "IN16" | "IN" | "IN64" | "INW" | "OUT8" | "OUT16" | "OUT" | "OUT64" | "OUTW"
        ) {
            continue;
        }
        let args = rest[open + 1..]
            .trim_end_matches(';')
            .trim_end_matches(')')
            .split(',')
            .map(str::trim)
            .collect::<Vec<_>>();
        if args.len() < 3 {
            bail!("cannot parse port declaration `{line}`");
        }
        let name = args[0].trim_start_matches('&').to_string();
        let msb: i64 = args[1]
            .parse()
            .with_context(|| format!("port msb in `{line}`"))?;
        let lsb: i64 = args[2]
            .parse()
            .with_context(|| format!("port lsb in `{line}`"))?;
        let width = (msb - lsb).unsigned_abs() as u32 + 1;
        let words32 = if mac.ends_with('W') {
            let w: u32 = args
                .get(3)
                .context("missing word count")?
                .parse()
                .with_context(|| format!("word count in `{line}`"))?;
            if w != width.div_ceil(32) {
                bail!("unexpected word count in `{line}`");
            }
            w
        } else {
            if width > 64 {
                bail!("port wider than 64 bits without VlWide: `{line}`");
            }
            0
        };
        ports.push(HdrPort {
            is_clock: name == clock && dir == Dir::Input,
            name,
            dir,
            width,
            words32,
            offset: 0,
        });
    }
    if ports.is_empty() {
        bail!("no port declarations found in the model header");
    }
    let Some(clk) = ports.iter().find(|p| p.is_clock) else {
        bail!("the top module has no input named `{clock}` (the clock driven by step())");
    };
    if clk.width != 1 {
        bail!(
            "the clock `{clock}` must be 1 bit wide, it is {} bits",
            clk.width
        );
    }
    let (mut ni, mut no) = (0u32, 0u32);
    for p in &mut ports {
        if p.is_clock {
            continue;
        }
        let n = p.words64();
        match p.dir {
            Dir::Input => {
                p.offset = ni;
                ni += n;
            }
            Dir::Output => {
                p.offset = no;
                no += n;
            }
        }
    }
    Ok(ports)
}

/// The self-description exported by the shim (`qpt_ports()`): one line per port,
/// `I|O|C name width offset`.
pub(crate) fn port_table(ports: &[HdrPort]) -> String {
    let mut s = String::new();
    for p in ports {
        let d = if p.is_clock {
            'C'
        } else if p.dir == Dir::Input {
            'I'
        } else {
            'O'
        };
        let _ = writeln!(s, "{d} {} {} {}", p.name, p.width, p.offset);
    }
    s
}

/// Parses the table written by [`port_table`]. Returns (clock name, ports without the clock).
pub(crate) fn parse_port_table(s: &str) -> Result<(String, Vec<Port>)> {
    let mut clock = None;
    let mut ports = Vec::new();
    for line in s.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 4 {
            bail!("bad port table line `{line}`");
        }
        let width: u32 = f[2].parse()?;
        let offset: u32 = f[3].parse()?;
        let dir = match f[0] {
            "C" => {
                clock = Some(f[1].to_string());
                continue;
            }
            "I" => Dir::Input,
            "O" => Dir::Output,
            _ => bail!("bad port table line `{line}`"),
        };
        ports.push(Port {
            name: f[1].to_string(),
            dir,
            width,
            offset,
        });
    }
    Ok((clock.context("no clock in the port table")?, ports))
}

fn c_string_literal(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '\n' => o.push_str("\\n\"\n    \""),
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn ctype(width: u32) -> &'static str {
    match width {
        0..=8 => "CData",
        9..=16 => "SData",
        17..=32 => "IData",
        _ => "QData",
    }
}

/// `t->port = in[..]` statements for every non-clock input.
fn emit_inputs(s: &mut String, ports: &[HdrPort], src: &str) {
    for p in ports.iter().filter(|p| p.dir == Dir::Input && !p.is_clock) {
        if p.words32 == 0 {
            let _ = writeln!(
                s,
                "    t->{} = ({}){src}[{}];",
                p.name,
                ctype(p.width),
                p.offset
            );
        } else {
            for k in 0..p.words32 {
                let _ = writeln!(
                    s,
                    "    t->{}[{k}] = (IData)({src}[{}] >> {});",
                    p.name,
                    p.offset + k / 2,
                    32 * (k % 2)
                );
            }
        }
    }
}

/// `out[..] = t->port` statements for every output.
fn emit_outputs(s: &mut String, ports: &[HdrPort]) {
    for p in ports.iter().filter(|p| p.dir == Dir::Output) {
        if p.words32 == 0 {
            let _ = writeln!(s, "    out[{}] = (uint64_t)t->{};", p.offset, p.name);
        } else {
            for j in 0..p.words64() {
                let lo = 2 * j;
                if lo + 1 < p.words32 {
                    let _ = writeln!(
                        s,
                        "    out[{}] = (uint64_t)t->{}[{lo}] | ((uint64_t)t->{}[{}] << 32);",
                        p.offset + j,
                        p.name,
                        p.name,
                        lo + 1
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "    out[{}] = (uint64_t)t->{}[{lo}];",
                        p.offset + j,
                        p.name
                    );
                }
            }
        }
    }
}

/// The C++ shim compiled into the model library.
pub(crate) fn gen_shim(
    top: &str,
    ports: &[HdrPort],
    trace: bool,
    falling_edge_eval: bool,
    version: &str,
) -> String {
    let clk = &ports.iter().find(|p| p.is_clock).expect("clock").name;
    let cls = format!("V{top}");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by qptable-sim ({version}). Do not edit.\n\
#define QPT_TRACE {trace}\n\
#include \"{cls}.h\"\n\
#include \"verilated.h\"\n\
#if QPT_TRACE\n\
#include \"verilated_vcd_c.h\"\n\
#endif\n\
#include <cstdint>\n\
#include <new>\n\
#include <stdexcept>\n\
#include <string>\n\
\n\
#define QPT_EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n\
\n\
namespace {{\n\
struct QptSim {{\n\
    VerilatedContext* ctx = nullptr;\n\
    {cls}* top = nullptr;\n\
#if QPT_TRACE\n\
    VerilatedVcdC* tfp = nullptr;\n\
#endif\n\
    uint64_t time = 0;\n\
    bool finished = false;\n\
    std::string error;\n\
}};\n\
thread_local QptSim* t_cur = nullptr;\n\
\n\
std::string where(const char* filename, int linenum) {{\n\
    if (!filename || !filename[0]) return std::string();\n\
    return std::string(filename) + \":\" + std::to_string(linenum) + \": \";\n\
}}\n\
\n\
inline void dump(QptSim* m) {{\n\
    m->ctx->time(m->time);\n\
#if QPT_TRACE\n\
    if (m->tfp) m->tfp->dump(m->time);\n\
#endif\n\
}}\n\
}}  // namespace\n\
\n\
// The runtime is compiled with VL_USER_FINISH/STOP/FATAL: a $finish is recorded, a $stop or a\n\
// fatal error becomes a C++ exception that the calling shim function turns into an error code.\n\
void vl_finish(const char*, int, const char*) {{\n\
    if (t_cur) t_cur->finished = true;\n\
}}\n\
void vl_stop(const char* filename, int linenum, const char*) {{\n\
    throw std::runtime_error(where(filename, linenum) + \"Verilog $stop\");\n\
}}\n\
void vl_fatal(const char* filename, int linenum, const char*, const char* msg) {{\n\
    throw std::runtime_error(where(filename, linenum) + (msg ? msg : \"fatal error\"));\n\
}}\n\
\n\
QPT_EXPORT uint32_t qpt_abi() {{ return {SHIM_ABI}; }}\n\
QPT_EXPORT int qpt_traced() {{ return QPT_TRACE; }}\n\
QPT_EXPORT const char* qpt_ports() {{\n\
    return {table};\n\
}}\n\
\n\
QPT_EXPORT void* qpt_create() {{\n\
    QptSim* m = nullptr;\n\
    try {{\n\
        m = new QptSim;\n\
        m->ctx = new VerilatedContext;\n\
        m->ctx->fatalOnError(true);\n\
#if QPT_TRACE\n\
        m->ctx->traceEverOn(true);\n\
#endif\n\
        m->top = new {cls}(m->ctx, \"TOP\");\n\
        m->top->{clk} = 0;\n\
        return m;\n\
    }} catch (...) {{\n\
        if (m) {{ delete m->top; delete m->ctx; delete m; }}\n\
        return nullptr;\n\
    }}\n\
}}\n\
\n\
QPT_EXPORT void qpt_destroy(void* h) {{\n\
    QptSim* m = static_cast<QptSim*>(h);\n\
    if (!m) return;\n\
    t_cur = m;\n\
    try {{\n\
        m->top->final();\n\
    }} catch (...) {{\n\
    }}\n\
#if QPT_TRACE\n\
    if (m->tfp) {{ m->tfp->close(); delete m->tfp; m->tfp = nullptr; }}\n\
#endif\n\
    delete m->top;\n\
    delete m->ctx;\n\
    t_cur = nullptr;\n\
    delete m;\n\
}}\n\
\n\
QPT_EXPORT const char* qpt_error(void* h) {{\n\
    return static_cast<QptSim*>(h)->error.c_str();\n\
}}\n\
\n\
QPT_EXPORT int qpt_finished(void* h) {{\n\
    return static_cast<QptSim*>(h)->finished ? 1 : 0;\n\
}}\n\
\n\
// Opens a VCD file; returns 0, or -1 when the model was built without tracing.\n\
QPT_EXPORT int qpt_trace_open(void* h, const char* path) {{\n\
#if QPT_TRACE\n\
    QptSim* m = static_cast<QptSim*>(h);\n\
    try {{\n\
        if (m->tfp) {{ m->tfp->close(); delete m->tfp; m->tfp = nullptr; }}\n\
        m->tfp = new VerilatedVcdC;\n\
        m->top->trace(m->tfp, 99);\n\
        m->tfp->open(path);\n\
        if (!m->tfp->isOpen()) {{ delete m->tfp; m->tfp = nullptr; return -2; }}\n\
        return 0;\n\
    }} catch (const std::exception& e) {{\n\
        m->error = e.what();\n\
        return -2;\n\
    }}\n\
#else\n\
    (void)h; (void)path;\n\
    return -1;\n\
#endif\n\
}}\n\
\n\
QPT_EXPORT void qpt_trace_close(void* h) {{\n\
#if QPT_TRACE\n\
    QptSim* m = static_cast<QptSim*>(h);\n\
    if (m->tfp) {{ m->tfp->close(); delete m->tfp; m->tfp = nullptr; }}\n\
#else\n\
    (void)h;\n\
#endif\n\
}}\n\
\n\
QPT_EXPORT void qpt_trace_flush(void* h) {{\n\
#if QPT_TRACE\n\
    QptSim* m = static_cast<QptSim*>(h);\n\
    if (m->tfp) m->tfp->flush();\n\
#else\n\
    (void)h;\n\
#endif\n\
}}\n",
        trace = trace as u8,
        table = c_string_literal(&port_table(ports)),
    );

    // The per-cycle entry point.
    let _ = writeln!(
        s,
        "// One clock cycle. The clock is low on entry (it fell at the end of the previous cycle or\n\
// at the start of this one). Inputs are applied and evaluated with the clock low, the outputs\n\
// copied out (the values the rising edge samples), then the rising edge is evaluated.\n\
QPT_EXPORT int qpt_step(void* h, const uint64_t* in, uint64_t* out) {{\n\
    QptSim* m = static_cast<QptSim*>(h);\n\
    {cls}* t = m->top;\n\
    t_cur = m;\n\
    try {{\n\
    t->{clk} = 0;"
    );
    emit_inputs(&mut s, ports, "in");
    let _ = writeln!(
        s,
        "    m->time += {pre};\n\
    t->eval();\n\
    dump(m);",
        pre = if falling_edge_eval { 1 } else { 0 }
    );
    emit_outputs(&mut s, ports);
    let _ = writeln!(
        s,
        "    t->{clk} = 1;\n\
    m->time += {rise};\n\
    t->eval();\n\
    dump(m);",
        rise = if falling_edge_eval { 4 } else { 5 }
    );
    if falling_edge_eval {
        let _ = writeln!(
            s,
            "    t->{clk} = 0;\n\
    m->time += 5;\n\
    t->eval();\n\
    dump(m);"
        );
    } else {
        let _ = writeln!(s, "    m->time += 5;");
    }
    let _ = writeln!(
        s,
        "    }} catch (const std::exception& e) {{\n\
        m->error = e.what();\n\
        return 1;\n\
    }} catch (...) {{\n\
        m->error = \"unknown C++ exception\";\n\
        return 1;\n\
    }}\n\
    return 0;\n\
}}"
    );
    s
}

/// A plain C++ Verilator `main()`: fixed inputs, `reset` (if the model has such an input) held
/// high for 8 cycles, then `--warmup=N` untimed cycles (default 0), then `argv[1]` cycles timed,
/// two evals per cycle. Inputs are given as `name=value` arguments; `name+=step` makes an
/// input (of at most 64 bits) start at its `name=value` (default 0) and add `step` every
/// cycle, wrapping at its width. Prints `cycles_per_second=<f>` (wall clock) and
/// `cycles_per_cpu_second=<f>` (the thread's CPU time, which other load on the machine does
/// not inflate).
pub(crate) fn gen_bench_main(top: &str, ports: &[HdrPort], reset: &str) -> String {
    let clk = &ports.iter().find(|p| p.is_clock).expect("clock").name;
    let cls = format!("V{top}");
    let mut setters = String::new();
    for p in ports.iter().filter(|p| p.dir == Dir::Input && !p.is_clock) {
        if p.words32 == 0 {
            let _ = writeln!(
                setters,
                "    if (!strcmp(name, \"{n}\")) {{ t->{n} = ({ty})v; return true; }}",
                n = p.name,
                ty = ctype(p.width)
            );
        } else {
            let _ = writeln!(
                setters,
                "    if (!strcmp(name, \"{n}\")) {{ t->{n}[0] = (IData)v; t->{n}[1] = (IData)(v >> 32); return true; }}",
                n = p.name
            );
        }
    }
    let mut steppers = String::new();
    for p in ports.iter().filter(|p| p.dir == Dir::Input && !p.is_clock) {
        if p.words32 == 0 {
            let mask = if p.width >= 64 {
                u64::MAX
            } else {
                (1u64 << p.width) - 1
            };
            let _ = writeln!(
                steppers,
                "    if (!strcmp(name, \"{n}\")) {{ s->ptr = &t->{n}; s->size = sizeof(t->{n}); s->mask = {mask}ULL; return true; }}",
                n = p.name,
            );
        }
    }
    let has_reset = ports
        .iter()
        .any(|p| p.dir == Dir::Input && !p.is_clock && p.name == reset);
    format!(
        "// Generated by qptable-sim: plain C++ Verilator main, the speed reference.\n\
#include \"{cls}.h\"\n\
#include \"verilated.h\"\n\
#include <chrono>\n\
#include <time.h>\n\
#include <cstdint>\n\
#include <cstdio>\n\
#include <cstdlib>\n\
#include <cstring>\n\
\n\
void vl_finish(const char*, int, const char*) {{}}\n\
void vl_stop(const char* f, int l, const char*) {{ fprintf(stderr, \"%s:%d: $stop\\n\", f, l); exit(2); }}\n\
void vl_fatal(const char* f, int l, const char*, const char* msg) {{\n\
    fprintf(stderr, \"%s:%d: %s\\n\", f, l, msg); exit(2);\n\
}}\n\
\n\
static bool set_input({cls}* t, const char* name, uint64_t v) {{\n\
{setters}    return false;\n\
}}\n\
\n\
struct Stepper {{ void* ptr; size_t size; uint64_t mask; uint64_t step; }};\n\
static bool find_stepper({cls}* t, const char* name, Stepper* s) {{\n\
{steppers}    return false;\n\
}}\n\
static inline void advance(const Stepper& s) {{\n\
    switch (s.size) {{\n\
    case 1: {{ CData* p = (CData*)s.ptr; *p = (CData)((*p + s.step) & s.mask); break; }}\n\
    case 2: {{ SData* p = (SData*)s.ptr; *p = (SData)((*p + s.step) & s.mask); break; }}\n\
    case 4: {{ IData* p = (IData*)s.ptr; *p = (IData)((*p + s.step) & s.mask); break; }}\n\
    default: {{ QData* p = (QData*)s.ptr; *p = (QData)((*p + s.step) & s.mask); break; }}\n\
    }}\n\
}}\n\
\n\
int main(int argc, char** argv) {{\n\
    if (argc < 2) {{ fprintf(stderr, \"usage: %s CYCLES [name=value]...\\n\", argv[0]); return 1; }}\n\
    uint64_t n = strtoull(argv[1], nullptr, 0);\n\
    uint64_t warmup = 0;\n\
    Stepper steppers[64];\n\
    int n_steppers = 0;\n\
    VerilatedContext* ctx = new VerilatedContext;\n\
    {cls}* t = new {cls}(ctx, \"TOP\");\n\
    t->{clk} = 0;\n\
    for (int i = 2; i < argc; i++) {{\n\
        char* eq = strchr(argv[i], '=');\n\
        if (!eq) {{ fprintf(stderr, \"bad argument %s\\n\", argv[i]); return 1; }}\n\
        *eq = 0;\n\
        size_t len = strlen(argv[i]);\n\
        uint64_t v = strtoull(eq + 1, nullptr, 0);\n\
        if (!strcmp(argv[i], \"--warmup\")) {{\n\
            warmup = v;\n\
        }} else if (len > 0 && argv[i][len - 1] == '+') {{\n\
            argv[i][len - 1] = 0;\n\
            if (n_steppers == 64 || !find_stepper(t, argv[i], &steppers[n_steppers])) {{\n\
                fprintf(stderr, \"no input of at most 64 bits named %s (or too many)\\n\", argv[i]); return 1;\n\
            }}\n\
            steppers[n_steppers++].step = v;\n\
            argv[i][len - 1] = '+';\n\
        }} else if (!set_input(t, argv[i], v)) {{\n\
            fprintf(stderr, \"no input named %s\\n\", argv[i]); return 1;\n\
        }}\n\
        *eq = '=';\n\
    }}\n\
    if ({has_reset}) {{\n\
        set_input(t, \"{reset}\", 1);\n\
        for (int i = 0; i < 8; i++) {{ t->{clk} = 0; t->eval(); t->{clk} = 1; t->eval(); }}\n\
        set_input(t, \"{reset}\", 0);\n\
        for (int i = 2; i < argc; i++) {{\n\
            if (!strncmp(argv[i], \"{reset}=\", strlen(\"{reset}=\"))) set_input(t, \"{reset}\", strtoull(argv[i] + strlen(\"{reset}=\"), nullptr, 0));\n\
        }}\n\
    }}\n\
    for (uint64_t i = 0; i < warmup; i++) {{\n\
        t->{clk} = 0;\n\
        t->eval();\n\
        t->{clk} = 1;\n\
        t->eval();\n\
        for (int k = 0; k < n_steppers; k++) advance(steppers[k]);\n\
    }}\n\
    auto start = std::chrono::steady_clock::now();\n\
    timespec c0, c1;\n\
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);\n\
    for (uint64_t i = 0; i < n; i++) {{\n\
        t->{clk} = 0;\n\
        t->eval();\n\
        t->{clk} = 1;\n\
        t->eval();\n\
        for (int k = 0; k < n_steppers; k++) advance(steppers[k]);\n\
    }}\n\
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();\n\
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);\n\
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);\n\
    printf(\"cycles_per_second=%.1f\\n\", secs > 0 ? (double)n / secs : 0.0);\n\
    printf(\"cycles_per_cpu_second=%.1f\\n\", cpu > 0 ? (double)n / cpu : 0.0);\n\
    t->final();\n\
    delete t;\n\
    delete ctx;\n\
    return 0;\n\
}}\n",
        has_reset = if has_reset { "true" } else { "false" },
    )
}
