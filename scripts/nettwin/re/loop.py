#!/usr/bin/python3
"""The EJFAT closed loop: source events -> LB (epoch switch mid-run) -> one RE per member.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.re.loop gen --seed N --out-dir D [--events K]
  (nettwin lb-plan x2, nettwin.lb.plan_gen assemble, nettwin lb --tables D/run.txt ... --out D/out.pcap)
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.re.loop split --dir D --out D/out.pcap [--work W]
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.re.loop reassemble --dir D --nettwin build/nettwin [--work W]   (nettwin re per member, lockstep)
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.re.loop check --dir D [--work W]

gen: nettwin.lb.plan_gen's scenario (members, boundary, filter), but the traffic is events: each (tick,
data_id) event of 0..3000 bytes is cut into EVIO6 segments (UDP source port = tick[15:0], as the spec
says), shuffled within its phase: phase 1 events have ticks in [start, boundary) and run before the
switch; phase 2 mixes both sides of the boundary (an old event's segments may straddle the switch);
phase 3, after the cleanup, has ticks >= boundary. D/loop_source.json lists every event.
split: from the tables alone (lb_tables.py, never the planner or the LB model), which member each event's
tick maps to (tick < boundary: the old calendar's slot, else the new one's); groups the LB output by
destination address into W/<member>/segments.pcap and writes W/<member>/source.json with the events
expected there, so nettwin.re.check on each member also proves the routing. W (--work, default D) holds everything
split, reassemble and check write: two LB outputs of one vector (the regression's stimulus modes, run in
parallel) each need their own, or one's reassembly overwrites the other's while it is being checked.
check: every source event was reassembled exactly once, at its member, byte-identical (nettwin.re.check per
member), with no incomplete event and no RE drop anywhere.

--program udplb (gen and split; reassemble and check are the same): ESnet's udplb program (docs/lb-udplb.md)
with E2SAR's framing (docs/re.md "E2SAR's header"). gen needs --nettwin: the tables are udplb's own test-1
(vectors/peers/udplb/cli_commands.txt) whose instance 0 is first switched by `nettwin lb-plan --program udplb`
to a full calendar of two members (boundary 1000) and cleaned up (= D/current.txt); then the switch under
test, `nettwin lb-plan --program udplb --lb-id 0` at a seed-chosen boundary, slot bits and xor, to 2..4
members (port bits, keep-lb-header), D/switch.txt and D/cleanup.txt, applied with run_traffic segments as
above (D/run.txt). The traffic: 3 senders (data_ids), each with 4 sockets (random UDP source ports; round
robin per event, some events from several), frames cut as E2SAR's segmenter does (re_gen.e2sar_cuts: MTU
576 or 1500) with an LB v2 or v3 header in front (tick = the event number; v2 entropy, v3 port_select =
entropy); senders often send the same event number (E2SAR's several data sources of one event). v3's
slot_select is tick[15:0] as E2SAR's segmenter writes it (src/e2sarDPSegmenter.cpp @ 8992fa3: lb3.set(
lbEventNum & 0xFFFF, entropy, lbEventNum)) for half of the v3 events and a random value for the other half
(LBHdrV3::set takes any): only then does the check show the LB uses the field, not the tick. Some segments of
events before the boundary arrive after the switch. split routes each frame with the independent table model
(nettwin/lb/udplb_tables.py: before the switch for ticks below the boundary, after it for the others; slot
from tick[15:0] for v2 and slot_select for v3) and also requires every event's segments at one member.
"""
import argparse
import json
import os
import random
import sys

from nettwin.common.pcap import read_pcap, write_pcap
from nettwin.common.report import Report
from nettwin.lb import plan_gen as lb_plan_gen
from nettwin.lb import tables as lb_tables
from nettwin.lb.plan_check import full_calendar, tables_of, wildcard_epoch
from nettwin.re import check as re_check
from nettwin.re import gen as re_gen

