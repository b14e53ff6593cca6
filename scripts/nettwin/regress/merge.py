"""`nettwin.regress.cli --merge SHARD.json|DIR ... [--junit F] [--json F] [--report D] [--partial]`: shards back into one
regression.

Each shard JSON (what `nettwin.regress.cli --shard K/N --json F` writes, locally or as a Slurm array task) records the
selection (the options that chose the run list), the commit of the sources (HEAD, plus a hash of any
uncommitted diff), K, N and the names of its runs. The merge
  - refuses (exit 2) files that are not shard JSONs, shards of different selections, of different commits or of
    different N, a shard given twice, and a shard whose runs are not the ones shard K/N of that selection has
    in this checkout;
  - names every missing shard; without --partial that is a refusal too (exit 2), with it the outputs are
    written from the shards there are, say which are missing, and the exit status is 1;
  - rebuilds each run from this checkout's block modules (its table columns, packets/cycles and plots) with the
    shard's own results (status, stats, failure report, replay line, the plots' data), in the order of the
    whole list, so the tables, JUnit XML, JSON and HTML report are those a local run of the selection writes.
Exit status: 0 every run passed, 1 a run failed (or --partial with shards missing), 2 refused.
"""
import dataclasses
import glob
import json
import os
import sys

from nettwin.regress.run import Result


class Refused(Exception):
    pass


def shard_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.json")))
        else:
            files.append(p)
    return files


