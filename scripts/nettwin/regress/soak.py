"""Random-configuration soak in lockstep (`make soak SOAK_PACKETS=N`; `python3 -m nettwin.regress.soak`, installed: nettwin-regress-soak).

Per block and seed (S, S+1, ...), everything drawn from random.Random("<block>:<seed>"): the block's
generator writes a random configuration and traffic once, then --timings K lockstep runs of
`nettwin <block> --engine lockstep` (RTL and model compared every cycle) replay that vector under K
different drawn stimuli (input gaps, output backpressure, host-memory latencies, reorder parameters), and
EVERY run is checked by the block's independent checker. Generating the traffic (Scapy) costs several
times more than a lockstep run plus its check, so K runs per vector make each packet cheaper without
dropping any check (`--timings 1` is one run per vector).

  lb       nettwin.lb.gen --packets 500..3000: random tables (filter, epochs, calendars, members) with two mid-run
           table changes; gaps 0..0.6, backpressure 0..0.8; nettwin.lb.check (independent reference + tshark)
  rdma     nettwin.rdma.gen, scenario drawn from all but edge (QPs, MRs, MTUs 256..4096, PSN starts near the 2^24
           wrap per seed); read latency 1..1200 cycles, write latency 1..300, 1..16 outstanding reads,
           backpressure 0..0.7; nettwin.rdma.check
  reorder  nettwin.reorder.gen, scenario drawn from all six; per run queues 4/8/16/32, margin_us 0..64,
           default_hold_us 20..400 written into reorder.txt, backpressure 0..0.5 on both outputs (given to
           the checker too); nettwin.reorder.check
  vnic     nettwin.vnic.gen --frames 100..600: a random valid configuration (4..6 ports, pkeys, LIDs, MAC tables);
           per run encapsulation (vnic_check encap), the output decapsulated again (vnic_check roundtrip)
           and the corrupted 16B packets decapsulated (vnic_check decap), gaps 0..0.6, backpressure 0..0.8
  re       nettwin.re.gen --events 20..150 (split, shuffled, duplicated, overlapping, lost, malformed segments); per
           run contexts 1..64, buffer_bytes 1000..16384, timeout_us 5..2000 written into re.txt (which
           re_check reads too), gaps 0..0.6, backpressure 0..0.8; nettwin.re.check
A failing run prints its one-line replay and the soak goes on. The summary gives, per block, packets,
runs, seeds, divergences, checker failures and the CPU seconds spent generating, in lockstep and checking.
Exit status 1 if any run failed.

On a Slurm farm (`--slurm N`, nettwin/regress/farm.py): task K of N soaks seeds S+K-1, S+K-1+N, S+K-1+2N, ...
(`--seed S+K-1 --seed-stride N`) up to ceil(PACKETS/N) packets per block, so no two tasks ever draw the same
seed, and writes its tallies and seeds with --json; the merge job (`--merge FILE|DIR...`) adds them up, refuses
tasks of different settings or commits and any seed soaked twice, names missing tasks, and prints the same
summary for the whole soak.
"""
import argparse
import glob
import json
import os
import random
import shlex
import shutil
import socket
import subprocess
import sys
import time

from nettwin.common import paths
from nettwin.regress import farm
from nettwin.regress.run import PY

FORMAT = "nettwin-soak-task/1"

STAGES = ("gen", "lockstep", "check")
PREFORK = True
RDMA_SCENARIOS = ["mixed", "traffic", "atomic", "lostack", "reorder", "badreq", "psnwrap", "icrc", "malformed",
                  "send"]
DEFAULT_WORK = "/tmp/nettwin-soak"
CW_SCENARIOS = ["mixed", "tailloss", "epochwrap", "tswrap", "ecn", "exhaust"]


def _pct(rng, hi):
    return "%.2f" % rng.uniform(0, hi)


class Step:
    """Commands that set the run up (`pre`, part of its replay), one lockstep command (its stats JSON counts
    the packets) and the checks of its output."""

    def __init__(self, run, stats, checks, pre=()):
        self.run, self.stats, self.checks, self.pre = run, stats, checks, list(pre)


