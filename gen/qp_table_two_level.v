

module qp_table_two_level(clk,rst,s_tx_req_valid,s_tx_req_ready,s_tx_req_qpn,s_tx_req_tag,m_tx_rsp_valid,m_tx_rsp_ready,m_tx_rsp_qpn,m_tx_rsp_tag,m_tx_rsp_status,m_tx_rsp_addr,s_rx_req_valid,s_rx_req_ready,s_rx_req_qpn,s_rx_req_tag,m_rx_rsp_valid,m_rx_rsp_ready,m_rx_rsp_qpn,m_rx_rsp_tag,m_rx_rsp_status,m_rx_rsp_addr,s_axil_awaddr,s_axil_awprot,s_axil_awvalid,s_axil_awready,s_axil_wdata,s_axil_wstrb,s_axil_wvalid,s_axil_wready,s_axil_bresp,s_axil_bvalid,s_axil_bready,s_axil_araddr,s_axil_arprot,s_axil_arvalid,s_axil_arready,s_axil_rdata,s_axil_rresp,s_axil_rvalid,s_axil_rready);
    
    // Module arguments
    input wire  clk;
    input wire  rst;
    input wire  s_tx_req_valid;
    output wire  s_tx_req_ready;
    input wire  [23:0] s_tx_req_qpn;
    input wire  [7:0] s_tx_req_tag;
    output wire  m_tx_rsp_valid;
    input wire  m_tx_rsp_ready;
    output wire  [23:0] m_tx_rsp_qpn;
    output wire  [7:0] m_tx_rsp_tag;
    output wire  [2:0] m_tx_rsp_status;
    output wire  [63:0] m_tx_rsp_addr;
    input wire  s_rx_req_valid;
    output wire  s_rx_req_ready;
    input wire  [23:0] s_rx_req_qpn;
    input wire  [7:0] s_rx_req_tag;
    output wire  m_rx_rsp_valid;
    input wire  m_rx_rsp_ready;
    output wire  [23:0] m_rx_rsp_qpn;
    output wire  [7:0] m_rx_rsp_tag;
    output wire  [2:0] m_rx_rsp_status;
    output wire  [63:0] m_rx_rsp_addr;
    input wire  [11:0] s_axil_awaddr;
    input wire  [2:0] s_axil_awprot;
    input wire  s_axil_awvalid;
    output wire  s_axil_awready;
    input wire  [31:0] s_axil_wdata;
    input wire  [3:0] s_axil_wstrb;
    input wire  s_axil_wvalid;
    output wire  s_axil_wready;
    output wire  [1:0] s_axil_bresp;
    output wire  s_axil_bvalid;
    input wire  s_axil_bready;
    input wire  [11:0] s_axil_araddr;
    input wire  [2:0] s_axil_arprot;
    input wire  s_axil_arvalid;
    output wire  s_axil_arready;
    output wire  [31:0] s_axil_rdata;
    output wire  [1:0] s_axil_rresp;
    output wire  s_axil_rvalid;
    input wire  s_axil_rready;
    
    // Stub signals
    wire  pipe_tx$clock;
    wire  pipe_tx$rst;
    wire  pipe_tx$init_done;
    wire  [63:0] pipe_tx$table_base;
    wire  pipe_tx$req_valid;
    wire  pipe_tx$req_ready;
    wire  [23:0] pipe_tx$req_qpn;
    wire  [31:0] pipe_tx$req_tag;
    wire  pipe_tx$rsp_valid;
    wire  pipe_tx$rsp_ready;
    wire  [23:0] pipe_tx$rsp_qpn;
    wire  [31:0] pipe_tx$rsp_tag;
    wire  [2:0] pipe_tx$rsp_status;
    wire  [63:0] pipe_tx$rsp_addr;
    wire  pipe_tx$ram_we;
    wire  [23:0] pipe_tx$ram_waddr;
    wire  [21:0] pipe_tx$ram_wdata;
    wire  pipe_tx$dir_we$0;
    wire  [23:0] pipe_tx$dir_waddr$0;
    wire  [58:0] pipe_tx$dir_wdata$0;
    wire  pipe_tx$req_fire;
    wire  pipe_tx$rsp_fire;
    wire  [9:0] pipe_tx$in_flight;
    wire  [223:0] pipe_tx$counts;
    wire  pipe_rx$clock;
    wire  pipe_rx$rst;
    wire  pipe_rx$init_done;
    wire  [63:0] pipe_rx$table_base;
    wire  pipe_rx$req_valid;
    wire  pipe_rx$req_ready;
    wire  [23:0] pipe_rx$req_qpn;
    wire  [31:0] pipe_rx$req_tag;
    wire  pipe_rx$rsp_valid;
    wire  pipe_rx$rsp_ready;
    wire  [23:0] pipe_rx$rsp_qpn;
    wire  [31:0] pipe_rx$rsp_tag;
    wire  [2:0] pipe_rx$rsp_status;
    wire  [63:0] pipe_rx$rsp_addr;
    wire  pipe_rx$ram_we;
    wire  [23:0] pipe_rx$ram_waddr;
    wire  [21:0] pipe_rx$ram_wdata;
    wire  pipe_rx$dir_we$0;
    wire  [23:0] pipe_rx$dir_waddr$0;
    wire  [58:0] pipe_rx$dir_wdata$0;
    wire  pipe_rx$req_fire;
    wire  pipe_rx$rsp_fire;
    wire  [9:0] pipe_rx$in_flight;
    wire  [223:0] pipe_rx$counts;
    wire  regs$clock;
    wire  regs$rst;
    wire  [9:0] regs$awaddr;
    wire  regs$awvalid;
    wire  regs$awready;
    wire  [31:0] regs$wdata;
    wire  [3:0] regs$wstrb;
    wire  regs$wvalid;
    wire  regs$wready;
    wire  [1:0] regs$bresp;
    wire  regs$bvalid;
    wire  regs$bready;
    wire  [9:0] regs$araddr;
    wire  regs$arvalid;
    wire  regs$arready;
    wire  [31:0] regs$rdata;
    wire  [1:0] regs$rresp;
    wire  regs$rvalid;
    wire  regs$rready;
    wire  regs$cmd_valid;
    wire  [3:0] regs$cmd_op;
    wire  [23:0] regs$cmd_qpn;
    wire  [47:0] regs$cmd_time;
    wire  regs$cmd_done;
    wire  [3:0] regs$result_status;
    wire  [23:0] regs$result_qpn;
    wire  regs$init_done;
    wire  [223:0] regs$cmd_counts;
    wire  [223:0] regs$port_counts$0;
    wire  [223:0] regs$port_counts$1;
    wire  [63:0] regs$table_base;
    wire  regs$dir_we$0;
    wire  [23:0] regs$dir_waddr$0;
    wire  [58:0] regs$dir_wdata$0;
    wire  engine$clock;
    wire  engine$rst;
    wire  engine$cmd_valid;
    wire  [3:0] engine$cmd_op;
    wire  [23:0] engine$cmd_qpn;
    wire  [47:0] engine$cmd_time;
    wire  engine$cmd_done;
    wire  [3:0] engine$result_status;
    wire  [23:0] engine$result_qpn;
    wire  engine$init_done;
    wire  engine$ram_we;
    wire  [23:0] engine$ram_waddr;
    wire  [21:0] engine$ram_wdata;
    wire  engine$req_fire$0;
    wire  engine$req_fire$1;
    wire  engine$rsp_fire$0;
    wire  engine$rsp_fire$1;
    wire  [9:0] engine$in_flight$0;
    wire  [9:0] engine$in_flight$1;
    wire  [223:0] engine$counts;
    
    // Sub module instances
    qp_table_two_level$pipe_tx pipe_tx(
        .clock(pipe_tx$clock),
        .rst(pipe_tx$rst),
        .init_done(pipe_tx$init_done),
        .table_base(pipe_tx$table_base),
        .req_valid(pipe_tx$req_valid),
        .req_ready(pipe_tx$req_ready),
        .req_qpn(pipe_tx$req_qpn),
        .req_tag(pipe_tx$req_tag),
        .rsp_valid(pipe_tx$rsp_valid),
        .rsp_ready(pipe_tx$rsp_ready),
        .rsp_qpn(pipe_tx$rsp_qpn),
        .rsp_tag(pipe_tx$rsp_tag),
        .rsp_status(pipe_tx$rsp_status),
        .rsp_addr(pipe_tx$rsp_addr),
        .ram_we(pipe_tx$ram_we),
        .ram_waddr(pipe_tx$ram_waddr),
        .ram_wdata(pipe_tx$ram_wdata),
        .dir_we$0(pipe_tx$dir_we$0),
        .dir_waddr$0(pipe_tx$dir_waddr$0),
        .dir_wdata$0(pipe_tx$dir_wdata$0),
        .req_fire(pipe_tx$req_fire),
        .rsp_fire(pipe_tx$rsp_fire),
        .in_flight(pipe_tx$in_flight),
        .counts(pipe_tx$counts)
    );
    qp_table_two_level$pipe_rx pipe_rx(
        .clock(pipe_rx$clock),
        .rst(pipe_rx$rst),
        .init_done(pipe_rx$init_done),
        .table_base(pipe_rx$table_base),
        .req_valid(pipe_rx$req_valid),
        .req_ready(pipe_rx$req_ready),
        .req_qpn(pipe_rx$req_qpn),
        .req_tag(pipe_rx$req_tag),
        .rsp_valid(pipe_rx$rsp_valid),
        .rsp_ready(pipe_rx$rsp_ready),
        .rsp_qpn(pipe_rx$rsp_qpn),
        .rsp_tag(pipe_rx$rsp_tag),
        .rsp_status(pipe_rx$rsp_status),
        .rsp_addr(pipe_rx$rsp_addr),
        .ram_we(pipe_rx$ram_we),
        .ram_waddr(pipe_rx$ram_waddr),
        .ram_wdata(pipe_rx$ram_wdata),
        .dir_we$0(pipe_rx$dir_we$0),
        .dir_waddr$0(pipe_rx$dir_waddr$0),
        .dir_wdata$0(pipe_rx$dir_wdata$0),
        .req_fire(pipe_rx$req_fire),
        .rsp_fire(pipe_rx$rsp_fire),
        .in_flight(pipe_rx$in_flight),
        .counts(pipe_rx$counts)
    );
    qp_table_two_level$regs regs(
        .clock(regs$clock),
        .rst(regs$rst),
        .awaddr(regs$awaddr),
        .awvalid(regs$awvalid),
        .awready(regs$awready),
        .wdata(regs$wdata),
        .wstrb(regs$wstrb),
        .wvalid(regs$wvalid),
        .wready(regs$wready),
        .bresp(regs$bresp),
        .bvalid(regs$bvalid),
        .bready(regs$bready),
        .araddr(regs$araddr),
        .arvalid(regs$arvalid),
        .arready(regs$arready),
        .rdata(regs$rdata),
        .rresp(regs$rresp),
        .rvalid(regs$rvalid),
        .rready(regs$rready),
        .cmd_valid(regs$cmd_valid),
        .cmd_op(regs$cmd_op),
        .cmd_qpn(regs$cmd_qpn),
        .cmd_time(regs$cmd_time),
        .cmd_done(regs$cmd_done),
        .result_status(regs$result_status),
        .result_qpn(regs$result_qpn),
        .init_done(regs$init_done),
        .cmd_counts(regs$cmd_counts),
        .port_counts$0(regs$port_counts$0),
        .port_counts$1(regs$port_counts$1),
        .table_base(regs$table_base),
        .dir_we$0(regs$dir_we$0),
        .dir_waddr$0(regs$dir_waddr$0),
        .dir_wdata$0(regs$dir_wdata$0)
    );
    qp_table_two_level$engine engine(
        .clock(engine$clock),
        .rst(engine$rst),
        .cmd_valid(engine$cmd_valid),
        .cmd_op(engine$cmd_op),
        .cmd_qpn(engine$cmd_qpn),
        .cmd_time(engine$cmd_time),
        .cmd_done(engine$cmd_done),
        .result_status(engine$result_status),
        .result_qpn(engine$result_qpn),
        .init_done(engine$init_done),
        .ram_we(engine$ram_we),
        .ram_waddr(engine$ram_waddr),
        .ram_wdata(engine$ram_wdata),
        .req_fire$0(engine$req_fire$0),
        .req_fire$1(engine$req_fire$1),
        .rsp_fire$0(engine$rsp_fire$0),
        .rsp_fire$1(engine$rsp_fire$1),
        .in_flight$0(engine$in_flight$0),
        .in_flight$1(engine$in_flight$1),
        .counts(engine$counts)
    );
    
    // Update code (custom)
    assign regs$clock = clk;
    assign regs$rst = rst;
    assign regs$awaddr = s_axil_awaddr[11:2];
    assign regs$araddr = s_axil_araddr[11:2];
    assign regs$awvalid = s_axil_awvalid;
    assign regs$wdata = s_axil_wdata;
    assign regs$wstrb = s_axil_wstrb;
    assign regs$wvalid = s_axil_wvalid;
    assign regs$bready = s_axil_bready;
    assign regs$arvalid = s_axil_arvalid;
    assign regs$rready = s_axil_rready;
    assign s_axil_awready = regs$awready;
    assign s_axil_wready = regs$wready;
    assign s_axil_bresp = regs$bresp;
    assign s_axil_bvalid = regs$bvalid;
    assign s_axil_arready = regs$arready;
    assign s_axil_rdata = regs$rdata;
    assign s_axil_rresp = regs$rresp;
    assign s_axil_rvalid = regs$rvalid;
    assign engine$clock = clk;
    assign engine$rst = rst;
    assign engine$cmd_valid = regs$cmd_valid;
    assign engine$cmd_op = regs$cmd_op;
    assign engine$cmd_qpn = regs$cmd_qpn;
    assign engine$cmd_time = regs$cmd_time;
    assign regs$cmd_done = engine$cmd_done;
    assign regs$result_status = engine$result_status;
    assign regs$result_qpn = engine$result_qpn;
    assign regs$init_done = engine$init_done;
    assign regs$cmd_counts = engine$counts;
    assign pipe_tx$clock = clk;
    assign pipe_tx$rst = rst;
    assign pipe_tx$init_done = engine$init_done;
    assign pipe_tx$table_base = regs$table_base;
    assign pipe_tx$ram_we = engine$ram_we;
    assign pipe_tx$ram_waddr = engine$ram_waddr;
    assign pipe_tx$ram_wdata = engine$ram_wdata;
    assign pipe_tx$dir_we$0 = regs$dir_we$0;
    assign pipe_tx$dir_waddr$0 = regs$dir_waddr$0;
    assign pipe_tx$dir_wdata$0 = regs$dir_wdata$0;
    assign pipe_tx$req_valid = s_tx_req_valid;
    assign s_tx_req_ready = pipe_tx$req_ready;
    assign pipe_tx$req_qpn = s_tx_req_qpn;
    assign pipe_tx$req_tag = {24'd0, s_tx_req_tag};
    assign m_tx_rsp_valid = pipe_tx$rsp_valid;
    assign pipe_tx$rsp_ready = m_tx_rsp_ready;
    assign m_tx_rsp_qpn = pipe_tx$rsp_qpn;
    assign m_tx_rsp_tag = pipe_tx$rsp_tag[7:0];
    assign m_tx_rsp_status = pipe_tx$rsp_status;
    assign m_tx_rsp_addr = pipe_tx$rsp_addr[63:0];
    assign engine$req_fire$0 = pipe_tx$req_fire;
    assign engine$rsp_fire$0 = pipe_tx$rsp_fire;
    assign engine$in_flight$0 = pipe_tx$in_flight;
    assign regs$port_counts$0 = pipe_tx$counts;
    assign pipe_rx$clock = clk;
    assign pipe_rx$rst = rst;
    assign pipe_rx$init_done = engine$init_done;
    assign pipe_rx$table_base = regs$table_base;
    assign pipe_rx$ram_we = engine$ram_we;
    assign pipe_rx$ram_waddr = engine$ram_waddr;
    assign pipe_rx$ram_wdata = engine$ram_wdata;
    assign pipe_rx$dir_we$0 = regs$dir_we$0;
    assign pipe_rx$dir_waddr$0 = regs$dir_waddr$0;
    assign pipe_rx$dir_wdata$0 = regs$dir_wdata$0;
    assign pipe_rx$req_valid = s_rx_req_valid;
    assign s_rx_req_ready = pipe_rx$req_ready;
    assign pipe_rx$req_qpn = s_rx_req_qpn;
    assign pipe_rx$req_tag = {24'd0, s_rx_req_tag};
    assign m_rx_rsp_valid = pipe_rx$rsp_valid;
    assign pipe_rx$rsp_ready = m_rx_rsp_ready;
    assign m_rx_rsp_qpn = pipe_rx$rsp_qpn;
    assign m_rx_rsp_tag = pipe_rx$rsp_tag[7:0];
    assign m_rx_rsp_status = pipe_rx$rsp_status;
    assign m_rx_rsp_addr = pipe_rx$rsp_addr[63:0];
    assign engine$req_fire$1 = pipe_rx$req_fire;
    assign engine$rsp_fire$1 = pipe_rx$rsp_fire;
    assign engine$in_flight$1 = pipe_rx$in_flight;
    assign regs$port_counts$1 = pipe_rx$counts;
    wire _unused_ok = &{1'b0, s_axil_awaddr[1:0], s_axil_araddr[1:0], s_axil_awprot, s_axil_arprot, pipe_tx$rsp_tag[31:8], pipe_rx$rsp_tag[31:8]};
endmodule // qp_table_two_level


module qp_table_two_level$engine(clock,rst,cmd_valid,cmd_op,cmd_qpn,cmd_time,cmd_done,result_status,result_qpn,init_done,ram_we,ram_waddr,ram_wdata,req_fire$0,req_fire$1,rsp_fire$0,rsp_fire$1,in_flight$0,in_flight$1,counts);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  cmd_valid;
    input wire  [3:0] cmd_op;
    input wire  [23:0] cmd_qpn;
    input wire  [47:0] cmd_time;
    output reg  cmd_done;
    output reg  [3:0] result_status;
    output reg  [23:0] result_qpn;
    output reg  init_done;
    output reg  ram_we;
    output reg  [23:0] ram_waddr;
    output reg  [21:0] ram_wdata;
    input wire  req_fire$0;
    input wire  req_fire$1;
    input wire  rsp_fire$0;
    input wire  rsp_fire$1;
    input wire  [9:0] in_flight$0;
    input wire  [9:0] in_flight$1;
    output reg  [223:0] counts;
    
    // Constant declarations
    localparam  q_on = 1'b0;
    localparam  q_cycles_m1 = 48'h0;
    localparam  q_depth = 13'b1000000;
    localparam  q_last = 12'h3f;
    localparam  index_mask = 24'hfffff;
    localparam  index_bits = 5'b10100;
    localparam  gen_mask = 24'hf;
    localparam  max_qps = 25'h100000;
    localparam  last_index = 24'hfffff;
    localparam  first_index = 24'h2;
    localparam  reuse_lowest = 1'b0;
    localparam  st$free = 2'b0;
    localparam  st$reserved = 2'b1;
    localparam  st$valid = 2'b10;
    localparam  ops$alloc = 4'h1;
    localparam  ops$alloc_at = 4'h2;
    localparam  ops$publish = 4'h3;
    localparam  ops$free = 4'h4;
    localparam  ops$dir_flush = 4'h5;
    localparam  ops$last = 4'h5;
    localparam  res$ok = 4'h0;
    localparam  res$full = 4'h1;
    localparam  res$out_of_range = 4'h2;
    localparam  res$bad_state = 4'h3;
    localparam  res$bad_cmd = 4'h4;
    localparam  map_op$find = 2'b0;
    localparam  map_op$clear = 2'b1;
    localparam  map_op$set = 2'b10;
    localparam  map_op$test = 2'b11;
    
    // Enums
    localparam EngState$Init = 0;
    localparam EngState$Idle = 1;
    localparam EngState$Start = 2;
    localparam EngState$QRelease = 3;
    localparam EngState$Decode = 4;
    localparam EngState$Read = 5;
    localparam EngState$Hold = 6;
    localparam EngState$Check = 7;
    localparam EngState$AllocFind = 8;
    localparam EngState$AllocRead = 9;
    localparam EngState$AllocHold = 10;
    localparam EngState$AllocWrite = 11;
    localparam EngState$AtTest = 12;
    localparam EngState$MapWait = 13;
    localparam EngState$FreeSnap = 14;
    localparam EngState$Drain = 15;
    localparam EngState$Release = 16;
    localparam EngState$Overflow = 17;
    localparam EngState$Push = 18;
    localparam EngState$Done = 19;
    
    // Stub signals
    reg  ram$clock;
    reg  [23:0] ram$read_address;
    wire  [21:0] ram$read_data;
    reg  ram$write_enable;
    reg  [23:0] ram$write_address;
    reg  [21:0] ram$write_data;
    reg  qram$clock;
    reg  [23:0] qram$read_address;
    wire  [71:0] qram$read_data;
    reg  qram$write_enable;
    reg  [23:0] qram$write_address;
    reg  [71:0] qram$write_data;
    reg  [11:0] q_wr$d;
    wire  [11:0] q_wr$q;
    reg  q_wr$clock;
    reg  [11:0] q_rd$d;
    wire  [11:0] q_rd$q;
    reg  q_rd$clock;
    reg  [12:0] q_count$d;
    wire  [12:0] q_count$q;
    reg  q_count$clock;
    reg  [31:0] q_overflow$d;
    wire  [31:0] q_overflow$q;
    reg  q_overflow$clock;
    reg  [47:0] time_q$d;
    wire  [47:0] time_q$q;
    reg  time_q$clock;
    reg  map$clock;
    reg  map$rst;
    wire  map$init_done;
    reg  map$op_valid;
    reg  [1:0] map$op;
    reg  [23:0] map$op_index;
    reg  map$op_wrap;
    wire  map$done;
    wire  map$found;
    wire  [23:0] map$result;
    reg  [4:0] state$d;
    wire  [4:0] state$q;
    reg  state$clock;
    reg  [23:0] cursor$d;
    wire  [23:0] cursor$q;
    reg  cursor$clock;
    reg  [23:0] next_alloc$d;
    wire  [23:0] next_alloc$q;
    reg  next_alloc$clock;
    reg  [3:0] op$d;
    wire  [3:0] op$q;
    reg  op$clock;
    reg  [23:0] qpn$d;
    wire  [23:0] qpn$q;
    reg  qpn$clock;
    reg  [3:0] pending_status$d;
    wire  [3:0] pending_status$q;
    reg  pending_status$clock;
    reg  [23:0] pending_qpn$d;
    wire  [23:0] pending_qpn$q;
    reg  pending_qpn$clock;
    reg  [3:0] status_q$d;
    wire  [3:0] status_q$q;
    reg  status_q$clock;
    reg  [23:0] qpn_q$d;
    wire  [23:0] qpn_q$q;
    reg  qpn_q$clock;
    reg  init_done_q$d;
    wire  init_done_q$q;
    reg  init_done_q$clock;
    reg  we_q$d;
    wire  we_q$q;
    reg  we_q$clock;
    reg  [23:0] waddr_q$d;
    wire  [23:0] waddr_q$q;
    reg  waddr_q$clock;
    reg  [21:0] wdata_q$d;
    wire  [21:0] wdata_q$q;
    reg  wdata_q$clock;
    reg  [9:0] drain$0$d;
    wire  [9:0] drain$0$q;
    reg  drain$0$clock;
    reg  [9:0] drain$1$d;
    wire  [9:0] drain$1$q;
    reg  drain$1$clock;
    reg  [31:0] alloc_ok$d;
    wire  [31:0] alloc_ok$q;
    reg  alloc_ok$clock;
    reg  [31:0] alloc_full$d;
    wire  [31:0] alloc_full$q;
    reg  alloc_full$clock;
    reg  [31:0] free_ok$d;
    wire  [31:0] free_ok$q;
    reg  free_ok$clock;
    reg  [31:0] cmd_error$d;
    wire  [31:0] cmd_error$q;
    reg  cmd_error$clock;
    reg  [31:0] in_use$d;
    wire  [31:0] in_use$q;
    reg  in_use$clock;
    
    // Local signals
    reg  [21:0] entry_q;
    reg  [71:0] qhead_q;
    reg  [23:0] q_head_index;
    reg  q_due;
    reg  [11:0] q_wr_next;
    reg  [11:0] q_rd_next;
    reg  [223:0] counts_l;
    reg  [23:0] index;
    reg  [23:0] gen;
    reg  [23:0] word_gen;
    reg  [23:0] new_gen;
    reg  [23:0] cursor_next;
    reg  drained;
    reg  check_pass;
    reg  we;
    reg  [23:0] waddr;
    reg  [21:0] wdata;
    reg  map_op_valid;
    reg  [1:0] map_cmd;
    reg  [23:0] map_op_index;
    
    // Sub module instances
    qp_table_two_level$engine$ram ram(
        .clock(ram$clock),
        .read_address(ram$read_address),
        .read_data(ram$read_data),
        .write_enable(ram$write_enable),
        .write_address(ram$write_address),
        .write_data(ram$write_data)
    );
    qp_table_two_level$engine$qram qram(
        .clock(qram$clock),
        .read_address(qram$read_address),
        .read_data(qram$read_data),
        .write_enable(qram$write_enable),
        .write_address(qram$write_address),
        .write_data(qram$write_data)
    );
    qp_table_two_level$engine$q_wr q_wr(
        .d(q_wr$d),
        .q(q_wr$q),
        .clock(q_wr$clock)
    );
    qp_table_two_level$engine$q_rd q_rd(
        .d(q_rd$d),
        .q(q_rd$q),
        .clock(q_rd$clock)
    );
    qp_table_two_level$engine$q_count q_count(
        .d(q_count$d),
        .q(q_count$q),
        .clock(q_count$clock)
    );
    qp_table_two_level$engine$q_overflow q_overflow(
        .d(q_overflow$d),
        .q(q_overflow$q),
        .clock(q_overflow$clock)
    );
    qp_table_two_level$engine$time_q time_q(
        .d(time_q$d),
        .q(time_q$q),
        .clock(time_q$clock)
    );
    qp_table_two_level$engine$map map(
        .clock(map$clock),
        .rst(map$rst),
        .init_done(map$init_done),
        .op_valid(map$op_valid),
        .op(map$op),
        .op_index(map$op_index),
        .op_wrap(map$op_wrap),
        .done(map$done),
        .found(map$found),
        .result(map$result)
    );
    qp_table_two_level$engine$state state(
        .d(state$d),
        .q(state$q),
        .clock(state$clock)
    );
    qp_table_two_level$engine$cursor cursor(
        .d(cursor$d),
        .q(cursor$q),
        .clock(cursor$clock)
    );
    qp_table_two_level$engine$next_alloc next_alloc(
        .d(next_alloc$d),
        .q(next_alloc$q),
        .clock(next_alloc$clock)
    );
    qp_table_two_level$engine$op op(
        .d(op$d),
        .q(op$q),
        .clock(op$clock)
    );
    qp_table_two_level$engine$qpn qpn(
        .d(qpn$d),
        .q(qpn$q),
        .clock(qpn$clock)
    );
    qp_table_two_level$engine$pending_status pending_status(
        .d(pending_status$d),
        .q(pending_status$q),
        .clock(pending_status$clock)
    );
    qp_table_two_level$engine$pending_qpn pending_qpn(
        .d(pending_qpn$d),
        .q(pending_qpn$q),
        .clock(pending_qpn$clock)
    );
    qp_table_two_level$engine$status_q status_q(
        .d(status_q$d),
        .q(status_q$q),
        .clock(status_q$clock)
    );
    qp_table_two_level$engine$qpn_q qpn_q(
        .d(qpn_q$d),
        .q(qpn_q$q),
        .clock(qpn_q$clock)
    );
    qp_table_two_level$engine$init_done_q init_done_q(
        .d(init_done_q$d),
        .q(init_done_q$q),
        .clock(init_done_q$clock)
    );
    qp_table_two_level$engine$we_q we_q(
        .d(we_q$d),
        .q(we_q$q),
        .clock(we_q$clock)
    );
    qp_table_two_level$engine$waddr_q waddr_q(
        .d(waddr_q$d),
        .q(waddr_q$q),
        .clock(waddr_q$clock)
    );
    qp_table_two_level$engine$wdata_q wdata_q(
        .d(wdata_q$d),
        .q(wdata_q$q),
        .clock(wdata_q$clock)
    );
    qp_table_two_level$engine$drain$0 drain$0(
        .d(drain$0$d),
        .q(drain$0$q),
        .clock(drain$0$clock)
    );
    qp_table_two_level$engine$drain$1 drain$1(
        .d(drain$1$d),
        .q(drain$1$q),
        .clock(drain$1$clock)
    );
    qp_table_two_level$engine$alloc_ok alloc_ok(
        .d(alloc_ok$d),
        .q(alloc_ok$q),
        .clock(alloc_ok$clock)
    );
    qp_table_two_level$engine$alloc_full alloc_full(
        .d(alloc_full$d),
        .q(alloc_full$q),
        .clock(alloc_full$clock)
    );
    qp_table_two_level$engine$free_ok free_ok(
        .d(free_ok$d),
        .q(free_ok$q),
        .clock(free_ok$clock)
    );
    qp_table_two_level$engine$cmd_error cmd_error(
        .d(cmd_error$d),
        .q(cmd_error$q),
        .clock(cmd_error$clock)
    );
    qp_table_two_level$engine$in_use in_use(
        .d(in_use$d),
        .q(in_use$q),
        .clock(in_use$clock)
    );
    
    // Update code
    always @(*) begin
        state$clock = clock;
        cursor$clock = clock;
        next_alloc$clock = clock;
        op$clock = clock;
        qpn$clock = clock;
        pending_status$clock = clock;
        pending_qpn$clock = clock;
        status_q$clock = clock;
        qpn_q$clock = clock;
        init_done_q$clock = clock;
        we_q$clock = clock;
        waddr_q$clock = clock;
        wdata_q$clock = clock;
        alloc_ok$clock = clock;
        alloc_full$clock = clock;
        free_ok$clock = clock;
        cmd_error$clock = clock;
        in_use$clock = clock;
        q_wr$clock = clock;
        q_rd$clock = clock;
        q_count$clock = clock;
        q_overflow$clock = clock;
        time_q$clock = clock;
        state$d = state$q;
        cursor$d = cursor$q;
        next_alloc$d = next_alloc$q;
        op$d = op$q;
        qpn$d = qpn$q;
        pending_status$d = pending_status$q;
        pending_qpn$d = pending_qpn$q;
        status_q$d = status_q$q;
        qpn_q$d = qpn_q$q;
        init_done_q$d = init_done_q$q;
        we_q$d = we_q$q;
        waddr_q$d = waddr_q$q;
        wdata_q$d = wdata_q$q;
        alloc_ok$d = alloc_ok$q;
        alloc_full$d = alloc_full$q;
        free_ok$d = free_ok$q;
        cmd_error$d = cmd_error$q;
        in_use$d = in_use$q;
        q_wr$d = q_wr$q;
        q_rd$d = q_rd$q;
        q_count$d = q_count$q;
        q_overflow$d = q_overflow$q;
        time_q$d = time_q$q;
        drain$0$clock = clock;
        drain$0$d = drain$0$q;
        drain$1$clock = clock;
        drain$1$d = drain$1$q;
        entry_q = ram$read_data;
        qhead_q = qram$read_data;
        index = qpn$q & index_mask;
        gen = qpn$q >> index_bits;
        word_gen = ((entry_q[(64'h2)+:(20)]) & 24'hffffff);
        new_gen = (word_gen + 32'h1) & gen_mask;
        ram$clock = clock;
        ram$read_address = cursor$q;
        we = 1'b0;
        waddr = cursor$q;
        wdata[(64'h0)+:(2)] = st$free;
        wdata[(64'h2)+:(20)] = 32'h0;
        cmd_done = state$q == EngState$Done;
        init_done = init_done_q$q & map$init_done;
        result_status = status_q$q;
        result_qpn = qpn_q$q;
        counts_l[(64'h0)+:(32)] = alloc_ok$q;
        counts_l[(64'h20)+:(32)] = alloc_full$q;
        counts_l[(64'h40)+:(32)] = free_ok$q;
        counts_l[(64'h60)+:(32)] = cmd_error$q;
        counts_l[(64'h80)+:(32)] = in_use$q;
        counts_l[(64'ha0)+:(32)] = q_overflow$q;
        counts_l[(64'hc0)+:(32)] = ((q_count$q) & 32'hffffffff);
        counts = counts_l;
        qram$clock = clock;
        qram$read_address = ((q_rd$q) & 24'hffffff);
        qram$write_address = ((q_wr$q) & 24'hffffff);
        qram$write_enable = 1'b0;
        qram$write_data = (((time_q$q) & 72'hffffffffffffffffff) << 32'h18) | ((index) & 72'hffffffffffffffffff);
        q_head_index = qhead_q[(32'h0)+:(24)];
        q_due = (time_q$q - qhead_q[(32'h18)+:(48)]) > q_cycles_m1;
        q_wr_next = q_wr$q + 32'h1;
        if (q_wr$q == q_last) begin
            q_wr_next = 32'h0;
        end
        q_rd_next = q_rd$q + 32'h1;
        if (q_rd$q == q_last) begin
            q_rd_next = 32'h0;
        end
        cursor_next = cursor$q + 32'h1;
        if (cursor$q == last_index) begin
            cursor_next = first_index;
        end
        map$clock = clock;
        map$rst = rst;
        map_op_valid = 1'b0;
        map_cmd = map_op$find;
        map_op_index = index;
        map$op_wrap = ~reuse_lowest;
        drained = 1'b1;
        if (|drain$0$q) begin
            drained = 1'b0;
        end
        if (|drain$1$q) begin
            drained = 1'b0;
        end
        case (state$q)
            EngState$Init:
                begin
                    we = 1'b1;
                    cursor$d = cursor$q + 32'h1;
                    if (cursor$q == last_index) begin
                        state$d = EngState$Idle;
                    end
                end
            EngState$Idle:
                begin
                    init_done_q$d = 1'b1;
                    if (cmd_valid & map$init_done) begin
                        op$d = cmd_op;
                        qpn$d = cmd_qpn;
                        time_q$d = cmd_time;
                        state$d = EngState$Start;
                    end
                end
            EngState$Start:
                begin
                    state$d = EngState$Decode;
                    if (q_on & |q_count$q & q_due) begin
                        map_op_valid = 1'b1;
                        map_cmd = map_op$set;
                        map_op_index = q_head_index;
                        q_rd$d = q_rd_next;
                        q_count$d = q_count$q - 32'h1;
                        state$d = EngState$QRelease;
                    end
                end
            EngState$QRelease:
                begin
                    if (map$done) begin
                        state$d = EngState$Decode;
                    end
                end
            EngState$Decode:
                begin
                    cursor$d = qpn$q & index_mask;
                    pending_qpn$d = qpn$q;
                    state$d = EngState$Read;
                    if (op$q == ops$alloc) begin
                        map_op_valid = 1'b1;
                        map_cmd = map_op$find;
                        map_op_index = next_alloc$q;
                        if (reuse_lowest) begin
                            map_op_index = first_index;
                        end
                        state$d = EngState$AllocFind;
                    end
                    if (op$q == ops$dir_flush) begin
                        pending_status$d = res$ok;
                        state$d = EngState$Done;
                    end
                    if ((op$q < ops$alloc) | (op$q > ops$last)) begin
                        pending_status$d = res$bad_cmd;
                        cmd_error$d = cmd_error$q + 32'h1;
                        state$d = EngState$Done;
                    end
                end
            EngState$Read:
                begin
                    if (((index) & 25'h1ffffff) >= max_qps) begin
                        pending_status$d = res$out_of_range;
                        cmd_error$d = cmd_error$q + 32'h1;
                        state$d = EngState$Done;
                    end
                    else begin
                        state$d = EngState$Hold;
                    end
                end
            EngState$Hold:
                begin
                    state$d = EngState$Check;
                end
            EngState$Check:
                begin
                    waddr = index;
                    wdata[(64'h2)+:(20)] = entry_q[(64'h2)+:(20)];
                    state$d = EngState$Done;
                    check_pass = 1'b0;
                    if (op$q == ops$alloc_at) begin
                        check_pass = entry_q[(64'h0)+:(2)] == st$free;
                        wdata[(64'h0)+:(2)] = st$reserved;
                        wdata[(64'h2)+:(20)] = ((gen) & 20'hfffff);
                    end
                    if (op$q == ops$publish) begin
                        check_pass = (entry_q[(64'h0)+:(2)] == st$reserved) & (word_gen == gen);
                        wdata[(64'h0)+:(2)] = st$valid;
                    end
                    if (op$q == ops$free) begin
                        check_pass = (entry_q[(64'h0)+:(2)] != st$free) & (word_gen == gen);
                        wdata[(64'h0)+:(2)] = st$free;
                    end
                    if (check_pass) begin
                        we = 1'b1;
                        pending_status$d = res$ok;
                        if (op$q == ops$alloc_at) begin
                            we = 1'b0;
                            map_op_valid = 1'b1;
                            map_cmd = map_op$test;
                            state$d = EngState$AtTest;
                        end
                        if (op$q == ops$free) begin
                            state$d = EngState$FreeSnap;
                        end
                    end
                    else begin
                        pending_status$d = res$bad_state;
                        cmd_error$d = cmd_error$q + 32'h1;
                    end
                end
            EngState$FreeSnap:
                begin
                    state$d = EngState$Drain;
                    drain$0$d = in_flight$0;
                    if (req_fire$0 & ~rsp_fire$0) begin
                        drain$0$d = in_flight$0 + 32'h1;
                    end
                    if (~req_fire$0 & rsp_fire$0) begin
                        drain$0$d = in_flight$0 - 32'h1;
                    end
                    drain$1$d = in_flight$1;
                    if (req_fire$1 & ~rsp_fire$1) begin
                        drain$1$d = in_flight$1 + 32'h1;
                    end
                    if (~req_fire$1 & rsp_fire$1) begin
                        drain$1$d = in_flight$1 - 32'h1;
                    end
                end
            EngState$AllocFind:
                begin
                    if (map$done) begin
                        if (map$found) begin
                            cursor$d = map$result;
                            state$d = EngState$AllocRead;
                        end
                        else begin
                            pending_status$d = res$full;
                            pending_qpn$d = 32'h0;
                            alloc_full$d = alloc_full$q + 32'h1;
                            state$d = EngState$Done;
                        end
                    end
                end
            EngState$AllocRead:
                begin
                    state$d = EngState$AllocHold;
                end
            EngState$AllocHold:
                begin
                    state$d = EngState$AllocWrite;
                end
            EngState$AllocWrite:
                begin
                    we = 1'b1;
                    wdata[(64'h0)+:(2)] = st$reserved;
                    wdata[(64'h2)+:(20)] = ((new_gen) & 20'hfffff);
                    pending_status$d = res$ok;
                    pending_qpn$d = (new_gen << index_bits) | cursor$q;
                    next_alloc$d = cursor_next;
                    alloc_ok$d = alloc_ok$q + 32'h1;
                    in_use$d = in_use$q + 32'h1;
                    map_op_valid = 1'b1;
                    map_cmd = map_op$clear;
                    map_op_index = cursor$q;
                    state$d = EngState$MapWait;
                end
            EngState$AtTest:
                begin
                    waddr = index;
                    wdata[(64'h0)+:(2)] = st$reserved;
                    wdata[(64'h2)+:(20)] = ((gen) & 20'hfffff);
                    if (map$done) begin
                        if (map$found) begin
                            we = 1'b1;
                            alloc_ok$d = alloc_ok$q + 32'h1;
                            in_use$d = in_use$q + 32'h1;
                            map_op_valid = 1'b1;
                            map_cmd = map_op$clear;
                            state$d = EngState$MapWait;
                        end
                        else begin
                            pending_status$d = res$bad_state;
                            cmd_error$d = cmd_error$q + 32'h1;
                            state$d = EngState$Done;
                        end
                    end
                end
            EngState$MapWait:
                begin
                    if (map$done) begin
                        state$d = EngState$Done;
                    end
                end
            EngState$Drain:
                begin
                    if (|drain$0$q & rsp_fire$0) begin
                        drain$0$d = drain$0$q - 32'h1;
                    end
                    if (|drain$1$q & rsp_fire$1) begin
                        drain$1$d = drain$1$q - 32'h1;
                    end
                    if (drained) begin
                        if (q_on) begin
                            state$d = EngState$Push;
                            if (q_count$q == q_depth) begin
                                map_op_valid = 1'b1;
                                map_cmd = map_op$set;
                                map_op_index = q_head_index;
                                q_rd$d = q_rd_next;
                                q_count$d = q_count$q - 32'h1;
                                q_overflow$d = q_overflow$q + 32'h1;
                                state$d = EngState$Overflow;
                            end
                        end
                        else begin
                            map_op_valid = 1'b1;
                            map_cmd = map_op$set;
                            state$d = EngState$Release;
                        end
                    end
                end
            EngState$Overflow:
                begin
                    if (map$done) begin
                        state$d = EngState$Push;
                    end
                end
            EngState$Push:
                begin
                    qram$write_enable = 1'b1;
                    q_wr$d = q_wr_next;
                    q_count$d = q_count$q + 32'h1;
                    free_ok$d = free_ok$q + 32'h1;
                    in_use$d = in_use$q - 32'h1;
                    state$d = EngState$Done;
                end
            EngState$Release:
                begin
                    if (map$done) begin
                        free_ok$d = free_ok$q + 32'h1;
                        in_use$d = in_use$q - 32'h1;
                        state$d = EngState$Done;
                    end
                end
            EngState$Done:
                begin
                    status_q$d = pending_status$q;
                    qpn_q$d = pending_qpn$q;
                    state$d = EngState$Idle;
                end
        endcase
        we_q$d = we;
        waddr_q$d = waddr;
        wdata_q$d = wdata;
        ram_we = we_q$q;
        ram_waddr = waddr_q$q;
        ram_wdata = wdata_q$q;
        ram$write_enable = we_q$q;
        ram$write_address = waddr_q$q;
        ram$write_data = wdata_q$q;
        map$op_valid = map_op_valid;
        map$op = map_cmd;
        map$op_index = map_op_index;
        if (rst) begin
            state$d = EngState$Init;
            cursor$d = 32'h0;
            init_done_q$d = 1'b0;
            we_q$d = 1'b0;
            next_alloc$d = first_index;
            status_q$d = res$ok;
            qpn_q$d = 32'h0;
            alloc_ok$d = 32'h0;
            alloc_full$d = 32'h0;
            free_ok$d = 32'h0;
            cmd_error$d = 32'h0;
            in_use$d = 32'h0;
            q_wr$d = 32'h0;
            q_rd$d = 32'h0;
            q_count$d = 32'h0;
            q_overflow$d = 32'h0;
            drain$0$d = 32'h0;
            drain$1$d = 32'h0;
        end
    end
    
endmodule // qp_table_two_level$engine


module qp_table_two_level$engine$alloc_full(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$alloc_full


module qp_table_two_level$engine$alloc_ok(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$alloc_ok


module qp_table_two_level$engine$cmd_error(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$cmd_error


module qp_table_two_level$engine$cursor(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$cursor


module qp_table_two_level$engine$drain$0(d,q,clock);
    
    // Module arguments
    input wire  [9:0] d;
    output reg  [9:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 10'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$drain$0


module qp_table_two_level$engine$drain$1(d,q,clock);
    
    // Module arguments
    input wire  [9:0] d;
    output reg  [9:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 10'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$drain$1


module qp_table_two_level$engine$free_ok(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$free_ok


module qp_table_two_level$engine$in_use(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$in_use


module qp_table_two_level$engine$init_done_q(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$init_done_q


module qp_table_two_level$engine$map(clock,rst,init_done,op_valid,op,op_index,op_wrap,done,found,result);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    output reg  init_done;
    input wire  op_valid;
    input wire  [1:0] op;
    input wire  [23:0] op_index;
    input wire  op_wrap;
    output reg  done;
    output reg  found;
    output reg  [23:0] result;
    
    // Constant declarations
    localparam  depths$0 = 25'h4000;
    localparam  depths$1 = 25'h100;
    localparam  depths$2 = 25'h4;
    localparam  depths$3 = 25'h1;
    localparam  full_words$0 = 25'h4000;
    localparam  full_words$1 = 25'h100;
    localparam  full_words$2 = 25'h4;
    localparam  full_words$3 = 25'h0;
    localparam  full_words_1$0 = 25'h4001;
    localparam  full_words_1$1 = 25'h101;
    localparam  full_words_1$2 = 25'h5;
    localparam  full_words_1$3 = 25'h1;
    localparam  partial$0 = 64'h0;
    localparam  partial$1 = 64'h0;
    localparam  partial$2 = 64'h0;
    localparam  partial$3 = 64'hf;
    localparam  top_level = 3'b11;
    localparam  ops$find = 2'b0;
    localparam  ops$clear = 2'b1;
    localparam  ops$set = 2'b10;
    localparam  ops$test = 2'b11;
    localparam  last_init_word = 18'b11111111111111;
    localparam  first_index = 25'h2;
    localparam  ones = 64'hffffffffffffffff;
    localparam  pow2$0 = 25'h1;
    localparam  pow2$1 = 25'h2;
    localparam  pow2$2 = 25'h4;
    localparam  pow2$3 = 25'h8;
    localparam  pow2$4 = 25'h10;
    localparam  pow2$5 = 25'h20;
    localparam  bit_of_pos$0 = 64'haaaaaaaaaaaaaaaa;
    localparam  bit_of_pos$1 = 64'hcccccccccccccccc;
    localparam  bit_of_pos$2 = 64'hf0f0f0f0f0f0f0f0;
    localparam  bit_of_pos$3 = 64'hff00ff00ff00ff00;
    localparam  bit_of_pos$4 = 64'hffff0000ffff0000;
    localparam  bit_of_pos$5 = 64'hffffffff00000000;
    localparam  one = 64'h1;
    
    // Enums
    localparam MapState$Init = 0;
    localparam MapState$Idle = 1;
    localparam MapState$WalkRead = 2;
    localparam MapState$WalkLatch = 3;
    localparam MapState$WalkFind = 4;
    localparam MapState$WalkCheck = 5;
    localparam MapState$PointRead = 6;
    localparam MapState$PointLatch = 7;
    localparam MapState$PointApply = 8;
    localparam MapState$Done = 9;
    
    // Stub signals
    reg  rams$0$clock;
    reg  [23:0] rams$0$read_address;
    wire  [63:0] rams$0$read_data;
    reg  rams$0$write_enable;
    reg  [23:0] rams$0$write_address;
    reg  [63:0] rams$0$write_data;
    reg  rams$1$clock;
    reg  [23:0] rams$1$read_address;
    wire  [63:0] rams$1$read_data;
    reg  rams$1$write_enable;
    reg  [23:0] rams$1$write_address;
    reg  [63:0] rams$1$write_data;
    reg  rams$2$clock;
    reg  [23:0] rams$2$read_address;
    wire  [63:0] rams$2$read_data;
    reg  rams$2$write_enable;
    reg  [23:0] rams$2$write_address;
    reg  [63:0] rams$2$write_data;
    reg  rams$3$clock;
    reg  [23:0] rams$3$read_address;
    wire  [63:0] rams$3$read_data;
    reg  rams$3$write_enable;
    reg  [23:0] rams$3$write_address;
    reg  [63:0] rams$3$write_data;
    reg  [3:0] state$d;
    wire  [3:0] state$q;
    reg  state$clock;
    reg  [2:0] level$d;
    wire  [2:0] level$q;
    reg  level$clock;
    reg  [24:0] pos$d;
    wire  [24:0] pos$q;
    reg  pos$clock;
    reg  wrapped$d;
    wire  wrapped$q;
    reg  wrapped$clock;
    reg  wrap$d;
    wire  wrap$q;
    reg  wrap$clock;
    reg  down$d;
    wire  down$q;
    reg  down$clock;
    reg  [1:0] op_q$d;
    wire  [1:0] op_q$q;
    reg  op_q$clock;
    reg  found_q$d;
    wire  found_q$q;
    reg  found_q$clock;
    reg  [23:0] result_q$d;
    wire  [23:0] result_q$q;
    reg  result_q$clock;
    reg  [63:0] latched$d;
    wire  [63:0] latched$q;
    reg  latched$clock;
    reg  [63:0] lowest_q$d;
    wire  [63:0] lowest_q$q;
    reg  lowest_q$clock;
    reg  any_q$d;
    wire  any_q$q;
    reg  any_q$clock;
    reg  [17:0] init_word$d;
    wire  [17:0] init_word$q;
    reg  init_word$clock;
    reg  rd_wait$d;
    wire  rd_wait$q;
    reg  rd_wait$clock;
    
    // Local signals
    reg  [63:0] rd;
    reg  [24:0] init_pos;
    reg  [24:0] word;
    reg  [5:0] bitpos;
    reg  [63:0] bit_mask;
    reg  [63:0] masked;
    reg  [63:0] modified;
    reg  propagate;
    reg  word_exists;
    reg  top;
    reg  [63:0] ffs_in;
    reg  [24:0] ffs;
    reg  [63:0] lowest;
    reg  [24:0] hit;
    
    // Sub module instances
    qp_table_two_level$engine$map$rams$0 rams$0(
        .clock(rams$0$clock),
        .read_address(rams$0$read_address),
        .read_data(rams$0$read_data),
        .write_enable(rams$0$write_enable),
        .write_address(rams$0$write_address),
        .write_data(rams$0$write_data)
    );
    qp_table_two_level$engine$map$rams$1 rams$1(
        .clock(rams$1$clock),
        .read_address(rams$1$read_address),
        .read_data(rams$1$read_data),
        .write_enable(rams$1$write_enable),
        .write_address(rams$1$write_address),
        .write_data(rams$1$write_data)
    );
    qp_table_two_level$engine$map$rams$2 rams$2(
        .clock(rams$2$clock),
        .read_address(rams$2$read_address),
        .read_data(rams$2$read_data),
        .write_enable(rams$2$write_enable),
        .write_address(rams$2$write_address),
        .write_data(rams$2$write_data)
    );
    qp_table_two_level$engine$map$rams$3 rams$3(
        .clock(rams$3$clock),
        .read_address(rams$3$read_address),
        .read_data(rams$3$read_data),
        .write_enable(rams$3$write_enable),
        .write_address(rams$3$write_address),
        .write_data(rams$3$write_data)
    );
    qp_table_two_level$engine$map$state state(
        .d(state$d),
        .q(state$q),
        .clock(state$clock)
    );
    qp_table_two_level$engine$map$level level(
        .d(level$d),
        .q(level$q),
        .clock(level$clock)
    );
    qp_table_two_level$engine$map$pos pos(
        .d(pos$d),
        .q(pos$q),
        .clock(pos$clock)
    );
    qp_table_two_level$engine$map$wrapped wrapped(
        .d(wrapped$d),
        .q(wrapped$q),
        .clock(wrapped$clock)
    );
    qp_table_two_level$engine$map$wrap wrap(
        .d(wrap$d),
        .q(wrap$q),
        .clock(wrap$clock)
    );
    qp_table_two_level$engine$map$down down(
        .d(down$d),
        .q(down$q),
        .clock(down$clock)
    );
    qp_table_two_level$engine$map$op_q op_q(
        .d(op_q$d),
        .q(op_q$q),
        .clock(op_q$clock)
    );
    qp_table_two_level$engine$map$found_q found_q(
        .d(found_q$d),
        .q(found_q$q),
        .clock(found_q$clock)
    );
    qp_table_two_level$engine$map$result_q result_q(
        .d(result_q$d),
        .q(result_q$q),
        .clock(result_q$clock)
    );
    qp_table_two_level$engine$map$latched latched(
        .d(latched$d),
        .q(latched$q),
        .clock(latched$clock)
    );
    qp_table_two_level$engine$map$lowest_q lowest_q(
        .d(lowest_q$d),
        .q(lowest_q$q),
        .clock(lowest_q$clock)
    );
    qp_table_two_level$engine$map$any_q any_q(
        .d(any_q$d),
        .q(any_q$q),
        .clock(any_q$clock)
    );
    qp_table_two_level$engine$map$init_word init_word(
        .d(init_word$d),
        .q(init_word$q),
        .clock(init_word$clock)
    );
    qp_table_two_level$engine$map$rd_wait rd_wait(
        .d(rd_wait$d),
        .q(rd_wait$q),
        .clock(rd_wait$clock)
    );
    
    // Update code
    always @(*) begin
        state$clock = clock;
        level$clock = clock;
        pos$clock = clock;
        wrapped$clock = clock;
        wrap$clock = clock;
        down$clock = clock;
        op_q$clock = clock;
        found_q$clock = clock;
        result_q$clock = clock;
        init_word$clock = clock;
        latched$clock = clock;
        lowest_q$clock = clock;
        any_q$clock = clock;
        rd_wait$clock = clock;
        state$d = state$q;
        level$d = level$q;
        pos$d = pos$q;
        wrapped$d = wrapped$q;
        wrap$d = wrap$q;
        down$d = down$q;
        op_q$d = op_q$q;
        found_q$d = found_q$q;
        result_q$d = result_q$q;
        init_word$d = init_word$q;
        latched$d = latched$q;
        lowest_q$d = lowest_q$q;
        any_q$d = any_q$q;
        rd_wait$d = rd_wait$q;
        rd_wait$d = 1'b0;
        done = state$q == MapState$Done;
        found = found_q$q;
        result = result_q$q;
        init_done = state$q != MapState$Init;
        word = pos$q >> 32'h6;
        bitpos = pos$q[(32'h0)+:(6)];
        bit_mask = one << bitpos;
        if (op_q$q == ops$set) begin
            modified = latched$q | bit_mask;
            propagate = latched$q == 32'h0;
        end
        else begin
            modified = latched$q & ~bit_mask;
            propagate = modified == 32'h0;
        end
        rd = 32'h0;
        word_exists = 1'b0;
        rams$0$clock = clock;
        rams$0$read_address = word[(32'h0)+:(24)];
        rams$0$write_address = word[(32'h0)+:(24)];
        rams$0$write_enable = 1'b0;
        rams$0$write_data = modified;
        if (level$q == 0) begin
            rd = rams$0$read_data;
            word_exists = word < depths$0;
        end
        rams$1$clock = clock;
        rams$1$read_address = word[(32'h0)+:(24)];
        rams$1$write_address = word[(32'h0)+:(24)];
        rams$1$write_enable = 1'b0;
        rams$1$write_data = modified;
        if (level$q == 1) begin
            rd = rams$1$read_data;
            word_exists = word < depths$1;
        end
        rams$2$clock = clock;
        rams$2$read_address = word[(32'h0)+:(24)];
        rams$2$write_address = word[(32'h0)+:(24)];
        rams$2$write_enable = 1'b0;
        rams$2$write_data = modified;
        if (level$q == 2) begin
            rd = rams$2$read_data;
            word_exists = word < depths$2;
        end
        rams$3$clock = clock;
        rams$3$read_address = word[(32'h0)+:(24)];
        rams$3$write_address = word[(32'h0)+:(24)];
        rams$3$write_enable = 1'b0;
        rams$3$write_data = modified;
        if (level$q == 3) begin
            rd = rams$3$read_data;
            word_exists = word < depths$3;
        end
        top = level$q == top_level;
        masked = rd & (ones << bitpos);
        if (~word_exists) begin
            masked = 32'h0;
        end
        ffs_in = latched$q;
        ffs = pos$q & 64'h1ffffc0;
        lowest = ffs_in & (~ffs_in + one);
        lowest_q$d = lowest;
        if (|(lowest_q$q & bit_of_pos$0)) begin
            ffs = ffs | pow2$0;
        end
        if (|(lowest_q$q & bit_of_pos$1)) begin
            ffs = ffs | pow2$1;
        end
        if (|(lowest_q$q & bit_of_pos$2)) begin
            ffs = ffs | pow2$2;
        end
        if (|(lowest_q$q & bit_of_pos$3)) begin
            ffs = ffs | pow2$3;
        end
        if (|(lowest_q$q & bit_of_pos$4)) begin
            ffs = ffs | pow2$4;
        end
        if (|(lowest_q$q & bit_of_pos$5)) begin
            ffs = ffs | pow2$5;
        end
        hit = ffs;
        any_q$d = |latched$q;
        case (state$q)
            MapState$Init:
                begin
                    init_pos = ((init_word$q) & 25'h1ffffff);
                    rams$0$write_address = ((init_word$q) & 24'hffffff);
                    rams$0$write_enable = init_pos < depths$0;
                    rams$0$write_data = 32'h0;
                    if (init_pos < full_words_1$0) begin
                        rams$0$write_data = ones;
                        if (init_pos == full_words$0) begin
                            rams$0$write_data = partial$0;
                        end
                    end
                    rams$1$write_address = ((init_word$q) & 24'hffffff);
                    rams$1$write_enable = init_pos < depths$1;
                    rams$1$write_data = 32'h0;
                    if (init_pos < full_words_1$1) begin
                        rams$1$write_data = ones;
                        if (init_pos == full_words$1) begin
                            rams$1$write_data = partial$1;
                        end
                    end
                    rams$2$write_address = ((init_word$q) & 24'hffffff);
                    rams$2$write_enable = init_pos < depths$2;
                    rams$2$write_data = 32'h0;
                    if (init_pos < full_words_1$2) begin
                        rams$2$write_data = ones;
                        if (init_pos == full_words$2) begin
                            rams$2$write_data = partial$2;
                        end
                    end
                    rams$3$write_address = ((init_word$q) & 24'hffffff);
                    rams$3$write_enable = init_pos < depths$3;
                    rams$3$write_data = 32'h0;
                    if (init_pos < full_words_1$3) begin
                        rams$3$write_data = ones;
                        if (init_pos == full_words$3) begin
                            rams$3$write_data = partial$3;
                        end
                    end
                    init_word$d = init_word$q + 32'h1;
                    if (init_word$q == last_init_word) begin
                        state$d = MapState$Idle;
                    end
                end
            MapState$Idle:
                begin
                end
            MapState$WalkRead:
                begin
                    rd_wait$d = ~rd_wait$q;
                    if (rd_wait$q) begin
                        state$d = MapState$WalkLatch;
                    end
                end
            MapState$WalkLatch:
                begin
                    if (down$q) begin
                        latched$d = rd;
                    end
                    else begin
                        latched$d = masked;
                    end
                    state$d = MapState$WalkFind;
                end
            MapState$WalkFind:
                begin
                    state$d = MapState$WalkCheck;
                end
            MapState$WalkCheck:
                begin
                    if (down$q | any_q$q) begin
                        if (level$q == 32'h0) begin
                            found_q$d = 1'b1;
                            result_q$d = hit[(32'h0)+:(24)];
                            state$d = MapState$Done;
                        end
                        else begin
                            pos$d = hit << 32'h6;
                            level$d = level$q - 32'h1;
                            down$d = 1'b1;
                            state$d = MapState$WalkRead;
                        end
                    end
                    else if (top) begin
                        if (wrap$q & ~wrapped$q) begin
                            wrapped$d = 1'b1;
                            level$d = 32'h0;
                            pos$d = first_index;
                            state$d = MapState$WalkRead;
                        end
                        else begin
                            state$d = MapState$Done;
                        end
                    end
                    else begin
                        pos$d = word + 32'h1;
                        level$d = level$q + 32'h1;
                        state$d = MapState$WalkRead;
                    end
                end
            MapState$PointRead:
                begin
                    rd_wait$d = ~rd_wait$q;
                    if (rd_wait$q) begin
                        state$d = MapState$PointLatch;
                    end
                end
            MapState$PointLatch:
                begin
                    latched$d = rd;
                    state$d = MapState$PointApply;
                end
            MapState$PointApply:
                begin
                    state$d = MapState$Done;
                    if (op_q$q == ops$test) begin
                        found_q$d = |(latched$q & bit_mask);
                        result_q$d = pos$q[(32'h0)+:(24)];
                    end
                    else begin
                        if (level$q == 0) begin
                            rams$0$write_enable = 1'b1;
                        end
                        if (level$q == 1) begin
                            rams$1$write_enable = 1'b1;
                        end
                        if (level$q == 2) begin
                            rams$2$write_enable = 1'b1;
                        end
                        if (level$q == 3) begin
                            rams$3$write_enable = 1'b1;
                        end
                        if (propagate & ~top) begin
                            pos$d = word;
                            level$d = level$q + 32'h1;
                            state$d = MapState$PointRead;
                        end
                    end
                end
            MapState$Done:
                begin
                    state$d = MapState$Idle;
                end
        endcase
        if (((state$q == MapState$Idle) | (state$q == MapState$Done)) & op_valid) begin
            level$d = 32'h0;
            pos$d = ((op_index) & 25'h1ffffff);
            wrap$d = op_wrap;
            wrapped$d = 1'b0;
            found_q$d = 1'b0;
            op_q$d = op;
            down$d = 1'b0;
            if (op == ops$find) begin
                state$d = MapState$WalkRead;
            end
            else begin
                state$d = MapState$PointRead;
            end
        end
        if (rst) begin
            state$d = MapState$Init;
            init_word$d = 32'h0;
            found_q$d = 1'b0;
        end
    end
    
endmodule // qp_table_two_level$engine$map


module qp_table_two_level$engine$map$any_q(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$any_q


module qp_table_two_level$engine$map$down(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$down


module qp_table_two_level$engine$map$found_q(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$found_q


module qp_table_two_level$engine$map$init_word(d,q,clock);
    
    // Module arguments
    input wire  [17:0] d;
    output reg  [17:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 18'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$init_word


module qp_table_two_level$engine$map$latched(d,q,clock);
    
    // Module arguments
    input wire  [63:0] d;
    output reg  [63:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 64'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$latched


module qp_table_two_level$engine$map$level(d,q,clock);
    
    // Module arguments
    input wire  [2:0] d;
    output reg  [2:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 3'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$level


module qp_table_two_level$engine$map$lowest_q(d,q,clock);
    
    // Module arguments
    input wire  [63:0] d;
    output reg  [63:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 64'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$lowest_q


module qp_table_two_level$engine$map$op_q(d,q,clock);
    
    // Module arguments
    input wire  [1:0] d;
    output reg  [1:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 2'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$op_q


module qp_table_two_level$engine$map$pos(d,q,clock);
    
    // Module arguments
    input wire  [24:0] d;
    output reg  [24:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 25'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$pos


module qp_table_two_level$engine$map$rams$0(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [63:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [63:0] write_data;
    
    // Update code (custom)
    reg [63:0] mem [0:16383];
    reg [63:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 64'd0;
    `endif
    reg [63:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 64'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:14], write_address[23:14]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[13:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[13:0]] <= write_data[63:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$engine$map$rams$0


module qp_table_two_level$engine$map$rams$1(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [63:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [63:0] write_data;
    
    // Update code (custom)
    reg [63:0] mem [0:255];
    reg [63:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 64'd0;
    `endif
    reg [63:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 64'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:8], write_address[23:8]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[7:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[7:0]] <= write_data[63:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$engine$map$rams$1


module qp_table_two_level$engine$map$rams$2(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [63:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [63:0] write_data;
    
    // Update code (custom)
    reg [63:0] mem [0:3];
    reg [63:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 64'd0;
    `endif
    reg [63:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 64'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:2], write_address[23:2]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[1:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[1:0]] <= write_data[63:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$engine$map$rams$2


module qp_table_two_level$engine$map$rams$3(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [63:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [63:0] write_data;
    
    // Update code (custom)
    reg [63:0] mem [0:0];
    reg [63:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 64'd0;
    `endif
    reg [63:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 64'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:1], write_address[23:1]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[0:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[0:0]] <= write_data[63:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$engine$map$rams$3


module qp_table_two_level$engine$map$rd_wait(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$rd_wait


module qp_table_two_level$engine$map$result_q(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$result_q


module qp_table_two_level$engine$map$state(d,q,clock);
    
    // Module arguments
    input wire  [3:0] d;
    output reg  [3:0] q;
    input wire  clock;
    
    // Enums
    localparam MapState$Init = 0;
    localparam MapState$Idle = 1;
    localparam MapState$WalkRead = 2;
    localparam MapState$WalkLatch = 3;
    localparam MapState$WalkFind = 4;
    localparam MapState$WalkCheck = 5;
    localparam MapState$PointRead = 6;
    localparam MapState$PointLatch = 7;
    localparam MapState$PointApply = 8;
    localparam MapState$Done = 9;
    
    // Update code (custom)
    initial begin
       q = 64'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$state


module qp_table_two_level$engine$map$wrap(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$wrap


module qp_table_two_level$engine$map$wrapped(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$map$wrapped


module qp_table_two_level$engine$next_alloc(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$next_alloc


module qp_table_two_level$engine$op(d,q,clock);
    
    // Module arguments
    input wire  [3:0] d;
    output reg  [3:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 4'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$op


module qp_table_two_level$engine$pending_qpn(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$pending_qpn


module qp_table_two_level$engine$pending_status(d,q,clock);
    
    // Module arguments
    input wire  [3:0] d;
    output reg  [3:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 4'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$pending_status


module qp_table_two_level$engine$q_count(d,q,clock);
    
    // Module arguments
    input wire  [12:0] d;
    output reg  [12:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 13'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$q_count


module qp_table_two_level$engine$q_overflow(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$q_overflow


module qp_table_two_level$engine$q_rd(d,q,clock);
    
    // Module arguments
    input wire  [11:0] d;
    output reg  [11:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 12'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$q_rd


module qp_table_two_level$engine$q_wr(d,q,clock);
    
    // Module arguments
    input wire  [11:0] d;
    output reg  [11:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 12'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$q_wr


module qp_table_two_level$engine$qpn(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$qpn


module qp_table_two_level$engine$qpn_q(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$qpn_q


module qp_table_two_level$engine$qram(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [71:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [71:0] write_data;
    
    // Update code (custom)
    reg [71:0] mem [0:63];
    reg [71:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 72'd0;
    `endif
    reg [71:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 72'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:6], write_address[23:6]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[5:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[5:0]] <= write_data[71:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$engine$qram


module qp_table_two_level$engine$ram(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [21:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [21:0] write_data;
    
    // Update code (custom)
    reg [5:0] mem [0:1048575];
    reg [5:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 6'd0;
    `endif
    reg [5:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 6'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:20], write_address[23:20], write_data[21:6]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[19:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[19:0]] <= write_data[5:0];
       end
    end
    
    always @(*) read_data = {16'd0, read_q};
endmodule // qp_table_two_level$engine$ram


module qp_table_two_level$engine$state(d,q,clock);
    
    // Module arguments
    input wire  [4:0] d;
    output reg  [4:0] q;
    input wire  clock;
    
    // Enums
    localparam EngState$Init = 0;
    localparam EngState$Idle = 1;
    localparam EngState$Start = 2;
    localparam EngState$QRelease = 3;
    localparam EngState$Decode = 4;
    localparam EngState$Read = 5;
    localparam EngState$Hold = 6;
    localparam EngState$Check = 7;
    localparam EngState$AllocFind = 8;
    localparam EngState$AllocRead = 9;
    localparam EngState$AllocHold = 10;
    localparam EngState$AllocWrite = 11;
    localparam EngState$AtTest = 12;
    localparam EngState$MapWait = 13;
    localparam EngState$FreeSnap = 14;
    localparam EngState$Drain = 15;
    localparam EngState$Release = 16;
    localparam EngState$Overflow = 17;
    localparam EngState$Push = 18;
    localparam EngState$Done = 19;
    
    // Update code (custom)
    initial begin
       q = 64'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$state


module qp_table_two_level$engine$status_q(d,q,clock);
    
    // Module arguments
    input wire  [3:0] d;
    output reg  [3:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 4'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$status_q


module qp_table_two_level$engine$time_q(d,q,clock);
    
    // Module arguments
    input wire  [47:0] d;
    output reg  [47:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 48'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$time_q


module qp_table_two_level$engine$waddr_q(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$waddr_q


module qp_table_two_level$engine$wdata_q(d,q,clock);
    
    // Module arguments
    input wire  [21:0] d;
    output reg  [21:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 22'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$wdata_q


module qp_table_two_level$engine$we_q(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$engine$we_q


module qp_table_two_level$pipe_rx(clock,rst,init_done,table_base,req_valid,req_ready,req_qpn,req_tag,rsp_valid,rsp_ready,rsp_qpn,rsp_tag,rsp_status,rsp_addr,ram_we,ram_waddr,ram_wdata,dir_we$0,dir_waddr$0,dir_wdata$0,req_fire,rsp_fire,in_flight,counts);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  init_done;
    input wire  [63:0] table_base;
    input wire  req_valid;
    output reg  req_ready;
    input wire  [23:0] req_qpn;
    input wire  [31:0] req_tag;
    output reg  rsp_valid;
    input wire  rsp_ready;
    output reg  [23:0] rsp_qpn;
    output reg  [31:0] rsp_tag;
    output reg  [2:0] rsp_status;
    output reg  [63:0] rsp_addr;
    input wire  ram_we;
    input wire  [23:0] ram_waddr;
    input wire  [21:0] ram_wdata;
    input wire  dir_we$0;
    input wire  [23:0] dir_waddr$0;
    input wire  [58:0] dir_wdata$0;
    output reg  req_fire;
    output reg  rsp_fire;
    output reg  [9:0] in_flight;
    output reg  [223:0] counts;
    
    // Constant declarations
    localparam  status$ok = 3'b0;
    localparam  status$out_of_range = 3'b1;
    localparam  status$not_allocated = 3'b10;
    localparam  status$stale = 3'b11;
    localparam  status$page_absent = 3'b100;
    localparam  status$mem_error = 3'b101;
    
    // Stub signals
    reg  front$clock;
    reg  front$rst;
    reg  front$init_done;
    reg  [63:0] front$table_base;
    reg  front$req_valid;
    wire  front$req_ready;
    reg  [23:0] front$req_qpn;
    reg  [31:0] front$req_tag;
    reg  [9:0] front$flight;
    wire  [9:0] front$in_flight;
    wire  front$req_fire;
    reg  front$ram_we;
    reg  [23:0] front$ram_waddr;
    reg  [21:0] front$ram_wdata;
    reg  front$dir_we$0;
    reg  [23:0] front$dir_waddr$0;
    reg  [58:0] front$dir_wdata$0;
    wire  front$chk_valid;
    wire  [23:0] front$chk_qpn;
    wire  [31:0] front$chk_tag;
    wire  [2:0] front$chk_status;
    wire  front$chk_ok;
    wire  [63:0] front$chk_offset;
    wire  [63:0] front$chk_base;
    wire  [63:0] front$chk_page;
    reg  fifo$clock;
    reg  fifo$rst;
    reg  fifo$in_valid;
    reg  [122:0] fifo$data_in;
    wire  fifo$out_valid;
    reg  fifo$out_ready;
    wire  [122:0] fifo$data_out;
    wire  [9:0] fifo$count;
    reg  counters$clock;
    reg  counters$rst;
    reg  counters$fire;
    reg  [2:0] counters$status;
    wire  [223:0] counters$counts;
    reg  [9:0] flight$d;
    wire  [9:0] flight$q;
    reg  flight$clock;
    
    // Local signals
    reg  [122:0] s2_rsp;
    reg  fire;
    reg  [63:0] head_addr;
    reg  unused_page;
    
    // Sub module instances
    qp_table_two_level$pipe_rx$front front(
        .clock(front$clock),
        .rst(front$rst),
        .init_done(front$init_done),
        .table_base(front$table_base),
        .req_valid(front$req_valid),
        .req_ready(front$req_ready),
        .req_qpn(front$req_qpn),
        .req_tag(front$req_tag),
        .flight(front$flight),
        .in_flight(front$in_flight),
        .req_fire(front$req_fire),
        .ram_we(front$ram_we),
        .ram_waddr(front$ram_waddr),
        .ram_wdata(front$ram_wdata),
        .dir_we$0(front$dir_we$0),
        .dir_waddr$0(front$dir_waddr$0),
        .dir_wdata$0(front$dir_wdata$0),
        .chk_valid(front$chk_valid),
        .chk_qpn(front$chk_qpn),
        .chk_tag(front$chk_tag),
        .chk_status(front$chk_status),
        .chk_ok(front$chk_ok),
        .chk_offset(front$chk_offset),
        .chk_base(front$chk_base),
        .chk_page(front$chk_page)
    );
    qp_table_two_level$pipe_rx$fifo fifo(
        .clock(fifo$clock),
        .rst(fifo$rst),
        .in_valid(fifo$in_valid),
        .data_in(fifo$data_in),
        .out_valid(fifo$out_valid),
        .out_ready(fifo$out_ready),
        .data_out(fifo$data_out),
        .count(fifo$count)
    );
    qp_table_two_level$pipe_rx$counters counters(
        .clock(counters$clock),
        .rst(counters$rst),
        .fire(counters$fire),
        .status(counters$status),
        .counts(counters$counts)
    );
    qp_table_two_level$pipe_rx$flight flight(
        .d(flight$d),
        .q(flight$q),
        .clock(flight$clock)
    );
    
    // Update code
    always @(*) begin
        front$clock = clock;
        front$rst = rst;
        front$init_done = init_done;
        front$table_base = table_base;
        front$req_valid = req_valid;
        front$req_qpn = req_qpn;
        front$req_tag = req_tag;
        front$ram_we = ram_we;
        front$ram_waddr = ram_waddr;
        front$ram_wdata = ram_wdata;
        front$dir_we$0 = dir_we$0;
        front$dir_waddr$0 = dir_waddr$0;
        front$dir_wdata$0 = dir_wdata$0;
        front$flight = flight$q;
        req_ready = front$req_ready;
        req_fire = front$req_fire;
        in_flight = front$in_flight;
        s2_rsp[(64'h0)+:(24)] = front$chk_qpn;
        s2_rsp[(64'h18)+:(32)] = front$chk_tag;
        s2_rsp[(64'h38)+:(3)] = front$chk_status;
        s2_rsp[(64'h3b)+:(64)] = front$chk_base + front$chk_offset;
        fifo$clock = clock;
        fifo$rst = rst;
        fifo$in_valid = front$chk_valid;
        fifo$data_in = s2_rsp;
        unused_page = |front$chk_page | front$chk_ok | |fifo$count;
        fire = fifo$out_valid & rsp_ready;
        fifo$out_ready = rsp_ready;
        rsp_valid = fifo$out_valid;
        rsp_qpn = fifo$data_out[(64'h0)+:(24)];
        rsp_tag = fifo$data_out[(64'h18)+:(32)];
        rsp_status = fifo$data_out[(64'h38)+:(3)];
        head_addr = 32'h0;
        if (fifo$data_out[(64'h38)+:(3)] == status$ok) begin
            head_addr = fifo$data_out[(64'h3b)+:(64)];
        end
        rsp_addr = head_addr;
        rsp_fire = fire;
        flight$clock = clock;
        flight$d = flight$q;
        if (front$req_fire & ~fire) begin
            flight$d = flight$q + 32'h1;
        end
        if (~front$req_fire & fire) begin
            flight$d = flight$q - 32'h1;
        end
        if (rst) begin
            flight$d = 32'h0;
        end
        counters$clock = clock;
        counters$rst = rst;
        counters$fire = fire;
        counters$status = fifo$data_out[(64'h38)+:(3)];
        counts = counters$counts;
    end
    
endmodule // qp_table_two_level$pipe_rx


module qp_table_two_level$pipe_rx$counters(clock,rst,fire,status,counts);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  fire;
    input wire  [2:0] status;
    output reg  [223:0] counts;
    
    // Constant declarations
    localparam  zero = 224'h0;
    localparam  codes$ok = 3'b0;
    localparam  codes$out_of_range = 3'b1;
    localparam  codes$not_allocated = 3'b10;
    localparam  codes$stale = 3'b11;
    localparam  codes$page_absent = 3'b100;
    localparam  codes$mem_error = 3'b101;
    localparam  has_page_absent = 1'b1;
    localparam  has_mem_error = 1'b0;
    
    // Stub signals
    reg  [223:0] cnt$d;
    wire  [223:0] cnt$q;
    reg  cnt$clock;
    
    // Sub module instances
    qp_table_two_level$pipe_rx$counters$cnt cnt(
        .d(cnt$d),
        .q(cnt$q),
        .clock(cnt$clock)
    );
    
    // Update code
    always @(*) begin
        cnt$clock = clock;
        cnt$d = cnt$q;
        if (fire) begin
            cnt$d[(64'h0)+:(32)] = cnt$q[(64'h0)+:(32)] + 32'h1;
            if (status == codes$ok) begin
                cnt$d[(64'h20)+:(32)] = cnt$q[(64'h20)+:(32)] + 32'h1;
            end
            if (status == codes$out_of_range) begin
                cnt$d[(64'h40)+:(32)] = cnt$q[(64'h40)+:(32)] + 32'h1;
            end
            if (status == codes$not_allocated) begin
                cnt$d[(64'h60)+:(32)] = cnt$q[(64'h60)+:(32)] + 32'h1;
            end
            if (status == codes$stale) begin
                cnt$d[(64'h80)+:(32)] = cnt$q[(64'h80)+:(32)] + 32'h1;
            end
            if (has_page_absent & (status == codes$page_absent)) begin
                cnt$d[(64'ha0)+:(32)] = cnt$q[(64'ha0)+:(32)] + 32'h1;
            end
            if (has_mem_error & (status == codes$mem_error)) begin
                cnt$d[(64'hc0)+:(32)] = cnt$q[(64'hc0)+:(32)] + 32'h1;
            end
        end
        counts = cnt$q;
        if (rst) begin
            cnt$d = zero;
        end
    end
    
endmodule // qp_table_two_level$pipe_rx$counters


module qp_table_two_level$pipe_rx$counters$cnt(d,q,clock);
    
    // Module arguments
    input wire  [223:0] d;
    output reg  [223:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 224'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$counters$cnt


module qp_table_two_level$pipe_rx$fifo(clock,rst,in_valid,data_in,out_valid,out_ready,data_out,count);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  in_valid;
    input wire  [122:0] data_in;
    output reg  out_valid;
    input wire  out_ready;
    output reg  [122:0] data_out;
    output reg  [9:0] count;
    
    // Update code (custom)
    reg [122:0] mem [0:3];
    reg [1:0] wr_ptr;
    reg [1:0] rd_ptr;
    reg [9:0] fill;
    // Initial values, in an initial block as rust-hdl gives its DFFs (and as Verilator starts
    // every variable): an event-driven simulator shows the same outputs as Verilator before the
    // first reset edge, and a head never written reads 0, not X. (Not declaration initializers:
    // under -g2012 those make no event, and the `always @(*)` blocks below would never run.)
    // Simulation only: yosys defines SYNTHESIS, and initial values change what it maps.
    `ifndef SYNTHESIS
    integer init_i;
    initial begin
       wr_ptr = 2'd0;
       rd_ptr = 2'd0;
       fill = 10'd0;
       for (init_i = 0; init_i <= 3; init_i = init_i + 1) mem[init_i] = 123'd0;
    end
    `endif
    wire pop = (fill != 10'd0) & out_ready;
    wire [122:0] head = mem[rd_ptr];
    
    always @(posedge clock) begin
       if (in_valid) begin
          mem[wr_ptr] <= data_in;
       end
       if (rst) begin
          wr_ptr <= 2'd0;
          rd_ptr <= 2'd0;
          fill <= 10'd0;
       end else begin
          if (in_valid) wr_ptr <= wr_ptr + 2'd1;
          if (pop) rd_ptr <= rd_ptr + 2'd1;
          if (in_valid & ~pop) fill <= fill + 10'd1;
          if (~in_valid & pop) fill <= fill - 10'd1;
       end
    end
    
    always @(*) out_valid = fill != 10'd0;
    always @(*) data_out = head;
    always @(*) count = fill;
endmodule // qp_table_two_level$pipe_rx$fifo


module qp_table_two_level$pipe_rx$flight(d,q,clock);
    
    // Module arguments
    input wire  [9:0] d;
    output reg  [9:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 10'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$flight


module qp_table_two_level$pipe_rx$front(clock,rst,init_done,table_base,req_valid,req_ready,req_qpn,req_tag,flight,in_flight,req_fire,ram_we,ram_waddr,ram_wdata,dir_we$0,dir_waddr$0,dir_wdata$0,chk_valid,chk_qpn,chk_tag,chk_status,chk_ok,chk_offset,chk_base,chk_page);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  init_done;
    input wire  [63:0] table_base;
    input wire  req_valid;
    output reg  req_ready;
    input wire  [23:0] req_qpn;
    input wire  [31:0] req_tag;
    input wire  [9:0] flight;
    output reg  [9:0] in_flight;
    output reg  req_fire;
    input wire  ram_we;
    input wire  [23:0] ram_waddr;
    input wire  [21:0] ram_wdata;
    input wire  dir_we$0;
    input wire  [23:0] dir_waddr$0;
    input wire  [58:0] dir_wdata$0;
    output reg  chk_valid;
    output reg  [23:0] chk_qpn;
    output reg  [31:0] chk_tag;
    output reg  [2:0] chk_status;
    output reg  chk_ok;
    output reg  [63:0] chk_offset;
    output reg  [63:0] chk_base;
    output reg  [63:0] chk_page;
    
    // Constant declarations
    localparam  status$ok = 3'b0;
    localparam  status$out_of_range = 3'b1;
    localparam  status$not_allocated = 3'b10;
    localparam  status$stale = 3'b11;
    localparam  status$page_absent = 3'b100;
    localparam  status$mem_error = 3'b101;
    localparam  state$free = 2'b0;
    localparam  state$reserved = 2'b1;
    localparam  state$valid = 2'b10;
    localparam  two_level = 1'b1;
    localparam  index_mask = 24'hfffff;
    localparam  index_bits = 5'b10100;
    localparam  leaf_mask = 24'h7f;
    localparam  leaf_bits = 5'b111;
    localparam  max_qps = 25'h100000;
    localparam  base_shift = 64'h6;
    localparam  credit = 10'b100;
    localparam  mul_mask0 = 64'h0;
    localparam  mul_mask1 = 64'h0;
    localparam  mul_mask2 = 64'h0;
    localparam  mul_mask3 = 64'hffffffffffffffff;
    localparam  mul_mask4 = 64'h0;
    localparam  mul_mask5 = 64'h0;
    localparam  mul_mask6 = 64'h0;
    localparam  mul_mask7 = 64'h0;
    
    // Stub signals
    reg  ram$clock;
    reg  [23:0] ram$read_address;
    wire  [21:0] ram$read_data;
    reg  ram$write_enable;
    reg  [23:0] ram$write_address;
    reg  [21:0] ram$write_data;
    reg  dirs$0$clock;
    reg  [23:0] dirs$0$read_address;
    wire  [58:0] dirs$0$read_data;
    reg  dirs$0$write_enable;
    reg  [23:0] dirs$0$write_address;
    reg  [58:0] dirs$0$write_data;
    reg  s1_valid$d;
    wire  s1_valid$q;
    reg  s1_valid$clock;
    reg  [23:0] s1_qpn$d;
    wire  [23:0] s1_qpn$q;
    reg  s1_qpn$clock;
    reg  [31:0] s1_tag$d;
    wire  [31:0] s1_tag$q;
    reg  s1_tag$clock;
    reg  s2_valid$d;
    wire  s2_valid$q;
    reg  s2_valid$clock;
    reg  [23:0] s2_qpn$d;
    wire  [23:0] s2_qpn$q;
    reg  s2_qpn$clock;
    reg  [31:0] s2_tag$d;
    wire  [31:0] s2_tag$q;
    reg  s2_tag$clock;
    
    // Local signals
    reg  [21:0] s2_entry;
    reg  [58:0] dir_rd;
    reg  s0_fire;
    reg  [9:0] occupancy;
    reg  [23:0] s2_index;
    reg  [23:0] s2_leaf_index;
    reg  [63:0] s2_wide_index;
    reg  [23:0] s2_gen;
    reg  [23:0] s2_entry_gen;
    reg  [2:0] s2_status;
    
    // Sub module instances
    qp_table_two_level$pipe_rx$front$ram ram(
        .clock(ram$clock),
        .read_address(ram$read_address),
        .read_data(ram$read_data),
        .write_enable(ram$write_enable),
        .write_address(ram$write_address),
        .write_data(ram$write_data)
    );
    qp_table_two_level$pipe_rx$front$dirs$0 dirs$0(
        .clock(dirs$0$clock),
        .read_address(dirs$0$read_address),
        .read_data(dirs$0$read_data),
        .write_enable(dirs$0$write_enable),
        .write_address(dirs$0$write_address),
        .write_data(dirs$0$write_data)
    );
    qp_table_two_level$pipe_rx$front$s1_valid s1_valid(
        .d(s1_valid$d),
        .q(s1_valid$q),
        .clock(s1_valid$clock)
    );
    qp_table_two_level$pipe_rx$front$s1_qpn s1_qpn(
        .d(s1_qpn$d),
        .q(s1_qpn$q),
        .clock(s1_qpn$clock)
    );
    qp_table_two_level$pipe_rx$front$s1_tag s1_tag(
        .d(s1_tag$d),
        .q(s1_tag$q),
        .clock(s1_tag$clock)
    );
    qp_table_two_level$pipe_rx$front$s2_valid s2_valid(
        .d(s2_valid$d),
        .q(s2_valid$q),
        .clock(s2_valid$clock)
    );
    qp_table_two_level$pipe_rx$front$s2_qpn s2_qpn(
        .d(s2_qpn$d),
        .q(s2_qpn$q),
        .clock(s2_qpn$clock)
    );
    qp_table_two_level$pipe_rx$front$s2_tag s2_tag(
        .d(s2_tag$d),
        .q(s2_tag$q),
        .clock(s2_tag$clock)
    );
    
    // Update code
    always @(*) begin
        s1_valid$clock = clock;
        s1_qpn$clock = clock;
        s1_tag$clock = clock;
        s2_valid$clock = clock;
        s2_qpn$clock = clock;
        s2_tag$clock = clock;
        s1_valid$d = s1_valid$q;
        s1_qpn$d = s1_qpn$q;
        s1_tag$d = s1_tag$q;
        s2_valid$d = s2_valid$q;
        s2_qpn$d = s2_qpn$q;
        s2_tag$d = s2_tag$q;
        ram$clock = clock;
        ram$write_enable = ram_we;
        ram$write_address = ram_waddr;
        ram$write_data = ram_wdata;
        occupancy = flight;
        req_ready = init_done & ~rst & (occupancy < credit);
        s0_fire = req_valid & req_ready;
        req_fire = s0_fire;
        in_flight = occupancy;
        ram$read_address = req_qpn;
        dir_rd[(64'h0)+:(1)] = 1'b1;
        dir_rd[(64'h1)+:(58)] = 32'h0;
        dirs$0$clock = clock;
        dirs$0$read_address = (req_qpn & index_mask) >> leaf_bits;
        dirs$0$write_enable = dir_we$0;
        dirs$0$write_address = dir_waddr$0;
        dirs$0$write_data = dir_wdata$0;
        dir_rd = dirs$0$read_data;
        s1_valid$d = s0_fire;
        if (s0_fire) begin
            s1_qpn$d = req_qpn;
            s1_tag$d = req_tag;
        end
        s2_valid$d = s1_valid$q;
        s2_qpn$d = s1_qpn$q;
        s2_tag$d = s1_tag$q;
        s2_entry = ram$read_data;
        s2_index = s2_qpn$q & index_mask;
        s2_leaf_index = s2_index & leaf_mask;
        s2_wide_index = ((s2_leaf_index) & 64'hffffffffffffffff);
        s2_gen = s2_qpn$q >> index_bits;
        s2_entry_gen = ((s2_entry[(64'h2)+:(20)]) & 24'hffffff);
        chk_offset = ((s2_wide_index << 32'h5) & mul_mask0) + ((s2_wide_index << 32'h6) & mul_mask1) + ((s2_wide_index << 32'h7) & mul_mask2) + ((s2_wide_index << 32'h8) & mul_mask3) + ((s2_wide_index << 32'h9) & mul_mask4) + ((s2_wide_index << 32'ha) & mul_mask5) + ((s2_wide_index << 32'hb) & mul_mask6) + ((s2_wide_index << 32'hc) & mul_mask7);
        s2_status = status$ok;
        if (~dir_rd[(64'h0)+:(1)]) begin
            s2_status = status$page_absent;
        end
        if (s2_entry_gen != s2_gen) begin
            s2_status = status$stale;
        end
        if (s2_entry[(64'h0)+:(2)] != state$valid) begin
            s2_status = status$not_allocated;
        end
        if (((s2_index) & 25'h1ffffff) >= max_qps) begin
            s2_status = status$out_of_range;
        end
        chk_status = s2_status;
        chk_ok = s2_status == status$ok;
        if (two_level) begin
            chk_base = ((dir_rd[(64'h1)+:(58)]) & 64'hffffffffffffffff) << base_shift;
        end
        else begin
            chk_base = table_base;
        end
        chk_page = ((s2_index) & 64'hffffffffffffffff) >> leaf_bits;
        chk_valid = s2_valid$q;
        chk_qpn = s2_qpn$q;
        chk_tag = s2_tag$q;
        if (rst) begin
            s1_valid$d = 1'b0;
            s2_valid$d = 1'b0;
        end
    end
    
endmodule // qp_table_two_level$pipe_rx$front


module qp_table_two_level$pipe_rx$front$dirs$0(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [58:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [58:0] write_data;
    
    // Update code (custom)
    reg [58:0] mem [0:8191];
    reg [58:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 59'd0;
    `endif
    reg [58:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 59'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:13], write_address[23:13]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[12:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[12:0]] <= write_data[58:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$pipe_rx$front$dirs$0


module qp_table_two_level$pipe_rx$front$ram(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [21:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [21:0] write_data;
    
    // Update code (custom)
    reg [5:0] mem [0:1048575];
    reg [5:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 6'd0;
    `endif
    reg [5:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 6'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:20], write_address[23:20], write_data[21:6]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[19:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[19:0]] <= write_data[5:0];
       end
    end
    
    always @(*) read_data = {16'd0, read_q};
endmodule // qp_table_two_level$pipe_rx$front$ram


module qp_table_two_level$pipe_rx$front$s1_qpn(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$front$s1_qpn


module qp_table_two_level$pipe_rx$front$s1_tag(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$front$s1_tag


module qp_table_two_level$pipe_rx$front$s1_valid(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$front$s1_valid


module qp_table_two_level$pipe_rx$front$s2_qpn(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$front$s2_qpn


module qp_table_two_level$pipe_rx$front$s2_tag(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$front$s2_tag


module qp_table_two_level$pipe_rx$front$s2_valid(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_rx$front$s2_valid


module qp_table_two_level$pipe_tx(clock,rst,init_done,table_base,req_valid,req_ready,req_qpn,req_tag,rsp_valid,rsp_ready,rsp_qpn,rsp_tag,rsp_status,rsp_addr,ram_we,ram_waddr,ram_wdata,dir_we$0,dir_waddr$0,dir_wdata$0,req_fire,rsp_fire,in_flight,counts);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  init_done;
    input wire  [63:0] table_base;
    input wire  req_valid;
    output reg  req_ready;
    input wire  [23:0] req_qpn;
    input wire  [31:0] req_tag;
    output reg  rsp_valid;
    input wire  rsp_ready;
    output reg  [23:0] rsp_qpn;
    output reg  [31:0] rsp_tag;
    output reg  [2:0] rsp_status;
    output reg  [63:0] rsp_addr;
    input wire  ram_we;
    input wire  [23:0] ram_waddr;
    input wire  [21:0] ram_wdata;
    input wire  dir_we$0;
    input wire  [23:0] dir_waddr$0;
    input wire  [58:0] dir_wdata$0;
    output reg  req_fire;
    output reg  rsp_fire;
    output reg  [9:0] in_flight;
    output reg  [223:0] counts;
    
    // Constant declarations
    localparam  status$ok = 3'b0;
    localparam  status$out_of_range = 3'b1;
    localparam  status$not_allocated = 3'b10;
    localparam  status$stale = 3'b11;
    localparam  status$page_absent = 3'b100;
    localparam  status$mem_error = 3'b101;
    
    // Stub signals
    reg  front$clock;
    reg  front$rst;
    reg  front$init_done;
    reg  [63:0] front$table_base;
    reg  front$req_valid;
    wire  front$req_ready;
    reg  [23:0] front$req_qpn;
    reg  [31:0] front$req_tag;
    reg  [9:0] front$flight;
    wire  [9:0] front$in_flight;
    wire  front$req_fire;
    reg  front$ram_we;
    reg  [23:0] front$ram_waddr;
    reg  [21:0] front$ram_wdata;
    reg  front$dir_we$0;
    reg  [23:0] front$dir_waddr$0;
    reg  [58:0] front$dir_wdata$0;
    wire  front$chk_valid;
    wire  [23:0] front$chk_qpn;
    wire  [31:0] front$chk_tag;
    wire  [2:0] front$chk_status;
    wire  front$chk_ok;
    wire  [63:0] front$chk_offset;
    wire  [63:0] front$chk_base;
    wire  [63:0] front$chk_page;
    reg  fifo$clock;
    reg  fifo$rst;
    reg  fifo$in_valid;
    reg  [122:0] fifo$data_in;
    wire  fifo$out_valid;
    reg  fifo$out_ready;
    wire  [122:0] fifo$data_out;
    wire  [9:0] fifo$count;
    reg  counters$clock;
    reg  counters$rst;
    reg  counters$fire;
    reg  [2:0] counters$status;
    wire  [223:0] counters$counts;
    reg  [9:0] flight$d;
    wire  [9:0] flight$q;
    reg  flight$clock;
    
    // Local signals
    reg  [122:0] s2_rsp;
    reg  fire;
    reg  [63:0] head_addr;
    reg  unused_page;
    
    // Sub module instances
    qp_table_two_level$pipe_tx$front front(
        .clock(front$clock),
        .rst(front$rst),
        .init_done(front$init_done),
        .table_base(front$table_base),
        .req_valid(front$req_valid),
        .req_ready(front$req_ready),
        .req_qpn(front$req_qpn),
        .req_tag(front$req_tag),
        .flight(front$flight),
        .in_flight(front$in_flight),
        .req_fire(front$req_fire),
        .ram_we(front$ram_we),
        .ram_waddr(front$ram_waddr),
        .ram_wdata(front$ram_wdata),
        .dir_we$0(front$dir_we$0),
        .dir_waddr$0(front$dir_waddr$0),
        .dir_wdata$0(front$dir_wdata$0),
        .chk_valid(front$chk_valid),
        .chk_qpn(front$chk_qpn),
        .chk_tag(front$chk_tag),
        .chk_status(front$chk_status),
        .chk_ok(front$chk_ok),
        .chk_offset(front$chk_offset),
        .chk_base(front$chk_base),
        .chk_page(front$chk_page)
    );
    qp_table_two_level$pipe_tx$fifo fifo(
        .clock(fifo$clock),
        .rst(fifo$rst),
        .in_valid(fifo$in_valid),
        .data_in(fifo$data_in),
        .out_valid(fifo$out_valid),
        .out_ready(fifo$out_ready),
        .data_out(fifo$data_out),
        .count(fifo$count)
    );
    qp_table_two_level$pipe_tx$counters counters(
        .clock(counters$clock),
        .rst(counters$rst),
        .fire(counters$fire),
        .status(counters$status),
        .counts(counters$counts)
    );
    qp_table_two_level$pipe_tx$flight flight(
        .d(flight$d),
        .q(flight$q),
        .clock(flight$clock)
    );
    
    // Update code
    always @(*) begin
        front$clock = clock;
        front$rst = rst;
        front$init_done = init_done;
        front$table_base = table_base;
        front$req_valid = req_valid;
        front$req_qpn = req_qpn;
        front$req_tag = req_tag;
        front$ram_we = ram_we;
        front$ram_waddr = ram_waddr;
        front$ram_wdata = ram_wdata;
        front$dir_we$0 = dir_we$0;
        front$dir_waddr$0 = dir_waddr$0;
        front$dir_wdata$0 = dir_wdata$0;
        front$flight = flight$q;
        req_ready = front$req_ready;
        req_fire = front$req_fire;
        in_flight = front$in_flight;
        s2_rsp[(64'h0)+:(24)] = front$chk_qpn;
        s2_rsp[(64'h18)+:(32)] = front$chk_tag;
        s2_rsp[(64'h38)+:(3)] = front$chk_status;
        s2_rsp[(64'h3b)+:(64)] = front$chk_base + front$chk_offset;
        fifo$clock = clock;
        fifo$rst = rst;
        fifo$in_valid = front$chk_valid;
        fifo$data_in = s2_rsp;
        unused_page = |front$chk_page | front$chk_ok | |fifo$count;
        fire = fifo$out_valid & rsp_ready;
        fifo$out_ready = rsp_ready;
        rsp_valid = fifo$out_valid;
        rsp_qpn = fifo$data_out[(64'h0)+:(24)];
        rsp_tag = fifo$data_out[(64'h18)+:(32)];
        rsp_status = fifo$data_out[(64'h38)+:(3)];
        head_addr = 32'h0;
        if (fifo$data_out[(64'h38)+:(3)] == status$ok) begin
            head_addr = fifo$data_out[(64'h3b)+:(64)];
        end
        rsp_addr = head_addr;
        rsp_fire = fire;
        flight$clock = clock;
        flight$d = flight$q;
        if (front$req_fire & ~fire) begin
            flight$d = flight$q + 32'h1;
        end
        if (~front$req_fire & fire) begin
            flight$d = flight$q - 32'h1;
        end
        if (rst) begin
            flight$d = 32'h0;
        end
        counters$clock = clock;
        counters$rst = rst;
        counters$fire = fire;
        counters$status = fifo$data_out[(64'h38)+:(3)];
        counts = counters$counts;
    end
    
endmodule // qp_table_two_level$pipe_tx


module qp_table_two_level$pipe_tx$counters(clock,rst,fire,status,counts);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  fire;
    input wire  [2:0] status;
    output reg  [223:0] counts;
    
    // Constant declarations
    localparam  zero = 224'h0;
    localparam  codes$ok = 3'b0;
    localparam  codes$out_of_range = 3'b1;
    localparam  codes$not_allocated = 3'b10;
    localparam  codes$stale = 3'b11;
    localparam  codes$page_absent = 3'b100;
    localparam  codes$mem_error = 3'b101;
    localparam  has_page_absent = 1'b1;
    localparam  has_mem_error = 1'b0;
    
    // Stub signals
    reg  [223:0] cnt$d;
    wire  [223:0] cnt$q;
    reg  cnt$clock;
    
    // Sub module instances
    qp_table_two_level$pipe_tx$counters$cnt cnt(
        .d(cnt$d),
        .q(cnt$q),
        .clock(cnt$clock)
    );
    
    // Update code
    always @(*) begin
        cnt$clock = clock;
        cnt$d = cnt$q;
        if (fire) begin
            cnt$d[(64'h0)+:(32)] = cnt$q[(64'h0)+:(32)] + 32'h1;
            if (status == codes$ok) begin
                cnt$d[(64'h20)+:(32)] = cnt$q[(64'h20)+:(32)] + 32'h1;
            end
            if (status == codes$out_of_range) begin
                cnt$d[(64'h40)+:(32)] = cnt$q[(64'h40)+:(32)] + 32'h1;
            end
            if (status == codes$not_allocated) begin
                cnt$d[(64'h60)+:(32)] = cnt$q[(64'h60)+:(32)] + 32'h1;
            end
            if (status == codes$stale) begin
                cnt$d[(64'h80)+:(32)] = cnt$q[(64'h80)+:(32)] + 32'h1;
            end
            if (has_page_absent & (status == codes$page_absent)) begin
                cnt$d[(64'ha0)+:(32)] = cnt$q[(64'ha0)+:(32)] + 32'h1;
            end
            if (has_mem_error & (status == codes$mem_error)) begin
                cnt$d[(64'hc0)+:(32)] = cnt$q[(64'hc0)+:(32)] + 32'h1;
            end
        end
        counts = cnt$q;
        if (rst) begin
            cnt$d = zero;
        end
    end
    
endmodule // qp_table_two_level$pipe_tx$counters


module qp_table_two_level$pipe_tx$counters$cnt(d,q,clock);
    
    // Module arguments
    input wire  [223:0] d;
    output reg  [223:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 224'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$counters$cnt


module qp_table_two_level$pipe_tx$fifo(clock,rst,in_valid,data_in,out_valid,out_ready,data_out,count);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  in_valid;
    input wire  [122:0] data_in;
    output reg  out_valid;
    input wire  out_ready;
    output reg  [122:0] data_out;
    output reg  [9:0] count;
    
    // Update code (custom)
    reg [122:0] mem [0:3];
    reg [1:0] wr_ptr;
    reg [1:0] rd_ptr;
    reg [9:0] fill;
    // Initial values, in an initial block as rust-hdl gives its DFFs (and as Verilator starts
    // every variable): an event-driven simulator shows the same outputs as Verilator before the
    // first reset edge, and a head never written reads 0, not X. (Not declaration initializers:
    // under -g2012 those make no event, and the `always @(*)` blocks below would never run.)
    // Simulation only: yosys defines SYNTHESIS, and initial values change what it maps.
    `ifndef SYNTHESIS
    integer init_i;
    initial begin
       wr_ptr = 2'd0;
       rd_ptr = 2'd0;
       fill = 10'd0;
       for (init_i = 0; init_i <= 3; init_i = init_i + 1) mem[init_i] = 123'd0;
    end
    `endif
    wire pop = (fill != 10'd0) & out_ready;
    wire [122:0] head = mem[rd_ptr];
    
    always @(posedge clock) begin
       if (in_valid) begin
          mem[wr_ptr] <= data_in;
       end
       if (rst) begin
          wr_ptr <= 2'd0;
          rd_ptr <= 2'd0;
          fill <= 10'd0;
       end else begin
          if (in_valid) wr_ptr <= wr_ptr + 2'd1;
          if (pop) rd_ptr <= rd_ptr + 2'd1;
          if (in_valid & ~pop) fill <= fill + 10'd1;
          if (~in_valid & pop) fill <= fill - 10'd1;
       end
    end
    
    always @(*) out_valid = fill != 10'd0;
    always @(*) data_out = head;
    always @(*) count = fill;
endmodule // qp_table_two_level$pipe_tx$fifo


module qp_table_two_level$pipe_tx$flight(d,q,clock);
    
    // Module arguments
    input wire  [9:0] d;
    output reg  [9:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 10'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$flight


module qp_table_two_level$pipe_tx$front(clock,rst,init_done,table_base,req_valid,req_ready,req_qpn,req_tag,flight,in_flight,req_fire,ram_we,ram_waddr,ram_wdata,dir_we$0,dir_waddr$0,dir_wdata$0,chk_valid,chk_qpn,chk_tag,chk_status,chk_ok,chk_offset,chk_base,chk_page);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  init_done;
    input wire  [63:0] table_base;
    input wire  req_valid;
    output reg  req_ready;
    input wire  [23:0] req_qpn;
    input wire  [31:0] req_tag;
    input wire  [9:0] flight;
    output reg  [9:0] in_flight;
    output reg  req_fire;
    input wire  ram_we;
    input wire  [23:0] ram_waddr;
    input wire  [21:0] ram_wdata;
    input wire  dir_we$0;
    input wire  [23:0] dir_waddr$0;
    input wire  [58:0] dir_wdata$0;
    output reg  chk_valid;
    output reg  [23:0] chk_qpn;
    output reg  [31:0] chk_tag;
    output reg  [2:0] chk_status;
    output reg  chk_ok;
    output reg  [63:0] chk_offset;
    output reg  [63:0] chk_base;
    output reg  [63:0] chk_page;
    
    // Constant declarations
    localparam  status$ok = 3'b0;
    localparam  status$out_of_range = 3'b1;
    localparam  status$not_allocated = 3'b10;
    localparam  status$stale = 3'b11;
    localparam  status$page_absent = 3'b100;
    localparam  status$mem_error = 3'b101;
    localparam  state$free = 2'b0;
    localparam  state$reserved = 2'b1;
    localparam  state$valid = 2'b10;
    localparam  two_level = 1'b1;
    localparam  index_mask = 24'hfffff;
    localparam  index_bits = 5'b10100;
    localparam  leaf_mask = 24'h7f;
    localparam  leaf_bits = 5'b111;
    localparam  max_qps = 25'h100000;
    localparam  base_shift = 64'h6;
    localparam  credit = 10'b100;
    localparam  mul_mask0 = 64'h0;
    localparam  mul_mask1 = 64'h0;
    localparam  mul_mask2 = 64'h0;
    localparam  mul_mask3 = 64'hffffffffffffffff;
    localparam  mul_mask4 = 64'h0;
    localparam  mul_mask5 = 64'h0;
    localparam  mul_mask6 = 64'h0;
    localparam  mul_mask7 = 64'h0;
    
    // Stub signals
    reg  ram$clock;
    reg  [23:0] ram$read_address;
    wire  [21:0] ram$read_data;
    reg  ram$write_enable;
    reg  [23:0] ram$write_address;
    reg  [21:0] ram$write_data;
    reg  dirs$0$clock;
    reg  [23:0] dirs$0$read_address;
    wire  [58:0] dirs$0$read_data;
    reg  dirs$0$write_enable;
    reg  [23:0] dirs$0$write_address;
    reg  [58:0] dirs$0$write_data;
    reg  s1_valid$d;
    wire  s1_valid$q;
    reg  s1_valid$clock;
    reg  [23:0] s1_qpn$d;
    wire  [23:0] s1_qpn$q;
    reg  s1_qpn$clock;
    reg  [31:0] s1_tag$d;
    wire  [31:0] s1_tag$q;
    reg  s1_tag$clock;
    reg  s2_valid$d;
    wire  s2_valid$q;
    reg  s2_valid$clock;
    reg  [23:0] s2_qpn$d;
    wire  [23:0] s2_qpn$q;
    reg  s2_qpn$clock;
    reg  [31:0] s2_tag$d;
    wire  [31:0] s2_tag$q;
    reg  s2_tag$clock;
    
    // Local signals
    reg  [21:0] s2_entry;
    reg  [58:0] dir_rd;
    reg  s0_fire;
    reg  [9:0] occupancy;
    reg  [23:0] s2_index;
    reg  [23:0] s2_leaf_index;
    reg  [63:0] s2_wide_index;
    reg  [23:0] s2_gen;
    reg  [23:0] s2_entry_gen;
    reg  [2:0] s2_status;
    
    // Sub module instances
    qp_table_two_level$pipe_tx$front$ram ram(
        .clock(ram$clock),
        .read_address(ram$read_address),
        .read_data(ram$read_data),
        .write_enable(ram$write_enable),
        .write_address(ram$write_address),
        .write_data(ram$write_data)
    );
    qp_table_two_level$pipe_tx$front$dirs$0 dirs$0(
        .clock(dirs$0$clock),
        .read_address(dirs$0$read_address),
        .read_data(dirs$0$read_data),
        .write_enable(dirs$0$write_enable),
        .write_address(dirs$0$write_address),
        .write_data(dirs$0$write_data)
    );
    qp_table_two_level$pipe_tx$front$s1_valid s1_valid(
        .d(s1_valid$d),
        .q(s1_valid$q),
        .clock(s1_valid$clock)
    );
    qp_table_two_level$pipe_tx$front$s1_qpn s1_qpn(
        .d(s1_qpn$d),
        .q(s1_qpn$q),
        .clock(s1_qpn$clock)
    );
    qp_table_two_level$pipe_tx$front$s1_tag s1_tag(
        .d(s1_tag$d),
        .q(s1_tag$q),
        .clock(s1_tag$clock)
    );
    qp_table_two_level$pipe_tx$front$s2_valid s2_valid(
        .d(s2_valid$d),
        .q(s2_valid$q),
        .clock(s2_valid$clock)
    );
    qp_table_two_level$pipe_tx$front$s2_qpn s2_qpn(
        .d(s2_qpn$d),
        .q(s2_qpn$q),
        .clock(s2_qpn$clock)
    );
    qp_table_two_level$pipe_tx$front$s2_tag s2_tag(
        .d(s2_tag$d),
        .q(s2_tag$q),
        .clock(s2_tag$clock)
    );
    
    // Update code
    always @(*) begin
        s1_valid$clock = clock;
        s1_qpn$clock = clock;
        s1_tag$clock = clock;
        s2_valid$clock = clock;
        s2_qpn$clock = clock;
        s2_tag$clock = clock;
        s1_valid$d = s1_valid$q;
        s1_qpn$d = s1_qpn$q;
        s1_tag$d = s1_tag$q;
        s2_valid$d = s2_valid$q;
        s2_qpn$d = s2_qpn$q;
        s2_tag$d = s2_tag$q;
        ram$clock = clock;
        ram$write_enable = ram_we;
        ram$write_address = ram_waddr;
        ram$write_data = ram_wdata;
        occupancy = flight;
        req_ready = init_done & ~rst & (occupancy < credit);
        s0_fire = req_valid & req_ready;
        req_fire = s0_fire;
        in_flight = occupancy;
        ram$read_address = req_qpn;
        dir_rd[(64'h0)+:(1)] = 1'b1;
        dir_rd[(64'h1)+:(58)] = 32'h0;
        dirs$0$clock = clock;
        dirs$0$read_address = (req_qpn & index_mask) >> leaf_bits;
        dirs$0$write_enable = dir_we$0;
        dirs$0$write_address = dir_waddr$0;
        dirs$0$write_data = dir_wdata$0;
        dir_rd = dirs$0$read_data;
        s1_valid$d = s0_fire;
        if (s0_fire) begin
            s1_qpn$d = req_qpn;
            s1_tag$d = req_tag;
        end
        s2_valid$d = s1_valid$q;
        s2_qpn$d = s1_qpn$q;
        s2_tag$d = s1_tag$q;
        s2_entry = ram$read_data;
        s2_index = s2_qpn$q & index_mask;
        s2_leaf_index = s2_index & leaf_mask;
        s2_wide_index = ((s2_leaf_index) & 64'hffffffffffffffff);
        s2_gen = s2_qpn$q >> index_bits;
        s2_entry_gen = ((s2_entry[(64'h2)+:(20)]) & 24'hffffff);
        chk_offset = ((s2_wide_index << 32'h5) & mul_mask0) + ((s2_wide_index << 32'h6) & mul_mask1) + ((s2_wide_index << 32'h7) & mul_mask2) + ((s2_wide_index << 32'h8) & mul_mask3) + ((s2_wide_index << 32'h9) & mul_mask4) + ((s2_wide_index << 32'ha) & mul_mask5) + ((s2_wide_index << 32'hb) & mul_mask6) + ((s2_wide_index << 32'hc) & mul_mask7);
        s2_status = status$ok;
        if (~dir_rd[(64'h0)+:(1)]) begin
            s2_status = status$page_absent;
        end
        if (s2_entry_gen != s2_gen) begin
            s2_status = status$stale;
        end
        if (s2_entry[(64'h0)+:(2)] != state$valid) begin
            s2_status = status$not_allocated;
        end
        if (((s2_index) & 25'h1ffffff) >= max_qps) begin
            s2_status = status$out_of_range;
        end
        chk_status = s2_status;
        chk_ok = s2_status == status$ok;
        if (two_level) begin
            chk_base = ((dir_rd[(64'h1)+:(58)]) & 64'hffffffffffffffff) << base_shift;
        end
        else begin
            chk_base = table_base;
        end
        chk_page = ((s2_index) & 64'hffffffffffffffff) >> leaf_bits;
        chk_valid = s2_valid$q;
        chk_qpn = s2_qpn$q;
        chk_tag = s2_tag$q;
        if (rst) begin
            s1_valid$d = 1'b0;
            s2_valid$d = 1'b0;
        end
    end
    
endmodule // qp_table_two_level$pipe_tx$front


module qp_table_two_level$pipe_tx$front$dirs$0(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [58:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [58:0] write_data;
    
    // Update code (custom)
    reg [58:0] mem [0:8191];
    reg [58:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 59'd0;
    `endif
    reg [58:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 59'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:13], write_address[23:13]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[12:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[12:0]] <= write_data[58:0];
       end
    end
    
    always @(*) read_data = {read_q};
endmodule // qp_table_two_level$pipe_tx$front$dirs$0


module qp_table_two_level$pipe_tx$front$ram(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [21:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [21:0] write_data;
    
    // Update code (custom)
    reg [5:0] mem [0:1048575];
    reg [5:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 6'd0;
    `endif
    reg [5:0] read_q;
    `ifndef SYNTHESIS
    initial read_q = 6'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:20], write_address[23:20], write_data[21:6]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[19:0]];
       read_q <= read_word;
       if (write_enable) begin
          mem[write_address[19:0]] <= write_data[5:0];
       end
    end
    
    always @(*) read_data = {16'd0, read_q};
endmodule // qp_table_two_level$pipe_tx$front$ram


module qp_table_two_level$pipe_tx$front$s1_qpn(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$front$s1_qpn


module qp_table_two_level$pipe_tx$front$s1_tag(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$front$s1_tag


module qp_table_two_level$pipe_tx$front$s1_valid(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$front$s1_valid


module qp_table_two_level$pipe_tx$front$s2_qpn(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$front$s2_qpn


module qp_table_two_level$pipe_tx$front$s2_tag(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$front$s2_tag


module qp_table_two_level$pipe_tx$front$s2_valid(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$pipe_tx$front$s2_valid


module qp_table_two_level$regs(clock,rst,awaddr,awvalid,awready,wdata,wstrb,wvalid,wready,bresp,bvalid,bready,araddr,arvalid,arready,rdata,rresp,rvalid,rready,cmd_valid,cmd_op,cmd_qpn,cmd_time,cmd_done,result_status,result_qpn,init_done,cmd_counts,port_counts$0,port_counts$1,table_base,dir_we$0,dir_waddr$0,dir_wdata$0);
    
    // Module arguments
    input wire  clock;
    input wire  rst;
    input wire  [9:0] awaddr;
    input wire  awvalid;
    output reg  awready;
    input wire  [31:0] wdata;
    input wire  [3:0] wstrb;
    input wire  wvalid;
    output reg  wready;
    output reg  [1:0] bresp;
    output reg  bvalid;
    input wire  bready;
    input wire  [9:0] araddr;
    input wire  arvalid;
    output reg  arready;
    output reg  [31:0] rdata;
    output reg  [1:0] rresp;
    output reg  rvalid;
    input wire  rready;
    output reg  cmd_valid;
    output reg  [3:0] cmd_op;
    output reg  [23:0] cmd_qpn;
    output reg  [47:0] cmd_time;
    input wire  cmd_done;
    input wire  [3:0] result_status;
    input wire  [23:0] result_qpn;
    input wire  init_done;
    input wire  [223:0] cmd_counts;
    input wire  [223:0] port_counts$0;
    input wire  [223:0] port_counts$1;
    output reg  [63:0] table_base;
    output reg  dir_we$0;
    output reg  [23:0] dir_waddr$0;
    output reg  [58:0] dir_wdata$0;
    
    // Constant declarations
    localparam  dir_last$0 = 24'h1fff;
    localparam  on_chip = 1'b1;
    localparam  dir_entries$0 = 32'h2000;
    localparam  no_counts = 224'h0;
    localparam  id = 32'h51505431;
    localparam  version = 32'h10000;
    localparam  max_qps = 32'h100000;
    localparam  entry_bytes = 32'h100;
    localparam  geometry = 32'h24f4;
    localparam  first_index = 32'h2;
    localparam  ports = 3'b10;
    localparam  base_hi_mask = 32'hffffffff;
    localparam  time_one = 48'h1;
    localparam  words$id = 10'b0;
    localparam  words$version = 10'b1;
    localparam  words$max_qps = 10'b10;
    localparam  words$entry_bytes = 10'b11;
    localparam  words$geometry = 10'b100;
    localparam  words$status = 10'b101;
    localparam  words$first_index = 10'b110;
    localparam  words$table_base_lo = 10'b1000;
    localparam  words$table_base_hi = 10'b1001;
    localparam  words$cmd = 10'b1100;
    localparam  words$cmd_result = 10'b1101;
    localparam  words$dir_index = 10'b10000;
    localparam  words$dir_entry_lo = 10'b10001;
    localparam  words$dir_entry_hi = 10'b10010;
    localparam  words$alloc_ok = 10'b1100000;
    localparam  words$alloc_full = 10'b1100001;
    localparam  words$free_ok = 10'b1100010;
    localparam  words$cmd_error = 10'b1100011;
    localparam  words$quarantine_overflow = 10'b1100100;
    localparam  words$in_use = 10'b1100101;
    localparam  words$quarantined = 10'b1100110;
    localparam  port$lookups = 3'b0;
    localparam  port$ok = 3'b1;
    localparam  port$out_of_range = 3'b10;
    localparam  port$not_allocated = 3'b11;
    localparam  port$stale = 3'b100;
    localparam  port$page_absent = 3'b101;
    localparam  port$mem_error = 3'b110;
    localparam  port_block = 5'b10;
    localparam  cmd_op_shift = 5'b11100;
    localparam  result_status_shift = 32'h1c;
    localparam  result_busy_bit = 32'h1b;
    localparam  init_done_bit = 32'h0;
    localparam  busy_bit = 32'h1;
    localparam  base_shift = 5'b110;
    localparam  present_bit = 5'b0;
    localparam  present_offset = 6'b0;
    localparam  page_offset = 6'b1;
    localparam  hi_page_offset$0 = 6'b11011;
    
    // Enums
    localparam WriteState$Idle = 0;
    localparam WriteState$Command = 1;
    localparam WriteState$Response = 2;
    
    // Stub signals
    reg  dirs$0$clock;
    reg  [23:0] dirs$0$read_address;
    wire  [58:0] dirs$0$read_data;
    reg  dirs$0$write_enable;
    reg  [23:0] dirs$0$write_address;
    reg  [58:0] dirs$0$write_data;
    reg  [31:0] dir_index$d;
    wire  [31:0] dir_index$q;
    reg  dir_index$clock;
    reg  [31:0] stage_lo$d;
    wire  [31:0] stage_lo$q;
    reg  stage_lo$clock;
    reg  [31:0] stage_hi$d;
    wire  [31:0] stage_hi$q;
    reg  stage_hi$clock;
    reg  ar_dir$d;
    wire  ar_dir$q;
    reg  ar_dir$clock;
    reg  commit$d;
    wire  commit$q;
    reg  commit$clock;
    reg  ar_dir_hi$d;
    wire  ar_dir_hi$q;
    reg  ar_dir_hi$clock;
    reg  [23:0] dir_sweep$d;
    wire  [23:0] dir_sweep$q;
    reg  dir_sweep$clock;
    reg  dir_swept$d;
    wire  dir_swept$q;
    reg  dir_swept$clock;
    reg  [1:0] wstate$d;
    wire  [1:0] wstate$q;
    reg  wstate$clock;
    reg  [47:0] now$d;
    wire  [47:0] now$q;
    reg  now$clock;
    reg  [47:0] cmd_time_q$d;
    wire  [47:0] cmd_time_q$q;
    reg  cmd_time_q$clock;
    reg  [3:0] cmd_op_q$d;
    wire  [3:0] cmd_op_q$q;
    reg  cmd_op_q$clock;
    reg  [23:0] cmd_qpn_q$d;
    wire  [23:0] cmd_qpn_q$q;
    reg  cmd_qpn_q$clock;
    reg  [1:0] bresp_q$d;
    wire  [1:0] bresp_q$q;
    reg  bresp_q$clock;
    reg  [31:0] base_lo$d;
    wire  [31:0] base_lo$q;
    reg  base_lo$clock;
    reg  [31:0] base_hi$d;
    wire  [31:0] base_hi$q;
    reg  base_hi$clock;
    reg  rvalid_q$d;
    wire  rvalid_q$q;
    reg  rvalid_q$clock;
    reg  [31:0] rdata_q$d;
    wire  [31:0] rdata_q$q;
    reg  rdata_q$clock;
    reg  [1:0] rresp_q$d;
    wire  [1:0] rresp_q$q;
    reg  rresp_q$clock;
    
    // Local signals
    reg  [63:0] dir_entry;
    reg  [58:0] dir_rd;
    reg  dir_we_l$0;
    reg  [23:0] dir_waddr_l$0;
    reg  [58:0] dir_wdata_l$0;
    reg  swept_ok;
    reg  write_fire;
    reg  [31:0] strobe_mask;
    reg  [31:0] base_lo_new;
    reg  [31:0] base_hi_new;
    reg  busy;
    reg  [31:0] read_data;
    reg  read_ok;
    reg  [1:0] port_sel;
    reg  [223:0] port_cnt;
    reg  [2:0] port_reg;
    
    // Sub module instances
    qp_table_two_level$regs$dirs$0 dirs$0(
        .clock(dirs$0$clock),
        .read_address(dirs$0$read_address),
        .read_data(dirs$0$read_data),
        .write_enable(dirs$0$write_enable),
        .write_address(dirs$0$write_address),
        .write_data(dirs$0$write_data)
    );
    qp_table_two_level$regs$dir_index dir_index(
        .d(dir_index$d),
        .q(dir_index$q),
        .clock(dir_index$clock)
    );
    qp_table_two_level$regs$stage_lo stage_lo(
        .d(stage_lo$d),
        .q(stage_lo$q),
        .clock(stage_lo$clock)
    );
    qp_table_two_level$regs$stage_hi stage_hi(
        .d(stage_hi$d),
        .q(stage_hi$q),
        .clock(stage_hi$clock)
    );
    qp_table_two_level$regs$ar_dir ar_dir(
        .d(ar_dir$d),
        .q(ar_dir$q),
        .clock(ar_dir$clock)
    );
    qp_table_two_level$regs$commit commit(
        .d(commit$d),
        .q(commit$q),
        .clock(commit$clock)
    );
    qp_table_two_level$regs$ar_dir_hi ar_dir_hi(
        .d(ar_dir_hi$d),
        .q(ar_dir_hi$q),
        .clock(ar_dir_hi$clock)
    );
    qp_table_two_level$regs$dir_sweep dir_sweep(
        .d(dir_sweep$d),
        .q(dir_sweep$q),
        .clock(dir_sweep$clock)
    );
    qp_table_two_level$regs$dir_swept dir_swept(
        .d(dir_swept$d),
        .q(dir_swept$q),
        .clock(dir_swept$clock)
    );
    qp_table_two_level$regs$wstate wstate(
        .d(wstate$d),
        .q(wstate$q),
        .clock(wstate$clock)
    );
    qp_table_two_level$regs$now now(
        .d(now$d),
        .q(now$q),
        .clock(now$clock)
    );
    qp_table_two_level$regs$cmd_time_q cmd_time_q(
        .d(cmd_time_q$d),
        .q(cmd_time_q$q),
        .clock(cmd_time_q$clock)
    );
    qp_table_two_level$regs$cmd_op_q cmd_op_q(
        .d(cmd_op_q$d),
        .q(cmd_op_q$q),
        .clock(cmd_op_q$clock)
    );
    qp_table_two_level$regs$cmd_qpn_q cmd_qpn_q(
        .d(cmd_qpn_q$d),
        .q(cmd_qpn_q$q),
        .clock(cmd_qpn_q$clock)
    );
    qp_table_two_level$regs$bresp_q bresp_q(
        .d(bresp_q$d),
        .q(bresp_q$q),
        .clock(bresp_q$clock)
    );
    qp_table_two_level$regs$base_lo base_lo(
        .d(base_lo$d),
        .q(base_lo$q),
        .clock(base_lo$clock)
    );
    qp_table_two_level$regs$base_hi base_hi(
        .d(base_hi$d),
        .q(base_hi$q),
        .clock(base_hi$clock)
    );
    qp_table_two_level$regs$rvalid_q rvalid_q(
        .d(rvalid_q$d),
        .q(rvalid_q$q),
        .clock(rvalid_q$clock)
    );
    qp_table_two_level$regs$rdata_q rdata_q(
        .d(rdata_q$d),
        .q(rdata_q$q),
        .clock(rdata_q$clock)
    );
    qp_table_two_level$regs$rresp_q rresp_q(
        .d(rresp_q$d),
        .q(rresp_q$q),
        .clock(rresp_q$clock)
    );
    
    // Update code
    always @(*) begin
        wstate$clock = clock;
        now$clock = clock;
        cmd_time_q$clock = clock;
        cmd_op_q$clock = clock;
        cmd_qpn_q$clock = clock;
        bresp_q$clock = clock;
        base_lo$clock = clock;
        base_hi$clock = clock;
        rvalid_q$clock = clock;
        rdata_q$clock = clock;
        rresp_q$clock = clock;
        dir_index$clock = clock;
        stage_lo$clock = clock;
        stage_hi$clock = clock;
        ar_dir$clock = clock;
        ar_dir_hi$clock = clock;
        commit$clock = clock;
        dir_sweep$clock = clock;
        dir_swept$clock = clock;
        wstate$d = wstate$q;
        now$d = now$q;
        cmd_time_q$d = cmd_time_q$q;
        cmd_op_q$d = cmd_op_q$q;
        cmd_qpn_q$d = cmd_qpn_q$q;
        bresp_q$d = bresp_q$q;
        base_lo$d = base_lo$q;
        base_hi$d = base_hi$q;
        rvalid_q$d = rvalid_q$q;
        rdata_q$d = rdata_q$q;
        rresp_q$d = rresp_q$q;
        dir_index$d = dir_index$q;
        stage_lo$d = stage_lo$q;
        stage_hi$d = stage_hi$q;
        ar_dir$d = ar_dir$q;
        ar_dir_hi$d = ar_dir_hi$q;
        commit$d = commit$q;
        dir_sweep$d = dir_sweep$q;
        dir_swept$d = dir_swept$q;
        table_base = (((base_hi$q) & 64'hffffffffffffffff) << 32'h20) | ((base_lo$q) & 64'hffffffffffffffff);
        busy = wstate$q == WriteState$Command;
        cmd_valid = busy;
        cmd_op = cmd_op_q$q;
        cmd_qpn = cmd_qpn_q$q;
        cmd_time = cmd_time_q$q;
        now$d = now$q + time_one;
        write_fire = 1'b0;
        strobe_mask = 32'h0;
        if (wstrb[32'h0]) begin
            strobe_mask = strobe_mask | 32'hff;
        end
        if (wstrb[32'h1]) begin
            strobe_mask = strobe_mask | 32'hff00;
        end
        if (wstrb[32'h2]) begin
            strobe_mask = strobe_mask | 32'hff0000;
        end
        if (wstrb[32'h3]) begin
            strobe_mask = strobe_mask | 64'hff000000;
        end
        base_lo_new = (base_lo$q & ~strobe_mask) | (wdata & strobe_mask);
        base_hi_new = ((base_hi$q & ~strobe_mask) | (wdata & strobe_mask)) & base_hi_mask;
        swept_ok = 1'b1;
        swept_ok = dir_swept$q;
        case (wstate$q)
            WriteState$Idle:
                begin
                    write_fire = awvalid & wvalid & swept_ok;
                end
            WriteState$Command:
                begin
                    if (cmd_done) begin
                        bresp_q$d = 32'h0;
                        wstate$d = WriteState$Response;
                    end
                end
            WriteState$Response:
                begin
                    if (bready & ~commit$q) begin
                        wstate$d = WriteState$Idle;
                    end
                end
        endcase
        awready = write_fire;
        wready = write_fire;
        if (write_fire) begin
            bresp_q$d = 32'h2;
            wstate$d = WriteState$Response;
            if ((awaddr == words$table_base_lo) & ~|cmd_counts[(64'h80)+:(32)]) begin
                base_lo$d = base_lo_new;
                bresp_q$d = 32'h0;
            end
            if ((awaddr == words$table_base_hi) & ~|cmd_counts[(64'h80)+:(32)]) begin
                base_hi$d = base_hi_new;
                bresp_q$d = 32'h0;
            end
            if (awaddr == words$cmd) begin
                cmd_op_q$d = wdata[(cmd_op_shift)+:(4)];
                cmd_qpn_q$d = wdata[(32'h0)+:(24)];
                cmd_time_q$d = now$q;
                wstate$d = WriteState$Command;
            end
        end
        dir_rd = 32'h0;
        dir_we_l$0 = 1'b0;
        dir_waddr_l$0 = dir_index$q[(32'h0)+:(24)];
        dir_wdata_l$0 = (((stage_hi$q) & 59'h7ffffffffffffff) << hi_page_offset$0) | (((stage_lo$q[(base_shift)+:(26)]) & 59'h7ffffffffffffff) << page_offset) | (((stage_lo$q[present_bit]) & 59'h7ffffffffffffff) << present_offset);
        if (commit$q) begin
            dir_we_l$0 = 1'b1;
            commit$d = 1'b0;
        end
        if (~dir_swept$q) begin
            dir_we_l$0 = 1'b1;
            dir_waddr_l$0 = dir_sweep$q;
            dir_wdata_l$0 = 32'h0;
            dir_sweep$d = dir_sweep$q + 32'h1;
            if (dir_sweep$q == dir_last$0) begin
                dir_swept$d = 1'b1;
            end
        end
        if (write_fire & (awaddr == words$dir_index)) begin
            if (((dir_index$q & ~strobe_mask) | (wdata & strobe_mask)) < dir_entries$0) begin
                dir_index$d = (dir_index$q & ~strobe_mask) | (wdata & strobe_mask);
                bresp_q$d = 32'h0;
            end
        end
        if (write_fire & (awaddr == words$dir_entry_lo)) begin
            stage_lo$d = (stage_lo$q & ~strobe_mask) | (wdata & strobe_mask);
            bresp_q$d = 32'h0;
        end
        if (write_fire & (awaddr == words$dir_entry_hi)) begin
            stage_hi$d = (stage_hi$q & ~strobe_mask) | (wdata & strobe_mask);
            commit$d = 1'b1;
            bresp_q$d = 32'h0;
        end
        dirs$0$clock = clock;
        dirs$0$read_address = dir_index$q[(32'h0)+:(24)];
        dirs$0$write_enable = dir_we_l$0;
        dirs$0$write_address = dir_waddr_l$0;
        dirs$0$write_data = dir_wdata_l$0;
        dir_we$0 = dir_we_l$0;
        dir_waddr$0 = dir_waddr_l$0;
        dir_wdata$0 = dir_wdata_l$0;
        dir_rd = dirs$0$read_data;
        dir_entry = (((dir_rd[(page_offset)+:(58)]) & 64'hffffffffffffffff) << base_shift) | (((dir_rd[present_offset]) & 64'hffffffffffffffff) << present_bit);
        bvalid = (wstate$q == WriteState$Response) & ~commit$q;
        bresp = bresp_q$q;
        arready = ~rvalid_q$q & ~ar_dir$q;
        rvalid = rvalid_q$q;
        rdata = rdata_q$q;
        rresp = rresp_q$q;
        read_data = 32'h0;
        read_ok = 1'b1;
        port_sel = araddr[(32'h3)+:(2)];
        port_cnt = no_counts;
        if (port_sel == 0) begin
            port_cnt = port_counts$0;
        end
        if (port_sel == 1) begin
            port_cnt = port_counts$1;
        end
        port_reg = araddr[(32'h0)+:(3)];
        read_ok = 1'b0;
        if (araddr == words$id) begin
            read_ok = 1'b1;
            read_data = id;
        end
        if (araddr == words$version) begin
            read_ok = 1'b1;
            read_data = version;
        end
        if (araddr == words$max_qps) begin
            read_ok = 1'b1;
            read_data = max_qps;
        end
        if (araddr == words$entry_bytes) begin
            read_ok = 1'b1;
            read_data = entry_bytes;
        end
        if (araddr == words$geometry) begin
            read_ok = 1'b1;
            read_data = geometry;
        end
        if (araddr == words$status) begin
            read_ok = 1'b1;
            read_data = (((init_done) & 32'hffffffff) << init_done_bit) | (((busy) & 32'hffffffff) << busy_bit);
        end
        if (araddr == words$first_index) begin
            read_ok = 1'b1;
            read_data = first_index;
        end
        if (araddr == words$table_base_lo) begin
            read_ok = 1'b1;
            read_data = base_lo$q;
        end
        if (araddr == words$table_base_hi) begin
            read_ok = 1'b1;
            read_data = base_hi$q;
        end
        if (araddr == words$dir_index) begin
            read_ok = on_chip;
            read_data = dir_index$q;
        end
        if ((araddr == words$dir_entry_lo) | (araddr == words$dir_entry_hi)) begin
            read_ok = on_chip;
        end
        if (araddr == words$cmd_result) begin
            read_ok = 1'b1;
            read_data = (((result_status) & 32'hffffffff) << result_status_shift) | (((busy) & 32'hffffffff) << result_busy_bit) | ((result_qpn) & 32'hffffffff);
        end
        if (araddr == words$alloc_ok) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'h0)+:(32)];
        end
        if (araddr == words$alloc_full) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'h20)+:(32)];
        end
        if (araddr == words$free_ok) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'h40)+:(32)];
        end
        if (araddr == words$cmd_error) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'h60)+:(32)];
        end
        if (araddr == words$quarantine_overflow) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'ha0)+:(32)];
        end
        if (araddr == words$in_use) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'h80)+:(32)];
        end
        if (araddr == words$quarantined) begin
            read_ok = 1'b1;
            read_data = cmd_counts[(64'hc0)+:(32)];
        end
        if (araddr[(32'h5)+:(5)] == port_block) begin
            read_ok = (((port_sel) & 3'h7) < ports) & (port_reg <= port$mem_error);
            if (port_reg == port$lookups) begin
                read_data = port_cnt[(64'h0)+:(32)];
            end
            if (port_reg == port$ok) begin
                read_data = port_cnt[(64'h20)+:(32)];
            end
            if (port_reg == port$out_of_range) begin
                read_data = port_cnt[(64'h40)+:(32)];
            end
            if (port_reg == port$not_allocated) begin
                read_data = port_cnt[(64'h60)+:(32)];
            end
            if (port_reg == port$stale) begin
                read_data = port_cnt[(64'h80)+:(32)];
            end
            if (port_reg == port$page_absent) begin
                read_data = port_cnt[(64'ha0)+:(32)];
            end
            if (port_reg == port$mem_error) begin
                read_data = port_cnt[(64'hc0)+:(32)];
            end
        end
        if (arvalid & ~rvalid_q$q & ~ar_dir$q) begin
            rvalid_q$d = 1'b1;
            rdata_q$d = 32'h0;
            rresp_q$d = 32'h2;
            if (read_ok) begin
                rdata_q$d = read_data;
                rresp_q$d = 32'h0;
                if (on_chip & ((araddr == words$dir_entry_lo) | (araddr == words$dir_entry_hi))) begin
                    rvalid_q$d = 1'b0;
                    ar_dir$d = 1'b1;
                    ar_dir_hi$d = araddr == words$dir_entry_hi;
                end
            end
        end
        if (ar_dir$q) begin
            ar_dir$d = 1'b0;
            rvalid_q$d = 1'b1;
            rresp_q$d = 32'h0;
            rdata_q$d = dir_entry[(32'h0)+:(32)];
            if (ar_dir_hi$q) begin
                rdata_q$d = dir_entry[(32'h20)+:(32)];
            end
        end
        if (rvalid_q$q & rready) begin
            rvalid_q$d = 1'b0;
        end
        if (rst) begin
            wstate$d = WriteState$Idle;
            now$d = 32'h0;
            base_lo$d = 32'h0;
            base_hi$d = 32'h0;
            rvalid_q$d = 1'b0;
            ar_dir$d = 1'b0;
            dir_index$d = 32'h0;
            dir_sweep$d = 32'h0;
            dir_swept$d = 1'b0;
            commit$d = 1'b0;
        end
    end
    
endmodule // qp_table_two_level$regs


module qp_table_two_level$regs$ar_dir(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$ar_dir


module qp_table_two_level$regs$ar_dir_hi(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$ar_dir_hi


module qp_table_two_level$regs$base_hi(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$base_hi


module qp_table_two_level$regs$base_lo(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$base_lo


module qp_table_two_level$regs$bresp_q(d,q,clock);
    
    // Module arguments
    input wire  [1:0] d;
    output reg  [1:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 2'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$bresp_q


module qp_table_two_level$regs$cmd_op_q(d,q,clock);
    
    // Module arguments
    input wire  [3:0] d;
    output reg  [3:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 4'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$cmd_op_q


module qp_table_two_level$regs$cmd_qpn_q(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$cmd_qpn_q


module qp_table_two_level$regs$cmd_time_q(d,q,clock);
    
    // Module arguments
    input wire  [47:0] d;
    output reg  [47:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 48'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$cmd_time_q


module qp_table_two_level$regs$commit(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$commit


module qp_table_two_level$regs$dir_index(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$dir_index


module qp_table_two_level$regs$dir_sweep(d,q,clock);
    
    // Module arguments
    input wire  [23:0] d;
    output reg  [23:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 24'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$dir_sweep


module qp_table_two_level$regs$dir_swept(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$dir_swept


module qp_table_two_level$regs$dirs$0(clock,read_address,read_data,write_enable,write_address,write_data);
    
    // Module arguments
    input wire  clock;
    input wire  [23:0] read_address;
    output reg  [58:0] read_data;
    input wire  write_enable;
    input wire  [23:0] write_address;
    input wire  [58:0] write_data;
    
    // Update code (custom)
    reg [58:0] mem [0:8191];
    reg [58:0] read_word;
    `ifndef SYNTHESIS
    initial read_word = 59'd0;
    `endif
    wire _unused_ok = &{1'b0, read_address[23:13], write_address[23:13]};
    
    always @(posedge clock) begin
       read_word <= mem[read_address[12:0]];
       if (write_enable) begin
          mem[write_address[12:0]] <= write_data[58:0];
       end
    end
    
    always @(*) read_data = {read_word};
endmodule // qp_table_two_level$regs$dirs$0


module qp_table_two_level$regs$now(d,q,clock);
    
    // Module arguments
    input wire  [47:0] d;
    output reg  [47:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 48'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$now


module qp_table_two_level$regs$rdata_q(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$rdata_q


module qp_table_two_level$regs$rresp_q(d,q,clock);
    
    // Module arguments
    input wire  [1:0] d;
    output reg  [1:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 2'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$rresp_q


module qp_table_two_level$regs$rvalid_q(d,q,clock);
    
    // Module arguments
    input wire  d;
    output reg  q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 1'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$rvalid_q


module qp_table_two_level$regs$stage_hi(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$stage_hi


module qp_table_two_level$regs$stage_lo(d,q,clock);
    
    // Module arguments
    input wire  [31:0] d;
    output reg  [31:0] q;
    input wire  clock;
    
    // Update code (custom)
    initial begin
       q = 32'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$stage_lo


module qp_table_two_level$regs$wstate(d,q,clock);
    
    // Module arguments
    input wire  [1:0] d;
    output reg  [1:0] q;
    input wire  clock;
    
    // Enums
    localparam WriteState$Idle = 0;
    localparam WriteState$Command = 1;
    localparam WriteState$Response = 2;
    
    // Update code (custom)
    initial begin
       q = 64'h0;
    end
    
    always @(posedge clock) begin
       q <= d;
    end
          
endmodule // qp_table_two_level$regs$wstate
