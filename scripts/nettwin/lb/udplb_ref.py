#!/usr/bin/python3
"""Independent Python reference of the `udplb` program (docs/lb-udplb.md; esnet/udplb @ 255e11b p4/udplb.p4).

Written from docs/lb-udplb.md and udplb.p4 only, never from the C++ model or the RTL. It follows the P4
program's structure: a parser that extracts headers from the front of the frame (Li bytes), the
MatchActionImpl / L2IfaceMap / L3IfaceMap / EJFAT controls on those headers, and a deparser that emits the
valid headers in the fixed order; the output frame is the emitted headers followed by input[Li:].
Checksums use the P4 InternetChecksum extern exactly as docs/lb-udplb.md defines it (16-bit state,
subtract = add of the complement, end-around carry, get = complement).

CLI:
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_ref --tables T --in IN.pcap --out OUT.pcap [--stats S.json]
      [--meta-out OUT.meta] [--ttl-decrement on|off] [--ingress-port N] [--trace TRACE.txt]
Exit 0, or 2 with `udplb_ref: error: ...` for a refused script (udplb_tables.py lists the refusals) or an
unreadable pcap.
"""
import argparse
import functools
import json
import sys
from dataclasses import dataclass
from typing import Optional

from nettwin.common import blockdesc
from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.lb import udplb_tables as T
from nettwin.lb.tables import ScriptError



def drop_reasons():
    """Every drop reason, in code order: the named indexes of udplb's drops_o, from its descriptor
    rtl/lb/data/udplb.json (docs/blockgen.md)."""
    return blockdesc.block_drop_reasons("udplb")


@functools.lru_cache(maxsize=None)
def instance_reasons():
    """Reasons counted per instance too (the instance is known from the L3 stage on)."""
    r = drop_reasons()
    return r[r.index("arp_mismatch"):]
LB_HDR = 16
LB_MAGIC = 0x4C42

# Deparser order (udplb.p4 DeparserImpl); nd_sol, nd_opt, nd_lladdr and the icmp_embedded_* headers are
# extracted but never emitted.
DEPARSE = ("ethernet", "lldp", "slow", "lacp", "vlan", "arp", "ipv4", "ipv4_opt", "icmpv4", "icmpv4_echo",
           "ipv6", "icmpv6", "icmpv6_echo", "nd_adv", "nd_adv_opt", "nd_adv_lladdr", "udp", "lb", "lb_v2",
           "lb_v3")


# ---------------------------------------------------------------------------------------------
# P4 InternetChecksum
# ---------------------------------------------------------------------------------------------

class Csum:
    """16-bit ones'-complement state (docs/lb-udplb.md "Checksum arithmetic")."""

    def __init__(self):
        self.s = 0

    def _acc(self, w):
        s = self.s + w
        self.s = (s & 0xFFFF) + (s >> 16)

    def add(self, data):
        for k in range(0, len(data), 2):
            self._acc((data[k] << 8) | data[k + 1])

    def subtract(self, data):
        for k in range(0, len(data), 2):
            self._acc(((data[k] << 8) | data[k + 1]) ^ 0xFFFF)

    def get(self):
        return self.s ^ 0xFFFF


def be(value, nbytes):
    return (value & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "big")


def u16(b, o=0):
    return (b[o] << 8) | b[o + 1]


def uint(b):
    return int.from_bytes(b, "big")


# ---------------------------------------------------------------------------------------------
# Parser (udplb.p4 ParserImpl)
# ---------------------------------------------------------------------------------------------

class ParseError(Exception):
    pass


class Parsed:
    """The extracted headers (name -> bytearray, only the valid ones) and Li."""

    def __init__(self, frame):
        self.f = frame
        self.pos = 0
        self.h = {}

    def extract(self, name, n):
        if self.pos + n > len(self.f):
            raise ParseError(f"PacketTooShort: {name} needs {n} bytes at {self.pos}, frame has {len(self.f)}")
        self.h[name] = bytearray(self.f[self.pos:self.pos + n])
        self.pos += n
        return self.h[name]

    def valid(self, name):
        return name in self.h


