#!/usr/bin/python3
"""Independent Python reference of the RoCEv2 responder with atomic ACK queue (docs/rdma.md).

Written from docs/rdma.md (and the IBA RC rules it takes for granted) only, never from the C++
model or the RTL: its own config parser, PSN / Go-Back-N state, AQ + AQC and sparse host memory.
Packets are parsed and responses built on raw bytes (no Scapy, which is only used for pcap I/O),
with its own ICRC; nettwin.rdma.check decodes everything again with Scapy (nettwin.rdma.layers).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.ref --config C --in REQ.pcap --out EXPECTED.pcap \
      --mem-out MEM.json [--stats S.json] [--trace T.txt] [--aq-linear] [--atomic-endian little|big]

Writes the expected responses (in request order, each with its request's timestamp), the final
memory of every MR as JSON {"<rkey decimal>": "<hex of the region's bytes>"}, optionally the
stats JSON and a trace (one line per request: index, verdict, QP, PSN, opcode, responses, detail).
Exit 0, or 2 on unusable input (config error `file:line: token 'tok': message`, unreadable pcap).

Readings of docs/rdma.md where it is silent (see also the RDMA section of scripts/README.md):
  * the drop checks run in the order the contract lists them: runt/malformed, not_for_us,
    bad_icrc, unknown_qp, not_request;
  * one request at a time (docs/rdma.md "Interpretations"): the max_rd_atomic limit cannot be
    exceeded, so it never NAKs; max_rd_atomic only sizes the AQ (0 is a config error);
  * ATOMIC operands are 64-bit little-endian in host memory (docs/rdma.md), the AQE and
    AtomicAckETH big-endian (--atomic-endian big switches host memory to big-endian, to compare);
  * MSN is incremented when a READ request is executed; all its AETHs carry the new value;
  * SEND / WRITE with immediate (docs/rdma.md "Receive and completion queues"): the five RQ/CQ
    fields of a qp line come together or not at all (rnr_timer alone is allowed, default 1);
    rq_entries 0 means no RQ (then rq_posted must be 0); rq_posted above rq_entries is a config
    error (the host cannot have posted more WQEs than the ring holds before any was consumed);
    an open SEND message keeps its WQE (read once, at the first packet); the WQE is consumed and
    the RQ head advances only when the message completes; a NAK for a SEND MIDDLE/LAST or for a
    WRITE LAST (with immediate) leaves the message open, like any NAK;
  * the CQE's QPN is the responder's own QP number (the qp line's <qpn>), as ibverbs' wc.qp_num.

The code: ref_config.py (constants, config parser), ref_state.py (host memory, QP state, WQE / CQE
layouts), ref_responder.py (the responder); this module runs it and is the command line.
"""
import argparse
import json
import sys

from nettwin.common.pcap import InputError, read_pcap, write_pcap
# The reference's API, importable from here (check.py, corrupt.py, gen.py and the tests use it).
from nettwin.rdma.ref_config import (CQE_BYTES, DROP_REASONS, WQE_BYTES, ConfigError, load_config,
                                     opname, parse_config)
from nettwin.rdma.ref_responder import Responder, icrc_of
from nettwin.rdma.ref_state import CQE_FIELDS, Memory, Verdict, parse_wqe

__all__ = ["CQE_BYTES", "CQE_FIELDS", "DROP_REASONS", "WQE_BYTES", "ConfigError", "InputError", "Memory",
           "Responder", "Verdict", "icrc_of", "load_config", "opname", "parse_config", "parse_wqe", "read_pcap",
           "run", "stats_of", "trace_line", "write_json", "write_pcap"]


def stats_of(resp, verdicts):
    drops = {}
    for v in verdicts:
        if v.reason:
            drops[v.reason] = drops.get(v.reason, 0) + 1
    st = {"packets_in": len(verdicts),
          "packets_out": sum(len(v.responses) for v in verdicts),
          "drops": {r: drops[r] for r in DROP_REASONS if r in drops},
          "requests_answered": sum(1 for v in verdicts if v.reason is None)}
    st.update(resp.st)
    st["naks"] = dict(sorted(resp.st["naks"].items()))
    return st


def trace_line(i, v):
    if v.qpn is None:
        return f"{i} {v.kind} {v.detail}"
    return (f"{i} {v.kind} qp=0x{v.qpn:06x} psn=0x{v.psn:06x} op={opname(v.opcode)} "
            f"resp={len(v.responses)} {v.detail}")


def run(cfg, frames, aq_linear=False, atomic_endian="little"):
    """(Responder, [Verdict]) for [(bytes, ts)] frames."""
    resp = Responder(cfg, aq_linear, atomic_endian)
    verdicts = [resp.process(f, i) for i, (f, _) in enumerate(frames)]
    return resp, verdicts


def write_json(path, obj):
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Python reference of the RoCEv2 responder (docs/rdma.md)")
    ap.add_argument("--config", required=True, help="responder config (docs/rdma.md format)")
    ap.add_argument("--in", dest="inp", required=True, help="request pcap")
    ap.add_argument("--out", required=True, help="expected response pcap to write")
    ap.add_argument("--mem-out", required=True, help="final MR memory JSON to write")
    ap.add_argument("--stats", help="write expected stats JSON here")
    ap.add_argument("--trace", help="write one line per request (verdict, QP, PSN, detail)")
    ap.add_argument("--aq-linear", action="store_true",
                    help="duplicate ATOMIC lookup without grouping (as config 'aq_mode linear')")
    ap.add_argument("--atomic-endian", choices=("little", "big"), default="little",
                    help="byte order of ATOMIC operands in host memory (default little)")
    a = ap.parse_args(argv)
    try:
        cfg = load_config(a.config)
        frames = read_pcap(a.inp)
    except (ConfigError, InputError) as e:
        print(f"rdma_ref: error: {e}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"rdma_ref: error: {a.config}: {e}", file=sys.stderr)
        return 2
    resp, verdicts = run(cfg, frames, a.aq_linear, a.atomic_endian)
    st = stats_of(resp, verdicts)
    try:
        write_pcap(a.out, [(rb, frames[i][1]) for i, v in enumerate(verdicts) for rb in v.responses])
        write_json(a.mem_out, resp.memory_json())
        if a.stats:
            write_json(a.stats, st)
        if a.trace:
            with open(a.trace, "w") as fh:
                for i, v in enumerate(verdicts):
                    fh.write(trace_line(i, v) + "\n")
    except OSError as e:
        print(f"rdma_ref: error: {e}", file=sys.stderr)
        return 2
    print(f"rdma_ref: {st['packets_in']} requests, {st['requests_answered']} answered, "
          f"{st['packets_in'] - st['requests_answered']} dropped, {st['packets_out']} responses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
