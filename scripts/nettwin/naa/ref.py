#!/usr/bin/python3
"""Independent Python reference of the NAAICE endpoint (docs/naa.md) - the expected server frames, in order.

Written from docs/naa.md and IBA chapter 12, never from the C++ model or the RTL.  The connection manager
(REQ -> REP or REJ, RTU -> QP ready, DREQ -> DREP and teardown) is implemented here; RDMA requests go to
the responder's own independent reference (nettwin.rdma.ref Responder), whose QP exists only while a
connection is established, with the values the CM negotiated; the requester's frames (config-posted
commands, ACK/NAK handling, Go-Back-N) come from its own reference (nettwin.naa.ref_req).  Responses are
composed with the Scapy layers of nettwin.naa.layers and their own ICRC.  Client frames with a gate
(`<pcap>.gates`, docs/naa.md "Gates") wait for the endpoint's frames; the requester's timers fire when a
gate asks for frames the endpoint has not sent yet, and at the end of the input.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.naa.ref --config naa.txt --in client.pcap --out expected.pcap [--stats S.json]
"""
import argparse
import copy
import json
import re
import sys

from scapy.contrib.roce import BTH
from scapy.layers.l2 import Ether

from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.naa.ref_ctl import Controller, parse_ctl_line, receive_buffers
from nettwin.naa.ref_req import Requester, parse_req_lines
from nettwin.naa.layers import (ATTR, MAD, QP1_QKEY, REJ_INVALID_MTU, REJ_INVALID_SERVICE_ID,
                                REJ_INVALID_TRANSPORT, REJ_NO_QP, UD_SEND_ONLY, CmDrep, CmRej, CmRep,
                                build_mad, rdma_cm_service_id)
from nettwin.rdma.layers import check_icrc
from nettwin.rdma.ref import ConfigError, Responder, parse_config

CM_FRAME = 322
CM_DROPS = ("malformed", "not_for_us", "bad_icrc", "bad_mad", "ignored")


def parse_naa_config(text, path="config"):
    """(rdma Config with the endpoint's QP, cm dict, requester (settings, posts), ctl dict or None).  The cm,
    req, post and ctl lines are docs/naa.md's; the qp line gets dest_qp 0 and epsn 0 (the CM sets both on connect) so
    the responder reference parses it; the ctl line's receive WQEs go into the configured memory."""
    cm, rest, qpn, req_lines, ctl_line = None, [], None, [], None
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].split()
        if body and body[0] in ("req", "post"):
            req_lines.append((n, body))
            rest.append("")
            continue
        if body and body[0] == "ctl":
            ctl_line = (n, body)
            rest.append("")
            continue
        if body and body[0] == "cm":
            kv = dict(zip(body[1::2], body[2::2]))
            cm = {"listen": int(kv.get("listen", "1"), 0) != 0, "guid": int(kv.get("guid", "0"), 0),
                  "psn": int(kv.get("psn", "0"), 0), "initiator_depth": int(kv.get("initiator_depth", "0"), 0),
                  "rnr_retry": int(kv.get("rnr_retry", "7"), 0), "ack_delay": int(kv.get("ack_delay", "0"), 0),
                  "comm_id": int(kv.get("comm_id", "0"), 0)}
            cm["service_id"] = (rdma_cm_service_id(int(kv["port"], 0)) if "port" in kv
                                else int(kv["service"], 0))
            rest.append("")
            continue
        if body and body[0] == "qp":
            qpn = int(body[1], 0)
            line = re.sub(r"#.*", "", line) + " dest_qp 0 epsn 0"
        rest.append(line)
    if cm is None or qpn is None:
        raise ConfigError(path, 0, "cm" if cm is None else "qp", "missing line")
    cfg = parse_config("\n".join(rest), path)
    ctl = None
    if ctl_line is not None:
        ctl = parse_ctl_line(path, ctl_line[0], ctl_line[1], len(cfg.mrs))
        receive_buffers(ctl, cfg.qps[qpn], cfg.mem)
    return cfg, cm, parse_req_lines(req_lines), ctl


