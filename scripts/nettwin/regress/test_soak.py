"""Tests of the soak driver (nettwin/regress/soak.py) that need no build: option errors, and that every
block's lockstep runs are checked, draw their stimuli from the seed, and (reorder) write the drawn
parameters where the checker reads them; the merge of a Slurm farm's task JSONs (seeds never repeated,
tasks of one settings and commit, missing tasks named).

  cd scripts && /usr/bin/python3 -m unittest nettwin.regress.test_soak
"""
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from nettwin.regress import soak


class SoakTest(unittest.TestCase):
    def test_bad_options_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(soak.main(["--blocks", "lb,nosuch", "--build", d]), 2)
            self.assertEqual(soak.main(["--timings", "0", "--build", d]), 2)
            self.assertEqual(soak.main(["--build", d]), 2)  # no nettwin in it

    def test_every_run_of_every_block_is_checked_and_seeded(self):
        for block, fn in soak.BLOCKS.items():
            with tempfile.TemporaryDirectory() as d:
                gen, runs = fn(random.Random(f"{block}:3"), 3, d, "/nt")
                self.assertTrue(gen and all(c[0] == soak.PY for c in gen), block)
                steps = runs(0, random.Random(1))
                self.assertTrue(steps, block)
                for s in steps:
                    self.assertEqual(s.run[0], "/nt")
                    self.assertIn("lockstep", s.run, block)
                    self.assertTrue(s.checks, f"{block}: a run without a checker")
                    self.assertIn(s.stats, s.run, block)
                again = fn(random.Random(f"{block}:3"), 3, d, "/nt")[1](0, random.Random(1))
                self.assertEqual([s.run for s in steps], [s.run for s in again], f"{block}: not reproducible")
                other = runs(1, random.Random(2))
                self.assertNotEqual([s.run for s in steps], [s.run for s in other], f"{block}: same stimulus")

    def test_reorder_parameters_reach_the_file_the_checker_reads(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "reorder.txt"), "w") as f:
                f.write("# cw_gen\nqueues 8\nmargin_us 4\ndefault_hold_us 100\nbuffer_bytes 65536\n")
            _, runs = soak.reorder_block(random.Random("reorder:1"), 1, d, "/nt")
            (step,) = runs(0, random.Random(5))
            for c in step.pre:  # part of the replay line: must be a plain command
                subprocess.run(c, check=True)
            text = open(os.path.join(d, "reorder.txt")).read().split("\n")
            self.assertEqual(text[0], "# cw_gen")
            self.assertIn("buffer_bytes 65536", text)
            self.assertTrue(any(t.startswith("queues ") and t.split()[1] in ("4", "8", "16", "32") for t in text))
            self.assertTrue(any(c[1:3] == ["-m", "nettwin.reorder.check"] and "--backpressure" in c for c in step.checks))

    def test_forked_python_steps_report_exit_status_output_and_cpu(self):
        """Generators and checkers run in a fork of the soak (Scapy imported once): a failing check must still
        fail, its output must reach the log, and an uncaught exception counts as a failure."""
        cases = {"def main():\n    print('ok')\n": (0, "ok"),
                 "def main():\n    print('bad', file=sys.stderr)\n    sys.exit(1)\n": (1, "bad"),
                 "def main():\n    sys.exit('usage: wrong')\n": (1, "usage: wrong"),
                 "def main():\n    return 2\n": (2, ""),
                 "def main():\n    raise ValueError('boom')\n": (1, "ValueError: boom")}
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log.txt")
            with mock.patch.object(sys, "path", [d] + sys.path):  # the step modules, as PYTHONPATH finds tools
                for i, (body, (code, text)) in enumerate(cases.items()):
                    with open(os.path.join(d, f"soakstep{i}.py"), "w") as f:
                        f.write("import sys\n\n\n" + body)
                    cmd = [soak.PY, "-m", f"soakstep{i}", "--x"]  # a tool module, as python3 -m runs it
                    self.assertTrue(soak._preforkable(cmd))
                    rc, cpu, out = soak.execute(cmd, log)
                    self.assertEqual(rc, code, body)
                    self.assertIn(text, out, body)
                    self.assertGreaterEqual(cpu, 0.0)
            rc, _, out = soak.execute(["sh", "-c", "echo plain; exit 3"], log)
            self.assertEqual((rc, out.strip().splitlines()[-1]), (3, "plain"))