def load(path):
    from nettwin.regress.cli import FORMAT
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise Refused("%s: cannot read: %s" % (path, e.strerror))
    except ValueError as e:
        raise Refused("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise Refused("%s: not a shard JSON of nettwin.regress.cli (no '\"format\": \"%s\"'; written with --json by a "
                      "nettwin.regress.cli that records the selection, the commit and K/N)" % (path, FORMAT))
    return doc


def _differences(a, b):
    keys = sorted(set(a) | set(b))
    return ", ".join("%s %s vs %s" % (k, json.dumps(a.get(k)), json.dumps(b.get(k))) for k in keys
                     if a.get(k) != b.get(k))


def check(docs):
    """docs: [(path, doc)]. Returns (selection, commit, n, {k: (path, doc)}, missing ks); raises Refused."""
    if not docs:
        raise Refused("no shard JSON given")
    p0, d0 = docs[0]
    for p, d in docs[1:]:
        if d["selection"] != d0["selection"]:
            raise Refused("refusing to merge shards of different selections: %s and %s differ in %s" % (
                p0, p, _differences(d0["selection"], d["selection"])))
    for p, d in docs[1:]:
        if d["commit"] != d0["commit"]:
            raise Refused("refusing to merge shards of different commits: %s is %s, %s is %s" % (
                p0, d0["commit"], p, d["commit"]))
    for p, d in docs[1:]:
        if d["shard"]["n"] != d0["shard"]["n"]:
            raise Refused("refusing to merge shards of different splits: %s is shard %d/%d, %s is shard %d/%d" % (
                p0, d0["shard"]["k"], d0["shard"]["n"], p, d["shard"]["k"], d["shard"]["n"]))
    n = d0["shard"]["n"]
    by_k = {}
    for p, d in docs:
        k = d["shard"]["k"]
        if k in by_k:
            raise Refused("shard %d/%d given twice: %s and %s" % (k, n, by_k[k][0], p))
        by_k[k] = (p, d)
    missing = [k for k in range(1, n + 1) if k not in by_k]
    return d0["selection"], d0["commit"], n, by_k, missing


def rebuild(selection, n, by_k, build):
    """The whole selection's Runs from this checkout, and the shards' Results in list order."""
    from nettwin.regress import cli
    ap = cli.parser()
    args = ap.parse_args(["--build", build] + cli.selection_argv(selection))
    args.work, args.nettwin = os.path.join(build, "regress"), os.path.join(build, "nettwin")
    blocks, runs = cli.select(args, ap)
    if len(runs) != selection["runs"]:
        raise Refused("this checkout selects %d runs for %s, the shards %d: merge with the shards' commit" % (
            len(runs), " ".join(cli.selection_argv(selection)), selection["runs"]))
    results = {}
    for k, (path, doc) in sorted(by_k.items()):
        want = [r.name for r in cli.shard(runs, k, n)]
        got = [rec["name"] for rec in doc["runs"]]
        if got != want or doc["shard"].get("runs", got) != want:
            raise Refused("%s: its runs are not those of shard %d/%d of this selection in this checkout (%d runs, "
                          "expected %d)" % (path, k, n, len(got), len(want)))
        by_name = {r.name: r for r in runs}
        for rec in doc["runs"]:
            results[rec["name"]] = result_of(by_name[rec["name"]], rec)
    return blocks, [results[r.name] for r in runs if r.name in results]


def result_of(run, rec):
    """A shard's record of `run` as the Result the executor made on the shard's machine."""
    fail = rec.get("failure") or {}
    run = dataclasses.replace(run, command=rec["command"])  # the shard's paths, as it ran
    return Result(run, rec["status"] == "ok", rec["seconds"], fail.get("stage", ""), fail.get("report", ""),
                  rec.get("replay", ""), rec.get("stats") or {}, rec.get("data") or {})


def merge_main(args, ap):
    from nettwin.regress import cli
    bad = [f for f, v in (("--shard", args.shard), ("--slurm", args.slurm), ("--list", args.list)) if v]
    bad += ["--only/--match/--seeds/--quick (the shards record their selection)"] if (
        args.only or args.match or args.seeds or args.quick or args.packets) else []
    if bad:
        ap.error("--merge does not take %s" % ", ".join(bad))
    build = os.path.abspath(args.build)
    try:
        files = shard_files(args.merge)
        docs = [(f, load(f)) for f in files]
        selection, commit, n, by_k, missing = check(docs)
        if missing and not args.partial:
            raise Refused("missing shard%s %s of %d (have %s): pass them too, or --partial to merge without them" % (
                "s" if len(missing) > 1 else "", ", ".join("%d/%d" % (k, n) for k in missing), n,
                ", ".join("%d/%d" % (k, n) for k in sorted(by_k)) or "none"))
        blocks, results = rebuild(selection, n, by_k, build)
    except Refused as e:
        print("nettwin.regress.cli --merge: refused: %s" % e, file=sys.stderr)
        return 2
    here = cli.source_commit()
    print("nettwin regression, merged: %d shard%s of %d (%s), %d runs of the selection %s; commit %s" % (
        len(by_k), "" if len(by_k) == 1 else "s", n, ", ".join(os.path.basename(p) for p, _ in by_k.values()),
        len(results), " ".join(cli.selection_argv(selection)) or "(everything)", commit))
    if here != commit:
        print("note: this checkout is %s, the shards %s (tables and plots are drawn by this checkout's code)"
              % (here, commit))
    blocks = [b for b in blocks if any(r.run.block == b for r in results)]
    walls = [d["summary"].get("wall_seconds", 0) for _, d in by_k.values()]
    meta = {"shards": "%d/%d" % (len(by_k), n), "slowest_shard_wall_seconds": max(walls),
            "sum_shard_wall_seconds": round(sum(walls), 1)}
    if missing:
        meta["missing_shards"] = ",".join("%d/%d" % (k, n) for k in missing)
    head = {"format": "nettwin-regress-merged/1", "selection": selection, "commit": commit,
            "shards": [{"k": k, "file": os.path.abspath(p), "host": d.get("host"), "runs": len(d["runs"]),
                        "wall_seconds": d["summary"].get("wall_seconds"), "jobs": d["summary"].get("jobs")}
                       for k, (p, d) in sorted(by_k.items())],
            "missing_shards": missing}
    rc = cli.report_results(results, blocks, meta, args, head,
                            ["%d shards, slowest %.1f s wall" % (len(by_k), max(walls))])
    if missing:
        print("MISSING shard%s %s of %d: %d of the selection's %d runs are not in this result" % (
            "s" if len(missing) > 1 else "", ", ".join("%d/%d" % (k, n) for k in missing), n,
            selection["runs"] - len(results), selection["runs"]))
        return 1
    return rc
