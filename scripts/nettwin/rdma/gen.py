#!/usr/bin/python3
"""Seeded scenario generator for the RoCEv2 responder (docs/rdma.md).

  /usr/bin/python3 scripts/rdma_gen.py --seed N --out-dir D [--scenario NAME] [--manifest]
      [--aq-mode grouped|linear] [--no-check]

Writes D/responder.txt (config), D/requests.pcap and D/expect_memory.json.  The same seed always
gives the same bytes.  Scenarios (each on its own QPs and memory regions but the two shared RQ/CQ
and receive-buffer MRs; at most 16 QPs and 16 MRs in any config, including mixed, which the C++
tool requires):

  traffic    WRITE (only / first-middle-last, with immediate, AckReq), SEND and READ (0 .. several
             MTUs, unaligned lengths) on 4 QPs with receive queues: IPv4, IPv6, both families on
             one QP, MTU 256..4096; receive buffers and a CQ read back
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
             vs 2^31+1, SEND / WRITE with immediate on a QP without a receive queue, SEND
             sequence and length errors; the first failing check wins; each NAK is followed by
             silently dropped later packets and the corrected retransmission (one QP, IPv4 and
             IPv6)
  psnwrap    ePSN near 0xFFFFF0: multi-packet WRITE and READ and atomics across 2^24,
             duplicates and AQ replays across the wrap, ahead window edges 2^23-1 / 2^23
  icrc       bad ICRC (ICRC, payload, unmasked header fields, ATOMIC operand) -> dropped with
             no effect; masked fields (TOS, TTL, flow label, hop limit, UDP checksum, FECN/BECN)
             changed after the ICRC was computed -> still accepted; a SEND with a bad ICRC
             consumes no WQE (one QP, IPv4 and IPv6)
  malformed  runt and malformed frames, not_for_us, unknown_qp, not_request (response opcodes),
             drop-reason priorities
  send       SEND first/middle/last/only with and without immediate and WRITE with immediate on
             three QPs: one with a WQE per message (CQEs, exact-fit buffers, AckReq, lost ACKs and
             Go-Back-N over SENDs, a first/only and a middle packet overflowing its buffer, an
             ahead SEND, opcode-sequence errors around open SEND/WRITE messages), one with three
             posted WQEs and a 2-entry CQ (wraps; then RNR NAKs for SEND and WRITE with immediate,
             check priorities, a WRITE LAST IMM refused while its WRITE stays open), one without
             a receive queue (NAK invalid request)
  mixed      (default) all of the above, interleaved at random (each QP's order preserved)
  edge       (not in mixed) cases where docs/rdma.md is silent, with the reference's reading:
             see the RDMA section of scripts/README.md

lostack, reorder, psnwrap and icrc also send SENDs and WRITEs with immediate (their QPs have
receive queues that never run out: a WQE is posted for every message built); badreq's QP has none.
Every QP with an RQ keeps its RQ ring and CQ in one shared read-only MR and its receive buffers in
one shared read/write MR (also the send scenario's WRITE targets), so expect_memory.json holds every
CQE and receive-buffer byte.

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

from scapy.contrib.roce import AETH
from scapy.layers.l2 import ARP, Ether

from nettwin.rdma.layers import (AtomicAckETH, AtomicETH, ImmDt, RETH, build_request,
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
        self.room = length         # PA space reserved (shared regions grow into it)

    def va_at(self, off):
        return self.va + off

    def grow(self, init, align=64):
        """Append a sub-region (shared RQ/CQ and receive-buffer MRs); returns its offset."""
        off = -(-self.length // align) * align
        self.data[self.length:off] = bytes(off - self.length)
        self.data += init
        self.init = bytes(self.init) + bytes(off - self.length) + bytes(init)
        self.length = off + len(init)
        assert self.length <= self.room, "shared MR full"
        return off


class PReq:
    """One request packet of a flow (kept for retransmission)."""

    def __init__(self, flow, psn, op, frame=None, adv=1, effect=None, kind="write", note="",
                 build=None, decide=None):
        self.flow, self.psn, self.op = flow, psn, op
        self._frame, self.build = frame, build
        self.adv, self.effect, self.kind, self.note = adv, effect, kind, note
        self.decide = decide        # new request at the ePSN: () -> intent, applies its own effect

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
        # receive / completion queue (docs/rdma.md "Receive and completion queues"); None: no RQ
        self.rq_entries = None
        self.rnr_timer = None           # None: not in the config (default 1)
        self.wqes = []                  # posted WQEs: dict(off, len, wr_id) (off in the buffer MR)
        self.rq_head = 0                # model: next WQE the responder consumes
        self.cq_index = 0               # model: CQEs written
        self.open_send = None           # model: [wqe index, bytes received] of an open SEND
        self.reserved = 0               # WQEs promised to messages built so far
        self.lazy = True                # post a WQE per message built (never RNR) / all posted up front

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
    def write(self, mr, off, length, imm=False, ackreq=None, fam=None, note="", reserve=True):
        """PReqs of one WRITE message (only, or first/middle.../last), executed in order.  With
        immediate the last packet consumes a receive WQE (reserved now unless reserve=False, for a
        WRITE meant to be NAKed: no RQ, or RNR) and writes a CQE."""
        rng, mtu = self.g.rng, self.mtu
        fam = fam or self.fam()
        if imm and reserve:
            self.reserve(0)
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
            dec = None
            if imm and last:
                immb = bytes(ext[-1])

                def dec(eff=eff, psn=psn, immb=immb):
                    why = self.rq_refuses()
                    if why:
                        self.features.add("write_imm_" + why)
                        return why
                    eff()
                    self.complete(self.wqes[self.rq_head]["wr_id"], length, immb, 1, psn)
                    self.features.add("write_imm_cqe")
                    return "exec"
            out.append(PReq(self, psn, op, self.frame(op, psn, ext, chunk, ar, fam), 1, eff, "write",
                            note or f"WRITE {length} bytes part {i + 1}/{len(sizes)}"
                            + (" with immediate" if imm and last else ""), decide=dec))
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

    # ------------------------------------------------------------------ receive queue
    def add_rq(self, entries, cq_entries, posted=None, rnr_timer=None, lazy=True):
        """Give the QP an RQ of `entries` slots and a CQ in the generator's shared read-only MR.
        lazy: a WQE is posted for every message built (up to `entries`), so the QP never runs
        out; otherwise `posted` buffers (lengths) are posted now and the scenario may exhaust them."""
        g, rng = self.g, self.g.rng
        rings, _ = g.shared()
        self.rq_entries, self.cq_entries, self.rnr_timer, self.lazy = entries, cq_entries, rnr_timer, lazy
        # slots not posted hold garbage: the responder must never read them
        self.rq_off = rings.grow(rng.randbytes(16 * entries))
        self.cq_off = rings.grow(rng.randbytes(32 * cq_entries))   # stale CQEs: every byte is rewritten
        for n in (posted or []):
            self.post(n)

    def has_rq(self):
        return bool(self.rq_entries)

    def post(self, buf_len):
        """Post one receive WQE with a fresh buffer of buf_len bytes (before traffic: it is initial
        memory); returns its index."""
        g, rng = self.g, self.g.rng
        assert len(self.wqes) < self.rq_entries, "RQ full"
        rings, bufs = g.shared()
        off = bufs.grow(bytes(buf_len), 8)
        w = dict(off=off, len=buf_len, wr_id=rng.getrandbits(32))
        i = len(self.wqes)
        self.wqes.append(w)
        e = self.rq_off + 16 * i
        b = (bufs.pa + off).to_bytes(8, "little") + buf_len.to_bytes(4, "little") + w["wr_id"].to_bytes(4, "little")
        rings.data[e:e + 16] = b
        init = bytearray(rings.init)
        init[e:e + 16] = b
        rings.init = bytes(init)
        return i

    def can_reserve(self):
        """Is there a WQE for one more consuming message (SEND or WRITE with immediate)?"""
        return self.has_rq() and (len(self.wqes) < self.rq_entries if self.lazy else self.reserved < len(self.wqes))

    def reserve(self, length):
        """The WQE the next consuming message will use (posting one with room for `length` bytes
        on a lazy QP); the messages of a QP execute in PSN order, so in the order they are built."""
        assert self.can_reserve(), "no WQE left to reserve"
        if self.lazy:
            rng = self.g.rng
            slack = rng.choice((0, 0, rng.randrange(1, 64), rng.randrange(1, 2 * self.mtu)))
            self.post(length + slack)
        k = self.reserved
        self.reserved += 1
        return self.wqes[k]

    def rq_refuses(self):
        """docs/rdma.md: no RQ -> NAK invalid request; no posted WQE left -> RNR NAK."""
        if not self.has_rq():
            return "nak-inv"
        if self.rq_head == len(self.wqes):
            assert not self.lazy, "a lazy QP ran out of WQEs"
            return "nak-rnr"
        return None

    def complete(self, wr_id, nbytes, imm, opcode, psn):
        """The model's CQE (32 bytes little-endian; immediate as on the wire) and the RQ head."""
        rings, _ = self.g.shared()
        e = self.cq_off + 32 * (self.cq_index % self.cq_entries)
        rings.data[e:e + 32] = (wr_id.to_bytes(4, "little") + nbytes.to_bytes(4, "little")
                                + (imm if imm is not None else bytes(4)) + self.qpn.to_bytes(4, "little")
                                + bytes([opcode, 1 if imm is not None else 0, 0, 0])
                                + psn.to_bytes(4, "little") + bytes(8))
        if self.cq_index >= self.cq_entries:
            self.features.add("cq_wrap")
        self.cq_index += 1
        self.rq_head += 1

    def send_pkt(self, op, payload, psn=None, ackreq=False, fam=None, note="", imm=None):
        """One SEND packet (takes the next PSN unless psn is given); its intent follows from the
        model's RQ state when it arrives at the ePSN."""
        if psn is None:
            psn = self.take()
        has_imm = op in (OP["SEND_LAST_IMM"], OP["SEND_ONLY_IMM"])
        if has_imm and imm is None:
            imm = self.g.rng.getrandbits(32)
        ext = [ImmDt(imm=imm)] if has_imm else []
        immb = imm.to_bytes(4, "big") if has_imm else None
        first = op in (OP["SEND_FIRST"], OP["SEND_ONLY"], OP["SEND_ONLY_IMM"])
        last = op in (OP["SEND_LAST"], OP["SEND_LAST_IMM"], OP["SEND_ONLY"], OP["SEND_ONLY_IMM"])
        _, bufs = self.g.shared() if self.has_rq() else (None, None)

        def dec():
            if first:
                why = self.rq_refuses()
                if why:
                    self.features.add("send_" + why)
                    return why
                k = self.rq_head
                if len(payload) > self.wqes[k]["len"]:
                    self.features.add("send_overflow")
                    return "nak-inv"
                self.open_send = [k, 0]
            elif self.open_send is None:
                return "nak-inv"
            k, done = self.open_send
            w = self.wqes[k]
            if done + len(payload) > w["len"]:
                self.features.add("send_overflow_later")
                return "nak-inv"
            bufs.data[w["off"] + done:w["off"] + done + len(payload)] = payload
            self.open_send[1] += len(payload)
            self.features.add(OPN[op].lower())
            if last:
                self.complete(w["wr_id"], self.open_send[1], immb, 0, psn)
                self.open_send = None
            return "exec"
        return PReq(self, psn, op, self.frame(op, psn, ext, payload, ackreq, fam), 1, None, "send",
                    note or f"{OPN[op]} {len(payload)} bytes", decide=dec)

    def send(self, length, imm=False, ackreq=None, fam=None, note="", reserve=True, data=None):
        """PReqs of one SEND message (ONLY, or FIRST/MIDDLE.../LAST), sized for the WQE it will
        consume (reserved now unless reserve=False: a SEND meant to be refused)."""
        rng, mtu = self.g.rng, self.mtu
        fam = fam or self.fam()
        if reserve:
            self.reserve(length)
        data = rng.randbytes(length) if data is None else data
        sizes = []
        while sum(sizes) < length or not sizes:
            sizes.append(min(mtu, length - sum(sizes)))
        out = []
        pos = 0
        for i, n in enumerate(sizes):
            single, first, last = len(sizes) == 1, i == 0, i == len(sizes) - 1
            if single:
                op = OP["SEND_ONLY_IMM"] if imm else OP["SEND_ONLY"]
            elif first:
                op = OP["SEND_FIRST"]
            elif last:
                op = OP["SEND_LAST_IMM"] if imm else OP["SEND_LAST"]
            else:
                op = OP["SEND_MIDDLE"]
            ar = (rng.random() < 0.3) if ackreq is None else ackreq
            out.append(self.send_pkt(op, data[pos:pos + n], ackreq=ar, fam=fam,
                                     note=note or f"SEND {length} bytes part {i + 1}/{len(sizes)}"
                                     + (" with immediate" if imm and last else "")))
            pos += n
        if len(sizes) > 1:
            self.features.add("multi_send")
        return out

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


