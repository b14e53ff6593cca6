"""The client's MRSP and RPC scenarios (docs/naa.md "MRSP and RPC", "Client scenarios"), for gen.py.

Writes D/naa_ctl.txt (the endpoint with its controller: an RQ/CQ on the qp line, a `req` line and a `ctl`
line), D/naa_rpc_err.txt (the same with a kernel budget of 4 cycles) and D/naa_lib.txt (the same with the
library's immediates, `imm naaice`), and per scenario the client's frames
and their gates (each client frame that answers or follows the endpoint waits for the endpoint's frames):
  mrsp      connect; 0x01 with 1..mrs regions -> 0x02; a second 0x01 replacing the grant (a WRITE into it);
            every error: 0x03 (N above the controller's MR slots, N above 32), 0x02 (an address outside the
            pool, also before a 0x01 entry), 0x01 (address + size beyond the pool), 0x04 (0..3 bytes, type 0x00
            / 0x02 / another, N = 0, truncated); a WRITE into the grant (it survived the errors); a WRITE to a
            revoked or never granted rkey (NAK: remote access error); disconnect; reconnect with an MRSP
  rpc       connect; 2..4 RPCs (add, CRC-32, copy), before each maybe a new MRSP: the parameters WRITTEN into
            the granted regions (split at the path MTU), the last a WRITE_WITH_IMM whose immediate is the
            function code; the endpoint's result WRITE_WITH_IMM (imm 0) ACKed by the client; disconnect
  rpc_err   on naa_rpc_err.txt: an RPC before any MRSP (rpc_no_regions: into the static MR), too few regions
            (0x11), unknown function codes (0x10: 0, 4 .. 2^32 - 1), sizes that do not fit (0x12) for each
            kernel, a kernel timeout (0x02); disconnect; reconnect, an RPC before the MRSP again, an MRSP
  rpc_lib   on naa_lib.txt (the ctl line with `imm naaice`): the naa-communication-library's immediates
            (htonl(fncode | user bytes << 8 | 0x80)): 2..4 RPCs with random user bytes, each with its result
            and immediate 0; unknown functions (4..0x7F with the flag, the flag with 0, a plain code without
            the flag) and too few regions, answered with the code << 8 (what the library reads as >> 8)
  rpc_lost  the ACK of the MRSP answer lost (the endpoint resends it), the endpoint's ACK of the client's
            WRITE_WITH_IMM lost (the client resends the whole message: duplicates, ACKed, the kernel runs
            once), the client's ACK of the result lost (the endpoint resends it after its timeout); then an
            RPC whose kernel runs long with the DREQ right behind it, reconnect, maybe a large WRITE into the
            static MR first, MRSP + RPC on the new connection, a WRITE to the old grant's last rkey (NAK)
Random per seed: the pool, its size, rkey_base, the number of MR slots (4..32, or the default 32) and of
receive buffers (2..4), the path MTU
(256..1024), region addresses (any byte alignment), sizes and counts, the client's host regions and rkeys,
the parameters, the function codes.
"""
import os
import random

from nettwin.naa import kernels
from nettwin.naa.mrsp import NAA_REGIONS, build_request, grant_rkey
from nettwin.rdma.layers import OP, RETH, ImmDt, build_request as roce

CTL_SCENARIOS = ("mrsp", "rpc", "rpc_err", "rpc_lost", "rpc_lib")
CONFIG_OF = {"mrsp": "naa_ctl.txt", "rpc": "naa_ctl.txt", "rpc_err": "naa_rpc_err.txt", "rpc_lost": "naa_ctl.txt",
             "rpc_lib": "naa_lib.txt"}
MTU_CODE = {256: 1, 512: 2, 1024: 3}
RQ, CQ, RXBUF, TXBUF = 0x20000, 0x21000, 0x30000, 0x38000   # 4 receive buffers of 6144 bytes, then the answer
NEEDS = {kernels.ADD: 3, kernels.CRC: 2, kernels.COPY: 2}


def fits(fn, sizes):
    """The kernel's region count and sizes (docs/naa.md "RPC") hold for a grant of these sizes."""
    if len(sizes) < NEEDS[fn]:
        return False
    if fn == kernels.ADD:
        return sizes[0] == sizes[1] == sizes[2] and sizes[0] % 4 == 0
    if fn == kernels.CRC:
        return sizes[1] >= 4
    return sizes[1] >= sizes[0]


