#!/usr/bin/env python3
"""`make synth`: every block's top through Yosys (YoWASP 0.55, synth_xilinx -family xcup, the U280's UltraScale+
family); per block LUTs, FFs, BRAM36 (RAMB18 = 1/2), URAM, DSPs, LUTRAM and the deepest register-to-register path
in logic levels (docs/synthesis.md says exactly how each figure is measured).

    /usr/bin/python3 scripts/synth/synth.py [--elab] [-j N] [--only BLOCK]... [--out build/synth]

--elab: only read + hierarchy -check + proc (ctest rtl_synth_elab, a few seconds a block).
Writes <out>/<block>.json, <out>/<block>.log (Yosys's log), <out>/summary.md and <out>/summary.json.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
YOSYS_MOD = ROOT / ".tools" / "yosys" / "node_modules" / "@yowasp" / "yosys"
RUNNER = ROOT / "scripts" / "synth" / "yosys.mjs"
DEFAULT_EXPECT = ROOT / "scripts" / "synth" / "expected_elab.json"
sys.path.insert(0, str(ROOT / "scripts" / "synth"))
import sv_compat  # noqa: E402  (the same package parser as the codemod)

# Per-level delay used to turn logic levels into a clock (docs/synthesis.md "Logic depth"): one LUT plus the
# typical net to the next LUT on UltraScale+ -2 parts, and the clock-to-out + setup overhead of a register pair.
NS_PER_LEVEL = 0.30
NS_OVERHEAD = 0.40

C = "rtl/common/nt_pkg.sv"
RDMA = [C, "rtl/rdma/rdma_pkg.sv", "rtl/rdma/rdma_parser.sv", "rtl/rdma/rdma_compose.sv", "rtl/rdma/rdma_check.sv",
        "rtl/rdma/rdma_top.sv"]
VNIC = [C, "rtl/vnic/vnic_pkg.sv", "rtl/vnic/vnic_tables.sv", "rtl/vnic/vnic_desc_fifo.sv",
        "rtl/vnic/vnic_frame_buffer.sv", "rtl/vnic/vnic_counters.sv", "rtl/vnic/vnic_store_forward.sv"]
# The RTL tops and their sources, in the order of CMakeLists.txt's *_RTL lists (the tb wrappers left out).
BLOCKS = {
    "lb": ("lb_top", [C, "rtl/lb/lb_pkg.sv", "rtl/common/nt_skid_buffer.sv", "rtl/lb/lb_lookahead.sv",
                      "rtl/lb/lb_parser.sv", "rtl/lb/lb_tables.sv", "rtl/lb/lb_rewrite_calc.sv",
                      "rtl/lb/lb_beat_former.sv", "rtl/lb/lb_top.sv"]),
    "udplb": ("udplb_top", [C, "rtl/lb/udplb_pkg.sv", "rtl/common/nt_skid_buffer.sv", "rtl/lb/lb_lookahead.sv",
                            "rtl/lb/udplb_parser.sv", "rtl/lb/udplb_tables.sv", "rtl/lb/udplb_hdr_calc.sv",
                            "rtl/lb/udplb_beat_former.sv", "rtl/lb/udplb_top.sv"]),
    "rdma": ("rdma_top", RDMA),
    "reorder": ("reorder_top", [C, "rtl/rdma/rdma_pkg.sv", "rtl/reorder/reorder_pkg.sv",
                                "rtl/reorder/reorder_ctrl_gen.sv", "rtl/reorder/reorder_ingress.sv",
                                "rtl/reorder/reorder_top.sv"]),
    "reroute": ("reroute_top", [C, "rtl/rdma/rdma_pkg.sv", "rtl/reorder/reorder_pkg.sv",
                                "rtl/reroute/reroute_pkg.sv", "rtl/reroute/reroute_top.sv"]),
    "vnic_encap": ("vnic_encap_top", VNIC + ["rtl/vnic/vnic_encap_top.sv"]),
    "vnic_decap": ("vnic_decap_top", VNIC + ["rtl/vnic/vnic_decap_top.sv"]),
    "re": ("re_top", [C, "rtl/re/re_pkg.sv", "rtl/re/re_ingress.sv", "rtl/re/re_decide.sv",
                      "rtl/re/re_event_buffer.sv", "rtl/re/re_top.sv"]),
    "naa_ctl": ("naa_ctl", [C, "rtl/rdma/rdma_pkg.sv", "rtl/naa/naa_pkg.sv", "rtl/naa/naa_kernel.sv",
                            "rtl/naa/naa_ctl.sv"]),
    "naa": ("naa_top", RDMA + ["rtl/naa/naa_pkg.sv", "rtl/naa/naa_cm.sv", "rtl/naa/naa_dma_arb.sv",
                               "rtl/naa/naa_req.sv", "rtl/naa/naa_kernel.sv", "rtl/naa/naa_ctl.sv",
                               "rtl/naa/naa_top.sv"]),
}


def nt_params():
    """nt_pkg's localparam statements (text) and their names."""
    text = (ROOT / C).read_text()
    code = sv_compat.blank_noncode(text)
    stmts = [text[m.start():m.end()] for m in re.finditer(r"\blocalparam\b[^;]*;", code)]
    return stmts, sv_compat.param_and_type_names(code)


