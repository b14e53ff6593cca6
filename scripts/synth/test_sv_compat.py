"""Unit tests of sv_compat.struct_arrays (ctest synth_depth_unit runs them too): which declarations Yosys 0.55
would read one element wide (docs/synthesis.md "One RTL source", arrays of structs, packed or unpacked).

    cd scripts/synth && /usr/bin/python3 -m unittest test_sv_compat
"""
import pathlib
import tempfile
import unittest

import sv_compat

PKG = """package p;
  typedef struct packed { logic [7:0] a; logic [3:0] b; } s_t;  // s_t [3:0] in a comment is not a use
  typedef enum logic [2:0] { A, B } e_t;
  typedef s_t [3:0] s_arr_t;
endpackage
"""
MOD = """module m (input p::s_t [3:0] x_i, input p::e_t [3:0] e_i, input p::s_t one_i, input logic [3:0][11:0] v_i);
  p::s_t r [4];            // unpacked: one element too (branch ring18)
  logic [11:0] w [4];      // words of the struct's width: read correctly
  p::s_t [1:0] two;        // packed: one element
  function automatic logic f(p::s_t [3:0] v); f = v[0].a[0]; endfunction
endmodule
"""


class StructArrays(unittest.TestCase):
    def test_finds_arrays_of_structs_only(self):
        with tempfile.TemporaryDirectory() as d:
            pkg, mod = pathlib.Path(d) / "p_pkg.sv", pathlib.Path(d) / "m.sv"
            pkg.write_text(PKG)
            mod.write_text(MOD)
            hits = sv_compat.struct_arrays([pkg, mod])
        got = sorted((pathlib.Path(w.split(":")[0]).name, int(w.split(":")[1]), typ) for w, typ, _ in hits)
        self.assertEqual(got, [("m.sv", 1, "s_t"), ("m.sv", 2, "s_t"), ("m.sv", 4, "s_t"), ("m.sv", 5, "s_t"),
                               ("p_pkg.sv", 4, "s_t")])


if __name__ == "__main__":
    unittest.main()
