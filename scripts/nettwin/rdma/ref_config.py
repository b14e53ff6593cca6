"""The RDMA reference's constants (opcodes, syndromes, limits, drop reasons) and its own parser of the
responder config (docs/rdma.md format; errors as `file:line: token 'tok': message`)."""
import ipaddress
from dataclasses import dataclass, field
from typing import Optional


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
DROP_REASONS = ("runt", "malformed", "not_for_us", "bad_icrc", "cnp", "unknown_qp", "not_request",
                "psn_ahead_silent")
OP_CNP = 0x81  # RoCEv2 congestion notification packet (IBA Annex A17): counted as `cnp`, never answered

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
