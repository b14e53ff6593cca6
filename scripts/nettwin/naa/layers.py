#!/usr/bin/python3
"""Scapy layers of the InfiniBand connection manager over RoCEv2 (docs/naa.md) - library, no command line.

Written from the IBA Vol. 1 chapter 12 field tables (the offsets Linux's ibta_vol1_c12.h names), independent
of the C++ model and the RTL:
  DETH (8: Q_Key 32, reserved 8, source QP 24)        after the BTH of a UD SEND ONLY (opcode 0x64)
  MAD (24-byte common header)                           base version 1, class 0x07 (CM), class version 2
  CmReq / CmRep / CmRtu / CmDreq / CmDrep / CmRej        the 232 bytes after the MAD header, by attribute ID
Binding: BTH opcode 0x64 -> DETH -> MAD -> the CM message of its attribute ID, so a pcap of CM traffic
decodes with these imported.

  build_mad(client, attr, tid, msg, psn) -> bytes   Ether / IPv4 / UDP 4791 / BTH (UD SEND ONLY, QP 1) /
                                                    DETH (Q_Key 0x80010000, source QP 1) / MAD / ICRC
  decode_mad(frame) -> (BTH, MAD) or None
"""
from scapy.contrib.roce import BTH
from scapy.fields import (BitField, ByteField, IntField, ShortField, StrFixedLenField, XByteField,
                          XIntField, XLongField, XShortField)
from scapy.layers.l2 import Ether
from scapy.packet import Packet, bind_layers

from nettwin.rdma.layers import build_request

UD_SEND_ONLY = 0x64
QP1_QKEY = 0x80010000
CM_CLASS = 0x07
ATTR = {"REQ": 0x0010, "MRA": 0x0011, "REJ": 0x0012, "REP": 0x0013, "RTU": 0x0014, "DREQ": 0x0015,
        "DREP": 0x0016}
ATTR_NAME = {v: k for k, v in ATTR.items()}
# IBA table 112 (REJ reasons) this project uses.
REJ_NO_QP, REJ_INVALID_SERVICE_ID, REJ_INVALID_TRANSPORT, REJ_INVALID_MTU = 1, 8, 9, 26
RDMA_PS_TCP = 0x0106


def rdma_cm_service_id(port):
    """The ServiceID rdma_cm puts in a REQ for a TCP-port-space listener (RDMA_PS_TCP << 16 | port)."""
    return (RDMA_PS_TCP << 16) | port


class DETH(Packet):
    name = "DETH"
    fields_desc = [XIntField("qkey", QP1_QKEY), ByteField("reserved", 0), BitField("src_qp", 1, 24)]


class MAD(Packet):
    name = "MAD"
    fields_desc = [ByteField("base_version", 1), XByteField("mgmt_class", CM_CLASS), ByteField("class_version", 2),
                   XByteField("method", 0x03), XShortField("status", 0), XShortField("class_specific", 0),
                   XLongField("tid", 0), XShortField("attr_id", 0), ShortField("reserved", 0),
                   XIntField("attr_mod", 0)]

    def guess_payload_class(self, payload):
        return {ATTR["REQ"]: CmReq, ATTR["REP"]: CmRep, ATTR["RTU"]: CmRtu, ATTR["DREQ"]: CmDreq,
                ATTR["DREP"]: CmDrep, ATTR["REJ"]: CmRej}.get(self.attr_id, Packet.guess_payload_class(self, payload))


def _path(prefix):
    """A 44-byte CM path record (REQ primary / alternate path, IBA table 106 bytes 52..95)."""
    return [ShortField(prefix + "local_lid", 0xFFFF), ShortField(prefix + "remote_lid", 0xFFFF),
            StrFixedLenField(prefix + "local_gid", bytes(16), 16), StrFixedLenField(prefix + "remote_gid", bytes(16), 16),
            BitField(prefix + "flow_label", 0, 20), BitField(prefix + "reserved1", 0, 6),
            BitField(prefix + "packet_rate", 0, 6), ByteField(prefix + "traffic_class", 0),
            ByteField(prefix + "hop_limit", 0), BitField(prefix + "sl", 0, 4), BitField(prefix + "subnet_local", 0, 1),
            BitField(prefix + "reserved2", 0, 3), BitField(prefix + "ack_timeout", 0, 5),
            BitField(prefix + "reserved3", 0, 3)]


