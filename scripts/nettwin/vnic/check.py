"""Independent checker of `nettwin vnic` outputs (docs/vnic.md "Checks").

encap:  every output 16B packet is decoded field by field from the spec's table (layers.decode_header) and
        checked on its own: L2 = 0b10, LT = 1, L4 = 0x78, length = packet quadwords, tail LT = 0b01 (0b00 for
        a port of profile linux), pad count
        0..7 and pad bytes zero, ICRC; then compared byte for byte with ref.encap of the matching input frame
        (inputs that ref drops must be absent), and the drop counts with the stats JSON.
decap:  every output frame and its port sideband against ref.decap of the inputs, drop counts likewise.
roundtrip: the frames decapsulated from the encapsulation output equal the accepted input frames, port by
        port, byte for byte.
Prints nettwin.common.report's report (`vnic_check: PASS: <mode>: ...`, or MISMATCH lines and
`vnic_check: FAIL: ...`). Exit 0 pass, 1 failed check, 2 unusable input.
"""
import json
from collections import Counter

from . import ref
from .layers import HDR_LEN, L4_ETH, TRAILER_LEN, decode_header, icrc16b
from .pcapio import read_pcap
from nettwin.common.report import Report

LINK_ETH, LINK_USER0 = 1, 147


def read_ports(path, n):
    if path is None:
        return [0] * n
    with open(path) as f:
        ports = [int(x.split("#")[0]) for x in f if x.split("#")[0].strip()]
    if len(ports) != n:
        raise ref.InputError(f"{path}: {len(ports)} ports for {n} frames")
    return ports


def check_16b(pkt, tail_lt=1):
    """Problems of one 16B packet decoded on its own (empty list: well formed). tail_lt: the tail byte's LT
    bits the sender's profile writes (1; 0 for profile linux, which writes the pad count alone)."""
    errs = []
    if len(pkt) < ref.MIN_PKT:
        return [f"{len(pkt)} bytes, shorter than {ref.MIN_PKT}"]
    h = decode_header(pkt)
    if h["l2"] != 0b10 or h["lt"] != 1:
        errs.append(f"L2 {h['l2']:#b} / LT {h['lt']} (want 0b10 / 1)")
    if h["l4"] != L4_ETH:
        errs.append(f"L4 type {h['l4']:#x} (want 0x78)")
    if len(pkt) % 8 or h["length"] * 8 != len(pkt):
        errs.append(f"length field {h['length']} qw for {len(pkt)} bytes")
    tail = pkt[-1]
    pad = tail & 0x3F
    if tail >> 6 != tail_lt:
        errs.append(f"tail LT {tail >> 6:#b} (want {tail_lt:#04b})")
    if pad > 7:
        errs.append(f"pad count {pad} > 7")
    elif any(pkt[len(pkt) - TRAILER_LEN - pad:len(pkt) - TRAILER_LEN]):
        errs.append("pad bytes not zero")
    if icrc16b(pkt[:-5]) != int.from_bytes(pkt[-5:-1], "little"):
        errs.append(f"ICRC {int.from_bytes(pkt[-5:-1], 'little'):#010x}, computed {icrc16b(pkt[:-5]):#010x}")
    if h["rsvd1"] or h["rsvd2"] or h["becn"] or h["fecn"]:
        errs.append("reserved / BECN / FECN not zero on transmit")
    return errs


def _check_stats(rep, stats_path, expected_drops, n_in, n_out):
    if stats_path is None:
        return
    with open(stats_path) as f:
        s = json.load(f)
    if s.get("packets_in") != n_in or s.get("packets_out") != n_out:
        rep.fail("stats", f"packets_in/out {s.get('packets_in')}/{s.get('packets_out')}, want {n_in}/{n_out}")
    for k, v in s.get("drops", {}).items():
        if v != expected_drops.get(k, 0):
            rep.fail("stats", f"drops[{k}] = {v}, reference {expected_drops.get(k, 0)}")
    if sum(s.get("drops", {}).values()) + s.get("packets_out", 0) != s.get("packets_in"):
        rep.fail("stats", "packets_in != packets_out + drops")


