"""cocotb bench of the state in memory (docs/SPEC.md section 9), written from the datasheet.

run.py runs it, after test_qp_table.py, on every Verilog file whose top has `m_axi_awvalid`
(`state = in_memory`). The engine's memory master is served by cocotbext-axi's `AxiRam`
exactly as the library ships it (`QpTable._attach_memory`): the R and B payloads are X while
their valid is low, all five channels pause at random (seeded from the bench's seed), and
the state table's areas are filled with seeded junk before the reset, so the engine must
never trust a block it did not write (lazy initialisation). Every write the engine makes
must land inside [STATE_BASE, STATE_BASE + STATE_BYTES) of the table in use, and so must
every read while the directory is not in memory (`QpTable._watch_memory`).

* test_lazy_init_fail_fast: after reset, lookups of unallocated QPNs answer NOT_ALLOCATED
  with no memory read; a QP in one block leaves the lookups of every other block without a
  memory read too;
* test_state_lifecycle: STATE_BASE set, ALLOC, PUBLISH, lookups OK at the right address,
  FREE, NOT_ALLOCATED; ALLOC_AT; the memory writes of each command;
* test_state_base_move: QPs in several blocks; STATE_BASE and TABLE_BASE writes while
  IN_USE != 0 answer SLVERR and change nothing; all freed, STATE_BASE moved to a fresh area
  full of junk; every index of the old blocks then answers NOT_ALLOCATED but the one
  re-created, and ALLOC_AT / ALLOC of free indexes succeed;
* test_random_mix: a seeded random mix of commands and lookup bursts on every port (random
  request gaps, random response backpressure), some bursts concurrent with the command,
  checked against `Model` (SPEC sections 2, 4 and 6); it ends with nothing outstanding and the
  counters equal to what was seen.
"""

import copy
import os

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.axi import AxiResp

from test_qp_table import (
    ALLOC,
    ALLOC_AT,
    ALLOC_FULL,
    ALLOC_OK,
    CMD_BAD_CMD,
    CMD_BAD_STATE,
    CMD_ERROR,
    CMD_FULL,
    CMD_OK,
    CMD_OUT_OF_RANGE,
    FREE,
    FREE_OK,
    IN_USE,
    NOT_ALLOCATED,
    OK,
    OUT_OF_RANGE,
    PAGE_ABSENT,
    PUBLISH,
    QUARANTINED,
    STALE,
    STATE_BASE_HI,
    STATE_BASE_LO,
    STATUS,
    TABLE_BASE_HI,
    TABLE_BASE_LO,
    TIMEOUT_NS,
    QpTable,
)

# The state tables' areas of these tests (4 KiB aligned: a state table is aligned to its
# block size in bytes) and the context table's base.
AREA_A = 0x0001_2340_0000
AREA_B = 0x0000_8000_0000
TABLE_BASE = 0x0002_0000_0000
STATUS_CMD_BUSY = 1 << 1
DIR_FLUSH = 5  # SPEC 6: OK everywhere, a no-op where no directory entry is cached

FREE_, RESERVED, VALID = "FREE", "RESERVED", "VALID"


