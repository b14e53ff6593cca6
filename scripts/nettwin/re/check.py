#!/usr/bin/python3
"""Independent checker of the EJFAT reassembly engine (docs/re.md), written from the docs, not the model.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.re.check --dir D --events EVENTS.pcap --report REPORT.json [--config RE.txt]
                                       [--host-data EVENTS.bin]

Replays D/segments.pcap under D/re.txt with its own implementation of the documented rules and requires
the same counters, drops by reason, completed events (in order) and incomplete events as the report; then
that every output frame is byte-identical to the event the source sent (D/source.json, from nettwin.re.gen),
that no source event was completed twice, and that every source event is completed, reported incomplete,
or had every segment dropped.  With `buffer host` EVENTS.pcap holds one completion record per event (the
output header, then the 8-byte host address of the event's slot) and the event's bytes are read from
EVENTS.bin (what `nettwin re --host-data` wrote: each event's bytes as the host found them at the record's
address, in record order); the address must be host_base + k x slot bytes (buffer_bytes rounded up to 4 KiB)
for a context k < contexts.  Prints nettwin.common.report's report (`re_check: PASS: ...`, or the first failed
check's MISMATCH line and `re_check: FAIL: ...`): exit 0 ok, 1 check failed, 2 unusable input.
"""
import argparse
import json
import os
import re
import sys

from nettwin.common import blockdesc
from nettwin.common.paths import ROOT_DIR
from nettwin.common.pcap import InputError, read_pcap
from nettwin.common.report import Fail, Report  # Fail: the checker stops at the first failed check

# The drop reasons in reason-code order and the report's counter keys: the block descriptor's (rtl/re/data/re.json).
DESCRIPTOR = blockdesc.load("re")
DROPS = blockdesc.drop_reasons(DESCRIPTOR)
COUNTER_KEYS = ("segments_in", "segments_used", "events_completed", "events_timed_out", "drops")
assert set(COUNTER_KEYS) <= set(blockdesc.stats_keys(DESCRIPTOR)), "check.py reads a key the block lacks"


def _pkg_param(name):
    """A parameter of rtl/common/nt_pkg.sv, the one place the design's sizes are defined (an installed package
    finds the repository through NETTWIN_ROOT, nettwin/common/paths.py)."""
    pkg = os.path.join(ROOT_DIR, "rtl", "common", "nt_pkg.sv")
    if not os.path.isfile(pkg):
        raise ImportError("nettwin.re.check reads the design's sizes from %s: not found (installed package: set "
                          "NETTWIN_ROOT to the repository)" % pkg)
    with open(pkg) as f:
        m = re.search(r"localparam int unsigned %s = (\d+);" % name, f.read())
    return int(m.group(1))


RANGES = _pkg_param("ReRanges")  # disjoint received byte ranges a context can track
FIFO_FRAME_BYTES = _pkg_param("ReSegBeats") * 64  # `buffer host`: frame bytes the input FIFO keeps




def parse(fr, cfg):
    """(reason, None) or (None, (event_num, data_id, offset, data, last, event_end)); see parse_at."""
    reason, seg, _ = parse_at(fr, cfg)
    return reason, seg


