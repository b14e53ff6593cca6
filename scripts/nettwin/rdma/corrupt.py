#!/usr/bin/python3
"""Write deliberately damaged copies of a responder run, to prove nettwin.rdma.check notices
(self-test helper for rdma/test_scripts.sh).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.corrupt --mode MODE --config C --in REQ.pcap \
      --out RSP.pcap --mem-out MEM.json [--stats S.json] --dest DIR [--index N]

Copies RSP.pcap / MEM.json / S.json to DIR/rsp.pcap, DIR/mem.json, DIR/stats.json with one fault:
  atomic-orig   AtomicAckETH.orig of ATOMIC ACK number N (default: the middle one) + 1, ICRC redone
  replay        the same, on the first ATOMIC ACK that repeats an earlier one's QP and PSN (an
                AQ replay): as if the retransmitted ATOMIC had been executed again
  msn           AETH.msn of ACK number N + 1, ICRC redone
  psn           BTH.psn of response N + 1, ICRC redone
  syndrome      AETH.syndrome of ACK number N set to 0x63, ICRC redone
  ttl           IPv4 TTL of IPv4 response N - 1 (header checksum fixed; ICRC still right: masked)
  payload       one byte of READ response N's payload, ICRC redone
  icrc          one bit of response N's ICRC
  drop / dup    response N removed / duplicated
  swap          responses N and N+1 swapped
  mem-byte      one byte of MR N's final memory (default: the first MR written)
  faa-double    one FAA target's final value gets that FAA's add a second time (as if it had
                been executed again)
  rnr           the RNR timer bits of RNR NAK number N flipped (syndrome 0x20|t -> 0x20|(t^1)), ICRC redone
  cqe           the byte count of CQE number N (of those the reference leaves in a CQ covered by an
                MR) + 1 in the memory JSON
  stats         packets_out + 1
  stats-drop    drops.rnr_nak = 1 (an RNR NAK is an answer, not a drop)
Prints what it changed.
"""
import argparse
import json
import os
import sys

from nettwin.rdma import ref as rdma_ref
from nettwin.rdma.layers import set_icrc, fix_ipv4_checksum

MODES = ("atomic-orig", "replay", "msn", "psn", "syndrome", "ttl", "payload", "icrc", "drop", "dup", "swap",
         "mem-byte", "faa-double", "stats", "stats-drop", "rnr", "cqe")


def bth_off(f):
    return 14 + (20 if f[12:14] == b"\x08\x00" else 40) + 8


