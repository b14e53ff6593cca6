"""Linux's OPA VNIC conventions, written from the Linux sources alone (not from the C++ model, not from
ref.py's spec table): what a Linux host running opa_vnic + hfi1 puts on the wire and how it reads it back.
Sources read (torvalds/linux, stored versions; docs/vnic.md "Linux conventions"):

  drivers/infiniband/ulp/opa_vnic/opa_vnic_encap.c  b7e1a1e9ae490a2a35376ad22b1d1fe779667bbf
      opa_vnic_make_header, opa_vnic_get_dlid, opa_vnic_get_sc, opa_vnic_get_rc, opa_vnic_calc_entropy,
      opa_vnic_wire_length, opa_vnic_encap_skb
  drivers/infiniband/ulp/opa_vnic/opa_vnic_internal.h 009b7dd40c2c0f14dc860182dcf35a36f540b229
  drivers/infiniband/ulp/opa_vnic/opa_vnic_encap.h   aa4673232ef6a0190ffc96d052405d2292e9bc12 (RC shifts)
  include/rdma/opa_vnic.h                            05909cd9a0c8811731b38697af13075e8954314f
  drivers/infiniband/hw/hfi1/vnic_sdma.c             1253eedfbf2464be99e040b28bff348b5fc6d9a1
      hfi1_vnic_update_pad: the tail byte is the pad count alone (plen - OPA_VNIC_ICRC_TAIL_LEN)
  drivers/infiniband/hw/hfi1/vnic_main.c             03da084ed8804ddc5918883be84245b53393b8fb
      hfi1_vnic_get_skb: trims ICRC + tail + (tail & 0x7); hfi1_vnic_up: vesw_id 0 refused;
      hfi1_netdev_start_xmit: a zero DLID (OPA_VNIC_SKB_MDATA_ENCAP_ERR) is dropped as tx_dlid_zero

Two things Linux leaves to run time are fixed here (docs/vnic.md): skb_get_hash() is the kernel's flow hash,
seeded at random per boot, so the flow hash is CRC-32 (zlib) of the frame's first 14 bytes (the Ethernet
header); and the default-port table (flow_tbl -> u_ucast_dlid[def_port]) has one entry, the port's
ucast_dlid. The ICRC is the HFI's (hfi1 sets PBC_INSERT_BYPASS_ICRC): layers.icrc16b, the project's
definition.

  make_header(...)          -> the 20 header bytes, built as opa_vnic_make_header builds its five u32 words
  wire_packet(hdr_fields, frame) -> header + frame + pad + ICRC + tail (pad count only)
  encap(frame, port, cfg)   -> (packet | None, reason) for a port of `profile linux` (ref.parse_config's dict)
  linux_decap(pkt)          -> the frame hfi1 hands up (ICRC + tail + (tail & 7) trimmed, 20 bytes pulled)
  python3 -m nettwin.vnic.linux_ref capture --seed N --out-dir D [--frames K]
      D/vnic.txt (nettwin's receiving config), D/opa.pcap (Linux-convention 16B packets, tail = pad count),
      D/eth.pcap + D/eth.ports (the frames and ports Linux's receive path would deliver)
  python3 -m nettwin.vnic.linux_ref compare --expected D/eth.pcap --expected-ports D/eth.ports
      --out OUT.pcap --ports-out OUT.ports       (exit 0 when equal frame for frame and port for port)
"""
import struct
import zlib

from .layers import icrc16b

# include/rdma/opa_vnic.h
OPA_VNIC_L2_HDR_LEN = 16 + 2
OPA_VNIC_L4_HDR_LEN = 2
OPA_VNIC_HDR_LEN = OPA_VNIC_L2_HDR_LEN + OPA_VNIC_L4_HDR_LEN
OPA_VNIC_L4_ETHR = 0x78
OPA_VNIC_ICRC_LEN = 4
OPA_VNIC_TAIL_LEN = 1
OPA_VNIC_ICRC_TAIL_LEN = OPA_VNIC_ICRC_LEN + OPA_VNIC_TAIL_LEN