# =============================================================================================
# Scenarios
# =============================================================================================

def sc_traffic(g):
    rng = g.rng
    flows = [g.flow(4, 1024), g.flow(6, 256), g.flow("mixed", 4096), g.flow(4, 512)]
    for f in flows:                      # SENDs and WRITEs with immediate; one CQ wraps
        f.add_rq(24, 4 if f is flows[1] else 32)
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
                g.emit_all(s, f.write(data, base + off, length, imm=rng.random() < 0.3 and f.can_reserve()))
                if rng.random() < 0.3:           # read it back
                    g.emit(s, f.read(data, base + off, length))
            elif r < 0.6 and f.can_reserve():
                sd = f.send(send_length(f), imm=rng.random() < 0.4)
                g.emit_all(s, sd)
                if rng.random() < 0.3:           # read the receive buffer back
                    _, bufs = g.shared()
                    w = f.wqes[f.reserved - 1]
                    g.emit(s, f.read(bufs, w["off"], w["len"], note="READ a receive buffer back"))
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
        if f.can_reserve():                  # a SEND of several packets (one MTU 4096: one packet)
            g.emit_all(s, f.send(min(2 * f.mtu + rng.randrange(1, f.mtu), 3072), imm=rng.random() < 0.5))
        while f is flows[1] and f.cq_index <= f.cq_entries and f.can_reserve():   # its CQ wraps
            g.emit_all(s, f.write(data, base, rng.randrange(0, 2 * mtu), imm=True))
        rings, _ = g.shared()
        g.emit(s, f.read(rings, f.cq_off, 32 * f.cq_entries, note="READ the CQ"))
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


