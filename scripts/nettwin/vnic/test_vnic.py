"""Python tests of the VNIC scripts: the Scapy layer against the reference (built and dissected field by
field), the reference's round trip, its config errors, and the generator's determinism.
Run: cd scripts && /usr/bin/python3 -m unittest nettwin.vnic.test_vnic"""
import os
import random
import tempfile
import unittest

from scapy.layers.l2 import Dot1Q, Ether

from . import gen, ref
from .layers import OPA16B, decode_header, icrc16b

CFG = ref.parse_config("port 2 veswid 0x1234 pkey 0x8005 slid 0xA00001 sc 7 rc 3 ucast_dlid 0xB00002 "
                       "mcast_dlid 0xC00003 entropy 99\nmac 2 02:00:00:00:00:09 0xD00004\n", "t")


class LayerAgainstReference(unittest.TestCase):
    def test_build_equals_reference(self):
        rng = random.Random(1)
        for n in list(range(14, 90)) + [1514, 9018]:
            frame = bytes(rng.getrandbits(8) for _ in range(n))
            want, _ = ref.encap(frame, 2, CFG)
            h = decode_header(want)
            got = bytes(OPA16B(slid=h["slid"], dlid=h["dlid"], sc=7, rc=3, pkey=0x8005, entropy=99,
                               veswid=0x1234) / frame)
            self.assertEqual(got, want, n)

    def test_dissect_field_by_field(self):
        frame = bytes(Ether(dst="02:00:00:00:00:09", src="02:00:00:00:00:01") / Dot1Q(vlan=5) / (b"x" * 50))
        pkt, _ = ref.encap(frame, 2, CFG)
        p = OPA16B(pkt)
        for k, v in {"slid": 0xA00001, "dlid": 0xD00004, "sc": 7, "rc": 3, "l2": 2, "lt": 1, "l4": 0x78,
                     "pkey": 0x8005, "entropy": 99, "veswid": 0x1234, "length": len(pkt) // 8, "tail_lt": 1,
                     "pad": pkt[-1] & 7}.items():
            self.assertEqual(p.getfieldval(k), v, k)
        self.assertTrue(p.icrc_ok())
        self.assertEqual(bytes(p[Ether]), frame)
        self.assertEqual(p[Dot1Q].vlan, 5)

    def test_icrc_ignores_variant_fields(self):
        pkt = bytearray(ref.encap(bytes(60), 2, CFG)[0])
        pkt[3] |= 0x80
        pkt[7] |= 0x11
        pkt[6] ^= 0x30
        self.assertEqual(ref.decap(bytes(pkt), CFG)[2], None)
        self.assertEqual(icrc16b(b"123456789", mask_variant=False), 0xCBF43926)


class Reference(unittest.TestCase):
    def test_round_trip_every_pad(self):
        rng = random.Random(2)
        pads = set()
        for n in range(60, 400):
            frame = bytes(rng.getrandbits(8) for _ in range(n))
            pkt, _ = ref.encap(frame, 2, CFG)
            pads.add(pkt[-1] & 7)
            self.assertEqual(ref.decap(pkt, CFG), (frame, 2, None))
        self.assertEqual(pads, set(range(8)))

    def test_config_errors(self):
        for text, msg in [("port 16 veswid 1 pkey 1 slid 1", "t:1: token '16': port number must be at most 15"),
                          ("port 1 veswid 1 slid 1", "t:1: token 'port': port needs 'pkey'"),
                          ("mac 1 02:00:00:00:00:01 1", "t:1: token '1': port 1 is not configured"),
                          ("bogus", "t:1: token 'bogus': unknown line")]:
            with self.assertRaises(ref.InputError) as e:
                ref.parse_config(text, "t")
            self.assertIn(msg, str(e.exception))


class Generator(unittest.TestCase):
    def test_same_seed_same_bytes_and_every_reason(self):
        with tempfile.TemporaryDirectory() as d:
            gen.generate(4, os.path.join(d, "a"), 230)
            gen.generate(4, os.path.join(d, "b"), 230)
            for f in ("vnic.txt", "eth.pcap", "eth.ports", "opa.pcap"):
                with open(os.path.join(d, "a", f), "rb") as x, open(os.path.join(d, "b", f), "rb") as y:
                    self.assertEqual(x.read(), y.read(), f)
            from .pcapio import read_pcap
            cfg = ref.load_config(os.path.join(d, "a", "vnic.txt"))
            reasons = {ref.decap(p, cfg)[2] for p in read_pcap(os.path.join(d, "a", "opa.pcap"), 147)}
            self.assertEqual(reasons, set(ref.DECAP_REASONS) | {None})
            with open(os.path.join(d, "a", "eth.ports")) as f:
                ports = [int(x) for x in f]
            frames = read_pcap(os.path.join(d, "a", "eth.pcap"), 1)
            reasons = {ref.encap(fr, p, cfg)[1] for fr, p in zip(frames, ports)}
            self.assertEqual(reasons, set(ref.ENCAP_REASONS) | {None})


if __name__ == "__main__":
    unittest.main()
