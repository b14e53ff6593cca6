#!/usr/bin/python3
"""Check a load balancer run (e.g. the C++ model's or the RTL's output) against docs/lb.md.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.check --tables T --in IN.pcap --out OUT.pcap \
      [--stats S.json] [--tshark]

For every input packet the Python reference (nettwin.lb.ref, lb_tables.py) computes the verdict - a
drop reason or the rewritten bytes - honouring the run_traffic segmentation of the tables script.
OUT.pcap must hold the forwarded packets in input order.  Checks, each reported separately:
  1. bytes:  every output packet equals the reference's rewrite byte for byte;
  2. decode: an independent Scapy decode of every output packet against its input: MAC SA = input
             MAC DA, MAC DA / IP dst / UDP dport = the member's, IP and UDP lengths - 12, every
             other header field unchanged, LB header gone, payload (and padding) intact, and each
             checksum wrong by exactly the amount it was wrong on input (0 = correct);
  3. stats:  (--stats) packets_in, packets_out and per-reason drop counts;
  4. tshark: (--tshark) tshark's own checksum verdicts on OUT.pcap: Good where the input checksum
             was good, Bad where it was deliberately wrong, "not present" for IPv4 UDP checksum 0.
Prints the first mismatch of each kind (packet index, field, expected vs got) and exits 1 on any
mismatch, 2 on unusable input, 0 with a one-line summary when everything matches.
"""
import argparse
import ipaddress
import json
import shutil
import subprocess
import sys

from nettwin.common.report import Report, unusable
from nettwin.lb.ref import (ETH_IPV4, ETH_IPV6, LB_HDR, InputError, expected_run,
                            read_pcap, stats_of)
from nettwin.lb.ref import drop_reasons as ref_drop_reasons
from nettwin.common.pcap import align
from nettwin.lb.tables import ScriptError

# tshark checksum status values (tshark -G values: ip.checksum.status / udp.checksum.status)
TS_BAD, TS_GOOD, TS_UNVERIFIED, TS_NOT_PRESENT = 0, 1, 2, 3
TS_NAME = {0: "Bad", 1: "Good", 2: "Unverified", 3: "Not present", 4: "Illegal"}


# ---------------------------------------------------------------------------------------------
# Field naming for byte-level differences
# ---------------------------------------------------------------------------------------------

ETH_FIELDS = [(0, 6, "eth.dst"), (6, 6, "eth.src"), (12, 2, "eth.type")]
IP4_FIELDS = [(0, 1, "ip.version/ihl"), (1, 1, "ip.tos"), (2, 2, "ip.len"), (4, 2, "ip.id"),
              (6, 2, "ip.flags/frag"), (8, 1, "ip.ttl"), (9, 1, "ip.proto"),
              (10, 2, "ip.checksum"), (12, 4, "ip.src"), (16, 4, "ip.dst")]
IP6_FIELDS = [(0, 4, "ipv6.version/tc/flow"), (4, 2, "ipv6.plen"), (6, 1, "ipv6.nxt"),
              (7, 1, "ipv6.hlim"), (8, 16, "ipv6.src"), (24, 16, "ipv6.dst")]
UDP_FIELDS = [(0, 2, "udp.sport"), (2, 2, "udp.dport"), (4, 2, "udp.len"), (6, 2, "udp.checksum")]


def layout(frame):
    """[(start, length, name)] of a forwarded (LB-less) frame, computed from its own headers."""
    fields = list(ETH_FIELDS)
    if len(frame) < 14:
        return fields
    et = int.from_bytes(frame[12:14], "big")
    if et == ETH_IPV4 and len(frame) > 14:
        hl = (frame[14] & 0xF) * 4
        fields += [(14 + o, n, name) for o, n, name in IP4_FIELDS]
        if hl > 20:
            fields.append((34, hl - 20, "ip.options"))
    elif et == ETH_IPV6:
        hl = 40
        fields += [(14 + o, n, name) for o, n, name in IP6_FIELDS]
    else:
        return fields
    l4 = 14 + hl
    fields += [(l4 + o, n, name) for o, n, name in UDP_FIELDS]
    fields.append((l4 + 8, 1 << 30, "payload"))
    return fields


def fmt_field(name, b):
    if name in ("eth.dst", "eth.src"):
        return ":".join(f"{x:02x}" for x in b)
    if name in ("ip.src", "ip.dst") and len(b) == 4:
        return str(ipaddress.IPv4Address(b))
    if name in ("ipv6.src", "ipv6.dst") and len(b) == 16:
        return str(ipaddress.IPv6Address(b))
    if len(b) <= 8:
        return "0x" + b.hex() if b else "(absent)"
    return b[:16].hex() + ("..." if len(b) > 16 else "")