def send_length(f):
    """A random SEND message length: empty, one packet, exactly one MTU, several packets."""
    rng, mtu = f.g.rng, f.mtu
    return min(3072, rng.choice([0, rng.randrange(1, mtu + 1), mtu, rng.randrange(mtu + 1, 3 * mtu + 1)]))


def random_op(f, mr, lo, hi, kinds=("w", "r", "a")):
    """One random message on [lo, hi) of mr: list of PReqs.  On a QP with a receive queue a "w"
    may be a SEND instead, and a WRITE may carry an immediate (both consume a WQE)."""
    rng = f.g.rng
    k = rng.choice(kinds)
    if k == "w":
        if f.can_reserve() and rng.random() < 0.35:
            return f.send(send_length(f), imm=rng.random() < 0.4)
        length = rng.randrange(1, min(3 * f.mtu, hi - lo))
        off = rng.randrange(lo, hi - length + 1)
        return f.write(mr, off, length, imm=rng.random() < 0.2 and f.can_reserve())
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
    f.add_rq(24, 32)
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
    # multi-packet SEND: every packet retransmitted (no second completion, buffer unchanged)
    sd = f.send(2 * f.mtu + 7, imm=True, ackreq=False)
    g.emit_all(s, sd)
    for r in sd:
        g.emit(s, r, note="SEND retransmitted (lost ACK): ACK, no effect")
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
    for f in flows:
        f.add_rq(12, 12)
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
        # a multi-packet SEND with a lost middle packet
        sd = f.send(2 * f.mtu + 10, imm=rng.random() < 0.5, ackreq=False)
        g.emit(s, sd[0])
        g.emit(s, sd[2], note="SEND MIDDLE lost")
        g.emit_all(s, sd[1:])
        # a READ and an ATOMIC arriving ahead
        rd, at = f.read(m, lo + 40, 2 * f.mtu), f.atomic(m, lo + 4096, OP["FAA"])
        g.emit(s, at, note="ATOMIC ahead")
        g.emit(s, rd)
        g.emit(s, at)
        streams.append(s)
    return interleave(rng, streams)


