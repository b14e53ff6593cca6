// reroute_top's own assertions (docs/assertions.md) and its r stream's; its s and m ports are checked by
// rtl/common/nt_stream_ports_sva.sv. Bound by the `bind` at the end of this file, so the RTL itself is not
// edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module reroute_top_sva (
  `NT_CLK_RST,
  input logic                            r_ready_o,
  input logic                            s_ready_o,
  input logic                            m_valid_o,
  input logic                            idle_o,
  input logic                            rx_full_q,
  input logic                            cx_full_q,
  input logic                            ob_valid_q,
  input logic                            a_wr,
  input logic                            wsel_q,
  input logic                            ob_bank_q,
  input logic                            s_valid_i,
  input logic [nt_pkg::StreamBytes-1:0]  s_keep_i,
  input logic [15:0]                     rx_len_q,
  input logic                            a_over,
  input logic [7:0]                      cx_len_q,
  input logic                            k_lo_q,
  input logic                            k_hi_q,
  input logic [15:0]                     now_q,
  input logic [15:0]                     cfg_path_busy_us_i,
  input logic [nt_pkg::ReroutePaths-1:0] busy_q,
  input logic [nt_pkg::ReroutePaths-1:0] p_busy_q,
  input logic [15:0]                     busy_ts_q [nt_pkg::ReroutePaths],
  input logic [1:0][1:0][nt_pkg::StreamBits-1:0] hd_q,
  input logic [nt_pkg::StreamBits-1:0]   cx_q [2],
  input logic [1:0][15:0]                hb4_q,
  input logic [1:0][15:0]                hb6_q,
  input logic [1:0][15:0]                hb6b_q,
  input logic [1:0]                      hv6_q,
  input logic [15:0]                     cb4_q,
  input logic [15:0]                     cb6_q,
  input logic [15:0]                     cb6b_q
);
`include "nt_assert.svh"
  `NT_ASSERT_KNOWN(outputs_known, {r_ready_o, idle_o})
  // the one-frame receive buffers take nothing while full: a full buffer holds its port's ready low
  `NT_ASSERT_NO_OVERFLOW(rx_overflow, s_ready_o, rx_full_q)
  `NT_ASSERT_NO_OVERFLOW(cx_overflow, r_ready_o, cx_full_q)
  // the frame-bank RAM's read needs no bypass: A never writes the bank O is sending
  `NT_ASSERT(bank_apart, ob_valid_q |-> !(a_wr && wsel_q == ob_bank_q))
  // A's length check by keep bit (reroute_top a_over) is the byte sum's: rx_len_q never exceeds the limit,
  // and for a valid beat a_over is rx_len_q + popcount(keep) > RerouteMaxBytes
  `NT_ASSERT(rx_len_bound, 32'(rx_len_q) <= nt_pkg::RerouteMaxBytes)
  `NT_ASSERT(a_over_sum, s_valid_i |-> a_over == (32'(rx_len_q) + 32'($countones(s_keep_i)) > nt_pkg::RerouteMaxBytes))
  // K's beat flags (reroute_top k_lo_q / k_hi_q) are the length compares they stand for
  `NT_ASSERT(k_slots, k_lo_q == (cx_len_q < 8'd64) &&
                     k_hi_q == (cx_len_q >= 8'd64 && cx_len_q < 8'(nt_pkg::RerouteCtrlBytes)))
  // the registered path-busy checks (reroute_top p_busy_q) are the live ones: busy and the stamp not expired
  // at `now` (now_q), for every path in every cycle (the configuration quasi-static)
  // (the live value in an always_comb: Verilator 5.006 fails on an unpacked-array read inside the property)
  logic [nt_pkg::ReroutePaths-1:0] p_busy_live;
  always_comb begin
    for (int unsigned p = 0; p < nt_pkg::ReroutePaths; p++) begin
      p_busy_live[p] = busy_q[p] && !reroute_pkg::elapsed(now_q, busy_ts_q[p], cfg_path_busy_us_i);
    end
  end
  `NT_ASSERT(p_busy_reg, p_busy_q == p_busy_live)
  // the registered hash parts and family flags (reroute_top hb*_q, hv6_q, cb*_q) are those of the beats they
  // were written with, in every cycle
  logic [1:0] hash_ok;
  logic       chash_ok;
  always_comb begin
    for (int unsigned b = 0; b < 2; b++) begin
      hash_ok[b] = hb4_q[b] == reroute_pkg::hash_b0(hd_q[b][0], 1'b0, 1'b0) &&
                   hb6_q[b] == reroute_pkg::hash_b0(hd_q[b][0], 1'b1, 1'b0) &&
                   hb6b_q[b] == reroute_pkg::hash_b1_lin(hd_q[b][1], 1'b0) &&
                   hv6_q[b] == (reorder_pkg::wb16({{nt_pkg::StreamBits{1'b0}}, hd_q[b][0]}, 12) == 16'h86dd);
    end
    chash_ok = cb4_q == reroute_pkg::hash_b0(cx_q[0], 1'b0, 1'b1) && cb6_q == reroute_pkg::hash_b0(cx_q[0], 1'b1, 1'b1) &&
               cb6b_q == reroute_pkg::hash_b1_lin(cx_q[1], 1'b1);
  end
  `NT_ASSERT(hash_parts, &hash_ok)
  `NT_ASSERT(ctrl_hash_parts, chash_ok)
  // idle means nothing buffered and nothing offered
  `NT_ASSERT(idle_quiet, idle_o |-> !m_valid_o && !ob_valid_q)
endmodule

bind reroute_top reroute_top_sva u_sva (
  .clk_i, .rst_ni, .r_ready_o, .s_ready_o, .m_valid_o, .idle_o, .rx_full_q, .cx_full_q, .ob_valid_q,
  .a_wr, .wsel_q, .ob_bank_q, .s_valid_i, .s_keep_i, .rx_len_q, .a_over, .cx_len_q, .k_lo_q, .k_hi_q, .now_q,
  .cfg_path_busy_us_i, .busy_q, .p_busy_q, .busy_ts_q, .hd_q, .cx_q, .hb4_q, .hb6_q, .hb6b_q, .hv6_q, .cb4_q,
  .cb6_q, .cb6b_q);
// the control stream from the destination ToR (the second input)
bind reroute_top nt_stream_checker #(.KeepBits(nt_pkg::StreamBytes)) u_sva_r (
  .clk_i, .rst_ni, .valid_i(r_valid_i), .ready_i(r_ready_o), .data_i(r_data_i), .keep_i(r_keep_i),
  .last_i(r_last_i));
`endif  // SYNTHESIS