def lb_block(rng, seed, d, nt):
    gen = [[PY, "-m", "nettwin.lb.gen", "--seed", str(seed), "--out-dir", d, "--packets", str(rng.randint(500, 3000))]]

    def runs(k, rng):
        out, st = f"{d}/out{k}.pcap", f"{d}/stats{k}.json"
        tables, inp = f"{d}/runsim.txt", f"{d}/packets_in.pcap"
        run = [nt, "lb", "--tables", tables, "--in", inp, "--out", out, "--stats", st, "--engine", "lockstep",
               "--seed", str(seed * 100 + k), "--gaps", _pct(rng, 0.6), "--backpressure", _pct(rng, 0.8)]
        chk = [PY, "-m", "nettwin.lb.check", "--tables", tables, "--in", inp, "--out", out, "--stats", st, "--tshark"]
        return [Step(run, st, [chk])]
    return gen, runs


def rdma_block(rng, seed, d, nt):
    gen = [[PY, "-m", "nettwin.rdma.gen", "--seed", str(seed), "--scenario", rng.choice(RDMA_SCENARIOS), "--out-dir", d,
            "--no-check"]]

    def runs(k, rng):
        out, mem, st = f"{d}/rsp{k}.pcap", f"{d}/mem{k}.json", f"{d}/stats{k}.json"
        conf, inp = f"{d}/responder.txt", f"{d}/requests.pcap"
        run = [nt, "rdma", "--config", conf, "--in", inp, "--out", out, "--mem-out", mem, "--stats", st,
               "--engine", "lockstep", "--seed", str(seed * 100 + k),
               "--mem-read-cycles", str(rng.randint(1, 1200)), "--mem-write-cycles", str(rng.randint(1, 300)),
               "--mem-outstanding", str(rng.randint(1, 16)), "--backpressure", _pct(rng, 0.7),
               "--mem-model", "slots"]  # the model these random limits were drawn for (writes hold slots)
        chk = [PY, "-m", "nettwin.rdma.check", "--config", conf, "--in", inp, "--out", out, "--mem-out", mem,
               "--stats", st]
        return [Step(run, st, [chk])]
    return gen, runs


def reorder_block(rng, seed, d, nt):
    gen = [[PY, "-m", "nettwin.reorder.gen", "--seed", str(seed), "--scenario", rng.choice(CW_SCENARIOS), "--out-dir", d]]

    def runs(k, rng):
        values = {"queues": rng.choice([4, 8, 16, 32]), "margin_us": rng.randint(0, 64),
                  "default_hold_us": rng.randint(20, 400)}
        conf = f"{d}/reorder.txt"
        # The drawn values into D/reorder.txt, which the checker reads too.
        sed = ["sed", "-i"] + [a for k, v in values.items() for a in ("-e", f"s/^{k} .*/{k} {v}/")] + [conf]
        dl, ctrl, st = f"{d}/dl{k}.pcap", f"{d}/ctrl{k}.pcap", f"{d}/stats{k}.json"
        bp = _pct(rng, 0.5)
        run = [nt, "reorder", "--config", conf, "--in", f"{d}/arrivals.pcap", "--out", dl, "--ctrl-out", ctrl,
               "--stats", st, "--engine", "lockstep", "--seed", str(seed * 100 + k),
               "--backpressure", bp, "--ctrl-backpressure", bp]
        chk = [PY, "-m", "nettwin.reorder.check", "--dir", d, "--delivered", dl, "--ctrl", ctrl, "--stats", st,
               "--backpressure", bp, "--ctrl-backpressure", bp]
        return [Step(run, st, [chk], [sed])]
    return gen, runs


def vnic_block(rng, seed, d, nt):
    gen = [[PY, "-m", "nettwin.vnic.gen", "--seed", str(seed), "--out-dir", d, "--frames", str(rng.randint(100, 600))]]
    conf, eth, ports, opa = (f"{d}/{f}" for f in ("vnic.txt", "eth.pcap", "eth.ports", "opa.pcap"))
    chk = [PY, "-m", "nettwin.vnic.check"]

    def runs(k, rng):
        def timing():
            return ["--engine", "lockstep", "--seed", str(rng.randint(1, 1 << 30)), "--gaps", _pct(rng, 0.6),
                    "--backpressure", _pct(rng, 0.8)]
        enc, enc_st = f"{d}/enc{k}.pcap", f"{d}/enc{k}.json"
        rt, rt_ports, rt_st = f"{d}/rt{k}.pcap", f"{d}/rt{k}.ports", f"{d}/rt{k}.json"
        dec, dec_ports, dec_st = f"{d}/dec{k}.pcap", f"{d}/dec{k}.ports", f"{d}/dec{k}.json"
        vnic = [nt, "vnic", "--config", conf]
        return [
            Step(vnic + ["--direction", "encap", "--in", eth, "--ports", ports, "--out", enc, "--stats", enc_st]
                 + timing(), enc_st,
                 [chk + ["encap", "--config", conf, "--in", eth, "--ports", ports, "--out", enc, "--stats", enc_st]]),
            Step(vnic + ["--direction", "decap", "--in", enc, "--out", rt, "--ports-out", rt_ports, "--stats", rt_st]
                 + timing(), rt_st,
                 [chk + ["roundtrip", "--config", conf, "--in", eth, "--ports", ports, "--out", rt,
                         "--ports-out", rt_ports]]),
            Step(vnic + ["--direction", "decap", "--in", opa, "--out", dec, "--ports-out", dec_ports,
                         "--stats", dec_st] + timing(), dec_st,
                 [chk + ["decap", "--config", conf, "--in", opa, "--out", dec, "--ports-out", dec_ports,
                         "--stats", dec_st]]),
        ]
    return gen, runs


