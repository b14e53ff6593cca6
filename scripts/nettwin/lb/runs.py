"""The EJFAT load balancer's regression runs (API: nettwin/regress/run.py).

Vectors: the spec's own example (nettwin.lb.spec_gen + vectors/lb/spec/runsim.txt) and nettwin.lb.gen seeds; for the
udplb program (--program udplb) udplb's own test-1 and nettwin.lb.udplb_gen seeds, checked by nettwin.lb.udplb_check. Each is
run back to back and with input gaps + output backpressure, RTL and model in lockstep; every output is checked
by nettwin.lb.check (independent Scapy reference + tshark checksum validation) and the back-to-back run also decodes
the input with the spec's tshark dissectors (nettwin.lb.test_dissectors).
"""
import os

from nettwin.regress.run import PY, Run, Vector, stats_ok, sum_drops, tag

TITLE = ("EJFAT load balancer, seed and udplb programs (RTL and model in lockstep; checked by nettwin.lb.check / "
         "nettwin.lb.udplb_check + tshark, udplb test-1 against the peer's expected output)")
HEADER = ["vector", "seed", "mode", "pkts_in", "pkts_out", "drops", "cycles", "in_beats", "in_stalls",
          "lat min/max", "result", "time"]
MODES = [("b2b", []), ("gaps+bp", ["--gaps", "0.3", "--backpressure", "0.4"])]


def _columns(st):
    lat = st.get("latency_cycles", {})
    return [st.get("packets_in", "-"), st.get("packets_out", "-"), sum_drops(st), st.get("cycles", "-"),
            st.get("in_beats", "-"), st.get("input_stall_cycles", "-"),
            "%s/%s" % (lat.get("min", "-"), lat.get("max", "-"))]


def _extract(run, st):
    return {"latency_histogram": st.get("latency_cycles", {}).get("histogram", []),
            "in_beats": st.get("in_beats"), "cycles": st.get("cycles")}


def _vectors(opts):
    spec_dir = os.path.join(opts.work, "lb_spec")
    pcap = os.path.join(spec_dir, "packets_in.pcap")
    yield ("spec", None, Vector("lb/spec", [["mkdir", "-p", spec_dir],
                                                [PY, "-m", "nettwin.lb.spec_gen", "--out", pcap]]),
           os.path.join(opts.root, "vectors/lb/spec/runsim.txt"), pcap)
    packets = opts.packets or (150 if opts.quick else 600)
    for seed in opts.seeds(2 if opts.quick else 10):
        d = os.path.join(opts.work, "lb_rand%d_%dp" % (seed, packets))
        gen = [PY, "-m", "nettwin.lb.gen", "--seed", str(seed), "--out-dir", d, "--packets", str(packets)]
        yield ("rand", seed, Vector("lb/rand%d/%d" % (seed, packets), [gen]), os.path.join(d, "runsim.txt"),
               os.path.join(d, "packets_in.pcap"))


def runs(opts):
    out = []
    for scenario, seed, vec, tables, pcap in _vectors(opts):
        d = os.path.dirname(pcap)
        for mode, flags in MODES:
            outp = os.path.join(d, "out_%s.pcap" % tag(mode))
            stats = os.path.join(d, "stats_%s.json" % tag(mode))
            cmd = [opts.nettwin, "lb", "--tables", tables, "--in", pcap, "--out", outp, "--stats", stats,
                   "--engine", "lockstep", "--seed", "1"] + flags
            checks = [("lb_check", [PY, "-m", "nettwin.lb.check", "--tables", tables, "--in", pcap,
                                    "--out", outp, "--stats", stats, "--tshark"])]
            if mode == "b2b":
                checks.append(("dissectors", [PY, "-m", "nettwin.lb.test_dissectors", pcap] +
                               (["--spec"] if scenario == "spec" else [])))
            out.append(Run("lb", scenario, seed, mode, cmd, vector=vec, checks=checks, stats=stats,
                           outputs=[outp], accept=stats_ok, columns=_columns, extract=_extract))
    return out + udplb_runs(opts)


def summary(results):
    """Drops by reason over the back-to-back runs (each vector once)."""
    drops = {}
    for res in results:
        if res.run.mode == "b2b":
            for k, v in res.stats.get("drops", {}).items():
                drops[k] = drops.get(k, 0) + v
    return "drops by reason over all vectors (back-to-back runs): " + (
        ", ".join("%s=%d" % (k, v) for k, v in sorted(drops.items()) if v) or "none")


