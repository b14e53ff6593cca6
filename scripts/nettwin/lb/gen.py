#!/usr/bin/python3
"""Seeded randomised test vector for the EJFAT load balancer (docs/lb.md).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.gen --seed N --out-dir D [--packets K] [--guard G] [--manifest]

Writes D/runsim.txt (tables script: three run_traffic segments with two reconfigurations, see
lb_config_gen.py) and D/packets_in.pcap.  The same seed always gives the same bytes.

Packets: IPv4 (IHL 5..15) and IPv6 LB packets with payloads of 0..9000 bytes (mostly small, some
jumbo), UDP checksum computed / 0 over IPv4 / deliberately wrong, IPv4 header checksum wrong,
Ethernet padding to 60 bytes, bytes after the UDP datagram inside the IP datagram, frames shorter
than the IP length (cut-through), checksum corner cases (rewritten UDP checksum computing to 0 ->
0xFFFF, rewritten IPv4 header checksum 0x0000), and every drop reason of docs/lb.md, some packets
carrying several faults (the first in check order must win).  Table-dependent outcomes
(filter/epoch/calendar/member hit, miss or drop) are aimed at by trying ticks against the
segment's tables (parsed back from the generated script with lb_tables.py).

The last G packets (--guard, default 4) before each reconfiguration are table-independent parse
drops, so the expected result does not depend on whether packets still inside the block's pipeline
when the tables change see the old or the new tables (docs/lb.md: "packets still in the pipeline
are not waited for").  --guard 0 removes that protection.

On success prints a coverage summary; exits non-zero if any drop reason or feature is missing
(a generator bug, or --packets too small).
"""
import argparse
import ipaddress
import os
import random
import sys

from scapy.layers.l2 import Ether
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw
from scapy.utils import checksum

from nettwin.lb import config_gen as lb_config_gen
from nettwin.lb import ref as lb_ref
from nettwin.lb import tables as lb_tables
from nettwin.lb.layers import EVIO6Seg, LB_MAGIC, LB_PORT, UDPLB

ETH4, ETH6 = 0x0800, 0x86DD
MIN_PACKETS = 120   # below this the mandatory coverage list does not fit


# ---------------------------------------------------------------------------------------------
# Byte-level helpers
# ---------------------------------------------------------------------------------------------

def get16(fr, o):
    return (fr[o] << 8) | fr[o + 1]


def set16(fr, o, v):
    fr[o:o + 2] = (v & 0xFFFF).to_bytes(2, "big")


def hdr_len(fr):
    return (fr[14] & 0xF) * 4 if get16(fr, 12) == ETH4 else 40


def fix_ip_csum(fr):
    """Correct IPv4 header checksum (no-op for IPv6 or frames too short to hold the header)."""
    if get16(fr, 12) != ETH4 or len(fr) < 14 + hdr_len(fr) or hdr_len(fr) < 20:
        return
    set16(fr, 24, 0)
    set16(fr, 24, checksum(bytes(fr[14:14 + hdr_len(fr)])))


def correct_udp_csum(fr):
    """The correct UDP checksum of the datagram in fr (pseudo header length = UDP length, as in
    docs/lb.md; Scapy's own would take the IPv4 total length).  0 is sent as 0xFFFF."""
    return raw_udp_csum(fr) or 0xFFFF


def raw_udp_csum(fr):
    """~(one's complement sum) of pseudo header + UDP datagram with the checksum field zeroed."""
    fam = get16(fr, 12)
    l4 = 14 + hdr_len(fr)
    ulen = get16(fr, l4 + 4)
    udp = bytearray(fr[l4:l4 + ulen])
    udp[6:8] = b"\0\0"
    if fam == ETH4:
        pseudo = bytes(fr[26:34]) + bytes([0, 17]) + ulen.to_bytes(2, "big")
    else:
        pseudo = bytes(fr[22:54]) + ulen.to_bytes(4, "big") + bytes([0, 0, 0, 17])
    return checksum(pseudo + bytes(udp))


def wrong_csum(rng, good):
    """A checksum that is wrong by a non-zero amount (mod 0xFFFF), never 0 (0 = absent / udp6
    drop), so it stays detectably wrong after the LB's incremental update."""
    while True:
        c = rng.randrange(1, 0xFFFF)
        if (c - good) % 0xFFFF:
            return c


