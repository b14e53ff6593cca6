#!/usr/bin/python3
"""Seeded scenario generator for the RoCEv2 responder (docs/rdma.md).

  /usr/bin/python3 scripts/rdma_gen.py --seed N --out-dir D [--scenario NAME] [--manifest]
      [--aq-mode grouped|linear] [--no-check]

Writes D/responder.txt (config), D/requests.pcap and D/expect_memory.json.  The same seed always
gives the same bytes.  Scenarios (each on its own QPs and memory regions; at most 16 QPs in any
config, including mixed, which the C++ tool requires):

  traffic    WRITE (only / first-middle-last, with immediate, AckReq) and READ (0 .. several MTUs,
             unaligned lengths) on 4 QPs: IPv4, IPv6, both families on one QP, MTU 256..4096
  atomic     CAS (success and failure) and FAA on one QP with an AQ of 128 entries (2 groups),
             more atomics than the AQ holds (it wraps), each executed atomic retransmitted
             again at a random later point with every distance 1 .. depth+4 (in atomics) back
             (found up to depth, NAK beyond), writes in between; the AQ is visible through a
             read-only MR
  lostack    lost ACKs: Go-Back-N retransmission of executed WRITE/READ/ATOMIC requests, a READ
             retransmitted after its memory changed, a partial READ retransmission, AQ replays
  reorder    swapped, lost and duplicated requests: one PSN-sequence-error NAK then silence,
             Go-Back-N from the ePSN, a lost WRITE MIDDLE, ahead READ/ATOMIC
  badreq     unknown rkey, missing access right, out of bounds (incl. va + len past 2^64),
             misaligned ATOMIC, WRITE length errors, opcode sequence errors, READ length 2^31
             vs 2^31+1; the first failing check wins; each NAK is followed by
             silently dropped later packets and the corrected retransmission
  psnwrap    ePSN near 0xFFFFF0: multi-packet WRITE and READ and atomics across 2^24,
             duplicates and AQ replays across the wrap, ahead window edges 2^23-1 / 2^23
  icrc       bad ICRC (ICRC, payload, unmasked header fields, ATOMIC operand) -> dropped with
             no effect; masked fields (TOS, TTL, flow label, hop limit, UDP checksum, FECN/BECN)
             changed after the ICRC was computed -> still accepted
  malformed  runt and malformed frames, not_for_us, unknown_qp, not_request (response opcodes),
             drop-reason priorities
  send       SEND first/middle/only/imm -> NAK invalid request (unsupported_opcode)
  mixed      (default) all of the above, interleaved at random (each QP's order preserved)
  edge       (not in mixed) cases where docs/rdma.md is silent, with the reference's reading:
             see the RDMA section of scripts/README.md

The generator is a requester plus its own small model of the responder: it knows by construction
what each request should do (executed, duplicate, NAK, drop and why) and what host memory must
hold at the end; that model is written here, not taken from rdma_ref.py.  expect_memory.json is
the generator's own memory.  Unless --no-check, the generator then runs rdma_ref.py and exits 1
if the reference disagrees with its intent for any packet or with its final memory, or if the
scenario misses a feature it must cover.  --manifest writes D/manifest.txt (one line per packet:
intent, QP, PSN, opcode, what it tests).
"""
import argparse
import os
import random
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scapy.contrib.roce import AETH  # noqa: E402
from scapy.layers.l2 import ARP, Ether  # noqa: E402

from roce_layers import (AtomicAckETH, AtomicETH, ImmDt, RETH, build_request,  # noqa: E402
                         fix_ipv4_checksum, set_icrc)

M24 = 1 << 24
HALF = 1 << 23
GROUP = 64
TS0 = 1700000000.0
TS_STEP = 10e-6          # 10 us between requests: room for any DMA latency

OP = dict(SEND_FIRST=0x00, SEND_MIDDLE=0x01, SEND_LAST=0x02, SEND_LAST_IMM=0x03, SEND_ONLY=0x04,
          SEND_ONLY_IMM=0x05, W_FIRST=0x06, W_MIDDLE=0x07, W_LAST=0x08, W_LAST_IMM=0x09,
          W_ONLY=0x0A, W_ONLY_IMM=0x0B, READ=0x0C, RR_FIRST=0x0D, RR_MIDDLE=0x0E, RR_LAST=0x0F,
          RR_ONLY=0x10, ACK=0x11, ATOMIC_ACK=0x12, CAS=0x13, FAA=0x14)
OPN = {v: k for k, v in OP.items()}

SCENARIOS = ("traffic", "atomic", "lostack", "reorder", "badreq", "psnwrap", "icrc", "malformed",
             "send")
ALL_SCENARIOS = SCENARIOS + ("edge",)


# =============================================================================================
# Model objects
# =============================================================================================

class GMR:
    """A memory region and the generator's own copy of its bytes."""

    def __init__(self, rkey, va, length, pa, access, data, note):
        self.rkey, self.va, self.length, self.pa, self.access = rkey, va, length, pa, access
        self.data = bytearray(data)
        self.init = bytes(data)
        self.note = note
        self.aq_of = None          # Flow whose AQ this read-only MR shows

    def va_at(self, off):
        return self.va + off


class PReq:
    """One request packet of a flow (kept for retransmission)."""

    def __init__(self, flow, psn, op, frame=None, adv=1, effect=None, kind="write", note="",
                 build=None):
        self.flow, self.psn, self.op = flow, psn, op
        self._frame, self.build = frame, build
        self.adv, self.effect, self.kind, self.note = adv, effect, kind, note

    @property
    def frame(self):
        if self._frame is None:
            self._frame = self.build()
        return self._frame


