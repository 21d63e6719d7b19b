# qp_table.sdc: timing constraints of the QP table lookup engine, top level `qp_table` (the
# default configuration, lookup ports `tx` and `rx`: gen/qp_table.v). SDC, for tools that read
# it (Quartus, Libero, Radiant/Diamond, OpenROAD/OpenSTA, Efinity). The same constraints for
# Vivado are in qp_table.xdc. testbench/tests/constraints.rs checks that every port and clock
# named here, also in the commented templates, exists in gen/qp_table.v.
#
# For another configuration, replace `tx`/`rx` with its port names (s_<p>_req_*, m_<p>_rsp_*).

# ---- Clock ---------------------------------------------------------------------------------
# One clock, rising edge only: every register of the engine is clocked by `clk`.
# 250 MHz (4.000 ns) is the default target. Where the engine is a block inside a larger
# design, the clock usually comes from a PLL: constrain the PLL output instead and drop this.
create_clock -name clk -period 4.000 [get_ports {clk}]

# ---- Reset ---------------------------------------------------------------------------------
# `rst` is synchronous and active high: the registers sample it on the rising edge of `clk`
# like any data input (it enters their D logic, not an asynchronous clear pin). It is NOT a
# false path and NOT a multicycle path: if its release reached some registers one cycle later
# than others, the init sweep, the request grants (`s_<p>_req_ready` depends combinationally
# on `rst`) and the control port would leave reset in different cycles. Drive it from a
# register in the `clk` domain (a reset synchronizer, which also handles an asynchronous
# external reset) and let it be timed as an ordinary path. If its fan-out makes it critical,
# duplicate or pipeline the synchronizer's last stage; hold `rst` high for at least 2 cycles.
# When it comes from a port of the device, give it an input delay like the other inputs:
# set_input_delay -clock clk -max 1.600 [get_ports {rst}]
# set_input_delay -clock clk -min 0.000 [get_ports {rst}]

# ---- Stream and AXI4-Lite ports (templates) -----------------------------------------------
# Normally the engine's ports connect to logic inside the same device and need no I/O
# constraint: the paths are timed register to register by `create_clock`. Only when ports go
# to device pins, or when the engine is synthesized out of context with a budget for the
# logic around it, constrain them relative to `clk`. The values below budget 40 % of the
# period for the logic outside (1.600 ns); adjust to your design.
#
# Combinational paths from an input to an output (they cross the engine in one cycle; budget
# them in the surrounding logic): s_axil_awvalid, s_axil_wvalid -> s_axil_awready,
# s_axil_wready (a write is taken when AW and W are both valid); rst -> s_<p>_req_ready.
# Every other output comes from registers: s_<p>_req_ready does not depend on m_<p>_rsp_ready
# (SPEC section 4), and m_<p>_rsp_* come from the response queue's registers.
#
# Lookup port tx: request stream (inputs) and response stream (outputs).
# set_input_delay  -clock clk -max 1.600 [get_ports {s_tx_req_valid s_tx_req_qpn[*] s_tx_req_tag[*] m_tx_rsp_ready}]
# set_input_delay  -clock clk -min 0.000 [get_ports {s_tx_req_valid s_tx_req_qpn[*] s_tx_req_tag[*] m_tx_rsp_ready}]
# set_output_delay -clock clk -max 1.600 [get_ports {s_tx_req_ready m_tx_rsp_valid m_tx_rsp_qpn[*] m_tx_rsp_tag[*] m_tx_rsp_status[*] m_tx_rsp_addr[*]}]
# set_output_delay -clock clk -min 0.000 [get_ports {s_tx_req_ready m_tx_rsp_valid m_tx_rsp_qpn[*] m_tx_rsp_tag[*] m_tx_rsp_status[*] m_tx_rsp_addr[*]}]
#
# Lookup port rx.
# set_input_delay  -clock clk -max 1.600 [get_ports {s_rx_req_valid s_rx_req_qpn[*] s_rx_req_tag[*] m_rx_rsp_ready}]
# set_input_delay  -clock clk -min 0.000 [get_ports {s_rx_req_valid s_rx_req_qpn[*] s_rx_req_tag[*] m_rx_rsp_ready}]
# set_output_delay -clock clk -max 1.600 [get_ports {s_rx_req_ready m_rx_rsp_valid m_rx_rsp_qpn[*] m_rx_rsp_tag[*] m_rx_rsp_status[*] m_rx_rsp_addr[*]}]
# set_output_delay -clock clk -min 0.000 [get_ports {s_rx_req_ready m_rx_rsp_valid m_rx_rsp_qpn[*] m_rx_rsp_tag[*] m_rx_rsp_status[*] m_rx_rsp_addr[*]}]
#
# AXI4-Lite control slave.
# set_input_delay  -clock clk -max 1.600 [get_ports {s_axil_awaddr[*] s_axil_awprot[*] s_axil_awvalid s_axil_wdata[*] s_axil_wstrb[*] s_axil_wvalid s_axil_bready s_axil_araddr[*] s_axil_arprot[*] s_axil_arvalid s_axil_rready}]
# set_input_delay  -clock clk -min 0.000 [get_ports {s_axil_awaddr[*] s_axil_awprot[*] s_axil_awvalid s_axil_wdata[*] s_axil_wstrb[*] s_axil_wvalid s_axil_bready s_axil_araddr[*] s_axil_arprot[*] s_axil_arvalid s_axil_rready}]
# set_output_delay -clock clk -max 1.600 [get_ports {s_axil_awready s_axil_wready s_axil_bresp[*] s_axil_bvalid s_axil_arready s_axil_rdata[*] s_axil_rresp[*] s_axil_rvalid}]
# set_output_delay -clock clk -min 0.000 [get_ports {s_axil_awready s_axil_wready s_axil_bresp[*] s_axil_bvalid s_axil_arready s_axil_rdata[*] s_axil_rresp[*] s_axil_rvalid}]
#
# The control port is slow (a host writes it a few times per QP), so when it crosses from
# a slower clock through a synchronizer this is the place for a multicycle or clock-group
# constraint of your own; the engine itself has one clock.