def describe_diff(exp, got):
    """'field X: expected A got B' for the first differing byte of two frames."""
    n = min(len(exp), len(got))
    off = next((k for k in range(n) if exp[k] != got[k]), n)
    for start, length, name in layout(exp):
        if start <= off < start + length:
            if name == "payload":
                k = off - start
                return (f"field payload byte {k} (frame offset {off}): expected 0x{exp[off]:02x} "
                        f"got 0x{got[off]:02x}" if off < n else
                        f"length: expected {len(exp)} bytes got {len(got)} "
                        f"(identical up to byte {n})")
            e, g = exp[start:start + length], got[start:start + length]
            return (f"field {name} (frame offset {start}): expected {fmt_field(name, e)} "
                    f"got {fmt_field(name, g)}")
    return f"length: expected {len(exp)} bytes got {len(got)} (identical up to byte {n})"


# ---------------------------------------------------------------------------------------------
# Checksum residuals (0 = correct), computed with Scapy's own checksum helpers
# ---------------------------------------------------------------------------------------------

def ip4_residual(frame):
    from scapy.utils import checksum
    hl = (frame[14] & 0xF) * 4
    return checksum(frame[14:14 + hl])


def udp_residual(frame):
    """Residual of the UDP checksum over pseudo header + UDP-length bytes, or None when the
    datagram is not entirely in the frame (cannot be verified).  The pseudo header is built here
    rather than with Scapy's in4_chksum, which would take its length from the IP total length and
    its destination from a source-route option; docs/lb.md uses the UDP length and the IP dst."""
    from scapy.utils import checksum
    et = int.from_bytes(frame[12:14], "big")
    hl = (frame[14] & 0xF) * 4 if et == ETH_IPV4 else 40
    l4 = 14 + hl
    udp_len = int.from_bytes(frame[l4 + 4:l4 + 6], "big")
    if l4 + udp_len > len(frame):
        return None
    if et == ETH_IPV4:
        pseudo = frame[26:34] + bytes([0, 17]) + udp_len.to_bytes(2, "big")
    else:
        pseudo = frame[22:54] + udp_len.to_bytes(4, "big") + bytes([0, 0, 0, 17])
    return checksum(bytes(pseudo) + bytes(frame[l4:l4 + udp_len]))


def udp_csum_field(frame):
    et = int.from_bytes(frame[12:14], "big")
    hl = (frame[14] & 0xF) * 4 if et == ETH_IPV4 else 40
    return int.from_bytes(frame[14 + hl + 6:14 + hl + 8], "big")


# ---------------------------------------------------------------------------------------------
# Check 2: independent Scapy decode of one forwarded packet against its input
# ---------------------------------------------------------------------------------------------

