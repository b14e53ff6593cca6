"""The ConWeave reorder queue's regression runs (API: nettwin/regress/run.py).

Every nettwin.reorder.gen scenario x seed through `nettwin reorder --engine lockstep` in four stimulus modes: timed (pcap
arrival times) and timed+bp (30 % backpressure on both outputs), both checked by nettwin.reorder.check (hold and release
timing too); b2b (back to back, 20 % backpressure) and b2b-tight (a tiny flow table, queue pool and hold limit,
host output ready 1 cycle in 7, so collisions, fallbacks, buffer_full drops and input stalls all occur): time
is compressed there, so they are checked by nettwin.reorder.check --b2b (conservation, exactly-once, bytes, ICRC,
control packets, the drop rule; not order or timing).
The same in conweave-p4's wire format (scenarios p4-mixed, p4-tailloss, p4-epochwrap: nettwin.reorder.gen --wire-format
conweave-p4, `wire_format conweave-p4` in reorder.txt; docs/reorder.md "Two wire formats"), 3 seeds each.
"""
import json
import os

from nettwin.regress.run import PY, Run, Vector, stats_ok, tag

TITLE = ("ConWeave reorder (RTL and model in lockstep; timed runs checked by nettwin.reorder.check, b2b by nettwin.reorder.check "
         "--b2b; fallback = unordered/collision)")
HEADER = ["scenario", "seed", "mode", "arrivals", "delivered", "held", "by TAIL", "by timeout", "fallback",
          "control", "cycles", "result", "time"]
SCENARIOS = ["mixed", "tailloss", "epochwrap", "tswrap", "ecn", "exhaust"]
# conweave-p4's wire format (issue 26 item 2): the epoch (+ phase) wrap, TAIL loss and the mixed traffic
P4_SCENARIOS = ["mixed", "tailloss", "epochwrap"]
# (mode, extra nettwin flags ("{seed}" = the vector's seed), timed?); nettwin.reorder.check gets the same backpressure
# values (they widen its port-time bounds) and --b2b for the back-to-back modes.
MODES = [("timed", [], True),
         ("timed+bp", ["--backpressure", "0.3", "--ctrl-backpressure", "0.3", "--seed", "{seed}"], True),
         ("b2b", ["--back-to-back", "--backpressure", "0.2", "--seed", "{seed}"], False),
         ("b2b-tight", ["--back-to-back", "--backpressure", "0.85", "--ctrl-backpressure", "0.5",
                        "--seed", "{seed}"], False)]
QUICK_MODES = ["timed", "b2b"]
TIGHT = {"flows": 8, "queues": 4, "buffer_bytes": 4096}
TIGHT_SCRIPT = ("import sys; src, dst = sys.argv[1:3]; tight = %r; "
                "lines = [l.split() for l in open(src)]; "
                "open(dst, 'w').write(''.join('%%s %%d\\n' %% (t[0], tight[t[0]]) if t and t[0] in tight "
                "else ' '.join(t) + '\\n' for t in lines))" % TIGHT)


def _columns(st):
    return [st.get("packets_in", "-"), st.get("delivered", "-"), st.get("held", "-"),
            st.get("released_by_tail", "-"), st.get("released_by_timeout", "-"),
            "%s/%s" % (st.get("fallback_unordered", "-"), st.get("fallback_collision", "-")),
            st.get("control_out", "-"), st.get("cycles", "-")]


def _hold_points(d, delivered):
    """(path-delay difference, hold time of the reroute's first new-path packet, TAIL lost?) per reroute, in us.
    The difference is the old path's delay at the TAIL (base + congestion) minus the new path's base delay;
    the hold time is the packet's departure (delivered pcap) minus its arrival (arrivals pcap)."""
    from nettwin.common import pcap  # Scapy: only when a report is written, so --list stays fast
    from nettwin.reorder import layers

    def times(path):
        t = {}
        for frame, ts in pcap.read_pcap(path):
            h = layers.parse(frame)
            if h is not None:
                t.setdefault((h.src, h.dst, h.dqpn, h.psn), float(ts))
        return t
    arr, dep = times(os.path.join(d, "arrivals.pcap")), times(delivered)
    with open(os.path.join(d, "flows.json")) as f:
        fj = json.load(f)
    base = {int(k): v for k, v in fj["path_base_us"].items()}
    pts = []
    for fl in fj["flows"]:
        for r in fl["reroutes"]:
            k = tuple(fl["key"]) + (r["first_psn"],)
            if k in arr and k in dep:
                diff = (base[r["old_path"]] + r["congestion_us"] if "old_path_delay_us" not in r
                        else r["old_path_delay_us"]) - r.get("new_path_delay_us", base[r["new_path"]])
                pts.append((diff, round((dep[k] - arr[k]) * 1e6, 3), bool(r["tail_lost"])))
    return pts


