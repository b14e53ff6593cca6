"""Every Scapy layer and frame helper of the project, importable from one place.

    PYTHONPATH=scripts /usr/bin/python3     (from the repository root; or pip install . - pyproject.toml)
    >>> from nettwin.layers import UDPLB, EVIO6Seg, RETH, AtomicETH, AtomicAckETH, ImmDt, to_fabric

Importing this module also binds the layers, so Scapy decodes LB (UDP 0x4C42) and RoCEv2 (UDP 4791)
frames it reads from a pcap.  The definitions stay in each block's folder (lb/, rdma/, reorder/, vnic/).
"""
# EJFAT load balancer: UDPLB / EVIO6 segment headers (docs/lb.md).
from nettwin.lb.layers import (EVIO6_PROTO, LB_HDR_LEN, LB_MAGIC, LB_PORT, LB_VERSION,  # noqa: F401
                               EVIO6Seg, UDPLB)
# RoCEv2: Scapy's BTH / AETH plus RETH, ImmDt, AtomicETH, AtomicAckETH, the ICRC and a request builder
# (docs/rdma.md).
from nettwin.rdma.layers import (AETH, BTH, OP, OP_NAME, ROCE_PORT, AtomicAckETH, AtomicETH,  # noqa: F401
                                 ImmDt, RETH, build_request, check_icrc, fix_ipv4_checksum, icrc,
                                 op_name, set_icrc)
# ConWeave fabric format (docs/reorder.md "Exact formats"): raw-byte helpers on RoCEv2 frames.
from nettwin.reorder.layers import (CW, CW_CLEAR, CW_HDR_LEN, CW_NAME, CW_NORMAL, CW_NOTIFY,  # noqa: F401
                                    CW_RTT_REPLY, CW_RTT_REQUEST, ECN_CE, cw_byte8, decode_cw,
                                    field_at, flow_key, key_str, make_control, parse, to_fabric, to_nic)
# OPA VNIC: the 16B packet carrying Ethernet (docs/vnic.md "Packet format"), header field table and ICRC.
from nettwin.vnic.layers import (HEADER_FIELDS, L4_ETH, OPA16B, decode_header, encode_header,  # noqa: F401
                                 icrc16b, pad_for)
# NAAICE endpoint: the InfiniBand CM over RoCEv2 (docs/naa.md): DETH, the MAD header and the CM messages.
from nettwin.naa.layers import (ATTR, DETH, MAD, CmDrep, CmDreq, CmRej, CmRep, CmReq, CmRtu,  # noqa: F401
                                build_mad, decode_mad, rdma_cm_service_id)
# EJFAT reassembly engine: E2SAR's 20-byte reassembly header and a kept LB header's bytes (docs/re.md).
from nettwin.re.layers import E2SAR_RE_LEN, E2SARRE, lb_header_bytes  # noqa: F401
