#!/usr/bin/python3
"""Unit tests of rdma/layers.py and the RoCEv2 reference (rdma/ref.py) on hand-worked cases.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.test_ref [-v]

ICRC against Scapy (IPv4: BTH.compute_icrc; IPv6: the same masking done with Scapy fields), the
config grammar and its errors (incl. the optional rq/rq_entries/rq_posted/cq/cq_entries/rnr_timer
fields), response bytes against responses built field by field with Scapy, PSN / Go-Back-N, the AQ
group lookup (and --aq-linear), memory byte order, the stats.  docs/rdma.md "Receive and completion
queues" is in test_ref_rq.py: SEND first/middle/last/only (+ immediate) into receive WQEs, CQE bytes
written out by hand, RNR NAK (0x20 | rnr_timer), buffer overflow (WQE not consumed / message left
open), duplicates, open-message rules, WRITE with immediate, the CQ wrapping, DMA order.
"""
import os
import random
import subprocess
import tempfile
import unittest

from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nettwin.rdma import ref as R
from nettwin.rdma.layers import (AETH, BTH, RETH, AtomicAckETH, AtomicETH, ImmDt, build_request, check_icrc,
                                 icrc)
from nettwin.rdma.test_support import (BASE, PY, QIP4, QIP6, QMAC, RIP4, RIP6, RMAC, ConfigErrorAssertions,
                                       cfg, ipv6_icrc_with_scapy, req, scapy_response)
from nettwin.common.paths import export_pythonpath  # noqa: E402

export_pythonpath()  # the tools they run are python3 -m nettwin.<block>.<tool>


class TestICRC(unittest.TestCase):
    def random_frames(self, fam, n=150, seed=5):
        rng = random.Random(seed + fam)
        for _ in range(n):
            op = rng.choice([0x06, 0x07, 0x0A, 0x0B, 0x0C, 0x11, 0x12, 0x13, 0x14, 0x10])
            ext = {0x06: [RETH(va=rng.getrandbits(64), rkey=rng.getrandbits(32), dlen=rng.getrandbits(32))],
                   0x0A: [RETH(va=1, rkey=2, dlen=3)], 0x0B: [RETH(va=1, rkey=2, dlen=3), ImmDt(imm=9)],
                   0x0C: [RETH(va=5, rkey=6, dlen=7)], 0x11: [AETH(syndrome=0x1F, msn=rng.getrandbits(24))],
                   0x12: [AETH(), AtomicAckETH(orig=rng.getrandbits(64))], 0x10: [AETH()],
                   0x13: [AtomicETH(va=8, rkey=1, swap_add=rng.getrandbits(64), compare=rng.getrandbits(64))],
                   0x14: [AtomicETH(va=8, rkey=1, swap_add=3)]}.get(op, [])
            yield build_request(fam, QMAC, RMAC, QIP4 if fam == 4 else QIP6, RIP4 if fam == 4 else RIP6,
                                rng.randrange(65536), op, rng.getrandbits(24), rng.getrandbits(24),
                                ackreq=rng.random() < 0.5, ext=ext, payload=rng.randbytes(rng.randrange(0, 300)),
                                tos=rng.randrange(256), ttl=rng.randrange(256), ip_id=rng.randrange(65536),
                                flow=rng.getrandbits(20), hlim=rng.randrange(256), udp_chksum=rng.randrange(65536),
                                fecn=rng.randrange(2), becn=rng.randrange(2), resv6=rng.randrange(64),
                                solicited=rng.randrange(2), pkey=rng.randrange(65536))

    def test_ipv4_equals_scapy_compute_icrc(self):
        for f in self.random_frames(4):
            p = Ether(f)
            p[BTH].icrc = None
            self.assertEqual(raw(p)[-4:], icrc(f))
            self.assertEqual(raw(p)[-4:], f[-4:])
            self.assertTrue(check_icrc(f))

    def test_ipv4_with_options_equals_scapy(self):
        p = (Ether(src=QMAC, dst=RMAC) / IP(src=QIP4, dst=RIP4, options=b"\x01\x01\x01\x00")
             / UDP(sport=1, dport=4791) / BTH(opcode=0x0A, dqpn=0x11, psn=3) / RETH(va=1, rkey=2, dlen=4) / Raw(b"abcd"))
        b = raw(p)
        self.assertEqual(b[-4:], icrc(b))

    def test_ipv6_equals_scapy_masking(self):
        for f in self.random_frames(6):
            self.assertEqual(ipv6_icrc_with_scapy(f), icrc(f))
            self.assertTrue(check_icrc(f))

    def test_reference_icrc_is_the_same(self):
        for fam in (4, 6):
            for f in self.random_frames(fam, 40, 9):
                n = 14 + (20 + int.from_bytes(f[16:18], "big") - 20 if fam == 4 else 40 + int.from_bytes(f[18:20], "big"))
                self.assertEqual(R.icrc_of(f[14:n - 4], fam == 6), icrc(f))

    def test_masked_fields_do_not_matter_others_do(self):
        f = bytearray(req(0x0A, 100, ext=[RETH(va=0x10000, rkey=0x1000, dlen=4)], payload=b"abcd"))
        for off in (15, 22, 24, 25, 40, 41, 46):       # TOS, TTL, IP checksum, UDP checksum, BTH byte 4
            g = bytearray(f)
            g[off] ^= 0x5A
            self.assertTrue(check_icrc(bytes(g)), off)
        for off in (18, 26, 34, 36, 42, 43, 44, 49, 58, len(f) - 5):
            g = bytearray(f)
            g[off] ^= 0x01
            self.assertFalse(check_icrc(bytes(g)), off)
        g = bytearray(req(0x0A, 1, fam=6, ext=[RETH()], payload=b""))
        for off in (14, 15, 16, 17, 21, 60, 66):         # TC/flow label, hop limit, UDP checksum, BTH byte 4
            h = bytearray(g)
            h[off] ^= 0x0F if off == 14 else 0x5A
            self.assertTrue(check_icrc(bytes(h)), off)
        self.assertFalse(check_icrc(bytes(g[:-1]) + bytes([g[-1] ^ 1])))