def check_encap(rep, cfg, frames, ports, out, stats=None):
    """Fills rep (nettwin.common.report.Report); returns (packets checked, drops by reason)."""
    drops, exp = Counter(), []
    for i, (f, p) in enumerate(zip(frames, ports)):
        pkt, why = ref.encap(f, p, cfg)
        if pkt is None:
            drops[why] += 1
        else:
            exp.append((i, pkt))
    for j, pkt in enumerate(out):
        linux = j < len(exp) and cfg["ports"][ports[exp[j][0]]]["profile"] == "linux"
        for e in check_16b(pkt, 0 if linux else 1):
            rep.fail("16b", f"output {j + 1}: {e}")
    if len(out) != len(exp):
        rep.fail("count", f"{len(out)} packets out, reference {len(exp)}")
    for j, ((i, want), got) in enumerate(zip(exp, out)):
        if want != got:
            k = next((x for x in range(min(len(want), len(got))) if want[x] != got[x]), min(len(want), len(got)))
            rep.fail("bytes", f"output {j + 1} (input frame {i + 1}): differs from the reference at byte {k} "
                     f"({len(got)} vs {len(want)} bytes)")
    _check_stats(rep, stats, drops, len(frames), len(exp))
    return len(exp), drops


def check_decap(rep, cfg, pkts, out, out_ports, stats=None):
    """Fills rep; returns (frames checked, drops by reason)."""
    drops, exp = Counter(), []
    for i, pkt in enumerate(pkts):
        f, port, why = ref.decap(pkt, cfg)
        if f is None:
            drops[why] += 1
        else:
            exp.append((i, f, port))
    if len(out) != len(exp):
        rep.fail("count", f"{len(out)} frames out, reference {len(exp)}")
    for j, ((i, want, port), got) in enumerate(zip(exp, out)):
        if want != got:
            rep.fail("bytes", f"frame {j + 1} (input packet {i + 1}): differs from the reference "
                     f"({len(got)} vs {len(want)} bytes)")
        if out_ports is not None and j < len(out_ports) and out_ports[j] != port:
            rep.fail("port", f"frame {j + 1} (input packet {i + 1}): port {out_ports[j]}, reference {port}")
    _check_stats(rep, stats, drops, len(pkts), len(exp))
    return len(exp), drops


def check_roundtrip(rep, cfg, frames, ports, back, back_ports):
    """Fills rep; returns the number of frames that must come back."""
    # what decapsulation of the encapsulation accepts (all encapsulated frames unless a port's pkey is a
    # limited member: two limited members cannot talk, IBTA partition rules)
    kept = [(f, p) for f, p in zip(frames, ports)
            if ref.encap(f, p, cfg)[0] is not None and ref.decap(ref.encap(f, p, cfg)[0], cfg)[0] is not None]
    if len(back) != len(kept):
        rep.fail("count", f"{len(back)} frames back, {len(kept)} encapsulated")
    for j, ((f, p), g) in enumerate(zip(kept, back)):
        if f != g:
            rep.fail("bytes", f"frame {j + 1}: not returned byte for byte ({len(g)} vs {len(f)} bytes)")
        if back_ports is not None and back_ports[j] != p:
            rep.fail("port", f"frame {j + 1}: came back on port {back_ports[j]}, sent from port {p}")
    return len(kept)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["encap", "decap", "roundtrip"])
    ap.add_argument("--config", required=True)
    ap.add_argument("--in", dest="inp", required=True, help="encap/roundtrip: Ethernet pcap; decap: 16B pcap")
    ap.add_argument("--ports", help="encap/roundtrip: the input frames' ports (default all 0)")
    ap.add_argument("--out", required=True, help="nettwin's output (roundtrip: the decapsulated frames)")
    ap.add_argument("--ports-out", help="decap/roundtrip: nettwin's --ports-out file")
    ap.add_argument("--stats", help="nettwin's --stats JSON (encap/decap)")
    ap.add_argument("--show", type=int, default=30, help="mismatches printed per check (default 30)")
    a = ap.parse_args(argv)
    rep = Report("vnic_check", a.show)
    try:
        cfg = ref.load_config(a.config)
        if a.mode == "decap":
            pkts = read_pcap(a.inp, LINK_USER0)
            out = read_pcap(a.out, LINK_ETH)
            op = read_ports(a.ports_out, len(out)) if a.ports_out else None
            n, drops = check_decap(rep, cfg, pkts, out, op, a.stats)
        else:
            frames = read_pcap(a.inp, LINK_ETH)
            ports = read_ports(a.ports, len(frames))
            if a.mode == "encap":
                out = read_pcap(a.out, LINK_USER0)
                n, drops = check_encap(rep, cfg, frames, ports, out, a.stats)
            else:
                back = read_pcap(a.out, LINK_ETH)
                bp = read_ports(a.ports_out, len(back)) if a.ports_out else None
                n = check_roundtrip(rep, cfg, frames, ports, back, bp)
                drops = {}
    except (ref.InputError, OSError, ValueError) as e:
        return rep.unusable(e)
    d = ", ".join(f"{k}={v}" for k, v in sorted(drops.items()))
    summary = f"{a.mode}: {n} packets checked{', drops ' + d if d else ''}"
    return rep.finish(summary, summary)


if __name__ == "__main__":
    raise SystemExit(main())
