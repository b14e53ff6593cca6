"""Independent Python reference of the endpoint's requester (docs/naa.md "Requester").

Written from docs/naa.md, never from the C++ model or the RTL.  Event driven rather than clocked: the
requester sends when it connects and after each ACK/NAK it processes; a retransmission timeout or the end of
an RNR wait happens when the client waits for a frame the endpoint has not sent yet (its gate,
docs/naa.md "Gates") or at the end of the input.  Frames are composed with the Scapy layers of
nettwin.rdma.layers (their own ICRC).
"""
from nettwin.rdma.layers import ImmDt, RETH, build_request, check_icrc

M = 0xFFFFFF
HALF = 1 << 23
WINDOW, ACK_EVERY, RNR_UNIT = 32, 16, 64
REQ_DROPS = ("malformed", "not_for_us", "bad_icrc", "not_connected", "ghost")
REQ_COUNTERS = ("sent", "retransmits", "acks", "stale", "nak_seq", "nak_rnr", "nak_fatal", "timeouts", "cpl_ok",
                "cpl_retry_exceeded", "cpl_remote_error", "cpl_flushed")
OPS = ("send", "write", "write_imm")


class ReqConfigError(ValueError):
    pass


def parse_req_lines(lines):
    """[(line number, tokens)] of `req` and `post` lines -> (settings dict, [post dicts])."""
    req = {"timeout": 4096, "retry": 7, "rnr_retry": 7}
    posts = []
    for n, w in lines:
        kv = dict(zip(w[2::2], w[3::2])) if w[0] == "post" else dict(zip(w[1::2], w[2::2]))
        if w[0] == "req":
            for k, v in kv.items():
                if k not in req:
                    raise ReqConfigError(f"line {n}: token '{k}': unknown req key")
                req[k] = int(v, 0)
        else:
            if len(w) < 2 or w[1] not in OPS:
                raise ReqConfigError(f"line {n}: post needs send, write or write_imm")
            p = {"op": w[1], "laddr": 0, "len": 0, "raddr": 0, "rkey": 0, "imm": 0, "tag": 0}
            p.update({k: int(v, 0) for k, v in kv.items()})
            posts.append(p)
    return req, posts


