#!/usr/bin/python3
"""The HPC node (client) of the NAAICE seed, played with Scapy (docs/naa.md "Client scenarios").

Writes D/naa.txt (the endpoint's configuration) and one client pcap per scenario:
  connect     REQ -> (REP) -> RTU; RDMA WRITEs (one with AckReq per message) and a READ on the connected QP;
              DREQ; the same WRITE again after the teardown (dropped: no QP); a second connection (the next
              Local Communication ID) with a WRITE; DREQ
  lost        lost CM messages both ways: REQ sent twice (REP lost: the REP again), RTU twice (the second
              ignored), a WRITE whose ACK was lost sent again (duplicate: ACKed again), DREQ twice (the
              DREP again, for a connection already gone); the client rejecting a REP (REJ) and connecting again
  reject      REQs refused: unknown ServiceID (REJ 8), UC transport (REJ 9), invalid path MTU (REJ 26), a
              second client while connected (REJ 1)
  bad         counted drops: bad ICRC, another MAC, a MAD with class version 1, a truncated MAD, an MRA and an
              RTU for no connection (ignored), a WRITE before any connection (responder: unknown QP)
The requester scenarios use D/naa_req.txt (the same endpoint plus a `req` line and four posted commands: a
WRITE, a WRITE_WITH_IMM, a SEND, a WRITE, split at MTU 1024) and write D/<scenario>.pcap.gates: each of the
client's ACKs/NAKs waits for the endpoint's frames it answers (docs/naa.md "Gates"):
  requester   connect; a coalesced ACK for the first message; the ACK of the rest lost (the endpoint times
              out and goes back); a PSN sequence error NAK at the third message (Go-Back-N from it); an RNR
              NAK at the fourth (wait, then again); the last ACK; a duplicate ACK, an ACK for a PSN never sent
              and one with a bad ICRC; disconnect
  req_fatal   a remote access error NAK in the first message: it completes with an error, the rest are
              flushed; an ACK after it (stale); disconnect
  req_retry   the client never ACKs: the endpoint retransmits until its retry count runs out
The controller's scenarios (mrsp, rpc, rpc_err, rpc_lost: MRSP and RPC on D/naa_ctl.txt and
D/naa_rpc_err.txt) are gen_rpc.py's; its docstring lists them.
Random per seed: the client's MAC/IP/UDP port, QPN, starting PSN, Communication IDs, transaction IDs,
the server's QPN, starting PSN, Communication ID base and TCP port, the WRITE payloads.
"""
import argparse
import os
import random
import sys

from nettwin.common.pcap import write_pcap
from nettwin.naa.gen_rpc import CTL_SCENARIOS, make_ctl
from nettwin.naa.layers import (ATTR, CmDreq, CmRej, CmReq, CmRtu, build_mad, rdma_cm_service_id)
from nettwin.rdma.layers import OP, RETH, build_request

SCENARIOS = ("connect", "lost", "reject", "bad", "requester", "req_fatal", "req_retry") + CTL_SCENARIOS
REQ_SCENARIOS = ("requester", "req_fatal", "req_retry")
REQ_LADDR, REQ_MTU = 0x400000, 1024
SERVER = {"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"}
MR_RKEY, MR_VA, MR_LEN, MR_PA = 0x1000, 0x7f0000000000, 65536, 0x100000


