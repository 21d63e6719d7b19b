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
mod tests {
    use super::*;

    /// The message of validate() after applying `assignments` to the defaults.
    fn invalid(assignments: &[&str]) -> ConfigError {
        let mut cfg = Config::default();
        for a in assignments {
            cfg.set(a).unwrap();
        }
        cfg.validate().expect_err("expected a validation error")
    }

    fn msg(assignments: &[&str]) -> String {
        invalid(assignments).to_string()
    }

    fn valid(assignments: &[&str]) -> Config {
        let mut cfg = Config::default();
        for a in assignments {
            cfg.set(a).unwrap();
        }
        cfg.validate().unwrap();
        cfg
    }

    #[test]
    fn defaults_are_spec_defaults_and_valid() {
        let c = Config::default();
        assert_eq!(c.index_bits, 14);
        assert_eq!(c.max_qps(), 16384);
        assert_eq!(c.gen_bits(), 10);
        assert_eq!(c.entry_bytes, 256);
        assert_eq!(c.mode, Mode::Flat);
        assert_eq!(c.leaf_bits, 10);
        assert_eq!(c.directory, Directory::OnChip);
        assert_eq!(c.max_outstanding, 32);
        assert_eq!(c.ports, ["tx", "rx"]);
        assert_eq!(c.tag_bits, 8);
        assert_eq!(c.addr_bits, 64);
        assert_eq!(c.first_index, 2);
        assert_eq!(c.reuse, Reuse::Cyclic);
        assert_eq!(c.quarantine_cycles, 0);
        assert_eq!(c.quarantine_depth, 64);
        assert_eq!(c.top, "qp_table");
        c.validate().unwrap();
    }

    #[test]
    fn resolved_values() {
        let c = valid(&["index_bits=24"]);
        assert_eq!((c.max_qps(), c.gen_bits()), (1 << 24, 0));
        let c = valid(&["index_bits=4", "max_qps=5"]);
        assert_eq!((c.max_qps(), c.gen_bits()), (5, 20));
    }

    #[test]
    fn edges_of_every_range_are_accepted() {
        valid(&["index_bits=4"]);
        valid(&["index_bits=24", "max_qps=16777216"]);
        valid(&["max_qps=1", "first_index=0"]);
        valid(&["max_qps=16384", "first_index=16383"]);
        valid(&["entry_bytes=32"]);
        valid(&["entry_bytes=4096"]);
        valid(&["max_outstanding=1"]);
        valid(&["max_outstanding=256"]);
        valid(&["ports=a"]);
        valid(&["ports=a,b,c,d"]);
        valid(&["ports=[\"_x\", \"Y9\"]"]);
        valid(&["tag_bits=1"]);
        valid(&["tag_bits=32"]);
        valid(&["addr_bits=32"]);
        valid(&["addr_bits=64"]);
        valid(&["quarantine_depth=1"]);
        valid(&["quarantine_depth=4096"]);
        valid(&["top=_t0", "reuse=lowest", "directory=in_memory"]);
        // leaf_bits is ignored in flat mode.
        valid(&["leaf_bits=0"]);
        valid(&["leaf_bits=99"]);
    }

