#!/usr/bin/python3
"""Independent checker of a udplb epoch switch planned by `nettwin lb-plan --program udplb`.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_plan_check plan --dir D
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_plan_check gen --dir D --seed S --packets N
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_plan_check traffic --dir D --out OUT.pcap --stats STATS.json

Written from docs/lb.md ("The udplb program") and docs/lb-udplb.md, never from the planner: the tables are
the independent Python model nettwin/lb/udplb_tables.py (its own lpm, calendar and member lookups), the
apportionment and calendar arrangement rules are plan_check.py's (the seed planner's spec rules). D holds
current.txt, switch.txt, cleanup.txt, members.txt (udplb members file: port-bits, keep-lb-header) and
scenario.json {"lb_id", "boundary", "slot_bits", "slot_xor"} (gen adds the frames' ticks and segments).

plan     replays current + switch + cleanup one command at a time and, after every epoch_assign_table
         command, looks up every tick at which some entry that ever exists starts or ends (the lpm result is
         constant between two such ticks, so this is every tick) and 2^bits ticks on each side of the
         boundary (every slot of both calendars): no tick ever misses; a tick below the boundary keeps its
         epoch, slot selection and member through the whole switch; a tick at or above it moves once, to the
         new epoch with the asked slot selection, and after the switch every one has. The new epoch was
         free; its calendar has 2^bits slots whose counts are the largest-remainder apportionment of the
         members' weights and arranged with the fewest neighbouring pairs; every id rewrites (both families)
         to its member's line (MAC, IP, UDP base, port-bits, keep-lb-header). The prefixes the switch leaves
         on the old epoch tile exactly the ticks below the boundary that only the wildcard reached, each a
         maximal aligned block (the minimal cover); the only entries it adds and removes again are the halves
         0/1 and 2^63/1; it ends with the wildcard on the new epoch and no other entry of it. After the cleanup nothing reaches the old
         epoch, its calendar and the rewrites only it used are gone, ticks >= boundary are unchanged.
traffic  `nettwin lb --program udplb` ran D/run.txt (current, run_traffic, switch, run_traffic, cleanup,
         run_traffic) on gen's frames: no drop; output k is input k sent to the member the rule picks (the
         current tables before the switch; after it, ticks below the boundary as before and the others the
         new calendar's member for slot (tick[15:0] ^ xor) & mask): its MAC, IP, UDP base + (entropy & port
         mask), the LB header kept or removed.
Prints nettwin.common.report's report (`lb_udplb_plan_check: PASS: plan: ...; traffic: ...`, or the first failed
check's MISMATCH line, plan or traffic, and `lb_udplb_plan_check: FAIL: ...`): exit 0 ok, 1 check failed, 2 unusable
input.
"""
import argparse
import json
import os
import random
import sys

from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.lb import udplb_tables as T
from nettwin.common.report import Fail, Report
from nettwin.lb.plan_check import apportion, check_calendar, maximal_blocks, member_line
from nettwin.lb.tables import ScriptError

TOP = 1 << 64


def read_members(path):
    """[(name, weight, {ethertype: (mac, ip, udp_base, port_bits, keep)})]: the seed's line (plan_check)
    without port-bits P and keep-lb-header K, which apply to both families."""
    out = []
    with open(path) as f:
        for ln in f:
            w = ln.split("#")[0].split()
            if not w:
                continue
            extra = {"port-bits": 0, "keep-lb-header": 0}
            for k in extra:
                if k in w:
                    i = w.index(k)
                    extra[k] = int(w[i + 1])
                    del w[i:i + 2]
            name, weight, rw = member_line(w)
            out.append((name, weight, {et: r + (extra["port-bits"], extra["keep-lb-header"])
                                       for et, r in rw.items()}))
    return out


def commands(path):
    with open(path) as f:
        return T.parse_script(f.read(), path)


def action(e):
    return None if e is None else (e.epoch, e.bits, e.xor)


def slot_of(tick, bits, xor):
    return ((tick & 0xFFFF) ^ xor) & (0xFFFF if bits >= 16 else (1 << bits) - 1)


