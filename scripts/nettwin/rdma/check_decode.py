"""The RDMA checker's Scapy side (see check.py): decoding, naming the first differing field of two
frames, and the independent decode check of one response against its request and the config."""
import ipaddress

from nettwin.rdma.ref import opname

RESPONSE_OPS = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}
READ_RESP = {0x0D, 0x0E, 0x0F, 0x10}
DERIVED = {("IP", "len"), ("IP", "chksum"), ("IPv6", "plen"), ("UDP", "len"), ("BTH", "icrc")}


# ---------------------------------------------------------------------------------------------
# Scapy decoding and field naming
# ---------------------------------------------------------------------------------------------

def decode(frame):
    from scapy.layers.l2 import Ether
    import nettwin.rdma.layers  # noqa: F401  (binds the layers)
    return Ether(frame)


def layer_list(p):
    out = []
    while p is not None and p.__class__.__name__ != "NoPayload":
        out.append(p)
        p = p.payload
    return out


def fmt(layer, fld, val):
    try:
        r = fld.i2repr(layer, val)
    except Exception:
        r = repr(val)
    if isinstance(val, int) and not isinstance(val, bool):
        h = f"0x{val:x}"
        if str(r) != h and not str(r).startswith("0x"):
            return f"{r} ({h})"
    return str(r)


def field_diff(exp, got):
    """Name of the first differing field of two response frames, with both values."""
    try:
        le, lg = layer_list(decode(exp)), layer_list(decode(got))
    except Exception as e:
        return f"cannot decode ({type(e).__name__}: {e})"
    derived = []
    for a, b in zip(le, lg):
        if type(a) is not type(b):
            return f"layer {a.__class__.__name__} expected, got {b.__class__.__name__}"
        cls = a.__class__.__name__
        for f in a.fields_desc:
            va, vb = a.getfieldval(f.name), b.getfieldval(f.name)
            if (cls, f.name) in DERIVED:
                derived.append((cls, f, a, va, vb))
                continue
            if va == vb:
                continue
            if isinstance(va, (bytes, bytearray)) and isinstance(vb, (bytes, bytearray)):
                n = min(len(va), len(vb))
                k = next((x for x in range(n) if va[x] != vb[x]), n)
                if k == n:
                    return f"{cls}.{f.name}: expected {len(va)} bytes got {len(vb)} (identical up to byte {n})"
                return f"{cls}.{f.name} byte {k}: expected 0x{va[k]:02x} got 0x{vb[k]:02x}"
            return f"{cls}.{f.name} expected {fmt(a, f, va)} got {fmt(b, f, vb)}"
    if len(le) != len(lg):
        return (f"layers: expected {'/'.join(x.__class__.__name__ for x in le)} "
                f"got {'/'.join(x.__class__.__name__ for x in lg)}")
    for cls, f, a, va, vb in derived:
        if va != vb:
            return f"{cls}.{f.name} expected {fmt(a, f, va)} got {fmt(a, f, vb)}"
    n = min(len(exp), len(got))
    k = next((x for x in range(n) if exp[x] != got[x]), n)
    return f"frame byte {k}: lengths {len(exp)} / {len(got)}"


def brief(frame):
    """'OPCODE dest QP 0x.. PSN 0x..' of a response frame, best effort."""
    try:
        from nettwin.rdma.layers import BTH
        p = decode(frame)
        b = p[BTH]
        what = opname(b.opcode)
        if b.opcode == 0x11:
            from nettwin.rdma.layers import AETH
            syn = p[AETH].syndrome
            what = ("ACK" if syn == 0x1F else f"RNR NAK 0x{syn:02x} (timer {syn & 0x1F})" if syn >> 5 == 1
                    else f"NAK 0x{syn:02x}")
        return f"{what} dest QP 0x{b.dqpn:06x} PSN 0x{b.psn:06x}"
    except Exception:
        return f"{len(frame)} bytes, not decodable as RoCEv2"


