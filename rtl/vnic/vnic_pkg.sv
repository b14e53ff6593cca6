// Types and functions of the OPA VNIC block (docs/vnic.md): the programming-port entries, the ICRC and the
// 16B header. Quadwords are little-endian on the stream: byte i of a beat is bits 8i+7:8i, so QW0 bit n is
// beat bit n.
package vnic_pkg;

  localparam int unsigned PortIdxBits = $clog2(nt_pkg::VnicPorts);
  // Counter array size: both directions use one layout (index = reason code).
  localparam int unsigned NumReasons = nt_pkg::VnicDecDropReasons > nt_pkg::VnicEncDropReasons ? nt_pkg::VnicDecDropReasons
                                                                              : nt_pkg::VnicEncDropReasons;

  // Programming-port entry of table VnicTblPort (cfg_data_i[246:0]). linux_p selects profile linux
  // (docs/vnic.md "Encapsulation profiles"); sc_mc, pcp_sc_uc/mc (PCP i in [i]) and rc_word are its settings.
  typedef struct packed {
    logic [31:0]      rc_word;
    logic [7:0][4:0]  pcp_sc_mc;
    logic [7:0][4:0]  pcp_sc_uc;
    logic [4:0]       sc_mc;
    logic             linux_p;
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
    crc32_byte = c;
  endfunction

  // The first n bytes of a beat into the CRC register. With `first` (beat 0 of a packet) the variant fields
  // of QW0 (BECN bit 31, SC bits 56:52, FECN bit 60) count as ones when VnicIcrcMaskVariant is set.
  function automatic logic [31:0] crc32_beat(logic [31:0] crc_in, logic [nt_pkg::StreamBits-1:0] d, logic [6:0] n,
                                             logic first);
    logic [31:0] c;
    logic [nt_pkg::StreamBits-1:0] m;
    m = d;
    if (first && nt_pkg::VnicIcrcMaskVariant != 0) begin
      m[31] = 1'b1;
      m[56:52] = 5'h1f;
      m[60] = 1'b1;
    end
    c = crc_in;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (7'(i) < n) c = crc32_byte(c, m[8*i+:8]);
    end
    crc32_beat = c;
  endfunction

  // Profile linux's per-frame values from a frame's first beat (n bytes of it valid): the first VLAN tag's
  // PCP, the rc_word shift of the protocol class (opa_vnic_get_rc, behind up to 8 tags) and the entropy
  // (opa_vnic_calc_entropy of CRC-32 over the 14-byte Ethernet header). Mirrors LinuxSc/LinuxRc/LinuxEntropy.
  typedef struct packed {
    logic       vlan;
    logic [2:0] pcp;
    logic [4:0] rc_shift;
    logic [7:0] entropy;
  } linux_info_t;

  function automatic logic [15:0] beat_b16(logic [nt_pkg::StreamBits-1:0] d, int unsigned at);
    beat_b16 = {d[8*at+:8], d[8*(at+1)+:8]};
  endfunction

  function automatic logic is_vlan_type(logic [15:0] t);
    is_vlan_type = t == 16'h8100 || t == 16'h88a8;
  endfunction

  function automatic linux_info_t linux_info(logic [nt_pkg::StreamBits-1:0] d, logic [6:0] n);
    linux_info_t r;
    logic [15:0] typ;
    logic [31:0] crc;
    logic [7:0]  proto;
    logic        stop;
    int unsigned off;
    r.vlan = n >= 7'd16 && is_vlan_type(beat_b16(d, 12));
    r.pcp  = d[8*14+5+:3];
    off    = 12;
    typ    = beat_b16(d, 12);
    stop   = 1'b0;
    for (int k = 0; k < 8; k++) begin
      if (!stop && is_vlan_type(typ)) begin
        if (off + 6 > int'(n)) begin
          typ  = '0;
          stop = 1'b1;
        end else begin
          typ = beat_b16(d, off + 4);
          off = off + 4;
        end
      end
    end
    if (is_vlan_type(typ)) typ = '0;  // deeper than 8 tags
    r.rc_shift = 5'd0;
    if (typ == 16'h86dd) begin
      proto      = off + 2 + 6 < int'(n) ? d[8*(off+8)+:8] : 8'd0;
      r.rc_shift = proto == 8'd6 ? 5'd20 : proto == 8'd17 ? 5'd24 : 5'd16;
    end else if (typ == 16'h0800) begin
      proto      = off + 2 + 9 < int'(n) ? d[8*(off+11)+:8] : 8'd0;
      r.rc_shift = proto == 8'd6 ? 5'd12 : proto == 8'd17 ? 5'd8 : 5'd4;
    end
    crc = '1;
    for (int i = 0; i < 14; i++) crc = crc32_byte(crc, d[8*i+:8]);
    crc = ~crc;
    crc = crc ^ (crc >> 8);
    crc = crc ^ (crc >> 16);
    r.entropy = crc[7:0];
    linux_info = r;
  endfunction

  function automatic logic [6:0] popcount64(logic [nt_pkg::StreamBytes-1:0] k);
    logic [6:0] c;
    c = '0;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) c = c + 7'(k[i]);
    popcount64 = c;
  endfunction

  function automatic logic [nt_pkg::StreamBytes-1:0] keep_mask(logic [6:0] n);
    logic [nt_pkg::StreamBytes-1:0] k;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) k[i] = 7'(i) < n;
    keep_mask = k;
  endfunction

  function automatic logic [nt_pkg::StreamBits-1:0] byte_mask(logic [nt_pkg::StreamBytes-1:0] keep);
    logic [nt_pkg::StreamBits-1:0] m;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) m[8*i+:8] = {8{keep[i]}};
    byte_mask = m;
  endfunction

  // IBTA partition-key match: equal low 15 bits, one of them a full member, not the invalid key.
  function automatic logic pkey_match(logic [15:0] a, logic [15:0] b);
    pkey_match = a[14:0] != '0 && a[14:0] == b[14:0] && (a[15] | b[15]);
  endfunction

endpackage
