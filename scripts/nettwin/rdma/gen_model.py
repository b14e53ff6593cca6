"""The RoCEv2 generator's requester and its own model of the responder (docs/rdma.md): memory
regions with the generator's copy of their bytes (GMR), requests and what they must do (PReq), and
QPs (Flow: PSNs, open messages, AQ, receive queue and CQ).  Written here, never taken from
ref.py: the generator's intent is checked against the reference, not derived from it."""
from nettwin.rdma.layers import AtomicETH, ImmDt, RETH, build_request

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
ALL_SCENARIOS = SCENARIOS + ("edge", "sendstream", "hotatomic")


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
