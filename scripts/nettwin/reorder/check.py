#!/usr/bin/python3
"""Independent checker of the ConWeave reorder block's output (docs/reorder.md "What the
independent checker verifies"). It believes nothing the block reports about itself except what it can
recompute: every tolerance (missing frames, disorder, hold times) is justified from the traffic.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reorder.check --dir D --delivered DELIVERED.pcap --ctrl CONTROL.pcap
      --stats STATS.json [--backpressure P] [--ctrl-backpressure P] [--b2b] [--show N]

D is a nettwin.reorder.gen directory (reorder.txt, arrivals.pcap, originals.pcap, flows.json). --backpressure /
--ctrl-backpressure: the fractions given to `nettwin reorder` (they only widen the port-time bounds).
--b2b: the run offered the frames back to back (`nettwin reorder --back-to-back`), so its time no
longer matches the arrivals': order, hold and release timing and exact CLEAR counts are not checked
(conservation, exactly-once, bytes, ICRC, control packets and the drop rule still are).
Prints nettwin.common.report's report: exit 0 with `reorder_check: PASS: <summary>`; 1 on a mismatch (the first
of each check - delivered, control, clears, timing, stats - with flow, PSN, frame index and what differs, --show N
prints up to N per check, then `reorder_check: FAIL: ...`); 2 on unusable input (missing/unreadable files, bad
JSON).

Checks (nettwin/reorder/timing.py computes the hold windows: per reroute, from the first packet the documented rule
holds to its TAIL's arrival or the resume deadline, with an unbounded table and queue pool)
 delivered  every frame is a RoCEv2 frame with a valid ICRC (nettwin.rdma.layers.check_icrc), of a known
            flow (IP src, IP dst, dest QP), with a PSN the generator sent, byte-equal to that NIC
            frame (first differing byte and its field named), delivered once; per flow in PSN order
            except where a fallback is possible (below), and except an old-path packet that arrived at
            or after a reroute's resume deadline (timing.late_after_timeout): it may come after that
            reroute's own epoch only (docs/reorder.md "After a timeout"). A TAIL in its deadline's own
            microsecond races the timer (timing.tail_races): the block's CLEAR shows which won, and the
            window is checked as that outcome. A frame may be missing only as a buffer_full
            drop: it is one a hold window holds, while the held bytes of all windows could exceed
            buffer_bytes (64-byte cells of the NIC frame), and no more are missing than the stats
            count; stats claiming buffer_full drops the traffic cannot cause fail.
 fallback   fallback_unordered: a reroute whose window opened while `queues` other windows were open,
            or while each of its 4 candidate queues (4 ways of queues/4, way w offers w*queues/4 +
            (CRC-16/CCITT-FALSE(key) >> (4+3w)) mod queues/4) was a candidate of another open
            window (+20 us for draining); fallback_collision: flows whose flow-table entry (CRC-16
            mod `flows`) another flow used while both were live (flow_idle_us). Only those flows
            may be out of order, and only when the stats count such fallbacks.
 timing     (not --b2b) a packet no window holds leaves within the port bound of its arrival (its
            beats + 6 cycles + every beat the port sent meanwhile, + 1 us); a held packet leaves
            after its window closed: behind its TAIL within the port bound of the TAIL's arrival,
            or at or after the deadline and no later than the documented timer allows (the first cycle
            the block's clock reads the deadline + one round-robin scan of `queues` cycles, one more per
            packet of the flow that could make the scan skip the queue, + 3 cycles to the port, + the
            port's beats; no fixed slack: one cycle later fails); packets within 1 us of a window's
            edge (except the one that opened a timed-out window) and flows with a possible fallback
            are not timed.
 control    each frame: RoCEv2 with the CW header and nothing else (IP/UDP lengths exact), valid
            ICRC, IPv4 header checksum valid, MAC and IP addresses the swap of a flow's, TTL/hop
            limit 64, UDP ports = the flow's, CW opcode RTT_REPLY/CLEAR/NOTIFY, REROUTED = TAIL = 0.
            RTT_REPLY / NOTIFY: exactly one per RTT_REQUEST / CE-marked packet that arrived, matched
            by (flow, PSN), BTH and CW header equal to the triggering fabric packet's. CLEAR: BTH and
            CW header equal to the packet it mirrors with the reroute's epoch; exactly one per
            reroute, mirroring its TAIL (sent within the control port's bound of the TAIL's arrival
            when nothing was held, after the drain otherwise) or on a timeout the first held packet,
            at or after the deadline. --b2b: every CLEAR mirrors a TAIL (epoch + 1) or a packet of
            its own epoch, and every TAIL that arrived has a CLEAR.
 stats      required keys; packets_in = frames in arrivals.pcap, delivered / control_out = frames in
            the two pcaps, packets_in = delivered + sum(drops), held_now = 0, drops.malformed = 0
            (the generator sends no malformed frame).
"""
import argparse
import ipaddress
import json
import os
import sys

