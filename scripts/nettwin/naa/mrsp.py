#!/usr/bin/python3
"""The NAAICE memory-region setup protocol (MRSP, docs/naa.md "MRSP and RPC") - library, no command line.

Written from the seed's diagrams (shared/spec/naaice-rdma-low-level-api.txt), independent of the C++ model
and the RTL. All fields big-endian (the diagrams are RFC style):
  0x01 Advertisement and Request  type, count N, 2 pad; N x (MR flags 8, requested FPGA address 56,
                                  published address 64, published rkey 32, published size 32) = 4 + 24 N
  0x02 Advertisement              type, count N, 2 pad; N x (address 64, rkey 32, size 32)  = 4 + 16 N
  0x00 Error                      type, error code, 2 pad                                     = 4

  MrspHeader / MrspReqEntry / MrspAdvEntry   Scapy layers (MrspHeader's payload: its N entries)
  build_request(entries) / build_grant(regions, first rkey) / build_error(code) -> bytes; grant_rkey(base, g, i)
  decode(msg) -> dict (type, count or code, entries) or raises ValueError
  MrspServer     the reference: the endpoint's checks, grants and answers, from the docs' rules
"""
from scapy.fields import ByteField, IntField, PacketListField, ShortField, XByteField, XIntField, XLongField
from scapy.fields import BitField
from scapy.packet import Packet

MSG_ERROR, MSG_ADV_REQ, MSG_ADV = 0x00, 0x01, 0x02
ERR_NO_MEMORY, ERR_BAD_ADDRESS, ERR_TOO_MANY, ERR_MALFORMED = 0x01, 0x02, 0x03, 0x04
ERR_NAME = {ERR_NO_MEMORY: "not enough memory", ERR_BAD_ADDRESS: "invalid address",
            ERR_TOO_MANY: "too many regions", ERR_MALFORMED: "malformed request"}
NAA_REGIONS = 32       # rtl/common/nt_pkg.sv NaaRegions (the seed's FPGA handles 32 regions)
REQ_ENTRY, ADV_ENTRY = 24, 16


class MrspReqEntry(Packet):
    name = "MRSP request entry"
    fields_desc = [XByteField("flags", 0), BitField("fpga_addr", 0, 56), XLongField("addr", 0), XIntField("rkey", 0),
                   IntField("size", 0)]

    def extract_padding(self, s):
        return b"", s


class MrspAdvEntry(Packet):
    name = "MRSP advertisement entry"
    fields_desc = [XLongField("addr", 0), XIntField("rkey", 0), IntField("size", 0)]

    def extract_padding(self, s):
        return b"", s


class MrspHeader(Packet):
    """Type, count (0x01, 0x02) or error code (0x00), padding, then the entries of the type."""
    name = "MRSP"
    fields_desc = [XByteField("type", MSG_ADV_REQ), ByteField("count", 0), ShortField("pad", 0),
                   PacketListField("entries", [], next_cls_cb=lambda pkt, lst, cur, remain:
                                   None if len(lst) >= (pkt.count if pkt.type in (MSG_ADV_REQ, MSG_ADV) else 0)
                                   else MrspReqEntry if pkt.type == MSG_ADV_REQ else MrspAdvEntry)]


def build_request(entries):
    """entries: dicts with fpga, addr, rkey, size (and optional flags)."""
    return bytes(MrspHeader(type=MSG_ADV_REQ, count=len(entries),
                            entries=[MrspReqEntry(flags=e.get("flags", 0), fpga_addr=e["fpga"], addr=e["addr"],
                                                  rkey=e["rkey"], size=e["size"]) for e in entries]))


def grant_rkey(rkey_base, grant, i):
    """The rkey of region i in the grant-th grant since reset (from 0): rkey_base + 32 grant + i (docs/naa.md
    "Granting": a grant never reuses an earlier grant's rkey, as a NIC changes a key's bits per registration)."""
    return (rkey_base + NAA_REGIONS * grant + i) & 0xFFFFFFFF


def build_grant(regions, rkey_base):
    return bytes(MrspHeader(type=MSG_ADV, count=len(regions),
                            entries=[MrspAdvEntry(addr=r["fpga"], rkey=(rkey_base + i) & 0xFFFFFFFF, size=r["size"])
                                     for i, r in enumerate(regions)]))


def build_error(code):
    return bytes([MSG_ERROR, code, 0, 0])


def decode(msg):
    """A message's fields, checking its length against its count (plain bytes, not the Scapy layers)."""
    if len(msg) < 4:
        raise ValueError(f"{len(msg)} bytes: shorter than the 4-byte MRSP header")
    t, n = msg[0], msg[1]
    if t == MSG_ERROR:
        return {"type": t, "code": n}
    size = {MSG_ADV_REQ: REQ_ENTRY, MSG_ADV: ADV_ENTRY}.get(t)
    if size is None:
        raise ValueError(f"unknown MRSP type 0x{t:02x}")
    if len(msg) < 4 + size * n:
        raise ValueError(f"{len(msg)} bytes: type 0x{t:02x} with {n} entries needs {4 + size * n}")
    entries = []
    for i in range(n):
        e = msg[4 + size * i: 4 + size * (i + 1)]
        if t == MSG_ADV_REQ:
            entries.append({"flags": e[0], "fpga": int.from_bytes(e[1:8], "big"),
                            "addr": int.from_bytes(e[8:16], "big"), "rkey": int.from_bytes(e[16:20], "big"),
                            "size": int.from_bytes(e[20:24], "big")})
        else:
            entries.append({"addr": int.from_bytes(e[0:8], "big"), "rkey": int.from_bytes(e[8:12], "big"),
                            "size": int.from_bytes(e[12:16], "big")})
    return {"type": t, "count": n, "entries": entries}


class MrspServer:
    """The endpoint's MRSP rules (docs/naa.md), from the doc alone: first failing check wins; a grant
    replaces the previous one; the answer is the bytes the endpoint SENDs back."""

    def __init__(self, pool, pool_size, mrs, rkey_base):
        self.pool, self.pool_size, self.mrs, self.rkey_base = pool, pool_size, mrs, rkey_base
        self.regions = []  # the granted regions: dicts fpga, size, host, host_rkey, rkey
        self.grants = 0    # grants since reset: each one's rkeys are new (grant_rkey)

    def check(self, msg):
        """0 for a request that is granted, else the error code."""
        if len(msg) < 4 or msg[0] != MSG_ADV_REQ or msg[1] == 0 or len(msg) < 4 + REQ_ENTRY * msg[1]:
            return ERR_MALFORMED
        n = msg[1]
        if n > NAA_REGIONS or n > self.mrs:
            return ERR_TOO_MANY
        end = self.pool + self.pool_size
        for e in decode(msg)["entries"]:
            if not self.pool <= e["fpga"] < end:
                return ERR_BAD_ADDRESS
            if e["fpga"] + e["size"] > end:
                return ERR_NO_MEMORY
        return 0

    def handle(self, msg):
        code = self.check(msg)
        if code:
            return build_error(code)
        base = grant_rkey(self.rkey_base, self.grants, 0)
        self.grants += 1
        self.regions = [{"fpga": e["fpga"], "size": e["size"], "host": e["addr"], "host_rkey": e["rkey"],
                         "rkey": (base + i) & 0xFFFFFFFF} for i, e in enumerate(decode(msg)["entries"])]
        return build_grant(self.regions, base)

    def disconnect(self):
        self.regions = []
