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
