"""Independent Python reference of the NAA controller (docs/naa.md "MRSP and RPC").

Written from docs/naa.md, never from the C++ model or the RTL.  Event driven, like ref_req.py: a completion
the responder reference writes (a SEND or a WRITE with immediate on the connected QP) is an event; the
controller answers MRSP (nettwin.naa.mrsp.MrspServer), runs the kernels (nettwin.naa.kernels) over the granted
FPGA regions in the endpoint's memory, and posts one command to the requester reference per event; the event's
receive buffer is reposted once that command completes.  One event at a time, the others wait in order.

  parse_ctl_line(path, n, tokens, static_mrs) -> dict     the `ctl` line (docs/naa.md "Configuration")
  Controller(ctl, endpoint)                                .event(cqe), .completed(status), .disconnect(),
                                                           .running (a kernel's result held back), .finish()
"""
from nettwin.naa import kernels
from nettwin.naa.mrsp import NAA_REGIONS, MrspServer
from nettwin.rdma.ref_config import MR, ConfigError
from nettwin.rdma.ref_state import wqe_bytes

RDMA_MRS = 48              # rtl/common/nt_pkg.sv RdmaMrs: the responder's MR slots (test_rpc checks these four)
RX_BUF_BYTES = 6144        # rtl/common/nt_pkg.sv NaaRxBufBytes: receive buffer j = WQE j (a 255-region 0x01)
CQE_FIFO = 4               # rtl/common/nt_pkg.sv NaaCqeFifo: at most this many receive buffers
DEFAULT_BUDGET = 1000000   # docs/naa.md: a kernel's cycles before it answers 0x02
# The reference has no clock, so it decides a kernel timeout only where the cycle count cannot matter: a
# kernel that passes its checks with data in region 0 takes at least a DMA read round trip and a write (more
# than FAST_BUDGET cycles), and none of the scenarios' kernels (regions of at most 16 KiB) comes near
# SLOW_BUDGET.  A kernel with nothing in region 0 may finish within any budget: undecided.
FAST_BUDGET, SLOW_BUDGET = 8, 100000
# A kernel's result is not sent at once: the kernel "runs" until the endpoint does anything else (the next
# client frame that is not a DREQ, a gate, the end of the input), then its result goes out.  A DREQ while it
# runs ends the connection first: the result is never sent (send_failed), its buffer never reposted (docs/naa.md
# "Disconnect").  The RTL decides this by cycles; the reference only where the cycles cannot matter: a kernel
# with at least LONG_KERNEL bytes in region 0 takes hundreds of cycles of DMA reads (64 bytes a cycle at best),
# far longer than the CM takes to read a DREQ that follows its completion right behind (6 beats).  A DREQ
# behind a shorter kernel is undecided.
LONG_KERNEL = 4096
CTL_KEYS = ("pool", "pool_size", "rxbuf", "txbuf", "rkey_base", "mr_first", "mrs", "budget", "imm")
CTL_COUNTERS = ("events", "requests", "grants", "answers", "reposts", "send_failed", "rpcs", "rpc_errors")
CTL_DROPS = ("rpc_no_regions", "event_overflow", "flushed")
CQE_SEND, CQE_WRITE_IMM = 0, 1


def parse_ctl_line(path, n, w, static_mrs):
    """The `ctl` line's settings, with the defaults of docs/naa.md."""
    kv = dict(zip(w[1::2], w[2::2]))
    if len(w) % 2 == 0:
        raise ConfigError(path, n, w[-1], "ctl takes key value pairs")
    for k in kv:
        if k not in CTL_KEYS:
            raise ConfigError(path, n, k, "unknown ctl key")
    for k in CTL_KEYS[:5]:
        if k not in kv:
            raise ConfigError(path, n, "ctl", f"ctl needs '{k} <value>'")
    if kv.get("imm", "plain") not in kernels.ENCODINGS:
        raise ConfigError(path, n, kv["imm"], "imm must be plain or naaice")
    c = {k: int(v, 0) for k, v in kv.items() if k != "imm"}
    c["imm"] = kv.get("imm", "plain")
    c.setdefault("mr_first", static_mrs)
    c.setdefault("mrs", min(RDMA_MRS - c["mr_first"], NAA_REGIONS))
    c.setdefault("budget", DEFAULT_BUDGET)
    if c["mr_first"] < static_mrs or c["mr_first"] + c["mrs"] > RDMA_MRS:
        raise ConfigError(path, n, "mrs", "the controller's MR slots do not fit the responder's table")
    return c


def receive_buffers(ctl, qp_conf, mem_init):
    """The loader's part (docs/naa.md "Receive buffers"): WQE j names buffer j, all posted.  mem_init: the
    config's [(pa, bytes)] initial memory."""
    if not qp_conf.has_rq or qp_conf.rq_entries > CQE_FIFO:
        raise ConfigError("config", qp_conf.line, "ctl", f"the controller needs an RQ of 1..{CQE_FIFO} entries")
    for j in range(qp_conf.rq_entries):
        mem_init.append((qp_conf.rq + 16 * j, wqe_bytes(ctl["rxbuf"] + RX_BUF_BYTES * j, RX_BUF_BYTES, j)))
    qp_conf.rq_posted = qp_conf.rq_entries


