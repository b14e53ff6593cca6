"""conweave-p4's wire format through the destination ToR (issue 26 item 2; docs/reorder.md "Two wire formats").

- layers: conweave-p4's BTH byte 8 written and read bit by bit as leaf_conweave/p4src/includes/headers.p4
  (conweave-project/conweave-p4 39b34be) lays it out, independently of layers.p4_byte8; the IP/UDP lengths
  are the NIC's (not grown for the CW header); the seed meaning (epoch + phase, REROUTED = phase, an
  ask_reply without TAIL = RTT_REQUEST) and the NIC frame come back;
- with a built nettwin (NT_BUILD, default ../build): nettwin.reorder.gen --wire-format conweave-p4 (mixed, seed 1)
  through `nettwin reorder --engine lockstep` passes reorder_check (in order, exactly once, byte for byte, every
  control packet in conweave-p4's layout), and the same arrivals read as the seed's format are all
  `malformed` (what a new user saw: 555 of 555), so the format really is chosen by the configuration.

  cd scripts && /usr/bin/python3 -m unittest nettwin.reorder.test_p4
"""
import json
import os
import subprocess
import tempfile
import unittest

from nettwin.common.pcap import read_pcap
from nettwin.rdma.layers import check_icrc
from nettwin.reorder import layers as L
from nettwin.common.paths import export_pythonpath  # noqa: E402

export_pythonpath()  # the tools they run are python3 -m nettwin.<block>.<tool>

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("NT_BUILD", os.path.join(os.path.dirname(SCRIPTS), "build"))
PY = "/usr/bin/python3"


def run(*args):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True)


def p4_bits(b8):
    """headers.p4 ib_bth_h after destination_qp: ack_request:1, conweave_opcode:2, conweave_phase:1,
    conweave_epoch:2, conweave_ask_reply:1, conweave_tail_flag:1 (P4 header fields are MSB first)."""
    bits = format(b8, "08b")
    return dict(ack=int(bits[0]), opcode=int(bits[1:3], 2), phase=int(bits[3]), epoch=int(bits[4:6], 2),
                ask=int(bits[6]), tail=int(bits[7]))


class Layout(unittest.TestCase):
    def setUp(self):
        L.set_format(L.SEED)

    def tearDown(self):
        L.set_format(L.SEED)

    def nic(self):
        from nettwin.rdma.layers import OP, build_request
        return build_request(4, "02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2", 50000,
                             OP["SEND_ONLY"], 0x123456, 0x000fff, ackreq=True, payload=bytes(range(40)))

    def test_fields_and_lengths(self):
        nic = self.nic()
        h = L.parse(nic)
        for op, ep, rr, tail in [(L.CW_NORMAL, 2, 0, 0), (L.CW_RTT_REQUEST, 3, 0, 0), (L.CW_NORMAL, 0, 1, 0),
                                 (L.CW_NORMAL, 1, 0, 1), (L.CW_RTT_REQUEST, 1, 1, 0)]:
            fab = L.to_fabric(nic, 7, op, ep, rr, tail, 0x1234, 0xabcd, fmt=L.P4)
            self.assertEqual(len(fab), len(nic) + 4)
            self.assertEqual(fab[16:18], nic[16:18], "IPv4 total length grown")
            self.assertEqual(fab[h.udp + 4:h.udp + 6], nic[h.udp + 4:h.udp + 6], "UDP length grown")
            self.assertEqual(fab[24:26], nic[24:26], "IPv4 checksum changed")
            self.assertEqual(fab[h.bth + 4], 7)                                 # out_port = PathID
            self.assertEqual(fab[h.bth + 12:h.bth + 16], bytes.fromhex("1234abcd"))   # ts_tx, ts_tail
            b = p4_bits(fab[h.bth + 8])
            self.assertEqual((b["ack"], b["opcode"], b["phase"], b["tail"]), (1, 1, rr, tail))
            self.assertEqual(b["epoch"], (ep - rr) & 3)
            self.assertEqual(b["ask"], int(op == L.CW_RTT_REQUEST or tail))
            cw = L.decode_cw(fab, fmt=L.P4)
            self.assertEqual((cw.op, cw.epoch, cw.rerouted, cw.tail, cw.path_id), (op, ep, rr, tail, 7))
            self.assertEqual(L.to_nic(fab, fmt=L.P4), nic)
            self.assertTrue(check_icrc(nic))

    def test_control_packets(self):
        fab = L.to_fabric(self.nic(), 5, L.CW_RTT_REQUEST, 2, 0, 0, 100, 90, fmt=L.P4)
        for op, want in [(L.CW_RTT_REPLY, dict(opcode=2, phase=0, epoch=2)),
                         (L.CW_NOTIFY, dict(opcode=3, phase=0, epoch=2)),
                         (L.CW_CLEAR, dict(opcode=2, phase=1, epoch=2))]:
            c = L.make_control(fab, op, epoch=3 if op == L.CW_CLEAR else None, fmt=L.P4)
            h = L.parse(c)
            b = p4_bits(c[h.bth + 8])
            self.assertEqual({k: b[k] for k in want}, want, L.CW_NAME[op])
            self.assertEqual((b["ask"], b["tail"]), (0, 0))
            self.assertTrue(check_icrc(c))
            self.assertEqual(L.decode_cw(c, fmt=L.P4).op, op)
        self.assertEqual(L.decode_cw(L.make_control(fab, L.CW_CLEAR, epoch=3, fmt=L.P4), fmt=L.P4).epoch, 3)
        self.assertIsNone(L.decode_cw(L.to_nic(fab, fmt=L.P4) + b"\0" * 4, fmt=L.P4))    # opcode 0: no CW header


