#!/usr/bin/python3
"""The reorder block's Python reference: a tiny ideal ConWeave destination ToR (zero processing
time), for the checker's self-test: its output must pass nettwin.reorder.check. Not a model of the RTL; named ref.py
like every block's Python reference (issue 28 item 4; it was oracle.py).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reorder.ref --dir D --delivered OUT.pcap --ctrl CTRL.pcap --stats S.json

Reads D/reorder.txt and D/arrivals.pcap (nettwin.reorder.gen) and applies docs/reorder.md's per-flow rules
with zero processing time: previous-epoch packets forwarded, REROUTED packets of the current epoch
held until the TAIL (then drained at once, then CLEAR) - unless that TAIL came first (TAIL of the
current epoch: remembered, CLEAR for epoch + 1 at once, the next reroute's packets pass) - or until
the resume deadline
TAIL_TX_TSTAMP + owd_old + margin_us (16-bit modular; now + default_hold_us without an old-path
sample).  A queue from the pool of `queues` is taken on the first held packet; none free ->
forwarded at once, counted fallback_unordered (per packet).  No flow-table collisions (unbounded
table), buffer_full when held bytes (64-byte cells of the fabric frame) would exceed buffer_bytes.
RTT_REPLY / NOTIFY are mirrored on arrival; CLEAR carries the flow's (new) epoch and mirrors the
TAIL, or the first held packet on a timeout.
"""
import argparse
import json
import os

from nettwin.reorder.layers import (CW_CLEAR, CW_NOTIFY, CW_RTT_REPLY, CW_RTT_REQUEST, ECN_CE, decode_cw,
                       flow_key, make_control, parse, read_config, to_nic)
from nettwin.common.pcap import read_pcap, write_pcap


class FS:
    def __init__(self, epoch):
        self.epoch = epoch
        self.tail_seen = True
        self.tail_next = False
        self.queue = None          # [(fabric, arrival_us)]
        self.deadline = None
        self.owd_cur = None
        self.owd_old = None


def run(conf, arrivals):
    Q, margin, dflt = conf["queues"], conf["margin_us"], conf["default_hold_us"]
    cells = conf["buffer_bytes"] // 64
    st = dict(packets_in=0, delivered=0, control_out=0, held_now=0, released_by_tail=0,
              released_by_timeout=0, fallback_unordered=0, fallback_collision=0,
              drops=dict(malformed=0, buffer_full=0), peak_queues=0, peak_buffer_bytes=0)
    hold = []
    out, ctrl = [], []
    flows = {}
    used = [0, 0]   # queues, cells

    def ncell(fr):
        return (len(fr) + 63) // 64

    def drain(fs, now, why):
        for fab, t in fs.queue:
            out.append((to_nic(fab), now))
            hold.append(now - t)
            used[1] -= ncell(fab)
            st[why] += 1
        fs.queue = None
        fs.deadline = None
        used[0] -= 1

    def timeouts(now):
        while True:
            due = [(fs.deadline, k) for k, fs in flows.items() if fs.deadline is not None and fs.deadline <= now]
            if not due:
                return
            dl, k = min(due)
            fs = flows[k]
            first = fs.queue[0][0]
            drain(fs, dl, "released_by_timeout")
            ctrl.append((make_control(first, CW_CLEAR, epoch=fs.epoch), dl))
            fs.tail_seen = True

    for fab, ts in arrivals:
        now = int(round(ts * 1e6))
        timeouts(now)
        st["packets_in"] += 1
        cw, h = decode_cw(fab), parse(fab)
        if cw is None or cw.op > 4 or cw.op not in (0, 1):
            st["drops"]["malformed"] += 1
            continue
        key = flow_key(fab)
        if cw.op == CW_RTT_REQUEST:
            ctrl.append((make_control(fab, CW_RTT_REPLY), now))
        if h.ecn == ECN_CE:
            ctrl.append((make_control(fab, CW_NOTIFY), now))
        fs = flows.get(key)
        if fs is None:
            fs = flows[key] = FS(cw.epoch)
        owd = (now - cw.tx_ts) & 0xFFFF
        d = (cw.epoch - fs.epoch) & 3
        held = False
        if d in (1, 2):
            fs.owd_old, fs.owd_cur = (fs.owd_cur if d == 1 else None), owd
            fs.epoch = cw.epoch
            if cw.rerouted:
                fs.tail_seen = d == 1 and fs.tail_next
                held = not fs.tail_seen
            fs.tail_next = False
        elif d == 0:
            fs.owd_cur = owd if fs.owd_cur is None else max(fs.owd_cur, owd)
            held = bool(cw.rerouted) and not fs.tail_seen
        else:
            fs.owd_old = owd if fs.owd_old is None else max(fs.owd_old, owd)
        if cw.tail and d != 3 and not fs.tail_next:
            fs.tail_next = True
            ctrl.append((make_control(fab, CW_CLEAR, epoch=(fs.epoch + 1) & 3), now))
        if held:
            if fs.queue is None:
                if used[0] >= Q:
                    st["fallback_unordered"] += 1
                    out.append((to_nic(fab), now))
                    continue
                used[0] += 1
                fs.queue = []
                if fs.owd_old is None:
                    fs.deadline = now + dflt
                else:
                    dl16 = (cw.tail_tx_ts + fs.owd_old + margin) & 0xFFFF
                    ahead = (dl16 - now) & 0xFFFF
                    fs.deadline = now + (ahead if ahead < 0x8000 else 0)
            if used[1] + ncell(fab) > cells:
                st["drops"]["buffer_full"] += 1
                continue
            used[1] += ncell(fab)
            fs.queue.append((fab, now))
            st["peak_queues"] = max(st["peak_queues"], used[0])
            st["peak_buffer_bytes"] = max(st["peak_buffer_bytes"], used[1] * 64)
            continue
        out.append((to_nic(fab), now))
        if d == 3 and cw.tail and not fs.tail_seen:
            fs.tail_seen = True
            if fs.queue is not None:
                drain(fs, now, "released_by_tail")
            ctrl.append((make_control(fab, CW_CLEAR, epoch=fs.epoch), now))
    timeouts(float("inf"))
    st["delivered"] = len(out)
    st["control_out"] = len(ctrl)
    hs = sorted(hold)
    st["held"] = len(hs)
    st["hold_us"] = dict(count=len(hs), min=hs[0] if hs else 0, max=hs[-1] if hs else 0,
                         mean=round(sum(hs) / len(hs), 3) if hs else 0,
                         p50=hs[len(hs) // 2] if hs else 0, p99=hs[min(len(hs) - 1, len(hs) * 99 // 100)] if hs else 0)
    return out, ctrl, st


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--delivered", required=True)
    ap.add_argument("--ctrl", required=True)
    ap.add_argument("--stats", required=True)
    a = ap.parse_args()
    conf = read_config(os.path.join(a.dir, "reorder.txt"))
    out, ctrl, st = run(conf, read_pcap(os.path.join(a.dir, "arrivals.pcap")))
    write_pcap(a.delivered, [(f, t / 1e6) for f, t in out])
    write_pcap(a.ctrl, [(f, t / 1e6) for f, t in ctrl])
    with open(a.stats, "w") as f:
        json.dump(st, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"reorder_ref: {st['packets_in']} in, {st['delivered']} delivered, {st['control_out']} control, "
          f"held {st['held']} (tail {st['released_by_tail']}, timeout {st['released_by_timeout']}), "
          f"fallback_unordered {st['fallback_unordered']}, peak queues {st['peak_queues']}")


if __name__ == "__main__":
    main()
