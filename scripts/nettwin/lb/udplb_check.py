#!/usr/bin/python3
"""Check a `udplb` program run (e.g. `nettwin lb --program udplb`) against the independent reference.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_check --tables T --in IN.pcap --out DUT.pcap [--stats DUT.json]
      [--meta DUT.meta] [--ttl-decrement on|off] [--ingress-port N] [--no-scapy] [--tshark]

The reference (nettwin.lb.udplb_ref, written from docs/lb-udplb.md and udplb.p4) computes every input frame's
verdict with the script's run_traffic segments. Checks, each reported separately:
  1. frames: DUT.pcap holds exactly the reference's output frames in order, byte for byte; the first
     difference is reported as frame index (0-based, in the output), byte offset, both values and the
     input frame it came from;
  2. stats:  (--stats) packets_in, packets_out, to_host, replies, every drop reason (absent = 0) and every
     instance's rx / rx_v2 / rx_v3 / tx / drops (a list of objects with lb_id, or an object keyed by lb_id);
  3. meta:   (--meta) one smartnic_metadata line per output frame, as the reference writes them;
  4. scapy:  (default on) an independent Scapy decode of every DUT frame: IPv4 header, UDP, ICMP and
     ICMPv6 checksums valid wherever the input frame's were (a UDP checksum 0 counts as absent); not for
     frames whose VLAN tag udplb.p4 popped leaving EtherType 0x8100, nor IEEE 802 group frames that lost
     their ICMP-embedded headers (docs/lb-udplb.md: neither parses as what it was);
  5. tshark: (--tshark) tshark's own checksum verdicts (ip/udp/icmp/icmpv6 .checksum.status) on DUT.pcap:
     no Bad where the input frame had none.
Exit 0 with `lb_udplb_check: PASS: N frames equal ...`, 1 on a mismatch (`MISMATCH [check] ...` lines, then
`lb_udplb_check: FAIL: ...`), 2 on unusable input (refused script, unreadable pcap, missing tshark).
"""
import argparse
import json
import sys

from nettwin.common import blockdesc
from nettwin.common.pcap import InputError, read_pcap
from nettwin.lb import udplb_ref as R
from nettwin.common.report import Report
from nettwin.lb.check import run_tshark
from nettwin.lb.tables import ScriptError

TS_BAD = 0
CSUM_FIELDS = ("ip.checksum.status", "udp.checksum.status", "icmp.checksum.status", "icmpv6.checksum.status")


def first_diff(exp, got):
    """(offset, expected byte or None, got byte or None) of the first difference, None if equal."""
    if exp == got:
        return None
    n = min(len(exp), len(got))
    k = next((i for i in range(n) if exp[i] != got[i]), n)
    return k, (exp[k] if k < len(exp) else None), (got[k] if k < len(got) else None)


def fmt_byte(b):
    return "end of frame" if b is None else f"0x{b:02x}"


def compare_frames(rep, exp, got):
    """exp: [(bytes, input index)], got: [bytes]."""
    equal = 0
    for j in range(max(len(exp), len(got))):
        if j >= len(exp):
            rep.fail("frames", f"output frame {j}: not expected (reference has {len(exp)} frames, DUT {len(got)})")
            continue
        if j >= len(got):
            rep.fail("frames", f"output frame {j} (input {exp[j][1]}): missing (reference has {len(exp)} "
                     f"frames, DUT {len(got)})")
            continue
        d = first_diff(exp[j][0], got[j])
        if d is None:
            equal += 1
        else:
            rep.fail("frames", f"output frame {j} (input {exp[j][1]}): byte {d[0]}: expected {fmt_byte(d[1])} "
                     f"got {fmt_byte(d[2])} (lengths {len(exp[j][0])} / {len(got[j])})")
    return equal


def stats_keys():
    """The counters' keys of the stats JSON, from udplb's descriptor (docs/blockgen.md): the scalar counters,
    and the columns of the "instances" rows (after their index key lb_id)."""
    d = blockdesc.load("udplb")
    return ([k for k in blockdesc.stats_keys(d) if k not in ("drops", "instances")],
            blockdesc.stats_row_columns(d, "instances")[1:])


