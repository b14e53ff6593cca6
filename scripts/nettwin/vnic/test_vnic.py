"""Python tests of the VNIC scripts: the Scapy layer against the reference (built and dissected field by
field), the reference's round trip, its config errors, and the generator's determinism.
Run: cd scripts && /usr/bin/python3 -m unittest nettwin.vnic.test_vnic"""
import os
import random
import tempfile
import unittest

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether

from . import gen, linux_ref, ref
from .layers import OPA16B, decode_header, encode_header, icrc16b

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


class LinuxConventions(unittest.TestCase):
    """Linux opa_vnic / hfi1 (scripts/nettwin/vnic/linux_ref.py, written from the Linux sources)."""

    def test_linux_header_words_are_the_spec_table(self):
        # opa_vnic_make_header's five u32 words and the spec's quadword table are two readings of one header
        rng = random.Random(5)
        for _ in range(200):
            f = {"slid": rng.randint(0, 0xFFFFFF), "dlid": rng.randint(0, 0xFFFFFF), "length": rng.randint(0, 2047),
                 "pkey": rng.randint(0, 0xFFFF), "entropy": rng.randint(0, 0xFF), "sc": rng.randint(0, 31),
                 "rc": rng.randint(0, 7), "veswid": rng.randint(0, 0xFFFF)}
            got = linux_ref.make_header(f["slid"], f["dlid"], f["length"], f["pkey"], f["entropy"], f["sc"], f["rc"],
                                        0x78, f["veswid"])
            self.assertEqual(got, encode_header(dict(f, l2=0b10, lt=1, l4=0x78)))

    def test_linux_capture_decapsulates_to_linux_frames(self):
        # tail byte = pad count only (bits 6-7 zero): every packet of a Linux capture is delivered, every pad
        text, pkts, want = linux_ref.make_capture(3, 100)
        cfg = ref.parse_config(text, "linux")
        self.assertEqual({p[-1] >> 6 for p in pkts}, {0})
        self.assertEqual({p[-1] & 7 for p in pkts}, set(range(8)))
        self.assertEqual([ref.decap(p, cfg)[:2] for p in pkts], want)

    def test_linux_profile_rules(self):
        cfg = ref.parse_config(
            "port 2 veswid 9 pkey 0xffff slid 0x000102 sc 3 ucast_dlid 0x000777 mcast_dlid 0x00c001 profile linux "
            "sc_mc 4 pcp_sc_uc 10,11,12,13,14,15,16,17 pcp_sc_mc 20,21,22,23,24,25,26,27 rc_word 0x07654321\n"
            "mac 2 02:00:00:00:00:05 0x000555\n", "t")
        cases = [  # frame, DLID, SC, RC (rc_word: DEFAULT 1, IPV4 2, IPV4_UDP 3, IPV4_TCP 4, IPV6 5, ..TCP 6, ..UDP 7)
            (bytes(Ether(dst="02:00:00:34:12:0b") / IP() / TCP()), 0x0B1234, 3, 4),
            (bytes(Ether(dst="00:1b:21:01:02:03") / Dot1Q(prio=5) / IPv6() / UDP()), 0x000777, 15, 7),
            (bytes(Ether(dst="01:00:5e:00:00:01", type=0x88A8) / Dot1Q(prio=1) / Dot1Q() / IP(proto=1)),
             0x00C001, 21, 2),
            (bytes(Ether(dst="02:00:00:00:00:05") / ARP()), 0x000555, 3, 1),
            (bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / IP() / UDP()), 0x00C001, 4, 3),
        ]
        for frame, dlid, sc, rc in cases:
            pkt, why = ref.encap(frame, 2, cfg)
            h = decode_header(pkt)
            self.assertEqual((why, h["dlid"], h["sc"], h["rc"]), (None, dlid, sc, rc), frame[:6].hex())
            self.assertEqual(pkt[-1], -(len(frame) + 25) % 8)  # tail: the pad count alone
            self.assertEqual(h["entropy"] >> 8, 0)
            self.assertEqual(ref.decap(pkt, cfg)[:2], (frame, 2))
        self.assertEqual(ref.encap(bytes(Ether(dst="02:77:66:00:00:00") / ARP()), 2, cfg), (None, "dlid_zero"))

    def test_zero_ids_are_config_errors(self):
        for text, msg in [("port 1 veswid 0 pkey 0x8001 slid 1", "veswid 0"),
                          ("port 1 veswid 1 pkey 0x8001 slid 0", "slid 0"),
                          ("port 1 veswid 1 pkey 0x8001 slid 1\nmac 1 02:00:00:00:00:01 0", "dlid 0"),
                          ("port 1 veswid 1 pkey 0x8001 slid 1 profile linux entropy 4", "token 'entropy'"),
                          ("port 1 veswid 1 pkey 0x8001 slid 1 sc_mc 4", "token 'sc_mc'")]:
            with self.assertRaises(ref.InputError) as e:
                ref.parse_config(text, "t")
            self.assertIn(msg, str(e.exception))

    def test_tail_lt_10_and_11_still_dropped(self):
        pkt = ref.encap(bytes(60), 2, CFG)[0]
        for top in (0x80, 0xC0):
            self.assertEqual(ref.decap(pkt[:-1] + bytes([top | (pkt[-1] & 7)]), CFG)[2], "bad_pad")
        self.assertEqual(ref.decap(pkt[:-1] + bytes([pkt[-1] & 7]), CFG)[2], None)


if __name__ == "__main__":
    unittest.main()