class CmReq(Packet):
    name = "CM REQ"
    fields_desc = ([XIntField("local_comm_id", 0), XIntField("reserved1", 0), XLongField("service_id", 0),
                    XLongField("local_ca_guid", 0), XIntField("reserved2", 0), XIntField("local_qkey", 0),
                    BitField("local_qpn", 0, 24), ByteField("responder_resources", 0),
                    BitField("local_eecn", 0, 24), ByteField("initiator_depth", 0),
                    BitField("remote_eecn", 0, 24), BitField("remote_cm_timeout", 0, 5),
                    BitField("transport_type", 0, 2), BitField("eefc", 0, 1),
                    BitField("starting_psn", 0, 24), BitField("local_cm_timeout", 0, 5), BitField("retry_count", 0, 3),
                    XShortField("pkey", 0xFFFF), BitField("path_mtu", 0, 4), BitField("rdc_exists", 0, 1),
                    BitField("rnr_retry", 0, 3), BitField("max_cm_retries", 0, 4), BitField("srq", 0, 1),
                    BitField("ext_transport", 0, 3)]
                   + _path("p_") + [StrFixedLenField("alternate_path", bytes(44), 44),
                                    StrFixedLenField("private_data", bytes(92), 92)])


class CmRep(Packet):
    name = "CM REP"
    fields_desc = [XIntField("local_comm_id", 0), XIntField("remote_comm_id", 0), XIntField("local_qkey", 0),
                   BitField("local_qpn", 0, 24), ByteField("reserved1", 0), BitField("local_eecn", 0, 24),
                   ByteField("reserved2", 0), BitField("starting_psn", 0, 24), ByteField("reserved3", 0),
                   ByteField("responder_resources", 0), ByteField("initiator_depth", 0),
                   BitField("target_ack_delay", 0, 5), BitField("failover_accepted", 0, 2), BitField("eefc", 0, 1),
                   BitField("rnr_retry", 0, 3), BitField("srq", 0, 1), BitField("reserved4", 0, 4),
                   XLongField("local_ca_guid", 0), StrFixedLenField("private_data", bytes(196), 196)]


class CmRtu(Packet):
    name = "CM RTU"
    fields_desc = [XIntField("local_comm_id", 0), XIntField("remote_comm_id", 0),
                   StrFixedLenField("private_data", bytes(224), 224)]


class CmDreq(Packet):
    name = "CM DREQ"
    fields_desc = [XIntField("local_comm_id", 0), XIntField("remote_comm_id", 0), BitField("remote_qpn", 0, 24),
                   ByteField("reserved", 0), StrFixedLenField("private_data", bytes(220), 220)]


class CmDrep(Packet):
    name = "CM DREP"
    fields_desc = [XIntField("local_comm_id", 0), XIntField("remote_comm_id", 0),
                   StrFixedLenField("private_data", bytes(224), 224)]


class CmRej(Packet):
    name = "CM REJ"
    fields_desc = [XIntField("local_comm_id", 0), XIntField("remote_comm_id", 0), BitField("msg_rejected", 0, 2),
                   BitField("reserved1", 0, 6), BitField("reject_info_length", 0, 7), BitField("reserved2", 0, 1),
                   ShortField("reason", 0), StrFixedLenField("ari", bytes(72), 72),
                   StrFixedLenField("private_data", bytes(148), 148)]


for _cls in (CmReq, CmRep, CmRtu, CmDreq, CmDrep, CmRej):
    assert len(bytes(_cls())) == 232, _cls.name
bind_layers(BTH, DETH, opcode=UD_SEND_ONLY)
bind_layers(DETH, MAD)


def build_mad(client, server, attr, tid, msg, psn, corrupt_icrc=False, qkey=QP1_QKEY, mad_fields=None):
    """A CM MAD frame from `client` to `server` (dicts with mac, ip; client also sport).  msg: a CM layer
    or 232 raw bytes.  mad_fields: MAD header fields to override (e.g. class_version for a bad MAD)."""
    body = bytes(msg)
    assert len(body) == 232, len(body)
    mad = bytes(MAD(tid=tid, attr_id=attr, **(mad_fields or {}))) + body
    return build_request(4, client["mac"], server["mac"], client["ip"], server["ip"], client["sport"],
                         UD_SEND_ONLY, 1, psn, ext=(bytes(DETH(qkey=qkey)),), payload=mad,
                         corrupt_icrc=corrupt_icrc)


def decode_mad(frame):
    """(BTH, MAD with its CM message) of a CM frame, or None when it is not one."""
    p = Ether(bytes(frame))
    if BTH not in p or p[BTH].opcode != UD_SEND_ONLY or p[BTH].dqpn != 1 or MAD not in p:
        return None
    return p[BTH], p[MAD]
