// Port groups every block writes the same way, declared once (docs/rtl-style.md "Port groups").
// Each macro expands to a comma-separated run of ANSI port declarations with the usual names, so a Verilated
// top keeps its flat port names (s_valid_i, dma_req_addr_o, cfg_data_i, ...) and the C++ adapters, blockgen
// and the FST see exactly what they saw before. The prefix argument p is pasted in front of every name
// (`NT_STREAM_IN(s)` declares s_valid_i, s_data_i, s_keep_i, s_last_i, s_ready_o). No macro ends in a comma:
// write it as one element of the port list. A *_MON variant declares the same names all as inputs, for the
// assertion modules bound onto a top (rtl/*/*_sva.sv) that observe the group.
// Read by Verilator 5.006 (-I rtl/common) and Yosys 0.55 (read_verilog -sv -I rtl/common, scripts/synth/synth.py);
// scripts/nettwin/common/blockgen.py expands them when it reads a top's port list.
`ifndef NT_PORTS_SVH
`define NT_PORTS_SVH

// clock and active-low reset
`define NT_CLK_RST \
  input  logic clk_i, \
  input  logic rst_ni

// a stream into the block (AXI-Stream-like: the beat moves when valid and ready are both high)
`define NT_STREAM_IN(p) \
  input  logic                           p``_valid_i, \
  input  logic [nt_pkg::StreamBits-1:0]  p``_data_i, \
  input  logic [nt_pkg::StreamBytes-1:0] p``_keep_i, \
  input  logic                           p``_last_i, \
  output logic                           p``_ready_o

// a stream out of the block
`define NT_STREAM_OUT(p) \
  output logic                           p``_valid_o, \
  output logic [nt_pkg::StreamBits-1:0]  p``_data_o, \
  output logic [nt_pkg::StreamBytes-1:0] p``_keep_o, \
  output logic                           p``_last_o, \
  input  logic                           p``_ready_i

// the same names, observed by an assertion module (all inputs)
`define NT_STREAM_IN_MON(p) \
  input  logic                           p``_valid_i, \
  input  logic [nt_pkg::StreamBits-1:0]  p``_data_i, \
  input  logic [nt_pkg::StreamBytes-1:0] p``_keep_i, \
  input  logic                           p``_last_i, \
  input  logic                           p``_ready_o
`define NT_STREAM_OUT_MON(p) \
  input  logic                           p``_valid_o, \
  input  logic [nt_pkg::StreamBits-1:0]  p``_data_o, \
  input  logic [nt_pkg::StreamBytes-1:0] p``_keep_o, \
  input  logic                           p``_last_o, \
  input  logic                           p``_ready_i

// the programming port: one table write per cycle with valid (table, index, data)
`define NT_CFG_IN_W(p, TableBits, IndexBits) \
  input  logic                           p``_valid_i, \
  input  logic [TableBits-1:0]           p``_table_i, \
  input  logic [IndexBits-1:0]           p``_index_i, \
  input  logic [nt_pkg::CfgDataBits-1:0] p``_data_i
`define NT_CFG_IN(p) `NT_CFG_IN_W(p, nt_pkg::CfgTableBits, nt_pkg::CfgIndexBits)

// the programming port driven by a block into another one (naa_cm and naa_ctl into the responder)
`define NT_CFG_OUT(p) \
  output logic                            p``_valid_o, \
  output logic [nt_pkg::CfgTableBits-1:0] p``_table_o, \
  output logic [nt_pkg::CfgIndexBits-1:0] p``_index_o, \
  output logic [nt_pkg::CfgDataBits-1:0]  p``_data_o

// the clock/reset and programming-port groups connected by name to an instance's ports of the same names
`define NT_CLK_RST_CONN .clk_i, .rst_ni
`define NT_CFG_CONN(p) .p``_valid_i, .p``_table_i, .p``_index_i, .p``_data_i

// a host-memory (DMA) request port, master side: read (write = 0) or write of len bytes at addr; data and
// off (the first byte's lane) carry a write's beat (tb/common/host_memory.h)
`define NT_DMA_REQ_OUT(p) \
  output logic                          p``_req_valid_o, \
  input  logic                          p``_req_ready_i, \
  output logic                          p``_req_write_o, \
  output logic [63:0]                   p``_req_addr_o, \
  output logic [15:0]                   p``_req_len_o, \
  output logic [5:0]                    p``_req_off_o, \
  output logic [nt_pkg::StreamBits-1:0] p``_req_data_o

