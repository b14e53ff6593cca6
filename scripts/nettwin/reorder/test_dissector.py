#!/usr/bin/python3
"""Check the ConWeave Lua dissector (scripts/dissectors/conweave.lua) under tshark.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reorder.test_dissector PCAP... [--lua FILE] [--nic-view] [--malformed]

For each PCAP (ConWeave fabric frames, e.g. nettwin.reorder.gen's arrivals.pcap, or control packets, e.g. the
reference's / the block's ctrl.pcap) runs

  tshark -X lua_script:conweave.lua -o conweave.enabled:TRUE -r PCAP -T fields -E separator=/t -e ...

and compares every frame's conweave.* fields and Info column with the raw bytes (read with common.pcap,
decoded with reorder.layers.parse / decode_cw):
  * a frame to UDP port 4791 whose IP and UDP lengths agree and fit the frame must show the
    dissector: with >= 12 UDP payload bytes conweave.bth.opcode / dqpn / psn / ackreq, conweave.path_id,
    op, epoch, rerouted, tail; with >= 16 also conweave.tx_tstamp, tail_tx_tstamp; with >= 20 also
    conweave.icrc (last 4 bytes of the IP datagram) and conweave.payload_len (bytes between the CW
    header and the ICRC); fields beyond what the packet holds must be absent and a packet shorter than
    20 bytes must carry the conweave.malformed expert info; Info "ConWeave <OP> ep <e>[ REROUTED][ TAIL]
    path <p> QP 0x<qp> PSN 0x<psn>";
  * frames not to port 4791 show no conweave fields; port-4791 frames whose lengths disagree are only
    required to decode without a Lua error (counted, not compared);
  * no "Lua Error" (the _ws.lua.error expert or the text) anywhere in tshark's output;
  * a second run WITHOUT -o conweave.enabled:TRUE shows no conweave field or protocol in any frame, and
    the port-4791 frames are still dissected by the built-in RoCEv2 ("infiniband") dissector.
--nic-view: the enabled run also sets conweave.nic_view:TRUE (the built-in dissector on the NIC view).
--malformed: also checks a synthetic pcap made from the first ConWeave frame of each address family in
the first PCAP: UDP payload cut to 0, 1, 11, 12, 15, 16, 19, 20 and 21 bytes (lengths and IPv4 checksum
fixed, Ethernet-padded to 60 bytes), CW opcodes 5..7, and one frame whose UDP length exceeds the IP
datagram; run with and without conweave.nic_view.
Exit 0 when all checks pass (an "ok:" line per run, then one PASS line with the frame counts), 1 on a mismatch (frame number and field), 2 on
unusable input (unreadable pcap, tshark or the Lua file missing).
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from nettwin.common.paths import DISSECTORS_DIR
from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.reorder.layers import (CW_NAME, FORMATS, P4, ROCE_PORT, SEED, decode_cw, fix_ipv4_checksum, get_format,
                                    parse, set_format)

LUA = os.path.join(DISSECTORS_DIR, "conweave.lua")
CW_FIELDS = ["conweave.bth.opcode", "conweave.bth.dqpn", "conweave.bth.psn", "conweave.bth.ackreq",
             "conweave.path_id", "conweave.op", "conweave.epoch", "conweave.rerouted", "conweave.tail",
             "conweave.tx_tstamp", "conweave.tail_tx_tstamp", "conweave.icrc", "conweave.payload_len"]
FIELDS = ["frame.number", "frame.protocols", "_ws.col.Info", "_ws.lua.error", "_ws.expert.message",
          "conweave.malformed"] + CW_FIELDS
MIN_BTH, MIN_CW, MIN_ICRC = 12, 16, 20


class Fail(Exception):
    pass


def udp_view(f):
    """(udp offset, sport, dport, UDP payload length, consistent) of an Ethernet / IPv4 / IPv6 UDP
    frame (no BTH needed), else None.  consistent: IPv4 IHL 5 and not a fragment, the IP datagram fits
    the frame and the UDP length equals the IP payload length."""
    if len(f) < 14:
        return None
    et = (f[12] << 8) | f[13]
    if et == 0x0800 and len(f) >= 34 and f[14] >> 4 == 4 and f[23] == 17:
        hl = (f[14] & 0xF) * 4
        udp = 14 + hl
        ip_end = 14 + ((f[16] << 8) | f[17])
        ok = hl == 20 and (int.from_bytes(f[20:22], "big") & 0x3FFF) == 0
    elif et == 0x86DD and len(f) >= 54 and f[14] >> 4 == 6 and f[20] == 17:
        udp = 54
        ip_end = 54 + ((f[18] << 8) | f[19])
        ok = True
    else:
        return None
    if len(f) < udp + 8:
        return None
    sport, dport, ulen = struct.unpack_from(">HHH", f, udp)
    ok = ok and ip_end <= len(f) and ulen >= 8 and udp + ulen == ip_end
    return udp, sport, dport, ulen - 8, ok


def info_text(f):
    h = parse(f)
    b8 = f[h.bth + 8]
    op, ep, rr = (b8 >> 4) & 7, (b8 >> 2) & 3, b8 & 2
    if get_format() == P4:
        cw = decode_cw(f)
        op, ep, rr = cw.op, cw.epoch, cw.rerouted
    s = "ConWeave %s ep %d" % (CW_NAME.get(op, "op%d" % op), ep)
    if rr:
        s += " REROUTED"
    if b8 & 1:
        s += " TAIL"
    return s + " path %d QP 0x%06x PSN 0x%06x" % (f[h.bth + 4], h.dqpn, h.psn)


def expected(f):
    """{field: int} the enabled dissector must show (absent fields must be empty), the Info text, and
    whether the malformed expert is due; None when the frame is not compared."""
    u = udp_view(f)
    if u is None or ROCE_PORT not in (u[1], u[2]) or not u[4] or u[3] == 0:
        return None        # (Wireshark's UDP dissector calls no sub-dissector for an empty payload)
    udp, _, _, n, _ = u
    exp, info = {}, None
    if n >= MIN_BTH:
        h = parse(f)
        b8 = f[h.bth + 8]
        exp.update({"conweave.bth.opcode": h.opcode, "conweave.bth.dqpn": h.dqpn, "conweave.bth.psn": h.psn,
                    "conweave.bth.ackreq": b8 >> 7, "conweave.path_id": f[h.bth + 4],
                    "conweave.op": (b8 >> 4) & 7, "conweave.epoch": (b8 >> 2) & 3,
                    "conweave.rerouted": (b8 >> 1) & 1, "conweave.tail": b8 & 1})
        info = info_text(f)
    if n >= MIN_CW:
        cw = decode_cw(f)          # the frame holds the whole IP datagram, so decode_cw sees the same bytes
        assert cw is not None
        exp.update({"conweave.path_id": cw.path_id, "conweave.op": cw.op, "conweave.epoch": cw.epoch,
                    "conweave.rerouted": cw.rerouted, "conweave.tail": cw.tail, "conweave.bth.ackreq": cw.ackreq,
                    "conweave.tx_tstamp": cw.tx_ts, "conweave.tail_tx_tstamp": cw.tail_tx_ts})
    if get_format() == P4 and (f[parse(f).bth + 8] >> 5) & 3 == 1:
        # conweave-p4 DATA: the UDP length does not count the CW header; the ICRC lies beyond it (not shown)
        if n >= MIN_CW:
            exp["conweave.payload_len"] = n - MIN_CW
        return exp, info, n < MIN_CW
    if n >= MIN_ICRC:
        end = parse(f).end
        exp["conweave.icrc"] = int.from_bytes(f[end - 4:end], "big")
        exp["conweave.payload_len"] = n - MIN_ICRC
    return exp, info, n < MIN_ICRC


def as_int(v):
    v = v.strip()
    if v in ("True", "False"):
        return int(v == "True")
    return int(v, 0)


def run_tshark(exe, lua, pcap, opts):
    cmd = [exe, "-X", f"lua_script:{lua}"] + [a for o in opts for a in ("-o", o)] + [
        "-r", pcap, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"]
    cmd += [a for x in FIELDS for a in ("-e", x)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout + p.stderr
    if "Lua" in p.stderr and ("rror" in p.stderr):
        raise Fail("tshark reports a Lua problem: " + next(x for x in p.stderr.splitlines() if "Lua" in x))
    if p.returncode != 0:
        raise InputError(f"tshark failed ({p.returncode}): {p.stderr.strip()[:300]}  command: {' '.join(cmd)}")
    rows = {}
    for line in p.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(FIELDS) - len(cols))
        rows[int(cols[0])] = dict(zip(FIELDS, cols))
    return rows, text


def check_file(exe, lua, pcap, nic_view=False, label=None):
    """Returns (errors, summary, (frames compared, frames))."""
    label = label or pcap
    frames = read_pcap(pcap)
    if not frames:
        raise InputError(f"{pcap}: no frames")
    errors = []
    opts = ["conweave.enabled:TRUE"] + (["conweave.nic_view:TRUE"] if nic_view else []) + \
        ([f"conweave.wire_format:{get_format()}"] if get_format() != SEED else [])
    on, text_on = run_tshark(exe, lua, pcap, opts)
    off, text_off = run_tshark(exe, lua, pcap, [])
    for name, text in (("enabled", text_on), ("default", text_off)):
        if "Lua Error" in text:
            errors.append(f"{name} run: tshark reports a Lua error: "
                          + next(x for x in text.splitlines() if "Lua Error" in x).strip()[:300])
    if len(on) != len(frames) or len(off) != len(frames):
        errors.append(f"tshark shows {len(on)} / {len(off)} frames (enabled / default), the pcap has {len(frames)}")
    checked = short = uncompared = roce = empty = 0
    for idx, (f, _) in enumerate(frames, start=1):
        r_on, r_off = on.get(idx, {}), off.get(idx, {})
        for r, name in ((r_on, "enabled"), (r_off, "default")):
            if r.get("_ws.lua.error") or "Lua Error" in r.get("_ws.expert.message", ""):
                errors.append(f"frame {idx}: Lua error ({name} run): {r.get('_ws.expert.message')[:200]}")
        # default: never hijacks RoCE
        protos_off = r_off.get("frame.protocols", "").split(":")
        if "conweave" in protos_off or any(r_off.get(k) for k in CW_FIELDS):
            errors.append(f"frame {idx}: conweave fields without -o conweave.enabled:TRUE "
                          f"(protocols {r_off.get('frame.protocols')})")
        u = udp_view(f)
        if u is not None and u[2] == ROCE_PORT and u[4] and u[3] > 0:
            roce += 1
            if "infiniband" not in protos_off:
                errors.append(f"frame {idx}: default run does not dissect it as RoCEv2 "
                              f"(protocols {r_off.get('frame.protocols')})")
        e = expected(f)
        if e is None:
            if u is not None and ROCE_PORT in (u[1], u[2]) and not u[4]:
                uncompared += 1      # lengths disagree: only "no Lua error" is required
            elif u is not None and ROCE_PORT in (u[1], u[2]) and u[3] == 0:
                empty += 1
                if any(r_on.get(k) for k in CW_FIELDS):
                    errors.append(f"frame {idx}: empty UDP payload but shows conweave fields")
            elif any(r_on.get(k) for k in CW_FIELDS):
                errors.append(f"frame {idx}: not a UDP port {ROCE_PORT} frame but shows conweave fields")
            continue
        exp, info, is_short = e
        if "conweave" not in r_on.get("frame.protocols", "").split(":"):
            errors.append(f"frame {idx}: not dissected as ConWeave (protocols {r_on.get('frame.protocols')})")
            continue
        for k in CW_FIELDS:
            got = r_on.get(k, "")
            if k not in exp:
                if got:
                    errors.append(f"frame {idx}: {k} shown ('{got}') but the packet is too short for it")
                continue
            try:
                gv = as_int(got) if got else None
            except ValueError:
                gv = None
            if gv != exp[k]:
                errors.append(f"frame {idx}: {k} expected {exp[k]} (0x{exp[k]:x}) got '{got}'")
        if info is not None and not r_on.get("_ws.col.Info", "").startswith(info):
            errors.append(f"frame {idx}: Info expected '{info}...' got '{r_on.get('_ws.col.Info')}'")
        has_mal = bool(r_on.get("conweave.malformed"))
        if has_mal != is_short:
            errors.append(f"frame {idx}: conweave.malformed expert {'missing' if is_short else 'unexpected'}"
                          f" ({udp_view(f)[3]} UDP payload bytes)")
        short += is_short
        checked += 1
    summary = (f"{label}: {checked} of {len(frames)} frames match reorder.layers field by field"
               + (f" ({short} short/malformed)" if short else "")
               + (f", {empty} with an empty UDP payload (not dissected by Wireshark)" if empty else "")
               + (f", {uncompared} length-inconsistent port-{ROCE_PORT} frames decoded without Lua error"
                  if uncompared else "")
               + f"; default run: no conweave in any frame, {roce} RoCEv2 frames left to the built-in dissector"
               + (" [nic_view]" if nic_view else ""))
    return errors, summary, (checked, len(frames))


def synthetic(frames):
    """Damaged variants of the first ConWeave frame of each address family."""
    out, seen = [], set()
    for f, _ in frames:
        h = parse(f)
        u = udp_view(f)
        if h is None or u is None or not u[4] or u[2] != ROCE_PORT or h.family in seen or u[3] < MIN_ICRC:
            continue
        seen.add(h.family)

        def cut(n, src=f):
            g = bytearray(src[:h.bth + n])
            dl = len(g) - 14 - (20 if h.family == 4 else 40)
            struct.pack_into(">H", g, 16 if h.family == 4 else 18, dl + (20 if h.family == 4 else 0))
            struct.pack_into(">H", g, h.udp + 4, n + 8)
            g += bytes(max(0, 60 - len(g)))          # Ethernet padding, outside the IP datagram
            return fix_ipv4_checksum(bytes(g))
        for n in (0, 1, 11, 12, 15, 16, 19, 20, 21):
            out.append(cut(n))
        for op in (5, 6, 7):
            g = bytearray(f)
            g[h.bth + 8] = (g[h.bth + 8] & 0x8F) | (op << 4) | 0x03
            out.append(bytes(g))
        g = bytearray(f)                              # UDP length beyond the IP datagram
        struct.pack_into(">H", g, h.udp + 4, struct.unpack_from(">H", g, h.udp + 4)[0] + 8)
        out.append(bytes(g))
    return [(g, 1.0 + i * 1e-6) for i, g in enumerate(out)]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Check scripts/dissectors/conweave.lua under tshark")
    ap.add_argument("pcap", nargs="+")
    ap.add_argument("--lua", default=LUA, help="the dissector (default: %(default)s)")
    ap.add_argument("--nic-view", action="store_true", help="enabled run also with conweave.nic_view:TRUE")
    ap.add_argument("--malformed", action="store_true",
                    help="also check truncated / undefined-opcode variants of the first PCAP's frames")
    ap.add_argument("--wire-format", default=SEED, choices=FORMATS,
                    help="the frames' wire format; runs tshark with -o conweave.wire_format:FORMAT")
    a = ap.parse_args(argv)
    set_format(a.wire_format)
    exe = shutil.which("tshark")
    try:
        if exe is None:
            raise InputError("tshark is not installed")
        if not os.path.isfile(a.lua):
            raise InputError(f"missing dissector {a.lua}")
        results = []
        for p in a.pcap:
            results.append(check_file(exe, a.lua, p, nic_view=a.nic_view))
        if a.malformed:
            syn = synthetic(read_pcap(a.pcap[0]))
            if not syn:
                raise InputError(f"{a.pcap[0]}: no complete ConWeave frame to build malformed variants from")
            with tempfile.TemporaryDirectory() as td:
                sp = os.path.join(td, "malformed.pcap")
                write_pcap(sp, syn)
                for nv in (False, True):
                    results.append(check_file(exe, a.lua, sp, nic_view=nv,
                                              label=f"{len(syn)} malformed variants"))
    except InputError as e:
        print(f"reorder_test_dissector: error: {e}", file=sys.stderr)
        return 2
    except Fail as e:
        print(f"MISMATCH: {e}")
        print("reorder_test_dissector: FAIL")
        return 1
    errors = [e for errs, _, _ in results for e in errs]
    if errors:
        for (errs, summ, _) in results:
            for e in errs[:10]:
                print(f"MISMATCH: {summ.split(':')[0]}: {e}")
        print(f"reorder_test_dissector: FAIL: {len(errors)} problems")
        return 1
    for _, summ, _ in results:
        print(f"  ok: {summ}")
    print(f"reorder_test_dissector: PASS: {sum(r[2][0] for r in results)} of {sum(r[2][1] for r in results)} frames "
          f"in {len(results)} runs match reorder.layers, no Lua error, default run leaves RoCEv2 alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
