#!/usr/bin/python3
"""OPA VNIC vectors: /usr/bin/python3 scripts/vnic_gen.py --seed N --out-dir D [--frames K]
writes D/vnic.txt, D/eth.pcap + D/eth.ports (encapsulation input), D/opa.pcap (decapsulation input,
DLT_USER0) and D/manifest.txt. Same seed, same bytes. See scripts/nettwin/vnic/gen.py."""
import argparse
import sys

from nettwin.vnic import gen

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--frames", type=int, default=400, help="Ethernet frames (at least the fixed set, ~210)")
    a = ap.parse_args()
    n_eth, n_opa = gen.generate(a.seed, a.out_dir, a.frames)
    print(f"vnic_gen: seed {a.seed}: {n_eth} Ethernet frames, {n_opa} 16B packets in {a.out_dir}")
    sys.exit(0)