def yosys_view(rel, nt_stmts, nt_names):
    """The text Yosys reads for rtl file `rel`. Identical to the file, except in a block package (not nt_pkg):
    Yosys 0.55 cannot resolve a pkg::Name reference at package scope (a localparam or typedef of one package
    that uses another's), so nt_pkg's localparams are declared again at the top of the package and its
    nt_pkg::Name references become Name (docs/synthesis.md "One RTL source")."""
    text = (ROOT / rel).read_text()
    if not rel.endswith("_pkg.sv") or rel == C:
        return text
    code = sv_compat.blank_noncode(text)
    own = sv_compat.param_and_type_names(code)
    clash = own & nt_names
    if clash:
        raise SystemExit(f"{rel}: declares {sorted(clash)} which nt_pkg declares too (yosys_view needs them apart)")
    text = re.sub(r"\bnt_pkg::(\w+)", lambda m: m.group(1) if m.group(1) in nt_names else m.group(0), text)
    m = re.search(r"\bpackage\s+\w+\s*;", text)
    return (text[:m.end()] + "\n  // nt_pkg's localparams (synth.py yosys_view)\n  " + "\n  ".join(nt_stmts) +
            "\n" + text[m.end():])


def script(top, files, elab):
    # -noautowire: an undeclared identifier is an error, not a new wire. Yosys 0.55 reads arr[i].field with a loop
    # index i as an undeclared wire named `arr[0].field` (only a warning by default: the netlist would be wrong).
    lines = [f"read_verilog -sv -noautowire -D SYNTHESIS {' '.join(files)}", f"hierarchy -check -top {top}", "proc"]
    if elab:
        lines.append("tee -q -o out/stat.json stat -json")
        return "\n".join(lines) + "\n"
    lines += [
        # memories as Yosys infers them (before mapping): size and read style, for issue 27 item 3
        "flatten", "opt_clean", "memory -nomap",
        "tee -q -o out/mem.txt select -list t:$mem_v2",
        "tee -q -o out/mem.il dump t:$mem_v2",
        f"synth_xilinx -family xcup -top {top}",
        "write_rtlil out/netlist.il",
        "tee -q -o out/stat.json stat -json",
        # deepest path: ltp walks the selected cells between the selected wires' bits; with every wire but only
        # the LUT/MUXF/CARRY cells selected, FFs, block/distributed RAMs, DSPs and ports cut every path
        "tee -q -o out/ltp.txt ltp w:* t:LUT* t:MUXF* t:CARRY*",
    ]
    return "\n".join(lines) + "\n"


def parse_mem(dump):
    """$mem_v2 cells from `dump`: name, width, words, bits, read ports (clocked or not), write ports."""
    mems = []
    for cell in re.split(r"\n(?=\s*cell \$mem_v2 )", dump):
        m = re.search(r"cell \$mem_v2 (\S+)", cell)
        if not m:
            continue
        p = {k: v for k, v in re.findall(r"parameter \\(\w+) (\S+)", cell)}

        def num(v):
            v = v.strip('"')
            if "'" in v:
                return int(v.split("'")[1], 2) if set(v.split("'")[1]) <= {"0", "1"} else 0
            return int(v)
        width, size = num(p.get("WIDTH", "0")), num(p.get("SIZE", "0"))
        rd_clk = p.get("RD_CLK_ENABLE", "0")
        mems.append({"name": m.group(1), "width": width, "words": size, "bits": width * size,
                     "rd_ports": num(p.get("RD_PORTS", "0")), "wr_ports": num(p.get("WR_PORTS", "0")),
                     "rd_clocked": "1" in rd_clk.split("'")[-1]})
    return mems


def parse_ltp(txt):
    m = re.search(r"length=(\d+)", txt)
    path = re.findall(r"^\s*\d+:\s*(\S+)", txt, re.M)
    return (int(m.group(1)) if m else 0), path