def parse_at(fr, cfg):
    """(reason, None, None) or (None, (event_num, data_id, offset, data, last, event_end), data_at): `last` says the segment
    declares the event's end `event_end` (evio6: the Last flag, offset + length; e2sar: every segment, the
    header's buffer_length).  evio6's event_num is the UDP source port.  data_at: the frame byte where the data
    starts (`buffer host` bounds it by the input FIFO's beats per frame)."""
    if len(fr) < 14:
        return "runt", None, None
    et = int.from_bytes(fr[12:14], "big")
    if et == 0x0800:
        if len(fr) < 34:
            return "truncated", None, None
        ihl = (fr[14] & 0xF) * 4
        if fr[14] >> 4 != 4 or ihl < 20:
            return "not_ip", None, None
        if fr[23] != 17 or int.from_bytes(fr[20:22], "big") & 0x3FFF:
            return "not_udp", None, None
        l4 = 14 + ihl
    elif et == 0x86DD:
        if len(fr) < 54:
            return "truncated", None, None
        if fr[14] >> 4 != 6:
            return "not_ip", None, None
        if fr[20] != 17:
            return "not_udp", None, None
        l4 = 54
    else:
        return "not_ip", None, None
    if len(fr) < l4 + 8:
        return "truncated", None, None
    ulen = int.from_bytes(fr[l4 + 4:l4 + 6], "big")
    if ulen < 8 or l4 + ulen > len(fr):
        return "truncated", None, None
    payload = fr[l4 + 8:l4 + ulen]
    data_at = l4 + 8   # frame byte where the segment's data starts (`buffer host`: the FIFO bound)
    if payload[:2] == b"LB":   # an LB header the LB kept: 'LB', version 1 (12 bytes), 2 or 3 (16 bytes)
        size = {1: 12, 2: 16, 3: 16}.get(payload[2] if len(payload) > 2 else None)
        if cfg["lb_header"] == "drop" or size is None:
            return "lb_header", None, None
        payload = payload[size:]
        data_at += size
    e2sar = cfg["header"] == "e2sar"
    if len(payload) < (20 if e2sar else 8):
        return "truncated", None, None
    if e2sar:
        if payload[0] != cfg["version"] << 4 or payload[1] != 0:
            return "bad_version", None, None
        data = payload[20:]
        return None, (int.from_bytes(payload[12:20], "big"), int.from_bytes(payload[2:4], "big"),
                      int.from_bytes(payload[4:8], "big"), data, True, int.from_bytes(payload[8:12], "big")), data_at + 20
    if payload[0] >> 4 != cfg["version"]:
        return "bad_version", None, None
    off = int.from_bytes(payload[4:8], "big")
    data = payload[8:]
    return None, (int.from_bytes(fr[l4:l4 + 2], "big"), int.from_bytes(payload[2:4], "big"), off, data,
                  bool(payload[1] & 1), off + len(data)), data_at + 8


def covered(ranges, lo, hi):
    """Bytes of [lo, hi) already received: `ranges` are the context's disjoint received [begin, end)."""
    return sum(max(0, min(e, hi) - max(b, lo)) for b, e in ranges)


def add_range(ranges, lo, hi):
    """Adds [lo, hi) (disjoint from every range) and merges ranges that touch it."""
    for r in [r for r in ranges if r[1] == lo or r[0] == hi]:
        ranges.remove(r)
        lo, hi = min(lo, r[0]), max(hi, r[1])
    ranges.append((lo, hi))


