"""The ConWeave source-ToR block's regression runs (API: nettwin/regress/run.py).

Every nettwin.reroute.gen scenario x seed through `nettwin reroute --engine lockstep` (RTL and cycle model compared every
cycle), timed (the pcaps' offer times) and timed+bp (40 % backpressure on the fabric output), each checked by
nettwin.reroute.check (byte-exact order, the three conditions at every reroute, epochs, flags, at most two paths per
flow between drains, stats against the pcaps). The p4-* scenarios are nettwin.reroute.gen's scenario of that name in
conweave-p4's wire format (nettwin.reroute.gen --wire-format conweave-p4, `nettwin reroute --wire-format conweave-p4`,
reroute_check reading the format from run.json; docs/reroute.md "Wire format"). The *-e2e scenarios go on to the
destination ToR (issue 26 item 2's "a conweave-p4-layout capture goes through the destination ToR in order,
exactly once, in lockstep"): nettwin.reroute.gen --no-clear (each flow reroutes at most once, so an open loop is safe),
the block's output through nettwin.reroute.fabric's paths (different delays: rerouted packets overtake their TAIL),
`nettwin reorder --engine lockstep` with the same wire_format, and nettwin.reorder.check on what the hosts get. The
closed loop through the destination ToR is a GoogleTest
(RerouteLockstep.ClosedLoopWithTheDestinationToR), not yet a regression run.
"""
import os

from nettwin.regress.run import PY, Run, Vector, stats_ok, tag

TITLE = "ConWeave source ToR (RTL and model in lockstep; checked by nettwin.reroute.check)"
HEADER = ["scenario", "seed", "mode", "host frames", "out", "reroutes", "RTT requests", "blocked (iii)",
          "no path (ii)", "ECMP fallback", "control", "cycles", "result", "time"]
SCENARIOS = ["mixed", "tswrap", "overflow", "ipv6", "p4-mixed", "p4-overflow", "p4-mixed-e2e", "p4-ipv6-e2e"]
P4, E2E = "p4-", "-e2e"
MODES = [("timed", []), ("timed+bp", ["--backpressure", "0.4", "--seed", "{seed}"])]
QUICK_MODES = ["timed"]


def _columns(st):
    return [st.get(k, "-") for k in ("packets_in", "packets_out", "reroutes", "rtt_requests",
                                      "reroute_blocked_clear", "reroute_no_path", "fallback_ecmp",
                                      "control_in", "cycles")]


def runs(opts):
    out = []
    modes = [m for m in MODES if not opts.quick or m[0] in QUICK_MODES]
    for sc in SCENARIOS:
        for seed in opts.seeds(1 if opts.quick else 5):
            d = os.path.join(opts.work, "reroute_%s_%d" % (sc, seed))
            p4, e2e = sc.startswith(P4), sc.endswith(E2E)
            base = sc[len(P4) if p4 else 0:-len(E2E) if e2e else None]
            fmt = ["--wire-format", "conweave-p4"] if p4 else []
            gen = [PY, "-m", "nettwin.reroute.gen", "--seed", str(seed), "--scenario", base, "--out-dir", d] + fmt + \
                (["--no-clear"] if e2e else [])
            vec = Vector("reroute/%s/%d" % (sc, seed), [gen])
            flows = "4" if base == "overflow" else "1024"
            for mode, flags in modes:
                fab = os.path.join(d, "fabric_%s.pcap" % tag(mode))
                stats = os.path.join(d, "stats_%s.json" % tag(mode))
                cmd = [opts.nettwin, "reroute", "--in", os.path.join(d, "hosts.pcap"), "--ctrl-in",
                       os.path.join(d, "control.pcap"), "--out", fab, "--stats", stats, "--flows", flows,
                       "--paths", "8", "--reply-cutoff-us", "40", "--path-busy-us", "100", "--flow-idle-us",
                       "2000", "--engine", "lockstep"] + fmt + [f.format(seed=seed) for f in flags]
                checks = [("reroute_check", [PY, "-m", "nettwin.reroute.check", "--dir", d, "--out", fab,
                                        "--stats", stats])]
                if e2e:
                    e = os.path.join(d, "reorder_%s" % tag(mode))
                    dl, ctl, dst = (os.path.join(e, x) for x in ("delivered.pcap", "control.pcap", "stats.json"))
                    checks += [("reroute_fabric", [PY, "-m", "nettwin.reroute.fabric", "--dir", d, "--fabric", fab,
                                              "--out-dir", e]),
                               ("reorder", [opts.nettwin, "reorder", "--config", os.path.join(e, "reorder.txt"),
                                            "--in", os.path.join(e, "arrivals.pcap"), "--out", dl, "--ctrl-out",
                                            ctl, "--stats", dst, "--engine", "lockstep"]),
                               ("reorder_check", [PY, "-m", "nettwin.reorder.check", "--dir", e, "--delivered", dl,
                                             "--ctrl", ctl, "--stats", dst])]
                out.append(Run("reroute", sc, seed, mode, cmd, vector=vec, checks=checks, stats=stats,
                               outputs=[fab], accept=stats_ok, columns=_columns))
    return out
