"""The NAAICE endpoint's regression runs (API: nettwin/regress/run.py).

Per seed, nettwin.naa.gen writes D/naa.txt, D/naa_req.txt, D/naa_ctl.txt, D/naa_rpc_err.txt and one client pcap per
scenario (connect, lost, reject, bad; requester, req_fatal, req_retry with their gates, on naa_req.txt; mrsp,
rpc, rpc_err, rpc_lost with their gates, on naa_ctl.txt / naa_rpc_err.txt: the controller); each
scenario runs `nettwin naa --engine lockstep` (RTL and model in lockstep, SystemC host memory) back to back
and with input gaps + output backpressure, and nettwin.naa.check compares every server frame byte for byte with
the independent reference (Python CM + the responder's Python reference), decodes the CM messages with Scapy
and tshark, and checks the counters.
"""
import os

from nettwin.naa.gen import REQ_SCENARIOS, SCENARIOS
from nettwin.naa.gen_rpc import CONFIG_OF
from nettwin.regress.run import PY, Run, Vector, stats_ok, tag

TITLE = ("NAAICE endpoint: connection manager + RoCEv2 responder + requester + controller (MRSP, RPC kernels) "
         "(RTL and model in lockstep; checked by nettwin.naa.check: independent reference, kernels from the client's "
         "parameters, Scapy and tshark decode)")
HEADER = ["scenario", "seed", "mode", "frames_in", "frames_out", "cm_drops", "connects", "rejects", "cycles",
          "result", "time"]
MODES = [("b2b", []), ("gaps+bp", ["--gaps", "0.3", "--backpressure", "0.4", "--seed", "{seed}"])]


def _columns(st):
    cm = st.get("cm", {})
    return [st.get("packets_in", "-"), st.get("packets_out", "-"), sum(cm.get("drops", {}).values()),
            cm.get("connects", "-"), cm.get("rejects", "-"), st.get("cycles", "-")]


def runs(opts):
    out = []
    for seed in opts.seeds(1 if opts.quick else 8):
        d = os.path.join(opts.work, "naa_%d" % seed)
        vec = Vector("naa/%d" % seed, [[PY, "-m", "nettwin.naa.gen", "--seed", str(seed), "--out-dir", d]])
        for scen in SCENARIOS:
            conf = os.path.join(d, CONFIG_OF.get(scen, "naa_req.txt" if scen in REQ_SCENARIOS else "naa.txt"))
            client = os.path.join(d, scen + ".pcap")
            for mode, flags in MODES:
                t = tag(mode)
                server, st = os.path.join(d, "%s_%s.out.pcap" % (scen, t)), os.path.join(d, "%s_%s.json" % (scen, t))
                cmd = [opts.nettwin, "naa", "--config", conf, "--in", client, "--out", server, "--stats", st,
                       "--engine", "lockstep"] + [f.format(seed=seed) for f in flags]
                checks = [("naa_check", [PY, "-m", "nettwin.naa.check", "--config", conf, "--in", client,
                                         "--out", server, "--stats", st])]
                out.append(Run("naa", scen, seed, mode, cmd, vector=vec, checks=checks, stats=st,
                               outputs=[server, st], accept=stats_ok, columns=_columns))
    return out