class Controller:
    """ep: the reference Endpoint (its responder's MR table, memory and QP; its requester)."""

    def __init__(self, ctl, ep):
        self.ctl, self.ep = ctl, ep
        self.mrsp = MrspServer(ctl["pool"], ctl["pool_size"], ctl["mrs"], ctl["rkey_base"])
        self.queue = []          # completion events waiting (at most CQE_FIFO)
        self.busy = False        # a command is posted (or its kernel running) and not completed yet
        self.running = None      # the result command of the kernel still running, and region 0's size
        self.log = []            # (kind, detail) per handled event, for the checker's messages
        self.st = {**{c: 0 for c in CTL_COUNTERS}, "errors": {c: 0 for c in range(1, 5)},
                   "drops": {d: 0 for d in CTL_DROPS}, "regions": 0}

    # ---- events ----
    def event(self, cqe):
        self.st["events"] += 1
        if len(self.queue) >= CQE_FIFO:
            self.st["drops"]["event_overflow"] += 1
            return
        self.queue.append(cqe)
        self.run()

    def run(self):
        while self.queue and not self.busy:
            self.handle(self.queue.pop(0))

    def handle(self, cqe):
        mem = self.ep.rdma.mem
        if cqe.opcode == CQE_SEND:
            self.st["requests"] += 1
            msg = mem.read(self.ctl["rxbuf"] + RX_BUF_BYTES * cqe.wr_id, cqe.byte_count)
            code = self.mrsp.check(msg)
            if code:
                self.st["errors"][code] += 1
            else:
                self.revoke()
            answer = self.mrsp.handle(msg)
            if not code:
                self.grant()
            self.log.append(("mrsp", code, cqe.wr_id))
            mem.write(self.ctl["txbuf"], answer)
            self.post({"op": "send", "laddr": self.ctl["txbuf"], "len": len(answer), "raddr": 0, "rkey": 0,
                       "imm": 0, "kind": "mrsp"})
            return
        if not self.mrsp.regions:
            self.st["drops"]["rpc_no_regions"] += 1
            self.log.append(("rpc_no_regions", None, cqe.wr_id))
            self.repost()
            return
        self.st["rpcs"] += 1
        fn = kernels.function(int.from_bytes(cqe.imm, "big"), self.ctl["imm"])
        regs = self.mrsp.regions
        code, k, data = kernels.run(fn, [mem.read(r["fpga"], r["size"]) for r in regs[:3]])
        if code == kernels.OK and self.ctl["budget"] < SLOW_BUDGET:
            if self.ctl["budget"] > FAST_BUDGET or not regs[0]["size"]:
                raise ValueError(f"ctl budget {self.ctl['budget']}: the reference cannot tell whether the kernel "
                                 f"times out (it decides below {FAST_BUDGET + 1} cycles for a kernel with data in "
                                 f"region 0, and from {SLOW_BUDGET} cycles)")
            code = kernels.TIMEOUT
        self.log.append(("rpc", code, fn))
        if code:
            self.st["rpc_errors"] += 1
            r = regs[0]
            cmd = {"laddr": 0, "len": 0, "raddr": r["host"], "rkey": r["host_rkey"],
                   "imm": kernels.return_imm(code, self.ctl["imm"])}
        else:
            r = regs[k]
            mem.write(r["fpga"], data)
            cmd = {"laddr": r["fpga"], "len": len(data), "raddr": r["host"], "rkey": r["host_rkey"], "imm": 0}
            self.busy, self.running = True, ({"op": "write_imm", **cmd, "kind": "rpc"}, regs[0]["size"])
            return
        self.post({"op": "write_imm", **cmd, "kind": "rpc"})

    def finish(self):
        """The running kernel is done: its result goes to the requester."""
        cmd, self.running = self.running[0], None
        self.post(cmd)

    # ---- the responder's MR table ----
    def revoke(self):
        mrs = self.ep.rdma.cfg.mrs
        for r in self.mrsp.regions:
            mrs.pop(r["rkey"], None)

    def grant(self):
        self.st["grants"] += 1
        self.st["regions"] = len(self.mrsp.regions)
        for r in self.mrsp.regions:
            rkey = r["rkey"]
            self.ep.rdma.cfg.mrs[rkey] = MR(rkey=rkey, va=r["fpga"], length=r["size"], pa=r["fpga"], access="rw")

    # ---- the requester ----
    def post(self, cmd):
        self.busy = True
        self.ep.req.post({**cmd, "tag": 0, "ctl": True})

    def completed(self, cmd, status):
        """The requester completed the controller's command: count, repost the buffer, take the next event."""
        self.busy = False
        self.st["answers" if status == "ok" else "send_failed"] += 1     # an MRSP answer or an RPC result
        self.repost()
        self.run()

    def repost(self):
        q = self.ep.rdma.qps.get(self.ep.qpn)
        if q is not None and self.ep.state == "established":
            q.conf.rq_posted += 1
            self.st["reposts"] += 1

    def disconnect(self):
        """The connection went away: the grant is revoked, waiting events are flushed, a running kernel's
        result is dropped (the kernel ends on a connection that is gone: the buffer is not reposted)."""
        if self.running:
            if self.running[1] < LONG_KERNEL:
                raise ValueError(f"a DREQ right behind a kernel with {self.running[1]} bytes in region 0: the "
                                 f"reference cannot tell whether its result went out first (it decides from "
                                 f"{LONG_KERNEL} bytes)")
            self.running, self.busy = None, False
            self.st["send_failed"] += 1
        self.revoke()
        self.mrsp.disconnect()
        self.st["regions"] = 0
        self.st["drops"]["flushed"] += len(self.queue)
        self.queue = []

