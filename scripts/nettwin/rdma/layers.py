#!/usr/bin/python3
"""Scapy layers and helpers for the RoCEv2 responder (docs/rdma.md) - library, no command line.

Adds to scapy.contrib.roce (BTH, AETH; Scapy 2.5):
  RETH (16: va 64, rkey 32, dlen 32)        WRITE first 0x06 / only 0x0A / only-imm 0x0B, READ 0x0C
  ImmDt (4: imm 32)                         *_WITH_IMMEDIATE: 0x03, 0x05, 0x09 after BTH, 0x0B after RETH
  AtomicETH (28: va, rkey, swap_add, compare) CAS 0x13, FAA 0x14
  AtomicAckETH (8: orig)                    ATOMIC ACK 0x12, after AETH
  AETH is also bound for READ RESPONSE first 0x0D / last 0x0F / only 0x10 and ATOMIC ACK 0x12
  (Scapy binds it for ACK 0x11).  AETH -> AtomicAckETH only when the BTH opcode is 0x12 (READ
  responses carry data after the AETH), done by wrapping AETH.guess_payload_class.

ICRC (docs/rdma.md "ICRC", IBA 17.3.3 / Annex A17), for IPv4 and IPv6:
  icrc(frame) -> 4 bytes  the ICRC the frame must carry (whatever its last 4 bytes hold now)
  check_icrc(frame) -> bool
  CRC-32 (zlib.crc32) over 8 bytes of 0xFF + the IP datagram up to (not including) the ICRC, with
  IPv4 TOS/TTL/header checksum, IPv6 traffic class/flow label/hop limit, the UDP checksum and BTH
  byte 4 (FECN/BECN/resv6) replaced by ones; sent least significant byte first.  The datagram is
  delimited by the IP length field (bytes after it, e.g. Ethernet padding, are not covered).
  For IPv4 this equals Scapy's BTH.compute_icrc (tested in nettwin/rdma/test_ref.py).

Builder:
  build_request(family, src_mac, dst_mac, src_ip, dst_ip, sport, opcode, dqpn, psn, ...) -> bytes
  Ether / IPv4 or IPv6 / UDP 4791 / BTH / ext headers / payload / pad / ICRC, built with Scapy, ICRC
  from icrc() (corrupt_icrc=True flips one bit of it).

  from nettwin.rdma.layers import BTH, AETH, RETH, ImmDt, AtomicETH, AtomicAckETH, icrc, check_icrc
"""
import struct
import zlib

from scapy.contrib.roce import AETH, BTH
from scapy.fields import IntField, XIntField, XLongField
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw, bind_layers

ROCE_PORT = 4791
ETH_IPV4, ETH_IPV6 = 0x0800, 0x86DD

# RC opcodes (IBA table 35)
OP = {
    "SEND_FIRST": 0x00, "SEND_MIDDLE": 0x01, "SEND_LAST": 0x02, "SEND_LAST_IMM": 0x03,
    "SEND_ONLY": 0x04, "SEND_ONLY_IMM": 0x05,
    "WRITE_FIRST": 0x06, "WRITE_MIDDLE": 0x07, "WRITE_LAST": 0x08, "WRITE_LAST_IMM": 0x09,
    "WRITE_ONLY": 0x0A, "WRITE_ONLY_IMM": 0x0B,
    "READ": 0x0C,
    "READ_RESP_FIRST": 0x0D, "READ_RESP_MIDDLE": 0x0E, "READ_RESP_LAST": 0x0F, "READ_RESP_ONLY": 0x10,
    "ACK": 0x11, "ATOMIC_ACK": 0x12, "CAS": 0x13, "FAA": 0x14,
}
OP_NAME = {v: k for k, v in OP.items()}

# Extension header bytes after the BTH, per RC opcode.
EXT_LEN = {0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4,
           0x06: 16, 0x07: 0, 0x08: 0, 0x09: 4, 0x0A: 16, 0x0B: 20, 0x0C: 16,
           0x0D: 4, 0x0E: 0, 0x0F: 4, 0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28}


def op_name(opcode):
    return OP_NAME.get(opcode, f"opcode 0x{opcode:02x}")


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]

    def guess_payload_class(self, payload):
        bth = self.underlayer
        if isinstance(bth, BTH) and bth.opcode == OP["WRITE_ONLY_IMM"]:
            return ImmDt
        return Packet.guess_payload_class(self, payload)


class ImmDt(Packet):
    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]


class AtomicETH(Packet):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0),
                   XLongField("swap_add", 0), XLongField("compare", 0)]


class AtomicAckETH(Packet):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]


for _op in (0x06, 0x0A, 0x0B, 0x0C):
    bind_layers(BTH, RETH, opcode=_op)
for _op in (0x03, 0x05, 0x09):
    bind_layers(BTH, ImmDt, opcode=_op)
for _op in (0x13, 0x14):
    bind_layers(BTH, AtomicETH, opcode=_op)
for _op in (0x0D, 0x0F, 0x10, 0x12):
    bind_layers(BTH, AETH, opcode=_op)

if not getattr(AETH, "_nettwin_patched", False):
    _aeth_guess_orig = AETH.guess_payload_class

    def _aeth_guess(self, payload):
        bth = self.underlayer
        if isinstance(bth, BTH) and bth.opcode == OP["ATOMIC_ACK"]:
            return AtomicAckETH
        return _aeth_guess_orig(self, payload)

    AETH.guess_payload_class = _aeth_guess
    AETH._nettwin_patched = True


# ---------------------------------------------------------------------------------------------
# ICRC
# ---------------------------------------------------------------------------------------------

