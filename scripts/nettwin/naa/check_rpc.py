"""The MRSP and RPC checks of nettwin.naa.check (docs/naa.md "MRSP and RPC"), independent of the reference.

From the two pcaps alone (no reference, no model): the client's messages and the endpoint's messages are
reassembled from their RC packets (retransmissions and duplicates, recognised by PSN, dropped); each client
MRSP request is paired with the endpoint's next SEND, which must decode as an answer that fits it (a 0x02
grants exactly the requested FPGA addresses and sizes with rkeys rkey_base + 32 g + i (the g-th grant); a 0x00 carries a code 1..4);
the client's WRITEs into the grant give the FPGA regions' contents; each new WRITE_WITH_IMM after a grant is
paired with the endpoint's next WRITE_WITH_IMM message, whose immediate, target (the client's region) and data
must be what nettwin.naa.kernels computes from the client's own parameters.  Answers pair only within one
connection: an RPC the client disconnected right behind gets no result, and nothing the endpoint sends after
the next connection's REP may answer a request of the old one.  Every MRSP message (both ways)
decodes the same with the Scapy layers (nettwin.naa.mrsp) and with tshark running mrsp.lua (tshark only where
the message is one SEND ONLY: Wireshark does not reassemble RC messages; the Scapy layers also read every
reassembled request).
"""
import os
import shutil
import subprocess

from nettwin.common.paths import DISSECTORS_DIR
from nettwin.naa import kernels
from nettwin.naa.mrsp import MSG_ADV, MSG_ADV_REQ, MSG_ERROR, MrspHeader, decode, grant_rkey

M, HALF = 0xFFFFFF, 1 << 23
LUA = os.path.join(DISSECTORS_DIR, "mrsp.lua")
SENDS, WRITES = range(0x00, 0x06), range(0x06, 0x0C)
FIRSTS, LASTS = (0x00, 0x04, 0x05, 0x06, 0x0A, 0x0B), (0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0A, 0x0B)
IMMS = (0x03, 0x05, 0x09, 0x0B)
FAST_BUDGET = 8     # ref_ctl.py's rule: a kernel with data in region 0 times out on a budget this small


def packet(f):
    """An RC request packet's fields (RoCEv2/IPv4, BTH at 42), or None for anything else."""
    if len(f) < 58 or f[12:14] != b"\x08\x00" or f[14] != 0x45 or f[42] not in range(0x00, 0x0C):
        return None
    op, ext = f[42], 54
    p = {"op": op, "psn": int.from_bytes(f[51:54], "big"), "reth": None, "imm": None}
    if op in (0x06, 0x0A, 0x0B):
        p["reth"] = (int.from_bytes(f[54:62], "big"), int.from_bytes(f[62:66], "big"), int.from_bytes(f[66:70], "big"))
        ext += 16
    if op in IMMS:
        p["imm"] = int.from_bytes(f[ext:ext + 4], "big")
        ext += 4
    p["payload"] = f[ext:len(f) - 4 - ((f[43] >> 4) & 3)]
    return p


def is_cm(f, attr):
    """A CM MAD of this attribute (REQ 0x0010 from the client, REP 0x0013 from the endpoint)."""
    return len(f) == 322 and f[42] == 0x64 and int.from_bytes(f[78:80], "big") == attr


def messages(frames, new_connection_attr):
    """The RC messages in the frames, in order, each once: [{"kind": send|write|"conn", ...}]."""
    out, cur, expect, acked = [], None, None, False
    for f in frames:
        if len(f) > 42 and f[42] == 0x11:
            acked = True            # the client ACKed something of the endpoint's (it waited for it)
            continue
        if is_cm(f, new_connection_attr):
            out.append({"kind": "conn"})
            cur, expect = None, None
            continue
        if is_cm(f, 0x0015):        # DREQ: the grant goes with the connection
            out.append({"kind": "dreq", "waited": acked})
            continue
        p = packet(f)
        if p is None:
            continue
        if expect is not None and ((p["psn"] - expect) & M) >= HALF:
            continue                # a retransmission or a duplicate: seen already
        expect = (p["psn"] + 1) & M
        if p["op"] in FIRSTS:
            cur = {"kind": "send" if p["op"] in SENDS else "write", "reth": p["reth"], "data": b""}
        if cur is None:
            continue
        cur["data"] += p["payload"]
        if p["op"] in LASTS:
            cur["imm"] = p["imm"]
            out.append(cur)
            acked = False
            cur = None
    return out