def normalize_stats(st):
    """The comparable part of a stats JSON (reference's or DUT's)."""
    scalar_keys, instance_keys = stats_keys()
    out = {k: st.get(k) for k in scalar_keys}
    drops = st.get("drops") or {}
    reasons = R.drop_reasons()
    for r in reasons:
        out["drops." + r] = drops.get(r, 0)
    for r in drops:
        if r not in reasons:
            out["drops." + r] = drops[r]
    inst = st.get("instances") or {}
    if isinstance(inst, list):
        inst = {str(e.get("lb_id", i)): e for i, e in enumerate(inst)}
    for i in range(R.T.INSTANCES):
        e = inst.get(str(i)) or {}
        for k in instance_keys:
            out[f"instances[{i}].{k}"] = e.get(k, 0)
    return out


def compare_stats(rep, exp_st, got_st):
    e, g = normalize_stats(exp_st), normalize_stats(got_st)
    for k in sorted(set(e) | set(g), key=lambda x: (x.count("."), x)):
        if e.get(k) != g.get(k):
            rep.fail("stats", f"{k}: expected {e.get(k)} got {g.get(k)}")
    if g["packets_in"] is not None and g["packets_out"] is not None:
        total = g["packets_out"] + sum(v for k, v in g.items() if k.startswith("drops.") and v)
        if total != g["packets_in"]:
            rep.fail("stats", f"DUT packets_in {g['packets_in']} != packets_out + drops = {total}")


# ---------------------------------------------------------------------------------------------
# Independent decoders: Scapy and tshark
# ---------------------------------------------------------------------------------------------

