"""Unit tests of the RoCEv2 reference's receive and completion queues (docs/rdma.md "Receive and
completion queues") on hand-worked cases; see test_ref.py.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.test_ref_rq [-v]
"""
import struct
import unittest

from scapy.layers.l2 import Ether

from nettwin.rdma import ref as R
from nettwin.rdma.layers import AETH, RETH, AtomicETH, ImmDt
from nettwin.rdma.test_support import BASE, RIP4, RMAC, ConfigErrorAssertions, cfg, req, scapy_response


# A QP with a receive queue: 4 slots, 3 WQEs posted, a 2-entry CQ (wraps), RNR timer 5.
RQ, CQ = 0x400000, 0x410000
WQES = [(0x500000, 600, 0xA0), (0x501000, 8, 0xA1), (0x502000, 256, 0xA2), (0x503000, 4096, 0xA3)]
RQ_CFG = BASE + f"""
qp 0x14 dest_qp 0x96 epsn 0 mtu 256 max_rd_atomic 1 aq 0x380000 rq 0x{RQ:x} rq_entries 4 rq_posted 3 cq 0x{CQ:x} cq_entries 2 rnr_timer 5
mem 0x{RQ:x} {"".join(struct.pack("<QII", *w).hex() for w in WQES)}
mem 0x{CQ:x} {"ee" * 64}
"""
def cqe(wr_id, nbytes, imm, qpn, opcode, psn):
    """docs/rdma.md CQE, written out field by field."""
    return (wr_id.to_bytes(4, "little") + nbytes.to_bytes(4, "little") + (imm or bytes(4))
            + qpn.to_bytes(4, "little") + bytes([opcode, 1 if imm else 0, 0, 0]) + psn.to_bytes(4, "little")
            + bytes(8))


