"""Randomised tables script (runsim.txt) for nettwin.lb.gen: three segments with two reconfigurations.

The structure is fixed so that every table-dependent drop reason is reachable; the values (MACs,
addresses, ticks, epoch and member ids, calendar weights, number formats) come from the seed.

  segment 1: overlapping ternary epoch entries (/prefix and &&&mask, explicit and omitted
             priorities, an equal-priority tie, a drop entry, a catch-nothing gap -> epoch_miss),
             4 calendar epochs (3 full weighted, 1 partial with drop slots), an epoch with no
             calendar, members of both families incl. drop entries, a family-only member, an
             absent member and an id aliasing another mod 512.
  reconfig 1 (table_add / table_delete): the partial calendar deleted slot by slot and a new full
             one added, the tie flipped by re-using the lowest free epoch slot, a member
             re-addressed, a member replaced by one equal mod 512, a filter entry removed with the
             3-key form of a 4-key entry.
  reconfig 2 (table_clear of every table, then a new configuration).

Entry point: build_script(rng, seg_sizes) -> script text.
"""
import ipaddress

ETH4, ETH6 = 0x0800, 0x86DD
LB_PORT = 0x4C42
# Tunnel / well-known ports tshark would decode the payload of; member ports avoid them.
AVOID_PORTS = {53, 67, 68, 123, 137, 138, 161, 500, 514, 1701, 1812, 2152, 3784, 4500, 4789,
               4790, 5060, 6081, 8472}


class ScriptWriter:
    """Emits commands in the docs/lb.md grammar with varied (but legal) formatting."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []

    def comment(self, text):
        self.lines.append(f"# {text}")

    def blank(self):
        self.lines.append("")

    def cmd(self, tokens, note=None, spread=False):
        """One command; spread=True prints it one token per line like the spec's example."""
        if spread:
            for k, t in enumerate(tokens):
                self.lines.append(t + (f"  # {note}" if note and k == 0 else ""))
        else:
            self.lines.append(" ".join(tokens) + (f"   # {note}" if note else ""))

    def text(self):
        return "\n".join(self.lines) + "\n"

    # ---- value formats ------------------------------------------------------------------------
    def num(self, v, width):
        """Hex (zero padded to the field width, as in the spec) or decimal."""
        if self.rng.random() < 0.25:
            return str(v)
        return f"0x{v:0{(width + 3) // 4}x}"

    def mac(self, v, key=True):
        if key and self.rng.random() < 0.5:
            return ":".join(f"{b:02x}" for b in v.to_bytes(6, "big"))
        return f"0x{v:012x}"

    def ip(self, v, fam, key=True):
        r = self.rng.random()
        if fam == ETH4:
            if key and r < 0.4:
                return str(ipaddress.IPv4Address(v))
            if key and r < 0.7:
                return f"0x{v:032x}"          # the spec's normalised 128-bit form
            return f"0x{v:08x}"
        if key and r < 0.6:
            return str(ipaddress.IPv6Address(v))
        return f"0x{v:032x}"


def rand_mac(rng):
    """Locally administered unicast MAC."""
    return (rng.getrandbits(48) & ~(0x01 << 40)) | (0x02 << 40)


def rand_ip4(rng, first):
    return (first << 24) | rng.getrandbits(24) | 1


def rand_ip6(rng):
    return (0xFD << 120) | rng.getrandbits(112) << 8 | 1


def rand_port(rng):
    while True:
        p = rng.randrange(1024, 65536)
        if p not in AVOID_PORTS and p != LB_PORT:
            return p


