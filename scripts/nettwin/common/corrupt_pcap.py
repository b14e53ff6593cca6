#!/usr/bin/python3
"""Write a deliberately corrupted copy of a pcap, to prove nettwin.lb.check notices (self-test helper).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.common.corrupt_pcap --in OK.pcap --out BAD.pcap --mode MODE [--index N]

MODE: flip-byte  - invert one bit of the last byte of packet N (default: middle packet)
      ip-dst     - change the last byte of the IPv4/IPv6 destination of packet N
      drop       - remove packet N
      dup        - duplicate packet N
      swap       - swap packets N and N+1
"""
import argparse
import sys

from nettwin.common.pcap import InputError, read_pcap, write_pcap


def main(argv=None):
    ap = argparse.ArgumentParser(description="Corrupt a pcap on purpose")
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", required=True, choices=["flip-byte", "ip-dst", "drop", "dup", "swap"])
    ap.add_argument("--index", type=int)
    a = ap.parse_args(argv)
    try:
        frames = read_pcap(a.inp)
    except InputError as e:
        sys.exit(f"corrupt_pcap: error: {e}")
    if len(frames) < 2:
        sys.exit("corrupt_pcap: error: need at least 2 packets")
    n = len(frames) // 2 if a.index is None else a.index
    if not 0 <= n < len(frames) - (a.mode == "swap"):
        sys.exit(f"corrupt_pcap: error: --index {n} out of range")
    data, ts = frames[n]
    b = bytearray(data)
    if a.mode == "flip-byte":
        b[-1] ^= 0x01
        frames[n] = (bytes(b), ts)
    elif a.mode == "ip-dst":
        off = 33 if b[12:14] == b"\x08\x00" else 53
        b[off] ^= 0x01
        frames[n] = (bytes(b), ts)
    elif a.mode == "drop":
        del frames[n]
    elif a.mode == "dup":
        frames.insert(n, frames[n])
    else:
        frames[n], frames[n + 1] = frames[n + 1], frames[n]
    write_pcap(a.out, frames)
    print(f"corrupt_pcap: {a.mode} at packet {n} -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
