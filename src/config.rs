//! Configuration of the generated engine: every generation-time parameter of SPEC §3 in one
//! struct, read from TOML and `--set name=value` assignments, checked by one [`Config::validate`].
//!
//! The flow of a tool is: [`Config::from_toml_file`] (or [`Config::default`]), then
//! [`Config::set`] for each override, then [`Config::validate`]. Parsing checks only the *type*
//! of each value (and that it fits the field); ranges and relations between parameters are
//! checked by `validate`, so an override can repair a file (`--set mode=flat` over a file that
//! says `two_level`).
//!
//! Every failure is a [`ConfigError`]: one line that names the parameter, the value given and
//! what is allowed, e.g. `index_bits = 30 is out of range: allowed 4..=24`.
//!
//! Assumptions not checked here (they are the generator's business): the module names the
//! generator derives from `top` for submodules do not collide with the user's own modules.

use std::fmt;
use std::path::Path;

/// Table organisation (SPEC §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// `addr = table_base + index * entry_bytes`.
    Flat,
    /// A directory of second-level pages.
    TwoLevel,
}

/// Where the directory of a two-level table lives (SPEC §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Directory {
    /// Written through the control port (`DIR_*`).
    OnChip,
    /// Fetched over the memory port.
    InMemory,
}

/// Which FREE index `ALLOC` hands out (SPEC §3 `reuse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reuse {
    /// The first FREE index after the one the last `ALLOC` handed out, wrapping.
    Cyclic,
    /// The lowest FREE index `>= first_index`.
    Lowest,
}

/// Where the per-index state lives (SPEC §3 `state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// On chip, one copy per lookup port and one for commands (version 1).
    OnChip,
    /// In memory behind an on-chip cache (SPEC §9, version 2), with every table
    /// organisation (`flat`, `two_level` with either directory).
    InMemory,
}

impl State {
    /// The name used in TOML and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            State::OnChip => "on_chip",
            State::InMemory => "in_memory",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How block RAMs are emitted (SPEC §3 `fpga`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fpga {
    /// Inferred, the read data registered directly after the array (the pattern the vendor
    /// tools map onto a block RAM's own output register).
    Generic,
    /// Lattice ECP5: DP16KD instantiated with its output register (`REGMODE = "OUTREG"`).
    Ecp5,
}

impl Fpga {
    /// The name used in TOML and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Fpga::Generic => "generic",
            Fpga::Ecp5 => "ecp5",
        }
    }
}

impl fmt::Display for Fpga {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Mode {
    /// The name used in TOML and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Flat => "flat",
            Mode::TwoLevel => "two_level",
        }
    }
}

impl Directory {
    /// The name used in TOML and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Directory::OnChip => "on_chip",
            Directory::InMemory => "in_memory",
        }
    }
}

impl Reuse {
    /// The name used in TOML and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Reuse::Cyclic => "cyclic",
            Reuse::Lowest => "lowest",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Directory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Reuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every generation-time parameter (SPEC §3). Build it with [`Config::default`],
/// [`Config::from_toml_str`] or [`Config::set`]; call [`Config::validate`] before use.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Config {
    /// Bits of the table index; the table holds up to 2^index_bits QPs. 4..=24.
    pub index_bits: u32,
    /// Indexes `>= max_qps` are OUT_OF_RANGE; `None` means 2^index_bits. 1..=2^index_bits.
    pub max_qps: Option<u32>,
    /// QP context stride in bytes: a multiple of 32 in 32..=4096.
    pub entry_bytes: u32,
    /// `flat` or `two_level`.
    pub mode: Mode,
    /// two_level: index bits resolved inside a second-level page. 1..index_bits.
    pub leaf_bits: u32,
    /// two_level: `on_chip` or `in_memory`.
    pub directory: Directory,
    /// in_memory: directory reads in flight. 1..=256.
    pub max_outstanding: u32,
    /// Names of the lookup ports, one pipeline each: 1 to 4 unique Verilog identifiers.
    pub ports: Vec<String>,
    /// Width of the opaque request tag. 1..=32.
    pub tag_bits: u32,
    /// Width of context and memory addresses. 32..=64.
    pub addr_bits: u32,
    /// Lowest index that `ALLOC` hands out. 0..max_qps.
    pub first_index: u32,
    /// `cyclic` or `lowest`.
    pub reuse: Reuse,
    /// Cycles a freed index waits before reuse (0: off). 0..=2^32-1.
    pub quarantine_cycles: u64,
    /// Freed indexes the quarantine can hold. 1..=4096.
    pub quarantine_depth: u32,
    /// Verilog module name of the top level.
    pub top: String,
    /// Where the per-index state lives: `on_chip` (the only value of this release) or
    /// `in_memory` (SPEC §9).
    pub state: State,
    /// State in memory: indexes per block = 2^block_bits. 3..=8; no effect with the state on
    /// chip.
    pub block_bits: u32,
    /// State in memory: blocks the state cache holds, a power of two in 16..=65536; no effect
    /// with the state on chip.
    pub cache_lines: u32,
    /// State in memory: block fetches in flight. 1..=256; no effect with the state on chip.
    pub max_misses: u32,
    /// Data width of the memory master `m_axi_*`: 64, 128, 256 or 512 (the directory reads
    /// of two_level in_memory fetch the bus word that holds the entry).
    pub mem_data_bits: u32,
    /// How block RAMs are emitted: `generic` or `ecp5`.
    pub fpga: Fpga,
}

