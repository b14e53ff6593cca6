// The stream assertions every block shares (docs/assertions.md): its s (input) and m (output) stream ports
// checked by nt_stream_checker, the output's sideband (an output port number, a path, a hold time) stable
// with its beat, and no unknown value on the handshake outputs. The `bind`s at the end of this file put it on
// every block's top, so no RTL file is edited; a bind whose target is not in a build is ignored. The blocks'
// own assertions (more ports, FIFOs, FSMs, index bounds) are in rtl/<block>/*_sva.sv. Simulation only.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module nt_stream_ports_sva #(
  parameter int unsigned SideBits = 1
) (
  `NT_CLK_RST,
  `NT_STREAM_IN_MON(s),
  `NT_STREAM_OUT_MON(m),
  input logic [SideBits-1:0]             m_side_o
);
`include "nt_assert.svh"
  nt_stream_checker #(.KeepBits(nt_pkg::StreamBytes)) u_s (
    .clk_i, .rst_ni, .valid_i(s_valid_i), .ready_i(s_ready_o), .data_i(s_data_i), .keep_i(s_keep_i),
    .last_i(s_last_i));
  nt_stream_checker #(.KeepBits(nt_pkg::StreamBytes)) u_m (
    .clk_i, .rst_ni, .valid_i(m_valid_o), .ready_i(m_ready_i), .data_i(m_data_o), .keep_i(m_keep_o),
    .last_i(m_last_o));
  `NT_ASSERT(m_side_stable, m_valid_o && !m_ready_i |=> $stable(m_side_o))
  `NT_ASSERT_KNOWN(handshake_known, {s_ready_o, m_valid_o})
endmodule

`define NT_BIND_STREAM_PORTS(top, side, bits) \
  bind top nt_stream_ports_sva #(.SideBits(bits)) u_sva_ports ( \
    .clk_i, .rst_ni, .s_valid_i, .s_data_i, .s_keep_i, .s_last_i, .s_ready_o, .m_valid_o, .m_data_o, \
    .m_keep_o, .m_last_o, .m_side_o(side), .m_ready_i);
`NT_BIND_STREAM_PORTS(lb_top, 1'b0, 1)
`NT_BIND_STREAM_PORTS(udplb_top, m_port_o, 4)
`NT_BIND_STREAM_PORTS(rdma_top, 1'b0, 1)
`NT_BIND_STREAM_PORTS(naa_top, 1'b0, 1)
`NT_BIND_STREAM_PORTS(re_top, 1'b0, 1)
`NT_BIND_STREAM_PORTS(reorder_top, ({m_held_o, m_hold_us_o}), 17)
`NT_BIND_STREAM_PORTS(reroute_top, m_path_o, 8)
`NT_BIND_STREAM_PORTS(vnic_encap_top, m_port_o, $clog2(nt_pkg::VnicPorts))
`NT_BIND_STREAM_PORTS(vnic_decap_top, m_port_o, $clog2(nt_pkg::VnicPorts))
`undef NT_BIND_STREAM_PORTS
`endif  // SYNTHESIS