def pick(cands, index, what):
    if not cands:
        sys.exit(f"rdma_corrupt: error: no {what} in the responses")
    return cands[len(cands) // 2] if index is None else cands[index % len(cands)]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Damage a responder run on purpose")
    ap.add_argument("--mode", required=True, choices=MODES)
    ap.add_argument("--config", required=True)
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mem-out", required=True)
    ap.add_argument("--stats")
    ap.add_argument("--dest", required=True)
    ap.add_argument("--index", type=int)
    ap.add_argument("--atomic-endian", choices=("little", "big"), default="little")
    a = ap.parse_args(argv)
    os.makedirs(a.dest, exist_ok=True)
    frames = rdma_ref.read_pcap(a.out)
    with open(a.mem_out) as fh:
        mem = json.load(fh)
    stats = None
    if a.stats:
        with open(a.stats) as fh:
            stats = json.load(fh)
    cfg = rdma_ref.load_config(a.config)
    m, n = a.mode, a.index
    msg = ""
    if m in ("atomic-orig", "replay", "msn", "psn", "syndrome", "ttl", "payload", "icrc", "rnr"):
        ops = [(j, f[bth_off(f)]) for j, (f, _) in enumerate(frames)]
        if m == "atomic-orig":
            j = pick([j for j, o in ops if o == 0x12], n, "ATOMIC ACK")
        elif m == "replay":               # prefer replays of FAAs on targets only FAAs touch
            from nettwin.rdma import check_memory as rdma_check
            faa, targets, _ = rdma_check.faa_targets(cfg, rdma_ref.read_pcap(a.inp), a.atomic_endian)
            dest = {}
            for q in cfg.qps.values():
                dest.setdefault(q.dest_qp, []).append(q.qpn)
            seen, reps, faa_reps = set(), [], []
            for j, o in ops:
                if o == 0x12:
                    f = frames[j][0]
                    b = bth_off(f)
                    key = bytes(f[b + 5:b + 12])
                    if key in seen:
                        reps.append(j)
                        psn = int.from_bytes(f[b + 9:b + 12], "big")
                        qs = [q for q in dest.get(int.from_bytes(f[b + 5:b + 8], "big"), [])
                              if any(pa in targets for pa, _ in faa.get((q, psn), ()))]
                        if qs:
                            faa_reps.append(j)
                    seen.add(key)
            reps = faa_reps or reps
            j = pick(reps, 0 if n is None else n, "replayed ATOMIC ACK")
        elif m in ("msn", "syndrome"):
            j = pick([j for j, o in ops if o == 0x11], n, "ACK")
        elif m == "rnr":
            j = pick([j for j, o in ops if o == 0x11 and frames[j][0][bth_off(frames[j][0]) + 12] >> 5 == 1],
                     n, "RNR NAK")
        elif m == "ttl":
            j = pick([j for j, (f, _) in enumerate(frames) if f[12:14] == b"\x08\x00"], n, "IPv4 response")
        elif m == "payload":
            j = pick([j for j, o in ops if o in (0x0D, 0x0E, 0x0F, 0x10)
                      and len(frames[j][0]) - 4 - (frames[j][0][bth_off(frames[j][0]) + 1] >> 4 & 3)
                      > bth_off(frames[j][0]) + 12 + (0 if o == 0x0E else 4)], n, "READ response with data")
        else:
            j = pick(list(range(len(frames))), n, "response")
        f = bytearray(frames[j][0])
        b = bth_off(f)
        if m in ("atomic-orig", "replay"):
            o = b + 12 + 4
            f[o:o + 8] = ((int.from_bytes(f[o:o + 8], "big") + 1) % (1 << 64)).to_bytes(8, "big")
        elif m == "msn":
            f[b + 13:b + 16] = ((int.from_bytes(f[b + 13:b + 16], "big") + 1) % (1 << 24)).to_bytes(3, "big")
        elif m == "psn":
            f[b + 9:b + 12] = ((int.from_bytes(f[b + 9:b + 12], "big") + 1) % (1 << 24)).to_bytes(3, "big")
        elif m == "syndrome":
            f[b + 12] = 0x63
        elif m == "rnr":
            f[b + 12] ^= 0x01
        elif m == "ttl":
            f[22] = (f[22] - 1) % 256
        elif m == "payload":
            hdr = 12 + (0 if f[b] == 0x0E else 4)
            f[b + hdr] ^= 0x20
        if m == "icrc":
            f[-1] ^= 0x01
        elif m == "ttl":
            f = bytearray(fix_ipv4_checksum(bytes(f)))
        else:
            f = bytearray(set_icrc(bytes(f)))
        frames[j] = (bytes(f), frames[j][1])
        msg = f"response {j}"
    elif m in ("drop", "dup", "swap"):
        j = len(frames) // 2 if n is None else n
        if m == "drop":
            del frames[j]
        elif m == "dup":
            frames.insert(j, frames[j])
        else:
            frames[j], frames[j + 1] = frames[j + 1], frames[j]
        msg = f"response {j}"
    elif m == "mem-byte":
        keys = list(mem)
        if n is None:
            init = {str(r): bytes(mr.length) for r, mr in cfg.mrs.items()}
            key = next((k for k in keys if mem[k] != init.get(k)), keys[0])
        else:
            key = keys[n % len(keys)]
        b = bytearray.fromhex(mem[key])
        off = len(b) // 2
        b[off] ^= 0x01
        mem[key] = b.hex()
        msg = f"rkey {key} byte {off}"
    elif m == "faa-double":
        from nettwin.rdma import check_memory as rdma_check
        frames_in = rdma_ref.read_pcap(a.inp)
        faa, targets, _ = rdma_check.faa_targets(cfg, frames_in, a.atomic_endian)
        cands = sorted((pa, add) for s in faa.values() for pa, add in s if pa in targets and add)
        if not cands:
            sys.exit("rdma_corrupt: error: no FAA target to damage")
        pa, add = cands[len(cands) // 2 if n is None else n % len(cands)]
        for r, mr in cfg.mrs.items():
            if mr.pa <= pa and pa + 8 <= mr.pa + mr.length:
                b = bytearray.fromhex(mem[str(r)])
                o = pa - mr.pa
                v = (int.from_bytes(b[o:o + 8], a.atomic_endian) + add) % (1 << 64)
                b[o:o + 8] = v.to_bytes(8, a.atomic_endian)
                mem[str(r)] = b.hex()
                break
        msg = f"FAA target pa 0x{pa:x} + 0x{add:x}"
    elif m == "cqe":
        from nettwin.rdma import check_memory as rdma_check
        resp, verdicts = rdma_ref.run(cfg, rdma_ref.read_pcap(a.inp))
        final = rdma_check.Regions(cfg, resp).final
        cands = []
        for (qpn, slot), c in sorted(final.items()):
            for r, mr in cfg.mrs.items():
                if mr.pa <= c.pa and c.pa + 32 <= mr.pa + mr.length:
                    cands.append((str(r), c.pa - mr.pa, c))
                    break
        key, o, c = pick(cands, n, "CQE in an MR")
        b = bytearray.fromhex(mem[key])
        v = (int.from_bytes(b[o + 4:o + 8], "little") + 1) % (1 << 32)
        b[o + 4:o + 8] = v.to_bytes(4, "little")
        mem[key] = b.hex()
        msg = f"QP 0x{c.qpn:06x} CQE {c.index} byte count -> {v}"
    elif m in ("stats", "stats-drop"):
        if stats is None:
            sys.exit("rdma_corrupt: error: --stats needed")
        if m == "stats":
            stats["packets_out"] += 1
        else:
            stats.setdefault("drops", {})["rnr_nak"] = 1
        msg = "stats"
    rdma_ref.write_pcap(os.path.join(a.dest, "rsp.pcap"), frames)
    rdma_ref.write_json(os.path.join(a.dest, "mem.json"), mem)
    if stats is not None:
        rdma_ref.write_json(os.path.join(a.dest, "stats.json"), stats)
    elif os.path.exists(os.path.join(a.dest, "stats.json")):
        os.remove(os.path.join(a.dest, "stats.json"))
    print(f"rdma_corrupt: {m}: {msg} -> {a.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
