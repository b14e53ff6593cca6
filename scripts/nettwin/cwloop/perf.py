"""Flow completion times and reorder-queue occupancy of `nettwin cwloop` runs, ECMP alone against ConWeave
(issue 26 item 4; docs/PERF.md "ConWeave against ECMP"), from the runs' own captures:

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.cwloop.perf --nettwin build/nettwin_cwloop --seeds 5 --out-dir DIR [--engine E]

FCT of a flow = its last frame delivered to the host (delivered.pcap) - its first frame sent by the NIC
(hosts.pcap). Occupancy = the destination ToR's reorder queues sampled every microsecond (report.json).
Out-of-order = frames delivered after a later PSN of their flow (a resume deadline that passed before the
old path's TAIL; counted, not hidden). Writes DIR/cwloop_perf.md (the table) and PNG plots.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

# What is measured. Common: 8 paths of 25 Gb/s (one-way 2.0 + 0.25 x path us + serialization), 32 flows of
# 1000-byte WRITEs starting over 600 us, 2 of the 8 paths congested at a time, the congestion moving 3 times;
# reply cutoff 15 us (about twice the base RTT), resume margin 100 us, the reorder buffer 4096 cells (256 KiB).
COMMON = ["--host-flows", "32", "--spread-ns", "600000", "--congested", "2", "--moves", "3",
          "--reply-cutoff-us", "15", "--margin-us", "100"]
LOADS = {
    "light": ["--packets", "150", "--gap-ns", "2000"],  # 4 Gb/s per flow, 300 us per flow
    "heavy": ["--packets", "200", "--gap-ns", "1000"],  # 8 Gb/s per flow, 200 us per flow
}
KINDS = {
    # the congested paths get +15 us one way (a long queue elsewhere), their rate intact
    "delay": ["--extra-us", "15", "--rate-factor", "1.0"],
    # the congested paths keep half their rate (background traffic): queues build
    "queue": ["--extra-us", "0", "--rate-factor", "0.5"],
}
CONFIGS = {"%s/%s" % (load, kind): LOADS[load] + KINDS[kind] for load in LOADS for kind in KINDS}


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def measure(d):
    """FCTs (us), out-of-order frames and the run's occupancy from a cwloop output directory."""
    from nettwin.common.pcap import read_pcap  # Scapy: only when measuring
    from nettwin.reorder.layers import parse
    first, last, top, ooo = {}, {}, {}, 0
    sent, got = {}, {}
    for f, t in read_pcap(os.path.join(d, "hosts.pcap")):
        h = parse(f)
        k = (h.src, h.dst, h.dqpn)
        first.setdefault(k, float(t))
        sent[k] = sent.get(k, 0) + 1
    for f, t in read_pcap(os.path.join(d, "delivered.pcap")):
        h = parse(f)
        k = (h.src, h.dst, h.dqpn)
        last[k] = float(t)
        got[k] = got.get(k, 0) + 1
        psn = h.psn  # compared modulo 2^24 (a flow's PSNs start at a random value)
        if k in top and ((top[k] - psn) & 0xFFFFFF) < 0x800000 and top[k] != psn:
            ooo += 1
        else:
            top[k] = psn
    with open(os.path.join(d, "report.json")) as f:
        rep = json.load(f)
    fct = [(last[k] - first[k]) * 1e6 for k in first if k in last]
    # a flow missing frames (lost in the fabric or dropped by the destination's full buffer) has not completed:
    # its FCT here runs to its last delivered frame, a lower bound (a transport would retransmit)
    return {"fct": fct, "incomplete": sum(1 for k in sent if got.get(k, 0) < sent[k]), "out_of_order": ooo,
            "occupancy": rep["occupancy"], "reroutes": rep["src"]["reroutes"],
            "timeouts": rep["dst"]["released_by_timeout"], "buffer_drops": rep["dst"]["drop_buffer_full"],
            "held": rep["dst"]["held"]}


