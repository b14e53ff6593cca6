#!/usr/bin/python3
"""Seeded ConWeave scenario generator, playing the source ToR (docs/reorder.md).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reorder.gen --seed N --out-dir D [--scenario NAME] [--flows K]

Writes
  D/reorder.txt     config: flows, queues, buffer_bytes, margin_us, default_hold_us, flow_idle_us
  D/arrivals.pcap   fabric frames (CW fields + CW header), pcap timestamp = arrival time at the
                    destination ToR, sorted by arrival time (ties: send order)
  D/originals.pcap  the NIC frames the host must receive (every frame that reaches the destination
                    ToR, stripped back), in send order; timestamp = send time at the source ToR
  D/flows.json      per flow: key, family, "frames" = original indices in PSN order, "psns",
                    "rtt_requests" / "ce" = original indices, "lost" = PSNs dropped in the fabric
                    (never arrive, not in originals.pcap), "reroutes" (epoch, paths, tail_psn,
                    tail_tx_us, tail_lost, first_psn, time_us); plus "clock" and "guard_us".

Time model (integer microseconds): one absolute clock; pcap timestamp = clock / 1e6 s, and the 16-bit
TX_TSTAMP / TAIL_TX_TSTAMP = clock mod 2^16, so the destination's 16-bit microsecond counter is the
pcap timestamp in us mod 2^16.  Each flow (one RC QP: WRITE first/middle/last/only with RETH, SEND,
with immediate, IPv4 and IPv6, several QPs per host pair, PSNs also across 2^24) sends a packet
every few us on its current path; one-way delay = the path's base delay (+ congestion C once the
path is congested, a step some 160 us before the reroute) + 0..1 us jitter, FIFO per path.  ConWeave
reroutes on a predicted RTT, so the new path is not always faster when the packets fly: reroutes take
turns (over all flows) being faster (by more than a packet gap: the first rerouted packets overtake the
TAIL, the last old-path packet; TAIL last), slower, faster, equal (same one-way delay as the congested
old path; the new path of a slower / equal reroute carries that delay for the rest of its segment), so
TAIL-first and TAIL-last reroutes occur in every scenario with 3 or more reroutes; flows.json records
each reroute's "new_path" (faster/equal/slower) and "tail_first".  New-path packets carry the new epoch
(2-bit, wraps) and REROUTED (until the CLEAR could be back at the source), TAIL_TX_TSTAMP = the
TAIL's send time.  Condition iii: a flow's next reroute is at least guard_us after the previous one.

--wire-format conweave-p4: the same traffic in conweave-p4's BTH layout (layers.to_fabric), reorder.txt gets
`wire_format conweave-p4`, a TAIL is never an RTT_REQUEST (it carries ask_reply for its CLEAR), and
TAIL_TX_TSTAMP is conweave-p4's (the TAIL's own send time on the TAIL, 0 on non-rerouted packets).

Scenarios: mixed (default: all features), tailloss (TAILs dropped in the fabric), epochwrap (back-to-
back reroutes, epochs wrap 3 -> 0 more than once), tswrap (clock starts just below 65536 us; TAILs,
deadlines and reroutes straddle the 16-bit wrap), ecn (20 % CE-marked, RTT_REQUESTs every 30 us),
exhaust (16 flows reroute within 10 us with queues 4, plus 4 flows that never reroute).
Same seed, same bytes.
"""
import argparse
import json
import os
import random

from nettwin.reorder.layers import CW_NORMAL, CW_RTT_REQUEST, FORMATS, P4, SEED, parse, set_format, to_fabric
from nettwin.common.pcap import write_pcap
from nettwin.rdma.layers import OP, RETH, ImmDt, build_request

SCENARIOS = ("mixed", "tailloss", "epochwrap", "tswrap", "ecn", "exhaust")
MTU = 256
NPATHS = 8
GUARD_US = 400          # condition iii: min time between two reroutes of a flow
KINDS = ("faster", "slower", "faster", "equal")   # the new path against the congested old one, in turn
STEP_BEFORE_US = 160    # the old path becomes congested this long before the reroute
MAX_PACKETS = 2000

# per scenario: flows, packets per flow, gap range (us), reroutes per flow (min, max),
# tail loss probability, CE probability, RTT_REQUEST period (us), queues, clock start
CFG = {
    "mixed":     dict(flows=24, pkts=(40, 140), gap=(3, 9), rr=(0, 2), loss=0.2, ce=0.03, rtt=60, queues=32),
    "tailloss":  dict(flows=8, pkts=(150, 220), gap=(2, 5), rr=(2, 3), loss=0.6, ce=0.0, rtt=0, queues=16),
    "epochwrap": dict(flows=4, pkts=(400, 450), gap=(4, 7), rr=(6, 8), loss=0.1, ce=0.0, rtt=100, queues=8),
    "tswrap":    dict(flows=10, pkts=(100, 180), gap=(2, 5), rr=(1, 2), loss=0.3, ce=0.02, rtt=80, queues=16),
    "ecn":       dict(flows=12, pkts=(80, 140), gap=(1, 5), rr=(0, 1), loss=0.0, ce=0.2, rtt=30, queues=16),
    "exhaust":   dict(flows=20, pkts=(85, 99), gap=(3, 5), rr=(1, 1), loss=0.0, ce=0.02, rtt=0, queues=4),
}