def member_of(t, lb_id, tick, et):
    """(epoch action, member rewrite or a drop reason) for a v2 frame of family et: udplb_tables' lookups."""
    e = t.epoch_lookup(lb_id, tick)
    if e is None:
        return None, "epoch_miss"
    mid = t.calendar_lookup(lb_id, e.epoch, slot_of(tick, e.bits, e.xor))
    if mid is None:
        return action(e), "calendar_miss"
    m = t.member_lookup(lb_id, et, mid)
    if m is None or not m.action.startswith("do_"):
        return action(e), "member_miss" if m is None else m.action
    return action(e), (m.mac, m.ip, m.udp_base, m.port_bits, m.keep)


def rewrites_of(t, lb_id, mid):
    out = {}
    for et in (T.ETH_IPV4, T.ETH_IPV6):
        m = t.member_lookup(lb_id, et, mid)
        if m is not None and m.action.startswith("do_"):
            out[et] = (m.mac, m.ip, m.udp_base, m.port_bits, m.keep)
    return out


def blocks(entries):
    return sorted((e.value, e.value + (1 << (64 - e.plen))) for e in entries)


def check_tiling(got, want_ranges, what):
    """`got` (sorted (lo, hi) blocks) tiles exactly the disjoint ranges, each block maximal in its range."""
    ranges = sorted(want_ranges)
    pos = 0
    for lo, hi in ranges:
        n = maximal_blocks(lo, hi)
        part = got[pos:pos + n]
        if len(part) != n or part[0][0] != lo or part[-1][1] != hi or any(
                a[1] != b[0] for a, b in zip(part, part[1:])):
            raise Fail("%s: the prefixes do not tile [%d, %d) with its %d maximal blocks" % (what, lo, hi, n))
        pos += n
    if pos != len(got):
        raise Fail("%s: %d prefixes, the minimal cover has %d" % (what, len(got), pos))


