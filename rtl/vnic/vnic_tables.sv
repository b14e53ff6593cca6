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

  // One write enable per entry from a decode of the index, and each entry written at a constant position
  // (issue 27 depth: `ports_q[cfg_index_i[3:0]] <= ...` was a shifter over all 2,240 bits of the table, 17
  // levels with the bound compare's carry chain in front). The index is in range exactly when its bits above
  // the table's own index bits are 0 (both sizes are powers of two: the static checks below).
  localparam int unsigned MacIdxBits = $clog2(nt_pkg::VnicMacEntries);
  logic port_wr, mac_wr;
  assign port_wr = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::VnicTblPort) &&
                   cfg_index_i[nt_pkg::CfgIndexBits-1:vnic_pkg::PortIdxBits] == '0;
  assign mac_wr = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::VnicTblMac) &&
                  cfg_index_i[nt_pkg::CfgIndexBits-1:MacIdxBits] == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ports_q <= '0;
      macs_q  <= '0;
    end else begin
      for (int unsigned i = 0; i < nt_pkg::VnicPorts; i++) begin
        if (port_wr && cfg_index_i[vnic_pkg::PortIdxBits-1:0] == vnic_pkg::PortIdxBits'(i)) begin
          ports_q[i] <= cfg_data_i[vnic_pkg::PortCfgBits-1:0];
        end
      end
      for (int unsigned i = 0; i < nt_pkg::VnicMacEntries; i++) begin
        if (mac_wr && cfg_index_i[MacIdxBits-1:0] == MacIdxBits'(i)) begin
          macs_q[i] <= cfg_data_i[vnic_pkg::MacEntryBits-1:0];
        end
      end
    end
  end

  // The range checks above need both table sizes to be powers of two.
  if ((1 << vnic_pkg::PortIdxBits) != nt_pkg::VnicPorts || (1 << MacIdxBits) != nt_pkg::VnicMacEntries) begin : g_pow2
    $error("vnic_tables: VnicPorts and VnicMacEntries must be powers of two");
  end

  assign ports_o = ports_q;
  assign macs_o  = macs_q;

  logic unused_cfg;
  assign unused_cfg = ^cfg_data_i[nt_pkg::CfgDataBits-1:vnic_pkg::PortCfgBits];
endmodule
