#!/usr/bin/python3
"""Seeded scenario generator for the RoCEv2 responder (docs/rdma.md).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.gen --seed N --out-dir D [--scenario NAME] [--manifest]
      [--aq-mode grouped|linear] [--no-check]

Writes D/responder.txt (config), D/requests.pcap and D/expect_memory.json.  The same seed always
gives the same bytes.  Scenarios (each on its own QPs and memory regions but the two shared RQ/CQ
and receive-buffer MRs; at most 16 QPs and 16 MRs in any config, including mixed, which the C++
tool requires):

  traffic    WRITE (only / first-middle-last, with immediate, AckReq), SEND and READ (0 .. several
             MTUs, unaligned lengths) on 4 QPs with receive queues: IPv4, IPv6, both families on
             one QP, MTU 256..4096; receive buffers and a CQ read back
  atomic     CAS (success and failure) and FAA on one QP with an AQ of 128 entries (2 groups),
             more atomics than the AQ holds (it wraps), each executed atomic retransmitted
             again at a random later point with every distance 1 .. depth+4 (in atomics) back
             (found up to depth, NAK beyond), writes in between; the AQ is visible through a
             read-only MR
  lostack    lost ACKs: Go-Back-N retransmission of executed WRITE/READ/ATOMIC requests, a READ
             retransmitted after its memory changed, a partial READ retransmission, AQ replays
  reorder    swapped, lost and duplicated requests: one PSN-sequence-error NAK then silence,
             Go-Back-N from the ePSN, a lost WRITE MIDDLE, ahead READ/ATOMIC
  badreq     unknown rkey, missing access right, out of bounds (incl. va + len past 2^64),
             misaligned ATOMIC, WRITE length errors, opcode sequence errors, READ length 2^31
             vs 2^31+1, SEND / WRITE with immediate on a QP without a receive queue, SEND
             sequence and length errors; the first failing check wins; each NAK is followed by
             silently dropped later packets and the corrected retransmission (one QP, IPv4 and
             IPv6)
  psnwrap    ePSN near 0xFFFFF0: multi-packet WRITE and READ and atomics across 2^24,
             duplicates and AQ replays across the wrap, ahead window edges 2^23-1 / 2^23
  icrc       bad ICRC (ICRC, payload, unmasked header fields, ATOMIC operand) -> dropped with
             no effect; masked fields (TOS, TTL, flow label, hop limit, UDP checksum, FECN/BECN)
             changed after the ICRC was computed -> still accepted; a SEND with a bad ICRC
             consumes no WQE (one QP, IPv4 and IPv6)
  malformed  runt and malformed frames, not_for_us, unknown_qp, not_request (response opcodes),
             drop-reason priorities
  send       SEND first/middle/last/only with and without immediate and WRITE with immediate on
             three QPs: one with a WQE per message (CQEs, exact-fit buffers, AckReq, lost ACKs and
             Go-Back-N over SENDs, a first/only and a middle packet overflowing its buffer, an
             ahead SEND, opcode-sequence errors around open SEND/WRITE messages), one with three
             posted WQEs and a 2-entry CQ (wraps; then RNR NAKs for SEND and WRITE with immediate,
             check priorities, a WRITE LAST IMM refused while its WRITE stays open), one without
             a receive queue (NAK invalid request)
  mixed      (default) all of the above, interleaved at random (each QP's order preserved)
  edge       (not in mixed) cases where docs/rdma.md is silent, with the reference's reading:
             see the RDMA section of scripts/README.md
  sendstream (not in mixed) SENDs back to back through the receive-WQE prefetch ring: more posted
             WQEs than the ring holds, an RQ size no multiple of the 4-WQE read, full-MTU and
             multi-packet SENDs, WRITEs with immediate among them, RNR once the posted WQEs are
             used up; a second QP's short SENDs interleaved (gen_pipe.py)
  hotatomic  (not in mixed) FAA / CAS streams on one hot word from two QPs (forwarded on chip),
             atomics on another word, READs and WRITEs of the hot word and retransmissions of
             hot-word atomics in between (gen_pipe.py)

lostack, reorder, psnwrap and icrc also send SENDs and WRITEs with immediate (their QPs have
receive queues that never run out: a WQE is posted for every message built); badreq's QP has none.
Every QP with an RQ keeps its RQ ring and CQ in one shared read-only MR and its receive buffers in
one shared read/write MR (also the send scenario's WRITE targets), so expect_memory.json holds every
CQE and receive-buffer byte.

The generator is a requester plus its own small model of the responder: it knows by construction
what each request should do (executed, duplicate, NAK, drop and why) and what host memory must
hold at the end; that model is written here, not taken from nettwin.rdma.ref.  expect_memory.json is
the generator's own memory.  Unless --no-check, the generator then runs nettwin.rdma.ref and exits 1
if the reference disagrees with its intent for any packet or with its final memory, or if the
scenario misses a feature it must cover.  --manifest writes D/manifest.txt (one line per packet:
intent, QP, PSN, opcode, what it tests).

The code: gen_model.py (the requester and its model of the responder), gen_state.py (one run: allocation,
streams, config, expected memory), gen_traffic.py / gen_errors.py / gen_send.py (the scenarios); this
module is the driver and the cross-check.
"""
import argparse
import os
import sys
from collections import defaultdict

