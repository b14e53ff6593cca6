"""Tests of the regression runner (ctest `regress_runner`), from scripts/:
/usr/bin/python3 -m nettwin.regress.test_regress BUILD_DIR

The run list, --list and --shard over the real list; usage errors exit 2; a forced failure (a fake nettwin that
reports a divergence for one stimulus mode) exits 1 with the divergence report and replay command in the
progress stream, the JUnit XML and the JSON; --report names every run and references only valid PNGs; a clean
selection exits 0 and gives the same stats with -j 1 and -j 2.
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

REGRESS = os.path.join(SCRIPTS, "regress.py")
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


def regress(*args):
    p = subprocess.run(["/usr/bin/python3", REGRESS, "--build", BUILD] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def listed(*args):
    """The names of the runs `regress.py --list ARGS` prints, computed in this process (fast)."""
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
        # rdma: 11 scenarios x 3 seeds x 2 modes, the hazard pairs x 3 seeds x 2 modes, 6 latency points;
        # naa: 11 scenarios x 8 seeds x 2 modes; lb: spec + 10 seeds, and udplb's test-1 (TTL decrement off, on)
        # + 10 udplb_gen seeds, each x 2 modes
        for block, n in (("lb", 22 + 4 + 20), ("rdma", 11 * 3 * 2 + 3 * 2 + 6), ("reorder", 6 * 10 * 4), ("reroute", 4 * 5 * 2),
                         ("vnic", 40), ("ejfat", 48), ("naa", 11 * 8 * 2)):
            self.assertEqual(sum(1 for x in names if x.startswith(block + ".")), n, block)
        self.assertIn("lb.spec.gaps+bp", names)
        self.assertIn("reorder.exhaust.s10.b2b-tight", names)

    def test_shards_partition_the_list(self):
        for extra in ([], ["--only", "lb"], ["--quick"], ["--seeds", "4", "--only", "reorder", "--only", "rdma"]):
            whole = listed(*extra)
            for n in (1, 2, 3, 7):
                parts = [listed("--shard", "%d/%d" % (k, n), *extra) for k in range(1, n + 1)]
                flat = [x for p in parts for x in p]
                self.assertEqual(sorted(flat), sorted(whole), (extra, n))  # union = whole, each exactly once
                self.assertEqual(len(flat), len(set(flat)))
                self.assertEqual(parts, [listed("--shard", "%d/%d" % (k, n), *extra) for k in range(1, n + 1)])

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
                if "ejfat_loop.py" in " ".join(c) and c[2] in ("split", "reassemble", "check"):
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
                              r"divergence at cycle 42.*\n(    \| .*\n)*    replay: .*ejfat_spec_gen\.py.* && " +
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


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
