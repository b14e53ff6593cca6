// The lookup stage's compares of the head it takes with one context (issue 27 item 2, session 24): the expiry
// of the context by the head's time and whether the head precedes the context in (first arrival, key) order
// (the key match is re_lookup_hit since session 25). A child module, instantiated once per context and once for the bypass (D's frame), so
// Yosys reads the compare trees once (as functions in re_decide's 64-context loop they made the block's
// read_verilog four times slower) and the per-module flow measures them alone (docs/synthesis.md, session 22).
module re_lookup_ctx
(
  input  logic [63:0]              time_i,    // the head's arrival time
  input  logic [re_pkg::KeyW-1:0]  key_i,     // the head's key
  input  logic [63:0]              first_i,   // the context's first arrival
  input  logic [re_pkg::KeyW-1:0]  key_c_i,   // the context's key
  input  logic [63:0]              tmo_i,     // cfg_timeout_ns_i
  output logic                     exp_o,     // $signed(time_i - first_i) > $signed(tmo_i)
  output logic                     prec_o     // (time_i, key_i) < (first_i, key_c_i)
);
  assign exp_o  = re_pkg::expired64(time_i, first_i, tmo_i);
  assign prec_o = re_pkg::lt81(81'(time_i), 81'(first_i)) ||
                  (time_i == first_i && re_pkg::lt81(81'(key_i), 81'(key_c_i)));
endmodule
