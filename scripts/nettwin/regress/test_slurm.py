"""The farm mode against a real Slurm (ctest `regress_slurm`, driven by scripts/tests/test_slurm.sh, which starts
the one-node cluster of scripts/slurm_local.sh, sets SLURM_CONF and stops the cluster whatever happens):

  cd scripts && SLURM_CONF=.../slurm.conf /usr/bin/python3 -m nettwin.regress.test_slurm BUILD_DIR WORK_DIR

- `nettwin.regress.cli --slurm 4 --quick --only lb --seeds 3` (8 runs in a 4-task array plus the merge job) exits 0 and its merged
  JUnit XML, JSON and HTML report equal those of the same selection run locally (every run's status, stats and
  plot data; every testcase and its properties; the report's tables and plots), timings aside;
- a forced failure in one shard (a fake nettwin that reports a divergence for one run) makes the submitter exit
  1, the progress name the shard with failed runs, and the merged JUnit, JSON, report and closing lines carry
  that run's failure with its replay line;
- `nettwin.regress.soak --slurm 4 --blocks lb --packets 4 --timings 1`: every task soaks its own seed (K, K+4, ...), the
  merge sees seeds 1..4 once each and exits 0.
"""
import json
import os
import re
import stat
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

from nettwin.common.paths import SCRIPTS_DIR as SCRIPTS
from nettwin.common.paths import export_pythonpath  # noqa: E402

export_pythonpath()  # the tools they run are python3 -m nettwin.<block>.<tool>

BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(SCRIPTS, "..", "build")
WORK = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else "/tmp/nt_slurm_test"
# The seed program's runs: spec + 3 random vectors, b2b and gaps+bp: 8 runs (--only lb alone has the udplb runs too)
SELECTION = ["--quick", "--only", "lb", "--seeds", "3", "--match", "lb.spec.", "--match", "lb.rand."]
LIMIT = 300  # seconds for one farm submission, queueing included
FAKE = """#!/bin/sh
case " $* " in
  *"/lb_rand1_"*" --gaps "*) echo "lb lockstep: divergence at cycle 7, signal out_valid: RTL 1 model 0"; exit 1;;
esac
exec %s "$@"
"""


def run(module, *args):
    p = subprocess.run(["/usr/bin/python3", "-m", module] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=LIMIT)
    return p.returncode, p.stdout


def outputs(tag):
    return [os.path.join(WORK, tag + x) for x in (".xml", ".json", "_report")]


def regress(tag, *args):
    junit, js, rep = outputs(tag)
    rc, out = run("nettwin.regress.cli", "--build", BUILD, "--work", os.path.join(WORK, tag), "--junit", junit,
                  "--json", js, "--report", rep, *args)
    return rc, out


def json_runs(path):
    with open(path) as f:
        doc = json.load(f)
    keep = ("name", "block", "scenario", "seed", "engine", "mode", "status", "packets", "cycles", "stats", "data")
    return ({k: doc["summary"][k] for k in ("runs", "passed", "failed", "packets")},
            [{k: r.get(k) for k in keep} for r in doc["runs"]], doc)


def junit_cases(path):
    root = ET.parse(path).getroot()
    cases = []
    for suite in root.findall("testsuite"):
        for c in suite.findall("testcase"):
            cases.append((suite.get("name"), c.get("classname"), c.get("name"),
                          tuple((p.get("name"), p.get("value")) for p in c.findall("properties/property")),
                          c.find("failure") is not None))
    return (root.get("tests"), root.get("failures")), cases