def check_plan(d):
    sc = json.load(open(os.path.join(d, "scenario.json")))
    lb, b = sc["lb_id"], sc["boundary"]
    want_bits, want_xor = sc.get("slot_bits", 9), sc.get("slot_xor", 0)
    members = read_members(os.path.join(d, "members.txt"))
    t = T.Tables()
    for c in commands(os.path.join(d, "current.txt")):
        t.apply(c)
    before = t.copy()
    mine = [e for e in t.epoch if e.lb_id == lb]
    wild = [e for e in mine if e.plen == 0]
    if len(wild) != 1:
        raise Fail("lb_id %d has %d wildcard epoch entries before the switch" % (lb, len(wild)))
    old = action(wild[0])
    used = {e.epoch for e in mine} | {ep for l, ep in t.calendar_rows() if l == lb}
    sw, cl = commands(os.path.join(d, "switch.txt")), commands(os.path.join(d, "cleanup.txt"))
    new_epochs = {c.key_toks[1].text for c in sw if c.table == T.CALENDAR}
    if len(new_epochs) != 1:
        raise Fail("the switch fills %d calendars, not one" % len(new_epochs))
    new_epoch = int(new_epochs.pop(), 0)
    if new_epoch in used:
        raise Fail("the new epoch %d was in use (reachable or with a calendar)" % new_epoch)
    new = (new_epoch, want_bits, want_xor)

    # Every tick where an entry that ever exists starts or ends, and every slot near the boundary.
    ticks = {0, TOP - 1, b - 1, b}
    probe = t.copy()
    for c in sw + cl:
        for e in probe.epoch:
            if e.lb_id == lb:
                lo, hi = e.value, e.value + (1 << (64 - e.plen))
                ticks.update(x for x in (lo - 1, lo, hi - 1, hi) if 0 <= x < TOP)
        probe.apply(c)
    for e in probe.epoch:
        if e.lb_id == lb:
            ticks.update(x for x in (e.value, e.value + (1 << (64 - e.plen)) - 1) if 0 <= x < TOP)
    edges = sorted(ticks)
    ticks.update(x for x in range(b, min(TOP, b + (1 << want_bits))))
    ticks.update(x for x in range(max(0, b - (1 << old[1])), b))
    ticks = sorted(ticks)
    fams = (T.ETH_IPV4, T.ETH_IPV6)
    was = {(tk, et): member_of(before, lb, tk, et) for tk in ticks for et in fams}
    moved = set()
    states = 0
    # Between epoch writes only the epoch lookup can change: the switch writes the new calendar and the
    # members before its first epoch command and never touches another calendar (checked here), so the
    # intermediate states look up the epoch on every edge tick; the ends of switch and cleanup look up
    # epoch, calendar and member on every tick of both families.
    first_epoch = next((i for i, c in enumerate(sw) if c.table == T.EPOCH), len(sw))
    for i, c in enumerate(sw):
        if c.table in (T.CALENDAR, T.MEMBER) and (i > first_epoch or c.kind != "table_add"):
            raise Fail("switch command %d (line %d) writes %s after the epoch table or deletes" % (i + 1, c.tok.line,
                                                                                                 c.table))

    def check_state(where, full, end_of_switch, in_cleanup):
        nonlocal states
        states += 1
        for tk in ticks if full else edges:
            for et in fams if full else fams[:1]:
                if full:
                    act, dest = member_of(t, lb, tk, et)
                else:
                    act, dest = action(t.epoch_lookup(lb, tk)), None
                if act is None:
                    raise Fail("%s: tick %d reaches no epoch" % (where, tk))
                old_act, old_dest = was[(tk, et)]
                if tk < b:
                    if not in_cleanup and (act != old_act or (full and dest != old_dest)):
                        raise Fail("%s: tick %d (below the boundary) moved from %s to %s"
                                   % (where, tk, was[(tk, et)], (act, dest)))
                    continue
                if act == new:
                    moved.add(tk)
                elif tk in moved or end_of_switch or in_cleanup or act != old_act:
                    raise Fail("%s: tick %d (>= boundary) reaches %s" % (where, tk, (act, dest)))

    for i, c in enumerate(sw):
        t.apply(c)
        if c.table == T.EPOCH:
            check_state("switch command %d (%s line %d)" % (i + 1, c.tok.file, c.tok.line), False, False, False)
    check_state("the end of the switch", True, True, False)
    after = t.copy()

    # The new calendar against the members file.
    slots = 1 << want_bits
    cal = [after.calendar_lookup(lb, new_epoch, s) for s in range(slots)]
    if None in cal or any(l == lb and ep == new_epoch and s >= slots for l, ep, s in after.calendar):
        raise Fail("the new calendar does not fill exactly %d slots" % slots)
    counts = apportion([w for _, w, _ in members], slots)
    pairs = check_calendar(cal, members, counts, lambda mid: rewrites_of(after, lb, mid), "new")
    for tk in range(b, min(TOP, b + slots)):
        for et in fams:
            act, dest = member_of(after, lb, tk, et)
            want = rewrites_of(after, lb, cal[slot_of(tk, want_bits, want_xor)]).get(et, "member_miss")
            if dest != want:
                raise Fail("tick %d reaches %s, the new calendar's slot gives %s" % (tk, dest, want))

    # The prefixes: the old epoch's cover the ticks below the boundary only the wildcard reached; the new
    # epoch's (added and removed again by the switch) [boundary, 2^64).
    others = blocks(e for e in mine if e.plen)
    gaps, pos = [], 0
    for lo, hi in others + [(b, b)]:
        if lo > pos:
            gaps.append((pos, min(lo, b)))
        pos = max(pos, hi)
    gaps = [(lo, hi) for lo, hi in gaps if lo < hi]
    added_old = blocks(e for e in after.epoch if e.lb_id == lb and e.plen and action(e) == old
                       and e not in mine)
    check_tiling(added_old, gaps, "old epoch %d" % old[0])
    # Entries the switch adds and removes again: only the halves 0/1 and 2^63/1 (at most 2 extra entries).
    added = set()
    for c in sw:
        if c.table == T.EPOCH and c.kind == "table_add":
            added.add(T.lpm_key(c.key_toks[1], 64))
    transient = sorted(k for k in added if not any((e.value, e.plen) == k for e in after.epoch if e.lb_id == lb))
    if any(plen != 1 for _, plen in transient):
        raise Fail("the switch adds and removes entries other than the halves of the tick space: %s" % transient)
    left = [e for e in after.epoch if e.lb_id == lb and e.epoch == new_epoch]
    if len(left) != 1 or left[0].plen != 0 or action(left[0]) != new:
        raise Fail("after the switch epoch %d should have only the wildcard (%d entries)" % (new_epoch, len(left)))

    for i, c in enumerate(cl):
        t.apply(c)
        if c.table == T.EPOCH:
            check_state("cleanup command %d" % (i + 1), False, False, True)
    check_state("the end of the cleanup", True, False, True)
    if any(e.lb_id == lb and e.epoch == old[0] for e in t.epoch):
        raise Fail("after the cleanup an entry still reaches the old epoch %d" % old[0])
    if (lb, old[0]) in t.calendar_rows():
        raise Fail("after the cleanup the old epoch's calendar is still there")
    still = set(cal) | {m for (l, ep, _), m in t.calendar.items() if l == lb}
    for (l, ep, _), mid in before.calendar.items():
        if l == lb and ep == old[0] and mid not in still and rewrites_of(t, lb, mid):
            raise Fail("after the cleanup member %d, used only by the old calendar, keeps its rewrite" % mid)
    summary = ("plan: lb_id %d epoch %d -> %d at %d; %d states x %d edge ticks, ends x %d ticks x 2 families; %d "
               "old-epoch prefixes (minimal), %d halves; %d-slot calendar %s, %d neighbouring pairs"
               % (lb, old[0], new_epoch, b, states, len(edges), len(ticks), len(added_old), len(transient), slots,
                  "/".join(map(str, counts)), pairs))
    return before, after, summary


