"""blockgen.py's checks catch what they are for (docs/blockgen.md): a counter the RTL top lacks, a docs table
out of date, a descriptor without a counter's meaning; and the reorder descriptor generates what the build uses."""
import copy
import os
import shutil
import subprocess
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
            self.assertEqual(names, ["port_groups.h", "reorder_compare.h", "reorder_counter_stats.h",
                                     "reorder_ports.h", "reorder_rtl_ports.h", "reorder_tb_top.sv"])
            top = open(os.path.join(out, "reorder_tb_top.sv")).read()
            for c in blockdesc.counters(self.d):  # the model's value of every counter is in the waveform
                self.assertIn(f"model_cnt_{c['name']}_i", top)

    def test_stats_keys(self):
        self.assertEqual(blockdesc.drop_reasons(self.d), ["malformed", "buffer_full"])
        self.assertIn("peak_buffer_bytes", blockdesc.stats_keys(self.d))
        self.assertEqual(blockdesc.stats_keys(self.d)[-1], "drops")


def array_descriptor():
    """The reorder descriptor with two counter arrays: drops by reason (index 0 not a drop) of nt_pkg-named
    size and width, and per-instance events with a JSON-array stats key; its RTL top renamed `arr_top`."""
    d = blockdesc.load("reorder")
    d["block"], d["struct_prefix"], d["rtl_top"], d["tb_top"] = "arr", "Arr", "arr_top", "arr_tb_top"
    d["namespace"] = "nettwin::arr"
    blockdesc.counters(d).extend([
        {"name": "drops", "kind": "drop", "count": 3, "width": "LbCounterBits", "reasons": [None, "runt", "bad"],
         "meaning": "dropped, by reason"},
        {"name": "rx", "port": "inst_rx", "kind": "event", "count": "UdplbInstances", "width": 16, "stats": "rx",
         "meaning": "frames per instance"}])
    return d