def re_block(rng, seed, d, nt):
    # odd seeds: E2SAR's 20-byte header (frames as its segmenter makes them, some behind a kept LB header)
    gen = [[PY, "-m", "nettwin.re.gen", "--seed", str(seed), "--out-dir", d, "--events", str(rng.randint(20, 150)),
            "--header", "e2sar" if seed % 2 else "evio6"]]

    def runs(k, rng):
        # Drawn per run into D/re.txt, which re_check reads too: the RTL's limits are 64 contexts and 16 KiB.
        values = {"contexts": rng.choice([1, 2, 4, 8, 16, 33, 64]),
                  "buffer_bytes": rng.choice([1000, 2500, 9000, 9001, 16384]),
                  "timeout_us": rng.randint(5, 2000)}
        conf = f"{d}/re.txt"
        sed = ["sed", "-i"] + [a for k, v in values.items() for a in ("-e", f"s/^{k} .*/{k} {v}/")] + [conf]
        ev, rep = f"{d}/events{k}.pcap", f"{d}/report{k}.json"
        run = [nt, "re", "--engine", "lockstep", "--config", conf, "--in", f"{d}/segments.pcap", "--out", ev,
               "--report", rep, "--seed", str(seed * 100 + k), "--gaps", _pct(rng, 0.6),
               "--backpressure", _pct(rng, 0.8)]
        chk = [PY, "-m", "nettwin.re.check", "--dir", d, "--events", ev, "--report", rep]
        return [Step(run, rep, [chk], [sed])]
    return gen, runs


BLOCKS = {"lb": lb_block, "rdma": rdma_block, "reorder": reorder_block, "vnic": vnic_block, "re": re_block}


def _preforkable(cmd):
    return PREFORK and len(cmd) >= 3 and cmd[0] == PY and cmd[1] == "-m"


def _run_forked(cmd, fd):
    """The child of a fork of this process, which has Scapy and the nettwin modules imported already: runs
    the tool module `cmd` ([PY, "-m", module, args...]) as `python3 -m module args...` would, with stdout and
    stderr on fd. Saves the interpreter start and the Scapy import (about 1.8 s of CPU per check, more than
    most checks cost)."""
    import importlib
    code = 1
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        sys.argv = [cmd[2]] + list(cmd[3:])
        raise SystemExit(importlib.import_module(cmd[2]).main())  # what `python3 -m` runs: sys.exit(main())
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:  # noqa: B036 -- a crash of the check is its failure, reported in the log
        import traceback
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code & 0xFF)


def execute(cmd, log):
    """Runs cmd with its output appended to `log`; returns (exit status, CPU seconds of the child, its output).
    A Python entry point runs in a fork of this process (same interpreter, Scapy already imported; the
    child's CPU is still measured with wait4), anything else as a subprocess."""
    with open(log, "ab") as f:
        f.write(("$ " + shlex.join(cmd) + "\n").encode())
        f.flush()
        start = f.tell()
        if _preforkable(cmd):
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _run_forked(cmd, f.fileno())
        else:
            child = subprocess.Popen(cmd, stdout=f, stderr=f)  # kept: a dropped Popen may reap the child itself
            pid = child.pid
        _, status, ru = os.wait4(pid, 0)  # wait4: the child's own CPU time
    returncode = os.waitstatus_to_exitcode(status)
    if not _preforkable(cmd):
        child.returncode = returncode  # reaped here; tells Popen not to wait for it again
    with open(log, "rb") as f:
        f.seek(start)
        text = f.read().decode(errors="replace")
    return returncode, ru.ru_utime + ru.ru_stime, text