# ---------------------------------------------------------------------------------------------
# Traffic: frames to udplb test-1's instance 0 (its addresses, docs: vectors/peers/udplb/README.md)
# ---------------------------------------------------------------------------------------------

LB_MAC, SRC_MAC = "00:aa:bb:cc:dd:ee", "02:00:00:00:00:99"
V4 = ("10.1.2.2", "10.1.2.3")
V6 = ("fe80::1", "fd9f:53b7:a261:48ed:2aa:bbff:fecc:ddee")


def gen(d, seed, packets):
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether
    from nettwin.lb.layers import UDPLBv2
    sc = json.load(open(os.path.join(d, "scenario.json")))
    b, start = sc["boundary"], sc["start"]
    rng = random.Random(seed)
    n1, n2 = packets // 3, packets // 3
    segs = [n1, n2, packets - n1 - n2]
    frames, ticks = [], []
    for k in range(packets):
        seg = 0 if k < n1 else 1 if k < n1 + n2 else 2
        if seg == 2 or (seg == 1 and k % 2):
            tk = rng.choice([b, b + 1, TOP - 1, rng.randrange(b, TOP), b + rng.randrange(4096)])
        else:
            tk = rng.choice([start, b - 1, rng.randrange(start, b), max(start, b - 1 - rng.randrange(4096))])
            if seg == 0 and k % 3 == 0:
                tk = rng.randrange(b, TOP)  # before the switch every tick goes to the old epoch
        tk = min(max(tk, start), TOP - 1)
        l3 = IP(src=V4[0], dst=V4[1], ttl=64) if k % 4 else IPv6(src=V6[0], dst=V6[1], hlim=64)
        f = (Ether(dst=LB_MAC, src=SRC_MAC) / l3 / UDP(sport=40000 + k, dport=0x4C42) /
             UDPLBv2(entropy=rng.randrange(1 << 16), tick=tk) / bytes(rng.randrange(256) for _ in range(64)))
        frames.append((bytes(f), k * 1000))
        ticks.append(tk)
    write_pcap(os.path.join(d, "packets_in.pcap"), frames)
    sc.update(ticks=ticks, segments=segs)
    json.dump(sc, open(os.path.join(d, "scenario.json"), "w"))
    print("lb_udplb_plan_check: %d frames, segments %s" % (packets, segs))