class Endpoint:
    def __init__(self, cfg, cm, req=({"timeout": 4096, "retry": 7, "rnr_retry": 7}, []), ctl=None):
        self.cfg, self.cm = cfg, cm
        self.rdma = Responder(cfg)
        server = {"mac": cfg.mac.hex(":"), "ip": ".".join(str(b) for b in cfg.ip4 or b"\0\0\0\0"),
                  "mac_bytes": cfg.mac, "ip_bytes": cfg.ip4}
        self.req = Requester(req[0], req[1], server, self.rdma.mem.read)
        self.client_addr = None
        self.req_out = []
        self.qpn = next(iter(cfg.qps))
        self.template = cfg.qps[self.qpn]
        del self.rdma.qps[self.qpn]         # no QP until a connection is established
        self.state = "idle"
        self.local_comm = self.remote_comm = self.client_qpn = self.client_psn = 0
        self.resp_res = self.init_depth = self.mtu = 0
        self.accepted = 0
        self.mad_psn = 0
        self.ctl = Controller(ctl, self) if ctl else None
        self.done_seen = 0
        self.st = {"cm_in": 0, "cm_out": 0, "rejects": 0, "connects": 0, "disconnects": 0,
                   "cm_drops": {r: 0 for r in CM_DROPS}, "rdma_in": 0, "rdma_out": 0, "rdma_drops": {}}

    @staticmethod
    def is_cm(f):
        """docs/naa.md "Front end": RoCEv2 over IPv4 (no options) to destination QP 1, by the first 50 bytes."""
        return (len(f) >= 50 and f[12:14] == b"\x08\x00" and f[14] == 0x45 and f[23] == 17
                and int.from_bytes(f[36:38], "big") == 4791 and f[47:50] == b"\x00\x00\x01")

    def process(self, f):
        """The endpoint's frames for client frame f, in order."""
        if self.ctl and self.ctl.running and not self.is_dreq(f):
            return self.kernel_done() + self.process(f)
        if not self.is_cm(f) and self.req.for_me(f):
            return self.req.ack(f) + self.settle()
        if not self.is_cm(f) and self.first_packet(f):
            # A lost RTU (IBA chapter 12): in REP-sent the client's first packet on the QP establishes the
            # connection, then the responder takes it. The requester's posted commands start then too; their
            # packets and the responder's answer to this one race: undecided unless one side sends nothing.
            self.establish()
            started, self.req_out = self.req_out, []
            rest = self.process(f)
            if started and rest:
                raise ValueError("undecided: the requester's first packets race the answer to the packet that "
                                 "established the connection (a lost RTU with posted commands)")
            return started + rest
        if not self.is_cm(f):
            self.st["rdma_in"] += 1
            cqes = len(self.rdma.cqes)
            v = self.rdma.process(f)
            if v.reason:
                self.st["rdma_drops"][v.reason] = self.st["rdma_drops"].get(v.reason, 0) + 1
            self.st["rdma_out"] += len(v.responses)
            if self.ctl:
                for c in self.rdma.cqes[cqes:]:
                    self.ctl.event(c)
            return list(v.responses) + self.settle()
        self.st["cm_in"] += 1
        out = self.cm_frame(f)
        if isinstance(out, str):
            self.st["cm_drops"][out] += 1
            return []
        self.st["cm_out"] += len(out)
        out, self.req_out = out + self.req_out, []      # the requester starts on the RTU
        return out

    def is_dreq(self, f):
        return self.is_cm(f) and len(f) >= 80 and f[78:80] == ATTR["DREQ"].to_bytes(2, "big")

    def kernel_done(self):
        """The controller's running kernel (ref_ctl.py) finishes: its result goes out."""
        if not (self.ctl and self.ctl.running):
            return []
        self.ctl.finish()
        return self.settle()

    def settle(self):
        """The controller's part after a frame or a timer: each completion of its commands reposts a receive
        buffer and may start the next event; the requester then sends what was posted."""
        out = []
        while True:
            new = self.req.done[self.done_seen:]
            self.done_seen = len(self.req.done)
            for cmd, status in new:
                if cmd.get("ctl"):
                    self.ctl.completed(cmd, status)
            out += self.req.pump()
            if not new:
                return out

    def fire(self):
        """The requester's next timer (ref_req.py), then what it lets the controller do."""
        return self.req.fire() + self.settle()

    def cm_frame(self, f):
        srv = self.cfg
        if (len(f) != CM_FRAME or f[14] != 0x45 or int.from_bytes(f[16:18], "big") != CM_FRAME - 14
                or int.from_bytes(f[20:22], "big") & 0x3FFF or int.from_bytes(f[38:40], "big") != CM_FRAME - 34
                or f[42] != UD_SEND_ONLY or f[43] != 0):
            return "malformed"
        if f[0:6] != srv.mac or srv.ip4 is None or f[30:34] != srv.ip4:
            return "not_for_us"
        if not check_icrc(f):
            return "bad_icrc"
        p = Ether(f)
        mad = p[MAD]
        if (int.from_bytes(f[54:58], "big") != QP1_QKEY or mad.base_version != 1 or mad.mgmt_class != 0x07
                or mad.class_version != 2 or mad.method != 0x03):
            return "bad_mad"
        msg = mad.payload
        body = bytes(msg)[:232]
        comm0, comm1 = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
        ours = comm1 == self.local_comm and comm0 == self.remote_comm
        a = mad.attr_id
        reply = lambda attr, m: self.reply(p, mad.tid, attr, m)  # noqa: E731
        if a == ATTR["REQ"]:
            dup = self.state != "idle" and comm0 == self.remote_comm and msg.local_qpn == self.client_qpn
            if dup and self.state != "rep_sent":
                return "ignored"
            if not dup:
                reason = None
                if not self.cm["listen"] or msg.service_id != self.cm["service_id"]:
                    reason = REJ_INVALID_SERVICE_ID
                elif msg.transport_type != 0:       # RC
                    reason = REJ_INVALID_TRANSPORT
                elif not 1 <= msg.path_mtu <= 5 or 128 << msg.path_mtu > self.template.mtu:   # REJ 26
                    reason = REJ_INVALID_MTU
                elif self.state != "idle":
                    reason = REJ_NO_QP
                if reason is not None:
                    self.st["rejects"] += 1
                    return [reply(ATTR["REJ"], CmRej(local_comm_id=0, remote_comm_id=comm0, reason=reason))]
                self.state = "rep_sent"
                self.client_addr = (bytes.fromhex(p[Ether].src.replace(":", "")), p["IP"].src, p["UDP"].sport)
                self.remote_comm, self.client_qpn, self.client_psn = comm0, msg.local_qpn, msg.starting_psn
                self.local_comm = (self.cm["comm_id"] + self.accepted) & 0xFFFFFFFF
                self.accepted += 1
                self.resp_res = min(msg.initiator_depth, self.template.max_rd_atomic, 255)
                self.init_depth = min(msg.responder_resources, self.cm["initiator_depth"])
                self.mtu = min(128 << msg.path_mtu, self.template.mtu)
            return [reply(ATTR["REP"], CmRep(
                local_comm_id=self.local_comm, remote_comm_id=self.remote_comm, local_qpn=self.qpn,
                starting_psn=self.cm["psn"], responder_resources=self.resp_res, initiator_depth=self.init_depth,
                target_ack_delay=self.cm["ack_delay"], rnr_retry=self.cm["rnr_retry"],
                local_ca_guid=self.cm["guid"]))]
        if a == ATTR["RTU"]:
            if self.state != "rep_sent" or not ours:
                return "ignored"
            self.establish()
            return []
        if a == ATTR["DREQ"]:
            if self.state != "idle" and ours:
                self.state = "idle"
                self.st["disconnects"] += 1
                self.rdma.qps.pop(self.qpn, None)
                if self.ctl:
                    self.ctl.disconnect()
                self.req.disconnect()
                self.settle()
            return [reply(ATTR["DREP"], CmDrep(local_comm_id=comm1, remote_comm_id=comm0))]
        if a == ATTR["REJ"] and self.state == "rep_sent" and ours:
            self.state = "idle"
            return []
        return "ignored"

    def first_packet(self, f):
        """f is the client's packet on the connection's QP while the CM is in REP-sent (RoCEv2 over IPv4 from
        the REQ's source address to this endpoint's QPN)."""
        return (self.state == "rep_sent" and len(f) >= 50 and f[12:14] == b"\x08\x00" and f[14] == 0x45
                and f[23] == 17 and int.from_bytes(f[36:38], "big") == 4791
                and int.from_bytes(f[47:50], "big") == self.qpn and self.qpn != 1
                and ".".join(str(b) for b in f[26:30]) == self.client_addr[1])

    def establish(self):
        """The RTU's work (or a lost RTU's first packet's): the responder's QP, the requester's connection."""
        self.state = "established"
        self.st["connects"] += 1
        conf = copy.copy(self.template)
        conf.dest_qp, conf.epsn, conf.mtu, conf.max_rd_atomic = (self.client_qpn, self.client_psn, self.mtu,
                                                                 self.resp_res)
        from nettwin.rdma.ref_state import QPState
        self.rdma.qps[self.qpn] = QPState(conf)
        mac, ip, sport = self.client_addr
        self.req_out = self.req.connect({"mac": mac.hex(":"), "ip": ip, "sport": sport, "qpn": self.client_qpn,
                                         "local_qpn": self.qpn, "psn": self.cm["psn"], "mtu": self.mtu})

    def reply(self, req, tid, attr, msg):
        me = {"mac": self.cfg.mac.hex(":"), "ip": ".".join(str(b) for b in self.cfg.ip4), "sport": req["UDP"].sport}
        peer = {"mac": req[Ether].src, "ip": req["IP"].src}
        f = build_mad(me, peer, attr, tid, msg, self.mad_psn)
        self.mad_psn = (self.mad_psn + 1) & 0xFFFFFF
        return f