def parse(frame):
    """Parsed headers, or raises ParseError (every P4 parser error)."""
    p = Parsed(frame)
    eth = p.extract("ethernet", 14)
    et = u16(eth, 12)
    if et == T.ETH_VLAN:
        vlan = p.extract("vlan", 4)
        et = u16(vlan, 2)
        nxt = {T.ETH_IPV4: "ipv4", T.ETH_ARP: "arp", T.ETH_IPV6: "ipv6"}.get(et)
    else:
        nxt = {T.ETH_IPV4: "ipv4", T.ETH_ARP: "arp", T.ETH_IPV6: "ipv6", 0x8809: "slow",
               0x88CC: "lldp"}.get(et)
    if nxt is None:
        raise ParseError(f"NoMatch: EtherType 0x{et:04x}")
    if nxt == "slow":
        if p.extract("slow", 1)[0] == 1:
            p.extract("lacp", 1)
    elif nxt == "lldp":
        p.extract("lldp", 2)
    elif nxt == "arp":
        a = p.extract("arp", 28)
        for what, got, want in (("htype", u16(a, 0), 1), ("ptype", u16(a, 2), 0x0800), ("hlen", a[4], 6),
                                ("plen", a[5], 4), ("oper", u16(a, 6), 1)):
            if got != want:
                raise ParseError(f"verify: ARP {what} {got:#x} != {want:#x}")
    elif nxt == "ipv4":
        ip = p.extract("ipv4", 20)
        if ip[0] >> 4 != 4 or ip[0] & 0xF < 5:
            raise ParseError(f"verify: IPv4 version {ip[0] >> 4} ihl {ip[0] & 0xF}")
        p.extract("ipv4_opt", ((ip[0] & 0xF) - 5) * 4)
        if not p.h["ipv4_opt"]:
            del p.h["ipv4_opt"]
        if ip[9] == 1:
            parse_icmpv4(p)
        elif ip[9] == 17:
            parse_udp(p)
        else:
            raise ParseError(f"NoMatch: IPv4 protocol {ip[9]}")
    else:
        ip6 = p.extract("ipv6", 40)
        if ip6[0] >> 4 != 6:
            raise ParseError(f"verify: IPv6 version {ip6[0] >> 4}")
        if ip6[6] == 58:
            parse_icmpv6(p)
        elif ip6[6] == 17:
            parse_udp(p)
        else:
            raise ParseError(f"NoMatch: IPv6 next header {ip6[6]}")
    return p


def parse_icmpv4(p):
    tc = u16(p.extract("icmpv4", 4))
    if tc & 0xFF00 == 0x0300:
        if p.extract("icmp_embedded_ipv4", 20)[9] == 17:
            p.extract("icmp_embedded_udp", 8)
    elif tc == 0x0800:
        p.extract("icmpv4_echo", 4)


def parse_icmpv6(p):
    tc = u16(p.extract("icmpv6", 4))
    if tc & 0xFF00 == 0x0100:
        if p.extract("icmp_embedded_ipv6", 40)[6] == 17:
            p.extract("icmp_embedded_udp", 8)
    elif tc == 0x8000:
        p.extract("icmpv6_echo", 4)
    elif tc == 0x8700:
        p.extract("nd_sol", 20)
        if u16(p.h["ipv6"], 4) != 24:
            if p.extract("nd_opt", 2)[0] == 1:
                p.extract("nd_lladdr", 6)
    else:
        raise ParseError(f"NoMatch: ICMPv6 type/code 0x{tc:04x}")


def parse_udp(p):
    udp = p.extract("udp", 8)
    if u16(udp, 2) & 0xC000 == 0x4000:
        lb = p.extract("lb", 4)
        if u16(lb) != LB_MAGIC:
            raise ParseError(f"verify: LB magic 0x{u16(lb):04x}")
        if lb[2] == 2:
            p.extract("lb_v2", 12)
        elif lb[2] == 3:
            p.extract("lb_v3", 12)
        else:
            raise ParseError(f"NoMatch: LB version {lb[2]}")


# ---------------------------------------------------------------------------------------------
# Processing (MatchActionImpl, L2IfaceMap, L3IfaceMap, EJFAT)
# ---------------------------------------------------------------------------------------------

