"""Tests of the soak driver (nettwin/regress/soak.py) that need no build: option errors, and that every
block's lockstep runs are checked, draw their stimuli from the seed, and (reorder) write the drawn
parameters where the checker reads them.

  cd scripts && /usr/bin/python3 -m unittest nettwin.regress.test_soak
"""
import os
import random
import subprocess
import tempfile
import unittest

from nettwin.regress import soak


def script(name):
    return "/scripts/" + name


class SoakTest(unittest.TestCase):
    def test_bad_options_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(soak.main(["--blocks", "lb,nosuch", "--build", d]), 2)
            self.assertEqual(soak.main(["--timings", "0", "--build", d]), 2)
            self.assertEqual(soak.main(["--build", d]), 2)  # no nettwin in it

    def test_every_run_of_every_block_is_checked_and_seeded(self):
        for block, fn in soak.BLOCKS.items():
            with tempfile.TemporaryDirectory() as d:
                gen, runs = fn(random.Random(f"{block}:3"), 3, d, "/nt", script)
                self.assertTrue(gen and all(c[0] == soak.PY for c in gen), block)
                steps = runs(0, random.Random(1))
                self.assertTrue(steps, block)
                for s in steps:
                    self.assertEqual(s.run[0], "/nt")
                    self.assertIn("lockstep", s.run, block)
                    self.assertTrue(s.checks, f"{block}: a run without a checker")
                    self.assertIn(s.stats, s.run, block)
                again = fn(random.Random(f"{block}:3"), 3, d, "/nt", script)[1](0, random.Random(1))
                self.assertEqual([s.run for s in steps], [s.run for s in again], f"{block}: not reproducible")
                other = runs(1, random.Random(2))
                self.assertNotEqual([s.run for s in steps], [s.run for s in other], f"{block}: same stimulus")

    def test_reorder_parameters_reach_the_file_the_checker_reads(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "reorder.txt"), "w") as f:
                f.write("# cw_gen\nqueues 8\nmargin_us 4\ndefault_hold_us 100\nbuffer_bytes 65536\n")
            _, runs = soak.reorder_block(random.Random("reorder:1"), 1, d, "/nt", script)
            (step,) = runs(0, random.Random(5))
            for c in step.pre:  # part of the replay line: must be a plain command
                subprocess.run(c, check=True)
            text = open(os.path.join(d, "reorder.txt")).read().split("\n")
            self.assertEqual(text[0], "# cw_gen")
            self.assertIn("buffer_bytes 65536", text)
            self.assertTrue(any(t.startswith("queues ") and t.split()[1] in ("4", "8", "16", "32") for t in text))
            self.assertTrue(any(c[1] == script("cw_check.py") and "--backpressure" in c for c in step.checks))

    def test_forked_python_steps_report_exit_status_output_and_cpu(self):
        """Generators and checkers run in a fork of the soak (Scapy imported once): a failing check must still
        fail, its output must reach the log, and an uncaught exception counts as a failure."""
        cases = {"import sys\nprint('ok')\n": (0, "ok"),
                 "import sys\nprint('bad', file=sys.stderr)\nsys.exit(1)\n": (1, "bad"),
                 "import sys\nsys.exit('usage: wrong')\n": (1, "usage: wrong"),
                 "import sys\nsys.exit(2)\n": (2, ""),
                 "raise ValueError('boom')\n": (1, "ValueError: boom")}
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log.txt")
            for i, (body, (code, text)) in enumerate(cases.items()):
                path = os.path.join(d, f"step{i}.py")
                with open(path, "w") as f:
                    f.write(body)
                self.assertTrue(soak._preforkable([soak.PY, path]))
                rc, cpu, out = soak.execute([soak.PY, path, "--x"], log)
                self.assertEqual(rc, code, body)
                self.assertIn(text, out, body)
                self.assertGreaterEqual(cpu, 0.0)
            rc, _, out = soak.execute(["sh", "-c", "echo plain; exit 3"], log)
            self.assertEqual((rc, out.strip().splitlines()[-1]), (3, "plain"))


if __name__ == "__main__":
    unittest.main()
