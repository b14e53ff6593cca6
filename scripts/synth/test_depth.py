"""Unit tests of depth.py (ctest synth_depth_unit): levels of a module alone and stitched across an instance.

    cd scripts/synth && /usr/bin/python3 -m unittest test_depth   (depth.py is imported from the working directory)
"""
import unittest

import depth

LUT = {"A": "input", "O": "output"}
FF = {"C": "input", "D": "input", "Q": "output"}


def lut(a, o):
    return {"type": "LUT1", "port_directions": LUT, "connections": {"A": [a], "O": [o]}}


def ff(d, q):
    return {"type": "FDRE", "port_directions": FF, "connections": {"C": [1], "D": [d], "Q": [q]}}


def net(bits, src=""):
    return {"hide_name": 0, "bits": bits, "attributes": {"src": src}}


# child: in -> 3 LUTs -> out (combinational, port to port); parent: reg_q -> 2 LUTs -> child.in,
# child.out -> 1 LUT -> res_q. Alone, the parent's deepest path is 2 and the child's 3; stitched it is 6.
CHILD = {
    "ports": {"a_i": {"direction": "input", "bits": [2]}, "y_o": {"direction": "output", "bits": [5]}},
    "cells": {"l1": lut(2, 3), "l2": lut(3, 4), "l3": lut(4, 5)},
    "netnames": {"a_i": net([2], "child.sv:3"), "y_o": net([5], "child.sv:4")},
}
PARENT = {
    "ports": {"clk_i": {"direction": "input", "bits": [1]}},
    "cells": {"r0": ff(20, 10), "p1": lut(10, 11), "p2": lut(11, 12),
              "u_child": {"type": "child", "port_directions": {"a_i": "input", "y_o": "output"},
                          "connections": {"a_i": [12], "y_o": [13]}},
              "p3": lut(13, 14), "r1": ff(14, 20)},
    "netnames": {"reg_q": net([10], "parent.sv:7"), "res_q": net([20], "parent.sv:8"), "mid": net([12])},
}


class DepthTest(unittest.TestCase):
    def test_alone_cuts_at_the_instance(self):
        a = depth.analyse({"parent": PARENT, "child": CHILD}, "parent", stitched=False)
        self.assertEqual(a["levels"], 2)
        self.assertEqual(a["start"]["signal"], "reg_q")
        self.assertEqual(depth.analyse({"child": CHILD}, "child", stitched=False)["levels"], 3)

    def test_stitched_follows_the_path_through_the_child(self):
        a = depth.analyse({"parent": PARENT, "child": CHILD}, "parent", stitched=True, threshold=5)
        self.assertEqual(a["levels"], 6)
        self.assertEqual(a["start"]["signal"], "reg_q")
        self.assertEqual(a["start"]["src"], "parent.sv:7")
        self.assertIn("res_q", a["end"]["signal"])
        self.assertEqual([(p["levels"], p["bits"]) for p in a["deep"]], [(6, 1)])

    def test_a_blackbox_child_stays_a_cut(self):
        box = {"attributes": {"blackbox": 1}, "ports": {}, "cells": None}
        a = depth.analyse({"parent": PARENT, "child": box}, "parent", stitched=True)
        self.assertEqual(a["levels"], 2)

    def test_a_clock_enable_ends_a_path_in_the_deep_list(self):
        # en_q -> 3 LUTs -> the CE of state_q: 3 levels, listed as state_q's CE (it was counted by the levels but
        # missing from the deep list before session 27)
        ce = {"C": "input", "CE": "input", "D": "input", "Q": "output"}
        mod = {"ports": {}, "cells": {"r0": ff(30, 10), "l1": lut(10, 11), "l2": lut(11, 12), "l3": lut(12, 13),
                                      "r1": {"type": "FDCE", "port_directions": ce,
                                             "connections": {"C": [1], "CE": [13], "D": [30], "Q": [31]}}},
               "netnames": {"en_q": net([10]), "state_q": net([31], "m.sv:2")}}
        a = depth.analyse({"m": mod}, "m", stitched=False, threshold=2)
        self.assertEqual(a["levels"], 3)
        self.assertEqual([(p["levels"], p["end"]["signal"]) for p in a["deep"]], [(3, "state_q (FDCE CE)")])


if __name__ == "__main__":
    unittest.main()
