#!/usr/bin/python3
"""Independent Python reference of the RoCEv2 responder with atomic ACK queue (docs/rdma.md).

Written from docs/rdma.md (and the IBA RC rules it takes for granted) only, never from the C++
model or the RTL: its own config parser, PSN / Go-Back-N state, AQ + AQC and sparse host memory.
Packets are parsed and responses built on raw bytes (no Scapy, which is only used for pcap I/O),
with its own ICRC; rdma_check.py decodes everything again with Scapy (roce_layers.py).

  /usr/bin/python3 scripts/rdma_ref.py --config C --in REQ.pcap --out EXPECTED.pcap \
      --mem-out MEM.json [--stats S.json] [--trace T.txt] [--aq-linear] [--atomic-endian little|big]

Writes the expected responses (in request order, each with its request's timestamp), the final
memory of every MR as JSON {"<rkey decimal>": "<hex of the region's bytes>"}, optionally the
stats JSON and a trace (one line per request: index, verdict, QP, PSN, opcode, responses, detail).
Exit 0, or 2 on unusable input (config error `file:line: token 'tok': message`, unreadable pcap).

Readings of docs/rdma.md where it is silent (see also the RDMA section of scripts/README.md):
  * the drop checks run in the order the contract lists them: runt/malformed, not_for_us,
    bad_icrc, unknown_qp, not_request;
  * one request at a time (docs/rdma.md "Interpretations"): the max_rd_atomic limit cannot be
    exceeded, so it never NAKs; max_rd_atomic only sizes the AQ (0 is a config error);
  * ATOMIC operands are 64-bit little-endian in host memory (docs/rdma.md), the AQE and
    AtomicAckETH big-endian (--atomic-endian big switches host memory to big-endian, to compare);
  * MSN is incremented when a READ request is executed; all its AETHs carry the new value;
  * SEND / WRITE with immediate (docs/rdma.md "Receive and completion queues"): the five RQ/CQ
    fields of a qp line come together or not at all (rnr_timer alone is allowed, default 1);
    rq_entries 0 means no RQ (then rq_posted must be 0); rq_posted above rq_entries is a config
    error (the host cannot have posted more WQEs than the ring holds before any was consumed);
    an open SEND message keeps its WQE (read once, at the first packet); the WQE is consumed and
    the RQ head advances only when the message completes; a NAK for a SEND MIDDLE/LAST or for a
    WRITE LAST (with immediate) leaves the message open, like any NAK;
  * the CQE's QPN is the responder's own QP number (the qp line's <qpn>), as ibverbs' wc.qp_num.
"""
import argparse
import ipaddress
import json
import struct
import sys
import zlib
from dataclasses import dataclass, field
from typing import List, Optional

from nettwin.common.pcap import InputError, read_pcap, write_pcap  # noqa: F401

PSN_MOD = 1 << 24
HALF = 1 << 23
ROCE_PORT = 4791
ETH_IPV4, ETH_IPV6 = 0x0800, 0x86DD
MTUS = (256, 512, 1024, 2048, 4096)
AQ_GROUP = 64
AQE_BYTES = 16
MAX_MR_LEN = 1 << 28          # the memory JSON holds every MR byte
MAX_RD_ATOMIC = 1 << 16
MAX_READ_LEN = 1 << 31

# Drop reasons in check order (docs/rdma.md "Request processing").
DROP_REASONS = ("runt", "malformed", "not_for_us", "bad_icrc", "unknown_qp", "not_request",
                "psn_ahead_silent")

SYN_ACK = 0x1F
SYN_PSN_SEQ, SYN_INVALID, SYN_ACCESS, SYN_OPERATIONAL = 0x60, 0x61, 0x62, 0x63
SYN_RNR = 0x20                # | rnr_timer
WQE_BYTES, CQE_BYTES = 16, 32
CQE_SEND, CQE_WRITE_IMM = 0, 1
RQ_KEYS = ("rq", "rq_entries", "rq_posted", "cq", "cq_entries")

# RC opcodes
S_FIRST, S_MIDDLE, S_LAST, S_LAST_IMM, S_ONLY, S_ONLY_IMM = 0x00, 0x01, 0x02, 0x03, 0x04, 0x05
SEND_OPS = (S_FIRST, S_MIDDLE, S_LAST, S_LAST_IMM, S_ONLY, S_ONLY_IMM)
W_FIRST, W_MIDDLE, W_LAST, W_LAST_IMM, W_ONLY, W_ONLY_IMM = 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B
WRITE_OPS = (W_FIRST, W_MIDDLE, W_LAST, W_LAST_IMM, W_ONLY, W_ONLY_IMM)
READ_REQ = 0x0C
RR_FIRST, RR_MIDDLE, RR_LAST, RR_ONLY = 0x0D, 0x0E, 0x0F, 0x10
ACK_OP, ATOMIC_ACK_OP = 0x11, 0x12
CAS, FAA = 0x13, 0x14
RESPONSE_OPS = (RR_FIRST, RR_MIDDLE, RR_LAST, RR_ONLY, ACK_OP, ATOMIC_ACK_OP)
# bytes of extension headers after the BTH
EXT = {0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4,
       0x06: 16, 0x07: 0, 0x08: 0, 0x09: 4, 0x0A: 16, 0x0B: 20, 0x0C: 16,
       0x0D: 4, 0x0E: 0, 0x0F: 4, 0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28}
NAMES = {0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST", 0x03: "SEND_LAST_IMM",
         0x04: "SEND_ONLY", 0x05: "SEND_ONLY_IMM", 0x06: "WRITE_FIRST", 0x07: "WRITE_MIDDLE",
         0x08: "WRITE_LAST", 0x09: "WRITE_LAST_IMM", 0x0A: "WRITE_ONLY", 0x0B: "WRITE_ONLY_IMM",
         0x0C: "READ", 0x0D: "READ_RESP_FIRST", 0x0E: "READ_RESP_MIDDLE", 0x0F: "READ_RESP_LAST",
         0x10: "READ_RESP_ONLY", 0x11: "ACK", 0x12: "ATOMIC_ACK", 0x13: "CAS", 0x14: "FAA"}


