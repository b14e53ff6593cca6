#!/usr/bin/python3
"""Independent checker of an epoch switch planned by `nettwin lb-plan` and run through `nettwin lb`.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.plan_check --dir D --out OUT.pcap --stats STATS.json
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.plan_check --self-test
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.plan_check --initial TABLES MEMBERS

Written from the spec's control-plane rules and docs/lb.md, never from the planner: the tables are read
with lb_tables.py (the Python table model), the members and weights from D/members*.txt, start and
boundary from D/scenario.json (files of nettwin.lb.plan_gen; D/current.txt, switch.txt, cleanup.txt from
lb-plan).  It checks
  plan     the new epoch was free (not reachable, no calendar); its calendar fills all 512 slots with
           slot counts equal to the largest-remainder apportionment of the weights (fill F = weight 1 - F,
           every positive weight at least one slot, docs/lb.md), each member id rewriting to that member;
           the calendar's neighbouring slot pairs on one member (around the ring, 511 -> 0) are the fewest
           possible: 0 when no member holds more than half the slots, else 2 * max - 512;
           the entries the switch added for the old epoch are prefixes tiling exactly [start, boundary),
           and each is maximal (its parent block leaves the range), so the set is the minimal cover (and
           equal in size to an exhaustive search when the range is small); one wildcard, to the new epoch;
           after the cleanup nothing reaches the old epoch and its calendar is gone, the new one intact;
  traffic  no packet was dropped; output k is input k with the destination of the member that the
           seed's rule picks: tick < boundary -> the old calendar's slot (tick & 0x1FF), tick >= boundary
           -> the new calendar's; the RE header and payload arrive unchanged.
--self-test compares the maximal-block count with exhaustive searches on small ranges, and the fewest
neighbouring pairs with an exhaustive search over small rings. --initial checks an initial plan's calendar.
Prints nettwin.common.report's report (`lb_plan_check: PASS: ...`, or the first failed check's MISMATCH line - plan,
traffic, calendar or self-test - and `lb_plan_check: FAIL: ...`): exit 0 ok, 1 check failed, 2 unusable input.
"""
import argparse
import ipaddress
import json
import os
import sys
from fractions import Fraction

from nettwin.common.pcap import InputError, read_pcap
from nettwin.common.report import Fail, Report
from nettwin.lb import tables as lb_tables
from nettwin.lb.tables import ScriptError

TOP = (1 << 64) - 1
SLOTS = 512




def tables_of(*paths):
    t = lb_tables.Tables()
    for p in paths:
        for cmd in lb_tables.load_script(p):
            t.apply(cmd)
    return t


def read_members(path):
    """[(name, weight as Fraction, {ethertype: (mac, ip, port)})] from a members file."""
    out = []
    with open(path) as f:
        for ln in f:
            w = ln.split("#")[0].split()
            if w:
                out.append(member_line(w))
    return out


def member_line(w):
    """(name, weight, {ethertype: (mac, ip, port)}) of one members-file line's words (MAC in hex, colons
    allowed)."""
    weight = Fraction(w[3])
    if w[2] == "fill":
        weight = 1 - weight
    rw = {}
    for i in range(4, len(w), 4):
        et = lb_tables.ETH_IPV6 if w[i] == "ipv6" else lb_tables.ETH_IPV4
        mac = int(w[i + 1].replace(":", ""), 16)
        ip = int.from_bytes(ipaddress.ip_address(w[i + 2]).packed, "big")
        rw[et] = (mac, ip, int(w[i + 3], 0))
    return w[1], weight, rw


def apportion(weights, slots=SLOTS):
    """Largest remainder, ties to the earlier member; then each positive weight left at 0 takes a slot
    from the member with the most slots (ties: the later member)."""
    total = sum(weights)
    quotas = [Fraction(slots) * w / total for w in weights]
    counts = [int(q) for q in quotas]
    order = sorted((i for i, w in enumerate(weights) if w > 0), key=lambda i: (-(quotas[i] - counts[i]), i))
    for j in range(slots - sum(counts)):
        counts[order[j % len(order)]] += 1
    for i, w in enumerate(weights):
        if w > 0 and counts[i] == 0:
            donor = max(range(len(counts)), key=lambda k: (counts[k], k))
            counts[donor] -= 1
            counts[i] += 1
    return counts


def neighbour_pairs(cal):
    """Neighbouring slots holding the same member, around the ring (slot 511's next tick uses slot 0)."""
    return sum(1 for s in range(len(cal)) if cal[s] == cal[(s + 1) % len(cal)])


