// naa_req's output beat, bit by bit one LUT6: while sending (valid_i), byte i is ICRC byte (i + 2) % 4 where
// ien_i[i] (the complement of the ICRC register after this beat, crc_take_i, in the ICRC's beat (icb_i), else
// of rcrc_i), else the composed byte (pre_i); 0 while not sending. A module of its own so that the ICRC's last
// XOR level and this choice are not merged into wider cells behind it (docs/synthesis.md "naa_req after
// branch naa23").
module naa_req_tx_out (
  input  logic                                valid_i,
  input  logic                                icb_i,
  input  logic [nt_pkg::StreamBytes-1:0]      ien_i,
  input  logic [31:0]                         crc_take_i,
  input  logic [31:0]                         rcrc_i,
  input  logic [nt_pkg::StreamBits-1:0]       pre_i,
  output logic [nt_pkg::StreamBits-1:0]       data_o
);
  logic [31:0] icrc;
  always_comb begin
    icrc = ~(icb_i ? crc_take_i : rcrc_i);
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
      data_o[8*i+:8] = !valid_i ? 8'd0 : ien_i[i] ? icrc[8*((i+2)%4)+:8] : pre_i[8*i+:8];
    end
  end
endmodule
