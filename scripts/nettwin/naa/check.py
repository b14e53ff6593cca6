#!/usr/bin/python3
"""Checks `nettwin naa` output against the independent reference (docs/naa.md), byte for byte.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.naa.check --config naa.txt --in client.pcap --out server.pcap --stats S.json

1. nettwin.naa.ref (Python CM + the responder's Python reference) gives the expected server frames; every
   frame of server.pcap must equal its expected frame byte for byte, in order, and none may be missing or extra.
2. Every server frame carries a correct ICRC (nettwin.rdma.layers), and every CM frame decodes with the Scapy
   CM layers (nettwin.naa.layers) as the message the reference meant.
3. tshark's InfiniBand dissector decodes the CM frames the same way (attribute, transaction ID, REP QPN and
   starting PSN, REJ reason), and the requester's SEND / WRITE frames (opcode, destination QP, PSN, AckReq,
   RETH VA and DMA length, ImmDt): a third reading, from Wireshark's packet-infiniband.c.
4. With a ctl line (docs/naa.md "MRSP and RPC"), nettwin.naa.check_rpc, from the two pcaps alone: every MRSP
   answer fits its request, every RPC result is what nettwin.naa.kernels computes from the client's own
   parameters (immediate, target region, data), and every MRSP message (both ways) reads the same with the
   Scapy layers and with tshark + mrsp.lua.
5. The stats JSON (CM, responder, requester and controller counters) equals the reference's, and frames in =
   processed + drops.
Prints nettwin.common.report's report: exit 0 with `naa_check: PASS: ...` when all hold, 1 with the first
differences of each check (bytes, icrc, cm, tshark, rpc, mrsp, stats) and `naa_check: FAIL: ...`, 2 on unusable
input.
"""
import argparse
import json
import shutil
import subprocess
import sys

from nettwin.common.pcap import InputError, read_pcap
from nettwin.common.report import Report
from nettwin.naa.check_rpc import check_decodes, check_rpc
from nettwin.naa.layers import ATTR_NAME, decode_mad
from nettwin.naa.ref import CM_DROPS, Endpoint, expected_frames, parse_naa_config, read_gates
from nettwin.naa.ref_ctl import CTL_COUNTERS
from nettwin.naa.ref_req import REQ_COUNTERS, REQ_DROPS
from nettwin.rdma.layers import check_icrc
from nettwin.rdma.ref import ConfigError

TSHARK_FIELDS = ("infiniband.mad.attributeid", "infiniband.mad.transactionid", "infiniband.cm.rep.localqpn",
                 "infiniband.cm.rep.startpsn", "infiniband.cm.rej.reason")


def _int(s):
    return int(s, 0) if s else None


def tshark_rows(path, fields):
    """tshark's reading of `fields` in every frame of `path`: one list of strings per frame, or None."""
    if shutil.which("tshark") is None:
        return None
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.splitlines()]


def tshark_cm(path):
    """[(attr, tid, rep qpn, rep psn, rej reason)] per frame (None for frames without a MAD), or None."""
    rows = tshark_rows(path, TSHARK_FIELDS)
    if rows is None:
        return None
    return [None if _int(r[0]) is None else tuple(_int(x) for x in r) for r in rows]


REQ_FIELDS = ("infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a",
              "infiniband.reth.va", "infiniband.reth.dmalen", "infiniband.immdt")
REQUEST_OPCODES = range(0x00, 0x0C)     # RC SEND / RDMA WRITE first .. only with immediate


def tshark_requests(path):
    """[(opcode, dest QP, PSN, AckReq, RETH VA, RETH DMA length, ImmDt)] per frame, or None without tshark."""
    rows = tshark_rows(path, REQ_FIELDS)
    if rows is None:
        return None
    return [tuple(int(x, 16) if k == 6 and x else _int(x) for k, x in enumerate(r)) for r in rows]


