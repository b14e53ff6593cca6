"""Unit test of yosys.mjs's patch of YoWASP's in-memory file system (ctest synth_depth_unit): the installed
bundle still has the pattern the patch replaces (a YoWASP upgrade that changes it is reported here, not as a slow
module run), and a design run through ABC and written out gives byte-identical files with and without the patch.

    cd scripts/synth && /usr/bin/python3 -m unittest test_yosys_fs
"""
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

import synth

# A few hundred cells: enough for abc's input.blif and the written netlists to take many writes each.
DESIGN = r'''
module t (input logic clk_i, input logic [63:0] a_i, b_i, output logic [63:0] y_o);
  logic [63:0] q;
  always_ff @(posedge clk_i) q <= (a_i * 3) ^ (b_i + a_i) ^ {a_i[31:0], b_i[63:32]};
  assign y_o = q;
endmodule
'''
SCRIPT = "\n".join([
    "read_verilog -sv t.sv", "synth -top t", "abc -lut 6", "opt_clean",
    "write_verilog -noattr out/t.v", "write_blif out/t.blif", "tee -q -o out/stat.txt stat", ""])


def run(env_extra):
    with tempfile.TemporaryDirectory() as d:
        ind, outd = pathlib.Path(d) / "in", pathlib.Path(d) / "out"
        ind.mkdir()
        (ind / "t.sv").write_text(DESIGN)
        (ind / "run.ys").write_text(SCRIPT)
        env = dict(os.environ, **env_extra)
        p = subprocess.run(["node", str(synth.RUNNER), str(synth.YOSYS_MOD), str(ind), str(outd), "-s", "run.ys"],
                           env=env, capture_output=True, text=True, timeout=600)
        files = {f.name: f.read_bytes() for f in outd.iterdir()} if outd.exists() else {}
        return p.returncode, p.stderr, files


@unittest.skipUnless(shutil.which("node") and (synth.YOSYS_MOD / "gen" / "bundle.js").exists(),
                     "YoWASP Yosys not installed (scripts/setup.sh installs it into .tools/)")
class YosysFsPatch(unittest.TestCase):
    def test_same_files_with_and_without_the_patch(self):
        rc, err, patched = run({})
        self.assertEqual(rc, 0, err)
        self.assertNotIn("pattern not found", err)  # the patch applied to the installed bundle
        rc, err, plain = run({"NT_YOSYS_UNPATCHED": "1"})
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(patched), ["stat.txt", "t.blif", "t.v"])
        for name in plain:
            self.assertEqual(patched[name], plain[name], name)
        self.assertIn(b"$lut", patched["stat.txt"])  # abc ran (its input.blif and output went through the FS)


if __name__ == "__main__":
    unittest.main()
