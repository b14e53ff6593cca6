#!/usr/bin/env python3
"""nettwin regression: every vector through RTL and model in lockstep, cross-checked independently.

lb: for each vector (the spec's own example and seeded random vectors made by lb_gen.py) and each stimulus
mode (back to back; input gaps + output backpressure), it runs `nettwin lb --engine lockstep`, then checks
the output with lb_check.py (an independent Python/Scapy reference plus tshark checksum validation), and
decodes the inputs with the spec's tshark dissectors.
rdma: every rdma_gen.py scenario x seed at two host-memory latencies, checked by rdma_check.py.
reorder: every cw_gen.py scenario x seed through `nettwin reorder --engine lockstep`, timed (pcap arrival
times) with and without output backpressure, each checked by cw_check.py (hold and release timing too),
and back to back with backpressure, checked by cw_check.py --b2b (time compressed: conservation,
exactly-once, bytes, ICRC, control packets and the drop rule, not order or timing).
It ends with a summary table per block and exits non-zero if anything failed. Every failure prints the
exact command to replay it.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"  # the interpreter that has Scapy

MODES = [("b2b", []), ("gaps+bp", ["--gaps", "0.3", "--backpressure", "0.4"])]
RDMA_SCENARIOS = ["traffic", "atomic", "lostack", "reorder", "badreq", "psnwrap", "icrc", "malformed", "send",
                  "edge", "mixed"]
RDMA_MODES = [("mem50", ["--mem-read-cycles", "50", "--mem-write-cycles", "10"]),
              ("mem900+bp", ["--mem-read-cycles", "900", "--mem-write-cycles", "90", "--backpressure", "0.4",
                             "--clock-mhz", "900"])]
REORDER_SCENARIOS = ["mixed", "tailloss", "epochwrap", "tswrap", "ecn", "exhaust"]
# (mode, extra nettwin flags ("{seed}" is replaced by the vector's seed), timed?). cw_check.py gets the same
# --backpressure / --ctrl-backpressure values, and --b2b for the back-to-back modes.
REORDER_MODES = [("timed", [], True),
                 ("timed+bp", ["--backpressure", "0.3", "--ctrl-backpressure", "0.3", "--seed", "{seed}"], True),
                 ("b2b", ["--back-to-back", "--backpressure", "0.2", "--seed", "{seed}"], False),
                 # stress: a tiny flow table, queue pool and hold limit, and an output that takes 1 beat in 7,
                 # so collisions, fallbacks, buffer_full drops and a full cell buffer (input stalls) all occur
                 ("b2b-tight", ["--back-to-back", "--backpressure", "0.85", "--ctrl-backpressure", "0.5",
                                "--seed", "{seed}"], False)]
REORDER_TIGHT = {"flows": 8, "queues": 4, "buffer_bytes": 4096}
REORDER_QUICK_MODES = ["timed", "b2b"]
REORDER_TIMEOUT = 600  # seconds per nettwin run; the tool has its own hang detection, this is a backstop
BLOCKS = ["lb", "rdma", "reorder"]


def run(cmd, log, timeout=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc, out = 124, out + "\nTIMEOUT: killed after %d s" % timeout
    except OSError as e:  # e.g. the binary is missing or being relinked
        rc, out = 127, "cannot run %s: %s" % (cmd[0], e)
    log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n" + out + "\n")
    return rc, out, time.time() - t0


def quote(cmd):
    return " ".join(shlex.quote(c) for c in cmd)


def make_vectors(args, log):
    vecs = []
    spec_dir = os.path.join(args.work, "spec")
    os.makedirs(spec_dir, exist_ok=True)
    pcap = os.path.join(spec_dir, "packets_in.pcap")
    rc, out, _ = run([PY, os.path.join(HERE, "ejfat_spec_gen.py"), "--out", pcap], log)
    if rc != 0:
        sys.exit("spec vector generation failed:\n" + out)
    vecs.append(("spec", os.path.join(ROOT, "vectors/lb/spec/runsim.txt"), pcap))
    for seed in args.seeds:
        d = os.path.join(args.work, "rand%d" % seed)
        cmd = [PY, os.path.join(HERE, "lb_gen.py"), "--seed", str(seed), "--out-dir", d,
               "--packets", str(args.packets)]
        rc, out, _ = run(cmd, log)
        if rc != 0:
            sys.exit("vector generation failed (%s):\n%s" % (" ".join(cmd), out))
        vecs.append(("rand%d" % seed, os.path.join(d, "runsim.txt"), os.path.join(d, "packets_in.pcap")))
    return vecs


def print_table(title, hdr, rows):
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, hdr))
    print("\n" + title)
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join("%-*s" % (w, str(c)) for w, c in zip(widths, r)))


def generate(cmd, label, log, failures):
    """Runs a vector generator; a failure is recorded with its replay command."""
    rc, out, _ = run(cmd, log)
    if rc != 0:
        failures.append((label + " generation", out.strip().splitlines()[-3:],
                         " ".join(shlex.quote(c) for c in cmd)))
    return rc == 0


def rdma_runs(args, nettwin, log, failures):
    """Every RDMA scenario through RTL and model in lockstep, checked by rdma_check.py."""
    rows = []
    for sc in args.rdma_scenarios:
        for seed in args.rdma_seeds:
            d = os.path.join(args.work, "rdma_%s_%d" % (sc, seed))
            gen = [PY, os.path.join(HERE, "rdma_gen.py"), "--seed", str(seed), "--out-dir", d, "--scenario", sc]
            if not generate(gen, "rdma %s.%d" % (sc, seed), log, failures):
                continue
            for mode, flags in RDMA_MODES:
                rsp = os.path.join(d, "rsp_%s.pcap" % mode.replace("+", "_"))
                mem = os.path.join(d, "mem_%s.json" % mode.replace("+", "_"))
                stats = os.path.join(d, "stats_%s.json" % mode.replace("+", "_"))
                cmd = [nettwin, "rdma", "--config", os.path.join(d, "responder.txt"),
                       "--in", os.path.join(d, "requests.pcap"), "--out", rsp, "--mem-out", mem,
                       "--stats", stats, "--engine", "lockstep"] + flags
                rc, out, secs = run(cmd, log)
                st = {}
                if os.path.exists(stats):
                    with open(stats) as f:
                        st = json.load(f)
                if rc != 0:
                    failures.append(("rdma %s.%d %s lockstep" % (sc, seed, mode), out.strip().splitlines()[-8:],
                                     " ".join(shlex.quote(c) for c in cmd)))
                chk = [PY, os.path.join(HERE, "rdma_check.py"), "--config", os.path.join(d, "responder.txt"),
                       "--in", os.path.join(d, "requests.pcap"), "--out", rsp, "--mem-out", mem, "--stats", stats]
                crc, cout, _ = run(chk, log) if rc == 0 else (1, "skipped", 0)
                if rc == 0 and crc != 0:
                    failures.append(("rdma %s.%d %s check" % (sc, seed, mode), cout.strip().splitlines()[-6:],
                                     " ".join(shlex.quote(c) for c in chk)))
                rows.append(["%s.%d" % (sc, seed), mode, st.get("packets_in", "-"), st.get("packets_out", "-"),
                             sum(st.get("drops", {}).values()) if st else "-", st.get("naks", "-"),
                             st.get("atomics", "-"), st.get("atomic_replays", "-"), st.get("dma_reads", "-"),
                             st.get("cycles", "-"), st.get("mismatches", "ERR") if st else "ERR",
                             "ok" if crc == 0 else "FAIL", "%.1fs" % secs])
    return rows


def tight_config(d):
    """D/reorder_tight.txt: D/reorder.txt with REORDER_TIGHT's values."""
    out = os.path.join(d, "reorder_tight.txt")
    with open(os.path.join(d, "reorder.txt")) as f, open(out, "w") as o:
        for ln in f:
            t = ln.split()
            o.write("%s %d\n" % (t[0], REORDER_TIGHT[t[0]]) if t and t[0] in REORDER_TIGHT else ln)
    return out


