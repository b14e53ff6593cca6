"""The RDMA checker's host-memory checks (see check.py): every CQE the reference wrote, decoded
from the memory JSON and named by field; at-most-once of FAAs, computed from the requests and the
responses under test, not from the reference."""
import ipaddress

from nettwin.rdma import ref as rdma_ref
from nettwin.rdma.ref import opname
from nettwin.rdma.check_decode import decode


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
