"""nettwin regression: every block's vectors through RTL and model in lockstep, each output checked independently.

Prints one line per finished run ([k/N], block, scenario, seed, engine, stimulus mode, packets, cycles, result,
seconds) and, at a failure, its report and the one-line replay command; then a summary table per block.
Exit status: 0 every run passed, 1 a run failed, 2 usage error (bad option, nothing selected, no nettwin binary).

Past one machine: --shard K/N runs one part; --json records the selection, the commit and K/N, and --merge puts
any complete set of such shard JSONs back together (one JUnit XML, JSON and report, as a local run writes);
--slurm N submits the N shards as a Slurm job array plus a merge job (nettwin/regress/farm.py).
"""
import argparse
import hashlib
import os
import re
import socket
import subprocess
import sys
import time

from nettwin.common.paths import ROOT_DIR as ROOT
from nettwin.regress import farm
from nettwin.regress.executor import Log, Progress, execute_all
from nettwin.regress.registry import BLOCKS, block_module
from nettwin.regress.results import format_table, table_rows, totals, write_json, write_junit
from nettwin.regress.run import PY, Options, quote

FORMAT = "nettwin-regress-shard/1"  # the JSON's "format": what --merge accepts


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
    ap.add_argument("-j", "--jobs", type=positive, default=None,
                    help="runs in parallel (default: all cores, %d; with --slurm: 1, the CPUs of each task)"
                    % (os.cpu_count() or 1))
    ap.add_argument("--only", action="append", choices=list(BLOCKS), metavar="BLOCK",
                    help="run only this block (repeatable; %s)" % "|".join(BLOCKS))
    ap.add_argument("--blocks", default=None, help=argparse.SUPPRESS)  # old spelling: comma-separated --only
    ap.add_argument("--no-rdma", action="store_true", help=argparse.SUPPRESS)  # old spelling
    ap.add_argument("--match", action="append", metavar="TEXT",
                    help="run only runs whose name contains TEXT (repeatable: any of them)")
    ap.add_argument("--seeds", type=positive, default=None, metavar="N",
                    help="seeds per scenario (default per block: lb 10, ejfat 8, rdma 3, reorder 10, vnic 10, naa 8; --quick: lb 2, rdma 1, reorder 1, vnic 1, naa 1, ejfat none: ctests lb_plan and ejfat_loop run it)")
    ap.add_argument("--first-seed", type=positive, default=1, metavar="S", help="seeds S..S+N-1 (default 1)")
    ap.add_argument("--packets", type=positive, default=None, help="packets per random LB vector (default 600)")
    ap.add_argument("--quick", action="store_true", help="the small run ctest does (lb_vectors)")
    ap.add_argument("--shard", type=parse_shard, default=None, metavar="K/N",
                    help="run only the K-th of N deterministic parts of the selected list")
    ap.add_argument("--list", action="store_true", help="print the selected runs and their commands, and exit")
    ap.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per run)")
    ap.add_argument("--json", metavar="FILE", help="write every run's stats as JSON")
    ap.add_argument("--report", metavar="DIR", help="write DIR/index.html with tables and plots")
    ap.add_argument("--merge", nargs="+", metavar="SHARD.json",
                    help="merge shard JSONs (files, or directories of *.json) of one selection and commit into "
                         "one --junit/--json/--report; refuses mixed selections or commits and names missing "
                         "shards; runs nothing")
    ap.add_argument("--partial", action="store_true",
                    help="with --merge: merge even with shards missing (named in the outputs; exit status 1)")
    farm.add_arguments(ap, "the selected runs")
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
    args.selection = {"blocks": blocks, "match": sorted(set(args.match or [])), "seeds": args.seeds,
                      "first_seed": args.first_seed, "packets": args.packets, "quick": args.quick,
                      "runs": len(runs)}
    if args.shard:
        runs = shard(runs, *args.shard)
    names = [r.name for r in runs]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, "run names must be unique: %s" % sorted(dup)
    return blocks, runs


def selection_argv(sel):
    """The options that select `sel` (a recorded selection) again."""
    argv = [a for b in sel["blocks"] for a in ("--only", b)] + [a for m in sel["match"] for a in ("--match", m)]
    if sel["seeds"] is not None:
        argv += ["--seeds", str(sel["seeds"])]
    if sel["first_seed"] != 1:
        argv += ["--first-seed", str(sel["first_seed"])]
    if sel["packets"] is not None:
        argv += ["--packets", str(sel["packets"])]
    return argv + (["--quick"] if sel["quick"] else [])


def source_commit(root=ROOT):
    """HEAD of the checkout, plus '+dirty.<hash of the diff>' when tracked files differ from it: shards of
    different sources never merge, shards of the same uncommitted tree do."""
    def git(*a):
        return subprocess.run(["git", "-C", root] + list(a), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              check=True).stdout
    try:
        head = git("rev-parse", "HEAD").decode().strip()
        diff = git("diff", "--no-ext-diff", "--binary", "HEAD", "--")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + ("+dirty.%s" % hashlib.sha1(diff).hexdigest()[:12] if diff else "")


