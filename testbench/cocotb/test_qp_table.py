"""cocotb bench of the qptable QP-table lookup engine, written from the datasheet (docs/SPEC.md).

It drives the engine the way a NIC design does: the control port through cocotbext-axi's
AXI4-Lite master, the lookup ports as plain AXI ready/valid streams. Every test resets the
engine, waits for STATUS.INIT_DONE, then:

* test_registers: the read-only identification registers and an unmapped address (SLVERR);
* test_qp_lifecycle: ALLOC + PUBLISH, a lookup on every port (OK and the context address
  TABLE_BASE + index * ENTRY_BYTES), a stale generation (STALE), a never-allocated index
  (NOT_ALLOCATED), out of range when the configuration has such indexes, FREE, then
  NOT_ALLOCATED; the per-port and command counters;
* test_alloc_at: ALLOC_AT of QP1 (below FIRST_INDEX, never handed out by ALLOC) with a given
  generation, PUBLISH, lookups, a second ALLOC_AT of the same index (BAD_STATE), FREE;
* test_bad_commands: an unknown opcode (BAD_CMD), PUBLISH and FREE of a FREE index
  (BAD_STATE), a command on an out-of-range index (OUT_OF_RANGE).

The geometry (index bits, MAX_QPS, ENTRY_BYTES, FIRST_INDEX) is read from the engine's own
registers; the lookup port names come from the environment variable QPTABLE_PORTS (set by
run.py from the Verilog module header), so the same bench runs on any flat configuration, and
on a two-level one with the directory on chip (`QpTable.set_table_base` writes the directory
so that every context address is TABLE_BASE + index * ENTRY_BYTES, as in a flat table).

With the state in memory (SPEC section 9: the top has `m_axi_aw*`), `QpTable` serves the
memory master with cocotbext-axi's AxiRam as the library ships it, with random pauses on all
five channels and the state table's area full of junk before the reset, and checks that
every write lands inside [STATE_BASE, STATE_BASE + STATE_BYTES); these four tests then run
unchanged (STATE_BASE at its reset value 0), and test_state_mem.py adds its own.
"""

import logging
import os
import random
import warnings

import cocotb
from cocotb.clock import Clock
from cocotb.queue import Queue
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiRam, AxiResp

# cocotbext-axi 0.1.28 still uses APIs that cocotb 2 deprecates (Task.kill, Event.data): not
# ours to fix, and harmless.
warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"cocotbext\.")

# Register map (docs/SPEC.md section 6).
ID = 0x000
VERSION = 0x004
MAX_QPS = 0x008
ENTRY_BYTES = 0x00C
GEOMETRY = 0x010
STATUS = 0x014
FIRST_INDEX = 0x018
TABLE_BASE_LO = 0x020
TABLE_BASE_HI = 0x024
STATE_BASE_LO = 0x050  # state in memory (SPEC section 9)
STATE_BASE_HI = 0x054
STATE_BYTES = 0x058
CMD = 0x030
CMD_RESULT = 0x034
DIR_INDEX, DIR_ENTRY_LO, DIR_ENTRY_HI = 0x040, 0x044, 0x048  # two-level, directory on chip
PORT_BASE, PORT_STRIDE = 0x100, 0x20  # LOOKUPS, OK, OUT_OF_RANGE, NOT_ALLOCATED, STALE, ...
ALLOC_OK, ALLOC_FULL, FREE_OK, CMD_ERROR = 0x180, 0x184, 0x188, 0x18C
IN_USE = 0x194
QUARANTINED = 0x198

ID_VALUE = 0x51505431  # "QPT1"
STATUS_INIT_DONE = 1 << 0
CMD_RESULT_BUSY = 1 << 27

# Commands (CMD[31:28]) and their result statuses (CMD_RESULT[31:28]).
ALLOC, ALLOC_AT, PUBLISH, FREE = 1, 2, 3, 4
CMD_OK, CMD_FULL, CMD_OUT_OF_RANGE, CMD_BAD_STATE, CMD_BAD_CMD = 0, 1, 2, 3, 4