def request_fields(f):
    """The same fields read from the frame's bytes (BTH at 42, RETH at 54, ImmDt after it)."""
    op = f[42]
    reth = op in (0x06, 0x0A, 0x0B)
    imm_at = (70 if reth else 54) if op in (0x09, 0x0B) else None
    return (op, int.from_bytes(f[47:50], "big"), int.from_bytes(f[51:54], "big"), f[50] >> 7,
            int.from_bytes(f[54:62], "big") if reth else None, int.from_bytes(f[66:70], "big") if reth else None,
            int.from_bytes(f[imm_at:imm_at + 4], "big") if imm_at else None)


def compare_ctl(got, want):
    """The controller's counters (--stats "ctl") against the reference's."""
    if got is None:
        return ["stats: no controller counters ('ctl') although the config has a ctl line"]
    errors = [f"stats: ctl {k} is {got.get(k)}, the reference says {want[k]}" for k in CTL_COUNTERS + ("regions",)
              if got.get(k) != want[k]]
    codes = got.get("errors", {})
    for code, n in want["errors"].items():
        g = codes.get(str(code), codes.get(f"0x{code:02x}", 0)) if isinstance(codes, dict) else codes[code]
        if g != n:
            errors.append(f"stats: ctl MRSP errors 0x{code:02x}: {g}, the reference says {n}")
    if got.get("balanced") is False:
        errors.append("stats: ctl events != MRSP requests + RPCs + drops")
    drops = got.get("drops", {})
    errors += [f"stats: ctl drop {k} is {drops.get(k, 0)}, the reference says {n}" for k, n in want["drops"].items()
               if drops.get(k, 0) != n]
    return errors