# ---------------------------------------------------------------------------------------------
# Independent decode check of one response against its request
# ---------------------------------------------------------------------------------------------

def decode_check(cfg, req_frame, rsp_frame, req_opcode):
    """None if rsp_frame has the static fields docs/rdma.md prescribes for a response to
    req_frame, else 'field: expected/got'."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.utils import checksum
    from nettwin.rdma.layers import BTH
    q, r = decode(req_frame), decode(rsp_frame)
    mac = ":".join(f"{b:02x}" for b in cfg.mac)
    checks = [("Ether.dst (request's source MAC)", q.src, r.dst), ("Ether.src (responder MAC)", mac, r.src),
              ("Ether.type (request's family)", q.type, r.type)]
    if IP in q:
        i, o = q[IP], r[IP] if IP in r else None
        if o is None:
            return "no IPv4 header"
        checks += [("IP.version", 4, o.version), ("IP.ihl", 5, o.ihl), ("IP.tos", 0, o.tos), ("IP.id", 0, o.id),
                   ("IP.flags", "DF", str(o.flags)), ("IP.frag", 0, o.frag), ("IP.ttl", 64, o.ttl),
                   ("IP.proto", 17, o.proto), ("IP.src (responder)", str(ipaddress.IPv4Address(cfg.ip4)), o.src),
                   ("IP.dst (request's source)", i.src, o.dst),
                   ("IP.len", len(rsp_frame) - 14, o.len),
                   ("IPv4 header checksum residual", 0, checksum(bytes(rsp_frame[14:34])))]
    else:
        i, o = q[IPv6], r[IPv6] if IPv6 in r else None
        if o is None:
            return "no IPv6 header"
        checks += [("IPv6.tc", 0, o.tc), ("IPv6.fl", 0, o.fl), ("IPv6.nh", 17, o.nh), ("IPv6.hlim", 64, o.hlim),
                   ("IPv6.src (responder)", str(ipaddress.IPv6Address(cfg.ip6)), o.src),
                   ("IPv6.dst (request's source)", i.src, o.dst), ("IPv6.plen", len(rsp_frame) - 54, o.plen)]
    if UDP not in r or BTH not in r:
        return "no UDP/BTH"
    u, b = r[UDP], r[BTH]
    qpc = cfg.qps.get(q[BTH].dqpn)
    checks += [("UDP.sport (request's)", q[UDP].sport, u.sport), ("UDP.dport", 4791, u.dport),
               ("UDP.chksum", 0, u.chksum), ("BTH.solicited", 0, b.solicited), ("BTH.migreq", 0, b.migreq),
               ("BTH.version", 0, b.version), ("BTH.pkey", 0xFFFF, b.pkey), ("BTH.fecn", 0, b.fecn),
               ("BTH.becn", 0, b.becn), ("BTH.resv6", 0, b.resv6), ("BTH.ackreq", 0, b.ackreq),
               ("BTH.resv7", 0, b.resv7),
               ("BTH.dqpn (the QP's dest_qp)", qpc.dest_qp if qpc else None, b.dqpn)]
    allowed = READ_RESP | {0x11} if req_opcode == 0x0C else {0x11, 0x12} if req_opcode in (0x13, 0x14) else {0x11}
    checks.append(("BTH.opcode is a response to " + opname(req_opcode), True, b.opcode in allowed))
    if b.opcode in READ_RESP:
        hdr = 12 + (0 if b.opcode == 0x0E else 4)
        plen = u.len - 8 - hdr - 4 - b.padcount
        checks.append(("BTH.padcount ((4 - payload % 4) % 4)", (4 - plen % 4) % 4, b.padcount))
        pad = bytes(rsp_frame[len(rsp_frame) - 4 - b.padcount:len(rsp_frame) - 4])
        checks.append(("pad bytes zero", bytes(b.padcount), pad))
    else:
        checks.append(("BTH.padcount", 0, b.padcount))
    for name, e, g in checks:
        if e != g:
            return f"{name}: expected {e} got {g}"
    return None