def ip_opts(rng, nbytes):
    """nbytes (multiple of 4) of plausible IPv4 options: NOP, Router Alert, Record Route, EOL
    followed by junk.  No source route options (they would change the pseudo-header address)."""
    out = bytearray()
    while len(out) < nbytes:
        room = nbytes - len(out)
        r = rng.random()
        if r < 0.3 or room < 4:
            out.append(1)                                   # NOP
        elif r < 0.5:
            out += bytes([0x94, 4, 0, 0])                   # Router Alert
        elif r < 0.8 and room >= 7:
            n = rng.randrange(1, min(9, (room - 3) // 4 + 1))
            out += bytes([7, 3 + 4 * n, 4]) + bytes(4 * n)  # Record Route, empty
        else:
            out.append(0)                                   # EOL, then anything
            out += bytes(rng.getrandbits(8) for _ in range(room - 1))
    return bytes(out[:nbytes])


# ---------------------------------------------------------------------------------------------
# Packet construction
# ---------------------------------------------------------------------------------------------

def payload_size(rng):
    r = rng.random()
    if r < 0.45:
        return rng.randrange(0, 65)
    if r < 0.75:
        return rng.randrange(65, 1473)
    if r < 0.92:
        return rng.randrange(1473, 8001)
    return rng.randrange(8001, 9001)


def make_payload(rng, n, lb_proto):
    """EVIO6 segment header + data when the LB header says proto 1 (and there is room)."""
    if lb_proto == 1 and n >= 8:
        seg = EVIO6Seg(rocid=rng.getrandbits(16), offset=rng.getrandbits(32),
                       flags=rng.randrange(4))
        return bytes(seg) + rng.randbytes(n - 8)
    return rng.randbytes(n)


def build(rng, p):
    """A well-formed LB frame from parameter dict p, checksums correct, options/extra/padding."""
    fam = p["fam"]
    eth = Ether(dst=mac_str(p["mac_dst"]), src=mac_str(p["mac_src"]))
    if fam == ETH4:
        l3 = IP(src=str(ipaddress.IPv4Address(p["ip_src"])), dst=str(ipaddress.IPv4Address(p["ip_dst"])),
                tos=p.get("tos", 0), id=p.get("ident", 0), flags=p.get("ipflags", 0),
                ttl=p.get("ttl", 64), proto=17)
    else:
        l3 = IPv6(src=str(ipaddress.IPv6Address(p["ip_src"])), dst=str(ipaddress.IPv6Address(p["ip_dst"])),
                  tc=p.get("tc", 0), fl=p.get("fl", 0), hlim=p.get("ttl", 64), nh=17)
    lb = UDPLB(magic=p.get("magic", LB_MAGIC), version=p.get("version", 1), proto=p["lb_proto"],
               tick=p["tick"])
    udp = UDP(sport=p["sport"], dport=p.get("dport", LB_PORT), chksum=0)
    fr = bytearray(bytes(eth / l3 / udp / lb / Raw(p["payload"])))
    opts = p.get("options", b"")
    if fam == ETH4 and opts:
        fr[34:34] = opts
        fr[14] = 0x40 | (5 + len(opts) // 4)
        set16(fr, 16, get16(fr, 16) + len(opts))
    extra = p.get("extra", b"")             # inside the IP datagram, after the UDP datagram
    if extra:
        fr += extra
        o = 16 if fam == ETH4 else 18
        set16(fr, o, get16(fr, o) + len(extra))
    fix_ip_csum(fr)
    l4 = 14 + hdr_len(fr)
    set16(fr, l4 + 6, correct_udp_csum(fr))
    pad = p.get("pad_to", 0)
    if len(fr) < pad:
        fr += (rng.randbytes(pad - len(fr)) if p.get("pad_random") else bytes(pad - len(fr)))
    fr += p.get("trailer", b"")
    return fr


def mac_str(v):
    return ":".join(f"{b:02x}" for b in v.to_bytes(6, "big"))


# ---------------------------------------------------------------------------------------------
# Faults (parse-level drop reasons), in docs/lb.md check order
# ---------------------------------------------------------------------------------------------

FAULT_ORDER = ["runt", "not_ip", "trunc_ip", "bad_ip", "trunc_opts", "ip_fragment", "not_udp",
               "trunc_udp", "not_lb_port", "trunc_lb", "bad_length", "bad_magic", "bad_version",
               "udp6_zero_csum"]
# faults that only change header fields: usable as extra (later-order) faults on a packet
FIELD_FAULTS = {"bad_ip", "ip_fragment", "not_udp", "not_lb_port", "bad_length", "bad_magic",
                "bad_version", "udp6_zero_csum"}


def apply_fault(rng, fr, fault):
    fam = get16(fr, 12)
    hl = hdr_len(fr)
    l4 = 14 + hl
    lb = l4 + 8
    if fault == "runt":
        return bytearray(rng.randbytes(rng.randrange(0, 14)))   # 0 bytes too: an empty frame
    if fault == "not_ip":
        set16(fr, 12, rng.choice([0x0806, 0x8100, 0x88CC, 0x0000, 0x86DE, 0x0801, 0x88F7]))
    elif fault == "trunc_ip":
        del fr[14 + rng.randrange(0, 20 if fam == ETH4 else 40):]
    elif fault == "bad_ip":
        if fam == ETH6:
            fr[14] = (rng.choice([4, 0, 7, 15]) << 4) | (fr[14] & 0xF)
        elif rng.random() < 0.5:
            fr[14] = (rng.choice([6, 0, 5, 15]) << 4) | (fr[14] & 0xF)
        else:
            fr[14] = 0x40 | rng.randrange(0, 5)
    elif fault == "trunc_opts":      # needs IHL > 5: cut inside the options
        del fr[14 + 20 + rng.randrange(0, hl - 20):]
    elif fault == "ip_fragment":
        r = rng.random()
        frag = 0x2000 if r < 0.4 else (rng.randrange(1, 0x2000) | (0x2000 if r < 0.7 else 0))
        set16(fr, 20, frag | (get16(fr, 20) & 0x4000 if r < 0.4 else 0))
    elif fault == "not_udp":
        if fam == ETH4:
            fr[23] = rng.choice([6, 1, 132, 136, 47])
        else:
            fr[20] = rng.choice([0, 44, 58, 6, 60, 43])    # extension headers are not walked
    elif fault == "trunc_udp":
        del fr[l4 + rng.randrange(0, 8):]
    elif fault == "not_lb_port":
        set16(fr, l4 + 2, rng.choice([0x4C43, 0x424C, 0x4556, 4789, rng.randrange(1, 65536) | 1]))
    elif fault == "trunc_lb":
        del fr[lb + rng.randrange(0, 12):]
    elif fault == "bad_length":
        ulen = get16(fr, l4 + 4)
        v = rng.randrange(4)
        if v == 0:                                  # IP length too small for UDP + LB
            if fam == ETH4:
                set16(fr, 16, hl + rng.randrange(0, 20))
            else:
                set16(fr, 18, rng.randrange(0, 20))
        elif v == 1:                                # UDP length < 8 + 12
            set16(fr, l4 + 4, rng.randrange(0, 20))
        else:                                       # UDP length > IP payload length
            ip_payload = get16(fr, 16) - hl if fam == ETH4 else get16(fr, 18)
            set16(fr, l4 + 4, min(0xFFFF, max(ulen, ip_payload) + rng.randrange(1, 200)))
    elif fault == "bad_magic":
        set16(fr, lb, rng.choice([0x4C43, 0x424C, 0x0000, 0x4D42, rng.randrange(0x10000)]))
        if get16(fr, lb) == LB_MAGIC:      # the random choice may hit 'LB' itself
            set16(fr, lb, 0x4C4C)
    elif fault == "bad_version":
        fr[lb + 2] = rng.choice([0, 2, 0xFF, 0x10])
    elif fault == "udp6_zero_csum":
        set16(fr, l4 + 6, 0)
    if fam == ETH4 and fault not in ("bad_ip", "trunc_ip", "trunc_opts", "runt", "not_ip"):
        fix_ip_csum(fr)      # keep the IP header otherwise valid: only the intended fault counts
    return fr


# ---------------------------------------------------------------------------------------------
# The generator proper
# ---------------------------------------------------------------------------------------------

FEATURES = ["fwd4_min_pad", "fwd4_min_pad_random", "fwd4_unpadded_small", "fwd6_payload0",
            "fwd4_ihl6", "fwd4_ihl15", "fwd4_jumbo", "fwd6_jumbo", "fwd4_csum0", "fwd4_bad_ipcsum",
            "fwd4_bad_udpcsum", "fwd6_bad_udpcsum", "fwd4_bad_both", "fwd4_udp_ffff",
            "fwd6_udp_ffff", "fwd4_ip_zero", "fwd4_extra_in_ip", "fwd6_extra_in_ip",
            "fwd4_short_frame", "fwd6_short_frame", "fwd4_trailer", "fwd_proto_other",
            "fwd4_udp_len20", "fwd6_udp_len20"]

PARSE_KINDS = [("runt", 4), ("not_ip", 4), ("trunc_ip", 4), ("trunc_ip", 6), ("bad_ip", 4),
               ("bad_ip", 6), ("trunc_opts", 4), ("ip_fragment", 4), ("not_udp", 4), ("not_udp", 6),
               ("trunc_udp", 4), ("trunc_udp", 6), ("not_lb_port", 4), ("not_lb_port", 6),
               ("trunc_lb", 4), ("trunc_lb", 6), ("bad_length", 4), ("bad_length", 6),
               ("bad_magic", 4), ("bad_magic", 6), ("bad_version", 4), ("bad_version", 6),
               ("udp6_zero_csum", 6)]

TABLE_KINDS = ["filter_miss", "filter_drop", "epoch_miss", "epoch_drop", "calendar_miss",
               "calendar_drop", "member_miss", "member_drop"]


class Gen:
    def __init__(self, rng, seg):
        self.rng = rng
        self.tables = seg.tables
        self.sources4 = [lb_config_gen.rand_ip4(rng, 10) for _ in range(4)]
        self.sources6 = [lb_config_gen.rand_ip6(rng) for _ in range(4)]
        self.src_macs = [lb_config_gen.rand_mac(rng) for _ in range(4)]
        # filter entries by family: pass (reachable on the LB port), drop
        self.passing = {ETH4: [], ETH6: []}
        self.dropping = {ETH4: [], ETH6: []}
        self.other_port = []
        for (mac, et, ip, port), act in sorted(seg.tables.filter.items()):
            if et not in (ETH4, ETH6):
                continue
            if port != LB_PORT:
                self.other_port.append((mac, et, ip))
            elif act == "drop":
                self.dropping[et].append((mac, ip))
            else:
                self.passing[et].append((mac, ip))
        self.epoch_entries = [e for e in seg.tables.epoch if e is not None]

    # ---- basic parameters ----
    def params(self, fam, dest=None):
        rng = self.rng
        if dest is None:
            dest = rng.choice(self.passing[fam]) if self.passing[fam] else \
                (lb_config_gen.rand_mac(rng), rng.getrandbits(32 if fam == ETH4 else 128))
        p = {"fam": fam, "mac_dst": dest[0], "ip_dst": dest[1],
             "mac_src": rng.choice(self.src_macs),
             "ip_src": rng.choice(self.sources4 if fam == ETH4 else self.sources6),
             "lb_proto": 1 if rng.random() < 0.85 else rng.choice([0, 2, 0xFF]),
             "tick": rng.getrandbits(64), "ttl": rng.choice([64, 255, 1, 32])}
        if fam == ETH4:
            p["tos"] = rng.choice([0, 0, 0xB8, 0x03])
            p["ident"] = rng.getrandbits(16)
            p["ipflags"] = rng.choice([0, 0, 2])     # DF is allowed, MF is a fragment
            if rng.random() < 0.3:
                p["options"] = ip_opts(rng, 4 * rng.randrange(1, 11))
        else:
            p["tc"] = rng.choice([0, 0, 0xB8])
            p["fl"] = rng.choice([0, rng.getrandbits(20)])
        n = payload_size(rng)
        p["payload"] = make_payload(rng, n, p["lb_proto"])
        return p

    def finish(self, p):
        p["sport"] = p["tick"] & 0xFFFF if self.rng.random() < 0.8 else self.rng.randrange(1, 65536)
        if "pad_to" not in p and self.rng.random() < 0.9:
            p["pad_to"] = 60
        return build(self.rng, p)

    # ---- aiming at a table outcome ----
    def tick_candidates(self, tries):
        rng = self.rng
        for k in range(tries):
            r = rng.random()
            if r < 0.8 and self.epoch_entries:
                e = rng.choice(self.epoch_entries)
                yield (e.value & e.mask) | (rng.getrandbits(64) & ~e.mask & (2**64 - 1))
            elif r < 0.9:
                yield rng.randrange(0, 0x200)
            else:
                yield rng.getrandbits(64)

    def aim(self, p, want, tries=3000):
        """Set p['tick'] so that the frame's verdict is `want` (None = forward); False if none."""
        fr = build(self.rng, dict(p, payload=b"", options=b"", extra=b"", sport=1, pad_to=0))
        lb = 14 + hdr_len(fr) + 8
        for tick in self.tick_candidates(tries):
            fr[lb + 4:lb + 12] = tick.to_bytes(8, "big")
            if lb_ref.process(bytes(fr), self.tables).reason == want:
                p["tick"] = tick
                return True
        return False

    # ---- packet kinds ----
    def forward(self, fam, feature=None):
        rng = self.rng
        if not self.passing[fam]:
            return None
        p = self.params(fam)
        if not self.aim(p, None):
            return None
        f = feature or ""
        if "min_pad" in f or f == "fwd4_unpadded_small" or f == "fwd6_payload0" or "udp_len20" in f:
            p["payload"] = make_payload(rng, 0 if ("payload0" in f or "len20" in f) else rng.randrange(0, 6),
                                        p["lb_proto"])
            p.pop("options", None)
            p["pad_to"] = 0 if f in ("fwd4_unpadded_small", "fwd6_payload0") else 60
            p["pad_random"] = f == "fwd4_min_pad_random"
        if "short_frame" in f or "udp_ffff" in f:
            p["payload"] = make_payload(rng, max(len(p["payload"]), 2), p["lb_proto"])
            p["pad_to"] = 0
        if f == "fwd4_ihl6":
            p["options"] = ip_opts(rng, 4)
        if f == "fwd4_ihl15":
            p["options"] = ip_opts(rng, 40)
        if "jumbo" in f:
            p["payload"] = make_payload(rng, 9000, p["lb_proto"])
        if "extra_in_ip" in f:
            p["extra"] = rng.randbytes(rng.randrange(1, 40))
        if f == "fwd4_trailer":
            p["trailer"] = rng.randbytes(4)          # e.g. an FCS-like tail past the datagram
        if f == "fwd_proto_other":
            p["lb_proto"] = rng.choice([0, 2, 0x11])
            p["payload"] = rng.randbytes(len(p["payload"]))
        fr = self.finish(p)
        l4 = 14 + hdr_len(fr)
        if f in ("fwd4_csum0",) or (not f and fam == ETH4 and rng.random() < 0.12):
            set16(fr, l4 + 6, 0)
        if f in ("fwd4_bad_udpcsum", "fwd6_bad_udpcsum", "fwd4_bad_both") or (not f and rng.random() < 0.08):
            set16(fr, l4 + 6, wrong_csum(rng, get16(fr, l4 + 6)))
        if fam == ETH4 and (f in ("fwd4_bad_ipcsum", "fwd4_bad_both") or (not f and rng.random() < 0.08)):
            set16(fr, 24, wrong_csum(rng, get16(fr, 24)))
        if "udp_ffff" in f:
            self.force_udp_ffff(fr)
        if f == "fwd4_ip_zero":
            self.force_ip_zero(fr)
        if "short_frame" in f:     # frame ends inside the payload: forwarded as is (cut-through)
            dlen = get16(fr, l4 + 4) - 20
            if dlen < 1:
                return None
            del fr[l4 + 20 + rng.randrange(0, dlen):]
        return fr

    def force_udp_ffff(self, fr):
        """Adjust the first payload word so that the rewritten UDP checksum computes to 0x0000,
        which docs/lb.md requires to be sent as 0xFFFF.  That happens when the one's complement
        sum S of the output datagram (checksum field 0) is 0 mod 0xFFFF, i.e. when its raw
        checksum ~S is 0; adding c = ~S = -S to a word makes S 0.  The payload word sits at an
        even UDP offset in both the input (20) and the output (8), so it shifts both sums alike."""
        l4 = 14 + hdr_len(fr)
        pw = l4 + 20
        out = bytearray(lb_ref.process(bytes(fr), self.tables).out)
        c = raw_udp_csum(out)
        set16(fr, pw, (get16(fr, pw) + c) % 0xFFFF)
        set16(fr, l4 + 6, correct_udp_csum(fr))
        out = lb_ref.process(bytes(fr), self.tables).out
        assert out is not None and get16(out, l4 + 6) == 0xFFFF, "udp_ffff corner case not hit"

    def force_ip_zero(self, fr):
        """Adjust the IPv4 id so that the rewritten header checksum is 0x0000 (RFC 1624 eqn. 3
        never yields 0xFFFF, so 0x0000 is the representation to expect)."""
        out = lb_ref.process(bytes(fr), self.tables).out
        hl = hdr_len(fr)
        hdr = bytearray(out[14:14 + hl])
        hdr[10:12] = b"\0\0"
        c = checksum(bytes(hdr))                 # correct checksum of the output header
        if c != 0:
            set16(fr, 18, (get16(fr, 18) + c) % 0xFFFF)
        fix_ip_csum(fr)
        out = lb_ref.process(bytes(fr), self.tables).out
        assert out is not None and get16(out, 24) == 0, "ip_zero corner case not hit"

    def table_drop(self, fam, reason):
        rng = self.rng
        if reason == "filter_miss":
            v = rng.randrange(4)
            if v == 1 and self.other_port:
                mac, et, ip = rng.choice(self.other_port)
                fam, dest = et, (mac, ip)
            elif v == 2 and self.passing[ETH4]:          # IPv6 packet to ::<an IPv4 LB address>
                fam, dest = ETH6, rng.choice(self.passing[ETH4])
            elif v == 3 and self.passing[fam]:
                dest = (lb_config_gen.rand_mac(rng), rng.choice(self.passing[fam])[1])
            else:
                dest = None
            p = self.params(fam, dest)
            if dest is None and self.passing[fam]:
                p["mac_dst"] = rng.choice(self.passing[fam])[0]
        elif reason == "filter_drop":
            if not self.dropping[fam]:
                return None
            p = self.params(fam, rng.choice(self.dropping[fam]))
        else:
            if not self.passing[fam]:
                return None
            p = self.params(fam)
            if not self.aim(p, reason):
                return None
        return self.finish(p)

    def parse_drop(self, fault, fam, extra_faults=True):
        rng = self.rng
        p = self.params(fam)
        if fault == "trunc_opts":
            p["options"] = ip_opts(rng, 4 * rng.randrange(1, 11))
        fr = self.finish(p)
        if extra_faults and rng.random() < 0.35:
            later = [f for f in FAULT_ORDER[FAULT_ORDER.index(fault) + 1:] if f in FIELD_FAULTS
                     and not (f == "udp6_zero_csum" and fam == ETH4)]
            if later:
                fr = apply_fault(rng, fr, rng.choice(later))
        return apply_fault(rng, fr, fault)


def generate(seed, npackets, guard):
    rng = random.Random(seed)
    sizes = [int(npackets * 0.4), int(npackets * 0.3)]
    sizes.append(npackets - sum(sizes))
    text = lb_config_gen.build_script(rng, sizes)
    segs = lb_tables.plan_segments(lb_tables.parse_script(text, "runsim.txt"), npackets)
    assert [s.end - s.start for s in segs] == sizes, "segmentation mismatch"

    # mandatory items: every table outcome and a forward per family in every segment, the
    # parse drops and the features spread over the run; the rest random
    features = list(FEATURES)
    parse_items = list(PARSE_KINDS)
    rng.shuffle(features)
    rng.shuffle(parse_items)
    frames, manifest = [], []
    for si, seg in enumerate(segs):
        g = Gen(rng, seg)
        n = seg.end - seg.start
        nguard = guard if si < len(segs) - 1 else 0
        body = n - nguard
        plan = [("table", r, rng.choice([ETH4, ETH6])) for r in TABLE_KINDS]
        plan += [("fwd", None, ETH4), ("fwd", None, ETH6)]
        share = len(segs) - si
        take_f = -(-len(features) // share)
        take_p = -(-len(parse_items) // share)
        plan += [("fwd", f, ETH6 if f.startswith("fwd6") else ETH4) for f in features[:take_f]]
        plan += [("parse", k, ETH4 if fam == 4 else ETH6) for k, fam in parse_items[:take_p]]
        del features[:take_f], parse_items[:take_p]
        if len(plan) > body:
            sys.exit(f"lb_gen: --packets {npackets} too small for full coverage (min {MIN_PACKETS})")
        while len(plan) < body:
            r = rng.random()
            fam = ETH4 if rng.random() < 0.55 else ETH6
            if r < 0.62:
                plan.append(("fwd", None, fam))
            elif r < 0.82:
                plan.append(("table", rng.choice(TABLE_KINDS), fam))
            else:
                k, f = rng.choice(PARSE_KINDS)
                plan.append(("parse", k, ETH4 if f == 4 else ETH6))
        rng.shuffle(plan)
        for _ in range(nguard):
            k, f = rng.choice(PARSE_KINDS)
            plan.append(("parse-guard", k, ETH4 if f == 4 else ETH6))
        for kind, what, fam in plan:
            fr = None
            if kind == "fwd":
                fr = g.forward(fam, what)
            elif kind == "table":
                fr = g.table_drop(fam, what)
            else:
                fr = g.parse_drop(what, fam, extra_faults=(kind == "parse"))
            if fr is None:                 # not reachable in this segment: forward instead
                kind, what = "fwd", None
                fr = g.forward(fam) or g.forward(ETH4 if fam == ETH6 else ETH6) \
                    or g.parse_drop("not_ip", fam)
            frames.append(bytes(fr))
            manifest.append(f"{kind}:{what or ''}:{'v4' if fam == ETH4 else 'v6'}")
    return text, frames, manifest, segs


# lb_ref's detail text for each place a frame can be truncated: all must occur
TRUNCATIONS = ["before the IPv4 header", "before the IPv6 header", "before the end of the IPv4 options",
               "before the UDP header", "before the end of the LB header"]


def coverage(frames, segs, manifest):
    """Verdict counts by the reference, and the features that really made it into the run
    (including each truncation point, counted as a feature 'truncated <where>')."""
    reasons = {}
    feats = {}
    for seg in segs:
        for i in range(seg.start, seg.end):
            v = lb_ref.process(frames[i], seg.tables)
            key = v.reason or "forward"
            reasons[key] = reasons.get(key, 0) + 1
            if v.reason == "truncated":
                feats["truncated " + v.detail] = feats.get("truncated " + v.detail, 0) + 1
            kind, what, _ = manifest[i].split(":")
            if kind == "fwd" and what and v.reason is None:
                feats[what] = feats.get(what, 0) + 1
    return reasons, feats


def main(argv=None):
    ap = argparse.ArgumentParser(description="Seeded random LB test vector (tables + pcap)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--packets", type=int, default=400, help="number of packets (default 400)")
    ap.add_argument("--guard", type=int, default=4,
                    help="table-independent packets before each reconfiguration (default 4)")
    ap.add_argument("--manifest", action="store_true",
                    help="also write D/manifest.txt: the intent of every packet")
    a = ap.parse_args(argv)
    if a.packets < MIN_PACKETS:
        ap.error(f"--packets must be at least {MIN_PACKETS} to cover every drop reason")
    if a.guard < 0 or a.guard > 20:
        ap.error("--guard must be 0..20")
    text, frames, manifest, segs = generate(a.seed, a.packets, a.guard)
    reasons, feats = coverage(frames, segs, manifest)
    missing = [r for r in lb_ref.drop_reasons() if r not in reasons]
    if "forward" not in reasons:
        missing.append("forward")
    missing += [f for f in FEATURES + ["truncated " + t for t in TRUNCATIONS] if f not in feats]
    try:
        os.makedirs(a.out_dir, exist_ok=True)
        with open(os.path.join(a.out_dir, "runsim.txt"), "w") as fh:
            fh.write(text)
        lb_ref.write_pcap(os.path.join(a.out_dir, "packets_in.pcap"),
                          [(fr, i * 1e-6) for i, fr in enumerate(frames)])
        if a.manifest:
            with open(os.path.join(a.out_dir, "manifest.txt"), "w") as fh:
                fh.writelines(f"{i} {m}\n" for i, m in enumerate(manifest))
    except OSError as e:
        sys.exit(f"lb_gen: cannot write to {a.out_dir}: {e}")
    print(f"lb_gen: seed {a.seed}: {len(frames)} packets, segments "
          f"{[s.end - s.start for s in segs]}, " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    if missing:
        print(f"lb_gen: error: coverage incomplete: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