def dest_of(frame):
    """(MAC DA, IP DA, UDP dport, length) of an output frame."""
    et = int.from_bytes(frame[12:14], "big")
    if et == T.ETH_IPV4:
        ip, l4 = int.from_bytes(frame[30:34], "big"), 14 + (frame[14] & 15) * 4
    else:
        ip, l4 = int.from_bytes(frame[38:54], "big"), 54
    return int.from_bytes(frame[0:6], "big"), ip, int.from_bytes(frame[l4 + 2:l4 + 4], "big"), len(frame)


def check_traffic(d, out_path, stats_path, before, after):
    sc = json.load(open(os.path.join(d, "scenario.json")))
    lb, b, ticks, segs = sc["lb_id"], sc["boundary"], sc["ticks"], sc["segments"]
    ins = read_pcap(os.path.join(d, "packets_in.pcap"))
    outs = read_pcap(out_path)
    st = json.load(open(stats_path))
    dropped = sum(st["drops"].values())
    if dropped or len(outs) != len(ins):
        raise Fail("%d of %d frames dropped (%s), %d sent" % (dropped, len(ins),
                   {k: v for k, v in st["drops"].items() if v}, len(outs)))
    for k, ((fin, _), (fout, _)) in enumerate(zip(ins, outs)):
        tk = ticks[k]
        et = int.from_bytes(fin[12:14], "big")
        tables = before if k < segs[0] or tk < b else after
        _, rw = member_of(tables, lb, tk, et)
        if isinstance(rw, str):
            raise Fail("packet %d (tick %d): the tables drop it (%s)" % (k, tk, rw))
        mac, ip, base, bits, keep = rw
        l4 = 34 if et == T.ETH_IPV4 else 54
        entropy = int.from_bytes(fin[l4 + 14:l4 + 16], "big")
        want = (mac, ip, (base + (entropy & ((1 << bits) - 1))) & 0xFFFF, len(fin) - (0 if keep else 16))
        if dest_of(fout) != want:
            raise Fail("packet %d (tick %d, %s boundary, segment %d): sent to %s, the plan gives %s"
                       % (k, tk, "<" if tk < b else ">=", 0 if k < segs[0] else 1 if k < segs[0] + segs[1] else 2,
                          dest_of(fout), want))
    return ("traffic: %d frames, %d below the boundary, %d at or above it, each to its member"
            % (len(ins), sum(1 for x in ticks if x < b), sum(1 for x in ticks if x >= b)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="check the plan's tables write by write")
    p.add_argument("--dir", required=True)
    g = sub.add_parser("gen", help="frames to instance 0 of udplb test-1 on both sides of the boundary")
    g.add_argument("--dir", required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--packets", type=int, default=90)
    tr = sub.add_parser("traffic", help="plan, then every output frame's member")
    tr.add_argument("--dir", required=True)
    tr.add_argument("--out", required=True)
    tr.add_argument("--stats", required=True)
    a = ap.parse_args(argv)
    rep = Report("lb_udplb_plan_check")
    phase = "plan"  # the check that runs (stops at the first failure)
    try:
        if a.cmd == "gen":
            gen(a.dir, a.seed, a.packets)
            return 0
        before, after, summary = check_plan(a.dir)
        if a.cmd == "traffic":
            phase = "traffic"
            summary += "; " + check_traffic(a.dir, a.out, a.stats, before, after)
    except Fail as e:
        rep.fail(phase, str(e))
        return rep.finish("")
    except (OSError, ValueError, KeyError, ScriptError, InputError) as e:
        return rep.unusable(e)
    return rep.finish(summary)


if __name__ == "__main__":
    sys.exit(main())
