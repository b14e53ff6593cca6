#!/usr/bin/python3
"""Independent checker of a `nettwin reroute` run (docs/reroute.md).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reroute.check --dir D --out fabric.pcap --stats stats.json

Believes nothing the block says about itself that it cannot recompute from the pcaps (D/hosts.pcap,
D/control.pcap, D/run.json from nettwin.reroute.gen, and the block's output). It decodes every output frame with the
reorder block's Scapy-side layers (nettwin.reorder.layers), not with the block's code, and checks:
- conservation and order: the outputs are the host frames in order (every host frame of nettwin.reroute.gen is valid);
  each output stripped back (to_nic) is byte-equal to its host frame and has a valid ICRC, and is exactly
  to_fabric(host frame, its decoded fields) (lengths, IPv4 checksum, where the CW header goes);
- every reroute (an output with TAIL) satisfied, at its decision time T (its TX_TSTAMP, placed in absolute
  time by its departure): (i) the flow's last RTT_REQUEST was sent at least reply_cutoff_us before T and no
  RTT_REPLY echoing it arrived before T; (ii) the flow's next packet's path differs from the old one and no
  NOTIFY for it arrived within path_busy_us before T; (iii) the previous reroute of the flow had its CLEAR
  (epoch = the epoch it went to) before T, or the flow was idle for flow_idle_us;
- epochs and flags: after a TAIL of epoch e, the flow's packets carry epoch e+1 and TAIL_TX_TSTAMP = the
  TAIL's TX_TSTAMP, REROUTED = 1 until that CLEAR and 0 after it; the path changes only at a TAIL (or after
  an idle gap); so no flow has packets on more than two paths between two points where the destination
  confirmed the old path drained (the CLEAR);
- RTT_REQUEST: never a second one while one is outstanding (not answered, no TAIL, no idle gap);
- the stats agree with the pcaps (packets, control packets, every control packet accounted for).
The wire format is run.json's `wire_format` (nettwin.reroute.gen --wire-format; absent: the seed's): every frame is decoded
and re-encoded in it (layers.set_format), so in conweave-p4's format the byte-8 layout, the IP/UDP lengths that
are not grown and the IPv4 checksum are all checked against the reorder block's Scapy-side encoder; the
stats' wire_format must be the same.
A control packet and a decision in the same microsecond may be in either order (the block works in cycles,
the pcaps in us); such cases are accepted either way and counted as "ambiguous" in the PASS line.
Prints nettwin.common.report's report (`reroute_check: PASS: <format> format: ...`, or MISMATCH lines per check - stats,
bytes, reroute - and `reroute_check: FAIL: ...`). Exit 0 pass, 1 failed check, 2 unusable input.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

from nettwin.common.pcap import InputError, read_pcap
from nettwin.common.report import Report
from nettwin.reorder.layers import (CW_CLEAR, CW_NOTIFY, CW_RTT_REPLY, CW_RTT_REQUEST, SEED, check_icrc, decode_cw,
                                    flow_key, parse, set_format, to_fabric, to_nic)


def us(ts):
    """The microsecond a pcap time falls in, as the block's clock counts it (floor, not round: a control packet
    taken at 17.556 us is in microsecond 17; exact for us- and ns-resolution captures alike)."""
    return int(round(ts * 1e9)) // 1000


def check(d, out, stats, rep, prefix=""):
    """Checks the run in directory d (hosts.pcap, control.pcap, run.json) with the block's output pcap `out` and
    stats JSON `stats` into rep (nettwin.common.report.Report), each check's name after `prefix`. Returns the
    PASS summary; raises InputError for unusable input."""
    kind = ["stats"]

    def err(msg):
        rep.fail(prefix + kind[0], msg)
    try:
        hosts = read_pcap(os.path.join(d, "hosts.pcap"))
        ctrl = read_pcap(os.path.join(d, "control.pcap"))
        outs = read_pcap(out)
        with open(os.path.join(d, "run.json")) as f:
            run = json.load(f)
        with open(stats) as f:
            st = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(str(e)) from None
    cutoff, busy, idle = run["reply_cutoff_us"], run["path_busy_us"], run["flow_idle_us"]
    fmt = run.get("wire_format", SEED)
    try:
        set_format(fmt)
    except ValueError as e:
        raise InputError("run.json: %s" % e) from None
    if st.get("wire_format", SEED) != fmt:
        err("stats wire_format %s, run.json says %s" % (st.get("wire_format"), fmt))

    # ---- stats against the pcaps ----
    if st.get("packets_in") != len(hosts):
        err("stats packets_in %s, hosts.pcap has %d" % (st.get("packets_in"), len(hosts)))
    if st.get("packets_out") != len(outs):
        err("stats packets_out %s, output has %d" % (st.get("packets_out"), len(outs)))
    if st.get("control_in") != len(ctrl):
        err("stats control_in %s, control.pcap has %d" % (st.get("control_in"), len(ctrl)))
    parts = sum(st.get(k, 0) for k in ("rtt_replies", "stale_replies", "notifies", "clears", "stale_clears",
                                       "bad_control"))
    if parts != st.get("control_in"):
        err("control packets not all accounted for: %d of %s" % (parts, st.get("control_in")))
    if st.get("mismatches", 0) != 0 or not st.get("conservation_ok", False):
        err("the run reports mismatches or a conservation failure")
    if st.get("drops", {}).get("malformed", 0) != 0:
        err("malformed drops on nettwin.reroute.gen's valid host frames")

    # ---- bytes and order ----
    kind[0] = "bytes"
    if len(outs) != len(hosts):
        err("%d host frames in, %d out" % (len(hosts), len(outs)))
    decisions = []  # (T, key, cw)
    for i, ((o, ots), (h, _)) in enumerate(zip(outs, hosts)):
        cw = decode_cw(o)
        if cw is None:
            err("output %d: not a ConWeave fabric frame" % (i + 1))
            continue
        nic = to_nic(o)
        if nic != h:
            err("output %d: stripped back, not the host frame %d" % (i + 1, i + 1))
        elif not check_icrc(nic):
            err("output %d: ICRC of the stripped frame is wrong" % (i + 1))
        if to_fabric(h, cw.path_id, cw.op, cw.epoch, cw.rerouted, cw.tail, cw.tx_ts, cw.tail_tx_ts) != o:
            err("output %d: not the fabric encoding of its host frame with its own fields" % (i + 1))
        if cw.path_id >= run["paths"]:
            err("output %d: path %d >= paths %d" % (i + 1, cw.path_id, run["paths"]))
        dep = us(ots)
        t = dep - ((dep - cw.tx_ts) % 65536)
        decisions.append((t, flow_key(h), cw, i + 1))

    # ---- control packets by flow / path (the flow of a control packet is its reversed addresses) ----
    replies = defaultdict(list)  # key -> [(t, tx)]
    clears = defaultdict(list)   # key -> [(t, epoch)]
    notifies = defaultdict(list)  # path -> [t]
    for f, ts in ctrl:
        cw = decode_cw(f)
        h = parse(f)
        if cw is None or h is None:
            continue
        key = (h.dst, h.src, h.dqpn)
        t = us(ts)
        if cw.op == CW_RTT_REPLY:
            replies[key].append((t, cw.tx_ts))
        elif cw.op == CW_CLEAR:
            clears[key].append((t, cw.epoch))
        elif cw.op == CW_NOTIFY:
            notifies[cw.path_id].append(t)

    # ---- per flow: the three conditions, epochs, flags, paths ----
    kind[0] = "reroute"
    by_flow = defaultdict(list)
    for d in decisions:
        by_flow[d[1]].append(d)
    n_reroutes = n_amb = n_paths_max = 0
    for key, ds in by_flow.items():
        req = None          # (T, tx) of the outstanding request
        rerouted = False    # between a TAIL and its CLEAR
        epoch = None        # the flow's current epoch (None: unknown, after an idle gap or at the start)
        tail_tx = None
        clear_epoch = None  # the epoch whose CLEAR ends the current reroute
        path = None
        prev_t = None
        paths_since_drain = set()
        expect_new_path = None  # (old path, T) after a TAIL
        for (t, _, cw, n) in ds:
            if prev_t is not None and t - prev_t >= idle - 1:  # idle: state may be reset (evicted or not)
                req, rerouted, epoch, tail_tx, path, clear_epoch = None, False, None, None, None, None
                paths_since_drain = set()
            # Control packets since the previous decision: strictly between the two decisions they came
            # before this one; in the microsecond of either decision they may have come before or after it,
            # which this decision's own fields tell (RTT_REQUEST: the reply was in; REROUTED: no CLEAR yet).
            lo = prev_t if prev_t is not None else -10 ** 12
            if req is not None:
                hit = [rt for rt, tx in replies[key] if lo <= rt <= t and tx == req[1]]
                if any(lo < rt < t for rt in hit):
                    req = None
                elif hit:
                    n_amb += 1
                    if cw.op == CW_RTT_REQUEST:
                        req = None
            if rerouted:
                hit = [ct for ct, ce in clears[key] if lo <= ct <= t and ce == clear_epoch]
                certain = any(lo < ct < t for ct in hit)
                if hit and not certain:
                    n_amb += 1
                if certain or (hit and not cw.rerouted):
                    rerouted = False
                    paths_since_drain = set() if expect_new_path is not None else {path}
            if expect_new_path is not None:
                old, tt = expect_new_path
                if cw.path_id == old:
                    err("flow %s: packet %d after the TAIL is still on path %d" % (key, n, old))
                hot = [x for x in notifies[cw.path_id] if 0 <= tt - x < busy]
                if [x for x in hot if x != tt]:
                    err("flow %s: reroute at %d us to path %d, NOTIFYed %d us before (condition ii)"
                        % (key, tt, cw.path_id, tt - max(hot)))
                elif hot:
                    n_amb += 1
                path = cw.path_id
                expect_new_path = None
            if path is not None and cw.path_id != path:
                err("flow %s: packet %d changes path %d -> %d without a TAIL" % (key, n, path, cw.path_id))
            path = cw.path_id
            paths_since_drain.add(path)
            n_paths_max = max(n_paths_max, len(paths_since_drain))
            if len(paths_since_drain) > 2:
                err("flow %s: packet %d: a third path before the destination confirmed the old one drained"
                    % (key, n))
            if epoch is not None and cw.epoch != epoch and cw.epoch != 0:
                err("flow %s: packet %d epoch %d, expected %d" % (key, n, cw.epoch, epoch))
            epoch = cw.epoch if epoch is None or cw.epoch == epoch else epoch
            if tail_tx is not None and epoch == cw.epoch and cw.tail_tx_ts != tail_tx and not cw.tail:
                err("flow %s: packet %d TAIL_TX_TSTAMP %d, the TAIL left at %d" % (key, n, cw.tail_tx_ts, tail_tx))
            if bool(cw.rerouted) != rerouted:
                err("flow %s: packet %d REROUTED=%d, expected %d" % (key, n, cw.rerouted, rerouted))
            if cw.op == CW_RTT_REQUEST:
                if req is not None:
                    err("flow %s: packet %d: a second RTT_REQUEST while the one of %d us is outstanding"
                        % (key, n, req[0]))
                req = (t, cw.tx_ts)
            if cw.tail:
                n_reroutes += 1
                # (i)
                if req is None:
                    err("flow %s: TAIL %d at %d us without an outstanding RTT_REQUEST (condition i)" % (key, n, t))
                elif t - req[0] < cutoff:
                    err("flow %s: TAIL %d at %d us, only %d us after the request (cutoff %d, condition i)"
                        % (key, n, t, t - req[0], cutoff))
                # (iii)
                if rerouted:
                    err("flow %s: TAIL %d at %d us before the previous reroute's CLEAR (condition iii)" % (key, n, t))
                if cw.tail_tx_ts != cw.tx_ts:
                    err("flow %s: TAIL %d: TAIL_TX_TSTAMP %d != TX_TSTAMP %d" % (key, n, cw.tail_tx_ts, cw.tx_ts))
                expect_new_path = (cw.path_id, t)
                epoch = (cw.epoch + 1) & 3
                clear_epoch = epoch
                tail_tx = cw.tx_ts
                rerouted = True
                req = None
            prev_t = t
    return ("%s format: %d frames byte-exact in order, %d reroutes each meeting conditions i-iii, at most %d "
            "paths per flow between drains, %d flows, %d control packets, %d same-microsecond cases accepted "
            "either way" % (fmt, len(outs), n_reroutes, n_paths_max, len(by_flow), len(ctrl), n_amb))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stats", required=True)
    ap.add_argument("--show", type=int, default=30, help="mismatches printed per check (default 30)")
    a = ap.parse_args(argv)
    rep = Report("reroute_check", a.show)
    try:
        summary = check(a.dir, a.out, a.stats, rep)
    except (InputError, KeyError) as e:
        return rep.unusable(e)
    return rep.finish(summary)


if __name__ == "__main__":
    sys.exit(main())