@dataclass
class Verdict:
    """Outcome for one frame: reason None = sent as `out` on `egress`; kind forward / reply / to_host."""
    reason: Optional[str] = None
    kind: Optional[str] = None
    out: Optional[bytes] = None
    egress: int = 0
    lb_id: Optional[int] = None       # the instance, once known (L3 hit)
    ejfat: bool = False               # reached the EJFAT stage (instance rx)
    version: Optional[int] = None     # LB version counted (rx_v2 / rx_v3)
    detail: str = ""


def deparse(p):
    return b"".join(bytes(p.h[n]) for n in DEPARSE if n in p.h)


def emit(p, v, kind, egress):
    hdr = deparse(p)
    v.kind, v.egress = kind, egress
    v.out = hdr + p.f[p.pos:]
    return v


def process(frame, tables, ttl_decrement=True, ingress_port=0):
    v = Verdict()
    try:
        p = parse(frame)
    except ParseError as e:
        v.reason, v.detail = "parse_error", str(e)
        return v
    eth = p.h["ethernet"]
    mac_da = uint(eth[0:6])
    # IEEE 802 reserved group addresses go to the host PF, unchanged (as deparsed).
    if not p.valid("vlan") and mac_da & 0xFFFFFFFFFFF0 == 0x0180C2000000:
        return emit(p, v, "to_host", (ingress_port | 2) & 0xF)
    # ---- L2IfaceMap ----
    if p.valid("vlan"):
        vlan_id = u16(p.h["vlan"]) & 0xFFF
        del p.h["vlan"]            # popped; ethernet.etherType stays 0x8100 (as udplb.p4)
    else:
        vlan_id = 0
    e = tables.ternary_lookup(T.L2_IFACE, (vlan_id,))
    iface, uc_mac = e.params if e is not None else (0, 0)
    e = tables.ternary_lookup(T.MAC_DST, (iface, mac_da))
    if e is None:
        v.reason, v.detail = "l2_dst_miss", f"iface {iface} MAC DA {mac_da:012x}"
        return v
    if e.action == "set_mac_sa":
        uc_mac = e.params[0]
    # ---- L3IfaceMap ----
    if p.valid("ipv4"):
        ip_da = uint(p.h["ipv4"][16:20])
    elif p.valid("ipv6"):
        ip_da = uint(p.h["ipv6"][24:40])
    elif p.valid("arp"):
        ip_da = uint(p.h["arp"][24:28])
    else:
        v.reason = "not_ip"
        return v
    et = u16(eth, 12)
    e = tables.ternary_lookup(T.IP_DST, (iface, et, ip_da))
    if e is None:
        v.reason, v.detail = "l3_dst_miss", f"iface {iface} EtherType 0x{et:04x} ip_da {ip_da:x}"
        return v
    uc_ip, lb_id = e.params
    v.lb_id = lb_id
    mac_sa = bytes(eth[6:12])
    if p.valid("arp"):
        a = p.h["arp"]
        if uint(a[24:28]) != uc_ip & 0xFFFFFFFF:
            v.reason = "arp_mismatch"
            return v
        sha, spa = bytes(a[8:14]), bytes(a[14:18])
        a[6:8] = be(2, 2)
        a[18:24] = sha                       # THA = SHA
        a[8:14] = be(uc_mac, 6)              # SHA = uc_mac
        a[24:28] = spa                       # TPA = SPA
        a[14:18] = be(uc_ip, 4)              # SPA = uc_ip[31:0]
        eth[0:6], eth[6:12] = mac_sa, be(uc_mac, 6)
        return emit(p, v, "reply", ingress_port)
    if p.valid("icmpv4"):
        ip = p.h["ipv4"]
        if p.valid("icmpv4_echo"):
            c = Csum()
            c.subtract(icmpv4_pseudo(ip) + p.h["icmpv4"] + p.h["icmpv4_echo"])
            if uint(ip[16:20]) != uc_ip & 0xFFFFFFFF:
                v.reason = "icmp_mismatch"
                return v
            eth[0:6], eth[6:12] = mac_sa, be(uc_mac, 6)
            ip[16:20] = ip[12:16]
            ip[12:16] = be(uc_ip, 4)
            p.h["icmpv4"][:] = be(0, 4)      # type/code 0/0, checksum 0
            c.add(icmpv4_pseudo(ip) + p.h["icmpv4"] + p.h["icmpv4_echo"])
            p.h["icmpv4"][2:4] = be(c.get(), 2)
            return emit(p, v, "reply", ingress_port)
        v.reason = "icmp_dest_unreach" if p.valid("icmp_embedded_ipv4") else "icmp_unhandled"
        return v
    if p.valid("icmpv6"):
        ip6 = p.h["ipv6"]
        if p.valid("icmpv6_echo"):
            c = Csum()
            c.subtract(ipv6_pseudo(ip6, u16(ip6, 4)) + p.h["icmpv6"] + p.h["icmpv6_echo"])
            eth[0:6], eth[6:12] = mac_sa, be(uc_mac, 6)
            ip6[24:40] = ip6[8:24]
            ip6[8:24] = be(uc_ip, 16)
            p.h["icmpv6"][:] = be(0x8100 << 16, 4)   # 129/0, checksum 0
            c.add(ipv6_pseudo(ip6, u16(ip6, 4)) + p.h["icmpv6"] + p.h["icmpv6_echo"])
            p.h["icmpv6"][2:4] = be(c.get(), 2)
            return emit(p, v, "reply", ingress_port)
        if p.valid("nd_sol"):
            target = bytes(p.h["nd_sol"][4:20])
            if uint(target) != uc_ip:
                v.reason = "nd_mismatch"
                return v
            if uint(ip6[8:24]) == 0:
                new_ip_da, new_mac_da, solicited = be(0xFF020000000000000000000000000001, 16), \
                    be(0x333300000001, 6), 0
            else:
                new_ip_da = bytes(ip6[8:24])
                new_mac_da = bytes(p.h["nd_lladdr"]) if p.valid("nd_lladdr") else mac_sa
                solicited = 1
            eth[0:6], eth[6:12] = new_mac_da, be(uc_mac, 6)
            ip6[24:40] = new_ip_da
            ip6[8:24] = be(uc_ip, 16)
            ip6[7] = 255
            ip6[4:6] = be(32, 2)
            p.h["icmpv6"][:] = be(0x8800 << 16, 4)   # 136/0, checksum 0
            p.h["nd_adv"] = bytearray(be(solicited << 30, 4) + target)
            p.h["nd_adv_opt"] = bytearray(b"\x02\x01")
            p.h["nd_adv_lladdr"] = bytearray(be(uc_mac, 6))
            for n in ("nd_sol", "nd_opt", "nd_lladdr"):     # not emitted (udplb.p4's deparser)
                p.h.pop(n, None)
            c = Csum()
            c.add(ipv6_pseudo(ip6, 32) + p.h["icmpv6"] + p.h["nd_adv"] + p.h["nd_adv_opt"]
                  + p.h["nd_adv_lladdr"])
            p.h["icmpv6"][2:4] = be(c.get(), 2)
            return emit(p, v, "reply", ingress_port)
        v.reason = "icmp_dest_unreach" if p.valid("icmp_embedded_ipv6") else "icmp_unhandled"
        return v
    return ejfat(p, v, tables, uc_mac, uc_ip, lb_id, ttl_decrement, ingress_port)


