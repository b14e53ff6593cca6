"""The VNIC block's regression runs (scripts/regress.py calls `vnic_runs`).

Per seed: vnic_gen.py makes a vector; for each stimulus mode (back to back; input gaps + output
backpressure) `nettwin vnic --engine lockstep` encapsulates D/eth.pcap and decapsulates D/opa.pcap, each
output checked by vnic_check.py (independent reference + field-by-field decode + stats), then the
encapsulation output is decapsulated again and vnic_check.py roundtrip requires every frame back byte for
byte on its port.
"""
import json
import os
import shlex

MODES = [("b2b", []), ("gaps+bp", ["--gaps", "0.3", "--backpressure", "0.4", "--seed", "{seed}"])]
HEADER = ["vector", "mode", "run", "pkts_in", "pkts_out", "drops", "cycles", "out_beats", "mismatch", "check",
          "time"]
IN_COL, CHECK_COL = 3, 9


def _quote(cmd):
    return " ".join(shlex.quote(c) for c in cmd)


def vnic_runs(seeds, frames, work, nettwin, py, scripts, run, log, failures):
    rows = []
    for seed in seeds:
        d = os.path.join(work, "vnic_%d" % seed)
        gen = [py, os.path.join(scripts, "vnic_gen.py"), "--seed", str(seed), "--out-dir", d,
               "--frames", str(frames)]
        rc, out, _ = run(gen, log)
        if rc != 0:
            failures.append(("vnic %d generation" % seed, out.strip().splitlines()[-3:], _quote(gen)))
            continue
        conf = os.path.join(d, "vnic.txt")
        eth, ports, opa = (os.path.join(d, f) for f in ("eth.pcap", "eth.ports", "opa.pcap"))
        chk_base = [py, os.path.join(scripts, "vnic_check.py")]
        for mode, flags in MODES:
            tag = mode.replace("+", "_")
            fl = [f.format(seed=seed) for f in flags]
            enc = os.path.join(d, "enc_%s.pcap" % tag)
            jobs = [
                ("encap", [nettwin, "vnic", "--config", conf, "--direction", "encap", "--in", eth, "--ports", ports,
                           "--out", enc], ["encap", "--in", eth, "--ports", ports, "--out", enc]),
                ("decap", [nettwin, "vnic", "--config", conf, "--direction", "decap", "--in", opa, "--out",
                           os.path.join(d, "dec_%s.pcap" % tag), "--ports-out", os.path.join(d, "dec_%s.ports" % tag)],
                 ["decap", "--in", opa, "--out", os.path.join(d, "dec_%s.pcap" % tag), "--ports-out",
                  os.path.join(d, "dec_%s.ports" % tag)]),
                ("roundtrip", [nettwin, "vnic", "--config", conf, "--direction", "decap", "--in", enc, "--out",
                               os.path.join(d, "rt_%s.pcap" % tag), "--ports-out", os.path.join(d, "rt_%s.ports" % tag)],
                 ["roundtrip", "--in", eth, "--ports", ports, "--out", os.path.join(d, "rt_%s.pcap" % tag),
                  "--ports-out", os.path.join(d, "rt_%s.ports" % tag)]),
            ]
            for name, cmd, chk in jobs:
                stats = os.path.join(d, "stats_%s_%s.json" % (name, tag))
                if os.path.exists(stats):
                    os.remove(stats)
                cmd = cmd + ["--stats", stats, "--engine", "lockstep"] + fl
                chk = chk_base + [chk[0], "--config", conf] + chk[1:] + (["--stats", stats] if name != "roundtrip"
                                                                         else [])
                replay = " && ".join(_quote(c) for c in (gen, cmd, chk))
                rc, out, secs = run(cmd, log)
                st = {}
                try:
                    with open(stats) as f:
                        st = json.load(f)
                except (OSError, ValueError):
                    pass
                what = "vnic %d %s %s" % (seed, mode, name)
                if rc != 0:
                    failures.append((what + " lockstep (exit %d)" % rc, out.strip().splitlines()[-8:], replay))
                    result = "FAIL"
                else:
                    crc, cout, _ = run(chk, log)
                    if crc != 0:
                        failures.append((what + " check (exit %d)" % crc, cout.strip().splitlines()[-6:], replay))
                    result = "ok" if crc == 0 else "FAIL"
                rows.append([seed, mode, name, st.get("packets_in", "-"), st.get("packets_out", "-"),
                             sum(st.get("drops", {}).values()) if st else "-", st.get("cycles", "-"),
                             st.get("out_beats", "-"), st.get("mismatches", "ERR") if st else "ERR", result,
                             "%.1fs" % secs])
    return rows
