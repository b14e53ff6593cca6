#!/usr/bin/python3
"""Check the Lua dissectors (scripts/dissectors/*.lua) decode LB and EVIO6 headers in tshark.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.test_dissectors PCAP [--spec] [--lua-dir DIR]

Runs `tshark -X lua_script:udplb.lua -X lua_script:evio6seg.lua` on PCAP and compares, for every
frame, the dissectors' fields with the values read from the raw bytes here:
  * every LB packet (UDP dport 0x4C42 with a complete 12-byte LB header in a well-formed IPv4 /
    IPv6 UDP datagram) must show udplb.magic "LB", udplb.version, udplb.proto and udplb.tick (v1: 12
    bytes; v2/v3, the udplb program's: 16 bytes, tick at 8; a bad magic or another version: no tick);
    with proto 1 and a complete 8-byte EVIO6 header also evio6seg.rocid / .offset / flags
    (test_udplb_dissectors.py checks the v2/v3 fields and E2SAR's header);
  * every packet to UDP port 0x4556 (the spec's LB output port) must show the EVIO6 fields;
  * no "Lua Error" anywhere in tshark's output.
tshark picks the lower UDP port's dissector first, so a packet whose source port is lower than
its destination port and is claimed by another dissector cannot be required to decode; those are
counted as skipped (none exist in the spec vector).
--spec: PCAP is the spec vector (nettwin.lb.spec_gen) or the LB's output for it: additionally
require exactly 22 packets, ticks 10 / 20 and rocids 0xabc / 0x123 alternating (IPv4 / IPv6),
offsets 0, 100, ... 1000, first flag on the first pair and last flag on the last pair.
Exit 0 when all checks pass, 1 on a mismatch, 2 on unusable input.
"""
import argparse
import os
import shutil
import subprocess
import sys

from nettwin.common.paths import DISSECTORS_DIR
from nettwin.lb.ref import InputError, read_pcap

LUA_DIR = DISSECTORS_DIR
FIELDS = ["frame.number", "udp.srcport", "udp.dstport", "udplb.magic", "udplb.version",
          "udplb.proto", "udplb.tick", "evio6seg.version", "evio6seg.rocid", "evio6seg.offset",
          "evio6seg.flags.first", "evio6seg.flags.last"]


def udp_payload(frame):
    """(sport, dport, UDP payload bytes present in the frame) of a well-formed, unfragmented
    IPv4/IPv6 UDP packet whose UDP length fits its IP datagram, else None."""
    if len(frame) < 14:
        return None
    et = int.from_bytes(frame[12:14], "big")
    if et == 0x0800 and len(frame) >= 34 and frame[14] >> 4 == 4 and frame[14] & 0xF >= 5:
        hl = (frame[14] & 0xF) * 4
        if frame[23] != 17 or int.from_bytes(frame[20:22], "big") & 0x3FFF:
            return None
        ip_payload = int.from_bytes(frame[16:18], "big") - hl
    elif et == 0x86DD and len(frame) >= 54 and frame[14] >> 4 == 6:
        hl = 40
        if frame[20] != 17:
            return None
        ip_payload = int.from_bytes(frame[18:20], "big")
    else:
        return None
    l4 = 14 + hl
    if len(frame) < l4 + 8:
        return None
    ulen = int.from_bytes(frame[l4 + 4:l4 + 6], "big")
    if ulen < 8 or ulen > ip_payload:
        return None
    sport = int.from_bytes(frame[l4:l4 + 2], "big")
    dport = int.from_bytes(frame[l4 + 2:l4 + 4], "big")
    return sport, dport, frame[l4 + 8:min(len(frame), l4 + ulen)]


def evio6(b):
    w = int.from_bytes(b[0:2], "big")
    return {"evio6seg.version": str(w >> 12), "evio6seg.rocid": f"0x{int.from_bytes(b[2:4], 'big'):04x}",
            "evio6seg.offset": f"0x{int.from_bytes(b[4:8], 'big'):08x}",
            "evio6seg.flags.first": str((w >> 1) & 1), "evio6seg.flags.last": str(w & 1)}


def expected_fields(frame):
    """{field: value} tshark must show for this frame, or None when no LB / EVIO6 is due."""
    u = udp_payload(frame)
    if u is None:
        return None, None
    sport, dport, pl = u
    exp = {}
    if dport == 0x4C42 and len(pl) >= 12:
        # udplb.lua decodes by version: v1 12 bytes (tick at 4), v2/v3 16 bytes (tick at 8), other versions
        # only the common 4 bytes (with an expert error), as does a bad magic
        n = {1: 12, 2: 16, 3: 16}.get(pl[2]) if pl[0:2] == b"LB" else None
        exp.update({"udplb.version": str(pl[2]), "udplb.proto": f"0x{pl[3]:02x}"})
        if n is not None and len(pl) >= n:
            exp["udplb.tick"] = f"0x{int.from_bytes(pl[n - 8:n], 'big'):016x}"
        if all(0x20 <= c < 0x7F for c in pl[0:2]):   # tshark escapes other bytes in a string
            exp["udplb.magic"] = pl[0:2].decode("ascii")
        if n is not None and pl[3] == 1 and len(pl) >= n + 8 and not (pl[n] == 0x10 and pl[n + 1] == 0
                                                                    and len(pl) >= n + 20):
            exp.update(evio6(pl[n:n + 8]))
    elif dport == 0x4556 and len(pl) >= 8:
        exp.update(evio6(pl[0:8]))
    else:
        return None, None
    return exp, (sport < dport)