def icmpv4_pseudo(ip):
    """udplb.p4's ICMPv4 'pseudo-header': src, dst, total length, 0 ++ protocol."""
    return bytes(ip[12:20]) + bytes(ip[2:4]) + bytes([0, ip[9]])


def ipv6_pseudo(ip6, length):
    """src, dst, 16w0 ++ length (32 bits), 24w0 ++ next header (32 bits)."""
    return bytes(ip6[8:40]) + be(length, 4) + bytes([0, 0, 0, ip6[6]])


def udp_pseudo(p, udp_len):
    if p.valid("ipv4"):
        ip = p.h["ipv4"]
        return bytes(ip[12:20]) + be(udp_len, 2) + bytes([0, ip[9]])
    return ipv6_pseudo(p.h["ipv6"], udp_len)


def ejfat(p, v, tables, uc_mac, uc_ip, lb_id, ttl_decrement, ingress_port):
    v.ejfat = True
    v4 = p.valid("ipv4")
    ip = p.h["ipv4"] if v4 else p.h["ipv6"]
    src = uint(ip[12:16]) if v4 else uint(ip[8:24])
    if not tables.src_lookup(T.SRC4 if v4 else T.SRC6, lb_id, src):
        v.reason, v.detail = "src_blocked", f"lb_id {lb_id} source {src:x}"
        return v
    if not p.valid("lb"):
        v.reason = "no_lb_header"
        return v
    lbv = "lb_v2" if p.valid("lb_v2") else "lb_v3"
    v.version = 2 if lbv == "lb_v2" else 3
    udp = p.h["udp"]
    lbh = p.h["lb"] + p.h[lbv]
    l3 = Csum()
    if v4:
        l3.subtract(ip)
    l4 = Csum()
    l4.subtract(udp_pseudo(p, u16(udp, 4)) + udp + lbh)
    if ttl_decrement:
        ttl_at = 8 if v4 else 7
        if ip[ttl_at] <= 1:
            v.reason = "ttl_expired"
            return v
        ip[ttl_at] -= 1
    eth = p.h["ethernet"]
    eth[6:12] = be(uc_mac, 6)
    if v4:
        ip[12:16] = be(uc_ip, 4)
    else:
        ip[8:24] = be(uc_ip, 16)
    tick = uint(lbh[8:16])
    ee = tables.epoch_lookup(lb_id, tick)
    if ee is None:
        v.reason, v.detail = "epoch_miss", f"lb_id {lb_id} tick 0x{tick:x}"
        return v
    slot_select = u16(lbh, 14) if lbv == "lb_v2" else u16(lbh, 4)
    slot = (slot_select ^ ee.xor) & ((1 << ee.bits) - 1 if ee.bits < 16 else 0xFFFF)
    mid = tables.calendar_lookup(lb_id, ee.epoch, slot)
    if mid is None:
        v.reason, v.detail = "calendar_miss", f"lb_id {lb_id} epoch 0x{ee.epoch:x} slot {slot}"
        return v
    me = tables.member_lookup(lb_id, u16(eth, 12), mid)
    if me is None:
        v.reason, v.detail = "member_miss", f"lb_id {lb_id} EtherType 0x{u16(eth, 12):04x} member {mid}"
        return v
    if me.action == "drop_soft_evicted":
        v.reason, v.detail = "member_soft_evicted", f"member {mid}"
        return v
    if me.action == "drop_deregistered":
        v.reason, v.detail = "member_deregistered", f"member {mid}"
        return v
    eth[0:6] = be(me.mac, 6)
    keep = me.keep == 1
    if v4:
        ip[16:20] = be(me.ip, 4)
        if not keep:
            ip[2:4] = be(u16(ip, 2) - LB_HDR, 2)
        ip[10:12] = b"\0\0"
        l3.add(ip)
        ip[10:12] = be(l3.get(), 2)
    else:
        ip[24:40] = be(me.ip, 16)
        if not keep:
            ip[4:6] = be(u16(ip, 4) - LB_HDR, 2)
    port_select = u16(lbh, 6)        # v2 entropy / v3 port_select: both at LB byte 6
    mask = (1 << me.port_bits) - 1 if me.port_bits < 16 else 0xFFFF
    udp[2:4] = be(me.udp_base + (port_select & mask), 2)
    if not keep:
        for n in ("lb", "lb_v2", "lb_v3"):
            p.h.pop(n, None)
        udp[4:6] = be(u16(udp, 4) - LB_HDR, 2)
    if u16(udp, 6) != 0:
        l4.add(udp_pseudo(p, u16(udp, 4)))
        udp[6:8] = b"\0\0"
        l4.add(udp)
        if keep:
            l4.add(lbh)
        c = l4.get()
        udp[6:8] = be(c or 0xFFFF, 2)
    v.detail = f"lb_id {lb_id} epoch 0x{ee.epoch:x} slot {slot} member {mid}"
    return emit(p, v, "forward", ingress_port)


