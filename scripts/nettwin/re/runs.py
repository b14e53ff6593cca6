"""Regression runs of the EJFAT control plane and the closed loop (API: nettwin/regress/run.py).

lb-plan: per seed, nettwin.lb.plan_gen's scenario; `nettwin lb-plan` plans the initial epoch and then the switch and
its cleanup; `nettwin lb` runs them mid-run (run_traffic interleaving) in lockstep, back to back and with gaps
+ backpressure; checked by nettwin.lb.plan_check (the switch, every packet's member) and nettwin.lb.check (bytes).
ejfat-loop: the same with events as traffic, then one `nettwin re` (RTL + cycle model in lockstep) per member;
nettwin.re.loop checks every event was reassembled exactly once at the member its tick maps to.
udplb_loop (the first two seeds): the closed loop through ESnet's udplb program with E2SAR framing (LB v2 and v3
headers; nettwin.re.loop --program udplb, the switch planned by `nettwin lb-plan --program udplb`).
re: per seed, nettwin.re.gen's events (split, shuffled, duplicated, overlapped, lost, late, malformed frames; odd seeds with
E2SAR's 20-byte header) through
`nettwin re` in lockstep, back to back and with gaps + output backpressure; checked by nettwin.re.check.
re_host (the first two seeds): `buffer host` (event bytes placed in host memory by DMA): nettwin.re.gen --host's E2SAR events
from 1 B to 16 MiB (one of exactly 16 MiB, one up to 4 MiB, shuffled over the run) in lockstep, back to back, with
gaps + backpressure, and with a host slower than line rate (40 write credits for a 100-cycle latency: input
stalls); nettwin.re.check reads each event from the completion record and --host-data.
The test suite runs the same pipelines (ctests lb_plan, ejfat_loop), so --quick declares none.
"""
import os

from nettwin.regress.run import PY, Run, Vector, stats_ok, sum_drops, tag

MODES = [("b2b", []), ("gaps+bp", ["--gaps", "0.3", "--backpressure", "0.4"])]


def _prepare(opts, d, gen):
    """The vector: the scenario, the initial plan, the switch and its cleanup, the run script."""
    nt = opts.nettwin
    plan = ("%s lb-plan --tables {d}/current.txt --members {d}/members1.txt --boundary $(%s -c \"import json; "
            "print(json.load(open('{d}/scenario.json'))['boundary'])\") --current-start $(%s -c \"import json; "
            "print(json.load(open('{d}/scenario.json'))['start'])\") --now $(%s -c \"import json; "
            "print(json.load(open('{d}/scenario.json'))['now'])\") --out {d}/switch.txt --cleanup-out "
            "{d}/cleanup.txt --json {d}/plan.json" % (nt, PY, PY, PY)).format(d=d)
    return [gen,
            [nt, "lb-plan", "--tables", os.path.join(d, "filter.txt"), "--members", os.path.join(d, "members0.txt"),
             "--out", os.path.join(d, "init.txt")],
            ["bash", "-c", "cat %s/filter.txt %s/init.txt > %s/current.txt" % (d, d, d)],
            ["bash", "-c", plan],
            [PY, "-m", "nettwin.lb.plan_gen", "assemble", "--dir", d]]


def _plan_columns(st):
    return [st.get("packets_in", "-"), st.get("packets_out", "-"), sum_drops(st), st.get("cycles", "-")]


def runs(opts):
    if opts.quick:
        return []
    out = []
    for seed in opts.seeds(8):
        for kind, gen_script in (("switch", "nettwin.lb.plan_gen"), ("loop", "nettwin.re.loop")):
            d = os.path.join(opts.work, "lbplan_%s%d" % (kind, seed))
            gen = [PY, "-m", gen_script, "gen", "--seed", str(seed), "--out-dir", d]
            vec = Vector("ejfat/%s%d" % (kind, seed), _prepare(opts, d, gen))
            for mode, flags in MODES:
                outp, stats = os.path.join(d, "out_%s.pcap" % tag(mode)), os.path.join(d, "stats_%s.json" % tag(mode))
                cmd = [opts.nettwin, "lb", "--tables", os.path.join(d, "run.txt"), "--in",
                       os.path.join(d, "packets_in.pcap"), "--out", outp, "--stats", stats, "--engine", "lockstep",
                       "--seed", str(seed)] + flags
                checks = [("lb_plan_check", [PY, "-m", "nettwin.lb.plan_check", "--dir", d, "--out", outp,
                                             "--stats", stats])]
                if kind == "switch":
                    checks.append(("lb_check", [PY, "-m", "nettwin.lb.check", "--tables", os.path.join(d, "run.txt"),
                                                "--in", os.path.join(d, "packets_in.pcap"), "--out", outp,
                                                "--stats", stats]))
                else:
                    # each mode its own member files: the two modes of a seed run in parallel with -j
                    work = ["--dir", d, "--work", os.path.join(d, "members_%s" % tag(mode))]
                    loop = [PY, "-m", "nettwin.re.loop"]
                    checks += [("split", loop + ["split", "--out", outp] + work),
                               ("reassemble", loop + ["reassemble", "--nettwin", opts.nettwin] + work),
                               ("exactly_once", loop + ["check"] + work)]
                out.append(Run("ejfat", kind, seed, mode, cmd, vector=vec, checks=checks, stats=stats,
                               outputs=[outp], accept=stats_ok, columns=_plan_columns))
        d = os.path.join(opts.work, "re%d" % seed)
        if seed in opts.seeds(8)[:2]:
            out += _udplb_loop_runs(opts, seed)
            out += _re_host_runs(opts, seed)
        # odd seeds: E2SAR's 20-byte header (nettwin.re.gen --header e2sar; docs/re.md "E2SAR's header")
        vec = Vector("ejfat/re%d" % seed, [[PY, "-m", "nettwin.re.gen", "--seed", str(seed), "--out-dir", d,
                                            "--header", "e2sar" if seed % 2 else "evio6"]])
        for mode, flags in MODES:
            ev, rep = os.path.join(d, "events_%s.pcap" % tag(mode)), os.path.join(d, "report_%s.json" % tag(mode))
            cmd = [opts.nettwin, "re", "--engine", "lockstep", "--config", os.path.join(d, "re.txt"), "--in",
                   os.path.join(d, "segments.pcap"), "--out", ev, "--report", rep, "--seed", str(seed)] + flags
            checks = [("re_check", [PY, "-m", "nettwin.re.check", "--dir", d, "--events", ev, "--report", rep])]
            out.append(Run("ejfat", "re", seed, mode, cmd, vector=vec, checks=checks, stats=rep, outputs=[ev],
                           accept=stats_ok, columns=_re_columns,
                           measure=lambda st: (st.get("segments_in", "-"), st.get("cycles", "-"))))
    return out


