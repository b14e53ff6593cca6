"""The ConWeave closed loop's regression runs (issue 26 items 3 and 4; API: nettwin/regress/run.py).

Each run is one `nettwin cwloop --engine lockstep` (docs/cwloop.md): seeded hosts' flows through the source ToR
(reroute RTL and model in lockstep), the fabric model (moving congestion, ECN, loss), the destination ToR
(reorder RTL and model in lockstep) and back, checked by nettwin.cwloop.check (per flow in order, exactly once, byte
for byte; reroute_check's three conditions at every reroute; at most two paths in flight per flow; hold times within
the bounds it computes from the captures).
Scenarios: one (1 congested path of 8, moved 4 times), two (2 at a time), lossy (2 at a time, 2 % data loss on
them, 1 % control loss, a quarter of the flows over IPv6), paths4 (4 paths, 16 flows); and the ECMP-against-
ConWeave pair of item 4 at the light load (fct-ecmp, fct-conweave; the heavy load, where the destination's
buffer overflows, is measured by nettwin.cwloop.perf only, docs/PERF.md), whose flow completion times the report
plots.
"""
import os

from nettwin.regress.run import PY, Run, read_json, stats_ok

TITLE = "ConWeave closed loop (both ToRs RTL and model in lockstep, fabric model; checked by nettwin.cwloop.check)"
HEADER = ["scenario", "seed", "mode", "host frames", "lost", "delivered", "reroutes", "held", "by TAIL",
          "by timeout", "control", "ctrl lost", "cycles", "result", "time"]
SCENARIOS = [
    ("one", [], 5),
    ("two", ["--congested", "2"], 5),
    ("lossy", ["--congested", "2", "--loss", "0.02", "--ctrl-loss", "0.01", "--ipv6"], 5),
    ("paths4", ["--paths", "4", "--host-flows", "16"], 5),
]
QUICK = ["one", "lossy"]


def _fct_flags(kind):
    from nettwin.cwloop.perf import COMMON, KINDS, LOADS
    return COMMON + LOADS["light"] + KINDS[kind]


def _columns(st, d):
    """The source ToR's stats (src_stats.json) and the loop's report.json (fabric, destination)."""
    rep = read_json(os.path.join(d, "report.json"))
    dst = rep.get("dst", {})
    return [st.get("packets_in", "-"), rep.get("fabric_lost", "-"), rep.get("delivered", "-"),
            st.get("reroutes", "-"), dst.get("held", "-"), dst.get("released_by_tail", "-"),
            dst.get("released_by_timeout", "-"), st.get("control_in", "-"), rep.get("ctrl_lost", "-"),
            st.get("cycles", "-")]


def _extract(run, st):
    data = {}
    if run.scenario.startswith("fct-"):
        from nettwin.cwloop.perf import measure
        m = measure(os.path.dirname(run.stats))
        data = {"fct": m["fct"], "occupancy": m["occupancy"], "reroutes": m["reroutes"], "timeouts": m["timeouts"],
                "out_of_order": m["out_of_order"], "buffer_drops": m["buffer_drops"], "held": m["held"]}
    return data


def runs(opts):
    out = []
    groups = [(sc, flags, n) for sc, flags, n in SCENARIOS if not opts.quick or sc in QUICK]
    if not opts.quick:
        groups += [("fct-ecmp", _fct_flags("delay") + ["--ecmp"], 3), ("fct-conweave", _fct_flags("delay"), 3)]
    for sc, flags, nseeds in groups:
        for seed in opts.seeds(1 if opts.quick else nseeds):
            d = os.path.join(opts.work, "cwloop_%s_%d" % (sc, seed))
            stats = os.path.join(d, "src_stats.json")
            cmd = [opts.nettwin, "cwloop", "--out-dir", d, "--seed", str(seed), "--engine", "lockstep"] + flags
            checks = [("cwloop_check", [PY, "-m", "nettwin.cwloop.check", "--dir", d])]
            outs = [os.path.join(d, n) for n in ("hosts.pcap", "fabric_in.pcap", "fabric_out.pcap", "fabric_lost.pcap",
                                                 "delivered.pcap", "ctrl_dst.pcap", "control.pcap", "ctrl_lost.pcap",
                                                 "run.json", "src_stats.json", "report.json")]
            out.append(Run("cwloop", sc, seed, "lockstep", cmd, checks=checks, stats=stats, outputs=outs,
                           accept=stats_ok, columns=lambda st, d=d: _columns(st, d), extract=_extract))
    return out


def plots(results, out_dir):
    """ECMP against ConWeave (item 4): the flow completion time CDF of the fct-* runs."""
    from nettwin.regress.plot import finish, plt
    fct = {m: sorted(x for r in results if r.run.scenario == "fct-" + m for x in r.data.get("fct", []))
           for m in ("ecmp", "conweave")}
    if not fct["ecmp"] or not fct["conweave"]:
        return []
    fig, ax = plt.subplots(figsize=(9, 5))
    for m, style in (("ecmp", "--"), ("conweave", "-")):
        xs = fct[m]
        ax.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], style,
                label="%s: mean %.1f us, p99 %.1f us" % (m, sum(xs) / len(xs), xs[int(0.99 * (len(xs) - 1))]))
    return finish(fig, ax, "flow completion time, us (first frame sent to last frame delivered)",
                  "fraction of flows", out_dir, "cwloop_fct.png", "ConWeave against ECMP alone: flow completion times",
                  "The fct-ecmp and fct-conweave runs: 32 flows x 150 1000-byte WRITEs at 4 Gb/s, 8 paths of 25 Gb/s, "
                  "2 paths at a time +15 us one way, the congestion moving 3 times; same seeds, same traffic. "
                  "A small cycle-level setup, not the paper's testbed (docs/PERF.md).")
