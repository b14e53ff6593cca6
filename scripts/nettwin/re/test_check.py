"""re_check's exactly-once rule (issue 15, found by the random-configuration soak): with a short timeout_us, a
late copy of a one-segment event arrives after the completed context's hold (docs/re.md "Completion") and
completes the event again, as documented; re_check called every second completion a failure.
- the rule: a second completion is accepted only after the first context's hold expired;
- with a built nettwin (NT_BUILD, default ../build), the soak's failing run (seed 1009, timeout_us 28)
  replays in lockstep, really completes an event twice, and passes.
Also: E2SAR's frames as nettwin.re.gen makes them, decoded by Scapy (E2SARRE, nettwin/re/layers.py), give the
fields nettwin.re.check's own byte parser reads (two independent readings of the header).

  cd scripts && /usr/bin/python3 -m unittest nettwin.re.test_check
"""
import json
import os
import subprocess
import tempfile
import unittest

from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether

from nettwin.common.pcap import read_pcap
from nettwin.re.check import Fail, parse, twice_in_hold
from nettwin.re.layers import E2SARRE
from nettwin.common.paths import export_pythonpath  # noqa: E402

export_pythonpath()  # the tools they run are python3 -m nettwin.<block>.<tool>

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("NT_BUILD", os.path.join(os.path.dirname(SCRIPTS), "build"))
PY = "/usr/bin/python3"


class TwiceInHoldTest(unittest.TestCase):
    def test_second_completion_after_the_hold_is_accepted(self):
        seen = {}
        twice_in_hold(seen, (1, 2), 1_000, 28_000, 28)
        twice_in_hold(seen, (1, 2), 1_000 + 28_001, 28_000, 28)  # opened 1 ns after the hold ended
        self.assertEqual(seen[(1, 2)], 29_001)

    def test_second_completion_within_the_hold_fails(self):
        seen = {}
        twice_in_hold(seen, (1, 2), 1_000, 28_000, 28)
        with self.assertRaisesRegex(Fail, "completed twice within the 28 us hold"):
            twice_in_hold(seen, (1, 2), 1_000 + 28_000, 28_000, 28)  # expiry needs now - first > timeout

    def test_other_keys_are_independent(self):
        seen = {}
        twice_in_hold(seen, (1, 2), 5, 10, 0.01)
        twice_in_hold(seen, (1, 3), 6, 10, 0.01)
        twice_in_hold(seen, (2, 2), 7, 10, 0.01)


def e2sar_vector(test, d, seed):
    """nettwin.re.gen --header e2sar's vector in d: its segments.pcap and the checker's configuration for it."""
    r = subprocess.run([PY, "-m", "nettwin.re.gen", "--seed", str(seed), "--out-dir", d, "--header", "e2sar"],
                       capture_output=True, text=True)
    test.assertEqual(r.returncode, 0, r.stderr)
    return f"{d}/segments.pcap", {"header": "e2sar", "version": 1, "lb_header": "skip"}


class E2sarLayerAgreesWithTheChecker(unittest.TestCase):
    def test_scapy_and_check_parse_read_the_same_fields(self):
        with tempfile.TemporaryDirectory() as d:
            pcap, cfg = e2sar_vector(self, d, 5)
            n = behind_lb = 0
            for fr, _ in read_pcap(pcap):
                reason, seg = parse(fr, cfg)
                if reason:
                    continue
                payload = bytes(Ether(fr)[UDP].payload)
                if payload[:2] == b"LB":
                    payload, behind_lb = payload[16:], behind_lb + 1
                h = E2SARRE(payload[:20])
                self.assertEqual((h.event_num, h.data_id, h.buffer_offset, payload[20:], True, h.buffer_length),
                                 tuple(seg))
                self.assertEqual((h.version, h.rsvd, h.rsvd2), (1, 0, 0))
                n += 1
            self.assertGreater(n, 100)
            self.assertGreater(behind_lb, 10)


@unittest.skipUnless(os.access(os.path.join(BUILD, "nettwin"), os.X_OK), "needs a built nettwin (NT_BUILD)")
class SoakReplay(unittest.TestCase):
    def test_late_copy_after_the_hold_completes_again_and_passes(self):
        with tempfile.TemporaryDirectory() as d:
            def run(*args):
                r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            run(PY, "-m", "nettwin.re.gen", "--seed", 1009, "--out-dir", d, "--events", 56)
            with open(f"{d}/re.txt", "w") as f:
                f.write("contexts 4\nbuffer_bytes 2500\ntimeout_us 28\n")
            run(f"{BUILD}/nettwin", "re", "--engine", "lockstep", "--config", f"{d}/re.txt", "--in",
                f"{d}/segments.pcap", "--out", f"{d}/ev.pcap", "--report", f"{d}/rep.json", "--seed", 100903,
                "--gaps", 0.57, "--backpressure", 0.15)
            with open(f"{d}/rep.json") as f:
                keys = [(e["tick16"], e["data_id"]) for e in json.load(f)["events"]]
            self.assertLess(len(set(keys)), len(keys), "the vector no longer completes an event twice")
            run(PY, "-m", "nettwin.re.check", "--dir", d, "--events", f"{d}/ev.pcap", "--report", f"{d}/rep.json")


if __name__ == "__main__":
    unittest.main()
