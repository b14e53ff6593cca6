// The VNIC port table and the MAC -> DLID table, written one entry per cycle by the programming port (the
// Ethernet Manager's settings, docs/vnic.md "Programming port"). Registers: every entry is read in
// parallel by the lookups. Each table is a 2-D packed vector of entry words (vnic_pkg::PortCfgBits,
// MacEntryBits), not a packed array of the entry structs, which Yosys 0.55 reads one element wide; the
// users read an entry whole into a struct (docs/synthesis.md "One RTL source").
`include "nt_ports.svh"
module vnic_tables
(
  `NT_CLK_RST,
  `NT_CFG_IN(cfg),
  output logic [nt_pkg::VnicPorts-1:0][vnic_pkg::PortCfgBits-1:0]       ports_o,  // port_cfg_t words
  output logic [nt_pkg::VnicMacEntries-1:0][vnic_pkg::MacEntryBits-1:0] macs_o    // mac_entry_t words
);
  logic [nt_pkg::VnicPorts-1:0][vnic_pkg::PortCfgBits-1:0]       ports_q;
  logic [nt_pkg::VnicMacEntries-1:0][vnic_pkg::MacEntryBits-1:0] macs_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ports_q <= '0;
      macs_q  <= '0;
    end else if (cfg_valid_i) begin
      if (cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::VnicTblPort) && cfg_index_i < nt_pkg::CfgIndexBits'(nt_pkg::VnicPorts)) begin
        ports_q[cfg_index_i[vnic_pkg::PortIdxBits-1:0]] <= cfg_data_i[vnic_pkg::PortCfgBits-1:0];
      end
      if (cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::VnicTblMac) && cfg_index_i < nt_pkg::CfgIndexBits'(nt_pkg::VnicMacEntries)) begin
        macs_q[cfg_index_i[$clog2(nt_pkg::VnicMacEntries)-1:0]] <= cfg_data_i[vnic_pkg::MacEntryBits-1:0];
      end
    end
  end

  assign ports_o = ports_q;
  assign macs_o  = macs_q;

  logic unused_cfg;
  assign unused_cfg = ^cfg_data_i[nt_pkg::CfgDataBits-1:vnic_pkg::PortCfgBits];
endmodule