    #[test]
    fn out_of_range_messages() {
        assert_eq!(
            msg(&["index_bits=30"]),
            "index_bits = 30 is out of range: allowed 4..=24"
        );
        assert_eq!(
            msg(&["index_bits=3"]),
            "index_bits = 3 is out of range: allowed 4..=24"
        );
        assert_eq!(
            msg(&["max_qps=0"]),
            "max_qps = 0 is out of range: allowed 1..=16384 (2^index_bits, index_bits = 14)"
        );
        assert_eq!(
            msg(&["index_bits=4", "max_qps=17"]),
            "max_qps = 17 is out of range: allowed 1..=16 (2^index_bits, index_bits = 4)"
        );
        assert_eq!(
            msg(&["entry_bytes=100"]),
            "entry_bytes = 100 is not allowed: a multiple of 32 in 32..=4096"
        );
        assert_eq!(
            msg(&["entry_bytes=0"]),
            "entry_bytes = 0 is not allowed: a multiple of 32 in 32..=4096"
        );
        assert_eq!(
            msg(&["entry_bytes=4128"]),
            "entry_bytes = 4128 is not allowed: a multiple of 32 in 32..=4096"
        );
        assert_eq!(
            msg(&["max_outstanding=0"]),
            "max_outstanding = 0 is out of range: allowed 1..=256"
        );
        assert_eq!(
            msg(&["max_outstanding=257"]),
            "max_outstanding = 257 is out of range: allowed 1..=256"
        );
        assert_eq!(
            msg(&["tag_bits=0"]),
            "tag_bits = 0 is out of range: allowed 1..=32"
        );
        assert_eq!(
            msg(&["tag_bits=33"]),
            "tag_bits = 33 is out of range: allowed 1..=32"
        );
        assert_eq!(
            msg(&["addr_bits=31"]),
            "addr_bits = 31 is out of range: allowed 32..=64"
        );
        assert_eq!(
            msg(&["addr_bits=65"]),
            "addr_bits = 65 is out of range: allowed 32..=64"
        );
        assert_eq!(
            msg(&["quarantine_cycles=4294967296"]),
            "quarantine_cycles = 4294967296 is out of range: allowed 0..=4294967295"
        );
        assert_eq!(
            msg(&["quarantine_depth=0"]),
            "quarantine_depth = 0 is out of range: allowed 1..=4096"
        );
        assert_eq!(
            msg(&["quarantine_depth=4097"]),
            "quarantine_depth = 4097 is out of range: allowed 1..=4096"
        );
        assert_eq!(invalid(&["tag_bits=0"]).parameter(), "tag_bits");
    }

    #[test]
    fn relation_messages() {
        assert_eq!(
            msg(&["max_qps=10", "first_index=10"]),
            "first_index = 10 is out of range: allowed 0..=9 (below max_qps = 10)"
        );
        // first_index against the resolved max_qps (2^index_bits).
        assert_eq!(
            msg(&["index_bits=4", "first_index=16"]),
            "first_index = 16 is out of range: allowed 0..=15 (below max_qps = 16)"
        );
        // The default first_index = 2 does not fit max_qps = 2.
        assert_eq!(
            msg(&["max_qps=2"]),
            "first_index = 2 is out of range: allowed 0..=1 (below max_qps = 2)"
        );
        // leaf_bits is checked in two_level mode, before the not-implemented refusal.
        assert_eq!(
            msg(&["mode=two_level", "leaf_bits=14"]),
            "leaf_bits = 14 is out of range: allowed 1..=13 (below index_bits = 14)"
        );
        assert_eq!(
            msg(&["mode=two_level", "leaf_bits=0"]),
            "leaf_bits = 0 is out of range: allowed 1..=13 (below index_bits = 14)"
        );
        assert_eq!(invalid(&["max_qps=2"]).parameter(), "first_index");
    }

