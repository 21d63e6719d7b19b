// Behavioural simulation model of the Lattice ECP5 DP16KD block RAM: the subset that the
// qptable generator instantiates with `fpga = ecp5` (src/hw/ram.rs): both ports at the same
// data width (1, 2, 4, 9 or 18), port A writing (and reading when it does not write), port B reading only (WEB is not
// modelled),
// CE and OCE high, no reset, no chip-select decode, REGMODE "NOREG" or "OUTREG".
//
// Written for simulation only (Verilator and Icarus), from Lattice TN1264 (Memory Usage Guide
// for ECP5 Devices): the array is 1024 rows of 18 bits; at width W the word address is
// AD[13:4] (the row) and the low address bits pick the W-bit slice of the row (AD[3] at width
// 9, AD[3:2] at 4, AD[3:1] at 2, AD[3:0] at 1; at width 18, AD[1:0] are byte enables, taken as
// both set). A read returns the word before a write at the same edge (read-first, both for
// the port's own write, which does not read, and for the other port's): yosys 0.23's own
// ecp5/cells_sim.v declares DP16KD without any behaviour, so it cannot be simulated.
// Not synthesized: synthesis uses the vendor primitive.
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNUSEDSIGNAL */
module DP16KD (
   input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
   input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
   input CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
   output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
   input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
   input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
   input CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
   output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
   parameter DATA_WIDTH_A = 18;
   parameter DATA_WIDTH_B = 18;
   parameter [47:0] REGMODE_A = "NOREG";
   parameter [47:0] REGMODE_B = "NOREG";
   parameter WRITEMODE_A = "NORMAL";
   parameter WRITEMODE_B = "NORMAL";
   parameter CSDECODE_A = "0b000";
   parameter CSDECODE_B = "0b000";
   parameter RESETMODE = "SYNC";
   parameter GSR = "ENABLED";

   reg [17:0] mem [0:1023];

   function [9:0] row(input [13:0] ad);
      row = ad[13:4];
   endfunction

   // The W-bit slice of a row that the low address bits select, at bit 0.
   function [17:0] pick(input [17:0] r, input [13:0] ad, input integer w);
      case (w)
         18: pick = r;
         9: pick = ad[3] ? {9'd0, r[17:9]} : {9'd0, r[8:0]};
         4: pick = {14'd0, r[ad[3:2] * 4 +: 4]};
         2: pick = {16'd0, r[ad[3:1] * 2 +: 2]};
         default: pick = {17'd0, r[{1'b0, ad[3:0]}]};
      endcase
   endfunction

   // The row with the W-bit slice the low address bits select replaced by d.
   function [17:0] merge(input [17:0] r, input [17:0] d, input [13:0] ad, input integer w);
      begin
         merge = r;
         case (w)
            18: merge = d;
            9: if (ad[3]) merge[17:9] = d[8:0]; else merge[8:0] = d[8:0];
            4: merge[ad[3:2] * 4 +: 4] = d[3:0];
            2: merge[ad[3:1] * 2 +: 2] = d[1:0];
            default: merge[{1'b0, ad[3:0]}] = d[0];
         endcase
      end
   endfunction

   // Port A.
   wire [17:0] di_a = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
   wire [13:0] ad_a = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
   reg [17:0] rd_a = 18'd0;
   reg [17:0] out_a = 18'd0;
   assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = (REGMODE_A == "OUTREG") ? out_a : rd_a;
   always @(posedge CLKA) begin
      if (CEA) begin
         if (WEA) begin
            mem[row(ad_a)] <= merge(mem[row(ad_a)], di_a, ad_a, DATA_WIDTH_A);
         end else begin
            rd_a <= pick(mem[row(ad_a)], ad_a, DATA_WIDTH_A);
         end
      end
      if (OCEA) out_a <= rd_a;
   end

   // Port B.
   wire [17:0] di_b = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
   wire [13:0] ad_b = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
   reg [17:0] rd_b = 18'd0;
   reg [17:0] out_b = 18'd0;
   assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = (REGMODE_B == "OUTREG") ? out_b : rd_b;
   always @(posedge CLKB) begin
      if (CEB) begin
         rd_b <= pick(mem[row(ad_b)], ad_b, DATA_WIDTH_B);
      end
      if (OCEB) out_b <= rd_b;
   end
endmodule
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on DECLFILENAME */
