#!/usr/bin/python3
"""Simulation speed of every block and engine, in one run: cycles per second of `nettwin <block>` with
--engine model, rtl and lockstep on vectors made by the project's own generators.

  /usr/bin/python3 bench/lockstep_bench.py [--build build] [--repeat 3] [--lb-packets 4000] [--only lb]

Prints a Markdown table for docs/PERF.md. Each run is timed as a whole process (wall) and by its CPU time
(user + system of the child, less sensitive to other load on a shared machine); the best of --repeat runs is
shown. Cycles come from the run's --stats JSON. Every run must succeed (lockstep: no mismatch, conservation).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.abspath(os.path.join(HERE, "..", "scripts"))  # the nettwin package's parent
PY = "/usr/bin/python3"


def gen(args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SCRIPTS] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    subprocess.run([PY] + args, check=True, stdout=subprocess.DEVNULL, cwd=cwd, env=env)  # python3 -m nettwin...


def run(cmd, stats):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"lockstep_bench: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(stats) as f:
        cycles = json.load(f)["cycles"]
    return wall, cpu, cycles


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lb-packets", type=int, default=4000)
    ap.add_argument("--only", action="append", choices=["lb", "rdma", "reorder"],
                    help="measure only this block (repeatable; default every block)")
    a = ap.parse_args()
    nettwin = os.path.join(a.build, "nettwin")
    with tempfile.TemporaryDirectory() as d:
        gen(["-m", "nettwin.lb.gen", "--seed", "3", "--packets", str(a.lb_packets),
             "--out-dir", os.path.join(d, "lb")], d)
        gen(["-m", "nettwin.rdma.gen", "--seed", "1", "--scenario", "mixed",
             "--out-dir", os.path.join(d, "rdma")], d)
        gen(["-m", "nettwin.reorder.gen", "--seed", "1", "--scenario", "mixed",
             "--out-dir", os.path.join(d, "reorder")], d)
        blocks = [
            ("lb", f"nettwin.lb.gen --seed 3 --packets {a.lb_packets} (mixed sizes, drops, reconfiguration)",
             lambda e, st: [nettwin, "lb", "--tables", os.path.join(d, "lb", "runsim.txt"),
                            "--in", os.path.join(d, "lb", "packets_in.pcap"), "--out", os.path.join(d, "o.pcap"),
                            "--engine", e, "--stats", st]),
            ("rdma", "nettwin.rdma.gen --seed 1 --scenario mixed, --mem-read-cycles 50",
             lambda e, st: [nettwin, "rdma", "--config", os.path.join(d, "rdma", "responder.txt"),
                            "--in", os.path.join(d, "rdma", "requests.pcap"), "--out", os.path.join(d, "o.pcap"),
                            "--mem-read-cycles", "50", "--engine", e, "--stats", st]),
            ("reorder", "nettwin.reorder.gen --seed 1 --scenario mixed, timed",
             lambda e, st: [nettwin, "reorder", "--config", os.path.join(d, "reorder", "reorder.txt"),
                            "--in", os.path.join(d, "reorder", "arrivals.pcap"), "--out", os.path.join(d, "o.pcap"),
                            "--ctrl-out", os.path.join(d, "c.pcap"), "--engine", e, "--stats", st]),
        ]
        print("| block | vector | cycles | model Mcycles/s wall (cpu) | rtl Mcycles/s wall (cpu) "
              "| lockstep Mcycles/s wall (cpu) |")
        print("|---|---|---|---|---|---|")
        for name, what, cmd in blocks:
            if a.only and name not in a.only:
                continue
            cells = []
            cycles = 0
            for e in ("model", "rtl", "lockstep"):
                st = os.path.join(d, "stats.json")
                best = None
                for _ in range(a.repeat):
                    wall, cpu, cycles = run(cmd(e, st), st)
                    if best is None or wall < best[0]:
                        best = (wall, min(cpu, best[1]) if best else cpu)
                    else:
                        best = (best[0], min(cpu, best[1]))
                cells.append(f"{cycles / best[0] / 1e6:.2f} ({cycles / best[1] / 1e6:.2f})")
            print(f"| {name} | {what} | {cycles} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
