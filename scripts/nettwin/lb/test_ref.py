#!/usr/bin/python3
"""Unit tests of the Python reference (lb_tables.py, nettwin.lb.ref) against hand-worked docs/lb.md cases.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.test_ref [-v]

These pin the reference itself down (grammar, errors, priorities, drop order, checksums), so that
a disagreement with the C++ model can be blamed on the right side.
"""
import os
import unittest

from scapy.layers.l2 import Ether
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

from nettwin.common.paths import ROOT_DIR
from nettwin.lb import ref as lb_ref
from nettwin.lb import tables as T
from nettwin.lb.layers import UDPLB, EVIO6Seg

SPEC_DIR = os.path.join(ROOT_DIR, "vectors", "lb", "spec")

BASE = """
table_add dst_filter_table NoAction 00:aa:bb:cc:dd:ee 0x0800 10.1.2.3 =>
table_add dst_filter_table NoAction 00:aa:bb:cc:dd:ee 0x86dd fe80::2 =>
table_add epoch_assign_table do_assign_epoch 0/0 => 7
table_add load_balance_calendar_table do_assign_member 7 0x00a => 3
table_add load_balance_calendar_table do_assign_member 7 0x014 => 3
table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 3 => 0x112233445566 0xc0a80001 0x4556
table_add member_info_lookup_table do_ipv6_member_rewrite 0x86dd 3 => 0x112233445566 0xfd000000000000000000000000000001 0x4556
"""


def tables(text):
    segs = T.plan_segments(T.parse_script(text, "t.txt"), 1)
    return segs[-1].tables


def pkt4(tick=10, payload=b"x" * 30, **kw):
    return bytes(Ether(dst="00:aa:bb:cc:dd:ee", src="00:11:22:33:44:55")
                 / IP(dst="10.1.2.3", src="10.1.2.2", **kw) / UDP(sport=50000, dport=0x4C42)
                 / UDPLB(tick=tick, proto=1) / EVIO6Seg(rocid=0xabc) / Raw(payload))


def pkt6(tick=20, payload=b"y" * 30):
    return bytes(Ether(dst="00:aa:bb:cc:dd:ee", src="00:01:02:03:04:05")
                 / IPv6(dst="fe80::2", src="fe80::1") / UDP(sport=12345, dport=0x4C42)
                 / UDPLB(tick=tick, proto=1) / EVIO6Seg(rocid=0x123) / Raw(payload))


def scapy_rewrite(frame, mac, ip, port):
    """What the output must be, rebuilt from scratch by Scapy (checksums recomputed)."""
    p = Ether(frame)
    lb = p[UDPLB]
    rest = bytes(lb.payload)
    l3 = p[IP] if IP in p else p[IPv6]
    l3.remove_payload()
    if IP in p:
        l3.dst, l3.len, l3.chksum = ip, None, None
    else:
        l3.dst, l3.plen = ip, None
    return bytes(Ether(dst=mac, src=p.dst) / l3 / UDP(sport=50000 if IP in p else 12345, dport=port)
                 / Raw(rest))