def sc_badreq(g):
    rng = g.rng
    f = g.flow(4, 512, mra=8)                # no receive queue
    f6 = f                                   # the IPv6 cases run on the same QP
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
        fol = []
        for _ in range(followers):           # short WRITEs (they keep the vector small)
            n = rng.randrange(1, 160)
            fol += flow.write(rw, rng.randrange(4096, 8192 - n), n)
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
    # SEND and WRITE with immediate on a QP without a receive queue; SEND sequence / length errors
    S = OP
    case(f, f.frame(S["SEND_ONLY"], nxt(f), [], bytes(20)), "nak-inv", "SEND ONLY on a QP without an RQ")
    case(f, f.frame(S["SEND_ONLY_IMM"], nxt(f), [ImmDt(imm=3)], b""), "nak-inv", "empty SEND ONLY IMM, no RQ")
    case(f, f.frame(S["SEND_FIRST"], nxt(f), [], bytes(512)), "nak-inv", "SEND FIRST on a QP without an RQ")
    case(f, f.frame(S["W_ONLY_IMM"], nxt(f), [RETH(va=rw.va, rkey=rw.rkey, dlen=8), ImmDt(imm=4)], bytes(8)),
         "nak-inv", "WRITE ONLY with immediate on a QP without an RQ")
    case(f, f.frame(S["W_ONLY_IMM"], nxt(f), [RETH(va=rw.va, rkey=unknown, dlen=8), ImmDt(imm=4)], bytes(8)),
         "nak-acc", "WRITE ONLY IMM, unknown rkey and no RQ: remote access error first")
    case(f, f.frame(S["SEND_MIDDLE"], nxt(f), [], bytes(512)), "nak-inv", "SEND MIDDLE without FIRST")
    case(f, f.frame(S["SEND_LAST"], nxt(f), [], bytes(8)), "nak-inv", "SEND LAST without FIRST")
    case(f, f.frame(S["SEND_LAST_IMM"], nxt(f), [ImmDt(imm=5)], b""), "nak-inv", "SEND LAST IMM without FIRST")
    case(f, f.frame(S["SEND_ONLY"], nxt(f), [], bytes(513)), "nak-inv", "SEND ONLY payload 513 > MTU")
    case(f, f.frame(S["SEND_FIRST"], nxt(f), [], bytes(500)), "nak-inv", "SEND FIRST of 500 bytes != MTU")
    # a WRITE ending with an immediate, no RQ: NAK at the LAST; the message stays open and a plain
    # LAST completes it
    w = f.write(rw, 2000, 512 + 20, ackreq=False)
    g.emit(s, w[0])
    g.emit(s, f.bad(f.frame(OP["W_LAST_IMM"], w[1].psn, [ImmDt(imm=9)], w[1].frame[-24:-4]), "nak-inv",
                    "WRITE LAST IMM on a QP without an RQ", psn=w[1].psn))
    g.emit_all(s, w[1:])
    # errors inside an open multi-packet WRITE
    for what in ("middle_short", "middle_long", "last_total", "first_again", "only_again", "send_only",
                 "send_middle", "send_last"):
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
        elif what == "only_again":
            bad, note = f.frame(W, p, [RETH(va=rw.va, rkey=rw.rkey, dlen=4)], bytes(4)), "WRITE ONLY while a WRITE is open"
        elif what == "send_only":
            bad, note = f.frame(OP["SEND_ONLY"], p, [], bytes(4)), "SEND ONLY while a WRITE is open"
        elif what == "send_middle":
            bad, note = f.frame(OP["SEND_MIDDLE"], p, [], bytes(512)), "SEND MIDDLE while a WRITE is open"
        else:
            bad, note = f.frame(OP["SEND_LAST"], p, [], bytes(20)), "SEND LAST while a WRITE is open"
        g.emit(s, f.bad(bad, "nak-inv", note, psn=p))
        g.emit(s, w[2], note="after a NAK: silent")
        g.emit_all(s, w[1:])
    # boundaries that are fine
    g.emit_all(s, f.write(rw, 8192 - 16, 16, note="WRITE ending exactly at the MR end"))
    g.emit(s, f.atomic(rw, 8192 - 8, OP["FAA"], note="FAA on the last 8 bytes of the MR"))
    g.emit_all(s, f.write(rw, 64, 0, note="zero-length WRITE ONLY"))
    # the same over IPv6
    f.family = 6
    case(f6, f6.frame(R, nxt(f6), [RETH(va=rw.va, rkey=unknown, dlen=16)]), "nak-acc", "READ, unknown rkey")
    case(f6, f6.frame(OP["CAS"], nxt(f6), [AtomicETH(va=wo.va, rkey=wo.rkey)]), "nak-acc", "CAS to a write-only MR")
    case(f6, f6.frame(OP["FAA"], nxt(f6), [AtomicETH(va=rw.va + 1, rkey=rw.rkey, swap_add=1)]),
         "nak-inv", "misaligned FAA")
    case(f6, f6.frame(OP["W_MIDDLE"], nxt(f6), [], bytes(512)), "nak-inv", "WRITE MIDDLE without FIRST")
    case(f6, f6.frame(OP["SEND_ONLY"], nxt(f6), [], bytes(7)), "nak-inv", "SEND ONLY without an RQ")
    f.family = 4
    # the same bad request retransmitted: NAKed again
    bad = f.frame(OP["FAA"], nxt(f), [AtomicETH(va=rw.va + 4, rkey=rw.rkey, swap_add=1)])
    g.emit(s, f.bad(bad, "nak-inv", "misaligned FAA"))
    g.emit(s, f.bad(bad, "nak-inv", "misaligned FAA retransmitted: NAKed again"))
    g.emit_all(s, random_op(f, rw, 0, 4096))
    f.family = "mixed"
    return s


