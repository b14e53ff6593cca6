// The lookup of a priority CAM of udplb_tables (mac_dst, ip_dst): the entries that match (the registered key
// compare km_i and the entry's iface under its mask), the winner (a match that no other match beats, from the
// registered beat matrix, udplb_beat_matrix), and the winner's fields (their AND-OR with the winner one-hot);
// the hit is the OR of the matches. Issue 27 item 2 (<= 12 logic levels; branch udt23): the tree is cut into
// steps that each read at most six signals, and every step whose result feeds another step is a child module
// (udplb_step_and3 / _ao3 / _or6), so the per-module synthesis maps each alone and ABC cannot fold two steps
// into one 7- to 9-input LUT of up to 4 levels, which (* keep *) wires did not prevent (udt21, udt22: 17 and
// 19 levels). The steps left here read only child outputs or ports and feed only child inputs or ports, so
// each is one LUT: the iface halves (1), the match (2, u_match), the beat row's AND with the matches by threes
// (3, u_w1), by sixes (4, u_w2), the winner (5), the fields' AND-OR with the winner by threes (6, u_f1), by
// sixes (7, u_f2), the field (8); the hit: the matches by sixes (3, u_h1), their OR (4-5). The same functions
// as udt22's tree (ORs and ANDs regrouped); one module for both tables.
module udplb_prio_lookup #(
  parameter int unsigned N = 64,  // entries
  parameter int unsigned C = 1    // field bits read from the winner
) (
  input  logic [N-1:0]        km_i,     // entry i is valid and its key fields equal the key (registered)
  input  logic [3:0]          iface_i,  // the iface compared with each entry's value under its mask
  input  logic [4*N-1:0]      ival_i,   // entry i's iface value in bits 4i+3:4i
  input  logic [4*N-1:0]      imask_i,  // entry i's iface mask, the same way
  input  logic [N-1:0][N-1:0] beat_i,   // bit c of row k: entry c beats entry k
  input  logic [C*N-1:0]      col_i,    // field bit c of entry i at c*N+i
  output logic                hit_o,
  output logic [C-1:0]        field_o   // the winner's fields (0 on a miss)
);
  localparam int unsigned T1 = (N + 2) / 3;   // groups of 3 entries
  localparam int unsigned T2 = (T1 + 5) / 6;  // groups of 6 of those
  localparam int unsigned H1 = (N + 5) / 6;   // groups of 6 entries (the hit)

  // The match: the iface compare in two halves (six inputs each), then with km_i.
  logic [N-1:0]   match, win;
  logic [3*N-1:0] mq;  // entry i's {ifh, ifl, km} at 3i
  for (genvar i = 0; i < N; i++) begin : g_m
    logic ifl, ifh;
    assign ifl = ((iface_i[1:0] ^ ival_i[4*i+:2]) & imask_i[4*i+:2]) == '0;
    assign ifh = ((iface_i[3:2] ^ ival_i[4*i+2+:2]) & imask_i[4*i+2+:2]) == '0;
    assign mq[3*i+:3] = {ifh, ifl, km_i[i]};
  end
  udplb_step_and3 #(.K(N)) u_match (
    .a_i (mq),
    .y_o (match)
  );

  // The winner: entry k matches and no match beats it (row k of the beat matrix AND the matches, by threes,
  // then by sixes; the padding is 0).
  logic [3*T1-1:0]   mp;
  logic [3*T1*N-1:0] w1_a, w1_b;
  logic [T1*N-1:0]   w1;
  logic [6*T2*N-1:0] w2_a;
  logic [T2*N-1:0]   w2;
  assign mp = (3*T1)'(match);
  for (genvar k = 0; k < N; k++) begin : g_w
    assign w1_a[3*T1*k+:3*T1] = (3*T1)'(beat_i[k]);
    assign w1_b[3*T1*k+:3*T1] = mp;
    assign w2_a[6*T2*k+:6*T2] = (6*T2)'(w1[T1*k+:T1]);
    assign win[k] = match[k] && w2[T2*k+:T2] == '0;
  end
  udplb_step_ao3 #(.K(N*T1)) u_w1 (
    .a_i (w1_a),
    .b_i (w1_b),
    .y_o (w1)
  );
  udplb_step_or6 #(.K(N*T2)) u_w2 (
    .a_i (w2_a),
    .y_o (w2)
  );

  // The fields: each column's AND-OR with the winner one-hot, by threes, by sixes, then the output.
  logic [3*T1-1:0]   wp;
  logic [3*T1*C-1:0] f1_a, f1_b;
  logic [T1*C-1:0]   f1;
  logic [6*T2*C-1:0] f2_a;
  logic [T2*C-1:0]   f2;
  assign wp = (3*T1)'(win);
  for (genvar c = 0; c < C; c++) begin : g_f
    assign f1_a[3*T1*c+:3*T1] = wp;
    assign f1_b[3*T1*c+:3*T1] = (3*T1)'(col_i[N*c+:N]);
    assign f2_a[6*T2*c+:6*T2] = (6*T2)'(f1[T1*c+:T1]);
    assign field_o[c] = |f2[T2*c+:T2];
  end
  udplb_step_ao3 #(.K(C*T1)) u_f1 (
    .a_i (f1_a),
    .b_i (f1_b),
    .y_o (f1)
  );
  udplb_step_or6 #(.K(C*T2)) u_f2 (
    .a_i (f2_a),
    .y_o (f2)
  );

  // The hit: the matches' OR by sixes, then their OR.
  logic [6*H1-1:0] hp;
  logic [H1-1:0]   h1;
  assign hp = (6*H1)'(match);
  udplb_step_or6 #(.K(H1)) u_h1 (
    .a_i (hp),
    .y_o (h1)
  );
  assign hit_o = |h1;
endmodule
