// Stage H of the load balancer's pipelines (lb_top, udplb_top): holds one beat until its successor is
// offered (or it is the frame's last), so the beat leaves with its successor's bytes beside it; numbers the
// beats of a frame (saturating at 2) and keeps the frame's ingress port, sampled with its first beat. Also
// forms the parser's two-beat window of a first beat.
`include "nt_ports.svh"
module lb_lookahead
(
  `NT_CLK_RST,
  input  logic                   adv_i,         // the pipeline advances (it is s_ready_o)
  input  logic                   s_valid_i,
  input  logic [nt_pkg::StreamBits-1:0]  s_data_i,
  input  logic [nt_pkg::StreamBytes-1:0] s_keep_i,
  input  logic                   s_last_i,
  input  logic [3:0]             s_port_i,
  output logic                   s_first_o,     // the offered beat is a frame's first
  output logic                   emit_o,        // the held beat leaves H (when adv_i)
  output logic [nt_pkg::StreamBits-1:0]  h_data_o,
  output logic [nt_pkg::StreamBytes-1:0] h_keep_o,
  output logic                   h_last_o,
  output logic [1:0]             h_idx_o,
  output logic [3:0]             h_port_o,
  output logic [nt_pkg::WindowBits-1:0]  window_o,      // the held beat and its successor, byte 0 in bits 7:0
  output logic [7:0]             window_len_o   // valid bytes in the window
);
  logic                   h_valid_q, h_last_q;
  logic [nt_pkg::StreamBits-1:0]  h_data_q;
  logic [nt_pkg::StreamBytes-1:0] h_keep_q;
  logic [1:0]             h_idx_q, in_idx_q;
  logic [3:0]             h_port_q, in_port_q, s_port;

  assign s_first_o = in_idx_q == 2'd0;
  assign s_port    = s_first_o ? s_port_i : in_port_q;  // constant over a frame
  assign emit_o    = h_valid_q && (h_last_q || s_valid_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_valid_q <= 1'b0;
      h_data_q  <= '0;
      h_keep_q  <= '0;
      h_last_q  <= 1'b0;
      h_idx_q   <= '0;
      h_port_q  <= '0;
      in_idx_q  <= '0;
      in_port_q <= '0;
    end else if (adv_i) begin
      if (s_valid_i) begin
        h_valid_q <= 1'b1;
        h_data_q  <= s_data_i;
        h_keep_q  <= s_keep_i;
        h_last_q  <= s_last_i;
        h_idx_q   <= in_idx_q;
        h_port_q  <= s_port;
        in_port_q <= s_port;
        in_idx_q  <= s_last_i ? 2'd0 : (in_idx_q == 2'd2 ? 2'd2 : in_idx_q + 2'd1);
      end else if (emit_o) begin
        h_valid_q <= 1'b0;
      end
    end
  end

  assign h_data_o     = h_data_q;
  assign h_keep_o     = h_keep_q;
  assign h_last_o     = h_last_q;
  assign h_idx_o      = h_idx_q;
  assign h_port_o     = h_port_q;
  assign window_o     = h_last_q ? {{nt_pkg::StreamBits{1'b0}}, h_data_q} : {s_data_i, h_data_q};
  // Bytes of a beat from its keep (keep is contiguous): nt_pkg::keep_count, three LUT levels.

  assign window_len_o = h_last_q ? 8'(nt_pkg::keep_count(h_keep_q)) : 8'(nt_pkg::StreamBytes) + 8'(nt_pkg::keep_count(s_keep_i));
endmodule