@unittest.skipUnless(os.access(os.path.join(BUILD, "nettwin"), os.X_OK), "no built nettwin")
class ThroughTheBlock(unittest.TestCase):
    def test_p4_capture_in_lockstep_in_order_exactly_once(self):
        with tempfile.TemporaryDirectory() as d:
            r = run(PY, "-m", "nettwin.reorder.gen", "--seed", 1, "--scenario", "mixed", "--out-dir", d,
                    "--wire-format", "conweave-p4")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(f"{d}/reorder.txt") as f:
                self.assertIn("wire_format conweave-p4", f.read())
            out = ["--out", f"{d}/dl.pcap", "--ctrl-out", f"{d}/c.pcap", "--stats", f"{d}/s.json"]
            r = run(f"{BUILD}/nettwin", "reorder", "--config", f"{d}/reorder.txt", "--in", f"{d}/arrivals.pcap",
                    *out, "--engine", "lockstep")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = run(PY, "-m", "nettwin.reorder.check", "--dir", d, "--delivered", f"{d}/dl.pcap", "--ctrl", f"{d}/c.pcap",
                    "--stats", f"{d}/s.json")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(f"{d}/s.json") as f:
                st = json.load(f)
            self.assertEqual(st["delivered"], len(read_pcap(f"{d}/arrivals.pcap")))
            self.assertGreater(st["held"], 0)
            self.assertGreater(st["released_by_tail"], 0)
            self.assertGreater(st["released_by_timeout"], 0)
            # the control packets are in conweave-p4's layout: opcode 2 (REPLY) or 3 (NOTIFY), never 0 or 1
            ops = {p4_bits(fr[L.parse(fr).bth + 8])["opcode"] for fr, _ in read_pcap(f"{d}/c.pcap")}
            self.assertEqual(ops, {2, 3})
            # read as the seed's format (no wire_format line) every arrival is malformed
            with open(f"{d}/reorder.txt") as f:
                seed_conf = "".join(ln for ln in f if not ln.startswith("wire_format"))
            with open(f"{d}/seed.txt", "w") as f:
                f.write(seed_conf)
            r = run(f"{BUILD}/nettwin", "reorder", "--config", f"{d}/seed.txt", "--in", f"{d}/arrivals.pcap",
                    *out, "--engine", "model")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(f"{d}/s.json") as f:
                st = json.load(f)
            self.assertEqual(st["drops"]["malformed"], st["packets_in"])


if __name__ == "__main__":
    unittest.main()