# ---------------------------------------------------------------------------------------------
# Whole runs, counters, .meta
# ---------------------------------------------------------------------------------------------

def expected_run(tables_path, frames, ttl_decrement=True, ingress_port=0):
    """Verdicts for every input frame, honouring run_traffic segments (ScriptError / OSError)."""
    cmds = T.load_script(tables_path)
    verdicts = [None] * len(frames)
    for seg in T.plan_segments(cmds, len(frames)):
        for i in range(seg.start, seg.end):
            verdicts[i] = process(frames[i][0], seg.tables, ttl_decrement, ingress_port)
    return verdicts


def stats_of(verdicts):
    """The counters of docs/lb-udplb.md "Counters" (every reason and every instance present)."""
    drops = dict.fromkeys(drop_reasons(), 0)
    inst = [dict(lb_id=i, rx=0, rx_v2=0, rx_v3=0, tx=0, drops=0) for i in range(T.INSTANCES)]
    st = {"packets_in": len(verdicts), "packets_out": 0, "to_host": 0, "replies": 0}
    for v in verdicts:
        if v.ejfat:
            inst[v.lb_id]["rx"] += 1
        if v.version:
            inst[v.lb_id]["rx_v%d" % v.version] += 1
        if v.reason:
            drops[v.reason] += 1
            if v.reason in instance_reasons():
                inst[v.lb_id]["drops"] += 1
            continue
        st["packets_out"] += 1
        if v.kind == "to_host":
            st["to_host"] += 1
        elif v.kind == "reply":
            st["replies"] += 1
        else:
            inst[v.lb_id]["tx"] += 1
    st["drops"] = drops
    st["instances"] = inst
    return st


