// qp_table_in_memory_inst.vh: instantiation template of `qp_table_in_memory`, written by qptable 0.1.0 beside qp_table_in_memory.v.
// Configuration: index_bits 20, max_qps 1048576, entry_bytes 256, mode two_level, ports tx rx, tag_bits 8, addr_bits 64.
// Paste it into the module that instantiates the engine (or `include it there): one wire per
// port, of the port's name and width, and the instance with every port connected. Drive the
// inputs, use the outputs, rename the wires to your signals (clk and rst are usually your own).
// Streams are AXI ready/valid; see docs/integration.md for the handshakes and command sequences.

// Clock and reset: one clock, rising edge; rst synchronous, active high
// (drive it from a reset synchronizer, hold it for at least 2 cycles)
wire        clk;             // input
wire        rst;             // input

// Lookup port tx, request stream (into the engine): a beat moves at a rising edge with valid && ready;
// QPN = {generation[3:0], index[19:0]}; the tag is returned with the response
wire        s_tx_req_valid;  // input
wire        s_tx_req_ready;  // output
wire [23:0] s_tx_req_qpn;    // input
wire [7:0]  s_tx_req_tag;    // input

// Lookup port tx, response stream (out of the engine), in request order; status 0 OK, 1 OUT_OF_RANGE,
// 2 NOT_ALLOCATED, 3 STALE, 4 PAGE_ABSENT, 5 MEM_ERROR; addr = page base + (index mod 2^10) * 256 when OK, else 0
wire        m_tx_rsp_valid;  // output
wire        m_tx_rsp_ready;  // input
wire [23:0] m_tx_rsp_qpn;    // output
wire [7:0]  m_tx_rsp_tag;    // output
wire [2:0]  m_tx_rsp_status; // output
wire [63:0] m_tx_rsp_addr;   // output

// Lookup port rx, request stream (into the engine): a beat moves at a rising edge with valid && ready;
// QPN = {generation[3:0], index[19:0]}; the tag is returned with the response
wire        s_rx_req_valid;  // input
wire        s_rx_req_ready;  // output
wire [23:0] s_rx_req_qpn;    // input
wire [7:0]  s_rx_req_tag;    // input

// Lookup port rx, response stream (out of the engine), in request order; status 0 OK, 1 OUT_OF_RANGE,
// 2 NOT_ALLOCATED, 3 STALE, 4 PAGE_ABSENT, 5 MEM_ERROR; addr = page base + (index mod 2^10) * 256 when OK, else 0
wire        m_rx_rsp_valid;  // output
wire        m_rx_rsp_ready;  // input
wire [23:0] m_rx_rsp_qpn;    // output
wire [7:0]  m_rx_rsp_tag;    // output
wire [2:0]  m_rx_rsp_status; // output
wire [63:0] m_rx_rsp_addr;   // output

// AXI4-Lite control slave (SPEC section 6 register map), write address and data, taken together;
// a CMD write answers on B when the command is done
wire [11:0] s_axil_awaddr;   // input
wire [2:0]  s_axil_awprot;   // input
wire        s_axil_awvalid;  // input
wire        s_axil_awready;  // output
wire [31:0] s_axil_wdata;    // input
wire [3:0]  s_axil_wstrb;    // input
wire        s_axil_wvalid;   // input
wire        s_axil_wready;   // output

// AXI4-Lite control slave, write response
wire [1:0]  s_axil_bresp;    // output
wire        s_axil_bvalid;   // output
wire        s_axil_bready;   // input

// AXI4-Lite control slave, read address (reads are served while a write waits)
wire [11:0] s_axil_araddr;   // input
wire [2:0]  s_axil_arprot;   // input
wire        s_axil_arvalid;  // input
wire        s_axil_arready;  // output

// AXI4-Lite control slave, read data
wire [31:0] s_axil_rdata;    // output
wire [1:0]  s_axil_rresp;    // output
wire        s_axil_rvalid;   // output
wire        s_axil_rready;   // input