class Model:
    """The engine as SPEC sections 2, 4 and 6 describe it (flat, quarantine off): per index a
    state and a generation, the allocator's reuse policy, the lookup checks in their order."""

    def __init__(self, tb, table_base, absent=()):
        self.index_bits, self.max_qps = tb.index_bits, tb.max_qps
        self.first_index, self.entry_bytes = tb.first_index, tb.entry_bytes
        self.lowest = tb.reuse_lowest
        self.gen_mask = (1 << (24 - tb.index_bits)) - 1
        self.table_base = table_base
        # Two-level, directory on chip: the pages `QpTable.set_table_base` left absent.
        self.leaf_bits = tb.leaf_bits if tb.directory_mode == 1 else None
        self.absent = set(absent)
        self.state = [FREE_] * tb.max_qps
        self.gen = [0] * tb.max_qps
        self.last_alloc = None  # the index the last ALLOC handed out

    def split(self, qpn):
        return qpn & ((1 << self.index_bits) - 1), qpn >> self.index_bits

    def qpn(self, gen, index):
        return ((gen & self.gen_mask) << self.index_bits) | index

    def in_use(self):
        return sum(s != FREE_ for s in self.state)

    def lookup(self, qpn):
        index, gen = self.split(qpn)
        if index >= self.max_qps:
            return OUT_OF_RANGE, 0
        if self.state[index] != VALID:
            return NOT_ALLOCATED, 0
        if self.gen[index] != gen:
            return STALE, 0
        if self.leaf_bits is not None and index >> self.leaf_bits in self.absent:
            return PAGE_ABSENT, 0
        return OK, (self.table_base + index * self.entry_bytes) % 2**64

    def alloc_order(self):
        """The indexes ALLOC would try, in order."""
        span = list(range(self.first_index, self.max_qps))
        if self.lowest or self.last_alloc is None:
            return span
        k = span.index(self.last_alloc) + 1 if self.last_alloc in span else 0
        return span[k:] + span[:k]

    def command(self, op, qpn=0):
        """Applies a command; returns (status, qpn) as CMD_RESULT shows it."""
        index, gen = self.split(qpn)
        if op == ALLOC:
            for i in self.alloc_order():
                if self.state[i] == FREE_:
                    self.gen[i] = (self.gen[i] + 1) & self.gen_mask
                    self.state[i] = RESERVED
                    self.last_alloc = i
                    return CMD_OK, self.qpn(self.gen[i], i)
            return CMD_FULL, 0
        if op == DIR_FLUSH:
            return CMD_OK, qpn  # a no-op where no directory entry is cached
        if op not in (ALLOC_AT, PUBLISH, FREE):
            return CMD_BAD_CMD, qpn
        if index >= self.max_qps:
            return CMD_OUT_OF_RANGE, qpn
        if op == ALLOC_AT:
            if self.state[index] != FREE_:
                return CMD_BAD_STATE, qpn
            self.state[index], self.gen[index] = RESERVED, gen
        elif op == PUBLISH:
            if self.state[index] != RESERVED or self.gen[index] != gen:
                return CMD_BAD_STATE, qpn
            self.state[index] = VALID
        else:
            if self.state[index] == FREE_ or self.gen[index] != gen:
                return CMD_BAD_STATE, qpn
            self.state[index] = FREE_
        return CMD_OK, qpn


async def start(dut, junk_bases=()):
    """A QpTable over a memory full of junk at STATE_BASE's reset value and at each of
    `junk_bases`, reset."""
    tb = QpTable(dut)
    assert tb.mem is not None, "test_state_mem needs a top with the state in memory (m_axi_aw*)"
    tb.junk_bases += list(junk_bases)
    await tb.reset()
    return tb


async def stream_lookups(tb, port, qpns, idle=0.3):
    """Sends the lookups of `qpns` on `port` back to back (a random gap of idle cycles
    before each, valid held until ready), then returns their responses (status, addr), in
    order, checking that each carries its request's qpn and tag."""
    valid, ready = tb.sig(port, "s", "req_valid"), tb.sig(port, "s", "req_ready")
    qpn_sig, tag_sig = tb.sig(port, "s", "req_qpn"), tb.sig(port, "s", "req_tag")
    sent = []
    for qpn in qpns:
        while tb.rng.random() < idle:
            valid.value = 0
            await RisingEdge(tb.dut.clk)
        tag = tb.rng.getrandbits(len(tag_sig))
        valid.value, qpn_sig.value, tag_sig.value = 1, qpn, tag
        while True:
            await RisingEdge(tb.dut.clk)
            if ready.value == 1:
                break
        sent.append((qpn, tag))
    valid.value = 0
    results = []
    for qpn, tag in sent:
        rsp = await with_timeout(tb.responses[port].get(), TIMEOUT_NS, "ns")
        assert (rsp["qpn"], rsp["tag"]) == (qpn, tag), f"{port}: response {rsp} to {qpn:#x}"
        results.append((rsp["status"], rsp["addr"]))
    return results


async def lookups_all_ports(tb, per_port):
    """`per_port[p]` looked up on port p, every port at once; returns the responses per port."""
    tasks = {p: cocotb.start_soon(stream_lookups(tb, p, per_port[p])) for p in tb.ports}
    return {p: await tasks[p] for p in tb.ports}


async def expect_lookups(tb, model, qpns, what):
    """Each of `qpns` looked up on every port; each answer must be the model's."""
    got = await lookups_all_ports(tb, {p: list(qpns) for p in tb.ports})
    for p in tb.ports:
        for qpn, answer in zip(qpns, got[p]):
            want = model.lookup(qpn)
            assert answer == want, (
                f"{what}: {p} lookup of {qpn:#08x} (index {model.split(qpn)[0]}) answered "
                f"(status {answer[0]}, addr {answer[1]:#x}), SPEC says (status {want[0]}, "
                f"addr {want[1]:#x})"
            )


