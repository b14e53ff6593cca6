#!/usr/bin/python3
"""Restore the ARP sender hardware address of udplb's test-1 input (vectors/peers/udplb/README.md).

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.udplb_fix_arp --in packets_in.orig.pcap --out packets_in.pcap \
      [--sha 00:50:56:a8:41:29]

esnet/udplb's p4/sim/test-1/pcap-generator.py builds its two ARP requests with Scapy's ARP() and no
`hwsrc`, so Scapy writes the MAC of the machine that runs the generator as the ARP sender hardware
address (SHA).  The simulator's input that produced expected/packets_out.pcap had 00:50:56:a8:41:29
there: both expected ARP replies carry it as their target hardware address (THA = request's SHA).
This script patches exactly those 6 bytes (frame offset 22..27) of every ARP frame, working on the
pcap file's bytes so that everything else (file header, record headers, timestamps, other frames)
stays identical.  It insists on finding exactly --count ARP frames (default 2).
Exit 0 on success, 2 on unusable input.
"""
import argparse
import struct
import sys

ARP_SHA = slice(22, 28)     # Ethernet 14 + htype 2 ptype 2 hlen 1 plen 1 oper 2


def mac_bytes(text):
    parts = text.split(":")
    if len(parts) != 6:
        raise ValueError(f"bad MAC {text!r}")
    return bytes(int(p, 16) for p in parts)


def fix(data, sha, count):
    """The patched pcap file bytes (classic pcap, either byte order)."""
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError("not a classic pcap file")
    out = bytearray(data)
    pos, n, patched = 24, 0, []
    while pos < len(data):
        if pos + 16 > len(data):
            raise ValueError(f"truncated record header after frame {n}")
        incl = struct.unpack(end + "I", data[pos + 8:pos + 12])[0]
        start = pos + 16
        frame = data[start:start + incl]
        if len(frame) != incl:
            raise ValueError(f"truncated frame {n + 1}")
        n += 1
        if incl >= 42 and frame[12:14] == b"\x08\x06":
            out[start + ARP_SHA.start:start + ARP_SHA.stop] = sha
            patched.append((n, frame[ARP_SHA].hex(":")))
        pos = start + incl
    if len(patched) != count:
        raise ValueError(f"expected {count} ARP frames, found {len(patched)}")
    return bytes(out), n, patched


def main(argv=None):
    ap = argparse.ArgumentParser(description="Set the ARP sender MAC of udplb test-1's input")
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sha", default="00:50:56:a8:41:29")
    ap.add_argument("--count", type=int, default=2, help="ARP frames that must be found")
    a = ap.parse_args(argv)
    try:
        with open(a.inp, "rb") as f:
            data = f.read()
        out, n, patched = fix(data, mac_bytes(a.sha), a.count)
        with open(a.out, "wb") as f:
            f.write(out)
    except (OSError, ValueError) as e:
        print(f"udplb_fix_arp: error: {e}", file=sys.stderr)
        return 2
    for idx, old in patched:
        print(f"udplb_fix_arp: frame {idx}: ARP SHA {old} -> {a.sha}")
    print(f"udplb_fix_arp: {n} frames, {len(patched)} patched")
    return 0


if __name__ == "__main__":
    sys.exit(main())