class Memory:
    """The FPGA regions as the client's WRITEs and the kernels' results left them (zeros elsewhere)."""

    def __init__(self):
        self.b = {}

    def write(self, a, data):
        for i, x in enumerate(data):
            self.b[a + i] = x

    def read(self, a, n):
        return bytes(self.b.get(a + i, 0) for i in range(n))


def scapy_entries(msg):
    """A 0x01 request's entries as the Scapy layers read them: [(flags, fpga, addr, rkey, size)]."""
    return [(e.flags, e.fpga_addr, e.addr, e.rkey, e.size) for e in MrspHeader(msg).entries]


def check_rpc(client_frames, server_frames, ctl):
    """Errors (strings) of the MRSP answers and RPC results against the client's own messages."""
    errors = []
    answers = messages(server_frames, 0x0013)      # with a "conn" where the endpoint accepted a connection
    grant, mem, rpcs, mrsps, grants = None, Memory(), 0, 0, 0
    client = messages(client_frames, 0x0010)

    def next_answer(kind, what):
        if not answers or answers[0]["kind"] == "conn":
            errors.append(f"{what}: the endpoint sent no {kind} for it on its connection")
            return None
        m = answers.pop(0)
        if m["kind"] != kind or (kind == "write" and m["imm"] is None):
            errors.append(f"{what}: the endpoint's next message is a {m['kind']}, not a {kind}")
            return None
        return m

    for j, m in enumerate(client):
        if m["kind"] == "dreq":
            grant = None
            continue
        if m["kind"] == "conn":     # what the endpoint still sends of the old connection answers nothing
            grant = None
            while answers and answers[0]["kind"] != "conn":
                errors.append(f"the endpoint sent a {answers[0]['kind']} message nobody asked for on a "
                              f"connection that is gone ({len(answers.pop(0)['data'])} bytes)")
            while answers and answers[0]["kind"] == "conn":
                answers.pop(0)
            continue
        if m["kind"] == "send":
            mrsps += 1
            what = f"MRSP request {mrsps}"
            a = next_answer("send", what)
            if a is None:
                continue
            try:
                ans = decode(a["data"])
            except ValueError as e:
                errors.append(f"{what}: the answer does not decode: {e}")
                continue
            if ans["type"] == MSG_ERROR:
                if not 1 <= ans["code"] <= 4 or len(a["data"]) != 4:
                    errors.append(f"{what}: error answer {a['data'].hex()} (codes 1..4, 4 bytes)")
                continue
            try:
                req = decode(m["data"]) if len(m["data"]) >= 4 and m["data"][0] == MSG_ADV_REQ else None
            except ValueError:      # a truncated request granted
                req = None
            if req is not None and scapy_entries(m["data"]) != [tuple(e.values()) for e in req["entries"]]:
                errors.append(f"{what}: the Scapy layers read the (reassembled) request otherwise than its bytes")
            want = [{"addr": e["fpga"], "rkey": grant_rkey(ctl["rkey_base"], grants, i), "size": e["size"]}
                    for i, e in enumerate(req["entries"])] if req else None
            if ans["type"] != MSG_ADV or ans["entries"] != want or len(a["data"]) != 4 + 16 * len(want):
                errors.append(f"{what}: answer {a['data'][:20].hex()}... is not the grant of the request")
                continue
            grants += 1
            grant = [{"fpga": e["fpga"], "size": e["size"], "host": e["addr"], "host_rkey": e["rkey"],
                      "rkey": w["rkey"]} for e, w in zip(req["entries"], want)]
            continue
        va, rkey, _ = m["reth"]
        for r in grant or []:
            if rkey == r["rkey"] and r["fpga"] <= va and va + len(m["data"]) <= r["fpga"] + r["size"]:
                mem.write(va, m["data"])
        if m["imm"] is None or grant is None:
            continue
        rpcs += 1
        fn = kernels.function(m["imm"], ctl.get("imm", "plain"))
        code, k, data = kernels.run(fn, [mem.read(r["fpga"], r["size"]) for r in grant[:3]])
        if code == kernels.OK and ctl["budget"] <= FAST_BUDGET and grant[0]["size"]:
            code = kernels.TIMEOUT
        what = f"RPC {rpcs} (function 0x{fn:x}, immediate 0x{m['imm']:x})"
        if j + 1 < len(client) and client[j + 1]["kind"] == "dreq" and not client[j + 1]["waited"]:
            # The client disconnected right behind it, ACKing nothing of the endpoint's (the generators do so
            # only where the kernel runs long): its result has nowhere to go, on this connection or the next.
            if answers and answers[0]["kind"] != "conn":
                errors.append(f"{what}: the client disconnected before its result, yet the endpoint sent a "
                              f"{answers[0]['kind']} message for it")
            continue
        a = next_answer("write", what)
        if a is None:
            continue
        r = grant[0 if code else k]
        want = (kernels.return_imm(code, ctl.get("imm", "plain")), r["host"], r["host_rkey"], b"" if code else data)
        if ctl.get("imm") == "naaice" and kernels.library_reads(a["imm"]) != code:
            errors.append(f"{what}: the library reads return code 0x{kernels.library_reads(a['imm']):x} from "
                          f"imm 0x{a['imm']:x}; the kernel from the client's parameters gives 0x{code:x}")
        got = (a["imm"], a["reth"][0], a["reth"][1], a["data"])
        if got != want:
            diff = ("immediate" if got[0] != want[0] else "target" if got[1:3] != want[1:3] else "result data")
            errors.append(f"RPC {rpcs} (function 0x{fn:x}): {diff}: the endpoint wrote imm 0x{got[0]:x} "
                          f"{len(got[3])} bytes to 0x{got[1]:x} rkey 0x{got[2]:x}; the kernel from the client's "
                          f"parameters gives imm 0x{want[0]:x} {len(want[3])} bytes to 0x{want[1]:x} "
                          f"rkey 0x{want[2]:x}")
        if not code:
            mem.write(grant[k]["fpga"], data)
    for a in (a for a in answers if a["kind"] != "conn"):
        errors.append(f"the endpoint sent a {a['kind']} message nobody asked for ({len(a['data'])} bytes)")
    return errors, mrsps, rpcs