def _icrc_span(frame):
    """(masked bytes covered by the ICRC, offset of the ICRC in frame) or None when the frame
    is not Ethernet / IPv4|IPv6 / UDP long enough to hold a BTH and an ICRC."""
    f = bytes(frame)
    if len(f) < 14:
        return None
    et = (f[12] << 8) | f[13]
    if et == ETH_IPV4:
        if len(f) < 34:
            return None
        hl = (f[14] & 0x0F) * 4
        end = 14 + ((f[16] << 8) | f[17])
        ip = bytearray(f[14:min(end, len(f))])
        if hl < 20 or len(ip) < hl + 8 + 12 + 4:
            return None
        ip[1] = 0xFF                       # TOS
        ip[8] = 0xFF                       # TTL
        ip[10:12] = b"\xff\xff"            # header checksum
    elif et == ETH_IPV6:
        if len(f) < 54:
            return None
        hl = 40
        end = 54 + ((f[18] << 8) | f[19])
        ip = bytearray(f[14:min(end, len(f))])
        if len(ip) < hl + 8 + 12 + 4:
            return None
        ip[0] |= 0x0F                      # traffic class (high nibble)
        ip[1:4] = b"\xff\xff\xff"          # traffic class (low nibble), flow label
        ip[7] = 0xFF                       # hop limit
    else:
        return None
    ip[hl + 6:hl + 8] = b"\xff\xff"        # UDP checksum
    ip[hl + 8 + 4] = 0xFF                  # BTH byte 4: FECN, BECN, resv6
    return b"\xff" * 8 + bytes(ip[:-4]), 14 + len(ip) - 4


def icrc(frame):
    """The 4 ICRC bytes (as sent: least significant byte first) for an Ethernet RoCEv2 frame.
    The frame's current ICRC bytes are ignored.  ValueError if it is not a RoCEv2 frame."""
    span = _icrc_span(frame)
    if span is None:
        raise ValueError("not an Ethernet/IP/UDP frame long enough for BTH + ICRC")
    return struct.pack("<I", zlib.crc32(span[0]) & 0xFFFFFFFF)


def check_icrc(frame):
    """True when the frame carries the right ICRC (at the end of its UDP datagram)."""
    if isinstance(frame, Packet):
        frame = bytes(frame)
    span = _icrc_span(frame)
    if span is None:
        return False
    off = span[1]
    return bytes(frame[off:off + 4]) == struct.pack("<I", zlib.crc32(span[0]) & 0xFFFFFFFF)


def set_icrc(frame, corrupt=False):
    """frame with its ICRC bytes recomputed (one bit flipped when corrupt)."""
    span = _icrc_span(frame)
    if span is None:
        raise ValueError("not an Ethernet/IP/UDP frame long enough for BTH + ICRC")
    c = bytearray(struct.pack("<I", zlib.crc32(span[0]) & 0xFFFFFFFF))
    if corrupt:
        c[0] ^= 0x01
    f = bytearray(frame)
    f[span[1]:span[1] + 4] = c
    return bytes(f)


# ---------------------------------------------------------------------------------------------
# Request builder
# ---------------------------------------------------------------------------------------------

def build_request(family, src_mac, dst_mac, src_ip, dst_ip, sport, opcode, dqpn, psn,
                  ackreq=False, ext=(), payload=b"", pad=None, pad_bytes=None,
                  corrupt_icrc=False, solicited=0, migreq=0, pkey=0xFFFF, tver=0,
                  fecn=0, becn=0, resv6=0, tos=0, ttl=64, ip_id=0, ip_flags="DF",
                  flow=0, hlim=64, udp_chksum=0, dport=ROCE_PORT):
    """One RoCEv2 request frame (bytes) with a correct ICRC (or a corrupted one).

    family: 4 or 6.  ext: Scapy layers (RETH(...), ImmDt(...), AtomicETH(...)) or raw bytes,
    in order.  pad: BTH pad count; None = (4 - len(payload) % 4) % 4.  pad_bytes: the pad bytes
    themselves (default zeros, `pad` of them).  tos/ttl/ip_id/ip_flags (IPv4), flow/hlim (IPv6),
    udp_chksum, fecn/becn/resv6 let a test vary the fields the ICRC masks."""
    if pad is None:
        pad = (4 - len(payload) % 4) % 4
    if pad_bytes is None:
        pad_bytes = bytes(pad)
    if family == 4:
        l3 = IP(src=src_ip, dst=dst_ip, tos=tos, ttl=ttl, id=ip_id, flags=ip_flags)
    elif family == 6:
        l3 = IPv6(src=src_ip, dst=dst_ip, tc=tos, fl=flow, hlim=hlim)
    else:
        raise ValueError(f"family {family}")
    p = (Ether(src=src_mac, dst=dst_mac) / l3 / UDP(sport=sport, dport=dport, chksum=udp_chksum)
         / BTH(opcode=opcode, solicited=solicited, migreq=migreq, padcount=pad, version=tver,
               pkey=pkey, fecn=fecn, becn=becn, resv6=resv6, dqpn=dqpn, ackreq=int(bool(ackreq)),
               psn=psn, icrc=0))
    for h in ext:
        p = p / (Raw(h) if isinstance(h, (bytes, bytearray)) else h)
    data = bytes(payload) + bytes(pad_bytes)
    if data:
        p = p / Raw(data)
    return set_icrc(bytes(p), corrupt=corrupt_icrc)


def fix_ipv4_checksum(frame):
    """frame with its IPv4 header checksum recomputed (unchanged for other frames)."""
    from scapy.utils import checksum
    f = bytearray(frame)
    if len(f) >= 34 and f[12:14] == b"\x08\x00":
        hl = (f[14] & 0x0F) * 4
        if len(f) >= 14 + hl:
            f[24:26] = b"\0\0"
            f[24:26] = checksum(bytes(f[14:14 + hl])).to_bytes(2, "big")
    return bytes(f)
