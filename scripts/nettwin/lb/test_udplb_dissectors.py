#!/usr/bin/python3
"""The Lua dissectors udplb.lua (LB v1/v2/v3), evio6seg.lua and e2sar_re.lua under tshark: ctest
lb_udplb_dissectors.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.test_udplb_dissectors PCAP...   (check pcaps; exit 0/1/2)
  PYTHONPATH=scripts /usr/bin/python3 -m unittest nettwin.lb.test_udplb_dissectors  (the tests)

For every frame the dissectors' fields are compared with the values read from the raw bytes here (not from
the dissectors or Scapy): an LB header on UDP destination port 0x4C42, or on 0x4000..0x7FFF when the payload
starts with "LB", shows its version, proto, tick and the v2 (rsvd, entropy) or v3 (slot/port select) fields;
after it proto 1 shows E2SAR's reassembly header (payload 0x10 0x00.., >= 20 bytes) or an EVIO6 segment; a
payload to 0x4C42 that is E2SAR's header itself shows it; a bad magic, an unknown version or a cut header
shows an expert error, and nothing else may (no expert error elsewhere, no "Lua Error" at all).
The tests run udplb's test-1 input and expected output (every frame: no expert error) and a crafted pcap with
every case, truncated frames included.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from nettwin.common.paths import DISSECTORS_DIR, ROOT_DIR
from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.lb.test_dissectors import udp_payload

LUA = [os.path.join(DISSECTORS_DIR, f) for f in ("udplb.lua", "evio6seg.lua", "e2sar_re.lua")]
FIELDS = ["udplb.version", "udplb.proto", "udplb.tick", "udplb.rsvd", "udplb.entropy", "udplb.slot_select",
          "udplb.port_select", "evio6seg.rocid", "evio6seg.offset", "e2sar_re.version", "e2sar_re.data_id",
          "e2sar_re.buffer_offset", "e2sar_re.buffer_length", "e2sar_re.event_num"]
SEVERITY_ERROR = 0x00800000
OWN_EXPERTS = ["udplb.bad_magic", "udplb.bad_version", "udplb.short"]
PEER = os.path.join(ROOT_DIR, "vectors", "peers", "udplb")


def be(b):
    return int.from_bytes(b, "big")


def is_re(pl):
    return len(pl) >= 20 and pl[0] == 0x10 and pl[1] == 0


def e2sar(pl):
    return {"e2sar_re.version": pl[0] >> 4, "e2sar_re.data_id": be(pl[2:4]), "e2sar_re.buffer_offset": be(pl[4:8]),
            "e2sar_re.buffer_length": be(pl[8:12]), "e2sar_re.event_num": be(pl[12:20])}


def expected(frame):
    """({field: int} due, expert error due) for one frame, from its bytes."""
    u = udp_payload(frame)
    if u is None:
        return {}, False
    _, dport, pl = u
    if not (dport == 0x4C42 or (0x4000 <= dport <= 0x7FFF and pl[:2] == b"LB" and len(pl) >= 4)):
        if dport == 0x4556 and len(pl) >= 8:
            return {"evio6seg.rocid": be(pl[2:4]), "evio6seg.offset": be(pl[4:8])}, False
        return {}, False
    if pl[:2] != b"LB" and is_re(pl):
        return e2sar(pl), False
    if len(pl) < 4 or pl[:2] != b"LB":
        return {}, True
    ver = pl[2]
    n = {1: 12, 2: 16, 3: 16}.get(ver)
    if n is None or len(pl) < n:
        return {"udplb.version": ver, "udplb.proto": pl[3]}, True
    exp = {"udplb.version": ver, "udplb.proto": pl[3], "udplb.tick": be(pl[n - 8:n])}
    if ver == 2:
        exp.update({"udplb.rsvd": be(pl[4:6]), "udplb.entropy": be(pl[6:8])})
    elif ver == 3:
        exp.update({"udplb.slot_select": be(pl[4:6]), "udplb.port_select": be(pl[6:8])})
    rest = pl[n:]
    if pl[3] == 1 and is_re(rest):
        exp.update(e2sar(rest))
    elif pl[3] == 1 and len(rest) >= 8:
        exp.update({"evio6seg.rocid": be(rest[2:4]), "evio6seg.offset": be(rest[4:8])})
    return exp, False


def run_tshark(pcap):
    exe = shutil.which("tshark")
    if exe is None:
        raise InputError("tshark is not installed")
    base = [exe, "-r", pcap] + [a for f in LUA for a in ("-X", f"lua_script:{f}")]
    p = subprocess.run(base + ["-T", "fields", "-E", "occurrence=f", "-E", "separator=|", "-e", "frame.number",
                               "-e", "_ws.expert.severity"] + [x for f in OWN_EXPERTS + FIELDS for x in ("-e", f)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise InputError(f"tshark failed ({p.returncode}): {p.stderr.strip()}")
    v = subprocess.run(base + ["-V"], capture_output=True, text=True)
    rows = {}
    for line in p.stdout.splitlines():
        cols = line.split("|")
        rows[int(cols[0])] = cols[1:]
    return rows, p.stderr + v.stdout + v.stderr


def check_pcap(pcap, any_error=True):
    """(problems, number of frames with LB / E2SAR / EVIO6 fields checked). An expert error must come from
    udplb.lua exactly where one is due; any_error: no other dissector may report one either (off for frames
    cut on purpose, whose IP / UDP lengths tshark rightly calls malformed)."""
    frames = read_pcap(pcap)
    rows, text = run_tshark(pcap)
    problems = []
    if "Lua Error" in text:
        problems.append("tshark reports a Lua error: " + next(x for x in text.splitlines() if "Lua Error" in x))
    checked = 0
    for idx, (frame, _) in enumerate(frames, start=1):
        exp, err = expected(frame)
        cols = rows.get(idx, [""] * (len(OWN_EXPERTS + FIELDS) + 1))
        sev, own = cols[0], [k for k, c in zip(OWN_EXPERTS, cols[1:]) if c]
        if bool(own) != err:
            problems.append(f"frame {idx}: LB expert error {'missing' if err else 'unexpected: ' + own[0]}")
        elif any_error and not err and any(int(x, 0) >= SEVERITY_ERROR for x in sev.split(",") if x):
            problems.append(f"frame {idx}: an expert error (severities '{sev}')")
        got = dict(zip(FIELDS, cols[1 + len(OWN_EXPERTS):]))
        for k, want in exp.items():
            g = got.get(k, "")
            if not g or int(g, 0) != want:
                problems.append(f"frame {idx}: {k} expected {want:#x} got '{g}'")
                break
        checked += bool(exp)
    return problems, checked


def crafted_frames():
    """Every case the dissectors must handle."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw
    from nettwin.lb.layers import E2SARRE, UDPLB, UDPLBv2, UDPLBv3, EVIO6Seg

    eth = Ether(src="00:11:22:33:44:55", dst="00:aa:bb:cc:dd:ee")

    def u4(dport, payload):
        return bytes(eth / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=50000, dport=dport) / payload)

    def u6(dport, payload):
        return bytes(eth / IPv6(src="fe80::1", dst="fe80::2") / UDP(sport=50001, dport=dport) / payload)

    re_hdr = E2SARRE(data_id=0x1234, buffer_offset=8000, buffer_length=90000, event_num=0x123456789A)
    v2 = UDPLBv2(proto=1, entropy=0xBEEF, tick=0x1122334455667788)
    v3 = UDPLBv3(proto=1, slot_select=0x1FF, port_select=0xA5, tick=42)
    out = [
        u4(0x4C42, UDPLB(proto=1, tick=10) / EVIO6Seg(rocid=0xABC, offset=100) / Raw(b"d" * 20)),   # v1
        u4(0x4C42, v2 / EVIO6Seg(rocid=0x123, offset=7) / Raw(b"e" * 30)),
        u6(0x4C42, v3 / EVIO6Seg(rocid=0x124, offset=8) / Raw(b"f" * 30)),
        u4(0x4C42, v2 / re_hdr / Raw(b"g" * 64)),
        u6(0x4C42, v3 / re_hdr / Raw(b"h" * 10)),
        u4(0x4000, UDPLBv2(proto=0, tick=5) / Raw(b"i" * 8)),        # udplb.p4's range, via the heuristic
        u6(0x7FFF, UDPLBv3(proto=1, tick=6) / re_hdr),
        u4(0x5000, UDPLBv3(proto=9, tick=6)),                        # bare header, unknown proto
        u4(0x4C42, re_hdr / Raw(b"j" * 16)),                         # E2SAR data to 19522, LB header removed
        u4(0x4556, EVIO6Seg(rocid=0x77, offset=3) / Raw(b"k" * 4)),  # the seed's output port
        u4(0x4C42, UDPLBv2(magic=0x4C43, tick=1) / Raw(b"l" * 8)),   # bad magic: expert error
        u4(0x4C42, UDPLBv2(version=4, tick=1)),                      # unknown version: expert error
        u4(0x4C42, bytes(UDPLBv2(tick=1))[:10]),                     # cut v2 header: expert error
        u4(0x4C42, b"LB"),                                           # cut common header: expert error
        u4(0x4C42, UDPLBv2(proto=1) / bytes(re_hdr)[:12]),           # short E2SAR header: left as data
        u4(0x4C42, UDPLBv3(proto=1) / bytes(EVIO6Seg())[:5]),        # short EVIO6 header
        u4(0x6000, Raw(b"no LB magic here")),                        # range port, no magic: not LB
    ]
    whole = u4(0x4C42, v2 / re_hdr / Raw(b"m" * 40))
    out += [whole[:k] for k in (40, 44, 50, 58, 66)]                 # frames cut inside the headers
    return out


