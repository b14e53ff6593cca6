#!/usr/bin/python3
"""Independent checker of the ConWeave reorder block's output (docs/conweave.md "What the
independent checker verifies"); it does not model timing.

  /usr/bin/python3 scripts/cw_check.py --dir D --delivered DELIVERED.pcap --ctrl CONTROL.pcap
      --stats STATS.json [--show N]

D is a cw_gen.py directory (reorder.txt, arrivals.pcap, originals.pcap, flows.json).
Exit 0 with a one-line PASS summary; 1 on the first mismatch (printed with flow, PSN, frame index and
what differs; --show N prints up to N); 2 on unusable input (missing/unreadable files, bad JSON).

Checks
 delivered  every frame is a RoCEv2 frame with a valid ICRC (nettwin.rdma.layers.check_icrc), of a known
            flow (IP src, IP dst, dest QP), with a PSN the generator sent and byte-equal to that NIC
            frame (first differing byte and its field named), delivered at most once; per flow in
            PSN order (generator order, so PSN wrap is fine) - except flows where disorder is
            tolerated (below); frames never delivered only up to drops + held_now of the stats.
 tolerated  disorder: stats fallback_unordered > 0 -> flows with a reroute started while the queues
            open to that flow could have been taken, i.e. when at least `queues` other reroute windows
            were open, or when each of the flow's 4 candidate queues (docs/conweave.md: 4 ways of
            queues/4, way w offers w*queues/4 + (CRC-16/CCITT-FALSE(key) >> (4+3w)) mod queues/4,
            computed here from the documented key layout) is a candidate of another open window
            (window = arrival of the first rerouted packet .. the TAIL's arrival, or for a lost TAIL the resume deadline TAIL_TX + max old-path one-way delay + margin, + margin
            + 20 us slack for draining; generous on purpose).  fallback_collision > 0 -> the flows
            that share a flow-table entry with another flow (index = CRC-16 of the key mod `flows`,
            as documented).  Disordered packets must still each arrive exactly once.
 control    each frame: RoCEv2 with the CW header and nothing else (IP/UDP lengths exact), valid
            ICRC, IPv4 header checksum valid, MAC and IP addresses the swap of a flow's, TTL/hop
            limit 64, UDP ports = the flow's, CW opcode RTT_REPLY/CLEAR/NOTIFY, REROUTED = TAIL = 0.
            RTT_REPLY / NOTIFY: exactly one per RTT_REQUEST / CE-marked packet that arrived (missing
            only if that packet is itself missing from the delivered stream), matched by (flow, PSN),
            BTH (PathID, epoch, AckReq, everything else) and CW header equal to the triggering
            fabric packet's.  CLEAR: for each flow and epoch at least as many as reroutes into
            that epoch, and none for an epoch no reroute went to (a CLEAR carries the flow's new
            epoch); a lost-TAIL reroute of a flow that fell back for lack of queues needs none (the
            contract gives such a flow no timer).
 stats      required keys; packets_in = frames in arrivals.pcap, delivered / control_out = frames in
            the two pcaps, packets_in = delivered + sum(drops) + held_now, drops.malformed = 0
            (the generator sends no malformed frame).
"""
import argparse
import ipaddress
import json
import os
import sys

from nettwin.reorder.layers import (BTH_LEN, CW_CLEAR, CW_HDR_LEN, CW_NAME, CW_NOTIFY, CW_RTT_REPLY,
                                    check_icrc, decode_cw, field_at, key_str, make_control, parse)
from nettwin.common.pcap import InputError, read_pcap
from nettwin.rdma.layers import fix_ipv4_checksum, icrc

STATS_KEYS = ("packets_in", "delivered", "control_out", "held_now", "released_by_tail",
              "released_by_timeout", "fallback_unordered", "fallback_collision", "drops",
              "peak_queues", "peak_buffer_bytes", "hold_us")


def us(ts):
    return int(round(ts * 1e6))


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
    """CRC-16/CCITT-FALSE of the flow key (docs/conweave.md "Per-flow state"): family, IP source, IP
    destination (16 bytes each, IPv4 in the first 4), destination QP (3 bytes)."""
    src, dst = ipaddress.ip_address(key[0]), ipaddress.ip_address(key[1])
    kb = bytes([1 if src.version == 6 else 0]) + src.packed.ljust(16, b"\0") + dst.packed.ljust(16, b"\0") \
        + key[2].to_bytes(3, "big")
    return crc16_ccitt_false(kb)


def candidate_queues(key, queues):
    """The 4 queues a flow may take (docs/conweave.md "Holding")."""
    h = flow_hash(key)
    qw = queues // 4
    return {w * qw + ((h >> (4 + 3 * w)) & (qw - 1)) for w in range(4)}


class Unusable(Exception):
    pass


