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

    def test_reuse_needs_the_same_lut_mapping(self):
        # figures of a run mapped with the other LUT mapping (docs/synthesis.md "LUT mapping: LUT6 only") are
        # not reused: a run without the marker file is a wide-LUT run (the mapping before the marker existed)
        with tempfile.TemporaryDirectory() as t:
            cur, old = pathlib.Path(t) / "cur" / "blk", pathlib.Path(t) / "old" / "blk"
            for b in (cur, old):
                (b / "out").mkdir(parents=True)
                (b / "out" / "elab.il").write_text(A)
            src = old / "mod" / "a" / "out"
            src.mkdir(parents=True)
            for f in ("netlist.json", "stat.json", "ltp.txt", "mem.il"):
                (src / f).write_text("")
            saved = synth.lut_map
            try:
                for mapping, marker, reused in (("nowidelut", None, False), ("widelut", None, True),
                                                ("nowidelut", "nowidelut", True), ("widelut", "nowidelut", False)):
                    synth.lut_map = mapping
                    if marker:
                        (src / "lut_map.txt").write_text(marker + "\n")
                    got = synth.reuse_module(cur, "\\a", [str(old.parent)], {})
                    self.assertEqual(got is not None, reused, (mapping, marker))
                    if got:
                        self.assertEqual(got, (str(old.parent), True))
                # a run of the other mapping that kept its coarse netlist lends it (only the mapping runs again)
                (src.parent / "in2").mkdir()
                (src.parent / "in2" / "coarse.il").write_text("")
                synth.lut_map = "nowidelut"
                (src / "lut_map.txt").write_text("widelut\n")
                self.assertEqual(synth.reuse_module(cur, "\\a", [str(old.parent)], {}), (str(old.parent), False))
                self.assertTrue((cur / "mod" / "a" / "in2" / "coarse.il").exists())
            finally:
                synth.lut_map = saved


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

    def test_signed_parameter_values_lose_their_sign_flag(self):
        il = "module \\m\n  parameter \\RdOff 32's11111111111111111111111111111111\n  wire \\a\nend\n"
        out = synth.drop_specify(il)
        self.assertIn("parameter \\RdOff 32'11111111111111111111111111111111", out)
        self.assertNotIn("'s", out)


class SplitMappedTest(unittest.TestCase):
    """Stage 2's netlist on stdout: the text between the markers leaves the log for mapped.il."""

    def test_split(self):
        with tempfile.TemporaryDirectory() as t:
            log, dest = pathlib.Path(t) / "yosys.log", pathlib.Path(t) / "mapped.il"
            log.write_text("3. ltp\nNT_RTLIL_BEGIN\n\n4. Executing RTLIL backend.\n\n"
                           "# Generated by Yosys 0.55\nmodule \\m\nend\n\nNT_RTLIL_END\nEnd of script.\n")
            self.assertTrue(synth.split_rtlil(log, dest))
            self.assertEqual(dest.read_text(), "# Generated by Yosys 0.55\nmodule \\m\nend\n")
            self.assertNotIn("module", log.read_text())
            self.assertIn("End of script.", log.read_text())
            self.assertFalse(synth.split_rtlil(log, dest))  # markers present, no netlist between them now
