// Which entry of a priority table beats which, kept in registers and rewritten by each write of an entry
// (udplb_tables' l2_iface, mac_dst and ip_dst searches and each epoch group; docs/lb-microarchitecture.md
// "Priority searches by registered beat matrices"). Bit c of beat_o[k] is set when entry c beats entry k: a
// lower priority, or the same one and a lower index. A write of entry w with priority P compares P with every
// entry's current priority (prios_i, before the write) and rewrites row w and bit w of every other row; a
// pair's bit is rewritten by every write of either entry, so it always holds the order of the current
// priorities (bit w of row w is 0 from the entry's write on; rows of entries never written are never read:
// the searches read a row only for a matching, so valid, so written entry). The compares sit on the write
// path, so a lookup is AND/OR only (issue 27 item 2). Constant indices: per-bit enables from the index
// compare, no shifter over the matrix. No reset (read only behind the entries' valid flops).
module udplb_beat_matrix #(
  parameter int unsigned N = 64,  // entries
  parameter int unsigned W = 16,  // priority bits
  localparam int unsigned IdxBits = N > 1 ? $clog2(N) : 1
) (
  input  logic                  clk_i,
  input  logic                  wr_i,     // entry idx_i is written this cycle (idx_i < N)
  input  logic [IdxBits-1:0]    idx_i,
  input  logic [W-1:0]          prio_i,   // its new priority
  input  logic [N*W-1:0]        prios_i,  // every entry's current priority (entry i in bits W*i+W-1:W*i)
  output logic [N-1:0][N-1:0]   beat_o
);
  logic [N-1:0][N-1:0] beat_q;
  logic [N-1:0]        lt, eq;  // entry i's priority is lower than, equal to the written one

  always_comb begin
    for (int i = 0; i < N; i++) begin
      lt[i] = prios_i[W*i+:W] < prio_i;
      eq[i] = prios_i[W*i+:W] == prio_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (wr_i) begin
      for (int k = 0; k < N; k++) begin
        for (int c = 0; c < N; c++) begin
          // Written entry w = k: entry c beats it. Written entry w = c: it beats entry k unless entry k's
          // priority is lower, or the same and k < w.
          if (32'(idx_i) == k) beat_q[k][c] <= c != k && (lt[c] || (eq[c] && c < k));
          else if (32'(idx_i) == c) beat_q[k][c] <= !lt[k] && !(eq[k] && k < c);
        end
      end
    end
  end

  assign beat_o = beat_q;
endmodule