def _udplb_loop_runs(opts, seed):
    """The closed loop through ESnet's udplb program with E2SAR framing (nettwin.re.loop --program udplb: LB v2 and
    v3, the switch planned by `nettwin lb-plan --program udplb`, checked by nettwin.lb.udplb_plan_check plan), both
    stimulus modes; nettwin.lb.udplb_check compares the LB's output with the independent reference byte for byte."""
    d = os.path.join(opts.work, "udplb_loop%d" % seed)
    loop = [PY, "-m", "nettwin.re.loop"]
    vec = Vector("ejfat/udplb_loop%d" % seed,
                 [loop + ["gen", "--program", "udplb", "--seed", str(seed), "--out-dir", d, "--nettwin", opts.nettwin],
                  [PY, "-m", "nettwin.lb.udplb_plan_check", "plan", "--dir", d]])
    out = []
    for mode, flags in MODES:
        outp, stats = os.path.join(d, "out_%s.pcap" % tag(mode)), os.path.join(d, "stats_%s.json" % tag(mode))
        cmd = [opts.nettwin, "lb", "--program", "udplb", "--tables", os.path.join(d, "run.txt"), "--in",
               os.path.join(d, "packets_in.pcap"), "--out", outp, "--stats", stats, "--engine", "lockstep",
               "--seed", str(seed)] + flags
        work = ["--dir", d, "--work", os.path.join(d, "members_%s" % tag(mode))]
        checks = [("udplb_check", [PY, "-m", "nettwin.lb.udplb_check", "--tables", os.path.join(d, "run.txt"), "--in",
                                   os.path.join(d, "packets_in.pcap"), "--out", outp, "--stats", stats]),
                  ("split", loop + ["split", "--program", "udplb", "--out", outp] + work),
                  ("reassemble", loop + ["reassemble", "--nettwin", opts.nettwin] + work),
                  ("exactly_once", loop + ["check"] + work)]
        out.append(Run("ejfat", "udplb_loop", seed, mode, cmd, vector=vec, checks=checks, stats=stats,
                       outputs=[outp], accept=stats_ok, columns=_plan_columns))
    return out


HOST_MODES = MODES + [("slowhost", ["--host-outstanding", "40"])]


def _re_host_runs(opts, seed):
    """`buffer host`: events of 1 B .. 16 MiB placed in host memory by DMA (docs/re-microarchitecture.md)."""
    d = os.path.join(opts.work, "re_host%d" % seed)
    vec = Vector("ejfat/re_host%d" % seed, [[PY, "-m", "nettwin.re.gen", "--seed", str(seed), "--out-dir", d,
                                              "--host", "--events", "30"]])
    out = []
    for mode, flags in HOST_MODES:
        ev, rep = os.path.join(d, "events_%s.pcap" % tag(mode)), os.path.join(d, "report_%s.json" % tag(mode))
        data = os.path.join(d, "events_%s.bin" % tag(mode))
        cmd = [opts.nettwin, "re", "--engine", "lockstep", "--config", os.path.join(d, "re.txt"), "--in",
               os.path.join(d, "segments.pcap"), "--out", ev, "--report", rep, "--host-data", data,
               "--seed", str(seed)] + flags
        checks = [("re_check", [PY, "-m", "nettwin.re.check", "--dir", d, "--events", ev, "--report", rep,
                                "--host-data", data])]
        out.append(Run("ejfat", "re_host", seed, mode, cmd, vector=vec, checks=checks, stats=rep, outputs=[ev, data],
                       accept=stats_ok, columns=_re_columns,
                       measure=lambda st: (st.get("segments_in", "-"), st.get("cycles", "-"))))
    return out


def _re_columns(st):
    return [st.get("segments_in", "-"), st.get("events_completed", "-"), sum_drops(st), st.get("cycles", "-")]


TITLE = ("EJFAT epoch switch (lb-plan's script applied mid-run, lockstep; nettwin.lb.plan_check + nettwin.lb.check), "
         "closed loop (+ one RE in lockstep per member, every event exactly once at its member; seed program, and "
         "udplb with E2SAR framing), and the RE alone "
         "in lockstep (nettwin.re.check)")
HEADER = ["scenario", "seed", "mode", "pkts_in", "pkts_out", "drops", "cycles", "result", "time"]