impl Default for Config {
    /// The defaults of SPEC §3.
    fn default() -> Config {
        Config {
            index_bits: 14,
            max_qps: None,
            entry_bytes: 256,
            mode: Mode::Flat,
            leaf_bits: 10,
            directory: Directory::OnChip,
            max_outstanding: 32,
            ports: vec!["tx".to_string(), "rx".to_string()],
            tag_bits: 8,
            addr_bits: 64,
            first_index: 2,
            reuse: Reuse::Cyclic,
            quarantine_cycles: 0,
            quarantine_depth: 64,
            top: "qp_table".to_string(),
            state: State::OnChip,
            block_bits: 6,
            cache_lines: 1024,
            max_misses: 64,
            mem_data_bits: 64,
            fpga: Fpga::Generic,
        }
    }
}

/// The parameter names, in declaration order (the order of messages and of [`Config::to_toml`]).
pub const PARAMETERS: [&str; 21] = [
    "index_bits",
    "max_qps",
    "entry_bytes",
    "mode",
    "leaf_bits",
    "directory",
    "max_outstanding",
    "ports",
    "tag_bits",
    "addr_bits",
    "first_index",
    "reuse",
    "quarantine_cycles",
    "quarantine_depth",
    "top",
    "state",
    "block_bits",
    "cache_lines",
    "max_misses",
    "mem_data_bits",
    "fpga",
];

const CACHE_LINES_ALLOWED: &str = "a power of two in 16..=65536";
const MEM_DATA_BITS_ALLOWED: &str = "64, 128, 256 or 512";

const PORTS_ALLOWED: &str =
    "1 to 4 unique names, each a Verilog identifier ([A-Za-z_][A-Za-z0-9_]*)";
const TOP_ALLOWED: &str =
    "a Verilog identifier ([A-Za-z_][A-Za-z0-9_]*) that is not a Verilog or SystemVerilog keyword";

const TOP_NOT_A_PORT: &str = "a name that is not a port of the top level (clk, rst, s_axil_*, \
     m_axi_*, s_<port>_req_*, m_<port>_rsp_*): the module would hide its own port (Verilator \
     VARHIDDEN)";

/// A configuration error: one line naming the parameter, the value given and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    parameter: String,
    message: String,
}

impl ConfigError {
    /// The parameter the error is about; empty for errors that concern no single parameter
    /// (TOML syntax, an unreadable file, an assignment without `=`).
    pub fn parameter(&self) -> &str {
        &self.parameter
    }

    /// The one-line message (same as `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }

    fn new(parameter: &str, message: String) -> ConfigError {
        debug_assert!(
            !message.contains('\n'),
            "a ConfigError is one line: {message:?}"
        );
        ConfigError {
            parameter: parameter.to_string(),
            message,
        }
    }

    /// `{p} = {v} is out of range: allowed {allowed}`
    fn out_of_range(p: &str, v: impl fmt::Display, allowed: &str) -> ConfigError {
        ConfigError::new(p, format!("{p} = {v} is out of range: allowed {allowed}"))
    }

    /// `{p} = {v} is not allowed: {what}`
    fn not_allowed(p: &str, v: impl fmt::Display, what: &str) -> ConfigError {
        ConfigError::new(p, format!("{p} = {v} is not allowed: {what}"))
    }