def tshark_mrsp(path):
    """Per frame, tshark's (mrsp.lua) reading: (type, count or error code, [(fpga, addr, rkey, size)]) or None."""
    if shutil.which("tshark") is None:
        return None
    fields = ("mrsp.type", "mrsp.count", "mrsp.error", "mrsp.fpga_addr", "mrsp.addr", "mrsp.rkey", "mrsp.size")
    cmd = ["tshark", "-X", "lua_script:" + LUA, "-r", path, "-T", "fields", "-E", "separator=|",
           "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in fields:
        cmd += ["-e", f]
    rows = []
    for line in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines():
        t, count, code, fpga, addr, rkey, size = line.split("|")
        if not t:
            rows.append(None)
            continue
        lst = [[int(x, 0 if k < 3 else 10) for x in v.split(",")] if v else [] for k, v in
               enumerate((fpga, addr, rkey, size))]
        rows.append((int(t, 16), int(code, 16) if int(t, 16) == MSG_ERROR else int(count),
                     list(zip(*lst)) if int(t, 16) == MSG_ADV_REQ else list(zip(*lst[1:]))))
    return rows


def scapy_mrsp(f):
    """The same reading with the Scapy layers, for a SEND ONLY that is a well-formed MRSP message, else None."""
    p = packet(f)
    if p is None or p["op"] != 0x04:
        return None
    d = p["payload"]
    size = {MSG_ADV_REQ: 24, MSG_ADV: 16}.get(d[0]) if d else None
    if len(d) < 4 or d[2:4] != b"\0\0" or (d[0] == MSG_ERROR and (len(d) != 4 or not 1 <= d[1] <= 4)):
        return None
    if d[0] != MSG_ERROR and (size is None or d[1] == 0 or len(d) != 4 + size * d[1]):
        return None
    h = MrspHeader(d)
    if h.type == MSG_ERROR:
        return (h.type, h.count, [])
    if h.type == MSG_ADV_REQ:
        return (h.type, h.count, [(e.fpga_addr, e.addr, e.rkey, e.size) for e in h.entries])
    return (h.type, h.count, [(e.addr, e.rkey, e.size) for e in h.entries])


def check_decodes(path, frames, who):
    """Every well-formed MRSP message in the pcap: Scapy and tshark + mrsp.lua read the same fields."""
    want = [scapy_mrsp(f) for f in frames]
    if not any(want):
        return [], 0
    ts = tshark_mrsp(path)
    if ts is None:
        return [], 0
    errors = [f"{who} frame {i}: tshark (mrsp.lua) reads {ts[i] if i < len(ts) else 'nothing'}, Scapy {w}"
              for i, w in enumerate(want) if w is not None and (i >= len(ts) or ts[i] != w)]
    return errors, sum(1 for w in want if w)
