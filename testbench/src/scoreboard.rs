//! Scoreboard for any testbench of the engine: wraps a [`Model`] and applies the visibility
//! rules of SPEC §6 to the lookups, commands and register reads that a testbench observes.
//!
//! The testbench reports handshakes as they happen:
//!
//! | call | when |
//! |---|---|
//! | [`response`](Scoreboard::response) | response handshake of a lookup port |
//! | [`command_completed`](Scoreboard::command_completed) | write response of a CMD write |
//! | [`command_issued`](Scoreboard::command_issued) | write handshake of a CMD write (aw and w) |
//! | [`request`](Scoreboard::request) | request handshake of a lookup port |
//! | [`check_read`](Scoreboard::check_read) | read data of a register |
//! | [`check_write`](Scoreboard::check_write) | write response of a register other than CMD |
//!
//! Within one clock edge, call them in the order of the table: responses first, then the
//! command's completion, then its issue, then the requests. So the *either-state window* of a
//! command is `[write handshake, write response)`: a request accepted at the edge of the CMD
//! write handshake may see the old or the new state, one accepted at the edge of the write
//! response sees the new state only, one accepted before the write handshake sees the old state.
//!
//! A command changes at most one entry ([`Change`]); inside its window a lookup of that index
//! may return the answer for the entry before or after, every other lookup has one answer.
//!
//! FREE's drain (SPEC §6) is checked too: when a successful FREE completes, no lookup accepted
//! before its CMD write handshake may still be unanswered (on any port, of any QPN), and the
//! lookups of the freed index accepted inside its window that are still unanswered must have
//! been accepted after the index was marked FREE, so only NOT_ALLOCATED is then allowed for them.
//! (Lenient by one edge: a lookup accepted at the very edge of the write handshake is not
//! required to drain.)
//!
//! State in memory: where SPEC §9 leaves a command's outcome to the design (a command reads a
//! block's state words from the cache or from memory, and only a read can fail), the model
//! gives both ([`Model::mem_error_allowed`]): the outcome it computes, and MEM_ERROR with
//! nothing changed. The window then stays open after the write response, every read and
//! lookup accepting either, until a read of CMD_RESULT shows the one the engine took; the
//! model takes it, and the FREE drain is checked if the FREE succeeded. The testbench must
//! read CMD_RESULT before the next command (a panic says so otherwise), as
//! `Bench::command` does. The model knows nothing of the engine's buffers.
//!
//! Widths: [`Scoreboard::request`] masks the qpn to 24 bits and the tag to `tag_bits` (what the
//! hardware port can carry); [`Scoreboard::response`] compares its arguments as given, so the
//! harness must read the response signals at their widths (the model's addresses are already
//! modulo 2^addr_bits).
//!
//! Register reads are exact when checked while nothing else moves; per-port counters count at
//! the response handshake, so a read racing with responses of the same port may differ by
//! them. STATUS is expected with INIT_DONE = 1: check registers only after the init sweep.

use qptable::config::Config;
use qptable::model::{
    regs, Change, CmdResult, CmdStatus, Command, Lookup, Model, Slverr, Status, QPN_BITS,
};
use std::collections::VecDeque;
use std::fmt;

/// The register word address the hardware decodes (`addr[11:2]`, SPEC §6), as a byte mask.
const REG_WORD_MASK: u32 = ((1 << regs::WORD_ADDR_BITS) - 1) << 2;
/// A register address as messages show it: the decoded bits and the byte offset.
const REG_SHOWN_MASK: u32 = REG_WORD_MASK | 3;

/// A difference between the hardware and the model: one message that says where (port,
/// request number, qpn, command) and what was expected and got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    message: String,
}