def fewest_pairs(counts):
    """The fewest neighbouring pairs any ring arrangement of these slot counts can have: a member with M
    slots forms at most (total - M) runs (each run is followed by another member's slot), and a run of r
    slots has r - 1 pairs, so M - (total - M); 0 is reachable when nobody holds more than half."""
    total = sum(counts)
    m = max(counts)
    return total if m == total else max(0, 2 * m - total)


def check_calendar(cal, members, counts, member_of, what):
    """Slot counts per member against the apportionment, and neighbouring pairs against the minimum."""
    keys = [member_of(i) for i in cal]
    for (name, _, rw), want in zip(members, counts):
        got = sum(1 for k in keys if k == rw)
        if got != want:
            raise Fail("member %s holds %d slots of the %s calendar, largest remainder gives %d"
                       % (name, got, what, want))
    pairs, least = neighbour_pairs(keys), fewest_pairs([c for c in counts if c])
    if pairs != least:
        raise Fail("the %s calendar has %d neighbouring slot pairs on one member, the fewest possible is %d"
                   % (what, pairs, least))
    return pairs


def maximal_blocks(lo, hi):
    """Count of maximal aligned blocks inside [lo, hi) (the minimal exact prefix cover), by walking."""
    n, pos = 0, lo
    while pos < hi:
        k = 0
        while k < 64 and pos % (1 << (k + 1)) == 0 and pos + (1 << (k + 1)) <= hi:
            k += 1
        pos += 1 << k
        n += 1
    return n


def exhaustive_min_cover(lo, hi):
    """Fewest aligned blocks (overlaps allowed) whose union is exactly [lo, hi): every cover has a block
    holding the lowest uncovered tick; covering it leaves [lo, x) covered, so search over x."""
    inf = float("inf")
    best = {lo: 0}
    for x in range(lo, hi):
        if x not in best:
            continue
        for k in range(0, 64):
            a = x - x % (1 << k)
            end = a + (1 << k)
            if a < lo or end > hi:
                continue
            if best[x] + 1 < best.get(end, inf):
                best[end] = best[x] + 1
    return best.get(hi, 0 if lo == hi else inf)


def subset_min_cover(lo, hi, width=4):
    """Fewest blocks of the 2^width-tick universe whose union is exactly [lo, hi), by BFS over unions."""
    target = sum(1 << t for t in range(lo, hi))
    blocks = [sum(1 << t for t in range(a, a + (1 << k))) for k in range(width + 1)
              for a in range(0, 1 << width, 1 << k)]
    blocks = [b for b in blocks if b & ~target == 0]
    dist = {0: 0}
    frontier = [0]
    while frontier:
        nxt = []
        for m in frontier:
            if m == target:
                return dist[m]
            for b in blocks:
                if m | b not in dist:
                    dist[m | b] = dist[m] + 1
                    nxt.append(m | b)
        frontier = nxt
    return None


def epoch_entries(t):
    return {(e.value, e.mask, e.priority): e for e in t.epoch if e is not None}


def full_calendar(t, epoch, what):
    cal = []
    for slot in range(SLOTS):
        hit = t.calendar_lookup(epoch, slot)
        if hit is None or hit[0] != "do_assign_member":
            raise Fail("%s calendar (epoch %d) slot %d is %s" % (what, epoch, slot, hit))
        cal.append(hit[1])
    return cal


def wildcard_epoch(t, what):
    w = [e for e in t.epoch if e is not None and e.mask == 0]
    if len(w) != 1 or w[0].action != "do_assign_epoch":
        raise Fail("%s: expected one wildcard epoch entry, found %s" % (what, w))
    return w[0].epoch