def report_results(results, blocks, meta, args, head, extra_lines=()):
    """Tables, --junit/--json/--report and the closing lines of a local run or a merge; the exit status."""
    for b in blocks:
        rs = [r for r in results if r.run.block == b]
        if rs:
            mod = block_module(b)
            print(format_table(mod.TITLE, mod.HEADER, table_rows(rs)))
            if hasattr(mod, "summary"):
                print(mod.summary(rs))
    t = totals(results)
    if args.junit:
        write_junit(args.junit, results, blocks)
    if args.json:
        write_json(args.json, results, meta, head)
    if args.report:
        from nettwin.regress.report import write_report
        print("\nreport: %s" % write_report(args.report, results, blocks, meta))
    print("\n%d runs, %d packets, %d passed, %d failed; %s" % (
        t["runs"], t["packets"], t["passed"], t["failed"], "; ".join(extra_lines)))
    for res in results:
        if not res.ok:
            print("FAILED %s (%s): replay: %s" % (res.run.name, res.stage, res.replay))
    return 1 if t["failed"] else 0


def submit_slurm(args, ap, runs):
    """--slurm N: the array's task K runs `regress.py <the selection> --shard K/N --json FARM/shards/shard-K.json`
    with its own work directory; the merge job runs --merge on FARM/shards."""
    n = args.slurm
    if n < 1 or args.shard or args.merge:
        ap.error("--slurm takes N >= 1, and not with --shard or --merge")
    if not os.access(args.nettwin, os.X_OK):
        ap.error("no nettwin binary at %s (build first, on storage the nodes see)" % args.nettwin)
    work = os.path.abspath(args.work_given or os.path.join(args.build, "regress-slurm"))
    regress = os.path.join(ROOT, "scripts", "regress.py")
    base = [PY, regress, "--build", args.build, "--nettwin", args.nettwin] + selection_argv(args.selection)
    task = base + ["--shard", "$SLURM_ARRAY_TASK_ID/%d" % n, "-j", str(args.jobs or 1),
                   "--work", os.path.join(work, "task-$SLURM_ARRAY_TASK_ID"),
                   "--json", os.path.join(work, farm.SHARDS, "shard-$SLURM_ARRAY_TASK_ID.json")]
    outs = {"junit": args.junit or os.path.join(work, "junit.xml"), "json": args.json or os.path.join(work,
            "regress.json"), "report": args.report or os.path.join(work, "report")}
    merge = [PY, regress, "--build", args.build, "--merge", os.path.join(work, farm.SHARDS), "--partial",
             "--junit", os.path.abspath(outs["junit"]), "--json", os.path.abspath(outs["json"]),
             "--report", os.path.abspath(outs["report"])]
    print("nettwin regression on Slurm: %d runs (%s) in %d tasks" % (len(runs), ", ".join(args.selection["blocks"]),
                                                                     n))
    rc = farm.submit("nettwin-regress", work, n, args.jobs or 1, task, merge, args,
                     count_re=r"^\[\s*\d+/\d+\] ", count_what="runs", total=len(runs))
    if rc in (0, 1) and not args.no_wait:
        print("junit: %s\njson: %s\nreport: %s" % (outs["junit"], outs["json"],
                                                   os.path.join(outs["report"], "index.html")))
    return rc


def main(argv=None):
    ap = parser()
    args = ap.parse_args(argv)
    if args.merge:
        from nettwin.regress.merge import merge_main
        return merge_main(args, ap)
    args.build = os.path.abspath(args.build)
    args.work_given = args.work
    args.work = os.path.abspath(args.work or os.path.join(args.build, "regress"))
    # absolute, so replay commands work from anywhere
    args.nettwin = os.path.abspath(args.nettwin or os.path.join(args.build, "nettwin"))
    blocks, runs = select(args, ap)
    if not runs:
        ap.error("no runs selected")
    blocks = [b for b in blocks if any(r.block == b for r in runs)]
    if args.slurm is not None and not args.list:
        return submit_slurm(args, ap, runs)
    if args.list:
        for r in runs:
            print("%-40s %s" % (r.name, quote(r.command)))
        print("%d runs" % len(runs))
        return 0
    if not os.access(args.nettwin, os.X_OK):
        ap.error("no nettwin binary at %s (build first: make build, or pass --build / --nettwin)" % args.nettwin)
    os.makedirs(args.work, exist_ok=True)
    log_path = os.path.join(args.work, "regress.log")
    jobs = min(args.jobs or os.cpu_count() or 1, len(runs))
    print("nettwin regression: %d runs (%s), %d in parallel%s; log: %s" % (
        len(runs), ", ".join(blocks), jobs, ", shard %d/%d" % args.shard if args.shard else "", log_path))
    sys.stdout.flush()
    t0 = time.time()
    log = Log(log_path)
    try:
        # the plots' data goes into the JSON too, so that a merge of shards can draw the same plots
        results = execute_all(runs, jobs, log, Progress(len(runs)), want_data=bool(args.report or args.json))
    except KeyboardInterrupt:
        print("\ninterrupted; log: %s" % log_path)
        return 130
    finally:
        log.close()
    wall = time.time() - t0
    k, n = args.shard or (1, 1)
    meta = {"wall_seconds": round(wall, 1), "jobs": jobs, "shard": "%d/%d" % (k, n)}
    head = {"format": FORMAT, "selection": args.selection, "commit": source_commit(),
            "shard": {"k": k, "n": n, "runs": [r.name for r in runs]}, "host": socket.gethostname()}
    return report_results(results, blocks, meta, args, head, ["%.1f s wall with -j %d" % (wall, jobs),
                                                              "log: %s" % log_path])