def load_dir(d):
    try:
        with open(os.path.join(d, "flows.json")) as f:
            meta = json.load(f)
        conf = {}
        with open(os.path.join(d, "reorder.txt")) as f:
            for ln in f:
                t = ln.split("#")[0].split()
                if t:
                    conf[t[0]] = t[1] if t[0] == "queue_allocation" else int(t[1])
        orig = read_pcap(os.path.join(d, "originals.pcap"))
        arr = read_pcap(os.path.join(d, "arrivals.pcap"))
    except (OSError, ValueError, IndexError, InputError) as e:
        raise Unusable(f"{d}: {e}")
    for k in ("queues", "margin_us", "default_hold_us"):
        if k not in conf:
            raise Unusable(f"{d}/reorder.txt: no '{k}' line")
    return meta, conf, orig, arr


class Checker:
    def __init__(self, meta, conf, orig, arr, delivered, ctrl, stats):
        self.meta, self.conf, self.orig, self.arr = meta, conf, orig, arr
        self.dl, self.ctrl, self.st = delivered, ctrl, stats
        self.bad = []
        self.flows = {}
        for fj in meta["flows"]:
            key = (fj["key"][0], fj["key"][1], fj["key"][2])
            fj["pos"] = {p: i for i, p in enumerate(fj["psns"])}
            self.flows[key] = fj
        self.arrival = {}       # (key, psn) -> (fabric, t_us)
        for fab, ts in arr:
            h = parse(fab)
            if h is None:
                raise Unusable("arrivals.pcap holds a non-RoCEv2 frame (not a cw_gen directory?)")
            self.arrival[((h.src, h.dst, h.dqpn), h.psn)] = (fab, us(ts))

    def fail(self, msg):
        self.bad.append(msg)

    # ------------------------------------------------------------------ tolerated disorder
    def tolerated_flows(self):
        st = self.st
        q, margin = self.conf["queues"], self.conf["margin_us"]
        wins = []   # (start, end, key, reroute)
        for key, fj in self.flows.items():
            prev_first = fj["psns"][0] if fj["psns"] else None
            for r in fj["reroutes"]:
                a = self.arrival.get((key, r["first_psn"]))
                if a is None:
                    continue
                start = a[1]
                ta = self.arrival.get((key, r["tail_psn"]))
                lo = fj["pos"].get(prev_first, 0)
                hi = fj["pos"].get(r["tail_psn"], fj["pos"].get((r["tail_psn"] - 1) & 0xFFFFFF, lo))
                owd = None
                for p in fj["psns"][lo:hi + 1]:
                    x = self.arrival.get((key, p))
                    if x:
                        c = decode_cw(x[0])
                        o = (x[1] - c.tx_ts) & 0xFFFF
                        owd = o if owd is None else max(owd, o)
                end = start + self.conf["default_hold_us"] if owd is None else \
                    start + ((r["tail_tx_us"] + owd - start) & 0xFFFF if ((r["tail_tx_us"] + owd - start) & 0xFFFF) < 0x8000 else 0)
                if ta:
                    end = max(end, ta[1])
                wins.append((start, end + margin + 20, key, r))
                prev_first = r["first_psn"]
        self.exhausted = set()
        slots = {}
        for key in self.flows:
            slots.setdefault(flow_hash(key) % self.conf.get("flows", 1 << 16), []).append(key)
        self.shared_slot = {k for ks in slots.values() if len(ks) > 1 for k in ks}
        tol = set()
        for s, e, key, r in wins:
            others = [k2 for s2, e2, k2, r2 in wins if r2 is not r and k2 != key and s2 <= s < e2]
            covered = set()
            for k2 in others:
                covered |= candidate_queues(k2, q)
            if self.conf.get("queue_allocation") == "any":  # any free queue: only a full pool falls back
                exhausted = len(others) >= q
            else:
                exhausted = len(others) >= q or candidate_queues(key, q) <= covered
            if exhausted:
                self.exhausted.add((key, r["first_psn"]))
                if st.get("fallback_unordered", 0) > 0:
                    tol.add(key)
            if st.get("fallback_collision", 0) > 0 and key in self.shared_slot:
                tol.add(key)
        return tol

    # ------------------------------------------------------------------ delivered stream
    def check_delivered(self):
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
        self.ntol = 0
        for key, lst in order.items():
            hi = None
            for pos, j in lst:
                if hi is not None and pos < hi[0]:
                    if key in tol:
                        self.ntol += 1
                        continue
                    fj = self.flows[key]
                    self.fail(f"flow {key_str(key)}: PSN 0x{fj['psns'][pos]:06x} (delivered frame {j}) comes after "
                              f"PSN 0x{fj['psns'][hi[0]]:06x} (delivered frame {hi[1]}): out of PSN order"
                              + (f" (fallback_unordered {self.st.get('fallback_unordered')}, but this flow was not rerouted "
                               f"while the queues were exhausted)" if self.st.get("fallback_unordered") else ""))
                    break
                if hi is None or pos > hi[0]:
                    hi = (pos, j)
        missing = [(key, pos) for key, fj in self.flows.items() for pos in range(len(fj["psns"]))
                   if (key, pos) not in seen]
        self.missing = set(missing)
        allowed = self.drops_total() + (self.st.get("held_now") or 0)
        if len(missing) > allowed:
            key, pos = missing[0]
            fj = self.flows[key]
            self.fail(f"flow {key_str(key)}: PSN 0x{fj['psns'][pos]:06x} (originals.pcap #{fj['frames'][pos]}) "
                      f"never delivered ({len(missing)} missing in all, stats allow {allowed}: drops + held_now)")

    def drops_total(self):
        d = self.st.get("drops")
        return sum(v for v in d.values() if isinstance(v, int)) if isinstance(d, dict) else 0

    # ------------------------------------------------------------------ control stream
    def check_control(self):
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
                clears[(key, cw.epoch)] = clears.get((key, cw.epoch), 0) + 1
                self.counts[CW_CLEAR] += 1
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
        need = {}
        for key, fj in self.flows.items():
            for r in fj["reroutes"]:
                if r["tail_lost"] and (key, r["first_psn"]) in self.exhausted and self.st.get("fallback_unordered", 0):
                    continue
                need.setdefault((key, r["epoch"]), []).append(r)
        for (key, e), rs in sorted(need.items()):
            if clears.get((key, e), 0) < len(rs):
                r = rs[clears.get((key, e), 0)]
                self.fail(f"flow {key_str(key)}: {len(rs)} reroute(s) to epoch {e} but {clears.get((key, e), 0)} CLEAR(s); "
                          f"uncleared reroute: first rerouted PSN 0x{r['first_psn']:06x}, TAIL PSN 0x{r['tail_psn']:06x}"
                          f"{' (lost in the fabric)' if r['tail_lost'] else ''}")
        for (key, e), n in sorted(clears.items()):
            if not any(r["epoch"] == e for r in self.flows[key]["reroutes"]):
                self.fail(f"flow {key_str(key)}: {n} CLEAR(s) with epoch {e}, but the flow was never rerouted to epoch {e}")

    # ------------------------------------------------------------------ stats
    def check_stats(self):
        st = self.st
        miss = [k for k in STATS_KEYS if k not in st]
        if miss:
            self.fail(f"stats: missing key(s) {', '.join(miss)}")
            return
        d = st["drops"]
        if not isinstance(d, dict) or any(not isinstance(d.get(k), int) for k in ("malformed", "buffer_full")):
            self.fail(f"stats: drops must be an object with integer malformed and buffer_full, got {d!r}")
            return
        for k, n in (("packets_in", len(self.arr)), ("delivered", len(self.dl)), ("control_out", len(self.ctrl))):
            if st[k] != n:
                self.fail(f"stats: {k} {st[k]}, but the pcap holds {n} frames")
        tot = st["delivered"] + self.drops_total() + st["held_now"]
        if st["packets_in"] != tot:
            self.fail(f"stats: packets_in {st['packets_in']} != delivered {st['delivered']} + drops "
                      f"{self.drops_total()} + held_now {st['held_now']} = {tot}")
        if d["malformed"]:
            self.fail(f"stats: drops.malformed {d['malformed']}, but arrivals.pcap holds no malformed frame")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--delivered", required=True)
    ap.add_argument("--ctrl", required=True)
    ap.add_argument("--stats", required=True)
    ap.add_argument("--show", type=int, default=1)
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
        c = Checker(meta, conf, orig, arr, dl, ctrl, st)
        c.check_delivered()
        c.check_control()
        c.check_stats()
    except (Unusable, InputError) as e:
        print(f"cw_check: unusable input: {e}", file=sys.stderr)
        return 2
    except KeyError as e:
        print(f"cw_check: unusable input: flows.json lacks {e}", file=sys.stderr)
        return 2
    if c.bad:
        for m in c.bad[:max(1, a.show)]:
            print(f"cw_check: FAIL: {m}")
        if len(c.bad) > a.show:
            print(f"cw_check: ... {len(c.bad) - a.show} more mismatch(es)")
        return 1
    nrr = sum(len(fj["reroutes"]) for fj in meta["flows"])
    print(f"cw_check: PASS: {len(c.flows)} flows, {len(dl)} delivered ({len(c.missing)} missing = dropped, "
          f"{nrr} reroutes, {c.ntol} out-of-order deliveries tolerated as fallback), {len(ctrl)} control "
          f"({c.counts[CW_RTT_REPLY]} RTT_REPLY, {c.counts[CW_NOTIFY]} NOTIFY, {c.counts[CW_CLEAR]} CLEAR), "
          f"stats conserved ({st['packets_in']} in)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