def report_tables(rep):
    """The report's table rows without the time cells, and the plots it shows."""
    with open(os.path.join(rep, "index.html")) as f:
        page = f.read()
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)
    rows = [re.sub(r"<td[^>]*>\d+\.\ds?</td>", "", r) for r in rows]  # per-run seconds and block sums
    imgs = re.findall(r"<img src='([^']+)'", page)
    for img in imgs:
        with open(os.path.join(rep, img), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", img
    return rows, imgs, page


@unittest.skipUnless(os.environ.get("SLURM_CONF"), "needs SLURM_CONF (run through scripts/tests/test_slurm.sh)")
class Farm(unittest.TestCase):
    def test_lb_array_merges_to_the_local_run(self):
        rc, local = regress("local", "-j", "2", *SELECTION)
        self.assertEqual(rc, 0, local)
        rc, out = regress("farm", "--slurm", "4", "--poll", "1", *SELECTION)
        print(out)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"submitted nettwin-regress: array job \d+ \(4 tasks")
        self.assertIn("shards done 4/4 (0 with failed runs), running 0, pending 0; runs done 8/8", out)
        self.assertRegex(out, r"8 runs, \d+ packets, 8 passed, 0 failed; 4 shards")
        lj, fj = json_runs(outputs("local")[1]), json_runs(outputs("farm")[1])
        self.assertEqual(lj[0], fj[0])
        self.assertEqual(lj[1], fj[1])
        self.assertEqual(len(fj[1]), 8)
        self.assertEqual(sorted(s["k"] for s in fj[2]["shards"]), [1, 2, 3, 4])
        self.assertEqual(junit_cases(outputs("local")[0]), junit_cases(outputs("farm")[0]))
        lr, fr = report_tables(outputs("local")[2]), report_tables(outputs("farm")[2])
        self.assertEqual(lr[0], fr[0])
        self.assertEqual(lr[1], fr[1])
        self.assertEqual(len(fr[1]), 2)  # throughput and the LB latency histogram
        self.assertIn("shards 4/4", fr[2])

    def test_forced_failure_in_one_shard(self):
        fake = os.path.join(WORK, "fake_nettwin")
        with open(fake, "w") as f:
            f.write(FAKE % os.path.join(BUILD, "nettwin"))
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
        rc, out = regress("fail", "--slurm", "4", "--poll", "1", "--nettwin", fake, *SELECTION)
        print(out)
        self.assertEqual(rc, 1, out)
        # one vector per shard in list order (spec, rand1, rand2, rand3): rand1's runs are shard 2's
        self.assertIn("shards done 4/4 (1 with failed runs: 2)", out)
        self.assertRegex(out, r"8 runs, \d+ packets, 7 passed, 1 failed")
        self.assertRegex(out, r"FAILED lb\.rand\.s1\.gaps\+bp \(run\): replay: .*-m nettwin\.lb\.gen .* && " + re.escape(fake)
                         + r" lb .*--gaps")
        summary, runs, doc = json_runs(outputs("fail")[1])
        self.assertEqual((summary["runs"], summary["failed"]), (8, 1))
        (bad,) = [r for r in doc["runs"] if r["status"] != "ok"]
        self.assertEqual(bad["name"], "lb.rand.s1.gaps+bp")
        self.assertIn("divergence at cycle 7", bad["failure"]["report"])
        self.assertIn(fake, bad["replay"])
        (tests, failures), cases = junit_cases(outputs("fail")[0])
        self.assertEqual((tests, failures), ("8", "1"))
        self.assertEqual([c[2] for c in cases if c[4]], ["s1.gaps+bp"])
        _, _, page = report_tables(outputs("fail")[2])
        self.assertIn("<h2>Failures</h2>", page)
        self.assertRegex(page, r"lb\.rand\.s1\.gaps\+bp failed at run\n(.*\n)*.*divergence at cycle 7(.|\n)*replay: ")

    def test_soak_array_spreads_seeds(self):
        work = os.path.join(WORK, "soak")
        rc, out = run("nettwin.regress.soak", "--build", BUILD, "--slurm", "4", "--poll", "1", "--blocks", "lb",
                      "--packets", "4", "--timings", "1", "--work", work)
        print(out)
        self.assertEqual(rc, 0, out)
        self.assertIn("shards done 4/4 (0 with failed runs), running 0, pending 0; vectors done 4", out)
        self.assertIn("merged: 4 tasks of 4", out)
        self.assertIn("no seed soaked twice", out)
        self.assertRegex(out, r"\nlb +\d+ +4 +4 +1\.\.4 +0 +0 +0 ")
        seeds = {}
        for k in range(1, 5):
            with open(os.path.join(work, "shards", "shard-%d.json" % k)) as f:
                doc = json.load(f)
            self.assertEqual(doc["task"], {"k": k, "n": 4})
            seeds[k] = doc["blocks"]["lb"]["seeds"]
        self.assertEqual(seeds, {1: [1], 2: [2], 3: [3], 4: [4]})


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=sys.argv[:1], verbosity=2)