def read_gates(path):
    """{frame index: endpoint frames it waits for} from `path` (docs/naa.md "Gates"); {} without the file."""
    gates = {}
    try:
        with open(path) as fh:
            for n, line in enumerate(fh, 1):
                w = line.split("#", 1)[0].split()
                if not w:
                    continue
                if len(w) != 3 or w[1] != "after":
                    raise ValueError(f"{path}:{n}: expected '<frame index> after <endpoint frames>'")
                gates[int(w[0])] = int(w[2])
    except FileNotFoundError:
        pass
    return gates


def expected_frames(ep, frames, gates, exact_gates=True):
    """The endpoint's frames for the client frames, honouring the gates; the requester's timers fire when a
    gate waits for more frames than the endpoint sent, and at the end while it has work outstanding.  A gate
    that waits for fewer frames than the endpoint has sent by then is refused (ValueError, undecided) unless
    `exact_gates` is false (a test that makes a planted bug's frames, whatever its gates say)."""
    out = []
    for i, (f, ts) in enumerate(frames):
        while len(out) < gates.get(i, 0):
            if ep.ctl and ep.ctl.running:       # the client waits: the kernel finishes first
                out.extend((r, ts) for r in ep.kernel_done())
                continue
            if not ep.req.pending():
                raise ValueError(f"client frame {i} waits for {gates[i]} endpoint frames; the reference sends "
                                 f"only {len(out)}")
            out.extend((r, ts) for r in ep.fire())
        if exact_gates and i in gates and len(out) > gates[i]:
            # The device offers frame i as soon as the gate's count is out, while the later frames may still be
            # on their way: how they interleave with the client's next frames is timing, not protocol.
            raise ValueError(f"undecided: client frame {i} is gated after {gates[i]} endpoint frames, but by then "
                             f"the reference has sent {len(out)}; endpoint frames {gates[i] + 1}..{len(out)} may "
                             f"still be on the wire when the client acts, so their order with the client's next "
                             f"frames depends on timing. A gate must wait for every endpoint frame before it "
                             f"(the generated scenarios' gates fit only the configuration they were made with)")
        out.extend((r, ts) for r in ep.process(bytes(f)))
    ts = frames[-1][1] if frames else 0
    out.extend((r, ts) for r in ep.kernel_done())
    while ep.req.pending():
        out.extend((r, ts) for r in ep.fire())
    return out


def run(config_text, frames, path="config", gates=None):
    ep = Endpoint(*parse_naa_config(config_text, path))
    return ep, expected_frames(ep, frames, gates or {})


def main(argv=None):
    ap = argparse.ArgumentParser(description="Python reference of the NAAICE endpoint (docs/naa.md)")
    ap.add_argument("--config", required=True)
    ap.add_argument("--in", dest="inp", required=True, help="client pcap")
    ap.add_argument("--out", required=True, help="expected server pcap to write")
    ap.add_argument("--stats", help="expected counters JSON to write")
    a = ap.parse_args(argv)
    try:
        with open(a.config) as fh:
            text = fh.read()
        ep, out = run(text, read_pcap(a.inp), a.config, read_gates(a.inp + ".gates"))
    except (ConfigError, InputError, OSError, ValueError) as e:
        print(f"naa_ref: {e}", file=sys.stderr)
        return 2
    write_pcap(a.out, out)
    if a.stats:
        with open(a.stats, "w") as fh:
            json.dump({**ep.st, "req": ep.req.st, **({"ctl": ep.ctl.st} if ep.ctl else {})}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