class Flow:
    pass


def build_messages(rng, n):
    """n packets of WRITE/SEND messages: [(opcode, payload_len, ext list, ackreq)]."""
    out = []
    while len(out) < n:
        left = n - len(out)
        npk = min(left, rng.choice([1, 1, 2, 3, 4, 6]))
        kind = rng.choice(["WRITE", "WRITE", "SEND"])
        last_len = rng.randint(0 if kind == "SEND" else 1, MTU)
        dlen = (npk - 1) * MTU + last_len
        imm = rng.random() < 0.2
        reth = RETH(va=rng.getrandbits(48) << 8, rkey=rng.getrandbits(32), dlen=dlen)
        immdt = ImmDt(imm=rng.getrandbits(32))
        for i in range(npk):
            first, last = i == 0, i == npk - 1
            plen = last_len if last else MTU
            if npk == 1:
                if kind == "WRITE":
                    op, ext = (OP["WRITE_ONLY_IMM"], [reth, immdt]) if imm else (OP["WRITE_ONLY"], [reth])
                else:
                    op, ext = (OP["SEND_ONLY_IMM"], [immdt]) if imm else (OP["SEND_ONLY"], [])
            elif first:
                op, ext = (OP["WRITE_FIRST"], [reth]) if kind == "WRITE" else (OP["SEND_FIRST"], [])
            elif last:
                if kind == "WRITE":
                    op, ext = (OP["WRITE_LAST_IMM"], [immdt]) if imm else (OP["WRITE_LAST"], [])
                else:
                    op, ext = (OP["SEND_LAST_IMM"], [immdt]) if imm else (OP["SEND_LAST"], [])
            else:
                op, ext = (OP["WRITE_MIDDLE"] if kind == "WRITE" else OP["SEND_MIDDLE"]), []
            out.append((op, plen, ext, last and rng.random() < 0.7))
    return out