    fn unknown(p: &str) -> ConfigError {
        ConfigError::new(
            p,
            format!(
                "unknown parameter `{p}`: known parameters are {}",
                PARAMETERS.join(", ")
            ),
        )
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// `[A-Za-z_][A-Za-z0-9_]*`
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reserved keywords of IEEE 1800-2017 (SystemVerilog, a superset of Verilog-2005's). Verilator
/// parses `.v` files as SystemVerilog by default, so a module named `logic` would not build.
const VERILOG_KEYWORDS: &str =
    "accept_on alias always always_comb always_ff always_latch and assert assign assume \
     automatic before begin bind bins binsof bit break buf bufif0 bufif1 byte case casex casez \
     cell chandle checker class clocking cmos config const constraint context continue cover \
     covergroup coverpoint cross deassign default defparam design disable dist do edge else end \
     endcase endchecker endclass endclocking endconfig endfunction endgenerate endgroup \
     endinterface endmodule endpackage endprimitive endprogram endproperty endspecify \
     endsequence endtable endtask enum event eventually expect export extends extern final \
     first_match for force foreach forever fork forkjoin function generate genvar global highz0 \
     highz1 if iff ifnone ignore_bins illegal_bins implements implies import incdir include \
     initial inout input inside instance int integer interconnect interface intersect join \
     join_any join_none large let liblist library local localparam logic longint macromodule \
     matches medium modport module nand negedge nettype new nexttime nmos nor noshowcancelled \
     not notif0 notif1 null or output package packed parameter pmos posedge primitive priority \
     program property protected pull0 pull1 pulldown pullup pulsestyle_ondetect \
     pulsestyle_onevent pure rand randc randcase randsequence rcmos real realtime ref reg \
     reject_on release repeat restrict return rnmos rpmos rtran rtranif0 rtranif1 s_always \
     s_eventually s_nexttime s_until s_until_with scalared sequence shortint shortreal \
     showcancelled signed small soft solve specify specparam static string strong strong0 \
     strong1 struct super supply0 supply1 sync_accept_on sync_reject_on table tagged task this \
     throughout time timeprecision timeunit tran tranif0 tranif1 tri tri0 tri1 triand trior \
     trireg type typedef union unique unique0 unsigned until until_with untyped use uwire var \
     vectored virtual void wait wait_order wand weak weak0 weak1 while wildcard wire with \
     within wor xnor xor";

/// A string as a TOML value (quoted and escaped), for messages and [`Config::to_toml`].
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A list of strings as a TOML array, e.g. `["tx", "rx"]`.
fn toml_string_list(list: &[String]) -> String {
    let items: Vec<String> = list.iter().map(|s| toml_string(s)).collect();
    format!("[{}]", items.join(", "))
}

/// Checks `lo..=hi`; the message shows `allowed` (which may say more than the bare range).
fn check_range<T: PartialOrd + fmt::Display>(
    p: &str,
    v: T,
    lo: T,
    hi: T,
    allowed: &str,
) -> Result<(), ConfigError> {
    if v < lo || v > hi {
        Err(ConfigError::out_of_range(p, v, allowed))
    } else {
        Ok(())
    }
}

/// One value to assign, as parsed from TOML (or from a `--set` word), with the text to show in
/// messages (the TOML form, or the word as the user typed it).
struct Given<'a> {
    name: &'a str,
    value: toml::Value,
    shown: String,
}

impl Given<'_> {
    fn malformed(&self, expected: &str) -> ConfigError {
        ConfigError::not_allowed(self.name, &self.shown, &format!("expected {expected}"))
    }

    /// An integer that fits `T`; a negative or too large integer is "out of range" with
    /// `range_text`, anything else "not allowed".
    fn integer<T: TryFrom<i64>>(&self, range_text: &str) -> Result<T, ConfigError> {
        match self.value {
            toml::Value::Integer(i) => T::try_from(i)
                .map_err(|_| ConfigError::out_of_range(self.name, &self.shown, range_text)),
            _ => Err(self.malformed(&format!("an integer in {range_text}"))),
        }
    }

    fn word<T: Copy>(&self, choices: &[(&str, T)]) -> Result<T, ConfigError> {
        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        let expected = format!("one of {}", names.join(", "));
        match &self.value {
            toml::Value::String(s) => choices
                .iter()
                .find(|(n, _)| n == s)
                .map(|(_, v)| *v)
                .ok_or_else(|| ConfigError::not_allowed(self.name, &self.shown, &expected)),
            _ => Err(self.malformed(&expected)),
        }
    }

    fn string(&self, expected: &str) -> Result<String, ConfigError> {
        match &self.value {
            toml::Value::String(s) => Ok(s.clone()),
            _ => Err(self.malformed(expected)),
        }
    }

    /// A TOML array of strings, or one string holding comma-separated names (`tx,rx`); an
    /// empty string is the empty list.
    fn string_list(&self, expected: &str) -> Result<Vec<String>, ConfigError> {
        match &self.value {
            toml::Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    toml::Value::String(s) => Ok(s.clone()),
                    _ => Err(self.malformed(expected)),
                })
                .collect(),
            toml::Value::String(s) => {
                let s = s.trim();
                let s = s
                    .strip_prefix('[')
                    .and_then(|s| s.strip_suffix(']'))
                    .unwrap_or(s);
                if s.trim().is_empty() {
                    Ok(Vec::new())
                } else {
                    Ok(s.split(',').map(|n| n.trim().to_string()).collect())
                }
            }
            _ => Err(self.malformed(expected)),
        }
    }
}

