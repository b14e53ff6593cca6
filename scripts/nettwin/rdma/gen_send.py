"""RDMA scenarios of SEND / WRITE with immediate (send) and of the readings where docs/rdma.md is
silent (edge); see gen.py for what each covers."""
from nettwin.rdma.layers import AtomicETH, ImmDt, RETH, set_icrc
from nettwin.rdma.gen_model import M24, OP, PReq
from nettwin.rdma.gen_state import interleave, l4_off
from nettwin.rdma.gen_traffic import random_op


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
    """Cases docs/rdma.md does not spell out, with the reading nettwin.rdma.ref implements.  Each probe
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
    # zero-length requests with an unknown rkey (IBA C9-88: neither VA nor R_Key is checked): executed, an ACK
    # and a READ RESPONSE ONLY of no bytes
    for op, title in (("W_ONLY", "zero-length WRITE, unknown rkey (C9-88)"),
                      ("READ", "zero-length READ, unknown rkey (C9-88)")):
        f, s, lo, fol = probe(title)
        p0 = f.take()
        g.emit(s, PReq(f, p0, OP[op], f.frame(OP[op], p0, [RETH(va=0, rkey=unknown, dlen=0)], ackreq=True), 1,
                       None, "read" if op == "READ" else "write", title))
        g.emit_all(s, fol())
    # one byte with an unknown rkey: a remote access error (C9-88 is for zero-length operations only)
    f, s, lo, fol = probe("one-byte WRITE, unknown rkey")
    g.emit(s, f.bad(f.frame(OP["W_ONLY"], f.psn, [RETH(va=0, rkey=unknown, dlen=1)], bytes(1)), "nak-acc",
                    "one-byte WRITE, unknown rkey"))
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