def meta_line(ingress_port, egress_port):
    """One output frame's smartnic_metadata line, in the simulator's .meta format."""
    return ("smartnic_metadata.timestamp_ns=0000000000000000 smartnic_metadata.pid=0000 "
            f"smartnic_metadata.ingress_port={ingress_port:02x} smartnic_metadata.egress_port={egress_port:02x} "
            "smartnic_metadata.truncate_enable=00 smartnic_metadata.truncate_length=0000 "
            "smartnic_metadata.rss_enable=00 smartnic_metadata.rss_entropy=0000 "
            "smartnic_metadata.drop_reason=00 smartnic_metadata.scratch=00000000 ;")


def on_off(text):
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError("expected on or off")
    return text == "on"


def add_settings(ap):
    ap.add_argument("--ttl-decrement", type=on_off, default=True, metavar="on|off",
                    help="udplb.p4's INCLUDE_TTL_DECREMENT (default on, as 255e11b)")
    ap.add_argument("--ingress-port", type=int, default=0, choices=range(16), metavar="0..15",
                    help="smartnic_metadata.ingress_port of every frame (default 0)")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Python reference of the udplb program (docs/lb-udplb.md)")
    ap.add_argument("--tables", required=True, help="udplb CLI table script")
    ap.add_argument("--in", dest="inp", required=True, help="input pcap")
    ap.add_argument("--out", required=True, help="output pcap to write")
    ap.add_argument("--stats", help="write the counters as JSON here")
    ap.add_argument("--meta-out", help="write one smartnic_metadata line per output frame here")
    ap.add_argument("--trace", help="write one line per input frame (verdict and where decided)")
    add_settings(ap)
    a = ap.parse_args(argv)
    try:
        frames = read_pcap(a.inp)
        verdicts = expected_run(a.tables, frames, a.ttl_decrement, a.ingress_port)
        write_pcap(a.out, [(v.out, frames[i][1]) for i, v in enumerate(verdicts) if v.reason is None])
        st = stats_of(verdicts)
        if a.stats:
            with open(a.stats, "w") as fh:
                json.dump(st, fh, indent=2)
                fh.write("\n")
        if a.meta_out:
            with open(a.meta_out, "w") as fh:
                for v in verdicts:
                    if v.reason is None:
                        fh.write(meta_line(a.ingress_port, v.egress) + "\n")
        if a.trace:
            with open(a.trace, "w") as fh:
                for i, v in enumerate(verdicts):
                    fh.write(f"{i} {v.reason or v.kind} {v.detail}\n")
    except (ScriptError, InputError, OSError) as e:
        print(f"udplb_ref: error: {e}", file=sys.stderr)
        return 2
    print(f"udplb_ref: {st['packets_in']} in, {st['packets_out']} out ({st['replies']} replies, "
          f"{st['to_host']} to host), {st['packets_in'] - st['packets_out']} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