def decode_check(fin, fout, member):
    """Return None if fout is a correct LB rewrite of fin for `member`, else 'field: exp/got'."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    if len(fout) != len(fin) - LB_HDR:
        return f"frame length: expected {len(fin) - LB_HDR} (input - 12) got {len(fout)}"
    pi, po = Ether(fin), Ether(fout)
    mac = ":".join(f"{b:02x}" for b in member.mac_da.to_bytes(6, "big"))
    checks = [("eth.src", pi.dst, po.src), ("eth.dst", mac, po.dst), ("eth.type", pi.type, po.type)]
    if pi.type == ETH_IPV4:
        ii, io = pi[IP], po[IP]
        checks += [("ip.dst", str(ipaddress.IPv4Address(member.ip_dst)), io.dst),
                   ("ip.len", ii.len - LB_HDR, io.len)]
        checks += [(f"ip.{f}", getattr(ii, f), getattr(io, f))
                   for f in ("version", "ihl", "tos", "id", "flags", "frag", "ttl", "proto", "src")]
        hl = ii.ihl * 4
        checks.append(("ip.options", fin[34:14 + hl], fout[34:14 + hl]))
        checks.append(("ip.checksum residual (wrong by the same amount as on input)",
                       ip4_residual(fin), ip4_residual(fout)))
    else:
        ii, io = pi[IPv6], po[IPv6]
        hl = 40
        checks += [("ipv6.dst", str(ipaddress.IPv6Address(member.ip_dst)), io.dst),
                   ("ipv6.plen", ii.plen - LB_HDR, io.plen)]
        checks += [(f"ipv6.{f}", getattr(ii, f), getattr(io, f))
                   for f in ("version", "tc", "fl", "nh", "hlim", "src")]
    ui, uo = ii[UDP], io[UDP]
    checks += [("udp.sport", ui.sport, uo.sport), ("udp.dport", member.udp_dst, uo.dport),
               ("udp.len", ui.len - LB_HDR, uo.len)]
    l4 = 14 + hl
    checks.append(("LB header removed / payload+padding intact", fin[l4 + 8 + LB_HDR:], fout[l4 + 8:]))
    cin, cout = udp_csum_field(fin), udp_csum_field(fout)
    if pi.type == ETH_IPV4 and cin == 0:
        checks.append(("udp.checksum (0 = absent over IPv4 stays 0)", 0, cout))
    else:
        checks.append(("udp.checksum is not 0", True, cout != 0))
        rin, rout = udp_residual(fin), udp_residual(fout)
        if rin is not None and rout is not None:
            checks.append(("udp.checksum residual (wrong by the same amount as on input)", rin, rout))
    for name, exp, got in checks:
        if exp != got:
            if isinstance(exp, (bytes, bytearray)):
                n = min(len(exp), len(got))
                k = next((x for x in range(n) if exp[x] != got[x]), n)
                return f"{name}: first difference at byte {k} (lengths {len(exp)} vs {len(got)})"
            if isinstance(exp, int) and not isinstance(exp, bool):
                return f"{name}: expected {exp} (0x{exp:x}) got {got}"
            return f"{name}: expected {exp} got {got}"
    return None


# ---------------------------------------------------------------------------------------------
# Check 4: tshark's checksum verdicts
# ---------------------------------------------------------------------------------------------

TSHARK_FIELDS = ["frame.number", "ip.checksum.status", "udp.checksum.status", "ip.dst", "ipv6.dst"]


def run_tshark(path, fields=None):
    """{frame number: [field values]} of tshark's decode with checksum validation on (fields: the tshark
    field names, the first one frame.number; default TSHARK_FIELDS)."""
    fields = fields or TSHARK_FIELDS
    exe = shutil.which("tshark")
    if exe is None:
        raise InputError("--tshark given but tshark is not installed")
    cmd = [exe, "-r", path, "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
           "-T", "fields", "-E", "occurrence=f"]   # first occurrence: the outer IP/UDP headers
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise InputError(f"tshark failed ({p.returncode}): {p.stderr.strip()}")
    rows = {}
    for line in p.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(fields) - len(cols))
        rows[int(cols[0])] = cols[1:]
    return rows


def tshark_check(out_path, aligned, frames_in, rep):
    """aligned: [(output index j, input index i, verdict)] of output packets paired with inputs."""
    rows = run_tshark(out_path)
    checked = 0
    for j, i, v in aligned:
        fin = frames_in[i][0]
        row = rows.get(j + 1)
        where = f"output packet {j} (input {i}, tshark frame {j + 1})"
        if row is None:
            rep.fail("tshark", f"{where}: missing from tshark's output")
            continue
        ip_st, udp_st, ip_dst, ip6_dst = row
        if v.family == ETH_IPV4:
            want = TS_GOOD if ip4_residual(fin) == 0 else TS_BAD
            if ip_st != str(want):
                rep.fail("tshark", f"{where}: ip.checksum.status expected {want} ({TS_NAME[want]}) "
                         f"got '{ip_st}'")
            exp_dst = str(ipaddress.IPv4Address(v.member.ip_dst))
            if ip_dst != exp_dst:
                rep.fail("tshark", f"{where}: ip.dst expected {exp_dst} got '{ip_dst}'")
        else:
            exp_dst = str(ipaddress.IPv6Address(v.member.ip_dst))
            if ip6_dst != exp_dst:
                rep.fail("tshark", f"{where}: ipv6.dst expected {exp_dst} got '{ip6_dst}'")
        if v.family == ETH_IPV4 and udp_csum_field(fin) == 0:
            want = TS_NOT_PRESENT
        else:
            r = udp_residual(fin)
            if r is None:          # datagram longer than the frame: nobody can verify it
                checked += 1
                continue
            want = TS_GOOD if r == 0 else TS_BAD
        if udp_st != str(want):
            rep.fail("tshark", f"{where}: udp.checksum.status expected {want} ({TS_NAME[want]}) "
                     f"got '{udp_st}' ({TS_NAME.get(int(udp_st), '?') if udp_st.isdigit() else ''})")
        checked += 1
    return checked


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def hint_for(fout, frames_in, verdicts, around):
    """Which input could an unexpected output packet come from?  Match on the bytes after the
    LB header (the payload is carried unchanged), searching near the expected input index."""
    from nettwin.lb.ref import UDP_HDR
    lo, hi = max(0, around - 50), min(len(frames_in), around + 50)
    same = [k for k in range(lo, hi) if frames_in[k][0] == fout]
    if same:
        k = same[0]
        return f"; it is input {k} unchanged (expected: {verdicts[k].reason or 'forward'})"
    if len(fout) < 14:
        return ""
    et = int.from_bytes(fout[12:14], "big")
    if et not in (ETH_IPV4, ETH_IPV6) or len(fout) < 15:
        return ""
    l4 = 14 + ((fout[14] & 0xF) * 4 if et == ETH_IPV4 else 40)
    tail = fout[l4 + UDP_HDR:]
    cands = []
    for k in range(lo, hi):
        v = verdicts[k]
        if v.l4 is not None and frames_in[k][0][v.l4 + UDP_HDR + LB_HDR:] == tail \
                and len(frames_in[k][0]) == len(fout) + LB_HDR:
            cands.append(f"{k} ({v.reason or 'forward'})")
    return f"; it looks like input {', '.join(cands[:5])}" if cands else ""



def main(argv=None):
    ap = argparse.ArgumentParser(description="Check LB output against the Python reference of docs/lb.md")
    ap.add_argument("--tables", required=True, help="tables script given to the LB")
    ap.add_argument("--in", dest="inp", required=True, help="input pcap given to the LB")
    ap.add_argument("--out", required=True, help="output pcap produced by the LB")
    ap.add_argument("--stats", help="stats JSON produced by the LB")
    ap.add_argument("--tshark", action="store_true", help="also check tshark's checksum verdicts")
    a = ap.parse_args(argv)
    try:
        frames_in = read_pcap(a.inp)
        frames_out = read_pcap(a.out)
        verdicts = expected_run(a.tables, frames_in)
        stats_dut = None
        if a.stats:
            try:
                with open(a.stats) as fh:
                    stats_dut = json.load(fh)
            except (OSError, ValueError) as e:
                raise InputError(f"{a.stats}: cannot read stats JSON ({e})") from None
    except (ScriptError, InputError, OSError) as e:
        return unusable("lb_check", e)

    rep = Report("lb_check")
    pairs = [(i, v) for i, v in enumerate(verdicts) if v.reason is None]

    # 1 + 2: bytes and decode.  Output and expected packets are aligned so that one missing or
    # extra packet is reported as such instead of shifting every later comparison.
    if len(frames_out) != len(pairs):
        rep.fail("count", f"expected {len(pairs)} output packets, got {len(frames_out)}")
    aligned = []
    for kind, k, j in align([v.out for _, v in pairs], [f for f, _ in frames_out]):
        if kind == "extra":
            rep.fail("bytes", f"output packet {j}: unexpected extra packet"
                     f"{hint_for(frames_out[j][0], frames_in, verdicts, pairs[min(k, len(pairs) - 1)][0] if pairs else 0)}")
            continue
        i, v = pairs[k]
        if kind == "missing":
            rep.fail("bytes", f"input {i} ({v.detail}) should be forwarded as output packet {j} "
                     f"but is missing from the output")
            continue
        fin, fout = frames_in[i][0], frames_out[j][0]
        if kind == "diff":
            rep.fail("bytes", f"output packet {j} (input {i}, {v.detail}): "
                     f"{describe_diff(v.out, fout)}{hint_for(fout, frames_in, verdicts, i)}")
        aligned.append((j, i, v))
        try:
            err = decode_check(fin, fout, v.member)
        except Exception as e:  # a garbled output frame must not crash the checker
            err = f"cannot decode output ({type(e).__name__}: {e})"
        if err:
            rep.fail("decode", f"output packet {j} (input {i}, {v.detail}): {err}")

    # 3: stats
    exp_stats = stats_of(verdicts)
    if stats_dut is not None:
        if not isinstance(stats_dut, dict) or not isinstance(stats_dut.get("drops", {}), dict):
            rep.fail("stats", "stats JSON is not an object with a 'drops' object")
        else:
            for k in ("packets_in", "packets_out"):
                if stats_dut.get(k) != exp_stats[k]:
                    rep.fail("stats", f"{k}: expected {exp_stats[k]} got {stats_dut.get(k)}")
            got_drops = stats_dut.get("drops", {})
            reasons = ref_drop_reasons()
            for r in list(reasons) + sorted(set(got_drops) - set(reasons)):
                e, g = exp_stats["drops"].get(r, 0), got_drops.get(r, 0)
                if e != g:
                    first = next((i for i, v in enumerate(verdicts) if v.reason == r), None)
                    rep.fail("stats", f"drops.{r}: expected {e} got {g}"
                             + (f" (first input with this reason: {first})" if first is not None else "")
                             + (" (unknown reason)" if r not in reasons else ""))

    # 4: tshark
    tshark_n = None
    if a.tshark:
        try:
            tshark_n = tshark_check(a.out, aligned, frames_in, rep)
        except InputError as e:
            return rep.unusable(e)

    ndrop = len(verdicts) - len(pairs)
    return rep.finish(f"{len(verdicts)} in, {len(pairs)} out byte-exact and decoded, "
                      f"{ndrop} dropped ({len(exp_stats['drops'])} reasons)"
                      + (", stats match" if stats_dut is not None else "")
                      + (f", tshark checksums ok on {tshark_n}" if tshark_n is not None else ""))


if __name__ == "__main__":
    sys.exit(main())
