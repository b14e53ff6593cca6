"""Seeded OPA VNIC vectors (docs/vnic.md "Vectors"):

  D/vnic.txt   configuration: 4..6 VNIC ports on distinct virtual switches (veswid), pkeys (full and limited
               members), 24-bit LIDs above 2^20, SC/RC/entropy; MAC tables; one port left unconfigured; at
               least one port of profile linux (SC per PCP, an rc_word), whose locally administered MACs
               with bytes 3-5 zero are dropped as dlid_zero
  D/eth.pcap   Ethernet frames for encapsulation (link type 1) and D/eth.ports (each frame's VNIC port):
               broadcast, multicast, known and unknown unicast, VLAN-tagged (802.1Q, QinQ), IPv4/IPv6/ARP,
               every length 14..200, 60, 64, 1514, 1518, 9000, 9018, random up to 9018 and the 16351 limit,
               plus drops: runts (0..13 bytes), too long (16352), an unconfigured port
  D/opa.pcap   OPA 16B packets for decapsulation (DLT_USER0 = 147): valid ones for every port and pad count
               (with BECN/FECN/SC set: the ICRC does not cover them; some with Linux's tail byte, LT bits 0),
               and corrupted ones for every drop reason
"""
import random

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether

from . import ref
from .layers import decode_header, encode_header, icrc16b
from .pcapio import write_pcap

LINK_ETH, LINK_USER0 = 1, 147


def make_config(rng):
    nports = rng.randint(4, 6)
    ports = rng.sample(range(ref.PORTS - 1), nports)  # port 15 stays unconfigured
    lines = ["# nettwin vnic config (nettwin.vnic.gen)"]
    vesw = rng.sample(range(1, 0xFFFF), nports)
    for i, p in enumerate(ports):
        # full members: a port talks to its own partition (two limited members could not, IBTA 10.9.3)
        pkey = rng.choice([0x8001, 0xFFFF, 0x8000 | rng.randint(1, 0x7FFF)])
        common = (f"port {p} veswid {vesw[i]} pkey {pkey:#06x} slid {rng.randint(1, 0xFFFFFF):#x} "
                  f"sc {rng.randint(0, 31)} ucast_dlid {rng.randint(1, 0xFFFFFF):#x} "
                  f"mcast_dlid {rng.randint(1, 0xFFFFFF):#x}")
        if i == 1 or rng.random() < 0.25:  # profile linux: Linux opa_vnic's DLID / SC / RC / entropy rules
            pcp = [",".join(str(rng.randint(0, 31)) for _ in range(8)) for _ in range(2)]
            lines.append(f"{common} profile linux sc_mc {rng.randint(0, 31)} pcp_sc_uc {pcp[0]} pcp_sc_mc {pcp[1]} "
                         f"rc_word {rng.randint(0, 0xFFFFFFFF):#x}")
        else:
            lines.append(f"{common} rc {rng.randint(0, 7)} entropy {rng.randint(0, 0xFFFF)}")
    macs = []
    for _ in range(rng.randint(8, 40)):
        p = rng.choice(ports)
        mac = (rng.randint(0, (1 << 48) - 1) & ~(1 << 40)) | (1 << 41)  # unicast, locally administered
        macs.append((p, mac))
        lines.append(f"mac {p} {':'.join(f'{b:02x}' for b in mac.to_bytes(6, 'big'))} {rng.randint(1, 0xFFFFFF)}")
    return "\n".join(lines) + "\n", ports, macs


def _mac(v):
    return ":".join(f"{b:02x}" for b in v.to_bytes(6, "big"))


def eth_frame(rng, length, dst, vlan=0):
    src = "02:00:00:%02x:%02x:%02x" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255))
    kind = rng.choice(["ip4", "ip6", "arp", "raw", "ip4tcp", "ip6udp", "ip4icmp"])
    e = Ether(dst=dst, src=src)
    if vlan == 1:
        e = e / Dot1Q(vlan=rng.randint(1, 4094), prio=rng.randint(0, 7))
    elif vlan == 2:
        e = Ether(dst=dst, src=src, type=0x88A8) / Dot1Q(vlan=rng.randint(1, 4094)) / Dot1Q(vlan=rng.randint(1, 4094))
    if kind == "ip4":
        e = e / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=rng.randint(1, 65535), dport=4789)
    elif kind == "ip6":
        e = e / IPv6() / TCP()
    elif kind == "ip4tcp":
        e = e / IP(src="10.0.0.1", dst="10.0.0.3") / TCP(sport=rng.randint(1, 65535))
    elif kind == "ip6udp":
        e = e / IPv6() / UDP(sport=rng.randint(1, 65535))
    elif kind == "ip4icmp":
        e = e / IP(src="10.0.0.1", dst="10.0.0.4", proto=1)
    elif kind == "arp":
        e = e / ARP()
    f = bytes(e)
    if len(f) < length:
        f += bytes(rng.getrandbits(8) for _ in range(length - len(f)))
    return f[:length]


