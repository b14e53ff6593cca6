#!/usr/bin/python3
"""The seed's feedback loop, closed: members' fill reports -> PID (as udplbd2) -> weights -> `nettwin lb-plan`
-> hitless epoch switches -> the events' member, and back into the members' queues.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.feedback gen   --nettwin build/nettwin --out-dir D [--seed S] [--quick]
  build/nettwin lb --engine fast --tables D/run.txt --in D/packets_in.pcap --out D/out.pcap --stats D/stats.json
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.feedback check --dir D --out D/out.pcap --stats D/stats.json
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.feedback plot  --dir D --png D/feedback.png

gen simulates the loop event by event (docs/lb.md, "Control plane: the feedback loop"). One event per time unit,
its tick = its number. The tables are the data plane's: every table script the loop writes (the initial plan,
then per report period the previous switch's cleanup and the next switch) is applied to the Python table model
(nettwin/lb/tables.py), and each event's member is what those tables give for its tick (epoch_assign_table ->
calendar slot tick & 0x1FF -> member_info_lookup_table -> the member's rewrite). Each member serves its queue
at its rate (with seeded jitter); every period it reports its fill (queue / capacity), the controller turns
the reports into weights, and `nettwin lb-plan` plans a switch whose boundary is `lead` ticks ahead (--now
is the newest tick sent). Member `slow` becomes three times slower at period `slow_at`.
gen writes D/run.txt (every table script with run_traffic between them, in the order the loop applied them),
D/packets_in.pcap (each event as 1..3 LB packets, consecutive), D/trace.json (per period: fills, weights,
slot counts, events per member) and D/events.json (each event's member in the simulation).

check (independent of the planner: it reads only the LB's output) checks, on `nettwin lb`'s run of those
files: nothing dropped, every packet out; all packets of an event went to one member, the one the simulation
used (so the simulation's mapping is the data plane's); no event lost to a full queue; and the slow member's
share of new events over the last quarter of the run is within 10% of what its rate allows, read both ways:
its rate / the offered event rate (the most it can take without its queue growing) and its rate / the sum of
the rates (the rate-proportional share). Prints nettwin.common.report's report (`lb_feedback: PASS: ...`, or the
first failed check's MISMATCH line and `lb_feedback: FAIL: ...`): exit 0 ok, 1 check failed, 2 unusable input.
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys

from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.common.report import Fail, Report
from nettwin.lb import tables as lb_tables
from nettwin.lb.tables import ScriptError

LB_MAC, LB_IP4, LB_PORT = 0x00aabbccddee, "10.1.2.3", 0x4C42
FILTER = "table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>\n"
SLOTS = 512


# The loop's parameters: full run (regression) and --quick (ctest).
FULL = dict(members=4, rate=0.32, period=1024, lead=512, periods=64, slow=2, slow_at=12, capacity=2048,
            setpoint=0.3, kp=1000.0, ki=0.0, kd=3000.0, jitter=0.5, tick0=1 << 32)
QUICK = dict(FULL, period=512, lead=256, periods=32, slow_at=8, capacity=1024)


def member_rewrite(i):
    """(mac, ipv4 as int, udp port) of member i."""
    return 0x0200000000f0 + i, (10 << 24) | (8 << 16) | (i + 1), 30000 + i


class Pid:
    """udplbd2's PIDController (src/dataplane/receiver.rs): error = set point - measured; the integral is the
    sum of the errors, the derivative the difference to the previous error (no time step: one update per
    report); output kp * e + ki * integral + kd * derivative."""

    def __init__(self, kp, ki, kd, set_point):
        self.kp, self.ki, self.kd, self.set_point = kp, ki, kd, set_point
        self.integral = 0.0
        self.previous_error = 0.0

    def update(self, measured):
        error = self.set_point - measured
        self.integral += error
        derivative = error - self.previous_error
        self.previous_error = error
        return self.kp * error + self.ki * self.integral + self.kd * derivative


def next_weights(weights, controls, floor=1.0):
    """udplbd2's advance_epoch (src/db/epoch.rs): each weight plus its member's latest control signal, then all
    scaled so that their mean is 1000. Here a weight is also kept >= `floor` (1/1000 of the mean): udplbd2
    lets it reach 0 or below, which lb-plan would refuse (negative) or turn into a drained member (0)."""
    new = [w + c for w, c in zip(weights, controls)]
    mean = sum(new) / len(new)
    if mean <= 0:
        return [1000.0] * len(new)
    return [max(floor, w * 1000.0 / mean) for w in new]


def members_text(weights):
    lines = []
    for i, w in enumerate(weights):
        mac, ip, port = member_rewrite(i)
        lines.append("member m%d weight %.6f ipv4 0x%012x %d.%d.%d.%d %d\n"
                     % (i, w, mac, ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255, port))
    return "".join(lines)


class Planner:
    """`nettwin lb-plan` on the tables as they are (the concatenation of every script applied so far)."""

    def __init__(self, nettwin, work):
        self.nettwin, self.work = nettwin, work
        self.applied = FILTER
        self.n = 0

    def plan(self, weights, boundary=None, current_start=None, now=None):
        self.n += 1
        cur, mem = os.path.join(self.work, "current.txt"), os.path.join(self.work, "members.txt")
        sw, cl = os.path.join(self.work, "switch.txt"), os.path.join(self.work, "cleanup.txt")
        with open(cur, "w") as f:
            f.write(self.applied)
        with open(mem, "w") as f:
            f.write(members_text(weights))
        cmd = [self.nettwin, "lb-plan", "--tables", cur, "--members", mem, "--out", sw, "--cleanup-out", cl]
        for opt, v in (("--boundary", boundary), ("--current-start", current_start), ("--now", now)):
            if v is not None:
                cmd += [opt, str(v)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise Fail("lb-plan #%d refused: %s" % (self.n, p.stderr.strip()))
        with open(sw) as f:
            switch = f.read()
        with open(cl) as f:
            cleanup = f.read()
        return switch, cleanup


def apply_text(t, text, name):
    for cmd in lb_tables.parse_script(text, name):
        t.apply(cmd)


def event_packets(rng, tick):
    """1..3 LB packets (EVIO6 segments, consecutive offsets) of the event with this tick; IPv4, UDP checksum 0."""
    n = rng.choice((1, 2, 2, 3))
    out = []
    for k in range(n):
        payload = bytes([(tick + k) & 255]) * 16
        flags = (2 if k == 0 else 0) | (1 if k == n - 1 else 0)
        evio = struct.pack(">HHI", flags, tick & 0xFFFF, k * 16)
        lb = struct.pack(">HBBQ", 0x4C42, 1, 1, tick)
        udp_len = 8 + len(lb) + len(evio) + len(payload)
        udp = struct.pack(">HHHH", tick & 0xFFFF, LB_PORT, udp_len, 0)
        ip_len = 20 + udp_len
        hdr = struct.pack(">BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0, 64, 17, 0, bytes([10, 1, 2, 2]),
                          bytes([10, 1, 2, 3]))
        s = sum(struct.unpack(">10H", hdr))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        hdr = hdr[:10] + struct.pack(">H", ~s & 0xFFFF) + hdr[12:]
        eth = LB_MAC.to_bytes(6, "big") + bytes.fromhex("001122334455") + b"\x08\x00"
        out.append(eth + hdr + udp + lb + evio + payload)
    return out


def simulate(nettwin, d, seed, prm):
    """The loop; writes run.txt, packets_in.pcap, trace.json, events.json under d."""
    os.makedirs(d, exist_ok=True)
    work = os.path.join(d, "plan")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(seed)
    n, period, lead = prm["members"], prm["period"], prm["lead"]
    rates = [prm["rate"]] * n
    by_rewrite = {member_rewrite(i): i for i in range(n)}
    weights = [1000.0] * n
    pids = [Pid(prm["kp"], prm["ki"], prm["kd"], prm["setpoint"]) for _ in range(n)]
    planner = Planner(nettwin, work)
    tables = lb_tables.Tables()
    apply_text(tables, FILTER, "filter")
    init, _ = planner.plan(weights)
    apply_text(tables, init, "initial plan")
    planner.applied += init
    run = [FILTER, init]
    queue, credit = [0] * n, [0.0] * n
    lost = 0
    frames, events, trace = [], [], []
    tick = prm["tick0"]
    prev_boundary, pending_cleanup = None, None
    counts = [SLOTS // n] * n
    epoch_cache = {}
    for per in range(prm["periods"]):
        if per == prm["slow_at"]:
            rates[prm["slow"]] /= 3.0
        got = [0] * n
        sent = 0
        for _ in range(period):
            # the data plane: epoch by tick, calendar slot tick & 0x1FF, the member's rewrite
            e = tables.epoch_lookup(tick)
            if e is None or e.action != "do_assign_epoch":
                raise Fail("tick %d: no epoch (%s)" % (tick, e))
            key = (e.epoch, tick & (SLOTS - 1))
            m = epoch_cache.get(key)
            if m is None:
                hit = tables.calendar_lookup(*key)
                r = tables.member_lookup(lb_tables.ETH_IPV4, hit[1]) if hit and hit[0] == "do_assign_member" else None
                if r is None:
                    raise Fail("tick %d: epoch %d slot %d has no member" % (tick, key[0], key[1]))
                m = by_rewrite[(r.mac_da, r.ip_dst, r.udp_dst)]
                epoch_cache[key] = m
            events.append(m)
            pk = event_packets(rng, tick)
            frames += [(p, tick * 1e-6) for p in pk]
            sent += len(pk)
            got[m] += 1
            if queue[m] >= prm["capacity"]:
                lost += 1
            else:
                queue[m] += 1
            for i in range(n):  # one time unit of service, jittered
                credit[i] += rates[i] * (1.0 + prm["jitter"] * (2.0 * rng.random() - 1.0))
                while credit[i] >= 1.0 and queue[i] > 0:
                    queue[i] -= 1
                    credit[i] -= 1.0
                if queue[i] == 0:
                    credit[i] = min(credit[i], 1.0)
            tick += 1
        run.append("run_traffic %d\n" % sent)
        fills = [q / prm["capacity"] for q in queue]
        controls = [p.update(f) for p, f in zip(pids, fills)]
        trace.append(dict(period=per, first_tick=tick - period, fills=fills, weights=list(weights),
                          slots=list(counts), events=got, rates=list(rates), queue=list(queue)))
        weights = next_weights(weights, controls)
        # the previous switch's boundary has passed and every event before it is sent: retire its epoch
        step = []
        if pending_cleanup is not None:
            apply_text(tables, pending_cleanup, "cleanup")
            planner.applied += pending_cleanup
            step.append(pending_cleanup)
        boundary = tick + lead
        switch, cleanup = planner.plan(weights, boundary=boundary,
                                       current_start=prev_boundary if prev_boundary is not None else 0,
                                       now=tick - 1)
        apply_text(tables, switch, "switch")
        planner.applied += switch
        step.append(switch)
        run.append("".join(step))
        counts = _slot_counts(switch, n)
        prev_boundary, pending_cleanup = boundary, cleanup
        epoch_cache.clear()
    with open(os.path.join(d, "run.txt"), "w") as f:
        f.write("\n".join(s.rstrip("\n") for s in run) + "\n")
    write_pcap(os.path.join(d, "packets_in.pcap"), frames)
    with open(os.path.join(d, "events.json"), "w") as f:
        json.dump({"tick0": prm["tick0"], "members": events}, f)
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump({"params": prm, "seed": seed, "lost_to_full_queue": lost, "periods": trace}, f, indent=1)
    return trace, lost


def _slot_counts(switch, n):
    """Slots per member from the plan's header comments (`# member mI: K slots`)."""
    counts = [0] * n
    for ln in switch.splitlines():
        if ln.startswith("# member m"):
            name, rest = ln[len("# member m"):].split(":", 1)
            counts[int(name)] = int(rest.split()[0])
    return counts


