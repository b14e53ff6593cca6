"""RDMA scenarios of faulty requests: badreq (NAKs), icrc (bad / masked ICRC fields), malformed
(every drop reason and their priorities); see gen.py for what each covers."""
from scapy.contrib.roce import AETH
from scapy.layers.l2 import ARP, Ether

from nettwin.rdma.layers import AtomicAckETH, AtomicETH, ImmDt, RETH, fix_ipv4_checksum
from nettwin.rdma.gen_model import M24, OP, OPN
from nettwin.rdma.gen_state import l4_off, refresh
from nettwin.rdma.gen_traffic import random_op


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
        # RoCEv2 CNPs (BTH opcode 0x81, BECN, 16 reserved bytes; what a ConnectX sends back for ECN-marked
        # traffic): counted as `cnp`, whatever their QP; a CNP with a bad ICRC is `bad_icrc` like any packet
        fr = f.frame(0x81, ops[0].psn, [bytes(16)], becn=1)
        drop(f, fr, "cnp", "CNP", ops)
        ops = good(f)
        fr = bytearray(f.frame(0x81, 0, [bytes(16)], becn=1))
        u = l4_off(fr)
        fr[u + 8 + 5:u + 8 + 8] = (0xABCDE).to_bytes(3, "big")
        drop(f, refresh(fr), "cnp", "CNP for a QP the responder does not have", ops)
        ops = good(f)
        fr = bytearray(f.frame(0x81, 0, [bytes(16)], becn=1))
        fr[-1] ^= 0x01
        drop(f, fr, "bad_icrc", "CNP with a bad ICRC", ops)
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
