// The lookup of a priority CAM of udplb_tables (mac_dst, ip_dst): the entries that match (the registered key
// compare km_i and the entry's iface under its mask), the winner (a match that no other match beats, from the
// registered beat matrix, udplb_beat_matrix), and the winner's fields (their AND-OR with the winner one-hot);
// the hit is the OR of the matches. Issue 27 item 2 (<= 12 logic levels; branch udt23): the tree is cut into
// steps that each read at most six signals, and every step whose result feeds another step is a child module
// (udplb_step_and3, and udplb_ao_rows' udplb_step_ao3 / _or6), so the per-module synthesis maps each alone and
// ABC cannot fold two steps into one 7- to 9-input LUT of up to 4 levels, which (* keep *) wires did not
// prevent (udt21, udt22: 17 and 19 levels). The steps left here read only child outputs or ports and feed only
// child inputs or ports, so each is one LUT: the iface halves (1), the match (2, u_match), the beat row's AND
// with the matches by threes (3), by sixes (4) (u_w), the winner (5), the fields' AND-OR with the winner by
// threes (6), by sixes (7) (u_f), the field (8); the hit: the matches by sixes (3, u_h1), their OR (4-5).
// The same functions as udt22's tree (ORs and ANDs regrouped); one module for both tables.
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
  localparam int unsigned T2 = ((N + 2) / 3 + 5) / 6;  // udplb_ao_rows' outputs per row
  localparam int unsigned H1 = (N + 5) / 6;              // groups of 6 entries (the hit)

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
  // then by sixes: udplb_ao_rows); the fields: each column's AND-OR with the winner one-hot the same way, then
  // the output.
  logic [T2*N-1:0] w2;
  logic [T2*C-1:0] f2;
  udplb_ao_rows #(.R(N), .N(N)) u_w (
    .a_i (beat_i),
    .b_i (match),
    .y_o (w2)
  );
  for (genvar k = 0; k < N; k++) begin : g_w
    assign win[k] = match[k] && w2[T2*k+:T2] == '0;
  end
  udplb_ao_rows #(.R(C), .N(N)) u_f (
    .a_i (col_i),
    .b_i (win),
    .y_o (f2)
  );
  for (genvar c = 0; c < C; c++) begin : g_f
    assign field_o[c] = |f2[T2*c+:T2];
  end

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
