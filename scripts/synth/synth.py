#!/usr/bin/env python3
"""`make synth`: every block's top through Yosys (YoWASP 0.55, synth_xilinx -family xcup -nowidelut, the U280's
UltraScale+ family, LUT6 only; --widelut for LUT7-9 from MUXF7/8/9); per block LUTs, FFs, BRAM36 (RAMB18 = 1/2),
URAM, DSPs, LUTRAM and the deepest register-to-register path in logic levels (docs/synthesis.md says exactly how
each figure is measured).

    /usr/bin/python3 scripts/synth/synth.py [--elab] [-j N] [--only BLOCK]... [--out build/synth]

--elab: only read + hierarchy -check + proc (ctest rtl_synth_elab); a block marked "parse: why" in
expected_elab.json gets read + hierarchy -check only there (its proc takes minutes), unless named with --only.
Writes <out>/<block>.json, <out>/<block>.log (Yosys's log), <out>/summary.md and <out>/summary.json.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
YOSYS_MOD = ROOT / ".tools" / "yosys" / "node_modules" / "@yowasp" / "yosys"
RUNNER = ROOT / "scripts" / "synth" / "yosys.mjs"
DEFAULT_EXPECT = ROOT / "scripts" / "synth" / "expected_elab.json"
import sv_compat  # noqa: E402  (beside this file, on sys.path[0]; the same package parser as the codemod)
import depth  # noqa: E402  (beside this file too)

# Per-level delay used to turn logic levels into a clock (docs/synthesis.md "Logic depth"): one LUT plus the
# typical net to the next LUT on UltraScale+ -2 parts, and the clock-to-out + setup overhead of a register pair.
NS_PER_LEVEL = 0.30
NS_OVERHEAD = 0.40

C = "rtl/common/nt_pkg.sv"
ICRC = ["rtl/common/nt_crc_pkg.sv", "rtl/rdma/rdma_crc_pkg.sv"]  # rdma_pkg's ICRC matrices (CMake NT_ICRC_RTL)
RDMA = [C, *ICRC, "rtl/rdma/rdma_pkg.sv", "rtl/rdma/rdma_parse_pre.sv", "rtl/rdma/rdma_parser.sv", "rtl/rdma/rdma_compose.sv", "rtl/rdma/rdma_check.sv", "rtl/rdma/rdma_slot_div.sv",
        "rtl/rdma/rdma_top.sv"]
VNIC = [C, "rtl/common/nt_crc_pkg.sv", "rtl/vnic/vnic_pkg.sv", "rtl/vnic/vnic_tables.sv", "rtl/vnic/vnic_desc_fifo.sv",
        "rtl/vnic/vnic_frame_buffer.sv", "rtl/vnic/vnic_counters.sv", "rtl/vnic/vnic_store_forward.sv",
        "rtl/vnic/vnic_in_reg.sv"]
# The RTL tops and their sources, in the order of CMakeLists.txt's *_RTL lists (the tb wrappers left out).
BLOCKS = {
    "lb": ("lb_top", [C, "rtl/common/nt_csum_pkg.sv", "rtl/lb/lb_pkg.sv", "rtl/common/nt_skid_buffer.sv", "rtl/lb/lb_lookahead.sv",
                      "rtl/lb/lb_parser.sv", "rtl/lb/lb_tables.sv", "rtl/lb/lb_rewrite_calc.sv",
                      "rtl/lb/lb_beat_former.sv", "rtl/lb/lb_top.sv"]),
    "udplb": ("udplb_top", [C, "rtl/common/nt_csum_pkg.sv", "rtl/lb/udplb_pkg.sv", "rtl/common/nt_skid_buffer.sv", "rtl/lb/lb_lookahead.sv",
                            "rtl/lb/udplb_parse_pre.sv", "rtl/lb/udplb_l4_slice.sv", "rtl/lb/udplb_l4_verdict.sv", "rtl/lb/udplb_parser.sv", "rtl/lb/udplb_beat_matrix.sv", "rtl/lb/udplb_step_and3.sv", "rtl/lb/udplb_step_ao3.sv", "rtl/lb/udplb_step_or6.sv", "rtl/lb/udplb_ao_rows.sv", "rtl/lb/udplb_prio_lookup.sv", "rtl/lb/udplb_tables.sv", "rtl/lb/udplb_csa_level.sv",
                            "rtl/lb/udplb_csum_tree.sv", "rtl/lb/udplb_hdr_pre.sv", "rtl/lb/udplb_hdr_sum.sv",
                            "rtl/lb/udplb_hdr_calc.sv",
                            "rtl/lb/udplb_beat_former.sv", "rtl/lb/udplb_top.sv"]),
    "rdma": ("rdma_top", RDMA),
    "reorder": ("reorder_top", [C, *ICRC, "rtl/common/nt_csum_pkg.sv", "rtl/rdma/rdma_pkg.sv", "rtl/reorder/reorder_pkg.sv",
                                "rtl/reorder/reorder_ctrl_gen.sv", "rtl/reorder/reorder_ingress.sv",
                                "rtl/reorder/reorder_top.sv"]),
    "reroute": ("reroute_top", [C, *ICRC, "rtl/rdma/rdma_pkg.sv", "rtl/reorder/reorder_pkg.sv",
                                "rtl/reroute/reroute_pkg.sv", "rtl/reroute/reroute_top.sv"]),
    "vnic_encap": ("vnic_encap_top", VNIC + ["rtl/vnic/vnic_encap_top.sv"]),
    "vnic_decap": ("vnic_decap_top", VNIC + ["rtl/vnic/vnic_decap_top.sv"]),
    "re": ("re_top", [C, "rtl/re/re_pkg.sv", "rtl/re/re_ingress.sv", "rtl/re/re_decide_chk.sv",
                      "rtl/re/re_lookup_ctx.sv", "rtl/re/re_lookup_hit.sv",
                      "rtl/re/re_decide.sv",
                      "rtl/re/re_event_buffer.sv", "rtl/re/re_top.sv"]),
    "naa_ctl": ("naa_ctl", [C, *ICRC, "rtl/rdma/rdma_pkg.sv", "rtl/naa/naa_pkg.sv", "rtl/naa/naa_kernel.sv",
                            "rtl/naa/naa_ctl.sv"]),
    "naa": ("naa_top", RDMA + ["rtl/naa/naa_pkg.sv", "rtl/naa/naa_cm.sv", "rtl/naa/naa_dma_arb.sv",
                               "rtl/naa/naa_xor6_level.sv", "rtl/naa/naa_or6_level.sv", "rtl/naa/naa_mux4_level.sv",
                               "rtl/naa/naa_req_tx_out.sv", "rtl/naa/naa_req.sv",
                               "rtl/naa/naa_kernel.sv", "rtl/naa/naa_ctl.sv", "rtl/naa/naa_top.sv"]),
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


# The port-group macros (rtl/common/nt_ports.svh) are included from rtl/common, staged beside the sources.
INCLUDE_DIR = "rtl/common"
READ = f"read_verilog -sv -noautowire -D SYNTHESIS -I {INCLUDE_DIR}"


def script(top, files, elab, parse_only=False):
    # -noautowire: an undeclared identifier is an error, not a new wire. Yosys 0.55 reads arr[i].field with a loop
    # index i as an undeclared wire named `arr[0].field` (only a warning by default: the netlist would be wrong).
    lines = [f"{READ} {' '.join(files)}", f"hierarchy -check -top {top}"]
    if not parse_only:
        lines.append("proc")
    if elab:
        lines.append("tee -q -o out/stat.json stat -json")
        return "\n".join(lines) + "\n"
    lines += [
        # memories as Yosys infers them (before mapping): size and read style, for issue 27 item 3
        "flatten", "opt_clean", "memory -nomap",
        "tee -q -o out/mem.txt select -list t:$mem_v2",
        "tee -q -o out/mem.il dump t:$mem_v2",
        f"synth_xilinx -family xcup {LUT_MAP[lut_map]} -top {top}",
        "write_rtlil out/netlist.il",
        "tee -q -o out/stat.json stat -json",
        # deepest path: ltp walks the selected cells between the selected wires' bits; with every wire but only
        # the LUT/MUXF/CARRY cells selected, FFs, block/distributed RAMs, DSPs and ports cut every path
        "tee -q -o out/ltp.txt ltp w:* t:LUT* t:MUXF* t:CARRY*",
    ]
    return "\n".join(lines) + "\n"


def yosys(ind, outd, log, timeout):
    """Runs YoWASP Yosys on script run.ys in `ind`; returns its exit code, or None after `timeout` s (the whole
    process group is killed then, so a module that does not finish is reported, never waited for)."""
    return run_killable(["node", str(RUNNER), str(YOSYS_MOD), str(ind), str(outd), "-s", "run.ys"], log, timeout)


def run_killable(cmd, log, timeout, cwd=None, note=None):
    """`cmd` with its output appended to `log`; its exit code, or None after `timeout` s (its whole process group
    killed)."""
    with open(log, "a") as lf:
        if note:
            lf.write(note + "\n")
            lf.flush()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=lf, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return None


RTLIL_BEGIN, RTLIL_END = "NT_RTLIL_BEGIN", "NT_RTLIL_END"


def rtlil_to_stdout():
    """Script lines writing the design as RTLIL to stdout (the log) between markers; split_rtlil() then moves it
    to its file. Not `write_rtlil FILE`: a file in YoWASP's virtual file system grows by copying itself on every
    write, so the time is quadratic in its size (7.4 MB: 17 s against 5 s to stdout; reroute_top's mapped
    netlist ran for 15+ minutes, and its JSON, and udplb_top's, for over an hour)."""
    return [f"log {RTLIL_BEGIN}", "write_rtlil", f"log {RTLIL_END}"]


def split_rtlil(log, dest):
    """Moves the RTLIL text a Yosys run wrote to stdout between the markers out of `log` into `dest`; False if
    the markers or the text are not there."""
    lines = log.read_text().splitlines(keepends=True)
    try:
        b = max(i for i, ln in enumerate(lines) if ln.strip() == RTLIL_BEGIN)
        e = next(i for i in range(b, len(lines)) if lines[i].strip() == RTLIL_END)
        g = next(i for i in range(b, e) if lines[i].startswith("# Generated by Yosys"))
    except (ValueError, StopIteration):
        return False
    body = lines[g:e]
    while body and not body[-1].strip():
        body.pop()
    dest.write_text("".join(body))
    log.write_text("".join(lines[:g] + [f"(RTLIL, {len(body)} lines, moved to {dest.name})\n"] + lines[e:]))
    return True


def drop_specify(il):
    """RTLIL text without its $specify2/$specify3/$specrule cells (with their attribute lines): the timing
    checks of the cell library's models, which 0.23 cannot parse (`32'sx`) and depth.py never reads (it needs
    the cells' port directions only), and with the sign flag of signed parameter values dropped (0.23 cannot
    parse `32's1...` either)."""
    out, skip = [], False
    for ln in il.splitlines(keepends=True):
        s = ln.strip()
        if skip:
            skip = s != "end"
            continue
        if s.startswith("cell $spec"):
            skip = True
            while out and out[-1].strip().startswith("attribute "):
                out.pop()
            continue
        if s.startswith("parameter "):
            # a signed parameter value (`parameter \RdOff 32's111...`, an `int` parameter of a paramod module)
            # is also 0.55's syntax that 0.23 rejects; its sign does not matter to a netlist's connections
            ln = re.sub(r"(\d+)'s([01xzm-])", r"\1'\2", ln)
        out.append(ln)
    return "".join(out)


def json_netlist(d, log, timeout):
    """The mapped netlist (out/mapped.il, Yosys 0.55's RTLIL) as JSON for depth.py. A format conversion only: by
    Debian's native yosys where installed (0.23 reads 0.55's RTLIL of a mapped netlist; on lb_top: 1 s against
    9 s in WebAssembly, and depth.py gives the same figures on both JSON files), else by YoWASP Yosys."""
    native = shutil.which("yosys") if os.environ.get("NT_SYNTH_NATIVE_JSON", "1") != "0" else None
    if native:
        nospec = d / "out" / "mapped_nospec.il"
        nospec.write_text(drop_specify((d / "out" / "mapped.il").read_text()))
        rc = run_killable([native, "-q", "-p", f"read_rtlil {nospec.name}; write_json netlist.json"], log,
                          timeout, cwd=d / "out",
                          note=f"json_netlist: {native} read_rtlil out/{nospec.name}; write_json out/netlist.json")
        nospec.unlink()  # a copy of mapped.il (which --resume keeps) less its timing cells
        return rc
    (d / "in3").mkdir(exist_ok=True)
    shutil.copy(d / "out" / "mapped.il", d / "in3" / "mapped.il")
    (d / "in3" / "run.ys").write_text("read_rtlil mapped.il\nwrite_json out/netlist.json\n")
    return yosys(d / "in3", d / "out", log, timeout)


def stage_inputs(d, files):
    """The block's sources as Yosys reads them (yosys_view), under d/in."""
    shutil.rmtree(d, ignore_errors=True)
    (d / "in").mkdir(parents=True)
    stmts, names = nt_params()
    for rel in files:
        (d / "in" / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / "in" / rel).write_text(yosys_view(rel, stmts, names))
    for hdr in sorted((ROOT / INCLUDE_DIR).glob("*.svh")):
        (d / "in" / INCLUDE_DIR).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(hdr, d / "in" / INCLUDE_DIR / hdr.name)


def cell_counts(cells):
    n = lambda *ts: sum(v for k, v in cells.items() if any(k.startswith(t) for t in ts))  # noqa: E731
    return {"luts": n("LUT"), "lutram_cells": n("RAM16", "RAM32", "RAM64", "RAM128", "RAM256", "RAM512", "SRL"),
            "ffs": n("FD"), "bram36": n("RAMB36") + 0.5 * n("RAMB18"), "uram": n("URAM"), "dsp": n("DSP"),
            "carry": n("CARRY"), "muxf": n("MUXF")}


FINISHED = ("netlist.json", "stat.json", "ltp.txt", "mem.il")  # a module run's out/ files once it finished
RES_KEYS = ("luts", "lutram_cells", "ffs", "bram36", "uram", "dsp", "carry", "muxf")
# LUT mapping (docs/synthesis.md "LUT mapping: LUT6 only"): by default `-nowidelut`, so ABC maps to LUT1..LUT6
# only. With wide LUTs (synth_xilinx's own default) ABC's LUT library gives a LUT7/LUT8/LUT9, built from a LUT6
# and MUXF7/MUXF8/MUXF9 cells, the delay of one LUT, and its depth-optimal mapping then builds cascades that the
# measure (one level a LUT, MUXF or CARRY cell) counts as 2-4 levels each. Without them ABC's unit-delay model and
# the measure are the same count. `--widelut` restores synth_xilinx's default (the figures before session 23).
LUT_MAP = {"nowidelut": "-nowidelut", "widelut": ""}
lut_map = "nowidelut"


def synth_cmd(top, run=None):
    """synth_xilinx for the U280's family with this run's LUT mapping (and `-run run` when given)."""
    flags = " ".join(f for f in ("-family xcup -noiopad -noclkbuf", LUT_MAP[lut_map]) if f)
    return f"synth_xilinx {flags} -top {top}" + (f" -run {run}" if run else "")


def module_fingerprints(elab_il):
    """{module: text} of an elaborated block (out/elab.il) in a form that is equal for two runs exactly when the
    module's own logic is: `attribute \\src` lines dropped and Yosys's automatic names (which carry source lines
    and a counter global to the whole read, so they move when any other module changes) renamed in order of first
    appearance within the module. A module is synthesized alone with its children as blackboxes (run_module), so
    its figures depend only on this text: `--reuse` takes them from an earlier run when the texts are equal."""
    mods, cur, ids = {}, None, {}
    for ln in pathlib.Path(elab_il).read_text().splitlines():
        st = ln.strip()
        if st.startswith("module "):
            cur, ids = st.split()[1], {}
            mods[cur] = []
            continue
        if cur is None or st.startswith("attribute \\src "):
            continue
        if st == "end" and not ln.startswith(" "):
            cur = None
            continue
        toks = []
        for t in st.split():
            if t.startswith("$") and not t.startswith("$paramod") and ("$" in t[1:] or "\\" in t):
                t = ids.setdefault(t, f"$id{len(ids)}")
            toks.append(t)
        mods[cur].append(" ".join(toks))
    return {m: "\n".join(v) for m, v in mods.items()}


def mapped_with(d):
    """The LUT mapping a module run's files in `d` were made with (its out/lut_map.txt; none: the wide-LUT mapping,
    the only one before the file was written)."""
    f = d / "out" / "lut_map.txt"
    return f.read_text().strip() if f.exists() else "widelut"


def reuse_module(block_dir, mod, reuse, fps):
    """Copies module `mod`'s finished run from the first of the `reuse` output directories whose elaborated text
    of it equals this run's (module_fingerprints) and whose LUT mapping is this run's; returns (that directory,
    True), or None. Failing that, a run there of the same text mapped with the other LUT mapping lends its coarse
    netlist (the first Yosys run, which the mapping does not touch): copied, it returns (directory, False) and
    run_module runs only the second Yosys run (the mapping) again."""
    def texts(block):
        if block not in fps:
            fps[block] = module_fingerprints(block / "out" / "elab.il")
        return fps[block]
    name = block_dir.name
    mine = texts(block_dir).get(mod)
    sub = pathlib.Path("mod") / re.sub(r"[^A-Za-z0-9_.=-]+", "_", mod.lstrip("\\$"))[:120]
    if mine is None:
        return None
    for full in (True, False):
        for r in reuse:
            src = pathlib.Path(r) / name
            if not (src / "out" / "elab.il").exists():
                continue
            if full and not (mapped_with(src / sub) == lut_map and all(
                    (src / sub / "out" / f).exists() for f in FINISHED)):
                continue  # figures of another LUT mapping are not this run's
            if not full and not ((src / sub / "in2" / "coarse.il").exists() and (src / sub / "out" / "mem.il").exists()):
                continue
            if texts(src).get(mod) == mine:
                shutil.rmtree(block_dir / sub, ignore_errors=True)
                shutil.copytree(src / sub, block_dir / sub)
                return str(r), full
    return None


def run_module(block_dir, mod, box_bits, timeout, resume=False, reuse=(), fps=None):
    """One module of a block on its own: its children are blackboxes (their ports cut its paths), memories of
    `box_bits` bits or more that are still memories after the coarse passes become `$__NT_MEMBOX` cells (kept,
    unmapped: a cut, as the block RAM or URAM they must become would be; their size is reported), then the rest
    of synth_xilinx, stat, ltp and the JSON netlist that depth.py reads. Two Yosys runs (the boxing decision
    needs the memories as the coarse passes leave them)."""
    d = block_dir / "mod" / re.sub(r"[^A-Za-z0-9_.=-]+", "_", mod.lstrip("\\$"))[:120]
    reused, reused_full = (reuse_module(block_dir, mod, reuse, fps if fps is not None else {}) if reuse else
                           None) or (None, False)
    if (resume or reused_full) and mapped_with(d) == lut_map and all(
            (d / "out" / f).exists() for f in FINISHED):
        # a previous run finished this module: its figures again from its files (wall time from the file times)
        mems = parse_mem((d / "out" / "mem.il").read_text())
        res = {"module": mod, "dir": str(d.relative_to(block_dir.parent)), "memories": mems,
               "boxed": [m for m in mems if box_bits and m["bits"] >= box_bits], "resumed": True,
               **({"reused_from": reused} if reused else {}),
               "wall_s": round((d / "out" / "netlist.json").stat().st_mtime -
                               (d / "in" / "elab.il").stat().st_mtime, 1)}
        return module_result(res, d, mod)
    log = d / "yosys.log"
    res = {"module": mod, "dir": str(d.relative_to(block_dir.parent))}
    t0 = time.time()
    # --resume after a run whose first Yosys run finished (the coarse netlist and its memories written) but not
    # the second (a timeout, or the process stopped): only the second runs again
    coarse = [c for c in (d / "out" / "coarse.il", d / "in2" / "coarse.il") if c.exists()]
    if resume and (d / "out" / "mapped.il").exists() and (d / "out" / "ltp.txt").exists() and mapped_with(d) == lut_map:
        # mapped and measured: only the JSON netlist is missing
        rc = 0
        res["resumed_stage"] = 3
        run_stage2 = None
    elif (resume or reused) and coarse and (d / "out" / "mem.il").exists():
        rc = 0
        res["resumed_stage"] = 2
        if reused:
            res["reused_from"] = reused  # its coarse netlist; the mapping runs here
        run_stage2 = True
    else:
        run_stage2 = False
        shutil.rmtree(d, ignore_errors=True)
        (d / "in").mkdir(parents=True)
        shutil.copy(block_dir / "out" / "elab.il", d / "in" / "elab.il")
    (d / "in").mkdir(parents=True, exist_ok=True)
    (d / "in" / "run.ys").write_text("\n".join([
        "read_rtlil elab.il", f"hierarchy -top {mod}", "blackbox A:top %n",
        # synth_xilinx's prepare step without its `check` (which ran for 15+ minutes on re_decide and only
        # reports); the final `check` label is left out below for the same reason
        synth_cmd(mod, "begin:prepare"),
        "proc", "tribuf -logic", "deminout", "opt_expr", "opt_clean", "opt -nodffe -nosdff", "fsm", "opt",
        "wreduce", "peepopt", "opt_clean", "pmux2shiftx", "clean",
        synth_cmd(mod, "map_dsp:map_memory"),
        *rtlil_to_stdout(), "tee -q -o out/mem.il dump t:$mem_v2", ""]))
    if run_stage2 is False:
        rc = yosys(d / "in", d / "out", log, timeout)
        if rc == 0 and not split_rtlil(log, d / "out" / "coarse.il"):
            rc = 1
    mems = parse_mem((d / "out" / "mem.il").read_text()) if rc == 0 else []
    boxed = [m for m in mems if box_bits and m["bits"] >= box_bits]
    res["memories"] = mems
    res["boxed"] = boxed
    if rc == 0 and run_stage2 is not None:
        for f in ("netlist.json", "lut_map.txt"):  # a mapping of an earlier run (another LUT mapping) goes
            (d / "out" / f).unlink(missing_ok=True)
        (d / "in2").mkdir(exist_ok=True)
        if (d / "out" / "coarse.il").exists():
            shutil.move(str(d / "out" / "coarse.il"), d / "in2" / "coarse.il")
        sel = " ".join(f"t:$mem_v2 r:WIDTH={w} %i r:SIZE={n} %i" + (" %u" if i else "")
                       for i, (w, n) in enumerate(sorted({(m["width"], m["words"]) for m in boxed})))
        (d / "in2" / "run.ys").write_text("\n".join([
            "read_rtlil coarse.il"] + ([f"chtype -set $__NT_MEMBOX {sel}"] if boxed else []) + [
            synth_cmd(mod, "map_memory:check"),
            "blackbox =A:whitebox",  # the one step of the check label the JSON backend needs (cell library models)
            "tee -q -o out/stat.json stat -json",
            # logged as well: the figure survives in yosys.log if a later step does not finish
            "tee -o out/ltp.txt ltp w:* t:LUT* t:MUXF* t:CARRY*",
            # the mapped netlist (rtlil_to_stdout); the JSON netlist is written by a third step (json_netlist)
            *rtlil_to_stdout(), ""]))
        left = timeout - (time.time() - t0)
        rc = yosys(d / "in2", d / "out", log, left) if left > 0 else None
        if rc == 0:
            rc = 0 if split_rtlil(log, d / "out" / "mapped.il") else 1
        if rc == 0:
            (d / "out" / "lut_map.txt").write_text(lut_map + "\n")
    if rc == 0 and not (d / "out" / "netlist.json").exists():
        left = timeout - (time.time() - t0)
        rc = json_netlist(d, log, left) if left > 0 else None
    res["wall_s"] = round(time.time() - t0, 1)
    if rc is None:
        res["status"] = "timeout"
        return res
    if rc != 0:
        err = [ln for ln in log.read_text().splitlines() if "ERROR" in ln]
        res["status"] = "error"
        res["error"] = err[-1] if err else f"yosys exit {rc}"
        return res
    return module_result(res, d, mod)


def module_result(res, d, mod):
    """A finished module's figures from its files (stat, ltp, memories); also the `--resume` path."""
    stat = json.loads((d / "out" / "stat.json").read_text())["modules"]
    cells = (stat.get(mod) or stat.get("\\" + mod))["num_cells_by_type"]
    res["status"] = "ok"
    res.update(cell_counts(cells))
    res["cells"] = cells
    res["ltp_levels"] = parse_ltp((d / "out" / "ltp.txt").read_text())[0]
    res["lut_map"] = mapped_with(d)
    (d / "result.json").write_text(json.dumps(res, indent=1) + "\n")
    return res


def instance_counts(netlists, top):
    """How many times each module is instantiated under `top` (top: 1), from the modules' JSON netlists."""
    counts = collections.Counter()

    def walk(m, k):
        counts[m] += k
        for cell in (netlists.get(m, {}).get("cells") or {}).values():
            if cell["type"] in netlists:
                walk(cell["type"], k)
    walk(top, 1)
    return counts


def run_block_per_module(name, out, box_bits, timeout, jobs, only=None, resume=False, reuse=()):
    top, files = BLOCKS[name]
    d = out / name
    res = {"block": name, "top": top, "mode": "per-module", "box_mem_bits": box_bits}
    t0 = time.time()
    log = out / f"{name}.log"
    if resume and (d / "out" / "modules.txt").exists():
        return per_module_runs(res, d, out, log, t0, box_bits, timeout, jobs, only, resume, reuse)
    stage_inputs(d, files)
    (d / "in" / "run.ys").write_text("\n".join([
        f"{READ} {' '.join(files)}", f"hierarchy -check -top {top}", "proc",
        *rtlil_to_stdout(), "tee -q -o out/modules.txt ls", ""]))
    log.write_text("")
    rc = yosys(d / "in", d / "out", log, timeout)
    if rc == 0 and not split_rtlil(log, d / "out" / "elab.il"):
        rc = 1
    res["elab_s"] = round(time.time() - t0, 1)
    if rc != 0:
        res["rc"] = 1
        res["error"] = "elaboration timeout" if rc is None else next(
            (ln for ln in reversed(log.read_text().splitlines()) if "ERROR" in ln), f"yosys exit {rc}")
        res["wall_s"] = res["elab_s"]
        return res
    return per_module_runs(res, d, out, log, t0, box_bits, timeout, jobs, only, resume, reuse)


def implicit_nets(log_text):
    """Identifiers Yosys declared implicitly while reading the RTL, grouped by source line with the index
    collapsed: `arr[i].field` in a loop is one (Yosys 0.55 reads it as a new, undriven wire `arr[5].field` rather
    than a member of an array element), so the netlist then lacks logic the RTL has. [(file:line, pattern, n)]"""
    groups = collections.Counter()
    for f, ident in re.findall(r"^(\S+:\d+): Warning: Identifier `\\?(\S+)' is implicitly declared", log_text, re.M):
        groups[(f, re.sub(r"\[\d+\]", "[*]", ident))] += 1
    return [[f, pat, n] for (f, pat), n in sorted(groups.items())]


def struct_arrays(name):
    """The block's packed arrays of packed structs, which Yosys 0.55 reads as one element wide (sv_compat.py
    struct_arrays; docs/synthesis.md "One RTL source"): [[file:line, type]]. The netlist then lacks every element
    but the first, so the figures of the modules that declare or use them are too small."""
    hits = sv_compat.struct_arrays([ROOT / f for f in BLOCKS[name][1]])
    return [[str(pathlib.Path(w.split(":")[0]).relative_to(ROOT)) + ":" + w.split(":")[1], typ] for w, typ, _ in hits]


def per_module_runs(res, d, out, log, t0, box_bits, timeout, jobs, only, resume, reuse=()):
    name = res["block"]
    res["mem2reg"] = sorted(set(re.findall(r"Replacing memory (\S+) with list of registers. See (\S+)",
                                           log.read_text())))
    res["implicit"] = implicit_nets(log.read_text())
    res["struct_arrays"] = struct_arrays(name)
    mods = [ln.strip() for ln in (d / "out" / "modules.txt").read_text().splitlines()[2:] if ln.strip()]
    selected = [m for m in mods if not only or re.search(only, m)]
    modres = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        fps = {d: module_fingerprints(d / "out" / "elab.il")} if reuse else {}
        futs = {ex.submit(run_module, d, m, box_bits, timeout, resume, reuse, fps): m for m in selected}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            modres[r["module"]] = r
            lv = f" LUT {r['luts']} FF {r['ffs']} ltp levels {r['ltp_levels']}" if r["status"] == "ok" else ""
            print(f"synth: {name:<11} {short(r['module']):<40} {r['status']}{lv} ({r['wall_s']} s)", flush=True)
    for m in mods:
        modres.setdefault(m, {"module": m, "status": "not run (--modules)", "wall_s": 0})
    res["modules"] = [modres[m] for m in mods]
    res["rc"] = 0 if all(modres[m]["status"] == "ok" for m in selected) else 1
    summarise_block(res, out)
    res["wall_s"] = round(time.time() - t0, 1)
    return res


def summarise_block(res, out, threshold=12):
    """The block's figures from its modules' runs: each module's longest path and its paths deeper than
    `threshold` (depth.py on the module's JSON netlist, children cut), the resources summed over instances, and
    the stitched view (every module's netlist joined at the instance ports: paths across module boundaries).
    Reads only files, so `--reanalyse` can redo it without Yosys."""
    top = res["top"]
    netlists = {}
    for r in res["modules"]:
        if r["status"] == "ok":
            nl = json.loads((out / r["dir"] / "out" / "netlist.json").read_text())["modules"]
            netlists[r["module"]] = nl[r["module"]]
            a = depth.analyse(nl, r["module"], stitched=False, threshold=threshold)
            r["levels"], r["path_carry"] = a["levels"], a["carry"]
            r["path_start"], r["path_end"] = a["start"], a["end"]
            r["path_cells"] = a["cells"]
            r["deep"] = a["deep"]
            r["levels_with_inv"] = depth.analyse(nl, r["module"], stitched=False, inv=True)["levels"]
            r["levels_ltp_measure"] = depth.analyse(nl, r["module"], stitched=False, ltp_compatible=True)["levels"]
    # a child that did not finish stays a blackbox in the stitched view: its paths are cut there
    for r in res["modules"]:
        netlists.setdefault(r["module"], {"attributes": {"blackbox": 1}, "ports": {}, "cells": None})
    counts = instance_counts(netlists, top)
    top_done = netlists[top].get("cells") is not None
    for r in res["modules"]:
        # without the top's netlist (--modules) the instance count is unknown: each finished module counts once
        r["instances"] = counts.get(r["module"], 0) if top_done else 1
    done = [r for r in res["modules"] if r["status"] == "ok"]
    res["complete"] = len(done) == len(res["modules"])
    for k in RES_KEYS:
        res[k] = sum(r[k] * r["instances"] for r in done)
    deepest = max(done, key=lambda r: r["levels"], default=None)
    res["levels"] = deepest["levels"] if deepest else 0
    res["deepest_module"] = deepest["module"] if deepest else ""
    if netlists.get(top, {}).get("cells") is not None:
        st = depth.analyse(netlists, top, stitched=True, threshold=threshold)
        res["stitched_levels"], res["stitched_carry"] = st["levels"], st["carry"]
        res["stitched_start"], res["stitched_end"] = st["start"], st["end"]
        res["stitched_cells"] = st["cells"]
        res["stitched_deep"] = st["deep"]
        res["stitched_levels_with_inv"] = depth.analyse(netlists, top, stitched=True, inv=True)["levels"]
    res["fmax_mhz_est"] = round(1000.0 / (NS_OVERHEAD + NS_PER_LEVEL * res["levels"])) if res["levels"] else None
    res["boxed"] = [dict(m, module=r["module"]) for r in res["modules"] for m in r.get("boxed", [])]
    res["modules_wall_s"] = round(sum(r.get("wall_s") or 0 for r in res["modules"]), 1)


def short(mod):
    """A module's name without Yosys's parameter hash: `$paramod$3f..\\vnic_desc_fifo` -> vnic_desc_fifo(p)."""
    m = re.match(r"\$paramod(\$[0-9a-f]+)?\\([^\\]+)(\\.*)?$", mod)
    if not m:
        return mod.lstrip("\\")
    params = re.sub(r"(s?)32'([01]+)", lambda b: str(int(b.group(2), 2) - (1 << 32) * (b.group(2)[0] == "1")
                                                        if b.group(1) and len(b.group(2)) == 32
                                                        else int(b.group(2), 2)),
                    (m.group(3) or "").lstrip(chr(92)).replace(chr(92), ","))
    return f"{m.group(2)}({params or 'p'})"


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


def run_block(name, out, elab, parse_only=False):
    """parse_only (with elab): read + hierarchy -check, without proc: for the blocks whose proc takes minutes
    (expected_elab.json "parse: why"); `make synth` and `--elab --only BLOCK` still run their proc."""
    top, files = BLOCKS[name]
    d = out / name
    stage_inputs(d, files)
    (d / "in" / "run.ys").write_text(script(top, files, elab, parse_only))
    t0 = time.time()
    with open(out / f"{name}.log", "w") as log:
        rc = subprocess.run(["node", str(RUNNER), str(YOSYS_MOD), str(d / "in"), str(d / "out"), "-s", "run.ys"],
                            stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.time() - t0
    res = {"block": name, "top": top, "rc": rc, "wall_s": round(wall, 1),
           "mode": ("parse" if parse_only else "elab") if elab else "synth"}
    if rc != 0:
        err = [ln for ln in (out / f"{name}.log").read_text().splitlines() if "ERROR" in ln]
        res["error"] = err[-1] if err else f"yosys exit {rc}"
        return res
    res["implicit"] = implicit_nets((out / f"{name}.log").read_text())
    res["struct_arrays"] = struct_arrays(name)
    if elab:
        return res
    stat = json.loads((d / "out" / "stat.json").read_text())
    cells = stat["design"]["num_cells_by_type"] if "design" in stat else {}
    res.update(cell_counts(cells))
    res["carry8"] = res["carry"]
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
        if r["rc"] != 0 or r["mode"] in ("elab", "parse"):
            ok = "elaboration ok" if r["mode"] == "elab" else "parse + hierarchy ok (proc not run)"
            rows.append(f"| {r['block']} | {r['top']} | " + (r.get("error", ok)) + f" | | | | | | | | | {r['wall_s']} |")
            continue
        rows.append(f"| {r['block']} | {r['top']} | {r['luts']} | {r['lutram_cells']} | {r['ffs']} | {r['bram36']:g} | "
                    f"{r['uram']} | {r['dsp']} | {r['carry8']} | {r['levels']} | {r['fmax_mhz_est']} | {r['wall_s']} |")
    return "\n".join(rows)


def fmt_path(p):
    if not p:
        return ""
    src = p.get("src", "").split("|")[0]
    src = re.sub(r"^(\S+?):(\d+)\.\d+-\d+\.\d+$", r"\1:\2", src)
    return f"`{p['signal']}`" + (f" ({src})" if src else "")


def table_per_module(results):
    hdr = ("| block | top | LUTs | LUTRAM cells | FFs | BRAM36 | URAM | DSP | levels (deepest module) | "
           "levels stitched across modules (of which CARRY) | boxed memories | module runs s (sum) |")
    rows = [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    mods = ["| block | module | instances | status | LUTs | LUTRAM cells | FFs | BRAM36 | URAM | DSP | levels (of "
            "which CARRY) | ltp | deepest path start | end | wall s |"]
    mods.append("|" + "---|" * (mods[0].count("|") - 1))
    for r in results:
        if "modules" not in r:
            rows.append(f"| {r['block']} | {r['top']} | {r.get('error', '')} | | | | | | | | | {r['wall_s']} |")
            continue
        groups = collections.Counter(
            re.sub(r"\[\d+\]", "[*]", b["name"].lstrip(chr(92))) + f" {b['words']}x{b['width']}" +
            ("" if b["rd_clocked"] else " (read not clocked)") for b in r["boxed"])
        boxed = ", ".join(f"{k}" + (f" x{n}" if n > 1 else "") for k, n in groups.items()) or "none"
        if r.get("implicit"):
            boxed += (" **Yosys misreads the RTL: " + ", ".join(f"`{p}` ({f}, {n})" for f, p, n in r["implicit"]) +
                      " implicitly declared, undriven**")
        if r.get("struct_arrays"):
            boxed += (" **Yosys reads packed arrays of structs as one element (figures too small): " +
                      ", ".join(f"`{typ}` ({w})" for w, typ in r["struct_arrays"]) + "**")
        lv = f"{r['levels']} ({short(r['deepest_module'])})" + ("" if r["complete"] else ", incomplete")
        rows.append(f"| {r['block']} | {r['top']} | {r['luts']} | {r['lutram_cells']} | {r['ffs']} | {r['bram36']:g} | "
                    f"{r['uram']} | {r['dsp']} | {lv} | {r.get('stitched_levels', 'n/a')} "
                    f"({r.get('stitched_carry', '')}) | {boxed} | {r['modules_wall_s']} |")
        for m in r["modules"]:
            if m["status"] != "ok":
                mods.append(f"| {r['block']} | {short(m['module'])} | {m.get('instances', '')} | {m['status']} "
                            f"{m.get('error', '')} | | | | | | | | | | | {m['wall_s']} |")
                continue
            mods.append(f"| {r['block']} | {short(m['module'])} | {m['instances']} | ok | {m['luts']} | "
                        f"{m['lutram_cells']} | {m['ffs']} | {m['bram36']:g} | {m['uram']} | {m['dsp']} | "
                        f"{m['levels']} ({m['path_carry']}) | {m['ltp_levels']} | {fmt_path(m['path_start'])} | "
                        f"{fmt_path(m['path_end'])} | "
                        f"{m['wall_s']} |")
    deep = ["| block | view | levels (of which CARRY) | bits | start | end |", "|---|---|---|---|---|---|"]
    for r in results:
        for m in r.get("modules", []):
            for p in m.get("deep", []):
                deep.append(f"| {r['block']} | {short(m['module'])} alone | {p['levels']} ({p['carry']}) | "
                            f"{p['bits']} | {fmt_path(p['start'])} | {fmt_path(p['end'])} |")
        for p in r.get("stitched_deep", []):
            deep.append(f"| {r['block']} | stitched | {p['levels']} ({p['carry']}) | {p['bits']} | "
                        f"{fmt_path(p['start'])} | {fmt_path(p['end'])} |")
    maps = sorted({m.get("lut_map", "widelut") for r in results for m in r.get("modules", []) if m["status"] == "ok"})
    return (f"LUT mapping: {', '.join(maps) or lut_map} (docs/synthesis.md \"LUT mapping: LUT6 only\")\n\n" +
            "\n".join(rows) + "\n\nPer module (children cut at their ports):\n\n" + "\n".join(mods) +
            "\n\nPath ends deeper than 12 levels (grouped by start and end signal; bits = path ends):\n\n" +
            "\n".join(deep))


def main_per_module(a, names, out):
    results = []
    for n in names:
        if a.reanalyse:
            r = json.loads((out / f"{n}.json").read_text())
            if "modules" in r:
                r["implicit"] = implicit_nets((out / f"{n}.log").read_text())
                r["struct_arrays"] = struct_arrays(n)
                summarise_block(r, out)
        else:
            r = run_block_per_module(n, out, a.box_mem_bits, a.timeout, a.j, a.modules, a.resume, a.reuse or ())
        results.append(r)
        (out / f"{n}.json").write_text(json.dumps(r, indent=1) + "\n")
        for f_, pat, k in r.get("implicit", []):
            print(f"synth: {n:<11} WARNING {f_}: `{pat}` implicitly declared {k} times: Yosys reads it as a new "
                  "undriven wire, the netlist lacks that logic (docs/synthesis.md)", flush=True)
        if r.get("struct_arrays"):
            print(f"synth: {n:<11} WARNING {len(r['struct_arrays'])} packed arrays of structs ("
                  + ", ".join(f"{w} {typ}" for w, typ in r["struct_arrays"]) + "): Yosys 0.55 reads each as one "
                  "element, the netlist lacks the others (docs/synthesis.md)", flush=True)
        if "modules" in r:
            print(f"synth: {n:<11} per-module LUT {r['luts']} FF {r['ffs']} levels {r['levels']} stitched "
                  f"{r.get('stitched_levels')} ({r['wall_s']} s)", flush=True)
        else:
            print(f"synth: {n:<11} FAIL {r.get('error')}", flush=True)
    summary = table_per_module(results)
    print(summary)
    (out / "summary.md").write_text(summary + "\n")
    (out / "summary.json").write_text(json.dumps(results, indent=1) + "\n")
    # depth.py and Yosys's own ltp must agree on every module (two implementations of one measure)
    bad = [f"{r['block']}/{short(m['module'])}: depth.py {m['levels_ltp_measure']} != ltp {m['ltp_levels']}"
           for r in results for m in r.get("modules", [])
           if m["status"] == "ok" and m["levels_ltp_measure"] != m["ltp_levels"]]
    for b in bad:
        print("synth: MISMATCH " + b)
    return 0 if not bad and all(r["rc"] == 0 for r in results) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--elab", action="store_true", help="read + hierarchy -check + proc only")
    ap.add_argument("-j", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", choices=sorted(BLOCKS))
    ap.add_argument("--out", default=str(ROOT / "build" / "synth"))
    ap.add_argument("--expect", help="JSON {block: 'ok' | text of its known first Yosys error}: exit 1 unless every "
                                     "block does exactly that (ctest rtl_synth_elab; a block that starts to "
                                     "elaborate must be marked 'ok' there, one that stops is a regression)")
    ap.add_argument("--flat", action="store_true", help="the whole block flattened in one Yosys run (slow: 40+ "
                    "min, or out of WebAssembly memory, for blocks with big combinationally read memories)")
    ap.add_argument("--box-mem-bits", type=int, default=32768,
                    help="per-module mode: memories of this many bits or more are boxed (a cut, not mapped; "
                         "reported); 0 maps every memory as Yosys would (default 32768 = 4 KiB)")
    ap.add_argument("--timeout", type=float, default=3600, help="per-module mode: seconds per Yosys module run (rdma_top takes about 2,200 s)")
    ap.add_argument("--reanalyse", action="store_true", help="per-module mode: no Yosys; recompute the levels, "
                    "paths and block figures from a previous run's files in --out")
    ap.add_argument("--resume", action="store_true", help="per-module mode: keep the modules a previous run in "
                    "--out finished (their figures from their files), run the others (a module whose first Yosys "
                    "run finished there runs only its second)")
    ap.add_argument("--reuse", action="append", metavar="DIR",
                    help="per-module mode: take a module's figures from an earlier run's --out DIR (repeatable, first "
                         "match wins) when its elaborated text there is the same as now (module_fingerprints: "
                         "source lines and Yosys's automatic names aside) and its LUT mapping this run's; a module of the same "
                         "text mapped the other way lends its coarse netlist and only the mapping runs again; the "
                         "others run. Each reused module says where it came from (reused_from in <block>.json)")
    ap.add_argument("--modules", help="per-module mode: only modules whose name matches this regex (the others "
                                      "stay blackboxes; the block is then incomplete)")
    ap.add_argument("--widelut", action="store_true",
                    help="map with LUT7..LUT9 built from MUXF7/8/9 (synth_xilinx's default; the figures before "
                         "session 23) instead of LUT6 only (docs/synthesis.md \"LUT mapping: LUT6 only\")")
    a = ap.parse_args()
    global lut_map
    lut_map = "widelut" if a.widelut else "nowidelut"
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
    if not a.elab and not a.flat:
        return main_per_module(a, names, out)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        # "parse: why" in expected_elab.json: the ctest reads and checks the hierarchy only (proc takes minutes)
        futs = {ex.submit(run_block, n, out, a.elab,
                          a.elab and not a.only and expect.get(n, "").startswith("parse")): n for n in names}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results[r["block"]] = r
            (out / f"{r['block']}.json").write_text(json.dumps(r, indent=1) + "\n")
            st = "ok" if r["rc"] == 0 else "FAIL " + r.get("error", "")
            extra = "" if a.elab or r["rc"] else f" LUT {r['luts']} FF {r['ffs']} BRAM36 {r['bram36']:g} levels {r['levels']}"
            print(f"synth: {r['block']:<11} {r['mode']:<5} {st}{extra} ({r['wall_s']} s)", flush=True)
            for f_, pat, k in r.get("implicit", []):
                print(f"synth: {r['block']:<11} WARNING {f_}: `{pat}` implicitly declared {k} times: Yosys reads "
                      "it as a new undriven wire, the netlist lacks that logic (docs/synthesis.md)", flush=True)
            if r.get("struct_arrays"):
                print(f"synth: {r['block']:<11} WARNING {len(r['struct_arrays'])} packed arrays of structs: Yosys "
                      "0.55 reads each as one element (sv_compat.py --struct-arrays; docs/synthesis.md)", flush=True)
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
            if want.startswith("parse"):
                want = "ok"
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
