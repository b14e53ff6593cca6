#!/usr/bin/python3
"""Independent Python reference of the EJFAT load balancer data plane (docs/lb.md).

Written from docs/lb.md only (never from the C++ model or the RTL): parse with the drop reasons
in the documented order, the four lookups (tables from lb_tables.py), and the rewrite with the
documented incremental checksum rules.  The rewrite works on raw bytes on purpose: the contract is
byte-exact (RFC 1624 updates, padding kept, wrong checksums kept wrong), which a Scapy rebuild
would not preserve.  nettwin.lb.check adds an independent Scapy decode of every output packet.

CLI (writes the reference's own expected output, e.g. to test nettwin.lb.check before the C++ tool):
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.ref --tables T --in IN.pcap --out EXPECTED.pcap \
      [--stats S.json] [--trace TRACE.txt]
"""
import argparse
import json
import sys
from dataclasses import dataclass
from typing import Optional

from nettwin.common import blockdesc
from nettwin.common.pcap import InputError, read_pcap, write_pcap  # noqa: F401
from nettwin.lb import tables as lb_tables
from nettwin.lb.tables import ETH_IPV4, ETH_IPV6, LB_PORT, ScriptError

LB_MAGIC = 0x4C42
LB_VERSION = 1
LB_HDR = 12
UDP_HDR = 8



def drop_reasons():
    """Every drop reason of docs/lb.md, in check order (used for stats and coverage reports): the named indexes
    of lb's drops_o, from its descriptor rtl/lb/data/lb.json (docs/blockgen.md)."""
    return blockdesc.block_drop_reasons("lb")


@dataclass
class Verdict:
    """Outcome for one input frame: reason None means forwarded as `out`."""
    reason: Optional[str] = None
    out: Optional[bytes] = None
    detail: str = ""               # where it was decided (for traces and mismatch reports)
    family: Optional[int] = None   # EtherType when IP
    l4: Optional[int] = None       # offset of the UDP header
    tick: Optional[int] = None
    epoch: Optional[int] = None
    member: Optional[object] = None   # lb_tables.MemberEntry used for the rewrite


def u16(b, o):
    return (b[o] << 8) | b[o + 1]