RE_CONF = "contexts 64\nbuffer_bytes 4096\ntimeout_us 100000\n"
UDPLB_START = 1000   # the first switch's boundary: where the current epoch of instance 0 starts
UDPLB_MEMBERS0 = ("member r0 weight 1 ipv4 02:00:00:00:01:00 10.20.0.1 20000 ipv6 02:00:00:00:01:00 fd00::1:1 20000\n"
                  "member r1 weight 1 ipv4 02:00:00:00:01:01 10.20.0.2 20000 ipv6 02:00:00:00:01:01 fd00::1:2 20000 "
                  "port-bits 1\n")


def gen(a):
    if a.program == "udplb":
        return gen_udplb(a)
    lb_plan_gen.main(["gen", "--seed", str(a.seed), "--out-dir", a.out_dir, "--packets", "12"])
    with open(os.path.join(a.out_dir, "scenario.json")) as f:
        sc = json.load(f)
    rng = random.Random(a.seed * 7919)
    start, boundary, top = sc["start"], sc["boundary"], lb_plan_gen.TOP
    used = set()

    def tick(old):
        while True:
            t = (max(start, boundary - rng.randrange(1, 3000)) if old else
                 min(top, boundary + rng.randrange(0, 3000)))
            if t & 0xFFFF not in used:   # the RE keys events by tick[15:0]
                used.add(t & 0xFFFF)
                return t

    phases, events = [[], [], []], []
    for i in range(a.events):
        ph = 0 if i < a.events // 3 else (1 if i < 2 * a.events // 3 else 2)
        t = tick(ph == 0 or (ph == 1 and rng.random() < 0.5))
        data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 64, 700, 1500, 3000])))
        data_id = rng.randrange(1 << 16)
        v6 = rng.random() < 0.4
        pieces = re_gen.split(rng, len(data), (1, 100, 512, 1400))
        for k, (off, n) in enumerate(pieces):
            phases[ph].append(lb_plan_gen.packet_of(tick=t, data_id=data_id, offset=off, data=data[off:off + n],
                                                    first=off == 0, last=k == len(pieces) - 1, v6=v6))
        events.append({"tick": t, "data_id": data_id, "data": data.hex()})
    for ph in phases:
        rng.shuffle(ph)
    frames = [f for ph in phases for f in ph]
    write_pcap(os.path.join(a.out_dir, "packets_in.pcap"), [(f, i * 1e-6) for i, f in enumerate(frames)])
    sc["segments"] = [len(p) for p in phases]
    sc["now"] = max(e["tick"] for e in events[:a.events // 3])
    with open(os.path.join(a.out_dir, "scenario.json"), "w") as f:
        json.dump(sc, f, indent=2)
    with open(os.path.join(a.out_dir, "loop_source.json"), "w") as f:
        json.dump({"events": events}, f, indent=1)
    with open(os.path.join(a.out_dir, "re.txt"), "w") as f:
        f.write(RE_CONF)
    print("re_loop: seed %d: %d events in %d segments (phases %s), boundary %d"
          % (a.seed, len(events), len(frames), sc["segments"], boundary))
    return 0


def _load_io(a):
    """(source events, LB input frames, LB output frames); outputs None (said why) if the LB dropped any."""
    with open(os.path.join(a.dir, "loop_source.json")) as f:
        events = json.load(f)["events"]
    frames_in = read_pcap(os.path.join(a.dir, "packets_in.pcap"))
    outs = read_pcap(a.out)
    if len(outs) != len(frames_in):
        print("re_loop: FAIL: the LB dropped %d segments" % (len(frames_in) - len(outs)))
        return events, frames_in, None
    return events, frames_in, outs


def _write_members(w, groups, expect, events, key, extra):
    """W/<member>/segments.pcap (groups: member -> frames) and W/<member>/source.json (the events whose
    (e[key], data_id) expect[member] holds), W/members.json; returns the member names."""
    members = sorted(set(groups) | set(expect))
    for m in members:
        md = os.path.join(w, m)
        os.makedirs(md, exist_ok=True)
        write_pcap(os.path.join(md, "segments.pcap"), groups.get(m, []))
        mine = [e for e in events if (e[key], e["data_id"]) in expect.get(m, {})]
        with open(os.path.join(md, "source.json"), "w") as f:
            json.dump(dict(extra, events=mine), f)
    with open(os.path.join(w, "members.json"), "w") as f:
        json.dump(members, f)
    return members


def _run(cmd):
    import subprocess
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise SystemExit("re_loop: FAIL: %s: %s" % (" ".join(cmd[:3]), r.stdout.strip()))


def gen_udplb(a):
    """--program udplb: the tables (two `nettwin lb-plan --program udplb` runs), E2SAR-framed events, run.txt."""
    from nettwin.lb import udplb_plan_check as upc
    if not a.nettwin:
        print("re_loop: --program udplb gen needs --nettwin (it runs nettwin lb-plan)", file=sys.stderr)
        return 2
    d = a.out_dir
    os.makedirs(d, exist_ok=True)
    rng = random.Random(a.seed * 7919 + 3)
    peers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "vectors", "peers", "udplb")
    with open(os.path.join(peers, "cli_commands.txt")) as f:
        test1 = "".join(ln for ln in f if not ln.startswith("run_traffic"))
    with open(os.path.join(d, "test1.txt"), "w") as f:
        f.write(test1)
    with open(os.path.join(d, "members0.txt"), "w") as f:
        f.write(UDPLB_MEMBERS0)
    _run([a.nettwin, "lb-plan", "--program", "udplb", "--lb-id", "0", "--tables", os.path.join(d, "test1.txt"),
          "--members", os.path.join(d, "members0.txt"), "--boundary", str(UDPLB_START),
          "--out", os.path.join(d, "init.txt"), "--cleanup-out", os.path.join(d, "init_cleanup.txt")])
    with open(os.path.join(d, "current.txt"), "w") as f:
        for n in ("test1.txt", "init.txt", "init_cleanup.txt"):
            with open(os.path.join(d, n)) as g:
                f.write(g.read())
    with open(os.path.join(d, "members.txt"), "w") as f:
        for i in range(rng.randint(2, 4)):
            extra = (" port-bits %d" % rng.randint(0, 6) if rng.random() < 0.6 else "") + \
                    (" keep-lb-header 1" if rng.random() < 0.3 else "")
            f.write("member m%d weight %d ipv4 02:00:00:00:02:%02x 10.30.0.%d %d ipv6 02:00:00:00:02:%02x fd00::2:%d "
                    "%d%s\n" % (i, rng.randint(1, 9), i, i + 1, 30000 + 1000 * i, i, i + 1, 30000 + 1000 * i, extra))
    boundary = rng.choice([UDPLB_START + 5000, 1 << 40, rng.randrange(1 << 20, 1 << 63)]) + rng.randrange(4096)
    bits, xor = rng.choice([9, 9, 6, 3]), rng.choice([0, 0, 0x5a5a, 0xffff])
    used = set()

    def tick(old):
        while True:
            t = boundary - rng.randrange(1, 3000) if old else boundary + rng.randrange(0, 3000)
            if t not in used:
                used.add(t)
                return t

    senders = [(rng.randrange(1 << 16), [rng.randrange(10000, 60000) for _ in range(4)]) for _ in range(3)]
    addrs = (upc.LB_MAC, upc.SRC_MAC, upc.V4, upc.V6)
    phases, events, prev, keys = [[], [], []], [], None, set()
    for i in range(a.events):
        ph = 0 if i < a.events // 3 else (1 if i < 2 * a.events // 3 else 2)
        old = ph == 0 or (ph == 1 and rng.random() < 0.5)
        # several senders of one event number (E2SAR: data sources of one event); same phase, same side
        data_id, socks = senders[i % len(senders)]
        share = prev and prev[1] == (ph, old) and (prev[0], data_id) not in keys and rng.random() < 0.4
        t = prev[0] if share else tick(old)
        prev = (t, (ph, old))
        keys.add((t, data_id))
        data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 64, 700, 1500, 3000])))
        v6 = rng.random() < 0.4
        lb_v = rng.choice([2, 3])
        entropy = rng.getrandbits(16)
        slot = t & 0xFFFF if lb_v == 2 or rng.random() < 0.5 else rng.getrandbits(16)
        lb = re_gen.lb_header_bytes(lb_v, t, entropy=entropy, slot=slot, port=entropy)
        multi = rng.random() < 0.3
        segs = []
        for k, (off, n) in enumerate(re_gen.e2sar_cuts(len(data), rng.choice([576, 1500]), v6)):
            sport = rng.choice(socks) if multi else socks[i % len(socks)]
            segs.append(re_gen.e2sar_segment(t, data_id, off, len(data), data[off:off + n], sport, v6, lb,
                                             addrs=addrs))
        if ph == 0 and len(segs) > 1 and rng.random() < 0.3:
            phases[1].append(segs.pop())   # its last segment arrives after the switch
        phases[ph] += segs
        events.append({"event_num": t, "tick": t, "data_id": data_id, "lb_version": lb_v, "slot_select": slot,
                       "data": data.hex()})
    for p in phases:
        rng.shuffle(p)
    frames = [f for p in phases for f in p]
    write_pcap(os.path.join(d, "packets_in.pcap"), [(f, k * 1e-6) for k, f in enumerate(frames)])
    now = max(e["tick"] for e in events[:a.events // 3])
    sc = {"program": "udplb", "lb_id": 0, "start": UDPLB_START, "boundary": boundary, "now": now,
          "slot_bits": bits, "slot_xor": xor, "segments": [len(p) for p in phases]}
    with open(os.path.join(d, "scenario.json"), "w") as f:
        json.dump(sc, f, indent=2)
    _run([a.nettwin, "lb-plan", "--program", "udplb", "--lb-id", "0", "--tables", os.path.join(d, "current.txt"),
          "--members", os.path.join(d, "members.txt"), "--boundary", str(boundary), "--now", str(now),
          "--slot-bits", str(bits), "--slot-xor", str(xor), "--out", os.path.join(d, "switch.txt"),
          "--cleanup-out", os.path.join(d, "cleanup.txt"), "--json", os.path.join(d, "plan.json")])
    n1, n2, _ = sc["segments"]
    with open(os.path.join(d, "run.txt"), "w") as f:
        for n, after in (("current.txt", "run_traffic %d\n" % n1), ("switch.txt", "run_traffic %d\n" % n2),
                         ("cleanup.txt", "run_traffic\n")):
            with open(os.path.join(d, n)) as g:
                f.write(g.read().rstrip("\n") + "\n" + after)
    with open(os.path.join(d, "loop_source.json"), "w") as f:
        json.dump({"header": "e2sar", "events": events}, f, indent=1)
    with open(os.path.join(d, "re.txt"), "w") as f:
        f.write(RE_CONF + "header e2sar\n")
    print("re_loop: udplb seed %d: %d E2SAR events (v2 %d, v3 %d) in %d frames (phases %s), boundary %d, "
          "slot bits %d xor %#x" % (a.seed, len(events), sum(e["lb_version"] == 2 for e in events),
                                    sum(e["lb_version"] == 3 for e in events), len(frames), sc["segments"],
                                    boundary, bits, xor))
    return 0


def _udplb_fields(fr):
    """(ethertype, L4 offset) of a frame."""
    et = int.from_bytes(fr[12:14], "big")
    return et, 14 + (40 if et == lb_tables.ETH_IPV6 else (fr[14] & 0xF) * 4)


def split_udplb(a):
    """--program udplb: each input frame's member from the independent table model, the output grouped by
    destination IP; every event's frames must all reach one member."""
    from nettwin.lb import udplb_plan_check as upc
    from nettwin.lb import udplb_tables as ut
    w = a.work or a.dir
    with open(os.path.join(a.dir, "scenario.json")) as f:
        sc = json.load(f)
    lb_id, boundary = sc["lb_id"], sc["boundary"]
    before = ut.Tables()
    for c in ut.load_script(os.path.join(a.dir, "current.txt")):
        before.apply(c)
    after = before.copy()
    for c in ut.load_script(os.path.join(a.dir, "switch.txt")):
        after.apply(c)
    names = {}
    for mf in ("members0.txt", "members.txt"):
        for name, _, rw in upc.read_members(os.path.join(a.dir, mf)):
            for et, r in rw.items():
                names[(et, r[1])] = name
    events, frames_in, outs = _load_io(a)
    if outs is None:
        return 1
    def member(t, et, tick, sel):
        e = t.epoch_lookup(lb_id, tick)
        mid = None if e is None else t.calendar_lookup(lb_id, e.epoch, upc.slot_of(sel, e.bits, e.xor))
        m = None if mid is None else t.member_lookup(lb_id, et, mid)
        return names[(et, m.ip)] if m is not None and m.action.startswith("do_") else None

    expect, by_sel = {}, set()
    for fin, _ in frames_in:
        et, l4 = _udplb_fields(fin)
        lb = fin[l4 + 8:l4 + 24]
        tick = int.from_bytes(lb[8:16], "big")
        sel = int.from_bytes(lb[4:6], "big") if lb[2] == 3 else tick & 0xFFFF
        t = before if tick < boundary else after
        m = member(t, et, tick, sel)
        if m is None:
            print("re_loop: FAIL: the tables reach no member for tick %d slot_select %d" % (tick, sel))
            return 1
        re_hdr = fin[l4 + 24:l4 + 44]
        key = (int.from_bytes(re_hdr[12:20], "big"), int.from_bytes(re_hdr[2:4], "big"))
        expect.setdefault(m, {})[key] = True
        if member(t, et, tick, tick & 0xFFFF) != m:
            by_sel.add(key)   # a v3 event whose slot_select sends it elsewhere than its tick would
    groups, where = {}, {}
    for fr, ts in outs:
        et, l4 = _udplb_fields(fr)
        dst = int.from_bytes(fr[38:54] if et == lb_tables.ETH_IPV6 else fr[30:34], "big")
        m = names.get((et, dst), "unknown")
        groups.setdefault(m, []).append((fr, ts))
        p = l4 + 8 + (16 if fr[l4 + 8:l4 + 10] == b"LB" else 0)   # a member with keep-lb-header
        where.setdefault((int.from_bytes(fr[p + 12:p + 20], "big"), int.from_bytes(fr[p + 2:p + 4], "big")),
                         set()).add(m)
    split_events = {k: v for k, v in where.items() if len(v) > 1}
    if split_events:
        k, v = sorted(split_events.items())[0]
        print("re_loop: FAIL: %d events split across members, e.g. event_num %d data_id %d at %s"
              % (len(split_events), k[0], k[1], sorted(v)))
        return 1
    members = _write_members(w, groups, expect, events, "event_num", {"header": "e2sar"})
    print("re_loop: %d frames to %d members (%s), every event's frames at one member; %d v3 events at another "
          "member than their tick's" % (len(outs), len(members), ", ".join("%s %d" % (m, len(groups.get(m, [])))
                                                                           for m in members), len(by_sel)))
    return 0


def member_of(d):
    """tick -> (ethertype -> destination IP) of the member the seed's rule picks, from the tables."""
    with open(os.path.join(d, "scenario.json")) as f:
        boundary = json.load(f)["boundary"]
    before = tables_of(os.path.join(d, "current.txt"))
    mid = tables_of(os.path.join(d, "current.txt"), os.path.join(d, "switch.txt"))
    old_cal = full_calendar(before, wildcard_epoch(before, "before"), "old")
    new_cal = full_calendar(mid, wildcard_epoch(mid, "after the switch"), "new")

    def f(tick, et):
        new = tick >= boundary
        return "member%d" % (new_cal if new else old_cal)[tick & 0x1FF]
    # destination (family, IP) -> member name, from both member tables
    names = {(e.ethertype, e.ip_dst): "member%d" % e.member_id
             for t in (before, mid) for e in t.member if e is not None and e.ip_dst is not None}
    return f, names


def split(a):
    if a.program == "udplb":
        return split_udplb(a)
    w = a.work or a.dir
    route, names = member_of(a.dir)
    events, frames_in, outs = _load_io(a)
    if outs is None:
        return 1
    groups, expect = {}, {}
    for fr, ts in outs:
        et = int.from_bytes(fr[12:14], "big")
        dst = int.from_bytes(fr[38:54] if et == lb_tables.ETH_IPV6 else fr[30:34], "big")
        groups.setdefault(names.get((et, dst), "unknown"), []).append((fr, ts))
    for fin, _ in frames_in:   # each event's family is that of its segments
        et = int.from_bytes(fin[12:14], "big")
        l4 = 14 + (40 if et == lb_tables.ETH_IPV6 else (fin[14] & 0xF) * 4)
        tick = int.from_bytes(fin[l4 + 12:l4 + 20], "big")
        data_id = int.from_bytes(fin[l4 + 22:l4 + 24], "big")
        expect.setdefault(route(tick, et), {})[(tick, data_id)] = True
    members = _write_members(w, groups, expect, events, "tick", {})
    print("re_loop: %d segments to %d members" % (len(outs), len(members)))
    return 0


def reassemble(a):
    """`nettwin re` on every member's input (the members split wrote)."""
    import subprocess
    w = a.work or a.dir
    with open(os.path.join(w, "members.json")) as f:
        members = json.load(f)
    for m in members:
        md = os.path.join(w, m)
        r = subprocess.run([a.nettwin, "re", "--engine", a.engine, "--config", os.path.join(a.dir, "re.txt"), "--in",
                            os.path.join(md, "segments.pcap"), "--out", os.path.join(md, "events.pcap"),
                            "--report", os.path.join(md, "report.json")], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print("re_loop: FAIL: nettwin re for %s: %s" % (m, r.stdout.strip()))
            return 1
    print("re_loop: reassembled %d members' inputs" % len(members))
    return 0


def check(a):
    """Every member's RE output by re_check, then exactly once across members; nettwin.common.report's report."""
    rep = Report("re_loop")
    w = a.work or a.dir
    try:
        with open(os.path.join(w, "members.json")) as f:
            members = json.load(f)
        with open(os.path.join(a.dir, "loop_source.json")) as f:
            n_events = len(json.load(f)["events"])
    except (OSError, ValueError, KeyError) as e:
        return rep.unusable(e)
    done = 0
    for m in members:
        md = os.path.join(w, m)
        try:
            re_check.check(md, os.path.join(md, "events.pcap"), os.path.join(md, "report.json"),
                           os.path.join(a.dir, "re.txt"))
        except re_check.Fail as e:
            rep.fail("re_check " + e.check, "member %s: %s" % (m, e))
            continue
        with open(os.path.join(md, "report.json")) as f:
            st = json.load(f)
        if st["incomplete"] or any(st["drops"].values()):
            rep.fail("member", "member %s: incomplete events or RE drops: %s" % (m, st["drops"]))
            continue
        with open(os.path.join(md, "source.json")) as f:
            if len(json.load(f)["events"]) != st["events_completed"]:
                rep.fail("member", "member %s: not every expected event completed" % m)
                continue
        done += st["events_completed"]
    if rep.ok() and done != n_events:
        rep.fail("exactly once", "%d of %d events reassembled" % (done, n_events))
    return rep.finish("all %d events reassembled exactly once, byte-identical, at the member their tick (udplb LB "
                      "v3: slot_select) maps to (%d members)" % (done, len(members)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--out-dir", required=True)
    g.add_argument("--events", type=int, default=90)
    g.add_argument("--nettwin", help="the CLI (--program udplb: gen runs `nettwin lb-plan --program udplb`)")
    s = sub.add_parser("split")
    s.add_argument("--dir", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--work", help="directory for the per-member files (default: --dir)")
    for p in (g, s):
        p.add_argument("--program", choices=("seed", "udplb"), default="seed",
                       help="the LB program (udplb: E2SAR framing, LB v2/v3, udplb's tables)")
    r = sub.add_parser("reassemble")
    r.add_argument("--dir", required=True)
    r.add_argument("--nettwin", required=True)
    r.add_argument("--engine", default="lockstep", help="nettwin re's engine (default lockstep: RTL + cycle model)")
    r.add_argument("--work", help="directory split wrote to (default: --dir)")
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    c.add_argument("--work", help="directory split wrote to (default: --dir)")
    a = ap.parse_args(argv)
    return {"gen": gen, "split": split, "reassemble": reassemble, "check": check}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