from nettwin.rdma.gen_errors import sc_badreq, sc_icrc, sc_malformed
from nettwin.rdma.gen_model import ALL_SCENARIOS, SCENARIOS, TS0, TS_STEP
from nettwin.rdma.gen_pipe import sc_hotatomic, sc_sendstream
from nettwin.rdma.gen_send import sc_edge, sc_send
from nettwin.rdma.gen_state import Gen, interleave
from nettwin.rdma.gen_traffic import sc_atomic, sc_lostack, sc_psnwrap, sc_reorder, sc_traffic


SCENARIO_FUNCS = {"traffic": sc_traffic, "atomic": sc_atomic, "lostack": sc_lostack,
                  "reorder": sc_reorder, "badreq": sc_badreq, "psnwrap": sc_psnwrap,
                  "icrc": sc_icrc, "malformed": sc_malformed, "send": sc_send, "edge": sc_edge,
                  "sendstream": sc_sendstream, "hotatomic": sc_hotatomic}


# =============================================================================================
# Driver
# =============================================================================================

def generate(seed, scenario):
    g = Gen(seed)
    names = SCENARIOS if scenario == "mixed" else (scenario,)
    streams = []
    for name in names:
        n0 = len(g.flows)
        ev = SCENARIO_FUNCS[name](g)
        for f in g.flows[n0:]:
            f.scenario = name
        for e in ev:
            e["scenario"] = name
        streams.append(ev)
    events = interleave(g.rng, streams) if len(streams) > 1 else streams[0]
    assert len(g.flows) <= 16 and len(g.mrs) <= 16, \
        f"{len(g.flows)} QPs / {len(g.mrs)} MRs: the C++ tool takes at most 16 of each"
    return g, events


REQUIRED = {
    "traffic": {"exec", "multi_write", "multi_read", "imm", "ipv4", "ipv6", "send_only", "multi_send",
                "write_imm_cqe", "cq_wrap"},
    "atomic": {"exec", "dup", "dup-nak-inv", "faa", "cas_success", "cas_fail", "aq_wrap"},
    "lostack": {"exec", "dup", "multi_send"},
    "reorder": {"exec", "dup", "nak-seq", "drop:psn_ahead_silent", "multi_send"},
    "badreq": {"exec", "nak-inv", "nak-acc", "drop:psn_ahead_silent"},
    "psnwrap": {"exec", "dup", "nak-seq", "dup-nak-inv", "multi_send", "write_imm_cqe", "cq_wrap"},
    "icrc": {"exec", "drop:bad_icrc", "nak-seq", "dup"},
    "malformed": {"exec", "drop:runt", "drop:malformed", "drop:not_for_us", "drop:unknown_qp",
                  "drop:not_request", "drop:bad_icrc"},
    "send": {"exec", "dup", "nak-inv", "nak-rnr", "nak-seq", "nak-acc", "drop:psn_ahead_silent",
             "send_first", "send_middle", "send_last", "send_last_imm", "send_only", "send_only_imm",
             "multi_send", "write_imm_cqe", "write_imm_nak-inv", "write_imm_nak-rnr", "send_nak-inv",
             "send_nak-rnr", "send_overflow", "send_overflow_later", "cq_wrap"},
    "edge": {"exec", "dup", "nak-inv", "nak-acc", "dup-nak-acc", "dup-nak-inv"},
    "sendstream": {"exec", "send_only", "multi_send", "write_imm_cqe", "nak-rnr", "cq_wrap"},
    "hotatomic": {"exec", "dup", "faa", "cas_success", "cas_fail"},
}