def oc_sum(values):
    """One's complement sum with end-around carry (0 only when every term is 0)."""
    s = sum(values)
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def words(value, nbytes):
    """Big-endian 16-bit words of an integer of nbytes bytes."""
    return [(value >> (16 * i)) & 0xFFFF for i in reversed(range(nbytes // 2))]


def delta_terms(old_words, new_words):
    """RFC 1624 eqn. 3 terms ~m + m' for each changed word."""
    return [t for m, m2 in zip(old_words, new_words) for t in (m ^ 0xFFFF, m2)]


def process(frame, tables):
    """The block's behaviour for one frame (docs/lb.md 'Parse and drop reasons' .. 'Rewrite')."""
    f = frame
    n = len(f)
    if n < 14:
        return Verdict("runt", detail=f"{n} bytes")
    et = u16(f, 12)
    if et not in (ETH_IPV4, ETH_IPV6):
        return Verdict("not_ip", detail=f"ethertype 0x{et:04x}")
    v = Verdict(family=et)
    if et == ETH_IPV4:
        if n < 14 + 20:
            v.reason, v.detail = "truncated", "before the IPv4 header"
            return v
        ver, ihl = f[14] >> 4, f[14] & 0xF
        if ver != 4 or ihl < 5:
            v.reason, v.detail = "bad_ip", f"version {ver} ihl {ihl}"
            return v
        hl = ihl * 4
        if n < 14 + hl:
            v.reason, v.detail = "truncated", "before the end of the IPv4 options"
            return v
        frag = u16(f, 20)
        if frag & 0x2000 or frag & 0x1FFF:
            v.reason, v.detail = "ip_fragment", f"flags/offset 0x{frag:04x}"
            return v
        proto = f[23]
        ip_len = u16(f, 16)
        dst = int.from_bytes(f[30:34], "big")
        dst_bytes = 4
    else:
        if n < 14 + 40:
            v.reason, v.detail = "truncated", "before the IPv6 header"
            return v
        ver = f[14] >> 4
        if ver != 6:
            v.reason, v.detail = "bad_ip", f"version {ver}"
            return v
        hl = 40
        proto = f[20]
        ip_len = u16(f, 18)           # payload length
        dst = int.from_bytes(f[38:54], "big")
        dst_bytes = 16
    if proto != 17:
        v.reason, v.detail = "not_udp", f"protocol {proto}"
        return v
    l4 = 14 + hl
    v.l4 = l4
    if n < l4 + UDP_HDR:
        v.reason, v.detail = "truncated", "before the UDP header"
        return v
    dport = u16(f, l4 + 2)
    if dport != LB_PORT:
        v.reason, v.detail = "not_lb_port", f"port 0x{dport:04x}"
        return v
    lb = l4 + UDP_HDR
    if n < lb + LB_HDR:
        v.reason, v.detail = "truncated", "before the end of the LB header"
        return v
    udp_len = u16(f, l4 + 4)
    if et == ETH_IPV4:
        ip_payload = ip_len - hl
        bad_ip_len = ip_len < hl + 20
    else:
        ip_payload = ip_len
        bad_ip_len = ip_len < 20
    if bad_ip_len or udp_len < UDP_HDR + LB_HDR or udp_len > ip_payload:
        v.reason, v.detail = "bad_length", f"ip length {ip_len} udp length {udp_len}"
        return v
    magic = u16(f, lb)
    if magic != LB_MAGIC:
        v.reason, v.detail = "bad_magic", f"magic 0x{magic:04x}"
        return v
    if f[lb + 2] != LB_VERSION:
        v.reason, v.detail = "bad_version", f"version {f[lb + 2]}"
        return v
    csum = u16(f, l4 + 6)
    if et == ETH_IPV6 and csum == 0:
        v.reason = "udp6_zero_csum"
        return v

    # ---- lookups ----
    mac_da = int.from_bytes(f[0:6], "big")
    act = tables.filter_lookup(mac_da, et, dst, dport)
    if act is None:
        v.reason, v.detail = "filter_miss", f"mac {mac_da:012x} ip {dst:x}"
        return v
    if act == "drop":
        v.reason = "filter_drop"
        return v
    tick = int.from_bytes(f[lb + 4:lb + 12], "big")
    v.tick = tick
    ee = tables.epoch_lookup(tick)
    if ee is None:
        v.reason, v.detail = "epoch_miss", f"tick 0x{tick:016x}"
        return v
    if ee.action == "drop":
        v.reason, v.detail = "epoch_drop", f"tick 0x{tick:016x}"
        return v
    v.epoch = ee.epoch
    slot = tick & 0x1FF
    ce = tables.calendar_lookup(ee.epoch, slot)
    if ce is None:
        v.reason, v.detail = "calendar_miss", f"epoch 0x{ee.epoch:x} slot {slot}"
        return v
    if ce[0] == "drop":
        v.reason, v.detail = "calendar_drop", f"epoch 0x{ee.epoch:x} slot {slot}"
        return v
    mid = ce[1]
    me = tables.member_lookup(et, mid)
    if me is None:
        v.reason, v.detail = "member_miss", f"member {mid} ethertype 0x{et:04x}"
        return v
    if me.action == "drop":
        v.reason, v.detail = "member_drop", f"member {mid}"
        return v
    v.member = me
    v.detail = f"epoch 0x{ee.epoch:x} slot {slot} member {mid}"
    v.out = rewrite(f, et, hl, ip_len, dst, dst_bytes, udp_len, csum, me)
    return v


def rewrite(f, et, hl, ip_len, dst, dst_bytes, udp_len, csum, me):
    """docs/lb.md 'Rewrite of a forwarded packet', steps 1-6, on raw bytes."""
    o = bytearray(f)
    l4 = 14 + hl
    lb = l4 + UDP_HDR
    # 1. MAC SA <- original MAC DA; MAC DA <- next hop
    o[6:12] = f[0:6]
    o[0:6] = me.mac_da.to_bytes(6, "big")
    old_dst_w = words(dst, dst_bytes)
    new_dst_w = words(me.ip_dst, dst_bytes)
    # 2. IP destination and length
    if et == ETH_IPV4:
        o[30:34] = me.ip_dst.to_bytes(4, "big")
        o[16:18] = (ip_len - LB_HDR).to_bytes(2, "big")
        hc = u16(f, 24)
        # 5. HC' = ~(~HC + ~m + m') over the destination words and the total length
        t = oc_sum([hc ^ 0xFFFF] + delta_terms(old_dst_w, new_dst_w)
                   + delta_terms([ip_len], [ip_len - LB_HDR]))
        o[24:26] = (t ^ 0xFFFF).to_bytes(2, "big")
    else:
        o[38:54] = me.ip_dst.to_bytes(16, "big")
        o[18:20] = (ip_len - LB_HDR).to_bytes(2, "big")
    # 3. UDP destination port and length
    old_port = u16(f, l4 + 2)
    o[l4 + 2:l4 + 4] = me.udp_dst.to_bytes(2, "big")
    o[l4 + 4:l4 + 6] = (udp_len - LB_HDR).to_bytes(2, "big")
    # 6. UDP checksum
    if et == ETH_IPV4 and csum == 0:
        new_csum = 0                       # sender did not compute one: stays absent
    else:
        lb_words = [u16(f, lb + 2 * i) for i in range(LB_HDR // 2)]
        t = oc_sum([csum ^ 0xFFFF]
                   + delta_terms(old_dst_w, new_dst_w)                 # pseudo-header dst
                   + delta_terms([udp_len], [udp_len - LB_HDR])        # pseudo-header length
                   + delta_terms([old_port], [me.udp_dst])             # UDP dst port
                   + delta_terms([udp_len], [udp_len - LB_HDR])        # UDP length field
                   + [w ^ 0xFFFF for w in lb_words])                  # LB header removed
        new_csum = t ^ 0xFFFF
        if new_csum == 0:
            new_csum = 0xFFFF                # RFC 768: computed zero is sent as all ones
    o[l4 + 6:l4 + 8] = new_csum.to_bytes(2, "big")
    # 4. drop the 12-byte LB header; everything after it (payload, padding) follows unchanged
    del o[lb:lb + LB_HDR]
    return bytes(o)


# ---------------------------------------------------------------------------------------------
# pcap I/O and the whole-run driver (shared with nettwin.lb.check and nettwin.lb.gen)
# ---------------------------------------------------------------------------------------------

def expected_run(tables_path, frames):
    """Verdicts for every input frame, honouring run_traffic segmentation.
    Raises ScriptError / OSError for a bad tables script."""
    cmds = lb_tables.load_script(tables_path)
    verdicts = [None] * len(frames)
    for seg in lb_tables.plan_segments(cmds, len(frames)):
        for i in range(seg.start, seg.end):
            verdicts[i] = process(frames[i][0], seg.tables)
    return verdicts


def stats_of(verdicts):
    drops = {}
    for v in verdicts:
        if v.reason:
            drops[v.reason] = drops.get(v.reason, 0) + 1
    return {"packets_in": len(verdicts),
            "packets_out": sum(1 for v in verdicts if v.reason is None),
            "drops": {r: drops[r] for r in drop_reasons() if r in drops}}


def main(argv=None):
    ap = argparse.ArgumentParser(description="Python reference of the EJFAT LB (docs/lb.md)")
    ap.add_argument("--tables", required=True, help="tables script (runsim.txt grammar)")
    ap.add_argument("--in", dest="inp", required=True, help="input pcap")
    ap.add_argument("--out", required=True, help="expected output pcap to write")
    ap.add_argument("--stats", help="write expected stats JSON here")
    ap.add_argument("--trace", help="write one line per input packet (verdict and where decided)")
    a = ap.parse_args(argv)
    try:
        frames = read_pcap(a.inp)
        verdicts = expected_run(a.tables, frames)
    except (ScriptError, InputError) as e:
        print(f"lb_ref: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"lb_ref: error: {e}", file=sys.stderr)
        return 2
    try:
        write_pcap(a.out, [(v.out, frames[i][1]) for i, v in enumerate(verdicts) if v.reason is None])
        st = stats_of(verdicts)
        if a.stats:
            with open(a.stats, "w") as fh:
                json.dump(st, fh, indent=2)
                fh.write("\n")
        if a.trace:
            with open(a.trace, "w") as fh:
                for i, v in enumerate(verdicts):
                    fh.write(f"{i} {v.reason or 'forward'} {v.detail}\n")
    except OSError as e:
        print(f"lb_ref: error: {e}", file=sys.stderr)
        return 2
    print(f"lb_ref: {st['packets_in']} in, {st['packets_out']} out, "
          f"{st['packets_in'] - st['packets_out']} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
