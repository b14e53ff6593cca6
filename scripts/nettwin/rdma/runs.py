"""The RoCEv2 responder's regression runs (API: nettwin/regress/run.py).

Every nettwin.rdma.gen scenario (and the nettwin.rdma.hazard_gen hazard pairs, scenario "hazard") x seed at two
host-memory latencies (50-cycle reads; 900-cycle reads at 900 MHz with output backpressure), RTL and model in lockstep with the SystemC host memory, each checked by nettwin.rdma.check (an
independent reference). Plus the atomic-retransmit latency (`nettwin rdma-latency`, lockstep) swept over the
host read time: one host read per atomic, at-most-once, and the latencies for the report.
"""
import os

from nettwin.regress.run import PY, Run, Vector, sum_drops, tag

TITLE = "RoCEv2 responder (RTL and model in lockstep, SystemC host memory; checked by nettwin.rdma.check)"
HEADER = ["scenario", "seed", "mode", "req_in", "rsp_out", "drops", "naks", "atomics", "replays", "dma_rd",
          "cycles", "result", "time"]
SCENARIOS = ["traffic", "atomic", "lostack", "reorder", "badreq", "psnwrap", "icrc", "malformed", "send", "edge",
             "mixed", "hazard", "sendstream", "hotatomic"]
# Both modes keep the host model their expectations were made with (`--mem-model slots`, 16 outstanding:
# writes hold a slot, so the host also stalls the responder); `nettwin rdma`'s default is the PCIe model.
SLOTS = ["--mem-model", "slots", "--mem-outstanding", "16"]
MODES = [("mem50", SLOTS + ["--mem-read-cycles", "50", "--mem-write-cycles", "10"]),
         ("mem900+bp", SLOTS + ["--mem-read-cycles", "900", "--mem-write-cycles", "90", "--backpressure", "0.4",
                        "--clock-mhz", "900"])]
# host read cycles of the latency sweep (900 MHz, so 900 = the spec's 1 us)
LATENCY_READS = [50, 100, 200, 450, 900, 1800]
LATENCY_READS_QUICK = [50]


def _columns(st):
    if "first_atomic_cycles" in st:  # the latency sweep
        return ["-", "-", "-", "first %s" % st["first_atomic_cycles"],
                "recent %s" % st.get("recent_retransmit_cycles"), "retx %s" % st.get("retransmit_cycles"),
                "linear %s" % st.get("linear_retransmit_cycles"), "-"]
    return [st.get("packets_in", "-"), st.get("packets_out", "-"), sum_drops(st), st.get("naks", "-"),
            st.get("atomics", "-"), st.get("atomic_replays", "-"), st.get("dma_reads", "-"), st.get("cycles", "-")]


def _accept_stats(st):
    if not st:
        return "no readable stats JSON"
    if st.get("mismatches") != 0 or st.get("conservation_ok") is False:
        return "mismatches %s, conservation_ok %s" % (st.get("mismatches"), st.get("conservation_ok"))
    return None


def _accept_latency(st):
    if not st:
        return "rdma-latency printed no JSON"
    bad = [k for k in ("first_atomic_host_reads", "retransmit_host_reads") if st.get(k) != 1]
    if st.get("recent_retransmit_host_reads") != 0:
        bad.append("recent_retransmit_host_reads")
    if bad or st.get("at_most_once") is not True:
        return "expected one host read per atomic (none for a recent retransmit) and at-most-once: %s" % {
            k: st.get(k) for k in ("first_atomic_host_reads", "recent_retransmit_host_reads",
                                   "retransmit_host_reads", "at_most_once")}
    return None


def _measure_latency(st):
    return "-", st.get("first_atomic_cycles", "-")


def _extract_latency(run, st):
    return {k: st.get(k) for k in ("mem_read_cycles", "first_atomic_cycles", "recent_retransmit_cycles",
                                   "retransmit_cycles", "linear_retransmit_cycles")}