# Lookup statuses (m_<p>_rsp_status).
OK, OUT_OF_RANGE, NOT_ALLOCATED, STALE, PAGE_ABSENT = 0, 1, 2, 3, 4

CLOCK_NS = 4  # 250 MHz, the clock of a typical FPGA NIC core
TIMEOUT_NS = 200_000  # longest wait for one response, command or register access


class QpTable:
    """Handle of the engine under test: control port, lookup ports, geometry."""

    def __init__(self, dut):
        self.dut = dut
        self.ports = os.environ.get("QPTABLE_PORTS", "tx,rx").split(",")
        self.rng = random.Random(int(os.environ.get("COCOTB_RANDOM_SEED", "1")))
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        # cocotbext-axi logs every transfer at INFO; set QPTABLE_AXIL_LOG=1 to see them.
        if not os.environ.get("QPTABLE_AXIL_LOG"):
            self.axil.write_if.log.setLevel(logging.WARNING)
            self.axil.read_if.log.setLevel(logging.WARNING)
        self.responses = {p: Queue() for p in self.ports}
        # Every response beat taken, per port and status (checked against the counters).
        self.seen = {p: [0] * 8 for p in self.ports}
        self.mem = None
        if hasattr(dut, "m_axi_awvalid"):
            self._attach_memory()
        cocotb.start_soon(Clock(dut.clk, CLOCK_NS, unit="ns").start())
        for p in self.ports:
            self.sig(p, "s", "req_valid").value = 0
            self.sig(p, "s", "req_qpn").value = 0
            self.sig(p, "s", "req_tag").value = 0
            self.sig(p, "m", "rsp_ready").value = 0
            cocotb.start_soon(self._collect(p))

    def sig(self, port, side, name):
        return getattr(self.dut, f"{side}_{port}_{name}")

    # --- The memory of the state in memory (SPEC section 9) ---------------------------------

    def _attach_memory(self):
        """The memory master `m_axi_*` (state in memory) is served by cocotbext-axi's AxiRam as
        the library ships it: R and B payloads X while their valid is low, random pauses on
        all five channels (seeded from the bench's seed). `_watch_memory` checks every write
        and counts the reads."""
        dut = self.dut
        # A sparse memory over the address space (at most 2^62 bytes: Python's len() limit;
        # the tests' areas lie far below).
        size = 2 ** min(len(dut.m_axi_awaddr), 62)
        self.mem = AxiRam(AxiBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=size)
        if not os.environ.get("QPTABLE_AXI_LOG"):
            self.mem.write_if.log.setLevel(logging.WARNING)
            self.mem.read_if.log.setLevel(logging.WARNING)
        seed = int(os.environ.get("COCOTB_RANDOM_SEED", "1"))
        channels = (
            self.mem.write_if.aw_channel, self.mem.write_if.w_channel, self.mem.write_if.b_channel,
            self.mem.read_if.ar_channel, self.mem.read_if.r_channel,
        )
        for k, channel in enumerate(channels):
            rng = random.Random(seed * 16 + k)
            channel.set_pause_generator(_pauses(rng, rng.choice((0.2, 0.4, 0.6))))
        self.junk_rng = random.Random(seed * 16 + 15)
        # Where junk goes before the first reset: STATE_BASE's reset value 0, and whatever a
        # test adds (the areas it moves STATE_BASE to).
        self.junk_bases = [0]
        self.junk_done = False
        self.state_base = 0
        self.state_bytes = None
        self.ar_log = []  # (araddr, arlen, arsize, arid) of every AR handshake
        self.aw_log = []  # (awaddr, awlen, awsize) of every AW handshake
        self.r_last = self.w_beats = self.b_count = 0
        self.mem_errors = []
        cocotb.start_soon(self._watch_memory())

    async def _watch_memory(self):
        """Watches the memory bus at every rising edge: every AW burst must lie inside
        [STATE_BASE, STATE_BASE + STATE_BYTES) of the table in use (SPEC section 9), and so
        must every read while the directory is not in memory (the engine has nothing else to
        read); counts AR, R last, AW, W and B handshakes."""
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            if d.rst.value == 1 or self.state_bytes is None:
                continue
            if d.m_axi_arvalid.value == 1 and d.m_axi_arready.value == 1:
                ar = (int(d.m_axi_araddr.value), int(d.m_axi_arlen.value),
                      int(d.m_axi_arsize.value), int(d.m_axi_arid.value))
                self.ar_log.append(ar)
                if self.directory_mode != 2:
                    self._check_range("read", ar[0], (ar[1] + 1) << ar[2])
            if d.m_axi_rvalid.value == 1 and d.m_axi_rready.value == 1 and d.m_axi_rlast.value == 1:
                self.r_last += 1
            if d.m_axi_awvalid.value == 1 and d.m_axi_awready.value == 1:
                aw = (int(d.m_axi_awaddr.value), int(d.m_axi_awlen.value),
                      int(d.m_axi_awsize.value))
                self.aw_log.append(aw)
                self._check_range("write", aw[0], (aw[1] + 1) << aw[2])
            if d.m_axi_wvalid.value == 1 and d.m_axi_wready.value == 1:
                self.w_beats += 1
            if d.m_axi_bvalid.value == 1 and d.m_axi_bready.value == 1:
                self.b_count += 1

    def _check_range(self, what, addr, length):
        lo, hi = self.state_base, self.state_base + self.state_bytes
        if not (lo <= addr and addr + length <= hi):
            msg = (f"memory {what} of {length} bytes at {addr:#x} outside the state table "
                   f"[{lo:#x}, {hi:#x})")
            self.mem_errors.append(msg)
            raise AssertionError(msg)

    def fill_junk(self, base):
        """Seeded random junk over the state table's area at `base` (what a memory holds at
        power-up: never zeros)."""
        self.mem.write(base, self.junk_rng.randbytes(self.state_bytes))

    def memory_busy(self):
        """Reads or writes in flight on the memory bus."""
        writes = sum(aw[1] + 1 for aw in self.aw_log)
        return (len(self.ar_log) != self.r_last or len(self.aw_log) != self.b_count
                or writes != self.w_beats)

    async def memory_quiet(self, cycles=2000):
        """Waits until no read or write is in flight on the memory bus."""
        for _ in range(cycles):
            if not self.memory_busy():
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(
            f"memory bus still busy after {cycles} cycles: {len(self.ar_log)} AR / "
            f"{self.r_last} R last, {len(self.aw_log)} AW / {self.w_beats} W / {self.b_count} B"
        )

    def check_memory(self):
        assert not self.mem_errors, "; ".join(self.mem_errors[:4])

    async def set_state_base(self, base, expect=AxiResp.OKAY):
        """Writes STATE_BASE (LO, then HI); on OKAY the bench checks the engine's writes
        against the new area from then on."""
        await self.write(STATE_BASE_LO, base & 0xFFFF_FFFF, expect)
        await self.write(STATE_BASE_HI, base >> 32, expect)
        if expect == AxiResp.OKAY:
            self.state_base = base

    async def _collect(self, port):
        """Response sink of one port: random backpressure, every beat queued."""
        valid, ready = self.sig(port, "m", "rsp_valid"), self.sig(port, "m", "rsp_ready")
        while True:
            ready.value = int(self.rng.random() < 0.7)
            await RisingEdge(self.dut.clk)
            # Values read right after the edge are the ones the edge sampled.
            if ready.value == 1 and valid.value == 1:
                beat = {
                    f: int(self.sig(port, "m", f"rsp_{f}").value)
                    for f in ("qpn", "tag", "status", "addr")
                }
                self.seen[port][beat["status"]] += 1
                self.responses[port].put_nowait(beat)

    async def reset(self):
        """Synchronous reset for 4 cycles, then waits for STATUS.INIT_DONE and reads the
        geometry registers. With the state in memory, the first reset is done twice: the
        first one to read STATE_BYTES, then the areas of `junk_bases` are filled with junk,
        so that the engine starts from the second one over a memory full of junk."""
        if self.mem is not None and not self.junk_done:
            self.dut.rst.value = 1
            await ClockCycles(self.dut.clk, 4)
            self.dut.rst.value = 0
            self.state_bytes = await self.read(STATE_BYTES)
            for base in self.junk_bases:
                self.fill_junk(base)
            self.junk_done = True
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        for _ in range(1000):
            if await self.read(STATUS) & STATUS_INIT_DONE:
                break
            # The init sweep clears one word of state per cycle: poll now and then.
            await ClockCycles(self.dut.clk, 64)
        else:
            raise AssertionError("STATUS.INIT_DONE never rose")
        self.index_bits = await self.read(GEOMETRY) & 0x1F
        self.max_qps = await self.read(MAX_QPS)
        self.entry_bytes = await self.read(ENTRY_BYTES)
        self.first_index = await self.read(FIRST_INDEX)
        geometry = await self.read(GEOMETRY)
        self.leaf_bits = (geometry >> 5) & 0x1F
        self.directory_mode = (geometry >> 10) & 3
        self.reuse_lowest = bool(geometry >> 15 & 1)
        if self.mem is not None:
            self.state_base = 0
            self.state_bytes = await self.read(STATE_BYTES)
            assert self.state_bytes > 0, "STATE_BYTES reads 0 with the state in memory"
        self.dut._log.info(
            "engine: index_bits %d, max_qps %d, entry_bytes %d, first_index %d, ports %s",
            self.index_bits, self.max_qps, self.entry_bytes, self.first_index, self.ports,
        )

    async def read(self, addr, expect=AxiResp.OKAY):
        r = await with_timeout(self.axil.read(addr, 4), TIMEOUT_NS, "ns")
        assert r.resp == expect, f"read of {addr:#05x}: {r.resp!r}, expected {expect!r}"
        return int.from_bytes(r.data, "little")

    async def write(self, addr, value, expect=AxiResp.OKAY):
        r = await with_timeout(self.axil.write(addr, value.to_bytes(4, "little")), TIMEOUT_NS, "ns")
        assert r.resp == expect, f"write of {addr:#05x}: {r.resp!r}, expected {expect!r}"

    async def set_table_base(self, base, absent=()):
        """Writes TABLE_BASE; with a two-level table whose directory is on chip, also writes
        the directory through DIR_*: page p at base + (p << leaf_bits) * ENTRY_BYTES, so that
        every context address is TABLE_BASE + index * ENTRY_BYTES as in a flat table, and
        the pages of `absent` not present (PAGE_ABSENT). `base` must be 64-byte aligned."""
        await self.write(TABLE_BASE_LO, base & 0xFFFF_FFFF)
        await self.write(TABLE_BASE_HI, base >> 32)
        if self.directory_mode == 1:
            pages = (self.max_qps + (1 << self.leaf_bits) - 1) >> self.leaf_bits
            for page in range(pages):
                entry = 0 if page in absent else (
                    (base + (page << self.leaf_bits) * self.entry_bytes) % 2**64 | 1)
                await self.write(DIR_INDEX, page)
                await self.write(DIR_ENTRY_LO, entry & 0xFFFF_FFFF)
                await self.write(DIR_ENTRY_HI, entry >> 32)

    async def command(self, op, qpn=0):
        """Writes CMD (the write response comes when the command is done) and returns
        (status, qpn) from CMD_RESULT."""
        await self.write(CMD, (op << 28) | qpn)
        result = await self.read(CMD_RESULT)
        assert not result & CMD_RESULT_BUSY, "CMD_RESULT busy after the CMD write response"
        return result >> 28, result & 0xFFFFFF

    async def lookup(self, port, qpn):
        """One lookup on `port`: sends the request (valid held until ready), returns the
        response (status, addr), checking that qpn and tag come back."""
        tag_sig = self.sig(port, "s", "req_tag")
        tag = self.rng.getrandbits(len(tag_sig))
        valid, ready = self.sig(port, "s", "req_valid"), self.sig(port, "s", "req_ready")
        valid.value, self.sig(port, "s", "req_qpn").value, tag_sig.value = 1, qpn, tag
        while True:
            await RisingEdge(self.dut.clk)
            if ready.value == 1:
                break
        valid.value = 0
        rsp = await with_timeout(self.responses[port].get(), TIMEOUT_NS, "ns")
        assert (rsp["qpn"], rsp["tag"]) == (qpn, tag), f"{port}: response {rsp} to {qpn:#x}"
        return rsp["status"], rsp["addr"]

    async def lookup_all(self, qpn):
        """The same QPN looked up on every port at once; returns the responses."""
        tasks = [cocotb.start_soon(self.lookup(p, qpn)) for p in self.ports]
        return [await t for t in tasks]

    def qpn(self, generation, index):
        return ((generation << self.index_bits) | index) & 0xFFFFFF

    def gen_bits(self):
        return 24 - self.index_bits

    async def counter(self, port, status=None):
        """LOOKUPS of `port`, or its counter of `status`."""
        offset = 0 if status is None else 4 + 4 * status
        return await self.read(PORT_BASE + PORT_STRIDE * self.ports.index(port) + offset)