async def command(tb, model, op, qpn=0, what=""):
    """A command on the engine and on the model: the results must agree."""
    want = model.command(op, qpn)
    got = await tb.command(op, qpn)
    assert got == want, f"{what}: command {op} {qpn:#08x}: engine {got}, SPEC says {want}"
    count_command(tb, op, got[0])
    return got


def count_command(tb, op, status):
    """The command counters as SPEC 6 defines them (checked by `finish`)."""
    counts = tb.__dict__.setdefault("cmd_counts", {ALLOC_OK: 0, ALLOC_FULL: 0, FREE_OK: 0, CMD_ERROR: 0})
    if status == CMD_OK and op in (ALLOC, ALLOC_AT):
        counts[ALLOC_OK] += 1
    elif status == CMD_OK and op == FREE:
        counts[FREE_OK] += 1
    elif status == CMD_FULL:
        counts[ALLOC_FULL] += 1
    elif status in (CMD_OUT_OF_RANGE, CMD_BAD_STATE, CMD_BAD_CMD):
        counts[CMD_ERROR] += 1


async def finish(tb, model):
    """Nothing outstanding: no response beat, no memory access in flight, no command busy;
    IN_USE as the model counts it; every port's counters equal to the beats seen."""
    await ClockCycles(tb.dut.clk, 50)
    await tb.memory_quiet()
    for p in tb.ports:
        assert tb.responses[p].empty(), f"{p}: a response nobody asked for"
        assert tb.sig(p, "m", "rsp_valid").value == 0, f"{p}: rsp_valid high with nothing asked"
        counted = [await tb.counter(p, s) for s in range(6)]
        assert counted == tb.seen[p][:6], f"{p}: counters {counted}, responses seen {tb.seen[p][:6]}"
        assert await tb.counter(p) == sum(tb.seen[p])
    assert not await tb.read(STATUS) & STATUS_CMD_BUSY
    assert await tb.read(IN_USE) == model.in_use()
    assert await tb.read(QUARANTINED) == 0
    for reg, want in getattr(tb, "cmd_counts", {}).items():
        assert await tb.read(reg) == want, f"counter {reg:#05x}: {await tb.read(reg)}, expected {want}"
    tb.check_memory()


def index_qpns(model, index, gens):
    return [model.qpn(g, index) for g in gens]


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def test_lazy_init_fail_fast(dut):
    tb = await start(dut, [AREA_A])
    await tb.set_state_base(AREA_A)
    await tb.set_table_base(TABLE_BASE)
    model = Model(tb, TABLE_BASE)
    # After reset nothing is allocated: every index of the table, with generations 0, 1 and
    # a random one, answers NOT_ALLOCATED (or OUT_OF_RANGE) with no memory read at all.
    qpns = [model.qpn(g, i) for i in range(1 << tb.index_bits)
            for g in (0, 1, tb.rng.getrandbits(16))]
    tb.rng.shuffle(qpns)
    await expect_lookups(tb, model, qpns, "after reset")
    assert tb.ar_log == [], f"memory reads for lookups of a table never written: {tb.ar_log[:4]}"
    assert tb.aw_log == [], "memory writes with no command"

    # One QP: only its block may be read; every other index of the table still fails fast.
    index = tb.first_index + tb.rng.randrange(tb.max_qps - tb.first_index)
    qp = model.qpn(7, index)
    await command(tb, model, ALLOC_AT, qp, "ALLOC_AT")
    await command(tb, model, PUBLISH, qp, "PUBLISH")
    await expect_lookups(tb, model, [qp] * 4, "the one QP")
    await tb.memory_quiet()
    reads = len(tb.ar_log)
    block_bits = block_bits_of(tb)
    others = [model.qpn(g, i) for i in range(1 << tb.index_bits) if i >> block_bits != index >> block_bits
              for g in (0, 7)]
    tb.rng.shuffle(others)
    await expect_lookups(tb, model, others, "other blocks")
    assert len(tb.ar_log) == reads, (
        f"{len(tb.ar_log) - reads} memory reads for lookups of blocks holding no QP "
        f"(SPEC 9: answered NOT_ALLOCATED with no memory access): {tb.ar_log[reads:reads + 4]}"
    )
    # The other indexes of its block: NOT_ALLOCATED (a read is allowed there).
    same = [model.qpn(g, i) for i in block_of(index, block_bits, tb.max_qps) for g in (0, 7)]
    await expect_lookups(tb, model, same, "its block")
    await command(tb, model, FREE, qp, "FREE")
    await expect_lookups(tb, model, [qp], "after FREE")
    await finish(tb, model)