def make_eth(rng, ports, macs, count, linux_ports=()):
    frames = []  # (bytes, port, note)
    known = [m for m in macs]

    def dst_for(port):
        r = rng.random()
        own = [m for p, m in known if p == port]
        if r < 0.15:
            return "ff:ff:ff:ff:ff:ff", "broadcast"
        if r < 0.25:
            return "01:00:5e:%02x:%02x:%02x" % (rng.randint(0, 127), rng.randint(0, 255), rng.randint(0, 255)), "mcast"
        if r < 0.65 and own:
            return _mac(rng.choice(own)), "known"
        if r < 0.75 and known:
            return _mac(rng.choice(known)[1]), "other-port mac"  # known on another port only
        if rng.random() < 0.5:  # universally administered: the default unicast DLID in both profiles
            return "00:1b:21:%02x:%02x:%02x" % tuple(rng.randint(0, 255) for _ in range(3)), "unknown uaa"
        return "02:aa:%02x:%02x:%02x:%02x" % tuple(rng.randint(0, 255) for _ in range(4)), "unknown"

    lengths = list(range(14, 201)) + [60, 64, 1514, 1518, 9000, 9018, 9014, 16351, 16344]
    lengths += [rng.randint(14, 9018) for _ in range(max(0, count - len(lengths)))]
    for length in lengths:
        port = rng.choice(ports)
        dst, note = dst_for(port)
        vlan = rng.choice([0, 0, 0, 1, 2]) if length >= 22 else 0
        frames.append((eth_frame(rng, length, dst, vlan), port, f"{note} len={length} vlan={vlan}"))
    # drops
    for length in range(0, 14):
        frames.append((bytes(rng.getrandbits(8) for _ in range(length)), rng.choice(ports), f"runt len={length}"))
    frames.append((eth_frame(rng, 16352, "ff:ff:ff:ff:ff:ff"), rng.choice(ports), "too_long 16352"))
    frames.append((eth_frame(rng, 64, "ff:ff:ff:ff:ff:ff"), ref.PORTS - 1, "port_disabled"))
    frames.append((eth_frame(rng, 1000, "ff:ff:ff:ff:ff:ff"), ref.PORTS - 1, "port_disabled"))
    for p in linux_ports:  # a locally administered MAC whose bytes 3-5 are 0: Linux drops it (tx_dlid_zero)
        frames.append((eth_frame(rng, 80, "02:%02x:%02x:00:00:00" % (rng.randint(0, 255), rng.randint(0, 255))), p,
                       "dlid_zero"))
    rng.shuffle(frames)
    return frames


def _refix(pkt):
    """Recompute the ICRC after changing covered bytes (for corruptions checked after the ICRC)."""
    b = bytearray(pkt)
    b[-5:-1] = icrc16b(bytes(b[:-5])).to_bytes(4, "little")
    return bytes(b)


def _with_header(pkt, **changes):
    h = decode_header(pkt)
    h.update(changes)
    for k in ("slid", "dlid"):
        h.pop(k + "_lo")
        h.pop(k + "_hi")
    return encode_header(h) + pkt[20:]


