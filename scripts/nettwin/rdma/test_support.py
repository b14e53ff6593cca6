"""Shared by the RDMA unit tests (test_ref.py, test_ref_rq.py): the base responder config, request
and response builders (responses field by field with Scapy, from docs/rdma.md)."""
import struct
import zlib

from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nettwin.common.paths import SCRIPTS_DIR
from nettwin.rdma import ref as R
from nettwin.rdma.layers import BTH, build_request, icrc


S = SCRIPTS_DIR
PY = "/usr/bin/python3"
RMAC, RIP4, RIP6 = "02:00:00:00:00:01", "10.0.0.1", "fd00::1"
QMAC, QIP4, QIP6 = "02:00:00:00:00:02", "10.0.0.2", "fd00::2"

BASE = f"""
responder mac {RMAC} ip {RIP4} ip6 {RIP6}
qp 0x11 dest_qp 0x99 epsn 100 mtu 256 max_rd_atomic 1 aq 0x100000   # depth 64
qp 0x12 dest_qp 0x98 epsn 0 mtu 256 max_rd_atomic 100 aq 0x200000   # depth 128
qp 0x13 dest_qp 0x97 epsn 0xfffffe mtu 1024 max_rd_atomic 64 aq 0x300000
mr 0x1000 va 0x10000 len 4096 pa 0x5000 access rwa
mr 0x2000 va 0x20000 len 64 pa 0x9000 access r
mem 0x5000 7071727374757677
"""
def cfg(text=BASE):
    return R.parse_config(text, "t.txt")


def req(op, psn, qp=0x11, ext=(), payload=b"", fam=4, **kw):
    return build_request(fam, QMAC, RMAC, QIP4 if fam == 4 else QIP6, RIP4 if fam == 4 else RIP6,
                         50000, op, qp, psn, ext=ext, payload=payload, **kw)


def scapy_response(fam, opcode, dest_qp, psn, layers=(), payload=b"", pad=0):
    """A response built field by field from docs/rdma.md 'Response packets, byte for byte'."""
    l3 = (IP(src=RIP4, dst=QIP4, tos=0, id=0, flags="DF", ttl=64) if fam == 4
          else IPv6(src=RIP6, dst=QIP6, tc=0, fl=0, hlim=64))
    p = (Ether(src=RMAC, dst=QMAC) / l3 / UDP(sport=50000, dport=4791, chksum=0)
         / BTH(opcode=opcode, padcount=pad, pkey=0xFFFF, dqpn=dest_qp, psn=psn, icrc=None if fam == 4 else 0))
    for h in layers:
        p = p / h
    if payload or pad:
        p = p / Raw(payload + bytes(pad))
    b = raw(p)
    return b if fam == 4 else b[:-4] + icrc(b)


def ipv6_icrc_with_scapy(frame):
    """IPv6 ICRC by the same recipe as Scapy's IPv4 compute_icrc, masking with Scapy fields."""
    p = Ether(frame)
    ip = p[IPv6].copy()
    ip.tc, ip.fl, ip.hlim = 0xFF, 0xFFFFF, 0xFF
    ip[UDP].chksum = 0xFFFF
    ip[BTH].fecn, ip[BTH].becn, ip[BTH].resv6 = 1, 1, 0x3F
    data = b"\xff" * 8 + raw(ip)[:-4]
    return struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)


class ConfigErrorAssertions:
    """check_error(text, line, tok, words): parsing TEXT fails at LINE on token TOK, as `file:line: token
    'tok': message` with WORDS in the message (mixed into unittest.TestCase classes)."""

    def check_error(self, text, line, tok, words):
        with self.assertRaises(R.ConfigError) as cm:
            R.parse_config(text, "t.txt")
        e = cm.exception
        self.assertEqual((e.line, e.tok), (line, tok), str(e))
        self.assertIn(words, str(e))
        if line:
            self.assertTrue(str(e).startswith(f"t.txt:{line}: token '{tok}': "), str(e))
