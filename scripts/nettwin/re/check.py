#!/usr/bin/python3
"""Independent checker of the EJFAT reassembly engine (docs/re.md), written from the docs, not the model.

  /usr/bin/python3 scripts/re_check.py --dir D --events EVENTS.pcap --report REPORT.json [--config RE.txt]

Replays D/segments.pcap under D/re.txt with its own implementation of the documented rules and requires
the same counters, drops by reason, completed events (in order) and incomplete events as the report; then
that every output frame is byte-identical to the event the source sent (D/source.json, from re_gen.py),
that no source event was completed twice, and that every source event is completed, reported incomplete,
or had every segment dropped.  Exit 0 ok, 1 check failed, 2 bad input.
"""
import argparse
import json
import os
import re
import sys

from nettwin.common.pcap import InputError, read_pcap

DROPS = ["runt", "not_ip", "truncated", "not_udp", "empty", "too_big", "inconsistent", "duplicate", "overlap",
         "no_context", "no_range", "bad_version", "lb_header"]


def _pkg_param(name):
    """A parameter of rtl/common/nt_pkg.sv, the one place the design's sizes are defined."""
    pkg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "rtl", "common", "nt_pkg.sv")
    with open(pkg) as f:
        m = re.search(r"localparam int unsigned %s = (\d+);" % name, f.read())
    return int(m.group(1))


RANGES = _pkg_param("ReRanges")  # disjoint received byte ranges a context can track


class Fail(Exception):
    pass


def parse(fr, cfg):
    """(reason, None) or (None, (event_num, data_id, offset, data, last, event_end)): `last` says the segment
    declares the event's end `event_end` (evio6: the Last flag, offset + length; e2sar: every segment, the
    header's buffer_length).  evio6's event_num is the UDP source port."""
    if len(fr) < 14:
        return "runt", None
    et = int.from_bytes(fr[12:14], "big")
    if et == 0x0800:
        if len(fr) < 34:
            return "truncated", None
        ihl = (fr[14] & 0xF) * 4
        if fr[14] >> 4 != 4 or ihl < 20:
            return "not_ip", None
        if fr[23] != 17 or int.from_bytes(fr[20:22], "big") & 0x3FFF:
            return "not_udp", None
        l4 = 14 + ihl
    elif et == 0x86DD:
        if len(fr) < 54:
            return "truncated", None
        if fr[14] >> 4 != 6:
            return "not_ip", None
        if fr[20] != 17:
            return "not_udp", None
        l4 = 54
    else:
        return "not_ip", None
    if len(fr) < l4 + 8:
        return "truncated", None
    ulen = int.from_bytes(fr[l4 + 4:l4 + 6], "big")
    if ulen < 8 or l4 + ulen > len(fr):
        return "truncated", None
    payload = fr[l4 + 8:l4 + ulen]
    if payload[:2] == b"LB":   # an LB header the LB kept: 'LB', version 1 (12 bytes), 2 or 3 (16 bytes)
        size = {1: 12, 2: 16, 3: 16}.get(payload[2] if len(payload) > 2 else None)
        if cfg["lb_header"] == "drop" or size is None:
            return "lb_header", None
        payload = payload[size:]
    e2sar = cfg["header"] == "e2sar"
    if len(payload) < (20 if e2sar else 8):
        return "truncated", None
    if e2sar:
        if payload[0] != cfg["version"] << 4 or payload[1] != 0:
            return "bad_version", None
        data = payload[20:]
        return None, (int.from_bytes(payload[12:20], "big"), int.from_bytes(payload[2:4], "big"),
                      int.from_bytes(payload[4:8], "big"), data, True, int.from_bytes(payload[8:12], "big"))
    if payload[0] >> 4 != cfg["version"]:
        return "bad_version", None
    off = int.from_bytes(payload[4:8], "big")
    data = payload[8:]
    return None, (int.from_bytes(fr[l4:l4 + 2], "big"), int.from_bytes(payload[2:4], "big"), off, data,
                  bool(payload[1] & 1), off + len(data))