class Grammar(unittest.TestCase):
    def err(self, text, needle):
        with self.assertRaises(T.ScriptError) as cm:
            T.plan_segments(T.parse_script(text, "x.txt"), 10)
        msg = str(cm.exception)
        self.assertIn(needle, msg)
        self.assertRegex(msg, r"^x\.txt:\d+: token '.*': ")
        return msg

    def test_spec_script_parses(self):
        with open(os.path.join(SPEC_DIR, "runsim.txt")) as f:
            t = tables(f.read())
        self.assertEqual(len(t.filter), 2)
        e = t.epoch_lookup(0x14)
        self.assertEqual((e.epoch, e.priority), (1, 5))
        self.assertEqual(t.epoch_lookup(0x0A).epoch, 0)
        self.assertEqual(t.member_lookup(0x86DD, 0).ip_dst, 0xFE800000000000000000000000000003)

    def test_errors(self):
        self.err("table_modify dst_filter_table", "unknown command")
        self.err("table_add foo NoAction 1 =>", "unknown table")
        self.err("table_add dst_filter_table forward 1 2 3 =>", "unknown action")
        self.err("table_add dst_filter_table NoAction 1 2 =>", "wrong number of keys")
        self.err("table_add member_info_lookup_table drop 0x0800 1 => 5", "wrong number of params")
        self.err("table_add load_balance_calendar_table do_assign_member 1 2 =>", "wrong number of params")
        self.err("table_add dst_filter_table NoAction 1 0x10000 3 =>", "value too wide")
        self.err("table_add load_balance_calendar_table drop 1 0x200 =>", "calendar slot > 0x1FF")
        self.err("table_add member_info_lookup_table drop 0x0801 1 =>", "neither IPv4")
        self.err("table_add member_info_lookup_table do_ipv6_member_rewrite 0x0800 1 => 1 2 3",
                 "does not match")
        self.err("table_add member_info_lookup_table drop 0x0800 1 =>\n"
                 "table_add member_info_lookup_table drop 0x0800 513 =>", "collision")
        self.err("table_delete epoch_assign_table 0/0", "missing entry")
        self.err("table_add epoch_assign_table drop 0/0 => 1\ntable_add epoch_assign_table drop 0/0 => 2\n"
                 "table_delete epoch_assign_table 0/0", "ambiguous")
        self.err("table_add dst_filter_table NoAction 1 2 3 =>\n"
                 "table_add dst_filter_table drop 1 2 3 0x4c42 =>", "duplicate key")
        self.err("".join(f"table_add dst_filter_table NoAction {i} 2 3 =>\n" for i in range(33)), "full")
        self.err("".join(f"table_add load_balance_calendar_table drop {e} 0 =>\n" for e in range(5)), "full")
        self.err("table_add epoch_assign_table drop 0/65 =>", "prefix length")
        self.err("table_add dst_filter_table NoAction 1 2 3 => 4", "priority is only accepted")
        # an error after run_traffic still stops the run before traffic
        msg = self.err("run_traffic 1\n\ntable_delete dst_filter_table 1 2 3", "missing entry")
        self.assertTrue(msg.startswith("x.txt:3:"))

    def test_values(self):
        t = tables("table_add dst_filter_table NoAction 0X00AABBCCDDEE 2048 ::a01:203 19522 =>\n"
                   "table_add dst_filter_table drop 0:1:2:3:4:5 0x86dd 0x0000000000000000000000000a010203 =>")
        self.assertEqual(t.filter_lookup(0xAABBCCDDEE, 0x800, 0x0A010203, 0x4C42), "NoAction")
        self.assertEqual(t.filter_lookup(0x000102030405, 0x86DD, 0x0A010203, 0x4C42), "drop")

    def test_priorities(self):
        t = tables("table_add epoch_assign_table do_assign_epoch 0/0 => 1\n"            # prio 64
                   "table_add epoch_assign_table do_assign_epoch 0x10/60 => 2\n"         # prio 4
                   "table_add epoch_assign_table do_assign_epoch 0x10&&&0xff => 3 4\n"   # tie, later slot
                   "table_add epoch_assign_table do_assign_epoch 0x11 => 4 5\n")         # exact, prio 5
        self.assertEqual([e.priority for e in t.epoch[:4]], [64, 4, 4, 5])
        self.assertEqual(t.epoch_lookup(0x10).epoch, 2)     # tie: lowest slot wins
        self.assertEqual(t.epoch_lookup(0x11).epoch, 2)
        self.assertEqual(t.epoch_lookup(0x21).epoch, 1)
        # delete slot 0 and add a prio-4 entry: it lands in slot 0 and now wins the tie
        t.apply(T.parse_script("table_delete epoch_assign_table 0/0", "x")[0])
        t.apply(T.parse_script("table_add epoch_assign_table do_assign_epoch 0x10&&&0xfff0 => 9 4", "x")[0])
        self.assertEqual(t.epoch_lookup(0x10).epoch, 9)
        # delete with an explicit priority picks among equal value/mask
        t.apply(T.parse_script("table_add epoch_assign_table drop 0x10/60 => 1", "x")[0])
        t.apply(T.parse_script("table_delete epoch_assign_table 0x10/60 1", "x")[0])
        self.assertEqual(t.epoch_lookup(0x1F).epoch, 9)

    def test_segments(self):
        cmds = T.parse_script(BASE + "run_traffic 2\ntable_clear dst_filter_table\nrun_traffic 0\n"
                              "run_traffic packets\ntable_add dst_filter_table drop 1 2 3 =>", "x")
        segs = T.plan_segments(cmds, 5)
        self.assertEqual([(s.start, s.end) for s in segs], [(0, 2), (2, 5)])
        self.assertEqual(len(segs[0].tables.filter), 2)
        self.assertEqual(len(segs[1].tables.filter), 0)
        segs = T.plan_segments(T.parse_script(BASE + "run_traffic 9\ntable_clear dst_filter_table", "x"), 5)
        self.assertEqual([(s.start, s.end) for s in segs], [(0, 5)])


