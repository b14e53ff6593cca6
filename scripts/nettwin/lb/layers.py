"""Scapy layers for the EJFAT load-balancer header (UDPLB) and the EVIO6 segment header.

The field layouts are copied verbatim from the spec's "Data Source PCAP Generator Script"
(shared/spec/ejfat-load-balancer-design.txt) so that packets built here are byte-identical to the
ones that script produces.  The spec script itself never binds UDP to UDPLB (it sets dport by hand);
we add that binding so that Scapy also *decodes* LB packets (dport 0x4C42) when reading a pcap.

Importable:  from nettwin.layers import UDPLB, EVIO6Seg, LB_PORT   (or from nettwin.lb.layers)
"""
from scapy.packet import Packet, bind_layers
from scapy.fields import (BitField, FlagsField, XByteField, XIntField, XLongField,
                          XShortField)
from scapy.layers.inet import UDP

LB_PORT = 0x4C42        # 'LB': UDP destination port that selects load balancing
LB_MAGIC = 0x4C42       # 'LB': first two bytes of the LB header
LB_VERSION = 1          # the only version the block accepts
LB_HDR_LEN = 12         # magic(2) version(1) proto(1) tick(8)
EVIO6_PROTO = 1         # UDPLB.proto value announcing an EVIO6 segment header


class UDPLB(Packet):
    """12-byte load-balancer meta-data: magic, version, protocol, 64-bit tick (big endian)."""
    name = "UDP LB Packet"
    fields_desc = [
        XShortField("magic", LB_MAGIC),
        XByteField("version", LB_VERSION),
        XByteField("proto", 0),
        XLongField("tick", 0),
    ]


class EVIO6Seg(Packet):
    """8-byte reassembly-engine meta-data: version:4 rsvd:10 first:1 last:1 rocid:16 offset:32."""
    name = "EVIO6 Segment"
    fields_desc = [
        BitField("version", 0, 4),
        BitField("reserved", 0, 10),
        # Scapy numbers flag bits from the LSB: "last" = 0x1, "first" = 0x2 (as in the spec).
        FlagsField("flags", 0, 2, ["last", "first", ]),
        XShortField("rocid", 0),
        XIntField("offset", 0),
    ]


# Spec: UDPLB proto 1 carries an EVIO6 segment header (also sets proto=1 when stacking).
bind_layers(UDPLB, EVIO6Seg, {'proto': EVIO6_PROTO})
# Not in the spec script: lets Ether(bytes) decode the LB header of packets sent to port 'LB'.
bind_layers(UDP, UDPLB, dport=LB_PORT)
