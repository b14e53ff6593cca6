"""nettwin regression: every block's vectors through RTL and model in lockstep, each output checked independently.

Prints one line per finished run ([k/N], block, scenario, seed, engine, stimulus mode, packets, cycles, result,
seconds) and, at a failure, its report and the one-line replay command; then a summary table per block.
Exit status: 0 every run passed, 1 a run failed, 2 usage error (bad option, nothing selected, no nettwin binary).
"""
import argparse
import os
import re
import sys
import time

from nettwin.common.paths import ROOT_DIR as ROOT
from nettwin.regress.executor import Log, Progress, execute_all
from nettwin.regress.registry import BLOCKS, block_module
from nettwin.regress.results import format_table, table_rows, totals, write_json, write_junit
from nettwin.regress.run import Options, quote


def parse_shard(text):
    m = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise argparse.ArgumentTypeError("--shard takes K/N with 1 <= K <= N, got '%s'" % text)
    return int(m.group(1)), int(m.group(2))


def positive(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError("expected a positive integer, got '%s'" % text)
    return v


def shard(runs, k, n):
    """Run i (in list order) goes to shard (i mod n) + 1: the n shards are disjoint, together the whole list,
    each a mix of every block (so similar in cost), and the same on every machine given the same options."""
    return [r for i, r in enumerate(runs) if i % n == k - 1]


def parser():
    ap = argparse.ArgumentParser(prog="regress.py", description=__doc__.splitlines()[0],
                                 epilog="Exit status: 0 all passed, 1 a run failed, 2 usage error.")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (default: %(default)s)")
    ap.add_argument("--work", default=None, help="output directory (default: BUILD/regress)")
    ap.add_argument("--nettwin", default=None, help="the nettwin binary (default: BUILD/nettwin)")
    ap.add_argument("-j", "--jobs", type=positive, default=os.cpu_count() or 1,
                    help="runs in parallel (default: all cores, %(default)s)")
    ap.add_argument("--only", action="append", choices=list(BLOCKS), metavar="BLOCK",
                    help="run only this block (repeatable; %s)" % "|".join(BLOCKS))
    ap.add_argument("--blocks", default=None, help=argparse.SUPPRESS)  # old spelling: comma-separated --only
    ap.add_argument("--no-rdma", action="store_true", help=argparse.SUPPRESS)  # old spelling
    ap.add_argument("--match", action="append", metavar="TEXT",
                    help="run only runs whose name contains TEXT (repeatable: any of them)")
    ap.add_argument("--seeds", type=positive, default=None, metavar="N",
                    help="seeds per scenario (default per block: lb 10, ejfat 8, rdma 3, reorder 10, reroute 5, vnic 10, naa 8, feedback 2; --quick: lb 2, rdma 1, reorder 1, reroute 1, vnic 1, naa 1, ejfat and feedback none: ctests lb_plan, ejfat_loop and lb_feedback run them)")
    ap.add_argument("--first-seed", type=positive, default=1, metavar="S", help="seeds S..S+N-1 (default 1)")
    ap.add_argument("--packets", type=positive, default=None, help="packets per random LB vector (default 600)")
    ap.add_argument("--quick", action="store_true", help="the small run ctest does (lb_vectors)")
    ap.add_argument("--shard", type=parse_shard, default=None, metavar="K/N",
                    help="run only the K-th of N deterministic parts of the selected list")
    ap.add_argument("--list", action="store_true", help="print the selected runs and their commands, and exit")
    ap.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per run)")
    ap.add_argument("--json", metavar="FILE", help="write every run's stats as JSON")
    ap.add_argument("--report", metavar="DIR", help="write DIR/index.html with tables and plots")
    return ap


def select(args, ap):
    blocks = list(args.only or [])
    if args.blocks is not None:
        bad = [b for b in args.blocks.split(",") if b not in BLOCKS]
        if bad or not args.blocks:
            ap.error("--blocks takes a comma-separated subset of %s, got '%s'" % (",".join(BLOCKS), args.blocks))
        blocks += args.blocks.split(",")
    blocks = [b for b in BLOCKS if b in blocks] if blocks else list(BLOCKS)
    if args.no_rdma and "rdma" in blocks:
        blocks.remove("rdma")
    opts = Options(ROOT, args.work, args.nettwin, quick=args.quick, seeds=args.seeds, first_seed=args.first_seed,
                   packets=args.packets)
    runs = [r for b in blocks for r in block_module(b).runs(opts)]
    if args.match:
        runs = [r for r in runs if any(m in r.name for m in args.match)]
    if args.shard:
        runs = shard(runs, *args.shard)
    names = [r.name for r in runs]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, "run names must be unique: %s" % sorted(dup)
    return blocks, runs


def main(argv=None):
    ap = parser()
    args = ap.parse_args(argv)
    args.build = os.path.abspath(args.build)
    args.work = os.path.abspath(args.work or os.path.join(args.build, "regress"))
    # absolute, so replay commands work from anywhere
    args.nettwin = os.path.abspath(args.nettwin or os.path.join(args.build, "nettwin"))
    blocks, runs = select(args, ap)
    if not runs:
        ap.error("no runs selected")
    blocks = [b for b in blocks if any(r.block == b for r in runs)]
    if args.list:
        for r in runs:
            print("%-40s %s" % (r.name, quote(r.command)))
        print("%d runs" % len(runs))
        return 0
    if not os.access(args.nettwin, os.X_OK):
        ap.error("no nettwin binary at %s (build first: make build, or pass --build / --nettwin)" % args.nettwin)
    os.makedirs(args.work, exist_ok=True)
    log_path = os.path.join(args.work, "regress.log")
    jobs = min(args.jobs, len(runs))
    print("nettwin regression: %d runs (%s), %d in parallel%s; log: %s" % (
        len(runs), ", ".join(blocks), jobs, ", shard %d/%d" % args.shard if args.shard else "", log_path))
    sys.stdout.flush()
    t0 = time.time()
    log = Log(log_path)
    try:
        results = execute_all(runs, jobs, log, Progress(len(runs)), want_data=bool(args.report))
    except KeyboardInterrupt:
        print("\ninterrupted; log: %s" % log_path)
        return 130
    finally:
        log.close()
    wall = time.time() - t0
    for b in blocks:
        rs = [r for r in results if r.run.block == b]
        if rs:
            mod = block_module(b)
            print(format_table(mod.TITLE, mod.HEADER, table_rows(rs)))
            if hasattr(mod, "summary"):
                print(mod.summary(rs))
    t = totals(results)
    meta = {"wall_seconds": round(wall, 1), "jobs": jobs, "shard": "%d/%d" % args.shard if args.shard else "1/1"}
    if args.junit:
        write_junit(args.junit, results, blocks)
    if args.json:
        write_json(args.json, results, meta)
    if args.report:
        from nettwin.regress.report import write_report
        print("\nreport: %s" % write_report(args.report, results, blocks, meta))
    print("\n%d runs, %d packets, %d passed, %d failed; %.1f s wall with -j %d; log: %s" % (
        t["runs"], t["packets"], t["passed"], t["failed"], wall, jobs, log_path))
    for res in results:
        if not res.ok:
            print("FAILED %s (%s): replay: %s" % (res.run.name, res.stage, res.replay))
    return 1 if t["failed"] else 0