class DataPlane(unittest.TestCase):
    def setUp(self):
        self.t = tables(BASE)

    def test_forward_matches_scapy_rebuild(self):
        for f, ip in ((pkt4(), "192.168.0.1"), (pkt6(), "fd00::1"),
                      (pkt4(payload=b""), "192.168.0.1"), (pkt4(options=b"\x01" * 8), "192.168.0.1")):
            v = lb_ref.process(f, self.t)
            self.assertIsNone(v.reason, v.detail)
            self.assertEqual(v.out, scapy_rewrite(f, "11:22:33:44:55:66", ip, 0x4556))

    def test_udp4_zero_checksum_kept(self):
        f = bytearray(pkt4())
        f[40:42] = b"\0\0"
        self.assertEqual(lb_ref.process(bytes(f), self.t).out[40:42], b"\0\0")

    def test_wrong_checksums_stay_wrong(self):
        g = pkt4()
        good = lb_ref.process(g, self.t).out
        f = bytearray(g)
        f[24:26] = ((int.from_bytes(g[24:26], "big") + 0x123) % 0xFFFF).to_bytes(2, "big")
        f[40:42] = ((int.from_bytes(g[40:42], "big") + 0x4567) % 0xFFFF).to_bytes(2, "big")
        out = lb_ref.process(bytes(f), self.t).out
        diff = lambda a, b, o: (int.from_bytes(a[o:o + 2], "big") - int.from_bytes(b[o:o + 2], "big")) % 0xFFFF  # noqa: E731
        self.assertEqual(diff(out, good, 24), 0x123)    # one's complement amounts are preserved
        self.assertEqual(diff(out, good, 40), 0x4567)

    def test_drop_order(self):
        f = bytearray(pkt4())
        f[42:44] = b"\x4c\x43"
        f[44] = 2
        self.assertEqual(lb_ref.process(bytes(f), self.t).reason, "bad_magic")   # before bad_version
        f[38:40] = (300).to_bytes(2, "big")
        self.assertEqual(lb_ref.process(bytes(f), self.t).reason, "bad_length")
        f[20] = 0x20
        self.assertEqual(lb_ref.process(bytes(f), self.t).reason, "ip_fragment")
        self.assertEqual(lb_ref.process(bytes(f[:50]), self.t).reason, "ip_fragment")  # before LB cut
        self.assertEqual(lb_ref.process(pkt4()[:50], self.t).reason, "truncated")
        self.assertEqual(lb_ref.process(bytes(f[:13]), self.t).reason, "runt")
        f6 = bytearray(pkt6())
        f6[60:62] = b"\0\0"
        self.assertEqual(lb_ref.process(bytes(f6), self.t).reason, "udp6_zero_csum")
        f6[64] = 0
        self.assertEqual(lb_ref.process(bytes(f6), self.t).reason, "bad_version")

    def test_table_reasons(self):
        t = tables(BASE + "table_add dst_filter_table drop 00:aa:bb:cc:dd:ee 0x0800 10.1.2.4 =>\n"
                   "table_add epoch_assign_table drop 0x100/56 => 1\n"
                   "table_add load_balance_calendar_table drop 7 0x00b =>\n"
                   "table_add load_balance_calendar_table do_assign_member 7 0x00c => 515\n"
                   "table_add load_balance_calendar_table do_assign_member 7 0x00d => 4\n"
                   "table_add member_info_lookup_table drop 0x0800 4 =>\n")
        r = lambda f: lb_ref.process(f, t).reason  # noqa: E731
        f = bytearray(pkt4())
        f[0] = 1
        self.assertEqual(r(bytes(f)), "filter_miss")
        self.assertEqual(r(pkt4(tick=0xff)), "calendar_miss")
        self.assertEqual(r(pkt4(tick=0x105)), "epoch_drop")
        self.assertEqual(r(pkt4(tick=0xb)), "calendar_drop")
        self.assertEqual(r(pkt4(tick=0xc)), "member_miss")    # 515 = 3 mod 512: tag mismatch
        self.assertEqual(r(pkt4(tick=0xd)), "member_drop")
        self.assertEqual(r(pkt6(tick=0xd)), "member_miss")    # member 4 exists for IPv4 only
        g = bytearray(pkt4())
        g[33] = 4
        g[24:26] = b"\0\0"
        self.assertEqual(r(bytes(g)), "filter_drop")
        self.assertEqual(lb_ref.process(pkt4(), T.Tables()).reason, "filter_miss")
        self.assertEqual(lb_ref.process(pkt4(),
                                        tables(BASE.replace("0/0 => 7", "0x8000000000000000/1 => 7"))).reason, "epoch_miss")


if __name__ == "__main__":
    unittest.main()
