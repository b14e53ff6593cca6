#!/usr/bin/python3
"""Random-configuration soak in lockstep: per block, seeded random configurations and traffic through
`nettwin <block> --engine lockstep` (RTL and model compared every cycle), each run checked by the block's
independent Python checker, until every block has seen SOAK_PACKETS packets.

  /usr/bin/python3 scripts/soak.py [--packets N] [--blocks lb,rdma,reorder] [--seed S] [--build DIR]
                                   [--work DIR]
  make soak SOAK_PACKETS=N

Per run (seed = S, S+1, ...; everything below is drawn from random.Random(seed)):
  lb       lb_gen.py --seed --packets 120..3000: random tables (filter, epochs, calendars, members) with
           two mid-run table changes (run_traffic segments); input gaps 0..0.6, output backpressure 0..0.8;
           checked by lb_check.py (independent reference + tshark checksums)
  rdma     rdma_gen.py --seed, scenario drawn from all but edge (its QPs, MRs, MTUs 256..4096, PSN starts
           incl. near the 2^24 wrap are the generator's per seed); host read latency 1..1200 cycles, write
           latency 1..300, 1..16 outstanding reads, output backpressure 0..0.7; checked by rdma_check.py
  reorder  cw_gen.py --seed, scenario drawn from all six; queues 4/8/16/32, margin_us 0..64,
           default_hold_us 20..400, timed arrivals, backpressure 0..0.5 on both outputs; cw_check.py
A failing run prints its one-line replay (generator, nettwin, checker) and the soak goes on; the summary
gives packets, runs, divergences and checker failures per block. Exit status 1 if any run failed.
"""
import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
RDMA_SCENARIOS = ["mixed", "traffic", "atomic", "lostack", "reorder", "badreq", "psnwrap", "icrc", "malformed",
                  "send"]
CW_SCENARIOS = ["mixed", "tailloss", "epochwrap", "tswrap", "ecn", "exhaust"]


def lb_run(rng, seed, d, nettwin):
    gen = [PY, f"{HERE}/lb_gen.py", "--seed", str(seed), "--out-dir", d, "--packets", str(rng.randint(120, 3000))]
    out, stats = f"{d}/out.pcap", f"{d}/stats.json"
    run = [nettwin, "lb", "--tables", f"{d}/runsim.txt", "--in", f"{d}/packets_in.pcap", "--out", out,
           "--stats", stats, "--engine", "lockstep", "--seed", str(seed),
           "--gaps", "%.2f" % rng.uniform(0, 0.6), "--backpressure", "%.2f" % rng.uniform(0, 0.8)]
    chk = [PY, f"{HERE}/lb_check.py", "--tables", f"{d}/runsim.txt", "--in", f"{d}/packets_in.pcap", "--out", out,
           "--stats", stats, "--tshark"]
    return [gen], run, chk, stats


def rdma_run(rng, seed, d, nettwin):
    gen = [PY, f"{HERE}/rdma_gen.py", "--seed", str(seed), "--scenario", rng.choice(RDMA_SCENARIOS), "--out-dir", d,
           "--no-check"]
    out, mem, stats = f"{d}/rsp.pcap", f"{d}/mem.json", f"{d}/stats.json"
    run = [nettwin, "rdma", "--config", f"{d}/responder.txt", "--in", f"{d}/requests.pcap", "--out", out,
           "--mem-out", mem, "--stats", stats, "--engine", "lockstep", "--seed", str(seed),
           "--mem-read-cycles", str(rng.randint(1, 1200)), "--mem-write-cycles", str(rng.randint(1, 300)),
           "--mem-outstanding", str(rng.randint(1, 16)), "--backpressure", "%.2f" % rng.uniform(0, 0.7)]
    chk = [PY, f"{HERE}/rdma_check.py", "--config", f"{d}/responder.txt", "--in", f"{d}/requests.pcap",
           "--out", out, "--mem-out", mem, "--stats", stats]
    return [gen], run, chk, stats


