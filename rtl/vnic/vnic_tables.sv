// The VNIC port table and the MAC -> DLID table, written one entry per cycle by the programming port (the
// Ethernet Manager's settings, docs/vnic.md "Programming port"). Registers: every entry is read in
// parallel by the lookups.
`include "nt_ports.svh"
module vnic_tables
(
  `NT_CLK_RST,
  `NT_CFG_IN(cfg),
  output vnic_pkg::port_cfg_t  [nt_pkg::VnicPorts-1:0]           ports_o,
  output vnic_pkg::mac_entry_t [nt_pkg::VnicMacEntries-1:0]      macs_o
);
  vnic_pkg::port_cfg_t  [nt_pkg::VnicPorts-1:0]      ports_q;
  vnic_pkg::mac_entry_t [nt_pkg::VnicMacEntries-1:0] macs_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ports_q <= '0;
      macs_q  <= '0;
    end else if (cfg_valid_i) begin
      if (cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::VnicTblPort) && cfg_index_i < nt_pkg::CfgIndexBits'(nt_pkg::VnicPorts)) begin
        ports_q[cfg_index_i[vnic_pkg::PortIdxBits-1:0]] <= cfg_data_i[$bits(ports_q) / nt_pkg::VnicPorts-1:0];
      end
      if (cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::VnicTblMac) && cfg_index_i < nt_pkg::CfgIndexBits'(nt_pkg::VnicMacEntries)) begin
        macs_q[cfg_index_i[$clog2(nt_pkg::VnicMacEntries)-1:0]] <= cfg_data_i[$bits(macs_q) / nt_pkg::VnicMacEntries-1:0];
      end
    end
  end

  assign ports_o = ports_q;
  assign macs_o  = macs_q;

  logic unused_cfg;
  assign unused_cfg = ^cfg_data_i[nt_pkg::CfgDataBits-1:$bits(ports_q) / nt_pkg::VnicPorts];
endmodule