    #[test]
    fn port_and_top_messages() {
        let ports_msg = |v: &str| {
            format!(
                "ports = {v} is not allowed: 1 to 4 unique names, each a Verilog identifier \
                 ([A-Za-z_][A-Za-z0-9_]*)"
            )
        };
        assert_eq!(msg(&["ports=[]"]), ports_msg("[]"));
        assert_eq!(msg(&["ports=tx,tx"]), ports_msg("[\"tx\", \"tx\"]"));
        assert_eq!(
            msg(&["ports=a,b,c,d,e"]),
            ports_msg("[\"a\", \"b\", \"c\", \"d\", \"e\"]")
        );
        assert_eq!(msg(&["ports=[\"9a\"]"]), ports_msg("[\"9a\"]"));
        assert_eq!(msg(&["ports=[\"a-b\"]"]), ports_msg("[\"a-b\"]"));
        assert_eq!(msg(&["ports=[\"\"]"]), ports_msg("[\"\"]"));
        assert_eq!(msg(&["ports=tx,"]), ports_msg("[\"tx\", \"\"]"));
        assert_eq!(msg(&["ports=[\"t x\"]"]), ports_msg("[\"t x\"]"));
        let top_msg = |v: &str| {
            format!(
                "top = {v} is not allowed: a Verilog identifier ([A-Za-z_][A-Za-z0-9_]*) that is \
                 not a Verilog or SystemVerilog keyword"
            )
        };
        assert_eq!(msg(&["top=module"]), top_msg("\"module\""));
        assert_eq!(msg(&["top=logic"]), top_msg("\"logic\""));
        assert_eq!(msg(&["top=1qp"]), top_msg("\"1qp\""));
        assert_eq!(msg(&["top=qp$table"]), top_msg("\"qp$table\""));
        assert_eq!(msg(&["top="]), top_msg("\"\""));
        assert_eq!(invalid(&["top=wire"]).parameter(), "top");
        let port_msg = |v: &str| {
            format!(
                "top = {v} is not allowed: a name that is not a port of the top level (clk, rst, \
                 s_axil_*, m_axi_*, s_<port>_req_*, m_<port>_rsp_*): the module would hide its \
                 own port (Verilator VARHIDDEN)"
            )
        };
        assert_eq!(msg(&["top=clk"]), port_msg("\"clk\""));
        assert_eq!(msg(&["top=rst"]), port_msg("\"rst\""));
        assert_eq!(msg(&["top=s_axil_awaddr"]), port_msg("\"s_axil_awaddr\""));
        assert_eq!(msg(&["top=m_axi_arid"]), port_msg("\"m_axi_arid\""));
        assert_eq!(msg(&["top=s_tx_req_valid"]), port_msg("\"s_tx_req_valid\""));
        assert_eq!(
            msg(&["ports=a,b", "top=m_b_rsp_ready"]),
            port_msg("\"m_b_rsp_ready\"")
        );
        // Names near the families are fine: another port's family, no family at all.
        valid(&["ports=a,b", "top=s_tx_req_valid"]);
        valid(&["top=clk2"]);
        valid(&["top=s_axi_lite"]);
    }

    /// Every port of the generated top level, in flat and in two_level in_memory (the
    /// `m_axi_*` master) and with other port names, is refused as `top`.
    #[test]
    fn no_port_of_the_top_level_is_a_top() {
        for base in [
            &[][..],
            &["mode=two_level", "directory=in_memory"][..],
            &["ports=a,b,c,d", "mode=two_level"][..],
        ] {
            let cfg = valid(base);
            let top =
                crate::hw::qp_table::QpTable::new(crate::hw::EngineParams::new(&cfg), &cfg.ports);
            assert!(
                top.ports().len() > 10,
                "{base:?}: {} ports",
                top.ports().len()
            );
            for p in top.ports() {
                let mut set = base.to_vec();
                let top = format!("top={}", p.name);
                set.push(&top);
                assert_eq!(invalid(&set).parameter(), "top", "{set:?}");
            }
        }
    }

    #[test]
    fn every_mode_and_directory_is_accepted() {
        // Both directories are implemented: nothing is refused as not implemented. The
        // directory matters only in two_level mode and is accepted (and ignored) in flat.
        valid(&["mode=two_level", "directory=in_memory"]);
        valid(&["directory=in_memory"]);
        valid(&["mode=two_level", "directory=on_chip"]);
    }

