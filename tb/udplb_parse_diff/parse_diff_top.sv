// Differential harness (scripts/udplb_parse_diff.sh): main @ 6bbb01d's one-module udplb_parser (renamed
// udplb_parser_old, taken from git by the script) against udplb_parse_pre of the window's first beat feeding
// udplb_parser, as udplb_top connects them (there the first beat's terms are registered as it enters H; here
// the same function of the same bytes, combinationally). The window's upper beat is zero when the first beat
// is the frame's last (lb_lookahead's window), so the driver forms it that way.
module parse_diff_top
(
  input  logic [8*udplb_pkg::UWindowBytes-1:0]  window_i,
  input  logic [udplb_pkg::UWindowBytes-1:0]    keep_i,
  input  logic                                  en_i,
  output logic                                  differ_o,
  output logic [11:0]                           cov_o,     // the old parse's verdict and flags (coverage)
  output logic [$bits(udplb_pkg::uparse_t)-1:0] old_o,
  output logic [$bits(udplb_pkg::uparse_t)-1:0] new_o
);
  udplb_pkg::uparse_t p_old, p_new;
  udplb_pkg::upre_t   pre;

  udplb_parser_old u_old (
    .window_i (window_i),
    .keep_i   (keep_i),
    .en_i     (en_i),
    .info_o   (p_old)
  );

  udplb_parse_pre u_pre (
    .beat_i (window_i[nt_pkg::StreamBits-1:0]),
    .keep_i (keep_i[nt_pkg::StreamBytes-1:0]),
    .en_i   (en_i),
    .pre_o  (pre)
  );

  udplb_parser u_new (
    .window_i (window_i),
    .keep_i   (keep_i),
    .en_i     (en_i),
    .pre_i    (pre),
    .info_o   (p_new)
  );

  assign old_o    = p_old;
  assign new_o    = p_new;
  assign differ_o = p_old != p_new;
  assign cov_o    = {p_old.perr, p_old.vlan, p_old.arp, p_old.lb, p_old.lb_v3, p_old.icmp4_echo, p_old.icmp4_emb,
                     p_old.icmp6_echo, p_old.icmp6_emb, p_old.ns, p_old.ns_ll, p_old.ipv6};
endmodule
