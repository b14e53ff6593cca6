"""The tshark Lua dissector (scripts/dissectors/opa16b_vnic.lua) against the Scapy layer (layers.OPA16B),
field by field on every packet of a generated vector: valid packets, packets whose BECN/FECN/SC a switch
changed, and corrupted ones (bad ICRC, length, L2/L4, tail), plus the inner Ethernet destination that
Wireshark's own Ethernet dissector finds. Run: cd scripts && /usr/bin/python3 -m unittest
nettwin.vnic.test_dissector"""
import os
import re
import subprocess
import tempfile
import unittest

from scapy.layers.l2 import Ether

from nettwin.common.paths import DISSECTORS_DIR

from . import gen
from .layers import OPA16B
from .pcapio import read_pcap

LUA = os.path.join(DISSECTORS_DIR, "opa16b_vnic.lua")
FIELDS = ["slid", "length", "becn", "dlid", "sc", "rc", "fecn", "l2", "lt", "l4", "pkey", "entropy", "veswid",
          "pad", "tail_lt", "icrc"]


class DissectorAgainstLayer(unittest.TestCase):
    def test_every_field_of_every_packet(self):
        with tempfile.TemporaryDirectory() as d:
            gen.generate(6, d, 220)
            pcap = os.path.join(d, "opa.pcap")
            cmd = ["tshark", "-X", "lua_script:" + LUA, "-r", pcap, "-T", "fields", "-E", "separator=|",
                   "-E", "occurrence=f"] + [x for k in FIELDS + ["icrc_ok"] for x in ("-e", "opa16b." + k)] + \
                  ["-e", "eth.dst"]
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout
            rows = out.splitlines()
            pkts = read_pcap(pcap, 147)
            self.assertEqual(len(rows), len(pkts))
            checked = 0
            for i, (row, raw) in enumerate(zip(rows, pkts)):
                if len(raw) < 25:  # too short for header + trailer: the dissector reports it, no fields
                    continue
                got = row.split("|")
                p = OPA16B(raw)
                for k, v in zip(FIELDS, got):
                    self.assertEqual(int(v, 0), p.getfieldval(k), f"packet {i + 1} field {k}")
                self.assertEqual(got[len(FIELDS)] in ("1", "True"), p.icrc_ok(), f"packet {i + 1} icrc_ok")
                if p.l4 == 0x78 and Ether in p and len(raw) - 25 - (raw[-1] & 7) >= 14:
                    self.assertEqual(got[-1], p[Ether].dst, f"packet {i + 1} inner eth.dst")
                checked += 1
            self.assertGreater(checked, 150)

    def test_no_lua_error_on_any_packet(self):
        """Corrupted packets whose Ethernet frame is shorter than its header (a runt, a pad count that eats
        the frame) get an expert error; Wireshark's Ethernet dissector once raised a Lua error on them."""
        with tempfile.TemporaryDirectory() as d:
            gen.generate(1, d, 600)
            pcap = os.path.join(d, "opa.pcap")
            out = subprocess.run(["tshark", "-X", "lua_script:" + LUA, "-r", pcap, "-V"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, check=True).stdout
            frames = re.split(r"^Frame \d+:", out, flags=re.M)[1:]
            pkts = read_pcap(pcap, 147)
            self.assertEqual(len(frames), len(pkts))
            self.assertEqual([i + 1 for i, text in enumerate(frames) if "Lua Error" in text], [],
                             "frames with a Lua error")
            short = [i for i, raw in enumerate(pkts)
                     if len(raw) >= 25 and raw[8] == 0x78 and 0 < len(raw) - 25 - (raw[-1] & 7) < 14]
            self.assertGreater(len(short), 0, "the vector has no short inner frame: the test proves nothing")
            said = [i for i, text in enumerate(frames) if "shorter than its header" in text]
            self.assertEqual(said, short)


if __name__ == "__main__":
    unittest.main()
