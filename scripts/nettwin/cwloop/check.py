#!/usr/bin/python3
"""Independent checker of a `nettwin cwloop` run (the ConWeave closed loop, docs/cwloop.md).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.cwloop.check --dir D

Reads only the captures and D/run.json (the run's parameters); believes nothing the blocks say about
themselves that it cannot recompute from the captures. Decodes with the reorder block's Scapy-side layers
(nettwin.reorder.layers), never with the model's code. Checks:
- the source ToR, with reroute_check (nettwin.reroute.check) on D/hosts.pcap, D/control.pcap (the control packets
  as they reached the source ToR) and D/fabric_in.pcap: byte-exact order, the three conditions at every
  reroute at the moment it was taken, epochs and flags, RTT_REQUEST discipline;
- the fabric: every frame that entered it left it exactly once or is in fabric_lost.pcap, unchanged but for
  the ECN CE mark; the same for every control frame on the way back;
- per flow, end to end: the hosts received exactly the frames their NICs sent that the fabric did not lose,
  each once, in PSN order, byte for byte (the host frame with the CE mark the fabric set), valid ICRC;
- no flow ever had packets in flight on more than two paths at once (intervals [fabric in, fabric out]);
- hold times: each delivered frame's wait at the destination (delivered - taken in, from the captures) is
  bounded by what the checker computes itself: 0 for a frame of a flow not in a reroute; for a REROUTED frame
  of epoch e, the arrival of the TAIL of epoch e-1 (which, as the TAIL left first, is at most the old path's
  delay minus the new path's: d_old - d_new) or, when that TAIL was lost or late, the resume deadline
  TAIL_TX_TSTAMP + the flow's largest old-path one-way delay + margin_us, except where no frame of epoch e-1
  had reached the destination when the reroute's hold window opened (its first REROUTED frame's arrival): the
  destination then saw the epoch jump by two and knows no old-path delay, so the deadline is that opening +
  default_hold_us (docs/reorder.md "Jump (d = 2)", docs/cwloop.md "Hold bound after an epoch jump"); plus the
  time the output port was busy with other frames in between and ALLOW_US for the clock's microsecond and the
  pipeline;
- the destination's hold-time sideband of every held frame (report.json, -1: not held) against the measured
  wait (within 1 us: the sideband counts whole microseconds).
Prints nettwin.common.report's report: `cwloop_check: PASS: ...` with per-reroute statistics (d_old - d_new and
the largest hold it explains) and reroute_check's summary, or MISMATCH lines per check (fabric, delivery, paths,
hold; the source ToR's as `source stats|bytes|reroute`) and `cwloop_check: FAIL: ...`. Exit 0 / 1 / 2.
"""
import argparse
import bisect
import json
import math
import os
import sys
from collections import defaultdict

from nettwin.common.pcap import InputError, read_pcap
from nettwin.common.report import Report
from nettwin.reroute import check as rr
from nettwin.reorder.layers import check_icrc, decode_cw, fix_ipv4_checksum, flow_key, parse

ALLOW_US = 1.0    # the microsecond clock's granularity (a deadline is in whole us) + a few pipeline cycles
BEAT_NS = 4.0     # one 64-byte beat per 250 MHz cycle at the destination's output
BEAT_BYTES = 64


def clear_ce(frame):
    f = bytearray(frame)
    et = (f[12] << 8) | f[13]
    if et == 0x0800:
        f[15] &= 0xFC
        return fix_ipv4_checksum(bytes(f))
    if et == 0x86DD:
        f[15] &= 0xCF
    return bytes(f)


def key_psn(frame):
    h = parse(frame)
    return (h.src, h.dst, h.dqpn), h.psn


