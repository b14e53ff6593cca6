"""The OPA VNIC block's regression runs (API: nettwin/regress/run.py).

Per seed, nettwin.vnic.gen makes a vector (D/vnic.txt, D/eth.pcap + D/eth.ports, D/opa.pcap); for each stimulus
mode (back to back; input gaps + output backpressure):
  encap: `nettwin vnic --direction encap --engine lockstep`, checked by nettwin.vnic.check encap (independent
         reference, field-by-field decode, ICRC / length / pad, stats); then the round trip: the encapsulation
         output decapsulated again in lockstep, and nettwin.vnic.check roundtrip requires every frame back byte
         for byte on the port it came from;
  decap: `nettwin vnic --direction decap --engine lockstep` on the valid and corrupted 16B packets, checked by
         nettwin.vnic.check decap (frames, ports, drop counts by reason).
"""
import os

from nettwin.regress.run import PY, Run, Vector, stats_ok, sum_drops, tag

TITLE = ("OPA VNIC (RTL and model in lockstep; checked by nettwin.vnic.check: independent reference, field-by-field "
         "decode, round trip)")
HEADER = ["scenario", "seed", "mode", "pkts_in", "pkts_out", "drops", "cycles", "out_beats", "result", "time"]
MODES = [("b2b", []), ("gaps+bp", ["--gaps", "0.3", "--backpressure", "0.4", "--seed", "{seed}"])]


def _columns(st):
    return [st.get("packets_in", "-"), st.get("packets_out", "-"), sum_drops(st), st.get("cycles", "-"),
            st.get("out_beats", "-")]


def runs(opts):
    out = []
    for seed in opts.seeds(1 if opts.quick else 10):
        d = os.path.join(opts.work, "vnic_%d" % seed)
        frames = "240" if opts.quick else "600"
        gen = [PY, "-m", "nettwin.vnic.gen", "--seed", str(seed), "--out-dir", d, "--frames", frames]
        vec = Vector("vnic/%d" % seed, [gen])
        conf = os.path.join(d, "vnic.txt")
        eth, ports, opa = (os.path.join(d, f) for f in ("eth.pcap", "eth.ports", "opa.pcap"))
        chk = [PY, "-m", "nettwin.vnic.check"]
        for mode, flags in MODES:
            fl = [f.format(seed=seed) for f in flags]
            t = tag(mode)
            enc, enc_st = os.path.join(d, "enc_%s.pcap" % t), os.path.join(d, "stats_encap_%s.json" % t)
            rt, rt_ports = os.path.join(d, "rt_%s.pcap" % t), os.path.join(d, "rt_%s.ports" % t)
            cmd = [opts.nettwin, "vnic", "--config", conf, "--direction", "encap", "--in", eth, "--ports", ports,
                   "--out", enc, "--stats", enc_st, "--engine", "lockstep"] + fl
            checks = [("vnic_check encap", chk + ["encap", "--config", conf, "--in", eth, "--ports", ports,
                                                  "--out", enc, "--stats", enc_st]),
                      ("decap of the output", [opts.nettwin, "vnic", "--config", conf, "--direction", "decap",
                                               "--in", enc, "--out", rt, "--ports-out", rt_ports,
                                               "--engine", "lockstep"] + fl),
                      ("vnic_check roundtrip", chk + ["roundtrip", "--config", conf, "--in", eth, "--ports", ports,
                                                      "--out", rt, "--ports-out", rt_ports])]
            out.append(Run("vnic", "encap", seed, mode, cmd, vector=vec, checks=checks, stats=enc_st,
                           outputs=[enc, rt, rt_ports], accept=stats_ok, columns=_columns))
            dec, dec_ports = os.path.join(d, "dec_%s.pcap" % t), os.path.join(d, "dec_%s.ports" % t)
            dec_st = os.path.join(d, "stats_decap_%s.json" % t)
            cmd = [opts.nettwin, "vnic", "--config", conf, "--direction", "decap", "--in", opa, "--out", dec,
                   "--ports-out", dec_ports, "--stats", dec_st, "--engine", "lockstep"] + fl
            checks = [("vnic_check decap", chk + ["decap", "--config", conf, "--in", opa, "--out", dec,
                                                  "--ports-out", dec_ports, "--stats", dec_st])]
            out.append(Run("vnic", "decap", seed, mode, cmd, vector=vec, checks=checks, stats=dec_st,
                           outputs=[dec, dec_ports], accept=stats_ok, columns=_columns))
    return out