def check_plan(d, sc):
    start, boundary = sc["start"], sc["boundary"]
    before = tables_of(os.path.join(d, "current.txt"))
    mid = tables_of(os.path.join(d, "current.txt"), os.path.join(d, "switch.txt"))
    post = tables_of(*(os.path.join(d, n) for n in ("current.txt", "switch.txt", "cleanup.txt")))
    old, new = wildcard_epoch(before, "before"), wildcard_epoch(mid, "after the switch")
    if new == old or new in before.calendar_epochs() or any(
            e is not None and e.epoch == new for e in before.epoch):
        raise Fail("new epoch %d was not free before the switch" % new)
    old_cal, new_cal = full_calendar(before, old, "old"), full_calendar(mid, new, "new")
    if full_calendar(mid, old, "old (after switch)") != old_cal:
        raise Fail("the switch changed the old epoch's calendar (a reachable epoch)")
    # calendar counts against the weights
    members = read_members(os.path.join(d, "members1.txt"))
    counts = apportion([w for _, w, _ in members])
    by_id = {}
    for mid_id in set(new_cal):
        for et in (lb_tables.ETH_IPV4, lb_tables.ETH_IPV6):
            e = mid.member_lookup(et, mid_id)
            by_id.setdefault(mid_id, {})[et] = (e.mac_da, e.ip_dst, e.udp_dst) if e and e.mac_da is not None else None

    def member_of(i):  # the rewrites of a member id, as the members file writes them
        return {et: v for et, v in by_id[i].items() if v is not None}
    check_calendar(new_cal, members, counts, member_of, "new")
    # the prefixes
    added = {k: e for k, e in epoch_entries(mid).items() if k not in epoch_entries(before) and e.mask != 0}
    spans = []
    for (value, mask, prio), e in sorted(added.items()):
        plen = bin(mask).count("1")
        if mask != (TOP << (64 - plen)) & TOP or e.epoch != old or e.action != "do_assign_epoch":
            raise Fail("added entry %#x&&&%#x -> %s %s is not a prefix to the old epoch" % (value, mask, e.action, e.epoch))
        if prio >= 64:
            raise Fail("prefix %#x/%d has priority %d, not above the wildcard" % (value, plen, prio))
        size = 1 << (64 - plen)
        if value < start or value + size > boundary:
            raise Fail("prefix %#x/%d leaves [start, boundary)" % (value, plen))
        parent = value - value % (size * 2)
        if plen > 0 and parent >= start and parent + 2 * size <= boundary:
            raise Fail("prefix %#x/%d is not maximal: its parent block lies inside the range" % (value, plen))
        spans.append((value, value + size))
    spans.sort()
    pos = start
    for a, b in spans:
        if a != pos:
            raise Fail("the prefixes leave a gap or overlap at tick %d" % pos)
        pos = b
    if pos != boundary:
        raise Fail("the prefixes end at %d, not at the boundary %d" % (pos, boundary))
    if len(spans) != maximal_blocks(start, boundary):
        raise Fail("%d prefixes, the minimal cover has %d" % (len(spans), maximal_blocks(start, boundary)))
    if boundary - start <= 4096 and len(spans) != exhaustive_min_cover(start, boundary):
        raise Fail("exhaustive search finds a smaller cover")
    # the cleanup
    if old in post.calendar_epochs() or any(e is not None and e.epoch == old for e in post.epoch):
        raise Fail("after the cleanup epoch %d is still reachable or has a calendar" % old)
    if full_calendar(post, new, "new (after cleanup)") != new_cal or wildcard_epoch(post, "after cleanup") != new:
        raise Fail("the cleanup changed the new epoch")
    for i in set(new_cal):
        if by_id[i] != {et: ((e.mac_da, e.ip_dst, e.udp_dst) if e else None)
                        for et in by_id[i] for e in [post.member_lookup(et, i)]}:
            raise Fail("the cleanup removed member %d that the new calendar uses" % i)
    return before, mid, old_cal, new_cal, len(spans)


def check_traffic(d, sc, out_path, stats_path, before, mid, old_cal, new_cal):
    frames = read_pcap(os.path.join(d, "packets_in.pcap"))
    outs = read_pcap(out_path)
    with open(stats_path) as f:
        st = json.load(f)
    if any(st["drops"].values()):
        raise Fail("drops during the switch: %s" % {k: v for k, v in st["drops"].items() if v})
    if len(outs) != len(frames):
        raise Fail("%d packets in, %d out" % (len(frames), len(outs)))
    n1, n2, _ = sc["segments"]
    boundary = sc["boundary"]
    counts = [0, 0]
    for k, ((fin, _), (fout, _)) in enumerate(zip(frames, outs)):
        et = int.from_bytes(fin[12:14], "big")
        l4 = 14 + (40 if et == lb_tables.ETH_IPV6 else (fin[14] & 0xF) * 4)
        tick = int.from_bytes(fin[l4 + 12:l4 + 20], "big")
        if k < n1 and tick >= boundary:
            raise Fail("generator: packet %d before the switch has tick >= boundary" % k)
        if k >= n1 + n2 and tick < boundary:
            raise Fail("generator: packet %d after the cleanup has tick < boundary" % k)
        new = tick >= boundary
        counts[new] += 1
        member = (new_cal if new else old_cal)[tick & 0x1FF]
        e = (mid if new else before).member_lookup(et, member)
        dst_ip = int.from_bytes(fout[38:54] if et == lb_tables.ETH_IPV6 else fout[30:34], "big")
        got = (int.from_bytes(fout[0:6], "big"), dst_ip, int.from_bytes(fout[l4 + 2:l4 + 4], "big"))
        want = (e.mac_da, e.ip_dst, e.udp_dst)
        if got != want:
            raise Fail("packet %d tick %d (%s boundary): sent to mac %012x ip %x port %d, the %s calendar's "
                       "slot %d is member %d (mac %012x ip %x port %d)"
                       % (k, tick, ">=" if new else "<", got[0], got[1], got[2], "new" if new else "old",
                          tick & 0x1FF, member, *want))
        if fout[l4 + 8:] != fin[l4 + 20:]:
            raise Fail("packet %d: the RE header / payload changed" % k)
    return counts


