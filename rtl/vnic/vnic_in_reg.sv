// The input register of both VNIC tops (issue 27: it cuts the input port from the store-and-forward buffer's
// byte count and length checks): one beat held, loaded when empty or when the buffer takes the held beat, so
// one cycle of latency at full throughput. sop_o says the next beat to load starts a frame; each top registers
// its first-beat lookups on load_o && sop_o.
`include "nt_ports.svh"
module vnic_in_reg (
  `NT_CLK_RST,
  input  logic                           s_valid_i,
  output logic                           s_ready_o,
  input  logic [nt_pkg::StreamBits-1:0]  s_data_i,
  input  logic [nt_pkg::StreamBytes-1:0] s_keep_i,
  input  logic                           s_last_i,
  input  logic [6:0]                     s_nbytes_i,
  output logic                           load_o,
  output logic                           sop_o,
  output logic                           take_o,
  output logic                           m_valid_o,
  input  logic                           m_ready_i,
  output logic [nt_pkg::StreamBits-1:0]  m_data_o,
  output logic [nt_pkg::StreamBytes-1:0] m_keep_o,
  output logic                           m_last_o,
  output logic [6:0]                     m_nbytes_o
);
  logic v_q, sop_q;

  assign s_ready_o = ~v_q | m_ready_i;
  assign load_o    = s_valid_i & s_ready_o;
  assign take_o    = v_q & m_ready_i;
  assign sop_o     = sop_q;
  assign m_valid_o = v_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q   <= 1'b0;
      sop_q <= 1'b1;
    end else begin
      if (load_o) begin
        v_q   <= 1'b1;
        sop_q <= s_last_i;
      end else if (take_o) begin
        v_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (load_o) begin
      m_data_o   <= s_data_i;
      m_keep_o   <= s_keep_i;
      m_last_o   <= s_last_i;
      m_nbytes_o <= s_nbytes_i;
    end
  end
endmodule
