"""Regression runs of the control plane's feedback loop (API: nettwin/regress/run.py; docs/lb.md, "Control plane:
the feedback loop").

Per seed: nettwin.lb.feedback gen simulates 4 members reporting their fill every period, the PID (as udplbd2) turning
the reports into weights and `nettwin lb-plan` planning each epoch switch, one member three times slower from
period 12 on; `nettwin lb --engine fast` then runs every packet of every event with the loop's table scripts
applied mid-run (run_traffic interleaving); nettwin.lb.feedback check verifies each event went whole to the member the
simulation used, nothing dropped or lost, and the slow member's final share within 10% of what its rate allows
(rate / event rate, and rate / sum of rates).
The ctest lb_feedback runs a shorter loop, so --quick declares none.
"""
import os

from nettwin.regress.run import PY, Figure, Run, Vector, read_json, sum_drops

TITLE = ("EJFAT feedback loop (fill reports -> PID as udplbd2 -> lb-plan epoch switches, every event through "
         "`nettwin lb --engine fast`; nettwin.lb.feedback check)")
HEADER = ["scenario", "seed", "mode", "pkts_in", "pkts_out", "drops", "slow share", "rate/event rate", "off",
          "rate/sum rates", "off", "result", "time"]


def _accept(st):
    if not st:
        return "no readable stats JSON"
    if st.get("packets_in") != st.get("packets_out") or sum_drops(st):
        return "packets in %s, out %s, drops %s" % (st.get("packets_in"), st.get("packets_out"), sum_drops(st))
    return None


def runs(opts):
    if opts.quick:
        return []
    out = []
    for seed in opts.seeds(2):
        d = os.path.join(opts.work, "lbfeedback%d" % seed)
        script = ["-m", "nettwin.lb.feedback"]
        vec = Vector("feedback/%d" % seed, [[PY, *script, "gen", "--nettwin", opts.nettwin, "--out-dir", d,
                                             "--seed", str(seed)]])
        outp, stats, res = (os.path.join(d, n) for n in ("out.pcap", "stats.json", "share.json"))
        cmd = [opts.nettwin, "lb", "--engine", "fast", "--tables", os.path.join(d, "run.txt"), "--in",
               os.path.join(d, "packets_in.pcap"), "--out", outp, "--stats", stats]
        checks = [("feedback", [PY, *script, "check", "--dir", d, "--out", outp, "--stats", stats, "--json", res])]

        def columns(st, res=res):
            r = read_json(res)
            cells = (["%.4f" % r["share"], "%.4f" % r["allowed"], "%.1f%%" % (100 * r["error"]),
                      "%.4f" % r["proportional"], "%.1f%%" % (100 * r["error_proportional"])] if r else ["-"] * 5)
            return [st.get("packets_in", "-"), st.get("packets_out", "-"), sum_drops(st)] + cells

        out.append(Run("feedback", "loop", seed, "fast", cmd, engine="fast", vector=vec, checks=checks, stats=stats,
                       outputs=[outp, res], accept=_accept, columns=columns,
                       measure=lambda st: (st.get("packets_in", "-"), "-"),  # the fast engine counts no cycles
                       extract=lambda run, st, d=d: {"trace": os.path.join(d, "trace.json")}))
    return out


def plots(results, out_dir):
    """Fill levels, weights and shares over time, one figure per passed seed."""
    from nettwin.lb.feedback import draw
    from nettwin.regress.plot import plt, save
    figs = []
    for res in results:
        tr = read_json(res.data.get("trace", "")) if res.ok else {}
        if not tr:
            continue
        draw(plt, tr)
        path = os.path.join(out_dir, "lb_feedback_s%d.png" % res.run.seed)
        save(plt.gcf(), path)
        figs.append(Figure("Feedback loop, seed %d" % res.run.seed, path,
                           "Reported fill, weight and share of events per member; m%d becomes three times slower "
                           "and the PID moves its share to what its rate allows." % tr["params"]["slow"]))
    return figs
