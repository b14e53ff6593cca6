#!/usr/bin/python3
"""Randomized vectors for the `udplb` program (docs/lb-udplb.md): a table script in udplb's CLI format and
the traffic, deterministic per seed.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_gen --seed N --out-pcap IN.pcap --out-tables T.txt [--packets K]

What a vector holds (every seed): 2..8 LB instances (random lb_ids 0..7), each with IPv4 / IPv6 unicast
addresses, an alias address (ARP / ICMP / ND to it are mismatches), its solicited-node group, allowed
senders, 1..3 epochs (longest-prefix tick ranges, do_assign_epoch or with slot bits 0..20 and an xor),
calendars and members: IPv4 / IPv6 rewrites with port bits 0..16 (and a few above), keep-LB-header members,
soft-evicted and deregistered members, calendar slots naming members without an entry. L2: VLAN interfaces
(l2_iface_table), MAC filters per interface (set_mac_sa and l2_dst_allow), EtherType-0x8100 IP entries (a
tagged frame keeps EtherType 0x8100, docs/lb-udplb.md "Interpretations").
Traffic: LB v2 and v3 over IPv4 (with options) and IPv6, zero and wrong UDP checksums, wrong IPv4 header
checksums, inconsistent lengths, frames from 42 bytes (Ethernet padding kept) up to ~9000 (and frames cut
inside their headers, down to 14 bytes), VLAN-tagged frames, ARP / ICMP echo / ICMPv6 echo / neighbour
solicitations (with and without the source link-layer option, from ::, with another option) that get replies,
priority-tagged frames, IEEE 802 group frames (LLDP, LACP, other slow protocols; tagged ones go through L2),
and frames for every drop reason: parse errors of each kind (EtherType, VLAN inner type, IPv4 version / IHL /
protocol, IPv6 version / next header, ICMPv6 type, ARP fields, LB magic / version, truncation anywhere), l2/l3
misses, not IP, ARP / ICMP / ND mismatches, ICMP destination unreachable and unhandled, blocked sources, no LB
header, TTL / hop limit 0 and 1, epoch / calendar / member misses, soft-evicted and deregistered members.
The first segment starts with one frame of each kind, so every seed covers all of them.
`run_traffic N` cuts the traffic into 3..5 segments; between them the tables change: calendar slots move,
members change state (rewrite <-> soft evicted / deregistered, keep flag, port bits), epochs are added and
retired, senders are blocked and allowed, an IPv6 source table is cleared and refilled, alias entries go.
One change makes a field_mask tie that only the documented rule decides: an l2_iface wildcard re-added after
deletes takes the lowest free index and beats a VLAN entry of equal priority added before it.
"""
import argparse
import random
import sys

from scapy.layers.inet import ICMP, IP, UDP, IPOption
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                                ICMPv6NDOptSrcLLAddr, IPv6)
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

from nettwin.common.pcap import write_pcap
from nettwin.lb.layers import E2SARRE, EVIO6Seg, UDPLBv2, UDPLBv3

UC_MAC = 0x00AABBCCDDEE
BCAST = 0xFFFFFFFFFFFF
ALL_NODES_MAC = 0x333300000001


def mac(v):
    return ":".join(f"{(v >> (8 * k)) & 0xFF:02x}" for k in reversed(range(6)))


def ip4(v):
    return ".".join(str((v >> (8 * k)) & 0xFF) for k in reversed(range(4)))


def ip6(v):
    return ":".join(f"{(v >> (16 * k)) & 0xFFFF:x}" for k in reversed(range(8)))


def sol_node(addr6):
    """Solicited-node multicast address and MAC of an IPv6 address."""
    low = addr6 & 0xFFFFFF
    return 0xFF0200000000000000000001FF000000 | low, 0x3333FF000000 | low


class Instance:
    def __init__(self, lb_id, rng, k):
        self.lb_id = lb_id
        self.ip4 = 0x0A010200 | (10 + k)
        self.alias4 = 0x0A010300 | (10 + k)
        self.ip6 = 0xFD9F53B7A26148ED0000000000000000 | rng.getrandbits(48) << 16 | k
        self.alias6 = 0xFD9F53B7A26148EE0000000000000000 | k
        self.src4 = [0x0A020000 | rng.getrandbits(16) for _ in range(rng.randint(1, 3))]
        self.src6 = [0xFE800000000000000000000000000000 | rng.getrandbits(64) for _ in range(rng.randint(1, 2))]
        self.blocked4 = 0x0A030000 | k
        self.blocked6 = 0xFE800000000000000000000000FF0000 | k
        self.iface = 0
        self.epochs = []     # dicts: value, plen, epoch, bits, xor, slots {slot: member}
        self.members = {}    # (family 4|6, member id) -> kind: rewrite / soft / dereg
        self.next_epoch = rng.randint(0, 1000)
        self.alias4_arp_gone = False
        self.pinned = {}     # kind -> (epoch dict, slot): a soft-evicted and a deregistered member (instance 0)


