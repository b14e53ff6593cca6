// The lookup stage's key match of the head it takes with one context (issue 27 item 2, session 25): an 80-bit
// compare, three LUT levels on its own. A child module apart from re_lookup_ctx's other compares, with which
// ABC had shared its terms and left it five levels deep, in front of the AND-OR that reads the hit context's
// row (the per-module flow cuts at the ports: docs/synthesis.md, session 22).
module re_lookup_hit
(
  input  logic [re_pkg::KeyW-1:0]  key_i,     // the head's key
  input  logic [re_pkg::KeyW-1:0]  key_c_i,   // the context's key
  output logic                     hit_o      // key_c_i == key_i
);
  assign hit_o = key_c_i == key_i;
endmodule