def scapy_bad_checksums(frame):
    """Names of the checksums Scapy finds wrong in a frame: Scapy decodes the headers, the sums are
    recomputed over the lengths the headers give (a UDP checksum 0 is absent, not wrong)."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import ICMP, IP, UDP
    from scapy.layers.inet6 import IPv6, _ICMPv6, in6_chksum
    from scapy.utils import checksum
    bad = []
    p = Ether(frame)
    if IP in p:
        ip = p[IP]
        hdr = bytes(ip)[:ip.ihl * 4]
        if len(hdr) == ip.ihl * 4 and checksum(hdr) != 0:
            bad.append("ip")
        l3, plen = ip, ip.len - ip.ihl * 4
    elif IPv6 in p:
        l3 = p[IPv6]
        plen = l3.plen
    else:
        return bad
    for layer, name, proto in ((UDP, "udp", 17), (ICMP, "icmp", 1), (_ICMPv6, "icmpv6", 58)):
        if layer not in p:
            continue
        seg = p[layer]
        if name == "udp":
            if seg.chksum == 0:
                break
            n = seg.len
        else:
            n = plen
        data = bytes(seg)[:n]
        if len(data) < n or n < 4:
            break                       # truncated or inconsistent lengths: nothing to verify
        if name == "icmp":
            ok = checksum(data) == 0
        elif l3.version == 4:
            ph = (bytes(l3)[12:20] + bytes([0, proto]) + n.to_bytes(2, "big"))
            ok = checksum(ph + data) == 0
        else:
            ok = in6_chksum(proto, l3, data) == 0
        if not ok:
            bad.append(name)
        break
    return bad


def tshark_statuses(pcap):
    """{frame number (1-based): {field: status}} from tshark with checksum validation on."""
    rows = run_tshark(pcap, ["frame.number"] + list(CSUM_FIELDS))
    return {n: {f: (int(c) if c else None) for f, c in zip(CSUM_FIELDS, cols)} for n, cols in rows.items()}


def decodable(frame_in, out):
    """Whether an output frame is one Scapy and tshark can judge against its input: not when udplb.p4 popped a
    VLAN tag but left EtherType 0x8100 (the rest no longer parses as VLAN), nor for an IEEE 802 group frame
    whose ICMP-embedded headers were not emitted (its ICMP checksum covers bytes that left)."""
    if frame_in[12:14] == b"\x81\x00":
        return False
    return not (out != frame_in and frame_in[0:5] == b"\x01\x80\xc2\x00\x00")


def decode_checks(rep, exp, got, frames, in_pcap, out_pcap, scapy, tshark):
    """Checks 4 and 5 on the DUT frames that line up with a reference frame; returns how many were skipped."""
    pairs = [(j, exp[j][1]) for j in range(min(len(exp), len(got))) if decodable(frames[exp[j][1]][0], exp[j][0])]
    if scapy:
        for j, i in pairs:
            was = set(scapy_bad_checksums(frames[i][0]))
            for name in scapy_bad_checksums(got[j]):
                if name not in was:
                    rep.fail("scapy", f"output frame {j} (input {i}): {name} checksum wrong (input's was right)")
    if tshark:
        ts_in, ts_out = tshark_statuses(in_pcap), tshark_statuses(out_pcap)
        for j, i in pairs:
            for f in CSUM_FIELDS:
                if ts_out.get(j + 1, {}).get(f) == TS_BAD and ts_in.get(i + 1, {}).get(f) != TS_BAD:
                    rep.fail("tshark", f"output frame {j} (input {i}): tshark says {f} Bad (input's was not)")
    return min(len(exp), len(got)) - len(pairs)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Check a udplb run against the independent reference")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--in", dest="inp", required=True, help="input pcap")
    ap.add_argument("--out", required=True, help="the DUT's output pcap")
    ap.add_argument("--stats", help="the DUT's stats JSON")
    ap.add_argument("--meta", help="the DUT's .meta (one line per output frame)")
    ap.add_argument("--no-scapy", action="store_true", help="skip the Scapy checksum decode")
    ap.add_argument("--tshark", action="store_true", help="also check tshark's checksum verdicts")
    R.add_settings(ap)
    a = ap.parse_args(argv)
    rep = Report("lb_udplb_check")
    try:
        frames = read_pcap(a.inp)
        verdicts = R.expected_run(a.tables, frames, a.ttl_decrement, a.ingress_port)
        got = [f for f, _ in read_pcap(a.out)]
        exp = [(v.out, i) for i, v in enumerate(verdicts) if v.reason is None]
        equal = compare_frames(rep, exp, got)
        exp_st = R.stats_of(verdicts)
        if a.stats:
            with open(a.stats) as fh:
                compare_stats(rep, exp_st, json.load(fh))
        if a.meta:
            with open(a.meta) as fh:
                lines = fh.read().splitlines()
            want = [R.meta_line(a.ingress_port, v.egress) for v in verdicts if v.reason is None]
            if len(lines) != len(want):
                rep.fail("meta", f"{len(lines)} lines, expected {len(want)}")
            for j, (w, g) in enumerate(zip(want, lines)):
                if w != g:
                    rep.fail("meta", f"line {j + 1}: expected '{w}' got '{g}'")
        skipped = decode_checks(rep, exp, got, frames, a.inp, a.out, not a.no_scapy, a.tshark)
    except (ScriptError, InputError, OSError, ValueError) as e:
        return rep.unusable(e)
    extra = (f"{exp_st['packets_in']} in, {sum(exp_st['drops'].values())} dropped, {exp_st['replies']} replies, "
             f"{exp_st['to_host']} to host")
    return rep.finish(f"{equal} frames equal ({extra})"
                      + ("; stats equal" if a.stats else "") + ("; meta equal" if a.meta else "")
                      + ("" if a.no_scapy else "; Scapy checksums ok") + ("; tshark checksums ok" if a.tshark else "")
                      + (f" ({skipped} frames not decodable: popped VLAN tag / group frame without its ICMP-embedded "
                         "headers)" if skipped and (a.tshark or not a.no_scapy) else ""),
                      f"{equal} of {len(exp)} frames equal ({len(got)} in the DUT output); {extra}")


if __name__ == "__main__":
    sys.exit(main())