def reorder_runs(args, nettwin, log, failures):
    """Every ConWeave scenario through RTL and model in lockstep; timed runs checked by cw_check.py."""
    rows = []
    modes = [m for m in REORDER_MODES if not args.quick or m[0] in REORDER_QUICK_MODES]
    for seed in args.reorder_seeds:
        for sc in args.reorder_scenarios:
            d = os.path.join(args.work, "reorder_%s_%d" % (sc, seed))
            gen = [PY, os.path.join(HERE, "cw_gen.py"), "--seed", str(seed), "--scenario", sc, "--out-dir", d]
            if not generate(gen, "reorder %s.%d" % (sc, seed), log, failures):
                continue
            for mode, flags, timed in modes:
                tag = mode.replace("+", "_")
                dl = os.path.join(d, "dl_%s.pcap" % tag)
                ctrl = os.path.join(d, "ctrl_%s.pcap" % tag)
                stats = os.path.join(d, "stats_%s.json" % tag)
                for f in (dl, ctrl, stats):  # never read a previous run's output
                    if os.path.exists(f):
                        os.remove(f)
                conf = os.path.join(d, "reorder.txt")
                if mode == "b2b-tight":
                    conf = tight_config(d)
                cmd = [nettwin, "reorder", "--config", conf,
                       "--in", os.path.join(d, "arrivals.pcap"), "--out", dl, "--ctrl-out", ctrl,
                       "--stats", stats, "--engine", "lockstep"] + [f.format(seed=seed) for f in flags]
                rc, out, secs = run(cmd, log, timeout=REORDER_TIMEOUT)
                chk = [PY, os.path.join(HERE, "cw_check.py"), "--dir", d, "--delivered", dl, "--ctrl", ctrl,
                       "--stats", stats] + [f for f in flags if f in ("--backpressure", "--ctrl-backpressure")
                                            or flags[flags.index(f) - 1] in ("--backpressure", "--ctrl-backpressure")]
                if not timed:
                    chk.append("--b2b")
                replay = " && ".join(quote(c) for c in [gen, cmd, chk])
                st = {}
                try:
                    with open(stats) as f:
                        st = json.load(f)
                except (OSError, ValueError):
                    pass
                what = "reorder %s.%d %s" % (sc, seed, mode)
                if rc != 0:
                    failures.append((what + " lockstep (exit %d)" % rc, out.strip().splitlines()[-8:], replay))
                    result = "FAIL"
                elif not st:
                    failures.append((what + " stats", ["no readable stats JSON at " + stats], replay))
                    result = "FAIL"
                elif st.get("mismatches") != 0 or st.get("conservation_ok") is not True:
                    failures.append((what + " stats", ["mismatches %s, conservation_ok %s" %
                                                       (st.get("mismatches"), st.get("conservation_ok"))], replay))
                    result = "FAIL"
                else:
                    crc, cout, _ = run(chk, log)
                    if crc != 0:
                        failures.append((what + " check (exit %d)" % crc, cout.strip().splitlines()[-6:], replay))
                    result = "ok" if crc == 0 else "FAIL"
                rows.append([sc, seed, mode, st.get("packets_in", "-"), st.get("delivered", "-"),
                             st.get("held", "-"), st.get("released_by_tail", "-"),
                             st.get("released_by_timeout", "-"),
                             "%s/%s" % (st.get("fallback_unordered", "-"), st.get("fallback_collision", "-")),
                             st.get("control_out", "-"), result, "%.2fs" % secs])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "regress"))
    ap.add_argument("--seeds", type=int, nargs="*", default=None, help="random vector seeds")
    ap.add_argument("--packets", type=int, default=None, help="packets per random vector")
    ap.add_argument("--quick", action="store_true", help="small run for the test suite")
    ap.add_argument("--rdma-seeds", type=int, nargs="*", default=None)
    ap.add_argument("--rdma-scenarios", nargs="*", default=RDMA_SCENARIOS)
    ap.add_argument("--no-rdma", action="store_true", help="same as leaving rdma out of --blocks")
    ap.add_argument("--reorder-seeds", type=int, nargs="*", default=None,
                    help="cw_gen.py seeds (default: --seeds; the first one only with --quick)")
    ap.add_argument("--reorder-scenarios", nargs="*", default=REORDER_SCENARIOS)
    ap.add_argument("--blocks", default=",".join(BLOCKS),
                    help="comma-separated blocks to run (default: %(default)s)")
    args = ap.parse_args()
    blocks = [b for b in args.blocks.split(",") if b]
    bad = [b for b in blocks if b not in BLOCKS]
    if bad or not blocks:
        ap.error("--blocks takes a comma-separated subset of %s, got '%s'" % (",".join(BLOCKS), args.blocks))
    if args.no_rdma and "rdma" in blocks:
        blocks.remove("rdma")
    if args.seeds is None:
        args.seeds = [1, 2] if args.quick else list(range(1, 11))
    if args.packets is None:
        args.packets = 150 if args.quick else 600
    if args.rdma_seeds is None:
        args.rdma_seeds = [1] if args.quick else [1, 2, 3]
    if args.reorder_seeds is None:
        args.reorder_seeds = args.seeds[:1] if args.quick else args.seeds
    os.makedirs(args.work, exist_ok=True)
    nettwin = os.path.abspath(os.path.join(args.build, "nettwin"))  # replay commands work from anywhere
    log_path = os.path.join(args.work, "regress.log")
    failures = []
    rows = []
    drops_total = {}
    with open(log_path, "w") as log:
        vecs = make_vectors(args, log) if "lb" in blocks else []
        for name, tables, pcap in vecs:
            rc, out, _ = run([PY, os.path.join(HERE, "test_dissectors.py"), pcap] +
                             (["--spec"] if name == "spec" else []), log)
            if rc != 0:
                failures.append(("%s dissectors" % name, out.strip().splitlines()[-3:], ""))
            for mode, flags in MODES:
                d = os.path.dirname(pcap)
                outp = os.path.join(d, "out_%s.pcap" % mode.replace("+", "_"))
                stats = os.path.join(d, "stats_%s.json" % mode.replace("+", "_"))
                cmd = [nettwin, "lb", "--tables", tables, "--in", pcap, "--out", outp, "--stats", stats,
                       "--engine", "lockstep", "--seed", "1"] + flags
                rc, out, secs = run(cmd, log)
                st = {}
                if os.path.exists(stats):
                    with open(stats) as f:
                        st = json.load(f)
                ok = rc == 0
                if not ok:
                    failures.append(("%s %s lockstep" % (name, mode), out.strip().splitlines()[-8:],
                                     " ".join(shlex.quote(c) for c in cmd)))
                chk = [PY, os.path.join(HERE, "lb_check.py"), "--tables", tables, "--in", pcap, "--out", outp,
                       "--stats", stats, "--tshark"]
                crc, cout, _ = run(chk, log) if ok else (1, "skipped", 0)
                if ok and crc != 0:
                    failures.append(("%s %s check" % (name, mode), cout.strip().splitlines()[-8:],
                                     " ".join(shlex.quote(c) for c in chk)))
                for k, v in st.get("drops", {}).items():
                    if mode == "b2b":
                        drops_total[k] = drops_total.get(k, 0) + v
                lat = st.get("latency_cycles", {})
                rows.append([name, mode, st.get("packets_in", "-"), st.get("packets_out", "-"),
                             sum(st.get("drops", {}).values()) if st else "-", st.get("cycles", "-"),
                             st.get("in_beats", "-"), st.get("input_stall_cycles", "-"),
                             "%s/%s" % (lat.get("min", "-"), lat.get("max", "-")),
                             st.get("mismatches", "-") if ok or st else "ERR",
                             "ok" if crc == 0 else "FAIL", "%.1fs" % secs])

        rdma_rows = rdma_runs(args, nettwin, log, failures) if "rdma" in blocks else []
        reorder_rows = reorder_runs(args, nettwin, log, failures) if "reorder" in blocks else []

    if "lb" in blocks:
        print_table("EJFAT load balancer regression (RTL and model in lockstep; checked by lb_check.py + tshark)",
                    ["vector", "mode", "pkts_in", "pkts_out", "drops", "cycles", "in_beats", "in_stalls",
                     "lat min/max", "mismatch", "check", "time"], rows)
        print("\ndrops by reason over all vectors (back-to-back runs):")
        print("  " + ", ".join("%s=%d" % (k, v) for k, v in sorted(drops_total.items()) if v) or "  none")
    if rdma_rows:
        print_table("RoCEv2 responder regression (RTL and model in lockstep, SystemC host memory; "
                    "checked by rdma_check.py)",
                    ["scenario", "mode", "req_in", "rsp_out", "drops", "naks", "atomics", "replays", "dma_rd",
                     "cycles", "mismatch", "check", "time"], rdma_rows)
    if reorder_rows:
        print_table("ConWeave reorder regression (RTL and model in lockstep; timed runs checked by cw_check.py, "
                    "b2b: lockstep + conservation only; fallback = unordered/collision)",
                    ["scenario", "seed", "mode", "arrivals", "delivered", "held", "by TAIL", "by timeout",
                     "fallback", "control", "result", "seconds"], reorder_rows)
    # (rows, column of packets in, column of the check result) per block
    blocks_rows = [(rows, 2, 10), (rdma_rows, 2, 11), (reorder_rows, 3, 10)]
    n_runs = sum(len(r) for r, _, _ in blocks_rows)
    tot_in = sum(r[i] for rr, i, _ in blocks_rows for r in rr if isinstance(r[i], int))
    n_ok = sum(1 for rr, _, k in blocks_rows for r in rr if r[k] == "ok")
    print("\n%d runs, %d packets, %d failures; log: %s" % (n_runs, tot_in, len(failures), log_path))
    for what, lines, cmd in failures:
        print("\nFAILED: %s" % what)
        for l in lines:
            print("  " + l)
        if cmd:
            print("  replay: " + cmd)
    print("%d passed, %d failed" % (n_ok, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
