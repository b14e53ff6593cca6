"""RDMA scenarios of issue 25 items 2 and 3 (not in mixed; see gen.py): SEND streams through the
receive-WQE prefetch ring (sendstream) and atomic streams on one hot word (hotatomic)."""
from nettwin.rdma.gen_model import OP
from nettwin.rdma.gen_state import interleave


def sc_sendstream(g):
    """SENDs back to back through the receive-WQE prefetch ring (16 WQEs per QP, read 4 at a time).
    QP A: more posted WQEs than the ring holds, in an RQ whose size is no multiple of 4 (the reads
    stop at its end), full-MTU SEND ONLYs and multi-packet SENDs, WRITEs with immediate among them,
    then a message more than was posted (RNR NAK, the retransmission RNR again).  QP B (lazy: a WQE
    per message) sends short SENDs interleaved with A's."""
    rng = g.rng
    rings, bufs = g.shared()
    wt = bufs.grow(bytes(4096))                 # WRITE with immediate targets
    mtu = rng.choice((1024, 2048, 4096))
    a = g.flow(4, mtu, mra=8)
    n = rng.randrange(24, 40)
    lens = [rng.choice((mtu, mtu, mtu, rng.randrange(1, mtu + 1), 2 * mtu + rng.randrange(1, mtu + 1)))
            for _ in range(n)]
    entries = n + rng.randrange(0, 4)
    if entries % 4 == 0:
        entries += 1
    a.add_rq(entries, 64, posted=lens, rnr_timer=rng.randrange(32), lazy=False)
    b = g.flow(6, 256, mra=8)
    b.add_rq(48, 16)
    sa, sb = [], []
    for k in range(n):
        w = a.wqes[a.reserved]
        if rng.random() < 0.2:
            length = rng.randrange(0, min(w["len"], 2048) + 1)
            g.emit_all(sa, a.write(bufs, wt + rng.randrange(0, 4096 - length + 1), length, imm=True))
        else:
            length = w["len"] if rng.random() < 0.7 else rng.randrange(0, w["len"] + 1)
            g.emit_all(sa, a.send(length, imm=rng.random() < 0.3, ackreq=False))
    more = a.send(rng.randrange(1, mtu + 1), reserve=False, note="SEND beyond the posted WQEs: RNR NAK")
    g.emit(sa, more[0])
    g.emit(sa, more[0], note="retransmitted: still no WQE, RNR NAK again")
    for _ in range(rng.randrange(20, 40)):
        if not b.can_reserve():
            break
        g.emit_all(sb, b.send(rng.randrange(0, 257), imm=rng.random() < 0.5))
    g.emit(sb, b.read(rings, b.cq_off, 32 * min(b.cq_index, b.cq_entries), note="READ the CQ"))
    return interleave(rng, [sa, sb])


def sc_hotatomic(g):
    """Atomics on one hot word back to back (each after the first takes its predecessor's result on
    chip), from two QPs sharing the word: FAAs with small and random operands, CAS that succeed
    and fail, atomics on a second word in between (the forwarding chain breaks and starts again),
    READs and WRITEs of the hot word between atomics (they wait for the queued atomics), and
    retransmissions of hot-word atomics, recent and older (at-most-once: replayed, never
    re-executed)."""
    rng = g.rng
    a = g.flow(4, 1024, mra=16)
    b = g.flow(6, 1024, mra=rng.choice((4, 16)))
    tgt = g.mr(256, "rwa", "random", "hot atomic words")
    g.aq_view(a)
    hot = 8 * rng.randrange(0, 32)
    other = 8 * rng.choice([i for i in range(32) if 8 * i != hot])
    s = []
    done = {a: [], b: []}
    for _ in range(rng.randrange(80, 140)):
        f = a if rng.random() < 0.7 else b
        r = rng.random()
        if r < 0.55:
            req = f.atomic(tgt, hot, OP["FAA"], operand=rng.choice((1, 1, rng.randrange(1, 1 << 16),
                                                                    rng.getrandbits(64))))
        elif r < 0.72:
            req = f.atomic(tgt, hot, OP["CAS"], cas_success=rng.random() < 0.6)
        elif r < 0.82:
            req = f.atomic(tgt, other, rng.choice((OP["FAA"], OP["CAS"])), cas_success=rng.random() < 0.5)
        elif r < 0.88:
            g.emit(s, f.read(tgt, hot, 8, note="READ the hot word between atomics"))
            continue
        elif r < 0.92:
            g.emit_all(s, f.write(tgt, hot, 8, note="WRITE the hot word between atomics"))
            continue
        else:
            if done[f]:
                back = rng.choice((1, 1, 2, rng.randrange(1, len(done[f]) + 1)))
                g.emit(s, done[f][-min(back, len(done[f]))], note="hot-word atomic retransmitted")
            continue
        g.emit(s, req)
        done[f].append(req)
    return s
