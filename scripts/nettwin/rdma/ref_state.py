"""The RDMA reference's state: sparse host memory, the parsed request and its verdict, open WRITE /
SEND messages, WQE and CQE layouts (docs/rdma.md "Receive and completion queues"), per-QP state."""
import struct
from dataclasses import dataclass, field
from typing import List, Optional

from nettwin.rdma.ref_config import AQ_GROUP, MR


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
# Requests, verdicts, open messages, WQE / CQE layouts, per-QP state


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
        self.aq_lapped = False       # the AQ wrapped since this QP was configured
        self.aqc = [None] * (conf.depth // AQ_GROUP)   # per group: start PSN, None = invalid
        self.send = None             # SendCtx of an open multi-packet SEND
        self.rq_head = 0             # next receive WQE to consume
        self.cq_index = 0            # CQEs written
