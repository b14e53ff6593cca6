#!/usr/bin/python3
"""Reproduce the spec's "Data Source PCAP Generator Script" (the canonical LB test vector).

Same packets in the same order as the spec script: one 1050-byte EVIO6 blob cut into 100-byte
segments (11 segments, the last one 50 bytes), each sent twice, interleaved: IPv4 (tick 10,
rocid 0xabc) then IPv6 (tick 20, rocid 0x123).  22 packets in total.

Differences from the spec script, none of which changes a packet byte:
  * the output path comes from --out instead of being hard-wired to packets_in.pcap;
  * the layers come from lb/layers.py (identical field lists);
  * packet timestamps are fixed (1 us apart) instead of the wall clock, so that the pcap file
    itself is reproducible and can be checked in.

Usage:  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.spec_gen --out vectors/lb/spec/packets_in.pcap
"""
import argparse
import sys

# The few Scapy modules it needs, not scapy.all (which loads every layer: twice the start-up time).
from scapy.data import DLT_EN10MB
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import PcapWriter

from nettwin.lb.layers import UDPLB, EVIO6Seg

EVIO6_BLOB_SIZE = 1050
EVIO6_SEG_SIZE = 100


def spec_packets():
    """Yield the 22 packets exactly as the spec's loop builds them."""
    evio6_blob = bytearray(EVIO6_BLOB_SIZE)
    for offset in range(0, EVIO6_BLOB_SIZE, EVIO6_SEG_SIZE):
        flags = []
        if offset == 0:  # first segment
            flags.append("first")
        if offset + EVIO6_SEG_SIZE > EVIO6_BLOB_SIZE:  # last (possibly short) segment
            flags.append("last")
        yield (Ether(dst="00:aa:bb:cc:dd:ee", src="00:11:22:33:44:55")
               / IP(dst="10.1.2.3", src="10.1.2.2")
               / UDP(sport=50000, dport=0x4c42)
               / UDPLB(tick=10)
               / EVIO6Seg(rocid=0xabc, flags=flags, offset=offset)
               / Raw(load=evio6_blob[offset:offset + EVIO6_SEG_SIZE]))
        yield (Ether(dst="00:aa:bb:cc:dd:ee", src="00:01:02:03:04:05")
               / IPv6(dst="fe80::2", src="fe80::1")
               / UDP(sport=12345, dport=0x4c42)
               / UDPLB(tick=20)
               / EVIO6Seg(rocid=0x123, flags=flags, offset=offset)
               / Raw(load=evio6_blob[offset:offset + EVIO6_SEG_SIZE]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="pcap file to write")
    args = ap.parse_args(argv)
    try:
        with PcapWriter(args.out, linktype=DLT_EN10MB) as w:
            w.write_header(None)
            for i, p in enumerate(spec_packets()):
                p.time = i * 1e-6  # deterministic timestamps -> reproducible file
                w.write_packet(p)
    except OSError as e:
        sys.exit(f"ejfat_spec_gen: cannot write {args.out}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