# opa_vnic_encap.c
OPA_16B_LID_MASK = 0xFFFFF
OPA_16B_SLID_HIGH_SHFT = 8
OPA_16B_SLID_MASK = 0xF00
OPA_16B_DLID_MASK = 0xF000
OPA_16B_DLID_HIGH_SHFT = 12
OPA_16B_LEN_SHFT = 20
OPA_16B_SC_SHFT = 20
OPA_16B_RC_SHFT = 25
OPA_16B_PKEY_SHFT = 16
OPA_VNIC_L4_HDR_SHFT = 16

# opa_vnic_encap.h: OPA_VNIC_ENCAP_RC_EXT(w, b) = ((w) >> OPA_VNIC_ENCAP_RC_ ## b) & 0x7
RC_SHIFT = {"DEFAULT": 0, "IPV4": 4, "IPV4_UDP": 8, "IPV4_TCP": 12, "IPV6": 16, "IPV6_TCP": 20, "IPV6_UDP": 24}

ETH_P_IP, ETH_P_IPV6, ETH_P_8021Q, ETH_P_8021AD = 0x0800, 0x86DD, 0x8100, 0x88A8
IPPROTO_TCP, IPPROTO_UDP = 6, 17
VLAN_MAX_DEPTH = 8  # include/linux/if_vlan.h (__vlan_get_protocol's parse depth)


def make_header(slid, dlid, length, pkey, entropy, sc, rc, l4_type, l4_hdr):
    """opa_vnic_make_header: five little-endian u32 words."""
    m = 0xFFFFFFFF
    h = [0, 0xC0000000, 0, 0, 0]  # h[1]: LT=1, 16B L2=10
    h[2] = l4_type
    h[3] = entropy
    h[4] = (l4_hdr << OPA_VNIC_L4_HDR_SHFT) & m
    h[0] |= slid & OPA_16B_LID_MASK
    h[2] |= (slid >> (20 - OPA_16B_SLID_HIGH_SHFT)) & OPA_16B_SLID_MASK
    h[1] |= dlid & OPA_16B_LID_MASK
    h[2] |= (dlid >> (20 - OPA_16B_DLID_HIGH_SHFT)) & OPA_16B_DLID_MASK
    h[0] |= (length << OPA_16B_LEN_SHFT) & m
    h[1] |= (rc << OPA_16B_RC_SHFT) & m
    h[1] |= (sc << OPA_16B_SC_SHFT) & m
    h[2] |= (pkey << OPA_16B_PKEY_SHFT) & m
    return struct.pack("<5I", *h)


def wire_length(skb_len):
    """opa_vnic_wire_length: quadwords of header + frame (skb_len) + pad + ICRC + tail."""
    pad_len = -(skb_len + OPA_VNIC_ICRC_TAIL_LEN) & 0x7
    pad_len += OPA_VNIC_ICRC_TAIL_LEN
    return (skb_len + pad_len) >> 3


def wire_packet(frame, slid, dlid, pkey, entropy, sc, rc, veswid):
    """The bytes on the wire: opa_vnic_encap_skb's header, hfi1's pad buffer (zeros, its last byte
    plen - 5), the HFI's ICRC in place of the buffer's 4 ICRC bytes."""
    skb_len = OPA_VNIC_HDR_LEN + len(frame)
    length = wire_length(skb_len)
    hdr = make_header(slid, dlid, length, pkey, entropy, sc, rc, OPA_VNIC_L4_ETHR, veswid)
    plen = (-(skb_len + OPA_VNIC_ICRC_TAIL_LEN) & 0x7) + OPA_VNIC_ICRC_TAIL_LEN
    body = hdr + bytes(frame) + bytes(plen - OPA_VNIC_ICRC_TAIL_LEN)
    tail = plen - OPA_VNIC_ICRC_TAIL_LEN  # hfi1_vnic_update_pad
    return body + icrc16b(body).to_bytes(4, "little") + bytes([tail])