def run_tshark(pcap, lua_dir):
    # udplb.lua first: it creates the "udplb.proto" table evio6seg.lua registers in
    LUA = [os.path.join(lua_dir, "udplb.lua"), os.path.join(lua_dir, "evio6seg.lua")]
    exe = shutil.which("tshark")
    if exe is None:
        raise InputError("tshark is not installed")
    for f in LUA:
        if not os.path.exists(f):
            raise InputError(f"missing dissector {f}")
    base = [exe, "-r", pcap] + [a for f in LUA for a in ("-X", f"lua_script:{f}")]
    p = subprocess.run(base + ["-T", "fields", "-E", "occurrence=f"] + [x for f in FIELDS for x in ("-e", f)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise InputError(f"tshark failed ({p.returncode}): {p.stderr.strip()}")
    v = subprocess.run(base + ["-V"], capture_output=True, text=True)
    rows = {}
    for line in p.stdout.splitlines():
        cols = line.split("\t") + [""] * len(FIELDS)
        rows[int(cols[0])] = dict(zip(FIELDS[1:], cols[1:len(FIELDS)]))
    return rows, p.stderr + p.stdout + v.stdout + v.stderr


def spec_expectations(n):
    """Per frame (1-based) the values the spec vector must show."""
    if n != 22:
        return [f"expected 22 packets in the spec vector, got {n}"], {}
    exp = {}
    for k in range(22):
        seg = k // 2
        v4 = k % 2 == 0
        exp[k + 1] = {"evio6seg.rocid": "0x0abc" if v4 else "0x0123",
                      "evio6seg.offset": f"0x{seg * 100:08x}",
                      "evio6seg.flags.first": "1" if seg == 0 else "0",
                      "evio6seg.flags.last": "1" if seg == 10 else "0"}
    return [], exp


def main(argv=None):
    ap = argparse.ArgumentParser(description="Check the EJFAT Lua dissectors under tshark")
    ap.add_argument("pcap")
    ap.add_argument("--spec", action="store_true", help="PCAP is the spec vector (or the LB's output for it)")
    ap.add_argument("--lua-dir", default=LUA_DIR, help="where udplb.lua / evio6seg.lua are (default: %(default)s)")
    a = ap.parse_args(argv)
    try:
        frames = read_pcap(a.pcap)
        rows, text = run_tshark(a.pcap, a.lua_dir)
    except InputError as e:
        print(f"test_dissectors: error: {e}", file=sys.stderr)
        return 2
    errors = []
    if "Lua Error" in text:
        line = next(x for x in text.splitlines() if "Lua Error" in x)
        errors.append(f"tshark reports a Lua error: {line.strip()}")
    spec_exp = {}
    if a.spec:
        errs, spec_exp = spec_expectations(len(frames))
        errors += errs
    checked = skipped = 0
    for idx, (frame, _) in enumerate(frames, start=1):
        exp, low_sport = expected_fields(frame)
        row = rows.get(idx, {})
        if exp is None:
            if idx in spec_exp:
                errors.append(f"frame {idx}: not an LB / EVIO6 packet")
            continue
        if a.spec:
            if "udplb.tick" in exp:
                want_tick = f"0x{10 if idx % 2 else 20:016x}"
                if exp["udplb.tick"] != want_tick:
                    errors.append(f"frame {idx}: tick in the bytes is {exp['udplb.tick']}, spec says {want_tick}")
            for k, vv in spec_exp.get(idx, {}).items():
                if exp.get(k) != vv:
                    errors.append(f"frame {idx}: {k} in the bytes is {exp.get(k)}, spec says {vv}")
        decoded = any(row.get(k) for k in ("udplb.magic", "evio6seg.rocid"))
        if not decoded and low_sport and not a.spec:
            skipped += 1
            continue
        for k, vv in exp.items():
            if row.get(k, "") != vv:
                errors.append(f"frame {idx}: {k} expected '{vv}' got '{row.get(k, '')}'")
                break
        checked += 1
    if a.spec and checked != 22:
        errors.append(f"only {checked} of 22 spec frames were checked")
    if errors:
        for e in errors[:10]:
            print(f"MISMATCH: {e}")
        print(f"test_dissectors: FAIL: {len(errors)} problems in {a.pcap}")
        return 1
    print(f"test_dissectors: PASS: {checked} LB/EVIO6 frames of {len(frames)} decoded as expected"
          + (f", {skipped} skipped (lower source port claimed by another dissector)" if skipped else "")
          + (" (spec values)" if a.spec else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
