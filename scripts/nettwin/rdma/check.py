#!/usr/bin/python3
"""Check a RoCEv2 responder run (the C++ model's or the RTL's) against docs/rdma.md.

  /usr/bin/python3 scripts/rdma_check.py --config C --in REQ.pcap --out RSP.pcap --mem-out MEM.json
      [--stats S.json] [--aq-linear] [--atomic-endian little|big] [--show N]

The Python reference (rdma_ref.py) computes the expected responses and final memory.  Checks, each
reported separately (first mismatch in full, then a count):
  bytes         every response equals the reference's, in order; a missing or extra response is
                reported as such; a difference is decoded with Scapy (roce_layers.py) and named by
                its first differing field, e.g. "response 7 (request 9, QP 0x000011 PSN 0x000123
                FAA): AtomicAckETH.orig expected 0x... got 0x..."
  icrc          every response's ICRC, verified with roce_layers.check_icrc (not with the reference)
  decode        every response decoded with Scapy and checked against its request and the config
                alone: MACs, addresses, UDP ports, TTL/hop limit 64, DF, IPv4 header checksum,
                UDP checksum 0, P_Key, destination QP, AckReq 0, pad count, response opcodes
  memory        the memory JSON: every MR's final bytes (first differing byte, its pa, what lives
                there - a CQE field, an RQ slot, a receive buffer - and the request that last
                wrote it in the reference)
  cqe           every CQ slot the reference wrote last (docs/rdma.md "Receive and completion
                queues"), decoded from the memory JSON where an MR covers it: the first differing
                field (wr_id, byte_count, imm_data, qpn, opcode, flags, psn, zero bytes) with the
                completion it should hold (QP, CQE number, the request and PSN that completed it)
  at-most-once  for every FAA target no WRITE/CAS touches: the final value equals its initial
                value plus the adds of the DISTINCT (QP, PSN) FAAs answered by an ATOMIC ACK, and
                each ATOMIC ACK's original value equals the initial value plus the adds of the
                distinct FAAs acknowledged before it (a replay returns the same value) - computed
                from the requests and the responses under test, not from the reference (targets
                that a WRITE, CAS, receive buffer or CQ may overlap are left out)
  stats         (--stats) packets_in, packets_out, drops by reason
Exit 0 when everything matches, 1 on any mismatch, 2 on unusable input.
"""
import argparse
import ipaddress
import json
import sys

from nettwin.rdma import ref as rdma_ref
from nettwin.common.pcap import align
from nettwin.rdma.ref import ConfigError, InputError, opname

RESPONSE_OPS = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}
READ_RESP = {0x0D, 0x0E, 0x0F, 0x10}
DERIVED = {("IP", "len"), ("IP", "chksum"), ("IPv6", "plen"), ("UDP", "len"), ("BTH", "icrc")}


class Report:
    def __init__(self, show=1):
        self.counts, self.msgs, self.show = {}, {}, show

    def fail(self, check, msg):
        self.counts[check] = self.counts.get(check, 0) + 1
        m = self.msgs.setdefault(check, [])
        if len(m) < self.show:
            m.append(msg)

    def ok(self):
        return not self.counts

    def print(self):
        for check, msgs in self.msgs.items():
            print(f"MISMATCH [{check}] ({self.counts[check]} in total) first: {msgs[0]}")
            for m in msgs[1:]:
                print(f"    then: {m}")


# ---------------------------------------------------------------------------------------------
# Scapy decoding and field naming
# ---------------------------------------------------------------------------------------------

def decode(frame):
    from scapy.layers.l2 import Ether
    import nettwin.rdma.layers  # noqa: F401  (binds the layers)
    return Ether(frame)


def layer_list(p):
    out = []
    while p is not None and p.__class__.__name__ != "NoPayload":
        out.append(p)
        p = p.payload
    return out


def fmt(layer, fld, val):
    try:
        r = fld.i2repr(layer, val)
    except Exception:
        r = repr(val)
    if isinstance(val, int) and not isinstance(val, bool):
        h = f"0x{val:x}"
        if str(r) != h and not str(r).startswith("0x"):
            return f"{r} ({h})"
    return str(r)