impl Config {
    /// `max_qps` resolved: the given value, or 2^index_bits.
    pub fn max_qps(&self) -> u32 {
        self.max_qps.unwrap_or(1u32 << self.index_bits.min(31))
    }

    /// Generation bits of a QPN: `24 - index_bits` (0 when index_bits = 24).
    pub fn gen_bits(&self) -> u32 {
        24u32.saturating_sub(self.index_bits)
    }

    /// Reads a configuration from TOML text. Missing keys take their defaults; an unknown key,
    /// a value of the wrong type or a TOML syntax error is refused. Ranges and relations are
    /// NOT checked here: call [`Config::validate`] (after any [`Config::set`]).
    pub fn from_toml_str(s: &str) -> Result<Config, ConfigError> {
        let table: toml::Table = s.parse().map_err(|e: toml::de::Error| {
            let place = match e.span() {
                Some(span) => {
                    let before = &s[..span.start.min(s.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!(" at line {line}, column {column}")
                }
                None => String::new(),
            };
            let what: Vec<&str> = e
                .message()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            let what = what.join("; ");
            ConfigError::new(
                "",
                format!("configuration is not valid TOML{place}: {what}"),
            )
        })?;
        let mut cfg = Config::default();
        for (name, value) in table {
            let shown = value.to_string();
            cfg.assign(Given {
                name: &name,
                value,
                shown,
            })?;
        }
        Ok(cfg)
    }

    /// Reads a configuration from a TOML file; see [`Config::from_toml_str`].
    pub fn from_toml_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ConfigError::new(
                "",
                format!("cannot read configuration file {}: {e}", path.display()),
            )
        })?;
        Config::from_toml_str(&text).map_err(|e| {
            ConfigError::new(&e.parameter, format!("{}: {}", path.display(), e.message))
        })
    }

    /// Applies one `name=value` assignment as given to `--set`. The value is TOML (`12`,
    /// `"flat"`, `["tx", "rx"]`) or a bare word (`flat`, `qp_table`); for `ports` also a
    /// comma-separated list (`tx,rx`). Like [`Config::from_toml_str`], checks only the type.
    pub fn set(&mut self, assignment: &str) -> Result<(), ConfigError> {
        let Some((name, raw)) = assignment.split_once('=') else {
            return Err(ConfigError::new(
                "",
                format!("`{assignment}` is not an assignment: expected name=value"),
            ));
        };
        let (name, raw) = (name.trim(), raw.trim());
        if !PARAMETERS.contains(&name) {
            return Err(ConfigError::unknown(name));
        }
        // TOML syntax first (exactly one value), else the bare word as a string.
        let value = format!("v = {raw}")
            .parse::<toml::Table>()
            .ok()
            .filter(|t| t.len() == 1)
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        let shown = if raw.is_empty() {
            "\"\"".to_string()
        } else {
            raw.to_string()
        };
        self.assign(Given { name, value, shown })
    }

    fn assign(&mut self, g: Given) -> Result<(), ConfigError> {
        match g.name {
            "index_bits" => self.index_bits = g.integer("4..=24")?,
            "max_qps" => self.max_qps = Some(g.integer("1..=2^index_bits")?),
            "entry_bytes" => self.entry_bytes = g.integer("32..=4096 (a multiple of 32)")?,
            "mode" => self.mode = g.word(&[("flat", Mode::Flat), ("two_level", Mode::TwoLevel)])?,
            "leaf_bits" => self.leaf_bits = g.integer("1..=index_bits-1")?,
            "directory" => {
                self.directory = g.word(&[
                    ("on_chip", Directory::OnChip),
                    ("in_memory", Directory::InMemory),
                ])?
            }
            "max_outstanding" => self.max_outstanding = g.integer("1..=256")?,
            "ports" => self.ports = g.string_list(&format!("a list of {PORTS_ALLOWED}"))?,
            "tag_bits" => self.tag_bits = g.integer("1..=32")?,
            "addr_bits" => self.addr_bits = g.integer("32..=64")?,
            "first_index" => self.first_index = g.integer("0..=max_qps-1")?,
            "reuse" => {
                self.reuse = g.word(&[("cyclic", Reuse::Cyclic), ("lowest", Reuse::Lowest)])?
            }
            "quarantine_cycles" => self.quarantine_cycles = g.integer("0..=4294967295")?,
            "quarantine_depth" => self.quarantine_depth = g.integer("1..=4096")?,
            "top" => self.top = g.string(&format!("a string, {TOP_ALLOWED}"))?,
            "state" => {
                self.state =
                    g.word(&[("on_chip", State::OnChip), ("in_memory", State::InMemory)])?
            }
            "block_bits" => self.block_bits = g.integer("3..=8")?,
            "cache_lines" => self.cache_lines = g.integer(CACHE_LINES_ALLOWED)?,
            "max_misses" => self.max_misses = g.integer("1..=256")?,
            "mem_data_bits" => self.mem_data_bits = g.integer(MEM_DATA_BITS_ALLOWED)?,
            "fpga" => self.fpga = g.word(&[("generic", Fpga::Generic), ("ecp5", Fpga::Ecp5)])?,
            unknown => return Err(ConfigError::unknown(unknown)),
        }
        Ok(())
    }

    /// Checks every range and every relation of SPEC §3, parameters in declaration order; the
    /// first failure is returned.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("index_bits", self.index_bits, 4, 24, "4..=24")?;
        let capacity = 1u32 << self.index_bits;
        if let Some(max_qps) = self.max_qps {
            check_range(
                "max_qps",
                max_qps,
                1,
                capacity,
                &format!(
                    "1..={capacity} (2^index_bits, index_bits = {})",
                    self.index_bits
                ),
            )?;
        }
        let max_qps = self.max_qps();
        if !self.entry_bytes.is_multiple_of(32) || !(32..=4096).contains(&self.entry_bytes) {
            return Err(ConfigError::not_allowed(
                "entry_bytes",
                self.entry_bytes,
                "a multiple of 32 in 32..=4096",
            ));
        }
        if self.mode == Mode::TwoLevel {
            // Ignored in flat mode.
            check_range(
                "leaf_bits",
                self.leaf_bits,
                1,
                self.index_bits - 1,
                &format!(
                    "1..={} (below index_bits = {})",
                    self.index_bits - 1,
                    self.index_bits
                ),
            )?;
        }
        check_range("max_outstanding", self.max_outstanding, 1, 256, "1..=256")?;
        self.validate_ports()?;
        check_range("tag_bits", self.tag_bits, 1, 32, "1..=32")?;
        check_range("addr_bits", self.addr_bits, 32, 64, "32..=64")?;
        check_range(
            "first_index",
            self.first_index,
            0,
            max_qps - 1,
            &format!("0..={} (below max_qps = {max_qps})", max_qps - 1),
        )?;
        check_range(
            "quarantine_cycles",
            self.quarantine_cycles,
            0,
            u64::from(u32::MAX),
            "0..=4294967295",
        )?;
        check_range(
            "quarantine_depth",
            self.quarantine_depth,
            1,
            4096,
            "1..=4096",
        )?;
        if !is_identifier(&self.top) || VERILOG_KEYWORDS.split_whitespace().any(|k| k == self.top) {
            return Err(ConfigError::not_allowed(
                "top",
                toml_string(&self.top),
                TOP_ALLOWED,
            ));
        }
        if self.is_port_name(&self.top) {
            return Err(ConfigError::not_allowed(
                "top",
                toml_string(&self.top),
                TOP_NOT_A_PORT,
            ));
        }

        // The parameters of the state in memory are checked whatever `state` is (like
        // `max_outstanding` whatever the mode); with the state on chip they have no effect.
        check_range("block_bits", self.block_bits, 3, 8, "3..=8")?;
        if !self.cache_lines.is_power_of_two() || !(16..=65536).contains(&self.cache_lines) {
            return Err(ConfigError::not_allowed(
                "cache_lines",
                self.cache_lines,
                CACHE_LINES_ALLOWED,
            ));
        }
        check_range("max_misses", self.max_misses, 1, 256, "1..=256")?;
        if ![64, 128, 256, 512].contains(&self.mem_data_bits) {
            return Err(ConfigError::not_allowed(
                "mem_data_bits",
                self.mem_data_bits,
                &format!("one of {MEM_DATA_BITS_ALLOWED}"),
            ));
        }

        // Every value of SPEC §3 is implemented (the last refusal, the state in memory with
        // the directory in memory, was lifted with issue 10).
        Ok(())
    }

    /// Whether `name` is, or could be, a port of the top level: `clk`, `rst`, and the
    /// families `s_axil_*`, `m_axi_*` (in_memory) and `s_<port>_req_*`, `m_<port>_rsp_*`
    /// (whole families, so the rule does not change with the mode or the generator's version).
    fn is_port_name(&self, name: &str) -> bool {
        name == "clk"
            || name == "rst"
            || name.starts_with("s_axil_")
            || name.starts_with("m_axi_")
            || self.ports.iter().any(|p| {
                name.starts_with(&format!("s_{p}_req_")) || name.starts_with(&format!("m_{p}_rsp_"))
            })
    }

    /// Port names: 1 to 4, unique, each `[A-Za-z_][A-Za-z0-9_]*`. The signals built from a
    /// name (`s_<p>_req_*`, `m_<p>_rsp_*`) are then identifiers too, never keywords (they
    /// contain `_req_`/`_rsp_`), and cannot collide with each other or with `clk`, `rst`,
    /// `s_axil_*` and `m_axi_*` (whose names do not end in `_req_<x>`/`_rsp_<x>`).
    fn validate_ports(&self) -> Result<(), ConfigError> {
        let n = self.ports.len();
        let unique = self
            .ports
            .iter()
            .enumerate()
            .all(|(i, p)| !self.ports[..i].contains(p));
        if !(1..=4).contains(&n) || !unique || !self.ports.iter().all(|p| is_identifier(p)) {
            return Err(ConfigError::not_allowed(
                "ports",
                toml_string_list(&self.ports),
                PORTS_ALLOWED,
            ));
        }
        Ok(())
    }

    /// The configuration as TOML, every parameter in declaration order; `max_qps` is written
    /// only when set. [`Config::from_toml_str`] of the result gives back an equal `Config`.
    pub fn to_toml(&self) -> String {
        let mut s = String::new();
        let mut line = |name: &str, value: String| {
            s.push_str(&format!("{name} = {value}\n"));
        };
        line("index_bits", self.index_bits.to_string());
        if let Some(max_qps) = self.max_qps {
            line("max_qps", max_qps.to_string());
        }
        line("entry_bytes", self.entry_bytes.to_string());
        line("mode", toml_string(self.mode.as_str()));
        line("leaf_bits", self.leaf_bits.to_string());
        line("directory", toml_string(self.directory.as_str()));
        line("max_outstanding", self.max_outstanding.to_string());
        line("ports", toml_string_list(&self.ports));
        line("tag_bits", self.tag_bits.to_string());
        line("addr_bits", self.addr_bits.to_string());
        line("first_index", self.first_index.to_string());
        line("reuse", toml_string(self.reuse.as_str()));
        line("quarantine_cycles", self.quarantine_cycles.to_string());
        line("quarantine_depth", self.quarantine_depth.to_string());
        line("top", toml_string(&self.top));
        line("state", toml_string(self.state.as_str()));
        line("block_bits", self.block_bits.to_string());
        line("cache_lines", self.cache_lines.to_string());
        line("max_misses", self.max_misses.to_string());
        line("mem_data_bits", self.mem_data_bits.to_string());
        line("fpga", toml_string(self.fpga.as_str()));
        s
    }
}

#[cfg(test)]
mod tests;