def _preimport():
    """Imports what every generator and checker imports, once, so forked children start warm."""
    import importlib
    import scapy.all  # noqa: F401
    for m in ("nettwin.layers", "nettwin.lb.check", "nettwin.rdma.check", "nettwin.reorder.check",
              "nettwin.vnic.check", "nettwin.re.check", "nettwin.lb.gen", "nettwin.rdma.gen", "nettwin.reorder.gen",
              "nettwin.vnic.gen", "nettwin.re.gen"):
        try:
            importlib.import_module(m)
        except ImportError:
            pass  # a module that moved is imported by its child instead; only slower


class Tally:
    COUNTS = ("packets", "runs", "vectors", "div", "chk", "other")

    def __init__(self):
        self.packets = self.runs = self.vectors = self.div = self.chk = self.other = 0
        self.cpu = dict.fromkeys(STAGES, 0.0)
        self.seeds, self.failures = [], []

    def failed(self):
        return self.div + self.chk + self.other

    def record(self):
        return dict({k: getattr(self, k) for k in self.COUNTS}, cpu={k: round(v, 1) for k, v in self.cpu.items()},
                    seeds=self.seeds, failures=self.failures)

    def add(self, rec):
        for k in self.COUNTS:
            setattr(self, k, getattr(self, k) + rec[k])
        for k in STAGES:
            self.cpu[k] += rec["cpu"][k]
        self.seeds += rec["seeds"]
        self.failures += rec["failures"]


def seed_text(seeds):
    if not seeds:
        return "-"
    s = sorted(seeds)
    if s == list(range(s[0], s[-1] + 1)):
        return "%d..%d" % (s[0], s[-1])
    return "%d in %d..%d" % (len(s), s[0], s[-1])


def print_summary(summary):
    """summary: {block: Tally}"""
    print(f"\n{'block':8} {'packets':>10} {'vectors':>8} {'runs':>6} {'seeds':>16} {'divergences':>12} "
          f"{'checker fails':>14} {'other':>6}   cpu s: {' / '.join(STAGES)}")
    for b, t in summary.items():
        cpu = " / ".join("%.0f" % t.cpu[s] for s in STAGES)
        print(f"{b:8} {t.packets:>10} {t.vectors:>8} {t.runs:>6} {seed_text(t.seeds):>16} {t.div:>12} {t.chk:>14} "
              f"{t.other:>6}   {cpu}")