def run_block(name, out, elab):
    top, files = BLOCKS[name]
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    (d / "in").mkdir(parents=True)
    stmts, names = nt_params()
    for rel in files:
        (d / "in" / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / "in" / rel).write_text(yosys_view(rel, stmts, names))
    (d / "in" / "run.ys").write_text(script(top, files, elab))
    t0 = time.time()
    with open(out / f"{name}.log", "w") as log:
        rc = subprocess.run(["node", str(RUNNER), str(YOSYS_MOD), str(d / "in"), str(d / "out"), "-s", "run.ys"],
                            stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.time() - t0
    res = {"block": name, "top": top, "rc": rc, "wall_s": round(wall, 1), "mode": "elab" if elab else "synth"}
    if rc != 0:
        err = [ln for ln in (out / f"{name}.log").read_text().splitlines() if "ERROR" in ln]
        res["error"] = err[-1] if err else f"yosys exit {rc}"
        return res
    if elab:
        return res
    stat = json.loads((d / "out" / "stat.json").read_text())
    cells = stat["design"]["num_cells_by_type"] if "design" in stat else {}
    n = lambda *ts: sum(v for k, v in cells.items() if any(k.startswith(t) for t in ts))  # noqa: E731
    res["luts"] = n("LUT")
    res["lutram_cells"] = n("RAM16", "RAM32", "RAM64", "RAM128", "RAM256", "RAM512", "SRL")
    res["ffs"] = n("FD")
    res["bram36"] = n("RAMB36") + 0.5 * n("RAMB18")
    res["uram"] = n("URAM")
    res["dsp"] = n("DSP")
    res["carry8"] = n("CARRY")
    res["muxf"] = n("MUXF")
    levels, path = parse_ltp((d / "out" / "ltp.txt").read_text())
    res["levels"] = levels
    res["path_start"] = path[0] if path else ""
    res["path_end"] = path[-1] if path else ""
    res["fmax_mhz_est"] = round(1000.0 / (NS_OVERHEAD + NS_PER_LEVEL * levels)) if levels else None
    res["memories"] = parse_mem((d / "out" / "mem.il").read_text()) if (d / "out" / "mem.il").exists() else []
    log_text = (out / f"{name}.log").read_text()
    res["mem2reg"] = sorted(set(re.findall(r"Replacing memory (\S+) with list of registers. See (\S+)", log_text)))
    res["cells"] = cells
    return res


def table(results):
    hdr = "| block | top | LUTs | LUTRAM cells | FFs | BRAM36 | URAM | DSP | CARRY8 | levels | est. MHz | synth wall s |"
    rows = [hdr, "|" + "---|" * hdr.count("|")[:-1] if False else "|" + "---|" * (hdr.count("|") - 1)]
    for r in results:
        if r["rc"] != 0 or r["mode"] == "elab":
            rows.append(f"| {r['block']} | {r['top']} | " + (r.get("error", "elaboration ok")) + f" | | | | | | | | | {r['wall_s']} |")
            continue
        rows.append(f"| {r['block']} | {r['top']} | {r['luts']} | {r['lutram_cells']} | {r['ffs']} | {r['bram36']:g} | "
                    f"{r['uram']} | {r['dsp']} | {r['carry8']} | {r['levels']} | {r['fmax_mhz_est']} | {r['wall_s']} |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--elab", action="store_true", help="read + hierarchy -check + proc only")
    ap.add_argument("-j", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", choices=sorted(BLOCKS))
    ap.add_argument("--out", default=str(ROOT / "build" / "synth"))
    ap.add_argument("--expect", help="JSON {block: 'ok' | text of its known first Yosys error}: exit 1 unless every "
                                     "block does exactly that (ctest rtl_synth_elab; a block that starts to "
                                     "elaborate must be marked 'ok' there, one that stops is a regression)")
    a = ap.parse_args()
    if not (YOSYS_MOD / "gen" / "bundle.js").exists():
        print(f"synth: {YOSYS_MOD} missing: run scripts/setup.sh (make setup) first", file=sys.stderr)
        return 77
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    names = a.only or list(BLOCKS)
    expect = json.loads(pathlib.Path(a.expect or DEFAULT_EXPECT).read_text())
    # blocks marked "skip: why" there are left out (also of `make synth`) unless named with --only
    skipped = [n for n in names if expect.get(n, "").startswith("skip") and not a.only]
    for n in skipped:
        print(f"synth: {n:<11} skipped: {expect[n]}")
    names = [n for n in names if n not in skipped]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        futs = {ex.submit(run_block, n, out, a.elab): n for n in names}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results[r["block"]] = r
            (out / f"{r['block']}.json").write_text(json.dumps(r, indent=1) + "\n")
            st = "ok" if r["rc"] == 0 else "FAIL " + r.get("error", "")
            extra = "" if a.elab or r["rc"] else f" LUT {r['luts']} FF {r['ffs']} BRAM36 {r['bram36']:g} levels {r['levels']}"
            print(f"synth: {r['block']:<11} {r['mode']:<5} {st}{extra} ({r['wall_s']} s)", flush=True)
    ordered = [results[n] for n in names]
    summary = table(ordered)
    print(summary)
    if not a.elab:
        (out / "summary.md").write_text(summary + "\n")
        (out / "summary.json").write_text(json.dumps(ordered, indent=1) + "\n")
    if a.expect:
        bad = []
        for r in ordered:
            want = expect.get(r["block"], "ok")
            got = "ok" if r["rc"] == 0 else re.sub(r":\d+: ", ": ", r.get("error", ""))
            if (want == "ok") != (got == "ok") or (want != "ok" and want not in got):
                bad.append(f"{r['block']}: expected {want!r}, got {got!r}")
        for b in bad:
            print("synth: UNEXPECTED " + b)
        print(f"synth: {sum(r['rc'] == 0 for r in ordered)} of {len(ordered)} blocks elaborate; "
              f"{len(bad)} differ from {a.expect}")
        return 1 if bad else 0
    return 0 if all(r["rc"] == 0 for r in ordered) else 1


if __name__ == "__main__":
    sys.exit(main())
