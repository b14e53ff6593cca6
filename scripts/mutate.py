#!/usr/bin/python3
"""Mutation testing: plants known bugs in the models and the RTL, one at a time, in a scratch copy of the
tree, and records which ctest tests catch each. Every mutation must be caught by the ctest suite.

  /usr/bin/python3 scripts/mutate.py [--work DIR] [--only NAME] [--jobs N] [--report FILE] [--list]

The scratch copy is `git archive HEAD` in WORK/src with its build in WORK/src/build (the first build is a
full one; each mutation then rebuilds what it touched). Per mutation: tier 1 runs the GoogleTests and the
C++-driven ctest tests (everything but the pure-Python script suites and the fuzz smoke test, which do not
use the build) in two tiers: the GoogleTests first, and only if none of them fails, the CLI tests with the
Python checkers; the table lists every test that failed in the first tier that caught it. A mutation no test catches is reported as
SURVIVED and the script exits 1. "both" mutations plant the same bug in the model and the RTL, so lockstep
cannot see it and only an independent check can.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

# name, block, what it plants, [(file, old, new)]
MUTATIONS = [
    ("rdma-window-edge-both", "rdma", "PSN exactly 2^23 ahead taken as ahead (model and RTL)",
     [("model/rdma/rdma_cycle_model.cc", "d != 0 && d < kHalfPsn", "d != 0 && d <= kHalfPsn"),
      ("rtl/rdma/rdma_check.sv", "ahead  = d != 0 && d < PsnHalf;", "ahead  = d != 0 && d <= PsnHalf;")]),
    ("rdma-icrc-ttl-model", "rdma", "ICRC: IPv4 TTL not masked (model)",
     [("model/rdma/rdma_packet.cc", "pos == 15 || pos == 22 || pos == 24", "pos == 15 || pos == 24")]),
    ("rdma-atomic-msn-model", "rdma", "an atomic does not advance the MSN (model)",
     [("model/rdma/rdma_cycle_model.cc", "  job_.compare = r.compare;\n  q.epsn = (q.epsn + 1) & kPsnMask;\n"
       "  q.msn = (q.msn + 1) & kPsnMask;\n", "  job_.compare = r.compare;\n  q.epsn = (q.epsn + 1) & kPsnMask;\n")]),
    ("lb-ip-len-model", "lb", "IPv4 header checksum not updated for the new length (model)",
     [("model/lb/lb_rewrite.cc", "    ip.Replace(p.ip_len, rw.ip_len);\n", "")]),
    ("common-ones-odd-model", "common", "ones' sum pads an odd byte on the wrong side (model)",
     [("model/common/checksum.h", "OnesAdd(s, static_cast<uint16_t>(p[n - 1] << 8))", "OnesAdd(s, static_cast<uint16_t>(p[n - 1]))")]),
    ("reorder-crc-init-model", "reorder", "flow hash CRC-16 starts from 0 instead of ffff (model)",
     [("model/reorder/reorder_frame.cc", "uint16_t crc = 0xFFFF;", "uint16_t crc = 0;")]),
    ("lb-lb-words-both", "lb", "UDP checksum not adjusted for the removed LB header (model and RTL)",
     [("model/lb/lb_rewrite.cc", "    for (uint16_t w : p.lb_words) udp.Remove(w);\n", ""),
      ("rtl/lb/lb_pkg.sv", "    for (int i = 0; i < 6; i++) w[16*(12+i)+:16] = ~p.lb_hdr[95-16*i-:16];\n", "")]),
    ("lb-rfc768-both", "lb", "a computed UDP checksum of 0 sent as 0, not ffff (model and RTL)",
     [("model/lb/lb_rewrite.cc", "    if (rw.udp_csum == 0) rw.udp_csum = 0xFFFF;", ""),
      ("rtl/lb/lb_pkg.sv", "        if (zero) r.udp_csum = 16'hffff;  // RFC 768", "")]),
    ("reorder-margin-both", "reorder", "release deadline without the margin (model and RTL)",
     [("model/reorder/reorder_cycle_model.cc", "m.tail_tx_ts + e.owd_old + cfg.margin_us", "m.tail_tx_ts + e.owd_old"),
      ("rtl/reorder/reorder_top.sv", "pend_meta.tail_tx_ts + d1_e.owd_old + cfg_margin_us_i",
       "pend_meta.tail_tx_ts + d1_e.owd_old")]),
    ("rdma-ahead-rtl", "rdma", "a PSN one ahead taken as a duplicate (RTL)",
     [("rtl/rdma/rdma_check.sv", "ahead  = d != 0 && d < PsnHalf;", "ahead  = d > 1 && d < PsnHalf;")]),
    ("reorder-default-hold-rtl", "reorder", "default hold one microsecond longer (RTL)",
     [("rtl/reorder/reorder_top.sv", "d2_dl_def_q   <= now_us_i + cfg_default_hold_us_i;",
       "d2_dl_def_q   <= now_us_i + cfg_default_hold_us_i + 16'd1;")]),
    ("lb-csum-rtl", "lb", "RFC 768 zero sent as fffe (RTL)",
     [("rtl/lb/lb_pkg.sv", "r.udp_csum = 16'hffff;  // RFC 768", "r.udp_csum = 16'hfffe;  // RFC 768")]),
    ("re-rotate-rtl", "re", "segment data written at its offset without subtracting the header length (RTL)",
     [("rtl/re/re_event_buffer.sv", "n_rel  = 14'(next_q.offset) - 14'(next_q.data_at);",
       "n_rel  = 14'(next_q.offset);")]),
    ("re-overlap-both", "re", "a partly received segment is merged instead of dropped as overlap (model and RTL)",
     [("model/re/re_cycle_model.cc", "    if (covered > 0) return static_cast<int>(Drop::kOverlap) + 1;\n", ""),
      ("rtl/re/re_decide_chk.sv", "    chk_f[3] = len_nz && overlap;\n", "")]),
    ("re-expiry-order-model", "re", "contexts that expire together reported newest key first (model)",
     [("model/re/re_cycle_model.cc", "(c.first_ns == b.first_ns && c.key < b.key)", "(c.first_ns == b.first_ns && c.key > b.key)")]),
    ("naa-reconnect-both", "naa", "work of a connection that went survives into the next one (model and RTL)",
     [("model/naa/naa_ctl.cc", "    gone_ = true;\n", ""),
      ("rtl/naa/naa_ctl.sv", "        gone_q   <= 1'b1;\n", "")]),
    ("naa-flush-count-model", "naa", "events flushed at a disconnect not counted as drops (model)",
     [("model/naa/naa_ctl.cc", "    counters_.drops[static_cast<int>(CtlDrop::kFlushed)] += queued;\n", "")]),
    ("rdma-recent-kept-both", "rdma", "the recent atomic results not cleared when a QP entry is written (model and RTL)",
     [("model/rdma/rdma_cycle_model.cc", "      recent_[w.index] = RecentAtomics{};\n", ""),
      ("rtl/rdma/rdma_top.sv", "        if (cfg_qp_wr && cfg_qp == QpIdxBits'(i)) begin\n"
       "          rec_valid_q[i] <= '0;\n          rec_wr_q[i]    <= '0;\n        end\n", "")]),
    ("vnic-pkey-member-both", "vnic", "two limited-member P_Keys accepted as a match (model and RTL)",
     [("model/vnic/vnic_format.cc", "(a & 0x7FFF) == (b & 0x7FFF) && ((a | b) & 0x8000) != 0", "(a & 0x7FFF) == (b & 0x7FFF)"),
      ("rtl/vnic/vnic_pkg.sv", "a[14:0] == b[14:0] && (a[15] | b[15]);", "a[14:0] == b[14:0];")]),
    ("vnic-pkey-member-rtl", "vnic", "two limited-member P_Keys accepted as a match (RTL)",
     [("rtl/vnic/vnic_pkg.sv", "a[14:0] == b[14:0] && (a[15] | b[15]);", "a[14:0] == b[14:0] && (a[15] | b[15] | 1'b1);")]),
    ("vnic-pad-limit-rtl", "vnic", "a tail byte claiming 8 pad bytes accepted (RTL)",
     [("rtl/vnic/vnic_decap_top.sv", "tail[5:0] > 6'd7 ||", "tail[5:0] > 6'd8 ||")]),
    ("udplb-keep-csum-rtl", "lb", "udplb: a kept LB header's last word left out of the UDP checksum (RTL)",
     [("rtl/lb/udplb_hdr_sum.sv",
       "if (keep) for (int i = 0; i < 8; i++) f4[16*(5+i)+:16] = '0;",
       "if (keep) for (int i = 0; i < 7; i++) f4[16*(5+i)+:16] = '0;")]),
    ("udplb-fold-rtl", "lb", "udplb: a last beat of exactly d bytes not folded into the previous output beat (RTL)",
     [("rtl/lb/udplb_beat_former.sv", "assign next_fold = !d_neg && !beat_i.next_keep[ctx_i.d[5:0]];",
       "assign next_fold = !d_neg && !beat_i.next_keep[ctx_i.d[5:0]] && !beat_i.next_keep[6'(ctx_i.d[5:0] - 6'd1)];")]),
]

# Pure-Python self-tests (they never run the C++ build), the shell lint and the setup check (no C++ or SV
# input) and the clang fuzz build are not run per mutation.
EXCLUDE = "^(lb_scripts|rdma_scripts|reorder_scripts|fuzz_smoke|shellcheck|setup)$"
# Tier 1: the GoogleTests and the lint (seconds); tier 2, only if tier 1 caught nothing: the ctest tests
# that run the CLI with the Python checkers (minutes).
SCRIPT_TESTS = "^(lb_vectors|cli|rdma_model_check|rdma_cli|reorder_cli|re_model_scripts)$"


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), text=True, capture_output=True, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/nettwin-mutants")
    ap.add_argument("--only", action="append", help="mutation name (repeatable)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--report", help="also write the markdown table here")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true", help="only check that every planted edit applies to this "
                    "source tree exactly once (ctest mutate_patterns: an RTL or model rewrite must carry its "
                    "mutation along)")
    a = ap.parse_args()
    muts = [m for m in MUTATIONS if not a.only or m[0] in a.only]
    if a.list:
        for m in muts:
            print(f"{m[0]:26} {m[1]:8} {m[2]}")
        return 0
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if a.check:
        bad = [f"mutate: {name}: {f}: the text to replace occurs {n} times (want 1)"
               for name, _, _, edits in muts for f, old, _ in edits
               for n in [open(os.path.join(root, f)).read().count(old)] if n != 1]
        print("\n".join(bad) or f"mutate: all {len(muts)} mutations apply exactly once")
        return 1 if bad else 0
    src, build = os.path.join(a.work, "src"), os.path.join(a.work, "src", "build")
    if not os.path.isdir(src):
        os.makedirs(src)
        subprocess.run(f"git -C {root} archive HEAD | tar -x -C {src}", shell=True, check=True)
    # A run that was killed mid-mutation leaves its edit behind: put back HEAD's text (with a new mtime, so
    # it is rebuilt) wherever a mutated file differs from it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("mutate: terminated"))
    for f in {f for m in MUTATIONS for f, _, _ in m[3]}:
        head = subprocess.run(["git", "-C", root, "show", f"HEAD:{f}"], capture_output=True, text=True,
                              check=True).stdout
        if open(os.path.join(src, f)).read() != head:
            open(os.path.join(src, f), "w").write(head)
    # Every planted edit must apply to this tree, exactly once, before anything is built.
    for name, _, _, edits in muts:
        for f, old, _ in edits:
            n = open(os.path.join(src, f)).read().count(old)
            if n != 1:
                sys.exit(f"mutate: {name}: {f}: the text to replace occurs {n} times (want 1)")
    launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
    subprocess.run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"] + launcher, check=True,
                   stdout=subprocess.DEVNULL)
    print(f"mutate: building the scratch copy in {build} ...", flush=True)
    subprocess.run(["cmake", "--build", build, "-j", str(a.jobs)], check=True, stdout=subprocess.DEVNULL)
    rows, survived = [], 0
    for i, (name, block, what, edits) in enumerate(muts, 1):
        t0 = time.time()
        saved = {}
        for f, old, new in edits:
            p = os.path.join(src, f)
            saved.setdefault(p, open(p).read())
            text = open(p).read()
            open(p, "w").write(text.replace(old, new, 1))
        try:
            b = sh(["cmake", "--build", build, "-j", str(a.jobs)])
            if b.returncode != 0:
                caught = ["(build fails)"]
            else:
                caught = []
                for tier in (["-E", EXCLUDE[:-2] + "|" + SCRIPT_TESTS[2:]], ["-R", SCRIPT_TESTS]):
                    r = sh(["ctest", "-j", str(a.jobs), "--timeout", "900"] + tier, cwd=build)
                    caught = re.findall(r"^\s*\d+ - (\S+) \(", r.stdout, re.M)
                    if caught:
                        break
        finally:
            for p, text in saved.items():
                open(p, "w").write(text)
        if not caught:
            survived += 1
        shown = ", ".join(caught[:8]) + (f" (+{len(caught) - 8} more)" if len(caught) > 8 else "")
        rows.append(f"| {name} | {block} | {what} | {len(caught)} | {shown or '**SURVIVED**'} |")
        print(f"[{i}/{len(muts)}] {name}: {'caught by ' + str(len(caught)) + ' tests' if caught else 'SURVIVED'}"
              f" ({time.time() - t0:.0f} s){': ' + shown if caught else ''}", flush=True)
    sh(["cmake", "--build", build, "-j", str(a.jobs)])  # leave the scratch build unmutated
    table = "\n".join(["| mutation | block | planted bug | tests failing | which |", "|---|---|---|---|---|"] + rows)
    print(table)
    if a.report:
        open(a.report, "w").write(table + "\n")
    print(f"mutate: {len(muts) - survived} of {len(muts)} mutations caught by ctest")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
