"""The ICRC's GF(2) matrices for the VNIC RTL (docs/vnic-microarchitecture.md "ICRC pipeline").

    /usr/bin/python3 -m nettwin.vnic.crc_tables [--check]     (from scripts/)

Writes rtl/common/nt_crc_pkg.sv and rtl/rdma/rdma_crc_pkg.sv (--check: exit 1 unless both files are what this
script writes; ctest vnic_crc_tables). rdma_pkg::icrc_beat (RoCEv2's ICRC in rdma, naa, reorder, reroute) uses
nt_crc_pkg's CrcData and CrcBeat and rdma_crc_pkg's tables (docs/rdma-microarchitecture.md "ICRC as GF(2)
matrices"). The CRC register is CRC-32's (zlib: reflected 0xEDB88320), without the initial value and
final inversion, which the RTL applies. Tables (bit positions as the RTL indexes them):

- CrcData  bit 512 o + b: data bit b of a whole 64-byte beat contributes to register bit o (from state 0);
- CrcBeat  bit 32 o + j: state bit j before a whole beat contributes to register bit o after it;
- CrcFwd  bit 1024 q + 32 o + j: the register moved forward by z(q) zero bytes, z(q) = 61 - 8q for q = 0..7
  (the last beat's ICRC prefix is 8q + 3 bytes), z(8) = 64 (CrcBack, the same moves backwards, is computed and
  checked here but only used to build CrcLast);
- CrcLast  bit 512 q + 64 o + k, q = 0..7: encapsulation's last beat in one matrix: register bit o after the
  ICRC prefix from k < 32: bit k of the data part (CrcData of the zero-filled beat), k >= 32: bit k - 32 of
  the register before the beat. It is CrcBack(q) x [CrcBeat | I]: the part taken back, and the register moved
  forward by the prefix's 8q + 3 bytes.

rdma_crc_pkg (RoCEv2: the ICRC covers a beat's bytes [a, b), a = 14 in a frame's first beat, else 0):

- CrcTake  bit 1024 t + 32 o + j, t = 0..63: the register moved BACK by t zero bytes (CrcBack of any length);
- CrcHead  bit 32 o + j: the register moved forward by 64 - 14 = 50 zero bytes (a first beat's state part);
- CrcPow  bit 1024 p + 32 o + j, p = 0..7: CrcBeat to the power p (the register moved over p whole beats);
- CrcDataPow  bit 16384 p + 512 o + b, p = 0..7: CrcBeat^p x CrcData (a beat's data part moved over p more beats:
  rdma_pkg::icrc_frame, a whole frame's ICRC at once);
- CrcTakeData6, CrcTakeData50  bit 512 o + b: Take(6) x CrcData and Take(50) x CrcData, and CrcTakeBeat50 bit 32 o + j:
  Take(50) x CrcBeat: the products reorder_ctrl_gen applies to a control packet's last beat (IPv4: bytes 14..57 of
  beat 0; IPv6: bytes 64..77 in beat 1) as ONE matrix each, so each ICRC bit is one XOR over the beat instead of
  two trees in series (issue 27 depth).

Before writing, every table is checked against zlib.crc32 on random beats and states: an independent check of
the matrices (lockstep then checks the RTL that uses them against the C++ model's CRC).
"""
import argparse
import functools
import operator
import pathlib
import random
import sys
import zlib

POLY = 0xEDB88320
M32 = 0xFFFFFFFF
BEAT = 64
TAILS = 9
OUT = pathlib.Path(__file__).resolve().parents[3] / "rtl" / "common" / "nt_crc_pkg.sv"
RDMA_OUT = pathlib.Path(__file__).resolve().parents[3] / "rtl" / "rdma" / "rdma_crc_pkg.sv"
POWS = 8  # CrcPow / CrcDataPow: frames of up to 8 beats for rdma_pkg::icrc_frame
ICRC_LO = 14  # RoCEv2: the ICRC starts at the IP header (the 8-byte LRH stand-in is rdma_pkg::icrc_seed)


def zeros(s, nbits):
    for _ in range(nbits):
        s = (s >> 1) ^ (POLY if s & 1 else 0)
    return s


def unzeros(s, nbits):
    for _ in range(nbits):
        b0 = (s >> 31) & 1
        s = (((s ^ (POLY if b0 else 0)) << 1) | b0) & M32
    return s


def zbytes(q):
    return 64 if q == 8 else 61 - 8 * q