class Requester:
    def __init__(self, req, posts, server, mem_read):
        self.req, self.posts, self.server, self.mem_read = req, posts, server, mem_read
        self.conn = None
        self.msgs = []           # [{cmd, psn, n}] not yet completed, oldest first
        self.cpl = []            # (tag, status) of every completion, in order
        self.done = []           # (command, status) of every completion, in order
        self.st = {"packets_in": 0, "processed": 0, "drops": {r: 0 for r in REQ_DROPS},
                   **{c: 0 for c in REQ_COUNTERS}}
        self.taken = False

    # ---- connection ----
    def connect(self, conn):
        """conn: mac, ip, sport, qpn (the client's), local_qpn, psn (the REP's starting PSN), mtu (bytes)."""
        self.conn = conn
        self.una = self.snd = self.max = self.alloc = conn["psn"]
        self.fatal, self.fail = False, None
        self.retry_left, self.rnr_left = self.req["retry"], self.req["rnr_retry"]
        self.rnr_pending = False
        if not self.taken:       # posted commands run on the first connection
            self.taken = True
            for p in self.posts:
                n = max(1, -(-p["len"] // conn["mtu"]))
                self.msgs.append({"cmd": p, "psn": self.alloc, "n": n})
                self.alloc = (self.alloc + n) & M
        return self.pump()

    def post(self, cmd):
        """A command from the controller (docs/naa.md "Requester"): taken at once (the controller has one
        outstanding); sent by the next pump(), or flushed at once after a fatal error."""
        n = max(1, -(-cmd["len"] // self.conn["mtu"]))
        self.msgs.append({"cmd": cmd, "psn": self.alloc, "n": n})
        self.alloc = (self.alloc + n) & M
        if self.fatal:
            self.complete("flushed")

    def disconnect(self):
        for _ in list(self.msgs):
            self.complete("flushed")
        self.conn = None

    # ---- sending ----
    def locate(self, psn):
        for m in self.msgs:
            k = (psn - m["psn"]) & M
            if k < m["n"]:
                return m, k
        return None, 0

    def frame(self, m, k):
        c, mtu = m["cmd"], self.conn["mtu"]
        n, off = m["n"], k * mtu
        plen = min(mtu, c["len"] - off)
        first, last = k == 0, k + 1 == n
        op = c["op"]
        if op == "send":
            opcode = 0x04 if n == 1 else 0x00 if first else 0x02 if last else 0x01
        elif op == "write":
            opcode = 0x0A if n == 1 else 0x06 if first else 0x08 if last else 0x07
        else:
            opcode = 0x0B if n == 1 else 0x06 if first else 0x09 if last else 0x07
        ext = []
        if op != "send" and first:
            ext.append(RETH(va=(c["raddr"] + off) & ((1 << 64) - 1), rkey=c["rkey"], dlen=c["len"] - off))
        if op == "write_imm" and last:
            ext.append(ImmDt(imm=c["imm"]))
        payload = self.mem_read(c["laddr"] + off, plen) if plen > 0 else b""
        cn = self.conn
        return build_request(4, self.server["mac"], cn["mac"], self.server["ip"], cn["ip"], cn["sport"], opcode,
                             cn["qpn"], (m["psn"] + k) & M, ackreq=last or (k + 1) % ACK_EVERY == 0,
                             ext=tuple(ext), payload=payload)

    def pump(self):
        """Packets from snd on, while there are some and the window allows."""
        out = []
        while self.conn and not self.fatal and not self.rnr_pending and self.snd != self.alloc \
                and ((self.snd - self.una) & M) < WINDOW:
            m, k = self.locate(self.snd)
            out.append(self.frame(m, k))
            self.st["sent"] += 1
            if ((self.snd - self.max) & M) >= HALF:
                self.st["retransmits"] += 1
            else:
                self.max = (self.snd + 1) & M
            self.snd = (self.snd + 1) & M
        return out

    def go_back(self):
        self.snd = self.una
        return self.pump()

    # ---- completions ----
    def complete(self, status):
        m = self.msgs.pop(0)
        self.cpl.append((m["cmd"]["tag"], status))
        self.done.append((m["cmd"], status))
        self.st["cpl_" + status] += 1

    def retire(self):
        while self.msgs and ((self.una - self.msgs[0]["psn"]) & M) >= self.msgs[0]["n"] \
                and ((self.una - self.msgs[0]["psn"]) & M) < HALF:
            self.complete("ok")
        if self.fatal:
            if self.msgs:
                self.complete(self.fail)
            while self.msgs:
                self.complete("flushed")

    def set_fatal(self, status):
        self.fatal, self.fail = True, status
        self.retire()

    # ---- timers: the endpoint acts on its own ----
    def pending(self):
        return self.conn is not None and not self.fatal and (self.rnr_pending or self.una != self.max)

    def fire(self):
        """The next timer: the RNR wait's end, else a retransmission timeout.  Returns the frames sent."""
        if self.rnr_pending:
            self.rnr_pending = False
            return self.go_back()
        self.st["timeouts"] += 1
        if self.retry_left == 0:
            self.set_fatal("retry_exceeded")
            return []
        self.retry_left -= 1
        return self.go_back()

    # ---- ACK / NAK frames ----
    def for_me(self, f):
        """docs/naa.md "Front end": an ACK/NAK (RoCEv2/IPv4, opcode 0x11) to this endpoint's QP while connected."""
        return (self.conn is not None and len(f) >= 50 and f[12:14] == b"\x08\x00" and f[14] == 0x45
                and f[23] == 17 and int.from_bytes(f[36:38], "big") == 4791 and f[42] == 0x11
                and int.from_bytes(f[47:50], "big") == self.conn["local_qpn"])

    def ack(self, f):
        """Processes one routed frame; returns the frames it makes the endpoint send."""
        self.st["packets_in"] += 1
        r = self._ack(f)
        if isinstance(r, str):
            self.st["drops"][r] += 1
            return []
        self.st["processed"] += 1
        return r

    def _ack(self, f):
        syn = f[54] if len(f) > 54 else 0
        kind, code = syn >> 5, syn & 0x1F
        if (len(f) != 62 or int.from_bytes(f[16:18], "big") != 48 or int.from_bytes(f[20:22], "big") & 0x3FFF
                or int.from_bytes(f[38:40], "big") != 28 or kind in (2, 4, 5, 6, 7) or (kind == 3 and code > 4)):
            return "malformed"
        if f[0:6] != self.server["mac_bytes"] or f[30:34] != self.server["ip_bytes"]:
            return "not_for_us"
        if not check_icrc(f):
            return "bad_icrc"
        psn = int.from_bytes(f[51:54], "big")
        d, out = (psn - self.una) & M, (self.max - self.una) & M
        if self.fatal or d >= HALF:
            self.st["stale"] += 1
            return []
        if (d > out) if (kind == 3 and code == 0) else (d >= out):
            return "ghost"
        new_una = (psn + 1) & M if kind == 0 else psn
        behind = ((new_una - ((self.snd + 1) & M)) & M) < HALF
        self.una = new_una
        if kind == 0 or d:
            self.retry_left, self.rnr_left = self.req["retry"], self.req["rnr_retry"]
        if behind:
            self.snd = self.una
        self.retire()
        if kind == 0:
            self.st["acks"] += 1
            return self.pump()
        if kind == 1:
            self.st["nak_rnr"] += 1
            if self.req["rnr_retry"] != 7 and self.rnr_left == 0:
                self.set_fatal("retry_exceeded")
                return []
            if self.req["rnr_retry"] != 7:
                self.rnr_left -= 1
            self.rnr_pending = True      # then Go-Back-N after (code + 1) x RNR_UNIT cycles
            return []
        if code == 0:
            self.st["nak_seq"] += 1
            if self.retry_left == 0:
                self.set_fatal("retry_exceeded")
                return []
            self.retry_left -= 1
            return self.go_back()
        self.st["nak_fatal"] += 1
        self.set_fatal("remote_error")
        return []
