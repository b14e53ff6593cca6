"""Tests of the regression runner (ctest `regress_runner`), from scripts/:
/usr/bin/python3 -m nettwin.regress.test_regress BUILD_DIR

The run list, --list and --shard over the real list; usage errors exit 2; a forced failure (a fake nettwin that
reports a divergence for one stimulus mode) exits 1 with the divergence report and replay command in the
progress stream, the JUnit XML and the JSON; --report names every run and references only valid PNGs; a clean
selection exits 0 and gives the same stats with -j 1 and -j 2; --merge refuses mixed selections, commits and
splits, names missing shards, and merges a local run's shards into what the whole run writes; --slurm with a
stand-in sbatch/squeue (the farm's scripts, sbatch options, shards, merge and exit status without a Slurm).
"""
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

from nettwin.common.paths import SCRIPTS_DIR as SCRIPTS
from nettwin.regress import cli
from nettwin.regress.executor import execute_all
from nettwin.regress.run import Run, quote
from nettwin.common.paths import export_pythonpath  # noqa: E402

export_pythonpath()  # the tools they run are python3 -m nettwin.<block>.<tool>

REGRESS = ["-m", "nettwin.regress.cli"]
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SCRIPTS, "..", "build"))
# a few seconds of real runs that reach every block's plot: the LB spec vector in both modes, the shortest
# RDMA latency run and one timed reorder scenario
SMALL = ["--quick", "--match", "lb.spec.", "--match", "rdma.atomic-latency.read50", "--match",
         "reorder.ecn.s1.timed"]
FAKE = """#!/bin/sh
case " $* " in
  *" --gaps "*) echo "lb lockstep: divergence at cycle 42, signal out_data: RTL 0x1 model 0x2 (output packet 3)"
                echo "  replay: nettwin lb ... --trace wave.fst"; exit 1;;
esac
exec %s "$@"
"""

# sbatch [--array=1-N] [--output=PATTERN] ... SCRIPT: logs its options, runs SCRIPT at once (each array task in
# turn, SLURM_ARRAY_TASK_ID set, output to PATTERN with %a = the task) and prints a job id.
STAND_IN_SBATCH = r"""#!/bin/bash
echo "$*" >> "$STAND_IN_LOG"
n=0; out=/dev/null
for a in "$@"; do
  case "$a" in --array=1-*) n="${a#--array=1-}";; --output=*) out="${a#--output=}";; esac
done
script="${*: -1}"
if [ "$n" -gt 0 ]; then
  for k in $(seq 1 "$n"); do SLURM_ARRAY_TASK_ID=$k bash "$script" > "${out//%a/$k}" 2>&1; done
  echo 1000
else
  bash "$script" > "$out" 2>&1
  echo 1001
fi
"""