class TestReceiveQueue(ConfigErrorAssertions, unittest.TestCase):
    def setUp(self):
        self.r = R.Responder(cfg(RQ_CFG))

    def one(self, op, psn, ext=(), payload=b"", qp=0x14, **kw):
        return self.r.process(req(op, psn, qp=qp, ext=ext, payload=payload, **kw))

    def ack(self, psn, msn, syndrome=0x1F):
        return scapy_response(4, 0x11, 0x96, psn, [AETH(syndrome=syndrome, msn=msn)])

    def test_config(self):
        q = cfg(RQ_CFG).qps[0x14]
        self.assertEqual((q.rq, q.rq_entries, q.rq_posted, q.cq, q.cq_entries, q.rnr_timer),
                         (RQ, 4, 3, CQ, 2, 5))
        self.assertTrue(q.has_rq)
        self.assertEqual((q.wqe_pa(5), q.cqe_pa(3)), (RQ + 16, CQ + 32))
        p = cfg().qps[0x11]
        self.assertEqual((p.has_rq, p.rnr_timer), (False, 1))
        r = f"responder mac {RMAC} ip {RIP4}\nqp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq 0 "
        self.assertEqual(R.parse_config(r + "rnr_timer 31").qps[1].rnr_timer, 31)
        self.assertEqual(R.parse_config(r + "rnr_timer 0").qps[1].rnr_timer, 0)
        self.assertFalse(R.parse_config(r + "rq 0 rq_entries 0 rq_posted 0 cq 0 cq_entries 0").qps[1].has_rq)
        q = R.parse_config(r + "cq_entries 1 cq 0x20 rq_posted 0 rq_entries 0x10 rq 0x10").qps[1]   # any order
        self.assertEqual((q.rq, q.rq_entries, q.rq_posted, q.cq, q.cq_entries), (0x10, 16, 0, 0x20, 1))

    def test_config_errors(self):
        t = self
        r = f"responder mac {RMAC} ip {RIP4}\nqp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq 0 "
        full = "rq 0x1000 rq_entries 8 rq_posted 8 cq 0x2000 cq_entries 8"
        t.check_error(r + "rq 0x1000 rq_entries 8 rq_posted 8 cq 0x2000", 2, "qp", "missing 'cq_entries'")
        t.check_error(r + "rq 0x1000", 2, "qp", "go together")
        t.check_error(r + "cq 0x1000 cq_entries 4 rnr_timer 2", 2, "qp", "missing 'rq'")
        t.check_error(r + full + " rnr_timer 32", 2, "32", "rnr_timer must be 0..31")
        t.check_error(r + full + " rnr_timer 0x100", 2, "0x100", "out of range")
        t.check_error(r + full.replace("rq_posted 8", "rq_posted 9"), 2, "9", "rq_posted above rq_entries")
        t.check_error(r + full.replace("rq_entries 8 rq_posted 8", "rq_entries 0 rq_posted 1"), 2, "1",
                      "rq_posted above")
        t.check_error(r + full.replace("cq_entries 8", "cq_entries 0"), 2, "0", "cq_entries must be at least 1")
        t.check_error(r + full.replace("rq 0x1000", "rq 0xfffffffffffffff8"), 2, "0xfffffffffffffff8",
                      "RQ runs past")
        t.check_error(r + full.replace("cq 0x2000", "cq 0xffffffffffffff08"), 2, "0xffffffffffffff08",
                      "CQ runs past")
        t.check_error(r + full + " rq 0x3000", 2, "rq", "given twice")
        t.check_error(r + full + " srq 1", 2, "srq", "unknown keyword")
        t.check_error(r + full.replace("rq_posted 8", "rq_posted -1"), 2, "-1", "not a number")

    def test_send_only_bytes_cqe_and_msn(self):
        v = self.one(0x04, 0, payload=b"hello")
        self.assertEqual((v.kind, v.responses), ("exec", [self.ack(0, 1)]))
        self.assertEqual(self.r.mem.read(0x500000, 6), b"hello\0")
        self.assertEqual(self.r.mem.read(CQ, 32), cqe(0xA0, 5, None, 0x14, 0, 0))
        self.assertEqual(self.r.mem.read(CQ, 32).hex(),
                         "a0000000" "05000000" "00000000" "14000000" "00000000" "00000000" + "00" * 8)
        self.assertEqual(self.r.mem.read(CQ + 32, 32), b"\xee" * 32)
        # SEND ONLY with immediate and AckReq into WQE 1 (8-byte buffer), IPv6
        v = self.r.process(req(0x05, 1, qp=0x14, fam=6, ext=[ImmDt(imm=0x01020304)], payload=b"12345678",
                               ackreq=True))
        self.assertEqual(v.responses, [scapy_response(6, 0x11, 0x96, 1, [AETH(syndrome=0x1F, msn=2)])])
        self.assertEqual(self.r.mem.read(CQ + 32, 32), cqe(0xA1, 8, bytes([1, 2, 3, 4]), 0x14, 0, 1))
        self.assertEqual((self.r.qps[0x14].rq_head, self.r.qps[0x14].cq_index, self.r.qps[0x14].epsn), (2, 2, 2))

    def test_multi_packet_send(self):
        data = bytes(range(256)) * 2 + bytes(range(88))
        a = self.one(0x00, 0, payload=data[:256])
        b = self.one(0x01, 1, payload=data[256:512], ackreq=True)
        c = self.one(0x03, 2, ext=[ImmDt(imm=0xDEADBEEF)], payload=data[512:])
        self.assertEqual([a.kind, b.kind, c.kind], ["exec"] * 3)
        self.assertEqual((a.responses, b.responses, c.responses), ([], [self.ack(1, 0)], [self.ack(2, 1)]))
        self.assertEqual(self.r.mem.read(0x500000, 601), data + b"\0")
        self.assertEqual(self.r.mem.read(CQ, 32), cqe(0xA0, 600, bytes.fromhex("deadbeef"), 0x14, 0, 2))
        self.assertEqual(self.r.mem.read(CQ + 8, 4), bytes.fromhex("deadbeef"))   # as on the wire
        self.assertEqual(self.r.mem.read(CQ + 16, 2), b"\x00\x01")

    def test_buffer_overflow(self):
        # first/only longer than the WQE's buffer: NAK invalid request, WQE not consumed
        self.assertEqual(self.one(0x04, 0, payload=bytes(200)).kind, "exec")             # WQE 0
        v = self.one(0x04, 1, payload=bytes(9))                                           # WQE 1: 8 bytes
        self.assertEqual((v.kind, v.responses), ("nak-inv", [self.ack(1, 1, 0x61)]))
        self.assertEqual(self.one(0x04, 2, payload=bytes(4)).kind, "drop:psn_ahead_silent")
        self.assertEqual(self.r.qps[0x14].rq_head, 1)
        self.assertEqual(self.one(0x04, 1, payload=b"abcdefgh").kind, "exec")            # WQE 1 after all
        self.assertEqual(self.r.mem.read(CQ + 32, 8), cqe(0xA1, 8, None, 0x14, 0, 1)[:8])
        # a first packet longer than the buffer (WQE 2 holds 256 bytes: the first fits, a middle not)
        self.assertEqual(self.one(0x00, 2, payload=bytes(256)).kind, "exec")
        v = self.one(0x01, 3, payload=bytes(256))
        self.assertEqual((v.kind, Ether(v.responses[0])[AETH].syndrome), ("nak-inv", 0x61))
        self.assertIsNotNone(self.r.qps[0x14].send)                  # the message stays open
        v = self.one(0x02, 3, payload=b"")                           # a LAST with no payload fits
        self.assertEqual((v.kind, v.responses), ("exec", [self.ack(3, 3)]))
        self.assertEqual(self.r.mem.read(CQ, 32), cqe(0xA2, 256, None, 0x14, 0, 3))   # CQ wrapped: slot 0

    def test_rnr_nak(self):
        for k, n in enumerate((600, 8, 256)):
            self.assertEqual(self.one(0x04, k, payload=bytes([k + 1]) * min(n, 256)).kind, "exec")
        v = self.one(0x04, 3, payload=b"x")
        self.assertEqual((v.kind, v.responses), ("nak-rnr", [self.ack(3, 3, 0x25)]))     # 0x20 | rnr_timer 5
        self.assertEqual(self.r.st["naks"], {"0x25": 1})
        self.assertEqual(self.one(0x0A, 4, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0)]).kind,
                         "drop:psn_ahead_silent")
        self.assertEqual(self.one(0x04, 3, payload=b"x").kind, "nak-rnr")                # still nothing posted
        # WRITE with immediate needs a WQE too: RNR NAK, nothing written
        v = self.one(0x0B, 3, ext=[RETH(va=0x10000, rkey=0x1000, dlen=4), ImmDt(imm=1)], payload=b"abcd")
        self.assertEqual(v.kind, "nak-rnr")
        self.assertEqual(self.r.mem.read(0x5000, 4), bytes.fromhex("70717273"))
        # first failing check wins: a short SEND FIRST is an invalid request, not RNR
        self.assertEqual(self.one(0x00, 3, payload=bytes(100)).kind, "nak-inv")
        # the requester gives up: a WRITE at that PSN executes; the slot 3 WQE was never posted
        self.assertEqual(self.one(0x0A, 3, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0)]).kind, "exec")
        self.assertEqual(self.r.qps[0x14].rq_head, 3)
        self.assertEqual(self.r.mem.read(0x503000, 1), b"\0")

    def test_rnr_timer_default(self):
        r = R.Responder(cfg(RQ_CFG.replace(" rnr_timer 5", "").replace("rq_posted 3", "rq_posted 0")))
        v = r.process(req(0x04, 0, qp=0x14, payload=b"x"))
        self.assertEqual(Ether(v.responses[0])[AETH].syndrome, 0x21)

    def test_write_with_immediate(self):
        data = bytes(range(256)) + b"tail"
        a = self.one(0x06, 0, ext=[RETH(va=0x10100, rkey=0x1000, dlen=260)], payload=data[:256])
        b = self.one(0x09, 1, ext=[ImmDt(imm=0x11223344)], payload=data[256:])
        self.assertEqual((a.kind, a.responses, b.kind, b.responses), ("exec", [], "exec", [self.ack(1, 1)]))
        self.assertEqual(self.r.mem.read(0x5100, 260), data)
        self.assertEqual(self.r.mem.read(CQ, 32), cqe(0xA0, 260, bytes.fromhex("11223344"), 0x14, 1, 1))
        self.assertEqual(self.r.mem.read(0x500000, 4), bytes(4))      # the WQE's buffer is not used
        v = self.one(0x0B, 2, ext=[RETH(va=0x10000, rkey=0x1000, dlen=0), ImmDt(imm=7)])
        self.assertEqual(v.responses, [self.ack(2, 2)])
        self.assertEqual(self.r.mem.read(CQ + 32, 32), cqe(0xA1, 0, (7).to_bytes(4, "big"), 0x14, 1, 2))
        # a plain WRITE consumes nothing
        self.assertEqual(self.one(0x0A, 3, ext=[RETH(va=0x10000, rkey=0x1000, dlen=1)], payload=b"z").kind, "exec")
        self.assertEqual((self.r.qps[0x14].rq_head, self.r.qps[0x14].msn), (2, 3))
        # duplicates: ACK, no second CQE
        v = self.one(0x09, 1, ext=[ImmDt(imm=0x11223344)], payload=b"XXXX")
        self.assertEqual((v.kind, v.responses), ("dup", [self.ack(1, 3)]))
        self.assertEqual((self.r.qps[0x14].rq_head, self.r.st["cqes_written"]), (2, 2))
        self.assertEqual(self.r.mem.read(0x5200, 4), b"tail")

    def test_write_imm_payload_before_wqe_read(self):
        """DMA order: payload writes, then the WQE read: a WRITE over the WQE changes its wr_id."""
        c = RQ_CFG + f"mr 0x3000 va 0x30000 len 64 pa 0x{RQ:x} access w\n"
        r = R.Responder(cfg(c))
        v = r.process(req(0x0B, 0, qp=0x14, ext=[RETH(va=0x3000c, rkey=0x3000, dlen=4), ImmDt(imm=9)],
                          payload=b"\x55\x66\x77\x88"))
        self.assertEqual(v.kind, "exec")
        self.assertEqual(r.mem.read(CQ, 4), bytes.fromhex("55667788"))

    def test_duplicates_and_open_message(self):
        self.assertEqual(self.one(0x00, 0, payload=bytes([1]) * 256).kind, "exec")
        v = self.one(0x00, 0, payload=bytes([9]) * 256)                    # lost ACK: duplicate FIRST
        self.assertEqual((v.kind, v.responses), ("dup", [self.ack(0, 0)]))
        self.assertEqual(self.r.mem.read(0x500000, 1), b"\x01")
        # while the SEND is open, anything but SEND MIDDLE/LAST is an invalid request
        for op, ext, pl in ((0x0A, [RETH(va=0x10000, rkey=0x1000, dlen=1)], b"a"), (0x04, [], b"a"),
                            (0x00, [], bytes(256)), (0x07, [], bytes(256)), (0x08, [], b"a"),
                            (0x0C, [RETH(va=0x10000, rkey=0x1000, dlen=1)], b""),
                            (0x14, [AtomicETH(va=0x10000, rkey=0x1000, swap_add=1)], b"")):
            v = self.one(op, 1, ext=ext, payload=pl)
            self.assertEqual((v.kind, Ether(v.responses[0])[AETH].syndrome), ("nak-inv", 0x61), R.opname(op))
        self.assertEqual(self.one(0x01, 1, payload=bytes(255)).kind, "nak-inv")      # MIDDLE != MTU
        self.assertEqual(self.one(0x02, 1, payload=bytes(257)).kind, "nak-inv")      # > MTU
        self.assertEqual(self.one(0x02, 1, payload=b"end").kind, "exec")
        self.assertEqual(self.r.mem.read(CQ, 8), cqe(0xA0, 259, None, 0x14, 0, 1)[:8])
        # SEND MIDDLE/LAST with nothing open; SEND inside an open WRITE
        self.assertEqual(self.one(0x01, 2, payload=bytes(256)).kind, "nak-inv")
        self.assertEqual(self.one(0x03, 2, ext=[ImmDt()], payload=b"").kind, "nak-inv")
        self.assertEqual(self.one(0x06, 2, ext=[RETH(va=0x10000, rkey=0x1000, dlen=300)], payload=bytes(256)).kind,
                         "exec")
        self.assertEqual(self.one(0x02, 3, payload=bytes(44)).kind, "nak-inv")
        self.assertEqual(self.one(0x04, 3, payload=bytes(4)).kind, "nak-inv")
        self.assertEqual(self.one(0x08, 3, payload=bytes(44)).kind, "exec")
        # a SEND ahead: PSN sequence error like any request
        self.assertEqual(self.one(0x04, 5, payload=b"x").kind, "nak-seq")
        self.assertEqual(self.r.qps[0x14].rq_head, 1)
        # a duplicate SEND of a PSN that was a WRITE: still just an ACK
        self.assertEqual(self.one(0x04, 2, payload=b"x").kind, "dup")

    def test_stats_and_run(self):
        frames = [(req(0x04, 0, qp=0x14, payload=b"a"), 0.0), (req(0x04, 0, qp=0x14, payload=b"a"), 0.0)]
        resp, verdicts = R.run(cfg(RQ_CFG), frames)
        st = R.stats_of(resp, verdicts)
        self.assertEqual((st["packets_out"], st["acks"], st["cqes_written"], st["wqes_consumed"]), (2, 2, 1, 1))
        self.assertNotIn("unsupported_opcode", st)
        self.assertEqual([(c.qpn, c.index, c.wr_id, c.request) for c in resp.cqes], [(0x14, 0, 0xA0, 0)])


if __name__ == "__main__":
    unittest.main()