def reorder_run(rng, seed, d, nettwin):
    gen = [PY, f"{HERE}/cw_gen.py", "--seed", str(seed), "--scenario", rng.choice(CW_SCENARIOS), "--out-dir", d]
    values = {"queues": rng.choice([4, 8, 16, 32]), "margin_us": rng.randint(0, 64),
              "default_hold_us": rng.randint(20, 400)}
    # Rewrite D/reorder.txt with the drawn values (the checker reads the same file).
    sub = " ".join(f"-e 's/^{k} .*/{k} {v}/'" for k, v in values.items())
    conf = ["sed", "-i"] + shlex.split(sub) + [f"{d}/reorder.txt"]
    dl, ctrl, stats = f"{d}/dl.pcap", f"{d}/ctrl.pcap", f"{d}/stats.json"
    bp = "%.2f" % rng.uniform(0, 0.5)
    run = [nettwin, "reorder", "--config", f"{d}/reorder.txt", "--in", f"{d}/arrivals.pcap", "--out", dl,
           "--ctrl-out", ctrl, "--stats", stats, "--engine", "lockstep", "--seed", str(seed),
           "--backpressure", bp, "--ctrl-backpressure", bp]
    chk = [PY, f"{HERE}/cw_check.py", "--dir", d, "--delivered", dl, "--ctrl", ctrl, "--stats", stats]
    return [gen, conf], run, chk, stats


BLOCKS = {"lb": lb_run, "rdma": rdma_run, "reorder": reorder_run}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packets", type=int, default=20000, help="packets per block (default 20000)")
    ap.add_argument("--blocks", default="lb,rdma,reorder")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--work", default="/tmp/nettwin-soak")
    a = ap.parse_args()
    nettwin = os.path.abspath(os.path.join(a.build, "nettwin"))
    blocks = [b for b in a.blocks.split(",") if b]
    for b in blocks:
        if b not in BLOCKS:
            sys.exit(f"soak: unknown block '{b}' (lb, rdma, reorder)")
    summary = {}
    t0 = time.time()
    for b in blocks:
        pkts = runs = div = chkfail = other = 0
        seed = a.seed
        while pkts < a.packets:
            d = os.path.join(a.work, f"{b}_{seed}")
            subprocess.run(["rm", "-rf", d])
            os.makedirs(d)
            rng = random.Random(f"{b}:{seed}")
            pre, run, chk, stats = BLOCKS[b](rng, seed, d, nettwin)
            replay = " && ".join(shlex.join(c) for c in pre + [run, chk])
            status = "ok"
            for c in pre:
                if subprocess.run(c, capture_output=True).returncode != 0:
                    status = "generator failed"
            st = {}
            if status == "ok":
                r = subprocess.run(run, capture_output=True, text=True)
                try:
                    st = json.load(open(stats))
                except (OSError, ValueError):
                    pass
                if st.get("mismatches", 0) != 0 or "diverge" in r.stdout + r.stderr:
                    status, div = "DIVERGENCE", div + 1
                elif r.returncode != 0 or st.get("conservation_ok") is not True:
                    status, other = f"nettwin exit {r.returncode}", other + 1
                elif subprocess.run(chk, capture_output=True).returncode != 0:
                    status, chkfail = "CHECKER FAILED", chkfail + 1
            else:
                other += 1
            runs += 1
            pkts += int(st.get("packets_in", 0))
            print(f"soak {b} seed {seed}: {st.get('packets_in', 0)} packets, {status}; {b} total {pkts}/{a.packets}"
                  f" ({time.time() - t0:.0f} s)", flush=True)
            if status != "ok":
                print(f"  replay: {replay}", flush=True)
            else:
                subprocess.run(["rm", "-rf", d])
            seed += 1
        summary[b] = (pkts, runs, a.seed, seed - 1, div, chkfail, other)
    print(f"\n{'block':8} {'packets':>10} {'runs':>6} {'seeds':>12} {'divergences':>12} {'checker fails':>14} {'other':>6}")
    for b, (p, r, s0, s1, dv, cf, ot) in summary.items():
        print(f"{b:8} {p:>10} {r:>6} {f'{s0}..{s1}':>12} {dv:>12} {cf:>14} {ot:>6}")
    print(f"soak: {time.time() - t0:.0f} s")
    return 1 if any(v[4] or v[5] or v[6] for v in summary.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
