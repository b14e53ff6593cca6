#!/usr/bin/python3
"""Self-test helper: damaged copies of a ConWeave run that nettwin.reorder.check must reject.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reorder.corrupt --dir D --delivered OK.pcap --ctrl OK.pcap --stats OK.json
      --mode MODE --out-delivered X.pcap --out-ctrl Y.pcap --out-stats Z.json

Modes: drop (one delivered frame removed), swap (two consecutive frames of a never-rerouted flow
exchanged), flip (one payload byte of a delivered frame flipped), dup (a delivered frame twice),
rm-notify (first NOTIFY removed), rm-clear (first CLEAR removed), rm-reply (first RTT_REPLY removed),
noreorder (the block's reordering disabled: arrivals stripped and delivered in arrival order),
stats (packets_in off by one), lie-buffer-full (5 frames of a never-rerouted flow removed and
claimed as drops.buffer_full), lie-collision (20 frames of one flow reversed, fallback_collision
claimed), late (a never-rerouted flow's last frame leaves 40 us late, as a wrongly held packet
would), early-clear (the first CLEAR leaves 5 us before its trigger arrived).  Prints what it damaged.
"""
import argparse
import json
import os

from nettwin.reorder.layers import CW_CLEAR, CW_NOTIFY, CW_RTT_REPLY, decode_cw, flow_key, key_str, parse, read_config, to_nic
from nettwin.common.pcap import read_pcap, write_pcap

MODES = ("drop", "swap", "flip", "dup", "rm-notify", "rm-clear", "rm-reply", "noreorder", "stats",
         "lie-buffer-full", "lie-collision", "late", "early-clear")


def main():
    ap = argparse.ArgumentParser()
    for o in ("dir", "delivered", "ctrl", "stats", "out-delivered", "out-ctrl", "out-stats"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("--mode", required=True, choices=MODES)
    a = ap.parse_args()
    dl, ctrl = read_pcap(a.delivered), read_pcap(a.ctrl)
    with open(a.stats) as f:
        st = json.load(f)
    with open(os.path.join(a.dir, "flows.json")) as f:
        meta = json.load(f)
    read_config(os.path.join(a.dir, "reorder.txt"))     # its wire format
    m = a.mode
    if m in ("drop", "flip", "dup"):
        j = len(dl) // 2
        h = parse(dl[j][0])
        print(f"reorder_corrupt: {m} delivered frame {j} (flow {key_str(flow_key(dl[j][0]))} PSN 0x{h.psn:06x})")
        if m == "drop":
            del dl[j]
        elif m == "dup":
            dl.insert(j + 1, dl[j])
        else:
            fr = bytearray(dl[j][0])
            fr[h.end - 6] ^= 0x40
            dl[j] = (bytes(fr), dl[j][1])
    elif m == "swap":
        calm = [tuple(f["key"]) for f in meta["flows"] if not f["reroutes"]] or [tuple(meta["flows"][0]["key"])]
        key = calm[0]
        idx = [j for j, (fr, _) in enumerate(dl) if flow_key(fr) == key]
        j1, j2 = idx[len(idx) // 2], idx[len(idx) // 2 + 1]
        print(f"reorder_corrupt: swap delivered frames {j1} and {j2} of flow {key_str(key)}")
        dl[j1], dl[j2] = (dl[j2][0], dl[j1][1]), (dl[j1][0], dl[j2][1])
    elif m in ("rm-notify", "rm-clear", "rm-reply"):
        op = {"rm-notify": CW_NOTIFY, "rm-clear": CW_CLEAR, "rm-reply": CW_RTT_REPLY}[m]
        k = next(k for k, (fr, _) in enumerate(ctrl) if decode_cw(fr).op == op)
        print(f"reorder_corrupt: removed control frame {k} (PSN 0x{parse(ctrl[k][0]).psn:06x})")
        del ctrl[k]
        st["control_out"] -= 1
    elif m == "noreorder":
        dl = [(to_nic(fr), ts) for fr, ts in read_pcap(os.path.join(a.dir, "arrivals.pcap"))]
        print("reorder_corrupt: delivered = arrivals in arrival order (no reordering)")
    elif m == "stats":
        st["packets_in"] += 1
        print("reorder_corrupt: stats packets_in + 1")
    elif m in ("lie-buffer-full", "lie-collision", "late"):
        calm = [tuple(f["key"]) for f in meta["flows"] if not f["reroutes"]] or [tuple(meta["flows"][0]["key"])]
        idx = [j for j, (fr, _) in enumerate(dl) if flow_key(fr) == calm[0]]
        if m == "lie-buffer-full":
            gone = set(idx[len(idx) // 2:len(idx) // 2 + 5])
            dl = [x for j, x in enumerate(dl) if j not in gone]
            st["delivered"] -= len(gone)
            st["drops"]["buffer_full"] += len(gone)
            print(f"reorder_corrupt: removed {len(gone)} frames of flow {key_str(calm[0])}, stats claim buffer_full")
        elif m == "lie-collision":
            sel = idx[:20]
            frames = [dl[j][0] for j in sel][::-1]
            for j, fr in zip(sel, frames):
                dl[j] = (fr, dl[j][1])
            st["fallback_collision"] = max(1, st.get("fallback_collision", 0))
            print(f"reorder_corrupt: reversed {len(sel)} frames of flow {key_str(calm[0])}, stats claim fallback_collision")
        else:
            j = idx[-1]
            dl[j] = (dl[j][0], dl[j][1] + 40e-6)
            dl.sort(key=lambda x: x[1])
            print(f"reorder_corrupt: last frame of flow {key_str(calm[0])} (PSN 0x{parse(dl[-1][0]).psn:06x}...) 40 us late")
    elif m == "early-clear":
        k = next(k for k, (fr, _) in enumerate(ctrl) if decode_cw(fr).op == CW_CLEAR)
        ctrl[k] = (ctrl[k][0], ctrl[k][1] - 5e-6)
        ctrl.sort(key=lambda x: x[1])
        print(f"reorder_corrupt: CLEAR (control frame {k}) 5 us early")
    write_pcap(a.out_delivered, dl)
    write_pcap(a.out_ctrl, ctrl)
    with open(a.out_stats, "w") as f:
        json.dump(st, f)


if __name__ == "__main__":
    main()