class Flow:
    """A QP: the requester's side (identity, next PSN) and the generator's model of the
    responder QP (ePSN, NAK-sent state, executed atomics for the AQ)."""

    def __init__(self, g, family, mtu, mra, epsn=None):
        rng = g.rng
        self.g = g
        self.qpn = g.alloc_qpn()
        self.dest_qp = rng.randrange(1, M24)
        self.mtu, self.mra = mtu, mra
        self.depth = -(-mra // GROUP) * GROUP
        self.aq = g.alloc_pa(max(self.depth, 1) * 16)
        self.epsn = rng.randrange(M24) if epsn is None else epsn
        self.conf_epsn = self.epsn
        self.psn = self.epsn            # next PSN the requester assigns
        self.naked = False              # model: a NAK went out, ahead packets are silent
        self.family = family            # 4, 6 or "mixed"
        self.mac = "02:%02x:%02x:%02x:%02x:%02x" % tuple(rng.randrange(256) for _ in range(5))
        self.ip4 = "10.%d.%d.%d" % (rng.randrange(1, 255), rng.randrange(256), rng.randrange(1, 255))
        self.ip6 = "fd00:%x::%x" % (rng.randrange(1, 0xFFFF), rng.randrange(1, 0xFFFF))
        self.sport = rng.randrange(0xC000, 0x10000)
        self.atomics = []               # [(psn, orig)] in execution order (index = AQ sequence number)
        self.aq_index = {}              # psn -> sequence number of the atomic executed with it
        self.features = set()

    # ------------------------------------------------------------------ frames
    def fam(self):
        return self.g.rng.choice((4, 6)) if self.family == "mixed" else self.family

    def frame(self, op, psn, ext=(), payload=b"", ackreq=False, fam=None, **kw):
        g = self.g
        fam = fam or self.fam()
        if fam == 4:
            src, dst = self.ip4, g.ip4
        else:
            src, dst = self.ip6, g.ip6
        return build_request(fam, self.mac, g.mac, src, dst, kw.pop("sport", self.sport), op,
                             kw.pop("dqpn", self.qpn), psn, ackreq, ext, payload, **kw)

    def take(self, n=1):
        p = self.psn
        self.psn = (self.psn + n) % M24
        return p

    # ------------------------------------------------------------------ requests
    def write(self, mr, off, length, imm=False, ackreq=None, fam=None, note=""):
        """PReqs of one WRITE message (only, or first/middle.../last), executed in order."""
        rng, mtu = self.g.rng, self.mtu
        fam = fam or self.fam()
        data = rng.randbytes(length)
        sizes = []
        while sum(sizes) < length or not sizes:
            sizes.append(min(mtu, length - sum(sizes)))
        va = mr.va_at(off)
        reth = RETH(va=va, rkey=mr.rkey, dlen=length)
        out = []
        pos = 0
        for i, n in enumerate(sizes):
            single, first, last = len(sizes) == 1, i == 0, i == len(sizes) - 1
            if single:
                op = OP["W_ONLY_IMM"] if imm else OP["W_ONLY"]
                ext = [reth] + ([ImmDt(imm=rng.getrandbits(32))] if imm else [])
            elif first:
                op, ext = OP["W_FIRST"], [reth]
            elif last:
                op = OP["W_LAST_IMM"] if imm else OP["W_LAST"]
                ext = [ImmDt(imm=rng.getrandbits(32))] if imm else []
            else:
                op, ext = OP["W_MIDDLE"], []
            ar = (rng.random() < 0.3) if ackreq is None else ackreq
            psn = self.take()
            chunk = data[pos:pos + n]
            o = off + pos

            def eff(mr=mr, o=o, chunk=chunk):
                mr.data[o:o + len(chunk)] = chunk
            out.append(PReq(self, psn, op, self.frame(op, psn, ext, chunk, ar, fam), 1, eff, "write",
                            note or f"WRITE {length} bytes part {i + 1}/{len(sizes)}"))
            pos += n
        if len(sizes) > 1:
            self.features.add("multi_write")
        if imm:
            self.features.add("imm")
        return out

    def read(self, mr, off, length, fam=None, note=""):
        n = max(1, -(-length // self.mtu))
        psn = self.take(n)
        fr = self.frame(OP["READ"], psn, [RETH(va=mr.va_at(off), rkey=mr.rkey, dlen=length)], b"",
                        self.g.rng.random() < 0.1, fam)
        if n > 1:
            self.features.add("multi_read")
        return PReq(self, psn, OP["READ"], fr, n, None, "read", note or f"READ {length} bytes ({n} responses)")

    def atomic(self, mr, off, op, operand=None, cas_success=None, fam=None, note=""):
        """A CAS/FAA PReq.  The frame is built when first sent, so that a CAS meant to succeed
        compares with the value the target has then."""
        rng = self.g.rng
        psn = self.take()
        fam = fam or self.fam()
        operand = rng.getrandbits(64) if operand is None else operand
        req = PReq(self, psn, op, kind="atomic")

        def build():
            cur = int.from_bytes(mr.data[off:off + 8], "little")
            if op == OP["CAS"]:
                cmp_ = cur if cas_success else cur ^ (1 << rng.randrange(64))
            else:
                cmp_ = 0
            return self.frame(op, psn, [AtomicETH(va=mr.va_at(off), rkey=mr.rkey, swap_add=operand,
                                                  compare=cmp_)], b"", False, fam)

        def eff():
            fr = req.frame
            ae = fr[-4 - 28:-4]
            swap_add = int.from_bytes(ae[12:20], "big")
            cmp_ = int.from_bytes(ae[20:28], "big")
            old = int.from_bytes(mr.data[off:off + 8], "little")
            if op == OP["FAA"]:
                new = (old + swap_add) % (1 << 64)
                self.features.add("faa")
            elif old == cmp_:
                new = swap_add
                self.features.add("cas_success")
            else:
                new = old
                self.features.add("cas_fail")
            mr.data[off:off + 8] = new.to_bytes(8, "little")
            self.aq_index[psn] = len(self.atomics)
            self.atomics.append((psn, old))

        req.build, req.effect = build, eff
        req.note = note or f"{OPN[op]} at +0x{off:x}"
        return req

    def send(self, op, payload=b"", note=""):
        psn = self.take()
        ext = [ImmDt(imm=self.g.rng.getrandbits(32))] if op in (OP["SEND_LAST_IMM"], OP["SEND_ONLY_IMM"]) else []
        return PReq(self, psn, op, self.frame(op, psn, ext, payload), 1, None, "send",
                    note or OPN[op])

    def bad(self, frame, intent, note, psn=None):
        """A request at the ePSN that must be NAKed (intent nak-inv / nak-acc); takes no PSN."""
        return PReq(self, self.psn if psn is None else psn, None, frame, 1, None, "bad:" + intent, note)

    # ------------------------------------------------------------------ model
    def aq_findable(self, psn):
        """docs/rdma.md AQ/AQC: is the atomic executed with this PSN still found?  Every atomic
        among the last `depth` executed on the QP is (the group lookup falls back to the group
        of the write pointer, whose tail holds the oldest results after a wrap)."""
        k = self.aq_index.get(psn)
        return k is not None and k >= len(self.atomics) - self.depth


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
            if req.kind == "send":
                intent = "unsupported"
                f.naked = True
            else:
                intent = "exec"
                if req.effect:
                    req.effect()
                f.epsn = (f.epsn + req.adv) % M24
        elif d < HALF:
            intent = "drop:psn_ahead_silent" if f.naked else "nak-seq"
            f.naked = True
        else:
            if req.kind == "send":
                intent = "unsupported"
            elif req.kind == "atomic":
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
            L.append(f"qp 0x{f.qpn:06x} dest_qp 0x{f.dest_qp:06x} epsn 0x{f.conf_epsn:06x} mtu {f.mtu} "
                     f"max_rd_atomic {f.mra} aq 0x{f.aq:x}   # {f.scenario}, "
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


# =============================================================================================
# Scenarios
# =============================================================================================

def sc_traffic(g):
    rng = g.rng
    flows = [g.flow(4, 1024), g.flow(6, 256), g.flow("mixed", 4096), g.flow(4, 512)]
    lane = 12288
    data = g.mr(lane * len(flows), "rw", "partial", "traffic: one 12 KiB lane per QP")
    ro = g.mr(6000, "r", "random", "traffic: read-only, shared")
    streams = []
    for i, f in enumerate(flows):
        base = i * lane
        s = []
        for _ in range(22 if f.mtu < 4096 else 12):
            r = rng.random()
            mtu = f.mtu
            if r < 0.45:
                length = rng.choice([0, rng.randrange(1, mtu + 1), mtu, rng.randrange(mtu + 1, 4 * mtu + 1)])
                length = min(length, lane)
                off = rng.randrange(0, lane - length + 1)
                g.emit_all(s, f.write(data, base + off, length, imm=rng.random() < 0.3))
                if rng.random() < 0.3:           # read it back
                    g.emit(s, f.read(data, base + off, length))
            elif r < 0.75:
                length = min(rng.choice([0, rng.randrange(1, 64), rng.randrange(1, 3 * mtu + 7)]), lane)
                off = rng.randrange(0, lane - length + 1)
                g.emit(s, f.read(data, base + off, length))
            else:
                length = rng.randrange(0, min(6000, 3 * mtu))
                off = rng.randrange(0, 6000 - length + 1)
                g.emit(s, f.read(ro, off, length))
        # boundaries: the last byte of the lane, a zero-length READ at the very end of the MR
        g.emit_all(s, f.write(data, base + lane - 3, 3))
        g.emit(s, f.read(ro, 6000, 0, note="zero-length READ at the end of the MR"))
        streams.append(s)
    return interleave(rng, streams)


def sc_atomic(g):
    rng = g.rng
    f = g.flow(4, 1024, mra=rng.randrange(65, 129))      # depth 128: two groups
    tgt = g.mr(4096, "rwa", "random", "atomic targets")
    wmr = g.mr(4096, "w", "zero", "atomic: writes between atomics")
    g.aq_view(f)
    faa_slots = [8 * rng.randrange(0, 128) for _ in range(3)]
    cas_slots = [8 * rng.randrange(128, 256) for _ in range(3)]
    n = f.depth + 20
    sched = defaultdict(list)
    for dist in range(1, f.depth + 5):
        sched[rng.randrange(dist - 1, n)].append(dist)
    s = []
    done = []
    writes = []
    for j in range(n):
        if rng.random() < 0.2:
            w = f.write(wmr, 8 * rng.randrange(0, 500), rng.randrange(1, 64))
            g.emit_all(s, w)
            writes += w
        if rng.random() < 0.6:
            a = f.atomic(tgt, rng.choice(faa_slots), OP["FAA"],
                         operand=rng.choice([1, rng.randrange(1, 1 << 16), rng.getrandbits(64)]))
        else:
            a = f.atomic(tgt, rng.choice(cas_slots), OP["CAS"], cas_success=rng.random() < 0.5)
        g.emit(s, a)
        done.append(a)
        dists = sched[j]
        rng.shuffle(dists)
        for dist in dists:
            g.emit(s, done[j - dist + 1], note=f"retransmission, {dist} atomics back")
        if rng.random() < 0.05:
            g.emit(s, f.read(tgt, rng.choice(faa_slots + cas_slots), 8, note="READ an atomic target"))
    # an ATOMIC retransmitted at a PSN that was a WRITE: not in the AQ
    w = rng.choice(writes)
    fr = f.frame(OP["FAA"], w.psn, [AtomicETH(va=tgt.va_at(faa_slots[0]), rkey=tgt.rkey, swap_add=5)])
    g.emit(s, PReq(f, w.psn, OP["FAA"], fr, 1, None, "atomic", "FAA at the PSN of a WRITE"))
    g.emit(s, w, note="the WRITE itself again: ACK")
    if len(f.atomics) > f.depth:
        g.features.add("aq_wrap")
    return s


def random_op(f, mr, lo, hi, kinds=("w", "r", "a")):
    """One random message on [lo, hi) of mr: list of PReqs."""
    rng = f.g.rng
    k = rng.choice(kinds)
    if k == "w":
        length = rng.randrange(1, min(3 * f.mtu, hi - lo))
        off = rng.randrange(lo, hi - length + 1)
        return f.write(mr, off, length, imm=rng.random() < 0.2)
    if k == "r":
        length = rng.randrange(0, min(3 * f.mtu, hi - lo))
        off = rng.randrange(lo, hi - length + 1)
        return [f.read(mr, off, length)]
    off = rng.randrange(lo, hi - 8) & ~7
    if rng.random() < 0.6:
        return [f.atomic(mr, off, OP["FAA"])]
    return [f.atomic(mr, off, OP["CAS"], cas_success=rng.random() < 0.6)]


def sc_lostack(g):
    f = g.flow(6, 512, mra=16)
    m = g.mr(16384, "rwa", "random", "lostack")
    s = []
    msgs = []
    for _ in range(10):
        ops = random_op(f, m, 0, 8192)
        g.emit_all(s, ops)
        msgs.append(ops)
    # Go-Back-N from the 4th message: every packet since is a duplicate
    for ops in msgs[3:]:
        for r in ops:
            g.emit(s, r, note="Go-Back-N retransmission (lost ACK)")
    # READ, then its memory changes, then the READ is retransmitted: fresh data
    rd = f.read(m, 9000, 3 * f.mtu + 5)
    g.emit(s, rd)
    g.emit_all(s, f.write(m, 9000 + f.mtu, 100))
    g.emit(s, rd, note="READ retransmitted after its memory changed: re-read")
    # partial retransmission of a 4-response READ, from its third response on
    fr = f.frame(OP["READ"], (rd.psn + 2) % M24,
                 [RETH(va=m.va_at(9000 + 2 * f.mtu), rkey=m.rkey, dlen=f.mtu + 5)])
    g.emit(s, PReq(f, (rd.psn + 2) % M24, OP["READ"], fr, 2, None, "read", "partial READ retransmission"))
    # multi-packet WRITE: middle and first retransmitted
    w = f.write(m, 10500, 3 * f.mtu, ackreq=False)
    g.emit_all(s, w)
    g.emit(s, w[1], note="WRITE MIDDLE retransmitted: ACK")
    g.emit(s, w[0], note="WRITE FIRST without AckReq retransmitted: ACK")
    # the ACK of an atomic lost three times
    a = f.atomic(m, 12000, OP["FAA"])
    g.emit(s, a)
    for _ in range(3):
        g.emit(s, a, note="ATOMIC retransmitted: replay from the AQ")
    for _ in range(6):
        g.emit_all(s, random_op(f, m, 12288, 16384))
    # Go-Back-N over mixed messages again, after which new requests continue
    tail = []
    for _ in range(4):
        ops = random_op(f, m, 0, 8192)
        g.emit_all(s, ops)
        tail += ops
    for r in tail:
        g.emit(s, r, note="Go-Back-N retransmission (lost ACK)")
    g.emit_all(s, random_op(f, m, 0, 8192, ("w",)))
    return s


def sc_reorder(g):
    rng = g.rng
    flows = [g.flow(4, 256, mra=8), g.flow(6, 1024, mra=8)]
    m = g.mr(16384, "rwa", "random", "reorder: one 8 KiB lane per QP")
    streams = []
    for i, f in enumerate(flows):
        lo, hi = i * 8192, (i + 1) * 8192
        s = []
        for rnd in range(8):
            pattern = rnd % 4 if rnd < 4 else rng.randrange(4)
            if pattern == 0:      # swap two messages
                a, b = random_op(f, m, lo, hi), random_op(f, m, lo, hi)
                g.emit(s, b[0], note="arrives before its predecessor")
                g.emit_all(s, a)
                g.emit_all(s, b)
            elif pattern == 1:    # one packet lost, the next few ahead, Go-Back-N
                seq = [r for _ in range(3) for r in random_op(f, m, lo, hi)]
                for r in seq[1:]:
                    g.emit(s, r, note="after a lost packet")
                g.emit_all(s, seq)
            elif pattern == 2:    # duplicated in the network
                for r in random_op(f, m, lo, hi):
                    g.emit(s, r)
                    if rng.random() < 0.7:
                        g.emit(s, r, note="duplicated in the network")
            else:                 # ahead, duplicate, ahead again (still silent), then in order
                prev = random_op(f, m, lo, hi, ("w", "r"))
                g.emit_all(s, prev)
                seq = [r for _ in range(3) for r in random_op(f, m, lo, hi)]
                if len(seq) >= 3:
                    g.emit(s, seq[2], note="ahead")
                    g.emit(s, prev[-1], note="duplicate while a NAK is outstanding")
                    g.emit(s, seq[1], note="ahead again: silent")
                g.emit_all(s, seq)
        # a multi-packet WRITE with a lost middle packet
        w = f.write(m, lo + 100, 3 * f.mtu + 10)
        g.emit(s, w[0])
        g.emit(s, w[2], note="WRITE MIDDLE lost")
        g.emit(s, w[3])
        g.emit_all(s, w[1:])
        # a READ and an ATOMIC arriving ahead
        rd, at = f.read(m, lo + 40, 2 * f.mtu), f.atomic(m, lo + 4096, OP["FAA"])
        g.emit(s, at, note="ATOMIC ahead")
        g.emit(s, rd)
        g.emit(s, at)
        streams.append(s)
    return interleave(rng, streams)


def sc_badreq(g):
    rng = g.rng
    f = g.flow(4, 512, mra=8)
    f6 = g.flow(6, 256, mra=1)
    rw = g.mr(8192, "rwa", "random", "badreq: rwa")
    ro = g.mr(1024, "r", "random", "badreq: read only")
    wo = g.mr(1024, "w", "random", "badreq: write only")
    ao = g.mr(1024, "a", "random", "badreq: atomic only")
    unknown = rng.getrandbits(32)
    while unknown in g.rkeys:
        unknown = rng.getrandbits(32)
    s = []

    def case(flow, bad_frame, intent, note, good=None, followers=2):
        """bad at the ePSN -> NAK; later packets silent; then the good request and the
        followers in order."""
        good = good or random_op(flow, rw, 0, 4096)
        fol = [r for _ in range(followers) for r in random_op(flow, rw, 4096, 8192, ("w",))]
        bad = flow.bad(bad_frame, intent, note, psn=good[0].psn)
        g.emit(s, bad)
        for r in fol[:2]:
            g.emit(s, r, note="after a NAK: silent")
        g.emit_all(s, good)
        g.emit_all(s, fol)

    def nxt(flow):
        return flow.psn

    W, R = OP["W_ONLY"], OP["READ"]
    # remote access errors
    case(f, f.frame(W, nxt(f), [RETH(va=rw.va, rkey=unknown, dlen=16)], bytes(16)), "nak-acc", "unknown rkey")
    case(f, f.frame(W, nxt(f), [RETH(va=ro.va, rkey=ro.rkey, dlen=16)], bytes(16)),
         "nak-acc", "WRITE to a read-only MR")
    case(f, f.frame(R, nxt(f), [RETH(va=wo.va, rkey=wo.rkey, dlen=16)]), "nak-acc", "READ from a write-only MR")
    case(f, f.frame(OP["FAA"], nxt(f), [AtomicETH(va=ro.va, rkey=ro.rkey, swap_add=1)]),
         "nak-acc", "ATOMIC without 'a'")
    case(f, f.frame(R, nxt(f), [RETH(va=ao.va, rkey=ao.rkey, dlen=8)]), "nak-acc", "READ from an atomic-only MR")
    case(f, f.frame(W, nxt(f), [RETH(va=rw.va - 1, rkey=rw.rkey, dlen=8)], bytes(8)),
         "nak-acc", "WRITE starting 1 byte before the MR")
    case(f, f.frame(W, nxt(f), [RETH(va=rw.va + 8192 - 7, rkey=rw.rkey, dlen=8)], bytes(8)),
         "nak-acc", "WRITE ending 1 byte past the MR")
    case(f, f.frame(R, nxt(f), [RETH(va=rw.va + 8192 - 100, rkey=rw.rkey, dlen=101)]),
         "nak-acc", "READ ending 1 byte past the MR")
    case(f, f.frame(R, nxt(f), [RETH(va=(1 << 64) - 0x100, rkey=rw.rkey, dlen=0x200)]),
         "nak-acc", "READ va + len wraps past 2^64")
    case(f, f.frame(R, nxt(f), [RETH(va=rw.va, rkey=rw.rkey, dlen=1 << 31)]),
         "nak-acc", "READ of 2^31 bytes: length ok, outside the MR")
    case(f, f.frame(OP["CAS"], nxt(f), [AtomicETH(va=rw.va + 8192 - 4, rkey=rw.rkey)]),
         "nak-acc", "ATOMIC straddling the MR end (and misaligned: bounds first)")
    case(f, f.frame(OP["FAA"], nxt(f), [AtomicETH(va=ro.va + 3, rkey=ro.rkey, swap_add=1)]),
         "nak-acc", "misaligned ATOMIC without 'a': access first")
    # invalid requests
    case(f, f.frame(R, nxt(f), [RETH(va=rw.va, rkey=rw.rkey, dlen=(1 << 31) + 1)]), "nak-inv", "READ of 2^31+1 bytes")
    case(f, f.frame(OP["FAA"], nxt(f), [AtomicETH(va=rw.va + 4, rkey=rw.rkey, swap_add=1)]),
         "nak-inv", "misaligned FAA")
    case(f, f.frame(OP["CAS"], nxt(f), [AtomicETH(va=rw.va + 0x102, rkey=rw.rkey)]), "nak-inv", "misaligned CAS")
    case(f, f.frame(W, nxt(f), [RETH(va=rw.va, rkey=rw.rkey, dlen=513)], bytes(513)),
         "nak-inv", "WRITE ONLY payload 513 > MTU 512")
    case(f, f.frame(W, nxt(f), [RETH(va=rw.va, rkey=unknown, dlen=600)], bytes(600)),
         "nak-inv", "payload > MTU and unknown rkey: length first")
    case(f, f.frame(W, nxt(f), [RETH(va=rw.va, rkey=rw.rkey, dlen=40)], bytes(36)),
         "nak-inv", "WRITE ONLY payload 36 != DMA length 40")
    case(f, f.frame(OP["W_ONLY_IMM"], nxt(f), [RETH(va=rw.va, rkey=rw.rkey, dlen=8), ImmDt(imm=1)], bytes(12)),
         "nak-inv", "WRITE ONLY IMM payload 12 != DMA length 8")
    case(f, f.frame(OP["W_MIDDLE"], nxt(f), [], bytes(512)), "nak-inv", "WRITE MIDDLE without FIRST")
    case(f, f.frame(OP["W_LAST"], nxt(f), [], bytes(20)), "nak-inv", "WRITE LAST without FIRST")
    case(f, f.frame(OP["W_LAST_IMM"], nxt(f), [ImmDt(imm=7)], bytes(20)), "nak-inv", "WRITE LAST IMM without FIRST")
    # errors inside an open multi-packet WRITE
    for what in ("middle_short", "middle_long", "last_total", "first_again", "only_again"):
        w = f.write(rw, 1000, 3 * 512 + 20, ackreq=False)
        g.emit(s, w[0])
        p = w[1].psn
        if what == "middle_short":
            bad, note = f.frame(OP["W_MIDDLE"], p, [], bytes(508)), "WRITE MIDDLE 508 != MTU"
        elif what == "middle_long":
            bad, note = f.frame(OP["W_MIDDLE"], p, [], bytes(516)), "WRITE MIDDLE 516 > MTU"
        elif what == "last_total":
            bad, note = f.frame(OP["W_LAST"], p, [], bytes(20)), "WRITE LAST: total != DMA length"
        elif what == "first_again":
            bad, note = f.frame(OP["W_FIRST"], p, [RETH(va=rw.va, rkey=rw.rkey, dlen=1024)], bytes(512)), "WRITE FIRST while a WRITE is open"
        else:
            bad, note = f.frame(W, p, [RETH(va=rw.va, rkey=rw.rkey, dlen=4)], bytes(4)), "WRITE ONLY while a WRITE is open"
        g.emit(s, f.bad(bad, "nak-inv", note, psn=p))
        g.emit(s, w[2], note="after a NAK: silent")
        g.emit_all(s, w[1:])
    # boundaries that are fine
    g.emit_all(s, f.write(rw, 8192 - 16, 16, note="WRITE ending exactly at the MR end"))
    g.emit(s, f.atomic(rw, 8192 - 8, OP["FAA"], note="FAA on the last 8 bytes of the MR"))
    g.emit_all(s, f.write(rw, 64, 0, note="zero-length WRITE ONLY"))
    # the same over IPv6
    case(f6, f6.frame(R, nxt(f6), [RETH(va=rw.va, rkey=unknown, dlen=16)]), "nak-acc", "READ, unknown rkey")
    case(f6, f6.frame(OP["CAS"], nxt(f6), [AtomicETH(va=wo.va, rkey=wo.rkey)]), "nak-acc", "CAS to a write-only MR")
    case(f6, f6.frame(OP["FAA"], nxt(f6), [AtomicETH(va=rw.va + 1, rkey=rw.rkey, swap_add=1)]),
         "nak-inv", "misaligned FAA")
    case(f6, f6.frame(OP["W_MIDDLE"], nxt(f6), [], bytes(256)), "nak-inv", "WRITE MIDDLE without FIRST")
    # the same bad request retransmitted: NAKed again
    bad = f.frame(OP["FAA"], nxt(f), [AtomicETH(va=rw.va + 4, rkey=rw.rkey, swap_add=1)])
    g.emit(s, f.bad(bad, "nak-inv", "misaligned FAA"))
    g.emit(s, f.bad(bad, "nak-inv", "misaligned FAA retransmitted: NAKed again"))
    g.emit_all(s, random_op(f, rw, 0, 4096))
    return s


def sc_psnwrap(g):
    rng = g.rng
    f = g.flow(4, 256, mra=4, epsn=0xFFFFF0 + rng.randrange(0, 6))
    f2 = g.flow(6, 512, mra=4, epsn=M24 - 1)
    m = g.mr(16384, "rwa", "random", "psnwrap")
    s = []
    pre = []
    for _ in range(5):
        ops = random_op(f, m, 0, 4096, ("w", "a"))
        g.emit_all(s, ops)
        pre += ops
    w = f.write(m, 4096, 5 * 256 - 3)        # 5 packets, likely across the wrap
    g.emit_all(s, w)
    rd = f.read(m, 5000, 4 * 256 - 1)         # 4 responses
    g.emit(s, rd)
    post = []
    for _ in range(6):
        ops = random_op(f, m, 6000, 8192)
        g.emit_all(s, ops)
        post += ops
    assert f.psn < 0x100, "psnwrap did not wrap"
    for r in pre + w + [rd]:
        g.emit(s, r, note="duplicate from before the wrap")
    # loss right after the wrap point, Go-Back-N
    seq = [r for _ in range(3) for r in random_op(f, m, 8192, 12288)]
    for r in seq[1:]:
        g.emit(s, r)
    g.emit_all(s, seq)
    # window edges: d = 2^23 - 1 is ahead, d = 2^23 is a duplicate
    g.emit_all(s, random_op(f, m, 8192, 12288, ("w",)))
    far = (f.psn + HALF - 1) % M24
    fr = f.frame(OP["W_ONLY"], far, [RETH(va=m.va_at(12300), rkey=m.rkey, dlen=8)], bytes(8))
    g.emit(s, PReq(f, far, OP["W_ONLY"], fr, 1, None, "write", "PSN ePSN + 2^23 - 1: ahead"))
    g.emit_all(s, random_op(f, m, 8192, 12288, ("w",)))
    far = (f.psn + HALF) % M24
    fr = f.frame(OP["W_ONLY"], far, [RETH(va=m.va_at(12400), rkey=m.rkey, dlen=8)], b"\xee" * 8)
    g.emit(s, PReq(f, far, OP["W_ONLY"], fr, 1, None, "write", "PSN ePSN + 2^23: duplicate, ACK, not written"))
    fr = f.frame(OP["FAA"], far, [AtomicETH(va=m.va_at(12408), rkey=m.rkey, swap_add=1)])
    g.emit(s, PReq(f, far, OP["FAA"], fr, 1, None, "atomic", "ATOMIC at ePSN + 2^23: duplicate, not in the AQ"))
    # second QP: starts at 2^24 - 1
    for _ in range(4):
        g.emit_all(s, random_op(f2, m, 12288, 16384))
    a = f2.atomic(m, 16000, OP["FAA"])
    g.emit(s, a)
    g.emit(s, a, note="replay")
    return s


def sc_icrc(g):
    rng = g.rng
    f4, f6 = g.flow(4, 1024, mra=8), g.flow(6, 512, mra=8)
    m = g.mr(8192, "rwa", "random", "icrc")
    s = []
    for f, lo in ((f4, 0), (f6, 4096)):
        bth = l4_off(f.frame(OP["ACK"], 0)) + 8
        for k in range(7):
            ops = random_op(f, m, lo, lo + 4000, ("w", "a", "r"))
            r = ops[0]
            fr = bytearray(r.frame)
            if k == 0:
                fr[-1] ^= 0x80
                why = "ICRC bit flipped"
            elif k == 1:
                fr[bth + 12 + rng.randrange(0, len(fr) - bth - 16)] ^= 0x01
                why = "a header/payload byte after the BTH changed"
            elif k == 2:
                fr[bth + 2] ^= 0x80            # P_Key
                why = "BTH P_Key changed (not masked)"
            elif k == 3:
                fr[bth + 1] ^= 0x80            # SE
                why = "BTH SE bit changed (not masked)"
            elif k == 4:
                u = bth - 8
                fr[u] ^= 0x01                   # UDP source port
                why = "UDP source port changed (not masked)"
            elif k == 5:
                if fr[12:14] == b"\x08\x00":
                    fr[18] ^= 0x01              # IPv4 identification
                    fr = bytearray(fix_ipv4_checksum(fr))
                    why = "IPv4 identification changed (not masked)"
                else:
                    fr[37] ^= 0x01              # IPv6 source address (last byte)
                    why = "IPv6 source address changed (not masked)"
            else:
                why = "ICRC all zero"
                off = len(fr) - 4
                fr[off:] = bytes(4)
            g.emit_drop(s, bytes(fr), "bad_icrc", f, why, r.psn, r.op)
            g.emit_all(s, ops)
        # masked fields changed after the ICRC was computed: still accepted
        for k in range(6):
            ops = random_op(f, m, lo, lo + 4000, ("w", "a", "r"))
            fr = bytearray(ops[0].frame)
            u = l4_off(fr)
            fr[u + 6:u + 8] = rng.randrange(1, 0x10000).to_bytes(2, "big")   # UDP checksum
            fr[u + 8 + 4] = rng.randrange(1, 256)                          # FECN/BECN/resv6
            if fr[12:14] == b"\x08\x00":
                fr[15] = rng.randrange(1, 256)                              # TOS
                fr[22] = rng.randrange(1, 256)                              # TTL
                fr = bytearray(fix_ipv4_checksum(fr))
            else:
                fr[14] = 0x60 | rng.randrange(16)                           # traffic class
                fr[15:18] = rng.randbytes(3)                                # tc / flow label
                fr[21] = rng.randrange(256)                                 # hop limit
            ops[0]._frame = bytes(fr)
            ops[0].note += " (masked fields changed after the ICRC)"
            g.emit_all(s, ops)
        # an ahead packet with a bad ICRC is just dropped; the good one gets the NAK
        a, b = random_op(f, m, lo, lo + 4000, ("w",)), random_op(f, m, lo, lo + 4000, ("w",))
        fr = bytearray(b[0].frame)
        fr[-2] ^= 0x10
        g.emit_drop(s, bytes(fr), "bad_icrc", f, "ahead with a bad ICRC: no NAK", b[0].psn, b[0].op)
        g.emit(s, b[0])
        g.emit_all(s, a)
        g.emit_all(s, b)
        # a duplicate ATOMIC with a bad ICRC: no replay
        at = f.atomic(m, lo + 4000, OP["FAA"])
        g.emit(s, at)
        fr = bytearray(at.frame)
        fr[-3] ^= 0x04
        g.emit_drop(s, bytes(fr), "bad_icrc", f, "duplicate ATOMIC with a bad ICRC", at.psn, at.op)
        g.emit(s, at)
    return s


def sc_malformed(g):
    rng = g.rng
    f = g.flow("mixed", 1024, mra=8)         # one QP for both families
    m = g.mr(8192, "rwa", "random", "malformed")
    s = []

    def good(f, kinds=("w",)):
        return random_op(f, m, 0 if f.family == 4 else 4096, 4000 if f.family == 4 else 8000, kinds)

    def drop(f, fr, reason, why, ops=None):
        ops = ops or good(f)
        g.emit_drop(s, bytes(fr), reason, f, why, ops[0].psn, None)
        g.emit_all(s, ops)

    for fam in (4, 6):
        f.family = fam
        v4 = fam == 4
        ops = good(f)
        base = ops[0].frame
        u = l4_off(base)
        # runt
        drop(f, base[:rng.randrange(1, 14)], "runt", "shorter than an Ethernet header", ops)
        drop(f, base[:rng.randrange(14, 34 if v4 else 54)], "runt", "IP header incomplete")
        ops = good(f)
        drop(f, ops[0].frame[:-1], "runt", "last ICRC byte missing", ops)
        ops = good(f)
        drop(f, ops[0].frame[:u + 8 + 5], "runt", "ends inside the BTH", ops)
        # malformed
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[12:14] = b"\x88\x47"
        drop(f, fr, "malformed", "EtherType MPLS", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[12:12] = b"\x81\x00\x00\x05"
        drop(f, fr, "malformed", "802.1Q tagged", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        u = l4_off(fr)
        fr[u + 2:u + 4] = (4792).to_bytes(2, "big")
        drop(f, refresh(fr), "malformed", "UDP destination port 4792", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[u + 4:u + 6] = (int.from_bytes(fr[u + 4:u + 6], "big") - 4).to_bytes(2, "big")
        drop(f, refresh(fr), "malformed", "UDP length 4 less than the IP payload", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[u + 8 + 1] |= 0x01
        drop(f, refresh(fr), "malformed", "BTH TVer 1", ops)
        ops = good(f)
        fr = f.frame(OP["READ"], ops[0].psn, [bytes(RETH(va=m.va, rkey=m.rkey, dlen=8))[:10]])
        drop(f, fr, "malformed", "READ with a 10-byte RETH", ops)
        ops = good(f)
        fr = f.frame(OP["FAA"], ops[0].psn, [bytes(20)])
        drop(f, fr, "malformed", "FAA with a 20-byte AtomicETH", ops)
        ops = good(f)
        fr = f.frame(OP["READ"], ops[0].psn, [RETH(va=m.va, rkey=m.rkey, dlen=8)], pad=3, pad_bytes=b"")
        drop(f, fr, "malformed", "pad count 3, no bytes after the RETH", ops)
        ops = good(f)
        fr = f.frame(OP["W_ONLY"], ops[0].psn, [RETH(va=m.va, rkey=m.rkey, dlen=2)], b"", pad=2,
                     pad_bytes=b"\0")
        drop(f, fr, "malformed", "pad count 2, one byte after the RETH", ops)
        for opc, why in ((0x15, "RC opcode 0x15"), (0x2A, "UC RDMA WRITE ONLY"), (0x64, "UD SEND ONLY"),
                         (0x1F, "RC opcode 0x1F")):
            ops = good(f)
            fr = f.frame(opc, ops[0].psn, [], bytes(16))
            drop(f, fr, "malformed", why, ops)
        ops = good(f)
        fr = f.frame(0x81, ops[0].psn, [bytes(16)], becn=1)
        drop(f, fr, "malformed", "CNP", ops)
        if v4:
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[14] = 0x46
            fr[34:34] = b"\x01\x01\x01\x00"                  # NOP NOP NOP EOL
            fr[16:18] = (int.from_bytes(fr[16:18], "big") + 4).to_bytes(2, "big")
            drop(f, refresh(fr), "malformed", "IPv4 with options (IHL 6)", ops)
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[20] |= 0x20
            drop(f, refresh(fr), "malformed", "IPv4 more-fragments flag", ops)
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[21] = 0x10
            drop(f, refresh(fr), "malformed", "IPv4 fragment offset", ops)
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[23] = 6
            drop(f, refresh(fr), "malformed", "IP protocol TCP", ops)
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[14] = 0x55
            drop(f, refresh(fr), "malformed", "IP version 5", ops)
            ops = good(f)
            fr = bytearray(ops[0].frame)[:14 + 40]
            fr[16:18] = (40).to_bytes(2, "big")
            fr[u + 4:u + 6] = (20).to_bytes(2, "big")
            drop(f, fix_ipv4_checksum(fr), "malformed", "IPv4 total length 40: no room for the ICRC", ops)
            ops = good(f)
            drop(f, bytes(Ether(src=f.mac, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=f.ip4, pdst=g.ip4)),
                 "malformed", "ARP", ops)
        else:
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[20] = 0
            drop(f, refresh(fr), "malformed", "IPv6 next header hop-by-hop", ops)
            ops = good(f)
            fr = bytearray(ops[0].frame)
            fr[14] = 0x40 | (fr[14] & 0x0F)
            drop(f, refresh(fr), "malformed", "IPv6 header with version 4", ops)
        # not for us
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[5] ^= 0x01
        drop(f, refresh(fr), "not_for_us", "destination MAC", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[0:6] = b"\xff" * 6
        drop(f, refresh(fr), "not_for_us", "broadcast MAC", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[0:6] = bytes.fromhex("01005e000001" if v4 else "333300000001")
        drop(f, refresh(fr), "not_for_us", "multicast MAC", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[33 if v4 else 53] ^= 0x02
        drop(f, refresh(fr), "not_for_us", "destination IP", ops)
        # unknown QP
        ops = good(f)
        other = rng.randrange(2, M24)
        while other in g.qpns:
            other = rng.randrange(2, M24)
        drop(f, f.frame(OP["W_ONLY"], ops[0].psn, [RETH(va=m.va, rkey=m.rkey, dlen=4)], bytes(4), dqpn=other),
             "unknown_qp", "QP not configured", ops)
        # response opcodes
        for opc, ext, pl in ((OP["ACK"], [AETH(syndrome=0x1F, msn=1)], b""),
                             (OP["ATOMIC_ACK"], [AETH(syndrome=0x1F, msn=1), AtomicAckETH(orig=5)], b""),
                             (OP["RR_ONLY"], [AETH(syndrome=0x1F, msn=1)], bytes(8)),
                             (OP["RR_MIDDLE"], [], bytes(256)),
                             (OP["RR_FIRST"], [AETH(syndrome=0x1F, msn=1)], bytes(256))):
            ops = good(f)
            drop(f, f.frame(opc, ops[0].psn, ext, pl), "not_request", OPN[opc], ops)
        # priorities
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[0] ^= 0x02
        fr[u + 2:u + 4] = (4790).to_bytes(2, "big")
        drop(f, fr, "malformed", "wrong port and wrong MAC: malformed first", ops)
        ops = good(f)
        fr = bytearray(ops[0].frame)
        fr[0] ^= 0x02
        fr[-1] ^= 0x01
        drop(f, fr, "not_for_us", "wrong MAC and bad ICRC: not_for_us first", ops)
        ops = good(f)
        fr = bytearray(f.frame(OP["W_ONLY"], ops[0].psn, [RETH(va=m.va, rkey=m.rkey, dlen=4)], bytes(4), dqpn=other))
        fr[-1] ^= 0x01
        drop(f, fr, "bad_icrc", "bad ICRC and unknown QP: bad_icrc first", ops)
        ops = good(f)
        drop(f, f.frame(OP["ACK"], ops[0].psn, [AETH()], dqpn=other), "unknown_qp",
             "ACK to an unknown QP: unknown_qp first", ops)
    f.family = "mixed"
    return s


def sc_send(g):
    f = g.flow(4, 256, mra=8)
    m = g.mr(4096, "rw", "random", "send")
    s = []
    for op in ("SEND_ONLY", "SEND_FIRST", "SEND_ONLY_IMM", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_IMM"):
        sd = f.send(OP[op], f.g.rng.randbytes(f.g.rng.randrange(0, 200)))
        f.psn = sd.psn                       # the requester gives up the SEND; PSN reused
        fol = random_op(f, m, 0, 4096, ("w",)) + random_op(f, m, 0, 4096, ("w",))
        g.emit(s, sd)
        g.emit(s, fol[-1], note="after the NAK: silent")
        g.emit_all(s, fol)
    # SEND while a multi-packet WRITE is open: still the SEND NAK
    w = f.write(m, 100, 600, ackreq=False)
    g.emit(s, w[0])
    sd = PReq(f, w[1].psn, OP["SEND_ONLY"], f.frame(OP["SEND_ONLY"], w[1].psn, [], bytes(8)), 1, None, "send",
              "SEND ONLY while a WRITE is open")
    g.emit(s, sd)
    g.emit(s, w[2], note="after the NAK: silent")
    g.emit_all(s, w[1:])
    # a SEND arriving ahead is an ahead packet like any other
    a, b = random_op(f, m, 0, 4096, ("w",)), f.send(OP["SEND_ONLY"])
    g.emit(s, b, note="SEND ahead: PSN sequence error NAK")
    g.emit_all(s, a)
    g.emit(s, b)
    g.emit_all(s, random_op(f, m, 0, 4096, ("w",)))
    return s


def sc_edge(g):
    """Cases docs/rdma.md does not spell out, with the reading rdma_ref.py implements.  Each probe
    runs on its own QP, so that a responder reading one of them differently disagrees on that
    probe only (one QP's PSN state cannot spill into the next probe)."""
    rng = g.rng
    m = g.mr(16384, "rwa", "random", "edge")
    unknown = rng.getrandbits(32)
    while unknown in g.rkeys:
        unknown = rng.getrandbits(32)
    streams = []
    lane = [0]

    def probe(title):
        f = g.flow(rng.choice((4, 6)), 256, mra=8)
        f.note = title
        lo = lane[0]
        lane[0] += 800
        assert lane[0] <= m.length
        s = []
        streams.append(s)
        fol = lambda: random_op(f, m, lo + 400, lo + 800, ("w",))  # noqa: E731
        return f, s, lo, fol

    # any first/only request inside an open multi-packet WRITE is an invalid request (IBA: only
    # MIDDLE/LAST may follow a FIRST), not only WRITE FIRST/ONLY
    for op, title in (("READ", "READ while a WRITE is open"), ("FAA", "FAA while a WRITE is open"),
                      ("CAS", "CAS while a WRITE is open")):
        f, s, lo, fol = probe(title)
        w = f.write(m, lo, 600, ackreq=False)
        g.emit(s, w[0])
        ext = ([RETH(va=m.va_at(lo), rkey=m.rkey, dlen=8)] if op == "READ" else
               [AtomicETH(va=m.va_at(lo + 400), rkey=m.rkey, swap_add=1, compare=0)])
        g.emit(s, f.bad(f.frame(OP[op], w[1].psn, ext), "nak-inv", title, psn=w[1].psn))
        g.emit_all(s, w[1:])
        g.emit_all(s, fol())
    # READ / ATOMIC carrying payload: invalid request
    f, s, lo, fol = probe("READ / FAA with payload")
    g.emit(s, f.bad(f.frame(OP["READ"], f.psn, [RETH(va=m.va_at(lo), rkey=m.rkey, dlen=8)], bytes(4)), "nak-inv",
                    "READ request carrying 4 payload bytes"))
    g.emit_all(s, fol())
    g.emit(s, f.bad(f.frame(OP["FAA"], f.psn, [AtomicETH(va=m.va_at(lo), rkey=m.rkey, swap_add=1)], bytes(8)),
                    "nak-inv", "FAA carrying 8 payload bytes"))
    g.emit_all(s, fol())
    # WRITE FIRST / MIDDLE carrying more than the DMA length: invalid request at that packet
    f, s, lo, fol = probe("WRITE FIRST beyond the DMA length")
    g.emit(s, f.bad(f.frame(OP["W_FIRST"], f.psn, [RETH(va=m.va_at(lo), rkey=m.rkey, dlen=200)], bytes(256)),
                    "nak-inv", "WRITE FIRST payload 256 > DMA length 200"))
    g.emit_all(s, fol())
    f, s, lo, fol = probe("WRITE MIDDLE beyond the DMA length")
    first = f.frame(OP["W_FIRST"], f.psn, [RETH(va=m.va_at(lo), rkey=m.rkey, dlen=300)], bytes(256))
    p0 = f.take()
    g.emit(s, PReq(f, p0, OP["W_FIRST"], first, 1, lambda lo=lo: m.data.__setitem__(slice(lo, lo + 256), bytes(256)),
                   "write", "WRITE FIRST of a 300-byte message"))
    g.emit(s, f.bad(f.frame(OP["W_MIDDLE"], f.psn, [], bytes(256)), "nak-inv", "WRITE MIDDLE: 512 > DMA length 300"))
    p1 = f.take()
    last = f.frame(OP["W_LAST"], p1, [], b"\x5a" * 44)
    g.emit(s, PReq(f, p1, OP["W_LAST"], last, 1, lambda lo=lo: m.data.__setitem__(slice(lo + 256, lo + 300), b"\x5a" * 44),
                   "write", "the right WRITE LAST"))
    # WRITE FIRST shorter than the MTU: invalid request (the contract names MIDDLE; IBA wants FIRST
    # to be a full MTU as well)
    f, s, lo, fol = probe("short WRITE FIRST")
    g.emit(s, f.bad(f.frame(OP["W_FIRST"], f.psn, [RETH(va=m.va_at(lo), rkey=m.rkey, dlen=406)], bytes(100)),
                    "nak-inv", "WRITE FIRST of 100 bytes < MTU"))
    w = f.write(m, lo, 406, ackreq=False)
    g.emit(s, w[1], note="after the NAK: silent")
    g.emit_all(s, w)
    # WRITE LAST without payload
    f, s, lo, fol = probe("empty WRITE LAST")
    data = rng.randbytes(256)
    p0 = f.take()
    g.emit(s, PReq(f, p0, OP["W_FIRST"], f.frame(OP["W_FIRST"], p0, [RETH(va=m.va_at(lo), rkey=m.rkey, dlen=256)], data),
                   1, lambda lo=lo, data=data: m.data.__setitem__(slice(lo, lo + 256), data), "write",
                   "WRITE FIRST carrying the whole DMA length"))
    p1 = f.take()
    g.emit(s, PReq(f, p1, OP["W_LAST"], f.frame(OP["W_LAST"], p1, [], b""), 1, None, "write", "WRITE LAST with no payload"))
    # zero-length requests with an unknown rkey: still a remote access error
    for op, title in (("W_ONLY", "zero-length WRITE, unknown rkey"), ("READ", "zero-length READ, unknown rkey")):
        f, s, lo, fol = probe(title)
        g.emit(s, f.bad(f.frame(OP[op], f.psn, [RETH(va=0, rkey=unknown, dlen=0)]), "nak-acc", title))
        g.emit_all(s, fol())
    # duplicates: SEND -> NAK invalid request; READ validated again; WRITE not validated
    f, s, lo, fol = probe("duplicate SEND")
    w = fol()
    g.emit_all(s, w)
    g.emit(s, PReq(f, w[0].psn, OP["SEND_ONLY"], f.frame(OP["SEND_ONLY"], w[0].psn, [], bytes(4)), 1, None, "send",
                   "duplicate SEND"))
    g.emit_all(s, fol())
    f, s, lo, fol = probe("duplicate READ with an unknown rkey")
    rd = f.read(m, lo, 300)
    g.emit(s, rd)
    g.ev(s, f.frame(OP["READ"], rd.psn, [RETH(va=m.va_at(lo), rkey=unknown, dlen=300)]), "dup-nak-acc", f, rd.psn,
         OP["READ"], "duplicate READ with an unknown rkey")
    g.emit_all(s, fol())
    f, s, lo, fol = probe("duplicate READ of 2^31+1 bytes")
    rd = f.read(m, lo, 300)
    g.emit(s, rd)
    g.ev(s, f.frame(OP["READ"], rd.psn, [RETH(va=m.va_at(lo), rkey=m.rkey, dlen=(1 << 31) + 1)]), "dup-nak-inv", f,
         rd.psn, OP["READ"], "duplicate READ of 2^31+1 bytes")
    g.emit_all(s, fol())
    f, s, lo, fol = probe("duplicate WRITE with a bad rkey")
    w = fol()
    g.emit_all(s, w)
    g.emit(s, PReq(f, w[0].psn, OP["W_ONLY"], f.frame(OP["W_ONLY"], w[0].psn, [RETH(va=0, rkey=unknown, dlen=4)],
                                                      bytes(4)), 1, None, "write", "duplicate WRITE with a bad rkey: ACK"))
    g.emit_all(s, fol())
    # header fields nobody checks (one QP: more than 16 QPs is too many for the C++ tool)
    f, s, lo, fol = probe("unchecked fields")
    f.family = 4
    w = fol()
    w[0]._frame = w[0].frame + rng.randbytes(8)
    w[0].note += " + 8 trailer bytes after the IP datagram"
    g.emit_all(s, w)
    w = fol()
    fr = bytearray(w[0].frame)
    fr[24] ^= 0x55
    w[0]._frame = bytes(fr)
    w[0].note += " with a wrong IPv4 header checksum"
    g.emit_all(s, w)
    w = fol()
    fr = bytearray(w[0].frame)
    fr[l4_off(fr) + 8 + 2] = 0x7F
    w[0]._frame = set_icrc(bytes(fr))
    w[0].note += " with P_Key 0x7fff"
    g.emit_all(s, w)
    rd = f.read(m, lo, 10)
    fr = bytearray(rd.frame)
    fr[l4_off(fr) + 8 + 8] |= 0x80
    rd._frame = set_icrc(bytes(fr))
    g.emit(s, rd)
    return interleave(rng, streams)


SCENARIO_FUNCS = {"traffic": sc_traffic, "atomic": sc_atomic, "lostack": sc_lostack,
                  "reorder": sc_reorder, "badreq": sc_badreq, "psnwrap": sc_psnwrap,
                  "icrc": sc_icrc, "malformed": sc_malformed, "send": sc_send, "edge": sc_edge}


# =============================================================================================
# Driver
# =============================================================================================

def generate(seed, scenario):
    g = Gen(seed)
    names = SCENARIOS if scenario == "mixed" else (scenario,)
    streams = []
    for name in names:
        n0 = len(g.flows)
        ev = SCENARIO_FUNCS[name](g)
        for f in g.flows[n0:]:
            f.scenario = name
        for e in ev:
            e["scenario"] = name
        streams.append(ev)
    events = interleave(g.rng, streams) if len(streams) > 1 else streams[0]
    return g, events


REQUIRED = {
    "traffic": {"exec", "multi_write", "multi_read", "imm", "ipv4", "ipv6"},
    "atomic": {"exec", "dup", "dup-nak-inv", "faa", "cas_success", "cas_fail", "aq_wrap"},
    "lostack": {"exec", "dup"},
    "reorder": {"exec", "dup", "nak-seq", "drop:psn_ahead_silent"},
    "badreq": {"exec", "nak-inv", "nak-acc", "drop:psn_ahead_silent"},
    "psnwrap": {"exec", "dup", "nak-seq", "dup-nak-inv"},
    "icrc": {"exec", "drop:bad_icrc", "nak-seq", "dup"},
    "malformed": {"exec", "drop:runt", "drop:malformed", "drop:not_for_us", "drop:unknown_qp",
                  "drop:not_request", "drop:bad_icrc"},
    "send": {"exec", "unsupported", "nak-seq"},
    "edge": {"exec", "nak-inv", "nak-acc", "dup-nak-acc", "dup-nak-inv", "unsupported"},
}


def main(argv=None):
    ap = argparse.ArgumentParser(description="Seeded RoCEv2 responder scenarios (docs/rdma.md)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--scenario", default="mixed", choices=("mixed",) + ALL_SCENARIOS)
    ap.add_argument("--manifest", action="store_true", help="also write D/manifest.txt")
    ap.add_argument("--aq-mode", choices=("grouped", "linear"),
                    help="write 'aq_mode MODE' on the responder line (default: no aq_mode, i.e. grouped)")
    ap.add_argument("--no-check", action="store_true",
                    help="do not cross-check the intent and memory with rdma_ref.py")
    a = ap.parse_args(argv)
    g, events = generate(a.seed, a.scenario)
    frames = [(e["frame"], TS0 + i * TS_STEP) for i, e in enumerate(events)]
    cfg_text = g.config_text(a.scenario, a.seed, a.aq_mode)
    mem = g.expect_memory()
    import rdma_ref
    try:
        os.makedirs(a.out_dir, exist_ok=True)
        with open(os.path.join(a.out_dir, "responder.txt"), "w") as fh:
            fh.write(cfg_text)
        rdma_ref.write_pcap(os.path.join(a.out_dir, "requests.pcap"), frames)
        rdma_ref.write_json(os.path.join(a.out_dir, "expect_memory.json"), mem)
        if a.manifest:
            with open(os.path.join(a.out_dir, "manifest.txt"), "w") as fh:
                for i, e in enumerate(events):
                    q = f"qp=0x{e['qpn']:06x}" if e["qpn"] is not None else "qp=-"
                    p = f"psn=0x{e['psn']:06x}" if e["psn"] is not None else "psn=-"
                    fh.write(f"{i} {e['intent']} {q} {p} [{e['scenario']}] {e['note']}\n")
    except OSError as e:
        print(f"rdma_gen: error: cannot write to {a.out_dir}: {e}", file=sys.stderr)
        return 2
    counts = defaultdict(int)
    for e in events:
        counts[e["intent"]] += 1
    print(f"rdma_gen: seed {a.seed} scenario {a.scenario}: {len(events)} requests, {len(g.flows)} QPs, "
          f"{len(g.mrs)} MRs -> {a.out_dir}")
    print("  intents: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if a.no_check:
        return 0

    # ---- cross-check with the reference: intent per packet, final memory, coverage
    cfg = rdma_ref.parse_config(cfg_text, "responder.txt")
    resp, verdicts = rdma_ref.run(cfg, frames)
    bad = 0
    for i, (e, v) in enumerate(zip(events, verdicts)):
        if e["intent"] != v.kind:
            if bad < 10:
                print(f"rdma_gen: DISAGREE packet {i} [{e['scenario']}] {e['note']}: generator intends "
                      f"{e['intent']}, rdma_ref says {v.kind} ({v.detail})")
            bad += 1
    rmem = resp.memory_json()
    for k in mem:
        if mem[k] != rmem.get(k):
            a_, b_ = bytes.fromhex(mem[k]), bytes.fromhex(rmem.get(k, ""))
            off = next((x for x in range(min(len(a_), len(b_))) if a_[x] != b_[x]), min(len(a_), len(b_)))
            mr = cfg.mrs[int(k)]
            print(f"rdma_gen: DISAGREE memory rkey {k}: first difference at byte {off} "
                  f"(pa 0x{mr.pa + off:x}): generator 0x{a_[off:off + 1].hex()} reference "
                  f"0x{b_[off:off + 1].hex()} (last written by request {resp.mem.writer.get(mr.pa + off)})")
            bad += 1
    feats = set(counts)
    for f in g.flows:
        feats |= f.features
        feats.add(f"ipv{f.family}" if f.family != "mixed" else "ipv4")
        if f.family in (6, "mixed"):
            feats.add("ipv6")
    feats |= g.features
    want = set().union(*(REQUIRED[n] for n in (SCENARIOS if a.scenario == "mixed" else (a.scenario,))))
    if a.scenario == "mixed":
        want |= {"drop:" + r for r in rdma_ref.DROP_REASONS}
    missing = sorted(want - feats)
    if missing:
        print(f"rdma_gen: coverage: missing {', '.join(missing)}")
        bad += 1
    if bad:
        print(f"rdma_gen: FAIL: the generator's model and rdma_ref.py disagree ({bad})")
        return 1
    print("rdma_gen: rdma_ref.py agrees with every intent and with expect_memory.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
