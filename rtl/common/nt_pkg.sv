// Parameters shared by every nettwin block. This file is the single source of truth: CMake turns each
// `localparam int unsigned Name = <literal>;` line below into `constexpr uint32_t kName` in the generated
// C++ header nt_params.h, which the C++ models include. Keep values literal so that stays possible.
`include "nt_bytes.svh"
package nt_pkg;

  // ---- Stream interface (all blocks) ----
  localparam int unsigned StreamBytes = 64;
  localparam int unsigned StreamBits = 512;

  // ---- Table-programming port (all blocks): one whole table entry per write ----
  localparam int unsigned CfgTableBits = 3;
  localparam int unsigned CfgIndexBits = 11;
  localparam int unsigned CfgDataBits = 256;

  // ---- EJFAT load balancer ----
  localparam int unsigned LbFilterEntries = 32;
  localparam int unsigned LbEpochEntries = 128;
  localparam int unsigned LbEpochGroup = 16;  // entries reduced per group in the first TCAM stage
  localparam int unsigned LbEpochPrioBits = 16;
  localparam int unsigned LbCalendarSlots = 512;
  localparam int unsigned LbCalendarEpochs = 4;
  localparam int unsigned LbCalendarEntries = 2048;
  localparam int unsigned LbMemberEntries = 1024;
  localparam int unsigned LbHeaderBytes = 12;
  localparam int unsigned LbUdpPort = 19522;  // 0x4C42 "LB"
  localparam int unsigned LbMagic = 19522;
  localparam int unsigned LbVersion = 1;

  // Table ids on the programming port.
  localparam int unsigned LbTblFilter = 0;
  localparam int unsigned LbTblEpoch = 1;
  localparam int unsigned LbTblEpochMap = 2;
  localparam int unsigned LbTblCalendar = 3;
  localparam int unsigned LbTblMember = 4;

  // Drop reasons (0 = forwarded). Order = order of checks; see docs/lb.md.
  localparam int unsigned LbDropNone = 0;
  localparam int unsigned LbDropRunt = 1;
  localparam int unsigned LbDropNotIp = 2;
  localparam int unsigned LbDropTruncated = 3;
  localparam int unsigned LbDropBadIp = 4;
  localparam int unsigned LbDropIpFragment = 5;
  localparam int unsigned LbDropNotUdp = 6;
  localparam int unsigned LbDropNotLbPort = 7;
  localparam int unsigned LbDropBadLength = 8;
  localparam int unsigned LbDropBadMagic = 9;
  localparam int unsigned LbDropBadVersion = 10;
  localparam int unsigned LbDropUdp6ZeroCsum = 11;
  localparam int unsigned LbDropFilterMiss = 12;
  localparam int unsigned LbDropFilterDrop = 13;
  localparam int unsigned LbDropEpochMiss = 14;
  localparam int unsigned LbDropEpochDrop = 15;
  localparam int unsigned LbDropCalendarMiss = 16;
  localparam int unsigned LbDropCalendarDrop = 17;
  localparam int unsigned LbDropMemberMiss = 18;
  localparam int unsigned LbDropMemberDrop = 19;
  localparam int unsigned LbDropReasons = 20;  // including "none"
  localparam int unsigned LbCounterBits = 32;

  // ---- EJFAT load balancer, the udplb program (docs/lb-udplb.md, docs/lb-microarchitecture.md) ----
  localparam int unsigned UdplbL2IfaceEntries = 17;
  localparam int unsigned UdplbMacDstEntries = 64;
  localparam int unsigned UdplbIpDstEntries = 64;
  localparam int unsigned UdplbSrcEntries = 64;
  localparam int unsigned UdplbEpochEntries = 128;
  localparam int unsigned UdplbEpochGroup = 16;
  localparam int unsigned UdplbEpochRows = 32;
  localparam int unsigned UdplbCalendarSlots = 512;
  localparam int unsigned UdplbCalendarEntries = 16384;
  localparam int unsigned UdplbMemberEntries = 1024;
  localparam int unsigned UdplbHeaderBytes = 16;
  localparam int unsigned UdplbInstances = 8;
  localparam int unsigned UdplbCfgTableBits = 4;
  localparam int unsigned UdplbCfgIndexBits = 14;
  localparam int unsigned UdplbTblL2Iface = 0;
  localparam int unsigned UdplbTblMacDst = 1;
  localparam int unsigned UdplbTblIpDst = 2;
  localparam int unsigned UdplbTblIpSa = 3;
  localparam int unsigned UdplbTblSrc4 = 4;
  localparam int unsigned UdplbTblSrc6 = 5;
  localparam int unsigned UdplbTblEpoch = 6;
  localparam int unsigned UdplbTblEpochMap = 7;
  localparam int unsigned UdplbTblCalendar = 8;
  localparam int unsigned UdplbTblMember = 9;
  localparam int unsigned UdplbTblSettings = 10;  // index 0: [0] ttl_decrement (reset 1)
  // Fates (0 = forwarded, replied or sent to the host). Order = order of checks; see docs/lb-udplb.md.
  localparam int unsigned UdplbDropNone = 0;
  localparam int unsigned UdplbDropParseError = 1;
  localparam int unsigned UdplbDropL2DstMiss = 2;
  localparam int unsigned UdplbDropNotIp = 3;
  localparam int unsigned UdplbDropL3DstMiss = 4;
  localparam int unsigned UdplbDropArpMismatch = 5;
  localparam int unsigned UdplbDropIcmpMismatch = 6;
  localparam int unsigned UdplbDropIcmpDestUnreach = 7;
  localparam int unsigned UdplbDropIcmpUnhandled = 8;
  localparam int unsigned UdplbDropNdMismatch = 9;
  localparam int unsigned UdplbDropSrcBlocked = 10;
  localparam int unsigned UdplbDropNoLbHeader = 11;
  localparam int unsigned UdplbDropTtlExpired = 12;
  localparam int unsigned UdplbDropEpochMiss = 13;
  localparam int unsigned UdplbDropCalendarMiss = 14;
  localparam int unsigned UdplbDropMemberMiss = 15;
  localparam int unsigned UdplbDropMemberSoftEvicted = 16;
  localparam int unsigned UdplbDropMemberDeregistered = 17;
  localparam int unsigned UdplbDropReasons = 18;

  // ---- RoCEv2 responder ----
  localparam int unsigned RdmaQps = 16;           // QP contexts on chip
  localparam int unsigned RdmaMrs = 48;           // memory regions (32 for the NAA controller's grants + static ones)
  localparam int unsigned RdmaBufBeats = 72;      // one request frame: 4096 B payload + headers + ICRC
  localparam int unsigned RdmaRxFrames = 2;       // receive ring: frames buffered (a power of two)
  localparam int unsigned RdmaRspBeats = 64;      // read-response payload buffer per in-flight entry (MTU 4096)
  localparam int unsigned RdmaInflight = 16;      // in-flight queue: responses waiting in PSN order (a power of two)
  localparam int unsigned RdmaRecent = 16;        // recent atomic results kept on chip per QP (a power of two)
  localparam int unsigned RdmaWqeRing = 16;       // receive WQEs prefetched on chip per QP (a power of two)
  localparam int unsigned RdmaPfReads = 16;       // WQE prefetch reads outstanding at once (all QPs)
  localparam int unsigned RdmaAqGroup = 64;       // AQEs per AQ group (the paper's AQ_grp_div)
  localparam int unsigned RdmaAqMaxGroups = 8;    // AQ depth up to 512 entries per QP
  localparam int unsigned RdmaAqeBytes = 16;
  localparam int unsigned RdmaUdpPort = 4791;
  localparam int unsigned RdmaTblResponder = 0;
  localparam int unsigned RdmaTblQp = 1;
  localparam int unsigned RdmaTblMr = 2;
  localparam int unsigned RdmaTblQpQueues = 3;  // a QP's receive and completion queues
  localparam int unsigned RdmaWqeBytes = 16;
  localparam int unsigned RdmaCqeBytes = 32;

  // ---- ConWeave destination-ToR reorder queue (docs/reorder.md) ----
  localparam int unsigned ReorderFlows = 1024;     // flow-table entries (config `flows` = a power of two <= this)
  localparam int unsigned ReorderQueues = 32;      // reorder queues (config `queues` = 4, 8, 16 or 32)
  localparam int unsigned ReorderWays = 4;         // queue allocation: 4-way associative (spec 3.4.2)
  localparam int unsigned ReorderCells = 4608;     // shared packet buffer in 64-byte cells (one beat each)
  localparam int unsigned ReorderMaxCells = 72;    // longest frame: 72 cells = 4608 bytes
  localparam int unsigned ReorderOutFifo = 256;    // packets and released queues waiting for the output
  localparam int unsigned ReorderCtrlFifo = 8;     // control-packet requests waiting for the control port
  localparam int unsigned ReorderHdrBytes = 80;    // fabric header kept per queue to mirror a CLEAR
  localparam int unsigned ReorderKeyBytes = 36;    // flow key: family, IP source, IP destination, dest QP
  localparam int unsigned ReorderUdpPort = 4791;

  // ---- ConWeave source-ToR rerouting module (docs/reroute.md) ----
  localparam int unsigned RerouteFlows = 1024;     // flow-table entries (config `flows` = a power of two <= this)
  localparam int unsigned ReroutePaths = 32;       // uplink paths (config `paths` = 4, 8, 16 or 32)
  localparam int unsigned RerouteMaxBytes = 4604;  // longest host frame: + 4-byte CW header = 4608
  localparam int unsigned RerouteCtrlBytes = 128;  // bytes of a control packet kept for its decision

  // ---- OPA VNIC: Ethernet over Omni-Path 16B (docs/vnic.md) ----
  localparam int unsigned VnicPorts = 16;          // VNIC ports (port table entries; sideband 4 bits)
  localparam int unsigned VnicMacEntries = 64;     // MAC -> DLID table entries (shared by all ports)
  localparam int unsigned VnicBufBeats = 1024;     // store-and-forward buffer per direction (64 KiB)
  localparam int unsigned VnicMaxBeats = 256;      // longest packet: 2047 quadwords = 16376 bytes
  localparam int unsigned VnicDescFifo = 32;       // complete frames waiting for the output
  localparam int unsigned VnicHdrBytes = 20;       // 16B header (QW0, QW1) + QW2 up to the Ethernet frame
  localparam int unsigned VnicTrailerBytes = 5;    // ICRC (4) + tail byte
  localparam int unsigned VnicL4Eth = 120;         // L4 type 0x78: Ethernet
  localparam int unsigned VnicMaxEthBytes = 16351; // 16376 - 25: the length field's limit
  localparam int unsigned VnicMinPktBytes = 40;    // 20 + 14 (Ethernet header) + 5, quadword aligned
  localparam int unsigned VnicIcrcMaskVariant = 1; // ICRC treats BECN, FECN, SC as ones (0: covers them as sent)
  localparam int unsigned VnicTblPort = 0;         // programming-port table ids
  localparam int unsigned VnicTblMac = 1;
  // Encapsulation drop reasons (counter index; 0 = none).
  localparam int unsigned VnicEncDropRunt = 1;          // shorter than an Ethernet header (14 bytes)
  localparam int unsigned VnicEncDropTooLong = 2;       // longer than VnicMaxEthBytes
  localparam int unsigned VnicEncDropPortDisabled = 3;  // the frame's VNIC port is not configured (or veswid/SLID 0)
  localparam int unsigned VnicEncDropDlidZero = 4;      // the frame's DLID is 0 (Linux: tx_dlid_zero)
  localparam int unsigned VnicEncDropReasons = 5;
  // Decapsulation drop reasons, in the order they are checked.
  localparam int unsigned VnicDecDropRunt = 1;
  localparam int unsigned VnicDecDropBadL2 = 2;
  localparam int unsigned VnicDecDropBadL4 = 3;
  localparam int unsigned VnicDecDropLength = 4;
  localparam int unsigned VnicDecDropIcrc = 5;
  localparam int unsigned VnicDecDropPad = 6;
  localparam int unsigned VnicDecDropVeswid = 7;
  localparam int unsigned VnicDecDropPkey = 8;
  localparam int unsigned VnicDecDropReasons = 9;

  // ---- EJFAT reassembly engine (docs/re.md, docs/re-microarchitecture.md) ----
  localparam int unsigned ReContexts = 64;      // events in reassembly at once (config `contexts` <= this)
  localparam int unsigned ReBufBytes = 16384;   // buffer per context (config `buffer_bytes` <= this)
  localparam int unsigned ReRanges = 16;        // disjoint received byte ranges tracked per context
  localparam int unsigned ReFifoBeats = 1024;   // input store-and-forward FIFO (>= 2 x ReSegBeats)
  localparam int unsigned ReSegBeats = 258;     // beats kept per frame: ceil((90 + ReBufBytes) / 64)
  localparam int unsigned ReDescFifo = 32;      // frames whose last beat arrived, waiting for a decision
  localparam int unsigned ReOutHdrBytes = 26;   // output event header: MACs, EtherType, tick16, data_id, length, segments
  localparam int unsigned ReOutHdrBytesE2sar = 32;  // with E2SAR's header: MACs, EtherType, event_num (8), data_id, length, segments
  localparam int unsigned ReHdrBytesEvio6 = 8;  // the seed's RE header (config `header evio6`)
  localparam int unsigned ReHdrBytesE2sar = 20; // E2SAR's REHdr (config `header e2sar`)
  localparam int unsigned ReLbMagic = 19522;    // 0x4C42 'LB': a UDP payload that still starts with an LB header
  localparam int unsigned ReEtherType = 34997;  // 0x88B5, IEEE local experimental
  // Drop reasons (0 = used), in the order they are checked (docs/re.md), except the last two (added later).
  localparam int unsigned ReDropRunt = 1;
  localparam int unsigned ReDropNotIp = 2;
  localparam int unsigned ReDropTruncated = 3;
  localparam int unsigned ReDropNotUdp = 4;
  localparam int unsigned ReDropEmpty = 5;
  localparam int unsigned ReDropTooBig = 6;
  localparam int unsigned ReDropInconsistent = 7;
  localparam int unsigned ReDropDuplicate = 8;
  localparam int unsigned ReDropOverlap = 9;
  localparam int unsigned ReDropNoContext = 10;
  localparam int unsigned ReDropNoRange = 11;
  localparam int unsigned ReDropBadVersion = 12;  // checked after truncated (docs/re.md): RE header version wrong
  localparam int unsigned ReDropLbHeader = 13;    // checked after truncated: an LB header the config does not skip
  localparam int unsigned ReDropReasons = 14;   // including "used"

  // ---- NAAICE network-attached accelerator endpoint (naa): the CM in front of the RoCEv2 responder ----
  localparam int unsigned NaaCmBufBeats = 6;        // one CM MAD frame: 322 bytes (IPv4) = 6 beats
  localparam int unsigned NaaCmFrameBytes = 322;    // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + DETH 8 + MAD 256 + ICRC 4
  localparam int unsigned NaaTblCm = 4;             // programming-port table of the CM (index 0 cfg, 1 QP, 2 queues)
  // CM drop reasons (counter index; 0 = none), in the order they are checked (docs/naa.md).
  localparam int unsigned NaaCmDropMalformed = 1;
  localparam int unsigned NaaCmDropNotForUs = 2;
  localparam int unsigned NaaCmDropBadIcrc = 3;
  localparam int unsigned NaaCmDropBadMad = 4;
  localparam int unsigned NaaCmDropIgnored = 5;
  localparam int unsigned NaaCmDrops = 6;
  // The NAA controller (naa_ctl: MRSP, RPC; docs/naa.md "MRSP and RPC").
  localparam int unsigned NaaTblCtl = 6;            // programming-port table (index 0 cfg, 1 buffers, 2 queues)
  localparam int unsigned NaaRegions = 32;          // regions one MRSP request may ask for (the seed's FPGA: 32)
  localparam int unsigned NaaMsgBytes = 772;        // a request for NaaRegions regions: 4 + 24 x 32
  localparam int unsigned NaaMsgBeats = 13;         // its 64-byte beats
  localparam int unsigned NaaRxBufBytes = 6144;     // one receive buffer (j = WQE j): an MRSP 0x01 of 255 regions, 6124 bytes
  localparam int unsigned NaaCqeFifo = 4;           // completion events waiting for the controller
  localparam int unsigned NaaCtlDropNoRegions = 1;  // controller drop reasons (counter index; 0 = none)
  localparam int unsigned NaaCtlDropOverflow = 2;
  localparam int unsigned NaaCtlDropFlushed = 3;
  localparam int unsigned NaaCtlDrops = 4;
  localparam int unsigned NaaChunkBeats = 64;       // a kernel's chunk: 4 KiB, the host port's largest read
  // The endpoint's DMA arbiter (naa_dma_arb): masters 0 rdma_top, 1 naa_req, 2 the controller; read data is
  // routed back through a FIFO of master ids (host memory answers reads in order).
  localparam int unsigned NaaDmaMasters = 3;
  localparam int unsigned NaaDmaIdDepth = 16;       // reads in flight through the arbiter (>= host memory's)
  // The requester (naa_req, docs/naa.md "Requester").
  localparam int unsigned NaaTblReq = 5;            // programming-port table: index 0 settings, 1 post a command
  localparam int unsigned NaaReqMsgs = 8;           // messages outstanding (posted, not yet completed)
  localparam int unsigned NaaReqHostCmds = 8;       // commands posted through the programming port, waiting
  localparam int unsigned NaaReqWindow = 32;        // packets sent and not yet acknowledged
  localparam int unsigned NaaReqAckEvery = 16;      // AckReq on every 16th packet of a message (and its last)
  localparam int unsigned NaaReqRnrUnit = 64;       // cycles per unit of an RNR NAK's timer field (+1)
  localparam int unsigned NaaReqBufBeats = 64;      // one packet's payload (MTU 4096)
  localparam int unsigned NaaReqTimeout = 4096;     // default retransmission timeout (cycles)
  // Requester drop reasons of ACK frames (counter index; 0 = none), in the order they are checked.
  localparam int unsigned NaaReqDropMalformed = 1;
  localparam int unsigned NaaReqDropNotForUs = 2;
  localparam int unsigned NaaReqDropBadIcrc = 3;
  localparam int unsigned NaaReqDropNotConnected = 4;
  localparam int unsigned NaaReqDropGhost = 5;
  localparam int unsigned NaaReqDrops = 6;
  // Requester event counters (index into cnt_o).
  localparam int unsigned NaaReqCntSent = 0;
  localparam int unsigned NaaReqCntRetransmits = 1;
  localparam int unsigned NaaReqCntAcks = 2;
  localparam int unsigned NaaReqCntStale = 3;
  localparam int unsigned NaaReqCntNakSeq = 4;
  localparam int unsigned NaaReqCntNakRnr = 5;
  localparam int unsigned NaaReqCntNakFatal = 6;
  localparam int unsigned NaaReqCntTimeouts = 7;
  localparam int unsigned NaaReqCntCplOk = 8;
  localparam int unsigned NaaReqCntCplRetry = 9;
  localparam int unsigned NaaReqCntCplRemote = 10;
  localparam int unsigned NaaReqCntCplFlushed = 11;
  localparam int unsigned NaaReqCnts = 12;

  // ---- Big-endian header fields out of a two-beat parse window (byte 0 in bits 7:0) ----
  localparam int unsigned WindowBits = 1024;  // two beats (literal: CMake reads this file)
  // Each reads its bytes straight from `w` rather than through the narrower helpers: a simulator copies the
  // whole window into every call, so nested calls multiplied that copy (15 copies per win_b64; docs/PERF.md).
  function automatic logic [7:0] win_b8(logic [WindowBits-1:0] w, int unsigned off);
    win_b8 = w[8*off+:8];
  endfunction
  function automatic logic [15:0] win_b16(logic [WindowBits-1:0] w, int unsigned off);
    win_b16 = {w[8*off+:8], w[8*(off+1)+:8]};
  endfunction
  function automatic logic [31:0] win_b32(logic [WindowBits-1:0] w, int unsigned off);
    win_b32 = {w[8*off+:8], w[8*(off+1)+:8], w[8*(off+2)+:8], w[8*(off+3)+:8]};
  endfunction
  function automatic logic [63:0] win_b64(logic [WindowBits-1:0] w, int unsigned off);
    win_b64 = {w[8*off+:8], w[8*(off+1)+:8], w[8*(off+2)+:8], w[8*(off+3)+:8],
            w[8*(off+4)+:8], w[8*(off+5)+:8], w[8*(off+6)+:8], w[8*(off+7)+:8]};
  endfunction

  // ---- Byte order reversal: x's byte 0 (bits 7:0) becomes the result's last byte ----
  // What the streaming operator {<<8{x}} computes for an x of that width; Yosys 0.55 cannot parse streaming
  // operators (docs/synthesis.md), so the RTL calls these instead.
  `NT_BYTE_REV_FN(16)
  `NT_BYTE_REV_FN(32)
  `NT_BYTE_REV_FN(48)
  `NT_BYTE_REV_FN(64)
  `NT_BYTE_REV_FN(128)

  // ---- Bytes of a beat from its keep ----
  // keep is contiguous from byte 0 (docs/ARCHITECTURE.md "Stream rules", asserted on every input port as
  // keep_contig), so the count n is the index of its first 0 (64 if none). ~k & (k << 1) is one-hot at n (0 for
  // n = 0 and n = 64), and bit b of n is the OR of that word under the mask of the positions whose bit b is set:
  // three LUT levels, where a population count of 64 bits is a tree of adders (19 levels measured; issue 27),
  // and a few word operations in a simulator. (lb_lookahead, re_ingress, vnic.)
  function automatic logic [6:0] keep_count(logic [63:0] k);
    logic [63:0] u;
    u          = ~k & (k << 1);
    keep_count = {k[63], |(u & 64'hffffffff_00000000), |(u & 64'hffff0000_ffff0000),
                  |(u & 64'hff00ff00_ff00ff00), |(u & 64'hf0f0f0f0_f0f0f0f0), |(u & 64'hcccccccc_cccccccc),
                  |(u & 64'haaaaaaaa_aaaaaaaa)};
  endfunction

  // CRC-32 as GF(2) matrices (tables in nt_crc_pkg / rdma_crc_pkg, generated by scripts/nettwin/vnic/crc_tables.py):
  // every result bit is the XOR of a constant subset of the input bits, so synthesis builds balanced XOR trees.
  // A 32 x 32 matrix (row o in bits 32o+31:32o) applied to a register: r[o] = ^(s & row o).
  function automatic logic [31:0] crc32_mat(logic [32*32-1:0] m, logic [31:0] s);
    logic [31:0] r;
    for (int o = 0; o < 32; o++) r[o] = ^(s & m[32*o+:32]);
    crc32_mat = r;
  endfunction

  // A 32 x StreamBits matrix (row o in bits StreamBits*o+) applied to a beat: the data part of a whole beat's
  // register update from state 0 (nt_crc_pkg::CrcData), or any such matrix (rdma_crc_pkg::CrcDataPow).
  function automatic logic [31:0] crc32_data(logic [32*StreamBits-1:0] m, logic [StreamBits-1:0] d);
    logic [31:0] r;
    for (int o = 0; o < 32; o++) r[o] = ^(d & m[StreamBits*o+:StreamBits]);
    crc32_data = r;
  endfunction

endpackage
