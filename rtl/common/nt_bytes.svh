// Functions on byte vectors (byte i in bits 8i+7:8i), each written once for every width a block needs.
// A SystemVerilog function has no width parameter (a parameterised class's static function would, but Yosys
// 0.55 reads no classes, docs/synthesis.md), so each macro expands to one function of the name and widths
// given. Verilator's C++ of every top is the same as with the functions written out (docs/blockgen.md
// "Shared shapes").
`ifndef NT_BYTES_SVH
`define NT_BYTES_SVH

// logic [W-1:0] name(f, off, n, v): f with its bytes [off, off+n) set to the low n bytes of the VW-bit v,
// most significant first (a big-endian field written into a frame).
`define NT_PUT_BE_FN(name, W, VW) \
  function automatic logic [(W)-1:0] name(logic [(W)-1:0] f, int unsigned off, int unsigned n, \
                                          logic [(VW)-1:0] v); \
    logic [(W)-1:0] r; \
    r = f; \
    for (int unsigned i = 0; i < n; i++) r[8*(off+i)+:8] = v[8*(n-1-i)+:8]; \
    name = r; \
  endfunction

// logic [63:0] name(f, off, n): bytes [off, off+n) of the W-bit f read most significant first (a big-endian
// field of at most 8 bytes read from a frame).
`define NT_GET_BE_FN(name, W) \
  function automatic logic [63:0] name(logic [(W)-1:0] f, int unsigned off, int unsigned n); \
    logic [63:0] v; \
    v = '0; \
    for (int unsigned i = 0; i < n; i++) v = {v[55:0], f[8*(off+i)+:8]}; \
    name = v; \
  endfunction

// logic [W-1:0] byte_rev<W>(x): x's byte 0 (bits 7:0) becomes the result's last byte, what the streaming
// operator {<<8{x}} computes (Yosys 0.55 cannot parse streaming operators).
`define NT_BYTE_REV_FN(W) \
  function automatic logic [(W)-1:0] byte_rev``W(logic [(W)-1:0] x); \
    for (int i = 0; i < (W)/8; i++) byte_rev``W[8*i+:8] = x[8*((W)/8-1-i)+:8]; \
  endfunction

`endif  // NT_BYTES_SVH