// the same names, observed by an assertion module
`define NT_DMA_REQ_MON(p) \
  input  logic                          p``_req_valid_o, \
  input  logic                          p``_req_ready_i, \
  input  logic                          p``_req_write_o, \
  input  logic [63:0]                   p``_req_addr_o, \
  input  logic [15:0]                   p``_req_len_o, \
  input  logic [5:0]                    p``_req_off_o, \
  input  logic [nt_pkg::StreamBits-1:0] p``_req_data_o

// read data back from host memory, in request order, always accepted
`define NT_DMA_RSP_IN(p) \
  input  logic                          p``_rsp_valid_i, \
  input  logic                          p``_rsp_last_i, \
  input  logic [nt_pkg::StreamBits-1:0] p``_rsp_data_i

// the RoCEv2 responder's counters (rdma_top, and naa_top which passes them through)
`define NT_RDMA_CNT_OUT(p) \
  output logic [31:0]                     p``_packets_in_o, \
  output logic [31:0]                     p``_processed_o, \
  output logic [31:0]                     p``_responses_o, \
  output logic [rdma_pkg::NumDrops*32-1:0] p``_drops_o, \
  output logic [31:0]                     p``_acks_o, \
  output logic [31:0]                     p``_naks_o, \
  output logic [31:0]                     p``_atomics_o, \
  output logic [31:0]                     p``_replays_o, \
  output logic [31:0]                     p``_reads_o, \
  output logic [31:0]                     p``_dma_reads_o, \
  output logic [31:0]                     p``_dma_writes_o, \
  output logic [31:0]                     p``_cqes_o

// the reassembly engine's report of an incomplete event (re_decide drives it, re_top passes it out)
`define NT_RE_REPORT_OUT(p) \
  output logic        p``_valid_o, \
  output logic [63:0] p``_event_num_o, \
  output logic [15:0] p``_data_id_o, \
  output logic [31:0] p``_received_o, \
  output logic [31:0] p``_segments_o, \
  output logic [31:0] p``_length_o, \
  output logic        p``_end_known_o, \
  output logic        p``_at_end_o

// the NAAICE connection manager's counters (naa_cm: cnt_*; naa_top passes them out as cm_*)
`define NT_NAA_CM_CNT_OUT(p) \
  output logic [31:0]                       p``_packets_in_o, \
  output logic [31:0]                       p``_processed_o, \
  output logic [31:0]                       p``_responses_o, \
  output logic [nt_pkg::NaaCmDrops*32-1:0]  p``_drops_o, \
  output logic [31:0]                       p``_rejects_o, \
  output logic [31:0]                       p``_connects_o, \
  output logic [31:0]                       p``_disconnects_o

// the NAAICE controller's counters (naa_ctl: cnt_*; naa_top passes them out as ctl_*)
`define NT_NAA_CTL_CNT_OUT(p) \
  output logic [31:0]                       p``_events_o, \
  output logic [31:0]                       p``_requests_o, \
  output logic [31:0]                       p``_grants_o, \
  output logic [31:0]                       p``_answers_o, \
  output logic [31:0]                       p``_reposts_o, \
  output logic [31:0]                       p``_send_failed_o, \
  output logic [31:0]                       p``_rpcs_o, \
  output logic [31:0]                       p``_rpc_errors_o, \
  output logic [5*32-1:0]                   p``_errors_o, \
  output logic [nt_pkg::NaaCtlDrops*32-1:0] p``_drops_o

// ---- whole port lists that two tops share ----

// the RoCEv2 responder's outer ports: requests in (s), responses out (m), host memory (dma), the programming
// port (cfg) and its counters. rdma_top has them; naa_top, which holds rdma_top, has them all too.
`define NT_RDMA_PORTS \
  `NT_CLK_RST, \
  `NT_STREAM_IN(s), \
  `NT_STREAM_OUT(m), \
  `NT_DMA_REQ_OUT(dma), \
  `NT_DMA_RSP_IN(dma), \
  `NT_CFG_IN(cfg), \
  `NT_RDMA_CNT_OUT(cnt)

// the OPA VNIC tops' ports (vnic_encap_top and vnic_decap_top have the same): a frame's port number beside
// each stream, sampled with its first beat (s_port_i) and stable over the frame (m_port_o)
`define NT_VNIC_PORTS \
  `NT_CLK_RST, \
  `NT_STREAM_IN(s), \
  input  logic [vnic_pkg::PortIdxBits-1:0]    s_port_i, \
  `NT_STREAM_OUT(m), \
  output logic [vnic_pkg::PortIdxBits-1:0]    m_port_o, \
  `NT_CFG_IN(cfg), \
  output logic [31:0]                         cnt_in_o, \
  output logic [31:0]                         cnt_out_o, \
  output logic [vnic_pkg::NumReasons*32-1:0]  cnt_drops_o

`endif  // NT_PORTS_SVH