class Script:
    """One scenario: the client's frames, their gates, and what the client knows of the endpoint (frames it
    has sent, its requester's next PSN)."""

    def __init__(self, client, qpn, start_psn, sid, comm_base):
        self.c, self.qpn, self.start, self.sid, self.comm_base = client, qpn, start_psn, sid, comm_base
        self.frames, self.gates, self.sent, self.conns = [], {}, 0, 0
        self.rkey_base, self.grants = 0, 0     # the endpoint's grants so far (each one's rkeys are new)

    def rkey(self, i, grant=None):
        """The rkey of region i of the latest grant (or of the grant-th since reset), docs/naa.md "Granting"."""
        return grant_rkey(self.rkey_base, self.grants - 1 if grant is None else grant, i)

    def add(self, frames, replies=0, gate=False):
        if gate:
            self.gates[len(self.frames)] = self.sent
        self.frames += frames
        self.sent += replies

    def connect(self):
        if self.conns:
            self.c.new_connection()
        self.comm = (self.comm_base + self.conns) & 0xFFFFFFFF
        self.conns += 1
        self.epsn = self.start
        self.add([self.c.req(self.sid, mtu=MTU_CODE[self.c.mtu])], 1)
        self.add([self.c.rtu(self.comm)], gate=True)

    def disconnect(self):
        self.add([self.c.dreq(self.comm, self.qpn)], 1)

    def message(self, op, data, va=0, rkey=0, imm=None, gate=False):
        """One client message split at the MTU, ACKed once (its last packet asks for it); its packets."""
        pk = client_packets(self.c, self.qpn, op, data, va, rkey, imm)
        self.add(pk, 1, gate)
        return pk

    def endpoint_sends(self, length):
        """The endpoint's requester sends a message of `length` bytes: its last PSN and packet count."""
        n = max(1, -(-length // self.c.mtu))
        self.sent += n
        last = (self.epsn + n - 1) & 0xFFFFFF
        self.epsn = (self.epsn + n) & 0xFFFFFF
        return last, n

    def ack(self, last, n, lost=False):
        """The client ACKs the endpoint's message once it arrived (gated); lost: the first ACK was lost, so
        it waits for the endpoint's retransmission (Go-Back-N: the whole message again) too."""
        if lost:
            self.sent += n
        self.add([self.c.ack(self.qpn, last)], gate=True)

    def mrsp(self, entries, answer_len, lost=False):
        self.message("send", build_request(entries) if isinstance(entries, list) else entries)
        if answer_len > 4:                   # a grant (an error answer is 4 bytes)
            self.grants += 1
        self.ack(*self.endpoint_sends(answer_len), lost=lost)

    def rpc(self, fn, inputs, result_len, split=None, dup=False, lost=False):
        """inputs: [(va, rkey, data)], the last carries the immediate.  dup: the client missed the ACK of its
        WRITE_WITH_IMM and sends the message again after the result arrived (duplicates: one ACK each)."""
        pk = []
        for i, (va, rkey, data) in enumerate(inputs):
            imm = fn if i + 1 == len(inputs) else None
            if split and i == 0 and imm is None and len(data) > split:
                self.message("write", data[:split], va, rkey)
                data, va = data[split:], va + split
            pk = self.message("write", data, va, rkey, imm)
        last, n = self.endpoint_sends(result_len)
        if dup:
            self.add(pk, len(pk), gate=True)
        self.ack(last, n, lost)


def client_packets(c, qpn, op, data, va, rkey, imm):
    """One message of the client's QP (Client of gen.py) as RC packets at its path MTU."""
    n = max(1, -(-len(data) // c.mtu))
    out = []
    for k in range(n):
        first, last = k == 0, k + 1 == n
        chunk = data[k * c.mtu:(k + 1) * c.mtu]
        kind = "SEND" if op == "send" else "WRITE"
        pos = "ONLY" if n == 1 else "FIRST" if first else "LAST" if last else "MIDDLE"
        opcode = OP[kind + "_" + pos + ("_IMM" if imm is not None and last else "")]
        ext = []
        if op == "write" and first:
            ext.append(RETH(va=va, rkey=rkey, dlen=len(data)))
        if imm is not None and last:
            ext.append(ImmDt(imm=imm))
        out.append(roce(4, c.addr["mac"], c.server_mac, c.addr["ip"], c.server_ip, c.addr["sport"], opcode,
                        qpn, c.psn, ackreq=last, ext=tuple(ext), payload=chunk))
        c.psn = (c.psn + 1) & 0xFFFFFF
    return out


class Pool:
    """The FPGA memory pool of the ctl line and the client's host regions."""

    def __init__(self, rng, pool, size):
        self.rng, self.base, self.size = rng, pool, size

    def regions(self, sizes):
        """Disjoint regions of these sizes at random byte addresses (one slot of the pool each), each with a
        host region of the same size."""
        slot = self.size // max(1, len(sizes))
        out = []
        for i, s in enumerate(sizes):
            assert s <= slot, (s, slot)
            out.append({"fpga": self.base + slot * i + self.rng.randrange(slot - s + 1), "size": s,
                        "addr": self.rng.randrange(1 << 64), "rkey": self.rng.randrange(1 << 32),
                        "flags": self.rng.randrange(256)})
        return out

    def anywhere(self, n):
        """n regions anywhere in the pool (overlaps allowed), sizes up to the pool's end."""
        out = []
        for _ in range(n):
            a = self.base + self.rng.randrange(self.size)
            s = self.rng.choice((0, 1, self.rng.randrange(1 << 16), self.base + self.size - a))
            out.append({"fpga": a, "size": min(s, self.base + self.size - a), "addr": self.rng.randrange(1 << 64),
                        "rkey": self.rng.randrange(1 << 32), "flags": self.rng.randrange(256)})
        return out


def write_configs(rng, out_dir):
    """D/naa_ctl.txt and D/naa_rpc_err.txt from D/naa.txt; returns the ctl settings the client knows."""
    with open(os.path.join(out_dir, "naa.txt")) as fh:
        base = fh.read()
    entries = rng.randrange(2, 5)
    pool = rng.randrange(1 << 24, 1 << 40)
    pool_size = rng.choice((1 << 16, 3 << 16, 1 << 20)) + rng.randrange(64)
    mrs = rng.choice((rng.randrange(4, 32), rng.randrange(4, 32), 32, None))   # None: the default, 32
    rkey_base = rng.randrange(0x2000, 1 << 32) & ~0xFF
    lines = []
    for line in base.splitlines():
        if line.startswith("qp "):
            line += " rq 0x%x rq_entries %d rq_posted %d cq 0x%x cq_entries 16" % (RQ, entries, entries, CQ)
        lines.append(line)
    lines.append("req timeout 2000 retry 3 rnr_retry 7")
    ctl = ("ctl pool 0x%x pool_size 0x%x rxbuf 0x%x txbuf 0x%x rkey_base 0x%x mr_first 1"
           % (pool, pool_size, RXBUF, TXBUF, rkey_base)) + (" mrs %d" % mrs if mrs else "")
    for name, extra in (("naa_ctl.txt", ""), ("naa_rpc_err.txt", " budget 4"), ("naa_lib.txt", " imm naaice")):
        with open(os.path.join(out_dir, name), "w") as fh:
            fh.write("\n".join(lines + [ctl + extra]) + "\n")
    start = int(base.split(" psn 0x", 1)[1].split()[0], 16)
    return {"pool": Pool(rng, pool, pool_size), "mrs": mrs or NAA_REGIONS, "rkey_base": rkey_base, "start": start}


def data(rng, n):
    return bytes(rng.randrange(256) for _ in range(n))


def kernel_sizes(rng, fn, mrs):
    """Region sizes a kernel accepts (docs/naa.md "RPC"), with 0..2 unused regions after them."""
    if fn == kernels.ADD:
        s = 4 * rng.choice((0, 1, rng.randrange(1, 1025), rng.randrange(1, 1025)))
        sizes = [s, s, s]
    elif fn == kernels.CRC:
        sizes = [rng.choice((0, 1, rng.randrange(4097), rng.randrange(4097))), rng.randrange(4, 65)]
    else:
        s = rng.choice((0, rng.randrange(4097), rng.randrange(4097)))
        sizes = [s, s + rng.choice((0, rng.randrange(65)))]
    extra = rng.randrange(0, min(2, mrs - len(sizes)) + 1)
    return sizes + [rng.randrange(1025) for _ in range(extra)]


def lib_imm(rng, fn):
    """The library's RPC immediate (lib/naaice.c naaice_set_immediate + START_RPC_MASK) as a big-endian number:
    random user bytes above the function code."""
    return rng.choice((0, rng.randrange(1 << 24))) << 8 | kernels.START_RPC_MASK | fn


def rpc_call(rng, s, fn, regions, imm=None, **kw):
    """The parameters of kernel fn written into the granted regions (a zero-length result on an error); `imm`
    the immediate (default: fn, the seed's encoding)."""
    ins = [(r["fpga"], s.rkey(i), data(rng, r["size"])) for i, r in enumerate(regions[:max(1, NEEDS[fn] - 1)])]
    sizes = [r["size"] for r in regions]
    result = {kernels.ADD: sizes[0], kernels.CRC: 4, kernels.COPY: sizes[0]}[fn] if fits(fn, sizes) else 0
    s.rpc(fn if imm is None else imm, ins, result, split=rng.choice((None, 100, 700)), **kw)


def scen_mrsp(rng, s, k):
    pool, mrs = k["pool"], k["mrs"]
    end = pool.base + pool.size
    s.connect()
    g1 = pool.anywhere(rng.randrange(1, mrs + 1))
    s.mrsp(g1, 4 + 16 * len(g1))
    first = s.grants - 1
    g2 = pool.regions([rng.randrange(1, 1025) for _ in range(rng.randrange(1, mrs + 1))])
    s.mrsp(g2, 4 + 16 * len(g2))

    def write_into(i):
        s.message("write", data(rng, rng.randrange(1, g2[i]["size"] + 1)), g2[i]["fpga"], s.rkey(i))
    write_into(rng.randrange(len(g2)))

    def small(n):
        return pool.regions([rng.randrange(17) for _ in range(n)])

    def outside():
        return rng.choice((pool.base - 1 - rng.randrange(pool.base), end + rng.randrange((1 << 56) - end)))

    def with_bad(kinds):
        g = small(rng.randrange(len(kinds), 6))
        j = rng.randrange(len(g) - len(kinds) + 1)
        for i, kind in enumerate(kinds):
            e = g[j + i]
            if kind == "address":
                e["fpga"] = outside()
            else:
                e["fpga"] = end - 1 - rng.randrange(min(4096, pool.size))
                e["size"] = end - e["fpga"] + 1 + rng.randrange(1 << 20)
        return build_request(g)

    full = build_request(small(rng.randrange(2, 9)))
    above = rng.randrange(mrs + 1, NAA_REGIONS + 1) if mrs < NAA_REGIONS else rng.randrange(NAA_REGIONS + 1, 43)
    errors = [build_request(small(above)),                                     # 0x03: above the MR slots
              build_request(small(rng.randrange(NAA_REGIONS + 1, 43))),        # 0x03: above 32 (under 1024 bytes)
              with_bad(["address"]), with_bad(["memory"]),                     # 0x02, 0x01
              with_bad(["address", "memory"]), with_bad(["memory", "address"]),  # first failing entry wins
              b"", data(rng, rng.randrange(1, 4)),                             # 0x04: shorter than 4 bytes
              bytes([0, 1, 0, 0]), bytes([2, 1, 0, 0]) + data(rng, 16),        # 0x04: an error, an advertisement
              bytes([rng.randrange(3, 256)]) + full[1:],                       # 0x04: another type
              bytes([1, 0, 0, 0]) + full[4:4 + 24 * rng.randrange(2)],         # 0x04: N = 0
              full[:rng.randrange(4, len(full))],                              # 0x04: truncated
              bytes([1, rng.randrange(mrs + 1, 256), 0, 0]) + full[4:28]]      # 0x04 before 0x03
    rng.shuffle(errors)
    # 0x03 for 43..255 regions (up to 6124 bytes: the receive buffers hold any 0x01, docs/naa.md "IBA rules"),
    # from its own generator, so that the later scenarios of a seed stay what they were
    big = random.Random(pool.base)
    errors.insert(big.randrange(len(errors) + 1), build_request(
        [{"fpga": pool.base + big.randrange(pool.size - 16), "size": big.randrange(17), "addr": big.randrange(1 << 64),
          "rkey": big.randrange(1 << 32), "flags": big.randrange(256)}
         for _ in range(big.choice((43, 255, big.randrange(44, 255))))]))
    for e in errors:
        s.mrsp(e, 4)
    write_into(rng.randrange(len(g2)))                                         # the grant survived them
    # an rkey of the first grant that the second revoked, or one it never had (with the first grant's key)
    gone = s.rkey(len(g2) + (rng.randrange(len(g1) - len(g2)) if len(g1) > len(g2) else 0), grant=first)
    s.message("write", data(rng, 8), pool.base, gone)                          # NAK: remote access error
    s.disconnect()
    s.connect()
    g3 = pool.regions([rng.randrange(1025) for _ in range(rng.randrange(1, mrs + 1))])
    s.mrsp(g3, 4 + 16 * len(g3))
    s.disconnect()


def rpcs(rng, s, k, imm=lambda rng, fn: None):
    """Connect, then 2..4 RPCs (add, CRC-32, copy), before each (always before the first, and whenever the grant
    does not fit the kernel) maybe a new MRSP; imm(rng, fn): the immediate (None: the seed's, fn). The grant."""
    s.connect()
    sizes = g = None
    for _ in range(rng.randrange(2, 5)):
        fn = rng.choice((kernels.ADD, kernels.CRC, kernels.COPY))
        if g is None or not fits(fn, sizes) or rng.random() < 0.5:
            sizes = kernel_sizes(rng, fn, k["mrs"])
            g = k["pool"].regions(sizes)
            s.mrsp(g, 4 + 16 * len(g))
        rpc_call(rng, s, fn, g, imm=imm(rng, fn))
    return g


def scen_rpc(rng, s, k):
    rpcs(rng, s, k)
    s.disconnect()


def scen_lib(rng, s, k):
    g = rpcs(rng, s, k, lib_imm)
    bad = [lib_imm(rng, rng.randrange(4, 0x80)), lib_imm(rng, 0),              # 0x10 << 8
           rng.choice((kernels.ADD, kernels.CRC, kernels.COPY)) | rng.randrange(1 << 24) << 8]   # no flag
    rng.shuffle(bad)
    for imm in bad:
        s.rpc(imm, [(g[0]["fpga"], s.rkey(0), data(rng, g[0]["size"]))], 0)
    one = k["pool"].regions([4 * rng.randrange(1, 65)])
    s.mrsp(one, 20)
    rpc_call(rng, s, kernels.ADD, one, imm=lib_imm(rng, kernels.ADD))   # 0x11 << 8
    s.disconnect()


def scen_err(rng, s, k, static_mr):
    pool = k["pool"]
    va, rkey = static_mr

    def before_mrsp():   # a WRITE_WITH_IMM into the static MR: ACKed, nothing to answer (rpc_no_regions)
        s.message("write", data(rng, rng.randrange(300)), va + rng.randrange(4096), rkey, imm=rng.randrange(1, 4))
    s.connect()
    before_mrsp()
    one = pool.regions([4 * rng.randrange(1, 65)])
    s.mrsp(one, 20)
    for fn in (kernels.ADD, rng.choice((kernels.CRC, kernels.COPY))):         # 0x11: too few regions
        rpc_call(rng, s, fn, one)
    for fn in (0, rng.choice((4, 0x10, 0x100, 0x01000000, rng.randrange(4, 1 << 32)))):   # 0x10
        s.rpc(fn, [(one[0]["fpga"], s.rkey(0), data(rng, one[0]["size"]))], 0)
    s0 = 4 * rng.randrange(1, 65)
    g = pool.regions([s0, rng.randrange(4), rng.randrange(1025)])              # 0x12 for every kernel
    s.mrsp(g, 4 + 16 * 3)
    for fn in (kernels.ADD, kernels.CRC, kernels.COPY):
        rpc_call(rng, s, fn, g)
    fn = rng.choice((kernels.ADD, kernels.CRC, kernels.COPY))                 # 0x02: the budget of 4 cycles
    sizes = [0]
    while sizes[0] == 0:     # a kernel with no data to move may finish within any budget
        sizes = kernel_sizes(rng, fn, k["mrs"])
    g = pool.regions(sizes)
    s.mrsp(g, 4 + 16 * len(g))
    s.rpc(fn, [(r["fpga"], s.rkey(i), data(rng, r["size"])) for i, r in enumerate(g[:max(1, NEEDS[fn] - 1)])], 0)
    s.disconnect()
    s.connect()
    before_mrsp()                                                             # the grant went with the connection
    s.mrsp(one, 20)     # answered after that event: so the DREQ cannot overtake it (it would be flushed)
    s.disconnect()


def scen_lost(rng, s, k, static_mr):
    s.connect()
    fn = rng.choice((kernels.ADD, kernels.CRC, kernels.COPY))
    sizes = kernel_sizes(rng, fn, k["mrs"])
    g = k["pool"].regions(sizes)
    s.mrsp(g, 4 + 16 * len(g), lost=True)                    # the answer's ACK lost: the endpoint resends it
    fns = [f for f in (kernels.ADD, kernels.CRC, kernels.COPY) if fits(f, sizes)]
    rpc_call(rng, s, fn, g, dup=True)        # the client's WRITE_WITH_IMM again
    rpc_call(rng, s, rng.choice(fns), g, lost=True)   # the result's ACK lost
    rpc_call(rng, s, rng.choice(fns), g, dup=True, lost=True)
    reconnect_while_running(rng, s, k, static_mr)


def reconnect_while_running(rng, s, k, static_mr):
    """An RPC whose kernel runs long, the client's DREQ right behind it (it does not wait for the result),
    a reconnection, an MRSP and an RPC on the new connection, a WRITE to an rkey of the old grant (NAK: the
    grant went with the old connection), disconnect.  Deterministic in both modes: region 0 holds 8..16 KiB,
    so the kernel's DMA reads take hundreds of cycles (64 bytes a cycle at best), while the DREQ (gated on the
    responder's ACK of the RPC's last packet, like NaaCov.KernelRunningAcrossAReconnect) is 6 beats: the
    connection is always gone before the kernel ends (ref_ctl.py LONG_KERNEL).  Whether the new MRSP reaches
    the controller while the old kernel still runs (it waits in the event queue) or after (the client first
    WRITEs 32..64 KiB into the static MR and waits for its ACK) changes no frame the endpoint sends."""
    fn = rng.choice((kernels.ADD, kernels.CRC, kernels.COPY))
    n = rng.randrange(8192, 16385) & ~3
    sizes = {kernels.ADD: [n, n, n], kernels.CRC: [n, rng.randrange(4, 65)],
             kernels.COPY: [n, n + rng.randrange(65)]}[fn]
    old = k["pool"].regions(sizes + [rng.randrange(1025) for _ in range(4 - len(sizes))])   # 4: more than the new
    s.mrsp(old, 4 + 16 * len(old))
    old_grant = s.grants - 1
    ins = [(r["fpga"], s.rkey(i), data(rng, r["size"])) for i, r in enumerate(old[:NEEDS[fn] - 1])]
    for i, (va, rkey, d) in enumerate(ins):
        s.message("write", d, va, rkey, fn if i + 1 == len(ins) else None)
    s.add([s.c.dreq(s.comm, s.qpn)], 1, gate=True)               # right behind: no result comes
    s.connect()
    if rng.random() < 0.5:                                       # the new MRSP most likely after the kernel
        va, rkey = static_mr
        s.message("write", data(rng, rng.randrange(32768, 65537)), va, rkey)
        s.gates[len(s.frames)] = s.sent
    fn2 = rng.choice((kernels.ADD, kernels.CRC, kernels.COPY))
    sizes2 = kernel_sizes(rng, fn2, k["mrs"])[:NEEDS[fn2]]
    new = k["pool"].regions(sizes2)
    s.mrsp(new, 4 + 16 * len(new))
    rpc_call(rng, s, fn2, new)
    s.message("write", data(rng, 8), old[-1]["fpga"], s.rkey(len(old) - 1, grant=old_grant))   # NAK: revoked
    s.disconnect()


def make_ctl(rng, out_dir, new_client, server, sid, qpn, comm_base, static_mr):
    """The configs and the four scenarios: {scenario: (client frames, gates, endpoint frames in all)}."""
    k = write_configs(rng, out_dir)
    out = {}
    for name, build in (("mrsp", scen_mrsp), ("rpc", scen_rpc), ("rpc_err", scen_err), ("rpc_lost", scen_lost),
                        ("rpc_lib", scen_lib)):
        c = new_client()
        c.mtu = rng.choice((256, 512, 1024))
        c.server_mac, c.server_ip = server["mac"], server["ip"]
        s = Script(c, qpn, k["start"], sid, comm_base)
        s.rkey_base = k["rkey_base"]
        build(rng, s, k, static_mr) if build in (scen_err, scen_lost) else build(rng, s, k)
        out[name] = (s.frames, s.gates, s.sent)
    return out