def linux_decap(pkt):
    """hfi1_vnic_get_skb + hfi1_vnic_decap_skb: the Ethernet frame Linux hands to the stack."""
    pad_info = pkt[-1]
    return bytes(pkt[OPA_VNIC_HDR_LEN:len(pkt) - OPA_VNIC_ICRC_TAIL_LEN - (pad_info & 0x7)])


def is_multicast(frame):
    return bool(frame[0] & 0x01)


def is_local(frame):
    return bool(frame[0] & 0x02)


def get_dlid(frame, port, cfg):
    """opa_vnic_get_dlid: the MAC table (a zero entry counts as not found), a group MAC's u_mcast_dlid, a
    locally administered MAC's bytes 5, 4, 3, else the default port's unicast DLID."""
    pc = cfg["ports"][port]
    dmac = int.from_bytes(frame[:6], "big")
    for p, mac, dlid in cfg["macs"]:
        if p == port and mac == dmac and dlid:
            return dlid
    if is_multicast(frame):
        return pc["mcast_dlid"]
    if is_local(frame):
        return frame[5] << 16 | frame[4] << 8 | frame[3]
    return pc["ucast_dlid"]


def vlan_tci(frame):
    """__vlan_get_tag: the first tag's TCI if the EtherType is 802.1Q or 802.1ad (TCI bytes present)."""
    if len(frame) >= 16 and int.from_bytes(frame[12:14], "big") in (ETH_P_8021Q, ETH_P_8021AD):
        return int.from_bytes(frame[14:16], "big")
    return None


def get_sc(frame, pc):
    """opa_vnic_get_sc."""
    tci = vlan_tci(frame)
    if tci is not None:
        pcp = tci >> 13
        return pc["pcp_sc_mc"][pcp] if is_multicast(frame) else pc["pcp_sc_uc"][pcp]
    return pc["sc_mc"] if is_multicast(frame) else pc["sc"]


def vlan_protocol(frame):
    """vlan_get_protocol: the EtherType behind up to VLAN_MAX_DEPTH tags (0 if deeper or cut short), and
    the offset of the network header."""
    off = 12
    typ = int.from_bytes(frame[12:14], "big")
    depth = VLAN_MAX_DEPTH
    while typ in (ETH_P_8021Q, ETH_P_8021AD):
        if depth == 0 or off + 6 > len(frame):
            return 0, None
        depth -= 1
        typ = int.from_bytes(frame[off + 4:off + 6], "big")
        off += 4
    return typ, off + 2


def get_rc(frame, pc):
    """opa_vnic_get_rc: a 3-bit field of the switch's rc word per protocol class. ip_hdr()->protocol /
    ipv6_hdr()->nexthdr beyond the frame's end counts as neither TCP nor UDP."""
    typ, l3 = vlan_protocol(frame)
    word = pc["rc_word"]
    if typ == ETH_P_IPV6:
        proto = frame[l3 + 6] if l3 + 6 < len(frame) else None
        cls = "IPV6_TCP" if proto == IPPROTO_TCP else "IPV6_UDP" if proto == IPPROTO_UDP else "IPV6"
    elif typ == ETH_P_IP:
        proto = frame[l3 + 9] if l3 + 9 < len(frame) else None
        cls = "IPV4_TCP" if proto == IPPROTO_TCP else "IPV4_UDP" if proto == IPPROTO_UDP else "IPV4"
    else:
        cls = "DEFAULT"
    return (word >> RC_SHIFT[cls]) & 0x7


def calc_entropy(frame):
    """opa_vnic_calc_entropy: the XOR of the flow hash's four bytes (the hash: CRC-32 of the Ethernet
    header, see above)."""
    h = zlib.crc32(bytes(frame[:14])) & 0xFFFFFFFF
    h ^= h >> 8
    h ^= h >> 16
    return h & 0xFF


def encap(frame, port, cfg):
    """opa_vnic_encap_skb for a configured port of profile linux (the length / port checks are ref.encap's).
    (None, 'dlid_zero') where Linux counts tx_dlid_zero."""
    pc = cfg["ports"][port]
    dlid = get_dlid(frame, port, cfg)
    if not dlid:
        return None, "dlid_zero"
    return wire_packet(frame, pc["slid"], dlid, pc["pkey"], calc_entropy(frame), get_sc(frame, pc),
                       get_rc(frame, pc), pc["veswid"]), None


