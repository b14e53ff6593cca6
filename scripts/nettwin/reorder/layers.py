#!/usr/bin/python3
"""ConWeave fabric-format helpers (docs/reorder.md "Exact formats") - library, no command line.

Raw-byte helpers on Ethernet / IPv4 (no options) | IPv6 / UDP 4791 / BTH frames; ICRC from
nettwin.rdma.layers (not duplicated here).

  to_fabric(nic, path_id, op, epoch, rerouted, tail, tx_ts, tail_tx_ts) -> fabric frame
      BTH byte 4 = PathID, BTH byte 8 = AckReq | op(3) | epoch(2) | REROUTED | TAIL (bit 7..0),
      4-byte CW header (TX_TSTAMP, TAIL_TX_TSTAMP, big-endian, mod 2^16) after the BTH,
      IPv4 total length / IPv6 payload length and UDP length + 4, IPv4 checksum recomputed,
      UDP checksum and ICRC untouched (the ICRC is the NIC's, so it does not match in the fabric).
  to_nic(fabric) -> the NIC frame (inverse: byte 4 = 0, byte 8 = AckReq only, CW header removed,
      lengths - 4, IPv4 checksum recomputed).
  decode_cw(fabric) -> CW namedtuple (path_id, op, epoch, rerouted, tail, ackreq, tx_ts, tail_tx_ts)
  make_control(fabric, op) -> the control packet (RTT_REPLY / CLEAR / NOTIFY) docs/reorder.md
      describes for that triggering fabric frame (swapped MAC/IP, TTL/hop limit 64, truncated
      after the CW header, REROUTED/TAIL 0, ICRC recomputed).  epoch= overrides the epoch.
  parse(frame) -> Hdr (offsets, family, key, psn, ...) or None;  flow_key(frame);  ecn(frame)

Two wire formats (docs/reorder.md "Two wire formats"), chosen like the block's `wire_format` key:
set_format("seed" | "conweave-p4") once per process (nettwin.reorder.gen / reorder_check / nettwin.reorder.ref / nettwin.reorder.corrupt read it
from reorder.txt), or fmt= per call. "conweave-p4" (conweave-project/conweave-p4 39b34be,
leaf_conweave/p4src/includes/headers.p4): BTH byte 8 = AckReq | opcode(2: 1 DATA, 2 REPLY, 3 NOTIFY) |
phase | epoch(2) | ask_reply | tail, and the IP/UDP lengths are not grown for the CW header. The CW
namedtuple always holds the seed's meaning: op (DATA with ask_reply and no tail = RTT_REQUEST, else
NORMAL; REPLY phase 0 = RTT_REPLY, REPLY phase 1 = CLEAR, NOTIFY = NOTIFY, 0 = None), epoch = epoch +
phase, rerouted = phase on DATA (0 on control packets), tail; phase / ask_reply raw in .raw8.
"""
import ipaddress
import struct
from collections import namedtuple

from nettwin.rdma.layers import ROCE_PORT, check_icrc, fix_ipv4_checksum, set_icrc  # noqa: F401

CW_NORMAL, CW_RTT_REQUEST, CW_RTT_REPLY, CW_CLEAR, CW_NOTIFY = 0, 1, 2, 3, 4
CW_NAME = {0: "NORMAL", 1: "RTT_REQUEST", 2: "RTT_REPLY", 3: "CLEAR", 4: "NOTIFY"}
CW_HDR_LEN = 4
BTH_LEN = 12
ECN_CE = 3

CW = namedtuple("CW", "path_id op epoch rerouted tail ackreq tx_ts tail_tx_ts raw8")
SEED, P4 = "seed", "conweave-p4"
FORMATS = (SEED, P4)
_format = [SEED]


def read_config(path):
    """reorder.txt as {key: int}, queue_allocation and wire_format as text; selects its wire format
    (set_format; the seed's when the file has no wire_format line, as the block)."""
    conf = {}
    with open(path) as f:
        for ln in f:
            t = ln.split("#")[0].split()
            if t:
                conf[t[0]] = t[1] if t[0] in ("queue_allocation", "wire_format") else int(t[1])
    set_format(conf.get("wire_format", SEED))
    return conf


def set_format(name):
    """The wire format of every later call without fmt= (the block's `wire_format`)."""
    if name not in FORMATS:
        raise ValueError(f"wire_format must be one of {', '.join(FORMATS)}, not {name!r}")
    _format[0] = name


def get_format(fmt=None):
    return fmt or _format[0]


def grown(fmt=None):
    """Bytes the CW header adds to the IP/UDP lengths (4 in the seed's format, 0 in conweave-p4's)."""
    return CW_HDR_LEN if get_format(fmt) == SEED else 0
Hdr = namedtuple("Hdr", "family ip udp bth end src dst dqpn psn opcode ecn")