def tables():
    data = [0] * 32  # row o: 512-bit mask
    for i in range(BEAT):
        for j in range(8):
            col = zeros(1 << j, 8 * (BEAT - i))
            for o in range(32):
                if col >> o & 1:
                    data[o] |= 1 << (8 * i + j)
    beat = [0] * 32
    fwd = [[0] * 32 for _ in range(TAILS)]
    back = [[0] * 32 for _ in range(TAILS)]
    for j in range(32):
        cb = zeros(1 << j, 8 * BEAT)
        cf = [zeros(1 << j, 8 * zbytes(q)) for q in range(TAILS)]
        cbk = [unzeros(1 << j, 8 * zbytes(q)) for q in range(TAILS)]
        for o in range(32):
            beat[o] |= (cb >> o & 1) << j
            for q in range(TAILS):
                fwd[q][o] |= (cf[q] >> o & 1) << j
                back[q][o] |= (cbk[q] >> o & 1) << j
    last = [[0] * 32 for _ in range(8)]
    for q in range(8):
        for k in range(32):
            cp = apply(back[q], 1 << k)                     # the part's bit k, taken back
            cs = zeros(1 << k, 8 * (8 * q + 3))             # the register's bit k, forward by the prefix
            for o in range(32):
                last[q][o] |= (cp >> o & 1) << k | (cs >> o & 1) << (32 + k)
    return data, beat, fwd, back, last


def apply(rows, x):
    return sum((bin(x & r).count("1") & 1) << o for o, r in enumerate(rows))


def reg(state, data):
    """The CRC register after `data` from register `state` (zlib.crc32 inverts on entry and exit)."""
    return ~zlib.crc32(data, ~state & M32) & M32


def self_check(data, beat, fwd, back, last):
    rng = random.Random(27)
    for _ in range(200):
        s = rng.getrandbits(32)
        d = bytes(rng.getrandbits(8) for _ in range(BEAT))
        if apply(beat, s) ^ apply(data, int.from_bytes(d, "little")) != reg(s, d):
            raise SystemExit("crc_tables: whole-beat matrices disagree with zlib")
        for q in range(TAILS):
            n = 0 if q == 8 else 8 * q + 3
            true = reg(s, d[:n])
            padded = reg(s, d[:n] + bytes(BEAT - n))
            if apply(fwd[q], true) != padded or apply(back[q], padded) != true:
                raise SystemExit(f"crc_tables: tail matrix {q} disagrees with zlib")
            if q < 8:
                part = apply(data, int.from_bytes(d[:n] + bytes(BEAT - n), "little"))
                if apply(last[q], s << 32 | part) != true:
                    raise SystemExit(f"crc_tables: last-beat matrix {q} disagrees with zlib")


def rdma_tables():
    """CrcTake, CrcHead, CrcPow, CrcDataPow (the module docstring)."""
    take = [[0] * 32 for _ in range(BEAT)]
    head = [0] * 32
    for j in range(32):
        ch = zeros(1 << j, 8 * (BEAT - ICRC_LO))
        for o in range(32):
            head[o] |= (ch >> o & 1) << j
        for t in range(BEAT):
            ct = unzeros(1 << j, 8 * t)
            for o in range(32):
                take[t][o] |= (ct >> o & 1) << j
    # Beat^p by columns: column j of Beat^p = Beat^p x e_j
    pows = []
    for p in range(POWS):
        rows = [0] * 32
        for j in range(32):
            c = zeros(1 << j, 8 * BEAT * p)
            for o in range(32):
                rows[o] |= (c >> o & 1) << j
        pows.append(rows)
    data = tables()[0]
    dpows = []  # by columns: column b of Beat^p x CrcData
    for p in range(POWS):
        rows = [0] * 32
        for b in range(8 * BEAT):
            c = apply(pows[p], apply(data, 1 << b))
            for o in range(32):
                rows[o] |= (c >> o & 1) << b
        dpows.append(rows)
    return take, head, pows, dpows


def matmul(a, b, width):
    """a x b, both as row masks (b: 32 rows of `width` bits; a: 32 x 32): row o of the product is the XOR of b's
    rows j where a's row o has bit j."""
    return [functools.reduce(operator.xor, (b[j] for j in range(32) if a[o] >> j & 1), 0) for o in range(32)]


def ctrl_tables(data, beat, take):
    """CrcTakeData6, CrcTakeData50, CrcTakeBeat50 (the module docstring)."""
    return matmul(take[6], data, 8 * BEAT), matmul(take[50], data, 8 * BEAT), matmul(take[50], beat, 32)