# ---------------- a Linux-convention capture ----------------

def make_capture(seed, frames=120):
    """(config text, [16B packets], [(frame, port)] Linux would deliver)."""
    import random
    rng = random.Random(seed)
    nports = rng.randint(2, 4)
    ports = rng.sample(range(15), nports)
    vesw = rng.sample(range(1, 0xFFFF), nports)
    pkeys = {p: 0x8000 | rng.randint(1, 0x7FFF) for p in ports}
    lines = ["# receiving side of a Linux-convention capture (nettwin.vnic.linux_ref)"]
    for i, p in enumerate(ports):
        lines.append(f"port {p} veswid {vesw[i]} pkey {pkeys[p]:#06x} slid {rng.randint(1, 0xFFFFFF):#x}")
    pkts, want = [], []
    for k in range(frames):
        i = rng.randrange(nports)
        n = 14 + k % 8 if k < 16 else rng.choice([60, 64, 1514, rng.randint(14, 1600)])  # every pad count
        dst = bytes([0x02 | (rng.randint(0, 63) << 2)]) + bytes(rng.getrandbits(8) for _ in range(5))
        frame = dst + bytes(rng.getrandbits(8) for _ in range(n - 6))
        # what a sending Linux host builds: its own SLID, a DLID from the MAC, per-flow entropy, SC/RC as set
        pkt = wire_packet(frame, rng.randint(1, 0xFFFFFF), frame[5] << 16 | frame[4] << 8 | frame[3] or 1,
                          pkeys[ports[i]], calc_entropy(frame), rng.randint(0, 31), rng.randint(0, 7), vesw[i])
        assert pkt[-1] >> 6 == 0 and linux_decap(pkt) == frame
        pkts.append(pkt)
        want.append((linux_decap(pkt), ports[i]))
    return "\n".join(lines) + "\n", pkts, want


def main(argv=None):
    import argparse
    import os

    from .pcapio import read_pcap, write_pcap
    from .ref import InputError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--out-dir", required=True)
    c.add_argument("--frames", type=int, default=120)
    m = sub.add_parser("compare")
    m.add_argument("--expected", required=True)
    m.add_argument("--expected-ports", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--ports-out", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "capture":
        text, pkts, want = make_capture(a.seed, a.frames)
        os.makedirs(a.out_dir, exist_ok=True)
        with open(os.path.join(a.out_dir, "vnic.txt"), "w") as f:
            f.write(text)
        write_pcap(os.path.join(a.out_dir, "opa.pcap"), pkts, 147)
        write_pcap(os.path.join(a.out_dir, "eth.pcap"), [f for f, _ in want], 1)
        with open(os.path.join(a.out_dir, "eth.ports"), "w") as f:
            f.write("".join(f"{p}\n" for _, p in want))
        print(f"linux capture: {len(pkts)} packets in {a.out_dir}")
        return 0
    from nettwin.common.report import Report
    rep = Report("vnic_linux_ref", 20)
    try:
        want = read_pcap(a.expected, 1)
        got = read_pcap(a.out, 1)
        with open(a.expected_ports) as f:
            wp = [int(x) for x in f if x.strip()]
        with open(a.ports_out) as f:
            gp = [int(x) for x in f if x.strip()]
    except (InputError, OSError, ValueError) as e:
        return rep.unusable(e)
    if len(got) != len(want):
        rep.fail("count", f"{len(got)} frames out, Linux delivers {len(want)}")
    for j, (w, g) in enumerate(zip(want, got)):
        if w != g:
            rep.fail("bytes", f"frame {j + 1}: {len(g)} bytes, Linux delivers {len(w)} (or the bytes differ)")
    if gp != wp[:len(gp)] or len(gp) != len(got):
        rep.fail("port", "ports differ from the ones Linux delivers to")
    return rep.finish(f"compare: {len(got)} frames as Linux delivers them")

if __name__ == "__main__":
    raise SystemExit(main())