class Dissectors(unittest.TestCase):
    @unittest.skipUnless(shutil.which("tshark"), "tshark not installed")
    def test_udplb_test1(self):
        for name, lb_frames in (("packets_in.pcap", 88 + 8), ("expected_packets_out.pcap", 44)):
            problems, checked = check_pcap(os.path.join(PEER, name))
            self.assertEqual(problems, [], name)
            self.assertEqual(checked, lb_frames, name)

    @unittest.skipUnless(shutil.which("tshark"), "tshark not installed")
    def test_crafted(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "crafted.pcap")
            frames = crafted_frames()
            write_pcap(path, [(f, float(i)) for i, f in enumerate(frames)])
            problems, checked = check_pcap(path, any_error=False)
            self.assertEqual(problems, [])
            self.assertEqual(sum(expected(f)[1] for f in frames), 6)   # 4 bad headers + 2 frames cut in the LB header
            self.assertGreaterEqual(checked, 14)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python3 -m nettwin.lb.test_udplb_dissectors PCAP...", file=sys.stderr)
        return 2
    bad = 0
    for pcap in argv:
        try:
            problems, checked = check_pcap(pcap)
        except InputError as e:
            print(f"test_udplb_dissectors: error: {e}", file=sys.stderr)
            return 2
        for p in problems[:10]:
            print(f"MISMATCH: {pcap}: {p}")
        bad += bool(problems)
        print(f"test_udplb_dissectors: {'FAIL' if problems else 'PASS'}: {pcap}: {checked} LB/E2SAR/EVIO6 frames "
              f"checked, {len(problems)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