    #[test]
    fn unknown_parameter() {
        let known = "index_bits, max_qps, entry_bytes, mode, leaf_bits, directory, \
                     max_outstanding, ports, tag_bits, addr_bits, first_index, reuse, \
                     quarantine_cycles, quarantine_depth, top, state, block_bits, \
                     cache_lines, max_misses, mem_data_bits, fpga";
        let e = Config::default().set("foo=1").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("unknown parameter `foo`: known parameters are {known}")
        );
        assert_eq!(e.parameter(), "foo");
        let e = Config::from_toml_str("index_bits = 12\nbar = \"x\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("unknown parameter `bar`: known parameters are {known}")
        );
        // A TOML table is an unknown top-level key too.
        let e = Config::from_toml_str("[engine]\nindex_bits = 12\n").unwrap_err();
        assert_eq!(e.parameter(), "engine");
    }

    #[test]
    fn malformed_values() {
        let set_err = |a: &str| Config::default().set(a).unwrap_err().to_string();
        assert_eq!(
            set_err("index_bits=abc"),
            "index_bits = abc is not allowed: expected an integer in 4..=24"
        );
        assert_eq!(
            set_err("index_bits=1.5"),
            "index_bits = 1.5 is not allowed: expected an integer in 4..=24"
        );
        assert_eq!(
            set_err("index_bits="),
            "index_bits = \"\" is not allowed: expected an integer in 4..=24"
        );
        assert_eq!(
            set_err("index_bits=-1"),
            "index_bits = -1 is out of range: allowed 4..=24"
        );
        assert_eq!(
            set_err("max_qps=4294967296"),
            "max_qps = 4294967296 is out of range: allowed 1..=2^index_bits"
        );
        assert_eq!(
            set_err("entry_bytes=true"),
            "entry_bytes = true is not allowed: expected an integer in 32..=4096 (a multiple of 32)"
        );
        assert_eq!(
            set_err("mode=flatt"),
            "mode = flatt is not allowed: one of flat, two_level"
        );
        assert_eq!(
            set_err("mode=1"),
            "mode = 1 is not allowed: expected one of flat, two_level"
        );
        assert_eq!(
            set_err("directory=dram"),
            "directory = dram is not allowed: one of on_chip, in_memory"
        );
        assert_eq!(
            set_err("fpga=xilinx"),
            "fpga = xilinx is not allowed: one of generic, ecp5"
        );
        assert_eq!(
            set_err("fpga=5"),
            "fpga = 5 is not allowed: expected one of generic, ecp5"
        );
        assert_eq!(
            set_err("reuse=random"),
            "reuse = random is not allowed: one of cyclic, lowest"
        );
        assert_eq!(
            set_err("ports=[1, 2]"),
            "ports = [1, 2] is not allowed: expected a list of 1 to 4 unique names, each a \
             Verilog identifier ([A-Za-z_][A-Za-z0-9_]*)"
        );
        assert_eq!(
            set_err("top=[\"a\"]"),
            "top = [\"a\"] is not allowed: expected a string, a Verilog identifier \
             ([A-Za-z_][A-Za-z0-9_]*) that is not a Verilog or SystemVerilog keyword"
        );
        assert_eq!(
            set_err("quarantine_cycles=-5"),
            "quarantine_cycles = -5 is out of range: allowed 0..=4294967295"
        );
        assert_eq!(
            set_err("index_bits 12"),
            "`index_bits 12` is not an assignment: expected name=value"
        );
        // In a file the value is shown as TOML.
        assert_eq!(
            Config::from_toml_str("mode = \"flatt\"")
                .unwrap_err()
                .to_string(),
            "mode = \"flatt\" is not allowed: one of flat, two_level"
        );
        assert_eq!(
            Config::from_toml_str("index_bits = \"12\"")
                .unwrap_err()
                .to_string(),
            "index_bits = \"12\" is not allowed: expected an integer in 4..=24"
        );
        let e = Config::from_toml_str("tag_bits = 1.0").unwrap_err();
        assert_eq!(e.parameter(), "tag_bits");
    }

    #[test]
    fn bad_toml() {
        let e = Config::from_toml_str("index_bits = 12\nmode = \n").unwrap_err();
        assert_eq!(e.parameter(), "");
        let m = e.to_string();
        assert!(
            m.starts_with("configuration is not valid TOML at line 2, column 8: invalid string"),
            "{m}"
        );
        assert!(!m.contains('\n'), "{m}");
        let e = Config::from_toml_str("index_bits = 12\nindex_bits = 13\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration is not valid TOML at line 2, column 1: duplicate key `index_bits` in \
             document root"
        );
        let e = Config::from_toml_file(Path::new("/nonexistent/qptable.toml")).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("cannot read configuration file /nonexistent/qptable.toml: "));
    }

    #[test]
    fn file_errors_name_the_file() {
        let dir = std::env::temp_dir().join(format!("qptable-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(&path, "tag_bits = \"x\"\n").unwrap();
        let e = Config::from_toml_file(&path).unwrap_err();
        assert_eq!(e.parameter(), "tag_bits");
        assert_eq!(
            e.to_string(),
            format!(
                "{}: tag_bits = \"x\" is not allowed: expected an integer in 1..=32",
                path.display()
            )
        );
        let good = dir.join("good.toml");
        std::fs::write(&good, "index_bits = 10\nports = [\"a\"]\n").unwrap();
        let c = Config::from_toml_file(&good).unwrap();
        assert_eq!((c.index_bits, c.ports.clone()), (10, vec!["a".to_string()]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_keys_take_defaults() {
        assert_eq!(Config::from_toml_str("").unwrap(), Config::default());
        let c = Config::from_toml_str("index_bits = 20\nreuse = \"lowest\"\n").unwrap();
        assert_eq!(
            c,
            Config {
                index_bits: 20,
                reuse: Reuse::Lowest,
                ..Config::default()
            }
        );
    }

    #[test]
    fn state_in_memory_parameters() {
        // Accepted in range with the state on chip (where they have no effect)...
        let mut c = Config::default();
        for a in [
            "state=on_chip",
            "block_bits=8",
            "cache_lines=16",
            "max_misses=256",
            "mem_data_bits=64",
        ] {
            c.set(a).unwrap();
        }
        c.validate().unwrap();
        // ...refused out of range, naming the parameter, the value and what is allowed...
        assert_eq!(
            invalid(&["block_bits=2"]).to_string(),
            "block_bits = 2 is out of range: allowed 3..=8"
        );
        assert_eq!(
            invalid(&["block_bits=9"]).to_string(),
            "block_bits = 9 is out of range: allowed 3..=8"
        );
        assert_eq!(
            invalid(&["cache_lines=1000"]).to_string(),
            "cache_lines = 1000 is not allowed: a power of two in 16..=65536"
        );
        assert_eq!(
            invalid(&["cache_lines=8"]).to_string(),
            "cache_lines = 8 is not allowed: a power of two in 16..=65536"
        );
        assert_eq!(invalid(&["cache_lines=131072"]).parameter(), "cache_lines");
        assert_eq!(
            invalid(&["max_misses=0"]).to_string(),
            "max_misses = 0 is out of range: allowed 1..=256"
        );
        assert_eq!(
            invalid(&["mem_data_bits=32"]).to_string(),
            "mem_data_bits = 32 is not allowed: one of 64, 128, 256 or 512"
        );
        // The state in memory works with every table organisation (SPEC §9).
        valid(&["state=in_memory"]);
        valid(&["state=in_memory", "mode=two_level"]);
        valid(&["state=in_memory", "mode=two_level", "directory=in_memory"]);
        valid(&[
            "state=in_memory",
            "mode=two_level",
            "directory=in_memory",
            "mem_data_bits=512",
            "max_outstanding=256",
            "max_misses=1",
        ]);
        valid(&["mode=two_level", "directory=in_memory", "mem_data_bits=512"]);
        let mut c = Config::default();
        assert_eq!(
            c.set("state=cache").unwrap_err().to_string(),
            "state = cache is not allowed: one of on_chip, in_memory"
        );
    }

    #[test]
    fn parsing_does_not_validate() {
        // An override can repair a file: ranges are checked only by validate().
        let mut c = Config::from_toml_str("mode = \"two_level\"\nindex_bits = 99\n").unwrap();
        assert!(c.validate().is_err());
        c.set("mode=flat").unwrap();
        c.set("index_bits=12").unwrap();
        c.validate().unwrap();
    }

    #[test]
    fn set_accepts_toml_and_bare_words() {
        let mut c = Config::default();
        c.set("index_bits=12").unwrap();
        c.set(" max_qps = 0x100 ").unwrap();
        c.set("entry_bytes=64").unwrap();
        c.set("mode=flat").unwrap();
        c.set("leaf_bits=6").unwrap();
        c.set("directory=\"in_memory\"").unwrap();
        c.set("max_outstanding=8").unwrap();
        c.set("ports=[\"tx\",\"rx\",\"ctl\"]").unwrap();
        c.set("tag_bits=16").unwrap();
        c.set("addr_bits=48").unwrap();
        c.set("first_index=0").unwrap();
        c.set("reuse=lowest").unwrap();
        c.set("quarantine_cycles=0").unwrap();
        c.set("quarantine_depth=128").unwrap();
        c.set("top=my_qpt").unwrap();
        c.set("state=on_chip").unwrap();
        c.set("block_bits=3").unwrap();
        c.set("cache_lines=65536").unwrap();
        c.set("max_misses=1").unwrap();
        c.set("mem_data_bits=64").unwrap();
        c.set("fpga=ecp5").unwrap();
        assert_eq!(
            c,
            Config {
                index_bits: 12,
                max_qps: Some(256),
                entry_bytes: 64,
                mode: Mode::Flat,
                leaf_bits: 6,
                directory: Directory::InMemory,
                max_outstanding: 8,
                ports: vec!["tx".into(), "rx".into(), "ctl".into()],
                tag_bits: 16,
                addr_bits: 48,
                first_index: 0,
                reuse: Reuse::Lowest,
                quarantine_cycles: 0,
                quarantine_depth: 128,
                top: "my_qpt".into(),
                state: State::OnChip,
                block_bits: 3,
                cache_lines: 65536,
                max_misses: 1,
                mem_data_bits: 64,
                fpga: Fpga::Ecp5,
            }
        );
        c.validate().unwrap();
        c.set("ports=a, b").unwrap();
        assert_eq!(c.ports, ["a", "b"]);
        c.set("ports=[c,d]").unwrap();
        assert_eq!(c.ports, ["c", "d"]);
        c.set("ports=solo").unwrap();
        assert_eq!(c.ports, ["solo"]);
        c.set("mode=two_level").unwrap();
        assert_eq!(c.mode, Mode::TwoLevel);
    }

    #[test]
    fn toml_round_trip() {
        let configs = [
            Config::default(),
            valid(&[
                "index_bits=24",
                "max_qps=1000",
                "entry_bytes=4096",
                "ports=a,b,c,d",
                "tag_bits=32",
                "addr_bits=32",
                "first_index=999",
                "reuse=lowest",
                "quarantine_depth=1",
                "top=t",
                "directory=in_memory",
                "leaf_bits=3",
                "max_outstanding=256",
                "fpga=ecp5",
            ]),
            Config {
                mode: Mode::TwoLevel,
                quarantine_cycles: 4_294_967_295,
                ..Config::default()
            },
        ];
        for c in configs {
            let text = c.to_toml();
            assert_eq!(Config::from_toml_str(&text).unwrap(), c, "{text}");
        }
        let text = Config::default().to_toml();
        assert!(!text.contains("max_qps"), "{text}");
        assert!(text.contains("ports = [\"tx\", \"rx\"]\n"), "{text}");
        assert!(text.contains("mode = \"flat\"\n"), "{text}");
        assert!(text.starts_with("index_bits = 14\n"), "{text}");
    }

    #[test]
    fn serde_names_are_snake_case() {
        let t = toml::to_string(&Config {
            mode: Mode::TwoLevel,
            directory: Directory::InMemory,
            reuse: Reuse::Lowest,
            ..Config::default()
        })
        .unwrap();
        assert!(t.contains("mode = \"two_level\""), "{t}");
        assert!(t.contains("directory = \"in_memory\""), "{t}");
        assert!(t.contains("reuse = \"lowest\""), "{t}");
    }
}
