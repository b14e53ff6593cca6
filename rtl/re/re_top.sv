// EJFAT reassembly engine (docs/re.md, docs/re-microarchitecture.md): LB output segments for one compute
// node in, one frame per reassembled event out, incomplete events on the report port, counters.
`include "nt_ports.svh"
module re_top
(
  `NT_CLK_RST,
  // segments (Ethernet frames); s_time_i is the frame's arrival time in ns, sampled with its first beat
  `NT_STREAM_IN(s),
  input  logic [63:0]            s_time_i,
  // reassembled events
  `NT_STREAM_OUT(m),
  // end of input: report every open event
  input  logic                   flush_i,
  // configuration (static during a run)
  input  logic [7:0]             cfg_contexts_i,
  input  logic [31:0]            cfg_buffer_bytes_i,
  input  logic [63:0]            cfg_timeout_ns_i,
  input  logic                   cfg_format_i,   // 0: the seed's 8-byte RE header, 1: E2SAR's 20-byte REHdr
  input  logic [3:0]             cfg_version_i,  // the RE header version accepted
  input  logic                   cfg_lb_drop_i,  // a frame that still has an LB header: 1 drop, 0 skip the header
  input  logic                   cfg_host_i,     // `buffer host`: event bytes to host memory, completion records out
  input  logic [63:0]            cfg_host_base_i,  // context k's slot: base + k x buffer_bytes rounded up to 4 KiB
  // host memory (`buffer host`): one write per accepted beat with data bytes (tb/common/host_memory.h)
  `NT_DMA_REQ_OUT(dma),
  // incomplete events
  `NT_RE_REPORT_OUT(rep),
  output logic                   busy_o,
  output logic [31:0]            cnt_in_o,
  output logic [31:0]            cnt_used_o,
  output logic [31:0]            cnt_completed_o,
  output logic [31:0]            cnt_timed_out_o,
  output logic [31:0]            cnt_out_o,
  output logic [nt_pkg::ReDropReasons*32-1:0] cnt_drops_o
);
  logic                  desc_valid, desc_pop, frame_idle, release_beats_v, ing_busy, dec_busy, buf_busy;
  re_pkg::desc_t                 desc;
  logic [re_pkg::FifoW-1:0]      fifo_raddr;
  logic [nt_pkg::StreamBits-1:0] fifo_rdata;
  logic [re_pkg::BeatsW-1:0]     release_beats;
  logic                  job_valid, job_ready, ev_done;
  re_pkg::job_t                  job;
  logic [re_pkg::CtxW-1:0]       ev_ctx;
  re_pkg::event_t                ev;

  re_ingress u_ingress (
    `NT_CLK_RST_CONN,
    .s_valid_i,
    .s_data_i,
    .s_keep_i,
    .s_last_i,
    .s_time_i,
    .s_ready_o,
    .cfg_buffer_bytes_i,
    .cfg_format_i,
    .cfg_version_i,
    .cfg_lb_drop_i,
    .cfg_host_i,
    .desc_valid_o    (desc_valid),
    .desc_o          (desc),
    .desc_pop_i      (desc_pop),
    .fifo_raddr_i    (fifo_raddr),
    .fifo_rdata_o    (fifo_rdata),
    .release_i       (release_beats_v),
    .release_beats_i (release_beats),
    .frame_idle_o    (frame_idle),
    .busy_o          (ing_busy),
    .cnt_in_o
  );

  re_decide u_decide (
    `NT_CLK_RST_CONN,
    .cfg_contexts_i,
    .cfg_timeout_ns_i,
    .flush_i,
    .frame_idle_i  (frame_idle),
    .desc_valid_i  (desc_valid),
    .desc_i        (desc),
    .desc_pop_o    (desc_pop),
    .job_ready_i   (job_ready),
    .job_valid_o   (job_valid),
    .job_o         (job),
    .ev_ctx_i      (ev_ctx),
    .ev_o          (ev),
    .ev_done_i     (ev_done),
    .ev_done_ctx_i (ev_ctx),
    .rep_valid_o,
    .rep_event_num_o,
    .rep_data_id_o,
    .rep_received_o,
    .rep_segments_o,
    .rep_length_o,
    .rep_end_known_o,
    .rep_at_end_o,
    .busy_o        (dec_busy),
    .cnt_used_o,
    .cnt_completed_o,
    .cnt_timed_out_o,
    .cnt_drops_o
  );

  re_event_buffer u_buffer (
    `NT_CLK_RST_CONN,
    .cfg_format_i,
    .cfg_host_i,
    .cfg_host_base_i,
    .cfg_buffer_bytes_i,
    .dma_req_valid_o,
    .dma_req_ready_i,
    .dma_req_write_o,
    .dma_req_addr_o,
    .dma_req_len_o,
    .dma_req_off_o,
    .dma_req_data_o,
    .job_valid_i     (job_valid),
    .job_i           (job),
    .job_ready_o     (job_ready),
    .fifo_raddr_o    (fifo_raddr),
    .fifo_rdata_i    (fifo_rdata),
    .release_o       (release_beats_v),
    .release_beats_o (release_beats),
    .ev_ctx_o        (ev_ctx),
    .ev_i            (ev),
    .ev_done_o       (ev_done),
    .m_valid_o,
    .m_data_o,
    .m_keep_o,
    .m_last_o,
    .m_ready_i,
    .busy_o          (buf_busy),
    .cnt_out_o
  );

  assign busy_o = ing_busy || dec_busy || buf_busy;
endmodule
