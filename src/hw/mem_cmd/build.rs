//! [`MemCmdEngine::new`]: the engine's children and constants for a configuration.

use super::*;

/// `2^block_bits` ones: a mask of every word of a block.
fn words_all_mask(block_bits: u32) -> Bits<MASK_BITS> {
    let mut b: Bits<MASK_BITS> = 0.into();
    for i in 0..(1usize << block_bits) {
        b = b.replace_bit(i, true);
    }
    b
}

/// The block free map's parameters: one member per block.
fn block_params(p: &EngineParams, m: &MissParams) -> EngineParams {
    let mut b = p.clone();
    b.max_qps = p.max_qps.div_ceil(1 << m.block_bits);
    b.first_index = p.first_index >> m.block_bits;
    b.index_bits = p.index_bits.saturating_sub(m.block_bits).max(1);
    b
}

impl MemCmdEngine {
    pub fn new(p: &EngineParams, m: &MissParams) -> Self {
        let blocks = p.max_qps.div_ceil(1 << m.block_bits);
        let wb = m.word_bits;
        let stored = m.stored_bits();
        let bus_bytes = m.mem_data_bits / 8;
        let block_bytes = m.block_bytes();
        let unit_bits = wb.max(8);
        let unit_bytes = unit_bits / 8;
        let all_bus: u64 = if bus_bytes >= 64 {
            u64::MAX
        } else {
            (1u64 << bus_bytes) - 1
        };
        let init_strb = if block_bytes >= u64::from(bus_bytes) {
            all_bus
        } else {
            (1u64 << block_bytes) - 1
        };
        let bp = block_params(p, m);
        // One bit per block: 2^18 at index_bits 24, 16 rows of blocks spread over the die; the
        // word is registered at the blocks' row multiplexer and the address at the blocks, so
        // that no route crosses the die into the decisions of `WRead3` and `PfWr3`.
        let written = Ram::with_layout(
            blocks as usize,
            (blocks.next_power_of_two().trailing_zeros() as usize).max(1),
            1,
            p.fpga,
        )
        .row_registered()
        .address_registered();
        let wr_extra = written.latency() as u64 - 2;
        assert!(wr_extra <= 3, "wr_wait counts 3 edges at most");
        block_new!(
            [
                clock, rst, cmd_valid, cmd_op, cmd_qpn, cmd_time, cmd_done, result_status,
                result_qpn, init_done, state_base, state_base_wr, cache_swept, live_we, live_waddr, live_wdata,
                hold_valid, hold_block, busy_block, busy, inv_valid, inv_line, inv_done, c_arvalid,
                c_arready, c_araddr, c_arlen, c_rvalid, c_rready, c_rdata, c_rresp, c_rlast,
                wr_req_valid, wr_req_ready, wr_req_addr, wr_req_last, wr_req_beat, wr_req_data,
                wr_req_strb, wr_done, wr_error, events, state, cursor, op, qpn, time_q, rel, rel_overflow, blk,
                blk_o, tw, tw_known, start, start_blk, second, other_q, next_alloc, was_written,
                hold_wait, wr_wait, t_ge_first, grp_sel_q, grp_bits_q, from_q, w, beat_r,
                beat_ok, rd_err, ar_q, tword, tunit, other_live, new_word, pending_status,
                pending_qpn, status_q, qpn_q, init_done_q, hold_q, inv_q, live_we_q, live_waddr_q,
                live_wdata_q, wr_req_q, wr_addr_q, wr_last_q, wr_beat_q, wr_data_q, wr_strb_q,
                map_valid_q, map_cmd_q, map_index_q, drain_snap, drained, quarantined, ev,
                q_push, q_pop, index, gen, block_addr, word_v, unit_v, lane_free,
                lane_live, s_row, free_at, live_at, row_at, range_m, pf_sel, ablk_k, lane_bits,
                last_beat, unused_written, w_unit0, t_onehot,
                start_w, cand, lo_w, hi_w, bstart, w_row, t_row, grp_sel, grp_bits, bit_sel,
                new_row, row_valid, new_alloc, new_live, grp_acc, grp_seen, bit_seen, cb_valid,
                cb_block, cb_written, alloc_m, live_m, ablk_pf, range_q, rows_ok, cand_q,
                grp_q, base_seen, moved, dirty, others_alloc, unit_byte, res_blk, nw_gen, t_state, t_gen, t_index,
                new_unit, unit_off, unit_addr, data_shift, map_op_valid, map_cmd, map_op_index, free_to_pool, nf_go, first_find, tail_now,
                ops, res, map_op, wh, p_valid, p_block, p_written, p_alloc, p_live, p_rows,
                pblk, pf_need, pf_err, swap_done, new_row_q, wr_fin, wr_ferr, ablk, whalf, phalf,
                n_known, n_blk, pf_found, pf_res, pf_busy, pf_ar_q, pf_inflight, cb_hit_q, p_hit_q, nk_hit_q, nb_hit_q, cb_is_cur_q, ct_q,
                pf_was_q, cur_tail_q, pbeat, pbeat_ok,
                pw, pf_half, n_wrap, cur_blk, cur_w, sbeat, pf_addr, ar_addr, w_row_a, t_row_a,
                p_row_a, pf_row, p_last, early_issued, early_busy, nf_started,
            ]
            lo_wq: defaults(2),
            hi_wq: defaults(2),
            src_blk: defaults(2),
            map: FreeMap::new(&bp),
            cbuf: Ram::with_layout(
                2 * m.beats() as usize,
                m.beats().trailing_zeros() as usize + 1,
                stored as usize,
                p.fpga,
            ),
            words_all: Constant::new(words_all_mask(m.block_bits)),
            rows_all: Constant::new(
                (0..m.beats() as usize)
                    .fold(Bits::<ROW_BITS>::default(), |b, r| b.replace_bit(r, true)),
            ),
            one_m: Constant::new(1u64.into()),
            one16: Constant::new(1u64.into()),
            one_r: Constant::new(1u64.into()),
            half_rows: Constant::new(u64::from(m.beats()).into()),
            wpr_shift: Constant::new(u64::from((stored / wb).trailing_zeros()).into()),
            lane_off: (0..stored / wb)
                .map(|j| Constant::new(u64::from(j * wb).into()))
                .collect(),
            lane_bit: (0..stored / wb)
                .map(|j| Constant::new(Bits::<MASK_BITS>::default().replace_bit(j as usize, true)))
                .collect(),
            _wpr: (stored / wb) as usize,
            row_n: (0..m.beats()).map(|r| Constant::new(u64::from(r).into())).collect(),
            row_word: (0..m.beats())
                .map(|r| Constant::new(u64::from(r * (stored / wb)).into()))
                .collect(),
            row_bit: (0..m.beats())
                .map(|r| Constant::new(Bits::<ROW_BITS>::default().replace_bit(r as usize, true)))
                .collect(),
            _rows: m.beats() as usize,
            c16: (0..16).map(|i| Constant::new((i as u64).into())).collect(),
            written: written,
            wr_extra: Constant::new(wr_extra.into()),
            quar: Quarantine::new(p),
            index_mask: Constant::new(p.index_mask().into()),
            index_bits: Constant::new(u64::from(p.index_bits).into()),
            gen_mask: Constant::new(p.gen_mask().into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            last_index: Constant::new(u64::from(p.max_qps - 1).into()),
            first_index: Constant::new(u64::from(p.first_index).into()),
            last_block: Constant::new(u64::from(blocks - 1).into()),
            first_block: Constant::new(u64::from(p.first_index >> m.block_bits).into()),
            reuse_lowest: Constant::new(p.reuse == Reuse::Lowest),
            q_on: Constant::new(p.quarantine_cycles > 0),
            block_bits: Constant::new(u64::from(m.block_bits).into()),
            words_m1: Constant::new(((1u64 << m.block_bits) - 1).into()),
            word_shift: Constant::new(u64::from(wb.trailing_zeros()).into()),
            word_mask: Constant::new(((1u64 << wb) - 1).into()),
            wpr_m1: Constant::new(u64::from(stored / wb - 1).into()),
            beats_m1: Constant::new(u64::from(m.beats() - 1).into()),
            block_bytes_shift: Constant::new(u64::from(block_bytes.trailing_zeros()).into()),
            base_mask: Constant::new((!(block_bytes - 1)).into()),
            bus_mask: Constant::new(u64::from(bus_bytes - 1).into()),
            bus_shift: Constant::new(u64::from(bus_bytes.trailing_zeros()).into()),
            upw_shift: Constant::new(u64::from((unit_bits / wb).trailing_zeros()).into()),
            ub_shift: Constant::new(u64::from(unit_bytes.trailing_zeros()).into()),
            unit_words_mask: Constant::new(u64::from(unit_bits / wb - 1).into()),
            unit_strb: Constant::new(((1u64 << unit_bytes) - 1).into()),
            init_strb: Constant::new(init_strb.into()),
            line_mask: Constant::new(u64::from(m.cache_lines - 1).into()),
            mem_error_code: Constant::new(5u64.into()),
        )
    }
}
