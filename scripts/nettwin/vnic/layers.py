"""Scapy layer for OPA 16B packets carrying Ethernet (OPA VNIC), written from the spec's field table
(/work/shared/spec/opa-vnic.txt; docs/vnic.md "Packet format").

A 16B packet is a sequence of 64-bit quadwords, each little-endian on the wire (QW bit n is bit n % 8 of
byte n // 8 of the quadword; Linux hfi1 builds the header as little-endian 32-bit words).

  QW0: SLID[19:0] 0-19 | length (quadwords) 20-30 | BECN 31 | DLID[19:0] 32-51 | SC 52-56 | RC 57-59 |
       FECN 60 | L2 61-62 (=0b10, 16B) | LT 63 (=1, head flit)
  QW1: L4 type 0-7 (=0x78 Ethernet) | SLID[23:20] 8-11 | DLID[23:20] 12-15 | PKEY 16-31 | entropy 32-47 |
       reserved 48-63
  QW2: reserved 0-15 | L4 header (veswid) 16-31 | Ethernet bytes from bit 32
  ... Ethernet frame, pad ...
  last QW: Ethernet / pad 0-23 | ICRC 24-55 | Tail (pad byte count) 56-61 | LT 62-63 (=0b01, tail flit)

`OPA16B` builds and dissects the whole packet: the 20 header bytes, the Ethernet frame as its payload
(Scapy's Ether), and the trailer (pad, ICRC, tail) as fields `pad`, `icrc`, `tail_lt`. Fields left None are
computed on build (length, pad, icrc). `icrc16b(bytes)` is the ICRC definition of docs/vnic.md.
"""
import zlib

from scapy.fields import BitField, ByteField, ShortField, XByteField, XIntField, XShortField
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

HDR_LEN = 20
TRAILER_LEN = 5  # ICRC + tail byte
L4_ETH = 0x78
MASK_VARIANT = True  # docs/vnic.md: BECN, SC and FECN count as ones in the ICRC (nt_pkg VnicIcrcMaskVariant)

# (name, quadword, first bit, width) in the spec's order; both the layer and the checker use this table.
HEADER_FIELDS = [
    ("slid_lo", 0, 0, 20), ("length", 0, 20, 11), ("becn", 0, 31, 1), ("dlid_lo", 0, 32, 20),
    ("sc", 0, 52, 5), ("rc", 0, 57, 3), ("fecn", 0, 60, 1), ("l2", 0, 61, 2), ("lt", 0, 63, 1),
    ("l4", 1, 0, 8), ("slid_hi", 1, 8, 4), ("dlid_hi", 1, 12, 4), ("pkey", 1, 16, 16), ("entropy", 1, 32, 16),
    ("rsvd1", 1, 48, 16), ("rsvd2", 2, 0, 16), ("veswid", 2, 16, 16),
]


def qwords(hdr20):
    """The 2.5 header quadwords of 20 bytes as little-endian integers."""
    return [int.from_bytes(hdr20[0:8], "little"), int.from_bytes(hdr20[8:16], "little"),
            int.from_bytes(hdr20[16:20], "little")]


def decode_header(pkt):
    """{field: value} of the first 20 bytes (needs len(pkt) >= 20), plus combined 24-bit slid and dlid."""
    q = qwords(bytes(pkt[:HDR_LEN]))
    f = {name: (q[w] >> lsb) & ((1 << width) - 1) for name, w, lsb, width in HEADER_FIELDS}
    f["slid"] = f["slid_lo"] | f["slid_hi"] << 20
    f["dlid"] = f["dlid_lo"] | f["dlid_hi"] << 20
    return f