def reference(frames, cfg):
    # key -> dict(first, segs, buf (bytearray), ranges (disjoint received [begin, end)), recv, end, done)
    ctx = {}
    st = {"segments_in": 0, "segments_used": 0, "drops": {d: 0 for d in DROPS}, "data_bytes_used": 0}
    events, incomplete, dropped_keys = [], [], {}
    timeout = round(cfg["timeout_us"] * 1000)   # nanoseconds, as the pcap's times below

    def expire(now):
        gone = sorted((c["first"], k) for k, c in ctx.items() if now - c["first"] > timeout)
        for _, k in gone:
            c = ctx.pop(k)
            if not c["done"]:
                incomplete.append((k, c["recv"], c["segs"], c["end"], False))

    for fr, ts_s in frames:
        ts = round(ts_s * 1e9)
        st["segments_in"] += 1
        expire(ts)
        reason, seg, data_at = parse_at(fr, cfg)
        key = None
        if reason is None:
            event_num, data_id, off, data, last, ev_end = seg
            key = (event_num, data_id)
            end = off + len(data)
            c = ctx.get(key)
            if not data and not (last and ev_end == end):
                reason = "empty"
            elif max(end, ev_end) > cfg["buffer_bytes"] or \
                    (cfg["buffer"] == "host" and data_at + len(data) > FIFO_FRAME_BYTES):
                reason = "too_big"
            elif end > ev_end:
                reason = "inconsistent"   # e2sar: data past the event's length
            elif c is not None:
                have = covered(c["ranges"], off, end)
                if c["done"]:
                    reason = "duplicate"
                elif last and ((c["end"] is not None and ev_end != c["end"]) or
                               (c["end"] is None and max((e for _, e in c["ranges"]), default=0) > ev_end)):
                    reason = "inconsistent"
                elif c["end"] is not None and end > c["end"]:
                    reason = "inconsistent"
                elif (data and have == len(data)) or (not data and c["end"] is not None):
                    reason = "duplicate"
                elif have:
                    reason = "overlap"
                elif data and all(e != off and b != end for b, e in c["ranges"]) and len(c["ranges"]) >= RANGES:
                    reason = "no_range"
            elif len(ctx) >= cfg["contexts"]:
                reason = "no_context"
        if reason:
            st["drops"][reason] += 1
            if key is not None:
                dropped_keys[key] = dropped_keys.get(key, 0) + 1
            continue
        st["segments_used"] += 1
        st["data_bytes_used"] += len(data)
        c = ctx.setdefault(key, {"first": ts, "segs": 0, "buf": bytearray(), "ranges": [], "recv": 0, "end": None,
                                 "done": False})
        c["segs"] += 1
        if data:
            if len(c["buf"]) < end:
                c["buf"].extend(bytes(end - len(c["buf"])))
            c["buf"][off:end] = data
            add_range(c["ranges"], off, end)
            c["recv"] += len(data)
        if last:
            c["end"] = ev_end
        if c["end"] is not None and c["recv"] == c["end"]:
            events.append((key, bytes(c["buf"][:c["end"]]), c["segs"], c["first"]))
            c["done"] = True
            c["buf"], c["ranges"] = bytearray(), []
    for first, k in sorted((c["first"], k) for k, c in ctx.items() if not c["done"]):
        c = ctx[k]
        incomplete.append((k, c["recv"], c["segs"], c["end"], True))
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
                   % (*key, timeout_us), "events")
    seen[key] = first


def read_cfg(path):
    cfg = {"contexts": 16, "buffer_bytes": _pkg_param("ReBufBytes"), "timeout_us": 1000.0, "header": "evio6",
           "version": None, "lb_header": "skip", "buffer": "onchip", "host_base": 1 << 32}
    with open(path) as f:
        for ln in f:
            w = ln.split("#")[0].split()
            if w:
                cfg[w[0]] = (float(w[1]) if w[0] == "timeout_us" else
                             w[1] if w[0] in ("header", "lb_header", "buffer") else int(w[1], 0))
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


def host_events(outs, cfg, host_data_path):
    """`buffer host`: each completion record with its event's bytes from the host-data file, as the frames the
    on-chip engine sends (header + bytes), after checking the record's size and slot address."""
    slot = (cfg["buffer_bytes"] + 4095) // 4096 * 4096
    hb = 32 if cfg["header"] == "e2sar" else 26
    frames = []
    with open(host_data_path, "rb") as f:
        for i, (rec, ts) in enumerate(outs):
            if len(rec) != hb + 8:
                raise Fail("completion record %d: %d bytes, not %d" % (i, len(rec), hb + 8), "host")
            length = frame_header(rec, cfg)[2]
            addr = int.from_bytes(rec[hb:hb + 8], "big")
            k, r = divmod(addr - cfg["host_base"], slot)
            if r or not 0 <= k < cfg["contexts"]:
                raise Fail("completion record %d: address 0x%x is no context's slot" % (i, addr), "host")
            data = f.read(length)
            if len(data) != length:
                raise Fail("host data ends inside event %d" % i, "host")
            frames.append((rec[:hb] + data, ts))
        if f.read(1):
            raise Fail("host data longer than the records' events", "host")
    return frames