def make_opa(rng, cfg, eth):
    """16B packets: every valid encapsulation of a sample of `eth`, variant fields set, and corruptions."""
    pkts = []
    good = []
    for f, port, note in eth:
        p, _ = ref.encap(f, port, cfg)
        if p is not None:
            good.append((p, note))
    rng.shuffle(good)
    for p, note in good[:max(60, len(good) // 2)]:
        if rng.random() < 0.3:  # a switch on the way set BECN/FECN and remapped SC: the ICRC still holds
            p = _with_header(p, becn=1, fecn=rng.randint(0, 1), sc=rng.randint(0, 31))
        pkts.append((p, "good " + note))
    for p, note in good[:8]:  # Linux's tail byte: the pad count alone, LT bits 0 (hfi1 vnic_sdma.c)
        pkts.append((p[:-1] + bytes([p[-1] & 0x3F]), "good linux tail " + note))
    vesws = {c["veswid"] for c in cfg["ports"].values()}
    base = [p for p, _ in good if len(p) < 2000] or [good[0][0]]

    def pick():
        return bytearray(rng.choice(base))

    for _ in range(3):
        for n in (0, 1, 8, 20, 24, 32, 39):
            pkts.append((bytes(pick()[:n]), f"runt {n}"))
        pkts.append((_with_header(bytes(pick()), l2=rng.choice([0, 1, 3])), "bad_l2 l2"))
        pkts.append((_with_header(bytes(pick()), lt=0), "bad_l2 lt"))
        pkts.append((_with_header(bytes(pick()), l4=rng.choice([0x00, 0x08, 0x09, 0x77, 0x79, 0xFF])), "bad_l4"))
        b = bytes(pick())
        pkts.append((_with_header(b, length=decode_header(b)["length"] + rng.choice([-2, -1, 1, 5])), "length field"))
        pkts.append((bytes(pick())[:-8], "length truncated"))
        pkts.append((bytes(pick()) + bytes(8), "length extra qw"))
        pkts.append((bytes(pick())[:-3], "length not qw aligned"))
        b = pick()
        i = rng.randrange(20, len(b) - 5)
        b[i] ^= 1 << rng.randrange(8)
        pkts.append((bytes(b), "bad_icrc data bit"))
        b = pick()
        b[-5] ^= 0x80
        pkts.append((bytes(b), "bad_icrc icrc bit"))
        b = pick()
        b[12] ^= 0x10  # entropy is covered
        pkts.append((bytes(b), "bad_icrc entropy"))
        b = pick()
        b[-1] = (b[-1] & 0x3F) | rng.choice([0x80, 0xC0])
        pkts.append((bytes(b), "bad_pad tail lt"))
        b = pick()
        b[-1] = 0x40 | rng.randint(8, 63)
        pkts.append((bytes(b), "bad_pad count > 7"))
        # a 40-byte packet whose pad would leave less than an Ethernet header
        f = bytes(range(14))
        p, _ = ref.encap(f + bytes(1), rng.choice(list(cfg["ports"])), cfg)  # 15-byte frame: 40 bytes, pad 0
        b = bytearray(p)
        b[-1] = 0x40 | 2
        pkts.append((bytes(b), "bad_pad leaves 13 bytes"))
        v = rng.choice([x for x in range(1, 0xFFFF) if x not in vesws][:50])
        pkts.append((_refix(_with_header(bytes(pick()), veswid=v)), "unknown_veswid"))
        b = bytes(pick())
        h = decode_header(b)
        bad = rng.choice([h["pkey"] ^ 0x0001, h["pkey"] & 0x8000, (h["pkey"] & 0x7FFF) or 1])
        port = min(p for p, c in cfg["ports"].items() if c["veswid"] == h["veswid"])
        if ref.pkey_match(bad, cfg["ports"][port]["pkey"]):
            bad = (h["pkey"] ^ 0x0100) & 0xFFFF or 0x0100
        pkts.append((_refix(_with_header(b, pkey=bad)), "pkey_mismatch"))
    pkts.append((bytes(pick())[:-1] + b"", "length odd"))
    rng.shuffle(pkts)
    return pkts


def generate(seed, out_dir, count=400):
    import os
    rng = random.Random(seed)
    os.makedirs(out_dir, exist_ok=True)
    text, ports, macs = make_config(rng)
    with open(os.path.join(out_dir, "vnic.txt"), "w") as f:
        f.write(text)
    cfg = ref.parse_config(text)
    eth = make_eth(rng, ports, macs, count, [p for p, c in sorted(cfg["ports"].items()) if c["profile"] == "linux"])
    write_pcap(os.path.join(out_dir, "eth.pcap"), [f for f, _, _ in eth], LINK_ETH)
    with open(os.path.join(out_dir, "eth.ports"), "w") as f:
        f.write("".join(f"{p}\n" for _, p, _ in eth))
    opa = make_opa(rng, cfg, eth)
    write_pcap(os.path.join(out_dir, "opa.pcap"), [p for p, _ in opa], LINK_USER0)
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("".join(f"eth {i + 1}: port {p} {n}\n" for i, (_, p, n) in enumerate(eth)))
        f.write("".join(f"opa {i + 1}: {n}\n" for i, (_, n) in enumerate(opa)))
    return len(eth), len(opa)


def main(argv=None):
    """nettwin-vnic-gen / python3 -m nettwin.vnic.gen --seed N --out-dir D [--frames K]: writes D/vnic.txt,
    D/eth.pcap + D/eth.ports (encapsulation input), D/opa.pcap (decapsulation input, DLT_USER0) and
    D/manifest.txt. Same seed, same bytes."""
    import argparse
    ap = argparse.ArgumentParser(prog="nettwin-vnic-gen", description=main.__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--frames", type=int, default=400, help="Ethernet frames (at least the fixed set, ~210)")
    a = ap.parse_args(argv)
    n_eth, n_opa = generate(a.seed, a.out_dir, a.frames)
    print(f"vnic_gen: seed {a.seed}: {n_eth} Ethernet frames, {n_opa} 16B packets in {a.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