def parse(frame):
    """Header offsets and key fields of an Ethernet/IP/UDP-4791 frame holding at least a BTH;
    None otherwise.  end = end of the IP datagram (by the IP length field)."""
    f = bytes(frame)
    if len(f) < 14:
        return None
    et = (f[12] << 8) | f[13]
    if et == 0x0800:
        if len(f) < 34 or (f[14] >> 4) != 4 or f[23] != 17:
            return None
        hl = (f[14] & 0x0F) * 4
        if hl < 20:
            return None
        udp = 14 + hl
        end = 14 + ((f[16] << 8) | f[17])
        src = str(ipaddress.IPv4Address(f[26:30]))
        dst = str(ipaddress.IPv4Address(f[30:34]))
        ecnv = f[15] & 3
        fam = 4
    elif et == 0x86DD:
        if len(f) < 54 or f[20] != 17:
            return None
        udp = 54
        end = 54 + ((f[18] << 8) | f[19])
        src = str(ipaddress.IPv6Address(f[22:38]))
        dst = str(ipaddress.IPv6Address(f[38:54]))
        ecnv = (f[15] >> 4) & 3
        fam = 6
    else:
        return None
    bth = udp + 8
    if len(f) < bth + BTH_LEN or ((f[udp + 2] << 8) | f[udp + 3]) != ROCE_PORT:
        return None
    dqpn = int.from_bytes(f[bth + 5:bth + 8], "big")
    psn = int.from_bytes(f[bth + 9:bth + 12], "big")
    return Hdr(fam, 14, udp, bth, end, src, dst, dqpn, psn, f[bth], ecnv)


def flow_key(frame):
    """(IP source, IP destination, destination QP) or None."""
    h = parse(frame)
    return None if h is None else (h.src, h.dst, h.dqpn)


def key_str(key):
    return f"{key[0]}>{key[1]} QP 0x{key[2]:06x}"


def ecn(frame):
    h = parse(frame)
    return None if h is None else h.ecn


def _add_lengths(f, h, delta):
    if h.family == 4:
        struct.pack_into(">H", f, 16, struct.unpack_from(">H", f, 16)[0] + delta)
    else:
        struct.pack_into(">H", f, 18, struct.unpack_from(">H", f, 18)[0] + delta)
    struct.pack_into(">H", f, h.udp + 4, struct.unpack_from(">H", f, h.udp + 4)[0] + delta)


def cw_byte8(ackreq, op, epoch, rerouted, tail):
    return ((0x80 if ackreq else 0) | ((op & 7) << 4) | ((epoch & 3) << 2)
            | (2 if rerouted else 0) | (1 if tail else 0))


def p4_byte8(ackreq, code, phase, epoch, ask, tail):
    return ((0x80 if ackreq else 0) | ((code & 3) << 5) | ((phase & 1) << 4) | ((epoch & 3) << 2)
            | (2 if ask else 0) | (1 if tail else 0))


def to_fabric(nic, path_id, op, epoch, rerouted, tail, tx_ts, tail_tx_ts, fmt=None):
    """op / epoch / rerouted / tail in the seed's meaning; conweave-p4: DATA, phase = rerouted, its epoch =
    epoch - phase, ask_reply = RTT_REQUEST or TAIL (conweave-p4's TAIL asks for its REPLY, the CLEAR)."""
    h = parse(nic)
    if h is None:
        raise ValueError("not a RoCEv2 frame")
    f = bytearray(nic)
    f[h.bth + 4] = path_id & 0xFF
    if get_format(fmt) == SEED:
        f[h.bth + 8] = cw_byte8(f[h.bth + 8] & 0x80, op, epoch, rerouted, tail)
    else:
        if op not in (CW_NORMAL, CW_RTT_REQUEST) or (op == CW_RTT_REQUEST and tail):
            raise ValueError("conweave-p4 data packets are NORMAL or RTT_REQUEST, and a TAIL is no RTT_REQUEST")
        ph = 1 if rerouted else 0
        f[h.bth + 8] = p4_byte8(f[h.bth + 8] & 0x80, 1, ph, epoch - ph, op == CW_RTT_REQUEST or tail, tail)
    f[h.bth + BTH_LEN:h.bth + BTH_LEN] = struct.pack(">HH", tx_ts & 0xFFFF, tail_tx_ts & 0xFFFF)
    _add_lengths(f, h, grown(fmt))
    return fix_ipv4_checksum(bytes(f))


