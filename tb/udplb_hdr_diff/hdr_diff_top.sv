// Differential harness (scripts/udplb_hdr_diff.sh): main @ 87d32bf's one-stage udplb_hdr_calc (renamed
// udplb_hdr_calc_old, taken from git by the script) against udplb_pkg::l4_window + udplb_hdr_sum + udplb_hdr_calc, on random inputs
// shaped towards the corner cases. Inputs that the parser cannot produce are excluded in one way only: a
// frame that uses layer 4 (a forwarded frame, an ICMPv4 echo reply) has it at one of its 11 offsets.
module hdr_diff_top
(
  input  logic [$bits(udplb_pkg::uparse_t)-1:0]   raw_p_i,
  input  logic [8*udplb_pkg::UWindowBytes-1:0]    raw_hw_i,
  input  logic [$bits(udplb_pkg::uctx_t)-1:0]     raw_c_i,
  input  logic [63:0]                             ctl_i,
  output logic                                    differ_o,
  output logic [7:0]                              case_o,
  output logic [$bits(udplb_pkg::uout_t)-1:0]     old_o,
  output logic [$bits(udplb_pkg::uout_t)-1:0]     new_o
);
  udplb_pkg::uparse_t                   p;
  udplb_pkg::uctx_t                     c;
  logic [8*udplb_pkg::UWindowBytes-1:0] hw;
  udplb_pkg::usum_t                     s;
  udplb_pkg::ul4_t                      l4w;
  udplb_pkg::uhpre_t                    pre;
  udplb_pkg::uout_t                     o_old, o_new;
  logic                                 fwd, uses_l4;
  int unsigned                          l4;

  always_comb begin
    p  = raw_p_i;
    c  = raw_c_i;
    hw = raw_hw_i;
    c.kind   = ctl_i[1:0];
    if (ctl_i[4:2] != 3'd0) c.reason = '0;  // mostly a frame that leaves
    p.arp        = ctl_i[5] && ctl_i[6];
    p.icmp4_echo = ctl_i[7];
    p.icmp6_echo = ctl_i[8];
    p.ipv4       = ctl_i[9];
    fwd     = c.kind != udplb_pkg::KindHost && c.kind != udplb_pkg::KindReply;
    uses_l4 = fwd || (c.kind == udplb_pkg::KindReply && !p.arp && p.icmp4_echo);
    if (uses_l4 || ctl_i[30]) p.l4o = 7'(34 + 4 * (int'(ctl_i[13:10]) % 11));
    l4 = int'(p.l4o);
    if (ctl_i[28]) begin  // mostly zero bytes and addresses: all-zero checksum sums
      hw       = hw & {8*udplb_pkg::UWindowBytes{ctl_i[40]}};
      c.uc_ip  = c.uc_ip & {128{ctl_i[41]}};
      c.mem.ip = c.mem.ip & {128{ctl_i[42]}};
      c.uc_mac = c.uc_mac & {48{ctl_i[43]}};
      p.nd_target = p.nd_target & {128{ctl_i[44]}};
    end
    if (ctl_i[29]) hw = hw | {8*udplb_pkg::UWindowBytes{ctl_i[45]}};
    if (l4 + 8 <= udplb_pkg::UWindowBytes) begin
      if (ctl_i[14]) hw[8*(l4+4)+:16] = {12'd0, ctl_i[18:15]};  // UDP length under 16 (big-endian: low byte)
      if (ctl_i[19]) hw[8*(l4+6)+:16] = '0;                     // no UDP checksum
    end
    if (ctl_i[20]) hw[8*16+:16] = {12'd0, ctl_i[24:21]} << 8;  // IPv4 total length under 16
    if (ctl_i[31]) hw[8*18+:16] = {12'd0, ctl_i[24:21]} << 8;  // IPv6 payload length under 16
    if (ctl_i[25]) hw[8*22+:128] = '0;                          // unspecified source (ND)
    if (ctl_i[26]) p.ttl = {7'd0, ctl_i[27]};
    case_o = {c.reason == '0, fwd, p.ipv4, c.kind, p.arp, p.icmp4_echo, p.icmp6_echo};
  end

  udplb_hdr_calc_old u_old (
    .p_i       (p),
    .hw_i      (hw),
    .c_i       (c),
    .ttl_dec_i (ctl_i[32]),
    .port_i    (ctl_i[36:33]),
    .o_o       (o_old)
  );

  assign l4w = udplb_pkg::l4_window(hw, p.l4o);  // S6's, from the same frame

  udplb_hdr_pre u_pre (  // S6's pairs, from the same frame (udplb_top registers them beside s6_q)
    .p_i   (p),
    .hw_i  (hw),
    .c_i   (c),
    .pre_o (pre)
  );

  udplb_hdr_sum u_sum (
    .p_i   (p),
    .hw_i  (hw),
    .l4_i  (l4w),
    .c_i   (c),
    .mem_i (c.mem),
    .pre_i (pre),
    .s_o   (s)
  );

  udplb_hdr_calc u_new (
    .p_i       (p),
    .hw_i      (hw),
    .c_i       (c),
    .s_i       (s),
    .ttl_dec_i (ctl_i[32]),
    .port_i    (ctl_i[36:33]),
    .o_o       (o_new)
  );

  assign old_o    = o_old;
  assign new_o    = o_new;
  assign differ_o = o_old != o_new;

  logic unused;
  assign unused = ^ctl_i;
endmodule