class ArrayCountersTest(unittest.TestCase):
    """Counter arrays (docs/blockgen.md "Counter arrays")."""

    def setUp(self):
        self.d = array_descriptor()
        blockdesc.validate(self.d, "arr")

    def test_numbers_resolve_from_nt_pkg(self):
        p = blockdesc.sv_params()
        self.assertEqual(blockdesc.resolve("LbCounterBits"), p["LbCounterBits"])
        self.assertEqual(blockdesc.resolve("nt_pkg::UdplbInstances*32"), p["UdplbInstances"] * 32)
        with self.assertRaises(blockdesc.DescriptorError):
            blockdesc.resolve("NoSuchParam")

    def test_drop_reasons_and_stats_keys(self):
        self.assertEqual(blockdesc.drop_reasons(self.d), ["malformed", "buffer_full", "runt", "bad"])
        self.assertIn("rx", blockdesc.stats_keys(self.d))

    def test_bad_arrays_are_refused(self):
        for change in ({"reasons": [None, "runt"]},            # one reason per index
                       {"reasons": [None, None, None]},        # no drop at all
                       {"kind": "in"},                          # in/out are one number
                       {"count": "NoSuchParam"},
                       {"reasons": [None, "runt", "malformed"]}):  # a reason twice
            d = array_descriptor()
            blockdesc.counters(d)[-2].update(change)
            with self.assertRaises(blockdesc.DescriptorError, msg=str(change)):
                blockdesc.validate(d, "arr")

    def test_ports_docs_and_tb_top(self):
        ports = {n: w for _, n, w in blockgen.sv_ports(self.d)}
        self.assertEqual(ports["cnt_drops_o"], "3*LbCounterBits")
        self.assertEqual(ports["cnt_inst_rx_o"], "UdplbInstances*16")
        self.assertIn("logic [UdplbInstances*16-1:0]", blockgen.gen_tb_top(self.d, "arr.json"))
        self.assertIn("model_cnt_inst_rx_i", blockgen.gen_tb_top(self.d, "arr.json"))
        table = blockgen.docs_table(self.d)
        self.assertIn("| drops | `cnt_drops_o` [3 x LbCounterBits] | drop, by index: 1 `runt`, 2 `bad` |", table)
        self.assertIn("| rx | `cnt_inst_rx_o` [UdplbInstances x 16] | event (array) | rx (JSON array) |", table)

    def test_check_reads_products_of_parameters(self):
        with tempfile.TemporaryDirectory() as tmp:
            rtl = os.path.join(tmp, "arr_top.sv")
            want = [("input", "clk_i", 1), ("input", "rst_ni", 1)] + blockgen.sv_ports(self.d)
            decl = []
            for dirn, n, w in want:
                if w == "3*LbCounterBits":
                    w = "nt_pkg::LbCounterBits*3"  # another spelling of the same width
                decl.append(f"  {dirn} logic {blockgen.sv_range(w).replace('Stream', 'nt_pkg::Stream')} {n}")
            with open(rtl, "w") as f:
                f.write("module arr_top\n(\n" + ",\n".join(decl) + "\n);\nendmodule\n")
            orig = blockgen.rtl_path
            blockgen.rtl_path = lambda d, rtl_top=None: rtl
            try:
                errs = [e for e in blockgen.check(self.d, "arr.json") if "counter table" not in e]
                self.assertEqual(errs, [])
                with open(rtl, "w") as f:  # an array one element short
                    f.write("module arr_top\n(\n" + ",\n".join(decl).replace("LbCounterBits*3", "LbCounterBits*2")
                            + "\n);\nendmodule\n")
                errs = [e for e in blockgen.check(self.d, "arr.json") if "counter table" not in e]
                self.assertTrue(any("cnt_drops_o" in e and "not in arr_top" in e for e in errs), errs)
            finally:
                blockgen.rtl_path = orig

    def test_cfg_port(self):
        d = array_descriptor()
        d["in"].append({"cfg": "cfg", "table_bits": "UdplbCfgTableBits", "meaning": "table programming"})
        blockdesc.validate(d, "arr")
        ports = [p for p in blockgen.sv_ports(d) if p[1].startswith("cfg_") and p[1].endswith("_i")
                 and p[1] in ("cfg_valid_i", "cfg_table_i", "cfg_index_i", "cfg_data_i")]
        self.assertEqual(ports, [("input", "cfg_valid_i", 1), ("input", "cfg_table_i", "UdplbCfgTableBits"),
                                 ("input", "cfg_index_i", "CfgIndexBits"), ("input", "cfg_data_i", "CfgDataBits")])
        self.assertIn("  tb::DriveCfg(t, in.cfg);\n", blockgen.gen_rtl_ports_h(d, "arr.json"))
        self.assertIn("  CfgWrite cfg;  // table programming\n", blockgen.gen_ports_h(d, "arr.json"))
        d["out"].append({"cfg": "cfg"})
        with self.assertRaises(blockdesc.DescriptorError):
            blockdesc.validate(d, "arr")

    def test_stats_rows(self):
        """udplb's per-instance arrays written as one table of objects; a row array must say its table."""
        d = blockdesc.load("udplb")
        self.assertEqual(blockdesc.stats_keys(d)[-2:], ["drops", "instances"])
        self.assertEqual(blockdesc.stats_row_columns(d, "instances"), ["lb_id", "rx", "rx_v2", "rx_v3", "tx", "drops"])
        code = blockgen.gen_stats_h(d, "udplb.json")
        self.assertIn('j << "  \\"instances\\": [";', code)
        self.assertIn('<< ", \\"drops\\": " << c.inst_drops[i] << "}";', code)
        self.assertIn("static constexpr const char* kDropsReasons[params::kUdplbDropReasons] = {nullptr, "
                      '"parse_error"', blockgen.gen_ports_h(d, "udplb.json"))
        for change in ({"stats_row": "nope"}, {"count": 4}):
            d = blockdesc.load("udplb")
            blockdesc.counters(d)[-1].update(change)
            with self.assertRaises(blockdesc.DescriptorError, msg=str(change)):
                blockdesc.validate(d, "udplb")

    def test_lb_and_udplb_agree_with_rtl_and_docs(self):
        for b in ("lb", "udplb"):
            self.assertEqual(blockgen.check(blockdesc.load(b), b + ".json"), [])

    def test_generated_cpp_compiles_and_runs(self):
        """The generated struct, Compare, accounting, stats and CountersJson for arrays, compiled and run
        (needs the build's gen/nt_params.h: ctest passes NT_BUILD_DIR)."""
        build = os.environ.get("NT_BUILD_DIR")
        cxx = shutil.which("g++")
        if not build or not os.path.exists(os.path.join(build, "gen", "nt_params.h")) or not cxx:
            self.skipTest("needs NT_BUILD_DIR (the CMake build) and g++")
        from nettwin.common.paths import ROOT_DIR
        with tempfile.TemporaryDirectory() as out:
            for name, fn in (("arr_ports.h", blockgen.gen_ports_h), ("arr_compare.h", blockgen.gen_compare_h),
                             ("arr_counter_stats.h", blockgen.gen_stats_h)):
                with open(os.path.join(out, name), "w") as f:
                    f.write(fn(self.d, "arr.json"))
            with open(os.path.join(out, "main.cc"), "w") as f:
                f.write(ARRAY_MAIN)
            exe = os.path.join(out, "a.out")
            subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", ROOT_DIR, "-I", out,
                            "-I", os.path.join(build, "gen"), os.path.join(out, "main.cc"), "-o", exe], check=True)
            r = subprocess.run([exe], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_packed_port_copy(self):
        """tb::GetPacked / PutPacked (the adapter's copy of an array port) on VlWide and integral ports, 32-,
        64- and odd-width elements, compiled against Verilator's headers and run."""
        build = os.environ.get("NT_BUILD_DIR")
        cxx, vl = shutil.which("g++"), shutil.which("verilator")
        if not build or not os.path.exists(os.path.join(build, "gen", "nt_params.h")) or not cxx or not vl:
            self.skipTest("needs NT_BUILD_DIR (the CMake build), g++ and verilator")
        from nettwin.common.paths import ROOT_DIR
        vroot = subprocess.run([vl, "--getenv", "VERILATOR_ROOT"], capture_output=True, text=True).stdout.strip()
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "main.cc"), "w") as f:
                f.write(PACKED_MAIN)
            exe = os.path.join(out, "a.out")
            subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-I", ROOT_DIR, "-I", os.path.join(build, "gen"),
                            "-I", os.path.join(vroot, "include"), "-I", os.path.join(vroot, "include", "vltstd"),
                            os.path.join(out, "main.cc"), "-o", exe], check=True)
            r = subprocess.run([exe], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


ARRAY_MAIN = r'''
#include <cstdio>
#include <sstream>
namespace nettwin::arr {
struct ReorderCfg {};  // the reorder descriptor's cfg group type
}  // namespace nettwin::arr
#include "arr_compare.h"
#include "arr_counter_stats.h"
#include "model/common/counters_json.h"
using namespace nettwin::arr;
int main() {
  ArrOut r, m;
  r.cnt.in = m.cnt.in = 5;
  r.cnt.delivered = m.cnt.delivered = 1;
  r.cnt.drop_malformed = m.cnt.drop_malformed = 1;
  r.cnt.drops = m.cnt.drops = {7, 2, 1};  // index 0 is not a drop: not in the sum
  m.cnt.rx[3] = 4;
  auto d = CompareArrOut(r, m);
  if (!d || d->signal != "cnt_inst_rx_o[3]" || d->rtl != "0x0" || d->model != "0x4") return 1;
  r.cnt.rx[3] = 4;
  m.cnt.drops[2] = 9;
  d = CompareArrOut(r, m);
  if (!d || d->signal != "cnt_drops_o[bad]") return 2;
  m.cnt.drops[2] = 1;
  if (CompareArrOut(r, m) || !(r.cnt == m.cnt)) return 3;
  auto a = AccountArr(r);
  if (a.in != 5 || a.out != 1 || a.dropped != 4) return 4;
  std::ostringstream j;
  WriteArrCounterStats(j, r.cnt);
  if (j.str().find("  \"rx\": [0, 0, 0, 4, 0, 0, 0, 0],\n") == std::string::npos) return 5;
  if (j.str().find("\"drops\": {\"malformed\": 1, \"buffer_full\": 0, \"runt\": 2, \"bad\": 1},\n") ==
      std::string::npos) {
    return 6;
  }
  if (nettwin::CountersJson(r.cnt).find("\"drops\": [7, 2, 1]") == std::string::npos) return 7;
  std::puts(j.str().c_str());
  return 0;
}
'''


PACKED_MAIN = r'''
#include <cstdio>
#include "tb/common/verilated_block.h"
using namespace nettwin;
int main() {
  VlWide<3> w{};  // 3 x 32 bits
  std::array<uint32_t, 3> a{1, 2, 0xffffffffu}, b{};
  tb::PutPacked<32>(w, a);
  tb::GetPacked<32>(w, &b);
  if (a != b || w[1] != 2) return 1;
  VlWide<4> w2{};
  std::array<uint64_t, 2> c{0x123456789ull, 5}, e{};
  tb::PutPacked<64>(w2, c);
  tb::GetPacked<64>(w2, &e);
  if (c != e || w2[1] != 1) return 2;
  VlWide<3> w3{};
  std::array<uint16_t, 5> f{1, 0x3ff, 3, 4, 5}, g{};
  tb::PutPacked<10>(w3, f);
  tb::GetPacked<10>(w3, &g);
  if (f != g || tb::WideField(w3, 10, 10) != 0x3ff) return 3;
  uint64_t q = 0;
  std::array<uint32_t, 2> h{7, 9}, k{};
  tb::PutPacked<32>(q, h);
  tb::GetPacked<32>(q, &k);
  if (h != k || q != (9ull << 32 | 7)) return 4;
  uint16_t s = 0;
  std::array<uint8_t, 4> l{1, 2, 3, 0xf}, n{};
  tb::PutPacked<4>(s, l);
  tb::GetPacked<4>(s, &n);
  if (l != n || s != 0xf321) return 5;
  return 0;
}
'''

class VariantsAndRecordsTest(unittest.TestCase):
    """vnic: one descriptor, two RTL tops, drop reasons per variant; re: records (rep_*, dma_req_*) compared
    while their valid member is set, a byte-array member, enum ports and C++ field names (docs/blockgen.md)."""

    def test_vnic_both_tops_checked_and_generated(self):
        d = blockdesc.load("vnic")
        self.assertEqual([t for _, t, _ in blockdesc.tops(d)], ["vnic_encap_top", "vnic_decap_top"])
        self.assertEqual(blockgen.check(d, "vnic.json"), [])
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(blockgen.main([blockdesc.path("vnic"), "--out", out]), 0)
            for t in ("vnic_encap_tb_top", "vnic_decap_tb_top"):
                top = open(os.path.join(out, t + ".sv")).read()
                self.assertIn(f"module {t}", top)
                self.assertIn("logic [vnic_pkg::NumReasons*32-1:0] model_cnt_drops_i", " ".join(top.split()))
                # a pkg:: width is a parameter (logic [..]), not a packed-struct type as naa's conn_info_o is
                self.assertIn("input logic [vnic_pkg::PortIdxBits-1:0] model_m_port_i", " ".join(top.split()))
            stats = open(os.path.join(out, "vnic_counter_stats.h")).read()
            self.assertIn("Direction v", stats)
            self.assertIn('\\"dlid_zero\\": " << c.drops[4]', stats)
            self.assertIn('\\"pkey_mismatch\\": " << c.drops[8]', stats)
            ports = open(os.path.join(out, "vnic_ports.h")).read()
            self.assertIn("enum class Direction { kEncap, kDecap };", ports)

    def test_vnic_reasons_per_variant(self):
        d = blockdesc.load("vnic")
        self.assertEqual(blockdesc.drop_reasons(d, "encap"), ["runt", "too_long", "port_disabled", "dlid_zero"])
        self.assertEqual(len(blockdesc.drop_reasons(d, "decap")), 8)
        # the accounting sums every index some variant names: 1..8
        self.assertEqual([i for i, _ in blockdesc.reasons(blockdesc.counters(d)[2])], list(range(1, 9)))
        bad = copy.deepcopy(d)
        rs = blockdesc.counters(bad)[2]["reasons"]
        rs["encrypt"] = rs.pop("encap")
        with self.assertRaises(blockdesc.DescriptorError):
            blockdesc.validate(bad, "test")

    def test_a_port_missing_in_one_variant_fails(self):
        d = copy.deepcopy(blockdesc.load("vnic"))
        d["out"].insert(0, {"port": "extra", "ctype": "bool", "width": 1})
        errs = blockgen.check(d, "vnic.json")
        self.assertTrue(any("extra_o" in e and "not in vnic_encap_top" in e for e in errs), errs)
        self.assertTrue(any("extra_o" in e and "not in vnic_decap_top" in e for e in errs), errs)

    def test_re_records_enums_and_fields(self):
        d = blockdesc.load("re")
        self.assertEqual(blockgen.check(d, "re.json"), [])
        cmp = blockgen.gen_compare_h(d, "re.json")
        self.assertIn('if (r.report.valid != m.report.valid) return tb::DiffValues("rep_valid_o"', cmp)
        self.assertIn("if (r.report.valid && r.report.length != m.report.length)", cmp)
        self.assertIn('if (r.dma.valid && r.dma.write && r.dma.data != m.dma.data) {\n    return tb::DiffBytes("dma_req_data_o"', cmp)
        self.assertIn("if (r.dma.valid && r.dma.addr != m.dma.addr)", cmp)
        adapter = blockgen.gen_rtl_ports_h(d, "re.json")
        self.assertIn("t.s_time_i = in.s_time_ns;", adapter)
        self.assertIn("t.cfg_lb_drop_i = static_cast<bool>(in.cfg_lb_header);", adapter)
        self.assertIn("tb::GetBytes(t.dma_req_data_o, out->dma.data.data(), out->dma.data.size());", adapter)
        ports = blockgen.gen_ports_h(d, "re.json")
        self.assertIn("HeaderFormat cfg_format = HeaderFormat::kEvio6;", ports)
        self.assertIn("ReReport report;", ports)
        self.assertEqual(blockdesc.drop_reasons(d)[0], "runt")


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

    def test_adapter_and_binding_are_generated(self):
        # rdma ("accounting": "custom"): BindingPorts without Account (the block's Binding adds its own)
        cmp = blockgen.gen_compare_h(blockdesc.load("rdma"), "rdma.json")
        self.assertIn("struct RdmaBindingPorts {", cmp)
        self.assertNotIn("Account(", cmp)
        # IdleInputs clears the input streams' valids, cfg_valid_i and the 1-bit *_valid / *_ready inputs
        rtl = blockgen.gen_rtl_ports_h(blockdesc.load("rdma"), "rdma.json")
        idle = rtl[rtl.index("void IdleInputs() override"):]
        idle = idle[:idle.index("}")]
        for n in ("s_valid_i", "m_ready_i", "dma_req_ready_i", "dma_rsp_valid_i", "cfg_valid_i"):
            self.assertIn(f"this->top().{n} = 0;", idle)
        self.assertNotIn("dma_rsp_last_i", idle)
        self.assertIn('RdmaRtlPorts() : RdmaRtlPorts("rdma_tb_top") {}', rtl)
        self.assertIn("void ShowModel(", rtl)
        # reroute's tb top (like every block's): ShowModel, and the default constructor names the tb top
        rtl = blockgen.gen_rtl_ports_h(blockdesc.load("reroute"), "reroute.json")
        self.assertIn("void ShowModel(", rtl)
        self.assertIn('RerouteRtlPorts() : RerouteRtlPorts("reroute_tb_top") {}', rtl)
        # a block without a tb top ("tb_top": null) has neither; its default constructor names the RTL top
        d = blockdesc.load("reroute")
        d["tb_top"] = None
        rtl = blockgen.gen_rtl_ports_h(d, "reroute.json")
        self.assertNotIn("void ShowModel(", rtl)
        self.assertIn('RerouteRtlPorts() : RerouteRtlPorts("reroute_top") {}', rtl)
        # vnic has two tops: no default constructor
        self.assertNotIn("VnicRtlPorts() :", blockgen.gen_rtl_ports_h(blockdesc.load("vnic"), "vnic.json"))

    def test_naa_structs_and_nested_stats_are_generated(self):
        d = blockdesc.load("naa")
        self.assertEqual(blockgen.check(d, "naa.json"), [])
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(blockgen.main([blockdesc.path("naa"), "--out", out]), 0)
            self.assertEqual(sorted(os.listdir(out)), ["naa_compare.h", "naa_counter_stats.h", "naa_ports.h",
                                                       "naa_rtl_ports.h", "naa_tb_top.sv", "port_groups.h"])
            with open(os.path.join(out, "naa_tb_top.sv")) as f:
                top = f.read()
        for n in ("model_cnt_drops_i", "model_cm_drops_i", "model_conn_info_i", "model_req_cpl_i", "model_ctl_state_i"):
            self.assertIn(n, top)  # the responder's (included) and naa's own outputs both
        # "ports_via": the other generated headers include the model header that includes naa_ports.h
        self.assertIn('#include "model/naa/naa_types.h"', blockgen.gen_compare_h(d, "naa.json"))
        ports = blockgen.gen_ports_h(d, "naa.json")
        for s in ("struct CmCounters {", "struct ReqCounters {", "struct CtlCounters {", "using NaaIn = rdma::RdmaIn;",
                  "rdma::RdmaCounters rdma;", "CtlState state{};"):
            self.assertIn(s, ports)
        # the nested --stats: one object per group in stats_objects' order, the included rdma's with its own keys
        st = blockgen.gen_stats_h(d, "naa.json")
        self.assertIn("inline void WriteNaaCounterStats(std::ostream& j, const NaaOut& o) {", st)
        self.assertLess(st.index('"  \\"cm\\": {'), st.index('"  \\"rdma\\": {'))
        self.assertIn("ConnName(o.cm.conn)", st)                # an enum gauge by name
        self.assertIn('\\"cpl_flushed\\": "', st)          # stats_names without a key: flat in the object
        self.assertIn('\\"errors\\": {\\"0x01\\": "', st)  # with a key: an object under it
        self.assertIn('(CtlBalanced(o.ctl) ? \"true\" : \"false\")', st)
        self.assertIn("uint64_t{o.rdma.atomic_replays}", st)

    def test_golden_counters_writer(self):
        # re: the report's lines from the golden model's 64-bit ReCounters (other names, drops numbered from 0)
        st = blockgen.gen_stats_h(blockdesc.load("re"), "re.json")
        self.assertIn("inline void WriteReCounterStats(std::ostream& j, const ReCounters& c) {", st)
        self.assertIn('j << "  \\"segments_in\\": " << c.segments_in', st)
        self.assertIn('<< "\\"runt\\": " << c.drops[0]', st)
        self.assertIn("g.drops[i] = c.drops[i + 1];", st)
        self.assertIn('#include "model/re/re_packet_model.h"', st)

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