class TestConfig(ConfigErrorAssertions, unittest.TestCase):
    def test_parse(self):
        c = cfg()
        self.assertEqual(c.mac, bytes.fromhex("020000000001"))
        self.assertEqual(c.qps[0x11].depth, 64)
        self.assertEqual(c.qps[0x12].depth, 128)
        self.assertEqual(c.qps[0x13].depth, 64)
        self.assertFalse(c.aq_linear)
        self.assertTrue(R.parse_config(BASE.replace("ip6 fd00::1", "ip6 fd00::1 aq_mode linear")).aq_linear)
        self.assertEqual(c.mrs[0x1000].access, "rwa")
        self.assertEqual(c.mem, [(0x5000, bytes.fromhex("7071727374757677"))])

    def test_errors(self):
        r = f"responder mac {RMAC} ip {RIP4}\n"
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 1000 max_rd_atomic 4 aq 0", 2, "1000", "mtu must be")
        self.check_error(r + "qp 1 dest_qp 2 epsn 0x1000000 mtu 256 max_rd_atomic 4 aq 0", 2, "0x1000000", "out of range")
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4", 2, "qp", "missing 'aq'")
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 0 aq 0", 2, "0", "at least 1")
        self.check_error(f"responder mac {RMAC} ip {RIP4} aq_mode fast", 1, "fast", "grouped or linear")
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq", 2, "aq", "missing value")
        self.check_error(r + "qp 1 dest_qp 2 epsn x3 mtu 256 max_rd_atomic 4 aq 0", 2, "x3", "not a number")
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq 0 colour red", 2, "colour", "unknown keyword")
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq 0 mtu 256", 2, "mtu", "given twice")
        self.check_error(r + "qp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq 0\n"
                         "qp 0x1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq 0", 3, "0x1", "already defined")
        self.check_error(r + "mr 5 va 0 len 8 pa 0 access rx", 2, "rx", "access")
        self.check_error(r + "mr 5 va 0 len 8 pa 0 access rr", 2, "rr", "access")
        self.check_error(r + "mr 5 va 0 len 8 pa 0 access r\nmr 5 va 0 len 8 pa 0 access w", 3, "5", "already defined")
        self.check_error(r + "mr 5 va 0xffffffffffffffff len 8 pa 0 access r", 2, "8", "past 2^64")
        self.check_error(r + "mem 0x10 abc", 2, "abc", "even number of hex digits")
        self.check_error(r + "mem 0x10 zz", 2, "zz", "hex")
        self.check_error(r + "memory 0x10 00", 2, "memory", "unknown directive")
        self.check_error("responder mac 02:00:00:00:00:01", 1, "responder", "needs 'ip' or 'ip6'")
        self.check_error("responder mac 02:00:00:00:01 ip 1.2.3.4", 1, "02:00:00:00:01", "not a MAC")
        self.check_error("responder mac 02:00:00:00:00:01 ip 1.2.3", 1, "1.2.3", "not an IPv4")
        self.check_error("responder mac 02:00:00:00:00:01 ip6 fd00::g", 1, "fd00::g", "not an IPv6")
        self.check_error(r + r, 2, "responder", "second")
        self.check_error("# nothing\n", 0, None, "no 'responder' line")

    def test_cli_error_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            c = os.path.join(d, "c.txt")
            with open(c, "w") as fh:
                fh.write(f"responder mac {RMAC} ip {RIP4}\nqp 1 dest_qp 2 epsn 3 mtu 300 max_rd_atomic 1 aq 0\n")
            pc = os.path.join(d, "in.pcap")
            R.write_pcap(pc, [(req(0x0A, 3, qp=1), 0.0)])
            args = ["--in", pc, "--out", os.path.join(d, "o.pcap"), "--mem-out", os.path.join(d, "m.json")]
            p = subprocess.run([PY, "-m", "nettwin.rdma.ref", "--config", c] + args,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("c.txt:2: token '300': mtu must be", p.stderr)
            p = subprocess.run([PY, "-m", "nettwin.rdma.ref", "--config", os.path.join(d, "none")] + args,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            with open(c, "w") as fh:
                fh.write(f"responder mac {RMAC} ip {RIP4}\n")
            p = subprocess.run([PY, "-m", "nettwin.rdma.ref", "--config", c, "--in", c, "--out",
                                os.path.join(d, "o.pcap"), "--mem-out", os.path.join(d, "m.json")],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("not a readable pcap", p.stderr)


class TestResponder(unittest.TestCase):
    def setUp(self):
        self.r = R.Responder(cfg())

    def one(self, frame):
        return self.r.process(frame)

    def test_write_only_ack_bytes(self):
        v = self.one(req(0x0A, 100, ext=[RETH(va=0x10010, rkey=0x1000, dlen=5)], payload=b"hello"))
        self.assertEqual(v.kind, "exec")
        self.assertEqual(self.r.mem.read(0x5010, 5), b"hello")
        want = scapy_response(4, 0x11, 0x99, 100, [AETH(syndrome=0x1F, msn=1)])
        self.assertEqual(v.responses, [want])
        # the same over IPv6
        v = self.one(req(0x0A, 101, fam=6, ext=[RETH(va=0x10010, rkey=0x1000, dlen=0)]))
        self.assertEqual(v.responses, [scapy_response(6, 0x11, 0x99, 101, [AETH(syndrome=0x1F, msn=2)])])

    def test_multi_write_ackreq_and_msn(self):
        data = bytes(range(256)) * 2 + b"xyz"
        a = self.one(req(0x06, 100, ext=[RETH(va=0x10000, rkey=0x1000, dlen=515)], payload=data[:256]))
        b = self.one(req(0x07, 101, payload=data[256:512], ackreq=True))
        c = self.one(req(0x08, 102, payload=data[512:]))
        self.assertEqual([a.kind, b.kind, c.kind], ["exec"] * 3)
        self.assertEqual(a.responses, [])
        self.assertEqual(b.responses, [scapy_response(4, 0x11, 0x99, 101, [AETH(syndrome=0x1F, msn=0)])])
        self.assertEqual(c.responses, [scapy_response(4, 0x11, 0x99, 102, [AETH(syndrome=0x1F, msn=1)])])
        self.assertEqual(self.r.mem.read(0x5000, 515), data)

    def test_read_responses_and_pad(self):
        self.r.mem.write(0x5100, bytes(range(256)) * 3)
        v = self.one(req(0x0C, 100, ext=[RETH(va=0x10100, rkey=0x1000, dlen=600)]))
        m = bytes(range(256)) * 3
        want = [scapy_response(4, 0x0D, 0x99, 100, [AETH(syndrome=0x1F, msn=1)], m[:256]),
                scapy_response(4, 0x0E, 0x99, 101, [], m[256:512]),
                scapy_response(4, 0x0F, 0x99, 102, [AETH(syndrome=0x1F, msn=1)], m[512:600])]
        self.assertEqual(v.responses, want)
        v = self.one(req(0x0C, 103, ext=[RETH(va=0x10100, rkey=0x1000, dlen=3)], fam=6))
        self.assertEqual(v.responses, [scapy_response(6, 0x10, 0x99, 103, [AETH(syndrome=0x1F, msn=2)], m[:3], pad=1)])
        v = self.one(req(0x0C, 104, ext=[RETH(va=0x11000, rkey=0x1000, dlen=0)]))   # empty, at the MR end
        self.assertEqual(v.responses, [scapy_response(4, 0x10, 0x99, 104, [AETH(syndrome=0x1F, msn=3)])])
        v = self.one(req(0x0C, 100, ext=[RETH(va=0x10100, rkey=0x1000, dlen=300)]))   # duplicate: re-read
        self.assertEqual(v.kind, "dup")
        self.assertEqual([Ether(x)[BTH].psn for x in v.responses], [100, 101])
        self.assertEqual(Ether(v.responses[0])[AETH].msn, 3)

    def test_atomics_little_endian_memory_and_aqe(self):
        v = self.one(req(0x14, 100, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=0x036328FE883A1230)]))
        self.assertEqual(v.kind, "exec")
        # the paper's example: memory bytes 70..77, orig 0x7776757473727170, new 0x7AD99E72FBAC83A0
        self.assertEqual(v.responses, [scapy_response(4, 0x12, 0x99, 100, [AETH(syndrome=0x1F, msn=1),
                                                                          AtomicAckETH(orig=0x7776757473727170)])])
        self.assertEqual(self.r.mem.read(0x5000, 8), (0x7AD99E72FBAC83A0).to_bytes(8, "little"))
        self.assertEqual(self.r.mem.read(0x100000, 16),
                         bytes.fromhex("80000064" "00000000" "7776757473727170"))
        v = self.one(req(0x13, 101, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=5, compare=1)]))   # fails
        self.assertEqual(Ether(v.responses[0])[AtomicAckETH].orig, 0x7AD99E72FBAC83A0)
        self.assertEqual(self.r.mem.read(0x5000, 8), (0x7AD99E72FBAC83A0).to_bytes(8, "little"))
        v = self.one(req(0x13, 102, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=5, compare=0x7AD99E72FBAC83A0)]))
        self.assertEqual(self.r.mem.read(0x5000, 8), (5).to_bytes(8, "little"))
        self.assertEqual(self.r.mem.read(0x100000 + 32, 4), bytes.fromhex("80000066"))
        v = self.one(req(0x14, 100, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=1)]))   # replay
        self.assertEqual((v.kind, Ether(v.responses[0])[AtomicAckETH].orig), ("dup", 0x7776757473727170))
        self.assertEqual(Ether(v.responses[0])[AETH].msn, 3)
        self.assertEqual(self.r.mem.read(0x5000, 8), (5).to_bytes(8, "little"))
        big = R.Responder(cfg(), atomic_endian="big")
        v = big.process(req(0x14, 100, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=1)]))
        self.assertEqual(Ether(v.responses[0])[AtomicAckETH].orig, 0x7071727374757677)

    def test_psn_sequence_error_and_go_back_n(self):
        w = lambda psn: req(0x0A, psn, ext=[RETH(va=0x10000, rkey=0x1000, dlen=1)], payload=bytes([psn & 0xFF]))  # noqa
        self.assertEqual(self.one(w(100)).kind, "exec")
        v = self.one(w(102))
        self.assertEqual(v.kind, "nak-seq")
        self.assertEqual(v.responses, [scapy_response(4, 0x11, 0x99, 101, [AETH(syndrome=0x60, msn=1)])])
        self.assertEqual(self.one(w(103)).kind, "drop:psn_ahead_silent")
        self.assertEqual(self.one(w(100)).kind, "dup")
        self.assertEqual(self.one(w(104)).kind, "drop:psn_ahead_silent")
        self.assertEqual([self.one(w(p)).kind for p in (101, 102, 103)], ["exec"] * 3)
        self.assertEqual(self.one(w(105)).kind, "nak-seq")          # a new gap: a new NAK
        self.assertEqual(self.r.mem.read(0x5000, 1), bytes([103]))

    def test_validation_nak_then_silence(self):
        v = self.one(req(0x14, 100, ext=[AtomicETH(va=0x10004, rkey=0x1000, swap_add=1)]))
        self.assertEqual(v.responses, [scapy_response(4, 0x11, 0x99, 100, [AETH(syndrome=0x61, msn=0)])])
        self.assertEqual(self.one(req(0x0A, 101, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0)])).kind,
                         "drop:psn_ahead_silent")
        v = self.one(req(0x0A, 100, ext=[RETH(va=0x20000, rkey=0x2000, dlen=1)], payload=bytes(1)))
        self.assertEqual((v.kind, Ether(v.responses[0])[AETH].syndrome), ("nak-acc", 0x62))
        self.assertEqual(self.one(req(0x0A, 100, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0)])).kind, "exec")
        self.assertEqual(self.r.qps[0x11].epsn, 101)

    def test_zero_length_needs_no_valid_rkey_c9_88(self):
        """IBA C9-88: a zero-length WRITE or READ is executed whatever its R_Key and VA (docs/rdma.md)."""
        v = self.one(req(0x0A, 100, ext=[RETH(va=0, rkey=0, dlen=0)]))
        self.assertEqual((v.kind, Ether(v.responses[0])[AETH].syndrome), ("exec", 0x1F))
        v = self.one(req(0x0C, 101, ext=[RETH(va=0x20000, rkey=0x2000, dlen=0)]))
        self.assertEqual(v.kind, "exec")
        self.assertEqual(Ether(v.responses[0])[BTH].opcode, 0x10)    # READ RESPONSE ONLY, no payload

    def test_psn_wrap(self):
        v = self.r.process(req(0x0A, 0xfffffe, qp=0x13, ext=[RETH(va=0x10000, rkey=0x1000, dlen=2048)],
                               payload=bytes(1024)))
        self.assertEqual(v.kind, "nak-inv")                          # payload != DMA length
        a = self.r.process(req(0x06, 0xfffffe, qp=0x13, ext=[RETH(va=0x10000, rkey=0x1000, dlen=2049)], payload=bytes(1024)))
        b = self.r.process(req(0x07, 0xffffff, qp=0x13, payload=bytes(1024)))
        c = self.r.process(req(0x08, 0, qp=0x13, payload=b"\x01"))
        self.assertEqual([a.kind, b.kind, c.kind], ["exec"] * 3)
        self.assertEqual(self.r.qps[0x13].epsn, 1)
        self.assertEqual(self.r.process(req(0x08, 0xffffff, qp=0x13, payload=b"\x01")).kind, "dup")
        self.assertEqual(self.r.process(req(0x08, 1 + (1 << 23) - 1, qp=0x13)).kind, "nak-seq")
        self.assertEqual(self.r.process(req(0x0A, 1 + (1 << 23), qp=0x13, ext=[RETH()])).kind, "dup")

    def aq_run(self, qp, n, dup_index, linear):
        r = R.Responder(cfg(), aq_linear=linear)
        epsn = r.qps[qp].epsn
        for k in range(n):
            v = r.process(req(0x14, (epsn + k) % (1 << 24), qp=qp,
                              ext=[AtomicETH(va=0x10008, rkey=0x1000, swap_add=1)]))
            self.assertEqual(v.kind, "exec")
        v = r.process(req(0x14, (epsn + dup_index) % (1 << 24), qp=qp,
                          ext=[AtomicETH(va=0x10008, rkey=0x1000, swap_add=1)]))
        return v.kind, (Ether(v.responses[0])[AtomicAckETH].orig if v.kind == "dup" else None)

    def test_aq_groups(self):
        """Every atomic among the last `depth` is found, in both modes; older ones are NAKed."""
        for linear in (False, True):
            # depth 64 (one group): after 70 atomics entries 0..5 hold atomics 64..69
            self.assertEqual(self.aq_run(0x11, 70, 64, linear), ("dup", 64))
            self.assertEqual(self.aq_run(0x11, 70, 69, linear), ("dup", 69))
            self.assertEqual(self.aq_run(0x11, 70, 10, linear), ("dup", 10))        # the group's tail
            self.assertEqual(self.aq_run(0x11, 70, 6, linear), ("dup", 6))
            self.assertEqual(self.aq_run(0x11, 70, 5, linear), ("dup-nak-inv", None))   # overwritten
            # depth 128 (two groups): after 130 atomics group 0 restarted, group 1 intact
            self.assertEqual(self.aq_run(0x12, 130, 64, linear), ("dup", 64))
            self.assertEqual(self.aq_run(0x12, 130, 127, linear), ("dup", 127))
            self.assertEqual(self.aq_run(0x12, 130, 129, linear), ("dup", 129))
            self.assertEqual(self.aq_run(0x12, 130, 63, linear), ("dup", 63))      # write pointer's group
            self.assertEqual(self.aq_run(0x12, 130, 2, linear), ("dup", 2))
            self.assertEqual(self.aq_run(0x12, 130, 1, linear), ("dup-nak-inv", None))
            # write pointer exactly on a group boundary
            self.assertEqual(self.aq_run(0x12, 192, 64, linear), ("dup", 64))
            self.assertEqual(self.aq_run(0x12, 192, 63, linear), ("dup-nak-inv", None))
            self.assertEqual(self.aq_run(0x12, 128, 0, linear), ("dup", 0))
            self.assertEqual(self.aq_run(0x12, 64, 0, linear), ("dup", 0))

    def test_aq_psn_not_an_atomic(self):
        r = R.Responder(cfg())
        self.assertEqual(r.process(req(0x14, 99, ext=[AtomicETH(va=0x10000, rkey=0x1000)])).kind, "dup-nak-inv")
        r.process(req(0x14, 100, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=1)]))
        r.process(req(0x0A, 101, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0)]))
        r.process(req(0x14, 102, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=1)]))
        v = r.process(req(0x14, 101, ext=[AtomicETH(va=0x10000, rkey=0x1000, swap_add=1)]))
        self.assertEqual((v.kind, Ether(v.responses[0])[AETH].syndrome), ("dup-nak-inv", 0x61))
        self.assertEqual(Ether(v.responses[0])[BTH].psn, 101)

    def test_drops(self):
        good = req(0x0A, 100, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0)])
        self.assertEqual(self.one(good[:13]).kind, "drop:runt")
        self.assertEqual(self.one(good[:-1]).kind, "drop:runt")
        bad = bytearray(good)
        bad[-1] ^= 1
        self.assertEqual(self.one(bytes(bad)).kind, "drop:bad_icrc")
        self.assertEqual(self.one(req(0x0A, 100, qp=0x55, ext=[RETH()])).kind, "drop:unknown_qp")
        self.assertEqual(self.one(req(0x11, 100, ext=[AETH()])).kind, "drop:not_request")
        self.assertEqual(self.one(req(0x2A, 100, ext=[RETH()])).kind, "drop:malformed")
        self.assertEqual(self.one(req(0x0C, 100, ext=[bytes(15)])).kind, "drop:malformed")
        # a RoCEv2 CNP (BTH opcode 0x81 + 16 reserved bytes) is counted as such, for any QP, after its ICRC
        self.assertEqual(self.one(req(0x81, 0, ext=[bytes(16)])).kind, "drop:cnp")
        self.assertEqual(self.one(req(0x81, 0, qp=0x55, ext=[bytes(16)])).kind, "drop:cnp")
        cnp = bytearray(req(0x81, 0, ext=[bytes(16)]))
        cnp[-1] ^= 1
        self.assertEqual(self.one(bytes(cnp)).kind, "drop:bad_icrc")
        x = bytearray(good)
        x[0] = 0x04
        self.assertEqual(self.one(bytes(x)).kind, "drop:not_for_us")
        self.assertEqual(self.one(good + bytes(6)).kind, "exec")     # Ethernet padding ignored
        st = R.stats_of(self.r, [R.Verdict("drop:runt", "runt"), R.Verdict("exec")])
        self.assertEqual((st["packets_in"], st["requests_answered"], st["drops"]), (2, 1, {"runt": 1}))

    def test_send_and_write_imm_without_rq(self):
        """No RQ (rq_entries 0 / no rq fields): SEND and WRITE with immediate -> NAK invalid request."""
        v = self.one(req(0x04, 100, payload=b"hi"))
        self.assertEqual((v.kind, v.responses), ("nak-inv", [scapy_response(4, 0x11, 0x99, 100,
                                                                            [AETH(syndrome=0x61, msn=0)])]))
        self.assertEqual(self.one(req(0x0A, 101, ext=[RETH()])).kind, "drop:psn_ahead_silent")
        v = self.one(req(0x0B, 100, ext=[RETH(va=0x10000, rkey=0x1000, dlen=4), ImmDt(imm=1)], payload=b"abcd"))
        self.assertEqual(v.kind, "nak-inv")
        self.assertEqual(self.r.mem.read(0x5000, 4), bytes.fromhex("70717273"))      # nothing written
        # the memory region check comes first (step 3), then the RQ
        v = self.one(req(0x0B, 100, ext=[RETH(va=0x10000, rkey=0x7777, dlen=4), ImmDt(imm=1)], payload=b"abcd"))
        self.assertEqual(v.kind, "nak-acc")
        # a WRITE LAST with immediate: the message stays open, a plain LAST completes it
        self.assertEqual(self.one(req(0x06, 100, ext=[RETH(va=0x10000, rkey=0x1000, dlen=260)],
                                      payload=bytes(256))).kind, "exec")
        self.assertEqual(self.one(req(0x09, 101, ext=[ImmDt(imm=2)], payload=b"wxyz")).kind, "nak-inv")
        self.assertEqual(self.one(req(0x08, 101, payload=b"wxyz")).kind, "exec")
        self.assertEqual(self.r.mem.read(0x5100, 4), b"wxyz")
        self.assertEqual(self.r.st["cqes_written"], 0)


if __name__ == "__main__":
    unittest.main()