def _pauses(rng, p):
    """Pause generator of a cocotbext-axi channel: paused with probability p each cycle."""
    while True:
        yield rng.random() < p


async def start(dut):
    tb = QpTable(dut)
    await tb.reset()
    return tb


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def test_registers(dut):
    tb = await start(dut)
    assert await tb.read(ID) == ID_VALUE
    dut._log.info("VERSION %#010x", await tb.read(VERSION))
    geometry = await tb.read(GEOMETRY)
    assert (geometry >> 12) & 7 == len(tb.ports), f"GEOMETRY {geometry:#x}: port count"
    assert 1 <= tb.max_qps <= 1 << tb.index_bits
    assert tb.entry_bytes % 32 == 0
    # Unmapped and read-only addresses answer SLVERR.
    await tb.read(0x0FC, expect=AxiResp.SLVERR)
    await tb.write(ID, 0, expect=AxiResp.SLVERR)
    # TABLE_BASE is read-write (bits [63:0] as far as addr_bits holds).
    await tb.write(TABLE_BASE_LO, 0x1234_5600)
    assert await tb.read(TABLE_BASE_LO) == 0x1234_5600


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def test_qp_lifecycle(dut):
    tb = await start(dut)
    base = 0x8000_0000
    await tb.set_table_base(base)

    # Create a QP: ALLOC reserves an index and hands out its QPN, PUBLISH makes it valid.
    status, qpn = await tb.command(ALLOC)
    assert status == CMD_OK, f"ALLOC: status {status}"
    index, generation = qpn & ((1 << tb.index_bits) - 1), qpn >> tb.index_bits
    assert index >= tb.first_index and index < tb.max_qps
    dut._log.info("ALLOC: QPN %#08x (index %d, generation %d)", qpn, index, generation)
    # Reserved, not yet published: NOT_ALLOCATED.
    for status, addr in await tb.lookup_all(qpn):
        assert (status, addr) == (NOT_ALLOCATED, 0)
    assert await tb.command(PUBLISH, qpn) == (CMD_OK, qpn)

    # Looked up on every port: OK and the context address.
    expected = base + index * tb.entry_bytes
    for status, addr in await tb.lookup_all(qpn):
        assert (status, addr) == (OK, expected), f"got {status}, {addr:#x}"
    # Back-to-back lookups with the request streams kept busy.
    for p in tb.ports:
        results = [await tb.lookup(p, qpn) for _ in range(8)]
        assert results == [(OK, expected)] * 8

    # The same index with another generation: STALE (not when there are no generation bits).
    if tb.gen_bits() > 0:
        stale = tb.qpn(generation + 1, index)
        for status, addr in await tb.lookup_all(stale):
            assert (status, addr) == (STALE, 0)
    # An index never allocated: NOT_ALLOCATED, whatever the generation.
    never = tb.first_index if index != tb.first_index else tb.first_index + 1
    for status, addr in await tb.lookup_all(tb.qpn(1, never)):
        assert (status, addr) == (NOT_ALLOCATED, 0)
    # Out of range, where the configuration has such indexes.
    if tb.max_qps < 1 << tb.index_bits:
        for status, addr in await tb.lookup_all(tb.qpn(1, tb.max_qps)):
            assert (status, addr) == (OUT_OF_RANGE, 0)

    # Free it: later lookups answer NOT_ALLOCATED.
    assert await tb.command(FREE, qpn) == (CMD_OK, qpn)
    for status, addr in await tb.lookup_all(qpn):
        assert (status, addr) == (NOT_ALLOCATED, 0)

    # Counters (per port: 1 + 1 + 8 + 1 + 1 + [1] + 1 lookups).
    out_of_range = int(tb.max_qps < 1 << tb.index_bits)
    stale = int(tb.gen_bits() > 0)
    for p in tb.ports:
        assert await tb.counter(p, OK) == 9
        assert await tb.counter(p, NOT_ALLOCATED) == 3
        assert await tb.counter(p, STALE) == stale
        assert await tb.counter(p, OUT_OF_RANGE) == out_of_range
        assert await tb.counter(p) == 12 + stale + out_of_range
    assert await tb.read(ALLOC_OK) == 1
    assert await tb.read(FREE_OK) == 1
    assert await tb.read(IN_USE) == 0
    assert await tb.read(CMD_ERROR) == 0


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def test_alloc_at(dut):
    tb = await start(dut)
    await tb.set_table_base(0x40_0000)
    # QP1 is special: ALLOC never hands it out, ALLOC_AT creates it with the generation given.
    generation = 5 & ((1 << tb.gen_bits()) - 1)
    qp1 = tb.qpn(generation, 1)
    assert await tb.command(ALLOC_AT, qp1) == (CMD_OK, qp1)
    assert await tb.command(PUBLISH, qp1) == (CMD_OK, qp1)
    for status, addr in await tb.lookup_all(qp1):
        assert (status, addr) == (OK, 0x40_0000 + 1 * tb.entry_bytes)
    # The index is in use: a second ALLOC_AT fails and changes nothing.
    assert (await tb.command(ALLOC_AT, tb.qpn(generation + 1, 1)))[0] == CMD_BAD_STATE
    for status, _ in await tb.lookup_all(qp1):
        assert status == OK
    assert await tb.command(FREE, qp1) == (CMD_OK, qp1)
    for status, addr in await tb.lookup_all(qp1):
        assert (status, addr) == (NOT_ALLOCATED, 0)
    assert await tb.read(ALLOC_OK) == 1
    assert await tb.read(CMD_ERROR) == 1


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def test_bad_commands(dut):
    tb = await start(dut)
    free_qpn = tb.qpn(1, tb.first_index)
    assert (await tb.command(0, free_qpn))[0] == CMD_BAD_CMD
    assert (await tb.command(15, free_qpn))[0] == CMD_BAD_CMD
    assert (await tb.command(PUBLISH, free_qpn))[0] == CMD_BAD_STATE
    assert (await tb.command(FREE, free_qpn))[0] == CMD_BAD_STATE
    errors = 4
    if tb.max_qps < 1 << tb.index_bits:
        assert (await tb.command(ALLOC_AT, tb.qpn(1, tb.max_qps)))[0] == CMD_OUT_OF_RANGE
        errors += 1
    assert await tb.read(CMD_ERROR) == errors
    assert await tb.read(ALLOC_OK) == 0
    assert await tb.read(IN_USE) == 0