def runs(opts):
    out = []
    for sc in SCENARIOS:
        for seed in opts.seeds(1 if opts.quick else 3):
            d = os.path.join(opts.work, "rdma_%s_%d" % (sc, seed))
            gen = ([PY, "-m", "nettwin.rdma.hazard_gen", "--seed", str(seed), "--out-dir", d] if sc == "hazard"
                   else [PY, "-m", "nettwin.rdma.gen", "--seed", str(seed), "--out-dir", d, "--scenario", sc])
            vec = Vector("rdma/%s/%d" % (sc, seed), [gen])
            conf, req = os.path.join(d, "responder.txt"), os.path.join(d, "requests.pcap")
            for mode, flags in MODES:
                rsp = os.path.join(d, "rsp_%s.pcap" % tag(mode))
                mem = os.path.join(d, "mem_%s.json" % tag(mode))
                stats = os.path.join(d, "stats_%s.json" % tag(mode))
                cmd = [opts.nettwin, "rdma", "--config", conf, "--in", req, "--out", rsp, "--mem-out", mem,
                       "--stats", stats, "--engine", "lockstep"] + flags
                chk = [PY, "-m", "nettwin.rdma.check", "--config", conf, "--in", req, "--out", rsp,
                       "--mem-out", mem, "--stats", stats]
                out.append(Run("rdma", sc, seed, mode, cmd, vector=vec, checks=[("rdma_check", chk)], stats=stats,
                               outputs=[rsp, mem], accept=_accept_stats, columns=_columns))
    for reads in LATENCY_READS_QUICK if opts.quick else LATENCY_READS:
        cmd = [opts.nettwin, "rdma-latency", "--json"] + SLOTS + ["--mem-read-cycles", str(reads),
                                                                 "--mem-write-cycles", str(max(1, reads // 10))]
        out.append(Run("rdma", "atomic-latency", None, "read%d" % reads, cmd, accept=_accept_latency,
                       columns=_columns, measure=_measure_latency, extract=_extract_latency))
    # Issue 25's throughput targets against `nettwin rdma`'s default host (WRITE, READ at R = 900, SEND at
    # R = 900, FAA on distinct words and on one word), RTL and model in lockstep: rdma_bench exits 1 on a miss.
    bench = os.path.join(os.path.dirname(opts.nettwin), "rdma_bench")
    out.append(Run("rdma", "throughput-targets", None, "default-host", [bench, "--targets", "--engine", "lockstep"],
                   accept=lambda st: None, columns=lambda st: ["-"] * 8, measure=lambda st: ("-", "-")))
    return out


def plots(results, out_dir):
    """Atomic latency against the host read time (the rdma-latency sweep)."""
    from nettwin.regress.plot import finish, plt
    pts = sorted((r.data["mem_read_cycles"], r.data) for r in results
                 if r.data.get("mem_read_cycles") is not None and r.data.get("first_atomic_cycles") is not None)
    if not pts:
        return []
    xs = [x for x, _ in pts]
    fig, ax = plt.subplots(figsize=(9, 4))
    for key, label, style in (("first_atomic_cycles", "first FAA", "o-"),
                              ("retransmit_cycles", "retransmitted FAA (AQ grouped)", "s-"),
                              ("linear_retransmit_cycles", "retransmitted FAA (AQ linear)", "^--")):
        ax.plot(xs, [d[key] for _, d in pts], style, label=label)
    ax.plot(xs, xs, ":", color="grey", label="one host read")
    ax.set_xscale("log")
    ax.set_yscale("log")
    return finish(fig, ax, "host read time, cycles (900 MHz)", "atomic latency, cycles", out_dir,
                  "rdma_atomic_latency.png", "RDMA atomic latency per host read time",
                  "nettwin rdma-latency (lockstep): a FAA after 255 atomics, its ACK lost and the request "
                  "retransmitted. Grouped AQ: one host read; linear: one per group walked.")