def regress(*args):
    p = subprocess.run(["/usr/bin/python3", *REGRESS, "--build", BUILD] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def listed(*args):
    """The names of the runs `nettwin.regress.cli --list ARGS` prints, computed in this process (fast)."""
    ap = cli.parser()
    opts = ap.parse_args(["--build", BUILD] + list(args))
    opts.work, opts.nettwin = "/w", "/nettwin"
    return [r.name for r in cli.select(opts, ap)[1]]


def png_ok(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if len(head) < 33 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return False
    width, height = struct.unpack(">II", head[16:24])
    return width > 0 and height > 0


class RunList(unittest.TestCase):
    def test_list_command(self):
        rc, out, err = regress("--list", "--only", "lb", "--shard", "2/3")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual([ln.split()[0] for ln in lines[:-1]], listed("--only", "lb", "--shard", "2/3"))
        self.assertEqual(lines[-1], "%d runs" % (len(lines) - 1))
        self.assertIn(" lb --tables ", lines[0])

    def test_full_list(self):
        names = listed()
        self.assertEqual(len(names), len(set(names)))
        # rdma: 13 scenarios (sendstream, hotatomic: issue 25) x 3 seeds x 2 modes, the hazard pairs x 3 seeds
        # x 2 modes, 6 latency points;
        # naa: 12 scenarios (rpc_lib: the NAAICE library's immediates) x 8 seeds x 2 modes; lb: spec + 10 seeds,
        # and udplb's test-1 (TTL decrement off, on) + 10 udplb_gen seeds, each x 2 modes; reorder: 6 scenarios x 10 seeds x 4 modes, and 3 in conweave-p4's
        # wire format x 3 seeds x 4 modes (issue 26 item 2); ejfat: 8 seeds x (switch, loop, re) + 2 udplb loop
        # seeds, x 2 modes, + 2 re_host seeds (buffer host, events up to 16 MiB) x 3 modes; reroute: 4 scenarios in
        # the seed's wire format and 4 in conweave-p4's (2 of them on to the reorder block) x 5 seeds x 2 modes;
        # cwloop: 4 scenarios x 5 seeds + the ECMP/ConWeave pair x 3 seeds, one mode (lockstep)
        for block, n in (("lb", 22 + 4 + 20), ("rdma", 13 * 3 * 2 + 3 * 2 + 6 + 1), ("reorder", 6 * 10 * 4 + 3 * 3 * 4),
                         ("reroute", (4 + 4) * 5 * 2), ("cwloop", 4 * 5 + 2 * 3), ("vnic", 40), ("ejfat", 48 + 4 + 6),
                         ("naa", 12 * 8 * 2)):
            self.assertEqual(sum(1 for x in names if x.startswith(block + ".")), n, block)
        self.assertIn("lb.spec.gaps+bp", names)
        self.assertIn("reorder.exhaust.s10.b2b-tight", names)
        self.assertIn("ejfat.re_host.s1.slowhost", names)

    def test_shards_partition_the_list(self):
        for extra in ([], ["--only", "lb"], ["--quick"], ["--seeds", "4", "--only", "reorder", "--only", "rdma"]):
            whole = listed(*extra)
            for n in (1, 2, 3, 7):
                parts = [listed("--shard", "%d/%d" % (k, n), *extra) for k in range(1, n + 1)]
                flat = [x for p in parts for x in p]
                self.assertEqual(sorted(flat), sorted(whole), (extra, n))  # union = whole, each exactly once
                self.assertEqual(len(flat), len(set(flat)))
                self.assertEqual(parts, [listed("--shard", "%d/%d" % (k, n), *extra) for k in range(1, n + 1)])

    def test_shards_keep_a_vectors_runs_together(self):
        ap = cli.parser()
        opts = ap.parse_args(["--build", BUILD])
        opts.work, opts.nettwin = "/w", "/nettwin"
        runs = cli.select(opts, ap)[1]
        for n in (2, 8):
            where = {}
            for k in range(1, n + 1):
                for r in cli.shard(runs, k, n):
                    if r.vector:
                        where.setdefault(r.vector.key, set()).add(k)
            self.assertTrue(all(len(ks) == 1 for ks in where.values()), n)
            self.assertEqual(len(where), len({r.vector.key for r in runs if r.vector}))
        # fewer vectors than shards: the last shard is empty, and runs (writing an empty shard JSON)
        self.assertEqual(listed("--quick", "--only", "lb", "--match", "lb.spec.", "--shard", "2/2"), [])
        rc, out, err = regress("--list", "--quick", "--only", "lb", "--match", "lb.spec.", "--shard", "2/2")
        self.assertEqual((rc, out), (0, "0 runs\n"), err)

    def test_runs_write_to_their_own_files(self):
        # Runs of one vector run in parallel with -j: a file one writes must not be another's. Session 8 found
        # the closed loop's two modes reassembling into the same member directories (a FAIL under -j 2 when
        # one run's check read the events the other was rewriting).
        ap = cli.parser()
        opts = ap.parse_args(["--build", BUILD])
        opts.work, opts.nettwin = "/w", "/nettwin"
        owner = {}
        for r in cli.select(opts, ap)[1]:
            for c in [r.command] + [chk for _, chk in r.checks]:
                for flag, value in zip(c, c[1:]):
                    if flag in ("--out", "--stats", "--report", "--json", "--work", "--cleanup-out") and \
                            not value.startswith("--"):
                        self.assertEqual(owner.setdefault(value, r.name), r.name, "%s %s" % (flag, value))
                if c[1:3] == ["-m", "nettwin.re.loop"] and c[3] in ("split", "reassemble", "check"):
                    self.assertIn("--work", c, r.name)  # else the members' files go to the shared vector dir

    def test_selection(self):
        self.assertTrue(all(x.startswith("lb.") for x in listed("--only", "lb")))
        self.assertEqual(listed("--only", "reorder", "--only", "lb"), listed("--only", "lb") +
                         listed("--only", "reorder"))
        self.assertEqual(len(listed("--only", "lb", "--seeds", "3")), 2 * (1 + 3) + 2 * (2 + 3))
        self.assertIn("lb.rand.s7.b2b", listed("--only", "lb", "--seeds", "2", "--first-seed", "6"))
        self.assertEqual(len(listed("--only", "rdma", "--seeds", "2", "--match", "rdma.mixed.")), 4)


class Executor(unittest.TestCase):
    """The executor alone, on shell commands instead of nettwin."""

    class Log:
        def write(self, text):
            pass

    @staticmethod
    def make(i, delay, rc=0):
        js = '{"packets_in": %d, "cycles": %d}' % (i, 10 * i)
        return Run("t", "s%d" % i, i, "m", ["sh", "-c", "sleep %s; echo '%s'; exit %d" % (delay, js, rc)])

    def test_order_and_failures(self):
        runs = [self.make(i, d, rc) for i, (d, rc) in enumerate([(0.4, 0), (0, 1), (0.2, 0), (0, 0), (0.1, 3)])]
        runs.append(Run("t", "broken", None, "m", ["true"], outputs=[None]))  # os.path.exists(None) raises
        done = []
        res = execute_all(runs, 3, self.Log(), lambda r: done.append(r.run.name))
        self.assertEqual([r.run.name for r in res], [r.name for r in runs])  # list order, not finishing order
        self.assertNotEqual(done, [r.name for r in runs])
        self.assertEqual([r.ok for r in res], [True, False, True, True, False, False])
        self.assertEqual([r.stats.get("cycles") for r in res[:5]], [0, 10, 20, 30, 40])
        self.assertEqual((res[1].stage, res[5].stage), ("run", "runner"))
        self.assertIn("exit 1", res[1].report)
        self.assertIn("TypeError", res[5].report)
        self.assertEqual(res[4].replay, quote(runs[4].command))


class Usage(unittest.TestCase):
    def test_usage_errors_exit_2(self):
        for args in (["--shard", "0/3"], ["--shard", "4/3"], ["--shard", "x"], ["--only", "nosuch"],
                     ["--seeds", "0"], ["-j", "0"], ["--blocks", "lb,nosuch"], ["--match", "no-such-run"],
                     ["--nettwin", "/nonexistent/nettwin"], ["--no-such-option"]):
            rc, out, err = regress(*args)
            self.assertEqual(rc, 2, (args, out, err))
            self.assertIn("error:", err, args)
        for args in (["--slurm", "0"], ["--slurm", "2", "--shard", "1/2"]):
            rc, out, err = regress(*args)
            self.assertEqual(rc, 2, (args, out, err))
            self.assertIn("--slurm takes N >= 1", err, args)


@unittest.skipUnless(os.access(os.path.join(BUILD, "nettwin"), os.X_OK), "needs the built nettwin")
class Runs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nt_regress_test_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_forced_failure_junit_json_report(self):
        fake = os.path.join(self.tmp, "nettwin")
        with open(fake, "w") as f:
            f.write(FAKE % os.path.join(BUILD, "nettwin"))
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
        junit, js, rep = (os.path.join(self.tmp, x) for x in ("r.xml", "r.json", "rep"))
        rc, out, err = regress("--nettwin", fake, "--work", os.path.join(self.tmp, "w"), "-j", "2",
                               "--junit", junit, "--json", js, "--report", rep, *SMALL)
        self.assertEqual(rc, 1, out + err)
        names = listed(*SMALL)
        self.assertEqual(len(names), 4)
        # progress: one [k/N] line per run, the failure's report and replay right under its line
        self.assertEqual(len(re.findall(r"^\[\s*\d+/4\] ", out, re.M)), 4, out)
        self.assertRegex(out, r"FAIL.*\n    FAILED at run: lb\.spec\.gaps\+bp\n(    \| .*\n)*    \| lb lockstep: "
                              r"divergence at cycle 42.*\n(    \| .*\n)*    replay: .* && PYTHONPATH=\S+ \S+ -m nettwin\.lb\.spec_gen .* && " +
                         re.escape(fake) + " lb .*--gaps")
        cases = ET.parse(junit).getroot().findall("./testsuite/testcase")
        self.assertEqual(sorted(c.get("classname") + "." + c.get("name") for c in cases), sorted(names))
        failed = [c for c in cases if c.find("failure") is not None]
        self.assertEqual([c.get("classname") + "." + c.get("name") for c in failed], ["lb.spec.gaps+bp"])
        text = failed[0].find("failure").text
        self.assertIn("divergence at cycle 42", text)
        self.assertIn("replay: ", text)
        ok = [c for c in cases if c.get("name") == "b2b"][0]
        props = {p.get("name"): p.get("value") for p in ok.findall("properties/property")}
        self.assertEqual((props["packets"], props["mode"], props["engine"]), ("22", "b2b", "lockstep"))
        self.assertEqual(props["stats.mismatches"], "0")
        with open(js) as f:
            data = json.load(f)
        self.assertEqual(sorted(r["name"] for r in data["runs"]), sorted(names))
        self.assertEqual(data["summary"]["failed"], 1)
        bad = [r for r in data["runs"] if r["status"] != "ok"]
        self.assertEqual(bad[0]["failure"]["stage"], "run")
        with open(os.path.join(rep, "index.html")) as f:
            page = f.read()
        for n in names:
            self.assertIn(">%s<" % n, page)
        imgs = re.findall(r"<img src='([^']+)'", page)
        self.assertEqual(len(imgs), 4, imgs)  # throughput, lb latency, rdma latency, reorder hold time
        for img in imgs:
            self.assertTrue(png_ok(os.path.join(rep, img)), img)

    def test_slurm_flow_with_a_stand_in_sbatch(self):
        """--slurm N with stand-ins for sbatch (runs the array's tasks and then the merge job at once, in order)
        and squeue (the queue is empty): the farm's scripts, shard files, merge and exit status, where no real
        Slurm can start (ctest regress_slurm tests a real one)."""
        bindir = os.path.join(self.tmp, "bin")
        os.mkdir(bindir)
        with open(os.path.join(bindir, "sbatch"), "w") as f:
            f.write(STAND_IN_SBATCH)
        with open(os.path.join(bindir, "squeue"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        for x in ("sbatch", "squeue"):
            os.chmod(os.path.join(bindir, x), 0o755)
        fake = os.path.join(self.tmp, "nettwin")
        with open(fake, "w") as f:
            f.write(FAKE % os.path.join(BUILD, "nettwin"))
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
        work, js = os.path.join(self.tmp, "farm"), os.path.join(self.tmp, "m.json")
        env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], STAND_IN_LOG=os.path.join(self.tmp, "log"))
        p = subprocess.run(["/usr/bin/python3", *REGRESS, "--build", BUILD, "--nettwin", fake, "--slurm", "3",
                            "--poll", "0.1", "--work", work, "--json", js, "--partition", "p1", "--account", "a1",
                            "--sbatch-arg=--qos=long"] + SMALL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=env, timeout=300)
        self.assertEqual(p.returncode, 1, p.stdout)  # lb.spec.gaps+bp diverges (the fake)
        self.assertIn("shards done 3/3 (1 with failed runs: 1)", p.stdout)
        self.assertRegex(p.stdout, r"FAILED lb\.spec\.gaps\+bp \(run\): replay: .*--gaps")
        with open(js) as f:
            doc = json.load(f)
        self.assertEqual((doc["summary"]["runs"], doc["summary"]["failed"]), (4, 1))
        with open(env["STAND_IN_LOG"]) as f:
            calls = f.read().splitlines()
        self.assertEqual(len(calls), 2)
        self.assertIn("--array=1-3", calls[0])
        for c in calls:
            self.assertIn("--partition=p1 --account=a1 --qos=long", c)
        self.assertIn("--dependency=afterany:1000", calls[1])
        # no Slurm to talk to: exit 2 with sbatch's message
        with open(os.path.join(bindir, "sbatch"), "w") as f:
            f.write("#!/bin/sh\necho 'sbatch: error: Unable to contact slurm controller' >&2\nexit 1\n")
        p = subprocess.run(["/usr/bin/python3", *REGRESS, "--build", BUILD, "--slurm", "2", "--work", work] + SMALL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=60)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("slurm: cannot submit: sbatch", p.stdout)
        self.assertIn("Unable to contact slurm controller", p.stdout)

    def test_clean_runs_exit_0_and_serial_equals_parallel(self):
        stats = []
        for jobs in ("1", "2"):
            js = os.path.join(self.tmp, "j%s.json" % jobs)
            rc, out, err = regress("--work", os.path.join(self.tmp, "w" + jobs), "-j", jobs, "--json", js,
                                   "--quick", "--match", "lb.spec.")
            self.assertEqual(rc, 0, out + err)
            with open(js) as f:
                stats.append([(r["name"], r["stats"]) for r in json.load(f)["runs"]])
        self.assertEqual(stats[0], stats[1])
        self.assertEqual([n for n, _ in stats[0]], ["lb.spec.b2b", "lb.spec.gaps+bp"])


def shard_doc(k, n, args, commit="0" * 40):
    """A shard JSON as `nettwin.regress.cli ARGS --shard K/N --json` writes it, with made-up results (no run needed)."""
    ap = cli.parser()
    opts = ap.parse_args(["--build", BUILD, "--shard", "%d/%d" % (k, n)] + list(args))
    opts.work, opts.nettwin = "/w", "/nettwin"
    runs = cli.select(opts, ap)[1]
    recs = [{"name": r.name, "block": r.block, "scenario": r.scenario, "seed": r.seed, "engine": r.engine,
             "mode": r.mode, "status": "ok", "seconds": 1.5, "packets": 10, "cycles": 100, "command": r.command,
             "replay": r.replay(), "stats": {"packets_in": 10, "packets_out": 10, "cycles": 100, "mismatches": 0,
                                             "conservation_ok": True}} for r in runs]
    return {"format": cli.FORMAT, "selection": opts.selection, "commit": commit,
            "shard": {"k": k, "n": n, "runs": [r.name for r in runs]}, "host": "h%d" % k,
            "summary": {"runs": len(recs), "passed": len(recs), "failed": 0, "packets": 10 * len(recs),
                        "wall_seconds": 2.0, "jobs": 1, "shard": "%d/%d" % (k, n)}, "runs": recs}


class Merge(unittest.TestCase):
    """--merge of shard JSONs: what it refuses (no build needed), and (with the build) that a local run's
    shards merge into what the whole run writes."""
    LB = ["--only", "lb", "--seeds", "2", "--match", "lb.spec.", "--match", "lb.rand."]  # the seed program: 6 runs

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nt_merge_test_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def shards(self, n, args=None, **kw):
        return [self.write("s%d_%d.json" % (k, n), shard_doc(k, n, args or self.LB, **kw)) for k in range(1, n + 1)]

    def merge(self, *files, extra=()):
        js = os.path.join(self.tmp, "merged.json")
        if os.path.exists(js):
            os.remove(js)
        rc, out, err = regress("--merge", *files, "--json", js, "--junit", os.path.join(self.tmp, "m.xml"), *extra)
        return rc, out, err, js

    def test_complete_set_merges_in_list_order(self):
        files = self.shards(3)
        rc, out, err, js = self.merge(*reversed(files))
        self.assertEqual(rc, 0, out + err)
        with open(js) as f:
            doc = json.load(f)
        self.assertEqual([r["name"] for r in doc["runs"]], listed(*self.LB))
        self.assertEqual((doc["summary"]["runs"], doc["summary"]["failed"], doc["summary"]["shards"]), (6, 0, "3/3"))
        self.assertEqual([s["k"] for s in doc["shards"]], [1, 2, 3])
        self.assertEqual(doc["selection"]["blocks"], ["lb"])
        self.assertIn("merged: 3 shards of 3", out)
        # a directory of shard JSONs is the same as its files; every *.json in it must be a shard
        d = os.path.join(self.tmp, "shards")
        os.mkdir(d)
        for f in files:
            shutil.copy(f, d)
        rc, out2, err, js2 = self.merge(d)
        self.assertEqual(rc, 0, out2 + err)
        with open(js2) as f:
            self.assertEqual(json.load(f)["runs"], doc["runs"])
        shutil.copy(js, os.path.join(d, "merged.json"))
        rc, out2, err, _ = self.merge(d)
        self.assertEqual(rc, 2, out2 + err)
        self.assertIn("merged.json: not a shard JSON", err)

    def test_refuses_mixed_selections(self):
        a = self.write("a.json", shard_doc(1, 2, self.LB))
        b = self.write("b.json", shard_doc(2, 2, self.LB + ["--quick"]))
        rc, out, err, js = self.merge(a, b)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("refusing to merge shards of different selections: %s and %s differ in quick false vs true"
                      % (a, b), err)
        self.assertFalse(os.path.exists(js))
        c = self.write("c.json", shard_doc(2, 2, ["--only", "lb", "--seeds", "3"]))
        rc, out, err, _ = self.merge(a, c)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("seeds 2 vs 3", err)

    def test_refuses_mixed_commits_splits_and_twice_the_same_shard(self):
        a = self.write("a.json", shard_doc(1, 2, self.LB))
        b = self.write("b.json", shard_doc(2, 2, self.LB, commit="1" * 40))
        rc, out, err, _ = self.merge(a, b)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("different commits: %s is %s, %s is %s" % (a, "0" * 40, b, "1" * 40), err)
        c = self.write("c.json", shard_doc(2, 3, self.LB))
        rc, out, err, _ = self.merge(a, c)
        self.assertEqual((rc, "different splits" in err), (2, True), out + err)
        d = self.write("d.json", shard_doc(1, 2, self.LB))
        rc, out, err, _ = self.merge(a, d)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("shard 1/2 given twice: %s and %s" % (a, d), err)

    def test_names_missing_shards(self):
        files = self.shards(4)
        rc, out, err, js = self.merge(files[0], files[2])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("missing shards 2/4, 4/4 of 4 (have 1/4, 3/4)", err)
        self.assertFalse(os.path.exists(js))
        rc, out, err, js = self.merge(files[0], files[2], files[3], extra=["--partial"])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("MISSING shard 2/4 of 4: 2 of the selection's 6 runs are not in this result", out)
        with open(js) as f:
            doc = json.load(f)
        self.assertEqual((doc["missing_shards"], doc["summary"]["missing_shards"], len(doc["runs"])),
                         ([2], "2/4", 4))

    def test_refuses_a_shard_whose_runs_are_not_its_part(self):
        doc = shard_doc(1, 2, self.LB)
        doc["runs"], doc["shard"]["runs"] = doc["runs"][1:], doc["shard"]["runs"][1:]
        rc, out, err, _ = self.merge(self.write("a.json", doc), self.write("b.json", shard_doc(2, 2, self.LB)))
        self.assertEqual(rc, 2, out + err)
        self.assertIn("its runs are not those of shard 1/2 of this selection", err)

    def test_refuses_files_that_are_not_shards(self):
        rc, out, err, _ = self.merge(self.write("old.json", {"summary": {}, "runs": []}))
        self.assertEqual(rc, 2, out + err)
        self.assertIn("not a shard JSON of nettwin.regress.cli", err)
        rc, out, err, _ = self.merge(os.path.join(self.tmp, "nosuch.json"))
        self.assertEqual(rc, 2, out + err)
        self.assertIn("cannot read", err)

    @unittest.skipUnless(os.access(os.path.join(BUILD, "nettwin"), os.X_OK), "needs the built nettwin")
    def test_local_shards_merge_into_the_whole_run(self):
        whole = [os.path.join(self.tmp, x) for x in ("w.xml", "w.json", "wrep")]
        rc, out, err = regress("--work", os.path.join(self.tmp, "w"), "-j", "2", "--junit", whole[0], "--json",
                               whole[1], "--report", whole[2], *SMALL)
        self.assertEqual(rc, 0, out + err)
        parts = []
        for k in (1, 2, 3):
            parts.append(os.path.join(self.tmp, "part%d.json" % k))
            rc, out, err = regress("--work", os.path.join(self.tmp, "p%d" % k), "-j", "1", "--json", parts[-1],
                                   "--shard", "%d/3" % k, *SMALL)
            self.assertEqual(rc, 0, out + err)
        merged = [os.path.join(self.tmp, x) for x in ("m.xml", "m.json", "mrep")]
        rc, out, err = regress("--merge", *parts, "--junit", merged[0], "--json", merged[1], "--report", merged[2])
        self.assertEqual(rc, 0, out + err)
        docs = []
        for js in (whole[1], merged[1]):
            with open(js) as f:
                d = json.load(f)
            docs.append(([(r["name"], r["status"], r["packets"], r["cycles"], r["stats"], r["data"])
                          for r in d["runs"]], {k: d["summary"][k] for k in ("runs", "passed", "failed", "packets")}))
        self.assertEqual(docs[0], docs[1])
        cases = []
        for x in (whole[0], merged[0]):
            cases.append([(c.get("classname"), c.get("name"), [(p.get("name"), p.get("value"))
                                                                for p in c.findall("properties/property")])
                          for c in ET.parse(x).getroot().findall("./testsuite/testcase")])
        self.assertEqual(cases[0], cases[1])
        imgs = []
        for rep in (whole[2], merged[2]):
            with open(os.path.join(rep, "index.html")) as f:
                imgs.append(re.findall(r"<img src='([^']+)'", f.read()))
            for img in imgs[-1]:
                self.assertTrue(png_ok(os.path.join(rep, img)), img)
        self.assertEqual(imgs[0], imgs[1])
        self.assertEqual(len(imgs[1]), 4)  # throughput, lb latency, rdma latency, reorder hold time (from data)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