def gen(seed, scenario, nflows=None, fmt=SEED):
    p4 = fmt == P4
    rng = random.Random(f"cw:{seed}:{scenario}")
    c = dict(CFG[scenario])
    if nflows:
        c["flows"] = nflows
    per_flow_cap = max(12, MAX_PACKETS // c["flows"])
    if scenario == "tswrap":
        clock0 = 65536 - rng.randint(150, 400)
    else:
        clock0 = 1_000_000 + rng.randrange(65536)
    path_base = [rng.randint(3, 30) for _ in range(NPATHS)]          # PathIDs 1..NPATHS
    hosts4 = [f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{i + 1}" for i in range(6)]
    hosts6 = [f"fd00:{rng.randint(0, 0xffff):x}::{i + 1:x}" for i in range(6)]
    flows = []
    for fi in range(c["flows"]):
        fl = Flow()
        fl.id = fi
        fl.family = 6 if rng.random() < 0.45 else 4
        hs = hosts6 if fl.family == 6 else hosts4
        a, b = rng.sample(range(6), 2)
        a, b = (fi % 3, 3 + fi % 3) if fi < 3 and rng.random() < 0.9 else (a, b)  # several QPs per pair
        fl.src, fl.dst = hs[a], hs[b]
        fl.smac, fl.dmac = f"02:00:00:00:{a:02x}:{fl.family:02x}", f"02:00:00:00:{b:02x}:{fl.family:02x}"
        fl.sport = rng.randint(49152, 65535)
        fl.dqpn = rng.randint(0x10, 0xFFFFFF)
        fl.psn0 = rng.choice([rng.randrange(1 << 24), 0xFFFFFF - rng.randint(0, 20)])
        n = min(per_flow_cap, rng.randint(*c["pkts"]))
        fl.msgs = build_messages(rng, n)
        fl.dscp = rng.choice([0, 26, 46])
        # send times
        t = clock0 + rng.randint(0, 20)
        fl.tx = []
        for _ in range(n):
            fl.tx.append(t)
            t += rng.randint(*c["gap"])
        flows.append(fl)
    # reroute points (index of the first packet on the new path)
    if scenario == "exhaust":
        t_star = clock0 + 230
        for fl in flows:
            if fl.id < 16:
                tt = t_star + rng.randint(0, 10)
                i = next(k for k, x in enumerate(fl.tx) if x >= tt)
                fl.rr = [i] if 5 <= i <= len(fl.tx) - 5 else []
            else:
                fl.rr = []
    else:
        for fl in flows:
            want = rng.randint(*c["rr"])
            fl.rr = []
            last_t = fl.tx[0] + STEP_BEFORE_US + 40 - GUARD_US
            cand = list(range(5, len(fl.tx) - 8))
            i = 0
            while len(fl.rr) < want and i < len(cand):
                k = cand[i]
                if fl.tx[k] - last_t >= GUARD_US + rng.randint(0, 60):
                    fl.rr.append(k)
                    last_t = fl.tx[k]
                    i += rng.randint(1, 4)
                i += 1
    # paths, epochs, delays
    frames = []            # (arrival, tx, flow id, seq, fabric bytes, nic bytes or None if lost)
    nkind = 0
    for fl in flows:
        nseg = len(fl.rr) + 1
        bounds = [0] + fl.rr + [len(fl.tx)]
        p = rng.randrange(NPATHS)
        fl.paths = [p]
        fl.cong = []
        fl.base = [path_base[p]]   # one-way delay of each segment's path before its congestion step
        fl.kinds = []
        gap_max = c["gap"][1]
        for s in range(1, nseg):
            q = rng.choice([q for q in range(NPATHS) if q != fl.paths[-1]])
            fl.paths.append(q)
            kind = KINDS[nkind % len(KINDS)]
            nkind += 1
            if kind == "faster":
                fl.cong.append(max(25, path_base[q] - fl.base[-1] + gap_max + 12) + rng.randint(0, 20))
                fl.base.append(path_base[q])
            else:
                fl.cong.append(rng.randint(25, 45))
                old = fl.base[-1] + fl.cong[-1]
                want = old if kind == "equal" else old + rng.randint(gap_max + 5, 60)
                fl.base.append(max(path_base[q], want))
                kind = "equal" if fl.base[-1] == old else "slower"
            fl.kinds.append(kind)
        fl.reroutes = []
        fl.lost = set()
        for s in range(1, nseg):
            ti = bounds[s] - 1
            lost = rng.random() < c["loss"]
            if lost:
                fl.lost.add(ti)
            fl.reroutes.append(dict(epoch=s % 4, old_path=fl.paths[s - 1] + 1, new_path=fl.paths[s] + 1,
                                    new_path_was=fl.kinds[s - 1], old_path_delay_us=fl.base[s - 1] + fl.cong[s - 1],
                                    new_path_delay_us=fl.base[s],
                                    tail_psn=(fl.psn0 + ti) & 0xFFFFFF, tail_tx_us=fl.tx[ti],
                                    tail_lost=lost, first_psn=(fl.psn0 + bounds[s]) & 0xFFFFFF,
                                    time_us=fl.tx[bounds[s]], congestion_us=fl.cong[s - 1]))
        last_rtt = -10 ** 9
        fl.pk = []
        prev_arr = {}
        tail_tx = 0
        for s in range(nseg):
            path = fl.paths[s]
            seg_end = bounds[s + 1]
            rer_until = (fl.tx[bounds[s]] + fl.base[s - 1] + fl.cong[s - 1] + fl.base[s] + 30) if s else 0
            step_t = fl.tx[seg_end] - STEP_BEFORE_US if s < nseg - 1 else None
            if s:
                tail_tx = fl.tx[bounds[s] - 1]
            for i in range(bounds[s], seg_end):
                tx = fl.tx[i]
                op, plen, ext, ackreq = fl.msgs[i]
                ce = rng.random() < c["ce"]
                ecnbits = 3 if ce else rng.choice([1, 2, 2])
                nic = build_request(fl.family, fl.smac, fl.dmac, fl.src, fl.dst, fl.sport, op, fl.dqpn,
                                    (fl.psn0 + i) & 0xFFFFFF, ackreq=ackreq, ext=ext,
                                    payload=rng.randbytes(plen), tos=(fl.dscp << 2) | ecnbits,
                                    ip_id=rng.getrandbits(16), flow=rng.getrandbits(20) if fl.family == 6 else 0)
                cwop = CW_NORMAL
                rerouted = bool(s) and tx < rer_until
                tail = i == seg_end - 1 and s < nseg - 1
                # conweave-p4: a TAIL carries ask_reply for its own REPLY (the CLEAR), so it is no RTT_REQUEST
                if c["rtt"] and tx - last_rtt >= c["rtt"] and i not in fl.lost and not (p4 and tail):
                    cwop, last_rtt = CW_RTT_REQUEST, tx
                # conweave-p4's TAIL_TX_TSTAMP: the TAIL's own send time on the TAIL, 0 once the flow is stable
                # (registers_ingress.p4 reg_tail_ts); the block reads it from rerouted packets only
                ttx = tail_tx if not p4 or rerouted else tx if tail else 0
                fab = to_fabric(nic, path + 1, cwop, s % 4, rerouted, tail, tx, ttx)
                delay = fl.base[s] + (fl.cong[s] if step_t is not None and tx >= step_t else 0)
                arr = max(tx + delay + rng.randint(0, 1), prev_arr.get(s, 0))
                prev_arr[s] = arr
                fl.pk.append(dict(i=i, psn=(fl.psn0 + i) & 0xFFFFFF, nic=nic, fab=fab, tx=tx, arr=arr,
                                  rtt=cwop == CW_RTT_REQUEST, ce=ce, lost=i in fl.lost))
                frames.append((arr, tx, fl.id, i, fab, None if i in fl.lost else nic))
    # sanity: a faster new path's first packet overtakes the TAIL; a slower or equal one's does not
    for fl in flows:
        for r in fl.reroutes:
            ta = next(p["arr"] for p in fl.pk if p["psn"] == r["tail_psn"])
            fa = next(p["arr"] for p in fl.pk if p["psn"] == r["first_psn"])
            assert (fa < ta) == (r["new_path_was"] == "faster"), (fl.id, r)
            r["tail_first"] = ta <= fa
    originals = sorted([(tx, fid, i, nic) for (arr, tx, fid, i, fab, nic) in frames if nic is not None])
    oidx = {(fid, i): k for k, (tx, fid, i, nic) in enumerate(originals)}
    arrivals = sorted((x for x in frames if x[5] is not None), key=lambda x: (x[0], x[1], x[2], x[3]))
    fj = []
    for fl in flows:
        keep = [p for p in fl.pk if not p["lost"]]
        h = parse(fl.pk[0]["nic"])
        fj.append(dict(
            key=[h.src, h.dst, h.dqpn], family=fl.family, sport=fl.sport,
            frames=[oidx[(fl.id, p["i"])] for p in keep], psns=[p["psn"] for p in keep],
            rtt_requests=[oidx[(fl.id, p["i"])] for p in keep if p["rtt"]],
            ce=[oidx[(fl.id, p["i"])] for p in keep if p["ce"]],
            lost=[p["psn"] for p in fl.pk if p["lost"]],
            paths=[q + 1 for q in fl.paths], reroutes=fl.reroutes))
    conf = dict(flows=1024, queues=c["queues"], buffer_bytes=262144, margin_us=16,
                default_hold_us=200, flow_idle_us=2000)
    meta = dict(scenario=scenario, seed=seed, clock0_us=clock0, guard_us=GUARD_US,
                path_base_us={str(i + 1): d for i, d in enumerate(path_base)}, flows=fj)
    return conf, arrivals, originals, meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--scenario", default="mixed", choices=SCENARIOS)
    ap.add_argument("--flows", type=int, default=None)
    ap.add_argument("--wire-format", default=SEED, choices=FORMATS,
                    help="the seed's BTH layout (default) or conweave-p4's (docs/reorder.md \"Two wire formats\")")
    a = ap.parse_args()
    set_format(a.wire_format)
    if a.flows is not None and not 1 <= a.flows <= 200:
        ap.error("--flows must be 1..200")
    conf, arrivals, originals, meta = gen(a.seed, a.scenario, a.flows, a.wire_format)
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "reorder.txt"), "w") as f:
        for k in ("flows", "queues", "buffer_bytes", "margin_us", "default_hold_us", "flow_idle_us"):
            f.write(f"{k} {conf[k]}\n")
        if a.wire_format != SEED:
            f.write(f"wire_format {a.wire_format}\n")
    # Nanosecond pcaps (the times are whole microseconds): `nettwin reorder` writes its outputs with the input's
    # resolution, so the departures keep their cycle and reorder_check can time a release to the cycle (issue 26).
    write_pcap(os.path.join(a.out_dir, "arrivals.pcap"), [(fab, arr / 1e6) for arr, tx, _, _, fab, _ in arrivals],
               nano=True)
    write_pcap(os.path.join(a.out_dir, "originals.pcap"), [(nic, tx / 1e6) for tx, _, _, nic in originals], nano=True)
    with open(os.path.join(a.out_dir, "flows.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    nrr = sum(len(x["reroutes"]) for x in meta["flows"])
    nl = sum(len(x["lost"]) for x in meta["flows"])
    ntf = sum(r["tail_first"] for x in meta["flows"] for r in x["reroutes"])
    print(f"reorder_gen: {a.scenario} seed {a.seed}: {len(meta['flows'])} flows, {len(arrivals)} arrivals, "
          f"{len(originals)} originals, {nrr} reroutes ({ntf} TAIL first, {nl} TAILs lost), "
          f"{sum(len(x['rtt_requests']) for x in meta['flows'])} RTT_REQUESTs, "
          f"{sum(len(x['ce']) for x in meta['flows'])} CE -> {a.out_dir}")


if __name__ == "__main__":
    main()
