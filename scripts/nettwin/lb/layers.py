"""Scapy layers for the EJFAT load-balancer header (UDPLB v1, v2, v3), the EVIO6 segment header and E2SAR's
reassembly header.

The field layouts are copied verbatim from the spec's "Data Source PCAP Generator Script"
(shared/spec/ejfat-load-balancer-design.txt) so that packets built here are byte-identical to the
ones that script produces.  The spec script itself never binds UDP to UDPLB (it sets dport by hand);
we add that binding so that Scapy also *decodes* LB packets (dport 0x4C42) when reading a pcap.

LB v2 / v3 (the `udplb` program, docs/lb-udplb.md; esnet/udplb @ 255e11b p4/udplb.p4 udplb_v2_t /
udplb_v3_t, the same layout as JeffersonLab/E2SAR include/e2sarHeaders.hpp LBHdrV2 / LBHdrV3): 16 bytes,
magic "LB", version, proto, then v2: rsvd 16, entropy 16, tick 64; v3: slot_select 16, port_select 16,
tick 64. Decoding is version-dispatched: UDPLB(bytes) gives UDPLB (v1, 12 bytes), UDPLBv2 or UDPLBv3 by the
version byte (other versions decode with the v1 layout). udplb.p4's parser takes an LB header on every UDP
destination port 0x4000..0x7FFF; Scapy decodes one there when the payload starts with the magic "LB" (so
a member's output frame to a port in that range without the LB header stays Raw), and on 0x4C42 always.
proto 1 carries an EVIO6 segment header (udplb's test generator) or E2SAR's 20-byte reassembly header
(E2SAR's nextProto = rehdrVersion = 1); they are told apart by the first byte: 0x10 (version nibble 1)
followed by a zero byte is E2SAR's REHdr, anything else an EVIO6 segment (version nibble 0 in udplb's and the
spec's generators).

Importable:  from nettwin.layers import UDPLB, EVIO6Seg, LB_PORT   (or from nettwin.lb.layers)
"""
from scapy.packet import Packet, bind_layers
from scapy.fields import (BitField, FlagsField, IntField, LongField, ShortField, XByteField,
                          XIntField, XLongField, XShortField)
from scapy.layers.inet import UDP

LB_PORT = 0x4C42        # 'LB': UDP destination port that selects load balancing
LB_MAGIC = 0x4C42       # 'LB': first two bytes of the LB header
LB_VERSION = 1          # the only version the block accepts
LB_HDR_LEN = 12         # magic(2) version(1) proto(1) tick(8)
EVIO6_PROTO = 1         # UDPLB.proto value announcing an EVIO6 segment header


LB_PORT_MIN, LB_PORT_MAX = 0x4000, 0x7FFF   # udplb.p4: dstPort &&& 0xC000 == 0x4000
LB_V23_HDR_LEN = 16
E2SAR_RE_PROTO = 1      # E2SAR LBHdrV2/V3 nextProto = rehdrVersion
E2SAR_RE_LEN = 20


class UDPLB(Packet):
    """12-byte load-balancer meta-data: magic, version, protocol, 64-bit tick (big endian)."""
    name = "UDP LB Packet"
    fields_desc = [
        XShortField("magic", LB_MAGIC),
        XByteField("version", LB_VERSION),
        XByteField("proto", 0),
        XLongField("tick", 0),
    ]

    @classmethod
    def dispatch_hook(cls, _pkt=None, *args, **kargs):
        """Decode by the version byte: 2 -> UDPLBv2, 3 -> UDPLBv3, else the v1 layout."""
        if _pkt is not None and len(_pkt) >= 3:
            return {2: UDPLBv2, 3: UDPLBv3}.get(_pkt[2], UDPLB)
        return cls

    def guess_payload_class(self, payload):
        return _lb_payload_class(self, payload)


class UDPLBv2(Packet):
    """16-byte LB header v2 (udplb.p4 udplb_v2_t): slot select = tick[15:0], port select = entropy."""
    name = "UDP LB v2"
    fields_desc = [
        XShortField("magic", LB_MAGIC),
        XByteField("version", 2),
        XByteField("proto", 0),
        XShortField("rsvd", 0),
        XShortField("entropy", 0),
        XLongField("tick", 0),
    ]

    def guess_payload_class(self, payload):
        return _lb_payload_class(self, payload)


class UDPLBv3(Packet):
    """16-byte LB header v3 (udplb.p4 udplb_v3_t)."""
    name = "UDP LB v3"
    fields_desc = [
        XShortField("magic", LB_MAGIC),
        XByteField("version", 3),
        XByteField("proto", 0),
        XShortField("slot_select", 0),
        XShortField("port_select", 0),
        XLongField("tick", 0),
    ]

    def guess_payload_class(self, payload):
        return _lb_payload_class(self, payload)


class E2SARRE(Packet):
    """E2SAR's 20-byte reassembly header (JeffersonLab/E2SAR include/e2sarHeaders.hpp REHdr): version nibble
    (1), 12 reserved bits, dataId 16, bufferOffset 32, bufferLength 32 (the event's length), eventNum 64."""
    name = "E2SAR Reassembly Header"
    fields_desc = [
        BitField("version", 1, 4),
        BitField("reserved", 0, 12),
        ShortField("data_id", 0),
        IntField("buffer_offset", 0),
        IntField("buffer_length", 0),
        LongField("event_num", 0),
    ]


def is_e2sar_re(payload):
    """E2SAR's REHdr preamble {0x10, 0x00} (version 1 in the upper nibble, reserved 0)."""
    return len(payload) >= E2SAR_RE_LEN and payload[0] == 0x10 and payload[1] == 0


def _lb_payload_class(lb, payload):
    if lb.proto == EVIO6_PROTO and is_e2sar_re(payload):
        return E2SARRE
    return Packet.guess_payload_class(lb, payload)


def _udp_guess_payload_class(self, payload, _orig=UDP.guess_payload_class):
    """udplb.p4's LB port range: an LB header on dport 0x4000..0x7FFF when the magic is there."""
    if LB_PORT_MIN <= self.dport <= LB_PORT_MAX and payload[:2] == b"LB" and len(payload) >= 4:
        return UDPLB
    return _orig(self, payload)


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
bind_layers(UDPLBv2, EVIO6Seg, {'proto': EVIO6_PROTO})
bind_layers(UDPLBv3, EVIO6Seg, {'proto': EVIO6_PROTO})
# Not in the spec script: lets Ether(bytes) decode the LB header of packets sent to port 'LB'.
bind_layers(UDP, UDPLB, dport=LB_PORT)
UDP.guess_payload_class = _udp_guess_payload_class