class Design:
    """The values the script uses (ids, regions, addresses); lb_gen only needs the text."""

    def __init__(self, rng):
        self.rng = rng
        # tick regions: top 16 bits of the tick
        regions = rng.sample(range(0x0001, 0x7FFF), 8)
        self.R = dict(zip("ABCDEFGH", regions))
        self.R["E8"] = rng.randrange(0x80, 0x100)           # an 8-bit region (top bit set)
        self.R["F"] = (self.R["E8"] << 8) | rng.randrange(256)  # a /16 inside it
        epochs = [0] + rng.sample(range(1, 1 << 32), 7)
        rng.shuffle(epochs)
        self.E = epochs                                     # E[0..7]
        # member ids: distinct mod 512 (one family's direct-mapped table), except deliberate aliases
        residues = rng.sample(range(512), 24)
        self.ids = [r + 512 * rng.randrange(128) for r in residues]

    def alias(self, mid):
        """Another id equal to mid mod 512."""
        return (mid + 512 * self.rng.randrange(1, 128)) & 0xFFFF


def weighted_calendar(rng, members, holes=0, drops=0):
    """512 slots -> member id (or None = no entry, 'drop' = drop action).  Each member gets a
    different number of slots (its weight); `holes` slots are left out, `drops` use drop."""
    n = 512 - holes - drops
    weights = rng.sample(range(1, 4 * len(members) + 1), len(members))
    total = sum(weights)
    counts = [max(1, w * n // total) for w in weights]
    counts[counts.index(max(counts))] += n - sum(counts)
    slots = [m for m, c in zip(members, counts) for _ in range(c)]
    slots += [None] * holes + ["drop"] * drops
    rng.shuffle(slots)
    return slots


def build_script(rng, seg_sizes):
    d = Design(rng)
    w = ScriptWriter(rng)
    E, R, ids = d.E, d.R, d.ids
    top16 = 0xFFFF << 48

    def epoch_add(key, epoch=None, prio=None, note=None, spread=False):
        toks = ["table_add", "epoch_assign_table", "do_assign_epoch" if epoch is not None else "drop",
                key, "=>"]
        if epoch is not None:
            toks.append(w.num(epoch, 32))
        if prio is not None:
            toks.append(str(prio) if rng.random() < 0.7 else f"0x{prio:x}")
        w.cmd(toks, note, spread)

    def prefix(value, plen):
        return f"0x{value:016x}/{plen}"

    def tern(value, mask):
        return f"0x{value:016x}&&&0x{mask:016x}"

    def calendar(epoch, slots, note):
        w.comment(f"calendar of epoch 0x{epoch:x}: {note}")
        for s, m in enumerate(slots):
            if m is None:
                continue
            if m == "drop":
                w.cmd(["table_add", "load_balance_calendar_table", "drop", w.num(epoch, 32),
                       w.num(s, 9), "=>"])
            else:
                w.cmd(["table_add", "load_balance_calendar_table", "do_assign_member",
                       w.num(epoch, 32), w.num(s, 9), "=>", w.num(m, 16)])

    def calendar_delete(epoch, slots):
        for s, m in enumerate(slots):
            if m is not None:
                w.cmd(["table_delete", "load_balance_calendar_table", w.num(epoch, 32), w.num(s, 9)])

    def member(fam, mid, action="rewrite", spread=False):
        et = w.num(fam, 16)
        if action == "drop":
            w.cmd(["table_add", "member_info_lookup_table", "drop", et, w.num(mid, 16), "=>"],
                  f"member {mid} dropped")
            return
        mac = rand_mac(rng)
        ip = rand_ip4(rng, rng.choice([172, 192])) if fam == ETH4 else rand_ip6(rng)
        port = rng.choice([rand_port(rng), rand_port(rng), 0x4556])
        act = "do_ipv4_member_rewrite" if fam == ETH4 else "do_ipv6_member_rewrite"
        w.cmd(["table_add", "member_info_lookup_table", act, et, w.num(mid, 16), "=>",
               w.mac(mac, key=False), w.ip(ip, fam, key=False), w.num(port, 16)],
              f"member {mid}", spread)

    def filt(action, mac, fam, ip, port=None, note=None, spread=False):
        toks = ["table_add", "dst_filter_table", action, w.mac(mac), w.num(fam, 16), w.ip(ip, fam)]
        if port is not None:
            toks.append(w.num(port, 16))
        w.cmd(toks + ["=>"], note, spread)

    # ---------------- segment 1 ----------------
    mac0, mac1 = rand_mac(rng), rand_mac(rng)
    v4 = [rand_ip4(rng, 10) for _ in range(6)]
    v6 = [rand_ip6(rng) for _ in range(4)]
    w.comment(f"lb_gen tables script; segments of {seg_sizes} packets")
    w.comment("---- segment 1 configuration ----")
    filt("NoAction", mac0, ETH4, v4[0], note="LB IPv4 address (3-key form: port 0x4C42)", spread=True)
    filt("NoAction", mac0, ETH6, v6[0], note="LB IPv6 address", spread=True)
    filt("NoAction", mac1, ETH4, v4[1], LB_PORT, note="4-key form")
    filt("NoAction", mac1, ETH6, v6[1], LB_PORT)
    filt("drop", mac0, ETH4, v4[2], note="filter_drop")
    filt("drop", mac1, ETH6, v6[2], LB_PORT, note="filter_drop")
    filt("NoAction", mac0, ETH4, v4[3], rand_port(rng), note="other port only: LB packets miss")
    filt("NoAction", mac1, ETH4, v4[4], note="IPv6 packets to ::this address must miss")

    # members: ids[0..4] both families, 5 v4 only, 6 v6 only, 7 drop in v4, 8 drop in both,
    # 9 absent, alias9 = an id equal mod 512 to a v4 member but absent
    for mid in ids[0:5]:
        member(ETH4, mid, spread=(mid == ids[0]))
        member(ETH6, mid, spread=(mid == ids[0]))
    member(ETH4, ids[5])
    member(ETH6, ids[6])
    member(ETH4, ids[7], "drop")
    member(ETH6, ids[7])
    member(ETH4, ids[8], "drop")
    member(ETH6, ids[8], "drop")
    alias = d.alias(ids[1])
    cal_members = ids[0:10] + [alias]

    cal1 = {}
    for k, (e, holes, drops) in enumerate([(E[0], 0, 0), (E[1], 0, 0), (E[2], 0, 3), (E[3], 90, 12)]):
        cal1[e] = weighted_calendar(rng, cal_members if k != 1 else ids[0:7], holes, drops)
        calendar(e, cal1[e], "partial (calendar_miss) with drop slots" if holes else "full 512 slots")

    w.comment("epoch assignment: overlapping ternary entries; lowest priority value wins, ties -> lowest slot")
    RA, RB = R["A"] << 48, R["B"] << 48
    sub = rng.randrange(1, 0xFFFF) << 32
    epoch_add(prefix(RA, 16), E[0], note="slot 0; priority omitted -> 48", spread=True)
    epoch_add(prefix(RA | sub, 32), E[1], 10)
    epoch_add(tern(RA | 0x30, top16 | 0xF0), E[2], 5, "&&& mask, beats the /32")
    epoch_add(prefix(RA | sub | (rng.randrange(256) << 24), 40), None, 3, "drop inside the /32")
    epoch_add(prefix(RB, 16), E[1], 20, "tie with the next entry: this one (lower slot) wins")
    epoch_add(tern(RB | 0x100, top16 | 0x100), E[3], 20)
    epoch_add(prefix(R["C"] << 48, 16), E[3], note="partial calendar")
    epoch_add(prefix(R["D"] << 48, 16), E[4], 30, "epoch without calendar -> calendar_miss")
    epoch_add(prefix(0x10, 60), E[1], 5, "as in the spec: 16 small ticks")
    epoch_add(prefix(R["E8"] << 56, 8), None, note="drop, priority omitted -> 56")
    epoch_add(prefix(R["F"] << 48, 16), E[2], note="inside the drop /8, priority 48 wins")
    exact_tick = (R["G"] << 48) | rng.getrandbits(48)
    epoch_add(f"0x{exact_tick:016x}", E[0], note="exact tick, priority omitted -> 0")
    w.blank()
    w.cmd(["run_traffic", str(seg_sizes[0])], "segment 1")

    # ---------------- reconfiguration 1 ----------------
    w.comment("---- reconfiguration 1 (in service) ----")
    calendar_delete(E[3], cal1[E[3]])
    new_v6 = d.alias(ids[3])
    cal5_members = [ids[0], ids[1], ids[2], new_v6, ids[5], ids[6], ids[10], ids[11]]
    member(ETH4, ids[10])
    member(ETH6, ids[10])
    member(ETH4, ids[11])
    member(ETH6, ids[11])
    w.cmd(["table_delete", "member_info_lookup_table", w.num(ETH4, 16), w.num(ids[2], 16)],
          "re-addressed below")
    member(ETH4, ids[2])
    w.cmd(["table_delete", "member_info_lookup_table", w.num(ETH6, 16), w.num(ids[3], 16)],
          "replaced by an id equal mod 512")
    member(ETH6, new_v6)
    cal5 = weighted_calendar(rng, cal5_members)
    calendar(E[5], cal5, "new epoch, full")
    w.cmd(["table_delete", "epoch_assign_table", prefix(RA, 16)], "frees slot 0")
    epoch_add(tern(RB | 0x200, top16 | 0x200), E[5], 20, "re-uses slot 0: wins the tie in region B")
    w.cmd(["table_delete", "epoch_assign_table", prefix(R["C"] << 48, 16), "48"], "with priority")
    epoch_add(prefix(R["C"] << 48, 16), E[5], 48)
    epoch_add(prefix(R["H"] << 48, 16), E[5])
    w.cmd(["table_delete", "dst_filter_table", w.mac(mac1), w.num(ETH4, 16), w.ip(v4[1], ETH4)],
          "3-key delete of the 4-key entry with port 0x4C42")
    filt("NoAction", mac1, ETH4, v4[5])
    w.blank()
    w.cmd(["run_traffic", str(seg_sizes[1])], "segment 2")

    # ---------------- reconfiguration 2 ----------------
    w.comment("---- reconfiguration 2: clear every table, new configuration ----")
    for t in ("epoch_assign_table", "load_balance_calendar_table", "member_info_lookup_table",
              "dst_filter_table"):
        w.cmd(["table_clear", t])
    filt("NoAction", mac0, ETH4, v4[0])
    filt("NoAction", mac0, ETH6, v6[0], LB_PORT)
    filt("NoAction", mac1, ETH6, v6[3])
    filt("drop", mac1, ETH4, v4[5])
    for mid in ids[12:17]:
        member(ETH4, mid)
        member(ETH6, mid)
    member(ETH4, ids[17])
    member(ETH6, ids[18], "drop")
    member(ETH4, ids[18], "drop")
    cal_members3 = ids[12:20]
    calendar(E[0], weighted_calendar(rng, cal_members3), "rebuilt")
    calendar(E[5], weighted_calendar(rng, cal_members3[:6], 0, 5), "rebuilt, drop slots")
    calendar(E[6], weighted_calendar(rng, cal_members3, 150, 10), "partial")
    epoch_add(tern(0, 1 << 63), E[0], 60, "ticks with the top bit clear")
    epoch_add(prefix(RB, 16), E[5])
    epoch_add(tern(RB | 0x7, top16 | 0x7), E[6], 16)
    epoch_add(prefix(R["D"] << 48, 16), E[7], note="no calendar -> calendar_miss")
    epoch_add(prefix(R["E8"] << 56, 8), E[6], note="top bit set: only this /8 and the next match")
    epoch_add(prefix((R["E8"] << 56) | (1 << 55), 9), None, 1, "drop")
    w.blank()
    w.cmd(["run_traffic", "packets"], "segment 3: the rest")
    return w.text()
