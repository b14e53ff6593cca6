"""RDMA scenarios of well-formed traffic: traffic, atomic, lostack, reorder, psnwrap
(docs/rdma.md; see gen.py for what each covers)."""
from collections import defaultdict

from nettwin.rdma.layers import AtomicETH, RETH
from nettwin.rdma.gen_model import HALF, M24, OP, PReq
from nettwin.rdma.gen_state import interleave


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