def icrc_serial(s, d, a, b):
    """rdma_pkg::icrc_beat's byte loop: the register over bytes [a, b) of beat d from register s."""
    return reg(s, d[a:b]) if b > a else s


def icrc_matrix(data, beat, take, head, s, d, a, b):
    """The same by matrices, as rdma_pkg::icrc_beat computes it: Take(64 - b) x (CrcData x z ^ Fwd(64 - a) x s),
    z the beat with the bytes outside [a, b) zeroed."""
    if b <= a:
        return s
    z = bytes(d[i] if a <= i < b else 0 for i in range(BEAT))
    st = apply(head, s) if a == ICRC_LO else apply(beat, s)
    return apply(take[BEAT - b], apply(data, int.from_bytes(z, "little")) ^ st)


def icrc_frame(take, head, pows, dpows, s, f, hi):
    """rdma_pkg::icrc_frame: the register after bytes [14, hi) of frame f (beats = ceil(hi / 64) whole beats, the
    bytes from hi on zeroed) from register s: Take(64 beats - hi) x (Pow(beats - 1) x Head x s ^ sum over beats k
    of DataPow(beats - 1 - k) x z_k)."""
    beats = -(-hi // BEAT)
    acc = apply(pows[beats - 1], apply(head, s))
    for k in range(beats):
        z = bytes(f[BEAT * k + i] if ICRC_LO <= BEAT * k + i < hi else 0 for i in range(BEAT))
        acc ^= apply(dpows[beats - 1 - k], int.from_bytes(z, "little"))
    return apply(take[BEAT * beats - hi], acc)


def rdma_self_check(data, beat, take, head, pows, dpows):
    rng = random.Random(2715)
    for t in range(BEAT):
        for _ in range(4):
            s = rng.getrandbits(32)
            if apply(take[t], zeros(s, 8 * t)) != s:
                raise SystemExit(f"crc_tables: take-back matrix {t} disagrees with zlib")
    for a in (0, ICRC_LO):
        for b in range(BEAT + 1):
            for _ in range(3):
                s = rng.getrandbits(32)
                d = bytes(rng.getrandbits(8) for _ in range(BEAT))
                if icrc_matrix(data, beat, take, head, s, d, a, b) != icrc_serial(s, d, a, b):
                    raise SystemExit(f"crc_tables: rdma ICRC by matrices disagrees with zlib (a={a}, b={b})")
    for hi in list(range(ICRC_LO + 1, BEAT * POWS + 1, 7)) + [58, 318, BEAT * POWS]:
        s = rng.getrandbits(32)
        f = bytes(rng.getrandbits(8) for _ in range(BEAT * POWS))
        if icrc_frame(take, head, pows, dpows, s, f, hi) != reg(s, f[ICRC_LO:hi]):
            raise SystemExit(f"crc_tables: rdma whole-frame ICRC by matrices disagrees with zlib (hi={hi})")


def ctrl_self_check(data, beat, take, td6, td50, tb50):
    """The products against the two steps they replace (which rdma_self_check checks against zlib), and the
    IPv4 case against zlib itself: a 58-byte frame's register over bytes 14..57, seeded."""
    rng = random.Random(1927)
    for _ in range(200):
        x = rng.getrandbits(8 * BEAT)
        s = rng.getrandbits(32)
        if apply(td6, x) != apply(take[6], apply(data, x)) or apply(td50, x) != apply(take[50], apply(data, x)):
            raise SystemExit("crc_tables: CrcTakeData disagrees with Take x CrcData")
        if apply(tb50, s) != apply(take[50], apply(beat, s)):
            raise SystemExit("crc_tables: CrcTakeBeat50 disagrees with Take(50) x CrcBeat")
        d = bytes(rng.getrandbits(8) for _ in range(58))
        z = bytes(ICRC_LO) + d[ICRC_LO:] + bytes(BEAT - 58)
        if apply(td6, int.from_bytes(z, "little")) ^ apply(take[6], zeros(s, 8 * (BEAT - ICRC_LO))) != reg(s, d[ICRC_LO:]):
            raise SystemExit("crc_tables: CrcTakeData6 does not give a 58-byte frame's ICRC register")


def rows_literal(rows, width, indent):
    digits = width // 4
    return (",\n" + indent).join(f"{width}'h{r:0{digits}x}" for r in reversed(rows))


def render(data, beat, fwd, back, last):
    ind = "    "
    out = [
        "// Generated by scripts/nettwin/vnic/crc_tables.py: do not edit (ctest vnic_crc_tables checks it is current).",
        "// The ICRC's GF(2) matrices (docs/vnic-microarchitecture.md \"ICRC pipeline\"); the bit layout is in the",
        "// script's docstring. Each table is a concatenation of its rows, the highest row first.",
        "package nt_crc_pkg;",
        f"  localparam int unsigned CrcTails = {TAILS};  // tail matrices: q = 0..7 (61 - 8q zero bytes), 8 (64)",
        f"  localparam logic [32*512-1:0] CrcData = {{\n{ind}{rows_literal(data, 512, ind)}}};",
    ]
    flat = [r for q in range(TAILS) for r in fwd[q]]  # CrcBack is used here only, to build CrcLast
    out.append(f"  localparam logic [CrcTails*32*32-1:0] CrcFwd = {{\n{ind}{rows_literal(flat, 32, ind)}}};")
    # the last tail (64 zero bytes, zbytes(8)) moves the register over a whole beat: that matrix is CrcBeat
    assert beat == fwd[TAILS - 1] and zbytes(TAILS - 1) == BEAT
    out.append("  localparam logic [32*32-1:0] CrcBeat = CrcFwd[32*32*(CrcTails-1) +: 32*32];  // tail 8: 64 bytes")
    flat = [r for q in range(8) for r in last[q]]
    out.append(f"  localparam logic [8*32*64-1:0] CrcLast = {{\n{ind}{rows_literal(flat, 64, ind)}}};")
    out.append("endpackage")
    return "\n".join(out) + "\n"


def render_rdma(take, head, pows, dpows, td6, td50, tb50):
    ind = "    "
    out = [
        "// Generated by scripts/nettwin/vnic/crc_tables.py: do not edit (ctest vnic_crc_tables checks it is current).",
        "// rdma_pkg::icrc_beat's GF(2) matrices beside nt_crc_pkg's CrcData and CrcBeat (docs/rdma-microarchitecture.md",
        "// \"ICRC as GF(2) matrices\"); the bit layout is in the script's docstring. Rows concatenated, the highest first.",
        "package rdma_crc_pkg;",
        f"  localparam int unsigned CrcIcrcLo = {ICRC_LO};  // the ICRC's first byte in a frame (CrcHead moves {BEAT - ICRC_LO} bytes)",
    ]
    flat = [r for t in range(BEAT) for r in take[t]]
    out.append(f"  localparam logic [{BEAT}*32*32-1:0] CrcTake = {{\n{ind}{rows_literal(flat, 32, ind)}}};")
    out.append(f"  localparam logic [32*32-1:0] CrcHead = {{\n{ind}{rows_literal(head, 32, ind)}}};")
    out.append(f"  localparam int unsigned CrcPows = {POWS};  // CrcPow, CrcDataPow: powers 0..{POWS - 1} of CrcBeat")
    flat = [r for p in range(POWS) for r in pows[p]]
    out.append(f"  localparam logic [CrcPows*32*32-1:0] CrcPow = {{\n{ind}{rows_literal(flat, 32, ind)}}};")
    flat = [r for p in range(POWS) for r in dpows[p]]
    out.append(f"  localparam logic [CrcPows*32*{8 * BEAT}-1:0] CrcDataPow = {{\n{ind}{rows_literal(flat, 8 * BEAT, ind)}}};")
    for name, rows, width in (("CrcTakeData6", td6, 8 * BEAT), ("CrcTakeData50", td50, 8 * BEAT),
                              ("CrcTakeBeat50", tb50, 32)):
        out.append(f"  localparam logic [32*{width}-1:0] {name} = {{\n{ind}{rows_literal(rows, width, ind)}}};")
    out.append("endpackage")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 unless rtl/common/nt_crc_pkg.sv is current")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--rdma-out", default=str(RDMA_OUT))
    a = ap.parse_args(argv)
    t = tables()
    self_check(*t)
    rt = rdma_tables()
    rdma_self_check(t[0], t[1], *rt)
    ct = ctrl_tables(t[0], t[1], rt[0])
    ctrl_self_check(t[0], t[1], rt[0], *ct)
    files = [(pathlib.Path(a.out), render(*t)), (pathlib.Path(a.rdma_out), render_rdma(*rt, *ct))]
    if a.check:
        for out, text in files:
            if not out.exists() or out.read_text() != text:
                print(f"crc_tables: {out} is not current: run python3 -m nettwin.vnic.crc_tables", file=sys.stderr)
                return 1
        print("crc_tables: current (matrices checked against zlib)")
        return 0
    for out, text in files:
        out.write_text(text)
        print(f"crc_tables: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
