"""Independent Python reference of the OPA VNIC block (docs/vnic.md), written from the spec's field table,
not from the C++ model: the configuration file, encapsulation and decapsulation packet by packet, with the
drop reason of every rejected packet.

  cfg = load_config(path)                       # InputError "file:line: token 'x': message"
  encap(frame, port, cfg) -> (packet | None, reason)
  decap(packet, cfg)      -> (frame | None, port, reason)
"""
from nettwin.common import blockdesc

from . import linux_ref
from .layers import HDR_LEN, L4_ETH, TRAILER_LEN, decode_header, encode_header, icrc16b, pad_for

PORTS = 16
MAC_ENTRIES = 64
MAX_ETH = 16351          # 2047 quadwords - 25
MIN_PKT = 40             # 20 + 14 + 5, quadword aligned
# The drop reasons of each direction, in reason-code order: the block descriptor's (rtl/vnic/data/vnic.json).
ENCAP_REASONS = blockdesc.drop_reasons(blockdesc.load("vnic"), "encap")
DECAP_REASONS = blockdesc.drop_reasons(blockdesc.load("vnic"), "decap")
PORT_KEYS = {"veswid": 0xFFFF, "pkey": 0xFFFF, "slid": 0xFFFFFF, "sc": 31, "rc": 7, "ucast_dlid": 0xFFFFFF,
             "mcast_dlid": 0xFFFFFF, "entropy": 0xFFFF, "sc_mc": 31, "rc_word": 0xFFFFFFFF}
LINUX_ONLY = ("sc_mc", "rc_word", "pcp_sc_uc", "pcp_sc_mc")  # profile linux's keys
NETTWIN_ONLY = ("rc", "entropy")                            # computed per frame in profile linux


class InputError(Exception):
    pass


def _num(tok, mx, what, where):
    t = tok.lower()
    try:
        if t.startswith("0x") and len(t) > 2:
            v = int(t[2:], 16)
        elif t.isdigit() and (len(t) == 1 or t[0] != "0"):
            v = int(t)
        else:
            raise ValueError
    except ValueError:
        raise InputError(f"{where}: token '{tok}': {what} is not a number (decimal or 0x-hex)") from None
    if v > mx:
        raise InputError(f"{where}: token '{tok}': {what} must be at most {mx}")
    return v


def parse_config(text, name="config"):
    """{'ports': {n: {key: value}}, 'macs': [(port, mac_int, dlid)]} (MAC entries in file order)."""
    ports, macs = {}, []
    for n, line in enumerate(text.splitlines(), 1):
        where = f"{name}:{n}"
        tok = line.split("#", 1)[0].split()
        if not tok:
            continue
        if tok[0] == "port":
            if len(tok) < 2 or len(tok) % 2:
                raise InputError(f"{where}: token '{tok[-1]}': expected port <n> key value ...")
            p = _num(tok[1], PORTS - 1, "port number", where)
            if p in ports:
                raise InputError(f"{where}: token '{tok[1]}': port {p} is configured twice")
            kv = {}
            for k, v in zip(tok[2::2], tok[3::2]):
                if k in kv or k not in set(PORT_KEYS) | {"profile", "pcp_sc_uc", "pcp_sc_mc"}:
                    raise InputError(f"{where}: token '{k}': unknown or repeated key")
                if k == "profile":
                    if v not in ("linux", "nettwin"):
                        raise InputError(f"{where}: token '{v}': profile is nettwin or linux")
                    kv[k] = v
                elif k in ("pcp_sc_uc", "pcp_sc_mc"):
                    parts = v.split(",")
                    if len(parts) != 8:
                        raise InputError(f"{where}: token '{v}': {k} wants eight SCs separated by commas")
                    kv[k] = [_num(x, 31, k, where) for x in parts]
                else:
                    kv[k] = _num(v, PORT_KEYS[k], k, where)
            for req in ("veswid", "pkey", "slid"):
                if req not in kv:
                    raise InputError(f"{where}: token 'port': port needs '{req}'")
            if kv["veswid"] == 0:
                raise InputError(f"{where}: token 'port': veswid 0 is not a virtual switch (Linux refuses it)")
            if kv["slid"] == 0:
                raise InputError(f"{where}: token 'port': slid 0 is not a LID")
            kv.setdefault("profile", "nettwin")
            for k in NETTWIN_ONLY if kv["profile"] == "linux" else LINUX_ONLY:
                if k in kv:
                    raise InputError(f"{where}: token '{k}': not a key of profile {kv['profile']}")
            if any(q["veswid"] == kv["veswid"] for q in ports.values()):
                raise InputError(f"{where}: token 'port': veswid {kv['veswid']} is already used")
            kv.setdefault("ucast_dlid", 0xFFFFFF)
            kv.setdefault("mcast_dlid", 0xFFFFFF)
            for k in ("sc", "rc", "entropy", "sc_mc", "rc_word"):
                kv.setdefault(k, 0)
            kv.setdefault("pcp_sc_uc", [0] * 8)
            kv.setdefault("pcp_sc_mc", [0] * 8)
            ports[p] = kv
        elif tok[0] == "mac":
            if len(tok) != 4:
                raise InputError(f"{where}: token 'mac': expected mac <port> <aa:bb:cc:dd:ee:ff> <dlid>")
            p = _num(tok[1], PORTS - 1, "port number", where)
            if p not in ports:
                raise InputError(f"{where}: token '{tok[1]}': port {p} is not configured")
            parts = tok[2].split(":")
            if len(parts) != 6 or any(len(x) != 2 for x in parts):
                raise InputError(f"{where}: token '{tok[2]}': MAC address must be aa:bb:cc:dd:ee:ff")
            mac = int("".join(parts), 16)
            dlid = _num(tok[3], 0xFFFFFF, "dlid", where)
            if dlid == 0:
                raise InputError(f"{where}: token '{tok[3]}': dlid 0 is not a LID")
            macs.append((p, mac, dlid))
        else:
            raise InputError(f"{where}: token '{tok[0]}': unknown line (port, mac)")
    if len(macs) > MAC_ENTRIES:
        raise InputError(f"{name}: more than {MAC_ENTRIES} MAC entries")
    return {"ports": ports, "macs": macs}