def check_initial(tables_path, members_path):
    """An initial plan (filter + `lb-plan` output): its one calendar against the members file."""
    t = tables_of(tables_path)
    cal = full_calendar(t, wildcard_epoch(t, "initial"), "initial")
    members = read_members(members_path)
    counts = apportion([w for _, w, _ in members])

    def member_of(i):
        out = {}
        for et in (lb_tables.ETH_IPV4, lb_tables.ETH_IPV6):
            e = t.member_lookup(et, i)
            if e is not None and e.mac_da is not None:
                out[et] = (e.mac_da, e.ip_dst, e.udp_dst)
        return out
    pairs = check_calendar(cal, members, counts, member_of, "initial")
    return "calendar counts %s, %d neighbouring pairs (the fewest possible)" % ("/".join(str(c) for c in counts), pairs)


def self_test():
    for lo in range(0, 17):
        for hi in range(lo, 17):
            if not (maximal_blocks(lo, hi) == exhaustive_min_cover(lo, hi) == subset_min_cover(lo, hi)):
                raise Fail("self-test: [%d, %d)" % (lo, hi))
    for lo in range(0, 200):
        for hi in range(lo, 200, 7):
            if maximal_blocks(lo, hi) != exhaustive_min_cover(lo, hi):
                raise Fail("self-test: [%d, %d)" % (lo, hi))
    top = TOP - 15
    for lo in range(0, 15):
        for hi in range(lo, 16):
            if maximal_blocks(top + lo, top + hi) != subset_min_cover(lo, hi):
                raise Fail("self-test near 2^64: [%d, %d)" % (lo, hi))
    assert apportion([Fraction(1)] * 3) == [171, 171, 170]
    assert apportion([Fraction(1000000), Fraction(1)]) == [511, 1]
    # fewest_pairs against an exhaustive search over every ring of up to 8 slots and 3 members
    import itertools
    for n in range(1, 10):
        best = {}
        for ring in itertools.product(range(3), repeat=n):
            counts = tuple(c for c in (ring.count(m) for m in range(3)) if c)
            best[counts] = min(best.get(counts, n), neighbour_pairs(ring))
        for counts, b in best.items():
            if fewest_pairs(list(counts)) != b:
                raise Fail("self-test: fewest_pairs(%s) = %d, exhaustive %d" % (counts, fewest_pairs(counts), b))
    return "self-test (minimal cover = exhaustive searches, apportionment examples)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir")
    ap.add_argument("--out")
    ap.add_argument("--stats")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--initial", nargs=2, metavar=("TABLES", "MEMBERS"),
                    help="check an initial plan's calendar (counts, neighbouring pairs) against a members file")
    a = ap.parse_args(argv)
    if not (a.self_test or a.initial or (a.dir and a.out and a.stats)):
        ap.error("--dir, --out and --stats are required")
    rep = Report("lb_plan_check")
    phase = "plan"  # the check that runs: self-test, calendar, plan, traffic (stops at the first failure)
    try:
        if a.self_test:
            phase = "self-test"
            return rep.finish(self_test())
        if a.initial:
            phase = "calendar"
            return rep.finish(check_initial(*a.initial))
        with open(os.path.join(a.dir, "scenario.json")) as f:
            sc = json.load(f)
        before, mid, old_cal, new_cal, n_prefix = check_plan(a.dir, sc)
        phase = "traffic"
        counts = check_traffic(a.dir, sc, a.out, a.stats, before, mid, old_cal, new_cal)
    except Fail as e:
        rep.fail(phase, str(e))
        return rep.finish("")
    except (ScriptError, InputError, OSError, ValueError, KeyError) as e:
        return rep.unusable(e)
    return rep.finish("%d prefixes (minimal) cover [%d, %d); %d packets to the old calendar, %d to the new, none "
                      "dropped" % (n_prefix, sc["start"], sc["boundary"], counts[0], counts[1]))


if __name__ == "__main__":
    sys.exit(main())
