#!/usr/bin/python3
"""Hazard-pair vectors for the RoCEv2 responder (docs/rdma.md "Hazards").

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.rdma.hazard_gen --seed N --out-dir D   (module nettwin.rdma.hazard_gen)

Writes D/responder.txt and D/requests.pcap: every ordered pair (A, B) of WRITE, READ, FAA and CAS,
sent back to back, once with B touching bytes A touches and once disjoint, on one QP and (for the
overlapping case) with B on a second QP sharing the memory region; then chains on one word (WRITE,
FAA, CAS, READ; four FAAs; a multi-packet READ followed by a WRITE over its bytes). Each pair has its
own stretch of a random-filled memory region, so a result that saw the wrong order shows up in the
final memory or in a response byte. The expected responses and memory are not written here: the
independent reference (nettwin.rdma.ref, via nettwin.rdma.check) computes them from these requests.

The generator keeps its own copy of memory (in PSN order) to pick CAS compare values: every other CAS
is built to succeed (compare = the value the word holds after the requests before it), the rest to
fail. Unless --no-check it then runs nettwin.rdma.ref and exits 1 unless the reference executes every request
and ends with the generator's memory, so a vector cannot silently lose its hazards to a NAK.
"""
import argparse
import os
import random
import sys

from nettwin.common.pcap import write_pcap
from nettwin.rdma import ref as rdma_ref
from nettwin.rdma.layers import AtomicETH, RETH, build_request