def block_bits_of(tb):
    """block_bits (SPEC 3): no register holds it, so run.py passes the generator's parameter
    from the Verilog file's header (`QPTABLE_BLOCK_BITS`)."""
    bits = os.environ.get("QPTABLE_BLOCK_BITS")
    assert bits is not None, "QPTABLE_BLOCK_BITS not set (run.py sets it from the Verilog header)"
    return int(bits)


def block_of(index, block_bits, max_qps):
    lo = index >> block_bits << block_bits
    return [i for i in range(lo, lo + (1 << block_bits)) if i < max_qps]


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def test_state_lifecycle(dut):
    tb = await start(dut, [AREA_A])
    await tb.set_state_base(AREA_A)
    assert (await tb.read(STATE_BASE_LO), await tb.read(STATE_BASE_HI)) == (
        AREA_A & 0xFFFF_FFFF, AREA_A >> 32)
    await tb.set_table_base(TABLE_BASE)
    model = Model(tb, TABLE_BASE)

    status, qpn = await command(tb, model, ALLOC, 0, "ALLOC")
    assert status == CMD_OK
    writes = len(tb.aw_log)
    assert writes >= 1, "ALLOC made no memory write (SPEC 9: write-through)"
    await expect_lookups(tb, model, [qpn], "RESERVED")
    await command(tb, model, PUBLISH, qpn, "PUBLISH")
    assert len(tb.aw_log) > writes, "PUBLISH made no memory write (SPEC 9: write-through)"
    index, gen = model.split(qpn)
    await expect_lookups(tb, model, [qpn] * 6 + [model.qpn(gen + 1, index)], "VALID")
    # More QPs, by ALLOC and ALLOC_AT (QP1 and an index far from the first).
    qps = [qpn]
    for _ in range(5):
        status, q = await command(tb, model, ALLOC, 0, "ALLOC")
        qps.append(q)
    qp1 = model.qpn(3, 1)
    far = model.qpn(9, tb.max_qps - 1)
    for q in (qp1, far):
        await command(tb, model, ALLOC_AT, q, "ALLOC_AT")
        qps.append(q)
    await command(tb, model, ALLOC_AT, model.qpn(4, 1), "ALLOC_AT of a RESERVED index")
    for q in qps:
        await command(tb, model, PUBLISH, q, "PUBLISH")
    probe = qps + [model.qpn(model.split(q)[1] + 1, model.split(q)[0]) for q in qps]
    tb.rng.shuffle(probe)
    await expect_lookups(tb, model, probe, "live QPs")
    for q in qps:
        await command(tb, model, FREE, q, "FREE")
        await expect_lookups(tb, model, [q], "after FREE")
    await command(tb, model, FREE, qpn, "FREE of a FREE index")
    await expect_lookups(tb, model, probe, "all freed")
    # ALLOC_AT of a RESERVED index, PUBLISH of the VALID first QP, FREE of a FREE index.
    assert await tb.read(CMD_ERROR) == 3
    assert await tb.read(ALLOC_OK) == await tb.read(FREE_OK) == len(qps)
    await finish(tb, model)


