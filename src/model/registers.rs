//! The register map of the reference model (SPEC §6, §9): reads and writes of the AXI4-Lite
//! slave, with the SLVERR rules.

use super::*;

impl Model {
    /// GEOMETRY: `index_bits[4:0]`, `leaf_bits[9:5]` (0 in flat), `mode[11:10]`,
    /// `ports[14:12]`, `reuse[15]`.
    pub fn geometry(&self) -> u32 {
        let (leaf_bits, mode) = match (self.cfg.mode, self.cfg.directory) {
            (Mode::Flat, _) => (0, regs::MODE_FLAT),
            (Mode::TwoLevel, Directory::OnChip) => (self.cfg.leaf_bits, regs::MODE_ON_CHIP),
            (Mode::TwoLevel, Directory::InMemory) => (self.cfg.leaf_bits, regs::MODE_IN_MEMORY),
        };
        regs::geometry(
            self.cfg.index_bits,
            leaf_bits,
            mode,
            self.cfg.ports.len() as u32,
            self.cfg.reuse == Reuse::Lowest,
            self.state_in_memory(),
        )
    }

    /// Whether the value of a register read depends on timing the model does not follow (the
    /// cache counters of SPEC §9 with the state in memory): its read answers OKAY, its value
    /// is not predicted.
    pub fn timing_register(&self, addr: u32) -> bool {
        self.state_in_memory() && regs::MEM_COUNTERS.contains(&(addr & 0xFFC))
    }

    /// A register write (SPEC §6). `addr[1:0]` and bits above the 12-bit address are ignored.
    /// TABLE_BASE_LO/HI honour `strb` (bit b enables byte b) and keep addr_bits bits; refused
    /// while IN_USE != 0. A CMD write returns `Err(Slverr::Command)` (not an SLVERR: use
    /// [`Model::command`]). Read-only and unmapped registers are refused; nothing changes.
    pub fn write_register(&mut self, addr: u32, data: u32, strb: u8) -> Result<(), Slverr> {
        let addr = addr & 0xFFC;
        match addr {
            regs::TABLE_BASE_LO | regs::TABLE_BASE_HI => {
                if self.counters.in_use != 0 {
                    return Err(Slverr::InUse);
                }
                let shift = if addr == regs::TABLE_BASE_LO { 0 } else { 32 };
                let bytes = (0..4)
                    .filter(|b| strb >> b & 1 == 1)
                    .fold(0u64, |m, b| m | 0xFF << (8 * b));
                let mask = bytes << shift;
                let value = u64::from(data) << shift;
                self.table_base = (self.table_base & !mask | value & mask) & self.addr_mask;
                Ok(())
            }
            regs::STATE_BASE_LO | regs::STATE_BASE_HI if self.state_in_memory() => {
                // SPEC §9: accepted only while IN_USE = 0 and QUARANTINED = 0.
                if self.counters.in_use != 0 || self.pool.quarantined() != 0 {
                    return Err(Slverr::InUse);
                }
                let shift = if addr == regs::STATE_BASE_LO { 0 } else { 32 };
                let bytes = (0..4)
                    .filter(|b| strb >> b & 1 == 1)
                    .fold(0u64, |m, b| m | 0xFF << (8 * b));
                let mask = bytes << shift;
                let value = u64::from(data) << shift;
                self.state_base = (self.state_base & !mask | value & mask) & self.addr_mask;
                self.tables += 1;
                self.new_table();
                Ok(())
            }
            regs::CMD => Err(Slverr::Command),
            regs::DIR_INDEX | regs::DIR_ENTRY_LO | regs::DIR_ENTRY_HI if self.dir_on_chip() => {
                let merge = |old: u32| {
                    let mask = (0..4)
                        .filter(|b| strb >> b & 1 == 1)
                        .fold(0u32, |m, b| m | 0xFF << (8 * b));
                    old & !mask | data & mask
                };
                match addr {
                    regs::DIR_INDEX => {
                        let new = merge(self.dir_index);
                        if new >= self.dir_entries() {
                            return Err(Slverr::Unmapped);
                        }
                        self.dir_index = new;
                    }
                    regs::DIR_ENTRY_LO => self.stage_lo = merge(self.stage_lo),
                    _ => {
                        self.stage_hi = merge(self.stage_hi);
                        let entry = u64::from(self.stage_hi) << 32 | u64::from(self.stage_lo);
                        self.set_dir_entry(self.dir_index, entry);
                    }
                }
                Ok(())
            }
            _ => match self.read_register(addr) {
                Ok(_) => Err(Slverr::ReadOnly),
                Err(_) => Err(Slverr::Unmapped),
            },
        }
    }

