"""One generated run (Gen): QP / rkey / PA allocation, the event streams and their interleaving,
the responder config text and the host memory it must end with; frame surgery for the
malformed and bad-ICRC cases."""
import random

from nettwin.rdma.layers import fix_ipv4_checksum, set_icrc
from nettwin.rdma.gen_model import Flow, GMR, HALF, M24


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        rng = self.rng
        self.mac = "02:00:%02x:%02x:%02x:%02x" % tuple(rng.randrange(256) for _ in range(4))
        self.ip4 = "10.%d.%d.1" % (rng.randrange(1, 255), rng.randrange(256))
        self.ip6 = "fd00:%x::1" % rng.randrange(1, 0xFFFF)
        self.flows = []
        self.mrs = []
        self.qpns = set()
        self.rkeys = set()
        self.next_pa = 0x10_0000_0000 + rng.randrange(0, 0x1000) * 0x1000
        self.features = set()
        self._shared = None

    def alloc_qpn(self):
        while True:
            q = self.rng.randrange(2, M24)
            if q not in self.qpns:
                self.qpns.add(q)
                return q

    def alloc_pa(self, n):
        pa = self.next_pa
        self.next_pa += -(-n // 0x1000) * 0x1000 + self.rng.randrange(1, 16) * 0x1000
        return pa

    def flow(self, family, mtu, mra=16, epsn=None):
        f = Flow(self, family, mtu, mra, epsn)
        self.flows.append(f)
        return f

    def mr(self, length, access, init="random", note=""):
        rng = self.rng
        while True:
            rkey = rng.getrandbits(32)
            if rkey and rkey not in self.rkeys:
                self.rkeys.add(rkey)
                break
        va = rng.randrange(1 << 20, 1 << 47) & ~0x3F
        if init == "random":
            data = rng.randbytes(length)
        elif init == "partial":
            data = bytearray(length)
            for o in range(0, length, 512):
                if rng.random() < 0.6:
                    data[o:o + 512] = rng.randbytes(min(512, length - o))
        else:
            data = bytes(length)
        m = GMR(rkey, va, length, self.alloc_pa(length), access, data, note)
        self.mrs.append(m)
        return m

    def shared(self):
        """The two MRs every QP with an RQ shares (created on first use; they grow): a read-only
        one holding the RQ rings and CQs (so the memory check covers every CQE) and a read/write
        one holding the receive buffers (and WRITE targets of the send scenario)."""
        if self._shared is None:
            rings = self.mr(0, "r", "zero", "RQs and CQs (receive WQEs, completions)")
            rings.pa, rings.room = self.alloc_pa(1 << 20), 1 << 20
            bufs = self.mr(0, "rw", "zero", "receive buffers")
            bufs.pa, bufs.room = self.alloc_pa(1 << 20), 1 << 20
            self._shared = (rings, bufs)
        return self._shared

    def aq_view(self, flow):
        m = self.mr(flow.depth * 16, "r", "zero", f"AQ of QP 0x{flow.qpn:06x}, read-only view")
        m.pa = flow.aq
        m.aq_of = flow
        return m

    # ------------------------------------------------------------------ emission
    def ev(self, stream, frame, intent, flow, psn, op, note):
        stream.append(dict(frame=frame, intent=intent, qpn=flow.qpn if flow else None, psn=psn,
                           op=op, note=note))

    def emit(self, stream, req, note=None):
        """Send a PReq; the intent follows from the model's ePSN / NAK state."""
        f = req.flow
        d = (req.psn - f.epsn) % M24
        if req.kind.startswith("bad:"):
            assert d == 0, f"bad request not at the ePSN ({req.note})"
            intent = req.kind[4:]
            f.naked = True
        elif d == 0:
            f.naked = False
            if req.decide:
                intent = req.decide()
            else:
                intent = "exec"
                if req.effect:
                    req.effect()
            if intent == "exec":
                f.epsn = (f.epsn + req.adv) % M24
            else:
                f.naked = True
        elif d < HALF:
            intent = "drop:psn_ahead_silent" if f.naked else "nak-seq"
            f.naked = True
        else:
            if req.kind == "atomic":
                intent = "dup" if f.aq_findable(req.psn) else "dup-nak-inv"
            else:
                intent = "dup"
        op = req.frame[14 + (20 if req.frame[12:14] == b"\x08\x00" else 40) + 8]
        self.ev(stream, req.frame, intent, f, req.psn, op, note or req.note)
        return intent

    def emit_drop(self, stream, frame, reason, flow, note, psn=None, op=None):
        self.ev(stream, frame, "drop:" + reason, flow, psn, op, note)

    def emit_all(self, stream, reqs):
        for r in reqs:
            self.emit(stream, r)

    # ------------------------------------------------------------------ outputs
    def config_text(self, scenario, seed, aq_mode=None):
        L = [f"# rdma_gen.py --seed {seed} --scenario {scenario}" + (f" --aq-mode {aq_mode}" if aq_mode else ""),
             f"responder mac {self.mac} ip {self.ip4} ip6 {self.ip6}" + (f" aq_mode {aq_mode}" if aq_mode else "")]
        for f in self.flows:
            rq = ""
            if f.rq_entries is not None:
                rings, _ = self.shared()
                rq = (f" rq 0x{rings.pa + f.rq_off:x} rq_entries {f.rq_entries} rq_posted {len(f.wqes)}"
                      f" cq 0x{rings.pa + f.cq_off:x} cq_entries {f.cq_entries}")
            if f.rnr_timer is not None:
                rq += f" rnr_timer {f.rnr_timer}"
            L.append(f"qp 0x{f.qpn:06x} dest_qp 0x{f.dest_qp:06x} epsn 0x{f.conf_epsn:06x} mtu {f.mtu} "
                     f"max_rd_atomic {f.mra} aq 0x{f.aq:x}{rq}   # {f.scenario}, "
                     + ("IPv4+IPv6" if f.family == "mixed" else f"IPv{f.family}"))
        for m in self.mrs:
            L.append(f"mr 0x{m.rkey:08x} va 0x{m.va:x} len {m.length} pa 0x{m.pa:x} access {m.access}"
                     + (f"   # {m.note}" if m.note else ""))
        for m in self.mrs:
            for o in range(0, m.length, 1024):
                chunk = m.init[o:o + 1024]
                if any(chunk):
                    L.append(f"mem 0x{m.pa + o:x} {chunk.hex()}")
        return "\n".join(L) + "\n"

    def expect_memory(self):
        out = {}
        for m in self.mrs:
            if m.aq_of is not None:
                f = m.aq_of
                aq = bytearray(m.init)
                for k, (psn, orig) in enumerate(f.atomics):
                    e = (k % f.depth) * 16
                    aq[e:e + 16] = (0x80000000 | psn).to_bytes(4, "big") + bytes(4) + orig.to_bytes(8, "big")
                out[str(m.rkey)] = bytes(aq).hex()
            else:
                out[str(m.rkey)] = bytes(m.data).hex()
        return out


def interleave(rng, streams):
    """Random merge of event lists, each list's order preserved."""
    streams = [list(s) for s in streams if s]
    pos = [0] * len(streams)
    out = []
    left = sum(len(s) for s in streams)
    while left:
        r = rng.randrange(left)
        for i, s in enumerate(streams):
            rem = len(s) - pos[i]
            if r < rem:
                out.append(s[pos[i]])
                pos[i] += 1
                break
            r -= rem
        left -= 1
    return out


# =============================================================================================
# Frame surgery (for malformed / bad ICRC packets)
# =============================================================================================


def l4_off(fr):
    return 14 + (20 if fr[12:14] == b"\x08\x00" else 40)


def refresh(fr):
    """Recompute the IPv4 header checksum and the ICRC after editing a frame."""
    return set_icrc(fix_ipv4_checksum(bytes(fr)))