def sc_psnwrap(g):
    rng = g.rng
    f = g.flow(4, 256, mra=4, epsn=0xFFFFF0 + rng.randrange(0, 6))
    f2 = g.flow(6, 512, mra=4, epsn=M24 - 1)
    f.add_rq(12, 2)
    m = g.mr(16384, "rwa", "random", "psnwrap")
    s = []
    pre = []
    for _ in range(4):
        ops = random_op(f, m, 0, 4096, ("w", "a"))
        g.emit_all(s, ops)
        pre += ops
    sd = f.send(3 * 256 + 1, imm=True)       # 4 packets, likely across the wrap
    g.emit_all(s, sd)
    pre += sd
    w = f.write(m, 4096, 5 * 256 - 3, imm=True)   # 5 packets, likely across the wrap
    g.emit_all(s, w)
    rd = f.read(m, 5000, 4 * 256 - 1)         # 4 responses
    g.emit(s, rd)
    post = f.send(rng.randrange(0, 257), imm=True)   # a third completion: the 2-entry CQ wraps
    g.emit_all(s, post)
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
    f = g.flow(4, 1024, mra=8)               # one QP (both families): SENDs as well
    f.add_rq(16, 16)
    m = g.mr(8192, "rwa", "random", "icrc")
    s = []
    for fam, lo in ((4, 0), (6, 4096)):
        f.family = fam
        bth = l4_off(f.frame(OP["ACK"], 0)) + 8
        for k in range(7):
            ops = random_op(f, m, lo, lo + 4000, ("w", "a", "r"))
            r = ops[0]
            fr = bytearray(r.frame)
            if k == 0:
                fr[-1] ^= 0x80
                why = "ICRC bit flipped"
            elif k == 1:
                if len(fr) - bth > 16:
                    fr[bth + 12 + rng.randrange(0, len(fr) - bth - 16)] ^= 0x01
                    why = "a header/payload byte after the BTH changed"
                else:
                    fr[bth + 11] ^= 0x01
                    why = "BTH PSN changed"
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
        # a SEND with a bad ICRC consumes no WQE; the good one does
        sd = f.send(rng.randrange(0, f.mtu + 1), imm=True)
        fr = bytearray(sd[0].frame)
        fr[-4] ^= 0x02
        g.emit_drop(s, bytes(fr), "bad_icrc", f, "SEND with a bad ICRC", sd[0].psn, sd[0].op)
        g.emit_all(s, sd)
    f.family = "mixed"
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


