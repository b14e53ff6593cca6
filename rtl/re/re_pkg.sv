// Types shared by the reassembly engine's stages (docs/re-microarchitecture.md).
package re_pkg;

  // The largest event with `buffer host` (cfg_host_i): the event's bytes go to a slot in host memory by DMA, so
  // only the tracking state (offsets of OffW bits) grows with it (docs/re-microarchitecture.md).
  localparam int unsigned ReHostBufBytes = 16777216;

  localparam int unsigned CtxW = $clog2(nt_pkg::ReContexts);
  localparam int unsigned RangeW = $clog2(nt_pkg::ReRanges);
  localparam int unsigned OffW = $clog2(ReHostBufBytes + 1);  // an end offset within an event (either buffer)
  localparam int unsigned RowsPerCtx = nt_pkg::ReBufBytes / nt_pkg::StreamBytes;
  localparam int unsigned RowW = $clog2(nt_pkg::ReContexts * RowsPerCtx);
  localparam int unsigned FifoW = $clog2(nt_pkg::ReFifoBeats);
  localparam int unsigned BeatsW = $clog2(nt_pkg::ReSegBeats + 1);
  localparam int unsigned CodeW = $clog2(nt_pkg::ReDropReasons);

  localparam int unsigned KeyW = 80;  // event key {event_num (evio6: tick[15:0] zero-extended), data_id}

  // A frame whose last beat arrived: its header fields and the header-level verdict.
  typedef struct packed {
    logic [CodeW-1:0]  code;     // 0: passed the header checks; else the drop reason
    logic [63:0]       event_num;  // evio6: the UDP source port; e2sar: the header's event number
    logic [15:0]       data_id;
    logic              last;     // declares the event's end (evio6: Last flag; e2sar: always)
    logic [31:0]       offset;
    logic [31:0]       ev_end;   // the end it declares (evio6: offset + len; e2sar: the header's length)
    logic [15:0]       len;      // the segment's data bytes
    logic [6:0]        data_at;  // frame byte of the first data byte
    logic [63:0]       time_ns;
    logic [47:0]       mac_dst;
    logic [47:0]       mac_src;
    logic [BeatsW-1:0] stored;   // beats in the input FIFO (0 when rewound)
  } desc_t;

  // What the write stage does with a decided frame's beats.
  typedef struct packed {
    logic              skip;       // dropped: release the beats without writing
    logic              completes;  // the event is complete once these beats are written
    logic [CtxW-1:0]   ctx;
    logic [BeatsW-1:0] beats;
    logic [OffW-1:0]   offset;
    logic [15:0]       len;
    logic [6:0]        data_at;
  } job_t;

  // What the output stage needs of a completed context.
  typedef struct packed {
    logic [47:0] mac_dst;
    logic [47:0] mac_src;
    logic [63:0] event_num;
    logic [15:0] data_id;
    logic [31:0] length;
    logic [31:0] segments;
  } event_t;
endpackage