def share_result(tr):
    """The slow member's share of the events of the last quarter of the periods, against its rate's share."""
    prm, periods = tr["params"], tr["periods"]
    tail = periods[len(periods) * 3 // 4:]
    slow = prm["slow"]
    total = sum(sum(p["events"]) for p in tail)
    share = sum(p["events"][slow] for p in tail) / total
    allowed = tail[-1]["rates"][slow]  # events per time unit it can serve; one event arrives per time unit
    proportional = tail[-1]["rates"][slow] / sum(tail[-1]["rates"])
    return dict(slow=slow, share=share, allowed=allowed, proportional=proportional,
                error=abs(share - allowed) / allowed, error_proportional=abs(share - proportional) / proportional,
                periods=len(tail), events=total,
                slots=tail[-1]["slots"][slow], weights=tail[-1]["weights"], fills=tail[-1]["fills"])


def check(d, out_path, stats_path):
    with open(os.path.join(d, "events.json")) as f:
        ev = json.load(f)
    with open(os.path.join(d, "trace.json")) as f:
        tr = json.load(f)
    with open(stats_path) as f:
        st = json.load(f)
    frames, outs = read_pcap(os.path.join(d, "packets_in.pcap")), read_pcap(out_path)
    if any(st.get("drops", {}).values()):
        raise Fail("the LB dropped packets: %s" % {k: v for k, v in st["drops"].items() if v})
    if len(outs) != len(frames):
        raise Fail("%d packets in, %d out" % (len(frames), len(outs)))
    n = tr["params"]["members"]
    by_rewrite = {member_rewrite(i): i for i in range(n)}
    tick0, sim = ev["tick0"], ev["members"]
    member_of = {}
    for k, ((fin, _), (fout, _)) in enumerate(zip(frames, outs)):
        tick = int.from_bytes(fin[42 + 4:42 + 12], "big")
        if fout[42:] != fin[54:]:  # the LB header (12 bytes) is removed, the rest arrives unchanged
            raise Fail("packet %d (tick %d): the event data changed or the packets are out of order" % (k, tick))
        dst = (int.from_bytes(fout[0:6], "big"), int.from_bytes(fout[30:34], "big"), int.from_bytes(fout[36:38], "big"))
        if dst not in by_rewrite:
            raise Fail("packet %d (tick %d) went to %012x %08x port %d: no member" % (k, tick, *dst))
        m = by_rewrite[dst]
        if member_of.setdefault(tick, m) != m:
            raise Fail("event %d is split: packets to members %d and %d" % (tick, member_of[tick], m))
    if len(member_of) != len(sim):
        raise Fail("%d events in the LB output, the simulation sent %d" % (len(member_of), len(sim)))
    for i, m in enumerate(sim):
        if member_of.get(tick0 + i) != m:
            raise Fail("event %d: the LB sent it to member %s, the simulation to %d"
                       % (tick0 + i, member_of.get(tick0 + i), m))
    if tr["lost_to_full_queue"]:
        raise Fail("%d events found their member's queue full" % tr["lost_to_full_queue"])
    r = share_result(tr)
    if r["error"] > 0.10 or r["error_proportional"] > 0.10:
        raise Fail("slow member m%d ends with %.4f of the events, its rate allows %.4f (rate / event rate, off by "
                   "%.1f%%) and %.4f (rate / sum of rates, off by %.1f%%): more than 10%%"
                   % (r["slow"], r["share"], r["allowed"], 100 * r["error"], r["proportional"],
                      100 * r["error_proportional"]))
    summary = ("%d events (%d packets) each to one member, as simulated, none dropped or lost; slow member m%d: share "
               "%.4f of the last %d periods' events, its rate allows %.4f (rate / event rate, off by %.1f%%) and %.4f "
               "(rate / sum of rates, off by %.1f%%), %d slots"
               % (len(sim), len(frames), r["slow"], r["share"], r["periods"], r["allowed"], 100 * r["error"],
                  r["proportional"], 100 * r["error_proportional"], r["slots"]))
    return r, summary


def plot(d, png):
    from nettwin.regress.plot import plt, save
    with open(os.path.join(d, "trace.json")) as f:
        tr = json.load(f)
    draw(plt, tr)
    save(plt.gcf(), png)


def draw(plt, tr):
    """Fill levels and weights (and the slow member's share) over time, one figure."""
    periods, prm = tr["periods"], tr["params"]
    n = prm["members"]
    x = [p["first_tick"] - prm["tick0"] + prm["period"] for p in periods]  # the report's time, in events
    fig, (a1, a2, a3) = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    for i in range(n):
        lab = "m%d%s" % (i, " (3x slower from event %d)" % (prm["slow_at"] * prm["period"]) if i == prm["slow"] else "")
        a1.plot(x, [p["fills"][i] for p in periods], label=lab)
        a2.plot(x, [p["weights"][i] for p in periods], label=lab)
        a3.plot(x, [p["events"][i] / sum(p["events"]) for p in periods], label=lab)
    a1.axhline(prm["setpoint"], color="grey", ls=":", label="set point")
    a1.set_ylabel("reported fill")
    a2.set_ylabel("weight (mean 1000)")
    s = prm["slow"]
    a3.axhline(periods[-1]["rates"][s], color="grey", ls=":", label="m%d's rate / event rate" % s)
    a3.axhline(periods[-1]["rates"][s] / sum(periods[-1]["rates"]), color="grey", ls="--",
               label="m%d's rate / sum of rates" % s)
    a3.set_ylabel("share of events")
    a3.set_xlabel("events sent (one per time unit)")
    for a in (a1, a2, a3):
        a.legend(fontsize=7, loc="upper right")
    a1.set_title("lb-plan feedback loop: %d members, PID kp %g ki %g kd %g, set point %g, period %d events"
                 % (n, prm["kp"], prm["ki"], prm["kd"], prm["setpoint"], prm["period"]), fontsize=9)
    return fig


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--nettwin", required=True)
    g.add_argument("--out-dir", required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--quick", action="store_true", help="the ctest's shorter run")
    g.add_argument("--periods", type=int, help="report periods to run (default: 64, --quick 32)")
    g.add_argument("--no-feedback", action="store_true",
                   help="gains 0 (udplbd2's receiver defaults): the weights never move (a negative test)")
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--stats", required=True)
    c.add_argument("--json", help="write the share result here")
    p = sub.add_parser("plot")
    p.add_argument("--dir", required=True)
    p.add_argument("--png", required=True)
    a = ap.parse_args(argv)
    rep = Report("lb_feedback")  # the check (and a gen whose lb-plan refuses) report as every checker does
    try:
        if a.cmd == "gen":
            prm = dict(QUICK if a.quick else FULL)
            if a.periods:
                prm["periods"] = a.periods
            if a.no_feedback:
                prm.update(kp=0.0, ki=0.0, kd=0.0)
            trace, lost = simulate(a.nettwin, a.out_dir, a.seed, prm)
            print("lb_feedback: %d periods, %d switches planned, %d events lost to a full queue"
                  % (len(trace), len(trace), lost))
        elif a.cmd == "check":
            r, summary = check(a.dir, a.out, a.stats)
            if a.json:
                with open(a.json, "w") as f:
                    json.dump(r, f, indent=1)
            return rep.finish(summary)
        else:
            plot(a.dir, a.png)
    except Fail as e:
        rep.fail(a.cmd, str(e))
        return rep.finish("")
    except (ScriptError, InputError, OSError, ValueError, KeyError) as e:
        return rep.unusable(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