from nettwin.reorder.layers import (BTH_LEN, CW_CLEAR, CW_HDR_LEN, CW_NAME, CW_NOTIFY, CW_RTT_REPLY,
                       check_icrc, decode_cw, field_at, key_str, make_control, parse, read_config)
from nettwin.common import blockdesc
from nettwin.common.pcap import InputError, read_pcap
from nettwin.common.report import Report, unusable
from nettwin.reorder.timing import (CYCLE_US, OPEN_LATE_CYCLES, PortBound, cells, held_bytes_bound,
                       late_after_timeout, live_sharing, reference, tail_races, timer_release_ready)
from nettwin.rdma.layers import fix_ipv4_checksum, icrc

# The block's counters, their --stats keys and drop reasons come from its descriptor (docs/blockgen.md).
DESCRIPTOR = blockdesc.load("reorder")
DROP_REASONS = tuple(blockdesc.drop_reasons(DESCRIPTOR))
# The keys this checker reads (nettwin.reorder.ref's stats have these too), all of them the descriptor's.
STATS_KEYS = ("packets_in", "delivered", "control_out", "held_now", "released_by_tail",
              "released_by_timeout", "fallback_unordered", "fallback_collision", "drops",
              "peak_queues", "peak_buffer_bytes", "hold_us")
assert set(STATS_KEYS) <= set(blockdesc.stats_keys(DESCRIPTOR)) | {"hold_us"}, "check.py reads a key the block lacks"


def us(ts):
    return int(round(ts * 1e6))


def fus(ts):
    # Rounded to the nanosecond: 1045629 us read back as 1045628.9999999999 once put a TAIL that arrived in
    # its deadline's microsecond before the deadline (the block's clock is integer nanoseconds).
    return round(ts * 1e9) / 1000


def first_diff(exp, got):
    for i in range(min(len(exp), len(got))):
        if exp[i] != got[i]:
            return i
    return min(len(exp), len(got))


def crc16_ccitt_false(data):
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def flow_hash(key):
    """CRC-16/CCITT-FALSE of the flow key (docs/reorder.md "Per-flow state"): family, IP source, IP
    destination (16 bytes each, IPv4 in the first 4), destination QP (3 bytes)."""
    src, dst = ipaddress.ip_address(key[0]), ipaddress.ip_address(key[1])
    kb = bytes([1 if src.version == 6 else 0]) + src.packed.ljust(16, b"\0") + dst.packed.ljust(16, b"\0") \
        + key[2].to_bytes(3, "big")
    return crc16_ccitt_false(kb)


def candidate_queues(key, queues):
    """The 4 queues a flow may take (docs/reorder.md "Holding")."""
    h = flow_hash(key)
    qw = queues // 4
    return {w * qw + ((h >> (4 + 3 * w)) & (qw - 1)) for w in range(4)}


class Unusable(Exception):
    pass


def load_dir(d):
    try:
        with open(os.path.join(d, "flows.json")) as f:
            meta = json.load(f)
        conf = read_config(os.path.join(d, "reorder.txt"))
        orig = read_pcap(os.path.join(d, "originals.pcap"))
        arr = read_pcap(os.path.join(d, "arrivals.pcap"))
    except (OSError, ValueError, IndexError, InputError) as e:
        raise Unusable(f"{d}: {e}")
    for k in ("queues", "margin_us", "default_hold_us"):
        if k not in conf:
            raise Unusable(f"{d}/reorder.txt: no '{k}' line")
    return meta, conf, orig, arr