def reference(frames, cfg):
    ctx = {}   # key -> dict(first, segs, bytes={pos: byte}, end, done)
    st = {"segments_in": 0, "segments_used": 0, "drops": {d: 0 for d in DROPS}}
    events, incomplete, dropped_keys = [], [], {}
    timeout = round(cfg["timeout_us"] * 1000)   # nanoseconds, as the pcap's times below

    def expire(now):
        gone = sorted((c["first"], k) for k, c in ctx.items() if now - c["first"] > timeout)
        for _, k in gone:
            c = ctx.pop(k)
            if not c["done"]:
                incomplete.append((k, len(c["bytes"]), c["segs"], c["end"], False))

    for fr, ts_s in frames:
        ts = round(ts_s * 1e9)
        st["segments_in"] += 1
        expire(ts)
        reason, seg = parse(fr, cfg)
        key = None
        if reason is None:
            event_num, data_id, off, data, last, ev_end = seg
            key = (event_num, data_id)
            end = off + len(data)
            c = ctx.get(key)
            if not data and not (last and ev_end == end):
                reason = "empty"
            elif max(end, ev_end) > cfg["buffer_bytes"]:
                reason = "too_big"
            elif end > ev_end:
                reason = "inconsistent"   # e2sar: data past the event's length
            elif c is not None:
                have = set(range(off, end)) & c["bytes"].keys()
                if c["done"]:
                    reason = "duplicate"
                elif last and ((c["end"] is not None and ev_end != c["end"]) or
                               (c["end"] is None and max(c["bytes"], default=-1) >= ev_end)):
                    reason = "inconsistent"
                elif c["end"] is not None and end > c["end"]:
                    reason = "inconsistent"
                elif (data and len(have) == len(data)) or (not data and c["end"] is not None):
                    reason = "duplicate"
                elif have:
                    reason = "overlap"
                elif data and off - 1 not in c["bytes"] and end not in c["bytes"] and \
                        sum(1 for p in c["bytes"] if p - 1 not in c["bytes"]) >= RANGES:
                    reason = "no_range"
            elif len(ctx) >= cfg["contexts"]:
                reason = "no_context"
        if reason:
            st["drops"][reason] += 1
            if key is not None:
                dropped_keys[key] = dropped_keys.get(key, 0) + 1
            continue
        st["segments_used"] += 1
        c = ctx.setdefault(key, {"first": ts, "segs": 0, "bytes": {}, "end": None, "done": False})
        c["segs"] += 1
        for i, b in enumerate(data):
            c["bytes"][off + i] = b
        if last:
            c["end"] = ev_end
        if c["end"] is not None and len(c["bytes"]) == c["end"]:
            events.append((key, bytes(c["bytes"][i] for i in range(c["end"])), c["segs"], c["first"]))
            c["done"] = True
    for first, k in sorted((c["first"], k) for k, c in ctx.items() if not c["done"]):
        c = ctx[k]
        incomplete.append((k, len(c["bytes"]), c["segs"], c["end"], True))
    st["events_completed"] = len(events)
    st["events_timed_out"] = len(incomplete)
    return st, events, incomplete, dropped_keys


def twice_in_hold(seen, key, first, timeout_ns, timeout_us):
    """docs/re.md "Completion": a completed event's context is held until timeout_us after its first segment,
    so a late copy arriving after that opens a new context and may complete the event again. A second
    completion is right only then: the first segment of its context arrived after the earlier context's hold.
    `seen` maps a key to the first-segment arrival (ns) of the context that last completed it."""
    if key in seen and first - seen[key] <= timeout_ns:
        raise Fail("event (event %d, data_id %d) completed twice within the %g us hold of its first completion"
                   % (*key, timeout_us))
    seen[key] = first


def read_cfg(path):
    cfg = {"contexts": 16, "buffer_bytes": _pkg_param("ReBufBytes"), "timeout_us": 1000.0, "header": "evio6",
           "version": None, "lb_header": "skip"}
    with open(path) as f:
        for ln in f:
            w = ln.split("#")[0].split()
            if w:
                cfg[w[0]] = (float(w[1]) if w[0] == "timeout_us" else
                             w[1] if w[0] in ("header", "lb_header") else int(w[1]))
    if cfg["version"] is None:   # docs/re.md: evio6 0 (the spec's generator, udplb's test), e2sar 1 (rehdrVersion)
        cfg["version"] = 1 if cfg["header"] == "e2sar" else 0
    return cfg