// AXI4 memory read master (in_memory directory reads: single 8-byte beats); connect to any AXI4 slave
wire        m_axi_arid;      // output
wire [63:0] m_axi_araddr;    // output
wire [7:0]  m_axi_arlen;     // output
wire [2:0]  m_axi_arsize;    // output
wire [1:0]  m_axi_arburst;   // output
wire        m_axi_arlock;    // output
wire [3:0]  m_axi_arcache;   // output
wire [2:0]  m_axi_arprot;    // output
wire        m_axi_arvalid;   // output
wire        m_axi_arready;   // input
wire        m_axi_rid;       // input
wire [63:0] m_axi_rdata;     // input
wire [1:0]  m_axi_rresp;     // input
wire        m_axi_rlast;     // input
wire        m_axi_rvalid;    // input
wire        m_axi_rready;    // output

qp_table_in_memory u_qp_table_in_memory (
    // Clock and reset
    .clk             (clk),
    .rst             (rst),
    // Lookup port tx: request stream
    .s_tx_req_valid  (s_tx_req_valid),
    .s_tx_req_ready  (s_tx_req_ready),
    .s_tx_req_qpn    (s_tx_req_qpn),
    .s_tx_req_tag    (s_tx_req_tag),
    // Lookup port tx: response stream
    .m_tx_rsp_valid  (m_tx_rsp_valid),
    .m_tx_rsp_ready  (m_tx_rsp_ready),
    .m_tx_rsp_qpn    (m_tx_rsp_qpn),
    .m_tx_rsp_tag    (m_tx_rsp_tag),
    .m_tx_rsp_status (m_tx_rsp_status),
    .m_tx_rsp_addr   (m_tx_rsp_addr),
    // Lookup port rx: request stream
    .s_rx_req_valid  (s_rx_req_valid),
    .s_rx_req_ready  (s_rx_req_ready),
    .s_rx_req_qpn    (s_rx_req_qpn),
    .s_rx_req_tag    (s_rx_req_tag),
    // Lookup port rx: response stream
    .m_rx_rsp_valid  (m_rx_rsp_valid),
    .m_rx_rsp_ready  (m_rx_rsp_ready),
    .m_rx_rsp_qpn    (m_rx_rsp_qpn),
    .m_rx_rsp_tag    (m_rx_rsp_tag),
    .m_rx_rsp_status (m_rx_rsp_status),
    .m_rx_rsp_addr   (m_rx_rsp_addr),
    // AXI4-Lite control slave: write address and data
    .s_axil_awaddr   (s_axil_awaddr),
    .s_axil_awprot   (s_axil_awprot),
    .s_axil_awvalid  (s_axil_awvalid),
    .s_axil_awready  (s_axil_awready),
    .s_axil_wdata    (s_axil_wdata),
    .s_axil_wstrb    (s_axil_wstrb),
    .s_axil_wvalid   (s_axil_wvalid),
    .s_axil_wready   (s_axil_wready),
    // AXI4-Lite control slave: write response
    .s_axil_bresp    (s_axil_bresp),
    .s_axil_bvalid   (s_axil_bvalid),
    .s_axil_bready   (s_axil_bready),
    // AXI4-Lite control slave: read address
    .s_axil_araddr   (s_axil_araddr),
    .s_axil_arprot   (s_axil_arprot),
    .s_axil_arvalid  (s_axil_arvalid),
    .s_axil_arready  (s_axil_arready),
    // AXI4-Lite control slave: read data
    .s_axil_rdata    (s_axil_rdata),
    .s_axil_rresp    (s_axil_rresp),
    .s_axil_rvalid   (s_axil_rvalid),
    .s_axil_rready   (s_axil_rready),
    // AXI4 memory read master (directory reads)
    .m_axi_arid      (m_axi_arid),
    .m_axi_araddr    (m_axi_araddr),
    .m_axi_arlen     (m_axi_arlen),
    .m_axi_arsize    (m_axi_arsize),
    .m_axi_arburst   (m_axi_arburst),
    .m_axi_arlock    (m_axi_arlock),
    .m_axi_arcache   (m_axi_arcache),
    .m_axi_arprot    (m_axi_arprot),
    .m_axi_arvalid   (m_axi_arvalid),
    .m_axi_arready   (m_axi_arready),
    .m_axi_rid       (m_axi_rid),
    .m_axi_rdata     (m_axi_rdata),
    .m_axi_rresp     (m_axi_rresp),
    .m_axi_rlast     (m_axi_rlast),
    .m_axi_rvalid    (m_axi_rvalid),
    .m_axi_rready    (m_axi_rready)
);
