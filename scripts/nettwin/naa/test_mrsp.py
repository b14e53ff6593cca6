#!/usr/bin/python3
"""Unit tests of the MRSP layers and reference (nettwin.naa.mrsp), and of the tshark Lua dissector mrsp.lua
on RoCEv2 SEND ONLY frames carrying every MRSP message kind.

  cd scripts && /usr/bin/python3 -m unittest nettwin.naa.test_mrsp
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from scapy.utils import wrpcap
from scapy.layers.l2 import Ether

from nettwin.common.paths import DISSECTORS_DIR
from nettwin.naa import kernels
from nettwin.naa.mrsp import (ERR_BAD_ADDRESS, ERR_MALFORMED, ERR_NO_MEMORY, ERR_TOO_MANY, MrspHeader, MrspServer,
                              build_error, build_grant, build_request, decode)
from nettwin.rdma.layers import build_request as roce_request

POOL, POOL_SIZE, RKEY_BASE = 0x40000000, 0x100000, 0x5000
LUA = os.path.join(DISSECTORS_DIR, "mrsp.lua")


def regions(n, size=4096):
    return [{"fpga": POOL + size * i, "addr": 0x7f0000000000 + 0x10000 * i, "rkey": 0x100 + i, "size": size,
             "flags": i} for i in range(n)]


class Layout(unittest.TestCase):
    def test_request_entry_is_24_bytes_big_endian_as_the_seed_draws_it(self):
        m = build_request([{"fpga": 0x01020304050607, "addr": 0x1112131415161718, "rkey": 0x21222324,
                            "size": 0x31323334, "flags": 0xaa}])
        self.assertEqual(m.hex(), "01010000" "aa01020304050607" "1112131415161718" "21222324" "31323334")

    def test_grant_and_error_layouts(self):
        self.assertEqual(build_grant([{"fpga": 0x40000000, "size": 64}], 0x5000).hex(),
                         "02010000" "0000000040000000" "00005000" "00000040")
        self.assertEqual(build_error(3), bytes([0, 3, 0, 0]))

    def test_scapy_layer_and_plain_decoder_agree(self):
        m = build_request(regions(3))
        p = MrspHeader(m)
        d = decode(m)
        self.assertEqual(len(p.entries), 3)
        for e, q in zip(d["entries"], p.entries):
            self.assertEqual((e["fpga"], e["addr"], e["rkey"], e["size"]), (q.fpga_addr, q.addr, q.rkey, q.size))
        self.assertRaises(ValueError, decode, m[:-1])


class Reference(unittest.TestCase):
    def server(self, mrs=32):
        return MrspServer(POOL, POOL_SIZE, mrs, RKEY_BASE)

    def test_grants_one_to_32(self):
        for n in (1, 32):
            s = self.server()
            self.assertEqual(s.handle(build_request(regions(n))), build_grant(regions(n), RKEY_BASE))
            self.assertEqual(len(s.regions), n)

    def test_checks_in_order(self):
        s = self.server(mrs=2)
        self.assertEqual(s.check(build_request(regions(33))), ERR_TOO_MANY)
        self.assertEqual(s.check(build_request(regions(3))), ERR_TOO_MANY)
        r = regions(2)
        r[1]["fpga"] = POOL + POOL_SIZE
        self.assertEqual(s.check(build_request(r)), ERR_BAD_ADDRESS)
        r[1]["fpga"] = POOL + POOL_SIZE - 100
        self.assertEqual(s.check(build_request(r)), ERR_NO_MEMORY)
        r[0]["fpga"] = POOL - 1
        self.assertEqual(s.check(build_request(r)), ERR_BAD_ADDRESS)
        self.assertEqual(s.check(b"\x01\x00\x00\x00"), ERR_MALFORMED)
        self.assertEqual(s.check(build_request(regions(2))[:-1]), ERR_MALFORMED)
        self.assertEqual(s.check(build_grant(regions(1), 0)), ERR_MALFORMED)
        self.assertEqual(s.check(b"\x01"), ERR_MALFORMED)

    def test_an_error_keeps_the_previous_grant(self):
        s = self.server()
        s.handle(build_request(regions(2)))
        s.handle(b"\x01\x00\x00\x00")
        self.assertEqual(len(s.regions), 2)


class Kernels(unittest.TestCase):
    def test_add_crc_copy_and_their_errors(self):
        a, b = bytes(range(64)) * 2, bytes([0xff]) * 128
        imm, idx, out = kernels.run(kernels.ADD, [a, b, bytes(128)])
        self.assertEqual((imm, idx), (kernels.OK, 2))
        self.assertEqual(out[:4], (int.from_bytes(a[:4], "little") + 0xffffffff & 0xffffffff).to_bytes(4, "little"))
        self.assertEqual(kernels.run(kernels.CRC, [b"123456789", bytes(4)])[2], (0xCBF43926).to_bytes(4, "little"))
        self.assertEqual(kernels.run(kernels.COPY, [a, bytes(200)])[2], a)
        self.assertEqual(kernels.run(9, [a])[0], kernels.UNKNOWN_FN)
        self.assertEqual(kernels.run(kernels.ADD, [a, b])[0], kernels.REGIONS)
        self.assertEqual(kernels.run(kernels.ADD, [a, b, bytes(4)])[0], kernels.SIZE)
        self.assertEqual(kernels.run(kernels.CRC, [a, bytes(3)])[0], kernels.SIZE)
        self.assertEqual(kernels.run(kernels.COPY, [a, bytes(3)])[0], kernels.SIZE)


@unittest.skipUnless(shutil.which("tshark"), "tshark not installed")
class LuaDissector(unittest.TestCase):
    def test_decodes_every_message_kind(self):
        msgs = [build_request(regions(3)), build_grant(regions(3), RKEY_BASE), build_request(regions(32)),
                build_grant(regions(32), RKEY_BASE)] + [build_error(c) for c in (1, 2, 3, 4)]
        frames = [roce_request(4, "02:00:00:00:00:02", "02:00:00:00:00:01", "10.0.0.2", "10.0.0.1", 50000, 0x04,
                               0x11, i, payload=m) for i, m in enumerate(msgs)]
        with tempfile.TemporaryDirectory() as d:
            pcap = os.path.join(d, "mrsp.pcap")
            wrpcap(pcap, [Ether(f) for f in frames])
            out = subprocess.run(["tshark", "-X", "lua_script:" + LUA, "-r", pcap, "-T", "fields", "-E",
                                  "occurrence=a", "-E", "aggregator=,", "-e", "mrsp.type", "-e", "mrsp.count",
                                  "-e", "mrsp.error", "-e", "mrsp.fpga_addr", "-e", "mrsp.rkey", "-e", "mrsp.size"],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        self.assertEqual(len(out), len(msgs), out)
        for line, m in zip(out, msgs):
            t, count, code, fpga, rkey, size = line.split("\t")
            want = decode(m)
            self.assertEqual(int(t, 16), want["type"], line)
            if want["type"] == 0:
                self.assertEqual(int(code, 16), want["code"], line)
                continue
            self.assertEqual(int(count), want["count"], line)
            self.assertEqual([int(x, 16) for x in rkey.split(",")], [e["rkey"] for e in want["entries"]], line)
            self.assertEqual([int(x) for x in size.split(",")], [e["size"] for e in want["entries"]], line)
            if want["type"] == 1:
                self.assertEqual([int(x, 16) for x in fpga.split(",")], [e["fpga"] for e in want["entries"]], line)


if __name__ == "__main__":
    unittest.main()
