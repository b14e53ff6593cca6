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


class PackedAndSharedTest(unittest.TestCase):
    """Packed-struct ports (fields read from the SV package), shared port groups (`use`) and `include`."""

    def test_packed_fields_come_from_the_sv_package(self):
        self.assertEqual(blockgen.sv_struct_fields("rdma_pkg::cqe_t"),
                         [("wr_id", 120, 32), ("len", 88, 32), ("imm", 56, 32), ("qpn", 32, 24), ("opcode", 24, 8),
                          ("psn", 0, 24)])
        # an enum field takes its width from the enum's typedef
        self.assertEqual(blockgen.sv_struct_fields("naa_pkg::naa_req_cpl_t"), [("tag", 2, 8), ("status", 0, 2)])
        with self.assertRaises(blockdesc.DescriptorError):
            blockgen.sv_struct_fields("rdma_pkg::no_such_t")

    def test_rdma_uses_the_shared_dma_and_cfg_groups(self):
        d = blockdesc.load("rdma")
        names = [n for _, n, _ in blockgen.sv_ports(d)]
        for n in ("dma_req_valid_o", "dma_req_data_o", "dma_rsp_data_i", "cfg_data_i", "cqe_valid_o", "cqe_o"):
            self.assertIn(n, names)
        self.assertIn(("output", "cqe_o", "rdma_pkg::cqe_t"), blockgen.sv_ports(d))
        cmp = blockgen.gen_compare_h(d, "rdma.json")
        # the DMA data is compared only while a write is valid; a CQE's fields only while cqe_valid_o is high
        self.assertIn("r.dma_req.valid && r.dma_req.write && r.dma_req.data != m.dma_req.data", cmp)
        self.assertIn('"cqe_o.wr_id"', cmp)
        self.assertNotIn("AccountRdma", cmp)  # "accounting": "custom"
        top = blockgen.gen_tb_top(d, "rdma.json")
        self.assertIn("input  rdma_pkg::cqe_t", top)
        self.assertIn("model_dma_req_data_i", top)

    def test_include_takes_the_other_blocks_ports(self):
        d = {"block": "x", "namespace": "nettwin::x", "struct_prefix": "X", "rtl_top": "x_top", "tb_top": None,
             "in": [{"include": "rdma"}],
             "out": [{"include": "rdma", "rename": {"counters": "rdma"}},
                     {"counters": "cnt", "ctype": "XCounters", "prefix": "x_", "width": 32, "meaning": "m", "list": [
                         {"name": "in", "kind": "in", "meaning": "a"}, {"name": "out", "kind": "out", "meaning": "b"}]}]}
        blockdesc.expand(d, "test")
        blockdesc.validate(d, "test")
        ports = blockgen.gen_ports_h(d, "x.json")
        self.assertIn("using XIn = rdma::RdmaIn;", ports)
        self.assertIn("rdma::RdmaCounters rdma;", ports)
        self.assertIn("rdma::CqeEvent cqe;", ports)
        self.assertIn('#include "rdma_ports.h"', ports)
        self.assertEqual(blockdesc.counters_group(d)["ctype"], "XCounters")  # its own group, not the included one
        self.assertIn("x_in_o", [n for _, n, _ in blockgen.sv_ports(d)])
        self.assertIn("cnt_packets_in_o", [n for _, n, _ in blockgen.sv_ports(d)])


if __name__ == "__main__":
    unittest.main()