def opname(op):
    return NAMES.get(op, f"opcode 0x{op:02x}")


# =============================================================================================
# Configuration
# =============================================================================================

class ConfigError(Exception):
    """A config error, formatted `file:line: token 'tok': message`."""

    def __init__(self, path, line, tok, message):
        self.path, self.line, self.tok, self.message = path, line, tok, message
        where = f"{path}:{line}: " if line else f"{path}: "
        super().__init__(where + (f"token '{tok}': " if tok is not None else "") + message)


@dataclass
class QPConf:
    qpn: int
    dest_qp: int
    epsn: int
    mtu: int
    max_rd_atomic: int
    aq: int
    line: int = 0
    rq: int = 0                  # receive queue (docs/rdma.md "Receive and completion queues")
    rq_entries: int = 0          # 0: no RQ
    rq_posted: int = 0
    cq: int = 0
    cq_entries: int = 0
    rnr_timer: int = 1

    @property
    def has_rq(self):
        return self.rq_entries > 0

    def wqe_pa(self, i):
        return self.rq + WQE_BYTES * (i % self.rq_entries)

    def cqe_pa(self, j):
        return self.cq + CQE_BYTES * (j % self.cq_entries)

    @property
    def depth(self):
        """AQ entries: max_rd_atomic rounded up to a multiple of the group size."""
        return -(-self.max_rd_atomic // AQ_GROUP) * AQ_GROUP


@dataclass
class MR:
    rkey: int
    va: int
    length: int
    pa: int
    access: str
    line: int = 0


@dataclass
class Config:
    mac: bytes = b""
    ip4: Optional[bytes] = None
    ip6: Optional[bytes] = None
    qps: dict = field(default_factory=dict)      # qpn -> QPConf (config order)
    mrs: dict = field(default_factory=dict)      # rkey -> MR (config order)
    mem: list = field(default_factory=list)      # [(pa, bytes)]
    aq_linear: bool = False                      # responder ... aq_mode linear


def parse_config(text, path="config"):
    cfg = Config()
    have_responder = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        toks = raw.split("#", 1)[0].split()
        if not toks:
            continue
        d = toks[0]

        def err(tok, msg, _l=lineno):
            return ConfigError(path, _l, tok, msg)

        def num(tok, bits, what):
            t = tok.lower()
            if t.startswith("0x") and len(t) > 2 and all(c in "0123456789abcdef" for c in t[2:]):
                v = int(t[2:], 16)
            elif t.isdigit() and t.isascii():
                v = int(t, 10)
            else:
                raise err(tok, f"{what}: not a number (decimal or 0x hex)")
            if v >= 1 << bits:
                raise err(tok, f"{what}: out of range (must be below 2^{bits})")
            return v

        def pairs(start, keys):
            """keyword value pairs -> {key: (value token)}; every key required."""
            got = {}
            i = start
            while i < len(toks):
                k = toks[i]
                if k not in keys:
                    raise err(k, f"unknown keyword for '{d}' (expected one of: {', '.join(keys)})")
                if k in got:
                    raise err(k, "given twice")
                if i + 1 >= len(toks):
                    raise err(k, "missing value")
                got[k] = toks[i + 1]
                i += 2
            return got

        if d == "responder":
            if have_responder:
                raise err(d, "second 'responder' line")
            have_responder = True
            kv = pairs(1, ("mac", "ip", "ip6", "aq_mode"))
            if "mac" not in kv:
                raise err(d, "missing 'mac'")
            m = kv["mac"].split(":")
            if len(m) != 6 or not all(len(x) == 2 and all(c in "0123456789abcdefABCDEF" for c in x) for x in m):
                raise err(kv["mac"], "not a MAC address (xx:xx:xx:xx:xx:xx)")
            cfg.mac = bytes(int(x, 16) for x in m)
            if cfg.mac[0] & 1:
                raise err(kv["mac"], "multicast MAC address")
            if "ip" not in kv and "ip6" not in kv:
                raise err(d, "needs 'ip' or 'ip6' (or both)")
            if "ip" in kv:
                try:
                    cfg.ip4 = ipaddress.IPv4Address(kv["ip"]).packed
                except ValueError:
                    raise err(kv["ip"], "not an IPv4 address") from None
            if "aq_mode" in kv:
                if kv["aq_mode"] not in ("grouped", "linear"):
                    raise err(kv["aq_mode"], "aq_mode must be grouped or linear")
                cfg.aq_linear = kv["aq_mode"] == "linear"
            if "ip6" in kv:
                try:
                    cfg.ip6 = ipaddress.IPv6Address(kv["ip6"]).packed
                except ValueError:
                    raise err(kv["ip6"], "not an IPv6 address") from None
        elif d == "qp":
            if len(toks) < 2:
                raise err(d, "missing QP number")
            qpn = num(toks[1], 24, "qpn")
            if qpn in cfg.qps:
                raise err(toks[1], f"QP 0x{qpn:x} already defined on line {cfg.qps[qpn].line}")
            keys = ("dest_qp", "epsn", "mtu", "max_rd_atomic", "aq")
            kv = pairs(2, keys + RQ_KEYS + ("rnr_timer",))
            for k in keys:
                if k not in kv:
                    raise err(d, f"missing '{k}'")
            given = [k for k in RQ_KEYS if k in kv]
            if given and len(given) != len(RQ_KEYS):
                k = next(k for k in RQ_KEYS if k not in kv)
                raise err(d, f"missing '{k}' ({', '.join(RQ_KEYS)} go together)")
            mtu = num(kv["mtu"], 16, "mtu")
            if mtu not in MTUS:
                raise err(kv["mtu"], "mtu must be 256, 512, 1024, 2048 or 4096")
            mra = num(kv["max_rd_atomic"], 64, "max_rd_atomic")
            if mra > MAX_RD_ATOMIC:
                raise err(kv["max_rd_atomic"], f"max_rd_atomic above {MAX_RD_ATOMIC}")
            if mra < 1:
                raise err(kv["max_rd_atomic"], "max_rd_atomic must be at least 1 (it sizes the AQ)")
            q = QPConf(qpn, num(kv["dest_qp"], 24, "dest_qp"), num(kv["epsn"], 24, "epsn"), mtu,
                       mra, num(kv["aq"], 64, "aq"), lineno)
            if q.aq + q.depth * AQE_BYTES > 1 << 64:
                raise err(kv["aq"], "AQ runs past the end of the 64-bit address space")
            if "rnr_timer" in kv:
                q.rnr_timer = num(kv["rnr_timer"], 8, "rnr_timer")
                if q.rnr_timer > 31:
                    raise err(kv["rnr_timer"], "rnr_timer must be 0..31")
            if given:
                q.rq = num(kv["rq"], 64, "rq")
                q.rq_entries = num(kv["rq_entries"], 32, "rq_entries")
                q.rq_posted = num(kv["rq_posted"], 32, "rq_posted")
                q.cq = num(kv["cq"], 64, "cq")
                q.cq_entries = num(kv["cq_entries"], 32, "cq_entries")
                if q.rq_posted > q.rq_entries:
                    raise err(kv["rq_posted"], f"rq_posted above rq_entries {q.rq_entries} (the ring holds "
                              "at most rq_entries posted WQEs)")
                if q.rq_entries and not q.cq_entries:
                    raise err(kv["cq_entries"], "cq_entries must be at least 1 when the QP has an RQ")
                if q.rq + q.rq_entries * WQE_BYTES > 1 << 64:
                    raise err(kv["rq"], "RQ runs past the end of the 64-bit address space")
                if q.cq + q.cq_entries * CQE_BYTES > 1 << 64:
                    raise err(kv["cq"], "CQ runs past the end of the 64-bit address space")
            cfg.qps[qpn] = q
        elif d == "mr":
            if len(toks) < 2:
                raise err(d, "missing rkey")
            rkey = num(toks[1], 32, "rkey")
            if rkey in cfg.mrs:
                raise err(toks[1], f"rkey 0x{rkey:x} already defined on line {cfg.mrs[rkey].line}")
            keys = ("va", "len", "pa", "access")
            kv = pairs(2, keys)
            for k in keys:
                if k not in kv:
                    raise err(d, f"missing '{k}'")
            va, ln, pa = num(kv["va"], 64, "va"), num(kv["len"], 64, "len"), num(kv["pa"], 64, "pa")
            if ln > MAX_MR_LEN:
                raise err(kv["len"], "MR longer than 2^28 bytes (not supported: the memory JSON holds it)")
            if va + ln > 1 << 64:
                raise err(kv["len"], "va + len runs past 2^64")
            if pa + ln > 1 << 64:
                raise err(kv["len"], "pa + len runs past 2^64")
            acc = kv["access"]
            if not acc or any(c not in "rwa" for c in acc) or len(set(acc)) != len(acc):
                raise err(acc, "access must be a combination of r, w, a (each at most once)")
            cfg.mrs[rkey] = MR(rkey, va, ln, pa, acc, lineno)
        elif d == "mem":
            if len(toks) != 3:
                raise err(toks[-1] if len(toks) > 1 else d, "expected: mem <pa> <hex bytes>")
            pa = num(toks[1], 64, "pa")
            h = toks[2]
            if len(h) % 2 or any(c not in "0123456789abcdefABCDEF" for c in h):
                raise err(h if len(h) <= 40 else h[:37] + "...",
                          "not an even number of hex digits")
            data = bytes.fromhex(h)
            if pa + len(data) > 1 << 64:
                raise err(toks[1], "data runs past 2^64")
            cfg.mem.append((pa, data))
        else:
            raise err(d, "unknown directive (expected responder, qp, mr or mem)")
    if not have_responder:
        raise ConfigError(path, 0, None, "no 'responder' line")
    return cfg


def load_config(path):
    with open(path, encoding="utf-8") as f:
        return parse_config(f.read(), path)


# =============================================================================================
# Host memory (sparse, 4 KiB pages, zero-initialised)
# =============================================================================================

class Memory:
    PAGE = 4096

    def __init__(self):
        self.pages = {}
        self.writer = {}          # pa -> index of the request whose DMA last wrote it

    def read(self, pa, n):
        out = bytearray()
        while n > 0:
            pg, off = divmod(pa, self.PAGE)
            k = min(n, self.PAGE - off)
            p = self.pages.get(pg)
            out += p[off:off + k] if p is not None else bytes(k)
            pa += k
            n -= k
        return bytes(out)

    def write(self, pa, data, who=None):
        i = 0
        while i < len(data):
            pg, off = divmod(pa + i, self.PAGE)
            k = min(len(data) - i, self.PAGE - off)
            p = self.pages.get(pg)
            if p is None:
                p = self.pages[pg] = bytearray(self.PAGE)
            p[off:off + k] = data[i:i + k]
            if who is not None:
                for j in range(k):
                    self.writer[pa + i + j] = who
            i += k


# =============================================================================================
# ICRC (own implementation; rdma_check.py also checks with roce_layers.check_icrc)
# =============================================================================================

def icrc_of(datagram, ipv6):
    """ICRC bytes for an IP datagram (IP header .. payload, without the ICRC)."""
    d = bytearray(datagram)
    if ipv6:
        hl = 40
        d[0] |= 0x0F
        d[1] = d[2] = d[3] = 0xFF
        d[7] = 0xFF
    else:
        hl = (d[0] & 0x0F) * 4
        d[1] = 0xFF
        d[8] = 0xFF
        d[10] = d[11] = 0xFF
    d[hl + 6] = d[hl + 7] = 0xFF
    d[hl + 12] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(d)) & 0xFFFFFFFF)


