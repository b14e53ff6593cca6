// Simulation-only wrapper: udplb_top plus the model's outputs as extra inputs, so an FST shows the RTL and
// the C++ model side by side around a lockstep divergence.
module udplb_tb_top
  import nt_pkg::*;
(
  input  logic                                      clk_i,
  input  logic                                      rst_ni,
  input  logic                                      s_valid_i,
  input  logic [StreamBits-1:0]                     s_data_i,
  input  logic [StreamBytes-1:0]                    s_keep_i,
  input  logic                                      s_last_i,
  input  logic [3:0]                                s_port_i,
  output logic                                      s_ready_o,
  output logic                                      m_valid_o,
  output logic [StreamBits-1:0]                     m_data_o,
  output logic [StreamBytes-1:0]                    m_keep_o,
  output logic                                      m_last_o,
  output logic [3:0]                                m_port_o,
  input  logic                                      m_ready_i,
  input  logic                                      cfg_valid_i,
  input  logic [UdplbCfgTableBits-1:0]              cfg_table_i,
  input  logic [UdplbCfgIndexBits-1:0]              cfg_index_i,
  input  logic [CfgDataBits-1:0]                    cfg_data_i,
  output logic [LbCounterBits-1:0]                  pkts_in_o,
  output logic [LbCounterBits-1:0]                  pkts_out_o,
  output logic [LbCounterBits-1:0]                  to_host_o,
  output logic [LbCounterBits-1:0]                  replies_o,
  output logic [UdplbDropReasons*LbCounterBits-1:0] drops_o,
  output logic [UdplbInstances*LbCounterBits-1:0]   inst_rx_o,
  output logic [UdplbInstances*LbCounterBits-1:0]   inst_rx_v2_o,
  output logic [UdplbInstances*LbCounterBits-1:0]   inst_rx_v3_o,
  output logic [UdplbInstances*LbCounterBits-1:0]   inst_tx_o,
  output logic [UdplbInstances*LbCounterBits-1:0]   inst_drops_o,
  // What the C++ model drives this cycle (traced only).
  input  logic                                      model_s_ready_i,
  input  logic                                      model_m_valid_i,
  input  logic [StreamBits-1:0]                     model_m_data_i,
  input  logic [StreamBytes-1:0]                    model_m_keep_i,
  input  logic                                      model_m_last_i,
  input  logic [3:0]                                model_m_port_i
);
  udplb_top u_dut (
    .clk_i,
    .rst_ni,
    .s_valid_i,
    .s_data_i,
    .s_keep_i,
    .s_last_i,
    .s_port_i,
    .s_ready_o,
    .m_valid_o,
    .m_data_o,
    .m_keep_o,
    .m_last_o,
    .m_port_o,
    .m_ready_i,
    .cfg_valid_i,
    .cfg_table_i,
    .cfg_index_i,
    .cfg_data_i,
    .pkts_in_o,
    .pkts_out_o,
    .to_host_o,
    .replies_o,
    .drops_o,
    .inst_rx_o,
    .inst_rx_v2_o,
    .inst_rx_v3_o,
    .inst_tx_o,
    .inst_drops_o
  );

  logic unused_model;
  assign unused_model = ^{model_s_ready_i, model_m_valid_i, model_m_data_i, model_m_keep_i, model_m_last_i,
                          model_m_port_i};
endmodule