def task_doc(k, n, seeds, failures=(), commit="c0", packets=100):
    """A farm task's --json as nettwin.regress.soak writes it (made-up tallies)."""
    rec = {"packets": 250 * len(seeds), "runs": 4 * len(seeds), "vectors": len(seeds), "div": len(failures),
           "chk": 0, "other": 0, "cpu": {"gen": 1.0, "lockstep": 2.0, "check": 3.0}, "seeds": list(seeds),
           "failures": list(failures)}
    return {"format": soak.FORMAT, "settings": {"blocks": ["lb"], "timings": 4, "packets": packets, "first_seed": 1,
                                                "seed_stride": n},
            "commit": commit, "task": {"k": k, "n": n}, "host": "h", "wall_seconds": 10.0 * k,
            "summary": {"failed": len(failures)}, "blocks": {"lb": rec}}


class SoakMergeTest(unittest.TestCase):
    """--merge of a farm's task JSONs: adds up, refuses a seed soaked twice, mixed settings or commits, and names
    missing tasks."""

    def merge(self, docs, *extra):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, doc in enumerate(docs):
                paths.append(os.path.join(d, "t%d.json" % i))
                with open(paths[-1], "w") as f:
                    json.dump(doc, f)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = soak.main(["--merge"] + paths + list(extra))
            return rc, out.getvalue(), err.getvalue()

    def test_tasks_add_up(self):
        rc, out, err = self.merge([task_doc(1, 2, [1, 3]), task_doc(2, 2, [2, 4])])
        self.assertEqual(rc, 0, out + err)
        self.assertIn("merged: 2 tasks of 2, commit c0; no seed soaked twice", out)
        self.assertRegex(out, r"\nlb +1000 +4 +16 +1\.\.4 +0 +0 +0 +2 / 4 / 6\n")

    def test_a_failure_in_one_task_fails_the_soak(self):
        rc, out, err = self.merge([task_doc(1, 2, [1], ["DIVERGENCE; replay: nettwin lb ..."]), task_doc(2, 2, [2])])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("lb: DIVERGENCE; replay: nettwin lb ...", out)

    def test_refuses_a_seed_soaked_twice(self):
        rc, out, err = self.merge([task_doc(1, 2, [1, 3]), task_doc(2, 2, [3, 4])])
        self.assertEqual(rc, 2, out + err)
        self.assertRegex(err, r"refused: seed 3 of lb soaked twice: .*t0\.json and .*t1\.json")

    def test_refuses_mixed_settings_and_commits(self):
        rc, out, err = self.merge([task_doc(1, 2, [1]), task_doc(2, 2, [2], packets=200)])
        self.assertEqual((rc, "different settings" in err), (2, True), out + err)
        rc, out, err = self.merge([task_doc(1, 2, [1]), task_doc(2, 2, [2], commit="c1")])
        self.assertEqual((rc, "different commit" in err), (2, True), out + err)

    def test_names_missing_tasks(self):
        rc, out, err = self.merge([task_doc(1, 3, [1]), task_doc(3, 3, [3])])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("missing task 2/3 of 3", err)
        rc, out, err = self.merge([task_doc(1, 3, [1]), task_doc(3, 3, [3])], "--partial")
        self.assertEqual(rc, 1, out + err)
        self.assertIn("MISSING task 2/3 of 3", out)

    def test_farm_task_k_of_n(self):
        ap_args = soak.argparse.Namespace(seed=7, seed_stride=4)
        self.assertEqual(soak.task_of(ap_args), (3, 4))
        self.assertEqual(soak.task_of(soak.argparse.Namespace(seed=5, seed_stride=1)), (1, 1))


if __name__ == "__main__":
    unittest.main()
