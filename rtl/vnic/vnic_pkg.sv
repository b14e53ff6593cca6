// Types and functions of the OPA VNIC block (docs/vnic.md): the programming-port entries, the ICRC and the
// 16B header. Quadwords are little-endian on the stream: byte i of a beat is bits 8i+7:8i, so QW0 bit n is
// beat bit n.
package vnic_pkg;
  import nt_pkg::*;

  localparam int unsigned PortIdxBits = $clog2(VnicPorts);
  // Counter array size: both directions use one layout (index = reason code).
  localparam int unsigned NumReasons = VnicDecDropReasons > VnicEncDropReasons ? VnicDecDropReasons
                                                                              : VnicEncDropReasons;

  // Programming-port entry of table VnicTblPort (cfg_data_i[128:0]).
  typedef struct packed {
    logic [15:0] entropy;
    logic [23:0] mcast_dlid;
    logic [23:0] ucast_dlid;
    logic [23:0] slid;
    logic [2:0]  rc;
    logic [4:0]  sc;
    logic [15:0] pkey;
    logic [15:0] veswid;
    logic        valid;
  } port_cfg_t;

  // Programming-port entry of table VnicTblMac (cfg_data_i[76:0]); mac: first byte on the wire in 47:40.
  typedef struct packed {
    logic [23:0]            dlid;
    logic [47:0]            mac;
    logic [PortIdxBits-1:0] port;
    logic                   valid;
  } mac_entry_t;

  // One byte into a reflected CRC-32 register (IEEE polynomial; init and final inversion by the caller).
  function automatic logic [31:0] crc32_byte(logic [31:0] crc_in, logic [7:0] b);
    logic [31:0] c;
    c = crc_in ^ {24'd0, b};
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (32'hEDB88320 & {32{c[0]}});
    return c;
  endfunction

  // The first n bytes of a beat into the CRC register. With `first` (beat 0 of a packet) the variant fields
  // of QW0 (BECN bit 31, SC bits 56:52, FECN bit 60) count as ones when VnicIcrcMaskVariant is set.
  function automatic logic [31:0] crc32_beat(logic [31:0] crc_in, logic [StreamBits-1:0] d, logic [6:0] n,
                                             logic first);
    logic [31:0] c;
    logic [StreamBits-1:0] m;
    m = d;
    if (first && VnicIcrcMaskVariant != 0) begin
      m[31] = 1'b1;
      m[56:52] = 5'h1f;
      m[60] = 1'b1;
    end
    c = crc_in;
    for (int i = 0; i < StreamBytes; i++) begin
      if (7'(i) < n) c = crc32_byte(c, m[8*i+:8]);
    end
    return c;
  endfunction

  function automatic logic [6:0] popcount64(logic [StreamBytes-1:0] k);
    logic [6:0] c;
    c = '0;
    for (int i = 0; i < StreamBytes; i++) c = c + 7'(k[i]);
    return c;
  endfunction

  function automatic logic [StreamBytes-1:0] keep_mask(logic [6:0] n);
    logic [StreamBytes-1:0] k;
    for (int i = 0; i < StreamBytes; i++) k[i] = 7'(i) < n;
    return k;
  endfunction

  function automatic logic [StreamBits-1:0] byte_mask(logic [StreamBytes-1:0] keep);
    logic [StreamBits-1:0] m;
    for (int i = 0; i < StreamBytes; i++) m[8*i+:8] = {8{keep[i]}};
    return m;
  endfunction

  // IBTA partition-key match: equal low 15 bits, one of them a full member, not the invalid key.
  function automatic logic pkey_match(logic [15:0] a, logic [15:0] b);
    return a[14:0] != '0 && a[14:0] == b[14:0] && (a[15] | b[15]);
  endfunction

endpackage