def field_diff(exp, got):
    """Name of the first differing field of two response frames, with both values."""
    try:
        le, lg = layer_list(decode(exp)), layer_list(decode(got))
    except Exception as e:
        return f"cannot decode ({type(e).__name__}: {e})"
    derived = []
    for a, b in zip(le, lg):
        if type(a) is not type(b):
            return f"layer {a.__class__.__name__} expected, got {b.__class__.__name__}"
        cls = a.__class__.__name__
        for f in a.fields_desc:
            va, vb = a.getfieldval(f.name), b.getfieldval(f.name)
            if (cls, f.name) in DERIVED:
                derived.append((cls, f, a, va, vb))
                continue
            if va == vb:
                continue
            if isinstance(va, (bytes, bytearray)) and isinstance(vb, (bytes, bytearray)):
                n = min(len(va), len(vb))
                k = next((x for x in range(n) if va[x] != vb[x]), n)
                if k == n:
                    return f"{cls}.{f.name}: expected {len(va)} bytes got {len(vb)} (identical up to byte {n})"
                return f"{cls}.{f.name} byte {k}: expected 0x{va[k]:02x} got 0x{vb[k]:02x}"
            return f"{cls}.{f.name} expected {fmt(a, f, va)} got {fmt(b, f, vb)}"
    if len(le) != len(lg):
        return (f"layers: expected {'/'.join(x.__class__.__name__ for x in le)} "
                f"got {'/'.join(x.__class__.__name__ for x in lg)}")
    for cls, f, a, va, vb in derived:
        if va != vb:
            return f"{cls}.{f.name} expected {fmt(a, f, va)} got {fmt(a, f, vb)}"
    n = min(len(exp), len(got))
    k = next((x for x in range(n) if exp[x] != got[x]), n)
    return f"frame byte {k}: lengths {len(exp)} / {len(got)}"


def brief(frame):
    """'OPCODE dest QP 0x.. PSN 0x..' of a response frame, best effort."""
    try:
        from nettwin.rdma.layers import BTH
        p = decode(frame)
        b = p[BTH]
        what = opname(b.opcode)
        if b.opcode == 0x11:
            from nettwin.rdma.layers import AETH
            syn = p[AETH].syndrome
            what = ("ACK" if syn == 0x1F else f"RNR NAK 0x{syn:02x} (timer {syn & 0x1F})" if syn >> 5 == 1
                    else f"NAK 0x{syn:02x}")
        return f"{what} dest QP 0x{b.dqpn:06x} PSN 0x{b.psn:06x}"
    except Exception:
        return f"{len(frame)} bytes, not decodable as RoCEv2"


# ---------------------------------------------------------------------------------------------
# Independent decode check of one response against its request
# ---------------------------------------------------------------------------------------------