MAC_R, MAC_Q = "02:00:00:00:00:01", "02:00:00:00:00:02"
IP_R, IP_Q = "10.0.0.1", "10.0.0.2"
QPS = (0x11, 0x12)
RKEY, VA, PA, MR_LEN = 0x1000, 0x10000000, 0x40000000, 0x20000
MTU = 1024
STRETCH = 0x800         # memory per pair
KINDS = ("WRITE", "READ", "FAA", "CAS")
OP_WRITE_ONLY, OP_READ, OP_CAS, OP_FAA = 0x0A, 0x0C, 0x13, 0x14
OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_LAST = 0x06, 0x07, 0x08
M64 = (1 << 64) - 1


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.mem = bytearray(self.rng.getrandbits(8) for _ in range(MR_LEN))
        self.psn = {q: self.rng.randrange(1 << 24) for q in QPS}
        self.frames = []
        self.cas_n = 0

    def _send(self, qp, opcode, ext=(), payload=b"", npsn=1):
        psn = self.psn[qp]
        self.frames.append(build_request(4, MAC_Q, MAC_R, IP_Q, IP_R, 49152 + qp, opcode, qp, psn,
                                         ackreq=True, ext=ext, payload=payload))
        self.psn[qp] = (psn + npsn) % (1 << 24)

    def word(self, off):
        return int.from_bytes(self.mem[off:off + 8], "little")

    def set_word(self, off, v):
        self.mem[off:off + 8] = (v & M64).to_bytes(8, "little")

    def write(self, qp, off, length):
        data = bytes(self.rng.getrandbits(8) for _ in range(length))
        if length <= MTU:
            self._send(qp, OP_WRITE_ONLY, [RETH(va=VA + off, rkey=RKEY, dlen=length)], data)
        else:   # first / middle... / last, each but the last one MTU
            self._send(qp, OP_WRITE_FIRST, [RETH(va=VA + off, rkey=RKEY, dlen=length)], data[:MTU])
            pos = MTU
            while length - pos > MTU:
                self._send(qp, OP_WRITE_MIDDLE, (), data[pos:pos + MTU])
                pos += MTU
            self._send(qp, OP_WRITE_LAST, (), data[pos:])
        self.mem[off:off + length] = data

    def read(self, qp, off, length):
        self._send(qp, OP_READ, [RETH(va=VA + off, rkey=RKEY, dlen=length)], npsn=max(1, -(-length // MTU)))

    def faa(self, qp, off):
        add = self.rng.getrandbits(64)
        self._send(qp, OP_FAA, [AtomicETH(va=VA + off, rkey=RKEY, swap_add=add, compare=0)])
        self.set_word(off, self.word(off) + add)

    def cas(self, qp, off):
        self.cas_n += 1
        hit = self.cas_n % 2 == 1
        cmp_ = self.word(off) if hit else self.word(off) ^ (1 << self.rng.randrange(64))
        swap = self.rng.getrandbits(64)
        self._send(qp, OP_CAS, [AtomicETH(va=VA + off, rkey=RKEY, swap_add=swap, compare=cmp_)])
        if hit:
            self.set_word(off, swap)

    def access(self, kind, qp, off, length):
        """kind at off: WRITE/READ of `length` bytes, an atomic on the 8-byte-aligned word at off."""
        if kind == "WRITE":
            self.write(qp, off, length)
        elif kind == "READ":
            self.read(qp, off, length)
        elif kind == "FAA":
            self.faa(qp, off & ~7)
        else:
            self.cas(qp, off & ~7)

    def pairs(self):
        n = 0
        for a in KINDS:
            for b in KINDS:
                for case in ("overlap", "overlap-other-qp", "disjoint"):
                    base = n * STRETCH
                    n += 1
                    word = base + 0x100 + 8 * self.rng.randrange(8)
                    # A WRITE/READ covers the word, unaligned at both ends and sometimes over a beat edge.
                    a_off = word - self.rng.randrange(1, 70)
                    self.access(a, QPS[0], a_off if a in ("WRITE", "READ") else word,
                                self.rng.randrange(80, 200))
                    if case == "disjoint":
                        b_off = base + 0x400 + 8 * self.rng.randrange(8)
                    else:    # B's bytes overlap A's: the same word, or a range that starts inside it
                        b_off = word + (self.rng.randrange(0, 8) if b in ("WRITE", "READ") else 0)
                    self.access(b, QPS[1] if case == "overlap-other-qp" else QPS[0], b_off,
                                self.rng.randrange(1, 100))
        return n

    def chains(self, base):
        w = base + 0x200
        self.write(QPS[0], w - 5, 40)      # WRITE, then atomics and a READ of the same word
        self.faa(QPS[0], w)
        self.cas(QPS[0], w)
        self.cas(QPS[0], w)
        self.read(QPS[0], w - 16, 48)
        for _ in range(4):                 # atomic after atomic, same word
            self.faa(QPS[0], w + 64)
        self.read(QPS[0], w + 56, 24)
        big = base + 0x1000                 # a 3-response READ, then WRITEs over its bytes
        self.read(QPS[0], big, 2 * MTU + 100)
        self.write(QPS[0], big + MTU - 10, 2 * MTU + 30)   # multi-packet WRITE over the READ's bytes
        self.read(QPS[0], big, 2 * MTU + 100)
        self.faa(QPS[0], big + MTU)
        self.read(QPS[0], big + MTU - 8, 24)

    def config(self, initial):
        lines = ["# generated by rdma_hazard_gen.py: hazard pairs, see docs/rdma.md \"Hazards\"",
                 f"responder mac {MAC_R} ip {IP_R}"]
        for i, q in enumerate(QPS):
            lines.append(f"qp 0x{q:x} dest_qp 0x{0x100 + q:x} epsn 0x{self.start[q]:x} mtu {MTU} "
                         f"max_rd_atomic 64 aq 0x{0x90000000 + 0x10000 * i:x}")
        lines.append(f"mr 0x{RKEY:x} va 0x{VA:x} len 0x{MR_LEN:x} pa 0x{PA:x} access rwa")
        for off in range(0, MR_LEN, 64):
            chunk = initial[off:off + 64]
            if any(chunk):
                lines.append(f"mem 0x{PA + off:x} {chunk.hex()}")
        return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--no-check", action="store_true", help="skip the cross-check with nettwin.rdma.ref")
    a = ap.parse_args(argv)
    g = Gen(a.seed)
    g.start = dict(g.psn)
    initial = bytes(g.mem)
    n = g.pairs()
    g.chains(n * STRETCH)
    if n * STRETCH + 0x2000 > MR_LEN:
        raise SystemExit("rdma_hazard_gen: memory region too small for the pairs")
    cfg_text = g.config(initial)
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "responder.txt"), "w") as fh:
        fh.write(cfg_text)
    frames = [(f, i * 1e-6) for i, f in enumerate(g.frames)]   # back to back; the timestamps are only an order
    write_pcap(os.path.join(a.out_dir, "requests.pcap"), frames)
    print(f"rdma_hazard_gen: {n} pairs + chains, {len(g.frames)} requests, {g.cas_n} CAS -> {a.out_dir}")
    if a.no_check:
        return 0
    resp, verdicts = rdma_ref.run(rdma_ref.parse_config(cfg_text, "responder.txt"), frames)
    bad = [(i, v) for i, v in enumerate(verdicts) if v.kind != "exec"]
    for i, v in bad[:5]:
        print(f"rdma_hazard_gen: request {i} is {v.kind} in rdma_ref ({v.detail}), not executed")
    ref_mem = bytes.fromhex(resp.memory_json()[str(RKEY)])
    if ref_mem != bytes(g.mem):
        off = next(x for x in range(MR_LEN) if ref_mem[x] != g.mem[x])
        print(f"rdma_hazard_gen: memory differs from rdma_ref's at pa 0x{PA + off:x}")
        return 1
    if bad:
        return 1
    print("rdma_hazard_gen: nettwin.rdma.ref executes every request and ends with the generator's memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
