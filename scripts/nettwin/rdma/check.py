#!/usr/bin/python3
"""Check a RoCEv2 responder run (the C++ model's or the RTL's) against docs/rdma.md.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.check --config C --in REQ.pcap --out RSP.pcap --mem-out MEM.json
      [--stats S.json] [--aq-linear] [--atomic-endian little|big] [--show N]

The Python reference (nettwin.rdma.ref) computes the expected responses and final memory.  Checks, each
reported separately (first mismatch in full, then a count):
  bytes         every response equals the reference's, in order; a missing or extra response is
                reported as such; a difference is decoded with Scapy (nettwin.rdma.layers) and named by
                its first differing field, e.g. "response 7 (request 9, QP 0x000011 PSN 0x000123
                FAA): AtomicAckETH.orig expected 0x... got 0x..."
  icrc          every response's ICRC, verified with layers.check_icrc (not with the reference)
  decode        every response decoded with Scapy and checked against its request and the config
                alone: MACs, addresses, UDP ports, TTL/hop limit 64, DF, IPv4 header checksum,
                UDP checksum 0, P_Key, destination QP, AckReq 0, pad count, response opcodes
  memory        the memory JSON: every MR's final bytes (first differing byte, its pa, what lives
                there - a CQE field, an RQ slot, a receive buffer - and the request that last
                wrote it in the reference)
  cqe           every CQ slot the reference wrote last (docs/rdma.md "Receive and completion
                queues"), decoded from the memory JSON where an MR covers it: the first differing
                field (wr_id, byte_count, imm_data, qpn, opcode, flags, psn, zero bytes) with the
                completion it should hold (QP, CQE number, the request and PSN that completed it)
  at-most-once  for every FAA target no WRITE/CAS touches: the final value equals its initial
                value plus the adds of the DISTINCT (QP, PSN) FAAs answered by an ATOMIC ACK, and
                each ATOMIC ACK's original value equals the initial value plus the adds of the
                distinct FAAs acknowledged before it (a replay returns the same value) - computed
                from the requests and the responses under test, not from the reference (targets
                that a WRITE, CAS, receive buffer or CQ may overlap are left out)
  stats         (--stats) packets_in, packets_out, reads, drops by reason
Exit 0 when everything matches, 1 on any mismatch, 2 on unusable input.
"""
import argparse
import json
import sys