def encode_header(f):
    """20 header bytes from {field: value} (slid/dlid 24 bits; missing fields 0)."""
    g = dict(f)
    g.setdefault("slid_lo", g.get("slid", 0) & 0xFFFFF)
    g.setdefault("slid_hi", g.get("slid", 0) >> 20)
    g.setdefault("dlid_lo", g.get("dlid", 0) & 0xFFFFF)
    g.setdefault("dlid_hi", g.get("dlid", 0) >> 20)
    q = [0, 0, 0]
    for name, w, lsb, width in HEADER_FIELDS:
        v = g.get(name, 0)
        if v >> width:
            raise ValueError(f"{name}={v:#x} does not fit {width} bits")
        q[w] |= v << lsb
    return q[0].to_bytes(8, "little") + q[1].to_bytes(8, "little") + q[2].to_bytes(4, "little")


def icrc16b(data, mask_variant=MASK_VARIANT):
    """CRC-32 (zlib) over `data` = every byte before the ICRC, with QW0's BECN (bit 31), SC (bits 52-56)
    and FECN (bit 60) read as ones."""
    b = bytearray(data)
    if mask_variant and len(b) >= 8:
        b[3] |= 0x80
        b[6] |= 0xF0
        b[7] |= 0x11
    return zlib.crc32(bytes(b)) & 0xFFFFFFFF


def pad_for(eth_len):
    return -(eth_len + HDR_LEN + TRAILER_LEN) % 8


class OPA16B(Packet):
    name = "OPA 16B (VNIC)"
    fields_desc = [
        BitField("slid", 0, 24), ShortField("length", None), BitField("becn", 0, 1), BitField("dlid", 0, 24),
        BitField("sc", 0, 5), BitField("rc", 0, 3), BitField("fecn", 0, 1), BitField("l2", 2, 2),
        BitField("lt", 1, 1), XByteField("l4", L4_ETH), XShortField("pkey", 0x8001), ShortField("entropy", 0),
        XShortField("rsvd1", 0), XShortField("rsvd2", 0), ShortField("veswid", 0),
        ByteField("pad", None), XIntField("icrc", None), ByteField("tail_lt", 1),
    ]

    def self_build(self, field_pos_list=None):
        f = {k: self.getfieldval(k) for k in ("slid", "becn", "dlid", "sc", "rc", "fecn", "l2", "lt", "l4", "pkey",
                                              "entropy", "rsvd1", "rsvd2", "veswid")}
        f["length"] = 0  # patched in post_build
        return encode_header(f)

    def post_build(self, pkt, pay):
        eth_len = len(pay)
        pad = self.pad if self.pad is not None else pad_for(eth_len)
        total = HDR_LEN + eth_len + (pad & 7) + TRAILER_LEN
        length = self.length if self.length is not None else (total + 7) // 8
        q0 = int.from_bytes(pkt[0:8], "little") | (length & 0x7FF) << 20
        body = q0.to_bytes(8, "little") + pkt[8:] + pay + b"\0" * (pad & 7)
        icrc = self.icrc if self.icrc is not None else icrc16b(body)
        return body + icrc.to_bytes(4, "little") + bytes([(self.tail_lt & 3) << 6 | (pad & 0x3F)])

    def do_dissect(self, s):
        s = bytes(s)
        f = decode_header(s)
        for k in ("slid", "length", "becn", "dlid", "sc", "rc", "fecn", "l2", "lt", "l4", "pkey", "entropy",
                  "rsvd1", "rsvd2", "veswid"):
            self.fields[k] = f[k]
        tail = s[-1]
        self.fields["pad"] = tail & 0x3F
        self.fields["tail_lt"] = tail >> 6
        self.fields["icrc"] = int.from_bytes(s[-5:-1], "little")
        # the payload: the Ethernet frame (the trailer stays in this layer's fields)
        return s[HDR_LEN:max(HDR_LEN, len(s) - TRAILER_LEN - (tail & 7))]

    def guess_payload_class(self, payload):
        return Ether if self.l4 == L4_ETH else Raw

    def icrc_ok(self):
        raw = bytes(self.original) if self.original else bytes(self)
        return len(raw) >= 8 and icrc16b(raw[:-5]) == int.from_bytes(raw[-5:-1], "little")