def at_psn(f, psn, build):
    """A one-packet message built at PSN psn (the requester reusing a NAKed PSN for something
    else); the requester's next PSN is kept."""
    save = f.psn
    f.psn = psn
    out = build()
    assert f.psn == (psn + 1) % M24, "a replacement must be one packet"
    f.psn = save
    return out


def sc_send(g):
    """SEND (first/middle/last/only, with and without immediate) and WRITE with immediate on three
    QPs: A has a WQE for every message, B only three (then RNR NAKs; its 2-entry CQ wraps), C has
    no receive queue.  Receive buffers, RQs and CQs live in the shared MRs, so the final-memory
    check covers every buffer byte and every CQE."""
    rng = g.rng
    rings, bufs = g.shared()
    wt = bufs.grow(bytes(6144))              # WRITE (with immediate) targets: a 2 KiB lane per QP
    a = g.flow(4, 256, mra=8)
    a.add_rq(40, 48)
    b = g.flow(6, 512, mra=8)
    b.add_rq(4, 2, posted=[512, 1100, 64], rnr_timer=rng.randrange(32), lazy=False)
    c = g.flow("mixed", 1024, mra=8)
    unknown = rng.getrandbits(32)
    while unknown in g.rkeys:
        unknown = rng.getrandbits(32)
    streams = []

    def wr(f, lane, length, **kw):
        return f.write(bufs, wt + 2048 * lane + rng.randrange(0, 2048 - length + 1), length, **kw)

    def silent_write(f, lane):
        """A plain one-packet WRITE sent while a NAK is outstanding (silent), re-sent later."""
        return wr(f, lane, rng.randrange(1, min(f.mtu, 200)))[0]

    # ---------------------------------------------------------------- A: everything that works
    s = []
    streams.append(s)
    for length, imm in ((rng.randrange(1, 257), False), (rng.randrange(1, 257), True), (0, False), (0, True),
                        (256, False), (256 + rng.randrange(1, 257), False), (600, True), (512, True)):
        g.emit_all(s, a.send(length, imm=imm))
    sd = a.send(3 * 256 + 5, imm=False, ackreq=True, note="SEND with AckReq on every packet")
    g.emit_all(s, sd)
    w = a.wqes[a.reserved - 1]
    g.emit(s, a.read(bufs, w["off"], w["len"], note="READ the receive buffer back"))
    # WRITE with immediate: a WQE consumed, CQE opcode 1 with the DMA length, buffer unused
    g.emit_all(s, wr(a, 0, rng.randrange(1, 257), imm=True))
    g.emit_all(s, wr(a, 0, 0, imm=True))
    g.emit_all(s, wr(a, 0, 2 * 256 + 9, imm=True, ackreq=True))
    g.emit_all(s, wr(a, 0, 100))
    # lost ACKs: a SEND ONLY again, then Go-Back-N over a SEND message and a WRITE with immediate
    one = a.send(rng.randrange(1, 200), imm=True)
    g.emit_all(s, one)
    g.emit(s, one[0], note="SEND ONLY retransmitted: ACK, no second CQE")
    gbn = a.send(2 * 256 + 1, imm=True, ackreq=False) + wr(a, 0, 300, imm=True, ackreq=False)
    g.emit_all(s, gbn)
    for r in gbn:
        g.emit(s, r, note="Go-Back-N retransmission: ACK, no effect")
    # first/only packet longer than the WQE's buffer: NAK invalid request, WQE not consumed
    k = a.post(10)
    a.reserved += 1
    bad = a.send(11, reserve=False, note="SEND ONLY of 11 bytes into a 10-byte buffer")
    fol = silent_write(a, 0)
    g.emit(s, bad[0])
    g.emit(s, fol, note="after the NAK: silent")
    g.emit(s, bad[0], note="the same SEND again: NAKed again")
    good = at_psn(a, bad[0].psn, lambda: a.send(10, reserve=False, imm=True, note="SEND ONLY of 10 bytes"))
    g.emit_all(s, good)
    g.emit(s, fol)
    assert a.rq_head == k + 1
    # a middle packet overflowing the buffer: NAK, the message stays open; a LAST completes it
    a.post(600)
    a.reserved += 1
    data = rng.randbytes(700)
    p0 = a.send_pkt(OP["SEND_FIRST"], data[:256])
    p1 = a.send_pkt(OP["SEND_MIDDLE"], data[256:512])
    p2 = a.send_pkt(OP["SEND_MIDDLE"], data[512:768], note="SEND MIDDLE: 768 bytes > the 600-byte buffer")
    fol = silent_write(a, 0)
    g.emit_all(s, [p0, p1, p2])
    g.emit(s, fol, note="after the NAK: silent")
    g.emit(s, at_psn(a, p2.psn, lambda: a.send_pkt(OP["SEND_LAST_IMM"], data[512:600])))
    g.emit(s, fol)
    # an ahead SEND: PSN sequence error, then in order
    x, y = a.send(rng.randrange(0, 100)), a.send(rng.randrange(0, 100), imm=True)
    g.emit(s, y[0], note="SEND ahead: PSN sequence error NAK")
    g.emit_all(s, x + y)
    # opcode sequence: an open SEND is like an open WRITE
    d = rng.randbytes(300)
    a.reserve(300)
    p0 = a.send_pkt(OP["SEND_FIRST"], d[:256])
    g.emit(s, p0)
    for op, ext, pl, why in (
            (OP["W_ONLY"], [RETH(va=bufs.va_at(wt), rkey=bufs.rkey, dlen=4)], bytes(4), "WRITE ONLY"),
            (OP["READ"], [RETH(va=bufs.va_at(wt), rkey=bufs.rkey, dlen=4)], b"", "READ"),
            (OP["SEND_ONLY"], [], bytes(4), "SEND ONLY"),
            (OP["SEND_FIRST"], [], bytes(256), "SEND FIRST"),
            (OP["W_MIDDLE"], [], bytes(256), "WRITE MIDDLE"),
            (OP["SEND_MIDDLE"], [], bytes(44), "SEND MIDDLE shorter than the MTU")):
        g.emit(s, a.bad(a.frame(op, a.psn, ext, pl), "nak-inv", f"{why} while a SEND is open"))
    g.emit(s, a.send_pkt(OP["SEND_LAST"], d[256:]))
    w = wr(a, 0, 300, ackreq=False)
    g.emit(s, w[0])
    p = w[1].psn
    g.emit(s, a.bad(a.frame(OP["SEND_ONLY"], p, [], bytes(4)), "nak-inv", "SEND ONLY while a WRITE is open", psn=p))
    g.emit(s, a.bad(a.frame(OP["SEND_LAST"], p, [], bytes(44)), "nak-inv", "SEND LAST while a WRITE is open", psn=p))
    g.emit_all(s, w[1:])
    g.emit(s, a.bad(a.frame(OP["SEND_MIDDLE"], a.psn, [], bytes(256)), "nak-inv", "SEND MIDDLE without FIRST"))
    g.emit(s, a.bad(a.frame(OP["SEND_FIRST"], a.psn, [], bytes(255)), "nak-inv", "SEND FIRST of 255 bytes"))
    g.emit(s, a.bad(a.frame(OP["SEND_ONLY"], a.psn, [], bytes(257)), "nak-inv", "SEND ONLY of 257 bytes > MTU"))
    g.emit_all(s, a.send(rng.randrange(0, 700), imm=True))
    g.emit(s, a.read(rings, a.cq_off, 32 * a.cq_index, note="READ the CQ"))

    # ---------------------------------------------------------------- B: three WQEs, then RNR
    s = []
    streams.append(s)
    one = b.send(512, imm=True, note="SEND ONLY IMM filling its buffer exactly")
    g.emit_all(s, one)
    two = b.send(512 + 300, ackreq=False)
    g.emit_all(s, two)
    g.emit_all(s, wr(b, 1, rng.randrange(1, 400), imm=True))       # the third WQE; the CQ wraps
    assert b.rq_head == 3
    sd = b.send(10, reserve=False, note="SEND ONLY with no WQE left")
    fol = silent_write(b, 1)
    g.emit(s, sd[0])
    g.emit(s, fol, note="after the RNR NAK: silent")
    g.emit(s, sd[0], note="retransmitted: still no WQE, RNR NAK again")
    p = sd[0].psn
    g.emit(s, at_psn(b, p, lambda: wr(b, 1, 16, imm=True, reserve=False))[0])
    g.emit(s, b.bad(b.frame(OP["W_ONLY_IMM"], p, [RETH(va=bufs.va_at(wt), rkey=unknown, dlen=8),
                                                   ImmDt(imm=1)], bytes(8)),
                    "nak-acc", "WRITE ONLY IMM with a bad rkey and no WQE: remote access error first", psn=p))
    g.emit(s, b.bad(b.frame(OP["SEND_FIRST"], p, [], bytes(100)), "nak-inv",
                    "short SEND FIRST with no WQE: invalid request first", psn=p))
    g.emit(s, at_psn(b, p, lambda: b.send_pkt(OP["SEND_FIRST"], rng.randbytes(512), note="SEND FIRST, no WQE")))
    g.emit(s, at_psn(b, p, lambda: wr(b, 1, 64, note="the requester gives up: a WRITE at that PSN"))[0])
    g.emit(s, fol)
    # a WRITE whose LAST carries an immediate: RNR NAK, nothing written, the WRITE stays open
    w = wr(b, 1, 512 + 40, ackreq=False)
    g.emit(s, w[0])
    imm_last = PReq(b, w[1].psn, OP["W_LAST_IMM"],
                    b.frame(OP["W_LAST_IMM"], w[1].psn, [ImmDt(imm=rng.getrandbits(32))], w[1].frame[-44:-4]),
                    1, None, "write", "WRITE LAST IMM with no WQE: RNR NAK", decide=lambda: b.rq_refuses() or "exec")
    g.emit(s, imm_last)
    g.emit(s, w[1], note="the plain WRITE LAST at that PSN completes the open WRITE")
    for r in one + two:
        g.emit(s, r, note="duplicate SEND with no WQE left: ACK")
    g.emit(s, b.read(bufs, b.wqes[1]["off"], 812, note="READ the second receive buffer back"))

    # ---------------------------------------------------------------- C: no receive queue
    s = []
    streams.append(s)
    g.emit_all(s, wr(c, 2, rng.randrange(1, 1025)))
    for mk, why in ((lambda: c.send(rng.randrange(0, 1025), reserve=False), "SEND ONLY, no RQ"),
                    (lambda: c.send(1024 + 5, reserve=False)[:1], "SEND FIRST, no RQ"),
                    (lambda: c.send(rng.randrange(0, 1025), imm=True, reserve=False), "SEND ONLY IMM, no RQ"),
                    (lambda: wr(c, 2, rng.randrange(0, 1025), imm=True, reserve=False), "WRITE ONLY IMM, no RQ")):
        p = c.psn
        bad = mk()
        c.psn = (p + 1) % M24
        fol = silent_write(c, 2)
        g.emit(s, bad[0], note=why)
        g.emit(s, fol, note="after the NAK: silent")
        g.emit(s, at_psn(c, p, lambda: wr(c, 2, rng.randrange(1, 1025))[0]))
        g.emit(s, fol)
    w = wr(c, 2, 1024 + 17, ackreq=False)
    g.emit(s, w[0])
    g.emit(s, c.bad(c.frame(OP["W_LAST_IMM"], w[1].psn, [ImmDt(imm=7)], w[1].frame[-24:-4]), "nak-inv",
                    "WRITE LAST IMM, no RQ: the WRITE stays open", psn=w[1].psn))
    g.emit(s, w[1])
    g.emit(s, PReq(c, w[1].psn, OP["SEND_ONLY"], c.frame(OP["SEND_ONLY"], w[1].psn, [], bytes(5)), 1, None, "send",
                   "a duplicate SEND (at the PSN of a WRITE): ACK"))
    x, y = wr(c, 2, 8), c.send(4, reserve=False)
    g.emit(s, y[0], note="SEND ahead on a QP without an RQ: PSN sequence error first")
    g.emit_all(s, x)
    g.emit(s, y[0], note="now at the ePSN: invalid request (no RQ)")
    g.emit(s, at_psn(c, y[0].psn, lambda: c.read(bufs, wt + 4096, 1000)))
    return interleave(rng, streams)


