"""Scapy layer for E2SAR's reassembly header (docs/re.md "E2SAR's header").

Written from JeffersonLab/E2SAR include/e2sarHeaders.hpp @ 8992fa3 (struct REHdr), not copied: 20 bytes, big
endian -- version:4 (1) rsvd:4, rsvd:8, data_id:16, buffer_offset:32 (the segment's byte offset in the event),
buffer_length:32 (the whole event's length, not the segment's), event_num:64.  E2SAR's REHdr::validate()
accepts a header only when its first byte is 0x10 and its second is 0.

    from nettwin.re.layers import E2SARRE, E2SAR_RE_LEN, E2SAR_RE_VERSION, lb_header_bytes
"""
import struct

from scapy.fields import BitField, IntField, LongField, ShortField, XByteField
from scapy.packet import Packet

E2SAR_RE_LEN = 20
E2SAR_RE_VERSION = 1
LB_MAGIC = b"LB"


class E2SARRE(Packet):
    """E2SAR's 20-byte reassembly header (REHdr)."""
    name = "E2SAR RE"
    fields_desc = [
        BitField("version", E2SAR_RE_VERSION, 4),
        BitField("rsvd", 0, 4),
        XByteField("rsvd2", 0),
        ShortField("data_id", 0),
        IntField("buffer_offset", 0),
        IntField("buffer_length", 0),   # the event's length
        LongField("event_num", 0),
    ]

    def extract_padding(self, s):
        return b"", s   # what follows is the segment's data


def lb_header_bytes(version, tick, entropy=0, slot=0, port=0, next_proto=1):
    """An LB header as an LB that keeps it leaves it in front of the RE header: version 1 (the seed's
    12 bytes: 'LB', version, protocol, tick), 2 ('LB', 2, protocol, reserved, entropy, tick: 16 bytes) or 3
    ('LB', 3, protocol, slot select, port select, tick: 16 bytes), big endian (E2SAR's LBHdrV2 / LBHdrV3)."""
    if version == 1:
        return LB_MAGIC + struct.pack(">BBQ", 1, next_proto, tick)
    if version == 2:
        return LB_MAGIC + struct.pack(">BBHHQ", 2, next_proto, 0, entropy, tick)
    if version == 3:
        return LB_MAGIC + struct.pack(">BBHHQ", 3, next_proto, slot, port, tick)
    raise ValueError("LB header version %r: 1, 2 or 3" % (version,))