def decode_cw(fabric, fmt=None):
    """CW fields of a fabric or control frame, in the seed's meaning (None if not RoCEv2 or too short for
    the CW header; conweave-p4: also for opcode 0, no CW header)."""
    h = parse(fabric)
    f = bytes(fabric)
    if h is None or len(f) < h.bth + BTH_LEN + CW_HDR_LEN:
        return None
    b8 = f[h.bth + 8]
    tx, ttx = struct.unpack_from(">HH", f, h.bth + BTH_LEN)
    if get_format(fmt) == SEED:
        return CW(f[h.bth + 4], (b8 >> 4) & 7, (b8 >> 2) & 3, (b8 >> 1) & 1, b8 & 1, b8 >> 7, tx, ttx, b8)
    code, ph, ask, tail = (b8 >> 5) & 3, (b8 >> 4) & 1, (b8 >> 1) & 1, b8 & 1
    if code == 0:
        return None
    op = ((CW_RTT_REQUEST if ask and not tail else CW_NORMAL) if code == 1 else
          (CW_CLEAR if ph else CW_RTT_REPLY) if code == 2 else CW_NOTIFY)
    return CW(f[h.bth + 4], op, ((b8 >> 2) + ph) & 3, ph if code == 1 else 0, tail, b8 >> 7, tx, ttx, b8)


def to_nic(fabric, fmt=None):
    h = parse(fabric)
    if h is None or len(fabric) < h.bth + BTH_LEN + CW_HDR_LEN:
        raise ValueError("not a ConWeave fabric frame")
    f = bytearray(fabric)
    f[h.bth + 4] = 0
    f[h.bth + 8] &= 0x80
    del f[h.bth + BTH_LEN:h.bth + BTH_LEN + CW_HDR_LEN]
    if grown(fmt):
        _add_lengths(f, h, -CW_HDR_LEN)
        return fix_ipv4_checksum(bytes(f))
    return bytes(f)


def make_control(fabric, op, epoch=None, fmt=None):
    """Expected control packet for a triggering fabric frame (docs/reorder.md "Control packet"). epoch: the
    seed's meaning (a CLEAR's = the reroute's); conweave-p4: RTT_REPLY = REPLY phase 0 with the trigger's
    epoch bits, NOTIFY = NOTIFY with its phase and epoch bits, CLEAR = REPLY phase 1 with epoch - 1. The
    lengths are exact in both formats (a control packet is a new frame, docs/reorder.md)."""
    h = parse(fabric)
    if h is None:
        raise ValueError("not a RoCEv2 frame")
    src = bytes(fabric)
    cwend = h.bth + BTH_LEN + CW_HDR_LEN
    f = bytearray(src[:cwend] + b"\0\0\0\0")          # + ICRC
    f[0:6], f[6:12] = src[6:12], src[0:6]
    if h.family == 4:
        f[26:30], f[30:34] = src[30:34], src[26:30]
        f[22] = 64
        struct.pack_into(">H", f, 16, len(f) - 14)
    else:
        f[22:38], f[38:54] = src[38:54], src[22:38]
        f[21] = 64
        struct.pack_into(">H", f, 18, len(f) - 54)
    struct.pack_into(">H", f, h.udp + 4, len(f) - h.udp)
    b8 = src[h.bth + 8]
    if get_format(fmt) == SEED:
        ep = (b8 >> 2) & 3 if epoch is None else epoch
        f[h.bth + 8] = cw_byte8(b8 & 0x80, op, ep, 0, 0)
    elif op == CW_CLEAR:
        ep = decode_cw(src, fmt).epoch if epoch is None else epoch
        f[h.bth + 8] = p4_byte8(b8 & 0x80, 2, 1, ep - 1, 0, 0)
    elif op == CW_NOTIFY:
        f[h.bth + 8] = p4_byte8(b8 & 0x80, 3, (b8 >> 4) & 1, b8 >> 2, 0, 0)
    else:
        f[h.bth + 8] = p4_byte8(b8 & 0x80, 2, 0, b8 >> 2, 0, 0)
    return set_icrc(fix_ipv4_checksum(bytes(f)))


def field_at(frame, off):
    """Name of the header field holding byte `off` of a (NIC or fabric) frame, for messages."""
    h = parse(frame)
    if off < 6:
        return "Ethernet dst"
    if off < 12:
        return "Ethernet src"
    if off < 14 or h is None:
        return "EtherType" if off < 14 else "frame"
    if off < h.udp:
        names4 = {1: "TOS", 2: "total length", 3: "total length", 4: "id", 5: "id", 8: "TTL",
                  9: "protocol", 10: "header checksum", 11: "header checksum"}
        names6 = {4: "payload length", 5: "payload length", 6: "next header", 7: "hop limit"}
        r = off - 14
        if h.family == 4:
            return "IPv4 " + ("src" if 12 <= r < 16 else "dst" if 16 <= r < 20 else names4.get(r, "header"))
        return "IPv6 " + ("src" if 8 <= r < 24 else "dst" if 24 <= r < 40 else names6.get(r, "tc/flow label"))
    if off < h.bth:
        return "UDP " + ["sport", "sport", "dport", "dport", "length", "length", "checksum", "checksum"][off - h.udp]
    if off < h.bth + BTH_LEN:
        return "BTH byte %d" % (off - h.bth)
    end = min(h.end, len(frame))
    if off >= end - 4 and off < end:
        return "ICRC"
    if off >= end:
        return "bytes after the IP datagram"
    return "extension header / payload (byte %d after the BTH)" % (off - h.bth - BTH_LEN)