def plots(results, out_dir):
    """Latency histogram per stimulus mode (all passed runs of the mode together)."""
    from nettwin.regress.plot import finish, plt
    hist = {}
    for res in results:
        for cycles, frames in res.data.get("latency_histogram", []):
            h = hist.setdefault(res.run.mode, {})
            h[cycles] = h.get(cycles, 0) + frames
    if not hist:
        return []
    fig, ax = plt.subplots(figsize=(9, 4))
    modes = sorted(hist)
    width = 0.8 / len(modes)
    for k, mode in enumerate(modes):
        xs = sorted(hist[mode])
        ax.bar([x - 0.4 + width * (k + 0.5) for x in xs], [hist[mode][x] for x in xs], width=width,
               label="%s (%d frames)" % (mode, sum(hist[mode].values())))
    ax.set_yscale("log")
    ax.xaxis.get_major_locator().set_params(integer=True)  # latencies are whole cycles
    return finish(fig, ax, "latency, cycles (first beat in to first beat out)", "forwarded frames", out_dir,
                  "lb_latency.png", "LB latency per stimulus mode",
                  "Every forwarded frame of every passed LB run; b2b stays at the pipeline's fixed latency, "
                  "gaps+bp adds the output backpressure's wait.")


# ---------------------------------------------------------------------------------------------
# The udplb program (docs/lb-udplb.md): `nettwin lb --program udplb`, checked by the independent reference.
# ---------------------------------------------------------------------------------------------

def _udplb_vectors(opts):
    """(scenario, seed, Vector or None, tables, pcap, ttl settings): udplb's own test-1 (vectors/peers/udplb,
    expected/ predates the TTL decrement: off must equal it byte for byte) and nettwin.lb.udplb_gen seeds."""
    peer = os.path.join(opts.root, "vectors", "peers", "udplb")
    yield ("udplb_test1", None, None, os.path.join(peer, "cli_commands.txt"), os.path.join(peer, "packets_in.pcap"),
           ("off", "on"))
    packets = opts.packets or (150 if opts.quick else 600)
    for seed in opts.seeds(2 if opts.quick else 10):
        d = os.path.join(opts.work, "udplb_rand%d_%dp" % (seed, packets))
        pcap, tables = os.path.join(d, "packets_in.pcap"), os.path.join(d, "tables.txt")
        gen = [PY, "-m", "nettwin.lb.udplb_gen", "--seed", str(seed), "--out-pcap", pcap, "--out-tables", tables,
               "--packets", str(packets)]
        yield ("udplb_rand", seed, Vector("lb/udplb_rand%d/%d" % (seed, packets), [["mkdir", "-p", d], gen]),
               tables, pcap, ("on",) if seed % 2 else ("off",))


def udplb_runs(opts):
    """Every udplb vector, back to back and with gaps + backpressure, each output checked by nettwin.lb.udplb_check (the
    independent reference: frames byte for byte, counters, .meta, Scapy and tshark checksums); test-1's output
    with the TTL decrement off also against udplb's own expected_packets_out.pcap (cmp of the frames by the
    check's --out on the peer's file)."""
    out = []
    for scenario, seed, vec, tables, pcap, ttls in _udplb_vectors(opts):
        d = os.path.dirname(pcap) if vec else os.path.join(opts.work, "udplb_test1")
        for ttl in ttls:
            for mode, flags in MODES:
                t = "%s_ttl%s" % (tag(mode), ttl)
                outp, stats, meta = (os.path.join(d, "%s_%s.%s" % (x, t, e))
                                     for x, e in (("out", "pcap"), ("stats", "json"), ("out", "meta")))
                cmd = [opts.nettwin, "lb", "--program", "udplb", "--tables", tables, "--in", pcap, "--out", outp,
                       "--stats", stats, "--meta-out", meta, "--ttl-decrement", ttl, "--engine", "lockstep",
                       "--seed", "1"] + flags
                common = [PY, "-m", "nettwin.lb.udplb_check", "--tables", tables, "--in", pcap, "--ttl-decrement", ttl]
                checks = [("udplb_check", common + ["--out", outp, "--stats", stats, "--meta", meta, "--tshark"])]
                peer = os.path.dirname(pcap)
                if scenario == "udplb_test1" and ttl == "off" and mode == "b2b":   # one reader of the peer's file
                    checks.append(("udplb_expected", common + ["--out", os.path.join(peer,
                                                                                     "expected_packets_out.pcap")]))
                if scenario == "udplb_test1" and ttl == "off":  # the DUT against the peer's own files, no reference
                    checks.append(("peer_expected_pcap", ["env", "PYTHONPATH=" + opts.scripts, PY, "-m",
                                                          "nettwin.common.frames_equal", outp,
                                                          os.path.join(peer, "expected_packets_out.pcap")]))
                    checks.append(("peer_expected_meta", ["cmp", meta, os.path.join(peer, "expected_packets_out.meta")]))
                pre = [] if vec else [Vector("lb/udplb_test1_dir", [["mkdir", "-p", d]])]
                out.append(Run("lb", scenario + "_ttl" + ttl, seed, mode, cmd, vector=vec or pre[0], checks=checks,
                               stats=stats, outputs=[outp, meta], accept=stats_ok, columns=_columns,
                               extract=_extract))
    return out