class Client:
    """One rdma_cm client: its addresses, QP and CM state."""

    def __init__(self, rng, index):
        self.rng = rng
        self.addr = {"mac": "02:00:00:00:%02x:%02x" % (0x10 + index, rng.randrange(256)),
                     "ip": "10.0.%d.%d" % (1 + index, rng.randrange(1, 255)), "sport": rng.randrange(49152, 65536)}
        self.qpn = rng.randrange(2, 1 << 24)
        self.comm = rng.randrange(1, 1 << 32)
        self.mad_psn = 0
        self.new_connection()

    def new_connection(self):
        self.comm = (self.comm + 1) & 0xFFFFFFFF
        self.psn = self.rng.randrange(1 << 24)
        self.tid = self.rng.randrange(1 << 64)

    def mad(self, attr, msg, tid=None, **kw):
        f = build_mad(self.addr, SERVER, attr, self.tid if tid is None else tid, msg, self.mad_psn, **kw)
        self.mad_psn += 1
        return f

    def req(self, service_id, transport=0, mtu=3, **kw):
        return self.mad(ATTR["REQ"], CmReq(local_comm_id=self.comm, service_id=service_id, local_qpn=self.qpn,
                                           responder_resources=4, initiator_depth=4, transport_type=transport,
                                           starting_psn=self.psn, path_mtu=mtu, rnr_retry=7, retry_count=7,
                                           remote_cm_timeout=20, local_cm_timeout=20, max_cm_retries=15), **kw)

    def rtu(self, server_comm):
        return self.mad(ATTR["RTU"], CmRtu(local_comm_id=self.comm, remote_comm_id=server_comm))

    def dreq(self, server_comm, server_qpn):
        self.tid = (self.tid + 1) & ((1 << 64) - 1)     # a DREQ starts a new transaction
        return self.mad(ATTR["DREQ"], CmDreq(local_comm_id=self.comm, remote_comm_id=server_comm,
                                             remote_qpn=server_qpn))

    def rej(self, server_comm, reason=28):
        return self.mad(ATTR["REJ"], CmRej(local_comm_id=self.comm, remote_comm_id=server_comm, msg_rejected=1,
                                           reason=reason))

    def write(self, server_qpn, off, data, ackreq=True):
        f = build_request(4, self.addr["mac"], SERVER["mac"], self.addr["ip"], SERVER["ip"], self.addr["sport"],
                          OP["WRITE_ONLY"], server_qpn, self.psn, ackreq=ackreq,
                          ext=(RETH(va=MR_VA + off, rkey=MR_RKEY, dlen=len(data)),), payload=data)
        self.psn = (self.psn + 1) & 0xFFFFFF
        return f

    def ack(self, server_qpn, psn, syndrome=0, corrupt_icrc=False):
        """An ACK (syndrome 0), RNR NAK (0x20 | timer) or NAK (0x60 | code) of the endpoint's request PSN."""
        return build_request(4, self.addr["mac"], SERVER["mac"], self.addr["ip"], SERVER["ip"], self.addr["sport"],
                             OP["ACK"], server_qpn, psn & 0xFFFFFF, ext=(bytes([syndrome, 0, 0, 0]),),
                             corrupt_icrc=corrupt_icrc)

    def read(self, server_qpn, off, length):
        f = build_request(4, self.addr["mac"], SERVER["mac"], self.addr["ip"], SERVER["ip"], self.addr["sport"],
                          OP["READ"], server_qpn, self.psn, ackreq=True,
                          ext=(RETH(va=MR_VA + off, rkey=MR_RKEY, dlen=length),))
        self.psn = (self.psn + 1) & 0xFFFFFF
        return f


def make(seed, out_dir):
    rng = random.Random(seed)
    port = rng.randrange(1024, 65536)
    sid = rdma_cm_service_id(port)
    qpn = rng.randrange(2, 1 << 24)
    comm_base = rng.randrange(1 << 32)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "naa.txt"), "w") as fh:
        fh.write("# NAAICE endpoint (docs/naa.md), seed %d\n" % seed)
        fh.write("responder mac %s ip %s\n" % (SERVER["mac"], SERVER["ip"]))
        fh.write("qp 0x%06x mtu 1024 max_rd_atomic 16 aq 0x10000\n" % qpn)
        fh.write("mr 0x%x va 0x%x len %d pa 0x%x access rw\n" % (MR_RKEY, MR_VA, MR_LEN, MR_PA))
        fh.write("cm port %d guid 0x%016x psn 0x%06x initiator_depth 2 rnr_retry 7 ack_delay 15 comm_id 0x%08x\n"
                 % (port, rng.randrange(1 << 64), rng.randrange(1 << 24), comm_base))

    def payload():
        return bytes(rng.randrange(256) for _ in range(rng.choice((4, 60, 256, 1000, 1024))))

    scen = {}
    c = Client(rng, 0)
    s1 = comm_base
    f = [c.req(sid), c.rtu(s1)]
    for _ in range(3):
        f.append(c.write(qpn, rng.randrange(0, 32768, 4), payload()))
    f.append(c.read(qpn, 0, rng.choice((8, 1024, 3000))))
    f.append(c.dreq(s1, qpn))
    f.append(c.write(qpn, 0, payload()))                # no QP any more
    c.new_connection()
    s2 = (comm_base + 1) & 0xFFFFFFFF
    f += [c.req(sid), c.rtu(s2), c.write(qpn, 4096, payload()), c.dreq(s2, qpn)]
    scen["connect"] = f

    c = Client(rng, 0)
    s1 = comm_base
    req = c.req(sid)
    f = [req, req, c.rtu(s1), c.rtu(s1)]
    w = c.write(qpn, 64, payload())
    f += [w, w, c.dreq(s1, qpn)]
    f.append(f[-1])                                     # DREP lost: the same DREQ again
    c.new_connection()
    s2 = (comm_base + 1) & 0xFFFFFFFF
    f += [c.req(sid), c.rej(s2)]                        # the client refuses the REP
    c.new_connection()
    s3 = (comm_base + 2) & 0xFFFFFFFF
    f += [c.req(sid), c.rtu(s3), c.write(qpn, 128, payload()), c.dreq(s3, qpn)]
    scen["lost"] = f

    c, d = Client(rng, 0), Client(rng, 1)
    s1 = comm_base
    f = [c.req(rdma_cm_service_id((port + 1) % 65536)), c.req(sid, transport=1), c.req(sid, mtu=0),
         c.req(sid, mtu=6), c.req(sid), c.rtu(s1), d.req(sid), c.write(qpn, 0, payload()), c.dreq(s1, qpn)]
    scen["reject"] = f

    c = Client(rng, 0)
    good = c.req(sid)
    other = bytearray(good)
    other[0:6] = bytes.fromhex("020000000099")
    from nettwin.rdma.layers import set_icrc
    f = [c.req(sid, corrupt_icrc=True), set_icrc(bytes(other)), c.req(sid, mad_fields={"class_version": 1}),
         good[:200], c.mad(ATTR["MRA"], bytes(232)), c.rtu(0x12345678), c.write(qpn, 0, payload())]
    scen["bad"] = f

    gates = make_requester(rng, out_dir, scen, sid, qpn, comm_base, port)
    totals = {}
    for name, (frames, g, total) in make_ctl(rng, out_dir, lambda: Client(rng, 0), SERVER, sid, qpn, comm_base,
                                             (MR_VA, MR_RKEY)).items():
        scen[name], gates[name], totals[name] = frames, g, total
    for name, frames in scen.items():
        write_pcap(os.path.join(out_dir, name + ".pcap"), [(fr, 1.0 + i * 1e-6) for i, fr in enumerate(frames)])
        if name in gates:
            with open(os.path.join(out_dir, name + ".pcap.gates"), "w") as fh:
                fh.write("# client frame -> endpoint frames it waits for (docs/naa.md \"Gates\")\n")
                fh.writelines("%d after %d\n" % kv for kv in sorted(gates[name].items()))
                if name in totals:
                    fh.write("# the client expects %d endpoint frames in all\n" % totals[name])
    return scen