def sc_edge(g):
    """Cases docs/rdma.md does not spell out, with the reading rdma_ref.py implements.  Each probe
    runs on its own QP, so that a responder reading one of them differently disagrees on that
    probe only (one QP's PSN state cannot spill into the next probe)."""
    rng = g.rng
    m = g.mr(16384, "rwa", "zero", "edge")
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
    # duplicates: SEND -> ACK (even on a QP without an RQ); READ validated again; WRITE not validated
    f, s, lo, fol = probe("duplicate SEND")
    w = fol()
    g.emit_all(s, w)
    g.emit(s, PReq(f, w[0].psn, OP["SEND_ONLY"], f.frame(OP["SEND_ONLY"], w[0].psn, [], bytes(4)), 1, None, "send",
                   "duplicate SEND on a QP without an RQ: ACK"))
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
    assert len(g.flows) <= 16 and len(g.mrs) <= 16, \
        f"{len(g.flows)} QPs / {len(g.mrs)} MRs: the C++ tool takes at most 16 of each"
    return g, events


REQUIRED = {
    "traffic": {"exec", "multi_write", "multi_read", "imm", "ipv4", "ipv6", "send_only", "multi_send",
                "write_imm_cqe", "cq_wrap"},
    "atomic": {"exec", "dup", "dup-nak-inv", "faa", "cas_success", "cas_fail", "aq_wrap"},
    "lostack": {"exec", "dup", "multi_send"},
    "reorder": {"exec", "dup", "nak-seq", "drop:psn_ahead_silent", "multi_send"},
    "badreq": {"exec", "nak-inv", "nak-acc", "drop:psn_ahead_silent"},
    "psnwrap": {"exec", "dup", "nak-seq", "dup-nak-inv", "multi_send", "write_imm_cqe", "cq_wrap"},
    "icrc": {"exec", "drop:bad_icrc", "nak-seq", "dup"},
    "malformed": {"exec", "drop:runt", "drop:malformed", "drop:not_for_us", "drop:unknown_qp",
                  "drop:not_request", "drop:bad_icrc"},
    "send": {"exec", "dup", "nak-inv", "nak-rnr", "nak-seq", "nak-acc", "drop:psn_ahead_silent",
             "send_first", "send_middle", "send_last", "send_last_imm", "send_only", "send_only_imm",
             "multi_send", "write_imm_cqe", "write_imm_nak-inv", "write_imm_nak-rnr", "send_nak-inv",
             "send_nak-rnr", "send_overflow", "send_overflow_later", "cq_wrap"},
    "edge": {"exec", "dup", "nak-inv", "nak-acc", "dup-nak-acc", "dup-nak-inv"},
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
    from nettwin.rdma import ref as rdma_ref
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