def load_config(path):
    try:
        with open(path) as f:
            return parse_config(f.read(), path)
    except OSError as e:
        raise InputError(f"{path}: cannot open ({e.strerror})") from None


def dlid_for(frame, port, cfg):
    pc = cfg["ports"][port]
    if frame[0] & 1:  # group address: broadcast / multicast
        return pc["mcast_dlid"]
    dmac = int.from_bytes(frame[:6], "big")
    for p, mac, dlid in cfg["macs"]:
        if p == port and mac == dmac:
            return dlid
    return pc["ucast_dlid"]


def encap(frame, port, cfg):
    frame = bytes(frame)
    if len(frame) < 14:
        return None, "runt"
    if len(frame) > MAX_ETH:
        return None, "too_long"
    if port not in cfg["ports"]:
        return None, "port_disabled"
    pc = cfg["ports"][port]
    if pc["profile"] == "linux":  # Linux opa_vnic's rules, from the Linux sources (linux_ref.py)
        return linux_ref.encap(frame, port, cfg)
    dlid = dlid_for(frame, port, cfg)
    if dlid == 0:
        return None, "dlid_zero"
    pad = pad_for(len(frame))
    total = HDR_LEN + len(frame) + pad + TRAILER_LEN
    hdr = encode_header({"slid": pc["slid"], "dlid": dlid, "length": total // 8,
                         "sc": pc["sc"], "rc": pc["rc"], "l2": 0b10, "lt": 1, "l4": L4_ETH, "pkey": pc["pkey"],
                         "entropy": pc["entropy"], "veswid": pc["veswid"]})
    body = hdr + frame + bytes(pad)
    return body + icrc16b(body).to_bytes(4, "little") + bytes([0x40 | pad]), None


def pkey_match(a, b):
    return (a & 0x7FFF) != 0 and (a & 0x7FFF) == (b & 0x7FFF) and bool((a | b) & 0x8000)


def decap(pkt, cfg):
    pkt = bytes(pkt)
    n = len(pkt)
    if n < MIN_PKT:
        return None, None, "runt"
    h = decode_header(pkt)
    if h["l2"] != 0b10 or h["lt"] != 1:
        return None, None, "bad_l2"
    if h["l4"] != L4_ETH:
        return None, None, "bad_l4"
    if n != 8 * h["length"]:
        return None, None, "length_mismatch"
    if icrc16b(pkt[:n - 5]) != int.from_bytes(pkt[n - 5:n - 1], "little"):
        return None, None, "bad_icrc"
    tail = pkt[-1]
    pad = tail & 0x3F
    if tail >> 6 > 1 or pad > 7 or n - HDR_LEN - TRAILER_LEN - pad < 14:
        return None, None, "bad_pad"
    port = min((p for p, c in cfg["ports"].items() if c["veswid"] == h["veswid"]), default=None)
    if port is None:
        return None, None, "unknown_veswid"
    if not pkey_match(h["pkey"], cfg["ports"][port]["pkey"]):
        return None, None, "pkey_mismatch"
    return pkt[HDR_LEN:n - TRAILER_LEN - pad], port, None