impl Mismatch {
    fn new(message: String) -> Mismatch {
        Mismatch { message }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Mismatch {}

/// One request waiting for its response.
#[derive(Clone, Debug)]
struct Expected {
    /// Request number on its port, from 0.
    number: u64,
    /// Request number over all ports (order of [`Scoreboard::request`] calls).
    seq: u64,
    qpn: u32,
    tag: u64,
    /// `[answer]`, or `[before, after]` inside the window of a command that changed its index.
    allowed: Vec<Lookup>,
    /// The command (number) whose window allowed two answers.
    window: Option<u64>,
}

/// The command in flight, between its write handshake and its write response; with the
/// state in memory, when the command may also have answered MEM_ERROR
/// ([`Model::mem_error_allowed`]), until a read of CMD_RESULT shows which outcome the engine
/// took.
#[derive(Clone, Debug)]
struct Window {
    number: u64,
    cmd: Command,
    result: CmdResult,
    change: Option<Change>,
    /// First request `seq` accepted inside the window.
    start_seq: u64,
    /// Register values before the command, for reads inside the window: (addr, value).
    before: Vec<(u32, u32)>,
    /// The write response came; the window stays open because the outcome is not known.
    responded: bool,
    /// What the FREE drain check found at the write response, reported if the FREE turns
    /// out to have succeeded: (port, request number, qpn).
    drain_error: Option<(usize, u64, u32)>,
}

/// Registers a command may change, read before it: CMD_RESULT and the global counters.
const COMMAND_REGISTERS: [u32; 8] = [
    regs::CMD_RESULT,
    regs::ALLOC_OK,
    regs::ALLOC_FULL,
    regs::FREE_OK,
    regs::CMD_ERROR,
    regs::QUARANTINE_OVERFLOW,
    regs::IN_USE,
    regs::QUARANTINED,
];

/// The scoreboard. See the module documentation for when to call what.
#[derive(Clone)]
pub struct Scoreboard {
    /// A DIR_ENTRY_HI write in flight: (directory index, entry before it).
    dir_window: Option<(u32, u64)>,
    /// A register write in flight: (addr, data, strb, expected response).
    pending_write: Option<(u32, u32, u8, Result<(), ()>)>,
    /// The model, state as of the last issued command.
    pub model: Model,
    tag_mask: u64,
    queues: Vec<VecDeque<Expected>>,
    requests: Vec<u64>,
    lookups: Vec<u64>,
    status_counts: Vec<[u64; 6]>,
    seq: u64,
    commands: u64,
    window: Option<Window>,
    last: Option<(Command, CmdResult)>,
    /// Commands that could answer MEM_ERROR or not, by the outcome the engine took: the
    /// model's, MEM_ERROR.
    either: [u64; 2],
}

fn show_allowed(allowed: &[Lookup]) -> String {
    let items: Vec<String> = allowed.iter().map(|l| l.to_string()).collect();
    items.join(" or ")
}

impl Scoreboard {
    /// A scoreboard for a freshly reset engine. Panics if `cfg` does not validate.
    pub fn new(cfg: &Config) -> Scoreboard {
        let ports = cfg.ports.len();
        Scoreboard {
            dir_window: None,
            pending_write: None,
            model: Model::new(cfg),
            tag_mask: u64::MAX >> (64 - cfg.tag_bits),
            queues: vec![VecDeque::new(); ports],
            requests: vec![0; ports],
            lookups: vec![0; ports],
            status_counts: vec![[0; 6]; ports],
            seq: 0,
            commands: 0,
            window: None,
            last: None,
            either: [0; 2],
        }
    }

    fn port_name(&self, port: usize) -> &str {
        &self.model.config().ports[port]
    }

    /// At the CMD write handshake: applies the command to the model and opens its window.
    /// Returns the result CMD_RESULT will hold. Panics if a command is already in flight (the
    /// testbench must wait for the write response).
    pub fn command_issued(&mut self, cmd: Command) -> CmdResult {
        let now = self.model.now();
        self.command_issued_at(cmd, now)
    }

    /// [`Scoreboard::command_issued`] with the edge of the CMD write handshake, which the
    /// quarantine counts time by.
    pub fn command_issued_at(&mut self, cmd: Command, now: u64) -> CmdResult {
        if let Some(w) = self.window.as_ref().filter(|w| w.responded) {
            panic!(
                "command_issued({cmd:?}) before the outcome of command #{} {:?} was seen: it \
                 may have answered {:?} or MEM_ERROR (SPEC §9); read CMD_RESULT first",
                w.number, w.cmd, w.result
            );
        }
        if let Some(w) = &self.window {
            panic!(
                "command_issued({cmd:?}) while command #{} {:?} is in flight: call \
                 command_completed first",
                w.number, w.cmd
            );
        }
        let before = COMMAND_REGISTERS
            .iter()
            .map(|&a| (a, self.model.read_register(a).unwrap()))
            .collect();
        let (result, change) = self.model.command_at(cmd, now);
        self.window = Some(Window {
            number: self.commands,
            cmd,
            result,
            change,
            start_seq: self.seq,
            before,
            responded: false,
            drain_error: None,
        });
        self.commands += 1;
        self.last = Some((cmd, result));
        result
    }

    /// At the write response of the CMD write: closes the window. For a successful FREE,
    /// checks the drain (see the module documentation). When the command may also have
    /// answered MEM_ERROR, the window stays open until a read of CMD_RESULT shows the outcome
    /// ([`Scoreboard::check_read`]), and the drain is reported then if the FREE succeeded.
    pub fn command_completed(&mut self) -> Result<(), Mismatch> {
        let mut w = self
            .window
            .take()
            .expect("command_completed without command_issued");
        assert!(
            !w.responded,
            "command_completed twice for command #{}",
            w.number
        );
        if self.model.mem_error_allowed() {
            w.drain_error = self.drained(&w);
            w.responded = true;
            self.window = Some(w);
            return Ok(());
        }
        self.free_completed(&w)
    }

    /// For a FREE (that succeeded): a lookup accepted before its CMD write and still
    /// unanswered, if any: (port, request number, qpn).
    fn drained(&self, w: &Window) -> Option<(usize, u64, u32)> {
        if w.cmd.opcode() != Command::FREE || w.result.status != CmdStatus::Ok {
            return None;
        }
        self.queues.iter().enumerate().find_map(|(port, queue)| {
            queue
                .iter()
                .find(|e| e.seq < w.start_seq)
                .map(|e| (port, e.number, e.qpn))
        })
    }

    /// The end of command `w`'s window with the outcome the model holds: for a successful
    /// FREE, the drain check, and the lookups of the freed index accepted in the window and
    /// still unanswered see it FREE.
    fn free_completed(&mut self, w: &Window) -> Result<(), Mismatch> {
        let freed = match (w.cmd.opcode(), w.result.status, w.change) {
            (Command::FREE, CmdStatus::Ok, Some(change)) => change,
            _ => return Ok(()),
        };
        let drain_error = if w.responded {
            w.drain_error
        } else {
            self.drained(w)
        };
        for e in self.queues.iter_mut().flatten() {
            if e.window == Some(w.number) {
                // Still unanswered: accepted after the mark, so it sees the index FREE.
                e.allowed.remove(0);
                e.window = None;
            }
        }
        match drain_error {
            Some((port, number, qpn)) => Err(Mismatch::new(format!(
                "drain violated: the write response of FREE {:#08x} (command #{}, index {}) came \
                 while port {} request #{number} (qpn {qpn:#08x}), accepted before the CMD write, \
                 was still unanswered",
                w.result.qpn,
                w.number,
                freed.index,
                self.port_name(port)
            ))),
            None => Ok(()),
        }
    }

    /// A read of CMD_RESULT after the write response of a command that may have answered
    /// MEM_ERROR: takes the outcome the engine shows and closes the window. The model keeps
    /// its outcome unless the word is that MEM_ERROR.
    fn outcome_seen(&mut self, word: u32) -> Result<(), Mismatch> {
        let w = self.window.take().expect("a window");
        let mem_error = self.model.read_register_if_mem_error(regs::CMD_RESULT) == Some(Ok(word));
        self.either[usize::from(mem_error)] += 1;
        if !mem_error {
            self.model.forget_mem_error();
            return self.free_completed(&w);
        }
        // Lookups of the index accepted in the window see it as it was.
        let afters: Vec<(u64, Lookup)> = self
            .queues
            .iter()
            .flatten()
            .filter(|e| e.window == Some(w.number))
            .map(|e| (e.seq, self.model.lookup(e.qpn)))
            .collect();
        assert!(self.model.take_mem_error());
        for e in self.queues.iter_mut().flatten() {
            if let Some((_, after)) = afters.iter().find(|(seq, _)| *seq == e.seq) {
                let before = self.model.lookup(e.qpn);
                if *after != before {
                    e.allowed.retain(|l| l != after);
                }
                e.window = None;
            }
        }
        self.last = Some((w.cmd, self.model.last_result()));
        Ok(())
    }

    /// Compares a CMD_RESULT read with the expected value (same as
    /// `check_read(CMD_RESULT, Ok(word))`, with the command named in the message).
    pub fn check_cmd_result(&mut self, word: u32) -> Result<(), Mismatch> {
        self.check_read(regs::CMD_RESULT, Ok(word)).map_err(|e| {
            let cmd = match self.last {
                Some((cmd, _)) => format!("{cmd:?} ({:#010x})", cmd.encode()),
                None => "no command".to_string(),
            };
            Mismatch::new(format!("after {cmd}: {e}"))
        })
    }

    /// The values a read of `addr` may return now: `Err(())` for SLVERR.
    pub fn expected_read(&self, addr: u32) -> Vec<Result<u32, ()>> {
        let now = self.model.read_register(addr).map_err(|_| ());
        let Some(w) = &self.window else {
            return vec![now];
        };
        let addr = addr & REG_WORD_MASK;
        let before = if w.responded {
            // Answered: the outcome taken, or the other one (below).
            None
        } else if addr == regs::STATUS {
            Some(regs::STATUS_INIT_DONE | regs::STATUS_CMD_BUSY)
        } else if addr == regs::CMD_RESULT {
            // Busy, with the previous result; or the new result once finished.
            let previous = w.before.iter().find(|(a, _)| *a == addr).unwrap().1;
            Some(previous | regs::CMD_RESULT_BUSY)
        } else {
            w.before.iter().find(|(a, _)| *a == addr).map(|(_, v)| *v)
        };
        let mut allowed = vec![now];
        if let Some(b) = before.filter(|&b| Ok(b) != now) {
            allowed.insert(0, Ok(b));
        }
        // The state in memory, a command that may have answered MEM_ERROR: its registers.
        if let Some(v) = self.model.read_register_if_mem_error(addr) {
            let v = v.map_err(|_| ());
            if !allowed.contains(&v) {
                allowed.push(v);
            }
        }
        allowed
    }

    /// Compares a register read (`Err(())` = SLVERR) with the model, allowing the value before
    /// the command in flight for the registers the command changes. A read of CMD_RESULT
    /// after the write response of a command that may have answered MEM_ERROR shows which
    /// outcome the engine took: the model takes it.
    pub fn check_read(&mut self, addr: u32, got: Result<u32, ()>) -> Result<(), Mismatch> {
        let allowed = self.expected_read(addr);
        let seen = self.window.as_ref().is_some_and(|w| w.responded)
            && addr & REG_WORD_MASK == regs::CMD_RESULT;
        let outcome = match got {
            Ok(word) if seen => self.outcome_seen(word),
            _ => Ok(()),
        };
        if allowed.contains(&got) {
            return outcome;
        }
        if allowed.contains(&got) {
            return Ok(());
        }
        // A cache counter of the state in memory: mapped, its value not predicted.
        if got.is_ok() && self.model.timing_register(addr) {
            return Ok(());
        }
        let show = |r: &Result<u32, ()>| match r {
            Ok(v) => format!("{v:#010x}"),
            Err(()) => "SLVERR".to_string(),
        };
        let allowed: Vec<String> = allowed.iter().map(show).collect();
        Err(Mismatch::new(format!(
            "read of {:#05x}: expected {}, got {}",
            addr & REG_SHOWN_MASK,
            allowed.join(" or "),
            show(&got)
        )))
    }

    /// At the write response of a register write other than CMD: applies it to the model and
    /// compares the response (`Err(())` = SLVERR). Panics for CMD (use `command_issued`).
    pub fn check_write(
        &mut self,
        addr: u32,
        data: u32,
        strb: u8,
        got: Result<(), ()>,
    ) -> Result<(), Mismatch> {
        let expected = match self.model.write_register(addr, data, strb) {
            Err(Slverr::Command) => panic!("check_write of CMD: use command_issued"),
            Ok(()) => Ok(()),
            Err(_) => Err(()),
        };
        if expected == got {
            return Ok(());
        }
        let show = |r: Result<(), ()>| if r.is_ok() { "OKAY" } else { "SLVERR" };
        Err(Mismatch::new(format!(
            "write of {data:#010x} (strb {strb:#06b}) to {:#05x}: expected {}, got {}",
            addr & REG_SHOWN_MASK,
            show(expected),
            show(got)
        )))
    }

    /// At the AW/W handshake of a register write other than CMD: applies it to the model and
    /// remembers the expected response. A DIR_ENTRY_HI write changes a directory entry at one
    /// edge before its write response: lookups accepted until then may see either entry.
    pub fn register_write_issued(&mut self, addr: u32, data: u32, strb: u8) {
        let addr = addr & REG_WORD_MASK;
        let dir_index = self.model.read_register(regs::DIR_INDEX).ok();
        let old = dir_index.map(|i| (i, self.model.dir_entry(i)));
        let expected = match self.model.write_register(addr, data, strb) {
            Err(Slverr::Command) => panic!("register_write_issued of CMD: use command_issued"),
            Ok(()) => Ok(()),
            Err(_) => Err(()),
        };
        if addr == regs::DIR_ENTRY_HI && expected.is_ok() {
            self.dir_window = old;
        }
        self.pending_write = Some((addr, data, strb, expected));
    }

    /// At the write response of a register write other than CMD: compares the response
    /// (`Err(())` = SLVERR) and closes the directory window.
    pub fn register_write_completed(&mut self, got: Result<(), ()>) -> Result<(), Mismatch> {
        self.dir_window = None;
        let Some((addr, data, strb, expected)) = self.pending_write.take() else {
            return Err(Mismatch::new(
                "a write response without a register write".into(),
            ));
        };
        if expected == got {
            return Ok(());
        }
        let show = |r: Result<(), ()>| if r.is_ok() { "OKAY" } else { "SLVERR" };
        Err(Mismatch::new(format!(
            "write of {data:#010x} (strb {strb:#06b}) to {addr:#05x}: expected {}, got {}",
            show(expected),
            show(got)
        )))
    }

    /// At the request handshake of `port`: queues the allowed answers. The qpn is taken modulo
    /// 2^24 and the tag modulo 2^tag_bits.
    pub fn request(&mut self, port: usize, qpn: u32, tag: u64) {
        let qpn = qpn & ((1 << QPN_BITS) - 1);
        let after = self.model.lookup(qpn);
        let mut allowed = vec![after];
        let mut window = None;
        if let Some(Window {
            number,
            change: Some(change),
            ..
        }) = &self.window
        {
            let before = self
                .model
                .lookup_with_entry(qpn, Some((change.index, change.before)));
            if before != after {
                allowed.insert(0, before);
                window = Some(*number);
            }
        }
        if let Some((i, old)) = self.dir_window {
            let now = self.model.dir_entry(i);
            self.model.set_dir_entry(i, old);
            let before = self.model.lookup(qpn);
            self.model.set_dir_entry(i, now);
            if !allowed.contains(&before) {
                allowed.insert(0, before);
            }
        }
        // State in memory: a lookup of a live block that an error range covers may miss and
        // answer MEM_ERROR.
        let changing = self.changing_index();
        if self.model.lookup_may_mem_error(qpn, changing) {
            allowed.push(Lookup {
                status: Status::MemError,
                addr: 0,
            });
        }
        self.queues[port].push_back(Expected {
            number: self.requests[port],
            seq: self.seq,
            qpn,
            tag: tag & self.tag_mask,
            allowed,
            window,
        });
        self.requests[port] += 1;
        self.seq += 1;
    }

    /// At the response handshake of `port`: pops the oldest request of the port, checks qpn,
    /// tag, status and addr (0 unless OK), and counts the lookup with the status returned.
    pub fn response(
        &mut self,
        port: usize,
        qpn: u32,
        tag: u64,
        status: u64,
        addr: u64,
    ) -> Result<(), Mismatch> {
        let got_status = Status::from_u64(status);
        self.lookups[port] += 1;
        if let Some(s) = got_status {
            self.status_counts[port][s as usize] += 1;
            self.model.count_lookup(port, s);
        }
        let shown_status = match got_status {
            Some(s) => s.name().to_string(),
            None => format!("invalid status {status}"),
        };
        let got = format!("qpn {qpn:#08x} tag {tag:#x} {shown_status} addr {addr:#x}");
        let Some(e) = self.queues[port].pop_front() else {
            return Err(Mismatch::new(format!(
                "port {}: response ({got}) with no request outstanding",
                self.port_name(port)
            )));
        };
        let answer_ok =
            got_status.is_some_and(|status| e.allowed.contains(&Lookup { status, addr }));
        if qpn == e.qpn && tag == e.tag && answer_ok {
            return Ok(());
        }
        Err(Mismatch::new(format!(
            "port {} request #{} (qpn {:#08x} tag {:#x}): expected {}, got {got}",
            self.port_name(port),
            e.number,
            e.qpn,
            e.tag,
            show_allowed(&e.allowed)
        )))
    }

    /// two_level in_memory: the memory the directory is read from has just changed (the model's
    /// copy already holds the new contents). The engine reads a lookup's directory entry some
    /// cycles after the request handshake, so a lookup outstanding now that passed the on-chip
    /// check may see the entry before or after the change; lookups accepted from now on see
    /// the new one (their read is issued after their request).
    pub fn memory_changed(&mut self) {
        for q in &mut self.queues {
            for e in q.iter_mut() {
                let passed = e.allowed.iter().any(|l| {
                    matches!(l.status, Status::Ok | Status::PageAbsent | Status::MemError)
                });
                if !passed {
                    continue;
                }
                let (index, _) = self.model.split_qpn(e.qpn);
                let new = match self.model.address(index) {
                    Ok(addr) => Lookup {
                        status: Status::Ok,
                        addr,
                    },
                    Err(status) => Lookup { status, addr: 0 },
                };
                if !e.allowed.contains(&new) {
                    e.allowed.push(new);
                }
            }
        }
    }

    /// The index the command in flight changes, if any.
    fn changing_index(&self) -> Option<u32> {
        self.window.as_ref()?.change.map(|c| c.index)
    }

    /// State in memory: the error ranges of the memory have just changed (the model's copy
    /// holds them). A lookup outstanding now may still read its block: it may answer
    /// MEM_ERROR if the new ranges cover its live block (it keeps what it was allowed).
    pub fn state_errors_changed(&mut self) {
        let changing = self.changing_index();
        for q in &mut self.queues {
            for e in q.iter_mut() {
                let mem_error = Lookup {
                    status: Status::MemError,
                    addr: 0,
                };
                if self.model.lookup_may_mem_error(e.qpn, changing)
                    && !e.allowed.contains(&mem_error)
                {
                    e.allowed.push(mem_error);
                }
            }
        }
    }

    /// State in memory: the commands whose outcome SPEC §9 leaves to the design (MEM_ERROR
    /// from a failing read, or what the state words in its cache give), by the outcome the
    /// engine took: `[the model's, MEM_ERROR]`.
    pub fn either_outcomes(&self) -> [u64; 2] {
        self.either
    }

    /// Requests not yet answered, all ports.
    pub fn outstanding(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// Whether a command is in flight (issued, its write response not yet seen).
    pub fn command_in_flight(&self) -> bool {
        self.window.as_ref().is_some_and(|w| !w.responded)
    }

    /// Requests accepted on `port`.
    pub fn requests(&self, port: usize) -> u64 {
        self.requests[port]
    }

    /// Responses taken on `port`.
    pub fn lookups(&self, port: usize) -> u64 {
        self.lookups[port]
    }

    /// Responses taken on `port` per status actually returned, indexed by [`Status`] value.
    pub fn status_counts(&self, port: usize) -> [u64; 6] {
        self.status_counts[port]
    }

    /// Every test ends here: nothing outstanding, no command in flight.
    pub fn check_idle(&self) -> Result<(), Mismatch> {
        if let Some(w) = &self.window {
            let what = if w.responded {
                "answered, its outcome (or MEM_ERROR) never read from CMD_RESULT,"
            } else {
                "still in flight"
            };
            return Err(Mismatch::new(format!(
                "command #{} {:?} {what} at the end",
                w.number, w.cmd
            )));
        }
        for (port, queue) in self.queues.iter().enumerate() {
            if let Some(e) = queue.front() {
                return Err(Mismatch::new(format!(
                    "port {}: {} request(s) unanswered at the end, the oldest #{} (qpn {:#08x})",
                    self.port_name(port),
                    queue.len(),
                    e.number,
                    e.qpn
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Default configuration: index_bits 14 (qpn = gen << 14 | index), entry_bytes 256,
    // ports tx (0) and rx (1), tag_bits 8, first_index 2.
    const QP: u32 = 1 << 14 | 2; // first ALLOC: index 2, generation 1
    const OK: u64 = Status::Ok as u64;
    const NOT_ALLOCATED: u64 = Status::NotAllocated as u64;
    const STALE: u64 = Status::Stale as u64;

    fn sb() -> Scoreboard {
        Scoreboard::new(&Config::default())
    }

    /// Issues and completes a command at once.
    fn cmd(s: &mut Scoreboard, c: Command) -> CmdResult {
        let r = s.command_issued(c);
        s.command_completed().unwrap();
        r
    }

    fn published() -> Scoreboard {
        let mut s = sb();
        assert_eq!(cmd(&mut s, Command::Alloc).qpn, QP);
        cmd(&mut s, Command::Publish(QP));
        s
    }

    /// State in memory (index_bits 8, first_index 2, released at once): QPN 0x102 published,
    /// an error range over its block, and a PUBLISH with the wrong generation issued and
    /// answered: BAD_STATE from the cache or MEM_ERROR from a failing read, not yet seen.
    fn open_outcome() -> (Scoreboard, u32) {
        let c = crate::configs::config(&[
            "state=in_memory",
            "index_bits=8",
            "first_index=2",
            "quarantine_cycles=0",
        ]);
        let mut s = Scoreboard::new(&c);
        let q = cmd(&mut s, Command::Alloc).qpn;
        assert_eq!(q, 0x102);
        cmd(&mut s, Command::Publish(q));
        let block = s.model.state_block_range(2);
        s.model.mem_add_error(block);
        s.request(0, q, 1);
        let wrong = 0x202;
        assert_eq!(
            s.command_issued(Command::Publish(wrong)).status,
            CmdStatus::BadState
        );
        s.command_completed().unwrap();
        assert!(!s.command_in_flight());
        (s, wrong)
    }

    fn result_word(status: CmdStatus, qpn: u32) -> u32 {
        CmdResult { status, qpn }.to_register()
    }

    #[test]
    fn an_outcome_spec_leaves_open_is_taken_from_cmd_result() {
        for status in [CmdStatus::MemError, CmdStatus::BadState] {
            let (mut s, wrong) = open_outcome();
            let errors = s.model.read_register(regs::CMD_ERROR).unwrap();
            // Until CMD_RESULT is read, both outcomes' registers are allowed.
            s.check_read(regs::CMD_ERROR, Ok(errors - 1)).unwrap();
            s.check_read(regs::CMD_ERROR, Ok(errors)).unwrap();
            s.check_read(regs::CMD_RESULT, Ok(result_word(status, wrong)))
                .unwrap();
            let [kept, mem_error] = s.either_outcomes();
            assert_eq!(
                (kept, mem_error),
                if status == CmdStatus::BadState {
                    (1, 0)
                } else {
                    (0, 1)
                }
            );
            // Then only the outcome taken: the counters as it left them.
            let after = if status == CmdStatus::BadState {
                errors
            } else {
                errors - 1
            };
            s.check_read(regs::CMD_ERROR, Ok(after)).unwrap();
            s.check_read(regs::CMD_ERROR, Ok(after ^ 1)).unwrap_err();
            s.response(0, 0x102, 1, Status::Ok as u64, s.model.lookup(0x102).addr)
                .unwrap();
            s.check_idle().unwrap();
        }
        // A word that is neither outcome is a mismatch (and the model keeps its own).
        let (mut s, wrong) = open_outcome();
        s.check_read(regs::CMD_RESULT, Ok(result_word(CmdStatus::Ok, wrong)))
            .unwrap_err();
        assert_eq!(s.either_outcomes(), [1, 0]);
    }

    #[test]
    fn an_outcome_never_read_is_reported_at_the_end() {
        let (mut s, _) = open_outcome();
        s.response(0, 0x102, 1, Status::Ok as u64, s.model.lookup(0x102).addr)
            .unwrap();
        let e = s.check_idle().unwrap_err();
        assert!(e.to_string().contains("never read from CMD_RESULT"), "{e}");
    }

    #[test]
    #[should_panic(expected = "read CMD_RESULT first")]
    fn a_command_before_the_open_outcome_is_seen_is_a_testbench_error() {
        let (mut s, _) = open_outcome();
        s.command_issued(Command::Alloc);
    }

    #[test]
    fn in_order_and_exact() {
        let mut s = published();
        s.request(0, QP, 1);
        s.request(0, 0x0005, 2);
        s.request(1, QP, 3);
        assert_eq!(s.outstanding(), 3);
        // rx answers on its own; tx must answer in order.
        s.response(1, QP, 3, OK, 512).unwrap();
        let e = s.response(0, 0x0005, 2, NOT_ALLOCATED, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "port tx request #0 (qpn 0x004002 tag 0x1): expected OK addr 0x200, \
             got qpn 0x000005 tag 0x2 NOT_ALLOCATED addr 0x0"
        );
        assert_eq!(s.outstanding(), 1);
        // The second one is popped next and is fine.
        s.response(0, 0x0005, 2, NOT_ALLOCATED, 0).unwrap();
        assert_eq!(s.outstanding(), 0);
        s.check_idle().unwrap();
    }

    #[test]
    fn every_field_is_checked() {
        let mut s = published();
        for _ in 0..5 {
            s.request(0, QP, 7);
        }
        s.response(0, QP, 7, OK, 512).unwrap();
        assert!(s.response(0, QP + 1, 7, OK, 512).is_err()); // qpn
        assert!(s.response(0, QP, 8, OK, 512).is_err()); // tag
        assert!(s.response(0, QP, 7, OK, 256).is_err()); // addr
        let e = s.response(0, QP, 7, 7, 512).unwrap_err(); // status
        assert!(e
            .to_string()
            .ends_with("got qpn 0x004002 tag 0x7 invalid status 7 addr 0x200"));
        // Not OK: addr must be 0.
        s.request(1, 0x8002, 0);
        let e = s.response(1, 0x8002, 0, STALE, 512).unwrap_err();
        assert!(e.to_string().contains("expected STALE addr 0x0"), "{e}");
        let e = s.response(1, 0, 0, OK, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "port rx: response (qpn 0x000000 tag 0x0 OK addr 0x0) with no request outstanding"
        );
    }

    #[test]
    fn tag_and_qpn_are_masked_at_the_request() {
        let mut s = published();
        s.request(0, 0x0100_0000 | QP, 0x1FF);
        s.response(0, QP, 0xFF, OK, 512).unwrap();
    }

    #[test]
    fn old_state_before_the_write_handshake() {
        let mut s = sb();
        let qp = cmd(&mut s, Command::Alloc).qpn;
        // Accepted before the PUBLISH write handshake: old state only, even if answered later.
        s.request(0, qp, 0);
        s.command_issued(Command::Publish(qp));
        s.command_completed().unwrap();
        let e = s.response(0, qp, 0, OK, 512).unwrap_err();
        assert!(
            e.to_string().contains("expected NOT_ALLOCATED addr 0x0"),
            "{e}"
        );
    }

    #[test]
    fn either_state_inside_the_window() {
        let mut s = sb();
        let qp = cmd(&mut s, Command::Alloc).qpn;
        s.command_issued(Command::Publish(qp));
        // Same edge as the write handshake and later: either state, in any combination.
        s.request(0, qp, 1);
        s.request(0, qp, 2);
        s.request(1, qp, 3);
        // Another index: one answer only.
        s.request(1, 0x4003, 4);
        s.response(0, qp, 1, OK, 512).unwrap();
        s.response(0, qp, 2, NOT_ALLOCATED, 0).unwrap();
        s.command_completed().unwrap();
        // PUBLISH has no drain: an unanswered request of the window may still see either.
        s.response(1, qp, 3, NOT_ALLOCATED, 0).unwrap();
        s.response(1, 0x4003, 4, NOT_ALLOCATED, 0).unwrap();
        // After the write response: the new state only.
        s.request(0, qp, 5);
        let e = s.response(0, qp, 5, NOT_ALLOCATED, 0).unwrap_err();
        assert!(e.to_string().contains("expected OK addr 0x200,"), "{e}");
        // Inside a window, the message shows both answers.
        s.command_issued(Command::Free(qp));
        s.request(1, qp, 6);
        let e = s.response(1, qp, 6, STALE, 0).unwrap_err();
        assert!(
            e.to_string()
                .contains("expected OK addr 0x200 or NOT_ALLOCATED addr 0x0, got"),
            "{e}"
        );
        s.command_completed().unwrap();
        s.check_idle().unwrap();
    }

    #[test]
    fn free_window_and_drain() {
        let mut s = published();
        // Accepted before the FREE write handshake, answered inside the window: fine.
        s.request(0, QP, 1);
        s.command_issued(Command::Free(QP));
        s.response(0, QP, 1, OK, 512).unwrap();
        // Inside the window: either; still unanswered at the write response: NOT_ALLOCATED.
        s.request(1, QP, 2);
        s.request(1, QP, 3);
        s.response(1, QP, 2, OK, 512).unwrap();
        s.command_completed().unwrap();
        let e = s.response(1, QP, 3, OK, 512).unwrap_err();
        assert!(
            e.to_string()
                .contains("expected NOT_ALLOCATED addr 0x0, got"),
            "{e}"
        );

        // A request accepted before the write handshake and unanswered at the write response.
        let mut s = published();
        s.request(1, 0x0007, 9); // any qpn
        s.command_issued(Command::Free(QP));
        let e = s.command_completed().unwrap_err();
        assert_eq!(
            e.to_string(),
            "drain violated: the write response of FREE 0x004002 (command #2, index 2) came \
             while port rx request #0 (qpn 0x000007), accepted before the CMD write, was still \
             unanswered"
        );

        // No drain for a FREE that fails.
        let mut s = published();
        s.request(1, 0x0007, 9);
        s.command_issued(Command::Free(QP + (1 << 14)));
        s.command_completed().unwrap();
        assert_eq!(s.outstanding(), 1);
        assert!(s.check_idle().is_err());
        s.response(1, 0x0007, 9, NOT_ALLOCATED, 0).unwrap();
        s.check_idle().unwrap();
    }

    #[test]
    fn outstanding_and_counts() {
        let mut s = published();
        assert_eq!(s.outstanding(), 0);
        for i in 0..4 {
            s.request(i % 2, QP, i as u64);
        }
        s.request(0, 0x3FFF, 0);
        assert_eq!(s.outstanding(), 5);
        assert_eq!((s.requests(0), s.requests(1)), (3, 2));
        s.response(0, QP, 0, OK, 512).unwrap();
        s.response(1, QP, 1, OK, 512).unwrap();
        s.response(0, QP, 2, OK, 512).unwrap();
        assert_eq!(s.outstanding(), 2);
        s.response(0, 0x3FFF, 0, NOT_ALLOCATED, 0).unwrap();
        s.response(1, QP, 3, OK, 512).unwrap();
        assert_eq!(s.outstanding(), 0);
        assert_eq!(s.lookups(0), 3);
        let counts = |ok, not_allocated| {
            let mut c = [0; 6];
            c[Status::Ok as usize] = ok;
            c[Status::NotAllocated as usize] = not_allocated;
            c
        };
        assert_eq!(s.status_counts(0), counts(2, 1));
        assert_eq!(s.status_counts(1), counts(2, 0));
        // The model's per-port counters count at the response handshake.
        let port_reg = regs::port_register;
        s.check_read(port_reg(0, regs::PORT_LOOKUPS), Ok(3))
            .unwrap();
        s.check_read(port_reg(0, regs::PORT_OK), Ok(2)).unwrap();
        s.check_read(port_reg(0, regs::PORT_NOT_ALLOCATED), Ok(1))
            .unwrap();
        s.check_read(port_reg(1, regs::PORT_LOOKUPS), Ok(2))
            .unwrap();
        // The message shows the address: port 1's OK counter is 0x124.
        let e = s.check_read(port_reg(1, regs::PORT_OK), Ok(1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "read of 0x124: expected 0x00000002, got 0x00000001"
        );
        s.check_idle().unwrap();
    }

    #[test]
    fn registers_inside_and_after_a_window() {
        let mut s = sb();
        let r = s.command_issued(Command::Alloc);
        // CMD_RESULT: status OK (0) in [31:28], the QPN in [23:0].
        let ok_qp = CmdStatus::Ok.as_u32() << regs::CMD_RESULT_STATUS_SHIFT | QP;
        assert_eq!(r.to_register(), ok_qp);
        // Busy with the previous result (0), or finished.
        s.check_cmd_result(regs::CMD_RESULT_BUSY).unwrap();
        s.check_cmd_result(ok_qp).unwrap();
        assert!(s.check_cmd_result(regs::CMD_RESULT_BUSY | ok_qp).is_err());
        let busy = regs::STATUS_INIT_DONE | regs::STATUS_CMD_BUSY;
        s.check_read(regs::STATUS, Ok(busy)).unwrap();
        s.check_read(regs::STATUS, Ok(regs::STATUS_INIT_DONE))
            .unwrap();
        s.check_read(regs::IN_USE, Ok(0)).unwrap();
        s.check_read(regs::IN_USE, Ok(1)).unwrap();
        s.check_read(regs::ALLOC_OK, Ok(1)).unwrap();
        assert!(s.check_read(regs::ALLOC_FULL, Ok(1)).is_err());
        s.command_completed().unwrap();
        let e = s.check_cmd_result(regs::CMD_RESULT_BUSY).unwrap_err();
        assert_eq!(
            e.to_string(),
            "after Alloc (0x10000000): read of 0x034: expected 0x00004002, got 0x08000000"
        );
        assert!(s.check_read(regs::STATUS, Ok(busy)).is_err());
        assert!(s.check_read(regs::IN_USE, Ok(0)).is_err());
        s.check_read(regs::CMD, Err(())).unwrap();
        assert!(s.check_read(regs::ID, Err(())).is_err());
        // TABLE_BASE is refused while a QP is in use.
        s.check_write(regs::TABLE_BASE_LO, 0x1000, 0xF, Err(()))
            .unwrap();
        let e = s
            .check_write(regs::TABLE_BASE_LO, 0x1000, 0xF, Ok(()))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "write of 0x00001000 (strb 0b1111) to 0x020: expected SLVERR, got OKAY"
        );
        cmd(&mut s, Command::Free(QP));
        s.check_write(regs::TABLE_BASE_LO, 0x1000, 0xF, Ok(()))
            .unwrap();
        s.check_read(regs::TABLE_BASE_LO, Ok(0x1000)).unwrap();
        s.check_idle().unwrap();
    }

    #[test]
    #[should_panic(expected = "is in flight")]
    fn one_command_at_a_time() {
        let mut s = sb();
        s.command_issued(Command::Alloc);
        s.command_issued(Command::Alloc);
    }
}