def _extract(run, st):
    data = {"in_beats": st.get("in_beats"), "cycles": st.get("cycles")}
    if run.mode.startswith("timed"):
        d = os.path.dirname(run.stats)
        data["hold_points"] = _hold_points(d, os.path.join(d, "dl_%s.pcap" % tag(run.mode)))
    return data


def runs(opts):
    out = []
    modes = [m for m in MODES if not opts.quick or m[0] in QUICK_MODES]
    groups = [(sc, sc, [], 10) for sc in SCENARIOS] + \
        [("p4-" + sc, sc, ["--wire-format", "conweave-p4"], 3) for sc in P4_SCENARIOS]
    for sc, gen_sc, gen_flags, nseeds in groups:
        if opts.quick and sc.startswith("p4-") and sc != "p4-mixed":
            continue
        for seed in opts.seeds(1 if opts.quick else nseeds):
            d = os.path.join(opts.work, "reorder_%s_%d" % (sc, seed))
            conf, tight = os.path.join(d, "reorder.txt"), os.path.join(d, "reorder_tight.txt")
            gen = [PY, "-m", "nettwin.reorder.gen", "--seed", str(seed), "--scenario", gen_sc, "--out-dir", d] + gen_flags
            vec = Vector("reorder/%s/%d" % (sc, seed), [gen, [PY, "-c", TIGHT_SCRIPT, conf, tight]])
            for mode, flags, timed in modes:
                dl, ctrl = os.path.join(d, "dl_%s.pcap" % tag(mode)), os.path.join(d, "ctrl_%s.pcap" % tag(mode))
                stats = os.path.join(d, "stats_%s.json" % tag(mode))
                cmd = [opts.nettwin, "reorder", "--config", tight if mode == "b2b-tight" else conf,
                       "--in", os.path.join(d, "arrivals.pcap"), "--out", dl, "--ctrl-out", ctrl, "--stats", stats,
                       "--engine", "lockstep"] + [f.format(seed=seed) for f in flags]
                bp = [f for i, f in enumerate(flags) if f in ("--backpressure", "--ctrl-backpressure")
                      or (i and flags[i - 1] in ("--backpressure", "--ctrl-backpressure"))]
                checks = [("reorder_check", [PY, "-m", "nettwin.reorder.check", "--dir", d, "--delivered", dl,
                                        "--ctrl", ctrl, "--stats", stats] + bp + ([] if timed else ["--b2b"]))]
                out.append(Run("reorder", sc, seed, mode, cmd, vector=vec, checks=checks, stats=stats,
                               outputs=[dl, ctrl], accept=stats_ok, columns=_columns, extract=_extract))
    return out


def plots(results, out_dir):
    """Hold time of each reroute's first new-path packet against the path-delay difference."""
    from nettwin.regress.plot import finish, plt
    pts = [p for r in results for p in r.data.get("hold_points", [])]
    if not pts:
        return []
    fig, ax = plt.subplots(figsize=(9, 5))
    for lost, label, marker in ((False, "TAIL arrived (released by TAIL)", "o"),
                                (True, "TAIL lost (released by the timer)", "x")):
        sel = [p for p in pts if p[2] == lost]
        if sel:
            ax.scatter([p[0] for p in sel], [p[1] for p in sel], marker=marker, s=14, alpha=0.6,
                       label="%s: %d" % (label, len(sel)))
    hi = max(max(p[0] for p in pts), 1)
    ax.plot([0, hi], [0, hi], ":", color="grey", label="hold = difference")
    ax.axvline(0, color="grey", lw=0.5)  # left of it the new path is slower or equal: the TAIL came first
    return finish(fig, ax, "path-delay difference at the reroute, us (old path + congestion - new path)",
                  "hold time of the first rerouted packet, us", out_dir, "reorder_hold.png",
                  "Reorder hold time against the path-delay difference",
                  "Timed runs (timed, timed+bp), one point per reroute whose first new-path packet arrived. "
                  "A held packet waits for the TAIL, about the difference minus the gap between the two "
                  "packets; a lost TAIL leaves it to the hold timer.")