    /// The registers a command changes (CMD_RESULT, the command counters, IN_USE,
    /// QUARANTINED) from these counters, pool and result; `None` for any other.
    pub(super) fn command_register(
        addr: u32,
        c: &Counters,
        pool: &Pool,
        last: CmdResult,
    ) -> Option<u32> {
        Some(match addr & 0xFFC {
            regs::CMD_RESULT => last.to_register(),
            regs::ALLOC_OK => c.alloc_ok,
            regs::ALLOC_FULL => c.alloc_full,
            regs::FREE_OK => c.free_ok,
            regs::CMD_ERROR => c.cmd_error,
            regs::QUARANTINE_OVERFLOW => c.quarantine_overflow,
            regs::IN_USE => c.in_use,
            regs::QUARANTINED => pool.quarantined(),
            _ => return None,
        })
    }

    /// A register read (SPEC §6). `addr[1:0]` and bits above the 12-bit address are ignored.
    pub fn read_register(&self, addr: u32) -> Result<u32, Slverr> {
        let addr = addr & 0xFFC;
        if let Some(v) = Self::command_register(addr, &self.counters, &self.pool, self.last_result)
        {
            return Ok(v);
        }
        Ok(match addr {
            regs::ID => regs::ID_VALUE,
            regs::VERSION => regs::VERSION_VALUE,
            regs::MAX_QPS => self.max_qps,
            regs::ENTRY_BYTES => self.cfg.entry_bytes,
            regs::GEOMETRY => self.geometry(),
            regs::STATUS => regs::STATUS_INIT_DONE,
            regs::FIRST_INDEX => self.cfg.first_index,
            regs::TABLE_BASE_LO => self.table_base as u32,
            regs::TABLE_BASE_HI => (self.table_base >> 32) as u32,
            regs::CMD => return Err(Slverr::WriteOnly),
            // DIR_* exist only in two_level on_chip.
            regs::DIR_INDEX if self.dir_on_chip() => self.dir_index,
            regs::DIR_ENTRY_LO if self.dir_on_chip() => self.dir_entry(self.dir_index) as u32,
            regs::DIR_ENTRY_HI if self.dir_on_chip() => {
                (self.dir_entry(self.dir_index) >> 32) as u32
            }
            0x100..=0x17C => {
                let port = ((addr - regs::PORT_BASE) / regs::PORT_STRIDE) as usize;
                let offset = (addr - regs::PORT_BASE) % regs::PORT_STRIDE;
                match self.port_counters.get(port) {
                    Some(counters) if offset <= regs::PORT_MEM_ERROR => {
                        counters[(offset / 4) as usize]
                    }
                    _ => return Err(Slverr::Unmapped),
                }
            }
            // SPEC §9: mapped with the state in memory only.
            regs::STATE_BASE_LO if self.state_in_memory() => self.state_base as u32,
            regs::STATE_BASE_HI if self.state_in_memory() => (self.state_base >> 32) as u32,
            regs::STATE_BYTES if self.state_in_memory() => self.state_bytes() as u32,
            // The cache counters: 0 with the state on chip; in memory their value depends on
            // timing ([`Model::timing_register`]).
            a if regs::MEM_COUNTERS.contains(&a) => 0,
            _ => return Err(Slverr::Unmapped),
        })
    }
}