def summary(ms):
    fct = [x for m in ms for x in m["fct"]]
    occ = [m["occupancy"] for m in ms]
    return {"flows": len(fct), "incomplete": sum(m["incomplete"] for m in ms), "fct_mean": statistics.mean(fct), "fct_p50": pct(fct, 50), "fct_p99": pct(fct, 99),
            "held_mean_pkts": statistics.mean(o["mean_held_packets"] for o in occ),
            "held_mean_kb": statistics.mean(o["mean_held_cells"] for o in occ) * 64 / 1000.0,
            "held_peak_pkts": max(o["peak_held_packets"] for o in occ),
            "held_peak_kb": max(o["peak_held_cells"] for o in occ) * 64 / 1000.0,
            "reroutes": sum(m["reroutes"] for m in ms), "timeouts": sum(m["timeouts"] for m in ms),
            "out_of_order": sum(m["out_of_order"] for m in ms), "buffer_drops": sum(m["buffer_drops"] for m in ms)}


ROW = ("| {cfg} | {mode} | {flows} | {incomplete} | {fct_mean:.1f} | {fct_p50:.1f} | {fct_p99:.1f} | {held_mean_pkts:.1f} / "
       "{held_mean_kb:.1f} | {held_peak_pkts} / {held_peak_kb:.1f} | {reroutes} | {timeouts} | {out_of_order} | "
       "{buffer_drops} |")
HEAD = ("| load/congestion | mode | flows | incomplete flows | FCT mean us | FCT p50 us | FCT p99 us | reorder queues mean (pkts / KB) | "
        "peak (pkts / KB) | reroutes | frames released by timeout | out-of-order frames | buffer drops |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def plot(results, out_dir):
    """FCT CDFs per congestion kind, ECMP against ConWeave; returns the PNG paths."""
    from nettwin.regress.plot import plt, save
    paths = []
    for cfg in sorted({c for c, _ in results}):
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        for mode, style in (("ecmp", "--"), ("conweave", "-")):
            ms = results.get((cfg, mode))
            if not ms:
                continue
            fct = sorted(x for m in ms for x in m["fct"])
            ax1.plot(fct, [(i + 1) / len(fct) for i in range(len(fct))], style, label=mode)
        ax1.set_xlabel("flow completion time, us")
        ax1.set_ylabel("fraction of flows")
        ax1.set_title("FCT CDF, congestion: %s" % cfg)
        ax1.legend()
        modes = [m for m in ("ecmp", "conweave") if (cfg, m) in results]
        s = [summary(results[(cfg, m)]) for m in modes]
        x = range(len(modes))
        ax2.bar([i - 0.2 for i in x], [v["fct_mean"] for v in s], 0.4, label="mean")
        ax2.bar([i + 0.2 for i in x], [v["fct_p99"] for v in s], 0.4, label="p99")
        ax2.set_xticks(list(x))
        ax2.set_xticklabels(["%s\n(reorder queues peak %.0f KB)" % (m, v["held_peak_kb"]) for m, v in zip(modes, s)])
        ax2.set_ylabel("FCT, us")
        ax2.legend()
        p = os.path.join(out_dir, "cwloop_fct_%s.png" % cfg.replace("/", "_"))
        save(fig, p)
        paths.append(p)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nettwin", required=True, help="nettwin or nettwin_cwloop binary")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--engine", default="lockstep")
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    results = {}
    for cfg, flags in CONFIGS.items():
        for mode in ("ecmp", "conweave"):
            for seed in range(1, a.seeds + 1):
                d = os.path.join(a.out_dir, "%s_%s_%d" % (cfg.replace("/", "_"), mode, seed))
                cmd = [a.nettwin, "cwloop", "--out-dir", d, "--seed", str(seed), "--engine", a.engine] + COMMON + \
                    flags + (["--ecmp"] if mode == "ecmp" else [])
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    print("cwloop_perf: FAIL: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
                    return 1
                results.setdefault((cfg, mode), []).append(measure(d))
    lines = [HEAD]
    for (cfg, mode), ms in results.items():
        lines.append(ROW.format(cfg=cfg, mode=mode, **summary(ms)))
    table = "\n".join(lines)
    with open(os.path.join(a.out_dir, "cwloop_perf.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    for p in plot(results, a.out_dir):
        print("plot: " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