class Checker:
    def __init__(self, meta, conf, orig, arr, delivered, ctrl, stats, b2b=False, bp=0.0, cbp=0.0, report=None):
        self.meta, self.conf, self.orig, self.arr = meta, conf, orig, arr
        self.dl, self.ctrl, self.st = delivered, ctrl, stats
        self.b2b, self.bp, self.cbp = b2b, bp, cbp
        self.report = report or Report("reorder_check")  # nettwin.common.report: mismatches per check
        self.kind = "delivered"                          # the check the check_* method running fills
        self.flows = {}
        for fj in meta["flows"]:
            key = (fj["key"][0], fj["key"][1], fj["key"][2])
            fj["pos"] = {p: i for i, p in enumerate(fj["psns"])}
            self.flows[key] = fj
        self.arrival = {}       # (key, psn) -> (fabric, t_us integer)
        self.arr_t = {}         # (key, psn) -> t_us (float)
        per_flow = {k: [] for k in self.flows}
        self.first_last = {}
        for fab, ts in arr:
            h, cw = parse(fab), decode_cw(fab)
            if h is None or cw is None:
                raise Unusable("arrivals.pcap holds a non-ConWeave frame (not a nettwin.reorder.gen directory?)")
            key = (h.src, h.dst, h.dqpn)
            self.arrival[(key, h.psn)] = (fab, us(ts))
            self.arr_t[(key, h.psn)] = fus(ts)
            per_flow.setdefault(key, []).append((fus(ts), cw, h.psn, len(fab) - CW_HDR_LEN))
            fl = self.first_last.get(key)
            self.first_last[key] = (fus(ts) if fl is None else fl[0], fus(ts))
        self.t0 = fus(arr[0][1]) if arr else 0.0     # the block's clock starts at the first arrival
        self.windows = reference(conf, per_flow)
        # A TAIL in its deadline's microsecond races the timer: the CLEAR the block sent says which won,
        # and the window is then checked as that outcome (released by the TAIL: CLEAR mirrors the TAIL,
        # the held packets follow it, nothing is late), never as a mix of the two.
        races = tail_races(self.windows, per_flow)
        mirrored = self.clear_mirrors(ctrl)
        self.tail_won = {w for w, psn in races.items()
                         if (w[0], psn) in mirrored and mirrored[(w[0], psn)] == self.epoch_after(w)}
        if self.tail_won:
            self.windows = reference(conf, per_flow, frozenset(self.tail_won))
        self.per_flow = per_flow
        self.epoch_of = {(k, psn): cw.epoch for k, pk in per_flow.items() for _, cw, psn, _ in pk}
        self.late = late_after_timeout(self.windows, per_flow)
        self.held_in = {}       # (key, psn) -> its window
        for key, wins in self.windows.items():
            for w in wins:
                for psn, _, _ in w.held:
                    self.held_in[(key, psn)] = w
        limit = conf.get("buffer_bytes", 1 << 30) // 64
        self.over = [t for t, c in held_bytes_bound(self.windows) if c > limit]
        self.max_held = max([c for _, c in held_bytes_bound(self.windows)] or [0])

    def epoch_after(self, win_id):
        key, t_open = win_id
        return next(w.epoch for w in self.windows[key] if w.open == t_open)

    @staticmethod
    def clear_mirrors(ctrl):
        """{(flow key, mirrored PSN): epoch} of the CLEARs among the control frames (unchecked here)."""
        out = {}
        for fr, _ in ctrl:
            h, cw = parse(fr), decode_cw(fr)
            if h is not None and cw is not None and cw.op == CW_CLEAR:
                out[((h.dst, h.src, h.dqpn), h.psn)] = cw.epoch
        return out

    def fail(self, msg):
        self.report.fail(self.kind, msg)

    def may_drop(self, key, psn):
        """A buffer_full drop is possible: the packet is held while the held bytes could exceed the limit."""
        w = self.held_in.get((key, psn))
        return w is not None and any(w.open <= t <= w.close for t in self.over)

    # ------------------------------------------------------------------ tolerated disorder
    def tolerated_flows(self):
        st = self.st
        q, margin = self.conf["queues"], self.conf["margin_us"]
        wins = [(w.open, w.close, key, w) for key, ws in self.windows.items() for w in ws if w.open is not None]
        self.exhausted = set()     # windows that may have found no queue
        self.exhausted_keys = set()
        self.shared_slot = live_sharing(self.first_last, {k: flow_hash(k) % self.conf.get("flows", 1 << 16)
                                                          for k in self.first_last}, self.conf.get("flow_idle_us", 0))
        tol = set()
        for s, e, key, w in wins:
            others = [k2 for s2, e2, k2, w2 in wins if w2 is not w and k2 != key and s2 <= s < e2 + margin + 20]
            covered = set()
            for k2 in others:
                covered |= candidate_queues(k2, q)
            if self.conf.get("queue_allocation") == "any":  # any free queue: only a full pool falls back
                exhausted = len(others) >= q
            else:
                exhausted = len(others) >= q or candidate_queues(key, q) <= covered
            if exhausted and st.get("fallback_unordered", 0) > 0:
                self.exhausted.add(id(w))
                self.exhausted_keys.add(key)
                tol.add(key)
        if st.get("fallback_collision", 0) > 0:
            tol |= self.shared_slot
        self.untimed = tol | self.shared_slot
        return tol

    # ------------------------------------------------------------------ delivered stream
    def check_delivered(self):
        self.kind = "delivered"
        seen = {}
        order = {k: [] for k in self.flows}
        for j, (fr, ts) in enumerate(self.dl):
            h = parse(fr)
            if h is None:
                self.fail(f"delivered frame {j}: not an Ethernet/IP/UDP 4791 RoCEv2 frame ({len(fr)} bytes)")
                continue
            key = (h.src, h.dst, h.dqpn)
            fj = self.flows.get(key)
            tag = f"delivered frame {j} (flow {key_str(key)} PSN 0x{h.psn:06x})"
            if fj is None:
                self.fail(f"{tag}: no such flow in flows.json")
                continue
            if not check_icrc(fr):
                got = bytes(fr[h.end - 4:h.end]) if h.end <= len(fr) else b""
                self.fail(f"{tag}: ICRC invalid (carries {got.hex()}, frame needs {icrc(fr).hex()})")
            pos = fj["pos"].get(h.psn)
            if pos is None:
                why = "it was the TAIL dropped in the fabric" if h.psn in fj["lost"] else "not sent by the generator"
                self.fail(f"{tag}: unexpected PSN ({why})")
                continue
            oi = fj["frames"][pos]
            exp = self.orig[oi][0]
            if fr != exp:
                off = first_diff(exp, fr)
                if off >= min(len(exp), len(fr)):
                    self.fail(f"{tag}: length {len(fr)}, the NIC frame (originals.pcap #{oi}) has {len(exp)}"
                              + (" (CW header not removed?)" if len(fr) == len(exp) + CW_HDR_LEN else ""))
                else:
                    self.fail(f"{tag}: differs from the NIC frame (originals.pcap #{oi}) at byte {off} "
                              f"({field_at(exp, off)}): expected 0x{exp[off]:02x} got 0x{fr[off]:02x}")
            if (key, pos) in seen:
                self.fail(f"{tag}: delivered twice (frames {seen[(key, pos)]} and {j})")
                continue
            seen[(key, pos)] = j
            order[key].append((pos, j))
        self.seen = seen
        tol = self.tolerated_flows()
        self.ntol = self.nlate = 0
        for key, lst in order.items():
            hi = None
            hi_ep = {}      # epoch -> the highest position delivered so far
            for pos, j in lst:
                psn = self.flows[key]["psns"][pos]
                ep = self.epoch_of.get((key, psn))
                if hi is not None and pos < hi[0]:
                    if key in tol or self.b2b:
                        self.ntol += 1
                        continue
                    # late after a timeout: only packets of the epoch the timed-out reroute went to are ahead
                    if any(all(e == we or p < pos for e, p in hi_ep.items()) for we in self.late.get((key, psn), ())):
                        self.nlate += 1
                        hi_ep[ep] = max(hi_ep.get(ep, pos), pos)
                        continue
                    fj = self.flows[key]
                    self.fail(f"flow {key_str(key)}: PSN 0x{fj['psns'][pos]:06x} (delivered frame {j}) comes after "
                              f"PSN 0x{fj['psns'][hi[0]]:06x} (delivered frame {hi[1]}): out of PSN order"
                              + (f" (fallback_unordered {self.st.get('fallback_unordered')}, but this flow was not rerouted "
                               f"while the queues were exhausted)" if self.st.get("fallback_unordered") else ""))
                    break
                if hi is None or pos > hi[0]:
                    hi = (pos, j)
                hi_ep[ep] = max(hi_ep.get(ep, pos), pos)
        missing = [(key, pos) for key, fj in self.flows.items() for pos in range(len(fj["psns"]))
                   if (key, pos) not in seen]
        self.missing = set(missing)
        bf = (self.st.get("drops") or {}).get("buffer_full", 0) if isinstance(self.st.get("drops"), dict) else 0
        for key, pos in missing:
            fj = self.flows[key]
            psn = fj["psns"][pos]
            ok = (self.b2b and self.rerouted_by(key, psn)) or (not self.b2b and self.may_drop(key, psn))
            if not ok:
                why = ("no REROUTED packet of its flow came before it" if self.b2b else
                       "it is not a packet a hold window holds" if (key, psn) not in self.held_in else
                       f"the held bytes never exceed buffer_bytes while it is held (at most "
                       f"{self.max_held * 64} bytes can be held at once)")
                self.fail(f"flow {key_str(key)}: PSN 0x{psn:06x} (originals.pcap #{fj['frames'][pos]}) never "
                          f"delivered, and it cannot be a buffer_full drop: {why}")
                break
        if len(missing) > bf:
            key, pos = missing[0]
            self.fail(f"{len(missing)} frame(s) never delivered (first: flow {key_str(key)} PSN "
                      f"0x{self.flows[key]['psns'][pos]:06x}) but drops.buffer_full is {bf}")
        if bf and not self.b2b and not self.over:
            self.fail(f"stats: drops.buffer_full {bf}, but the held bytes never exceed buffer_bytes "
                      f"{self.conf.get('buffer_bytes')} (at most {self.max_held * 64} bytes can be held at once)")

    def rerouted_by(self, key, psn):
        """(--b2b) the packet came at or after its flow's first REROUTED packet, so a hold is possible."""
        t = self.arr_t.get((key, psn))
        return t is not None and any(cw.rerouted and t0 <= t for t0, cw, _, _ in self.per_flow[key])

    def drops_total(self):
        d = self.st.get("drops")
        return sum(v for v in d.values() if isinstance(v, int)) if isinstance(d, dict) else 0

    # ------------------------------------------------------------------ control stream
    def check_control(self):
        self.kind = "control"
        want = {}          # (op, key, psn) -> trigger fabric
        for key, fj in self.flows.items():
            for lst, op in ((fj["rtt_requests"], CW_RTT_REPLY), (fj["ce"], CW_NOTIFY)):
                for oi in lst:
                    h = parse(self.orig[oi][0])
                    a = self.arrival.get((key, h.psn))
                    if a is None:
                        raise Unusable(f"flows.json: flow {key_str(key)} PSN 0x{h.psn:06x} listed but not in arrivals.pcap")
                    want[(op, key, h.psn)] = a[0]
        got = {}
        clears = {}
        self.counts = {CW_RTT_REPLY: 0, CW_CLEAR: 0, CW_NOTIFY: 0}
        for k, (fr, ts) in enumerate(self.ctrl):
            h, cw = parse(fr), decode_cw(fr)
            if h is None or cw is None:
                self.fail(f"control frame {k}: not a RoCEv2 frame with a ConWeave header ({len(fr)} bytes)")
                continue
            key = (h.dst, h.src, h.dqpn)
            fj = self.flows.get(key)
            name = CW_NAME.get(cw.op, f"opcode {cw.op}")
            tag = f"control frame {k} ({name}, flow {key_str(key)} PSN 0x{h.psn:06x})"
            if fj is None:
                self.fail(f"{tag}: its IP addresses / QP are not the swap of any flow's")
                continue
            if cw.op not in (CW_RTT_REPLY, CW_CLEAR, CW_NOTIFY):
                self.fail(f"{tag}: CW opcode {cw.op} is not RTT_REPLY/CLEAR/NOTIFY")
                continue
            if not check_icrc(fr):
                self.fail(f"{tag}: ICRC invalid")
            ln = h.bth + BTH_LEN + CW_HDR_LEN + 4
            if len(fr) != ln or h.end != ln or int.from_bytes(fr[h.udp + 4:h.udp + 6], "big") != ln - h.udp:
                self.fail(f"{tag}: {len(fr)} bytes / IP datagram ends at {h.end} / UDP length "
                          f"{int.from_bytes(fr[h.udp + 4:h.udp + 6], 'big')}, a control packet is {ln} bytes "
                          f"(BTH + CW header + ICRC, no extension header or payload)")
            o = self.orig[fj["frames"][0]][0]
            if fr[0:6] != o[6:12] or fr[6:12] != o[0:6]:
                self.fail(f"{tag}: Ethernet dst/src {fr[0:6].hex(':')}/{fr[6:12].hex(':')} are not the flow's "
                          f"swapped ({o[6:12].hex(':')}/{o[0:6].hex(':')})")
            ttl = fr[22] if h.family == 4 else fr[21]
            if ttl != 64:
                self.fail(f"{tag}: {'TTL' if h.family == 4 else 'hop limit'} {ttl}, expected 64")
            if h.family == 4 and fix_ipv4_checksum(fr) != fr:
                self.fail(f"{tag}: IPv4 header checksum wrong")
            sport = int.from_bytes(fr[h.udp:h.udp + 2], "big")
            if sport != fj["sport"]:
                self.fail(f"{tag}: UDP source port {sport}, the flow's is {fj['sport']}")
            if cw.rerouted or cw.tail:
                self.fail(f"{tag}: REROUTED={cw.rerouted} TAIL={cw.tail}, both must be 0")
            if cw.op == CW_CLEAR:
                clears.setdefault((key, cw.epoch), []).append((k, h.psn, fus(ts)))
                self.counts[CW_CLEAR] += 1
                trig = self.arrival.get((key, h.psn))
                if trig is None:
                    self.fail(f"{tag}: mirrors PSN 0x{h.psn:06x}, which never arrived")
                    continue
                exp = make_control(trig[0], CW_CLEAR, epoch=cw.epoch)
                a, b = h.bth, h.bth + BTH_LEN + CW_HDR_LEN
                if exp[a:b] != fr[a:b]:
                    off = a + first_diff(exp[a:b], fr[a:b])
                    self.fail(f"{tag}: BTH/CW header byte {off - a} 0x{fr[off]:02x}, the packet it mirrors "
                              f"gives 0x{exp[off]:02x}")
                continue
            self.counts[cw.op] += 1
            trig = want.get((cw.op, key, h.psn))
            if trig is None:
                what = "an RTT_REQUEST" if cw.op == CW_RTT_REPLY else "a CE-marked packet"
                arrived = "" if (key, h.psn) in self.arrival else " (and never arrived)"
                self.fail(f"{tag}: PSN 0x{h.psn:06x} was not {what}{arrived}")
                continue
            if (cw.op, key, h.psn) in got:
                self.fail(f"{tag}: second {name} for this packet (first: control frame {got[(cw.op, key, h.psn)]})")
                continue
            got[(cw.op, key, h.psn)] = k
            exp = make_control(trig, cw.op)
            a, b = h.bth, h.bth + BTH_LEN + CW_HDR_LEN
            if exp[a:b] != fr[a:b]:
                off = a + first_diff(exp[a:b], fr[a:b])
                where = f"BTH byte {off - a}" if off - a < BTH_LEN else f"CW header byte {off - a - BTH_LEN}"
                self.fail(f"{tag}: {where} 0x{fr[off]:02x}, the triggering packet gives 0x{exp[off]:02x}")
        for (op, key, psn), trig in sorted(want.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
            if (op, key, psn) in got:
                continue
            pos = self.flows[key]["pos"][psn]
            if (key, pos) in self.missing:
                continue
            what = "RTT_REPLY for the RTT_REQUEST" if op == CW_RTT_REPLY else "NOTIFY for the CE-marked packet"
            self.fail(f"flow {key_str(key)} PSN 0x{psn:06x}: no {what} (arrived at "
                      f"{self.arrival[(key, psn)][1]} us)")
        self.check_clears(clears)

    def check_clears(self, clears):
        self.kind = "clears"
        """clears: {(key, epoch): [(control frame index, mirrored PSN, time us)]}."""
        if self.b2b:
            for (key, e), lst in sorted(clears.items()):
                for k, psn, _ in lst:
                    cw = decode_cw(self.arrival[(key, psn)][0]) if (key, psn) in self.arrival else None
                    if cw and not ((cw.tail and (cw.epoch + 1) & 3 == e) or cw.epoch == e):
                        self.fail(f"control frame {k} (CLEAR epoch {e}, flow {key_str(key)}): mirrors PSN "
                                  f"0x{psn:06x} of epoch {cw.epoch}, neither a TAIL of epoch {(e - 1) & 3} nor a "
                                  f"packet of epoch {e}")
            for key, pk in self.per_flow.items():
                for _, cw, psn, _ in pk:
                    if cw.tail and not clears.get((key, (cw.epoch + 1) & 3)):
                        self.fail(f"flow {key_str(key)}: TAIL PSN 0x{psn:06x} arrived but no CLEAR for epoch "
                                  f"{(cw.epoch + 1) & 3}")
            return
        port = PortBound([(fus(ts), len(fr)) for fr, ts in self.ctrl], self.cbp)
        for key in self.flows:
            left = {e: list(v) for (k2, e), v in clears.items() if k2 == key}
            for w in self.windows.get(key, []):
                lst = left.get(w.epoch, [])
                tag = (f"flow {key_str(key)}: reroute to epoch {w.epoch}"
                       + (f" (TAIL PSN 0x{w.tail_psn:06x} first)" if w.tail_first else
                          f" (first held PSN 0x{w.held[0][0]:06x})" if w.held else ""))
                fell = id(w) in self.exhausted or key in self.untimed
                if w.by == "timeout" and w.held:
                    want = next((p for p, _, _ in w.held if (key, self.flows[key]["pos"].get(p)) not in self.missing),
                                w.clear_psn)
                else:
                    want = w.clear_psn
                hit = next((x for x in lst if x[1] == want), None)
                if hit is None and fell:
                    hit = next((x for x in lst), None)
                if hit is None:
                    if fell or (w.by == "timeout" and not any((key, self.flows[key]["pos"].get(p)) not in self.missing
                                                              for p, _, _ in w.held)):
                        continue
                    self.fail(f"{tag}: no CLEAR mirroring PSN 0x{want:06x} "
                              f"({'at its TAIL' if w.by != 'timeout' else 'at the resume deadline'}; "
                              f"CLEARs of that epoch: {[hex(x[1]) for x in lst] or 'none'})")
                    continue
                lst.remove(hit)
                k, psn, t = hit
                if fell:
                    continue
                if t < w.clear_at - 1e-3:
                    self.fail(f"{tag}: CLEAR (control frame {k}) sent at {t:.3f} us, before "
                              f"{'the TAIL arrived' if w.by != 'timeout' else 'the resume deadline'} ({w.clear_at:.3f} us)")
                elif w.open is None and t > port.latest(w.clear_at, 1, t):
                    self.fail(f"{tag}: nothing was to be held, but its CLEAR (control frame {k}) left at {t:.3f} us, "
                              f"{t - w.clear_at:.3f} us after the TAIL arrived (at the TAIL: within "
                              f"{port.latest(w.clear_at, 1, t) - w.clear_at:.3f} us)")
            for e, lst in sorted(left.items()):
                for k, psn, _ in lst:
                    self.fail(f"flow {key_str(key)}: CLEAR (control frame {k}) epoch {e} mirroring PSN 0x{psn:06x} "
                              f"is not the one CLEAR a reroute to epoch {e} owes")

    # ------------------------------------------------------------------ timing
    def check_timing(self):
        self.kind = "timing"
        if self.b2b:
            return
        port = PortBound([(fus(ts), len(fr)) for fr, ts in self.dl], self.bp)
        dep = {}
        for fr, ts in self.dl:
            h = parse(fr)
            if h is not None:
                dep.setdefault(((h.src, h.dst, h.dqpn), h.psn), fus(ts))
        self.nheld = self.nprompt = 0
        self.timer_released = []    # (key, psn, departure, latest allowed) of the timed timer releases
        for (key, psn), t_out in sorted(dep.items(), key=lambda x: x[1]):
            if key in self.untimed or (key, psn) not in self.arr_t:
                continue
            t_in, fab = self.arr_t[(key, psn)], self.arrival[(key, psn)][0]
            beats = cells(len(fab))
            w = self.held_in.get((key, psn))
            tag = f"flow {key_str(key)} PSN 0x{psn:06x} (arrived {t_in:.3f} us, left {t_out:.3f} us)"
            if t_out < t_in:
                self.fail(f"{tag}: left before it arrived")
                continue
            # A packet within 1 us of a window's edge may fall on either side of it (the decision and the
            # timer scan take a few cycles), except at its own timed-out window's opening: it opened that
            # window, so it was held until the timer released it (issue 26 item 5).
            near = [x for ww in self.windows.get(key, []) for x in (ww.open, ww.close)
                    if x is not None and not (ww is w and w.by == "timeout" and x == w.open)]
            if any(abs(t_in - x) <= 1.0 for x in near):
                continue
            if w is None:
                self.nprompt += 1
                lim = port.latest(t_in, beats, t_out)
                if t_out > lim:
                    self.fail(f"{tag}: held {t_out - t_in:.3f} us, but no rule holds it (it is not a rerouted "
                              f"packet before its TAIL: "
                              + self.why_free(key, t_in) + f"); it had to leave by {lim:.3f} us")
                continue
            if id(w) in self.exhausted:
                continue
            self.nheld += 1
            if w.by == "tail":
                t_tail = dep.get((key, w.tail_psn))
                lim = port.latest(w.close, beats, t_out)
                if t_tail is not None and t_out < t_tail:
                    self.fail(f"{tag}: held until the TAIL (PSN 0x{w.tail_psn:06x}), but left before it")
                elif t_out > lim and abs(w.close - w.deadline) > 1.0:
                    self.fail(f"{tag}: its TAIL arrived at {w.close:.3f} us (before the deadline {w.deadline} us), "
                              f"so it had to leave by {lim:.3f} us")
            else:
                lim = port.latest_release(self.release_ready(key, w), beats, t_out)
                self.timer_released.append((key, psn, t_out, lim))
                if t_out < w.close - 1e-3:
                    self.fail(f"{tag}: released before its resume deadline {w.close:.3f} us "
                              f"({'TAIL lost' if w.tail_at is None else 'TAIL arrived at %.3f us' % w.tail_at})")
                elif t_out > lim + 5e-4:    # departures are whole nanoseconds: half a ns of float noise
                    self.fail(f"{tag}: its resume deadline was {w.close:.3f} us, it had to leave by {lim:.3f} us")

    def release_ready(self, key, w):
        """The latest the resume timer can release window w's queue (timing.timer_release_ready): one round of
        the scan, plus one per packet of the flow that arrived from 1 us before the deadline on (its decision
        may touch the queue in the cycle the scan visits it, which skips the visit)."""
        q, ready = self.conf["queues"], None
        for rounds in range(1, 64):
            ready = timer_release_ready(w.close, self.t0, q, rounds)
            n = sum(1 for t, _, _, _ in self.per_flow[key] if w.close - 1.0 <= t <= ready)
            if n < rounds:
                break
        if w.open is not None and w.open > w.close - 1.0:
            ready += OPEN_LATE_CYCLES * CYCLE_US   # its queue was taken at or after the deadline (timing.py)
        return ready

    def why_free(self, key, t):
        prev = [w for w in self.windows.get(key, []) if w.tail_at is not None and w.tail_at <= t]
        if prev and prev[-1].tail_first:
            return f"its flow's TAIL (PSN 0x{prev[-1].tail_psn:06x}) came first, at {prev[-1].tail_at:.3f} us"
        return "no hold window of its flow covers its arrival"

    # ------------------------------------------------------------------ stats
    def check_stats(self):
        self.kind = "stats"
        st = self.st
        miss = [k for k in STATS_KEYS if k not in st]
        if miss:
            self.fail(f"stats: missing key(s) {', '.join(miss)}")
            return
        d = st["drops"]
        if not isinstance(d, dict) or any(not isinstance(d.get(k), int) for k in DROP_REASONS):
            self.fail(f"stats: drops must be an object with integer {' and '.join(DROP_REASONS)}, got {d!r}")
            return
        for k, n in (("packets_in", len(self.arr)), ("delivered", len(self.dl)), ("control_out", len(self.ctrl))):
            if st[k] != n:
                self.fail(f"stats: {k} {st[k]}, but the pcap holds {n} frames")
        tot = st["delivered"] + self.drops_total()
        if st["packets_in"] != tot:
            self.fail(f"stats: packets_in {st['packets_in']} != delivered {st['delivered']} + drops "
                      f"{self.drops_total()} = {tot}")
        if st["held_now"]:
            self.fail(f"stats: held_now {st['held_now']} at the end of the run (a run ends with nothing held)")
        if d["malformed"]:
            self.fail(f"stats: drops.malformed {d['malformed']}, but arrivals.pcap holds no malformed frame")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--delivered", required=True)
    ap.add_argument("--ctrl", required=True)
    ap.add_argument("--stats", required=True)
    ap.add_argument("--show", type=int, default=1)
    ap.add_argument("--b2b", action="store_true", help="the run was --back-to-back: no timing, order or exact CLEARs")
    ap.add_argument("--backpressure", type=float, default=0.0)
    ap.add_argument("--ctrl-backpressure", type=float, default=0.0)
    a = ap.parse_args()
    try:
        meta, conf, orig, arr = load_dir(a.dir)
        dl = read_pcap(a.delivered)
        ctrl = read_pcap(a.ctrl)
        try:
            with open(a.stats) as f:
                st = json.load(f)
        except (OSError, ValueError) as e:
            raise Unusable(f"{a.stats}: {e}")
        if not isinstance(st, dict):
            raise Unusable(f"{a.stats}: not a JSON object")
        c = Checker(meta, conf, orig, arr, dl, ctrl, st, a.b2b, a.backpressure, a.ctrl_backpressure,
                    Report("reorder_check", a.show))
        c.check_delivered()
        c.check_control()
        c.check_timing()
        c.check_stats()
    except (Unusable, InputError) as e:
        return unusable("reorder_check", e)
    except KeyError as e:
        return unusable("reorder_check", f"flows.json lacks {e}")
    nrr = sum(len(fj["reroutes"]) for fj in meta["flows"])
    timing = "order and timing not checked (--b2b)" if a.b2b else \
        f"{c.nprompt} left at once and {c.nheld} after their window as the rules require"
    return c.report.finish(
        f"{len(c.flows)} flows, {len(dl)} delivered ({len(c.missing)} missing = dropped, "
        f"{nrr} reroutes, {c.ntol} out-of-order deliveries tolerated as fallback, {c.nlate} as late after a timeout; "
        f"{timing}), {len(ctrl)} control "
        f"({c.counts[CW_RTT_REPLY]} RTT_REPLY, {c.counts[CW_NOTIFY]} NOTIFY, {c.counts[CW_CLEAR]} CLEAR), "
        f"stats conserved ({st['packets_in']} in)")


if __name__ == "__main__":
    sys.exit(main())