def frame_header(fr, cfg):
    """(event_num, data_id, length, header bytes) of an output event frame (docs/re.md "Output")."""
    if cfg["header"] == "e2sar":
        return (int.from_bytes(fr[14:22], "big"), int.from_bytes(fr[22:24], "big"),
                int.from_bytes(fr[24:28], "big"), 32)
    return int.from_bytes(fr[14:16], "big"), int.from_bytes(fr[16:18], "big"), int.from_bytes(fr[18:22], "big"), 26


def source_key(e):
    """The key the RE gives a source event: (event_num, data_id) with E2SAR's header, (tick[15:0], data_id)
    with the seed's."""
    return (e["event_num"], e["data_id"]) if "event_num" in e else (e["tick"] & 0xFFFF, e["data_id"])


def check(d, events_path, report_path, config_path=None):
    frames = read_pcap(os.path.join(d, "segments.pcap"))
    cfg = read_cfg(config_path or os.path.join(d, "re.txt"))
    with open(report_path) as f:
        rep = json.load(f)
    with open(os.path.join(d, "source.json")) as f:
        source = json.load(f)["events"]
    st, events, incomplete, dropped_keys = reference(frames, cfg)
    for k in ("segments_in", "segments_used", "events_completed", "events_timed_out", "drops"):
        if rep[k] != st[k]:
            raise Fail("%s: report %s, reference %s" % (k, rep[k], st[k]))
    if rep["segments_in"] != rep["segments_used"] + sum(rep["drops"].values()):
        raise Fail("segments in != used + dropped")
    got = [((e["event_num"], e["data_id"]), e["length"], e["segments"]) for e in rep["events"]]
    want = [(k, len(b), n) for k, b, n, _ in events]
    if got != want:
        raise Fail("completed events differ from the reference: first difference at %d" %
                   next(i for i in range(len(got) + 1) if i >= min(len(got), len(want)) or got[i] != want[i]))
    got_inc = [((e["event_num"], e["data_id"]), e["received_bytes"], e["segments"], e["length"], e["at_end_of_input"])
               for e in rep["incomplete"]]
    if got_inc != [(k, r, s, e, a) for k, r, s, e, a in incomplete]:
        raise Fail("incomplete events differ from the reference")
    outs = read_pcap(events_path)
    if len(outs) != len(events):
        raise Fail("%d event frames, %d events" % (len(outs), len(events)))
    src = {source_key(e): bytes.fromhex(e["data"]) for e in source}
    seen = {}
    timeout = round(cfg["timeout_us"] * 1000)
    for i, ((fr, _), (key, data, _, first)) in enumerate(zip(outs, events)):
        if int.from_bytes(fr[12:14], "big") != 0x88B5:
            raise Fail("event frame %d: EtherType is not 0x88B5" % i)
        ev, did, length, hb = frame_header(fr, cfg)
        hk = (ev, did)
        if hk != key or length != len(fr) - hb:
            raise Fail("event frame %d: header %s length %d" % (i, hk, length))
        if key not in src:
            raise Fail("event %d (event %d, data_id %d) is not one the source sent here" % (i, *key))
        if fr[hb:] != src[key]:
            raise Fail("event %d (event %d, data_id %d) is not byte-identical to the source's event" % (i, *key))
        if fr[hb:] != data:
            raise Fail("event %d differs from the reference's reassembly" % i)
        twice_in_hold(seen, key, first, timeout, cfg["timeout_us"])
    inc_keys = {k for k, *_ in incomplete}
    for e in source:
        key = source_key(e)
        if key not in seen and key not in inc_keys and not dropped_keys.get(key):
            raise Fail("source event (%s, data_id %d) neither completed, reported incomplete nor dropped"
                       % ("event_num %d" % e["event_num"] if "event_num" in e else "tick %d" % e["tick"],
                          e["data_id"]))
    return st


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--config", help="the configuration the run used (default: D/re.txt)")
    a = ap.parse_args(argv)
    try:
        st = check(a.dir, a.events, a.report, a.config)
    except Fail as e:
        print("re_check: FAIL: %s" % e)
        return 1
    except (InputError, OSError, ValueError, KeyError) as e:
        print("re_check: error: %s" % e, file=sys.stderr)
        return 2
    print("re_check: ok: %d segments, %d events completed byte-identical to the source, %d reported incomplete, "
          "drops %s" % (st["segments_in"], st["events_completed"], st["events_timed_out"],
                        {k: v for k, v in st["drops"].items() if v}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