@cocotb.test(timeout_time=40, timeout_unit="ms")
async def test_state_base_move(dut):
    tb = await start(dut, [AREA_A, AREA_B])
    await tb.set_state_base(AREA_A)
    await tb.set_table_base(TABLE_BASE)
    model = Model(tb, TABLE_BASE)
    block_bits = block_bits_of(tb)
    blocks = (tb.max_qps + (1 << block_bits) - 1) >> block_bits
    # QPs in several blocks: every index of three blocks (the first, one in the middle and
    # the last full one), with random generations, and a few by ALLOC.
    old_blocks = sorted({0, blocks // 2, (tb.max_qps >> block_bits) - 1})
    qps = []
    for b in old_blocks:
        for i in block_of(b << block_bits, block_bits, tb.max_qps):
            q = model.qpn(tb.rng.randrange(1, 1 << 16), i)
            await command(tb, model, ALLOC_AT, q, "ALLOC_AT")
            qps.append(q)
    for _ in range(3):
        status, q = await command(tb, model, ALLOC, 0, "ALLOC")
        assert status == CMD_OK
        qps.append(q)
    for q in qps:
        await command(tb, model, PUBLISH, q, "PUBLISH")
    await expect_lookups(tb, model, qps, "before the move")
    old_blocks = sorted({model.split(q)[0] >> block_bits for q in qps})

    # While IN_USE != 0, STATE_BASE and TABLE_BASE writes answer SLVERR and change nothing.
    assert await tb.read(IN_USE) == len(qps)
    await tb.write(STATE_BASE_LO, AREA_B & 0xFFFF_FFFF, expect=AxiResp.SLVERR)
    await tb.write(STATE_BASE_HI, AREA_B >> 32, expect=AxiResp.SLVERR)
    await tb.write(TABLE_BASE_LO, 0x1000, expect=AxiResp.SLVERR)
    assert (await tb.read(STATE_BASE_LO), await tb.read(STATE_BASE_HI)) == (
        AREA_A & 0xFFFF_FFFF, AREA_A >> 32)
    assert (await tb.read(TABLE_BASE_LO), await tb.read(TABLE_BASE_HI)) == (
        TABLE_BASE & 0xFFFF_FFFF, TABLE_BASE >> 32)
    await expect_lookups(tb, model, qps, "after the refused writes")
    # Free them all (some still only RESERVED: FREE takes those too).
    tb.rng.shuffle(qps)
    for q in qps:
        await command(tb, model, FREE, q, "FREE")
    assert await tb.read(IN_USE) == 0
    assert await tb.read(QUARANTINED) == 0
    await tb.memory_quiet()

    # The move: a new table in an area full of junk; every block counts as never written.
    # The old area gets fresh junk as well: the engine must read neither.
    tb.fill_junk(AREA_A)
    await tb.set_state_base(AREA_B)
    assert (await tb.read(STATE_BASE_LO), await tb.read(STATE_BASE_HI)) == (
        AREA_B & 0xFFFF_FFFF, AREA_B >> 32)
    model = Model(tb, TABLE_BASE)  # a new table: all FREE, generations 0 (SPEC 9)
    await expect_lookups(tb, model, qps, "old QPNs after the move")

    # One index of each old block re-created (ALLOC_AT + PUBLISH, a new generation); every
    # other index of the old blocks, with its old generation, 0, 1 and the new one, answers
    # NOT_ALLOCATED: a block never written in the new table is all FREE, whatever the area
    # holds (lazy initialisation), so neither the junk of the new area nor the old table
    # may show through.
    new_gen = tb.rng.randrange(1, 1 << 16)
    for b in old_blocks:
        target = min((b << block_bits) + tb.rng.randrange(1 << block_bits), tb.max_qps - 1)
        qp = model.qpn(new_gen, target)
        await command(tb, model, ALLOC_AT, qp, f"ALLOC_AT of index {target} after the move")
        await command(tb, model, PUBLISH, qp, f"PUBLISH of index {target} after the move")
    old_gen = {model.split(q)[0]: model.split(q)[1] for q in qps}
    probe = []
    for b in old_blocks:
        for i in block_of(b << block_bits, block_bits, tb.max_qps):
            probe += index_qpns(model, i, {0, 1, new_gen, old_gen.get(i, 2)})
    tb.rng.shuffle(probe)
    await expect_lookups(tb, model, probe, "old blocks after the move")
    # ALLOC_AT of a free index of each old block succeeds; so does ALLOC.
    for b in old_blocks:
        for i in block_of(b << block_bits, block_bits, tb.max_qps):
            if model.state[i] == FREE_:
                q = model.qpn(old_gen.get(i, 5), i)
                await command(tb, model, ALLOC_AT, q, "ALLOC_AT of a free index after the move")
                await command(tb, model, PUBLISH, q, "PUBLISH")
                break
    for _ in range(3):
        # ALLOC's index: SPEC 9 does not say where the cyclic cursor stands after a move, so
        # any FREE index >= FIRST_INDEX; its generation: one more than the new table's.
        status, q = await tb.command(ALLOC)
        assert status == CMD_OK, f"ALLOC after the move: status {status}"
        i, g = model.split(q)
        assert tb.first_index <= i < tb.max_qps and model.state[i] == FREE_, (
            f"ALLOC after the move gave {q:#08x}, an index not FREE")
        assert g == (model.gen[i] + 1) & model.gen_mask, (
            f"ALLOC after the move gave {q:#08x}: generation {g}, the new table's is {model.gen[i]}")
        model.state[i], model.gen[i], model.last_alloc = RESERVED, g, i
        count_command(tb, ALLOC, status)
        await command(tb, model, PUBLISH, q, "PUBLISH")
    probe = [model.qpn(g, i) for i in range(tb.max_qps) for g in {0, 1, model.gen[i], old_gen.get(i, 3)}]
    tb.rng.shuffle(probe)
    await expect_lookups(tb, model, probe, "after the move, every index")
    # Every write since the move stayed in the new area (checked as it happened).
    await finish(tb, model)


@cocotb.test(timeout_time=60, timeout_unit="ms")
async def test_random_mix(dut):
    tb = await start(dut, [AREA_A])
    await tb.set_state_base(AREA_A)
    # Two-level: the second page of the directory absent (PAGE_ABSENT).
    await tb.set_table_base(TABLE_BASE, absent={1})
    model = Model(tb, TABLE_BASE, absent={1})
    rng = tb.rng
    known = set()  # every QPN handed out or created, live or not

    def pick_qpn():
        """A QPN to look up or to command: live ones, their stale twins, freed ones, never
        allocated ones, out-of-range ones."""
        r = rng.random()
        if known and r < 0.55:
            q = rng.choice(sorted(known))
            if rng.random() < 0.2:
                i, g = model.split(q)
                q = model.qpn(g + rng.choice((1, -1)), i)
            return q
        if r < 0.9 or tb.max_qps == 1 << tb.index_bits:
            return model.qpn(rng.randrange(3), rng.randrange(tb.max_qps))
        return model.qpn(rng.randrange(3), rng.randrange(tb.max_qps, 1 << tb.index_bits))

    def pick_command():
        r = rng.random()
        live = [model.qpn(model.gen[i], i) for i in range(tb.max_qps) if model.state[i] != FREE_]
        reserved = [model.qpn(model.gen[i], i) for i in range(tb.max_qps) if model.state[i] == RESERVED]
        if r < 0.3:
            return ALLOC, 0
        if r < 0.5 and reserved:
            return PUBLISH, rng.choice(reserved)
        if r < 0.65 and live:
            return FREE, rng.choice(live)
        if r < 0.75:
            return ALLOC_AT, model.qpn(rng.randrange(1, 1 << 16), rng.randrange(tb.max_qps))
        if r < 0.95:
            return rng.choice((PUBLISH, FREE, ALLOC_AT)), pick_qpn()
        return rng.choice((0, DIR_FLUSH, 6, 7, 15)), pick_qpn()

    rounds = int(os.environ.get("QPTABLE_MIX_ROUNDS", "100"))
    for rnd in range(rounds):
        op, qpn = pick_command()
        if rng.random() < 0.5:
            # Lookups while the command runs: each may see the state before or after it
            # (SPEC 6, visibility), nothing else.
            before = copy.deepcopy(model)
            per_port = {p: [pick_qpn() for _ in range(rng.randrange(4, 16))] for p in tb.ports}
            task = cocotb.start_soon(lookups_all_ports(tb, per_port))
            await ClockCycles(tb.dut.clk, rng.randrange(8))
            status, q = await command(tb, model, op, qpn, f"round {rnd}")
            got = await task
            for p in tb.ports:
                for lq, answer in zip(per_port[p], got[p]):
                    allowed = {before.lookup(lq), model.lookup(lq)}
                    assert answer in allowed, (
                        f"round {rnd}: {p} lookup of {lq:#08x} during command {op} {qpn:#08x}: "
                        f"{answer}, SPEC allows {allowed}")
        else:
            status, q = await command(tb, model, op, qpn, f"round {rnd}")
        if status == CMD_OK and op in (ALLOC, ALLOC_AT):
            known.add(q)
        # Then lookups that must all see the command's effect.
        per_port = {p: [pick_qpn() for _ in range(rng.randrange(4, 16))] for p in tb.ports}
        if status == CMD_OK and q:
            for p in tb.ports:
                per_port[p].insert(rng.randrange(len(per_port[p]) + 1), q)
        got = await lookups_all_ports(tb, per_port)
        for p in tb.ports:
            for lq, answer in zip(per_port[p], got[p]):
                want = model.lookup(lq)
                assert answer == want, (
                    f"round {rnd} after command {op} {qpn:#08x} -> {status}: {p} lookup of "
                    f"{lq:#08x}: {answer}, SPEC says {want}")
    dut._log.info("random mix: %d rounds, %d QPs in use, %d memory reads, %d writes",
                  rounds, model.in_use(), len(tb.ar_log), len(tb.aw_log))
    await finish(tb, model)