def check(d, events_path, report_path, config_path=None, host_data_path=None):
    frames = read_pcap(os.path.join(d, "segments.pcap"))
    cfg = read_cfg(config_path or os.path.join(d, "re.txt"))
    with open(report_path) as f:
        rep = json.load(f)
    with open(os.path.join(d, "source.json")) as f:
        source = json.load(f)["events"]
    st, events, incomplete, dropped_keys = reference(frames, cfg)
    for k in COUNTER_KEYS:
        if rep[k] != st[k]:
            raise Fail("%s: report %s, reference %s" % (k, rep[k], st[k]), "counters")
    if rep["segments_in"] != rep["segments_used"] + sum(rep["drops"].values()):
        raise Fail("segments in != used + dropped", "counters")
    got = [((e["event_num"], e["data_id"]), e["length"], e["segments"]) for e in rep["events"]]
    want = [(k, len(b), n) for k, b, n, _ in events]
    if got != want:
        raise Fail("completed events differ from the reference: first difference at %d" %
                   next(i for i in range(len(got) + 1) if i >= min(len(got), len(want)) or got[i] != want[i]),
                   "events")
    got_inc = [((e["event_num"], e["data_id"]), e["received_bytes"], e["segments"], e["length"], e["at_end_of_input"])
               for e in rep["incomplete"]]
    if got_inc != [(k, r, s, e, a) for k, r, s, e, a in incomplete]:
        raise Fail("incomplete events differ from the reference", "incomplete")
    outs = read_pcap(events_path)
    if cfg["buffer"] == "host":
        if host_data_path is None:
            raise ValueError("buffer host: --host-data is required")
        outs = host_events(outs, cfg, host_data_path)
        # each used segment's data bytes written once, a dropped segment's never (docs/re-microarchitecture.md)
        if rep.get("dma_write_bytes") != st["data_bytes_used"]:
            raise Fail("DMA wrote %s bytes, the segments used carry %d" % (rep.get("dma_write_bytes"),
                                                                          st["data_bytes_used"]), "host")
    if len(outs) != len(events):
        raise Fail("%d event frames, %d events" % (len(outs), len(events)), "frames")
    src = {source_key(e): bytes.fromhex(e["data"]) for e in source}
    seen = {}
    timeout = round(cfg["timeout_us"] * 1000)
    for i, ((fr, _), (key, data, _, first)) in enumerate(zip(outs, events)):
        if int.from_bytes(fr[12:14], "big") != 0x88B5:
            raise Fail("event frame %d: EtherType is not 0x88B5" % i, "frames")
        ev, did, length, hb = frame_header(fr, cfg)
        hk = (ev, did)
        if hk != key or length != len(fr) - hb:
            raise Fail("event frame %d: header %s length %d" % (i, hk, length), "frames")
        if key not in src:
            raise Fail("event %d (event %d, data_id %d) is not one the source sent here" % (i, *key), "source")
        if fr[hb:] != src[key]:
            raise Fail("event %d (event %d, data_id %d) is not byte-identical to the source's event" % (i, *key),
                       "source")
        if fr[hb:] != data:
            raise Fail("event %d differs from the reference's reassembly" % i, "events")
        twice_in_hold(seen, key, first, timeout, cfg["timeout_us"])
    inc_keys = {k for k, *_ in incomplete}
    for e in source:
        key = source_key(e)
        if key not in seen and key not in inc_keys and not dropped_keys.get(key):
            raise Fail("source event (%s, data_id %d) neither completed, reported incomplete nor dropped"
                       % ("event_num %d" % e["event_num"] if "event_num" in e else "tick %d" % e["tick"],
                          e["data_id"]), "source")
    return st


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--config", help="the configuration the run used (default: D/re.txt)")
    ap.add_argument("--host-data", help="`buffer host`: the events' bytes (nettwin re --host-data)")
    a = ap.parse_args(argv)
    rep = Report("re_check")
    try:
        st = check(a.dir, a.events, a.report, a.config, a.host_data)
    except Fail as e:
        return rep.stopped(e)
    except (InputError, OSError, ValueError, KeyError) as e:
        return rep.unusable(e)
    return rep.finish("%d segments, %d events completed byte-identical to the source, %d reported incomplete, "
                      "drops %s" % (st["segments_in"], st["events_completed"], st["events_timed_out"],
                                    {k: v for k, v in st["drops"].items() if v}))


if __name__ == "__main__":
    sys.exit(main())