def check(config_path, inp, outp, stats_path, rep=None):
    """(the differences as messages, expected frames, CM frames decoded, PASS detail); with rep
    (nettwin.common.report.Report) each difference is also filed there under its check."""
    errors = []

    def fail(kind, *msgs):
        for m in msgs:
            errors.append(m)
            if rep is not None:
                rep.fail(kind, m[len("stats: "):] if kind == "stats" and m.startswith("stats: ") else m)
    with open(config_path) as fh:
        ep = Endpoint(*parse_naa_config(fh.read(), config_path))
    client = read_pcap(inp)
    expected = [f for f, _ in expected_frames(ep, client, read_gates(inp + ".gates"))]
    got = [f for f, _ in read_pcap(outp)]
    for i in range(max(len(expected), len(got))):
        if i >= len(got):
            fail("bytes", f"frame {i}: missing (expected {len(expected)} frames, got {len(got)})")
            break
        if i >= len(expected):
            fail("bytes", f"frame {i}: extra (expected {len(expected)} frames, got {len(got)})")
            break
        if got[i] != expected[i]:
            at = next(k for k in range(min(len(got[i]), len(expected[i])) + 1)
                      if k == min(len(got[i]), len(expected[i])) or got[i][k] != expected[i][k])
            fail("bytes", f"frame {i}: differs from the reference at byte {at} (length {len(got[i])}, "
                          f"expected {len(expected[i])})")
    decoded = []
    for i, f in enumerate(got):
        if not check_icrc(f):
            fail("icrc", f"frame {i}: bad ICRC")
        d = decode_mad(f)
        if d is not None:
            bth, mad = d
            if mad.attr_id not in ATTR_NAME:
                fail("cm", f"frame {i}: MAD attribute 0x{mad.attr_id:04x} is not a CM message")
            decoded.append((i, mad))
    ts = tshark_cm(outp)
    if ts is not None:
        for i, mad in decoded:
            msg = mad.payload
            want = (mad.attr_id, mad.tid,
                    msg.local_qpn if ATTR_NAME[mad.attr_id] == "REP" else None,
                    msg.starting_psn if ATTR_NAME[mad.attr_id] == "REP" else None,
                    msg.reason if ATTR_NAME[mad.attr_id] == "REJ" else None)
            if i >= len(ts) or ts[i] != want:
                fail("tshark", f"frame {i}: tshark reads {ts[i] if i < len(ts) else 'nothing'}, Scapy {want}")
    tr = tshark_requests(outp) if any(f[42] in REQUEST_OPCODES for f in got if len(f) > 54) else None
    if tr is not None:
        for i, f in enumerate(got):
            if len(f) > 54 and f[42] in REQUEST_OPCODES and (i >= len(tr) or tr[i] != request_fields(f)):
                fail("tshark", f"frame {i}: tshark reads the request as {tr[i] if i < len(tr) else 'nothing'}, "
                              f"the bytes say {request_fields(f)}")
    extra = ""
    if ep.ctl:
        rpc_errors, n_mrsp, n_rpc = check_rpc([f for f, _ in client], got, ep.ctl.ctl)
        fail("rpc", *rpc_errors)
        n_dec = 0
        for path, frames, who in ((inp, [f for f, _ in client], "client"), (outp, got, "server")):
            e, n = check_decodes(path, frames, who)
            fail("mrsp", *e)
            n_dec += n
        extra = (f"; {n_mrsp} MRSP answers fit their requests, {n_rpc} RPC results as the kernels compute them "
                 f"from the client's parameters, {n_dec} MRSP messages read alike by Scapy and tshark + mrsp.lua")
    if stats_path:
        with open(stats_path) as fh:
            st = json.load(fh)
        e, c, r = ep.st, st["cm"], st["rdma"]
        pairs = [("cm packets_in", c["packets_in"], e["cm_in"]), ("cm packets_out", c["packets_out"], e["cm_out"]),
                 ("cm rejects", c["rejects"], e["rejects"]), ("cm connects", c["connects"], e["connects"]),
                 ("cm disconnects", c["disconnects"], e["disconnects"]),
                 ("cm state", c["state"], {"idle": "idle", "rep_sent": "rep_sent",
                                           "established": "established"}[ep.state]),
                 ("rdma packets_in", r["packets_in"], e["rdma_in"]), ("rdma packets_out", r["packets_out"],
                                                                       e["rdma_out"])]
        pairs += [(f"cm drop {k}", c["drops"].get(k, 0), e["cm_drops"][k]) for k in CM_DROPS]
        pairs += [(f"rdma drop {k}", v, e["rdma_drops"].get(k, 0)) for k, v in r["drops"].items()]
        q, eq = st.get("req", {}), ep.req.st
        pairs += [(f"req {k}", q.get(k), eq[k]) for k in ("packets_in", "processed") + REQ_COUNTERS]
        pairs += [(f"req drop {k}", q.get("drops", {}).get(k), eq["drops"][k]) for k in REQ_DROPS]
        fail("stats", *[f"stats: {name} is {a}, the reference says {b}" for name, a, b in pairs if a != b])
        for part in (c, r, q):
            if part["packets_in"] != part["processed"] + sum(part["drops"].values()):
                fail("stats", f"stats: packets_in {part['packets_in']} != processed {part['processed']} + drops")
        if ep.ctl:
            fail("stats", *compare_ctl(st.get("ctl"), ep.ctl.st))
        if st.get("mismatches", 0) or not st.get("conservation_ok", False):
            fail("stats", "stats: lockstep mismatch or conservation failure")
    return errors, len(expected), len(decoded), extra


def main(argv=None):
    ap = argparse.ArgumentParser(description="check nettwin naa output against the independent reference")
    ap.add_argument("--config", required=True)
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stats")
    ap.add_argument("--show", type=int, default=20, help="mismatches printed per check (default 20)")
    a = ap.parse_args(argv)
    rep = Report("naa_check", a.show)
    try:
        _, n, n_cm, extra = check(a.config, a.inp, a.out, a.stats, rep)
    except (ConfigError, InputError, OSError, KeyError, ValueError) as e:
        return rep.unusable(e)
    return rep.finish(f"{n} server frames as the reference ({n_cm} CM messages, also decoded by tshark){extra}")


if __name__ == "__main__":
    sys.exit(main())
