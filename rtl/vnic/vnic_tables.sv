// The VNIC port table and the MAC -> DLID table, written one entry per cycle by the programming port (the
// Ethernet Manager's settings, docs/vnic.md "Programming port"). Registers: every entry is read in
// parallel by the lookups.
module vnic_tables
  import nt_pkg::*;
  import vnic_pkg::*;
(
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 cfg_valid_i,
  input  logic [CfgTableBits-1:0]              cfg_table_i,
  input  logic [CfgIndexBits-1:0]              cfg_index_i,
  input  logic [CfgDataBits-1:0]               cfg_data_i,
  output port_cfg_t  [VnicPorts-1:0]           ports_o,
  output mac_entry_t [VnicMacEntries-1:0]      macs_o
);
  port_cfg_t  [VnicPorts-1:0]      ports_q;
  mac_entry_t [VnicMacEntries-1:0] macs_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ports_q <= '0;
      macs_q  <= '0;
    end else if (cfg_valid_i) begin
      if (cfg_table_i == CfgTableBits'(VnicTblPort) && cfg_index_i < CfgIndexBits'(VnicPorts)) begin
        ports_q[cfg_index_i[PortIdxBits-1:0]] <= cfg_data_i[$bits(port_cfg_t)-1:0];
      end
      if (cfg_table_i == CfgTableBits'(VnicTblMac) && cfg_index_i < CfgIndexBits'(VnicMacEntries)) begin
        macs_q[cfg_index_i[$clog2(VnicMacEntries)-1:0]] <= cfg_data_i[$bits(mac_entry_t)-1:0];
      end
    end
  end

  assign ports_o = ports_q;
  assign macs_o  = macs_q;

  logic unused_cfg;
  assign unused_cfg = ^cfg_data_i[CfgDataBits-1:$bits(port_cfg_t)];
endmodule
