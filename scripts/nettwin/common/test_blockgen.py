"""blockgen.py's checks catch what they are for (docs/blockgen.md): a counter the RTL top lacks, a docs table
out of date, a descriptor without a counter's meaning; and the reorder descriptor generates what the build uses."""
import copy
import os
import tempfile
import unittest

from nettwin.common import blockdesc, blockgen


class BlockgenTest(unittest.TestCase):
    def setUp(self):
        self.d = blockdesc.load("reorder")

    def test_reorder_agrees_with_rtl_and_docs(self):
        self.assertEqual(blockgen.check(self.d, "reorder.json"), [])

    def test_a_counter_missing_in_the_rtl_and_docs_fails(self):
        d = copy.deepcopy(self.d)
        blockdesc.counters(d).append({"name": "extra", "kind": "event", "meaning": "x"})
        errs = blockgen.check(d, "reorder.json")
        self.assertTrue(any("cnt_extra_o" in e and "not in reorder_top" in e for e in errs), errs)
        self.assertTrue(any("counter table differs" in e for e in errs), errs)

    def test_a_counter_without_meaning_is_refused(self):
        d = copy.deepcopy(self.d)
        blockdesc.counters(d).append({"name": "extra", "kind": "event"})
        with self.assertRaises(blockdesc.DescriptorError):
            blockdesc.validate(d, "test")

    def test_generates_every_file(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(blockgen.main([blockdesc.path("reorder"), "--out", out]), 0)
            names = sorted(os.listdir(out))
            self.assertEqual(names, ["reorder_compare.h", "reorder_counter_stats.h", "reorder_ports.h",
                                     "reorder_rtl_ports.h", "reorder_tb_top.sv"])
            top = open(os.path.join(out, "reorder_tb_top.sv")).read()
            for c in blockdesc.counters(self.d):  # the model's value of every counter is in the waveform
                self.assertIn(f"model_cnt_{c['name']}_i", top)

    def test_stats_keys(self):
        self.assertEqual(blockdesc.drop_reasons(self.d), ["malformed", "buffer_full"])
        self.assertIn("peak_buffer_bytes", blockdesc.stats_keys(self.d))
        self.assertEqual(blockdesc.stats_keys(self.d)[-1], "drops")


if __name__ == "__main__":
    unittest.main()