def decode_check(cfg, req_frame, rsp_frame, req_opcode):
    """None if rsp_frame has the static fields docs/rdma.md prescribes for a response to
    req_frame, else 'field: expected/got'."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.utils import checksum
    from nettwin.rdma.layers import BTH
    q, r = decode(req_frame), decode(rsp_frame)
    mac = ":".join(f"{b:02x}" for b in cfg.mac)
    checks = [("Ether.dst (request's source MAC)", q.src, r.dst), ("Ether.src (responder MAC)", mac, r.src),
              ("Ether.type (request's family)", q.type, r.type)]
    if IP in q:
        i, o = q[IP], r[IP] if IP in r else None
        if o is None:
            return "no IPv4 header"
        checks += [("IP.version", 4, o.version), ("IP.ihl", 5, o.ihl), ("IP.tos", 0, o.tos), ("IP.id", 0, o.id),
                   ("IP.flags", "DF", str(o.flags)), ("IP.frag", 0, o.frag), ("IP.ttl", 64, o.ttl),
                   ("IP.proto", 17, o.proto), ("IP.src (responder)", str(ipaddress.IPv4Address(cfg.ip4)), o.src),
                   ("IP.dst (request's source)", i.src, o.dst),
                   ("IP.len", len(rsp_frame) - 14, o.len),
                   ("IPv4 header checksum residual", 0, checksum(bytes(rsp_frame[14:34])))]
    else:
        i, o = q[IPv6], r[IPv6] if IPv6 in r else None
        if o is None:
            return "no IPv6 header"
        checks += [("IPv6.tc", 0, o.tc), ("IPv6.fl", 0, o.fl), ("IPv6.nh", 17, o.nh), ("IPv6.hlim", 64, o.hlim),
                   ("IPv6.src (responder)", str(ipaddress.IPv6Address(cfg.ip6)), o.src),
                   ("IPv6.dst (request's source)", i.src, o.dst), ("IPv6.plen", len(rsp_frame) - 54, o.plen)]
    if UDP not in r or BTH not in r:
        return "no UDP/BTH"
    u, b = r[UDP], r[BTH]
    qpc = cfg.qps.get(q[BTH].dqpn)
    checks += [("UDP.sport (request's)", q[UDP].sport, u.sport), ("UDP.dport", 4791, u.dport),
               ("UDP.chksum", 0, u.chksum), ("BTH.solicited", 0, b.solicited), ("BTH.migreq", 0, b.migreq),
               ("BTH.version", 0, b.version), ("BTH.pkey", 0xFFFF, b.pkey), ("BTH.fecn", 0, b.fecn),
               ("BTH.becn", 0, b.becn), ("BTH.resv6", 0, b.resv6), ("BTH.ackreq", 0, b.ackreq),
               ("BTH.resv7", 0, b.resv7),
               ("BTH.dqpn (the QP's dest_qp)", qpc.dest_qp if qpc else None, b.dqpn)]
    allowed = READ_RESP | {0x11} if req_opcode == 0x0C else {0x11, 0x12} if req_opcode in (0x13, 0x14) else {0x11}
    checks.append(("BTH.opcode is a response to " + opname(req_opcode), True, b.opcode in allowed))
    if b.opcode in READ_RESP:
        hdr = 12 + (0 if b.opcode == 0x0E else 4)
        plen = u.len - 8 - hdr - 4 - b.padcount
        checks.append(("BTH.padcount ((4 - payload % 4) % 4)", (4 - plen % 4) % 4, b.padcount))
        pad = bytes(rsp_frame[len(rsp_frame) - 4 - b.padcount:len(rsp_frame) - 4])
        checks.append(("pad bytes zero", bytes(b.padcount), pad))
    else:
        checks.append(("BTH.padcount", 0, b.padcount))
    for name, e, g in checks:
        if e != g:
            return f"{name}: expected {e} got {g}"
    return None


# ---------------------------------------------------------------------------------------------
# At-most-once, from the requests and the responses under test
# ---------------------------------------------------------------------------------------------

def faa_targets(cfg, frames_in, endian):
    """The FAA requests that can execute (as far as the requests and the config tell, without
    the PSN state) and the targets that only FAAs touch.  Returns (faa, targets, initial):
    faa maps (qpn, psn) -> {(pa, add)}, targets is a set of pa, initial(pa) the initial value."""
    from scapy.layers.inet import IP
    from scapy.layers.inet6 import IPv6
    from nettwin.rdma.layers import BTH, RETH, AtomicETH, check_icrc
    ip4 = str(ipaddress.IPv4Address(cfg.ip4)) if cfg.ip4 else None
    ip6 = str(ipaddress.IPv6Address(cfg.ip6)) if cfg.ip6 else None
    mac = ":".join(f"{b:02x}" for b in cfg.mac)

    def mr_pa(rkey, va, n):
        m = cfg.mrs.get(rkey)
        if m is None or va < m.va or va + n > m.va + m.length:
            return None
        return m.pa + (va - m.va)

    faa = {}                # (qpn, psn) -> set of (pa, add)
    footprints = []         # (lo, hi) physical ranges written by WRITEs / CAS
    for i, (f, _) in enumerate(frames_in):
        try:
            p = decode(f)
            b = p[BTH]
        except Exception:
            continue
        if b.opcode in (0x06, 0x0A, 0x0B) and RETH in p:
            m = cfg.mrs.get(p[RETH].rkey)
            if m is not None:
                lo = m.pa + (p[RETH].va - m.va)
                qpc = cfg.qps.get(b.dqpn)
                footprints.append((lo, lo + p[RETH].dlen + (qpc.mtu if qpc else 4096)))
        if b.opcode == 0x13 and AtomicETH in p:
            pa = mr_pa(p[AtomicETH].rkey, p[AtomicETH].va, 8)
            if pa is not None:
                footprints.append((pa, pa + 8))
        if b.opcode != 0x14 or AtomicETH not in p or not check_icrc(f):
            continue
        dst = p[IP].dst if IP in p else p[IPv6].dst if IPv6 in p else None
        if p.dst != mac or dst not in (ip4, ip6) or b.dqpn not in cfg.qps:
            continue
        a = p[AtomicETH]
        m = cfg.mrs.get(a.rkey)
        if m is None or "a" not in m.access or a.va % 8:
            continue
        pa = mr_pa(a.rkey, a.va, 8)
        if pa is not None:
            faa.setdefault((b.dqpn, b.psn), set()).add((pa, a.swap_add))
    # SEND payloads land in the posted receive buffers, CQEs in the CQs (no MR check on either)
    for lo, hi in rq_footprints(cfg):
        footprints.append((lo, hi))
    init = {}
    for pa0, data in cfg.mem:
        for k, byte in enumerate(data):
            init[pa0 + k] = byte

    def initial(pa):
        return int.from_bytes(bytes(init.get(pa + k, 0) for k in range(8)), endian)

    targets = {pa for s in faa.values() for pa, _ in s}
    targets = {pa for pa in targets if not any(lo < pa + 8 and pa < hi for lo, hi in footprints)}
    # the same QP/PSN with different targets or adds: those targets cannot be verified
    for key, s in faa.items():
        if len(s) > 1:
            targets -= {pa for pa, _ in s}
    return faa, targets, initial


def initial_memory(cfg):
    m = rdma_ref.Memory()
    for pa, data in cfg.mem:
        m.write(pa, data)
    return m


def posted_wqes(cfg, mem=None):
    """{qpn: [(buffer address, buffer length, wr_id)]} of the WQEs posted before traffic."""
    mem = mem or initial_memory(cfg)
    return {q.qpn: [rdma_ref.parse_wqe(mem.read(q.wqe_pa(i), rdma_ref.WQE_BYTES)) for i in range(q.rq_posted)]
            for q in cfg.qps.values() if q.has_rq}


def rq_footprints(cfg):
    """Host ranges the receive path may write: posted buffers and CQs."""
    out = []
    for qpn, wqes in posted_wqes(cfg).items():
        q = cfg.qps[qpn]
        out.append((q.cq, q.cq + rdma_ref.CQE_BYTES * q.cq_entries))
        out += [(buf, buf + n) for buf, n, _ in wqes]
    return out


def cqe_field(off):
    return next(name for name, lo, hi in rdma_ref.CQE_FIELDS if lo <= off < hi)


def cqe_value(name, b):
    lo, hi = next((lo, hi) for n, lo, hi in rdma_ref.CQE_FIELDS if n == name)
    v = b[lo:hi]
    if name == "imm_data" or name.startswith("zero"):
        return v.hex()
    return f"0x{int.from_bytes(v, 'little'):x}"


class Regions:
    """What a host address holds on the receive path (for CQE-aware memory messages)."""

    def __init__(self, cfg, resp):
        self.cfg = cfg
        self.final = {}                       # (qpn, slot) -> the reference's last CQE there
        for c in resp.cqes:
            self.final[(c.qpn, c.index % cfg.qps[c.qpn].cq_entries)] = c
        self.wqes = posted_wqes(cfg)

    def describe(self, pa):
        for q in self.cfg.qps.values():
            if not q.has_rq:
                continue
            if q.cq <= pa < q.cq + rdma_ref.CQE_BYTES * q.cq_entries:
                slot, off = divmod(pa - q.cq, rdma_ref.CQE_BYTES)
                c = self.final.get((q.qpn, slot))
                return (f"CQ of QP 0x{q.qpn:06x} slot {slot} byte {off} ({cqe_field(off)})"
                        + (f", CQE {c.index} of request {c.request} PSN 0x{c.psn:06x}" if c else ""))
            if q.rq <= pa < q.rq + rdma_ref.WQE_BYTES * q.rq_entries:
                return f"RQ of QP 0x{q.qpn:06x} slot {(pa - q.rq) // rdma_ref.WQE_BYTES}"
            for i, (buf, n, wr_id) in enumerate(self.wqes.get(q.qpn, [])):
                if buf <= pa < buf + n:
                    return (f"receive buffer of QP 0x{q.qpn:06x} WQE {i} (wr_id 0x{wr_id:08x}) byte "
                            f"{pa - buf}")
        return None


def check_cqes(cfg, resp, verdicts, mem_dut, rep):
    """Every CQ slot the reference wrote last, field by field, where an MR covers it."""
    checked = 0
    reg = Regions(cfg, resp)
    for (qpn, slot), c in sorted(reg.final.items()):
        got = None
        for m in cfg.mrs.values():
            if m.pa <= c.pa and c.pa + rdma_ref.CQE_BYTES <= m.pa + m.length:
                h = mem_dut.get(str(m.rkey))
                o = c.pa - m.pa
                if isinstance(h, str) and len(h) >= 2 * (o + rdma_ref.CQE_BYTES):
                    try:
                        got = bytes.fromhex(h[2 * o:2 * (o + rdma_ref.CQE_BYTES)])
                    except ValueError:
                        got = None
                break
        if got is None:
            continue
        checked += 1
        exp = c.to_bytes()
        if got == exp:
            continue
        off = next(k for k in range(len(exp)) if exp[k] != got[k])
        name = cqe_field(off)
        v = verdicts[c.request] if c.request is not None else None
        what = (f"request {c.request} {opname(v.opcode)} PSN 0x{c.psn:06x}" if v else f"PSN 0x{c.psn:06x}")
        rep.fail("cqe", f"QP 0x{qpn:06x} CQ slot {slot} (pa 0x{c.pa:x}), CQE {c.index} completing {what}: "
                 f"{name} expected {cqe_value(name, exp)} got {cqe_value(name, got)}")
    return checked


def at_most_once(cfg, frames_in, frames_out, mem_dut, endian, rep):
    """Returns the number of FAA targets verified."""
    from nettwin.rdma.layers import BTH, AtomicAckETH
    faa, targets, initial = faa_targets(cfg, frames_in, endian)
    by_dest = {}
    for q in cfg.qps.values():
        by_dest.setdefault(q.dest_qp, []).append(q.qpn)
    value = {pa: initial(pa) for pa in targets}
    first_orig = {}
    nacks = {pa: 0 for pa in targets}
    for j, (f, _) in enumerate(frames_out):
        try:
            p = decode(f)
            b = p[BTH]
        except Exception:
            continue
        if b.opcode != 0x12 or AtomicAckETH not in p:
            continue
        keys = [(q, b.psn) for q in by_dest.get(b.dqpn, []) if (q, b.psn) in faa]
        if len(keys) != 1:
            continue
        key = keys[0]
        (pa, add), = faa[key]
        if pa not in targets:
            continue
        orig = p[AtomicAckETH].orig
        where = f"response {j} (ATOMIC ACK, QP 0x{key[0]:06x} PSN 0x{key[1]:06x}, FAA target pa 0x{pa:x})"
        if key in first_orig:
            if orig != first_orig[key]:
                rep.fail("at-most-once", f"{where}: replay returns 0x{orig:016x}, the first ATOMIC ACK for "
                         f"this PSN returned 0x{first_orig[key]:016x}")
            continue
        if orig != value[pa]:
            rep.fail("at-most-once", f"{where}: original value 0x{orig:016x}, but the initial value plus "
                     f"the {nacks[pa]} distinct FAAs acknowledged before it give 0x{value[pa]:016x}")
        first_orig[key] = orig
        value[pa] = (value[pa] + add) % (1 << 64)
        nacks[pa] += 1
    checked = 0
    for pa in sorted(targets):
        got = None
        for m in cfg.mrs.values():
            if m.pa <= pa and pa + 8 <= m.pa + m.length:
                h = mem_dut.get(str(m.rkey)) if isinstance(mem_dut, dict) else None
                if isinstance(h, str) and len(h) >= 2 * (pa - m.pa + 8):
                    try:
                        got = int.from_bytes(bytes.fromhex(h[2 * (pa - m.pa):2 * (pa - m.pa + 8)]), endian)
                    except ValueError:
                        got = None
                break
        if got is None:
            continue
        checked += 1
        if got != value[pa]:
            rep.fail("at-most-once", f"FAA target pa 0x{pa:x}: final value 0x{got:016x}, but initial "
                     f"0x{initial(pa):016x} + the adds of its {nacks[pa]} distinct acknowledged FAA PSNs "
                     f"= 0x{value[pa]:016x}")
    return checked


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="Check a RoCEv2 responder run against docs/rdma.md")
    ap.add_argument("--config", required=True)
    ap.add_argument("--in", dest="inp", required=True, help="request pcap given to the responder")
    ap.add_argument("--out", required=True, help="response pcap produced by the responder")
    ap.add_argument("--mem-out", required=True, help="final MR memory JSON produced by the responder")
    ap.add_argument("--stats", help="stats JSON produced by the responder")
    ap.add_argument("--aq-linear", action="store_true", help="the run used --aq-linear")
    ap.add_argument("--atomic-endian", choices=("little", "big"), default="little")
    ap.add_argument("--show", type=int, default=1, metavar="N",
                    help="print the first N mismatches of each check (default 1)")
    a = ap.parse_args(argv)
    try:
        cfg = rdma_ref.load_config(a.config)
        frames_in = rdma_ref.read_pcap(a.inp)
        frames_out = rdma_ref.read_pcap(a.out)
        try:
            with open(a.mem_out) as fh:
                mem_dut = json.load(fh)
        except (OSError, ValueError) as e:
            raise InputError(f"{a.mem_out}: cannot read memory JSON ({e})") from None
        if not isinstance(mem_dut, dict):
            raise InputError(f"{a.mem_out}: not a JSON object")
        stats_dut = None
        if a.stats:
            try:
                with open(a.stats) as fh:
                    stats_dut = json.load(fh)
            except (OSError, ValueError) as e:
                raise InputError(f"{a.stats}: cannot read stats JSON ({e})") from None
    except (ConfigError, InputError) as e:
        print(f"rdma_check: error: {e}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"rdma_check: error: {e}", file=sys.stderr)
        return 2

    resp, verdicts = rdma_ref.run(cfg, frames_in, a.aq_linear, a.atomic_endian)
    exp = []            # (bytes, request index)
    for i, v in enumerate(verdicts):
        for rb in v.responses:
            exp.append((rb, i))
    rep = Report(max(1, a.show))

    by_qp_psn = {}
    for i, v in enumerate(verdicts):
        if v.qpn is not None:
            by_qp_psn.setdefault((v.qpn, v.psn), []).append(i)
    dest = {}
    for q in cfg.qps.values():
        dest.setdefault(q.dest_qp, []).append(q.qpn)

    def answers(frame, near):
        """'; it answers request i (...), for which the reference expects ...' for a response."""
        try:
            from nettwin.rdma.layers import BTH
            b = decode(frame)[BTH]
        except Exception:
            return ""
        cands = [i for q in dest.get(b.dqpn, []) for i in by_qp_psn.get((q, b.psn), [])]
        if not cands:
            return ""
        i = min(cands, key=lambda x: abs(x - near))
        v = verdicts[i]
        return (f"; it answers request {i} (QP 0x{v.qpn:06x} PSN 0x{v.psn:06x} {opname(v.opcode)}), for which "
                f"the reference expects {v.kind} with {len(v.responses)} response(s)"
                + (f" ({v.detail})" if v.detail else ""))

    def who(k):
        i = exp[k][1]
        v = verdicts[i]
        return f"request {i}, QP 0x{v.qpn:06x} PSN 0x{v.psn:06x} {opname(v.opcode)}"

    # bytes / icrc / decode
    if len(frames_out) != len(exp):
        rep.fail("count", f"expected {len(exp)} responses, got {len(frames_out)}")
    from nettwin.rdma.layers import check_icrc
    for j, (f, _) in enumerate(frames_out):
        if not check_icrc(f):
            rep.fail("icrc", f"response {j} ({brief(f)}): ICRC {bytes(f[-4:]).hex()} is wrong")
    for kind, k, j in align([e for e, _ in exp], [f for f, _ in frames_out]):
        if kind == "extra":
            near = f" (after the response to {who(k - 1)})" if k > 0 else ""
            rep.fail("bytes", f"response {j}: unexpected extra response {brief(frames_out[j][0])}{near}"
                     f"{answers(frames_out[j][0], exp[min(k, len(exp) - 1)][1] if exp else 0)}")
            continue
        if kind == "missing":
            rep.fail("bytes", f"response {j} ({who(k)}): missing, expected {brief(exp[k][0])}")
            continue
        rb, i = exp[k]
        got = frames_out[j][0]
        if kind == "diff":
            rep.fail("bytes", f"response {j} ({who(k)}): {field_diff(rb, got)}")
        try:
            err = decode_check(cfg, frames_in[i][0], got, verdicts[i].opcode)
        except Exception as e:
            err = f"cannot decode ({type(e).__name__}: {e})"
        if err:
            rep.fail("decode", f"response {j} ({who(k)}): {err}")

    # memory
    regions = Regions(cfg, resp)
    mem_ref = resp.memory_json()
    for key, hexref in mem_ref.items():
        mr = cfg.mrs[int(key)]
        got = mem_dut.get(key)
        if not isinstance(got, str):
            rep.fail("memory", f"rkey {key} (0x{int(key):08x}): missing from {a.mem_out}")
            continue
        try:
            gb = bytes.fromhex(got)
        except ValueError:
            rep.fail("memory", f"rkey {key} (0x{int(key):08x}): not a hex string")
            continue
        eb = bytes.fromhex(hexref)
        if gb != eb:
            n = min(len(eb), len(gb))
            off = next((x for x in range(n) if eb[x] != gb[x]), n)
            if off == n:
                rep.fail("memory", f"rkey {key} (0x{int(key):08x}): {len(gb)} bytes, the MR has {len(eb)}")
            else:
                w = resp.mem.writer.get(mr.pa + off)
                where = regions.describe(mr.pa + off)
                rep.fail("memory", f"rkey {key} (0x{int(key):08x}) byte {off} (va 0x{mr.va + off:x} pa "
                         f"0x{mr.pa + off:x}{', ' + where if where else ''}): expected 0x{eb[off]:02x} "
                         f"got 0x{gb[off]:02x} "
                         + (f"(last written by request {w}: {opname(verdicts[w].opcode)} PSN 0x{verdicts[w].psn:06x})"
                            if w is not None else "(never written: initial value)"))
    for key in mem_dut:
        if key not in mem_ref:
            rep.fail("memory", f"key {key!r} is not the rkey of an MR")

    # CQEs
    n_cqe = check_cqes(cfg, resp, verdicts, mem_dut, rep)

    # at-most-once
    n_amo = at_most_once(cfg, frames_in, frames_out, mem_dut, a.atomic_endian, rep)

    # stats
    exp_stats = rdma_ref.stats_of(resp, verdicts)
    if stats_dut is not None:
        if not isinstance(stats_dut, dict) or not isinstance(stats_dut.get("drops", {}), dict):
            rep.fail("stats", "stats JSON is not an object with a 'drops' object")
        else:
            for k in ("packets_in", "packets_out"):
                if stats_dut.get(k) != exp_stats[k]:
                    rep.fail("stats", f"{k}: expected {exp_stats[k]} got {stats_dut.get(k)}")
            gd = stats_dut.get("drops", {})
            for r in list(rdma_ref.DROP_REASONS) + sorted(set(gd) - set(rdma_ref.DROP_REASONS)):
                e, g = exp_stats["drops"].get(r, 0), gd.get(r, 0)
                if e != g:
                    first = next((i for i, v in enumerate(verdicts) if v.reason == r), None)
                    note = " (not a drop reason of docs/rdma.md)" if r not in rdma_ref.DROP_REASONS else ""
                    rep.fail("stats", f"drops.{r}: expected {e} got {g}{note}"
                             + (f" (first request with this reason: {first})" if first is not None else ""))

    if not rep.ok():
        rep.print()
        print(f"rdma_check: FAIL: {sum(rep.counts.values())} mismatches "
              f"({', '.join(f'{k}: {n}' for k, n in rep.counts.items())})")
        return 1
    print(f"rdma_check: PASS: {len(frames_in)} requests, {len(exp)} responses byte-exact, ICRC and "
          f"decode ok, {len(mem_ref)} MRs match, {n_cqe} CQEs match, at-most-once holds on {n_amo} FAA targets"
          + (", stats match" if stats_dut is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
