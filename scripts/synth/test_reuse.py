"""Unit test of synth.py's module fingerprints (`--reuse`; ctest synth_depth_unit): two elaborations of one module
that differ only in source lines and Yosys's automatic names are equal; a change of logic is not.

    cd scripts/synth && /usr/bin/python3 -m unittest test_reuse
"""
import pathlib
import tempfile
import unittest

import synth

A = r'''autoidx 40
attribute \src "rtl/x/a.sv:1.1-9.10"
module \a
  attribute \src "rtl/x/a.sv:5.3-5.20"
  wire width 4 $add$rtl/x/a.sv:5$12_Y
  wire width 4 input 1 \x_i
  wire width 4 output 2 \y_o
  attribute \src "rtl/x/a.sv:5.3-5.20"
  cell $add $add$rtl/x/a.sv:5$12
    parameter \A_WIDTH 4
    connect \A \x_i
    connect \B 4'0001
    connect \Y $add$rtl/x/a.sv:5$12_Y
  end
  connect \y_o $add$rtl/x/a.sv:5$12_Y
end
module \b
  wire input 1 \c_i
end
'''


def fingerprints(text):
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "elab.il"
        p.write_text(text)
        return synth.module_fingerprints(p)


class FingerprintTest(unittest.TestCase):
    def test_moved_lines_and_counters_are_equal(self):
        moved = A.replace("a.sv:5", "a.sv:7").replace("$12", "$31").replace("5.3-5.20", "7.3-7.20")
        self.assertEqual(fingerprints(A)["\\a"], fingerprints(moved)["\\a"])
        self.assertEqual(set(fingerprints(A)), {"\\a", "\\b"})

    def test_changed_logic_differs(self):
        self.assertNotEqual(fingerprints(A)["\\a"], fingerprints(A.replace("4'0001", "4'0010"))["\\a"])
        self.assertNotEqual(fingerprints(A)["\\a"], fingerprints(A.replace("cell $add", "cell $sub"))["\\a"])


if __name__ == "__main__":
    unittest.main()


SPEC = r'''attribute \blackbox 1
module \FDRE
  wire input 1 \C
  wire output 2 \Q
  attribute \src "cells_sim.v:10"
  cell $specify2 $specify$1
    parameter signed \T_LIMIT_MAX 32'sx
    connect \DST \Q
  end
  cell $specrule $specify$2
    connect \DST_EN 1'1
  end
end
module \top
  attribute \keep 1
  cell \FDRE \q_reg
    connect \C \clk
  end
end
'''


class DropSpecifyTest(unittest.TestCase):
    """json_netlist's conversion input: the cell library's timing checks go, every other cell and port stays."""

    def test_drops_specify_cells_only(self):
        out = synth.drop_specify(SPEC)
        self.assertNotIn("$spec", out)
        self.assertNotIn("32'sx", out)
        self.assertNotIn("cells_sim.v:10", out)  # the dropped cell's attribute line
        self.assertIn("cell \\FDRE \\q_reg", out)
        self.assertIn("attribute \\keep 1", out)
        self.assertIn("wire output 2 \\Q", out)
        lines = out.splitlines()
        self.assertEqual(lines.count("end"), 2)  # the two modules
        self.assertEqual(lines.count("  end"), 1)  # top's cell
