//! Small hand-written designs shared by the tests.
#![allow(dead_code)]

use qptable_sim::{BuildOptions, Model};

/// Counter with a combinational output and wide ports.
pub const COUNTER: &str = r#"
module counter(
    input clk,
    input rst,
    input en,
    input [15:0] addend,
    input [99:0] wide_in,
    output reg [31:0] count,
    output [31:0] count_plus,   // combinational: count + addend (this cycle's input)
    output [63:0] big,
    output [99:0] wide_out
);
    always @(posedge clk) begin
        if (rst) count <= 32'd0;
        else if (en) count <= count + 32'd1;
    end
    assign count_plus = count + {16'd0, addend};
    assign big = {count, ~count};
    assign wide_out = {wide_in[49:0], wide_in[99:50]};
endmodule
"#;

/// Ready/valid FIFO: depth 4, a register stage in front, so latency 2 and bounded
/// occupancy; `s_x_req_ready` does not depend on `m_x_rsp_ready` combinationally.
/// `BROKEN` = 1 drops `m_x_rsp_valid` without a handshake every 8th cycle, 2 changes the
/// payload while stalled.
pub fn echo(broken: u32) -> String {
    format!(
        r#"
module echo #(parameter BROKEN = {broken}) (
    input clk,
    input rst,
    input s_x_req_valid,
    output s_x_req_ready,
    input [23:0] s_x_req_qpn,
    input [7:0] s_x_req_tag,
    output m_x_rsp_valid,
    input m_x_rsp_ready,
    output [23:0] m_x_rsp_qpn,
    output [7:0] m_x_rsp_tag,
    output [31:0] m_x_rsp_sum
);
    reg in_v;
    reg [31:0] in_d;
    reg [31:0] mem [0:3];
    reg [2:0] rd, wr;
    wire [2:0] count = wr - rd;
    reg [2:0] tick;
    wire full = count == 3'd4;
    // Accept when the input stage is empty or drains this cycle into a non-full FIFO.
    assign s_x_req_ready = !in_v || !full;
    wire push = in_v && !full;
    wire out_v = count != 3'd0;
    wire pop = out_v && m_x_rsp_ready && !(BROKEN == 1 && tick == 3'd7);
    assign m_x_rsp_valid = out_v && !(BROKEN == 1 && tick == 3'd7);
    wire [31:0] head = mem[rd[1:0]];
    assign m_x_rsp_qpn = head[31:8];
    assign m_x_rsp_tag = (BROKEN == 2) ? head[7:0] ^ {{5'd0, tick}} : head[7:0];
    assign m_x_rsp_sum = {{8'd0, head[31:8]}} + {{24'd0, head[7:0]}};
    always @(posedge clk) begin
        if (rst) begin
            in_v <= 1'b0; rd <= 3'd0; wr <= 3'd0; tick <= 3'd0;
        end else begin
            tick <= tick + 3'd1;
            if (push) begin mem[wr[1:0]] <= in_d; wr <= wr + 3'd1; end
            if (pop) rd <= rd + 3'd1;
            if (s_x_req_valid && s_x_req_ready) begin
                in_v <= 1'b1; in_d <= {{s_x_req_qpn, s_x_req_tag}};
            end else if (push) in_v <= 1'b0;
        end
    end
endmodule
"#
    )
}

/// AXI4-Lite register slave: 0x0 ID (RO), 0x4/0x8/0xC RW with byte strobes, 0x10 a slow
/// "command" (write answers after 20 cycles, counts in 0x10 on read), 0x14 busy flag (RO);
/// everything else SLVERR. One write at a time, reads served while a command runs.
pub const AXIL_REGS: &str = r#"
module axil_regs(
    input clk,
    input rst,
    input [11:0] s_axil_awaddr, input [2:0] s_axil_awprot, input s_axil_awvalid, output s_axil_awready,
    input [31:0] s_axil_wdata, input [3:0] s_axil_wstrb, input s_axil_wvalid, output s_axil_wready,
    output reg [1:0] s_axil_bresp, output reg s_axil_bvalid, input s_axil_bready,
    input [11:0] s_axil_araddr, input [2:0] s_axil_arprot, input s_axil_arvalid, output s_axil_arready,
    output reg [31:0] s_axil_rdata, output reg [1:0] s_axil_rresp, output reg s_axil_rvalid, input s_axil_rready
);
    reg [31:0] r0, r1, r2, cmds;
    reg aw_got, w_got, busy;
    reg [11:0] awa;
    reg [31:0] wd;
    reg [3:0] ws;
    reg [5:0] delay;
    assign s_axil_awready = !aw_got && !busy && !s_axil_bvalid;
    assign s_axil_wready = !w_got && !busy && !s_axil_bvalid;
    assign s_axil_arready = !s_axil_rvalid;
    function [31:0] merge(input [31:0] old, input [31:0] d, input [3:0] s);
        merge = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
                 s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
    endfunction
    always @(posedge clk) begin
        if (rst) begin
            aw_got <= 0; w_got <= 0; busy <= 0; delay <= 0;
            s_axil_bvalid <= 0; s_axil_bresp <= 0; s_axil_rvalid <= 0; s_axil_rresp <= 0;
            s_axil_rdata <= 0; r0 <= 0; r1 <= 0; r2 <= 0; cmds <= 0;
        end else begin
            if (s_axil_awvalid && s_axil_awready) begin aw_got <= 1; awa <= s_axil_awaddr; end
            if (s_axil_wvalid && s_axil_wready) begin w_got <= 1; wd <= s_axil_wdata; ws <= s_axil_wstrb; end
            if (aw_got && w_got && !busy && !s_axil_bvalid) begin
                aw_got <= 0; w_got <= 0;
                case (awa[11:2])
                    10'd1: begin r0 <= merge(r0, wd, ws); s_axil_bresp <= 2'd0; s_axil_bvalid <= 1; end
                    10'd2: begin r1 <= merge(r1, wd, ws); s_axil_bresp <= 2'd0; s_axil_bvalid <= 1; end
                    10'd3: begin r2 <= merge(r2, wd, ws); s_axil_bresp <= 2'd0; s_axil_bvalid <= 1; end
                    10'd4: begin busy <= 1; delay <= 6'd20; s_axil_bresp <= 2'd0; end
                    default: begin s_axil_bresp <= 2'd2; s_axil_bvalid <= 1; end
                endcase
            end
            if (busy) begin
                if (delay == 0) begin busy <= 0; s_axil_bvalid <= 1; cmds <= cmds + 1; end
                else delay <= delay - 1;
            end
            if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 0;
            if (s_axil_arvalid && s_axil_arready) begin
                s_axil_rvalid <= 1;
                s_axil_rresp <= 2'd0;
                case (s_axil_araddr[11:2])
                    10'd0: s_axil_rdata <= 32'h51505431;
                    10'd1: s_axil_rdata <= r0;
                    10'd2: s_axil_rdata <= r1;
                    10'd3: s_axil_rdata <= r2;
                    10'd4: s_axil_rdata <= cmds;
                    10'd5: s_axil_rdata <= {31'd0, busy};
                    default: begin s_axil_rdata <= 32'd0; s_axil_rresp <= 2'd2; end
                endcase
            end else if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 0;
        end
    end
endmodule
"#;

pub fn build(verilog: &str, top: &str) -> Model {
    Model::build(verilog, top, &BuildOptions::default()).expect("model builds")
}

/// Seed from `QPTABLE_SEED` or the clock, printed so a failure can be replayed.
pub fn seed(test: &str) -> u64 {
    let s = std::env::var("QPTABLE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!("{test}: seed {s} (replay with QPTABLE_SEED={s})");
    s
}