def soak_vector(block, seed, a, nt, t):
    """One generated vector and its K checked lockstep runs; adds to the tally t."""
    d = os.path.join(a.work, f"{block}_{seed}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    log = os.path.join(d, "log.txt")
    rng = random.Random(f"{block}:{seed}")
    gen, runs = BLOCKS[block](rng, seed, d, nt)
    t.vectors += 1
    for c in gen:
        rc, cpu, _ = execute(c, log)
        t.cpu["gen"] += cpu
        if rc != 0:
            t.other += 1
            return [f"generator failed: {shlex.join(c)}"], 0
    failures, pkts = [], 0
    for k in range(a.timings):
        for s in runs(k, rng):
            t.runs += 1
            for c in s.pre:
                if execute(c, log)[0] != 0:
                    raise RuntimeError(f"soak: {shlex.join(c)} failed")
            rc, cpu, text = execute(s.run, log)
            t.cpu["lockstep"] += cpu
            try:
                st = json.load(open(s.stats))
            except (OSError, ValueError):
                st = {}
            pkts += int(st.get("packets_in", st.get("segments_in", 0)))
            status = None
            if st.get("mismatches", 0) != 0 or "diverge" in text.lower():
                t.div, status = t.div + 1, "DIVERGENCE"
            elif rc != 0 or st.get("conservation_ok") is not True:
                t.other, status = t.other + 1, f"nettwin exit {rc}"
            else:
                for c in s.checks:
                    crc, cpu, _ = execute(c, log)
                    t.cpu["check"] += cpu
                    if crc != 0:
                        t.chk, status = t.chk + 1, "CHECKER FAILED"
                        break
            if status:
                failures.append(f"{status}; replay: " + " && ".join(shlex.join(c) for c in gen + s.pre + [s.run]
                                                                      + s.checks))
    t.packets += pkts
    if not failures and not a.keep:
        shutil.rmtree(d, ignore_errors=True)
    return failures, pkts


def main(argv=None):
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packets", type=int, default=20000, help="packets per block (default 20000)")
    ap.add_argument("--blocks", default="lb,rdma,reorder,vnic,re")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--timings", type=int, default=4, help="checked lockstep runs per generated vector (default 4)")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(here), "build"))
    ap.add_argument("--work", default=DEFAULT_WORK, help="work directory (default %(default)s; with --slurm: "
                    "BUILD/soak-slurm, which the nodes must see)")
    ap.add_argument("--keep", action="store_true", help="keep the work directories of passing vectors")
    ap.add_argument("--no-prefork", action="store_true",
                    help="start every generator and checker as its own python3 process (slower; same checks)")
    ap.add_argument("--seed-stride", type=int, default=1, metavar="K",
                    help="soak seeds S, S+K, S+2K, ... (a farm task's share; default 1)")
    ap.add_argument("--json", metavar="FILE", help="write the tallies, seeds and failures as JSON")
    ap.add_argument("--merge", nargs="+", metavar="TASK.json",
                    help="add up the --json files (or directories of them) of a farm's tasks; runs nothing")
    ap.add_argument("--partial", action="store_true", help="with --merge: merge even with tasks missing (exit 1)")
    farm.add_arguments(ap, "the soak")
    a = ap.parse_args(argv)
    if a.merge:
        return merge_main(a)
    if a.seed_stride < 1:
        print("soak: --seed-stride takes K >= 1", file=sys.stderr)
        return 2
    nt = os.path.abspath(os.path.join(a.build, "nettwin"))
    blocks = [b for b in a.blocks.split(",") if b]
    for b in blocks:
        if b not in BLOCKS:
            print(f"soak: unknown block '{b}' ({', '.join(BLOCKS)})", file=sys.stderr)
            return 2
    if a.timings < 1 or not os.access(nt, os.X_OK):
        print(f"soak: need --timings >= 1 and an executable {nt}", file=sys.stderr)
        return 2

    if a.slurm is not None:
        return submit_slurm(a, blocks, nt, here)
    global PREFORK
    PREFORK = not a.no_prefork
    if PREFORK:
        _preimport()

    paths.export_pythonpath()  # the checks run as python3 -m nettwin...
    from nettwin.regress.cli import source_commit
    commit = source_commit()  # the sources as the soak starts
    summary, t0 = {}, time.time()
    for b in blocks:
        t, seed = Tally(), a.seed
        while t.packets < a.packets:
            failures, pkts = soak_vector(b, seed, a, nt, t)
            t.seeds.append(seed)
            t.failures += failures
            print(f"soak {b} seed {seed}: {pkts} packets, {'ok' if not failures else 'FAILED'}; {b} total "
                  f"{t.packets}/{a.packets} ({time.time() - t0:.0f} s)", flush=True)
            for f in failures:
                print("  " + f, flush=True)
            seed += a.seed_stride
        summary[b] = t
    print_summary(summary)
    wall = time.time() - t0
    print(f"soak: {wall:.0f} s wall")
    if a.json:
        k, n = task_of(a)
        settings = {"blocks": blocks, "timings": a.timings, "packets": a.packets, "first_seed": a.seed - (k - 1),
                    "seed_stride": a.seed_stride}
        with open(a.json, "w") as f:
            json.dump({"format": FORMAT, "settings": settings, "commit": commit, "task": {"k": k, "n": n},
                       "host": socket.gethostname(), "wall_seconds": round(wall, 1),
                       "summary": {"failed": sum(t.failed() for t in summary.values())},
                       "blocks": {b: t.record() for b, t in summary.items()}}, f, indent=1)
            f.write("\n")
    return 1 if any(t.failed() for t in summary.values()) else 0


def task_of(a):
    """(k, n) of this soak in its farm: seeds S+K-1, S+K-1+N, ... are task K of N (a local soak is 1 of 1)."""
    n = a.seed_stride
    return (1, 1) if n == 1 else ((a.seed - 1) % n + 1, n)


def submit_slurm(a, blocks, nt, here):
    """--slurm N: task K soaks --seed S+K-1 --seed-stride N with ceil(PACKETS/N) packets per block; the merge job
    adds the tasks up."""
    n = a.slurm
    if n < 1 or a.seed_stride != 1 or a.json:
        print("soak: --slurm takes N >= 1, and not with --seed-stride or --json (the farm sets them)",
              file=sys.stderr)
        return 2
    if a.seed != 1:
        print("soak: with --slurm the seeds start at 1 (task K soaks K, K+N, ...): --seed is not taken",
              file=sys.stderr)
        return 2
    work = os.path.abspath(a.work if a.work != DEFAULT_WORK else os.path.join(os.path.dirname(nt), "soak-slurm"))
    per_task = -(-a.packets // n)
    soak = ["-m", "nettwin.regress.soak"]
    task = [PY, *soak, "--build", os.path.dirname(nt), "--blocks", ",".join(blocks), "--timings", str(a.timings),
            "--packets", str(per_task), "--seed", "$SLURM_ARRAY_TASK_ID", "--seed-stride", str(n),
            "--work", os.path.join(work, "task-$SLURM_ARRAY_TASK_ID"),
            "--json", os.path.join(work, farm.SHARDS, "shard-$SLURM_ARRAY_TASK_ID.json")] + (
                ["--keep"] if a.keep else []) + (["--no-prefork"] if a.no_prefork else [])
    merge = [PY, *soak, "--merge", os.path.join(work, farm.SHARDS), "--partial"]
    print(f"nettwin soak on Slurm: {', '.join(blocks)}, {a.packets} packets per block in {n} tasks of {per_task} "
          f"(task K soaks seeds K, K+{n}, K+{2 * n}, ...)")
    return farm.submit("nettwin-soak", work, n, 1, task, merge, a, count_re=r"^soak \S+ seed \d+: ",
                       count_what="vectors")


def merge_main(a):
    """--merge: the tasks' JSONs added up; refuses mixed settings or commits and a seed soaked twice."""
    files = []
    for p in a.merge:
        files += sorted(glob.glob(os.path.join(p, "*.json"))) if os.path.isdir(p) else [p]
    docs = []
    try:
        for f in files:
            try:
                with open(f) as fh:
                    d = json.load(fh)
            except (OSError, ValueError) as e:
                raise ValueError(f"{f}: cannot read a soak JSON: {e}")
            if not isinstance(d, dict) or d.get("format") != FORMAT:
                raise ValueError(f"{f}: not a soak task JSON (written by nettwin.regress.soak --json)")
            docs.append((f, d))
        if not docs:
            raise ValueError("no soak task JSON given")
        f0, d0 = docs[0]
        for f, d in docs[1:]:
            for key in ("settings", "commit"):
                if d[key] != d0[key]:
                    raise ValueError(f"refusing to merge soak tasks of different {key}: {f0} has {d0[key]}, "
                                     f"{f} has {d[key]}")
        n = d0["task"]["n"]
        by_k = {}
        for f, d in docs:
            k = d["task"]["k"]
            if k in by_k:
                raise ValueError(f"task {k}/{n} given twice: {by_k[k]} and {f}")
            by_k[k] = f
        owner = {}
        for f, d in docs:
            for b, rec in d["blocks"].items():
                for s in rec["seeds"]:
                    if (b, s) in owner:
                        raise ValueError(f"seed {s} of {b} soaked twice: {owner[(b, s)]} and {f}")
                    owner[(b, s)] = f
        missing = [k for k in range(1, n + 1) if k not in by_k]
        if missing and not a.partial:
            raise ValueError("missing task%s %s of %d: pass them too, or --partial" % (
                "s" if len(missing) > 1 else "", ", ".join(f"{k}/{n}" for k in missing), n))
    except ValueError as e:
        print(f"soak --merge: refused: {e}", file=sys.stderr)
        return 2
    summary = {b: Tally() for b in d0["settings"]["blocks"]}
    for _, d in sorted(docs, key=lambda x: x[1]["task"]["k"]):
        for b, rec in d["blocks"].items():
            summary[b].add(rec)
    print(f"nettwin soak, merged: {len(docs)} task{'s' if len(docs) > 1 else ''} of {n}, commit {d0['commit']}; "
          f"no seed soaked twice")
    for b, t in summary.items():
        for f in t.failures:
            print(f"  {b}: {f}")
    print_summary(summary)
    walls = [d["wall_seconds"] for _, d in docs]
    print(f"soak: {len(docs)} tasks, slowest {max(walls):.0f} s wall, {sum(walls):.0f} s wall summed")
    if missing:
        print("MISSING task%s %s of %d" % ("s" if len(missing) > 1 else "", ", ".join(f"{k}/{n}" for k in missing),
                                          n))
        return 1
    return 1 if any(t.failed() for t in summary.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