def ip4_checksum(hdr):
    s = sum((hdr[i] << 8) | hdr[i + 1] for i in range(0, len(hdr), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


# =============================================================================================
# The responder
# =============================================================================================

@dataclass
class Req:
    """A parsed request frame."""
    ipv6: bool
    src_mac: bytes
    dst_mac: bytes
    src_ip: bytes
    dst_ip: bytes
    sport: int
    opcode: int
    ackreq: bool
    dqpn: int
    psn: int
    ext: bytes
    payload: bytes
    datagram: bytes       # IP header .. ICRC


@dataclass
class Verdict:
    kind: str                         # exec / dup / dup-nak-inv / dup-nak-acc / nak-seq / nak-inv /
    #                                   nak-acc / nak-rnr / drop:<reason>
    reason: Optional[str] = None      # drop reason (None = answered)
    responses: List[bytes] = field(default_factory=list)
    detail: str = ""
    qpn: Optional[int] = None
    psn: Optional[int] = None
    opcode: Optional[int] = None


@dataclass
class WriteCtx:
    mr: MR
    pa: int          # next byte
    dlen: int
    done: int


@dataclass
class SendCtx:
    """An open multi-packet SEND: the WQE it is being received into."""
    wqe: int         # RQ index (head) of the WQE
    buf: int         # buffer address
    buf_len: int
    wr_id: int
    done: int        # bytes received so far


@dataclass
class CQE:
    """A completion the reference wrote (for the checker's CQE-aware messages)."""
    qpn: int
    index: int       # j: the j-th CQE of the QP (slot j mod cq_entries)
    pa: int
    wr_id: int
    byte_count: int
    imm: Optional[bytes]
    opcode: int
    psn: int
    request: Optional[int]

    def to_bytes(self):
        return cqe_bytes(self.wr_id, self.byte_count, self.imm, self.qpn, self.opcode, self.psn)


def wqe_bytes(buf, buf_len, wr_id):
    """A receive WQE as host software writes it (docs/rdma.md: 16 bytes, little-endian)."""
    return struct.pack("<QII", buf, buf_len, wr_id)


def parse_wqe(b):
    return struct.unpack("<QII", b)


def cqe_bytes(wr_id, byte_count, imm, qpn, opcode, psn):
    """A CQE (docs/rdma.md: 32 bytes, little-endian; the immediate as it was on the wire)."""
    return (struct.pack("<II", wr_id, byte_count) + (imm if imm is not None else bytes(4))
            + struct.pack("<IBBHI", qpn, opcode, 1 if imm is not None else 0, 0, psn) + bytes(8))


CQE_FIELDS = (("wr_id", 0, 4), ("byte_count", 4, 8), ("imm_data", 8, 12), ("qpn", 12, 16),
              ("opcode", 16, 17), ("flags", 17, 18), ("zero 18..19", 18, 20), ("psn", 20, 24),
              ("zero 24..31", 24, 32))


class QPState:
    def __init__(self, conf):
        self.conf = conf
        self.epsn = conf.epsn
        self.msn = 0
        self.nak_sent = False        # a NAK went out; ahead packets are silent until the ePSN
        self.write = None            # WriteCtx of an open multi-packet WRITE
        self.aq_w = 0                # AQ write index
        self.aqc = [None] * (conf.depth // AQ_GROUP)   # per group: start PSN, None = invalid
        self.send = None             # SendCtx of an open multi-packet SEND
        self.rq_head = 0             # next receive WQE to consume
        self.cq_index = 0            # CQEs written


class Responder:
    def __init__(self, cfg, aq_linear=False, atomic_endian="little"):
        self.cfg = cfg
        self.aq_linear = aq_linear or cfg.aq_linear
        self.endian = atomic_endian
        self.mem = Memory()
        for pa, data in cfg.mem:
            self.mem.write(pa, data)
        self.qps = {q: QPState(c) for q, c in cfg.qps.items()}
        self.st = {"acks": 0, "atomic_acks": 0, "read_responses": 0, "naks": {},
                   "atomics_executed": 0, "atomic_replays": 0, "read_replays": 0,
                   "writes_executed": 0, "reads_executed": 0, "sends_executed": 0,
                   "wqes_consumed": 0, "cqes_written": 0}
        self.cqes = []               # [CQE] in the order written
        self._wqe = None             # the WQE a SEND FIRST/ONLY read (send_check -> exec_send)

    # ---------------------------------------------------------------- parsing
    def parse(self, f):
        """Req, or (reason, detail) for runt / malformed."""
        n = len(f)
        if n < 14:
            return "runt", f"{n} bytes"
        et = (f[12] << 8) | f[13]
        if et == ETH_IPV4:
            if n < 34:
                return "runt", f"{n} bytes, IPv4 header incomplete"
            if f[14] >> 4 != 4 or f[14] & 0xF != 5:
                return "malformed", f"IPv4 version {f[14] >> 4} IHL {f[14] & 0xF} (no options allowed)"
            tot = (f[16] << 8) | f[17]
            if n < 14 + tot:
                return "runt", f"{n} bytes, IPv4 total length {tot}"
            if tot < 20 + 8 + 12 + 4:
                return "malformed", f"IPv4 total length {tot}"
            frag = (f[20] << 8) | f[21]
            if frag & 0x3FFF:
                return "malformed", f"IPv4 fragment (flags/offset 0x{frag:04x})"
            if f[23] != 17:
                return "malformed", f"IP protocol {f[23]}"
            l4, end, ipv6 = 34, 14 + tot, False
            src_ip, dst_ip = f[26:30], f[30:34]
        elif et == ETH_IPV6:
            if n < 54:
                return "runt", f"{n} bytes, IPv6 header incomplete"
            if f[14] >> 4 != 6:
                return "malformed", f"IPv6 version {f[14] >> 4}"
            plen = (f[18] << 8) | f[19]
            if n < 54 + plen:
                return "runt", f"{n} bytes, IPv6 payload length {plen}"
            if f[20] != 17:
                return "malformed", f"IPv6 next header {f[20]}"
            if plen < 8 + 12 + 4:
                return "malformed", f"IPv6 payload length {plen}"
            l4, end, ipv6 = 54, 54 + plen, True
            src_ip, dst_ip = f[22:38], f[38:54]
        else:
            return "malformed", f"EtherType 0x{et:04x}"
        dport = (f[l4 + 2] << 8) | f[l4 + 3]
        if dport != ROCE_PORT:
            return "malformed", f"UDP destination port {dport}"
        ulen = (f[l4 + 4] << 8) | f[l4 + 5]
        if ulen != end - l4:
            return "malformed", f"UDP length {ulen}, IP says {end - l4}"
        b = l4 + 8
        op = f[b]
        if f[b + 1] & 0x0F:
            return "malformed", f"BTH TVer {f[b + 1] & 0x0F}"
        if op not in EXT:
            return "malformed", f"opcode 0x{op:02x} (not an RC opcode)"
        hdr = 12 + EXT[op]
        if ulen < 8 + hdr + 4:
            return "malformed", f"{opname(op)}: UDP length {ulen} too short for its headers"
        pad = (f[b + 1] >> 4) & 3
        data_len = ulen - 8 - hdr - 4
        if pad > data_len:
            return "malformed", f"pad count {pad} with {data_len} bytes after the headers"
        return Req(ipv6=ipv6, src_mac=f[6:12], dst_mac=f[0:6], src_ip=src_ip, dst_ip=dst_ip,
                   sport=(f[l4] << 8) | f[l4 + 1], opcode=op, ackreq=bool(f[b + 8] & 0x80),
                   dqpn=int.from_bytes(f[b + 5:b + 8], "big"),
                   psn=int.from_bytes(f[b + 9:b + 12], "big"),
                   ext=f[b + 12:b + hdr], payload=f[b + hdr:b + hdr + data_len - pad],
                   datagram=f[14:end])

    # ---------------------------------------------------------------- responses
    def response(self, r, q, opcode, psn, ext=b"", payload=b""):
        pad = (4 - len(payload) % 4) % 4 if opcode in (RR_FIRST, RR_MIDDLE, RR_LAST, RR_ONLY) else 0
        bth = (bytes([opcode, pad << 4, 0xFF, 0xFF, 0]) + q.conf.dest_qp.to_bytes(3, "big")
               + bytes([0]) + psn.to_bytes(3, "big"))
        l4 = bth + ext + payload + bytes(pad)
        ulen = 8 + len(l4) + 4
        udp = r.sport.to_bytes(2, "big") + ROCE_PORT.to_bytes(2, "big") + ulen.to_bytes(2, "big") + b"\0\0"
        if r.ipv6:
            ip = (bytes([0x60, 0, 0, 0]) + ulen.to_bytes(2, "big") + bytes([17, 64])
                  + self.cfg.ip6 + r.src_ip)
            et = ETH_IPV6
        else:
            ip = bytearray(bytes([0x45, 0]) + (20 + ulen).to_bytes(2, "big") + bytes([0, 0, 0x40, 0, 64, 17, 0, 0])
                           + self.cfg.ip4 + r.src_ip)
            ip[10:12] = ip4_checksum(ip).to_bytes(2, "big")
            ip = bytes(ip)
            et = ETH_IPV4
        dg = ip + udp + l4
        return r.src_mac + self.cfg.mac + et.to_bytes(2, "big") + dg + icrc_of(dg, r.ipv6)

    def aeth(self, syndrome, msn):
        return bytes([syndrome]) + msn.to_bytes(3, "big")

    def ack(self, r, q, psn):
        self.st["acks"] += 1
        return self.response(r, q, ACK_OP, psn, self.aeth(SYN_ACK, q.msn))

    def nak(self, r, q, syndrome, psn):
        k = f"0x{syndrome:02x}"
        self.st["naks"][k] = self.st["naks"].get(k, 0) + 1
        return self.response(r, q, ACK_OP, psn, self.aeth(syndrome, q.msn))

    def read_responses(self, r, q, psn, pa, length):
        mtu = q.conf.mtu
        n = max(1, -(-length // mtu))
        out = []
        for k in range(n):
            chunk = self.mem.read(pa + k * mtu, min(mtu, length - k * mtu)) if length else b""
            if n == 1:
                op = RR_ONLY
            else:
                op = RR_FIRST if k == 0 else RR_LAST if k == n - 1 else RR_MIDDLE
            ext = self.aeth(SYN_ACK, q.msn) if op != RR_MIDDLE else b""
            out.append(self.response(r, q, op, (psn + k) % PSN_MOD, ext, chunk))
        self.st["read_responses"] += n
        return out

    # ---------------------------------------------------------------- checks
    def access_check(self, rkey, va, length, right):
        """None, or the reason for a remote access error."""
        mr = self.cfg.mrs.get(rkey)
        if mr is None:
            return f"rkey 0x{rkey:08x} unknown"
        if right not in mr.access:
            return f"rkey 0x{rkey:08x} has access '{mr.access}', needs '{right}'"
        if va < mr.va or va + length > mr.va + mr.length:
            return (f"[0x{va:x}, 0x{va:x}+{length}) outside MR 0x{rkey:x} "
                    f"[0x{mr.va:x}, 0x{mr.va:x}+{mr.length})")
        return None

    def get64(self, pa):
        return int.from_bytes(self.mem.read(pa, 8), self.endian)

    # ---------------------------------------------------------------- one frame
    def process(self, f, idx=None):
        p = self.parse(f)
        if isinstance(p, tuple):
            return Verdict("drop:" + p[0], reason=p[0], detail=p[1])
        r = p
        v = Verdict("", qpn=r.dqpn, psn=r.psn, opcode=r.opcode)
        if r.dst_mac != self.cfg.mac:
            v.kind, v.reason, v.detail = "drop:not_for_us", "not_for_us", "destination MAC"
            return v
        mine = self.cfg.ip6 if r.ipv6 else self.cfg.ip4
        if mine is None or r.dst_ip != mine:
            v.kind, v.reason = "drop:not_for_us", "not_for_us"
            v.detail = f"destination IPv{6 if r.ipv6 else 4} address"
            return v
        if icrc_of(r.datagram[:-4], r.ipv6) != r.datagram[-4:]:
            v.kind, v.reason = "drop:bad_icrc", "bad_icrc"
            v.detail = f"ICRC {r.datagram[-4:].hex()} should be {icrc_of(r.datagram[:-4], r.ipv6).hex()}"
            return v
        q = self.qps.get(r.dqpn)
        if q is None:
            v.kind, v.reason, v.detail = "drop:unknown_qp", "unknown_qp", f"QP 0x{r.dqpn:06x}"
            return v
        if r.opcode in RESPONSE_OPS:
            v.kind, v.reason, v.detail = "drop:not_request", "not_request", opname(r.opcode)
            return v

        d = (r.psn - q.epsn) % PSN_MOD
        if d == 0:
            q.nak_sent = False
            self.new_request(r, q, v, idx)
        elif d < HALF:
            if q.nak_sent:
                v.kind, v.reason = "drop:psn_ahead_silent", "psn_ahead_silent"
                v.detail = f"ePSN 0x{q.epsn:06x}"
            else:
                q.nak_sent = True
                v.kind, v.detail = "nak-seq", f"ePSN 0x{q.epsn:06x}"
                v.responses.append(self.nak(r, q, SYN_PSN_SEQ, q.epsn))
        else:
            self.duplicate(r, q, v, idx)
        return v

    def duplicate(self, r, q, v, idx):
        op = r.opcode
        v.kind = "dup"
        if op in SEND_OPS:
            v.detail = "duplicate SEND: ACK, no effect"
            v.responses.append(self.ack(r, q, r.psn))
        elif op in WRITE_OPS:
            v.detail = "duplicate WRITE: ACK, no memory access"
            v.responses.append(self.ack(r, q, r.psn))
        elif op == READ_REQ:
            va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
            if dlen > MAX_READ_LEN:
                v.kind, v.detail = "dup-nak-inv", f"READ length {dlen} > 2^31"
                v.responses.append(self.nak(r, q, SYN_INVALID, r.psn))
                return
            why = self.access_check(rkey, va, dlen, "r")
            if why:
                v.kind, v.detail = "dup-nak-acc", why
                v.responses.append(self.nak(r, q, SYN_ACCESS, r.psn))
                return
            mr = self.cfg.mrs[rkey]
            self.st["read_replays"] += 1
            v.detail = "READ executed again"
            v.responses += self.read_responses(r, q, r.psn, mr.pa + (va - mr.va), dlen)
        else:  # CAS / FAA
            orig = self.aq_lookup(q, r.psn)
            if orig is None:
                v.kind, v.detail = "dup-nak-inv", f"PSN 0x{r.psn:06x} not in the AQ"
                v.responses.append(self.nak(r, q, SYN_INVALID, r.psn))
            else:
                self.st["atomic_replays"] += 1
                self.st["atomic_acks"] += 1
                v.detail = f"replayed from the AQ, orig 0x{orig:016x}"
                v.responses.append(self.response(r, q, ATOMIC_ACK_OP, r.psn, self.aeth(SYN_ACK, q.msn),
                                                 orig.to_bytes(8, "big")))

    def aq_lookup(self, q, psn):
        """The original value stored for PSN psn, or None when it is no longer in the AQ."""
        age = lambda x: (q.epsn - x) % PSN_MOD   # noqa: E731  how far behind the ePSN
        want = (0x80000000 | psn).to_bytes(4, "big")
        gbytes = AQ_GROUP * AQE_BYTES
        if self.aq_linear:
            order = sorted((g for g, s in enumerate(q.aqc) if s is not None),
                           key=lambda g: -age(q.aqc[g]))
        else:
            # the newest valid group starting at or before p; if p is older than every group
            # start, the group the write pointer is in (after a wrap its tail holds the oldest
            # results still kept)
            cands = [g for g, s in enumerate(q.aqc) if s is not None and age(s) >= age(psn)]
            if cands:
                order = [min(cands, key=lambda g: age(q.aqc[g]))]
            else:
                order = [q.aq_w // AQ_GROUP]
        for g in order:
            data = self.mem.read(q.conf.aq + g * gbytes, gbytes)
            for e in range(AQ_GROUP):
                ent = data[e * AQE_BYTES:(e + 1) * AQE_BYTES]
                if ent[0:4] == want:
                    return int.from_bytes(ent[8:16], "big")
        return None

    def validate(self, r, q):
        """(syndrome, detail) of the first failing check of a new request, or None."""
        op, mtu, plen = r.opcode, q.conf.mtu, len(r.payload)
        # 1. opcode sequence (an open SEND is treated like an open WRITE)
        is_open = "WRITE" if q.write is not None else "SEND" if q.send is not None else None
        if op in (W_MIDDLE, W_LAST, W_LAST_IMM):
            if q.write is None:
                return SYN_INVALID, (f"{opname(op)} while a multi-packet SEND is open" if is_open
                                     else f"{opname(op)} without a WRITE FIRST")
        elif op in (S_MIDDLE, S_LAST, S_LAST_IMM):
            if q.send is None:
                return SYN_INVALID, (f"{opname(op)} while a multi-packet WRITE is open" if is_open
                                     else f"{opname(op)} without a SEND FIRST")
        elif is_open:
            return SYN_INVALID, f"{opname(op)} while a multi-packet {is_open} is open"
        # 2. lengths
        if plen > mtu:
            return SYN_INVALID, f"payload {plen} > MTU {mtu}"
        if op in (S_FIRST, S_MIDDLE) and plen != mtu:
            return SYN_INVALID, f"{opname(op)} payload {plen} != MTU {mtu}"
        if op in (W_FIRST, W_MIDDLE) and plen != mtu:
            # the contract names MIDDLE; IBA (and a real responder) wants FIRST full too
            return SYN_INVALID, f"{opname(op)} payload {plen} != MTU {mtu}"
        if op in (W_FIRST, W_ONLY, W_ONLY_IMM):
            dlen = struct.unpack(">I", r.ext[12:16])[0]
            if op == W_FIRST and plen > dlen:
                return SYN_INVALID, f"WRITE FIRST payload {plen} > DMA length {dlen}"
            if op != W_FIRST and plen != dlen:
                return SYN_INVALID, f"WRITE ONLY payload {plen} != DMA length {dlen}"
        if op == W_MIDDLE and q.write.done + plen > q.write.dlen:
            return SYN_INVALID, f"WRITE total {q.write.done + plen} > DMA length {q.write.dlen}"
        if op in (W_LAST, W_LAST_IMM) and q.write.done + plen != q.write.dlen:
            return SYN_INVALID, f"WRITE total {q.write.done + plen} != DMA length {q.write.dlen}"
        if op in (READ_REQ, CAS, FAA) and plen:
            return SYN_INVALID, f"{opname(op)} carries {plen} payload bytes"
        if op == READ_REQ:
            dlen = struct.unpack(">I", r.ext[12:16])[0]
            if dlen > MAX_READ_LEN:
                return SYN_INVALID, f"READ length {dlen} > 2^31"
        # 3. memory region
        if op in (W_FIRST, W_ONLY, W_ONLY_IMM, READ_REQ):
            va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
            why = self.access_check(rkey, va, dlen, "r" if op == READ_REQ else "w")
            if why:
                return SYN_ACCESS, why
        if op in (CAS, FAA):
            va, rkey = struct.unpack(">QI", r.ext[:12])
            why = self.access_check(rkey, va, 8, "a")
            if why:
                return SYN_ACCESS, why
            # 4. alignment
            if va % 8:
                return SYN_INVALID, f"ATOMIC va 0x{va:x} not 8-byte aligned"
        # 5. responder resources: more than max_rd_atomic READ/ATOMIC requests not yet answered
        # cannot happen, requests are handled one at a time (docs/rdma.md "Interpretations")
        return None

    def new_request(self, r, q, v, idx):
        op = r.opcode
        bad = self.validate(r, q)
        if bad is None and op in SEND_OPS:
            bad = self.send_check(r, q)
        if bad is None and op in (W_LAST_IMM, W_ONLY_IMM):
            bad = self.rq_check(q, "WRITE with immediate")
        if bad:
            q.nak_sent = True
            v.kind = ("nak-inv" if bad[0] == SYN_INVALID else "nak-acc" if bad[0] == SYN_ACCESS
                      else "nak-rnr")
            v.detail = bad[1]
            v.responses.append(self.nak(r, q, bad[0], r.psn))
            return
        v.kind = "exec"
        if op in SEND_OPS:
            self.exec_send(r, q, v, idx)
        elif op in WRITE_OPS:
            self.st["writes_executed"] += 1
            if op in (W_FIRST, W_ONLY, W_ONLY_IMM):
                va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
                mr = self.cfg.mrs[rkey]
                ctx = WriteCtx(mr, mr.pa + (va - mr.va), dlen, 0)
            else:
                ctx = q.write
            if r.payload:
                self.mem.write(ctx.pa, r.payload, idx)
            ctx.pa += len(r.payload)
            ctx.done += len(r.payload)
            last = op in (W_LAST, W_LAST_IMM, W_ONLY, W_ONLY_IMM)
            q.write = None if last else ctx
            v.detail = f"{len(r.payload)} bytes at pa 0x{ctx.pa - len(r.payload):x}"
            if op in (W_LAST_IMM, W_ONLY_IMM):
                # the payload is written, then the WQE is consumed (read for its wr_id), CQE
                wqe = q.rq_head
                _, _, wr_id = parse_wqe(self.mem.read(q.conf.wqe_pa(wqe), WQE_BYTES))
                c = self.complete(r, q, wr_id, ctx.dlen, CQE_WRITE_IMM, idx)
                v.detail += f"; WQE {wqe} wr_id 0x{wr_id:08x} -> CQE {c.index} (byte count {ctx.dlen})"
            if last:
                q.msn = (q.msn + 1) % PSN_MOD
            q.epsn = (q.epsn + 1) % PSN_MOD
            if last or r.ackreq:
                v.responses.append(self.ack(r, q, r.psn))
        elif op == READ_REQ:
            self.st["reads_executed"] += 1
            va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
            mr = self.cfg.mrs[rkey]
            q.msn = (q.msn + 1) % PSN_MOD
            v.responses += self.read_responses(r, q, r.psn, mr.pa + (va - mr.va), dlen)
            q.epsn = (q.epsn + len(v.responses)) % PSN_MOD
            v.detail = f"{dlen} bytes in {len(v.responses)} responses"
        else:
            va, rkey, swap_add, compare = struct.unpack(">QIQQ", r.ext[:28])
            mr = self.cfg.mrs[rkey]
            pa = mr.pa + (va - mr.va)
            old = self.get64(pa)
            if op == FAA:
                self.mem.write(pa, ((old + swap_add) % (1 << 64)).to_bytes(8, self.endian), idx)
            elif old == compare:
                self.mem.write(pa, swap_add.to_bytes(8, self.endian), idx)
            i = q.aq_w
            if i % AQ_GROUP == 0:
                q.aqc[i // AQ_GROUP] = r.psn
            self.mem.write(q.conf.aq + i * AQE_BYTES,
                           (0x80000000 | r.psn).to_bytes(4, "big") + bytes(4) + old.to_bytes(8, "big"), idx)
            q.aq_w = (i + 1) % q.conf.depth
            self.st["atomics_executed"] += 1
            self.st["atomic_acks"] += 1
            q.msn = (q.msn + 1) % PSN_MOD
            q.epsn = (q.epsn + 1) % PSN_MOD
            v.detail = f"pa 0x{pa:x} orig 0x{old:016x} -> AQE {i}"
            v.responses.append(self.response(r, q, ATOMIC_ACK_OP, r.psn, self.aeth(SYN_ACK, q.msn),
                                             old.to_bytes(8, "big")))

    # ---------------------------------------------------------------- receive / completion queues
    def rq_check(self, q, what):
        """docs/rdma.md: the QP needs an RQ (else invalid request) and a posted WQE (else RNR NAK)."""
        c = q.conf
        if not c.has_rq:
            return SYN_INVALID, f"{what} on a QP without a receive queue"
        if q.rq_head == c.rq_posted:
            return SYN_RNR | c.rnr_timer, (f"{what}: no posted receive WQE left ({c.rq_posted} posted, "
                                           f"all consumed): RNR NAK")
        return None

    def send_check(self, r, q):
        """The SEND checks after validation steps 1 and 2; a first/only packet reads its WQE."""
        op, plen = r.opcode, len(r.payload)
        if op in (S_FIRST, S_ONLY, S_ONLY_IMM):
            bad = self.rq_check(q, opname(op))
            if bad:
                return bad
            buf, blen, wr_id = parse_wqe(self.mem.read(q.conf.wqe_pa(q.rq_head), WQE_BYTES))
            if plen > blen:
                return SYN_INVALID, (f"{opname(op)} payload {plen} > the buffer of WQE {q.rq_head} "
                                     f"({blen} bytes): WQE not consumed")
            self._wqe = SendCtx(q.rq_head, buf, blen, wr_id, 0)
            return None
        s = q.send
        if s.done + plen > s.buf_len:
            return SYN_INVALID, (f"{opname(op)}: {s.done} + {plen} bytes > the buffer of WQE {s.wqe} "
                                 f"({s.buf_len} bytes); the message stays open")
        return None

    def exec_send(self, r, q, v, idx):
        op = r.opcode
        self.st["sends_executed"] += 1
        s = self._wqe if op in (S_FIRST, S_ONLY, S_ONLY_IMM) else q.send
        if r.payload:
            self.mem.write(s.buf + s.done, r.payload, idx)
        v.detail = f"{len(r.payload)} bytes into WQE {s.wqe} at 0x{s.buf + s.done:x}"
        s.done += len(r.payload)
        last = op in (S_LAST, S_LAST_IMM, S_ONLY, S_ONLY_IMM)
        q.send = None if last else s
        if last:
            c = self.complete(r, q, s.wr_id, s.done, CQE_SEND, idx)
            v.detail += f"; wr_id 0x{s.wr_id:08x} -> CQE {c.index} (byte count {s.done})"
            q.msn = (q.msn + 1) % PSN_MOD
        q.epsn = (q.epsn + 1) % PSN_MOD
        if last or r.ackreq:
            v.responses.append(self.ack(r, q, r.psn))

    def complete(self, r, q, wr_id, byte_count, opcode, idx):
        """Consume the WQE at the RQ head and write the next CQE."""
        imm = r.ext[-4:] if r.opcode in (S_LAST_IMM, S_ONLY_IMM, W_LAST_IMM, W_ONLY_IMM) else None
        c = CQE(q.conf.qpn, q.cq_index, q.conf.cqe_pa(q.cq_index), wr_id, byte_count, imm, opcode, r.psn, idx)
        self.mem.write(c.pa, c.to_bytes(), idx)
        self.cqes.append(c)
        q.rq_head += 1
        q.cq_index += 1
        self.st["wqes_consumed"] += 1
        self.st["cqes_written"] += 1
        return c

    # ---------------------------------------------------------------- results
    def memory_json(self):
        return {str(mr.rkey): self.mem.read(mr.pa, mr.length).hex() for mr in self.cfg.mrs.values()}


def stats_of(resp, verdicts):
    drops = {}
    for v in verdicts:
        if v.reason:
            drops[v.reason] = drops.get(v.reason, 0) + 1
    st = {"packets_in": len(verdicts),
          "packets_out": sum(len(v.responses) for v in verdicts),
          "drops": {r: drops[r] for r in DROP_REASONS if r in drops},
          "requests_answered": sum(1 for v in verdicts if v.reason is None)}
    st.update(resp.st)
    st["naks"] = dict(sorted(resp.st["naks"].items()))
    return st


def trace_line(i, v):
    if v.qpn is None:
        return f"{i} {v.kind} {v.detail}"
    return (f"{i} {v.kind} qp=0x{v.qpn:06x} psn=0x{v.psn:06x} op={opname(v.opcode)} "
            f"resp={len(v.responses)} {v.detail}")


def run(cfg, frames, aq_linear=False, atomic_endian="little"):
    """(Responder, [Verdict]) for [(bytes, ts)] frames."""
    resp = Responder(cfg, aq_linear, atomic_endian)
    verdicts = [resp.process(f, i) for i, (f, _) in enumerate(frames)]
    return resp, verdicts


# =============================================================================================
# pcap I/O
# =============================================================================================

def write_json(path, obj):
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Python reference of the RoCEv2 responder (docs/rdma.md)")
    ap.add_argument("--config", required=True, help="responder config (docs/rdma.md format)")
    ap.add_argument("--in", dest="inp", required=True, help="request pcap")
    ap.add_argument("--out", required=True, help="expected response pcap to write")
    ap.add_argument("--mem-out", required=True, help="final MR memory JSON to write")
    ap.add_argument("--stats", help="write expected stats JSON here")
    ap.add_argument("--trace", help="write one line per request (verdict, QP, PSN, detail)")
    ap.add_argument("--aq-linear", action="store_true",
                    help="duplicate ATOMIC lookup without grouping (as config 'aq_mode linear')")
    ap.add_argument("--atomic-endian", choices=("little", "big"), default="little",
                    help="byte order of ATOMIC operands in host memory (default little)")
    a = ap.parse_args(argv)
    try:
        cfg = load_config(a.config)
        frames = read_pcap(a.inp)
    except (ConfigError, InputError) as e:
        print(f"rdma_ref: error: {e}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"rdma_ref: error: {a.config}: {e}", file=sys.stderr)
        return 2
    resp, verdicts = run(cfg, frames, a.aq_linear, a.atomic_endian)
    st = stats_of(resp, verdicts)
    try:
        write_pcap(a.out, [(rb, frames[i][1]) for i, v in enumerate(verdicts) for rb in v.responses])
        write_json(a.mem_out, resp.memory_json())
        if a.stats:
            write_json(a.stats, st)
        if a.trace:
            with open(a.trace, "w") as fh:
                for i, v in enumerate(verdicts):
                    fh.write(trace_line(i, v) + "\n")
    except OSError as e:
        print(f"rdma_ref: error: {e}", file=sys.stderr)
        return 2
    print(f"rdma_ref: {st['packets_in']} requests, {st['requests_answered']} answered, "
          f"{st['packets_in'] - st['requests_answered']} dropped, {st['packets_out']} responses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