def make_requester(rng, out_dir, scen, sid, qpn, comm_base, port):
    """D/naa_req.txt and the requester scenarios; returns their gates {scenario: {frame: endpoint frames}}."""
    with open(os.path.join(out_dir, "naa.txt")) as fh:
        base = fh.read()
    start = int(base.split(" psn 0x", 1)[1].split()[0], 16)
    data = bytes(rng.randrange(256) for _ in range(12288))
    lens = [rng.randrange(1500, 3001), rng.randrange(0, 1101), rng.randrange(1, 1025), rng.randrange(2049, 4001)]
    ops = ["write", "write_imm", "send", "write"]
    lines = ["req timeout 3000 retry 2 rnr_retry 7\n"]
    psns, at = [], start
    for i, (op, n) in enumerate(zip(ops, lens)):
        post = "post %s laddr 0x%x len %d" % (op, REQ_LADDR + 3072 * i, n)
        if op != "send":
            post += " raddr 0x%x rkey 0x%x" % (rng.randrange(1 << 48), rng.randrange(1 << 32))
        if op == "write_imm":
            post += " imm 0x%x" % rng.randrange(1 << 32)
        lines.append(post + " tag %d\n" % (i + 1))
        k = max(1, -(-n // REQ_MTU))
        psns.append((at, k))
        at = (at + k) & 0xFFFFFF
    lines.append("mem 0x%x %s\n" % (REQ_LADDR, data.hex()))
    with open(os.path.join(out_dir, "naa_req.txt"), "w") as fh:
        fh.write(base + "".join(lines))
    total = sum(k for _, k in psns)
    last = lambda m: (psns[m][0] + psns[m][1] - 1) & 0xFFFFFF  # noqa: E731
    gates = {}

    c = Client(rng, 0)
    f, g = [c.req(sid), c.rtu(comm_base)], {1: 1}
    sent = 1 + total
    g[len(f)] = sent
    f.append(c.ack(qpn, last(0)))                           # a coalesced ACK of the first message
    sent += total - psns[0][1]                               # the rest's ACK is lost: timeout, Go-Back-N
    g[len(f)] = sent
    f.append(c.ack(qpn, psns[2][0], 0x60))                   # PSN sequence error at the third message
    sent += psns[2][1] + psns[3][1]
    g[len(f)] = sent
    f.append(c.ack(qpn, psns[3][0], 0x20 | rng.randrange(4)))  # RNR NAK at the fourth
    sent += psns[3][1]
    g[len(f)] = sent
    f += [c.ack(qpn, last(3)), c.ack(qpn, last(3)), c.ack(qpn, last(3) + 200),
          c.ack(qpn, last(3), corrupt_icrc=True), c.dreq(comm_base, qpn)]
    scen["requester"], gates["requester"] = f, g

    c = Client(rng, 0)
    f, g = [c.req(sid), c.rtu(comm_base)], {1: 1}
    g[len(f)] = 1 + total
    f += [c.ack(qpn, (psns[0][0] + 1) & 0xFFFFFF, 0x62), c.ack(qpn, last(3)), c.dreq(comm_base, qpn)]
    scen["req_fatal"], gates["req_fatal"] = f, g

    c = Client(rng, 0)
    scen["req_retry"], gates["req_retry"] = [c.req(sid), c.rtu(comm_base)], {1: 1}
    return gates


def main(argv=None):
    ap = argparse.ArgumentParser(description="NAAICE client scenarios (docs/naa.md)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args(argv)
    scen = make(a.seed, a.out_dir)
    print("naa_gen: seed %d: %s" % (a.seed, ", ".join("%s %d frames" % (k, len(v)) for k, v in scen.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
