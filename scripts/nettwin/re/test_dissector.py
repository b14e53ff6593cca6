"""E2SAR's reassembly header under tshark (scripts/dissectors/e2sar_re.lua) against nettwin.re.check's own parser:
nettwin.re.gen --header e2sar frames (a quarter behind a kept LB v2/v3 header, source ports of several sockets)
must show, for every frame the checker parses, the same event number, data id, offset and event length, and
the LB version when an LB header is in front; no "Lua Error" anywhere.

  cd scripts && /usr/bin/python3 -m unittest nettwin.re.test_dissector
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from nettwin.common.pcap import read_pcap
from nettwin.re.check import parse
from nettwin.re.test_check import e2sar_vector

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(os.path.dirname(HERE))
LUA = os.path.join(SCRIPTS, "dissectors", "e2sar_re.lua")
FIELDS = ["frame.number", "e2sar_re.event_num", "e2sar_re.data_id", "e2sar_re.buffer_offset",
          "e2sar_re.buffer_length", "e2sar_re.lb_version"]


@unittest.skipUnless(shutil.which("tshark"), "needs tshark")
class E2sarDissector(unittest.TestCase):
    def test_every_frame_decodes_as_the_checker_reads_it(self):
        with tempfile.TemporaryDirectory() as d:
            pcap, cfg = e2sar_vector(self, d, 3)
            base = ["tshark", "-r", pcap, "-X", f"lua_script:{LUA}", "-o", "udp.try_heuristic_first:TRUE"]
            p = subprocess.run(base + ["-T", "fields", "-E", "occurrence=f"] + [a for f in FIELDS for a in ("-e", f)],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            v = subprocess.run(base + ["-V"], capture_output=True, text=True)
            text = p.stdout + p.stderr + v.stdout + v.stderr
            self.assertFalse("Lua Error" in text, next((ln for ln in text.splitlines() if "Lua Error" in ln), ""))
            rows = {int(c[0]): c[1:] for c in (ln.split("\t") for ln in p.stdout.splitlines())}
            n = lb = 0
            for i, (fr, _) in enumerate(read_pcap(pcap), 1):
                reason, seg = parse(fr, cfg)
                if reason:
                    continue
                event_num, data_id, off, _, _, ev_end = seg
                row = rows[i] + [""] * len(FIELDS)
                self.assertEqual(row[0:4], [str(event_num), str(data_id), str(off), str(ev_end)], f"frame {i}")
                l4 = 14 + (fr[14] & 0xF) * 4 if fr[12:14] == b"\x08\x00" else 54
                if fr[l4 + 8:l4 + 10] == b"LB":
                    self.assertEqual(row[4], str(fr[l4 + 10]), f"frame {i}")
                    lb += 1
                else:
                    self.assertEqual(row[4], "", f"frame {i}")
                n += 1
            self.assertGreater(n, 100)
            self.assertGreater(lb, 10)


if __name__ == "__main__":
    unittest.main()