from nettwin.common.report import Report, unusable
from nettwin.rdma import ref as rdma_ref
from nettwin.common.pcap import align
from nettwin.rdma.ref import ConfigError, InputError, opname
from nettwin.rdma.check_decode import brief, decode, decode_check, field_diff
from nettwin.rdma.check_memory import Regions, at_most_once, check_cqes


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="Check a RoCEv2 responder run against docs/rdma.md")
    ap.add_argument("--config", required=True)
    ap.add_argument("--in", dest="inp", required=True, help="request pcap given to the responder")
    ap.add_argument("--out", required=True, help="response pcap produced by the responder")
    ap.add_argument("--mem-out", required=True, help="final MR memory JSON produced by the responder")
    ap.add_argument("--stats", help="stats JSON produced by the responder")
    ap.add_argument("--aq-linear", action="store_true", help="the run used --aq-linear")
    ap.add_argument("--atomic-endian", choices=("little", "big"), default="little")
    ap.add_argument("--show", type=int, default=1, metavar="N",
                    help="print the first N mismatches of each check (default 1)")
    a = ap.parse_args(argv)
    try:
        cfg = rdma_ref.load_config(a.config)
        frames_in = rdma_ref.read_pcap(a.inp)
        frames_out = rdma_ref.read_pcap(a.out)
        try:
            with open(a.mem_out) as fh:
                mem_dut = json.load(fh)
        except (OSError, ValueError) as e:
            raise InputError(f"{a.mem_out}: cannot read memory JSON ({e})") from None
        if not isinstance(mem_dut, dict):
            raise InputError(f"{a.mem_out}: not a JSON object")
        stats_dut = None
        if a.stats:
            try:
                with open(a.stats) as fh:
                    stats_dut = json.load(fh)
            except (OSError, ValueError) as e:
                raise InputError(f"{a.stats}: cannot read stats JSON ({e})") from None
    except (ConfigError, InputError, OSError, UnicodeDecodeError) as e:
        return unusable("rdma_check", e)

    resp, verdicts = rdma_ref.run(cfg, frames_in, a.aq_linear, a.atomic_endian)
    exp = []            # (bytes, request index)
    for i, v in enumerate(verdicts):
        for rb in v.responses:
            exp.append((rb, i))
    rep = Report("rdma_check", a.show)

    by_qp_psn = {}
    for i, v in enumerate(verdicts):
        if v.qpn is not None:
            by_qp_psn.setdefault((v.qpn, v.psn), []).append(i)
    dest = {}
    for q in cfg.qps.values():
        dest.setdefault(q.dest_qp, []).append(q.qpn)

    def answers(frame, near):
        """'; it answers request i (...), for which the reference expects ...' for a response."""
        try:
            from nettwin.rdma.layers import BTH
            b = decode(frame)[BTH]
        except Exception:
            return ""
        cands = [i for q in dest.get(b.dqpn, []) for i in by_qp_psn.get((q, b.psn), [])]
        if not cands:
            return ""
        i = min(cands, key=lambda x: abs(x - near))
        v = verdicts[i]
        return (f"; it answers request {i} (QP 0x{v.qpn:06x} PSN 0x{v.psn:06x} {opname(v.opcode)}), for which "
                f"the reference expects {v.kind} with {len(v.responses)} response(s)"
                + (f" ({v.detail})" if v.detail else ""))

    def who(k):
        i = exp[k][1]
        v = verdicts[i]
        return f"request {i}, QP 0x{v.qpn:06x} PSN 0x{v.psn:06x} {opname(v.opcode)}"

    # bytes / icrc / decode
    if len(frames_out) != len(exp):
        rep.fail("count", f"expected {len(exp)} responses, got {len(frames_out)}")
    from nettwin.rdma.layers import check_icrc
    for j, (f, _) in enumerate(frames_out):
        if not check_icrc(f):
            rep.fail("icrc", f"response {j} ({brief(f)}): ICRC {bytes(f[-4:]).hex()} is wrong")
    for kind, k, j in align([e for e, _ in exp], [f for f, _ in frames_out]):
        if kind == "extra":
            near = f" (after the response to {who(k - 1)})" if k > 0 else ""
            rep.fail("bytes", f"response {j}: unexpected extra response {brief(frames_out[j][0])}{near}"
                     f"{answers(frames_out[j][0], exp[min(k, len(exp) - 1)][1] if exp else 0)}")
            continue
        if kind == "missing":
            rep.fail("bytes", f"response {j} ({who(k)}): missing, expected {brief(exp[k][0])}")
            continue
        rb, i = exp[k]
        got = frames_out[j][0]
        if kind == "diff":
            rep.fail("bytes", f"response {j} ({who(k)}): {field_diff(rb, got)}")
        try:
            err = decode_check(cfg, frames_in[i][0], got, verdicts[i].opcode)
        except Exception as e:
            err = f"cannot decode ({type(e).__name__}: {e})"
        if err:
            rep.fail("decode", f"response {j} ({who(k)}): {err}")

    # memory
    regions = Regions(cfg, resp)
    mem_ref = resp.memory_json()
    for key, hexref in mem_ref.items():
        mr = cfg.mrs[int(key)]
        got = mem_dut.get(key)
        if not isinstance(got, str):
            rep.fail("memory", f"rkey {key} (0x{int(key):08x}): missing from {a.mem_out}")
            continue
        try:
            gb = bytes.fromhex(got)
        except ValueError:
            rep.fail("memory", f"rkey {key} (0x{int(key):08x}): not a hex string")
            continue
        eb = bytes.fromhex(hexref)
        if gb != eb:
            n = min(len(eb), len(gb))
            off = next((x for x in range(n) if eb[x] != gb[x]), n)
            if off == n:
                rep.fail("memory", f"rkey {key} (0x{int(key):08x}): {len(gb)} bytes, the MR has {len(eb)}")
            else:
                w = resp.mem.writer.get(mr.pa + off)
                where = regions.describe(mr.pa + off)
                rep.fail("memory", f"rkey {key} (0x{int(key):08x}) byte {off} (va 0x{mr.va + off:x} pa "
                         f"0x{mr.pa + off:x}{', ' + where if where else ''}): expected 0x{eb[off]:02x} "
                         f"got 0x{gb[off]:02x} "
                         + (f"(last written by request {w}: {opname(verdicts[w].opcode)} PSN 0x{verdicts[w].psn:06x})"
                            if w is not None else "(never written: initial value)"))
    for key in mem_dut:
        if key not in mem_ref:
            rep.fail("memory", f"key {key!r} is not the rkey of an MR")

    # CQEs
    n_cqe = check_cqes(cfg, resp, verdicts, mem_dut, rep)

    # at-most-once
    n_amo = at_most_once(cfg, frames_in, frames_out, mem_dut, a.atomic_endian, rep)

    # stats
    exp_stats = rdma_ref.stats_of(resp, verdicts)
    if stats_dut is not None:
        if not isinstance(stats_dut, dict) or not isinstance(stats_dut.get("drops", {}), dict):
            rep.fail("stats", "stats JSON is not an object with a 'drops' object")
        else:
            for k in ("packets_in", "packets_out"):
                if stats_dut.get(k) != exp_stats[k]:
                    rep.fail("stats", f"{k}: expected {exp_stats[k]} got {stats_dut.get(k)}")
            # READs executed, new or again (the responder's `reads` counter, rtl/rdma/data/rdma.json)
            want_reads = exp_stats["reads_executed"] + exp_stats["read_replays"]
            if "reads" in stats_dut and stats_dut["reads"] != want_reads:
                rep.fail("stats", f"reads: expected {want_reads} got {stats_dut['reads']}")
            gd = stats_dut.get("drops", {})
            for r in list(rdma_ref.DROP_REASONS) + sorted(set(gd) - set(rdma_ref.DROP_REASONS)):
                e, g = exp_stats["drops"].get(r, 0), gd.get(r, 0)
                if e != g:
                    first = next((i for i, v in enumerate(verdicts) if v.reason == r), None)
                    note = " (not a drop reason of docs/rdma.md)" if r not in rdma_ref.DROP_REASONS else ""
                    rep.fail("stats", f"drops.{r}: expected {e} got {g}{note}"
                             + (f" (first request with this reason: {first})" if first is not None else ""))

    return rep.finish(f"{len(frames_in)} requests, {len(exp)} responses byte-exact, ICRC and "
                      f"decode ok, {len(mem_ref)} MRs match, {n_cqe} CQEs match, at-most-once holds on {n_amo} FAA "
                      f"targets" + (", stats match" if stats_dut is not None else ""))


if __name__ == "__main__":
    sys.exit(main())