class Gen:
    def __init__(self, seed, packets):
        self.rng = random.Random(seed)
        self.n_packets = packets
        self.lines = [f"# udplb_gen.py --seed {seed} --packets {packets} (docs/lb-udplb.md)"]
        self.frames = []
        self.prio = 10

    # ---- script -------------------------------------------------------------------------------
    def emit(self, line):
        self.lines.append(line)

    def next_prio(self):
        self.prio += 1
        return self.prio

    def key4(self, v):
        """An IPv4 address as a 128-bit ip_da key, in one of the accepted spellings."""
        return self.rng.choice([f"0x{v:032x}", f"0x{v:08x}", ip4(v), f"::{ip4(v)}"])

    def setup(self):
        rng = self.rng
        n = rng.randint(2, 8)
        ids = sorted(rng.sample(range(8), n))
        self.inst = [Instance(lb, rng, k) for k, lb in enumerate(ids)]
        # L2: untagged frames use iface 0 through the compat miss (or an explicit vid-0 entry); VLANs 1..3
        self.vlans = {}
        self.emit("\n# L2 interfaces")
        if rng.random() < 0.5:
            self.emit(f"table_add l2_iface_table set_l2_iface 0&&&0xfff => 0 0x{UC_MAC:012x} {self.next_prio()}")
        self.vlan_prio = {}
        for k, vid in enumerate(rng.sample(range(1, 4095), 3)):
            iface = k + 1
            self.vlans[vid] = iface
            self.vlan_prio[vid] = self.next_prio()
            self.emit(f"table_add l2_iface_table set_l2_iface {vid}&&&0xfff => {iface} 0x{UC_MAC + iface:012x} "
                      f"{self.vlan_prio[vid]}")
        # a wildcard at the first VLAN's priority, at a higher index: that VLAN's entry wins the tie
        self.wild_prio = self.vlan_prio[next(iter(self.vlans))]
        self.emit(f"table_add l2_iface_table set_l2_iface 0&&&0 => 0 0x{UC_MAC:012x} {self.wild_prio}")
        self.tie_done = False
        self.unmapped_vid = next(v for v in range(4094, 1, -1) if v not in self.vlans)
        self.emit("\n# MAC filters (iface 0 = untagged and unmapped VLANs)")
        self.emit(f"table_add mac_dst_filter_table set_mac_sa 0&&&0xf 0x{UC_MAC:012x} => 0x{UC_MAC:012x} 0")
        self.emit(f"table_add mac_dst_filter_table set_mac_sa 0&&&0 0x{BCAST:012x} => 0x{UC_MAC:012x} 1")
        self.emit(f"table_add mac_dst_filter_table l2_dst_allow 0&&&0 0x{ALL_NODES_MAC:012x} => 2")
        for vid, iface in self.vlans.items():
            self.emit(f"table_add mac_dst_filter_table l2_dst_allow {iface}&&&0xf 0x{UC_MAC + iface:012x} => "
                      f"{self.next_prio()}")
        for ins in self.inst:
            self.emit(f"\n# instance lb_id {ins.lb_id}: {ip4(ins.ip4)} {ip6(ins.ip6)}")
            _, smac = sol_node(ins.ip6)
            self.emit(f"table_add mac_dst_filter_table set_mac_sa 0&&&0 0x{smac:012x} => 0x{UC_MAC:012x} "
                      f"{self.next_prio()}")
            lb = ins.lb_id
            tagged = [(0x8100, ins.ip4, ins.ip4)] if ins in self.inst[:4] else []   # ip_dst holds 64
            for et, key, uc in [(0x0800, ins.ip4, ins.ip4), (0x0806, ins.ip4, ins.ip4), (0x0800, ins.alias4, ins.ip4),
                                (0x0806, ins.alias4, ins.ip4)] + tagged:
                self.emit(f"table_add ip_dst_filter_table set_ip_sa 0&&&0 0x{et:04x} {self.key4(key)} => "
                          f"0x{uc:032x} {lb} {self.next_prio()}")
            sn, _ = sol_node(ins.ip6)
            for key in (ins.ip6, sn, ins.alias6):
                k = f"0x{key:032x}" if rng.random() < 0.5 else ip6(key)
                self.emit(f"table_add ip_dst_filter_table set_ip_sa 0&&&0 0x86dd {k} => 0x{ins.ip6:032x} {lb} "
                          f"{self.next_prio()}")
            for s in ins.src4:
                self.emit(f"table_add ipv4_src_filter_table allow_ip_src {lb} 0x{s:08x} =>")
            for s in ins.src6:
                self.emit(f"table_add ipv6_src_filter_table allow_ip_src {lb} {ip6(s)} =>")
            for _ in range(rng.randint(1, 3)):   # the first instance has no /0 epoch: epoch_miss is reachable
                self.add_epoch(ins, default=not ins.epochs and ins is not self.inst[0] and rng.random() < 0.6)
        # The all-nodes group answers for the first instance only (as udplb's test-1)
        i0 = self.inst[0]
        self.emit(f"table_add ip_dst_filter_table set_ip_sa 0&&&0 0x86dd ff02::1 => 0x{i0.ip6:032x} {i0.lb_id} "
                  f"{self.next_prio()}")

    def add_member(self, ins):
        """A member id free in both families; entries for both (mostly) or one family."""
        rng = self.rng
        used = {m & 63 for (_, m) in ins.members}
        free = [x for x in range(64) if x not in used]
        if not free:
            return None
        mid = (rng.getrandbits(10) << 6) | rng.choice(free) if rng.random() < 0.7 else rng.choice(free)
        for fam in rng.choices([(4, 6), (4,), (6,)], [14, 1, 1])[0]:
            self.write_member(ins, fam, mid, rng.choices(["rewrite", "soft", "dereg"], [10, 1, 1])[0])
        return mid

    def write_member(self, ins, fam, mid, kind):
        rng = self.rng
        ins.members[(fam, mid)] = kind
        et = "0x0800" if fam == 4 else "0x86dd"
        head = "table_add member_info_lookup_table"
        if kind == "soft":
            self.emit(f"{head} drop_soft_evicted {ins.lb_id} {et} {mid} =>")
        elif kind == "dereg":
            self.emit(f"{head} drop_deregistered {ins.lb_id} {et} {mid} =>")
        else:
            bits = rng.choice([0, 0, 1, 2, 4, 4, 8, 12, 15, 16, 17, 31])
            keep = int(rng.random() < 0.3)
            base = rng.choice([0x4556, 0x4C42, 0xFFF0, rng.getrandbits(16)])
            addr = f"0x{0x0A640000 | rng.getrandbits(16):08x}" if fam == 4 else \
                f"0x{0xFD000000000000000000000000000000 | rng.getrandbits(64):032x}"
            self.emit(f"{head} do_ipv{fam}_member_rewrite {ins.lb_id} {et} {mid} => 0x{rng.getrandbits(48):012x} "
                      f"{addr} 0x{base:04x} {bits} {keep}")

    def add_epoch(self, ins, default=False):
        rng = self.rng
        if sum(len(i.epochs) for i in self.inst) >= 30:
            return
        plen = 0 if default else rng.choice([8, 16, 24, 32, 40, 47, 48])
        value = 0 if default else rng.getrandbits(64) & (((1 << 64) - 1) ^ ((1 << (64 - plen)) - 1))
        if any(e["value"] == value and e["plen"] == plen for e in ins.epochs):
            return
        ins.next_epoch += rng.randint(1, 3)
        epoch = ins.next_epoch
        if rng.random() < 0.4:
            bits, xor = 9, 0
            act = f"do_assign_epoch {ins.lb_id} 0x{value:016x}/{plen} => {epoch}"
        else:
            bits = rng.choice([0, 1, 2, 3, 5, 8, 9, 9, 12, 16, 20])
            if ins is self.inst[0] and not ins.epochs:
                bits = max(bits, 3)            # room for the pinned slots
            xor = rng.choice([0, 0xFFFF, rng.getrandbits(16)])
            act = (f"do_assign_epoch_with_slot_sel_opts {ins.lb_id} 0x{value:016x}/{plen} => {epoch} {bits} "
                   f"0x{xor:x}")
        self.emit(f"table_add epoch_assign_table {act}" + (f" {64 - plen}" if rng.random() < 0.7 else ""))
        e = dict(value=value, plen=plen, epoch=epoch, bits=bits, xor=xor, slots={})
        ins.epochs.append(e)
        # calendar: every slot for small calendars, a random part (capped) for large ones
        nslots = min(1 << min(bits, 9), 512)
        fill = list(range(nslots)) if nslots <= 16 else rng.sample(range(nslots), min(nslots, rng.randint(8, 48)))
        mids = [m for m in (self.add_member(ins) for _ in range(rng.randint(1, 4))) if m is not None]
        ghost = rng.getrandbits(16)                     # a member without an entry: member_miss
        for s in sorted(fill):
            m = rng.choice(mids + [ghost]) if mids else ghost
            if m == ghost and rng.random() < 0.7 and mids:
                m = mids[0]
            e["slots"][s] = m
        if ins is self.inst[0] and len(ins.epochs) == 1:
            for kind, s in zip(("soft", "dereg"), rng.sample(range(nslots), 2)):
                used = {m & 63 for (_, m) in ins.members}
                mid = next(x for x in range(64) if x not in used) | 0x100
                for fam in (4, 6):
                    self.write_member(ins, fam, mid, kind)
                e["slots"][s] = mid
                ins.pinned[kind] = (e, s)
        for s in sorted(e["slots"]):
            self.emit(f"table_add load_balance_calendar_table do_assign_member {ins.lb_id} {epoch} {s} => "
                      f"{e['slots'][s]}")

    # ---- table changes between segments ---------------------------------------------------------
    def change_tables(self):
        rng = self.rng
        self.emit("\n# table changes")
        for k in range(rng.randint(2, 5)):
            ins = rng.choice(self.inst)
            op = "l2tie" if not self.tie_done else rng.choice(["move", "member", "member", "epoch", "src", "clear6",
                                                              "alias"])
            pinned_slots = set((id(e), s) for e, s in ins.pinned.values())
            pinned_mids = set(e["slots"][s] for e, s in ins.pinned.values())
            if op == "move" and ins.epochs:
                e = rng.choice(ins.epochs)
                free = [s for s in sorted(e["slots"]) if (id(e), s) not in pinned_slots]
                if free:
                    s = rng.choice(free)
                    self.emit(f"table_delete load_balance_calendar_table {ins.lb_id} {e['epoch']} {s}")
                    m = rng.choice([m for (_, m) in sorted(ins.members)] or [1])
                    e["slots"][s] = m
                    self.emit(f"table_add load_balance_calendar_table do_assign_member {ins.lb_id} {e['epoch']} {s} "
                              f"=> {m}")
            elif op == "member" and set(m for _, m in ins.members) - pinned_mids:
                fam, mid = rng.choice([k for k in sorted(ins.members) if k[1] not in pinned_mids])
                self.emit(f"table_delete member_info_lookup_table {ins.lb_id} {'0x0800' if fam == 4 else '0x86dd'} "
                          f"{mid}")
                del ins.members[(fam, mid)]
                self.write_member(ins, fam, mid, rng.choice(["rewrite", "rewrite", "soft", "dereg"]))
            elif op == "epoch":
                if len(ins.epochs) > 1 and rng.random() < 0.5:
                    e = ins.epochs.pop(rng.randrange(1, len(ins.epochs)))
                    self.emit(f"table_delete epoch_assign_table {ins.lb_id} 0x{e['value']:016x}/{e['plen']}")
                    for s in sorted(e["slots"]):
                        self.emit(f"table_delete load_balance_calendar_table {ins.lb_id} {e['epoch']} {s}")
                else:
                    self.add_epoch(ins)
            elif op == "src":
                if len(ins.src4) > 1:
                    s = ins.src4.pop()
                    self.emit(f"table_delete ipv4_src_filter_table {ins.lb_id} 0x{s:08x}")
                    ins.blocked4 = s
                else:
                    s = 0x0A020000 | rng.getrandbits(16)
                    if s not in ins.src4:
                        ins.src4.append(s)
                        self.emit(f"table_add ipv4_src_filter_table allow_ip_src {ins.lb_id} {ip4(s)} =>")
            elif op == "clear6":
                self.emit("table_clear ipv6_src_filter_table")
                for i in self.inst:
                    if rng.random() < 0.3 and len(i.src6) > 1:
                        i.blocked6 = i.src6.pop()
                    for s in i.src6:
                        self.emit(f"table_add ipv6_src_filter_table allow_ip_src {i.lb_id} 0x{s:032x} =>")
            elif op == "l2tie" and not self.tie_done:
                # free the second VLAN's index and the wildcard's, re-add the wildcard at the third VLAN's
                # priority: it lands at the lower free index and wins that tie (docs: lowest index wins)
                v1, v2, v3 = list(self.vlans)
                self.emit(f"table_delete l2_iface_table {v2}&&&0xfff")
                self.emit(f"table_delete l2_iface_table 0&&&0 {self.wild_prio}")
                self.emit(f"table_add l2_iface_table set_l2_iface 0&&&0 => 0 0x{UC_MAC:012x} {self.vlan_prio[v3]}")
                del self.vlans[v2], self.vlans[v3]
                self.tie_done = True
            elif op == "alias" and not ins.alias4_arp_gone:
                self.emit(f"table_delete ip_dst_filter_table 0&&&0 0x0806 0x{ins.alias4:032x}")
                ins.alias4_arp_gone = True

    # ---- traffic --------------------------------------------------------------------------------
    def payload(self, lo=0, hi=None):
        rng = self.rng
        r = rng.random()
        if hi is not None:
            n = rng.randint(lo, hi)
        elif r < 0.6:
            n = rng.randint(0, 120)
        elif r < 0.9:
            n = rng.randint(120, 1500)
        else:
            n = rng.randint(1500, 8880)
        return bytes((k * 7 + n) & 0xFF for k in range(n))

    def eth(self, dst=UC_MAC, vlan=None):
        e = Ether(dst=mac(dst), src=mac(0x001122000000 | self.rng.getrandbits(24)))
        if vlan is not None:
            return e / Dot1Q(vlan=vlan, prio=self.rng.randint(0, 7))
        return e

    def pick_slot(self, ins, e):
        """(slot_select, expect hit) for epoch e."""
        rng = self.rng
        mask = (1 << e["bits"]) - 1 if e["bits"] < 16 else 0xFFFF
        if e["slots"] and rng.random() < 0.85:
            slot = rng.choice(sorted(e["slots"]))
        else:
            slot = rng.randint(0, mask) if mask else 0
        return ((slot ^ e["xor"]) & mask) | (rng.getrandbits(16) & ~mask & 0xFFFF)

    def tick_for(self, e):
        rng = self.rng
        free = 64 - e["plen"]
        return e["value"] | (rng.getrandbits(free) if free else 0)

    def lb_frame(self, ins, fam=None, version=None, hit_epoch=True, src_ok=True, ttl=None, options=None,
                 vlan=None, dport=0x4C42, dst=None, proto=1, csum="ok", mac_dst=None, target=None):
        rng = self.rng
        fam = fam or rng.choice([4, 6])
        version = version or rng.choice([2, 3])
        if target is not None:
            e, slot = target
            tick = self.tick_for(e)
            mask = (1 << e["bits"]) - 1 if e["bits"] < 16 else 0xFFFF
            sel = ((slot ^ e["xor"]) & mask) | (rng.getrandbits(16) & ~mask & 0xFFFF)
        elif ins.epochs and hit_epoch:
            e = rng.choice(ins.epochs)
            tick = self.tick_for(e)
            sel = self.pick_slot(ins, e)
        else:
            e, tick, sel = None, rng.getrandbits(64), rng.getrandbits(16)
        if version == 2:
            if e is not None and e["plen"] <= 48:
                tick = (tick & ~0xFFFF) | sel
            lb = UDPLBv2(proto=proto, entropy=rng.getrandbits(16), tick=tick, rsvd=rng.choice([0, 0, 0x1234]))
        else:
            lb = UDPLBv3(proto=proto, slot_select=sel, port_select=rng.getrandbits(16), tick=tick)
        inner = E2SARRE(data_id=rng.getrandbits(16), buffer_offset=rng.getrandbits(20),
                        buffer_length=rng.getrandbits(20), event_num=tick) if rng.random() < 0.5 else \
            EVIO6Seg(rocid=rng.getrandbits(16), offset=rng.getrandbits(20), flags=rng.randint(0, 3))
        body = UDP(sport=rng.randint(1024, 65535), dport=dport) / lb / inner / Raw(self.payload())
        ttl = ttl if ttl is not None else rng.choice([64, 255, 2, 128])
        if fam == 4:
            src = rng.choice(ins.src4) if src_ok else ins.blocked4
            l3 = IP(src=ip4(src), dst=ip4(dst if dst is not None else rng.choice([ins.ip4, ins.ip4, ins.alias4])),
                    ttl=ttl, tos=rng.getrandbits(8), id=rng.getrandbits(16), flags=rng.choice([0, 2]),
                    options=options or [])
        else:
            src = rng.choice(ins.src6) if src_ok else ins.blocked6
            l3 = IPv6(src=ip6(src), dst=ip6(dst if dst is not None else ins.ip6), hlim=ttl, tc=rng.getrandbits(8),
                      fl=rng.getrandbits(20))
        if mac_dst is None:
            mac_dst = UC_MAC + (self.vlans.get(vlan, 0) if vlan is not None else 0)
        f = bytearray(bytes(self.eth(mac_dst, vlan=vlan) / l3 / body))
        l4 = 14 + (4 if vlan is not None else 0) + (((f[14 + (4 if vlan is not None else 0)] & 0xF) * 4)
                                                     if fam == 4 else 40)
        if csum == "zero" or (csum == "ok" and rng.random() < 0.1):
            f[l4 + 6:l4 + 8] = b"\0\0"
        elif csum == "bad" or (csum == "ok" and rng.random() < 0.03):
            f[l4 + 6:l4 + 8] = ((int.from_bytes(f[l4 + 6:l4 + 8], "big") + 0x1111) & 0xFFFF or 1).to_bytes(2, "big")
        return bytes(f)

    def options(self):
        """1..10 words of IPv4 options (router alert, NOPs, end of list)."""
        k = self.rng.randint(1, 10)
        return [IPOption(b"\x94\x04\x00\x00")] * (k - 1) + [IPOption(b"\x01\x01\x01\x00")]

    def kinds(self):
        """name -> builder() returning one frame (bytes)."""
        rng = self.rng
        i = lambda: rng.choice(self.inst)  # noqa: E731
        sn = lambda x: sol_node(x.ip6)    # noqa: E731

        def arp(ins, tpa, dst=BCAST, op=1, vlan=None, **kw):
            return bytes(self.eth(dst, vlan) / ARP(op=op, hwsrc=mac(rng.getrandbits(48) & ~(1 << 40)),
                                                   psrc=ip4(rng.choice(ins.src4)), pdst=ip4(tpa), **kw))

        def echo4(ins, dst, opts=False):
            return bytes(self.eth() / IP(src=ip4(rng.choice(ins.src4)), dst=ip4(dst),
                                         options=self.options() if opts else [])
                         / ICMP(type=8, id=rng.getrandbits(16), seq=rng.getrandbits(16)) / Raw(self.payload(0, 64)))

        def ns(ins, tgt, src=None, opt=True, dst_ip=None):
            ins_sn, ins_smac = sn(ins)
            p = self.eth(ins_smac) / IPv6(src=ip6(src if src is not None else rng.choice(ins.src6)),
                                           dst=ip6(dst_ip or ins_sn), hlim=255) / ICMPv6ND_NS(tgt=ip6(tgt))
            if opt:
                p = p / ICMPv6NDOptSrcLLAddr(lladdr=mac(rng.getrandbits(40)))
            return bytes(p)

        def cut(f):
            """Cut inside the headers (never below the 14-byte Ethernet header: a runt is the MAC's business)."""
            return f[:rng.randint(14, min(len(f) - 1, 110))]

        def raw_eth(et, body, dst=UC_MAC):
            return bytes(Ether(dst=mac(dst), src="00:11:22:33:44:55", type=et) / Raw(body))

        def patch(f, off, val):
            b = bytearray(f)
            b[off] = val
            return bytes(b)

        def lengths(ins):
            f = bytearray(self.lb_frame(ins, fam=rng.choice([4, 6])))
            l4 = 34 if f[12:14] == b"\x08\x00" and f[14] == 0x45 else (54 if f[12:14] == b"\x86\xdd" else None)
            if l4 is None:
                return bytes(f)
            f[l4 + 4:l4 + 6] = rng.choice([0, 8, 15, 0xFFFF]).to_bytes(2, "big")
            if f[12:14] == b"\x08\x00":
                f[16:18] = rng.choice([20, 30, 0xFFFF]).to_bytes(2, "big")
            return bytes(f)

        vid = lambda: rng.choice(list(self.vlans))   # noqa: E731
        return {
            # forwarded / replies / host
            "lb": lambda: self.lb_frame(i()),
            "lb_v2_4": lambda: self.lb_frame(i(), fam=4, version=2),
            "lb_v3_6": lambda: self.lb_frame(i(), fam=6, version=3),
            "lb_options": lambda: self.lb_frame(i(), fam=4, options=self.options()),
            "lb_zero_csum": lambda: self.lb_frame(i(), csum="zero"),
            "lb_bad_csum": lambda: self.lb_frame(i(), csum="bad"),
            "lb_bad_ipcsum": lambda: patch(self.lb_frame(i(), fam=4), 25, rng.getrandbits(8)),
            "lb_lengths": lambda: lengths(i()),
            "lb_jumbo": lambda: (lambda f: f + bytes(max(0, rng.randint(8500, 9000) - len(f))))(self.lb_frame(i())),
            "lb_padded": lambda: bytes(self.lb_frame(i(), fam=4)) + bytes(rng.randint(1, 20)),
            "lb_alias_dst": lambda: (lambda x: self.lb_frame(x, fam=4, dst=x.alias4))(i()),
            "lb_range_port": lambda: self.lb_frame(i(), dport=rng.randint(0x4000, 0x7FFF)),
            "lb_vlan": lambda: self.lb_frame(i(), vlan=vid()),
            "arp": lambda: (lambda x: arp(x, x.ip4))(i()),
            "arp_unicast": lambda: (lambda x: arp(x, x.ip4, dst=UC_MAC))(i()),
            "arp_vlan": lambda: (lambda x, v: arp(x, x.ip4, dst=UC_MAC + self.vlans[v], vlan=v))(i(), vid()),
            "echo4": lambda: (lambda x: echo4(x, x.ip4))(i()),
            "echo4_options": lambda: (lambda x: echo4(x, x.ip4, opts=True))(i()),
            "echo4_padded": lambda: (lambda x: bytes(self.eth() / IP(src=ip4(x.src4[0]), dst=ip4(x.ip4))
                                                     / ICMP(type=8) / Raw(b"ab")) + bytes(12))(i()),
            "echo6": lambda: (lambda x: bytes(self.eth() / IPv6(src=ip6(rng.choice(x.src6)), dst=ip6(x.ip6))
                                              / ICMPv6EchoRequest(id=rng.getrandbits(16),
                                                                  data=self.payload(0, 80))))(i()),
            "echo6_allnodes": lambda: bytes(self.eth(ALL_NODES_MAC) / IPv6(src="fe80::99", dst="ff02::1")
                                            / ICMPv6EchoRequest(data=b"hello")),
            "ns_opt": lambda: (lambda x: ns(x, x.ip6))(i()),
            "ns_noopt": lambda: (lambda x: ns(x, x.ip6, opt=False))(i()),
            "ns_unspec": lambda: (lambda x: ns(x, x.ip6, src=0, opt=False))(i()),
            "ns_unicast": lambda: (lambda x: ns(x, x.ip6, dst_ip=x.ip6))(i()),
            # an option other than the link-layer address: its 2-byte header is extracted, the rest follows
            "ns_mtu_opt": lambda: (lambda x: ns(x, x.ip6, opt=False) + b"\x05\x01\x00\x00\x00\x00\x05\xdc")(i()),
            "ns_noopt_padded": lambda: (lambda x: ns(x, x.ip6, opt=False) + bytes(rng.randint(1, 30)))(i()),
            "echo4_vlan": lambda: (lambda x, v: bytes(self.eth(UC_MAC + self.vlans[v], v) / IP(src=ip4(x.src4[0]),
                                                                                               dst=ip4(x.ip4))
                                                      / ICMP(type=8) / Raw(b"tagged")))(i(), vid()),
            "lb_prio_tag": lambda: self.lb_frame(i(), vlan=0, mac_dst=UC_MAC),
            "group_vlan": lambda: patch(patch(self.lb_frame(i(), vlan=vid()), 0, 0x01), 5, 0x0E),
            "lldp": lambda: raw_eth(0x88CC, bytes([0x02, 0x07]) + self.payload(20, 200), dst=0x0180C200000E),
            "lacp": lambda: raw_eth(0x8809, bytes([1, 1]) + self.payload(100, 120), dst=0x0180C2000002),
            "slow_other": lambda: raw_eth(0x8809, bytes([2, 1]) + self.payload(40, 60), dst=0x0180C2000002),
            "group_lb": lambda: patch(patch(self.lb_frame(i()), 0, 0x01), 5, 0x03),    # LB frame to 01:..:03
            "group_icmp6_unreach": lambda: bytes(Ether(dst="01:80:c2:00:00:0f") / IPv6(src="fe80::1", dst="fe80::2")
                                                 / ICMPv6DestUnreach() / IPv6(fl=0x01100) / UDP() / Raw(b"r" * 8)),
            # drops
            "pe_ethertype": lambda: raw_eth(rng.choice([0x9000, 0x88B5, 0x0842]), self.payload(30, 60)),
            "pe_vlan_inner": lambda: bytes(self.eth(vlan=vid()) / Raw(b"\x88\xcc" + bytes(40)))[:12] + b"\x81\x00"
            + bytes([0, 5, 0x88, 0xCC]) + bytes(40),
            "pe_ip_version": lambda: patch(self.lb_frame(i(), fam=4), 14, 0x65),
            "pe_ihl": lambda: patch(self.lb_frame(i(), fam=4), 14, 0x44),
            "pe_proto": lambda: bytes(self.eth() / IP(src="10.2.0.1", dst=ip4(i().ip4), proto=6) / Raw(bytes(30))),
            "pe_ip6_version": lambda: patch(self.lb_frame(i(), fam=6), 14, 0x40),
            "pe_ip6_nh": lambda: bytes(self.eth() / IPv6(src="fe80::1", dst=ip6(i().ip6), nh=6) / Raw(bytes(30))),
            "pe_icmp6_type": lambda: bytes(self.eth() / IPv6(src="fe80::1", dst=ip6(i().ip6))
                                           / ICMPv6ND_NA(tgt="fe80::1")),
            "pe_arp_oper": lambda: (lambda x: arp(x, x.ip4, op=2))(i()),
            "pe_arp_htype": lambda: (lambda x: arp(x, x.ip4, hwtype=6))(i()),
            "pe_arp_ptype": lambda: patch((lambda x: arp(x, x.ip4))(i()), 16, 0x86),
            "pe_arp_hlen": lambda: patch((lambda x: arp(x, x.ip4))(i()), 18, 8),
            "pe_arp_plen": lambda: patch((lambda x: arp(x, x.ip4))(i()), 19, 16),
            "pe_lb_magic": lambda: patch(self.lb_frame(i(), fam=4), 43, 0x43),
            "pe_lb_version": lambda: patch(self.lb_frame(i(), fam=6), 64, rng.choice([1, 4, 0xFF])),
            "pe_truncated": lambda: cut(self.lb_frame(i())),
            "pe_truncated_any": lambda: cut(rng.choice([lambda: (lambda x: ns(x, x.ip6))(i()),
                                                        lambda: (lambda x: echo4(x, x.ip4, opts=True))(i()),
                                                        lambda: (lambda x: arp(x, x.ip4))(i())])()),
            "l2_dst_miss": lambda: self.lb_frame(i(), mac_dst=0x00AABBCCDD00 | rng.getrandbits(4) << 4),
            "l2_vlan_miss": lambda: self.lb_frame(i(), vlan=vid(), mac_dst=UC_MAC),
            "lb_vlan_unmapped": lambda: self.lb_frame(i(), fam=4, vlan=self.unmapped_vid, mac_dst=UC_MAC),
            "not_ip": lambda: raw_eth(0x88CC, bytes([0x02, 0x07]) + bytes(40)),
            "not_ip_slow": lambda: raw_eth(0x8809, bytes([3]) + bytes(40), dst=BCAST),
            "l3_dst_miss": lambda: self.lb_frame(i(), dst=0x0A0909FE),
            "l3_vlan_miss6": lambda: self.lb_frame(i(), fam=6, vlan=vid()),
            "arp_mismatch": lambda: (lambda x: arp(x, x.alias4))(i()),
            "icmp_mismatch": lambda: (lambda x: echo4(x, x.alias4))(i()),
            "nd_mismatch": lambda: (lambda x: ns(x, x.alias6, dst_ip=x.ip6))(i()),
            "icmp4_unreach": lambda: (lambda x: bytes(self.eth() / IP(src=ip4(x.src4[0]), dst=ip4(x.ip4))
                                                      / ICMP(type=3, code=rng.choice([0, 1, 3, 4, 13]))
                                                      / IP(dst="10.9.9.9", id=rng.choice([17, 1])) / UDP()))(i()),
            "icmp6_unreach": lambda: (lambda x: bytes(self.eth() / IPv6(src=ip6(x.src6[0]), dst=ip6(x.ip6))
                                                      / ICMPv6DestUnreach(code=rng.randint(0, 6)) / IPv6()
                                                      / UDP()))(i()),
            "icmp4_unhandled": lambda: (lambda x: bytes(self.eth() / IP(src=ip4(x.src4[0]), dst=ip4(x.ip4))
                                                        # fixed timestamps: Scapy would put the clock there
                                                        / ICMP(type=rng.choice([0, 5, 11, 13]), ts_ori=1, ts_rx=2,
                                                               ts_tx=3)
                                                        / Raw(bytes(8))))(i()),
            "src_blocked": lambda: self.lb_frame(i(), src_ok=False),
            "no_lb_header": lambda: self.lb_frame(i(), dport=rng.choice([0x3FFF, 0x8000, 0xC042, 53])),
            "ttl_0_1": lambda: self.lb_frame(i(), ttl=rng.choice([0, 1])),
            "epoch_miss": lambda: self.lb_frame(self.inst[0], hit_epoch=False),
            "member_soft": lambda: self.lb_frame(self.inst[0], target=self.inst[0].pinned["soft"]),
            "member_dereg": lambda: self.lb_frame(self.inst[0], target=self.inst[0].pinned["dereg"]),
            "lb_v1": lambda: patch(self.lb_frame(i(), fam=4), 44, 1),
        }

    def traffic(self, n, first):
        kinds = self.kinds()
        names = sorted(kinds)
        out = [kinds[k]() for k in names] if first else []
        weights = [30 if k.startswith("lb") else 3 for k in names]
        while len(out) < n:
            out.append(kinds[self.rng.choices(names, weights)[0]]())
        self.frames.extend(out[:max(n, len(out))])
        return len(out)

    def build(self):
        self.setup()
        rng = self.rng
        nseg = rng.randint(3, 5)
        left = self.n_packets
        for k in range(nseg):
            want = left // (nseg - k) if k < nseg - 1 else left
            got = self.traffic(max(want, 1), k == 0)
            left -= got
            if k < nseg - 1:
                self.emit(f"\nrun_traffic {got}")
                self.change_tables()
        self.emit("\nrun_traffic packets")
        return self


def main(argv=None):
    ap = argparse.ArgumentParser(description="Random vectors for the udplb program (docs/lb-udplb.md)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-pcap", required=True)
    ap.add_argument("--out-tables", required=True)
    ap.add_argument("--packets", type=int, default=600, help="about this many frames (default 600; at least one "
                    "of each kind)")
    a = ap.parse_args(argv)
    g = Gen(a.seed, a.packets).build()
    try:
        write_pcap(a.out_pcap, [(f, 1.0 + k * 1e-6) for k, f in enumerate(g.frames)])
        with open(a.out_tables, "w") as fh:
            fh.write("\n".join(g.lines) + "\n")
    except OSError as e:
        print(f"udplb_gen: error: {e}", file=sys.stderr)
        return 2
    print(f"udplb_gen: seed {a.seed}: {len(g.frames)} frames, {len(g.inst)} instances "
          f"({', '.join(str(x.lb_id) for x in g.inst)}), {sum(1 for x in g.lines if x.startswith('table_'))} table "
          "commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