def main(argv=None):
    ap = argparse.ArgumentParser(description="Seeded RoCEv2 responder scenarios (docs/rdma.md)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--scenario", default="mixed", choices=("mixed",) + ALL_SCENARIOS)
    ap.add_argument("--manifest", action="store_true", help="also write D/manifest.txt")
    ap.add_argument("--aq-mode", choices=("grouped", "linear"),
                    help="write 'aq_mode MODE' on the responder line (default: no aq_mode, i.e. grouped)")
    ap.add_argument("--no-check", action="store_true",
                    help="do not cross-check the intent and memory with nettwin.rdma.ref")
    a = ap.parse_args(argv)
    g, events = generate(a.seed, a.scenario)
    frames = [(e["frame"], TS0 + i * TS_STEP) for i, e in enumerate(events)]
    cfg_text = g.config_text(a.scenario, a.seed, a.aq_mode)
    mem = g.expect_memory()
    from nettwin.rdma import ref as rdma_ref
    try:
        os.makedirs(a.out_dir, exist_ok=True)
        with open(os.path.join(a.out_dir, "responder.txt"), "w") as fh:
            fh.write(cfg_text)
        rdma_ref.write_pcap(os.path.join(a.out_dir, "requests.pcap"), frames)
        rdma_ref.write_json(os.path.join(a.out_dir, "expect_memory.json"), mem)
        if a.manifest:
            with open(os.path.join(a.out_dir, "manifest.txt"), "w") as fh:
                for i, e in enumerate(events):
                    q = f"qp=0x{e['qpn']:06x}" if e["qpn"] is not None else "qp=-"
                    p = f"psn=0x{e['psn']:06x}" if e["psn"] is not None else "psn=-"
                    fh.write(f"{i} {e['intent']} {q} {p} [{e['scenario']}] {e['note']}\n")
    except OSError as e:
        print(f"rdma_gen: error: cannot write to {a.out_dir}: {e}", file=sys.stderr)
        return 2
    counts = defaultdict(int)
    for e in events:
        counts[e["intent"]] += 1
    print(f"rdma_gen: seed {a.seed} scenario {a.scenario}: {len(events)} requests, {len(g.flows)} QPs, "
          f"{len(g.mrs)} MRs -> {a.out_dir}")
    print("  intents: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if a.no_check:
        return 0

    # ---- cross-check with the reference: intent per packet, final memory, coverage
    cfg = rdma_ref.parse_config(cfg_text, "responder.txt")
    resp, verdicts = rdma_ref.run(cfg, frames)
    bad = 0
    for i, (e, v) in enumerate(zip(events, verdicts)):
        if e["intent"] != v.kind:
            if bad < 10:
                print(f"rdma_gen: DISAGREE packet {i} [{e['scenario']}] {e['note']}: generator intends "
                      f"{e['intent']}, rdma_ref says {v.kind} ({v.detail})")
            bad += 1
    rmem = resp.memory_json()
    for k in mem:
        if mem[k] != rmem.get(k):
            a_, b_ = bytes.fromhex(mem[k]), bytes.fromhex(rmem.get(k, ""))
            off = next((x for x in range(min(len(a_), len(b_))) if a_[x] != b_[x]), min(len(a_), len(b_)))
            mr = cfg.mrs[int(k)]
            print(f"rdma_gen: DISAGREE memory rkey {k}: first difference at byte {off} "
                  f"(pa 0x{mr.pa + off:x}): generator 0x{a_[off:off + 1].hex()} reference "
                  f"0x{b_[off:off + 1].hex()} (last written by request {resp.mem.writer.get(mr.pa + off)})")
            bad += 1
    feats = set(counts)
    for f in g.flows:
        feats |= f.features
        feats.add(f"ipv{f.family}" if f.family != "mixed" else "ipv4")
        if f.family in (6, "mixed"):
            feats.add("ipv6")
    feats |= g.features
    want = set().union(*(REQUIRED[n] for n in (SCENARIOS if a.scenario == "mixed" else (a.scenario,))))
    if a.scenario == "mixed":
        want |= {"drop:" + r for r in rdma_ref.DROP_REASONS}
    missing = sorted(want - feats)
    if missing:
        print(f"rdma_gen: coverage: missing {', '.join(missing)}")
        bad += 1
    if bad:
        print(f"rdma_gen: FAIL: the generator's model and nettwin.rdma.ref disagree ({bad})")
        return 1
    print("rdma_gen: nettwin.rdma.ref agrees with every intent and with expect_memory.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
