// Header bytes and lengths of a response packet (docs/rdma.md "Response packets, byte for byte").
`include "nt_bytes.svh"
module rdma_compose
(
  input  rdma_pkg::desc_t                  d_i,
  output logic [8*rdma_pkg::HdrWindow-1:0] hdr_o,      // byte 0 in bits 7:0
  output logic [15:0]            hdr_len_o,
  output logic [15:0]            len_o       // whole frame incl. pad and ICRC
);
  logic [8*rdma_pkg::HdrWindow-1:0] h;
  int unsigned ip_len, bth_off, udp_len, hlen, pad, len;
  logic        aeth, atomic;
  logic [16:0] sum;
  logic [15:0] csum, csum_n, ip_total, udp_len16;
  logic [7:0]  bth_flags;

  `NT_PUT_BE_FN(put, 8 * rdma_pkg::HdrWindow, 128)

  always_comb begin
    h       = '0;
    aeth    = d_i.opcode != 8'h0e;
    atomic  = d_i.opcode == 8'h12;
    ip_len  = d_i.v6 ? 40 : 20;
    bth_off = 14 + ip_len + 8;
    hlen    = bth_off + 12 + (aeth ? 4 : 0) + (atomic ? 8 : 0);
    pad     = (4 - int'(d_i.plen) % 4) % 4;
    len     = hlen + int'(d_i.plen) + pad + 4;
    udp_len = len - 14 - ip_len;
    sum     = '0;
    csum    = '0;
    csum_n  = '0;
    ip_total  = 16'(20 + udp_len);
    udp_len16 = 16'(udp_len);
    bth_flags = {2'b00, 2'(pad), 4'b0000};
    h = put(h, 0, 6, 128'(d_i.dst_mac));
    h = put(h, 6, 6, 128'(d_i.src_mac));
    h = put(h, 12, 2, d_i.v6 ? 128'h86dd : 128'h0800);
    if (!d_i.v6) begin
      h = put(h, 14, 1, 128'h45);
      h = put(h, 16, 2, 128'(ip_total));
      h = put(h, 20, 2, 128'h4000);
      h = put(h, 22, 1, 128'd64);
      h = put(h, 23, 1, 128'd17);
      h = put(h, 26, 4, 128'(d_i.src_ip4));
      h = put(h, 30, 4, 128'(d_i.dst_ip4));
      for (int unsigned i = 0; i < 10; i++) begin
        sum  = {1'b0, csum} + {1'b0, h[8*(14+2*i)+:8], h[8*(15+2*i)+:8]};
        csum = sum[15:0] + {15'd0, sum[16]};
      end
      csum_n = ~csum;
      h = put(h, 24, 2, 128'(csum_n));
    end else begin
      h = put(h, 14, 1, 128'h60);
      h = put(h, 18, 2, 128'(udp_len16));
      h = put(h, 20, 1, 128'd17);
      h = put(h, 21, 1, 128'd64);
      h = put(h, 22, 16, d_i.src_ip6);
      h = put(h, 38, 16, d_i.dst_ip6);
    end
    h = put(h, 14 + ip_len, 2, 128'(d_i.sport));
    h = put(h, 16 + ip_len, 2, 128'(nt_pkg::RdmaUdpPort));
    h = put(h, 18 + ip_len, 2, 128'(udp_len16));
    h = put(h, bth_off, 1, 128'(d_i.opcode));
    h = put(h, bth_off + 1, 1, 128'(bth_flags));
    h = put(h, bth_off + 2, 2, 128'hffff);
    h = put(h, bth_off + 5, 3, 128'(d_i.dqpn));
    h = put(h, bth_off + 9, 3, 128'(d_i.psn));
    if (aeth) begin
      h = put(h, bth_off + 12, 1, 128'(d_i.syndrome));
      h = put(h, bth_off + 13, 3, 128'(d_i.msn));
    end
    if (atomic) h = put(h, bth_off + 16, 8, 128'(d_i.atomic_value));
  end

  assign hdr_o     = h;
  assign hdr_len_o = 16'(hlen);
  assign len_o     = 16'(len);
endmodule