def check(d, rep):
    """Checks the loop's captures in d into rep (nettwin.common.report.Report); returns the figures of the
    PASS line."""
    kind = ["fabric"]

    def err(msg):
        rep.fail(kind[0], msg)

    cap = {}
    for n in ("hosts", "fabric_in", "fabric_out", "fabric_lost", "delivered", "ctrl_dst", "control", "ctrl_lost"):
        cap[n] = [(bytes(f), t) for f, t in read_pcap(os.path.join(d, n + ".pcap"))]
    with open(os.path.join(d, "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(d, "report.json")) as f:
        report = json.load(f)
    hosts, fin, fout, flost = cap["hosts"], cap["fabric_in"], cap["fabric_out"], cap["fabric_lost"]
    deliv = cap["delivered"]
    stats = {}

    # ---- the fabric: in = out + lost, each frame once, only CE changed ----
    if len(fin) != len(hosts):
        err("%d host frames, %d into the fabric" % (len(hosts), len(fin)))
    by_bytes = defaultdict(list)  # fabric_in frame bytes -> [index]
    for i, (f, _) in enumerate(fin):
        by_bytes[f].append(i)
    out_of = [None] * len(fin)   # index -> (arrival t, ce)
    lost = set()
    for j, (f, t) in enumerate(fout):
        g = clear_ce(f)
        idx = [i for i in by_bytes.get(g, []) if out_of[i] is None and i not in lost]
        if not idx:
            err("fabric_out frame %d is no frame that entered the fabric (or a second copy)" % (j + 1))
            continue
        out_of[idx[0]] = (t, parse(f).ecn == 3)
    for j, (f, t) in enumerate(flost):
        idx = [i for i in by_bytes.get(f, []) if out_of[i] is None and i not in lost]
        if not idx:
            err("fabric_lost frame %d is no frame that entered the fabric" % (j + 1))
            continue
        lost.add(idx[0])
    missing = [i for i in range(len(fin)) if out_of[i] is None and i not in lost]
    if missing:
        err("%d frames entered the fabric and never left it (first: %d)" % (len(missing), missing[0] + 1))
    cdst, csrc, clost = cap["ctrl_dst"], cap["control"], cap["ctrl_lost"]
    if sorted(f for f, _ in cdst) != sorted([f for f, _ in csrc] + [f for f, _ in clost]):
        err("control frames: %d sent by the destination ToR != %d at the source ToR + %d lost"
            % (len(cdst), len(csrc), len(clost)))

    # ---- per flow, end to end ----
    kind[0] = "delivery"
    sent = defaultdict(list)  # key -> [(psn, host frame, fabric_in index)]
    for i, (h, _) in enumerate(hosts):
        k, psn = key_psn(h)
        sent[k].append((psn, h, i))
    got = defaultdict(list)  # key -> [(psn, frame, delivered index)]
    for j, (f, t) in enumerate(deliv):
        p = parse(f)
        if p is None:
            err("delivered frame %d is not RoCEv2" % (j + 1))
            continue
        k, psn = key_psn(f)
        got[k].append((psn, f, j))
    dmap = {}  # fabric_in index -> delivered index
    for k, s in sent.items():
        exp = [x for x in s if x[2] not in lost]
        g = got.get(k, [])
        if [x[0] for x in g] != [x[0] for x in exp]:
            err("flow %s: delivered PSNs are not the sent ones minus the lost, in order, once (%d sent, %d lost, "
                "%d delivered)" % (k, len(s), len(s) - len(exp), len(g)))
            continue
        for (psn, hf, i), (_, df, j) in zip(exp, g):
            ce = out_of[i][1]
            if clear_ce(df) != hf or (parse(df).ecn == 3) != ce:
                err("flow %s PSN %d: delivered bytes are not the NIC's frame with the fabric's CE mark" % (k, psn))
            elif not check_icrc(df):
                err("flow %s PSN %d: bad ICRC" % (k, psn))
            dmap[i] = j
    extra = set(got) - set(sent)
    if extra:
        err("%d flows delivered that no host sent" % len(extra))

    # ---- at most two paths in flight per flow ----
    kind[0] = "paths"
    cw_in = [decode_cw(f) for f, _ in fin]
    events = defaultdict(list)  # key -> [(t, +1/-1, path)]
    for i, (f, t) in enumerate(fin):
        if cw_in[i] is None:
            err("fabric_in frame %d: no ConWeave header" % (i + 1))
            continue
        k = flow_key(f)
        end = out_of[i][0] if out_of[i] else t
        events[k].append((t, 1, cw_in[i].path_id))
        events[k].append((end, -1, cw_in[i].path_id))
    max_paths = 0
    for k, ev in events.items():
        ev.sort(key=lambda e: (e[0], e[1]))  # at equal times, leave before enter
        live = defaultdict(int)
        for t, s, p in ev:
            live[p] += s
            if live[p] == 0:
                del live[p]
            if len(live) > max_paths:
                max_paths = len(live)
            if len(live) > 2:
                err("flow %s: packets in flight on %d paths at %.3f us" % (k, len(live), t * 1e6))
                break
    stats["max_paths"] = max_paths

    # ---- hold times ----
    kind[0] = "hold"
    margin, hold_default = run["margin_us"], run["default_hold_us"]
    deliv_t = [t for _, t in deliv]
    beats_before = [0]  # beats of the delivered frames before each one
    for f, _ in deliv:
        beats_before.append(beats_before[-1] + (len(f) + BEAT_BYTES - 1) // BEAT_BYTES)
    by_flow_idx = defaultdict(list)
    for i, (f, _) in enumerate(fin):
        by_flow_idx[flow_key(f)].append(i)
    hold_side = report.get("hold_us", [])
    n_held = n_tail = n_deadline = 0
    worst = 0.0
    reroute_rows = []
    for k, idxs in by_flow_idx.items():
        tails = {}  # epoch of the TAIL -> index (the latest so far)
        owd = defaultdict(float)  # path -> largest one-way delay seen (us, TX_TSTAMP to arrival)
        # Epoch jumps at the destination (docs/reorder.md "Jump (d = 2)"): the flow's frames in send order fall
        # into generations, one per epoch the source used (a new one at each epoch change); gen_open[g] is the
        # first arrival at the destination of a REROUTED frame of generation g (where its hold window opens),
        # gen_first[g] the first arrival of any frame of g.
        gen, gen_open, gen_first, g, last_ep = {}, {}, {}, -1, None
        for i in idxs:
            if cw_in[i] is None:
                continue
            if cw_in[i].epoch != last_ep:
                g, last_ep = g + 1, cw_in[i].epoch
            gen[i] = g
            if out_of[i]:
                gen_first[g] = min(gen_first.get(g, out_of[i][0]), out_of[i][0])
                if cw_in[i].rerouted:
                    gen_open[g] = min(gen_open.get(g, out_of[i][0]), out_of[i][0])
        for i in idxs:
            cw = cw_in[i]
            if cw is None:
                continue
            if cw.tail:
                tails[cw.epoch] = i
            if out_of[i]:
                owd[cw.path_id] = max(owd[cw.path_id], (out_of[i][0] - fin[i][1]) * 1e6)
            if i not in dmap:
                continue
            j = dmap[i]
            arr = out_of[i][0]
            hold = (deliv_t[j] - arr) * 1e6
            if j < len(hold_side) and hold_side[j] >= 0 and abs(hold_side[j] - hold) > 1.0 + 1e-6:
                err("flow %s frame %d: hold sideband %d us, measured %.3f us" % (k, i + 1, hold_side[j], hold))
            bound = 0.0
            why = "not rerouted"
            if cw.rerouted:
                ti = tails.get((cw.epoch - 1) & 3)
                if ti is None:
                    bound, why = hold_default, "no TAIL seen: default hold"
                else:
                    old = cw_in[ti].path_id
                    # the resume deadline (absolute), with the clock's whole microseconds on both of its ends
                    dl_abs = fin[ti][1] + (owd[old] + margin + 2 * ALLOW_US) * 1e-6
                    gi = gen[i]
                    t_open = gen_open.get(gi)
                    if t_open is not None and t_open <= arr and \
                            not (gen_first.get(gi - 1, math.inf) < t_open):
                        # No frame of the old path's epoch (generation gi - 1) had reached the destination when
                        # this reroute's window opened: it saw the flow's epoch jump by two, where the old-path
                        # delay is unknown and the deadline is the window opening + default_hold_us
                        # (docs/reorder.md "Jump (d = 2)"; the reorder checker's reference does the same).
                        dl_abs = t_open + (hold_default + ALLOW_US) * 1e-6
                        why_dl = "TAIL lost or late, epoch jump: window opening + default hold"
                    else:
                        why_dl = "TAIL lost or late: resume deadline"
                    if out_of[ti] and out_of[ti][0] <= dl_abs:
                        after = (out_of[ti][0] - arr) * 1e6
                        bound = max(0.0, after)
                        why = "TAIL"
                        d_old = (out_of[ti][0] - fin[ti][1]) * 1e6
                        d_new = (arr - fin[i][1]) * 1e6
                        if after > d_old - d_new + 1e-6:  # impossible unless the captures lie: the TAIL left first
                            err("flow %s frame %d: TAIL arrived %.3f us after it, more than d_old - d_new = %.3f"
                                % (k, i + 1, after, d_old - d_new))
                        reroute_rows.append((k, ti, d_old - d_new, hold))
                    else:
                        bound, why = max(0.0, (dl_abs - arr) * 1e6), why_dl
                        n_deadline += 1
            # the output port: frames delivered between its arrival and its delivery went first
            port = (beats_before[j] - beats_before[bisect.bisect_left(deliv_t, arr)]) * BEAT_NS / 1000.0
            limit = bound + port + ALLOW_US
            if hold > 0.5:
                n_held += 1
                n_tail += why == "TAIL"
            worst = max(worst, hold - bound - port)
            if hold > limit + 1e-6:
                err("flow %s frame %d (PSN %d): held %.3f us, bound %.3f us (%s) + port %.3f + %.1f"
                    % (k, i + 1, parse(fin[i][0]).psn, hold, bound, why, port, ALLOW_US))
    stats.update(held=n_held, held_until_tail=n_tail, held_until_deadline=n_deadline,
                 worst_excess_us=round(worst, 3))
    # per reroute: the path-delay difference and the largest hold it explained
    per = defaultdict(lambda: [0.0, 0.0])
    for k, ti, diff, hold in reroute_rows:
        per[(k, ti)][0] = max(per[(k, ti)][0], diff)
        per[(k, ti)][1] = max(per[(k, ti)][1], hold)
    stats["reroutes_with_held"] = len(per)
    stats["max_delay_diff_us"] = round(max([v[0] for v in per.values()] or [0]), 3)
    stats["max_hold_us"] = round(max([v[1] for v in per.values()] or [0]), 3)
    stats["lost"] = len(lost)
    stats["flows"] = len(sent)
    stats["delivered"] = len(deliv)
    return stats


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--show", type=int, default=30, help="mismatches printed per check (default 30)")
    a = ap.parse_args(argv)
    rep = Report("cwloop_check", a.show)
    try:
        stats = check(a.dir, rep)
        # the source ToR: reroute_check on the loop's own captures, its checks named "source <check>"
        stats["source"] = rr.check(a.dir, os.path.join(a.dir, "fabric_in.pcap"),
                                   os.path.join(a.dir, "src_stats.json"), rep, prefix="source ")
    except (InputError, OSError, ValueError, KeyError) as e:
        return rep.unusable(e)
    return rep.finish(lambda: (
        "%(flows)d flows, %(delivered)d frames delivered in order exactly once byte for byte "
        "(%(lost)d lost in the fabric); at most %(max_paths)d paths in flight per flow; %(held)d frames waited "
        "> 0.5 us (%(held_until_tail)d for their TAIL, %(held_until_deadline)d until the resume deadline), "
        "%(reroutes_with_held)d reroutes with held frames: largest d_old - d_new %(max_delay_diff_us).1f us, "
        "largest hold %(max_hold_us).1f us; worst hold beyond its bound %(worst_excess_us).3f us; "
        "source ToR (reroute_check): %(source)s" % stats))


if __name__ == "__main__":
    sys.exit(main())
